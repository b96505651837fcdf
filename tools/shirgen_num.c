/* Keeping generated numbers well conditioned, so that `shardc run` compares
 * programs whose reference and SPMD results can only differ by rounding
 * noise (see shirgen.h): bounds, positivity for log/sqrt/div/pow, and the
 * exactness and VMA bookkeeping every op result goes through. */
#include <math.h>
#include "shirgen.h"

double cap_bound(DType dt, double b)
{
    if (dt == DT_BOOL)
        return 1;
    if (dt == DT_I32 && b > 2147483648.0)
        return 2147483648.0; /* ints wrap: the bound of the whole range */
    if (dt == DT_I64 && b > 9.3e18)
        return 9.3e18;
    return isfinite(b) ? b : HUGE_VAL;
}

bool exact_of(GenVal **ops, int n)
{
    for (int i = 0; i < n; i++)
        if (!ops[i]->exact)
            return false;
    return true;
}

uint32_t vma_of(GenVal **ops, int n)
{
    uint32_t vma = 0;
    for (int i = 0; i < n; i++)
        vma |= ops[i]->vma;
    return vma;
}

GenVal *gen_result(Gen *g, Op *op, int i, double bound, bool exact, uint32_t vma)
{
    Value *v = op->results[i];
    if (v->type.dtype == DT_BF16 && !exact)
        g->inexact_bf16 = true;
    return scope_add(g, v, bound, exact, vma);
}

GenVal *gen_full(Gen *g, DType dt, double value, const TensorType *shape_like)
{
    TensorType t = shape_like ? gen_type(g, dt, shape_like->rank, shape_like->dims) : gen_type(g, dt, 0, NULL);
    Op *op = gen_op(g, OP_FULL, NULL, 0, &t, 1);
    if (dtype_is_float(dt))
        gen_set_attr(g, op, ATTR_KEY_VALUE, attr_f(g, value));
    else if (dt == DT_BOOL)
        gen_set_attr(g, op, ATTR_KEY_VALUE, attr_b(g, value != 0));
    else
        gen_set_attr(g, op, ATTR_KEY_VALUE, attr_i(g, (int64_t)value));
    return gen_result(g, op, 0, fabs(value), true, 0);
}

bool sum_ok(DType dt, int64_t n) { return dt != DT_BF16 || n <= 8; }

/* Floats: tanh squashes into [-1, 1]; ints: clamp with min/max. */
GenVal *gen_bounded(Gen *g, GenVal *x, double limit)
{
    DType dt = x->v->type.dtype;
    if (x->bound <= limit || dt == DT_BOOL)
        return x;
    if (dtype_is_float(dt)) {
        Op *op = gen_op(g, OP_TANH, &x->v, 1, &x->v->type, 1);
        return gen_result(g, op, 0, 1, x->exact, x->vma);
    }
    GenVal *hi = gen_full(g, dt, floor(limit), NULL);
    GenVal *lo = gen_full(g, dt, -floor(limit), NULL);
    Value *a[2] = {x->v, hi->v};
    Op *op = gen_op(g, OP_MIN, a, 2, &x->v->type, 1);
    GenVal *m = gen_result(g, op, 0, x->bound, x->exact, x->vma);
    Value *b[2] = {m->v, lo->v};
    op = gen_op(g, OP_MAX, b, 2, &x->v->type, 1);
    return gen_result(g, op, 0, floor(limit), x->exact, x->vma);
}

GenVal *gen_positive(Gen *g, GenVal *x)
{
    x = gen_bounded(g, x, 1e4);
    Op *op = gen_op(g, OP_ABS, &x->v, 1, &x->v->type, 1);
    GenVal *a = gen_result(g, op, 0, x->bound, x->exact, x->vma);
    GenVal *one = gen_full(g, x->v->type.dtype, 1, NULL);
    Value *ops[2] = {a->v, one->v};
    op = gen_op(g, OP_ADD, ops, 2, &x->v->type, 1);
    return gen_result(g, op, 0, x->bound + 1, x->exact, x->vma);
}

