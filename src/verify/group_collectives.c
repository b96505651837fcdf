/* Verifier rules of StableHLO's all_gather, all_to_all, reduce_scatter,
 * all_reduce and collective_broadcast over replica groups
 * (group_all_gather, ...; the MLIR importer's form outside any manual
 * computation where the groups name no mesh axes): N operands and N
 * results of one shape each (all_gather_c3..c6, all_to_all_c1..c9,
 * reduce_scatter_c2..c8 as shardc's form has them; all_reduce and
 * collective_broadcast keep the shape). */
#include "shardc/verify.h"

/* The result shape of operand shape `in`, in out (false: a dim attribute
 * out of range or a dim that does not split). */
static bool group_result_shape(const Op *op, const TensorType *in, int64_t *out, const char **why)
{
    for (int d = 0; d < in->rank; d++)
        out[d] = in->dims[d];
    if (op->kind == OP_GROUP_ALL_REDUCE || op->kind == OP_GROUP_COLLECTIVE_BROADCAST)
        return true;
    int64_t n = op_attr_int(op, ATTR_KEY_GROUP_SIZE);
    int64_t a = op->kind == OP_GROUP_ALL_TO_ALL ? op_attr_int(op, ATTR_KEY_SPLIT_AXIS) : op_attr_int(op, ATTR_KEY_DIM);
    int64_t c = op->kind == OP_GROUP_ALL_TO_ALL ? op_attr_int(op, ATTR_KEY_CONCAT_AXIS) : a;
    if (n < 1 || a < 0 || a >= in->rank || c < 0 || c >= in->rank)
        return *why = "its dims must be dims of the operands and its group size at least 1", false;
    if (op->kind != OP_GROUP_ALL_GATHER && in->dims[a] % n)
        return *why = "the split (scattered) dim must divide by the group size", false;
    if (op->kind == OP_GROUP_ALL_GATHER)
        return !__builtin_mul_overflow(in->dims[a], n, &out[a]) || (*why = "the gathered dim overflows", false);
    out[a] /= n;
    if (op->kind == OP_GROUP_ALL_TO_ALL)
        return !__builtin_mul_overflow(out[c], n, &out[c]) || (*why = "the concatenated dim overflows", false);
    return true;
}

void verify_group_collective(VerifyCtx *vc, Op *op)
{
    const char *why = NULL;
    if (op->num_results != op->num_operands) {
        diag_error(vc->diag, op->loc, "'%s' gives one result per operand", op_info(op->kind)->name);
        return;
    }
    for (int i = 0; i < op->num_operands; i++) {
        const TensorType *in = &op->operands[i]->type;
        int64_t dims[SHARDC_MAX_RANK];
        if (!group_result_shape(op, in, dims, &why)) {
            diag_error(vc->diag, op->loc, "'%s' operand %%%s: %s", op_info(op->kind)->name, op->operands[i]->name,
                       why);
            return;
        }
        TensorType want = {in->dtype, in->rank, dims};
        verify_expect_type(vc, op, &want, op->results[i]);
    }
}
