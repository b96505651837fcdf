/* Shardy's reshard-to-collectives (CollectiveInserter in
 * shardy/dialect/sdy/transforms/export/reshard_to_collectives.cc), step
 * for step, so shardc plans the collectives Shardy does.
 *
 * The state is three per-dim axis lists: `in`, the current sharding
 * beyond its common prefix with the target; `out`, the target beyond that
 * prefix; `cur`, the current sharding whole. A collective changes them
 * until `in` and `out` are empty. Each round tries, in order: an
 * all-slice (target axes nothing uses yet, within each dim's capacity, or
 * on the source dim of a later all-to-all), a collective-permute (replace
 * or reorder axes while every dim keeps its shard count), all-to-alls
 * (first those that land where the target wants them), an all-gather.
 * Powers of two finish in one round; other sizes within two.
 *
 * `in_set` holds the axes in `in`; `map` says where each axis of `out`
 * sits (dim and index), rebuilt where Shardy rebuilds it, so it may name
 * axes already placed, as Shardy's does. */
#include <string.h>
#include "reshard_internal.h"

typedef struct OutEntry {
    AxisRef axis;
    int dim, index;
} OutEntry;

typedef struct Inserter {
    const Mesh *mesh;
    const int64_t *shape;
    int rank;
    AxisList in[SHARDC_MAX_RANK], out[SHARDC_MAX_RANK];
    DimAxes cur;
    int64_t capacity[SHARDC_MAX_RANK];
    int in_count, map_count;
    AxisRef in_set[RESHARD_MAX_AXES];
    OutEntry map[RESHARD_MAX_AXES];
    bool devices_pending;   /* the device order still to change */
    ReshardPlan *plan;
    bool ok;
} Inserter;

/* ---- the sets ---- */

static bool in_set_contains(const Inserter *I, AxisRef a)
{
    for (int i = 0; i < I->in_count; i++)
        if (axis_ref_equal(I->in_set[i], a))
            return true;
    return false;
}

static void in_set_insert(Inserter *I, AxisRef a)
{
    if (in_set_contains(I, a))
        return;
    if (I->in_count == RESHARD_MAX_AXES)
        I->ok = false;
    else
        I->in_set[I->in_count++] = a;
}

static void in_set_erase(Inserter *I, AxisRef a)
{
    for (int i = 0; i < I->in_count; i++)
        if (axis_ref_equal(I->in_set[i], a)) {
            I->in_set[i] = I->in_set[--I->in_count];
            return;
        }
}

static const OutEntry *map_find(const Inserter *I, AxisRef a)
{
    for (int i = 0; i < I->map_count; i++)
        if (axis_ref_equal(I->map[i].axis, a))
            return &I->map[i];
    return NULL;
}

static void map_rebuild(Inserter *I)
{
    I->map_count = 0;
    for (int d = 0; d < I->rank; d++)
        for (int i = 0; i < I->out[d].count; i++)
            if (!map_find(I, I->out[d].axes[i]) && I->map_count < RESHARD_MAX_AXES)
                I->map[I->map_count++] = (OutEntry){I->out[d].axes[i], d, i};
}

/* ---- list edits that keep the state whole ---- */

static void push_back(Inserter *I, AxisList *l, AxisRef a)
{
    if (!reshard_list_insert(l, l->count, a))
        I->ok = false;
}

static void insert_at(Inserter *I, AxisList *l, int at, AxisRef a)
{
    if (!reshard_list_insert(l, at, a))
        I->ok = false;
}

static void merge_into(AxisList *l, AxisRef a, const Mesh *mesh)
{
    axis_list_add_or_merge(l, a, mesh);
}

/* Remove axes[start..] from the minor end of a current dim, which may
 * hold them merged into bigger sub-axes. */
static void pop_back_current(Inserter *I, AxisList *current, const AxisList *axes, int start)
{
    for (int k = axes->count - 1; k >= start; k--) {
        AxisRef prefix;
        if (!current->count) {
            I->ok = false;
            return;
        }
        AxisRef *back = &current->axes[current->count - 1];
        if (reshard_prefix_without_overlap(I->mesh, *back, axes->axes[k], &prefix))
            *back = prefix;
        else
            current->count--;
    }
}

/* The part of `a` that fits in *capacity: all of it (capacity divided by
 * its size), or its major part of exactly *capacity (capacity 1, the
 * rest in *remainder). False if the sizes do not divide each other. */
