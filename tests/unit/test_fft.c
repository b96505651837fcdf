/* Unit tests of complex numbers and the FFT kernel (kernels/complex.c,
 * kernels/fft.c, the complex paths of tensor.c, elementwise.c, npy.c).
 *
 * Where the expected values come from:
 *   - fft of [1, 2, 3, 4] = [10, -2+2i, -2, -2-2i]: worked by hand from
 *     X[k] = sum_n x[n] e^{-2 pi i k n / N} (numpy.fft.fft agrees);
 *   - the 6-point and the 3x5 transforms: a direct O(N^2) sum of that
 *     definition written in this file (naive_dft), independent of FFTW;
 *   - ifft(fft(x)) = x, irfft(rfft(x)) = x (for even and odd lengths) and
 *     Parseval's identity sum |x|^2 = (1/N) sum |X|^2: identities of the
 *     DFT, on pseudo-random data;
 *   - (1+2i)(3+4i) = -5+10i, (1+2i)/(1-i) = -0.5+1.5i: by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "shardc/kernels.h"
#include "shardc/npy.h"
#include "tensor_support.h"

/* ---- helpers ----------------------------------------------------------------- */

/* A complex tensor from interleaved (re, im) pairs. */
static Tensor *make_c(DType dtype, int rank, const int64_t *dims, const double *pairs)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *t, parts;
    assert_int_equal(tensor_new(&ctx, dtype, rank, dims, &t), TENSOR_OK);
    tensor_complex_parts_view(t, &parts);
    for (int64_t i = 0; i < parts.count; i++)
        tensor_set_f64(&parts, i, pairs[i]);
    return t;
}

static Tensor *random_tensor(DType dtype, int rank, const int64_t *dims, uint64_t seed)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *t;
    assert_int_equal(kern_random(&ctx, dtype, rank, dims, seed, 0, &t), TENSOR_OK);
    return t;
}

static Tensor *fft(const Tensor *x, KernFftType type, int n, const int64_t *len)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *y;
    if (kern_fft(&ctx, x, type, n, len, &y) != TENSOR_OK)
        fail_msg("%s", ctx.msg);
    return y;
}

/* Element i of a complex tensor. */
static double complex at(const Tensor *t, int64_t i)
{
    Tensor parts;
    tensor_complex_parts_view(t, &parts);
    return tensor_get_f64(&parts, 2 * i) + I * tensor_get_f64(&parts, 2 * i + 1);
}

/* Every part of a and b within tol; releases b. */
static void check_close(const Tensor *a, Tensor *b, double tol)
{
    TensorDiff diff;
    if (!tensor_allclose(a, b, 0, tol, &diff))
        fail_msg("%lld parts differ; first at %lld: %.10g vs %.10g", (long long)diff.mismatches,
                 (long long)diff.first_index, diff.a_value, diff.b_value);
    tensor_release(b);
}

/* got against the pairs of a want of its dtype and shape; releases got. */
static void check_pairs(Tensor *got, const double *pairs, double tol)
{
    Tensor *want = make_c(got->dtype, got->rank, got->dims, pairs);
    check_close(want, got, tol);
    tensor_release(want);
}

/* The 1-D DFT of rows of length n by its definition (sign -1 forward). */
static void naive_dft(const double complex *x, double complex *y, int64_t n, int64_t stride)
{
    for (int64_t k = 0; k < n; k++) {
        double complex s = 0;
        for (int64_t j = 0; j < n; j++)
            s += x[j * stride] * cexp(-2 * M_PI * I * (double)(k * j % n) / (double)n);
        y[k * stride] = s;
    }
}

/* ---- the kernel against hand and naive values ------------------------------- */

static void test_fft_of_1234_by_hand(void **state)
{
    (void)state;
    Tensor *x = make_c(DT_C128, 1, DIMS(4), VALS(1, 0, 2, 0, 3, 0, 4, 0));
    Tensor *want = make_c(DT_C128, 1, DIMS(4), VALS(10, 0, -2, 2, -2, 0, -2, -2));
    Tensor *y = fft(x, KERN_FFT, 1, INTS(4));
    check_close(want, y, 1e-12);
    Tensor *r = make_f(DT_F32, 1, DIMS(4), VALS(1, 2, 3, 4));
    Tensor *half = make_c(DT_C64, 1, DIMS(3), VALS(10, 0, -2, 2, -2, 0));
    check_close(half, fft(r, KERN_RFFT, 1, INTS(4)), 1e-6);
    tensor_release(x);
    tensor_release(want);
    tensor_release(r);
    tensor_release(half);
}

