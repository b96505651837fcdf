/* Shardy's collectives in the global view (sdy.all_gather, all_slice,
 * all_reduce, reduce_scatter, all_to_all, collective_permute), as
 * -sdy-reshard-to-collectives and -sdy-insert-explicit-reshards print
 * them, onto the ops those passes make (reshard_collectives.c,
 * export_unreduced.c): per-dim axes as a sharding-valued `axes`
 * attribute on the out_sharding's mesh (an all_to_all's one "dim" per
 * param, its source and target dims in `dims`), the out_sharding the
 * result's sharding; an all_reduce's axes by name with its `mesh`.
 * -sdy-convert-global-to-local (global_to_local.c) lowers them. */
#include <string.h>
#include "mlir/import_internal.h"
#include "shardc/mlir.h"

static bool op_error(OpImport *oi, const char *msg)
{
    diag_error(oi->ic->diag, mlir_imp_loc(oi->ic, oi->src->loc), "'%s': %s", oi->src->name, msg);
    return false;
}

/* The attribute that holds the op's axes, by op name. */
static const char *axes_key(const char *name)
{
    static const struct { const char *op, *key; } keys[] = {
        {"sdy.all_gather", "gathering_axes"}, {"sdy.all_slice", "slicing_axes"},
        {"sdy.all_reduce", "reduction_axes"}, {"sdy.reduce_scatter", "reduce_scatter_axes"},
        {"sdy.all_to_all", "params"},
    };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strcmp(keys[i].op, name) == 0)
            return keys[i].key;
    return NULL;
}

/* A sharding on out's mesh whose dims are the axis lists of `axes` (an
 * MA_DIM_AXES, one MA_AXES per dim), or of the one list `one`. */
static Sharding *axes_sharding(ImportCtx *ic, const MlirSharding *out, const MlirAttr *axes, const MlirAttr *one)
{
    MlirSharding s = {.mesh_name = out->mesh_name, .inline_mesh = out->inline_mesh, .loc = axes->loc};
    int n = one ? 1 : axes->items.count;
    for (int d = 0; d < n; d++) {
        const MlirAttr *dim = one ? one : axes->items.items[d];
        MlirDimSharding *ds = ARENA_NEW(&ic->scratch, MlirDimSharding);
        *ds = (MlirDimSharding){.axes = dim->items, .priority = -1, .loc = dim->loc};
        arena_list_push(&ic->scratch, &s.dims, ds);
    }
    return mlir_imp_sharding(ic, &s);
}

static AttrValue *sharding_value(ImportCtx *ic, Sharding *s)
{
    AttrValue *v = attr_new(ic->arena, ATTR_SHARDING, s->loc);
    v->u.sharding = s;
    return v;
}

/* an all_to_all's `dims`: each param's source and target dim */
static AttrValue *param_dims(ImportCtx *ic, const MlirAttr *params, Loc loc)
{
    int64_t dims[2 * SHARDC_MAX_RANK];
    int n = params->items.count;
    for (int i = 0; i < n && i < SHARDC_MAX_RANK; i++) {
        const MlirAttr *p = params->items.items[i];
        dims[2 * i] = p->i;
        dims[2 * i + 1] = (int64_t)p->f;
    }
    return mlir_imp_int_list(ic, dims, 2 * (n < SHARDC_MAX_RANK ? n : SHARDC_MAX_RANK), loc);
}

/* Its dims are each the operand's, or (all_to_all) each a param's
 * source and target in range. */
static bool check_dims(OpImport *oi, const MlirAttr *axes, int rank)
{
    if (oi->kind != OP_ALL_TO_ALL)
        return axes->items.count == rank || op_error(oi, "it needs one axis list per dimension of its operand");
    if (axes->items.count < 1 || axes->items.count > SHARDC_MAX_RANK)
        return op_error(oi, "it needs one to rank params");
    for (int i = 0; i < axes->items.count; i++) {
        const MlirAttr *p = axes->items.items[i];
        if (p->kind != MA_AXES || p->i < 0 || p->i >= rank || p->f < 0 || p->f >= rank || p->i == (int64_t)p->f)
            return op_error(oi, "each param needs its axes and a source and target dimension of its operand, "
                                "not the same");
    }
    return true;
}

/* `max` / `min` (sum if absent) */
static bool reduction_kind(OpImport *oi, UnreducedOp *kind)
{
    const MlirAttr *r = mlir_imp_attr(oi, "reduction");
    *kind = UNREDUCED_SUM;
    if (!r)
        return true;
    if (r->kind == MA_KEYWORD && strcmp(r->s, "max") == 0)
        *kind = UNREDUCED_MAX;
    else if (r->kind == MA_KEYWORD && strcmp(r->s, "min") == 0)
        *kind = UNREDUCED_MIN;
    else if (!(r->kind == MA_KEYWORD && strcmp(r->s, "sum") == 0))
        return op_error(oi, "its reduction must be sum, max or min");
    return true;
}

bool mlir_imp_sdy_collective(OpImport *oi)
{
    ImportCtx *ic = oi->ic;
    const MlirAttr *out = mlir_imp_attr(oi, "out_sharding");
    const char *key = axes_key(oi->src->name);
    const MlirAttr *axes = key ? mlir_imp_attr(oi, key) : NULL;
    if (oi->num_operands != 1 || oi->num_results != 1)
        return op_error(oi, "it takes one operand and has one result");
    if (!out || out->kind != MA_SHARDING)
        return op_error(oi, "it needs its out_sharding <@mesh, [...]>");
    bool reduce = oi->kind == OP_ALL_REDUCE;
    if (key && (!axes || (reduce ? axes->kind != MA_AXES : axes->kind != MA_DIM_AXES)))
        return op_error(oi, reduce ? "it needs its reduction axes {\"a\", ...}" : "it needs its axes [{\"a\"}, {}]");
    if (key && !reduce && !check_dims(oi, axes, oi->operands[0]->type.rank))
        return false;
    UnreducedOp kind = UNREDUCED_SUM;
    if ((reduce || oi->kind == OP_REDUCE_SCATTER) && !reduction_kind(oi, &kind))
        return false;
    Sharding *result = mlir_imp_sharding(ic, out->sharding);
    Sharding *per_dim = result && key ? axes_sharding(ic, out->sharding, axes, reduce ? axes : NULL) : result;
    if (!result || !per_dim || !mlir_imp_make_op(oi, oi->kind))
        return false;
    Op *op = oi->op;
    op->results[0]->sharding = result;
    if (reduce) {
        AxisList list = {0};
        for (int i = 0; i < per_dim->dims[0].num_axes && i < AXIS_LIST_MAX; i++)
            list.axes[list.count++] = per_dim->dims[0].axes[i];
        mlir_all_reduce_attrs(ic->m, op, result->mesh, &list, kind);
        return true;
    }
    mlir_imp_set(oi, ATTR_KEY_AXES, sharding_value(ic, per_dim));
    if (oi->kind == OP_ALL_TO_ALL)
        mlir_imp_set(oi, ATTR_KEY_DIMS, param_dims(ic, axes, op->loc));
    if (oi->kind == OP_REDUCE_SCATTER && kind != UNREDUCED_SUM)
        mlir_imp_set(oi, ATTR_KEY_REDUCTION, mlir_imp_string_attr(ic, sharding_unreduced_op_name(kind), op->loc));
    return true;
}
