/* Op kernels of the interpreter, with NumPy/JAX semantics (docs/kernels.md).
 *
 * Every kernel reads its input tensors (never taking ownership) and returns a
 * freshly allocated output with one reference in *out, or a TensorStatus
 * with a message in ctx->msg and *out == NULL. The only in-place kernels are
 * kern_accumulate and tensor_insert_block. Axis and size attributes are
 * int64_t, as the IR stores them; axes must lie in [0, rank). bf16 and f16
 * inputs are computed in f32 and rounded to nearest-even on store; integer
 * arithmetic wraps; u32 divides, compares and sorts as unsigned. */
#ifndef SHARDC_KERNELS_H
#define SHARDC_KERNELS_H
#include <stdbool.h>
#include <stdint.h>
#include "shardc/gather.h"
#include "shardc/lapack.h"
#include "shardc/tensor.h"
#include "shardc/window.h"

/* ---- elementwise (kernel_elementwise.c) --------------------------------- */

/* X(enum, spelling) */
#define KERN_UNARY_OPS(X)                                                       \
    X(UN_NEG, "neg") X(UN_ABS, "abs") X(UN_SIGN, "sign") X(UN_FLOOR, "floor")  \
    X(UN_CEIL, "ceil") X(UN_NOT, "not") X(UN_EXP, "exp") X(UN_LOG, "log")      \
    X(UN_TANH, "tanh") X(UN_SIN, "sin") X(UN_COS, "cos") X(UN_SQRT, "sqrt")    \
    X(UN_RSQRT, "rsqrt") X(UN_RELU, "relu") X(UN_GELU, "gelu")                 \
    X(UN_GELU_ERF, "gelu_erf") X(UN_LOGISTIC, "logistic")                      \
    X(UN_ROUND_NEAREST_EVEN, "round_nearest_even") X(UN_EXPM1, "expm1")        \
    X(UN_LOG1P, "log1p") X(UN_ERF, "erf")

typedef enum {
#define X(e, s) e,
    KERN_UNARY_OPS(X)
#undef X
    UN_COUNT
} UnaryOp;

#define KERN_BINARY_OPS(X)                                                      \
    X(BIN_ADD, "add") X(BIN_SUB, "sub") X(BIN_MUL, "mul") X(BIN_DIV, "div")    \
    X(BIN_REM, "rem") X(BIN_MAX, "max") X(BIN_MIN, "min") X(BIN_POW, "pow")    \
    X(BIN_AND, "and") X(BIN_OR, "or") X(BIN_XOR, "xor") X(BIN_ATAN2, "atan2")  \
    X(BIN_SHIFT_LEFT, "shift_left") X(BIN_SHIFT_RIGHT_LOGICAL, "shift_right_logical") \
    X(BIN_SHIFT_RIGHT_ARITHMETIC, "shift_right_arithmetic")

typedef enum {
#define X(e, s) e,
    KERN_BINARY_OPS(X)
#undef X
    BIN_COUNT
} BinaryOp;

#define KERN_COMPARE_OPS(X)                                                     \
    X(CMP_EQ, "eq") X(CMP_NE, "ne") X(CMP_LT, "lt") X(CMP_LE, "le")            \
    X(CMP_GT, "gt") X(CMP_GE, "ge")

typedef enum {
#define X(e, s) e,
    KERN_COMPARE_OPS(X)
#undef X
    CMP_COUNT
} CompareOp;

const char *kern_unary_op_name(UnaryOp op);
const char *kern_binary_op_name(BinaryOp op);
const char *kern_compare_op_name(CompareOp op);
/* Spelling -> op; false if unknown. */
bool kern_unary_op_lookup(const char *name, UnaryOp *out);
bool kern_binary_op_lookup(const char *name, BinaryOp *out);
bool kern_compare_op_lookup(const char *name, CompareOp *out);

/* Transcendental ops (exp log tanh sin cos sqrt rsqrt gelu gelu_erf
 * logistic expm1 log1p erf) and round_nearest_even need a float dtype; neg abs sign relu floor ceil also take ints
 * (abs signed ones only, as lax.abs); not takes ints (bitwise) and bool
 * (logical). UN_GELU is jax.nn.gelu's
 * default tanh approximation, UN_GELU_ERF the exact erf form. */
