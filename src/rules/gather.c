/* Sharding rules of gather and scatter: Shardy's addGatherScatterFactors
 * (op_sharding_rule_registry.cc), factor for factor and in its order, so
 * the printed rules are Shardy's. */
#include <string.h>
#include "shardc/gather.h"
#include "shardc/rules.h"

/* One factor over the operand dim, the indices dim and the slices dim
 * (gather's result, scatter's updates), each RULE_NULL_DIM if absent; a
 * scatter's result shares the operand's dim. */
typedef struct GsDims {
    int input, indices, slices;
} GsDims;

static int add_factor(RuleBuilder *b, GsDims at, int64_t size, FactorKind kind)
{
    if (b->op->kind != OP_SCATTER) {
        int f = rule_builder_new_factor(b, size, kind);
        rule_builder_map(b, 0, at.input, f);
        rule_builder_map(b, 1, at.indices, f);
        rule_builder_map(b, b->op->num_operands, at.slices, f);
        return f;
    }
    /* scatter: every input, update and result alike (Shardy's variadic case) */
    int n = b->op->num_results, f = rule_builder_new_factor(b, size, kind);
    for (int i = 0; i < n; i++) {
        rule_builder_map(b, i, at.input, f);
        rule_builder_map(b, n + 1 + i, at.slices, f);
        rule_builder_map(b, b->op->num_operands + i, at.input, f);
    }
    rule_builder_map(b, n, at.indices, f);
    return f;
}

/* Shardy's getCommonSupportedReductionOp: the update computation is one
 * associative, commutative op on the two block arguments. */
static bool is_reduction_combiner(const Op *op)
{
    const char *c = op_scatter_combiner(op);
    bool all_bool = true;
    for (int i = 0; i < op->num_results; i++)
        all_bool &= op->operands[i]->type.dtype == DT_BOOL;
    return c && strcmp(c, "replace") != 0 && ((strcmp(c, "and") != 0 && strcmp(c, "or") != 0) || all_bool);
}

/* A slices offset dim: the operand dim it takes from (the next that is
 * neither collapsed nor batching, from *input on). Unsliced, one
 * pass-through factor; sliced, for scatter two need-replication factors;
 * for gather of size 1 a reduction factor on the operand and a
 * need-replication one on the result; otherwise one blocked
 * need-replication factor. */
static void add_offset_dim(RuleBuilder *b, const GatherDims *g, int *input, int slices_dim, int64_t slices_size,
                           bool *blocked)
{
    const TensorType *x = rule_builder_type(b, 0);
    while (gather_dims_has(g->collapsed, g->num_collapsed, *input) ||
           gather_dims_has(g->operand_batching, g->num_operand_batching, *input))
        ++*input;
    int64_t size = x->dims[*input];
    GsDims in = {*input, RULE_NULL_DIM, RULE_NULL_DIM}, out = {RULE_NULL_DIM, RULE_NULL_DIM, slices_dim};
    if (size == slices_size) {
        add_factor(b, (GsDims){*input, RULE_NULL_DIM, slices_dim}, size, FACTOR_PASS_THROUGH);
    } else if (b->op->kind == OP_SCATTER) {
        add_factor(b, in, size, FACTOR_NEED_REPLICATION);
        add_factor(b, out, slices_size, FACTOR_NEED_REPLICATION);
    } else if (slices_size == 1) {
        add_factor(b, in, size, FACTOR_REDUCTION);
        add_factor(b, out, slices_size, FACTOR_NEED_REPLICATION);
    } else {
        blocked[add_factor(b, (GsDims){*input, RULE_NULL_DIM, slices_dim}, size, FACTOR_NEED_REPLICATION)] = true;
    }
    ++*input;
}

/* A slices batch dim: its indices dim, and the operand's if it is an
 * explicit batching dim. Pass-through, but for scatter an implicit batch
 * dim is a reduction (or needs replication if the update is no
 * reduction). */
static void add_batch_dim(RuleBuilder *b, const GatherDims *g, int batch_pos, int slices_dim, int64_t size)
{
    int indices = batch_pos < g->index_vector_dim ? batch_pos : batch_pos + 1;
    int k = gather_dims_find(g->index_batching, g->num_index_batching, indices);
    FactorKind kind = FACTOR_PASS_THROUGH;
    if (b->op->kind == OP_SCATTER && k < 0)
        kind = is_reduction_combiner(b->op) ? FACTOR_REDUCTION : FACTOR_NEED_REPLICATION;
    add_factor(b, (GsDims){k < 0 ? RULE_NULL_DIM : (int)g->operand_batching[k], indices, slices_dim}, size, kind);
}

static OpShardingRule *gather_scatter_rule(RuleBuilder *b, const TensorType *slices)
{
    const Op *op = b->op;
    const TensorType *x = rule_builder_type(b, 0), *idx = rule_builder_type(b, op_gather_indices_index(op));
    GatherDims g;
    op_gather_dims(op, &g);
    bool blocked[4 * SHARDC_MAX_RANK] = {false};
    int input = 0, batch_pos = 0;
    for (int d = 0; d < slices->rank; d++) {
        if (gather_dims_has(g.offset, g.num_offset, d))
            add_offset_dim(b, &g, &input, d, slices->dims[d], blocked);
        else
            add_batch_dim(b, &g, batch_pos++, d, slices->dims[d]);
    }
    for (int i = 0; i < g.num_collapsed; i++) {
        int64_t size = x->dims[g.collapsed[i]];
        FactorKind kind = op->kind == OP_SCATTER ? FACTOR_PASS_THROUGH
                          : size == 1            ? FACTOR_NEED_REPLICATION
                                                 : FACTOR_REDUCTION;
        add_factor(b, (GsDims){(int)g.collapsed[i], RULE_NULL_DIM, RULE_NULL_DIM}, size, kind);
    }
    if (g.index_vector_dim < idx->rank)
        add_factor(b, (GsDims){RULE_NULL_DIM, (int)g.index_vector_dim, RULE_NULL_DIM},
                   idx->dims[g.index_vector_dim], FACTOR_NEED_REPLICATION);
    OpShardingRule *rule = rule_builder_build(b);
    bool any = false;
    for (int f = 0; f < rule->num_factors && f < 4 * SHARDC_MAX_RANK; f++)
        any |= blocked[f];
    if (any)
        rule->blocked = arena_memdup(b->arena, blocked, (size_t)rule->num_factors, sizeof(bool));
    return rule;
}

/* Shardy's GatherOp case: the slices are the result. */
OpShardingRule *rules_gather(RuleBuilder *b)
{
    return gather_scatter_rule(b, &b->op->results[0]->type);
}

/* Shardy's ScatterOp case: the slices are the updates (the first's). */
OpShardingRule *rules_scatter(RuleBuilder *b)
{
    return gather_scatter_rule(b, rule_builder_type(b, b->op->num_results + 1));
}
