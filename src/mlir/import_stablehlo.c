/* The StableHLO ops with attributes of their own, onto shardc's ops:
 * dot_general/dot -> einsum (its spec lists the result's dims as
 * dot_general does: batch, lhs free, rhs free), reduce with an add, max or
 * min body and its identity as init -> reduce_sum/max/min, broadcast_in_dim,
 * compare, transpose, concatenate, slice, pad (its padding value from a
 * scalar constant), constant, iota, func.call and sdy's
 * sharding_constraint and reshard. Attributes are read in their generic
 * names, or the custom form's where the parser keeps those. */
#include <float.h>
#include <math.h>
#include <string.h>
#include "mlir/import_internal.h"

static bool op_error(OpImport *oi, const char *msg)
{
    diag_error(oi->ic->diag, mlir_imp_loc(oi->ic, oi->src->loc), "'%s': %s", oi->src->name, msg);
    return false;
}

static bool need_operands(OpImport *oi, int n)
{
    if (oi->num_operands == n)
        return true;
    diag_error(oi->ic->diag, mlir_imp_loc(oi->ic, oi->src->loc), "'%s' takes %d operand%s, got %d", oi->src->name, n,
               n == 1 ? "" : "s", oi->num_operands);
    return false;
}

/* ---- dot_general, dot ---- */

typedef struct DotDims {
    int64_t lhs_batch[SHARDC_MAX_RANK], rhs_batch[SHARDC_MAX_RANK];
    int64_t lhs_contract[SHARDC_MAX_RANK], rhs_contract[SHARDC_MAX_RANK];
    int num_lhs_batch, num_rhs_batch, num_lhs_contract, num_rhs_contract;
} DotDims;

static bool pair_dims(ImportCtx *ic, const MlirAttr *a, const char *what, int64_t *lhs, int *nl, int64_t *rhs,
                      int *nr)
{
    *nl = *nr = 0;
    if (!a)
        return true;
    if (a->kind != MA_DIMS_PAIR || a->items.count != 2) {
        diag_error(ic->diag, mlir_imp_loc(ic, a->loc), "'%s' must be [dims] x [dims]", what);
        return false;
    }
    return mlir_imp_ints(ic, a->items.items[0], what, lhs, SHARDC_MAX_RANK, nl) &&
           mlir_imp_ints(ic, a->items.items[1], what, rhs, SHARDC_MAX_RANK, nr);
}

/* The parser reads dot_dimension_numbers = #stablehlo.dot<...> into the
 * custom form's pairs. */
static bool read_dot_dims(OpImport *oi, DotDims *d)
{
    return pair_dims(oi->ic, mlir_imp_attr(oi, "batching_dims"), "batching_dims", d->lhs_batch, &d->num_lhs_batch,
                     d->rhs_batch, &d->num_rhs_batch) &&
           pair_dims(oi->ic, mlir_imp_attr(oi, "contracting_dims"), "contracting_dims", d->lhs_contract,
                     &d->num_lhs_contract, d->rhs_contract, &d->num_rhs_contract);
}

/* Whether the batch and contracting dims of one side are distinct and in
 * range. */
static bool distinct_in_range(const int64_t *a, int na, const int64_t *b, int nb, int rank)
{
    bool seen[SHARDC_MAX_RANK] = {0};
    for (int i = 0; i < na + nb; i++) {
        int64_t d = i < na ? a[i] : b[i - na];
        if (d < 0 || d >= rank || seen[d])
            return false;
        seen[d] = true;
    }
    return true;
}

/* The contracting lhs dims' letters in the pairs' order: the k-th pair's
 * lhs dim gets the k-th smallest of their letters, so that the einsum's
 * rule (docs/rules.md) and the printed dot_general list them as written. */
