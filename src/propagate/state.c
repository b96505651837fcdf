/* Propagation state: rules, use lists, worklist, rounds and updates. */
#include <stdlib.h>
#include <string.h>
#include "propagate/propagation_state.h"
#include "shardc/rules.h"

static void use_list_add(Arena *arena, UseList *u, Op *op)
{
    if (u->count == u->cap) {
        int cap = u->cap ? u->cap * 2 : 4;
        Op **ops = ARENA_ARRAY(arena, Op *, cap);
        if (u->count)
            memcpy(ops, u->ops, sizeof(Op *) * (size_t)u->count);
        u->ops = ops;
        u->cap = cap;
    }
    u->ops[u->count++] = op;
}

static void add_use(PropagationState *st, const Value *v, Op *op)
{
    use_list_add(&st->work, &st->uses[v->id], op);
}

void prop_state_init(PropagationState *st, Module *m, const PropagateOptions *options)
{
    memset(st, 0, sizeof *st);
    st->module = m;
    st->options = options;
    arena_init(&st->scratch);
    arena_init(&st->work);
    arena_init(&st->tables);
    rule_cache_init(&st->rule_cache);
    st->errors_before = options->diag->errors;
    st->origins = options->origins ? options->origins : &st->own_origins;
    /* Origins are read by --explain only: without it the table (two
     * pointers per value, in the module's arena) is never made. */
    if (options->explain)
        origins_init(st->origins, &m->arena, m->num_values);
}

void prop_state_free(PropagationState *st)
{
    arena_free(&st->scratch);
    arena_free(&st->work);
    arena_free(&st->tables);
    rule_cache_free(&st->rule_cache);
}

/* Side tables by Op.id and Value.id, sized by the module's current counts.
 * They are made (zeroed) once, not per function: zeroing module-sized
 * tables for every function made propagation quadratic in the number of
 * functions (issue 21); clear_func_entries clears a function's own
 * entries instead. True if the tables are new, i.e. all clear. */
static bool size_tables(PropagationState *st)
{
    Module *m = st->module;
    st->queue_head = st->queue_count = 0;
    if (st->rules && m->num_ops < st->table_ops && m->num_values < st->table_values)
        return false;
    arena_reset(&st->tables);
    st->table_ops = m->num_ops + 1;
    st->table_values = m->num_values + 1;
    st->rules = ARENA_ARRAY(&st->tables, const OpShardingRule *, st->table_ops);
    st->rule_known = ARENA_ARRAY(&st->tables, bool, st->table_ops);
    st->visits = ARENA_ARRAY(&st->tables, struct VisitMemo *, st->table_ops);
    st->queued = ARENA_ARRAY(&st->tables, bool, st->table_ops);
    st->sweep = ARENA_ARRAY_UNINIT(&st->tables, Op *, st->table_ops);
    st->sweep_ids = ARENA_ARRAY_UNINIT(&st->tables, int, st->table_ops);
    st->sweep_pos = ARENA_ARRAY(&st->tables, int, st->table_ops);
    st->phase_opens = ARENA_ARRAY(&st->tables, unsigned char, st->table_ops);
    st->pass_through = ARENA_ARRAY(&st->tables, unsigned char, st->table_ops);
    st->uses = ARENA_ARRAY(&st->tables, UseList, st->table_values);
    st->user = ARENA_ARRAY(&st->tables, Sharding *, st->table_values);
    /* an op is queued at most once at a time: no more entries than ops */
    st->queue_cap = st->table_ops;
    st->queue = ARENA_ARRAY_UNINIT(&st->tables, Op *, st->queue_cap);
    return true;
}

static bool clear_op_entries(Op *op, void *user)
{
    PropagationState *st = user;
    st->rules[op->id] = NULL;
    st->rule_known[op->id] = false;
    st->visits[op->id] = NULL;
    st->queued[op->id] = false;
    st->phase_opens[op->id] = 0;
    st->pass_through[op->id] = 0;
    return true;
}

/* The use lists pointed into `work`, which has been reset since. */
static bool clear_value_entries(Value *v, void *user)
{
    PropagationState *st = user;
    st->uses[v->id] = (UseList){0};
    st->user[v->id] = NULL;
    return true;
}

