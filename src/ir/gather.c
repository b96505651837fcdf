/* Reading a gather's or scatter's dimension numbers (shardc/gather.h). */
#include "shardc/gather.h"
#include <string.h>
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

int op_gather_indices_index(const Op *op)
{
    return op->kind == OP_SCATTER ? op->num_results : 1;
}

/* The combiner kind that returns[i] of body computes from (cur_i, upd_i):
 * "replace" for the update itself, the binary op's name for one binary op
 * of the two, or NULL. */
static const char *scatter_return_kind(const Block *body, int n, int i)
{
    static const struct { OpKind kind; const char *name; } known[] = {
        {OP_ADD, "add"}, {OP_MUL, "mul"}, {OP_MAX, "max"}, {OP_MIN, "min"}, {OP_AND, "and"}, {OP_OR, "or"}};
    const Value *r = body->returns[i], *cur = body->args[i], *upd = body->args[n + i];
    if (r == upd)
        return "replace";
    const Op *def = r->def;
    if (!def || def->num_operands != 2 ||
        !((def->operands[0] == cur && def->operands[1] == upd) || (def->operands[0] == upd && def->operands[1] == cur)))
        return NULL;
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
        if (known[k].kind == def->kind)
            return known[k].name;
    return NULL;
}

/* Shardy's getCommonSupportedReductionOp, widened to replace: the body
 * holds only the N ops its returns name, all of one kind. */
const char *op_scatter_combiner(const Op *op)
{
    const char *c = op_attr_string(op, ATTR_KEY_COMBINER);
    if (c || op->num_regions != 1)
        return c;
    const Block *body = op->regions[0];
    int n = op->num_results, count = 0;
    if (body->num_args != 2 * n || body->num_returns != n)
        return NULL;
    for (const Op *o = body->first; o; o = o->next)
        count++;
    const char *kind = NULL;
    for (int i = 0; i < n; i++) {
        const char *k = scatter_return_kind(body, n, i);
        if (!k || (kind && strcmp(k, kind) != 0))
            return NULL;
        kind = k;
    }
    return count == (strcmp(kind, "replace") == 0 ? 0 : n) ? kind : NULL;
}
