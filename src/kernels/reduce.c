/* Reductions (sum, max, min, mean over a set of axes) and tensor_allclose.
 *
 * The input is walked once in C order with the output as a second operand
 * whose strides are 0 along reduced axes, so every output element
 * accumulates its inputs in increasing index order: deterministic, and
 * independent of how the axes are grouped. Reducing leading axes makes the
 * inner loop an elementwise accumulate that GCC vectorises. */
#include "shardc/kernels.h"
#include <math.h>

#define UNUSED_TYPEDEF __attribute__((unused))

/* a is the running value, b the incoming element; NaN propagates. */
#define FLOAT_REDUCE_OPS(X, ...)                                                    \
    X(SUM, a + b, __VA_ARGS__)                                                      \
    X(MAX, ((b > a || b != b) ? b : a), __VA_ARGS__)                                \
    X(MIN, ((b < a || b != b) ? b : a), __VA_ARGS__)
#define INT_REDUCE_OPS(X, ...)                                                      \
    X(SUM, (E)((UE)a + (UE)b), __VA_ARGS__)                                         \
    X(MAX, (b > a ? b : a), __VA_ARGS__)                                            \
    X(MIN, (b < a ? b : a), __VA_ARGS__)
#define BOOL_REDUCE_OPS(X, ...)                                                     \
    X(SUM, (E)(a | b), __VA_ARGS__)                                                 \
    X(MAX, (E)(a | b), __VA_ARGS__)                                                 \
    X(MIN, (E)(a & b), __VA_ARGS__)

typedef void (*ReduceRow)(void *y, int64_t sy, const void *x, int64_t sx, int64_t n);

/* y (0 stride: one running value; else one per element) folds in x. The
 * stride-1 case is a separate restrict function so GCC vectorises it. */
#define REDUCE_ROW(ID, EXPR, DT, T, U)                                              \
    static void red_##ID##_##DT##_dense(T *restrict y, const T *restrict x, int64_t n) \
    {                                                                               \
        typedef T E;                                                                \
        typedef U UE UNUSED_TYPEDEF;                                                \
        TENSOR_VECTOR_LOOP(n, {                                                     \
            E a = y[i], b = x[i];                                                   \
            y[i] = (E)(EXPR);                                                       \
        });                                                                         \
    }                                                                               \
    static void red_##ID##_##DT(void *yp, int64_t sy, const void *xp, int64_t sx, int64_t n) \
    {                                                                               \
        typedef T E;                                                                \
        typedef U UE UNUSED_TYPEDEF;                                                \
        E *y = yp;                                                                  \
        const E *x = xp;                                                            \
        if (sy == 1 && sx == 1) {                                                   \
            red_##ID##_##DT##_dense(y, x, n);                                       \
        } else if (sy == 0) {                                                       \
            E a = *y;                                                               \
            for (int64_t i = 0; i < n; i++) {                                       \
                E b = x[i * sx];                                                    \
                a = (E)(EXPR);                                                      \
            }                                                                       \
            *y = a;                                                                 \
        } else {                                                                    \
            for (int64_t i = 0; i < n; i++) {                                       \
                E a = y[i * sy], b = x[i * sx];                                     \
                y[i * sy] = (E)(EXPR);                                              \
            }                                                                       \
        }                                                                           \
    }

#define FLOAT_TYPES(M, LIST) LIST(M, F32, float, float) LIST(M, F64, double, double)
/* u32 and u64 are here too: its wrapping sum and its compares need no signed type. */
#define INT_TYPES(M, LIST)                                                          \
    LIST(M, I8, int8_t, uint8_t) LIST(M, I32, int32_t, uint32_t)                    \
    LIST(M, I64, int64_t, uint64_t) LIST(M, U32, uint32_t, uint32_t)                \
    LIST(M, U64, uint64_t, uint64_t)
#define BOOL_TYPES(M, LIST) LIST(M, BOOL, uint8_t, uint8_t)

