/* Data movement and constants: transpose, reshape, broadcast_in_dim,
 * concatenate, slice, pad, iota, full, constant, and the block copies the
 * collectives use. Each movement is one tensor_strided_copy: the output (or a block
 * of it) is walked in C order while the source is read through strides that
 * encode the op (permuted, zero for broadcast, scaled for slice strides). */
#include "shardc/kernels.h"

static TensorStatus check_axis(TensorCtx *ctx, const char *what, int64_t axis, int rank)
{
    if (axis >= 0 && axis < rank)
        return TENSOR_OK;
    return tensor_fail(ctx, TENSOR_ERR_ARG, "%s: axis %lld is out of range for rank %d", what,
                       (long long)axis, rank);
}

static char *element_at(const Tensor *t, int64_t offset)
{
    return (char *)t->data + (size_t)offset * dtype_size(t->dtype);
}

TensorStatus kern_transpose(TensorCtx *ctx, const Tensor *x, const int64_t *perm, Tensor **out)
{
    *out = NULL;
    bool seen[SHARDC_MAX_RANK] = {false};
    int64_t dims[SHARDC_MAX_RANK], src_strides[SHARDC_MAX_RANK], x_strides[SHARDC_MAX_RANK];
    tensor_shape_strides(x->rank, x->dims, x_strides);
    for (int i = 0; i < x->rank; i++) {
        TensorStatus st = check_axis(ctx, "transpose", perm[i], x->rank);
        if (st != TENSOR_OK)
            return st;
        if (seen[perm[i]])
            return tensor_fail(ctx, TENSOR_ERR_ARG, "transpose: axis %lld repeated in permutation",
                               (long long)perm[i]);
        seen[perm[i]] = true;
        dims[i] = x->dims[perm[i]];
        src_strides[i] = x_strides[perm[i]];
    }
    TensorStatus st = tensor_new_uninit(ctx, x->dtype, x->rank, dims, out);
    if (st != TENSOR_OK)
        return st;
    int64_t out_strides[SHARDC_MAX_RANK];
    tensor_shape_strides(x->rank, dims, out_strides);
    tensor_strided_copy(dtype_size(x->dtype), x->rank, dims, (*out)->data, out_strides, x->data,
                 src_strides);
    return TENSOR_OK;
}

TensorStatus kern_reshape(TensorCtx *ctx, const Tensor *x, int rank, const int64_t *dims,
                          Tensor **out)
{
    *out = NULL;
    int64_t count;
    if (rank < 0 || rank > SHARDC_MAX_RANK || !tensor_shape_count(rank, dims, &count) ||
        count != x->count)
        return tensor_fail(ctx, TENSOR_ERR_SHAPE,
                           "reshape: new shape of rank %d does not hold %lld elements", rank,
                           (long long)x->count);
    TensorStatus st = tensor_new_uninit(ctx, x->dtype, rank, dims, out);
    if (st == TENSOR_OK)
        memcpy((*out)->data, x->data, x->nbytes);
    return st;
}

/* Source strides of broadcast_in_dim over the result shape, or an error. */
static TensorStatus broadcast_strides(TensorCtx *ctx, const Tensor *x, int rank,
                                      const int64_t *dims, const int64_t *bdims,
                                      int64_t *strides)
{
    int64_t x_strides[SHARDC_MAX_RANK];
    tensor_shape_strides(x->rank, x->dims, x_strides);
    for (int d = 0; d < rank; d++)
        strides[d] = -1;
    for (int i = 0; i < x->rank; i++) {
        TensorStatus st = check_axis(ctx, "broadcast_in_dim", bdims[i], rank);
        if (st != TENSOR_OK)
            return st;
        if (strides[bdims[i]] != -1)
            return tensor_fail(ctx, TENSOR_ERR_ARG, "broadcast_in_dim: result axis %lld mapped twice",
                               (long long)bdims[i]);
        if (x->dims[i] != 1 && x->dims[i] != dims[bdims[i]])
            return tensor_fail(ctx, TENSOR_ERR_SHAPE,
                               "broadcast_in_dim: operand dim %d has size %lld, result dim %lld "
                               "has %lld", i, (long long)x->dims[i], (long long)bdims[i],
                               (long long)dims[bdims[i]]);
        strides[bdims[i]] = x->dims[i] == 1 ? 0 : x_strides[i];
    }
    for (int d = 0; d < rank; d++)
        strides[d] = strides[d] < 0 ? 0 : strides[d];
    return TENSOR_OK;
}

