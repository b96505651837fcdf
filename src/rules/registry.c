/* The rule registry: which rule each op gets (by op class), the rule
 * builder every built-in rule is written with, and custom ops' rules bound
 * from their JAX rule strings. */

/* The registry's dispatch by op class and the rule builder every built-in
 * rule is written with (Shardy's OpShardingRuleBuilder). */
#include <string.h>
#include "shardc/rules.h"

void rule_builder_init(RuleBuilder *b, Arena *arena, const Op *op)
{
    b->arena = arena;
    b->op = op;
    b->num_factors = b->num_mappings = 0;
    b->conservative = b->any_blocked = false;
    b->factor_cap = RULE_BUILDER_FACTORS;
    b->mapping_cap = RULE_BUILDER_MAPPINGS;
    b->factors = b->factor_buf;
    b->blocked = b->blocked_buf;
    b->mappings = b->mapping_buf;
}

/* Arena arrays cannot be resized in place: grow by copying, doubling. */
static void *grow(Arena *arena, const void *items, int count, int new_cap, size_t elem_size)
{
    void *bigger = arena_alloc(arena, elem_size * (size_t)new_cap);
    if (count)
        memcpy(bigger, items, elem_size * (size_t)count);
    return bigger;
}

void rule_builder_grow_factors(RuleBuilder *b)
{
    int cap = b->factor_cap * 2;
    b->factors = grow(b->arena, b->factors, b->num_factors, cap, sizeof(Factor));
    b->blocked = grow(b->arena, b->blocked, b->num_factors, cap, sizeof(bool));
    b->factor_cap = cap;
}

void rule_builder_grow_mappings(RuleBuilder *b)
{
    int cap = b->mapping_cap * 2;
    b->mappings = grow(b->arena, b->mappings, b->num_mappings, cap, sizeof(DimMapping));
    b->mapping_cap = cap;
}

void rule_builder_block(RuleBuilder *b, int factor)
{
    b->blocked[factor] = true;
    b->any_blocked = true;
}

int rule_builder_add_in_out(RuleBuilder *b, int in_dim, int out_dim, int64_t size, FactorKind kind)
{
    int f = rule_builder_new_factor(b, size, kind);
    rule_builder_map(b, 0, in_dim, f);
    rule_builder_map(b, b->op->num_operands, out_dim, f);
    return f;
}

int rule_builder_add_pointwise(RuleBuilder *b, int dim, int64_t size, FactorKind kind)
{
    int f = rule_builder_new_factor(b, size, kind);
    for (int t = 0; t < rule_builder_num_tensors(b); t++)
        if (rule_builder_type(b, t)->rank > 0)
            rule_builder_map(b, t, dim, f);
    return f;
}

/* ---- build ---- */

/* "i", "j", ...: the common names are constants, not copies. */
static const char *factor_name(Arena *arena, int index)
{
    static const char *const names[] = {"i", "j", "k", "l", "m", "n", "o", "p", "q", "r", "s", "t", "u", "v", "w",
                                         "x", "y", "z"};
    char buf[16];
    if (index < (int)(sizeof names / sizeof names[0])) /* rule_factor_symbol's: 'i' + index up to 'z' */
        return names[index];
    return arena_strdup(arena, rule_factor_symbol(index, buf));
}

/* Where the built rule's dims are: tensor t's dims are dims
 * [first[t], first[t + 1]) of one array, and dim i has count[i] factors
 * mapped to it. Every rule of every op is built twice (propagation and
 * partitioning), so the ranks are read once here, not per mapping. */
typedef struct BuildLayout {
    int num_tensors, num_dims, num_empty;
    int *first, *count;
    DimFactors *dims;   /* the built rule's, in the same order */
} BuildLayout;

static void layout_dims(const RuleBuilder *b, BuildLayout *l)
{
    l->first[0] = 0;
    for (int t = 0; t < l->num_tensors; t++)
        l->first[t + 1] = l->first[t] + rule_builder_type(b, t)->rank;
    l->num_dims = l->first[l->num_tensors];
}

