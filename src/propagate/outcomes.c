/* Outcomes of op visits (propagate.c), by what decides them: the rule,
 * the tensors' shardings (which give the mesh), what decides the factors'
 * directions with the rule (`directions`: the phase and the op's part)
 * and whether the op is elementwise. Shardings are interned
 * (a sharding is never changed in place while propagation runs) and
 * rules shared by the ops alike (rules/cache.c), and a model repeats its
 * layers: most visits find the outcome of an op before them, in another
 * layer, and replay it instead of building a projection. A rule is built
 * for its op's types, so the same rule means the same types. */
#include <string.h>
#include "propagate/propagation_state.h"

struct VisitOutcome {
    uint64_t hash;
    const OpShardingRule *rule;
    unsigned directions;
    bool elementwise;
    bool agreed;
    int count;
    Sharding **in;      /* the tensors' shardings */
    Sharding **out;     /* each tensor's new sharding, or NULL */
};

static uint64_t mix(uint64_t h, uint64_t v)
{
    return (h ^ v) * 1099511628211ull; /* FNV-1a, a word at a time */
}

uint64_t prop_outcome_hash(const OpShardingRule *rule, Sharding *const *shardings, int count, unsigned directions,
                           bool elementwise)
{
    uint64_t h = mix(1469598103934665603ull, (uint64_t)(uintptr_t)rule);
    h = mix(h, (uint64_t)directions << 32 | (uint64_t)count << 1 | elementwise);
    for (int t = 0; t < count; t++)
        h = mix(h, (uint64_t)(uintptr_t)shardings[t]);
    return h ^ h >> 29;
}

static bool outcome_matches(const VisitOutcome *o, uint64_t hash, const OpShardingRule *rule,
                            Sharding *const *shardings, int count, unsigned directions, bool elementwise)
{
    return o->hash == hash && o->rule == rule && o->count == count && o->directions == directions &&
           o->elementwise == elementwise && memcmp(o->in, shardings, sizeof *shardings * (size_t)count) == 0;
}

/* The outcome's slot, or the free slot where it goes; rule NULL: the
 * first free slot (a new outcome's, or one moved when the table grows). */
static VisitOutcome **outcome_slot(VisitOutcome **slots, int cap, uint64_t hash, const OpShardingRule *rule,
                                   Sharding *const *shardings, int count, unsigned directions, bool elementwise)
{
    for (uint64_t i = hash & (uint64_t)(cap - 1);; i = (i + 1) & (uint64_t)(cap - 1))
        if (!slots[i] || (rule && outcome_matches(slots[i], hash, rule, shardings, count, directions, elementwise)))
            return &slots[i];
}

const VisitOutcome *prop_outcome_find(const PropagationState *st, uint64_t hash, const OpShardingRule *rule,
                                      Sharding *const *shardings, int count, unsigned directions, bool elementwise)
{
    if (!st->outcomes.cap)
        return NULL;
    return *outcome_slot(st->outcomes.slots, st->outcomes.cap, hash, rule, shardings, count, directions,
                         elementwise);
}

static void outcomes_grow(PropagationState *st)
{
    VisitOutcomes *t = &st->outcomes;
    int cap = t->cap ? t->cap * 2 : 256;
    VisitOutcome **slots = ARENA_ARRAY(&st->work, VisitOutcome *, cap);
    for (int i = 0; i < t->cap; i++)
        if (t->slots[i])
            *outcome_slot(slots, cap, t->slots[i]->hash, NULL, NULL, 0, 0, false) = t->slots[i];
    t->slots = slots;
    t->cap = cap;
}

void prop_outcome_add(PropagationState *st, uint64_t hash, const OpShardingRule *rule, Sharding *const *shardings,
                      int count, unsigned directions, bool elementwise, bool agreed, Sharding *const *out)
{
    if ((st->outcomes.count + 1) * 2 > st->outcomes.cap)
        outcomes_grow(st);
    VisitOutcome *o = ARENA_NEW(&st->work, VisitOutcome);
    *o = (VisitOutcome){hash, rule, directions, elementwise, agreed, count,
                        arena_memdup(&st->work, shardings, (size_t)count, sizeof *shardings),
                        agreed || !out ? NULL : arena_memdup(&st->work, out, (size_t)count, sizeof *out)};
    *outcome_slot(st->outcomes.slots, st->outcomes.cap, hash, NULL, NULL, 0, 0, false) = o;
    st->outcomes.count++;
}

bool prop_outcome_agreed(const VisitOutcome *o) { return o->agreed; }

Sharding *prop_outcome_sharding(const VisitOutcome *o, int t) { return o->out ? o->out[t] : NULL; }