TensorStatus kern_broadcast_in_dim(TensorCtx *ctx, const Tensor *x, int rank,
                                   const int64_t *dims, const int64_t *bdims, Tensor **out)
{
    *out = NULL;
    if (rank < x->rank || rank > SHARDC_MAX_RANK)
        return tensor_fail(ctx, TENSOR_ERR_ARG, "broadcast_in_dim: result rank %d < operand rank %d",
                           rank, x->rank);
    int64_t src_strides[SHARDC_MAX_RANK], out_strides[SHARDC_MAX_RANK];
    TensorStatus st = broadcast_strides(ctx, x, rank, dims, bdims, src_strides);
    if (st == TENSOR_OK)
        st = tensor_new_uninit(ctx, x->dtype, rank, dims, out);
    if (st != TENSOR_OK)
        return st;
    tensor_shape_strides(rank, dims, out_strides);
    tensor_strided_copy(dtype_size(x->dtype), rank, dims, (*out)->data, out_strides, x->data,
                 src_strides);
    return TENSOR_OK;
}

/* Copy all of src into dst at `offsets` (bounds already checked). */
static void copy_block_into(Tensor *dst, const Tensor *src, const int64_t *offsets)
{
    int64_t dst_strides[SHARDC_MAX_RANK], src_strides[SHARDC_MAX_RANK];
    tensor_shape_strides(dst->rank, dst->dims, dst_strides);
    tensor_shape_strides(src->rank, src->dims, src_strides);
    int64_t base = 0;
    for (int d = 0; d < dst->rank; d++)
        base += offsets[d] * dst_strides[d];
    tensor_strided_copy(dtype_size(dst->dtype), src->rank, src->dims, element_at(dst, base),
                 dst_strides, src->data, src_strides);
}

/* Each input must match xs[0] except along `dim`; sums the sizes along it. */
static TensorStatus concat_dim_size(TensorCtx *ctx, int n, const Tensor *const *xs, int64_t dim,
                                    int64_t *total)
{
    *total = 0;
    for (int i = 0; i < n; i++) {
        bool same = xs[i]->dtype == xs[0]->dtype && xs[i]->rank == xs[0]->rank;
        for (int d = 0; same && d < xs[0]->rank; d++)
            same = d == dim || xs[i]->dims[d] == xs[0]->dims[d];
        if (!same) {
            char s0[TENSOR_TYPE_STR_SIZE], s1[TENSOR_TYPE_STR_SIZE];
            return tensor_fail(ctx, TENSOR_ERR_SHAPE, "concatenate: %s does not fit %s along axis %lld",
                               tensor_type_str(xs[i], s1), tensor_type_str(xs[0], s0),
                               (long long)dim);
        }
        *total += xs[i]->dims[dim];
    }
    return TENSOR_OK;
}

TensorStatus kern_concatenate(TensorCtx *ctx, int n, const Tensor *const *xs, int64_t dim,
                              Tensor **out)
{
    *out = NULL;
    if (n < 1)
        return tensor_fail(ctx, TENSOR_ERR_ARG, "concatenate: needs at least one operand");
    int64_t dims[SHARDC_MAX_RANK], offsets[SHARDC_MAX_RANK] = {0}, total;
    TensorStatus st = check_axis(ctx, "concatenate", dim, xs[0]->rank);
    if (st == TENSOR_OK)
        st = concat_dim_size(ctx, n, xs, dim, &total);
    if (st != TENSOR_OK)
        return st;
    for (int d = 0; d < xs[0]->rank; d++)
        dims[d] = d == dim ? total : xs[0]->dims[d];
    st = tensor_new_uninit(ctx, xs[0]->dtype, xs[0]->rank, dims, out);
    for (int i = 0; st == TENSOR_OK && i < n; i++) {
        copy_block_into(*out, xs[i], offsets);
        offsets[dim] += xs[i]->dims[dim];
    }
    return st;
}

