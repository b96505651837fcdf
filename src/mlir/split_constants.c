/* Shardy's constant-or-scalar splitter (-sdy-constant-or-scalar-splitter,
 * part of its import): every use of a constant sub-computation that is not
 * itself constant gets its own copy, so that propagation may shard each
 * copy as its user wants instead of one sharding for all.
 *
 * A constant expression is a constant or iota, or a constant-preserving op
 * (elementwise, broadcast, reshape, slice, reshard, propagation barrier, a
 * named computation whose body holds only such ops, or a call to a function
 * that does) all of whose operands are constant expressions. A broadcast of
 * a scalar is a scalar expansion and is copied for each user too. Scalars
 * (rank 0) are never copied: they are not sharded. Copies go right before
 * the original, a copy's operands copied first; a sharding_group on the
 * original is copied onto the copy; a call copied calls a copy of its
 * callee (and of the functions that calls, as Shardy's cloneFuncRecursively),
 * appended to the module as `name_N` (one counter for the pass, as MLIR's
 * SymbolTable::insert) with `sdy.original_func_name`. Originals left with
 * no user but sharding groups go, with those groups; functions stay.
 *
 * Functions are split callees first (Shardy's iterateFuncs: the call
 * graph's post-order), each one's named computations (innermost first)
 * before its own ops, so that whether a call or named computation is
 * constant-preserving is known when its caller is split. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mlir/mlir_extra.h"
#include "shardc/ir_clone.h"
#include "shardc/mlir.h"
#include "shardc/symtab.h"

/* Copying functions stops here (a recursive call, or copies that double
 * at every level): an error, not a hang. */
enum { MAX_COPY_DEPTH = 64, MAX_COPIED_OPS = 1 << 20 };

static const char ORIGINAL_NAME[] = "sdy.original_func_name";

typedef struct Splitter {
    Module *m;
    DiagEngine *diag;
    Arena scratch;          /* the pass's own tables */
    int num_ops;            /* flags below cover op ids < num_ops */
    bool *constant, *expansion;
    Op **order;             /* constant ops, then expansions, as found */
    int num_constant, num_expansion;
    Op **expansions;
    SymTab non_constant_named;  /* named computations holding an op that is not constant-preserving */
    SymTab non_constant_funcs;  /* the same, functions by original name (quoted) */
    SymTab originals;           /* function name -> its original name, quoted */
    const Func *func;           /* the function being split */
    int next_symbol;            /* name_N */
    int funcs_cap;              /* of m->funcs, once the pass made it */
    bool ok;
} Splitter;

static bool flag(const bool *flags, const Splitter *s, const Op *op)
{
    return op && op->id < s->num_ops && flags[op->id];
}

static bool is_scalar(const Value *v) { return v->type.rank == 0; }

/* ---- functions: original names, copies ---- */

/* The function's sdy.original_func_name as written (`"foo"`), else its
 * own name quoted: Shardy's getOriginalFuncName, in the attribute's text.
 * Found once per function: every call's check asks. */
static const char *original_name(Splitter *s, const Func *f)
{
    const char *known = symtab_get(&s->originals, f->name);
    if (known)
        return known;
    const MlirKeptAttrs *attrs = f->mlir ? &f->mlir->attrs : NULL;
    for (int i = 0; attrs && i < attrs->count && !known; i++)
        if (strcmp(attrs->items[i].name, ORIGINAL_NAME) == 0 && attrs->items[i].text)
            known = attrs->items[i].text;
    if (!known) {
        size_t n = strlen(f->name) + 3;
        char *quoted = arena_alloc(&s->m->arena, n);
        snprintf(quoted, n, "\"%s\"", f->name);
        known = quoted;
    }
    symtab_put(&s->originals, f->name, (void *)known);
    return known;
}

/* f's attributes with sdy.original_func_name set (in name order, as MLIR's
 * attribute dictionaries print). */
static const struct MlirExtra *extra_with_original(Splitter *s, const Func *f)
{
    struct MlirExtra *x = ARENA_NEW(&s->m->arena, struct MlirExtra);
    if (f->mlir)
        *x = *f->mlir;
    const MlirKeptAttrs *old = f->mlir ? &f->mlir->attrs : NULL;
    int n = old ? old->count : 0, k = 0;
    MlirKeptAttr *items = ARENA_ARRAY(&s->m->arena, MlirKeptAttr, n + 1);
    MlirKeptAttr mine = {ORIGINAL_NAME, original_name(s, f)};
    bool placed = false;
    for (int i = 0; i < n; i++) {
        int cmp = strcmp(old->items[i].name, ORIGINAL_NAME);
        if (!placed && cmp >= 0) {
            items[k++] = mine;
            placed = true;
        }
        if (cmp != 0)
            items[k++] = old->items[i];
    }
    if (!placed)
        items[k++] = mine;
    x->attrs = (MlirKeptAttrs){k, items};
    return x;
}

static bool set_parent_func(Block *b, void *f)
{
    b->parent_func = f;
    return true;
}

