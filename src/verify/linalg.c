/* Verifier checks of cholesky, triangular_solve and the batch_norm ops:
 * StableHLO's constraints (C1, C2, ... of its spec), on real floats only:
 * the kernels call the real LAPACK routines, not the complex ones. */
#include <string.h>
#include "shardc/verify.h"

/* A float operand of rank >= 2 whose last two dims are a square matrix. */
static bool matrix_operand(VerifyCtx *vc, const Op *op, int i, const char *what)
{
    const TensorType *t = &op->operands[i]->type;
    const char *name = op_info(op->kind)->name;
    if (!dtype_is_float(t->dtype)) {
        diag_error(vc->diag, op->loc, "'%s' %s must have a float element type, got %s", name, what,
                   dtype_name(t->dtype));
        return false;
    }
    if (t->rank < 2) {
        diag_error(vc->diag, op->loc, "'%s' %s must have rank >= 2, got rank %d", name, what, t->rank);
        return false;
    }
    if (t->dims[t->rank - 2] != t->dims[t->rank - 1]) {
        diag_error(vc->diag, op->loc, "'%s' %s must be square in its last two dims, got %lldx%lld", name, what,
                   (long long)t->dims[t->rank - 2], (long long)t->dims[t->rank - 1]);
        return false;
    }
    return true;
}

void verify_cholesky(VerifyCtx *vc, Op *op)
{
    if (matrix_operand(vc, op, 0, "operand"))
        verify_expect_type(vc, op, &op->operands[0]->type, op->results[0]);
}

/* b: a's element type and rank, a's batch dims, and a's order along the
 * dim it is solved over (C1-C4). */
static bool solve_shapes(VerifyCtx *vc, const Op *op, const TensorType *a, const TensorType *b)
{
    bool left = op_attr_bool(op, ATTR_KEY_LEFT_SIDE);
    if (b->dtype != a->dtype || b->rank != a->rank) {
        diag_error(vc->diag, op->loc, "'triangular_solve' b must have a's element type and rank (%s, %d), got "
                   "%s, %d", dtype_name(a->dtype), a->rank, dtype_name(b->dtype), b->rank);
        return false;
    }
    for (int d = 0; d < a->rank - 2; d++)
        if (a->dims[d] != b->dims[d]) {
            diag_error(vc->diag, op->loc, "'triangular_solve' batch dim %d of a (%lld) and b (%lld) differ", d,
                       (long long)a->dims[d], (long long)b->dims[d]);
            return false;
        }
    int bd = left ? b->rank - 2 : b->rank - 1;
    if (b->dims[bd] != a->dims[a->rank - 1]) {
        diag_error(vc->diag, op->loc, "'triangular_solve' with left_side = %s needs dim %d of b (%lld) to equal "
                   "a's order %lld", left ? "true" : "false", bd, (long long)b->dims[bd],
                   (long long)a->dims[a->rank - 1]);
        return false;
    }
    return true;
}

void verify_triangular_solve(VerifyCtx *vc, Op *op)
{
    static const char *const modes[] = {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"};
    const char *mode = verify_attr_valid(op, ATTR_KEY_TRANSPOSE_A) ? op_attr_string(op, ATTR_KEY_TRANSPOSE_A) : NULL;
    bool known = false;
    for (size_t i = 0; mode && i < sizeof modes / sizeof *modes; i++)
        known |= strcmp(mode, modes[i]) == 0;
    if (mode && !known)
        diag_error(vc->diag, op_attr_loc(op, ATTR_KEY_TRANSPOSE_A), "'transpose_a' must be \"NO_TRANSPOSE\", "
                   "\"TRANSPOSE\" or \"ADJOINT\", got \"%s\"", mode);
    if (!verify_attr_valid(op, ATTR_KEY_LEFT_SIDE) || !matrix_operand(vc, op, 0, "a"))
        return;
    if (solve_shapes(vc, op, &op->operands[0]->type, &op->operands[1]->type))
        verify_expect_type(vc, op, &op->operands[1]->type, op->results[0]);
}

/* epsilon: a float (or integer) literal. */
static void check_epsilon(VerifyCtx *vc, const Op *op)
{
    const AttrValue *eps = op_attr_get(op, ATTR_KEY_EPSILON);
    if (eps && eps->kind != ATTR_FLOAT && eps->kind != ATTR_INT)
        diag_error(vc->diag, eps->loc, "'epsilon' must be a number");
}

/* Operand i: 1-D, the operand's element type, one element per feature. */
static void per_feature(VerifyCtx *vc, const Op *op, const Value *v, const char *what, int64_t features)
{
    TensorType want = {op->operands[0]->type.dtype, 1, &features};
    if (v->type.rank != 1 || v->type.dims[0] != features || v->type.dtype != want.dtype) {
        char buf[64];
        verify_format_type(buf, sizeof buf, &want);
        diag_error(vc->diag, op->loc, "'%s' %s must be %s (one element per feature)", op_info(op->kind)->name,
                   what, buf);
    }
}

/* Which operands and results are per-feature vectors, by op. */
static const char *const bn_operands[3][5] = {
    {"operand", "scale", "offset", "mean", "variance"},
    {"operand", "scale", "offset", NULL, NULL},
    {"operand", "scale", "mean", "variance", "grad_output"},
};

void verify_batch_norm(VerifyCtx *vc, Op *op)
{
    const TensorType *x = &op->operands[0]->type;
    int64_t feature;
    int which = op->kind == OP_BATCH_NORM_INFERENCE ? 0 : op->kind == OP_BATCH_NORM_TRAINING ? 1 : 2;
    check_epsilon(vc, op);
    if (!dtype_is_float(x->dtype)) {
        diag_error(vc->diag, op->loc, "'%s' operand must have a float element type, got %s",
                   op_info(op->kind)->name, dtype_name(x->dtype));
        return;
    }
    if (x->rank < 1 || !verify_dim_attr(vc, op, ATTR_KEY_FEATURE_INDEX, x->rank, &feature))
        return;
    for (int i = 1; i < op->num_operands; i++) {
        if (which == 2 && i == 4 && !type_equal(x, &op->operands[4]->type))
            diag_error(vc->diag, op->loc, "'batch_norm_grad' grad_output must have the operand's type");
        else if (which != 2 || i != 4)
            per_feature(vc, op, op->operands[i], bn_operands[which][i], x->dims[feature]);
    }
    verify_expect_type(vc, op, x, op->results[0]);
    for (int i = 1; i < op->num_results; i++)
        per_feature(vc, op, op->results[i], i == 1 ? (which == 1 ? "batch_mean" : "grad_scale")
                                                   : (which == 1 ? "batch_var" : "grad_offset"), x->dims[feature]);
}
