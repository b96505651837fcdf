/* Unit tests of the f16, i8 and u32 element types: f16 rounding against a
 * slow reference, the conversions into and out of them, and the kernels'
 * semantics for each (wrapping, unsigned division and order, f16 rounding
 * on store). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>
#include "shardc/kernels.h"
#include "tensor_support.h"

/* ---- helpers ----------------------------------------------------------------- */

static Tensor *converted(const Tensor *x, DType to)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *y;
    assert_int_equal(tensor_convert(&ctx, x, to, &y), TENSOR_OK);
    return y;
}

static Tensor *reduced(ReduceOp op, const Tensor *x)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *y;
    if (kern_reduce(&ctx, op, x, 1, INTS(0), &y) != TENSOR_OK)
        fail_msg("%s", ctx.msg);
    return y;
}

static Tensor *sorted(const Tensor *x)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *y;
    assert_int_equal(kern_sort(&ctx, x, 0, false, &y), TENSOR_OK);
    return y;
}

/* ---- f16 against a reference ------------------------------------------------- */

/* The value of f16 bits, from the format's definition. */
static double ref_f16_value(uint16_t h)
{
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(1024 + m, e - 25);
    return (h & 0x8000) ? -v : v;
}

/* x rounded to f16, nearest even: scaled so the f16 quantum is 1, rounded
 * by nearbyint (exact in double), encoded from the definition. */
static uint16_t ref_f16_bits(double x)
{
    uint16_t sign = signbit(x) ? 0x8000 : 0;
    double a = fabs(x);
    if (isnan(x))
        return sign | 0x7e00;
    if (a >= 65520.0)
        return sign | 0x7c00;
    int e;
    frexp(a, &e); /* a = m 2^e, m in [0.5, 1) */
    int q = a < 0x1p-14 ? -24 : e - 11;
    double k = nearbyint(ldexp(a, -q));
    if (q == -24) /* subnormal; 1024 is the smallest normal's bits */
        return (uint16_t)(sign | (uint16_t)k);
    int field = e - 1 + 15;
    if (k == 2048) {
        k = 1024;
        field++;
    }
    return (uint16_t)(sign | field << 10 | (uint16_t)(k - 1024));
}

static void test_f16_every_pattern_decodes_and_round_trips(void **state)
{
    (void)state;
    for (uint32_t b = 0; b < 0x10000; b++) {
        uint16_t h = (uint16_t)b;
        float f = f16_to_f32(h);
        double want = ref_f16_value(h);
        if (isnan(want)) {
            uint16_t back = f32_to_f16(f);
            assert_true(isnan(f));
            assert_true((back & 0x7c00) == 0x7c00 && (back & 0x3ff) != 0);
            assert_int_equal(back & 0x8000, h & 0x8000);
            continue;
        }
        if ((double)f != want || f32_to_f16(f) != h || f64_to_f16(want) != h)
            fail_msg("0x%04x: %.10g, want %.10g; back 0x%04x", (unsigned)h, f, want,
                     (unsigned)f32_to_f16(f));
        assert_int_equal(signbit(f) != 0, (h & 0x8000) != 0);
    }
}

