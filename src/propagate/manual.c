/* Partial-manual shard_maps (Shardy's sdy.manual_computation with free
 * axes): shardings along the free axes flow through the body in both
 * directions. Each operand and its body argument, and each returned value
 * and its result, are a data-flow edge: one global sharding, whose leading
 * manual axes are the spec's (fixed) and whose rest is the body value's
 * sharding. The body's values are per-device along the manual axes only:
 * their shardings name free axes alone. */
#include "propagate/propagation_state.h"

/* The global view of a body value: the spec's manual axes, then the body
 * value's sharding (none: the spec as written, closed); the manual axes the
 * spec does not use are replicated, so that no dim takes them. */
static Sharding *global_view(Arena *a, const Sharding *spec, const Value *local, uint64_t manual)
{
    Sharding *s = local->sharding ? sharding_join_manual(a, spec, local->sharding) : sharding_clone(a, spec);
    AxisRef *rep = ARENA_ARRAY(a, AxisRef, s->num_replicated + spec->mesh->num_axes + 1);
    for (int i = 0; i < s->num_replicated; i++)
        rep[i] = s->replicated[i];
    for (int k = 0; k < spec->mesh->num_axes && k < 64; k++) {
        bool used = false;
        for (int d = 0; d < s->rank; d++)
            for (int i = 0; i < s->dims[d].num_axes; i++)
                used |= s->dims[d].axes[i].axis == k;
        for (int i = 0; i < s->num_replicated; i++)
            used |= s->replicated[i].axis == k;
        if ((manual >> k & 1) && !used)
            rep[s->num_replicated++] = (AxisRef){k, 1, spec->mesh->axes[k].size};
    }
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
                 uint64_t manual, int phase)
{
    if (!spec || !local)
        return;
    const OpShardingRule *rule = prop_identity_rule(&st->work, &outer->type, 2);
    Value *values[2] = {outer, NULL};
    Sharding *shardings[2] = {outer->sharding, global_view(&st->work, spec, local, manual)}, *out[2];
    propagate_tensors_out(st, op, rule, values, shardings, 1, 2, phase, out);
    if (out[1])
        update_local(st, local, out[1], manual);
}

void prop_manual_edges(PropagationState *st, const Op *op, int phase)
{
    uint64_t manual = op_manual_axes_mask(op, NULL);
    const Block *body = op->region;
    for (int i = 0; i < op->num_operands && i < body->num_args; i++)
        edge(st, op, op->operands[i], body->args[i], op_attr_sharding_at(op, ATTR_KEY_IN_SPECS, i), manual, phase);
    for (int i = 0; i < op->num_results && i < body->num_returns; i++)
        edge(st, op, op->results[i], body->returns[i], op_attr_sharding_at(op, ATTR_KEY_OUT_SPECS, i), manual, phase);
}
