/* convolution, reduce_window and select_and_scatter along sharded window
 * dims (docs/partitioning.md "Windows"). Their rules make such dims
 * permutation factors, which the general case gathers; here a dim keeps
 * its operand's axes when each device can compute its own block of the
 * result:
 * - windows that tile the dim (a max-pool's stride = size, no padding)
 *   and blocks holding whole windows: the local op as it is;
 * - stride 1 without dilation, as many windows as elements ("same"
 *   padding, low + high = window - 1, each no more than the block): a
 *   halo exchange, as GSPMD does: each device sends its last `low`
 *   elements to the next and its first `high` to the previous (two
 *   ppermutes), concatenates them around its block and runs the op with
 *   no padding on that dim; the ends of the dim get the padding value
 *   (zeros from ppermute; a max/min reduce_window selects its identity).
 * Everything else stays gathered by the rule, reported with its reason. */
#include <string.h>
#include "partition/partition_ctx.h"
#include "shardc/rules.h"
#include "shardc/window.h"

/* The operand dim of windowed dim i. */
static int operand_dim(const Op *op, const ConvDims *d, int i)
{
    return op->kind == OP_CONVOLUTION ? (int)d->in_spatial[i] : i;
}

/* Clears every factor of dim `dim` of tensor t. */
static void clear_dim(const OpShardingRule *rule, AxisList *assignment, int t, int dim)
{
    const DimFactors *df = t < rule->num_operands ? &rule->operands[t].dims[dim]
                                                  : &rule->results[t - rule->num_operands].dims[dim];
    for (int k = 0; k < df->count; k++)
        memset(&assignment[df->factors[k]], 0, sizeof(AxisList));
}

/* Factors the local op could not keep sharded: window dims (until
 * window_dim says otherwise) and, with groups, the dims they split (the
 * local op would need another group count). */
static void clear_windows(const Op *op, const OpShardingRule *rule, const ConvDims *d, const WindowDims *w,
                          AxisList *assignment)
{
    for (int i = 0; i < w->n; i++) {
        clear_dim(rule, assignment, 0, operand_dim(op, d, i));
        if (op->kind == OP_CONVOLUTION)
            clear_dim(rule, assignment, 1, (int)d->k_spatial[i]);
        if (op->kind == OP_SELECT_AND_SCATTER)
            clear_dim(rule, assignment, 1, i);
    }
    if (op->kind != OP_CONVOLUTION)
        return;
    if (op_attr_int(op, ATTR_KEY_FEATURE_GROUP_COUNT) > 1 || op_attr_int(op, ATTR_KEY_BATCH_GROUP_COUNT) > 1) {
        clear_dim(rule, assignment, 0, (int)d->in_feature);
        clear_dim(rule, assignment, 0, (int)d->in_batch);
        clear_dim(rule, assignment, 1, (int)d->k_out);
        clear_dim(rule, assignment, rule->num_operands, (int)d->out_feature);
        clear_dim(rule, assignment, rule->num_operands, (int)d->out_batch);
    }
}

static bool axes_free(const OpShardingRule *rule, const AxisList *assignment, const AxisList *axes)
{
    for (int f = 0; f < rule->num_factors; f++)
        for (int k = 0; k < assignment[f].count; k++)
            for (int i = 0; i < axes->count; i++)
                if (axis_ref_overlaps(assignment[f].axes[k], axes->axes[i]))
                    return false;
    return true;
}

/* Windowed dim i, sharded as the operand is over `axes`: true if it may
 * stay so; *halo then says whether it needs a halo exchange. */
static bool dim_local(const Op *op, const WindowDims *w, int i, int64_t size, const AxisList *axes, bool *halo)
{
    int64_t n = axis_list_size(axes), block = (size + n - 1) / n;
    int64_t span = (w->size[i] - 1) * w->win_dil[i] + 1;
    *halo = false;
    if (op_window_tiles(w, i))
        return size % (w->size[i] * n) == 0;
    /* the halo exchange fills the ends with the identity, for one input */
    if (op->kind == OP_SELECT_AND_SCATTER || (op->kind == OP_REDUCE_WINDOW && op->num_operands > 1) ||
        w->stride[i] != 1 || w->base_dil[i] != 1 || w->lo[i] < 0 ||
        w->hi[i] < 0 || w->lo[i] + w->hi[i] != span - 1 || w->lo[i] > block || w->hi[i] > block)
        return false;
    *halo = true;
    return true;
}