TensorStatus kern_unary(TensorCtx *ctx, UnaryOp op, const Tensor *x, Tensor **out);
TensorStatus kern_gelu(TensorCtx *ctx, const Tensor *x, bool approximate, Tensor **out);
/* bool: x is neither infinite nor NaN (floats only). */
TensorStatus kern_is_finite(TensorCtx *ctx, const Tensor *x, Tensor **out);
/* The bits of x read as `dtype`, which has the same byte size (not bool). */
TensorStatus kern_bitcast_convert(TensorCtx *ctx, const Tensor *x, DType dtype, Tensor **out);
/* Same dtypes, NumPy broadcasting; result has the operands' dtype. The
 * shifts (integers only) give 0 for a shift count outside [0, bit width)
 * (shift_right_arithmetic: -1 for a negative operand), as StableHLO;
 * shift_right_arithmetic of u32 shifts in the top bit. atan2 is float only;
 * and, or, xor take integers and bool. */
TensorStatus kern_binary(TensorCtx *ctx, BinaryOp op, const Tensor *a, const Tensor *b,
                         Tensor **out);
/* dst = op(dst, src) in place; same dtype and shape (for collectives). */
TensorStatus kern_accumulate(TensorCtx *ctx, BinaryOp op, Tensor *dst, const Tensor *src);
/* Same dtypes, NumPy broadcasting; bool result, IEEE NaN semantics. */
/* compare with StableHLO's compare_type TOTALORDER: floats in the total
 * order -NaN < -Inf < ... < -0 < +0 < ... < +Inf < +NaN (other types as
 * kern_compare). */
TensorStatus kern_compare_total(TensorCtx *ctx, CompareOp op, const Tensor *a, const Tensor *b, Tensor **out);
TensorStatus kern_compare(TensorCtx *ctx, CompareOp op, const Tensor *a, const Tensor *b,
                          Tensor **out);
/* pred (bool) ? on_true : on_false, all three broadcast together. */
TensorStatus kern_select(TensorCtx *ctx, const Tensor *pred, const Tensor *on_true,
                         const Tensor *on_false, Tensor **out);
/* The NumPy broadcast shape of n tensors, or TENSOR_ERR_SHAPE naming `what`. */
TensorStatus kern_broadcast_shape(TensorCtx *ctx, const char *what, int n,
                                  const Tensor *const *xs, int *rank, int64_t *dims);
/* The IR's convert is tensor_convert (tensor.h). */

/* ---- contraction (kernel_dot.c) ------------------------------------------ */

typedef enum {
    EINSUM_AUTO,    /* BLAS for f32/f64/bf16/f16 batched matmuls, loops otherwise */
    EINSUM_GENERIC, /* always the loop nest (reference for tests) */
} EinsumPath;

/* spec like "bh,hf->bf" or "ij->ji" for 1 or 2 operands of one dtype;
 * lower-case labels; labels missing from the output are summed; a label
 * repeated within an operand takes its diagonal; without "->" the output is
 * the labels used exactly once, in alphabetical order. */
TensorStatus kern_einsum(TensorCtx *ctx, const char *spec, int n, const Tensor *const *operands,
                         Tensor **out);
TensorStatus kern_einsum_path(TensorCtx *ctx, const char *spec, int n,
                              const Tensor *const *operands, EinsumPath path, Tensor **out);

/* ---- reductions (kernel_reduce.c) ---------------------------------------- */

typedef enum { RED_SUM, RED_MAX, RED_MIN, RED_MEAN, RED_COUNT } ReduceOp;

/* Reduce over `ndims` distinct axes (the result drops them). Accumulates in
 * the element type (f32 for bf16 and f16) in C order; max/min propagate NaN;
 * empty reductions give the identity (0; for max -inf or the type's least
 * value, false for bool; for min +inf or its greatest, true);
 * mean is float-only. bool: sum and max are OR, min is AND. */
