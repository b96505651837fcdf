/* The transport's collectives in-process and over MPI, through the same
 * interface (include/shardc/transport.h), for bench/mpi.sh:
 *
 *   bench_mpi local N [REPS]            N devices on threads of this process
 *   mpirun -n N bench_mpi mpi N [REPS]  device d on rank d (make MPI=1 library)
 *   mpirun -n N bench_mpi vs-mpi N [REPS]
 *                                       the transport's f32 sum all-reduce
 *                                       against MPICH's own MPI_Allreduce of
 *                                       the same buffers, interleaved
 *
 * Cases: all-reduce (f32 sum), all-gather, reduce-scatter and all-to-all
 * over all N devices at S = 64 KiB, 1 MiB and 16 MiB per device (S as in
 * bench_collectives.c: the larger per-device buffer), and the Megatron MLP
 * case: an all-reduce of f32[1024,1024] in groups of N/2. Each repetition
 * runs from a barrier to a barrier, timed by device 0; one line per case:
 *   RESULT transport=T devices=N kind=K size=S group=G seconds=MEDIAN first=F gbps=B
 * where B is the bandwidth-optimal bytes every device must receive
 * (all-reduce 2(g-1)/g*S, the others (g-1)/g*S) times N, over the time,
 * and F the first (warm-up) call's time, which over MPI includes making
 * the group's communicator.
 *
 * vs-mpi: S = 64 KiB, 1, 4, 16, 64 MiB over all N ranks; each repetition
 * times the transport's all-reduce and then MPI_Allreduce (MPI_FLOAT,
 * MPI_SUM, MPI_COMM_WORLD) of the same send and receive buffers, each from
 * a barrier to a barrier, on rank 0; one line per size:
 *   RESULT vs=mpi devices=N size=S reps=R ours=MEDIAN mpi=MEDIAN ratio=M ratio_min=A ratio_max=B
 * where the ratio of a repetition is t_MPI_Allreduce / t_transport (above
 * 1: the transport is faster) and M its median. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <mpi.h>
#include "bench_timing.h"
#include "shardc/transport.h"

enum { MAX_DEVICES = 64, MAX_REPS = 64, ALL = 0, HALF = -2 };

typedef enum { C_ALL_REDUCE, C_ALL_GATHER, C_REDUCE_SCATTER, C_ALL_TO_ALL } CollKind;
static const char *const kind_names[] = {"all_reduce", "all_gather", "reduce_scatter", "all_to_all"};

typedef struct Case {
    CollKind kind;
    size_t size;
    int group;
} Case;

/* group: ALL devices, or HALF of them (consecutive devices) */
static const Case cases[] = {
    {C_ALL_REDUCE, 64 << 10, ALL},     {C_ALL_REDUCE, 1 << 20, ALL},     {C_ALL_REDUCE, 16 << 20, ALL},
    {C_ALL_GATHER, 64 << 10, ALL},     {C_ALL_GATHER, 1 << 20, ALL},     {C_ALL_GATHER, 16 << 20, ALL},
    {C_REDUCE_SCATTER, 64 << 10, ALL}, {C_REDUCE_SCATTER, 1 << 20, ALL}, {C_REDUCE_SCATTER, 16 << 20, ALL},
    {C_ALL_TO_ALL, 64 << 10, ALL},     {C_ALL_TO_ALL, 1 << 20, ALL},     {C_ALL_TO_ALL, 16 << 20, ALL},
    {C_ALL_REDUCE, 4 << 20, HALF},
};
enum { NUM_CASES = sizeof cases / sizeof cases[0] };

/* One device's part: consecutive devices form the groups. */
typedef struct Device {
    Transport *t;
    const char *transport;
    int64_t self, devices;
    int reps;
    int64_t members[MAX_DEVICES];
    char *send, *recv;
    bool failed;
} Device;

static TransportStatus run_case(Device *d, const Case *c, const TransportGroup *g)
{
    Transport *t = d->t;
    TransportReduction sum = {DT_F32, RED_SUM};
    size_t n = (size_t)g->size;
    switch (c->kind) {
    case C_ALL_REDUCE:
        return t->ops->allreduce(t, g, sum, d->send, d->recv, (int64_t)(c->size / 4));
    case C_ALL_GATHER:
        return t->ops->allgather(t, g, d->send, c->size / n, d->recv);
    case C_REDUCE_SCATTER:
        return t->ops->reduce_scatter(t, g, sum, d->send, d->recv, (int64_t)(c->size / n / 4));
    default:
        return t->ops->alltoall(t, g, d->send, c->size / n, d->recv);
    }
}

