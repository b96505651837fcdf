/* Auto-sharding (docs/auto_sharding.md): choose the shardings of the values
 * a program leaves unannotated with a cost model and an integer linear
 * program, as Alpa and XLA's auto-sharding pass do. Every op with a factor
 * rule gets candidate strategies (assignments of mesh axes to its
 * factors), each with a compute and a collective cost; every use of a
 * value a resharding cost from the partitioner's own reshard planner; CBC
 * picks one strategy per op under an optional per-device memory budget.
 * The choice is written as closed shardings on the IR, which propagation
 * and partitioning then complete as for any annotated program. */
#ifndef SHARDC_AUTOSHARD_H
#define SHARDC_AUTOSHARD_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "shardc/config.h"
#include "shardc/ir.h"

typedef enum {
    AUTOSHARD_OFF,
    AUTOSHARD_ILP,      /* --auto-shard, --auto-shard=ilp: the ILP (CBC) */
    AUTOSHARD_GREEDY,   /* --auto-shard=greedy: each op its cheapest strategy, in program order */
} AutoShardMode;

enum { AUTOSHARD_DEFAULT_SECONDS = 30 };

typedef struct AutoShardOptions {
    AutoShardMode mode;
    int64_t memory_budget;      /* bytes per device; 0: no budget */
    double time_limit;          /* seconds the solver may take; 0: the default */
    const Config *config;       /* the cost constants (`auto_shard:`), or NULL */
    bool explain;               /* keep the winner/runner-up lines */
    bool fewest_bytes_reshards; /* cost reshards as --reshard-plan=fewest-bytes
                                   plans them (the partitioner's choice) */
} AutoShardOptions;

/* What the search did, summed over the functions it sharded. */
typedef struct AutoShardReport {
    int functions;              /* sharded by the search */
    int ops, strategies, tied;  /* nodes, their candidates, nodes tied to an earlier layer */
    int variables, constraints; /* of the ILPs */
    double solve_seconds;
    double predicted_seconds;   /* the model's cost of the chosen plan */
    int64_t predicted_bytes;    /* its collectives' bytes per device */
    int64_t peak_bytes;         /* its largest live set per device */
    char *explain;              /* --explain lines (malloc'd), or NULL */
    size_t explain_len, explain_cap;
} AutoShardReport;

/* Chooses and writes the shardings of every function with a mesh. False
 * after reporting errors (an infeasible memory budget); a search that
 * cannot run warns and leaves the function to propagation. */
bool autoshard_module(Module *m, DiagEngine *diag, const AutoShardOptions *options, AutoShardReport *report);
void autoshard_report_free(AutoShardReport *report);

#endif
