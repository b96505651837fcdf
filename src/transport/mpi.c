/* The MPI world of a distributed run (docs/distributed.md): joining the
 * job, waiting without hanging, ending the job when a process fails, the
 * root's block and stats transfers, and the communicator cache.
 *
 * Every wait goes through mpi_wait: a nonblocking MPI call, then MPI_Test
 * in a loop that yields the core (processes may outnumber cores), watches
 * for failure notices from other processes and gives up after the timeout.
 * A process that fails prints why, sends every other process a notice,
 * waits (at most NOTICE_GRACE seconds) until they have printed why they
 * stop, and calls MPI_Abort: the job always ends, and every process that
 * reaches MPI in time says why. Built only with make MPI=1 (SHARDC_MPI);
 * otherwise transport_mpi_world_new says so. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "shardc/transport.h"

#ifdef SHARDC_MPI
#include <sched.h>
#include <time.h>
#include "transport/transport_mpi_internal.h"

/* NOTICE_GRACE: how long a failing process waits for the others' notices;
 * OUTPUT_GRACE: then how long it lets mpirun forward what they printed. */
enum { DEFAULT_TIMEOUT_SECONDS = 600, NOTICE_GRACE_SECONDS = 10 };
static const double OUTPUT_GRACE_SECONDS = 0.5;

/* ---- errors and waiting -------------------------------------------------------------- */

TransportStatus mpi_check(MpiWorld *w, int rc, const char *what)
{
    if (rc == MPI_SUCCESS)
        return TRANSPORT_OK;
    char text[MPI_MAX_ERROR_STRING];
    int len = 0, cls = 0;
    MPI_Error_class(rc, &cls);
    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS)
        snprintf(text, sizeof text, "error %d", rc);
    fprintf(stderr, "shardc: rank %lld of %lld: %s failed: %s\n", (long long)w->base.rank, (long long)w->base.size,
            what, text);
    return cls == MPI_ERR_TRUNCATE ? TRANSPORT_MISMATCH : TRANSPORT_FAILED;
}

/* Take every failure notice that has arrived; true if there was one. A
 * notice carries the rank whose failure started it all (the origin). */
static bool take_notices(MpiWorld *w)
{
    bool any = false;
    for (;;) {
        int flag = 0, origin = -1;
        MPI_Status st;
        if (MPI_Iprobe(MPI_ANY_SOURCE, MPI_TAG_NOTICE, w->ctrl, &flag, &st) != MPI_SUCCESS || !flag)
            return any;
        MPI_Recv(&origin, 1, MPI_INT, st.MPI_SOURCE, MPI_TAG_NOTICE, w->ctrl, MPI_STATUS_IGNORE);
        w->noticed[st.MPI_SOURCE] = true;
        if (w->origin < 0)
            w->origin = origin;
        any = true;
    }
}

/* Spin (yielding the core) for the first millisecond, then nap 20 us at a
 * time, and after a tenth of a second 1 ms: quick when the peers are
 * ready, fair when processes outnumber cores, and cheap when a peer
 * computes for long (the root running the reference). */
static void back_off(double waited)
{
    if (waited < 1e-3) {
        sched_yield();
        return;
    }
    struct timespec ts = {0, waited < 0.1 ? 20000 : 1000000};
    nanosleep(&ts, NULL);
}

static void stop_after_notice(MpiWorld *w, const char *what)
{
    fprintf(stderr, "shardc: rank %lld of %lld: stopped in %s: rank %d failed\n", (long long)w->base.rank,
            (long long)w->base.size, what, w->origin);
    w->base.ops->fail(&w->base);
}

static void stop_after_timeout(MpiWorld *w, const char *what)
{
    fprintf(stderr,
            "shardc: rank %lld of %lld: no progress in %s for %g s: a process is stuck or the processes run "
            "different collectives (SHARDC_MPI_TIMEOUT sets the limit)\n",
            (long long)w->base.rank, (long long)w->base.size, what, w->timeout);
    w->base.ops->fail(&w->base);
}

