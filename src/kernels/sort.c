/* sort, argmax and top_k. The sorted axis is first moved last (a transpose)
 * so each lane is a contiguous row; rows are ordered by a stable bottom-up
 * merge sort of indices, so ties keep their original order. bf16 and f16
 * keys are compared as f32. */
#include "shardc/kernels.h"
#include <stdlib.h>

/* True if element i must come before element j. */
typedef bool (*BeforeFn)(const void *keys, int64_t i, int64_t j);

/* Ascending puts NaN last; "greater first" ranks NaN above everything. The
 * NaN terms fold away for integer types. */
#define KEY_ORDERS(DT, T)                                                            \
    static bool ascending_##DT(const void *keys, int64_t i, int64_t j)               \
    {                                                                                \
        const T *x = keys;                                                           \
        return x[i] < x[j] || (x[j] != x[j] && x[i] == x[i]);                        \
    }                                                                                \
    static bool greater_##DT(const void *keys, int64_t i, int64_t j)                 \
    {                                                                                \
        const T *x = keys;                                                           \
        return x[i] > x[j] || (x[i] != x[i] && x[j] == x[j]);                        \
    }
KEY_ORDERS(F32, float)
KEY_ORDERS(F64, double)
KEY_ORDERS(I8, int8_t)
KEY_ORDERS(I32, int32_t)
KEY_ORDERS(I64, int64_t)
KEY_ORDERS(U32, uint32_t)
KEY_ORDERS(U64, uint64_t)
KEY_ORDERS(BOOL, uint8_t)

/* bf16 and f16 keys are widened to f32 before sorting, hence their F32
 * entries. */
#define KEY_ORDER_TABLE(ORDER)                                                       \
    {                                                                                \
        [DT_F32] = ORDER##_F32, [DT_F64] = ORDER##_F64, [DT_BF16] = ORDER##_F32,     \
        [DT_F16] = ORDER##_F32, [DT_I8] = ORDER##_I8, [DT_I32] = ORDER##_I32,        \
        [DT_I64] = ORDER##_I64, [DT_U32] = ORDER##_U32, [DT_BOOL] = ORDER##_BOOL,    \
        [DT_U64] = ORDER##_U64,                                                      \
    }
static const BeforeFn ascending_fns[DT_COUNT] = KEY_ORDER_TABLE(ascending);
static const BeforeFn greater_fns[DT_COUNT] = KEY_ORDER_TABLE(greater);

typedef struct Order {
    BeforeFn before;
    const void *keys; /* the current row */
} Order;

static void merge_runs(const int64_t *src, int64_t *dst, int64_t lo, int64_t mid, int64_t hi,
                       KernBeforeFn before, void *user)
{
    int64_t i = lo, j = mid, k = lo;
    /* Take from the right run only when strictly before: keeps stability. */
    while (i < mid && j < hi)
        dst[k++] = before(user, src[j], src[i]) ? src[j++] : src[i++];
    while (i < mid)
        dst[k++] = src[i++];
    while (j < hi)
        dst[k++] = src[j++];
}

void kern_stable_sort_indices(int64_t *idx, int64_t *tmp, int64_t n, KernBeforeFn before, void *user)
{
    int64_t *src = idx, *dst = tmp;
    for (int64_t i = 0; i < n; i++)
        idx[i] = i;
    for (int64_t width = 1; width < n; width *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * width) {
            int64_t mid = lo + width < n ? lo + width : n;
            int64_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            merge_runs(src, dst, lo, mid, hi, before, user);
        }
        int64_t *swap = src;
        src = dst;
        dst = swap;
    }
    if (src != idx)
        memcpy(idx, src, (size_t)n * sizeof *idx);
}

static bool order_before(void *user, int64_t i, int64_t j)
{
    const Order *o = user;
    return o->before(o->keys, i, j);
}

/* Sort idx[0..n) = 0..n-1 by o; tmp has room for n entries. */
static void stable_sort(int64_t *idx, int64_t *tmp, int64_t n, const Order *o)
{
    kern_stable_sort_indices(idx, tmp, n, order_before, (void *)o);
}

