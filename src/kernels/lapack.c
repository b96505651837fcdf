/* JAX's lapack_*_ffi custom_calls with LAPACKE: one call per matrix of
 * the batch. JAX hands LAPACK column-major matrices (operand_layouts);
 * LAPACKE's row-major entry points on shardc's row-major arrays compute
 * the same logical results, so the layouts need no transposes here.
 * Outputs are what jaxlib's handlers return: LAPACK's raw output (the
 * other triangle of potrf untouched, 1-based getrf pivots, i32 info);
 * JAX's lowering masks and fixes them up in StableHLO around the call. */
#include "shardc/kernels.h"
#include "kernels/kern_libs.h"

/* Where matrix `m` of the batch starts in t. */
static void *batch_item(Tensor *t, int64_t m, int64_t nbatch)
{
    int64_t per = nbatch ? t->count / nbatch : 0;
    return (char *)t->data + (size_t)(m * per) * dtype_size(t->dtype);
}

static void set_info(Tensor *info, int64_t m, lapack_int v) { ((int32_t *)info->data)[m] = (int32_t)v; }

typedef struct LapackRun {
    const KernLibFns *fns;
    const KernLapack *call;
    Tensor *const *in;
    Tensor **out;
    int64_t nbatch, rows, cols; /* of operand 0's matrices */
} LapackRun;

/* Each routine calls LAPACKE's entry point of the target's element type:
 * s, d, c or z (void * converts to LAPACKE's complex pointers). */
static void run_potrf(const LapackRun *r, int64_t m)
{
    void *a = batch_item(r->out[0], m, r->nbatch);
    lapack_int n = (lapack_int)r->cols, info = 0;
    char uplo = r->call->uplo;
    switch (r->call->target.dtype) {
    case DT_F32: info = r->fns->LAPACKE_spotrf(LAPACK_ROW_MAJOR, uplo, n, a, n); break;
    case DT_F64: info = r->fns->LAPACKE_dpotrf(LAPACK_ROW_MAJOR, uplo, n, a, n); break;
    case DT_C64: info = r->fns->LAPACKE_cpotrf(LAPACK_ROW_MAJOR, uplo, n, a, n); break;
    default: info = r->fns->LAPACKE_zpotrf(LAPACK_ROW_MAJOR, uplo, n, a, n); break;
    }
    set_info(r->out[1], m, info);
}

static void run_getrf(const LapackRun *r, int64_t m)
{
    void *a = batch_item(r->out[0], m, r->nbatch);
    lapack_int *ipiv = batch_item(r->out[1], m, r->nbatch), rows = (lapack_int)r->rows, cols = (lapack_int)r->cols;
    lapack_int info = 0;
    switch (r->call->target.dtype) {
    case DT_F32: info = r->fns->LAPACKE_sgetrf(LAPACK_ROW_MAJOR, rows, cols, a, cols, ipiv); break;
    case DT_F64: info = r->fns->LAPACKE_dgetrf(LAPACK_ROW_MAJOR, rows, cols, a, cols, ipiv); break;
    case DT_C64: info = r->fns->LAPACKE_cgetrf(LAPACK_ROW_MAJOR, rows, cols, a, cols, ipiv); break;
    default: info = r->fns->LAPACKE_zgetrf(LAPACK_ROW_MAJOR, rows, cols, a, cols, ipiv); break;
    }
    set_info(r->out[2], m, info);
}

static void run_geqrf(const LapackRun *r, int64_t m)
{
    void *a = batch_item(r->out[0], m, r->nbatch), *tau = batch_item(r->out[1], m, r->nbatch);
    lapack_int rows = (lapack_int)r->rows, cols = (lapack_int)r->cols;
    switch (r->call->target.dtype) {
    case DT_F32: r->fns->LAPACKE_sgeqrf(LAPACK_ROW_MAJOR, rows, cols, a, cols, tau); break;
    case DT_F64: r->fns->LAPACKE_dgeqrf(LAPACK_ROW_MAJOR, rows, cols, a, cols, tau); break;
    case DT_C64: r->fns->LAPACKE_cgeqrf(LAPACK_ROW_MAJOR, rows, cols, a, cols, tau); break;
    default: r->fns->LAPACKE_zgeqrf(LAPACK_ROW_MAJOR, rows, cols, a, cols, tau); break;
    }
}

