/* Data-flow edges (Shardy's sdy.data_flow_edge): the values that carry one
 * position through control flow share one sharding, agreed in both
 * directions like the tensors of an elementwise op.
 *   while, position i: operand i, the cond and do arguments i, the do
 *     region's returned value i and result i;
 *   case, result i: every branch's returned value i and result i;
 *   optimization_barrier, position i: operand i and result i;
 *   named_computation (Shardy's getBlockArgumentEdgeOwners and
 *     getOpResultEdgeOwners): operand i and body argument i; the body's
 *     returned value i and result i. Unlike a loop's, the two are separate
 *     edges: a call's argument and result may be sharded differently.
 *   func_data_flow_edge (Shardy's PropagateFuncDataFlowEdgeOp), across
 *     functions: on argument i of f, operand i of every call of f and the
 *     edge's result; on result j of a call, the callee's returned value j
 *     and the edge's result (module-wide propagation only). An edge with
 *     no such source (its function is never called, or inline-calls
 *     inlined the call) is the identity; Shardy leaves it alone instead.
 * Values a region captures from the blocks around it need nothing here:
 * the ops inside use them as operands. */
#include "propagate/propagation_state.h"

enum { EDGE_MAX_VALUES = 64 };

/* The edge's values: sources (what flows in) first, then the owner (the
 * result) and the targets. Branches beyond the cap take no part. */
typedef struct Edge {
    int count, num_sources;
    Value *values[EDGE_MAX_VALUES];
} Edge;

static void edge_add(Edge *e, Value *v)
{
    if (v && e->count < EDGE_MAX_VALUES)
        e->values[e->count++] = v;
}

static void propagate_edge(PropagationState *st, const Op *op, Edge *e, int phase)
{
    Sharding *shardings[EDGE_MAX_VALUES];
    for (int t = 0; t < e->count; t++)
        shardings[t] = e->values[t]->sharding;
    const OpShardingRule *rule = prop_identity_rule(&st->work, &e->values[0]->type, e->count);
    propagate_tensors(st, op, rule, e->values, shardings, e->num_sources ? e->num_sources : 1, e->count, phase);
}

static Value *returned(const Block *b, int i)
{
    return i < b->num_returns ? b->returns[i] : NULL;
}

static Value *arg(const Block *b, int i)
{
    return i < b->num_args ? b->args[i] : NULL;
}

static void while_edges(PropagationState *st, const Op *op, int phase)
{
    for (int i = 0; i < op->num_operands && i < op->num_results; i++) {
        Edge e = {0};
        edge_add(&e, op->operands[i]);
        edge_add(&e, returned(op->regions[1], i));
        edge_add(&e, op->results[i]);
        edge_add(&e, arg(op->regions[0], i));
        edge_add(&e, arg(op->regions[1], i));
        propagate_edge(st, op, &e, phase);
    }
}

static void case_edges(PropagationState *st, const Op *op, int phase)
{
    for (int i = 0; i < op->num_results; i++) {
        Edge e = {0};
        for (int k = 0; k < op->num_regions; k++)
            edge_add(&e, returned(op->regions[k], i));
        edge_add(&e, op->results[i]);
        propagate_edge(st, op, &e, phase);
    }
}

static void barrier_edges(PropagationState *st, const Op *op, int phase)
{
    for (int i = 0; i < op->num_operands && i < op->num_results; i++) {
        Edge e = {0};
        edge_add(&e, op->operands[i]);
        edge_add(&e, op->results[i]);
        propagate_edge(st, op, &e, phase);
    }
}

static void named_edges(PropagationState *st, const Op *op, int phase)
{
    const Block *body = op->regions[0];
    for (int i = 0; i < op->num_operands; i++) {
        Edge e = {0};
        edge_add(&e, op->operands[i]);
        edge_add(&e, arg(body, i));
        propagate_edge(st, op, &e, phase);
    }
    for (int i = 0; i < op->num_results; i++) {
        Edge e = {0};
        edge_add(&e, returned(body, i));
        edge_add(&e, op->results[i]);
        propagate_edge(st, op, &e, phase);
    }
}

static void func_edges(PropagationState *st, const Op *op, int phase)
{
    const Value *v = op->operands[0];
    Edge e = {0};
    if (!v->def && st->callers) {
        const UseList *calls = &st->callers[v->id];
        for (int i = 0; i < calls->count; i++)
            if (v->index < calls->ops[i]->num_operands)
                edge_add(&e, calls->ops[i]->operands[v->index]);
    } else if (v->def && v->def->kind == OP_CALL && v->def->callee) {
        const Func *callee = module_find_func(st->module, v->def->callee);
        edge_add(&e, callee ? returned(callee->body, v->index) : NULL);
    }
    if (e.count == 0) /* nothing calls it, or calls were inlined: the identity */
        edge_add(&e, op->operands[0]);
    e.num_sources = e.count;
    edge_add(&e, op->results[0]);
    propagate_edge(st, op, &e, phase);
}

bool prop_data_flow_edges(PropagationState *st, const Op *op, int phase)
{
    bool ok = op->num_regions == (op->kind == OP_WHILE ? 2 : op->num_regions);
    switch (op->kind) {
    case OP_WHILE:
        if (ok)
            while_edges(st, op, phase);
        return true;
    case OP_CASE:
        case_edges(st, op, phase);
        return true;
    case OP_OPTIMIZATION_BARRIER:
        barrier_edges(st, op, phase);
        return true;
    case OP_NAMED_COMPUTATION:
        if (op->num_regions == 1)
            named_edges(st, op, phase);
        return true;
    case OP_FUNC_DATA_FLOW_EDGE:
        if (op->operands[0]->type.dtype != DT_TOKEN)
            func_edges(st, op, phase);
        return true;
    default:
        return false;
    }
}

/* The control-flow op whose data-flow edges b's arguments and returned
 * values are part of, or NULL. */
Op *prop_edge_owner(const Block *b)
{
    Op *owner = b ? b->parent_op : NULL;
    return owner && (owner->kind == OP_WHILE || owner->kind == OP_CASE || owner->kind == OP_NAMED_COMPUTATION ||
                     op_is_partial_manual(owner))
               ? owner : NULL;
}
