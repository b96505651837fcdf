/* Op handlers of the compute ops: each reads its attributes and calls its
 * kernel (kernels.h), which gives the NumPy/JAX semantics. */
#include <stdlib.h>
#include <string.h>
#include "interp/interp_internal.h"

/* ---- attributes ---------------------------------------------------------------- */

bool attr_get_int(const Op *op, const char *name, int64_t fallback, int64_t *out)
{
    const AttrValue *v = op_attr_value(op, name);
    *out = v && v->kind == ATTR_INT ? v->u.i : fallback;
    return !v || v->kind == ATTR_INT;
}

bool attr_get_bool(const Op *op, const char *name, bool fallback)
{
    const AttrValue *v = op_attr_value(op, name);
    return v && v->kind == ATTR_BOOL ? v->u.b : fallback;
}

const char *attr_get_string(const Op *op, const char *name, const char *fallback)
{
    const AttrValue *v = op_attr_value(op, name);
    return v && v->kind == ATTR_STRING ? v->u.s : fallback;
}

int attr_get_ints(const Op *op, const char *name, int64_t *out, int max)
{
    const AttrValue *v = op_attr_value(op, name);
    return v ? attr_int_array(v, out, max) : -1;
}

static bool scalar_of(const AttrValue *v, TensorScalar *out)
{
    switch (v->kind) {
    case ATTR_INT: *out = scalar_int(v->u.i); return true;
    case ATTR_FLOAT: *out = scalar_float(v->u.f); return true;
    case ATTR_BOOL: *out = scalar_int(v->u.b); return true;
    default: return false;
    }
}

bool attr_get_scalar(const Op *op, const char *name, TensorScalar fallback, TensorScalar *out)
{
    const AttrValue *v = op_attr_value(op, name);
    *out = fallback;
    return !v || scalar_of(v, out);
}

/* An int-array attribute that must have one entry per dim. */
static bool dims_attr(ExecCtx *x, const Op *op, const char *name, int rank, int64_t *out)
{
    if (attr_get_ints(op, name, out, SHARDC_MAX_RANK) == rank)
        return true;
    return exec_fail(x, op, "'%s' needs '%s' with %d entries", op_info(op->kind)->name, name, rank);
}

static bool int_attr(ExecCtx *x, const Op *op, const char *name, int64_t *out)
{
    if (op_attr_value(op, name) && attr_get_int(op, name, 0, out))
        return true;
    return exec_fail(x, op, "'%s' needs an integer '%s'", op_info(op->kind)->name, name);
}

static const TensorType *result_type(const Op *op, int i)
{
    return &op->results[i]->type;
}

/* ---- nullary ---------------------------------------------------------------------- */

/* Flatten nested lists of scalars in row-major order. */
static bool flatten_value(const AttrValue *v, TensorScalar *out, int64_t max, int64_t *n)
{
    if (v->kind != ATTR_ARRAY) {
        if (*n >= max || !scalar_of(v, &out[*n]))
            return false;
        (*n)++;
        return true;
    }
    for (int i = 0; i < v->u.array.count; i++)
        if (!flatten_value(v->u.array.items[i], out, max, n))
            return false;
    return true;
}

static bool exec_constant(ExecCtx *x, const Op *op, Tensor **out)
{
    const TensorType *t = result_type(op, 0);
    const AttrValue *v = op_attr_value(op, "value");
    int64_t count = 1, n = 0;
    type_num_elements(t, &count);
    TensorScalar *values = malloc(((size_t)count + 1) * sizeof *values);
    if (!values)
        return exec_fail(x, op, "out of memory");
    bool ok = v && flatten_value(v, values, count + 1, &n);
    ok = ok ? exec_kernel(x, op, kern_constant(&x->tensors, t->dtype, t->rank, t->dims, n, values, out))
            : exec_fail(x, op, "'constant' needs a 'value' of %lld scalars (or one)", (long long)count);
    free(values);
    return ok;
}

static bool exec_iota(ExecCtx *x, const Op *op, Tensor **out)
{
    const TensorType *t = result_type(op, 0);
    int64_t dim;
    return int_attr(x, op, "dimension", &dim) &&
           exec_kernel(x, op, kern_iota(&x->tensors, t->dtype, t->rank, t->dims, dim, out));
}

