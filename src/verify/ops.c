/* The verifier's per-class table and the checks of nullary, elementwise,
 * compare/select, constant and custom ops. */

/* Verifier rules for nullary, elementwise, compare/select and einsum ops,
 * and the op-class dispatch. */
#include <math.h>
#include <string.h>
#include "shardc/verify.h"
#include "shardc/rules.h"

void verify_format_type(char *buf, size_t len, const TensorType *t)
{
    int n = snprintf(buf, len, "%s[%s", dtype_name(t->dtype), t->rank == SHARDC_UNRANKED ? "*" : "");
    for (int d = 0; d < t->rank && n < (int)len; d++) {
        if (t->dims[d] == TYPE_DYNAMIC_DIM) /* `shardc opt`'s function boundaries only */
            n += snprintf(buf + n, len - (size_t)n, "%s?", d ? "," : "");
        else
            n += snprintf(buf + n, len - (size_t)n, "%s%lld", d ? "," : "", (long long)t->dims[d]);
    }
    if (n < (int)len)
        snprintf(buf + n, len - (size_t)n, "]");
}

void verify_expect_type(VerifyCtx *vc, const Op *op, const TensorType *want, const Value *got)
{
    if (type_equal(want, &got->type))
        return;
    char w[256], g[256];
    verify_format_type(w, sizeof w, want);
    verify_format_type(g, sizeof g, &got->type);
    diag_error(vc->diag, got->loc, "'%s' result %%%s should have type %s, but is written as %s",
               op_info(op->kind)->name, got->name, w, g);
}

bool verify_broadcast_shapes(const TensorType *a, const TensorType *b, TensorType *out, int64_t *dims_out)
{
    int rank = a->rank > b->rank ? a->rank : b->rank;
    for (int i = 0; i < rank; i++) {
        int ia = a->rank - rank + i, ib = b->rank - rank + i;
        int64_t da = ia >= 0 ? a->dims[ia] : 1, db = ib >= 0 ? b->dims[ib] : 1;
        if (da != db && da != 1 && db != 1)
            return false;
        dims_out[i] = da == 1 ? db : da;
    }
    *out = (TensorType){a->dtype, rank, dims_out};
    return true;
}

static void verify_broadcast_operands(VerifyCtx *vc, Op *op, int first, DType result_dtype)
{
    int64_t dims[SHARDC_MAX_RANK];
    TensorType shape = op->operands[first]->type;
    for (int i = first + 1; i < op->num_operands; i++) {
        const TensorType *t = &op->operands[i]->type;
        if (t->dtype != op->operands[first]->type.dtype) {
            diag_error(vc->diag, op->loc, "'%s' operands must have the same element type, got %s and %s",
                       op_info(op->kind)->name, dtype_name(op->operands[first]->type.dtype), dtype_name(t->dtype));
            return;
        }
        TensorType merged;
        if (!verify_broadcast_shapes(&shape, t, &merged, dims)) {
            char x[256], y[256];
            verify_format_type(x, sizeof x, &shape);
            verify_format_type(y, sizeof y, t);
            diag_error(vc->diag, op->loc, "'%s' operand shapes %s and %s do not broadcast",
                       op_info(op->kind)->name, x, y);
            return;
        }
        shape = merged;
    }
    shape.dtype = result_dtype;
    verify_expect_type(vc, op, &shape, op->results[0]);
}

static void verify_nullary(VerifyCtx *vc, Op *op)
{
    const TensorType *t = &op->results[0]->type;
    int64_t dim;
    const NamedAttr *value = op_attr_find(op, ATTR_KEY_VALUE); /* a missing one is reported */
    if (op->kind == OP_IOTA)
        verify_dim_attr(vc, op, ATTR_KEY_DIMENSION, t->rank, &dim);
    else if ((op->kind == OP_FULL || op->kind == OP_CONSTANT) && value)
        verify_constant_value(vc, op, value->value, t, op->kind == OP_CONSTANT);
}

/* bitcast_convert reads the operand's bits as the result's element type
 * (StableHLO's): of another width, the narrower side has one more minor
 * dim, the ratio of the widths; not bool (one bit), complex only to
 * complex of its width. */
