/* The lockstep transport: the devices of a shard_map run as data, one op
 * at a time for all of them (src/interp/lockstep.c), so a collective needs
 * no threads and no barriers. The engine runs a collective's handler for
 * every device twice: in the publish pass each endpoint's calls record what
 * it sends (a copy, in a buffer kept for the next op) and receive nothing
 * (recv is not written; the engine passes NULL); in
 * the complete pass each call reads its peers' records of the same call
 * (the k-th call of every endpoint matches the k-th of its peers, as the
 * SPMD contract orders them) and writes the caller's receive buffer. The
 * handlers are deterministic, so the complete pass sends what was published.
 *
 * Each pass may run the endpoints concurrently: publishing writes only the
 * caller's records, completing only reads them -- except a group job's
 * result (below). Reductions combine in group-index order, bit for bit as
 * the in-process transport does.
 *
 * The engine's calls (allreduce_shared, allgather_shared,
 * reduce_scatter_shared, alltoall_shared; allreduce too) are group jobs:
 * each publish records the send buffer itself (no copy; the caller keeps it
 * unchanged until its complete call returns), and the group's first member
 * allocates the group's one result (one tensor: the reduction, the
 * gathered value, or every member's result of a reduce-scatter or an
 * all-to-all side by side). In the complete pass every member's call takes
 * units of the job in turn -- a 32 KiB piece of one result block, from an
 * atomic ticket in the first member's record -- and writes the piece once,
 * straight from the members' sends (a reduction combines the piece across
 * them while it is in cache); once every unit is done it takes a reference
 * to the result (allreduce: copies it into its receive buffer). Whichever
 * workers complete the group's calls share the work; a call waits only for
 * units another call is doing, never for a member to arrive, and no call
 * returns while another may still read its send. Blocks are laid out as
 * TransportBlocks says (rows of runs), so a block cut along any dim is read
 * and written in place, without a transpose.
 *
 * The byte calls allgather, reduce_scatter and alltoall (a send that may be
 * the caller's temporary) copy the send when it is published. */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "shardc/transport.h"

/* Bytes of an all-reduce one call combines at a time: the members' pieces
 * and the result's stay in L2. */
enum { REDUCE_CHUNK_BYTES = 32 << 10 };

/* Which call made a record: a group's members must all make the same. */
typedef enum {
    CALL_COPY,             /* a copy of the send: allgather, reduce_scatter, alltoall, sendrecv */
    CALL_ALLREDUCE,
    CALL_ALLREDUCE_SHARED,
    CALL_GATHER_SHARED,
    CALL_SCATTER_SHARED,
    CALL_EXCHANGE_SHARED,
} CallKind;

typedef struct Record {
    char *buf;
    size_t cap, bytes;
    const char *data;      /* what was sent: buf, or the send buffer itself */
    int64_t dest;          /* sendrecv only */
    CallKind kind;
    /* A group job's result, in the record of its first member: `result`
     * is result_buf's memory (allreduce) or shared's (the _shared calls). */
    char *result, *result_buf;
    size_t result_cap;
    Tensor *shared;
    int64_t units;
    int64_t claimed, done; /* atomic: units taken, units finished */
} Record;

typedef struct Endpoint {
    Record *records;
    int64_t num, cap;      /* records made so far in this op; allocated */
    int64_t cursor;        /* the caller's next call in this pass */
} Endpoint;

typedef struct LockstepTransport {
    Transport base;
    bool complete;
    int64_t num_endpoints;
    Endpoint *endpoints;
} LockstepTransport;

static LockstepTransport *lockstep(Transport *t)
{
    return (LockstepTransport *)t;
}

/* ---- publishing -------------------------------------------------------------- */

/* The caller's next record, kept from op to op; NULL if out of memory. */
static Record *next_record(LockstepTransport *lt, int64_t self)
{
    Endpoint *e = &lt->endpoints[self];
    if (e->cursor == e->cap) {
        int64_t cap = e->cap ? 2 * e->cap : 4;
        Record *grown = realloc(e->records, (size_t)cap * sizeof *grown);
        if (!grown)
            return NULL;
        memset(grown + e->cap, 0, (size_t)(cap - e->cap) * sizeof *grown);
        e->records = grown;
        e->cap = cap;
    }
    e->num = e->cursor + 1;
    return &e->records[e->cursor++];
}

