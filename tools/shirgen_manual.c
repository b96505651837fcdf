/* Manual regions: shard_map with a random per-device body, and the JAX
 * collectives inside it. Every value in a body carries its VMA (the manual
 * axes it varies over, docs/language.md) so that out_specs only leave out
 * axes the result is invariant over: JAX's check_vma promise, which the
 * interpreter trusts and the partitioner relies on. */
#include "shirgen.h"

int64_t axes_size(const Gen *g, uint32_t mask)
{
    int64_t n = 1;
    for (int a = 0; a < g->mesh->num_axes; a++)
        if (mask & (1u << a))
            n *= g->mesh->axes[a].size;
    return n;
}

int random_axes(Gen *g, uint32_t allowed, int max, int *axes, uint32_t *mask)
{
    int n = 0;
    for (int a = 0; a < g->mesh->num_axes; a++)
        if (allowed & (1u << a))
            axes[n++] = a;
    rng_shuffle(&g->rng, axes, n);
    if (n > max)
        n = max;
    n = n ? rng_range(&g->rng, 1, n) : 0;
    *mask = 0;
    for (int i = 0; i < n; i++)
        *mask |= 1u << axes[i];
    return n;
}

static void spec_append(Gen *g, DimSharding *dim, int axis)
{
    AxisRef *axes = ARENA_ARRAY(gen_arena(g), AxisRef, dim->num_axes + 1);
    for (int k = 0; k < dim->num_axes; k++)
        axes[k] = dim->axes[k];
    axes[dim->num_axes++] = (AxisRef){axis, 1, g->mesh->axes[axis].size};
    dim->axes = axes;
}

/* An out spec naming every axis the value varies over, and now and then an
 * axis it is invariant over (JAX inserts a no-op pvary then). */
static Sharding *out_spec(Gen *g, const GenVal *r, uint32_t manual)
{
    const TensorType *t = &r->v->type;
    Sharding *s = spec_empty(g, t->rank);
    int order[SHARDC_MAX_MESH_AXES], n = g->mesh->num_axes;
    for (int a = 0; a < n; a++)
        order[a] = a;
    rng_shuffle(&g->rng, order, n);
    for (int i = 0; i < n && t->rank > 0; i++)
        if ((manual & (1u << order[i])) && ((r->vma & (1u << order[i])) || rng_pct(&g->rng, 15)))
            spec_append(g, &s->dims[rng_below(&g->rng, t->rank)], order[i]);
    return s;
}

static TensorType global_type(Gen *g, const TensorType *t, const Sharding *s)
{
    int64_t dims[SHARDC_MAX_RANK];
    for (int d = 0; d < t->rank; d++)
        dims[d] = t->dims[d] * sharding_dim_shards(s, d);
    return gen_type(g, t->dtype, t->rank, dims);
}

static AttrValue *spec_list(Gen *g, Sharding **specs, int n)
{
    AttrValue *items[4];
    for (int i = 0; i < n; i++)
        items[i] = attr_shard(g, specs[i]);
    return attr_list(g, items, n);
}

typedef struct ShardMap {
    GenVal *ops[3], *res[2];
    Sharding *in_specs[3], *out_specs[2];
    int nops, nres;
    Block *region;
    uint32_t manual;    /* the manual axes; the others are free */
} ShardMap;

/* Region results: values that can be returned under some out spec (a
 * varying scalar cannot: it has no dim to tile). */
static void pick_region_results(Gen *g, GenScope *s, ShardMap *sm)
{
    sm->nres = 0;
    for (int tries = 0; tries < 8 && sm->nres < 2; tries++) {
        GenVal *r = tries == 0 ? &s->vals[s->count - 1] : &s->vals[rng_below(&g->rng, s->count)];
        if (r->v->type.rank == 0 && r->vma)
            continue;
        sm->out_specs[sm->nres] = out_spec(g, r, sm->manual);
        sm->res[sm->nres++] = r;
        if (rng_pct(&g->rng, 60))
            break;
    }
}

