/* The interpreter: runs .shir functions on dense tensors (docs/interpreter.md).
 *
 * A function runs with global semantics, one op at a time through the
 * kernels (kernels.h). A `shard_map` splits its operands into per-device
 * blocks by its in_specs and runs its body once per device of the mesh --
 * in lockstep on a worker pool, or one thread per device where the body's
 * control flow needs it -- the devices meeting in collectives through a
 * transport (transport.h); the results are assembled by the out_specs. After the
 * partition pass a function's whole body is such a shard_map, so running
 * it executes the SPMD program on simulated devices.
 *
 * Runtime errors (a kernel refusing its operands, a collective outside a
 * shard_map, ...) are reported through the DiagEngine at the failing op,
 * prefixed with the device when a device failed; the run then returns
 * false. Nothing here aborts the process. */
#ifndef SHARDC_INTERP_H
#define SHARDC_INTERP_H
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "shardc/cost.h"
#include "shardc/diag.h"
#include "shardc/ir.h"
#include "shardc/tensor.h"
#include "shardc/transport.h"

/* One device's traffic in one collective kind, counted by the definition
 * of shardc/cost.h as the op runs. `calls` counts executions of the op
 * (once per run by the mesh, not per device). */
typedef struct InterpCollectiveStats {
    int64_t calls;
    int64_t bytes;                /* received */
    int64_t sent;
} InterpCollectiveStats;

typedef struct InterpStats {
    CostTally traffic;            /* by device id and collective kind: measured */
    int64_t host_peak_bytes;      /* global-semantics values */
    int64_t num_devices;          /* entries in device_peak_bytes (and traffic) */
    int64_t *device_peak_bytes;   /* by device id: most bytes live at once */
    int64_t shard_map_runs;
} InterpStats;

typedef enum { INTERP_ENGINE_AUTO, INTERP_ENGINE_THREADS } InterpEngine;

/* A timeline of a run (`shardc run --trace`): one event per executed op on
 * the host or on a device, collectives included. Devices record
 * concurrently, hence the lock. */
typedef struct InterpTraceEvent {
    const Op *op;
    int64_t device;           /* device id, or -1: the host (global semantics) */
    double start_us, dur_us;  /* CLOCK_MONOTONIC microseconds */
    int64_t bytes;            /* a collective: bytes this device received from others; else its results' */
} InterpTraceEvent;

typedef struct InterpTrace {
    pthread_mutex_t lock;
    InterpTraceEvent *events;
    int64_t num, cap;
    bool incomplete;          /* out of memory: events were dropped */
} InterpTrace;

void interp_trace_init(InterpTrace *t);
void interp_trace_free(InterpTrace *t);

typedef struct InterpCtx {
    DiagEngine *diag;
    TensorAccounting host_acct;
    InterpStats stats;
    pthread_mutex_t stats_lock;   /* devices of nested shard_maps merge concurrently */
    /* A distributed run (docs/distributed.md), or NULL: this process runs
     * only its own devices of each top-level shard_map, and values with
     * global semantics live on the root process alone (the others walk the
     * same ops without them; their results are NULL). Set before running. */
    TransportWorld *world;
    /* Iterations a `while` may run before the run stops with an error at
     * it (a loop that never ends is a located error, not a hang). */
    int64_t max_steps;
    /* How shard_maps run (docs/interpreter.md, "Engines"): AUTO runs the
     * devices in lockstep on `threads` workers (0: one per core) where the
     * body allows it, else one thread per device; THREADS always the latter. */
    InterpEngine engine;
    int threads;
    struct InterpPool *pool;      /* the lockstep workers, made on first use */
    InterpTrace *trace;           /* NULL, or where every executed op is recorded */
    /* The numeric libraries of its kernels, loaded by the first that needs
     * them (kern_libs.h); NULL when out of memory (those kernels fail). */
    struct KernLibs *libs;
} InterpCtx;

enum { INTERP_DEFAULT_MAX_STEPS = 1000000 };

void interp_ctx_init(InterpCtx *ic, DiagEngine *diag);
void interp_ctx_free(InterpCtx *ic);

/* Run f (a function of m) on inputs (one per argument, matching its types;
 * not consumed). On success outputs[i] holds a new reference to result i,
 * no longer charged to ic's accounting, so it may outlive ic. On failure
 * reports through ic->diag, leaves outputs NULL and returns false. The
 * stats accumulate over runs. */
bool interp_run_func(InterpCtx *ic, const Module *m, const Func *f, Tensor *const *inputs, Tensor **outputs);

/* ---- presentation (visualize.c) --------------------------------------------- */

/* The array as NumPy's str() prints it ("[[1. 2.]\n [3. 4.]]"): floats in
 * 'maxprec' mode with precision 8 (scientific when the magnitudes call for
 * it), line width 75, summarised with "..." beyond 1000 elements. No
 * trailing newline. */
void visualize_print_array_numpy(FILE *out, const Tensor *t);

/* The device layout of a `type` value under sharding s (NULL: no sharding,
 * i.e. replicated), as a grid of boxes labelled with the device ids holding
 * each block, like jax.debug.visualize_array_sharding. Rank 2 draws dims 0
 * and 1; a higher rank its last two sharded dims (under a caption), one
 * grid per block of any sharded dims before them; the other dims are
 * whole in every box. */
void visualize_sharding(FILE *out, const Sharding *s, const TensorType *type);
/* The same as an SVG document under `title`. */
void visualize_sharding_svg(FILE *out, const Sharding *s, const TensorType *type, const char *title);

#endif
