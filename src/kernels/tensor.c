/* Tensor allocation, lifetime, element access, dtype conversion and the
 * strided iteration every kernel is built on. */
#include "shardc/tensor.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "shardc/checked.h"

enum { TENSOR_ALIGN = 64 };

void tensor_ctx_init(TensorCtx *ctx, TensorAccounting *acct)
{
    ctx->acct = acct;
    ctx->libs = NULL;
    ctx->status = TENSOR_OK;
    ctx->msg[0] = '\0';
}

TensorStatus tensor_fail(TensorCtx *ctx, TensorStatus status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->msg, sizeof ctx->msg, fmt, ap);
    va_end(ap);
    ctx->status = status;
    return status;
}

/* ---- construction and lifetime ------------------------------------------ */

bool tensor_shape_count(int rank, const int64_t *dims, int64_t *count)
{
    for (int i = 0; i < rank; i++)
        if (dims[i] < 0)
            return false;
    return size_product(dims, rank, count);
}

static void account_alloc(TensorAccounting *acct, size_t nbytes)
{
    if (!acct)
        return;
    acct->current_bytes += (int64_t)nbytes;
    if (acct->current_bytes > acct->peak_bytes)
        acct->peak_bytes = acct->current_bytes;
}

static TensorStatus check_shape(TensorCtx *ctx, DType dtype, int rank, const int64_t *dims,
                                int64_t *count)
{
    if (rank < 0 || rank > SHARDC_MAX_RANK)
        return tensor_fail(ctx, TENSOR_ERR_ARG, "rank %d is outside [0, %d]", rank,
                           SHARDC_MAX_RANK);
    if (!tensor_shape_count(rank, dims, count))
        return tensor_fail(ctx, TENSOR_ERR_SHAPE, "shape has a negative dim or too many elements");
    if (*count > (int64_t)(PTRDIFF_MAX / 2 / dtype_size(dtype)))
        return tensor_fail(ctx, TENSOR_ERR_NOMEM, "tensor of %lld elements is too large",
                           (long long)*count);
    return TENSOR_OK;
}

TensorStatus tensor_new_uninit(TensorCtx *ctx, DType dtype, int rank, const int64_t *dims,
                               Tensor **out)
{
    *out = NULL;
    int64_t count;
    TensorStatus st = check_shape(ctx, dtype, rank, dims, &count);
    if (st != TENSOR_OK)
        return st;
    size_t nbytes = (size_t)count * dtype_size(dtype);
    size_t alloc = (nbytes + TENSOR_ALIGN) & ~(size_t)(TENSOR_ALIGN - 1);
    Tensor *t = calloc(1, sizeof *t);
    if (!t || posix_memalign(&t->data, TENSOR_ALIGN, alloc) != 0) {
        free(t);
        return tensor_fail(ctx, TENSOR_ERR_NOMEM, "out of memory allocating %zu bytes", nbytes);
    }
    t->dtype = dtype;
    t->rank = rank;
    for (int i = 0; i < rank; i++)
        t->dims[i] = dims[i];
    t->count = count;
    t->nbytes = nbytes;
    atomic_init(&t->refs, 1);
    t->acct = ctx->acct;
    account_alloc(t->acct, nbytes);
    *out = t;
    return TENSOR_OK;
}

TensorStatus tensor_new(TensorCtx *ctx, DType dtype, int rank, const int64_t *dims, Tensor **out)
{
    TensorStatus st = tensor_new_uninit(ctx, dtype, rank, dims, out);
    if (st == TENSOR_OK)
        memset((*out)->data, 0, (*out)->nbytes);
    return st;
}

TensorStatus tensor_new_for_type(TensorCtx *ctx, const TensorType *type, Tensor **out)
{
    return tensor_new(ctx, type->dtype, type->rank, type->dims, out);
}

TensorStatus tensor_clone(TensorCtx *ctx, const Tensor *src, Tensor **out)
{
    TensorStatus st = tensor_new_uninit(ctx, src->dtype, src->rank, src->dims, out);
    if (st == TENSOR_OK)
        memcpy((*out)->data, src->data, src->nbytes);
    return st;
}

Tensor *tensor_retain(Tensor *t)
{
    atomic_fetch_add(&t->refs, 1);
    return t;
}

