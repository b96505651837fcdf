/* Collective benchmarks: the interpreter's in-process transports
 * (include/shardc/transport.h) on 8 simulated devices, against memcpy of
 * the same total bytes:
 *   - lockstep (src/transport/lockstep.c), the default engine's: driven as
 *     src/interp/lockstep.c drives it, a publish pass and a complete pass
 *     of every device's call, each pass on the engine's worker pool
 *     (src/interp/pool.c, one worker per core), through the calls the
 *     engine makes: allreduce_shared, allgather_shared,
 *     reduce_scatter_shared and alltoall_shared (the sends read in place,
 *     one result tensor per group; blocks along dim 0);
 *   - threads (src/transport/local.c), the threaded engine's: one thread
 *     per device, meeting at the transport's barriers.
 *
 *   bench_collectives sweep [KIND]  all-reduce, all-gather, reduce-scatter
 *                             and all-to-all (or only KIND, e.g. all_reduce)
 *                             of 64 KiB ... 64 MiB per device
 *   bench_collectives sweep KIND BYTES   only that size (e.g. under callgrind)
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
 * Each repetition times the collective (threads: from a barrier until
 * every device is done; lockstep: both passes) and then the memcpy; the
 * ratio is the median over repetitions of t_memcpy / t_collective, with
 * its min and max. Output: "RESULT key=value ..." lines. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bench_timing.h"
#include "interp/pool.h"
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

typedef enum { T_LOCKSTEP, T_THREADS, T_COUNT } TransportKind;
static const char *const transport_names[T_COUNT] = {"lockstep", "threads"};

typedef struct Bench {
    Transport *transport;
    TransportKind transport_kind;
    CollKind kind;
    size_t size;            /* S, per device */
    int group_size;         /* devices per group (consecutive ids) */
    int reps;
    void *send[DEVICES], *recv[DEVICES];
    Tensor *send_tensor[DEVICES], *result[DEVICES]; /* lockstep: the engine's _shared calls */
    char *copy_src, *copy_dst;
    size_t copy_total;
    double t_coll[MAX_REPS], t_copy[MAX_REPS];
    atomic_bool failed;
} Bench;

typedef struct Worker {
    Bench *b;
    int self;
} Worker;

/* As the engine calls the lockstep transport: the send tensor read in
 * place, one result tensor per group, blocks along dim 0. */
static TransportStatus run_shared(Bench *b, const TransportGroup *g, const Tensor *send, Tensor **result)
{
    Transport *t = b->transport;
    TransportReduction sum = {DT_F32, RED_SUM};
    TransportBlocks block = {1, b->size / (size_t)g->size}; /* dim 0 cut in n: the smaller side */
    switch (b->kind) {
    case C_ALL_REDUCE:
        return t->ops->allreduce_shared(t, g, sum, send, result);
    case C_ALL_GATHER:
        return t->ops->allgather_shared(t, g, send, block, result);
    case C_REDUCE_SCATTER:
        return t->ops->reduce_scatter_shared(t, g, sum, send, block, result);
    case C_ALL_TO_ALL:
        return t->ops->alltoall_shared(t, g, send, block, block, result);
    case C_COUNT:
        break;
    }
    return TRANSPORT_UNSUPPORTED;
}

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
    if (b->send_tensor[self])
        return run_shared(b, &g, b->send_tensor[self], &b->result[self]);
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

/* The baseline: the same total bytes with memcpy on one thread. */
static double time_memcpy(Bench *b)
{
    double t1 = now();
    for (size_t done = 0; done < b->copy_total; done += b->size) {
        size_t piece = b->copy_total - done < b->size ? b->copy_total - done : b->size;
        memcpy(b->copy_dst, b->copy_src, piece);
        __asm__ volatile("" : : "r"(b->copy_dst) : "memory");
    }
    return now() - t1;
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
            b->t_copy[r] = time_memcpy(b);
        }
    }
    return NULL;
}

/* Threads: one per device, meeting at the transport's barriers. */
static void run_threads(Bench *b)
{
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
}

static void lockstep_call(void *user, int64_t self)
{
    Bench *b = user;
    if (run_collective(b, (int)self) != TRANSPORT_OK)
        b->failed = true;
}

/* Lockstep: every device's call in a publish pass, then in a complete
 * pass, each pass on the pool, as the engine runs a collective op; the
 * devices then drop their references to the group's result,
 * as the engine's devices do when they are done with it. */
static void run_lockstep(Bench *b, InterpPool *pool)
{
    for (int r = -1; r < b->reps && !b->failed; r++) { /* r = -1 warms up */
        double t0 = now();
        transport_lockstep_pass(b->transport, false);
        interp_pool_run(pool, DEVICES, lockstep_call, b);
        transport_lockstep_pass(b->transport, true);
        interp_pool_run(pool, DEVICES, lockstep_call, b);
        for (int d = 0; d < DEVICES; d++) {
            tensor_release(b->result[d]);
            b->result[d] = NULL;
        }
        if (r >= 0) {
            b->t_coll[r] = now() - t0;
            b->t_copy[r] = time_memcpy(b);
        }
    }
}

