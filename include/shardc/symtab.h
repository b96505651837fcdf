/* A string-keyed hash table of pointers, arena-backed (grows by rehashing
 * into a fresh arena array; the old one is simply abandoned), or, made
 * with no arena, on the heap: a grown table frees the old array, and
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
    SymTabEntry *entries;
    int count, cap;     /* cap is a power of two */
} SymTab;

void symtab_init(SymTab *t, Arena *arena);
/* Frees a heap table's array (an arena table's stays with its arena). */
void symtab_free(SymTab *t);
void *symtab_get(const SymTab *t, const char *key);
/* The same for the len bytes at key (not NUL-terminated: a scanner's text). */
void *symtab_get_len(const SymTab *t, const char *key, size_t len);
/* Returns the previous value for key (NULL if new), and stores value. */
void *symtab_put(SymTab *t, const char *key, void *value);

#endif