static void test_f16_rounding_cases(void **state)
{
    (void)state;
    static const struct {
        double x;
        uint16_t bits;
    } cases[] = {
        {1.0, 0x3c00},
        {1 + 0x1p-11, 0x3c00},             /* tie: to the even 1.0 */
        {1 + 3 * 0x1p-11, 0x3c02},         /* tie: to the even 0x3c02 */
        {1 + 0x1p-11 + 0x1p-20, 0x3c01},   /* just past the tie */
        {65504.0, 0x7bff},                 /* the largest finite */
        {65519.0, 0x7bff},
        {65520.0, 0x7c00},                 /* tie with 65536: overflows to inf */
        {1e6, 0x7c00},
        {-1e6, 0xfc00},
        {INFINITY, 0x7c00},
        {-INFINITY, 0xfc00},
        {0x1p-14, 0x0400},                 /* the smallest normal */
        {0x1p-14 - 0x1p-25, 0x0400},       /* tie between 0x03ff and 0x0400 */
        {0x1p-14 - 0x1p-24, 0x03ff},       /* the largest subnormal */
        {0x1p-24, 0x0001},                 /* the smallest subnormal */
        {0x1p-25, 0x0000},                 /* tie: to the even 0 */
        {3 * 0x1p-25, 0x0002},             /* tie: to the even 2 */
        {0x1p-25 + 0x1p-35, 0x0001},
        {-0x1p-24, 0x8001},
        {-0.0, 0x8000},
        {1e-10, 0x0000},
        {-1e-10, 0x8000},
        {1.0 / 3.0, 0x3555},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        if (f32_to_f16((float)cases[i].x) != cases[i].bits || f64_to_f16(cases[i].x) != cases[i].bits)
            fail_msg("%.17g: 0x%04x (f32) 0x%04x (f64), want 0x%04x", cases[i].x,
                     (unsigned)f32_to_f16((float)cases[i].x), (unsigned)f64_to_f16(cases[i].x),
                     (unsigned)cases[i].bits);
    }
    assert_true(isnan(f16_to_f32(f32_to_f16(NAN))));
    assert_int_equal(f32_to_f16(-NAN) & 0x8000, 0x8000);
}

/* An f64 just past an f16 tie becomes the tie in f32: rounding twice
 * would go to the even neighbour, f64_to_f16 must not. */
static void test_f64_to_f16_rounds_once(void **state)
{
    (void)state;
    double x = 1 + 0x1p-11 + 0x1p-40;
    assert_int_equal(f32_to_f16((float)x), 0x3c00); /* the double rounding */
    assert_int_equal(f64_to_f16(x), 0x3c01);
    assert_int_equal(f64_to_f16(-x), 0xbc01);
    assert_int_equal(f64_to_f16(1 + 0x1p-11 - 0x1p-40), 0x3c00);
    assert_int_equal(f64_to_f16(65520.0 - 0x1p-30), 0x7bff);
    assert_int_equal(f64_to_f16(1e300), 0x7c00);
    assert_int_equal(f64_to_f16(0x1p-25 + 0x1p-60), 0x0001);
    assert_int_equal(f64_to_f16(1e-300), 0x0000);
    Tensor *d = make_f(DT_F64, 1, DIMS(2), VALS(1 + 0x1p-11 + 0x1p-40, 1 + 0x1p-11));
    Tensor *h = converted(d, DT_F16);
    assert_memory_equal(h->data, ((const uint16_t[]){0x3c01, 0x3c00}), 4);
    tensor_release(h);
    tensor_release(d);
}

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void test_f16_matches_reference_sweeps(void **state)
{
    (void)state;
    for (uint64_t b = 0; b < 0x100000000ull; b += 4099) {
        uint32_t bits = (uint32_t)b;
        float f;
        memcpy(&f, &bits, sizeof f);
        uint16_t want = ref_f16_bits(f), got = f32_to_f16(f);
        if (isnan(f)) /* any quiet NaN of the same sign: the payload's top bits are kept */
            got = (uint16_t)((got & 0xfe00) == (want & 0xfe00) ? want : got);
        if (got != want)
            fail_msg("f32 0x%08x: 0x%04x, want 0x%04x", bits, (unsigned)f32_to_f16(f),
                     (unsigned)ref_f16_bits(f));
    }
    uint64_t seed = 42;
    for (int i = 0; i < 1000000; i++) {
        uint64_t r = splitmix(&seed);
        /* Magnitudes 2^-30 .. 2^17 (subnormal to overflow); every fourth
         * one an f16 midpoint nudged by a few f64 ulps. */
        double x = ldexp(1 + (double)(r >> 12) * 0x1p-52, (int)(r % 48) - 30);
        if (i % 4 == 0) {
            uint16_t h = (uint16_t)(r & 0x7bfe);
            double mid = (ref_f16_value(h) + ref_f16_value((uint16_t)(h + 1))) / 2;
            x = mid + ldexp((double)((int)(r >> 60) - 8), -60 + (int)((r >> 10) & 31));
        }
        x = (r >> 11) & 1 ? -x : x;
        if (f64_to_f16(x) != ref_f16_bits(x))
            fail_msg("f64 %.17g: 0x%04x, want 0x%04x", x, (unsigned)f64_to_f16(x),
                     (unsigned)ref_f16_bits(x));
    }
}

