/* convolution, reduce_window and select_and_scatter along sharded window
 * dims (docs/partitioning.md "Windows"). Their rules make such dims
 * permutation factors, which the general case gathers; here a dim keeps
 * its operand's axes when each device can compute its own block of
 * windows, as GSPMD does: when its windows start in its block (windows
 * per block x stride = block, no base dilation), they read a halo of
 * `low` elements of the previous block and `span - stride - low` of the
 * next. Each device sends its last `low` elements to the next device and
 * its first others to the previous (two ppermutes), concatenates them
 * around its block and runs the op with no padding on that dim; the ends
 * of the dim get the padding value (zeros from ppermute; a max/min
 * reduce_window and select_and_scatter select their identity). A
 * select_and_scatter then sends back what it scattered into the halos,
 * added to their owners' blocks (the transpose of the exchange). Windows
 * that tile the dim (a max-pool's stride = size) are the case of no halo.
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

/* Windowed dim i of `size` elements, sharded over `axes`: true if each
 * device can compute its own block of windows from its block of the
 * operand and a halo of its neighbours' (recorded in *hd). Its windows
 * start in its block when a block of windows times the stride is a block
 * of the operand; the first reads `lo` elements before the block (the
 * padding, or the previous block's last), the last `span - stride - lo`
 * after it, each halo no more than a block. */
static bool dim_local(const WindowDims *w, int i, int64_t size, const AxisList *axes, HaloDim *hd)
{
    int64_t n = axis_list_size(axes), block = (size + n - 1) / n;
    int64_t windows = op_window_count(w, i, size), span = (w->size[i] - 1) * w->win_dil[i] + 1;
    int64_t after = span - w->stride[i] - w->lo[i];
    hd->lo = w->lo[i];
    hd->hi = after > 0 ? after : 0;
    return block > 0 && w->base_dil[i] == 1 && w->lo[i] >= 0 && w->hi[i] >= 0 && w->lo[i] < span &&
           (windows + n - 1) / n * w->stride[i] == block && hd->lo <= block && hd->hi <= block;
}

/* A reduce_window with inits or several inputs, and a select_and_scatter
 * with an init or a direction other than "ge": the halo exchange fills the
 * ends with the reduction's identity or the lowest value, and its end
 * correction assumes "ge" keeps the first of equal elements. These keep a
 * dim sharded only where whole windows tile an even block, each result
 * element then on one device (so an init is added once). */
static bool needs_whole_tiles(const Op *op)
{
    if (op->kind == OP_REDUCE_WINDOW)
        return op->num_operands > 1;
    return op->kind == OP_SELECT_AND_SCATTER && (op->num_operands == 3 || op_select_direction(op) != 0);
}

static bool tiles_evenly(const WindowDims *w, int i, int64_t size, const AxisList *axes)
{
    return w->stride[i] == w->size[i] && w->lo[i] == 0 && w->hi[i] == 0 && w->base_dil[i] == 1 &&
           w->win_dil[i] == 1 && size % (w->size[i] * axis_list_size(axes)) == 0;
}

static bool dim_stays_local(const Op *op, const WindowDims *w, int i, int64_t size, const AxisList *axes,
                            HaloDim *hd)
{
    return needs_whole_tiles(op) ? tiles_evenly(w, i, size, axes) : dim_local(w, i, size, axes, hd);
}

/* The major factor of the operand's dim, if it is the factor of the
 * result's dim too (the number of windows). A strided convolution's dim
 * also has a minor factor, the window's (its reduction factor, cleared):
 * the axes of the major one are the dim's. */
static int window_factor(const Op *op, const OpShardingRule *rule, const ConvDims *d, int i)
{
    const DimFactors *in = &rule->operands[0].dims[operand_dim(op, d, i)];
    const DimFactors *out = &rule->results[0].dims[op->kind == OP_CONVOLUTION ? (int)d->out_spatial[i] : i];
    if (in->count < 1 || out->count != 1 || in->factors[0] != out->factors[0])
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
        HaloDim hd = {od, i, 0, 0, w.stride[i], *axes};
        int g = op->kind == OP_SELECT_AND_SCATTER ? source_factor(rule, i) : f;
        if (f < 0 || g < 0 || !axes->count || !axes_free(rule, assignment, axes) ||
            !dim_stays_local(op, &w, i, op->operands[0]->type.dims[od], axes, &hd))
            continue;
        assignment[f] = assignment[g] = *axes;
        h->dims[h->count++] = hd;
    }
}