static double unary_bound(OpKind kind, double b)
{
    switch (kind) {
    case OP_EXP: case OP_EXPM1: return exp(b);
    case OP_LOG: case OP_LOG1P: return log(b) + 1;
    case OP_ERF: case OP_SIGN: case OP_IS_FINITE: return 1;
    case OP_FLOOR: case OP_CEIL: case OP_ROUND_NEAREST_EVEN: case OP_NOT: return b + 1;
    case OP_SQRT: return sqrt(b);
    case OP_RSQRT: case OP_TANH: case OP_SIN: case OP_COS: case OP_LOGISTIC: return 1;
    case OP_GELU: return b + 1;
    default: return b;
    }
}

GenVal *gen_unary_on(Gen *g, OpKind kind, GenVal *x)
{
    if (kind == OP_EXP || kind == OP_EXPM1)
        x = gen_bounded(g, x, 8);
    else if (kind == OP_SIN || kind == OP_COS)
        /* sin/cos turn an input's absolute rounding error into output
         * error: a bf16 value near e^8 is only known to within ~12, so
         * the inputs are kept small (a 1e5-program campaign hit this). */
        x = gen_bounded(g, x, 4);
    else if (kind == OP_LOG || kind == OP_SQRT || kind == OP_RSQRT || kind == OP_LOG1P)
        x = gen_positive(g, x);
    else if (dtype_is_float(x->v->type.dtype))
        x = gen_bounded(g, x, 1e4);
    TensorType t = x->v->type;
    if (kind == OP_IS_FINITE)
        t.dtype = DT_BOOL;
    Op *op = gen_op(g, kind, &x->v, 1, &t, 1);
    if (kind == OP_GELU && rng_pct(&g->rng, 50))
        gen_set_attr(g, op, ATTR_KEY_APPROXIMATE, attr_b(g, rng_pct(&g->rng, 50)));
    return gen_result(g, op, 0, unary_bound(kind, x->bound), x->exact, x->vma);
}

static double binary_bound(OpKind kind, double a, double b)
{
    switch (kind) {
    case OP_ADD: case OP_SUB: return a + b;
    case OP_MUL: return a * b;
    case OP_DIV: return a;
    case OP_POW: return pow(a, b) + 1;
    case OP_ATAN2: return 4; /* pi */
    case OP_REM: case OP_SHIFT_RIGHT_ARITHMETIC: return a;
    case OP_SHIFT_LEFT: case OP_SHIFT_RIGHT_LOGICAL: return HUGE_VAL; /* wraps; a negative a shifts in zeros */
    case OP_AND: case OP_OR: case OP_XOR: return 2 * (a > b ? a : b) + 1; /* within the next power of two */
    default: return a > b ? a : b;
    }
}

GenVal *gen_binary_on(Gen *g, OpKind kind, GenVal *a, GenVal *b)
{
    bool is_float = dtype_is_float(a->v->type.dtype);
    if (is_float && (kind == OP_DIV || kind == OP_ATAN2)) /* atan2 jumps by 2 pi across x < 0, y = 0 */
        b = gen_positive(g, b);
    if (is_float && kind == OP_POW) {
        a = gen_positive(g, gen_bounded(g, a, 16));
        b = gen_bounded(g, b, 2);
    }
    if (is_float) {
        a = gen_bounded(g, a, 1e4);
        b = gen_bounded(g, b, 1e4);
    }
    TensorType t;
    shapes_broadcast(&a->v->type, &b->v->type, &t, g);
    Value *ops[2] = {a->v, b->v};
    Op *op = gen_op(g, kind, ops, 2, &t, 1);
    GenVal *in[2] = {a, b};
    double bound = binary_bound(kind, a->bound, b->bound);
    if (!is_float && (kind == OP_POW || kind == OP_DIV))
        bound = kind == OP_POW ? HUGE_VAL : a->bound + 1;
    return gen_result(g, op, 0, bound, exact_of(in, 2), vma_of(in, 2));
}
