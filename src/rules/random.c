/* The sharding rule of rng_bit_generator: Shardy's RngBitGeneratorOp case
 * of op_sharding_rule_registry.cc. */
#include "shardc/rules.h"

/* The state's dim is one factor of the state operand and the new state,
 * need_replication and blocked (the state is a key and a counter, whole
 * on every device); each dim of the bits is a pass-through factor of its
 * own, so the bits may be sharded: each device then computes its block's
 * counters (src/kernels/random_bits.c). The start operands of a
 * partitioned op are scalars and take no factor. */
OpShardingRule *rules_rng_bit_generator(RuleBuilder *b)
{
    const Op *op = b->op;
    const TensorType *state = rule_builder_type(b, 0), *bits = &op->results[1]->type;
    int f = rule_builder_new_factor(b, state->dims[0], FACTOR_NEED_REPLICATION);
    rule_builder_map(b, 0, 0, f);
    rule_builder_map(b, op->num_operands, 0, f);
    for (int d = 0; d < bits->rank; d++)
        rule_builder_map(b, op->num_operands + 1, d, rule_builder_new_factor(b, bits->dims[d], FACTOR_PASS_THROUGH));
    OpShardingRule *rule = rule_builder_build(b);
    bool *blocked = ARENA_ARRAY(b->arena, bool, rule->num_factors + 1);
    blocked[f] = true;
    rule->blocked = blocked;
    return rule;
}
