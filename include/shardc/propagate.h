/* Sharding propagation, Shardy-style (docs/propagation.md).
 *
 * For one op, every operand/result sharding is projected onto the op's
 * factors (a ShardingProjection); per factor the compatible major-most axes
 * are found and truncated at conflicts; then the projection is written back,
 * only ever appending axes to open dims. A worklist repeats this over the
 * module to a fixed point, in phases (user priorities, then op priorities). */
#ifndef SHARDC_PROPAGATE_H
#define SHARDC_PROPAGATE_H
#include <stdbool.h>
#include "shardc/ir.h"
#include "shardc/rule.h"

/* ---- projections (projection.c) ---- */
typedef struct FactorSharding {
    bool present;       /* the factor maps to a dim of this tensor */
    bool is_closed;
    bool is_minor_most; /* the last factor of its dim */
    /* The factor's size in this tensor: its dim's size when the dim has
     * only this factor (slice, pad and concatenate give operand and result
     * dims of different sizes under one factor), else the factor's. Axes
     * must divide it, unless the factor is the whole dim (`whole_dim`): a
     * padded shard of a whole dim is still a block of the factor
     * (docs/partitioning.md "Uneven dims"). */
    int64_t size;
    bool whole_dim;     /* the dim's only factor, of the factor's full size */
    AxisList axes;
    AxisList overflow;  /* axes that do not divide the factor */
} FactorSharding;

typedef struct TensorProjection {
    FactorSharding *factors;    /* one per rule factor */
    AxisList replicated;
    int64_t num_elements;       /* global size, for conflict tie-breaks */
} TensorProjection;

typedef struct ShardingProjection {
    const OpShardingRule *rule;
    const Mesh *mesh;
    int num_tensors;            /* operands, then results */
    int num_operands;
    TensorProjection *tensors;
    /* Shardy's conservative propagation: no sub-axes made, and no new axes
     * on a factor resized in a tensor (slice, pad, concatenate dims). */
    bool conservative;
} ShardingProjection;

/* Project shardings (NULL = fully open) of the op's tensors. */
void projection_build(ShardingProjection *p, Arena *scratch, const OpShardingRule *rule, const Mesh *mesh,
                      Sharding *const *shardings, const TensorType *const *types, int num_operands,
                      int num_tensors);
/* Whether every factor has the same axes in every tensor that has it,
 * read straight off the shardings, for a rule whose dims have at most one
 * factor each: then each factor projects to one axis list everywhere, so
 * factor propagation can add nothing and no factor is in conflict, and
 * neither needs the projection built. False means "not known" (a compound
 * dim, or dims that differ as written), never "they disagree". */
bool projection_agrees(const OpShardingRule *rule, Sharding *const *shardings, int num_operands, int num_tensors);
/* Write tensor t's factor shardings back as a sharding; `old` (may be NULL)
 * gives closedness, priorities and replicated axes to keep. */
Sharding *projection_to_sharding(const ShardingProjection *p, int t, const Sharding *old, Arena *arena);

/* ---- factor propagation (factor_propagation.c) ---- */
typedef enum { DIR_NONE, DIR_FORWARD, DIR_BACKWARD, DIR_BOTH } PropagationDirection;
typedef enum { PROPAGATION_AGGRESSIVE, PROPAGATION_BASIC } PropagationMode;

/* New axes for every factor, given a direction per factor; writes them into
 * the projection (expansion only). Returns a bitmask-free list: updated[t]
 * is set for every tensor that changed. `elementwise` (Shardy's
 * isElementwise: elementwise ops and sharding ops) changes how aggressive
 * propagation orders factors and limits operands. */
void factor_propagate(ShardingProjection *p, PropagationMode mode, const PropagationDirection *dirs,
                      bool elementwise, bool *updated, Arena *scratch);

/* ---- the pass (passes/propagate.c) ---- */
struct OriginTable;

typedef struct PropagateOptions {
    PropagationMode mode;
    bool conservative;  /* --propagation=conservative (ShardingProjection) */
    DiagEngine *diag;
    bool warn_conflicts;
    struct OriginTable *origins;    /* filled for --explain when non-NULL */
    bool explain;                   /* --explain: also what did not reach each value, and
                                       each function as propagation left it */
    bool skip_apply_constraints;    /* the caller's import applied them, or Shardy's would not */
} PropagateOptions;

bool propagate_module(Module *m, const PropagateOptions *options);
/* Shardy's ApplyShardingConstraints, which propagate_module runs first
 * (unless told to skip it): an
 * unsharded value takes the fully closed sharding of a sharding_constraint
 * on it or of a shard_map in_spec it feeds, unless another such use wants
 * another one (apply_constraints.c). False only when out of memory. */
bool propagate_apply_constraints(Module *m);

/* ---- sharding groups (groups.c) ---- */
/* The module's sharding_group ops: group ids written on a common value are
 * one group; groups are numbered 0..count-1 by their first member in
 * program order (Shardy's -sdy-sharding-group-import). */
typedef struct ShardingGroups {
    int count;
    int num_values;         /* the module's, when found */
    int num_ops;
    Op **ops;               /* the sharding_group ops, in program order */
    int *op_group;          /* each op's group */
    int *of_value;          /* by Value.id: its group, or -1 */
    Op **op_of_value;       /* by Value.id: the first sharding_group naming it */
    Value ***members;       /* per group: its values, first appearance first */
    int *num_members;
} ShardingGroups;

void propagate_find_groups(ShardingGroups *g, const Module *m, Arena *arena);
/* Rewrite each sharding_group's group_id to its group's number. */
void propagate_renumber_groups(Module *m, const ShardingGroups *g);
/* Remove every sharding_group op: Shardy's export pipeline drops them once
 * propagation has made their members agree (RemoveShardingGroupsPass). */
void propagate_remove_groups(Module *m);
/* Give every member of a group the shardings its members have, merged (a
 * dim takes the longest of its members' axes where the others are open
 * prefixes of it); members whose shardings conflict are an error naming
 * both. Members in shard_map bodies are left alone. False on errors. */
bool propagate_seed_groups(Module *m, const ShardingGroups *g, DiagEngine *diag);
/* Shardy's answer where members' shardings conflict (shardc opt; shardc
 * itself reports the conflict as an error): a warning on the first
 * member's op, and an open sharding_constraint after each member that
 * takes its place everywhere (the group then holds the constraints). True
 * if it changed the module (find the groups again). */
bool propagate_constrain_group_conflicts(Module *m, const ShardingGroups *g, DiagEngine *diag);

#endif
