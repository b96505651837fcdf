/* Choosing one sharding per factor for an op about to be partitioned
 * (Shardy's insert_explicit_reshards heuristic, see partition.h). */
#include <string.h>
#include "factor_choice.h"

static const DimFactors *tensor_dim(const OpShardingRule *rule, int t, int d)
{
    return t < rule->num_operands ? &rule->operands[t].dims[d] : &rule->results[t - rule->num_operands].dims[d];
}

static int tensor_rank(const OpShardingRule *rule, int t)
{
    return t < rule->num_operands ? rule->operands[t].rank : rule->results[t - rule->num_operands].rank;
}

/* Whether factor f maps to a dim of a tensor in [first, last). */
static bool factor_in(const OpShardingRule *rule, int f, int first, int last)
{
    for (int t = first; t < last; t++)
        for (int d = 0; d < tensor_rank(rule, t); d++)
            for (int k = 0; k < tensor_dim(rule, t, d)->count; k++)
                if (tensor_dim(rule, t, d)->factors[k] == f)
                    return true;
    return false;
}

/* Whether factor f is a whole dim, of one size, in every tensor that has
 * it: then a shard of it is a padded block like any other (a slice of
 * the factor's positions), and an uneven sharding is safe for an op that
 * is independent along it, or that masks the padding before reducing. */
static bool whole_dim_everywhere(const ShardingProjection *p, int f)
{
    for (int t = 0; t < p->num_tensors; t++)
        if (p->tensors[t].factors[f].present && !p->tensors[t].factors[f].whole_dim)
            return false;
    return true;
}

/* Whether factor f may be sharded `sharded` ways: evenly where it divides
 * every tensor's size; unevenly (padded, docs/partitioning.md "Uneven
 * dims") for a whole-dim pass-through factor, or a whole-dim reduction
 * factor of an op whose padding the partitioner masks, as `uneven`
 * allows. A sliced, padded or concatenated dim has another size in the
 * operand than in the result, and is never padded. */
static bool may_shard(const ShardingProjection *p, int f, int64_t sharded, UnevenPolicy uneven)
{
    bool divides = p->rule->factors[f].size % sharded == 0;
    for (int t = 0; t < p->num_tensors; t++)
        if (p->tensors[t].factors[f].present && p->tensors[t].factors[f].size % sharded != 0)
            divides = false;
    if (divides)
        return true;
    /* A pass-through factor only operands have (a size-1 dim a broadcast
     * expands) would leave its padding in the result. */
    const OpShardingRule *rule = p->rule;
    FactorKind kind = rule->factors[f].kind;
    bool in_result = factor_in(rule, f, rule->num_operands, p->num_tensors);
    return uneven != UNEVEN_NONE && rule->factors[f].size > 1 &&
           ((kind == FACTOR_PASS_THROUGH && in_result) ||
            (kind == FACTOR_REDUCTION && uneven == UNEVEN_MASKED_REDUCTIONS)) &&
           whole_dim_everywhere(p, f);
}

/* The longest prefix of `axes` factor f may be sharded by. */
static void cut_to_shardable(const ShardingProjection *p, int f, AxisList *axes, UnevenPolicy uneven)
{
    int64_t sharded = 1;
    for (int i = 0; i < axes->count; i++) {
        sharded *= axes->axes[i].size;
        if (!may_shard(p, f, sharded, uneven)) {
            axes->count = i;
            return;
        }
    }
}

/* A minor factor of a compound dim can only be sharded if the factors
 * major to it are fully sharded (no strided views). True if it dropped
 * anything: a factor dropped in one tensor's dim may make a factor minor
 * to it in another tensor's dim strided in turn. */
