#include "shardc/interner.h"
#include <stdlib.h>
#include <string.h>

void interner_init(Interner *in, Arena *arena) { *in = (Interner){.arena = arena}; }

/* FNV-1a over 8-byte words (the strings are mostly int64 shapes: a byte
 * at a time was a third of the parse's added instructions), then the tail. */
static uint64_t hash_bytes(const unsigned char *p, size_t len)
{
    uint64_t h = 1469598103934665603ull ^ len;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t word;
        memcpy(&word, p + i, sizeof word);
        h = (h ^ word) * 1099511628211ull;
        h ^= h >> 29;
    }
    for (; i < len; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static InternEntry *find_slot(const Interner *in, const void *bytes, size_t len, uint64_t hash)
{
    for (size_t i = hash & (in->cap - 1);; i = (i + 1) & (in->cap - 1)) {
        InternEntry *e = &in->slots[i];
        if (!e->bytes || (e->hash == hash && e->len == len && memcmp(e->bytes, bytes, len) == 0))
            return e;
    }
}

static void grow(Interner *in)
{
    size_t old_cap = in->cap;
    InternEntry *old = in->slots;
    if (old_cap > SIZE_MAX / 2 / sizeof *old)
        arena_out_of_memory();
    in->cap = old_cap ? 2 * old_cap : 64;
    in->slots = calloc(in->cap, sizeof *in->slots);
    if (!in->slots)
        arena_out_of_memory();
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].bytes)
            *find_slot(in, old[i].bytes, old[i].len, old[i].hash) = old[i];
    free(old);
}

const void *interner_get(Interner *in, const void *bytes, size_t len)
{
    if (len == 0)
        return NULL;
    if ((in->count + 1) * 2 > in->cap)
        grow(in);
    uint64_t hash = hash_bytes(bytes, len);
    InternEntry *e = find_slot(in, bytes, len, hash);
    if (!e->bytes) {
        void *copy = arena_alloc_uninit(in->arena, len);
        memcpy(copy, bytes, len);
        *e = (InternEntry){copy, len, hash};
        in->count++;
    }
    return e->bytes;
}

void interner_free(Interner *in)
{
    free(in->slots);
    in->slots = NULL;
    in->cap = in->count = 0;
}
