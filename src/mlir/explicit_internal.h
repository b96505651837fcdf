/* What the explicit-reshard passes share (explicit_reshards.c,
 * explicit_single_device.c, reshard_collectives.c). */
#ifndef SHARDC_MLIR_EXPLICIT_INTERNAL_H
#define SHARDC_MLIR_EXPLICIT_INTERNAL_H
#include "shardc/ir.h"
#include "shardc/partition.h"
#include "shardc/rule.h"

/* A closed sharding with `axes` per dim on `mesh`. */
Sharding *mlir_closed_sharding(Module *m, const Mesh *mesh, const DimAxes *axes);
/* v's sharding, or through propagation barriers the one of their input
 * (Shardy's getShardingBypassingBarriers). */
Sharding *mlir_sharding_bypassing_barriers(const Value *v);
/* Shardy's sortAndMergeAxes: by mesh axis, then position; adjacent
 * sub-axes of one axis merged. */
void mlir_sort_and_merge_axes(AxisList *l);
/* insertAllReduceIfUnreducedToReplicated: the all-reduce of v over the
 * unreduced axes `target` does not keep, or v itself when there are none,
 * before `before` in b. */
Value *mlir_unreduced_all_reduce(Module *m, Block *b, Op *before, Value *v, const Sharding *target);
/* Shardy's insertUnreducedCollectives: v used where `target` is
 * unreduced over axes v is not (out = in + r2u + s2u): a reshard of the
 * dims that cannot stay, an sdy.replicated_to_unreduced over the new axes
 * no dim of v shards, an sdy.sharded_to_unreduced over those a dim sheds,
 * before `before` in b. Returns the last value, or NULL when v needs none. */
Value *mlir_unreduced_collectives(Module *m, Block *b, Op *before, Value *v, const Sharding *target);
/* What users of an unsharded value had: every dim closed and empty
 * (fully replicated, closed; rank 0 on a maximal mesh: its device). */
Sharding *mlir_closed_empty(Module *m, const Mesh *mesh, int rank);
/* A reshard of v to `to`, in no block yet. */
Op *mlir_new_reshard(Module *m, Value *v, Sharding *to);

/* ---- reshapes with overflow axes (explicit_reshape.c) ---- */

/* Shardy's processReshapeWithOverflowAxes for a reshape's two tensors
 * (shardings may be NULL): false when neither projects with overflow
 * axes; else the dim axes each tensor must have (want[0], want[1]) and
 * the axes per factor both agree on (common). */
bool mlir_reshape_overflow(DimAxes *want, AxisList *common, Arena *scratch, const OpShardingRule *rule,
                           const Mesh *mesh, Sharding *const *shardings, const TensorType *const *types);

/* ---- single-device operations (explicit_single_device.c) ---- */

/* Shardy's isSingleDeviceSharding: s is on a maximal mesh. */
bool mlir_single_device_sharding(const Sharding *s);
/* isSingleDeviceOperation: some result of op is on a maximal mesh. */
bool mlir_single_device_op(const Op *op);
/* processSingleDeviceOperation on such an op: its operands resharded to
 * its device, its results back. False after an error (results on
 * different devices). */
bool mlir_explicit_single_device(Module *m, Op *op, DiagEngine *diag);
/* False after an error when an argument or result of fn is on a maximal mesh. */
bool mlir_no_single_device_boundary(const Func *fn, DiagEngine *diag);

#endif
