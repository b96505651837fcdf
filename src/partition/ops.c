/* Partitioning one op by its sharding rule: choose the factors' axes,
 * reshard operands to them, run the op on local shapes, then reduce
 * partial results and reshard results to their propagated shardings. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "shardc/ir_clone.h"
#include "partition/partition_ctx.h"
#include "shardc/gather.h"
#include "shardc/rules.h"

static ReductionKind op_reduction(const Op *op)
{
    const char *c = op->kind == OP_SCATTER ? op_scatter_combiner(op) : NULL;
    if (c)
        return strcmp(c, "max") == 0 ? REDUCE_MAX : strcmp(c, "min") == 0 ? REDUCE_MIN : REDUCE_SUM;
    switch (op->kind) {
    case OP_REDUCE_MAX: return REDUCE_MAX;
    case OP_REDUCE_MIN: return REDUCE_MIN;
    case OP_REDUCE_MEAN: return REDUCE_MEAN;
    default: return REDUCE_SUM;
    }
}

/* Axes of sharded reduction factors: the op leaves partial results there. */
static void partial_axes(AxisList *out, const OpShardingRule *rule, const AxisList *assignment)
{
    out->count = 0;
    for (int f = 0; f < rule->num_factors; f++)
        if (rule->factors[f].kind == FACTOR_REDUCTION)
            for (int i = 0; i < assignment[f].count && out->count < AXIS_LIST_MAX; i++)
                out->axes[out->count++] = assignment[f].axes[i];
}

/* A slice of a sharded dim is a whole-dim slice (the rule only shards
 * unsliced dims): its limit becomes the local size. */
static void localize_slice(PartitionCtx *pc, Op *local)
{
    const AttrValue *limit = op_attr_get(local, ATTR_KEY_LIMIT);
    AttrValue *copy = attr_new(&pc->module->arena, ATTR_ARRAY, limit->loc);
    copy->u.array.count = limit->u.array.count;
    copy->u.array.items = ARENA_ARRAY(&pc->module->arena, AttrValue *, limit->u.array.count + 1);
    for (int d = 0; d < limit->u.array.count; d++) {
        int64_t local_dim = local->operands[0]->type.dims[d];
        copy->u.array.items[d] = local_dim < limit->u.array.items[d]->u.i ? pc_int_attr(pc, local_dim)
                                                                           : limit->u.array.items[d];
    }
    pc_set_attr(pc, local, ATTR_KEY_LIMIT, copy);
}

/* iota along a sharded dim: each device adds its shard's offset,
 * axis_index * local size, computed in the iota's type, or in i32 and
 * converted if that type cannot hold the size (i8 past 127). Integer
 * arithmetic wraps, so both agree with the global iota modulo the type's
 * width. */
static Value *localize_iota(PartitionCtx *pc, Op *local, const DimAxes *layout)
{
    int64_t dim = op_attr_int(local, ATTR_KEY_DIMENSION);
    const AxisList *axes = &layout->dims[dim];
    Value *base = local->results[0];
    if (!axes->count)
        return base;
    int64_t lo, hi, local_size = base->type.dims[dim];
    bool narrow = dtype_int_range(base->type.dtype, &lo, &hi) && local_size > hi;
    TensorType scalar = {narrow ? DT_I32 : base->type.dtype, 0, NULL};
    Op *op;
    Value *index = pc_emit1(pc, OP_AXIS_INDEX, local->loc, NULL, 0, "iota.shard", (TensorType){DT_I32, 0, NULL}, &op);
    pc_set_attr(pc, op, ATTR_KEY_AXES, pc_axes_attr(pc, axes));
    Value *shard = pc_emit1(pc, OP_CONVERT, local->loc, &index, 1, "iota.shard", scalar, NULL);
    Value *size = pc_emit1(pc, OP_FULL, local->loc, NULL, 0, "iota.size", scalar, &op);
    pc_set_attr(pc, op, ATTR_KEY_VALUE, pc_int_attr(pc, local_size));
    Value *offset = pc_emit1(pc, OP_MUL, local->loc, (Value *[]){shard, size}, 2, "iota.offset", scalar, NULL);
    TensorType own = {base->type.dtype, 0, NULL};
    if (narrow)
        offset = pc_emit1(pc, OP_CONVERT, local->loc, &offset, 1, "iota.offset", own, NULL);
    return pc_emit1(pc, OP_ADD, local->loc, (Value *[]){base, offset}, 2, base->name, base->type, NULL);
}

