/* Unit tests of the cholesky, triangular_solve and batch_norm kernels
 * against values computed by hand; each test's comment gives the
 * computation (or the identity, L·Lᵀ = A, op(A)·X = B, the result
 * satisfies). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>
#include "shardc/kern_libs.h"
#include "shardc/kernels.h"
#include "tensor_support.h"

static void release2(Tensor *a, Tensor *b)
{
    tensor_release(a);
    tensor_release(b);
}

static Tensor *cholesky(const Tensor *a, bool lower)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *l;
    assert_int_equal(kern_cholesky(&ctx, a, lower, &l), TENSOR_OK);
    return l;
}

/* The textbook example: [[4, 12, -16], [12, 37, -43], [-16, -43, 98]] =
 * L·Lᵀ with L = [[2, 0, 0], [6, 1, 0], [-8, 5, 3]] (multiply out: row 2
 * of L·Lᵀ is 36 + 1 = 37, row 3 64 + 25 + 9 = 98); U = Lᵀ. The second
 * matrix of the batch is the first times 4, whose factor is 2·L. */
static void test_cholesky_textbook(void **state)
{
    (void)state;
    Tensor *a = make_f(DT_F64, 3, DIMS(2, 3, 3),
                       VALS(4, 12, -16, 12, 37, -43, -16, -43, 98, 16, 48, -64, 48, 148, -172, -64, -172, 392));
    check_f(cholesky(a, true), 18, VALS(2, 0, 0, 6, 1, 0, -8, 5, 3, 4, 0, 0, 12, 2, 0, -16, 10, 6), 1e-12);
    check_f(cholesky(a, false), 18, VALS(2, 6, -8, 0, 1, 5, 0, 0, 3, 4, 12, -16, 0, 2, 10, 0, 0, 6), 1e-12);
    tensor_release(a);
}

/* [[4, 2], [2, 5]] = L·Lᵀ, L = [[2, 0], [1, 2]], exact in f32 and bf16
 * (computed in f32). [[1, 2], [2, 1]] has eigenvalue -1: not positive
 * definite, so NaNs (JAX's CPU result), not an error. */
static void test_cholesky_f32_bf16_and_failure(void **state)
{
    (void)state;
    Tensor *a = make_f(DT_F32, 2, DIMS(2, 2), VALS(4, 2, 2, 5));
    check_f(cholesky(a, true), 4, VALS(2, 0, 1, 2), 0);
    tensor_release(a);
    a = make_f(DT_BF16, 2, DIMS(2, 2), VALS(4, 2, 2, 5));
    Tensor *l = cholesky(a, true);
    assert_int_equal(l->dtype, DT_BF16);
    check_f(l, 4, VALS(2, 0, 1, 2), 0);
    tensor_release(a);
    a = make_f(DT_F32, 2, DIMS(2, 2), VALS(1, 2, 2, 1));
    check_f(cholesky(a, true), 4, VALS(NAN, NAN, NAN, NAN), 0);
    tensor_release(a);
}

static Tensor *solve(const Tensor *a, const Tensor *b, bool left, bool lower, bool unit, KernTranspose t)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    KernTriangularSolve opts = {left, lower, unit, t};
    Tensor *x;
    assert_int_equal(kern_triangular_solve(&ctx, a, b, &opts, &x), TENSOR_OK);
    return x;
}

/* L = [[2, 0], [1, 2]], b = [2, 5]ᵀ. L·x = b: x1 = 2/2 = 1, x2 =
 * (5 - 1)/2 = 2. Lᵀ·x = b: x2 = 5/2, x1 = (2 - 2.5)/2 = -0.25 (ADJOINT
 * alike). Unit diagonal, [[1, 0], [1, 1]]·x = b: x = [2, 3]. The upper
 * entry 9 is never read (lower). */
static void test_triangular_solve_left(void **state)
{
    (void)state;
    Tensor *l = make_f(DT_F32, 2, DIMS(2, 2), VALS(2, 9, 1, 2)), *b = make_f(DT_F32, 2, DIMS(2, 1), VALS(2, 5));
    check_f(solve(l, b, true, true, false, KERN_NO_TRANSPOSE), 2, VALS(1, 2), 1e-7);
    check_f(solve(l, b, true, true, false, KERN_TRANSPOSE), 2, VALS(-0.25, 2.5), 1e-7);
    check_f(solve(l, b, true, true, false, KERN_ADJOINT), 2, VALS(-0.25, 2.5), 1e-7);
    check_f(solve(l, b, true, true, true, KERN_NO_TRANSPOSE), 2, VALS(2, 3), 1e-7);
    tensor_release(l);
    tensor_release(b);
}

