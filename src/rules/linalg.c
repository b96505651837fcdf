/* Sharding rules of cholesky, triangular_solve and batch_norm_inference:
 * Shardy's (op_sharding_rule_registry.cc), factor for factor in its order,
 * so --emit=rules prints what Shardy's registry test expects
 * (tests/rules_registry/linalg*.shir). */
#include <string.h>
#include "shardc/lapack.h"
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

/* A factor on dim d0 of tensor 0, d1 of tensor 1 and d2 of tensor 2
 * (operands, then results; RULE_NULL_DIM where it is absent). */
static void factor3(RuleBuilder *b, FactorKind kind, int64_t size, int d0, int d1, int d2)
{
    int f = rule_builder_new_factor(b, size, kind);
    rule_builder_map(b, 0, d0, f);
    rule_builder_map(b, 1, d1, f);
    rule_builder_map(b, 2, d2, f);
}

/* a, b and the result of triangular_solve: every matrix factor needs
 * replication. */
static void solve_factor(RuleBuilder *b, int da, int db, int dr, int64_t size)
{
    factor3(b, FACTOR_NEED_REPLICATION, size, da, db, dr);
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

/* ---- the linear-algebra custom_call targets of Shardy's registry ---- */

/* The leading dims of operand 0 but its last two: pass-through factors of
 * every tensor (Shardy's addPointwise(inShape.drop_back(2))). */
static int batch_factors(RuleBuilder *b)
{
    const TensorType *in = rule_builder_type(b, 0);
    for (int d = 0; d < in->rank - 2; d++)
        rule_builder_add_pointwise(b, d, in->dims[d], FACTOR_PASS_THROUGH);
    return in->rank - 2;
}

/* Eigh: the eigenvectors' dims follow the operand's; the eigenvalues'
 * last dim the operand's last. All pass-through: Shardy propagates
 * through them "even though that would require communication". */
static OpShardingRule *rule_eigh(RuleBuilder *b)
{
    const TensorType *in = rule_builder_type(b, 0);
    int d1 = batch_factors(b), d2 = d1 + 1;
    factor3(b, FACTOR_PASS_THROUGH, in->dims[d1], d1, d1, RULE_NULL_DIM);
    factor3(b, FACTOR_PASS_THROUGH, in->dims[d2], d2, d2, d1);
    return rule_builder_build(b);
}

/* Qr and QrDecompositionBlock: operand and first result share the
 * matrix dims, the taus' dim is its own; all need replication. */
static OpShardingRule *rule_qr(RuleBuilder *b)
{
    const TensorType *in = rule_builder_type(b, 0), *taus = rule_builder_type(b, 2);
    int d1 = batch_factors(b), d2 = d1 + 1;
    factor3(b, FACTOR_NEED_REPLICATION, in->dims[d1], d1, d1, RULE_NULL_DIM);
    factor3(b, FACTOR_NEED_REPLICATION, in->dims[d2], d2, d2, RULE_NULL_DIM);
    factor3(b, FACTOR_NEED_REPLICATION, taus->dims[d1], RULE_NULL_DIM, RULE_NULL_DIM, d1);
    return rule_builder_build(b);
}

/* ProductOfElementaryHouseholderReflectors(a, taus) -> q: a and q share
 * the matrix dims, the taus' dim is its own; all need replication. */
static OpShardingRule *rule_householder_product(RuleBuilder *b)
{
    const TensorType *in = rule_builder_type(b, 0), *taus = rule_builder_type(b, 1);
    int d1 = batch_factors(b), d2 = d1 + 1;
    factor3(b, FACTOR_NEED_REPLICATION, in->dims[d1], d1, RULE_NULL_DIM, d1);
    factor3(b, FACTOR_NEED_REPLICATION, in->dims[d2], d2, RULE_NULL_DIM, d2);
    factor3(b, FACTOR_NEED_REPLICATION, taus->dims[d1], RULE_NULL_DIM, d1, RULE_NULL_DIM);
    return rule_builder_build(b);
}

/* Whether the op's operand and result counts and ranks fit the target's
 * rule (Shardy asserts them): n_in operands, n_out results, operand 0 of
 * rank >= 2 and tensor 2 (the taus or eigenvalues) one rank lower. */
static bool fits(const Op *op, int n_in, int n_out)
{
    if (op->num_operands != n_in || op->num_results != n_out || op->operands[0]->type.rank < 2)
        return false;
    const Value *third = n_in == 2 ? op->operands[1] : op->results[1];
    return third->type.rank == op->operands[0]->type.rank - 1;
}

OpShardingRule *rules_linalg_custom_call(Arena *arena, const Op *op)
{
    RuleBuilder b;
    rule_builder_init(&b, arena, op);
    const char *t = op->callee ? op->callee : "";
    if (strcmp(t, "Eigh") == 0 && fits(op, 1, 2))
        return rule_eigh(&b);
    if ((strcmp(t, "Qr") == 0 || strcmp(t, "QrDecompositionBlock") == 0) && fits(op, 1, 2))
        return rule_qr(&b);
    if (strcmp(t, "ProductOfElementaryHouseholderReflectors") == 0 && fits(op, 2, 1))
        return rule_householder_product(&b);
    return NULL;
}

/* ---- JAX's lapack_*_ffi custom_calls (the lapack op) ---- */

/* Batch dims (operand 0's leading dims, which every operand and result
 * shares) pass through; every matrix, vector and pivot dim is a factor of
 * its own tensor that needs replication: the routine reads and writes
 * whole matrices. Shardy has no rule for these targets; this is the rule
 * of its linear-algebra ops (cholesky, triangular_solve). An unknown
 * target (read by `shardc opt`) has none. */
OpShardingRule *rules_lapack(RuleBuilder *b)
{
    LapackTarget t;
    if (!lapack_target_parse(op_attr_string(b->op, ATTR_KEY_TARGET), &t))
        return NULL;
    int nb = rule_builder_type(b, 0)->rank - 2;
    for (int d = 0; d < nb; d++)
        rule_builder_add_pointwise(b, d, rule_builder_type(b, 0)->dims[d], FACTOR_PASS_THROUGH);
    for (int i = 0; i < rule_builder_num_tensors(b); i++) {
        const TensorType *type = rule_builder_type(b, i);
        for (int d = nb; d < type->rank; d++)
            rule_builder_map(b, i, d, rule_builder_new_factor(b, type->dims[d], FACTOR_NEED_REPLICATION));
    }
    return rule_builder_build(b);
}
