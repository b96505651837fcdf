/* The fft generator: a short chain through complex numbers that starts and
 * ends with f32/f64 values. The complex values in between stay out of the
 * value pool, so no other generator (most take any dtype) ever sees one:
 * only the ops that take complex numbers are built on them. Kinds of chain:
 *   FFT:   complex(x, y) [+ itself] -> FFT -> [IFFT] -> real or imag
 *   RFFT:  x -> RFFT -> real or imag (the half spectrum)
 *   ROUND: x -> RFFT -> [neg] -> IRFFT (x again, up to rounding)
 *   CONV:  convert x to complex -> FFT or IFFT -> imag */
#include "shirgen.h"

enum { CH_FFT, CH_RFFT, CH_ROUND, CH_CONV, CH_COUNT };
static const char *const fft_type_names[] = {"FFT", "IFFT", "RFFT", "IRFFT"};

/* A one-result op of type t on n operands, left out of the pool. */
static Value *emit(Gen *g, OpKind kind, Value **in, int n, const TensorType *t)
{
    return gen_op(g, kind, in, n, t, 1)->results[0];
}

static Value *emit_fft(Gen *g, Value *x, int type, int n, const int64_t *len, DType dt)
{
    TensorType t = gen_type(g, dt, x->type.rank, x->type.dims);
    if (type == 2)
        t.dims[t.rank - 1] = len[n - 1] / 2 + 1;
    else if (type == 3)
        t.dims[t.rank - 1] = len[n - 1];
    Op *op = gen_op(g, OP_FFT, &x, 1, &t, 1);
    gen_set_attr(g, op, ATTR_KEY_FFT_TYPE, attr_s(g, fft_type_names[type]));
    gen_set_attr(g, op, ATTR_KEY_FFT_LENGTH, attr_ints(g, len, n));
    return op->results[0];
}

/* real or imag of z, into the pool. */
static void emit_part(Gen *g, Value *z, double bound, uint32_t vma)
{
    TensorType t = gen_type(g, dtype_complex_part(z->type.dtype), z->type.rank, z->type.dims);
    Op *op = gen_op(g, rng_pct(&g->rng, 50) ? OP_REAL : OP_IMAG, &z, 1, &t, 1);
    gen_result(g, op, 0, bound, false, vma);
}

/* complex(x, y) [+ itself] -> FFT -> [IFFT] -> a part. */
static void chain_fft(Gen *g, GenVal *x, int n, const int64_t *len, double scale)
{
    GenVal *y = gen_value_of(g, &x->v->type, false);
    DType c;
    dtype_complex_of(x->v->type.dtype, &c);
    TensorType ct = gen_type(g, c, x->v->type.rank, x->v->type.dims);
    Value *in[2] = {x->v, y->v};
    Value *z = emit(g, OP_COMPLEX, in, 2, &ct);
    double bound = x->bound + y->bound;
    if (rng_pct(&g->rng, 40)) {
        Value *zz[2] = {z, z};
        z = emit(g, rng_pct(&g->rng, 50) ? OP_ADD : OP_MUL, zz, 2, &ct);
        bound = bound * 2 > bound * bound ? bound * 2 : bound * bound;
    }
    Value *f = emit_fft(g, z, 0, n, len, c);
    bool back = rng_pct(&g->rng, 50);
    if (back)
        f = emit_fft(g, f, 1, n, len, c);
    emit_part(g, f, back ? bound : bound * scale, x->vma | y->vma);
}

/* x -> RFFT -> a part, or -> [neg] -> IRFFT. */
static void chain_real(Gen *g, GenVal *x, int n, const int64_t *len, double scale, bool round)
{
    DType c;
    dtype_complex_of(x->v->type.dtype, &c);
    Value *h = emit_fft(g, x->v, 2, n, len, c);
    if (!round) {
        emit_part(g, h, x->bound * scale, x->vma);
        return;
    }
    if (rng_pct(&g->rng, 50))
        h = emit(g, OP_NEG, &h, 1, &h->type);
    Op *op = gen_op(g, OP_FFT, &h, 1, &x->v->type, 1);
    gen_set_attr(g, op, ATTR_KEY_FFT_TYPE, attr_s(g, "IRFFT"));
    gen_set_attr(g, op, ATTR_KEY_FFT_LENGTH, attr_ints(g, len, n));
    gen_result(g, op, 0, x->bound, false, x->vma);
}

/* convert x to complex -> FFT or IFFT -> a part. */
static void chain_convert(Gen *g, GenVal *x, int n, const int64_t *len, double scale)
{
    DType c;
    dtype_complex_of(x->v->type.dtype, &c);
    TensorType ct = gen_type(g, c, x->v->type.rank, x->v->type.dims);
    Value *z = emit(g, OP_CONVERT, &x->v, 1, &ct);
    emit_part(g, emit_fft(g, z, rng_below(&g->rng, 2), n, len, c), x->bound * scale, x->vma);
}

/* The transformed dims: the last n (1 to 3) of x, none of them empty, a
 * transform of at most 4096 points. False if x has none such. */
static int fft_dims(Gen *g, const TensorType *t, int64_t *len, double *scale)
{
    int n = 1 + rng_below(&g->rng, t->rank < 3 ? t->rank : 3);
    *scale = 1;
    for (int i = 0; i < n; i++) {
        len[i] = t->dims[t->rank - n + i];
        *scale *= (double)len[i];
    }
    return *scale >= 1 && *scale <= 4096 ? n : 0;
}

bool gen_fft(Gen *g, OpKind kind)
{
    (void)kind;
    Pick p = pick_any(dt_bit(DT_F32) | dt_bit(DT_F64));
    p.min_rank = 1;
    p.max_bound = 100;
    GenVal *x = gen_operand(g, &p);
    int64_t len[3];
    double scale;
    int n = x ? fft_dims(g, &x->v->type, len, &scale) : 0;
    if (n == 0)
        return false;
    switch (rng_below(&g->rng, CH_COUNT)) {
    case CH_FFT: chain_fft(g, x, n, len, scale); break;
    case CH_RFFT: chain_real(g, x, n, len, scale, false); break;
    case CH_ROUND: chain_real(g, x, n, len, scale, true); break;
    default: chain_convert(g, x, n, len, scale); break;
    }
    return true;
}