TensorStatus kern_reduce(TensorCtx *ctx, ReduceOp op, const Tensor *x, int ndims,
                         const int64_t *dims, Tensor **out);

/* How two tensors differ (for comparing a partitioned run to the reference). */
typedef struct TensorDiff {
    int64_t mismatches;   /* elements failing |a-b| <= atol + rtol*|b| */
    int64_t first_index;  /* flat index of the first mismatch, or -1 */
    double max_abs_err;   /* over elements where both are finite */
    double a_value, b_value; /* at first_index */
} TensorDiff;

/* numpy.allclose(a, b, rtol, atol, equal_nan=True) for float tensors of the
 * same dtype and shape; int and bool tensors must match exactly. A dtype or
 * shape mismatch is false with every element counted. diff may be NULL.
 * Complex tensors are compared part by part (tensor_complex_parts_view):
 * mismatches and indices count parts, 2i and 2i+1 being element i's. */
bool tensor_allclose(const Tensor *a, const Tensor *b, double rtol, double atol, TensorDiff *diff);

/* ---- data movement (kernel_shape.c) -------------------------------------- */

/* out.dims[i] = x.dims[perm[i]]. */
TensorStatus kern_transpose(TensorCtx *ctx, const Tensor *x, const int64_t *perm, Tensor **out);
TensorStatus kern_reshape(TensorCtx *ctx, const Tensor *x, int rank, const int64_t *dims,
                          Tensor **out);
/* Operand dim i maps to result dim bdims[i] (strictly increasing not
 * required, distinct required); its size must be 1 or the result's. */
TensorStatus kern_broadcast_in_dim(TensorCtx *ctx, const Tensor *x, int rank,
                                   const int64_t *dims, const int64_t *bdims, Tensor **out);
TensorStatus kern_concatenate(TensorCtx *ctx, int n, const Tensor *const *xs, int64_t dim,
                              Tensor **out);
/* lax.slice: 0 <= start <= limit <= dim; stride >= 1 (NULL: all 1). */
TensorStatus kern_slice(TensorCtx *ctx, const Tensor *x, const int64_t *start,
                        const int64_t *limit, const int64_t *stride, Tensor **out);
/* lax.rev: the `ndims` distinct `dims` reversed. */
TensorStatus kern_reverse(TensorCtx *ctx, const Tensor *x, int ndims, const int64_t *dims, Tensor **out);
/* StableHLO dynamic_slice: the block of `sizes` at `start`, each start
 * clamped into [0, dim - size]. */
TensorStatus kern_dynamic_slice(TensorCtx *ctx, const Tensor *x, const int64_t *start, const int64_t *sizes,
                                Tensor **out);
/* StableHLO dynamic_update_slice: x with `update` written at `start`,
 * clamped as for dynamic_slice. */
TensorStatus kern_dynamic_update_slice(TensorCtx *ctx, const Tensor *x, const Tensor *update, const int64_t *start,
                                       Tensor **out);
/* StableHLO gather: the result (rank, dims) of the windows the indices
 * start, each start clamped into [0, dim - slice size]. */
TensorStatus kern_gather(TensorCtx *ctx, const Tensor *x, const Tensor *idx, const GatherDims *g, int rank,
                         const int64_t *dims, Tensor **out);
/* A scatter's update computation: a binary op of (current, update), or
 * the update itself. */
typedef enum { SCATTER_ADD, SCATTER_MUL, SCATTER_MAX, SCATTER_MIN, SCATTER_AND, SCATTER_OR, SCATTER_REPLACE } ScatterCombiner;
bool kern_scatter_combiner_lookup(const char *name, ScatterCombiner *out);
/* Calls visit(user, o, u) for each update element, in the updates' order,
 * with u its flat offset in upd and o that of its target in x (windows
 * reaching outside x skipped): a scatter with any update computation.
 * A visit returning false stops the walk (TENSOR_ERR_ARG). */
typedef bool (*ScatterVisit)(void *user, int64_t o, int64_t u);
TensorStatus kern_scatter_walk(TensorCtx *ctx, const Tensor *x, const Tensor *idx, const Tensor *upd,
                               const GatherDims *g, ScatterVisit visit, void *user);
