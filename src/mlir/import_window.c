/* stablehlo.convolution, stablehlo.reduce_window and
 * stablehlo.select_and_scatter. convolution in its custom form
 * (`dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window =
 * {stride = ..., pad = ..., lhs_dilate = ..., rhs_dilate = ...}`, which
 * parse_custom.c hands on as a dims pair and a dict) or the generic one
 * (#stablehlo.conv<...>, window_strides, padding, lhs_dilation,
 * rhs_dilation). reduce_window: one input, a body of one add, maximum or
 * minimum and its identity as init; select_and_scatter: a select of
 * `compare GE` and a scatter of add with init 0 (a max-pool's gradient),
 * the form shardc runs. */
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

/* The init operand i, if it is the identity of `kind` (then folded into
 * the op: kept as MlirExtra.init to be printed back). */
static bool take_init(OpImport *oi, int i, OpKind kind)
{
    const AttrValue *init = mlir_imp_scalar_operand(oi, i);
    if (!init || !mlir_imp_is_identity(init, kind, oi->operands[0] ? oi->operands[0]->type.dtype : DT_F32))
        return win_error(oi, oi->src->loc, kind == OP_REDUCE_SUM && oi->num_operands == 3
                                               ? "its init must be a constant 0 (the scatter's add starts from it)"
                                               : "its init must be a constant holding its reduction's identity");
    oi->num_operands = i;
    return true;
}

static bool read_window_attrs(OpImport *oi)
{
    const MlirAttr *pad = mlir_imp_attr(oi, "padding");
    return mlir_imp_ints_attr(oi, ATTR_KEY_WINDOW_DIMENSIONS, "window_dimensions", NULL, true) &&
           read_list(oi, NULL, NULL, "window_strides", ATTR_KEY_WINDOW_STRIDES) && (!pad || read_padding(oi, pad));
}

static void keep_init(OpImport *oi, int i)
{
    oi->init = oi->operand_names[i]->fold == IMP_PLAIN ? oi->operand_names[i]->values[0] : NULL;
}

bool mlir_imp_reduce_window(OpImport *oi)
{
    if (oi->num_operands != 2)
        return win_error(oi, oi->src->loc, "only one input (and its init) is supported by shardc");
    const char *body = mlir_imp_reducer(oi->ic, oi->src, 0);
    if (!body)
        return false;
    OpKind kind = strcmp(body, "stablehlo.add") == 0       ? OP_REDUCE_SUM
                  : strcmp(body, "stablehlo.maximum") == 0 ? OP_REDUCE_MAX
                  : strcmp(body, "stablehlo.minimum") == 0 ? OP_REDUCE_MIN
                                                           : OP_COUNT;
    if (kind == OP_COUNT)
        return win_error(oi, oi->src->loc, "its body must be one add, maximum or minimum");
    if (!take_init(oi, 1, kind) || !mlir_imp_make_op(oi, OP_REDUCE_WINDOW))
        return false;
    keep_init(oi, 1);
    const char *names[] = {"sum", "max", "min"};
    mlir_imp_set(oi, ATTR_KEY_REDUCTION, mlir_imp_string_attr(oi->ic, names[kind == OP_REDUCE_MAX ? 1 : kind == OP_REDUCE_MIN ? 2 : 0],
                                                              oi->op->loc));
    return read_window_attrs(oi) && read_list(oi, NULL, NULL, "base_dilations", ATTR_KEY_BASE_DILATIONS) &&
           read_list(oi, NULL, NULL, "window_dilations", ATTR_KEY_WINDOW_DILATIONS);
}

/* The select region: one `compare GE` of its two arguments, returned. */
static bool select_is_ge(const MlirOp *src)
{
    const MlirRegion *r = src->regions.count == 2 ? src->regions.items[0] : NULL;
    const MlirBlock *b = r && r->blocks.count == 1 ? r->blocks.items[0] : NULL;
    const MlirOp *cmp = b && b->ops.count == 2 && b->args.count == 2 ? b->ops.items[0] : NULL;
    if (!cmp || strcmp(cmp->name, "stablehlo.compare") != 0 || cmp->operands.count != 2)
        return false;
    const MlirAttr *dir = mlir_dict_get(&cmp->attrs, "comparison_direction");
    const char *d = dir ? (dir->s ? dir->s : dir->raw) : NULL;
    const char *x = ((const MlirBlockArg *)b->args.items[0])->name;
    const char *y = ((const MlirBlockArg *)b->args.items[1])->name;
    return d && strstr(d, "GE") && strcmp(((const MlirUse *)cmp->operands.items[0])->name, x) == 0 &&
           strcmp(((const MlirUse *)cmp->operands.items[1])->name, y) == 0;
}

bool mlir_imp_select_and_scatter(OpImport *oi)
{
    if (oi->num_operands != 3)
        return win_error(oi, oi->src->loc, "it takes an operand, a source and an init");
    if (!select_is_ge(oi->src))
        return win_error(oi, oi->src->loc, "only a select of 'stablehlo.compare GE' of its two arguments (a "
                         "max-pool's gradient) is supported by shardc");
    const char *body = mlir_imp_reducer(oi->ic, oi->src, 1);
    if (!body)
        return false;
    if (strcmp(body, "stablehlo.add") != 0)
        return win_error(oi, oi->src->loc, "only a scatter of 'stablehlo.add' is supported by shardc");
    if (!take_init(oi, 2, OP_REDUCE_SUM) || !mlir_imp_make_op(oi, OP_SELECT_AND_SCATTER))
        return false;
    keep_init(oi, 2);
    return read_window_attrs(oi);
}
