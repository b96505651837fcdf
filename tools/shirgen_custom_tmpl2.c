/* Custom-op templates, continued: einsum, sort-like, permute, reshape and
 * opaque implementations. */
#include <string.h>
#include "shirgen_custom.h"

static Pick operand_pick(int min_rank, int max_rank, bool need_exact)
{
    Pick p = pick_any(DTS_NUM);
    p.min_rank = min_rank;
    p.max_rank = max_rank;
    p.need_exact = need_exact;
    p.max_bound = 64;
    return p;
}

static void label_tensor(GRule *r, const int *ids, const char *labels, int n, bool result)
{
    GRuleTensor *t = grule_tensor(r, result);
    for (int i = 0; i < n; i++)
        grule_dim(t, ids[labels[i] - 'a'], -1);
}

static void einsum_rule(Gen *g, CustomOp *c, const Einsum *e)
{
    int ids[26];
    GRule *r = &c->rule;
    for (int l = 0; l < 26; l++)
        ids[l] = -1;
    const char *terms[3] = {e->a, e->b, e->out};
    int lens[3] = {e->na, e->nb, e->nout};
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < lens[k]; i++)
            if (ids[terms[k][i] - 'a'] < 0)
                ids[terms[k][i] - 'a'] = grule_factor(r, e->size[terms[k][i] - 'a']);
    for (int k = 0; k < 3; k++)
        label_tensor(r, ids, terms[k], lens[k], k == 2);
    for (int l = 0; l < 26; l++)
        if (ids[l] >= 0 && !einsum_has(e->out, e->nout, (char)('a' + l)))
            r->kind[ids[l]] = rng_pct(&g->rng, 85) ? FK_REDUCTION : FK_NEED_REPLICATION;
    grule_sprinkle(g, r);
}

static Sharding *label_spec(Gen *g, const Einsum *e, const int *axis, const char *labels, int n)
{
    Sharding *s = sharding_new_open(gen_arena(g), g->mesh, n);
    for (int i = 0; i < n; i++) {
        int a = axis[labels[i] - 'a'];
        s->dims[i].is_closed = true;
        if (a < 0)
            continue;
        s->dims[i].axes = ARENA_NEW(gen_arena(g), AxisRef);
        s->dims[i].axes[0] = (AxisRef){a, 1, g->mesh->axes[a].size};
        s->dims[i].num_axes = 1;
    }
    return s;
}

/* One whole axis per label at most, each dividing its label's size. */
static void einsum_pins(Gen *g, CustomOp *c, const Einsum *e)
{
    int axis[26], order[26];
    uint32_t used = 0;
    for (int l = 0; l < 26; l++)
        axis[l] = -1, order[l] = l;
    rng_shuffle(&g->rng, order, 26);
    for (int i = 0; i < 26; i++) {
        int l = order[i], a = rng_below(&g->rng, g->mesh->num_axes);
        if (e->size[l] && !(used & (1u << a)) && e->size[l] % g->mesh->axes[a].size == 0 && rng_pct(&g->rng, 50))
            axis[l] = a, used |= 1u << a;
    }
    c->pin_ops[0] = label_spec(g, e, axis, e->a, e->na);
    c->pin_ops[1] = label_spec(g, e, axis, e->b, e->nb);
    c->pin_res[0] = label_spec(g, e, axis, e->out, e->nout);
    for (int l = 0; l < 26; l++)
        if (axis[l] >= 0 && !einsum_has(e->out, e->nout, (char)('a' + l)))
            c->psum_axes[c->npsum++] = axis[l];
}

bool tmpl_einsum(Gen *g, CustomOp *c)
{
    Pick p = operand_pick(1, 3, false);
    c->ops[0] = gen_operand(g, &p);
    Einsum e;
    einsum_build(g, &e, &c->ops[0]->v->type, true);
    DType dt = c->ops[0]->v->type.dtype;
    TensorType tb = einsum_type(g, &e, e.b, e.nb, dt), tout = einsum_type(g, &e, e.out, e.nout, dt);
    if (type_elems(&tb) > g->opts.max_elems || type_elems(&tout) > g->opts.max_elems || !sum_ok(dt, e.contraction))
        return false;
    c->ops[1] = gen_bounded(g, gen_value_of(g, &tb, false), 64);
    c->nops = 2;
    impl_begin(g, c);
    Value *ops[2] = {c->impl_args[0]->v, c->impl_args[1]->v};
    Op *op = gen_op(g, OP_EINSUM, ops, 2, &tout, 1);
    op->str = einsum_spec(g, &e, true);
    double bound = c->ops[0]->bound * c->ops[1]->bound * (double)e.contraction;
    GenVal *res = gen_result(g, op, 0, bound, exact_of(c->impl_args, 2), 0);
    impl_end(g, c, &res, 1);
    einsum_rule(g, c, &e);
    c->inexact = e.contraction > 1;
    if (want_partition(g))
        einsum_pins(g, c, &e);
    return true;
}

