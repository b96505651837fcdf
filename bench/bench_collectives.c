/* Collective benchmarks: the interpreter's in-process transport
 * (include/shardc/transport.h, src/transport/local.c) on 8 simulated
 * devices, one thread each, against memcpy of the same total bytes.
 *
 *   bench_collectives sweep   all-reduce, all-gather, reduce-scatter and
 *                             all-to-all of 64 KiB ... 64 MiB per device
 *   bench_collectives mlp     the Megatron MLP end-to-end case's collective:
 *                             an all-reduce of f32[1024,1024] per device
 *                             over "model" (2 groups of 4) on a 2x4 mesh
 *
 * Sizes follow nccl-tests: S is the per-device buffer of the larger side
 * (all-reduce and all-to-all: in = out = S; all-gather: out = S, in = S/8;
 * reduce-scatter: in = S, out = S/8). The bytes a collective must move are
 * what each device receives with the bandwidth-optimal algorithm (the
 * partitioner's bytes_per_device): all-reduce 2(n-1)/n*S, the others
 * (n-1)/n*S; the total is n times that. The baseline copies the same total
 * with memcpy on one thread, in S-byte pieces between two S-byte buffers.
 * Each repetition times the collective (from a barrier until every device
 * is done) and then the memcpy; the ratio is the median over repetitions
 * of t_memcpy / t_collective. Output: "RESULT key=value ..." lines. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bench_timing.h"
#include "shardc/transport.h"

enum { DEVICES = 8, MAX_REPS = 64 };

typedef enum { C_ALL_REDUCE, C_ALL_GATHER, C_REDUCE_SCATTER, C_ALL_TO_ALL, C_COUNT } CollKind;
static const char *const kind_names[C_COUNT] = {"all_reduce", "all_gather", "reduce_scatter", "all_to_all"};

static void *xalloc(size_t bytes)
{
    void *p = aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!p) {
        fprintf(stderr, "bench_collectives: out of memory (%zu bytes)\n", bytes);
        exit(1);
    }
    memset(p, 0, bytes); /* touch every page before timing */
    return p;
}

typedef struct Bench {
    Transport *transport;
    CollKind kind;
    size_t size;            /* S, per device */
    int group_size;         /* devices per group (consecutive ids) */
    int reps;
    void *send[DEVICES], *recv[DEVICES];
    char *copy_src, *copy_dst;
    size_t copy_total;
    double t_coll[MAX_REPS], t_copy[MAX_REPS];
    atomic_bool failed;
} Bench;

typedef struct Worker {
    Bench *b;
    int self;
} Worker;

static TransportStatus run_collective(Bench *b, int self)
{
    Transport *t = b->transport;
    int64_t members[DEVICES];
    int first = self / b->group_size * b->group_size;
    for (int k = 0; k < b->group_size; k++)
        members[k] = first + k;
    TransportGroup g = {b->group_size, self - first, members};
    TransportReduction sum = {DT_F32, RED_SUM};
    size_t n = (size_t)b->group_size;
    switch (b->kind) {
    case C_ALL_REDUCE:
        return t->ops->allreduce(t, &g, sum, b->send[self], b->recv[self], (int64_t)(b->size / 4));
    case C_ALL_GATHER:
        return t->ops->allgather(t, &g, b->send[self], b->size / n, b->recv[self]);
    case C_REDUCE_SCATTER:
        return t->ops->reduce_scatter(t, &g, sum, b->send[self], b->recv[self], (int64_t)(b->size / n / 4));
    case C_ALL_TO_ALL:
        return t->ops->alltoall(t, &g, b->send[self], b->size / n, b->recv[self]);
    case C_COUNT:
        break;
    }
    return TRANSPORT_UNSUPPORTED;
}

static void *worker_main(void *arg)
{
    Worker *w = arg;
    Bench *b = w->b;
    Transport *t = b->transport;
    for (int r = -1; r < b->reps; r++) { /* r = -1 warms up */
        if (t->ops->barrier(t, w->self) != TRANSPORT_OK)
            return NULL;
        double t0 = now();
        if (run_collective(b, w->self) != TRANSPORT_OK) {
            b->failed = true;
            t->ops->abort(t);
            return NULL;
        }
        if (t->ops->barrier(t, w->self) != TRANSPORT_OK)
            return NULL;
        if (w->self == 0 && r >= 0) {
            b->t_coll[r] = now() - t0;
            double t1 = now();
            for (size_t done = 0; done < b->copy_total; done += b->size) {
                size_t piece = b->copy_total - done < b->size ? b->copy_total - done : b->size;
                memcpy(b->copy_dst, b->copy_src, piece);
                __asm__ volatile("" : : "r"(b->copy_dst) : "memory");
            }
            b->t_copy[r] = now() - t1;
        }
    }
    return NULL;
}

