/* A small memo in front of a SymTab that does not change (op names to
 * forms and handlers, type spellings to types): the names repeat on every
 * op, and hashing the whole name was most of a look-up's cost
 * (bench/instructions.sh). A slot is picked from the name's length and a
 * few of its bytes, then checked with strcmp. Internal to src/mlir/. */
#ifndef SHARDC_MLIR_NAME_CACHE_H
#define SHARDC_MLIR_NAME_CACHE_H
#include <stdbool.h>
#include <string.h>
#include "shardc/symtab.h"

enum { MLIR_NAME_CACHE_SLOTS = 64, MLIR_NAME_CACHE_KEY = 40 };

/* A slot holds a copy of its key: the names looked up live in the parser's
 * per-op arenas, which are reused while the cache is not (read.c). */
typedef struct MlirNameCache {
    struct {
        char key[MLIR_NAME_CACHE_KEY];  /* "": empty */
        void *value;
    } slots[MLIR_NAME_CACHE_SLOTS];
} MlirNameCache;

/* symtab_get(t, key), remembered; misses (NULL) only when keep_misses,
 * for a table nothing is added to afterwards. Names too long for a slot
 * are looked up each time. */
static inline void *mlir_cached_get(MlirNameCache *c, const SymTab *t, const char *key, bool keep_misses)
{
    size_t n = strlen(key);
    unsigned h = (unsigned)n * 31u;
    if (n >= 4)
        h += (unsigned char)key[n / 2] * 7u + (unsigned char)key[n - 2] * 3u + (unsigned char)key[n * 3 / 4];
    unsigned slot = h % MLIR_NAME_CACHE_SLOTS;
    if (n && n < MLIR_NAME_CACHE_KEY && memcmp(c->slots[slot].key, key, n + 1) == 0)
        return c->slots[slot].value;
    void *value = symtab_get(t, key);
    if ((value || keep_misses) && n && n < MLIR_NAME_CACHE_KEY) {
        memcpy(c->slots[slot].key, key, n + 1);
        c->slots[slot].value = value;
    }
    return value;
}

#endif