enum { SL_SORT, SL_TOP_K, SL_ARGMAX, SL_REDUCE_MAX, SL_REDUCE_MIN, SL_COUNT };

/* The sort-like op on the implementation's argument; d is its dim. */
static void sortlike_impl(Gen *g, CustomOp *c, int mode, int d, int64_t k)
{
    const TensorType *t = &c->ops[0]->v->type;
    int64_t dims[GR_MAX_DIMS], n = 0, dd = d;
    for (int i = 0; i < t->rank; i++)
        if (i != d || mode == SL_SORT || mode == SL_TOP_K)
            dims[n++] = i == d && mode == SL_TOP_K ? k : t->dims[i];
    static const OpKind kinds[SL_COUNT] = {OP_SORT, OP_TOP_K, OP_ARGMAX, OP_REDUCE_MAX, OP_REDUCE_MIN};
    DType dt = mode == SL_ARGMAX ? DT_I32 : t->dtype;
    TensorType types[2] = {gen_type(g, dt, (int)n, dims), gen_type(g, DT_I32, (int)n, dims)};
    GenVal *x = c->impl_args[0];
    Op *op = gen_op(g, kinds[mode], &x->v, 1, types, mode == SL_TOP_K ? 2 : 1);
    if (mode == SL_TOP_K)
        gen_set_attr(g, op, ATTR_KEY_K, attr_i(g, k));
    else if (mode == SL_REDUCE_MAX || mode == SL_REDUCE_MIN)
        gen_set_attr(g, op, ATTR_KEY_DIMS, attr_ints(g, &dd, 1));
    else
        gen_set_attr(g, op, ATTR_KEY_DIM, attr_i(g, d));
    GenVal *res[2] = {gen_result(g, op, 0, mode == SL_ARGMAX ? t->dims[d] : x->bound, x->exact, 0)};
    if (mode == SL_TOP_K)
        res[1] = gen_result(g, op, 1, (double)t->dims[d], x->exact, 0);
    impl_end(g, c, res, mode == SL_TOP_K ? 2 : 1);
}

static void sortlike_rule(Gen *g, CustomOp *c, int mode, int d, int64_t k)
{
    GRule *r = &c->rule;
    const TensorType *t = &c->ops[0]->v->type;
    int ids[GR_MAX_DIMS];
    for (int i = 0; i < t->rank; i++)
        ids[i] = grule_factor(r, t->dims[i]);
    r->kind[ids[d]] = FK_NEED_REPLICATION;
    simple_dims(grule_tensor(r, false), ids, t->rank);
    int kf = mode == SL_TOP_K ? grule_factor(r, k) : -1;
    for (int j = 0; j < c->nres; j++) {
        GRuleTensor *out = grule_tensor(r, true);
        for (int i = 0; i < t->rank; i++)
            if (i != d || mode == SL_SORT || mode == SL_TOP_K)
                grule_dim(out, i == d && mode == SL_TOP_K ? kf : ids[i], -1);
    }
    grule_sprinkle(g, r);
    if (d > 0 && rng_pct(&g->rng, 30))
        grule_try_ellipsis(r, rng_range(&g->rng, 1, d));
}

/* The need-replication dim d must be whole on every device. */
static void sortlike_pins(Gen *g, CustomOp *c, int mode, int d)
{
    const TensorType *t = &c->ops[0]->v->type;
    Sharding *s = gen_spec(g, t, 0, 60);
    s->dims[d].num_axes = 0;
    bool keep[GR_MAX_DIMS];
    for (int i = 0; i < t->rank; i++)
        keep[i] = i != d || mode == SL_SORT || mode == SL_TOP_K;
    c->pin_ops[0] = s;
    Sharding *r = sharding_new_open(gen_arena(g), g->mesh, c->res[0]->v->type.rank);
    for (int i = 0, n = 0; i < t->rank; i++)
        if (keep[i])
            r->dims[n++] = s->dims[i];
    c->pin_res[0] = c->pin_res[1] = r;
}

