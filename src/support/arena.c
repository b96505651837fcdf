#include "shardc/arena.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ArenaChunk {
    ArenaChunk *next;
    size_t cap;
    _Alignas(16) unsigned char data[];
};

enum { ARENA_CHUNK_MIN = 64 * 1024 };

void arena_init(Arena *arena) { *arena = (Arena){0}; }

void arena_free(Arena *arena)
{
    ArenaChunk *chunk = arena->head;
    while (chunk) {
        ArenaChunk *next = chunk->next;
        free(chunk);
        chunk = next;
    }
    *arena = (Arena){0};
}

void arena_reset(Arena *arena)
{
    ArenaChunk *keep = arena->head;
    if (!keep)
        return;
    ArenaChunk *chunk = keep->next;
    while (chunk) {
        ArenaChunk *next = chunk->next;
        free(chunk);
        chunk = next;
    }
    keep->next = NULL;
    arena->next = keep->data;
    arena->avail = keep->cap;
    arena->bytes_allocated = 0;
}

_Noreturn void arena_out_of_memory(void)
{
    /* Nothing sensible can follow; exit() still runs the command line's
     * atexit clean-up, which removes half-written output files. */
    fputs("shardc: error: out of memory\n", stderr);
    exit(1);
}

static ArenaChunk *arena_new_chunk(size_t min_size)
{
    size_t cap = min_size > ARENA_CHUNK_MIN ? min_size : ARENA_CHUNK_MIN;
    ArenaChunk *chunk = malloc(sizeof(ArenaChunk) + cap);
    if (!chunk)
        arena_out_of_memory();
    chunk->next = NULL;
    chunk->cap = cap;
    return chunk;
}

/* Uninitialised memory (arena_alloc_uninit's slow path), for the copying
 * helpers below and hot paths: zeroing what memcpy overwrites at once
 * doubled the cost of every copy (bench/). */
void *arena_alloc_grow(Arena *arena, size_t size)
{
    /* Rounding up or adding the chunk header must not wrap a huge size
     * (e.g. an overflowed count * size) around to a small allocation. */
    if (size > SIZE_MAX / 2)
        arena_out_of_memory();
    size = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    if (size == 0)
        size = ARENA_ALIGN;
    if (arena->avail < size) {
        ArenaChunk *chunk = arena_new_chunk(size);
        chunk->next = arena->head;
        arena->head = chunk;
        arena->next = chunk->data;
        arena->avail = chunk->cap;
    }
    void *p = arena->next;
    arena->next += size;
    arena->avail -= size;
    arena->bytes_allocated += size;
    return p;
}

/* The whole rounded block is cleared, as before. Most blocks are IR and
 * AST nodes of a few 8-byte units: a memset of constant size is a few
 * stores, where the libc call was a twentieth of reading MLIR (bench/). */
_Static_assert(ARENA_ALIGN == 8, "arena_alloc's cases count 8-byte units");
void *arena_alloc(Arena *arena, size_t size)
{
    unsigned char *p = arena_alloc_uninit(arena, size);
    size_t rounded = size ? (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1) : ARENA_ALIGN;
    switch (rounded / ARENA_ALIGN) { /* dense cases: a jump table */
    case 1: memset(p, 0, 8); break;
    case 2: memset(p, 0, 16); break;
    case 3: memset(p, 0, 24); break;
    case 4: memset(p, 0, 32); break;
    case 5: memset(p, 0, 40); break;
    case 6: memset(p, 0, 48); break;
    case 7: memset(p, 0, 56); break;
    case 8: memset(p, 0, 64); break;
    case 9: memset(p, 0, 72); break;
    case 10: memset(p, 0, 80); break;
    case 11: memset(p, 0, 88); break;
    case 12: memset(p, 0, 96); break;
    default: memset(p, 0, rounded); break;
    }
    return p;
}

void *arena_alloc_aligned(Arena *arena, size_t size, size_t align)
{
    size_t pad = (size_t)(-(uintptr_t)arena->next) & (align - 1);
    if (arena->next && size <= arena->avail && pad <= arena->avail - size) {
        if (pad) /* a multiple of ARENA_ALIGN: arena->next is aligned to it */
            arena_alloc_uninit(arena, pad);
        return arena_alloc(arena, size);
    }
    /* a new chunk, aligned to ARENA_ALIGN only: room for the padding */
    if (size > SIZE_MAX / 2)
        arena_out_of_memory();
    unsigned char *p = arena_alloc(arena, size + align - ARENA_ALIGN);
    return p + ((size_t)(-(uintptr_t)p) & (align - 1));
}

char *arena_strndup(Arena *arena, const char *s, size_t n)
{
    char *p = arena_alloc_uninit(arena, n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *arena_strdup(Arena *arena, const char *s) { return arena_strndup(arena, s, strlen(s)); }

void *arena_memdup(Arena *arena, const void *src, size_t n, size_t elem_size)
{
    if (n == 0)
        return NULL;
    void *p = arena_alloc_uninit(arena, n * elem_size);
    memcpy(p, src, n * elem_size);
    return p;
}

void arena_list_push(Arena *arena, ArenaList *list, void *item)
{
    if (list->count == list->cap) {
        int cap = list->cap ? list->cap * 2 : 4;
        void **items = ARENA_ARRAY(arena, void *, cap);
        if (list->count)
            memcpy(items, list->items, sizeof(void *) * (size_t)list->count);
        list->items = items;
        list->cap = cap;
    }
    list->items[list->count++] = item;
}
