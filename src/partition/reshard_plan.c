/* Reshard planning (docs/partitioning.md "Reshards to collectives"):
 * partial results are reduced first (fused into a reduce-scatter where the
 * target shards a dim by the reduced axis); then Shardy's rounds
 * (reshard_shardy.c) plan the rest, unless they fail, leave an even dim
 * uneven on the way where the caller needs even blocks, or move more
 * bytes than this file's greedy planner where the caller asks for the
 * fewest: then the greedy plan (slices, a collective-permute when every
 * dim keeps its shard count, all-to-alls, all-gathers last). Consecutive
 * all-to-alls between different dims become one all-to-all over all
 * their axes.
 *
 * The greedy planner and the partial reduction work on sub-axes refined
 * to common pieces, so "x" against "x":(1)2 is planned as the pieces
 * "x":(1)2 and "x":(2)2. */
#include <stdlib.h>
#include <string.h>
#include "shardc/checked.h"
#include "shardc/cost.h"
#include "reshard_internal.h"

enum { MAX_BOUNDS = 32, MAX_MESH_AXES = 16 };

typedef struct Refinement {
    int count[MAX_MESH_AXES];
    int64_t bounds[MAX_MESH_AXES][MAX_BOUNDS];   /* sorted, in (1, axis size) */
} Refinement;

static void add_bound(Refinement *r, int axis, int64_t b)
{
    if (axis >= MAX_MESH_AXES || r->count[axis] == MAX_BOUNDS)
        return;
    for (int i = 0; i < r->count[axis]; i++)
        if (r->bounds[axis][i] == b)
            return;
    int i = r->count[axis]++;
    for (; i > 0 && r->bounds[axis][i - 1] > b; i--)
        r->bounds[axis][i] = r->bounds[axis][i - 1];
    r->bounds[axis][i] = b;
}

static void note_list(Refinement *r, const AxisList *l)
{
    for (int i = 0; i < l->count; i++) {
        add_bound(r, l->axes[i].axis, l->axes[i].pre_size);
        add_bound(r, l->axes[i].axis, axis_ref_end(l->axes[i]));
    }
}

/* Split every ref at the boundaries inside it. */
static void refine_list(const Refinement *r, AxisList *l)
{
    AxisList out = {0};
    for (int i = 0; i < l->count; i++) {
        AxisRef a = l->axes[i];
        int64_t start = a.pre_size, end = axis_ref_end(a);
        for (int k = 0; a.axis < MAX_MESH_AXES && k < r->count[a.axis] && out.count < AXIS_LIST_MAX; k++) {
            int64_t b = r->bounds[a.axis][k];
            if (b > start && b < end && b % start == 0) {
                out.axes[out.count++] = (AxisRef){a.axis, start, b / start};
                start = b;
            }
        }
        if (out.count < AXIS_LIST_MAX)
            out.axes[out.count++] = (AxisRef){a.axis, start, end / start};
    }
    *l = out;
}

static bool list_starts_with(const AxisList *l, const AxisList *prefix)
{
    if (prefix->count > l->count)
        return false;
    for (int i = 0; i < prefix->count; i++)
        if (!axis_ref_equal(l->axes[i], prefix->axes[i]))
            return false;
    return true;
}

static int common_prefix(const AxisList *a, const AxisList *b)
{
    int k = 0;
    while (k < a->count && k < b->count && axis_ref_equal(a->axes[k], b->axes[k]))
        k++;
    return k;
}

static bool used_anywhere(const DimAxes *s, AxisRef a)
{
    for (int d = 0; d < s->rank; d++)
        for (int i = 0; i < s->dims[d].count; i++)
            if (axis_ref_overlaps(s->dims[d].axes[i], a))
                return true;
    return false;
}

bool reshard_dim_axes_equal(const DimAxes *a, const DimAxes *b)
{
    for (int d = 0; d < a->rank; d++)
        if (!axis_list_equal(&a->dims[d], &b->dims[d]))
            return false;
    return true;
}

