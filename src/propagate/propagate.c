/* Propagation driver: Shardy-style factor propagation to a fixed point.
 *
 * Rounds go by user priority (p0 first, unprioritised dims last); within a
 * round, the five op-priority phases of Shardy's op-priority propagation,
 * each adding to the one before: (0) pass-through ops (elementwise,
 * reshape, transpose, sharding ops, data-flow edges, host-offload calls)
 * none of whose non-scalar operands has another use, and dynamic slices of
 * such operands forwards only; (1) those ops whatever the uses; (2) the
 * pass-through factors of every op, broadcasts only backwards; (3) every
 * factor, broadcasts still only backwards; (4) everything. Each phase runs
 * a worklist of ops until no sharding changes. */
#include <stdlib.h>
#include <string.h>
#include "propagate/propagation_state.h"

enum { PHASE_SINGLE_USE, PHASE_MULTI_USE, PHASE_PASS_THROUGH, PHASE_NO_BROADCAST_FORWARD, PHASE_ALL, NUM_PHASES };
enum { PASS_THROUGH_KNOWN = 1 << 4 };

/* Shardy's pointwise host-offload custom calls. */
static bool is_offload_call(const Op *op)
{
    return op->kind == OP_CUSTOM && op->callee &&
           (strcmp(op->callee, "MoveToHost") == 0 || strcmp(op->callee, "MoveToDevice") == 0);
}

/* Phases 0 and 1 ops. sharding_constraint and reshard are elementwise too
 * (as in Shardy), so a constraint reaches its elementwise neighbours
 * before any dot does. */
static bool is_pass_through_op(const Op *op)
{
    switch (op_info(op->kind)->op_class) {
    case OPC_UNARY: case OPC_UNARY_FLOAT: case OPC_CONVERT: case OPC_BINARY: case OPC_COMPARE:
    case OPC_SELECT: case OPC_CLAMP: case OPC_RESHAPE: case OPC_TRANSPOSE: case OPC_SHARDING: case OPC_BARRIER:
    case OPC_DATA_FLOW_EDGE:
    case OPC_WHILE: case OPC_CASE: case OPC_OPT_BARRIER: case OPC_NAMED: /* data-flow edges, as in Shardy */
        return true;
    default:
        return is_offload_call(op);
    }
}

/* Whether a non-scalar operand of op has another use (Shardy's
 * getDirectionBasedOnUses: propagating then would conflict with it). */
static bool operand_shared(const PropagationState *st, const Op *op)
{
    for (int i = 0; i < op->num_operands; i++) {
        const Value *v = op->operands[i];
        if (v->type.rank > 0 && st->uses[v->id].count > 1)
            return true;
    }
    return false;
}

/* Phases 0 and 1: pass-through ops both ways, dynamic slices forwards;
 * in phase 0 only where no operand is shared. */
static PropagationDirection op_pass_through_direction(const PropagationState *st, const Op *op, int phase)
{
    bool slice = op->kind == OP_DYNAMIC_SLICE || op->kind == OP_DYNAMIC_UPDATE_SLICE;
    if (!slice && !is_pass_through_op(op))
        return DIR_NONE;
    if (phase == PHASE_SINGLE_USE && operand_shared(st, op))
        return DIR_NONE;
    return slice ? DIR_FORWARD : DIR_BOTH;
}

/* The same, worked out once per op: every phase asks for it, and the
 * phase's sweep for most ops (prop_phase_opens). pass_through[op->id]
 * holds phase 0's direction in bits 0-1, the later phases' in bits 2-3. */
static PropagationDirection pass_through_direction(PropagationState *st, const Op *op, int phase)
{
    unsigned char *memo = &st->pass_through[op->id];
    if (!*memo)
        *memo = (unsigned char)(PASS_THROUGH_KNOWN | op_pass_through_direction(st, op, PHASE_SINGLE_USE) |
                                op_pass_through_direction(st, op, PHASE_MULTI_USE) << 2);
    return (PropagationDirection)((phase == PHASE_SINGLE_USE ? *memo : *memo >> 2) & 3);
}

/* A propagation_barrier lets shardings through only as it says. */
static PropagationDirection barrier_direction(const Op *op)
{
    int mask = op_barrier_directions(op);
    return mask < 0 ? DIR_NONE : (PropagationDirection)mask; /* DIR_FORWARD = 1, DIR_BACKWARD = 2 */
}

/* What a phase lets through an op: `barrier` for every factor of a
 * propagation_barrier; else `base` for every factor that is not blocked,
 * plus `extra` for those the phase opens. */
typedef struct PhaseDirection {
    bool is_barrier;
    PropagationDirection barrier, base, extra;
} PhaseDirection;

/* The part of a factor's direction that depends on the op only: computed
 * once per visit, not per factor (every op is visited in every phase). */
static PhaseDirection op_phase_direction(PropagationState *st, const Op *op, int phase)
{
    if (op && op->kind == OP_PROPAGATION_BARRIER)
        return (PhaseDirection){true, barrier_direction(op), DIR_NONE, DIR_NONE};
    if (phase >= PHASE_ALL || !op)
        return (PhaseDirection){false, DIR_NONE, DIR_BOTH, DIR_NONE};
    return (PhaseDirection){false, DIR_NONE,
                            pass_through_direction(st, op, phase < PHASE_MULTI_USE ? phase : PHASE_MULTI_USE),
                            op->kind == OP_BROADCAST ? DIR_BACKWARD : DIR_BOTH};
}

