/* Calls in Shardy's propagation pipeline (its conservative mode,
 * dedup-functions-fully=false), for `shardc opt -sdy-propagation-pipeline`.
 *
 * Import (FlattenCallGraph, ImportFuncCalls, SymbolDCE): every call
 * becomes a named_computation holding its own copy of the callee's body,
 * so each call site propagates on its own through the named computation's
 * data-flow edges; the functions called, and private functions nothing
 * refers to, are dropped.
 *
 * Export (ExportNamedComputations, PropagateToFuncResults,
 * UnflattenCallGraph, SymbolDCE): innermost first, each named computation
 * becomes a private function appended to the module, named after it (or,
 * when the name is taken, name_N with one counter for the whole pass, as
 * MLIR's SymbolTable::insert does), and a call to it. Functions other than
 * the entry take their returned values' shardings as result shardings.
 * Copies of one function with the same argument and result shardings
 * become one: every call goes to the first such copy a walk of the calls
 * meets; the copies left uncalled are dropped. */
#include <stdio.h>
#include <string.h>
#include "mlir/mlir_extra.h"
#include "shardc/ir_clone.h"
#include "shardc/mlir.h"

enum { MAX_CALL_DEPTH = 64, MAX_IMPORTED_OPS = 1 << 20 };

typedef struct CallPass {
    Module *m;
    DiagEngine *diag;
    Arena scratch;
    int counter;            /* value-name prefixes; export: the name_N counter */
    int first_op;           /* m->num_ops before the import */
    bool ok;
    int num_copies;         /* export: the functions made, and their origins */
    Func **copies;
    const char **origins;
} CallPass;

static bool set_func(Block *b, void *f)
{
    b->parent_func = f;
    return true;
}

static void move_block_to(Block *b, Func *f)
{
    ir_walk(b, &(IrWalker){.enter = set_func, .user = f, .scope = IR_WALK_ALL});
}

/* Replace `old` in its block by `op`, which takes over its results. */
static void replace_op(Op *old, Op *op)
{
    op->num_operands = old->num_operands;
    op->operands = old->operands;
    op->num_results = old->num_results;
    op->results = old->results;
    for (int i = 0; i < op->num_results; i++)
        op->results[i]->def = op;
    block_insert_before(old->parent, old, op);
    block_remove(old->parent, old);
}

static void set_name(Module *m, Op *op, const char *name)
{
    AttrValue *v = attr_new(&m->arena, ATTR_STRING, op->loc);
    v->u.s = name;
    op->attrs = ARENA_NEW(&m->arena, NamedAttr);
    op->attrs[0] = (NamedAttr){.name = attr_key_name(ATTR_KEY_NAME), .loc = op->loc, .value = v, .key = ATTR_KEY_NAME};
    op->num_attrs = 1;
}

/* ---- import ---- */

static bool import_block(CallPass *cp, Block *b, int depth);

/* A named computation with a copy of the callee's body (its argument
 * shardings the callee's, its result shardings the call's) in place of
 * `call`; its body's calls are imported in turn. */
static bool import_call(CallPass *cp, Op *call, int depth)
{
    Module *m = cp->m;
    Func *callee = module_find_func(m, call->callee);
    if (!callee)
        return true; /* the verifier reported it */
    if (depth >= MAX_CALL_DEPTH || m->num_ops - cp->first_op > MAX_IMPORTED_OPS) {
        diag_error(cp->diag, call->loc, depth >= MAX_CALL_DEPTH
                   ? "calls nest deeper than %d levels (recursion?); cannot flatten the call graph"
                   : "flattening the call graph would create more than %d ops", depth >= MAX_CALL_DEPTH
                   ? MAX_CALL_DEPTH : MAX_IMPORTED_OPS);
        return false;
    }
    callee->called = true;
    ValueMap map;
    value_map_init(&map, &cp->scratch);
    char prefix[64];
    snprintf(prefix, sizeof prefix, "%.40s%d", callee->name, cp->counter++);
    Block *body = block_clone(m, callee->body, &map, arena_strdup(&m->arena, prefix));
    Op *named = op_new(m, OP_NAMED_COMPUTATION, call->loc);
    set_name(m, named, callee->name);
    named->num_regions = 1;
    named->regions = ARENA_ARRAY(&m->arena, Block *, 1);
    named->regions[0] = body;
    body->parent_op = named;
    move_block_to(body, call->parent->parent_func);
    replace_op(call, named);
    return import_block(cp, body, depth + 1);
}

