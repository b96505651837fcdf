/* Cloning IR with a value mapping (inlining calls, partition functions). */
#ifndef SHARDC_IR_CLONE_H
#define SHARDC_IR_CLONE_H
#include "shardc/ir.h"

/* Old value (by id) -> its replacement; unmapped values map to themselves.
 * A hash table as large as what it maps, not as the module: a call
 * inlined in a module of 1e5 functions clears no module-sized array. */
typedef struct ValueMap {
    Arena *arena;
    int count, cap;     /* cap is 0 or a power of two */
    const Value **from; /* NULL: a free slot */
    Value **to;
} ValueMap;

void value_map_init(ValueMap *map, Arena *arena);
Value *value_map_get(const ValueMap *map, Value *v);
void value_map_put(ValueMap *map, const Value *from, Value *to);
/* Clone op (operands through map; results recorded in map). A non-NULL
 * prefix renames results to "prefix.name" (regions keep their names). */
Op *op_clone(Module *m, const Op *op, ValueMap *map, const char *prefix);
Block *block_clone(Module *m, const Block *b, ValueMap *map, const char *prefix);
/* Rewrite every use in b (and nested regions) through map. */
void block_replace_uses(Block *b, const ValueMap *map);

#endif