/* Bytes each device receives with the bandwidth-optimal algorithm. */
static double optimal_bytes(CollKind kind, size_t size, int n)
{
    double s = (double)size, f = (double)(n - 1) / (double)n;
    return kind == C_ALL_REDUCE ? 2.0 * f * s : f * s;
}

static void print_result(Bench *b, const char *label, double per_device)
{
    double paired[MAX_REPS];
    for (int r = 0; r < b->reps; r++)
        paired[r] = b->t_copy[r] / b->t_coll[r];
    double ratio = median(paired, b->reps); /* sorts paired */
    double tc = median(b->t_coll, b->reps), tm = median(b->t_copy, b->reps);
    double total = per_device * DEVICES;
    printf("RESULT kind=%s transport=%s name=%s bytes=%zu devices=%d group=%d reps=%d coll_ms=%.4f memcpy_ms=%.4f "
           "bytes_per_device=%.0f coll_gbs=%.3f memcpy_gbs=%.3f ratio=%.3f ratio_min=%.3f ratio_max=%.3f\n",
           label, transport_names[b->transport_kind], kind_names[b->kind], b->size, DEVICES, b->group_size, b->reps,
           1e3 * tc, 1e3 * tm, per_device, total / tc * 1e-9, total / tm * 1e-9, ratio, paired[0],
           paired[b->reps - 1]);
    fflush(stdout);
}

static bool run_bench(TransportKind tk, InterpPool *pool, CollKind kind, size_t size, int group_size, int reps,
                      const char *label)
{
    Bench *b = calloc(1, sizeof *b);
    if (!b)
        return false;
    b->transport_kind = tk;
    b->kind = kind;
    b->size = size;
    b->group_size = group_size;
    b->reps = reps < MAX_REPS ? reps : MAX_REPS;
    size_t n = (size_t)group_size;
    size_t send_bytes = kind == C_ALL_GATHER ? size / n : size;
    size_t recv_bytes = kind == C_REDUCE_SCATTER ? size / n : size;
    TensorCtx ctx;
    tensor_ctx_init(&ctx, NULL);
    int64_t count = (int64_t)(send_bytes / 4);
    for (int d = 0; d < DEVICES; d++) {
        b->send[d] = xalloc(send_bytes);
        b->recv[d] = xalloc(recv_bytes);
        if (tk == T_LOCKSTEP && tensor_new(&ctx, DT_F32, 1, &count, &b->send_tensor[d]))
            exit(1);
    }
    double per_device = optimal_bytes(kind, size, group_size);
    b->copy_total = (size_t)(per_device * DEVICES);
    b->copy_src = xalloc(size);
    b->copy_dst = xalloc(size);
    memset(b->copy_src, 1, size);
    b->transport = tk == T_LOCKSTEP ? transport_lockstep_new(DEVICES) : transport_local_new(DEVICES, DEVICES);
    if (!b->transport) {
        fprintf(stderr, "bench_collectives: out of memory for the transport\n");
        exit(1);
    }
    if (tk == T_LOCKSTEP)
        run_lockstep(b, pool);
    else
        run_threads(b);
    bool ok = !b->failed;
    if (ok) {
        print_result(b, label, per_device);
    } else {
        fprintf(stderr, "bench_collectives: %s of %zu bytes failed\n", kind_names[kind], size);
    }
    b->transport->ops->destroy(b->transport);
    for (int d = 0; d < DEVICES; d++) {
        free(b->send[d]);
        free(b->recv[d]);
        tensor_release(b->send_tensor[d]);
    }
    free(b->copy_src);
    free(b->copy_dst);
    free(b);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4 || (strcmp(argv[1], "sweep") != 0 && strcmp(argv[1], "mlp") != 0)) {
        fprintf(stderr, "usage: bench_collectives sweep [KIND [BYTES]] | mlp   (KIND: all_reduce, all_gather, ...)\n");
        return 2;
    }
    const char *only = argc >= 3 ? argv[2] : NULL;
    size_t only_size = argc == 4 ? (size_t)strtoull(argv[3], NULL, 10) : 0;
    bool ok = true;
    InterpPool *pool = interp_pool_new(interp_default_threads());
    if (strcmp(argv[1], "mlp") == 0) {
        for (int tk = 0; tk < T_COUNT; tk++)
            ok = run_bench((TransportKind)tk, pool, C_ALL_REDUCE, (size_t)1024 * 1024 * 4, 4, 7, "mlp_collective") &&
                 ok;
        interp_pool_free(pool);
        return ok ? 0 : 1;
    }
    static const struct { size_t size; int reps; } sizes[] = {
        {(size_t)64 << 10, 41}, {(size_t)1 << 20, 21}, {(size_t)16 << 20, 9}, {(size_t)64 << 20, 5},
    };
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int k = 0; k < C_COUNT && (!only_size || only_size == sizes[s].size); k++)
            for (int tk = 0; tk < T_COUNT && (!only || strcmp(only, kind_names[k]) == 0); tk++)
                ok = run_bench((TransportKind)tk, pool, (CollKind)k, sizes[s].size, DEVICES, sizes[s].reps,
                               "collective") && ok;
    interp_pool_free(pool);
    return ok ? 0 : 1;
}
