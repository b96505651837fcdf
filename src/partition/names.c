/* The names of the per-device program's values: the first value given a
 * base name takes it, the next ones base.1, base.2, ... A set of names,
 * each looked up and added in one probe: a symbol table's get then put
 * hashed and probed every emitted name twice (issue 20). */
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

/* base, or base.n for the first n that is free; `lives`: base outlives
 * the module's program (a global value's name), so it is not copied. */
static const char *unique_name(PartitionCtx *pc, const char *base, bool lives)
{
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

Value *pc_new_local_value(PartitionCtx *pc, const Value *global, TensorType type)
{
    return value_new(pc->module, unique_name(pc, global->name, true), type, global->loc);
}
