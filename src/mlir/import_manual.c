/* sdy.manual_computation -> shard_map, the StableHLO collectives JAX
 * lowers psum, pmax, pmin, all_gather, psum_scatter, all_to_all and
 * ppermute to inside it -> those ops, and stablehlo.custom_call -> custom
 * (with an sdy.sharding_rule) or sharding_constraint (@Sharding).
 *
 * Collectives name devices (replica_groups, source_target_pairs: global
 * device ids, as JAX writes them with use_global_device_ids); shardc's
 * name mesh axes. The axes are the first list of the computation's manual
 * axes (fewest axes first, then in mesh order) whose device groups are
 * the ones written: each group is the devices that differ only along the
 * axes, in the order of their index along them (for all_reduce, whose
 * result does not depend on it, in any order). None: a located error.
 *
 * custom_call: shardc's custom op is `custom @impl(...)`, @impl a function
 * of the module giving the op's meaning on global shapes. The callee is
 * the call target: when the module defines a function of that name it is
 * the implementation; when it does not (a target of the runtime, as in
 * most programs), the op still propagates and partitions by its rule, and
 * the verifier reports "unknown function '@target'" where a stage needs
 * its meaning (verify, run). The sdy rule becomes the JAX rule string
 * shardc reads: factor names as written, compound dims in parentheses,
 * factor sizes only for factors that never make a whole dim. */
#include <stdlib.h>
#include <string.h>
#include "mlir/import_internal.h"
#include "shardc/lapack.h"
#include "shardc/layout.h"

static bool op_error(OpImport *oi, const char *msg)
{
    diag_error(oi->ic->diag, mlir_imp_loc(oi->ic, oi->src->loc), "'%s': %s", oi->src->name, msg);
    return false;
}

/* ---- manual_computation ---- */

/* Whether two of the specs are on different meshes with axes (Shardy's
 * getCommonMesh finds none). */
static bool mixed_meshes(const AttrValue *in, const AttrValue *out)
{
    const Mesh *first = NULL;
    for (int k = 0; k < 2; k++) {
        const AttrValue *specs = k ? out : in;
        for (int i = 0; i < specs->u.array.count; i++) {
            const Mesh *m = specs->u.array.items[i]->u.sharding->mesh;
            if (m->num_axes && first && m != first)
                return true;
            first = m->num_axes && !first ? m : first;
        }
    }
    return false;
}

static const Mesh *specs_mesh(OpImport *oi, const AttrValue *in, const AttrValue *out)
{
    if (in->u.array.count)
        return in->u.array.items[0]->u.sharding->mesh;
    if (out->u.array.count)
        return out->u.array.items[0]->u.sharding->mesh;
    if (oi->ic->meshes.count == 1)
        return oi->ic->meshes.items[0];
    op_error(oi, "with no in or out shardings it needs the module to have one mesh");
    return NULL;
}

/* The axis names of manual_axes: {"x", "y"} (custom form), ["x", "y"], or
 * the quoted names of #sdy<manual_axes{"x", "y"}> (generic form); false if
 * it is none of those (or names a sub-axis). */
static bool manual_names(ImportCtx *ic, const MlirAttr *a, MlirList *names)
{
    *names = (MlirList){0};
    for (int i = 0; (a->kind == MA_AXES || a->kind == MA_ARRAY) && i < a->items.count; i++) {
        const MlirAxisRef *r = a->items.items[i];
        const MlirAttr *v = a->items.items[i];
        if (a->kind == MA_AXES ? r->sub : v->kind != MA_STRING)
            return false;
        arena_list_push(&ic->scratch, names, (void *)(a->kind == MA_AXES ? r->name : v->s));
    }
    for (const char *p = a->kind == MA_DIALECT && a->raw ? strchr(a->raw, '"') : NULL; p; p = strchr(p, '"')) {
        const char *end = strchr(p + 1, '"');
        if (!end)
            return false;
        arena_list_push(&ic->scratch, names, arena_strndup(&ic->scratch, p + 1, (size_t)(end - p - 1)));
        p = end + 1;
    }
    return a->kind == MA_AXES || a->kind == MA_ARRAY || a->kind == MA_DIALECT ||
           (a->kind == MA_DICT && !a->items.count); /* {}: no axes */
}

/* An axis an enclosing sdy.manual_computation already made manual. */
static bool already_manual(OpImport *oi, const char *name)
{
    for (const ImpManual *m = oi->ic->manual; m; m = m->outer)
        for (int k = 0; k < m->num_axes; k++)
            if (strcmp(m->mesh->axes[m->axes[k].axis].name, name) == 0) {
                ImpSite site = {oi->src->loc, oi->src->name, NULL, 0, 0, false};
                mlir_imp_site_error(oi->ic, &site, oi->src->loc, "operates on axis \"%s\" which is already bound by "
                                    "a parent sdy.manual_computation op", name);
                diag_note(oi->ic->diag, mlir_imp_loc(oi->ic, m->loc), "parent bounding this axis as manual");
                return true;
            }
    return false;
}

