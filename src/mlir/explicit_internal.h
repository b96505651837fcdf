/* What the explicit-reshard passes share (explicit_reshards.c,
 * reshard_collectives.c). */
#ifndef SHARDC_MLIR_EXPLICIT_INTERNAL_H
#define SHARDC_MLIR_EXPLICIT_INTERNAL_H
#include "shardc/ir.h"
#include "shardc/partition.h"

/* A closed sharding with `axes` per dim on `mesh`. */
Sharding *mlir_closed_sharding(Module *m, const Mesh *mesh, const DimAxes *axes);
/* v's sharding, or through propagation barriers the one of their input
 * (Shardy's getShardingBypassingBarriers). */
Sharding *mlir_sharding_bypassing_barriers(const Value *v);

#endif
