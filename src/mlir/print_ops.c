/* How each shardc op kind prints: its StableHLO / sdy / func custom form
 * (mlir_ops.def names the op), or MLIR's generic form "shardc.<op>" for
 * the kinds StableHLO has no op for. Einsums and reductions are
 * print_einsum.c's, collectives print_collectives.c's. */
#include <stdlib.h>
#include <string.h>
#include "print_internal.h"
#include "shardc/lapack.h"
#include "shardc/rules.h"

typedef enum { FORM_SAME, FORM_FUNC, FORM_SHARDC, FORM_SPECIAL } MlirFormKind;

static const struct { OpKind kind; const char *name; } mlir_names[] = {
#define MLIR_OP(kind, name, form) {OP_##kind, name},
#include "mlir_ops.def"
#undef MLIR_OP
};

const char *mlir_op_canonical_name(OpKind kind)
{
    for (size_t i = 0; i < sizeof mlir_names / sizeof mlir_names[0]; i++)
        if (mlir_names[i].kind == kind)
            return mlir_names[i].name;
    return NULL;
}

const char *mlir_op_name(const Op *op)
{
    if (op->mlir && op->mlir->op_name)
        return op->mlir->op_name;
    return mlir_op_canonical_name(op->kind);
}

static MlirVal result_val(const MlirPrinter *p, const Op *op) { return mlir_val(p, op->results[0]); }

static int operand_vals(const MlirPrinter *p, const Op *op, MlirVal *out, int max)
{
    int n = op->num_operands < max ? op->num_operands : max;
    for (int i = 0; i < n; i++)
        out[i] = mlir_val(p, op->operands[i]);
    return n;
}

static void end_line(MlirPrinter *p) { writer_char(p->out, '\n'); }

/* The most operands a SAME or FUNC form op has: dynamic_update_slice's
 * operand, update and a start index per dim. */
enum { MLIR_MAX_ELEMENTWISE_OPERANDS = SHARDC_MAX_RANK + 2 };

/* ---- elementwise ops and NumPy broadcasting ------------------------------------ */

/* shardc broadcasts a binary op's operands NumPy-style (f32[16,4096] +
 * f32[4096]); StableHLO does not, so each such operand gets a
 * broadcast_in_dim marked shardc.implicit_broadcast, which the importer
 * folds back. StableHLO's select takes a scalar predicate as it is. */
static bool needs_broadcast(const Op *op, int i)
{
    OpClass cls = op_info(op->kind)->op_class;
    bool broadcasting = cls == OPC_BINARY || cls == OPC_COMPARE || cls == OPC_SELECT;
    if (cls == OPC_SELECT && i == 0 && op->operands[0]->type.rank == 0)
        return false;
    return broadcasting && op->num_results == 1 &&
           !type_same_shape(&op->operands[i]->type, &op->results[0]->type);
}

static int plan_elementwise(MlirPrinter *p, const Op *op, MlirAux *aux)
{
    (void)p;
    int n = 0;
    for (int i = 0; i < op->num_operands && n < MLIR_MAX_AUX; i++)
        if (needs_broadcast(op, i))
            aux[n++] = (MlirAux){"broadcast", NULL};
    return n;
}

/* Prints the implicit broadcasts; `in` gets the values the op uses. */
static int broadcast_operands(MlirPrinter *p, const Op *op, int indent, MlirVal *in)
{
    int n = operand_vals(p, op, in, MLIR_MAX_ELEMENTWISE_OPERANDS), k = 0;
    if (op->id >= 0 && op->id < p->m->num_ops && !p->aux[op->id])
        return n; /* plan_elementwise found no operand to broadcast */
    const TensorType *res = &op->results[0]->type;
    for (int i = 0; i < n; i++) {
        if (!needs_broadcast(op, i))
            continue;
        TensorType t = type_make(&p->arena, in[i].type.dtype, res->rank, res->dims);
        MlirVal b = mlir_aux_val(p, op, k, t);
        int64_t dims[SHARDC_MAX_RANK];
        for (int d = 0; d < in[i].type.rank; d++)
            dims[d] = res->rank - in[i].type.rank + d;
        mlir_print_aux_def(p, op, k++, indent);
        writer_str(p->out, "stablehlo.broadcast_in_dim ");
        mlir_print_val(p, in[i]);
        writer_str(p->out, ", dims = ");
        mlir_print_ints(p->out, dims, in[i].type.rank);
        mlir_print_marker(p, "shardc.implicit_broadcast");
        writer_str(p->out, " : ");
        mlir_print_fn_type(p, &in[i], 1, &b, 1);
        end_line(p);
        in[i] = b;
    }
    return n;
}

/* `stablehlo.add %a, %b : tensor<8xf32>` (a function type where the
 * operand and result types differ: convert). */
static void emit_elementwise(MlirPrinter *p, const Op *op, int indent)
{
    MlirVal in[MLIR_MAX_ELEMENTWISE_OPERANDS], res = result_val(p, op);
    int n = broadcast_operands(p, op, indent, in);
    mlir_print_defs(p, op, indent);
    writer_str(p->out, mlir_printed_op_name(p, op));
    writer_str(p->out, n ? " " : ""); /* `stablehlo.after_all : ...` */
    mlir_print_vals(p, in, n);
    mlir_print_op_attrs(p, op, &(MlirAttrOpts){0});
    mlir_print_same_type(p, in, n, &res);
    end_line(p);
}

static const char *compare_type(DType dt)
{
    if (dtype_is_float(dt))
        return "FLOAT";
    return dt == DT_BOOL || dtype_is_unsigned(dt) ? "UNSIGNED" : "SIGNED";
}

/* The compare_type read from MLIR (kept as written), else NULL. Only a
 * bare word fits the custom form: another spelling (`#foo<comparison_type
 * FLOAT>`, which the reader leaves wrapped) printed there did not read
 * back (fuzz_mlir, the campaign of issue 21); the dtype's type is printed
 * instead. */