/* Shardy's messages for manual axes of no common mesh or not in it. */
static bool manual_axes_known(OpImport *oi, const Mesh *mesh, const MlirList *names, bool mixed)
{
    ImpSite site = {oi->src->loc, oi->src->name, NULL, 0, 0, false};
    if (names->count && mixed) {
        mlir_imp_site_error(oi->ic, &site, oi->src->loc, "all in and out shardings must be bound to the same mesh or "
                            "an empty mesh.");
        return false;
    }
    for (int i = 0; i < names->count; i++) {
        int k = 0;
        while (k < mesh->num_axes && strcmp(mesh->axes[k].name, names->items[i]) != 0)
            k++;
        if (k == mesh->num_axes) {
            mlir_imp_site_error(oi->ic, &site, oi->src->loc, "unknown manual axis: \"%s\"",
                                (const char *)names->items[i]);
            return false;
        }
    }
    return true;
}

/* The manual axes, distinct axes of the mesh; their count, or -1. */
static int manual_axes(OpImport *oi, const Mesh *mesh, bool mixed, AxisRef *out)
{
    const MlirAttr *a = mlir_imp_attr(oi, "manual_axes");
    MlirList names = {0};
    Loc loc = mlir_imp_loc(oi->ic, a ? a->loc : oi->src->loc);
    if (a && !manual_names(oi->ic, a, &names))
        return op_error(oi, "manual_axes must be a list of whole mesh axes {\"x\", ...}"), -1;
    for (int i = 0; i < names.count; i++)
        if (already_manual(oi, names.items[i]))
            return -1;
    if (!manual_axes_known(oi, mesh, &names, mixed))
        return -1;
    for (int i = 0; i < names.count; i++) {
        int k = 0;
        while (k < mesh->num_axes && strcmp(mesh->axes[k].name, names.items[i]) != 0)
            k++;
        for (int j = 0; j < i; j++)
            if (out[j].axis == k) {
                diag_error(oi->ic->diag, loc, "axis \"%s\" is listed twice in manual_axes",
                           (const char *)names.items[i]);
                return -1;
            }
        out[i] = (AxisRef){k, 1, mesh->axes[k].size};
    }
    return names.count;
}

/* manual_axes is left out when it is every axis in mesh order: the
 * default, as .shir writes it. */
static void set_manual_axes(OpImport *oi, const Mesh *mesh, const AxisRef *axes, int n)
{
    bool all = n == mesh->num_axes && n > 0; /* {} is manual over none */
    for (int i = 0; all && i < n; i++)
        all = axes[i].axis == i;
    if (all)
        return;
    AttrValue *v = mlir_imp_array(oi->ic, n, oi->op->loc);
    for (int i = 0; i < n; i++)
        v->u.array.items[i] = mlir_imp_string_attr(oi->ic, mesh->axes[axes[i].axis].name, oi->op->loc);
    mlir_imp_set(oi, ATTR_KEY_MANUAL_AXES, v);
}

/* in_shardings (value "operand") or out_shardings ("result"): one
 * sharding per value of types, each checked as Shardy checks it; the
 * parsed list in *list. */
static AttrValue *specs(OpImport *oi, const char *name, const char *value, const TensorType *types, int count,
                        MlirList *list)
{
    const MlirAttr *a = mlir_imp_attr(oi, name);
    if (!a || !mlir_imp_sharding_list(oi->ic, a, list)) {
        op_error(oi, "it needs in_shardings and out_shardings, one sharding per operand and per result");
        return NULL;
    }
    ImpSite site = {oi->src->loc, oi->src->name, value, 0, count, false};
    if (list->count != count) {
        ImpSite op_site = {oi->src->loc, oi->src->name, NULL, 0, 0, false};
        mlir_imp_site_error(oi->ic, &op_site, a->loc, "%s shardings don't match number of values: %d shardings vs %d "
                            "values", value, list->count, count);
        return NULL;
    }
    AttrValue *v = mlir_imp_array(oi->ic, list->count, mlir_imp_loc(oi->ic, a->loc));
    for (int i = 0; i < list->count; i++) {
        site.index = i;
        Sharding *s = mlir_imp_sharding_at(oi->ic, &site, list->items[i], &types[i]);
        if (!s)
            return NULL;
        v->u.array.items[i] = attr_new(oi->ic->arena, ATTR_SHARDING, s->loc);
        v->u.array.items[i]->u.sharding = s;
    }
    return v;
}

static bool manual_body(OpImport *oi, const Mesh *mesh, const AxisRef *axes, int n)
{
    ImportCtx *ic = oi->ic;
    const MlirRegion *region = oi->src->regions.count == 1 ? oi->src->regions.items[0] : NULL;
    if (!region || region->blocks.count != 1)
        return op_error(oi, "it needs a body of one block");
    Block *body = ARENA_NEW(ic->arena, Block);
    body->parent_op = oi->op;
    body->parent_func = ic->func;
    oi->op->region = body;
    ImpManual manual = {mesh, n, axes, ic->manual, oi->src->loc};
    ic->manual = &manual;
    mlir_imp_push_scope(ic, true);
    ic->scope->owner = oi->src->loc;
    bool ok = mlir_imp_block_args(ic, &((const MlirBlock *)region->blocks.items[0])->args, body);
    ok &= mlir_imp_body(ic, region, body, "sdy.return", oi->src->loc);
    mlir_imp_pop_scope(ic);
    ic->manual = manual.outer;
    return ok;
}

