/* Result types left out in .shir (`%y = add %a, %b` for `... : f32[8]`),
 * taken from the operands and attributes where those give them:
 *   elementwise ops, compare (bool), select, clamp: the operands' shapes
 *     broadcast NumPy-style;
 *   sharding_constraint, reshard, propagation_barrier, data_flow_edge,
 *     psum, pmean, pmax, pmin: the operand's type;
 *   optimization_barrier, while: the operands' types;
 *   case, named_computation: what the (first) region returns;
 *   call: the callee's result types (a callee defined before the call);
 *   transpose (permutation), reduce_* (dims removed), einsum (its spec);
 *   after_all: token[].
 * Any other op (its type needs a target shape or element type: reshape,
 * broadcast, convert, constants, collectives that change shapes, custom
 * ops) must be written with its types; leaving them out is a located error
 * naming the op. The verifier checks inferred types as written ones. */
#include <string.h>
#include "front/parse_ctx.h"
#include "shardc/einsum.h"

static bool fail(ParseCtx *ctx, const Op *op, const char *why)
{
    diag_error(ctx->diag, op->loc, "cannot infer the result type%s of '%s' (%s); write %s: `... : f32[8]`",
               op->num_results == 1 ? "" : "s", op_info(op->kind)->name, why,
               op->num_results == 1 ? "it" : "them");
    return false;
}

static TensorType make(ParseCtx *ctx, DType dtype, int rank, const int64_t *dims)
{
    return type_make(&ctx->module->arena, dtype, rank, dims);
}

/* NumPy broadcasting of the operands' shapes from operand `first` on, dims
 * aligned from the right; false if two dims are neither equal nor 1. */
static bool broadcast_shape(const Op *op, int first, int64_t *dims, int *rank)
{
    *rank = 0;
    for (int i = first; i < op->num_operands; i++) {
        const TensorType *t = &op->operands[i]->type;
        int r = t->rank > *rank ? t->rank : *rank;
        int64_t merged[SHARDC_MAX_RANK];
        for (int d = 0; d < r; d++) {
            int a = d - (r - *rank), b = d - (r - t->rank);
            int64_t x = a >= 0 ? dims[a] : 1, y = b >= 0 ? t->dims[b] : 1;
            if (x != y && x != 1 && y != 1)
                return false;
            merged[d] = x == 1 ? y : x;
        }
        memcpy(dims, merged, sizeof(int64_t) * (size_t)r);
        *rank = r;
    }
    return true;
}

static bool same_as_operands(ParseCtx *ctx, Op *op)
{
    if (op->num_results > op->num_operands)
        return fail(ctx, op, "more results than operands");
    for (int i = 0; i < op->num_results; i++)
        op->results[i]->type = op->operands[i]->type;
    return true;
}

static bool from_region(ParseCtx *ctx, Op *op)
{
    const Block *b = op->num_regions ? op->regions[0] : NULL;
    if (!b || b->num_returns != op->num_results)
        return fail(ctx, op, "its region returns another number of values");
    for (int i = 0; i < op->num_results; i++)
        if (!b->returns[i])
            return false; /* an undefined value, reported at its use */
    for (int i = 0; i < op->num_results; i++)
        op->results[i]->type = b->returns[i]->type;
    return true;
}

static bool from_callee(ParseCtx *ctx, Op *op)
{
    const Func *f = op->callee ? symtab_get(&ctx->func_names, op->callee) : NULL;
    if (!f)
        return fail(ctx, op, "its callee is not defined before it");
    if (f->num_results != op->num_results)
        return fail(ctx, op, "the callee returns another number of values");
    for (int i = 0; i < op->num_results; i++)
        op->results[i]->type = f->result_types[i];
    return true;
}

static bool transposed(ParseCtx *ctx, Op *op)
{
    const TensorType *in = &op->operands[0]->type;
    int64_t perm[SHARDC_MAX_RANK], dims[SHARDC_MAX_RANK];
    int n = op_attr_ints(op, ATTR_KEY_PERMUTATION, perm, SHARDC_MAX_RANK);
    if (n != in->rank)
        return fail(ctx, op, "its permutation does not list every dim");
    for (int d = 0; d < n; d++) {
        if (perm[d] < 0 || perm[d] >= in->rank)
            return fail(ctx, op, "its permutation names a dim it does not have");
        dims[d] = in->dims[perm[d]];
    }
    op->results[0]->type = make(ctx, in->dtype, n, dims);
    return true;
}

