/* Generators for elementwise ops: unary, convert, binary (with NumPy
 * broadcasting), compare and select. */
#include <string.h>
#include <math.h>
#include "shirgen.h"

GenVal *gen_operand(Gen *g, const Pick *p)
{
    GenVal *gv = gen_pick(g, p);
    if (gv)
        return gv;
    int hi = p->max_rank < 4 ? p->max_rank : 4;
    TensorType t = gen_shape(g, gen_dtype(g, p->dtypes ? p->dtypes : DTS_NUM), rng_range(&g->rng, p->min_rank, hi));
    return gen_input(g, &t);
}

bool shapes_broadcast(const TensorType *a, const TensorType *b, TensorType *out, Gen *g)
{
    int rank = a->rank > b->rank ? a->rank : b->rank;
    int64_t dims[SHARDC_MAX_RANK];
    for (int i = 0; i < rank; i++) {
        int ia = a->rank - rank + i, ib = b->rank - rank + i;
        int64_t da = ia >= 0 ? a->dims[ia] : 1, db = ib >= 0 ? b->dims[ib] : 1;
        if (da != db && da != 1 && db != 1)
            return false;
        dims[i] = da == 1 ? db : da;
    }
    *out = gen_type(g, a->dtype, rank, dims);
    return true;
}

/* A shape that broadcasts with t: the same, a suffix with some dims 1, a
 * scalar, or t with extra leading dims. */
TensorType broadcast_partner(Gen *g, const TensorType *t, DType dt)
{
    int64_t dims[SHARDC_MAX_RANK];
    int r = rng_below(&g->rng, 100), rank = t->rank, extra = 0;
    if (r < 45)
        return gen_type(g, dt, t->rank, t->dims);
    if (r < 60)
        return gen_type(g, dt, 0, NULL);
    if (r < 75 && t->rank < 4 && type_elems(t) * 4 <= g->opts.max_elems)
        extra = 1;
    if (!extra)
        rank = rng_range(&g->rng, 1, t->rank > 0 ? t->rank : 1) * (t->rank > 0);
    for (int i = 0; i < rank; i++) {
        int64_t d = t->dims[t->rank - rank + i];
        dims[extra + i] = rng_pct(&g->rng, 35) ? 1 : d;
    }
    if (extra)
        dims[0] = rng_pct(&g->rng, 50) ? 4 : 2;
    return gen_type(g, dt, rank + extra, dims);
}

/* The element types an elementwise op takes (StableHLO's, as the
 * verifier's). */
static unsigned op_dtypes(OpKind kind)
{
    switch (kind) {
    case OP_NOT: case OP_AND: case OP_OR: case OP_XOR: return DTS_INT | DTS_BOOL;
    case OP_SHIFT_LEFT: case OP_SHIFT_RIGHT_LOGICAL: case OP_SHIFT_RIGHT_ARITHMETIC: return DTS_INT;
    case OP_ATAN2: return DTS_FLOAT;
    default: return op_info(kind)->op_class == OPC_UNARY_FLOAT ? DTS_FLOAT : DTS_NUM;
    }
}

/* Ops with jumps (floor, sign, rem, ...): one ulp of rounding noise in a
 * float operand can move the result by a whole unit, so they take only
 * values the reference and the SPMD program compute bit for bit. */
static bool needs_exact(OpKind kind)
{
    switch (kind) {
    case OP_SIGN: case OP_FLOOR: case OP_CEIL: case OP_ROUND_NEAREST_EVEN: case OP_IS_FINITE: case OP_REM:
        return true;
    default:
        return false;
    }
}

bool gen_unary(Gen *g, OpKind kind)
{
    Pick p = pick_any(op_dtypes(kind));
    p.need_exact = needs_exact(kind);
    GenVal *x = gen_operand(g, &p);
    if (p.need_exact && !x->exact)
        return false;
    gen_unary_on(g, kind, x);
    return true;
}

/* Float -> int/bool truncates: one ulp of rounding noise can flip the
 * result, so only exact floats convert to integers. */
bool gen_convert(Gen *g, OpKind kind)
{
    Pick p = pick_any(0);
    GenVal *x = gen_operand(g, &p);
    DType from = x->v->type.dtype, to = gen_dtype(g, DTS_NUM | DTS_BOOL);
    if (dtype_is_float(from) && !dtype_is_float(to) && !x->exact)
        to = DT_F32;
    if (dtype_is_float(to) && !dtype_is_float(from))
        x = gen_bounded(g, x, 1e4);
    TensorType t = gen_type(g, to, x->v->type.rank, x->v->type.dims);
    Op *op = gen_op(g, kind, &x->v, 1, &t, 1);
    gen_result(g, op, 0, to == DT_BOOL ? 1 : x->bound + 1, x->exact, x->vma);
    return true;
}

static GenVal *partner_of(Gen *g, GenVal *a, bool need_exact, TensorType *result)
{
    for (int attempt = 0; attempt < 4; attempt++) {
        TensorType t = broadcast_partner(g, &a->v->type, a->v->type.dtype);
        if (shapes_broadcast(&a->v->type, &t, result, g) && type_elems(result) <= g->opts.max_elems)
            return gen_value_of(g, &t, need_exact);
    }
    *result = a->v->type;
    return gen_value_of(g, &a->v->type, need_exact);
}

