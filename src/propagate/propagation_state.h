/* State of one propagation run (passes/propagate.c): rules per op, use
 * lists, the worklist, user-priority rounds and sharding origins. */
#ifndef SHARDC_PROPAGATION_STATE_H
#define SHARDC_PROPAGATION_STATE_H
#include "shardc/origin.h"
#include "shardc/propagate.h"
#include "shardc/rules.h"

typedef struct UseList {
    int count, cap;
    Op **ops;
} UseList;

/* Outcomes of op visits (outcomes.c), in `work`. */
typedef struct VisitOutcome VisitOutcome;
typedef struct VisitOutcomes {
    int count, cap;
    VisitOutcome **slots;
} VisitOutcomes;

typedef struct PropagationState {
    Module *module;
    const PropagateOptions *options;
    Arena scratch;          /* reset for every op */
    Arena work;             /* one function's (or the module's) use lists and rules */
    /* The side tables below, sized for table_ops ops and table_values
     * values; they outlive `work`: see size_tables (state.c). */
    Arena tables;
    int table_ops, table_values;
    const OpShardingRule **rules;   /* by Op.id; computed lazily */
    RuleCache rule_cache;   /* the rules, built once per kind of op */
    struct VisitMemo **visits;      /* by Op.id: prop_visit_repeats */
    VisitOutcomes outcomes; /* by rule, shardings and directions */
    bool *rule_known;
    UseList *uses;          /* by Value.id */
    Sharding **user;        /* by Value.id: the user's annotation */
    /* A phase's worklist: first a sweep over the propagated ops in program
     * order (`sweep`, built once per function), visiting those the phase
     * opens and those queued ahead of the sweep; then the ring of ops
     * queued behind it, first in first out. The order is that of a queue
     * holding every op at the phase's start, minus the visits that would
     * repeat their last one (prop_phase_opens). */
    Op **sweep;
    int *sweep_ids;         /* the Op.id of each: a sweep passing an op by
                             * reads no op (a cache miss each, on a large module) */
    int sweep_count, sweep_next, sweep_phase;
    int *sweep_pos;         /* by Op.id: index in `sweep` */
    unsigned char *phase_opens;     /* by Op.id: prop_phase_opens' memo, 0 = not known */
    unsigned char *pass_through;    /* by Op.id: the op's pass-through directions (propagate.c) */
    Op **queue;             /* ring buffer of ops */
    int queue_head, queue_count, queue_cap;
    bool *queued;           /* by Op.id */
    int num_rounds;
    int round;              /* the current one */
    int *round_limits;      /* priority limit of each round; last = all */
    int errors_before;
    OriginTable *origins;   /* options->origins, or own_origins */
    OriginTable own_origins;
    const Mesh *func_mesh;  /* for values nothing reached */
    ShardingGroups groups;  /* sharding groups (groups.c) */
    Func *func;
    /* Shardy's func_data_flow_edge ops join functions: then every function
     * is propagated at once (propagate_module) and callers[arg->id] lists
     * the calls whose operands flow into function argument arg. */
    bool module_wide;
    UseList *callers;
    /* Closing a function's shardings (close_value): most values share one
     * of a few interned shardings, closed once each; a small cache, by
     * address, of the last closed one per slot. */
    struct ClosedSharding {
        const Sharding *open;
        Sharding *closed;
    } closed[256];
} PropagationState;

void prop_state_init(PropagationState *st, Module *m, const PropagateOptions *options);
void prop_state_free(PropagationState *st);
void prop_state_begin_func(PropagationState *st, Func *f);
/* Side tables and use lists for f (part of prop_state_begin_func). */
void prop_state_prepare_func(PropagationState *st, Func *f);
/* The same for every function at once, with the cross-function uses of
 * func_data_flow_edge ops (module_wide propagation). */
void prop_state_prepare_module(PropagationState *st);
void prop_state_begin_round(PropagationState *st, int round);
void prop_state_finish_func(PropagationState *st, Func *f);
const OpShardingRule *prop_state_rule(PropagationState *st, const Op *op);

/* Whether visiting op now would repeat its last visit in this round, one
 * that changed nothing: the same directions on the same shardings (a
 * sharding is never changed in place while propagation runs, it is
 * replaced) give the same result. Most ops are queued by every phase with
 * nothing new around them. prop_visit_remember records a visit's inputs
 * (`shardings`, the values' shardings before it) if it changed nothing,
 * and whether they agreed on every factor (projection_agrees). */
bool prop_visit_repeats(const PropagationState *st, const Op *op, Sharding *const *shardings, int count,
                        const PropagationDirection *dirs, int num_factors);
void prop_visit_remember(PropagationState *st, const Op *op, Value *const *values, Sharding *const *shardings,
                         int count, const PropagationDirection *dirs, int num_factors, bool agreed);
/* A visit replayed an outcome (outcomes.c) for `shardings`: what
 * prop_visit_settled reads is that visit's; the next visit repeats
 * nothing (its directions were not worked out). */
void prop_visit_replayed(PropagationState *st, const Op *op, Sharding *const *shardings, int count, int num_factors,
                         bool agreed);
/* Whether op's last visit found its shardings in agreement on every
 * factor and they are still the same: then no visit, in any round or
 * phase, can change anything. */
