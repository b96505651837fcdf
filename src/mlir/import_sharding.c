/* sdy meshes and shardings onto the IR's, with the checks the .shir front
 * end makes (src/front/build_mesh.c): axis names and sizes, device ids,
 * sub-axes, an axis used twice in one sharding. What shardc does not model
 * is a located error: maximal meshes on a
 * device other than 0 (shardc numbers a
 * mesh's devices 0..N-1, so `<[], device_ids=[0]>` is the only maximal
 * mesh it has; `<[]>`, the empty mesh, is a mesh of one device). Meshes
 * written inline in a sharding are lifted to declared ones. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mlir/import_internal.h"

const Mesh *mlir_imp_find_mesh(ImportCtx *ic, const char *name)
{
    for (int i = 0; i < ic->meshes.count; i++) {
        const Mesh *m = ic->meshes.items[i];
        if (strcmp(m->name, name) == 0)
            return m;
    }
    return NULL;
}

Mesh *mlir_imp_add_mesh(ImportCtx *ic, const char *name, Loc loc)
{
    Mesh *mesh = ARENA_NEW(ic->arena, Mesh);
    mesh->name = mlir_imp_str(ic, name);
    mesh->loc = loc;
    mesh->num_devices = 1;
    arena_list_push(&ic->tables, &ic->meshes, mesh);
    return mesh;
}

/* Errors of a mesh declared with `sdy.mesh @name = <...>` carry MLIR's
 * prefix for a custom op's ("custom op 'sdy.mesh' "); an inline mesh's
 * none (prefix ""). */
static const char CUSTOM_MESH[] = "custom op 'sdy.mesh' ";

static bool add_axis(ImportCtx *ic, Mesh *mesh, const MlirMeshAxis *a, const char *prefix)
{
    Loc loc = mlir_imp_loc(ic, a->loc);
    for (int k = 0; k < mesh->num_axes; k++)
        if (strcmp(mesh->axes[k].name, a->name) == 0) {
            diag_error(ic->diag, loc, "%sduplicate axis name: \"%s\"", prefix, a->name);
            return false;
        }
    if (a->size < 1) {
        diag_error(ic->diag, loc, "axis size must be at least 1, got: %lld (axis \"%s\")", (long long)a->size, a->name);
        if (*prefix) /* the axis's own error, then its op's, as Shardy's parser gives both */
            diag_error(ic->diag, loc, "%sfailed to parse Sdy_Mesh parameter 'axes' which is to be a "
                       "`::llvm::ArrayRef<MeshAxisAttr>`", prefix);
        return false;
    }
    if (mesh->num_devices > INT32_MAX / a->size) {
        diag_error(ic->diag, loc, "the mesh has more than %d devices", INT32_MAX);
        return false;
    }
    mesh->num_devices *= a->size;
    mesh->axes[mesh->num_axes++] = (MeshAxis){mlir_imp_str(ic, a->name), a->size, false, loc};
    return true;
}

static int64_t device_id(const MlirMesh *src, int i) { return *(int64_t *)src->device_ids.items[i]; }

/* Shardy's mesh verifier, in its words: ids non-negative, one per device,
 * sorted they are 0..N-1. */
static bool check_device_ids(ImportCtx *ic, const Mesh *mesh, const MlirMesh *src, Loc loc, const char *prefix)
{
    int n = src->device_ids.count;
    for (int i = 0; i < n; i++)
        if (device_id(src, i) < 0) {
            diag_error(ic->diag, loc, "%sdevice id must be non-negative, got: %lld", prefix,
                       (long long)device_id(src, i));
            return false;
        }
    if (mesh->num_axes == 0 && n > 1) {
        diag_error(ic->diag, loc, "%saxes is empty and device_ids has more than one element", prefix);
        return false;
    }
    if (mesh->num_axes > 0 && n != mesh->num_devices) {
        diag_error(ic->diag, loc, "%stotal product of axis sizes must match total number of device ids, got: "
                   "%lld != %d", prefix, (long long)mesh->num_devices, n);
        return false;
    }
    return true;
}

