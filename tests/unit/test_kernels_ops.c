/* Unit tests of issue 18's elementwise kernels (round_nearest_even, expm1,
 * log1p, erf, atan2, the shifts, is_finite, bitcast_convert) and of
 * reverse, dynamic_slice and dynamic_update_slice against
 * values computed by hand or from closed forms (erf(1), atan2's multiples
 * of pi, IEEE bit patterns); comments give each reference. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include "shardc/kernels.h"
#include "tensor_support.h"

static void release2(Tensor *a, Tensor *b)
{
    tensor_release(a);
    tensor_release(b);
}

/* Ties go to the even neighbour: 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, -2.5 -> -2. */
static void test_round_nearest_even(void **state)
{
    (void)state;
    Tensor *x = make_f(DT_F32, 1, DIMS(7), VALS(0.5, 1.5, 2.5, -0.5, -2.5, 2.6, -7.25));
    check_f(unary(UN_ROUND_NEAREST_EVEN, x), 7, VALS(0, 2, 2, -0.0, -2, 3, -7), 0);
    assert_true(signbit(tensor_get_f64(x, 3))); /* the input, unchanged */
    tensor_release(x);
    x = make_f(DT_BF16, 1, DIMS(2), VALS(3.5, -4.5));
    check_f(unary(UN_ROUND_NEAREST_EVEN, x), 2, VALS(4, -4), 0);
    tensor_release(x);
}

/* expm1(1e-10) is 1e-10 + 5e-21 (the series x + x^2/2), where exp(x) - 1
 * in f64 gives 1.00000008e-10; log1p likewise is x - x^2/2. */
static void test_expm1_log1p_small_arguments(void **state)
{
    (void)state;
    Tensor *x = make_f(DT_F64, 1, DIMS(3), VALS(1e-10, 1, -0.5));
    check_f(unary(UN_EXPM1, x), 3, VALS(1.00000000005e-10, 1.718281828459045, -0.3934693402873666), 1e-15);
    check_f(unary(UN_LOG1P, x), 3, VALS(9.9999999995e-11, 0.6931471805599453, -0.6931471805599453), 1e-15);
    tensor_release(x);
    x = make_f(DT_F32, 1, DIMS(2), VALS(-1, INFINITY));
    check_f(unary(UN_LOG1P, x), 2, VALS(-INFINITY, INFINITY), 0);
    check_f(unary(UN_EXPM1, x), 2, VALS(-0.6321205588285577, INFINITY), 1e-7);
    tensor_release(x);
}

/* erf(1) = 0.8427007929497149, erf(0.5) = 0.5204998778130465 (Abramowitz
 * and Stegun table 7.1); erf is odd and saturates at +-1. */
static void test_erf(void **state)
{
    (void)state;
    Tensor *x = make_f(DT_F64, 1, DIMS(5), VALS(0, 1, -0.5, 6, -INFINITY));
    check_f(unary(UN_ERF, x), 5, VALS(0, 0.8427007929497149, -0.5204998778130465, 1, -1), 1e-15);
    tensor_release(x);
}

/* atan2(y, x): the angle of (x, y): pi/4, 3pi/4, -pi/2, and the signed
 * zeros' cases atan2(+0, +0) = 0, atan2(-0, -1) = -pi. */
static void test_atan2_quadrants(void **state)
{
    (void)state;
    Tensor *y = make_f(DT_F64, 1, DIMS(5), VALS(1, 1, -2, 0, -0.0));
    Tensor *x = make_f(DT_F64, 1, DIMS(5), VALS(1, -1, 0, 0, -1));
    check_f(binary(BIN_ATAN2, y, x), 5, VALS(M_PI / 4, 3 * M_PI / 4, -M_PI / 2, 0, -M_PI), 1e-15);
    release2(y, x);
    y = make_f(DT_F32, 0, NULL, VALS(1));
    x = make_f(DT_F32, 1, DIMS(2), VALS(1, NAN));
    check_f(binary(BIN_ATAN2, y, x), 2, VALS(0.7853981633974483, NAN), 1e-7);
    release2(y, x);
}

/* i32 -8 is 0xFFFFFFF8: << 1 is -16, logical >> 1 is 0x7FFFFFFC, arithmetic
 * >> 1 is -4. Counts outside [0, 32) shift everything out. */
