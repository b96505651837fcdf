/* Shardy's constant-or-scalar splitter (-sdy-constant-or-scalar-splitter,
 * part of its import): every use of a constant sub-computation that is not
 * itself constant gets its own copy, so that propagation may shard each
 * copy as its user wants instead of one sharding for all.
 *
 * A constant expression is a constant or iota, or a constant-preserving op
 * (elementwise, broadcast, reshape, slice, reshard, propagation barrier,
 * or a named computation whose body holds only such ops) all of whose
 * operands are constant expressions. A broadcast of a scalar is a scalar
 * expansion and is copied for each user too. Scalars (rank 0) are never
 * copied: they are not sharded. Copies go right before the original, a
 * copy's operands copied first; a sharding_group on the original is copied
 * onto the copy. Originals left with no user but sharding groups go, with
 * those groups. Calls are not constant-preserving here (Shardy's are when
 * the callee is; shardc opt does not copy functions). */
#include <stdlib.h>
#include <string.h>
#include "propagate/propagation_state.h"
#include "shardc/ir_clone.h"

typedef struct Splitter {
    Module *m;
    int num_ops;            /* flags below cover op ids < num_ops */
    bool *constant, *expansion;
    Op **order;             /* constant ops, then expansions, as found */
    int num_constant, num_expansion;
    Op **expansions;
    const char **non_constant;  /* named computations that are not */
    int num_non_constant;
} Splitter;

static bool flag(const bool *flags, const Splitter *s, const Op *op)
{
    return op && op->id < s->num_ops && flags[op->id];
}

static bool is_scalar(const Value *v) { return v->type.rank == 0; }

static bool named_is_constant(const Splitter *s, const Op *op)
{
    const char *name = op_attr_string(op, ATTR_KEY_NAME);
    for (int i = 0; i < s->num_non_constant; i++)
        if (name && strcmp(s->non_constant[i], name) == 0)
            return false;
    return true;
}

static bool constant_preserving(const Splitter *s, const Op *op)
{
    switch (op_info(op->kind)->op_class) {
    case OPC_UNARY: case OPC_UNARY_FLOAT: case OPC_CONVERT: case OPC_BINARY: case OPC_COMPARE:
    case OPC_SELECT: case OPC_CLAMP: case OPC_BARRIER:
        return true;
    case OPC_NAMED:
        return named_is_constant(s, op);
    default:
        return op->kind == OP_BROADCAST || op->kind == OP_RESHAPE || op->kind == OP_SLICE || op->kind == OP_RESHARD;
    }
}

static bool constant_expression(const Splitter *s, const Op *op)
{
    if (op_info(op->kind)->op_class == OPC_NULLARY)
        return true;
    if (!constant_preserving(s, op))
        return false;
    for (int i = 0; i < op->num_operands; i++)
        if (!flag(s->constant, s, op->operands[i]->def))
            return false;
    return true;
}

static bool scalar_expansion(const Op *op)
{
    return op->kind == OP_BROADCAST && op->num_operands == 1 && is_scalar(op->operands[0]);
}

/* ---- copying a sub-computation ---- */

static void copy_group_users(Splitter *s, const Value *v, ValueMap *map, Op *before);

/* Copies of v's defining ops (operands first, scalars not copied) before
 * each original; map gives each copied value's copy. */
static Value *copy_value(Splitter *s, Value *v, ValueMap *map)
{
    Op *def = v->def;
    if (is_scalar(v) || !def || value_map_get(map, v) != v)
        return value_map_get(map, v);
    for (int i = 0; i < def->num_operands; i++)
        copy_value(s, def->operands[i], map);
    Op *copy = op_clone(s->m, def, map, NULL);
    block_insert_before(def->parent, def, copy);
    for (int i = 0; i < def->num_results; i++)
        copy_group_users(s, def->results[i], map, def);
    return value_map_get(map, v);
}

typedef struct GroupCopy {
    Splitter *s;
    const Value *of;
    ValueMap *map;
    Op *before;
} GroupCopy;

static bool copy_if_group_of(Op *op, void *user)
{
    GroupCopy *g = user;
    if (op->kind == OP_SHARDING_GROUP && op->operands[0] == g->of)
        block_insert_before(g->before->parent, g->before, op_clone(g->s->m, op, g->map, NULL));
    return true;
}

static void copy_group_users(Splitter *s, const Value *v, ValueMap *map, Op *before)
{
    GroupCopy g = {s, v, map, before};
    Block *b = before->parent;
    for (Op *op = b->first; op; op = op->next) /* a group's op sits in its value's block */
        if (op->kind == OP_SHARDING_GROUP)
            copy_if_group_of(op, &g);
}

/* An operand that is a constant expression or scalar expansion becomes a
 * copy of it of its own. */
static Value *split_use(Splitter *s, Value *v)
{
    if (!flag(s->constant, s, v->def) && !flag(s->expansion, s, v->def))
        return v;
    Arena scratch;
    arena_init(&scratch);
    ValueMap map;
    value_map_init(&map, &scratch);
    Value *copy = copy_value(s, v, &map);
    arena_free(&scratch);
    return copy;
}

/* ---- the walk ---- */

