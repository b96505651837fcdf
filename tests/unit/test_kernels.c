/* Unit tests of the tensor runtime: allocation, conversion and every kernel,
 * against hand-computed values. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "shardc/kernels.h"
#include "tensor_support.h"

/* ---- helpers ----------------------------------------------------------------- */

/* out is read after the call (a pointer, since argument order is unspecified). */
static void check_error(TensorStatus got, TensorStatus want, const TensorCtx *ctx,
                        Tensor *const *out)
{
    assert_int_equal(got, want);
    assert_null(*out);
    assert_true(ctx->msg[0] != '\0');
}

static void release2(Tensor *a, Tensor *b)
{
    tensor_release(a);
    tensor_release(b);
}

/* ---- tensors --------------------------------------------------------------------- */

static void test_accounting_tracks_peak(void **state)
{
    TensorAccounting acct = {0, 0};
    TensorCtx ctx;
    kernel_ctx_init(&ctx, &acct);
    Tensor *a, *b;
    assert_int_equal(tensor_new(&ctx, DT_F32, 2, DIMS(4, 8), &a), TENSOR_OK);
    assert_int_equal(tensor_new(&ctx, DT_I64, 1, DIMS(3), &b), TENSOR_OK);
    assert_int_equal(acct.current_bytes, 128 + 24);
    tensor_release(a);
    assert_int_equal(acct.current_bytes, 24);
    tensor_release(b);
    assert_int_equal(acct.current_bytes, 0);
    assert_int_equal(acct.peak_bytes, 152);
}

static void test_refcount_and_alignment(void **state)
{
    Tensor *t = make_f(DT_F32, 1, DIMS(3), VALS(1, 2, 3));
    assert_int_equal((uintptr_t)t->data % 64, 0);
    assert_ptr_equal(tensor_retain(t), t);
    tensor_release(t);
    assert_float_equal(tensor_get_f64(t, 2), 3.0, 0);
    tensor_release(t);
    tensor_release(NULL);
}

static void test_new_rejects_bad_shapes(void **state)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *t;
    int64_t count;
    check_error(tensor_new(&ctx, DT_F32, 1, DIMS(-1), &t), TENSOR_ERR_SHAPE, &ctx, &t);
    check_error(tensor_new(&ctx, DT_F32, 2, DIMS(INT64_MAX, 2), &t), TENSOR_ERR_SHAPE, &ctx, &t);
    check_error(tensor_new(&ctx, DT_F32, 17, DIMS(1), &t), TENSOR_ERR_ARG, &ctx, &t);
    check_error(tensor_new(&ctx, DT_F64, 1, DIMS(INT64_MAX / 4), &t), TENSOR_ERR_NOMEM, &ctx, &t);
    assert_true(tensor_shape_count(3, DIMS(INT64_MAX, INT64_MAX, 0), &count));
    assert_int_equal(count, 0);
}

static void test_empty_and_scalar(void **state)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *e, *s;
    assert_int_equal(tensor_new(&ctx, DT_F32, 2, DIMS(0, 3), &e), TENSOR_OK);
    assert_int_equal(e->count, 0);
    assert_non_null(e->data);
    assert_int_equal(tensor_new(&ctx, DT_I32, 0, NULL, &s), TENSOR_OK);
    assert_int_equal(s->count, 1);
    char buf[TENSOR_TYPE_STR_SIZE];
    assert_string_equal(tensor_type_str(e, buf), "f32[0,3]");
    assert_string_equal(tensor_type_str(s, buf), "i32[]");
    release2(e, s);
}

static void test_bf16_rounding(void **state)
{
    assert_int_equal(f32_to_bf16(1.0f), 0x3f80);
    /* 1 + 2^-8 is halfway between bf16 1.0 and 1.0078125: ties to even. */
    assert_int_equal(f32_to_bf16(1.00390625f), 0x3f80);
    assert_int_equal(f32_to_bf16(1.01171875f), 0x3f82);
    assert_int_equal(f32_to_bf16(1.005f), 0x3f81);
    assert_true(isnan(bf16_to_f32(f32_to_bf16(NAN))));
    assert_true(isinf(bf16_to_f32(f32_to_bf16(INFINITY))));
    assert_int_equal(f32_to_bf16(3.4e38f), 0x7f80); /* rounds up to inf */
    assert_float_equal(bf16_to_f32(0x4049), 3.140625, 0);
}

static void test_convert_float_to_int(void **state)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *x = make_f(DT_F32, 1, DIMS(7), VALS(-2.7, 2.7, 1e10, -1e10, NAN, INFINITY, -0.5)), *y;
    assert_int_equal(tensor_convert(&ctx, x, DT_I32, &y), TENSOR_OK);
    check_i(y, 7, INTS(-2, 2, INT32_MAX, INT32_MIN, 0, INT32_MAX, 0));
    assert_int_equal(tensor_convert(&ctx, x, DT_I64, &y), TENSOR_OK);
    check_i(y, 7, INTS(-2, 2, 10000000000LL, -10000000000LL, 0, INT64_MAX, 0));
    assert_int_equal(tensor_convert(&ctx, x, DT_BOOL, &y), TENSOR_OK);
    check_i(y, 7, INTS(1, 1, 1, 1, 1, 1, 1));
    tensor_release(x);
}

static void test_convert_ints_and_bools(void **state)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *x = make_i(DT_I64, 1, DIMS(4), INTS((1LL << 32) + 5, -1, 0, 3)), *y;
    assert_int_equal(tensor_convert(&ctx, x, DT_I32, &y), TENSOR_OK);
    check_i(y, 4, INTS(5, -1, 0, 3));
    assert_int_equal(tensor_convert(&ctx, x, DT_BOOL, &y), TENSOR_OK);
    check_i(y, 4, INTS(1, 1, 0, 1));
    assert_int_equal(tensor_convert(&ctx, x, DT_F32, &y), TENSOR_OK);
    check_f(y, 4, VALS(4294967301.0, -1, 0, 3), 1024);
    tensor_release(x);
}

static void test_convert_bf16(void **state)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *x = make_f(DT_F64, 1, DIMS(3), VALS(3.14159, -1e40, 0.1)), *y, *z;
    assert_int_equal(tensor_convert(&ctx, x, DT_BF16, &y), TENSOR_OK);
    assert_int_equal(((uint16_t *)y->data)[0], 0x4049);
    assert_int_equal(tensor_convert(&ctx, y, DT_I32, &z), TENSOR_OK);
    check_i(z, 3, INTS(3, INT32_MIN, 0));
    check_f(y, 3, VALS(3.140625, -INFINITY, 0.10009765625), 0);
    tensor_release(x);
}

static void test_element_access_and_scalars(void **state)
{
    Tensor *t = make_i(DT_I32, 2, DIMS(2, 3), INTS(0, 1, 2, 3, 4, 5));
    assert_int_equal(tensor_flat_index(t, DIMS(1, 2)), 5);
    assert_int_equal(tensor_get_i64(t, tensor_flat_index(t, DIMS(1, 1))), 4);
    int32_t v;
    tensor_scalar_store(DT_I32, scalar_float(-3.9), &v);
    assert_int_equal(v, -3);
    tensor_scalar_store(DT_I32, scalar_int(7), &v);
    assert_int_equal(v, 7);
    tensor_release(t);
}

static void test_nditer_collapses_contiguous(void **state)
{
    int64_t strides[2][NDITER_MAX_DIMS] = {{12, 4, 1}, {12, 4, 1}};
    NdIter it;
    nditer_init(&it, 3, DIMS(2, 3, 4), 2, strides);
    assert_int_equal(it.rank, 1);
    assert_int_equal(it.dims[0], 24);
    int64_t bcast[2][NDITER_MAX_DIMS] = {{12, 4, 1}, {0, 0, 1}};
    nditer_init(&it, 3, DIMS(2, 3, 4), 2, bcast);
    assert_int_equal(it.rank, 2);
    assert_int_equal(it.dims[0], 6);
}

/* ---- unary ------------------------------------------------------------------------ */

static void test_unary_float_math(void **state)
{
    Tensor *x = make_f(DT_F64, 1, DIMS(3), VALS(1.0, 4.0, -2.5));
    check_f(unary(UN_NEG, x), 3, VALS(-1, -4, 2.5), 0);
    check_f(unary(UN_ABS, x), 3, VALS(1, 4, 2.5), 0);
    check_f(unary(UN_SIGN, x), 3, VALS(1, 1, -1), 0);
    check_f(unary(UN_FLOOR, x), 3, VALS(1, 4, -3), 0);
    check_f(unary(UN_CEIL, x), 3, VALS(1, 4, -2), 0);
    check_f(unary(UN_EXP, x), 3, VALS(2.718281828459045, 54.598150033144236, 0.0820849986238988), 1e-12);
    check_f(unary(UN_SQRT, x), 3, VALS(1, 2, NAN), 1e-15);
    check_f(unary(UN_RSQRT, x), 3, VALS(1, 0.5, NAN), 1e-15);
    check_f(unary(UN_RELU, x), 3, VALS(1, 4, 0), 0);
    check_f(unary(UN_LOGISTIC, x), 3, VALS(0.7310585786300049, 0.9820137900379085, 0.07585818002124355), 1e-12);
    tensor_release(x);
}

static void test_unary_trig_and_log(void **state)
{
    Tensor *x = make_f(DT_F32, 1, DIMS(3), VALS(1.0, 0.5, 2.0));
    check_f(unary(UN_SIN, x), 3, VALS(0.8414709848, 0.4794255386, 0.9092974268), 1e-6);
    check_f(unary(UN_COS, x), 3, VALS(0.5403023059, 0.8775825619, -0.4161468365), 1e-6);
    check_f(unary(UN_TANH, x), 3, VALS(0.7615941560, 0.4621171573, 0.9640275801), 1e-6);
    check_f(unary(UN_LOG, x), 3, VALS(0, -0.6931471806, 0.6931471806), 1e-6);
    tensor_release(x);
}

