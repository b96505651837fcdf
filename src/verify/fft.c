/* Verifier rules for complex numbers (which ops take them) and for the
 * ops that make and take them apart: real, imag, complex and fft
 * (StableHLO's constraints, docs/language.md "Complex numbers and fft"). */
#include <string.h>
#include "shardc/verify.h"

/* The ops whose kernels, collectives and partitioning handle c64/c128
 * elements: element-independent data movement, the arithmetic of
 * kernels/elementwise.c, the complex ops, fft and JAX's LAPACK calls
 * (the c and z targets), and the sum collectives (complex
 * numbers have no order, so no max/min). Anything else is refused here
 * rather than failing in a kernel at run time. */
static bool takes_complex(const Op *op)
{
    switch (op->kind) {
    case OP_CONSTANT: case OP_ZEROS: case OP_FULL: case OP_NEG: case OP_ADD: case OP_SUB: case OP_MUL:
    case OP_DIV: case OP_CONVERT: case OP_COMPARE: case OP_SELECT: case OP_REAL: case OP_IMAG: case OP_COMPLEX:
    case OP_FFT: case OP_LAPACK: case OP_TRANSPOSE: case OP_RESHAPE: case OP_BROADCAST: case OP_CONCATENATE: case OP_SLICE:
    case OP_PAD: case OP_REVERSE: case OP_DYNAMIC_SLICE: case OP_DYNAMIC_UPDATE_SLICE:
    case OP_CALL: case OP_CUSTOM: case OP_SHARDING_CONSTRAINT: case OP_RESHARD: case OP_PROPAGATION_BARRIER:
    case OP_SHARDING_GROUP: case OP_DATA_FLOW_EDGE: case OP_FUNC_DATA_FLOW_EDGE: case OP_WHILE: case OP_CASE:
    case OP_OPTIMIZATION_BARRIER: case OP_NAMED_COMPUTATION: case OP_SHARD_MAP: case OP_PSUM:
    case OP_ALL_GATHER: case OP_PSUM_SCATTER: case OP_PPERMUTE: case OP_ALL_TO_ALL: case OP_ALL_SLICE:
    case OP_COLLECTIVE_PERMUTE: case OP_REPLICATED_TO_UNREDUCED: case OP_SHARDED_TO_UNREDUCED:
        return true;
    case OP_ALL_REDUCE: case OP_REDUCE_SCATTER: {
        const char *how = op_attr_string(op, ATTR_KEY_REDUCTION);
        return how && strcmp(how, "sum") == 0;
    }
    default:
        return false;
    }
}

/* What an op that takes complex numbers refuses of them: an ordering
 * comparison, and a convert that would drop the imaginary part (StableHLO
 * leaves it undefined; real and imag say which part). */
static bool complex_use_ok(VerifyCtx *vc, const Op *op)
{
    const char *dir = op->kind == OP_COMPARE ? op_attr_string(op, ATTR_KEY_DIRECTION) : NULL;
    if (dir && strcmp(dir, "eq") != 0 && strcmp(dir, "ne") != 0) {
        diag_error(vc->diag, op->loc, "'compare' of complex numbers is eq or ne only, not %s", dir);
        return false;
    }
    if (op->kind == OP_CONVERT && !dtype_is_complex(op->results[0]->type.dtype)) {
        diag_error(vc->diag, op->loc, "'convert' from %s to %s would drop the imaginary part; use real or imag",
                   dtype_name(op->operands[0]->type.dtype), dtype_name(op->results[0]->type.dtype));
        return false;
    }
    return true;
}

bool verify_complex_ok(VerifyCtx *vc, const Op *op, const Value *v)
{
    if (!v)
        return true;
    if (takes_complex(op))
        return complex_use_ok(vc, op);
    diag_error(vc->diag, op->loc, "'%s' does not take complex numbers (%%%s is %s); shardc runs only data "
               "movement, neg, add, sub, mul, div, convert, compare eq/ne, select, real, imag, complex, fft, "
               "lapack and sum collectives on them", op_info(op->kind)->name, v->name, dtype_name(v->type.dtype));
    return false;
}

/* real and imag: a complex operand's part type (a float operand is its
 * own real part, as in StableHLO); complex: two f32 or f64 operands of
 * one type and shape (no broadcasting, as StableHLO's). */
