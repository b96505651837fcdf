/* Generators for control flow: `while` as a counted loop (what JAX's
 * fori_loop lowers to, its bound sometimes carried as fori_loop carries
 * it) and `case` with two or three branches. Region bodies are random ops
 * on the carried values (or branch operands) and on values captured from
 * the enclosing block, so reshards of captured values (hoisted out of
 * loops) and of carried values are exercised. Carried floats are kept
 * bounded by tanh each iteration, so the reference and the SPMD run stay
 * within tolerance whatever the trip count.
 *
 * In a shard_map body the same ops are per-device control flow: their
 * regions hold collectives when every device runs them alike, and their
 * trip count or branch index is now and then axis_index, so that devices
 * differ (then no collectives in the region). */
#include <math.h>
#include <string.h>
#include "shirgen.h"

enum { MAX_CARRIED = 2, MAX_TRIPS = 3, MAX_CAPTURED = 4 };

static Value *const_i32(Gen *g, int64_t v)
{
    TensorType t = gen_type(g, DT_I32, 0, NULL);
    Op *op = gen_op(g, OP_CONSTANT, NULL, 0, &t, 1);
    gen_set_attr(g, op, ATTR_KEY_VALUE, attr_i(g, v));
    return op->results[0];
}

static Block *new_region(Gen *g)
{
    Block *b = ARENA_NEW(gen_arena(g), Block);
    b->parent_func = g->scope->func;
    return b;
}

/* A region's scope. Inside a shard_map body a region is manual too, so
 * collectives and axis_index may appear in it -- unless devices may
 * disagree on whether or how often it runs (`varying`: the axes its trip
 * count or branch index varies over): a collective there would wait for
 * devices that never reach it. */
static void region_push(Gen *g, GenScope *s, Block *b, uint32_t varying)
{
    GenScope *outer = g->scope;
    bool manual = outer->kind == SCOPE_MANUAL;
    scope_push(g, s, manual ? SCOPE_MANUAL : SCOPE_FUNC, b, outer->func);
    s->manual_axes = manual && !varying ? outer->manual_axes : 0;
    s->control = true;
}

/* A per-device value: axis_index over some manual axes, for a trip count
 * or a branch index that differs between devices; NULL outside shard_map
 * bodies. (In a partially manual body the partitioner may still put
 * collectives over the free axes into the region: the devices of such a
 * group agree on the control flow, so they are valid.) */
static GenVal *device_index(Gen *g)
{
    if (g->scope->kind != SCOPE_MANUAL || !g->scope->manual_axes || !rng_pct(&g->rng, 40))
        return NULL;
    return gen_axis_index(g, OP_AXIS_INDEX) ? &g->scope->vals[g->scope->count - 1] : NULL;
}

/* A few of the enclosing scope's values, usable in the region as they are. */
static void capture_some(Gen *g, const GenScope *outer)
{
    for (int i = 0; i < MAX_CAPTURED && outer->count; i++) {
        const GenVal *v = &outer->vals[rng_below(&g->rng, outer->count)];
        scope_add(g, v->v, v->bound, v->exact, v->vma);
    }
}

static void set_returns(Gen *g, Block *b, Value **vals, int n)
{
    b->num_returns = n;
    b->returns = arena_memdup(gen_arena(g), vals, (size_t)n, sizeof(Value *));
}

static void attach_regions(Gen *g, Op *op, Block **regions, int n)
{
    op->num_regions = n;
    op->regions = arena_memdup(gen_arena(g), regions, (size_t)n, sizeof(Block *));
    for (int k = 0; k < n; k++)
        regions[k]->parent_op = op;
}

/* ---- while ----------------------------------------------------------------------- */

typedef struct Loop {
    int num_carried;            /* float values, after the counter (and the bound) */
    GenVal *init[MAX_CARRIED];
    bool carry_bound;           /* the trip count carried, fori_loop style */
    int64_t trips;
    Value *device_bound;        /* a per-device bound (axis_index), or NULL */
    uint32_t trip_vma;          /* the axes the trip count varies over */
    Value *operands[MAX_CARRIED + 2];
    TensorType types[MAX_CARRIED + 2];
    uint32_t vma[MAX_CARRIED + 2]; /* the carried values', after the body's fixpoint */
    int n;                      /* operands in all */
} Loop;