static void test_unary_nan_and_zero_cases(void **state)
{
    Tensor *x = make_f(DT_F32, 1, DIMS(4), VALS(NAN, -0.0, 0.0, -1.0));
    check_f(unary(UN_RELU, x), 4, VALS(NAN, 0, 0, 0), 0);
    check_f(unary(UN_SIGN, x), 4, VALS(NAN, 0, 0, -1), 0);
    check_f(unary(UN_LOG, x), 4, VALS(NAN, -INFINITY, -INFINITY, NAN), 0);
    tensor_release(x);
}

static void test_gelu_matches_jax(void **state)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *x = make_f(DT_F32, 1, DIMS(5), VALS(1.0, -1.0, 2.0, 0.0, -3.0)), *y;
    assert_int_equal(kern_gelu(&ctx, x, true, &y), TENSOR_OK);
    check_f(y, 5, VALS(0.8411920071, -0.1588080094, 1.9545976941, 0, -0.0036373921), 1e-6);
    assert_int_equal(kern_gelu(&ctx, x, false, &y), TENSOR_OK);
    check_f(y, 5, VALS(0.8413447461, -0.1586552539, 1.9544997361, 0, -0.0040496941), 1e-6);
    tensor_release(x);
}

/* ---- f32 exp, tanh, logistic, gelu against libm (shardc/vecmath.h) ---------------- */

typedef double (*RefFn)(double);
static double ref_exp(double x) { return exp(x); }
static double ref_tanh(double x) { return tanh(x); }
static double ref_logistic(double x) { return 1 / (1 + exp(-x)); }
static double ref_gelu(double x) { return 0.5 * x * (1 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x))); }

/* A dense sweep: every 1021st f32 bit pattern (all binades, both signs,
 * subnormals), a 2^-12 grid on [-16, 16], the ends of the ranges and the
 * special values; NaN patterns are left out (checked separately). */
static Tensor *sweep_values(void)
{
    static const float edges[] = {0.0f, -0.0f, INFINITY, -INFINITY, 0x1p-149f, 0x1p-126f, 0.70710678f,
                                  0.70710671f, 0.70710683f, 88.72f, 88.7228394f, 88.7228470f, -87.3365479f,
                                  -103.27893f, -103.97f, -104.0f, -150.0f, 89.0f, 1e30f, -1e30f};
    int64_t n_edges = (int64_t)(sizeof edges / sizeof edges[0]), n_grid = 32 * 4096 + 1;
    int64_t n_bits = (int64_t)(0x100000000ull / 1021) + 1, n = n_edges + n_grid + n_bits;
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *t;
    assert_int_equal(tensor_new(&ctx, DT_F32, 1, DIMS(n), &t), TENSOR_OK);
    float *v = t->data;
    int64_t k = 0;
    for (int64_t i = 0; i < n_edges; i++)
        v[k++] = edges[i];
    for (int64_t i = 0; i < n_grid; i++)
        v[k++] = -16.0f + (float)i * 0x1p-12f;
    for (uint64_t b = 0; b < 0x100000000ull; b += 1021) {
        uint32_t bits = (uint32_t)b;
        memcpy(&v[k], &bits, sizeof bits);
        v[k] = isnan(v[k]) ? 1.0f : v[k];
        k++;
    }
    assert_int_equal(k, n);
    return t;
}

/* |got - want| in units of the last place of want rounded to f32 (the
 * subnormal spacing at least); infinities must match. */
static double ulp_error(float got, double want)
{
    float wf = (float)want;
    if (isinf(wf) || isinf(got))
        return got == wf ? 0 : INFINITY;
    int e;
    frexp(want, &e);
    double ulp = fmax(ldexp(1.0, e - 24), 0x1p-149);
    return fabs((double)got - want) / ulp;
}

typedef struct MathError {
    double max_ulp, max_rel, max_abs_over_x;
    float worst_x;
} MathError;

static MathError sweep_error(UnaryOp op, const Tensor *x, RefFn ref)
{
    Tensor *y = unary(op, x);
    MathError err = {0, 0, 0, 0};
    const float *in = x->data, *out = y->data;
    for (int64_t i = 0; i < x->count; i++) {
        double want = ref(in[i]), u = ulp_error(out[i], want);
        if (u > err.max_ulp)
            err.max_ulp = u, err.worst_x = in[i];
        if (isfinite((float)want) && fabs(want) >= 0x1p-126)
            err.max_rel = fmax(err.max_rel, fabs(out[i] - want) / fabs(want));
        if (isfinite(want) && in[i] != 0)
            err.max_abs_over_x = fmax(err.max_abs_over_x, fabs(out[i] - want) / fmax(fabs(in[i]), 1));
    }
    tensor_release(y);
    return err;
}

static void test_f32_math_accuracy_sweep(void **state)
{
    static const struct { UnaryOp op; const char *name; RefFn ref; double ulp; } cases[] = {
        {UN_EXP, "exp", ref_exp, 1.5}, {UN_TANH, "tanh", ref_tanh, 1.5}, {UN_LOGISTIC, "logistic", ref_logistic, 3},
    };
    Tensor *x = sweep_values();
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        MathError e = sweep_error(cases[c].op, x, cases[c].ref);
        printf("f32 %s: %lld values, max %.3f ulp (at %a), max rel %.3g\n", cases[c].name, (long long)x->count,
               e.max_ulp, e.worst_x, e.max_rel);
        if (!(e.max_ulp <= cases[c].ulp))
            fail_msg("%s: %.3f ulp at %a", cases[c].name, e.max_ulp, e.worst_x);
    }
    /* gelu's own f32 arithmetic (x^3, 1 + tanh near -1) dominates: bound
     * the error relative to max(|x|, 1). */
    MathError e = sweep_error(UN_GELU, x, ref_gelu);
    printf("f32 gelu: max |error| / max(|x|, 1) %.3g (at %a)\n", e.max_abs_over_x, e.worst_x);
    assert_true(e.max_abs_over_x <= 4e-7);
    tensor_release(x);
}

/* NaN in, NaN out; odd symmetry and limits hold exactly. */
static void test_f32_math_special_values(void **state)
{
    Tensor *x = make_f(DT_F32, 1, DIMS(7), VALS(NAN, 0.0, -0.0, INFINITY, -INFINITY, 100, -100));
    double tiny = (float)exp(-100.0); /* subnormal: 27 * 2^-149 */
    check_f(unary(UN_EXP, x), 7, VALS(NAN, 1, 1, INFINITY, 0, INFINITY, tiny), 0);
    check_f(unary(UN_TANH, x), 7, VALS(NAN, 0, -0.0, 1, -1, 1, -1), 0);
    check_f(unary(UN_LOGISTIC, x), 7, VALS(NAN, 0.5, 0.5, 1, 0, 1, tiny), 0);
    Tensor *t = unary(UN_TANH, x);
    assert_true(signbit(((float *)t->data)[2]));
    tensor_release(t);
    tensor_release(x);
    Tensor *g = make_f(DT_F32, 1, DIMS(4), VALS(0.3, -0.3, 2.5, -2.5)), *tg = unary(UN_TANH, g);
    const float *v = tg->data;
    assert_true(v[0] == -v[1] && v[2] == -v[3]);
    release2(g, tg);
}

static void test_unary_ints(void **state)
{
    Tensor *x = make_i(DT_I32, 1, DIMS(4), INTS(INT32_MIN, -5, 0, 7));
    check_i(unary(UN_NEG, x), 4, INTS(INT32_MIN, 5, 0, -7));
    check_i(unary(UN_ABS, x), 4, INTS(INT32_MIN, 5, 0, 7));
    check_i(unary(UN_SIGN, x), 4, INTS(-1, -1, 0, 1));
    check_i(unary(UN_RELU, x), 4, INTS(0, 0, 0, 7));
    check_i(unary(UN_NOT, x), 4, INTS(INT32_MAX, 4, -1, -8));
    check_i(unary(UN_FLOOR, x), 4, INTS(INT32_MIN, -5, 0, 7));
    tensor_release(x);
}

static void test_unary_dtype_errors(void **state)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *i = make_i(DT_I64, 1, DIMS(2), INTS(1, 2)), *b = make_i(DT_BOOL, 1, DIMS(2), INTS(1, 0));
    Tensor *f = make_f(DT_F32, 1, DIMS(1), VALS(1)), *y;
    check_error(kern_unary(&ctx, UN_EXP, i, &y), TENSOR_ERR_DTYPE, &ctx, &y);
    check_error(kern_unary(&ctx, UN_GELU, i, &y), TENSOR_ERR_DTYPE, &ctx, &y);
    check_error(kern_unary(&ctx, UN_NEG, b, &y), TENSOR_ERR_DTYPE, &ctx, &y);
    check_error(kern_unary(&ctx, UN_NOT, f, &y), TENSOR_ERR_DTYPE, &ctx, &y);
    check_i(unary(UN_NOT, b), 2, INTS(0, 1));
    release2(i, b);
    tensor_release(f);
}

static void test_unary_bf16_rounds_f32_result(void **state)
{
    Tensor *x = make_f(DT_BF16, 1, DIMS(2), VALS(1.0, 2.0));
    Tensor *y = unary(UN_EXP, x);
    assert_int_equal(y->dtype, DT_BF16);
    assert_int_equal(((uint16_t *)y->data)[0], f32_to_bf16(expf(1.0f)));
    assert_int_equal(((uint16_t *)y->data)[1], f32_to_bf16(expf(2.0f)));
    release2(x, y);
}

static void test_op_names(void **state)
{
    UnaryOp u;
    BinaryOp b;
    CompareOp c;
    assert_true(kern_unary_op_lookup("logistic", &u) && u == UN_LOGISTIC);
    assert_true(kern_binary_op_lookup("pow", &b) && b == BIN_POW);
    assert_true(kern_compare_op_lookup("ge", &c) && c == CMP_GE);
    assert_false(kern_unary_op_lookup("nope", &u));
    assert_string_equal(kern_unary_op_name(UN_GELU), "gelu");
    assert_string_equal(kern_binary_op_name(BIN_XOR), "xor");
    assert_string_equal(kern_compare_op_name(CMP_NE), "ne");
}