static const char *kept_compare_type(const Op *op)
{
    for (int i = 0; op->mlir && i < op->mlir->attrs.count; i++) {
        const char *text = op->mlir->attrs.items[i].text;
        if (strcmp(op->mlir->attrs.items[i].name, "compare_type") == 0)
            return text[strspn(text, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_0123456789")] ? NULL : text;
    }
    return NULL;
}

/* `stablehlo.compare  GT, %a, %b,  FLOAT : (...) -> ...`: the two spaces
 * are the enum attributes' own printers' (as JAX's output shows). A
 * compare_type read from MLIR goes there, not a second time in the
 * attribute dict (tests/mlir/compare_type.test). */
static void emit_compare(MlirPrinter *p, const Op *op, int indent)
{
    static const char *const spelled[] = {"compare_type", NULL};
    const char *kept_type = kept_compare_type(op);
    MlirVal in[MLIR_MAX_ELEMENTWISE_OPERANDS], res = result_val(p, op);
    int n = broadcast_operands(p, op, indent, in);
    const char *dir = op_attr_string(op, ATTR_KEY_DIRECTION);
    char upper[8] = "";
    for (int i = 0; dir && dir[i] && i < 7; i++)
        upper[i] = (char)(dir[i] >= 'a' && dir[i] <= 'z' ? dir[i] - 32 : dir[i]);
    mlir_print_defs(p, op, indent);
    writer_printf(p->out, "stablehlo.compare  %s, ", upper);
    mlir_print_vals(p, in, n);
    const char *total = op_attr_string(op, ATTR_KEY_COMPARE_TYPE);
    if (total || !(op->mlir && op->mlir->no_compare_type))
        writer_printf(p->out, ",  %s", kept_type ? kept_type : total ? total : compare_type(in[0].type.dtype));
    mlir_print_op_attrs(p, op, &(MlirAttrOpts){.consumed = (const AttrKey[]){ATTR_KEY_DIRECTION, ATTR_KEY_COMPARE_TYPE, 0},
                                               .skip_kept = spelled});
    writer_str(p->out, " : ");
    mlir_print_fn_type(p, in, n, &res, 1);
    end_line(p);
}

/* `stablehlo.select %p, %a, %b : tensor<8xi1>, tensor<8xf32>`. */
static void emit_select(MlirPrinter *p, const Op *op, int indent)
{
    MlirVal in[MLIR_MAX_ELEMENTWISE_OPERANDS], res = result_val(p, op);
    int n = broadcast_operands(p, op, indent, in);
    mlir_print_defs(p, op, indent);
    writer_str(p->out, "stablehlo.select ");
    mlir_print_vals(p, in, n);
    mlir_print_op_attrs(p, op, &(MlirAttrOpts){0});
    writer_str(p->out, " : ");
    if (n == 3 && type_equal(&in[1].type, &res.type) && type_equal(&in[2].type, &res.type)) {
        mlir_print_type(p, &in[0].type);
        writer_str(p->out, ", ");
        mlir_print_type(p, &res.type);
    } else {
        mlir_print_fn_type(p, in, n, &res, 1);
    }
    end_line(p);
}

/* ---- shape ops --------------------------------------------------------------------- */

/* The head `%r = name %x` of a one-operand op. */
static MlirVal unary_head(MlirPrinter *p, const Op *op, int indent)
{
    MlirVal x = mlir_val(p, op->operands[0]);
    mlir_print_defs(p, op, indent);
    writer_str(p->out, mlir_printed_op_name(p, op));
    writer_char(p->out, ' ');
    mlir_print_val(p, x);
    return x;
}

/* ` {attrs} : (operand) -> result` and the newline. */
static void unary_tail(MlirPrinter *p, const Op *op, MlirVal x, const AttrKey *consumed)
{
    MlirVal res = result_val(p, op);
    mlir_print_op_attrs(p, op, &(MlirAttrOpts){.consumed = consumed});
    writer_str(p->out, " : ");
    mlir_print_fn_type(p, &x, 1, &res, 1);
    end_line(p);
}

static void print_ints_attr(MlirPrinter *p, const Op *op, AttrKey key)
{
    int64_t v[SHARDC_MAX_RANK];
    int n = op_attr_ints(op, key, v, SHARDC_MAX_RANK);
    mlir_print_ints(p->out, v, n > 0 ? n : 0);
}

/* transpose and broadcast_in_dim: `%x, dims = [1, 0]`. */
static void emit_dims_op(MlirPrinter *p, const Op *op, int indent)
{
    AttrKey key = op->kind == OP_TRANSPOSE ? ATTR_KEY_PERMUTATION : ATTR_KEY_DIMS;
    MlirVal x = unary_head(p, op, indent);
    writer_str(p->out, ", dims = ");
    print_ints_attr(p, op, key);
    unary_tail(p, op, x, (const AttrKey[]){key, 0});
}

/* `stablehlo.reverse %x, dims = [0] : tensor<4x8xf32>`. */
static void emit_reverse(MlirPrinter *p, const Op *op, int indent)
{
    MlirVal x = unary_head(p, op, indent), res = result_val(p, op);
    writer_str(p->out, ", dims = ");
    print_ints_attr(p, op, ATTR_KEY_DIMS);
    mlir_print_op_attrs(p, op, &(MlirAttrOpts){.consumed = (const AttrKey[]){ATTR_KEY_DIMS, 0}});
    mlir_print_same_type(p, &x, 1, &res);
    end_line(p);
}

/* `stablehlo.fft %x, type = FFT, length = [16] : (...) -> ...`, as
 * StableHLO prints it (the type a bare keyword). */
static void emit_fft(MlirPrinter *p, const Op *op, int indent)
{
    MlirVal x = unary_head(p, op, indent);
    const char *type = op_attr_string(op, ATTR_KEY_FFT_TYPE);
    writer_printf(p->out, ", type = %s, length = ", type ? type : "FFT");
    print_ints_attr(p, op, ATTR_KEY_FFT_LENGTH);
    unary_tail(p, op, x, (const AttrKey[]){ATTR_KEY_FFT_TYPE, ATTR_KEY_FFT_LENGTH, 0});
}

/* `stablehlo.dynamic_slice %x, %i, %j, sizes = [2, 4] : (...) -> ...`:
 * the sizes are the result's dims. */
static void emit_dynamic_slice(MlirPrinter *p, const Op *op, int indent)
{
    MlirVal in[SHARDC_MAX_RANK + 1], res = result_val(p, op);
    int n = operand_vals(p, op, in, SHARDC_MAX_RANK + 1);
    mlir_print_defs(p, op, indent);
    writer_str(p->out, mlir_printed_op_name(p, op));
    writer_char(p->out, ' ');
    mlir_print_vals(p, in, n);
    writer_str(p->out, ", sizes = ");
    mlir_print_ints(p->out, res.type.dims, res.type.rank);
    mlir_print_op_attrs(p, op, &(MlirAttrOpts){0});
    writer_str(p->out, " : ");
    mlir_print_fn_type(p, in, n, &res, 1);
    end_line(p);
}

static void emit_reshape(MlirPrinter *p, const Op *op, int indent)
{
    MlirVal x = unary_head(p, op, indent);
    unary_tail(p, op, x, NULL);
}

/* `stablehlo.slice %x [0:4, 2:8:2]`. */
static void emit_slice(MlirPrinter *p, const Op *op, int indent)
{
    int64_t start[SHARDC_MAX_RANK], limit[SHARDC_MAX_RANK], stride[SHARDC_MAX_RANK];
    int n = op_attr_ints(op, ATTR_KEY_START, start, SHARDC_MAX_RANK);
    op_attr_ints(op, ATTR_KEY_LIMIT, limit, SHARDC_MAX_RANK);
    bool strided = op_attr_ints(op, ATTR_KEY_STRIDE, stride, SHARDC_MAX_RANK) == n;
    MlirVal x = unary_head(p, op, indent);
    writer_str(p->out, " [");
    for (int d = 0; d < n; d++) {
        writer_printf(p->out, "%s%lld:%lld", d ? ", " : "", (long long)start[d], (long long)limit[d]);
        if (strided && stride[d] != 1)
            writer_printf(p->out, ":%lld", (long long)stride[d]);
    }
    writer_char(p->out, ']');
    unary_tail(p, op, x, (const AttrKey[]){ATTR_KEY_START, ATTR_KEY_LIMIT, ATTR_KEY_STRIDE, 0});
}

static const char *constant_asm_name(DType dt) { return dtype_is_float(dt) ? "cst" : "c"; }

/* The padding value is an operand in StableHLO: shardc's own when the pad
 * has one, else the constant it was read with while that is defined
 * before the pad in its block (as a reduce's init), else a scalar
 * constant made up before the pad, marked shardc.implicit_constant (the
 * importer folds it back into the attribute). */
static const Value *written_padding(MlirPrinter *p, const Op *op)
{
    const Value *v = op->num_operands == 1 && op->mlir ? op->mlir->init : NULL;
    return mlir_visible_name(p, v, op->parent) ? v : NULL;
}

static int plan_pad(MlirPrinter *p, const Op *op, MlirAux *aux)
{
    if (op->num_operands == 2 || written_padding(p, op))
        return 0; /* the value is an operand already */
    aux[0] = (MlirAux){"padding", constant_asm_name(op->results[0]->type.dtype)};
    return 1;
}

static void emit_pad(MlirPrinter *p, const Op *op, int indent)
{
    DType dt = op->results[0]->type.dtype;
    /* as plan_pad decided (the written value's op may be named since) */
    bool made_up = op->id >= 0 && op->id < p->m->num_ops && p->aux[op->id];
    const Value *written = made_up ? NULL : written_padding(p, op);
    bool operand = op->num_operands == 2 || written;
    MlirVal in[2] = {mlir_val(p, op->operands[0]),
                     op->num_operands == 2 ? mlir_val(p, op->operands[1])
                     : written ? mlir_val(p, written) : mlir_aux_val(p, op, 0, (TensorType){dt, 0, NULL})};
    MlirVal res = result_val(p, op);
    if (!operand) {
        mlir_print_aux_def(p, op, 0, indent);
        writer_str(p->out, "stablehlo.constant {shardc.implicit_constant} ");
        mlir_print_dense_scalar(p->out, op_attr_get(op, ATTR_KEY_VALUE), dt);
        end_line(p);
    }
    mlir_print_defs(p, op, indent);
    writer_str(p->out, "stablehlo.pad ");
    mlir_print_vals(p, in, 2);
    writer_str(p->out, ", low = ");
    print_ints_attr(p, op, ATTR_KEY_LOW);
    writer_str(p->out, ", high = ");
    print_ints_attr(p, op, ATTR_KEY_HIGH);
    writer_str(p->out, ", interior = ");
    int64_t interior[SHARDC_MAX_RANK] = {0};
    op_attr_ints(op, ATTR_KEY_INTERIOR, interior, SHARDC_MAX_RANK);
    mlir_print_ints(p->out, interior, in[0].type.rank);
    mlir_print_op_attrs(p, op, &(MlirAttrOpts){
        .consumed = (const AttrKey[]){ATTR_KEY_LOW, ATTR_KEY_HIGH, ATTR_KEY_INTERIOR, ATTR_KEY_VALUE, 0}});
    writer_str(p->out, " : ");
    mlir_print_fn_type(p, in, 2, &res, 1);
    end_line(p);
}

/* `stablehlo.concatenate %a, %b, dim = 0`. */
static void emit_concatenate(MlirPrinter *p, const Op *op, int indent)
{
    MlirVal *in = ARENA_ARRAY(&p->arena, MlirVal, op->num_operands + 1), res = result_val(p, op);
    int n = operand_vals(p, op, in, op->num_operands);
    mlir_print_defs(p, op, indent);
    writer_str(p->out, "stablehlo.concatenate ");
    mlir_print_vals(p, in, n);
    writer_printf(p->out, ", dim = %lld", (long long)op_attr_int(op, ATTR_KEY_DIM));
    mlir_print_op_attrs(p, op, &(MlirAttrOpts){.consumed = (const AttrKey[]){ATTR_KEY_DIM, 0}});
    writer_str(p->out, " : ");
    mlir_print_fn_type(p, in, n, &res, 1);
    end_line(p);
}

/* ---- nullary ops ------------------------------------------------------------------ */

/* `stablehlo.constant {attrs} dense<...> : tensor<...>` (hlo's
 * printConstantOp puts the attributes first). */
static void emit_constant(MlirPrinter *p, const Op *op, int indent)
{
    const AttrValue *v = op_attr_get(op, ATTR_KEY_VALUE);
    mlir_print_defs(p, op, indent);
    writer_str(p->out, mlir_printed_op_name(p, op));
    mlir_print_op_attrs(p, op, &(MlirAttrOpts){.consumed = (const AttrKey[]){ATTR_KEY_VALUE, 0}});
    writer_char(p->out, ' ');
    if (v)
        mlir_print_dense(p->out, v, &op->results[0]->type);
    end_line(p);
}

static void emit_iota(MlirPrinter *p, const Op *op, int indent)
{
    mlir_print_defs(p, op, indent);
    writer_printf(p->out, "stablehlo.iota dim = %lld", (long long)op_attr_int(op, ATTR_KEY_DIMENSION));
    mlir_print_op_attrs(p, op, &(MlirAttrOpts){.consumed = (const AttrKey[]){ATTR_KEY_DIMENSION, 0}});
    writer_str(p->out, " : ");
    mlir_print_type(p, &op->results[0]->type);
    end_line(p);
}

/* ---- calls, custom calls, the generic form ------------------------------------------- */

/* An op's operand and result vals, in the caller's frame when they fit
 * (most ops), else in the arena (a zeroed arena array or two an op, never
 * read again, cost more than the vals). */
enum { LOCAL_VALS = 8 };

typedef struct OpVals {
    MlirVal *in, *res;
    int n_in;
    MlirVal local_in[LOCAL_VALS], local_res[LOCAL_VALS];
} OpVals;

static MlirVal *vals_room(MlirPrinter *p, MlirVal *local, int n)
{
    return n <= LOCAL_VALS ? local : ARENA_ARRAY_UNINIT(&p->arena, MlirVal, n);
}

static void op_vals(MlirPrinter *p, const Op *op, OpVals *v)
{
    v->in = vals_room(p, v->local_in, op->num_operands);
    v->res = vals_room(p, v->local_res, op->num_results);
    v->n_in = operand_vals(p, op, v->in, op->num_operands);
    for (int i = 0; i < op->num_results; i++)
        v->res[i] = mlir_val(p, op->results[i]);
}

/* `name(%a, %b) {attrs} : (types) -> types` after `head`. */
static void emit_call_like(MlirPrinter *p, const Op *op, int indent, const char *head, const MlirAttrOpts *opts)
{
    OpVals v;
    op_vals(p, op, &v);
    MlirVal *in = v.in, *res = v.res;
    int n = v.n_in;
    mlir_print_defs(p, op, indent);
    writer_str(p->out, head);
    writer_char(p->out, '(');
    mlir_print_vals(p, in, n);
    writer_char(p->out, ')');
    mlir_print_op_attrs(p, op, opts);
    writer_str(p->out, " : ");
    mlir_print_fn_type(p, in, n, res, op->num_results);
    end_line(p);
}

/* func.call prints as `call` where func.func is the default dialect, and
 * in full inside sdy regions. */
static void emit_call(MlirPrinter *p, const Op *op, int indent)
{
    char head[256];
    bool nested = op->parent && op->parent->parent_op;
    snprintf(head, sizeof head, "%s @%.200s", nested ? "func.call" : "call", op->callee ? op->callee : "");
    emit_call_like(p, op, indent, head, &(MlirAttrOpts){0});
}

/* A custom op is the custom_call JAX's custom_partitioning emits: its
 * rule string bound to its types prints as sdy.sharding_rule (the rule
 * string and its options are then spelled by it). */
static void emit_custom(MlirPrinter *p, const Op *op, int indent)
{
    if (op->mlir && op->mlir->op_name) { /* stablehlo.send, recv */
        char head[128];
        snprintf(head, sizeof head, "\"%.100s\"", op->mlir->op_name);
        emit_call_like(p, op, indent, head, &(MlirAttrOpts){.generic = true, .no_callee = true});
        return;
    }
    static const AttrKey rule_keys[] = {ATTR_KEY_RULE, ATTR_KEY_REDUCTION, ATTR_KEY_NEED_REPLICATION,
                                        ATTR_KEY_PERMUTATION, ATTR_KEY_BLOCKED_PROPAGATION, ATTR_KEY_FACTOR_SIZES, 0};
    /* a rule that does not bind (never after the verifier) prints as the
     * shardc.rule string instead: nothing to report while printing */
    char *sink_text = NULL;
    size_t sink_len = 0;
    FILE *sink = open_memstream(&sink_text, &sink_len);
    DiagEngine diag;
    diag_init(&diag, sink);
    /* a runtime target's registry rule (MoveToHost) is not the op's own */
    bool own_rule = op_attr_get(op, ATTR_KEY_RULE) != NULL;
    const OpShardingRule *rule = sink && own_rule ? rules_of_op(&p->arena, &diag, op) : NULL;
    diag_free(&diag);
    if (sink)
        fclose(sink);
    free(sink_text);
    OpShardingRule as_written;
    if (rule && op->mlir && op->mlir->rule_not_custom) {
        as_written = *rule;
        as_written.is_custom = false;
        rule = &as_written;
    }
    char head[256];
    snprintf(head, sizeof head, "stablehlo.custom_call @%.200s", op->callee ? op->callee : "");
    emit_call_like(p, op, indent, head, &(MlirAttrOpts){.consumed = rule ? rule_keys : NULL, .rule = rule});
}

/* triangular_solve and batch_norm_*: MLIR's generic form under their
 * StableHLO name, their own attributes as properties (`<{...}>`, sorted
 * by name as MLIR prints them), every one StableHLO requires spelled out
 * (the .shir defaults included), transpose_a as its enum and epsilon an
 * f32; the discardable ones (sdy.sharding) after. */
static void emit_stablehlo_generic(MlirPrinter *p, const Op *op, int indent)
{
    OpVals v;
    op_vals(p, op, &v);
    MlirVal *in = v.in, *res = v.res;
    int n = v.n_in;
    mlir_print_defs(p, op, indent);
    writer_printf(p->out, "\"%s\"(", mlir_printed_op_name(p, op));
    mlir_print_vals(p, in, n);
    if (op->kind == OP_TRIANGULAR_SOLVE) {
        writer_printf(p->out,
                      ") <{left_side = %s, lower = %s, transpose_a = #stablehlo<transpose %s>, unit_diagonal = %s}>",
                op_attr_bool(op, ATTR_KEY_LEFT_SIDE) ? "true" : "false",
                op_attr_bool(op, ATTR_KEY_LOWER) ? "true" : "false", op_attr_string(op, ATTR_KEY_TRANSPOSE_A),
                op_attr_bool(op, ATTR_KEY_UNIT_DIAGONAL) ? "true" : "false");
    } else {
        const AttrValue *eps = op_attr_get(op, ATTR_KEY_EPSILON);
        writer_printf(p->out, ") <{epsilon = %.9e : f32, feature_index = %lld : i64}>",
                eps && eps->kind == ATTR_FLOAT ? eps->u.f : eps ? (double)eps->u.i : 0.0,
                (long long)op_attr_int(op, ATTR_KEY_FEATURE_INDEX));
    }
    mlir_print_op_attrs(p, op, &(MlirAttrOpts){
        .consumed = (const AttrKey[]){ATTR_KEY_LEFT_SIDE, ATTR_KEY_LOWER, ATTR_KEY_TRANSPOSE_A, ATTR_KEY_UNIT_DIAGONAL,
                                      ATTR_KEY_EPSILON, ATTR_KEY_FEATURE_INDEX, 0}});
    writer_str(p->out, " : ");
    mlir_print_fn_type(p, in, n, res, op->num_results);
    end_line(p);
}

/* `stablehlo.cholesky %a, lower = true {attrs} : tensor<...>`, StableHLO's
 * custom form (`lower` only when true, its default false elided). */
static void emit_cholesky(MlirPrinter *p, const Op *op, int indent)
{
    MlirVal x = unary_head(p, op, indent);
    if (op_attr_bool(op, ATTR_KEY_LOWER))
        writer_str(p->out, ", lower = true");
    mlir_print_op_attrs(p, op, &(MlirAttrOpts){.consumed = (const AttrKey[]){ATTR_KEY_LOWER, 0}});
    writer_str(p->out, " : ");
    mlir_print_type(p, &x.type);
    end_line(p);
}

/* JAX's minor-to-major layout of a lapack operand or result: a matrix
 * column-major in its last two dims, batch dims outermost; any other
 * tensor row-major: `dense<[0, 1]> : tensor<2xindex>`. */
static void layout_text(FILE *f, const TensorType *t, bool matrix)
{
    fputs("dense<", f);
    if (t->rank > 1) /* JAX prints one dim as a splat, dense<0> */
        fputc('[', f);
    for (int i = 0; i < t->rank; i++) {
        int dim = matrix ? (i < 2 ? t->rank - 2 + i : t->rank - 1 - i) : t->rank - 1 - i;
        fprintf(f, "%s%d", i ? ", " : "", dim);
    }
    fprintf(f, "%s> : tensor<%dxindex>", t->rank > 1 ? "]" : "", t->rank);
}

static const char *layouts_text(MlirPrinter *p, const Op *op, LapackRoutine r, bool operands)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return "[]";
    int n = operands ? op->num_operands : op->num_results;
    fputc('[', f);
    for (int i = 0; i < n; i++) {
        fputs(i ? ", " : "", f);
        layout_text(f, &(operands ? op->operands[i] : op->results[i])->type, lapack_is_matrix(r, operands, i));
    }
    fputc(']', f);
    fclose(f);
    const char *s = arena_strdup(&p->arena, buf);
    free(buf);
    return s;
}

/* `{diag = 78 : ui8, side = 76 : ui8, ...}`: the letters as JAX encodes
 * them, sorted by name as MLIR prints a dict. */
static const char *backend_config_text(MlirPrinter *p, const Op *op)
{
    static const AttrKey keys[] = {ATTR_KEY_DIAG, ATTR_KEY_MODE, ATTR_KEY_SIDE, ATTR_KEY_TRANS_X, ATTR_KEY_UPLO};
    char buf[160];
    size_t n = 0;
    buf[n++] = '{';
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        const char *v = op_attr_string(op, keys[i]);
        if (v && v[0])
            n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s = %d : ui8", n > 1 ? ", " : "", attr_key_name(keys[i]),
                                  (unsigned char)v[0]);
    }
    snprintf(buf + n, sizeof buf - n, "}");
    return arena_strdup(&p->arena, buf);
}

