/* The MPI transport of one shard_map run (docs/distributed.md): endpoints
 * are mesh positions, position p on rank owner[p] (its device id).
 *
 * A collective's group is a communicator split from the run's processes by
 * the group's first member (the coordinates outside the axes) and ordered
 * by group index, made on first use and cached for the job. The
 * operations map onto MPI's nonblocking collectives, waited for by
 * mpi_wait (failure notices, timeout):
 *
 *   allgather       MPI_Iallgather
 *   alltoall        MPI_Ialltoall
 *   sendrecv        MPI_Irecv + MPI_Isend (nobody: no call)
 *   barrier         MPI_Ibarrier
 *   allreduce       ints, bool, or SHARDC_MPI_REDUCE=native: MPI_Iallreduce;
 *                   floats: MPI_Ialltoallv (each member gets its slice of
 *                   every send), a local combine in group order, then
 *                   MPI_Iallgatherv (small vectors: MPI_Iallgather and a
 *                   local combine of the whole)
 *   reduce_scatter  ints, bool, native: MPI_Ireduce_scatter_block; floats:
 *                   MPI_Ialltoall and a local combine in group order
 *
 * Combining in group order with the in-process transport's own combine
 * (transport_combine_fn) gives bit-identical results to in-process runs;
 * MPI's reductions may associate in any order. */
#include <stdlib.h>
#include <string.h>
#include "shardc/checked.h"
#include "shardc/transport.h"

#ifdef SHARDC_MPI
#include "transport/transport_mpi_internal.h"

/* Below ORDERED_DIRECT_BYTES every member gathers and combines the whole
 * vector (one collective); so do two members below ORDERED_PAIR_BYTES,
 * where the direct exchange receives the same bytes as the sliced
 * algorithm's two phases and measured faster (bench_mpi vs-mpi). */
enum { ORDERED_DIRECT_BYTES = 16384, ORDERED_PAIR_BYTES = 1 << 20, ACTIVE_SETS = 0, WORLD_RUN = 1 };

typedef struct MpiRun {
    Transport base;
    MpiWorld *w;
    uint64_t active_id;   /* the run's communicator, as a cache parent */
    MPI_Comm active;      /* the run's processes (MPI_COMM_NULL: none here) */
    int64_t num_endpoints;
    int64_t *owner;       /* by endpoint */
    bool *local;          /* by endpoint */
    /* The float reductions' receive buffer, kept from call to call (its
     * pages touched once, not on every call); one device per process uses it. */
    char *scratch;
    size_t scratch_cap;
} MpiRun;

/* Start an operation (rc) and wait for it. */
static TransportStatus finish(MpiRun *r, int rc, MPI_Request *req, const char *what)
{
    TransportStatus st = mpi_check(r->w, rc, what);
    return st == TRANSPORT_OK ? mpi_wait(r->w, req, what) : st;
}

/* r's scratch buffer of at least `bytes`; NULL if out of memory. Not
 * realloc: the old contents are not needed. */
static char *scratch(MpiRun *r, size_t bytes)
{
    if (r->scratch_cap < bytes || !r->scratch) {
        free(r->scratch);
        r->scratch_cap = 0;
        if (!(r->scratch = malloc(bytes ? bytes : 1)))
            return NULL;
        r->scratch_cap = bytes;
    }
    return r->scratch;
}

/* ---- groups ---------------------------------------------------------------------------- */

/* The group's communicator: split by its first member, ranked by index. */
static TransportStatus group_comm(MpiRun *r, const TransportGroup *g, MPI_Comm *comm)
{
    int64_t *key = malloc((size_t)g->size * sizeof *key + 1);
    if (!key)
        return TRANSPORT_FAILED;
    for (int64_t k = 0; k < g->size; k++)
        key[k] = g->members[k] - g->members[0];
    MpiCachedComm *c = NULL;
    TransportStatus st = mpi_cached_comm(r->w, r->active_id, r->active, key, g->size, (int)r->owner[g->members[0]],
                                         (int)g->index, &c);
    free(key);
    int size = 0;
    if (st == TRANSPORT_OK && (MPI_Comm_size(c->comm, &size) != MPI_SUCCESS || size != g->size))
        st = TRANSPORT_MISMATCH;
    *comm = st == TRANSPORT_OK ? c->comm : MPI_COMM_NULL;
    return st;
}

