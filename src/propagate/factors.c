/* Per-op factor propagation: Shardy's BasicFactorPropagation and, by
 * default, its AggressiveFactorPropagation (docs/propagation.md). */
#include <string.h>
#include "shardc/propagate.h"

/* Shardy's getCompatibleMajorAxesInternal: merge one tensor's axes into the
 * running result, in place (this runs for every factor of every tensor of
 * every op visited); returns whether the result may still grow. */
static bool merge_major_axes(AxisList *result, const AxisList *other, bool can_expand)
{
    int i = 0;
    for (; i < result->count && i < other->count; i++) {
        AxisRef old_ref = result->axes[i], new_ref = other->axes[i];
        bool more_new = i + 1 < other->count, more_old = i + 1 < result->count;
        if (old_ref.axis != new_ref.axis)
            return result->count = i, false;
        if (axis_ref_equal(old_ref, new_ref))
            continue;
        if (axis_ref_prefix_of(new_ref, old_ref)) {
            if (more_new)
                return result->axes[i] = new_ref, result->count = i + 1, false;
        } else if (axis_ref_prefix_of(old_ref, new_ref)) {
            if (!can_expand || more_old)
                return result->count = i + 1, false;
            result->axes[i] = new_ref;
        } else {
            return result->count = i, false;
        }
    }
    for (int k = i; can_expand && k < other->count; k++)
        result->axes[result->count++] = other->axes[k];
    return can_expand;
}

static void compatible_major_axes(const ShardingProjection *p, int f, PropagationDirection dir, AxisList *out)
{
    out->count = 0; /* lists are read up to count: no need to clear them */
    if (dir == DIR_NONE)
        return;
    bool can_expand = true;
    for (int pass = 0; pass < 2; pass++) {
        /* The side that may expand goes first; the other only limits. */
        bool operands = (pass == 0) != (dir == DIR_BACKWARD);
        int begin = operands ? 0 : p->num_operands, end = operands ? p->num_operands : p->num_tensors;
        for (int t = begin; t < end; t++)
            if (p->tensors[t].factors[f].present)
                can_expand = merge_major_axes(out, &p->tensors[t].factors[f].axes, can_expand);
        if (dir != DIR_BOTH)
            can_expand = false;
    }
}

static bool prefix_without_overlap_list(AxisRef a, const AxisList *others, AxisRef *out)
{
    for (int i = 0; i < others->count; i++)
        if (!axis_ref_prefix_without_overlap(a, others->axes[i], &a))
            return false;
    *out = a;
    return true;
}

/* Shardy's compatiblePrefixNoConflictsWithinFactor. `prev` is the product
 * of the axes before `a`. An open factor takes the axis whole if it is the
 * minor-most factor of its dim (an uneven dim is padded:
 * docs/partitioning.md "Uneven dims") or if the axis divides what is left
 * of it, else the part of the axis that does (a sub-axis). The size is
 * this tensor's: a sliced, padded or concatenated dim has another size in
 * the operand than in the result under the same factor. */
static bool within_factor(AxisRef a, const ShardingProjection *p, const TensorProjection *tp, int f, int64_t prev,
                          AxisRef *out)
{
    if (!prefix_without_overlap_list(a, &tp->replicated, &a))
        return false;
    const FactorSharding *fs = &tp->factors[f];
    for (int i = 0; i < fs->axes.count; i++)
        if (axis_ref_contains(fs->axes.axes[i], a))
            return *out = a, true;
    bool resized = fs->size != p->rule->factors[f].size; /* conservative: no new axes there */
    if (!fs->is_closed && fs->overflow.count == 0 && !(p->conservative && resized)) {
        if (fs->is_minor_most)
            return *out = a, true;
        int64_t g = fs->size % prev == 0 ? ir_gcd64(fs->size / prev, a.size) : 1;
        if (g > 1)
            return *out = (AxisRef){a.axis, a.pre_size, g}, true;
    }
    if (fs->axes.count && axis_ref_prefix_of(fs->axes.axes[fs->axes.count - 1], a))
        return *out = fs->axes.axes[fs->axes.count - 1], true;
    return false;
}

/* Axes of factor f may not overlap what other factors of tensor t hold. */
static bool across_factors(AxisRef a, const ShardingProjection *p, int t, int f, AxisRef *out)
{
    const TensorProjection *tp = &p->tensors[t];
    for (int g = 0; g < p->rule->num_factors; g++) {
        if (g == f || !tp->factors[g].present)
            continue;
        if (!prefix_without_overlap_list(a, &tp->factors[g].axes, &a) ||
            !prefix_without_overlap_list(a, &tp->factors[g].overflow, &a))
            return false;
    }
    *out = a;
    return true;
}