/* StableHLO scatter: x with each update window combined in at its start,
 * in the updates' order; a window reaching out of x is skipped (XLA). */
TensorStatus kern_scatter(TensorCtx *ctx, const Tensor *x, const Tensor *idx, const Tensor *upd,
                          const GatherDims *g, ScatterCombiner c, Tensor **out);
/* StableHLO convolution (window.c): im2col and a BLAS gemm per group and
 * output image, in f32 (f64 for f64 and integers), rounded once to the
 * operands' type; out_dims the result's. */
TensorStatus kern_convolution(TensorCtx *ctx, const Tensor *x, const Tensor *k, const ConvDims *d,
                              const WindowDims *w, int64_t feature_groups, int64_t batch_groups,
                              const int64_t *out_dims, Tensor **out);
typedef enum { WINDOW_SUM, WINDOW_MAX, WINDOW_MIN } WindowReduction;
/* reduce_window: each window reduced from init (a one-element tensor of
 * x's dtype), which padding and dilation holes hold too (StableHLO pads
 * the input with it); NULL: the reduction's identity. */
TensorStatus kern_reduce_window(TensorCtx *ctx, const Tensor *x, WindowReduction r, const Tensor *init,
                                const WindowDims *w, const int64_t *out_dims, Tensor **out);
/* select_and_scatter's select: `compare DIR, current, next` keeps the
 * current element (StableHLO's select region of one compare). */
typedef enum { WINDOW_SELECT_GE, WINDOW_SELECT_GT, WINDOW_SELECT_LE, WINDOW_SELECT_LT } WindowSelect;
/* select_and_scatter with scatter `add`: init (a one-element tensor of x's
 * dtype, NULL: 0) everywhere, each source element added at the element
 * its window selects, walking the window in row-major order (`ge`: the
 * first greatest, a max-pool's gradient; `gt`: the last greatest). */
TensorStatus kern_select_and_scatter(TensorCtx *ctx, const Tensor *x, const Tensor *src, const Tensor *init,
                                     const WindowDims *w, WindowSelect select, Tensor **out);
/* lax.pad: low/high may be negative (crop); interior >= 0 (NULL: all 0). */
TensorStatus kern_pad(TensorCtx *ctx, const Tensor *x, const int64_t *low, const int64_t *high,
                      const int64_t *interior, TensorScalar value, Tensor **out);
/* kern_pad with the padding value a one-element tensor of x's dtype
 * (StableHLO's operand; exact for every dtype). */
TensorStatus kern_pad_with(TensorCtx *ctx, const Tensor *x, const int64_t *low, const int64_t *high,
                           const int64_t *interior, const Tensor *value, Tensor **out);
/* Element = its index along `dim`, converted to dtype. */
TensorStatus kern_iota(TensorCtx *ctx, DType dtype, int rank, const int64_t *dims, int64_t dim,
                       Tensor **out);
TensorStatus kern_full(TensorCtx *ctx, DType dtype, int rank, const int64_t *dims,
                       TensorScalar value, Tensor **out);
/* n == 1 splats values[0]; otherwise n must equal the element count. */
TensorStatus kern_constant(TensorCtx *ctx, DType dtype, int rank, const int64_t *dims, int64_t n,
                           const TensorScalar *values, Tensor **out);
/* The block of src at `offsets` with shape `dims` (for collectives). */
TensorStatus tensor_extract_block(TensorCtx *ctx, const Tensor *src, const int64_t *offsets,
                                  const int64_t *dims, Tensor **out);
/* Overwrite the block of dst at `offsets` with src (same dtype and rank). */
TensorStatus tensor_insert_block(TensorCtx *ctx, Tensor *dst, const Tensor *src,
                                 const int64_t *offsets);
/* A padded shard (sharding_block): the `valid` elements of src at
 * `offsets`, zero-padded at the high end to `local_dims`. */
TensorStatus tensor_extract_padded(TensorCtx *ctx, const Tensor *src, const int64_t *offsets,
                                   const int64_t *valid, const int64_t *local_dims, Tensor **out);