static void letter_contracting(const DotDims *d, char *lhs)
{
    char letters[SHARDC_MAX_RANK];
    int n = d->num_lhs_contract;
    for (int k = 0; k < n; k++)
        letters[k] = lhs[d->lhs_contract[k]];
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && letters[j - 1] > letters[j]; j--) {
            char t = letters[j - 1];
            letters[j - 1] = letters[j];
            letters[j] = t;
        }
    for (int k = 0; k < n; k++)
        lhs[d->lhs_contract[k]] = letters[k];
}

/* "lhs,rhs->out" into spec, false if it does not fit (ranks are capped:
 * it does); copied, not snprintf'd, which cost 3,000 instructions a dot. */
static bool join_spec(char *spec, size_t len, const char *lhs, const char *rhs, const char *out)
{
    size_t nl = strlen(lhs), nr = strlen(rhs), no = strlen(out);
    if (nl + nr + no + 4 > len)
        return false;
    memcpy(spec, lhs, nl);
    spec[nl] = ',';
    memcpy(spec + nl + 1, rhs, nr);
    memcpy(spec + nl + 1 + nr, "->", 2);
    memcpy(spec + nl + nr + 3, out, no + 1);
    return true;
}

/* "lhs,rhs->out": lhs dims a, b, ... in order (contracting ones lettered
 * in the pairs' order); rhs batch and contracting dims take their lhs
 * partner's label; the result is batch, lhs free, rhs free, each in order
 * (dot_general's result layout). */
static bool dot_spec(const DotDims *d, int lr, int rr, char *spec, size_t len)
{
    if (d->num_lhs_batch != d->num_rhs_batch || d->num_lhs_contract != d->num_rhs_contract || lr + rr > 26 ||
        !distinct_in_range(d->lhs_batch, d->num_lhs_batch, d->lhs_contract, d->num_lhs_contract, lr) ||
        !distinct_in_range(d->rhs_batch, d->num_rhs_batch, d->rhs_contract, d->num_rhs_contract, rr))
        return false;
    char lhs[SHARDC_MAX_RANK + 1] = {0}, rhs[SHARDC_MAX_RANK + 1] = {0}, out[2 * SHARDC_MAX_RANK + 1] = {0};
    int n = 0;
    char next = (char)('a' + lr);
    for (int i = 0; i < lr; i++)
        lhs[i] = (char)('a' + i);
    letter_contracting(d, lhs);
    for (int i = 0; i < d->num_lhs_batch; i++)
        out[n++] = rhs[d->rhs_batch[i]] = lhs[d->lhs_batch[i]];
    for (int i = 0; i < d->num_lhs_contract; i++)
        rhs[d->rhs_contract[i]] = lhs[d->lhs_contract[i]];
    for (int i = 0; i < lr; i++)
        if (!memchr(rhs, lhs[i], (size_t)rr))
            out[n++] = lhs[i];
    for (int i = 0; i < rr; i++)
        if (!rhs[i])
            out[n++] = rhs[i] = next++;
    return join_spec(spec, len, lhs, rhs, out);
}

static bool make_einsum(OpImport *oi, const DotDims *d)
{
    if (!need_operands(oi, 2))
        return false;
    char spec[4 * SHARDC_MAX_RANK + 8];
    if (!dot_spec(d, oi->operands[0]->type.rank, oi->operands[1]->type.rank, spec, sizeof spec))
        return op_error(oi, "its dimension numbers are out of range, repeated or unpaired");
    if (!mlir_imp_make_op(oi, OP_EINSUM))
        return false;
    oi->op->str = mlir_imp_str(oi->ic, spec);
    op_set_str_loc(oi->ic->arena, oi->op, oi->op->loc);
    return true;
}

bool mlir_imp_dot_general(OpImport *oi)
{
    DotDims d = {0};
    return read_dot_dims(oi, &d) && make_einsum(oi, &d);
}

/* stablehlo.dot: vector or matrix operands, lhs's last dim contracted with
 * rhs's first. */