static TransportStatus count_of(size_t bytes, int *count)
{
    *count = (int)bytes;
    return bytes <= (size_t)INT32_MAX ? TRANSPORT_OK : TRANSPORT_UNSUPPORTED;
}

/* ---- data movement ------------------------------------------------------------------------- */

static TransportStatus run_barrier(Transport *t, int64_t self)
{
    MpiRun *r = (MpiRun *)t;
    MPI_Request req;
    (void)self;
    return finish(r, MPI_Ibarrier(r->active, &req), &req, "MPI_Ibarrier");
}

static TransportStatus run_allgather(Transport *t, const TransportGroup *g, const void *send, size_t bytes,
                                     void *recv)
{
    MpiRun *r = (MpiRun *)t;
    MPI_Comm comm;
    MPI_Request req;
    int count = 0;
    TransportStatus st = count_of(bytes * (size_t)g->size, &count);
    if (st == TRANSPORT_OK && (st = group_comm(r, g, &comm)) == TRANSPORT_OK)
        st = finish(r, MPI_Iallgather(send, (int)bytes, MPI_BYTE, recv, (int)bytes, MPI_BYTE, comm, &req), &req,
                    "MPI_Iallgather (all-gather)");
    return st;
}

static TransportStatus run_alltoall(Transport *t, const TransportGroup *g, const void *send, size_t chunk_bytes,
                                    void *recv)
{
    MpiRun *r = (MpiRun *)t;
    MPI_Comm comm;
    MPI_Request req;
    int count = 0;
    TransportStatus st = count_of(chunk_bytes * (size_t)g->size, &count);
    if (st == TRANSPORT_OK && (st = group_comm(r, g, &comm)) == TRANSPORT_OK)
        st = finish(r, MPI_Ialltoall(send, (int)chunk_bytes, MPI_BYTE, recv, (int)chunk_bytes, MPI_BYTE, comm, &req),
                    &req, "MPI_Ialltoall (all-to-all)");
    return st;
}

static bool endpoint_ok(const MpiRun *r, int64_t e)
{
    return e < r->num_endpoints;
}

static TransportStatus run_sendrecv(Transport *t, int64_t self, const void *send, size_t send_bytes, int64_t dest,
                                    void *recv, size_t recv_bytes, int64_t source)
{
    MpiRun *r = (MpiRun *)t;
    MPI_Request reqs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Status status;
    int scount = 0, rcount = 0, got = 0;
    (void)self;
    if (!endpoint_ok(r, dest) || !endpoint_ok(r, source) || count_of(send_bytes, &scount) != TRANSPORT_OK ||
        count_of(recv_bytes, &rcount) != TRANSPORT_OK)
        return TRANSPORT_MISMATCH;
    TransportStatus st = TRANSPORT_OK;
    if (source >= 0)
        st = mpi_check(r->w, MPI_Irecv(recv, rcount, MPI_BYTE, (int)r->owner[source], MPI_TAG_SENDRECV,
                                       r->w->world, &reqs[0]), "MPI_Irecv");
    if (st == TRANSPORT_OK && dest >= 0)
        st = mpi_check(r->w, MPI_Isend(send, scount, MPI_BYTE, (int)r->owner[dest], MPI_TAG_SENDRECV, r->w->world,
                                       &reqs[1]), "MPI_Isend");
    if (st == TRANSPORT_OK)
        st = mpi_wait_status(r->w, &reqs[0], "MPI_Irecv (ppermute / collective_permute)", &status);
    if (st == TRANSPORT_OK && source >= 0 && (MPI_Get_count(&status, MPI_BYTE, &got) != MPI_SUCCESS || got != rcount))
        st = TRANSPORT_MISMATCH;
    return st == TRANSPORT_OK ? mpi_wait(r->w, &reqs[1], "MPI_Isend (ppermute / collective_permute)") : st;
}

/* ---- reductions -------------------------------------------------------------------------------- */

/* MPI's own reduction for exact types (and floats if asked): false if the
 * reduction must be combined in group order here. */
