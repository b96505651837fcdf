#include "shardc/symtab.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void symtab_init(SymTab *t, Arena *arena)
{
    t->arena = arena;
    t->entries = NULL;
    t->count = t->cap = 0;
}

static uint64_t hash_string(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static uint64_t hash_bytes(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a, as hash_string */
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

static SymTabEntry *find_slot(SymTabEntry *entries, int cap, const char *key, uint64_t hash)
{
    uint64_t mask = (uint64_t)cap - 1;
    for (uint64_t i = hash & mask;; i = (i + 1) & mask)
        if (!entries[i].key || (entries[i].hash == hash && strcmp(entries[i].key, key) == 0))
            return &entries[i];
}

static SymTabEntry *new_entries(const SymTab *t, int cap)
{
    if (t->arena)
        return ARENA_ARRAY(t->arena, SymTabEntry, cap);
    SymTabEntry *entries = calloc((size_t)cap, sizeof(SymTabEntry));
    if (!entries)
        arena_out_of_memory();
    return entries;
}

static void grow(SymTab *t)
{
    if (t->cap > INT32_MAX / 2)
        arena_out_of_memory();
    int new_cap = t->cap ? t->cap * 2 : 16;
    SymTabEntry *fresh = new_entries(t, new_cap);
    for (int i = 0; i < t->cap; i++)
        if (t->entries[i].key)
            *find_slot(fresh, new_cap, t->entries[i].key, t->entries[i].hash) = t->entries[i];
    if (!t->arena)
        free(t->entries);
    t->entries = fresh;
    t->cap = new_cap;
}

void symtab_free(SymTab *t)
{
    if (!t->arena)
        free(t->entries);
    t->entries = NULL;
    t->count = t->cap = 0;
}

void *symtab_get(const SymTab *t, const char *key)
{
    if (t->cap == 0)
        return NULL;
    return find_slot(t->entries, t->cap, key, hash_string(key))->value;
}

void *symtab_get_len(const SymTab *t, const char *key, size_t len)
{
    if (t->cap == 0)
        return NULL;
    uint64_t hash = hash_bytes(key, len), mask = (uint64_t)t->cap - 1;
    for (uint64_t i = hash & mask;; i = (i + 1) & mask) {
        const SymTabEntry *e = &t->entries[i];
        if (!e->key)
            return NULL;
        if (e->hash == hash && strncmp(e->key, key, len) == 0 && e->key[len] == '\0')
            return e->value;
    }
}

void *symtab_put(SymTab *t, const char *key, void *value)
{
    if ((t->count + 1) * 4 > t->cap * 3)
        grow(t);
    uint64_t hash = hash_string(key);
    SymTabEntry *slot = find_slot(t->entries, t->cap, key, hash);
    void *previous = slot->value;
    if (!slot->key) {
        slot->key = key;
        slot->hash = hash;
        t->count++;
    }
    slot->value = value;
    return previous;
}
