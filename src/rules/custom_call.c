/* Rules of custom calls without a rule of their own: the runtime targets
 * Shardy's registry knows (op_sharding_rule_registry.cc, its CustomCallOp
 * case), factor for factor and in its order (its linear-algebra targets
 * are linalg.c's). Any other custom op without
 * a rule has none: nothing propagates through it and it runs on whole
 * values. */
#include <string.h>
#include "shardc/rules.h"

static bool is_target(const Op *op, const char *const *targets, size_t n)
{
    for (size_t i = 0; op->callee && i < n; i++)
        if (strcmp(op->callee, targets[i]) == 0)
            return true;
    return false;
}

/* Targets Shardy makes pointwise (buildPointwise). */
static bool pointwise_target(const Op *op)
{
    static const char *const targets[] = {
        "annotate_device_placement", "Cholesky", "CompactWyHelper", "InspectSharding",
        "InvertDiagBlocksLowerTriangular", "InvertDiagBlocksUpperTriangular", "LayoutConstraint", "mhlo.erf",
        "MoveToDevice", "MoveToHost", "X64SplitHigh", "X64SplitLow", "xla.megascale.provide_metadata",
        "_SPMDInternalOp_MultiPad", "_SPMDInternalOp_RotateRight", "_SPMDInternalOp_MultiRotate",
        "_SPMDInternalOp_MultiSlice", "_SPMDInternalOp_Wrap"};
    return is_target(op, targets, sizeof targets / sizeof *targets);
}

static bool same_shape_values(Value *const *values, int count, const TensorType *shape)
{
    for (int i = 0; i < count; i++)
        if (!type_same_shape(&values[i]->type, shape))
            return false;
    return true;
}

static OpShardingRule *pointwise(RuleBuilder *b)
{
    const Op *op = b->op;
    if (!op->num_results || !same_shape_values(op->operands, op->num_operands, &op->results[0]->type) ||
        !same_shape_values(op->results, op->num_results, &op->results[0]->type))
        return NULL;
    return rules_elementwise(b);
}

static bool has_counts(const Op *op, int operands, int results)
{
    return op->num_operands == operands && op->num_results == results;
}

/* mhlo.topk (jax.lax.top_k; values and indices): a factor per operand
 * dim; the dim k cuts needs replication and propagates nothing. */
static OpShardingRule *top_k(RuleBuilder *b)
{
    if (!has_counts(b->op, 1, 2))
        return NULL;
    const TensorType *in = rule_builder_type(b, 0), *out = rule_builder_type(b, 1);
    for (int d = 0; d < in->rank; d++) {
        bool cut = in->dims[d] != out->dims[d];
        int f = rule_builder_add_pointwise(b, d, in->dims[d], cut ? FACTOR_NEED_REPLICATION : FACTOR_PASS_THROUGH);
        if (cut)
            rule_builder_block(b, f);
    }
    return rule_builder_build(b);
}

/* ApproxTopK and PartialReduce (jax.lax.approx_max_k: operand, iota and
 * two scalar inits; values and indices): the reduced dim is one factor of
 * the two inputs and another, need_replication and blocked, of the two
 * results; every other dim one factor of all four tensors. */
static OpShardingRule *approx_top_k(RuleBuilder *b)
{
    if (!has_counts(b->op, 4, 2))
        return NULL;
    const TensorType *in = rule_builder_type(b, 0), *out = rule_builder_type(b, 4);
    for (int d = 0; d < in->rank && d < out->rank; d++) {
        if (in->dims[d] == out->dims[d]) {
            rule_builder_add_pointwise(b, d, in->dims[d], FACTOR_PASS_THROUGH);
            continue;
        }
        int f = rule_builder_new_factor(b, in->dims[d], FACTOR_PASS_THROUGH);
        rule_builder_map(b, 0, d, f);
        rule_builder_map(b, 1, d, f);
        f = rule_builder_new_factor(b, out->dims[d], FACTOR_NEED_REPLICATION);
        rule_builder_block(b, f);
        rule_builder_map(b, 4, d, f);
        rule_builder_map(b, 5, d, f);
    }
    return rule_builder_build(b);
}

/* X64Combine: pointwise, unless an rng_bit_generator uses it: its state
 * must be replicated, so the one dim needs replication and is blocked
 * (Shardy: a ui64 tensor cannot be resharded either). Users are found by
 * scanning the block: custom calls are rare. */
static bool used_by_rng(const Op *op)
{
    for (const Op *o = op->next; o; o = o->next)
        for (int i = 0; i < o->num_operands; i++)
            if (o->operands[i] == op->results[0] && strcmp(op_info(o->kind)->name, "rng_bit_generator") == 0)
                return true;
    return false;
}

static OpShardingRule *x64_combine(RuleBuilder *b)
{
    const TensorType *out = rule_builder_type(b, b->op->num_operands);
    if (b->op->num_results != 1 || !used_by_rng(b->op) || out->rank != 1)
        return pointwise(b);
    rule_builder_block(b, rule_builder_add_pointwise(b, 0, out->dims[0], FACTOR_NEED_REPLICATION));
    return rule_builder_build(b);
}

OpShardingRule *rules_custom_call(RuleBuilder *b)
{
    const Op *op = b->op;
    static const char *const approx[] = {"ApproxTopK", "PartialReduce"};
    if (pointwise_target(op))
        return pointwise(b);
    if (is_target(op, (const char *const[]){"mhlo.topk"}, 1))
        return top_k(b);
    if (is_target(op, approx, 2))
        return approx_top_k(b);
    if (is_target(op, (const char *const[]){"X64Combine"}, 1))
        return x64_combine(b);
    return rules_linalg_custom_call(b->arena, op); /* Eigh, Qr, ...: linalg.c */
}