/* A factor's direction under pd when nothing blocks it. */
static PropagationDirection open_factor_direction(const PhaseDirection *pd, bool pass_through, int phase)
{
    PropagationDirection dir = pd->base;
    if (phase >= PHASE_PASS_THROUGH && (phase >= PHASE_NO_BROADCAST_FORWARD || pass_through))
        dir |= pd->extra;
    return dir;
}

static PropagationDirection phase_direction(const PhaseDirection *pd, const OpShardingRule *rule, int f, int phase)
{
    if (pd->is_barrier)
        return pd->barrier;
    if (rule->blocked && rule->blocked[f])
        return DIR_NONE;
    return open_factor_direction(pd, rule->factors[f].kind == FACTOR_PASS_THROUGH, phase);
}

/* Each factor's direction in this phase; false if none may propagate (the
 * op is skipped: most ops wait for a later phase). */
static bool phase_directions(PropagationState *st, const Op *op, const OpShardingRule *rule, int phase,
                             PropagationDirection *dirs)
{
    PhaseDirection pd = op_phase_direction(st, op, phase);
    bool any = false;
    for (int f = 0; f < rule->num_factors; f++) {
        dirs[f] = phase_direction(&pd, rule, f, phase);
        any |= dirs[f] != DIR_NONE;
    }
    return any;
}

/* Ops propagate_op hands to the code of their data-flow edges or specs. */
static bool has_own_visit(const Op *op)
{
    switch (op->kind) {
    case OP_SHARD_MAP: case OP_DATA_FLOW_EDGE: case OP_FUNC_DATA_FLOW_EDGE: case OP_WHILE: case OP_CASE:
    case OP_OPTIMIZATION_BARRIER: case OP_NAMED_COMPUTATION:
        return true;
    default:
        return false;
    }
}

enum { PHASE_OPENS_KNOWN = 1 << NUM_PHASES };

/* Bit p set if some factor of op has another direction in phase p than in
 * phase p - 1: only the factors' kinds (pass-through or not) tell them
 * apart; blocked factors and barriers have the same in every phase. The
 * op's part of the direction is that of phase 0, of phase 1 (the same
 * until PHASE_ALL) or of PHASE_ALL. */
static unsigned phase_opens_mask(PropagationState *st, const Op *op)
{
    const OpShardingRule *rule = prop_state_rule(st, op);
    bool kinds[2] = {false, false}; /* [pass_through]: some open factor of that kind */
    for (int f = 0; rule && f < rule->num_factors; f++)
        if (!rule->blocked || !rule->blocked[f])
            kinds[rule->factors[f].kind == FACTOR_PASS_THROUGH] = true;
    unsigned mask = PHASE_OPENS_KNOWN;
    PhaseDirection first = op_phase_direction(st, op, PHASE_SINGLE_USE);
    if (!rule || first.is_barrier)
        return mask;
    PhaseDirection middle = op_phase_direction(st, op, PHASE_MULTI_USE), all = op_phase_direction(st, op, PHASE_ALL);
    for (int phase = 1; phase < NUM_PHASES; phase++) {
        const PhaseDirection *before = phase == 1 ? &first : &middle, *now = phase < PHASE_ALL ? &middle : &all;
        for (int k = 0; k < 2; k++)
            if (kinds[k] && open_factor_direction(now, k, phase) != open_factor_direction(before, k, phase - 1))
                mask |= 1u << phase;
    }
    return mask;
}

/* ... every phase for ops with a visit of their own. */
static unsigned char phase_opens_memo(PropagationState *st, const Op *op)
{
    unsigned char *memo = &st->phase_opens[op->id];
    if (!*memo)
        *memo = (unsigned char)(has_own_visit(op) ? PHASE_OPENS_KNOWN | (PHASE_OPENS_KNOWN - 1)
                                                  : phase_opens_mask(st, op));
    return *memo;
}

/* The op at sweep_pos is read only the first time: passing it by, the
 * sweep reads no op. */
bool prop_phase_opens(PropagationState *st, int sweep_pos, int phase)
{
    unsigned char memo = st->phase_opens[st->sweep_ids[sweep_pos]];
    return phase == 0 || (memo ? memo : phase_opens_memo(st, st->sweep[sweep_pos])) >> phase & 1;
}

/* The mesh all of the op's shardings agree on (by value; shardings on the
 * empty placeholder mesh agree with any); NULL if none or mixed, and then
 * nothing propagates through the op, as in Shardy. */
static const Mesh *op_mesh(Sharding *const *shardings, int count)
{
    const Mesh *mesh = NULL, *empty = NULL;
    for (int t = 0; t < count; t++) {
        const Mesh *m = shardings[t] ? shardings[t]->mesh : NULL;
        if (!m || m == mesh) /* most tensors: the mesh of the one before */
            continue;
        if (mesh_is_empty(m))
            empty = m;
        else if (mesh && !mesh_equal(m, mesh))
            return NULL;
        else if (!mesh)
            mesh = m;
    }
    return mesh ? mesh : empty;
}

