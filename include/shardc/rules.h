/* The op sharding-rule registry: Shardy's op_sharding_rule_registry.cc for
 * shardc's op set (docs/rules.md, "Built-in op rules"), plus custom ops'
 * rule strings bound to their types. Propagation and partitioning get
 * every op's rule from rules_of_op. */
#ifndef SHARDC_RULES_H
#define SHARDC_RULES_H
#include <stdio.h>
#include "shardc/ir.h"
#include "shardc/rule.h"

/* The op's sharding rule: the registry's for built-in ops, the bound rule
 * string for custom ops; NULL for ops with no rule (call, shard_map,
 * collectives, a reshape of zero elements). Allocated in `arena`, except a
 * custom op's rule kept by rules_bind_custom, which is shared (in the
 * module's arena) and must not be modified. diag gets errors only for
 * custom ops whose rule fails to bind (already reported by the verifier,
 * normally). */
OpShardingRule *rules_of_op(Arena *arena, DiagEngine *diag, const Op *op);
/* The same with Shardy's conservative-propagation option: no factor for a
 * concatenated dim or a convolution's spatial dims, and the resized dims
 * of slice, pad, reduce_window and select_and_scatter blocked. */
OpShardingRule *rules_of_op_conservative(Arena *arena, DiagEngine *diag, const Op *op, bool conservative);

/* A pass's rules of built-in ops, built once for all ops alike: the same
 * kind, spec string, attributes and operand and result types (a model's
 * repeated layers). Rules from it are shared: never modify one. */
typedef struct RuleCache {
    Arena arena;            /* the entries, their keys and their rules */
    int count, cap;
    struct RuleCacheEntry *entries;
} RuleCache;

void rule_cache_init(RuleCache *c);
void rule_cache_free(RuleCache *c);
/* rules_of_op(arena, diag, op), from the cache when op is like an op
 * before it; ops whose rule reads more than that (custom ops, ops with
 * regions or sharding attributes) get theirs built in `arena`. */
const OpShardingRule *rule_cache_get(RuleCache *c, Arena *arena, DiagEngine *diag, const Op *op);

/* Parse a custom op's rule string and bind it to its types, reporting any
 * error (the verifier's check), and keep the rule on the op (OpAside.bound_rule)
 * for rules_of_op, which reuses it while the op's shapes are those it
 * was bound to. `arena` must live as long as the op (the module's). */
bool rules_bind_custom(Arena *arena, DiagEngine *diag, Op *op);

/* Print the module with a comment line `# rule: #sdy.op_sharding_rule<...>`
 * before every op that has a rule (valid .shir: comments). */
void rule_print_module(FILE *out, const Module *m, DiagEngine *diag);

/* A custom op's factor_sizes / reduction / need_replication / permutation
 * attributes as rule-string options (shared with the verifier). Reports
 * malformed attributes and returns false. */
bool rule_options_from_attrs(Arena *arena, DiagEngine *diag, const Op *op, RuleStringOptions *out);

/* ---- the registry's builder (Shardy's OpShardingRuleBuilder) ------------
 * Tensors are numbered operands first, then results. A factor is created
 * with a size and kind, then mapped to tensor dims; a dim's factors are
 * major to minor in the order they were mapped. */

enum { RULE_NULL_DIM = -1 };    /* Shardy's kNullDim: "not in this tensor" */

typedef struct DimMapping {
    int tensor, dim, factor;
} DimMapping;

/* The builder's working lists start in its own buffers (on the caller's
 * stack) and move to the arena only if they outgrow them; the built rule
 * is then one compact copy: propagation keeps a rule per op, and the
 * builder's leftovers were two thirds of a 1e5-op module's rules. */
enum { RULE_BUILDER_FACTORS = 16, RULE_BUILDER_MAPPINGS = 48 };

typedef struct RuleBuilder {
    Arena *arena;
    const Op *op;
    bool conservative;          /* Shardy's conservative-propagation option */
    bool any_blocked;
    int num_factors, factor_cap;    /* factor_cap: of both factors and blocked */
    Factor *factors;
    bool *blocked;              /* per factor: blocked_propagation */
    int num_mappings, mapping_cap;
    DimMapping *mappings;
    Factor factor_buf[RULE_BUILDER_FACTORS];
    bool blocked_buf[RULE_BUILDER_FACTORS];
    DimMapping mapping_buf[RULE_BUILDER_MAPPINGS];
} RuleBuilder;

void rule_builder_init(RuleBuilder *b, Arena *arena, const Op *op);
/* Inline: every rule asks for them per dim of every tensor. */
static inline int rule_builder_num_tensors(const RuleBuilder *b)
{
    return b->op->num_operands + b->op->num_results;
}
/* Type of tensor t (operands, then results). */
static inline const TensorType *rule_builder_type(const RuleBuilder *b, int t)
{
    const Op *op = b->op;
    return t < op->num_operands ? &op->operands[t]->type : &op->results[t - op->num_operands]->type;
}
/* Move the builder's factor or mapping lists to bigger arrays (the inline
 * functions below, when their buffers are full). */
