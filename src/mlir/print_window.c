/* stablehlo.convolution in its custom form (`dim_numbers = [b, 0, 1,
 * f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = ..., pad = ...,
 * lhs_dilate = ..., rhs_dilate = ...}`, the group counts in the attribute
 * dict where written), stablehlo.reduce_window and
 * stablehlo.select_and_scatter in the generic form sdy_opt prints them
 * (StableHLO gives them no custom syntax): window attributes as dense
 * arrays and padding as a dense<...> : tensor<Nx2xi64>, the bodies as
 * regions, the init a constant (the one read from MLIR while visible). */
#include <string.h>
#include "mlir/mlir_extra.h"
#include "mlir/print_internal.h"
#include "shardc/window.h"

static void print_pairs(MlirPrinter *p, const WindowDims *w)
{
    fputc('[', p->out);
    for (int i = 0; i < w->n; i++)
        fprintf(p->out, "%s[%lld, %lld]", i ? ", " : "", (long long)w->lo[i], (long long)w->hi[i]);
    fputc(']', p->out);
}

/* `, key = [..]` of the window dict for a written attribute. */
static void window_entry(MlirPrinter *p, const Op *op, AttrKey key, const char *name, bool *first)
{
    int64_t v[SHARDC_MAX_RANK];
    int n = op_attr_ints(op, key, v, SHARDC_MAX_RANK);
    if (n < 0 || !op_attr_find(op, key))
        return;
    fprintf(p->out, "%s%s = ", *first ? "" : ", ", name);
    mlir_print_ints(p->out, v, n);
    *first = false;
}

static const AttrKey conv_consumed[] = {ATTR_KEY_DIM_NUMBERS, ATTR_KEY_WINDOW_STRIDES, ATTR_KEY_PADDING,
                                        ATTR_KEY_LHS_DILATION, ATTR_KEY_RHS_DILATION, ATTR_KEY_NONE};

static void print_type_tail(MlirPrinter *p, const Op *op, const MlirVal *in, int n)
{
    MlirVal res = mlir_val(p, op->results[0]);
    fputs(" : ", p->out);
    mlir_print_fn_type(p->out, in, n, &res, 1);
    fputc('\n', p->out);
}

void mlir_emit_convolution(MlirPrinter *p, const Op *op, int indent)
{
    MlirVal in[2] = {mlir_val(p, op->operands[0]), mlir_val(p, op->operands[1])};
    WindowDims w;
    op_window_dims(op, &w);
    mlir_print_defs(p, op, indent);
    fputs("stablehlo.convolution(", p->out);
    mlir_print_vals(p, in, 2);
    fprintf(p->out, ") dim_numbers = %s, window = {", op_attr_string(op, ATTR_KEY_DIM_NUMBERS));
    bool first = true;
    window_entry(p, op, ATTR_KEY_WINDOW_STRIDES, "stride", &first);
    if (op_attr_find(op, ATTR_KEY_PADDING)) {
        fputs(first ? "pad = " : ", pad = ", p->out);
        print_pairs(p, &w);
        first = false;
    }
    window_entry(p, op, ATTR_KEY_LHS_DILATION, "lhs_dilate", &first);
    window_entry(p, op, ATTR_KEY_RHS_DILATION, "rhs_dilate", &first);
    fputc('}', p->out);
    mlir_print_op_attrs(p, op, &(MlirAttrOpts){.consumed = conv_consumed, .generic = true});
    print_type_tail(p, op, in, 2);
}

/* ` ({ ^bb0(%a, %b): %r = body %a, %b; return %r })` of one region, or
 * the second of two (`first` false: `, {...})`). */
static void print_region(MlirPrinter *p, const char *body, bool compare, DType dt, int indent, bool first,
                         bool last)
{
    const char *t = dtype_mlir_name(dt);
    MlirScope s;
    mlir_scope_init(&s, p, p->scope, p->scope);
    const char *a = mlir_scope_arg(p, &s, "a"), *b = mlir_scope_arg(p, &s, "b");
    const char *r = mlir_scope_value(p, &s, compare ? "select" : "r");
    fprintf(p->out, "%s{\n%*s^bb0(%%%s: tensor<%s>, %%%s: tensor<%s>):\n", first ? " (" : ", ", indent, "", a, t, b,
            t);
    if (compare)
        fprintf(p->out, "%*s%%%s = stablehlo.compare  GE, %%%s, %%%s : (tensor<%s>, tensor<%s>) -> tensor<i1>\n",
                indent + 2, "", r, a, b, t, t);
    else
        fprintf(p->out, "%*s%%%s = %s %%%s, %%%s : tensor<%s>\n", indent + 2, "", r, body, a, b, t);
    fprintf(p->out, "%*sstablehlo.return %%%s : tensor<%s>\n%*s}%s", indent + 2, "", r, compare ? "i1" : t, indent,
            "", last ? ")" : "");
}