static void gather_row(char *dst, const char *src, const int64_t *idx, int64_t n, size_t size)
{
    for (int64_t i = 0; i < n; i++)
        memcpy(dst + (size_t)i * size, src + (size_t)idx[i] * size, size);
}

/* ---- lanes ------------------------------------------------------------------------ */

/* x with axis `dim` moved last (or x itself, retained); inverse=true undoes it. */
static TensorStatus move_axis(TensorCtx *ctx, const Tensor *x, int64_t dim, bool inverse,
                              Tensor **out)
{
    if (dim == x->rank - 1) {
        *out = tensor_retain((Tensor *)x);
        return TENSOR_OK;
    }
    int64_t perm[SHARDC_MAX_RANK];
    for (int d = 0, k = 0; d < x->rank; d++)
        if (d != dim)
            perm[k++] = d;
    perm[x->rank - 1] = dim;
    if (inverse) {
        int64_t inv[SHARDC_MAX_RANK];
        for (int d = 0; d < x->rank; d++)
            inv[perm[d]] = d;
        return kern_transpose(ctx, x, inv, out);
    }
    return kern_transpose(ctx, x, perm, out);
}

/* Rows of a tensor whose lanes run along its last axis, with keys to compare
 * them by (x itself, or its f32 widening for bf16). */
typedef struct Lanes {
    Tensor *values, *keys;
    int64_t rows, len;
    int64_t *idx, *tmp;
} Lanes;

static void lanes_free(Lanes *l)
{
    tensor_release(l->values);
    tensor_release(l->keys);
    free(l->idx);
    free(l->tmp);
}

static TensorStatus lanes_open(TensorCtx *ctx, const char *what, const Tensor *x, int64_t dim,
                               Lanes *l)
{
    *l = (Lanes){0};
    if (dim < 0 || dim >= x->rank)
        return tensor_fail(ctx, TENSOR_ERR_ARG, "%s: axis %lld is out of range for rank %d", what,
                           (long long)dim, x->rank);
    TensorStatus st = move_axis(ctx, x, dim, false, &l->values);
    if (st == TENSOR_OK && tensor_is_half(x->dtype))
        st = tensor_convert(ctx, l->values, DT_F32, &l->keys);
    else if (st == TENSOR_OK)
        l->keys = tensor_retain(l->values);
    if (st != TENSOR_OK) {
        lanes_free(l);
        return st;
    }
    l->len = x->dims[dim];
    l->rows = l->len ? x->count / l->len : 0;
    l->idx = malloc((size_t)(l->len + 1) * sizeof *l->idx);
    l->tmp = malloc((size_t)(l->len + 1) * sizeof *l->tmp);
    if (!l->idx || !l->tmp) {
        lanes_free(l);
        return tensor_fail(ctx, TENSOR_ERR_NOMEM, "%s: out of memory", what);
    }
    return TENSOR_OK;
}

static const char *row_ptr(const Tensor *t, int64_t row, int64_t len)
{
    return (const char *)t->data + (size_t)(row * len) * dtype_size(t->dtype);
}

static void reverse(int64_t *idx, int64_t n)
{
    for (int64_t i = 0, j = n - 1; i < j; i++, j--) {
        int64_t t = idx[i];
        idx[i] = idx[j];
        idx[j] = t;
    }
}

/* ---- kernels ----------------------------------------------------------------------- */

TensorStatus kern_sort(TensorCtx *ctx, const Tensor *x, int64_t dim, bool descending,
                       Tensor **out)
{
    *out = NULL;
    Lanes l;
    Tensor *sorted;
    TensorStatus st = lanes_open(ctx, "sort", x, dim, &l);
    if (st != TENSOR_OK)
        return st;
    if ((st = tensor_new_uninit(ctx, x->dtype, x->rank, l.values->dims, &sorted)) == TENSOR_OK) {
        size_t size = dtype_size(x->dtype);
        for (int64_t r = 0; r < l.rows; r++) {
            Order o = {ascending_fns[x->dtype], row_ptr(l.keys, r, l.len)};
            stable_sort(l.idx, l.tmp, l.len, &o);
            if (descending)
                reverse(l.idx, l.len);
            gather_row((char *)row_ptr(sorted, r, l.len), row_ptr(l.values, r, l.len), l.idx, l.len,
                       size);
        }
        st = move_axis(ctx, sorted, dim, true, out);
        tensor_release(sorted);
    }
    lanes_free(&l);
    return st;
}