/* The record no longer holds a group's result (its members hold their own
 * references). */
static void drop_result(Record *r)
{
    tensor_release(r->shared);
    r->shared = NULL;
}

/* Grow *buf to at least `bytes` (never NULL: peers memcpy from it, even 0 bytes). */
static bool reserve(char **buf, size_t *cap, size_t bytes)
{
    if (*cap >= bytes && *buf)
        return true;
    char *grown = realloc(*buf, bytes ? bytes : 1);
    if (!grown)
        return false;
    *buf = grown;
    *cap = bytes ? bytes : 1;
    return true;
}

/* Record a copy of the send. */
static TransportStatus publish(LockstepTransport *lt, int64_t self, const void *send, size_t bytes, int64_t dest)
{
    Record *r = next_record(lt, self);
    if (!r || !reserve(&r->buf, &r->cap, bytes))
        return TRANSPORT_FAILED;
    drop_result(r);
    if (bytes)
        memcpy(r->buf, send, bytes);
    r->data = r->buf;
    r->bytes = bytes;
    r->dest = dest;
    r->kind = CALL_COPY;
    return TRANSPORT_OK;
}

/* In the publish pass: record the send (recv is not written). Else false. */
static bool publishing(LockstepTransport *lt, int64_t self, const void *send, size_t bytes, int64_t dest,
                       TransportStatus *status)
{
    if (lt->complete)
        return false;
    *status = publish(lt, self, send, bytes, dest);
    return true;
}

/* The record of endpoint `who` for the caller's current call, or NULL if
 * it made no such call. */
static const Record *record_of(const LockstepTransport *lt, int64_t who, int64_t call)
{
    const Endpoint *e = &lt->endpoints[who];
    return who >= 0 && who < lt->num_endpoints && call < e->num ? &e->records[call] : NULL;
}

/* The caller's call number in the complete pass. */
static int64_t next_call(LockstepTransport *lt, int64_t self)
{
    return lt->endpoints[self].cursor++;
}

/* The members' records of this call, all of `bytes` bytes made by `kind`
 * calls; false if not. */
static bool group_records(const LockstepTransport *lt, const TransportGroup *g, int64_t call, size_t bytes,
                          CallKind kind, const Record **out)
{
    for (int64_t k = 0; k < g->size; k++) {
        out[k] = record_of(lt, g->members[k], call);
        if (!out[k] || out[k]->bytes != bytes || out[k]->kind != kind)
            return false;
    }
    return true;
}

/* ---- group operations ----------------------------------------------------------- */

/* A group's records, checked, for the caller's call (complete pass). */
typedef struct GroupCall {
    const Record **rec;
    TransportStatus status;
} GroupCall;

static GroupCall group_call(LockstepTransport *lt, const TransportGroup *g, size_t bytes, CallKind kind)
{
    GroupCall c = {calloc((size_t)g->size, sizeof *c.rec), TRANSPORT_OK};
    int64_t call = next_call(lt, g->members[g->index]);
    if (!c.rec)
        c.status = TRANSPORT_FAILED;
    else if (!group_records(lt, g, call, bytes, kind, c.rec))
        c.status = TRANSPORT_MISMATCH;
    return c;
}

static TransportStatus lockstep_allgather(Transport *t, const TransportGroup *g, const void *send, size_t bytes,
                                          void *recv)
{
    TransportStatus st;
    if (publishing(lockstep(t), g->members[g->index], send, bytes, -1, &st))
        return st;
    GroupCall c = group_call(lockstep(t), g, bytes, CALL_COPY);
    for (int64_t k = 0; c.status == TRANSPORT_OK && k < g->size; k++)
        memcpy((char *)recv + (size_t)k * bytes, c.rec[k]->data, bytes);
    free(c.rec);
    return c.status;
}

/* recv = the members' parts at offset, combined in group order. */
static void combine_parts(const GroupCall *c, int64_t n, TransportCombineFn combine, size_t offset, size_t bytes,
                          size_t elem, void *recv)
{
    memcpy(recv, c->rec[0]->data + offset, bytes);
    for (int64_t k = 1; k < n; k++)
        combine(recv, c->rec[k]->data + offset, (int64_t)(bytes / elem));
}