/* The lapack op: the custom_call JAX's CPU lowering emits. Layouts read
 * from MLIR print as written (kept attributes come first), else JAX's. */
static void emit_lapack(MlirPrinter *p, const Op *op, int indent)
{
    static const AttrKey own[] = {ATTR_KEY_TARGET, ATTR_KEY_UPLO, ATTR_KEY_MODE, ATTR_KEY_SIDE,
                                  ATTR_KEY_TRANS_X, ATTR_KEY_DIAG, 0};
    LapackTarget t;
    const char *target = op_attr_string(op, ATTR_KEY_TARGET);
    bool known = lapack_target_parse(target, &t);
    MlirKeptAttr extra[4] = {{"mhlo.backend_config", backend_config_text(p, op)}, {NULL, NULL}, {NULL, NULL},
                             {NULL, NULL}};
    if (known) {
        extra[1] = (MlirKeptAttr){"operand_layouts", layouts_text(p, op, t.routine, true)};
        extra[2] = (MlirKeptAttr){"result_layouts", layouts_text(p, op, t.routine, false)};
    }
    char head[256];
    snprintf(head, sizeof head, "stablehlo.custom_call @%.200s", target ? target : "");
    emit_call_like(p, op, indent, head, &(MlirAttrOpts){.consumed = own, .extra = extra});
}