/* orgqr on real types, ungqr on complex ones. */
static void run_orgqr(const LapackRun *r, int64_t m)
{
    void *a = batch_item(r->out[0], m, r->nbatch), *tau = batch_item(r->in[1], m, r->nbatch);
    lapack_int rows = (lapack_int)r->rows, cols = (lapack_int)r->cols;
    lapack_int k = (lapack_int)r->in[1]->dims[r->in[1]->rank - 1];
    switch (r->call->target.dtype) {
    case DT_F32: r->fns->LAPACKE_sorgqr(LAPACK_ROW_MAJOR, rows, cols, k, a, cols, tau); break;
    case DT_F64: r->fns->LAPACKE_dorgqr(LAPACK_ROW_MAJOR, rows, cols, k, a, cols, tau); break;
    case DT_C64: r->fns->LAPACKE_cungqr(LAPACK_ROW_MAJOR, rows, cols, k, a, cols, tau); break;
    default: r->fns->LAPACKE_zungqr(LAPACK_ROW_MAJOR, rows, cols, k, a, cols, tau); break;
    }
}

/* syevd on real types, heevd on complex ones (real eigenvalues). */
static void run_syevd(const LapackRun *r, int64_t m)
{
    void *a = batch_item(r->out[0], m, r->nbatch), *w = batch_item(r->out[1], m, r->nbatch);
    lapack_int n = (lapack_int)r->cols, info = 0;
    char jobz = r->call->mode, uplo = r->call->uplo;
    switch (r->call->target.dtype) {
    case DT_F32: info = r->fns->LAPACKE_ssyevd(LAPACK_ROW_MAJOR, jobz, uplo, n, a, n, w); break;
    case DT_F64: info = r->fns->LAPACKE_dsyevd(LAPACK_ROW_MAJOR, jobz, uplo, n, a, n, w); break;
    case DT_C64: info = r->fns->LAPACKE_cheevd(LAPACK_ROW_MAJOR, jobz, uplo, n, a, n, w); break;
    default: info = r->fns->LAPACKE_zheevd(LAPACK_ROW_MAJOR, jobz, uplo, n, a, n, w); break;
    }
    set_info(r->out[2], m, info);
}

/* u is rows x ucols, vt vtrows x cols (both left zero in mode N); the
 * singular values s are real. */
static void run_gesdd(const LapackRun *r, int64_t m)
{
    Tensor *const *o = r->out;
    void *a = batch_item(o[0], m, r->nbatch), *s = batch_item(o[1], m, r->nbatch);
    void *u = batch_item(o[2], m, r->nbatch), *vt = batch_item(o[3], m, r->nbatch);
    lapack_int rows = (lapack_int)r->rows, cols = (lapack_int)r->cols, info = 0;
    lapack_int ldu = (lapack_int)o[2]->dims[o[2]->rank - 1], ldvt = (lapack_int)o[3]->dims[o[3]->rank - 1];
    ldu = ldu > 0 ? ldu : 1;
    ldvt = ldvt > 0 ? ldvt : 1;
    char jobz = r->call->mode;
    switch (r->call->target.dtype) {
    case DT_F32: info = r->fns->LAPACKE_sgesdd(LAPACK_ROW_MAJOR, jobz, rows, cols, a, cols, s, u, ldu, vt, ldvt); break;
    case DT_F64: info = r->fns->LAPACKE_dgesdd(LAPACK_ROW_MAJOR, jobz, rows, cols, a, cols, s, u, ldu, vt, ldvt); break;
    case DT_C64: info = r->fns->LAPACKE_cgesdd(LAPACK_ROW_MAJOR, jobz, rows, cols, a, cols, s, u, ldu, vt, ldvt); break;
    default: info = r->fns->LAPACKE_zgesdd(LAPACK_ROW_MAJOR, jobz, rows, cols, a, cols, s, u, ldu, vt, ldvt); break;
    }
    set_info(o[4], m, info);
}

/* trans_x as CBLAS's: 'C' is the conjugate transpose (the transpose on
 * real types). */
static CBLAS_TRANSPOSE trsm_trans(char t) { return t == 'N' ? CblasNoTrans : t == 'T' ? CblasTrans : CblasConjTrans; }

