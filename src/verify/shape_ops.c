/* Verifier checks of einsum, reductions, data-movement and window ops
 * (slice, pad, concatenate, top_k, sort, argmax). */

/* Verifier rules for einsum, reductions and data-movement ops. */
#include <string.h>
#include "shardc/einsum.h"
#include "shardc/verify.h"

/* Record each label's size, checking consistency; sizes[c - 'a'] < 0 = unseen. */
static bool bind_labels(VerifyCtx *vc, Op *op, const char *labels, int rank, const TensorType *t,
                        int64_t *sizes)
{
    for (int d = 0; d < rank; d++) {
        int64_t *size = &sizes[labels[d] - 'a'];
        if (*size >= 0 && *size != t->dims[d]) {
            diag_error(vc->diag, op_str_loc(op), "einsum label '%c' has size %lld here but %lld elsewhere",
                       labels[d], (long long)t->dims[d], (long long)*size);
            return false;
        }
        *size = t->dims[d];
    }
    return true;
}

/* op's spec, from the memo when this walk parsed its text already (a
 * strcmp, not a parse); false when it does not parse (reported). */
static bool einsum_spec(VerifyCtx *vc, const Op *op, EinsumSpec *spec)
{
    for (int i = 0; i < VERIFY_EINSUM_MEMO && vc->einsums[i].text; i++)
        if (vc->einsums[i].text == op->str || strcmp(vc->einsums[i].text, op->str) == 0) {
            *spec = vc->einsums[i].spec;
            return true;
        }
    char message[160];
    int col = 0;
    if (!einsum_parse(op->str, spec, message, sizeof message, &col)) {
        diag_error(vc->diag, loc_offset(op_str_loc(op), col + 1), "%s", message);
        return false;
    }
    vc->einsums[vc->next_einsum] = (VerifyEinsum){op->str, *spec};
    vc->next_einsum = (vc->next_einsum + 1) % VERIFY_EINSUM_MEMO;
    return true;
}

void verify_einsum(VerifyCtx *vc, Op *op)
{
    EinsumSpec spec;
    if (!einsum_spec(vc, op, &spec))
        return;
    if (spec.num_inputs != op->num_operands) {
        diag_error(vc->diag, op_str_loc(op), "einsum spec has %d input%s but the op has %d operand%s",
                   spec.num_inputs, spec.num_inputs == 1 ? "" : "s", op->num_operands,
                   op->num_operands == 1 ? "" : "s");
        return;
    }
    int64_t sizes[26];
    memset(sizes, -1, sizeof sizes);
    for (int i = 0; i < spec.num_inputs; i++) {
        const TensorType *t = &op->operands[i]->type;
        if (spec.input_rank[i] != t->rank) {
            diag_error(vc->diag, op_str_loc(op), "einsum input %d has %d label%s but operand %%%s has rank %d", i,
                       spec.input_rank[i], spec.input_rank[i] == 1 ? "" : "s", op->operands[i]->name, t->rank);
            return;
        }
        if (t->dtype != op->operands[0]->type.dtype) {
            diag_error(vc->diag, op->loc, "einsum operands must have the same element type");
            return;
        }
        if (!bind_labels(vc, op, spec.inputs[i], t->rank, t, sizes))
            return;
    }
    int64_t dims[SHARDC_MAX_RANK];
    for (int d = 0; d < spec.output_rank; d++) {
        dims[d] = sizes[spec.output[d] - 'a'];
        if (dims[d] < 0) {
            diag_error(vc->diag, op_str_loc(op), "einsum output label '%c' appears in no input", spec.output[d]);
            return;
        }
    }
    TensorType want = {op->operands[0]->type.dtype, spec.output_rank, dims};
    verify_expect_type(vc, op, &want, op->results[0]);
}

/* Dims listed in an attribute: in range and unique; returns count or -1. */
static int verify_dim_list(VerifyCtx *vc, Op *op, AttrKey key, int rank, int64_t *dims)
{
    int n = op_attr_ints(op, key, dims, SHARDC_MAX_RANK); /* -1: reported by verify_op_attrs */
    for (int i = 0; i < n; i++) {
        bool dup = false;
        for (int j = 0; j < i; j++)
            dup |= dims[j] == dims[i];
        if (dims[i] < 0 || dims[i] >= rank || dup) {
            diag_error(vc->diag, op_attr_loc(op, key), "'%s' entry %lld is %s", attr_key_name(key),
                       (long long)dims[i], dup ? "listed twice" : "out of range for the operand's rank");
            return -1;
        }
    }
    return n;
}

