/* stablehlo.convolution in its custom form (`dim_numbers = [b, 0, 1,
 * f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = ..., pad = ...,
 * lhs_dilate = ..., rhs_dilate = ...}`, the group counts in the attribute
 * dict where written), stablehlo.reduce_window and
 * stablehlo.select_and_scatter in the generic form sdy_opt prints them
 * (StableHLO gives them no custom syntax): window attributes as dense
 * arrays and padding as a dense<...> : tensor<Nx2xi64>, the bodies as
 * regions; a folded init a constant (the one read from MLIR while
 * visible), the op's own inits as they are. */
#include <string.h>
#include "mlir/mlir_extra.h"
#include "mlir/print_internal.h"
#include "shardc/window.h"

static void print_pairs(MlirPrinter *p, const WindowDims *w)
{
    writer_char(p->out, '[');
    for (int i = 0; i < w->n; i++)
        writer_printf(p->out, "%s[%lld, %lld]", i ? ", " : "", (long long)w->lo[i], (long long)w->hi[i]);
    writer_char(p->out, ']');
}

/* `, key = [..]` of the window dict for a written attribute. */
static void window_entry(MlirPrinter *p, const Op *op, AttrKey key, const char *name, bool *first)
{
    int64_t v[SHARDC_MAX_RANK];
    int n = op_attr_ints(op, key, v, SHARDC_MAX_RANK);
    if (n < 0 || !op_attr_find(op, key))
        return;
    writer_printf(p->out, "%s%s = ", *first ? "" : ", ", name);
    mlir_print_ints(p->out, v, n);
    *first = false;
}

static const AttrKey conv_consumed[] = {ATTR_KEY_DIM_NUMBERS, ATTR_KEY_WINDOW_STRIDES, ATTR_KEY_PADDING,
                                        ATTR_KEY_LHS_DILATION, ATTR_KEY_RHS_DILATION, ATTR_KEY_NONE};

static void print_type_tail(MlirPrinter *p, const Op *op, const MlirVal *in, int n)
{
    MlirVal res[op->num_results + 1];
    for (int j = 0; j < op->num_results; j++)
        res[j] = mlir_val(p, op->results[j]);
    writer_str(p->out, " : ");
    mlir_print_fn_type(p, in, n, res, op->num_results);
    writer_char(p->out, '\n');
}

void mlir_emit_convolution(MlirPrinter *p, const Op *op, int indent)
{
    MlirVal in[2] = {mlir_val(p, op->operands[0]), mlir_val(p, op->operands[1])};
    WindowDims w;
    op_window_dims(op, &w);
    mlir_print_defs(p, op, indent);
    writer_str(p->out, "stablehlo.convolution(");
    mlir_print_vals(p, in, 2);
    writer_printf(p->out, ") dim_numbers = %s, window = {", op_attr_string(op, ATTR_KEY_DIM_NUMBERS));
    bool first = true;
    window_entry(p, op, ATTR_KEY_WINDOW_STRIDES, "stride", &first);
    if (op_attr_find(op, ATTR_KEY_PADDING)) {
        writer_str(p->out, first ? "pad = " : ", pad = ");
        print_pairs(p, &w);
        first = false;
    }
    window_entry(p, op, ATTR_KEY_LHS_DILATION, "lhs_dilate", &first);
    window_entry(p, op, ATTR_KEY_RHS_DILATION, "rhs_dilate", &first);
    writer_char(p->out, '}');
    mlir_print_op_attrs(p, op, &(MlirAttrOpts){.consumed = conv_consumed, .generic = true});
    print_type_tail(p, op, in, 2);
}

/* ` ({ ^bb0(%a_0, .., %a_n-1, %b_0, .., %b_n-1): %r_k = body %a_k, %b_k
 * ...; return %r_0, ... })` of one region (n inputs of types dt), or the
 * second of two (`first` false: `, {...})`); a select's region is one
 * `compare DIR` of its two arguments (body NULL, dir its direction). */
static void print_region(MlirPrinter *p, const char *body, const char *dir, const DType *dt, int n, int indent,
                         bool first, bool last)
{
    MlirScope s;
    const char *a[n + 1], *b[n + 1], *r[n + 1];
    mlir_scope_init(&s, p, p->scope, p->scope);
    for (int k = 0; k < n; k++)
        a[k] = mlir_scope_arg(p, &s, "a");
    for (int k = 0; k < n; k++)
        b[k] = mlir_scope_arg(p, &s, "b");
    for (int k = 0; k < n; k++)
        r[k] = mlir_scope_value(p, &s, dir ? "select" : "r");
    writer_printf(p->out, "%s{\n%*s^bb0(", first ? " (" : ", ", indent, "");
    for (int k = 0; k < 2 * n; k++)
        writer_printf(p->out, "%s%%%s: tensor<%s>", k ? ", " : "", k < n ? a[k] : b[k - n], dtype_mlir_name(dt[k % n]));
    writer_str(p->out, "):\n");
    for (int k = 0; k < n; k++) {
        const char *t = dtype_mlir_name(dt[k]);
        if (dir)
            writer_printf(p->out,
                          "%*s%%%s = stablehlo.compare  %s, %%%s, %%%s : (tensor<%s>, tensor<%s>) -> tensor<i1>\n",
                    indent + 2, "", r[k], dir, a[k], b[k], t, t);
        else
            writer_printf(p->out, "%*s%%%s = %s %%%s, %%%s : tensor<%s>\n", indent + 2, "", r[k], body, a[k], b[k], t);
    }
    writer_printf(p->out, "%*sstablehlo.return ", indent + 2, "");
    for (int k = 0; k < n; k++)
        writer_printf(p->out, "%s%%%s", k ? ", " : "", r[k]);
    writer_str(p->out, " : ");
    for (int k = 0; k < n; k++)
        writer_printf(p->out, "%stensor<%s>", k ? ", " : "", dir ? "i1" : dtype_mlir_name(dt[k]));
    writer_printf(p->out, "\n%*s}%s", indent, "", last ? ")" : "");
}