static bool exec_zeros(ExecCtx *x, const Op *op, Tensor **out)
{
    const TensorType *t = result_type(op, 0);
    return exec_kernel(x, op, tensor_new(&x->tensors, t->dtype, t->rank, t->dims, out));
}

static bool exec_full(ExecCtx *x, const Op *op, Tensor **out)
{
    const TensorType *t = result_type(op, 0);
    TensorScalar value;
    if (!op_attr_value(op, "value") || !attr_get_scalar(op, "value", scalar_int(0), &value))
        return exec_fail(x, op, "'full' needs a scalar 'value'");
    return exec_kernel(x, op, kern_full(&x->tensors, t->dtype, t->rank, t->dims, value, out));
}

typedef bool (*NullaryFn)(ExecCtx *x, const Op *op, Tensor **out);

static const NullaryFn nullary_fns[OP_COUNT] = {
    [OP_CONSTANT] = exec_constant, [OP_IOTA] = exec_iota, [OP_ZEROS] = exec_zeros, [OP_FULL] = exec_full,
};

bool exec_nullary(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    (void)in;
    if (!nullary_fns[op->kind])
        return exec_fail(x, op, "no interpreter for nullary op '%s'", op_info(op->kind)->name);
    return nullary_fns[op->kind](x, op, out);
}

/* ---- elementwise --------------------------------------------------------------------- */

/* The IR's unary and binary op names are the kernels' spellings. */
bool exec_unary(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    if (op->kind == OP_GELU)
        return exec_kernel(x, op, kern_gelu(&x->tensors, in[0], attr_get_bool(op, "approximate", true), out));
    UnaryOp kind;
    if (!unary_op_lookup(op_info(op->kind)->name, &kind))
        return exec_fail(x, op, "no kernel for unary op '%s'", op_info(op->kind)->name);
    return exec_kernel(x, op, kern_unary(&x->tensors, kind, in[0], out));
}

bool exec_convert(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    return exec_kernel(x, op, tensor_convert(&x->tensors, in[0], result_type(op, 0)->dtype, out));
}

bool exec_binary(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    BinaryOp kind;
    if (!binary_op_lookup(op_info(op->kind)->name, &kind))
        return exec_fail(x, op, "no kernel for binary op '%s'", op_info(op->kind)->name);
    return exec_kernel(x, op, kern_binary(&x->tensors, kind, in[0], in[1], out));
}

bool exec_compare(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    const char *direction = attr_get_string(op, "direction", "");
    CompareOp kind;
    if (!compare_op_lookup(direction, &kind))
        return exec_fail(x, op, "'compare' has an unknown direction \"%s\"", direction);
    return exec_kernel(x, op, kern_compare(&x->tensors, kind, in[0], in[1], out));
}

bool exec_select(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    return exec_kernel(x, op, kern_select(&x->tensors, in[0], in[1], in[2], out));
}

/* ---- contraction and reductions -------------------------------------------------------- */

bool exec_einsum(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    if (!op->str)
        return exec_fail(x, op, "'einsum' needs a spec string");
    return exec_kernel(x, op, kern_einsum(&x->tensors, op->str, op->num_operands, (const Tensor *const *)in, out));
}

static const int reduce_kinds[OP_COUNT] = {
    [OP_REDUCE_SUM] = RED_SUM + 1, [OP_REDUCE_MAX] = RED_MAX + 1,
    [OP_REDUCE_MIN] = RED_MIN + 1, [OP_REDUCE_MEAN] = RED_MEAN + 1,
};

bool exec_reduce(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    int64_t dims[SHARDC_MAX_RANK];
    int n = attr_get_ints(op, "dims", dims, SHARDC_MAX_RANK);
    if (n < 0 || !reduce_kinds[op->kind])
        return exec_fail(x, op, "'%s' needs 'dims'", op_info(op->kind)->name);
    ReduceOp kind = (ReduceOp)(reduce_kinds[op->kind] - 1);
    return exec_kernel(x, op, kern_reduce(&x->tensors, kind, in[0], n, dims, out));
}

/* ---- data movement ------------------------------------------------------------------------ */

bool exec_transpose(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    int64_t perm[SHARDC_MAX_RANK];
    return dims_attr(x, op, "permutation", in[0]->rank, perm) &&
           exec_kernel(x, op, kern_transpose(&x->tensors, in[0], perm, out));
}

bool exec_reshape(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    return tensor_reshape_to(x, op, in[0], result_type(op, 0), out);
}

