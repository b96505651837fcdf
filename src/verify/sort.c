/* sort as StableHLO has it (sort_c1..c5): N operands of one shape, N
 * results of the operands' types, dim in range, and a comparator taking
 * (lhs_0, rhs_0, lhs_1, rhs_1, ...) scalars of the operands' dtypes and
 * returning one bool[]. Without a comparator, one operand. */
#include "shardc/verify.h"

/* `v` must be a scalar of dtype dt. */
static void sort_expect_scalar(VerifyCtx *vc, Loc loc, const Value *v, DType dt, const char *what, int i)
{
    if (v->type.rank == 0 && v->type.dtype == dt)
        return;
    char g[256];
    verify_format_type(g, sizeof g, &v->type);
    diag_error(vc->diag, loc, "%s %d of the comparator of 'sort' (%%%s) must be a %s[] scalar, but is %s", what, i,
               v->name, dtype_name(dt), g);
}

static void sort_verify_comparator(VerifyCtx *vc, const Op *op, const Block *cmp)
{
    int n = op->num_operands;
    if (cmp->num_args != 2 * n) {
        diag_error(vc->diag, op->loc, "the comparator of 'sort' takes %d scalar arguments (lhs and rhs of each of "
                   "the %d operands), not %d", 2 * n, n, cmp->num_args);
        return;
    }
    for (int i = 0; i < 2 * n; i++)
        sort_expect_scalar(vc, cmp->args[i]->loc, cmp->args[i], op->operands[i / 2]->type.dtype, "argument", i);
    if (cmp->num_returns != 1) {
        diag_error(vc->diag, cmp->return_loc, "the comparator of 'sort' returns one bool[], not %d values",
                   cmp->num_returns);
        return;
    }
    sort_expect_scalar(vc, cmp->return_loc, cmp->returns[0], DT_BOOL, "returned value", 0);
}

/* Without a comparator: one operand; with one, no 'descending' (the
 * comparator gives the order). */
static void sort_verify_form(VerifyCtx *vc, const Op *op)
{
    if (op->num_regions == 0 && op->num_operands != 1)
        diag_error(vc->diag, op->loc, "'sort' of %d operands needs a comparator region: sort %%a, %%b {dim = 0} "
                   "(%%a0: f32[], %%a1: f32[], %%b0: i32[], %%b1: i32[]) {... return %%lt} : ...", op->num_operands);
    if (op->num_regions == 1 && op_attr_find(op, ATTR_KEY_DESCENDING))
        diag_error(vc->diag, op_attr_loc(op, ATTR_KEY_DESCENDING),
                   "'descending' is for 'sort' without a comparator; the comparator gives the order");
    if (op->num_regions > 1)
        diag_error(vc->diag, op->loc, "'sort' takes at most one comparator region, not %d", op->num_regions);
}

void verify_sort(VerifyCtx *vc, Op *op)
{
    int n = op->num_operands;
    if (op->num_results != n) {
        diag_error(vc->diag, op->loc, "'sort' has a result per operand: %d operand%s, %d result%s", n,
                   n == 1 ? "" : "s", op->num_results, op->num_results == 1 ? "" : "s");
        return;
    }
    const TensorType *in = &op->operands[0]->type;
    for (int i = 1; i < n; i++)
        if (!type_same_shape(&op->operands[i]->type, in))
            diag_error(vc->diag, op->loc, "the operands of 'sort' have one shape, but %%%s and %%%s differ",
                       op->operands[0]->name, op->operands[i]->name);
    int64_t dim;
    if (!verify_dim_attr(vc, op, ATTR_KEY_DIM, in->rank, &dim))
        return;
    for (int i = 0; i < n; i++)
        verify_expect_type(vc, op, &op->operands[i]->type, op->results[i]);
    sort_verify_form(vc, op);
    if (op->num_regions == 1)
        sort_verify_comparator(vc, op, op->regions[0]);
}
