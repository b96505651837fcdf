/* Per-device versions of values, and reshards emitted as collectives. */
#include <string.h>
#include "shardc/partition_ctx.h"

bool pc_axes_same(const AxisList *a, const AxisList *b)
{
    AxisList ma = {0}, mb = {0};
    for (int i = 0; i < a->count; i++)
        axis_list_add_or_merge(&ma, a->axes[i], NULL);
    for (int i = 0; i < b->count; i++)
        axis_list_add_or_merge(&mb, b->axes[i], NULL);
    return axis_list_equal(&ma, &mb);
}

/* Whether dim axes `a` (n of them) and `b` are the same once sub-axes are
 * merged. (Called for every operand of every op: no AxisList copies when
 * the lists are equal as they are, the common case.) */
static bool dim_equal(const AxisRef *a, int n, const AxisList *b)
{
    bool same = n == b->count;
    for (int i = 0; same && i < n; i++)
        same = axis_ref_equal(a[i], b->axes[i]);
    if (same)
        return true;
    AxisList la = {.count = n};
    memcpy(la.axes, a, sizeof(AxisRef) * (size_t)n);
    return pc_axes_same(&la, b);
}

static bool version_has_layout(const LocalVersion *v, const DimAxes *want)
{
    if (v->rank != want->rank)
        return false;
    const AxisRef *axes = v->axes;
    for (int d = 0; d < v->rank; d++) {
        if (!dim_equal(axes, v->counts[d], &want->dims[d]))
            return false;
        axes += v->counts[d];
    }
    return true;
}

/* The version's layout as a DimAxes. */
static void version_layout(DimAxes *out, const LocalVersion *v)
{
    dim_axes_clear(out, v->rank);
    const AxisRef *axes = v->axes;
    for (int d = 0; d < v->rank; d++) {
        out->dims[d].count = v->counts[d];
        memcpy(out->dims[d].axes, axes, sizeof(AxisRef) * (size_t)v->counts[d]);
        axes += v->counts[d];
    }
}

void pc_layout_of(DimAxes *out, const Value *global)
{
    dim_axes_from_sharding(out, global->sharding, global->type.rank);
}

void pc_add_version(PartitionCtx *pc, const Value *global, Value *local, const DimAxes *layout)
{
    Arena *arena = &pc->tables; /* needed only while this function is partitioned */
    LocalVersion *v = ARENA_NEW(arena, LocalVersion);
    v->local = local;
    v->rank = layout->rank;
    int total = 0;
    for (int d = 0; d < layout->rank; d++)
        total += layout->dims[d].count;
    int *counts = ARENA_ARRAY(arena, int, layout->rank + 1);
    AxisRef *axes = ARENA_ARRAY(arena, AxisRef, total + 1);
    v->counts = counts;
    v->axes = axes;
    for (int d = 0; d < layout->rank; d++) {
        counts[d] = layout->dims[d].count;
        memcpy(axes, layout->dims[d].axes, sizeof(AxisRef) * (size_t)counts[d]);
        axes += counts[d];
    }
    LocalVersion **tail = &pc->versions[global->id];
    while (*tail)
        tail = &(*tail)->next;
    *tail = v;
}

Value *pc_find_version(PartitionCtx *pc, const Value *global, const DimAxes *want)
{
    LocalVersion *first = global->id < pc->num_global_values ? pc->versions[global->id] : NULL;
    for (LocalVersion *v = first; v; v = v->next)
        if (version_has_layout(v, want))
            return v->local;
    return NULL;
}

Value *pc_local_as(PartitionCtx *pc, const Value *global, const DimAxes *want, Loc loc)
{
    LocalVersion *first = global->id < pc->num_global_values ? pc->versions[global->id] : NULL;
    if (!first) {
        diag_error(pc->diag, loc, "internal: no per-device value for %%%s", global->name);
        pc->ok = false;
        return NULL;
    }
    Value *found = pc_find_version(pc, global, want);
    if (found)
        return found;
    DimAxes from;
    version_layout(&from, first);
    Value *local = pc_reshard(pc, first->local, &global->type, &from, NULL, REDUCE_SUM, want, global->name, loc);
    if (local)
        pc_add_version(pc, global, local, want);
    return local;
}

static const struct { OpKind kind; const char *suffix; } step_ops[] = {
    [STEP_ALL_SLICE] = {OP_ALL_SLICE, "slice"},
    [STEP_ALL_TO_ALL] = {OP_ALL_TO_ALL, "all_to_all"},
    [STEP_COLLECTIVE_PERMUTE] = {OP_COLLECTIVE_PERMUTE, "permute"},
    [STEP_ALL_GATHER] = {OP_ALL_GATHER, "all_gather"},
    [STEP_ALL_REDUCE] = {OP_ALL_REDUCE, "all_reduce"},
    [STEP_REDUCE_SCATTER] = {OP_REDUCE_SCATTER, "reduce_scatter"},
};

