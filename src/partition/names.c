/* The names of the per-device program's values: the first value given a
 * base name takes it, the next ones base.1, base.2, ... A set of names,
 * each looked up and added in one probe: a symbol table's get then put
 * hashed and probed every emitted name twice (issue 20).
 *
 * Most values are the local value of a global one and take its name,
 * unique in its scope: probing a table of every name for them missed the
 * cache once per value at 1e6 ops (issue 20, scaling). A dotless name of
 * a top-level global value can only be taken by that value (its block's
 * names are unique) or by a dotless generated name (every suffixed or
 * derived name has a dot): until the first dotless generated name or
 * nested value, such names are only marked by id, and the set is probed
 * for the rest; then they join the set and all names are probed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "partition/partition_ctx.h"

struct NameSlot {
    uint64_t hash;
    const char *name;       /* NULL: empty */
};

static uint64_t hash_name(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static struct NameSlot *name_slot(const NameSet *set, const char *name, uint64_t hash)
{
    for (size_t i = hash & (set->cap - 1);; i = (i + 1) & (set->cap - 1)) {
        struct NameSlot *s = &set->slots[i];
        if (!s->name || (s->hash == hash && strcmp(s->name, name) == 0))
            return s;
    }
}

static void names_grow(NameSet *set)
{
    size_t old_cap = set->cap;
    struct NameSlot *old = set->slots;
    set->cap = old_cap ? 2 * old_cap : 1024;
    if (!(set->slots = calloc(set->cap, sizeof *set->slots)))
        arena_out_of_memory();
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].name)
            *name_slot(set, old[i].name, old[i].hash) = old[i];
    free(old);
}

void pc_names_free(PartitionCtx *pc)
{
    free(pc->names.slots);
    free(pc->names.unprobed);
    free(pc->names.taken);
    pc->names = (NameSet){0};
}

/* The slot `name` takes if it is free, else NULL. */
static struct NameSlot *free_slot(PartitionCtx *pc, const char *name, uint64_t *hash)
{
    NameSet *set = &pc->names;
    if ((set->count + 1) * 4 > set->cap * 3)
        names_grow(set);
    *hash = hash_name(name);
    struct NameSlot *s = name_slot(set, name, *hash);
    return s->name ? NULL : s;
}

static void hold_all_names(PartitionCtx *pc);

/* base, or base.n for the first n that is free; `lives`: base outlives
 * the module's program (a global value's name), so it is not copied. A
 * dotless base may be a name taken unprobed: all join the set first. */
static const char *unique_name(PartitionCtx *pc, const char *base, bool lives)
{
    if (!pc->names.holds_all && !strchr(base, '.'))
        hold_all_names(pc);
    uint64_t hash;
    struct NameSlot *slot = free_slot(pc, base, &hash);
    if (slot) {
        *slot = (struct NameSlot){hash, lives ? base : arena_strdup(&pc->module->arena, base)};
    } else {
        char buf[256];
        for (int n = 1; !slot; n++) {
            snprintf(buf, sizeof buf, "%s.%d", base, n);
            slot = free_slot(pc, buf, &hash);
        }
        *slot = (struct NameSlot){hash, arena_strdup(&pc->module->arena, buf)};
    }
    pc->names.count++;
    return slot->name;
}

const char *pc_unique_name(PartitionCtx *pc, const char *base)
{
    return unique_name(pc, base, false);
}

Value *pc_new_value(PartitionCtx *pc, const char *base, TensorType type, Loc loc)
{
    return value_new(pc->module, unique_name(pc, base, false), type, loc);
}

/* The names taken unprobed join the set: from now on all are probed. */
static void hold_all_names(PartitionCtx *pc)
{
    NameSet *set = &pc->names;
    set->holds_all = true;
    for (size_t i = 0; i < set->num_unprobed; i++) {
        uint64_t hash;
        struct NameSlot *slot = free_slot(pc, set->unprobed[i], &hash);
        *slot = (struct NameSlot){hash, set->unprobed[i]}; /* distinct, and dotless names were not in the set */
        set->count++;
    }
    free(set->unprobed);
    free(set->taken);
    set->unprobed = NULL;
    set->taken = NULL;
    set->num_unprobed = 0;
}

static bool is_top_level(const Value *v)
{
    const Block *b = v->def ? v->def->parent : v->block;
    return b && !b->parent_op;
}

/* Whether `global`'s name, free, was taken without a probe. A nested
 * value's name may repeat one of an enclosing block, and a global value
 * given a second local value (not done today) would meet its own name:
 * both are probed, with all names in the set. */
static bool take_unprobed(PartitionCtx *pc, const Value *global)
{
    NameSet *set = &pc->names;
    if (set->holds_all || strchr(global->name, '.'))
        return false;
    int id = global->id;
    if (id < 0 || id >= pc->num_global_values || !is_top_level(global) ||
        (set->taken && (set->taken[id / 8] >> (id % 8) & 1))) {
        hold_all_names(pc);
        return false;
    }
    if (!set->taken) {
        set->taken = calloc((size_t)pc->num_global_values / 8 + 1, 1);
        set->unprobed = calloc((size_t)pc->num_global_values, sizeof *set->unprobed);
        if (!set->taken || !set->unprobed)
            arena_out_of_memory();
    }
    set->taken[id / 8] |= (uint8_t)(1u << (id % 8));
    set->unprobed[set->num_unprobed++] = global->name;
    return true;
}

Value *pc_new_local_value(PartitionCtx *pc, const Value *global, TensorType type)
{
    const char *name = take_unprobed(pc, global) ? global->name : unique_name(pc, global->name, true);
    return value_new(pc->module, name, type, global->loc);
}