static void bitcast_error(VerifyCtx *vc, const Op *op, DType from, DType to)
{
    size_t ratio = dtype_size(to) / (dtype_size(from) ? dtype_size(from) : 1);
    if (from == DT_BOOL || to == DT_BOOL)
        diag_error(vc->diag, op->loc, "'bitcast_convert' does not take bool (%s to %s)", dtype_name(from),
                   dtype_name(to));
    else if (dtype_class(from) == DTC_COMPLEX || dtype_class(to) == DTC_COMPLEX)
        diag_error(vc->diag, op->loc, "'bitcast_convert' converts complex only to complex of its width (%s to %s)",
                   dtype_name(from), dtype_name(to));
    else if (dtype_size(to) < dtype_size(from))
        diag_error(vc->diag, op->loc, "'bitcast_convert' of %s to %s adds a dim: the operand has %d already",
                   dtype_name(from), dtype_name(to), SHARDC_MAX_RANK);
    else
        diag_error(vc->diag, op->loc, "'bitcast_convert' of %s to the wider %s needs the operand's minor dim to be "
                   "%zu, the ratio of the widths", dtype_name(from), dtype_name(to), ratio);
}

static void verify_convert(VerifyCtx *vc, Op *op)
{
    const TensorType *in = &op->operands[0]->type;
    TensorType want = *in;
    int64_t dims[SHARDC_MAX_RANK];
    want.dtype = op->results[0]->type.dtype;
    if (op->kind == OP_BITCAST_CONVERT) {
        if (!type_bitcast_shape(in->dtype, in->rank, in->dims, want.dtype, &want.rank, dims)) {
            bitcast_error(vc, op, in->dtype, want.dtype);
            return;
        }
        want.dims = dims;
    }
    verify_expect_type(vc, op, &want, op->results[0]);
}

/* The element types an elementwise op takes where its class does not say
 * it all (StableHLO's): the bitwise ops integers and bool, the shifts
 * integers, sign signed integers and floats, atan2 floats. */
enum { DM_FLOAT = 1, DM_SINT = 2, DM_UINT = 4, DM_BOOL = 8, DM_INT = DM_SINT | DM_UINT };

static const unsigned char op_dtypes[OP_COUNT] = {
    [OP_SIGN] = DM_FLOAT | DM_SINT, [OP_NOT] = DM_INT | DM_BOOL, [OP_AND] = DM_INT | DM_BOOL,
    [OP_OR] = DM_INT | DM_BOOL, [OP_XOR] = DM_INT | DM_BOOL, [OP_SHIFT_LEFT] = DM_INT,
    [OP_SHIFT_RIGHT_LOGICAL] = DM_INT, [OP_SHIFT_RIGHT_ARITHMETIC] = DM_INT, [OP_ATAN2] = DM_FLOAT,
};

static unsigned dtype_mask(DType dt)
{
    static const unsigned char by_class[] = {[DTC_FLOAT] = DM_FLOAT, [DTC_SINT] = DM_SINT,
                                             [DTC_UINT] = DM_UINT, [DTC_BOOL] = DM_BOOL, [DTC_TOKEN] = 0};
    return by_class[dtype_class(dt)];
}

static const char *mask_words(unsigned mask)
{
    switch (mask) {
    case DM_FLOAT | DM_SINT: return "signed integer or floating-point";
    case DM_INT | DM_BOOL: return "integer or bool";
    case DM_INT: return "integer";
    default: return "floating-point";
    }
}

/* False (reported) if the op has its own element types and dt is not one. */
static bool op_dtype_ok(VerifyCtx *vc, const Op *op, DType dt, bool *own)
{
    unsigned mask = op_dtypes[op->kind];
    *own = mask != 0;
    if (!mask || (mask & dtype_mask(dt)))
        return true;
    diag_error(vc->diag, op->loc, "'%s' needs %s operands, got %s", op_info(op->kind)->name, mask_words(mask),
               dtype_name(dt));
    return false;
}

static void verify_unary_operand(VerifyCtx *vc, Op *op, bool float_only)
{
    const TensorType *in = &op->operands[0]->type;
    const char *need = NULL;
    bool own;
    if (!op_dtype_ok(vc, op, in->dtype, &own) || own)
        ; /* the op's own element types, checked */
    else if (in->dtype == DT_BOOL || (float_only && !dtype_is_float(in->dtype)))
        need = float_only ? "floating-point" : "numeric";
    else if (op->kind == OP_ABS && dtype_is_unsigned(in->dtype)) /* as lax.abs; neg wraps */
        need = "signed or floating-point";
    if (need)
        diag_error(vc->diag, op->loc, "'%s' needs a %s operand, got %s", op_info(op->kind)->name, need,
                   dtype_name(in->dtype));
    TensorType want = *in;
    if (op->kind == OP_IS_FINITE)
        want.dtype = DT_BOOL;
    verify_expect_type(vc, op, &want, op->results[0]);
}