/* Bytes each device receives, with the bandwidth-optimal algorithm. */
static int64_t step_bytes(const ReshardStep *s, int64_t in_bytes, int64_t out_bytes)
{
    int64_t n = axis_list_size(&s->axes);
    switch (s->kind) {
    case STEP_ALL_SLICE: return 0;
    case STEP_ALL_GATHER: return out_bytes - in_bytes;
    case STEP_ALL_TO_ALL: case STEP_REDUCE_SCATTER: return in_bytes / n * (n - 1);
    case STEP_ALL_REDUCE: return 2 * (in_bytes / n) * (n - 1);
    case STEP_COLLECTIVE_PERMUTE: return in_bytes;
    }
    return 0;
}

static void set_step_attrs(PartitionCtx *pc, Op *op, const ReshardStep *s, const DimAxes *before,
                           ReductionKind reduction)
{
    if (s->kind != STEP_COLLECTIVE_PERMUTE)
        pc_set_attr(pc, op, "axes", pc_axes_attr(pc, &s->axes));
    switch (s->kind) {
    case STEP_ALL_SLICE: case STEP_REDUCE_SCATTER:
        pc_set_attr(pc, op, "dim", pc_int_attr(pc, s->dim));
        break;
    case STEP_ALL_GATHER:
        pc_set_attr(pc, op, "axis", pc_int_attr(pc, s->dim));
        pc_set_attr(pc, op, "tiled", pc_bool_attr(pc, true));
        break;
    case STEP_ALL_TO_ALL:
        pc_set_attr(pc, op, "split_axis", pc_int_attr(pc, s->dim));
        pc_set_attr(pc, op, "concat_axis", pc_int_attr(pc, s->src_dim));
        pc_set_attr(pc, op, "tiled", pc_bool_attr(pc, true));
        break;
    case STEP_COLLECTIVE_PERMUTE:
        pc_set_attr(pc, op, "source", pc_sharding_attr(pc, before));
        pc_set_attr(pc, op, "target", pc_sharding_attr(pc, &s->after));
        break;
    case STEP_ALL_REDUCE:
        break;
    }
    if (s->kind == STEP_ALL_REDUCE || s->kind == STEP_REDUCE_SCATTER)
        pc_set_attr(pc, op, "reduction", pc_string_attr(pc, reduction_name(reduction)));
}

Value *pc_emit_step(PartitionCtx *pc, Value *in, TensorType type, const TensorType *global, const ReshardStep *s,
                    const DimAxes *before, ReductionKind reduction, const char *base, Loc loc)
{
    if (s->kind == STEP_ALL_TO_ALL && s->num_moves > 1)
        return pc_emit_merged_all_to_all(pc, in, global, s, base, loc);
    char name[256];
    snprintf(name, sizeof name, "%s.%s", base, step_ops[s->kind].suffix);
    Op *op = pc_append_op(pc, step_ops[s->kind].kind, loc, &in, 1);
    Value *out = pc_new_value(pc, name, type, loc);
    out->def = op;
    op->num_results = 1;
    op->results = ARENA_ARRAY(&pc->module->arena, Value *, 1);
    op->results[0] = out;
    set_step_attrs(pc, op, s, before, reduction);
    int64_t bytes = step_bytes(s, pc_type_bytes(&in->type), pc_type_bytes(&type));
    pc_set_attr(pc, op, "bytes_per_device", pc_int_attr(pc, bytes));
    stats_record(pc->stats, &pc->module->arena,
                 (CollectiveRecord){op->kind, pc->mesh, s->axes, bytes, base, loc, out->name, pc->reason});
    return out;
}

bool pc_plan(PartitionCtx *pc, ReshardPlan *plan, const DimAxes *from, const AxisList *partial, const DimAxes *to,
             const char *base, Loc loc)
{
    if (reshard_plan(plan, pc->mesh, from, partial, to))
        return true;
    diag_error(pc->diag, loc, "cannot plan the reshard of %%%s (more than %d collectives)", base, RESHARD_MAX_STEPS);
    pc->ok = false;
    return false;
}

Value *pc_emit_plan(PartitionCtx *pc, Value *local, const TensorType *global, const ReshardPlan *plan,
                    const DimAxes *from, ReductionKind reduction, const char *base, Loc loc)
{
    pc->stats->full_replications += plan->full_replication;
    DimAxes before = *from;
    for (int i = 0; i < plan->num_steps; i++) {
        const ReshardStep *s = &plan->steps[i];
        local = pc_emit_step(pc, local, pc_local_type(pc, global, &s->after), global, s, &before, reduction, base,
                             loc);
        before = s->after;
    }
    return local;
}

Value *pc_reshard(PartitionCtx *pc, Value *local, const TensorType *global, const DimAxes *from,
                  const AxisList *partial, ReductionKind reduction, const DimAxes *to, const char *base, Loc loc)
{
    if (pc_layout_uneven(global, from) || pc_layout_uneven(global, to))
        return pc_reshard_uneven(pc, local, global, from, partial, reduction, to, base, loc);
    ReshardPlan plan;
    if (!pc_plan(pc, &plan, from, partial, to, base, loc))
        return NULL;
    return pc_emit_plan(pc, local, global, &plan, from, reduction, base, loc);
}
