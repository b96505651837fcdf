/* Layer tying (autoparallel's, Alpa's "layer clustering" in its simplest
 * form): a program that repeats a block of ops -- the layers of a
 * transformer -- gets one strategy set for all copies. The period is the
 * shift P under which the most ops match: op i and op i-P have the same
 * signature and strategies, and each operand of i comes from the same
 * place as the operand of i-P shifted by P (or from an argument of the
 * same shape, a layer's weight). Tied nodes share the ILP's columns, so
 * the solver's problem grows with the distinct layers, not the depth. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "autoshard/autoshard_internal.h"

static bool same_strategies(const AsNode *a, const AsNode *b)
{
    if (a->num_strategies != b->num_strategies || a->num_tensors != b->num_tensors)
        return false;
    for (int k = 0; k < a->num_strategies; k++) {
        const AsStrategy *s = &a->strategies[k], *t = &b->strategies[k];
        if (s->partial != t->partial || s->compute != t->compute || s->comm != t->comm ||
            memcmp(s->layouts, t->layouts, sizeof(AsLayout) * (size_t)a->num_tensors))
            return false;
    }
    return true;
}

/* Whether operand k of op node i (= j + P) comes from where operand k of j
 * does, shifted by P. */
static bool operand_matches(const AsGraph *g, int i, int j, int k, int period)
{
    int pi = g->value_node[g->nodes[i].op->operands[k]->id];
    int pj = g->value_node[g->nodes[j].op->operands[k]->id];
    if (g->nodes[pi].op && g->nodes[pj].op)
        return pi == pj + period || pi == pj;
    if (!g->nodes[pi].op && !g->nodes[pj].op)
        return pi == pj || same_strategies(&g->nodes[pi], &g->nodes[pj]);
    return false;
}

static bool op_matches(const AsGraph *g, int i, int period)
{
    int j = i - period;
    const AsNode *a = &g->nodes[i], *b = &g->nodes[j];
    if (!a->op || !b->op || a->signature != b->signature || a->op->num_operands != b->op->num_operands ||
        !same_strategies(a, b))
        return false;
    for (int k = 0; k < a->op->num_operands; k++)
        if (!operand_matches(g, i, j, k, period))
            return false;
    return true;
}

static int first_op(const AsGraph *g) { return g->num_nodes - g->num_ops; }

/* The period with the most matching ops, at least half a block's worth;
 * 0 if none. */
static int best_period(const AsGraph *g)
{
    int start = first_op(g), best = 0, best_count = 0;
    for (int period = 1; period <= g->num_ops / 2; period++) {
        int count = 0;
        for (int i = start + period; i < g->num_nodes; i++)
            count += op_matches(g, i, period);
        if (2 * count >= period && count > best_count) {
            best = period;
            best_count = count;
        }
    }
    return best;
}

/* An argument used only by tied ops takes the rep of the argument the
 * first use's rep reads at the same operand. */
static void tie_args(AsGraph *g)
{
    for (int e = 0; e < g->num_edges; e++) {
        const AsEdge *edge = &g->edges[e];
        AsNode *a = &g->nodes[edge->from];
        const AsNode *c = &g->nodes[edge->to];
        if (a->op || a->rep != edge->from || c->rep == edge->to)
            continue;
        int other = g->value_node[g->nodes[c->rep].op->operands[edge->to_tensor]->id];
        if (other != edge->from && !g->nodes[other].op && g->nodes[other].rep == other &&
            same_strategies(a, &g->nodes[other]))
            a->rep = other;
    }
}

int autoshard_tie(AsGraph *g)
{
    int period = best_period(g), tied = 0;
    if (!period)
        return 0;
    for (int i = first_op(g) + period; i < g->num_nodes; i++)
        if (op_matches(g, i, period)) {
            g->nodes[i].rep = g->nodes[i - period].rep;
            tied++;
        }
    tie_args(g);
    for (int n = 0; n < first_op(g); n++)
        tied += g->nodes[n].rep != n;
    return tied;
}