bool reshard_add_step(ReshardPlan *plan, ReshardStepKind kind, int dim, int src_dim, const AxisList *axes,
                      const DimAxes *after)
{
    if (plan->num_steps == RESHARD_MAX_STEPS)
        return false;
    ReshardStep *s = &plan->steps[plan->num_steps++];
    s->kind = kind;
    s->dim = dim;
    s->src_dim = src_dim;
    s->axes = *axes;
    reshard_dim_axes_copy(&s->after, after);
    s->num_moves = 0;
    if (kind == STEP_ALL_TO_ALL)
        s->moves[s->num_moves++] = (ReshardMove){dim, src_dim, 0, axes->count};
    return true;
}

void reshard_dim_axes_copy(DimAxes *out, const DimAxes *in)
{
    out->rank = in->rank;
    memcpy(out->dims, in->dims, sizeof in->dims[0] * (size_t)in->rank);
}

void reshard_dim_axes_clear(DimAxes *out, int rank)
{
    out->rank = rank;
    for (int d = 0; d < rank; d++)
        out->dims[d].count = 0;
}

void reshard_dim_axes_from_sharding(DimAxes *out, const Sharding *s, int rank)
{
    reshard_dim_axes_clear(out, rank);
    for (int d = 0; s && d < rank && d < s->rank; d++)
        for (int i = 0; i < s->dims[d].num_axes && i < AXIS_LIST_MAX; i++)
            out->dims[d].axes[out->dims[d].count++] = s->dims[d].axes[i];
}

const char *reshard_reduction_name(ReductionKind kind)
{
    static const char *const names[] = {"sum", "max", "min", "mean"};
    return names[kind];
}

/* A run of target pieces for dim d, starting where the state stops, that no
 * dim uses yet: sliced locally. */
static bool try_slice(ReshardPlan *plan, DimAxes *state, const DimAxes *target)
{
    for (int d = 0; d < state->rank; d++) {
        AxisList *have = &state->dims[d];
        const AxisList *want = &target->dims[d];
        if (!list_starts_with(want, have) || have->count == want->count)
            continue;
        AxisList run = {0};
        for (int i = have->count; i < want->count && !used_anywhere(state, want->axes[i]); i++)
            run.axes[run.count++] = want->axes[i];
        if (!run.count)
            continue;
        for (int i = 0; i < run.count; i++)
            have->axes[have->count++] = run.axes[i];
        return reshard_add_step(plan, STEP_ALL_SLICE, d, d, &run, state);
    }
    return false;
}

/* The next pieces dim d needs sit, in the same order, at the minor end of
 * another dim that must give them up: one all-to-all moves them. */
static bool try_all_to_all(ReshardPlan *plan, DimAxes *state, const DimAxes *target)
{
    for (int d = 0; d < state->rank; d++) {
        AxisList *have = &state->dims[d];
        const AxisList *want = &target->dims[d];
        if (!list_starts_with(want, have) || have->count == want->count)
            continue;
        AxisRef next = want->axes[have->count];
        for (int src = 0; src < state->rank; src++) {
            AxisList *from = &state->dims[src];
            int keep = common_prefix(from, &target->dims[src]), at = -1;
            for (int i = keep; src != d && i < from->count; i++)
                if (axis_ref_equal(from->axes[i], next))
                    at = i;
            int moved = at < 0 ? 0 : from->count - at;
            if (at < 0 || have->count + moved > want->count)
                continue;
            AxisList block = {0};
            for (int i = at; i < from->count; i++) {
                if (!axis_ref_equal(from->axes[i], want->axes[have->count + i - at]))
                    break;
                block.axes[block.count++] = from->axes[i];
            }
            if (block.count != moved)
                continue;
            from->count = at;
            for (int i = 0; i < block.count; i++)
                have->axes[have->count++] = block.axes[i];
            return reshard_add_step(plan, STEP_ALL_TO_ALL, d, src, &block, state);
        }
    }
    return false;
}

