/* stablehlo.convolution, stablehlo.reduce_window and
 * stablehlo.select_and_scatter. convolution in its custom form
 * (`dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window =
 * {stride = ..., pad = ..., lhs_dilate = ..., rhs_dilate = ...}`, which
 * parse_custom.c hands on as a dims pair and a dict) or the generic one
 * (#stablehlo.conv<...>, window_strides, padding, lhs_dilation,
 * rhs_dilation). reduce_window: N inputs and inits, a body reducing each
 * input on its own by one add, maximum or minimum; select_and_scatter: a
 * select of one `compare` (GE, GT, LE, LT) and a scatter of add. An init
 * that is the reduction's identity (one input) folds into the op. */
#include <string.h>
#include "mlir/import_internal.h"
#include "shardc/window.h"

static bool win_error(OpImport *oi, Loc loc, const char *msg)
{
    diag_error(oi->ic->diag, mlir_imp_loc(oi->ic, loc), "'%s': %s", oi->src->name, msg);
    return false;
}

/* One `[b, 0, 1, f]` list of the custom form into buf. */
static bool format_dims_list(const MlirAttr *a, char *buf, size_t len, size_t *n)
{
    if (a->kind != MA_ARRAY)
        return false;
    *n += (size_t)snprintf(buf + *n, len - *n, "[");
    for (int i = 0; i < a->items.count && *n < len; i++) {
        const MlirAttr *e = a->items.items[i];
        const char *sep = i ? ", " : "";
        if (e->kind == MA_INT)
            *n += (size_t)snprintf(buf + *n, len - *n, "%s%lld", sep, (long long)e->i);
        else if (e->kind == MA_KEYWORD)
            *n += (size_t)snprintf(buf + *n, len - *n, "%s%s", sep, e->s);
        else
            return false;
    }
    if (*n < len)
        *n += (size_t)snprintf(buf + *n, len - *n, "]");
    return *n < len;
}

/* The dimension numbers as .shir's dim_numbers string. */
static bool read_conv_dims(OpImport *oi)
{
    const MlirAttr *a = mlir_imp_attr2(oi, "dim_numbers", "dimension_numbers");
    char buf[256];
    size_t n = 0;
    static const char *const seps[] = {"x", "->", ""};
    if (!a)
        return win_error(oi, oi->src->loc, "it needs its dimension numbers ('dim_numbers')");
    if (a->kind == MA_DIMS_PAIR && a->items.count == 3) {
        for (int i = 0; i < 3; i++)
            if (!format_dims_list(a->items.items[i], buf, sizeof buf, &n) ||
                (n += (size_t)snprintf(buf + n, sizeof buf - n, "%s", seps[i])) >= sizeof buf)
                return win_error(oi, a->loc, "malformed dim_numbers");
    } else if (a->kind == MA_DIALECT && a->raw && strncmp(a->raw, "#stablehlo.conv<", 16) == 0 &&
               strlen(a->raw) < sizeof buf + 17) {
        snprintf(buf, sizeof buf, "%s", a->raw + 16);
        buf[strlen(buf) - 1] = '\0';
    } else {
        return win_error(oi, a->loc, "dim_numbers must be [...]x[...]->[...] or #stablehlo.conv<...>");
    }
    mlir_imp_set(oi, ATTR_KEY_DIM_NUMBERS, mlir_imp_string_attr(oi->ic, buf, mlir_imp_loc(oi->ic, a->loc)));
    return true;
}

/* `[[lo, hi], ...]` (the custom form) or dense<...> : tensor<Nx2xi64>. */
static bool read_padding(OpImport *oi, const MlirAttr *a)
{
    int64_t *v = NULL, pairs[2 * SHARDC_MAX_RANK];
    int rows = 0, cols = 2;
    if (a->kind == MA_ARRAY) {
        rows = a->items.count;
        for (int r = 0; r < rows && r < SHARDC_MAX_RANK; r++) {
            int got;
            if (!mlir_imp_ints(oi->ic, a->items.items[r], "pad", pairs + 2 * r, 2, &got) || got != 2)
                return win_error(oi, a->loc, "pad must be [[low, high], ...]");
        }
        v = pairs;
    } else if (!mlir_imp_dense_matrix(oi->ic, a, "padding", &v, &rows, &cols)) {
        return false;
    }
    if (cols != 2 || rows > SHARDC_MAX_RANK)
        return win_error(oi, a->loc, "padding must hold one [low, high] pair per dim");
    Loc loc = mlir_imp_loc(oi->ic, a->loc);
    AttrValue *list = mlir_imp_array(oi->ic, rows, loc);
    for (int r = 0; r < rows; r++)
        list->u.array.items[r] = mlir_imp_int_list(oi->ic, v + 2 * r, 2, loc);
    mlir_imp_set(oi, ATTR_KEY_PADDING, list);
    return true;
}