static void count_mappings(const RuleBuilder *b, BuildLayout *l)
{
    for (int i = 0; i < l->num_dims; i++)
        l->count[i] = 0;
    for (int i = 0; i < b->num_mappings; i++)
        l->count[l->first[b->mappings[i].tensor] + b->mappings[i].dim]++;
    l->num_empty = 0;
    for (int i = 0; i < l->num_dims; i++)
        l->num_empty += l->count[i] == 0;
}

/* One block holds the rule and all its arrays (8-byte aligned pieces):
 * the rule, its factors, its tensors (operands, then results), their
 * dims, then the dims' factor indices, one slot per mapping plus one for
 * each empty dim's size-1 factor. */
static OpShardingRule *alloc_rule(RuleBuilder *b, BuildLayout *l, int num_factors)
{
    size_t slots = (size_t)b->num_mappings + (size_t)l->num_empty;
    size_t size = sizeof(OpShardingRule) + sizeof(Factor) * (size_t)num_factors +
                  sizeof(TensorFactors) * (size_t)(l->num_tensors + 1) + sizeof(DimFactors) * (size_t)l->num_dims +
                  sizeof(int) * (slots + 1);
    unsigned char *block = arena_alloc_uninit(b->arena, size);
    OpShardingRule *rule = (OpShardingRule *)block;
    Factor *factors = (Factor *)(rule + 1);
    TensorFactors *tensors = (TensorFactors *)(factors + num_factors);
    DimFactors *dims = (DimFactors *)(tensors + l->num_tensors + 1);
    *rule = (OpShardingRule){
        .num_factors = num_factors, .factors = factors,
        .num_operands = b->op->num_operands, .num_results = b->op->num_results,
        .operands = tensors, .results = tensors + b->op->num_operands,
    };
    for (int t = 0; t < l->num_tensors; t++)
        tensors[t] = (TensorFactors){l->first[t + 1] - l->first[t], dims + l->first[t]};
    int *slot = (int *)(dims + l->num_dims);
    for (int i = 0; i < l->num_dims; i++) {
        dims[i] = (DimFactors){0, slot};
        slot += l->count[i] ? l->count[i] : 1;
    }
    l->dims = dims;
    return rule;
}

/* The mappings in order; then Shardy's buildTensorMappingAttrList: a dim
 * no factor reached can still not be sharded, which a factor of size 1
 * says explicitly (operands, then results, in dim order). */
static void fill_dims(RuleBuilder *b, OpShardingRule *rule, const BuildLayout *l)
{
    DimFactors *dims = l->dims;
    for (int i = 0; i < b->num_mappings; i++) {
        DimFactors *df = &dims[l->first[b->mappings[i].tensor] + b->mappings[i].dim];
        df->factors[df->count++] = b->mappings[i].factor;
    }
    int next = b->num_factors;
    for (int i = 0; i < l->num_dims; i++)
        if (!dims[i].count) {
            rule->factors[next] = (Factor){NULL, 1, FACTOR_PASS_THROUGH};
            dims[i].factors[dims[i].count++] = next++;
        }
}

OpShardingRule *rule_builder_build(RuleBuilder *b)
{
    int num_tensors = rule_builder_num_tensors(b);
    int first[num_tensors + 1];
    BuildLayout l = {.num_tensors = num_tensors, .first = first};
    layout_dims(b, &l);
    int count[l.num_dims + 1];
    l.count = count;
    count_mappings(b, &l);
    int num_factors = b->num_factors + l.num_empty;
    OpShardingRule *rule = alloc_rule(b, &l, num_factors);
    if (b->num_factors)
        memcpy(rule->factors, b->factors, sizeof(Factor) * (size_t)b->num_factors);
    fill_dims(b, rule, &l);
    for (int i = 0; i < num_factors; i++)
        rule->factors[i].name = factor_name(b->arena, i);
    if (b->any_blocked) { /* the size-1 factors are never blocked */
        bool *blocked = ARENA_ARRAY(b->arena, bool, num_factors);
        memcpy(blocked, b->blocked, sizeof(bool) * (size_t)b->num_factors);
        rule->blocked = blocked;
    }
    return rule;
}