/* ---- f16 kernels: computed in f32, rounded on store --------------------------------- */

static void test_f16_arithmetic_rounds_on_store(void **state)
{
    (void)state;
    Tensor *a = make_f(DT_F16, 1, DIMS(4), VALS(2048, 2048, 65504, 1));
    Tensor *b = make_f(DT_F16, 1, DIMS(4), VALS(1, 3, 16, 3));
    /* 2049 ties to 2048; 2051 ties to 2052; 65520 overflows. */
    check_f(binary(BIN_ADD, a, b), 4, VALS(2048, 2052, INFINITY, 4), 0);
    check_f(binary(BIN_DIV, a, b), 4, VALS(2048, 682.5, 4094, ref_f16_value(0x3555)), 0); /* 682.67 */
    check_f(binary(BIN_MAX, a, b), 4, VALS(2048, 2048, 65504, 3), 0);
    Tensor *x = make_f(DT_F16, 1, DIMS(3), VALS(0, 1, -2));
    check_f(unary(UN_EXP, x), 3, VALS(1, ref_f16_value(f32_to_f16(expf(1))), ref_f16_value(f32_to_f16(expf(-2)))), 0);
    check_f(unary(UN_NEG, x), 3, VALS(-0.0, -1, 2), 0);
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *y;
    assert_int_equal(kern_compare(&ctx, CMP_LT, a, b, &y), TENSOR_OK);
    check_i(y, 4, INTS(0, 0, 0, 1));
    /* in place, as the collectives accumulate */
    assert_int_equal(kern_accumulate(&ctx, BIN_ADD, a, b), TENSOR_OK);
    check_f(a, 4, VALS(2048, 2052, INFINITY, 4), 0);
    tensor_release(b);
    tensor_release(x);
}

static void test_f16_reduce_einsum_sort(void **state)
{
    (void)state;
    /* 2048 + 1 + 1 in f32 is 2050: reductions accumulate in f32 and round once. */
    Tensor *x = make_f(DT_F16, 1, DIMS(3), VALS(2048, 1, 1));
    check_f(reduced(RED_SUM, x), 1, VALS(2050), 0);
    check_f(reduced(RED_MEAN, x), 1, VALS(683.5), 0); /* 683.33 */
    check_f(reduced(RED_MIN, x), 1, VALS(1), 0);
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *y, *empty;
    const Tensor *ops[2] = {x, x};
    assert_int_equal(kern_einsum(&ctx, "i,i->", 2, ops, &y), TENSOR_OK);
    assert_int_equal(y->dtype, DT_F16);
    check_f(y, 1, VALS(INFINITY), 0); /* 2048^2 + 2, rounded to f16 */
    assert_int_equal(tensor_new(&ctx, DT_F16, 1, DIMS(0), &empty), TENSOR_OK);
    check_f(reduced(RED_MAX, empty), 1, VALS(-INFINITY), 0);
    tensor_release(empty);
    Tensor *s = make_f(DT_F16, 1, DIMS(4), VALS(NAN, 0.5, -3, 0.25));
    check_f(sorted(s), 4, VALS(-3, 0.25, 0.5, NAN), 0);
    tensor_release(s);
    tensor_release(x);
}

/* ---- i8 and u32 -------------------------------------------------------------------- */

