/* Choosing one sharding per factor for an op about to be partitioned
 * (Shardy's insert_explicit_reshards heuristic, see partition.h). */
#include <string.h>
#include "shardc/partition.h"

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

/* The candidate held by the largest total size of tensors wins; ties go
 * to more axes (compute on the more-sharded side), then the lower tensor. */
static AxisList pick_candidate(const ShardingProjection *p, int f)
{
    AxisList best = {0};
    int64_t best_score = -1;
    for (int t = 0; t < p->num_tensors; t++) {
        const FactorSharding *fs = &p->tensors[t].factors[f];
        if (!fs->present || fs->overflow.count)
            continue;
        int64_t score = 0;
        for (int u = 0; u < p->num_tensors; u++)
            if (p->tensors[u].factors[f].present && axis_list_equal(&p->tensors[u].factors[f].axes, &fs->axes))
                score += p->tensors[u].num_elements;
        if (score > best_score || (score == best_score && fs->axes.count > best.count)) {
            best = fs->axes;
            best_score = score;
        }
    }
    return best;
}

static int kind_rank(FactorKind kind) { return kind == FACTOR_PASS_THROUGH ? 0 : 1; }

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

/* Drop axes already given to another factor, and axes the factor may not
 * be sharded by. */
static void claim_axes(const ShardingProjection *p, int f, AxisList *axes, AxisList *taken, UnevenPolicy uneven)
{
    int64_t sharded = 1;
    for (int i = 0; i < axes->count; i++) {
        bool clash = false;
        for (int k = 0; k < taken->count; k++)
            clash |= axis_ref_overlaps(taken->axes[k], axes->axes[i]);
        sharded *= axes->axes[i].size;
        if (clash || !may_shard(p, f, sharded, uneven)) {
            axes->count = i;
            break;
        }
    }
    for (int i = 0; i < axes->count && taken->count < AXIS_LIST_MAX; i++)
        taken->axes[taken->count++] = axes->axes[i];
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

/* A reshape is only local when every sharded factor has the same axes on
 * both sides: a factor one side lacks is replicated (the local reshape of
 * a shard of it would have another element count than the other side's). */
static void drop_one_sided(const OpShardingRule *rule, AxisList *axes, int num_tensors)
{
    int num_operands = rule->num_operands;
    for (int f = 0; rule->one_sided_replicated && f < rule->num_factors; f++)
        if (factor_in(rule, f, 0, num_operands) != factor_in(rule, f, num_operands, num_tensors))
            axes[f].count = 0;
}

void factor_assignment(AxisList *axes_per_factor, const OpShardingRule *rule, const Mesh *mesh,
                       Sharding *const *shardings, const TensorType *const *types, int count,
                       int num_operands, UnevenPolicy uneven, Arena *scratch)
{
    ShardingProjection p;
    projection_build(&p, scratch, rule, mesh, shardings, types, num_operands, count);
    AxisList taken = {0};
    for (int pass = 0; pass < 2; pass++)
        for (int f = 0; f < rule->num_factors; f++) {
            FactorKind kind = rule->factors[f].kind;
            if (kind_rank(kind) != pass)
                continue;
            axes_per_factor[f] = (AxisList){0};
            if (kind == FACTOR_NEED_REPLICATION || kind == FACTOR_PERMUTATION)
                continue;
            axes_per_factor[f] = pick_candidate(&p, f);
            claim_axes(&p, f, &axes_per_factor[f], &taken, uneven);
        }
    drop_one_sided(rule, axes_per_factor, count);
    while (drop_strided(rule, axes_per_factor, count))
        continue;
}

/* Whether f follows a factor that is not fully sharded in some compound dim. */
static bool behind_partial(const OpShardingRule *rule, const AxisList *axes, int f)
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
    if (behind_partial(rule, axes_per_factor, f))
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