/* Shardy's specs hold manual and free axes, open dims and priorities;
 * a shard_map's only its closed manual part. When the computation has
 * free axes, the free part of an in_sharding becomes its body argument's
 * sharding and an out_sharding its result's (docs/mlir.md), unless the
 * free part is closed and empty, what a body value without a sharding
 * means; the printer joins them back. */
static void split_specs(OpImport *oi, AttrValue *specs, Value **values, int count, bool whole)
{
    uint64_t manual = op_manual_axes_mask(oi->op, NULL);
    for (int i = 0; i < specs->u.array.count && i < count; i++) {
        Sharding *s = specs->u.array.items[i]->u.sharding, *manual_part, *free_part;
        sharding_split_manual(oi->ic->arena, s, manual, &manual_part, &free_part);
        specs->u.array.items[i]->u.sharding = manual_part;
        if (op_is_partial_manual(oi->op) && !sharding_is_closed_empty(free_part))
            values[i]->sharding = whole ? s : free_part;
    }
}

/* check_vma is false unless `shardc.check_vma` says otherwise: MLIR
 * carries no promise about replication (JAX checked it before lowering,
 * or was told not to), and sdy_opt does not check it. */
/* The body's arguments and returns against the operands and results
 * (verifyManualComputationValue), once the body is read. */
static bool manual_values(OpImport *oi, const MlirList *in, const MlirList *out, const Mesh *mesh,
                          const AxisRef *axes, int n)
{
    const char **names = ARENA_ARRAY(&oi->ic->scratch, const char *, n + 1);
    for (int i = 0; i < n; i++)
        names[i] = mesh->axes[axes[i].axis].name;
    const Block *body = oi->op->region;
    ImpSite operand = {oi->src->loc, oi->src->name, "operand", 0, 0, false}, result = operand;
    result.value = "result";
    return mlir_imp_verify_manual_values(oi->ic, &operand, in, mesh, names, n, oi->operands, oi->num_operands,
                                         body->args, body->num_args) &&
           mlir_imp_verify_manual_values(oi->ic, &result, out, mesh, names, n, oi->op->results, oi->num_results,
                                         body->returns, body->num_returns);
}

static TensorType *operand_types(OpImport *oi)
{
    TensorType *types = ARENA_ARRAY(&oi->ic->scratch, TensorType, oi->num_operands + 1);
    for (int i = 0; i < oi->num_operands; i++)
        types[i] = oi->operands[i]->type;
    return types;
}

bool mlir_imp_manual_computation(OpImport *oi)
{
    ImportCtx *ic = oi->ic;
    MlirList in_list, out_list;
    AttrValue *in = specs(oi, "in_shardings", "operand", operand_types(oi), oi->num_operands, &in_list);
    AttrValue *out = in ? specs(oi, "out_shardings", "result", oi->result_types, oi->num_results, &out_list) : NULL;
    const Mesh *mesh = out ? specs_mesh(oi, in, out) : NULL;
    if (!mesh)
        return false;
    AxisRef *axes = ARENA_ARRAY(&ic->scratch, AxisRef, mesh->num_axes + 1);
    int n = manual_axes(oi, mesh, mixed_meshes(in, out), axes);
    if (n < 0 || !mlir_imp_make_op(oi, OP_SHARD_MAP))
        return false;
    AttrValue *sym = attr_new(ic->arena, ATTR_SYMBOL, oi->op->loc);
    sym->u.s = mesh->name;
    AttrValue *check = attr_new(ic->arena, ATTR_BOOL, oi->op->loc);
    mlir_imp_set(oi, ATTR_KEY_MESH, sym);
    mlir_imp_set(oi, ATTR_KEY_IN_SPECS, in);
    mlir_imp_set(oi, ATTR_KEY_OUT_SPECS, out);
    set_manual_axes(oi, mesh, axes, n);
    mlir_imp_set(oi, ATTR_KEY_CHECK_VMA, check);
    if (!manual_body(oi, mesh, axes, n) || !manual_values(oi, &in_list, &out_list, mesh, axes, n))
        return false;
    split_specs(oi, in, oi->op->region->args, oi->op->region->num_args, false);
    split_specs(oi, out, oi->op->results, oi->op->num_results, true);
    return true;
}

/* ---- collectives: device groups to mesh axes ---- */

enum { MAX_COLLECTIVE_AXES = 8 };