TensorStatus kern_slice(TensorCtx *ctx, const Tensor *x, const int64_t *start,
                        const int64_t *limit, const int64_t *stride, Tensor **out)
{
    *out = NULL;
    int64_t dims[SHARDC_MAX_RANK], src_strides[SHARDC_MAX_RANK], out_strides[SHARDC_MAX_RANK];
    int64_t base = 0;
    tensor_shape_strides(x->rank, x->dims, src_strides);
    for (int d = 0; d < x->rank; d++) {
        int64_t step = stride ? stride[d] : 1;
        if (start[d] < 0 || start[d] > limit[d] || limit[d] > x->dims[d] || step < 1)
            return tensor_fail(ctx, TENSOR_ERR_ARG,
                               "slice: dim %d: start %lld, limit %lld, stride %lld invalid for "
                               "size %lld", d, (long long)start[d], (long long)limit[d],
                               (long long)step, (long long)x->dims[d]);
        dims[d] = limit[d] == start[d] ? 0 : 1 + (limit[d] - start[d] - 1) / step;
        base += start[d] * src_strides[d];
        src_strides[d] *= dims[d] > 1 ? step : 1;
    }
    TensorStatus st = tensor_new_uninit(ctx, x->dtype, x->rank, dims, out);
    if (st != TENSOR_OK)
        return st;
    tensor_shape_strides(x->rank, dims, out_strides);
    tensor_strided_copy(dtype_size(x->dtype), x->rank, dims, (*out)->data, out_strides,
                 element_at(x, base), src_strides);
    return TENSOR_OK;
}

/* A strided copy that reads each reversed dim from its end, with a
 * negative stride. */
TensorStatus kern_reverse(TensorCtx *ctx, const Tensor *x, int ndims, const int64_t *dims, Tensor **out)
{
    *out = NULL;
    int64_t src_strides[SHARDC_MAX_RANK], out_strides[SHARDC_MAX_RANK], base = 0;
    tensor_shape_strides(x->rank, x->dims, src_strides);
    for (int i = 0; i < ndims; i++) {
        int64_t d = dims[i];
        if (d < 0 || d >= x->rank || src_strides[d] < 0)
            return tensor_fail(ctx, TENSOR_ERR_ARG, "reverse: dim %lld is out of range or repeated", (long long)d);
        if (x->dims[d] > 0)
            base += (x->dims[d] - 1) * src_strides[d];
        src_strides[d] = -src_strides[d];
    }
    TensorStatus st = tensor_new_uninit(ctx, x->dtype, x->rank, x->dims, out);
    if (st != TENSOR_OK || x->count == 0)
        return st;
    tensor_shape_strides(x->rank, x->dims, out_strides);
    tensor_strided_copy(dtype_size(x->dtype), x->rank, x->dims, (*out)->data, out_strides, element_at(x, base),
                        src_strides);
    return TENSOR_OK;
}

/* The start of a dynamic slice of `size` along a dim of `dim`, clamped
 * into [0, dim - size] as StableHLO does. */
static int64_t clamp_start(int64_t start, int64_t dim, int64_t size)
{
    return start < 0 ? 0 : start > dim - size ? dim - size : start;
}

TensorStatus kern_dynamic_slice(TensorCtx *ctx, const Tensor *x, const int64_t *start, const int64_t *sizes,
                                Tensor **out)
{
    int64_t lo[SHARDC_MAX_RANK], hi[SHARDC_MAX_RANK];
    for (int d = 0; d < x->rank; d++) {
        if (sizes[d] < 0 || sizes[d] > x->dims[d]) {
            *out = NULL;
            return tensor_fail(ctx, TENSOR_ERR_ARG, "dynamic_slice: size %lld of dim %d exceeds %lld",
                               (long long)sizes[d], d, (long long)x->dims[d]);
        }
        lo[d] = clamp_start(start[d], x->dims[d], sizes[d]);
        hi[d] = lo[d] + sizes[d];
    }
    return kern_slice(ctx, x, lo, hi, NULL, out);
}