bool mlir_imp_dot(OpImport *oi)
{
    DotDims d = {.num_lhs_contract = 1, .num_rhs_contract = 1};
    if (!need_operands(oi, 2))
        return false;
    int lr = oi->operands[0]->type.rank, rr = oi->operands[1]->type.rank;
    if (lr < 1 || lr > 2 || rr < 1 || rr > 2)
        return op_error(oi, "its operands must be vectors or matrices");
    d.lhs_contract[0] = lr - 1;
    oi->op_name = "stablehlo.dot";
    return make_einsum(oi, &d);
}

/* ---- reduce ---- */

/* The op of a body `%r = op %x, %y; return %r` (either operand order),
 * or NULL for any other body. */
static const char *simple_reducer(const MlirOp *owner, int index)
{
    const MlirRegion *r = index < owner->regions.count ? owner->regions.items[index] : NULL;
    const MlirBlock *b = r && r->blocks.count == 1 ? r->blocks.items[0] : NULL;
    const MlirOp *op = b && b->ops.count == 2 && b->args.count == 2 ? b->ops.items[0] : NULL;
    const MlirOp *ret = op ? b->ops.items[1] : NULL;
    if (!op || op->operands.count != 2 || op->results.count != 1 || ret->operands.count != 1)
        return NULL;
    const char *x = ((const MlirBlockArg *)b->args.items[0])->name;
    const char *y = ((const MlirBlockArg *)b->args.items[1])->name;
    const char *u = ((const MlirUse *)op->operands.items[0])->name;
    const char *v = ((const MlirUse *)op->operands.items[1])->name;
    const char *res = ((const MlirResultDef *)op->results.items[0])->name;
    bool args = (strcmp(u, x) == 0 && strcmp(v, y) == 0) || (strcmp(u, y) == 0 && strcmp(v, x) == 0);
    bool returned = strcmp(((const MlirUse *)ret->operands.items[0])->name, res) == 0 &&
                    strcmp(ret->name, "stablehlo.return") == 0;
    return args && returned ? op->name : NULL;
}

const char *mlir_imp_reducer(ImportCtx *ic, const MlirOp *owner, int index)
{
    const char *body = simple_reducer(owner, index);
    if (!body)
        diag_error(ic->diag, mlir_imp_loc(ic, owner->loc), "'%s': its body is not supported by shardc (only one "
                   "stablehlo.add, maximum or minimum of its two arguments, returned)", owner->name);
    return body;
}

/* Whether v, rounded to the dtype, is its highest finite value or the
 * infinity beyond it, times sign: f32's -3.40282347E+38 is not -FLT_MAX
 * in f64, and -3.8E+38 becomes f32's -inf (the constant prints as
 * 0xFF800000, so reading it back must give the same reduction). */
static bool is_extreme(double v, double sign, DType dt)
{
    double high = dt == DT_F64 ? DBL_MAX : dt == DT_BF16 ? 3.3895313892515355e38
                : dt == DT_F16 ? 65504.0 : FLT_MAX;
    double eps = dt == DT_F64 ? 1e-15 : dt == DT_BF16 ? 1e-2 : dt == DT_F16 ? 1e-3 : 1e-7;
    return sign * v >= high * (1 - eps);
}

/* The identity of the reduction (JAX's inits): 0 for add; -inf or the
 * lowest value for max; +inf or the highest for min; for ints the type's
 * extremes; for bools false (max) and true (min). */
bool mlir_imp_is_identity(const AttrValue *v, OpKind kind, DType dt)
{
    double sign = kind == OP_REDUCE_MAX ? -1.0 : 1.0;
    if (dt == DT_BOOL)
        return kind != OP_REDUCE_SUM && v->kind == ATTR_BOOL && v->u.b == (kind == OP_REDUCE_MIN);
    if (kind == OP_REDUCE_SUM)
        return v->kind == ATTR_FLOAT ? v->u.f == 0.0 : v->u.i == 0;
    if (dtype_is_float(dt))
        return v->kind == ATTR_FLOAT && is_extreme(v->u.f, sign, dt);
    int64_t low = 0, high = 0;
    dtype_int_range(dt, &low, &high);
    return v->kind == ATTR_INT && v->u.i == (kind == OP_REDUCE_MAX ? low : high);
}