static bool native_reduction(const MpiWorld *w, TransportReduction red, MPI_Datatype *type, MPI_Op *op)
{
    switch (red.dtype) {
    case DT_I8: *type = MPI_INT8_T; break;
    case DT_I32: *type = MPI_INT32_T; break;
    case DT_I64: *type = MPI_INT64_T; break;
    case DT_U32: *type = MPI_UINT32_T; break;
    case DT_U64: *type = MPI_UINT64_T; break;
    case DT_BOOL: *type = MPI_UINT8_T; break;
    case DT_F32: *type = MPI_FLOAT; break;
    case DT_F64: *type = MPI_DOUBLE; break;
    default: return false;
    }
    if (red.dtype == DT_BOOL) /* as kern_reduce: sum and max are "or", min is "and" */
        *op = red.op == RED_MIN ? MPI_BAND : MPI_BOR;
    else
        *op = red.op == RED_SUM ? MPI_SUM : red.op == RED_MAX ? MPI_MAX : MPI_MIN;
    return w->native || !dtype_is_float(red.dtype);
}

/* acc = part 0, combined with parts 1..n-1 in order (parts `stride` apart). */
static void combine_parts(TransportCombineFn combine, void *acc, const char *parts, size_t stride, int64_t n,
                          int64_t count)
{
    memcpy(acc, parts, stride);
    for (int64_t k = 1; k < n; k++)
        combine(acc, parts + (size_t)k * stride, count);
}

/* Every member gathers every send and combines the whole vector. */
static TransportStatus ordered_allreduce_direct(MpiRun *r, MPI_Comm comm, const TransportGroup *g,
                                                TransportCombineFn combine, const void *send, void *recv,
                                                int64_t count, size_t bytes)
{
    char *all = scratch(r, bytes * (size_t)g->size);
    MPI_Request req;
    if (!all)
        return TRANSPORT_FAILED;
    TransportStatus st = finish(r, MPI_Iallgather(send, (int)bytes, MPI_BYTE, all, (int)bytes, MPI_BYTE, comm, &req),
                                &req, "MPI_Iallgather (all-reduce)");
    if (st == TRANSPORT_OK)
        combine_parts(combine, recv, all, bytes, g->size, count);
    return st;
}

/* Two members: each sends its vector and receives the other's, and the
 * sum is taken in group order (member 0's part first). Member 1 receives
 * straight into recv, its accumulator; member 0 copies its own part there.
 * Unlike the gather, the caller's own vector is not copied through MPI
 * (bench_mpi vs-mpi at 64 KiB). Not for send == recv (MPI forbids the
 * overlap): the gather serves those. */
static TransportStatus ordered_allreduce_pair(MpiRun *r, MPI_Comm comm, const TransportGroup *g,
                                              TransportCombineFn combine, const void *send, void *recv,
                                              int64_t count, size_t bytes)
{
    int peer = g->index == 0 ? 1 : 0;
    char *in = g->index == 1 ? recv : scratch(r, bytes);
    MPI_Request req;
    if (!in)
        return TRANSPORT_FAILED;
    TransportStatus st = finish(r, MPI_Isendrecv(send, (int)bytes, MPI_BYTE, peer, MPI_TAG_ALLREDUCE_PAIR, in,
                                                 (int)bytes, MPI_BYTE, peer, MPI_TAG_ALLREDUCE_PAIR, comm, &req),
                                &req, "MPI_Isendrecv (all-reduce)");
    if (st != TRANSPORT_OK)
        return st;
    if (g->index == 0) {
        memcpy(recv, send, bytes);
        combine(recv, in, count);
    } else {
        combine(recv, send, count);
    }
    return TRANSPORT_OK;
}

/* Member k's slice of a count-element vector, in bytes. */
typedef struct Slices {
    int *counts, *displs;   /* by member */
} Slices;

static bool slices_make(Slices *s, int64_t count, size_t elem, int64_t n)
{
    s->counts = calloc((size_t)n, sizeof *s->counts);
    s->displs = calloc((size_t)n, sizeof *s->displs);
    if (!s->counts || !s->displs)
        return false;
    int64_t per = size_ceil_div(count, n);
    for (int64_t k = 0; k < n; k++) {
        int64_t lo = k * per < count ? k * per : count, hi = (k + 1) * per < count ? (k + 1) * per : count;
        s->displs[k] = (int)((size_t)lo * elem);
        s->counts[k] = (int)((size_t)(hi - lo) * elem);
    }
    return true;
}

static void slices_free(Slices *s)
{
    free(s->counts);
    free(s->displs);
}