/* Every table entry f's propagation reads: those of its own ops and values
 * (an earlier function's left-overs are never read). */
static void clear_func_entries(PropagationState *st, Func *f)
{
    ir_walk(f->body, &(IrWalker){.pre = clear_op_entries, .value = clear_value_entries, .user = st});
}

const OpShardingRule *prop_state_rule(PropagationState *st, const Op *op)
{
    if (!st->rule_known[op->id]) {
        st->rules[op->id] = rule_cache_get(&st->rule_cache, &st->work, st->options->diag, op);
        st->rule_known[op->id] = true;
    }
    return st->rules[op->id];
}

/* The inputs of an op's last visit, in `work` (as the op's rule). */
typedef struct VisitMemo {
    int round;
    bool changed_nothing;
    bool agreed;        /* the shardings agreed on every factor */
    Sharding **shardings;
    PropagationDirection *dirs;
} VisitMemo;

bool prop_visit_settled(const PropagationState *st, const Op *op)
{
    const VisitMemo *m = st->visits[op->id];
    if (!m || !m->agreed)
        return false;
    for (int i = 0; i < op->num_operands; i++)
        if (m->shardings[i] != op->operands[i]->sharding)
            return false;
    for (int i = 0; i < op->num_results; i++)
        if (m->shardings[op->num_operands + i] != op->results[i]->sharding)
            return false;
    return true;
}

bool prop_visit_repeats(const PropagationState *st, const Op *op, Sharding *const *shardings, int count,
                        const PropagationDirection *dirs, int num_factors)
{
    const VisitMemo *m = st->visits[op->id];
    if (!m || !m->changed_nothing || m->round != st->round)
        return false;
    for (int t = 0; t < count; t++)
        if (m->shardings[t] != shardings[t])
            return false;
    for (int f = 0; f < num_factors; f++)
        if (m->dirs[f] != dirs[f])
            return false;
    return true;
}

/* op's memo, made on its first visit */
static VisitMemo *visit_memo(PropagationState *st, const Op *op, int count, int num_factors)
{
    VisitMemo *m = st->visits[op->id];
    if (!m) {
        m = ARENA_NEW(&st->work, VisitMemo);
        m->shardings = ARENA_ARRAY_UNINIT(&st->work, Sharding *, count);
        m->dirs = ARENA_ARRAY_UNINIT(&st->work, PropagationDirection, num_factors + 1);
        st->visits[op->id] = m;
    }
    return m;
}

void prop_visit_remember(PropagationState *st, const Op *op, Value *const *values, Sharding *const *shardings,
                         int count, const PropagationDirection *dirs, int num_factors, bool agreed)
{
    VisitMemo *m = visit_memo(st, op, count, num_factors);
    m->round = st->round;
    m->agreed = agreed;
    m->changed_nothing = true;
    for (int t = 0; t < count; t++)
        m->changed_nothing &= values[t]->sharding == shardings[t];
    memcpy(m->shardings, shardings, sizeof *shardings * (size_t)count);
    memcpy(m->dirs, dirs, sizeof *dirs * (size_t)num_factors);
}

void prop_visit_replayed(PropagationState *st, const Op *op, Sharding *const *shardings, int count, int num_factors,
                         bool agreed)
{
    VisitMemo *m = visit_memo(st, op, count, num_factors);
    m->agreed = agreed;
    m->changed_nothing = false;
    memcpy(m->shardings, shardings, sizeof *shardings * (size_t)count);
}

/* Ops of a shard_map body (manual over every axis) are not propagated. */
static bool propagated_op(const Op *op)
{
    for (const Block *b = op->parent; b->parent_op; b = b->parent_op->parent)
        if (!prop_edge_owner(b))
            return false;
    return true;
}

/* An op the sweep has yet to reach is visited there; one behind it joins
 * the ring. */
void prop_worklist_push(PropagationState *st, Op *op)
{
    if (!op || st->queued[op->id] || !propagated_op(op))
        return;
    st->queued[op->id] = true;
    int pos = st->sweep_pos[op->id];
    if (pos >= st->sweep_next && pos < st->sweep_count && st->sweep[pos] == op)
        return;
    st->queue[(st->queue_head + st->queue_count++) % st->queue_cap] = op;
}

