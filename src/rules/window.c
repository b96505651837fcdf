/* Sharding rules of convolution, reduce_window and select_and_scatter:
 * Shardy's ConvolutionOp, ReduceWindowOp and SelectAndScatterOp cases
 * (op_sharding_rule_registry.cc, with its conservative-propagation
 * option), factor for factor and in its order, so the printed rules are Shardy's. */
#include "shardc/rules.h"
#include "shardc/window.h"

/* Shardy's addFactor({lhs, rhs}, out, size, kind): a factor of size 1 only
 * goes to dims of size 1 (OpShardingRuleBuilder skips the others). */
static void conv_factor(RuleBuilder *b, int64_t lhs, int64_t rhs, int64_t out, int64_t size, FactorKind kind)
{
    int f = rule_builder_new_factor(b, size, kind);
    const int64_t dims[3] = {lhs, rhs, out};
    const int tensors[3] = {0, 1, b->op->num_operands};
    for (int t = 0; t < 3; t++)
        if (dims[t] != RULE_NULL_DIM && (size != 1 || rule_builder_type(b, tensors[t])->dims[dims[t]] == 1))
            rule_builder_map(b, tensors[t], (int)dims[t], f);
}

/* A spatial dim: the input is split into the number of windows (mapped to
 * the output, a permutation: sharding it needs a halo) and the window
 * size (mapped to the kernel, a reduction), the larger major, each
 * capped by what is left of the input dim and left out if 1. */
static void spatial_factors(RuleBuilder *b, const ConvDims *d, int i)
{
    const TensorType *x = rule_builder_type(b, 0), *k = rule_builder_type(b, 1);
    const TensorType *out = rule_builder_type(b, b->op->num_operands);
    int64_t windows = out->dims[d->out_spatial[i]], size = k->dims[d->k_spatial[i]];
    int64_t remaining = x->dims[d->in_spatial[i]];
    for (int pass = 0; pass < 2; pass++) {
        bool contracting = (windows >= size) == (pass == 1);
        int64_t f = contracting ? size : windows;
        f = remaining < f ? remaining : f;
        if (f <= 1)
            continue;
        conv_factor(b, d->in_spatial[i], contracting ? d->k_spatial[i] : RULE_NULL_DIM,
                    contracting ? RULE_NULL_DIM : d->out_spatial[i], f,
                    contracting ? FACTOR_REDUCTION : FACTOR_PERMUTATION);
        remaining /= f;
    }
}

OpShardingRule *rules_convolution(RuleBuilder *b)
{
    ConvDims d;
    if (!op_conv_dims(b->op, &d))
        return NULL;
    const TensorType *k = rule_builder_type(b, 1), *out = rule_builder_type(b, b->op->num_operands);
    int64_t fg = op_attr_int(b->op, ATTR_KEY_FEATURE_GROUP_COUNT);
    int64_t bg = op_attr_int(b->op, ATTR_KEY_BATCH_GROUP_COUNT);
    if (bg > 1)
        conv_factor(b, d.in_batch, d.k_out, d.out_feature, bg, FACTOR_PASS_THROUGH);
    conv_factor(b, d.in_batch, RULE_NULL_DIM, d.out_batch, out->dims[d.out_batch], FACTOR_PASS_THROUGH);
    for (int i = 0; !b->conservative && i < d.num_spatial; i++) /* conservative: spatial dims unsharded */
        spatial_factors(b, &d, i);
    if (fg > 1)
        conv_factor(b, d.in_feature, d.k_out, d.out_feature, fg, FACTOR_PASS_THROUGH);
    conv_factor(b, d.in_feature, d.k_in, RULE_NULL_DIM, k->dims[d.k_in], FACTOR_REDUCTION);
    int64_t per_group = out->dims[d.out_feature] / (bg * fg);
    if (per_group > 1)
        conv_factor(b, RULE_NULL_DIM, d.k_out, d.out_feature, per_group, FACTOR_PASS_THROUGH);
    return rule_builder_build(b);
}

/* Shardy's isWindowPassthroughDim: a window of 1 at stride 1 without
 * padding maps operand and result one to one. */
static bool passthrough_dim(const WindowDims *w, int i)
{
    return w->lo[i] == 0 && w->hi[i] == 0 && w->stride[i] == 1 && w->size[i] == 1;
}

/* A factor per result dim, of its size: the operand dim is sharded along
 * the number of windows (a permutation unless the dim passes through,
 * blocked under conservative propagation). */
OpShardingRule *rules_reduce_window(RuleBuilder *b)
{
    WindowDims w;
    op_window_dims(b->op, &w);
    const TensorType *out = &b->op->results[0]->type;
    for (int i = 0; i < out->rank; i++) {
        bool through = passthrough_dim(&w, i);
        int f = rule_builder_add_pointwise(b, i, out->dims[i], through ? FACTOR_PASS_THROUGH : FACTOR_PERMUTATION);
        if (!through && b->conservative)
            rule_builder_block(b, f);
    }
    return rule_builder_build(b);
}

/* A window dim: the source dim needs replication, the operand dim is
 * permuted into the result's; conservative propagation blocks both. */
OpShardingRule *rules_select_and_scatter(RuleBuilder *b)
{
    WindowDims w;
    op_window_dims(b->op, &w);
    const TensorType *out = &b->op->results[0]->type, *src = rule_builder_type(b, 1);
    for (int i = 0; i < out->rank; i++) {
        if (passthrough_dim(&w, i)) {
            rule_builder_add_pointwise(b, i, out->dims[i], FACTOR_PASS_THROUGH);
            continue;
        }
        int f = rule_builder_new_factor(b, src->dims[i], FACTOR_NEED_REPLICATION);
        rule_builder_map(b, 1, i, f);
        int g = rule_builder_add_in_out(b, i, i, out->dims[i], FACTOR_PERMUTATION);
        if (b->conservative) {
            rule_builder_block(b, f);
            rule_builder_block(b, g);
        }
    }
    return rule_builder_build(b);
}