/* An int list attribute: `name` of the window dict or `generic` of the op. */
static bool read_list(OpImport *oi, const MlirAttr *window, const char *name, const char *generic, AttrKey key)
{
    const MlirAttr *a = window ? mlir_dict_get(&window->items, name) : mlir_imp_attr(oi, generic);
    int64_t v[SHARDC_MAX_RANK];
    int n;
    if (!a)
        return true;
    if (!mlir_imp_ints(oi->ic, a, generic, v, SHARDC_MAX_RANK, &n))
        return false;
    mlir_imp_set(oi, key, mlir_imp_int_list(oi->ic, v, n, mlir_imp_loc(oi->ic, a->loc)));
    return true;
}

static bool read_conv_window(OpImport *oi)
{
    const MlirAttr *w = mlir_imp_attr(oi, "window");
    if (w && w->kind != MA_DICT)
        return win_error(oi, w->loc, "window must be {stride = ..., pad = ..., lhs_dilate = ..., rhs_dilate = ...}");
    for (int i = 0; w && i < w->items.count; i++) {
        const char *k = ((const MlirNamedAttr *)w->items.items[i])->name;
        if (strcmp(k, "stride") && strcmp(k, "pad") && strcmp(k, "lhs_dilate") && strcmp(k, "rhs_dilate"))
            return win_error(oi, w->loc, "window entries other than stride, pad, lhs_dilate and rhs_dilate "
                             "(window reversal) are not supported by shardc");
    }
    const MlirAttr *pad = w ? mlir_dict_get(&w->items, "pad") : mlir_imp_attr(oi, "padding");
    const MlirAttr *rev = mlir_imp_attr(oi, "window_reversal");
    if (rev)
        return win_error(oi, rev->loc, "window_reversal is not supported by shardc");
    return read_list(oi, w, "stride", "window_strides", ATTR_KEY_WINDOW_STRIDES) && (!pad || read_padding(oi, pad)) &&
           read_list(oi, w, "lhs_dilate", "lhs_dilation", ATTR_KEY_LHS_DILATION) &&
           read_list(oi, w, "rhs_dilate", "rhs_dilation", ATTR_KEY_RHS_DILATION);
}

static bool read_group_count(OpImport *oi, AttrKey key)
{
    return !mlir_imp_attr(oi, attr_key_name(key)) || mlir_imp_int_attr_from(oi, key, attr_key_name(key), NULL);
}

/* `lhs_dilations = dense<1> : tensor<2xi64>` (plural: not StableHLO's
 * lhs_dilation), an attribute MLIR keeps on the op as written and nothing
 * reads: kept when a splat of 1 (no dilation), else refused as unknown. */
static void keep_unit_dilations(OpImport *oi, const char *name)
{
    const MlirAttr *a = mlir_dict_get(&oi->src->attrs, name);
    if (a && a->kind == MA_DENSE && a->raw && strncmp(a->raw, "dense<1>", 8) == 0)
        mlir_imp_keep_attr(oi, name);
}

bool mlir_imp_convolution(OpImport *oi)
{
    mlir_imp_attr(oi, "precision_config"); /* the interpreter computes in f32 or f64 whatever it asks */
    keep_unit_dilations(oi, "lhs_dilations");
    keep_unit_dilations(oi, "rhs_dilations");
    return mlir_imp_make_op(oi, OP_CONVOLUTION) && read_conv_dims(oi) && read_conv_window(oi) &&
           read_group_count(oi, ATTR_KEY_FEATURE_GROUP_COUNT) && read_group_count(oi, ATTR_KEY_BATCH_GROUP_COUNT);
}

/* Whether init operand i is a constant holding the identity of `kind`
 * (then it folds into the op: kept as MlirExtra.init to be printed back). */
static bool init_is_identity(OpImport *oi, int i, OpKind kind)
{
    const AttrValue *init = mlir_imp_scalar_operand(oi, i);
    return init && mlir_imp_is_identity(init, kind, oi->operands[0] ? oi->operands[0]->type.dtype : DT_F32);
}

