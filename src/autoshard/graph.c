/* Building the search's graph of one function: a node per argument and per
 * op of its body, an edge per use of a value. A function the search cannot
 * model (an op with regions or without a factor rule, a tensor of rank
 * above AS_MAX_RANK, sub-axes in an annotation) is left to propagation. */
#include <stdlib.h>
#include <string.h>
#include "autoshard/autoshard_internal.h"

bool autoshard_grow(void **p, int *cap, int need, size_t elem)
{
    if (need <= *cap)
        return true;
    int n = *cap ? *cap : 64;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, (size_t)n * elem);
    if (!q)
        return false;
    *p = q;
    *cap = n;
    return true;
}

static AsNode *add_node(AsGraph *g)
{
    if (!autoshard_grow((void **)&g->nodes, &g->node_cap, g->num_nodes + 1, sizeof *g->nodes))
        return NULL;
    AsNode *n = &g->nodes[g->num_nodes++];
    memset(n, 0, sizeof *n);
    n->rep = g->num_nodes - 1;
    n->last_use = -1;
    return n;
}

static bool add_edge(AsGraph *g, AsEdge e)
{
    if (!autoshard_grow((void **)&g->edges, &g->edge_cap, g->num_edges + 1, sizeof *g->edges))
        return false;
    e.rep = g->num_edges;
    g->edges[g->num_edges++] = e;
    return true;
}

const TensorType *autoshard_tensor_type(const AsNode *n, int t)
{
    if (!n->op)
        return &n->arg->type;
    return t < n->num_operands ? &n->op->operands[t]->type : &n->op->results[t - n->num_operands]->type;
}

static bool rank_ok(const TensorType *t) { return t->rank <= AS_MAX_RANK; }

static uint64_t mix(uint64_t h, uint64_t v) { return (h ^ v) * 0x100000001b3ull; }

static uint64_t type_hash(uint64_t h, const TensorType *t)
{
    h = mix(h, (uint64_t)t->dtype);
    for (int d = 0; d < t->rank; d++)
        h = mix(h, (uint64_t)t->dims[d]);
    return mix(h, (uint64_t)t->rank);
}

static uint64_t op_signature(const Op *op)
{
    uint64_t h = mix(0xcbf29ce484222325ull, (uint64_t)op->kind);
    for (const char *c = op->str; c && *c; c++)
        h = mix(h, (uint64_t)(unsigned char)*c);
    for (int i = 0; i < op->num_operands; i++)
        h = type_hash(h, &op->operands[i]->type);
    for (int i = 0; i < op->num_results; i++)
        h = type_hash(h, &op->results[i]->type);
    for (int i = 0; i < op->num_attrs; i++)
        h = mix(h, (uint64_t)op->attrs[i].key);
    return h;
}

/* Why an op keeps the search off its function, or NULL. */
static const char *unsupported(const Op *op)
{
    if (op->region || op->num_regions)
        return "has regions";
    if (op->kind == OP_CUSTOM || op->kind == OP_CALL)
        return "calls a function whose per-device types are fixed"; /* partition functions */
    for (int i = 0; i < op->num_operands; i++)
        if (!rank_ok(&op->operands[i]->type))
            return "has an operand of too high a rank";
    for (int i = 0; i < op->num_results; i++)
        if (!rank_ok(&op->results[i]->type))
            return "has a result of too high a rank";
    return NULL;
}

static bool add_args(AsGraph *g, DiagEngine *diag)
{
    Block *body = g->func->body;
    for (int i = 0; i < body->num_args; i++) {
        Value *v = body->args[i];
        AsLayout probe;
        if (!rank_ok(&v->type) || !autoshard_layout_from_sharding(&probe, v->sharding, v->type.rank)) {
            diag_warning(diag, v->loc, "auto-shard: %%%s has a rank or sharding the search does not model; "
                         "@%s is left to propagation", v->name, g->func->name);
            return false;
        }
        AsNode *n = add_node(g);
        if (!n)
            return false;
        n->arg = v;
        g->value_node[v->id] = g->num_nodes - 1;
        g->value_tensor[v->id] = 0;
        if (!autoshard_arg_strategies(g, n, v->sharding, diag))
            return false;
    }
    return true;
}