bool exec_broadcast(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    const TensorType *t = result_type(op, 0);
    int64_t bdims[SHARDC_MAX_RANK];
    return dims_attr(x, op, "dims", in[0]->rank, bdims) &&
           exec_kernel(x, op, kern_broadcast_in_dim(&x->tensors, in[0], t->rank, t->dims, bdims, out));
}

bool exec_concatenate(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    int64_t dim;
    return int_attr(x, op, "dim", &dim) &&
           exec_kernel(x, op, kern_concatenate(&x->tensors, op->num_operands, (const Tensor *const *)in, dim, out));
}

bool exec_slice(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    int rank = in[0]->rank;
    int64_t start[SHARDC_MAX_RANK], limit[SHARDC_MAX_RANK], stride[SHARDC_MAX_RANK];
    bool strided = op_attr_value(op, "stride") != NULL;
    return dims_attr(x, op, "start", rank, start) && dims_attr(x, op, "limit", rank, limit) &&
           (!strided || dims_attr(x, op, "stride", rank, stride)) &&
           exec_kernel(x, op, kern_slice(&x->tensors, in[0], start, limit, strided ? stride : NULL, out));
}

bool exec_pad(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    int rank = in[0]->rank;
    int64_t low[SHARDC_MAX_RANK], high[SHARDC_MAX_RANK], interior[SHARDC_MAX_RANK];
    bool has_interior = op_attr_value(op, "interior") != NULL;
    TensorScalar value;
    if (!attr_get_scalar(op, "value", scalar_int(0), &value))
        return exec_fail(x, op, "'pad' needs a scalar 'value'");
    return dims_attr(x, op, "low", rank, low) && dims_attr(x, op, "high", rank, high) &&
           (!has_interior || dims_attr(x, op, "interior", rank, interior)) &&
           exec_kernel(x, op, kern_pad(&x->tensors, in[0], low, high, has_interior ? interior : NULL, value, out));
}

bool exec_top_k(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    int64_t k;
    return int_attr(x, op, "k", &k) && exec_kernel(x, op, kern_top_k(&x->tensors, in[0], k, &out[0], &out[1]));
}

bool exec_sort(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    int64_t dim;
    bool descending = attr_get_bool(op, "descending", false);
    return int_attr(x, op, "dim", &dim) &&
           exec_kernel(x, op, kern_sort(&x->tensors, in[0], dim, descending, out));
}

bool exec_argmax(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    int64_t dim;
    return int_attr(x, op, "dim", &dim) && exec_kernel(x, op, kern_argmax(&x->tensors, in[0], dim, out));
}

/* sharding_constraint and reshard only say where a value lives. */
bool exec_identity(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    (void)x;
    (void)op;
    out[0] = tensor_retain(in[0]);
    return true;
}

/* ---- reshuffles for the collectives ------------------------------------------------------------ */

bool tensor_move_axis(ExecCtx *x, const Op *op, const Tensor *t, int from, int to, Tensor **out)
{
    if (from == to) {
        *out = tensor_retain((Tensor *)t); /* nothing moves */
        return true;
    }
    int64_t perm[SHARDC_MAX_RANK + 1];
    for (int d = 0, k = 0; d < t->rank; d++) {
        if (d == to)
            perm[d] = from;
        else {
            k += k == from;
            perm[d] = k++;
        }
    }
    return exec_kernel(x, op, kern_transpose(&x->tensors, t, perm, out));
}

bool tensor_reshape_to(ExecCtx *x, const Op *op, const Tensor *t, const TensorType *type, Tensor **out)
{
    return exec_kernel(x, op, kern_reshape(&x->tensors, t, type->rank, type->dims, out));
}

bool tensor_relabel(ExecCtx *x, const Op *op, Tensor *t, const TensorType *type)
{
    int64_t count = 0;
    if (atomic_load(&t->refs) != 1 || t->dtype != type->dtype || !type_num_elements(type, &count) ||
        count != t->count || type->rank > SHARDC_MAX_RANK)
        return exec_fail(x, op, "internal error: cannot view a %lld-element tensor as another shape",
                         (long long)t->count);
    t->rank = type->rank;
    memset(t->dims, 0, sizeof t->dims);
    memcpy(t->dims, type->dims, (size_t)type->rank * sizeof *t->dims);
    return true;
}
