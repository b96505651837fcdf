/* StableHLO's gather and scatter dimension numbers, read once from an op's
 * attributes (src/ir/gather.c) and shared by the verifier, the sharding
 * rules, the kernels and the partitioner. A scatter's are spelled as the
 * gather's they mirror: update_window_dims are offset dims,
 * inserted_window_dims collapsed dims, input_batching_dims operand batching
 * dims, scatter_indices_batching_dims index batching dims and
 * scatter_dims_to_operand_dims the start index map. */
#ifndef SHARDC_GATHER_H
#define SHARDC_GATHER_H
#include <stdbool.h>
#include <stdint.h>
#include "shardc/type.h"

typedef struct GatherDims {
    int num_offset, num_collapsed, num_operand_batching, num_index_batching, num_map, num_slice_sizes;
    int64_t offset[SHARDC_MAX_RANK];
    int64_t collapsed[SHARDC_MAX_RANK];
    int64_t operand_batching[SHARDC_MAX_RANK];
    int64_t index_batching[SHARDC_MAX_RANK];
    int64_t map[SHARDC_MAX_RANK];
    int64_t slice_sizes[SHARDC_MAX_RANK]; /* gather only */
    int64_t index_vector_dim;
} GatherDims;

struct Op;
/* Reads a verified gather's or scatter's dimension numbers (absent lists
 * read as empty). */
void op_gather_dims(const struct Op *op, GatherDims *g);
/* The operand index of a gather's start indices (1) or a scatter's
 * indices (N: after its N inputs). */
int op_gather_indices_index(const struct Op *op);
/* A scatter's update computation as a combiner name ("add", ... or
 * "replace"): its `combiner`, or its region when every return is one
 * such op of (cur_i, upd_i), all one kind (the fast path and the
 * partitioner's strategies); NULL for any other region. */
const char *op_scatter_combiner(const struct Op *op);

/* Whether d is one of the n entries of list. */
static inline bool gather_dims_has(const int64_t *list, int n, int64_t d)
{
    for (int i = 0; i < n; i++)
        if (list[i] == d)
            return true;
    return false;
}

/* The index of d in the n entries of list, or -1. */
static inline int gather_dims_find(const int64_t *list, int n, int64_t d)
{
    for (int i = 0; i < n; i++)
        if (list[i] == d)
            return i;
    return -1;
}

#endif
