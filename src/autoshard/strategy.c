/* Candidate strategies. An op's: every assignment of whole mesh axes to
 * its shardable factors, no axis twice, each factor's axes (in mesh order)
 * dividing its size; the tensors' layouts follow from the rule. An
 * argument's: every assignment of axes to its dims. Annotated values keep
 * their shardings (closed dims exactly, open dims as a prefix), and of
 * strategies with the same layouts only the cheapest is kept (the others
 * are dominated: same reshards, same memory, higher cost). */
#include <string.h>
#include "autoshard/autoshard_internal.h"
#include "shardc/dtype.h"

/* Beyond this many assignments an op keeps the first ones (mesh-order
 * odometer): (factors + 1)^axes, 4096 is 8 factors on 4 axes. */
enum { AS_MAX_ENUMERATED = 4096 };

bool autoshard_layout_from_sharding(AsLayout *out, const Sharding *s, int rank)
{
    memset(out, 0, sizeof *out);
    out->rank = (int8_t)rank;
    for (int d = 0; s && d < rank && d < s->rank; d++) {
        if (s->dims[d].num_axes > AS_MAX_DIM_AXES)
            return false;
        for (int i = 0; i < s->dims[d].num_axes; i++) {
            AxisRef r = s->dims[d].axes[i];
            if (!axis_ref_is_full(s->mesh, r))
                return false; /* sub-axes: not searched */
            out->ax[d][out->n[d]++] = (int8_t)r.axis;
        }
    }
    return true;
}

static bool dim_allowed(const AsLayout *l, int d, const DimSharding *a)
{
    if (a->is_closed && l->n[d] != a->num_axes)
        return false;
    if (l->n[d] < a->num_axes)
        return false;
    for (int i = 0; i < a->num_axes; i++)
        if (l->ax[d][i] != a->axes[i].axis)
            return false;
    return true;
}

bool autoshard_layout_allowed(const AsLayout *l, const Sharding *a)
{
    for (int d = 0; a && d < a->rank && d < l->rank; d++)
        if (!dim_allowed(l, d, &a->dims[d]))
            return false;
    for (int i = 0; a && i < a->num_replicated; i++)
        for (int d = 0; d < l->rank; d++)
            for (int k = 0; k < l->n[d]; k++)
                if (l->ax[d][k] == a->replicated[i].axis)
                    return false;
    return true;
}

/* ---- growing a node's strategy list ---- */

static bool same_layouts(const AsNode *n, const AsStrategy *a, const AsStrategy *b)
{
    return memcmp(a->layouts, b->layouts, sizeof(AsLayout) * (size_t)n->num_tensors) == 0;
}

/* Adds s unless a strategy with the same layouts is as cheap (and then
 * replaces a dearer one). cap: room in n->strategies. */
static void add_strategy(AsNode *n, const AsStrategy *s)
{
    for (int i = 0; i < n->num_strategies; i++) {
        AsStrategy *t = &n->strategies[i];
        if (same_layouts(n, t, s)) {
            if (s->compute + s->comm < t->compute + t->comm) {
                AsLayout *keep = t->layouts;
                *t = *s;
                t->layouts = keep;
                memcpy(keep, s->layouts, sizeof(AsLayout) * (size_t)n->num_tensors);
            }
            return;
        }
    }
    n->strategies[n->num_strategies++] = *s;
}

static AsLayout *new_layouts(AsGraph *g, int count)
{
    return ARENA_ARRAY(&g->arena, AsLayout, count);
}

/* ---- arguments ---- */

/* choice[a]: the dim axis a shards, or -1. Axes go to a dim in mesh order. */
static bool arg_layout(const AsGraph *g, const TensorType *t, const int *choice, AsLayout *l)
{
    memset(l, 0, sizeof *l);
    l->rank = (int8_t)t->rank;
    int64_t shards[AS_MAX_RANK] = {0};
    for (int d = 0; d < t->rank; d++)
        shards[d] = 1;
    for (int a = 0; a < g->mesh->num_axes; a++) {
        int d = choice[a];
        if (d < 0)
            continue;
        if (l->n[d] == AS_MAX_DIM_AXES)
            return false;
        l->ax[d][l->n[d]++] = (int8_t)a;
        shards[d] *= g->mesh->axes[a].size;
    }
    for (int d = 0; d < t->rank; d++)
        if (t->dims[d] % shards[d])
            return false;
    return true;
}