void tensor_release(Tensor *t)
{
    if (!t || atomic_fetch_sub(&t->refs, 1) != 1)
        return;
    if (t->acct)
        t->acct->current_bytes -= (int64_t)t->nbytes;
    if (t->base)
        tensor_release(t->base);
    else
        free(t->data);
    free(t);
}

/* ---- views ------------------------------------------------------------------- */

/* Whether a block of `dims` read through `strides` is C-order contiguous
 * (dims of size 1 may have any stride). */
static bool strides_dense(int rank, const int64_t *dims, const int64_t *strides)
{
    int64_t want = 1;
    for (int d = rank - 1; d >= 0; d--) {
        if (dims[d] != 1 && strides[d] != want)
            return false;
        want *= dims[d];
    }
    return true;
}

TensorStatus tensor_view_block(TensorCtx *ctx, Tensor *src, const int64_t *offsets, const int64_t *sizes,
                               Tensor **out)
{
    *out = NULL;
    int64_t count, strides[SHARDC_MAX_RANK], at = 0;
    TensorStatus st = check_shape(ctx, src->dtype, src->rank, sizes, &count);
    if (st != TENSOR_OK)
        return st;
    if (src->strided)
        memcpy(strides, src->strides, sizeof strides);
    else
        tensor_shape_strides(src->rank, src->dims, strides);
    for (int d = 0; d < src->rank; d++)
        at += count ? offsets[d] * strides[d] : 0;
    Tensor *t = calloc(1, sizeof *t);
    if (!t)
        return tensor_fail(ctx, TENSOR_ERR_NOMEM, "out of memory");
    t->dtype = src->dtype;
    t->rank = src->rank;
    memcpy(t->dims, sizes, (size_t)src->rank * sizeof *sizes);
    memcpy(t->strides, strides, sizeof strides);
    t->count = count;
    t->nbytes = (size_t)count * dtype_size(src->dtype);
    t->data = (char *)src->data + at * (int64_t)dtype_size(src->dtype);
    t->strided = !strides_dense(src->rank, sizes, strides);
    t->base = tensor_retain(src->base ? src->base : src); /* the owner of the memory */
    atomic_init(&t->refs, 1);
    t->acct = ctx->acct;
    account_alloc(t->acct, t->nbytes);
    *out = t;
    return TENSOR_OK;
}

TensorStatus tensor_densify(TensorCtx *ctx, Tensor *t)
{
    if (!t->strided)
        return TENSOR_OK;
    size_t alloc = (t->nbytes + TENSOR_ALIGN) & ~(size_t)(TENSOR_ALIGN - 1);
    void *data;
    if (posix_memalign(&data, TENSOR_ALIGN, alloc) != 0)
        return tensor_fail(ctx, TENSOR_ERR_NOMEM, "out of memory allocating %zu bytes", t->nbytes);
    int64_t dense[SHARDC_MAX_RANK];
    tensor_shape_strides(t->rank, t->dims, dense);
    if (t->count)
        tensor_strided_copy(dtype_size(t->dtype), t->rank, t->dims, data, dense, t->data, t->strides);
    tensor_release(t->base);
    t->base = NULL;
    t->data = data;
    t->strided = false;
    return TENSOR_OK;
}

TensorStatus tensor_contiguous(TensorCtx *ctx, Tensor *t, Tensor **out)
{
    if (!t->strided) {
        *out = tensor_retain(t);
        return TENSOR_OK;
    }
    TensorStatus st = tensor_new_uninit(ctx, t->dtype, t->rank, t->dims, out);
    if (st != TENSOR_OK)
        return st;
    int64_t dense[SHARDC_MAX_RANK];
    tensor_shape_strides(t->rank, t->dims, dense);
    if (t->count)
        tensor_strided_copy(dtype_size(t->dtype), t->rank, t->dims, (*out)->data, dense, t->data, t->strides);
    return TENSOR_OK;
}

/* ---- inspection ------------------------------------------------------------ */

bool tensor_same_shape(const Tensor *a, const Tensor *b)
{
    if (a->rank != b->rank)
        return false;
    for (int i = 0; i < a->rank; i++)
        if (a->dims[i] != b->dims[i])
            return false;
    return true;
}

bool tensor_matches_type(const Tensor *t, const TensorType *type)
{
    if (t->dtype != type->dtype || t->rank != type->rank)
        return false;
    for (int i = 0; i < t->rank; i++)
        if (t->dims[i] != type->dims[i])
            return false;
    return true;
}

