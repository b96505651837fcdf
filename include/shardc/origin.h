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

/* One function's values as propagation left them: later passes (the
 * partitioner moves them into a shard_map body, on local types) must not
 * change what --explain says. */
typedef struct OriginFunc {
    const char *name;
    int num_values;
    const Value **values;       /* in program order */
    const Sharding **shardings; /* each value's sharding at the fixed point */
} OriginFunc;

typedef struct OriginTable {
    int num_values;
    DimOrigin **dims;   /* by Value.id; each an array over the value's rank */
    char **missing;     /* by Value.id, or NULL: what did not reach the value, and why */
    int num_funcs, funcs_capacity;
    OriginFunc *funcs;  /* grown by origins_snapshot_func */
} OriginTable;

void origins_init(OriginTable *t, Arena *arena, int num_values);
DimOrigin *origins_of(OriginTable *t, Arena *arena, const Value *v);
/* Add a line to what --explain says did not reach v (once per text). */
void origins_add_missing(OriginTable *t, Arena *arena, const Value *v, const char *line);
/* Record f's values and shardings at propagation's fixed point. */
void origins_snapshot_func(OriginTable *t, Arena *arena, Func *f);
/* Print the explanation for one value (or all when name is NULL), from the
 * snapshots when propagation ran, else from the module as it is. */
void origins_explain(FILE *out, OriginTable *t, const Module *m, const char *name);
/* Whether a value of that name exists outside shard_map bodies (or was
 * snapshot by propagation); else an error naming it. */
bool origins_check_name(const OriginTable *t, const Module *m, const char *name, DiagEngine *diag);

#endif