/* Insert only the first `valid` elements per dim of src (a padded shard). */
TensorStatus tensor_insert_valid(TensorCtx *ctx, Tensor *dst, const Tensor *src, const int64_t *offsets,
                                 const int64_t *valid);

/* ---- sorting (kernel_sort.c) --------------------------------------------- */

/* True if element i must come before element j. */
typedef bool (*KernBeforeFn)(void *user, int64_t i, int64_t j);
/* Stable bottom-up merge sort of idx = 0..n-1 by before; tmp holds n
 * entries (sort with a comparator region runs it too). */
void kern_stable_sort_indices(int64_t *idx, int64_t *tmp, int64_t n, KernBeforeFn before, void *user);
/* Stable sort along dim, NaN last; descending is the reverse of ascending
 * (jnp.sort(descending=True)), so NaN comes first there. */
TensorStatus kern_sort(TensorCtx *ctx, const Tensor *x, int64_t dim, bool descending,
                       Tensor **out);
/* i32 index of the maximum along dim (dim dropped); first occurrence wins;
 * the first NaN counts as the maximum. */
TensorStatus kern_argmax(TensorCtx *ctx, const Tensor *x, int64_t dim, Tensor **out);
/* The k largest along the last dim, descending, with their i32 indices;
 * ties keep the lower index first; NaN ranks above +inf. */
TensorStatus kern_top_k(TensorCtx *ctx, const Tensor *x, int64_t k, Tensor **values,
                        Tensor **indices);

/* ---- linear algebra and batch norm (linalg.c, batch_norm.c) ------------- */

/* The last two dims are matrices, the others batch dims. Floats only:
 * f32 and f64 through LAPACK/BLAS in their own precision, bf16 and f16
 * through f32. */

/* stablehlo.cholesky: L with L·Lᵀ = A (lower) or U with Uᵀ·U = A, the
 * other triangle zero (as jnp.linalg.cholesky). A matrix that is not
 * positive definite gives NaNs, not an error (as JAX on CPU). */
TensorStatus kern_cholesky(TensorCtx *ctx, const Tensor *a, bool lower, Tensor **out);

typedef enum { KERN_NO_TRANSPOSE, KERN_TRANSPOSE, KERN_ADJOINT } KernTranspose;

typedef struct KernTriangularSolve {
    bool left_side, lower, unit_diagonal;
    KernTranspose transpose_a; /* ADJOINT is TRANSPOSE on real matrices */
} KernTriangularSolve;

/* stablehlo.triangular_solve: X with op(A)·X = B (left_side) or
 * X·op(A) = B, reading only A's `lower` (else upper) triangle, its
 * diagonal taken as ones if unit_diagonal. */
TensorStatus kern_triangular_solve(TensorCtx *ctx, const Tensor *a, const Tensor *b,
                                   const KernTriangularSolve *opts, Tensor **out);

/* stablehlo.batch_norm_*: statistics per index of dim `feature` over all
 * other dims (the biased variance); computed in f64, stored in the
 * operand's type. */
TensorStatus kern_batch_norm_inference(TensorCtx *ctx, Tensor *const in[5], double epsilon, int64_t feature,
                                       Tensor **out);
/* in: operand, scale, offset; out: output, batch_mean, batch_var. */
TensorStatus kern_batch_norm_training(TensorCtx *ctx, Tensor *const in[3], double epsilon, int64_t feature,
                                      Tensor *out[3]);
/* in: operand, scale, mean, variance, grad_output; out: grad_operand,
 * grad_scale, grad_offset (StableHLO's formula, from XLA's
 * batchnorm_expander). */
TensorStatus kern_batch_norm_grad(TensorCtx *ctx, Tensor *const in[5], double epsilon, int64_t feature,
                                  Tensor *out[3]);

/* A JAX lapack_*_ffi custom_call (lapack.c): the target, its
 * backend_config letters (uplo 'L'/'U', mode, side, trans_x, diag) and
 * the op's result types (gesdd's u and vt shapes depend on its mode). */
typedef struct KernLapack {
    LapackTarget target;
    char uplo, mode, side, trans_x, diag;
    const TensorType *result_types;
} KernLapack;