FLOAT_TYPES(REDUCE_ROW, FLOAT_REDUCE_OPS)
INT_TYPES(REDUCE_ROW, INT_REDUCE_OPS)
BOOL_TYPES(REDUCE_ROW, BOOL_REDUCE_OPS)

#define REDUCE_ENTRY(ID, EXPR, DT, T, U) [RED_##ID][DT_##DT] = red_##ID##_##DT,
static const ReduceRow reduce_rows[RED_COUNT][DT_COUNT] = {
    FLOAT_TYPES(REDUCE_ENTRY, FLOAT_REDUCE_OPS)
    INT_TYPES(REDUCE_ENTRY, INT_REDUCE_OPS)
    BOOL_TYPES(REDUCE_ENTRY, BOOL_REDUCE_OPS)
};

static const char *const reduce_names[RED_COUNT] = {"reduce_sum", "reduce_max", "reduce_min",
                                                    "reduce_mean"};

/* max starts at the type's least value, min at its greatest (false and
 * true for bool). */
static TensorScalar reduce_identity(ReduceOp op, DType dtype)
{
    int64_t lo, hi;
    bool is_int = dtype_int_range(dtype, &lo, &hi);
    if (op == RED_MAX)
        return is_int ? scalar_int(lo) : scalar_float(-INFINITY);
    if (op == RED_MIN)
        return is_int ? scalar_int(hi) : scalar_float(INFINITY);
    return scalar_int(0);
}

typedef struct ReduceJob {
    ReduceRow row;
    char *y;
    const char *x;
    size_t size;
} ReduceJob;

static void reduce_row(void *user, const int64_t *off, const int64_t *st, int64_t n)
{
    const ReduceJob *job = user;
    job->row(job->y + (size_t)off[0] * job->size, st[0], job->x + (size_t)off[1] * job->size,
             st[1], n);
}

/* Mark the reduced axes; fails on duplicates or out-of-range axes. */
static TensorStatus reduced_axes(TensorCtx *ctx, const char *what, const Tensor *x, int ndims,
                                 const int64_t *dims, bool *reduced)
{
    for (int d = 0; d < x->rank; d++)
        reduced[d] = false;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 0 || dims[i] >= x->rank || reduced[dims[i]])
            return tensor_fail(ctx, TENSOR_ERR_ARG, "%s: axis %lld is %s for rank %d", what,
                               (long long)dims[i],
                               dims[i] < 0 || dims[i] >= x->rank ? "out of range" : "repeated",
                               x->rank);
        reduced[dims[i]] = true;
    }
    return TENSOR_OK;
}

/* Reduce with one of the row loops (sum/max/min) into a fresh output. */
static TensorStatus reduce_core(TensorCtx *ctx, ReduceOp op, const Tensor *x, const bool *reduced,
                                Tensor **out)
{
    int out_rank = 0;
    int64_t out_dims[SHARDC_MAX_RANK], strides[2][NDITER_MAX_DIMS], out_strides[SHARDC_MAX_RANK];
    for (int d = 0; d < x->rank; d++)
        if (!reduced[d])
            out_dims[out_rank++] = x->dims[d];
    TensorStatus st = kern_full(ctx, x->dtype, out_rank, out_dims,
                                reduce_identity(op, x->dtype), out);
    if (st != TENSOR_OK)
        return st;
    tensor_shape_strides(out_rank, out_dims, out_strides);
    tensor_shape_strides(x->rank, x->dims, strides[1]);
    for (int d = 0, k = 0; d < x->rank; d++)
        strides[0][d] = reduced[d] ? 0 : out_strides[k++];
    NdIter it;
    nditer_init(&it, x->rank, x->dims, 2, strides);
    ReduceJob job = {reduce_rows[op][x->dtype], (*out)->data, x->data, dtype_size(x->dtype)};
    nditer_run(&it, reduce_row, &job);
    return TENSOR_OK;
}

#define DIVIDE_BY_COUNT(T, t, count)                                                \
    do {                                                                            \
        T *y = (t)->data;                                                           \
        for (int64_t i = 0; i < (t)->count; i++)                                    \
            y[i] = y[i] / (T)(count);                                               \
    } while (0)