/* The next assignment of `count` axes to `options` choices (-1 .. options-1);
 * false after the last. */
static bool odometer(int *choice, int count, int options)
{
    for (int a = 0; a < count; a++) {
        if (++choice[a] < options)
            return true;
        choice[a] = -1;
    }
    return false;
}

static int64_t power_capped(int base, int exp)
{
    int64_t p = 1;
    for (int i = 0; i < exp && p <= AS_MAX_ENUMERATED; i++)
        p *= base;
    return p;
}

bool autoshard_arg_strategies(AsGraph *g, AsNode *n, const Sharding *annotation, DiagEngine *diag)
{
    const TensorType *t = &n->arg->type;
    int axes = g->mesh->num_axes;
    int64_t total = power_capped(t->rank + 1, axes);
    n->num_tensors = 1;
    n->strategies = ARENA_ARRAY(&g->arena, AsStrategy, (total > AS_MAX_ENUMERATED ? AS_MAX_ENUMERATED : total) + 1);
    int choice[AS_MAX_AXES];
    for (int a = 0; a < axes; a++)
        choice[a] = -1;
    int64_t seen = 0;
    do {
        AsStrategy s = {.layouts = new_layouts(g, 1)};
        if (arg_layout(g, t, choice, s.layouts) && autoshard_layout_allowed(s.layouts, annotation)) {
            s.result_bytes = autoshard_layout_bytes(g->mesh, t, s.layouts);
            add_strategy(n, &s);
        }
    } while (++seen < AS_MAX_ENUMERATED && odometer(choice, axes, t->rank));
    if (n->num_strategies == 0 && annotation) { /* uneven: the annotation as given */
        AsStrategy s = {.layouts = new_layouts(g, 1)};
        if (autoshard_layout_from_sharding(s.layouts, annotation, t->rank)) {
            s.result_bytes = autoshard_layout_bytes(g->mesh, t, s.layouts);
            add_strategy(n, &s);
        }
    }
    if (n->num_strategies == 0)
        diag_warning(diag, n->arg->loc, "auto-shard: no sharding of %%%s fits its annotation and shape", n->arg->name);
    return n->num_strategies > 0;
}

/* ---- ops ---- */

typedef struct OpShape {
    const OpShardingRule *rule;
    bool shardable[64];
    bool in_results[64];
    bool reduction[64];     /* reduced: in operands only, a reduction factor */
    double flops;
} OpShape;

static const TensorFactors *tensor_factors(const OpShardingRule *rule, int t)
{
    return t < rule->num_operands ? &rule->operands[t] : &rule->results[t - rule->num_operands];
}

/* A factor the search may shard: pass-through or reduction, not blocked,
 * the major-most of its dims (minor factors of compound dims need the
 * major ones fully sharded), on both sides unless reduced. */
static void classify(OpShape *s, const OpShardingRule *rule)
{
    bool in_operands[64] = {0}, minor[64] = {0};
    s->rule = rule;
    double flops = 1;
    bool reduces = false;
    for (int t = 0; t < rule->num_operands + rule->num_results; t++) {
        const TensorFactors *tf = tensor_factors(rule, t);
        for (int d = 0; d < tf->rank; d++)
            for (int k = 0; k < tf->dims[d].count; k++) {
                int f = tf->dims[d].factors[k];
                if (t < rule->num_operands)
                    in_operands[f] = true;
                else
                    s->in_results[f] = true;
                minor[f] |= k > 0;
            }
    }
    for (int f = 0; f < rule->num_factors; f++) {
        FactorKind kind = rule->factors[f].kind;
        s->reduction[f] = kind == FACTOR_REDUCTION && !s->in_results[f];
        bool both = s->in_results[f] && (in_operands[f] || !rule->one_sided_replicated);
        s->shardable[f] = !minor[f] && !(rule->blocked && rule->blocked[f]) &&
                          ((kind == FACTOR_PASS_THROUGH && both) || s->reduction[f]);
        flops *= (double)rule->factors[f].size;
        reduces |= s->reduction[f];
    }
    s->flops = reduces ? 2 * flops : flops; /* a multiply and an add per point */
}