typedef struct TruncateCtx {
    const ShardingProjection *p;
    int tensor, factor;
    bool within;        /* check within the factor, else across factors */
} TruncateCtx;

/* Keep the longest prefix of `axes` that passes the check (Shardy's
 * truncateAxesByRemovingConflicts). */
static void truncate_axes(AxisList *axes, const TruncateCtx *c)
{
    int64_t prev = 1;
    const TensorProjection *tp = &c->p->tensors[c->tensor];
    for (int i = 0; i < axes->count; i++) {
        AxisRef cur = axes->axes[i], next;
        bool ok = c->within ? within_factor(cur, c->p, tp, c->factor, prev, &next)
                            : across_factors(cur, c->p, c->tensor, c->factor, &next);
        /* conservative propagation makes no sub-axes */
        ok = ok && !(c->p->conservative && !axis_ref_is_full(c->p->mesh, next));
        if (!ok) {
            axes->count = i;
            return;
        }
        if (!axis_ref_equal(cur, next)) {
            axes->axes[i] = next;
            axes->count = i + 1;
            return;
        }
        prev *= cur.size;
    }
}

static void expand_factor(ShardingProjection *p, int f, const AxisList *axes, bool *updated)
{
    for (int t = 0; t < p->num_tensors; t++) {
        FactorSharding *fs = &p->tensors[t].factors[f];
        if (fs->present && axis_list_strict_prefix(&fs->axes, axes)) {
            axis_list_copy(&fs->axes, axes);
            updated[t] = true;
        }
    }
}

static void truncate_within(const ShardingProjection *p, int f, AxisList *axes)
{
    for (int t = 0; t < p->num_tensors; t++)
        if (p->tensors[t].factors[f].present)
            truncate_axes(axes, &(TruncateCtx){p, t, f, true});
}

/* Basic: factor by factor, each seeing the previous ones' updates; an axis
 * held by another factor in any tensor blocks it. */
static void propagate_basic(ShardingProjection *p, const PropagationDirection *dirs, bool *updated)
{
    for (int f = 0; f < p->rule->num_factors; f++) {
        AxisList axes;
        compatible_major_axes(p, f, dirs[f], &axes);
        for (int t = 0; t < p->num_tensors; t++)
            truncate_axes(&axes, &(TruncateCtx){p, t, f, false});
        truncate_within(p, f, &axes);
        expand_factor(p, f, &axes, updated);
    }
}

/* ---- aggressive: Shardy's AggressiveFactorPropagation ---- */

/* Each factor's source: the largest tensor (the product of its factors'
 * sizes) whose sharding along the factor already holds the factor's
 * compatible axes; the first such tensor (operands first) on ties. */
typedef struct FactorSource {
    int64_t size;
    int index;
} FactorSource;

static int64_t tensor_factor_size(const ShardingProjection *p, int t)
{
    int64_t size = 1;
    for (int f = 0; f < p->rule->num_factors; f++)
        if (p->tensors[t].factors[f].present)
            size *= p->rule->factors[f].size;
    return size;
}

/* Shardy's isAxisListPrefixOf(a, b) != NOT_A_PREFIX. */
static bool axis_list_prefix_or_equal(const AxisList *a, const AxisList *b)
{
    return axis_list_equal(a, b) || axis_list_strict_prefix(a, b);
}

static void factor_sources(const ShardingProjection *p, const AxisList *axes, FactorSource *sources)
{
    for (int f = 0; f < p->rule->num_factors; f++)
        sources[f] = (FactorSource){-1, -1};
    for (int t = 0; t < p->num_tensors; t++) {
        int64_t size = tensor_factor_size(p, t);
        for (int f = 0; f < p->rule->num_factors; f++) {
            const FactorSharding *fs = &p->tensors[t].factors[f];
            bool is_source = fs->present && axes[f].count && axis_list_prefix_or_equal(&axes[f], &fs->axes);
            if (is_source && size > sources[f].size)
                sources[f] = (FactorSource){size, t};
        }
    }
}

/* The order in which factors claim axes in each tensor: larger source
 * tensor first, then (elementwise ops only) more sharded, then earlier
 * source tensor, then factor index. */
typedef struct FactorOrder {
    const FactorSource *sources;
    const int64_t *sharded;
} FactorOrder;

