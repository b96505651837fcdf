/* Custom-op templates: each writes an implementation and a rule that is
 * true of it (see shirgen_custom.h). */
#include "shirgen_custom.h"

static Pick operand_pick(int min_rank, int max_rank, bool need_exact)
{
    Pick p = pick_any(DTS_NUM);
    p.min_rank = min_rank;
    p.max_rank = max_rank;
    p.need_exact = need_exact;
    p.max_bound = 1e4;
    return p;
}

static void new_factors(GRule *r, const TensorType *t, int *ids)
{
    for (int d = 0; d < t->rank; d++)
        ids[d] = grule_factor(r, t->dims[d]);
}

/* A dim size as p * q with both > 1, or false. */
static bool split_size(Gen *g, int64_t n, int64_t *p, int64_t *q)
{
    int64_t f = rng_pct(&g->rng, 50) ? 2 : 3;
    if (n % f || n / f < 2)
        f = f == 2 ? 3 : 2;
    if (n % f || n / f < 2)
        return false;
    *p = f, *q = n / f;
    return true;
}

/* x (+ y of x's shape or a scalar) -> x's shape, elementwise. */
static void elementwise_rule(Gen *g, CustomOp *c, const TensorType *t, int ymode)
{
    GRule *r = &c->rule;
    int ids[GR_MAX_DIMS], ca = -1, cb = -1;
    int64_t p, q;
    if (rng_pct(&g->rng, 25) && split_size(g, t->dims[0], &p, &q))
        ca = grule_factor(r, p), cb = grule_factor(r, q);
    new_factors(r, t, ids);
    for (int i = 0; i < 2 + (ymode != 0); i++) {
        GRuleTensor *rt = grule_tensor(r, i == 1 + (ymode != 0));
        if (i == 1 && ymode == 2)
            continue; /* a scalar operand: an empty tensor */
        simple_dims(rt, ids, t->rank);
        if (ca >= 0)
            rt->dims[0] = (GRuleDim){{ca, cb}};
    }
    grule_sprinkle(g, r);
    if (ca < 0 && rng_pct(&g->rng, 30))
        grule_try_ellipsis(r, rng_range(&g->rng, 1, t->rank));
}

bool tmpl_elementwise(Gen *g, CustomOp *c)
{
    Pick p = operand_pick(1, 3, false);
    c->ops[0] = gen_operand(g, &p);
    const TensorType *t = &c->ops[0]->v->type;
    int ymode = rng_below(&g->rng, 3);
    c->nops = 1;
    if (ymode) {
        TensorType ty = ymode == 1 ? *t : gen_type(g, t->dtype, 0, NULL);
        c->ops[c->nops++] = gen_value_of(g, &ty, false);
    }
    impl_begin(g, c);
    GenVal *r = impl_chain(g, c->impl_args[0], ymode ? c->impl_args[1] : NULL, rng_range(&g->rng, 1, 3));
    impl_end(g, c, &r, 1);
    elementwise_rule(g, c, t, ymode);
    if (want_partition(g)) {
        Sharding *s = gen_spec(g, t, 0, 60);
        c->pin_ops[0] = c->pin_res[0] = s;
        c->pin_ops[1] = ymode == 1 ? s : ymode == 2 ? spec_empty(g, 0) : NULL;
    }
    return true;
}

/* The dims of s where keep[d], as a new closed sharding. */
static Sharding *spec_keep(Gen *g, const Sharding *s, const bool *keep)
{
    int rank = 0;
    for (int d = 0; d < s->rank; d++)
        rank += keep[d];
    Sharding *out = sharding_new_open(gen_arena(g), s->mesh, rank);
    for (int d = 0, k = 0; d < s->rank; d++)
        if (keep[d])
            out->dims[k++] = s->dims[d];
    return out;
}

/* Axes of s on the dims where !keep[d]: the ones a partial sum spans. */
static void summed_axes(Gen *g, CustomOp *c, const Sharding *s, const bool *keep)
{
    c->npsum = 0;
    for (int d = 0; d < s->rank; d++)
        for (int k = 0; !keep[d] && k < s->dims[d].num_axes; k++)
            c->psum_axes[c->npsum++] = s->dims[d].axes[k].axis;
    rng_shuffle(&g->rng, c->psum_axes, c->npsum);
}

static void reduce_rule(Gen *g, CustomOp *c, const TensorType *t, const bool *keep)
{
    GRule *r = &c->rule;
    int ids[GR_MAX_DIMS], lead = 0;
    new_factors(r, t, ids);
    simple_dims(grule_tensor(r, false), ids, t->rank);
    GRuleTensor *out = grule_tensor(r, true);
    for (int d = 0; d < t->rank; d++) {
        if (keep[d])
            grule_dim(out, ids[d], -1);
        else
            r->kind[ids[d]] = rng_pct(&g->rng, 80) ? FK_REDUCTION : FK_NEED_REPLICATION;
    }
    grule_sprinkle(g, r);
    while (lead < t->rank && keep[lead])
        lead++;
    if (lead && rng_pct(&g->rng, 30))
        grule_try_ellipsis(r, rng_range(&g->rng, 1, lead));
}

bool tmpl_reduce(Gen *g, CustomOp *c)
{
    Pick p = operand_pick(2, 3, false);
    c->ops[0] = gen_operand(g, &p);
    c->nops = 1;
    const TensorType *t = &c->ops[0]->v->type;
    bool keep[GR_MAX_DIMS];
    int64_t dims[GR_MAX_DIMS], kept[GR_MAX_DIMS], count = 1;
    int nd = 0, nk = 0;
    for (int d = 0; d < t->rank; d++) {
        keep[d] = rng_pct(&g->rng, 50) && !(d == t->rank - 1 && nd == 0);
        if (keep[d])
            kept[nk++] = t->dims[d];
        else
            dims[nd++] = d, count *= t->dims[d];
    }
    if (!sum_ok(t->dtype, count))
        return false;
    impl_begin(g, c);
    GenVal *x = impl_chain(g, c->impl_args[0], NULL, rng_range(&g->rng, 0, 2));
    TensorType rt = gen_type(g, t->dtype, nk, kept);
    Op *op = gen_op(g, OP_REDUCE_SUM, &x->v, 1, &rt, 1);
    gen_set_attr(g, op, ATTR_KEY_DIMS, attr_ints(g, dims, nd));
    GenVal *res = gen_result(g, op, 0, x->bound * (double)count, x->exact, 0);
    impl_end(g, c, &res, 1);
    reduce_rule(g, c, t, keep);
    c->inexact = true;
    if (want_partition(g)) {
        c->pin_ops[0] = gen_spec(g, t, 0, 60);
        c->pin_res[0] = spec_keep(g, c->pin_ops[0], keep);
        summed_axes(g, c, c->pin_ops[0], keep);
    }
    return true;
}