/* Ops whose padding along a sharded reduction factor the partitioner
 * masks (mask_reduced_padding): their reduction is known; a gather never
 * reads its padding (gather.c masks by the start instead). */
static bool masks_reductions(OpKind kind)
{
    return kind == OP_EINSUM || kind == OP_GATHER || kind == OP_SCATTER || kind == OP_CONVOLUTION ||
           op_info(kind)->op_class == OPC_REDUCE;
}

/* max starts at the type's least value, min at its greatest (kern_reduce's
 * identities). */
AttrValue *pc_reduction_identity(PartitionCtx *pc, ReductionKind reduction, DType dtype)
{
    int64_t lo, hi;
    bool is_int = dtype_int_range(dtype, &lo, &hi);
    if (dtype == DT_BOOL)
        return pc_bool_attr(pc, reduction == REDUCE_MIN);
    switch (reduction) {
    case REDUCE_MAX:
        return is_int ? pc_int_attr(pc, lo) : pc_float_attr(pc, -INFINITY);
    case REDUCE_MIN:
        return is_int ? pc_int_attr(pc, hi) : pc_float_attr(pc, INFINITY);
    default:
        return pc_zero_attr(pc, dtype);
    }
}

/* Operand dims of a sharded reduction factor that are padded: their
 * padding becomes the reduction's identity, so partial results only
 * count real elements. True if any was masked. */
static bool mask_reduced_padding(PartitionCtx *pc, const Op *op, const OpShardingRule *rule,
                                 const AxisList *assignment, Value **operands)
{
    bool masked = false;
    DimAxes *want = ARENA_ARRAY_UNINIT(&pc->scratch, DimAxes, 1); /* 6 KB: set by tensor_axes */
    for (int i = 0; i < op->num_operands; i++) {
        factor_assignment_tensor_axes(want, rule, assignment, i);
        for (int d = 0; d < want->rank; d++) {
            const DimFactors *df = &rule->operands[i].dims[d];
            if (df->count != 1 || rule->factors[df->factors[0]].kind != FACTOR_REDUCTION ||
                !pc_dim_uneven(&op->operands[i]->type, want, d))
                continue;
            AttrValue *identity = pc_reduction_identity(pc, op_reduction(op), operands[i]->type.dtype);
            operands[i] = pc_mask_padding(pc, operands[i], &op->operands[i]->type, want, d, identity, op->loc);
            masked = true;
        }
    }
    return masked;
}

/* The number of elements a reduce op reduces per result element. */
static int64_t reduced_count(const Op *op)
{
    int64_t dims[SHARDC_MAX_RANK], count = 1;
    int n = op_attr_ints(op, ATTR_KEY_DIMS, dims, SHARDC_MAX_RANK);
    for (int i = 0; i < n; i++)
        count *= op->operands[0]->type.dims[dims[i]];
    return count;
}

/* The local clone of op on resharded operands, with local result types. */
/* A reduce's or scatter's body or a sort's comparator computes on scalars:
 * the local op runs a copy of it. */
static void clone_body(PartitionCtx *pc, const Op *op, Op *local)
{
    ValueMap map;
    value_map_init(&map, &pc->scratch);
    local->num_regions = op->num_regions;
    local->regions = ARENA_ARRAY(&pc->module->arena, Block *, op->num_regions + 1);
    for (int i = 0; i < op->num_regions; i++) {
        local->regions[i] = block_clone(pc->module, op->regions[i], &map, NULL);
        local->regions[i]->parent_op = local;
    }
}

