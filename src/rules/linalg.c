/* Sharding rules of cholesky, triangular_solve and batch_norm_inference:
 * Shardy's (op_sharding_rule_registry.cc), factor for factor in its order,
 * so --emit=rules prints what Shardy's registry test expects
 * (tests/rules_registry/linalg*.shir). */
#include <string.h>
#include "shardc/rules.h"

/* Batch dims pass through; the two matrix dims need replication: a
 * factorization reads the whole matrix. */
OpShardingRule *rules_cholesky(RuleBuilder *b)
{
    const TensorType *a = rule_builder_type(b, 0);
    for (int d = 0; d < a->rank; d++)
        rule_builder_add_pointwise(b, d, a->dims[d], d < a->rank - 2 ? FACTOR_PASS_THROUGH : FACTOR_NEED_REPLICATION);
    return rule_builder_build(b);
}

/* A factor on a's dim `da`, b's dim `db` and the result's dim `dr`
 * (RULE_NULL_DIM where it is absent); every one needs replication. */
static void solve_factor(RuleBuilder *b, int da, int db, int dr, int64_t size)
{
    int f = rule_builder_new_factor(b, size, FACTOR_NEED_REPLICATION);
    rule_builder_map(b, 0, da, f);
    rule_builder_map(b, 1, db, f);
    rule_builder_map(b, 2, dr, f);
}

/* Shardy's three matrix factors (their names in its comments, which its
 * factor order keeps): left side, op(a)·x = b: a's non-contracting dim
 * with b's rows, b's columns with the result's, a's contracting dim with
 * the result's rows; right side, x·op(a) = b, mirrored. */
OpShardingRule *rules_triangular_solve(RuleBuilder *b)
{
    const TensorType *a = rule_builder_type(b, 0), *bt = rule_builder_type(b, 1);
    int d1 = a->rank - 2, d2 = a->rank - 1;
    bool transposed = strcmp(op_attr_string(b->op, ATTR_KEY_TRANSPOSE_A), "NO_TRANSPOSE") != 0;
    for (int d = 0; d < d1; d++)
        rule_builder_add_pointwise(b, d, a->dims[d], FACTOR_PASS_THROUGH);
    if (op_attr_bool(b->op, ATTR_KEY_LEFT_SIDE)) {
        int non_contracting = transposed ? d2 : d1, contracting = transposed ? d1 : d2;
        solve_factor(b, non_contracting, d1, RULE_NULL_DIM, a->dims[non_contracting]);
        solve_factor(b, RULE_NULL_DIM, d2, d2, bt->dims[d2]);
        solve_factor(b, contracting, RULE_NULL_DIM, d1, a->dims[contracting]);
    } else {
        int non_contracting = transposed ? d1 : d2, contracting = transposed ? d2 : d1;
        solve_factor(b, RULE_NULL_DIM, d1, d1, bt->dims[d1]);
        solve_factor(b, non_contracting, d2, RULE_NULL_DIM, a->dims[non_contracting]);
        solve_factor(b, contracting, RULE_NULL_DIM, d2, a->dims[contracting]);
    }
    return rule_builder_build(b);
}

/* Every operand dim a pass-through factor shared with the result; the
 * feature dim's also with the four per-feature vectors (their dim 0). */
OpShardingRule *rules_batch_norm_inference(RuleBuilder *b)
{
    const TensorType *x = rule_builder_type(b, 0);
    int64_t feature = op_attr_int(b->op, ATTR_KEY_FEATURE_INDEX);
    for (int d = 0; d < x->rank; d++) {
        int f = rule_builder_add_in_out(b, d, d, x->dims[d], FACTOR_PASS_THROUGH);
        for (int t = 1; d == feature && t < b->op->num_operands; t++)
            rule_builder_map(b, t, 0, f);
    }
    return rule_builder_build(b);
}