/* On i1, or is max and and is min: the printer writes bool reduce_max and
 * reduce_min so (as JAX lowers jnp.any and jnp.all). */
static bool reduce_kind(OpImport *oi, OpKind *kind)
{
    const char *body = simple_reducer(oi->src, 0);
    if (!body)
        return false;
    bool is_bool = oi->operands[0] && oi->operands[0]->type.dtype == DT_BOOL;
    if (strcmp(body, "stablehlo.add") == 0)
        *kind = OP_REDUCE_SUM;
    else if (strcmp(body, "stablehlo.maximum") == 0 || (is_bool && strcmp(body, "stablehlo.or") == 0))
        *kind = OP_REDUCE_MAX;
    else if (strcmp(body, "stablehlo.minimum") == 0 || (is_bool && strcmp(body, "stablehlo.and") == 0))
        *kind = OP_REDUCE_MIN;
    else
        return false;
    return true;
}

/* One input with an add, maximum or minimum body and the identity of that
 * reduction as a constant init: shardc's own reductions (reduce_sum, ...,
 * whose partial results combine by all-reduce); anything else keeps its
 * body as `reduce` (mlir_imp_reduce_region). */
bool mlir_imp_reduce(OpImport *oi)
{
    OpKind kind;
    if (oi->num_operands != 2 || !reduce_kind(oi, &kind))
        return mlir_imp_reduce_region(oi);
    const AttrValue *init = mlir_imp_scalar_operand(oi, 1);
    if (!init || !mlir_imp_is_identity(init, kind, oi->operands[0] ? oi->operands[0]->type.dtype : DT_F32))
        return mlir_imp_reduce_region(oi);
    oi->num_operands = 1;
    if (!mlir_imp_make_op(oi, kind))
        return false;
    oi->init = oi->operand_names[1]->fold == IMP_PLAIN ? oi->operand_names[1]->values[0] : NULL;
    return mlir_imp_ints_attr(oi, ATTR_KEY_DIMS, "dimensions", "dimensions", true);
}

/* ---- data movement ---- */

/* .shir's implicit broadcast of a binary operand, as the printer writes
 * it: dims aligned on the right (NumPy), folded into its one user. */
static bool implicit_broadcast(OpImport *oi)
{
    const MlirAttr *dims = mlir_imp_attr2(oi, "broadcast_dimensions", "dims");
    int64_t v[SHARDC_MAX_RANK];
    int n;
    if (!need_operands(oi, 1) || !dims || !mlir_imp_ints(oi->ic, dims, "broadcast_dimensions", v, SHARDC_MAX_RANK, &n))
        return false;
    int rank = oi->num_results == 1 ? oi->result_types[0].rank : -1;
    for (int i = 0; i < n; i++)
        if (rank < 0 || n != oi->operands[0]->type.rank || v[i] != rank - n + i)
            return op_error(oi, "a shardc.implicit_broadcast must broadcast NumPy-style (dims aligned on the right)");
    if (oi->src->attrs.count != 2)
        return op_error(oi, "a shardc.implicit_broadcast takes no attributes besides its dims");
    oi->fold = IMP_BROADCAST;
    return true;
}

bool mlir_imp_broadcast(OpImport *oi)
{
    if (mlir_imp_attr(oi, "shardc.implicit_broadcast"))
        return implicit_broadcast(oi);
    return mlir_imp_make_op(oi, OP_BROADCAST) &&
           mlir_imp_ints_attr(oi, ATTR_KEY_DIMS, "broadcast_dimensions", "dims", true);
}

bool mlir_imp_transpose(OpImport *oi)
{
    return mlir_imp_make_op(oi, OP_TRANSPOSE) &&
           mlir_imp_ints_attr(oi, ATTR_KEY_PERMUTATION, "permutation", "dims", true);
}

bool mlir_imp_concatenate(OpImport *oi)
{
    return mlir_imp_make_op(oi, OP_CONCATENATE) && mlir_imp_int_attr_from(oi, ATTR_KEY_DIM, "dimension", "dim");
}