static Op *emit_local_op_n(PartitionCtx *pc, const Op *op, Value **operands, int num_operands,
                           const DimAxes *result_layouts)
{
    Op *local = pc_append_op(pc, op->kind, op->loc, operands, num_operands);
    local->str = op->str;
    local->aside = op->aside; /* shared: never changed in place */
    local->callee = op->callee;
    local->num_attrs = op->num_attrs;
    local->attrs = op->attrs;
    local->num_results = op->num_results;
    local->results = ARENA_ARRAY(&pc->module->arena, Value *, op->num_results + 1);
    for (int j = 0; j < op->num_results; j++) {
        const Value *r = op->results[j];
        local->results[j] = pc_new_local_value(pc, r, pc_local_type(pc, &r->type, &result_layouts[j]));
        local->results[j]->def = local;
        local->results[j]->index = j;
    }
    if (op->kind == OP_SLICE)
        localize_slice(pc, local);
    if (op_has_scalar_body(op))
        clone_body(pc, op, local);
    return local;
}

static Op *emit_local_op(PartitionCtx *pc, const Op *op, Value **operands, const DimAxes *result_layouts)
{
    return emit_local_op_n(pc, op, operands, op->num_operands, result_layouts);
}

/* rng_bit_generator with sharded bits: each device computes its block of
 * the global bits (random.c). NULL: not sharded, the op as written. */
static Op *local_rng(PartitionCtx *pc, const Op *op, Value *state, const DimAxes *layouts)
{
    const TensorType *bits = &op->results[1]->type;
    Value *args[SHARDC_MAX_RANK + 2] = {state};
    if (!pc_rng_operands(pc, op, &layouts[1], args))
        return NULL;
    Op *local = emit_local_op_n(pc, op, args, 1 + bits->rank, layouts);
    pc_set_attr(pc, local, ATTR_KEY_GLOBAL_SHAPE, pc_int_array_attr(pc, bits->dims, bits->rank));
    return local;
}

/* A constant with explicit values is materialised whole, then sliced:
 * slicing is local, and constants are small. */
static bool is_valued_constant(const Op *op)
{
    const AttrValue *v = op_attr_get(op, ATTR_KEY_VALUE);
    return op->kind == OP_CONSTANT && v && v->kind == ATTR_ARRAY;
}

static bool is_window_op(OpKind kind)
{
    return kind == OP_CONVOLUTION || kind == OP_REDUCE_WINDOW || kind == OP_SELECT_AND_SCATTER;
}

/* Why factor f did not get the axes the operand had: another factor took
 * them, the factor's kind needs it replicated, or the local op would not
 * be valid with it sharded. */
static const char *why_not(PartitionCtx *pc, const Op *op, const OpShardingRule *rule, const AxisList *assignment,
                           int f, const AxisList *had)
{
    FactorKind kind = rule->factors[f].kind;
    if (kind == FACTOR_PERMUTATION && is_window_op(op->kind))
        return " (a window dim stays sharded only if each block of windows starts in its block of the operand "
               "(windows per block x stride = block, no base dilation) and reads no more than a block around it)";
    if (kind == FACTOR_NEED_REPLICATION || kind == FACTOR_PERMUTATION)
        return " (its kind needs it unsharded)";
    for (int i = 0; i < had->count; i++)
        for (int g = 0; g < rule->num_factors; g++)
            for (int k = 0; g != f && k < assignment[g].count; k++)
                if (axis_ref_overlaps(assignment[g].axes[k], had->axes[i]))
                    return pc_printf(pc, " (its axis went to factor %s)", rule->factors[g].name);
    return factor_assignment_unsharded_reason(rule, assignment, f);
}

/* Why operand t must be laid out as `want`: the factors of the dims that
 * change, with their kinds and the axes the op gave them. */