/* `<{padding = ..., window_dimensions = ..., ...}>`: the written ones. */
static void print_window_props(MlirPrinter *p, const Op *op)
{
    static const AttrKey keys[] = {ATTR_KEY_BASE_DILATIONS, ATTR_KEY_PADDING, ATTR_KEY_WINDOW_DILATIONS,
                                   ATTR_KEY_WINDOW_DIMENSIONS, ATTR_KEY_WINDOW_STRIDES};
    WindowDims w;
    op_window_dims(op, &w);
    const char *sep = "";
    fputs(" <{", p->out);
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        if (!op_attr_find(op, keys[k]))
            continue;
        fprintf(p->out, "%s%s = ", sep, attr_key_name(keys[k]));
        sep = ", ";
        if (keys[k] == ATTR_KEY_PADDING) {
            fputs("dense<", p->out);
            print_pairs(p, &w);
            fprintf(p->out, "> : tensor<%dx2xi64>", w.n);
            continue;
        }
        int64_t v[SHARDC_MAX_RANK];
        int n = op_attr_ints(op, keys[k], v, SHARDC_MAX_RANK);
        fputs("array<i64", p->out);
        for (int i = 0; i < n; i++)
            fprintf(p->out, "%s %lld", i ? "," : ":", (long long)v[i]);
        fputc('>', p->out);
    }
    fputs("}>", p->out);
}

static const AttrKey window_consumed[] = {ATTR_KEY_REDUCTION,          ATTR_KEY_WINDOW_DIMENSIONS,
                                          ATTR_KEY_WINDOW_STRIDES,     ATTR_KEY_PADDING,
                                          ATTR_KEY_BASE_DILATIONS,     ATTR_KEY_WINDOW_DILATIONS,
                                          ATTR_KEY_NONE};

static OpKind reduction_kind(const Op *op)
{
    const char *r = op_attr_string(op, ATTR_KEY_REDUCTION);
    return !r || strcmp(r, "sum") == 0 ? OP_REDUCE_SUM : strcmp(r, "max") == 0 ? OP_REDUCE_MAX : OP_REDUCE_MIN;
}

void mlir_emit_reduce_window(MlirPrinter *p, const Op *op, int indent)
{
    OpKind kind = reduction_kind(op);
    DType dt = op->operands[0]->type.dtype;
    MlirVal in[2] = {mlir_val(p, op->operands[0]), mlir_print_reduce_init(p, op, kind, indent)};
    mlir_print_defs(p, op, indent);
    fputs("\"stablehlo.reduce_window\"(", p->out);
    mlir_print_vals(p, in, 2);
    fputc(')', p->out);
    print_window_props(p, op);
    print_region(p, mlir_reduce_body(kind, dt), false, dt, indent, true, true);
    mlir_print_op_attrs(p, op, &(MlirAttrOpts){.consumed = window_consumed});
    print_type_tail(p, op, in, 2);
}

void mlir_emit_select_and_scatter(MlirPrinter *p, const Op *op, int indent)
{
    DType dt = op->operands[0]->type.dtype;
    MlirVal in[3] = {mlir_val(p, op->operands[0]), mlir_val(p, op->operands[1]),
                     mlir_print_reduce_init(p, op, OP_REDUCE_SUM, indent)};
    mlir_print_defs(p, op, indent);
    fputs("\"stablehlo.select_and_scatter\"(", p->out);
    mlir_print_vals(p, in, 3);
    fputc(')', p->out);
    print_window_props(p, op);
    print_region(p, NULL, true, dt, indent, true, false);
    print_region(p, "stablehlo.add", false, dt, indent, false, true);
    mlir_print_op_attrs(p, op, &(MlirAttrOpts){.consumed = window_consumed});
    print_type_tail(p, op, in, 3);
}