bool mlir_imp_iota(OpImport *oi)
{
    return mlir_imp_make_op(oi, OP_IOTA) && mlir_imp_int_attr_from(oi, ATTR_KEY_DIMENSION, "iota_dimension", "dim");
}

/* Drops an int-list attribute that only says its default (every entry v):
 * slice's strides of 1, pad's interior of 0, as .shir leaves them out. */
static void drop_default(Op *op, AttrKey key, int64_t v)
{
    const AttrValue *a = op_attr_get(op, key);
    for (int k = 0; a && k < a->u.array.count; k++)
        if (a->u.array.items[k]->u.i != v)
            return;
    mlir_imp_unset(op, key);
}

bool mlir_imp_slice(OpImport *oi)
{
    if (!mlir_imp_make_op(oi, OP_SLICE) || !mlir_imp_ints_attr(oi, ATTR_KEY_START, "start_indices", "start", true) ||
        !mlir_imp_ints_attr(oi, ATTR_KEY_LIMIT, "limit_indices", "limit", true) ||
        !mlir_imp_ints_attr(oi, ATTR_KEY_STRIDE, "strides", "stride", false))
        return false;
    drop_default(oi->op, ATTR_KEY_STRIDE, 1);
    return true;
}

bool mlir_imp_reverse(OpImport *oi)
{
    return mlir_imp_make_op(oi, OP_REVERSE) && mlir_imp_ints_attr(oi, ATTR_KEY_DIMS, "dimensions", "dims", true);
}

/* slice_sizes must be the result's dims, which are the slice sizes in
 * .shir. */
bool mlir_imp_dynamic_slice(OpImport *oi)
{
    if (!mlir_imp_make_op(oi, OP_DYNAMIC_SLICE))
        return false;
    const MlirAttr *a = mlir_imp_attr2(oi, "slice_sizes", "sizes");
    if (!a)
        return op_error(oi, "it needs attribute 'slice_sizes'");
    int64_t v[SHARDC_MAX_RANK];
    int n;
    if (!mlir_imp_ints(oi->ic, a, "slice_sizes", v, SHARDC_MAX_RANK, &n))
        return false;
    const TensorType *r = &oi->op->results[0]->type;
    bool same = n == r->rank;
    for (int d = 0; same && d < n; d++)
        same = v[d] == r->dims[d];
    if (!same)
        return op_error(oi, "its slice_sizes must be the result's dims");
    return true;
}

static bool is_zero(const AttrValue *v)
{
    return (v->kind == ATTR_FLOAT && v->u.f == 0.0 && !signbit(v->u.f)) || (v->kind == ATTR_INT && v->u.i == 0) ||
           (v->kind == ATTR_BOOL && !v->u.b);
}

bool mlir_imp_pad(OpImport *oi)
{
    if (!need_operands(oi, 2))
        return false;
    const AttrValue *value = mlir_imp_scalar_operand(oi, 1);
    if (value)
        oi->num_operands = 1; /* a constant folds into the op's `value` */
    if (!mlir_imp_make_op(oi, OP_PAD) || !mlir_imp_ints_attr(oi, ATTR_KEY_LOW, "edge_padding_low", "low", true) ||
        !mlir_imp_ints_attr(oi, ATTR_KEY_HIGH, "edge_padding_high", "high", true) ||
        !mlir_imp_ints_attr(oi, ATTR_KEY_INTERIOR, "interior_padding", "interior", false))
        return false;
    drop_default(oi->op, ATTR_KEY_INTERIOR, 0);
    if (!value)
        return true;
    if (!is_zero(value))
        mlir_imp_set(oi, ATTR_KEY_VALUE, (AttrValue *)value);
    oi->init = oi->operand_names[1]->fold == IMP_PLAIN ? oi->operand_names[1]->values[0] : NULL;
    return true;
}

/* One of a complex constant's real parts: a constant op of the part type
 * placed before the op being imported. */
