/* Generators of cholesky, triangular_solve and the batch_norm ops on
 * well-conditioned inputs, so that the partitioner's reassociated sums
 * stay within the comparison's tolerance: cholesky factors A = X·Xᵀ + m·I
 * with |X| <= 1 (eigenvalues in [m, m + n·m], condition number <= n + 1),
 * triangular_solve solves with such a factor (its smallest singular value
 * >= sqrt(m)), batch_norm's variances are >= 1 or its epsilon 0.01.
 * unit_diagonal is left out: with ones for L's diagonal the factor is no
 * longer well conditioned. f32 and f64 only: bf16 rounds every product. */
#include <math.h>
#include <string.h>
#include "shirgen.h"

enum { LINALG_MAX_ORDER = 8 };

static const unsigned linalg_dtypes = 1u << DT_F32 | 1u << DT_F64;

/* m·I, a constant [m, m]. */
static GenVal *scaled_identity(Gen *g, DType dt, int64_t m)
{
    int64_t dims[2] = {m, m};
    TensorType t = gen_type(g, dt, 2, dims);
    AttrValue **rows = ARENA_ARRAY(gen_arena(g), AttrValue *, m);
    for (int64_t i = 0; i < m; i++) {
        AttrValue **row = ARENA_ARRAY(gen_arena(g), AttrValue *, m);
        for (int64_t j = 0; j < m; j++)
            row[j] = attr_f(g, i == j ? (double)m : 0.0);
        rows[i] = attr_list(g, row, (int)m);
    }
    Op *op = gen_op(g, OP_CONSTANT, NULL, 0, &t, 1);
    gen_set_attr(g, op, ATTR_KEY_VALUE, attr_list(g, rows, (int)m));
    return gen_result(g, op, 0, (double)m, true, 0);
}

/* A = X·Xᵀ + m·I of a picked X of rank 2 or 3 ([batch,] m, n), or NULL. */
static GenVal *spd_matrix(Gen *g)
{
    Pick p = {linalg_dtypes, 2, 3, false, 0, NULL};
    GenVal *x = gen_operand(g, &p);
    const TensorType *t = &x->v->type;
    int r = t->rank;
    int64_t m = t->dims[r - 2], n = t->dims[r - 1], dims[3];
    if (!(linalg_dtypes & dt_bit(t->dtype)) || m < 1 || m > LINALG_MAX_ORDER || n < 1)
        return NULL;
    x = gen_bounded(g, x, 1);
    memcpy(dims, t->dims, sizeof(int64_t) * (size_t)r);
    dims[r - 1] = m;
    TensorType at = gen_type(g, t->dtype, r, dims);
    Op *op = gen_op(g, OP_EINSUM, (Value *[]){x->v, x->v}, 2, &at, 1);
    op->str = r == 2 ? "ij,kj->ik" : "bij,bkj->bik";
    GenVal *xxt = gen_result(g, op, 0, (double)n, false, x->vma);
    return gen_binary_on(g, OP_ADD, xxt, scaled_identity(g, t->dtype, m));
}

/* The factor of a fresh SPD matrix; *lower says which triangle. */
static GenVal *factor(Gen *g, bool *lower)
{
    GenVal *a = spd_matrix(g);
    if (!a)
        return NULL;
    const TensorType *t = &a->v->type;
    *lower = rng_pct(&g->rng, 50);
    Op *op = gen_op(g, OP_CHOLESKY, &a->v, 1, t, 1);
    if (*lower || rng_pct(&g->rng, 30))
        gen_set_attr(g, op, ATTR_KEY_LOWER, attr_b(g, *lower));
    return gen_result(g, op, 0, sqrt(a->bound) + 1, false, a->vma);
}

/* op(L)·X = B or X·op(L) = B for a factor L and |B| <= 1: |X| <= sqrt(k)
 * (||X|| <= ||B|| / sqrt(m)). */
