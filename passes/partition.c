/* The partition pass: each function becomes one SPMD program
 * (src/partition/partition.c); --stats are collected into the context,
 * for the entry function if one is chosen (options->entry). */
#include "shardc/pass.h"
#include "shardc/partition.h"

static bool run_partition(Module *m, PassContext *ctx)
{
    PartitionStats local = {0};
    PartitionOptions opt = {ctx->options->entry, (ReshardPlanChoice)ctx->options->reshard_plan};
    return partition_module(m, ctx->diag, ctx->stats ? ctx->stats : &local, &opt);
}

const Pass pass_partition = {"partition", EMIT_PARTITIONED, run_partition, NULL};