/* ---- binary ----------------------------------------------------------------------- */

static void test_binary_broadcasting(void **state)
{
    Tensor *m = make_f(DT_F32, 2, DIMS(2, 3), VALS(1, 2, 3, 4, 5, 6));
    Tensor *row = make_f(DT_F32, 1, DIMS(3), VALS(10, 20, 30));
    Tensor *col = make_f(DT_F32, 2, DIMS(2, 1), VALS(100, 200));
    Tensor *s = make_f(DT_F32, 0, NULL, VALS(0.5));
    Tensor *y = binary(BIN_ADD, m, row);
    check_shape(y, 2, DIMS(2, 3));
    check_f(y, 6, VALS(11, 22, 33, 14, 25, 36), 0);
    check_f(binary(BIN_SUB, col, row), 6, VALS(90, 80, 70, 190, 180, 170), 0);
    check_f(binary(BIN_MUL, s, m), 6, VALS(0.5, 1, 1.5, 2, 2.5, 3), 0);
    check_f(binary(BIN_DIV, m, col), 6, VALS(0.01, 0.02, 0.03, 0.02, 0.025, 0.03), 1e-7);
    release2(m, row);
    release2(col, s);
}

static void test_binary_broadcast_rank_extension(void **state)
{
    Tensor *a = make_i(DT_I32, 3, DIMS(2, 1, 2), INTS(1, 2, 3, 4));
    Tensor *b = make_i(DT_I32, 2, DIMS(3, 1), INTS(10, 20, 30));
    Tensor *y = binary(BIN_ADD, a, b);
    check_shape(y, 3, DIMS(2, 3, 2));
    check_i(y, 12, INTS(11, 12, 21, 22, 31, 32, 13, 14, 23, 24, 33, 34));
    release2(a, b);
}

static void test_binary_shape_and_dtype_errors(void **state)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *a = make_f(DT_F32, 1, DIMS(3), VALS(1, 2, 3)), *b = make_f(DT_F32, 1, DIMS(2), VALS(1, 2));
    Tensor *c = make_f(DT_F64, 1, DIMS(3), VALS(1, 2, 3)), *y;
    check_error(kern_binary(&ctx, BIN_ADD, a, b, &y), TENSOR_ERR_SHAPE, &ctx, &y);
    assert_non_null(strstr(ctx.msg, "f32[3]"));
    check_error(kern_binary(&ctx, BIN_ADD, a, c, &y), TENSOR_ERR_DTYPE, &ctx, &y);
    check_error(kern_binary(&ctx, BIN_AND, a, a, &y), TENSOR_ERR_DTYPE, &ctx, &y);
    check_error(kern_compare(&ctx, CMP_EQ, a, b, &y), TENSOR_ERR_SHAPE, &ctx, &y);
    release2(a, b);
    tensor_release(c);
}

static void test_int_division_semantics(void **state)
{
    Tensor *a = make_i(DT_I32, 1, DIMS(6), INTS(7, -7, 7, 5, INT32_MIN, -9));
    Tensor *b = make_i(DT_I32, 1, DIMS(6), INTS(2, 2, -2, 0, -1, 0));
    check_i(binary(BIN_DIV, a, b), 6, INTS(3, -3, -3, -1, INT32_MIN, -1));
    check_i(binary(BIN_REM, a, b), 6, INTS(1, -1, 1, 5, 0, -9));
    release2(a, b);
    a = make_i(DT_I64, 1, DIMS(3), INTS(INT64_MIN, 1, -8));
    b = make_i(DT_I64, 1, DIMS(3), INTS(-1, 0, 3));
    check_i(binary(BIN_DIV, a, b), 3, INTS(INT64_MIN, -1, -2));
    check_i(binary(BIN_REM, a, b), 3, INTS(0, 1, -2));
    release2(a, b);
}

static void test_int_pow_semantics(void **state)
{
    Tensor *a = make_i(DT_I32, 1, DIMS(8), INTS(2, 3, 2, 1, -1, -1, 2, -2));
    Tensor *b = make_i(DT_I32, 1, DIMS(8), INTS(10, 0, -1, -5, -3, -2, 40, 3));
    check_i(binary(BIN_POW, a, b), 8, INTS(1024, 1, 0, 1, -1, 1, 0, -8));
    release2(a, b);
    a = make_i(DT_I64, 1, DIMS(2), INTS(3, 0));
    b = make_i(DT_I64, 1, DIMS(2), INTS(39, 0));
    check_i(binary(BIN_POW, a, b), 2, INTS(4052555153018976267LL, 1));
    release2(a, b);
}

static void test_int_overflow_wraps(void **state)
{
    Tensor *a = make_i(DT_I32, 1, DIMS(3), INTS(INT32_MAX, INT32_MIN, 65536));
    Tensor *b = make_i(DT_I32, 1, DIMS(3), INTS(1, 1, 65536));
    check_i(binary(BIN_ADD, a, b), 3, INTS(INT32_MIN, INT32_MIN + 1, 131072));
    check_i(binary(BIN_SUB, a, b), 3, INTS(INT32_MAX - 1, INT32_MAX, 0));
    check_i(binary(BIN_MUL, a, b), 3, INTS(INT32_MAX, INT32_MIN, 0));
    check_i(binary(BIN_MAX, a, b), 3, INTS(INT32_MAX, 1, 65536));
    check_i(binary(BIN_XOR, a, b), 3, INTS(INT32_MAX - 1, INT32_MIN + 1, 0));
    release2(a, b);
}

static void test_float_max_min_propagate_nan(void **state)
{
    Tensor *a = make_f(DT_F32, 1, DIMS(4), VALS(NAN, 1, 3, -INFINITY));
    Tensor *b = make_f(DT_F32, 1, DIMS(4), VALS(1, NAN, 2, 0));
    check_f(binary(BIN_MAX, a, b), 4, VALS(NAN, NAN, 3, 0), 0);
    check_f(binary(BIN_MIN, a, b), 4, VALS(NAN, NAN, 2, -INFINITY), 0);
    check_f(binary(BIN_POW, a, b), 4, VALS(NAN, 1, 9, 1), 0); /* pow(1, NaN) == 1 */
    check_f(binary(BIN_REM, b, a), 4, VALS(NAN, NAN, 2, 0), 0);
    release2(a, b);
}

static void test_float_division_by_zero(void **state)
{
    Tensor *a = make_f(DT_F64, 1, DIMS(3), VALS(1, -1, 0)), *z = make_f(DT_F64, 0, NULL, VALS(0));
    check_f(binary(BIN_DIV, a, z), 3, VALS(INFINITY, -INFINITY, NAN), 0);
    release2(a, z);
}

static void test_bool_binary(void **state)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *a = make_i(DT_BOOL, 1, DIMS(4), INTS(0, 0, 1, 1)), *b = make_i(DT_BOOL, 1, DIMS(4), INTS(0, 1, 0, 1));
    Tensor *y;
    check_i(binary(BIN_ADD, a, b), 4, INTS(0, 1, 1, 1));
    check_i(binary(BIN_MUL, a, b), 4, INTS(0, 0, 0, 1));
    check_i(binary(BIN_XOR, a, b), 4, INTS(0, 1, 1, 0));
    check_i(binary(BIN_MIN, a, b), 4, INTS(0, 0, 0, 1));
    check_error(kern_binary(&ctx, BIN_SUB, a, b, &y), TENSOR_ERR_DTYPE, &ctx, &y);
    check_error(kern_binary(&ctx, BIN_DIV, a, b, &y), TENSOR_ERR_DTYPE, &ctx, &y);
    release2(a, b);
}

static void test_binary_bf16(void **state)
{
    Tensor *a = make_f(DT_BF16, 1, DIMS(2), VALS(1.0, 3.0)), *b = make_f(DT_BF16, 1, DIMS(2), VALS(0.00390625, 3.0));
    Tensor *y = binary(BIN_ADD, a, b);
    assert_int_equal(y->dtype, DT_BF16);
    check_f(y, 2, VALS(1.0, 6.0), 0); /* 1 + 2^-8 rounds back to 1 */
    check_f(binary(BIN_DIV, a, b), 2, VALS(256, 1), 0);
    release2(a, b);
}

static void test_compare_ieee(void **state)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *a = make_f(DT_F32, 1, DIMS(4), VALS(NAN, 1, 2, 3)), *b = make_f(DT_F32, 1, DIMS(4), VALS(NAN, 1, 3, NAN));
    Tensor *y;
    int64_t want[CMP_COUNT][4] = {
        [CMP_EQ] = {0, 1, 0, 0}, [CMP_NE] = {1, 0, 1, 1}, [CMP_LT] = {0, 0, 1, 0},
        [CMP_LE] = {0, 1, 1, 0}, [CMP_GT] = {0, 0, 0, 0}, [CMP_GE] = {0, 1, 0, 0},
    };
    for (int op = 0; op < CMP_COUNT; op++) {
        assert_int_equal(kern_compare(&ctx, (CompareOp)op, a, b, &y), TENSOR_OK);
        assert_int_equal(y->dtype, DT_BOOL);
        check_i(y, 4, want[op]);
    }
    release2(a, b);
}

static void test_compare_ints_broadcast(void **state)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *a = make_i(DT_I64, 2, DIMS(2, 2), INTS(1, 5, -3, 2)), *s = make_i(DT_I64, 0, NULL, INTS(2));
    Tensor *y;
    assert_int_equal(kern_compare(&ctx, CMP_GE, a, s, &y), TENSOR_OK);
    check_shape(y, 2, DIMS(2, 2));
    check_i(y, 4, INTS(0, 1, 0, 1));
    release2(a, s);
}

