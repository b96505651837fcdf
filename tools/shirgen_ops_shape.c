/* Generators for contractions, reductions and data movement: einsum,
 * reduce_*, transpose, reshape, broadcast, concatenate. */
#include <string.h>
#include "shirgen.h"

static Pick pick_ranked(unsigned dtypes, int min_rank, int max_rank)
{
    Pick p = pick_any(dtypes);
    p.min_rank = min_rank;
    p.max_rank = max_rank;
    p.max_bound = 1e4;
    return p;
}

/* ---- einsum ---------------------------------------------------------------- */

enum { ROLE_BATCH, ROLE_CONTRACT, ROLE_FREE, ROLE_SUM };

static void einsum_roles(Gen *g, Einsum *e, const TensorType *ta, bool two)
{
    for (int d = 0; d < ta->rank; d++) {
        char l = e->a[d];
        int role = two ? rng_below(&g->rng, 4) : (rng_pct(&g->rng, 70) ? ROLE_FREE : ROLE_SUM);
        if (role == ROLE_SUM && two && rng_pct(&g->rng, 70))
            role = ROLE_CONTRACT; /* a label summed away on one side only is rarer in practice */
        if (role == ROLE_BATCH || role == ROLE_CONTRACT)
            e->b[e->nb++] = l;
        if (role == ROLE_BATCH || role == ROLE_FREE)
            e->out[e->nout++] = l;
        if (role == ROLE_CONTRACT || role == ROLE_SUM)
            e->contraction *= e->size[l - 'a'];
    }
}

static void shuffle_labels(Gen *g, char *labels, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = rng_below(&g->rng, i + 1);
        char t = labels[i];
        labels[i] = labels[j];
        labels[j] = t;
    }
}

TensorType einsum_type(Gen *g, const Einsum *e, const char *labels, int n, DType dt)
{
    int64_t dims[12];
    for (int i = 0; i < n; i++)
        dims[i] = e->size[labels[i] - 'a'];
    return gen_type(g, dt, n, dims);
}

bool einsum_has(const char *labels, int n, char l)
{
    for (int i = 0; i < n; i++)
        if (labels[i] == l)
            return true;
    return false;
}

/* Labels of `a`, then roles, then new free labels of b. */
void einsum_build(Gen *g, Einsum *e, const TensorType *ta, bool two)
{
    int letters[26];
    for (int i = 0; i < 26; i++)
        letters[i] = i;
    rng_shuffle(&g->rng, letters, 26);
    *e = (Einsum){.na = ta->rank, .contraction = 1};
    for (int d = 0; d < ta->rank; d++) {
        e->a[d] = (char)('a' + letters[d]);
        e->size[letters[d]] = ta->dims[d];
    }
    einsum_roles(g, e, ta, two);
    for (int k = 0, extra = two ? rng_range(&g->rng, 0, 2) : 0; k < extra; k++) {
        int l = letters[ta->rank + k];
        e->size[l] = rng_pct(&g->rng, 50) ? 4 : rng_range(&g->rng, 1, 8);
        e->b[e->nb++] = e->out[e->nout++] = (char)('a' + l);
    }
    shuffle_labels(g, e->b, e->nb);
    shuffle_labels(g, e->out, e->nout);
}

const char *einsum_spec(Gen *g, const Einsum *e, bool two)
{
    char buf[40];
    snprintf(buf, sizeof buf, "%.*s%s%.*s->%.*s", e->na, e->a, two ? "," : "", two ? e->nb : 0, e->b,
             e->nout, e->out);
    return arena_strdup(gen_arena(g), buf);
}

bool gen_einsum(Gen *g, OpKind kind)
{
    Pick p = pick_ranked(DTS_NUM, 1, 4);
    GenVal *a = gen_operand(g, &p);
    bool two = rng_pct(&g->rng, 80);
    Einsum e;
    einsum_build(g, &e, &a->v->type, two);
    DType dt = a->v->type.dtype;
    TensorType tb = einsum_type(g, &e, e.b, e.nb, dt), tout = einsum_type(g, &e, e.out, e.nout, dt);
    if (type_elems(&tb) > g->opts.max_elems || type_elems(&tout) > g->opts.max_elems || !sum_ok(dt, e.contraction))
        return false;
    GenVal *in[2] = {gen_bounded(g, a, 64), two ? gen_bounded(g, gen_value_of(g, &tb, false), 64) : NULL};
    Value *ops[2] = {in[0]->v, two ? in[1]->v : NULL};
    Op *op = gen_op(g, kind, ops, two ? 2 : 1, &tout, 1);
    op->str = einsum_spec(g, &e, two);
    double bound = in[0]->bound * (two ? in[1]->bound : 1) * (double)e.contraction;
    bool exact = exact_of(in, two ? 2 : 1) && (!dtype_is_float(dt) || e.contraction <= 1);
    gen_result(g, op, 0, bound, exact, vma_of(in, two ? 2 : 1));
    return true;
}