/* Right side, x·L = [4, 6] with L = [[2, 0], [1, 2]]: [2·x1 + x2, 2·x2]
 * = [4, 6], so x = [0.5, 3]. Upper, reading [[2, 9], [., 2]] of
 * [[2, 9], [7, 2]]: U·x = [13, 4]: x2 = 2, x1 = (13 - 18)/2 = -2.5. In
 * f64, batched: the second matrix of the batch is the same problem. */
static void test_triangular_solve_right_and_upper(void **state)
{
    (void)state;
    Tensor *l = make_f(DT_F64, 2, DIMS(2, 2), VALS(2, 0, 1, 2)), *b = make_f(DT_F64, 2, DIMS(1, 2), VALS(4, 6));
    check_f(solve(l, b, false, true, false, KERN_NO_TRANSPOSE), 2, VALS(0.5, 3), 1e-14);
    tensor_release(l);
    tensor_release(b);
    Tensor *u = make_f(DT_F64, 3, DIMS(2, 2, 2), VALS(2, 9, 7, 2, 2, 9, 7, 2));
    b = make_f(DT_F64, 3, DIMS(2, 2, 1), VALS(13, 4, 13, 4));
    check_f(solve(u, b, true, false, false, KERN_NO_TRANSPOSE), 4, VALS(-2.5, 2, -2.5, 2), 1e-14);
    tensor_release(u);
    tensor_release(b);
}

/* x = [[1, 2], [3, 4]], features along dim 1: scale [2, 1], offset
 * [0, 1], mean [2, 3], variance [1, 4], epsilon 0: column 0 is
 * 2·(x - 2)/1 = [-2, 2], column 1 (x - 3)/2 + 1 = [0.5, 1.5]. */
static void test_batch_norm_inference(void **state)
{
    (void)state;
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *in[5] = {make_f(DT_F32, 2, DIMS(2, 2), VALS(1, 2, 3, 4)), make_f(DT_F32, 1, DIMS(2), VALS(2, 1)),
                     make_f(DT_F32, 1, DIMS(2), VALS(0, 1)), make_f(DT_F32, 1, DIMS(2), VALS(2, 3)),
                     make_f(DT_F32, 1, DIMS(2), VALS(1, 4))};
    Tensor *y;
    assert_int_equal(kern_batch_norm_inference(&ctx, in, 0.0, 1, &y), TENSOR_OK);
    check_f(y, 4, VALS(-2, 0.5, 2, 1.5), 1e-7);
    for (int i = 0; i < 5; i++)
        tensor_release(in[i]);
}

/* x = [[1, 2], [3, 6]], features along dim 1: means [2, 4], biased
 * variances [1, 4] (deviations ±1 and ±2); scale 1, offset 0, epsilon
 * 0: y = ±1. */
static void test_batch_norm_training(void **state)
{
    (void)state;
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *in[3] = {make_f(DT_F64, 2, DIMS(2, 2), VALS(1, 2, 3, 6)), make_f(DT_F64, 1, DIMS(2), VALS(1, 1)),
                     make_f(DT_F64, 1, DIMS(2), VALS(0, 0))};
    Tensor *out[3];
    assert_int_equal(kern_batch_norm_training(&ctx, in, 0.0, 1, out), TENSOR_OK);
    check_f(out[0], 4, VALS(-1, -1, 1, 1), 1e-14);
    check_f(out[1], 2, VALS(2, 4), 1e-14);
    check_f(out[2], 2, VALS(1, 4), 1e-14);
    for (int i = 0; i < 3; i++)
        tensor_release(in[i]);
}

/* No rows: the statistics of an empty batch are NaN (0/0), and the
 * normalized output is empty; no error. */
static void test_batch_norm_training_empty(void **state)
{
    (void)state;
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *in[3] = {make_f(DT_F32, 2, DIMS(0, 2), VALS(0)), make_f(DT_F32, 1, DIMS(2), VALS(1, 1)),
                     make_f(DT_F32, 1, DIMS(2), VALS(0, 0))};
    Tensor *out[3];
    assert_int_equal(kern_batch_norm_training(&ctx, in, 0.001, 1, out), TENSOR_OK);
    check_shape(out[0], 2, DIMS(0, 2));
    tensor_release(out[0]);
    check_f(out[1], 2, VALS(NAN, NAN), 0);
    check_f(out[2], 2, VALS(NAN, NAN), 0);
    for (int i = 0; i < 3; i++)
        tensor_release(in[i]);
}