static void test_select_broadcasts(void **state)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *p = make_i(DT_BOOL, 2, DIMS(2, 1), INTS(1, 0));
    Tensor *a = make_f(DT_F64, 1, DIMS(3), VALS(1, 2, 3)), *b = make_f(DT_F64, 0, NULL, VALS(-1));
    Tensor *y;
    assert_int_equal(kern_select(&ctx, p, a, b, &y), TENSOR_OK);
    check_shape(y, 2, DIMS(2, 3));
    check_f(y, 6, VALS(1, 2, 3, -1, -1, -1), 0);
    check_error(kern_select(&ctx, a, a, b, &y), TENSOR_ERR_DTYPE, &ctx, &y);
    release2(p, a);
    tensor_release(b);
}

static void test_select_bf16_and_bool(void **state)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *p = make_i(DT_BOOL, 1, DIMS(2), INTS(0, 1));
    Tensor *a = make_f(DT_BF16, 1, DIMS(2), VALS(1.5, 2.5)), *b = make_f(DT_BF16, 1, DIMS(2), VALS(-1, -2));
    Tensor *y;
    assert_int_equal(kern_select(&ctx, p, a, b, &y), TENSOR_OK);
    check_f(y, 2, VALS(-1, 2.5), 0);
    assert_int_equal(kern_select(&ctx, p, p, p, &y), TENSOR_OK);
    check_i(y, 2, INTS(0, 1));
    release2(p, a);
    tensor_release(b);
}

static void test_accumulate_in_place(void **state)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *d = make_f(DT_F32, 1, DIMS(3), VALS(1, 5, NAN)), *s = make_f(DT_F32, 1, DIMS(3), VALS(2, 3, 4));
    assert_int_equal(kern_accumulate(&ctx, BIN_MAX, d, s), TENSOR_OK);
    assert_int_equal(kern_accumulate(&ctx, BIN_ADD, d, s), TENSOR_OK);
    check_f(d, 3, VALS(4, 8, NAN), 0);
    Tensor *t = make_f(DT_F32, 1, DIMS(2), VALS(0, 0));
    d = make_f(DT_F32, 1, DIMS(3), VALS(0, 0, 0));
    assert_int_equal(kern_accumulate(&ctx, BIN_ADD, d, t), TENSOR_ERR_SHAPE);
    release2(d, t);
    d = make_f(DT_BF16, 1, DIMS(3), VALS(1, 2, 3));
    assert_int_equal(kern_accumulate(&ctx, BIN_MIN, d, s), TENSOR_ERR_DTYPE);
    Tensor *s16 = make_f(DT_BF16, 1, DIMS(3), VALS(2, 1, 3));
    assert_int_equal(kern_accumulate(&ctx, BIN_MIN, d, s16), TENSOR_OK);
    check_f(d, 3, VALS(1, 1, 3), 0);
    release2(s, s16);
}

/* ---- reductions --------------------------------------------------------------------- */

static Tensor *reduce(ReduceOp op, const Tensor *x, int n, const int64_t *axes)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *y;
    assert_int_equal(kern_reduce(&ctx, op, x, n, axes, &y), TENSOR_OK);
    return y;
}

static void test_reduce_sum_axes(void **state)
{
    Tensor *x = make_f(DT_F32, 3, DIMS(2, 2, 3), VALS(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12));
    Tensor *y = reduce(RED_SUM, x, 1, INTS(0));
    check_shape(y, 2, DIMS(2, 3));
    check_f(y, 6, VALS(8, 10, 12, 14, 16, 18), 0);
    check_f(reduce(RED_SUM, x, 1, INTS(2)), 4, VALS(6, 15, 24, 33), 0);
    check_f(reduce(RED_SUM, x, 2, INTS(2, 0)), 2, VALS(30, 48), 0);
    y = reduce(RED_SUM, x, 3, INTS(0, 1, 2));
    assert_int_equal(y->rank, 0);
    check_f(y, 1, VALS(78), 0);
    check_f(reduce(RED_SUM, x, 0, NULL), 12, VALS(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12), 0);
    tensor_release(x);
}

static void test_reduce_max_min_mean(void **state)
{
    Tensor *x = make_f(DT_F64, 2, DIMS(2, 3), VALS(1, NAN, 3, -4, 5, -6));
    check_f(reduce(RED_MAX, x, 1, INTS(1)), 2, VALS(NAN, 5), 0);
    check_f(reduce(RED_MIN, x, 1, INTS(0)), 3, VALS(-4, NAN, -6), 0);
    check_f(reduce(RED_MEAN, x, 1, INTS(0)), 3, VALS(-1.5, NAN, -1.5), 0);
    Tensor *y = make_f(DT_F32, 2, DIMS(2, 2), VALS(1, 2, 3, 5));
    check_f(reduce(RED_MEAN, y, 2, INTS(0, 1)), 1, VALS(2.75), 0);
    release2(x, y);
}

static void test_reduce_ints_and_bools(void **state)
{
    Tensor *x = make_i(DT_I32, 1, DIMS(3), INTS(INT32_MAX, 1, 5));
    check_i(reduce(RED_SUM, x, 1, INTS(0)), 1, INTS(INT32_MIN + 5));
    check_i(reduce(RED_MAX, x, 1, INTS(0)), 1, INTS(INT32_MAX));
    check_i(reduce(RED_MIN, x, 1, INTS(0)), 1, INTS(1));
    Tensor *b = make_i(DT_BOOL, 2, DIMS(2, 2), INTS(0, 1, 0, 0));
    check_i(reduce(RED_SUM, b, 1, INTS(1)), 2, INTS(1, 0));
    check_i(reduce(RED_MIN, b, 1, INTS(1)), 2, INTS(0, 0));
    check_i(reduce(RED_MAX, b, 1, INTS(0)), 2, INTS(0, 1));
    release2(x, b);
}

static void test_reduce_empty_gives_identity(void **state)
{
    Tensor *f = make_f(DT_F32, 2, DIMS(0, 2), VALS(0));
    check_f(reduce(RED_SUM, f, 1, INTS(0)), 2, VALS(0, 0), 0);
    check_f(reduce(RED_MAX, f, 1, INTS(0)), 2, VALS(-INFINITY, -INFINITY), 0);
    check_f(reduce(RED_MIN, f, 1, INTS(0)), 2, VALS(INFINITY, INFINITY), 0);
    check_f(reduce(RED_MEAN, f, 1, INTS(0)), 2, VALS(NAN, NAN), 0);
    Tensor *i = make_i(DT_I64, 1, DIMS(0), INTS(0));
    check_i(reduce(RED_MAX, i, 1, INTS(0)), 1, INTS(INT64_MIN));
    check_i(reduce(RED_MIN, i, 1, INTS(0)), 1, INTS(INT64_MAX));
    release2(f, i);
}

static void test_reduce_errors(void **state)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *x = make_i(DT_I32, 2, DIMS(2, 2), INTS(1, 2, 3, 4)), *y;
    check_error(kern_reduce(&ctx, RED_MEAN, x, 1, INTS(0), &y), TENSOR_ERR_DTYPE, &ctx, &y);
    check_error(kern_reduce(&ctx, RED_SUM, x, 2, INTS(1, 1), &y), TENSOR_ERR_ARG, &ctx, &y);
    check_error(kern_reduce(&ctx, RED_SUM, x, 1, INTS(2), &y), TENSOR_ERR_ARG, &ctx, &y);
    check_error(kern_reduce(&ctx, RED_SUM, x, 1, INTS(-1), &y), TENSOR_ERR_ARG, &ctx, &y);
    tensor_release(x);
}

static void test_reduce_bf16_accumulates_in_f32(void **state)
{
    /* 256 + 1 + 1 + ... : in bf16 each +1 would be lost; f32 keeps them. */
    double v[9] = {256, 1, 1, 1, 1, 1, 1, 1, 1};
    Tensor *x = make_f(DT_BF16, 1, DIMS(9), v);
    Tensor *y = reduce(RED_SUM, x, 1, INTS(0));
    assert_int_equal(y->dtype, DT_BF16);
    check_f(y, 1, VALS(264), 0);
    check_f(reduce(RED_MEAN, x, 1, INTS(0)), 1, VALS(29.375), 0); /* 264/9 in bf16 */
    tensor_release(x);
}

static void test_allclose(void **state)
{
    Tensor *a = make_f(DT_F32, 1, DIMS(4), VALS(1, NAN, INFINITY, 100));
    Tensor *b = make_f(DT_F32, 1, DIMS(4), VALS(1.0000001, NAN, INFINITY, 101));
    TensorDiff diff;
    assert_false(tensor_allclose(a, b, 1e-5, 1e-6, &diff));
    assert_int_equal(diff.mismatches, 1);
    assert_int_equal(diff.first_index, 3);
    assert_float_equal(diff.max_abs_err, 1.0, 1e-6);
    assert_true(tensor_allclose(a, b, 0.02, 0, NULL));
    Tensor *i = make_i(DT_I32, 1, DIMS(2), INTS(1, 2)), *j = make_i(DT_I32, 1, DIMS(2), INTS(1, 3));
    assert_false(tensor_allclose(i, j, 1, 1, NULL));
    assert_false(tensor_allclose(a, i, 1, 1, NULL));
    release2(a, b);
    release2(i, j);
}

/* ---- einsum ----------------------------------------------------------------------------- */

static Tensor *einsum2(const char *spec, const Tensor *a, const Tensor *b, EinsumPath path)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    const Tensor *ops[2] = {a, b};
    Tensor *y;
    TensorStatus st = kern_einsum_path(&ctx, spec, b ? 2 : 1, ops, path, &y);
    if (st != TENSOR_OK)
        fail_msg("einsum %s: %s", spec, ctx.msg);
    return y;
}