bool tmpl_sortlike(Gen *g, CustomOp *c)
{
    int mode = rng_below(&g->rng, SL_COUNT);
    Pick p = operand_pick(1, 3, mode == SL_TOP_K || mode == SL_ARGMAX);
    c->ops[0] = gen_operand(g, &p);
    c->nops = 1;
    const TensorType *t = &c->ops[0]->v->type;
    int d = mode == SL_TOP_K ? t->rank - 1 : rng_below(&g->rng, t->rank);
    if (!c->ops[0]->exact && (mode == SL_TOP_K || mode == SL_ARGMAX))
        return false;
    if (t->dims[d] == 0)
        return false;
    int64_t k = rng_range(&g->rng, 1, (int)(t->dims[d] < 4 ? t->dims[d] : 4));
    impl_begin(g, c);
    sortlike_impl(g, c, mode, d, k);
    sortlike_rule(g, c, mode, d, k);
    if (want_partition(g))
        sortlike_pins(g, c, mode, d);
    return true;
}

static Op *slice_along(Gen *g, GenVal *x, int d, int64_t lo, int64_t hi)
{
    const TensorType *t = &x->v->type;
    int64_t start[GR_MAX_DIMS] = {0}, limit[GR_MAX_DIMS], dims[GR_MAX_DIMS];
    memcpy(limit, t->dims, sizeof(int64_t) * (size_t)t->rank);
    memcpy(dims, t->dims, sizeof(int64_t) * (size_t)t->rank);
    start[d] = lo, limit[d] = hi, dims[d] = hi - lo;
    TensorType rt = gen_type(g, t->dtype, t->rank, dims);
    Op *op = gen_op(g, OP_SLICE, &x->v, 1, &rt, 1);
    gen_set_attr(g, op, ATTR_KEY_START, attr_ints(g, start, t->rank));
    gen_set_attr(g, op, ATTR_KEY_LIMIT, attr_ints(g, limit, t->rank));
    return op;
}

/* jnp.roll along d: data moves along the dim, a permutation factor. */
bool tmpl_permute(Gen *g, CustomOp *c)
{
    Pick p = operand_pick(1, 3, false);
    c->ops[0] = gen_operand(g, &p);
    c->nops = 1;
    const TensorType *t = &c->ops[0]->v->type;
    int d = rng_below(&g->rng, t->rank);
    if (t->dims[d] < 2)
        return false;
    int64_t s = rng_range(&g->rng, 1, (int)t->dims[d] - 1);
    impl_begin(g, c);
    GenVal *x = c->impl_args[0];
    Value *parts[2] = {slice_along(g, x, d, s, t->dims[d])->results[0], slice_along(g, x, d, 0, s)->results[0]};
    Op *op = gen_op(g, OP_CONCATENATE, parts, 2, t, 1);
    gen_set_attr(g, op, ATTR_KEY_DIM, attr_i(g, d));
    GenVal *res = gen_result(g, op, 0, x->bound, x->exact, 0);
    impl_end(g, c, &res, 1);
    int ids[GR_MAX_DIMS];
    for (int i = 0; i < t->rank; i++)
        ids[i] = grule_factor(&c->rule, t->dims[i]);
    c->rule.kind[ids[d]] = rng_pct(&g->rng, 70) ? FK_PERMUTATION : FK_NEED_REPLICATION;
    simple_dims(grule_tensor(&c->rule, false), ids, t->rank);
    simple_dims(grule_tensor(&c->rule, true), ids, t->rank);
    grule_sprinkle(g, &c->rule);
    return true;
}

/* A reshape between a "long" shape and the "short" one where long dims d
 * and d+1 are merged: the short tensor has the compound dim (a b). */
