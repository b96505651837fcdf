/* gather and scatter on local shapes. Their rule (rules/gather.c, Shardy's)
 * already lets batch dims of the indices (index-parallel) and unsliced
 * offset dims of the operand (operand passthrough) stay sharded: the local
 * op runs as it is, its slice sizes cut to the local block. What needs
 * more is an operand sharded along a dim the indices address:
 *
 * - gather, a sharded reduction factor (a collapsed dim, or an offset dim
 *   sliced to 1: Megatron's VocabParallelEmbedding): each device clamps the
 *   global start as StableHLO does, moves it into its block's frame
 *   (minus axis_index * block), gathers locally and zeroes the rows whose
 *   start is not in its block; the partial results are then all-reduced
 *   (the rule's reduction factor). Padding rows of an uneven block are
 *   never addressed, as every global start is below the dim's size.
 * - scatter, a sharded inserted window dim (pass-through): each device
 *   moves the start into its block's frame; a window outside the block is
 *   skipped by the op itself (XLA's semantics, which the kernel follows).
 *
 * - scatter, a sharded reduction factor (an implicit batch dim of indices
 *   and updates, data parallel): each device scatters its own updates; for
 *   add into the operand on the first device of those axes and into zeros
 *   on the others (max and min need no care), and the partial results are
 *   all-reduced by the combiner. Padding updates are masked to the
 *   combiner's identity, so wherever they land they change nothing.
 *
 * A dim the indices do not address (not in the start index map) always
 * starts at 0, so it is not kept sharded, nor are the reduction factors of
 * a scatter by mul, and, or or replace: those fall back to gathering the
 * operand (or indices and updates), which the reshard reports. */
#include <string.h>
#include "partition/partition_ctx.h"
#include "shardc/gather.h"

/* The operand dim of factor f, or -1. */
static int operand_dim_of(const OpShardingRule *rule, int f)
{
    const TensorFactors *t = &rule->operands[0];
    for (int d = 0; d < t->rank; d++)
        for (int k = 0; k < t->dims[d].count; k++)
            if (t->dims[d].factors[k] == f)
                return d;
    return -1;
}

/* Whether operand dim d, sharded, is localized by moving the indices. */
static bool addressed_dim(const Op *op, const GatherDims *g, const OpShardingRule *rule, int f, int d)
{
    FactorKind kind = rule->factors[f].kind;
    bool collapsed = gather_dims_has(g->collapsed, g->num_collapsed, d);
    if (op->kind == OP_GATHER)
        return kind == FACTOR_REDUCTION && d >= 0 && gather_dims_has(g->map, g->num_map, d);
    return kind == FACTOR_PASS_THROUGH && collapsed && gather_dims_has(g->map, g->num_map, d);
}

/* A scatter whose partial results over its batch dims combine by a
 * collective: add (the operand counted once), max and min (idempotent).
 * mul and and/or are left whole. */
static bool scatter_reduces(const Op *op)
{
    const char *c = op_scatter_combiner(op);
    return c && (strcmp(c, "add") == 0 || strcmp(c, "max") == 0 || strcmp(c, "min") == 0);
}

void pc_gather_assignment(const Op *op, const OpShardingRule *rule, AxisList *assignment)
{
    GatherDims g;
    op_gather_dims(op, &g);
    for (int f = 0; f < rule->num_factors; f++) {
        if (!assignment[f].count)
            continue;
        int d = operand_dim_of(rule, f);
        bool reduction = rule->factors[f].kind == FACTOR_REDUCTION;
        bool collapsed = d >= 0 && gather_dims_has(g.collapsed, g.num_collapsed, d);
        bool summed = op->kind == OP_SCATTER && scatter_reduces(op);
        if ((reduction && !summed && (op->kind == OP_SCATTER || !addressed_dim(op, &g, rule, f, d))) ||
            (op->kind == OP_SCATTER && collapsed && !addressed_dim(op, &g, rule, f, d)))
            memset(&assignment[f], 0, sizeof(AxisList));
    }
}

static const TensorType scalar_i64 = {DT_I64, 0, NULL};

static Value *const_i64(PartitionCtx *pc, int64_t v, Loc loc)
{
    return pc_const_i64(pc, v, "gather.const", loc);
}

static Value *binary(PartitionCtx *pc, OpKind kind, Value *a, Value *b, const char *name, Loc loc)
{
    return pc_emit1(pc, kind, loc, (Value *[]){a, b}, 2, name, a->type, NULL);
}

static Value *compare(PartitionCtx *pc, Value *a, Value *b, const char *dir, Loc loc)
{
    Op *op;
    Value *r = pc_emit1(pc, OP_COMPARE, loc, (Value *[]){a, b}, 2, "gather.in_block",
                        type_make(&pc->module->arena, DT_BOOL, a->type.rank, a->type.dims), &op);
    pc_set_attr(pc, op, ATTR_KEY_DIRECTION, pc_string_attr(pc, dir));
    return r;
}

/* What moving the indices needs: the operand dim each index vector entry
 * addresses, with the axes and local block of that dim (no axes: the
 * entry is left as it is). */