static bool import_block(CallPass *cp, Block *b, int depth)
{
    for (Op *op = b->first, *next; op; op = next) {
        next = op->next;
        if (op->kind == OP_CALL) {
            if (!import_call(cp, op, depth))
                return false;
            continue;
        }
        for (int k = 0; k < op->num_regions; k++)
            if (!import_block(cp, op->regions[k], depth))
                return false;
        if (op->region && !import_block(cp, op->region, depth))
            return false;
    }
    return true;
}

static bool note_reference(Op *op, void *user)
{
    Func *f = op->callee ? module_find_func(user, op->callee) : NULL;
    if (f)
        f->called = true;
    return true;
}

/* SymbolDCE: drop the private functions nothing calls or refers to (a
 * custom op's implementation is referred to), and those `converted[i]`
 * marks (import: their calls became named computations). */
static void drop_funcs(Module *m, const bool *converted)
{
    for (int i = 0; i < m->num_funcs; i++)
        m->funcs[i]->called = false;
    ir_walk_module(m, &(IrWalker){.pre = note_reference, .user = m, .scope = IR_WALK_ALL});
    Func **kept = ARENA_ARRAY(&m->arena, Func *, m->num_funcs + 1);
    int n = 0;
    for (int i = 0; i < m->num_funcs; i++) {
        Func *f = m->funcs[i];
        if (!(converted && converted[i]) && (f->called || !mlir_func_is_private(f)))
            kept[n++] = f;
    }
    m->funcs = kept; /* a new array: the look-up index rebuilds */
    m->num_funcs = n;
}

bool mlir_import_func_calls(Module *m, DiagEngine *diag)
{
    if (!m->ops_created[OP_CALL])
        return true;
    CallPass cp = {.m = m, .diag = diag, .first_op = m->num_ops, .ok = true};
    arena_init(&cp.scratch);
    for (int i = 0; i < m->num_funcs; i++)
        m->funcs[i]->called = false;
    for (int i = 0; i < m->num_funcs && cp.ok; i++)
        cp.ok = import_block(&cp, m->funcs[i]->body, 0);
    bool *converted = ARENA_ARRAY(&cp.scratch, bool, m->num_funcs + 1);
    for (int i = 0; i < m->num_funcs; i++)
        converted[i] = m->funcs[i]->called;
    if (cp.ok)
        drop_funcs(m, converted);
    arena_free(&cp.scratch);
    return cp.ok;
}

/* ---- export ---- */

static bool name_taken(const Module *m, const char *name)
{
    return module_find_func(m, name) != NULL;
}

/* `name`, or name_N with the pass's counter when it is taken. */
static const char *unique_name(CallPass *cp, const char *name)
{
    if (!name_taken(cp->m, name))
        return name;
    char buf[256];
    do
        snprintf(buf, sizeof buf, "%.200s_%d", name, cp->counter++);
    while (name_taken(cp->m, buf));
    return arena_strdup(&cp->m->arena, buf);
}

static void append_func(CallPass *cp, Func *f, const char *origin)
{
    Module *m = cp->m;
    Func **funcs = ARENA_ARRAY(&m->arena, Func *, m->num_funcs + 2);
    memcpy(funcs, m->funcs, sizeof(Func *) * (size_t)m->num_funcs);
    funcs[m->num_funcs] = f;
    m->funcs = funcs; /* a new array: the look-up index rebuilds */
    m->num_funcs++;
    const char **origins = ARENA_ARRAY(&cp->scratch, const char *, cp->num_copies + 1);
    Func **copies = ARENA_ARRAY(&cp->scratch, Func *, cp->num_copies + 1);
    if (cp->num_copies) {
        memcpy(origins, cp->origins, sizeof(char *) * (size_t)cp->num_copies);
        memcpy(copies, cp->copies, sizeof(Func *) * (size_t)cp->num_copies);
    }
    origins[cp->num_copies] = origin;
    copies[cp->num_copies++] = f;
    cp->origins = origins;
    cp->copies = copies;
}

/* A private function of the named computation's body; its results take
 * the returned values' shardings (PropagateToFuncResults). */
static Func *func_of(CallPass *cp, Op *named)
{
    Module *m = cp->m;
    Func *f = ARENA_NEW(&m->arena, Func);
    struct MlirExtra *x = ARENA_NEW(&m->arena, struct MlirExtra);
    x->visibility = "private";
    f->mlir = x;
    f->name = unique_name(cp, op_attr_string(named, ATTR_KEY_NAME));
    f->loc = named->loc;
    f->body = named->regions[0];
    f->body->parent_op = NULL;
    move_block_to(f->body, f);
    f->num_results = named->num_results;
    f->result_types = ARENA_ARRAY(&m->arena, TensorType, f->num_results + 1);
    f->result_shardings = ARENA_ARRAY(&m->arena, Sharding *, f->num_results + 1);
    f->result_locs = ARENA_ARRAY(&m->arena, Loc, f->num_results + 1);
    for (int i = 0; i < f->num_results; i++) {
        f->result_types[i] = named->results[i]->type;
        f->result_shardings[i] = i < f->body->num_returns ? f->body->returns[i]->sharding : NULL;
        f->result_locs[i] = named->loc;
    }
    return f;
}