static const char *operand_reason(PartitionCtx *pc, const Op *op, const OpShardingRule *rule,
                                  const AxisList *assignment, int t, const DimAxes *want)
{
    static const char *const kinds[] = {"pass-through", "reduction", "permutation", "need_replication"};
    DimAxes have;
    pc_layout_of(&have, op->operands[t]);
    char buf[768];
    size_t n = (size_t)snprintf(buf, sizeof buf, "operand %%%s of '%s' is %s; the op's factors need %s:",
                                op->operands[t]->name, op_info(op->kind)->name, pc_format_layout(pc, &have),
                                pc_format_layout(pc, want));
    for (int d = 0; d < want->rank && n < sizeof buf; d++) {
        if (axis_list_equal(&have.dims[d], &want->dims[d]))
            continue;
        const DimFactors *df = &rule->operands[t].dims[d];
        for (int k = 0; k < df->count && n < sizeof buf; k++) {
            int f = df->factors[k];
            DimAxes one = {.rank = 1, .dims = {assignment[f]}};
            n += (size_t)snprintf(buf + n, sizeof buf - n, " dim %d factor %s (%s) gets %s%s;", d,
                                  rule->factors[f].name, kinds[rule->factors[f].kind], pc_format_layout(pc, &one),
                                  why_not(pc, op, rule, assignment, f, &have.dims[d]));
        }
    }
    return arena_strdup(&pc->module->arena, buf);
}

static const char *result_reason(PartitionCtx *pc, const Op *op, int j, const DimAxes *layout,
                                 const AxisList *partial, const DimAxes *want)
{
    DimAxes partial_layout = {.rank = 1, .dims = {*partial}};
    if (partial->count)
        return pc_printf(pc, "result %%%s of '%s' holds partial results over %s (sharded reduction factors): "
                         "reduce, then lay out as its sharding %s", op->results[j]->name, op_info(op->kind)->name,
                         pc_format_layout(pc, &partial_layout), pc_format_layout(pc, want));
    return pc_printf(pc, "result %%%s of '%s' is computed as %s (the op's factors) but its sharding is %s",
                     op->results[j]->name, op_info(op->kind)->name, pc_format_layout(pc, layout),
                     pc_format_layout(pc, want));
}

static bool same_layout(const DimAxes *a, const DimAxes *b)
{
    if (a->rank != b->rank)
        return false;
    for (int d = 0; d < a->rank; d++)
        if (!axis_list_equal(&a->dims[d], &b->dims[d]))
            return false;
    return true;
}

enum { NO_MEAN = -1 };

/* reduce_mean over a padded dim runs as a masked local sum; the mean is
 * the reduced sum divided by the global count of reduced elements. */
static Value *divide_by_count(PartitionCtx *pc, Value *sum, int64_t count, Loc loc)
{
    Op *op;
    Value *n = pc_emit1(pc, OP_FULL, loc, NULL, 0, "mean.count", (TensorType){sum->type.dtype, 0, NULL}, &op);
    pc_set_attr(pc, op, ATTR_KEY_VALUE, pc_int_attr(pc, count));
    return pc_emit1(pc, OP_DIV, loc, (Value *[]){sum, n}, 2, sum->name, sum->type, NULL);
}

/* Results: reduce partials (combined by `reduction`), then reshard to the
 * propagated shardings; divided by `mean_count` unless it is NO_MEAN (a count
 * of 0 reduced elements divides too: the mean of nothing is NaN). */
/* What result j keeps of the local result's partials over `partial`
 * (combined by `reduction`): its unreduced axes, if combined alike; the
 * rest is reduced. */
static void result_partials(const Value *result, const AxisList *partial, ReductionKind reduction, AxisList *reduce,
                            AxisList *keep)
{
    pc_unreduced_of(keep, result->sharding);
    AxisList none;
    none.count = 0;
    bool same = pc_unreduced_kind(result->sharding) == reduction;
    pc_axes_minus(reduce, partial, same ? keep : &none);
}

