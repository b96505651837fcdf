/* A string-keyed hash table of pointers. Two arrays: the entries, in the
 * order they were put (key, its hash, value), and a small open-addressing
 * index of 4-byte entry numbers over them. A lookup's random access is one
 * 4-byte slot of the index, where a table of 24-byte slots had one into
 * six times the memory (issue 20); the entries of names put lately stay
 * cache-hot, and only the entries in use are ever touched. Arena-backed
 * (grows into fresh arena arrays; the old ones are simply abandoned), or,
 * made with no arena, on the heap: growth frees the old arrays, and
 * symtab_free the last (the partitioner's table of every name it made
 * abandoned as much as it kept, at the compile's peak: bench/README.md). */
#ifndef SHARDC_SYMTAB_H
#define SHARDC_SYMTAB_H
#include <stdint.h>
#include "shardc/arena.h"

typedef struct SymTabEntry {
    const char *key;
    void *value;
    uint64_t hash;      /* of key: probes compare it before the strings */
} SymTabEntry;

typedef struct SymTab {
    Arena *arena;
    SymTabEntry *entries;   /* count of them, in the order put; room for cap * 3 / 4 */
    /* 0 = empty, else the entry number + 1 in the bits below cap, and
     * above them the same bits of the key's hash: a tag that rules out
     * most other keys without touching their entries. */
    uint32_t *index;
    int count, cap;         /* cap: the index's slots, a power of two */
} SymTab;

void symtab_init(SymTab *t, Arena *arena);
/* Frees a heap table's arrays (an arena table's stay with its arena). */
void symtab_free(SymTab *t);
void *symtab_get(const SymTab *t, const char *key);
/* The same for the len bytes at key (not NUL-terminated: a scanner's text). */
void *symtab_get_len(const SymTab *t, const char *key, size_t len);
/* Returns the previous value for key (NULL if new), and stores value. */
void *symtab_put(SymTab *t, const char *key, void *value);

#endif
