/* stablehlo.while, stablehlo.case / stablehlo.if and
 * stablehlo.optimization_barrier, as sdy_opt prints them:
 *   %0:2 = stablehlo.while(%iterArg = %a, %iterArg_0 = %b) : t1, t2 attributes {...}
 *    cond {...} do {...}
 *   %0 = "stablehlo.case"(%i) ({...}, {...}) {...} : (tensor<i32>) -> t
 *   %0:2 = stablehlo.optimization_barrier {...} %a, %b : t1, t2
 *   %0 = sdy.named_computation<"f">(%a) in_shardings=[...] out_shardings=[...]
 *     (%arg1: t) {... sdy.return %x : t} {...} : (t) -> t
 *   %0:2 = stablehlo.reduce(%a init: %c), (%b init: %d) across dimensions = [1] {...} : (...) -> (...)
 *    reducer(%e: t, %g: t) (%f: t, %h: t) {... stablehlo.return %x, %y : t, t}
 *   %0:2 = "stablehlo.sort"(%a, %b) <{dimension = 0 : i64, is_stable = true}> ({
 *   ^bb0(%arg0: t, %arg1: t, %arg2: t, %arg3: t): ... stablehlo.return %c : tensor<i1>
 *   }) : (...) -> (...)    (as JAX prints it; a sort without comparator is generic)
 * A case on a bool index (read from stablehlo.if, or written so) is an if:
 * its regions are the false branch then the true one (a bool index
 * selects branch 0 for false), printed in if's order, true branch first. */
#include <stdlib.h>
#include "print_internal.h"

static void print_types(MlirPrinter *p, Value *const *v, int n)
{
    for (int i = 0; i < n; i++) {
        writer_str(p->out, i ? ", " : "");
        mlir_print_type(p, &v[i]->type);
    }
}

static void print_operands(MlirPrinter *p, const Op *op)
{
    for (int i = 0; i < op->num_operands; i++) {
        writer_str(p->out, i ? ", " : "");
        mlir_print_val(p, mlir_val(p, op->operands[i]));
    }
}

/* ` : (operand types) -> result types` and the line's end. */
static void print_fn_types(MlirPrinter *p, const Op *op)
{
    writer_str(p->out, " : (");
    print_types(p, op->operands, op->num_operands);
    writer_str(p->out, ") -> ");
    if (op->num_results != 1)
        writer_char(p->out, '(');
    print_types(p, op->results, op->num_results);
    if (op->num_results != 1)
        writer_char(p->out, ')');
    writer_char(p->out, '\n');
}

/* A region's block: its ops and `stablehlo.return`, named in scope s. */
static void print_region(MlirPrinter *p, MlirScope *s, const Block *b, int indent)
{
    mlir_print_block_ops(p, s, b, indent + 2, "stablehlo.return");
    writer_printf(p->out, "%*s}", indent, "");
}

static void emit_while(MlirPrinter *p, const Op *op, int indent)
{
    MlirScope cond, body;
    const Block *c = op->regions[0], *b = op->regions[1];
    mlir_region_open_iter(p, &cond, c, b);
    mlir_region_open_iter(p, &body, b, b);
    mlir_print_defs(p, op, indent);
    writer_str(p->out, "stablehlo.while(");
    for (int i = 0; i < op->num_operands && i < b->num_args; i++) {
        writer_str(p->out, i ? ", " : "");
        mlir_print_val(p, mlir_val(p, b->args[i]));
        writer_str(p->out, " = ");
        mlir_print_val(p, mlir_val(p, op->operands[i]));
    }
    writer_char(p->out, ')');
    if (op->num_operands)
        writer_str(p->out, " : ");
    print_types(p, op->operands, op->num_operands);
    mlir_print_op_attrs(p, op, &(MlirAttrOpts){.open = " attributes {"});
    writer_printf(p->out, "\n%*s cond {\n", indent, "");
    print_region(p, &cond, c, indent);
    writer_str(p->out, " do {\n");
    print_region(p, &body, b, indent);
    writer_char(p->out, '\n');
}

static void emit_case(MlirPrinter *p, const Op *op, int indent)
{
    bool is_if = op->operands[0]->type.dtype == DT_BOOL && op->num_regions == 2;
    const char *name = is_if ? "stablehlo.if" : "stablehlo.case";
    MlirScope *scopes = ARENA_ARRAY(&p->arena, MlirScope, op->num_regions + 1);
    for (int k = 0; k < op->num_regions; k++)
        mlir_region_open(p, &scopes[k], op->regions[k], false);
    mlir_print_defs(p, op, indent);
    writer_printf(p->out, "\"%s\"(", name);
    print_operands(p, op);
    writer_str(p->out, ") (");
    for (int j = 0; j < op->num_regions; j++) {
        int k = is_if ? op->num_regions - 1 - j : j;
        writer_str(p->out, j ? ", {\n" : "{\n");
        print_region(p, &scopes[k], op->regions[k], indent);
    }
    writer_char(p->out, ')');
    mlir_print_op_attrs(p, op, &(MlirAttrOpts){0});
    print_fn_types(p, op);
}

static void emit_barrier(MlirPrinter *p, const Op *op, int indent)
{
    mlir_print_defs(p, op, indent);
    writer_str(p->out, "stablehlo.optimization_barrier");
    mlir_print_op_attrs(p, op, &(MlirAttrOpts){0});
    writer_char(p->out, ' ');
    print_operands(p, op);
    writer_str(p->out, " : ");
    print_types(p, op->operands, op->num_operands);
    writer_char(p->out, '\n');
}

/* The mesh of the first value that has a sharding, or NULL. */
static const Mesh *first_mesh(Value *const *v, int n)
{
    for (int i = 0; i < n; i++)
        if (v[i]->sharding)
            return v[i]->sharding->mesh;
    return NULL;
}