static double needed_bytes(const Case *c, int64_t devices, int64_t group)
{
    double g = (double)group, s = (double)c->size;
    return (double)devices * (c->kind == C_ALL_REDUCE ? 2 * (g - 1) / g * s : (g - 1) / g * s);
}

static void time_case(Device *d, const Case *c)
{
    int64_t size = c->group == HALF ? d->devices / 2 : d->devices, base = d->self / size * size;
    if (size < 2)
        return;
    for (int64_t k = 0; k < size; k++)
        d->members[k] = base + k;
    TransportGroup g = {size, d->self - base, d->members};
    double times[MAX_REPS + 1];
    for (int r = 0; r <= d->reps && !d->failed; r++) { /* r = 0: warm-up (and communicators) */
        double start = now();
        d->failed |= d->t->ops->barrier(d->t, d->self) != TRANSPORT_OK || run_case(d, c, &g) != TRANSPORT_OK ||
                     d->t->ops->barrier(d->t, d->self) != TRANSPORT_OK;
        times[r] = now() - start;
    }
    if (d->self != 0 || d->failed)
        return;
    qsort(times + 1, (size_t)d->reps, sizeof *times, cmp_double);
    double t = times[1 + d->reps / 2];
    printf("RESULT transport=%s devices=%lld kind=%s size=%zu group=%lld seconds=%.6f first=%.6f gbps=%.3f\n",
           d->transport, (long long)d->devices, kind_names[c->kind], c->size, (long long)size, t, times[0],
           needed_bytes(c, d->devices, size) / t / 1e9);
    fflush(stdout);
}

static void *device_main(void *arg)
{
    Device *d = arg;
    for (int i = 0; i < NUM_CASES; i++)
        time_case(d, &cases[i]);
    return NULL;
}

static bool device_init(Device *d, Transport *t, const char *transport, int64_t self, int64_t devices, int reps)
{
    *d = (Device){.t = t, .transport = transport, .self = self, .devices = devices, .reps = reps};
    d->send = calloc(16 << 20, 1);
    d->recv = calloc(16 << 20, 1);
    for (size_t i = 0; d->send && i < (16 << 20) / 4; i++)
        ((float *)d->send)[i] = (float)(i % 1000) * 0.001f;
    return d->send && d->recv;
}

static int run_local(int n, int reps)
{
    Transport *t = transport_local_new(n, n);
    Device devices[MAX_DEVICES];
    pthread_t threads[MAX_DEVICES];
    for (int k = 0; k < n; k++)
        if (!t || !device_init(&devices[k], t, "local", k, n, reps))
            return 1;
    for (int k = 0; k < n; k++)
        pthread_create(&threads[k], NULL, device_main, &devices[k]);
    bool failed = false;
    for (int k = 0; k < n; k++) {
        pthread_join(threads[k], NULL);
        failed |= devices[k].failed;
        free(devices[k].send);
        free(devices[k].recv);
    }
    t->ops->destroy(t);
    return failed;
}

/* Join the MPI job and open the transport of one run over its n ranks,
 * device d on rank d (active: 0..n-1); NULL world if MPI cannot start. */
static Transport *open_mpi_run(int *argc, char ***argv, int n, TransportWorld **world, int64_t *active)
{
    char err[256];
    TransportWorld *w = *world = transport_mpi_world_new(argc, argv, err, sizeof err);
    if (!w) {
        fprintf(stderr, "bench_mpi: %s\n", err);
        return NULL;
    }
    int64_t owner[MAX_DEVICES];
    for (int k = 0; k < n; k++)
        owner[k] = active[k] = k;
    return w->size == n ? w->ops->open(w, owner, n, active, n) : NULL;
}