static bool drop_strided(const OpShardingRule *rule, AxisList *axes, int num_tensors)
{
    bool dropped = false;
    for (int t = 0; t < num_tensors; t++)
        for (int d = 0; d < tensor_rank(rule, t); d++) {
            const DimFactors *df = tensor_dim(rule, t, d);
            bool partial = false;
            for (int k = 0; k < df->count; k++) {
                int f = df->factors[k];
                dropped |= partial && axes[f].count;
                if (partial)
                    axes[f].count = 0;
                partial |= axis_list_size(&axes[f]) < rule->factors[f].size;
            }
        }
    return dropped;
}

/* Whether factor f may be sharded at all by the local op: need_replication
 * and permutation factors are replicated, and a reshape is only local when
 * every sharded factor has the same axes on both sides (the local reshape
 * of a shard of a factor one side lacks would have another element count
 * than the other side's). */
static bool eligible(const OpShardingRule *rule, int f, int num_tensors)
{
    FactorKind kind = rule->factors[f].kind;
    if (kind == FACTOR_NEED_REPLICATION || kind == FACTOR_PERMUTATION)
        return false;
    int num_operands = rule->num_operands;
    return !rule->one_sided_replicated ||
           factor_in(rule, f, 0, num_operands) == factor_in(rule, f, num_operands, num_tensors);
}

static void build_offers(FactorOffers *o, const ShardingProjection *p, UnevenPolicy uneven, Arena *scratch)
{
    int nf = p->rule->num_factors;
    bool *ok = ARENA_ARRAY(scratch, bool, nf + 1);
    AxisList *axes = ARENA_ARRAY_UNINIT(scratch, AxisList, (size_t)p->num_tensors * nf + 1);
    bool global = uneven == UNEVEN_GLOBAL_VIEW;
    for (int f = 0; f < nf; f++)
        ok[f] = global ? p->rule->factors[f].kind != FACTOR_NEED_REPLICATION : eligible(p->rule, f, p->num_tensors);
    /* A need_replication factor is a candidate too (Shardy's lowest
     * precedence): the axes it wins go to the batching factors after. */
    for (int t = 0; t < p->num_tensors; t++)
        for (int f = 0; f < nf; f++) {
            const FactorSharding *fs = &p->tensors[t].factors[f];
            bool need_replication = p->rule->factors[f].kind == FACTOR_NEED_REPLICATION;
            AxisList *a = &axes[t * nf + f];
            a->count = 0;
            if ((ok[f] || need_replication) && fs->present && !fs->overflow.count) {
                axis_list_copy(a, &fs->axes);
                if (ok[f] && !global)
                    cut_to_shardable(p, f, a, uneven);
            }
        }
    *o = (FactorOffers){p, ok, axes};
}

/* getCompatibleFactorShardings: when every factor has the same axes in
 * every tensor that has it, need_replication factors none, and no two
 * factors share an axis, those are the assignment (nothing moves). */
static bool compatible(AxisList *out, const ShardingProjection *p)
{
    AxisList seen;
    seen.count = 0;
    for (int f = 0; f < p->rule->num_factors; f++) {
        const AxisList *common = NULL;
        for (int t = 0; t < p->num_tensors; t++) {
            const FactorSharding *fs = &p->tensors[t].factors[f];
            if (!fs->present)
                continue;
            if (fs->overflow.count || (common && !axis_list_equal(common, &fs->axes)))
                return false;
            common = &fs->axes;
        }
        if (!common)
            continue;
        if (p->rule->factors[f].kind == FACTOR_NEED_REPLICATION && common->count)
            return false;
        AxisList rest;
        axis_list_copy(&rest, common);
        if (axis_list_truncate_without_overlap(&rest, &seen))
            return false;
        axis_list_copy(&out[f], common);
        axis_list_union(&seen, common);
    }
    return true;
}
/* Shardy's unary shortcut applies to two tensors of rank > 0 (scalars
 * aside), with no need_replication factor and one factor per dim. */