/* The type of `in` without its `n` reduced dims (out holds the dims). */
static TensorType reduced_type(const TensorType *in, const int64_t *dims, int n, int64_t *out)
{
    int rank = 0;
    for (int d = 0; d < in->rank; d++) {
        bool reduced = false;
        for (int i = 0; i < n; i++)
            reduced |= dims[i] == d;
        if (!reduced)
            out[rank++] = in->dims[d];
    }
    return (TensorType){in->dtype, rank, out};
}

void verify_reduce(VerifyCtx *vc, Op *op)
{
    const TensorType *in = &op->operands[0]->type;
    int64_t dims[SHARDC_MAX_RANK], out[SHARDC_MAX_RANK];
    int n = verify_dim_list(vc, op, ATTR_KEY_DIMS, in->rank, dims);
    if (n < 0)
        return;
    if (op->kind == OP_REDUCE_MEAN && !dtype_is_float(in->dtype))
        diag_error(vc->diag, op->loc, "'reduce_mean' needs a floating-point operand, got %s",
                   dtype_name(in->dtype));
    TensorType want = reduced_type(in, dims, n, out);
    verify_expect_type(vc, op, &want, op->results[0]);
}

/* `v` must be a scalar of dtype dt; `what` says which value it is. */
static bool expect_scalar(VerifyCtx *vc, Loc loc, const Value *v, DType dt, const char *what, int i)
{
    if (v->type.rank == 0 && v->type.dtype == dt)
        return true;
    char g[256];
    verify_format_type(g, sizeof g, &v->type);
    diag_error(vc->diag, loc, "%s %d of 'reduce' (%%%s) must be a %s[] scalar, but is %s", what, i, v->name,
               dtype_name(dt), g);
    return false;
}

/* The body: (acc_0..acc_N-1, x_0..x_N-1) -> N accumulators, all scalars
 * of the inputs' dtypes. */
static void verify_reduce_body(VerifyCtx *vc, const Op *op, const Block *body, int n)
{
    if (body->num_args != 2 * n) {
        diag_error(vc->diag, op->loc, "the body of 'reduce' takes %d scalar arguments (the %d accumulators, then "
                   "the %d elements), not %d", 2 * n, n, n, body->num_args);
        return;
    }
    for (int i = 0; i < 2 * n; i++)
        expect_scalar(vc, body->args[i]->loc, body->args[i], op->operands[i % n]->type.dtype, "body argument", i);
    if (body->num_returns != n) {
        diag_error(vc->diag, body->return_loc, "the body of 'reduce' returns %d value%s, one per input, not %d", n,
                   n == 1 ? "" : "s", body->num_returns);
        return;
    }
    for (int i = 0; i < n; i++)
        expect_scalar(vc, body->return_loc, body->returns[i], op->operands[i]->type.dtype, "returned value", i);
}

/* reduce with a body: N inputs of one shape, then N scalar inits of their
 * dtypes; results are the inputs without the reduced dims. */
void verify_reduce_region(VerifyCtx *vc, Op *op)
{
    int n = op->num_results;
    if (n == 0 || op->num_operands != 2 * n) {
        diag_error(vc->diag, op->loc, "'reduce' takes an init per input: %d result%s need%s %d operands, not %d", n,
                   n == 1 ? "" : "s", n == 1 ? "s" : "", 2 * n, op->num_operands);
        return;
    }
    const TensorType *in = &op->operands[0]->type;
    int64_t dims[SHARDC_MAX_RANK], out[SHARDC_MAX_RANK];
    for (int i = 1; i < n; i++) {
        TensorType same = op->operands[i]->type;
        same.dtype = in->dtype;
        if (!type_equal(&same, in))
            diag_error(vc->diag, op->loc, "the inputs of 'reduce' have one shape, but %%%s and %%%s differ",
                       op->operands[0]->name, op->operands[i]->name);
    }
    for (int i = 0; i < n; i++)
        expect_scalar(vc, op->loc, op->operands[n + i], op->operands[i]->type.dtype, "init", i);
    int count = verify_dim_list(vc, op, ATTR_KEY_DIMS, in->rank, dims);
    for (int i = 0; count >= 0 && i < n; i++) {
        TensorType want = reduced_type(&op->operands[i]->type, dims, count, out);
        verify_expect_type(vc, op, &want, op->results[i]);
    }
    if (op->num_regions == 1)
        verify_reduce_body(vc, op, op->regions[0], n);
}