TransportStatus mpi_wait_status(MpiWorld *w, MPI_Request *req, const char *what, MPI_Status *st)
{
    double start = MPI_Wtime();
    for (;;) {
        int done = 0;
        int rc = MPI_Test(req, &done, st);
        if (rc != MPI_SUCCESS)
            return mpi_check(w, rc == MPI_ERR_IN_STATUS ? st->MPI_ERROR : rc, what);
        if (done)
            return TRANSPORT_OK;
        if (take_notices(w))
            stop_after_notice(w, what);
        double waited = MPI_Wtime() - start;
        if (waited > w->timeout)
            stop_after_timeout(w, what);
        back_off(waited);
    }
}

TransportStatus mpi_wait(MpiWorld *w, MPI_Request *req, const char *what)
{
    MPI_Status st;
    return mpi_wait_status(w, req, what, &st);
}

/* ---- failing ------------------------------------------------------------------------------- */

static void send_notices(MpiWorld *w)
{
    w->failing = true;
    w->notice = w->origin >= 0 ? w->origin : (int)w->base.rank;
    for (int r = 0; r < w->base.size; r++)
        if (r != w->base.rank)
            MPI_Isend(&w->notice, 1, MPI_INT, r, MPI_TAG_NOTICE, w->ctrl, &w->notice_requests[r]);
}

static bool all_noticed(const MpiWorld *w)
{
    for (int r = 0; r < w->base.size; r++)
        if (r != w->base.rank && !w->noticed[r])
            return false;
    return true;
}

static void mpi_fail(TransportWorld *tw)
{
    MpiWorld *w = (MpiWorld *)tw;
    fflush(stdout);
    fflush(stderr);
    if (!w->failing)
        send_notices(w);
    double start = MPI_Wtime();
    while (!all_noticed(w) && MPI_Wtime() - start < NOTICE_GRACE_SECONDS) {
        take_notices(w);
        back_off(MPI_Wtime() - start);
    }
    struct timespec grace = {0, (long)(OUTPUT_GRACE_SECONDS * 1e9)};
    nanosleep(&grace, NULL);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1); /* not reached */
}

/* ---- host transfers and agreements ------------------------------------------------------- */

static TransportStatus byte_count(MpiWorld *w, size_t bytes, const char *what, int *count)
{
    if (bytes > (size_t)INT32_MAX) {
        fprintf(stderr, "shardc: rank %lld: %s: %zu bytes in one message; the MPI transport takes at most 2 GiB\n",
                (long long)w->base.rank, what, bytes);
        return TRANSPORT_UNSUPPORTED;
    }
    *count = (int)bytes;
    return TRANSPORT_OK;
}

/* The pieces of a scatter or gather, counted in units of the largest power
 * of two (up to 4 KiB) dividing every piece: MPI counts are ints. */
typedef struct Pieces {
    MPI_Datatype unit;
    int *counts, *displs;   /* by process */
} Pieces;

static void pieces_free(Pieces *p)
{
    if (p->unit != MPI_DATATYPE_NULL)
        MPI_Type_free(&p->unit);
    free(p->counts);
    free(p->displs);
}

static TransportStatus pieces_make(MpiWorld *w, const size_t *bytes, const char *what, Pieces *p)
{
    int n = (int)w->base.size;
    size_t unit = 4096, total = 0;
    for (int r = 0; r < n; r++)
        while (bytes[r] % unit)
            unit /= 2;
    *p = (Pieces){MPI_DATATYPE_NULL, calloc((size_t)n, sizeof *p->counts), calloc((size_t)n, sizeof *p->displs)};
    for (int r = 0; p->counts && p->displs && r < n; r++) {
        p->counts[r] = (int)(bytes[r] / unit);
        p->displs[r] = (int)(total / unit);
        total += bytes[r];
    }
    TransportStatus st = !p->counts || !p->displs ? TRANSPORT_FAILED : TRANSPORT_OK;
    if (total / unit > (size_t)INT32_MAX) {
        fprintf(stderr, "shardc: rank %lld: %s: %zu bytes in %zu-byte units is more than one MPI call takes\n",
                (long long)w->base.rank, what, total, unit);
        st = TRANSPORT_UNSUPPORTED;
    }
    if (st == TRANSPORT_OK)
        st = mpi_check(w, MPI_Type_contiguous((int)unit, MPI_BYTE, &p->unit), "MPI_Type_contiguous");
    return st == TRANSPORT_OK ? mpi_check(w, MPI_Type_commit(&p->unit), "MPI_Type_commit") : st;
}