/* A slice of `len` elements of dim d of x from `start`. */
static Value *slice_dim(PartitionCtx *pc, Value *x, int d, int64_t start, int64_t len, const char *name, Loc loc)
{
    int64_t lo[SHARDC_MAX_RANK] = {0}, hi[SHARDC_MAX_RANK];
    memcpy(hi, x->type.dims, sizeof(int64_t) * (size_t)x->type.rank);
    lo[d] = start;
    hi[d] = start + len;
    TensorType t = type_make(&pc->module->arena, x->type.dtype, x->type.rank, x->type.dims);
    ((int64_t *)t.dims)[d] = len;
    Op *op;
    Value *r = pc_emit1(pc, OP_SLICE, loc, &x, 1, name, t, &op);
    pc_set_attr(pc, op, ATTR_KEY_START, pc_int_array_attr(pc, lo, x->type.rank));
    pc_set_attr(pc, op, ATTR_KEY_LIMIT, pc_int_array_attr(pc, hi, x->type.rank));
    return r;
}

/* `part` shifted one device along the axes: towards higher indices (`up`)
 * or lower; the device at the end gets zeros (ppermute). */
static Value *shift(PartitionCtx *pc, Value *part, const HaloDim *hd, bool up, const char *name, Loc loc)
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
    Value *r = pc_emit1(pc, OP_PPERMUTE, loc, &part, 1, name, part->type, &op);
    pc_set_attr(pc, op, ATTR_KEY_AXES, pc_axes_attr(pc, &hd->axes));
    pc_set_attr(pc, op, ATTR_KEY_PERM, perm);
    int64_t bytes = pc_type_bytes(&part->type);
    pc_record_collective(pc, (CollectiveRecord){OP_PPERMUTE, pc->mesh, hd->axes, bytes, part->name, loc, r->name,
                                                pc->reason, 0});
    return r;
}

/* Whether this device is the first (`first`) or the last along hd's axes. */
static Value *at_end(PartitionCtx *pc, const HaloDim *hd, bool first, Loc loc)
{
    Op *op;
    TensorType scalar_i32 = {DT_I32, 0, NULL}, scalar_bool = {DT_BOOL, 0, NULL};
    Value *index = pc_emit1(pc, OP_AXIS_INDEX, loc, NULL, 0, "halo.shard", scalar_i32, &op);
    pc_set_attr(pc, op, ATTR_KEY_AXES, pc_axes_attr(pc, &hd->axes));
    Value *end = pc_emit1(pc, OP_FULL, loc, NULL, 0, "halo.end", scalar_i32, &op);
    pc_set_attr(pc, op, ATTR_KEY_VALUE, pc_int_attr(pc, first ? 0 : axis_list_size(&hd->axes) - 1));
    Value *at = pc_emit1(pc, OP_COMPARE, loc, (Value *[]){index, end}, 2, "halo.at_end", scalar_bool, &op);
    pc_set_attr(pc, op, ATTR_KEY_DIRECTION, pc_string_attr(pc, "eq"));
    return at;
}

/* The received edge, or `fill` on the device at the end of the dim. */
static Value *fill_end(PartitionCtx *pc, Value *edge, const HaloDim *hd, bool up, AttrValue *fill, Loc loc)
{
    Op *op;
    Value *at = at_end(pc, hd, up, loc);
    Value *value = pc_emit1(pc, OP_FULL, loc, NULL, 0, "halo.fill", edge->type, &op);
    pc_set_attr(pc, op, ATTR_KEY_VALUE, fill);
    return pc_emit1(pc, OP_SELECT, loc, (Value *[]){at, value, edge}, 3, edge->name, edge->type, NULL);
}

static bool same_halo(const WindowHalo *a, const WindowHalo *b)
{
    if (a->count != b->count)
        return false;
    for (int k = 0; k < a->count; k++) {
        const HaloDim *p = &a->dims[k], *q = &b->dims[k];
        if (p->dim != q->dim || p->lo != q->lo || p->hi != q->hi || !pc_axes_same(&p->axes, &q->axes))
            return false;
    }
    return true;
}

static bool same_fill(const AttrValue *a, const AttrValue *b)
{
    return a->kind == b->kind && (a->kind == ATTR_FLOAT ? a->u.f == b->u.f
                                  : a->kind == ATTR_BOOL ? a->u.b == b->u.b : a->u.i == b->u.i);
}

