/* stablehlo.gather and stablehlo.scatter, in the generic form sdy_opt
 * prints them (StableHLO gives them no custom syntax): the dimension
 * numbers as a #stablehlo.gather<...> / #stablehlo.scatter<...> property
 * that leaves out empty lists and an index_vector_dim of 0, and a
 * scatter's update computation as its region (its `combiner` spelled out,
 * or its .shir region as written). */
#include <string.h>
#include "mlir/mlir_extra.h"
#include "mlir/print_internal.h"

/* `name = [1, 2]` after a separator, unless the list is empty. */
static void print_list(MlirPrinter *p, const Op *op, AttrKey key, const char *name, bool *first)
{
    int64_t v[SHARDC_MAX_RANK];
    int n = op_attr_ints(op, key, v, SHARDC_MAX_RANK);
    if (n <= 0)
        return;
    writer_printf(p->out, "%s%s = ", *first ? "" : ", ", name);
    mlir_print_ints(p->out, v, n);
    *first = false;
}

/* The five dim lists are the first keys of each consumed list below. */
static void print_dims_attr(MlirPrinter *p, const Op *op, const char *mnemonic, const AttrKey *keys)
{
    bool first = true;
    writer_printf(p->out, "#stablehlo.%s<", mnemonic);
    for (int i = 0; i < 5; i++)
        print_list(p, op, keys[i], attr_key_name(keys[i]), &first);
    int64_t ivd = op_attr_int(op, ATTR_KEY_INDEX_VECTOR_DIM);
    if (ivd != 0)
        writer_printf(p->out, "%sindex_vector_dim = %lld", first ? "" : ", ", (long long)ivd);
    writer_char(p->out, '>');
}

/* `, name = true` for a bool attribute written in .shir or MLIR. */
static void print_flag(MlirPrinter *p, const Op *op, AttrKey key)
{
    if (op_attr_find(op, key))
        writer_printf(p->out, ", %s = %s", attr_key_name(key), op_attr_bool(op, key) ? "true" : "false");
}

static void print_type_tail(MlirPrinter *p, const Op *op)
{
    MlirVal *in = ARENA_ARRAY(&p->arena, MlirVal, op->num_operands + 1);
    MlirVal *res = ARENA_ARRAY(&p->arena, MlirVal, op->num_results + 1);
    for (int i = 0; i < op->num_operands; i++)
        in[i] = mlir_val(p, op->operands[i]);
    for (int j = 0; j < op->num_results; j++)
        res[j] = mlir_val(p, op->results[j]);
    writer_str(p->out, " : ");
    mlir_print_fn_type(p, in, op->num_operands, res, op->num_results);
    writer_char(p->out, '\n');
}

static void print_operands(MlirPrinter *p, const Op *op, const char *name)
{
    writer_printf(p->out, "\"%s\"(", name);
    for (int i = 0; i < op->num_operands; i++) {
        writer_str(p->out, i ? ", " : "");
        mlir_print_val(p, mlir_val(p, op->operands[i]));
    }
    writer_char(p->out, ')');
}

static const AttrKey gather_consumed[] = {ATTR_KEY_OFFSET_DIMS, ATTR_KEY_COLLAPSED_SLICE_DIMS,
                                          ATTR_KEY_OPERAND_BATCHING_DIMS, ATTR_KEY_START_INDICES_BATCHING_DIMS,
                                          ATTR_KEY_START_INDEX_MAP, ATTR_KEY_INDEX_VECTOR_DIM, ATTR_KEY_SLICE_SIZES,
                                          ATTR_KEY_INDICES_ARE_SORTED, ATTR_KEY_NONE};

void mlir_emit_gather(MlirPrinter *p, const Op *op, int indent)
{
    int64_t sizes[SHARDC_MAX_RANK];
    int n = op_attr_ints(op, ATTR_KEY_SLICE_SIZES, sizes, SHARDC_MAX_RANK);
    mlir_print_defs(p, op, indent);
    print_operands(p, op, "stablehlo.gather");
    writer_str(p->out, " <{dimension_numbers = ");
    print_dims_attr(p, op, "gather", gather_consumed);
    print_flag(p, op, ATTR_KEY_INDICES_ARE_SORTED);
    writer_str(p->out, ", slice_sizes = array<i64");
    for (int i = 0; i < n; i++)
        writer_printf(p->out, "%s %lld", i ? "," : ":", (long long)sizes[i]);
    writer_str(p->out, ">}>");
    mlir_print_op_attrs(p, op, &(MlirAttrOpts){.consumed = gather_consumed});
    print_type_tail(p, op);
}

