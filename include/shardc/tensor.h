/* Dense runtime tensors for the interpreter (docs/kernels.md).
 *
 * Ownership: a Tensor is heap-allocated and reference counted. Every
 * constructor returns a tensor with one reference that the caller owns;
 * tensor_retain adds an owner, tensor_release drops one and frees the tensor
 * (struct and data) when the last owner lets go. Kernels never take ownership
 * of their inputs and always return freshly allocated outputs (except the
 * explicitly in-place tensor_insert_block and kern_accumulate). The count is
 * atomic, so simulated devices on different threads may share a tensor;
 * TensorAccounting, however, is not synchronised.
 *
 * Data is contiguous, C-order (row-major), 64-byte aligned and never NULL
 * (an empty tensor still owns a small buffer) -- except in a view
 * (tensor_view_block): a block of another tensor read in place, which
 * keeps that tensor alive. A view whose block is not contiguous is
 * `strided`: only the code that says so reads one (the einsum's BLAS path);
 * everything else first asks tensor_contiguous for a dense copy. bf16 and f16 elements are
 * stored as their uint16 bit pattern; bool elements are bytes holding 0 or 1.
 *
 * Errors: every fallible function takes a TensorCtx, returns a TensorStatus
 * and, on failure, leaves a message in ctx->msg and NULL in its outputs. No
 * function aborts on bad input. */
#ifndef SHARDC_TENSOR_H
#define SHARDC_TENSOR_H
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "shardc/dtype.h"
#include "shardc/type.h"

/* Live and peak data bytes of the tensors allocated against it (one per
 * simulated device). Updated at allocation and at the final release, without
 * locking: the allocations of one accounting object must not race. */
typedef struct TensorAccounting {
    int64_t current_bytes;
    int64_t peak_bytes;
} TensorAccounting;

typedef enum {
    TENSOR_OK = 0,
    TENSOR_ERR_SHAPE,  /* operand shapes do not fit the op */
    TENSOR_ERR_DTYPE,  /* op not defined for the element type */
    TENSOR_ERR_ARG,    /* bad attribute: axis out of range, bad einsum spec... */
    TENSOR_ERR_NOMEM,  /* allocation failed or size overflows */
    TENSOR_ERR_IO,     /* file system error */
    TENSOR_ERR_FORMAT, /* malformed .npy file */
} TensorStatus;

enum { TENSOR_MSG_SIZE = 512 };

/* Per-caller state threaded through every kernel: where allocations are
 * charged (acct may be NULL), the numeric libraries the BLAS, LAPACK and
 * FFT kernels call (kern_libs.h; NULL: those kernels fail, the others
 * work) and the message of the last failure. */
typedef struct TensorCtx {
    TensorAccounting *acct;
    struct KernLibs *libs;
    TensorStatus status;
    char msg[TENSOR_MSG_SIZE];
} TensorCtx;