/* MLIR's generic form for the kinds StableHLO has no op for:
 * `"shardc.relu"(%x) {attrs} : (tensor<...>) -> tensor<...>`. */
void mlir_emit_generic(MlirPrinter *p, const Op *op, int indent)
{
    char head[128] = "\"shardc.";
    const char *name = op_info(op->kind)->name;
    size_t n = strnlen(name, sizeof head - 10);
    memcpy(head + 8, name, n);
    memcpy(head + 8 + n, "\"", 2);
    emit_call_like(p, op, indent, head, &(MlirAttrOpts){.generic = true});
}

/* ---- sdy ops ------------------------------------------------------------------------ */

static const Mesh *any_mesh(const MlirPrinter *p) { return p->m->num_meshes ? p->m->meshes[0] : NULL; }

/* `sdy.sharding_constraint %x <@m, [{"a"}, {?}]> : tensor<...>`: the
 * constraint is the result's sharding. One read from GSPMD's
 * `custom_call @Sharding` prints so too, as Shardy's import turns it
 * (tests/mlir/print_gspmd_constraint.test). */
static void emit_sharding_op(MlirPrinter *p, const Op *op, int indent)
{
    const Value *r = op->results[0];
    MlirVal x = mlir_val(p, op->operands[0]);
    mlir_print_defs(p, op, indent);
    writer_str(p->out, mlir_printed_canonical_name(p, op->kind));
    writer_char(p->out, ' ');
    mlir_print_val(p, x);
    writer_char(p->out, ' ');
    if (r->sharding)
        mlir_print_tensor_sharding(p, r->sharding);
    else if (any_mesh(p))
        mlir_print_open_sharding(p, any_mesh(p), r->type.rank);
    mlir_print_op_attrs(p, op, &(MlirAttrOpts){.no_shardings = true});
    writer_str(p->out, " : ");
    mlir_print_type(p, &r->type);
    end_line(p);
}

