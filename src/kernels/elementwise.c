/* Elementwise kernels: unary math, binary arithmetic with NumPy broadcasting,
 * comparisons, select and in-place accumulation.
 *
 * Each (op, dtype) pair gets its own loop, generated from the expression
 * lists below, so GCC sees a plain loop over one type it can vectorise.
 * Binary loops take a stride per operand: 1 on the same-shape fast path,
 * 0 for a broadcast operand. Integer arithmetic goes through the unsigned
 * type of the same width, so overflow wraps instead of being undefined; u32
 * has its own lists (unsigned division, compare and pow, no abs). bf16 and
 * f16 are widened to f32, computed, and rounded back. */
#include "shardc/kernels.h"
#include "kernels/vecmath.h"
#include <tgmath.h>

#define UNUSED_TYPEDEF __attribute__((unused))

/* ---- op names ------------------------------------------------------------ */

static const char *const unary_names[] = {
#define X(e, s) [e] = s,
    KERN_UNARY_OPS(X)
#undef X
};
static const char *const binary_names[] = {
#define X(e, s) [e] = s,
    KERN_BINARY_OPS(X)
#undef X
};
static const char *const compare_names[] = {
#define X(e, s) [e] = s,
    KERN_COMPARE_OPS(X)
#undef X
};

const char *kern_unary_op_name(UnaryOp op) { return unary_names[op]; }
const char *kern_binary_op_name(BinaryOp op) { return binary_names[op]; }
const char *kern_compare_op_name(CompareOp op) { return compare_names[op]; }

static bool lookup_name(const char *const *names, int count, const char *name, int *out)
{
    for (int i = 0; i < count; i++) {
        if (strcmp(names[i], name) == 0) {
            *out = i;
            return true;
        }
    }
    return false;
}

bool kern_unary_op_lookup(const char *name, UnaryOp *out)
{
    int i;
    bool ok = lookup_name(unary_names, UN_COUNT, name, &i);
    if (ok)
        *out = (UnaryOp)i;
    return ok;
}

bool kern_binary_op_lookup(const char *name, BinaryOp *out)
{
    int i;
    bool ok = lookup_name(binary_names, BIN_COUNT, name, &i);
    if (ok)
        *out = (BinaryOp)i;
    return ok;
}

bool kern_compare_op_lookup(const char *name, CompareOp *out)
{
    int i;
    bool ok = lookup_name(compare_names, CMP_COUNT, name, &i);
    if (ok)
        *out = (CompareOp)i;
    return ok;
}

/* ---- element expressions ------------------------------------------------- */
/* In these lists v is the unary operand, a and b the binary ones, E the
 * element type and UE the unsigned type of the same width (ints only). */

/* exp, tanh and logistic: f32 through the vectorisable shardc/vecmath.h
 * (about 1 ulp; docs/kernels.md), f64 through libm. */
static double libm_exp(double v) { return exp(v); }
static double libm_tanh(double v) { return tanh(v); }
static double libm_logistic(double v) { return 1 / (1 + exp(-v)); }
#define EXP_OF(v) _Generic((v), float: vm_expf, default: libm_exp)(v)
#define TANH_OF(v) _Generic((v), float: vm_tanhf, default: libm_tanh)(v)
#define LOGISTIC_OF(v) _Generic((v), float: vm_logisticf, default: libm_logistic)(v)

/* jax.nn.gelu(approximate=True): x * 0.5 * (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */
#define GELU_TANH(v)                                                                \
    (v * ((E)0.5 * ((E)1 + TANH_OF((E)0.79788456080286535588 * (v + (E)0.044715 * (v * v * v))))))
/* jax.nn.gelu(approximate=False): x * (erf(x / sqrt 2) + 1) / 2 */
#define GELU_ERF(v) (v * (erf(v / (E)1.41421356237309504880) + (E)1) / (E)2)

#define FLOAT_UNARY_OPS(X, ...)                                                     \
    X(NEG, -v, __VA_ARGS__)                                                         \
    X(ABS, fabs(v), __VA_ARGS__)                                                    \
    X(SIGN, (v > 0 ? (E)1 : v < 0 ? (E)-1 : v), __VA_ARGS__)                        \
    X(FLOOR, floor(v), __VA_ARGS__)                                                 \
    X(CEIL, ceil(v), __VA_ARGS__)                                                   \
    X(EXP, EXP_OF(v), __VA_ARGS__)                                                  \
    X(LOG, log(v), __VA_ARGS__)                                                     \
    X(TANH, TANH_OF(v), __VA_ARGS__)                                                \
    X(SIN, sin(v), __VA_ARGS__)                                                     \
    X(COS, cos(v), __VA_ARGS__)                                                     \
    X(SQRT, sqrt(v), __VA_ARGS__)                                                   \
    X(RSQRT, (E)1 / sqrt(v), __VA_ARGS__)                                           \
    X(RELU, ((v > 0 || v != v) ? v : (E)0), __VA_ARGS__)                            \
    X(GELU, GELU_TANH(v), __VA_ARGS__)                                              \
    X(GELU_ERF, GELU_ERF(v), __VA_ARGS__)                                           \
    X(LOGISTIC, LOGISTIC_OF(v), __VA_ARGS__)                                        \
    X(ROUND_NEAREST_EVEN, rint(v), __VA_ARGS__)                                     \
    X(EXPM1, expm1(v), __VA_ARGS__)                                                 \
    X(LOG1P, log1p(v), __VA_ARGS__)                                                 \
    X(ERF, erf(v), __VA_ARGS__)

