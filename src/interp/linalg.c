/* Op handlers of cholesky, triangular_solve and the batch_norm ops: read
 * the attributes (checked by the verifier) and call the kernels. */
#include <string.h>
#include "interp/interp_internal.h"

bool exec_cholesky(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    return exec_kernel(x, op, kern_cholesky(&x->tensors, in[0], op_attr_bool(op, ATTR_KEY_LOWER), out));
}

bool exec_triangular_solve(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    const char *mode = op_attr_string(op, ATTR_KEY_TRANSPOSE_A);
    KernTriangularSolve opts = {
        .left_side = op_attr_bool(op, ATTR_KEY_LEFT_SIDE),
        .lower = op_attr_bool(op, ATTR_KEY_LOWER),
        .unit_diagonal = op_attr_bool(op, ATTR_KEY_UNIT_DIAGONAL),
        .transpose_a = strcmp(mode, "NO_TRANSPOSE") == 0 ? KERN_NO_TRANSPOSE
                       : strcmp(mode, "TRANSPOSE") == 0  ? KERN_TRANSPOSE
                                                         : KERN_ADJOINT,
    };
    return exec_kernel(x, op, kern_triangular_solve(&x->tensors, in[0], in[1], &opts, out));
}

/* epsilon as written: a float literal, or an integer one. */
static double epsilon_of(const Op *op)
{
    const AttrValue *v = op_attr_get(op, ATTR_KEY_EPSILON);
    return v->kind == ATTR_FLOAT ? v->u.f : (double)v->u.i;
}

bool exec_batch_norm(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    double eps = epsilon_of(op);
    int64_t feature = op_attr_int(op, ATTR_KEY_FEATURE_INDEX);
    TensorStatus st;
    if (op->kind == OP_BATCH_NORM_INFERENCE)
        st = kern_batch_norm_inference(&x->tensors, in, eps, feature, out);
    else if (op->kind == OP_BATCH_NORM_TRAINING)
        st = kern_batch_norm_training(&x->tensors, in, eps, feature, out);
    else
        st = kern_batch_norm_grad(&x->tensors, in, eps, feature, out);
    return exec_kernel(x, op, st);
}

/* A one-letter attribute, or 0 when the routine takes none. */
static char letter(const Op *op, AttrKey key)
{
    const char *s = op_attr_string(op, key);
    return s ? s[0] : 0;
}

bool exec_lapack(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    TensorType types[5];
    KernLapack call = {.uplo = letter(op, ATTR_KEY_UPLO), .mode = letter(op, ATTR_KEY_MODE),
                       .side = letter(op, ATTR_KEY_SIDE), .trans_x = letter(op, ATTR_KEY_TRANS_X),
                       .diag = letter(op, ATTR_KEY_DIAG), .result_types = types};
    if (!lapack_target_parse(op_attr_string(op, ATTR_KEY_TARGET), &call.target) || op->num_results > 5)
        return exec_fail(x, op, "'lapack': unknown target '%s'", op_attr_string(op, ATTR_KEY_TARGET));
    for (int i = 0; i < op->num_results; i++)
        types[i] = op->results[i]->type;
    return exec_kernel(x, op, kern_lapack(&x->tensors, &call, in, out));
}