/* ---- reductions ----------------------------------------------------------------- */

bool gen_reduce(Gen *g, OpKind kind)
{
    Pick p = pick_ranked(kind == OP_REDUCE_MEAN ? DTS_FLOAT : DTS_NUM, 0, SHARDC_MAX_RANK);
    GenVal *x = gen_operand(g, &p);
    const TensorType *t = &x->v->type;
    int64_t dims[SHARDC_MAX_RANK], kept[SHARDC_MAX_RANK], count = 1;
    int nd = 0, nk = 0;
    for (int d = 0; d < t->rank; d++) {
        if (rng_pct(&g->rng, 50))
            dims[nd++] = d, count *= t->dims[d];
        else
            kept[nk++] = t->dims[d];
    }
    if ((kind == OP_REDUCE_SUM || kind == OP_REDUCE_MEAN) && !sum_ok(t->dtype, count))
        return false;
    TensorType rt = gen_type(g, t->dtype, nk, kept);
    Op *op = gen_op(g, kind, &x->v, 1, &rt, 1);
    gen_set_attr(g, op, ATTR_KEY_DIMS, attr_ints(g, dims, nd));
    bool is_float = dtype_is_float(t->dtype), sum = kind == OP_REDUCE_SUM;
    bool exact = x->exact && (kind == OP_REDUCE_MAX || kind == OP_REDUCE_MIN || !is_float ||
                              count <= (sum ? 2 : 1));
    gen_result(g, op, 0, sum ? x->bound * (double)count : x->bound, exact, x->vma);
    return true;
}

/* ---- transpose, reshape, broadcast, concatenate ------------------------------------ */

bool gen_transpose(Gen *g, OpKind kind)
{
    Pick p = pick_ranked(0, 1, SHARDC_MAX_RANK);
    GenVal *x = gen_operand(g, &p);
    const TensorType *t = &x->v->type;
    int perm[SHARDC_MAX_RANK];
    int64_t perm64[SHARDC_MAX_RANK], dims[SHARDC_MAX_RANK];
    for (int d = 0; d < t->rank; d++)
        perm[d] = d;
    rng_shuffle(&g->rng, perm, t->rank);
    for (int d = 0; d < t->rank; d++)
        perm64[d] = perm[d], dims[d] = t->dims[perm[d]];
    TensorType rt = gen_type(g, t->dtype, t->rank, dims);
    Op *op = gen_op(g, kind, &x->v, 1, &rt, 1);
    gen_set_attr(g, op, ATTR_KEY_PERMUTATION, attr_ints(g, perm64, t->rank));
    gen_result(g, op, 0, x->bound, x->exact, x->vma);
    return true;
}

/* One reshaping step on dims[0..*rank): split, merge, add or drop a 1. */
static void reshape_step(Gen *g, int64_t *dims, int *rank)
{
    int r = rng_below(&g->rng, 4), d = rng_below(&g->rng, *rank > 0 ? *rank : 1);
    int64_t f = rng_pct(&g->rng, 50) ? 2 : 3;
    if (r == 0 && *rank > 0 && *rank < 6 && dims[d] % f == 0 && dims[d] > f) {
        memmove(&dims[d + 1], &dims[d], sizeof(int64_t) * (size_t)(*rank - d));
        dims[d] = f, dims[d + 1] /= f, (*rank)++;
    } else if (r == 1 && *rank >= 2 && d + 1 < *rank) {
        dims[d] *= dims[d + 1];
        memmove(&dims[d + 1], &dims[d + 2], sizeof(int64_t) * (size_t)(*rank - d - 2));
        (*rank)--;
    } else if (r == 2 && *rank < 6) {
        memmove(&dims[d + 1], &dims[d], sizeof(int64_t) * (size_t)(*rank - d));
        dims[d] = 1, (*rank)++;
    } else if (r == 3 && *rank > 0 && dims[d] == 1) {
        memmove(&dims[d], &dims[d + 1], sizeof(int64_t) * (size_t)(*rank - d - 1));
        (*rank)--;
    }
}