/* cond(i, [n,] xs...): i < n, n carried, per-device (seen from the
 * enclosing block) or a constant. */
static Block *loop_cond(Gen *g, Loop *l)
{
    Block *b = new_region(g);
    GenScope s;
    region_push(g, &s, b, l->trip_vma);
    Value *args[MAX_CARRIED + 2];
    for (int i = 0; i < l->n; i++)
        args[i] = block_add_arg(g, b, l->types[i], gen_name(g, "c", g->next_value++));
    Value *bound = l->device_bound ? l->device_bound : l->carry_bound ? NULL : const_i32(g, l->trips);
    Value *cmp[2] = {args[0], l->carry_bound ? args[1] : bound};
    TensorType pred = gen_type(g, DT_BOOL, 0, NULL);
    Op *lt = gen_op(g, OP_COMPARE, cmp, 2, &pred, 1);
    gen_set_attr(g, lt, ATTR_KEY_DIRECTION, attr_s(g, "lt"));
    set_returns(g, b, &lt->results[0], 1);
    scope_pop(g);
    return b;
}

/* body(i, [n,] xs...): random ops, then (i + 1, [n,] tanh-bounded xs);
 * l->vma gets the carried values' VMA over all iterations. */
static Block *loop_body(Gen *g, Loop *l, const GenScope *outer)
{
    Block *b = new_region(g);
    GenScope s;
    region_push(g, &s, b, l->trip_vma);
    Value *args[MAX_CARRIED + 2], *next[MAX_CARRIED + 2];
    for (int i = 0; i < l->n; i++)
        args[i] = block_add_arg(g, b, l->types[i], gen_name(g, "b", g->next_value++));
    int first = l->carry_bound ? 2 : 1;
    capture_some(g, outer);
    for (int i = 0; i < l->num_carried; i++)
        scope_add(g, args[first + i], l->init[i]->bound, false, l->init[i]->vma);
    gen_ops(g, rng_range(&g->rng, 1, 4));
    TensorType t32 = l->types[0];
    Value *step[2] = {args[0], const_i32(g, 1)};
    next[0] = gen_op(g, OP_ADD, step, 2, &t32, 1)->results[0];
    if (l->carry_bound)
        next[1] = args[1];
    for (int i = 0; i < l->num_carried; i++) {
        GenVal *v = gen_value_of(g, &l->types[first + i], false);
        next[first + i] = gen_bounded(g, v, l->init[i]->bound)->v;
    }
    set_returns(g, b, next, l->n);
    gen_loop_vma(g, b, g->scope, l->vma, l->n);
    scope_pop(g);
    return b;
}

/* The loop's bound: a constant trip count, or in a shard_map body now and
 * then axis_index, so that each device runs its own number of iterations. */
static void loop_bound(Gen *g, Loop *l)
{
    l->trips = rng_range(&g->rng, 0, MAX_TRIPS);
    l->carry_bound = rng_pct(&g->rng, 40);
    GenVal *d = device_index(g);
    l->device_bound = d ? d->v : NULL;
    l->trip_vma = d ? d->vma : 0;
}

/* The loop's operands: the counter from 0, maybe the bound, and floats
 * bounded so that every iteration keeps them within the same bound. */
static bool loop_operands(Gen *g, Loop *l)
{
    Pick p = pick_any(DTS_FLOAT & ~dt_bit(DT_BF16));
    p.max_bound = 1e4;
    loop_bound(g, l);
    l->num_carried = rng_range(&g->rng, 1, MAX_CARRIED);
    l->n = 0;
    l->vma[l->n] = 0;
    l->operands[l->n++] = const_i32(g, 0);
    if (l->carry_bound) {
        l->vma[l->n] = l->trip_vma;
        l->operands[l->n++] = l->device_bound ? l->device_bound : const_i32(g, l->trips);
    }
    for (int i = 0; i < l->num_carried; i++) {
        GenVal *x = gen_operand(g, &p);
        if (!x)
            return false;
        l->init[i] = gen_bounded(g, x, 1);
        l->vma[l->n] = l->init[i]->vma;
        l->operands[l->n++] = l->init[i]->v;
    }
    for (int i = 0; i < l->n; i++)
        l->types[i] = l->operands[i]->type;
    return true;
}

