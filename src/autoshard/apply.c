/* After the search: the chosen layouts written as closed shardings on the
 * IR (annotated values keep theirs, refined only in open dims), the plan's
 * cost, the greedy mode, and the --explain lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "autoshard/autoshard_internal.h"

static Sharding *to_sharding(AsGraph *g, Arena *arena, const AsLayout *l, const Sharding *annotation)
{
    Sharding *s = annotation ? sharding_clone(arena, annotation) : sharding_new_open(arena, g->mesh, l->rank);
    for (int d = 0; d < l->rank && d < s->rank; d++) {
        DimSharding *dim = &s->dims[d];
        if (annotation && dim->is_closed)
            continue;
        dim->axes = ARENA_ARRAY(arena, AxisRef, l->n[d] + 1);
        for (int i = 0; i < l->n[d]; i++)
            dim->axes[i] = (AxisRef){l->ax[d][i], 1, g->mesh->axes[l->ax[d][i]].size};
        dim->num_axes = l->n[d];
        dim->is_closed = true;
    }
    return s;
}

void autoshard_apply(AsGraph *g)
{
    Arena *arena = &g->module->arena;
    for (int n = 0; n < g->num_nodes; n++) {
        AsNode *node = &g->nodes[n];
        const AsStrategy *s = &node->strategies[node->chosen];
        if (!node->op) {
            node->arg->sharding = to_sharding(g, arena, &s->layouts[0], node->arg->sharding);
            continue;
        }
        for (int r = 0; r < node->op->num_results; r++) {
            Value *v = node->op->results[r];
            v->sharding = to_sharding(g, arena, &s->layouts[node->num_operands + r], v->sharding);
        }
    }
}

/* ---- where the partitioner would choose otherwise ----
 * The partitioner derives an op's factor assignment from the shardings of
 * its operands and results (factor_assignment: the largest tensors win).
 * Where an operand arrives in another layout than the chosen strategy's
 * and that would change the assignment, a sharding_constraint to the
 * strategy's layout makes the reshard the model priced explicit, so the
 * emitted program is the plan. */

static bool same_dims(const DimAxes *a, const AsLayout *l)
{
    for (int d = 0; d < l->rank; d++) {
        if (a->dims[d].count != l->n[d])
            return false;
        for (int i = 0; i < l->n[d]; i++)
            if (a->dims[d].axes[i].axis != l->ax[d][i])
                return false;
    }
    return true;
}

static bool partitioner_agrees(AsGraph *g, const AsNode *n, const OpShardingRule *rule)
{
    const AsStrategy *s = &n->strategies[n->chosen];
    Sharding *shardings[2 * AS_MAX_TENSORS];
    const TensorType *types[2 * AS_MAX_TENSORS];
    if (n->num_tensors > 2 * AS_MAX_TENSORS)
        return true;
    for (int t = 0; t < n->num_tensors; t++) {
        Value *v = t < n->num_operands ? n->op->operands[t] : n->op->results[t - n->num_operands];
        shardings[t] = v->sharding;
        types[t] = &v->type;
    }
    AxisList *axes = ARENA_ARRAY(&g->arena, AxisList, rule->num_factors + 1);
    factor_assignment(axes, rule, g->mesh, shardings, types, n->num_tensors, n->num_operands, UNEVEN_PASS_THROUGH,
                      &g->arena);
    DimAxes *got = &g->scratch->from;
    for (int t = 0; t < n->num_tensors; t++) {
        factor_assignment_tensor_axes(got, rule, axes, t);
        if (!same_dims(got, &s->layouts[t]))
            return false;
    }
    return true;
}

/* %v.auto<op id> = sharding_constraint %v laid out as `l`, before op. */
static Value *constrain(AsGraph *g, Op *op, Value *v, const AsLayout *l)
{
    Module *m = g->module;
    Op *c = op_new(m, OP_SHARDING_CONSTRAINT, op->loc);
    char name[256];
    snprintf(name, sizeof name, "%.200s.auto%d", v->name, op->id);
    Value *out = value_new(m, arena_strdup(&m->arena, name), v->type, op->loc);
    out->sharding = to_sharding(g, &m->arena, l, NULL);
    out->def = c;
    c->num_operands = c->num_results = 1;
    c->operands = ARENA_ARRAY(&m->arena, Value *, 1);
    c->results = ARENA_ARRAY(&m->arena, Value *, 1);
    c->operands[0] = v;
    c->results[0] = out;
    block_insert_before(op->parent, op, c);
    return out;
}