/* ---- dispatch ---- */

typedef OpShardingRule *(*RuleFn)(RuleBuilder *b);

/* By op class, one entry per line of opclasses.def (a class without one
 * does not compile). NULL: no rule, as in Shardy, which treats calls,
 * shard_map and collectives as data flow or manual. Custom ops bind their
 * rule string instead (rules_custom). */

static OpShardingRule *rules_custom(Arena *arena, DiagEngine *diag, const Op *op);

static const RuleFn rule_fns[OPC_COUNT] = {
#define OPCLASS(cls, verify, rule, explicit, partition, exec) [cls] = rule,
#include "shardc/opclasses.def"
#undef OPCLASS
};

OpShardingRule *rules_of_op_conservative(Arena *arena, DiagEngine *diag, const Op *op, bool conservative)
{
    OpClass cls = op_info(op->kind)->op_class;
    if (cls == OPC_CUSTOM)
        return rules_custom(arena, diag, op);
    if ((unsigned)cls >= OPC_COUNT || !rule_fns[cls])
        return NULL;
    RuleBuilder b;
    rule_builder_init(&b, arena, op);
    b.conservative = conservative;
    return rule_fns[cls](&b);
}

OpShardingRule *rules_of_op(Arena *arena, DiagEngine *diag, const Op *op)
{
    return rules_of_op_conservative(arena, diag, op, false);
}

/* A custom op's rule: its JAX rule string (attribute `rule`) parsed with the
 * options its other attributes give, and bound to its operand and result
 * types. The verifier binds it (rules_bind_custom), reporting any error,
 * and keeps it on the op for propagation and partitioning. */

static bool list_error(DiagEngine *diag, Loc loc, AttrKey key)
{
    diag_error(diag, loc, "'%s' must be a list of factor names", attr_key_name(key));
    return false;
}

/* A list-of-factor-names attribute into a C array (none if absent). */
static bool factor_names(Arena *arena, DiagEngine *diag, const Op *op, AttrKey key, int *count,
                         const char *const **out)
{
    const AttrValue *v = op_attr_get(op, key);
    *count = 0;
    *out = NULL;
    if (!v)
        return true;
    if (v->kind != ATTR_ARRAY)
        return list_error(diag, v->loc, key);
    const char **names = ARENA_ARRAY(arena, const char *, v->u.array.count + 1);
    for (int i = 0; i < v->u.array.count; i++) {
        if (v->u.array.items[i]->kind != ATTR_STRING)
            return list_error(diag, v->u.array.items[i]->loc, key);
        names[i] = v->u.array.items[i]->u.s;
    }
    *count = v->u.array.count;
    *out = names;
    return true;
}

/* factor_sizes = {k = 4, ...} into name/size pairs (none if absent). */
static bool factor_sizes(Arena *arena, DiagEngine *diag, const Op *op, RuleStringOptions *opts)
{
    const AttrValue *v = op_attr_get(op, ATTR_KEY_FACTOR_SIZES);
    if (!v)
        return true;
    if (v->kind != ATTR_DICT) {
        diag_error(diag, v->loc, "'factor_sizes' must be a dict of sizes: {k = 4}");
        return false;
    }
    RuleFactorSize *sizes = ARENA_ARRAY(arena, RuleFactorSize, v->u.dict.count + 1);
    for (int i = 0; i < v->u.dict.count; i++) {
        const NamedAttr *a = &v->u.dict.items[i];
        if (a->value->kind != ATTR_INT) {
            diag_error(diag, a->value->loc, "factor size of '%s' must be an integer", a->name);
            return false;
        }
        sizes[i] = (RuleFactorSize){a->name, a->value->u.i};
    }
    opts->num_sizes = v->u.dict.count;
    opts->sizes = sizes;
    return true;
}

