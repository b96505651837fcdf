/* Op handlers of the compute ops: each reads its attributes and calls its
 * kernel (kernels.h), which gives the NumPy/JAX semantics. */
#include <stdlib.h>
#include <string.h>
#include "interp/interp_internal.h"

/* ---- attributes: the verifier has checked them; read by key (ir.h) ------------------- */

static bool scalar_of(const AttrValue *v, TensorScalar *out)
{
    switch (v->kind) {
    case ATTR_INT: *out = scalar_int(v->u.i); return true;
    case ATTR_FLOAT: *out = scalar_float(v->u.f); return true;
    case ATTR_BOOL: *out = scalar_int(v->u.b); return true;
    default: return false;
    }
}

/* A scalar attribute (int, float or bool literal), or its default. */
static TensorScalar scalar_attr(const Op *op, AttrKey key)
{
    TensorScalar value = scalar_int(0);
    scalar_of(op_attr_get(op, key), &value);
    return value;
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
    const AttrValue *v = op_attr_get(op, ATTR_KEY_VALUE);
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
    int64_t dim = op_attr_int(op, ATTR_KEY_DIMENSION);
    return exec_kernel(x, op, kern_iota(&x->tensors, t->dtype, t->rank, t->dims, dim, out));
}

static bool exec_zeros(ExecCtx *x, const Op *op, Tensor **out)
{
    const TensorType *t = result_type(op, 0);
    return exec_kernel(x, op, tensor_new(&x->tensors, t->dtype, t->rank, t->dims, out));
}

static bool exec_full(ExecCtx *x, const Op *op, Tensor **out)
{
    const TensorType *t = result_type(op, 0);
    TensorScalar value = scalar_attr(op, ATTR_KEY_VALUE);
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
        return exec_kernel(x, op, kern_gelu(&x->tensors, in[0], op_attr_bool(op, ATTR_KEY_APPROXIMATE), out));
    if (op->kind == OP_IS_FINITE)
        return exec_kernel(x, op, kern_is_finite(&x->tensors, in[0], out));
    UnaryOp kind;
    if (!kern_unary_op_lookup(op_info(op->kind)->name, &kind))
        return exec_fail(x, op, "no kernel for unary op '%s'", op_info(op->kind)->name);
    return exec_kernel(x, op, kern_unary(&x->tensors, kind, in[0], out));
}

bool exec_convert(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    DType to = result_type(op, 0)->dtype;
    if (op->kind == OP_BITCAST_CONVERT)
        return exec_kernel(x, op, kern_bitcast_convert(&x->tensors, in[0], to, out));
    return exec_kernel(x, op, tensor_convert(&x->tensors, in[0], to, out));
}

bool exec_binary(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    BinaryOp kind;
    if (!kern_binary_op_lookup(op_info(op->kind)->name, &kind))
        return exec_fail(x, op, "no kernel for binary op '%s'", op_info(op->kind)->name);
    return exec_kernel(x, op, kern_binary(&x->tensors, kind, in[0], in[1], out));
}

bool exec_compare(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    const char *direction = op_attr_string(op, ATTR_KEY_DIRECTION);
    CompareOp kind;
    if (!kern_compare_op_lookup(direction, &kind))
        return exec_fail(x, op, "'compare' has an unknown direction \"%s\"", direction);
    if (op_attr_string(op, ATTR_KEY_COMPARE_TYPE)) /* TOTALORDER, the one the verifier lets through */
        return exec_kernel(x, op, kern_compare_total(&x->tensors, kind, in[0], in[1], out));
    return exec_kernel(x, op, kern_compare(&x->tensors, kind, in[0], in[1], out));
}

bool exec_select(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    return exec_kernel(x, op, kern_select(&x->tensors, in[0], in[1], in[2], out));
}

/* StableHLO's clamp(min, x, max) = min(max(x, min), max): NaN in any of
 * them gives NaN. */
bool exec_clamp(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    Tensor *low = NULL;
    if (!exec_kernel(x, op, kern_binary(&x->tensors, BIN_MAX, in[1], in[0], &low)))
        return false;
    bool ok = exec_kernel(x, op, kern_binary(&x->tensors, BIN_MIN, low, in[2], out));
    tensor_release(low);
    return ok;
}

/* ---- reverse and dynamic slices ------------------------------------------------------- */

bool exec_reverse(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    int64_t dims[SHARDC_MAX_RANK];
    int n = op_attr_ints(op, ATTR_KEY_DIMS, dims, SHARDC_MAX_RANK);
    return exec_kernel(x, op, kern_reverse(&x->tensors, in[0], n, dims, out));
}

/* The start index scalars in[first..]. */
static void start_indices(const Op *op, Tensor *const *in, int first, int64_t *start)
{
    for (int i = first; i < op->num_operands; i++)
        start[i - first] = tensor_get_i64(in[i], 0);
}

bool exec_dynamic_slice(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    int64_t start[SHARDC_MAX_RANK];
    start_indices(op, in, 1, start);
    return exec_kernel(x, op, kern_dynamic_slice(&x->tensors, in[0], start, result_type(op, 0)->dims, out));
}

