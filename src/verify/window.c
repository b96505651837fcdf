/* Verifier rules of convolution, reduce_window and select_and_scatter:
 * StableHLO's constraints (convolution_c1..c27, reduce_window_c1..c16,
 * select_and_scatter_c1..c12 as far as shardc's forms have them), each a
 * located error at the attribute it concerns. */
#include <string.h>
#include "shardc/verify.h"
#include "shardc/window.h"

/* A list attribute of one entry per windowed dim, each >= `least`. */
static bool check_list(VerifyCtx *vc, const Op *op, AttrKey key, int n, int64_t least)
{
    int64_t v[SHARDC_MAX_RANK];
    if (!op_attr_find(op, key))
        return true;
    if (!verify_attr_valid(op, key))
        return false;
    int got = op_attr_ints(op, key, v, SHARDC_MAX_RANK);
    bool ok = got == n;
    for (int i = 0; ok && i < n; i++)
        ok = v[i] >= least;
    if (!ok)
        diag_error(vc->diag, op_attr_loc(op, key), "'%s' must have %d entries (one per %s dim), each at least %lld",
                   attr_key_name(key), n, op->kind == OP_CONVOLUTION ? "spatial" : "operand", (long long)least);
    return ok;
}

static bool check_padding(VerifyCtx *vc, const Op *op, int n)
{
    const AttrValue *p = op_attr_get(op, ATTR_KEY_PADDING);
    if (!p)
        return true;
    bool ok = p->kind == ATTR_ARRAY && p->u.array.count == n;
    for (int i = 0; ok && i < n; i++) {
        int64_t pair[2];
        ok = attr_int_array(p->u.array.items[i], pair, 2) == 2;
    }
    if (!ok)
        diag_error(vc->diag, p->loc, "'padding' must be %d [low, high] pairs of integers (one per %s dim)", n,
                   op->kind == OP_CONVOLUTION ? "spatial" : "operand");
    return ok;
}

/* Strides, dilations and padding; window dims of reduce_window and
 * select_and_scatter. */
static bool check_window(VerifyCtx *vc, const Op *op, int n)
{
    bool conv = op->kind == OP_CONVOLUTION;
    return check_list(vc, op, ATTR_KEY_WINDOW_STRIDES, n, 1) && check_padding(vc, op, n) &&
           (conv || check_list(vc, op, ATTR_KEY_WINDOW_DIMENSIONS, n, 1)) &&
           check_list(vc, op, conv ? ATTR_KEY_LHS_DILATION : ATTR_KEY_BASE_DILATIONS, n, 1) &&
           check_list(vc, op, conv ? ATTR_KEY_RHS_DILATION : ATTR_KEY_WINDOW_DILATIONS, n, 1);
}

static bool check_numeric(VerifyCtx *vc, const Op *op, int i)
{
    DType dt = op->operands[i]->type.dtype;
    if (dtype_is_int(dt) || dtype_is_float(dt))
        return true;
    diag_error(vc->diag, op->loc, "'%s' operand %%%s must be numeric, not %s", op_info(op->kind)->name,
               op->operands[i]->name, dtype_name(dt));
    return false;
}

/* Feature and batch groups divide the dims they split (convolution_c10..c13). */
static bool check_groups(VerifyCtx *vc, const Op *op, const ConvDims *d)
{
    const TensorType *x = &op->operands[0]->type, *k = &op->operands[1]->type;
    int64_t fg = op_attr_int(op, ATTR_KEY_FEATURE_GROUP_COUNT), bg = op_attr_int(op, ATTR_KEY_BATCH_GROUP_COUNT);
    const char *why = NULL;
    AttrKey at = ATTR_KEY_FEATURE_GROUP_COUNT;
    if (fg < 1 || bg < 1)
        why = "group counts must be at least 1", at = fg < 1 ? at : ATTR_KEY_BATCH_GROUP_COUNT;
    else if (fg > 1 && bg > 1)
        why = "feature_group_count and batch_group_count cannot both be more than 1";
    else if (x->dims[d->in_feature] % fg || x->dims[d->in_feature] / fg != k->dims[d->k_in])
        why = "the input feature dim must be feature_group_count times the kernel's input feature dim";
    else if (k->dims[d->k_out] % fg)
        why = "feature_group_count must divide the kernel's output feature dim";
    else if (x->dims[d->in_batch] % bg || k->dims[d->k_out] % bg)
        why = "batch_group_count must divide the input batch dim and the kernel's output feature dim",
        at = ATTR_KEY_BATCH_GROUP_COUNT;
    if (why)
        diag_error(vc->diag, op_attr_find(op, at) ? op_attr_loc(op, at) : op->loc, "'convolution': %s", why);
    return !why;
}