static void pin_operands(AsGraph *g, AsNode *n)
{
    const OpShardingRule *rule = rules_of_op(&g->arena, NULL, n->op);
    if (!rule || partitioner_agrees(g, n, rule))
        return;
    const AsStrategy *s = &n->strategies[n->chosen];
    for (int i = 0; i < n->num_operands; i++) {
        AsLayout have;
        Value *v = n->op->operands[i];
        if (autoshard_layout_from_sharding(&have, v->sharding, v->type.rank) &&
            memcmp(&have, &s->layouts[i], sizeof have) != 0)
            n->op->operands[i] = constrain(g, n->op, v, &s->layouts[i]);
    }
}

void autoshard_pin(AsGraph *g)
{
    for (int n = 0; n < g->num_nodes; n++)
        if (g->nodes[n].op)
            pin_operands(g, &g->nodes[n]);
}

static double edge_cost(const AsGraph *g, const AsEdge *e, int i, int j, int64_t *bytes)
{
    const AsEdge *rep = &g->edges[e->rep];
    size_t k = (size_t)i * (size_t)g->nodes[e->to].num_strategies + (size_t)j;
    if (bytes)
        *bytes += rep->bytes[k];
    return rep->cost[k];
}

double autoshard_chosen_cost(const AsGraph *g, int64_t *bytes)
{
    double total = 0;
    *bytes = 0;
    for (int n = 0; n < g->num_nodes; n++) {
        const AsStrategy *s = &g->nodes[n].strategies[g->nodes[n].chosen];
        total += s->compute + s->comm;
        *bytes += s->comm_bytes;
    }
    for (int e = 0; e < g->num_edges; e++) {
        const AsEdge *edge = &g->edges[e];
        total += edge_cost(g, edge, g->nodes[edge->from].chosen, g->nodes[edge->to].chosen, bytes);
    }
    return total;
}

/* ---- greedy: each op its cheapest strategy given its producers' ---- */

static double incoming(const AsGraph *g, int n, int j)
{
    double cost = 0;
    for (int e = 0; e < g->num_edges; e++) {
        const AsEdge *edge = &g->edges[e];
        if (edge->to != n)
            continue;
        const AsNode *p = &g->nodes[edge->from];
        if (p->op || p->chosen >= 0) {
            cost += edge_cost(g, edge, p->chosen, j, NULL);
            continue;
        }
        double best = 1e300; /* an argument not chosen yet: its best */
        for (int i = 0; i < p->num_strategies; i++)
            best = edge_cost(g, edge, i, j, NULL) < best ? edge_cost(g, edge, i, j, NULL) : best;
        cost += best;
    }
    return cost;
}

/* Arguments read by n not chosen yet take their best for n's choice. */
static void fix_args(AsGraph *g, int n)
{
    for (int e = 0; e < g->num_edges; e++) {
        const AsEdge *edge = &g->edges[e];
        AsNode *p = &g->nodes[edge->from];
        if (edge->to != n || p->op || p->chosen >= 0)
            continue;
        int best = 0;
        for (int i = 1; i < p->num_strategies; i++)
            if (edge_cost(g, edge, i, g->nodes[n].chosen, NULL) < edge_cost(g, edge, best, g->nodes[n].chosen, NULL))
                best = i;
        p->chosen = best;
    }
}

void autoshard_greedy(AsGraph *g)
{
    for (int e = 0; e < g->num_edges; e++)
        if (!g->edges[e].cost)
            autoshard_edge_costs(g, &g->edges[e]), g->edges[e].rep = e;
    for (int n = 0; n < g->num_nodes; n++)
        g->nodes[n].chosen = g->nodes[n].op ? 0 : -1;
    for (int n = 0; n < g->num_nodes; n++) {
        AsNode *node = &g->nodes[n];
        if (!node->op)
            continue;
        double best = 1e300;
        for (int j = 0; j < node->num_strategies; j++) {
            double c = node->strategies[j].compute + node->strategies[j].comm + incoming(g, n, j) +
                       AS_BYTE_TIEBREAK * (double)node->strategies[j].result_bytes;
            if (c < best) {
                best = c;
                node->chosen = j;
            }
        }
        fix_args(g, n);
    }
    for (int n = 0; n < g->num_nodes; n++)
        if (g->nodes[n].chosen < 0)
            g->nodes[n].chosen = 0;
}