bool gen_binary(Gen *g, OpKind kind)
{
    Pick p = pick_any(op_dtypes(kind));
    p.need_exact = needs_exact(kind);
    GenVal *a = gen_operand(g, &p);
    TensorType t;
    GenVal *b = partner_of(g, a, p.need_exact, &t);
    if (p.need_exact && !(a->exact && b->exact))
        return false;
    if (rng_pct(&g->rng, 30)) {
        GenVal *tmp = a;
        a = b;
        b = tmp;
    }
    gen_binary_on(g, kind, a, b);
    return true;
}

static const char *const directions[] = {"eq", "ne", "lt", "le", "gt", "ge"};

bool gen_compare(Gen *g, OpKind kind)
{
    Pick p = pick_any(0);
    p.need_exact = true;
    GenVal *a = gen_operand(g, &p);
    if (!a->exact)
        return false;
    TensorType t;
    GenVal *b = partner_of(g, a, true, &t);
    Value *ops[2] = {a->v, b->v};
    t.dtype = DT_BOOL;
    Op *op = gen_op(g, kind, ops, 2, &t, 1);
    gen_set_attr(g, op, ATTR_KEY_DIRECTION, attr_s(g, directions[rng_below(&g->rng, 6)]));
    if (dtype_is_float(a->v->type.dtype) && rng_pct(&g->rng, 25))
        gen_set_attr(g, op, ATTR_KEY_COMPARE_TYPE, attr_s(g, "TOTALORDER"));
    GenVal *in[2] = {a, b};
    gen_result(g, op, 0, 1, exact_of(in, 2), vma_of(in, 2));
    return true;
}

/* A shape that broadcasts to t without changing it. */
static TensorType sub_broadcast(Gen *g, const TensorType *t, DType dt)
{
    int64_t dims[SHARDC_MAX_RANK];
    int rank = rng_pct(&g->rng, 50) ? t->rank : rng_range(&g->rng, 0, t->rank);
    for (int i = 0; i < rank; i++)
        dims[i] = rng_pct(&g->rng, 25) ? 1 : t->dims[t->rank - rank + i];
    return gen_type(g, dt, rank, dims);
}

bool gen_select(Gen *g, OpKind kind)
{
    Pick p = pick_any(0);
    GenVal *a = gen_operand(g, &p);
    TensorType t;
    GenVal *b = partner_of(g, a, false, &t);
    TensorType pt = sub_broadcast(g, &t, DT_BOOL);
    GenVal *pred = gen_value_of(g, &pt, true);
    if (!pred->exact)
        return false;
    Value *ops[3] = {pred->v, a->v, b->v};
    Op *op = gen_op(g, kind, ops, 3, &t, 1);
    GenVal *in[3] = {pred, a, b};
    gen_result(g, op, 0, a->bound > b->bound ? a->bound : b->bound, exact_of(in, 3), vma_of(in, 3));
    return true;
}

/* clamp %lo, %x, %hi: each bound a scalar or of x's shape, as StableHLO. */
bool gen_clamp(Gen *g, OpKind kind)
{
    Pick p = pick_any(DTS_NUM);
    GenVal *in[3];
    in[1] = gen_operand(g, &p);
    if (dtype_is_float(in[1]->v->type.dtype))
        in[1] = gen_bounded(g, in[1], 1e4);
    const TensorType *x = &in[1]->v->type;
    double bound = in[1]->bound;
    for (int i = 0; i < 3; i += 2) {
        TensorType t = rng_pct(&g->rng, 50) ? gen_type(g, x->dtype, 0, NULL) : *x;
        in[i] = gen_value_of(g, &t, false);
        if (dtype_is_float(x->dtype))
            in[i] = gen_bounded(g, in[i], 1e4);
        bound = in[i]->bound > bound ? in[i]->bound : bound;
    }
    Value *ops[3] = {in[0]->v, in[1]->v, in[2]->v};
    Op *op = gen_op(g, kind, ops, 3, x, 1);
    gen_result(g, op, 0, bound, exact_of(in, 3), vma_of(in, 3));
    return true;
}

/* An exact f32/f64 value's bits as i32/i64 and, half the time, back: the
 * ints are the whole range, and inexact floats would give unrelated bits.
 * Half the f64 values go to i32 pairs instead (a width change: one more
 * minor dim of 2, which needs replication) and back. */
bool gen_bitcast(Gen *g, OpKind kind)
{
    Pick p = pick_any(1u << DT_F32 | 1u << DT_F64);
    p.need_exact = true;
    p.max_rank = SHARDC_MAX_RANK - 1;
    GenVal *x = gen_operand(g, &p);
    DType dt = x->v->type.dtype;
    if (!x->exact || (dt != DT_F32 && dt != DT_F64))
        return false;
    TensorType t = gen_type(g, dt == DT_F32 ? DT_I32 : DT_I64, x->v->type.rank, x->v->type.dims);
    if (dt == DT_F64 && x->v->type.rank < SHARDC_MAX_RANK && rng_pct(&g->rng, 50)) {
        int64_t dims[SHARDC_MAX_RANK];
        memcpy(dims, x->v->type.dims, sizeof *dims * (size_t)x->v->type.rank);
        dims[x->v->type.rank] = 2;
        t = gen_type(g, DT_I32, x->v->type.rank + 1, dims);
    }
    Op *op = gen_op(g, kind, &x->v, 1, &t, 1);
    GenVal *bits = gen_result(g, op, 0, HUGE_VAL, true, x->vma);
    if (rng_pct(&g->rng, 50)) {
        op = gen_op(g, kind, &bits->v, 1, &x->v->type, 1);
        gen_result(g, op, 0, x->bound, true, x->vma);
    }
    return true;
}