static void gen_region(Gen *g, ShardMap *sm)
{
    GenScope s;
    sm->region = ARENA_NEW(gen_arena(g), Block);
    sm->region->parent_func = g->scope->func;
    scope_push(g, &s, SCOPE_MANUAL, sm->region, g->scope->func);
    s.manual_axes = sm->manual;
    for (int i = 0; i < sm->nops; i++) {
        TensorType t = local_type(g, &sm->ops[i]->v->type, sm->in_specs[i]);
        Value *arg = block_add_arg(g, sm->region, t, gen_name(g, "m", g->next_value++));
        /* free axes may enter a partial-manual body through an open argument */
        if (sm->manual != (1u << g->mesh->num_axes) - 1 && rng_pct(&g->rng, 50))
            arg->sharding = sharding_new_open(gen_arena(g), g->mesh, t.rank);
        scope_add(g, arg, sm->ops[i]->bound, sm->ops[i]->exact, sharding_axes(sm->in_specs[i]));
    }
    gen_ops(g, rng_range(&g->rng, 1, 6));
    pick_region_results(g, &s, sm);
    sm->region->num_returns = sm->nres;
    sm->region->returns = ARENA_ARRAY(gen_arena(g), Value *, 2);
    for (int i = 0; i < sm->nres; i++)
        sm->region->returns[i] = sm->res[i]->v;
    scope_pop(g);
}

static void shard_map_attrs(Gen *g, Op *op, ShardMap *sm)
{
    gen_set_attr(g, op, ATTR_KEY_MESH, attr_sym(g, g->mesh->name));
    gen_set_attr(g, op, ATTR_KEY_IN_SPECS, spec_list(g, sm->in_specs, sm->nops));
    gen_set_attr(g, op, ATTR_KEY_OUT_SPECS, spec_list(g, sm->out_specs, sm->nres));
    if (rng_pct(&g->rng, 10))
        gen_set_attr(g, op, ATTR_KEY_CHECK_VMA, attr_b(g, false));
    bool all = sm->manual == (1u << g->mesh->num_axes) - 1;
    if (!all || rng_pct(&g->rng, 10)) {
        int axes[SHARDC_MAX_MESH_AXES], n = 0;
        for (int a = 0; a < g->mesh->num_axes; a++)
            if (sm->manual & (1u << a))
                axes[n++] = a;
        gen_set_attr(g, op, ATTR_KEY_MANUAL_AXES, attr_axes(g, axes, n));
    }
}

bool gen_shard_map(Gen *g, OpKind kind)
{
    ShardMap sm = {.nops = rng_range(&g->rng, 1, 3), .manual = (1u << g->mesh->num_axes) - 1};
    /* one in four manual over some axes only (docs/language.md) */
    if (g->mesh->num_axes > 1 && rng_pct(&g->rng, 25)) {
        int axes[SHARDC_MAX_MESH_AXES];
        random_axes(g, sm.manual, g->mesh->num_axes - 1, axes, &sm.manual);
    }
    Pick p = pick_any(0);
    p.max_rank = 4;
    p.max_bound = 1e4;
    Value *vals[3];
    for (int i = 0; i < sm.nops; i++) {
        sm.ops[i] = gen_operand(g, &p);
        sm.in_specs[i] = gen_spec(g, &sm.ops[i]->v->type, ~sm.manual, 60);
        vals[i] = sm.ops[i]->v;
    }
    gen_region(g, &sm);
    if (sm.nres == 0)
        return false;
    TensorType types[2];
    for (int i = 0; i < sm.nres; i++)
        types[i] = global_type(g, &sm.res[i]->v->type, sm.out_specs[i]);
    Op *op = gen_op(g, kind, vals, sm.nops, types, sm.nres);
    op->region = sm.region;
    sm.region->parent_op = op;
    shard_map_attrs(g, op, &sm);
    for (int i = 0; i < sm.nres; i++)
        gen_result(g, op, i, sm.res[i]->bound, sm.res[i]->exact, 0);
    return true;
}