static int64_t row_argmax(const Order *o, int64_t n)
{
    int64_t best = 0;
    for (int64_t i = 1; i < n; i++)
        if (o->before(o->keys, i, best))
            best = i;
    return best;
}

static TensorStatus check_i32_len(TensorCtx *ctx, const char *what, int64_t len)
{
    if (len <= INT32_MAX)
        return TENSOR_OK;
    return tensor_fail(ctx, TENSOR_ERR_SHAPE, "%s: axis of size %lld does not fit i32 indices",
                       what, (long long)len);
}

TensorStatus kern_argmax(TensorCtx *ctx, const Tensor *x, int64_t dim, Tensor **out)
{
    *out = NULL;
    Lanes l;
    TensorStatus st = lanes_open(ctx, "argmax", x, dim, &l);
    if (st != TENSOR_OK)
        return st;
    if (l.len == 0)
        st = tensor_fail(ctx, TENSOR_ERR_SHAPE, "argmax: axis %lld is empty", (long long)dim);
    if (st == TENSOR_OK)
        st = check_i32_len(ctx, "argmax", l.len);
    if (st == TENSOR_OK)
        st = tensor_new_uninit(ctx, DT_I32, x->rank - 1, l.values->dims, out);
    for (int64_t r = 0; st == TENSOR_OK && r < l.rows; r++) {
        Order o = {greater_fns[x->dtype], row_ptr(l.keys, r, l.len)};
        ((int32_t *)(*out)->data)[r] = (int32_t)row_argmax(&o, l.len);
    }
    lanes_free(&l);
    return st;
}

static void top_k_rows(const Lanes *l, int64_t k, DType dtype, Tensor *values, Tensor *indices)
{
    size_t size = dtype_size(dtype);
    int32_t *ind = indices->data;
    for (int64_t r = 0; r < l->rows; r++) {
        Order o = {greater_fns[dtype], row_ptr(l->keys, r, l->len)};
        stable_sort(l->idx, l->tmp, l->len, &o);
        gather_row((char *)row_ptr(values, r, k), row_ptr(l->values, r, l->len), l->idx, k, size);
        for (int64_t i = 0; i < k; i++)
            ind[r * k + i] = (int32_t)l->idx[i];
    }
}

TensorStatus kern_top_k(TensorCtx *ctx, const Tensor *x, int64_t k, Tensor **values,
                        Tensor **indices)
{
    *values = *indices = NULL;
    Lanes l;
    TensorStatus st = lanes_open(ctx, "top_k", x, x->rank - 1, &l);
    if (st != TENSOR_OK)
        return st;
    if (k < 0 || k > l.len)
        st = tensor_fail(ctx, TENSOR_ERR_ARG, "top_k: k = %lld is outside [0, %lld]", (long long)k,
                         (long long)l.len);
    if (st == TENSOR_OK)
        st = check_i32_len(ctx, "top_k", l.len);
    int64_t dims[SHARDC_MAX_RANK];
    memcpy(dims, x->dims, sizeof dims);
    dims[x->rank > 0 ? x->rank - 1 : 0] = k;
    if (st == TENSOR_OK && (st = tensor_new_uninit(ctx, x->dtype, x->rank, dims, values)) == TENSOR_OK &&
        (st = tensor_new_uninit(ctx, DT_I32, x->rank, dims, indices)) != TENSOR_OK) {
        tensor_release(*values);
        *values = NULL;
    }
    if (st == TENSOR_OK)
        top_k_rows(&l, k, x->dtype, *values, *indices);
    lanes_free(&l);
    return st;
}