typedef struct Groups {
    const Mesh *mesh;
    const ImpManual *scope; /* the axes the groups may be over */
    const int64_t *ids;     /* rows x cols device ids (pairs: cols 2) */
    int rows, cols;
    bool ordered;           /* a group's order matters */
    AxisRef axes[MAX_COLLECTIVE_AXES];
    int num_axes;
    int64_t *perm;          /* ppermute: the pairs of one group, by index */
    int perm_pairs;
} Groups;

static int cmp_int64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Whether row r is the group of its first device over g->axes. */
static bool row_matches(const Groups *g, int r, int64_t *scratch)
{
    const int64_t *row = g->ids + (int64_t)r * g->cols;
    int64_t p0 = mesh_position_of(g->mesh, row[0]);
    for (int j = 0; j < g->cols; j++) {
        if (row[j] < 0 || row[j] >= g->mesh->num_devices)
            return false;
        scratch[j] = mesh_device_id(g->mesh, mesh_group_member(g->mesh, p0, g->axes, g->num_axes, j));
        scratch[g->cols + j] = row[j];
    }
    if (!g->ordered) {
        qsort(scratch, (size_t)g->cols, sizeof(int64_t), cmp_int64);
        qsort(scratch + g->cols, (size_t)g->cols, sizeof(int64_t), cmp_int64);
    }
    return memcmp(scratch, scratch + g->cols, sizeof(int64_t) * (size_t)g->cols) == 0;
}

static bool groups_match(Groups *g, int64_t *scratch)
{
    if (axis_refs_size(g->axes, g->num_axes) != g->cols || (int64_t)g->rows * g->cols != g->mesh->num_devices)
        return false;
    for (int r = 0; r < g->rows; r++)
        if (!row_matches(g, r, scratch))
            return false;
    return true;
}

/* Source-target pairs: each pair inside one group, every group with the
 * same pairs by index. */
static bool pairs_match(Groups *g, int64_t *unused)
{
    (void)unused;
    int64_t n = axis_refs_size(g->axes, g->num_axes), key0 = -1;
    g->perm_pairs = 0;
    for (int r = 0; r < g->rows; r++) {
        int64_t s = g->ids[2 * r], d = g->ids[2 * r + 1];
        if (s < 0 || d < 0 || s >= g->mesh->num_devices || d >= g->mesh->num_devices)
            return false;
        int64_t ps = mesh_position_of(g->mesh, s), pd = mesh_position_of(g->mesh, d);
        int64_t key = mesh_group_member(g->mesh, ps, g->axes, g->num_axes, 0);
        if (key != mesh_group_member(g->mesh, pd, g->axes, g->num_axes, 0))
            return false;
        int64_t is = mesh_group_index(g->mesh, ps, g->axes, g->num_axes);
        int64_t id = mesh_group_index(g->mesh, pd, g->axes, g->num_axes);
        if (key0 < 0)
            key0 = key;
        if (key == key0) {
            g->perm[2 * g->perm_pairs] = is;
            g->perm[2 * g->perm_pairs++ + 1] = id;
        }
        bool found = false;
        for (int k = 0; k < g->perm_pairs && !found; k++)
            found = g->perm[2 * k] == is && g->perm[2 * k + 1] == id;
        if (!found)
            return false;
    }
    return (int64_t)g->rows == g->mesh->num_devices / n * g->perm_pairs;
}

/* Tries every ordered list of k of the manual axes (depth: next slot). */
static bool try_lists(Groups *g, const ImpManual *mc, int k, int slot, bool (*match)(Groups *, int64_t *),
                      int64_t *scratch)
{
    if (slot == k) {
        g->num_axes = k;
        return match(g, scratch);
    }
    for (int i = 0; i < mc->num_axes; i++) {
        bool used = false;
        for (int j = 0; j < slot; j++)
            used |= g->axes[j].axis == mc->axes[i].axis;
        if (used)
            continue;
        g->axes[slot] = mc->axes[i];
        if (try_lists(g, mc, k, slot + 1, match, scratch))
            return true;
    }
    return false;
}

static bool find_axes(Groups *g, const ImpManual *mc, bool (*match)(Groups *, int64_t *), Arena *scratch)
{
    int64_t *buf = ARENA_ARRAY(scratch, int64_t, 2 * (int64_t)g->cols + 2);
    for (int k = 1; k <= mc->num_axes && k <= MAX_COLLECTIVE_AXES; k++)
        if (try_lists(g, mc, k, 0, match, buf))
            return true;
    return false;
}

static AttrValue *axes_attr(ImportCtx *ic, const Groups *g, Loc loc)
{
    AttrValue *v = mlir_imp_array(ic, g->num_axes, loc);
    for (int i = 0; i < g->num_axes; i++)
        v->u.array.items[i] = mlir_imp_string_attr(ic, g->mesh->axes[g->axes[i].axis].name, loc);
    return v;
}

/* replica_groups (or source_target_pairs) to the collective's `axes`.
 * Groups that match no axes are an error unless `*unmatched` is given:
 * then it is set and nothing is reported. */