TensorStatus kern_dynamic_update_slice(TensorCtx *ctx, const Tensor *x, const Tensor *update, const int64_t *start,
                                       Tensor **out)
{
    *out = NULL;
    int64_t at[SHARDC_MAX_RANK];
    if (update->rank != x->rank || update->dtype != x->dtype)
        return tensor_fail(ctx, TENSOR_ERR_SHAPE, "dynamic_update_slice: the update's type differs from the operand's");
    for (int d = 0; d < x->rank; d++) {
        if (update->dims[d] > x->dims[d])
            return tensor_fail(ctx, TENSOR_ERR_SHAPE, "dynamic_update_slice: update dim %d exceeds the operand's", d);
        at[d] = clamp_start(start[d], x->dims[d], update->dims[d]);
    }
    TensorStatus st = tensor_clone(ctx, x, out);
    if (st == TENSOR_OK && update->count > 0)
        st = tensor_insert_block(ctx, *out, update, at);
    if (st != TENSOR_OK) {
        tensor_release(*out);
        *out = NULL;
    }
    return st;
}

/* ---- pad ------------------------------------------------------------------------ */

/* Padded size n + (n-1)*interior + low + high, or false if it overflows or is
 * negative. */
static bool padded_size(int64_t n, int64_t low, int64_t high, int64_t interior, int64_t *size)
{
    int64_t gaps, core, total;
    if (interior < 0 || interior == INT64_MAX ||
        __builtin_mul_overflow(n > 0 ? n - 1 : 0, interior, &gaps) ||
        __builtin_add_overflow(n, gaps, &core) || __builtin_add_overflow(core, low, &total) ||
        __builtin_add_overflow(total, high, &total))
        return false;
    *size = total;
    return total >= 0;
}

/* The run [first, first+count) of input indices i whose position
 * low + i*step falls inside [0, size) (negative padding crops). */
static void pad_visible(int64_t n, int64_t low, int64_t step, int64_t size, int64_t *first,
                        int64_t *count)
{
    uint64_t skip = low >= 0 ? 0 : ((uint64_t)0 - (uint64_t)low + (uint64_t)step - 1) / (uint64_t)step;
    int64_t room, last = n - 1;
    if (!__builtin_sub_overflow(size - 1, low, &room))
        last = room < 0 ? -1 : (room / step < last ? room / step : last);
    *first = skip > (uint64_t)n ? n : (int64_t)skip;
    *count = last >= *first ? last - *first + 1 : 0;
}

/* Every element of t the one at elem: doubling copies fill the buffer in
 * log2(count) memcpy calls. */
static void fill_elements(Tensor *t, const void *elem)
{
    char *data = t->data;
    size_t size = dtype_size(t->dtype), filled = size, total = t->nbytes;
    memcpy(data, elem, size);
    while (filled < total) {
        size_t chunk = filled < total - filled ? filled : total - filled;
        memcpy(data + filled, data, chunk);
        filled += chunk;
    }
}

/* out (x's dtype, dims) filled with the element at fill, then x's visible
 * elements copied in at their padded positions. */