/* Every dim keeps its shard count: one collective-permute places it. */
static bool try_permute(ReshardPlan *plan, DimAxes *state, const DimAxes *target)
{
    for (int d = 0; d < state->rank; d++)
        if (axis_list_size(&state->dims[d]) != axis_list_size(&target->dims[d]))
            return false;
    *state = *target;
    AxisList none = {0};
    return reshard_add_step(plan, STEP_COLLECTIVE_PERMUTE, 0, 0, &none, state);
}

/* Gather the pieces of one dim beyond what it shares with the target. */
static bool try_gather(ReshardPlan *plan, DimAxes *state, const DimAxes *target)
{
    for (int d = 0; d < state->rank; d++) {
        AxisList *have = &state->dims[d];
        int keep = common_prefix(have, &target->dims[d]);
        if (keep == have->count)
            continue;
        AxisList gone = {0};
        for (int i = keep; i < have->count; i++)
            gone.axes[gone.count++] = have->axes[i];
        have->count = keep;
        return reshard_add_step(plan, STEP_ALL_GATHER, d, d, &gone, state);
    }
    return false;
}

/* Partial results: reduce-scatter the pieces the target shards a dim by
 * next, all-reduce the rest. */
static bool reduce_partials(ReshardPlan *plan, DimAxes *state, const DimAxes *target, AxisList *partial)
{
    for (int d = 0; d < state->rank && partial->count; d++) {
        AxisList *have = &state->dims[d];
        const AxisList *want = &target->dims[d];
        AxisList run = {0};
        while (list_starts_with(want, have) && have->count < want->count) {
            AxisRef next = want->axes[have->count];
            int at = -1;
            for (int i = 0; i < partial->count; i++)
                if (axis_ref_equal(partial->axes[i], next))
                    at = i;
            if (at < 0)
                break;
            run.axes[run.count++] = next;
            have->axes[have->count++] = next;
            memmove(&partial->axes[at], &partial->axes[at + 1], sizeof(AxisRef) * (size_t)(partial->count - at - 1));
            partial->count--;
        }
        if (run.count && !reshard_add_step(plan, STEP_REDUCE_SCATTER, d, d, &run, state))
            return false;
    }
    return partial->count == 0 || reshard_add_step(plan, STEP_ALL_REDUCE, 0, 0, partial, state);
}

/* Whether all-to-all b can join a: its source is none of a's targets (a
 * dim that received axes cannot give others away in the same exchange),
 * and its target is none of a's sources. It may share a's target (its
 * axes follow a's there, as in the group) or a's source (it takes the axes
 * major to a's, now the minor end). The emitted form splits a dim per
 * move, so rank + moves stays within SHARDC_MAX_RANK. */
static bool can_merge_all_to_all(const ReshardStep *a, const ReshardStep *b)
{
    if (a->kind != STEP_ALL_TO_ALL || b->kind != STEP_ALL_TO_ALL || a->after.rank + a->num_moves >= SHARDC_MAX_RANK ||
        a->axes.count + b->axes.count > AXIS_LIST_MAX)
        return false;
    for (int i = 0; i < a->num_moves; i++) {
        const ReshardMove *m = &a->moves[i];
        if (b->src_dim == m->dim || b->dim == m->src_dim)
            return false;
    }
    return true;
}

/* Merge consecutive all-to-alls into one over the union of their axes:
 * moving axes A then B costs (1 - 1/|A|) + (1 - 1/|B|) of the tensor, one
 * exchange over both 1 - 1/(|A||B|), never more. The merged step ends in
 * the layout the last of them did, so the rest of the plan is unchanged
 * (the reorder step keeps its place among the others). */
static void merge_all_to_alls(ReshardPlan *plan)
{
    int out = 0;
    for (int i = 0; i < plan->num_steps; i++) {
        ReshardStep *prev = out ? &plan->steps[out - 1] : NULL;
        const ReshardStep *s = &plan->steps[i];
        if (i == plan->reorder_step)
            plan->reorder_step = out;
        if (!prev || !can_merge_all_to_all(prev, s)) {
            if (out != i)
                plan->steps[out] = *s;
            out++;
            continue;
        }
        prev->moves[prev->num_moves++] = (ReshardMove){s->dim, s->src_dim, prev->axes.count, s->axes.count};
        for (int k = 0; k < s->axes.count; k++)
            prev->axes.axes[prev->axes.count++] = s->axes.axes[k];
        prev->after = s->after;
    }
    plan->num_steps = out;
}

