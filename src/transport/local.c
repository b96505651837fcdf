/* The in-process transport: the devices are threads of one process.
 *
 * Every operation follows one pattern: each endpoint publishes what it
 * sends in its own slot, all wait at the barrier, each reads what it needs
 * from its peers' slots into its own buffer, and all wait again so that no
 * sender reuses a buffer a peer is still reading. The all-reduce has one
 * more step: each member first combines its 1/n slice of every send into
 * its own recv (a reduce-scatter), then stores it into its peers' recvs
 * (or, if a recv overlaps a send, copies the other slices from its peers'
 * recvs after a second barrier: an all-gather), so the n members move
 * 2(n-1)/n of the vector each instead of reading all n sends. The barrier can be
 * aborted, so one failing device never leaves the others waiting forever.
 * Everything lives in the transport object; there is no global state. */
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "shardc/checked.h"
#include "shardc/tensor.h"
#include "shardc/transport.h"

typedef struct LocalSlot {
    const void *send;
    const void *recv;   /* all-reduce: where the member's combined slice is */
    size_t bytes;
    int64_t dest;       /* sendrecv only */
} LocalSlot;

/* A barrier among some endpoints. The group operations meet at their
 * group's barrier, not at everyone's: devices that took different branches
 * or trip counts of a per-device `case` or `while` only ever wait for
 * peers that run the same collectives (a group's members agree on the
 * control flow that leads to it), so neither waits for a device that never
 * comes nor meets a device at a different collective. */
typedef struct LocalBarrier {
    struct LocalBarrier *next;
    int64_t size, arrived;
    uint64_t generation;
    int64_t *members;   /* ascending; NULL for everyone's */
} LocalBarrier;

typedef struct LocalTransport {
    Transport base;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    LocalBarrier all;     /* every participant: barrier and sendrecv */
    LocalBarrier *groups; /* made at a group's first operation */
    bool aborted;
    int64_t num_endpoints;
    LocalSlot *slots;   /* by endpoint */
} LocalTransport;

const char *transport_status_name(TransportStatus status)
{
    static const char *const names[] = {"ok", "aborted by another device",
                                        "devices disagree on the exchange", "unsupported reduction",
                                        "the transport failed (see the message above)"};
    return (unsigned)status < sizeof names / sizeof names[0] ? names[status] : "unknown";
}

/* ---- barrier ------------------------------------------------------------- */

/* Before blocking on the condition variable a waiter yields the CPU a few
 * times: with more devices than cores the peers it waits for get to run,
 * and most barriers complete without a futex sleep and wake-up. */
enum { BARRIER_YIELDS = 64 };

static void local_abort(Transport *t);

static bool barrier_passed(LocalTransport *lt, LocalBarrier *b, uint64_t generation)
{
    return __atomic_load_n(&b->generation, __ATOMIC_ACQUIRE) != generation ||
           __atomic_load_n(&lt->aborted, __ATOMIC_ACQUIRE);
}