void verify_transpose(VerifyCtx *vc, Op *op)
{
    const TensorType *in = &op->operands[0]->type;
    int64_t perm[SHARDC_MAX_RANK], out[SHARDC_MAX_RANK];
    int n = verify_dim_list(vc, op, ATTR_KEY_PERMUTATION, in->rank, perm);
    if (n < 0)
        return;
    if (n != in->rank) {
        diag_error(vc->diag, op_attr_loc(op, ATTR_KEY_PERMUTATION), "'permutation' must list all %d dims",
                   in->rank);
        return;
    }
    for (int d = 0; d < n; d++)
        out[d] = in->dims[perm[d]];
    TensorType want = {in->dtype, n, out};
    verify_expect_type(vc, op, &want, op->results[0]);
}

void verify_reshape(VerifyCtx *vc, Op *op)
{
    const TensorType *in = &op->operands[0]->type, *res = &op->results[0]->type;
    int64_t a = 0, b = 0;
    type_num_elements(in, &a);
    type_num_elements(res, &b);
    if (in->dtype != res->dtype)
        diag_error(vc->diag, op->loc, "'reshape' cannot change the element type (%s to %s); use convert",
                   dtype_name(in->dtype), dtype_name(res->dtype));
    else if (a != b)
        diag_error(vc->diag, op->loc, "'reshape' of %lld elements into a type of %lld elements",
                   (long long)a, (long long)b);
}

void verify_broadcast(VerifyCtx *vc, Op *op)
{
    const TensorType *in = &op->operands[0]->type, *res = &op->results[0]->type;
    int64_t dims[SHARDC_MAX_RANK];
    int n = verify_dim_list(vc, op, ATTR_KEY_DIMS, res->rank, dims);
    if (n < 0)
        return;
    if (n != in->rank) {
        diag_error(vc->diag, op_attr_loc(op, ATTR_KEY_DIMS), "'dims' must map each of the operand's %d dims",
                   in->rank);
        return;
    }
    if (in->dtype != res->dtype)
        diag_error(vc->diag, op->loc, "'broadcast' cannot change the element type");
    for (int i = 0; i < n; i++)
        if (in->dims[i] != 1 && in->dims[i] != res->dims[dims[i]])
            diag_error(vc->diag, op_attr_loc(op, ATTR_KEY_DIMS),
                       "operand dim %d has size %lld, which cannot broadcast to result dim %lld of size %lld", i,
                       (long long)in->dims[i], (long long)dims[i], (long long)res->dims[dims[i]]);
}

void verify_concatenate(VerifyCtx *vc, Op *op)
{
    const TensorType *first = &op->operands[0]->type;
    int64_t dim, out[SHARDC_MAX_RANK];
    if (!verify_dim_attr(vc, op, ATTR_KEY_DIM, first->rank, &dim))
        return;
    memcpy(out, first->dims, sizeof(int64_t) * (size_t)first->rank);
    for (int i = 1; i < op->num_operands; i++) {
        const TensorType *t = &op->operands[i]->type;
        bool ok = t->rank == first->rank && t->dtype == first->dtype;
        for (int d = 0; ok && d < t->rank; d++)
            ok = d == dim || t->dims[d] == first->dims[d];
        if (!ok) {
            diag_error(vc->diag, op->loc, "'concatenate' operand %%%s must match the first operand's "
                                          "type except along dim %lld", op->operands[i]->name, (long long)dim);
            return;
        }
        if (__builtin_add_overflow(out[dim], t->dims[dim], &out[dim])) {
            diag_error(vc->diag, op->loc, "'concatenate' result dim %lld does not fit in 64 bits", (long long)dim);
            return;
        }
    }
    TensorType want = {first->dtype, first->rank, out};
    verify_expect_type(vc, op, &want, op->results[0]);
}

/* Verifier rules for slice, pad, top_k, sort and argmax. */

/* An optional int list: its length, 0 if absent, -1 if malformed (reported
 * by verify_op_attrs). */
static int optional_ints(const Op *op, AttrKey key, int64_t *out)
{
    return op_attr_find(op, key) ? op_attr_ints(op, key, out, SHARDC_MAX_RANK) : 0;
}

