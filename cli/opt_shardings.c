/* How `shardc opt` prints shardings as sdy_opt does after Shardy's passes
 * (cli/opt_shardings.h). */
#include <stdlib.h>
#include "opt_shardings.h"

/* Shardy's export closes every dim (`{"a", ?}` prints as `{"a"}`) and
 * drops explicitly replicated axes: its getClosedLike keeps the dims' axes
 * and nothing else. Unreduced axes stay: the all-reduces of
 * mlir_export_unreduced need them. */
static void close_sharding(Sharding *s)
{
    for (int d = 0; s && d < s->rank; d++)
        s->dims[d].is_closed = true;
    if (s)
        s->num_replicated = 0;
}

static bool close_value(Value *v, void *user)
{
    (void)user;
    close_sharding(v->sharding);
    return true;
}

/* ... and its sharding constraints become reshards (they are no longer
 * constraints on propagation, only data movement). */
static bool constraint_to_reshard(Op *op, void *user)
{
    (void)user;
    if (op->kind == OP_SHARDING_CONSTRAINT)
        op->kind = OP_RESHARD;
    return true;
}

typedef struct Uses {
    int *count;     /* per value id */
    bool removed;
} Uses;

static bool remove_if_unused(Op *op, void *user)
{
    Uses *u = user;
    if (op->kind == OP_SHARDING_CONSTRAINT && u->count[op->results[0]->id] == 0) {
        block_remove(op->parent, op);
        u->removed = true;
    }
    return true;
}

/* A constraint nothing uses goes (MLIR's greedy rewriter, which Shardy's
 * export runs, erases ops without effects whose results are unused);
 * removing one may leave the constraint it used unused in turn. */
static void remove_unused_constraints(Module *m)
{
    Uses u = {calloc((size_t)m->num_values + 1, sizeof(int)), true};
    if (!u.count)
        return;
    while (u.removed) {
        u.removed = false;
        for (int i = 0; i < m->num_values; i++)
            u.count[i] = 0;
        for (int f = 0; f < m->num_funcs; f++)
            ir_count_uses(m->funcs[f]->body, u.count, false);
        ir_walk_module(m, &(IrWalker){.pre = remove_if_unused, .user = &u, .scope = IR_WALK_ALL});
    }
    free(u.count);
}

void cli_close_shardings(Module *m)
{
    remove_unused_constraints(m);
    IrWalker w = {.value = close_value, .pre = constraint_to_reshard};
    ir_walk_module(m, &w);
    for (int f = 0; f < m->num_funcs; f++) {
        Func *fn = m->funcs[f];
        for (int r = 0; r < fn->num_results; r++) {
            close_sharding(fn->result_shardings ? fn->result_shardings[r] : NULL);
        }
    }
}

/* ---- the shardings as written, and each dim reopened after ---- */

static const Sharding *written_clone(Arena *arena, const Sharding *s)
{
    return s ? sharding_clone(arena, s) : NULL;
}

static bool remember_value(Value *v, void *user)
{
    CliWritten *w = user;
    w->values[v->id] = written_clone(w->arena, v->sharding);
    return true;
}

static void remember_results(CliWritten *w, int f, const Func *fn)
{
    w->results[f] = arena_alloc(w->arena, ((size_t)fn->num_results + 1) * sizeof *w->results[f]);
    for (int r = 0; r < fn->num_results; r++)
        w->results[f][r] = written_clone(w->arena, fn->result_shardings ? fn->result_shardings[r] : NULL);
}

bool cli_remember_shardings(Module *m, CliWritten *w)
{
    *w = (CliWritten){&m->arena, calloc((size_t)m->num_values + 1, sizeof *w->values), m->num_values,
                            arena_alloc(&m->arena, ((size_t)m->num_funcs + 1) * sizeof *w->results), m->num_funcs};
    if (!w->values)
        return false;
    for (int f = 0; f < m->num_funcs; f++) {
        for (int a = 0; a < m->funcs[f]->body->num_args; a++)
            remember_value(m->funcs[f]->body->args[a], w);
        remember_results(w, f, m->funcs[f]);
    }
    IrWalker walker = {.value = remember_value, .user = w};
    ir_walk_module(m, &walker);
    return true;
}

static bool all_open_and_empty(const Sharding *s)
{
    for (int d = 0; d < s->rank; d++)
        if (s->dims[d].is_closed || s->dims[d].num_axes)
            return false;
    return !s->num_replicated && !s->num_unreduced;
}