static TransportStatus lockstep_reduce_scatter(Transport *t, const TransportGroup *g, TransportReduction red,
                                               const void *send, void *recv, int64_t recv_count)
{
    TransportCombineFn combine = transport_combine_fn(red);
    size_t elem = dtype_size(red.dtype), part = (size_t)recv_count * elem, bytes = part * (size_t)g->size;
    TransportStatus st;
    if (!combine)
        return TRANSPORT_UNSUPPORTED;
    if (publishing(lockstep(t), g->members[g->index], send, bytes, -1, &st))
        return st;
    GroupCall c = group_call(lockstep(t), g, bytes, CALL_COPY);
    if (c.status == TRANSPORT_OK && part)
        combine_parts(&c, g->size, combine, part * (size_t)g->index, part, elem, recv);
    free(c.rec);
    return c.status;
}

static TransportStatus lockstep_alltoall(Transport *t, const TransportGroup *g, const void *send,
                                         size_t chunk_bytes, void *recv)
{
    size_t bytes = chunk_bytes * (size_t)g->size;
    TransportStatus st;
    if (publishing(lockstep(t), g->members[g->index], send, bytes, -1, &st))
        return st;
    GroupCall c = group_call(lockstep(t), g, bytes, CALL_COPY);
    for (int64_t k = 0; c.status == TRANSPORT_OK && k < g->size; k++)
        memcpy((char *)recv + (size_t)k * chunk_bytes, c.rec[k]->data + chunk_bytes * (size_t)g->index,
               chunk_bytes);
    free(c.rec);
    return c.status;
}

/* ---- group jobs: one result per group, written once -------------------------------- */

/* Bytes laid out in runs: logical byte b is at base + b / run * stride + b % run. */
typedef struct Runs {
    const char *base;
    size_t run, stride;
} Runs;

static Runs contiguous(const char *base)
{
    return (Runs){base, SIZE_MAX, 0};
}

/* Block k of a buffer cut into n blocks as `b` says. */
static Runs block_runs(const char *base, TransportBlocks b, int64_t n, int64_t k)
{
    return (Runs){base + (size_t)k * b.inner, b.inner, (size_t)n * b.inner};
}

static size_t at_most(size_t a, size_t b)
{
    return a < b ? a : b;
}

/* dst = src (combine NULL) or dst = dst op src, over logical bytes [from, to). */
static void apply_runs(Runs dst, Runs src, size_t from, size_t to, TransportCombineFn combine, size_t elem)
{
    while (from < to) {
        size_t len = at_most(to - from, at_most(dst.run - from % dst.run, src.run - from % src.run));
        char *d = (char *)dst.base + from / dst.run * dst.stride + from % dst.run;
        const char *s = src.base + from / src.run * src.stride + from % src.run;
        if (combine)
            combine(d, s, (int64_t)(len / elem));
        else
            memcpy(d, s, len);
        from += len;
    }
}

/* A group's collective as units of work any member's call may take: each
 * unit is one REDUCE_CHUNK_BYTES piece of one result block. */
typedef struct Job {
    CallKind kind;
    int64_t n;             /* group size */
    int64_t parts;         /* result blocks a send is cut into: 1 (all-reduce), else n */
    size_t part;           /* bytes of one unit's block */
    int64_t pieces;        /* REDUCE_CHUNK_BYTES pieces of a block */
    int64_t units;
    TransportBlocks from, into;
    TransportCombineFn combine;
    size_t elem;
    const Record **rec;    /* complete pass: the members' records */
    char *result;
} Job;

static Job job_new(CallKind kind, int64_t n, size_t send_bytes, TransportBlocks from, TransportBlocks into)
{
    bool whole = kind == CALL_ALLREDUCE || kind == CALL_ALLREDUCE_SHARED || kind == CALL_GATHER_SHARED;
    Job j = {kind, n, whole ? 1 : n, whole ? send_bytes : send_bytes / (size_t)n, 0, 0, from, into, NULL, 1, NULL,
             NULL};
    j.pieces = (int64_t)((j.part + REDUCE_CHUNK_BYTES - 1) / REDUCE_CHUNK_BYTES);
    /* blocks to fill: one per group (all-reduce), one per member, one per pair (all-to-all) */
    int64_t blocks = kind == CALL_EXCHANGE_SHARED ? n * n : kind == CALL_GATHER_SHARED || kind == CALL_SCATTER_SHARED ? n : 1;
    j.units = blocks * j.pieces;
    return j;
}

