/* Stage two of custom-op sharding rules: a parsed rule string bound to the
 * op's operand and result types. The steps and messages are those of JAX's
 * sdy_sharding_rule_to_mlir, followed by the checks Shardy's verifier makes
 * on the OpShardingRuleAttr JAX builds (verifyOpShardingRuleAttr). */
#include "shardc/rule.h"
#include <stdarg.h>
#include <string.h>

enum { UNKNOWN_SIZE = -1 };

/* The number of leading dims one ellipsis group stands for. */
typedef struct GroupRank {
    const char *group;
    int rank;
} GroupRank;

typedef struct Binder {
    Arena *arena;
    DiagEngine *diag;
    const RuleString *rule;
    int num_operands, num_values;   /* values: operands, then results */
    const TensorType *operand_types, *result_types;
    Factor *factors;                /* JAX's factors_to_indices_sizes */
    int num_factors;
    GroupRank *groups;
    int num_groups;
    int *batching_rank;             /* per value: dims the ellipsis covers */
} Binder;

static bool fail(const Binder *b, int offset, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static bool fail(const Binder *b, int offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vreport(b->diag, DIAG_ERROR, rule_string_loc(b->rule, offset), fmt, ap);
    va_end(ap);
    return false;
}

static const RuleTensor *value_tensor(const Binder *b, int i)
{
    return i < b->num_operands ? &b->rule->operands[i] : &b->rule->results[i - b->num_operands];
}

static const TensorType *value_type(const Binder *b, int i)
{
    return i < b->num_operands ? &b->operand_types[i] : &b->result_types[i - b->num_operands];
}

/* JAX's get_message_for_value: "0th operand", "1th result". */
static const char *value_label(const Binder *b, int i)
{
    const char *kind = i < b->num_operands ? "operand" : "result";
    int index = i < b->num_operands ? i : i - b->num_operands;
    char buf[48];
    snprintf(buf, sizeof buf, "%dth %s", index, kind);
    return arena_strdup(b->arena, buf);
}

/* Factors JAX invents for the dims an ellipsis covers: "?<group>_<dim>",
 * a name no rule string can spell. */
static const char *batching_factor_name(const Binder *b, const char *group, int dim)
{
    size_t len = strlen(group) + 16;
    char *name = arena_alloc(b->arena, len);
    snprintf(name, len, "?%s_%d", group, dim);
    return name;
}

static int find_factor(const Binder *b, const char *name)
{
    for (int i = 0; i < b->num_factors; i++)
        if (strcmp(b->factors[i].name, name) == 0)
            return i;
    return -1;
}

static int64_t given_size(const RuleString *rule, const char *name)
{
    for (int i = 0; i < rule->num_sizes; i++)
        if (strcmp(rule->sizes[i].name, name) == 0)
            return rule->sizes[i].size;
    return UNKNOWN_SIZE;
}

/* JAX's add_factor: first sight fixes the index; a later, smaller size wins,
 * except for ellipsis dims, whose sizes must agree. */
static bool add_factor(Binder *b, const char *name, int64_t size, bool batching, int col)
{
    int index = find_factor(b, name);
    if (index < 0) {
        b->factors[b->num_factors++] = (Factor){name, size, FACTOR_PASS_THROUGH};
        return true;
    }
    Factor *f = &b->factors[index];
    if (size == UNKNOWN_SIZE)
        return true;
    if (batching && f->size != UNKNOWN_SIZE && f->size != size)
        return fail(b, col, "Batching dimension %s corresponds to two sizes: %lld and %lld",
                    name + 1, (long long)f->size, (long long)size);
    if (f->size == UNKNOWN_SIZE || size < f->size)
        f->size = size;
    return true;
}

static GroupRank *find_group(Binder *b, const char *group)
{
    for (int i = 0; i < b->num_groups; i++)
        if (strcmp(b->groups[i].group, group) == 0)
            return &b->groups[i];
    return NULL;
}

/* The ellipsis takes the dims the written ones leave over (none if there
 * are too few, which the rank check then reports). */
static bool ellipsis_rank(Binder *b, const RuleTensor *t, int op_rank, int *batching)
{
    int current = op_rank >= t->rank ? op_rank - t->rank : 0;
    GroupRank *g = find_group(b, t->ellipsis_group);
    if (!g)
        b->groups[b->num_groups++] = (GroupRank){t->ellipsis_group, current};
    else if (g->rank != current)
        return fail(b, t->ellipsis_col,
                    "Ellipsis represents different number of leading dimensions %d and %d",
                    g->rank, current);
    *batching = current;
    return true;
}

static bool add_dim_factors(Binder *b, const RuleDim *dim, int64_t dim_size)
{
    if (dim->count == 1)
        return add_factor(b, dim->names[0], dim_size, false, dim->col);
    for (int k = 0; k < dim->count; k++)
        if (!add_factor(b, dim->names[k], given_size(b->rule, dim->names[k]), false,
                        dim->name_cols[k]))
            return false;
    return true;
}

/* JAX's first loop over values: ranks, then factors in appearance order. */
static bool add_value_factors(Binder *b, int i)
{
    const RuleTensor *t = value_tensor(b, i);
    const TensorType *type = value_type(b, i);
    int batching = 0;
    if (t->has_ellipsis && !ellipsis_rank(b, t, type->rank, &batching))
        return false;
    if (t->rank + batching != type->rank) {
        const char *label = value_label(b, i);
        return fail(b, t->col, "Sharding rule %s has rank %d, but the operation %s has rank %d",
                    label, t->rank + batching, label, type->rank);
    }
    b->batching_rank[i] = batching;
    for (int j = 0; j < batching; j++)
        if (!add_factor(b, batching_factor_name(b, t->ellipsis_group, j), type->dims[j], true,
                        t->ellipsis_col))
            return false;
    for (int d = 0; d < t->rank; d++)
        if (!add_dim_factors(b, &t->dims[d], type->dims[batching + d]))
            return false;
    return true;
}

/* ---- mappings ---- */

static DimFactors single_factor(Binder *b, int index)
{
    DimFactors dim = {1, ARENA_ARRAY(b->arena, int, 1)};
    dim.factors[0] = index;
    return dim;
}

/* One step of a decimal product, least significant digit first. */
static int multiply_digits(unsigned char *digits, int len, uint64_t m)
{
    unsigned __int128 carry = 0;
    for (int i = 0; i < len; i++) {
        carry += (unsigned __int128)digits[i] * m;
        digits[i] = (unsigned char)(carry % 10);
        carry /= 10;
    }
    for (; carry; carry /= 10)
        digits[len++] = (unsigned char)(carry % 10);
    return len;
}

/* The product of factor sizes, in decimal: Python's message shows it
 * exactly even past int64. Sizes are non-negative. */
static const char *product_text(Binder *b, const int64_t *sizes, int n, int64_t *product)
{
    unsigned char *digits = arena_alloc(b->arena, 20 * (size_t)n + 2);
    int len = 1;
    digits[0] = 1;
    bool overflow = false;
    *product = 1;
    for (int k = 0; k < n; k++) {
        overflow |= __builtin_mul_overflow(*product, sizes[k], product);
        len = multiply_digits(digits, len, (uint64_t)sizes[k]);
    }
    while (len > 1 && digits[len - 1] == 0)
        len--; /* a zero factor leaves leading zeros */
    if (overflow)
        *product = -1;
    char *text = arena_alloc(b->arena, (size_t)len + 1);
    for (int i = 0; i < len; i++)
        text[i] = (char)('0' + digits[len - 1 - i]);
    return text;
}

/* Python's repr of the CompoundFactor tuple: ('i', 'j'). */
static const char *compound_repr(Binder *b, const RuleDim *dim)
{
    size_t len = 3;
    for (int k = 0; k < dim->count; k++)
        len += strlen(dim->names[k]) + 4;
    char *text = arena_alloc(b->arena, len);
    strcpy(text, "(");
    for (int k = 0; k < dim->count; k++) {
        strcat(text, k ? ", '" : "'");
        strcat(text, dim->names[k]);
        strcat(text, "'");
    }
    strcat(text, ")");
    return text;
}

static bool compound_factors(Binder *b, int i, const RuleDim *dim, int64_t dim_size,
                             DimFactors *out)
{
    int64_t *sizes = ARENA_ARRAY(b->arena, int64_t, dim->count);
    *out = (DimFactors){dim->count, ARENA_ARRAY(b->arena, int, dim->count)};
    for (int k = 0; k < dim->count; k++) {
        out->factors[k] = find_factor(b, dim->names[k]);
        sizes[k] = b->factors[out->factors[k]].size;
    }
    int64_t product;
    const char *product_str = product_text(b, sizes, dim->count, &product);
    if (product == dim_size)
        return true;
    return fail(b, dim->col,
                "%s actual size %lld doesn't match the size %s derived from the compound "
                "factors %s",
                value_label(b, i), (long long)dim_size, product_str, compound_repr(b, dim));
}

/* JAX's second loop: each value's dim mappings. */
static bool build_value(Binder *b, int i, TensorFactors *out)
{
    const RuleTensor *t = value_tensor(b, i);
    const TensorType *type = value_type(b, i);
    int batching = b->batching_rank[i];
    out->rank = type->rank;
    out->dims = ARENA_ARRAY(b->arena, DimFactors, type->rank);
    for (int j = 0; j < batching; j++)
        out->dims[j] = single_factor(
            b, find_factor(b, batching_factor_name(b, t->ellipsis_group, j)));
    for (int d = 0; d < t->rank; d++) {
        const RuleDim *dim = &t->dims[d];
        if (dim->count == 1)
            out->dims[batching + d] = single_factor(b, find_factor(b, dim->names[0]));
        else if (!compound_factors(b, i, dim, type->dims[batching + d],
                                   &out->dims[batching + d]))
            return false;
    }
    return true;
}

/* ---- Shardy's verifier ---- */

/* Where factor k of dim d of value i was written. */
static int factor_col(const Binder *b, int i, int d, int k)
{
    const RuleTensor *t = value_tensor(b, i);
    int batching = b->batching_rank[i];
    return d < batching ? t->ellipsis_col : t->dims[d - batching].name_cols[k];
}

/* Shardy's "operand 1 - msg", or "operand - msg" when there is one value. */
static bool mapping_fail(const Binder *b, int i, int col, const char *msg)
{
    bool operand = i < b->num_operands;
    int count = operand ? b->num_operands : b->num_values - b->num_operands;
    int index = operand ? i : i - b->num_operands;
    const char *kind = operand ? "operand" : "result";
    if (count == 1)
        return fail(b, col, "%s - %s", kind, msg);
    return fail(b, col, "%s %d - %s", kind, index, msg);
}

static bool verify_mapping(const Binder *b, int i, const TensorFactors *tensor, bool *seen)
{
    memset(seen, 0, sizeof(bool) * (size_t)b->num_factors);
    for (int d = 0; d < tensor->rank; d++) {
        const DimFactors *dim = &tensor->dims[d];
        for (int k = 0; k < dim->count; k++) {
            int index = dim->factors[k];
            if (seen[index])
                return mapping_fail(b, i, factor_col(b, i, d, k),
                                    "cannot reuse factors for the same tensor value");
            if (b->factors[index].size == 1 && dim->count > 1)
                return mapping_fail(b, i, factor_col(b, i, d, k),
                                    "dim mapping can't have a factor of size 1 if there are "
                                    "multiple factors");
            seen[index] = true;
        }
    }
    return true;
}

/* JAX passes the special factors' indices in the order the user listed
 * them; Shardy rejects a list that is not sorted. */
static bool apply_kind(Binder *b, const char *const *names, int count, FactorKind kind)
{
    int previous = -1;
    for (int i = 0; i < count; i++) {
        int index = find_factor(b, names[i]);
        if (index < previous)
            return fail(b, 0, "indices of special factors must be sorted");
        previous = index;
        b->factors[index].kind = kind;
    }
    return true;
}

/* rule->blocked from blocked_propagation=, or NULL when it names none. */
static bool *blocked_factors(Binder *b)
{
    const RuleString *r = b->rule;
    if (!r->num_blocked)
        return NULL;
    bool *blocked = ARENA_ARRAY(b->arena, bool, b->num_factors + 1);
    for (int i = 0; i < r->num_blocked; i++) {
        int index = find_factor(b, r->blocked[i]);
        if (index >= 0)
            blocked[index] = true;
    }
    return blocked;
}

static bool apply_kinds(Binder *b)
{
    const RuleString *r = b->rule;
    return apply_kind(b, r->reduction, r->num_reduction, FACTOR_REDUCTION) &&
           apply_kind(b, r->need_replication, r->num_need_replication,
                      FACTOR_NEED_REPLICATION) &&
           apply_kind(b, r->permutation, r->num_permutation, FACTOR_PERMUTATION);
}

/* Shardy's verifier: a reduction factor is summed away, so no result may
 * keep a dim of it (JAX builds such a rule; Shardy rejects the op). */
static bool check_reduction_not_in_results(const Binder *b, const TensorFactors *tensors)
{
    for (int i = b->num_operands; i < b->num_values; i++)
        for (int d = 0; d < tensors[i].rank; d++)
            for (int k = 0; k < tensors[i].dims[d].count; k++)
                if (b->factors[tensors[i].dims[d].factors[k]].kind == FACTOR_REDUCTION)
                    return fail(b, factor_col(b, i, d, k), "reduction factor cannot be in result mappings");
    return true;
}

/* ---- driver ---- */

static bool check_counts(const Binder *b, int num_operands, int num_results)
{
    const RuleString *r = b->rule;
    if (r->num_operands != num_operands)
        return fail(b, 0, "Sharding rule has %d operands, but the operation has %d operands",
                    r->num_operands, num_operands);
    if (r->num_results != num_results)
        return fail(b, r->results[0].col,
                    "Sharding rule has %d results, but the operation has %d results",
                    r->num_results, num_results);
    return true;
}

/* Every factor is a written name or an ellipsis dim. */
static int max_factors(const Binder *b)
{
    int count = 0;
    for (int i = 0; i < b->num_values; i++) {
        const RuleTensor *t = value_tensor(b, i);
        for (int d = 0; d < t->rank; d++)
            count += t->dims[d].count;
        count += value_type(b, i)->rank;
    }
    return count;
}

static void init_binder(Binder *b, int num_results)
{
    b->num_values = b->num_operands + num_results;
    b->factors = ARENA_ARRAY(b->arena, Factor, max_factors(b));
    b->groups = ARENA_ARRAY(b->arena, GroupRank, b->num_values);
    b->batching_rank = ARENA_ARRAY(b->arena, int, b->num_values);
}

static bool build_rule(Binder *b, OpShardingRule *out)
{
    TensorFactors *tensors = ARENA_ARRAY(b->arena, TensorFactors, b->num_values);
    for (int i = 0; i < b->num_values; i++)
        if (!add_value_factors(b, i))
            return false;
    for (int i = 0; i < b->num_values; i++)
        if (!build_value(b, i, &tensors[i]))
            return false;
    bool *seen = ARENA_ARRAY(b->arena, bool, b->num_factors);
    for (int i = 0; i < b->num_values; i++)
        if (!verify_mapping(b, i, &tensors[i], seen))
            return false;
    if (!apply_kinds(b) || !check_reduction_not_in_results(b, tensors))
        return false;
    *out = (OpShardingRule){.num_factors = b->num_factors, .factors = b->factors,
                            .num_operands = b->num_operands, .num_results = b->num_values - b->num_operands,
                            .operands = tensors, .results = tensors + b->num_operands, .is_custom = true};
    out->blocked = blocked_factors(b);
    return true;
}

OpShardingRule *rule_string_bind(Arena *arena, DiagEngine *diag, const RuleString *rule,
                                 int num_operands, const TensorType *operand_types,
                                 int num_results, const TensorType *result_types)
{
    Binder b = {.arena = arena, .diag = diag, .rule = rule, .num_operands = num_operands,
                .operand_types = operand_types, .result_types = result_types};
    if (!check_counts(&b, num_operands, num_results))
        return NULL;
    init_binder(&b, num_results);
    OpShardingRule *out = ARENA_NEW(arena, OpShardingRule);
    return build_rule(&b, out) ? out : NULL;
}