static void tensor_layout(const OpShape *s, const Mesh *mesh, const int *choice, int t, AsLayout *l)
{
    const TensorFactors *tf = tensor_factors(s->rule, t);
    memset(l, 0, sizeof *l);
    l->rank = (int8_t)tf->rank;
    for (int d = 0; d < tf->rank; d++)
        for (int k = 0; k < tf->dims[d].count; k++)
            for (int a = 0; a < mesh->num_axes; a++)
                if (choice[a] == tf->dims[d].factors[k] && l->n[d] < AS_MAX_DIM_AXES)
                    l->ax[d][l->n[d]++] = (int8_t)a;
}

/* The factors' shard counts divide their sizes; *devices: how many
 * devices share the work. */
static bool divides(const OpShape *s, const Mesh *mesh, const int *choice, int64_t *devices, uint32_t *partial)
{
    int64_t shards[64];
    for (int f = 0; f < s->rule->num_factors; f++)
        shards[f] = 1;
    *devices = 1;
    *partial = 0;
    for (int a = 0; a < mesh->num_axes; a++) {
        int f = choice[a];
        if (f < 0)
            continue;
        if (!s->shardable[f])
            return false;
        shards[f] *= mesh->axes[a].size;
        *devices *= mesh->axes[a].size;
        if (s->reduction[f])
            *partial |= 1u << a;
    }
    for (int f = 0; f < s->rule->num_factors; f++)
        if (s->rule->factors[f].size % shards[f])
            return false;
    return true;
}

static bool results_allowed(const AsNode *n, const AsLayout *layouts)
{
    for (int r = 0; r < n->op->num_results; r++)
        if (!autoshard_layout_allowed(&layouts[n->num_operands + r], n->op->results[r]->sharding))
            return false;
    return true;
}

static void op_costs(AsGraph *g, AsNode *n, const OpShape *shape, int64_t devices, AsStrategy *s)
{
    s->compute = shape->flops / (double)devices / g->costs.flops_per_second;
    for (int r = 0; r < n->op->num_results; r++) {
        const AsLayout *l = &s->layouts[n->num_operands + r];
        const TensorType *t = &n->op->results[r]->type;
        int64_t bytes = 0;
        if (s->partial)
            s->comm += autoshard_plan_cost(g, t, l, s->partial, l, &bytes);
        s->comm_bytes += bytes;
        s->result_bytes += autoshard_layout_bytes(g->mesh, t, l);
    }
}

static void try_choice(AsGraph *g, AsNode *n, const OpShape *shape, const int *choice)
{
    int64_t devices;
    uint32_t partial;
    if (!divides(shape, g->mesh, choice, &devices, &partial))
        return;
    AsStrategy s = {.layouts = new_layouts(g, n->num_tensors), .partial = partial};
    for (int t = 0; t < n->num_tensors; t++)
        tensor_layout(shape, g->mesh, choice, t, &s.layouts[t]);
    if (!results_allowed(n, s.layouts))
        return;
    op_costs(g, n, shape, devices, &s);
    add_strategy(n, &s);
}

bool autoshard_op_strategies(AsGraph *g, AsNode *n, DiagEngine *diag)
{
    const OpShardingRule *rule = rules_of_op(&g->arena, diag, n->op);
    if (!rule || rule->num_factors > 64 || rule->num_operands != n->op->num_operands ||
        rule->num_results != n->op->num_results)
        return false;
    OpShape shape = {0};
    classify(&shape, rule);
    n->num_operands = rule->num_operands;
    n->num_tensors = rule->num_operands + rule->num_results;
    int axes = g->mesh->num_axes;
    int64_t total = power_capped(rule->num_factors + 1, axes);
    n->strategies = ARENA_ARRAY(&g->arena, AsStrategy, (total > AS_MAX_ENUMERATED ? AS_MAX_ENUMERATED : total) + 1);
    int choice[AS_MAX_AXES];
    for (int a = 0; a < axes; a++)
        choice[a] = -1;
    int64_t seen = 0;
    do
        try_choice(g, n, &shape, choice);
    while (++seen < AS_MAX_ENUMERATED && odometer(choice, axes, rule->num_factors));
    if (n->num_strategies == 0)
        diag_warning(diag, n->op->loc, "auto-shard: no strategy of '%s' fits the annotations of its results",
                     op_info(n->op->kind)->name);
    return n->num_strategies > 0;
}