bool rule_options_from_attrs(Arena *arena, DiagEngine *diag, const Op *op, RuleStringOptions *out)
{
    *out = (RuleStringOptions){0};
    /* Each list is checked even after an error, so all are reported. */
    bool ok = factor_names(arena, diag, op, ATTR_KEY_REDUCTION, &out->num_reduction, &out->reduction);
    ok &= factor_names(arena, diag, op, ATTR_KEY_NEED_REPLICATION, &out->num_need_replication,
                       &out->need_replication);
    ok &= factor_names(arena, diag, op, ATTR_KEY_PERMUTATION, &out->num_permutation, &out->permutation);
    ok &= factor_names(arena, diag, op, ATTR_KEY_BLOCKED_PROPAGATION, &out->num_blocked, &out->blocked);
    ok &= factor_sizes(arena, diag, op, out);
    return ok;
}

static TensorType *value_types(Arena *arena, Value **values, int count)
{
    TensorType *types = ARENA_ARRAY(arena, TensorType, count + 1);
    for (int i = 0; i < count; i++)
        types[i] = values[i]->type;
    return types;
}

static OpShardingRule *bind_custom(Arena *arena, DiagEngine *diag, const Op *op, const TensorType *operand_types,
                                   const TensorType *result_types)
{
    const AttrValue *text = op_attr_get(op, ATTR_KEY_RULE);
    RuleStringOptions opts;
    if (!text || text->kind != ATTR_STRING || !rule_options_from_attrs(arena, diag, op, &opts))
        return NULL;
    /* The rule text starts one column after the opening quote. */
    RuleString *rule = rule_string_parse(arena, diag, text->u.s, loc_offset(text->loc, 1), &opts);
    if (!rule)
        return NULL;
    return rule_string_bind(arena, diag, rule, op->num_operands, operand_types, op->num_results, result_types);
}

/* A bound rule kept on its op (OpAside.bound_rule) with the types it was bound
 * to: binding reads only their shapes and the op's rule attributes, which
 * no pass rewrites. */
typedef struct BoundRule {
    OpShardingRule *rule;
    const TensorType *operand_types, *result_types;
} BoundRule;

static bool same_shapes(const TensorType *types, Value *const *values, int count)
{
    for (int i = 0; i < count; i++)
        if (!type_same_shape(&types[i], &values[i]->type))
            return false;
    return true;
}

/* The kept rule if it was bound to the op's current shapes: copies of the
 * op (inlined calls) share it; an op rebuilt on other shapes rebinds. */
static OpShardingRule *kept_rule(const Op *op)
{
    const BoundRule *kept = op_bound_rule(op);
    if (!kept || kept->rule->num_operands != op->num_operands || kept->rule->num_results != op->num_results)
        return NULL;
    if (!same_shapes(kept->operand_types, op->operands, op->num_operands) ||
        !same_shapes(kept->result_types, op->results, op->num_results))
        return NULL;
    return kept->rule;
}

bool rules_bind_custom(Arena *arena, DiagEngine *diag, Op *op)
{
    if (kept_rule(op)) /* verified before: the partitioner verifies its output */
        return true;
    BoundRule *kept = ARENA_NEW(arena, BoundRule);
    kept->operand_types = value_types(arena, op->operands, op->num_operands);
    kept->result_types = value_types(arena, op->results, op->num_results);
    kept->rule = bind_custom(arena, diag, op, kept->operand_types, kept->result_types);
    op_set_bound_rule(arena, op, kept->rule ? kept : NULL);
    return kept->rule != NULL;
}

static OpShardingRule *rules_custom(Arena *arena, DiagEngine *diag, const Op *op)
{
    OpShardingRule *kept = kept_rule(op);
    if (kept)
        return kept;
    if (!op_attr_get(op, ATTR_KEY_RULE)) {
        RuleBuilder b;
        rule_builder_init(&b, arena, op);
        return rules_custom_call(&b);
    }
    return bind_custom(arena, diag, op, value_types(arena, op->operands, op->num_operands),
                       value_types(arena, op->results, op->num_results));
}