#define INT_UNARY_OPS(X, ...)                                                       \
    X(NEG, (E)((UE)0 - (UE)v), __VA_ARGS__)                                         \
    X(ABS, (v < 0 ? (E)((UE)0 - (UE)v) : v), __VA_ARGS__)                           \
    X(SIGN, (E)((v > 0) - (v < 0)), __VA_ARGS__)                                    \
    X(FLOOR, v, __VA_ARGS__)                                                        \
    X(CEIL, v, __VA_ARGS__)                                                         \
    X(NOT, (E)~(UE)v, __VA_ARGS__)                                                  \
    X(RELU, (v > 0 ? v : (E)0), __VA_ARGS__)

/* jax.lax.sign of an unsigned value is 0 or 1; lax.abs refuses unsigned
 * types; neg wraps. */
#define UINT_UNARY_OPS(X, ...)                                                      \
    X(NEG, (E)((E)0 - v), __VA_ARGS__)                                              \
    X(SIGN, (E)(v != 0), __VA_ARGS__)                                               \
    X(FLOOR, v, __VA_ARGS__)                                                        \
    X(CEIL, v, __VA_ARGS__)                                                         \
    X(NOT, (E)~v, __VA_ARGS__)                                                      \
    X(RELU, v, __VA_ARGS__)

#define BOOL_UNARY_OPS(X, ...) X(NOT, (E)!v, __VA_ARGS__)

/* lax.max/min propagate NaN from either side. */
#define FLOAT_BINARY_OPS(X, ...)                                                    \
    X(ADD, a + b, __VA_ARGS__)                                                      \
    X(SUB, a - b, __VA_ARGS__)                                                      \
    X(MUL, a * b, __VA_ARGS__)                                                      \
    X(DIV, a / b, __VA_ARGS__)                                                      \
    X(REM, fmod(a, b), __VA_ARGS__)                                                 \
    X(MAX, ((a > b || a != a) ? a : b), __VA_ARGS__)                                \
    X(MIN, ((a < b || a != a) ? a : b), __VA_ARGS__)                                \
    X(POW, pow(a, b), __VA_ARGS__)                                                  \
    X(ATAN2, atan2(a, b), __VA_ARGS__)

/* StableHLO's shifts: a count outside [0, bits) (negative ones read as
 * huge unsigned) shifts everything out. BITS is E's width. */
#define BITS ((UE)(sizeof(E) * 8))
#define SHIFT_OPS(X, ...)                                                           \
    X(SHIFT_LEFT, ((UE)b >= BITS ? (E)0 : (E)((UE)a << (UE)b)), __VA_ARGS__)       \
    X(SHIFT_RIGHT_LOGICAL, ((UE)b >= BITS ? (E)0 : (E)((UE)a >> (UE)b)), __VA_ARGS__) \
    X(SHIFT_RIGHT_ARITHMETIC, ((UE)b >= BITS ? (E)(a < 0 ? -1 : 0) : (E)(a >> (UE)b)), __VA_ARGS__)
/* max, min and the bitwise ops: the same for signed and unsigned types. */
#define INT_ORDER_AND_BIT_OPS(X, ...)                                               \
    X(MAX, (a > b ? a : b), __VA_ARGS__)                                            \
    X(MIN, (a < b ? a : b), __VA_ARGS__)                                            \
    X(AND, (E)(a & b), __VA_ARGS__)                                                 \
    X(OR, (E)(a | b), __VA_ARGS__)                                                  \
    X(XOR, (E)(a ^ b), __VA_ARGS__)

/* XLA integer semantics: x / 0 == -1, INT_MIN / -1 == INT_MIN (the wrapped
 * negation), x % 0 == x, INT_MIN % -1 == 0; division truncates. */
#define INT_BINARY_OPS(X, ...)                                                      \
    X(ADD, (E)((UE)a + (UE)b), __VA_ARGS__)                                         \
    X(SUB, (E)((UE)a - (UE)b), __VA_ARGS__)                                         \
    X(MUL, (E)((UE)a * (UE)b), __VA_ARGS__)                                         \
    X(DIV, (b == 0 ? (E)-1 : b == -1 ? (E)((UE)0 - (UE)a) : (E)(a / b)), __VA_ARGS__) \
    X(REM, (b == 0 ? a : b == -1 ? (E)0 : (E)(a % b)), __VA_ARGS__)                 \
    X(POW, INT_POW(a, b), __VA_ARGS__)                                              \
    SHIFT_OPS(X, __VA_ARGS__)                                                       \
    INT_ORDER_AND_BIT_OPS(X, __VA_ARGS__)