static void verify_unary(VerifyCtx *vc, Op *op) { verify_unary_operand(vc, op, false); }
static void verify_unary_float(VerifyCtx *vc, Op *op) { verify_unary_operand(vc, op, true); }

static const char *const compare_directions[] = {"eq", "ne", "lt", "le", "gt", "ge"};

static void verify_binary(VerifyCtx *vc, Op *op)
{
    bool own;
    if (!op_dtype_ok(vc, op, op->operands[0]->type.dtype, &own) || own)
        ; /* the op's own element types, checked */
    else if (op->operands[0]->type.dtype == DT_BOOL)
        diag_error(vc->diag, op->loc, "'%s' does not take bool operands", op_info(op->kind)->name);
    verify_broadcast_operands(vc, op, 0, op->operands[0]->type.dtype);
}

/* compare_type: only TOTALORDER is written (FLOAT, SIGNED and UNSIGNED
 * follow from the operand type), and only on floats, as StableHLO's. */
static void verify_compare_type(VerifyCtx *vc, const Op *op)
{
    const char *type = op_attr_string(op, ATTR_KEY_COMPARE_TYPE);
    if (!type)
        return;
    if (strcmp(type, "TOTALORDER") != 0)
        diag_error(vc->diag, op_attr_loc(op, ATTR_KEY_COMPARE_TYPE), "unknown compare_type \"%s\" (expected "
                   "\"TOTALORDER\"; the others follow from the operand type)", type);
    else if (!dtype_is_float(op->operands[0]->type.dtype))
        diag_error(vc->diag, op_attr_loc(op, ATTR_KEY_COMPARE_TYPE), "compare_type \"TOTALORDER\" orders "
                   "floats; %%%s is %s", op->operands[0]->name, dtype_name(op->operands[0]->type.dtype));
}

static void verify_compare(VerifyCtx *vc, Op *op)
{
    const char *dir = op_attr_string(op, ATTR_KEY_DIRECTION);
    bool known = false;
    for (size_t i = 0; dir && i < sizeof compare_directions / sizeof *compare_directions; i++)
        known |= strcmp(dir, compare_directions[i]) == 0;
    if (dir && !known)
        diag_error(vc->diag, op_attr_loc(op, ATTR_KEY_DIRECTION),
                   "unknown comparison direction \"%s\" (expected eq, ne, lt, le, gt or ge)", dir);
    verify_compare_type(vc, op);
    verify_broadcast_operands(vc, op, 0, DT_BOOL);
}

static void verify_select(VerifyCtx *vc, Op *op)
{
    if (op->operands[0]->type.dtype != DT_BOOL)
        diag_error(vc->diag, op->loc, "'select' predicate %%%s must be bool, got %s",
                   op->operands[0]->name, dtype_name(op->operands[0]->type.dtype));
    verify_broadcast_operands(vc, op, 1, op->operands[1]->type.dtype);
    int64_t dims[SHARDC_MAX_RANK];
    TensorType merged;
    if (!verify_broadcast_shapes(&op->operands[0]->type, &op->results[0]->type, &merged, dims) ||
        merged.rank != op->results[0]->type.rank)
        diag_error(vc->diag, op->loc, "'select' predicate shape does not broadcast to the result");
}

/* StableHLO's clamp: min and max are scalars or of the operand's shape
 * (not broadcast NumPy-style), of its element type. */
static void verify_clamp(VerifyCtx *vc, Op *op)
{
    const TensorType *x = &op->operands[1]->type;
    for (int i = 0; i < 3; i += 2) {
        const Value *bound = op->operands[i];
        if (bound->type.dtype != x->dtype)
            diag_error(vc->diag, op->loc, "'clamp' %s %%%s must have the operand's element type %s, got %s",
                       i ? "max" : "min", bound->name, dtype_name(x->dtype), dtype_name(bound->type.dtype));
        else if (bound->type.rank != 0 && !type_same_shape(&bound->type, x))
            diag_error(vc->diag, op->loc, "'clamp' %s %%%s must be a scalar or of the operand's shape",
                       i ? "max" : "min", bound->name);
    }
    verify_expect_type(vc, op, x, op->results[0]);
}

