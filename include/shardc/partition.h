/* The SPMD partitioner (docs/partitioning.md).
 *
 * After propagation every value has a closed sharding. Partitioning turns
 * each function into one SPMD program: its body becomes a shard_map over all
 * mesh axes whose region holds the per-device program — every op on local
 * shapes, with the collectives its shardings need. */
#ifndef SHARDC_PARTITION_H
#define SHARDC_PARTITION_H
#include <stdbool.h>
#include "shardc/cost.h"
#include "shardc/ir.h"
#include "shardc/propagate.h"

/* ---- reshard planning (reshard_plan.c, reshard_shardy.c) ----------------
 * A reshard of one tensor from one sharding to another, as a sequence of
 * collectives: partial results reduced first, then Shardy's
 * reshard-to-collectives rounds (all-slices, a collective-permute,
 * all-to-alls, all-gathers), so memory stays low and nothing is
 * replicated when a cheaper plan exists (docs/partitioning.md). */

typedef enum {
    STEP_ALL_SLICE,         /* append axes to dim `dim` (local slicing) */
    STEP_ALL_TO_ALL,        /* move axes from dim `src_dim` to dim `dim` */
    STEP_COLLECTIVE_PERMUTE,/* same shard counts, other placement */
    STEP_ALL_GATHER,        /* remove the minor-most axes of dim `dim` */
    STEP_ALL_REDUCE,        /* combine partial results over axes */
    STEP_REDUCE_SCATTER,    /* combine and keep one piece along dim `dim` */
} ReshardStepKind;

typedef struct DimAxes {
    int rank;
    AxisList dims[SHARDC_MAX_RANK];
} DimAxes;

/* One dim-to-dim move of an all-to-all: the step's axes [first, first +
 * count) leave the minor end of dim `src_dim` and are appended to dim `dim`. */
typedef struct ReshardMove {
    int dim, src_dim, first, count;
} ReshardMove;

typedef struct ReshardStep {
    ReshardStepKind kind;
    int dim, src_dim;
    AxisList axes;          /* the group of the collective, major to minor */
    DimAxes after;          /* the tensor's sharding after the step */
    /* all_to_all: the moves, in the group's order. One is a plain tiled
     * all_to_all; consecutive moves between other dims are merged into one
     * all_to_all over all their axes (every pair of devices exchanges one
     * block, (n-1)/n of the tensor, less than the moves one by one). */
    int num_moves;
    ReshardMove moves[SHARDC_MAX_RANK];
} ReshardStep;

enum { RESHARD_MAX_STEPS = 64 };

typedef struct ReshardPlan {
    int num_steps;
    ReshardStep steps[RESHARD_MAX_STEPS];
    bool full_replication;  /* some step left a sharded tensor whole on
                               every device (the target, or on the way) */
    int reorder_step;       /* the collective-permute onto the target's
                               device order (ReshardOptions), or -1 */
} ReshardPlan;

/* What the planner may know beyond the two layouts. */
typedef struct ReshardOptions {
    const int64_t *shape;   /* the global dims (an all-slice on a dim an
                               all-to-all leaves must divide it); NULL:
                               every size divides */
    bool even_steps;        /* no step may leave uneven a dim both ends
                               divide (the partitioner's blocks) */
    bool fewest_bytes;      /* where shardc's greedy plan moves fewer
                               bytes than Shardy's, take it (needs shape) */
    bool reorder_devices;   /* the target's mesh orders the devices
                               otherwise: one collective-permute moves
                               the blocks (Shardy's, on MLIR meshes) */
} ReshardOptions;

typedef enum { REDUCE_SUM, REDUCE_MAX, REDUCE_MIN, REDUCE_MEAN } ReductionKind;

/* Rank `rank`, every dim empty. Only dims below rank, and axes below each
 * count, are ever read: a DimAxes is 6 KB, and zeroing whole ones for
 * every tensor of every op was a tenth of partitioning. */
void reshard_dim_axes_clear(DimAxes *out, int rank);
void reshard_dim_axes_from_sharding(DimAxes *out, const Sharding *s, int rank);
/* The same axes on every dim below a's rank. */
bool reshard_dim_axes_equal(const DimAxes *a, const DimAxes *b);
/* Plan from `from` (with partial results pending over `partial`) to
 * `to`; `opt` may be NULL. False if no plan exists (too many steps). */