static void test_u32_arithmetic_is_unsigned(void **state)
{
    (void)state;
    Tensor *a = make_i(DT_U32, 1, DIMS(6), INTS(4294967295, 0, 65536, 7, 4294967295, 9));
    Tensor *b = make_i(DT_U32, 1, DIMS(6), INTS(1, 1, 65536, 2, 2, 0));
    check_i(binary(BIN_ADD, a, b), 6, INTS(0, 1, 131072, 9, 1, 9));
    check_i(binary(BIN_SUB, a, b), 6, INTS(4294967294, 4294967295, 0, 5, 4294967293, 9));
    check_i(binary(BIN_MUL, a, b), 6, INTS(4294967295, 0, 0, 14, 4294967294, 0));
    /* x / 0 is all ones, x % 0 is x (XLA) */
    check_i(binary(BIN_DIV, a, b), 6, INTS(4294967295, 0, 1, 3, 2147483647, 4294967295));
    check_i(binary(BIN_REM, a, b), 6, INTS(0, 0, 0, 1, 1, 9));
    check_i(binary(BIN_MAX, a, b), 6, INTS(4294967295, 1, 65536, 7, 4294967295, 9));
    check_i(binary(BIN_MIN, a, b), 6, INTS(1, 0, 65536, 2, 2, 0));
    check_i(binary(BIN_POW, a, b), 6, INTS(4294967295, 0, 0, 49, 1, 1));
    Tensor *p = make_i(DT_U32, 1, DIMS(1), INTS(3)), *e = make_i(DT_U32, 1, DIMS(1), INTS(21));
    check_i(binary(BIN_POW, p, e), 1, INTS(1870418611)); /* 3^21 mod 2^32 */
    check_i(unary(UN_NEG, b), 6, INTS(4294967295, 4294967295, 4294901760, 4294967294, 4294967294, 0));
    check_i(unary(UN_SIGN, b), 6, INTS(1, 1, 1, 1, 1, 0));
    check_i(unary(UN_NOT, b), 6, INTS(4294967294, 4294967294, 4294901759, 4294967293, 4294967293, 4294967295));
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *y;
    assert_int_equal(kern_unary(&ctx, UN_ABS, a, &y), TENSOR_ERR_DTYPE); /* lax.abs refuses */
    assert_null(y);
    assert_int_equal(kern_compare(&ctx, CMP_GT, a, b, &y), TENSOR_OK);
    check_i(y, 6, INTS(1, 0, 0, 1, 1, 1));
    tensor_release(a);
    tensor_release(b);
    tensor_release(p);
    tensor_release(e);
}

/* u64 (rng_bit_generator's state): values past 2^63 - 1 are read through
 * int64 and wrap back; arithmetic, order, shifts and float conversions
 * are unsigned (a -1 written through int64 is 2^64 - 1). */
static void test_u64_is_unsigned(void **state)
{
    (void)state;
    Tensor *a = make_i(DT_U64, 1, DIMS(4), INTS(-1, 0, 7, INT64_MIN)); /* 2^64-1, 0, 7, 2^63 */
    Tensor *b = make_i(DT_U64, 1, DIMS(4), INTS(1, 1, 2, 63));
    check_i(binary(BIN_ADD, a, b), 4, INTS(0, 1, 9, INT64_MIN + 63));
    check_i(binary(BIN_DIV, a, b), 4, INTS(-1, 0, 3, 146402730743726600)); /* 2^63 / 63, truncated */
    check_i(binary(BIN_SHIFT_RIGHT_LOGICAL, a, b), 4, INTS(INT64_MAX, 0, 1, 1));
    check_i(binary(BIN_SHIFT_RIGHT_ARITHMETIC, a, b), 4, INTS(-1, 0, 1, -1)); /* copies the top bit */
    check_i(reduced(RED_MAX, a), 1, INTS(-1));
    check_i(sorted(a), 4, INTS(0, 7, INT64_MIN, -1));
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *f, *u;
    assert_int_equal(tensor_convert(&ctx, a, DT_F64, &f), TENSOR_OK);
    check_f(f, 4, VALS(18446744073709551615.0, 0, 7, 9223372036854775808.0), 0);
    Tensor *g = make_f(DT_F64, 1, DIMS(3), VALS(-1.5, 3e19, 12.9));
    assert_int_equal(tensor_convert(&ctx, g, DT_U64, &u), TENSOR_OK);
    check_i(u, 3, INTS(0, -1, 12)); /* saturates at 0 and 2^64 - 1 */
    tensor_release(g);
    tensor_release(a);
    tensor_release(b);
}