/* XLA unsigned semantics: x / 0 is all ones, x % 0 == x. */
#define UINT_BINARY_OPS(X, ...)                                                     \
    X(ADD, (E)(a + b), __VA_ARGS__)                                                 \
    X(SUB, (E)(a - b), __VA_ARGS__)                                                 \
    X(MUL, (E)(a * b), __VA_ARGS__)                                                 \
    X(DIV, (b == 0 ? (E)~(E)0 : (E)(a / b)), __VA_ARGS__)                           \
    X(REM, (b == 0 ? a : (E)(a % b)), __VA_ARGS__)                                  \
    X(POW, UINT_POW(a, b), __VA_ARGS__)                                             \
    X(SHIFT_LEFT, (b >= BITS ? (E)0 : (E)(a << b)), __VA_ARGS__)                    \
    X(SHIFT_RIGHT_LOGICAL, (b >= BITS ? (E)0 : (E)(a >> b)), __VA_ARGS__)           \
    X(SHIFT_RIGHT_ARITHMETIC, UINT_SRA(a, b), __VA_ARGS__)                          \
    INT_ORDER_AND_BIT_OPS(X, __VA_ARGS__)

/* XLA pred arithmetic: add and max are OR, mul and min are AND. */
#define BOOL_BINARY_OPS(X, ...)                                                     \
    X(ADD, (E)(a | b), __VA_ARGS__)                                                 \
    X(MUL, (E)(a & b), __VA_ARGS__)                                                 \
    X(MAX, (E)(a | b), __VA_ARGS__)                                                 \
    X(MIN, (E)(a & b), __VA_ARGS__)                                                 \
    X(AND, (E)(a & b), __VA_ARGS__)                                                 \
    X(OR, (E)(a | b), __VA_ARGS__)                                                  \
    X(XOR, (E)(a ^ b), __VA_ARGS__)

/* Complex numbers (C's _Complex, so mul and div are C99 Annex G's, with
 * its inf and NaN cases): the arithmetic StableHLO defines for them that
 * shardc runs; no ordering, so compare is eq and ne only. */
#define COMPLEX_UNARY_OPS(X, ...) X(NEG, -v, __VA_ARGS__)
#define COMPLEX_BINARY_OPS(X, ...)                                                  \
    X(ADD, a + b, __VA_ARGS__)                                                      \
    X(SUB, a - b, __VA_ARGS__)                                                      \
    X(MUL, a * b, __VA_ARGS__)                                                      \
    X(DIV, a / b, __VA_ARGS__)
#define COMPLEX_COMPARE_OPS(X, ...)                                                 \
    X(EQ, a == b, __VA_ARGS__)                                                      \
    X(NE, a != b, __VA_ARGS__)

#define COMPARE_OPS(X, ...)                                                         \
    X(EQ, a == b, __VA_ARGS__)                                                      \
    X(NE, a != b, __VA_ARGS__)                                                      \
    X(LT, a < b, __VA_ARGS__)                                                       \
    X(LE, a <= b, __VA_ARGS__)                                                      \
    X(GT, a > b, __VA_ARGS__)                                                       \
    X(GE, a >= b, __VA_ARGS__)

/* Exponentiation by squaring with wrapping multiplies. A negative exponent
 * gives the truncated reciprocal: 1 for base 1, +-1 for base -1, else 0. */
#define DEFINE_UINT_POW(S, U)                                                       \
    static inline U uint_pow_##S(U base, U exponent)                                \
    {                                                                               \
        U acc = 1;                                                                  \
        for (; exponent; exponent >>= 1, base *= base)                              \
            if (exponent & 1u)                                                      \
                acc *= base;                                                        \
        return acc;                                                                 \
    }
DEFINE_UINT_POW(u32, uint32_t)
DEFINE_UINT_POW(u64, uint64_t)
#define UINT_POW(a, b) _Generic((a), uint32_t: uint_pow_u32, uint64_t: uint_pow_u64)(a, b)

/* The arithmetic shift of an unsigned value copies its top bit. */
static inline uint32_t uint_sra_u32(uint32_t a, uint32_t b) { return (uint32_t)((int32_t)a >> (b >= 32u ? 31u : b)); }
static inline uint64_t uint_sra_u64(uint64_t a, uint64_t b) { return (uint64_t)((int64_t)a >> (b >= 64u ? 63u : b)); }
#define UINT_SRA(a, b) _Generic((a), uint32_t: uint_sra_u32, uint64_t: uint_sra_u64)(a, b)

