/* rng_bit_generator on local shapes (issue 18): the state is whole on
 * every device (its factor needs replication), the bits may be sharded.
 * Each device computes its own block of the global bits, as XLA's SPMD
 * partitioner has each shard compute its counters: the local op is told
 * the whole output's shape (global_shape) and its block's start, one i64
 * scalar per dim, axis_index * local size along sharded dims. The new
 * state is the global one on every device. */
#include "partition/partition_ctx.h"

static const TensorType scalar_i64 = {DT_I64, 0, NULL};

static Value *block_start(PartitionCtx *pc, const AxisList *axes, int64_t local_size, Loc loc)
{
    if (!axes->count)
        return pc_const_i64(pc, 0, "rng.start", loc);
    Op *op;
    Value *index = pc_emit1(pc, OP_AXIS_INDEX, loc, NULL, 0, "rng.shard", (TensorType){DT_I32, 0, NULL}, &op);
    pc_set_attr(pc, op, ATTR_KEY_AXES, pc_axes_attr(pc, axes));
    Value *shard = pc_emit1(pc, OP_CONVERT, loc, &index, 1, "rng.shard", scalar_i64, NULL);
    Value *size = pc_const_i64(pc, local_size, "rng.size", loc);
    return pc_emit1(pc, OP_MUL, loc, (Value *[]){shard, size}, 2, "rng.start", scalar_i64, NULL);
}

/* The operands of the per-device op: the state, then one start per dim
 * of the bits. False when no dim of the bits is sharded: the op is then
 * the whole one, as written. */
bool pc_rng_operands(PartitionCtx *pc, const Op *op, const DimAxes *bits_layout, Value **operands)
{
    const TensorType *bits = &op->results[1]->type;
    bool sharded = false;
    for (int d = 0; d < bits->rank; d++)
        sharded |= bits_layout->dims[d].count > 0;
    if (!sharded)
        return false;
    TensorType local = pc_local_type(pc, bits, bits_layout);
    for (int d = 0; d < bits->rank; d++)
        operands[1 + d] = block_start(pc, &bits_layout->dims[d], local.dims[d], op->loc);
    return true;
}