bool reshard_plan(ReshardPlan *plan, const Mesh *mesh, const DimAxes *from, const AxisList *partial,
                  const DimAxes *to, const ReshardOptions *opt);
const char *reshard_reduction_name(ReductionKind kind);
/* Shardy's split of a reshard that makes a value unreduced over the new
 * axes `added` (out = in + replicated-to-unreduced + sharded-to-unreduced,
 * its insertUnreducedCollectives): a dim whose axes in `want` are a strict
 * prefix of those in `have`, shedding only axes of `added`, keeps its axes
 * until they become unreduced in place (`shed` per dim, all of them in
 * `s2u`); every other dim that differs takes want's axes first. `tmp` is
 * the layout before the unreduced collectives; true when it differs from
 * `have` (a reshard first). The partitioner and the MLIR export both use it. */
bool reshard_unreduced_split(const DimAxes *have, const DimAxes *want, const AxisList *added, DimAxes *tmp,
                             DimAxes *shed, AxisList *s2u);
/* Bytes one device receives in a step, from its local bytes before and
 * after it (bandwidth-optimal algorithms; what --stats reports). */
int64_t reshard_step_bytes(const ReshardStep *s, int64_t in_bytes, int64_t out_bytes);

/* Which factors may be sharded unevenly (padded) for an op: none (a
 * partition function must not see padding), pass-through ones (the op is
 * independent along them), or reduction ones too (the partitioner masks
 * the padding to the reduction's identity first). */
typedef enum { UNEVEN_NONE, UNEVEN_PASS_THROUGH, UNEVEN_MASKED_REDUCTIONS, UNEVEN_GLOBAL_VIEW } UnevenPolicy;
/* UNEVEN_GLOBAL_VIEW is Shardy's insert-explicit-reshards, which decides
 * in the global view, for no local op: every factor but need_replication
 * ones may keep its axes (permutation factors too, by Shardy's precedence
 * 1), sizes need not divide, and no axes are dropped for the local op. */

/* ---- factor assignment (factor_assignment.c) ----------------------------
 * One sharding per factor for an op, from its tensors' final shardings,
 * as Shardy's findCommonAxes picks it (docs/partitioning.md "Per op"): the
 * tensors' own axes when they agree, one tensor's layout for a unary op,
 * else factor-axes candidates by the total size of the tensors holding
 * them. need_replication and permutation factors are replicated and an
 * axis goes to one factor only. Axes must
 * divide the factor's dim in every tensor, except where `uneven` allows
 * padding (docs/partitioning.md "Uneven dims"): for whole-dim pass-through
 * factors, and whole-dim reduction factors when the caller masks the
 * padding before reducing. The result is one the local op
 * is valid for: no one-sided factor of a reshape is sharded, and a minor
 * factor of a compound dim only when the factors major to it are fully
 * sharded (sharding less where needed). */
void factor_assignment(AxisList *axes_per_factor, const OpShardingRule *rule, const Mesh *mesh,
                       Sharding *const *shardings, const TensorType *const *types, int count,
                       int num_operands, UnevenPolicy uneven, Arena *scratch);
/* Why the assignment left factor f unsharded for the local op to be valid
 * (a reshape factor one side lacks, a minor factor behind a partly sharded
 * one), as " (...)" for --explain; "" if for neither. */
const char *factor_assignment_unsharded_reason(const OpShardingRule *rule, const AxisList *axes_per_factor, int f);
/* The dim axes tensor t gets under an assignment. */
void factor_assignment_tensor_axes(DimAxes *out, const OpShardingRule *rule, const AxisList *axes_per_factor, int t);

/* ---- statistics (partition_stats.c) -------------------------------------- */
typedef struct CollectiveRecord {
    OpKind kind;
    const Mesh *mesh;
    AxisList axes;
    int64_t bytes_per_device;
    const char *value;      /* the resharded or reduced value */
    Loc loc;                /* the op that needed it */
    const char *result;     /* the collective's result, in the SPMD program */
    const char *reason;     /* why it was needed (--explain) */
    int64_t executions;     /* runs per run of the program: 1, the product of the
                               static trip counts of the loops around it, or
                               -1 inside a loop of unknown trip count */
} CollectiveRecord;