#define DEFINE_INT_POW(S, T, U)                                                     \
    static inline T int_pow_##S(T base, T exponent)                                 \
    {                                                                               \
        if (exponent < 0)                                                           \
            return base == 1 ? 1 : base == -1 ? (((U)exponent & 1u) ? -1 : 1) : 0;  \
        U acc = 1, b = (U)base, e = (U)exponent;                                    \
        for (; e; e >>= 1, b *= b)                                                  \
            if (e & 1u)                                                             \
                acc *= b;                                                           \
        return (T)acc;                                                              \
    }
DEFINE_INT_POW(i8, int8_t, uint8_t)
DEFINE_INT_POW(i32, int32_t, uint32_t)
DEFINE_INT_POW(i64, int64_t, uint64_t)
#define INT_POW(a, b) _Generic((a), int8_t: int_pow_i8, int32_t: int_pow_i32, int64_t: int_pow_i64)(a, b)

/* ---- loop generators -------------------------------------------------------- */

typedef void (*UnaryLoop)(const void *x, void *y, int64_t n);
typedef void (*BinaryLoop)(const void *a, int64_t sa, const void *b, int64_t sb, void *y,
                           int64_t n);
typedef void (*AccumulateLoop)(void *y, const void *b, int64_t n);

/* The f32 unary loops are compiled for SSE2 and for AVX2 (8 lanes), and
 * the loader picks one (GCC's target_clones, an ifunc). Neither uses FMA,
 * and ISO C mode does not contract a*b+c, so both give the same bits. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define UNARY_CLONES_F32 __attribute__((target_clones("avx2", "default")))
#else
#define UNARY_CLONES_F32
#endif
#define UNARY_CLONES_F64
#define UNARY_CLONES_I8
#define UNARY_CLONES_I32
#define UNARY_CLONES_I64
#define UNARY_CLONES_U32
#define UNARY_CLONES_U64
#define UNARY_CLONES_BOOL
#define UNARY_CLONES_C64
#define UNARY_CLONES_C128

#define UNARY_LOOP(ID, EXPR, DT, T, U)                                              \
    static UNARY_CLONES_##DT void un_##ID##_##DT(const void *restrict xp, void *restrict yp, int64_t n) \
    {                                                                               \
        typedef T E;                                                                \
        typedef U UE UNUSED_TYPEDEF;                                                \
        const E *x = xp;                                                            \
        E *y = yp;                                                                  \
        TENSOR_VECTOR_LOOP(n, {                                                     \
            E v = x[i];                                                             \
            y[i] = (E)(EXPR);                                                       \
        });                                                                         \
    }

/* NAME##_dense is the same-shape fast path (restrict lets GCC vectorise it);
 * NAME also takes a stride per operand, 0 for a broadcast operand. */
#define BINARY_LOOP_R(NAME, EXPR, T, U, R)                                          \
    static void NAME##_dense(const T *restrict A, const T *restrict B, R *restrict Y, \
                             int64_t n)                                             \
    {                                                                               \
        typedef T E;                                                                \
        typedef U UE UNUSED_TYPEDEF;                                                \
        TENSOR_VECTOR_LOOP(n, {                                                     \
            E a = A[i], b = B[i];                                                   \
            Y[i] = (R)(EXPR);                                                       \
        });                                                                         \
    }                                                                               \
    static void NAME(const void *ap, int64_t sa, const void *bp, int64_t sb, void *yp, \
                     int64_t n)                                                     \
    {                                                                               \
        typedef T E;                                                                \
        typedef U UE UNUSED_TYPEDEF;                                                \
        const E *A = ap, *B = bp;                                                   \
        R *Y = yp;                                                                  \
        if (sa == 1 && sb == 1) {                                                   \
            NAME##_dense(A, B, Y, n);                                               \
            return;                                                                 \
        }                                                                           \
        for (int64_t i = 0; i < n; i++) {                                           \
            E a = A[i * sa], b = B[i * sb];                                         \
            Y[i] = (R)(EXPR);                                                       \
        }                                                                           \
    }
#define BINARY_LOOP(ID, EXPR, DT, T, U) BINARY_LOOP_R(bin_##ID##_##DT, EXPR, T, U, T)
#define COMPARE_LOOP(ID, EXPR, DT, T, U) BINARY_LOOP_R(cmp_##ID##_##DT, EXPR, T, U, uint8_t)

/* In place: y = op(y, b), for collectives. */
#define ACCUMULATE_LOOP(ID, EXPR, DT, T, U)                                         \
    static void acc_##ID##_##DT(void *restrict yp, const void *restrict bp, int64_t n) \
    {                                                                               \
        typedef T E;                                                                \
        typedef U UE UNUSED_TYPEDEF;                                                \
        E *Y = yp;                                                                  \
        const E *B = bp;                                                            \
        TENSOR_VECTOR_LOOP(n, {                                                     \
            E a = Y[i], b = B[i];                                                   \
            Y[i] = (E)(EXPR);                                                       \
        });                                                                         \
    }

#define FLOAT_TYPES(M, LIST) LIST(M, F32, float, float) LIST(M, F64, double, double)
#define INT_TYPES(M, LIST)                                                          \
    LIST(M, I8, int8_t, uint8_t) LIST(M, I32, int32_t, uint32_t) LIST(M, I64, int64_t, uint64_t)
