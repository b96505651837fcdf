/* Per-device versions of values, reshards emitted as collectives, and the
 * padding and masks of uneven dims (GSPMD-style). */

/* Per-device versions of values, and reshards emitted as collectives. */
#include <string.h>
#include "shardc/checked.h"
#include "partition/partition_ctx.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

bool pc_axes_same(const AxisList *a, const AxisList *b)
{
    AxisList ma, mb;
    ma.count = mb.count = 0;
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

static bool version_has_layout(const LocalVersion *version, const DimAxes *want)
{
    const PackedLayout *v = version->layout;
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

void pc_unpack_layout(DimAxes *out, const PackedLayout *v)
{
    reshard_dim_axes_clear(out, v->rank);
    const AxisRef *axes = v->axes;
    for (int d = 0; d < v->rank; d++) {
        out->dims[d].count = v->counts[d];
        memcpy(out->dims[d].axes, axes, sizeof(AxisRef) * (size_t)v->counts[d]);
        axes += v->counts[d];
    }
}

/* The version's layout as a DimAxes. */
static void version_layout(DimAxes *out, const LocalVersion *version)
{
    pc_unpack_layout(out, version->layout);
}

/* ---- the function's layouts, one copy each ---- */

struct LayoutIndex {
    PackedLayout **slots;   /* open addressing; NULL is empty */
    size_t cap, count;          /* cap a power of two */
};

static uint64_t layout_hash(const DimAxes *layout)
{
    uint64_t h = 1469598103934665603ull ^ (uint64_t)layout->rank; /* FNV-1a over the fields */
    for (int d = 0; d < layout->rank; d++) {
        h = (h ^ (uint64_t)layout->dims[d].count) * 1099511628211ull;
        for (int k = 0; k < layout->dims[d].count; k++) {
            const AxisRef *r = &layout->dims[d].axes[k];
            h = (h ^ (uint64_t)r->axis) * 1099511628211ull;
            h = (h ^ (uint64_t)r->pre_size) * 1099511628211ull;
            h = (h ^ (uint64_t)r->size) * 1099511628211ull;
        }
    }
    return h;
}

/* Exactly the same axes, as written (no merging of sub-axes). */
static bool packed_is(const PackedLayout *p, const DimAxes *layout)
{
    if (p->rank != layout->rank)
        return false;
    const AxisRef *axes = p->axes;
    for (int d = 0; d < p->rank; d++) {
        if (p->counts[d] != layout->dims[d].count)
            return false;
        for (int k = 0; k < p->counts[d]; k++)
            if (!axis_ref_equal(axes[k], layout->dims[d].axes[k]))
                return false;
        axes += p->counts[d];
    }
    return true;
}

static PackedLayout **layout_slot(const struct LayoutIndex *ix, const DimAxes *layout, uint64_t hash)
{
    for (size_t i = hash & (ix->cap - 1);; i = (i + 1) & (ix->cap - 1))
        if (!ix->slots[i] || (ix->slots[i]->hash == hash && packed_is(ix->slots[i], layout)))
            return &ix->slots[i];
}

static void layouts_grow(struct LayoutIndex *ix)
{
    size_t old_cap = ix->cap, cap = old_cap ? 2 * old_cap : 64;
    PackedLayout **old = ix->slots;
    ix->slots = calloc(cap, sizeof *ix->slots);
    if (!ix->slots)
        arena_out_of_memory();
    ix->cap = cap;
    for (size_t i = 0; i < old_cap; i++) {
        if (!old[i])
            continue;
        size_t j = old[i]->hash & (cap - 1);
        while (ix->slots[j])
            j = (j + 1) & (cap - 1);
        ix->slots[j] = old[i];
    }
    free(old);
}

static PackedLayout *pack_layout(Arena *arena, const DimAxes *layout, uint64_t hash)
{
    PackedLayout *p = ARENA_NEW(arena, PackedLayout);
    int total = 0;
    for (int d = 0; d < layout->rank; d++)
        total += layout->dims[d].count;
    int *counts = ARENA_ARRAY(arena, int, layout->rank + 1);
    AxisRef *axes = ARENA_ARRAY(arena, AxisRef, total + 1);
    *p = (PackedLayout){layout->rank, counts, axes, hash, NULL};
    for (int d = 0; d < layout->rank; d++) {
        counts[d] = layout->dims[d].count;
        memcpy(axes, layout->dims[d].axes, sizeof(AxisRef) * (size_t)counts[d]);
        axes += counts[d];
    }
    return p;
}

PackedLayout *pc_packed_layout(PartitionCtx *pc, const DimAxes *layout)
{
    struct LayoutIndex *ix = pc->layouts;
    if (!ix && !(ix = pc->layouts = calloc(1, sizeof *ix)))
        arena_out_of_memory();
    if ((ix->count + 1) * 2 > ix->cap)
        layouts_grow(ix);
    uint64_t hash = layout_hash(layout);
    PackedLayout **slot = layout_slot(ix, layout, hash);
    if (!*slot) {
        *slot = pack_layout(&pc->tables, layout, hash);
        ix->count++;
    }
    return *slot;
}

void pc_free_layouts(PartitionCtx *pc)
{
    if (pc->layouts)
        free(pc->layouts->slots);
    free(pc->layouts);
    pc->layouts = NULL;
}

void pc_layout_of(DimAxes *out, const Value *global)
{
    reshard_dim_axes_from_sharding(out, global->sharding, global->type.rank);
}

void pc_add_partial_version(PartitionCtx *pc, const Value *global, Value *local, const DimAxes *layout,
                            const AxisList *partial, ReductionKind combine)
{
    Arena *arena = &pc->tables; /* needed only while this function is partitioned */
    LocalVersion *v = ARENA_NEW(arena, LocalVersion);
    v->local = local;
    v->layout = pc_packed_layout(pc, layout);
    if (partial && partial->count) { /* count <= AXIS_LIST_MAX: no overflow */
        size_t size = sizeof(VersionPartial) + sizeof(AxisRef) * (size_t)partial->count;
        VersionPartial *p = arena_alloc_uninit(arena, size);
        p->combine = combine;
        p->count = partial->count;
        memcpy(p->axes, partial->axes, sizeof(AxisRef) * (size_t)partial->count);
        v->partial = p;
    }
    LocalVersion **tail = &pc->versions[global->id];
    while (*tail)
        tail = &(*tail)->next;
    *tail = v;
}

void pc_add_version(PartitionCtx *pc, const Value *global, Value *local, const DimAxes *layout)
{
    pc_add_partial_version(pc, global, local, layout, NULL, REDUCE_SUM);
}

ReductionKind pc_version_partial(const LocalVersion *v, AxisList *out)
{
    out->count = v->partial ? v->partial->count : 0;
    if (out->count)
        memcpy(out->axes, v->partial->axes, sizeof(AxisRef) * (size_t)out->count);
    return v->partial ? v->partial->combine : REDUCE_SUM;
}

/* Whether version v is partial over exactly `keep` (NULL: nothing). */
static bool version_has_partial(const LocalVersion *v, const AxisList *keep, ReductionKind combine)
{
    int n = keep ? keep->count : 0;
    if (!n || !v->partial)
        return !n && !v->partial;
    if (v->partial->count != n || v->partial->combine != combine)
        return false;
    for (int i = 0; i < n; i++)
        if (!axis_ref_equal(v->partial->axes[i], keep->axes[i]))
            return false;
    return true;
}

static Value *find_partial_version(PartitionCtx *pc, const Value *global, const DimAxes *want, const AxisList *keep,
                                   ReductionKind combine)
{
    LocalVersion *first = global->id < pc->num_global_values ? pc->versions[global->id] : NULL;
    for (LocalVersion *v = first; v; v = v->next)
        if (version_has_layout(v, want) && version_has_partial(v, keep, combine))
            return v->local;
    return NULL;
}

Value *pc_first_version_as(PartitionCtx *pc, const Value *global, const PackedLayout *layout)
{
    const LocalVersion *first = global->id < pc->num_global_values ? pc->versions[global->id] : NULL;
    return first && first->layout == layout && !first->partial ? first->local : NULL;
}

Value *pc_find_version(PartitionCtx *pc, const Value *global, const DimAxes *want)
{
    return find_partial_version(pc, global, want, NULL, REDUCE_SUM);
}

Value *pc_local_as(PartitionCtx *pc, const Value *global, const DimAxes *want, Loc loc)
{
    return pc_local_as_partial(pc, global, want, NULL, REDUCE_SUM, loc);
}

/* What the first version is partial over, split into the axes to reduce
 * now and those of `keep` still to make partial. Partials combined
 * otherwise than `combine` are reduced whole. */
static void split_partial(const LocalVersion *first, const AxisList *keep, ReductionKind combine, AxisList *reduce,
                          AxisList *extra)
{
    AxisList have, none = {0};
    bool same = pc_version_partial(first, &have) == combine || !have.count;
    if (!keep)
        keep = &none;
    pc_axes_minus(reduce, &have, same ? keep : &none);
    pc_axes_minus(extra, keep, same ? &have : &none);
}

Value *pc_local_as_partial(PartitionCtx *pc, const Value *global, const DimAxes *want, const AxisList *keep,
                           ReductionKind combine, Loc loc)
{
    LocalVersion *first = global->id < pc->num_global_values ? pc->versions[global->id] : NULL;
    if (!first) {
        diag_error(pc->diag, loc, "internal: no per-device value for %%%s", global->name);
        pc->ok = false;
        return NULL;
    }
    Value *found = find_partial_version(pc, global, want, keep, combine);
    if (found)
        return found;
    DimAxes from;
    version_layout(&from, first);
    HoistPoint *at = pc_hoist_target(pc, first->local);
    Block *body = pc->body;
    Op *before = pc->insert_before;
    int64_t executions = pc->executions;
    PaddingMask *masks = pc->masks;
    if (at) { /* loop-invariant: emitted once, before the loop, with what exists there */
        pc->body = at->block;
        pc->insert_before = at->loop;
        pc->executions = at->executions;
        pc->masks = at->masks;
    }
    AxisList reduce, extra, have, kept;
    split_partial(first, keep, combine, &reduce, &extra);
    ReductionKind had = pc_version_partial(first, &have);
    axis_list_minus(&kept, &have, &reduce);
    DimAxes to = *want, shed;
    AxisList s2u = {0}, r2u;
    if (extra.count && combine == REDUCE_SUM && !pc_layout_uneven(&global->type, &from))
        reshard_unreduced_split(&from, want, &extra, &to, &shed, &s2u);
    axis_list_minus(&r2u, &extra, &s2u);
    pc->kept = &kept;
    Value *local = pc_reshard(pc, first->local, &global->type, &from, reduce.count ? &reduce : NULL, had, &to,
                              global->name, loc);
    pc->kept = NULL;
    if (local && r2u.count)
        local = pc_replicated_to_unreduced(pc, local, &r2u, combine, loc);
    if (local && s2u.count)
        local = pc_sharded_to_unreduced(pc, local, &global->type, &to, &shed, loc);
    pc->body = body;
    pc->insert_before = before;
    pc->executions = executions;
    pc->masks = masks;
    if (local)
        pc_add_partial_version(pc, global, local, want, keep, combine);
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

/* A collective's attributes, gathered and set at once (op_attrs_append). */
typedef struct StepAttrs {
    AttrKey keys[6];
    AttrValue *values[6];
    int count;
} StepAttrs;

static void step_attr(StepAttrs *a, AttrKey key, AttrValue *value)
{
    a->keys[a->count] = key;
    a->values[a->count++] = value;
}

static void set_step_attrs(PartitionCtx *pc, Op *op, const ReshardStep *s, const DimAxes *before,
                           ReductionKind reduction, int64_t bytes)
{
    StepAttrs a = {.count = 0};
    if (s->kind != STEP_COLLECTIVE_PERMUTE)
        step_attr(&a, ATTR_KEY_AXES, pc_axes_attr(pc, &s->axes));
    switch (s->kind) {
    case STEP_ALL_SLICE: case STEP_REDUCE_SCATTER:
        step_attr(&a, ATTR_KEY_DIM, pc_int_attr(pc, s->dim));
        break;
    case STEP_ALL_GATHER:
        step_attr(&a, ATTR_KEY_AXIS, pc_int_attr(pc, s->dim));
        step_attr(&a, ATTR_KEY_TILED, pc_bool_attr(pc, true));
        break;
    case STEP_ALL_TO_ALL:
        step_attr(&a, ATTR_KEY_SPLIT_AXIS, pc_int_attr(pc, s->dim));
        step_attr(&a, ATTR_KEY_CONCAT_AXIS, pc_int_attr(pc, s->src_dim));
        step_attr(&a, ATTR_KEY_TILED, pc_bool_attr(pc, true));
        break;
    case STEP_COLLECTIVE_PERMUTE:
        step_attr(&a, ATTR_KEY_SOURCE, pc_partial_sharding_attr(pc, before, pc->kept));
        step_attr(&a, ATTR_KEY_TARGET, pc_partial_sharding_attr(pc, &s->after, pc->kept));
        break;
    case STEP_ALL_REDUCE:
        break;
    }
    if (s->kind == STEP_ALL_REDUCE || s->kind == STEP_REDUCE_SCATTER)
        step_attr(&a, ATTR_KEY_REDUCTION, pc_string_attr(pc, reshard_reduction_name(reduction)));
    step_attr(&a, ATTR_KEY_BYTES_PER_DEVICE, pc_int_attr(pc, bytes));
    op_attrs_append(&pc->module->arena, op, a.count, a.keys, a.values);
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
    int64_t bytes = reshard_step_bytes(s, pc_type_bytes(&in->type), pc_type_bytes(&type));
    set_step_attrs(pc, op, s, before, reduction, bytes);
    pc_record_collective(pc, (CollectiveRecord){op->kind, pc->mesh, s->axes, bytes, base, loc, out->name, pc->reason, 0});
    return out;
}

bool pc_plan(PartitionCtx *pc, ReshardPlan *plan, const TensorType *global, const DimAxes *from,
             const AxisList *partial, const DimAxes *to, const char *base, Loc loc)
{
    ReshardOptions opt = {.shape = global->dims, .even_steps = true, .fewest_bytes = pc->fewest_bytes};
    if (reshard_plan(plan, pc->mesh, from, partial, to, &opt))
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
    /* Most results already have the layout they want: the plan would be
     * empty, and planning it was a fifth of partitioning. */
    if ((!partial || !partial->count) && from->rank == to->rank && reshard_dim_axes_equal(from, to))
        return local;
    ReshardPlan plan;
    if (!pc_plan(pc, &plan, global, from, partial, to, base, loc))
        return NULL;
    return pc_emit_plan(pc, local, global, &plan, from, reduction, base, loc);
}

/* Uneven dims, GSPMD style (docs/partitioning.md "Uneven dims"): a dim of
 * size N split n ways holds c = ceil(N / n) elements per device, shard i
 * covering [i*c, i*c + c) of the dim padded to n*c. Ops independent along
 * the dim run on the padded blocks as they are; the padding's contents
 * are unspecified, so a reduction over the dim first masks it to the
 * reduction's identity, and a reshard between layouts whose paddings do
 * not line up goes through the whole dim. */

bool pc_dim_uneven(const TensorType *global, const DimAxes *layout, int d)
{
    return global->dims[d] % axis_list_size(&layout->dims[d]) != 0;
}

bool pc_layout_uneven(const TensorType *global, const DimAxes *layout)
{
    for (int d = 0; d < global->rank && d < layout->rank; d++)
        if (pc_dim_uneven(global, layout, d))
            return true;
    return false;
}

/* ---- reshards ---------------------------------------------------------- */

/* Which dims a reshard takes through their whole size: none if the plan
 * keeps every padding (plan_keeps_padding); else the uneven dims it
 * changes; else every uneven dim; as a last resort every dim. */
typedef enum { CUT_NONE, CUT_CHANGED_UNEVEN, CUT_UNEVEN, CUT_ALL } CutPolicy;

static void dims_to_cut(bool *cut, const TensorType *global, const DimAxes *from, const DimAxes *to,
                        CutPolicy policy)
{
    for (int d = 0; d < global->rank; d++) {
        bool uneven = pc_dim_uneven(global, from, d) || pc_dim_uneven(global, to, d);
        bool changed = !pc_axes_same(&from->dims[d], &to->dims[d]);
        cut[d] = policy == CUT_ALL || (policy != CUT_NONE && uneven && (policy == CUT_UNEVEN || changed));
    }
}

static void clear_dims(DimAxes *out, const DimAxes *in, const bool *cut)
{
    *out = *in;
    for (int d = 0; d < in->rank; d++)
        if (cut[d])
            out->dims[d].count = 0;
}

/* The size dim d is padded to under a layout, shards * ceil(size / shards);
 * false past INT64_MAX (a zero-element tensor with a dim near it). */
static bool padded_size(const TensorType *global, const DimAxes *layout, int d, int64_t *out)
{
    return size_padded(global->dims[d], axis_list_size(&layout->dims[d]), out);
}

/* Whether every step of the plan keeps the padded size of the dims it
 * changes: then the collectives split and concatenate padded blocks of
 * one padded tensor exactly as if it were even (7 on 4 shards and on 2
 * both pad to 8; 10 on 2 and on 4 pad to 10 and 12, and do not line up). */
static bool plan_keeps_padding(const ReshardPlan *plan, const TensorType *global, const DimAxes *from)
{
    const DimAxes *before = from;
    for (int i = 0; i < plan->num_steps; i++) {
        const DimAxes *after = &plan->steps[i].after;
        for (int d = 0; d < global->rank; d++) {
            int64_t was, now;
            if (!pc_axes_same(&before->dims[d], &after->dims[d]) &&
                (!padded_size(global, before, d, &was) || !padded_size(global, after, d, &now) || was != now))
                return false;
        }
        before = after;
    }
    return true;
}

/* A local op on `in` named BASE.SUFFIX; its attributes are the caller's. */
static Op *emit_local(PartitionCtx *pc, OpKind kind, Value *in, TensorType type, const char *base,
                      const char *suffix, Loc loc)
{
    Op *op;
    char name[256];
    snprintf(name, sizeof name, "%s.%s", base, suffix);
    pc_emit1(pc, kind, loc, &in, 1, name, type, &op);
    return op;
}

static Value *cut_padding(PartitionCtx *pc, Value *padded, int d, int64_t size, const char *base, Loc loc)
{
    int rank = padded->type.rank;
    int64_t start[SHARDC_MAX_RANK] = {0}, stride[SHARDC_MAX_RANK], limit[SHARDC_MAX_RANK];
    for (int k = 0; k < rank; k++) {
        stride[k] = 1;
        limit[k] = k == d ? size : padded->type.dims[k];
    }
    TensorType type = type_make(&pc->module->arena, padded->type.dtype, rank, limit);
    Op *op = emit_local(pc, OP_SLICE, padded, type, base, "unpad", loc);
    pc_set_attr(pc, op, ATTR_KEY_START, pc_int_array_attr(pc, start, rank));
    pc_set_attr(pc, op, ATTR_KEY_LIMIT, pc_int_array_attr(pc, limit, rank));
    pc_set_attr(pc, op, ATTR_KEY_STRIDE, pc_int_array_attr(pc, stride, rank));
    return op->results[0];
}

static Value *add_padding(PartitionCtx *pc, Value *whole, int d, int64_t padded_size, const char *base, Loc loc)
{
    int rank = whole->type.rank;
    int64_t zeros[SHARDC_MAX_RANK] = {0}, high[SHARDC_MAX_RANK] = {0};
    high[d] = padded_size - whole->type.dims[d];
    TensorType type = type_make(&pc->module->arena, whole->type.dtype, rank, whole->type.dims);
    type.dims[d] = padded_size;
    Op *op = emit_local(pc, OP_PAD, whole, type, base, "pad", loc);
    pc_set_attr(pc, op, ATTR_KEY_LOW, pc_int_array_attr(pc, zeros, rank));
    pc_set_attr(pc, op, ATTR_KEY_HIGH, pc_int_array_attr(pc, high, rank));
    pc_set_attr(pc, op, ATTR_KEY_INTERIOR, pc_int_array_attr(pc, zeros, rank));
    pc_set_attr(pc, op, ATTR_KEY_VALUE, pc_zero_attr(pc, whole->type.dtype));
    return op->results[0];
}

/* All-gather dim d whole: the blocks concatenate to the padded size, then
 * the padding is cut off. */
static Value *gather_whole_dim(PartitionCtx *pc, Value *local, const TensorType *global, DimAxes *layout, int d,
                               const char *base, Loc loc)
{
    ReshardStep *step = ARENA_NEW(&pc->scratch, ReshardStep);
    DimAxes *before = ARENA_NEW(&pc->scratch, DimAxes);
    *before = *layout;
    *step = (ReshardStep){.kind = STEP_ALL_GATHER, .dim = d, .axes = layout->dims[d]};
    layout->dims[d].count = 0;
    step->after = *layout;
    TensorType padded = type_make(&pc->module->arena, local->type.dtype, local->type.rank, local->type.dims);
    padded.dims[d] *= axis_list_size(&step->axes);
    Value *whole = pc_emit_step(pc, local, padded, global, step, before, REDUCE_SUM, base, loc);
    return padded.dims[d] == global->dims[d] ? whole : cut_padding(pc, whole, d, global->dims[d], base, loc);
}

/* Whether every cut dim of `global` padded under `layout` fits in int64:
 * the whole-dim gathers and slices build the padded dim. */
static bool cuts_fit(const TensorType *global, const DimAxes *layout, const bool *cut)
{
    int64_t padded;
    for (int d = 0; d < global->rank && d < layout->rank; d++)
        if (cut[d] && !padded_size(global, layout, d, &padded))
            return false;
    return true;
}

/* A reshard whose padded dims pass INT64_MAX: only a zero-element tensor
 * can have such a dim (--max-bytes stops the others), and it has no
 * contents to move, so the target's empty block is made in place. */
static Value *reshard_empty(PartitionCtx *pc, const TensorType *global, const DimAxes *to, const char *base,
                            Loc loc)
{
    int64_t count;
    if (!type_num_elements(global, &count) || count != 0) {
        diag_error(pc->diag, loc, "cannot reshard %%%s: a dim padded to a multiple of its shards does not fit in "
                   "64 bits", base);
        pc->ok = false;
        return NULL;
    }
    Op *op;
    Value *v = pc_emit1(pc, OP_FULL, loc, NULL, 0, base, pc_local_type(pc, global, to), &op);
    pc_set_attr(pc, op, ATTR_KEY_VALUE, pc_zero_attr(pc, global->dtype));
    return v;
}

/* Pad the whole dim d to a multiple of the shards, then slice it locally. */
static Value *slice_whole_dim(PartitionCtx *pc, Value *local, const TensorType *global, DimAxes *layout, int d,
                              const AxisList *axes, const char *base, Loc loc)
{
    int64_t padded = global->dims[d];
    size_padded(global->dims[d], axis_list_size(axes), &padded); /* fits: pc_reshard_uneven checked */
    if (padded != global->dims[d])
        local = add_padding(pc, local, d, padded, base, loc);
    ReshardStep *step = ARENA_NEW(&pc->scratch, ReshardStep);
    DimAxes *before = ARENA_NEW(&pc->scratch, DimAxes);
    *before = *layout;
    *step = (ReshardStep){.kind = STEP_ALL_SLICE, .dim = d, .axes = *axes};
    layout->dims[d] = *axes;
    step->after = *layout;
    return pc_emit_step(pc, local, pc_local_type(pc, global, layout), global, step, before, REDUCE_SUM, base, loc);
}

Value *pc_reshard_uneven(PartitionCtx *pc, Value *local, const TensorType *global, const DimAxes *from,
                         const AxisList *partial, ReductionKind reduction, const DimAxes *to, const char *base,
                         Loc loc)
{
    bool cut[SHARDC_MAX_RANK];
    DimAxes *mid_from = ARENA_NEW(&pc->scratch, DimAxes), *mid_to = ARENA_NEW(&pc->scratch, DimAxes);
    ReshardPlan *plan = ARENA_NEW(&pc->scratch, ReshardPlan);
    for (CutPolicy policy = CUT_NONE;; policy++) {
        dims_to_cut(cut, global, from, to, policy);
        clear_dims(mid_from, from, cut);
        clear_dims(mid_to, to, cut);
        if (!pc_plan(pc, plan, global, mid_from, partial, mid_to, base, loc))
            return NULL;
        if (policy == CUT_ALL || plan_keeps_padding(plan, global, mid_from))
            break;
    }
    if (!cuts_fit(global, from, cut) || !cuts_fit(global, to, cut))
        return reshard_empty(pc, global, to, base, loc);
    DimAxes *layout = ARENA_NEW(&pc->scratch, DimAxes);
    *layout = *from;
    for (int d = 0; d < global->rank; d++)
        if (cut[d] && from->dims[d].count)
            local = gather_whole_dim(pc, local, global, layout, d, base, loc);
    local = pc_emit_plan(pc, local, global, plan, mid_from, reduction, base, loc);
    *layout = *mid_to;
    for (int d = 0; d < global->rank; d++)
        if (cut[d] && to->dims[d].count)
            local = slice_whole_dim(pc, local, global, layout, d, &to->dims[d], base, loc);
    return local;
}

/* ---- masking ----------------------------------------------------------- */

static Value *scalar_constant(PartitionCtx *pc, DType dtype, AttrValue *value, const char *base, Loc loc)
{
    Op *op;
    Value *v = pc_emit1(pc, OP_FULL, loc, NULL, 0, base, (TensorType){dtype, 0, NULL}, &op);
    pc_set_attr(pc, op, ATTR_KEY_VALUE, value);
    return v;
}

static PaddingMask *find_mask(PartitionCtx *pc, const TensorType *pred, int d, int64_t size, const AxisList *axes)
{
    for (PaddingMask *m = pc->masks; m; m = m->next)
        if (m->dim == d && m->global_size == size && type_equal(&m->local, pred) && pc_axes_same(&m->axes, axes))
            return m;
    return NULL;
}

/* axis_index * c + iota_d < N: the device's positions along d that fall
 * inside the global dim. */
static Value *real_elements(PartitionCtx *pc, const TensorType *pred, int d, int64_t size, const AxisList *axes,
                            Loc loc)
{
    PaddingMask *cached = find_mask(pc, pred, d, size, axes);
    if (cached)
        return cached->real;
    TensorType scalar = {DT_I32, 0, NULL};
    TensorType index = type_make(&pc->module->arena, DT_I32, pred->rank, pred->dims);
    Op *op;
    Value *shard = pc_emit1(pc, OP_AXIS_INDEX, loc, NULL, 0, "pad.shard", scalar, &op);
    pc_set_attr(pc, op, ATTR_KEY_AXES, pc_axes_attr(pc, axes));
    Value *local_size = scalar_constant(pc, DT_I32, pc_int_attr(pc, pred->dims[d]), "pad.size", loc);
    Value *offset = pc_emit1(pc, OP_MUL, loc, (Value *[]){shard, local_size}, 2, "pad.offset", scalar, NULL);
    Value *iota = pc_emit1(pc, OP_IOTA, loc, NULL, 0, "pad.iota", index, &op);
    pc_set_attr(pc, op, ATTR_KEY_DIMENSION, pc_int_attr(pc, d));
    Value *position = pc_emit1(pc, OP_ADD, loc, (Value *[]){iota, offset}, 2, "pad.position", index, NULL);
    Value *limit = scalar_constant(pc, DT_I32, pc_int_attr(pc, size), "pad.limit", loc);
    Value *real = pc_emit1(pc, OP_COMPARE, loc, (Value *[]){position, limit}, 2, "pad.real", *pred, &op);
    pc_set_attr(pc, op, ATTR_KEY_DIRECTION, pc_string_attr(pc, "lt"));
    PaddingMask *m = ARENA_NEW(&pc->tables, PaddingMask);
    *m = (PaddingMask){*pred, d, size, *axes, real, pc->masks};
    pc->masks = m;
    return real;
}

Value *pc_mask_padding(PartitionCtx *pc, Value *local, const TensorType *global, const DimAxes *layout, int d,
                       AttrValue *fill, Loc loc)
{
    TensorType pred = type_make(&pc->module->arena, DT_BOOL, local->type.rank, local->type.dims);
    Value *real = real_elements(pc, &pred, d, global->dims[d], &layout->dims[d], loc);
    Value *identity = scalar_constant(pc, local->type.dtype, fill, "pad.identity", loc);
    char name[256];
    snprintf(name, sizeof name, "%s.masked", local->name);
    return pc_emit1(pc, OP_SELECT, loc, (Value *[]){real, local, identity}, 3, name, local->type, NULL);
}