/* A 6-point transform (not a power of two) and a 2-D 3x5 one, with a
 * batch dim, against the direct sums. */
static void test_fft_matches_naive_dft(void **state)
{
    (void)state;
    Tensor *x = random_tensor(DT_C128, 3, DIMS(2, 3, 5), 7);
    Tensor *want = make_c(DT_C128, 3, DIMS(2, 3, 5), VALS([59] = 0));
    double complex *in = x->data, *out = want->data, tmp[30];
    for (int b = 0; b < 2; b++) {
        for (int r = 0; r < 3; r++) /* along dim 2, then along dim 1 */
            naive_dft(in + b * 15 + r * 5, tmp + b * 15 + r * 5, 5, 1);
        for (int c = 0; c < 5; c++)
            naive_dft(tmp + b * 15 + c, out + b * 15 + c, 3, 5);
    }
    check_close(want, fft(x, KERN_FFT, 2, INTS(3, 5)), 1e-12);
    Tensor *v = random_tensor(DT_C128, 1, DIMS(6), 8);
    double complex w[6];
    naive_dft(v->data, w, 6, 1);
    check_pairs(fft(v, KERN_FFT, 1, INTS(6)), (const double *)w, 1e-12);
    tensor_release(x);
    tensor_release(want);
    tensor_release(v);
}

/* ---- identities ------------------------------------------------------------------ */

static void test_ifft_inverts_fft(void **state)
{
    (void)state;
    Tensor *x = random_tensor(DT_C64, 3, DIMS(3, 4, 6), 1);
    Tensor *f = fft(x, KERN_FFT, 2, INTS(4, 6));
    check_close(x, fft(f, KERN_IFFT, 2, INTS(4, 6)), 1e-6);
    Tensor *d = random_tensor(DT_C128, 2, DIMS(2, 7), 2);
    Tensor *g = fft(d, KERN_FFT, 1, INTS(7));
    check_close(d, fft(g, KERN_IFFT, 1, INTS(7)), 1e-12);
    tensor_release(x);
    tensor_release(f);
    tensor_release(d);
    tensor_release(g);
}

static void test_irfft_inverts_rfft(void **state)
{
    (void)state;
    for (int64_t n = 7; n <= 8; n++) { /* odd and even lengths */
        Tensor *x = random_tensor(DT_F64, 2, DIMS(3, n), (uint64_t)n);
        Tensor *h = fft(x, KERN_RFFT, 1, INTS(n));
        check_shape(h, 2, DIMS(3, n / 2 + 1));
        assert_int_equal(h->dtype, DT_C128);
        check_close(x, fft(h, KERN_IRFFT, 1, INTS(n)), 1e-12);
        tensor_release(x);
        tensor_release(h);
    }
    Tensor *y = random_tensor(DT_F32, 3, DIMS(2, 4, 6), 3);
    Tensor *h2 = fft(y, KERN_RFFT, 2, INTS(4, 6));
    check_close(y, fft(h2, KERN_IRFFT, 2, INTS(4, 6)), 1e-6);
    tensor_release(y);
    tensor_release(h2);
}

static void test_parseval(void **state)
{
    (void)state;
    Tensor *x = random_tensor(DT_C128, 1, DIMS(16), 4);
    Tensor *f = fft(x, KERN_FFT, 1, INTS(16));
    double ex = 0, ef = 0;
    for (int64_t i = 0; i < 16; i++) {
        ex += cabs(at(x, i)) * cabs(at(x, i));
        ef += cabs(at(f, i)) * cabs(at(f, i));
    }
    assert_true(fabs(ex - ef / 16) <= 1e-12 * ex);
    tensor_release(x);
    tensor_release(f);
}

/* Bad calls are refused with a status, not a crash: lengths that do not
 * match the operand, a real operand for FFT, a complex one for RFFT, too
 * many lengths. */