/* `sdy.data_flow_edge %x sharding=<@m, [...]> : tensor<...>`: the sharding
 * of the edge, when it has one. */
static void emit_data_flow_edge(MlirPrinter *p, const Op *op, int indent)
{
    const Value *r = op->results[0];
    unary_head(p, op, indent);
    if (r->sharding) {
        writer_str(p->out, " sharding=");
        mlir_print_tensor_sharding(p, r->sharding);
    }
    mlir_print_op_attrs(p, op, &(MlirAttrOpts){.no_shardings = true});
    writer_str(p->out, " : ");
    mlir_print_type(p, &r->type);
    end_line(p);
}

/* `sdy.propagation_barrier %x allowed_direction=FORWARD {sdy.sharding = ...}
 * : tensor<...>`: the direction in Shardy's upper case. */
static void emit_barrier(MlirPrinter *p, const Op *op, int indent)
{
    const char *dir = op_attr_string(op, ATTR_KEY_ALLOWED_DIRECTION);
    unary_head(p, op, indent);
    writer_str(p->out, " allowed_direction=");
    for (const char *c = dir ? dir : "NONE"; *c; c++)
        writer_char(p->out, *c >= 'a' && *c <= 'z' ? *c - 'a' + 'A' : *c);
    mlir_print_op_attrs(p, op, &(MlirAttrOpts){.consumed = (const AttrKey[]){ATTR_KEY_ALLOWED_DIRECTION, 0}});
    writer_str(p->out, " : ");
    mlir_print_type(p, &op->results[0]->type);
    end_line(p);
}