/* Shardy's isElementwise: elementwise ops and the sharding ops. */
static bool op_is_elementwise(const Op *op)
{
    switch (op_info(op->kind)->op_class) {
    case OPC_UNARY: case OPC_UNARY_FLOAT: case OPC_CONVERT: case OPC_BINARY:
    case OPC_COMPARE: case OPC_SELECT: case OPC_CLAMP: case OPC_SHARDING:
        return true;
    default:
        return false;
    }
}

/* Run one op's factor propagation over `values` (operands then results)
 * under `rule`; updated values are pushed to the worklist. */
void propagate_tensors(PropagationState *st, const Op *op, const OpShardingRule *rule, Value **values,
                       Sharding **shardings, int num_operands, int count, int phase)
{
    propagate_tensors_out(st, op, rule, values, shardings, num_operands, count, phase, NULL);
}

/* The same; with `out`, each virtual tensor (NULL value) that changed
 * gets its new sharding there (and the others NULL). */
static bool propagate_along(PropagationState *st, const Op *op, const OpShardingRule *rule, const Mesh *mesh,
                            const PropagationDirection *dirs, Value **values, Sharding **shardings,
                            int num_operands, int count, Sharding **out, Sharding **made);

void propagate_tensors_out(PropagationState *st, const Op *op, const OpShardingRule *rule, Value **values,
                           Sharding **shardings, int num_operands, int count, int phase, Sharding **out)
{
    for (int t = 0; out && t < count; t++)
        out[t] = NULL;
    const Mesh *mesh = op_mesh(shardings, count);
    PropagationDirection dirs[rule->num_factors + 1];
    if (mesh && phase_directions(st, op, rule, phase, dirs))
        propagate_along(st, op, rule, mesh, dirs, values, shardings, num_operands, count, out, NULL);
}

/* propagate_tensors_out once the mesh and the directions are known.
 * True if the shardings agreed on every factor, so that nothing could
 * change (whatever the directions). With `made`, each value's new
 * sharding, interned, goes there (NULL for those that did not change). */
static bool propagate_along(PropagationState *st, const Op *op, const OpShardingRule *rule, const Mesh *mesh,
                            const PropagationDirection *dirs, Value **values, Sharding **shardings,
                            int num_operands, int count, Sharding **out, Sharding **made)
{
    for (int t = 0; made && t < count; t++)
        made[t] = NULL;
    /* Most visits find the op's shardings in agreement already: nothing
     * to add, and no projection to build to find that out. */
    if (projection_agrees(rule, shardings, num_operands, count))
        return true;
    const TensorType *types[count];
    bool updated[count], any_update = false;
    for (int t = 0; t < count; t++) { /* a virtual tensor (NULL) shares tensor 0's type */
        types[t] = &(values[t] ? values[t] : values[0])->type;
        updated[t] = false;
    }
    ShardingProjection p, before;
    arena_reset(&st->scratch);
    projection_build(&p, &st->scratch, rule, mesh, shardings, types, num_operands, count);
    p.conservative = st->options->conservative;
    factor_propagate(&p, st->options->mode, dirs, op && op_is_elementwise(op), updated, &st->scratch);
    for (int t = 0; t < count; t++) {
        any_update |= updated[t] && values[t];
        if (out && updated[t] && !values[t])
            out[t] = projection_to_sharding(&p, t, shardings[t], &st->module->arena);
    }
    if (!any_update)
        return false;
    /* Most visits change nothing: the state before, for --explain, is
     * rebuilt from the unchanged shardings only when something did (and
     * only for --explain, the only reader of origins). */
    if (st->options->explain)
        projection_build(&before, &st->scratch, rule, mesh, shardings, types, num_operands, count);
    for (int t = 0; t < count; t++) {
        if (!updated[t] || !values[t])
            continue;
        Sharding *s = projection_to_sharding(&p, t, shardings[t], &st->scratch);
        if (made)
            s = made[t] = module_intern_sharding(st->module, s);
        prop_state_update_value(st, values[t], s, st->options->explain ? &before : NULL, t, values, shardings, op);
    }
    return false;
}

/* What finds an op visit's outcome among earlier ones (outcomes.c). */
typedef struct OutcomeKey {
    uint64_t hash;
    unsigned directions;
    bool elementwise;
} OutcomeKey;

/* With the rule, every factor's direction in `phase` follows from the
 * phase, the op's pass-through directions and whether it is a broadcast
 * (op_phase_direction); a barrier's follow from its attribute, and
 * --explain records origins from the projection: false for those, which
 * are visited in full. */
static bool outcome_key(PropagationState *st, const Op *op, const OpShardingRule *rule, Sharding *const *shardings,
                        int count, int phase, OutcomeKey *key)
{
    if (st->options->explain || op->kind == OP_PROPAGATION_BARRIER)
        return false;
    pass_through_direction(st, op, phase); /* known from here on */
    key->directions = (unsigned)phase | (unsigned)st->pass_through[op->id] << 3 | (op->kind == OP_BROADCAST) << 8;
    key->elementwise = op_is_elementwise(op);
    key->hash = prop_outcome_hash(rule, shardings, count, key->directions, key->elementwise);
    return true;
}