static void test_u32_reduce_sort_dot(void **state)
{
    (void)state;
    Tensor *x = make_i(DT_U32, 1, DIMS(4), INTS(4294967295, 0, 7, 2147483648));
    check_i(reduced(RED_SUM, x), 1, INTS(2147483654)); /* wraps */
    check_i(reduced(RED_MAX, x), 1, INTS(4294967295));
    check_i(reduced(RED_MIN, x), 1, INTS(0));
    check_i(sorted(x), 4, INTS(0, 7, 2147483648, 4294967295));
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *y, *empty;
    assert_int_equal(kern_argmax(&ctx, x, 0, &y), TENSOR_OK);
    check_i(y, 1, INTS(0));
    const Tensor *ops[2] = {x, x};
    assert_int_equal(kern_einsum(&ctx, "i,i->", 2, ops, &y), TENSOR_OK);
    /* (2^32-1)^2 + 49 + 2^62, mod 2^32 */
    check_i(y, 1, INTS(50));
    assert_int_equal(tensor_new(&ctx, DT_U32, 1, DIMS(0), &empty), TENSOR_OK);
    check_i(reduced(RED_MAX, empty), 1, INTS(0));
    check_i(reduced(RED_MIN, empty), 1, INTS(4294967295));
    tensor_release(empty);
    tensor_release(x);
}

static void test_i8_wraps(void **state)
{
    (void)state;
    Tensor *a = make_i(DT_I8, 1, DIMS(5), INTS(127, -128, -128, 16, 3));
    Tensor *b = make_i(DT_I8, 1, DIMS(5), INTS(1, -1, 0, 16, 5));
    check_i(binary(BIN_ADD, a, b), 5, INTS(-128, 127, -128, 32, 8));
    check_i(binary(BIN_MUL, a, b), 5, INTS(127, -128, 0, 0, 15));
    check_i(binary(BIN_DIV, a, b), 5, INTS(127, -128, -1, 1, 0));
    check_i(binary(BIN_REM, a, b), 5, INTS(0, 0, -128, 0, 3));
    check_i(binary(BIN_POW, a, b), 5, INTS(127, 0, 1, 0, -13)); /* 3^5 = 243 */
    check_i(unary(UN_ABS, a), 5, INTS(127, -128, -128, 16, 3));
    check_i(unary(UN_NEG, a), 5, INTS(-127, -128, -128, -16, -3));
    check_i(reduced(RED_SUM, a), 1, INTS(-110)); /* wraps past -128 and back */
    check_i(reduced(RED_MIN, a), 1, INTS(-128));
    check_i(sorted(a), 5, INTS(-128, -128, 3, 16, 127));
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *y, *empty;
    const Tensor *ops[2] = {a, b};
    assert_int_equal(kern_einsum(&ctx, "i,i->", 2, ops, &y), TENSOR_OK);
    check_i(y, 1, INTS((int8_t)(127 + 128 + 0 + 256 + 15)));
    assert_int_equal(tensor_new(&ctx, DT_I8, 1, DIMS(0), &empty), TENSOR_OK);
    check_i(reduced(RED_MAX, empty), 1, INTS(-128));
    check_i(reduced(RED_MIN, empty), 1, INTS(127));
    tensor_release(empty);
    tensor_release(a);
    tensor_release(b);
}

/* ---- conversions ------------------------------------------------------------------- */