static bool within_capacity(AxisRef a, int64_t *capacity, AxisRef *within, AxisRef *remainder, bool *split)
{
    *split = false;
    if (*capacity <= 1 || !reshard_sizes_divisible(a.size, *capacity))
        return false;
    if (*capacity >= a.size) {
        *capacity /= a.size;
        *within = a;
        return true;
    }
    *within = (AxisRef){a.axis, a.pre_size, *capacity};
    *remainder = (AxisRef){a.axis, a.pre_size * *capacity, a.size / *capacity};
    *split = true;
    *capacity = 1;
    return true;
}

static bool is_done(const Inserter *I)
{
    for (int d = 0; d < I->rank; d++)
        if (I->in[d].count || I->out[d].count)
            return false;
    return !I->devices_pending;
}

/* One collective over several dims (all-slice, all-gather) as one step
 * per dim, each leaving the dims before it as they end. */
static void emit_per_dim(Inserter *I, ReshardStepKind kind, const AxisList *axes, DimAxes *before)
{
    for (int d = 0; d < I->rank; d++) {
        if (!axes[d].count)
            continue;
        before->dims[d] = I->cur.dims[d];
        if (!reshard_add_step(I->plan, kind, d, d, &axes[d], before))
            I->ok = false;
    }
}

/* ---- distributing axes over dims with capacity ---- */

/* Add axes of `avail` (one list for all dims when `shared`, else one per
 * dim) to each dim's `in` while it has capacity, at the front or the
 * back; each added axis also goes to `slicing` and `cur` when slicing.
 * An axis split to fit splits the target's axes alike. True if any was
 * added. */
static bool distribute(Inserter *I, bool front, AxisList *avail, bool shared, AxisList *slicing)
{
    AxisRef split_axes[RESHARD_MAX_AXES];
    int num_split = 0;
    bool added = false;
    for (int d = 0; d < I->rank; d++) {
        AxisList *from = shared ? avail : &avail[d];
        int at = front ? 0 : I->in[d].count, j = 0;
        while (j < from->count && I->capacity[d] > 1) {
            AxisRef within, remainder;
            bool split;
            if (!within_capacity(from->axes[j], &I->capacity[d], &within, &remainder, &split)) {
                j++;
                continue;
            }
            reshard_list_erase(from, j);
            insert_at(I, &I->in[d], front ? at++ : I->in[d].count, within);
            in_set_insert(I, within);
            added = true;
            if (slicing) {
                merge_into(&slicing[d], within, I->mesh);
                merge_into(&I->cur.dims[d], within, I->mesh);
            }
            if (split) {
                if (num_split < RESHARD_MAX_AXES)
                    split_axes[num_split++] = within;
                insert_at(I, from, 0, remainder);
                j++;
            }
        }
    }
    reshard_sort_axes(split_axes, num_split);
    if (num_split && !reshard_align_lists(I->mesh, I->out, I->rank, split_axes, num_split))
        I->ok = false;
    return added;
}

/* ---- all-slice ---- */

/* Shardy's getAxesToSliceForAllToAll: src's axes will all-to-all to the
 * target dim that wants them, so the target's next free axes are sliced
 * on src now (sliced there, they move with the rest in one all-to-all
 * instead of needing a collective-permute later). */
static bool slice_for_all_to_all(Inserter *I, int src, AxisList *slicing)
{
    AxisList *src_in = &I->in[src];
    if (!src_in->count || I->out[src].count)
        return false;
    AxisRef back = src_in->axes[src_in->count - 1];
    const OutEntry *e = map_find(I, back);
    if (!e || I->in[e->dim].count)
        return false;
    int tgt = e->dim;
    AxisList *tgt_out = &I->out[tgt];
    int start = reshard_list_find(tgt_out, back) + 1;
    if (start == 0 || start == tgt_out->count || in_set_contains(I, tgt_out->axes[start]))
        return false;
    int i = src_in->count - 1, o = start - 1;
    int64_t common = 1, added = 1;
    for (; i >= 0 && o >= 0 && axis_ref_equal(src_in->axes[i], tgt_out->axes[o]); i--, o--)
        common *= src_in->axes[i].size;
    for (; i >= 0; i--)
        if ((e = map_find(I, src_in->axes[i])) && e->dim == tgt)
            return false;
    int end = start;
    for (; end < tgt_out->count && !in_set_contains(I, tgt_out->axes[end]); end++)
        added *= tgt_out->axes[end].size;
    if (I->shape && I->shape[src] % (axis_list_size(&I->cur.dims[src]) * added) != 0)
        return false;
    I->capacity[tgt] /= common * added;
    for (int k = start; k < end; k++) {
        AxisRef a = tgt_out->axes[k];
        push_back(I, src_in, a);
        in_set_insert(I, a);
        merge_into(&slicing[src], a, I->mesh);
        merge_into(&I->cur.dims[src], a, I->mesh);
    }
    return true;
}