/* A record as kept: its axes in an array of their count, not a whole
 * AxisList (470 bytes a collective, kept until the module goes). */
typedef struct StatsRecord {
    OpKind kind;
    int num_axes;
    const Mesh *mesh;
    const AxisRef *axes;
    int64_t bytes_per_device;
    const char *value, *result, *reason;
    Loc loc;
    int64_t executions;
} StatsRecord;

/* What one run of a program costs per device, counted from its text
 * (cost.c; docs/partitioning.md "Cost metrics"). */
typedef struct CostItem {
    const Op *op;               /* a collective of the program */
    int64_t bytes;              /* the most a device receives in it, per run of the program */
    int64_t executions;         /* its runs per run of the program; -1: in a loop of unknown trip count */
} CostItem;

typedef struct ProgramCost {
    CostTally tally;            /* collectives in shard_map bodies, by device */
    CostItem *items;            /* each collective (malloc'd) */
    int num_items, cap_items;
    int64_t peak_live_bytes;    /* per device: the most bytes live at once */
    int unknown_trips;          /* collectives in loops of unknown trip count: counted once */
    int in_branches;            /* collectives in case branches: the costliest branch counted */
} ProgramCost;

/* Add f's cost (the collectives of its shard_maps, loops multiplied by
 * their static trip counts) to `cost`; false when a figure overflowed or
 * memory ran out (the figures are then lower bounds). */
bool stats_count_program(ProgramCost *cost, const Module *m, const Func *f);
void stats_cost_free(ProgramCost *cost);
/* A counted loop (`while i < n: i += step`, or <=, from constants): its
 * trip count; anything else false. */
bool partition_static_trip_count(const Op *w, int64_t *trips);

typedef struct PartitionStats {
    int count, cap;
    StatsRecord *records;       /* what the partitioner inserted, and why */
    ProgramCost cost;           /* of the program counted (stats_count) */
    int full_replications;
    /* --auto-shard: what its cost model predicted for the plan it chose */
    bool predicted;
    int64_t predicted_bytes, predicted_peak_bytes;
    double predicted_seconds;
} PartitionStats;

void stats_record(PartitionStats *stats, Arena *arena, CollectiveRecord record);
/* Count the cost of the function named `counted` (every function if NULL)
 * into stats->cost; stats_free releases it. */
bool stats_count(PartitionStats *stats, const Module *m, const char *counted);
void stats_free(PartitionStats *stats);
void stats_print_table(FILE *out, const PartitionStats *stats);
/* The collectives table and peak of a cost alone (run --stats prints it too). */
void stats_print_cost(FILE *out, const ProgramCost *cost);
/* The collectives table of a tally: calls, bytes received and sent per device by kind. */
void stats_print_tally(FILE *out, const CostTally *t);
void stats_print_json(FILE *out, const PartitionStats *stats);
/* One line per collective with the reason it was inserted (--explain). */
void stats_print_reasons(FILE *out, const PartitionStats *stats);

/* Which plan a reshard gets (--reshard-plan, docs/partitioning.md
 * "Reshards to collectives"): Shardy's rounds (the greedy plan only where
 * they cannot reach the target or would leave an even dim uneven), or in
 * addition the greedy plan wherever it moves fewer bytes. */
typedef enum { RESHARD_PLAN_SHARDY, RESHARD_PLAN_FEWEST_BYTES } ReshardPlanChoice;

typedef struct PartitionOptions {
    /* `stats` counts the function named `counted` (the one `shardc run`
     * runs), or every function if it is NULL */
    const char *counted;
    ReshardPlanChoice reshard_plan;
} PartitionOptions;

/* Partitions every function, counting into `stats` as `opt` says. */
bool partition_module(Module *m, DiagEngine *diag, PartitionStats *stats, const PartitionOptions *opt);
/* --emit=devices: every device (or only device `device` when >= 0). */
void partition_print_devices(FILE *out, const Module *m, int device);
/* Whether device id `device` (< 0: all) exists on the mesh of a partitioned
 * function; else an error naming the valid ids. */
bool partition_check_device(const Module *m, int device, DiagEngine *diag);

#endif