const char *tensor_type_str(const Tensor *t, char *buf)
{
    size_t len = (size_t)snprintf(buf, TENSOR_TYPE_STR_SIZE, "%s[", dtype_name(t->dtype));
    for (int i = 0; i < t->rank && len < TENSOR_TYPE_STR_SIZE; i++)
        len += (size_t)snprintf(buf + len, TENSOR_TYPE_STR_SIZE - len, "%s%lld", i ? "," : "",
                                (long long)t->dims[i]);
    if (len < TENSOR_TYPE_STR_SIZE)
        snprintf(buf + len, TENSOR_TYPE_STR_SIZE - len, "]");
    return buf;
}

void tensor_shape_strides(int rank, const int64_t *dims, int64_t *strides)
{
    int64_t s = 1;
    for (int i = rank - 1; i >= 0; i--) {
        strides[i] = s;
        s *= dims[i];
    }
}

int64_t tensor_flat_index(const Tensor *t, const int64_t *index)
{
    int64_t flat = 0;
    for (int i = 0; i < t->rank; i++)
        flat = flat * t->dims[i] + index[i];
    return flat;
}

static void *element_ptr(const Tensor *t, int64_t i)
{
    return (char *)t->data + (size_t)i * dtype_size(t->dtype);
}

double tensor_get_f64(const Tensor *t, int64_t i)
{
    double v;
    tensor_convert_elements(t->dtype, element_ptr(t, i), DT_F64, &v, 1);
    return v;
}

int64_t tensor_get_i64(const Tensor *t, int64_t i)
{
    int64_t v;
    tensor_convert_elements(t->dtype, element_ptr(t, i), DT_I64, &v, 1);
    return v;
}

void tensor_set_f64(Tensor *t, int64_t i, double v)
{
    tensor_convert_elements(DT_F64, &v, t->dtype, element_ptr(t, i), 1);
}

void tensor_set_i64(Tensor *t, int64_t i, int64_t v)
{
    tensor_convert_elements(DT_I64, &v, t->dtype, element_ptr(t, i), 1);
}

/* ---- conversion -------------------------------------------------------------- */

/* C leaves out-of-range float->int conversions undefined; XLA saturates and
 * maps NaN to 0, so do that explicitly. x >= HI (the first value past the
 * range) gives MAX, x <= LO (the last value before it, or MIN itself where
 * that is not a double) MIN; in between, truncation toward zero fits. */
#define DEFINE_SAT(S, T, MIN, MAX, LO, HI)                                         \
    static inline T sat_##S(double x)                                              \
    {                                                                              \
        if (x != x)                                                                \
            return 0;                                                              \
        if (x >= (HI))                                                             \
            return MAX;                                                            \
        if (x <= (LO))                                                             \
            return MIN;                                                            \
        return (T)x;                                                               \
    }
DEFINE_SAT(i64, int64_t, INT64_MIN, INT64_MAX, -9223372036854775808.0, 9223372036854775808.0)
DEFINE_SAT(i32, int32_t, INT32_MIN, INT32_MAX, -2147483649.0, 2147483648.0)
DEFINE_SAT(i8, int8_t, INT8_MIN, INT8_MAX, -129.0, 128.0)
DEFINE_SAT(u32, uint32_t, 0, UINT32_MAX, -1.0, 4294967296.0)
DEFINE_SAT(u64, uint64_t, 0, UINT64_MAX, -1.0, 18446744073709551616.0)

/* Narrowing goes through unsigned types so it wraps instead of trapping. */
static inline int32_t wrap_i32(int64_t x) { return (int32_t)(uint32_t)(uint64_t)x; }
static inline int64_t wrap_i64(int64_t x) { return x; }
static inline int8_t wrap_i8(int64_t x) { return (int8_t)(uint8_t)(uint64_t)x; }
static inline uint32_t wrap_u32(int64_t x) { return (uint32_t)(uint64_t)x; }
static inline uint64_t wrap_u64(uint64_t x) { return x; }

