/* StableHLO + Shardy (sdy) MLIR in and out (src/mlir/, docs/mlir.md):
 * the text `jax.jit(f).lower(...).as_text()` and `sdy_opt` print. */
#ifndef SHARDC_MLIR_H
#define SHARDC_MLIR_H
#include <stddef.h>
#include <stdio.h>
#include "shardc/diag.h"
#include "shardc/ir.h"

/* Parse MLIR text (named `file` in diagnostics; register it with
 * diag_add_source first) and map it onto the IR. Reports located errors
 * through diag and returns NULL if there were any; like parse_module, the
 * IR is not verified yet. */
Module *mlir_read_module(const char *file, const char *text, size_t len, DiagEngine *diag);

typedef struct MlirReadOptions {
    /* mlir-opt's -allow-unregistered-dialect: an op of a dialect shardc
     * does not know is read as an opaque op (docs/mlir.md), not refused */
    bool allow_unregistered;
    /* dynamic dims and unranked tensors kept on function arguments and
     * results that no op uses, and read wherever Shardy's verifier
     * reports them (`shardc opt`); else refused (MLIR_SHAPES_STATIC) */
    bool allow_dynamic;
} MlirReadOptions;

/* mlir_read_module with options (NULL: the defaults, all false). */
Module *mlir_read_module_with(const char *file, const char *text, size_t len, const MlirReadOptions *options,
                              DiagEngine *diag);

/* Where dynamic dims and unranked tensors may be (static_shapes.c). */
typedef enum {
    MLIR_SHAPES_STATIC,     /* nowhere: compile, run, and opt's passes that compute with dims */
    MLIR_SHAPES_BOUNDARY,   /* on function arguments and results that no op uses (`shardc opt`) */
} MlirShapeScope;
/* True if every value of m (and every function result) has a type scope
 * allows; else false, with one located error naming the first value that
 * does not ("WHAT takes static shapes only"); `propagating` words an op's
 * dynamic result as Shardy's propagation does. */
bool mlir_check_shapes(const Module *m, MlirShapeScope scope, const char *what, bool propagating, DiagEngine *diag);

/* Whether f was read as `func.func private` (not an entry point). */
bool mlir_func_is_private(const Func *f);

/* Shardy's handling of calls in its propagation pipeline (calls.c):
 * import turns every call into a named_computation with its own copy of
 * the callee (so each call site propagates on its own) and drops the
 * functions called; export turns each named computation back into a
 * private function and a call, merging copies of one function whose
 * argument and result shardings agree. */
bool mlir_import_func_calls(Module *m, DiagEngine *diag);
bool mlir_export_named_computations(Module *m);
/* Shardy's aggressive mode (dedup-functions-fully=true; calls.c): calls
 * stay calls, and func_data_flow_edge ops on the arguments of every
 * function but the entry and on call results let propagation cross
 * functions; after it, each edge's sharding sinks onto its operand,
 * functions take their returned values' shardings as result shardings and
 * calls their callees', with reshards where a call's users had another. */
void mlir_add_func_data_flow_edges(Module *m);
void mlir_sink_func_data_flow_edges(Module *m);

/* Shardy's export for unreduced values (issue 16): an sdy.all_reduce
 * where an unreduced value meets a use that does not keep all its
 * unreduced axes (export_unreduced.c). */
void mlir_export_unreduced(Module *m);
/* Make op (a one-operand OP_ALL_REDUCE) print as `sdy.all_reduce` over
 * `reduce` on `mesh`, combining by `kind`. */
void mlir_all_reduce_attrs(Module *m, Op *op, const Mesh *mesh, const AxisList *reduce, UnreducedOp kind);
/* Shardy's -sdy-insert-explicit-reshards (explicit_reshards.c): an
 * sdy.reshard on each operand and result whose sharding differs from the
 * one the op's factor assignment (the partitioner's, in the global view)
 * gives it, an sdy.all_reduce after an op over the axes its reduction
 * factors were sharded by, and a reshard before each return whose value
 * is not sharded as the function's result. Without `full` (Shardy's
 * enable-full-version=false) only concatenates whose operands differ from
 * their result, dots whose result alone conflicts, and unreduced results.
 * An op with a result on a maximal mesh runs on that device: its operands
 * are resharded to it and its results back (Shardy's single-device
 * operations). False after an error (a function argument or result on a
 * maximal mesh, an op's results on different devices). */
