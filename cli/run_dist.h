/* `shardc run --transport=mpi` (docs/distributed.md): what the command does
 * differently when its devices are spread over MPI processes. With the
 * default in-process transport every function here is a no-op or the
 * single-process behaviour, so cmd_run.c calls them unconditionally. */
#ifndef SHARDC_RUN_DIST_H
#define SHARDC_RUN_DIST_H
#include <stdbool.h>
#include <stdio.h>
#include "shardc/diag.h"
#include "shardc/interp.h"
#include "shardc/ir.h"
#include "shardc/transport.h"

typedef struct RunDist {
    TransportWorld *world;   /* NULL: in-process */
    FILE *diag_stream;       /* where this process's diagnostics go */
    char *diag_text;         /* off the root: they are kept, and their first line printed on failure */
    size_t diag_len;
} RunDist;

/* --transport=local|mpi (NULL: local). -1 to go on, else an exit status
 * (reported). Joins the MPI job for mpi. */
int run_dist_open(RunDist *d, const char *transport, int *argc, char ***argv);
/* The root holds the global values: inputs, the reference, the report. */
bool run_dist_is_root(const RunDist *d);
/* Every top-level shard_map mesh of f needs one device per process
 * (reported by every process). */
bool run_dist_check_meshes(const RunDist *d, DiagEngine *diag, const Module *m, const Func *f);
/* Whether an --inputs file name is a per-device pattern ("a.{device}.npy"). */
bool run_dist_is_pattern(const char *path);
/* Argument `arg` (of the SPMD entry, with its sharding) from per-device
 * files: each device's block is the file named by the pattern with its id.
 * The devices holding distinct blocks read them (in-process: all here) and
 * the root assembles *out; elsewhere *out stays NULL. Reported on failure. */
bool run_dist_read_pattern(RunDist *d, DiagEngine *diag, const char *pattern, const Value *arg, Tensor **out);
/* FNV-1a of n bytes, continuing from h (start from RUN_DIST_HASH_SEED). */
#define RUN_DIST_HASH_SEED 14695981039346656037ull
uint64_t run_dist_hash(uint64_t h, const void *data, size_t n);
/* Every process's fingerprint of what decides its results must equal the
 * root's: a mismatch (an MPMD launch, a stale file on one host, other
 * flags) is reported at `where`, naming the ranks that differ, by every
 * process. In-process: true. */
bool run_dist_check_fingerprint(RunDist *d, DiagEngine *diag, uint64_t fingerprint, Loc where);
/* Sum the SPMD run's collective traffic and device peaks into the root's stats. */
bool run_dist_merge_stats(RunDist *d, InterpStats *stats);
/* The run failed on this process: in-process, returns the exit status 1;
 * distributed, says why and ends the job (does not return). */
int run_dist_fail(RunDist *d);
/* The end: every process exits with the root's verdict. */
int run_dist_close(RunDist *d, bool ok);

#endif
