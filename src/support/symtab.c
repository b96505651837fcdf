#include "shardc/symtab.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void symtab_init(SymTab *t, Arena *arena)
{
    t->arena = arena;
    t->entries = NULL;
    t->index = NULL;
    t->count = t->cap = 0;
}

/* FNV-1a of s; *len gets its length, for the one key compare of both gets. */
static uint64_t hash_string(const char *s, size_t *len)
{
    uint64_t h = 1469598103934665603ull;
    const char *p = s;
    for (; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    *len = (size_t)(p - s);
    return h;
}

static uint64_t hash_bytes(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a, as hash_string */
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

/* The index bits below cap hold an entry number; the ones above, the tag. */
static uint32_t entry_mask(int cap)
{
    return (uint32_t)cap - 1;
}

/* The hash's high half supplies the tag: the low bits pick the slot. */
static uint32_t tag_of(uint64_t hash, int cap)
{
    return (uint32_t)(hash >> 32) & ~entry_mask(cap);
}

/* The index slot of key's entry, or the empty slot where it would go
 * (inline: the call was a tenth of a lookup's instructions). */
static inline uint32_t *find_slot(const SymTab *t, const char *key, size_t len, uint64_t hash)
{
    uint32_t mask = entry_mask(t->cap), tag = tag_of(hash, t->cap);
    for (uint32_t i = (uint32_t)hash & mask;; i = (i + 1) & mask) {
        uint32_t slot = t->index[i];
        if (slot == 0)
            return &t->index[i];
        if ((slot & ~mask) != tag)
            continue;
        const SymTabEntry *e = &t->entries[(slot & mask) - 1];
        if (e->hash == hash && strncmp(e->key, key, len) == 0 && e->key[len] == '\0')
            return &t->index[i];
    }
}

/* Indexes entry number n, whose key no other entry has. */
static void index_entry(SymTab *t, int n)
{
    uint64_t hash = t->entries[n].hash;
    uint32_t mask = entry_mask(t->cap), i = (uint32_t)hash & mask;
    while (t->index[i])
        i = (i + 1) & mask;
    t->index[i] = tag_of(hash, t->cap) | (uint32_t)(n + 1);
}

/* Room for n entries, the count in use kept. */
static void resize_entries(SymTab *t, int n)
{
    if (t->arena) {
        SymTabEntry *fresh = ARENA_ARRAY_UNINIT(t->arena, SymTabEntry, n);
        if (t->count)
            memcpy(fresh, t->entries, sizeof(SymTabEntry) * (size_t)t->count);
        t->entries = fresh;
        return;
    }
    SymTabEntry *fresh = realloc(t->entries, sizeof(SymTabEntry) * (size_t)n);
    if (!fresh)
        arena_out_of_memory();
    t->entries = fresh;
}

static uint32_t *new_index(const SymTab *t, int cap)
{
    if (t->arena)
        return ARENA_ARRAY(t->arena, uint32_t, cap);
    uint32_t *index = calloc((size_t)cap, sizeof(uint32_t));
    if (!index)
        arena_out_of_memory();
    return index;
}

/* Doubles the index (kept at most 3/4 full) and the entries' room to match. */
static void grow(SymTab *t)
{
    if (t->cap > INT32_MAX / 2)
        arena_out_of_memory();
    int new_cap = t->cap ? t->cap * 2 : 16;
    resize_entries(t, new_cap / 4 * 3);
    if (!t->arena)
        free(t->index);
    t->index = new_index(t, new_cap);
    t->cap = new_cap;
    for (int n = 0; n < t->count; n++)
        index_entry(t, n);
}

void symtab_free(SymTab *t)
{
    if (!t->arena) {
        free(t->entries);
        free(t->index);
    }
    t->entries = NULL;
    t->index = NULL;
    t->count = t->cap = 0;
}

static void *value_at(const SymTab *t, const uint32_t *slot)
{
    return *slot ? t->entries[(*slot & entry_mask(t->cap)) - 1].value : NULL;
}

void *symtab_get(const SymTab *t, const char *key)
{
    if (t->cap == 0)
        return NULL;
    size_t len;
    uint64_t hash = hash_string(key, &len);
    return value_at(t, find_slot(t, key, len, hash));
}

void *symtab_get_len(const SymTab *t, const char *key, size_t len)
{
    if (t->cap == 0)
        return NULL;
    return value_at(t, find_slot(t, key, len, hash_bytes(key, len)));
}

void *symtab_put(SymTab *t, const char *key, void *value)
{
    if ((t->count + 1) * 4 > t->cap * 3)
        grow(t);
    size_t len;
    uint64_t hash = hash_string(key, &len);
    uint32_t *slot = find_slot(t, key, len, hash);
    if (*slot) {
        SymTabEntry *e = &t->entries[(*slot & entry_mask(t->cap)) - 1];
        void *previous = e->value;
        e->value = value;
        return previous;
    }
    t->entries[t->count] = (SymTabEntry){.key = key, .value = value, .hash = hash};
    *slot = tag_of(hash, t->cap) | (uint32_t)(t->count + 1);
    t->count++;
    return NULL;
}