/* b (operand 1) overwritten by x in out[0]: op(a)·x = b or x·op(a) = b. */
static void run_trsm(const LapackRun *r, int64_t m)
{
    const Tensor *b = r->in[1];
    void *x = batch_item(r->out[0], m, r->nbatch);
    const void *a = batch_item(r->in[0], m, r->nbatch);
    blasint rows = (blasint)b->dims[b->rank - 2], cols = (blasint)b->dims[b->rank - 1], k = (blasint)r->cols;
    const KernLapack *c = r->call;
    CBLAS_SIDE side = c->side == 'L' ? CblasLeft : CblasRight;
    CBLAS_UPLO uplo = c->uplo == 'L' ? CblasLower : CblasUpper;
    CBLAS_TRANSPOSE trans = trsm_trans(c->trans_x);
    CBLAS_DIAG diag = c->diag == 'U' ? CblasUnit : CblasNonUnit;
    static const float one_c[2] = {1.0f, 0.0f};
    static const double one_z[2] = {1.0, 0.0};
    switch (c->target.dtype) {
    case DT_F32: r->fns->cblas_strsm(CblasRowMajor, side, uplo, trans, diag, rows, cols, 1.0f, a, k, x, cols); break;
    case DT_F64: r->fns->cblas_dtrsm(CblasRowMajor, side, uplo, trans, diag, rows, cols, 1.0, a, k, x, cols); break;
    case DT_C64: r->fns->cblas_ctrsm(CblasRowMajor, side, uplo, trans, diag, rows, cols, one_c, a, k, x, cols); break;
    default: r->fns->cblas_ztrsm(CblasRowMajor, side, uplo, trans, diag, rows, cols, one_z, a, k, x, cols); break;
    }
}

typedef void (*LapackFn)(const LapackRun *r, int64_t m);

static const LapackFn lapack_fns[LAPACK_ROUTINE_COUNT] = {
    [LAPACK_POTRF] = run_potrf, [LAPACK_GETRF] = run_getrf, [LAPACK_GEQRF] = run_geqrf,
    [LAPACK_ORGQR] = run_orgqr, [LAPACK_SYEVD] = run_syevd, [LAPACK_GESDD] = run_gesdd,
    [LAPACK_TRSM] = run_trsm,
};

/* The results: result 0 starts as the operand it overwrites (a, or b for
 * trsm), the others zero-filled in the types the op declares. */
static TensorStatus make_results(TensorCtx *ctx, const KernLapack *call, Tensor *const *in, Tensor **out)
{
    int n = lapack_num_results(call->target.routine);
    TensorStatus st = tensor_clone(ctx, in[call->target.routine == LAPACK_TRSM ? 1 : 0], &out[0]);
    for (int i = 1; i < n; i++)
        out[i] = NULL;
    for (int i = 1; i < n && st == TENSOR_OK; i++)
        st = tensor_new_for_type(ctx, &call->result_types[i], &out[i]);
    return st;
}

TensorStatus kern_lapack(TensorCtx *ctx, const KernLapack *call, Tensor *const *in, Tensor **out)
{
    const Tensor *a = in[0];
    if (a->dtype != call->target.dtype || a->rank < 2)
        return tensor_fail(ctx, TENSOR_ERR_DTYPE, "%s needs %s matrices",
                           lapack_routine_name(call->target.routine, call->target.dtype),
                           dtype_name(call->target.dtype));
    for (int i = 0; i < lapack_num_operands(call->target.routine); i++) /* LAPACK's int32 sizes */
        if (in[i]->rank >= 1 && (in[i]->dims[in[i]->rank - 1] > INT32_MAX ||
                                 (in[i]->rank >= 2 && in[i]->dims[in[i]->rank - 2] > INT32_MAX)))
            return tensor_fail(ctx, TENSOR_ERR_ARG, "%s: a matrix dim exceeds LAPACK's 32-bit sizes",
                               lapack_routine_name(call->target.routine, call->target.dtype));
    const KernLibFns *fns = kern_libs_fns(ctx);
    if (!fns)
        return ctx->status;
    TensorStatus st = make_results(ctx, call, in, out);
    int64_t rows = a->dims[a->rank - 2], cols = a->dims[a->rank - 1], matrix = rows * cols;
    LapackRun run = {fns, call, in, out, matrix != 0 ? a->count / matrix : 0, rows, cols};
    for (int64_t m = 0; st == TENSOR_OK && m < run.nbatch; m++)
        lapack_fns[call->target.routine](&run, m);
    if (st != TENSOR_OK)
        for (int i = 0; i < lapack_num_results(call->target.routine); i++) {
            tensor_release(out[i]);
            out[i] = NULL;
        }
    return st;
}