/* Slice each target axis no dim uses yet on its own dim while the dim's
 * capacity allows; the others are left in `available`. */
static bool slice_in_place(Inserter *I, AxisList *slicing, AxisList *available)
{
    bool added = false;
    for (int d = 0; d < I->rank; d++) {
        AxisList *out = &I->out[d];
        for (int i = 0; i < out->count;) {
            AxisRef a = out->axes[i], within, remainder;
            bool split;
            if (in_set_contains(I, a)) {
                i++;
                continue;
            }
            if (!within_capacity(a, &I->capacity[d], &within, &remainder, &split)) {
                push_back(I, available, a);
                i++;
                continue;
            }
            added = true;
            merge_into(&slicing[d], within, I->mesh);
            merge_into(&I->cur.dims[d], within, I->mesh);
            if (!I->in[d].count && i == 0) {
                reshard_list_erase(out, 0);
            } else {
                in_set_insert(I, within);
                push_back(I, &I->in[d], within);
                out->axes[i++] = within;
            }
            if (split) {
                insert_at(I, out, i++, remainder);
                push_back(I, available, remainder);
            }
        }
    }
    return added;
}

static void try_all_slice(Inserter *I)
{
    AxisList slicing[SHARDC_MAX_RANK], available = {0};
    DimAxes before;
    bool added = false;
    reshard_dim_axes_copy(&before, &I->cur);
    for (int d = 0; d < I->rank; d++) {
        int64_t in = axis_list_size(&I->in[d]), out = axis_list_size(&I->out[d]);
        I->capacity[d] = out / ir_gcd64(in, out);
        slicing[d].count = 0;
    }
    for (int src = 0; src < I->rank; src++)
        added |= slice_for_all_to_all(I, src, slicing);
    added |= slice_in_place(I, slicing, &available);
    added |= distribute(I, false, &available, true, slicing);
    map_rebuild(I);
    if (added)
        emit_per_dim(I, STEP_ALL_SLICE, slicing, &before);
}

/* ---- collective-permute ---- */

/* Shardy's conditions 3-5 on one dim's `in` axes: axes bound for one dim
 * out of order or apart, or an axis to gather before one to move while
 * the dim wants nothing. `avail_in` gets the last axis no dim wants. */
static bool in_axes_misplaced(const Inserter *I, int d, AxisRef *avail_in, bool *has_in)
{
    bool seen[SHARDC_MAX_RANK] = {0};
    int last_dim = -1, last_index = 0;
    for (int i = 0; i < I->in[d].count; i++) {
        AxisRef a = I->in[d].axes[i];
        const OutEntry *e = map_find(I, a);
        int cur_dim = -1;
        if (e) {
            cur_dim = e->dim;
            if ((e->dim == d || seen[e->dim]) && (last_dim != e->dim || e->index != last_index + 1))
                return true;
            seen[e->dim] = true;
            last_index = e->index;
        } else if (last_dim >= 0 && !I->out[d].count) {
            return true;
        } else {
            *avail_in = a;
            *has_in = true;
        }
        last_dim = cur_dim;
    }
    return false;
}

/* Shardy's shouldCollectivePermute: some dim can swap its leading axes
 * for the target's, axes must be reordered, or an axis to gather can be
 * replaced by one to slice. */
static bool should_permute(const Inserter *I)
{
    AxisRef avail_in = {0}, avail_out = {0};
    bool has_in = false, has_out = false;
    for (int d = 0; d < I->rank; d++) {
        const AxisList *in = &I->in[d], *out = &I->out[d];
        if (in->count && out->count && reshard_sizes_divisible(in->axes[0].size, out->axes[0].size))
            return true;
        for (int i = 0; i < out->count; i++)
            if (!in_set_contains(I, out->axes[i])) {
                avail_out = out->axes[i];
                has_out = true;
            }
        if (in_axes_misplaced(I, d, &avail_in, &has_in))
            return true;
    }
    return has_in && has_out && reshard_sizes_divisible(avail_out.size, avail_in.size);
}