static int cmp_endpoint(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static bool barrier_is_group(const LocalBarrier *b, const TransportGroup *g)
{
    if (b->size != g->size)
        return false;
    for (int64_t k = 0; k < g->size; k++)
        if (!bsearch(&g->members[k], b->members, (size_t)b->size, sizeof *b->members, cmp_endpoint))
            return false;
    return true;
}

/* The barrier of g's members (whatever their order), made at the group's
 * first operation; NULL when out of memory. Called with the lock held. */
static LocalBarrier *group_barrier(LocalTransport *lt, const TransportGroup *g)
{
    for (LocalBarrier *b = lt->groups; b; b = b->next)
        if (barrier_is_group(b, g))
            return b;
    LocalBarrier *b = calloc(1, sizeof *b);
    int64_t *members = b ? malloc((size_t)g->size * sizeof *members) : NULL;
    if (!members) {
        free(b);
        return NULL;
    }
    memcpy(members, g->members, (size_t)g->size * sizeof *members);
    qsort(members, (size_t)g->size, sizeof *members, cmp_endpoint);
    *b = (LocalBarrier){lt->groups, g->size, 0, 0, members};
    lt->groups = b;
    return b;
}

/* OK once every member of g (every participant if g is NULL) arrived;
 * ABORTED if abort came first. */
static TransportStatus local_barrier_wait(LocalTransport *lt, const TransportGroup *g)
{
    pthread_mutex_lock(&lt->lock);
    LocalBarrier *b = g ? group_barrier(lt, g) : &lt->all;
    if (!b) {
        pthread_mutex_unlock(&lt->lock);
        local_abort(&lt->base);
        return TRANSPORT_FAILED;
    }
    uint64_t generation = b->generation;
    bool last = !lt->aborted && ++b->arrived == b->size;
    if (last) {
        b->arrived = 0;
        __atomic_store_n(&b->generation, generation + 1, __ATOMIC_RELEASE);
        pthread_cond_broadcast(&lt->cond);
    }
    pthread_mutex_unlock(&lt->lock);
    for (int i = 0; !last && i < BARRIER_YIELDS && !barrier_passed(lt, b, generation); i++)
        sched_yield();
    if (last || __atomic_load_n(&b->generation, __ATOMIC_ACQUIRE) != generation)
        return TRANSPORT_OK;
    pthread_mutex_lock(&lt->lock);
    while (!lt->aborted && generation == b->generation)
        pthread_cond_wait(&lt->cond, &lt->lock);
    TransportStatus status = generation != b->generation ? TRANSPORT_OK : TRANSPORT_ABORTED;
    pthread_mutex_unlock(&lt->lock);
    return status;
}

static void local_abort(Transport *t)
{
    LocalTransport *lt = (LocalTransport *)t;
    pthread_mutex_lock(&lt->lock);
    __atomic_store_n(&lt->aborted, true, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&lt->cond);
    pthread_mutex_unlock(&lt->lock);
}

static TransportStatus local_barrier(Transport *t, int64_t self)
{
    (void)self;
    return local_barrier_wait((LocalTransport *)t, NULL);
}

/* Publish, wait, read the peers through `read`, wait again. A failing read
 * aborts the run: the peers are (or will be) at the second barrier. */
typedef TransportStatus (*ReadPeers)(LocalTransport *lt, void *job);

static TransportStatus local_exchange(LocalTransport *lt, const TransportGroup *g, int64_t self, LocalSlot mine,
                                      ReadPeers read, void *job)
{
    lt->slots[self] = mine;
    TransportStatus status = local_barrier_wait(lt, g);
    if (status != TRANSPORT_OK)
        return status;
    status = read(lt, job);
    if (status != TRANSPORT_OK) {
        local_abort(&lt->base);
        return status;
    }
    return local_barrier_wait(lt, g);
}

/* ---- elementwise reductions ---------------------------------------------------- */

/* acc = op(acc, in) over n elements. The restrict pointers and the blocked
 * TENSOR_VECTOR_LOOP (include/shardc/tensor.h) let GCC's -O2 vectorise the
 * loop; the elementwise order of operations is that of a plain loop. */
typedef void (*CombineFn)(void *restrict acc, const void *restrict in, int64_t n);

/* max/min propagate NaN from either side (if a is not NaN and b is, a > b
 * is false and b is taken); written without && or || so that the loop has
 * no control flow and vectorises. */
#define NAN_AWARE_MAX(a, b) ((((a) > (b)) | ((a) != (a))) ? (a) : (b))
#define NAN_AWARE_MIN(a, b) ((((a) < (b)) | ((a) != (a))) ? (a) : (b))
#define SUM(a, b) ((a) + (b))

#define COMBINE_NATIVE(T, NAME, EXPR)                                                 \
    static void combine_##NAME##_##T(void *restrict acc, const void *restrict in, int64_t n) \
    {                                                                                 \
        T *restrict a = acc;                                                          \
        const T *restrict b = in;                                                     \
        TENSOR_VECTOR_LOOP(n, { a[i] = EXPR(a[i], b[i]); });                          \
    }
#define COMBINE_ALL(T) COMBINE_NATIVE(T, sum, SUM) COMBINE_NATIVE(T, max, NAN_AWARE_MAX) \
    COMBINE_NATIVE(T, min, NAN_AWARE_MIN)

COMBINE_ALL(float)
COMBINE_ALL(double)
COMBINE_ALL(uint32_t)
COMBINE_ALL(uint64_t)

/* Signed sums wrap, as the kernels' do (elementwise.c): added as unsigned,
 * since signed overflow is undefined (UBSan; found by fuzz_run). */
#define WRAP32_SUM(a, b) ((int32_t)((uint32_t)(a) + (uint32_t)(b)))
#define WRAP64_SUM(a, b) ((int64_t)((uint64_t)(a) + (uint64_t)(b)))
COMBINE_NATIVE(int32_t, sum, WRAP32_SUM)
COMBINE_NATIVE(int32_t, max, NAN_AWARE_MAX)
COMBINE_NATIVE(int32_t, min, NAN_AWARE_MIN)
COMBINE_NATIVE(int64_t, sum, WRAP64_SUM)
COMBINE_NATIVE(int64_t, max, NAN_AWARE_MAX)
COMBINE_NATIVE(int64_t, min, NAN_AWARE_MIN)

/* int8_t sums are computed in int: store them back wrapped. */
#define WRAP8_SUM(a, b) ((int8_t)(uint8_t)((a) + (b)))
COMBINE_NATIVE(int8_t, sum, WRAP8_SUM)
COMBINE_NATIVE(int8_t, max, NAN_AWARE_MAX)
COMBINE_NATIVE(int8_t, min, NAN_AWARE_MIN)

/* bf16 and f16 are combined in f32 and rounded back each step, like the
 * kernels. */
#define COMBINE_HALF(H, NAME, EXPR)                                                   \
    static void combine_##NAME##_##H(void *restrict acc, const void *restrict in, int64_t n) \
    {                                                                                 \
        uint16_t *restrict a = acc;                                                   \
        const uint16_t *restrict b = in;                                              \
        TENSOR_VECTOR_LOOP(n, { a[i] = f32_to_##H(EXPR(H##_to_f32(a[i]), H##_to_f32(b[i]))); }); \
    }
#define COMBINE_HALF_ALL(H) COMBINE_HALF(H, sum, SUM) COMBINE_HALF(H, max, NAN_AWARE_MAX) \
    COMBINE_HALF(H, min, NAN_AWARE_MIN)
COMBINE_HALF_ALL(bf16)
COMBINE_HALF_ALL(f16)

/* bool: sum and max are "or", min is "and" (as kern_reduce). */
#define BOOL_OR(a, b) ((uint8_t)((a) | (b)))
#define BOOL_AND(a, b) ((uint8_t)((a) & (b)))
COMBINE_NATIVE(uint8_t, or, BOOL_OR)
COMBINE_NATIVE(uint8_t, and, BOOL_AND)

/* Complex numbers are summed only (the verifier refuses pmax, pmin and
 * max/min reductions of them): no ordering. */
typedef float _Complex TransportC64;
typedef double _Complex TransportC128;
COMBINE_NATIVE(TransportC64, sum, SUM)
COMBINE_NATIVE(TransportC128, sum, SUM)

#define COMBINE_ROW(T) {[RED_SUM] = combine_sum_##T, [RED_MAX] = combine_max_##T, [RED_MIN] = combine_min_##T}
static const CombineFn combine_fns[DT_COUNT][RED_COUNT] = {
    [DT_F32] = COMBINE_ROW(float),  [DT_F64] = COMBINE_ROW(double),   [DT_BF16] = COMBINE_ROW(bf16),
    [DT_F16] = COMBINE_ROW(f16),    [DT_I8] = COMBINE_ROW(int8_t),    [DT_I32] = COMBINE_ROW(int32_t),
    [DT_I64] = COMBINE_ROW(int64_t), [DT_U32] = COMBINE_ROW(uint32_t), [DT_U64] = COMBINE_ROW(uint64_t),
    [DT_C64] = {[RED_SUM] = combine_sum_TransportC64}, [DT_C128] = {[RED_SUM] = combine_sum_TransportC128},
    [DT_BOOL] = {[RED_SUM] = combine_or_uint8_t, [RED_MAX] = combine_or_uint8_t, [RED_MIN] = combine_and_uint8_t},
};

static CombineFn combine_fn(TransportReduction red)
{
    if ((unsigned)red.dtype >= DT_COUNT || (unsigned)red.op >= RED_COUNT)
        return NULL;
    return combine_fns[red.dtype][red.op];
}

/* ---- group operations ------------------------------------------------------------- */

/* Combining runs through a stack block that stays in L1: the block of
 * every member's part, in group order, then one store. */
enum { COMBINE_BLOCK_BYTES = 8192 };

typedef struct GroupJob {
    const TransportGroup *group;
    size_t bytes;          /* what each member published */
    size_t offset, length; /* the part of each member's send to read */
    void *recv;
    size_t recv_stride;    /* distance between members' parts in recv; 0 to combine */
    CombineFn combine;
    size_t elem;           /* element size, when combining */
} GroupJob;

static bool group_sizes_match(const LocalTransport *lt, const TransportGroup *g, size_t bytes)
{
    for (int64_t k = 0; k < g->size; k++)
        if (lt->slots[g->members[k]].bytes != bytes)
            return false;
    return true;
}

/* dst[0, length) = the members' sends at [offset, offset + length),
 * combined in group-index order: every member gets the same bits. */
static void combine_range(const LocalTransport *lt, const GroupJob *job, size_t offset, size_t length, char *dst)
{
    _Alignas(64) char acc[COMBINE_BLOCK_BYTES];
    size_t step = COMBINE_BLOCK_BYTES / job->elem * job->elem;
    for (size_t done = 0; done < length; done += step) {
        size_t len = length - done < step ? length - done : step;
        const TransportGroup *g = job->group;
        memcpy(acc, (const char *)lt->slots[g->members[0]].send + offset + done, len);
        for (int64_t k = 1; k < g->size; k++)
            job->combine(acc, (const char *)lt->slots[g->members[k]].send + offset + done,
                         (int64_t)(len / job->elem));
        memcpy(dst + done, acc, len);
    }
}

/* Copy (or combine, in group order) a part of every member's send. */
static TransportStatus read_group(LocalTransport *lt, void *arg)
{
    GroupJob *job = arg;
    if (!group_sizes_match(lt, job->group, job->bytes))
        return TRANSPORT_MISMATCH;
    if (job->combine) {
        combine_range(lt, job, job->offset, job->length, job->recv);
        return TRANSPORT_OK;
    }
    for (int64_t k = 0; k < job->group->size; k++) {
        const char *part = (const char *)lt->slots[job->group->members[k]].send + job->offset;
        memcpy((char *)job->recv + (size_t)k * job->recv_stride, part, job->length);
    }
    return TRANSPORT_OK;
}

static int64_t group_self(const TransportGroup *g)
{
    return g->members[g->index];
}

static TransportStatus local_allgather(Transport *t, const TransportGroup *g, const void *send, size_t bytes,
                                       void *recv)
{
    GroupJob job = {g, bytes, 0, bytes, recv, bytes, NULL, 0};
    return local_exchange((LocalTransport *)t, g, group_self(g), (LocalSlot){send, NULL, bytes, -1}, read_group,
                          &job);
}

/* ---- all-reduce: reduce-scatter, then all-gather ------------------------------------ */

/* Below this size every member combines the whole vector in phase 1 and
 * phase 2 copies nothing (slicing saved nothing measurable there; from
 * 16 KiB on it is faster). The number of barriers depends only on what
 * every member sees alike (the slots, the size), so members never disagree
 * on it. */
enum { ALLREDUCE_DIRECT_BYTES = 16384 };

typedef struct AllReduceJob {
    GroupJob group;
    int64_t count;
    bool direct;
} AllReduceJob;

/* Member k's slice of the vector, in whole 64-byte lines (all of it when
 * direct and k is the caller, nothing for the others). */
static void slice_of(const AllReduceJob *job, int64_t k, size_t *offset, size_t *length)
{
    const TransportGroup *g = job->group.group;
    int64_t elem = (int64_t)job->group.elem, line = elem < 64 ? 64 / elem : 1;
    int64_t per = size_ceil_div(job->count, g->size);
    per = size_ceil_div(per, line) * line;
    int64_t lo = k * per < job->count ? k * per : job->count;
    int64_t hi = (k + 1) * per < job->count ? (k + 1) * per : job->count;
    if (job->direct) {
        lo = 0;
        hi = k == g->index ? job->count : 0;
    }
    *offset = (size_t)(lo * elem);
    *length = (size_t)((hi - lo) * elem);
}

/* Phase 1: combine the caller's slice of every member's send into the
 * caller's recv (each member combines 1/n of the vector). */
static TransportStatus allreduce_scatter(LocalTransport *lt, AllReduceJob *job)
{
    const TransportGroup *g = job->group.group;
    if (!group_sizes_match(lt, g, job->group.bytes))
        return TRANSPORT_MISMATCH;
    size_t offset, length;
    slice_of(job, g->index, &offset, &length);
    combine_range(lt, &job->group, offset, length, (char *)job->group.recv + offset);
    return TRANSPORT_OK;
}

/* Phase 2: copy every other member's combined slice from its recv. */
static void allreduce_gather(LocalTransport *lt, const AllReduceJob *job)
{
    const TransportGroup *g = job->group.group;
    for (int64_t k = 0; k < g->size; k++) {
        size_t offset, length;
        slice_of(job, k, &offset, &length);
        if (k != g->index && length)
            memcpy((char *)job->group.recv + offset, (const char *)lt->slots[g->members[k]].recv + offset,
                   length);
    }
}

/* Whether no member's recv overlaps any member's send: then each member
 * may store its combined slice straight into every recv while the others
 * still read the sends, and the gather's barrier goes (two barriers, not
 * three: at 64 KiB on 8 threads and 2 cores the barriers are the cost).
 * Every member sees the same slots, so all choose alike. */
static bool recvs_apart(const LocalTransport *lt, const TransportGroup *g, size_t bytes)
{
    for (int64_t k = 0; k < g->size; k++)
        for (int64_t j = 0; j < g->size; j++) {
            const char *r = lt->slots[g->members[k]].recv, *s = lt->slots[g->members[j]].send;
            if (r < s + bytes && s < r + bytes)
                return false;
        }
    return true;
}

/* Phase 1 when recvs_apart: the caller's combined slice goes to every
 * member's recv. */
static void allreduce_push(LocalTransport *lt, const AllReduceJob *job)
{
    const TransportGroup *g = job->group.group;
    size_t offset, length;
    slice_of(job, g->index, &offset, &length);
    const char *mine = (const char *)job->group.recv + offset;
    for (int64_t k = 0; k < g->size && length && !job->direct; k++)
        if (k != g->index)
            memcpy((char *)lt->slots[g->members[k]].recv + offset, mine, length);
}

static TransportStatus local_allreduce(Transport *t, const TransportGroup *g, TransportReduction red,
                                       const void *send, void *recv, int64_t count)
{
    LocalTransport *lt = (LocalTransport *)t;
    CombineFn combine = combine_fn(red);
    size_t elem = dtype_size(red.dtype), bytes = (size_t)count * elem;
    if (!combine) {
        local_abort(t);
        return TRANSPORT_UNSUPPORTED;
    }
    AllReduceJob job = {{g, bytes, 0, bytes, recv, 0, combine, elem}, count, bytes < ALLREDUCE_DIRECT_BYTES};
    lt->slots[group_self(g)] = (LocalSlot){send, recv, bytes, -1};
    TransportStatus status = local_barrier_wait(lt, g);
    if (status != TRANSPORT_OK)
        return status;
    if ((status = allreduce_scatter(lt, &job)) != TRANSPORT_OK) {
        local_abort(t);
        return status;
    }
    if (recvs_apart(lt, g, bytes)) {
        allreduce_push(lt, &job);
        return local_barrier_wait(lt, g);
    }
    if ((status = local_barrier_wait(lt, g)) != TRANSPORT_OK)
        return status;
    allreduce_gather(lt, &job);
    return local_barrier_wait(lt, g);
}

static TransportStatus local_reduce_scatter(Transport *t, const TransportGroup *g, TransportReduction red,
                                            const void *send, void *recv, int64_t recv_count)
{
    CombineFn combine = combine_fn(red);
    size_t elem = dtype_size(red.dtype), part = (size_t)recv_count * elem;
    GroupJob job = {g, part * (size_t)g->size, part * (size_t)g->index, part, recv, 0, combine, elem};
    if (!combine) {
        local_abort(t);
        return TRANSPORT_UNSUPPORTED;
    }
    return local_exchange((LocalTransport *)t, g, group_self(g), (LocalSlot){send, recv, job.bytes, -1}, read_group,
                          &job);
}

static TransportStatus local_alltoall(Transport *t, const TransportGroup *g, const void *send,
                                      size_t chunk_bytes, void *recv)
{
    size_t bytes = chunk_bytes * (size_t)g->size;
    GroupJob job = {g, bytes, chunk_bytes * (size_t)g->index, chunk_bytes, recv, chunk_bytes, NULL, 0};
    return local_exchange((LocalTransport *)t, g, group_self(g), (LocalSlot){send, recv, bytes, -1}, read_group,
                          &job);
}

/* ---- point to point ---------------------------------------------------------------- */

typedef struct PairJob {
    int64_t self, source;
    void *recv;
    size_t recv_bytes;
} PairJob;

static TransportStatus read_pair(LocalTransport *lt, void *arg)
{
    PairJob *job = arg;
    if (job->source < 0)
        return TRANSPORT_OK;
    if (job->source >= lt->num_endpoints)
        return TRANSPORT_MISMATCH;
    const LocalSlot *slot = &lt->slots[job->source];
    if (slot->dest != job->self || slot->bytes != job->recv_bytes)
        return TRANSPORT_MISMATCH;
    memcpy(job->recv, slot->send, job->recv_bytes);
    return TRANSPORT_OK;
}

static TransportStatus local_sendrecv(Transport *t, int64_t self, const void *send, size_t send_bytes,
                                      int64_t dest, void *recv, size_t recv_bytes, int64_t source)
{
    PairJob job = {self, source, recv, recv_bytes};
    return local_exchange((LocalTransport *)t, NULL, self, (LocalSlot){send, NULL, send_bytes, dest}, read_pair,
                          &job);
}

/* ---- lifetime -------------------------------------------------------------------- */

static void local_destroy(Transport *t)
{
    LocalTransport *lt = (LocalTransport *)t;
    if (!lt)
        return;
    pthread_cond_destroy(&lt->cond);
    pthread_mutex_destroy(&lt->lock);
    for (LocalBarrier *b = lt->groups, *next; b; b = next) {
        next = b->next;
        free(b->members);
        free(b);
    }
    free(lt->slots);
    free(lt);
}

static const TransportOps local_ops = {
    "local", local_barrier, local_allgather, local_allreduce, local_reduce_scatter,
    local_alltoall, local_sendrecv, local_abort, local_destroy, NULL, NULL, NULL, NULL,
};

Transport *transport_local_new(int64_t num_endpoints, int64_t num_participants)
{
    if (num_endpoints < 1 || num_participants < 1)
        return NULL;
    LocalTransport *lt = calloc(1, sizeof *lt);
    if (!lt)
        return NULL;
    lt->slots = calloc((size_t)num_endpoints, sizeof *lt->slots);
    if (!lt->slots) {
        free(lt);
        return NULL;
    }
    lt->base.ops = &local_ops;
    lt->all.size = num_participants;
    lt->num_endpoints = num_endpoints;
    pthread_mutex_init(&lt->lock, NULL);
    pthread_cond_init(&lt->cond, NULL);
    return &lt->base;
}

/* ---- shared with the other transports ------------------------------------------------------ */

TransportCombineFn transport_combine_fn(TransportReduction red)
{
    return combine_fn(red);
}
