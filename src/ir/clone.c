/* Cloning ops and blocks, for inlining calls and partition functions. */
#include <stdio.h>
#include <string.h>
#include "shardc/ir_clone.h"

void value_map_init(ValueMap *map, Arena *arena)
{
    *map = (ValueMap){.arena = arena};
}

static int map_slot(const Value *const *from, int cap, const Value *v)
{
    unsigned mask = (unsigned)cap - 1, i = ((unsigned)v->id * 2654435761u) & mask;
    while (from[i] && from[i] != v)
        i = (i + 1) & mask;
    return (int)i;
}

Value *value_map_get(const ValueMap *map, Value *v)
{
    if (!map->cap)
        return v;
    int i = map_slot(map->from, map->cap, v);
    return map->from[i] ? map->to[i] : v;
}

void value_map_put(ValueMap *map, const Value *from, Value *to)
{
    if ((map->count + 1) * 2 > map->cap) { /* grow: the old arrays stay in the arena */
        int cap = map->cap ? map->cap * 2 : 16;
        const Value **keys = ARENA_ARRAY(map->arena, const Value *, cap);
        Value **values = ARENA_ARRAY(map->arena, Value *, cap);
        for (int i = 0; i < map->cap; i++)
            if (map->from[i]) {
                int j = map_slot(keys, cap, map->from[i]);
                keys[j] = map->from[i];
                values[j] = map->to[i];
            }
        map->from = keys;
        map->to = values;
        map->cap = cap;
    }
    int i = map_slot(map->from, map->cap, from);
    map->count += !map->from[i];
    map->from[i] = from;
    map->to[i] = to;
}

static const char *prefixed_name(Module *m, const char *prefix, const char *name)
{
    if (!prefix)
        return name;
    size_t n = strlen(prefix) + strlen(name) + 2;
    char *s = arena_alloc(&m->arena, n);
    snprintf(s, n, "%s.%s", prefix, name);
    return s;
}

static Value *clone_value(Module *m, ValueMap *map, const Value *v, const char *prefix)
{
    Value *c = value_new(m, prefixed_name(m, prefix, v->name), v->type, v->loc);
    c->sharding = v->sharding;
    value_map_put(map, v, c);
    return c;
}

Block *block_clone(Module *m, const Block *b, ValueMap *map, const char *prefix)
{
    Block *c = ARENA_NEW(&m->arena, Block);
    c->parent_func = b->parent_func;
    c->num_args = b->num_args;
    c->args = ARENA_ARRAY(&m->arena, Value *, b->num_args + 1);
    for (int i = 0; i < b->num_args; i++) {
        c->args[i] = clone_value(m, map, b->args[i], prefix);
        c->args[i]->block = c;
        c->args[i]->index = i;
    }
    for (const Op *op = b->first; op; op = op->next)
        block_append(c, op_clone(m, op, map, prefix));
    c->num_returns = b->num_returns;
    c->returns = ARENA_ARRAY(&m->arena, Value *, b->num_returns + 1);
    for (int i = 0; i < b->num_returns; i++)
        c->returns[i] = value_map_get(map, b->returns[i]);
    c->return_loc = b->return_loc;
    return c;
}

Op *op_clone(Module *m, const Op *op, ValueMap *map, const char *prefix)
{
    Op *c = op_new(m, op->kind, op->loc);
    int id = c->id;
    *c = *op;
    c->id = id;
    c->prev = c->next = NULL;
    c->parent = NULL;
    c->operands = ARENA_ARRAY(&m->arena, Value *, op->num_operands + 1);
    for (int i = 0; i < op->num_operands; i++)
        c->operands[i] = value_map_get(map, op->operands[i]);
    if (op->region) {
        c->region = block_clone(m, op->region, map, NULL);
        c->region->parent_op = c;
    }
    c->regions = ARENA_ARRAY(&m->arena, Block *, op->num_regions + 1);
    for (int i = 0; i < op->num_regions; i++) {
        c->regions[i] = block_clone(m, op->regions[i], map, NULL);
        c->regions[i]->parent_op = c;
    }
    c->results = ARENA_ARRAY(&m->arena, Value *, op->num_results + 1);
    for (int i = 0; i < op->num_results; i++) {
        c->results[i] = clone_value(m, map, op->results[i], prefix);
        c->results[i]->def = c;
        c->results[i]->index = i;
    }
    return c;
}

static bool replace_operands(Op *op, void *map)
{
    for (int i = 0; i < op->num_operands; i++)
        op->operands[i] = value_map_get(map, op->operands[i]);
    return true;
}

static bool replace_returns(Block *b, void *map)
{
    for (int i = 0; i < b->num_returns; i++)
        b->returns[i] = value_map_get(map, b->returns[i]);
    return true;
}

void block_replace_uses(Block *b, const ValueMap *map)
{
    ir_walk(b, &(IrWalker){.pre = replace_operands, .leave = replace_returns, .user = (void *)map});
}