static void test_einsum_matmul_both_paths(void **state)
{
    Tensor *a = make_f(DT_F32, 2, DIMS(2, 3), VALS(1, 2, 3, 4, 5, 6));
    Tensor *b = make_f(DT_F32, 2, DIMS(3, 2), VALS(7, 8, 9, 10, 11, 12));
    for (int path = EINSUM_AUTO; path <= EINSUM_GENERIC; path++) {
        Tensor *y = einsum2("ij,jk->ik", a, b, (EinsumPath)path);
        check_shape(y, 2, DIMS(2, 2));
        check_f(y, 4, VALS(58, 64, 139, 154), 0);
        check_f(einsum2("ij,jk->ki", a, b, (EinsumPath)path), 4, VALS(58, 139, 64, 154), 0);
    }
    check_f(einsum2("ij, jk", a, b, EINSUM_AUTO), 4, VALS(58, 64, 139, 154), 0);
    release2(a, b);
}

static void test_einsum_batched(void **state)
{
    Tensor *a = make_f(DT_F64, 3, DIMS(2, 2, 3), VALS(1, 2, 3, 4, 5, 6, 1, 0, 0, 0, 1, 0));
    Tensor *b = make_f(DT_F64, 3, DIMS(2, 3, 2), VALS(7, 8, 9, 10, 11, 12, 7, 8, 9, 10, 11, 12));
    check_f(einsum2("bij,bjk->bik", a, b, EINSUM_AUTO), 8, VALS(58, 64, 139, 154, 7, 8, 9, 10), 0);
    check_f(einsum2("bij,bjk->bik", a, b, EINSUM_GENERIC), 8, VALS(58, 64, 139, 154, 7, 8, 9, 10), 0);
    release2(a, b);
}

static void test_einsum_single_operand(void **state)
{
    Tensor *m = make_f(DT_F32, 2, DIMS(2, 2), VALS(1, 2, 3, 4));
    check_f(einsum2("ii->", m, NULL, EINSUM_AUTO), 1, VALS(5), 0);
    check_f(einsum2("ii->i", m, NULL, EINSUM_AUTO), 2, VALS(1, 4), 0);
    check_f(einsum2("ij->ji", m, NULL, EINSUM_AUTO), 4, VALS(1, 3, 2, 4), 0);
    check_f(einsum2("ji", m, NULL, EINSUM_AUTO), 4, VALS(1, 3, 2, 4), 0);
    check_f(einsum2("ij->", m, NULL, EINSUM_AUTO), 1, VALS(10), 0);
    check_f(einsum2("ij->j", m, NULL, EINSUM_AUTO), 2, VALS(4, 6), 0);
    tensor_release(m);
}

static void test_einsum_vectors(void **state)
{
    Tensor *u = make_f(DT_F32, 1, DIMS(3), VALS(1, 2, 3)), *v = make_f(DT_F32, 1, DIMS(3), VALS(4, 5, 6));
    Tensor *w = make_f(DT_F32, 1, DIMS(2), VALS(1, 2));
    check_f(einsum2("i,i->", u, v, EINSUM_AUTO), 1, VALS(32), 0);
    Tensor *y = einsum2("i,j->ij", w, u, EINSUM_AUTO);
    check_shape(y, 2, DIMS(2, 3));
    check_f(y, 6, VALS(1, 2, 3, 2, 4, 6), 0);
    /* k only in the rhs and not in the output: summed out before sgemm. */
    Tensor *m = make_f(DT_F32, 2, DIMS(3, 2), VALS(1, 2, 3, 4, 5, 6));
    check_f(einsum2("i,jk->i", u, m, EINSUM_AUTO), 3, VALS(21, 42, 63), 0);
    check_f(einsum2("i,jk->i", u, m, EINSUM_GENERIC), 3, VALS(21, 42, 63), 0);
    release2(u, v);
    release2(w, m);
}

static void test_einsum_ints_wrap_and_bools(void **state)
{
    Tensor *a = make_i(DT_I32, 1, DIMS(2), INTS(65536, 65536)), *b = make_i(DT_I32, 1, DIMS(2), INTS(65536, 1));
    check_i(einsum2("i,i->", a, b, EINSUM_AUTO), 1, INTS(65536));
    release2(a, b);
    a = make_i(DT_BOOL, 2, DIMS(2, 2), INTS(1, 0, 0, 0));
    b = make_i(DT_BOOL, 2, DIMS(2, 2), INTS(0, 1, 1, 0));
    check_i(einsum2("ij,jk->ik", a, b, EINSUM_AUTO), 4, INTS(0, 1, 0, 0));
    release2(a, b);
    a = make_i(DT_I64, 2, DIMS(2, 2), INTS(1, 2, 3, 4));
    check_i(einsum2("ij,jk->ik", a, a, EINSUM_AUTO), 4, INTS(7, 10, 15, 22));
    tensor_release(a);
}

static void test_einsum_errors(void **state)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *a = make_f(DT_F32, 2, DIMS(2, 3), VALS(1, 2, 3, 4, 5, 6)), *y;
    Tensor *i = make_i(DT_I32, 2, DIMS(3, 2), INTS(1, 2, 3, 4, 5, 6));
    const Tensor *aa[2] = {a, a}, *ai[2] = {a, i};
    check_error(kern_einsum(&ctx, "ij,jk->ik", 2, aa, &y), TENSOR_ERR_SHAPE, &ctx, &y);
    check_error(kern_einsum(&ctx, "ijk->i", 1, aa, &y), TENSOR_ERR_SHAPE, &ctx, &y);
    check_error(kern_einsum(&ctx, "iJ->i", 1, aa, &y), TENSOR_ERR_ARG, &ctx, &y);
    check_error(kern_einsum(&ctx, "ij->iz", 1, aa, &y), TENSOR_ERR_ARG, &ctx, &y);
    check_error(kern_einsum(&ctx, "ij->ii", 1, aa, &y), TENSOR_ERR_ARG, &ctx, &y);
    check_error(kern_einsum(&ctx, "ij,jk,kl->il", 2, aa, &y), TENSOR_ERR_ARG, &ctx, &y);
    check_error(kern_einsum(&ctx, "ij,jk->ik", 1, aa, &y), TENSOR_ERR_ARG, &ctx, &y);
    check_error(kern_einsum(&ctx, "ij,jk->ik", 2, ai, &y), TENSOR_ERR_DTYPE, &ctx, &y);
    check_error(kern_einsum(&ctx, "ij->i)", 1, aa, &y), TENSOR_ERR_ARG, &ctx, &y);
    release2(a, i);
}

/* Random operands in the given label layouts; BLAS and loops must agree. */
static void agree(const char *spec, DType dtype, const int64_t *adims, int arank,
                  const int64_t *bdims, int brank, uint64_t seed)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *a, *b;
    assert_int_equal(kern_random(&ctx, dtype, arank, adims, seed, 0, &a), TENSOR_OK);
    assert_int_equal(kern_random(&ctx, dtype, brank, bdims, seed, 1, &b), TENSOR_OK);
    Tensor *fast = einsum2(spec, a, b, EINSUM_AUTO), *slow = einsum2(spec, a, b, EINSUM_GENERIC);
    TensorDiff diff;
    if (!tensor_allclose(fast, slow, 1e-4, 1e-4, &diff))
        fail_msg("%s: %lld mismatches, first at %lld: %g vs %g", spec, (long long)diff.mismatches,
                 (long long)diff.first_index, diff.a_value, diff.b_value);
    release2(fast, slow);
    release2(a, b);
}

static void test_einsum_blas_agrees_with_loops(void **state)
{
    agree("mk,kn->mn", DT_F32, DIMS(17, 33), 2, DIMS(33, 9), 2, 1);
    agree("km,kn->mn", DT_F32, DIMS(33, 17), 2, DIMS(33, 9), 2, 2);
    agree("mk,nk->mn", DT_F32, DIMS(17, 33), 2, DIMS(9, 33), 2, 3);
    agree("km,nk->nm", DT_F32, DIMS(33, 17), 2, DIMS(9, 33), 2, 4);
    agree("bmk,bkn->bmn", DT_F32, DIMS(3, 7, 5), 3, DIMS(3, 5, 6), 3, 5);
    agree("mbk,bkn->bnm", DT_F32, DIMS(7, 3, 5), 3, DIMS(3, 5, 6), 3, 6);
    agree("bhqd,bhkd->bhqk", DT_F32, DIMS(2, 3, 5, 8), 4, DIMS(2, 3, 6, 8), 4, 7);
    agree("abc,cd->abd", DT_F64, DIMS(2, 3, 4), 3, DIMS(4, 5), 2, 8);
    agree("xkm,kzn->nmz", DT_F64, DIMS(3, 4, 5), 3, DIMS(4, 2, 6), 3, 9);
    agree("ij,jk->ik", DT_F32, DIMS(0, 4), 2, DIMS(4, 3), 2, 10);
    agree("ij,jk->ik", DT_F32, DIMS(2, 0), 2, DIMS(0, 3), 2, 11);
}

static void test_einsum_bf16(void **state)
{
    Tensor *a = make_f(DT_BF16, 2, DIMS(1, 2), VALS(1, 1)), *b = make_f(DT_BF16, 2, DIMS(2, 1), VALS(256, 1));
    Tensor *y = einsum2("ij,jk->ik", a, b, EINSUM_AUTO);
    assert_int_equal(y->dtype, DT_BF16);
    check_f(y, 1, VALS(256), 0); /* 257 rounds to even in bf16 */
    check_f(einsum2("ij,jk->ik", a, b, EINSUM_GENERIC), 1, VALS(256), 0);
    release2(a, b);
}

/* ---- shape ops ------------------------------------------------------------------------------ */

static void test_transpose(void **state)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *x = make_i(DT_I32, 3, DIMS(2, 3, 2), INTS(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)), *y;
    assert_int_equal(kern_transpose(&ctx, x, INTS(2, 0, 1), &y), TENSOR_OK);
    check_shape(y, 3, DIMS(2, 2, 3));
    check_i(y, 12, INTS(0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9, 11));
    check_error(kern_transpose(&ctx, x, INTS(0, 0, 1), &y), TENSOR_ERR_ARG, &ctx, &y);
    check_error(kern_transpose(&ctx, x, INTS(0, 1, 3), &y), TENSOR_ERR_ARG, &ctx, &y);
    tensor_release(x);
}