#define TO_F32(x) ((float)(x))
#define TO_F64(x) ((double)(x))
#define TO_I32(x) _Generic((x), float: sat_i32, double: sat_i32, default: wrap_i32)(x)
#define TO_I64(x) _Generic((x), float: sat_i64, double: sat_i64, default: wrap_i64)(x)
#define TO_I8(x) _Generic((x), float: sat_i8, double: sat_i8, default: wrap_i8)(x)
#define TO_U32(x) _Generic((x), float: sat_u32, double: sat_u32, default: wrap_u32)(x)
#define TO_U64(x) _Generic((x), float: sat_u64, double: sat_u64, default: wrap_u64)(x)
#define TO_BOOL(x) ((uint8_t)((x) != 0))

/* Storage types of the dtypes converted directly (bf16 and f16 go through
 * f32), listed twice because a macro cannot expand itself while nested. */
#define CVT_SOURCES(X)                                                            \
    X(F32, float) X(F64, double) X(I8, int8_t) X(I32, int32_t) X(I64, int64_t)     \
    X(U32, uint32_t) X(U64, uint64_t) X(BOOL, uint8_t)
#define CVT_TARGETS(X, SN, ST)                                                    \
    X(F32, float, SN, ST) X(F64, double, SN, ST) X(I8, int8_t, SN, ST)             \
    X(I32, int32_t, SN, ST) X(I64, int64_t, SN, ST) X(U32, uint32_t, SN, ST)        \
    X(U64, uint64_t, SN, ST) X(BOOL, uint8_t, SN, ST)