/* The routine on every matrix of the batch (the leading dims); results as
 * jaxlib's FFI handlers give them, LAPACK's info as i32 per matrix. */
TensorStatus kern_lapack(TensorCtx *ctx, const KernLapack *call, Tensor *const *in, Tensor **out);

/* ---- complex numbers and the FFT (complex.c, fft.c) ----------------------- */

/* real and imag: the parts of a c64/c128 tensor as f32/f64 (of a float
 * tensor, itself and zeros); complex: re + i*im of two same-shape f32 or
 * f64 tensors. */
TensorStatus kern_real(TensorCtx *ctx, const Tensor *x, Tensor **out);
TensorStatus kern_imag(TensorCtx *ctx, const Tensor *x, Tensor **out);
TensorStatus kern_complex(TensorCtx *ctx, const Tensor *re, const Tensor *im, Tensor **out);

/* StableHLO's fft_type. */
typedef enum { KERN_FFT, KERN_IFFT, KERN_RFFT, KERN_IRFFT } KernFftType;
bool kern_fft_type_lookup(const char *name, KernFftType *out);
/* The n-dimensional DFT (n = 1..3) over x's last n dims, of the given
 * lengths, every leading index a batch (numpy.fft.fftn/ifftn/rfftn/irfftn
 * over axes -n..-1, with FFTW): FFT/IFFT complex to complex (IFFT divided
 * by the product of the lengths), RFFT real to the half spectrum (last dim
 * lengths[n-1] / 2 + 1), IRFFT that half spectrum back to real (the
 * imaginary parts of its zero and Nyquist terms ignored). x's transformed
 * dims must be lengths (for IRFFT: the last one lengths[n-1] / 2 + 1). */
TensorStatus kern_fft(TensorCtx *ctx, const Tensor *x, KernFftType type, int n, const int64_t *lengths,
                      Tensor **out);
/* ---- rng_bit_generator (random_bits.c) ------------------------------------ */

/* Threefry-2x32 with 20 rounds (Random123's threefry2x32): out = the
 * cipher of ctr under key. */
void kern_threefry2x32(const uint32_t key[2], const uint32_t ctr[2], uint32_t out[2]);
/* Philox-4x32 with 10 rounds (Random123's philox4x32): out = the cipher
 * of ctr under key. */
void kern_philox4x32(const uint32_t key[2], const uint32_t ctr[4], uint32_t out[4]);

/* A block of rng_bit_generator's bits: the whole output's shape, this
 * block's start in it and its own shape (a padded shard may reach past the
 * shape: those elements are zeros), the element type (8, 16, 32 or 64
 * bits), and the algorithm (PHILOX, else THREE_FRY). */
typedef struct RngBitsRequest {
    DType dtype;
    int rank;
    const int64_t *global_dims, *offsets, *local_dims;
    bool philox;
} RngBitsRequest;

/* StableHLO rng_bit_generator as XLA computes it: THREE_FRY with state
 * u64[2] = [key, counter], PHILOX with u64[2] or u64[3] = [key, counter
 * low, counter high]; new_state = the key and the counter advanced by the
 * generator calls of the whole output; every block of the same request
 * gives the bits of the whole output at its place. */
TensorStatus kern_rng_bit_generator(TensorCtx *ctx, const Tensor *state, const RngBitsRequest *req,
                                    Tensor **new_state, Tensor **bits);

/* ---- deterministic random data (rng.c) ----------------------------------- */

/* 64 random bits that depend only on (seed, stream, index). */
uint64_t rng_bits(uint64_t seed, uint64_t stream, uint64_t index);
/* Fill t: element i gets rng_bits(seed, stream, i) mapped to floats uniform
 * in [-1, 1) (f16 on the grid k * 2^-10), signed ints uniform in [-8, 8),
 * u32 in [0, 16), bools 50/50. */
void rng_fill(Tensor *t, uint64_t seed, uint64_t stream);
TensorStatus kern_random(TensorCtx *ctx, DType dtype, int rank, const int64_t *dims,
                         uint64_t seed, uint64_t stream, Tensor **out);

#endif