static bool collective_axes(OpImport *oi, Groups *g, const char *attr, bool *unmatched)
{
    ImportCtx *ic = oi->ic;
    const MlirAttr *a = mlir_imp_attr(oi, attr);
    int64_t *ids;
    if (!a && strcmp(attr, "replica_groups") != 0)
        return op_error(oi, "it needs source_target_pairs");
    bool pairs = strcmp(attr, "source_target_pairs") == 0;
    if (a && !mlir_imp_dense_matrix(ic, a, attr, &ids, &g->rows, &g->cols))
        return false;
    if (!pairs && (!a || g->rows * g->cols == 0)) { /* no groups: one group of every device */
        ids = ARENA_ARRAY(&ic->scratch, int64_t, g->mesh->num_devices);
        for (int64_t i = 0; i < g->mesh->num_devices; i++)
            ids[i] = mesh_device_id(g->mesh, i);
        g->rows = 1;
        g->cols = (int)g->mesh->num_devices;
    }
    g->ids = ids;
    g->perm = ARENA_ARRAY(&ic->scratch, int64_t, 2 * (int64_t)g->rows + 2);
    if (pairs && g->cols != 2)
        return op_error(oi, "source_target_pairs must be pairs of device ids");
    if (find_axes(g, g->scope, pairs ? pairs_match : groups_match, &ic->scratch))
        return true;
    if (unmatched)
        return *unmatched = true, false;
    diag_error(ic->diag, mlir_imp_loc(ic, a ? a->loc : oi->src->loc), "'%s': its %s match the device groups of no "
               "%s", oi->src->name, attr, ic->manual ? "manual axes of the enclosing sdy.manual_computation"
                                                     : "axes of the module's mesh");
    return false;
}

static AttrValue *bool_attr(ImportCtx *ic, bool b, Loc loc)
{
    AttrValue *v = attr_new(ic->arena, ATTR_BOOL, loc);
    v->u.b = b;
    return v;
}

static AttrValue *perm_attr(ImportCtx *ic, const Groups *g, Loc loc)
{
    AttrValue *v = mlir_imp_array(ic, g->perm_pairs, loc);
    for (int k = 0; k < g->perm_pairs; k++)
        v->u.array.items[k] = mlir_imp_int_list(ic, &g->perm[2 * k], 2, loc);
    return v;
}

/* The op kind and attributes of each collective, past its axes. */
static bool collective_kind(OpImport *oi, OpKind *kind)
{
    const char *name = oi->src->name;
    if (strcmp(name, "stablehlo.all_reduce") == 0 || strcmp(name, "stablehlo.reduce_scatter") == 0) {
        const char *body = mlir_imp_reducer(oi->ic, oi->src, 0);
        bool scatter = name[10] == 'r';
        if (!body)
            return false;
        *kind = scatter ? OP_PSUM_SCATTER : OP_PSUM;
        if (!scatter && strcmp(body, "stablehlo.maximum") == 0)
            *kind = OP_PMAX;
        else if (!scatter && strcmp(body, "stablehlo.minimum") == 0)
            *kind = OP_PMIN;
        else if (strcmp(body, "stablehlo.add") != 0) {
            diag_error(oi->ic->diag, mlir_imp_loc(oi->ic, oi->src->loc), "'%s' applying '%s' is not supported by "
                       "shardc", name, body);
            return false;
        }
        return true;
    }
    *kind = oi->kind;
    return true;
}

static bool collective_attrs(OpImport *oi, const Groups *g)
{
    Loc loc = oi->op->loc;
    switch (oi->op->kind) {
    case OP_PSUM_SCATTER:
        mlir_imp_set(oi, ATTR_KEY_TILED, bool_attr(oi->ic, true, loc));
        return mlir_imp_int_attr_from(oi, ATTR_KEY_SCATTER_DIMENSION, "scatter_dimension", "scatter_dimension");
    case OP_ALL_GATHER:
        mlir_imp_set(oi, ATTR_KEY_TILED, bool_attr(oi->ic, true, loc));
        return mlir_imp_int_attr_from(oi, ATTR_KEY_AXIS, "all_gather_dim", "all_gather_dim");
    case OP_ALL_TO_ALL: {
        const MlirAttr *count = mlir_imp_attr(oi, "split_count");
        if (count && (count->kind != MA_INT || count->i != g->cols))
            return op_error(oi, "its split_count is not the size of its groups");
        mlir_imp_set(oi, ATTR_KEY_TILED, bool_attr(oi->ic, true, loc));
        return mlir_imp_int_attr_from(oi, ATTR_KEY_SPLIT_AXIS, "split_dimension", "split_dimension") &&
               mlir_imp_int_attr_from(oi, ATTR_KEY_CONCAT_AXIS, "concat_dimension", "concat_dimension");
    }
    case OP_PPERMUTE: mlir_imp_set(oi, ATTR_KEY_PERM, perm_attr(oi->ic, g, loc)); return true;
    default: return true;
    }
}

/* Outside an sdy.manual_computation (the body of a custom op's partition
 * function, as the printer writes it), a collective is over axes of the
 * module's only mesh, as in .shir; NULL (and an error) if there is not one. */