static void test_conversions_into_the_new_types(void **state)
{
    (void)state;
    Tensor *f = make_f(DT_F32, 1, DIMS(7), VALS(-1.5, -0.5, 3.7, 5e9, NAN, 4294967040.0, 200.9));
    check_i(converted(f, DT_U32), 7, INTS(0, 0, 3, 4294967295, 0, 4294967040, 200));
    check_i(converted(f, DT_I8), 7, INTS(-1, 0, 3, 127, 0, 127, 127));
    Tensor *d = make_f(DT_F64, 1, DIMS(4), VALS(-300, -128.9, 127.9, -129.0));
    check_i(converted(d, DT_I8), 4, INTS(-128, -128, 127, -128));
    Tensor *i = make_i(DT_I32, 1, DIMS(4), INTS(-1, 200, 65536, -129));
    check_i(converted(i, DT_U32), 4, INTS(4294967295, 200, 65536, 4294967167));
    check_i(converted(i, DT_I8), 4, INTS(-1, -56, 0, 127));
    check_f(converted(i, DT_F16), 4, VALS(-1, 200, INFINITY, -129), 0);
    Tensor *u = make_i(DT_U32, 1, DIMS(3), INTS(4294967295, 255, 2147483648));
    check_i(converted(u, DT_I32), 3, INTS(-1, 255, INT32_MIN));
    check_i(converted(u, DT_I64), 3, INTS(4294967295, 255, 2147483648));
    check_i(converted(u, DT_I8), 3, INTS(-1, -1, 0));
    check_f(converted(u, DT_F64), 3, VALS(4294967295.0, 255, 2147483648.0), 0);
    check_i(converted(u, DT_BOOL), 3, INTS(1, 1, 1));
    Tensor *h = make_f(DT_F16, 1, DIMS(4), VALS(-1, 0.5, 65504, NAN));
    check_i(converted(h, DT_U32), 4, INTS(0, 0, 65504, 0));
    check_f(converted(h, DT_BF16), 4, VALS(-1, 0.5, 65536, NAN), 0);
    check_i(converted(h, DT_BOOL), 4, INTS(1, 1, 1, 1));
    tensor_release(f);
    tensor_release(d);
    tensor_release(i);
    tensor_release(u);
    tensor_release(h);
}

/* test_kernels' all-pairs round trip holds -3, which u32 cannot: these
 * small non-negative ints survive every pair of types. */
static void test_convert_all_pairs_small_unsigned(void **state)
{
    (void)state;
    Tensor *x = make_i(DT_I32, 1, DIMS(4), INTS(0, 1, 5, 3));
    for (int from = 0; from < DT_COUNT; from++) {
        for (int to = 0; to < DT_COUNT; to++) {
            if (from == DT_TOKEN || to == DT_TOKEN) /* a token holds no data to convert */
                continue;
            Tensor *a = converted(x, (DType)from), *b = converted(a, (DType)to);
            bool via_bool = from == DT_BOOL || to == DT_BOOL;
            check_i(b, 4, via_bool ? INTS(0, 1, 1, 1) : INTS(0, 1, 5, 3));
            tensor_release(a);
        }
    }
    tensor_release(x);
}

static void test_random_inputs_of_the_new_types(void **state)
{
    (void)state;
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *h, *b, *u;
    assert_int_equal(kern_random(&ctx, DT_F16, 1, DIMS(4096), 7, 0, &h), TENSOR_OK);
    assert_int_equal(kern_random(&ctx, DT_I8, 1, DIMS(4096), 7, 1, &b), TENSOR_OK);
    assert_int_equal(kern_random(&ctx, DT_U32, 1, DIMS(4096), 7, 2, &u), TENSOR_OK);
    double lo = 1, hi = -1;
    for (int64_t i = 0; i < 4096; i++) {
        double v = tensor_get_f64(h, i);
        assert_true(v >= -1 && v < 1 && v * 1024 == floor(v * 1024));
        lo = fmin(lo, v);
        hi = fmax(hi, v);
        assert_true(tensor_get_i64(b, i) >= -8 && tensor_get_i64(b, i) < 8);
        assert_true(tensor_get_i64(u, i) >= 0 && tensor_get_i64(u, i) < 16);
    }
    assert_true(lo < -0.9 && hi > 0.9);
    tensor_release(h);
    tensor_release(b);
    tensor_release(u);
}