/* ---- collectives ------------------------------------------------------------- */

typedef struct Coll {
    int axes[SHARDC_MAX_MESH_AXES], naxes;
    uint32_t mask;
    int64_t n;          /* group size */
} Coll;

static bool coll_axes(Gen *g, Coll *c)
{
    c->naxes = random_axes(g, g->scope->manual_axes, 2, c->axes, &c->mask);
    c->n = axes_size(g, c->mask);
    return c->naxes > 0;
}

static Op *coll_op(Gen *g, OpKind kind, GenVal *x, const Coll *c, const TensorType *t)
{
    Op *op = gen_op(g, kind, x ? &x->v : NULL, x != NULL, t, 1);
    gen_set_attr(g, op, ATTR_KEY_AXES, attr_axes(g, c->axes, c->naxes));
    return op;
}

static Pick coll_pick(unsigned dtypes, int min_rank)
{
    Pick p = pick_any(dtypes);
    p.min_rank = min_rank;
    p.max_rank = 4;
    p.max_bound = 1e4;
    return p;
}

bool gen_all_reduce(Gen *g, OpKind kind)
{
    Coll c;
    Pick p = coll_pick(kind == OP_PMEAN ? DTS_FLOAT : DTS_NUM, 0);
    GenVal *x = gen_operand(g, &p);
    if (!coll_axes(g, &c))
        return false;
    Op *op = coll_op(g, kind, x, &c, &x->v->type);
    double bound = kind == OP_PSUM ? x->bound * (double)c.n : x->bound;
    gen_result(g, op, 0, bound, x->exact, x->vma & ~c.mask);
    return true;
}

bool gen_all_gather(Gen *g, OpKind kind)
{
    Coll c;
    Pick p = coll_pick(0, 0);
    GenVal *x = gen_operand(g, &p);
    const TensorType *t = &x->v->type;
    if (!coll_axes(g, &c) || type_elems(t) * c.n > g->opts.max_elems)
        return false;
    bool tiled = t->rank > 0 && rng_pct(&g->rng, 50);
    int axis = rng_range(&g->rng, 0, tiled ? t->rank - 1 : t->rank);
    int64_t dims[SHARDC_MAX_RANK + 1];
    for (int d = 0, k = 0; d <= t->rank; d++) {
        if (d == axis && !tiled)
            dims[k++] = c.n;
        if (d < t->rank)
            dims[k++] = t->dims[d] * (tiled && d == axis ? c.n : 1);
    }
    TensorType rt = gen_type(g, t->dtype, t->rank + !tiled, dims);
    Op *op = coll_op(g, kind, x, &c, &rt);
    if (axis || rng_pct(&g->rng, 50))
        gen_set_attr(g, op, ATTR_KEY_AXIS, attr_i(g, axis));
    gen_set_attr(g, op, ATTR_KEY_TILED, attr_b(g, tiled));
    gen_result(g, op, 0, x->bound, x->exact, x->vma | c.mask);
    return true;
}

/* A dim of t divisible by n (tiled) or equal to n (untiled), or -1. */
static int dim_for_group(Gen *g, const TensorType *t, int64_t n, bool tiled)
{
    int cands[SHARDC_MAX_RANK], k = 0;
    for (int d = 0; d < t->rank; d++)
        if (tiled ? t->dims[d] % n == 0 : t->dims[d] == n)
            cands[k++] = d;
    return k ? cands[rng_below(&g->rng, k)] : -1;
}