/* Do what the visit that recorded outcome o did. */
static void replay_outcome(PropagationState *st, const VisitOutcome *o, Value **values, int count)
{
    for (int t = 0; t < count; t++)
        if (prop_outcome_sharding(o, t))
            prop_state_replay_value(st, values[t], prop_outcome_sharding(o, t));
}

/* propagate_along for an op's own tensors under its phase's directions;
 * the outcome is recorded under `key` if there is one. */
static void visit_in_full(PropagationState *st, Op *op, const OpShardingRule *rule, Value **values,
                          Sharding **shardings, int count, int phase, const OutcomeKey *key)
{
    PropagationDirection dirs[rule->num_factors + 1];
    Sharding *made[count];
    const Mesh *mesh = NULL;
    /* Most ops wait for a later phase (no direction). */
    if (!phase_directions(st, op, rule, phase, dirs) || !(mesh = op_mesh(shardings, count))) {
        if (key) /* nothing to do, for every op with these inputs */
            prop_outcome_add(st, key->hash, rule, shardings, count, key->directions, key->elementwise, false, NULL);
        return;
    }
    if (prop_visit_repeats(st, op, shardings, count, dirs, rule->num_factors))
        return;
    bool agreed = propagate_along(st, op, rule, mesh, dirs, values, shardings, op->num_operands, count, NULL,
                                  key ? made : NULL);
    if (key)
        prop_outcome_add(st, key->hash, rule, shardings, count, key->directions, key->elementwise, agreed, made);
    prop_visit_remember(st, op, values, shardings, count, dirs, rule->num_factors, agreed);
}

/* An op's visit: its outcome replayed if an op alike had the same inputs
 * before (a model repeats its layers), else worked out in full. */
static void visit_op(PropagationState *st, Op *op, const OpShardingRule *rule, int phase)
{
    int count = op->num_operands + op->num_results;
    Value *values[count];
    Sharding *shardings[count];
    for (int i = 0; i < op->num_operands; i++)
        values[i] = op->operands[i];
    for (int i = 0; i < op->num_results; i++)
        values[op->num_operands + i] = op->results[i];
    for (int t = 0; t < count; t++)
        shardings[t] = values[t]->sharding;
    OutcomeKey key;
    bool keyed = outcome_key(st, op, rule, shardings, count, phase, &key);
    const VisitOutcome *o =
        keyed ? prop_outcome_find(st, key.hash, rule, shardings, count, key.directions, key.elementwise) : NULL;
    if (!o) {
        visit_in_full(st, op, rule, values, shardings, count, phase, keyed ? &key : NULL);
        return;
    }
    replay_outcome(st, o, values, count);
    prop_visit_replayed(st, op, shardings, count, rule->num_factors, prop_outcome_agreed(o));
}

/* The visit of an op has_own_visit names; false if it has none after all
 * (an sdy.data_flow_edge outside a partial-manual shard_map). */
static bool visit_edges(PropagationState *st, Op *op, int phase)
{
    Op *owner = op_is_partial_manual(op) ? op : prop_manual_edge_owner(op);
    if (owner) {
        prop_manual_edges(st, owner, PHASE_ALL);
        return true;
    }
    if (op->kind == OP_SHARD_MAP) {
        propagate_shard_map_operands(st, op, phase);
        return true;
    }
    return prop_data_flow_edges(st, op, phase);
}

static void propagate_op(PropagationState *st, Op *op, int phase)
{
    if (has_own_visit(op) && visit_edges(st, op, phase))
        return;
    const OpShardingRule *rule = prop_state_rule(st, op);
    /* Most ops were visited before with the same shardings, which agreed. */
    if (rule && !prop_visit_settled(st, op))
        visit_op(st, op, rule, phase);
}

/* Module-wide, as in Shardy's propagateFuncResults, only the entry's
 * results meet their returned values (the only function, or @main; every
 * function when there is no @main): the others' results are their
 * callers' business, through the edges on call results. */
static bool results_propagate(const Module *m, const Func *f)
{
    const Func *entry = module_entry_func(m);
    return !entry || f == entry;
}

/* Function results are no ops: they are applied whenever the worklist
 * runs dry, until they change nothing. Module-wide, every function's ops
 * take part. */
static void run_phase(PropagationState *st, Func *f, int phase)
{
    Module *m = st->module;
    int first = st->module_wide ? 0 : -1, last = st->module_wide ? m->num_funcs : 0;
    prop_worklist_begin_sweep(st, phase);
    do {
        Op *op;
        while ((op = prop_worklist_pop(st)))
            propagate_op(st, op, phase);
        for (int i = first; i < last; i++)
            if (i < 0 || results_propagate(m, m->funcs[i]))
                propagate_func_results(st, i < 0 ? f : m->funcs[i]);
    } while (st->queue_count > 0);
}