static Value *part_constant(OpImport *oi, AttrValue *value, const char *suffix)
{
    ImportCtx *ic = oi->ic;
    TensorType t = oi->result_types[0];
    t.dtype = dtype_complex_part(t.dtype);
    Loc loc = mlir_imp_loc(ic, oi->src->loc);
    Op *c = op_new(ic->m, OP_CONSTANT, loc);
    const MlirResultDef *def = oi->src->results.count ? oi->src->results.items[0] : NULL;
    char name[96];
    snprintf(name, sizeof name, "%.80s.%s", def ? def->name : "cst", suffix);
    Value *v = value_new(ic->m, mlir_imp_str(ic, name), t, loc);
    v->def = c;
    c->num_results = 1;
    c->results = ARENA_ARRAY(ic->arena, Value *, 1);
    c->results[0] = v;
    op_attr_set(ic->arena, c, ATTR_KEY_VALUE, value);
    block_append(ic->block, c);
    return v;
}

/* A complex literal with a nonzero imaginary part (JAX's NaN+NaNj fill,
 * `dense<(0x7FC00000,0x7FC00000)>`): IR constants hold real numbers, so
 * it becomes `complex` of two real constants, its parts. */
static bool complex_constant(OpImport *oi, const MlirAttr *value)
{
    bool any_imag;
    AttrValue *re = mlir_imp_dense_part(oi->ic, value, &oi->result_types[0], 0, &any_imag);
    AttrValue *im = re ? mlir_imp_dense_part(oi->ic, value, &oi->result_types[0], 1, &any_imag) : NULL;
    if (!im)
        return false;
    Value *parts[2] = {part_constant(oi, re, "re"), part_constant(oi, im, "im")};
    oi->num_operands = 2;
    oi->operands = ARENA_ARRAY(oi->ic->arena, Value *, 2);
    memcpy(oi->operands, parts, sizeof parts);
    oi->operand_names = ARENA_ARRAY(&oi->ic->scratch, ImpValue *, 2); /* plain values, not folded */
    for (int i = 0; i < 2; i++)
        oi->operand_names[i] = ARENA_NEW(&oi->ic->scratch, ImpValue);
    return mlir_imp_make_op(oi, OP_COMPLEX);
}

/* Whether a complex literal has a nonzero imaginary part (a literal of
 * a dynamic type is refused once, by mlir_imp_dense). */
static bool has_imaginary_part(OpImport *oi, const MlirAttr *value)
{
    bool any_imag = false;
    return dtype_is_complex(oi->result_types[0].dtype) && type_is_static(&oi->result_types[0]) &&
           mlir_imp_dense_part(oi->ic, value, &oi->result_types[0], 0, &any_imag) && any_imag;
}

/* A constant marked shardc.implicit_constant folds away once its literal
 * reads (its users, a reduce or pad, read it again). */
bool mlir_imp_constant(OpImport *oi)
{
    const MlirAttr *value = mlir_imp_attr(oi, "value");
    bool implicit = mlir_imp_attr(oi, "shardc.implicit_constant") != NULL;
    if (!value)
        return op_error(oi, "it needs attribute 'value'");
    if (oi->num_results != 1)
        return op_error(oi, "it has one result");
    if (!implicit && has_imaginary_part(oi, value))
        return complex_constant(oi, value);
    AttrValue *v = mlir_imp_dense(oi->ic, value, &oi->result_types[0]);
    if (!v)
        return false;
    if (implicit) {
        oi->fold = IMP_CONSTANT;
        return true;
    }
    if (strcmp(oi->src->name, "sdy.constant") == 0)
        oi->op_name = "sdy.constant"; /* printed back as written (no %c name) */
    if (!mlir_imp_make_op(oi, OP_CONSTANT))
        return false;
    mlir_imp_set(oi, ATTR_KEY_VALUE, v);
    return true;
}

/* ---- compare ---- */

