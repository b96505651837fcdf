/* How simulated devices talk: an abstract transport of byte buffers.
 *
 * The interpreter runs the devices of a shard_map concurrently and routes
 * every collective through a Transport, a table of function pointers. The
 * in-process implementation (src/transport/local.c) uses threads, one
 * barrier and one shared slot per device; an MPI implementation fills the
 * same table (allgather -> MPI_Allgather, allreduce -> MPI_Allreduce,
 * reduce_scatter -> MPI_Reduce_scatter_block, alltoall -> MPI_Alltoall,
 * sendrecv -> MPI_Sendrecv with MPI_PROC_NULL for "nobody").
 *
 * Endpoints are mesh positions (layout.h). Every endpoint taking part in a
 * run calls every operation, in the same order (the SPMD contract): group
 * operations combine data only within the caller's group, but all groups
 * enter them together. Reductions combine contributions in group-index
 * order, so every member gets bit-identical results whatever the
 * scheduling. Buffers are the caller's (a call's send and receive buffers
 * never overlap); the transport only copies. */
#ifndef SHARDC_TRANSPORT_H
#define SHARDC_TRANSPORT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "shardc/dtype.h"
#include "shardc/kernels.h"

typedef enum {
    TRANSPORT_OK = 0,
    TRANSPORT_ABORTED,  /* another endpoint failed and called abort */
    TRANSPORT_MISMATCH, /* endpoints disagree on sizes or on a send/receive pair */
    TRANSPORT_UNSUPPORTED, /* e.g. a reduction the element type has no meaning for */
    TRANSPORT_FAILED,   /* the transport itself failed (an MPI error, a timeout) */
} TransportStatus;

/* The caller's collective group: `size` members, the caller being member
 * `index`; members[k] is the endpoint of group index k. */
typedef struct TransportGroup {
    int64_t size;
    int64_t index;
    const int64_t *members;
} TransportGroup;

/* An elementwise reduction: RED_SUM, RED_MAX or RED_MIN over `dtype`
 * elements (max/min propagate NaN, like lax.max; bf16 and f16 round each step). */
typedef struct TransportReduction {
    DType dtype;
    ReduceOp op;
} TransportReduction;

/* A tensor's bytes cut along one dim into g->size equal blocks: `outer`
 * rows (the dims before it), each g->size runs of `inner` bytes (the dim's
 * n-th and the dims after it); block k is run k of every row. */
typedef struct TransportBlocks {
    size_t outer, inner;
} TransportBlocks;

typedef struct Transport Transport;

typedef struct TransportOps {
    const char *name;
    /* Wait until every endpoint of the run has arrived. */
    TransportStatus (*barrier)(Transport *t, int64_t self);
    /* recv = the members' `bytes`-byte sends, concatenated in group order. */
    TransportStatus (*allgather)(Transport *t, const TransportGroup *g, const void *send, size_t bytes,
                                 void *recv);
    /* recv = the reduction of the members' `count`-element sends. */
    TransportStatus (*allreduce)(Transport *t, const TransportGroup *g, TransportReduction red,
                                 const void *send, void *recv, int64_t count);
    /* send holds g->size blocks of recv_count elements; member k receives
     * the reduction of every member's block k. */
    TransportStatus (*reduce_scatter)(Transport *t, const TransportGroup *g, TransportReduction red,
                                      const void *send, void *recv, int64_t recv_count);
    /* send holds g->size chunks of chunk_bytes; chunk k goes to member k, and
     * recv chunk j is what member j sent to the caller. */
    TransportStatus (*alltoall)(Transport *t, const TransportGroup *g, const void *send,
                                size_t chunk_bytes, void *recv);
    /* Send `send_bytes` to endpoint dest and receive `recv_bytes` from
     * endpoint source at once; -1 means nobody. Pairs must match: if A's
     * dest is B then B's source is A. dest/source may be self. */
    TransportStatus (*sendrecv)(Transport *t, int64_t self, const void *send, size_t send_bytes,
                                int64_t dest, void *recv, size_t recv_bytes, int64_t source);
    /* Called by an endpoint that cannot continue: every pending and later
     * operation of every endpoint returns TRANSPORT_ABORTED. */
    void (*abort)(Transport *t);
    void (*destroy)(Transport *t);
    /* Optional (NULL: use allreduce): the reduction of the members' `send`
     * tensors (red.dtype, any shape, the same on every member) as one
     * tensor of send's shape every member gets a reference to (released by
     * the caller; result may be NULL in the lockstep publish pass, which
     * receives nothing), instead of a copy in each member's buffer. The
     * lockstep transport has it: its members share an address space and run
     * op by op. */
    TransportStatus (*allreduce_shared)(Transport *t, const TransportGroup *g, TransportReduction red,
                                        const Tensor *send, Tensor **result);
    /* Optional (NULL: use allgather, reduce_scatter, alltoall), the
     * lockstep transport's: the same collectives on the members' `send`
     * tensors read in place (each unchanged from its publish call until its
     * complete call returns), every result byte written once, into one
     * tensor for the whole group (rank 1, send's dtype) every member gets a
     * reference to (result NULL in the publish pass, as allreduce_shared).
     * Blocks are laid out as TransportBlocks says, so no caller transposes.
     *   allgather_shared: block k (`into`) of the group tensor is member k's send;
     *   reduce_scatter_shared: the group's g->size results in group order,
     *     member k's (send->count / g->size elements) the reduction of
     *     block k (`from`) of every send;
     *   alltoall_shared: the group's g->size results in group order, member
     *     k's (send->count elements) holding as its block j (`into`) block k
     *     (`from`) of member j's send. */
    TransportStatus (*allgather_shared)(Transport *t, const TransportGroup *g, const Tensor *send,
                                        TransportBlocks into, Tensor **result);
    TransportStatus (*reduce_scatter_shared)(Transport *t, const TransportGroup *g, TransportReduction red,
                                             const Tensor *send, TransportBlocks from, Tensor **result);
    TransportStatus (*alltoall_shared)(Transport *t, const TransportGroup *g, const Tensor *send,
                                       TransportBlocks from, TransportBlocks into, Tensor **result);
} TransportOps;

