/* An op's sdy.sharding_rule checked as Shardy's verifier checks it
 * (verifyOpShardingRuleAttr), before any handler reads it, so that a bad
 * rule on any op is reported in sdy_opt's words, at the op's line:
 * mappings per operand and result, factor indices, special factor sets.
 * Factors are indices as Shardy numbers them (mlir_rule_factor_index);
 * their sizes are listed in that order (the parser sees to it). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "mlir/import_internal.h"

typedef struct RuleCheck {
    OpImport *oi;
    const MlirRule *rule;
    int num_factors;
    char *in_operands, *in_results; /* per factor: used by a mapping */
    char *in_value;                 /* per factor: used by the current value */
} RuleCheck;

static bool rule_error(const RuleCheck *rc, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const OpImport *oi = rc->oi;
    diag_error(oi->ic->diag, mlir_imp_loc(oi->ic, oi->src->loc), "'%s' op %s", oi->src->name, msg);
    return false;
}

static int64_t factor_size(const RuleCheck *rc, int64_t f)
{
    return *(const int64_t *)rc->rule->factor_sizes.items[f];
}

static const TensorType *value_type(const OpImport *oi, bool result, int i)
{
    return result ? &oi->result_types[i] : &oi->operands[i]->type;
}

static int value_rank(const OpImport *oi, bool result, int i)
{
    if (result)
        return oi->result_types[i].rank;
    if (oi->src->operand_types.count == oi->num_operands)
        return ((const MlirType *)oi->src->operand_types.items[i])->rank;
    return oi->operands[i]->type.rank;
}

/* The message's value part: "operand 1 - " ("operand - " for the only one). */
static void value_prefix(char *buf, size_t n, const char *kind, int count, int i)
{
    if (count == 1)
        snprintf(buf, n, "%s - ", kind);
    else
        snprintf(buf, n, "%s %d - ", kind, i);
}

static bool check_dim(RuleCheck *rc, const MlirList *factors, const char *who, char *seen)
{
    if (!factors->count)
        return rule_error(rc, "%sdim mapping must have at least one factor", who);
    for (int k = 0; k < factors->count; k++) {
        int64_t f = mlir_rule_factor_index(factors->items[k]);
        if (f < 0 || f >= rc->num_factors)
            return rule_error(rc, "%sexpecting factor indices to be within 0<=...<num_factors; received: %lld, "
                              "num_factors: %d", who, (long long)f, rc->num_factors);
        if (rc->in_value[f])
            return rule_error(rc, "%scannot reuse factors for the same tensor value", who);
        if (factor_size(rc, f) == 1 && factors->count > 1)
            return rule_error(rc, "%sdim mapping can't have a factor of size 1 if there are multiple factors", who);
        rc->in_value[f] = seen[f] = 1;
    }
    return true;
}

/* verifyShardingRuleMapping: one side's mappings against its values. */
static bool check_side(RuleCheck *rc, const MlirList *mappings, bool result)
{
    const OpImport *oi = rc->oi;
    const char *kind = result ? "result" : "operand";
    int count = result ? oi->num_results : oi->num_operands;
    char *seen = result ? rc->in_results : rc->in_operands;
    if (count != mappings->count)
        return rule_error(rc, "number of %ss and mappings must match: %d != %d", kind, count, mappings->count);
    for (int i = 0; i < count; i++) {
        const MlirList *dims = mappings->items[i];
        char who[48];
        value_prefix(who, sizeof who, kind, count, i);
        memset(rc->in_value, 0, (size_t)rc->num_factors + 1);
        if (!type_is_static(value_type(oi, result, i)) || value_type(oi, result, i)->dtype == DT_TOKEN) {
            char text[64];
            type_mlir_text(text, sizeof text, value_type(oi, result, i));
            return rule_error(rc, "%sexpected a ranked tensor with a static shape. type: %s", who, text);
        }
        if (dims->count != value_rank(oi, result, i))
            return rule_error(rc, "%smapping rank must match: %d != %d", who, dims->count, value_rank(oi, result, i));
        for (int d = 0; d < dims->count; d++)
            if (!check_dim(rc, dims->items[d], who, seen))
                return false;
    }
    return true;
}

/* indicesSortedUniqueInBound, on a special factor set as written. */
static bool check_special(RuleCheck *rc, const MlirList *names, char *in_sets)
{
    int64_t lo = 0, hi = -1;
    for (int k = 0; k < names->count; k++) {
        int64_t f = mlir_rule_factor_index(names->items[k]);
        for (int j = 0; j < k; j++)
            if (mlir_rule_factor_index(names->items[j]) == f)
                return rule_error(rc, "indices of special factors must be unique");
        if (k && f < mlir_rule_factor_index(names->items[k - 1]))
            return rule_error(rc, "indices of special factors must be sorted");
        lo = k && lo < f ? lo : f;
        hi = hi > f ? hi : f;
    }
    if (lo < 0)
        return rule_error(rc, "index must be non-negative");
    if (hi >= rc->num_factors)
        return rule_error(rc, "index must be less than %d, got: %lld", rc->num_factors, (long long)hi);
    for (int k = 0; in_sets && k < names->count; k++) {
        if (in_sets[mlir_rule_factor_index(names->items[k])]++)
            return rule_error(rc, "a factor can only be in one of the reduction, need replication, or permutation "
                              "factor sets");
    }
    return true;
}