static bool unary_pair(const OpShardingRule *rule, int num_tensors, int pair[2])
{
    int n = 0;
    for (int t = 0; t < num_tensors; t++) {
        for (int d = 0; d < tensor_rank(rule, t); d++)
            if (tensor_dim(rule, t, d)->count > 1)
                return false;
        if (tensor_rank(rule, t) > 0 && n++ < 2)
            pair[n - 1] = t;
    }
    for (int f = 0; f < rule->num_factors; f++)
        if (rule->factors[f].kind == FACTOR_NEED_REPLICATION)
            return false;
    return n == 2;
}

/* sortedTensorIndicesOnUnaryOperation's key: no sharded permutation
 * factor, then more elements, then more shards. */
static void unary_key(const ShardingProjection *p, int t, int64_t key[3])
{
    const TensorProjection *tp = &p->tensors[t];
    key[0] = 1;
    key[1] = tp->num_elements;
    key[2] = 1;
    for (int f = 0; f < p->rule->num_factors; f++) {
        if (!tp->factors[f].present)
            continue;
        if (p->rule->factors[f].kind == FACTOR_PERMUTATION && tp->factors[f].axes.count)
            key[0] = 0;
        key[2] *= axis_list_size(&tp->factors[f].axes);
    }
}

/* findCommonAxesOnUnaryOperation: the preferred tensor (the first on a
 * tie) keeps its layout; the other only lends the factors the preferred
 * one lacks, cut where they overlap its axes. */
static void unary_assignment(AxisList *out, const ShardingProjection *p, const int pair[2])
{
    int64_t k0[3], k1[3];
    unary_key(p, pair[0], k0);
    unary_key(p, pair[1], k1);
    int cmp = k0[0] != k1[0] ? (k0[0] > k1[0] ? 1 : -1) : k0[1] != k1[1] ? (k0[1] > k1[1] ? 1 : -1)
            : (k0[2] >= k1[2] ? 1 : -1);
    const TensorProjection *pref = &p->tensors[cmp > 0 ? pair[0] : pair[1]];
    const TensorProjection *other = &p->tensors[cmp > 0 ? pair[1] : pair[0]];
    AxisList used;
    used.count = 0;
    for (int f = 0; f < p->rule->num_factors; f++)
        if (pref->factors[f].present) {
            axis_list_copy(&out[f], &pref->factors[f].axes);
            axis_list_union(&used, &out[f]);
        }
    for (int f = 0; f < p->rule->num_factors; f++)
        if (other->factors[f].present && !pref->factors[f].present) {
            axis_list_copy(&out[f], &other->factors[f].axes);
            axis_list_truncate_without_overlap(&out[f], &used);
        }
}

/* isFactorInAllNonScalarTensors. */
static bool in_all_tensors(const OpShardingRule *rule, int f, int num_tensors)
{
    for (int t = 0; t < num_tensors; t++)
        if (tensor_rank(rule, t) > 0 && !factor_in(rule, f, t, t + 1))
            return false;
    return true;
}

/* distributeAxisRefsToBatchingFactors: `axes` go, in order, to the
 * pass-through factors every tensor of rank > 0 has, each taking what its
 * size still divides. */
static void distribute(AxisList *out, const OpShardingRule *rule, const Mesh *mesh, AxisList axes, int num_tensors)
{
    int next = 0;
    for (int b = 0; b < rule->num_factors && next < axes.count; b++) {
        int64_t size = rule->factors[b].size, sharded = axis_list_size(&out[b]);
        if (rule->factors[b].kind != FACTOR_PASS_THROUGH || !in_all_tensors(rule, b, num_tensors) || size == 0 ||
            size % sharded != 0)
            continue;
        for (int64_t room = size / sharded; next < axes.count && room % axes.axes[next].size == 0; next++) {
            axis_list_add_or_merge(&out[b], axes.axes[next], mesh);
            room /= axes.axes[next].size;
        }
    }
}

/* The axes need_replication factors won move to the batching factors when
 * the factor is in every tensor of rank > 0; else they are dropped. */