void verify_slice(VerifyCtx *vc, Op *op)
{
    const TensorType *in = &op->operands[0]->type;
    int64_t start[SHARDC_MAX_RANK], limit[SHARDC_MAX_RANK], stride[SHARDC_MAX_RANK], out[SHARDC_MAX_RANK];
    int ns = op_attr_ints(op, ATTR_KEY_START, start, SHARDC_MAX_RANK);
    int nl = op_attr_ints(op, ATTR_KEY_LIMIT, limit, SHARDC_MAX_RANK);
    int nt = optional_ints(op, ATTR_KEY_STRIDE, stride);
    if (ns < 0 || nl < 0 || nt < 0)
        return;
    if (ns != in->rank || nl != in->rank || (nt && nt != in->rank)) {
        diag_error(vc->diag, op->loc, "'slice' start, limit and stride need one entry per dim (%d)", in->rank);
        return;
    }
    for (int d = 0; d < in->rank; d++) {
        int64_t step = nt ? stride[d] : 1;
        if (start[d] < 0 || start[d] > limit[d] || limit[d] > in->dims[d] || step < 1) {
            diag_error(vc->diag, op->loc, "'slice' dim %d: need 0 <= start (%lld) <= limit (%lld) <= size "
                                          "(%lld) and stride (%lld) >= 1", d, (long long)start[d],
                       (long long)limit[d], (long long)in->dims[d], (long long)step);
            return;
        }
        /* ceil((limit - start) / step) without overflowing for a huge stride */
        out[d] = limit[d] == start[d] ? 0 : (limit[d] - start[d] - 1) / step + 1;
    }
    TensorType want = {in->dtype, in->rank, out};
    verify_expect_type(vc, op, &want, op->results[0]);
}

/* low + size + (size - 1) * interior + high; false on overflow. */
static bool padded_size(int64_t size, int64_t low, int64_t high, int64_t interior, int64_t *out)
{
    int64_t inner = 0;
    if (size > 0 && __builtin_mul_overflow(size - 1, interior, &inner))
        return false;
    return !__builtin_add_overflow(low, high, out) && !__builtin_add_overflow(*out, size, out) &&
           !__builtin_add_overflow(*out, inner, out);
}

/* The padding value: the `value` attribute or a scalar operand of the
 * operand's element type, not both. */
static bool verify_pad_value(VerifyCtx *vc, Op *op, const TensorType *in)
{
    const NamedAttr *value = op_attr_find(op, ATTR_KEY_VALUE); /* the written one, not the default */
    if (op->num_operands < 2) {
        if (value)
            verify_constant_value(vc, op, value->value, in, false);
        return true;
    }
    const TensorType *v = &op->operands[1]->type;
    if (value)
        diag_error(vc->diag, op->loc, "'pad' takes its padding value as an operand or as 'value', not both");
    else if (v->rank != 0 || v->dtype != in->dtype)
        diag_error(vc->diag, op->loc, "'pad' padding value %%%s must be a scalar %s[], got %s%s", op->operands[1]->name,
                   dtype_name(in->dtype), dtype_name(v->dtype), v->rank ? " of rank > 0" : "[]");
    else
        return true;
    return false;
}

void verify_pad(VerifyCtx *vc, Op *op)
{
    const TensorType *in = &op->operands[0]->type;
    int64_t low[SHARDC_MAX_RANK], high[SHARDC_MAX_RANK], interior[SHARDC_MAX_RANK], out[SHARDC_MAX_RANK];
    int nl = op_attr_ints(op, ATTR_KEY_LOW, low, SHARDC_MAX_RANK);
    int nh = op_attr_ints(op, ATTR_KEY_HIGH, high, SHARDC_MAX_RANK);
    int ni = optional_ints(op, ATTR_KEY_INTERIOR, interior);
    if (nl < 0 || nh < 0 || ni < 0)
        return;
    if (nl != in->rank || nh != in->rank || (ni && ni != in->rank)) {
        diag_error(vc->diag, op->loc, "'pad' low, high and interior need one entry per dim (%d)", in->rank);
        return;
    }
    for (int d = 0; d < in->rank; d++) {
        int64_t inner = ni ? interior[d] : 0;
        if (inner < 0) {
            diag_error(vc->diag, op->loc, "'pad' interior padding must be non-negative (dim %d)", d);
            return;
        }
        if (!padded_size(in->dims[d], low[d], high[d], inner, &out[d])) {
            diag_error(vc->diag, op->loc, "'pad' result dim %d does not fit in 64 bits", d);
            return;
        }
        if (out[d] < 0) {
            diag_error(vc->diag, op->loc, "'pad' crops more than dim %d holds: low %lld and high %lld leave %lld", d,
                       (long long)low[d], (long long)high[d], (long long)out[d]);
            return;
        }
    }
    if (!verify_pad_value(vc, op, in))
        return;
    TensorType want = {in->dtype, in->rank, out};
    verify_expect_type(vc, op, &want, op->results[0]);
}