bool exec_dynamic_update_slice(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    int64_t start[SHARDC_MAX_RANK];
    start_indices(op, in, 2, start);
    return exec_kernel(x, op, kern_dynamic_update_slice(&x->tensors, in[0], in[1], start, out));
}

/* ---- gather and scatter -------------------------------------------------------------- */

bool exec_gather(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    GatherDims g;
    op_gather_dims(op, &g);
    const TensorType *r = result_type(op, 0);
    return exec_kernel(x, op, kern_gather(&x->tensors, in[0], in[1], &g, r->rank, r->dims, out));
}

/* A known combiner (named, or a region of one binary op per input) runs
 * the kernel on each input alone; any other region, reduce_region.c. */
bool exec_scatter(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    int n = op->num_results;
    GatherDims g;
    op_gather_dims(op, &g);
    ScatterCombiner c = SCATTER_ADD;
    const char *name = op_scatter_combiner(op);
    if (!name || !kern_scatter_combiner_lookup(name, &c))
        return exec_scatter_region(x, op, in, out);
    for (int i = 0; i < n; i++)
        if (!exec_kernel(x, op, kern_scatter(&x->tensors, in[i], in[n], in[n + 1 + i], &g, c, &out[i])))
            return false;
    return true;
}

/* ---- windows --------------------------------------------------------------------------- */

bool exec_convolution(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    ConvDims d;
    WindowDims w;
    if (!op_conv_dims(op, &d))
        return exec_fail(x, op, "malformed 'dim_numbers'");
    op_window_dims(op, &w);
    return exec_kernel(x, op, kern_convolution(&x->tensors, in[0], in[1], &d, &w,
                                               op_attr_int(op, ATTR_KEY_FEATURE_GROUP_COUNT),
                                               op_attr_int(op, ATTR_KEY_BATCH_GROUP_COUNT), result_type(op, 0)->dims,
                                               out));
}

bool exec_reduce_window(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    WindowDims w;
    op_window_dims(op, &w);
    const char *r = op_attr_string(op, ATTR_KEY_REDUCTION);
    WindowReduction kind = strcmp(r, "max") == 0 ? WINDOW_MAX : strcmp(r, "min") == 0 ? WINDOW_MIN : WINDOW_SUM;
    int n = op->num_results;
    for (int j = 0; j < n; j++) { /* each input reduced on its own, from its init if it has one */
        const Tensor *init = op->num_operands == 2 * n ? in[n + j] : NULL;
        if (!exec_kernel(x, op, kern_reduce_window(&x->tensors, in[j], kind, init, &w, result_type(op, j)->dims,
                                                   &out[j])))
            return false;
    }
    return true;
}

bool exec_select_and_scatter(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    WindowDims w;
    op_window_dims(op, &w);
    const Tensor *init = op->num_operands == 3 ? in[2] : NULL;
    WindowSelect select = (WindowSelect)op_select_direction(op);
    return exec_kernel(x, op, kern_select_and_scatter(&x->tensors, in[0], in[1], init, &w, select, out));
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
    int n = op_attr_ints(op, ATTR_KEY_DIMS, dims, SHARDC_MAX_RANK);
    if (!reduce_kinds[op->kind])
        return exec_fail(x, op, "no kernel for reduce op '%s'", op_info(op->kind)->name);
    ReduceOp kind = (ReduceOp)(reduce_kinds[op->kind] - 1);
    return exec_kernel(x, op, kern_reduce(&x->tensors, kind, in[0], n, dims, out));
}

/* ---- data movement ------------------------------------------------------------------------ */

bool exec_transpose(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    int64_t perm[SHARDC_MAX_RANK];
    op_attr_ints(op, ATTR_KEY_PERMUTATION, perm, SHARDC_MAX_RANK);
    return exec_kernel(x, op, kern_transpose(&x->tensors, in[0], perm, out));
}

bool exec_reshape(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    return interp_reshape_to(x, op, in[0], result_type(op, 0), out);
}

bool exec_broadcast(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    const TensorType *t = result_type(op, 0);
    int64_t bdims[SHARDC_MAX_RANK];
    op_attr_ints(op, ATTR_KEY_DIMS, bdims, SHARDC_MAX_RANK);
    return exec_kernel(x, op, kern_broadcast_in_dim(&x->tensors, in[0], t->rank, t->dims, bdims, out));
}

bool exec_concatenate(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    int64_t dim = op_attr_int(op, ATTR_KEY_DIM);
    return exec_kernel(x, op, kern_concatenate(&x->tensors, op->num_operands, (const Tensor *const *)in, dim, out));
}

bool exec_slice(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    int64_t start[SHARDC_MAX_RANK], limit[SHARDC_MAX_RANK], stride[SHARDC_MAX_RANK];
    op_attr_ints(op, ATTR_KEY_START, start, SHARDC_MAX_RANK);
    op_attr_ints(op, ATTR_KEY_LIMIT, limit, SHARDC_MAX_RANK);
    bool strided = op_attr_ints(op, ATTR_KEY_STRIDE, stride, SHARDC_MAX_RANK) >= 0; /* absent: -1 */
    return exec_kernel(x, op, kern_slice(&x->tensors, in[0], start, limit, strided ? stride : NULL, out));
}