static bool fully_replicated(const DimAxes *s)
{
    for (int d = 0; d < s->rank; d++)
        if (s->dims[d].count)
            return false;
    return true;
}

/* Drops axes of size 1: they place nothing, and a collective over them
 * would only move a block onto itself. */
static void drop_unit_axes(AxisList *l)
{
    int n = 0;
    for (int i = 0; i < l->count; i++)
        if (l->axes[i].size != 1)
            l->axes[n++] = l->axes[i];
    l->count = n;
}

/* Whether every layout of the plan divides each dim that both ends
 * divide: the partitioner emits an even reshard's steps on even blocks. */
static bool steps_stay_even(const ReshardPlan *plan, int first, const int64_t *shape, const DimAxes *from,
                            const DimAxes *to)
{
    for (int d = 0; shape && d < from->rank; d++) {
        if (shape[d] % axis_list_size(&from->dims[d]) || shape[d] % axis_list_size(&to->dims[d]))
            continue;
        for (int i = first; i < plan->num_steps; i++)
            if (shape[d] % axis_list_size(&plan->steps[i].after.dims[d]))
                return false;
    }
    return true;
}

/* shardc's own planner, where Shardy's does not apply: greedily slice,
 * permute, all-to-all and gather on the refined pieces. */
static bool plan_greedy(ReshardPlan *plan, DimAxes *state, const DimAxes *target)
{
    while (!reshard_dim_axes_equal(state, target))
        if (!(try_slice(plan, state, target) || try_permute(plan, state, target) ||
              try_all_to_all(plan, state, target) || try_gather(plan, state, target)))
            return false;
    return true;
}

static void merge_dims(DimAxes *out, const DimAxes *in, const Mesh *mesh)
{
    reshard_dim_axes_clear(out, in->rank);
    for (int d = 0; d < in->rank; d++)
        for (int i = 0; i < in->dims[d].count; i++)
            axis_list_add_or_merge(&out->dims[d], in->dims[d].axes[i], mesh);
}

/* Elements of one device's block under a layout (padded dims rounded
 * up); false past INT64_MAX. */
static bool local_elements(const int64_t *shape, const DimAxes *layout, int64_t *out)
{
    *out = 1;
    for (int d = 0; d < layout->rank; d++) {
        int64_t shards = axis_list_size(&layout->dims[d]);
        if (!size_mul(*out, shape[d] / shards + (shape[d] % shards != 0), out))
            return false;
    }
    return true;
}

/* Elements each device receives in the steps from `first` on (the
 * --stats count in elements); false if a block's size overflows. */
static bool plan_elements(const ReshardPlan *plan, int first, const int64_t *shape, const DimAxes *from,
                          int64_t *total)
{
    int64_t before, after;
    *total = 0;
    if (!local_elements(shape, from, &before))
        return false;
    for (int i = first; i < plan->num_steps; i++, before = after)
        if (!local_elements(shape, &plan->steps[i].after, &after) ||
            !size_add(*total, reshard_step_bytes(&plan->steps[i], before, after), total))
            return false;
    return true;
}

/* What shardc's greedy plan from `state` costs, in elements received
 * per device; INT64_MAX when it is not to be compared (not under
 * `fewest_bytes`, no shape, or no plan). `plan` is left as it was. */
static int64_t greedy_elements(ReshardPlan *plan, const DimAxes *state, const DimAxes *target,
                               const ReshardOptions *opt)
{
    int first = plan->num_steps;
    int64_t total = INT64_MAX;
    DimAxes mid;
    reshard_dim_axes_copy(&mid, state);
    if (opt && opt->fewest_bytes && opt->shape && plan_greedy(plan, &mid, target) &&
        (merge_all_to_alls(plan), !plan_elements(plan, first, opt->shape, state, &total)))
        total = INT64_MAX;
    plan->num_steps = first;
    return total;
}