void verify_top_k(VerifyCtx *vc, Op *op)
{
    const TensorType *in = &op->operands[0]->type;
    int64_t k, out[SHARDC_MAX_RANK];
    if (in->rank == 0) {
        diag_error(vc->diag, op->loc, "'top_k' needs an operand of rank >= 1");
        return;
    }
    if (!verify_attr_valid(op, ATTR_KEY_K))
        return;
    k = op_attr_int(op, ATTR_KEY_K);
    int64_t last = in->dims[in->rank - 1];
    if (k < 0 || k > last) {
        diag_error(vc->diag, op_attr_loc(op, ATTR_KEY_K), "'top_k' k = %lld must be in [0, %lld] (the last dim)",
                   (long long)k, (long long)last);
        return;
    }
    for (int d = 0; d < in->rank; d++)
        out[d] = d == in->rank - 1 ? k : in->dims[d];
    TensorType values = {in->dtype, in->rank, out}, indices = {DT_I32, in->rank, out};
    verify_expect_type(vc, op, &values, op->results[0]);
    verify_expect_type(vc, op, &indices, op->results[1]);
}

void verify_sort_or_argmax(VerifyCtx *vc, Op *op)
{
    const TensorType *in = &op->operands[0]->type;
    int64_t dim, out[SHARDC_MAX_RANK];
    if (!verify_dim_attr(vc, op, ATTR_KEY_DIM, in->rank, &dim))
        return;
    if (op->kind == OP_SORT) {
        verify_expect_type(vc, op, in, op->results[0]);
        return;
    }
    int rank = 0;
    for (int d = 0; d < in->rank; d++)
        if (d != dim)
            out[rank++] = in->dims[d];
    TensorType want = {DT_I32, rank, out};
    verify_expect_type(vc, op, &want, op->results[0]);
}

/* Verifier rules for reverse, dynamic_slice and dynamic_update_slice. */

void verify_reverse(VerifyCtx *vc, Op *op)
{
    int64_t dims[SHARDC_MAX_RANK];
    if (verify_dim_list(vc, op, ATTR_KEY_DIMS, op->operands[0]->type.rank, dims) >= 0)
        verify_expect_type(vc, op, &op->operands[0]->type, op->results[0]);
}

/* One integer scalar start index per dim of x, all of one type (StableHLO's
 * dynamic_slice_c2/c3); `first` is the first index operand. */
static bool verify_start_indices(VerifyCtx *vc, Op *op, int first, const TensorType *x)
{
    const char *name = op_info(op->kind)->name;
    if (op->num_operands - first != x->rank) {
        diag_error(vc->diag, op->loc, "'%s' needs one start index per operand dim (%d), got %d", name, x->rank,
                   op->num_operands - first);
        return false;
    }
    for (int i = first; i < op->num_operands; i++) {
        const Value *v = op->operands[i];
        if (v->type.rank != 0 || !dtype_is_int(v->type.dtype) || v->type.dtype != op->operands[first]->type.dtype) {
            diag_error(vc->diag, op->loc, "'%s' start index %%%s must be an integer scalar of the first one's "
                       "type", name, v->name);
            return false;
        }
    }
    return true;
}

/* A slice or update of x: its element type and rank, no dim bigger. */
static void verify_fits_in(VerifyCtx *vc, Loc loc, const char *what, const Value *part, const TensorType *x)
{
    const TensorType *t = &part->type;
    bool ok = t->rank == x->rank && t->dtype == x->dtype;
    for (int d = 0; ok && d < x->rank; d++)
        ok = t->dims[d] <= x->dims[d];
    if (ok)
        return;
    char s[256];
    verify_format_type(s, sizeof s, x);
    diag_error(vc->diag, loc, "%s %%%s must have the operand's element type and rank and no dim bigger than the "
               "operand's (%s)", what, part->name, s);
}

/* The result type gives the slice sizes. */
void verify_dynamic_slice(VerifyCtx *vc, Op *op)
{
    const TensorType *x = &op->operands[0]->type;
    if (verify_start_indices(vc, op, 1, x))
        verify_fits_in(vc, op->results[0]->loc, "'dynamic_slice' result", op->results[0], x);
}

void verify_dynamic_update_slice(VerifyCtx *vc, Op *op)
{
    const TensorType *x = &op->operands[0]->type;
    if (!verify_start_indices(vc, op, 2, x))
        return;
    verify_fits_in(vc, op->loc, "'dynamic_update_slice' update", op->operands[1], x);
    verify_expect_type(vc, op, x, op->results[0]);
}
