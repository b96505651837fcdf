/* Interpreter compute benchmarks: the kernels of include/shardc/kernels.h
 * against the hardware baselines, measured side by side in one process.
 *
 *   bench_kernels matmul       kern_einsum vs cblas_sgemm on the same buffers
 *   bench_kernels elementwise  kern_binary add/mul, kern_unary gelu vs memcpy
 *   bench_kernels mlp          the per-device ops of the Megatron MLP
 *                              end-to-end case, for the 8 devices in turn
 *
 * Every line of output is "RESULT key=value ..." (bench/run.sh formats the
 * table). Timings are medians over interleaved repetitions: the kernel and
 * its baseline alternate, so a change in machine load hits both. */
#include <cblas.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bench_timing.h"
#include "shardc/kern_libs.h"
#include "shardc/kernels.h"
#include "shardc/tensor.h"

static _Noreturn void die(const TensorCtx *ctx, const char *what)
{
    fprintf(stderr, "bench_kernels: %s: %s\n", what, ctx->msg);
    exit(1);
}

static Tensor *random_tensor(TensorCtx *ctx, int rank, const int64_t *dims, uint64_t stream)
{
    Tensor *t;
    if (tensor_new_uninit(ctx, DT_F32, rank, dims, &t) != TENSOR_OK)
        die(ctx, "allocation");
    rng_fill(t, 42, stream);
    return t;
}

/* ---- matmul ---------------------------------------------------------------------- */

typedef struct MatmulCase {
    const char *name;
    int64_t batch, m, k, n;
    int reps;
} MatmulCase;

static void sgemm_batched(const MatmulCase *c, const float *a, const float *b, float *out)
{
    int M = (int)c->m, N = (int)c->n, K = (int)c->k;
    for (int64_t i = 0; i < c->batch; i++)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, a + i * M * K, K, b + i * K * N, N,
                    0.0f, out + i * M * N, N);
}

static void bench_matmul_case(TensorCtx *ctx, const MatmulCase *c)
{
    bool batched = c->batch > 1;
    int64_t adims[3] = {c->batch, c->m, c->k}, bdims[3] = {c->batch, c->k, c->n};
    Tensor *a = random_tensor(ctx, batched ? 3 : 2, batched ? adims : adims + 1, 1);
    Tensor *b = random_tensor(ctx, batched ? 3 : 2, batched ? bdims : bdims + 1, 2);
    const Tensor *ops[2] = {a, b};
    const char *spec = batched ? "zmk,zkn->zmn" : "mk,kn->mn";
    float *ref = aligned_alloc(64, (size_t)(c->batch * c->m * c->n) * sizeof(float) + 64);
    if (!ref) {
        fprintf(stderr, "bench_kernels: out of memory\n");
        exit(1);
    }
    double t_einsum[64], t_sgemm[64];
    int reps = c->reps < 64 ? c->reps : 64;
    /* one untimed round of each: page-in, OpenBLAS thread start-up */
    Tensor *out = NULL;
    if (kern_einsum(ctx, spec, 2, ops, &out) != TENSOR_OK)
        die(ctx, "einsum");
    sgemm_batched(c, a->data, b->data, ref);
    double max_err = 0;
    for (int64_t i = 0; i < out->count; i++)
        max_err = fmax(max_err, fabs((double)((float *)out->data)[i] - ref[i]));
    tensor_release(out);
    for (int r = 0; r < reps; r++) {
        /* alternate which goes first, so neither always follows the other */
        for (int turn = 0; turn < 2; turn++) {
            double t0 = now();
            if ((turn + r) % 2 == 0) {
                if (kern_einsum(ctx, spec, 2, ops, &out) != TENSOR_OK)
                    die(ctx, "einsum");
                t_einsum[r] = now() - t0;
                tensor_release(out);
            } else {
                sgemm_batched(c, a->data, b->data, ref);
                t_sgemm[r] = now() - t0;
            }
        }
    }
    double paired[64];
    for (int r = 0; r < reps; r++)
        paired[r] = t_sgemm[r] / t_einsum[r];
    double ratio = median(paired, reps); /* paired: robust to load that changes between reps */
    double te = median(t_einsum, reps), ts = median(t_sgemm, reps);
    double flops = 2.0 * (double)c->batch * (double)c->m * (double)c->k * (double)c->n;
    printf("RESULT kind=matmul name=%s reps=%d einsum_ms=%.4f sgemm_ms=%.4f ratio=%.3f einsum_gflops=%.2f "
           "sgemm_gflops=%.2f max_abs_diff=%.3g\n",
           c->name, reps, 1e3 * te, 1e3 * ts, ratio, flops / te * 1e-9, flops / ts * 1e-9, max_err);
    fflush(stdout);
    free(ref);
    tensor_release(a);
    tensor_release(b);
}