static void test_shifts_i32(void **state)
{
    (void)state;
    Tensor *a = make_i(DT_I32, 1, DIMS(7), INTS(1, -8, 5, 1, -1, -8, 7));
    Tensor *b = make_i(DT_I32, 1, DIMS(7), INTS(3, 1, 32, -1, 31, 40, 0));
    check_i(binary(BIN_SHIFT_LEFT, a, b), 7, INTS(8, -16, 0, 0, INT32_MIN, 0, 7));
    check_i(binary(BIN_SHIFT_RIGHT_LOGICAL, a, b), 7, INTS(0, 2147483644, 0, 0, 1, 0, 7));
    check_i(binary(BIN_SHIFT_RIGHT_ARITHMETIC, a, b), 7, INTS(0, -4, 0, 0, -1, -1, 7));
    release2(a, b);
}

/* i8 -128 is 0x80; u32 0x80000000 shifted arithmetically copies its top
 * bit (StableHLO shifts the bits, whatever the signedness). */
static void test_shifts_narrow_and_unsigned(void **state)
{
    (void)state;
    Tensor *a = make_i(DT_I8, 1, DIMS(3), INTS(-128, -128, 3));
    Tensor *b = make_i(DT_I8, 1, DIMS(3), INTS(1, 8, 6));
    check_i(binary(BIN_SHIFT_LEFT, a, b), 3, INTS(0, 0, -64));
    check_i(binary(BIN_SHIFT_RIGHT_LOGICAL, a, b), 3, INTS(64, 0, 0));
    check_i(binary(BIN_SHIFT_RIGHT_ARITHMETIC, a, b), 3, INTS(-64, -1, 0));
    release2(a, b);
    a = make_i(DT_U32, 1, DIMS(3), INTS(0x80000000LL, 0x80000000LL, 6));
    b = make_i(DT_U32, 1, DIMS(3), INTS(1, 32, 1));
    check_i(binary(BIN_SHIFT_LEFT, a, b), 3, INTS(0, 0, 12));
    check_i(binary(BIN_SHIFT_RIGHT_LOGICAL, a, b), 3, INTS(0x40000000LL, 0, 3));
    check_i(binary(BIN_SHIFT_RIGHT_ARITHMETIC, a, b), 3, INTS(0xC0000000LL, 0xFFFFFFFFLL, 3));
    release2(a, b);
}

/* 12 = 0b1100, 10 = 0b1010: and 8, or 14, xor 6; -1 is all ones. */
static void test_bitwise_ints_and_bools(void **state)
{
    (void)state;
    Tensor *a = make_i(DT_I64, 1, DIMS(2), INTS(12, -1)), *b = make_i(DT_I64, 1, DIMS(2), INTS(10, 5));
    check_i(binary(BIN_AND, a, b), 2, INTS(8, 5));
    check_i(binary(BIN_OR, a, b), 2, INTS(14, -1));
    check_i(binary(BIN_XOR, a, b), 2, INTS(6, -6));
    check_i(unary(UN_NOT, a), 2, INTS(-13, 0));
    release2(a, b);
    a = make_i(DT_BOOL, 1, DIMS(2), INTS(0, 1));
    check_i(unary(UN_NOT, a), 2, INTS(1, 0));
    tensor_release(a);
}

static void test_shift_and_atan2_dtype_errors(void **state)
{
    (void)state;
    TensorCtx ctx;
    tensor_ctx_init(&ctx, NULL);
    Tensor *f = make_f(DT_F32, 1, DIMS(1), VALS(1)), *i = make_i(DT_I32, 1, DIMS(1), INTS(1)), *y = NULL;
    assert_int_equal(kern_binary(&ctx, BIN_SHIFT_LEFT, f, f, &y), TENSOR_ERR_DTYPE);
    assert_null(y);
    assert_int_equal(kern_binary(&ctx, BIN_ATAN2, i, i, &y), TENSOR_ERR_DTYPE);
    assert_int_equal(kern_unary(&ctx, UN_ERF, i, &y), TENSOR_ERR_DTYPE);
    assert_int_equal(kern_is_finite(&ctx, i, &y), TENSOR_ERR_DTYPE);
    release2(f, i);
}