static int run_mpi(int *argc, char ***argv, int n, int reps)
{
    TransportWorld *w = NULL;
    int64_t active[MAX_DEVICES];
    Transport *t = open_mpi_run(argc, argv, n, &w, active);
    if (!w)
        return 1;
    Device d;
    if (!t || !device_init(&d, t, "mpi", w->rank, n, reps)) {
        fprintf(stderr, "bench_mpi: run it with mpirun -n %d\n", n);
        w->ops->fail(w);
    }
    device_main(&d);
    if (d.failed)
        w->ops->fail(w);
    t->ops->destroy(t);
    free(d.send);
    free(d.recv);
    w->ops->close(w);
    return 0;
}

/* ---- vs-mpi ----------------------------------------------------------------- */

static double time_barriered(Transport *t, int64_t self, bool ours, const TransportGroup *g, const float *send,
                             float *recv, int64_t count, bool *failed)
{
    TransportReduction sum = {DT_F32, RED_SUM};
    *failed |= t->ops->barrier(t, self) != TRANSPORT_OK;
    double start = now();
    if (ours)
        *failed |= t->ops->allreduce(t, g, sum, send, recv, count) != TRANSPORT_OK;
    else
        *failed |= MPI_Allreduce(send, recv, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS;
    *failed |= t->ops->barrier(t, self) != TRANSPORT_OK;
    return now() - start;
}

static bool vs_mpi_size(Transport *t, int64_t self, const TransportGroup *g, size_t size, int reps)
{
    int64_t count = (int64_t)(size / 4);
    float *send = malloc(size), *recv = calloc(size, 1);
    double ours[MAX_REPS], theirs[MAX_REPS], ratio[MAX_REPS];
    bool failed = !send || !recv;
    for (int64_t i = 0; !failed && i < count; i++)
        send[i] = (float)(i % 1000) * 0.001f + (float)self;
    for (int r = -1; r < reps && !failed; r++) { /* r = -1 warms both up */
        double a = time_barriered(t, self, true, g, send, recv, count, &failed);
        double b = time_barriered(t, self, false, g, send, recv, count, &failed);
        if (r >= 0) {
            ours[r] = a;
            theirs[r] = b;
            ratio[r] = b / a;
        }
    }
    if (self == 0 && !failed) {
        double m = median(ratio, reps); /* sorts ratio */
        printf("RESULT vs=mpi devices=%lld size=%zu reps=%d ours=%.6f mpi=%.6f ratio=%.3f ratio_min=%.3f "
               "ratio_max=%.3f\n",
               (long long)g->size, size, reps, median(ours, reps), median(theirs, reps), m, ratio[0],
               ratio[reps - 1]);
        fflush(stdout);
    }
    free(send);
    free(recv);
    return !failed;
}

static int run_vs_mpi(int *argc, char ***argv, int n, int reps)
{
    static const size_t sizes[] = {64 << 10, 1 << 20, 4 << 20, 16 << 20, 64 << 20};
    TransportWorld *w = NULL;
    int64_t active[MAX_DEVICES];
    Transport *t = open_mpi_run(argc, argv, n, &w, active);
    if (!w)
        return 1;
    if (!t) {
        fprintf(stderr, "bench_mpi: run it with mpirun -n %d\n", n);
        w->ops->fail(w);
    }
    TransportGroup g = {n, w->rank, active};
    bool ok = true;
    for (size_t i = 0; ok && i < sizeof sizes / sizeof sizes[0]; i++)
        ok = vs_mpi_size(t, w->rank, &g, sizes[i], reps);
    if (!ok)
        w->ops->fail(w);
    t->ops->destroy(t);
    w->ops->close(w);
    return 0;
}

int main(int argc, char **argv)
{
    int n = argc > 2 ? atoi(argv[2]) : 0, reps = argc > 3 ? atoi(argv[3]) : 9;
    if (argc < 3 || n < 2 || n > MAX_DEVICES || n % 2 || reps < 1 || reps > MAX_REPS) {
        fprintf(stderr, "usage: bench_mpi local|mpi|vs-mpi DEVICES (even, 2..%d) [REPS (1..%d)]\n", MAX_DEVICES,
                MAX_REPS);
        return 2;
    }
    if (strcmp(argv[1], "vs-mpi") == 0)
        return run_vs_mpi(&argc, &argv, n, reps);
    return strcmp(argv[1], "mpi") == 0 ? run_mpi(&argc, &argv, n, reps) : run_local(n, reps);
}