/* One check per op class (opclasses.def): a class without one does not
 * compile. */

static void (*const verify_by_class[OPC_COUNT])(VerifyCtx *vc, Op *op) = {
#define OPCLASS(cls, verify, rule, explicit, partition, exec) [cls] = verify,
#include "shardc/opclasses.def"
#undef OPCLASS
};

/* The ops a token may pass through (tokens order side effects, and only
 * calls, control flow and after_all move them). */
static bool takes_tokens(OpKind kind)
{
    switch (kind) {
    case OP_CALL: case OP_CUSTOM: case OP_NAMED_COMPUTATION: case OP_WHILE: case OP_CASE:
    case OP_OPTIMIZATION_BARRIER: case OP_SHARD_MAP: case OP_DATA_FLOW_EDGE: case OP_FUNC_DATA_FLOW_EDGE: case OP_AFTER_ALL:
    case OP_SHARDING_CONSTRAINT: case OP_RESHARD: /* Shardy's accept them, with a rank-0 sharding */
        return true;
    default:
        return false;
    }
}

/* The first token and the first complex value of `values` not found yet:
 * one pass over an op's operands and results serves both checks that
 * refuse them (c64 and c128 are the complex types). */
static void find_special(Value *const *values, int count, const Value **token, const Value **cplx)
{
    for (int i = 0; i < count; i++) {
        DType dt = values[i]->type.dtype;
        if (dt == DT_TOKEN && !*token)
            *token = values[i];
        else if ((dt == DT_C64 || dt == DT_C128) && !*cplx)
            *cplx = values[i];
    }
}

/* `token`: the op's first token operand or result, or NULL. */
static bool check_tokens(VerifyCtx *vc, const Op *op, const Value *token)
{
    if (!token || takes_tokens(op->kind))
        return true;
    diag_error(vc->diag, op->loc, "'%s' does not take a token[] (%%%s): only calls, control flow, "
               "sharding ops and after_all pass tokens", op_info(op->kind)->name, token->name);
    return false;
}

static bool has_unreduced(const Sharding *s, AxisRef r)
{
    for (int k = 0; s && k < s->num_unreduced; k++)
        if (axis_ref_equal(s->unreduced[k], r))
            return true;
    return false;
}

/* A sharding constraint or reshard may drop unreduced axes and introduce
 * sum ones, not change how kept ones combine (Shardy's verifier, in its
 * words). */
static void check_unreduced_change(VerifyCtx *vc, const Op *op)
{
    const Sharding *in = op->operands[0]->sharding, *out = op->results[0]->sharding;
    const char *name = op_info(op->kind)->name;
    for (int k = 0; out && k < out->num_unreduced; k++) {
        bool kept = has_unreduced(in, out->unreduced[k]);
        if (kept && in->unreduced_op != out->unreduced_op) {
            diag_error(vc->diag, op->loc, "'sdy.%s' op cannot change the reduction operator of kept unreduced axes "
                       "from %s to %s.", name, sharding_unreduced_op_name(in->unreduced_op),
                       sharding_unreduced_op_name(out->unreduced_op));
            return;
        }
        if (!kept && out->unreduced_op != UNREDUCED_SUM) {
            diag_error(vc->diag, op->loc, "'sdy.%s' op cannot introduce '%s' unreduced axes. Expected 'sum'.", name,
                       sharding_unreduced_op_name(out->unreduced_op));
            return;
        }
    }
}

/* Shardy's collectives in the global view, as the MLIR reader takes them
 * (per-dim axes as a sharding): only shardc opt -sdy-convert-global-to-local
 * lowers them; shardc's pipeline makes its own collectives. */
static bool sdy_global_collective(VerifyCtx *vc, const Op *op)
{
    const NamedAttr *axes = op_attr_find(op, ATTR_KEY_AXES);
    if (!axes || axes->value->kind != ATTR_SHARDING)
        return false;
    diag_error(vc->diag, op->loc, "'sdy.%s' is taken by 'shardc opt -sdy-convert-global-to-local' only: shardc's "
               "pipeline inserts its own collectives (docs/mlir.md)", op_info(op->kind)->name);
    return true;
}