static void test_reshape(void **state)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *x = make_f(DT_F32, 2, DIMS(2, 3), VALS(1, 2, 3, 4, 5, 6)), *y;
    assert_int_equal(kern_reshape(&ctx, x, 3, DIMS(3, 1, 2), &y), TENSOR_OK);
    check_shape(y, 3, DIMS(3, 1, 2));
    check_f(y, 6, VALS(1, 2, 3, 4, 5, 6), 0);
    check_error(kern_reshape(&ctx, x, 1, DIMS(5), &y), TENSOR_ERR_SHAPE, &ctx, &y);
    check_error(kern_reshape(&ctx, x, 1, DIMS(-6), &y), TENSOR_ERR_SHAPE, &ctx, &y);
    tensor_release(x);
}

static void test_broadcast_in_dim(void **state)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *v = make_i(DT_I64, 1, DIMS(2), INTS(1, 2)), *s = make_i(DT_I64, 0, NULL, INTS(7)), *y;
    assert_int_equal(kern_broadcast_in_dim(&ctx, v, 2, DIMS(2, 3), INTS(0), &y), TENSOR_OK);
    check_i(y, 6, INTS(1, 1, 1, 2, 2, 2));
    assert_int_equal(kern_broadcast_in_dim(&ctx, v, 2, DIMS(3, 2), INTS(1), &y), TENSOR_OK);
    check_i(y, 6, INTS(1, 2, 1, 2, 1, 2));
    assert_int_equal(kern_broadcast_in_dim(&ctx, s, 2, DIMS(1, 2), NULL, &y), TENSOR_OK);
    check_i(y, 2, INTS(7, 7));
    check_error(kern_broadcast_in_dim(&ctx, v, 2, DIMS(3, 3), INTS(1), &y), TENSOR_ERR_SHAPE, &ctx, &y);
    check_error(kern_broadcast_in_dim(&ctx, v, 2, DIMS(2, 2), INTS(2), &y), TENSOR_ERR_ARG, &ctx, &y);
    release2(v, s);
}

static void test_broadcast_in_dim_size_one(void **state)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *x = make_f(DT_F32, 2, DIMS(2, 1), VALS(5, 6)), *y;
    assert_int_equal(kern_broadcast_in_dim(&ctx, x, 3, DIMS(2, 2, 3), INTS(1, 2), &y), TENSOR_OK);
    check_f(y, 12, VALS(5, 5, 5, 6, 6, 6, 5, 5, 5, 6, 6, 6), 0);
    check_error(kern_broadcast_in_dim(&ctx, x, 2, DIMS(2, 2), INTS(1, 1), &y), TENSOR_ERR_ARG, &ctx, &y);
    tensor_release(x);
}

static void test_concatenate(void **state)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *a = make_i(DT_I32, 2, DIMS(2, 1), INTS(1, 2)), *b = make_i(DT_I32, 2, DIMS(2, 2), INTS(3, 4, 5, 6));
    Tensor *y;
    const Tensor *ab[2] = {a, b}, *bb[2] = {b, b};
    assert_int_equal(kern_concatenate(&ctx, 2, ab, 1, &y), TENSOR_OK);
    check_shape(y, 2, DIMS(2, 3));
    check_i(y, 6, INTS(1, 3, 4, 2, 5, 6));
    assert_int_equal(kern_concatenate(&ctx, 2, bb, 0, &y), TENSOR_OK);
    check_i(y, 8, INTS(3, 4, 5, 6, 3, 4, 5, 6));
    check_error(kern_concatenate(&ctx, 2, ab, 0, &y), TENSOR_ERR_SHAPE, &ctx, &y);
    check_error(kern_concatenate(&ctx, 2, ab, 2, &y), TENSOR_ERR_ARG, &ctx, &y);
    check_error(kern_concatenate(&ctx, 0, ab, 0, &y), TENSOR_ERR_ARG, &ctx, &y);
    release2(a, b);
}

static void test_slice(void **state)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *x = make_i(DT_I64, 2, DIMS(3, 4), INTS(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)), *y;
    assert_int_equal(kern_slice(&ctx, x, INTS(1, 0), INTS(3, 4), INTS(1, 2), &y), TENSOR_OK);
    check_shape(y, 2, DIMS(2, 2));
    check_i(y, 4, INTS(4, 6, 8, 10));
    assert_int_equal(kern_slice(&ctx, x, INTS(0, 1), INTS(3, 4), INTS(2, 3), &y), TENSOR_OK);
    check_i(y, 2, INTS(1, 9));
    assert_int_equal(kern_slice(&ctx, x, INTS(2, 2), INTS(2, 4), NULL, &y), TENSOR_OK);
    check_shape(y, 2, DIMS(0, 2));
    tensor_release(y);
    check_error(kern_slice(&ctx, x, INTS(0, 0), INTS(4, 4), NULL, &y), TENSOR_ERR_ARG, &ctx, &y);
    check_error(kern_slice(&ctx, x, INTS(2, 0), INTS(1, 4), NULL, &y), TENSOR_ERR_ARG, &ctx, &y);
    check_error(kern_slice(&ctx, x, INTS(0, 0), INTS(1, 4), INTS(1, 0), &y), TENSOR_ERR_ARG, &ctx, &y);
    tensor_release(x);
}

/* A padded shard (sharding_block of 10 rows on 4 devices): device 3 holds
 * row 9 and two rows of zeros; inserting it back writes only row 9. */
static void test_padded_blocks(void **state)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *x = make_i(DT_I32, 2, DIMS(10, 2), INTS(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17,
                                                     18, 19)), *y, *z;
    assert_int_equal(tensor_extract_padded(&ctx, x, INTS(9, 0), INTS(1, 2), INTS(3, 2), &y), TENSOR_OK);
    check_shape(y, 2, DIMS(3, 2));
    Tensor *copy = tensor_retain(y);
    check_i(y, 6, INTS(18, 19, 0, 0, 0, 0));
    assert_int_equal(tensor_extract_padded(&ctx, x, INTS(3, 0), INTS(3, 2), INTS(3, 2), &z), TENSOR_OK);
    check_i(z, 6, INTS(6, 7, 8, 9, 10, 11));
    Tensor *dst = make_i(DT_I32, 2, DIMS(10, 2), INTS(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
    assert_int_equal(tensor_insert_valid(&ctx, dst, copy, INTS(9, 0), INTS(1, 2)), TENSOR_OK);
    check_i(dst, 20, INTS(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 18, 19));
    /* A shard wholly past the end: no real element. */
    assert_int_equal(tensor_extract_padded(&ctx, x, INTS(10, 0), INTS(0, 2), INTS(3, 2), &y), TENSOR_OK);
    check_i(y, 6, INTS(0, 0, 0, 0, 0, 0));
    tensor_release(copy);
    tensor_release(x);
}

static void test_pad(void **state)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *x = make_f(DT_F32, 2, DIMS(2, 2), VALS(1, 2, 3, 4)), *y;
    assert_int_equal(kern_pad(&ctx, x, INTS(1, 0), INTS(0, 1), NULL, scalar_float(-1), &y), TENSOR_OK);
    check_shape(y, 2, DIMS(3, 3));
    check_f(y, 9, VALS(-1, -1, -1, 1, 2, -1, 3, 4, -1), 0);
    assert_int_equal(kern_pad(&ctx, x, INTS(0, 1), INTS(0, 0), INTS(1, 1), scalar_int(0), &y), TENSOR_OK);
    check_shape(y, 2, DIMS(3, 4));
    check_f(y, 12, VALS(0, 1, 0, 2, 0, 0, 0, 0, 0, 3, 0, 4), 0);
    tensor_release(x);
}

static void test_pad_negative_crops(void **state)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *x = make_i(DT_I32, 1, DIMS(5), INTS(1, 2, 3, 4, 5)), *y;
    assert_int_equal(kern_pad(&ctx, x, INTS(-2), INTS(1), NULL, scalar_int(9), &y), TENSOR_OK);
    check_i(y, 4, INTS(3, 4, 5, 9));
    assert_int_equal(kern_pad(&ctx, x, INTS(-1), INTS(-2), INTS(1), scalar_int(0), &y), TENSOR_OK);
    check_i(y, 6, INTS(0, 2, 0, 3, 0, 4));
    assert_int_equal(kern_pad(&ctx, x, INTS(-5), INTS(2), NULL, scalar_int(7), &y), TENSOR_OK);
    check_i(y, 2, INTS(7, 7));
    check_error(kern_pad(&ctx, x, INTS(-6), INTS(0), NULL, scalar_int(0), &y), TENSOR_ERR_ARG, &ctx, &y);
    check_error(kern_pad(&ctx, x, INTS(0), INTS(0), INTS(-1), scalar_int(0), &y), TENSOR_ERR_ARG, &ctx, &y);
    check_error(kern_pad(&ctx, x, INTS(INT64_MAX), INTS(INT64_MAX), NULL, scalar_int(0), &y),
                TENSOR_ERR_ARG, &ctx, &y);
    /* Extreme but valid: everything cropped, the size works out to 4. */
    assert_int_equal(kern_pad(&ctx, x, INTS(INT64_MIN), INTS(INT64_MAX), NULL, scalar_int(0), &y),
                     TENSOR_OK);
    check_i(y, 4, INTS(0, 0, 0, 0));
    tensor_release(x);
}