static void finish_results(PartitionCtx *pc, const Op *op, Op *local, const DimAxes *layouts, const AxisList *partial,
                           ReductionKind reduction, int64_t mean_count)
{
    for (int j = 0; j < op->num_results; j++) {
        Value *r = local->results[j];
        if (op->kind == OP_IOTA)
            r = localize_iota(pc, local, &layouts[j]);
        DimAxes want;
        pc_layout_of(&want, op->results[j]);
        AxisList reduce, keep, extra;
        result_partials(op->results[j], partial, reduction, &reduce, &keep);
        /* The reason is only read by the collectives a reshard emits; a
         * reshard between identical layouts without partials emits none,
         * and formatting it for every op took a third of partitioning. */
        if (reduce.count || !same_layout(&layouts[j], &want))
            pc->reason = result_reason(pc, op, j, &layouts[j], &reduce, &want);
        AxisList left;
        pc_axes_minus(&left, partial, &reduce);
        pc->kept = &left;
        r = pc_reshard(pc, r, &op->results[j]->type, &layouts[j], &reduce, reduction, &want,
                       op->results[j]->name, op->loc);
        pc->kept = NULL;
        if (r && mean_count != NO_MEAN)
            r = divide_by_count(pc, r, mean_count, op->loc);
        pc_axes_minus(&extra, &keep, &left);
        ReductionKind combine = pc_unreduced_kind(op->results[j]->sharding);
        if (r && extra.count)
            r = pc_replicated_to_unreduced(pc, r, &extra, combine, op->loc);
        if (r)
            pc_add_partial_version(pc, op->results[j], r, &want, &keep, combine);
    }
}

/* sharding_constraint, reshard and propagation_barrier only move data: the operand, laid out
 * as the result's sharding, is the result. */
static void reshard_to_result(PartitionCtx *pc, Op *op)
{
    DimAxes want;
    pc_layout_of(&want, op->results[0]);
    pc->reason = pc_printf(pc, "'%s' asks for %%%s as %s", op_info(op->kind)->name, op->operands[0]->name,
                           pc_format_layout(pc, &want));
    AxisList keep;
    pc_unreduced_of(&keep, op->results[0]->sharding);
    ReductionKind combine = pc_unreduced_kind(op->results[0]->sharding);
    Value *r = pc_local_as_partial(pc, op->operands[0], &want, &keep, combine, op->loc);
    if (r)
        pc_add_partial_version(pc, op->results[0], r, &want, &keep, combine);
}

/* sharding_group has done its work in propagation: no SPMD code. */
static void partition_nothing(PartitionCtx *pc, Op *op)
{
    (void)pc;
    (void)op;
}

static void partition_replicated_op(PartitionCtx *pc, Op *op);

/* Collectives have no per-device meaning outside shard_map. In the body
 * of one manual over some axes only, they run on values whole along the
 * free axes (every device of a free-axis group takes part alike). */
static void partition_collective(PartitionCtx *pc, Op *op)
{
    if (pc->partial_manual) {
        partition_replicated_op(pc, op);
        return;
    }
    diag_error(pc->diag, op->loc, "cannot partition '%s' here: collectives belong inside shard_map",
               op_info(op->kind)->name);
    pc->ok = false;
}

/* StableHLO's collectives over replica groups: their devices are not a
 * mesh's, so there is nothing to partition them over. */
static void partition_group_collective(PartitionCtx *pc, Op *op)
{
    diag_error(pc->diag, op->loc, "cannot partition '%s': its replica groups name devices of a program that is "
               "already per device, not axes of a mesh (write it inside a shard_map, or an sdy.manual_computation, "
               "over mesh axes)", op_info(op->kind)->name);
    pc->ok = false;
}

/* An op without a sharding rule (a reshape of zero elements) runs on
 * whole values: operands gathered, results sliced to their shardings. */