static void *copy_array(Arena *a, const void *items, size_t size, int n)
{
    if (!items)
        return NULL;
    void *copy = arena_alloc(a, size * (size_t)(n + 1));
    memcpy(copy, items, size * (size_t)n);
    return copy;
}

/* MLIR's SymbolTable::insert: f is appended, renamed name_N while its
 * name is taken. */
static void insert_func(Splitter *s, Func *f)
{
    Module *m = s->m;
    if (module_find_func(m, f->name)) {
        char buf[256];
        do
            snprintf(buf, sizeof buf, "%.200s_%d", f->name, s->next_symbol++);
        while (module_find_func(m, buf));
        f->name = arena_strdup(&m->arena, buf);
    }
    if (m->num_funcs == s->funcs_cap) { /* a new array: the look-up index rebuilds */
        s->funcs_cap = 2 * s->funcs_cap + 4;
        Func **funcs = ARENA_ARRAY(&m->arena, Func *, s->funcs_cap);
        memcpy(funcs, m->funcs, sizeof *funcs * (size_t)m->num_funcs);
        m->funcs = funcs;
    }
    m->funcs[m->num_funcs++] = f;
}

static Func *copy_func(Splitter *s, const Func *f, const Loc *at, int depth);

typedef struct CalleeCopies {
    Splitter *s;
    const Loc *at;
    int depth;
} CalleeCopies;

static bool copy_callee(Op *op, void *user)
{
    CalleeCopies *c = user;
    const Func *callee = op->kind == OP_CALL && op->callee ? module_find_func(c->s->m, op->callee) : NULL;
    Func *copy = callee && c->s->ok ? copy_func(c->s, callee, c->at, c->depth + 1) : NULL;
    if (copy) {
        insert_func(c->s, copy);
        op->callee = copy->name;
    }
    return c->s->ok;
}

/* Shardy's cloneFuncRecursively: a copy of f (not yet in the module) whose
 * calls call copies of their callees, inserted first. NULL, with s->ok
 * false, past the limits (at: the call being copied, for the error). */
static Func *copy_func(Splitter *s, const Func *f, const Loc *at, int depth)
{
    Module *m = s->m;
    if (depth > MAX_COPY_DEPTH || m->num_ops - s->num_ops > MAX_COPIED_OPS) {
        diag_error(s->diag, *at, depth > MAX_COPY_DEPTH
                   ? "copying '@%s' for a constant call: calls nest deeper than %d levels (recursion?)"
                   : "copying '@%s' for a constant call would create more than %d ops", f->name,
                   depth > MAX_COPY_DEPTH ? MAX_COPY_DEPTH : MAX_COPIED_OPS);
        s->ok = false;
        return NULL;
    }
    Func *c = ARENA_NEW(&m->arena, Func);
    *c = *f;
    ValueMap map;
    value_map_init(&map, &s->scratch);
    c->body = block_clone(m, f->body, &map, NULL);
    ir_walk(c->body, &(IrWalker){.enter = set_parent_func, .user = c, .scope = IR_WALK_ALL});
    c->result_types = copy_array(&m->arena, f->result_types, sizeof *f->result_types, f->num_results);
    c->result_shardings = copy_array(&m->arena, f->result_shardings, sizeof *f->result_shardings, f->num_results);
    c->result_logical = copy_array(&m->arena, f->result_logical, sizeof *f->result_logical, f->num_results);
    c->result_locs = copy_array(&m->arena, f->result_locs, sizeof *f->result_locs, f->num_results);
    c->mlir = extra_with_original(s, f);
    c->called = false;
    CalleeCopies callees = {s, at, depth};
    ir_walk(c->body, &(IrWalker){.pre = copy_callee, .user = &callees, .scope = IR_WALK_ALL});
    return s->ok ? c : NULL;
}

/* ---- constant expressions ---- */

static bool named_is_constant(const Splitter *s, const Op *op)
{
    const char *name = op_attr_string(op, ATTR_KEY_NAME);
    return !name || !symtab_get(&s->non_constant_named, name);
}

static bool call_is_constant(Splitter *s, const Op *op)
{
    const Func *callee = op->callee ? module_find_func(s->m, op->callee) : NULL;
    return callee && !symtab_get(&s->non_constant_funcs, original_name(s, callee));
}

