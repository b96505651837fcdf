/* Byte strings kept once each: equal ones (type shapes, say) share one
 * copy in an arena, where a module made one per value (bench/README.md).
 * The copies live as long as their arena; the table is on the heap and
 * may be freed before them (interner_free). A shared copy must never be
 * changed in place. */
#ifndef SHARDC_INTERNER_H
#define SHARDC_INTERNER_H
#include <stddef.h>
#include <stdint.h>
#include "shardc/arena.h"

typedef struct InternEntry {
    const void *bytes;
    size_t len;
    uint64_t hash;
} InternEntry;

typedef struct Interner {
    Arena *arena;           /* where the copies go */
    InternEntry *slots;     /* open addressing; bytes NULL is empty */
    size_t cap, count;      /* cap a power of two */
} Interner;

void interner_init(Interner *in, Arena *arena);
/* The one copy of len bytes equal to `bytes` (ARENA_ALIGN-aligned, as arena
 * memory is); NULL for len 0. */
const void *interner_get(Interner *in, const void *bytes, size_t len);
/* Frees the table; the copies stay in the arena. */
void interner_free(Interner *in);

#endif