#define UINT_TYPES(M, LIST) LIST(M, U32, uint32_t, uint32_t) LIST(M, U64, uint64_t, uint64_t)
#define BOOL_TYPES(M, LIST) LIST(M, BOOL, uint8_t, uint8_t)
typedef float _Complex KernC64;
typedef double _Complex KernC128;
#define COMPLEX_TYPES(M, LIST) LIST(M, C64, KernC64, KernC64) LIST(M, C128, KernC128, KernC128)
#define ALL_TYPES(M, LIST)                                                          \
    FLOAT_TYPES(M, LIST) INT_TYPES(M, LIST) UINT_TYPES(M, LIST) BOOL_TYPES(M, LIST)

/* Every (dtype family, op list) pair, for one loop kind. */
#define PER_FAMILY(M, FLOATS, INTS, UINTS, BOOLS, COMPLEXES)                        \
    FLOAT_TYPES(M, FLOATS) INT_TYPES(M, INTS) UINT_TYPES(M, UINTS) BOOL_TYPES(M, BOOLS) \
    COMPLEX_TYPES(M, COMPLEXES)
#define UNARY_FAMILIES(M)                                                           \
    PER_FAMILY(M, FLOAT_UNARY_OPS, INT_UNARY_OPS, UINT_UNARY_OPS, BOOL_UNARY_OPS, COMPLEX_UNARY_OPS)
#define BINARY_FAMILIES(M)                                                          \
    PER_FAMILY(M, FLOAT_BINARY_OPS, INT_BINARY_OPS, UINT_BINARY_OPS, BOOL_BINARY_OPS, COMPLEX_BINARY_OPS)

UNARY_FAMILIES(UNARY_LOOP)
BINARY_FAMILIES(BINARY_LOOP)
ALL_TYPES(COMPARE_LOOP, COMPARE_OPS)
COMPLEX_TYPES(COMPARE_LOOP, COMPLEX_COMPARE_OPS)
BINARY_FAMILIES(ACCUMULATE_LOOP)

#define UNARY_ENTRY(ID, EXPR, DT, T, U) [UN_##ID][DT_##DT] = un_##ID##_##DT,
#define BINARY_ENTRY(ID, EXPR, DT, T, U) [BIN_##ID][DT_##DT] = bin_##ID##_##DT,
#define COMPARE_ENTRY(ID, EXPR, DT, T, U) [CMP_##ID][DT_##DT] = cmp_##ID##_##DT,
#define ACCUMULATE_ENTRY(ID, EXPR, DT, T, U) [BIN_##ID][DT_##DT] = acc_##ID##_##DT,

/* A NULL entry means the op is not defined for that dtype. */
static const UnaryLoop unary_loops[UN_COUNT][DT_COUNT] = {UNARY_FAMILIES(UNARY_ENTRY)};
static const BinaryLoop binary_loops[BIN_COUNT][DT_COUNT] = {BINARY_FAMILIES(BINARY_ENTRY)};
static const BinaryLoop compare_loops[CMP_COUNT][DT_COUNT] = {
    ALL_TYPES(COMPARE_ENTRY, COMPARE_OPS) COMPLEX_TYPES(COMPARE_ENTRY, COMPLEX_COMPARE_OPS)
};
static const AccumulateLoop accumulate_loops[BIN_COUNT][DT_COUNT] = {
    BINARY_FAMILIES(ACCUMULATE_ENTRY)
};

/* ---- broadcasting ------------------------------------------------------------ */

TensorStatus kern_broadcast_shape(TensorCtx *ctx, const char *what, int n,
                                  const Tensor *const *xs, int *rank, int64_t *dims)
{
    int r = 0;
    for (int i = 0; i < n; i++)
        r = xs[i]->rank > r ? xs[i]->rank : r;
    for (int d = 0; d < r; d++)
        dims[d] = 1;
    for (int i = 0; i < n; i++) {
        int lead = r - xs[i]->rank;
        for (int d = 0; d < xs[i]->rank; d++) {
            int64_t have = dims[lead + d], want = xs[i]->dims[d];
            if (want != 1 && have != 1 && want != have) {
                char s0[TENSOR_TYPE_STR_SIZE], s1[TENSOR_TYPE_STR_SIZE];
                return tensor_fail(ctx, TENSOR_ERR_SHAPE, "%s: cannot broadcast %s with %s", what,
                                   tensor_type_str(xs[0], s0), tensor_type_str(xs[i], s1));
            }
            dims[lead + d] = want == 1 ? have : want;
        }
    }
    *rank = r;
    return TENSOR_OK;
}

/* Allocate the broadcast result of xs and set up an iterator whose operand 0
 * is the (contiguous) result and operands 1..n the inputs. */
