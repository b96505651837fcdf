/* Reading a gather's or scatter's dimension numbers (shardc/gather.h). */
#include "shardc/gather.h"
#include "shardc/ir.h"

static int read_list(const Op *op, AttrKey key, int64_t *out)
{
    int n = op_attr_ints(op, key, out, SHARDC_MAX_RANK);
    return n < 0 ? 0 : n;
}

void op_gather_dims(const Op *op, GatherDims *g)
{
    bool scatter = op->kind == OP_SCATTER;
    g->num_offset = read_list(op, scatter ? ATTR_KEY_UPDATE_WINDOW_DIMS : ATTR_KEY_OFFSET_DIMS, g->offset);
    g->num_collapsed =
        read_list(op, scatter ? ATTR_KEY_INSERTED_WINDOW_DIMS : ATTR_KEY_COLLAPSED_SLICE_DIMS, g->collapsed);
    g->num_operand_batching =
        read_list(op, scatter ? ATTR_KEY_INPUT_BATCHING_DIMS : ATTR_KEY_OPERAND_BATCHING_DIMS, g->operand_batching);
    g->num_index_batching = read_list(
        op, scatter ? ATTR_KEY_SCATTER_INDICES_BATCHING_DIMS : ATTR_KEY_START_INDICES_BATCHING_DIMS,
        g->index_batching);
    g->num_map = read_list(op, scatter ? ATTR_KEY_SCATTER_DIMS_TO_OPERAND_DIMS : ATTR_KEY_START_INDEX_MAP, g->map);
    g->num_slice_sizes = scatter ? 0 : read_list(op, ATTR_KEY_SLICE_SIZES, g->slice_sizes);
    g->index_vector_dim = op_attr_int(op, ATTR_KEY_INDEX_VECTOR_DIM);
}