/* Step 1 of the permute on dim d: the target's leading axes take the
 * dim's capacity (its shard count); what is left of `out` is available
 * to other dims. Returns the capacity they used. */
static int64_t place_target_axes(Inserter *I, int d, AxisList *avail_out)
{
    AxisList *out = &I->out[d], *cur = &I->cur.dims[d];
    I->capacity[d] = axis_list_size(&I->in[d]);
    int64_t all = I->capacity[d];
    pop_back_current(I, cur, &I->in[d], 0);
    while (I->capacity[d] > 1 && out->count) {
        AxisRef within, remainder;
        bool split;
        if (!within_capacity(out->axes[0], &I->capacity[d], &within, &remainder, &split))
            break;
        reshard_list_erase(out, 0);
        merge_into(cur, within, I->mesh);
        if (split)
            insert_at(I, out, 0, remainder);
    }
    for (int i = 0; i < out->count; i++)
        push_back(I, avail_out, out->axes[i]);
    return all / I->capacity[d];
}

/* The `in` axes of dim d no dim wants, to place again: those the target
 * axes replaced (up to `used`) last, the others first; `in` is emptied. */
static void collect_replaced(Inserter *I, int d, int64_t used, AxisList *avail_in)
{
    AxisList *in = &I->in[d], replaced = {0};
    int n = 0;
    for (int i = 0; i < in->count; i++)
        if (!map_find(I, in->axes[i]))
            in->axes[n++] = in->axes[i];
    in->count = n;
    while (used > 1 && in->count) {
        AxisRef within, remainder;
        bool split;
        if (!within_capacity(in->axes[0], &used, &within, &remainder, &split))
            break;
        reshard_list_erase(in, 0);
        push_back(I, &replaced, within);
        if (split)
            insert_at(I, in, 0, remainder);
    }
    *avail_in = *in;
    for (int i = 0; i < replaced.count; i++)
        push_back(I, avail_in, replaced.axes[i]);
    in->count = 0;
}

/* Shardy's performCollectivePermute: place the target's leading axes,
 * then fill each dim's remaining capacity with target axes (at the back,
 * to all-to-all later) and with axes to gather (at the front, to gather
 * after the others moved). */
static void perform_permute(Inserter *I)
{
    AxisList avail_out = {0}, avail_in[SHARDC_MAX_RANK], all_in = {0};
    I->in_count = 0;
    for (int d = 0; d < I->rank; d++)
        collect_replaced(I, d, place_target_axes(I, d, &avail_out), &avail_in[d]);
    distribute(I, false, &avail_out, true, NULL);
    distribute(I, true, avail_in, false, NULL);
    for (int d = 0; d < I->rank; d++)
        for (int i = 0; i < avail_in[d].count; i++)
            push_back(I, &all_in, avail_in[d].axes[i]);
    distribute(I, true, &all_in, true, NULL);
    map_rebuild(I);
    for (int d = 0; d < I->rank; d++)
        for (int i = 0; i < I->in[d].count; i++)
            merge_into(&I->cur.dims[d], I->in[d].axes[i], I->mesh);
}

static void try_permute(Inserter *I)
{
    if (should_permute(I))
        perform_permute(I);
    else if (!I->devices_pending)
        return;
    if (I->devices_pending)
        I->plan->reorder_step = I->plan->num_steps;
    I->devices_pending = false;
    AxisList none = {0};
    if (!reshard_add_step(I->plan, STEP_COLLECTIVE_PERMUTE, 0, 0, &none, &I->cur))
        I->ok = false;
}

/* ---- all-to-all ---- */

/* Shardy's getAllToAllInfo: the minor axes of src that the target wants
 * on one other dim move there; unless `any_order`, only if they are the
 * target dim's next axes. False if none move. */