static TensorStatus broadcast_setup(TensorCtx *ctx, const char *what, int n,
                                    const Tensor *const *xs, DType out_dtype, NdIter *it,
                                    Tensor **out)
{
    int rank;
    int64_t dims[SHARDC_MAX_RANK], strides[NDITER_MAX_OPS][NDITER_MAX_DIMS];
    TensorStatus st = kern_broadcast_shape(ctx, what, n, xs, &rank, dims);
    if (st == TENSOR_OK)
        st = tensor_new_uninit(ctx, out_dtype, rank, dims, out);
    if (st != TENSOR_OK)
        return st;
    tensor_shape_strides(rank, dims, strides[0]);
    for (int i = 0; i < n; i++)
        tensor_broadcast_strides(xs[i], rank, dims, strides[i + 1]);
    nditer_init(it, rank, dims, n + 1, strides);
    return TENSOR_OK;
}

typedef struct BinaryJob {
    BinaryLoop loop;
    const char *a, *b;
    char *y;
    size_t in_size, out_size;
} BinaryJob;

static void binary_row(void *user, const int64_t *off, const int64_t *st, int64_t n)
{
    const BinaryJob *job = user;
    job->loop(job->a + (size_t)off[1] * job->in_size, st[1],
              job->b + (size_t)off[2] * job->in_size, st[2],
              job->y + (size_t)off[0] * job->out_size, n);
}

static TensorStatus run_binary(TensorCtx *ctx, const char *what, BinaryLoop loop,
                               const Tensor *a, const Tensor *b, DType out_dtype, Tensor **out)
{
    NdIter it;
    const Tensor *xs[2] = {a, b};
    TensorStatus st = broadcast_setup(ctx, what, 2, xs, out_dtype, &it, out);
    if (st != TENSOR_OK)
        return st;
    BinaryJob job = {loop, a->data, b->data, (*out)->data, dtype_size(a->dtype),
                     dtype_size(out_dtype)};
    nditer_run(&it, binary_row, &job);
    return TENSOR_OK;
}

/* ---- bf16 and f16 via f32 ----------------------------------------------------- */

static TensorStatus widen_pair(TensorCtx *ctx, const Tensor *a, const Tensor *b, Tensor **wa,
                               Tensor **wb)
{
    TensorStatus st = tensor_convert(ctx, a, DT_F32, wa);
    if (st == TENSOR_OK && (st = tensor_convert(ctx, b, DT_F32, wb)) != TENSOR_OK)
        tensor_release(*wa);
    return st;
}

/* Replace the f32 result *y with its rounding to `dtype` (bf16 or f16). */
static TensorStatus narrow_result(TensorCtx *ctx, TensorStatus st, Tensor *y, DType dtype,
                                  Tensor **out)
{
    if (st == TENSOR_OK)
        st = tensor_convert(ctx, y, dtype, out);
    tensor_release(y);
    return st;
}

static TensorStatus check_same_dtype(TensorCtx *ctx, const char *what, const Tensor *a,
                                     const Tensor *b)
{
    if (a->dtype == b->dtype)
        return TENSOR_OK;
    return tensor_fail(ctx, TENSOR_ERR_DTYPE, "%s: operand dtypes differ (%s vs %s)", what,
                       dtype_name(a->dtype), dtype_name(b->dtype));
}

static TensorStatus undefined_for(TensorCtx *ctx, const char *what, DType dtype)
{
    return tensor_fail(ctx, TENSOR_ERR_DTYPE, "%s is not defined for %s", what,
                       dtype_name(dtype));
}

/* ---- public kernels -------------------------------------------------------- */

TensorStatus kern_unary(TensorCtx *ctx, UnaryOp op, const Tensor *x, Tensor **out)
{
    *out = NULL;
    if (tensor_is_half(x->dtype) && unary_loops[op][DT_F32]) {
        Tensor *wx, *wy = NULL;
        TensorStatus st = tensor_convert(ctx, x, DT_F32, &wx);
        if (st != TENSOR_OK)
            return st;
        st = kern_unary(ctx, op, wx, &wy);
        tensor_release(wx);
        return narrow_result(ctx, st, wy, x->dtype, out);
    }
    UnaryLoop loop = unary_loops[op][x->dtype];
    if (!loop)
        return undefined_for(ctx, unary_names[op], x->dtype);
    TensorStatus st = tensor_new_uninit(ctx, x->dtype, x->rank, x->dims, out);
    if (st == TENSOR_OK)
        loop(x->data, (*out)->data, x->count);
    return st;
}

TensorStatus kern_gelu(TensorCtx *ctx, const Tensor *x, bool approximate, Tensor **out)
{
    return kern_unary(ctx, approximate ? UN_GELU : UN_GELU_ERF, x, out);
}