/* The ring is empty when a phase starts: each phase runs it dry. */
void prop_worklist_begin_sweep(PropagationState *st, int phase)
{
    st->sweep_next = 0;
    st->sweep_phase = phase;
}

Op *prop_worklist_pop(PropagationState *st)
{
    while (st->sweep_next < st->sweep_count) {
        int pos = st->sweep_next++, id = st->sweep_ids[pos];
        if (st->queued[id] || prop_phase_opens(st, pos, st->sweep_phase)) {
            st->queued[id] = false;
            return st->sweep[pos];
        }
    }
    if (st->queue_count == 0)
        return NULL;
    Op *op = st->queue[st->queue_head];
    st->queue_head = (st->queue_head + 1) % st->queue_cap;
    st->queue_count--;
    st->queued[op->id] = false;
    return op;
}

void prop_sweep_add(PropagationState *st, Op *op)
{
    if (propagated_op(op)) {
        st->sweep_pos[op->id] = st->sweep_count;
        st->sweep_ids[st->sweep_count] = op->id;
        st->sweep[st->sweep_count++] = op;
    }
}

static const DimFactors *dim_factors(const ShardingProjection *p, int t, int d)
{
    const OpShardingRule *r = p->rule;
    return t < p->num_operands ? &r->operands[t].dims[d] : &r->results[t - p->num_operands].dims[d];
}

/* The tensor that held the most axes, before this step, for the factors of
 * dim d of tensor t: the source recorded for --explain. */
static int origin_tensor(const ShardingProjection *before, int t, int d)
{
    const DimFactors *df = dim_factors(before, t, d);
    int best = -1, best_axes = 0;
    for (int u = 0; u < before->num_tensors; u++) {
        int axes = 0;
        for (int k = 0; u != t && k < df->count; k++)
            if (before->tensors[u].factors[df->factors[k]].present)
                axes += before->tensors[u].factors[df->factors[k]].axes.count;
        if (axes > best_axes) {
            best = u;
            best_axes = axes;
        }
    }
    return best;
}

/* The dim of tensor u holding the first sharded factor of dim d of tensor t:
 * where the explanation continues (dims change index through most ops). */
static int origin_dim(const ShardingProjection *before, int u, int t, int d)
{
    const DimFactors *df = dim_factors(before, t, d);
    const TensorFactors *tf = u < before->num_operands ? &before->rule->operands[u]
                                                       : &before->rule->results[u - before->num_operands];
    for (int k = 0; k < df->count; k++) {
        if (!before->tensors[u].factors[df->factors[k]].axes.count)
            continue;
        for (int e = 0; e < tf->rank; e++)
            for (int j = 0; j < tf->dims[e].count; j++)
                if (tf->dims[e].factors[j] == df->factors[k])
                    return e;
    }
    return 0;
}

void prop_queue_neighbours(PropagationState *st, Value *v)
{
    prop_worklist_push(st, v->def ? v->def : prop_edge_owner(v->block));
    for (int i = 0; i < st->uses[v->id].count; i++)
        prop_worklist_push(st, st->uses[v->id].ops[i]);
}

/* v takes interned sharding s; the ops that see v are queued. */
static void install_sharding(PropagationState *st, Value *v, Sharding *s)
{
    v->sharding = s;
    prop_queue_neighbours(st, v);
    prop_groups_sync(st, v);
}

void prop_state_replay_value(PropagationState *st, Value *v, Sharding *interned)
{
    Sharding *s = prop_manual_result_sharding(&st->module->arena, v, interned);
    if (sharding_equal(v->sharding, s) || v->type.dtype == DT_TOKEN)
        return;
    install_sharding(st, v, s == interned ? s : module_intern_sharding(st->module, s));
}

