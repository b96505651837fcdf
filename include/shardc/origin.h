/* Where each propagated axis came from: for every value and dim, the value
 * its axes were taken from and the op they travelled through. Following the
 * chain back ends at a user annotation (--explain). */
#ifndef SHARDC_ORIGIN_H
#define SHARDC_ORIGIN_H
#include <stdio.h>
#include "shardc/ir.h"

typedef struct DimOrigin {
    const Value *from;  /* NULL: not sharded by propagation, or (with `loc`)
                           a fixed spec: a shard_map's in_specs (`via`) or
                           a function result's annotation */
    const Op *via;      /* NULL: a user annotation on the value itself */
    int from_dim;       /* the dim of `from` that held the axes */
    Loc loc;            /* annotations and specs: where they are written */
} DimOrigin;

typedef struct OriginTable {
    int num_values;
    DimOrigin **dims;   /* by Value.id; each an array over the value's rank */
} OriginTable;

void origins_init(OriginTable *t, Arena *arena, int num_values);
DimOrigin *origins_of(OriginTable *t, Arena *arena, const Value *v);
/* Print the explanation for one value (or all when name is NULL). */
void origins_explain(FILE *out, OriginTable *t, const Module *m, const char *name);
/* Whether a value of that name exists outside shard_map bodies; else an
 * error naming it. */
bool origins_check_name(const Module *m, const char *name, DiagEngine *diag);

#endif