static void run_rounds(PropagationState *st, Func *f)
{
    for (int round = 0; round < st->num_rounds; round++) {
        prop_state_begin_round(st, round);
        for (int phase = 0; phase < NUM_PHASES; phase++)
            run_phase(st, f, phase);
    }
}

static void begin_module(PropagationState *st);

/* Shardy's func_data_flow_edge ops (its dedup-functions-fully pipeline)
 * join the functions: they are propagated together, as Shardy's greedy
 * rewriter runs over the whole module. */
static void propagate_funcs_together(PropagationState *st, Module *m)
{
    begin_module(st);
    run_rounds(st, NULL);
    for (int i = 0; i < m->num_funcs; i++) {
        st->func = m->funcs[i];
        st->func_mesh = func_first_mesh(m->funcs[i]);
        prop_state_finish_func(st, m->funcs[i]);
    }
}

bool propagate_module(Module *m, const PropagateOptions *options)
{
    PropagationState st;
    if (!options->skip_apply_constraints && !propagate_apply_constraints(m))
        return false;
    prop_state_init(&st, m, options);
    propagate_find_groups(&st.groups, m, &m->arena);
    if (!propagate_seed_groups(m, &st.groups, options->diag)) {
        prop_state_free(&st);
        return false;
    }
    if (m->ops_created[OP_FUNC_DATA_FLOW_EDGE] > 0) {
        propagate_funcs_together(&st, m);
    } else {
        for (int i = 0; i < m->num_funcs; i++) {
            prop_state_begin_func(&st, m->funcs[i]);
            run_rounds(&st, m->funcs[i]);
            prop_state_finish_func(&st, m->funcs[i]);
        }
    }
    bool ok = options->diag->errors == st.errors_before;
    prop_state_free(&st);
    return ok;
}

/* Propagation rounds: user priorities, shard_map boundaries, and closing
 * every sharding at the end. */

