/* Sharding projections: tensor shardings onto an op's factors and back
 * (Shardy's ShardingProjection). */
#include <string.h>
#include "shardc/propagate.h"

/* A cursor over a dim's axes that can split the current axis. */
typedef struct AxisCursor {
    const AxisRef *axes;
    int count, index;
    AxisRef current;    /* what remains of axes[index] */
} AxisCursor;

static bool cursor_valid(const AxisCursor *c) { return c->index < c->count; }

static void cursor_advance(AxisCursor *c)
{
    if (++c->index < c->count)
        c->current = c->axes[c->index];
}

static void add_remaining(AxisList *out, AxisCursor *c, const Mesh *mesh)
{
    while (cursor_valid(c)) {
        axis_list_add_or_merge(out, c->current, mesh);
        cursor_advance(c);
    }
}

/* A non-minor-most factor takes (sub-)axes while they share a divisor with
 * what remains of its size; what cannot divide it overflows. */
static bool project_major_factor(FactorSharding *fs, int64_t factor_size, AxisCursor *c, const Mesh *mesh)
{
    int64_t remaining = factor_size, g = 1; /* set whenever the axis is not size 1 */
    while (cursor_valid(c) && (c->current.size == 1 || (g = ir_gcd64(remaining, c->current.size)) > 1)) {
        if (c->current.size != 1 && c->current.size > g) {
            fs->axes.axes[fs->axes.count++] = (AxisRef){c->current.axis, c->current.pre_size, g};
            c->current.pre_size *= g;
            c->current.size /= g;
            remaining /= g;
        } else {
            fs->axes.axes[fs->axes.count++] = c->current;
            remaining /= c->current.size;
            cursor_advance(c);
        }
        if (fs->axes.count == AXIS_LIST_MAX)
            break;
    }
    if (remaining > 1 && cursor_valid(c)) {
        add_remaining(&fs->overflow, c, mesh);
        return true;
    }
    return false;
}

static void project_dim(TensorProjection *tp, const OpShardingRule *rule, const DimFactors *df,
                        const DimSharding *dim, int64_t dim_size, const Mesh *mesh)
{
    AxisCursor c = {dim ? dim->axes : NULL, dim ? dim->num_axes : 0, 0, {0, 1, 1}};
    if (c.count)
        c.current = c.axes[0];
    bool closed = dim ? dim->is_closed : false, overflowed = false;
    for (int k = 0; k < df->count; k++) {
        int f = df->factors[k];
        FactorSharding *fs = &tp->factors[f];
        fs->present = true;
        fs->is_minor_most = k == df->count - 1;
        fs->size = df->count == 1 ? dim_size : rule->factors[f].size;
        fs->whole_dim = df->count == 1 && dim_size == rule->factors[f].size;
        fs->is_closed = closed || overflowed;
        if (overflowed)
            break;
        if (fs->is_minor_most)
            add_remaining(&fs->axes, &c, mesh);
        else
            overflowed = project_major_factor(fs, rule->factors[f].size, &c, mesh);
    }
}

/* A factor no dim of the tensor has: every field but the axis arrays. */
static void clear_factor(FactorSharding *fs)
{
    fs->present = fs->is_closed = fs->is_minor_most = fs->whole_dim = false;
    fs->size = 0;
    fs->axes.count = fs->overflow.count = 0;
}

void projection_build(ShardingProjection *p, Arena *scratch, const OpShardingRule *rule, const Mesh *mesh,
                      Sharding *const *shardings, const TensorType *const *types, int num_operands,
                      int num_tensors)
{
    p->rule = rule;
    p->mesh = mesh;
    p->conservative = false;
    p->num_tensors = num_tensors;
    p->num_operands = num_operands;
    /* Not zeroed: every visit of every op builds projections, and zeroing
     * their axis arrays (16 entries each, a few used) was a fifth of the
     * time propagation spent building them. Lists are read up to count. */
    p->tensors = ARENA_ARRAY_UNINIT(scratch, TensorProjection, num_tensors);
    for (int t = 0; t < num_tensors; t++) {
        TensorProjection *tp = &p->tensors[t];
        const TensorFactors *tf = t < num_operands ? &rule->operands[t] : &rule->results[t - num_operands];
        const Sharding *s = shardings[t];
        tp->replicated.count = 0;
        tp->factors = ARENA_ARRAY_UNINIT(scratch, FactorSharding, rule->num_factors);
        for (int f = 0; f < rule->num_factors; f++)
            clear_factor(&tp->factors[f]);
        type_num_elements(types[t], &tp->num_elements);
        for (int d = 0; d < tf->rank; d++)
            project_dim(tp, rule, &tf->dims[d], s ? &s->dims[d] : NULL, types[t]->dims[d], mesh);
        for (int k = 0; s && k < s->num_replicated && k < AXIS_LIST_MAX; k++)
            tp->replicated.axes[tp->replicated.count++] = s->replicated[k];
        /* Unreduced axes block a factor as replicated ones do (Shardy's
         * compatiblePrefixNoConflictsWithinFactor): a partial sum over x
         * cannot also be split along x. */
        for (int k = 0; s && k < s->num_unreduced && tp->replicated.count < AXIS_LIST_MAX; k++)
            tp->replicated.axes[tp->replicated.count++] = s->unreduced[k];
    }
}