static void export_named(CallPass *cp, Op *named)
{
    Func *f = func_of(cp, named);
    append_func(cp, f, op_attr_string(named, ATTR_KEY_NAME));
    Op *call = op_new(cp->m, OP_CALL, named->loc);
    call->callee = f->name;
    op_set_callee_loc(&cp->m->arena, call, named->loc);
    replace_op(named, call);
}

/* Innermost first (a post-order walk), as Shardy's export. */
static bool export_if_named(Op *op, void *cp)
{
    if (op->kind == OP_NAMED_COMPUTATION && op->num_regions == 1)
        export_named(cp, op);
    return true;
}

/* ---- unflatten ---- */

static bool same_shardings(Value *const *a, Value *const *b, int n)
{
    for (int i = 0; i < n; i++)
        if (!sharding_equal(a[i]->sharding, b[i]->sharding))
            return false;
    return true;
}

static bool same_copy(const Func *f, const Func *g)
{
    if (f->body->num_args != g->body->num_args || f->num_results != g->num_results ||
        !same_shardings(f->body->args, g->body->args, f->body->num_args))
        return false;
    for (int i = 0; i < f->num_results; i++)
        if (!sharding_equal(f->result_shardings[i], g->result_shardings[i]))
            return false;
    return true;
}

static const char *origin_of(const CallPass *cp, const Func *f)
{
    for (int i = 0; i < cp->num_copies; i++)
        if (cp->copies[i] == f)
            return cp->origins[i];
    return f->name;
}

typedef struct Dedup {
    CallPass *cp;
    Func **first;   /* per copy: the copy its calls go to, once a call met it */
} Dedup;

/* The first copy met with f's origin and shardings, f itself if none. */
static Func *canonical(Dedup *d, Func *f)
{
    const char *origin = origin_of(d->cp, f);
    for (int i = 0; i < d->cp->num_copies; i++) {
        Func *g = d->first[i];
        if (g && strcmp(origin_of(d->cp, g), origin) == 0 && same_copy(f, g))
            return g;
    }
    for (int i = 0; i < d->cp->num_copies; i++)
        if (d->cp->copies[i] == f)
            d->first[i] = f;
    return f;
}

static bool redirect_call(Op *op, void *user)
{
    Dedup *d = user;
    Func *f = op->kind == OP_CALL ? module_find_func(d->cp->m, op->callee) : NULL;
    if (f)
        op->callee = canonical(d, f)->name;
    return true;
}

bool mlir_export_named_computations(Module *m)
{
    if (!m->ops_created[OP_NAMED_COMPUTATION])
        return true;
    CallPass cp = {.m = m};
    arena_init(&cp.scratch);
    int num_funcs = m->num_funcs;
    for (int i = 0; i < num_funcs; i++)
        ir_walk(m->funcs[i]->body, &(IrWalker){.post = export_if_named, .user = &cp, .scope = IR_WALK_ALL});
    Dedup d = {&cp, ARENA_ARRAY(&cp.scratch, Func *, cp.num_copies + 1)};
    ir_walk_module(m, &(IrWalker){.post = redirect_call, .user = &d, .scope = IR_WALK_ALL});
    drop_funcs(m, NULL);
    arena_free(&cp.scratch);
    return true;
}

/* ---- Shardy's aggressive mode (dedup-functions-fully=true) ----
 *
 * Calls stay calls, and functions are propagated together through
 * func_data_flow_edge ops (propagate/data_flow.c). After SymbolDCE,
 * AddFuncDataFlowEdges
 * puts one on every argument of every function but the entry and on every
 * call result; after propagation SinkFuncDataFlowEdges moves each edge's
 * sharding onto its operand and removes it, PropagateToFuncResults gives
 * functions other than the entry their returned values' shardings as
 * result shardings, and InsertFuncCallReshards makes each call's result
 * shardings its callee's, resharding to what the call had where they
 * differ. */

static void add_edge(Module *m, Value *v)
{
    if (v->type.dtype == DT_TOKEN || !type_is_static(&v->type)) /* Shardy skips all but static-shaped tensors */
        return;
    Op *edge = ir_insert_identity(m, v, OP_FUNC_DATA_FLOW_EDGE, "edge");
    edge->results[0]->sharding = v->sharding;
}

