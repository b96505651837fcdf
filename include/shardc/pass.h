/* The pass interface: every stage after parsing is a Pass over a Module,
 * run in the order of the pipeline list (passes/pipeline.c). */
#ifndef SHARDC_PASS_H
#define SHARDC_PASS_H
#include <stdbool.h>
#include <stdint.h>
#include "shardc/diag.h"
#include "shardc/ir.h"

typedef enum {
    EMIT_IR,            /* the verified input, canonically printed */
    EMIT_RULES,         /* ... with each op's sharding rule */
    EMIT_PROPAGATED,    /* every value's sharding */
    EMIT_PARTITIONED,   /* the SPMD program */
    EMIT_DEVICES,       /* per-device view */
} EmitKind;

typedef struct CompileOptions {
    EmitKind emit;
    int propagation;            /* PropagationMode: aggressive (0) or basic */
    const char *explain;        /* --explain[=%name]: "" for all values */
    /* --func, or with --stats the function `shardc run` would run: verify
     * checks it exists, --stats count it alone. NULL: every function. */
    const char *entry;
    bool time_passes;
    /* --config=FILE.yaml: meshes and logical-axis rules, or NULL */
    const struct Config *config;
    /* --max-bytes: the most bytes one value's tensor may take, checked
     * after verification; `shardc run` also refuses to allocate past it.
     * 0 means SHARDC_DEFAULT_MAX_BYTES (read it with limits_max_bytes). */
    int64_t max_bytes;
    /* No warning where shardings of one factor conflict: `shardc opt`
     * prints what sdy_opt prints, and Shardy resolves conflicts silently. */
    bool quiet_conflicts;
    /* A custom op may call a target the module does not define (a runtime
     * custom_call): `shardc opt` propagates programs it never runs. */
    bool external_custom_targets;
    /* --propagation=conservative: Shardy's conservative propagation (no
     * sub-axes made, resized dims not sharded further) on the aggressive
     * strategy; `shardc opt` also on the basic one. */
    bool conservative_propagation;
    /* Calls are not inlined: `shardc opt` propagates as Shardy does, whose
     * pipeline makes each call a named computation (mlir_import_func_calls)
     * and whose single passes leave calls alone. */
    bool keep_calls;
    /* Propagation does not first apply closed sharding constraints to
     * their inputs: `shardc opt` does that in its import, as Shardy's
     * import pipeline does; its -sdy-*-propagate passes alone do not. */
    bool constraints_not_applied;
    /* The verifier does not check that a sharding group's values have one
     * shape and one shard_map: `shardc opt` running no pass that reads
     * groups (Shardy checks them in its group import, not its verifier). */
    bool groups_unchecked;
    /* --pass-pipeline=a,b,...: run exactly these passes (checked by
     * pipeline_check_list), or NULL: the passes `emit` needs. */
    const char *pass_list;
    /* --print-ir-before=, --print-ir-after=: comma lists of pass names
     * whose input or output is printed to stderr, "*" for every pass
     * (--print-ir-after-all), or NULL. */
    const char *print_before, *print_after;
    /* --auto-shard[=MODE] (an AutoShardMode; 0: off), --memory-budget=BYTES
     * (0: none), --auto-shard-time=SECONDS (0: the default). */
    int auto_shard;
    int64_t memory_budget;
    double auto_shard_time;
    /* --reshard-plan=shardy|fewest-bytes: a ReshardPlanChoice (0: shardy),
     * for the partitioner and the auto-sharding cost model alike. */
    int reshard_plan;
} CompileOptions;

struct OriginTable;
struct PartitionStats;

typedef struct PassContext {
    DiagEngine *diag;
    const CompileOptions *options;
    struct OriginTable *origins;    /* filled by propagation, for --explain */
    struct PartitionStats *stats;   /* filled by partitioning, for --stats */
    struct AutoShardReport *autoshard; /* filled by auto-shard, or NULL */
} PassContext;

typedef struct Pass {
    const char *name;
    /* The last emit kind that still needs this pass to have run. */
    EmitKind needed_from;
    /* Returns false if it reported errors; the pipeline then stops. */
    bool (*run)(Module *m, PassContext *ctx);
    /* An opt-in pass: runs (and is printed around) only when this says
     * so; --list-passes lists the default pipeline without it. NULL:
     * always. */
    bool (*enabled)(const CompileOptions *options);
} Pass;

extern const Pass pass_verify;
/* JAX's check_vma: out_specs that promise replication must be provable. */
extern const Pass pass_check_vma;
/* Every value within --max-bytes (limits.h). */
extern const Pass pass_limits;
extern const Pass pass_logical_axes;
extern const Pass pass_inline_calls;
/* JAX explicit-axis shardings ("sharding in types"), before propagation. */
extern const Pass pass_explicit_axes;
/* --auto-shard: shardings chosen by a cost model and an ILP (src/autoshard/). */
extern const Pass pass_auto_shard;
extern const Pass pass_propagate;
extern const Pass pass_partition;
/* check_vma = false on emitted shard_maps whose replication JAX's rules
 * cannot prove (passes/check_vma.c). */
extern const Pass pass_relax_vma;

/* Run the pipeline up to what `options->emit` needs, or the passes of
 * `options->pass_list`, printing the IR around the passes named by
 * `options->print_before`/`print_after`. */
bool pipeline_run(Module *m, PassContext *ctx);

/* The passes in the order they run, NULL-terminated: the one list every
 * pass name comes from (--list-passes, --pass-pipeline, --print-ir-*). */
const Pass *const *pipeline_passes(void);
const Pass *pipeline_find(const char *name, size_t len);

/* Whether a comma list of pass names names `pass` ("*" names every pass). */
bool pipeline_list_names(const char *list, const Pass *pass);
/* Checks a comma list of pass names: each known, and, for a pipeline
 * (`ordered`), each at most once, in the order of pipeline_passes(),
 * starting with verify and holding the passes each needs. NULL when
 * fine, else the message (in buf). */
const char *pipeline_check_list(const char *list, bool ordered, char *buf, size_t size);
/* When no pass of a comma list (not "*") runs under these options, the
 * first it names, else NULL: --print-ir-after=propagate with --emit=ir
 * would print nothing. */
const Pass *pipeline_none_run(const char *list, const CompileOptions *options);

#endif