/* One feature, x = [0, 1, 2] (dim 0), mean 1, variance 2/3, scale 1,
 * dy = [1, 0, 0], epsilon 0: c = x - mean = [-1, 0, 1], σ = sqrt(2/3),
 * Σdy = 1, Σdy·c = -1. grad_offset = 1, grad_scale = -1/σ =
 * -1.2247448714; grad_x = 1/(3σ)·(3·dy - 1 - c·(-1)/(2/3)) =
 * 0.40824829·[0.5, -1, 0.5] (it sums to zero, as it must). */
static void test_batch_norm_grad(void **state)
{
    (void)state;
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *in[5] = {make_f(DT_F64, 2, DIMS(3, 1), VALS(0, 1, 2)), make_f(DT_F64, 1, DIMS(1), VALS(1)),
                     make_f(DT_F64, 1, DIMS(1), VALS(1)), make_f(DT_F64, 1, DIMS(1), VALS(2.0 / 3)),
                     make_f(DT_F64, 2, DIMS(3, 1), VALS(1, 0, 0))};
    Tensor *out[3];
    assert_int_equal(kern_batch_norm_grad(&ctx, in, 0.0, 1, out), TENSOR_OK);
    check_f(out[0], 3, VALS(0.2041241452, -0.4082482905, 0.2041241452), 1e-9);
    check_f(out[1], 1, VALS(-1.2247448714), 1e-9);
    check_f(out[2], 1, VALS(1), 1e-14);
    for (int i = 0; i < 5; i++)
        tensor_release(in[i]);
}

/* ---- JAX's lapack_*_ffi targets (kern_lapack) ---- */

/* Runs `target` on in[], the results typed like `like` (their shapes). */
static void lapack(const char *target, const char *letters, Tensor *const *in, Tensor **out, int n_out,
                   const Tensor *const *like)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    TensorType types[5];
    for (int i = 0; i < n_out; i++)
        types[i] = (TensorType){like[i]->dtype, like[i]->rank, (int64_t *)like[i]->dims};
    KernLapack call = {.uplo = letters[0], .mode = letters[1], .side = letters[2], .trans_x = letters[3],
                       .diag = letters[4], .result_types = types};
    assert_true(lapack_target_parse(target, &call.target));
    assert_int_equal(kern_lapack(&ctx, &call, in, out), TENSOR_OK);
}

/* potrf of [[4, 2], [2, 5]], uplo L: L = [[2, 0], [1, 2]] in the lower
 * triangle, the upper entry (2) left as LAPACK leaves it, info 0.
 * [[1, 2], [2, 1]]: the second leading minor, 1 - 4, is negative: info 2. */
static void test_lapack_potrf(void **state)
{
    (void)state;
    Tensor *a = make_f(DT_F64, 3, DIMS(2, 2, 2), VALS(4, 2, 2, 5, 1, 2, 2, 1)), *info = make_i(DT_I32, 1, DIMS(2), INTS(0, 0));
    Tensor *out[2];
    lapack("lapack_dpotrf_ffi", "L----", &a, out, 2, (const Tensor *[]){a, info});
    const double *l = out[0]->data;
    assert_true(l[0] == 2 && l[1] == 2 && l[2] == 1 && l[3] == 2);
    tensor_release(out[0]);
    check_i(out[1], 2, INTS(0, 2));
    tensor_release(a);
    tensor_release(info);
}

/* getrf of [[0, 1], [2, 3]]: row 2 is the pivot (ipiv 1-based: 2, then
 * 2), l21 = 0/2 = 0, u = [[2, 3], [0, 1 - 0·3]]: LU = [[2, 3], [0, 1]]. */
static void test_lapack_getrf(void **state)
{
    (void)state;
    Tensor *a = make_f(DT_F32, 2, DIMS(2, 2), VALS(0, 1, 2, 3)), *ipiv = make_i(DT_I32, 1, DIMS(2), INTS(0, 0));
    Tensor *info = make_i(DT_I32, 0, NULL, INTS(0)), *out[3];
    lapack("lapack_sgetrf_ffi", "-----", &a, out, 3, (const Tensor *[]){a, ipiv, info});
    check_f(out[0], 4, VALS(2, 3, 0, 1), 0);
    check_i(out[1], 2, INTS(2, 2));
    check_i(out[2], 1, INTS(0));
    tensor_release(a);
    tensor_release(ipiv);
    tensor_release(info);
}