static bool add_call_edges(Op *op, void *m)
{
    for (int i = 0; op->kind == OP_CALL && i < op->num_results; i++)
        add_edge(m, op->results[i]);
    return true;
}

void mlir_add_func_data_flow_edges(Module *m)
{
    drop_funcs(m, NULL); /* the import pipeline's SymbolDCE */
    const Func *entry = module_entry_func(m);
    for (int i = 0; i < m->num_funcs; i++)
        for (int a = 0; m->funcs[i] != entry && a < m->funcs[i]->body->num_args; a++)
            add_edge(m, m->funcs[i]->body->args[a]);
    ir_walk_module(m, &(IrWalker){.post = add_call_edges, .user = m, .scope = IR_WALK_ALL});
}

typedef struct EdgeList {
    int count, cap;
    Op **ops;
    Arena *arena;
} EdgeList;

static bool collect_edge(Op *op, void *user)
{
    EdgeList *l = user;
    if (op->kind != OP_FUNC_DATA_FLOW_EDGE)
        return true;
    if (l->count == l->cap) {
        int cap = l->cap ? 2 * l->cap : 16;
        Op **ops = ARENA_ARRAY(l->arena, Op *, cap);
        if (l->count)
            memcpy(ops, l->ops, sizeof(Op *) * (size_t)l->count);
        l->ops = ops;
        l->cap = cap;
    }
    l->ops[l->count++] = op;
    return true;
}

/* The edge's sharding onto its operand (fully open if it has none), and
 * the edge gone. */
static void sink_edge(Module *m, Op *edge)
{
    Value *v = edge->operands[0], *r = edge->results[0];
    if (r->sharding)
        v->sharding = r->sharding;
    else if (v->sharding)
        v->sharding = sharding_new_open(&m->arena, v->sharding->mesh, v->type.rank);
    ir_replace_uses(edge->parent->parent_func->body, r, v);
    block_remove(edge->parent, edge);
}

/* PropagateToFuncResults: what each function but the entry returns. */
static void results_from_returns(Module *m)
{
    const Func *entry = module_entry_func(m);
    for (int i = 0; i < m->num_funcs; i++) {
        Func *f = m->funcs[i];
        for (int r = 0; f != entry && r < f->num_results && r < f->body->num_returns; r++)
            f->result_shardings[r] = f->body->returns[r]->sharding;
    }
}

static bool all_dims_empty(const Sharding *s)
{
    for (int d = 0; s && d < s->rank; d++)
        if (s->dims[d].num_axes)
            return false;
    return true;
}

/* Shardy's TensorShardingAttr::isEquivalent: the same axes on every dim,
 * open or closed; no sharding is one with no axes. */
static bool same_axes(const Sharding *a, const Sharding *b)
{
    if (all_dims_empty(a))
        return all_dims_empty(b);
    return b && sharding_same_dim_axes(a, b);
}

static Sharding *closed_empty_like(Arena *a, const Sharding *s)
{
    Sharding *c = sharding_new_open(a, s->mesh, s->rank);
    for (int d = 0; d < c->rank; d++)
        c->dims[d].is_closed = true;
    return c;
}

/* InsertFuncCallReshards on one call: each result takes its callee's
 * result sharding, and a reshard after it gives its users what the call
 * had (fully closed if it had nothing). */
static bool reshard_call_results(Op *op, void *user)
{
    Module *m = user;
    const Func *f = op->kind == OP_CALL && op->callee ? module_find_func(m, op->callee) : NULL;
    for (int i = 0; f && i < op->num_results && i < f->num_results; i++) {
        Value *v = op->results[i];
        const Sharding *want = f->result_shardings[i];
        if (!want || same_axes(want, v->sharding))
            continue;
        Sharding *had = v->sharding ? v->sharding : closed_empty_like(&m->arena, want);
        v->sharding = sharding_clone(&m->arena, want);
        ir_insert_identity(m, v, OP_RESHARD, "reshard")->results[0]->sharding = had;
    }
    return true;
}

/* Results take their returned values' shardings even where no edge was
 * added (functions of no arguments, or of dynamic ones only). */
void mlir_sink_func_data_flow_edges(Module *m)
{
    Arena scratch;
    arena_init(&scratch);
    EdgeList edges = {.arena = &scratch};
    if (m->ops_created[OP_FUNC_DATA_FLOW_EDGE])
        ir_walk_module(m, &(IrWalker){.pre = collect_edge, .user = &edges, .scope = IR_WALK_ALL});
    for (int i = 0; i < edges.count; i++)
        sink_edge(m, edges.ops[i]);
    arena_free(&scratch);
    results_from_returns(m);
    ir_walk_module(m, &(IrWalker){.pre = reshard_call_results, .user = m, .scope = IR_WALK_ALL});
}
