/* Generators for structure ops: sharding_constraint / reshard and call. */
#include "shirgen.h"

/* --unreduced: now and then the constraint makes its operand unreduced
 * over the minor axis of a dim the operand shards, which the partitioner
 * turns into a sharded_to_unreduced (no draw without the flag). */
static Sharding *sharded_to_unreduced(Gen *g, const Value *x)
{
    const Sharding *s = x->sharding;
    if (!g->opts.unreduced || !dtype_is_float(x->type.dtype) || !s || s->num_unreduced || !rng_pct(&g->rng, 50))
        return NULL;
    for (int d = 0; d < s->rank; d++) {
        if (!s->dims[d].num_axes)
            continue;
        Sharding *c = sharding_clone(gen_arena(g), s);
        c->dims[d].num_axes--;
        /* a closed dim left unsharded may carry no priority (the verifier
         * says so; difftest-ci seed 82 --unreduced) */
        if (!c->dims[d].num_axes && c->dims[d].is_closed)
            c->dims[d].priority = PRIORITY_NONE;
        c->unreduced = ARENA_ARRAY(gen_arena(g), AxisRef, 1);
        c->unreduced[0] = s->dims[d].axes[s->dims[d].num_axes - 1];
        c->num_unreduced = 1;
        return c;
    }
    return NULL;
}

bool gen_constraint(Gen *g, OpKind kind)
{
    Pick p = pick_any(0);
    GenVal *x = gen_operand(g, &p);
    Op *op = gen_op(g, kind, &x->v, 1, &x->v->type, 1);
    op->results[0]->sharding = sharded_to_unreduced(g, x->v);
    if (!op->results[0]->sharding)
        op->results[0]->sharding = gen_sharding(g, &x->v->type, false);
    gen_result(g, op, 0, x->bound, x->exact, x->vma);
    return true;
}

/* The callee's body is generated like any other block, on arguments that
 * carry the caller's knowledge of the operands (calls are inlined). */
static Func *gen_callee(Gen *g, GenVal **ops, int n, GenVal **res, int *nres)
{
    Func *f = gen_func_new(g, gen_name(g, "f", g->next_func++));
    GenScope s;
    scope_push(g, &s, SCOPE_FUNC, f->body, f);
    s.is_callee = true;
    for (int i = 0; i < n; i++)
        scope_add(g, func_add_arg(g, f, ops[i]->v->type), ops[i]->bound, ops[i]->exact, 0);
    gen_ops(g, rng_range(&g->rng, 1, 6));
    res[0] = &s.vals[s.count - 1];
    res[1] = &s.vals[rng_below(&g->rng, s.count)];
    *nres = rng_pct(&g->rng, 30) ? 2 : 1;
    Value *vals[2] = {res[0]->v, res[1]->v};
    func_set_results(g, f, vals, *nres);
    scope_pop(g);
    return f;
}

bool gen_call(Gen *g, OpKind kind)
{
    Pick p = pick_any(0);
    p.max_bound = 1e4;
    int n = rng_range(&g->rng, 1, 2), nres;
    GenVal *ops[2], *res[2];
    Value *vals[2];
    for (int i = 0; i < n; i++)
        ops[i] = gen_operand(g, &p), vals[i] = ops[i]->v;
    Func *f = gen_callee(g, ops, n, res, &nres);
    TensorType types[2] = {res[0]->v->type, res[1]->v->type};
    Op *op = gen_op(g, kind, vals, n, types, nres);
    op->callee = f->name;
    for (int i = 0; i < nres; i++)
        gen_result(g, op, i, res[i]->bound, res[i]->exact, 0);
    return true;
}