void verify_op(VerifyCtx *vc, Op *op)
{
    if (sdy_global_collective(vc, op))
        return;
    verify_op_attrs(vc, op);
    const Value *token = NULL, *cplx = NULL;
    find_special(op->operands, op->num_operands, &token, &cplx);
    find_special(op->results, op->num_results, &token, &cplx);
    if (!check_tokens(vc, op, token) || !verify_complex_ok(vc, op, cplx))
        return;
    if ((op->kind == OP_SHARDING_CONSTRAINT || op->kind == OP_RESHARD) && op->num_operands == 1 &&
        op->num_results == 1)
        check_unreduced_change(vc, op);
    OpClass cls = op_info(op->kind)->op_class;
    if ((unsigned)cls < OPC_COUNT)
        verify_by_class[cls](vc, op);
}

/* Verifier rules for constant values. */

static bool scalar_fits(const AttrValue *v, DType dt)
{
    if (dt == DT_BOOL)
        return v->kind == ATTR_BOOL;
    if (dtype_is_float(dt) || dtype_is_complex(dt)) /* complex: the real part, imaginary 0 */
        return v->kind == ATTR_FLOAT || v->kind == ATTR_INT;
    return v->kind == ATTR_INT;
}

/* An integer literal the element type cannot hold (u32 -1, i8 200) is an
 * error, as in JAX (jnp.uint32(-1) raises OverflowError); reported here. */
static bool scalar_in_range(VerifyCtx *vc, const AttrValue *v, DType dt)
{
    int64_t lo, hi;
    if (v->kind != ATTR_INT || !dtype_int_range(dt, &lo, &hi) || (v->u.i >= lo && v->u.i <= hi))
        return true;
    diag_error(vc->diag, v->loc, "value %lld is out of range for %s (%lld to %lld)", (long long)v->u.i,
               dtype_name(dt), (long long)lo, (long long)hi);
    return false;
}

/* Nested lists must have the type's shape exactly, dim by dim. */
static bool nested_fits(const AttrValue *v, const TensorType *t, int d, const AttrValue **bad)
{
    if (d == t->rank) {
        if (!scalar_fits(v, t->dtype))
            *bad = v;
        return scalar_fits(v, t->dtype);
    }
    if (v->kind != ATTR_ARRAY || v->u.array.count != t->dims[d]) {
        *bad = v;
        return false;
    }
    for (int i = 0; i < v->u.array.count; i++)
        if (!nested_fits(v->u.array.items[i], t, d + 1, bad))
            return false;
    return true;
}

/* The first out-of-range element of well-shaped nested lists, if any. */
static bool elements_in_range(VerifyCtx *vc, const AttrValue *v, DType dt)
{
    if (v->kind != ATTR_ARRAY)
        return scalar_in_range(vc, v, dt);
    for (int i = 0; i < v->u.array.count; i++)
        if (!elements_in_range(vc, v->u.array.items[i], dt))
            return false;
    return true;
}

void verify_constant_value(VerifyCtx *vc, const Op *op, const AttrValue *v, const TensorType *t,
                           bool allow_nested)
{
    if (v->kind != ATTR_ARRAY) {
        if (!scalar_fits(v, t->dtype))
            diag_error(vc->diag, v->loc, "value does not fit element type %s", dtype_name(t->dtype));
        else
            scalar_in_range(vc, v, t->dtype);
        return;
    }
    const AttrValue *bad = v;
    if (!allow_nested) {
        diag_error(vc->diag, v->loc, "'%s' value must be a scalar", op_info(op->kind)->name);
    } else if (!nested_fits(v, t, 0, &bad)) {
        char type[256];
        verify_format_type(type, sizeof type, t);
        diag_error(vc->diag, bad->loc, "constant value does not match type %s (nested lists of the shape, "
                   "with %s elements, or one scalar)", type, dtype_name(t->dtype));
    } else {
        elements_in_range(vc, v, t->dtype);
    }
}

/* A custom op's JAX rule string: parsed (JAX's first stage) and bound to the
 * op's operand and result types (JAX's second stage + Shardy's verifier),
 * once: the op keeps the rule for propagation and partitioning. */

void verify_custom_rule(VerifyCtx *vc, Op *op)
{
    RuleStringOptions unused;
    if (op_attr_string(op, ATTR_KEY_RULE))
        rules_bind_custom(&vc->module->arena, vc->diag, op);
    else /* still report malformed option attributes */
        rule_options_from_attrs(&vc->module->arena, vc->diag, op, &unused);
}