static TensorStatus pad_into(TensorCtx *ctx, const Tensor *x, const int64_t *low, const int64_t *high,
                             const int64_t *interior, const void *fill, Tensor **out)
{
    int64_t dims[SHARDC_MAX_RANK], first[SHARDC_MAX_RANK], counts[SHARDC_MAX_RANK];
    int64_t dst_strides[SHARDC_MAX_RANK], src_strides[SHARDC_MAX_RANK], dst_base = 0, src_base = 0;
    *out = NULL;
    for (int d = 0; d < x->rank; d++) {
        int64_t in = interior ? interior[d] : 0;
        if (!padded_size(x->dims[d], low[d], high[d], in, &dims[d]))
            return tensor_fail(ctx, TENSOR_ERR_ARG,
                               "pad: dim %d: low %lld, high %lld, interior %lld give an invalid size",
                               d, (long long)low[d], (long long)high[d], (long long)in);
    }
    TensorStatus st = tensor_new_uninit(ctx, x->dtype, x->rank, dims, out);
    if (st != TENSOR_OK || (*out)->count == 0)
        return st;
    fill_elements(*out, fill);
    tensor_shape_strides(x->rank, dims, dst_strides);
    tensor_shape_strides(x->rank, x->dims, src_strides);
    for (int d = 0; d < x->rank; d++) {
        int64_t step = (interior ? interior[d] : 0) + 1;
        pad_visible(x->dims[d], low[d], step, dims[d], &first[d], &counts[d]);
        if (counts[d] == 0)
            return TENSOR_OK; /* the operand is cropped away entirely */
        src_base += first[d] * src_strides[d];
        dst_base += (low[d] + first[d] * step) * dst_strides[d];
        dst_strides[d] *= step;
    }
    tensor_strided_copy(dtype_size(x->dtype), x->rank, counts, element_at(*out, dst_base), dst_strides,
                 element_at(x, src_base), src_strides);
    return TENSOR_OK;
}

TensorStatus kern_pad(TensorCtx *ctx, const Tensor *x, const int64_t *low, const int64_t *high,
                      const int64_t *interior, TensorScalar value, Tensor **out)
{
    unsigned char fill[16];
    tensor_scalar_store(x->dtype, value, fill);
    return pad_into(ctx, x, low, high, interior, fill, out);
}

TensorStatus kern_pad_with(TensorCtx *ctx, const Tensor *x, const int64_t *low, const int64_t *high,
                           const int64_t *interior, const Tensor *value, Tensor **out)
{
    *out = NULL;
    if (value->dtype != x->dtype || value->count != 1)
        return tensor_fail(ctx, TENSOR_ERR_ARG, "pad: the padding value must be one %s, got %s of %lld elements",
                           dtype_name(x->dtype), dtype_name(value->dtype), (long long)value->count);
    return pad_into(ctx, x, low, high, interior, value->data, out);
}

/* ---- constants ------------------------------------------------------------------- */

TensorStatus kern_full(TensorCtx *ctx, DType dtype, int rank, const int64_t *dims,
                       TensorScalar value, Tensor **out)
{
    unsigned char elem[16];
    TensorStatus st = tensor_new_uninit(ctx, dtype, rank, dims, out);
    if (st != TENSOR_OK || (*out)->count == 0)
        return st;
    tensor_scalar_store(dtype, value, elem);
    fill_elements(*out, elem);
    return TENSOR_OK;
}

TensorStatus kern_constant(TensorCtx *ctx, DType dtype, int rank, const int64_t *dims, int64_t n,
                           const TensorScalar *values, Tensor **out)
{
    if (n == 1)
        return kern_full(ctx, dtype, rank, dims, values[0], out);
    TensorStatus st = tensor_new_uninit(ctx, dtype, rank, dims, out);
    if (st != TENSOR_OK)
        return st;
    if (n != (*out)->count) {
        int64_t count = (*out)->count;
        tensor_release(*out);
        *out = NULL;
        return tensor_fail(ctx, TENSOR_ERR_SHAPE, "constant: %lld values for %lld elements",
                           (long long)n, (long long)count);
    }
    for (int64_t i = 0; i < n; i++)
        tensor_scalar_store(dtype, values[i], element_at(*out, i));
    return TENSOR_OK;
}

