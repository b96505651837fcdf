/* Shardy's verifier for a sharding on a value (verifyTensorShardingAttr in
 * shardy/dialect/sdy/ir/verifiers.cc), run on the parsed sharding before
 * import_sharding.c builds it: the same conditions, checked in the same
 * order, reported in Shardy's words at the op that holds the sharding,
 * prefixed as MLIR prefixes an op's error ("'func.func' op arg 0 - ").
 * That is what lets sdy_opt's -verify-diagnostics annotations match.
 * Dynamic dims and unranked tensors are checked as Shardy checks them;
 * tuple types never get here (mlir_imp_type reports them). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "mlir/import_internal.h"

/* A mesh's axes by name and size, declared or written inline. */
typedef struct MeshView {
    int num_axes;
    const char **names;
    int64_t *sizes;
    bool maximal;
} MeshView;

typedef struct Checker {
    ImportCtx *ic;
    const ImpSite *site;
    const MlirSharding *src;
    MeshView mesh;
    const MlirAxisRef **seen;   /* every axis ref met so far */
    int num_seen;
} Checker;

/* Shardy reports at the op; where the attribute is on another line a note
 * points at it. */
void mlir_imp_site_error(ImportCtx *ic, const ImpSite *site, Loc loc, const char *fmt, ...)
{
    char msg[512], prefix[160] = "";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (site && site->value && (site->count == 1))
        snprintf(prefix, sizeof prefix, "'%s' op %s - ", site->op, site->value);
    else if (site && site->value)
        snprintf(prefix, sizeof prefix, "'%s' op %s %d - ", site->op, site->value, site->index);
    else if (site)
        snprintf(prefix, sizeof prefix, "'%s' op ", site->op);
    diag_error(ic->diag, site ? mlir_imp_loc(ic, site->loc) : mlir_imp_loc(ic, loc), "%s%s", prefix, msg);
    if (site && site->loc.line != loc.line) /* a function's arguments span lines: say which */
        diag_note(ic->diag, mlir_imp_loc(ic, loc), "the attribute is here");
}