/* Phase 1: every other member's copy of the caller's slice
 * (MPI_Ialltoallv; the caller's own stays in `send`, not copied through
 * MPI), combined in group order into the caller's slice of recv. */
static TransportStatus reduce_own_slice(MpiRun *r, MPI_Comm comm, const TransportGroup *g, TransportCombineFn combine,
                                        const Slices *s, const char *send, char *recv, size_t elem)
{
    int64_t n = g->size, self = g->index;
    int mine = s->counts[self];
    int *counts = calloc((size_t)n * 3, sizeof *counts); /* send counts, receive counts, receive displacements */
    char *parts = scratch(r, (size_t)mine * (size_t)n);
    TransportStatus st = counts && parts ? TRANSPORT_OK : TRANSPORT_FAILED;
    for (int64_t k = 0; st == TRANSPORT_OK && k < n; k++) {
        counts[k] = k == self ? 0 : s->counts[k];
        counts[n + k] = k == self ? 0 : mine;
        counts[2 * n + k] = (int)(k * mine);
    }
    MPI_Request req;
    if (st == TRANSPORT_OK)
        st = finish(r, MPI_Ialltoallv(send, counts, s->displs, MPI_BYTE, parts, counts + n, counts + 2 * n, MPI_BYTE,
                                      comm, &req), &req, "MPI_Ialltoallv (all-reduce)");
    char *acc = recv + s->displs[self];
    const char *own = send + s->displs[self];
    for (int64_t k = 0; st == TRANSPORT_OK && mine > 0 && k < n; k++) {
        const char *part = k == self ? own : parts + (size_t)k * (size_t)mine;
        if (k == 0)
            memcpy(acc, part, (size_t)mine);
        else
            combine(acc, part, (int64_t)((size_t)mine / elem));
    }
    free(counts);
    return st;
}

/* Reduce-scatter by slices, then every member gathers the combined slices. */
static TransportStatus ordered_allreduce_sliced(MpiRun *r, MPI_Comm comm, const TransportGroup *g,
                                                TransportCombineFn combine, const void *send, void *recv,
                                                int64_t count, size_t elem)
{
    Slices s = {NULL, NULL};
    MPI_Request req;
    TransportStatus st = slices_make(&s, count, elem, g->size) ? TRANSPORT_OK : TRANSPORT_FAILED;
    if (st == TRANSPORT_OK)
        st = reduce_own_slice(r, comm, g, combine, &s, send, recv, elem);
    if (st == TRANSPORT_OK)
        st = finish(r, MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, s.counts, s.displs, MPI_BYTE, comm,
                                       &req), &req, "MPI_Iallgatherv (all-reduce)");
    slices_free(&s);
    return st;
}

static TransportStatus run_allreduce(Transport *t, const TransportGroup *g, TransportReduction red, const void *send,
                                     void *recv, int64_t count)
{
    MpiRun *r = (MpiRun *)t;
    TransportCombineFn combine = transport_combine_fn(red);
    MPI_Datatype type;
    MPI_Op op;
    MPI_Comm comm;
    MPI_Request req;
    int total = 0;
    size_t elem = dtype_size(red.dtype), bytes = (size_t)count * elem;
    TransportStatus st = !combine ? TRANSPORT_UNSUPPORTED : count_of(bytes * (size_t)g->size, &total);
    if (st == TRANSPORT_OK)
        st = group_comm(r, g, &comm);
    if (st != TRANSPORT_OK)
        return st;
    if (native_reduction(r->w, red, &type, &op))
        return finish(r, MPI_Iallreduce(send, recv, (int)count, type, op, comm, &req), &req,
                      "MPI_Iallreduce (all-reduce)");
    if (g->size == 2 && bytes < ORDERED_PAIR_BYTES && send != recv)
        return ordered_allreduce_pair(r, comm, g, combine, send, recv, count, bytes);
    if (bytes < ORDERED_DIRECT_BYTES || g->size == 1 || (g->size == 2 && bytes < ORDERED_PAIR_BYTES))
        return ordered_allreduce_direct(r, comm, g, combine, send, recv, count, bytes);
    return ordered_allreduce_sliced(r, comm, g, combine, send, recv, count, elem);
}