static const AttrKey scatter_consumed[] = {ATTR_KEY_UPDATE_WINDOW_DIMS, ATTR_KEY_INSERTED_WINDOW_DIMS,
                                           ATTR_KEY_INPUT_BATCHING_DIMS, ATTR_KEY_SCATTER_INDICES_BATCHING_DIMS,
                                           ATTR_KEY_SCATTER_DIMS_TO_OPERAND_DIMS, ATTR_KEY_INDEX_VECTOR_DIM,
                                           ATTR_KEY_COMBINER, ATTR_KEY_INDICES_ARE_SORTED, ATTR_KEY_UNIQUE_INDICES,
                                           ATTR_KEY_NONE};

/* The StableHLO op of each combiner but "replace". */
static const char *combiner_op(const char *c)
{
    static const char *const map[][2] = {{"add", "stablehlo.add"},     {"mul", "stablehlo.multiply"},
                                         {"max", "stablehlo.maximum"}, {"min", "stablehlo.minimum"},
                                         {"and", "stablehlo.and"},     {"or", "stablehlo.or"}};
    for (size_t i = 0; c && i < sizeof map / sizeof map[0]; i++)
        if (strcmp(map[i][0], c) == 0)
            return map[i][1];
    return NULL;
}

/* The update computation's block, a region nested in the block being
 * printed, named as MLIR numbers it (%argN, %N) or, in .shir naming,
 * %cur, %upd and %new made unique. */
static void print_update_region(MlirPrinter *p, const Op *op, int indent)
{
    const char *body = combiner_op(op_attr_string(op, ATTR_KEY_COMBINER));
    const char *t = dtype_mlir_name(op->results[0]->type.dtype);
    MlirScope s;
    mlir_scope_init(&s, p, p->scope, p->scope);
    const char *a = mlir_scope_arg(p, &s, "cur"), *b = mlir_scope_arg(p, &s, "upd");
    writer_printf(p->out, " ({\n%*s^bb0(%%%s: tensor<%s>, %%%s: tensor<%s>):\n", indent, "", a, t, b, t);
    const char *mesh = op->mlir ? op->mlir->region_mesh : NULL;
    for (int i = 0; mesh && i < 2; i++) {
        const char *c = mlir_scope_value(p, &s, i ? "upd.c" : "cur.c");
        writer_printf(p->out, "%*s%%%s = sdy.sharding_constraint %%%s <@%s, []> : tensor<%s>\n", indent + 2, "", c,
                i ? b : a, mesh, t);
        *(i ? &b : &a) = c;
    }
    if (body) {
        const char *r = mlir_scope_value(p, &s, "new");
        writer_printf(p->out, "%*s%%%s = %s %%%s, %%%s : tensor<%s>\n", indent + 2, "", r, body, a, b, t);
        b = r;
    }
    writer_printf(p->out, "%*sstablehlo.return %%%s : tensor<%s>\n%*s})", indent + 2, "", b, t, indent, "");
}

/* A .shir update region, printed as it is (StableHLO's generic region:
 * ^bb0 with the 2N scalar arguments, its ops, stablehlo.return). */
static void print_shir_region(MlirPrinter *p, MlirScope *s, const Block *body, int indent)
{
    writer_printf(p->out, " ({\n%*s^bb0(", indent, "");
    for (int i = 0; i < body->num_args; i++) {
        writer_str(p->out, i ? ", " : "");
        mlir_print_val(p, mlir_val(p, body->args[i]));
        writer_str(p->out, ": ");
        mlir_print_type(p, &body->args[i]->type);
    }
    writer_str(p->out, "):\n");
    mlir_print_block_ops(p, s, body, indent + 2, "stablehlo.return");
    writer_printf(p->out, "%*s})", indent, "");
}

void mlir_emit_scatter(MlirPrinter *p, const Op *op, int indent)
{
    MlirScope s;
    if (op->num_regions == 1) /* its arguments named before the results */
        mlir_region_open(p, &s, op->regions[0], false);
    mlir_print_defs(p, op, indent);
    print_operands(p, op, "stablehlo.scatter");
    writer_str(p->out, " <{");
    if (op_attr_find(op, ATTR_KEY_INDICES_ARE_SORTED))
        writer_str(p->out, op_attr_bool(op, ATTR_KEY_INDICES_ARE_SORTED) ? "indices_are_sorted = true, "
                                                                       : "indices_are_sorted = false, ");
    writer_str(p->out, "scatter_dimension_numbers = ");
    print_dims_attr(p, op, "scatter", scatter_consumed);
    print_flag(p, op, ATTR_KEY_UNIQUE_INDICES);
    writer_str(p->out, "}>");
    if (op->num_regions == 1)
        print_shir_region(p, &s, op->regions[0], indent);
    else
        print_update_region(p, op, indent);
    mlir_print_op_attrs(p, op, &(MlirAttrOpts){.consumed = scatter_consumed});
    print_type_tail(p, op);
}
