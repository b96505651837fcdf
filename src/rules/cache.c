/* A pass's cache of built-in ops' rules by what a rule is built from: the
 * op's kind, its spec string, attributes and operand and result types.
 * A model repeats its layers, so most ops have the rule of an op before
 * them (the 10,032-op transformer: 38 distinct ones), and building it was
 * a tenth of propagation's and of partitioning's instructions. */
#include <string.h>
#include "shardc/rules.h"

/* What the rule functions read, copied when the entry is made: the entry
 * must not change if the op does. */
typedef struct RuleKey {
    OpKind kind;
    const char *str;
    int num_attrs;
    const NamedAttr *attrs;
    int num_types;          /* operands, then results */
    int num_operands;
    TensorType *types;
} RuleKey;

struct RuleCacheEntry {
    uint64_t hash;
    const RuleKey *key;     /* NULL: a free slot */
    const OpShardingRule *rule;
};

void rule_cache_init(RuleCache *c)
{
    arena_init(&c->arena);
    c->entries = NULL;
    c->count = c->cap = 0;
}

void rule_cache_free(RuleCache *c)
{
    arena_free(&c->arena);
}

/* Attribute values the rule functions may read; a sharding is compared
 * by identity (such ops are not cached: cacheable). */
static bool attr_value_equal(const AttrValue *a, const AttrValue *b)
{
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case ATTR_INT: return a->u.i == b->u.i;
    case ATTR_FLOAT: return memcmp(&a->u.f, &b->u.f, sizeof a->u.f) == 0;
    case ATTR_BOOL: return a->u.b == b->u.b;
    case ATTR_STRING: case ATTR_SYMBOL: return strcmp(a->u.s, b->u.s) == 0;
    case ATTR_SHARDING: return a->u.sharding == b->u.sharding;
    case ATTR_ARRAY:
        if (a->u.array.count != b->u.array.count)
            return false;
        for (int i = 0; i < a->u.array.count; i++)
            if (!attr_value_equal(a->u.array.items[i], b->u.array.items[i]))
                return false;
        return true;
    case ATTR_DICT:
        if (a->u.dict.count != b->u.dict.count)
            return false;
        for (int i = 0; i < a->u.dict.count; i++)
            if (strcmp(a->u.dict.items[i].name, b->u.dict.items[i].name) != 0 ||
                !attr_value_equal(a->u.dict.items[i].value, b->u.dict.items[i].value))
                return false;
        return true;
    }
    return false;
}

static bool attrs_equal(const NamedAttr *a, const NamedAttr *b, int count)
{
    for (int i = 0; i < count; i++)
        if (a[i].key != b[i].key || strcmp(a[i].name, b[i].name) != 0 || !attr_value_equal(a[i].value, b[i].value))
            return false;
    return true;
}

static const TensorType *op_type(const Op *op, int t)
{
    return t < op->num_operands ? &op->operands[t]->type : &op->results[t - op->num_operands]->type;
}

static bool key_matches(const RuleKey *k, const Op *op)
{
    if (k->kind != op->kind || k->num_operands != op->num_operands ||
        k->num_types != op->num_operands + op->num_results || k->num_attrs != op->num_attrs)
        return false;
    if ((k->str || op->str) && (!k->str || !op->str || strcmp(k->str, op->str) != 0))
        return false;
    for (int t = 0; t < k->num_types; t++)
        if (!type_equal(&k->types[t], op_type(op, t)))
            return false;
    return attrs_equal(k->attrs, op->attrs, op->num_attrs);
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    return (h ^ v) * 1099511628211ull; /* FNV-1a, a word at a time */
}

/* The kind, the string and the types; attributes only by count (ops of a
 * kind mostly differ in their types). */
static uint64_t op_hash(const Op *op)
{
    uint64_t h = mix(1469598103934665603ull, (uint64_t)op->kind);
    h = mix(h, (uint64_t)op->num_operands << 32 | (uint64_t)op->num_results << 16 | (uint64_t)op->num_attrs);
    for (const char *s = op->str; s && *s; s++)
        h = mix(h, (unsigned char)*s);
    for (int t = 0; t < op->num_operands + op->num_results; t++) {
        const TensorType *type = op_type(op, t);
        h = mix(h, (uint64_t)type->dtype << 8 | (uint64_t)type->rank);
        for (int d = 0; d < type->rank; d++)
            h = mix(h, (uint64_t)type->dims[d]);
    }
    return h;
}

/* Ops whose rule reads nothing but the key: not custom ops (whose rule may
 * look at the ops after them, and is kept on the op anyway), no regions
 * (a scatter's rule reads its body), no sharding attribute. */
static bool cacheable(const Op *op)
{
    if (op_info(op->kind)->op_class == OPC_CUSTOM || op->region || op->num_regions || op->callee)
        return false;
    for (int i = 0; i < op->num_attrs; i++)
        if (op->attrs[i].value->kind == ATTR_SHARDING)
            return false;
    return true;
}

static struct RuleCacheEntry *find_slot(struct RuleCacheEntry *entries, int cap, uint64_t hash, const Op *op)
{
    uint64_t mask = (uint64_t)cap - 1;
    for (uint64_t i = hash & mask;; i = (i + 1) & mask)
        if (!entries[i].key || (entries[i].hash == hash && op && key_matches(entries[i].key, op)))
            return &entries[i];
}

static void grow(RuleCache *c)
{
    int cap = c->cap ? c->cap * 2 : 64;
    struct RuleCacheEntry *fresh = ARENA_ARRAY(&c->arena, struct RuleCacheEntry, cap);
    for (int i = 0; i < c->cap; i++)
        if (c->entries[i].key)
            *find_slot(fresh, cap, c->entries[i].hash, NULL) = c->entries[i];
    c->entries = fresh;
    c->cap = cap;
}

static const RuleKey *copy_key(Arena *arena, const Op *op)
{
    RuleKey *k = ARENA_NEW(arena, RuleKey);
    *k = (RuleKey){op->kind, op->str, op->num_attrs, arena_memdup(arena, op->attrs, (size_t)op->num_attrs,
                                                                    sizeof *op->attrs),
                   op->num_operands + op->num_results, op->num_operands, NULL};
    k->types = ARENA_ARRAY(arena, TensorType, k->num_types + 1);
    for (int t = 0; t < k->num_types; t++) {
        const TensorType *type = op_type(op, t);
        k->types[t] = type_make(arena, type->dtype, type->rank, type->dims);
    }
    return k;
}

const OpShardingRule *rule_cache_get(RuleCache *c, Arena *arena, DiagEngine *diag, const Op *op)
{
    if (!cacheable(op))
        return rules_of_op(arena, diag, op);
    if ((c->count + 1) * 2 > c->cap)
        grow(c);
    uint64_t hash = op_hash(op);
    struct RuleCacheEntry *slot = find_slot(c->entries, c->cap, hash, op);
    if (!slot->key) {
        *slot = (struct RuleCacheEntry){hash, copy_key(&c->arena, op), rules_of_op(&c->arena, diag, op)};
        c->count++;
    }
    return slot->rule;
}