void verify_convolution(VerifyCtx *vc, Op *op)
{
    const TensorType *x = &op->operands[0]->type, *k = &op->operands[1]->type;
    const char *s = op_attr_string(op, ATTR_KEY_DIM_NUMBERS), *err = NULL;
    ConvDims d;
    if (!s)
        return; /* reported by verify_op_attrs */
    if (x->rank != k->rank || x->dtype != k->dtype) {
        diag_error(vc->diag, op->loc, "'convolution' input %%%s and kernel %%%s must have the same rank and "
                   "element type", op->operands[0]->name, op->operands[1]->name);
        return;
    }
    if (!op_conv_dims_parse(s, x->rank, &d, &err)) {
        diag_error(vc->diag, op_attr_loc(op, ATTR_KEY_DIM_NUMBERS), "malformed 'dim_numbers' \"%s\": %s "
                   "(expected e.g. \"[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]\" for rank 4)", s, err);
        return;
    }
    if (!check_numeric(vc, op, 0) || !check_window(vc, op, d.num_spatial) || !check_groups(vc, op, &d))
        return;
    WindowDims w;
    op_window_dims(op, &w);
    int64_t dims[SHARDC_MAX_RANK];
    dims[d.out_batch] = x->dims[d.in_batch] / op_attr_int(op, ATTR_KEY_BATCH_GROUP_COUNT);
    dims[d.out_feature] = k->dims[d.k_out];
    for (int i = 0; i < d.num_spatial; i++)
        dims[d.out_spatial[i]] = op_window_count(&w, i, x->dims[d.in_spatial[i]]);
    TensorType want = {x->dtype, x->rank, dims};
    verify_expect_type(vc, op, &want, op->results[0]);
}

/* The result shape of a reduce_window (the source's of select_and_scatter). */
static TensorType windows_type(const Op *op, int64_t *dims)
{
    WindowDims w;
    op_window_dims(op, &w);
    const TensorType *x = &op->operands[0]->type;
    for (int i = 0; i < x->rank; i++)
        dims[i] = op_window_count(&w, i, x->dims[i]);
    return (TensorType){x->dtype, x->rank, dims};
}

/* N inputs of one shape, then none or N inits, each a scalar of its
 * input's element type (reduce_window_c1..c4). */
static bool check_window_inputs(VerifyCtx *vc, const Op *op)
{
    int n = op->num_results;
    if (n < 1 || (op->num_operands != n && op->num_operands != 2 * n)) {
        diag_error(vc->diag, op->loc, "'reduce_window' takes its inputs, one per result (%d), and optionally as "
                   "many inits, got %d operands", n, op->num_operands);
        return false;
    }
    for (int i = 0; i < n; i++) {
        const Value *x = op->operands[i], *init = op->num_operands > n ? op->operands[n + i] : NULL;
        if (!check_numeric(vc, op, i))
            return false;
        if (!type_same_shape(&x->type, &op->operands[0]->type)) {
            diag_error(vc->diag, op->loc, "'reduce_window' inputs %%%s and %%%s must have one shape",
                       op->operands[0]->name, x->name);
            return false;
        }
        if (init && (init->type.rank != 0 || init->type.dtype != x->type.dtype)) {
            diag_error(vc->diag, op->loc, "'reduce_window' init %%%s of input %%%s must be a scalar %s[]",
                       init->name, x->name, dtype_name(x->type.dtype));
            return false;
        }
    }
    return true;
}

void verify_reduce_window(VerifyCtx *vc, Op *op)
{
    const char *r = op_attr_string(op, ATTR_KEY_REDUCTION);
    if (r && strcmp(r, "sum") && strcmp(r, "max") && strcmp(r, "min")) {
        diag_error(vc->diag, op_attr_loc(op, ATTR_KEY_REDUCTION), "'reduce_window' reduction must be \"sum\", "
                   "\"max\" or \"min\", not \"%s\"", r);
        return;
    }
    if (!r || !check_window_inputs(vc, op) || !check_window(vc, op, op->operands[0]->type.rank))
        return;
    int64_t dims[SHARDC_MAX_RANK];
    TensorType want = windows_type(op, dims);
    for (int j = 0; j < op->num_results; j++) {
        want.dtype = op->operands[j]->type.dtype;
        verify_expect_type(vc, op, &want, op->results[j]);
    }
}

/* The select's direction and the init operand (a scalar of x's type). */
static bool check_select_init(VerifyCtx *vc, const Op *op)
{
    const TensorType *x = &op->operands[0]->type;
    if (op_select_direction(op) < 0) {
        diag_error(vc->diag, op_attr_loc(op, ATTR_KEY_DIRECTION), "'select_and_scatter' direction must be \"ge\", "
                   "\"gt\", \"le\" or \"lt\", not \"%s\"", op_attr_string(op, ATTR_KEY_DIRECTION));
        return false;
    }
    const Value *init = op->num_operands == 3 ? op->operands[2] : NULL;
    if (init && (init->type.rank != 0 || init->type.dtype != x->dtype)) {
        diag_error(vc->diag, op->loc, "'select_and_scatter' init %%%s must be a scalar %s[]", init->name,
                   dtype_name(x->dtype));
        return false;
    }
    return true;
}

void verify_select_and_scatter(VerifyCtx *vc, Op *op)
{
    const TensorType *x = &op->operands[0]->type, *src = &op->operands[1]->type;
    if (!check_numeric(vc, op, 0) || !check_window(vc, op, x->rank) || !check_select_init(vc, op))
        return;
    int64_t dims[SHARDC_MAX_RANK];
    TensorType want = windows_type(op, dims);
    bool fits = src->rank == want.rank && src->dtype == want.dtype;
    for (int i = 0; fits && i < want.rank; i++)
        fits = src->dims[i] == dims[i];
    if (!fits) {
        char buf[256];
        verify_format_type(buf, sizeof buf, &want);
        diag_error(vc->diag, op->loc, "'select_and_scatter' source %%%s must be %s, one element per window",
                   op->operands[1]->name, buf);
        return;
    }
    verify_expect_type(vc, op, x, op->results[0]);
}