bool gen_while(Gen *g, OpKind kind)
{
    Loop l;
    if (!loop_operands(g, &l))
        return false;
    GenScope *outer = g->scope;
    Block *regions[2] = {loop_cond(g, &l), loop_body(g, &l, outer)};
    Op *op = gen_op(g, kind, l.operands, l.n, l.types, l.n);
    attach_regions(g, op, regions, 2);
    int first = l.carry_bound ? 2 : 1;
    for (int i = 0; i < l.num_carried; i++)
        gen_result(g, op, first + i, l.init[i]->bound, false, l.vma[first + i] | l.trip_vma);
    return true;
}

/* ---- case ------------------------------------------------------------------------ */

/* A branch returning a value of type t, from random ops on captured values;
 * *vma collects what the returned values vary over. */
static Block *case_branch(Gen *g, const GenScope *outer, const TensorType *t, uint32_t varying, double *bound,
                          uint32_t *vma)
{
    Block *b = new_region(g);
    GenScope s;
    region_push(g, &s, b, varying);
    capture_some(g, outer);
    gen_ops(g, rng_range(&g->rng, 0, 3));
    GenVal *r = gen_value_of(g, t, false);
    if (r->bound > *bound)
        *bound = r->bound;
    *vma |= r->vma;
    set_returns(g, b, &r->v, 1);
    scope_pop(g);
    return b;
}

/* The branch index: per device (axis_index) in a shard_map body now and
 * then, else an exact integer scalar (both runs take the same branch), or
 * a constant; out-of-range indices take the last branch. *vma: the axes it
 * varies over. */
static Value *case_index(Gen *g, uint32_t *vma)
{
    Pick p = pick_any(dt_bit(DT_I32));
    p.max_rank = 0;
    p.need_exact = true;
    GenVal *i = device_index(g);
    if (!i)
        i = gen_pick(g, &p);
    *vma = i ? i->vma : 0;
    return i ? i->v : const_i32(g, rng_range(&g->rng, -1, 3));
}

bool gen_case(Gen *g, OpKind kind)
{
    Pick p = pick_any(DTS_NUM & ~dt_bit(DT_BF16));
    p.max_bound = 1e4;
    GenVal *like = gen_operand(g, &p);
    if (!like)
        return false;
    TensorType t = like->v->type;
    uint32_t index_vma, vma = 0;
    Value *index = case_index(g, &index_vma);
    GenScope *outer = g->scope;
    int n = rng_range(&g->rng, 2, 3);
    double bound = 0;
    Block *branches[3];
    for (int k = 0; k < n; k++)
        branches[k] = case_branch(g, outer, &t, index_vma, &bound, &vma);
    Op *op = gen_op(g, kind, &index, 1, &t, 1);
    attach_regions(g, op, branches, n);
    gen_result(g, op, 0, bound, false, vma | index_vma);
    return true;
}

/* ---- reduce with a body ---------------------------------------------------------- */

static Value *scalar_arg(Gen *g, Block *b, DType dt, const char *prefix)
{
    return block_add_arg(g, b, gen_type(g, dt, 0, NULL), gen_name(g, prefix, g->next_value++));
}

static Value *body_op(Gen *g, OpKind kind, Value *a, Value *b, DType dt, const char *direction)
{
    Value *ops[2] = {a, b};
    TensorType t = gen_type(g, dt, 0, NULL);
    Op *op = gen_op(g, kind, ops, 2, &t, 1);
    if (direction)
        gen_set_attr(g, op, ATTR_KEY_DIRECTION, attr_s(g, direction));
    return op->results[0];
}

/* A comparator's compare of the keys, in StableHLO's total order when
 * `total` (NaN and -0 then order as JAX's sort orders them). */
static Value *key_compare(Gen *g, Value *a, Value *b, const char *direction, bool total)
{
    Value *c = body_op(g, OP_COMPARE, a, b, DT_BOOL, direction);
    if (total)
        gen_set_attr(g, c->def, ATTR_KEY_COMPARE_TYPE, attr_s(g, "TOTALORDER"));
    return c;
}

