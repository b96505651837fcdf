/* Tensor helpers of the kernel tests (include after cmocka.h): tensors
 * from literal values, and checks that release what they check. */
#ifndef SHARDC_TEST_TENSOR_SUPPORT_H
#define SHARDC_TEST_TENSOR_SUPPORT_H
#include <math.h>
#include <stdlib.h>
#include "shardc/kern_libs.h"
#include "shardc/kernels.h"

#define DIMS(...) ((const int64_t[]){__VA_ARGS__})
#define VALS(...) ((const double[]){__VA_ARGS__})
#define INTS(...) ((const int64_t[]){__VA_ARGS__})

/* The numeric libraries of this test program's kernels: opened by the
 * first kernel_ctx_init, closed at exit. */
static KernLibs *test_kern_libs;

static inline void test_kern_libs_free(void) { kern_libs_free(test_kern_libs); }

/* A TensorCtx whose kernels may call BLAS, LAPACK and FFTW, as the
 * interpreter's are. */
static inline void kernel_ctx_init(TensorCtx *ctx, TensorAccounting *acct)
{
    tensor_ctx_init(ctx, acct);
    if (!test_kern_libs) {
        test_kern_libs = kern_libs_new();
        assert_non_null(test_kern_libs);
        atexit(test_kern_libs_free);
    }
    ctx->libs = test_kern_libs;
}

static inline Tensor *make_f(DType dtype, int rank, const int64_t *dims, const double *values)
{
    TensorCtx ctx;
    tensor_ctx_init(&ctx, NULL);
    Tensor *t;
    assert_int_equal(tensor_new(&ctx, dtype, rank, dims, &t), TENSOR_OK);
    for (int64_t i = 0; i < t->count; i++)
        tensor_set_f64(t, i, values[i]);
    return t;
}

static inline Tensor *make_i(DType dtype, int rank, const int64_t *dims, const int64_t *values)
{
    TensorCtx ctx;
    tensor_ctx_init(&ctx, NULL);
    Tensor *t;
    assert_int_equal(tensor_new(&ctx, dtype, rank, dims, &t), TENSOR_OK);
    for (int64_t i = 0; i < t->count; i++)
        tensor_set_i64(t, i, values[i]);
    return t;
}

static inline void check_shape(const Tensor *t, int rank, const int64_t *dims)
{
    assert_int_equal(t->rank, rank);
    for (int d = 0; d < rank; d++)
        assert_int_equal(t->dims[d], dims[d]);
}

/* NaN in `want` expects NaN. Releases t. */
static inline void check_f(Tensor *t, int64_t n, const double *want, double tol)
{
    assert_int_equal(t->count, n);
    for (int64_t i = 0; i < n; i++) {
        double got = tensor_get_f64(t, i);
        bool ok = isnan(want[i]) ? isnan(got) : got == want[i] || fabs(got - want[i]) <= tol;
        if (!ok)
            fail_msg("element %lld: got %.10g, want %.10g", (long long)i, got, want[i]);
    }
    tensor_release(t);
}

static inline void check_i(Tensor *t, int64_t n, const int64_t *want)
{
    assert_int_equal(t->count, n);
    for (int64_t i = 0; i < n; i++)
        if (tensor_get_i64(t, i) != want[i])
            fail_msg("element %lld: got %lld, want %lld", (long long)i,
                     (long long)tensor_get_i64(t, i), (long long)want[i]);
    tensor_release(t);
}

static inline Tensor *unary(UnaryOp op, const Tensor *x)
{
    TensorCtx ctx;
    tensor_ctx_init(&ctx, NULL);
    Tensor *y;
    assert_int_equal(kern_unary(&ctx, op, x, &y), TENSOR_OK);
    return y;
}

static inline Tensor *binary(BinaryOp op, const Tensor *a, const Tensor *b)
{
    TensorCtx ctx;
    tensor_ctx_init(&ctx, NULL);
    Tensor *y;
    assert_int_equal(kern_binary(&ctx, op, a, b, &y), TENSOR_OK);
    return y;
}

#endif