void prop_state_update_value(PropagationState *st, Value *v, Sharding *s, const ShardingProjection *before, int tensor,
                        Value *const *values, Sharding *const *shardings, const Op *via)
{
    s = prop_manual_result_sharding(&st->module->arena, v, s);
    if (sharding_equal(v->sharding, s) || v->type.dtype == DT_TOKEN) /* Shardy skips tokens */
        return;
    /* Origins are only read by --explain: recording them took a tenth of
     * propagation's memory. */
    DimOrigin *origins = before ? origins_of(st->origins, &st->module->arena, v) : NULL;
    for (int d = 0; origins && d < v->type.rank; d++) {
        int old_axes = v->sharding ? v->sharding->dims[d].num_axes : 0;
        int source = s->dims[d].num_axes > old_axes ? origin_tensor(before, tensor, d) : -1;
        if (source < 0)
            continue;
        /* A virtual source (NULL value) is a fixed spec: remember where. */
        Loc loc = values[source] ? (Loc){0} : shardings[source]->loc;
        origins[d] = (DimOrigin){values[source], via, origin_dim(before, source, tensor, d), loc};
    }
    install_sharding(st, v, module_intern_sharding(st->module, s)); /* s may be scratch (propagate_along) */
}

static bool add_operand_uses(Op *op, void *st)
{
    for (int i = 0; i < op->num_operands; i++)
        add_use(st, op->operands[i], op);
    return true;
}

static bool add_return_uses(Block *b, void *st)
{
    for (int i = 0; i < b->num_returns; i++)
        add_use(st, b->returns[i], prop_edge_owner(b));
    return true;
}

void prop_state_prepare_func(PropagationState *st, Func *f)
{
    /* Everything in `work` belongs to one function; kept, the tables of a
     * module of many functions took num_funcs * num_values memory. */
    arena_reset(&st->work);
    st->outcomes = (VisitOutcomes){0};
    if (!size_tables(st))
        clear_func_entries(st, f);
    ir_walk(f->body, &(IrWalker){.pre = add_operand_uses, .leave = add_return_uses, .user = st});
    st->sweep_count = st->sweep_next = 0; /* filled with the user's shardings (propagate.c) */
}

/* A call of f: the call feeds each of f's arguments. */
static bool note_call(Op *op, void *user)
{
    PropagationState *st = user;
    Func *f = op->kind == OP_CALL && op->callee ? module_find_func(st->module, op->callee) : NULL;
    for (int i = 0; f && i < f->body->num_args && i < op->num_operands; i++)
        use_list_add(&st->work, &st->callers[f->body->args[i]->id], op);
    return true;
}

/* What feeds a func_data_flow_edge from another function (a call's
 * operand, for an edge on an argument; the callee's returned value, for
 * an edge on a call result) uses the edge: a change there queues it. */
static bool add_func_edge_uses(Op *op, void *user)
{
    PropagationState *st = user;
    if (op->kind != OP_FUNC_DATA_FLOW_EDGE || op->num_operands != 1)
        return true;
    const Value *v = op->operands[0];
    if (!v->def) {
        const UseList *calls = &st->callers[v->id];
        for (int i = 0; i < calls->count; i++)
            if (v->index < calls->ops[i]->num_operands)
                add_use(st, calls->ops[i]->operands[v->index], op);
    } else if (v->def->kind == OP_CALL && v->def->callee) {
        const Func *f = module_find_func(st->module, v->def->callee);
        if (f && v->index < f->body->num_returns)
            add_use(st, f->body->returns[v->index], op);
    }
    return true;
}

void prop_state_prepare_module(PropagationState *st)
{
    arena_reset(&st->work);
    st->outcomes = (VisitOutcomes){0};
    Module *m = st->module;
    st->rules = NULL; /* fresh tables: every function's entries are read */
    size_tables(st);
    st->module_wide = true;
    st->callers = ARENA_ARRAY(&st->work, UseList, m->num_values + 1);
    for (int i = 0; i < m->num_funcs; i++) {
        ir_walk(m->funcs[i]->body, &(IrWalker){.pre = add_operand_uses, .leave = add_return_uses, .user = st});
        ir_walk(m->funcs[i]->body, &(IrWalker){.pre = note_call, .user = st});
    }
    for (int i = 0; i < m->num_funcs; i++)
        ir_walk(m->funcs[i]->body, &(IrWalker){.pre = add_func_edge_uses, .user = st});
    st->sweep_count = st->sweep_next = 0; /* filled with the user's shardings (propagate.c) */
}