static void test_iota_full_constant(void **state)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *y;
    assert_int_equal(kern_iota(&ctx, DT_F32, 2, DIMS(2, 3), 1, &y), TENSOR_OK);
    check_f(y, 6, VALS(0, 1, 2, 0, 1, 2), 0);
    assert_int_equal(kern_iota(&ctx, DT_I64, 2, DIMS(2, 3), 0, &y), TENSOR_OK);
    check_i(y, 6, INTS(0, 0, 0, 1, 1, 1));
    assert_int_equal(kern_iota(&ctx, DT_BOOL, 1, DIMS(3), 0, &y), TENSOR_OK);
    check_i(y, 3, INTS(0, 1, 1));
    check_error(kern_iota(&ctx, DT_I32, 1, DIMS(3), 1, &y), TENSOR_ERR_ARG, &ctx, &y);
    assert_int_equal(kern_full(&ctx, DT_BF16, 2, DIMS(3, 5), scalar_float(1.5), &y), TENSOR_OK);
    check_f(y, 15, VALS(1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5), 0);
    TensorScalar vals[3] = {scalar_int(1), scalar_float(2.5), scalar_int(-3)};
    assert_int_equal(kern_constant(&ctx, DT_F64, 1, DIMS(3), 3, vals, &y), TENSOR_OK);
    check_f(y, 3, VALS(1, 2.5, -3), 0);
    check_error(kern_constant(&ctx, DT_F64, 1, DIMS(4), 3, vals, &y), TENSOR_ERR_SHAPE, &ctx, &y);
}

static void test_blocks(void **state)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *x = make_i(DT_I32, 2, DIMS(3, 4), INTS(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)), *b;
    assert_int_equal(tensor_extract_block(&ctx, x, INTS(1, 2), DIMS(2, 2), &b), TENSOR_OK);
    check_shape(b, 2, DIMS(2, 2));
    Tensor *z = make_i(DT_I32, 2, DIMS(2, 2), INTS(-1, -2, -3, -4));
    assert_int_equal(tensor_insert_block(&ctx, x, z, INTS(0, 1)), TENSOR_OK);
    check_i(b, 4, INTS(6, 7, 10, 11));
    check_error(tensor_extract_block(&ctx, x, INTS(2, 0), DIMS(2, 2), &b), TENSOR_ERR_ARG, &ctx, &b);
    assert_int_equal(tensor_insert_block(&ctx, x, z, INTS(0, 3)), TENSOR_ERR_ARG);
    check_i(x, 12, INTS(0, -1, -2, 3, 4, -3, -4, 7, 8, 9, 10, 11));
    tensor_release(z);
}

/* ---- sorting ---------------------------------------------------------------------------- */

static void test_sort_nan_last_and_descending(void **state)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *x = make_f(DT_F32, 1, DIMS(6), VALS(3, NAN, -1, INFINITY, 2, -INFINITY)), *y;
    assert_int_equal(kern_sort(&ctx, x, 0, false, &y), TENSOR_OK);
    check_f(y, 6, VALS(-INFINITY, -1, 2, 3, INFINITY, NAN), 0);
    assert_int_equal(kern_sort(&ctx, x, 0, true, &y), TENSOR_OK);
    check_f(y, 6, VALS(NAN, INFINITY, 3, 2, -1, -INFINITY), 0);
    tensor_release(x);
}

static void test_sort_is_stable(void **state)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    /* -0.0 and 0.0 compare equal: a stable sort keeps their order. */
    Tensor *x = make_f(DT_F64, 1, DIMS(4), VALS(0.0, 1.0, -0.0, -1.0)), *y;
    assert_int_equal(kern_sort(&ctx, x, 0, false, &y), TENSOR_OK);
    assert_false(signbit(tensor_get_f64(y, 1)));
    assert_true(signbit(tensor_get_f64(y, 2)));
    tensor_release(y);
    assert_int_equal(kern_sort(&ctx, x, 0, true, &y), TENSOR_OK);
    assert_true(signbit(tensor_get_f64(y, 1)));
    assert_false(signbit(tensor_get_f64(y, 2)));
    tensor_release(y);
    tensor_release(x);
}

static void test_sort_along_axis(void **state)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *x = make_i(DT_I32, 2, DIMS(3, 2), INTS(5, 1, -2, 7, 3, 0)), *y;
    assert_int_equal(kern_sort(&ctx, x, 0, false, &y), TENSOR_OK);
    check_i(y, 6, INTS(-2, 0, 3, 1, 5, 7));
    assert_int_equal(kern_sort(&ctx, x, 1, true, &y), TENSOR_OK);
    check_i(y, 6, INTS(5, 1, 7, -2, 3, 0));
    check_error(kern_sort(&ctx, x, 2, false, &y), TENSOR_ERR_ARG, &ctx, &y);
    tensor_release(x);
    x = make_f(DT_BF16, 1, DIMS(3), VALS(2, -1, 0.5));
    assert_int_equal(kern_sort(&ctx, x, 0, false, &y), TENSOR_OK);
    check_f(y, 3, VALS(-1, 0.5, 2), 0);
    tensor_release(x);
}

static void test_argmax(void **state)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *x = make_f(DT_F32, 2, DIMS(3, 3), VALS(1, 5, 5, NAN, 2, NAN, 0, 0, 0)), *y;
    assert_int_equal(kern_argmax(&ctx, x, 1, &y), TENSOR_OK);
    assert_int_equal(y->dtype, DT_I32);
    check_shape(y, 1, DIMS(3));
    check_i(y, 3, INTS(1, 0, 0));
    assert_int_equal(kern_argmax(&ctx, x, 0, &y), TENSOR_OK);
    check_i(y, 3, INTS(1, 0, 1));
    tensor_release(x);
    x = make_i(DT_I64, 1, DIMS(4), INTS(-5, 9, 9, 2));
    assert_int_equal(kern_argmax(&ctx, x, 0, &y), TENSOR_OK);
    assert_int_equal(y->rank, 0);
    check_i(y, 1, INTS(1));
    tensor_release(x);
    x = make_f(DT_F32, 2, DIMS(2, 0), VALS(0));
    check_error(kern_argmax(&ctx, x, 1, &y), TENSOR_ERR_SHAPE, &ctx, &y);
    tensor_release(x);
}

static void test_top_k(void **state)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *x = make_f(DT_F32, 2, DIMS(2, 5), VALS(9, 3, 6, 4, 10, 1, 7, 7, NAN, 7)), *v, *i;
    assert_int_equal(kern_top_k(&ctx, x, 3, &v, &i), TENSOR_OK);
    check_shape(v, 2, DIMS(2, 3));
    check_f(v, 6, VALS(10, 9, 6, NAN, 7, 7), 0);
    check_i(i, 6, INTS(4, 0, 2, 3, 1, 2));
    assert_int_equal(kern_top_k(&ctx, x, 0, &v, &i), TENSOR_OK);
    check_shape(v, 2, DIMS(2, 0));
    release2(v, i);
    assert_int_equal(kern_top_k(&ctx, x, 6, &v, &i), TENSOR_ERR_ARG);
    assert_null(v);
    assert_null(i);
    tensor_release(x);
}

static void test_top_k_ties_ints(void **state)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *x = make_i(DT_I32, 1, DIMS(14), INTS(1, 1, 0, 1, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0)), *v, *i;
    assert_int_equal(kern_top_k(&ctx, x, 3, &v, &i), TENSOR_OK);
    check_i(v, 3, INTS(1, 1, 1));
    check_i(i, 3, INTS(0, 1, 3));
    tensor_release(x);
}

/* ---- rng --------------------------------------------------------------------------------- */

static void test_rng_deterministic_and_indexed(void **state)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *a, *b, *c;
    assert_int_equal(kern_random(&ctx, DT_F32, 1, DIMS(100), 42, 3, &a), TENSOR_OK);
    assert_int_equal(kern_random(&ctx, DT_F32, 2, DIMS(5, 4), 42, 3, &b), TENSOR_OK);
    assert_int_equal(kern_random(&ctx, DT_F32, 1, DIMS(100), 42, 4, &c), TENSOR_OK);
    assert_memory_equal(a->data, b->data, b->nbytes);
    assert_memory_not_equal(a->data, c->data, a->nbytes);
    assert_int_equal(rng_bits(1, 2, 3), rng_bits(1, 2, 3));
    assert_int_not_equal(rng_bits(1, 2, 3), rng_bits(1, 2, 4));
    assert_int_not_equal(rng_bits(1, 2, 3), rng_bits(2, 2, 3));
    release2(a, b);
    tensor_release(c);
}

static void test_rng_ranges(void **state)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    static const DType dtypes[] = {DT_F32, DT_F64, DT_BF16, DT_I32, DT_I64, DT_BOOL};
    static const double lo[] = {-1, -1, -1, -8, -8, 0}, hi[] = {1, 1, 1, 8, 8, 2};
    for (int d = 0; d < 6; d++) {
        Tensor *t;
        assert_int_equal(kern_random(&ctx, dtypes[d], 1, DIMS(4096), 7, 0, &t), TENSOR_OK);
        double min = INFINITY, max = -INFINITY, sum = 0;
        for (int64_t i = 0; i < t->count; i++) {
            double v = tensor_get_f64(t, i);
            min = v < min ? v : min;
            max = v > max ? v : max;
            sum += v;
        }
        assert_true(min >= lo[d] && max < hi[d]);
        assert_true(max - min >= (hi[d] - lo[d]) * 0.5); /* actually spread out */
        assert_true(fabs(sum / 4096 - (lo[d] + hi[d] - (dtype_is_float(dtypes[d]) ? 0 : 1)) / 2) < 0.25);
        tensor_release(t);
    }
}

/* ---- consistency on random data ---------------------------------------------------------- */

static void test_accumulate_self_ints_bools(void **state)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *x = make_i(DT_I64, 1, DIMS(3), INTS(1, -2, INT64_MAX));
    assert_int_equal(kern_accumulate(&ctx, BIN_ADD, x, x), TENSOR_OK);
    check_i(x, 3, INTS(2, -4, -2));
    Tensor *b = make_i(DT_BOOL, 1, DIMS(2), INTS(0, 1)), *c = make_i(DT_BOOL, 1, DIMS(2), INTS(1, 1));
    assert_int_equal(kern_accumulate(&ctx, BIN_MIN, c, b), TENSOR_OK);
    check_i(c, 2, INTS(0, 1));
    assert_int_equal(kern_accumulate(&ctx, BIN_SUB, b, b), TENSOR_ERR_DTYPE);
    tensor_release(b);
}