static const ImpManual *global_scope(OpImport *oi)
{
    ImportCtx *ic = oi->ic;
    if (ic->meshes.count != 1) {
        op_error(oi, "a collective outside an sdy.manual_computation needs the module to have exactly one mesh");
        return NULL;
    }
    const Mesh *mesh = ic->meshes.items[0];
    AxisRef *axes = ARENA_ARRAY(&ic->scratch, AxisRef, mesh->num_axes > 0 ? mesh->num_axes : 1);
    for (int i = 0; i < mesh->num_axes; i++)
        axes[i] = (AxisRef){i, 1, mesh->axes[i].size};
    ImpManual *scope = ARENA_NEW(&ic->scratch, ImpManual);
    *scope = (ImpManual){mesh, mesh->num_axes, axes, NULL, oi->src->loc};
    return scope;
}

/* The reducer of an all_reduce or reduce_scatter over replica groups as
 * its `reduction` (sum, the default, max or min); false after an error. */
static bool group_reduction(OpImport *oi)
{
    const char *body = mlir_imp_reducer(oi->ic, oi->src, 0);
    if (!body)
        return false;
    if (strcmp(body, "stablehlo.add") == 0)
        return true;
    if (strcmp(body, "stablehlo.maximum") != 0 && strcmp(body, "stablehlo.minimum") != 0) {
        diag_error(oi->ic->diag, mlir_imp_loc(oi->ic, oi->src->loc), "'%s' applying '%s' is not supported by "
                   "shardc", oi->src->name, body);
        return false;
    }
    mlir_imp_set(oi, ATTR_KEY_REDUCTION, mlir_imp_string_attr(oi->ic, strcmp(body, "stablehlo.maximum") == 0 ? "max" : "min", oi->op->loc));
    return true;
}

static OpKind group_kind(const char *name)
{
    if (strcmp(name, "stablehlo.all_to_all") == 0)
        return OP_GROUP_ALL_TO_ALL;
    if (strcmp(name, "stablehlo.reduce_scatter") == 0)
        return OP_GROUP_REDUCE_SCATTER;
    if (strcmp(name, "stablehlo.all_reduce") == 0)
        return OP_GROUP_ALL_REDUCE;
    if (strcmp(name, "stablehlo.collective_broadcast") == 0)
        return OP_GROUP_COLLECTIVE_BROADCAST;
    return OP_GROUP_ALL_GATHER;
}

/* A collective outside any manual computation whose replica groups are
 * device ids no axes of the module's mesh name (or of a module without a
 * mesh, or with several operands, or a collective_broadcast, which has no
 * axis form): group_all_gather, ... (N operands, the group size the
 * groups' row length; the groups, channel handle and use_global_device_ids
 * kept as written). Shardy's registry gives them their rules; shardc
 * cannot partition or run them. */
static bool group_collective(OpImport *oi)
{
    const MlirAttr *groups = mlir_imp_attr(oi, "replica_groups");
    int64_t *ids;
    int rows = 0, cols = 0;
    if (!groups)
        return op_error(oi, "it needs its replica_groups");
    if (!mlir_imp_dense_matrix(oi->ic, groups, "replica_groups", &ids, &rows, &cols))
        return false;
    mlir_imp_keep_attr(oi, "replica_groups");
    OpKind kind = group_kind(oi->src->name);
    const MlirAttr *count = kind == OP_GROUP_ALL_TO_ALL ? mlir_imp_attr(oi, "split_count") : NULL;
    if (count && (count->kind != MA_INT || count->i != cols))
        return op_error(oi, "its split_count is not the size of its groups");
    if (!mlir_imp_make_op(oi, kind))
        return false;
    if (kind == OP_GROUP_ALL_REDUCE)
        return group_reduction(oi);
    if (kind == OP_GROUP_COLLECTIVE_BROADCAST)
        return true;
    mlir_imp_set(oi, ATTR_KEY_GROUP_SIZE, mlir_imp_int_attr(oi->ic, cols, oi->op->loc));
    if (kind == OP_GROUP_REDUCE_SCATTER && !group_reduction(oi))
        return false;
    if (kind == OP_GROUP_ALL_TO_ALL)
        return mlir_imp_int_attr_from(oi, ATTR_KEY_SPLIT_AXIS, "split_dimension", "split_dimension") &&
               mlir_imp_int_attr_from(oi, ATTR_KEY_CONCAT_AXIS, "concat_dimension", "concat_dimension");
    bool scatter = kind == OP_GROUP_REDUCE_SCATTER;
    return mlir_imp_int_attr_from(oi, ATTR_KEY_DIM, scatter ? "scatter_dimension" : "all_gather_dim", NULL);
}

/* Outside any manual computation, the collectives that read as group
 * collectives whatever their groups: in a module without a mesh, with
 * several operands, collective_broadcast (a collective_permute keeps its
 * axes, or its error). */
