/* Per-op factor propagation: Shardy's BasicFactorPropagation and, by
 * default, aggressive propagation with shardc's tie-breaks between factors
 * that compete for the same axis (docs/propagation.md). */
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

/* Shardy's compatiblePrefixNoConflictsWithinFactor, except that shardc never
 * grows a factor to a size that does not divide it (no implicit padding).
 * The size is this tensor's: a sliced, padded or concatenated dim has
 * another size in the operand than in the result under the same factor,
 * and the axes must divide both. */
static bool within_factor(AxisRef a, const TensorProjection *tp, int f, int64_t sharded, AxisRef *out)
{
    if (!prefix_without_overlap_list(a, &tp->replicated, &a))
        return false;
    const FactorSharding *fs = &tp->factors[f];
    for (int i = 0; i < fs->axes.count; i++)
        if (axis_ref_contains(fs->axes.axes[i], a))
            return *out = a, true;
    if (!fs->is_closed && fs->overflow.count == 0 && (fs->size % sharded == 0 || fs->whole_dim))
        return *out = a, true;
    if (fs->axes.count && axis_ref_prefix_of(fs->axes.axes[fs->axes.count - 1], a))
        return *out = fs->axes.axes[fs->axes.count - 1], true;
    return false;
}

/* Axes of factor f may not overlap what other factors of tensor t hold
 * (and, with `competing`, what they are about to get). */
static bool across_factors(AxisRef a, const ShardingProjection *p, int t, int f, const AxisList *competing,
                           const bool *beats, AxisRef *out)
{
    const TensorProjection *tp = &p->tensors[t];
    /* An axis t already holds for f is not contested there: the other
     * factor cannot take it in t anyway. */
    for (int i = 0; competing && i < tp->factors[f].axes.count; i++)
        if (axis_ref_contains(tp->factors[f].axes.axes[i], a))
            competing = NULL;
    for (int g = 0; g < p->rule->num_factors; g++) {
        if (g == f || !tp->factors[g].present)
            continue;
        if (!prefix_without_overlap_list(a, &tp->factors[g].axes, &a) ||
            !prefix_without_overlap_list(a, &tp->factors[g].overflow, &a))
            return false;
        if (competing && beats[g] && !prefix_without_overlap_list(a, &competing[g], &a))
            return false;
    }
    *out = a;
    return true;
}

typedef struct TruncateCtx {
    const ShardingProjection *p;
    int tensor, factor;
    const AxisList *competing;
    const bool *beats;
    bool within;        /* check within the factor, else across factors */
} TruncateCtx;

/* Keep the longest prefix of `axes` that passes the check (Shardy's
 * truncateAxesByRemovingConflicts). */
static void truncate_axes(AxisList *axes, const TruncateCtx *c)
{
    int64_t sharded = 1;
    const TensorProjection *tp = &c->p->tensors[c->tensor];
    for (int i = 0; i < axes->count; i++) {
        AxisRef cur = axes->axes[i], next;
        sharded *= cur.size;
        bool ok = c->within ? within_factor(cur, tp, c->factor, sharded, &next)
                            : across_factors(cur, c->p, c->tensor, c->factor, c->competing, c->beats, &next);
        if (!ok) {
            axes->count = i;
            return;
        }
        if (!axis_ref_equal(cur, next)) {
            axes->axes[i] = next;
            axes->count = i + 1;
            return;
        }
    }
}

static void expand_factor(ShardingProjection *p, int f, const AxisList *axes, bool *updated)
{
    for (int t = 0; t < p->num_tensors; t++) {
        FactorSharding *fs = &p->tensors[t].factors[f];
        if (fs->present && axis_list_strict_prefix(&fs->axes, axes)) {
            fs->axes = *axes;
            updated[t] = true;
        }
    }
}