static TransportStatus mpi_scatter(TransportWorld *tw, const void *send, const size_t *bytes, void *recv)
{
    MpiWorld *w = (MpiWorld *)tw;
    MPI_Request req;
    Pieces p;
    const char *what = "MPI_Iscatterv (the blocks of a shard_map's operand)";
    TransportStatus st = pieces_make(w, bytes, what, &p);
    if (st == TRANSPORT_OK)
        st = mpi_check(w, MPI_Iscatterv(send, p.counts, p.displs, p.unit, recv, p.counts[w->base.rank], p.unit, 0,
                                        w->host, &req), what);
    if (st == TRANSPORT_OK)
        st = mpi_wait(w, &req, what);
    pieces_free(&p);
    return st;
}

static TransportStatus mpi_gather(TransportWorld *tw, const void *send, const size_t *bytes, void *recv)
{
    MpiWorld *w = (MpiWorld *)tw;
    MPI_Request req;
    Pieces p;
    const char *what = "MPI_Igatherv (blocks to the root)";
    TransportStatus st = pieces_make(w, bytes, what, &p);
    if (st == TRANSPORT_OK)
        st = mpi_check(w, MPI_Igatherv(send, p.counts[w->base.rank], p.unit, recv, p.counts, p.displs, p.unit, 0,
                                       w->host, &req), what);
    if (st == TRANSPORT_OK)
        st = mpi_wait(w, &req, what);
    pieces_free(&p);
    return st;
}

static TransportStatus mpi_sum_to_root(TransportWorld *tw, int64_t *counts, int64_t n)
{
    MpiWorld *w = (MpiWorld *)tw;
    MPI_Request req;
    const void *send = w->base.rank == 0 ? MPI_IN_PLACE : counts;
    TransportStatus st = mpi_check(w, MPI_Ireduce(send, counts, (int)n, MPI_INT64_T, MPI_SUM, 0, w->host, &req),
                                   "MPI_Ireduce");
    return st == TRANSPORT_OK ? mpi_wait(w, &req, "MPI_Ireduce (the stats)") : st;
}

static TransportStatus mpi_broadcast(TransportWorld *tw, void *buf, size_t bytes)
{
    MpiWorld *w = (MpiWorld *)tw;
    MPI_Request req;
    int count = 0;
    TransportStatus st = byte_count(w, bytes, "MPI_Ibcast", &count);
    if (st == TRANSPORT_OK)
        st = mpi_check(w, MPI_Ibcast(buf, count, MPI_BYTE, 0, w->host, &req), "MPI_Ibcast");
    return st == TRANSPORT_OK ? mpi_wait(w, &req, "MPI_Ibcast") : st;
}

/* ---- the communicator cache ---------------------------------------------------------------- */

static MpiCachedComm *cache_find(MpiWorld *w, uint64_t parent, const int64_t *key, int64_t key_len)
{
    for (MpiCachedComm *c = w->comms; c; c = c->next)
        if (c->parent == parent && c->key_len == key_len && memcmp(c->key, key, (size_t)key_len * sizeof *key) == 0)
            return c;
    return NULL;
}

static MpiCachedComm *cache_add(MpiWorld *w, uint64_t parent, const int64_t *key, int64_t key_len, MPI_Comm comm)
{
    MpiCachedComm *c = calloc(1, sizeof *c);
    int64_t *copy = malloc((size_t)key_len * sizeof *copy + 1);
    if (!c || !copy) {
        free(c);
        free(copy);
        return NULL;
    }
    memcpy(copy, key, (size_t)key_len * sizeof *copy);
    *c = (MpiCachedComm){w->comms, ++w->next_id, parent, key_len, copy, comm};
    w->comms = c;
    return c;
}

static TransportStatus split_comm(MpiWorld *w, MPI_Comm parent_comm, int color, int key_rank, MPI_Comm *out)
{
    MPI_Request req;
    TransportStatus st = mpi_check(w, MPI_Ibarrier(parent_comm, &req), "MPI_Ibarrier");
    if (st == TRANSPORT_OK)
        st = mpi_wait(w, &req, "MPI_Ibarrier (before MPI_Comm_split)");
    return st == TRANSPORT_OK ? mpi_check(w, MPI_Comm_split(parent_comm, color, key_rank, out), "MPI_Comm_split")
                              : st;
}