void rule_builder_grow_factors(RuleBuilder *b);
void rule_builder_grow_mappings(RuleBuilder *b);
/* A new factor mapped to no dim yet; returns its index. Inline, as
 * rule_builder_map: every rule of every op is built twice. */
static inline int rule_builder_new_factor(RuleBuilder *b, int64_t size, FactorKind kind)
{
    if (b->num_factors == b->factor_cap)
        rule_builder_grow_factors(b);
    b->factors[b->num_factors] = (Factor){NULL, size, kind};
    b->blocked[b->num_factors] = false;
    return b->num_factors++;
}
/* Mark a factor blocked_propagation (Shardy's isBlocked). */
void rule_builder_block(RuleBuilder *b, int factor);
/* Append `factor` to dim `dim` of tensor t; RULE_NULL_DIM does nothing. */
static inline void rule_builder_map(RuleBuilder *b, int t, int dim, int factor)
{
    if (dim == RULE_NULL_DIM)
        return;
    if (b->num_mappings == b->mapping_cap)
        rule_builder_grow_mappings(b);
    b->mappings[b->num_mappings++] = (DimMapping){t, dim, factor};
}
/* Shardy's addFactor(inDim, outDim, size, kind) for ops of one operand:
 * operand 0's in_dim and result 0's out_dim (either may be RULE_NULL_DIM). */
int rule_builder_add_in_out(RuleBuilder *b, int in_dim, int out_dim, int64_t size, FactorKind kind);
/* Shardy's addFactor(dim, size, kind): dim `dim` of every tensor of
 * rank > 0. */
int rule_builder_add_pointwise(RuleBuilder *b, int dim, int64_t size, FactorKind kind);
/* Shardy's build(): every dim left without a factor gets its own factor of
 * size 1 (operands, then results, in dim order); factors get Shardy's
 * printed names i, j, k, ... */
OpShardingRule *rule_builder_build(RuleBuilder *b);

/* Per-class rule functions (rules_*.c); NULL means "no rule". */
OpShardingRule *rules_nullary(RuleBuilder *b);
OpShardingRule *rules_elementwise(RuleBuilder *b);
OpShardingRule *rules_convert(RuleBuilder *b);
OpShardingRule *rules_einsum(RuleBuilder *b);
OpShardingRule *rules_reduce(RuleBuilder *b);
OpShardingRule *rules_argmax(RuleBuilder *b);
OpShardingRule *rules_transpose(RuleBuilder *b);
OpShardingRule *rules_reshape(RuleBuilder *b);
OpShardingRule *rules_broadcast(RuleBuilder *b);
OpShardingRule *rules_concatenate(RuleBuilder *b);
OpShardingRule *rules_slice_or_pad(RuleBuilder *b);
OpShardingRule *rules_reverse(RuleBuilder *b);
OpShardingRule *rules_dynamic_slice(RuleBuilder *b);
OpShardingRule *rules_dynamic_update_slice(RuleBuilder *b);
OpShardingRule *rules_gather(RuleBuilder *b);
OpShardingRule *rules_scatter(RuleBuilder *b);
OpShardingRule *rules_convolution(RuleBuilder *b);
OpShardingRule *rules_reduce_window(RuleBuilder *b);
OpShardingRule *rules_select_and_scatter(RuleBuilder *b);
OpShardingRule *rules_sort(RuleBuilder *b);
OpShardingRule *rules_top_k(RuleBuilder *b);
/* StableHLO's all_gather, all_to_all and reduce_scatter over replica
 * groups (Shardy's AllGatherOp, AllToAllOp, ReduceScatterOp cases) */
OpShardingRule *rules_group_collective(RuleBuilder *b);
/* A custom op without a rule string: Shardy's rule for its runtime target
 * (custom_call.c), or NULL. */
OpShardingRule *rules_custom_call(RuleBuilder *b);
/* linalg.c: Shardy's CholeskyOp, TriangularSolveOp and BatchNormInferenceOp
 * cases */
OpShardingRule *rules_cholesky(RuleBuilder *b);
OpShardingRule *rules_triangular_solve(RuleBuilder *b);
OpShardingRule *rules_batch_norm_inference(RuleBuilder *b);
/* The registry's rule of a linear-algebra custom_call target (Eigh, Qr,
 * QrDecompositionBlock, ProductOfElementaryHouseholderReflectors) on a
 * custom op without a rule of its own, or NULL. */
OpShardingRule *rules_linalg_custom_call(Arena *arena, const Op *op);
/* JAX's lapack_*_ffi custom_calls: batch dims pass through, the rest
 * needs replication */
OpShardingRule *rules_lapack(RuleBuilder *b);
OpShardingRule *rules_fft(RuleBuilder *b);
OpShardingRule *rules_rng_bit_generator(RuleBuilder *b); /* issue 18 (h33) */

#endif