static void test_fft_refuses_bad_calls(void **state)
{
    (void)state;
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *c = random_tensor(DT_C64, 2, DIMS(2, 4), 6), *r = random_tensor(DT_F32, 1, DIMS(4), 6), *y;
    assert_int_equal(kern_fft(&ctx, c, KERN_FFT, 1, INTS(8), &y), TENSOR_ERR_SHAPE);
    assert_int_equal(kern_fft(&ctx, c, KERN_IRFFT, 1, INTS(4), &y), TENSOR_ERR_SHAPE); /* wants 4/2+1 = 3 */
    assert_int_equal(kern_fft(&ctx, r, KERN_FFT, 1, INTS(4), &y), TENSOR_ERR_DTYPE);
    assert_int_equal(kern_fft(&ctx, c, KERN_RFFT, 1, INTS(4), &y), TENSOR_ERR_DTYPE);
    assert_int_equal(kern_fft(&ctx, c, KERN_FFT, 3, INTS(2, 4, 4), &y), TENSOR_ERR_ARG);
    assert_null(y);
    tensor_release(c);
    tensor_release(r);
}

/* ---- complex elementwise, conversion, .npy ------------------------------------ */

static void test_complex_arithmetic_by_hand(void **state)
{
    (void)state;
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *a = make_c(DT_C64, 1, DIMS(1), VALS(1, 2)), *b = make_c(DT_C64, 1, DIMS(1), VALS(3, 4));
    Tensor *c = make_c(DT_C64, 1, DIMS(1), VALS(1, -1)), *y;
    assert_int_equal(kern_binary(&ctx, BIN_MUL, a, b, &y), TENSOR_OK);
    check_pairs(y, VALS(-5, 10), 0);
    assert_int_equal(kern_binary(&ctx, BIN_DIV, a, c, &y), TENSOR_OK);
    check_pairs(y, VALS(-0.5, 1.5), 1e-7);
    assert_int_equal(kern_binary(&ctx, BIN_MAX, a, b, &y), TENSOR_ERR_DTYPE); /* no order */
    assert_int_equal(kern_compare(&ctx, CMP_LT, a, b, &y), TENSOR_ERR_DTYPE);
    assert_int_equal(kern_compare(&ctx, CMP_EQ, a, a, &y), TENSOR_OK);
    check_i(y, 1, INTS(1));
    assert_int_equal(kern_real(&ctx, b, &y), TENSOR_OK);
    check_f(y, 1, VALS(3), 0);
    assert_int_equal(kern_imag(&ctx, b, &y), TENSOR_OK);
    check_f(y, 1, VALS(4), 0);
    tensor_release(a);
    tensor_release(b);
    tensor_release(c);
}

/* Real to complex adds a zero imaginary part; c64 <-> c128 keeps both
 * parts; complex to real keeps the real part (tensor_get_f64). */
static void test_complex_conversions(void **state)
{
    (void)state;
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *r = make_i(DT_I32, 1, DIMS(2), INTS(-3, 5)), *c, *w;
    assert_int_equal(tensor_convert(&ctx, r, DT_C64, &c), TENSOR_OK);
    assert_int_equal(tensor_convert(&ctx, c, DT_C128, &w), TENSOR_OK);
    check_pairs(w, VALS(-3, 0, 5, 0), 0);
    Tensor *z = make_c(DT_C128, 1, DIMS(1), VALS(2.5, -7));
    assert_true(tensor_get_f64(z, 0) == 2.5);
    tensor_release(r);
    tensor_release(c);
    tensor_release(z);
}

static void test_npy_round_trip(void **state)
{
    (void)state;
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    char path[] = "/tmp/shardc_test_fft_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    Tensor *x = random_tensor(DT_C64, 2, DIMS(3, 2), 5), *y;
    assert_int_equal(npy_write_fd(&ctx, fd, path, x), TENSOR_OK);
    close(fd);
    assert_int_equal(npy_read(&ctx, path, &y), TENSOR_OK);
    unlink(path);
    assert_int_equal(y->dtype, DT_C64);
    check_close(x, y, 0);
    tensor_release(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fft_of_1234_by_hand),
        cmocka_unit_test(test_fft_matches_naive_dft),
        cmocka_unit_test(test_ifft_inverts_fft),
        cmocka_unit_test(test_irfft_inverts_rfft),
        cmocka_unit_test(test_parseval),
        cmocka_unit_test(test_fft_refuses_bad_calls),
        cmocka_unit_test(test_complex_arithmetic_by_hand),
        cmocka_unit_test(test_complex_conversions),
        cmocka_unit_test(test_npy_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