static Value *select_of(Gen *g, Value *p, Value *a, Value *b)
{
    Value *ops[3] = {p, a, b};
    TensorType t = a->type;
    return gen_op(g, OP_SELECT, ops, 3, &t, 1)->results[0];
}

/* argmax's body: (a, ai, b, bi) -> the larger value with its index, the
 * smaller index on ties (JAX's argmax lowering). */
static Block *argmax_body(Gen *g, DType dt)
{
    Block *b = new_region(g);
    GenScope s;
    scope_push(g, &s, SCOPE_FUNC, b, g->scope->func);
    Value *a = scalar_arg(g, b, dt, "ra"), *ai = scalar_arg(g, b, DT_I32, "ri");
    Value *x = scalar_arg(g, b, dt, "rb"), *xi = scalar_arg(g, b, DT_I32, "rj");
    Value *gt = body_op(g, OP_COMPARE, a, x, DT_BOOL, "gt");
    Value *eq = body_op(g, OP_COMPARE, a, x, DT_BOOL, "eq");
    Value *lo = body_op(g, OP_COMPARE, ai, xi, DT_BOOL, "lt");
    Value *keep = body_op(g, OP_OR, gt, body_op(g, OP_AND, eq, lo, DT_BOOL, NULL), DT_BOOL, NULL);
    Value *next[2] = {select_of(g, keep, a, x), select_of(g, keep, ai, xi)};
    set_returns(g, b, next, 2);
    scope_pop(g);
    return b;
}

/* JAX's argmax as StableHLO writes it: a reduce of the values and an iota
 * along one dim, from (-inf, 0). Exact values only, as for argmax: the
 * index jumps when near-equal values swap (seed 32852 of the first
 * linear-algebra campaign reduced a bf16 einsum over 4 terms: index 551 in
 * the SPMD run, 548 in the reference). */
bool gen_reduce_region(Gen *g, OpKind kind)
{
    Pick p = pick_any(DTS_FLOAT);
    p.min_rank = 1;
    p.max_bound = 1e4;
    p.need_exact = true;
    GenVal *x = gen_operand(g, &p);
    if (!x)
        return false;
    const TensorType *t = &x->v->type;
    int dim = rng_below(&g->rng, t->rank);
    if (t->dims[dim] == 0)
        return false; /* the result would be the init, -inf */
    TensorType it = gen_type(g, DT_I32, t->rank, t->dims), low_t = gen_type(g, t->dtype, 0, NULL);
    Op *iota = gen_op(g, OP_IOTA, NULL, 0, &it, 1);
    gen_set_attr(g, iota, ATTR_KEY_DIMENSION, attr_i(g, dim));
    Op *low = gen_op(g, OP_CONSTANT, NULL, 0, &low_t, 1);
    gen_set_attr(g, low, ATTR_KEY_VALUE, attr_f(g, -INFINITY));
    Value *operands[4] = {x->v, iota->results[0], low->results[0], const_i32(g, 0)};
    int64_t dims[SHARDC_MAX_RANK];
    for (int d = 0, n = 0; d < t->rank; d++)
        if (d != dim)
            dims[n++] = t->dims[d];
    TensorType rt[2] = {gen_type(g, t->dtype, t->rank - 1, dims), gen_type(g, DT_I32, t->rank - 1, dims)};
    Op *op = gen_op(g, kind, operands, 4, rt, 2);
    int64_t reduced = dim;
    gen_set_attr(g, op, ATTR_KEY_DIMS, attr_ints(g, &reduced, 1));
    Block *body = argmax_body(g, t->dtype);
    attach_regions(g, op, &body, 1);
    gen_result(g, op, 0, x->bound, x->exact, x->vma);
    gen_result(g, op, 1, (double)t->dims[dim], true, x->vma);
    return true;
}

/* ---- scatter's update region ------------------------------------------------------ */

/* One return of a scatter region from (cur, upd): "add" and "max" are one
 * op (the combiner the partitioner keeps), "select" the max written as
 * compare + select, which no combiner names (the region runs per element
 * and the partitioner gathers the updates' batch dims). */