static void move_need_replication_axes(AxisList *out, const ShardingProjection *p, int num_tensors)
{
    const OpShardingRule *rule = p->rule;
    for (int f = 0; f < rule->num_factors; f++) {
        if (rule->factors[f].kind != FACTOR_NEED_REPLICATION || !out[f].count)
            continue;
        AxisList axes;
        axis_list_copy(&axes, &out[f]);
        out[f].count = 0;
        if (in_all_tensors(rule, f, num_tensors))
            distribute(out, rule, p->mesh, axes, num_tensors);
    }
}

/* What Shardy would keep, cut to what the local op can be sharded by. */
static void fit_local_op(AxisList *out, const FactorOffers *o, UnevenPolicy uneven, int num_tensors)
{
    for (int f = 0; f < o->p->rule->num_factors; f++) {
        if (!o->eligible[f])
            out[f].count = 0;
        cut_to_shardable(o->p, f, &out[f], uneven);
    }
    while (drop_strided(o->p->rule, out, num_tensors))
        continue;
}

/* Shardy's findCommonAxes, in its order: the tensors' own shardings when
 * they agree, the unary shortcut, else the candidate heuristic. */
void factor_assignment(AxisList *axes_per_factor, const OpShardingRule *rule, const Mesh *mesh,
                       Sharding *const *shardings, const TensorType *const *types, int count,
                       int num_operands, UnevenPolicy uneven, Arena *scratch)
{
    ShardingProjection p;
    projection_build(&p, scratch, rule, mesh, shardings, types, num_operands, count);
    FactorOffers o;
    build_offers(&o, &p, uneven, scratch);
    int pair[2];
    for (int f = 0; f < rule->num_factors; f++)
        axes_per_factor[f].count = 0;
    if (!compatible(axes_per_factor, &p)) {
        for (int f = 0; f < rule->num_factors; f++)
            axes_per_factor[f].count = 0;
        if (unary_pair(rule, count, pair))
            unary_assignment(axes_per_factor, &p, pair);
        else
            factor_assignment_by_candidates(axes_per_factor, &o, scratch);
        move_need_replication_axes(axes_per_factor, &p, count);
    }
    if (uneven != UNEVEN_GLOBAL_VIEW)
        fit_local_op(axes_per_factor, &o, uneven, count);
}

/* Whether f follows a factor that is not fully sharded in some compound dim. */
bool factor_assignment_behind_partial(const OpShardingRule *rule, const AxisList *axes, int f)
{
    for (int t = 0; t < rule->num_operands + rule->num_results; t++)
        for (int d = 0; d < tensor_rank(rule, t); d++) {
            const DimFactors *df = tensor_dim(rule, t, d);
            bool partial = false;
            for (int k = 0; k < df->count; k++) {
                if (df->factors[k] == f && partial)
                    return true;
                partial |= axis_list_size(&axes[df->factors[k]]) < rule->factors[df->factors[k]].size;
            }
        }
    return false;
}

const char *factor_assignment_unsharded_reason(const OpShardingRule *rule, const AxisList *axes_per_factor, int f)
{
    int num_operands = rule->num_operands, num_tensors = num_operands + rule->num_results;
    if (rule->one_sided_replicated && factor_in(rule, f, 0, num_operands) != factor_in(rule, f, num_operands,
                                                                                         num_tensors))
        return " (only one side of the reshape has it)";
    if (factor_assignment_behind_partial(rule, axes_per_factor, f))
        return " (a factor major to it in a compound dim is not fully sharded)";
    return "";
}

void factor_assignment_tensor_axes(DimAxes *out, const OpShardingRule *rule, const AxisList *axes_per_factor, int t)
{
    reshard_dim_axes_clear(out, tensor_rank(rule, t));
    for (int d = 0; d < out->rank; d++) {
        const DimFactors *df = tensor_dim(rule, t, d);
        for (int k = 0; k < df->count; k++) {
            const AxisList *a = &axes_per_factor[df->factors[k]];
            for (int i = 0; i < a->count && out->dims[d].count < AXIS_LIST_MAX; i++)
                axis_list_add_or_merge(&out->dims[d], a->axes[i], NULL);
        }
    }
}