/* geqrf of [3, 4]ᵀ: LAPACK's reflector takes beta = -sign(3)·5 = -5,
 * tau = (beta - 3)/beta = 1.6, v = [1, 4/(3 + 5)] = [1, 0.5]: a_out =
 * [-5, 0.5]ᵀ. orgqr: Q = (I - tau·v·vᵀ)'s first column = [1 - 1.6,
 * -1.6·0.5] = [-0.6, -0.8]; Q·R = [3, 4]ᵀ. */
static void test_lapack_geqrf_orgqr(void **state)
{
    (void)state;
    Tensor *a = make_f(DT_F64, 2, DIMS(2, 1), VALS(3, 4)), *tau = make_f(DT_F64, 1, DIMS(1), VALS(0)), *qr[2], *q;
    lapack("lapack_dgeqrf_ffi", "-----", &a, qr, 2, (const Tensor *[]){a, tau});
    check_f(tensor_retain(qr[0]), 2, VALS(-5, 0.5), 1e-14);
    check_f(tensor_retain(qr[1]), 1, VALS(1.6), 1e-14);
    lapack("lapack_dorgqr_ffi", "-----", qr, &q, 1, (const Tensor *[]){a});
    check_f(q, 2, VALS(-0.6, -0.8), 1e-14);
    release2(qr[0], qr[1]);
    release2(a, tau);
}

/* syevd of [[2, 1], [1, 2]]: eigenvalues 1 and 3, ascending; the
 * eigenvectors ±[1, -1]/√2 and ±[1, 1]/√2 (in columns). gesdd of
 * [[3, 0], [0, -2]] (mode A, then N): singular values 3 and 2,
 * descending. */
static void test_lapack_syevd_gesdd(void **state)
{
    (void)state;
    Tensor *a = make_f(DT_F32, 2, DIMS(2, 2), VALS(2, 1, 1, 2)), *w = make_f(DT_F32, 1, DIMS(2), VALS(0, 0));
    Tensor *info = make_i(DT_I32, 0, NULL, INTS(0)), *out[5];
    lapack("lapack_ssyevd_ffi", "LV---", &a, out, 3, (const Tensor *[]){a, w, info});
    for (int i = 0; i < 4; i++)
        assert_true(fabs(fabs(tensor_get_f64(out[0], i)) - 0.70710678) < 1e-6);
    tensor_release(out[0]);
    check_f(out[1], 2, VALS(1, 3), 1e-6);
    check_i(out[2], 1, INTS(0));
    Tensor *b = make_f(DT_F32, 2, DIMS(2, 2), VALS(3, 0, 0, -2));
    lapack("lapack_sgesdd_ffi", "-A---", &b, out, 5, (const Tensor *[]){b, w, b, b, info});
    check_f(out[1], 2, VALS(3, 2), 1e-6);
    check_i(out[4], 1, INTS(0));
    tensor_release(out[0]);
    release2(out[2], out[3]);
    /* mode N: the singular values only; U and Vᵀ stay zero */
    lapack("lapack_sgesdd_ffi", "-N---", &b, out, 5, (const Tensor *[]){b, w, b, b, info});
    check_f(out[1], 2, VALS(3, 2), 1e-6);
    check_f(out[2], 4, VALS(0, 0, 0, 0), 0);
    check_f(out[3], 4, VALS(0, 0, 0, 0), 0);
    check_i(out[4], 1, INTS(0));
    tensor_release(out[0]);
    release2(a, b);
    release2(w, info);
}

/* trsm as JAX calls it, side L, uplo L, trans_x N, diag N: the solve of
 * test_triangular_solve_left, x = [1, 2]; trans_x T: [-0.25, 2.5]. */
static void test_lapack_trsm(void **state)
{
    (void)state;
    Tensor *in[2] = {make_f(DT_F32, 2, DIMS(2, 2), VALS(2, 9, 1, 2)), make_f(DT_F32, 2, DIMS(2, 1), VALS(2, 5))};
    Tensor *x;
    lapack("lapack_strsm_ffi", "L-LNN", in, &x, 1, (const Tensor *[]){in[1]});
    check_f(x, 2, VALS(1, 2), 1e-7);
    lapack("lapack_strsm_ffi", "L-LTN", in, &x, 1, (const Tensor *[]){in[1]});
    check_f(x, 2, VALS(-0.25, 2.5), 1e-7);
    release2(in[0], in[1]);
}

