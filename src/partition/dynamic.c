/* dynamic_update_slice along a sharded dim the update covers in part,
 * without gathering the operand (Shardy keeps that dim sharded): each
 * device pads its block by the update's size on both sides, writes the
 * update at its global start moved into the block's frame, and keeps the
 * middle. A start that misses the block is clamped into a padding side by
 * the op's own clamping, so the update lands only where it overlaps. */
#include "partition/partition_ctx.h"

static const TensorType scalar_i64 = {DT_I64, 0, NULL};

Value *pc_const_i64(PartitionCtx *pc, int64_t v, const char *name, Loc loc)
{
    Op *op;
    Value *r = pc_emit1(pc, OP_FULL, loc, NULL, 0, name, scalar_i64, &op);
    pc_set_attr(pc, op, ATTR_KEY_VALUE, pc_int_attr(pc, v));
    return r;
}

static Value *binary_i64(PartitionCtx *pc, OpKind kind, Value *a, Value *b, Loc loc)
{
    return pc_emit1(pc, kind, loc, (Value *[]){a, b}, 2, "dus.start", scalar_i64, NULL);
}

/* clamp(start, 0, size - update) - shard * block + update: the global
 * start (clamped as StableHLO does) in the frame of this device's block
 * of `block` elements, padded by `update` before it. */
static Value *block_start(PartitionCtx *pc, Value *start, int64_t size, int64_t update, int64_t block,
                          const AxisList *axes, Loc loc)
{
    Value *s = binary_i64(pc, OP_MAX, start, pc_const_i64(pc, 0, "dus.const", loc), loc);
    s = binary_i64(pc, OP_MIN, s, pc_const_i64(pc, size - update, "dus.const", loc), loc);
    Op *op;
    Value *index = pc_emit1(pc, OP_AXIS_INDEX, loc, NULL, 0, "dus.shard", (TensorType){DT_I32, 0, NULL}, &op);
    pc_set_attr(pc, op, ATTR_KEY_AXES, pc_axes_attr(pc, axes));
    Value *shard = pc_emit1(pc, OP_CONVERT, loc, &index, 1, "dus.shard", scalar_i64, NULL);
    Value *offset = binary_i64(pc, OP_MUL, shard, pc_const_i64(pc, block, "dus.const", loc), loc);
    s = binary_i64(pc, OP_SUB, s, offset, loc);
    return binary_i64(pc, OP_ADD, s, pc_const_i64(pc, update, "dus.const", loc), loc);
}

static bool updated_and_sharded(const Op *op, const DimAxes *layout, int d)
{
    return op->operands[0]->type.dims[d] != op->operands[1]->type.dims[d] && layout->dims[d].count > 0;
}

/* Pads the local operand by the update's size on each updated sharded
 * dim; `starts` become i64 start indices in the padded block's frame. */
static Value *pad_block(PartitionCtx *pc, const Op *op, Value **operands, const DimAxes *layout, Value **starts,
                        int64_t *low)
{
    const TensorType *x = &op->operands[0]->type, *local = &operands[0]->type;
    int64_t dims[SHARDC_MAX_RANK];
    for (int d = 0; d < x->rank; d++) {
        int64_t update = op->operands[1]->type.dims[d];
        starts[d] = pc_emit1(pc, OP_CONVERT, op->loc, &operands[2 + d], 1, "dus.start", scalar_i64, NULL);
        low[d] = updated_and_sharded(op, layout, d) ? update : 0;
        dims[d] = local->dims[d] + 2 * low[d];
        if (low[d])
            starts[d] = block_start(pc, starts[d], x->dims[d], update, local->dims[d], &layout->dims[d], op->loc);
    }
    Op *pad;
    Value *padded = pc_emit1(pc, OP_PAD, op->loc, operands, 1, "dus.pad",
                             type_make(&pc->module->arena, local->dtype, x->rank, dims), &pad);
    pc_set_attr(pc, pad, ATTR_KEY_LOW, pc_int_array_attr(pc, low, x->rank));
    pc_set_attr(pc, pad, ATTR_KEY_HIGH, pc_int_array_attr(pc, low, x->rank));
    pc_set_attr(pc, pad, ATTR_KEY_VALUE, pc_zero_attr(pc, local->dtype));
    return padded;
}

Op *pc_local_dynamic_update_slice(PartitionCtx *pc, const Op *op, Value **operands, const DimAxes *layout)
{
    const TensorType *x = &op->operands[0]->type, *local = &operands[0]->type;
    bool any = false;
    for (int d = 0; d < x->rank; d++)
        any |= updated_and_sharded(op, layout, d);
    if (!any)
        return NULL;
    Value *in[SHARDC_MAX_RANK + 2];
    int64_t low[SHARDC_MAX_RANK], limit[SHARDC_MAX_RANK];
    in[0] = pad_block(pc, op, operands, layout, in + 2, low);
    in[1] = operands[1];
    Value *updated = pc_emit1(pc, OP_DYNAMIC_UPDATE_SLICE, op->loc, in, 2 + x->rank, "dus.block", in[0]->type, NULL);
    for (int d = 0; d < x->rank; d++)
        limit[d] = low[d] + local->dims[d];
    Op *slice;
    pc_emit1(pc, OP_SLICE, op->loc, &updated, 1, op->results[0]->name, *local, &slice);
    pc_set_attr(pc, slice, ATTR_KEY_START, pc_int_array_attr(pc, low, x->rank));
    pc_set_attr(pc, slice, ATTR_KEY_LIMIT, pc_int_array_attr(pc, limit, x->rank));
    return slice;
}
