/* Unreduced values (issue 16, JAX's P(unreduced=...)): a value may stay a
 * partial result across some mesh axes on purpose. The partitioner keeps
 * it partial through the ops that are linear in it and reduces it only
 * where a consumer needs it whole (docs/partitioning.md "Unreduced
 * axes"). */
#include <string.h>
#include "partition/partition_ctx.h"

void pc_unreduced_of(AxisList *out, const Sharding *s)
{
    out->count = 0;
    for (int k = 0; s && k < s->num_unreduced && k < AXIS_LIST_MAX; k++)
        out->axes[out->count++] = s->unreduced[k];
}

ReductionKind pc_unreduced_kind(const Sharding *s)
{
    if (!s)
        return REDUCE_SUM;
    return s->unreduced_op == UNREDUCED_MAX ? REDUCE_MAX : s->unreduced_op == UNREDUCED_MIN ? REDUCE_MIN : REDUCE_SUM;
}

void pc_axes_minus(AxisList *out, const AxisList *a, const AxisList *b)
{
    axis_list_minus(out, a, b);
}

/* Sum over the group of a value held by its first device alone is the
 * value; max and min of copies are the value already. */
Value *pc_replicated_to_unreduced(PartitionCtx *pc, Value *x, const AxisList *axes, ReductionKind combine, Loc loc)
{
    if (combine != REDUCE_SUM || !axes->count)
        return x;
    return pc_first_of_group(pc, x, axes, "unreduced", pc_printf(pc, "%s.unreduced", x->name), loc);
}

/* How an op's result depends on its operands' partial results: linear in
 * each (one operand: neg, data movement, reduce_sum), linear in all at once
 * (add, sub, concatenate: every operand partial over the same axes), or
 * bilinear (mul, einsum: one operand partial per axis). Max and min
 * partials pass only through data movement. */
typedef enum { LIN_NONE, LIN_EACH, LIN_SHARED, LIN_BILINEAR } Linearity;

static Linearity linearity(OpKind kind, ReductionKind combine)
{
    switch (kind) {
    case OP_RESHAPE: case OP_TRANSPOSE: case OP_SLICE: case OP_BROADCAST: case OP_REVERSE:
    case OP_SHARDING_CONSTRAINT: case OP_RESHARD: case OP_PROPAGATION_BARRIER:
        return LIN_EACH;
    case OP_CONCATENATE: return LIN_SHARED;
    default: break;
    }
    if (combine != REDUCE_SUM)
        return LIN_NONE;
    switch (kind) {
    case OP_NEG: case OP_REDUCE_SUM: return LIN_EACH;
    case OP_ADD: case OP_SUB: return LIN_SHARED;
    case OP_MUL: case OP_EINSUM: return LIN_BILINEAR;
    default: return LIN_NONE;
    }
}

void pc_operand_keeps(const Op *op, const AxisList *result, ReductionKind combine, const AxisList *partial,
                      const ReductionKind *kinds, AxisList *keep)
{
    Linearity lin = linearity(op->kind, combine);
    AxisList taken, shared;
    taken.count = shared.count = 0;
    for (int i = 0; i < op->num_operands; i++) {
        keep[i].count = 0;
        if (lin == LIN_NONE || kinds[i] != combine)
            continue;
        axis_list_intersect(&keep[i], &partial[i], result);
        if (lin == LIN_BILINEAR) { /* an axis partial in one operand only */
            axis_list_minus(&keep[i], &keep[i], &taken);
            axis_list_union(&taken, &keep[i]);
        }
        if (lin == LIN_SHARED)
            axis_list_union(&shared, &keep[i]);
    }
    /* add(x partial over a, y whole): y is made partial over a too. */
    for (int i = 0; lin == LIN_SHARED && i < op->num_operands; i++)
        keep[i] = shared;
}