static bool read_window_attrs(OpImport *oi)
{
    const MlirAttr *pad = mlir_imp_attr(oi, "padding");
    return mlir_imp_ints_attr(oi, ATTR_KEY_WINDOW_DIMENSIONS, "window_dimensions", NULL, true) &&
           read_list(oi, NULL, NULL, "window_strides", ATTR_KEY_WINDOW_STRIDES) && (!pad || read_padding(oi, pad));
}

/* Folds init operand i, the last, into the op. */
static void fold_init(OpImport *oi, int i)
{
    oi->init = oi->operand_names[i]->fold == IMP_PLAIN ? oi->operand_names[i]->values[0] : NULL;
}

static const char *use_name(const MlirList *uses, int i)
{
    return ((const MlirUse *)uses->items[i])->name;
}

/* The op of a body that reduces each of its n inputs on its own, all by
 * one op: `%r_k = op %a_k, %b_k` (either order) for k < n, then
 * `stablehlo.return %r_0, ..., %r_n-1`; NULL for any other body. */
static const char *pairwise_body(const MlirOp *owner, int n)
{
    const MlirRegion *r = owner->regions.count == 1 ? owner->regions.items[0] : NULL;
    const MlirBlock *b = r && r->blocks.count == 1 ? r->blocks.items[0] : NULL;
    const MlirOp *ret = b && b->args.count == 2 * n && b->ops.count == n + 1 ? b->ops.items[n] : NULL;
    const char *name = NULL;
    if (!ret || strcmp(ret->name, "stablehlo.return") != 0 || ret->operands.count != n)
        return NULL;
    for (int k = 0; k < n; k++) {
        const MlirOp *op = b->ops.items[k];
        if (op->operands.count != 2 || op->results.count != 1 || (name && strcmp(name, op->name) != 0))
            return NULL;
        name = op->name;
        const char *x = ((const MlirBlockArg *)b->args.items[k])->name;
        const char *y = ((const MlirBlockArg *)b->args.items[n + k])->name;
        const char *u = use_name(&op->operands, 0), *v = use_name(&op->operands, 1);
        bool args = (strcmp(u, x) == 0 && strcmp(v, y) == 0) || (strcmp(u, y) == 0 && strcmp(v, x) == 0);
        if (!args || strcmp(use_name(&ret->operands, k), ((const MlirResultDef *)op->results.items[0])->name) != 0)
            return NULL;
    }
    return name;
}

static OpKind window_reduction(const char *body)
{
    return !body                                   ? OP_COUNT
           : strcmp(body, "stablehlo.add") == 0     ? OP_REDUCE_SUM
           : strcmp(body, "stablehlo.maximum") == 0 ? OP_REDUCE_MAX
           : strcmp(body, "stablehlo.minimum") == 0 ? OP_REDUCE_MIN
                                                    : OP_COUNT;
}

/* N inputs, N inits, N results; the body reduces each input on its own by
 * one add, maximum or minimum, the same for all. One input whose init is
 * that reduction's identity folds the init into the op (shardc's
 * `reduce_window %x`); otherwise the inits stay operands. */
bool mlir_imp_reduce_window(OpImport *oi)
{
    int n = oi->num_results;
    if (n < 1 || oi->num_operands != 2 * n)
        return win_error(oi, oi->src->loc, "it takes one init per input and gives one result per input");
    OpKind kind = window_reduction(n == 1 ? mlir_imp_reducer(oi->ic, oi->src, 0) : pairwise_body(oi->src, n));
    if (kind == OP_COUNT)
        return win_error(oi, oi->src->loc, "its body must reduce each input with its init by one add, maximum or "
                         "minimum (the same op for every input), and return the results in order");
    bool fold = n == 1 && init_is_identity(oi, 1, kind);
    if (fold)
        oi->num_operands = 1;
    if (!mlir_imp_make_op(oi, OP_REDUCE_WINDOW))
        return false;
    if (fold)
        fold_init(oi, 1);
    const char *names[] = {"sum", "max", "min"};
    mlir_imp_set(oi, ATTR_KEY_REDUCTION, mlir_imp_string_attr(oi->ic, names[kind == OP_REDUCE_MAX ? 1 : kind == OP_REDUCE_MIN ? 2 : 0],
                                                              oi->op->loc));
    return read_window_attrs(oi) && read_list(oi, NULL, NULL, "base_dilations", ATTR_KEY_BASE_DILATIONS) &&
           read_list(oi, NULL, NULL, "window_dilations", ATTR_KEY_WINDOW_DILATIONS);
}