void verify_complex_part(VerifyCtx *vc, Op *op)
{
    TensorType want = op->operands[0]->type;
    const char *name = op_info(op->kind)->name;
    if (op->kind != OP_COMPLEX) {
        if (!dtype_is_complex(want.dtype) && !dtype_is_float(want.dtype))
            diag_error(vc->diag, op->loc, "'%s' needs a complex or floating-point operand, got %s", name,
                       dtype_name(want.dtype));
        want.dtype = dtype_complex_part(want.dtype);
        verify_expect_type(vc, op, &want, op->results[0]);
        return;
    }
    const TensorType *im = &op->operands[1]->type;
    DType part = want.dtype;
    if (!dtype_complex_of(part, &want.dtype))
        diag_error(vc->diag, op->loc, "'complex' needs f32 or f64 operands, got %s", dtype_name(part));
    else if (im->dtype != op->operands[0]->type.dtype || !type_same_shape(im, &op->operands[0]->type))
        diag_error(vc->diag, op->loc, "'complex' needs operands of one type: %%%s and %%%s differ",
                   op->operands[0]->name, op->operands[1]->name);
    else
        verify_expect_type(vc, op, &want, op->results[0]);
}

static const char *const fft_types[] = {"FFT", "IFFT", "RFFT", "IRFFT"};

/* The fft_type's index in fft_types, or -1 (reported). */
static int fft_type_of(VerifyCtx *vc, const Op *op)
{
    const char *t = op_attr_string(op, ATTR_KEY_FFT_TYPE);
    for (int i = 0; t && i < 4; i++)
        if (strcmp(t, fft_types[i]) == 0)
            return i;
    if (t)
        diag_error(vc->diag, op_attr_loc(op, ATTR_KEY_FFT_TYPE),
                   "unknown fft_type \"%s\" (expected FFT, IFFT, RFFT or IRFFT)", t);
    return -1;
}

/* The operand and result element types of each fft_type (StableHLO's
 * C2): complex to complex, RFFT real to complex, IRFFT complex to real. */
static bool fft_dtypes_ok(VerifyCtx *vc, const Op *op, int type)
{
    DType in = op->operands[0]->type.dtype, out = op->results[0]->type.dtype, want;
    bool ok = type < 2   ? dtype_is_complex(in) && out == in
              : type == 2 ? dtype_complex_of(in, &want) && out == want
                          : dtype_is_complex(in) && out == dtype_complex_part(in);
    if (!ok)
        diag_error(vc->diag, op->loc, "'fft' of type %s cannot take %s to %s (FFT and IFFT: complex to the same "
                   "complex type; RFFT: f32/f64 to c64/c128; IRFFT: c64/c128 to f32/f64)", fft_types[type],
                   dtype_name(in), dtype_name(out));
    return ok;
}

/* The fft_length list: 1 to 3 positive lengths, no more than the rank
 * (StableHLO's C1, C3). */
static int fft_lengths(VerifyCtx *vc, const Op *op, int64_t *len)
{
    int n = op_attr_ints(op, ATTR_KEY_FFT_LENGTH, len, SHARDC_MAX_RANK);
    int rank = op->operands[0]->type.rank;
    bool positive = true;
    for (int i = 0; i < n; i++)
        positive &= len[i] >= 1;
    if (n < 1 || n > 3 || n > rank || !positive) {
        diag_error(vc->diag, op_attr_loc(op, ATTR_KEY_FFT_LENGTH), "'fft' needs 1 to 3 positive fft_length "
                   "entries, no more than the operand's rank %d; got %d", rank, n);
        return -1;
    }
    return n;
}

/* The transformed dims are the last n: the real side's (the operand of
 * RFFT, the result of IRFFT, both of FFT and IFFT) are fft_length, and
 * the complex side of RFFT/IRFFT has fft_length[-1] / 2 + 1 in its last
 * dim (StableHLO's C4, C5). */
void verify_fft(VerifyCtx *vc, Op *op)
{
    int64_t len[SHARDC_MAX_RANK], dims[SHARDC_MAX_RANK];
    int type = verify_attr_valid(op, ATTR_KEY_FFT_TYPE) ? fft_type_of(vc, op) : -1;
    int n = type >= 0 && verify_attr_valid(op, ATTR_KEY_FFT_LENGTH) ? fft_lengths(vc, op, len) : -1;
    if (n < 0 || !fft_dtypes_ok(vc, op, type))
        return;
    const TensorType *in = &op->operands[0]->type;
    int rank = in->rank, first = rank - n;
    memcpy(dims, in->dims, (size_t)rank * sizeof *dims);
    memcpy(dims + first, len, (size_t)n * sizeof *len);
    TensorType real_in = {in->dtype, rank, dims};
    if (type == 3)
        dims[rank - 1] = len[n - 1] / 2 + 1;
    if (!type_same_shape(&real_in, in)) {
        char want[256], got[256];
        verify_format_type(want, sizeof want, &real_in);
        verify_format_type(got, sizeof got, in);
        diag_error(vc->diag, op->loc, "'fft' of type %s with fft_length of %d dims needs an operand of type %s, "
                   "got %s", fft_types[type], n, want, got);
        return;
    }
    TensorType out = {op->results[0]->type.dtype, rank, dims};
    dims[rank - 1] = type == 2 ? len[n - 1] / 2 + 1 : len[n - 1];
    verify_expect_type(vc, op, &out, op->results[0]);
}