/* ---- --explain ---- */

void autoshard_print_layout(char *buf, size_t size, const Mesh *mesh, const AsLayout *l)
{
    size_t len = 0;
    len += (size_t)snprintf(buf + len, size - len, "[");
    for (int d = 0; d < l->rank && len < size; d++) {
        len += (size_t)snprintf(buf + len, size - len, "%s{", d ? ", " : "");
        for (int i = 0; i < l->n[d] && len < size; i++)
            len += (size_t)snprintf(buf + len, size - len, "%s\"%s\"", i ? ", " : "", mesh->axes[l->ax[d][i]].name);
        if (len < size)
            len += (size_t)snprintf(buf + len, size - len, "}");
    }
    if (len < size)
        snprintf(buf + len, size - len, "]");
}

/* A strategy's terms with every other node's choice fixed. */
typedef struct Terms { double compute, comm, reshard; } Terms;

static Terms local_terms(const AsGraph *g, int n, int k)
{
    const AsStrategy *s = &g->nodes[n].strategies[k];
    Terms t = {s->compute, s->comm, 0};
    for (int e = 0; e < g->num_edges; e++) {
        const AsEdge *edge = &g->edges[e];
        if (edge->to == n)
            t.reshard += edge_cost(g, edge, g->nodes[edge->from].chosen, k, NULL);
        else if (edge->from == n)
            t.reshard += edge_cost(g, edge, k, g->nodes[edge->to].chosen, NULL);
    }
    return t;
}

static double total(Terms t) { return t.compute + t.comm + t.reshard; }

void autoshard_report_add(AutoShardReport *r, const char *text)
{
    size_t n = strlen(text);
    if (r->explain_len + n + 1 > r->explain_cap) {
        size_t cap = (r->explain_cap + n + 1) * 2;
        char *p = realloc(r->explain, cap);
        if (!p)
            return;
        r->explain = p;
        r->explain_cap = cap;
    }
    memcpy(r->explain + r->explain_len, text, n + 1);
    r->explain_len += n;
}

static void explain_node(const AsGraph *g, int n, AutoShardReport *r)
{
    const AsNode *node = &g->nodes[n];
    int t = node->op ? node->num_operands : 0;
    Value *v = node->op ? node->op->results[0] : node->arg;
    int runner = -1;
    Terms win = local_terms(g, n, node->chosen), second = {0};
    for (int k = 0; k < node->num_strategies; k++) {
        Terms c = local_terms(g, n, k);
        if (k != node->chosen && (runner < 0 || total(c) < total(second))) {
            runner = k;
            second = c;
        }
    }
    char a[256], b[256], line[1024];
    autoshard_print_layout(a, sizeof a, g->mesh, &node->strategies[node->chosen].layouts[t]);
    snprintf(line, sizeof line, "%%%s: auto-shard chose %s: compute %.3g us + collectives %.3g us + reshards %.3g us\n",
             v->name, a, win.compute * 1e6, win.comm * 1e6, win.reshard * 1e6);
    autoshard_report_add(r, line);
    if (runner < 0)
        return;
    autoshard_print_layout(b, sizeof b, g->mesh, &node->strategies[runner].layouts[t]);
    snprintf(line, sizeof line, "    runner-up %s: compute %.3g us + collectives %.3g us + reshards %.3g us (%d candidates)\n",
             b, second.compute * 1e6, second.comm * 1e6, second.reshard * 1e6, node->num_strategies);
    autoshard_report_add(r, line);
}

void autoshard_explain(const AsGraph *g, AutoShardReport *r)
{
    for (int n = 0; n < g->num_nodes; n++)
        if (g->nodes[n].num_strategies > 1 && (!g->nodes[n].op || g->nodes[n].op->num_results > 0))
            explain_node(g, n, r);
}