/* A 1-d iota broadcast along `dim`: converts only dims[dim] values. */
TensorStatus kern_iota(TensorCtx *ctx, DType dtype, int rank, const int64_t *dims, int64_t dim,
                       Tensor **out)
{
    *out = NULL;
    TensorStatus st = check_axis(ctx, "iota", dim, rank);
    if (st != TENSOR_OK)
        return st;
    /* Zero elements: no line, which could be as long as 2^62 here. */
    int64_t count;
    if (tensor_shape_count(rank, dims, &count) && count == 0)
        return tensor_new_uninit(ctx, dtype, rank, dims, out);
    Tensor *line;
    if ((st = tensor_new_uninit(ctx, dtype, 1, &dims[dim], &line)) != TENSOR_OK)
        return st;
    for (int64_t i = 0; i < dims[dim]; i++)
        tensor_set_i64(line, i, i);
    st = kern_broadcast_in_dim(ctx, line, rank, dims, &dim, out);
    tensor_release(line);
    return st;
}

/* ---- blocks for collectives ----------------------------------------------------------- */

static TensorStatus check_block(TensorCtx *ctx, const char *what, const Tensor *big,
                                const int64_t *offsets, const int64_t *dims)
{
    for (int d = 0; d < big->rank; d++)
        if (offsets[d] < 0 || dims[d] < 0 || offsets[d] > big->dims[d] - dims[d])
            return tensor_fail(ctx, TENSOR_ERR_ARG,
                               "%s: block of size %lld at offset %lld exceeds dim %d of size %lld",
                               what, (long long)dims[d], (long long)offsets[d], d,
                               (long long)big->dims[d]);
    return TENSOR_OK;
}

TensorStatus tensor_extract_block(TensorCtx *ctx, const Tensor *src, const int64_t *offsets,
                                  const int64_t *dims, Tensor **out)
{
    *out = NULL;
    int64_t end[SHARDC_MAX_RANK];
    TensorStatus st = check_block(ctx, "extract_block", src, offsets, dims);
    if (st != TENSOR_OK)
        return st;
    for (int d = 0; d < src->rank; d++)
        end[d] = offsets[d] + dims[d];
    return kern_slice(ctx, src, offsets, end, NULL, out);
}

TensorStatus tensor_insert_block(TensorCtx *ctx, Tensor *dst, const Tensor *src,
                                 const int64_t *offsets)
{
    if (dst->dtype != src->dtype || dst->rank != src->rank) {
        char s0[TENSOR_TYPE_STR_SIZE], s1[TENSOR_TYPE_STR_SIZE];
        return tensor_fail(ctx, TENSOR_ERR_SHAPE, "insert_block: %s does not fit into %s",
                           tensor_type_str(src, s1), tensor_type_str(dst, s0));
    }
    TensorStatus st = check_block(ctx, "insert_block", dst, offsets, src->dims);
    if (st == TENSOR_OK)
        copy_block_into(dst, src, offsets);
    return st;
}

TensorStatus tensor_extract_padded(TensorCtx *ctx, const Tensor *src, const int64_t *offsets,
                                   const int64_t *valid, const int64_t *local_dims, Tensor **out)
{
    Tensor *block;
    TensorStatus st = tensor_extract_block(ctx, src, offsets, valid, &block);
    int64_t low[SHARDC_MAX_RANK] = {0}, high[SHARDC_MAX_RANK];
    bool padded = false;
    for (int d = 0; d < src->rank; d++) {
        high[d] = local_dims[d] - valid[d];
        padded |= high[d] != 0;
    }
    if (st != TENSOR_OK || !padded) {
        *out = block;
        return st;
    }
    st = kern_pad(ctx, block, low, high, NULL, (TensorScalar){0}, out);
    tensor_release(block);
    return st;
}

TensorStatus tensor_insert_valid(TensorCtx *ctx, Tensor *dst, const Tensor *src, const int64_t *offsets,
                                 const int64_t *valid)
{
    bool whole = true;
    int64_t start[SHARDC_MAX_RANK] = {0};
    for (int d = 0; d < src->rank; d++)
        whole &= valid[d] == src->dims[d];
    if (whole)
        return tensor_insert_block(ctx, dst, src, offsets);
    Tensor *block;
    TensorStatus st = kern_slice(ctx, src, start, valid, NULL, &block);
    if (st == TENSOR_OK)
        st = tensor_insert_block(ctx, dst, block, offsets);
    tensor_release(block);
    return st;
}
