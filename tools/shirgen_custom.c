/* Custom ops (JAX custom_partitioning): template selection, the
 * implementation and partition functions, and the op itself. */
#include <stdlib.h>
#include "shirgen_custom.h"

static const struct {
    CustomTemplate fn;
    int weight;
} templates[] = {
    {tmpl_elementwise, 6}, {tmpl_reduce, 4}, {tmpl_einsum, 4}, {tmpl_sortlike, 3},
    {tmpl_permute, 2}, {tmpl_reshape, 2}, {tmpl_opaque, 3},
};

enum { NUM_TEMPLATES = sizeof templates / sizeof templates[0] };

static CustomTemplate draw_template(Gen *g)
{
    int total = 0;
    for (int i = 0; i < NUM_TEMPLATES; i++)
        total += templates[i].weight;
    int r = rng_below(&g->rng, total);
    for (int i = 0; i < NUM_TEMPLATES; i++) {
        if (r < templates[i].weight)
            return templates[i].fn;
        r -= templates[i].weight;
    }
    return tmpl_elementwise;
}

void impl_begin(Gen *g, CustomOp *c)
{
    c->impl = gen_func_new(g, gen_name(g, "impl", g->next_func++));
    scope_push(g, &c->impl_scope, SCOPE_FUNC, c->impl->body, c->impl);
    for (int i = 0; i < c->nops; i++) {
        Value *a = func_add_arg(g, c->impl, c->ops[i]->v->type);
        c->impl_args[i] = scope_add(g, a, c->ops[i]->bound, c->ops[i]->exact, 0);
    }
}

void impl_end(Gen *g, CustomOp *c, GenVal **res, int n)
{
    Value *vals[2];
    for (int i = 0; i < n; i++)
        vals[i] = res[i]->v, c->res[i] = res[i];
    c->nres = n;
    func_set_results(g, c->impl, vals, n);
    scope_pop(g);
}

/* The first three also take integers. */
static const OpKind float_unary[] = {OP_NEG, OP_ABS, OP_RELU, OP_EXP, OP_LOG, OP_TANH, OP_SIN,
                                     OP_SQRT, OP_RSQRT, OP_GELU, OP_LOGISTIC, OP_COS};
static const OpKind binary_kinds[] = {OP_ADD, OP_SUB, OP_MUL, OP_MAX, OP_MIN, OP_DIV, OP_POW};

/* n elementwise steps on x, with y (x's shape or a scalar) or scalar
 * constants as second operands: ops that have a local form. */
GenVal *impl_chain(Gen *g, GenVal *x, GenVal *y, int n)
{
    bool is_float = dtype_is_float(x->v->type.dtype);
    for (int i = 0; i < n; i++) {
        if (rng_pct(&g->rng, 45)) {
            x = gen_unary_on(g, float_unary[rng_below(&g->rng, is_float ? 12 : 3)], x);
            continue;
        }
        GenVal *b = y && rng_pct(&g->rng, 60) ? y : gen_full(g, x->v->type.dtype, rng_range(&g->rng, 1, 3), NULL);
        OpKind kind = binary_kinds[rng_below(&g->rng, is_float ? 7 : 5)];
        x = rng_pct(&g->rng, 70) || b->v->type.rank == 0 ? gen_binary_on(g, kind, x, b) : gen_binary_on(g, kind, b, x);
    }
    return x;
}

bool want_partition(Gen *g)
{
    return (g->opts.features & FEAT_PARTITION_FN) && g->scope->outer == NULL && rng_pct(&g->rng, 45);
}

void simple_dims(GRuleTensor *t, const int *ids, int rank)
{
    for (int d = 0; d < rank; d++)
        grule_dim(t, ids[d], -1);
}

/* The partition function: the implementation on local types, then the
 * psum that completes sharded reduction factors. */
static Func *make_partition(Gen *g, CustomOp *c)
{
    Func *f = gen_func_new(g, gen_name(g, "part", g->next_func++));
    GenScope s;
    scope_push(g, &s, SCOPE_FUNC, f->body, f);
    Value *args[2], *res[2];
    for (int i = 0; i < c->nops; i++)
        args[i] = func_add_arg(g, f, local_type(g, &c->ops[i]->v->type, c->pin_ops[i]));
    if (!localize_body(g, c->impl->body, args, res)) {
        fprintf(stderr, "shirgen: internal error: no local form for @%s\n", c->impl->name);
        abort();
    }
    if (c->npsum) {
        Op *op = gen_op(g, OP_PSUM, &res[0], 1, &res[0]->type, 1);
        gen_set_attr(g, op, ATTR_KEY_AXES, attr_axes(g, c->psum_axes, c->npsum));
        if (g->m->num_meshes > 1)
            gen_set_attr(g, op, ATTR_KEY_MESH, attr_sym(g, g->mesh->name));
        res[0] = op->results[0];
    }
    func_set_results(g, f, res, c->nres);
    scope_pop(g);
    return f;
}

/* Operands pinned to the partition function's layout, as JAX users do
 * with with_sharding_constraint before a custom_partitioning call. */
static void pin_operands(Gen *g, CustomOp *c, Value **vals)
{
    for (int i = 0; i < c->nops; i++) {
        vals[i] = c->ops[i]->v;
        if (!c->pin_ops[i])
            continue;
        Op *op = gen_op(g, OP_SHARDING_CONSTRAINT, &vals[i], 1, &vals[i]->type, 1);
        op->results[0]->sharding = c->pin_ops[i];
        vals[i] = gen_result(g, op, 0, c->ops[i]->bound, c->ops[i]->exact, 0)->v;
    }
}

bool gen_custom(Gen *g, OpKind kind)
{
    CustomOp c = {0};
    if (!draw_template(g)(g, &c))
        return false;
    Func *part = c.pin_ops[0] ? make_partition(g, &c) : NULL;
    Value *vals[2];
    pin_operands(g, &c, vals);
    TensorType types[2];
    for (int i = 0; i < c.nres; i++)
        types[i] = c.res[i]->v->type;
    Op *op = gen_op(g, kind, vals, c.nops, types, c.nres);
    op->callee = c.impl->name;
    grule_attrs(g, op, &c.rule);
    if (part)
        gen_set_attr(g, op, ATTR_KEY_PARTITION, attr_sym(g, part->name));
    for (int i = 0; i < c.nres; i++) {
        op->results[i]->sharding = part ? c.pin_res[i] : NULL;
        bool exact = c.res[i]->exact && !(c.inexact && dtype_is_float(types[i].dtype));
        gen_result(g, op, i, c.res[i]->bound, exact, 0);
    }
    return true;
}
