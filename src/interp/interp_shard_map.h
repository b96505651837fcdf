/* Shared by the shard_map runner's files: interp_shard_map.c (threads,
 * split, assemble) and interp_distributed.c (the same over the processes of
 * a distributed run, docs/distributed.md). */
#ifndef SHARDC_INTERP_SHARD_MAP_H
#define SHARDC_INTERP_SHARD_MAP_H
#include <pthread.h>
#include "interp/interp_internal.h"

typedef struct ShardMapRun ShardMapRun;

typedef struct DeviceRun {
    ShardMapRun *run;
    ExecCtx exec;
    TensorAccounting acct;   /* this device's bytes during the run */
    DeviceCtx device;
    Tensor **blocks;         /* the body's results on this device */
    Tensor **operands;       /* lockstep: the body's operand blocks, held until its end */
    Tensor **received;       /* distributed, off the root: operand blocks sent by the root */
    bool local;              /* runs in this process */
    bool started;            /* its thread was started */
    bool ok;
} DeviceRun;

struct ShardMapRun {
    const Op *op;
    const Mesh *mesh;
    const Sharding **in_specs, **out_specs;
    Tensor *const *globals;
    uint64_t manual_mask;
    int64_t *active;
    int64_t num_active;
    TransportWorld *world;   /* a top-level shard_map of a distributed run, else NULL */
    int64_t *owner;          /* distributed: the process of each mesh position */
    Transport *transport;
    DeviceRun *devices;
    pthread_t *threads;      /* by active index */
    bool lockstep;           /* run by the lockstep engine (lockstep.c), else one thread per device */
};

/* A device's operand blocks (new references in blocks[i]). */
bool interp_device_operands(DeviceRun *d, Tensor **blocks);
/* Fold the local devices' failures into x; false if any device failed. */
bool interp_adopt_devices(ExecCtx *x, const ShardMapRun *r);

/* The lockstep engine (lockstep.c): whether every collective of the body
 * is one of its own ops (not inside a while, case or call), and the run. */
bool interp_lockstep_fits(const Module *m, const Block *body);
bool interp_lockstep_run(ExecCtx *x, ShardMapRun *r);

/* Distributed runs (interp_distributed.c). Every process calls these, in
 * this order, for every top-level shard_map. */
/* The mesh must have one device per process; the transport comes from the world. */
bool dist_open(ExecCtx *x, ShardMapRun *r);
/* The root sends each remote device its operand blocks; the others receive theirs. */
bool dist_scatter_operands(ExecCtx *x, ShardMapRun *r);
/* Result `res` assembled on the root from every process's blocks (NULL elsewhere). */
bool dist_gather_result(ExecCtx *x, const ShardMapRun *r, int res, Tensor **out);

#endif