static TransportStatus run_reduce_scatter(Transport *t, const TransportGroup *g, TransportReduction red,
                                          const void *send, void *recv, int64_t recv_count)
{
    MpiRun *r = (MpiRun *)t;
    TransportCombineFn combine = transport_combine_fn(red);
    MPI_Datatype type;
    MPI_Op op;
    MPI_Comm comm;
    MPI_Request req;
    int total = 0;
    size_t part = (size_t)recv_count * dtype_size(red.dtype);
    TransportStatus st = !combine ? TRANSPORT_UNSUPPORTED : count_of(part * (size_t)g->size, &total);
    if (st == TRANSPORT_OK)
        st = group_comm(r, g, &comm);
    if (st != TRANSPORT_OK)
        return st;
    if (native_reduction(r->w, red, &type, &op))
        return finish(r, MPI_Ireduce_scatter_block(send, recv, (int)recv_count, type, op, comm, &req), &req,
                      "MPI_Ireduce_scatter_block (reduce-scatter)");
    char *parts = scratch(r, part * (size_t)g->size);
    st = parts ? finish(r, MPI_Ialltoall(send, (int)part, MPI_BYTE, parts, (int)part, MPI_BYTE, comm, &req), &req,
                        "MPI_Ialltoall (reduce-scatter)")
               : TRANSPORT_FAILED;
    if (st == TRANSPORT_OK)
        combine_parts(combine, recv, parts, part, g->size, recv_count);
    return st;
}

/* ---- lifetime ---------------------------------------------------------------------------------- */

/* A failing device's process reports and ends the job itself (cmd_run):
 * nothing to wake up here, the other processes learn of it by notice. */
static void run_abort(Transport *t)
{
    (void)t;
}

static void run_destroy(Transport *t)
{
    MpiRun *r = (MpiRun *)t;
    if (!r)
        return;
    free(r->owner);
    free(r->local);
    free(r->scratch);
    free(r);
}

static const TransportOps mpi_run_ops = {
    "mpi", run_barrier, run_allgather, run_allreduce, run_reduce_scatter, run_alltoall, run_sendrecv,
    run_abort, run_destroy, NULL, NULL, NULL, NULL,
};

/* The run's processes: the world itself, or a cached split of it. */
static bool run_comm(MpiRun *r, const int64_t *active, int64_t num_active)
{
    MpiWorld *w = r->w;
    if (num_active == w->base.size) {
        r->active = w->world;
        r->active_id = WORLD_RUN;
        return true;
    }
    int64_t *key = malloc((size_t)num_active * sizeof *key + 1);
    bool here = false;
    for (int64_t k = 0; key && k < num_active; k++) {
        key[k] = r->owner[active[k]];
        here |= key[k] == w->base.rank;
    }
    MpiCachedComm *c = NULL;
    bool ok = key && mpi_cached_comm(w, ACTIVE_SETS, w->world, key, num_active, here ? 0 : MPI_UNDEFINED,
                                     (int)w->base.rank, &c) == TRANSPORT_OK;
    free(key);
    r->active = ok ? c->comm : MPI_COMM_NULL;
    r->active_id = ok ? c->id : 0;
    return ok;
}

static bool owners_valid(const MpiWorld *w, const int64_t *owner, int64_t n)
{
    for (int64_t p = 0; p < n; p++)
        if (owner[p] < 0 || owner[p] >= w->base.size)
            return false;
    return true;
}

Transport *mpi_run_open(TransportWorld *tw, const int64_t *owner, int64_t num_endpoints, const int64_t *active,
                        int64_t num_active)
{
    MpiWorld *w = (MpiWorld *)tw;
    if (!owners_valid(w, owner, num_endpoints))
        return NULL;
    MpiRun *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->base.ops = &mpi_run_ops;
    r->w = w;
    r->num_endpoints = num_endpoints;
    r->owner = malloc((size_t)num_endpoints * sizeof *r->owner + 1);
    r->local = calloc((size_t)num_endpoints + 1, sizeof *r->local);
    for (int64_t p = 0; r->owner && r->local && p < num_endpoints; p++) {
        r->owner[p] = owner[p];
        r->local[p] = owner[p] == w->base.rank;
    }
    r->base.local = r->local;
    if (!r->owner || !r->local || !run_comm(r, active, num_active)) {
        run_destroy(&r->base);
        return NULL;
    }
    return &r->base;
}

#else /* built without MPI: transport_mpi.c says so */
typedef int transport_mpi_run_unused;
#endif
