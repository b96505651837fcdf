/* The FFT kernel (StableHLO's fft) on FFTW: one batched plan per call
 * (fftw_plan_many_dft and its real-input forms), FFTW_ESTIMATE so planning
 * never touches the data. c64 runs in FFTW's single precision, c128 in
 * double. FFTW's backward transforms are unnormalised: IFFT and IRFFT
 * divide by the product of the lengths afterwards, as numpy.fft does. */
#include <limits.h>
#include <pthread.h>
#include <string.h>
#include "shardc/checked.h"
#include "shardc/kernels.h"
#include "kernels/kern_libs.h"

/* FFTW's planner keeps process-wide tables and is not thread-safe (only
 * fftw_execute is), while simulated devices run kernels on threads: plans
 * are made and destroyed under this lock. The one static of the kernels,
 * because the state it guards is FFTW's own. */
static pthread_mutex_t fft_planner_lock = PTHREAD_MUTEX_INITIALIZER;

bool kern_fft_type_lookup(const char *name, KernFftType *out)
{
    static const char *const names[] = {"FFT", "IFFT", "RFFT", "IRFFT"};
    for (int i = 0; name && i < 4; i++)
        if (strcmp(name, names[i]) == 0) {
            *out = (KernFftType)i;
            return true;
        }
    return false;
}

/* What one call transforms: `howmany` batches of an n-dim transform, each
 * `in_dist` input and `out_dist` output elements apart. */
typedef struct FftShape {
    int n, len[3];
    int howmany, in_dist, out_dist;
    double scale; /* 1 / product of the lengths for the inverse transforms */
} FftShape;

/* One precision's plan-execute-destroy, for FFTW's double (fftw_) and
 * single (fftwf_) APIs; in and out are the tensors' data. */
#define FFT_RUN(P, REAL, NAME)                                                          \
    static bool NAME(const KernLibFns *f, KernFftType type, const FftShape *s, void *in, void *out) \
    {                                                                                   \
        P##_plan plan;                                                                  \
        pthread_mutex_lock(&fft_planner_lock);                                          \
        if (type == KERN_RFFT)                                                          \
            plan = f->P##_plan_many_dft_r2c(s->n, s->len, s->howmany, in, NULL, 1, s->in_dist, \
                                         out, NULL, 1, s->out_dist, FFTW_ESTIMATE);     \
        else if (type == KERN_IRFFT)                                                    \
            plan = f->P##_plan_many_dft_c2r(s->n, s->len, s->howmany, in, NULL, 1, s->in_dist, \
                                         out, NULL, 1, s->out_dist, FFTW_ESTIMATE);     \
        else                                                                            \
            plan = f->P##_plan_many_dft(s->n, s->len, s->howmany, in, NULL, 1, s->in_dist, out, \
                                     NULL, 1, s->out_dist,                              \
                                     type == KERN_FFT ? FFTW_FORWARD : FFTW_BACKWARD, FFTW_ESTIMATE); \
        pthread_mutex_unlock(&fft_planner_lock);                                        \
        if (!plan)                                                                      \
            return false;                                                               \
        f->P##_execute(plan);                                                           \
        pthread_mutex_lock(&fft_planner_lock);                                          \
        f->P##_destroy_plan(plan);                                                      \
        pthread_mutex_unlock(&fft_planner_lock);                                        \
        return true;                                                                    \
    }
FFT_RUN(fftw, double, fft_run_f64)
FFT_RUN(fftwf, float, fft_run_f32)

/* The result's element type: FFT/IFFT complex to itself, RFFT real to
 * complex, IRFFT complex to real. */
static TensorStatus fft_dtype(TensorCtx *ctx, const Tensor *x, KernFftType type, DType *dt)
{
    *dt = type == KERN_IRFFT ? dtype_complex_part(x->dtype) : x->dtype;
    if (type == KERN_RFFT && !dtype_complex_of(x->dtype, dt))
        return tensor_fail(ctx, TENSOR_ERR_DTYPE, "fft: RFFT needs f32 or f64, not %s", dtype_name(x->dtype));
    if (type != KERN_RFFT && !dtype_is_complex(x->dtype))
        return tensor_fail(ctx, TENSOR_ERR_DTYPE, "fft: needs c64 or c128, not %s", dtype_name(x->dtype));
    return TENSOR_OK;
}

/* The lengths as FFTW's ints, the real side's point count and the half
 * spectrum's (the last length / 2 + 1), checked against overflow. */