/* ` name=[<...>, ...]`: every value's sharding, open where it has none;
 * nothing when none has one (Shardy's optional in/out_shardings). */
static void print_sharding_list(MlirPrinter *p, const char *name, Value *const *v, int n)
{
    const Mesh *mesh = first_mesh(v, n);
    if (!mesh)
        return;
    writer_printf(p->out, " %s=[", name);
    for (int i = 0; i < n; i++) {
        writer_str(p->out, i ? ", " : "");
        if (v[i]->sharding)
            mlir_print_tensor_sharding(p, v[i]->sharding);
        else
            mlir_print_open_sharding(p, mesh, v[i]->type.rank);
    }
    writer_char(p->out, ']');
}

static void emit_named(MlirPrinter *p, const Op *op, int indent)
{
    const Block *body = op->regions[0];
    MlirScope s;
    mlir_region_open(p, &s, body, true);
    mlir_print_defs(p, op, indent);
    writer_str(p->out, "sdy.named_computation<");
    mlir_print_string(p->out, op_attr_string(op, ATTR_KEY_NAME));
    writer_str(p->out, ">(");
    print_operands(p, op);
    writer_char(p->out, ')');
    print_sharding_list(p, "in_shardings", body->args, body->num_args);
    print_sharding_list(p, "out_shardings", op->results, op->num_results);
    mlir_print_block_args(p, body);
    mlir_print_block_ops(p, &s, body, indent + 2, "sdy.return");
    writer_printf(p->out, "%*s}", indent, "");
    mlir_print_op_attrs(p, op, &(MlirAttrOpts){.consumed = (const AttrKey[]){ATTR_KEY_NAME, 0}, .no_shardings = true});
    print_fn_types(p, op);
}

/* `reducer(%acc_i: t, %x_i: t) ...`: a pair per input, though the block
 * takes all the accumulators first. */
static void print_reducer_args(MlirPrinter *p, const Block *body, int n)
{
    writer_str(p->out, "reducer");
    for (int i = 0; i < n && 2 * n <= body->num_args; i++) {
        const Value *pair[2] = {body->args[i], body->args[n + i]};
        writer_str(p->out, i ? " (" : "(");
        for (int k = 0; k < 2; k++) {
            writer_str(p->out, k ? ", " : "");
            mlir_print_val(p, mlir_val(p, pair[k]));
            writer_str(p->out, ": ");
            mlir_print_type(p, &pair[k]->type);
        }
        writer_char(p->out, ')');
    }
}

static void emit_reduce(MlirPrinter *p, const Op *op, int indent)
{
    const Block *body = op->regions[0];
    int n = op->num_results;
    MlirScope s;
    mlir_region_open(p, &s, body, false);
    mlir_print_defs(p, op, indent);
    writer_str(p->out, "stablehlo.reduce");
    for (int i = 0; i < n && 2 * n <= op->num_operands; i++) {
        writer_str(p->out, i ? ", (" : "(");
        mlir_print_val(p, mlir_val(p, op->operands[i]));
        writer_str(p->out, " init: ");
        mlir_print_val(p, mlir_val(p, op->operands[n + i]));
        writer_char(p->out, ')');
    }
    int64_t dims[SHARDC_MAX_RANK];
    int k = op_attr_ints(op, ATTR_KEY_DIMS, dims, SHARDC_MAX_RANK);
    writer_str(p->out, " across dimensions = ");
    mlir_print_ints(p->out, dims, k > 0 ? k : 0);
    mlir_print_op_attrs(p, op, &(MlirAttrOpts){.consumed = (const AttrKey[]){ATTR_KEY_DIMS, 0}});
    print_fn_types(p, op);
    writer_printf(p->out, "%*s ", indent, "");
    print_reducer_args(p, body, n);
    writer_str(p->out, " {\n");
    print_region(p, &s, body, indent);
    writer_char(p->out, '\n');
}

const MlirOpForm mlir_form_reduce = {NULL, emit_reduce};

/* JAX's generic form with properties; the op's other attributes (its
 * shardings) follow the region as a dictionary. */
static void emit_sort(MlirPrinter *p, const Op *op, int indent)
{
    if (op->num_regions != 1) {
        mlir_emit_generic(p, op, indent);
        return;
    }
    const Block *cmp = op->regions[0];
    MlirScope s;
    mlir_region_open(p, &s, cmp, false);
    mlir_print_defs(p, op, indent);
    writer_str(p->out, "\"stablehlo.sort\"(");
    print_operands(p, op);
    writer_printf(p->out, ") <{dimension = %lld : i64, is_stable = %s}> ({\n", (long long)op_attr_int(op, ATTR_KEY_DIM),
            op_attr_bool(op, ATTR_KEY_IS_STABLE) ? "true" : "false");
    writer_printf(p->out, "%*s^bb0(", indent, "");
    mlir_print_arg_list(p, cmp);
    writer_str(p->out, "):\n");
    print_region(p, &s, cmp, indent);
    writer_char(p->out, ')');
    mlir_print_op_attrs(p, op, &(MlirAttrOpts){.consumed = (const AttrKey[]){ATTR_KEY_DIM, ATTR_KEY_IS_STABLE, 0}});
    print_fn_types(p, op);
}

const MlirOpForm mlir_form_sort = {NULL, emit_sort};
const MlirOpForm mlir_form_while = {NULL, emit_while};
const MlirOpForm mlir_form_case = {NULL, emit_case};
const MlirOpForm mlir_form_barrier = {NULL, emit_barrier};
const MlirOpForm mlir_form_named = {NULL, emit_named};