static void test_is_finite(void **state)
{
    (void)state;
    TensorCtx ctx;
    tensor_ctx_init(&ctx, NULL);
    const DType types[] = {DT_F32, DT_F64, DT_BF16, DT_F16};
    for (int t = 0; t < 4; t++) {
        Tensor *x = make_f(types[t], 1, DIMS(5), VALS(1, INFINITY, -INFINITY, NAN, -0.0)), *y;
        assert_int_equal(kern_is_finite(&ctx, x, &y), TENSOR_OK);
        assert_int_equal(y->dtype, DT_BOOL);
        check_i(y, 5, INTS(1, 0, 0, 0, 1));
        tensor_release(x);
    }
}

/* IEEE 754 single: 1.0f is 0x3F800000 = 1065353216, -0.0f is 0x80000000;
 * i32 -1 is u32 0xFFFFFFFF; bf16 1.0 is 0x3F80, which as f16 is 1.875. */
static void test_bitcast_convert(void **state)
{
    (void)state;
    TensorCtx ctx;
    tensor_ctx_init(&ctx, NULL);
    Tensor *f = make_f(DT_F32, 1, DIMS(3), VALS(1, -0.0, 2)), *y;
    assert_int_equal(kern_bitcast_convert(&ctx, f, DT_I32, &y), TENSOR_OK);
    check_i(y, 3, INTS(1065353216, INT32_MIN, 0x40000000));
    tensor_release(f);
    Tensor *i = make_i(DT_I32, 1, DIMS(1), INTS(-1));
    assert_int_equal(kern_bitcast_convert(&ctx, i, DT_U32, &y), TENSOR_OK);
    check_i(y, 1, INTS(0xFFFFFFFFLL));
    assert_int_equal(kern_bitcast_convert(&ctx, i, DT_F64, &y), TENSOR_ERR_DTYPE);
    assert_null(y);
    tensor_release(i);
    Tensor *h = make_f(DT_BF16, 1, DIMS(1), VALS(1));
    assert_int_equal(kern_bitcast_convert(&ctx, h, DT_F16, &y), TENSOR_OK);
    check_f(y, 1, VALS(1.875), 0);
    tensor_release(h);
}

/* Between widths (little-endian): f64 1.0 is 0x3FF0000000000000, as i32[2]
 * its low word 0 then its high word 0x3FF00000 = 1072693248; a minor dim
 * that is not the ratio of the widths (3 for i32 -> f64) is refused. */
static void test_bitcast_convert_widths(void **state)
{
    (void)state;
    TensorCtx ctx;
    tensor_ctx_init(&ctx, NULL);
    Tensor *f = make_f(DT_F64, 1, DIMS(2), VALS(1, -2)), *y, *back;
    assert_int_equal(kern_bitcast_convert(&ctx, f, DT_I32, &y), TENSOR_OK);
    assert_int_equal(y->rank, 2);
    assert_int_equal(y->dims[1], 2);
    assert_int_equal(kern_bitcast_convert(&ctx, y, DT_F64, &back), TENSOR_OK);
    check_i(y, 4, INTS(0, 1072693248, 0, (int32_t)0xC0000000));
    assert_int_equal(back->rank, 1);
    check_f(back, 2, VALS(1, -2), 0);
    tensor_release(f);
    Tensor *odd = make_i(DT_I32, 1, DIMS(3), INTS(1, 2, 3));
    assert_int_equal(kern_bitcast_convert(&ctx, odd, DT_F64, &y), TENSOR_ERR_DTYPE);
    assert_null(y);
    tensor_release(odd);
}

/* [[0 1 2] [3 4 5]] reversed along dim 1 is [[2 1 0] [5 4 3]], along
 * both [[5 4 3] [2 1 0]]; an empty dim reverses to nothing. */