/* The one factor of the operand's dim, if it is the factor of the result's
 * dim too (the number of windows) and the op's factors left it. */
static int window_factor(const Op *op, const OpShardingRule *rule, const ConvDims *d, int i)
{
    const DimFactors *in = &rule->operands[0].dims[operand_dim(op, d, i)];
    const DimFactors *out = &rule->results[0].dims[op->kind == OP_CONVOLUTION ? (int)d->out_spatial[i] : i];
    if (in->count != 1 || out->count != 1 || in->factors[0] != out->factors[0])
        return -1;
    return in->factors[0];
}

/* The need-replication factor of a select_and_scatter's source dim i. */
static int source_factor(const OpShardingRule *rule, int i)
{
    const DimFactors *df = &rule->operands[1].dims[i];
    return df->count == 1 ? df->factors[0] : -1;
}

void pc_window_assignment(const Op *op, const OpShardingRule *rule, AxisList *assignment, WindowHalo *h)
{
    ConvDims d = {0};
    WindowDims w;
    memset(h, 0, sizeof *h);
    if (op->kind == OP_CONVOLUTION && !op_conv_dims(op, &d))
        return;
    op_window_dims(op, &w);
    clear_windows(op, rule, &d, &w, assignment);
    DimAxes have;
    pc_layout_of(&have, op->operands[0]);
    for (int i = 0; i < w.n; i++) {
        int od = operand_dim(op, &d, i), f = window_factor(op, rule, &d, i);
        const AxisList *axes = &have.dims[od];
        bool halo;
        if (f < 0 || !axes->count || !axes_free(rule, assignment, axes) ||
            !dim_local(op, &w, i, op->operands[0]->type.dims[od], axes, &halo))
            continue;
        assignment[f] = *axes;
        if (op->kind == OP_SELECT_AND_SCATTER && source_factor(rule, i) >= 0)
            assignment[source_factor(rule, i)] = *axes;
        if (halo)
            h->dims[h->count++] = (HaloDim){od, i, w.lo[i], w.hi[i], *axes};
    }
}

/* A slice of `len` elements of dim d of x from `start`. */
static Value *slice_dim(PartitionCtx *pc, Value *x, int d, int64_t start, int64_t len, Loc loc)
{
    int64_t lo[SHARDC_MAX_RANK] = {0}, hi[SHARDC_MAX_RANK];
    memcpy(hi, x->type.dims, sizeof(int64_t) * (size_t)x->type.rank);
    lo[d] = start;
    hi[d] = start + len;
    TensorType t = type_make(&pc->module->arena, x->type.dtype, x->type.rank, x->type.dims);
    ((int64_t *)t.dims)[d] = len;
    Op *op;
    Value *r = pc_emit1(pc, OP_SLICE, loc, &x, 1, "halo.edge", t, &op);
    pc_set_attr(pc, op, ATTR_KEY_START, pc_int_array_attr(pc, lo, x->type.rank));
    pc_set_attr(pc, op, ATTR_KEY_LIMIT, pc_int_array_attr(pc, hi, x->type.rank));
    return r;
}

/* The edge shifted one device along the axes: towards higher indices
 * (`up`) or lower; the device at the end gets zeros (ppermute). */
static Value *shift(PartitionCtx *pc, Value *edge, const HaloDim *hd, bool up, Loc loc)
{
    int64_t n = axis_list_size(&hd->axes);
    AttrValue *perm = attr_new(&pc->module->arena, ATTR_ARRAY, loc);
    perm->u.array.count = (int)(n - 1);
    perm->u.array.items = ARENA_ARRAY(&pc->module->arena, AttrValue *, n);
    for (int64_t k = 0; k + 1 < n; k++) {
        int64_t pair[2] = {up ? k : k + 1, up ? k + 1 : k};
        perm->u.array.items[k] = pc_int_array_attr(pc, pair, 2);
    }
    Op *op;
    Value *r = pc_emit1(pc, OP_PPERMUTE, loc, &edge, 1, up ? "halo.from_prev" : "halo.from_next", edge->type, &op);
    pc_set_attr(pc, op, ATTR_KEY_AXES, pc_axes_attr(pc, &hd->axes));
    pc_set_attr(pc, op, ATTR_KEY_PERM, perm);
    int64_t bytes = pc_type_bytes(&edge->type);
    pc_record_collective(pc, (CollectiveRecord){OP_PPERMUTE, pc->mesh, hd->axes, bytes, edge->name, loc, r->name,
                                                pc->reason, 0});
    return r;
}

