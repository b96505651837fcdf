/* The convolution kernel (kern_convolution, src/kernels/window.c) against
 * a direct OpenBLAS im2col + sgemm of the same shape, written here as
 * plainly as it gets: NHWC input, HWIO kernel (already the gemm's
 * row-major K x O matrix), one im2col of every image into a buffer it
 * allocates, one sgemm into an output it allocates (as the kernel does). Both run
 * interleaved, REPS times per shape; a line per shape:
 *   RESULT name=... ratio=MEDIAN min=... max=... ours_ms=... ref_ms=...
 * where ratio = reference time / ours (1 = as fast as the direct code),
 * taken per interleaved pair, and the times are medians.
 * Times are CPU time of the process (one BLAS thread, so the thread's):
 * the machine is shared, and wall time there measures the neighbours.
 * usage: bench_conv [REPS [NAME]] */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_timing.h"
#include "shardc/kern_libs.h"
#include "shardc/kernels.h"

#include <time.h>

/* CPU time of the process, in seconds. */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct ConvCase {
    const char *name;
    int64_t n, h, w, c, kh, kw, o, stride, pad;
} ConvCase;

static int64_t out_size(int64_t in, int64_t k, int64_t stride, int64_t pad)
{
    return (in + 2 * pad - k) / stride + 1;
}

/* The direct code: im2col of all images into a, then one sgemm into y;
 * like the kernel, it allocates its buffer and its output. */
static float *reference(const ConvCase *c, const float *x, const float *k)
{
    int64_t oh = out_size(c->h, c->kh, c->stride, c->pad), ow = out_size(c->w, c->kw, c->stride, c->pad);
    int64_t cols = c->kh * c->kw * c->c;
    float *a = malloc(sizeof(float) * (size_t)(c->n * oh * ow * cols));
    float *y = malloc(sizeof(float) * (size_t)(c->n * oh * ow * c->o));
    if (!a || !y)
        exit(1);
    float *row = a;
    for (int64_t b = 0; b < c->n; b++)
        for (int64_t i = 0; i < oh; i++)
            for (int64_t j = 0; j < ow; j++, row += cols)
                for (int64_t u = 0; u < c->kh; u++)
                    for (int64_t v = 0; v < c->kw; v++) {
                        int64_t r = i * c->stride + u - c->pad, s = j * c->stride + v - c->pad;
                        float *dst = row + (u * c->kw + v) * c->c;
                        if (r < 0 || r >= c->h || s < 0 || s >= c->w)
                            memset(dst, 0, sizeof(float) * (size_t)c->c);
                        else
                            memcpy(dst, x + ((b * c->h + r) * c->w + s) * c->c, sizeof(float) * (size_t)c->c);
                    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)(c->n * oh * ow), (int)c->o, (int)cols, 1.0f, a,
                (int)cols, k, (int)c->o, 0.0f, y, (int)c->o);
    free(a);
    return y;
}

static Tensor *filled(TensorCtx *ctx, int64_t n0, int64_t n1, int64_t n2, int64_t n3)
{
    Tensor *t;
    if (tensor_new_uninit(ctx, DT_F32, 4, (int64_t[]){n0, n1, n2, n3}, &t) != TENSOR_OK)
        exit(1);
    float *p = t->data;
    for (int64_t i = 0; i < t->count; i++)
        p[i] = (float)((i * 7919) % 1000) / 1000.0f - 0.5f;
    return t;
}

static void run_case(KernLibs *libs, const ConvCase *c, int reps)
{
    TensorCtx ctx;
    tensor_ctx_init(&ctx, NULL);
    ctx.libs = libs;
    Tensor *x = filled(&ctx, c->n, c->h, c->w, c->c), *k = filled(&ctx, c->kh, c->kw, c->c, c->o);
    int64_t oh = out_size(c->h, c->kh, c->stride, c->pad), ow = out_size(c->w, c->kw, c->stride, c->pad);
    ConvDims d = {2, 0, 3, {1, 2}, 2, 3, {0, 1}, 0, 3, {1, 2}};
    WindowDims w = {2, {c->kh, c->kw}, {c->stride, c->stride}, {c->pad, c->pad}, {c->pad, c->pad}, {1, 1}, {1, 1}};
    int64_t dims[4] = {c->n, oh, ow, c->o};
    double *ratio = malloc(sizeof(double) * (size_t)reps), *ours = malloc(sizeof(double) * (size_t)reps);
    double *ref = malloc(sizeof(double) * (size_t)reps), maxdiff = 0;
    for (int r = -1; r < reps; r++) { /* r = -1: warm-up */
        Tensor *out;
        double t0 = cpu_now();
        if (kern_convolution(&ctx, x, k, &d, &w, 1, 1, dims, &out) != TENSOR_OK)
            exit(1);
        double t1 = cpu_now();
        float *y = reference(c, x->data, k->data);
        double t2 = cpu_now();
        for (int64_t i = 0; r == reps - 1 && i < out->count; i++) {
            double diff = ((float *)out->data)[i] - y[i];
            maxdiff = diff > maxdiff ? diff : -diff > maxdiff ? -diff : maxdiff;
        }
        tensor_release(out);
        free(y);
        if (r >= 0)
            ours[r] = t1 - t0, ref[r] = t2 - t1, ratio[r] = (t2 - t1) / (t1 - t0);
    }
    double med = median(ratio, reps);
    printf("RESULT name=%s ratio=%.2f min=%.2f max=%.2f ours_ms=%.2f ref_ms=%.2f maxdiff=%.1e\n", c->name, med,
           ratio[0], ratio[reps - 1], 1e3 * median(ours, reps), 1e3 * median(ref, reps), maxdiff);
    free(ratio), free(ours), free(ref);
    tensor_release(x);
    tensor_release(k);
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 15;
    static const ConvCase cases[] = {
        {"3x3_32x32x64_to_64_n4", 4, 32, 32, 64, 3, 3, 64, 1, 1},
        {"3x3_16x16x128_to_128_n4", 4, 16, 16, 128, 3, 3, 128, 1, 1},
        {"1x1_28x28x128_to_256_n4", 4, 28, 28, 128, 1, 1, 256, 1, 0},
        {"3x3s2_56x56x32_to_64_n2", 2, 56, 56, 32, 3, 3, 64, 2, 1},
        {"7x7s2_64x64x3_to_32_n4", 4, 64, 64, 3, 7, 7, 32, 2, 3},
    };
    const char *only = argc > 2 ? argv[2] : NULL;
    KernLibs *libs = kern_libs_new();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (!only || strcmp(only, cases[i].name) == 0)
            run_case(libs, &cases[i], reps < 1 ? 1 : reps);
    kern_libs_free(libs);
    return 0;
}