static bool same_dim_axes(const DimSharding *a, const DimSharding *b)
{
    if (a->num_axes != b->num_axes)
        return false;
    for (int i = 0; i < a->num_axes; i++)
        if (!axis_ref_equal(a->axes[i], b->axes[i]))
            return false;
    return true;
}

bool projection_agrees(const OpShardingRule *rule, Sharding *const *shardings, int num_operands, int num_tensors)
{
    static const DimSharding unsharded = {0, NULL, false, PRIORITY_NONE};
    const DimSharding *seen[rule->num_factors + 1];
    for (int f = 0; f < rule->num_factors; f++)
        seen[f] = NULL;
    for (int t = 0; t < num_tensors; t++) {
        const TensorFactors *tf = t < num_operands ? &rule->operands[t] : &rule->results[t - num_operands];
        const Sharding *s = shardings[t];
        for (int d = 0; d < tf->rank; d++) {
            const DimFactors *df = &tf->dims[d];
            if (df->count > 1)
                return false; /* a compound dim's axes are split between its factors */
            const DimSharding *dim = s ? &s->dims[d] : &unsharded;
            int f = df->count ? df->factors[0] : -1;
            if (f < 0)
                continue;
            if (!seen[f])
                seen[f] = dim;
            else if (!same_dim_axes(seen[f], dim))
                return false;
        }
    }
    return true;
}

/* Shardy's createTensorShardingAttr for one dim. */
static void unproject_dim(const ShardingProjection *p, const TensorProjection *tp, const DimFactors *df,
                          AxisList *axes, bool *closed)
{
    for (int k = 0; k < df->count; k++) {
        int f = df->factors[k];
        const FactorSharding *fs = &tp->factors[f];
        *closed |= fs->is_closed;
        for (int i = 0; i < fs->axes.count; i++)
            axis_list_add_or_merge(axes, fs->axes.axes[i], p->mesh);
        int64_t sharded = axis_list_size(&fs->axes);
        if (fs->overflow.count) {
            for (int i = 0; i < fs->overflow.count; i++)
                axis_list_add_or_merge(axes, fs->overflow.axes[i], p->mesh);
            break;
        }
        if (sharded < p->rule->factors[f].size)
            break;
    }
}

Sharding *projection_to_sharding(const ShardingProjection *p, int t, const Sharding *old, Arena *arena)
{
    const TensorFactors *tf = t < p->num_operands ? &p->rule->operands[t] : &p->rule->results[t - p->num_operands];
    const TensorProjection *tp = &p->tensors[t];
    Sharding *s = sharding_new_open(arena, p->mesh, tf->rank);
    for (int d = 0; d < tf->rank; d++) {
        AxisList axes;
        axes.count = 0;
        bool closed = false;
        unproject_dim(p, tp, &tf->dims[d], &axes, &closed);
        DimSharding *dim = &s->dims[d];
        dim->num_axes = axes.count;
        dim->axes = arena_memdup(arena, axes.axes, (size_t)axes.count, sizeof(AxisRef));
        dim->is_closed = old ? old->dims[d].is_closed : closed;
        dim->priority = old ? old->dims[d].priority : PRIORITY_NONE;
    }
    if (old) {
        s->num_replicated = old->num_replicated;
        s->replicated = old->replicated;
        s->num_unreduced = old->num_unreduced;
        s->unreduced = old->unreduced;
        s->unreduced_op = old->unreduced_op;
        s->loc = old->loc;
    }
    return s;
}