static Value *scatter_return(Gen *g, const char *kind, Value *cur, Value *upd, DType dt)
{
    if (strcmp(kind, "select") == 0)
        return select_of(g, body_op(g, OP_COMPARE, upd, cur, DT_BOOL, "gt"), upd, cur);
    return body_op(g, strcmp(kind, "add") == 0 ? OP_ADD : OP_MAX, cur, upd, dt, NULL);
}

void gen_scatter_region(Gen *g, Op *op, const DType *dts, const char *const *kinds, int n)
{
    Block *b = new_region(g);
    GenScope s;
    scope_push(g, &s, SCOPE_FUNC, b, g->scope->func);
    Value *args[2 * MAX_SCATTER_INPUTS], *next[MAX_SCATTER_INPUTS];
    for (int i = 0; i < 2 * n; i++)
        args[i] = scalar_arg(g, b, dts[i % n], i < n ? "sc" : "su");
    for (int i = 0; i < n; i++)
        next[i] = scatter_return(g, kinds[i], args[i], args[n + i], dts[i]);
    set_returns(g, b, next, n);
    scope_pop(g);
    attach_regions(g, op, &b, 1);
}

/* ---- sort with a comparator ------------------------------------------------------ */

/* (a, b, ia, ib) -> a before b: keys by `direction`, and on equal keys
 * the smaller index when tie_break (else stability keeps their order, as
 * jnp.argsort's comparator on the keys alone with is_stable). */
static Block *sort_comparator(Gen *g, DType dt, const char *direction, bool tie_break)
{
    Block *b = new_region(g);
    GenScope s;
    scope_push(g, &s, SCOPE_FUNC, b, g->scope->func);
    Value *a = scalar_arg(g, b, dt, "ca"), *x = scalar_arg(g, b, dt, "cb");
    Value *ai = scalar_arg(g, b, DT_I32, "ci"), *xi = scalar_arg(g, b, DT_I32, "cj");
    bool total = dtype_is_float(dt) && rng_pct(&g->rng, 50); /* as JAX writes jnp.sort's comparators */
    Value *before = key_compare(g, a, x, direction, total);
    if (tie_break) {
        Value *eq = key_compare(g, a, x, "eq", total);
        Value *lo = body_op(g, OP_COMPARE, ai, xi, DT_BOOL, "lt");
        before = body_op(g, OP_OR, before, body_op(g, OP_AND, eq, lo, DT_BOOL, NULL), DT_BOOL, NULL);
    }
    set_returns(g, b, &before, 1);
    scope_pop(g);
    return b;
}

/* JAX's argsort as lax.sort writes it: (keys, iota along dim) sorted by a
 * comparator on the keys. Exact keys only: the indices jump when
 * near-equal keys swap (as for argmax). */
bool gen_sort_region(Gen *g, OpKind kind, GenVal *x)
{
    const TensorType *t = &x->v->type;
    if (!x->exact || t->rank == 0)
        return false;
    int dim = rng_below(&g->rng, t->rank);
    TensorType it = gen_type(g, DT_I32, t->rank, t->dims);
    Op *iota = gen_op(g, OP_IOTA, NULL, 0, &it, 1);
    gen_set_attr(g, iota, ATTR_KEY_DIMENSION, attr_i(g, dim));
    Value *operands[2] = {x->v, iota->results[0]};
    TensorType rt[2] = {x->v->type, it};
    Op *op = gen_op(g, kind, operands, 2, rt, 2);
    gen_set_attr(g, op, ATTR_KEY_DIM, attr_i(g, dim));
    if (rng_pct(&g->rng, 50))
        gen_set_attr(g, op, ATTR_KEY_IS_STABLE, attr_b(g, true));
    Block *cmp = sort_comparator(g, t->dtype, rng_pct(&g->rng, 50) ? "lt" : "gt", rng_pct(&g->rng, 50));
    attach_regions(g, op, &cmp, 1);
    gen_result(g, op, 0, x->bound, true, x->vma);
    gen_result(g, op, 1, (double)t->dims[dim], true, x->vma);
    return true;
}