static bool reduced(ParseCtx *ctx, Op *op)
{
    const TensorType *in = &op->operands[0]->type;
    int64_t dims[SHARDC_MAX_RANK], kept[SHARDC_MAX_RANK];
    int n = op_attr_ints(op, ATTR_KEY_DIMS, dims, SHARDC_MAX_RANK), rank = 0;
    bool gone[SHARDC_MAX_RANK] = {false};
    for (int i = 0; i < n; i++) {
        if (dims[i] < 0 || dims[i] >= in->rank)
            return fail(ctx, op, "its dims name a dim it does not have");
        gone[dims[i]] = true;
    }
    for (int d = 0; d < in->rank; d++)
        if (!gone[d])
            kept[rank++] = in->dims[d];
    op->results[0]->type = make(ctx, in->dtype, rank, kept);
    return true;
}

/* The size of an einsum label, from the first input carrying it. */
static bool label_size(const Op *op, const EinsumSpec *spec, char label, int64_t *size)
{
    for (int i = 0; i < spec->num_inputs; i++)
        for (int k = 0; k < spec->input_rank[i] && k < op->operands[i]->type.rank; k++)
            if (spec->inputs[i][k] == label) {
                *size = op->operands[i]->type.dims[k];
                return true;
            }
    return false;
}

static bool einsum_result(ParseCtx *ctx, Op *op)
{
    EinsumSpec spec;
    char error[128];
    int col;
    if (!op->str || !einsum_parse(op->str, &spec, error, sizeof error, &col) || spec.num_inputs != op->num_operands)
        return fail(ctx, op, "its spec does not give the output shape");
    int64_t dims[SHARDC_MAX_RANK];
    for (int d = 0; d < spec.output_rank; d++)
        if (!label_size(op, &spec, spec.output[d], &dims[d]))
            return fail(ctx, op, "an output label is in no input");
    op->results[0]->type = make(ctx, op->operands[0]->type.dtype, spec.output_rank, dims);
    return true;
}

static bool elementwise(ParseCtx *ctx, Op *op, int first, DType dtype)
{
    int64_t dims[SHARDC_MAX_RANK];
    int rank;
    if (op->num_operands <= first || !broadcast_shape(op, first, dims, &rank))
        return fail(ctx, op, "its operands' shapes do not broadcast");
    op->results[0]->type = make(ctx, dtype, rank, dims);
    return true;
}

static bool by_class(ParseCtx *ctx, Op *op)
{
    DType first = op->num_operands ? op->operands[0]->type.dtype : DT_F32;
    switch (op_info(op->kind)->op_class) {
    case OPC_UNARY: case OPC_UNARY_FLOAT: case OPC_BINARY:
        return elementwise(ctx, op, 0, op->kind == OP_IS_FINITE ? DT_BOOL : first);
    case OPC_COMPARE:
        return elementwise(ctx, op, 0, DT_BOOL);
    case OPC_SELECT:
        return op->num_operands == 3 ? elementwise(ctx, op, 1, op->operands[1]->type.dtype)
                                     : fail(ctx, op, "it needs three operands");
    case OPC_CLAMP:
        return op->num_operands == 3 ? (op->results[0]->type = op->operands[1]->type, true)
                                     : fail(ctx, op, "it needs three operands");
    case OPC_SHARDING: case OPC_BARRIER: case OPC_DATA_FLOW_EDGE: case OPC_OPT_BARRIER: case OPC_WHILE: case OPC_SORT:
        return same_as_operands(ctx, op);
    case OPC_CASE: case OPC_NAMED:
        return from_region(ctx, op);
    case OPC_CALL:
        return from_callee(ctx, op);
    case OPC_TRANSPOSE:
        return transposed(ctx, op);
    case OPC_REDUCE:
        return reduced(ctx, op);
    case OPC_EINSUM:
        return einsum_result(ctx, op);
    case OPC_COMPLEX_PART: { /* real, imag: the part type; complex: the complex type of its parts */
        DType dt = dtype_complex_part(first);
        if (op->kind == OP_COMPLEX && !dtype_complex_of(first, &dt))
            return fail(ctx, op, "its operands are not f32 or f64");
        return elementwise(ctx, op, 0, dt);
    }
    case OPC_AFTER_ALL:
        op->results[0]->type = make(ctx, DT_TOKEN, 0, NULL);
        return true;
    default:
        return fail(ctx, op, "it is not one whose types follow from its operands");
    }
}

bool build_infer_result_types(ParseCtx *ctx, Op *op)
{
    bool same_type_collective = op->kind == OP_PSUM || op->kind == OP_PMEAN || op->kind == OP_PMAX ||
                                op->kind == OP_PMIN;
    if (same_type_collective)
        return same_as_operands(ctx, op);
    if (op->kind == OP_CONVERT || op->kind == OP_BITCAST_CONVERT)
        return fail(ctx, op, "the target element type is its result type");
    return by_class(ctx, op);
}