bool prop_visit_settled(const PropagationState *st, const Op *op);

/* The outcome of an earlier visit of an op with this rule, shardings,
 * `directions` (a word that decides, with the rule, every factor's
 * direction) and elementwise-ness, or NULL; and recording one: `agreed`
 * (the shardings agreed on every factor) or each tensor's new sharding,
 * interned, in `out` (NULL: no tensor changed, or none for a tensor). */
uint64_t prop_outcome_hash(const OpShardingRule *rule, Sharding *const *shardings, int count, unsigned directions,
                           bool elementwise);
const VisitOutcome *prop_outcome_find(const PropagationState *st, uint64_t hash, const OpShardingRule *rule,
                                      Sharding *const *shardings, int count, unsigned directions, bool elementwise);
void prop_outcome_add(PropagationState *st, uint64_t hash, const OpShardingRule *rule, Sharding *const *shardings,
                      int count, unsigned directions, bool elementwise, bool agreed, Sharding *const *out);
bool prop_outcome_agreed(const VisitOutcome *o);
Sharding *prop_outcome_sharding(const VisitOutcome *o, int t);

void prop_worklist_push(PropagationState *st, Op *op);
/* Append op to the sweep if it is propagated (ops in the order of a walk;
 * the sweep is filled by prop_state_begin_func, after the use lists). */
void prop_sweep_add(PropagationState *st, Op *op);
/* Start phase `phase`'s sweep over the propagated ops. */
void prop_worklist_begin_sweep(PropagationState *st, int phase);
Op *prop_worklist_pop(PropagationState *st);
/* Whether phase `phase` must visit the op at sweep_pos even if no sharding around it
 * changed since its last visit: the first phase of a round (the round
 * changed the shardings it shows), ops without a rule of their own
 * (data-flow edges, shard_maps), and ops to which the phase opens a
 * direction the phase before kept closed (propagate.c). Any other visit
 * would repeat the op's last one, which changed nothing. */
bool prop_phase_opens(PropagationState *st, int sweep_pos, int phase);

/* Install a grown sharding on v, record where it came from and queue the
 * ops that see v. `values`/`shardings` are the op's tensors; a NULL value is
 * a fixed spec (shard_map in_specs, a function result's annotation).
 * `before` (the projection the op's visit started from) is NULL unless
 * --explain asks for origins. */
void prop_state_update_value(PropagationState *st, Value *v, Sharding *s, const ShardingProjection *before, int tensor,
                        Value *const *values, Sharding *const *shardings, const Op *via);

/* prop_state_update_value without origins for a sharding already interned
 * (module_intern_sharding): a replayed outcome's (outcomes.c). */
void prop_state_replay_value(PropagationState *st, Value *v, Sharding *interned);

/* Queue the ops that define and use v. */
void prop_queue_neighbours(PropagationState *st, Value *v);
/* v's sharding changed: its sharding group's members take it (groups.c). */
void prop_groups_sync(PropagationState *st, const Value *v);

void propagate_tensors(PropagationState *st, const Op *op, const OpShardingRule *rule, Value **values,
                       Sharding **shardings, int num_operands, int count, int phase);
void propagate_tensors_out(PropagationState *st, const Op *op, const OpShardingRule *rule, Value **values,
                           Sharding **shardings, int num_operands, int count, int phase, Sharding **out);
void propagate_shard_map_operands(PropagationState *st, Op *op, int phase);
/* A partial-manual shard_map's data-flow edges (manual.c): each operand
 * with its body argument, each returned value with its result, the
 * body's side seen without the manual axes; `phase` lets every factor
 * through (propagate.c passes its last). */
void prop_manual_edges(PropagationState *st, const Op *op, int phase);
/* The partial-manual shard_map an sdy.data_flow_edge op belongs to (on
 * one of its body arguments or results), or NULL. */
Op *prop_manual_edge_owner(const Op *edge_op);
/* s, or what of it v may take if v is such a shard_map's result. */
Sharding *prop_manual_result_sharding(Arena *a, const Value *v, Sharding *s);
/* The data-flow edges of while, case and optimization_barrier (data_flow.c);
 * false for other ops. */
bool prop_data_flow_edges(PropagationState *st, const Op *op, int phase);
/* The while or case whose edges hold b's arguments and returns, or NULL. */
Op *prop_edge_owner(const Block *b);
/* Each annotated function result meets its returned value as through a
 * sharding constraint. */
void propagate_func_results(PropagationState *st, Func *f);
/* After the fixed point: a result annotation's open dims take what the
 * returned value appended to them, and every dim closes. */
void prop_close_func_results(PropagationState *st, Func *f);
/* For --explain: what each value lacks that a neighbour holds, and why
 * (why_not.c; at the fixed point, before shardings close). */
void prop_explain_missing(PropagationState *st, Func *f);
/* Warn about every factor whose shardings still disagree (the partitioner
 * will reshard there). */
void prop_report_conflicts(PropagationState *st, Func *f);
/* ... and about every returned value or shard_map operand the partitioner
 * must reshard to its fixed sharding (after every sharding is closed). */
void prop_report_boundary_conflicts(PropagationState *st, Func *f);
OpShardingRule *prop_identity_rule(Arena *arena, const TensorType *type, int num_tensors);

#endif
