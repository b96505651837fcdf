/* stablehlo.while, stablehlo.case, stablehlo.if and
 * stablehlo.optimization_barrier onto while, case and
 * optimization_barrier. Their regions see the values around them (not
 * isolated from above) and end in stablehlo.return. stablehlo.if is a case
 * on its i1 predicate with the false branch first (index 0),
 * so that it prints back as an if. */
#include "mlir/import_internal.h"

static bool op_error(OpImport *oi, const char *what)
{
    diag_error(oi->ic->diag, mlir_imp_loc(oi->ic, oi->src->loc), "'%s': %s", oi->src->name, what);
    return false;
}

/* Region k of the MLIR op as a block of the op (arguments as written). */
static Block *import_region(OpImport *oi, int k, bool *ok)
{
    ImportCtx *ic = oi->ic;
    const MlirRegion *region = oi->src->regions.items[k];
    Block *b = ARENA_NEW(ic->arena, Block);
    b->parent_op = oi->op;
    b->parent_func = ic->func;
    mlir_imp_push_scope(ic, false);
    if (region->blocks.count == 1)
        *ok &= mlir_imp_block_args(ic, &((const MlirBlock *)region->blocks.items[0])->args, b);
    *ok &= mlir_imp_body(ic, region, b, "stablehlo.return", oi->src->loc);
    mlir_imp_pop_scope(ic);
    return b;
}

bool mlir_imp_regions(OpImport *oi, bool reversed)
{
    int n = oi->src->regions.count;
    Op *op = oi->op;
    op->num_regions = n;
    op->regions = ARENA_ARRAY(oi->ic->arena, Block *, n + 1);
    bool ok = true;
    for (int k = 0; k < n; k++)
        op->regions[reversed ? n - 1 - k : k] = import_region(oi, k, &ok);
    return ok;
}

bool mlir_imp_while(OpImport *oi)
{
    if (oi->src->regions.count != 2)
        return op_error(oi, "it needs a cond region and a body region");
    return mlir_imp_make_op(oi, OP_WHILE) && mlir_imp_regions(oi, false);
}

/* stablehlo.reduce with a body shardc keeps (several inputs, or a body or
 * init its own reductions do not cover): `reduce` with the body as its
 * region, arguments as the block takes them (all first arguments, then
 * all second ones). */
bool mlir_imp_reduce_region(OpImport *oi)
{
    if (oi->src->regions.count != 1)
        return op_error(oi, "it needs its body region");
    return mlir_imp_make_op(oi, OP_REDUCE) && mlir_imp_regions(oi, false) &&
           mlir_imp_ints_attr(oi, ATTR_KEY_DIMS, "dimensions", "dimensions", true);
}

/* stablehlo.sort: `sort` with its comparator as region (arguments lhs_0,
 * rhs_0, lhs_1, ... as written); dimension is its dim, is_stable kept. */
bool mlir_imp_sort(OpImport *oi)
{
    if (oi->src->regions.count != 1)
        return op_error(oi, "it needs its comparator region");
    if (!mlir_imp_make_op(oi, OP_SORT) || !mlir_imp_regions(oi, false) ||
        !mlir_imp_int_attr_from(oi, ATTR_KEY_DIM, "dimension", NULL))
        return false;
    const MlirAttr *a = mlir_imp_attr(oi, "is_stable");
    if (a && a->kind != MA_BOOL)
        return op_error(oi, "'is_stable' must be true or false");
    if (a) {
        AttrValue *v = attr_new(oi->ic->arena, ATTR_BOOL, mlir_imp_loc(oi->ic, a->loc));
        v->u.b = a->b;
        mlir_imp_set(oi, ATTR_KEY_IS_STABLE, v);
    }
    return true;
}

bool mlir_imp_case(OpImport *oi)
{
    if (oi->src->regions.count < 1)
        return op_error(oi, "it needs at least one branch region");
    return mlir_imp_make_op(oi, OP_CASE) && mlir_imp_regions(oi, false);
}

bool mlir_imp_if(OpImport *oi)
{
    if (oi->src->regions.count != 2)
        return op_error(oi, "it needs a true branch and a false branch");
    return mlir_imp_make_op(oi, OP_CASE) && mlir_imp_regions(oi, true);
}

/* in_shardings / out_shardings: one sharding per body argument / result,
 * onto those values (what propagation reads and the printer writes back). */
static bool named_shardings(OpImport *oi, const char *name, Value **values, int count)
{
    const MlirAttr *a = mlir_imp_attr(oi, name);
    MlirList list;
    if (!a)
        return true;
    if (!mlir_imp_sharding_list(oi->ic, a, &list) || list.count != count)
        return op_error(oi, "in_shardings and out_shardings hold one sharding per operand and per result");
    for (int i = 0; i < count; i++)
        if (!(values[i]->sharding = mlir_imp_sharding(oi->ic, list.items[i])))
            return false;
    return true;
}

/* sdy.named_computation<"name">: isolated from above, ends in sdy.return. */
bool mlir_imp_named_computation(OpImport *oi)
{
    ImportCtx *ic = oi->ic;
    const MlirAttr *name = mlir_imp_attr(oi, "name");
    const MlirRegion *region = oi->src->regions.count == 1 ? oi->src->regions.items[0] : NULL;
    if (!name || name->kind != MA_STRING || !region || region->blocks.count != 1)
        return op_error(oi, "it needs a name and a body of one block");
    if (!mlir_imp_make_op(oi, OP_NAMED_COMPUTATION))
        return false;
    Op *op = oi->op;
    mlir_imp_set(oi, ATTR_KEY_NAME, mlir_imp_string_attr(ic, name->s, op->loc));
    Block *b = ARENA_NEW(ic->arena, Block);
    b->parent_op = op;
    b->parent_func = ic->func;
    op->num_regions = 1;
    op->regions = ARENA_ARRAY(ic->arena, Block *, 1);
    op->regions[0] = b;
    mlir_imp_push_scope(ic, true);
    ic->scope->owner = oi->src->loc;
    bool ok = mlir_imp_block_args(ic, &((const MlirBlock *)region->blocks.items[0])->args, b);
    ok = ok && mlir_imp_body(ic, region, b, "sdy.return", oi->src->loc);
    mlir_imp_pop_scope(ic);
    return ok && named_shardings(oi, "in_shardings", b->args, b->num_args) &&
           named_shardings(oi, "out_shardings", op->results, op->num_results);
}