static bool group_form_first(const ImportCtx *ic, const OpImport *oi)
{
    const char *name = oi->src->name;
    if (ic->manual || strcmp(name, "stablehlo.collective_permute") == 0)
        return false;
    return ic->meshes.count == 0 || oi->num_operands != 1 || oi->num_results != 1 ||
           strcmp(name, "stablehlo.collective_broadcast") == 0;
}

bool mlir_imp_collective(OpImport *oi)
{
    ImportCtx *ic = oi->ic;
    if (group_form_first(ic, oi))
        return group_collective(oi);
    OpKind kind;
    const ImpManual *scope = ic->manual ? ic->manual : global_scope(oi);
    if (!scope)
        return false;
    if (oi->num_operands != 1 || oi->num_results != 1)
        return op_error(oi, "shardc supports it with one operand and one result");
    Groups *g = ARENA_NEW(&ic->scratch, Groups);
    g->mesh = scope->mesh;
    g->scope = scope;
    g->ordered = strcmp(oi->src->name, "stablehlo.all_reduce") != 0;
    bool pairs = oi->kind == OP_PPERMUTE, unmatched = false;
    if (!collective_axes(oi, g, pairs ? "source_target_pairs" : "replica_groups",
                         ic->manual || pairs ? NULL : &unmatched))
        return unmatched && group_collective(oi);
    /* a channel handle is kept and printed back as written (as MLIR
     * does); the printer writes its own global device ids */
    mlir_imp_keep_attr(oi, "channel_handle");
    mlir_imp_attr(oi, "use_global_device_ids");
    if (!collective_kind(oi, &kind) || !mlir_imp_make_op(oi, kind))
        return false;
    mlir_imp_set(oi, ATTR_KEY_AXES, axes_attr(ic, g, oi->op->loc));
    return collective_attrs(oi, g);
}

/* ---- custom_call ---- */

typedef struct RuleText {
    const MlirRule *rule;
    const char **first;     /* factor names in order of first appearance */
    int num_first;
} RuleText;

static bool whole_dim(const MlirRule *r, const char *name)
{
    for (int side = 0; side < 2; side++) {
        const MlirList *tensors = side ? &r->results : &r->operands;
        for (int t = 0; t < tensors->count; t++) {
            const MlirList *dims = tensors->items[t];
            for (int d = 0; d < dims->count; d++) {
                const MlirList *factors = dims->items[d];
                if (factors->count == 1 && strcmp(factors->items[0], name) == 0)
                    return true;
            }
        }
    }
    return false;
}

static void add_first(RuleText *rt, const char *name)
{
    for (int i = 0; i < rt->num_first; i++)
        if (strcmp(rt->first[i], name) == 0)
            return;
    rt->first[rt->num_first++] = name;
}

/* How many factor names the rule's dims hold. */
static int count_factors(const MlirRule *r)
{
    int n = 0;
    for (int side = 0; side < 2; side++) {
        const MlirList *tensors = side ? &r->results : &r->operands;
        for (int t = 0; t < tensors->count; t++) {
            const MlirList *dims = tensors->items[t];
            for (int d = 0; d < dims->count; d++)
                n += ((const MlirList *)dims->items[d])->count;
        }
    }
    return n;
}

/* One side: tensors by ",", dims by " ", compound dims as "(i j)"; a
 * scalar is nothing: "i j, -> i k". */
static void write_side(FILE *f, RuleText *rt, const MlirList *tensors)
{
    for (int t = 0; t < tensors->count; t++) {
        const MlirList *dims = tensors->items[t];
        fputs(t ? "," : "", f);
        for (int d = 0; d < dims->count; d++) {
            const MlirList *factors = dims->items[d];
            fputs(d || t ? " " : "", f);
            fputs(factors->count > 1 ? "(" : "", f);
            for (int k = 0; k < factors->count; k++) {
                fprintf(f, "%s%s", k ? " " : "", (const char *)factors->items[k]);
                add_first(rt, factors->items[k]);
            }
            fputs(factors->count > 1 ? ")" : "", f);
        }
    }
}

static const char *rule_string(ImportCtx *ic, RuleText *rt)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    write_side(f, rt, &rt->rule->operands);
    fputs(" -> ", f);
    write_side(f, rt, &rt->rule->results);
    fclose(f);
    const char *s = mlir_imp_str(ic, buf);
    free(buf);
    return s;
}

/* A special factor list (reduction, ...) in factor order, as the rule
 * string's options want; NULL when empty. */
static AttrValue *factor_list(ImportCtx *ic, const RuleText *rt, const MlirList *names, Loc loc)
{
    if (!names->count)
        return NULL;
    AttrValue *v = mlir_imp_array(ic, names->count, loc);
    v->u.array.count = 0;
    for (int i = 0; i < rt->num_first; i++)
        for (int k = 0; k < names->count; k++)
            if (strcmp(names->items[k], rt->first[i]) == 0)
                v->u.array.items[v->u.array.count++] = mlir_imp_string_attr(ic, rt->first[i], loc);
    return v;
}