bool mlir_insert_explicit_reshards(Module *m, DiagEngine *diag, bool full);
/* Shardy's -sdy-reshard-to-collectives (reshard_collectives.c): each
 * sdy.reshard on one mesh becomes the sdy.all_slice, collective_permute,
 * all_to_all and all_gather ops the partitioner's reshard plan makes. */
void mlir_reshard_to_collectives(Module *m);

/* Shardy's -sdy-convert-global-to-local (global_to_local.c) and its
 * pass options: every tensor takes its per-device (local) type under its
 * sharding, the sdy collectives become StableHLO collectives over
 * replica groups (or dynamic slices by the partition id), ops whose
 * attributes hold global sizes (iota, constant, slice, ...) are rewritten
 * for the local shard. False, with a located error, where Shardy fails
 * (a dim its shards do not divide). */
typedef struct MlirGlobalToLocalOptions {
    bool per_dim_all_gather;    /* per-dim-all-gather=true: one all_gather per dim */
    bool enable_rgv3;           /* enable-rgv3=true: replica groups as mesh axes */
    bool combine_reduce_scatter; /* combine-multi-dimension-reduce-scatter=true */
    int64_t replica_count, partition_count; /* the device id's source (default 1, 1) */
} MlirGlobalToLocalOptions;
bool mlir_convert_global_to_local(Module *m, const MlirGlobalToLocalOptions *options, DiagEngine *diag);

/* Shardy's -sdy-populate-op-sharding-rules: every op the registry has a
 * rule for (built as Shardy's conservative-propagation option says) gets
 * it as its sdy.sharding_rule attribute, over its StableHLO operands; an
 * op with one keeps it. A custom call the registry does not know gets
 * Shardy's warning, the first one only while *warned is false. */
void mlir_populate_op_sharding_rules(Module *m, bool conservative, DiagEngine *diag, bool *warned);

/* Shardy's -sdy-constant-or-scalar-splitter (split_constants.c): each use
 * of a constant sub-computation (constants, iotas, and the elementwise,
 * broadcast, reshape and slice ops, named computations and calls over
 * them) or of a broadcast scalar that is not itself one gets its own copy,
 * so each can be sharded as its user wants; a call copied calls a copy of
 * its callee (`@foo_0`, with sdy.original_func_name = "foo"). Constants
 * then print as sdy.constant. False (reported) where copying functions
 * would not end: recursive calls, or more than 2^20 ops copied. */
bool mlir_split_constants(Module *m, DiagEngine *diag);

/* Every constant printed as sdy.constant (sdy = true: what Shardy's
 * constant splitter makes of them) or as stablehlo.constant (its export). */
void mlir_spell_constants(Module *m, bool sdy);

/* Print m as sdy_opt prints StableHLO + sdy MLIR: `module { sdy.mesh ...
 * func.func ... }`, values renumbered as MLIR does for a module read from
 * MLIR, kept as written for one read from .shir. */
void mlir_print_module(FILE *out, const Module *m);

/* mlir-opt's -verify-diagnostics (expect.c): the annotations of a text. */
typedef struct MlirExpectations MlirExpectations;
MlirExpectations *mlir_expect_parse(Arena *arena, const char *file, const char *text, size_t len);
int mlir_expect_count(const MlirExpectations *e);
/* From now on diag's diagnostics are matched against the annotations;
 * mismatches are reported through report. */
void mlir_expect_begin(MlirExpectations *e, DiagEngine *diag, DiagEngine *report);
void mlir_expect_sink(void *user, DiagLevel level, Loc loc, const char *message);
/* Reports each annotation not met; true if every annotation was met and
 * nothing unexpected was emitted. */
bool mlir_expect_finish(MlirExpectations *e);

#endif