static bool factor_before(const FactorOrder *o, int f, int g)
{
    if (o->sources[f].size != o->sources[g].size)
        return o->sources[f].size > o->sources[g].size;
    if (o->sharded[f] != o->sharded[g])
        return o->sharded[f] > o->sharded[g];
    if (o->sources[f].index != o->sources[g].index)
        return o->sources[f].index < o->sources[g].index;
    return f < g;
}

static void sort_factors(int *order, int n, const FactorOrder *o)
{
    for (int i = 0; i < n; i++)
        order[i] = i;
    for (int i = 1; i < n; i++) /* few factors: insertion sort */
        for (int j = i; j > 0 && factor_before(o, order[j], order[j - 1]); j--) {
            int tmp = order[j];
            order[j] = order[j - 1];
            order[j - 1] = tmp;
        }
}

/* Shardy's getPropagatedFactorSharding: the factor's compatible axes as
 * tensor t can take them (within the factor, then across the factors t
 * holds now, including those expanded before in this visit); none unless
 * they extend what t has. */
static bool tensor_new_axes(const ShardingProjection *p, int t, int f, const AxisList *compatible, AxisList *out)
{
    const FactorSharding *fs = &p->tensors[t].factors[f];
    /* Truncating only shortens the list or its last axis: if t's axes do
     * not extend to `compatible`, they extend to no truncation of it
     * (most tensors already hold it, or more). */
    if (!fs->present || !axis_list_strict_prefix(&fs->axes, compatible))
        return false;
    axis_list_copy(out, compatible);
    truncate_axes(out, &(TruncateCtx){p, t, f, true});
    if (!axis_list_strict_prefix(&fs->axes, out))
        return false;
    truncate_axes(out, &(TruncateCtx){p, t, f, false});
    return out->count > 0;
}

/* An operand of an elementwise op takes no more along a factor than a
 * result holds already: it is pointless to shard an operand whose result
 * stays replicated (Shardy, for constraints added on import). */
static void limit_to_results(const ShardingProjection *p, int f, AxisList *axes)
{
    for (int r = p->num_operands; r < p->num_tensors; r++) {
        const FactorSharding *rs = &p->tensors[r].factors[f];
        if (rs->present && axis_list_strict_prefix(&rs->axes, axes))
            axis_list_copy(axes, &rs->axes);
    }
}

static void expand_tensor(ShardingProjection *p, int t, const int *order, const AxisList *compatible,
                          bool elementwise, bool *updated)
{
    for (int k = 0; k < p->rule->num_factors; k++) {
        int f = order[k];
        AxisList axes;
        if (!tensor_new_axes(p, t, f, &compatible[f], &axes))
            continue;
        if (elementwise && t < p->num_operands)
            limit_to_results(p, f, &axes);
        FactorSharding *fs = &p->tensors[t].factors[f];
        if (axis_list_strict_prefix(&fs->axes, &axes)) {
            axis_list_copy(&fs->axes, &axes);
            updated[t] = true;
        }
    }
}

static void propagate_aggressive(ShardingProjection *p, const PropagationDirection *dirs, bool elementwise,
                                 bool *updated, Arena *arena)
{
    int n = p->rule->num_factors;
    bool any = false;
    /* Every op visit comes here: the lists are filled before they are read. */
    AxisList *compatible = ARENA_ARRAY_UNINIT(arena, AxisList, n);
    for (int f = 0; f < n; f++) {
        compatible_major_axes(p, f, dirs[f], &compatible[f]);
        any |= compatible[f].count > 0;
    }
    if (!any)
        return;
    FactorSource *sources = ARENA_ARRAY_UNINIT(arena, FactorSource, n);
    int64_t *sharded = ARENA_ARRAY_UNINIT(arena, int64_t, n);
    int *order = ARENA_ARRAY_UNINIT(arena, int, n);
    factor_sources(p, compatible, sources);
    for (int f = 0; f < n; f++)
        sharded[f] = elementwise ? axis_list_size(&compatible[f]) : 0;
    sort_factors(order, n, &(FactorOrder){sources, sharded});
    for (int t = p->num_operands; t < p->num_tensors; t++) /* results, then operands */
        expand_tensor(p, t, order, compatible, elementwise, updated);
    for (int t = 0; t < p->num_operands; t++)
        expand_tensor(p, t, order, compatible, elementwise, updated);
}

void factor_propagate(ShardingProjection *p, PropagationMode mode, const PropagationDirection *dirs,
                      bool elementwise, bool *updated, Arena *scratch)
{
    if (mode == PROPAGATION_BASIC)
        propagate_basic(p, dirs, updated);
    else
        propagate_aggressive(p, dirs, elementwise, updated, scratch);
}