bool gen_psum_scatter(Gen *g, OpKind kind)
{
    Coll c;
    Pick p = coll_pick(DTS_NUM, 1);
    GenVal *x = gen_operand(g, &p);
    const TensorType *t = &x->v->type;
    bool tiled = rng_pct(&g->rng, 70);
    int dim = coll_axes(g, &c) ? dim_for_group(g, t, c.n, tiled) : -1;
    if (dim < 0)
        return false;
    int64_t dims[SHARDC_MAX_RANK];
    int rank = 0;
    for (int d = 0; d < t->rank; d++)
        if (d != dim || tiled)
            dims[rank++] = d == dim ? t->dims[d] / c.n : t->dims[d];
    TensorType rt = gen_type(g, t->dtype, rank, dims);
    Op *op = coll_op(g, kind, x, &c, &rt);
    gen_set_attr(g, op, ATTR_KEY_SCATTER_DIMENSION, attr_i(g, dim));
    gen_set_attr(g, op, ATTR_KEY_TILED, attr_b(g, tiled));
    gen_result(g, op, 0, x->bound * (double)c.n, x->exact, x->vma | c.mask);
    return true;
}

bool gen_ppermute(Gen *g, OpKind kind)
{
    Coll c;
    Pick p = coll_pick(0, 0);
    GenVal *x = gen_operand(g, &p);
    if (!coll_axes(g, &c) || c.n > 16)
        return false;
    int perm[16], np = 0;
    AttrValue *pairs[16];
    for (int i = 0; i < c.n; i++)
        perm[i] = i;
    rng_shuffle(&g->rng, perm, (int)c.n);
    for (int i = 0; i < c.n; i++) {
        int64_t pair[2] = {i, perm[i]};
        if (rng_pct(&g->rng, 80) || (np == 0 && i == c.n - 1))
            pairs[np++] = attr_ints(g, pair, 2);
    }
    Op *op = coll_op(g, kind, x, &c, &x->v->type);
    gen_set_attr(g, op, ATTR_KEY_PERM, attr_list(g, pairs, np));
    gen_result(g, op, 0, x->bound, x->exact, x->vma | c.mask);
    return true;
}

static TensorType all_to_all_type(Gen *g, const TensorType *t, int split, int concat, int64_t n, bool tiled)
{
    int64_t dims[SHARDC_MAX_RANK], rest[SHARDC_MAX_RANK];
    int k = 0;
    if (tiled) {
        for (int d = 0; d < t->rank; d++)
            dims[d] = t->dims[d] / (d == split ? n : 1) * (d == concat ? n : 1);
        return gen_type(g, t->dtype, t->rank, dims);
    }
    for (int d = 0; d < t->rank; d++)
        if (d != split)
            rest[k++] = t->dims[d];
    for (int d = 0, j = 0; d < t->rank; d++)
        dims[d] = d == concat ? n : rest[j++];
    return gen_type(g, t->dtype, t->rank, dims);
}

bool gen_all_to_all(Gen *g, OpKind kind)
{
    Coll c;
    Pick p = coll_pick(0, 1);
    GenVal *x = gen_operand(g, &p);
    const TensorType *t = &x->v->type;
    bool tiled = rng_pct(&g->rng, 70);
    int split = coll_axes(g, &c) ? dim_for_group(g, t, c.n, tiled) : -1;
    if (split < 0)
        return false;
    int concat = rng_below(&g->rng, t->rank);
    TensorType rt = all_to_all_type(g, t, split, concat, c.n, tiled);
    Op *op = coll_op(g, kind, x, &c, &rt);
    gen_set_attr(g, op, ATTR_KEY_SPLIT_AXIS, attr_i(g, split));
    gen_set_attr(g, op, ATTR_KEY_CONCAT_AXIS, attr_i(g, concat));
    gen_set_attr(g, op, ATTR_KEY_TILED, attr_b(g, tiled));
    gen_result(g, op, 0, x->bound, x->exact, x->vma | c.mask);
    return true;
}

bool gen_axis_index(Gen *g, OpKind kind)
{
    Coll c;
    if (!coll_axes(g, &c))
        return false;
    TensorType t = gen_type(g, DT_I32, 0, NULL);
    Op *op = coll_op(g, kind, NULL, &c, &t);
    gen_result(g, op, 0, (double)c.n, true, c.mask);
    return true;
}