static bool check_factors(RuleCheck *rc)
{
    const MlirRule *r = rc->rule;
    for (int f = 0; f < rc->num_factors; f++) {
        if (!rc->in_operands[f] && !rc->in_results[f])
            return rule_error(rc, "has factor %s=%lld that isn't used in operand and result mappings",
                              (const char *)r->factor_names.items[f], (long long)factor_size(rc, f));
    }
    char *in_sets = arena_alloc(&rc->oi->ic->scratch, (size_t)rc->num_factors + 1);
    memset(in_sets, 0, (size_t)rc->num_factors + 1);
    const MlirList *sets[3] = {&r->reduction, &r->need_replication, &r->permutation};
    for (int i = 0; i < 3; i++)
        if (!check_special(rc, sets[i], NULL))
            return false;
    for (int i = 0; i < 3; i++)
        if (!check_special(rc, sets[i], in_sets))
            return false;
    if (!check_special(rc, &r->blocked, NULL))
        return false;
    for (int k = 0; k < r->reduction.count; k++)
        if (rc->in_results[mlir_rule_factor_index(r->reduction.items[k])])
            return rule_error(rc, "reduction factor cannot be in result mappings");
    return true;
}

bool mlir_imp_verify_rule(OpImport *oi)
{
    const MlirAttr *a = mlir_dict_get(&oi->src->attrs, "sdy.sharding_rule");
    RuleCheck rc = {oi, a ? a->rule : NULL, 0, NULL, NULL, NULL};
    if (!a)
        return true;
    if (a->kind != MA_RULE || !a->rule)
        return rule_error(&rc, "should have a sharding rule attribute of type OpShardingRuleAttr for attr named "
                          "'sdy.sharding_rule'");
    rc.num_factors = a->rule->factor_sizes.count;
    char *flags = arena_alloc(&oi->ic->scratch, 3 * ((size_t)rc.num_factors + 1));
    memset(flags, 0, 3 * ((size_t)rc.num_factors + 1));
    rc.in_operands = flags;
    rc.in_results = flags + rc.num_factors + 1;
    rc.in_value = flags + 2 * (rc.num_factors + 1);
    return check_side(&rc, &a->rule->operands, false) && check_side(&rc, &a->rule->results, true) &&
           check_factors(&rc);
}

/* ---- the rule as an OpShardingRule ---- */

static TensorFactors *written_tensors(Arena *arena, const MlirList *mappings)
{
    TensorFactors *tensors = ARENA_ARRAY(arena, TensorFactors, mappings->count + 1);
    for (int i = 0; i < mappings->count; i++) {
        const MlirList *dims = mappings->items[i];
        tensors[i].rank = dims->count;
        tensors[i].dims = ARENA_ARRAY(arena, DimFactors, dims->count + 1);
        for (int d = 0; d < dims->count; d++) {
            const MlirList *names = dims->items[d];
            DimFactors *df = &tensors[i].dims[d];
            df->count = names->count;
            df->factors = ARENA_ARRAY(arena, int, names->count + 1);
            for (int k = 0; k < names->count; k++)
                df->factors[k] = (int)mlir_rule_factor_index(names->items[k]);
        }
    }
    return tensors;
}

static void written_kinds(Factor *factors, const MlirList *names, FactorKind kind)
{
    for (int k = 0; k < names->count; k++)
        factors[mlir_rule_factor_index(names->items[k])].kind = kind;
}

/* Run after mlir_imp_verify_rule accepted it: every index is in range. */
const OpShardingRule *mlir_imp_written_rule(OpImport *oi)
{
    const MlirAttr *a = mlir_dict_get(&oi->src->attrs, "sdy.sharding_rule");
    if (!a || a->kind != MA_RULE || !a->rule)
        return NULL;
    const MlirRule *r = a->rule;
    Arena *arena = oi->ic->arena;
    OpShardingRule *rule = ARENA_NEW(arena, OpShardingRule);
    rule->num_factors = r->factor_sizes.count;
    rule->factors = ARENA_ARRAY(arena, Factor, rule->num_factors + 1);
    for (int f = 0; f < rule->num_factors; f++)
        rule->factors[f] = (Factor){mlir_imp_str(oi->ic, r->factor_names.items[f]),
                                    *(const int64_t *)r->factor_sizes.items[f], FACTOR_PASS_THROUGH};
    written_kinds(rule->factors, &r->reduction, FACTOR_REDUCTION);
    written_kinds(rule->factors, &r->need_replication, FACTOR_NEED_REPLICATION);
    written_kinds(rule->factors, &r->permutation, FACTOR_PERMUTATION);
    if (r->blocked.count) {
        bool *blocked = ARENA_ARRAY(arena, bool, rule->num_factors + 1);
        for (int k = 0; k < r->blocked.count; k++)
            blocked[mlir_rule_factor_index(r->blocked.items[k])] = true;
        rule->blocked = blocked;
    }
    rule->num_operands = r->operands.count;
    rule->num_results = r->results.count;
    rule->operands = written_tensors(arena, &r->operands);
    rule->results = written_tensors(arena, &r->results);
    rule->is_custom = r->is_custom;
    return rule;
}