typedef struct IndexMove {
    const Op *op;
    GatherDims g;
    const AxisList *axes[SHARDC_MAX_RANK];
    int64_t block[SHARDC_MAX_RANK];
    Value *mask;                /* gather: the starts in this device's block */
} IndexMove;

/* One index vector entry in the block's frame: for gather clamped first
 * as StableHLO does, and its mask ANDed in. */
static Value *move_entry(PartitionCtx *pc, IndexMove *m, Value *c, int k, Loc loc)
{
    int64_t d = m->g.map[k];
    if (m->op->kind == OP_GATHER) {
        int64_t hi = m->op->operands[0]->type.dims[d] - m->g.slice_sizes[d];
        c = binary(pc, OP_MAX, c, const_i64(pc, 0, loc), "gather.start", loc);
        c = binary(pc, OP_MIN, c, const_i64(pc, hi, loc), "gather.start", loc);
    }
    Op *op;
    Value *shard = pc_emit1(pc, OP_AXIS_INDEX, loc, NULL, 0, "gather.shard", (TensorType){DT_I32, 0, NULL}, &op);
    pc_set_attr(pc, op, ATTR_KEY_AXES, pc_axes_attr(pc, m->axes[k]));
    shard = pc_emit1(pc, OP_CONVERT, loc, &shard, 1, "gather.shard", scalar_i64, NULL);
    Value *offset = binary(pc, OP_MUL, shard, const_i64(pc, m->block[k], loc), "gather.offset", loc);
    c = binary(pc, OP_SUB, c, offset, "gather.local", loc);
    if (m->op->kind == OP_GATHER) {
        Value *in = binary(pc, OP_AND, compare(pc, c, const_i64(pc, 0, loc), "ge", loc),
                           compare(pc, c, const_i64(pc, m->block[k], loc), "lt", loc), "gather.in_block", loc);
        m->mask = m->mask ? binary(pc, OP_AND, m->mask, in, "gather.in_block", loc) : in;
    }
    return c;
}

/* Entry k of the index vector (all of idx if it has no index vector dim). */
static Value *index_entry(PartitionCtx *pc, Value *idx, int64_t ivd, int k, Loc loc)
{
    int rank = idx->type.rank;
    if (ivd >= rank || idx->type.dims[ivd] == 1)
        return idx;
    int64_t start[SHARDC_MAX_RANK] = {0}, limit[SHARDC_MAX_RANK], dims[SHARDC_MAX_RANK];
    memcpy(limit, idx->type.dims, sizeof(int64_t) * (size_t)rank);
    memcpy(dims, idx->type.dims, sizeof(int64_t) * (size_t)rank);
    start[ivd] = k;
    limit[ivd] = k + 1;
    dims[ivd] = 1;
    Op *op;
    Value *r = pc_emit1(pc, OP_SLICE, loc, &idx, 1, "gather.entry",
                        type_make(&pc->module->arena, idx->type.dtype, rank, dims), &op);
    pc_set_attr(pc, op, ATTR_KEY_START, pc_int_array_attr(pc, start, rank));
    pc_set_attr(pc, op, ATTR_KEY_LIMIT, pc_int_array_attr(pc, limit, rank));
    return r;
}

/* The local indices with every sharded addressed entry moved, as i64. */
static Value *move_indices(PartitionCtx *pc, IndexMove *m, Value *idx, Loc loc)
{
    if (idx->type.dtype != DT_I64)
        idx = pc_emit1(pc, OP_CONVERT, loc, &idx, 1, "gather.indices",
                       type_make(&pc->module->arena, DT_I64, idx->type.rank, idx->type.dims), NULL);
    int64_t ivd = m->g.index_vector_dim;
    Value *entries[SHARDC_MAX_RANK];
    for (int k = 0; k < m->g.num_map; k++) {
        entries[k] = index_entry(pc, idx, ivd, k, loc);
        if (m->axes[k])
            entries[k] = move_entry(pc, m, entries[k], k, loc);
    }
    if (ivd >= idx->type.rank || m->g.num_map == 1)
        return entries[0];
    Op *op;
    Value *r = pc_emit1(pc, OP_CONCATENATE, loc, entries, m->g.num_map, "gather.indices", idx->type, &op);
    pc_set_attr(pc, op, ATTR_KEY_DIM, pc_int_attr(pc, ivd));
    return r;
}

Value *pc_gather_indices(PartitionCtx *pc, const Op *op, Value **operands, const OpShardingRule *rule,
                         const AxisList *assignment, Value **mask)
{
    IndexMove m = {.op = op};
    op_gather_dims(op, &m.g);
    *mask = NULL;
    bool any = false;
    for (int k = 0; k < m.g.num_map; k++) {
        int d = (int)m.g.map[k];
        const DimFactors *df = &rule->operands[0].dims[d];
        int f = df->count == 1 ? df->factors[0] : -1;
        m.axes[k] = NULL;
        if (f < 0 || !assignment[f].count || !addressed_dim(op, &m.g, rule, f, d))
            continue;
        m.axes[k] = &assignment[f];
        m.block[k] = operands[0]->type.dims[d];
        any = true;
    }
    int ii = op_gather_indices_index(op);
    if (!any)
        return operands[ii];
    Value *idx = move_indices(pc, &m, operands[ii], op->loc);
    *mask = m.mask;
    return idx;
}