static int compare_ids(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The ids sorted, as Shardy's message lists them, into buf. */
static void sorted_ids(ImportCtx *ic, const MlirMesh *src, char *buf, size_t size)
{
    int n = src->device_ids.count;
    int64_t *ids = ARENA_ARRAY(&ic->scratch, int64_t, n + 1);
    for (int i = 0; i < n; i++)
        ids[i] = device_id(src, i);
    qsort(ids, (size_t)n, sizeof *ids, compare_ids);
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%lld", i ? ", " : "", (long long)ids[i]);
}

/* Explicit device ids: a permutation of 0..N-1; the identity is dropped
 * (sdy prints such a mesh without them), except on a maximal mesh. */
static void set_device_ids(ImportCtx *ic, Mesh *mesh, const MlirMesh *src, const char *prefix)
{
    Loc loc = mlir_imp_loc(ic, src->loc);
    int n = src->device_ids.count;
    if (!check_device_ids(ic, mesh, src, loc, prefix))
        return;
    if (mesh->num_axes == 0 && n == 1) { /* a maximal mesh: the one device it names, kept */
        mesh->device_ids = ARENA_ARRAY(ic->arena, int64_t, 1);
        mesh->device_ids[0] = device_id(src, 0);
        return;
    }
    bool *seen = ARENA_ARRAY(&ic->scratch, bool, n);
    bool identity = true;
    for (int i = 0; i < n; i++) {
        int64_t id = device_id(src, i);
        if (id >= n || seen[id]) {
            char ids[256];
            sorted_ids(ic, src, ids, sizeof ids);
            diag_error(ic->diag, loc, "%ssorted device ids must be iota(product(axes)), got: %s", prefix, ids);
            return;
        }
        seen[id] = true;
        identity &= id == i;
    }
    if (identity && mesh->num_axes > 0)
        return;
    mesh->device_ids = ARENA_ARRAY(ic->arena, int64_t, n);
    for (int i = 0; i < n; i++)
        mesh->device_ids[i] = *(int64_t *)src->device_ids.items[i];
}

/* One name of shardc.explicit_axes: an axis of the mesh, made explicit. */
static bool mark_explicit(ImportCtx *ic, Mesh *mesh, const char *name, Loc loc)
{
    for (int k = 0; k < mesh->num_axes; k++)
        if (strcmp(mesh->axes[k].name, name) == 0) {
            mesh->axes[k].is_explicit = true;
            return true;
        }
    diag_error(ic->diag, loc, "shardc.explicit_axes names \"%s\", which is not an axis of the mesh", name);
    return false;
}

/* The mesh op's attribute dict: shardc.explicit_axes, the axes JAX calls
 * AxisType.Explicit (as the printer writes them, src/mlir/print.c), a list
 * of axis names; any other attribute is refused, not dropped. */
static void mesh_attrs(ImportCtx *ic, Mesh *mesh, const MlirList *attrs)
{
    for (int i = 0; i < attrs->count; i++) {
        const MlirNamedAttr *a = attrs->items[i];
        Loc loc = mlir_imp_loc(ic, a->loc);
        const MlirAttr *v = a->value;
        if (strcmp(a->name, "shardc.explicit_axes") != 0) {
            diag_error(ic->diag, loc, "attribute '%s' on sdy.mesh is not supported by shardc", a->name);
            continue;
        }
        bool ok = v->kind == MA_AXES || v->kind == MA_ARRAY;
        for (int k = 0; ok && k < v->items.count; k++) {
            const MlirAxisRef *r = v->items.items[k];
            const MlirAttr *e = v->items.items[k];
            if (v->kind == MA_AXES ? r->sub : e->kind != MA_STRING)
                ok = false;
            else
                mark_explicit(ic, mesh, v->kind == MA_AXES ? r->name : e->s, loc);
        }
        if (!ok)
            diag_error(ic->diag, loc, "shardc.explicit_axes must be a list of axis names, like [\"x\", \"y\"]");
    }
}

/* Axes and device ids of src into mesh; false if they are wrong (reported). */
static bool fill_mesh(ImportCtx *ic, Mesh *mesh, const MlirMesh *src, const char *prefix)
{
    mesh->axes = ARENA_ARRAY(ic->arena, MeshAxis, src->axes.count + 1);
    bool ok = true;
    for (int i = 0; i < src->axes.count; i++)
        ok &= add_axis(ic, mesh, src->axes.items[i], prefix);
    if (ok && src->has_device_ids)
        set_device_ids(ic, mesh, src, prefix);
    return ok;
}

void mlir_imp_mesh(ImportCtx *ic, const MlirMeshDecl *decl)
{
    Loc loc = mlir_imp_loc(ic, decl->loc);
    const Mesh *previous = mlir_imp_find_mesh(ic, decl->name);
    if (previous) {
        diag_error(ic->diag, loc, "redefinition of mesh '@%s'", decl->name);
        diag_note(ic->diag, previous->loc, "previous definition is here");
        return;
    }
    const MlirMesh *src = decl->mesh;
    if (src->axes.count > SHARDC_MAX_MESH_AXES) {
        diag_error(ic->diag, loc, "a mesh has at most %d axes", SHARDC_MAX_MESH_AXES);
        return;
    }
    Mesh *mesh = mlir_imp_add_mesh(ic, decl->name, loc);
    if (fill_mesh(ic, mesh, src, CUSTOM_MESH))
        mesh_attrs(ic, mesh, &decl->attrs);
}

/* A mesh written inline in a sharding (`<mesh<["a"=2]>, [...]>`), lifted
 * to a declared one as Shardy's import (LiftInlinedMeshes, then its mesh
 * dedup) does: a declared mesh equal to it by value, else a new mesh named
 * `mesh` (`maximal_mesh_N`, `empty_mesh`), `_N` added when taken. */
static const Mesh *lift_inline_mesh(ImportCtx *ic, const MlirMesh *src, Loc loc)
{
    if (src->axes.count > SHARDC_MAX_MESH_AXES) {
        diag_error(ic->diag, loc, "a mesh has at most %d axes", SHARDC_MAX_MESH_AXES);
        return NULL;
    }
    Mesh *lifted = ARENA_NEW(ic->arena, Mesh);
    lifted->loc = loc;
    lifted->num_devices = 1;
    if (!fill_mesh(ic, lifted, src, ""))
        return NULL;
    for (int i = 0; i < ic->meshes.count; i++)
        if (mesh_equal(ic->meshes.items[i], lifted))
            return ic->meshes.items[i];
    char base[64], name[80];
    if (!lifted->num_axes && lifted->device_ids)
        snprintf(base, sizeof base, "maximal_mesh_%lld", (long long)lifted->device_ids[0]);
    else
        snprintf(base, sizeof base, "%s", lifted->num_axes || src->has_device_ids ? "mesh" : "empty_mesh");
    snprintf(name, sizeof name, "%s", base);
    for (int n = 0; mlir_imp_find_mesh(ic, name); n++)
        snprintf(name, sizeof name, "%s_%d", base, n);
    lifted->name = mlir_imp_str(ic, name);
    arena_list_push(&ic->tables, &ic->meshes, lifted);
    return lifted;
}

/* ---- shardings ---- */

static int find_axis(const Mesh *mesh, const char *name)
{
    for (int i = 0; i < mesh->num_axes; i++)
        if (strcmp(mesh->axes[i].name, name) == 0)
            return i;
    return -1;
}

/* Shardy's sub-axis rules for "x":(pre)size of an axis of size full, each
 * reported in its words. */
static bool check_sub_axis(ImportCtx *ic, Loc loc, const MlirAxisRef *r, int64_t full)
{
    long long pre = (long long)r->pre_size, size = (long long)r->size;
    int64_t next_pre = 0;
    bool too_large = r->pre_size >= 1 && __builtin_mul_overflow(r->pre_size, r->size, &next_pre);
    if (r->pre_size < 1)
        diag_error(ic->diag, loc, "sub-axis pre-size must be at least 1: \"%s\":(%lld)%lld", r->name, pre, size);
    else if (r->size <= 1)
        diag_error(ic->diag, loc, "sub-axis sizes must be greater than 1: \"%s\":(%lld)%lld", r->name, pre, size);
    else if (too_large)
        diag_error(ic->diag, loc, "sub-axis \"%s\":(%lld)%lld is larger than any axis", r->name, pre, size);
    else if (full % next_pre != 0)
        diag_error(ic->diag, loc, "sub-axis next pre-size %lld doesn't divide the size of the full axis %lld: "
                   "\"%s\":(%lld)%lld", (long long)next_pre, (long long)full, r->name, pre, size);
    else if (r->pre_size == 1 && r->size == full)
        diag_error(ic->diag, loc, "sub-axis size is equal to the full axis size: \"%s\":(%lld)%lld", r->name, pre,
                   size);
    else
        return true;
    return false;
}

/* "x" or "x":(pre)size, with Shardy's sub-axis rules: size > 1, pre * size
 * divides the axis, and not the whole axis. */
static bool resolve_axis(ImportCtx *ic, const Mesh *mesh, const MlirAxisRef *r, AxisRef *out)
{
    Loc loc = mlir_imp_loc(ic, r->loc);
    int axis = find_axis(mesh, r->name);
    if (axis < 0) {
        diag_error(ic->diag, loc, "unknown axis name: \"%s\" (mesh '@%s')", r->name, mesh->name);
        return false;
    }
    int64_t full = mesh->axes[axis].size;
    *out = (AxisRef){axis, 1, full};
    if (!r->sub)
        return true;
    if (!check_sub_axis(ic, loc, r, full))
        return false;
    *out = (AxisRef){axis, r->pre_size, r->size};
    return true;
}

typedef struct AxisUse {
    AxisRef *used;
    int count;
} AxisUse;

/* Resolves r and checks it overlaps no axis used before in the sharding. */
static bool use_axis(ImportCtx *ic, const Mesh *mesh, const MlirAxisRef *r, AxisUse *use, AxisRef *out)
{
    if (!resolve_axis(ic, mesh, r, out))
        return false;
    for (int i = 0; i < use->count; i++) {
        if (axis_ref_overlaps(use->used[i], *out)) {
            char ref[160];
            snprintf(ref, sizeof ref, r->sub ? "\"%.100s\":(%lld)%lld" : "\"%.100s\"", r->name,
                     (long long)r->pre_size, (long long)r->size);
            diag_error(ic->diag, mlir_imp_loc(ic, r->loc), "duplicate axis ref: %s (an axis shards one dim of a "
                       "value, once)", ref);
            return false;
        }
    }
    use->used[use->count++] = *out;
    return true;
}

static bool build_dim(ImportCtx *ic, Sharding *s, int d, const MlirDimSharding *src, AxisUse *use)
{
    DimSharding *dim = &s->dims[d];
    dim->is_closed = !src->is_open;
    dim->priority = src->priority < 0 ? PRIORITY_NONE : src->priority;
    dim->axes = ARENA_ARRAY(ic->arena, AxisRef, src->axes.count);
    bool ok = true;
    for (int k = 0; k < src->axes.count; k++)
        if ((ok &= use_axis(ic, s->mesh, src->axes.items[k], use, &dim->axes[dim->num_axes])))
            dim->num_axes++;
    if (dim->priority != PRIORITY_NONE && dim->is_closed && dim->num_axes == 0 && ok) {
        diag_error(ic->diag, mlir_imp_loc(ic, src->loc), "dim %d is empty and closed but has a priority (it has "
                   "no effect; drop it or open the dim with '?')", d);
        ok = false;
    }
    return ok;
}

int mlir_imp_count_axis_refs(const MlirSharding *s)
{
    int n = s->replicated.count + s->unreduced.count;
    for (int d = 0; d < s->dims.count; d++)
        n += ((const MlirDimSharding *)s->dims.items[d])->axes.count;
    return n;
}

/* Shardy keeps unreduced axes sorted by the mesh's axis order (sub-axes of
 * one axis by pre-size) and merged where two sub-axes are adjacent. */
static bool check_unreduced_order(ImportCtx *ic, const Sharding *s, Loc loc)
{
    for (int k = 1; k < s->num_unreduced; k++) {
        AxisRef a = s->unreduced[k - 1], b = s->unreduced[k];
        if (a.axis > b.axis || (a.axis == b.axis && a.pre_size > b.pre_size)) {
            diag_error(ic->diag, loc, "unreduced axes are not ordered w.r.t. mesh");
            return false;
        }
        if (a.axis == b.axis && axis_ref_end(a) == b.pre_size) {
            const char *n = s->mesh->axes[a.axis].name;
            diag_error(ic->diag, loc, "two consecutive sub-axes can be merged: \"%s\":(%lld)%lld, \"%s\":(%lld)%lld",
                       n, (long long)a.pre_size, (long long)a.size, n, (long long)b.pre_size, (long long)b.size);
            return false;
        }
    }
    return true;
}

static bool build_unreduced(ImportCtx *ic, Sharding *s, const MlirSharding *src, AxisUse *use)
{
    const char *kind = src->unreduced_kind;
    if (kind && strcmp(kind, "sum") && strcmp(kind, "max") && strcmp(kind, "min")) {
        diag_error(ic->diag, s->loc, "unknown reduction op '%s' (expected sum, max or min)", kind);
        return false;
    }
    s->unreduced_op = !kind ? UNREDUCED_SUM : strcmp(kind, "max") == 0 ? UNREDUCED_MAX
                    : strcmp(kind, "min") == 0 ? UNREDUCED_MIN : UNREDUCED_SUM;
    s->unreduced = ARENA_ARRAY(ic->arena, AxisRef, src->unreduced.count);
    bool ok = true;
    for (int k = 0; k < src->unreduced.count; k++)
        if ((ok &= use_axis(ic, s->mesh, src->unreduced.items[k], use, &s->unreduced[s->num_unreduced])))
            s->num_unreduced++;
    return ok && check_unreduced_order(ic, s, s->loc);
}

static const Mesh *sharding_mesh(ImportCtx *ic, const MlirSharding *src, Loc loc)
{
    if (!src->mesh_name)
        return src->inline_mesh ? lift_inline_mesh(ic, src->inline_mesh, loc) : NULL;
    const Mesh *mesh = mlir_imp_find_mesh(ic, src->mesh_name);
    if (!mesh)
        diag_error(ic->diag, loc, "unknown mesh '@%s'", src->mesh_name);
    return mesh;
}

Sharding *mlir_imp_sharding(ImportCtx *ic, const MlirSharding *src)
{
    return mlir_imp_sharding_at(ic, NULL, src, NULL);
}

static Sharding *build_sharding(ImportCtx *ic, const ImpSite *site, const MlirSharding *src, const TensorType *type)
{
    if (!mlir_imp_verify_sharding(ic, site, src, type))
        return NULL;
    Loc loc = mlir_imp_loc(ic, src->loc);
    const Mesh *mesh = sharding_mesh(ic, src, loc);
    if (!mesh)
        return NULL;
    if (mesh->num_axes == 0 && mesh->device_ids && (src->dims.count || src->replicated.count || src->unreduced.count)) {
        diag_error(ic->diag, loc, "a maximal sharding can only have a sharding with rank 0 and no replicated or "
                   "unreduced axes");
        return NULL;
    }
    Sharding *s = ARENA_NEW(ic->arena, Sharding);
    s->mesh = mesh;
    s->loc = loc;
    s->rank = src->dims.count;
    s->dims = ARENA_ARRAY(ic->arena, DimSharding, s->rank);
    AxisUse use = {ARENA_ARRAY(&ic->scratch, AxisRef, mlir_imp_count_axis_refs(src) + 1), 0};
    bool ok = true;
    for (int d = 0; d < s->rank; d++)
        ok &= build_dim(ic, s, d, src->dims.items[d], &use);
    s->replicated = ARENA_ARRAY(ic->arena, AxisRef, src->replicated.count);
    for (int k = 0; k < src->replicated.count; k++)
        if ((ok &= use_axis(ic, mesh, src->replicated.items[k], &use, &s->replicated[s->num_replicated])))
            s->num_replicated++;
    return ok && build_unreduced(ic, s, src, &use) ? s : NULL;
}

/* The memo entry of src on a value of this type at site, when the check
 * and the import of src have no other input: no manual axes bound. */
static struct ImpShardingMemo *memo_entry(ImportCtx *ic, const ImpSite *site, const MlirSharding *src,
                                          const TensorType *type, struct ImpShardingMemo *key)
{
    if (!src->memo_id || ic->manual)
        return NULL;
    /* untyped: a rank no type has, SHARDC_UNRANKED's -1 included */
    *key = (struct ImpShardingMemo){NULL, type ? type->rank : INT_MIN, type && type->dtype == DT_TOKEN,
                                    site && site->no_value};
    return &ic->sharding_memo[src->memo_id - 1];
}

static bool memo_matches(const struct ImpShardingMemo *e, const struct ImpShardingMemo *key)
{
    return e->sharding && e->rank == key->rank && e->token == key->token && e->no_value == key->no_value;
}

/* A sharding text the streamed reader saw before (memo_id) is checked and
 * built once per shape; each value gets a copy at its own location. */
Sharding *mlir_imp_sharding_at(ImportCtx *ic, const ImpSite *site, const MlirSharding *src, const TensorType *type)
{
    struct ImpShardingMemo key, *memo = memo_entry(ic, site, src, type, &key);
    if (memo && memo_matches(memo, &key)) {
        Sharding *s = sharding_clone(ic->arena, memo->sharding);
        s->loc = mlir_imp_loc(ic, src->loc);
        return s;
    }
    Sharding *s = build_sharding(ic, site, src, type);
    if (memo && s) {
        *memo = key;
        memo->sharding = sharding_clone(&ic->tables, s);   /* what the importer does to s stays s's */
    }
    return s;
}

AttrValue *mlir_imp_sharding_attr(ImportCtx *ic, const MlirSharding *src)
{
    Sharding *s = mlir_imp_sharding(ic, src);
    if (!s)
        return NULL;
    AttrValue *v = attr_new(ic->arena, ATTR_SHARDING, s->loc);
    v->u.sharding = s;
    return v;
}

/* ---- on values ---- */

static const MlirAttr *named(const MlirList *attrs, const char *name)
{
    for (int i = 0; attrs && i < attrs->count; i++) {
        const MlirNamedAttr *a = attrs->items[i];
        if (strcmp(a->name, name) == 0)
            return a->value;
    }
    return NULL;
}

/* sdy.sharding wins; mhlo.sharding (GSPMD) is read only without it. */
Sharding *mlir_imp_value_sharding(ImportCtx *ic, const ImpSite *site, const MlirList *attrs, const TensorType *type,
                                  bool *bad)
{
    const MlirAttr *sdy = named(attrs, "sdy.sharding"), *gspmd = named(attrs, "mhlo.sharding");
    if (sdy && sdy->kind == MA_SHARDING) {
        Sharding *s = mlir_imp_sharding_at(ic, site, sdy->sharding, type);
        *bad = !s;
        return s;
    }
    if (sdy) {
        mlir_imp_site_error(ic, site, sdy->loc, "should have a sharding attribute of type TensorShardingAttr");
        *bad = true;
        return NULL;
    }
    return gspmd ? mlir_imp_gspmd(ic, gspmd, type->rank, bad) : NULL;
}

static bool set_result_sharding(OpImport *oi, int i, Sharding *s, const MlirAttr *a)
{
    if (!s)
        return false;
    if (oi->op->results[i]->sharding) {
        diag_error(oi->ic->diag, mlir_imp_loc(oi->ic, a->loc), "result %d of '%s' is given two shardings", i,
                   oi->src->name);
        return false;
    }
    oi->op->results[i]->sharding = s;
    return true;
}

bool mlir_imp_sharding_list(ImportCtx *ic, const MlirAttr *a, MlirList *out)
{
    *out = (MlirList){0};
    if (a->kind == MA_SHARDINGS) {
        *out = a->shardings;
        return true;
    }
    for (int i = 0; a->kind == MA_ARRAY && i < a->items.count; i++) {
        const MlirAttr *item = a->items.items[i];
        if (item->kind != MA_SHARDING)
            return false;
        arena_list_push(&ic->scratch, out, item->sharding);
    }
    return a->kind == MA_ARRAY;
}

/* #sdy.sharding_per_value<[...]> (or, on shardc.* ops, one sharding for
 * one result), checked as Shardy's verifyOperationAttribute does. */
static bool sdy_result_shardings(OpImport *oi, const MlirAttr *a, const char *name)
{
    MlirList list;
    bool ok = true;
    ImpSite site = {oi->src->loc, oi->src->name, "result", 0, oi->num_results, oi->num_results == 0};
    ImpSite op_site = {oi->src->loc, oi->src->name, NULL, 0, 0, false};
    if (oi->num_results == 0 && mlir_imp_sharding_list(oi->ic, a, &list) && list.count == 1) {
        /* An op of no results (a side-effecting callback) may carry the
         * sharding of where it runs: nothing propagates it; kept. */
        mlir_imp_keep_attr(oi, name);
        return mlir_imp_verify_sharding(oi->ic, &site, list.items[0], NULL);
    }
    if (a->kind == MA_SHARDING && strcmp(name, "sdy.sharding") == 0) {
        mlir_imp_site_error(oi->ic, &op_site, a->loc, "should have a sharding attribute of type "
                            "TensorShardingPerValueAttr");
        return false;
    }
    if (a->kind == MA_SHARDING && oi->num_results == 1)
        return set_result_sharding(oi, 0, mlir_imp_sharding_at(oi->ic, &site, a->sharding, oi->result_types), a);
    if (!mlir_imp_sharding_list(oi->ic, a, &list)) {
        diag_error(oi->ic->diag, mlir_imp_loc(oi->ic, a->loc), "'%s' must list one sharding per result (%d)", name,
                   oi->num_results);
        return false;
    }
    if (list.count != oi->num_results) {
        mlir_imp_site_error(oi->ic, &op_site, a->loc, "result shardings don't match number of values: %d shardings vs "
                            "%d values", list.count, oi->num_results);
        return false;
    }
    for (int i = 0; i < list.count; i++) {
        site.index = i;
        ok &= set_result_sharding(oi, i, mlir_imp_sharding_at(oi->ic, &site, list.items[i], &oi->result_types[i]), a);
    }
    return ok;
}

static bool gspmd_result_sharding(OpImport *oi, const MlirAttr *a)
{
    if (oi->num_results != 1) {
        diag_error(oi->ic->diag, mlir_imp_loc(oi->ic, a->loc), "'mhlo.sharding' on an op of %d results is not "
                   "supported by shardc", oi->num_results);
        return false;
    }
    bool bad = false;
    Sharding *s = mlir_imp_gspmd(oi->ic, a, oi->result_types[0].rank, &bad);
    if (!s && !bad)
        mlir_imp_keep_attr(oi, "mhlo.sharding");
    return s ? set_result_sharding(oi, 0, s, a) : !bad;
}

bool mlir_imp_result_shardings(OpImport *oi)
{
    const MlirAttr *a = mlir_imp_attr(oi, "sdy.sharding");
    bool ok = true;
    if (a)
        ok &= sdy_result_shardings(oi, a, "sdy.sharding");
    if (strncmp(oi->src->name, "shardc.", 7) == 0) {
        const MlirAttr *s = mlir_imp_attr2(oi, "sharding", "shardings");
        if (s)
            ok &= sdy_result_shardings(oi, s, "shardings");
    }
    const MlirAttr *gspmd = !a ? mlir_imp_attr(oi, "mhlo.sharding") : NULL;
    if (gspmd)
        ok &= gspmd_result_sharding(oi, gspmd);
    return ok;
}