static bool fail(Checker *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(Checker *c, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    mlir_imp_site_error(c->ic, c->site, c->src->loc, "%s", msg);
    return false;
}

/* Shardy's AxisRefAttr::toString: "a" or "a":(2)4. */
static const char *axis_text(char *buf, size_t n, const MlirAxisRef *r)
{
    if (r->sub)
        snprintf(buf, n, "\"%s\":(%lld)%lld", r->name, (long long)r->pre_size, (long long)r->size);
    else
        snprintf(buf, n, "\"%s\"", r->name);
    return buf;
}

static bool view_mesh(Checker *c)
{
    ImportCtx *ic = c->ic;
    MeshView *v = &c->mesh;
    if (c->src->mesh_name) {
        const Mesh *m = mlir_imp_find_mesh(ic, c->src->mesh_name);
        if (!m)
            return fail(c, "unknown mesh: @%s", c->src->mesh_name);
        v->num_axes = m->num_axes;
        v->maximal = m->num_axes == 0 && m->device_ids;
        v->names = ARENA_ARRAY(&ic->scratch, const char *, m->num_axes + 1);
        v->sizes = ARENA_ARRAY(&ic->scratch, int64_t, m->num_axes + 1);
        for (int i = 0; i < m->num_axes; i++)
            v->names[i] = m->axes[i].name, v->sizes[i] = m->axes[i].size;
        return true;
    }
    const MlirMesh *m = c->src->inline_mesh;
    v->num_axes = m ? m->axes.count : 0;
    v->maximal = m && m->axes.count == 0 && m->device_ids.count == 1;
    v->names = ARENA_ARRAY(&ic->scratch, const char *, v->num_axes + 1);
    v->sizes = ARENA_ARRAY(&ic->scratch, int64_t, v->num_axes + 1);
    for (int i = 0; i < v->num_axes; i++) {
        const MlirMeshAxis *a = m->axes.items[i];
        v->names[i] = a->name, v->sizes[i] = a->size;
    }
    return true;
}

/* The axis's index in the mesh, or num_axes when unknown (after all). */
static int axis_index(const MeshView *v, const char *name)
{
    int i = 0;
    while (i < v->num_axes && strcmp(v->names[i], name) != 0)
        i++;
    return i;
}

static int64_t pre_size(const MlirAxisRef *r) { return r->sub ? r->pre_size : 1; }

/* Shardy's AxisRefAttr::getMeshComparator: mesh order, then for one axis
 * the whole axis before sub-axes of pre-size > 1, sub-axes by (pre, size). */
static bool axis_less(const MeshView *v, const MlirAxisRef *a, const MlirAxisRef *b)
{
    if (strcmp(a->name, b->name) != 0) {
        int ia = axis_index(v, a->name), ib = axis_index(v, b->name);
        return ia < ib;
    }
    if (!a->sub)
        return pre_size(b) > 1;
    if (!b->sub)
        return a->pre_size == 1;
    return a->pre_size < b->pre_size || (a->pre_size == b->pre_size && a->size < b->size);
}

static bool same_ref(const MlirAxisRef *a, const MlirAxisRef *b)
{
    return strcmp(a->name, b->name) == 0 && a->sub == b->sub &&
           (!a->sub || (a->pre_size == b->pre_size && a->size == b->size));
}

/* verifyAxisRefList: known names, no ref twice, no two adjacent sub-axes
 * that merge into one. */
static bool check_axis_list(Checker *c, const MlirList *axes)
{
    const MlirAxisRef *prev = NULL;
    char x[160], y[160];
    for (int k = 0; k < axes->count; k++) {
        const MlirAxisRef *r = axes->items[k];
        if (axis_index(&c->mesh, r->name) == c->mesh.num_axes)
            return fail(c, "unknown axis name: \"%s\"", r->name);
        for (int i = 0; i < c->num_seen; i++)
            if (same_ref(c->seen[i], r))
                return fail(c, "duplicate axis ref: %s", axis_text(x, sizeof x, r));
        c->seen[c->num_seen++] = r;
        if (r->sub && prev && prev->sub && strcmp(prev->name, r->name) == 0 &&
            prev->pre_size * prev->size == r->pre_size)
            return fail(c, "two consecutive sub-axes can be merged: %s, %s", axis_text(x, sizeof x, prev),
                        axis_text(y, sizeof y, r));
        prev = r;
    }
    return true;
}

static bool check_sorted_list(Checker *c, const MlirList *axes, const char *what)
{
    for (int k = 1; k < axes->count; k++)
        if (axis_less(&c->mesh, axes->items[k], axes->items[k - 1]))
            return fail(c, "%s axes are not ordered w.r.t. mesh", what);
    return check_axis_list(c, axes);
}

/* verifySubAxes for the sub-axes of axis `axis`, sorted by the mesh order. */
static bool check_sub_axes(Checker *c, int axis)
{
    const char *name = c->mesh.names[axis];
    int64_t full = c->mesh.sizes[axis];
    const MlirAxisRef **subs = ARENA_ARRAY(&c->ic->scratch, const MlirAxisRef *, c->num_seen + 1);
    int n = 0;
    bool whole = false;
    for (int i = 0; i < c->num_seen; i++)
        if (strcmp(c->seen[i]->name, name) == 0) {
            if (!c->seen[i]->sub)
                whole = true;
            else {
                int j = n++;
                for (; j > 0 && axis_less(&c->mesh, c->seen[i], subs[j - 1]); j--)
                    subs[j] = subs[j - 1];
                subs[j] = c->seen[i];
            }
        }
    if (n && whole)
        return fail(c, "both sub-axis and full-axis are used for axis name: \"%s\"", name);
    char x[160], y[160];
    int64_t prev_next = 1;
    for (int k = 0; k < n; k++) {
        const MlirAxisRef *r = subs[k];
        int64_t next;
        axis_text(x, sizeof x, r);
        if (r->pre_size < 1)
            return fail(c, "sub-axis pre-size must be at least 1: %s", x);
        if (r->size <= 1)
            return fail(c, "sub-axis sizes must be greater than 1: %s", x);
        if (__builtin_mul_overflow(r->pre_size, r->size, &next))
            return fail(c, "sub-axis %s is larger than any axis", x);
        if (full % next != 0)
            return fail(c, "sub-axis next pre-size %lld doesn't divide the size of the full axis %lld: %s",
                        (long long)next, (long long)full, x);
        if (r->size == full)
            return fail(c, "sub-axis size is equal to the full axis size: %s", x);
        if (prev_next > r->pre_size)
            return fail(c, "overlapping sub-axes: %s, %s", axis_text(y, sizeof y, subs[k - 1]), x);
        prev_next = next;
    }
    return true;
}

/* An axis the enclosing sdy.manual_computation ops already made manual. */
static bool check_not_manual(Checker *c)
{
    for (int i = 0; i < c->num_seen; i++)
        for (const ImpManual *m = c->ic->manual; m; m = m->outer)
            for (int k = 0; k < m->num_axes; k++)
                if (strcmp(m->mesh->axes[m->axes[k].axis].name, c->seen[i]->name) == 0) {
                    fail(c, "operates on axis \"%s\" which is already bound by a parent sdy.manual_computation op",
                         c->seen[i]->name);
                    diag_note(c->ic->diag, mlir_imp_loc(c->ic, m->loc), "parent bounding this axis as manual");
                    return false;
                }
    return true;
}

static bool check_dims(Checker *c)
{
    for (int d = 0; d < c->src->dims.count; d++) {
        const MlirDimSharding *dim = c->src->dims.items[d];
        if (dim->priority >= 0 && !dim->is_open && dim->axes.count == 0)
            return fail(c, "dim %d is empty and closed but has a priority", d);
        if (!check_axis_list(c, &dim->axes))
            return false;
    }
    return true;
}

static bool no_axes(const MlirSharding *s)
{
    return s->dims.count == 0 && s->replicated.count == 0 && s->unreduced.count == 0;
}

static bool fully_replicated(const MlirSharding *s)
{
    for (int d = 0; d < s->dims.count; d++)
        if (((const MlirDimSharding *)s->dims.items[d])->axes.count)
            return false;
    return true;
}

/* The shape part: maximal meshes and untyped values take no dims, tokens
 * none either; otherwise one dim sharding per dim. shardc also reads
 * `<@mesh, []>` on a value of any rank as replicated (docs/mlir.md). */
static bool check_shape(Checker *c, const TensorType *type)
{
    const MlirSharding *s = c->src;
    if (c->mesh.maximal || (c->site && c->site->no_value && fully_replicated(s))) {
        if (!no_axes(s))
            return fail(c, "a maximal sharding can only have a sharding with rank 0 and no replicated or unreduced "
                        "axes.");
        return true;
    }
    if (type && type->dtype == DT_TOKEN && !no_axes(s))
        return fail(c, "non-shaped tensors can only have a sharding with rank 0 and no replicated or unreduced "
                    "axes. type: !stablehlo.token");
    if (type && type->rank == SHARDC_UNRANKED) {
        char text[64];
        type_mlir_text(text, sizeof text, type);
        return fail(c, "only ranked tensors can have a sharding. type: %s", text);
    }
    if (type && type->dtype != DT_TOKEN && s->dims.count && s->dims.count != type->rank)
        return fail(c, "sharding doesn't match tensor rank: %d != %d", s->dims.count, type->rank);
    return true;
}

bool mlir_imp_verify_sharding(ImportCtx *ic, const ImpSite *site, const MlirSharding *src, const TensorType *type)
{
    Checker c = {ic, site, src, {0}, NULL, 0};
    if (!view_mesh(&c) || !check_shape(&c, type))
        return false;
    if (c.mesh.maximal || (type && type->dtype == DT_TOKEN) || (site && site->no_value && fully_replicated(src)))
        return true;
    c.seen = ARENA_ARRAY(&ic->scratch, const MlirAxisRef *, mlir_imp_count_axis_refs(src) + 1);
    if (!check_dims(&c) || !check_sorted_list(&c, &src->replicated, "replicated") ||
        !check_sorted_list(&c, &src->unreduced, "unreduced"))
        return false;
    for (int a = 0; a < c.mesh.num_axes; a++)
        if (!check_sub_axes(&c, a))
            return false;
    return check_not_manual(&c);
}

/* ---- sdy.manual_computation (verifyManualComputationValue) ---- */

static bool is_manual(const char *name, const char *const *manual, int num_manual)
{
    for (int k = 0; k < num_manual; k++)
        if (strcmp(manual[k], name) == 0)
            return true;
    return false;
}

/* The size of dim's manual axes (sub-axes by their size), with the axis
 * sizes of mesh. */
static int64_t manual_size(const MlirDimSharding *dim, const Mesh *mesh, const char *const *manual, int num_manual)
{
    int64_t size = 1;
    for (int k = 0; k < dim->axes.count; k++) {
        const MlirAxisRef *r = dim->axes.items[k];
        if (!is_manual(r->name, manual, num_manual))
            continue;
        for (int a = 0; !r->sub && a < mesh->num_axes; a++)
            if (strcmp(mesh->axes[a].name, r->name) == 0)
                size *= mesh->axes[a].size;
        if (r->sub)
            size *= r->size;
    }
    return size;
}

/* Manual axes come first in each dim: a manual axis after a free one. */
static bool check_manual_first(ImportCtx *ic, const ImpSite *op, const MlirSharding *s, int index,
                               const char *const *manual, int num_manual)
{
    ImpSite at = *op; /* the message names the values itself */
    at.value = NULL;
    for (int d = 0; d < s->dims.count; d++) {
        const MlirDimSharding *dim = s->dims.items[d];
        for (int k = 1; k < dim->axes.count; k++) {
            const MlirAxisRef *prev = dim->axes.items[k - 1], *r = dim->axes.items[k];
            if (!is_manual(r->name, manual, num_manual) || is_manual(prev->name, manual, num_manual))
                continue;
            char x[160], y[160];
            mlir_imp_site_error(ic, &at, s->loc, "%s sharding at index %d must have all manual axes come before free "
                                "axes in its dimension sharding at index %d. Saw manual axis %s after free axis %s",
                                op->value, index, d, axis_text(x, sizeof x, r),
                                axis_text(y, sizeof y, prev));
            return false;
        }
    }
    return true;
}

/* The local type the sharding gives global, or false (reported) where a
 * dim does not divide by its manual axes. */
static bool local_type(ImportCtx *ic, const ImpSite *op, const MlirSharding *s, const Mesh *mesh,
                       const char *const *manual, int num_manual, const TensorType *global, TensorType *out)
{
    ImpSite at = *op;
    at.value = NULL;
    *out = type_make(&ic->scratch, global->dtype, global->rank, global->dims);
    for (int d = 0; d < s->dims.count && d < global->rank; d++) {
        if (global->dims[d] == TYPE_DYNAMIC_DIM)
            continue; /* stays dynamic, as Shardy's local type keeps it */
        int64_t m = manual_size(s->dims.items[d], mesh, manual, num_manual);
        if (global->dims[d] % m != 0) {
            mlir_imp_site_error(ic, &at, s->loc, "%s dimension size %lld is not divisible by the manual axes size %lld",
                                op->value, (long long)global->dims[d], (long long)m);
            return false;
        }
        out->dims[d] = global->dims[d] / m;
    }
    return true;
}

bool mlir_imp_verify_manual_values(ImportCtx *ic, const ImpSite *op, const MlirList *shardings, const Mesh *mesh,
                                   const char *const *manual, int num_manual, Value *const *global, int num_global,
                                   Value *const *local, int num_local)
{
    const char *v = op->value;
    ImpSite at = *op;
    at.value = NULL;
    if (num_global != num_local) {
        mlir_imp_site_error(ic, &at, op->loc, "number of op %ss and region %ss must match. Op has %d op %ss and %d "
                            "region %ss", v, v, num_global, v, num_local, v);
        return false;
    }
    for (int i = 0; i < num_global && i < shardings->count; i++) {
        const MlirSharding *s = shardings->items[i];
        TensorType want;
        if (!check_manual_first(ic, op, s, i, manual, num_manual))
            return false;
        if (global[i]->type.dtype == DT_TOKEN || global[i]->type.rank == SHARDC_UNRANKED)
            continue; /* unranked: its in/out sharding was refused first */
        if (!local_type(ic, op, s, mesh, manual, num_manual, &global[i]->type, &want))
            return false;
        if (type_equal(&want, &local[i]->type))
            continue;
        char a[256], b[256];
        type_mlir_text(a, sizeof a, &want);
        type_mlir_text(b, sizeof b, &local[i]->type);
        mlir_imp_site_error(ic, &at, op->loc, "%s shape, corresponding sharding, and region %s shape at index %d must "
                            "match. Expected local shape '%s', actual local shape '%s'", v, v, i, a, b);
        return false;
    }
    return true;
}