TransportStatus mpi_cached_comm(MpiWorld *w, uint64_t parent, MPI_Comm parent_comm, const int64_t *key,
                                int64_t key_len, int color, int key_rank, MpiCachedComm **out)
{
    pthread_mutex_lock(&w->lock);
    *out = cache_find(w, parent, key, key_len);
    TransportStatus st = TRANSPORT_OK;
    MPI_Comm comm = MPI_COMM_NULL;
    if (!*out && (st = split_comm(w, parent_comm, color, key_rank, &comm)) == TRANSPORT_OK &&
        !(*out = cache_add(w, parent, key, key_len, comm)))
        st = TRANSPORT_FAILED;
    pthread_mutex_unlock(&w->lock);
    return st;
}

/* ---- joining and leaving ---------------------------------------------------------------------- */

static void cache_free(MpiWorld *w)
{
    while (w->comms) {
        MpiCachedComm *c = w->comms;
        w->comms = c->next;
        if (c->comm != MPI_COMM_NULL)
            MPI_Comm_free(&c->comm);
        free(c->key);
        free(c);
    }
}

static void mpi_close(TransportWorld *tw)
{
    MpiWorld *w = (MpiWorld *)tw;
    cache_free(w);
    MPI_Comm_free(&w->world);
    MPI_Comm_free(&w->host);
    MPI_Comm_free(&w->ctrl);
    MPI_Finalize();
    pthread_mutex_destroy(&w->lock);
    free(w->noticed);
    free(w->notice_requests);
    free(w);
}

static const TransportWorldOps mpi_world_ops = {
    "mpi", mpi_run_open, mpi_scatter, mpi_gather, mpi_sum_to_root, mpi_broadcast, mpi_fail, mpi_close,
};

static double timeout_setting(void)
{
    const char *text = getenv("SHARDC_MPI_TIMEOUT");
    char *end = NULL;
    double t = text ? strtod(text, &end) : 0;
    return text && end != text && !*end && t > 0 ? t : DEFAULT_TIMEOUT_SECONDS;
}

static bool world_setup(MpiWorld *w)
{
    int rank = 0, size = 0;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    w->base = (TransportWorld){&mpi_world_ops, rank, size};
    const char *reduce = getenv("SHARDC_MPI_REDUCE");
    w->native = reduce && strcmp(reduce, "native") == 0;
    w->timeout = timeout_setting();
    pthread_mutex_init(&w->lock, NULL);
    w->next_id = 1; /* parents 0 and 1: splits of the world, the world as a run */
    w->origin = -1;
    w->noticed = calloc((size_t)size, sizeof *w->noticed);
    w->notice_requests = calloc((size_t)size, sizeof *w->notice_requests);
    return w->noticed && w->notice_requests && MPI_Comm_dup(MPI_COMM_WORLD, &w->world) == MPI_SUCCESS &&
           MPI_Comm_dup(MPI_COMM_WORLD, &w->host) == MPI_SUCCESS &&
           MPI_Comm_dup(MPI_COMM_WORLD, &w->ctrl) == MPI_SUCCESS;
}

TransportWorld *transport_mpi_world_new(int *argc, char ***argv, char *err, size_t err_size)
{
    int provided = 0;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
        snprintf(err, err_size, "MPI_Init_thread failed");
        return NULL;
    }
    MpiWorld *w = calloc(1, sizeof *w);
    if (provided >= MPI_THREAD_SERIALIZED && w && world_setup(w))
        return &w->base;
    /* The others would wait for this process: end the job. */
    fprintf(stderr, "shardc: %s\n",
            provided < MPI_THREAD_SERIALIZED ? "the MPI library does not let device threads call MPI "
                                               "(it lacks MPI_THREAD_SERIALIZED)"
                                             : "cannot set up the MPI communicators (out of memory?)");
    MPI_Abort(MPI_COMM_WORLD, 1);
    snprintf(err, err_size, "MPI_Abort returned");
    return NULL;
}

#else /* built without MPI */

TransportWorld *transport_mpi_world_new(int *argc, char ***argv, char *err, size_t err_size)
{
    (void)argc;
    (void)argv;
    snprintf(err, err_size, "this shardc was built without MPI: build build-mpi/shardc with 'make MPI=1' (MPICH)");
    return NULL;
}

#endif