/* ---- the dtype table ---------------------------------------------------------------- */

static void test_spellings_and_ranges(void **state)
{
    (void)state;
    static const char *const mlir[DT_COUNT] = {
        [DT_F32] = "f32", [DT_F64] = "f64", [DT_BF16] = "bf16", [DT_F16] = "f16", [DT_I8] = "i8",
        [DT_I32] = "i32", [DT_I64] = "i64", [DT_U32] = "ui32", [DT_U64] = "ui64", [DT_BOOL] = "i1",
        [DT_TOKEN] = "!stablehlo.token", [DT_C64] = "complex<f32>", [DT_C128] = "complex<f64>",
    };
    for (int i = 0; i < DT_COUNT; i++) {
        DType a, b;
        const char *name = dtype_name((DType)i);
        assert_true(dtype_parse(name, strlen(name), &a));
        assert_true(dtype_parse_mlir(mlir[i], strlen(mlir[i]), &b));
        assert_int_equal(a, i);
        assert_int_equal(b, i);
        assert_string_equal(dtype_mlir_name((DType)i), mlir[i]);
    }
    DType d;
    assert_false(dtype_parse("ui32", 4, &d));
    assert_false(dtype_parse_mlir("u32", 3, &d));
    assert_false(dtype_parse("f1", 2, &d)); /* a prefix of f16 */
    int64_t lo, hi;
    assert_true(dtype_int_range(DT_I8, &lo, &hi) && lo == -128 && hi == 127);
    assert_true(dtype_int_range(DT_U32, &lo, &hi) && lo == 0 && hi == 4294967295);
    /* u64 literals are int64 attributes: the range stops at 2^63 - 1 */
    assert_true(dtype_int_range(DT_U64, &lo, &hi) && lo == 0 && hi == INT64_MAX);
    assert_true(dtype_int_range(DT_I64, &lo, &hi) && lo == INT64_MIN && hi == INT64_MAX);
    assert_true(dtype_int_range(DT_BOOL, &lo, &hi) && lo == 0 && hi == 1);
    assert_false(dtype_int_range(DT_F16, &lo, &hi));
    assert_false(dtype_int_range(DT_C64, &lo, &hi));
    assert_true(dtype_is_complex(DT_C128) && !dtype_is_float(DT_C64) && dtype_size(DT_C128) == 16);
    assert_true(dtype_is_int(DT_U32) && dtype_is_unsigned(DT_U32) && !dtype_is_unsigned(DT_I8));
    assert_true(dtype_is_float(DT_F16) && !dtype_is_int(DT_BOOL));
    assert_int_equal(dtype_size(DT_F16), 2);
    assert_int_equal(dtype_size(DT_I8), 1);
    assert_int_equal(dtype_size(DT_U32), 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_f16_every_pattern_decodes_and_round_trips),
        cmocka_unit_test(test_f16_rounding_cases),
        cmocka_unit_test(test_f64_to_f16_rounds_once),
        cmocka_unit_test(test_f16_matches_reference_sweeps),
        cmocka_unit_test(test_f16_arithmetic_rounds_on_store),
        cmocka_unit_test(test_f16_reduce_einsum_sort),
        cmocka_unit_test(test_u32_arithmetic_is_unsigned),
        cmocka_unit_test(test_u32_reduce_sort_dot),
        cmocka_unit_test(test_i8_wraps),
        cmocka_unit_test(test_conversions_into_the_new_types),
        cmocka_unit_test(test_convert_all_pairs_small_unsigned),
        cmocka_unit_test(test_random_inputs_of_the_new_types),
        cmocka_unit_test(test_spellings_and_ranges),
        cmocka_unit_test(test_u64_is_unsigned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