static void test_types_and_broadcast_shape(void **state)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    int64_t dims[2] = {2, 3}, out_dims[SHARDC_MAX_RANK];
    TensorType type = {DT_F64, 2, dims};
    Tensor *t, *u = make_f(DT_F64, 1, DIMS(3), VALS(1, 2, 3));
    assert_int_equal(tensor_new_for_type(&ctx, &type, &t), TENSOR_OK);
    assert_true(tensor_matches_type(t, &type));
    assert_false(tensor_matches_type(u, &type));
    const Tensor *xs[2] = {t, u};
    int rank;
    assert_int_equal(kern_broadcast_shape(&ctx, "add", 2, xs, &rank, out_dims), TENSOR_OK);
    assert_int_equal(rank, 2);
    assert_int_equal(out_dims[1], 3);
    check_f(unary(UN_EXP, t), 6, VALS(1, 1, 1, 1, 1, 1), 0);
    release2(t, u);
}

static void test_convert_all_pairs_round_trip_small_ints(void **state)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *x = make_i(DT_I32, 1, DIMS(4), INTS(0, 1, 5, -3));
    for (int from = 0; from < DT_COUNT; from++) {
        for (int to = 0; to < DT_COUNT; to++) {
            if (from == DT_U32 || to == DT_U32 || from == DT_U64 || to == DT_U64) /* -3 is no u32: test_convert_unsigned */
                continue;
            if (from == DT_TOKEN || to == DT_TOKEN) /* a token holds no data to convert */
                continue;
            Tensor *a, *b;
            assert_int_equal(tensor_convert(&ctx, x, (DType)from, &a), TENSOR_OK);
            assert_int_equal(tensor_convert(&ctx, a, (DType)to, &b), TENSOR_OK);
            bool via_bool = from == DT_BOOL || to == DT_BOOL;
            check_i(b, 4, via_bool ? INTS(0, 1, 1, 1) : INTS(0, 1, 5, -3));
            tensor_release(a);
        }
    }
    tensor_release(x);
}

static void test_sort_and_top_k_agree_on_random_data(void **state)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *x, *asc, *desc, *v, *i;
    assert_int_equal(kern_random(&ctx, DT_F32, 2, DIMS(8, 33), 3, 0, &x), TENSOR_OK);
    assert_int_equal(kern_sort(&ctx, x, 1, false, &asc), TENSOR_OK);
    assert_int_equal(kern_sort(&ctx, x, 1, true, &desc), TENSOR_OK);
    assert_int_equal(kern_top_k(&ctx, x, 5, &v, &i), TENSOR_OK);
    for (int64_t r = 0; r < 8; r++) {
        for (int64_t c = 0; c < 33; c++) {
            assert_true(c == 0 || tensor_get_f64(asc, r * 33 + c - 1) <= tensor_get_f64(asc, r * 33 + c));
            assert_float_equal(tensor_get_f64(desc, r * 33 + c), tensor_get_f64(asc, r * 33 + 32 - c), 0);
        }
        for (int64_t k = 0; k < 5; k++) {
            assert_float_equal(tensor_get_f64(v, r * 5 + k), tensor_get_f64(desc, r * 33 + k), 0);
            assert_float_equal(tensor_get_f64(x, r * 33 + tensor_get_i64(i, r * 5 + k)),
                               tensor_get_f64(v, r * 5 + k), 0);
        }
    }
    release2(x, asc);
    release2(desc, v);
    tensor_release(i);
}

static void test_top_k_and_argmax_other_dtypes(void **state)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *h = make_f(DT_BF16, 1, DIMS(4), VALS(0.5, 4, -2, 4)), *b = make_i(DT_BOOL, 1, DIMS(3), INTS(0, 1, 1));
    Tensor *v, *i, *y;
    assert_int_equal(kern_top_k(&ctx, h, 2, &v, &i), TENSOR_OK);
    assert_int_equal(v->dtype, DT_BF16);
    check_f(v, 2, VALS(4, 4), 0);
    check_i(i, 2, INTS(1, 3));
    assert_int_equal(kern_argmax(&ctx, b, 0, &y), TENSOR_OK);
    check_i(y, 1, INTS(1));
    assert_int_equal(kern_argmax(&ctx, h, 0, &y), TENSOR_OK);
    check_i(y, 1, INTS(1));
    release2(h, b);
}

static void test_einsum_degenerate_matmuls(void **state)
{
    agree("b,b->b", DT_F32, DIMS(5), 1, DIMS(5), 1, 20);
    agree("ab,ab->", DT_F32, DIMS(4, 6), 2, DIMS(4, 6), 2, 21);
    agree("ij,ij->ij", DT_F64, DIMS(3, 2), 2, DIMS(3, 2), 2, 22);
    agree("ij,->ij", DT_F32, DIMS(3, 2), 2, NULL, 0, 23);
    agree("bik,bkj->bji", DT_F32, DIMS(1, 1, 1), 3, DIMS(1, 1, 1), 3, 24);
    Tensor *m = make_f(DT_F32, 2, DIMS(2, 2), VALS(1, 2, 3, 4)), *w = make_f(DT_F32, 2, DIMS(2, 3), VALS(1, 1, 1, 2, 2, 2));
    check_f(einsum2("ii,ij->j", m, w, EINSUM_AUTO), 3, VALS(9, 9, 9), 0);
    release2(m, w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_accounting_tracks_peak),
        cmocka_unit_test(test_refcount_and_alignment),
        cmocka_unit_test(test_new_rejects_bad_shapes),
        cmocka_unit_test(test_empty_and_scalar),
        cmocka_unit_test(test_bf16_rounding),
        cmocka_unit_test(test_convert_float_to_int),
        cmocka_unit_test(test_convert_ints_and_bools),
        cmocka_unit_test(test_convert_bf16),
        cmocka_unit_test(test_element_access_and_scalars),
        cmocka_unit_test(test_nditer_collapses_contiguous),
        cmocka_unit_test(test_unary_float_math),
        cmocka_unit_test(test_unary_trig_and_log),
        cmocka_unit_test(test_unary_nan_and_zero_cases),
        cmocka_unit_test(test_gelu_matches_jax),
        cmocka_unit_test(test_f32_math_accuracy_sweep),
        cmocka_unit_test(test_f32_math_special_values),
        cmocka_unit_test(test_unary_ints),
        cmocka_unit_test(test_unary_dtype_errors),
        cmocka_unit_test(test_unary_bf16_rounds_f32_result),
        cmocka_unit_test(test_op_names),
        cmocka_unit_test(test_binary_broadcasting),
        cmocka_unit_test(test_binary_broadcast_rank_extension),
        cmocka_unit_test(test_binary_shape_and_dtype_errors),
        cmocka_unit_test(test_int_division_semantics),
        cmocka_unit_test(test_int_pow_semantics),
        cmocka_unit_test(test_int_overflow_wraps),
        cmocka_unit_test(test_float_max_min_propagate_nan),
        cmocka_unit_test(test_float_division_by_zero),
        cmocka_unit_test(test_bool_binary),
        cmocka_unit_test(test_binary_bf16),
        cmocka_unit_test(test_compare_ieee),
        cmocka_unit_test(test_compare_ints_broadcast),
        cmocka_unit_test(test_select_broadcasts),
        cmocka_unit_test(test_select_bf16_and_bool),
        cmocka_unit_test(test_accumulate_in_place),
        cmocka_unit_test(test_reduce_sum_axes),
        cmocka_unit_test(test_reduce_max_min_mean),
        cmocka_unit_test(test_reduce_ints_and_bools),
        cmocka_unit_test(test_reduce_empty_gives_identity),
        cmocka_unit_test(test_reduce_errors),
        cmocka_unit_test(test_reduce_bf16_accumulates_in_f32),
        cmocka_unit_test(test_allclose),
        cmocka_unit_test(test_einsum_matmul_both_paths),
        cmocka_unit_test(test_einsum_batched),
        cmocka_unit_test(test_einsum_single_operand),
        cmocka_unit_test(test_einsum_vectors),
        cmocka_unit_test(test_einsum_ints_wrap_and_bools),
        cmocka_unit_test(test_einsum_errors),
        cmocka_unit_test(test_einsum_blas_agrees_with_loops),
        cmocka_unit_test(test_einsum_bf16),
        cmocka_unit_test(test_transpose),
        cmocka_unit_test(test_reshape),
        cmocka_unit_test(test_broadcast_in_dim),
        cmocka_unit_test(test_broadcast_in_dim_size_one),
        cmocka_unit_test(test_concatenate),
        cmocka_unit_test(test_slice),
        cmocka_unit_test(test_pad),
        cmocka_unit_test(test_pad_negative_crops),
        cmocka_unit_test(test_iota_full_constant),
        cmocka_unit_test(test_blocks),
        cmocka_unit_test(test_sort_nan_last_and_descending),
        cmocka_unit_test(test_sort_is_stable),
        cmocka_unit_test(test_sort_along_axis),
        cmocka_unit_test(test_argmax),
        cmocka_unit_test(test_top_k),
        cmocka_unit_test(test_top_k_ties_ints),
        cmocka_unit_test(test_rng_deterministic_and_indexed),
        cmocka_unit_test(test_rng_ranges),
        cmocka_unit_test(test_accumulate_self_ints_bools),
        cmocka_unit_test(test_types_and_broadcast_shape),
        cmocka_unit_test(test_convert_all_pairs_round_trip_small_ints),
        cmocka_unit_test(test_sort_and_top_k_agree_on_random_data),
        cmocka_unit_test(test_top_k_and_argmax_other_dtypes),
        cmocka_unit_test(test_einsum_degenerate_matmuls),
        cmocka_unit_test(test_padded_blocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
