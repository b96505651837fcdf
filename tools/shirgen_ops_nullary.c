/* Nullary ops and fresh inputs: new entry-function arguments (random data
 * from `shardc run --seed`) or constant-like ops elsewhere. */
#include "shirgen.h"

GenVal *gen_input(Gen *g, const TensorType *t)
{
    if (g->scope->kind != SCOPE_ENTRY || rng_pct(&g->rng, 20))
        return gen_fresh(g, t);
    Value *v = func_add_arg(g, g->scope->func, *t);
    if (rng_pct(&g->rng, 55))
        v->sharding = gen_sharding(g, t, false);
    double bound = dtype_is_float(t->dtype) ? 1 : t->dtype == DT_BOOL ? 1 : 8;
    return scope_add(g, v, bound, true, 0);
}

static AttrValue *scalar_value(Gen *g, DType dt, double *bound)
{
    int k = rng_range(&g->rng, -8, 8);
    if (*bound < (k < 0 ? -k : k))
        *bound = k < 0 ? -k : k;
    if (dt == DT_BOOL)
        return attr_b(g, k > 0);
    return dtype_is_float(dt) ? attr_f(g, k / 4.0) : attr_i(g, k);
}

/* Nested lists of the shape of t from dim d on. */
static AttrValue *const_value(Gen *g, const TensorType *t, int d, double *bound)
{
    if (d == t->rank)
        return scalar_value(g, t->dtype, bound);
    int n = (int)t->dims[d];
    AttrValue **items = ARENA_ARRAY(gen_arena(g), AttrValue *, n ? n : 1);
    for (int i = 0; i < n; i++)
        items[i] = const_value(g, t, d + 1, bound);
    return attr_list(g, items, n);
}

static GenVal *fresh_iota(Gen *g, const TensorType *t)
{
    Op *op = gen_op(g, OP_IOTA, NULL, 0, t, 1);
    int dim = rng_below(&g->rng, t->rank);
    gen_set_attr(g, op, ATTR_KEY_DIMENSION, attr_i(g, dim));
    return gen_result(g, op, 0, (double)t->dims[dim], true, 0);
}

static GenVal *fresh_constant(Gen *g, const TensorType *t)
{
    Op *op = gen_op(g, OP_CONSTANT, NULL, 0, t, 1);
    double bound = 0;
    bool splat = rng_pct(&g->rng, 25);
    gen_set_attr(g, op, ATTR_KEY_VALUE, splat ? scalar_value(g, t->dtype, &bound) : const_value(g, t, 0, &bound));
    return gen_result(g, op, 0, bound, true, 0);
}

GenVal *gen_fresh(Gen *g, const TensorType *t)
{
    int r = rng_below(&g->rng, 100);
    bool numeric = t->dtype != DT_BOOL;
    if (r < 35 && numeric && t->rank > 0)
        return fresh_iota(g, t);
    if (r < 65 && type_elems(t) <= 48)
        return fresh_constant(g, t);
    if (r < 75) {
        Op *op = gen_op(g, OP_ZEROS, NULL, 0, t, 1);
        return gen_result(g, op, 0, 0, true, 0);
    }
    double bound = 0;
    Op *op = gen_op(g, OP_FULL, NULL, 0, t, 1);
    gen_set_attr(g, op, ATTR_KEY_VALUE, scalar_value(g, t->dtype, &bound));
    return gen_result(g, op, 0, bound, true, 0);
}

/* A nullary op of the requested kind, shaped like a value in scope (so it
 * combines with it) or at random. */
bool gen_nullary(Gen *g, OpKind kind)
{
    Pick p = pick_any(kind == OP_IOTA ? DTS_NUM : 0);
    p.min_rank = kind == OP_IOTA;
    GenVal *like = rng_pct(&g->rng, 60) ? gen_pick(g, &p) : NULL;
    DType dt = like ? like->v->type.dtype : gen_dtype(g, kind == OP_IOTA ? DTS_NUM : DTS_NUM | DTS_BOOL);
    TensorType t = like ? like->v->type : gen_shape(g, dt, rng_range(&g->rng, kind == OP_IOTA, 3));
    if (kind == OP_IOTA)
        return fresh_iota(g, &t) != NULL;
    if (kind == OP_CONSTANT && type_elems(&t) > 48)
        return false;
    if (kind == OP_CONSTANT)
        return fresh_constant(g, &t) != NULL;
    Op *op = gen_op(g, kind, NULL, 0, &t, 1);
    double bound = 0;
    if (kind == OP_FULL)
        gen_set_attr(g, op, ATTR_KEY_VALUE, scalar_value(g, dt, &bound));
    gen_result(g, op, 0, bound, true, 0);
    return true;
}