static Job reduction_job(CallKind kind, int64_t n, size_t send_bytes, TransportBlocks from, TransportReduction red)
{
    Job j = job_new(kind, n, send_bytes, from, (TransportBlocks){0, 0});
    j.combine = transport_combine_fn(red);
    j.elem = dtype_size(red.dtype);
    return j;
}

/* Unit u: [*from, *to) of its block; returns the block's index. */
static int64_t unit_range(const Job *j, int64_t u, size_t *from, size_t *to)
{
    *from = (size_t)(u % j->pieces) * REDUCE_CHUNK_BYTES;
    *to = at_most(j->part, *from + REDUCE_CHUNK_BYTES);
    return u / j->pieces;
}

/* Result block i = the members' sends' block i, combined in group order;
 * the piece stays in cache across the members. */
static void reduce_unit(const Job *j, int64_t u)
{
    size_t from, to;
    int64_t i = unit_range(j, u, &from, &to);
    Runs dst = contiguous(j->result + (size_t)i * j->part);
    for (int64_t m = 0; m < j->n; m++)
        apply_runs(dst, block_runs(j->rec[m]->data, j->from, j->parts, i), from, to, m ? j->combine : NULL, j->elem);
}

/* Block k of the gathered result = member k's send. */
static void gather_unit(const Job *j, int64_t u)
{
    size_t from, to;
    int64_t k = unit_range(j, u, &from, &to);
    apply_runs(block_runs(j->result, j->into, j->n, k), contiguous(j->rec[k]->data), from, to, NULL, 1);
}

/* Member i's result, block k = block i of member k's send. */
static void exchange_unit(const Job *j, int64_t u)
{
    size_t from, to;
    int64_t pair = unit_range(j, u, &from, &to), i = pair / j->n, k = pair % j->n;
    Runs dst = block_runs(j->result + (size_t)i * j->part * (size_t)j->n, j->into, j->n, k);
    apply_runs(dst, block_runs(j->rec[k]->data, j->from, j->n, i), from, to, NULL, 1);
}

static void job_unit(const Job *j, int64_t u)
{
    if (j->kind == CALL_GATHER_SHARED)
        gather_unit(j, u);
    else if (j->kind == CALL_EXCHANGE_SHARED)
        exchange_unit(j, u);
    else
        reduce_unit(j, u);
}

/* Take units of the group's job until none is left untaken, then wait for
 * those other calls are doing. */
static void run_units(const Job *j, Record *lead)
{
    for (;;) {
        int64_t u = __atomic_fetch_add(&lead->claimed, 1, __ATOMIC_RELAXED);
        if (u >= lead->units)
            break;
        job_unit(j, u);
        __atomic_fetch_add(&lead->done, 1, __ATOMIC_RELEASE);
    }
    while (__atomic_load_n(&lead->done, __ATOMIC_ACQUIRE) < lead->units)
        sched_yield();
}

/* The record's last group result as a tensor of dtype and dims, if
 * nobody else holds it any more and it has the bytes: its pages are
 * already mapped, where a new tensor of megabytes would fault in each. No
 * reference can appear meanwhile (only this record holds one), and the
 * publish pass releases none, so the count read is the count. */
static bool reuse_result(Record *r, size_t bytes, DType dtype, int rank, const int64_t *dims)
{
    Tensor *t = r->shared;
    if (!t || atomic_load(&t->refs) != 1 || t->base || t->nbytes != bytes)
        return false;
    t->dtype = dtype;
    t->rank = rank;
    memset(t->dims, 0, sizeof t->dims);
    memcpy(t->dims, dims, (size_t)rank * sizeof *dims);
    t->count = (int64_t)(bytes / dtype_size(dtype));
    return true;
}

/* Where the group's result goes: the record's own buffer (rank < 0), else
 * a tensor of dtype and dims: the record's last one if free, else new. */
static bool result_ready(Record *r, size_t bytes, DType dtype, int rank, const int64_t *dims)
{
    if (rank < 0) {
        drop_result(r);
        r->result = reserve(&r->result_buf, &r->result_cap, bytes) ? r->result_buf : NULL;
        return r->result != NULL;
    }
    if (!reuse_result(r, bytes, dtype, rank, dims)) {
        TensorCtx ctx; /* not charged: every member is charged for its view */
        tensor_ctx_init(&ctx, NULL);
        drop_result(r);
        if (tensor_new_uninit(&ctx, dtype, rank, dims, &r->shared) != TENSOR_OK)
            return false;
    }
    r->result = r->shared->data;
    return true;
}