static const char *result_name(const MlirOp *op)
{
    return op->results.count == 1 ? ((const MlirResultDef *)op->results.items[0])->name : "";
}

/* `stablehlo.convert` of the value named `of` to its own type (i1 to
 * i1): the value itself. */
static bool identity_convert(const MlirOp *op, const char *of)
{
    const MlirType *from = op->operand_types.count == 1 ? op->operand_types.items[0] : NULL;
    const MlirType *to = op->result_types.count == 1 ? op->result_types.items[0] : NULL;
    return strcmp(op->name, "stablehlo.convert") == 0 && op->operands.count == 1 && op->results.count == 1 &&
           strcmp(use_name(&op->operands, 0), of) == 0 && from && to && strcmp(from->text, to->text) == 0;
}

/* The select region: one `compare DIR` of its two arguments, returned,
 * maybe through converts to its own type (JAX's lowering of a bool
 * select writes one); DIR lower-cased into dir ("ge", "gt", "le" or
 * "lt"), else false. */
static bool select_direction(const MlirOp *src, char dir[3])
{
    const MlirRegion *r = src->regions.count == 2 ? src->regions.items[0] : NULL;
    const MlirBlock *b = r && r->blocks.count == 1 ? r->blocks.items[0] : NULL;
    const MlirOp *cmp = b && b->ops.count >= 2 && b->args.count == 2 ? b->ops.items[0] : NULL;
    const MlirOp *ret = cmp ? b->ops.items[b->ops.count - 1] : NULL;
    const char *value = cmp ? result_name(cmp) : "";
    for (int k = 1; cmp && k < b->ops.count - 1; k++) {
        if (!identity_convert(b->ops.items[k], value))
            return false;
        value = result_name(b->ops.items[k]);
    }
    if (!cmp || strcmp(cmp->name, "stablehlo.compare") != 0 || cmp->operands.count != 2 || cmp->results.count != 1 ||
        ret->operands.count != 1 || strcmp(use_name(&ret->operands, 0), value))
        return false;
    const MlirAttr *a = mlir_dict_get(&cmp->attrs, "comparison_direction");
    const char *d = a ? (a->s ? a->s : a->raw) : NULL;
    static const char *const dirs[] = {"GE", "GT", "LE", "LT"};
    const char *x = ((const MlirBlockArg *)b->args.items[0])->name;
    const char *y = ((const MlirBlockArg *)b->args.items[1])->name;
    if (!d || strcmp(use_name(&cmp->operands, 0), x) != 0 || strcmp(use_name(&cmp->operands, 1), y) != 0)
        return false;
    for (int i = 0; i < 4; i++)
        if (strstr(d, dirs[i])) { /* `GT` or `#stablehlo<comparison_direction GT>` */
            dir[0] = (char)(dirs[i][0] - 'A' + 'a'), dir[1] = (char)(dirs[i][1] - 'A' + 'a'), dir[2] = '\0';
            return true;
        }
    return false;
}

/* The select region's compare (`direction`, "ge" left out: the default),
 * a scatter of add; a constant 0 init folds into the op, any other stays
 * an operand. */
bool mlir_imp_select_and_scatter(OpImport *oi)
{
    char dir[3];
    if (oi->num_operands != 3)
        return win_error(oi, oi->src->loc, "it takes an operand, a source and an init");
    if (!select_direction(oi->src, dir))
        return win_error(oi, oi->src->loc, "only a select of one 'stablehlo.compare' GE, GT, LE or LT of its two "
                         "arguments, in order, is supported by shardc");
    const char *body = mlir_imp_reducer(oi->ic, oi->src, 1);
    if (!body)
        return false;
    if (strcmp(body, "stablehlo.add") != 0)
        return win_error(oi, oi->src->loc, "only a scatter of 'stablehlo.add' is supported by shardc");
    bool fold = init_is_identity(oi, 2, OP_REDUCE_SUM);
    if (fold)
        oi->num_operands = 2;
    if (!mlir_imp_make_op(oi, OP_SELECT_AND_SCATTER))
        return false;
    if (fold)
        fold_init(oi, 2);
    if (strcmp(dir, "ge") != 0)
        mlir_imp_set(oi, ATTR_KEY_DIRECTION, mlir_imp_string_attr(oi->ic, dir, oi->op->loc));
    return read_window_attrs(oi);
}