bool exec_pad(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    int64_t low[SHARDC_MAX_RANK], high[SHARDC_MAX_RANK], interior[SHARDC_MAX_RANK];
    op_attr_ints(op, ATTR_KEY_LOW, low, SHARDC_MAX_RANK);
    op_attr_ints(op, ATTR_KEY_HIGH, high, SHARDC_MAX_RANK);
    bool has_interior = op_attr_ints(op, ATTR_KEY_INTERIOR, interior, SHARDC_MAX_RANK) >= 0; /* absent: -1 */
    const int64_t *inner = has_interior ? interior : NULL;
    if (op->num_operands == 2)
        return exec_kernel(x, op, kern_pad_with(&x->tensors, in[0], low, high, inner, in[1], out));
    TensorScalar value = scalar_attr(op, ATTR_KEY_VALUE);
    return exec_kernel(x, op, kern_pad(&x->tensors, in[0], low, high, inner, value, out));
}

bool exec_top_k(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    int64_t k = op_attr_int(op, ATTR_KEY_K);
    return exec_kernel(x, op, kern_top_k(&x->tensors, in[0], k, &out[0], &out[1]));
}

bool exec_sort(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    if (op->num_regions)
        return exec_sort_region(x, op, in, out);
    int64_t dim = op_attr_int(op, ATTR_KEY_DIM);
    bool descending = op_attr_bool(op, ATTR_KEY_DESCENDING);
    return exec_kernel(x, op, kern_sort(&x->tensors, in[0], dim, descending, out));
}

bool exec_argmax(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    int64_t dim = op_attr_int(op, ATTR_KEY_DIM);
    return exec_kernel(x, op, kern_argmax(&x->tensors, in[0], dim, out));
}

/* sharding_constraint, reshard and propagation_barrier only say where a value lives. */
bool exec_identity(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    (void)x;
    (void)op;
    out[0] = tensor_retain(in[0]);
    return true;
}

/* sharding_group only constrains propagation: it computes nothing. */
bool exec_nothing(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    (void)x;
    (void)op;
    (void)in;
    (void)out;
    return true;
}

/* ---- reshuffles for the collectives ------------------------------------------------------------ */

bool interp_move_axis(ExecCtx *x, const Op *op, const Tensor *t, int from, int to, Tensor **out)
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

bool interp_reshape_to(ExecCtx *x, const Op *op, const Tensor *t, const TensorType *type, Tensor **out)
{
    return exec_kernel(x, op, kern_reshape(&x->tensors, t, type->rank, type->dims, out));
}

bool interp_relabel(ExecCtx *x, const Op *op, Tensor *t, const TensorType *type)
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

/* real, imag, complex (kernels/complex.c). */
bool exec_complex_part(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    if (op->kind == OP_COMPLEX)
        return exec_kernel(x, op, kern_complex(&x->tensors, in[0], in[1], out));
    if (op->kind == OP_IMAG)
        return exec_kernel(x, op, kern_imag(&x->tensors, in[0], out));
    return exec_kernel(x, op, kern_real(&x->tensors, in[0], out));
}

bool exec_fft(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    KernFftType type;
    int64_t len[SHARDC_MAX_RANK];
    int n = op_attr_ints(op, ATTR_KEY_FFT_LENGTH, len, SHARDC_MAX_RANK);
    if (!kern_fft_type_lookup(op_attr_string(op, ATTR_KEY_FFT_TYPE), &type))
        return exec_fail(x, op, "'fft' has an unknown fft_type");
    return exec_kernel(x, op, kern_fft(&x->tensors, in[0], type, n, len, out));
}

/* ---- rng_bit_generator (issue 18, h33) ----------------------------------------------- */

/* The whole output, or (the partitioner's per-device form) the block of
 * global_shape starting at the start operands. DEFAULT is THREE_FRY. */
bool exec_rng_bit_generator(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    bool philox = strcmp(op_attr_string(op, ATTR_KEY_RNG_ALGORITHM), "PHILOX") == 0;
    const TensorType *bits = result_type(op, 1);
    int64_t global[SHARDC_MAX_RANK], offsets[SHARDC_MAX_RANK] = {0};
    /* a scalar's dims may be NULL, which memcpy must not get even for 0 bytes */
    if (op_attr_ints(op, ATTR_KEY_GLOBAL_SHAPE, global, SHARDC_MAX_RANK) < 0 && bits->rank > 0)
        memcpy(global, bits->dims, sizeof(int64_t) * (size_t)bits->rank);
    for (int d = 0; d + 1 < op->num_operands; d++)
        offsets[d] = tensor_get_i64(in[1 + d], 0);
    RngBitsRequest req = {bits->dtype, bits->rank, global, offsets, bits->dims, philox};
    return exec_kernel(x, op, kern_rng_bit_generator(&x->tensors, in[0], &req, &out[0], &out[1]));
}