/* `sdy.sharding_group %x group_id=0 : tensor<...>`: no results. */
static void emit_sharding_group(MlirPrinter *p, const Op *op, int indent)
{
    unary_head(p, op, indent);
    writer_printf(p->out, " group_id=%lld", (long long)op_attr_int(op, ATTR_KEY_GROUP_ID));
    mlir_print_op_attrs(p, op, &(MlirAttrOpts){.consumed = (const AttrKey[]){ATTR_KEY_GROUP_ID, 0}});
    writer_str(p->out, " : ");
    mlir_print_type(p, &op->operands[0]->type);
    end_line(p);
}

/* A spec as Shardy writes it: with free axes, an in spec joined with its
 * body argument's sharding (the free part), an out spec its result's
 * sharding (import_manual.c split them). */
static const Sharding *full_spec(MlirPrinter *p, const Op *op, AttrKey key, int i, const Sharding *spec)
{
    if (!op_is_partial_manual(op))
        return spec;
    if (key == ATTR_KEY_OUT_SPECS)
        return i < op->num_results && op->results[i]->sharding ? op->results[i]->sharding : spec;
    const Value *arg = i < op->region->num_args ? op->region->args[i] : NULL;
    return arg && arg->sharding ? sharding_join_manual(&p->arena, spec, arg->sharding) : spec;
}

