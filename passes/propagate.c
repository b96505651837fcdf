/* The propagation pass: Shardy-style factor propagation to a fixed point.
 *
 * Rounds go by user priority (p0 first, unprioritised dims last); within a
 * round, three op-priority phases as in Shardy's op-priority propagation:
 * (0) elementwise, reshape, transpose and sharding-constraint ops; (1) + the
 * pass-through factors of every op, broadcasts only backwards; (2)
 * everything. Each phase runs a worklist of ops until no sharding changes. */
#include <stdlib.h>
#include <string.h>
#include "shardc/pass.h"
#include "propagate/propagation_state.h"

/* Phase 0 ops. sharding_constraint and reshard are elementwise too (as
 * in Shardy), so a constraint reaches its elementwise neighbours before
 * any dot does. */
static bool is_pass_through_op(const Op *op)
{
    switch (op_info(op->kind)->op_class) {
    case OPC_UNARY: case OPC_UNARY_FLOAT: case OPC_CONVERT: case OPC_BINARY: case OPC_COMPARE:
    case OPC_SELECT: case OPC_RESHAPE: case OPC_TRANSPOSE: case OPC_SHARDING:
        return true;
    default:
        return false;
    }
}

static PropagationDirection phase_direction(const Op *op, const OpShardingRule *rule, int f, int phase)
{
    if (phase >= 2 || is_pass_through_op(op))
        return DIR_BOTH;
    if (phase == 1 && rule->factors[f].kind == FACTOR_PASS_THROUGH)
        return op->kind == OP_BROADCAST ? DIR_BACKWARD : DIR_BOTH;
    return DIR_NONE;
}

/* Each factor's direction in this phase; false if none may propagate (the
 * op is skipped: most ops wait for a later phase). */
static bool phase_directions(const Op *op, const OpShardingRule *rule, int phase, PropagationDirection *dirs)
{
    bool any = false;
    for (int f = 0; f < rule->num_factors; f++) {
        dirs[f] = phase_direction(op, rule, f, phase);
        any |= dirs[f] != DIR_NONE;
    }
    return any;
}

/* The mesh all of the op's shardings agree on; NULL if none or mixed. */
static const Mesh *op_mesh(Sharding *const *shardings, int count)
{
    const Mesh *mesh = NULL;
    for (int t = 0; t < count; t++) {
        if (!shardings[t])
            continue;
        if (mesh && shardings[t]->mesh != mesh)
            return NULL;
        mesh = shardings[t]->mesh;
    }
    return mesh;
}

/* Run one op's factor propagation over `values` (operands then results)
 * under `rule`; updated values are pushed to the worklist. */
void propagate_tensors(PropagationState *st, const Op *op, const OpShardingRule *rule, Value **values,
                       Sharding **shardings, int num_operands, int count, int phase)
{
    const Mesh *mesh = op_mesh(shardings, count);
    PropagationDirection dirs[rule->num_factors + 1];
    if (!mesh || !phase_directions(op, rule, phase, dirs))
        return;
    const TensorType *types[count];
    bool updated[count], any_update = false;
    for (int t = 0; t < count; t++) { /* a virtual tensor (NULL) shares tensor 0's type */
        types[t] = &(values[t] ? values[t] : values[0])->type;
        updated[t] = false;
    }
    ShardingProjection p, before;
    arena_reset(&st->scratch);
    projection_build(&p, &st->scratch, rule, mesh, shardings, types, num_operands, count);
    factor_propagate(&p, st->options->mode, dirs, updated, &st->scratch);
    for (int t = 0; t < count; t++)
        any_update |= updated[t] && values[t];
    if (!any_update)
        return;
    /* Most visits change nothing: the state before, for --explain, is
     * rebuilt from the unchanged shardings only when something did. */
    projection_build(&before, &st->scratch, rule, mesh, shardings, types, num_operands, count);
    for (int t = 0; t < count; t++)
        if (updated[t] && values[t])
            state_update_value(st, values[t], projection_to_sharding(&p, t, shardings[t], &st->module->arena),
                               &before, t, values, shardings, op);
}

static void propagate_op(PropagationState *st, Op *op, int phase)
{
    if (op->kind == OP_SHARD_MAP) {
        propagate_shard_map_operands(st, op, phase);
        return;
    }
    const OpShardingRule *rule = state_rule(st, op);
    if (!rule)
        return;
    int count = op->num_operands + op->num_results;
    Value *values[count];
    Sharding *shardings[count];
    for (int i = 0; i < op->num_operands; i++)
        values[i] = op->operands[i];
    for (int i = 0; i < op->num_results; i++)
        values[op->num_operands + i] = op->results[i];
    for (int t = 0; t < count; t++)
        shardings[t] = values[t]->sharding;
    propagate_tensors(st, op, rule, values, shardings, op->num_operands, count, phase);
}

/* Function results are no ops: they are applied whenever the worklist
 * runs dry, until they change nothing. */
static void run_phase(PropagationState *st, Func *f, int phase)
{
    worklist_push_block(st, f->body);
    do {
        Op *op;
        while ((op = worklist_pop(st)))
            propagate_op(st, op, phase);
        propagate_func_results(st, f);
    } while (st->queue_count > 0);
}

static bool run_propagate(Module *m, PassContext *ctx)
{
    PropagateOptions options = {(PropagationMode)ctx->options->propagation, ctx->diag, true, ctx->origins};
    return propagate_module(m, &options);
}

bool propagate_module(Module *m, const PropagateOptions *options)
{
    PropagationState st;
    state_init(&st, m, options);
    for (int i = 0; i < m->num_funcs; i++) {
        Func *f = m->funcs[i];
        state_begin_func(&st, f);
        for (int round = 0; round < st.num_rounds; round++) {
            state_begin_round(&st, round);
            for (int phase = 0; phase < 3; phase++)
                run_phase(&st, f, phase);
        }
        state_finish_func(&st, f);
    }
    bool ok = options->diag->errors == st.errors_before;
    state_free(&st);
    return ok;
}

const Pass pass_propagate = {"propagate", EMIT_PROPAGATED, run_propagate};