static bool solve_with(Gen *g, GenVal *l, bool lower)
{
    static const char *const modes[] = {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"};
    const TensorType *lt = &l->v->type;
    int r = lt->rank;
    int64_t m = lt->dims[r - 1], k = rng_range(&g->rng, 1, 4), dims[3];
    bool left = rng_pct(&g->rng, 50);
    memcpy(dims, lt->dims, sizeof(int64_t) * (size_t)r);
    dims[r - 2] = left ? m : k;
    dims[r - 1] = left ? k : m;
    TensorType bt = gen_type(g, lt->dtype, r, dims);
    GenVal *b = gen_bounded(g, gen_value_of(g, &bt, false), 1);
    Op *op = gen_op(g, OP_TRIANGULAR_SOLVE, (Value *[]){l->v, b->v}, 2, &bt, 1);
    gen_set_attr(g, op, ATTR_KEY_LEFT_SIDE, attr_b(g, left));
    gen_set_attr(g, op, ATTR_KEY_LOWER, attr_b(g, lower));
    int mode = rng_below(&g->rng, 4);
    if (mode < 3)
        gen_set_attr(g, op, ATTR_KEY_TRANSPOSE_A, attr_s(g, modes[mode]));
    gen_result(g, op, 0, sqrt((double)k) + 1, false, vma_of((GenVal *[]){l, b}, 2));
    return true;
}

/* cholesky, and now and then a solve with its factor. */
bool gen_cholesky(Gen *g, OpKind kind)
{
    (void)kind;
    bool lower;
    GenVal *l = factor(g, &lower);
    if (l && rng_pct(&g->rng, 30))
        solve_with(g, l, lower);
    return l != NULL;
}

bool gen_triangular_solve(Gen *g, OpKind kind)
{
    (void)kind;
    bool lower;
    GenVal *l = factor(g, &lower);
    return l && solve_with(g, l, lower);
}

/* ---- batch_norm ---- */

/* A 1-D value of `features` elements, |v| <= 1 (>= 1 when positive). */
static GenVal *per_feature(Gen *g, DType dt, int64_t features, bool positive)
{
    TensorType t = gen_type(g, dt, 1, &features);
    GenVal *v = gen_bounded(g, gen_value_of(g, &t, false), 1);
    return positive ? gen_positive(g, v) : v;
}

typedef struct BnShape {
    GenVal *x;
    int64_t feature, features, per_feature;
} BnShape;

/* A float operand bounded by 10 and its feature dim; false if it has no
 * elements per feature. */
static bool bn_operand(Gen *g, BnShape *s)
{
    Pick p = {linalg_dtypes, 1, 3, false, 0, NULL};
    GenVal *x = gen_operand(g, &p);
    const TensorType *t = &x->v->type;
    if (!(linalg_dtypes & dt_bit(t->dtype)))
        return false;
    s->x = gen_bounded(g, x, 10);
    s->feature = rng_below(&g->rng, t->rank);
    s->features = t->dims[s->feature];
    s->per_feature = s->features ? type_elems(t) / s->features : 0;
    return s->per_feature > 0;
}

static void bn_attrs(Gen *g, Op *op, const BnShape *s)
{
    static const double epsilons[] = {0.001, 0.01, 0.1};
    gen_set_attr(g, op, ATTR_KEY_EPSILON, attr_f(g, epsilons[rng_below(&g->rng, 3)]));
    gen_set_attr(g, op, ATTR_KEY_FEATURE_INDEX, attr_i(g, s->feature));
}

/* scale·(x - mean)/sqrt(var + ε) + offset, var >= 1: |y| <= 11 + 1. */
static bool gen_bn_inference(Gen *g, const BnShape *s)
{
    DType dt = s->x->v->type.dtype;
    GenVal *in[5] = {s->x, per_feature(g, dt, s->features, false), per_feature(g, dt, s->features, false),
                     per_feature(g, dt, s->features, false), per_feature(g, dt, s->features, true)};
    Op *op = gen_op(g, OP_BATCH_NORM_INFERENCE, (Value *[]){in[0]->v, in[1]->v, in[2]->v, in[3]->v, in[4]->v}, 5,
                    &s->x->v->type, 1);
    bn_attrs(g, op, s);
    gen_result(g, op, 0, 12, false, vma_of(in, 5));
    return true;
}

/* Normalized values are z-scores, |z| <= sqrt(N); the batch mean is
 * bounded like x, the variance by its square. */
static bool gen_bn_training(Gen *g, const BnShape *s)
{
    DType dt = s->x->v->type.dtype;
    GenVal *in[3] = {s->x, per_feature(g, dt, s->features, false), per_feature(g, dt, s->features, false)};
    TensorType vec = gen_type(g, dt, 1, &s->features);
    TensorType types[3] = {s->x->v->type, vec, vec};
    Op *op = gen_op(g, OP_BATCH_NORM_TRAINING, (Value *[]){in[0]->v, in[1]->v, in[2]->v}, 3, types, 3);
    bn_attrs(g, op, s);
    uint32_t vma = vma_of(in, 3);
    gen_result(g, op, 0, sqrt((double)s->per_feature) + 1, false, vma);
    gen_result(g, op, 1, s->x->bound, false, vma);
    gen_result(g, op, 2, s->x->bound * s->x->bound, false, vma);
    return true;
}

/* With var >= 1 and |x - mean| <= 11: |dx| <= |dy|·(2 + 121), |dscale|
 * <= N·11, |doffset| <= N. */
static bool gen_bn_grad(Gen *g, const BnShape *s)
{
    DType dt = s->x->v->type.dtype;
    if (!sum_ok(dt, s->per_feature))
        return false;
    GenVal *dy = gen_bounded(g, gen_value_of(g, &s->x->v->type, false), 1);
    GenVal *in[5] = {s->x, per_feature(g, dt, s->features, false), per_feature(g, dt, s->features, false),
                     per_feature(g, dt, s->features, true), dy};
    TensorType vec = gen_type(g, dt, 1, &s->features);
    TensorType types[3] = {s->x->v->type, vec, vec};
    Op *op = gen_op(g, OP_BATCH_NORM_GRAD, (Value *[]){in[0]->v, in[1]->v, in[2]->v, in[3]->v, in[4]->v}, 5,
                    types, 3);
    bn_attrs(g, op, s);
    uint32_t vma = vma_of(in, 5);
    double n = (double)s->per_feature;
    gen_result(g, op, 0, 123, false, vma);
    gen_result(g, op, 1, 11 * n, false, vma);
    gen_result(g, op, 2, n, false, vma);
    return true;
}

bool gen_batch_norm(Gen *g, OpKind kind)
{
    BnShape s;
    if (!bn_operand(g, &s))
        return false;
    if (kind == OP_BATCH_NORM_INFERENCE)
        return gen_bn_inference(g, &s);
    return kind == OP_BATCH_NORM_TRAINING ? gen_bn_training(g, &s) : gen_bn_grad(g, &s);
}