static void print_spec_list(MlirPrinter *p, const Op *op, AttrKey key)
{
    const AttrValue *v = op_attr_get(op, key);
    writer_char(p->out, '[');
    for (int i = 0; v && v->kind == ATTR_ARRAY && i < v->u.array.count; i++) {
        writer_str(p->out, i ? ", " : "");
        if (v->u.array.items[i]->kind == ATTR_SHARDING)
            mlir_print_tensor_sharding(p, full_spec(p, op, key, i, v->u.array.items[i]->u.sharding));
    }
    writer_char(p->out, ']');
}

/* manual_axes: as written, else every axis of the mesh. */
static void print_manual_axes(MlirPrinter *p, const Op *op)
{
    const AttrValue *v = op_attr_get(op, ATTR_KEY_MANUAL_AXES);
    const Mesh *mesh = op_attr_mesh(p->m, op, ATTR_KEY_MESH);
    writer_str(p->out, " manual_axes={");
    if (v && v->kind == ATTR_ARRAY) {
        for (int i = 0; i < v->u.array.count; i++) {
            writer_str(p->out, i ? ", " : "");
            mlir_print_string(p->out, v->u.array.items[i]->kind == ATTR_STRING ? v->u.array.items[i]->u.s : "");
        }
    } else {
        for (int k = 0; mesh && k < mesh->num_axes; k++) {
            writer_str(p->out, k ? ", " : "");
            mlir_print_string(p->out, mesh->axes[k].name);
        }
    }
    writer_char(p->out, '}');
}

void mlir_print_arg_list(MlirPrinter *p, const Block *body)
{
    for (int i = 0; i < body->num_args; i++) {
        writer_str(p->out, i ? ", " : "");
        mlir_print_val(p, mlir_val(p, body->args[i]));
        writer_str(p->out, ": ");
        mlir_print_type(p, &body->args[i]->type);
    }
}

void mlir_print_block_args(MlirPrinter *p, const Block *body)
{
    writer_str(p->out, " (");
    mlir_print_arg_list(p, body);
    writer_str(p->out, ") {\n");
}

/* sdy.manual_computation, as Shardy's printer lays it out: operands,
 * shardings and manual axes on the op's line, then the body's arguments
 * and its block (printSingleBlockRegionNoBlockId), the attributes and the
 * function type after the closing brace. MLIR says nothing of check_vma,
 * which the importer reads as false: true prints as shardc.check_vma. */
static void emit_shard_map(MlirPrinter *p, const Op *op, int indent)
{
    OpVals v;
    op_vals(p, op, &v);
    MlirVal *in = v.in, *res = v.res;
    int n = v.n_in;
    const Block *body = op->region;
    MlirScope s;
    mlir_region_open(p, &s, body, true);
    mlir_print_defs(p, op, indent);
    writer_str(p->out, "sdy.manual_computation(");
    mlir_print_vals(p, in, n);
    writer_str(p->out, ") in_shardings=");
    print_spec_list(p, op, ATTR_KEY_IN_SPECS);
    writer_str(p->out, " out_shardings=");
    print_spec_list(p, op, ATTR_KEY_OUT_SPECS);
    print_manual_axes(p, op);
    mlir_print_block_args(p, body);
    mlir_print_block_ops(p, &s, body, indent + 2, "sdy.return");
    writer_printf(p->out, "%*s}", indent, "");
    static const MlirKeptAttr check_vma[] = {{"shardc.check_vma", "true"}, {NULL, NULL}};
    mlir_print_op_attrs(p, op, &(MlirAttrOpts){
        .consumed = (const AttrKey[]){ATTR_KEY_MESH, ATTR_KEY_IN_SPECS, ATTR_KEY_OUT_SPECS, ATTR_KEY_MANUAL_AXES,
                                      ATTR_KEY_CHECK_VMA, 0},
        .no_shardings = true, .extra = op_attr_bool(op, ATTR_KEY_CHECK_VMA) ? check_vma : NULL});
    writer_str(p->out, " : ");
    mlir_print_fn_type(p, in, n, res, op->num_results);
    end_line(p);
}

/* `%output_state, %output = stablehlo.rng_bit_generator %s, algorithm =
 * THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4x6xui32>)`,
 * two spaces before the algorithm (its enum printer's); the partitioner's per-device
 * form (global_shape and start operands) has no StableHLO spelling and
 * prints generically (issue 18, h33). */
static void emit_rng_bit_generator(MlirPrinter *p, const Op *op, int indent)
{
    if (op_attr_get(op, ATTR_KEY_GLOBAL_SHAPE)) {
        mlir_emit_generic(p, op, indent);
        return;
    }
    MlirVal in = mlir_val(p, op->operands[0]), res[2] = {mlir_val(p, op->results[0]), mlir_val(p, op->results[1])};
    mlir_print_defs(p, op, indent);
    writer_printf(p->out, "%s ", mlir_printed_op_name(p, op));
    mlir_print_vals(p, &in, 1);
    writer_printf(p->out, ", algorithm =  %s", op_attr_string(op, ATTR_KEY_RNG_ALGORITHM));
    mlir_print_op_attrs(p, op, &(MlirAttrOpts){.consumed = (const AttrKey[]){ATTR_KEY_RNG_ALGORITHM, 0}});
    writer_str(p->out, " : ");
    mlir_print_fn_type(p, &in, 1, res, 2);
    end_line(p);
}

/* ---- the table ------------------------------------------------------------------------ */

static const MlirOpForm form_same = {plan_elementwise, emit_elementwise};
static const MlirOpForm form_generic = {NULL, mlir_emit_generic};