TensorStatus kern_is_finite(TensorCtx *ctx, const Tensor *x, Tensor **out)
{
    *out = NULL;
    if (!dtype_is_float(x->dtype))
        return undefined_for(ctx, "is_finite", x->dtype);
    Tensor *wide = NULL;
    TensorStatus st = tensor_convert(ctx, x, DT_F64, &wide); /* exact for every float type */
    if (st == TENSOR_OK)
        st = tensor_new_uninit(ctx, DT_BOOL, x->rank, x->dims, out);
    if (st == TENSOR_OK) {
        const double *v = wide->data;
        uint8_t *y = (*out)->data;
        for (int64_t i = 0; i < x->count; i++)
            y[i] = (uint8_t)isfinite(v[i]);
    }
    tensor_release(wide);
    return st;
}

/* The bytes as they are (StableHLO leaves the bit order of a width change
 * to the implementation: on little-endian hosts, as XLA's CPU backend,
 * element k of the narrower minor dim holds the wider element's k-th
 * lowest bits). */
TensorStatus kern_bitcast_convert(TensorCtx *ctx, const Tensor *x, DType dtype, Tensor **out)
{
    int rank;
    int64_t dims[SHARDC_MAX_RANK];
    *out = NULL;
    if (!type_bitcast_shape(x->dtype, x->rank, x->dims, dtype, &rank, dims))
        return tensor_fail(ctx, TENSOR_ERR_DTYPE, "bitcast_convert: %s to %s needs one bit width, or the narrower "
                           "side's minor dim the ratio of the widths", dtype_name(x->dtype), dtype_name(dtype));
    TensorStatus st = tensor_new_uninit(ctx, dtype, rank, dims, out);
    if (st == TENSOR_OK && x->nbytes)
        memcpy((*out)->data, x->data, x->nbytes);
    return st;
}

TensorStatus kern_binary(TensorCtx *ctx, BinaryOp op, const Tensor *a, const Tensor *b,
                         Tensor **out)
{
    *out = NULL;
    TensorStatus st = check_same_dtype(ctx, binary_names[op], a, b);
    if (st != TENSOR_OK)
        return st;
    if (tensor_is_half(a->dtype) && binary_loops[op][DT_F32]) {
        Tensor *wa, *wb, *wy = NULL;
        if ((st = widen_pair(ctx, a, b, &wa, &wb)) != TENSOR_OK)
            return st;
        st = kern_binary(ctx, op, wa, wb, &wy);
        tensor_release(wa);
        tensor_release(wb);
        return narrow_result(ctx, st, wy, a->dtype, out);
    }
    BinaryLoop loop = binary_loops[op][a->dtype];
    if (!loop)
        return undefined_for(ctx, binary_names[op], a->dtype);
    return run_binary(ctx, binary_names[op], loop, a, b, a->dtype, out);
}

TensorStatus kern_compare(TensorCtx *ctx, CompareOp op, const Tensor *a, const Tensor *b,
                          Tensor **out)
{
    *out = NULL;
    TensorStatus st = check_same_dtype(ctx, compare_names[op], a, b);
    if (st != TENSOR_OK)
        return st;
    if (tensor_is_half(a->dtype)) {
        Tensor *wa, *wb;
        if ((st = widen_pair(ctx, a, b, &wa, &wb)) != TENSOR_OK)
            return st;
        st = kern_compare(ctx, op, wa, wb, out);
        tensor_release(wa);
        tensor_release(wb);
        return st;
    }
    BinaryLoop loop = compare_loops[op][a->dtype];
    if (!loop) /* lt, le, gt, ge of complex numbers */
        return undefined_for(ctx, compare_names[op], a->dtype);
    return run_binary(ctx, compare_names[op], loop, a, b, DT_BOOL, out);
}

/* StableHLO's total order of floats as the signed order of integer keys:
 * a float's bits read as a signed integer, a negative one's magnitude bits
 * flipped, so -NaN < -Inf < ... < -0 < +0 < ... < +Inf < +NaN. */
static TensorStatus total_order_keys(TensorCtx *ctx, const Tensor *x, Tensor **out)
{
    Tensor *dense;
    TensorStatus st = tensor_contiguous(ctx, (Tensor *)x, &dense);
    if (st != TENSOR_OK)
        return st;
    bool wide = x->dtype == DT_F64;
    st = tensor_new_uninit(ctx, wide ? DT_I64 : DT_I32, x->rank, x->dims, out);
    for (int64_t i = 0; st == TENSOR_OK && i < x->count; i++) {
        if (wide) {
            int64_t k;
            memcpy(&k, (const double *)dense->data + i, sizeof k);
            ((int64_t *)(*out)->data)[i] = k < 0 ? k ^ INT64_MAX : k;
        } else {
            int32_t k;
            memcpy(&k, (const float *)dense->data + i, sizeof k);
            ((int32_t *)(*out)->data)[i] = k < 0 ? k ^ INT32_MAX : k;
        }
    }
    tensor_release(dense);
    return st;
}