static void partition_replicated_op(PartitionCtx *pc, Op *op)
{
    Value *operands[op->num_operands + 1];
    for (int i = 0; i < op->num_operands; i++) {
        DimAxes whole = {.rank = op->operands[i]->type.rank};
        pc->reason = pc_printf(pc, "'%s' has no sharding rule: operand %%%s is gathered whole",
                               op_info(op->kind)->name, op->operands[i]->name);
        if (!(operands[i] = pc_local_as(pc, op->operands[i], &whole, op->loc)))
            return;
    }
    DimAxes layouts[op->num_results + 1];
    for (int j = 0; j < op->num_results; j++)
        layouts[j] = (DimAxes){.rank = op->results[j]->type.rank};
    AxisList none;
    none.count = 0;
    finish_results(pc, op, emit_local_op(pc, op, operands, layouts), layouts, &none, REDUCE_SUM, NO_MEAN);
}

/* dynamic_update_slice: along a dim the update covers in part, the update
 * is whole on every device (its factor is need_replication, or
 * pass-through for constant starts: made unsharded here), while the
 * operand and result keep their sharding (dynamic.c). */
static void unshard_updated_dims(const Op *op, const OpShardingRule *rule, AxisList *assignment)
{
    const TensorType *in = &op->operands[0]->type, *upd = &op->operands[1]->type;
    for (int d = 0; d < in->rank; d++)
        if (in->dims[d] != upd->dims[d] && rule->operands[1].dims[d].count == 1)
            memset(&assignment[rule->operands[1].dims[d].factors[0]], 0, sizeof(AxisList));
}

/* A reduce with a body: its partial results could only be combined by
 * running the body across devices, so the reduced dims are gathered first
 * (the operand reshards say so) and each device reduces whole rows. */
static void unshard_reductions(const OpShardingRule *rule, AxisList *assignment)
{
    for (int f = 0; f < rule->num_factors; f++)
        if (rule->factors[f].kind == FACTOR_REDUCTION)
            memset(&assignment[f], 0, sizeof(AxisList));
}

/* gather and scatter on local operands (gather.c): indices moved into the
 * blocks of the dims they address, a scatter-add's operand counted once,
 * slice sizes cut to the block, a gather's starts outside the block
 * masked. The op giving the local result. */
static Op *local_gather_or_scatter(PartitionCtx *pc, const Op *op, const OpShardingRule *rule,
                                   const AxisList *assignment, Value **operands, const DimAxes *layouts,
                                   const AxisList *partial)
{
    int ii = op_gather_indices_index(op);
    for (int i = 0; i < ii && partial->count && op->kind == OP_SCATTER && op_reduction(op) == REDUCE_SUM; i++)
        operands[i] = pc_scatter_operand_once(pc, operands[i], partial, op->loc);
    Value *in_block = NULL;
    operands[ii] = pc_gather_indices(pc, op, operands, rule, assignment, &in_block);
    Op *local = emit_local_op(pc, op, operands, layouts);
    pc_gather_local_sizes(pc, op, local);
    return in_block ? pc_gather_mask(pc, op, local, in_block) : local;
}

/* The partial axes each operand keeps into op (pc_operand_keeps), from
 * what their first versions are partial over; how those combine. */
static ReductionKind operand_keeps(PartitionCtx *pc, const Op *op, AxisList *keep)
{
    AxisList result, partial[op->num_operands + 1];
    ReductionKind kinds[op->num_operands + 1];
    pc_unreduced_of(&result, op->num_results ? op->results[0]->sharding : NULL);
    ReductionKind combine = pc_unreduced_kind(op->num_results ? op->results[0]->sharding : NULL);
    for (int i = 0; i < op->num_operands; i++) {
        const Value *v = op->operands[i];
        const LocalVersion *first = v->id < pc->num_global_values ? pc->versions[v->id] : NULL;
        partial[i].count = 0;
        kinds[i] = first ? pc_version_partial(first, &partial[i]) : REDUCE_SUM;
    }
    if (result.count)
        pc_operand_keeps(op, &result, combine, partial, kinds, keep);
    else
        for (int i = 0; i < op->num_operands; i++)
            keep[i].count = 0;
    return combine;
}

/* Operand i of a windowed op kept sharded along h's dims (window.c): the
 * operand with its halos, padded as the op pads: with zeros for a
 * convolution (what ppermute leaves at the ends), with the reduction's
 * identity for reduce_window, with the lowest value for the elements a
 * select_and_scatter selects among; its source with uneven padding 0. */