/* `<{padding = ..., window_dimensions = ..., ...}>`: the written ones. */
static void print_window_props(MlirPrinter *p, const Op *op)
{
    static const AttrKey keys[] = {ATTR_KEY_BASE_DILATIONS, ATTR_KEY_PADDING, ATTR_KEY_WINDOW_DILATIONS,
                                   ATTR_KEY_WINDOW_DIMENSIONS, ATTR_KEY_WINDOW_STRIDES};
    WindowDims w;
    op_window_dims(op, &w);
    const char *sep = "";
    writer_str(p->out, " <{");
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        if (!op_attr_find(op, keys[k]))
            continue;
        writer_printf(p->out, "%s%s = ", sep, attr_key_name(keys[k]));
        sep = ", ";
        if (keys[k] == ATTR_KEY_PADDING) { /* all equal: a splat, as MLIR prints it */
            int64_t pairs[2 * SHARDC_MAX_RANK];
            for (int i = 0; i < w.n; i++)
                pairs[2 * i] = w.lo[i], pairs[2 * i + 1] = w.hi[i];
            mlir_print_dense_i64(p->out, pairs, w.n, 2);
            continue;
        }
        int64_t v[SHARDC_MAX_RANK];
        int n = op_attr_ints(op, keys[k], v, SHARDC_MAX_RANK);
        writer_str(p->out, "array<i64");
        for (int i = 0; i < n; i++)
            writer_printf(p->out, "%s %lld", i ? "," : ":", (long long)v[i]);
        writer_char(p->out, '>');
    }
    writer_str(p->out, "}>");
}

static const AttrKey window_consumed[] = {ATTR_KEY_REDUCTION,          ATTR_KEY_DIRECTION, ATTR_KEY_WINDOW_DIMENSIONS,
                                          ATTR_KEY_WINDOW_STRIDES,     ATTR_KEY_PADDING,
                                          ATTR_KEY_BASE_DILATIONS,     ATTR_KEY_WINDOW_DILATIONS,
                                          ATTR_KEY_NONE};

static OpKind reduction_kind(const Op *op)
{
    const char *r = op_attr_string(op, ATTR_KEY_REDUCTION);
    return !r || strcmp(r, "sum") == 0 ? OP_REDUCE_SUM : strcmp(r, "max") == 0 ? OP_REDUCE_MAX : OP_REDUCE_MIN;
}

/* No made-up init constant when the op has its inits as operands. */
int mlir_plan_window(MlirPrinter *p, const Op *op, MlirAux *aux)
{
    bool own_init = op->kind == OP_REDUCE_WINDOW ? op->num_operands > op->num_results : op->num_operands == 3;
    return own_init ? 0 : mlir_plan_reduce(p, op, aux);
}

/* The operands, a made-up (or kept) init after the inputs when the op
 * folded it. */
static int window_operands(MlirPrinter *p, const Op *op, OpKind kind, int indent, MlirVal *in)
{
    for (int i = 0; i < op->num_operands; i++)
        in[i] = mlir_val(p, op->operands[i]);
    bool folded = op->kind == OP_REDUCE_WINDOW ? op->num_operands == op->num_results : op->num_operands == 2;
    if (!folded)
        return op->num_operands;
    in[op->num_operands] = mlir_print_reduce_init(p, op, kind, indent);
    return op->num_operands + 1;
}

void mlir_emit_reduce_window(MlirPrinter *p, const Op *op, int indent)
{
    OpKind kind = reduction_kind(op);
    int n = op->num_results;
    MlirVal in[2 * n + 1];
    DType dt[n + 1];
    for (int k = 0; k < n; k++)
        dt[k] = op->operands[k]->type.dtype;
    int count = window_operands(p, op, kind, indent, in);
    mlir_print_defs(p, op, indent);
    writer_str(p->out, "\"stablehlo.reduce_window\"(");
    mlir_print_vals(p, in, count);
    writer_char(p->out, ')');
    print_window_props(p, op);
    print_region(p, mlir_reduce_body(kind, dt[0]), NULL, dt, n, indent, true, true);
    mlir_print_op_attrs(p, op, &(MlirAttrOpts){.consumed = window_consumed});
    print_type_tail(p, op, in, count);
}

void mlir_emit_select_and_scatter(MlirPrinter *p, const Op *op, int indent)
{
    static const char *const dirs[] = {"GE", "GT", "LE", "LT"};
    DType dt = op->operands[0]->type.dtype;
    MlirVal in[4];
    int count = window_operands(p, op, OP_REDUCE_SUM, indent, in), d = op_select_direction(op);
    mlir_print_defs(p, op, indent);
    writer_str(p->out, "\"stablehlo.select_and_scatter\"(");
    mlir_print_vals(p, in, count);
    writer_char(p->out, ')');
    print_window_props(p, op);
    print_region(p, NULL, dirs[d < 0 ? 0 : d], &dt, 1, indent, true, false);
    print_region(p, "stablehlo.add", NULL, &dt, 1, indent, false, true);
    mlir_print_op_attrs(p, op, &(MlirAttrOpts){.consumed = window_consumed});
    print_type_tail(p, op, in, count);
}