/* The received edge, or `fill` on the device at the end of the dim. */
static Value *fill_end(PartitionCtx *pc, Value *edge, const HaloDim *hd, bool up, AttrValue *fill, Loc loc)
{
    Op *op;
    TensorType scalar_i32 = {DT_I32, 0, NULL}, scalar_bool = {DT_BOOL, 0, NULL};
    Value *index = pc_emit1(pc, OP_AXIS_INDEX, loc, NULL, 0, "halo.shard", scalar_i32, &op);
    pc_set_attr(pc, op, ATTR_KEY_AXES, pc_axes_attr(pc, &hd->axes));
    Value *end = pc_emit1(pc, OP_FULL, loc, NULL, 0, "halo.end", scalar_i32, &op);
    pc_set_attr(pc, op, ATTR_KEY_VALUE, pc_int_attr(pc, up ? 0 : axis_list_size(&hd->axes) - 1));
    Value *at_end = pc_emit1(pc, OP_COMPARE, loc, (Value *[]){index, end}, 2, "halo.at_end", scalar_bool, &op);
    pc_set_attr(pc, op, ATTR_KEY_DIRECTION, pc_string_attr(pc, "eq"));
    Value *value = pc_emit1(pc, OP_FULL, loc, NULL, 0, "halo.fill", edge->type, &op);
    pc_set_attr(pc, op, ATTR_KEY_VALUE, fill);
    return pc_emit1(pc, OP_SELECT, loc, (Value *[]){at_end, value, edge}, 3, edge->name, edge->type, NULL);
}

Value *pc_window_halo(PartitionCtx *pc, const Op *op, Value *x, const DimAxes *layout, const WindowHalo *h,
                      AttrValue *fill, bool fill_ends)
{
    const TensorType *global = &op->operands[0]->type;
    for (int k = 0; k < h->count; k++) {
        const HaloDim *hd = &h->dims[k];
        pc->reason = pc_printf(pc, "'%s' reads a halo of %lld and %lld elements of its neighbours' blocks of "
                               "%%%s along dim %d (stride 1, windows spanning %lld elements)",
                               op_info(op->kind)->name, (long long)hd->lo, (long long)hd->hi,
                               op->operands[0]->name, hd->dim, (long long)(hd->lo + hd->hi + 1));
        if (pc_dim_uneven(global, layout, hd->dim))
            x = pc_mask_padding(pc, x, global, layout, hd->dim, fill, op->loc);
        Value *parts[3];
        int n = 0;
        int64_t block = x->type.dims[hd->dim];
        if (hd->lo) {
            parts[n] = shift(pc, slice_dim(pc, x, hd->dim, block - hd->lo, hd->lo, op->loc), hd, true, op->loc);
            if (fill_ends)
                parts[n] = fill_end(pc, parts[n], hd, true, fill, op->loc);
            n++;
        }
        parts[n++] = x;
        if (hd->hi) {
            parts[n] = shift(pc, slice_dim(pc, x, hd->dim, 0, hd->hi, op->loc), hd, false, op->loc);
            if (fill_ends)
                parts[n] = fill_end(pc, parts[n], hd, false, fill, op->loc);
            n++;
        }
        if (n == 1)
            continue;
        TensorType t = type_make(&pc->module->arena, x->type.dtype, x->type.rank, x->type.dims);
        ((int64_t *)t.dims)[hd->dim] = block + hd->lo + hd->hi;
        Op *cat;
        x = pc_emit1(pc, OP_CONCATENATE, op->loc, parts, n, "halo", t, &cat);
        pc_set_attr(pc, cat, ATTR_KEY_DIM, pc_int_attr(pc, hd->dim));
    }
    return x;
}

void pc_window_localize(PartitionCtx *pc, Op *local, const WindowHalo *h)
{
    WindowDims w;
    op_window_dims(local, &w);
    for (int k = 0; k < h->count; k++)
        w.lo[h->dims[k].window] = w.hi[h->dims[k].window] = 0;
    AttrValue *pad = attr_new(&pc->module->arena, ATTR_ARRAY, local->loc);
    pad->u.array.count = w.n;
    pad->u.array.items = ARENA_ARRAY(&pc->module->arena, AttrValue *, w.n + 1);
    for (int i = 0; i < w.n; i++)
        pad->u.array.items[i] = pc_int_array_attr(pc, (int64_t[]){w.lo[i], w.hi[i]}, 2);
    pc_set_attr(pc, local, ATTR_KEY_PADDING, pad);
}