/* Bad input is a status with a message, never a crash. */
static void test_linalg_errors(void **state)
{
    (void)state;
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *i = make_f(DT_I32, 2, DIMS(2, 2), VALS(1, 0, 0, 1)), *r = make_f(DT_F32, 2, DIMS(2, 3), VALS(1, 2, 3, 4, 5, 6));
    Tensor *out = NULL;
    assert_int_equal(kern_cholesky(&ctx, i, true, &out), TENSOR_ERR_DTYPE);
    assert_int_equal(kern_cholesky(&ctx, r, true, &out), TENSOR_ERR_SHAPE);
    assert_null(out);
    tensor_release(i);
    tensor_release(r);
}

/* The kernels that call the numeric libraries fail with `status` and a
 * message holding `reason` (none crashes, nothing is left in *out); a
 * kernel that needs no library still runs. */
static void expect_no_libraries(KernLibs *libs, TensorStatus status, const char *reason)
{
    TensorCtx ctx;
    tensor_ctx_init(&ctx, NULL);
    ctx.libs = libs;
    Tensor *a = make_f(DT_F32, 2, DIMS(2, 2), VALS(4, 2, 2, 3)), *c = make_f(DT_C64, 1, DIMS(4), VALS(1, 0, 2, 0, 3, 0, 4, 0));
    Tensor *out = (Tensor *)&out;
    const Tensor *pair[2] = {a, a};
    for (int attempt = 0; attempt < 2; attempt++) { /* a failed load stays failed */
        assert_int_equal(kern_cholesky(&ctx, a, true, &out), status);
        assert_non_null(strstr(ctx.msg, reason));
        assert_null(out);
        assert_int_equal(kern_einsum(&ctx, "ij,jk->ik", 2, pair, &out), status);
        assert_non_null(strstr(ctx.msg, reason));
        assert_null(out);
        assert_int_equal(kern_fft(&ctx, c, KERN_FFT, 1, INTS(4), &out), status);
        assert_non_null(strstr(ctx.msg, reason));
        assert_null(out);
    }
    assert_int_equal(kern_unary(&ctx, UN_NEG, a, &out), TENSOR_OK);
    check_f(out, 4, VALS(-4, -2, -2, -3), 0);
    release2(a, c);
}

/* A library that is not installed, one without the symbols (libm in
 * OpenBLAS's place) and a context given none. */
static void test_numeric_libraries_unavailable(void **state)
{
    (void)state;
    const char *const missing[KERN_LIB_COUNT] = {"libopenblas.so.0", "libshardc-test-missing.so.3", "libfftw3.so.3",
                                                 "libfftw3f.so.3"};
    KernLibs *libs = kern_libs_new_named(missing);
    expect_no_libraries(libs, TENSOR_ERR_IO, "cannot load the numeric libraries: libshardc-test-missing.so.3");
    kern_libs_free(libs);
    const char *const wrong[KERN_LIB_COUNT] = {"libm.so.6", "liblapacke.so.3", "libfftw3.so.3", "libfftw3f.so.3"};
    libs = kern_libs_new_named(wrong);
    expect_no_libraries(libs, TENSOR_ERR_IO, "libm.so.6: no symbol openblas_set_num_threads");
    kern_libs_free(libs);
    expect_no_libraries(NULL, TENSOR_ERR_NOMEM, "no numeric libraries");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cholesky_textbook),
        cmocka_unit_test(test_cholesky_f32_bf16_and_failure),
        cmocka_unit_test(test_triangular_solve_left),
        cmocka_unit_test(test_triangular_solve_right_and_upper),
        cmocka_unit_test(test_batch_norm_inference),
        cmocka_unit_test(test_batch_norm_training),
        cmocka_unit_test(test_batch_norm_training_empty),
        cmocka_unit_test(test_batch_norm_grad),
        cmocka_unit_test(test_lapack_potrf),
        cmocka_unit_test(test_lapack_getrf),
        cmocka_unit_test(test_lapack_geqrf_orgqr),
        cmocka_unit_test(test_lapack_syevd_gesdd),
        cmocka_unit_test(test_lapack_trsm),
        cmocka_unit_test(test_linalg_errors),
        cmocka_unit_test(test_numeric_libraries_unavailable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