TensorStatus kern_compare_total(TensorCtx *ctx, CompareOp op, const Tensor *a, const Tensor *b, Tensor **out)
{
    *out = NULL;
    TensorStatus st = check_same_dtype(ctx, compare_names[op], a, b);
    if (st != TENSOR_OK || !dtype_is_float(a->dtype))
        return st != TENSOR_OK ? st : kern_compare(ctx, op, a, b, out);
    Tensor *wa, *wb, *ka = NULL, *kb = NULL;
    if (tensor_is_half(a->dtype)) { /* widening keeps the order, NaNs' signs and -0 */
        if ((st = widen_pair(ctx, a, b, &wa, &wb)) != TENSOR_OK)
            return st;
        st = kern_compare_total(ctx, op, wa, wb, out);
        tensor_release(wa);
        tensor_release(wb);
        return st;
    }
    if ((st = total_order_keys(ctx, a, &ka)) == TENSOR_OK && (st = total_order_keys(ctx, b, &kb)) == TENSOR_OK)
        st = kern_compare(ctx, op, ka, kb, out);
    tensor_release(ka);
    tensor_release(kb);
    return st;
}

/* dst = op(dst, src) computed out of place, then stored back into dst's
 * buffer (rounding to bf16 or f16 if need be). */
static TensorStatus accumulate_via_copy(TensorCtx *ctx, BinaryOp op, Tensor *dst,
                                        const Tensor *src)
{
    Tensor *y;
    TensorStatus st = kern_binary(ctx, op, dst, src, &y);
    if (st == TENSOR_OK)
        memcpy(dst->data, y->data, dst->nbytes);
    tensor_release(y);
    return st;
}

TensorStatus kern_accumulate(TensorCtx *ctx, BinaryOp op, Tensor *dst, const Tensor *src)
{
    const char *what = binary_names[op];
    TensorStatus st = check_same_dtype(ctx, what, dst, src);
    if (st != TENSOR_OK)
        return st;
    if (!tensor_same_shape(dst, src)) {
        char s0[TENSOR_TYPE_STR_SIZE], s1[TENSOR_TYPE_STR_SIZE];
        return tensor_fail(ctx, TENSOR_ERR_SHAPE, "accumulate %s: shapes differ (%s vs %s)", what,
                           tensor_type_str(dst, s0), tensor_type_str(src, s1));
    }
    /* The out-of-place route also covers dst == src, which the restrict
     * loop must not see. */
    if ((tensor_is_half(dst->dtype) && binary_loops[op][DT_F32]) || dst->data == src->data)
        return accumulate_via_copy(ctx, op, dst, src);
    AccumulateLoop loop = accumulate_loops[op][dst->dtype];
    if (!loop)
        return undefined_for(ctx, what, dst->dtype);
    loop(dst->data, src->data, dst->count);
    return TENSOR_OK;
}

/* ---- select ------------------------------------------------------------------ */

typedef struct SelectJob {
    const uint8_t *pred;
    const char *a, *b;
    char *y;
    size_t size;
} SelectJob;

#define SELECT_ROW(T)                                                               \
    static void select_row_##T(const SelectJob *job, const int64_t *off,            \
                               const int64_t *st, int64_t n)                        \
    {                                                                               \
        const uint8_t *p = job->pred + off[1];                                      \
        const T *a = (const T *)(const void *)job->a + off[2];                      \
        const T *b = (const T *)(const void *)job->b + off[3];                      \
        T *y = (T *)(void *)job->y + off[0];                                        \
        for (int64_t i = 0; i < n; i++)                                             \
            y[i] = p[i * st[1]] ? a[i * st[2]] : b[i * st[3]];                      \
    }
SELECT_ROW(uint8_t)
SELECT_ROW(uint16_t)
SELECT_ROW(uint32_t)
SELECT_ROW(uint64_t)
SELECT_ROW(TensorElem16)

static void select_row(void *user, const int64_t *off, const int64_t *st, int64_t n)
{
    const SelectJob *job = user;
    switch (job->size) {
    case 1: select_row_uint8_t(job, off, st, n); break;
    case 2: select_row_uint16_t(job, off, st, n); break;
    case 4: select_row_uint32_t(job, off, st, n); break;
    case 16: select_row_TensorElem16(job, off, st, n); break; /* c128 */
    default: select_row_uint64_t(job, off, st, n); break;
    }
}

TensorStatus kern_select(TensorCtx *ctx, const Tensor *pred, const Tensor *on_true,
                         const Tensor *on_false, Tensor **out)
{
    *out = NULL;
    if (pred->dtype != DT_BOOL)
        return tensor_fail(ctx, TENSOR_ERR_DTYPE, "select: predicate must be bool, not %s",
                           dtype_name(pred->dtype));
    TensorStatus st = check_same_dtype(ctx, "select", on_true, on_false);
    if (st != TENSOR_OK)
        return st;
    NdIter it;
    const Tensor *xs[3] = {pred, on_true, on_false};
    if ((st = broadcast_setup(ctx, "select", 3, xs, on_true->dtype, &it, out)) != TENSOR_OK)
        return st;
    SelectJob job = {pred->data, on_true->data, on_false->data, (*out)->data,
                     dtype_size(on_true->dtype)};
    nditer_run(&it, select_row, &job);
    return TENSOR_OK;
}