static bool all_to_all_from(Inserter *I, int src, bool any_order)
{
    AxisList *src_in = &I->in[src];
    int tgt = -1, start = src_in->count;
    for (; start > 0; start--) {
        const OutEntry *e = map_find(I, src_in->axes[start - 1]);
        if (!e || e->dim == src || (tgt >= 0 && e->dim != tgt))
            break;
        tgt = e->dim;
    }
    if (tgt < 0)
        return false;
    AxisList *tgt_out = &I->out[tgt], *tgt_in = &I->in[tgt];
    int moved = src_in->count - start;
    if (!any_order) {
        if (tgt_out->count < moved)
            return false;
        for (int k = 0; k < moved; k++)
            if (!axis_ref_equal(src_in->axes[start + k], tgt_out->axes[k]))
                return false;
    }
    AxisList axes = {0};
    pop_back_current(I, &I->cur.dims[src], src_in, start);
    while (src_in->count > start) {
        AxisRef a = src_in->axes[start];
        merge_into(&axes, a, I->mesh);
        merge_into(&I->cur.dims[tgt], a, I->mesh);
        reshard_list_erase(src_in, start);
        in_set_erase(I, a);
        if (!tgt_in->count && tgt_out->count && axis_ref_equal(tgt_out->axes[0], a)) {
            reshard_list_erase(tgt_out, 0);
        } else {
            push_back(I, tgt_in, a);
            in_set_insert(I, a);
        }
    }
    if (!reshard_add_step(I->plan, STEP_ALL_TO_ALL, tgt, src, &axes, &I->cur))
        I->ok = false;
    return true;
}

static void try_all_to_alls(Inserter *I, bool any_order)
{
    for (int src = 0; src < I->rank && I->ok; src++)
        while (I->ok && all_to_all_from(I, src, any_order))
            continue;
}

/* ---- all-gather ---- */

/* The minor axes of dim d that the target does not want anywhere. */
static void gathering_axes(Inserter *I, int d, AxisList *gathered)
{
    AxisList *in = &I->in[d];
    int start = in->count;
    while (start > 0 && !map_find(I, in->axes[start - 1]))
        in_set_erase(I, in->axes[--start]);
    pop_back_current(I, &I->cur.dims[d], in, start);
    for (int i = start; i < in->count; i++)
        merge_into(gathered, in->axes[i], I->mesh);
    in->count = start;
}

static void try_all_gather(Inserter *I)
{
    AxisList gathered[SHARDC_MAX_RANK];
    DimAxes before;
    bool any = false;
    reshard_dim_axes_copy(&before, &I->cur);
    for (int d = 0; d < I->rank; d++) {
        gathered[d].count = 0;
        gathering_axes(I, d, &gathered[d]);
        any |= gathered[d].count > 0;
    }
    if (any)
        emit_per_dim(I, STEP_ALL_GATHER, gathered, &before);
}

/* ---- the inserter ---- */

static void remove_common_prefix(AxisList *in, AxisList *out)
{
    int k = 0;
    while (k < in->count && k < out->count && axis_ref_equal(in->axes[k], out->axes[k]))
        k++;
    memmove(in->axes, in->axes + k, sizeof(AxisRef) * (size_t)(in->count - k));
    memmove(out->axes, out->axes + k, sizeof(AxisRef) * (size_t)(out->count - k));
    in->count -= k;
    out->count -= k;
}

/* Only the dims below the rank are set (a whole Inserter is 30 KB). */
static bool init(Inserter *I, ReshardPlan *plan, const ReshardRequest *req)
{
    I->mesh = req->mesh;
    I->shape = req->shape;
    I->rank = req->from->rank;
    I->in_count = I->map_count = 0;
    I->devices_pending = req->reorder_devices;
    I->plan = plan;
    I->ok = true;
    reshard_dim_axes_copy(&I->cur, req->from);
    for (int d = 0; d < I->rank; d++) {
        I->in[d] = req->from->dims[d];
        I->out[d] = req->to->dims[d];
    }
    if (!reshard_align_both(I->mesh, I->in, I->out, I->rank))
        return false;
    for (int d = 0; d < I->rank; d++) {
        remove_common_prefix(&I->in[d], &I->out[d]);
        for (int i = 0; i < I->in[d].count; i++)
            in_set_insert(I, I->in[d].axes[i]);
    }
    map_rebuild(I);
    return I->ok;
}

bool reshard_plan_shardy(ReshardPlan *plan, const ReshardRequest *req)
{
    Inserter I;
    if (!init(&I, plan, req))
        return false;
    for (int round = 0; round < 2 && I.ok && !is_done(&I); round++) {
        try_all_slice(&I);
        try_permute(&I);
        try_all_to_alls(&I, false);
        try_all_to_alls(&I, true);
        try_all_gather(&I);
    }
    return I.ok && is_done(&I) && reshard_dim_axes_equal(&I.cur, req->to);
}