static int compare_ints(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

static void note_priorities(const Sharding *s, int *prios, int *count, int max)
{
    for (int d = 0; s && d < s->rank; d++) {
        int p = s->dims[d].priority;
        bool seen = p == PRIORITY_NONE;
        for (int i = 0; i < *count && !seen; i++)
            seen = prios[i] == p;
        if (!seen && *count < max)
            prios[(*count)++] = p;
    }
}

/* Dim d of v holds the user's axes: --explain ends there. A function
 * result's annotation is written on the result, not on v. */
static void note_user_origin(PropagationState *st, Value *v, const Sharding *user, int d)
{
    if (user->dims[d].num_axes && st->options->explain)
        origins_of(st->origins, &st->module->arena, v)[d] =
            (DimOrigin){v, NULL, d, user->loc.file ? user->loc : v->loc};
}

/* The user's shardings and the priorities they name. */
typedef struct UserShardings {
    PropagationState *st;
    int prios[64], count;
} UserShardings;

static bool remember_user(Value *v, void *user)
{
    UserShardings *u = user;
    if (!v->sharding)
        return true;
    u->st->user[v->id] = sharding_clone(&u->st->work, v->sharding);
    note_priorities(v->sharding, u->prios, &u->count, 64);
    for (int d = 0; d < v->type.rank; d++)
        note_user_origin(u->st, v, v->sharding, d);
    return true;
}

/* Results of a shard_map are laid out as its out_specs say. */
static void seed_shard_map_results(PropagationState *st, Op *op)
{
    const AttrValue *specs = op_attr_get(op, ATTR_KEY_OUT_SPECS);
    for (int i = 0; specs && i < op->num_results && i < specs->u.array.count; i++)
        if (!op->results[i]->sharding)
            op->results[i]->sharding = sharding_clone(&st->module->arena, specs->u.array.items[i]->u.sharding);
}

/* A shard_map result is laid out by its out_specs whatever the function
 * result says; the function result constrains it like a constraint. Its
 * results are seeded before remember_user sees them. */
static bool scan_op(Op *op, void *user)
{
    UserShardings *u = user;
    if (op->kind == OP_SHARD_MAP)
        seed_shard_map_results(u->st, op);
    prop_sweep_add(u->st, op);
    return true;
}

static bool dim_visible(const DimSharding *user_dim, int limit);

static bool all_dims_visible(const Sharding *s, int limit)
{
    for (int d = 0; d < s->rank; d++)
        if (!dim_visible(&s->dims[d], limit))
            return false;
    return true;
}

/* The dims of result annotation r the first round sees, the others open
 * and empty: what a returned value starts with when r has dims of later
 * priorities (those stay on the result, hidden until their round). */
static Sharding *first_round_part(PropagationState *st, const Sharding *r, Value *v)
{
    Sharding *s = sharding_clone(&st->module->arena, r);
    for (int d = 0; d < s->rank; d++) {
        if (!dim_visible(&r->dims[d], st->round_limits[0]))
            s->dims[d] = (DimSharding){0, NULL, false, PRIORITY_NONE};
        else if (s->dims[d].num_axes && st->options->explain)
            origins_of(st->origins, &st->module->arena, v)[d] = (DimOrigin){NULL, NULL, d, r->loc};
    }
    return s;
}

/* Function results' annotations constrain the returned values: a returned
 * value without a sharding starts with its result's annotation as its
 * own, or, when the annotation has dims of later priorities, with the
 * dims the first round sees (as in Shardy, the rest stays on the result
 * and meets the value at the return: propagate_func_results). */
/* Whether r says nothing but its mesh: every dim open and empty, no
 * replicated or unreduced axes. Seeding a value with it would only bind
 * the value to r's mesh, which stops propagation through the value's
 * definer when its operands are on another mesh; Shardy keeps such a
 * result apart (its returned value is not propagated across meshes). */
static bool says_only_mesh(const Sharding *r)
{
    for (int d = 0; d < r->rank; d++)
        if (r->dims[d].is_closed || r->dims[d].num_axes)
            return false;
    return !r->num_replicated && !r->num_unreduced;
}

static void seed_func_results(PropagationState *st, Func *f, UserShardings *u)
{
    for (int i = 0; i < f->num_results; i++) {
        Value *v = f->body->returns[i];
        const Sharding *r = f->result_shardings[i];
        if (!r || v->sharding || says_only_mesh(r) || !type_is_static(&v->type))
            continue;
        if (!all_dims_visible(r, st->round_limits[0])) {
            v->sharding = first_round_part(st, r, v);
            continue;
        }
        v->sharding = sharding_clone(&st->module->arena, r);
        remember_user(v, u);
    }
}

/* f's user shardings (st->user) and the priorities they name; f's ops
 * join the sweep. One walk: each is a cache miss per op on a large
 * module. (Propagation does not enter shard_map bodies.) */
static void collect_user_shardings(PropagationState *st, Func *f, UserShardings *u)
{
    st->func = f;
    for (int i = 0; i < f->num_results; i++)
        note_priorities(f->result_shardings[i], u->prios, &u->count, 64);
    ir_walk(f->body, &(IrWalker){.pre = scan_op, .value = remember_user, .user = u, .scope = IR_WALK_PROPAGATED});
    st->sweep_next = st->sweep_count; /* no sweep yet */
}

/* One round per user priority, in order, then the last that sees all. */
static void set_rounds(PropagationState *st, UserShardings *u)
{
    int count = u->count;
    qsort(u->prios, (size_t)count, sizeof(int), compare_ints);
    st->num_rounds = count + 1;
    st->round_limits = ARENA_ARRAY(&st->work, int, count + 1);
    memcpy(st->round_limits, u->prios, sizeof(int) * (size_t)count);
    st->round_limits[count] = -1; /* the last round sees every dim */
}

void prop_state_begin_func(PropagationState *st, Func *f)
{
    prop_state_prepare_func(st, f);
    UserShardings u = {.st = st};
    collect_user_shardings(st, f, &u);
    set_rounds(st, &u);
    seed_func_results(st, f, &u);
    st->func_mesh = func_first_mesh(f);
}

/* prop_state_begin_func for every function at once: the rounds are those
 * of every priority in the module. */
static void begin_module(PropagationState *st)
{
    Module *m = st->module;
    prop_state_prepare_module(st);
    UserShardings u = {.st = st};
    for (int i = 0; i < m->num_funcs; i++)
        collect_user_shardings(st, m->funcs[i], &u);
    set_rounds(st, &u);
    for (int i = 0; i < m->num_funcs; i++)
        seed_func_results(st, m->funcs[i], &u);
}

/* A user dim takes part in a round if its priority is within the round's
 * limit; dims without priority only in the last round. */
static bool dim_visible(const DimSharding *user_dim, int limit)
{
    return limit < 0 || (user_dim->priority != PRIORITY_NONE && user_dim->priority <= limit);
}

static bool axes_start_with(const DimSharding *dim, const DimSharding *prefix)
{
    if (dim->num_axes < prefix->num_axes)
        return false;
    for (int k = 0; k < prefix->num_axes; k++)
        if (!axis_ref_equal(dim->axes[k], prefix->axes[k]))
            return false;
    return true;
}

/* `current` with the user dims of `user` that `limit` hides hidden as Shardy's
 * user-priority propagation hides them: closed and empty, their axes
 * explicitly replicated on the value, so that nothing propagates into them
 * and no other dim of the value takes their axes before their round. */
static Sharding *hidden_sharding(Arena *arena, const Sharding *user, const Sharding *current, int limit)
{
    Sharding *s = sharding_clone(arena, current);
    int extra = 0;
    for (int d = 0; d < s->rank; d++)
        if (!dim_visible(&user->dims[d], limit))
            extra += user->dims[d].num_axes;
    AxisRef *replicated = ARENA_ARRAY(arena, AxisRef, user->num_replicated + extra + 1);
    if (user->num_replicated) /* NULL when there are none */
        memcpy(replicated, user->replicated, sizeof(AxisRef) * (size_t)user->num_replicated);
    s->replicated = replicated;
    s->num_replicated = user->num_replicated;
    for (int d = 0; d < s->rank; d++) {
        const DimSharding *u = &user->dims[d];
        if (dim_visible(u, limit))
            continue;
        for (int k = 0; k < u->num_axes; k++)
            replicated[s->num_replicated++] = u->axes[k];
        s->dims[d] = (DimSharding){0, NULL, true, PRIORITY_NONE};
    }
    return s;
}

/* Round 0 hides the user dims of later priorities; each later round gives
 * the dims it makes visible their user's axes back (nothing propagated into
 * them meanwhile) and drops those axes from the replicated set. */
static void apply_round(PropagationState *st, Value *v, int round)
{
    const Sharding *user = st->user[v->id];
    if (!user || !v->sharding)
        return;
    int limit = st->round_limits[round];
    Sharding *s = hidden_sharding(&st->module->arena, user, v->sharding, limit);
    for (int d = 0; round > 0 && d < s->rank; d++) {
        const DimSharding *u = &user->dims[d];
        if (dim_visible(u, limit) && !dim_visible(u, st->round_limits[round - 1])) {
            s->dims[d] = *u;
            note_user_origin(st, v, user, d);
        }
    }
    v->sharding = s;
}

typedef struct EachValue {
    PropagationState *st;
    void (*fn)(PropagationState *, Value *, int);
    int arg;
} EachValue;

static bool each_value(Value *v, void *user)
{
    EachValue *e = user;
    e->fn(e->st, v, e->arg);
    return true;
}

/* The function's values, not those of shard_map bodies (not propagated). */
static void for_each_value(PropagationState *st, Func *f, void (*fn)(PropagationState *, Value *, int), int arg)
{
    EachValue e = {st, fn, arg};
    ir_walk(f->body, &(IrWalker){.value = each_value, .user = &e, .scope = IR_WALK_PROPAGATED});
}

void prop_state_begin_round(PropagationState *st, int round)
{
    st->round = round;
    Module *m = st->module;
    for (int i = 0; st->num_rounds > 1 && i < (st->module_wide ? m->num_funcs : 1); i++)
        for_each_value(st, st->module_wide ? m->funcs[i] : st->func, apply_round, round);
}

/* A result annotation as the current round sees it: dims of a later
 * priority are hidden, as on values. */
static Sharding *visible_result(PropagationState *st, const Sharding *r)
{
    return hidden_sharding(&st->work, r, r, st->round_limits[st->round]);
}

void propagate_func_results(PropagationState *st, Func *f)
{
    for (int i = 0; i < f->num_results; i++) {
        Value *v = f->body->returns[i];
        /* dynamic shapes (`shardc opt`'s function boundaries) are skipped, as in Shardy's propagateFuncResults */
        if (!f->result_shardings[i] || !v->sharding || !type_is_static(&v->type))
            continue;
        const OpShardingRule *rule = prop_identity_rule(&st->work, &v->type, 2);
        Value *values[2] = {v, NULL};
        Sharding *shardings[2] = {v->sharding, visible_result(st, f->result_shardings[i])};
        propagate_tensors(st, NULL, rule, values, shardings, 1, 2, 2);
    }
}

/* Whether dim d of s uses an axis the annotation r says is replicated or
 * unreduced. */
static bool uses_replicated(const DimSharding *d, const Sharding *r)
{
    for (int a = 0; a < d->num_axes; a++) {
        for (int k = 0; k < r->num_replicated; k++)
            if (axis_ref_overlaps(d->axes[a], r->replicated[k]))
                return true;
        for (int k = 0; k < r->num_unreduced; k++)
            if (axis_ref_overlaps(d->axes[a], r->unreduced[k]))
                return true;
    }
    return false;
}

/* Whether v's sharding only appended axes to open dims of annotation r,
 * none of them an axis r keeps replicated. */
static bool extends_annotation(const Sharding *vs, const Sharding *r)
{
    if (!vs || vs->mesh != r->mesh)
        return false;
    for (int d = 0; d < r->rank; d++) {
        bool same = vs->dims[d].num_axes == r->dims[d].num_axes;
        if (!axes_start_with(&vs->dims[d], &r->dims[d]) || (r->dims[d].is_closed && !same) ||
            uses_replicated(&vs->dims[d], r))
            return false;
    }
    return true;
}

/* Whether axis a overlaps an axis of c on a dim other than `skip`. */
static bool used_elsewhere(const Sharding *c, int skip, AxisRef a)
{
    for (int d = 0; d < c->rank; d++)
        for (int k = 0; d != skip && k < c->dims[d].num_axes; k++)
            if (axis_ref_overlaps(c->dims[d].axes[k], a))
                return true;
    return false;
}

/* A value that does not extend the whole annotation still gives its open
 * dims what it extends them with, as Shardy's propagation to function
 * results does, unless an axis would then be used twice. */
static void extend_open_dims(Arena *arena, Sharding *c, const Sharding *vs, const Sharding *r)
{
    for (int d = 0; vs && vs->mesh == r->mesh && d < r->rank; d++) {
        const DimSharding *v = &vs->dims[d];
        if (r->dims[d].is_closed || v->num_axes <= r->dims[d].num_axes || !axes_start_with(v, &r->dims[d]) ||
            uses_replicated(v, r))
            continue;
        bool clash = false;
        for (int k = r->dims[d].num_axes; k < v->num_axes; k++)
            clash |= used_elsewhere(c, d, v->axes[k]);
        if (!clash) {
            c->dims[d].num_axes = v->num_axes;
            c->dims[d].axes = arena_memdup(arena, v->axes, (size_t)v->num_axes, sizeof(AxisRef));
        }
    }
}

/* A value that extends the whole annotation is taken over; one that does
 * not extends only the open dims it can (extend_open_dims). */
void prop_close_func_results(PropagationState *st, Func *f)
{
    for (int i = 0; i < f->num_results; i++) {
        const Value *v = f->body->returns[i];
        const Sharding *r = f->result_shardings[i], *vs = type_is_static(&v->type) ? v->sharding : NULL;
        if (!r)
            continue;
        bool extends = extends_annotation(vs, r);
        Sharding *c = sharding_clone(&st->module->arena, extends ? vs : r);
        if (!extends)
            extend_open_dims(&st->module->arena, c, vs, r);
        c->num_replicated = r->num_replicated;
        c->replicated = r->replicated;
        c->num_unreduced = r->num_unreduced;
        c->unreduced = r->unreduced;
        c->unreduced_op = r->unreduced_op;
        c->loc = r->loc;
        for (int d = 0; d < c->rank; d++) {
            c->dims[d].is_closed = true;
            c->dims[d].priority = PRIORITY_NONE;
        }
        f->result_shardings[i] = c;
    }
}

/* Whether v is a value of a shard_map body. */
static bool in_manual_body(const Value *v)
{
    for (const Block *b = v->def ? v->def->parent : v->block; b && b->parent_op; b = b->parent_op->parent)
        if (b->parent_op->kind == OP_SHARD_MAP)
            return true;
    return false;
}

/* The final decision: every dim closed, priorities spent, and values that
 * nothing reached replicated (tokens, which hold nothing, and `shardc
 * opt`'s dynamic function arguments, which Shardy skips, left bare; a
 * shard_map body's values nothing reached stay per-device, as before). */
static void close_value(PropagationState *st, Value *v, int unused)
{
    if (v->sharding) {
        size_t slot = ((uintptr_t)v->sharding >> 4) % (sizeof st->closed / sizeof st->closed[0]);
        struct ClosedSharding *c = &st->closed[slot];
        if (c->open != v->sharding)
            *c = (struct ClosedSharding){v->sharding, module_close_sharding(st->module, v->sharding, NULL, 0)};
        v->sharding = c->closed;
    } else if (st->func_mesh && v->type.dtype != DT_TOKEN && type_is_static(&v->type) && !in_manual_body(v)) {
        v->sharding = module_close_sharding(st->module, NULL, st->func_mesh, v->type.rank);
    }
}

void prop_state_finish_func(PropagationState *st, Func *f)
{
    if (st->options->explain)
        prop_explain_missing(st, f);
    prop_close_func_results(st, f);
    if (st->options->warn_conflicts)
        prop_report_conflicts(st, f);
    memset(st->closed, 0, sizeof st->closed);
    for_each_value(st, f, close_value, 0);
    if (st->options->explain) /* what --explain prints, whatever later passes do */
        origins_snapshot_func(st->options->origins, &st->module->arena, f);
    if (st->options->warn_conflicts)
        prop_report_boundary_conflicts(st, f);
}

/* shard_map boundaries for propagation: each operand meets its in_spec as
 * if through a sharding constraint (the spec is fixed); results start as
 * their out_specs say (propagation_rounds.c). */

OpShardingRule *prop_identity_rule(Arena *arena, const TensorType *type, int num_tensors)
{
    OpShardingRule *r = ARENA_NEW(arena, OpShardingRule);
    r->num_factors = type->rank;
    r->factors = ARENA_ARRAY(arena, Factor, type->rank + 1);
    for (int d = 0; d < type->rank; d++)
        r->factors[d] = (Factor){"", type->dims[d], FACTOR_PASS_THROUGH};
    r->num_operands = 1;
    r->num_results = num_tensors - 1;
    r->operands = ARENA_ARRAY(arena, TensorFactors, num_tensors);
    r->results = r->operands + 1;
    for (int t = 0; t < num_tensors; t++) {
        r->operands[t].rank = type->rank;
        r->operands[t].dims = ARENA_ARRAY(arena, DimFactors, type->rank + 1);
        for (int d = 0; d < type->rank; d++) {
            r->operands[t].dims[d].count = 1;
            r->operands[t].dims[d].factors = ARENA_ARRAY(arena, int, 1);
            r->operands[t].dims[d].factors[0] = d;
        }
    }
    return r;
}

void propagate_shard_map_operands(PropagationState *st, Op *op, int phase)
{
    const AttrValue *specs = op_attr_get(op, ATTR_KEY_IN_SPECS);
    for (int i = 0; specs && i < op->num_operands && i < specs->u.array.count; i++) {
        Value *operand = op->operands[i];
        const OpShardingRule *rule = prop_identity_rule(&st->work, &operand->type, 2);
        Value *values[2] = {operand, NULL};
        Sharding *shardings[2] = {operand->sharding, specs->u.array.items[i]->u.sharding};
        propagate_tensors(st, op, rule, values, shardings, 1, 2, PHASE_ALL);
    }
}