static void truncate_within(const ShardingProjection *p, int f, AxisList *axes)
{
    for (int t = 0; t < p->num_tensors; t++)
        if (p->tensors[t].factors[f].present)
            truncate_axes(axes, &(TruncateCtx){p, t, f, NULL, NULL, true});
}

/* Basic: factor by factor, each seeing the previous ones' updates; an axis
 * held by another factor in any tensor blocks it. */
static void propagate_basic(ShardingProjection *p, const PropagationDirection *dirs, bool *updated)
{
    for (int f = 0; f < p->rule->num_factors; f++) {
        AxisList axes;
        compatible_major_axes(p, f, dirs[f], &axes);
        for (int t = 0; t < p->num_tensors; t++)
            truncate_axes(&axes, &(TruncateCtx){p, t, f, NULL, NULL, false});
        truncate_within(p, f, &axes);
        expand_factor(p, f, &axes, updated);
    }
}

/* The key that decides which of two factors keeps a contested axis. */
typedef struct FactorClaim {
    int64_t source_size;    /* largest tensor that holds axes for the factor */
    int64_t sharded;        /* product of the proposed axes */
    int source_tensor;      /* lowest such tensor index (operands first) */
} FactorClaim;

static FactorClaim factor_claim(const ShardingProjection *p, int f, const AxisList *axes)
{
    FactorClaim c = {0, axis_list_size(axes), p->num_tensors};
    for (int t = 0; t < p->num_tensors; t++) {
        const FactorSharding *fs = &p->tensors[t].factors[f];
        if (!fs->present || fs->axes.count == 0)
            continue;
        if (p->tensors[t].num_elements > c.source_size)
            c.source_size = p->tensors[t].num_elements;
        if (t < c.source_tensor)
            c.source_tensor = t;
    }
    return c;
}

static bool claim_beats(FactorClaim a, int fa, FactorClaim b, int fb)
{
    if (a.source_size != b.source_size)
        return a.source_size > b.source_size;
    if (a.sharded != b.sharded)
        return a.sharded > b.sharded;
    if (a.source_tensor != b.source_tensor)
        return a.source_tensor < b.source_tensor;
    return fa < fb;
}

static void propagate_aggressive(ShardingProjection *p, const PropagationDirection *dirs, bool *updated, Arena *arena)
{
    int n = p->rule->num_factors;
    /* Every op visit comes here: the lists are filled before they are read. */
    AxisList *axes = ARENA_ARRAY_UNINIT(arena, AxisList, n), *snapshot = ARENA_ARRAY_UNINIT(arena, AxisList, n);
    FactorClaim *claims = ARENA_ARRAY_UNINIT(arena, FactorClaim, n);
    bool *beats = ARENA_ARRAY_UNINIT(arena, bool, n);
    for (int f = 0; f < n; f++) {
        compatible_major_axes(p, f, dirs[f], &axes[f]);
        truncate_within(p, f, &axes[f]);
        snapshot[f].count = axes[f].count;
        memcpy(snapshot[f].axes, axes[f].axes, sizeof(AxisRef) * (size_t)axes[f].count);
    }
    for (int f = 0; f < n; f++)
        claims[f] = factor_claim(p, f, &snapshot[f]);
    for (int f = 0; f < n; f++) {
        for (int g = 0; g < n; g++)
            beats[g] = g != f && claim_beats(claims[g], g, claims[f], f);
        for (int t = 0; t < p->num_tensors; t++)
            if (p->tensors[t].factors[f].present)
                truncate_axes(&axes[f], &(TruncateCtx){p, t, f, snapshot, beats, false});
    }
    for (int f = 0; f < n; f++)
        expand_factor(p, f, &axes[f], updated);
}

void factor_propagate(ShardingProjection *p, PropagationMode mode, const PropagationDirection *dirs,
                      bool *updated, Arena *scratch)
{
    if (mode == PROPAGATION_BASIC)
        propagate_basic(p, dirs, updated);
    else
        propagate_aggressive(p, dirs, updated, scratch);
}