static bool constant_preserving(Splitter *s, const Op *op)
{
    if (op->kind == OP_CALL)
        return call_is_constant(s, op);
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

static bool constant_expression(Splitter *s, const Op *op)
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
    Func *callee = copy->kind == OP_CALL && s->ok ? module_find_func(s->m, copy->callee) : NULL;
    if (callee && (callee = copy_func(s, callee, &copy->loc, 0))) {
        insert_func(s, callee);
        copy->callee = callee->name;
    }
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

/* op is not constant-preserving: neither are the named computation that
 * holds it nor the function being split. */
static void mark_non_constant(Splitter *s, const Op *op)
{
    symtab_put(&s->non_constant_funcs, original_name(s, s->func), (void *)s->func);
    for (const Block *b = op->parent; b && b->parent_op; b = b->parent_op->parent)
        if (b->parent_op->kind == OP_NAMED_COMPUTATION) {
            const char *name = op_attr_string(b->parent_op, ATTR_KEY_NAME);
            if (name)
                symtab_put(&s->non_constant_named, name, (void *)name);
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
    s->func = f;
    ir_walk(f->body, &(IrWalker){.post = collect_named, .user = &named, .scope = IR_WALK_ALL});
    for (int i = 0; i < named.count; i++)
        split_region(s, f, named.ops[i]->regions[0]);
    free(named.ops);
    split_region(s, f, f->body);
}

/* ---- the order of functions: MLIR's CallGraph in post-order ---- */

typedef struct CallGraph {
    Module *m;
    Arena *arena;
    SymTab index;       /* function name -> its index + 1 */
    int **callees;      /* per function: the functions its calls call, in walk order */
    int *num_callees, *cap;
    int at;             /* the function whose calls are being collected */
} CallGraph;

static bool note_call(Op *op, void *user)
{
    CallGraph *g = user;
    intptr_t callee = op->kind == OP_CALL && op->callee ? (intptr_t)symtab_get(&g->index, op->callee) : 0;
    if (!callee)
        return true;
    int at = g->at;
    if (g->num_callees[at] == g->cap[at]) {
        g->cap[at] = 2 * g->cap[at] + 4;
        int *items = ARENA_ARRAY(g->arena, int, g->cap[at]);
        if (g->num_callees[at])
            memcpy(items, g->callees[at], sizeof *items * (size_t)g->num_callees[at]);
        g->callees[at] = items;
    }
    g->callees[at][g->num_callees[at]++] = (int)callee - 1;
    return true;
}

static void build_call_graph(CallGraph *g, Module *m, Arena *arena)
{
    int n = m->num_funcs;
    *g = (CallGraph){m, arena, {0}, ARENA_ARRAY(arena, int *, n + 1), ARENA_ARRAY(arena, int, n + 1),
                     ARENA_ARRAY(arena, int, n + 1), 0};
    symtab_init(&g->index, arena);
    for (int i = 0; i < n; i++)
        if (!symtab_get(&g->index, m->funcs[i]->name))
            symtab_put(&g->index, m->funcs[i]->name, (void *)(intptr_t)(i + 1));
    for (g->at = 0; g->at < n; g->at++)
        ir_walk(m->funcs[g->at]->body, &(IrWalker){.pre = note_call, .user = g, .scope = IR_WALK_ALL});
}

/* The functions callees first: a depth-first walk from each function in
 * module order (MLIR's external node reaches them so), children in the
 * order of their calls, each function listed when its walk ends. An
 * explicit stack: a chain of 1e5 calls does not overflow the C stack. */
static Func **post_order(Module *m, Arena *arena)
{
    CallGraph g;
    build_call_graph(&g, m, arena);
    int n = m->num_funcs, count = 0, depth = 0;
    Func **order = ARENA_ARRAY(arena, Func *, n + 1);
    int *stack = ARENA_ARRAY(arena, int, n + 1), *next = ARENA_ARRAY(arena, int, n + 1);
    bool *seen = ARENA_ARRAY(arena, bool, n + 1);
    for (int root = 0; root < n; root++) {
        if (seen[root])
            continue;
        seen[root] = true;
        stack[depth++] = root;
        while (depth) {
            int top = stack[depth - 1];
            if (next[top] == g.num_callees[top]) {
                order[count++] = m->funcs[top];
                depth--;
            } else if (!seen[g.callees[top][next[top]++]]) {
                seen[g.callees[top][next[top] - 1]] = true;
                stack[depth++] = g.callees[top][next[top] - 1];
            }
        }
    }
    return order;
}

bool mlir_split_constants(Module *m, DiagEngine *diag)
{
    Splitter s = {.m = m, .diag = diag, .num_ops = m->num_ops, .funcs_cap = m->num_funcs, .ok = true};
    arena_init(&s.scratch);
    s.constant = ARENA_ARRAY(&s.scratch, bool, m->num_ops + 1);
    s.expansion = ARENA_ARRAY(&s.scratch, bool, m->num_ops + 1);
    s.order = ARENA_ARRAY(&s.scratch, Op *, m->num_ops + 1);
    s.expansions = ARENA_ARRAY(&s.scratch, Op *, m->num_ops + 1);
    symtab_init(&s.non_constant_named, &s.scratch);
    symtab_init(&s.non_constant_funcs, &s.scratch);
    symtab_init(&s.originals, &s.scratch);
    int n = m->num_funcs; /* the copies made on the way are split already */
    Func **order = post_order(m, &s.scratch);
    for (int i = 0; i < n && s.ok; i++)
        split_func(&s, order[i]);
    arena_free(&s.scratch);
    mlir_spell_constants(m, true);
    return s.ok;
}