static HaloExchange *find_exchange(PartitionCtx *pc, const Value *x, const WindowHalo *h, const AttrValue *fill,
                                   bool fill_ends)
{
    for (HaloExchange *e = pc->halos; e; e = e->next)
        if (e->x == x && e->body == pc->body && e->fill_ends == fill_ends && same_fill(e->fill, fill) &&
            same_halo(&e->halo, h))
            return e;
    return NULL;
}

static Value *exchange_halos(PartitionCtx *pc, const Op *op, Value *x, const DimAxes *layout, const WindowHalo *h,
                             AttrValue *fill, bool fill_ends)
{
    const TensorType *global = &op->operands[0]->type;
    for (int k = 0; k < h->count; k++) {
        const HaloDim *hd = &h->dims[k];
        pc->reason = pc_printf(pc, "'%s' reads a halo of %lld and %lld elements of its neighbours' blocks of "
                               "%%%s along dim %d (stride %lld)",
                               op_info(op->kind)->name, (long long)hd->lo, (long long)hd->hi,
                               op->operands[0]->name, hd->dim, (long long)hd->stride);
        if (pc_dim_uneven(global, layout, hd->dim))
            x = pc_mask_padding(pc, x, global, layout, hd->dim, fill, op->loc);
        Value *parts[3];
        int n = 0;
        int64_t block = x->type.dims[hd->dim];
        if (hd->lo) {
            Value *edge = slice_dim(pc, x, hd->dim, block - hd->lo, hd->lo, "halo.edge", op->loc);
            parts[n] = shift(pc, edge, hd, true, "halo.from_prev", op->loc);
            if (fill_ends)
                parts[n] = fill_end(pc, parts[n], hd, true, fill, op->loc);
            n++;
        }
        parts[n++] = x;
        if (hd->hi) {
            Value *edge = slice_dim(pc, x, hd->dim, 0, hd->hi, "halo.edge", op->loc);
            parts[n] = shift(pc, edge, hd, false, "halo.from_next", op->loc);
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

Value *pc_window_halo(PartitionCtx *pc, const Op *op, Value *x, const DimAxes *layout, const WindowHalo *h,
                      AttrValue *fill, bool fill_ends)
{
    const HaloExchange *found = find_exchange(pc, x, h, fill, fill_ends);
    if (found)
        return found->haloed;
    HaloExchange *e = ARENA_NEW(&pc->tables, HaloExchange);
    *e = (HaloExchange){x, pc->body, *h, fill, fill_ends, NULL, pc->halos};
    e->haloed = exchange_halos(pc, op, x, layout, h, fill, fill_ends);
    pc->halos = e;
    return e->haloed;
}

Value *pc_window_source(PartitionCtx *pc, const Op *op, Value *source, const DimAxes *layout, const WindowHalo *h)
{
    const TensorType *global = &op->operands[1]->type;
    for (int k = 0; k < h->count; k++)
        if (pc_dim_uneven(global, layout, h->dims[k].window))
            source = pc_mask_padding(pc, source, global, layout, h->dims[k].window,
                                     pc_zero_attr(pc, source->type.dtype), op->loc);
    return source;
}

static Value *add(PartitionCtx *pc, Value *a, Value *b, Loc loc)
{
    return pc_emit1(pc, OP_ADD, loc, (Value *[]){a, b}, 2, a->name, a->type, NULL);
}

/* A value of `block` elements along d holding `part` from `at`, zeros
 * elsewhere. */
static Value *place(PartitionCtx *pc, Value *part, int d, int64_t at, int64_t block, Loc loc)
{
    int64_t low[SHARDC_MAX_RANK] = {0}, high[SHARDC_MAX_RANK] = {0};
    low[d] = at;
    high[d] = block - at - part->type.dims[d];
    TensorType t = type_make(&pc->module->arena, part->type.dtype, part->type.rank, part->type.dims);
    ((int64_t *)t.dims)[d] = block;
    Op *op;
    Value *r = pc_emit1(pc, OP_PAD, loc, &part, 1, "halo.placed", t, &op);
    pc_set_attr(pc, op, ATTR_KEY_LOW, pc_int_array_attr(pc, low, part->type.rank));
    pc_set_attr(pc, op, ATTR_KEY_HIGH, pc_int_array_attr(pc, high, part->type.rank));
    pc_set_attr(pc, op, ATTR_KEY_VALUE, pc_zero_attr(pc, part->type.dtype));
    return r;
}

/* What the first device scattered into its low halo, the padding before
 * the dim (filled with the lowest value), belongs to the dim's first
 * element: `ge` selects the first of equal elements, so a window whose
 * elements all equal the lowest value selected the padding where the
 * global op, which never selects padding, selects its first element, and
 * every window that reaches into the padding (none lies within it) starts
 * at the dim's first element. On the first device its sum is added there. */
static Value *first_end(PartitionCtx *pc, Value *low, const HaloDim *hd, int64_t block, Loc loc)
{
    Value *sum = hd->lo == 1 ? low : slice_dim(pc, low, hd->dim, 0, 1, "halo.padding", loc);
    for (int64_t t = 1; t < hd->lo; t++)
        sum = add(pc, sum, slice_dim(pc, low, hd->dim, t, 1, "halo.padding", loc), loc);
    Value *zeros = pc_emit1(pc, OP_ZEROS, loc, NULL, 0, "halo.zero", sum->type, NULL);
    Value *at = at_end(pc, hd, true, loc);
    sum = pc_emit1(pc, OP_SELECT, loc, (Value *[]){at, sum, zeros}, 3, "halo.padding", sum->type, NULL);
    return place(pc, sum, hd->dim, 0, block, loc);
}

/* The transpose of the halo exchange along hd: y, the local result over
 * the previous block's last `lo` elements, this block and the next's
 * first `hi`, sends its ends back to their blocks' devices, which add
 * them to theirs (two ppermutes the other way). */
static Value *fold_dim(PartitionCtx *pc, const Op *op, Value *y, const HaloDim *hd)
{
    int d = hd->dim;
    int64_t block = y->type.dims[d] - hd->lo - hd->hi;
    pc->reason = pc_printf(pc, "'%s' sends back what it scattered into the halo of %lld and %lld elements of its "
                           "neighbours' blocks of %%%s along dim %d, added to their blocks of the result",
                           op_info(op->kind)->name, (long long)hd->lo, (long long)hd->hi, op->operands[0]->name, d);
    Value *sum = slice_dim(pc, y, d, hd->lo, block, op->results[0]->name, op->loc);
    if (hd->lo) {
        Value *low = slice_dim(pc, y, d, 0, hd->lo, "halo.scattered", op->loc);
        Value *from_next = shift(pc, low, hd, false, "halo.back_from_next", op->loc);
        sum = add(pc, sum, place(pc, from_next, d, block - hd->lo, block, op->loc), op->loc);
        sum = add(pc, sum, first_end(pc, low, hd, block, op->loc), op->loc);
    }
    if (hd->hi) {
        Value *high = slice_dim(pc, y, d, hd->lo + block, hd->hi, "halo.scattered", op->loc);
        Value *from_prev = shift(pc, high, hd, true, "halo.back_from_prev", op->loc);
        sum = add(pc, sum, place(pc, from_prev, d, 0, block, op->loc), op->loc);
    }
    return sum;
}

static void set_padding(PartitionCtx *pc, Op *local, const WindowDims *w)
{
    AttrValue *pad = attr_new(&pc->module->arena, ATTR_ARRAY, local->loc);
    pad->u.array.count = w->n;
    pad->u.array.items = ARENA_ARRAY(&pc->module->arena, AttrValue *, w->n + 1);
    for (int i = 0; i < w->n; i++)
        pad->u.array.items[i] = pc_int_array_attr(pc, (int64_t[]){w->lo[i], w->hi[i]}, 2);
    pc_set_attr(pc, local, ATTR_KEY_PADDING, pad);
}

Op *pc_window_localize(PartitionCtx *pc, const Op *op, Op *local, const WindowHalo *h)
{
    WindowDims w;
    op_window_dims(local, &w);
    bool padded = false;
    for (int k = 0; k < h->count; k++) {
        padded |= w.lo[h->dims[k].window] || w.hi[h->dims[k].window];
        w.lo[h->dims[k].window] = w.hi[h->dims[k].window] = 0;
    }
    if (padded)
        set_padding(pc, local, &w);
    if (op->kind != OP_SELECT_AND_SCATTER)
        return local;
    Value *y = local->results[0];
    y->type = local->operands[0]->type;
    for (int k = h->count - 1; k >= 0; k--)
        if (h->dims[k].lo || h->dims[k].hi)
            y = fold_dim(pc, op, y, &h->dims[k]);
    return y->def;
}