/* The parser reads #stablehlo<comparison_direction GT> as the keyword GT. */
/* compare_type TOTALORDER changes what compare computes: it becomes the
 * op's compare_type; FLOAT, SIGNED and UNSIGNED (the operand type's
 * order) stay kept as written. */
static void import_total_order(OpImport *oi)
{
    const MlirAttr *t = mlir_imp_attr(oi, "compare_type");
    if (t && t->kind == MA_KEYWORD && strcmp(t->s, "TOTALORDER") == 0)
        mlir_imp_set(oi, ATTR_KEY_COMPARE_TYPE, mlir_imp_string_attr(oi->ic, t->s, mlir_imp_loc(oi->ic, t->loc)));
    else if (t)
        mlir_imp_keep_attr(oi, "compare_type");
    oi->no_compare_type = !t;
}

bool mlir_imp_compare(OpImport *oi)
{
    static const char *const directions[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
    const MlirAttr *a = mlir_imp_attr(oi, "comparison_direction");
    if (!a)
        return op_error(oi, "it needs attribute 'comparison_direction'");
    for (size_t i = 0; a->kind == MA_KEYWORD && i < sizeof directions / sizeof directions[0]; i++) {
        if (strcmp(a->s, directions[i]) != 0)
            continue;
        char lower[3] = {(char)(a->s[0] - 'A' + 'a'), (char)(a->s[1] - 'A' + 'a'), 0};
        if (!mlir_imp_make_op(oi, OP_COMPARE))
            return false;
        mlir_imp_set(oi, ATTR_KEY_DIRECTION, mlir_imp_string_attr(oi->ic, lower, mlir_imp_loc(oi->ic, a->loc)));
        import_total_order(oi);
        return true;
    }
    diag_error(oi->ic->diag, mlir_imp_loc(oi->ic, a->loc), "comparison_direction must be EQ, NE, LT, LE, GT or GE");
    return false;
}

/* `type = FFT, length = [16]` (generic: fft_type = #stablehlo<fft_type
 * FFT>, fft_length = array<i64: 16>); the type stays in upper case, as
 * .shir spells it. */
bool mlir_imp_fft(OpImport *oi)
{
    const MlirAttr *a = mlir_imp_attr(oi, "fft_type");
    if (!a || a->kind != MA_KEYWORD)
        return op_error(oi, "it needs attribute 'fft_type' (FFT, IFFT, RFFT or IRFFT)");
    if (!mlir_imp_make_op(oi, OP_FFT) || !mlir_imp_ints_attr(oi, ATTR_KEY_FFT_LENGTH, "fft_length", "length", true))
        return false;
    mlir_imp_set(oi, ATTR_KEY_FFT_TYPE, mlir_imp_string_attr(oi->ic, a->s, mlir_imp_loc(oi->ic, a->loc)));
    return true;
}

/* ---- calls and sharding ops ---- */

bool mlir_imp_call(OpImport *oi)
{
    const MlirAttr *callee = mlir_imp_attr(oi, "callee");
    if (!callee || callee->kind != MA_SYMBOL)
        return op_error(oi, "it needs a callee @f");
    mlir_imp_keep_attr(oi, "arg_attrs");
    mlir_imp_keep_attr(oi, "res_attrs");
    mlir_imp_keep_attr(oi, "no_inline");
    if (!mlir_imp_make_op(oi, OP_CALL))
        return false;
    oi->op->callee = mlir_imp_str(oi->ic, callee->s);
    op_set_callee_loc(oi->ic->arena, oi->op, mlir_imp_loc(oi->ic, callee->loc));
    return true;
}

bool mlir_imp_sharding_op(OpImport *oi)
{
    const MlirAttr *a = mlir_imp_attr(oi, "sharding");
    if (!a || a->kind != MA_SHARDING)
        return op_error(oi, "it needs its sharding <@mesh, [...]>");
    ImpSite site = {oi->src->loc, oi->src->name, NULL, 0, 0, false};
    Sharding *s = mlir_imp_sharding_at(oi->ic, &site, a->sharding, oi->num_results == 1 ? oi->result_types : NULL);
    if (!s || !mlir_imp_make_op(oi, oi->kind))
        return false;
    oi->op->results[0]->sharding = s;
    return true;
}

/* `sdy.data_flow_edge %x sharding=<...>`: the sharding is optional. */
bool mlir_imp_data_flow_edge(OpImport *oi)
{
    const MlirAttr *a = mlir_imp_attr(oi, "sharding");
    if (a && a->kind != MA_SHARDING)
        return op_error(oi, "its sharding must be <@mesh, [...]>");
    ImpSite site = {oi->src->loc, oi->src->name, NULL, 0, 0, false};
    const TensorType *type = oi->num_results == 1 ? oi->result_types : NULL;
    Sharding *s = a ? mlir_imp_sharding_at(oi->ic, &site, a->sharding, type) : NULL;
    if ((a && !s) || !mlir_imp_make_op(oi, OP_DATA_FLOW_EDGE))
        return false;
    oi->op->results[0]->sharding = s;
    return true;
}

/* `allowed_direction=BACKWARD` (#sdy<propagation_direction BACKWARD>, read
 * as a keyword) becomes "backward"; BOTH is imported so that the verifier
 * reports it, as Shardy's does. */
bool mlir_imp_barrier(OpImport *oi)
{
    static const char *const directions[] = {"NONE", "FORWARD", "BACKWARD", "BOTH"};
    static const char *const lower[] = {"none", "forward", "backward", "both"};
    const MlirAttr *a = mlir_imp_attr(oi, "allowed_direction");
    if (!a)
        return op_error(oi, "it needs attribute 'allowed_direction'");
    for (size_t i = 0; a->kind == MA_KEYWORD && i < sizeof directions / sizeof directions[0]; i++) {
        if (strcmp(a->s, directions[i]) != 0)
            continue;
        if (!mlir_imp_make_op(oi, OP_PROPAGATION_BARRIER))
            return false;
        mlir_imp_set(oi, ATTR_KEY_ALLOWED_DIRECTION, mlir_imp_string_attr(oi->ic, lower[i], mlir_imp_loc(oi->ic, a->loc)));
        return true;
    }
    diag_error(oi->ic->diag, mlir_imp_loc(oi->ic, a->loc), "allowed_direction must be NONE, FORWARD, BACKWARD or BOTH");
    return false;
}

bool mlir_imp_sharding_group(OpImport *oi)
{
    return mlir_imp_make_op(oi, OP_SHARDING_GROUP) && mlir_imp_int_attr_from(oi, ATTR_KEY_GROUP_ID, "group_id", "group_id");
}

/* ---- rng_bit_generator (issue 18, h33) ---- */

/* `algorithm = THREE_FRY` (custom form) or #stablehlo<rng_algorithm
 * THREE_FRY> (generic), both read as a keyword; absent is DEFAULT. */
bool mlir_imp_rng_bit_generator(OpImport *oi)
{
    static const char *const algorithms[] = {"DEFAULT", "THREE_FRY", "PHILOX"};
    const MlirAttr *a = mlir_imp_attr(oi, "rng_algorithm");
    const char *name = "DEFAULT";
    bool known = !a;
    for (size_t i = 0; a && a->kind == MA_KEYWORD && i < sizeof algorithms / sizeof algorithms[0]; i++)
        if (strcmp(a->s, algorithms[i]) == 0) {
            name = algorithms[i];
            known = true;
        }
    if (!known) {
        diag_error(oi->ic->diag, mlir_imp_loc(oi->ic, a->loc), "rng_algorithm must be DEFAULT, THREE_FRY or PHILOX");
        return false;
    }
    if (!mlir_imp_make_op(oi, OP_RNG_BIT_GENERATOR))
        return false;
    Loc loc = a ? mlir_imp_loc(oi->ic, a->loc) : oi->op->loc;
    mlir_imp_set(oi, ATTR_KEY_RNG_ALGORITHM, mlir_imp_string_attr(oi->ic, name, loc));
    return true;
}