/* The local gather's slice sizes: an unsliced dim's is its local size. */
void pc_gather_local_sizes(PartitionCtx *pc, const Op *global, Op *local)
{
    if (global->kind != OP_GATHER)
        return;
    GatherDims g;
    op_gather_dims(global, &g);
    const TensorType *x = &global->operands[0]->type, *lx = &local->operands[0]->type;
    for (int d = 0; d < x->rank; d++)
        if (g.slice_sizes[d] == x->dims[d])
            g.slice_sizes[d] = lx->dims[d];
    pc_set_attr(pc, local, ATTR_KEY_SLICE_SIZES, pc_int_array_attr(pc, g.slice_sizes, x->rank));
}

/* What a device whose block does not hold a start contributes: -0.0 for
 * floats, so the all-reduce's sum keeps a gathered -0.0 (-0 + -0 = -0,
 * x + -0 = x; zeros would make it +0: tests/regress/gather_masked_neg_zero.shir),
 * else zeros. */
static Value *masked_out(PartitionCtx *pc, const TensorType *t, Loc loc)
{
    if (!dtype_is_float(t->dtype))
        return pc_emit1(pc, OP_ZEROS, loc, NULL, 0, "gather.zero", *t, NULL);
    Op *op;
    Value *v = pc_emit1(pc, OP_FULL, loc, NULL, 0, "gather.zero", *t, &op);
    pc_set_attr(pc, op, ATTR_KEY_VALUE, pc_float_attr(pc, -0.0));
    return v;
}

/* select(mask broadcast over the result's offset dims, gathered, -0.0 or
 * 0): the op giving the masked local result. */
Op *pc_gather_mask(PartitionCtx *pc, const Op *global, Op *local, Value *mask)
{
    GatherDims g;
    op_gather_dims(global, &g);
    Value *r = local->results[0];
    const TensorType *t = &r->type;
    Loc loc = global->loc;
    int64_t dims[SHARDC_MAX_RANK], batch[SHARDC_MAX_RANK];
    int n = 0;
    for (int d = 0; d < t->rank; d++)
        if (!gather_dims_has(g.offset, g.num_offset, d)) {
            batch[n] = d;
            dims[n++] = t->dims[d];
        }
    Arena *a = &pc->module->arena;
    if (mask->type.rank != n)
        mask = pc_emit1(pc, OP_RESHAPE, loc, &mask, 1, "gather.in_block", type_make(a, DT_BOOL, n, dims), NULL);
    Op *op;
    mask = pc_emit1(pc, OP_BROADCAST, loc, &mask, 1, "gather.in_block", type_make(a, DT_BOOL, t->rank, t->dims), &op);
    pc_set_attr(pc, op, ATTR_KEY_DIMS, pc_int_array_attr(pc, batch, n));
    Value *zero = masked_out(pc, t, loc);
    pc_emit1(pc, OP_SELECT, loc, (Value *[]){mask, r, zero}, 3, r->name, *t, &op);
    return op;
}

/* A scatter-add over batch-sharded updates: each device scatters its
 * updates, the partial results are all-reduced, so the operand must count
 * once: it stays on the first device of the partial axes, the others
 * start from zeros. */
Value *pc_scatter_operand_once(PartitionCtx *pc, Value *x, const AxisList *partial, Loc loc)
{
    return pc_first_of_group(pc, x, partial, "scatter", "scatter.operand", loc);
}

Value *pc_first_of_group(PartitionCtx *pc, Value *x, const AxisList *axes, const char *prefix, const char *name,
                         Loc loc)
{
    Op *op;
    const char *shard_name = pc_printf(pc, "%s.shard", prefix), *zero_name = pc_printf(pc, "%s.zero", prefix);
    Value *shard = pc_emit1(pc, OP_AXIS_INDEX, loc, NULL, 0, shard_name, (TensorType){DT_I32, 0, NULL}, &op);
    pc_set_attr(pc, op, ATTR_KEY_AXES, pc_axes_attr(pc, axes));
    Value *zero = pc_emit1(pc, OP_ZEROS, loc, NULL, 0, zero_name, (TensorType){DT_I32, 0, NULL}, NULL);
    Value *first = pc_emit1(pc, OP_COMPARE, loc, (Value *[]){shard, zero}, 2, pc_printf(pc, "%s.first", prefix),
                            (TensorType){DT_BOOL, 0, NULL}, &op);
    pc_set_attr(pc, op, ATTR_KEY_DIRECTION, pc_string_attr(pc, "eq"));
    Value *none = pc_emit1(pc, OP_ZEROS, loc, NULL, 0, zero_name, x->type, NULL);
    return pc_emit1(pc, OP_SELECT, loc, (Value *[]){first, x, none}, 3, name, x->type, NULL);
}
