/* Op sharding rules: the factor-based description of how an op's dims may be
 * sharded (Shardy's OpShardingRuleAttr). Propagation and partitioning talk to
 * ops only through these. Custom ops get theirs from a JAX custom_partitioning
 * rule string ('b v, -> b k'); built-in ops from the registry (rules.c). */
#ifndef SHARDC_RULE_H
#define SHARDC_RULE_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "shardc/arena.h"
#include "shardc/diag.h"
#include "shardc/type.h"

/* Shardy's factor kinds; order is the partitioner's preference order. */
typedef enum {
    FACTOR_PASS_THROUGH,
    FACTOR_REDUCTION,
    FACTOR_PERMUTATION,
    FACTOR_NEED_REPLICATION,
} FactorKind;

typedef struct Factor {
    /* rule-string name, or a generated one (i, j, k...); JAX's "?N_d" for
     * dim d of the ellipsis of group N */
    const char *name;
    int64_t size;
    FactorKind kind;
} Factor;

/* The factors of one tensor dim, major to minor; a compound dim (i j) has
 * several, whose sizes multiply to the dim size. Empty for a size-1 dim
 * that takes part in no factor. */
typedef struct DimFactors {
    int count;
    int *factors;       /* indices into OpShardingRule.factors */
} DimFactors;

typedef struct TensorFactors {
    int rank;
    DimFactors *dims;
} TensorFactors;

typedef struct OpShardingRule {
    int num_factors;
    Factor *factors;    /* first-appearance order */
    int num_operands, num_results;
    TensorFactors *operands, *results;
    bool is_custom;     /* printed as ", custom" in the Shardy form */
    /* A factor only one side has (operands or results) must stay
     * unsharded in the partitioned op: a reshape's one-sided factors are
     * pieces of an index range the other side splits differently, not
     * broadcast or reduced dims. Not part of the printed rule. */
    bool one_sided_replicated;
    /* Shardy's blocked_propagation, per factor (NULL: none): no sharding
     * propagates along such a factor (a dynamic_slice's sliced dims);
     * partitioning treats it by its kind. */
    const bool *blocked;
} OpShardingRule;

/* Stage one: a rule string parsed and validated as JAX's
 * SdyShardingRule constructor does, before any types are known. */
typedef struct RuleDim {
    int count;              /* factors in this dim (>1: compound) */
    const char **names;
    int col;                /* 0-based offset of the dim in the string */
    int *name_cols;         /* 0-based offset of each name */
} RuleDim;

typedef struct RuleTensor {
    bool has_ellipsis;      /* leading ... */
    int ellipsis_rank;      /* ...N: N (INT_MAX if larger), or -1 for plain ... */
    /* JAX's batching group: the N of ...N without leading zeros; plain ...
     * is group "0". Tensors with the same group share their leading dims. */
    const char *ellipsis_group;
    int ellipsis_col;       /* offset of the ..., or -1 */
    int rank;               /* dims written, excluding the ellipsis */
    RuleDim *dims;
    int col;                /* 0-based offset where the tensor starts */
} RuleTensor;

typedef struct RuleFactorSize {
    const char *name;
    int64_t size;
} RuleFactorSize;

typedef struct RuleString {
    const char *text;
    Loc loc;                /* where the string literal's first char is */
    int num_operands, num_results;
    RuleTensor *operands, *results;
    int num_sizes;
    RuleFactorSize *sizes;  /* factor_sizes= */
    int num_reduction, num_need_replication, num_permutation;
    const char **reduction, **need_replication, **permutation;
    int num_blocked;        /* blocked_propagation= (Shardy's; any factor kind) */
    const char **blocked;
} RuleString;

/* Options given next to the string (attributes of a custom op, or flags of
 * `shardc rule`). */
typedef struct RuleStringOptions {
    int num_sizes;
    const RuleFactorSize *sizes;
    int num_reduction, num_need_replication, num_permutation;
    const char *const *reduction, *const *need_replication, *const *permutation;
    int num_blocked;
    const char *const *blocked;
} RuleStringOptions;

/* Parse and validate; on error report diagnostics and return NULL. `loc` is
 * the position of the first character of the rule text. opts may be NULL. */
RuleString *rule_string_parse(Arena *arena, DiagEngine *diag, const char *text, Loc loc,
                              const RuleStringOptions *opts);
/* The source position of byte `offset` of the rule text (newlines inside the
 * text start a new line). Assumes text bytes map 1:1 to source columns. */
Loc rule_string_loc(const RuleString *rule, int offset);
/* Stage one's view of the rule: each tensor's dims as written. */
void rule_string_print(FILE *out, const RuleString *rule);

/* Stage two: bind to operand/result types (JAX's sdy_sharding_rule_to_mlir
 * plus Shardy's verifier checks). NULL and diagnostics on error. */
OpShardingRule *rule_string_bind(Arena *arena, DiagEngine *diag, const RuleString *rule,
                                 int num_operands, const TensorType *operand_types,
                                 int num_results, const TensorType *result_types);

/* #sdy.op_sharding_rule<([i, j], [])->([i, k]) {i=8, j=16, k=2} reduction={j}, custom>
 * exactly as Shardy prints it, without a trailing newline. */
void rule_print_sdy(FILE *out, const OpShardingRule *rule);
/* Shardy's symbol for factor `index`: i..z, then z_1, z_2, ... Returns buf. */
const char *rule_factor_symbol(int index, char buf[static 16]);
/* The human-readable table printed by `shardc rule`. */
void rule_print_table(FILE *out, const OpShardingRule *rule);
const char *rule_factor_kind_name(FactorKind kind);

#endif
