/* Shardy's ways of choosing one sharding per factor (findCommonAxes in
 * shardy/dialect/sdy/transforms/export/explicit_reshards_util.cc), shared
 * by factor_assignment.c and factor_candidates.c. */
#ifndef SHARDC_FACTOR_CHOICE_H
#define SHARDC_FACTOR_CHOICE_H
#include "shardc/partition.h"
#include "shardc/propagate.h"

/* What each tensor offers each factor: its axes cut to the prefix the
 * local op can be sharded by, nothing for a factor that may not be
 * sharded at all (need_replication, permutation, a one-sided reshape
 * factor) or that has overflow axes in that tensor. */
typedef struct FactorOffers {
    const ShardingProjection *p;
    const bool *eligible;   /* per factor */
    const AxisList *axes;   /* [t * num_factors + f] */
} FactorOffers;

static inline const AxisList *factor_offer(const FactorOffers *o, int t, int f)
{
    return &o->axes[t * o->p->rule->num_factors + f];
}

/* Whether f follows, in some compound dim, a factor that `axes` does not
 * shard fully (sharding f would make a strided view). */
bool factor_assignment_behind_partial(const OpShardingRule *rule, const AxisList *axes, int f);

/* findCommonAxesHeuristic: repeatedly give the factor-axes pair held by
 * the largest total tensor size its axes (out[f], all empty on entry). */
void factor_assignment_by_candidates(AxisList *out, const FactorOffers *o, Arena *scratch);

#endif