#define CVT_LOOP(DN, DT, SN, ST)                                                   \
    static void cvt_##SN##_##DN(const void *restrict src, void *restrict dst, int64_t n) \
    {                                                                              \
        const ST *s = src;                                                         \
        DT *d = dst;                                                               \
        TENSOR_VECTOR_LOOP(n, { d[i] = TO_##DN(s[i]); });                          \
    }
#define CVT_FROM(SN, ST) CVT_TARGETS(CVT_LOOP, SN, ST)
CVT_SOURCES(CVT_FROM)

typedef void (*ConvertFn)(const void *src, void *dst, int64_t n);

#define CVT_ENTRY(DN, DT, SN, ST) [DT_##SN][DT_##DN] = cvt_##SN##_##DN,
#define CVT_ROW(SN, ST) CVT_TARGETS(CVT_ENTRY, SN, ST)
static const ConvertFn convert_table[DT_COUNT][DT_COUNT] = {CVT_SOURCES(CVT_ROW)};

static void to_f32(DType from, const void *restrict src, float *restrict dst, int64_t n)
{
    const uint16_t *s = src;
    if (from == DT_BF16)
        TENSOR_VECTOR_LOOP(n, { dst[i] = bf16_to_f32(s[i]); });
    else if (from == DT_F16)
        TENSOR_VECTOR_LOOP(n, { dst[i] = f16_to_f32(s[i]); });
    else
        convert_table[from][DT_F32](src, dst, n);
}

static void from_f32(const float *restrict src, DType to, void *restrict dst, int64_t n)
{
    uint16_t *d = dst;
    if (to == DT_BF16)
        TENSOR_VECTOR_LOOP(n, { d[i] = f32_to_bf16(src[i]); });
    else if (to == DT_F16)
        TENSOR_VECTOR_LOOP(n, { d[i] = f32_to_f16(src[i]); });
    else
        convert_table[DT_F32][to](src, dst, n);
}

/* Through f32 f64 would round twice. */
static void f64_to_f16_loop(const double *restrict src, uint16_t *restrict dst, int64_t n)
{
    TENSOR_VECTOR_LOOP(n, { dst[i] = f64_to_f16(src[i]); });
}

enum { CVT_CHUNK = 1024 };

static void convert_via_f32(DType from, const char *src, DType to, char *dst, int64_t n)
{
    float buf[CVT_CHUNK];
    size_t in_size = dtype_size(from), out_size = dtype_size(to);
    for (int64_t done = 0; done < n; done += CVT_CHUNK) {
        int64_t m = n - done < CVT_CHUNK ? n - done : CVT_CHUNK;
        to_f32(from, src + (size_t)done * in_size, buf, m);
        from_f32(buf, to, dst + (size_t)done * out_size, m);
    }
}

/* m elements of `from` as c128 pairs in buf (2m doubles): a real value
 * gets a zero imaginary part. Spread backwards in place, since 2i >= i. */
static void to_c128(DType from, const char *src, double *buf, int64_t m)
{
    if (from == DT_C128) {
        memcpy(buf, src, (size_t)m * 2 * sizeof(double));
    } else if (from == DT_C64) {
        const float *s = (const float *)(const void *)src;
        for (int64_t i = 0; i < 2 * m; i++)
            buf[i] = s[i];
    } else {
        tensor_convert_elements(from, src, DT_F64, buf, m);
        for (int64_t i = m - 1; i >= 0; i--) {
            buf[2 * i] = buf[i];
            buf[2 * i + 1] = 0.0;
        }
    }
}

/* The pairs in buf as `to`: a real type keeps the real part (as XLA's
 * convert does; the verifier asks for `real` instead). */
static void from_c128(double *buf, DType to, char *dst, int64_t m)
{
    if (to == DT_C128) {
        memcpy(dst, buf, (size_t)m * 2 * sizeof(double));
    } else if (to == DT_C64) {
        float *d = (float *)(void *)dst;
        for (int64_t i = 0; i < 2 * m; i++)
            d[i] = (float)buf[i];
    } else {
        for (int64_t i = 0; i < m; i++)
            buf[i] = buf[2 * i];
        tensor_convert_elements(DT_F64, buf, to, dst, m);
    }
}

static void convert_via_c128(DType from, const char *src, DType to, char *dst, int64_t n)
{
    double buf[2 * CVT_CHUNK];
    size_t in_size = dtype_size(from), out_size = dtype_size(to);
    for (int64_t done = 0; done < n; done += CVT_CHUNK) {
        int64_t m = n - done < CVT_CHUNK ? n - done : CVT_CHUNK;
        to_c128(from, src + (size_t)done * in_size, buf, m);
        from_c128(buf, to, dst + (size_t)done * out_size, m);
    }
}

/* src and dst must not overlap unless from == to. */
void tensor_convert_elements(DType from, const void *src, DType to, void *dst, int64_t n)
{
    /* A token's one byte (always 0) reads and writes as a bool's. */
    from = from == DT_TOKEN ? DT_BOOL : from;
    to = to == DT_TOKEN ? DT_BOOL : to;
    if (from == to)
        memmove(dst, src, (size_t)n * dtype_size(from));
    else if (dtype_is_complex(from) || dtype_is_complex(to))
        convert_via_c128(from, src, to, dst, n);
    else if (from == DT_F64 && to == DT_F16)
        f64_to_f16_loop(src, dst, n);
    else if (tensor_is_half(from) || tensor_is_half(to))
        convert_via_f32(from, src, to, dst, n);
    else
        convert_table[from][to](src, dst, n);
}

TensorStatus tensor_convert(TensorCtx *ctx, const Tensor *x, DType to, Tensor **out)
{
    TensorStatus st = tensor_new_uninit(ctx, to, x->rank, x->dims, out);
    if (st == TENSOR_OK)
        tensor_convert_elements(x->dtype, x->data, to, (*out)->data, x->count);
    return st;
}

void tensor_scalar_store(DType dtype, TensorScalar s, void *dst)
{
    if (s.is_float)
        tensor_convert_elements(DT_F64, &s.f, dtype, dst, 1);
    else
        tensor_convert_elements(DT_I64, &s.i, dtype, dst, 1);
}

/* ---- strided iteration ------------------------------------------------------ */

static bool can_merge(const NdIter *it, const int64_t strides[][NDITER_MAX_DIMS],
                      const int64_t *dims, int d)
{
    int prev = it->rank - 1;
    for (int op = 0; op < it->nops; op++)
        if (it->strides[op][prev] != strides[op][d] * dims[d])
            return false;
    return true;
}

void nditer_init(NdIter *it, int rank, const int64_t *dims, int nops,
                 const int64_t strides[][NDITER_MAX_DIMS])
{
    it->nops = nops;
    it->rank = 0;
    for (int d = 0; d < rank; d++) {
        if (dims[d] == 1)
            continue;
        bool merge = it->rank > 0 && can_merge(it, strides, dims, d);
        int r = merge ? it->rank - 1 : it->rank++;
        it->dims[r] = merge ? it->dims[r] * dims[d] : dims[d];
        for (int op = 0; op < nops; op++)
            it->strides[op][r] = strides[op][d];
    }
    if (it->rank == 0) {
        it->rank = 1;
        it->dims[0] = 1;
        for (int op = 0; op < nops; op++)
            it->strides[op][0] = 0;
    }
}

/* Step the outer index (all dims but the last) like an odometer; false once
 * it wraps around. */
static bool nditer_advance(const NdIter *it, int64_t *idx, int64_t *off)
{
    for (int d = it->rank - 2; d >= 0; d--) {
        idx[d]++;
        for (int op = 0; op < it->nops; op++)
            off[op] += it->strides[op][d];
        if (idx[d] < it->dims[d])
            return true;
        for (int op = 0; op < it->nops; op++)
            off[op] -= it->strides[op][d] * it->dims[d];
        idx[d] = 0;
    }
    return false;
}

void nditer_run(const NdIter *it, NdRowFn row, void *user)
{
    for (int d = 0; d < it->rank; d++)
        if (it->dims[d] == 0)
            return;
    int inner = it->rank - 1;
    int64_t idx[NDITER_MAX_DIMS] = {0}, off[NDITER_MAX_OPS] = {0}, step[NDITER_MAX_OPS];
    for (int op = 0; op < it->nops; op++)
        step[op] = it->strides[op][inner];
    do
        row(user, off, step, it->dims[inner]);
    while (nditer_advance(it, idx, off));
}

void tensor_broadcast_strides(const Tensor *t, int rank, const int64_t *dims, int64_t *strides)
{
    int64_t own[SHARDC_MAX_RANK];
    tensor_shape_strides(t->rank, t->dims, own);
    int lead = rank - t->rank;
    for (int d = 0; d < rank; d++) {
        int s = d - lead;
        strides[d] = (s < 0 || (t->dims[s] == 1 && dims[d] != 1)) ? 0 : own[s];
    }
}

typedef struct CopyJob {
    char *dst;
    const char *src;
    size_t size;
} CopyJob;

#define COPY_ROW(T)                                                                \
    static void copy_row_##T(CopyJob *job, const int64_t *off, const int64_t *st,  \
                             int64_t n)                                            \
    {                                                                              \
        T *d = (T *)(void *)job->dst + off[0];                                     \
        const T *s = (const T *)(const void *)job->src + off[1];                   \
        for (int64_t i = 0; i < n; i++)                                            \
            d[i * st[0]] = s[i * st[1]];                                           \
    }
COPY_ROW(uint8_t)
COPY_ROW(uint16_t)
COPY_ROW(uint32_t)
COPY_ROW(uint64_t)
COPY_ROW(TensorElem16)

static void copy_row(void *user, const int64_t *off, const int64_t *st, int64_t n)
{
    CopyJob *job = user;
    if (st[0] == 1 && st[1] == 1) {
        /* signed: reversed dims give negative offsets (from the last element) */
        int64_t size = (int64_t)job->size;
        memcpy(job->dst + off[0] * size, job->src + off[1] * size, (size_t)n * job->size);
        return;
    }
    switch (job->size) {
    case 1: copy_row_uint8_t(job, off, st, n); break;
    case 2: copy_row_uint16_t(job, off, st, n); break;
    case 4: copy_row_uint32_t(job, off, st, n); break;
    case 16: copy_row_TensorElem16(job, off, st, n); break; /* c128 */
    default: copy_row_uint64_t(job, off, st, n); break;
    }
}

void tensor_strided_copy(size_t elem_size, int rank, const int64_t *dims, void *dst,
                  const int64_t *dst_strides, const void *src, const int64_t *src_strides)
{
    int64_t strides[2][NDITER_MAX_DIMS];
    for (int d = 0; d < rank; d++) {
        strides[0][d] = dst_strides[d];
        strides[1][d] = src_strides[d];
    }
    NdIter it;
    nditer_init(&it, rank, dims, 2, strides);
    CopyJob job = {dst, src, elem_size};
    nditer_run(&it, copy_row, &job);
}

/* ---- complex ------------------------------------------------------------------ */

void tensor_complex_parts_view(const Tensor *t, Tensor *view)
{
    memset(view, 0, sizeof *view);
    bool parts = dtype_is_complex(t->dtype) && !t->strided;
    view->dtype = parts ? dtype_complex_part(t->dtype) : t->dtype;
    view->rank = parts ? 1 : t->rank;
    if (parts)
        view->dims[0] = 2 * t->count;
    else
        memcpy(view->dims, t->dims, sizeof view->dims);
    view->count = parts ? 2 * t->count : t->count;
    view->nbytes = t->nbytes;
    view->data = t->data;
    view->strided = t->strided;
    memcpy(view->strides, t->strides, sizeof view->strides);
}
