/* The lockstep transport: the devices of a shard_map run as data, one op
 * at a time for all of them (src/interp/lockstep.c), so a collective needs
 * no threads and no barriers. The engine runs a collective's handler for
 * every device twice: in the publish pass each endpoint's calls record what
 * it sends (a copy, in a buffer kept for the next op) and receive zeros; in
 * the complete pass each call reads its peers' records of the same call
 * (the k-th call of every endpoint matches the k-th of its peers, as the
 * SPMD contract orders them) and writes the caller's receive buffer. The
 * handlers are deterministic, so the complete pass sends what was published.
 *
 * Each pass may run the endpoints concurrently: publishing writes only the
 * caller's records, completing only reads them. Reductions combine in
 * group-index order, bit for bit as the in-process transport does. */
#include <stdlib.h>
#include <string.h>
#include "shardc/transport.h"

typedef struct Record {
    char *buf;
    size_t cap, bytes;
    int64_t dest;          /* sendrecv only */
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

static TransportStatus publish(LockstepTransport *lt, int64_t self, const void *send, size_t bytes, int64_t dest)
{
    Endpoint *e = &lt->endpoints[self];
    if (e->cursor == e->cap) {
        int64_t cap = e->cap ? 2 * e->cap : 4;
        Record *grown = realloc(e->records, (size_t)cap * sizeof *grown);
        if (!grown)
            return TRANSPORT_FAILED;
        memset(grown + e->cap, 0, (size_t)(cap - e->cap) * sizeof *grown);
        e->records = grown;
        e->cap = cap;
    }
    Record *r = &e->records[e->cursor++];
    if (r->cap < bytes || !r->buf) { /* never NULL: peers memcpy from it, even 0 bytes */
        char *buf = realloc(r->buf, bytes ? bytes : 1);
        if (!buf)
            return TRANSPORT_FAILED;
        r->buf = buf;
        r->cap = bytes ? bytes : 1;
    }
    if (bytes)
        memcpy(r->buf, send, bytes);
    r->bytes = bytes;
    r->dest = dest;
    e->num = e->cursor;
    return TRANSPORT_OK;
}

/* In the publish pass: record the send, receive zeros. Else NULL. */
static bool publishing(LockstepTransport *lt, int64_t self, const void *send, size_t bytes, int64_t dest,
                       void *recv, size_t recv_bytes, TransportStatus *status)
{
    if (lt->complete)
        return false;
    *status = publish(lt, self, send, bytes, dest);
    if (recv_bytes)
        memset(recv, 0, recv_bytes);
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
    if (publishing(lockstep(t), g->members[g->index], send, bytes, -1, recv, bytes * (size_t)g->size, &st))
        return st;
    GroupCall c = group_call(lockstep(t), g, bytes);
    for (int64_t k = 0; c.status == TRANSPORT_OK && k < g->size; k++)
        memcpy((char *)recv + (size_t)k * bytes, c.rec[k]->buf, bytes);
    free(c.rec);
    return c.status;
}

/* recv = the members' parts at offset, combined in group order. */
static void combine_parts(const GroupCall *c, int64_t n, TransportCombineFn combine, size_t offset, size_t bytes,
                          size_t elem, void *recv)
{
    memcpy(recv, c->rec[0]->buf + offset, bytes);
    for (int64_t k = 1; k < n; k++)
        combine(recv, c->rec[k]->buf + offset, (int64_t)(bytes / elem));
}

static TransportStatus lockstep_allreduce(Transport *t, const TransportGroup *g, TransportReduction red,
                                          const void *send, void *recv, int64_t count)
{
    TransportCombineFn combine = transport_combine_fn(red);
    size_t elem = dtype_size(red.dtype), bytes = (size_t)count * elem;
    TransportStatus st;
    if (!combine)
        return TRANSPORT_UNSUPPORTED;
    if (publishing(lockstep(t), g->members[g->index], send, bytes, -1, recv, bytes, &st))
        return st;
    GroupCall c = group_call(lockstep(t), g, bytes);
    if (c.status == TRANSPORT_OK && bytes)
        combine_parts(&c, g->size, combine, 0, bytes, elem, recv);
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
    if (publishing(lockstep(t), g->members[g->index], send, bytes, -1, recv, part, &st))
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
    if (publishing(lockstep(t), g->members[g->index], send, bytes, -1, recv, bytes, &st))
        return st;
    GroupCall c = group_call(lockstep(t), g, bytes);
    for (int64_t k = 0; c.status == TRANSPORT_OK && k < g->size; k++)
        memcpy((char *)recv + (size_t)k * chunk_bytes, c.rec[k]->buf + chunk_bytes * (size_t)g->index,
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
    if (publishing(lt, self, send, dest >= 0 ? send_bytes : 0, dest, recv, recv_bytes, &st))
        return st;
    int64_t call = next_call(lt, self);
    if (source < 0)
        return TRANSPORT_OK;
    const Record *r = record_of(lt, source, call);
    if (!r || r->dest != self || r->bytes != recv_bytes)
        return TRANSPORT_MISMATCH;
    memcpy(recv, r->buf, recv_bytes);
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
        for (int64_t k = 0; k < lt->endpoints[p].cap; k++)
            free(lt->endpoints[p].records[k].buf);
        free(lt->endpoints[p].records);
    }
    free(lt->endpoints);
    free(lt);
}

static const TransportOps lockstep_ops = {
    "lockstep", lockstep_barrier, lockstep_allgather, lockstep_allreduce, lockstep_reduce_scatter,
    lockstep_alltoall, lockstep_sendrecv, lockstep_abort, lockstep_destroy,
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