static void mark_non_constant(Splitter *s, const Op *op)
{
    for (const Block *b = op->parent; b && b->parent_op; b = b->parent_op->parent)
        if (b->parent_op->kind == OP_NAMED_COMPUTATION) {
            const char **names = ARENA_ARRAY(&s->m->arena, const char *, s->num_non_constant + 1);
            if (s->num_non_constant)
                memcpy(names, s->non_constant, sizeof *names * (size_t)s->num_non_constant);
            names[s->num_non_constant++] = op_attr_string(b->parent_op, ATTR_KEY_NAME);
            s->non_constant = names;
            return;
        }
}

static void split_block(Splitter *s, Block *b);

static void process_op(Splitter *s, Op *op)
{
    if (op->kind == OP_SHARDING_GROUP)
        return;
    if (constant_expression(s, op)) {
        s->constant[op->id] = true;
        s->order[s->num_constant++] = op;
        return;
    }
    if (!constant_preserving(s, op))
        mark_non_constant(s, op);
    if (scalar_expansion(op)) {
        s->expansion[op->id] = true;
        s->expansions[s->num_expansion++] = op;
        return;
    }
    for (int i = 0; i < op->num_operands; i++)
        op->operands[i] = split_use(s, op->operands[i]);
}

/* Pre-order, as Shardy's walk: an op, then its regions; a named
 * computation's body was split on its own before. */
static void split_block(Splitter *s, Block *b)
{
    for (Op *op = b->first, *next; op; op = next) {
        next = op->next;
        if (op->id >= s->num_ops)
            continue; /* a copy made in this walk */
        process_op(s, op);
        if (op->kind == OP_NAMED_COMPUTATION)
            continue;
        for (int k = 0; k < op->num_regions; k++)
            split_block(s, op->regions[k]);
        if (op->region)
            split_block(s, op->region);
    }
    for (int i = 0; i < b->num_returns; i++)
        b->returns[i] = split_use(s, b->returns[i]);
}

/* ---- erasing the originals nothing but sharding groups use ---- */

typedef struct Uses {
    int *count;     /* per value id: uses other than sharding groups */
    int size;
} Uses;

static bool unused(const Uses *u, const Op *op)
{
    for (int i = 0; i < op->num_results; i++)
        if (u->count[op->results[i]->id])
            return false;
    return true;
}

static void erase(Uses *u, Op *op)
{
    Block *b = op->parent;
    for (Op *g = b->first, *next; g; g = next) {
        next = g->next;
        for (int i = 0; g->kind == OP_SHARDING_GROUP && i < op->num_results; i++)
            if (g->operands[0] == op->results[i]) {
                block_remove(b, g);
                break;
            }
    }
    for (int i = 0; i < op->num_operands; i++)
        u->count[op->operands[i]->id]--;
    block_remove(b, op);
}

static void erase_unused(Splitter *s, Func *f)
{
    Uses u = {calloc((size_t)s->m->num_values + 1, sizeof(int)), s->m->num_values};
    if (!u.count)
        arena_out_of_memory();
    ir_count_uses(f->body, u.count, true);
    for (int i = 0; i < s->num_expansion; i++)
        if (unused(&u, s->expansions[i]))
            erase(&u, s->expansions[i]);
    for (int i = s->num_constant - 1; i >= 0; i--)
        if (unused(&u, s->order[i]))
            erase(&u, s->order[i]);
    free(u.count);
}

static void split_region(Splitter *s, Func *f, Block *b)
{
    s->num_constant = s->num_expansion = 0;
    split_block(s, b);
    erase_unused(s, f);
}

typedef struct NamedList {
    Op **ops;
    int count, cap;
} NamedList;

static bool collect_named(Op *op, void *user)
{
    NamedList *l = user;
    if (op->kind != OP_NAMED_COMPUTATION || op->num_regions != 1)
        return true;
    if (l->count == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 8;
        Op **ops = realloc(l->ops, sizeof *ops * (size_t)l->cap);
        if (!ops)
            arena_out_of_memory();
        l->ops = ops;
    }
    l->ops[l->count++] = op;
    return true;
}

/* Named computations first, innermost first (Shardy walks them post-order
 * before the function), then the function's own ops. */
static void split_func(Splitter *s, Func *f)
{
    NamedList named = {0};
    ir_walk(f->body, &(IrWalker){.post = collect_named, .user = &named, .scope = IR_WALK_ALL});
    for (int i = 0; i < named.count; i++)
        split_region(s, f, named.ops[i]->regions[0]);
    free(named.ops);
    split_region(s, f, f->body);
}

void propagate_split_constants(Module *m)
{
    Splitter s = {.m = m, .num_ops = m->num_ops};
    s.constant = ARENA_ARRAY(&m->arena, bool, m->num_ops + 1);
    s.expansion = ARENA_ARRAY(&m->arena, bool, m->num_ops + 1);
    s.order = ARENA_ARRAY(&m->arena, Op *, m->num_ops + 1);
    s.expansions = ARENA_ARRAY(&m->arena, Op *, m->num_ops + 1);
    for (int i = 0; i < m->num_funcs; i++)
        split_func(&s, m->funcs[i]);
}