static Value *window_operand(PartitionCtx *pc, const Op *op, int i, Value *x, const DimAxes *layout,
                             const WindowHalo *h)
{
    if (i == 1)
        return op->kind == OP_SELECT_AND_SCATTER ? pc_window_source(pc, op, x, layout, h) : x;
    if (op->kind == OP_CONVOLUTION)
        return pc_window_halo(pc, op, x, layout, h, pc_zero_attr(pc, x->type.dtype), false);
    const char *r = op->kind == OP_SELECT_AND_SCATTER ? "max" : op_attr_string(op, ATTR_KEY_REDUCTION);
    ReductionKind kind = strcmp(r, "max") == 0 ? REDUCE_MAX : strcmp(r, "min") == 0 ? REDUCE_MIN : REDUCE_SUM;
    return pc_window_halo(pc, op, x, layout, h, pc_reduction_identity(pc, kind, x->type.dtype), kind != REDUCE_SUM);
}

/* An operand kept partial over an axis holds, on each device, a partial
 * term for every index of every factor: no factor may be split along that
 * axis, or each device would combine its own block of the others with its
 * own partial term, and the reduction would count each block once per
 * device (fuzz_run: an unreduced argument times a value sharded on the
 * same axis came out 4x on 4 devices). The others are gathered instead. */
static bool unshard_kept_axes(const OpShardingRule *rule, AxisList *assignment, const AxisList *keep, int n)
{
    AxisList kept;
    kept.count = 0;
    for (int i = 0; i < n; i++)
        axis_list_union(&kept, &keep[i]);
    for (int f = 0; kept.count && f < rule->num_factors; f++)
        axis_list_truncate_without_overlap(&assignment[f], &kept);
    return kept.count > 0;
}

/* The op kinds whose local op cannot keep every factor the assignment
 * gives (see each function); true if op is one (the assignment may have
 * changed). */
static bool fit_to_local_op(const Op *op, const OpShardingRule *rule, AxisList *assignment, WindowHalo *halo)
{
    if (is_valued_constant(op))
        memset(assignment, 0, sizeof(AxisList) * (size_t)rule->num_factors);
    else if (op->kind == OP_DYNAMIC_UPDATE_SLICE)
        unshard_updated_dims(op, rule, assignment);
    else if (op->kind == OP_REDUCE)
        unshard_reductions(rule, assignment);
    else if (op->kind == OP_GATHER || op->kind == OP_SCATTER)
        pc_gather_assignment(op, rule, assignment);
    else if (is_window_op(op->kind))
        pc_window_assignment(op, rule, assignment, halo);
    else
        return false;
    return true;
}

