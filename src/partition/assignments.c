/* factor_assignment once per kind of op: a model repeats its layers, so
 * most ops have the rule, the shardings and the types of an op before
 * them, and choosing their factors' axes again (projecting every tensor's
 * sharding onto the factors) was a third of partitioning. The choice
 * depends on nothing else, so the op before's is the op's. */
#include <stdlib.h>
#include <string.h>
#include "partition/partition_ctx.h"

typedef struct AssignmentEntry {
    uint64_t hash;
    const OpShardingRule *rule;
    UnevenPolicy uneven;
    int count;                  /* tensors: operands, then results */
    const Sharding **shardings; /* [count], compared by value */
    TensorType *types;          /* [count] */
    const AxisList *assignment; /* [rule->num_factors] */
    const PackedLayout **layouts; /* [count]: each tensor's under it */
} AssignmentEntry;

struct AssignmentCache {
    AssignmentEntry **slots;    /* open addressing; NULL is empty */
    size_t cap, count;          /* cap a power of two */
};

static const Value *tensor(const Op *op, int t)
{
    return t < op->num_operands ? op->operands[t] : op->results[t - op->num_operands];
}

static uint64_t mix(uint64_t h, uint64_t v) { return (h ^ v) * 1099511628211ull; }

/* The types follow from the rule (a cached rule is one per kind, string,
 * attributes and types; a custom op's bound rule is its own): not hashed.
 * Of the shardings, the number of axes and the first axis of each dim
 * (entry_matches compares the rest). */
static uint64_t key_hash(const Op *op, const OpShardingRule *rule, UnevenPolicy uneven)
{
    uint64_t h = mix(mix(1469598103934665603ull, (uint64_t)(uintptr_t)rule), (uint64_t)uneven);
    for (int t = 0; t < op->num_operands + op->num_results; t++) {
        const Sharding *s = tensor(op, t)->sharding;
        uint64_t dims = s ? (uint64_t)s->num_unreduced << 32 | (uint64_t)s->num_replicated << 16 : 1;
        for (int d = 0; s && d < s->rank; d++)
            dims = dims * 31 + (uint64_t)s->dims[d].num_axes * 64 +
                   (s->dims[d].num_axes ? (uint64_t)s->dims[d].axes[0].axis + 1 : 0);
        h = mix(h, dims);
    }
    return h;
}

static bool same_type(const TensorType *a, const TensorType *b)
{
    return a->dtype == b->dtype && a->rank == b->rank && (a->dims == b->dims || type_equal(a, b));
}

static bool entry_matches(const AssignmentEntry *e, const Op *op, const OpShardingRule *rule, UnevenPolicy uneven)
{
    if (e->rule != rule || e->uneven != uneven || e->count != op->num_operands + op->num_results)
        return false;
    for (int t = 0; t < e->count; t++) {
        const Value *v = tensor(op, t);
        if (!same_type(&e->types[t], &v->type) || !(e->shardings[t] == v->sharding ||
                                                     (e->shardings[t] && v->sharding &&
                                                      sharding_equal(e->shardings[t], v->sharding))))
            return false;
    }
    return true;
}

static AssignmentEntry **entry_slot(const struct AssignmentCache *c, uint64_t hash, const Op *op,
                                    const OpShardingRule *rule, UnevenPolicy uneven)
{
    for (size_t i = hash & (c->cap - 1);; i = (i + 1) & (c->cap - 1))
        if (!c->slots[i] || (c->slots[i]->hash == hash && op && entry_matches(c->slots[i], op, rule, uneven)))
            return &c->slots[i];
}

static void cache_grow(struct AssignmentCache *c)
{
    size_t old_cap = c->cap;
    AssignmentEntry **old = c->slots;
    c->cap = old_cap ? 2 * old_cap : 64;
    if (!(c->slots = calloc(c->cap, sizeof *c->slots)))
        arena_out_of_memory();
    for (size_t i = 0; i < old_cap; i++)
        if (old[i])
            *entry_slot(c, old[i]->hash, NULL, NULL, UNEVEN_NONE) = old[i];
    free(old);
}

static void assign(PartitionCtx *pc, AxisList *out, const Op *op, const OpShardingRule *rule, UnevenPolicy uneven)
{
    int count = op->num_operands + op->num_results;
    Sharding *shardings[count + 1];
    const TensorType *types[count + 1];
    for (int t = 0; t < count; t++) {
        shardings[t] = tensor(op, t)->sharding;
        types[t] = &tensor(op, t)->type;
    }
    factor_assignment(out, rule, pc->mesh, shardings, types, count, op->num_operands, uneven, &pc->scratch);
}

/* The entry for op's key, made (in `tables`, for the function) with the
 * choice it gets. */
static AssignmentEntry *new_entry(PartitionCtx *pc, const Op *op, const OpShardingRule *rule, UnevenPolicy uneven,
                                  uint64_t hash)
{
    int count = op->num_operands + op->num_results;
    AssignmentEntry *e = ARENA_NEW(&pc->tables, AssignmentEntry);
    const Sharding **shardings = ARENA_ARRAY(&pc->tables, const Sharding *, count + 1);
    TensorType *types = ARENA_ARRAY(&pc->tables, TensorType, count + 1);
    AxisList *assignment = ARENA_ARRAY_UNINIT(&pc->tables, AxisList, rule->num_factors + 1);
    for (int t = 0; t < count; t++) {
        shardings[t] = tensor(op, t)->sharding;
        types[t] = tensor(op, t)->type;
    }
    assign(pc, assignment, op, rule, uneven);
    const PackedLayout **layouts = ARENA_ARRAY(&pc->tables, const PackedLayout *, count + 1);
    DimAxes *layout = ARENA_ARRAY_UNINIT(&pc->scratch, DimAxes, 1); /* 6 KB: set by tensor_axes */
    for (int t = 0; t < count; t++) {
        factor_assignment_tensor_axes(layout, rule, assignment, t);
        layouts[t] = pc_packed_layout(pc, layout);
    }
    *e = (AssignmentEntry){hash, rule, uneven, count, shardings, types, assignment, layouts};
    return e;
}

AxisList *pc_factor_assignment(PartitionCtx *pc, const Op *op, const OpShardingRule *rule, bool shared,
                               UnevenPolicy uneven, const PackedLayout *const **layouts)
{
    AxisList *out = ARENA_ARRAY_UNINIT(&pc->scratch, AxisList, rule->num_factors + 1);
    *layouts = NULL;
    if (!shared) {
        assign(pc, out, op, rule, uneven);
        return out;
    }
    struct AssignmentCache *c = pc->assignments;
    if (!c && !(c = pc->assignments = calloc(1, sizeof *c)))
        arena_out_of_memory();
    if ((c->count + 1) * 2 > c->cap)
        cache_grow(c);
    uint64_t hash = key_hash(op, rule, uneven);
    AssignmentEntry **slot = entry_slot(c, hash, op, rule, uneven);
    if (!*slot) {
        *slot = new_entry(pc, op, rule, uneven, hash);
        c->count++;
    }
    for (int f = 0; f < rule->num_factors; f++) /* only the axes in use: an AxisList is 200 bytes */
        axis_list_copy(&out[f], &(*slot)->assignment[f]);
    *layouts = (*slot)->layouts;
    return out;
}

void pc_free_assignments(PartitionCtx *pc)
{
    if (pc->assignments)
        free(pc->assignments->slots);
    free(pc->assignments);
    pc->assignments = NULL;
}