void tensor_ctx_init(TensorCtx *ctx, TensorAccounting *acct);
/* Record a failure in ctx and return `status` (for `return tensor_fail(...)`). */
TensorStatus tensor_fail(TensorCtx *ctx, TensorStatus status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

typedef struct Tensor {
    DType dtype;
    int rank;                        /* 0 for scalars */
    int64_t dims[SHARDC_MAX_RANK];   /* entries past rank are 0 */
    int64_t count;                   /* number of elements (1 for scalars) */
    size_t nbytes;                   /* count * dtype_size(dtype) */
    void *data;                      /* owned, 64-byte aligned, never NULL */
    atomic_int refs;
    TensorAccounting *acct;          /* charged for nbytes; may be NULL */
    struct Tensor *base;             /* a view: the tensor whose data this reads */
    bool strided;                    /* a view that is not contiguous: read through strides */
    int64_t strides[SHARDC_MAX_RANK]; /* a strided view's element strides */
} Tensor;

/* ---- construction and lifetime ------------------------------------------ */

/* Element count of a shape; false if a dim is negative or it overflows. */
bool tensor_shape_count(int rank, const int64_t *dims, int64_t *count);
/* A zero-filled tensor. rank may be 0 (dims may then be NULL). */
TensorStatus tensor_new(TensorCtx *ctx, DType dtype, int rank, const int64_t *dims, Tensor **out);
/* Like tensor_new but the data is left uninitialised, for kernels that
 * overwrite every element. */
TensorStatus tensor_new_uninit(TensorCtx *ctx, DType dtype, int rank, const int64_t *dims,
                               Tensor **out);
TensorStatus tensor_new_for_type(TensorCtx *ctx, const TensorType *type, Tensor **out);
TensorStatus tensor_clone(TensorCtx *ctx, const Tensor *src, Tensor **out);
Tensor *tensor_retain(Tensor *t);
/* The block of src at `offsets` of `sizes` read in place: no data is
 * copied, but the view is charged its nbytes like a copy (a device holds
 * its block whether or not the simulation shares the memory). */
TensorStatus tensor_view_block(TensorCtx *ctx, Tensor *src, const int64_t *offsets, const int64_t *sizes,
                               Tensor **out);
/* Turn a strided view into a dense tensor in place: its own copy of the
 * data, the same charge, every holder seeing the change (so only the
 * thread that owns every reference may call it). A no-op on others. */
TensorStatus tensor_densify(TensorCtx *ctx, Tensor *t);
/* t itself (a new reference) unless it is a strided view: then a dense copy. */
TensorStatus tensor_contiguous(TensorCtx *ctx, Tensor *t, Tensor **out);
void tensor_release(Tensor *t);          /* NULL is a no-op */

/* ---- inspection ------------------------------------------------------------ */

bool tensor_same_shape(const Tensor *a, const Tensor *b);
bool tensor_matches_type(const Tensor *t, const TensorType *type);
enum { TENSOR_TYPE_STR_SIZE = 24 * SHARDC_MAX_RANK + 16 };
/* "f32[2,3]" into buf (TENSOR_TYPE_STR_SIZE bytes); returns buf. */
const char *tensor_type_str(const Tensor *t, char *buf);
/* C-order element strides of a shape. */
void tensor_shape_strides(int rank, const int64_t *dims, int64_t *strides);
int64_t tensor_flat_index(const Tensor *t, const int64_t *index);

/* Element access by flat index, converting with tensor_convert semantics.
 * Slow; for tests, constants and scalars, not for loops. */
double tensor_get_f64(const Tensor *t, int64_t i);
int64_t tensor_get_i64(const Tensor *t, int64_t i);
void tensor_set_f64(Tensor *t, int64_t i, double v);
void tensor_set_i64(Tensor *t, int64_t i, int64_t v);

/* ---- bf16 ------------------------------------------------------------------- */

static inline float bf16_to_f32(uint16_t bits)
{
    uint32_t u = (uint32_t)bits << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Round to nearest, ties to even; NaNs stay (quiet) NaNs of the same sign. */
static inline uint16_t f32_to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((u >> 16) | 0x0040u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

/* ---- f16 (IEEE binary16) ---------------------------------------------------- */

/* 16-bit floats are stored as bits, computed in f32 and rounded on store. */
static inline bool tensor_is_half(DType dt) { return dt == DT_BF16 || dt == DT_F16; }

/* Exact: the exponent and mantissa fields moved to f32's positions are the
 * value times 2^-112 (normals and subnormals alike); inf and NaN get f32's
 * all-ones exponent back. */
static inline float f16_to_f32(uint16_t h)
{
    uint32_t u = (uint32_t)(h & 0x7fffu) << 13;
    float f;
    memcpy(&f, &u, sizeof f);
    f *= 0x1p112f;
    memcpy(&u, &f, sizeof u);
    if ((h & 0x7c00u) == 0x7c00u)
        u |= 0x7f800000u;
    u |= (uint32_t)(h & 0x8000u) << 16;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Round to nearest, ties to even: 65520 and above become inf, values
 * below 2^-14 f16's subnormals (or zero); NaNs stay quiet NaNs of the same
 * sign. */
static inline uint16_t f32_to_f16(float f)
{
    uint32_t u, sign;
    memcpy(&u, &f, sizeof u);
    sign = (u >> 16) & 0x8000u;
    u &= 0x7fffffffu;
    if (u > 0x7f800000u)
        return (uint16_t)(sign | 0x7e00u | ((u >> 13) & 0x3ffu));
    if (u >= 0x477ff000u) /* 65520 */
        return (uint16_t)(sign | 0x7c00u);
    if (u < 0x38800000u) { /* 2^-14 */
        /* In [0.5, 1) f32's ulp is 2^-24, f16's subnormal step: the FPU's
         * own rounding of |f| + 0.5 leaves the f16 mantissa in the low bits
         * (1024 when it rounds up to the smallest normal, 0x0400). */
        float t;
        memcpy(&t, &u, sizeof t);
        t += 0.5f;
        memcpy(&u, &t, sizeof u);
        return (uint16_t)(sign | (u - 0x3f000000u));
    }
    /* Rebias the exponent by -112 and round the 13 dropped bits (a carry
     * into the exponent is the right result). */
    u += 0xc8000fffu + ((u >> 13) & 1u);
    return (uint16_t)(sign | (u >> 13));
}

/* f64 -> f16 rounded once: first to f32 rounding to odd (truncate, then set
 * the last bit if inexact), which keeps enough bits (24 >= 11 + 2) that the
 * second rounding is the correctly rounded one. */
static inline uint16_t f64_to_f16(double d)
{
    float f = (float)d;
    if ((double)f != d && d == d) {
        uint32_t u;
        memcpy(&u, &f, sizeof u);
        bool away = d > 0 ? (double)f > d : (double)f < d;
        u = (away ? u - 1u : u) | 1u;
        memcpy(&f, &u, sizeof f);
    }
    return f32_to_f16(f);
}

/* ---- scalars and conversion --------------------------------------------- */

/* An attribute-style scalar: an integer or a float literal. */
typedef struct TensorScalar {
    bool is_float;
    double f;
    int64_t i;
} TensorScalar;

static inline TensorScalar scalar_float(double f) { return (TensorScalar){true, f, 0}; }
static inline TensorScalar scalar_int(int64_t i) { return (TensorScalar){false, 0.0, i}; }
/* Store s as one element of dtype at dst, with tensor_convert semantics. */
void tensor_scalar_store(DType dtype, TensorScalar s, void *dst);

/* Elementwise dtype conversion (the IR's convert). float->int truncates toward
 * zero and saturates (to 0 for a negative value into u32), NaN->0; int->int
 * wraps (two's complement, so i32 -1 -> u32 4294967295); anything->bool is
 * x != 0 (NaN is true); bool->x is 0/1; f64->f16 rounds once; int->bf16/f16
 * and f64->bf16 go through f32. */
TensorStatus tensor_convert(TensorCtx *ctx, const Tensor *x, DType to, Tensor **out);
void tensor_convert_elements(DType from, const void *src, DType to, void *dst, int64_t n);

/* ---- vectorisable loops ----------------------------------------------------- */

/* Run the statement block `...` for i in [0, n): in fixed blocks of
 * TENSOR_VECTOR_BLOCK, then a scalar tail. GCC's -O2 cost model vectorises
 * only loops that need no scalar epilogue, which the constant-trip inner
 * loop provides; with restrict-qualified function parameters (an alias check
 * would also be refused) this gives SIMD code without -O3. */
enum { TENSOR_VECTOR_BLOCK = 16 };
#define TENSOR_VECTOR_LOOP(n, ...)                                                  \
    do {                                                                            \
        int64_t vl_base_ = 0;                                                       \
        for (; vl_base_ + TENSOR_VECTOR_BLOCK <= (n); vl_base_ += TENSOR_VECTOR_BLOCK) \
            for (int vl_j_ = 0; vl_j_ < TENSOR_VECTOR_BLOCK; vl_j_++) {             \
                int64_t i = vl_base_ + vl_j_;                                       \
                __VA_ARGS__                                                         \
            }                                                                       \
        for (int64_t i = vl_base_; i < (n); i++)                                    \
            __VA_ARGS__                                                             \
    } while (0)

/* ---- complex ------------------------------------------------------------------ */

/* A 16-byte element (c128) moved as a whole by the copy loops. */
typedef struct TensorElem16 {
    uint64_t half[2];
} TensorElem16;

/* A complex tensor read as its parts: a rank-1 tensor of the part type
 * (f32 for c64, f64 for c128) and twice the count, real and imaginary
 * parts interleaved, sharing t's data (no reference is taken: *view lives
 * no longer than t and is never released). Other tensors are copied as
 * they are. For comparing results component by component. */
void tensor_complex_parts_view(const Tensor *t, Tensor *view);

/* ---- strided iteration ------------------------------------------------------ */

enum { NDITER_MAX_DIMS = 32, NDITER_MAX_OPS = 4 };

/* An index space walked in C order, with per-operand element strides (0 to
 * broadcast). Dims of size 1 are dropped and adjacent dims merged when every
 * operand allows it, so same-shape contiguous operands become one long row. */
typedef struct NdIter {
    int rank, nops;
    int64_t dims[NDITER_MAX_DIMS];
    int64_t strides[NDITER_MAX_OPS][NDITER_MAX_DIMS];
} NdIter;

/* Called once per innermost row: offsets[op] is the element offset of the
 * row start, strides[op] the element stride along the row, n its length. */
typedef void (*NdRowFn)(void *user, const int64_t *offsets, const int64_t *strides, int64_t n);

void nditer_init(NdIter *it, int rank, const int64_t *dims, int nops,
                 const int64_t strides[][NDITER_MAX_DIMS]);
void nditer_run(const NdIter *it, NdRowFn row, void *user);

/* Strides that read t broadcast (NumPy, right-aligned) to a shape of `rank`. */
void tensor_broadcast_strides(const Tensor *t, int rank, const int64_t *dims, int64_t *strides);
/* dst[i] = src[i] over a shape, both given as base pointers + element strides. */
void tensor_strided_copy(size_t elem_size, int rank, const int64_t *dims, void *dst,
                  const int64_t *dst_strides, const void *src, const int64_t *src_strides);

#endif