static TensorStatus fft_lengths(TensorCtx *ctx, int n, const int64_t *lengths, FftShape *s, int64_t *real,
                                int64_t *half)
{
    *real = *half = 1;
    for (int i = 0; i < n; i++) {
        if (lengths[i] < 1 || lengths[i] > INT_MAX / 2)
            return tensor_fail(ctx, TENSOR_ERR_ARG, "fft: length %lld out of range", (long long)lengths[i]);
        s->len[i] = (int)lengths[i];
        int64_t h = i == n - 1 ? lengths[i] / 2 + 1 : lengths[i];
        if (!size_mul(*real, lengths[i], real) || !size_mul(*half, h, half) || *real > INT_MAX)
            return tensor_fail(ctx, TENSOR_ERR_NOMEM, "fft: transform too large");
    }
    s->n = n;
    return TENSOR_OK;
}

/* The result's dims and the batching of x: every index of its leading dims
 * one transform, the input and output `dist` elements apart. */
static TensorStatus fft_shape(TensorCtx *ctx, const Tensor *x, KernFftType type, int n, const int64_t *lengths,
                              int64_t *dims, FftShape *s)
{
    int64_t real, half, batch = 1;
    int first = x->rank - n;
    if (n < 1 || n > 3 || first < 0)
        return tensor_fail(ctx, TENSOR_ERR_ARG, "fft: %d lengths for a rank-%d operand", n, x->rank);
    TensorStatus st = fft_lengths(ctx, n, lengths, s, &real, &half);
    for (int d = 0; st == TENSOR_OK && d < first; d++)
        if (!size_mul(batch, x->dims[d], &batch) || batch > INT_MAX)
            st = tensor_fail(ctx, TENSOR_ERR_NOMEM, "fft: too many transforms");
    memcpy(dims, x->dims, (size_t)x->rank * sizeof *dims);
    memcpy(dims + first, lengths, (size_t)n * sizeof *lengths);
    int64_t half_last = lengths[n - 1] / 2 + 1;
    dims[x->rank - 1] = type == KERN_IRFFT ? half_last : lengths[n - 1]; /* what x must have */
    for (int d = first; st == TENSOR_OK && d < x->rank; d++)
        if (x->dims[d] != dims[d])
            st = tensor_fail(ctx, TENSOR_ERR_SHAPE, "fft: operand dims do not match fft_length");
    dims[x->rank - 1] = type == KERN_RFFT ? half_last : lengths[n - 1];
    s->howmany = (int)batch;
    s->in_dist = (int)(type == KERN_IRFFT ? half : real);
    s->out_dist = (int)(type == KERN_RFFT ? half : real);
    s->scale = type == KERN_IFFT || type == KERN_IRFFT ? 1.0 / (double)real : 1.0;
    return st;
}

/* Multiply every part of out by the inverse transforms' 1 / N. */
static void fft_scale(Tensor *out, double scale)
{
    Tensor parts;
    tensor_complex_parts_view(out, &parts);
    if (parts.dtype == DT_F64)
        for (int64_t i = 0; i < parts.count; i++)
            ((double *)parts.data)[i] *= scale;
    else
        for (int64_t i = 0; i < parts.count; i++)
            ((float *)parts.data)[i] *= (float)scale;
}

/* The transforms of `in` (x's type) into `out`, planned and run. */
static TensorStatus fft_execute(TensorCtx *ctx, KernFftType type, const FftShape *s, Tensor *in, Tensor *out)
{
    const KernLibFns *fftw = kern_libs_fns(ctx);
    if (!fftw)
        return ctx->status;
    bool f64 = dtype_complex_part(in->dtype) == DT_F64;
    if (!(f64 ? fft_run_f64 : fft_run_f32)(fftw, type, s, in->data, out->data))
        return tensor_fail(ctx, TENSOR_ERR_ARG, "fft: FFTW could not plan the transform");
    return TENSOR_OK;
}

TensorStatus kern_fft(TensorCtx *ctx, const Tensor *x, KernFftType type, int n, const int64_t *lengths,
                      Tensor **out)
{
    *out = NULL;
    int64_t dims[SHARDC_MAX_RANK];
    DType dt;
    FftShape s;
    TensorStatus st = fft_dtype(ctx, x, type, &dt);
    if (st == TENSOR_OK)
        st = fft_shape(ctx, x, type, n, lengths, dims, &s);
    Tensor *in = NULL; /* a private dense copy: FFTW's multi-dim c2r overwrites its input */
    if (st == TENSOR_OK)
        st = x->strided ? tensor_contiguous(ctx, (Tensor *)x, &in) : tensor_clone(ctx, x, &in);
    if (st == TENSOR_OK)
        st = tensor_new_uninit(ctx, dt, x->rank, dims, out);
    if (st == TENSOR_OK && s.howmany > 0)
        st = fft_execute(ctx, type, &s, in, *out);
    if (st != TENSOR_OK) {
        tensor_release(*out);
        *out = NULL;
    }
    if (st == TENSOR_OK && s.scale != 1.0)
        fft_scale(*out, s.scale);
    tensor_release(in);
    return st;
}