static bool add_op(AsGraph *g, Op *op, DiagEngine *diag)
{
    const char *why = unsupported(op);
    for (int r = 0; !why && r < op->num_results; r++) {
        AsLayout probe;
        if (!autoshard_layout_from_sharding(&probe, op->results[r]->sharding, op->results[r]->type.rank))
            why = "has a result sharded on sub-axes";
    }
    AsNode *n = why ? NULL : add_node(g);
    if (n) {
        n->op = op;
        n->signature = op_signature(op);
    }
    if (n && !autoshard_op_strategies(g, n, diag))
        why = "has no sharding rule the search can use";
    if (why) {
        diag_warning(diag, op->loc, "auto-shard: '%s' %s; @%s is left to propagation", op_info(op->kind)->name, why,
                     g->func->name);
        return false;
    }
    int self = g->num_nodes - 1;
    for (int r = 0; r < op->num_results; r++) {
        g->value_node[op->results[r]->id] = self;
        g->value_tensor[op->results[r]->id] = n->num_operands + r;
    }
    for (int i = 0; i < op->num_operands; i++) {
        int from = g->value_node[op->operands[i]->id];
        if (from < 0)
            return false;
        if (!add_edge(g, (AsEdge){.from = from, .from_tensor = g->value_tensor[op->operands[i]->id], .to = self,
                                  .to_tensor = i}))
            return false;
        AsNode *p = &g->nodes[from];
        p->last_use = self;
    }
    g->num_ops++;
    return true;
}

/* A result the function's signature shards: the producer pays the reshard
 * to it (closed dims exactly; an open dim keeps axes past the annotated). */
static void add_result_costs(AsGraph *g, int r)
{
    Value *v = g->func->body->returns[r];
    int p = g->value_node[v->id], t = g->value_tensor[v->id];
    AsNode *n = &g->nodes[p];
    n->last_use = g->num_nodes;
    const Sharding *a = g->func->result_shardings ? g->func->result_shardings[r] : NULL;
    AsLayout want;
    if (!a || !autoshard_layout_from_sharding(&want, a, v->type.rank))
        return;
    for (int k = 0; k < n->num_strategies; k++) {
        AsStrategy *s = &n->strategies[k];
        AsLayout target = want;
        for (int d = 0; d < a->rank && d < target.rank; d++)
            if (!a->dims[d].is_closed && autoshard_layout_allowed(&s->layouts[t], a))
                target.n[d] = s->layouts[t].n[d], memcpy(target.ax[d], s->layouts[t].ax[d], sizeof target.ax[d]);
        int64_t bytes;
        s->comm += autoshard_plan_cost(g, &v->type, &s->layouts[t], 0, &target, &bytes);
        s->comm_bytes += bytes;
    }
}

bool autoshard_build(AsGraph *g, DiagEngine *diag, Func *f, const Mesh *mesh, const AsCosts *costs)
{
    memset(g, 0, sizeof *g);
    arena_init(&g->arena);
    g->func = f;
    g->mesh = mesh;
    g->costs = *costs;
    int values = 0;
    for (Op *op = f->body->first; op; op = op->next)
        for (int r = 0; r < op->num_results; r++)
            values = op->results[r]->id + 1 > values ? op->results[r]->id + 1 : values;
    for (int i = 0; i < f->body->num_args; i++)
        values = f->body->args[i]->id + 1 > values ? f->body->args[i]->id + 1 : values;
    g->value_node = malloc(sizeof(int) * (size_t)(values + 1));
    g->value_tensor = malloc(sizeof(int) * (size_t)(values + 1));
    g->scratch = malloc(sizeof *g->scratch);
    if (!g->value_node || !g->value_tensor || !g->scratch)
        return false;
    for (int i = 0; i <= values; i++)
        g->value_node[i] = -1;
    if (!add_args(g, diag))
        return false;
    for (Op *op = f->body->first; op; op = op->next)
        if (!add_op(g, op, diag))
            return false;
    for (int r = 0; r < f->body->num_returns; r++)
        if (g->value_node[f->body->returns[r]->id] >= 0)
            add_result_costs(g, r);
    return true;
}

void autoshard_edge_costs(AsGraph *g, AsEdge *e)
{
    const AsNode *p = &g->nodes[e->from], *c = &g->nodes[e->to];
    size_t count = (size_t)p->num_strategies * (size_t)c->num_strategies;
    e->cost = ARENA_ARRAY(&g->arena, double, count);
    e->bytes = ARENA_ARRAY(&g->arena, int64_t, count);
    e->transient = ARENA_ARRAY(&g->arena, int64_t, count);
    const TensorType *t = autoshard_tensor_type(c, e->to_tensor);
    for (int i = 0; i < p->num_strategies; i++)
        for (int j = 0; j < c->num_strategies; j++) {
            const AsLayout *from = &p->strategies[i].layouts[e->from_tensor];
            const AsLayout *to = &c->strategies[j].layouts[e->to_tensor];
            size_t k = (size_t)i * (size_t)c->num_strategies + (size_t)j;
            e->cost[k] = autoshard_plan_cost(g, t, from, 0, to, &e->bytes[k]);
            e->transient[k] = memcmp(from, to, sizeof *from) ? autoshard_layout_bytes(g->mesh, t, to) : 0;
        }
}

void autoshard_graph_free(AsGraph *g)
{
    free(g->nodes);
    free(g->edges);
    free(g->value_node);
    free(g->value_tensor);
    free(g->scratch);
    arena_free(&g->arena);
}
