/* Arena allocation: every IR object lives in a Module's arena and is freed
 * all at once with it, so passes never track ownership of individual nodes. */
#ifndef SHARDC_ARENA_H
#define SHARDC_ARENA_H
#include <stddef.h>
#include <stdint.h>

typedef struct ArenaChunk ArenaChunk;

/* What allocations are aligned to: the IR holds nothing wider than a
 * pointer or an int64. A 16-byte grain rounded every 8- and 24-byte
 * array, name and 168-byte Op up: 7 % of a compile's peak memory. */
enum { ARENA_ALIGN = 8 };

/* A chain of chunks; allocation bumps a pointer in the newest chunk. */
typedef struct Arena {
    ArenaChunk *head;
    size_t bytes_allocated; /* total payload handed out, for --stats */
    unsigned char *next;    /* the newest chunk's free space: */
    size_t avail;           /* bumped inline (arena_alloc_uninit) */
} Arena;

void arena_init(Arena *arena);
void arena_free(Arena *arena);
/* Forget everything allocated but keep one chunk for reuse (scratch use). */
void arena_reset(Arena *arena);
/* The compiler's answer to running out of memory (docs/testing.md,
 * "Allocation failures"): "shardc: error: out of memory" on stderr, exit
 * status 1. Its IR allocations are small and everywhere, so they do not
 * each carry a failure path; the interpreter's tensors, which can be large,
 * report a located diagnostic instead. */
_Noreturn void arena_out_of_memory(void);
/* Zeroed, ARENA_ALIGN-aligned memory; never returns NULL (arena_out_of_memory). */
void *arena_alloc(Arena *arena, size_t size);
/* The same, not zeroed: for hot paths that set every field they read.
 * Inline, since the IR and the readers make hundreds of allocations an op
 * (the call was 3 % of reading MLIR); a new chunk, a zero or huge size
 * (arena_out_of_memory) are arena_alloc_grow's. */
void *arena_alloc_grow(Arena *arena, size_t size);
static inline void *arena_alloc_uninit(Arena *arena, size_t size)
{
    size_t rounded = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    if (size - 1 >= SIZE_MAX / 2 || rounded > arena->avail)
        return arena_alloc_grow(arena, size);
    void *p = arena->next;
    arena->next += rounded;
    arena->avail -= rounded;
    arena->bytes_allocated += rounded;
    return p;
}
/* Zeroed memory starting at a multiple of `align` (a power of two, at
 * least ARENA_ALIGN): an object read often, placed at a cache line's
 * start, fills as few lines as it can (op_new). */
void *arena_alloc_aligned(Arena *arena, size_t size, size_t align);
char *arena_strdup(Arena *arena, const char *s);
char *arena_strndup(Arena *arena, const char *s, size_t n);

/* A growable list of pointers in an arena (a grown list leaves its old
 * array to the arena). */
typedef struct ArenaList {
    int count, cap;
    void **items;
} ArenaList;

void arena_list_push(Arena *arena, ArenaList *list, void *item);
/* Copy n elements of size elem_size; returns NULL when n == 0. */
void *arena_memdup(Arena *arena, const void *src, size_t n, size_t elem_size);

#define ARENA_NEW(arena, T) ((T *)arena_alloc((arena), sizeof(T)))
#define ARENA_ARRAY(arena, T, n) ((T *)arena_alloc((arena), sizeof(T) * (size_t)(n)))
#define ARENA_ARRAY_UNINIT(arena, T, n) ((T *)arena_alloc_uninit((arena), sizeof(T) * (size_t)(n)))

#endif