static void reshape_rule(GRule *r, const int64_t *lng, int nl, int d, bool split)
{
    GRuleTensor *in = grule_tensor(r, false), *out = grule_tensor(r, true);
    GRuleTensor *l = split ? out : in, *s = split ? in : out;
    for (int i = 0; i < nl; i++) {
        int f = grule_factor(r, lng[i]);
        grule_dim(l, f, -1);
        if (i == d)
            grule_dim(s, f, f + 1);
        else if (i != d + 1)
            grule_dim(s, f, -1);
    }
}

/* The long shape: t itself (merge) or t with dim d split in two. */
static int long_shape(Gen *g, const TensorType *t, int d, bool split, int64_t *lng)
{
    int n = 0;
    for (int i = 0; i < t->rank; i++) {
        if (split && i == d) {
            lng[n++] = 2;
            lng[n++] = t->dims[i] / 2;
        } else {
            lng[n++] = t->dims[i];
        }
    }
    return n;
}

/* Split dim d into two, or merge dims d and d+1: compound factors, which
 * must not have size 1. */
bool tmpl_reshape(Gen *g, CustomOp *c)
{
    Pick p = operand_pick(1, 3, false);
    c->ops[0] = gen_operand(g, &p);
    c->nops = 1;
    const TensorType *t = &c->ops[0]->v->type;
    int d = rng_below(&g->rng, t->rank);
    bool split = d + 1 >= t->rank || rng_pct(&g->rng, 50);
    if (split ? t->dims[d] % 2 || t->dims[d] < 4 : t->dims[d] < 2 || t->dims[d + 1] < 2)
        return false;
    int64_t lng[GR_MAX_DIMS], shrt[GR_MAX_DIMS];
    int nl = long_shape(g, t, d, split, lng), ns = 0;
    for (int i = 0; i < nl; i++)
        if (i != d + 1)
            shrt[ns++] = i == d ? lng[d] * lng[d + 1] : lng[i];
    reshape_rule(&c->rule, lng, nl, d, split);
    grule_sprinkle(g, &c->rule);
    impl_begin(g, c);
    TensorType rt = split ? gen_type(g, t->dtype, nl, lng) : gen_type(g, t->dtype, ns, shrt);
    Op *op = gen_op(g, OP_RESHAPE, &c->impl_args[0]->v, 1, &rt, 1);
    GenVal *res = gen_result(g, op, 0, c->impl_args[0]->bound, c->impl_args[0]->exact, 0);
    impl_end(g, c, &res, 1);
    return true;
}

/* Any body at all: with every factor need-replication the partitioner has
 * to run the implementation on whole values, so the rule is true. */
static void opaque_rule(GRule *r, const CustomOp *c)
{
    for (int i = 0; i < c->nops + c->nres; i++) {
        const TensorType *t = i < c->nops ? &c->ops[i]->v->type : &c->res[i - c->nops]->v->type;
        GRuleTensor *rt = grule_tensor(r, i >= c->nops);
        for (int d = 0; d < t->rank && d < GR_MAX_DIMS; d++) {
            int f = grule_factor(r, t->dims[d]);
            r->kind[f] = FK_NEED_REPLICATION;
            grule_dim(rt, f, -1);
        }
    }
}

static int total_rank(const CustomOp *c, int nres)
{
    int n = 0;
    for (int i = 0; i < c->nops; i++)
        n += c->ops[i]->v->type.rank;
    for (int i = 0; i < nres; i++)
        n += c->res[i]->v->type.rank;
    return n;
}

bool tmpl_opaque(Gen *g, CustomOp *c)
{
    Pick p = pick_any(0);
    p.max_rank = 3;
    p.max_bound = 1e4;
    c->nops = rng_range(&g->rng, 1, 2);
    for (int i = 0; i < c->nops; i++)
        c->ops[i] = gen_operand(g, &p);
    impl_begin(g, c);
    gen_ops(g, rng_range(&g->rng, 1, 4));
    GenScope *s = g->scope;
    GenVal *res[2] = {&s->vals[s->count - 1], &s->vals[rng_below(&g->rng, s->count)]};
    bool two = rng_pct(&g->rng, 40) && res[1]->v->type.rank <= 4;
    impl_end(g, c, res, two ? 2 : 1);
    if (total_rank(c, c->nres) > GR_MAX_FACTORS || c->res[0]->v->type.rank > GR_MAX_DIMS)
        return false;
    opaque_rule(&c->rule, c);
    return true;
}