/* What a job's result is: a buffer (rank < 0) or a tensor. */
typedef struct ResultShape {
    DType dtype;
    int rank;
    const int64_t *dims;
    size_t bytes;
} ResultShape;

/* Record the send buffer itself, and as the group's first member get the
 * group's result ready: room for it, no unit taken. Nothing is received. */
static TransportStatus publish_job(LockstepTransport *lt, const TransportGroup *g, const Job *j, const void *send,
                                   size_t bytes, ResultShape shape)
{
    Record *r = next_record(lt, g->members[g->index]);
    if (!r)
        return TRANSPORT_FAILED;
    r->data = send;
    r->bytes = bytes;
    r->dest = -1;
    r->kind = j->kind;
    if (g->index != 0)
        drop_result(r);
    else {
        if (!result_ready(r, shape.bytes, shape.dtype, shape.rank, shape.dims))
            return TRANSPORT_FAILED;
        r->units = j->units;
        __atomic_store_n(&r->claimed, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&r->done, 0, __ATOMIC_RELAXED);
    }
    return TRANSPORT_OK;
}

/* Publish, or do the group's job with the other members' calls and take a
 * reference to its result (recv: a copy of it instead). */
static TransportStatus run_job(Transport *t, const TransportGroup *g, Job *j, const void *send, size_t bytes,
                               ResultShape shape, Tensor **result, void *recv)
{
    LockstepTransport *lt = lockstep(t);
    if (!lt->complete)
        return publish_job(lt, g, j, send, bytes, shape);
    GroupCall c = group_call(lt, g, bytes, j->kind);
    if (c.status == TRANSPORT_OK) {
        Record *lead = (Record *)c.rec[0]; /* the members' own records are read only */
        j->rec = c.rec;
        j->result = lead->result;
        run_units(j, lead);
        if (result)
            *result = tensor_retain(lead->shared);
        else if (bytes)
            memcpy(recv, lead->result, bytes);
    }
    free(c.rec);
    return c.status;
}

static TransportBlocks whole(size_t bytes)
{
    return (TransportBlocks){1, bytes};
}

static TransportStatus lockstep_allreduce(Transport *t, const TransportGroup *g, TransportReduction red,
                                          const void *send, void *recv, int64_t count)
{
    size_t bytes = (size_t)count * dtype_size(red.dtype);
    Job j = reduction_job(CALL_ALLREDUCE, g->size, bytes, whole(bytes), red);
    if (!j.combine)
        return TRANSPORT_UNSUPPORTED;
    return run_job(t, g, &j, send, bytes, (ResultShape){red.dtype, -1, NULL, bytes}, NULL, recv);
}

/* The same reduction, into one tensor every member gets a reference to. */
static TransportStatus lockstep_allreduce_shared(Transport *t, const TransportGroup *g, TransportReduction red,
                                                 const Tensor *send, Tensor **result)
{
    Job j = reduction_job(CALL_ALLREDUCE_SHARED, g->size, send->nbytes, whole(send->nbytes), red);
    if (!j.combine || red.dtype != send->dtype)
        return TRANSPORT_UNSUPPORTED;
    ResultShape shape = {send->dtype, send->rank, send->dims, send->nbytes};
    return run_job(t, g, &j, send->data, send->nbytes, shape, result, NULL);
}

/* Whether b cuts `bytes` into n blocks. */
static bool cuts(TransportBlocks b, int64_t n, size_t bytes)
{
    return b.outer * (size_t)n * b.inner == bytes;
}

/* The group's tensor of `count` elements of send's dtype. */
static ResultShape group_tensor(const Tensor *send, const int64_t *count)
{
    return (ResultShape){send->dtype, 1, count, (size_t)*count * dtype_size(send->dtype)};
}

static TransportStatus lockstep_allgather_shared(Transport *t, const TransportGroup *g, const Tensor *send,
                                                 TransportBlocks into, Tensor **result)
{
    int64_t count = send->count * g->size;
    if (!cuts(into, g->size, (size_t)g->size * send->nbytes))
        return TRANSPORT_MISMATCH;
    Job j = job_new(CALL_GATHER_SHARED, g->size, send->nbytes, whole(send->nbytes), into);
    return run_job(t, g, &j, send->data, send->nbytes, group_tensor(send, &count), result, NULL);
}