bool gen_reshape(Gen *g, OpKind kind)
{
    Pick p = pick_ranked(0, 0, 6);
    GenVal *x = gen_operand(g, &p);
    int64_t dims[SHARDC_MAX_RANK];
    int rank = x->v->type.rank;
    if (rank) /* a scalar's dims are NULL, which memcpy must not see */
        memcpy(dims, x->v->type.dims, sizeof(int64_t) * (size_t)rank);
    for (int i = 0, n = rng_range(&g->rng, 1, 3); i < n; i++)
        reshape_step(g, dims, &rank);
    if (rng_pct(&g->rng, 8) && rank > 0)
        dims[0] = type_elems(&x->v->type), rank = 1;
    TensorType rt = gen_type(g, x->v->type.dtype, rank, dims);
    Op *op = gen_op(g, kind, &x->v, 1, &rt, 1);
    gen_result(g, op, 0, x->bound, x->exact, x->vma);
    return true;
}

static void sort_ints(int64_t *v, int n)
{
    for (int i = 1; i < n; i++) {
        int64_t x = v[i];
        int j = i;
        for (; j > 0 && v[j - 1] > x; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

/* New dims at random positions; size-1 operand dims may expand. */
bool gen_broadcast(Gen *g, OpKind kind)
{
    Pick p = pick_ranked(0, 0, 4);
    GenVal *x = gen_operand(g, &p);
    const TensorType *t = &x->v->type;
    int rank = t->rank + rng_range(&g->rng, t->rank == 0, 2);
    int pos[SHARDC_MAX_RANK];
    int64_t dims[SHARDC_MAX_RANK], map[SHARDC_MAX_RANK];
    for (int d = 0; d < rank; d++)
        pos[d] = d, dims[d] = rng_pct(&g->rng, 50) ? 4 : rng_range(&g->rng, 1, 6);
    rng_shuffle(&g->rng, pos, rank);
    for (int i = 0; i < t->rank; i++)
        map[i] = pos[i];
    if (rng_pct(&g->rng, 85))
        sort_ints(map, t->rank); /* mostly increasing, as jnp.broadcast_to makes them */
    for (int i = 0; i < t->rank; i++)
        dims[map[i]] = t->dims[i] == 1 && rng_pct(&g->rng, 50) ? dims[map[i]] : t->dims[i];
    TensorType rt = gen_type(g, t->dtype, rank, dims);
    if (type_elems(&rt) > g->opts.max_elems)
        return false;
    Op *op = gen_op(g, kind, &x->v, 1, &rt, 1);
    gen_set_attr(g, op, ATTR_KEY_DIMS, attr_ints(g, map, t->rank));
    gen_result(g, op, 0, x->bound, x->exact, x->vma);
    return true;
}

bool gen_concatenate(Gen *g, OpKind kind)
{
    Pick p = pick_ranked(0, 1, 4);
    GenVal *in[3] = {gen_operand(g, &p)};
    const TensorType *t = &in[0]->v->type;
    int n = rng_range(&g->rng, 1, 3), dim = rng_below(&g->rng, t->rank);
    int64_t dims[SHARDC_MAX_RANK], total = t->dims[dim], unit = resize_unit(g);
    if (t->dims[dim] % unit)
        n = 1; /* a concatenation of one operand changes no size */
    memcpy(dims, t->dims, sizeof(int64_t) * (size_t)t->rank);
    for (int i = 1; i < n; i++) {
        dims[dim] = rng_pct(&g->rng, 50) ? t->dims[dim] : unit * rng_range(&g->rng, 1, unit > 1 ? 2 : 8);
        TensorType ti = gen_type(g, t->dtype, t->rank, dims);
        in[i] = gen_value_of(g, &ti, false);
        total += dims[dim];
    }
    dims[dim] = total;
    TensorType rt = gen_type(g, t->dtype, t->rank, dims);
    Value *ops[3] = {in[0]->v, n > 1 ? in[1]->v : NULL, n > 2 ? in[2]->v : NULL};
    Op *op = gen_op(g, kind, ops, n, &rt, 1);
    gen_set_attr(g, op, ATTR_KEY_DIM, attr_i(g, dim));
    double bound = 0;
    for (int i = 0; i < n; i++)
        bound = in[i]->bound > bound ? in[i]->bound : bound;
    gen_result(g, op, 0, bound, exact_of(in, n), vma_of(in, n));
    return true;
}
