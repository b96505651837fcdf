/* Internals shared by the interpreter's files: the per-run plan, the
 * per-thread execution state and the op handlers. */
#ifndef SHARDC_INTERP_INTERNAL_H
#define SHARDC_INTERP_INTERNAL_H
#include <stdbool.h>
#include <stdint.h>
#include "shardc/interp.h"
#include "shardc/kernels.h"
#include "shardc/transport.h"

enum {
    INTERP_MAX_CALL_DEPTH = 64,   /* only recursion gets this deep */
    INTERP_MSG_SIZE = 640,
    INTERP_INLINE_TENSORS = 8,    /* operand/result arrays up to this live on the stack */
};

/* Computed once per run: when each value can be freed. */
typedef struct ExecPlan {
    int num_values, num_ops;
    int *release_start;   /* by op id, num_ops + 1 offsets into release_values */
    int *release_values;  /* value ids whose last use is that op */
    bool *dead_on_entry;  /* by value id: block arguments nobody uses */
} ExecPlan;

bool exec_plan_build(ExecPlan *plan, const Module *m);
void exec_plan_free(ExecPlan *plan);

/* Where a device thread sits: its mesh position among the devices running
 * the innermost shard_map, and how it reaches them. */
typedef struct DeviceCtx {
    const Mesh *mesh;
    int64_t position;
    int64_t device_id;
    const int64_t *active;      /* positions running this shard_map, ascending */
    int64_t num_active;
    int64_t active_index;       /* this device's entry in active */
    uint64_t manual_mask;       /* bit k: mesh axis k is manual here */
    Transport *transport;
} DeviceCtx;

/* One thread's interpreter state: the host's, or one device's. */
typedef struct ExecCtx {
    InterpCtx *ic;
    const Module *module;
    const ExecPlan *plan;
    TensorCtx tensors;              /* allocations are charged to this device (or the host) */
    const DeviceCtx *device;        /* NULL: global semantics */
    int call_depth;
    Tensor **env;                   /* the running block's values, by value id */
    InterpCollectiveStats collectives[OP_COUNT];
    /* In the lockstep engine's publish pass (exec_block_dry): an op's
     * results are thrown away, so a collective that can only sends. */
    bool publishing;
    /* The first failure: where and why. `secondary` marks failures caused
     * by another device's (an aborted transport), reported only if no root
     * cause is known. */
    bool failed, secondary;
    Loc loc;
    char msg[INTERP_MSG_SIZE];
} ExecCtx;

void exec_ctx_init(ExecCtx *x, InterpCtx *ic, const Module *m, const ExecPlan *plan, TensorAccounting *acct,
                   const DeviceCtx *device, int call_depth);
/* Record a failure at op (first one wins); returns false. */
bool exec_fail(ExecCtx *x, const Op *op, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A kernel's status: true if OK, else the kernel's message as a failure. */
bool exec_kernel(ExecCtx *x, const Op *op, TensorStatus status);
/* A failure caused by another device's (the transport was aborted). */
bool exec_fail_aborted(ExecCtx *x, const Op *op);
/* Fold a device's failure into x (prefixed with the device). */
void exec_adopt_failure(ExecCtx *x, const ExecCtx *device, int64_t device_id);

/* In a distributed run, whether x has global semantics on a process other
 * than the root, which holds no global values (they are NULL here). */
bool exec_host_absent(const ExecCtx *x);

/* Run a block: args are not consumed; results get new references. */
bool exec_block(ExecCtx *x, const Block *b, Tensor *const *args, Tensor **results);

/* Run a control-flow region (while, case) in the running block's values,
 * which it sees: args are not consumed; results get new references. */
bool exec_region(ExecCtx *x, const Block *b, Tensor *const *args, Tensor **results);
/* scatter with a region no kernel computes (reduce_region.c) */
bool exec_scatter_region(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out);

/* An op handler reads `in` (one per operand) and fills `out` (one per
 * result) with new references; on failure it leaves out NULL. */
typedef bool (*OpHandler)(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out);

/* The lockstep engine (lockstep.c) runs a block one op at a time on every
 * device: begin binds the arguments (not consumed) in a new environment,
 * step runs one op, dry runs an op's handler without keeping its results,
 * releasing anything or counting its traffic (a collective's publish pass),
 * end takes the results (new references, if ok) and frees the environment. */
OpHandler exec_op_handler(const Op *op);
bool exec_block_begin(ExecCtx *x, const Block *b, Tensor *const *args);
bool exec_block_step(ExecCtx *x, const Op *op);
bool exec_block_dry(ExecCtx *x, const Op *op);
bool exec_block_end(ExecCtx *x, const Block *b, bool ok, Tensor **results);

/* By op class (interp_ops.c, interp_call.c, interp_shard_map.c, collectives.c). */
bool exec_nullary(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out);
bool exec_unary(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out);
bool exec_convert(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out);
bool exec_binary(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out);
bool exec_compare(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out);
bool exec_select(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out);
bool exec_clamp(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out);
bool exec_reverse(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out);
bool exec_dynamic_slice(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out);
bool exec_dynamic_update_slice(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out);
bool exec_gather(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out);
bool exec_scatter(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out);
bool exec_convolution(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out);
bool exec_reduce_window(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out);
bool exec_select_and_scatter(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out);
bool exec_einsum(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out);
bool exec_reduce(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out);
bool exec_reduce_region(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out);
/* A new scalar tensor holding element i of t (reduce_region.c). */
bool exec_scalar_of(ExecCtx *x, const Op *op, const Tensor *t, int64_t i, Tensor **out);
/* sort with a comparator region (sort_region.c). */
bool exec_sort_region(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out);
bool exec_transpose(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out);
bool exec_reshape(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out);
bool exec_broadcast(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out);
bool exec_concatenate(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out);
bool exec_slice(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out);
bool exec_pad(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out);
bool exec_top_k(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out);
/* linalg.c */
bool exec_cholesky(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out);
bool exec_triangular_solve(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out);
bool exec_batch_norm(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out);
bool exec_lapack(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out);
bool exec_complex_part(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out);
bool exec_fft(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out);
bool exec_rng_bit_generator(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out); /* issue 18 (h33) */
bool exec_sort(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out);
bool exec_argmax(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out);
bool exec_identity(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out);
bool exec_nothing(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out);
bool exec_barrier(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out);
bool exec_named(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out);
bool exec_after_all(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out);
bool exec_while(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out);
bool exec_case(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out);
bool exec_call(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out);
bool exec_shard_map(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out);
bool exec_collective(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out);
bool exec_group_collective(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out);

/* Blocks of a sharding (interp_shard_map.c): how many blocks s cuts a value
 * into, and the row-major number of the block position p holds. Equal
 * numbers under two shardings with the same shard counts per dim mean the
 * same global block. */

/* Tensor reshuffles shared by the collectives (interp_ops.c). */
/* Move dim `from` of t to position `to`, keeping the others in order. */
bool interp_move_axis(ExecCtx *x, const Op *op, const Tensor *t, int from, int to, Tensor **out);
/* Give t, which the caller alone owns, the shape of `type` (same element
 * count): the row-major order is unchanged, so no data moves. */
bool interp_relabel(ExecCtx *x, const Op *op, Tensor *t, const TensorType *type);
/* Reshape t to `type`'s shape (same element count). */
bool interp_reshape_to(ExecCtx *x, const Op *op, const Tensor *t, const TensorType *type, Tensor **out);

#endif
