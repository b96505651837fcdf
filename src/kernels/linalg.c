/* cholesky and triangular_solve with LAPACKE and CBLAS (row-major, one
 * call per matrix of the batch). f32 and f64 run in their own precision;
 * bf16 and f16 are widened to f32 and rounded back, as every kernel does
 * (kernels.h). */
#include "shardc/kernels.h"
#include <math.h>
#include "kernels/kern_libs.h"

/* A dense f32 or f64 copy of x that LAPACK may overwrite. */
static TensorStatus work_copy(TensorCtx *ctx, const char *what, const Tensor *x, Tensor **out)
{
    *out = NULL;
    if (!dtype_is_float(x->dtype))
        return tensor_fail(ctx, TENSOR_ERR_DTYPE, "%s needs a float operand, got %s", what, dtype_name(x->dtype));
    if (x->rank < 2)
        return tensor_fail(ctx, TENSOR_ERR_SHAPE, "%s needs operands of rank >= 2, got rank %d", what, x->rank);
    if (x->dims[x->rank - 1] > INT32_MAX || x->dims[x->rank - 2] > INT32_MAX) /* LAPACK's int32 sizes */
        return tensor_fail(ctx, TENSOR_ERR_ARG, "%s: a matrix dim exceeds LAPACK's 32-bit sizes", what);
    if (x->dtype == DT_F32 || x->dtype == DT_F64)
        return tensor_clone(ctx, x, out);
    return tensor_convert(ctx, x, DT_F32, out);
}

/* w back in `dtype`, w's reference handed over. */
static TensorStatus finish(TensorCtx *ctx, Tensor *w, DType dtype, Tensor **out)
{
    if (w->dtype == dtype) {
        *out = w;
        return TENSOR_OK;
    }
    TensorStatus st = tensor_convert(ctx, w, dtype, out);
    tensor_release(w);
    return st;
}

/* How many matrices x holds (0 when they are empty). */
static int64_t batch_count(const Tensor *x)
{
    int64_t matrix = x->dims[x->rank - 2] * x->dims[x->rank - 1];
    return matrix ? x->count / matrix : 0;
}

/* One matrix: factor in place, zero the other triangle; NaNs if LAPACK
 * reports it not positive definite (info > 0). */
static void cholesky_one(const KernLibFns *la, Tensor *w, int64_t m, int64_t n, bool lower)
{
    size_t esize = dtype_size(w->dtype);
    char *base = (char *)w->data + (size_t)(m * n * n) * esize;
    char uplo = lower ? 'L' : 'U';
    lapack_int info = w->dtype == DT_F32 ? la->LAPACKE_spotrf(LAPACK_ROW_MAJOR, uplo, (lapack_int)n, (float *)base, (lapack_int)n)
                                         : la->LAPACKE_dpotrf(LAPACK_ROW_MAJOR, uplo, (lapack_int)n, (double *)base, (lapack_int)n);
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) {
            bool other = lower ? j > i : j < i;
            double v = info != 0 ? NAN : 0.0;
            if (!other && info == 0)
                continue;
            if (w->dtype == DT_F32)
                ((float *)base)[i * n + j] = (float)v;
            else
                ((double *)base)[i * n + j] = v;
        }
}

TensorStatus kern_cholesky(TensorCtx *ctx, const Tensor *a, bool lower, Tensor **out)
{
    *out = NULL;
    Tensor *w;
    TensorStatus st = work_copy(ctx, "cholesky", a, &w);
    if (st != TENSOR_OK)
        return st;
    int64_t n = a->dims[a->rank - 1];
    if (a->dims[a->rank - 2] != n) {
        tensor_release(w);
        return tensor_fail(ctx, TENSOR_ERR_SHAPE, "cholesky needs square matrices, got %lldx%lld",
                           (long long)a->dims[a->rank - 2], (long long)n);
    }
    const KernLibFns *la = kern_libs_fns(ctx);
    if (!la) {
        tensor_release(w);
        return ctx->status;
    }
    for (int64_t m = 0; m < batch_count(a); m++)
        cholesky_one(la, w, m, n, lower);
    return finish(ctx, w, a->dtype, out);
}

/* One right-hand side block: B (rows x cols) overwritten by X. */
static void trsm_one(const KernLibFns *blas, const Tensor *a, Tensor *b, int64_t m, const KernTriangularSolve *o)
{
    int64_t rows = b->dims[b->rank - 2], cols = b->dims[b->rank - 1];
    int64_t k = o->left_side ? rows : cols;
    CBLAS_SIDE side = o->left_side ? CblasLeft : CblasRight;
    CBLAS_UPLO uplo = o->lower ? CblasLower : CblasUpper;
    CBLAS_TRANSPOSE trans = o->transpose_a == KERN_NO_TRANSPOSE ? CblasNoTrans : CblasTrans;
    CBLAS_DIAG diag = o->unit_diagonal ? CblasUnit : CblasNonUnit;
    if (b->dtype == DT_F32)
        blas->cblas_strsm(CblasRowMajor, side, uplo, trans, diag, (blasint)rows, (blasint)cols, 1.0f,
                          (const float *)a->data + m * k * k, (blasint)k, (float *)b->data + m * rows * cols, (blasint)cols);
    else
        blas->cblas_dtrsm(CblasRowMajor, side, uplo, trans, diag, (blasint)rows, (blasint)cols, 1.0,
                          (const double *)a->data + m * k * k, (blasint)k, (double *)b->data + m * rows * cols, (blasint)cols);
}

static TensorStatus check_solve_shapes(TensorCtx *ctx, const Tensor *a, const Tensor *b, bool left_side)
{
    int r = b->rank;
    int64_t k = left_side ? b->dims[r - 2] : b->dims[r - 1];
    bool ok = a->rank == r && a->dims[r - 2] == k && a->dims[r - 1] == k;
    for (int d = 0; ok && d < r - 2; d++)
        ok = a->dims[d] == b->dims[d];
    if (!ok)
        return tensor_fail(ctx, TENSOR_ERR_SHAPE, "triangular_solve: a's matrices must be square and fit b's");
    return TENSOR_OK;
}

TensorStatus kern_triangular_solve(TensorCtx *ctx, const Tensor *a, const Tensor *b,
                                   const KernTriangularSolve *opts, Tensor **out)
{
    Tensor *wa = NULL, *wb = NULL;
    TensorStatus st = work_copy(ctx, "triangular_solve", b, &wb);
    if (st == TENSOR_OK)
        st = work_copy(ctx, "triangular_solve", a, &wa);
    if (st == TENSOR_OK && wa->dtype != wb->dtype)
        st = tensor_fail(ctx, TENSOR_ERR_DTYPE, "triangular_solve: a and b differ in element type");
    if (st == TENSOR_OK)
        st = check_solve_shapes(ctx, a, b, opts->left_side);
    const KernLibFns *blas = st == TENSOR_OK ? kern_libs_fns(ctx) : NULL;
    if (st == TENSOR_OK && !blas)
        st = ctx->status;
    for (int64_t m = 0; st == TENSOR_OK && m < batch_count(b); m++)
        trsm_one(blas, wa, wb, m, opts);
    tensor_release(wa);
    if (st != TENSOR_OK) {
        tensor_release(wb);
        *out = NULL;
        return st;
    }
    return finish(ctx, wb, b->dtype, out);
}