static const MlirOpForm special_forms[OP_COUNT] = {
    [OP_COMPARE] = {plan_elementwise, emit_compare},
    [OP_SELECT] = {plan_elementwise, emit_select},
    [OP_EINSUM] = {mlir_plan_einsum, mlir_emit_einsum},
    [OP_REDUCE_SUM] = {mlir_plan_reduce, mlir_emit_reduce},
    [OP_REDUCE_MAX] = {mlir_plan_reduce, mlir_emit_reduce},
    [OP_REDUCE_MIN] = {mlir_plan_reduce, mlir_emit_reduce},
    [OP_TRANSPOSE] = {NULL, emit_dims_op},
    [OP_BROADCAST] = {NULL, emit_dims_op},
    [OP_RESHAPE] = {NULL, emit_reshape},
    [OP_SLICE] = {NULL, emit_slice},
    [OP_REVERSE] = {NULL, emit_reverse},
    [OP_FFT] = {NULL, emit_fft},
    [OP_DYNAMIC_SLICE] = {NULL, emit_dynamic_slice},
    [OP_GATHER] = {NULL, mlir_emit_gather},
    [OP_SCATTER] = {NULL, mlir_emit_scatter},
    [OP_CONVOLUTION] = {NULL, mlir_emit_convolution},
    [OP_REDUCE_WINDOW] = {mlir_plan_window, mlir_emit_reduce_window},
    [OP_SELECT_AND_SCATTER] = {mlir_plan_window, mlir_emit_select_and_scatter},
    [OP_PAD] = {plan_pad, emit_pad},
    [OP_CONCATENATE] = {NULL, emit_concatenate},
    [OP_RNG_BIT_GENERATOR] = {NULL, emit_rng_bit_generator},
    [OP_CONSTANT] = {NULL, emit_constant},
    [OP_IOTA] = {NULL, emit_iota},
    [OP_CALL] = {NULL, emit_call},
    [OP_CUSTOM] = {NULL, emit_custom},
    [OP_CHOLESKY] = {NULL, emit_cholesky},
    [OP_TRIANGULAR_SOLVE] = {NULL, emit_stablehlo_generic},
    [OP_BATCH_NORM_INFERENCE] = {NULL, emit_stablehlo_generic},
    [OP_BATCH_NORM_TRAINING] = {NULL, emit_stablehlo_generic},
    [OP_BATCH_NORM_GRAD] = {NULL, emit_stablehlo_generic},
    [OP_LAPACK] = {NULL, emit_lapack},
    [OP_SHARDING_CONSTRAINT] = {NULL, emit_sharding_op},
    [OP_RESHARD] = {NULL, emit_sharding_op},
    [OP_PROPAGATION_BARRIER] = {NULL, emit_barrier},
    [OP_DATA_FLOW_EDGE] = {NULL, emit_data_flow_edge},
    [OP_SHARDING_GROUP] = {NULL, emit_sharding_group},
    [OP_SHARD_MAP] = {NULL, emit_shard_map},
    [OP_PSUM] = {mlir_plan_collective, mlir_emit_collective},
    [OP_PMAX] = {mlir_plan_collective, mlir_emit_collective},
    [OP_PMIN] = {mlir_plan_collective, mlir_emit_collective},
    [OP_ALL_GATHER] = {mlir_plan_collective, mlir_emit_collective},
    [OP_PSUM_SCATTER] = {mlir_plan_collective, mlir_emit_collective},
    [OP_PPERMUTE] = {mlir_plan_collective, mlir_emit_collective},
    [OP_ALL_TO_ALL] = {mlir_plan_collective, mlir_emit_collective},
    [OP_ALL_REDUCE] = {mlir_plan_collective, mlir_emit_collective},
    [OP_REDUCE_SCATTER] = {mlir_plan_collective, mlir_emit_collective},
    [OP_COLLECTIVE_PERMUTE] = {mlir_plan_collective, mlir_emit_collective},
    [OP_ALL_SLICE] = {mlir_plan_collective, mlir_emit_collective},
    [OP_REPLICATED_TO_UNREDUCED] = {mlir_plan_collective, mlir_emit_collective},
    [OP_SHARDED_TO_UNREDUCED] = {mlir_plan_collective, mlir_emit_collective},
    [OP_GROUP_ALL_GATHER] = {NULL, mlir_emit_group_collective},
    [OP_GROUP_ALL_TO_ALL] = {NULL, mlir_emit_group_collective},
    [OP_GROUP_REDUCE_SCATTER] = {NULL, mlir_emit_group_collective},
    [OP_GROUP_ALL_REDUCE] = {NULL, mlir_emit_group_collective},
    [OP_GROUP_COLLECTIVE_BROADCAST] = {NULL, mlir_emit_group_collective},
};

static MlirFormKind form_kind(OpKind kind)
{
    static const struct { OpKind kind; MlirFormKind form; } forms[] = {
#define MLIR_OP(kind, name, form) {OP_##kind, FORM_##form},
#include "mlir_ops.def"
#undef MLIR_OP
    };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++)
        if (forms[i].kind == kind)
            return forms[i].form;
    return FORM_SHARDC;
}

/* SPECIAL kinds print with their own function; a SPECIAL kind this file
 * has none for yet prints generically (the importer reads it back). */
const MlirOpForm *mlir_op_form(OpKind kind)
{
    if (kind == OP_WHILE)
        return &mlir_form_while;
    if (kind == OP_CASE)
        return &mlir_form_case;
    if (kind == OP_OPTIMIZATION_BARRIER)
        return &mlir_form_barrier;
    if (kind == OP_NAMED_COMPUTATION)
        return &mlir_form_named;
    if (kind == OP_REDUCE)
        return &mlir_form_reduce;
    if (kind == OP_SORT)
        return &mlir_form_sort;
    switch ((unsigned)kind < OP_COUNT ? form_kind(kind) : FORM_SHARDC) {
    case FORM_SAME: return &form_same;
    case FORM_FUNC: return special_forms[kind].emit ? &special_forms[kind] : &form_same;
    case FORM_SPECIAL: return special_forms[kind].emit ? &special_forms[kind] : &form_generic;
    case FORM_SHARDC: break;
    }
    return special_forms[kind].emit ? &special_forms[kind] : &form_generic;
}