/* Shardy's plan from the reduced state (merged back, as Shardy holds
 * shardings), unless it fails, leaves a dim uneven on the way (under
 * `even_steps`) or moves more bytes than shardc's greedy plan (under
 * `fewest_bytes`): then the greedy one. */
static bool plan_layouts(ReshardPlan *plan, const Mesh *mesh, DimAxes *state, const DimAxes *target,
                         const ReshardOptions *opt)
{
    int first = plan->num_steps;
    int64_t greedy = greedy_elements(plan, state, target, opt), shardy;
    DimAxes from, to;
    merge_dims(&from, state, mesh);
    merge_dims(&to, target, mesh);
    ReshardRequest req = {mesh, opt ? opt->shape : NULL, &from, &to, opt && opt->reorder_devices};
    bool shardy_ok = reshard_plan_shardy(plan, &req);
    merge_all_to_alls(plan);
    if (shardy_ok && (!opt || !opt->even_steps || steps_stay_even(plan, first, req.shape, &from, &to)) &&
        (greedy == INT64_MAX || (plan_elements(plan, first, opt->shape, state, &shardy) && shardy <= greedy)))
        return true;
    plan->num_steps = first;
    plan->reorder_step = -1;
    if (!plan_greedy(plan, state, target))
        return false;
    merge_all_to_alls(plan);
    return true;
}

static void note_full_replication(ReshardPlan *plan, const DimAxes *from)
{
    plan->full_replication = false;
    for (int i = 0; i < plan->num_steps && !fully_replicated(from); i++)
        if (fully_replicated(&plan->steps[i].after))
            plan->full_replication = true;
}

bool reshard_plan(ReshardPlan *plan, const Mesh *mesh, const DimAxes *from, const AxisList *partial_in,
                  const DimAxes *to, const ReshardOptions *opt)
{
    Refinement refinement;
    memset(&refinement.count, 0, sizeof refinement.count);
    DimAxes state, target;
    reshard_dim_axes_copy(&state, from);
    reshard_dim_axes_copy(&target, to);
    AxisList partial = partial_in ? *partial_in : (AxisList){0};
    for (int d = 0; d < state.rank; d++) {
        note_list(&refinement, &state.dims[d]);
        note_list(&refinement, &target.dims[d]);
    }
    note_list(&refinement, &partial);
    for (int d = 0; d < state.rank; d++) {
        refine_list(&refinement, &state.dims[d]);
        refine_list(&refinement, &target.dims[d]);
        drop_unit_axes(&state.dims[d]);
        drop_unit_axes(&target.dims[d]);
    }
    refine_list(&refinement, &partial);
    drop_unit_axes(&partial);
    plan->num_steps = 0;
    plan->reorder_step = -1;
    if (!reduce_partials(plan, &state, &target, &partial) || !plan_layouts(plan, mesh, &state, &target, opt))
        return false;
    note_full_replication(plan, from);
    return true;
}

/* Bytes each device receives, with the bandwidth-optimal algorithm
 * (shardc/cost.h): the partitioner's --stats and the auto-sharding cost
 * model both count this. */
int64_t reshard_step_bytes(const ReshardStep *s, int64_t in_bytes, int64_t out_bytes)
{
    static const OpKind kinds[] = {
        [STEP_ALL_SLICE] = OP_ALL_SLICE, [STEP_ALL_GATHER] = OP_ALL_GATHER, [STEP_ALL_TO_ALL] = OP_ALL_TO_ALL,
        [STEP_REDUCE_SCATTER] = OP_REDUCE_SCATTER, [STEP_ALL_REDUCE] = OP_ALL_REDUCE,
        [STEP_COLLECTIVE_PERMUTE] = OP_COLLECTIVE_PERMUTE,
    };
    return cost_collective_received(kinds[s->kind], axis_list_size(&s->axes), in_bytes, out_bytes);
}
