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
 * caller's records, completing only reads them -- except an all-reduce's
 * shared result (below). Reductions combine in group-index order, bit for
 * bit as the in-process transport does.
 *
 * An all-reduce gives every member the same vector, so it is computed once
 * per group, not once per member: its publish records the send buffer
 * itself (no copy; the caller keeps it unchanged until its complete call
 * returns), and in the complete pass every member's call takes chunks of
 * the vector in turn (an atomic ticket in the group's first member's
 * record), combines each chunk across the members' sends into the group's
 * result, and, once every chunk is done, copies the result into its own
 * receive buffer (allreduce) or takes a reference to it, one tensor for the
 * whole group (allreduce_shared, the engine's). Whichever workers complete
 * the group's calls share the
 * reduction, each chunk read once from every send while it is in cache; a
 * call waits only for chunks another call is combining, never for a member
 * to arrive. */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "shardc/transport.h"

/* Bytes of an all-reduce one call combines at a time: the members' pieces
 * and the result's stay in L2. */
enum { REDUCE_CHUNK_BYTES = 32 << 10 };

typedef struct Record {
    char *buf;
    size_t cap, bytes;
    const char *data;      /* what was sent: buf, or an all-reduce's send buffer */
    int64_t dest;          /* sendrecv only */
    /* An all-reduce's group result, in the record of its first member:
     * `result` is result_buf's memory, or shared's (allreduce_shared). */
    char *result, *result_buf;
    size_t result_cap;
    Tensor *shared;
    int64_t chunks;
    int64_t claimed, combined; /* atomic: chunks taken, chunks done */
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
    Record *r = &e->records[e->cursor++];
    tensor_release(r->shared); /* its members hold their own references */
    r->shared = NULL;
    return r;
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
    if (bytes)
        memcpy(r->buf, send, bytes);
    r->data = r->buf;
    r->bytes = bytes;
    r->dest = dest;
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

/* The members' records of this call, all of `bytes` bytes; NULL if not. */
static bool group_records(const LockstepTransport *lt, const TransportGroup *g, int64_t call, size_t bytes,
                          const Record **out)
{
    for (int64_t k = 0; k < g->size; k++) {
        out[k] = record_of(lt, g->members[k], call);
        if (!out[k] || out[k]->bytes != bytes)
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

static GroupCall group_call(LockstepTransport *lt, const TransportGroup *g, size_t bytes)
{
    GroupCall c = {calloc((size_t)g->size, sizeof *c.rec), TRANSPORT_OK};
    int64_t call = next_call(lt, g->members[g->index]);
    if (!c.rec)
        c.status = TRANSPORT_FAILED;
    else if (!group_records(lt, g, call, bytes, c.rec))
        c.status = TRANSPORT_MISMATCH;
    return c;
}

static TransportStatus lockstep_allgather(Transport *t, const TransportGroup *g, const void *send, size_t bytes,
                                          void *recv)
{
    TransportStatus st;
    if (publishing(lockstep(t), g->members[g->index], send, bytes, -1, &st))
        return st;
    GroupCall c = group_call(lockstep(t), g, bytes);
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

/* Where the group's result goes: a new tensor shaped like `shape`
 * (allreduce_shared), else the record's own buffer. */
static bool result_ready(Record *r, size_t bytes, const Tensor *shape)
{
    if (!shape) {
        r->result = reserve(&r->result_buf, &r->result_cap, bytes) ? r->result_buf : NULL;
        return r->result != NULL;
    }
    TensorCtx ctx; /* not charged: every member is charged for its view */
    tensor_ctx_init(&ctx, NULL);
    r->result = tensor_new_uninit(&ctx, shape->dtype, shape->rank, shape->dims, &r->shared) == TENSOR_OK
                    ? r->shared->data
                    : NULL;
    return r->result != NULL;
}

/* Record the send buffer itself, and as the group's first member get the
 * group's result ready: room for it, no chunk taken. Nothing is received
 * (recv is not written; it may be NULL). */
static TransportStatus publish_allreduce(LockstepTransport *lt, const TransportGroup *g, const void *send,
                                         size_t bytes, const Tensor *shape)
{
    Record *r = next_record(lt, g->members[g->index]);
    if (!r)
        return TRANSPORT_FAILED;
    r->data = send;
    r->bytes = bytes;
    r->dest = -1;
    if (g->index == 0) {
        if (!result_ready(r, bytes, shape))
            return TRANSPORT_FAILED;
        r->chunks = (int64_t)((bytes + REDUCE_CHUNK_BYTES - 1) / REDUCE_CHUNK_BYTES);
        __atomic_store_n(&r->claimed, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&r->combined, 0, __ATOMIC_RELAXED);
    }
    return TRANSPORT_OK;
}

/* Combine chunks of the group's result until none is left untaken, then
 * wait for those other calls are combining. */
static void reduce_chunks(const GroupCall *c, int64_t n, TransportCombineFn combine, size_t bytes, size_t elem)
{
    Record *lead = (Record *)c->rec[0]; /* the members' own records are read only */
    for (;;) {
        int64_t k = __atomic_fetch_add(&lead->claimed, 1, __ATOMIC_RELAXED);
        if (k >= lead->chunks)
            break;
        size_t at = (size_t)k * REDUCE_CHUNK_BYTES;
        size_t len = bytes - at < REDUCE_CHUNK_BYTES ? bytes - at : REDUCE_CHUNK_BYTES;
        memcpy(lead->result + at, c->rec[0]->data + at, len);
        for (int64_t m = 1; m < n; m++)
            combine(lead->result + at, c->rec[m]->data + at, (int64_t)(len / elem));
        __atomic_fetch_add(&lead->combined, 1, __ATOMIC_RELEASE);
    }
    while (__atomic_load_n(&lead->combined, __ATOMIC_ACQUIRE) < lead->chunks)
        sched_yield();
}

static TransportStatus lockstep_allreduce(Transport *t, const TransportGroup *g, TransportReduction red,
                                          const void *send, void *recv, int64_t count)
{
    TransportCombineFn combine = transport_combine_fn(red);
    size_t elem = dtype_size(red.dtype), bytes = (size_t)count * elem;
    if (!combine)
        return TRANSPORT_UNSUPPORTED;
    if (!lockstep(t)->complete)
        return publish_allreduce(lockstep(t), g, send, bytes, NULL);
    GroupCall c = group_call(lockstep(t), g, bytes);
    if (c.status == TRANSPORT_OK && c.rec[0]->shared)
        c.status = TRANSPORT_MISMATCH; /* the first member called allreduce_shared */
    if (c.status == TRANSPORT_OK && bytes) {
        reduce_chunks(&c, g->size, combine, bytes, elem);
        memcpy(recv, c.rec[0]->result, bytes);
    }
    free(c.rec);
    return c.status;
}

/* The same reduction, into one tensor every member gets a reference to. */
static TransportStatus lockstep_allreduce_shared(Transport *t, const TransportGroup *g, TransportReduction red,
                                                 const Tensor *send, Tensor **result)
{
    TransportCombineFn combine = transport_combine_fn(red);
    size_t elem = dtype_size(red.dtype);
    if (!combine || red.dtype != send->dtype)
        return TRANSPORT_UNSUPPORTED;
    if (!lockstep(t)->complete)
        return publish_allreduce(lockstep(t), g, send->data, send->nbytes, send);
    GroupCall c = group_call(lockstep(t), g, send->nbytes);
    if (c.status == TRANSPORT_OK && !c.rec[0]->shared)
        c.status = TRANSPORT_MISMATCH; /* the first member called allreduce */
    if (c.status == TRANSPORT_OK) {
        if (send->nbytes)
            reduce_chunks(&c, g->size, combine, send->nbytes, elem);
        *result = tensor_retain(c.rec[0]->shared);
    }
    free(c.rec);
    return c.status;
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
    GroupCall c = group_call(lockstep(t), g, bytes);
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
    GroupCall c = group_call(lockstep(t), g, bytes);
    for (int64_t k = 0; c.status == TRANSPORT_OK && k < g->size; k++)
        memcpy((char *)recv + (size_t)k * chunk_bytes, c.rec[k]->data + chunk_bytes * (size_t)g->index,
               chunk_bytes);
    free(c.rec);
    return c.status;
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
