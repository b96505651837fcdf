/* Partial-manual shard_maps (Shardy's sdy.manual_computation with free
 * axes): shardings along the free axes flow through the body in both
 * directions. Each operand and its body argument, and each returned value
 * and its result, are a data-flow edge: one global sharding, whose leading
 * manual axes are the spec's (fixed) and whose rest is the body value's
 * sharding. The body's values are per-device along the manual axes only:
 * their shardings name free axes alone. */
#include "propagate/propagation_state.h"

/* The global view of a body value: the spec's manual axes, then the body
 * value's sharding. A body argument without one holds the spec as written
 * (closed); a returned value without one, nothing yet (open). The manual
 * axes the
 * spec does not use are replicated, so that no dim takes them. */
static Sharding *global_view(Arena *a, const Sharding *spec, const Value *local, uint64_t manual, bool returned)
{
    const Sharding *free_part = local->sharding;
    if (!free_part && returned)
        free_part = sharding_new_open(a, spec->mesh, spec->rank);
    Sharding *s = free_part ? sharding_join_manual(a, spec, free_part) : sharding_clone(a, spec);
    uint64_t used = 0;
    for (int d = 0; d < s->rank; d++)
        for (int i = 0; i < s->dims[d].num_axes; i++)
            used |= (uint64_t)1 << s->dims[d].axes[i].axis;
    for (int i = 0; i < s->num_replicated; i++)
        used |= (uint64_t)1 << s->replicated[i].axis;
    AxisRef *rep = ARENA_ARRAY(a, AxisRef, s->num_replicated + spec->mesh->num_axes + 1);
    for (int i = 0; i < s->num_replicated; i++)
        rep[i] = s->replicated[i];
    for (int k = 0; k < spec->mesh->num_axes && k < 64; k++)
        if ((manual & ~used) >> k & 1)
            rep[s->num_replicated++] = (AxisRef){k, 1, spec->mesh->axes[k].size};
    s->replicated = rep;
    return s;
}

/* The body value takes the free part of the edge's new global sharding. */
static void update_local(PropagationState *st, Value *local, const Sharding *global, uint64_t manual)
{
    Sharding *manual_part, *free_part;
    sharding_split_manual(&st->module->arena, global, manual, &manual_part, &free_part);
    if (sharding_equal(local->sharding, free_part))
        return;
    local->sharding = free_part;
    prop_queue_neighbours(st, local);
    prop_groups_sync(st, local);
}

/* One edge: `outer` (an operand or a result, global) and `local` (the body
 * argument or returned value) under `spec`. */
static void edge(PropagationState *st, const Op *op, Value *outer, Value *local, const Sharding *spec,
                 uint64_t manual, bool returned, int phase)
{
    if (!spec || !local)
        return;
    const OpShardingRule *rule = prop_identity_rule(&st->work, &outer->type, 2);
    Value *values[2] = {outer, NULL};
    Sharding *shardings[2] = {outer->sharding, global_view(&st->work, spec, local, manual, returned)}, *out[2];
    propagate_tensors_out(st, op, rule, values, shardings, 1, 2, phase, out);
    if (out[1])
        update_local(st, local, out[1], manual);
}

/* An sdy.data_flow_edge on v (a body argument or a result), or v: when
 * the edges are written out (Shardy's -sdy-add-data-flow-edges), the edge
 * op holds the sharding and the in or out sharding stays as written. */
static Value *edge_holder(const PropagationState *st, Value *v)
{
    for (int i = 0; i < st->uses[v->id].count; i++) {
        const Op *use = st->uses[v->id].ops[i];
        if (use && use->kind == OP_DATA_FLOW_EDGE && use->operands[0] == v)
            return use->results[0];
    }
    return v;
}

void prop_manual_edges(PropagationState *st, const Op *op, int phase)
{
    uint64_t manual = op_manual_axes_mask(op, NULL);
    const Block *body = op->region;
    for (int i = 0; i < op->num_operands && i < body->num_args; i++)
        edge(st, op, op->operands[i], edge_holder(st, body->args[i]), op_attr_sharding_at(op, ATTR_KEY_IN_SPECS, i),
             manual, false, phase);
    for (int i = 0; i < op->num_results && i < body->num_returns; i++)
        edge(st, op, edge_holder(st, op->results[i]), body->returns[i], op_attr_sharding_at(op, ATTR_KEY_OUT_SPECS, i),
             manual, true, phase);
}

Op *prop_manual_edge_owner(const Op *edge_op)
{
    const Value *v = edge_op->kind == OP_DATA_FLOW_EDGE && edge_op->num_operands ? edge_op->operands[0] : NULL;
    Op *owner = !v ? NULL : v->def ? v->def : v->block ? v->block->parent_op : NULL;
    return owner && op_is_partial_manual(owner) ? owner : NULL;
}

/* A result of a partial-manual shard_map takes no manual axis past its out
 * spec's: each dim keeps the spec's manual axes, then free axes up to the
 * first manual one (Shardy does not propagate manual axes into a manual
 * computation's out_shardings). */
Sharding *prop_manual_result_sharding(Arena *a, const Value *v, Sharding *s)
{
    const Op *op = v->def;
    if (!op || !s || !op_is_partial_manual(op))
        return s;
    int index = 0;
    while (index < op->num_results && op->results[index] != v)
        index++;
    const Sharding *spec = op_attr_sharding_at(op, ATTR_KEY_OUT_SPECS, index);
    uint64_t manual = op_manual_axes_mask(op, NULL);
    Sharding *c = NULL;
    for (int d = 0; spec && d < s->rank && d < spec->rank; d++) {
        int k = spec->dims[d].num_axes;
        while (k < s->dims[d].num_axes && !(manual >> s->dims[d].axes[k].axis & 1))
            k++;
        if (k >= s->dims[d].num_axes)
            continue;
        c = c ? c : sharding_clone(a, s);
        c->dims[d].num_axes = k;
    }
    return c ? c : s;
}