/* The general case: the op's sharding rule decides each factor's axes. */
static void partition_by_rule(PartitionCtx *pc, Op *op)
{
    size_t scratch_used = pc->scratch.bytes_allocated;
    const OpShardingRule *rule = rule_cache_get(&pc->rules, &pc->scratch, pc->diag, op);
    if (!rule) {
        partition_replicated_op(pc, op);
        return;
    }
    /* a rule built in scratch is this op's alone */
    bool shared = pc->scratch.bytes_allocated == scratch_used;
    const PackedLayout *const *chosen; /* the tensors' layouts under the assignment as chosen */
    AxisList *assignment = pc_factor_assignment(pc, op, rule, shared, masks_reductions(op->kind)
                                                ? UNEVEN_MASKED_REDUCTIONS : UNEVEN_PASS_THROUGH, &chosen);
    WindowHalo halo; /* pc_window_assignment sets it all */
    halo.count = 0;
    if (fit_to_local_op(op, rule, assignment, &halo))
        chosen = NULL;
    Value *operands[op->num_operands + 1];
    AxisList keep[op->num_operands + 1];
    ReductionKind combine = operand_keeps(pc, op, keep);
    if (unshard_kept_axes(rule, assignment, keep, op->num_operands))
        chosen = NULL;
    for (int i = 0; i < op->num_operands; i++) {
        /* The common case: the operand's own version is laid out as needed. */
        if (chosen && !keep[i].count && (operands[i] = pc_first_version_as(pc, op->operands[i], chosen[i])))
            continue;
        DimAxes want;
        factor_assignment_tensor_axes(&want, rule, assignment, i);
        /* Most operands are there as the op needs them: no reshard, no reason. */
        operands[i] = keep[i].count ? NULL : pc_find_version(pc, op->operands[i], &want);
        if (!operands[i] && !keep[i].count)
            pc->reason = operand_reason(pc, op, rule, assignment, i, &want);
        if (!operands[i] && !(operands[i] = pc_local_as_partial(pc, op->operands[i], &want, &keep[i], combine,
                                                                op->loc)))
            return;
        if (halo.count && i < 2)
            operands[i] = window_operand(pc, op, i, operands[i], &want, &halo);
    }
    DimAxes layouts[op->num_results + 1];
    for (int j = 0; j < op->num_results; j++)
        if (chosen)
            pc_unpack_layout(&layouts[j], chosen[op->num_operands + j]);
        else
            factor_assignment_tensor_axes(&layouts[j], rule, assignment, op->num_operands + j);
    AxisList partial;
    partial_axes(&partial, rule, assignment);
    for (int i = 0; i < op->num_operands; i++) /* kept partials stay partial in the result */
        axis_list_union(&partial, &keep[i]);
    /* Only a sharded reduction factor (partial results) can need a mask. */
    bool masked = partial.count && op->kind != OP_GATHER && mask_reduced_padding(pc, op, rule, assignment, operands);
    Op *local = op->kind == OP_DYNAMIC_UPDATE_SLICE ? pc_local_dynamic_update_slice(pc, op, operands, layouts) : NULL;
    if (op->kind == OP_GATHER || op->kind == OP_SCATTER)
        local = local_gather_or_scatter(pc, op, rule, assignment, operands, layouts, &partial);
    if (op->kind == OP_RNG_BIT_GENERATOR)
        local = local_rng(pc, op, operands[0], layouts);
    if (!local)
        local = emit_local_op(pc, op, operands, layouts);
    if (halo.count)
        local = pc_window_localize(pc, op, local, &halo);
    ReductionKind reduction = op_reduction(op);
    int64_t mean_count = NO_MEAN;
    if (masked && op->kind == OP_REDUCE_MEAN) {
        local->kind = OP_REDUCE_SUM;
        reduction = REDUCE_SUM;
        mean_count = reduced_count(op);
    }
    finish_results(pc, op, local, layouts, &partial, reduction, mean_count);
}

/* A custom op whose target the module does not define (a runtime
 * custom_call with its sdy.sharding_rule, issue 18) is partitioned by its
 * rule like a built-in op: the target runs on the local blocks, as XLA
 * runs it after Shardy; without a rule, on whole values. Targets the
 * module defines run their implementation (special.c). */
static void partition_custom(PartitionCtx *pc, Op *op)
{
    if (!op_attr_symbol(op, ATTR_KEY_PARTITION) && !module_find_func(pc->module, op->callee)) {
        partition_by_rule(pc, op);
        return;
    }
    pc_partition_custom(pc, op);
}

/* One case per op class (opclasses.def): a class without one does not
 * compile. Calls are inlined by now; one left would run whole (it has no
 * rule). */

static void (*const partition_by_class[OPC_COUNT])(PartitionCtx *pc, Op *op) = {
#define OPCLASS(cls, verify, rule, explicit, partition, exec) [cls] = partition,
#include "shardc/opclasses.def"
#undef OPCLASS
};

void pc_partition_op(PartitionCtx *pc, Op *op)
{
    OpClass cls = op_info(op->kind)->op_class;
    if ((unsigned)cls < OPC_COUNT)
        partition_by_class[cls](pc, op);
    else
        partition_by_rule(pc, op);
}