static void bench_matmul(TensorCtx *ctx)
{
    static const MatmulCase cases[] = {
        {"256^3", 1, 256, 256, 256, 41},
        {"512^3", 1, 512, 512, 512, 21},
        {"1024^3", 1, 1024, 1024, 1024, 7},
        {"2048^3", 1, 2048, 2048, 2048, 3},
        {"8x1024x1024", 1, 8, 1024, 1024, 41},
        {"8x256^3_batched", 8, 256, 256, 256, 21},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        bench_matmul_case(ctx, &cases[i]);
}

/* ---- elementwise ---------------------------------------------------------------- */

typedef enum { EW_ADD, EW_MUL, EW_GELU } EwOp;

static TensorStatus run_ew(TensorCtx *ctx, EwOp op, const Tensor *a, const Tensor *b, Tensor **out)
{
    switch (op) {
    case EW_ADD: return kern_binary(ctx, BIN_ADD, a, b, out);
    case EW_MUL: return kern_binary(ctx, BIN_MUL, a, b, out);
    case EW_GELU: return kern_unary(ctx, UN_GELU, a, out);
    }
    return TENSOR_ERR_ARG;
}

static void bench_elementwise_case(TensorCtx *ctx, EwOp op, const char *name, int64_t n, int reps)
{
    Tensor *a = random_tensor(ctx, 1, &n, 3), *b = random_tensor(ctx, 1, &n, 4);
    size_t bytes = (size_t)n * sizeof(float);
    char *dst = aligned_alloc(64, bytes);
    if (!dst) {
        fprintf(stderr, "bench_kernels: out of memory\n");
        exit(1);
    }
    memset(dst, 1, bytes);
    double t_kern[64], t_copy[64], t_fresh[64], paired[64], paired_fresh[64];
    reps = reps < 64 ? reps : 64;
    Tensor *out = NULL;
    if (run_ew(ctx, op, a, b, &out) != TENSOR_OK)
        die(ctx, name);
    tensor_release(out);
    for (int r = 0; r < reps; r++) {
        for (int turn = 0; turn < 3; turn++) {
            double t0 = now();
            switch ((turn + r) % 3) {
            case 0:
                if (run_ew(ctx, op, a, b, &out) != TENSOR_OK)
                    die(ctx, name);
                t_kern[r] = now() - t0;
                tensor_release(out);
                break;
            case 1:
                memcpy(dst, a->data, bytes);
                t_copy[r] = now() - t0;
                break;
            default: {
                /* memcpy into a new buffer, as the kernel writes a new tensor:
                 * shows how much of the gap is allocation and page faults */
                char *fresh = aligned_alloc(64, bytes);
                if (!fresh) {
                    fprintf(stderr, "bench_kernels: out of memory\n");
                    exit(1);
                }
                memcpy(fresh, a->data, bytes);
                __asm__ volatile("" : : "r"(fresh) : "memory"); /* keep the copy */
                t_fresh[r] = now() - t0;
                free(fresh);
            }
            }
        }
        paired[r] = t_copy[r] / t_kern[r];
        paired_fresh[r] = t_fresh[r] / t_kern[r];
    }
    double ratio = median(paired, reps), ratio_fresh = median(paired_fresh, reps);
    double tk = median(t_kern, reps), tc = median(t_copy, reps), tf = median(t_fresh, reps);
    printf("RESULT kind=elementwise name=%s elements=%lld bytes=%zu reps=%d kernel_ms=%.4f memcpy_ms=%.4f "
           "fresh_memcpy_ms=%.4f ratio=%.3f ratio_fresh=%.3f kernel_gbs=%.2f memcpy_gbs=%.2f\n",
           name, (long long)n, bytes, reps, 1e3 * tk, 1e3 * tc, 1e3 * tf, ratio, ratio_fresh,
           (double)bytes / tk * 1e-9, (double)bytes / tc * 1e-9);
    fflush(stdout);
    free(dst);
    tensor_release(a);
    tensor_release(b);
}

static void bench_elementwise(TensorCtx *ctx)
{
    static const struct { EwOp op; const char *name; } ops[] = {
        {EW_ADD, "add"}, {EW_MUL, "mul"}, {EW_GELU, "gelu"},
    };
    static const struct { int64_t n; int reps; } sizes[] = {{1 << 18, 41}, {1 << 24, 9}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
            bench_elementwise_case(ctx, ops[i].op, ops[i].name, sizes[s].n, sizes[s].reps);
}

/* ---- the Megatron MLP's per-device compute ---------------------------------------- */

/* bench/megatron_mlp_e2e.shir on <"data"=2, "model"=4>: each device holds
 * x [B/2, H], w1 [H, F/4], b1 [F/4], w2 [F/4, H], b2 [H] and computes
 * h = x @ w1, + b1, gelu, @ w2 (a partial sum: the all-reduce is measured
 * by bench_collectives), + b2. Timed twice: the 8 devices on 8 threads at
 * once, as the interpreter runs a shard_map (compute_ms), and one device
 * after another (compute_seq_ms). */
typedef struct MlpDevice {
    KernLibs *libs;
    const Tensor *x, *w1, *b1, *w2, *b2;
    bool failed;
} MlpDevice;

static void *mlp_device(void *arg)
{
    MlpDevice *d = arg;
    TensorCtx ctx;
    tensor_ctx_init(&ctx, NULL);
    ctx.libs = d->libs;
    Tensor *h = NULL, *hb = NULL, *a = NULL, *o = NULL, *y = NULL;
    const Tensor *m1[2] = {d->x, d->w1};
    d->failed = kern_einsum(&ctx, "bh,hf->bf", 2, m1, &h) != TENSOR_OK ||
                kern_binary(&ctx, BIN_ADD, h, d->b1, &hb) != TENSOR_OK ||
                kern_unary(&ctx, UN_GELU, hb, &a) != TENSOR_OK;
    const Tensor *m2[2] = {a, d->w2};
    d->failed = d->failed || kern_einsum(&ctx, "bf,fh->bh", 2, m2, &o) != TENSOR_OK ||
                kern_binary(&ctx, BIN_ADD, o, d->b2, &y) != TENSOR_OK;
    tensor_release(h);
    tensor_release(hb);
    tensor_release(a);
    tensor_release(o);
    tensor_release(y);
    return NULL;
}

enum { MLP_MAX_DEVICES = 64 };

static double mlp_round(MlpDevice *devs, int devices, bool threaded)
{
    pthread_t threads[MLP_MAX_DEVICES];
    double t0 = now();
    for (int d = 0; d < devices; d++) {
        if (!threaded)
            mlp_device(&devs[d]);
        else if (pthread_create(&threads[d], NULL, mlp_device, &devs[d]) != 0) {
            fprintf(stderr, "bench_kernels: pthread_create failed\n");
            exit(1);
        }
    }
    for (int d = 0; threaded && d < devices; d++)
        pthread_join(threads[d], NULL);
    double t = now() - t0;
    for (int d = 0; d < devices; d++)
        if (devs[d].failed) {
            fprintf(stderr, "bench_kernels: an MLP kernel failed\n");
            exit(1);
        }
    return t;
}

static void bench_mlp(TensorCtx *ctx, int64_t batch, int64_t hidden, int64_t ffn, int devices, int model)
{
    int64_t lb = batch / (devices / model), lf = ffn / model;
    int64_t xd[2] = {lb, hidden}, w1d[2] = {hidden, lf}, w2d[2] = {lf, hidden};
    Tensor *x = random_tensor(ctx, 2, xd, 5), *w1 = random_tensor(ctx, 2, w1d, 6);
    Tensor *b1 = random_tensor(ctx, 1, &lf, 7), *w2 = random_tensor(ctx, 2, w2d, 8);
    Tensor *b2 = random_tensor(ctx, 1, &hidden, 9);
    MlpDevice devs[MLP_MAX_DEVICES];
    for (int d = 0; d < devices && d < MLP_MAX_DEVICES; d++)
        devs[d] = (MlpDevice){ctx->libs, x, w1, b1, w2, b2, false};
    double par[16], seq[16];
    int reps = 5;
    mlp_round(devs, devices, true); /* warm-up */
    for (int r = 0; r < reps; r++) {
        par[r] = mlp_round(devs, devices, true);
        seq[r] = mlp_round(devs, devices, false);
    }
    double flops = 2.0 * 2.0 * (double)batch * (double)hidden * (double)ffn;
    printf("RESULT kind=mlp devices=%d batch=%lld hidden=%lld ffn=%lld compute_ms=%.3f compute_seq_ms=%.3f "
           "flops=%.0f\n",
           devices, (long long)batch, (long long)hidden, (long long)ffn, 1e3 * median(par, reps),
           1e3 * median(seq, reps), flops);
    tensor_release(x);
    tensor_release(w1);
    tensor_release(b1);
    tensor_release(w2);
    tensor_release(b2);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: bench_kernels matmul|elementwise|mlp\n");
        return 2;
    }
    TensorCtx ctx;
    tensor_ctx_init(&ctx, NULL);
    ctx.libs = kern_libs_new();
    if (strcmp(argv[1], "matmul") == 0)
        bench_matmul(&ctx);
    else if (strcmp(argv[1], "elementwise") == 0)
        bench_elementwise(&ctx);
    else if (strcmp(argv[1], "mlp") == 0)
        bench_mlp(&ctx, 2048, 1024, 4096, 8, 4);
    else {
        fprintf(stderr, "bench_kernels: unknown benchmark '%s'\n", argv[1]);
        return 2;
    }
    kern_libs_free(ctx.libs);
    return 0;
}
