/* Shardy's ApplyShardingConstraints (its import pipeline): before
 * propagation, a value without a sharding takes the sharding of a
 * `sharding_constraint` on it, or of a `shard_map` in_spec it feeds, when
 * that sharding is fully closed and no other constraint or shard_map use of
 * the value asks for a different one. The value is then laid out as the
 * constraint wants from the start, instead of being resharded to it. */
#include <stdlib.h>
#include "shardc/propagate.h"

typedef struct Wanted {
    const Sharding **first; /* by Value.id: the first constraint-like use's */
    bool *differs;          /* by Value.id: another use wants another one */
    Arena *arena;
} Wanted;

/* The sharding a constraint-like use `op` asks of its operand i, or NULL. */
static const Sharding *constraint_of_use(Arena *arena, const Op *op, int i)
{
    if (op->kind == OP_SHARDING_CONSTRAINT)
        return op->results[0]->sharding;
    if (op->kind != OP_SHARD_MAP)
        return NULL;
    const Sharding *spec = op_attr_sharding_at(op, ATTR_KEY_IN_SPECS, i);
    if (!spec || !op_is_partial_manual(op))
        return spec;
    /* With free axes, the spec is the manual part; the rest is the body
     * argument's sharding, if it has one. */
    const Value *arg = i < op->region->num_args ? op->region->args[i] : NULL;
    return arg && arg->sharding ? sharding_join_manual(arena, spec, arg->sharding) : spec;
}

static bool note_wanted(Op *op, void *user)
{
    Wanted *w = user;
    for (int i = 0; i < op->num_operands; i++) {
        const Sharding *s = constraint_of_use(w->arena, op, i);
        int id = op->operands[i]->id;
        if (s && !w->first[id])
            w->first[id] = s;
        else if (s && !sharding_equal(w->first[id], s))
            w->differs[id] = true;
    }
    return true;
}

static bool fully_closed(const Sharding *s)
{
    for (int d = 0; d < s->rank; d++)
        if (!s->dims[d].is_closed)
            return false;
    return true;
}

static bool apply_op(Op *op, void *user)
{
    Wanted *w = user;
    for (int i = 0; i < op->num_operands; i++) {
        Value *input = op->operands[i];
        const Sharding *s = constraint_of_use(w->arena, op, i);
        if (s && !input->sharding && fully_closed(s) && !w->differs[input->id])
            input->sharding = sharding_clone(w->arena, s);
    }
    return true;
}

bool propagate_apply_constraints(Module *m)
{
    /* Only sharding_constraint ops and shard_map in_specs ask for one. */
    if (!m->ops_created[OP_SHARDING_CONSTRAINT] && !m->ops_created[OP_SHARD_MAP])
        return true;
    /* The tables, a few bytes per value, are freed at the end; shardings
     * go to the module's arena. */
    Arena tables;
    arena_init(&tables);
    Wanted w = {ARENA_ARRAY(&tables, const Sharding *, m->num_values + 1), ARENA_ARRAY(&tables, bool, m->num_values + 1),
                &m->arena};
    /* Not in shard_map bodies: their values are per-device. */
    for (int f = 0; f < m->num_funcs; f++)
        ir_walk(m->funcs[f]->body, &(IrWalker){.pre = note_wanted, .user = &w, .scope = IR_WALK_GLOBAL});
    for (int f = 0; f < m->num_funcs; f++)
        ir_walk(m->funcs[f]->body, &(IrWalker){.pre = apply_op, .user = &w, .scope = IR_WALK_GLOBAL});
    arena_free(&tables);
    return true;
}