/* Each dim closed only if the user wrote it closed; a sharding propagation
 * made that says nothing (`[{?}, {?}]`) is no sharding, as Shardy prints. */
static Sharding *reopen(Sharding *s, const Sharding *before)
{
    if (before && (!s || before->rank != s->rank)) /* a maximal sharding `[]` */
        return s;
    for (int d = 0; s && d < s->rank; d++)
        s->dims[d].is_closed = before && before->dims[d].is_closed;
    return !before && s && all_open_and_empty(s) ? NULL : s;
}

/* Whether v carries a manual computation's in or out sharding (a body
 * argument or a result of it). */
static bool is_manual_edge(const Value *v)
{
    const Op *owner = v->def ? v->def : v->block ? v->block->parent_op : NULL;
    return owner && owner->kind == OP_SHARD_MAP;
}

/* Shardy keeps the priorities written on a manual computation's in and
 * out shardings through propagation (they print with them). */
static void restore_priorities(Sharding *s, const Sharding *before)
{
    for (int d = 0; s && before && d < s->rank && d < before->rank; d++)
        s->dims[d].priority = before->dims[d].priority;
}

static bool reopen_value(Value *v, void *user)
{
    const CliWritten *w = user;
    const Sharding *before = v->id < w->num_values ? w->values[v->id] : NULL;
    /* values closed to the same sharding share it (module_close_sharding):
     * each reopens its own copy as its own annotation says */
    v->sharding = reopen(v->sharding ? sharding_clone(w->arena, v->sharding) : NULL, before);
    if (is_manual_edge(v))
        restore_priorities(v->sharding, before);
    return true;
}

/* A result written without a sharding takes its returned value's, as
 * Shardy's propagation gives the entry's one (every function's when there
 * is no entry); a written one keeps its written dims. */
static void reopen_results(Module *m, Func *fn, const Sharding **before)
{
    const Func *entry = module_entry_func(m);
    for (int r = 0; fn->result_shardings && r < fn->num_results && r < fn->body->num_returns; r++) {
        Sharding *s = fn->result_shardings[r];
        const Value *v = fn->body->returns[r];
        if (!s && v->sharding && (!entry || entry == fn) && type_is_static(&v->type)) { /* propagated onto it: no replicated or unreduced axes */
            s = sharding_clone(&m->arena, v->sharding);
            s->num_replicated = s->num_unreduced = 0;
            for (int d = 0; d < s->rank; d++) /* a manual computation's stay on its edge */
                s->dims[d].priority = PRIORITY_NONE;
        }
        fn->result_shardings[r] = reopen(s, before ? before[r] : NULL);
    }
}

/* Shardy sets one result's sharding on an op with none by giving the
 * others fully open ones (getOpenWithShardingAtIndex): a result left
 * without one beside a sharded sibling prints `[{?}, ...]`. */
static bool open_beside_sharded(Op *op, void *user)
{
    Module *m = user;
    const Sharding *sibling = NULL;
    for (int i = 0; i < op->num_results && !sibling; i++)
        sibling = op->results[i]->sharding;
    for (int i = 0; sibling && i < op->num_results; i++)
        if (!op->results[i]->sharding && op->results[i]->type.dtype != DT_TOKEN)
            op->results[i]->sharding = sharding_new_open(&m->arena, sibling->mesh, op->results[i]->type.rank);
    return true;
}

void cli_reopen_propagated(Module *m, CliWritten *w)
{
    IrWalker walker = {.value = reopen_value, .user = w};
    ir_walk_module(m, &walker);
    ir_walk_module(m, &(IrWalker){.pre = open_beside_sharded, .user = m});
    for (int f = 0; f < m->num_funcs; f++) {
        Func *fn = m->funcs[f];
        for (int a = 0; a < fn->body->num_args; a++)
            reopen_value(fn->body->args[a], w);
        reopen_results(m, fn, f < w->num_funcs ? w->results[f] : NULL);
    }
}

void cli_written_free(CliWritten *w)
{
    free(w->values);
    w->values = NULL;
}

static bool clear_edge_input(Op *op, void *user)
{
    (void)user;
    const Op *owner = op->kind == OP_DATA_FLOW_EDGE ? op->operands[0]->def : NULL;
    if (owner && (owner->num_regions > 0 || owner->kind == OP_OPTIMIZATION_BARRIER))
        op->operands[0]->sharding = NULL;
    return true;
}

void cli_edge_shardings_on_edges(Module *m)
{
    ir_walk_module(m, &(IrWalker){.pre = clear_edge_input});
}
