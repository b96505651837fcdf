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

Value *pc_sharded_to_unreduced(PartitionCtx *pc, Value *x, const TensorType *global, const DimAxes *layout,
                               const DimAxes *shed, Loc loc)
{
    DimAxes now = *layout;
    for (int d = 0; x && d < shed->rank; d++) {
        if (!shed->dims[d].count)
            continue;
        axis_list_minus(&now.dims[d], &layout->dims[d], &shed->dims[d]);
        Op *op;
        x = pc_emit1(pc, OP_SHARDED_TO_UNREDUCED, loc, &x, 1, pc_printf(pc, "%s.unreduced", x->name),
                     pc_local_type(pc, global, &now), &op);
        pc_set_attr(pc, op, ATTR_KEY_AXES, pc_axes_attr(pc, &shed->dims[d]));
        pc_set_attr(pc, op, ATTR_KEY_DIM, pc_int_attr(pc, d));
        pc_record_collective(pc, (CollectiveRecord){OP_SHARDED_TO_UNREDUCED, pc->mesh, shed->dims[d], 0, x->name,
                                                    loc, x->name, pc->reason, 0});
    }
    return x;
}

/* The axes a dim sharded `in` sheds to become `out`, when out's axes are
 * a strict prefix of in's (the rest of a split last axis, then the axes
 * after it); false when they are not. */
static bool shed_axes(AxisList *shed, const AxisList *in, const AxisList *out)
{
    shed->count = 0;
    if (!axis_list_strict_prefix(out, in))
        return false;
    int k = out->count;
    if (k && !axis_ref_equal(out->axes[k - 1], in->axes[k - 1])) {
        AxisRef whole = in->axes[k - 1];
        int64_t end = axis_ref_end(out->axes[k - 1]);
        shed->axes[shed->count++] = (AxisRef){whole.axis, end, axis_ref_end(whole) / end};
    }
    for (int i = k; i < in->count; i++)
        shed->axes[shed->count++] = in->axes[i];
    return true;
}

bool reshard_unreduced_split(const DimAxes *have, const DimAxes *want, const AxisList *added, DimAxes *tmp,
                             DimAxes *shed, AxisList *s2u)
{
    bool reshard = false;
    *tmp = *want;
    reshard_dim_axes_clear(shed, want->rank);
    s2u->count = 0;
    for (int d = 0; d < want->rank; d++) {
        if (axis_list_equal(&have->dims[d], &want->dims[d]))
            continue;
        AxisList left;
        bool sheds = shed_axes(&shed->dims[d], &have->dims[d], &want->dims[d]);
        axis_list_minus(&left, &shed->dims[d], added);
        if (!sheds || left.count) {
            shed->dims[d].count = 0;
            reshard = true;
            continue;
        }
        tmp->dims[d] = have->dims[d];
        for (int i = 0; i < shed->dims[d].count; i++)
            s2u->axes[s2u->count++] = shed->dims[d].axes[i];
    }
    return reshard;
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