/* Bytes each device receives with the bandwidth-optimal algorithm. */
static double optimal_bytes(CollKind kind, size_t size, int n)
{
    double s = (double)size, f = (double)(n - 1) / (double)n;
    return kind == C_ALL_REDUCE ? 2.0 * f * s : f * s;
}

static bool run_bench(CollKind kind, size_t size, int group_size, int reps, const char *label)
{
    Bench *b = calloc(1, sizeof *b);
    if (!b)
        return false;
    b->kind = kind;
    b->size = size;
    b->group_size = group_size;
    b->reps = reps < MAX_REPS ? reps : MAX_REPS;
    size_t n = (size_t)group_size;
    size_t send_bytes = kind == C_ALL_GATHER ? size / n : size;
    size_t recv_bytes = kind == C_REDUCE_SCATTER ? size / n : size;
    for (int d = 0; d < DEVICES; d++) {
        b->send[d] = xalloc(send_bytes);
        b->recv[d] = xalloc(recv_bytes);
    }
    double per_device = optimal_bytes(kind, size, group_size);
    b->copy_total = (size_t)(per_device * DEVICES);
    b->copy_src = xalloc(size);
    b->copy_dst = xalloc(size);
    memset(b->copy_src, 1, size);
    b->transport = transport_local_new(DEVICES, DEVICES);
    if (!b->transport) {
        fprintf(stderr, "bench_collectives: transport_local_new failed\n");
        exit(1);
    }
    pthread_t threads[DEVICES];
    Worker workers[DEVICES];
    for (int d = 0; d < DEVICES; d++) {
        workers[d] = (Worker){b, d};
        if (pthread_create(&threads[d], NULL, worker_main, &workers[d]) != 0) {
            fprintf(stderr, "bench_collectives: pthread_create failed\n");
            exit(1);
        }
    }
    for (int d = 0; d < DEVICES; d++)
        pthread_join(threads[d], NULL);
    bool ok = !b->failed;
    if (ok) {
        double paired[MAX_REPS];
        for (int r = 0; r < b->reps; r++)
            paired[r] = b->t_copy[r] / b->t_coll[r];
        double ratio = median(paired, b->reps);
        double tc = median(b->t_coll, b->reps), tm = median(b->t_copy, b->reps);
        double total = per_device * DEVICES;
        printf("RESULT kind=%s name=%s bytes=%zu devices=%d group=%d reps=%d coll_ms=%.4f memcpy_ms=%.4f "
               "bytes_per_device=%.0f coll_gbs=%.3f memcpy_gbs=%.3f ratio=%.3f\n",
               label, kind_names[kind], size, DEVICES, group_size, b->reps, 1e3 * tc, 1e3 * tm, per_device,
               total / tc * 1e-9, total / tm * 1e-9, ratio);
        fflush(stdout);
    } else {
        fprintf(stderr, "bench_collectives: %s of %zu bytes failed\n", kind_names[kind], size);
    }
    b->transport->ops->destroy(b->transport);
    for (int d = 0; d < DEVICES; d++) {
        free(b->send[d]);
        free(b->recv[d]);
    }
    free(b->copy_src);
    free(b->copy_dst);
    free(b);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc != 2 || (strcmp(argv[1], "sweep") != 0 && strcmp(argv[1], "mlp") != 0)) {
        fprintf(stderr, "usage: bench_collectives sweep|mlp\n");
        return 2;
    }
    bool ok = true;
    if (strcmp(argv[1], "mlp") == 0) {
        ok = run_bench(C_ALL_REDUCE, (size_t)1024 * 1024 * 4, 4, 7, "mlp_collective");
        return ok ? 0 : 1;
    }
    static const struct { size_t size; int reps; } sizes[] = {
        {(size_t)64 << 10, 41}, {(size_t)1 << 20, 21}, {(size_t)16 << 20, 7}, {(size_t)64 << 20, 3},
    };
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int k = 0; k < C_COUNT; k++)
            ok = run_bench((CollKind)k, sizes[s].size, DEVICES, sizes[s].reps, "collective") && ok;
    return ok ? 0 : 1;
}