static void test_reverse(void **state)
{
    (void)state;
    TensorCtx ctx;
    tensor_ctx_init(&ctx, NULL);
    Tensor *x = make_f(DT_F64, 2, DIMS(2, 3), VALS(0, 1, 2, 3, 4, 5)), *y;
    assert_int_equal(kern_reverse(&ctx, x, 1, DIMS(1), &y), TENSOR_OK);
    check_f(y, 6, VALS(2, 1, 0, 5, 4, 3), 0);
    assert_int_equal(kern_reverse(&ctx, x, 2, DIMS(0, 1), &y), TENSOR_OK);
    check_f(y, 6, VALS(5, 4, 3, 2, 1, 0), 0);
    assert_int_equal(kern_reverse(&ctx, x, 0, NULL, &y), TENSOR_OK);
    check_f(y, 6, VALS(0, 1, 2, 3, 4, 5), 0);
    assert_int_equal(kern_reverse(&ctx, x, 2, DIMS(1, 1), &y), TENSOR_ERR_ARG);
    assert_null(y);
    tensor_release(x);
    Tensor *b = make_i(DT_BOOL, 3, DIMS(2, 1, 2), INTS(1, 0, 0, 0));
    assert_int_equal(kern_reverse(&ctx, b, 2, DIMS(2, 0), &y), TENSOR_OK);
    check_i(y, 4, INTS(0, 0, 0, 1));
    tensor_release(b);
    Tensor *e = make_f(DT_F32, 2, DIMS(0, 3), VALS(0));
    assert_int_equal(kern_reverse(&ctx, e, 1, DIMS(0), &y), TENSOR_OK);
    assert_int_equal(y->count, 0);
    tensor_release(y);
    tensor_release(e);
}

/* Starts clamp into [0, dim - size]: on [0..5] (as 2x3), a 1x2 slice at
 * (-1, 5) starts at (0, 1): [1 2]; at (1, 1): [4 5]. */
static void test_dynamic_slice_clamps(void **state)
{
    (void)state;
    TensorCtx ctx;
    tensor_ctx_init(&ctx, NULL);
    Tensor *x = make_i(DT_I32, 2, DIMS(2, 3), INTS(0, 1, 2, 3, 4, 5)), *y;
    assert_int_equal(kern_dynamic_slice(&ctx, x, DIMS(-1, 5), DIMS(1, 2), &y), TENSOR_OK);
    check_shape(y, 2, DIMS(1, 2));
    check_i(y, 2, INTS(1, 2));
    assert_int_equal(kern_dynamic_slice(&ctx, x, DIMS(1, 1), DIMS(1, 2), &y), TENSOR_OK);
    check_i(y, 2, INTS(4, 5));
    assert_int_equal(kern_dynamic_slice(&ctx, x, DIMS(0, 0), DIMS(3, 1), &y), TENSOR_ERR_ARG);
    tensor_release(x);
}

/* [0..5] as 2x3 with [[8 9]] at (7, -2), clamped to (1, 0):
 * [[0 1 2] [8 9 5]]; the operand is left as it was. */
static void test_dynamic_update_slice_clamps(void **state)
{
    (void)state;
    TensorCtx ctx;
    tensor_ctx_init(&ctx, NULL);
    Tensor *x = make_i(DT_I64, 2, DIMS(2, 3), INTS(0, 1, 2, 3, 4, 5)), *y;
    Tensor *u = make_i(DT_I64, 2, DIMS(1, 2), INTS(8, 9));
    assert_int_equal(kern_dynamic_update_slice(&ctx, x, u, DIMS(7, -2), &y), TENSOR_OK);
    check_i(y, 6, INTS(0, 1, 2, 8, 9, 5));
    assert_int_equal(tensor_get_i64(x, 3), 3);
    assert_int_equal(kern_dynamic_update_slice(&ctx, u, x, DIMS(0, 0), &y), TENSOR_ERR_SHAPE);
    assert_null(y);
    release2(x, u);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_nearest_even),
        cmocka_unit_test(test_expm1_log1p_small_arguments),
        cmocka_unit_test(test_erf),
        cmocka_unit_test(test_atan2_quadrants),
        cmocka_unit_test(test_shifts_i32),
        cmocka_unit_test(test_shifts_narrow_and_unsigned),
        cmocka_unit_test(test_bitwise_ints_and_bools),
        cmocka_unit_test(test_shift_and_atan2_dtype_errors),
        cmocka_unit_test(test_is_finite),
        cmocka_unit_test(test_bitcast_convert),
        cmocka_unit_test(test_bitcast_convert_widths),
        cmocka_unit_test(test_reverse),
        cmocka_unit_test(test_dynamic_slice_clamps),
        cmocka_unit_test(test_dynamic_update_slice_clamps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