static TransportStatus lockstep_reduce_scatter_shared(Transport *t, const TransportGroup *g, TransportReduction red,
                                                      const Tensor *send, TransportBlocks from, Tensor **result)
{
    Job j = reduction_job(CALL_SCATTER_SHARED, g->size, send->nbytes, from, red);
    if (!j.combine || red.dtype != send->dtype)
        return TRANSPORT_UNSUPPORTED;
    if (!cuts(from, g->size, send->nbytes))
        return TRANSPORT_MISMATCH;
    return run_job(t, g, &j, send->data, send->nbytes, group_tensor(send, &send->count), result, NULL);
}

static TransportStatus lockstep_alltoall_shared(Transport *t, const TransportGroup *g, const Tensor *send,
                                                TransportBlocks from, TransportBlocks into, Tensor **result)
{
    int64_t count = send->count * g->size;
    if (!cuts(from, g->size, send->nbytes) || !cuts(into, g->size, send->nbytes))
        return TRANSPORT_MISMATCH;
    Job j = job_new(CALL_EXCHANGE_SHARED, g->size, send->nbytes, from, into);
    return run_job(t, g, &j, send->data, send->nbytes, group_tensor(send, &count), result, NULL);
}

/* ---- point to point, barrier ----------------------------------------------------- */

static TransportStatus lockstep_sendrecv(Transport *t, int64_t self, const void *send, size_t send_bytes,
                                         int64_t dest, void *recv, size_t recv_bytes, int64_t source)
{
    LockstepTransport *lt = lockstep(t);
    TransportStatus st;
    if (publishing(lt, self, send, dest >= 0 ? send_bytes : 0, dest, &st))
        return st;
    int64_t call = next_call(lt, self);
    if (source < 0)
        return TRANSPORT_OK;
    const Record *r = record_of(lt, source, call);
    if (!r || r->dest != self || r->bytes != recv_bytes)
        return TRANSPORT_MISMATCH;
    memcpy(recv, r->data, recv_bytes);
    return TRANSPORT_OK;
}

/* Every endpoint is always at the same op: nothing to wait for. */
static TransportStatus lockstep_barrier(Transport *t, int64_t self)
{
    (void)t;
    (void)self;
    return TRANSPORT_OK;
}

/* A failing device stops the run after its op (the engine's business). */
static void lockstep_abort(Transport *t)
{
    (void)t;
}

/* ---- lifetime --------------------------------------------------------------------- */

static void lockstep_destroy(Transport *t)
{
    LockstepTransport *lt = lockstep(t);
    if (!lt)
        return;
    for (int64_t p = 0; p < lt->num_endpoints; p++) {
        for (int64_t k = 0; k < lt->endpoints[p].cap; k++) {
            free(lt->endpoints[p].records[k].buf);
            free(lt->endpoints[p].records[k].result_buf);
            tensor_release(lt->endpoints[p].records[k].shared);
        }
        free(lt->endpoints[p].records);
    }
    free(lt->endpoints);
    free(lt);
}

static const TransportOps lockstep_ops = {
    "lockstep", lockstep_barrier, lockstep_allgather, lockstep_allreduce, lockstep_reduce_scatter,
    lockstep_alltoall, lockstep_sendrecv, lockstep_abort, lockstep_destroy, lockstep_allreduce_shared,
    lockstep_allgather_shared, lockstep_reduce_scatter_shared, lockstep_alltoall_shared,
};

Transport *transport_lockstep_new(int64_t num_endpoints)
{
    if (num_endpoints < 1)
        return NULL;
    LockstepTransport *lt = calloc(1, sizeof *lt);
    if (!lt || !(lt->endpoints = calloc((size_t)num_endpoints, sizeof *lt->endpoints))) {
        free(lt);
        return NULL;
    }
    lt->base.ops = &lockstep_ops;
    lt->num_endpoints = num_endpoints;
    return &lt->base;
}

void transport_lockstep_pass(Transport *t, bool complete)
{
    LockstepTransport *lt = lockstep(t);
    lt->complete = complete;
    for (int64_t p = 0; p < lt->num_endpoints; p++) {
        lt->endpoints[p].cursor = 0;
        if (!complete)
            lt->endpoints[p].num = 0;
    }
}