struct Transport {
    const TransportOps *ops;
    /* By endpoint: whether it runs in this process. NULL (the in-process
     * transport) means every endpoint does; a distributed transport (MPI)
     * sets it, and the shard_map runner starts only the local endpoints. */
    const bool *local;
};

const char *transport_status_name(TransportStatus status);

/* The in-process transport: endpoints 0..num_endpoints-1 (mesh positions),
 * of which num_participants threads take part. NULL if out of memory. */
Transport *transport_local_new(int64_t num_endpoints, int64_t num_participants);

/* The lockstep transport (src/transport/lockstep.c) of devices run as
 * data, one op at a time for all (src/interp/lockstep.c): the engine runs
 * a collective's calls of every endpoint twice, first after
 * transport_lockstep_pass(t, false) (each call records its send and
 * receives nothing: recv is not written and may be NULL), then after
 * transport_lockstep_pass(t, true) (each call reads its peers' records of
 * the same call). An all-reduce and the _shared calls record the send
 * buffer without copying it: the caller keeps that buffer unchanged from
 * its publish call until its complete call returns (the engine passes the
 * operand, which lives in the device's environment). No call waits for
 * another endpoint to arrive; such a complete call waits only for pieces
 * of its group's result other calls are writing. NULL if out of memory. */
Transport *transport_lockstep_new(int64_t num_endpoints);
void transport_lockstep_pass(Transport *t, bool complete);

/* The elementwise combine every transport applies, in group-index order:
 * acc[i] = acc[i] OP in[i] for n elements (bf16 and f16 in f32, rounded each step).
 * NULL if the reduction has no meaning for the element type. */
typedef void (*TransportCombineFn)(void *acc, const void *in, int64_t n);
TransportCombineFn transport_combine_fn(TransportReduction red);

/* ---- distributed runs (docs/distributed.md) --------------------------------- */

/* The processes of a distributed run (MPI ranks). Device d of a mesh runs
 * on process d; process 0, the root, holds the values with global semantics
 * and scatters and gathers the blocks of every top-level shard_map. Every
 * process walks the same program and calls every operation in the same
 * order. Statuses other than OK have been reported on stderr already. */
typedef struct TransportWorld TransportWorld;

typedef struct TransportWorldOps {
    const char *name;
    /* The transport of one run of a shard_map over num_endpoints mesh
     * positions, position p on process owner[p]; `active` (ascending) lists
     * the positions taking part. Every process calls it. NULL on failure. */
    Transport *(*open)(TransportWorld *w, const int64_t *owner, int64_t num_endpoints, const int64_t *active,
                       int64_t num_active);
    /* bytes[r] (by process, the same on every process) bytes for each
     * process r: the root's `send` holds the pieces in process order; each
     * process receives its own into `recv` (MPI_Scatterv). */
    TransportStatus (*scatter)(TransportWorld *w, const void *send, const size_t *bytes, void *recv);
    /* The reverse: each process sends bytes[rank] bytes of `send`; the
     * root's `recv` gets the pieces in process order (MPI_Gatherv). */
    TransportStatus (*gather)(TransportWorld *w, const void *send, const size_t *bytes, void *recv);
    /* The root's counts[i] become the sums over every process's counts[i]. */
    TransportStatus (*sum_to_root)(TransportWorld *w, int64_t *counts, int64_t n);
    /* Every process gets the root's `bytes` bytes of buf. */
    TransportStatus (*broadcast)(TransportWorld *w, void *buf, size_t bytes);
    /* This process failed and has printed why: tell the others, wait (a
     * bounded time) until they have printed why they stop, end the job. */
    void (*fail)(TransportWorld *w);
    /* The end of a successful run (every process calls it). */
    void (*close)(TransportWorld *w);
} TransportWorldOps;

struct TransportWorld {
    const TransportWorldOps *ops;
    int64_t rank, size;
};

/* Joins the MPI job (MPI_Init_thread): NULL, with a message in err, if this
 * shardc was built without MPI (make MPI=1) or MPI cannot start. Settings
 * from the environment: SHARDC_MPI_TIMEOUT (seconds a process waits in one
 * operation before it ends the job; default 600) and SHARDC_MPI_REDUCE
 * (`ordered`, the default: float reductions combine in group order, bit for
 * bit as in-process; `native`: MPI's own reductions). */
TransportWorld *transport_mpi_world_new(int *argc, char ***argv, char *err, size_t err_size);

#endif