static AttrValue *factor_sizes(OpImport *oi, const MlirRule *r, Loc loc)
{
    AttrValue *v = attr_new(oi->ic->arena, ATTR_DICT, loc);
    v->u.dict.items = ARENA_ARRAY(oi->ic->arena, NamedAttr, r->factor_names.count);
    for (int i = 0; i < r->factor_names.count && i < r->factor_sizes.count; i++) {
        const char *name = r->factor_names.items[i];
        if (!whole_dim(r, name))
            v->u.dict.items[v->u.dict.count++] =
                (NamedAttr){mlir_imp_str(oi->ic, name), loc,
                            mlir_imp_int_attr(oi->ic, *(int64_t *)r->factor_sizes.items[i], loc), ATTR_KEY_NONE};
    }
    return v->u.dict.count ? v : NULL;
}

static bool check_rule(OpImport *oi, const RuleText *rt, Loc loc)
{
    const MlirRule *r = rt->rule;
    if (!r->operands.count || !r->results.count) {
        diag_error(oi->ic->diag, loc, "a rule with no operands or no results has no shardc rule string");
        return false;
    }
    return true; /* factors and mappings: mlir_imp_verify_rule, run before */
}

static bool custom_op(OpImport *oi, const char *target, Loc target_loc, const MlirAttr *rule_attr)
{
    ImportCtx *ic = oi->ic;
    Loc loc = mlir_imp_loc(ic, rule_attr->loc);
    const MlirRule *r = rule_attr->rule;
    RuleText rt = {r, ARENA_ARRAY(&ic->scratch, const char *, count_factors(r) + 1), 0};
    const char *text = rule_string(ic, &rt);
    if (!text || !check_rule(oi, &rt, loc) || !mlir_imp_make_op(oi, OP_CUSTOM))
        return false;
    oi->op->callee = mlir_imp_str(ic, target);
    op_set_callee_loc(oi->ic->arena, oi->op, target_loc);
    mlir_imp_set(oi, ATTR_KEY_RULE, mlir_imp_string_attr(ic, text, loc));
    oi->rule_not_custom = !r->is_custom;
    AttrValue *lists[4] = {factor_list(ic, &rt, &r->reduction, loc), factor_list(ic, &rt, &r->need_replication, loc),
                           factor_list(ic, &rt, &r->permutation, loc), factor_list(ic, &rt, &r->blocked, loc)};
    AttrKey keys[4] = {ATTR_KEY_REDUCTION, ATTR_KEY_NEED_REPLICATION, ATTR_KEY_PERMUTATION,
                       ATTR_KEY_BLOCKED_PROPAGATION};
    for (int i = 0; i < 4; i++)
        if (lists[i])
            mlir_imp_set(oi, keys[i], lists[i]);
    AttrValue *sizes = factor_sizes(oi, r, loc);
    if (sizes)
        mlir_imp_set(oi, ATTR_KEY_FACTOR_SIZES, sizes);
    return true;
}

/* stablehlo.send and recv (host transfers): custom ops without a rule,
 * so nothing propagates through them (Shardy has no rule for them
 * either), named after the op as their target, which `shardc run` does
 * not know; printed back in the generic form, attributes as written. */
bool mlir_imp_host_transfer(OpImport *oi)
{
    if (!mlir_imp_make_op(oi, OP_CUSTOM))
        return false;
    oi->op_name = mlir_imp_str(oi->ic, oi->src->name);
    oi->op->callee = oi->op_name;
    op_set_callee_loc(oi->ic->arena, oi->op, oi->op->loc);
    mlir_imp_keep_attr(oi, "channel_handle");
    mlir_imp_keep_attr(oi, "is_host_transfer");
    return true;
}

bool mlir_imp_custom_call(OpImport *oi)
{
    const MlirAttr *target = mlir_imp_attr(oi, "call_target_name");
    if (!target || (target->kind != MA_STRING && target->kind != MA_SYMBOL))
        return op_error(oi, "it needs its call target");
    Loc target_loc = mlir_imp_loc(oi->ic, target->loc);
    if (strcmp(target->s, "Sharding") == 0) { /* GSPMD's sharding constraint */
        oi->op_name = "stablehlo.custom_call";
        return mlir_imp_make_op(oi, OP_SHARDING_CONSTRAINT);
    }
    LapackTarget known;
    if (lapack_target_parse(target->s, &known)) /* JAX's CPU linear algebra */
        return mlir_imp_lapack(oi, mlir_imp_str(oi->ic, target->s), target_loc);
    const MlirAttr *rule = mlir_imp_attr(oi, "sdy.sharding_rule");
    if (rule && rule->kind == MA_RULE)
        return custom_op(oi, target->s, target_loc, rule);
    /* No rule: nothing propagates through it (Shardy's ops without one);
     * the partitioner runs it on whole values. */
    if (!mlir_imp_make_op(oi, OP_CUSTOM))
        return false;
    oi->op->callee = mlir_imp_str(oi->ic, target->s);
    op_set_callee_loc(oi->ic->arena, oi->op, target_loc);
    return true;
}