/* jnp.mean: the sum divided by the element count, in the element type. */
static void divide_by_count(Tensor *t, int64_t count)
{
    if (t->dtype == DT_F32)
        DIVIDE_BY_COUNT(float, t, count);
    else
        DIVIDE_BY_COUNT(double, t, count);
}

static int64_t reduced_count(const Tensor *x, const bool *reduced)
{
    int64_t n = 1;
    for (int d = 0; d < x->rank; d++)
        n *= reduced[d] ? x->dims[d] : 1;
    return n;
}

static TensorStatus reduce_half(TensorCtx *ctx, ReduceOp op, const Tensor *x, int ndims,
                                const int64_t *dims, Tensor **out)
{
    Tensor *wx, *wy;
    TensorStatus st = tensor_convert(ctx, x, DT_F32, &wx);
    if (st != TENSOR_OK)
        return st;
    st = kern_reduce(ctx, op, wx, ndims, dims, &wy);
    tensor_release(wx);
    if (st != TENSOR_OK)
        return st;
    st = tensor_convert(ctx, wy, x->dtype, out);
    tensor_release(wy);
    return st;
}

TensorStatus kern_reduce(TensorCtx *ctx, ReduceOp op, const Tensor *x, int ndims,
                         const int64_t *dims, Tensor **out)
{
    *out = NULL;
    bool reduced[SHARDC_MAX_RANK];
    TensorStatus st = reduced_axes(ctx, reduce_names[op], x, ndims, dims, reduced);
    if (st != TENSOR_OK)
        return st;
    if (op == RED_MEAN && !dtype_is_float(x->dtype))
        return tensor_fail(ctx, TENSOR_ERR_DTYPE, "reduce_mean is not defined for %s",
                           dtype_name(x->dtype));
    if (tensor_is_half(x->dtype))
        return reduce_half(ctx, op, x, ndims, dims, out);
    st = reduce_core(ctx, op == RED_MEAN ? RED_SUM : op, x, reduced, out);
    if (st == TENSOR_OK && op == RED_MEAN)
        divide_by_count(*out, reduced_count(x, reduced));
    return st;
}

/* ---- comparison against a reference ----------------------------------------- */

static bool values_close(double a, double b, double rtol, double atol)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    if (a == b)
        return true; /* also equal infinities */
    if (isinf(a) || isinf(b))
        return false;
    return fabs(a - b) <= atol + rtol * fabs(b);
}

static void note_element(TensorDiff *diff, int64_t i, double a, double b, bool close)
{
    if (isfinite(a) && isfinite(b) && fabs(a - b) > diff->max_abs_err)
        diff->max_abs_err = fabs(a - b);
    if (close)
        return;
    if (diff->mismatches++ == 0) {
        diff->first_index = i;
        diff->a_value = a;
        diff->b_value = b;
    }
}

bool tensor_allclose(const Tensor *a, const Tensor *b, double rtol, double atol, TensorDiff *diff)
{
    TensorDiff local;
    diff = diff ? diff : &local;
    *diff = (TensorDiff){0, -1, 0.0, 0.0, 0.0};
    if (a->dtype != b->dtype || !tensor_same_shape(a, b)) {
        diff->mismatches = a->count > b->count ? a->count : b->count;
        return false;
    }
    if (dtype_is_complex(a->dtype)) { /* part by part: flat index 2i is element i's real part */
        Tensor pa, pb;
        tensor_complex_parts_view(a, &pa);
        tensor_complex_parts_view(b, &pb);
        return tensor_allclose(&pa, &pb, rtol, atol, diff);
    }
    bool exact = !dtype_is_float(a->dtype);
    for (int64_t i = 0; i < a->count; i++) {
        double va = tensor_get_f64(a, i), vb = tensor_get_f64(b, i);
        bool close = exact ? tensor_get_i64(a, i) == tensor_get_i64(b, i)
                           : values_close(va, vb, rtol, atol);
        note_element(diff, i, va, vb, close);
    }
    return diff->mismatches == 0;
}
