/* Shardy's -sdy-insert-explicit-reshards (insert_explicit_reshards.cc and
 * explicit_reshards_util.cc, issue 16) on a module in the global view.
 * For each op with a sharding rule, the factor assignment the partitioner
 * uses (factor_assignment, Shardy's findCommonAxes, in the global view:
 * UNEVEN_GLOBAL_VIEW) decides one sharding per factor; an operand or
 * result whose axes differ from what that gives it gets an sdy.reshard
 * (before the op for an operand; after it, back to the sharding its users
 * had, for a result), and the axes of the reduction factors are reduced
 * by an sdy.all_reduce after the op; the ops of partially manual bodies
 * too, over their free axes (fully manual ones have none). A returned
 * value not sharded as its function's result is resharded before the
 * return; an op on a maximal mesh is handled as Shardy's single-device
 * operations (explicit_single_device.c). One decision
 * procedure for both: what this pass prints is what the partitioner
 * moves, but for reshapes with overflow axes (explicit_reshape.c), which
 * the partitioner does not shard so, and ops carrying their own
 * sdy.sharding_rule, which this pass follows as Shardy does. */
#include <stdio.h>
#include <string.h>
#include "shardc/layout.h"
#include "shardc/mlir.h"
#include "shardc/partition.h"
#include "shardc/rules.h"
#include "explicit_internal.h"
#include "mlir/mlir_extra.h"

typedef struct Explicit {
    Module *m;
    DiagEngine *diag;
    bool full;          /* enable-full-version=true */
    bool failed;        /* an error was reported */
    Arena scratch;
} Explicit;

/* Ops Shardy's pass leaves alone: no sharding rule there (sharding ops,
 * collectives, calls, control flow, manual computations). */
static bool has_no_rule(OpKind kind)
{
    switch (kind) {
    case OP_SHARDING_CONSTRAINT: case OP_RESHARD: case OP_PROPAGATION_BARRIER: case OP_SHARDING_GROUP:
    case OP_DATA_FLOW_EDGE: case OP_FUNC_DATA_FLOW_EDGE: case OP_WHILE: case OP_CASE: case OP_CALL:
    case OP_OPTIMIZATION_BARRIER: case OP_NAMED_COMPUTATION: case OP_SHARD_MAP: case OP_ALL_REDUCE:
    case OP_ALL_GATHER: case OP_ALL_SLICE: case OP_ALL_TO_ALL: case OP_COLLECTIVE_PERMUTE:
    case OP_REDUCE_SCATTER: case OP_AFTER_ALL:
        return true;
    default:
        return false;
    }
}

static Value *tensor_value(const Op *op, int t)
{
    return t < op->num_operands ? op->operands[t] : op->results[t - op->num_operands];
}

Sharding *mlir_sharding_bypassing_barriers(const Value *v)
{
    while (!v->sharding && v->def && v->def->kind == OP_PROPAGATION_BARRIER)
        v = v->def->operands[0];
    return v->sharding;
}

/* Shardy's isFullyReplicated: no axes on any dim (unreduced or not). */
static bool no_dim_axes(const Sharding *s)
{
    for (int d = 0; s && d < s->rank; d++)
        if (s->dims[d].num_axes)
            return false;
    return true;
}

/* The same axes, names and sizes, in any device order (Shardy's
 * MeshAttr::equals ignoring device ids). */
static bool same_axes(const Mesh *a, const Mesh *b)
{
    if (a->num_axes != b->num_axes)
        return false;
    for (int i = 0; i < a->num_axes; i++)
        if (a->axes[i].size != b->axes[i].size || strcmp(a->axes[i].name, b->axes[i].name) != 0)
            return false;
    return true;
}

/* getMostCommonMesh: of the meshes of the op's tensors that have axes on
 * some dim, the one (by name) most of them use, the first to get there;
 * `fallback` when none has. */
static const Mesh *most_common_mesh(const Op *op, const Mesh *fallback)
{
    const Mesh *best = fallback;
    int best_count = 0, n = op->num_operands + op->num_results;
    for (int t = 0; t < n; t++) {
        const Sharding *s = mlir_sharding_bypassing_barriers(tensor_value(op, t));
        if (!s || no_dim_axes(s))
            continue;
        const Mesh *mesh = s->mesh ? s->mesh : fallback;
        int count = 0;
        for (int u = 0; u <= t; u++) {
            const Sharding *o = mlir_sharding_bypassing_barriers(tensor_value(op, u));
            const Mesh *other = o && o->mesh ? o->mesh : fallback;
            count += o && !no_dim_axes(o) && strcmp(other->name, mesh->name) == 0;
        }
        if (count > best_count) {
            best_count = count;
            best = mesh;
        }
    }
    return best;
}

/* getMesh: the op's tensors must share one mesh up to device order (a
 * row-major one preferred), with axes (not a maximal or empty one); the
 * op is then computed on the device order most of its sharded tensors
 * use, and the others are resharded to it. NULL when there is no such
 * mesh. */
static const Mesh *op_mesh(const Op *op)
{
    const Mesh *common = NULL;
    for (int t = 0; t < op->num_operands + op->num_results; t++) {
        const Sharding *s = mlir_sharding_bypassing_barriers(tensor_value(op, t));
        if (!s || !s->mesh)
            continue;
        if (!common || !common->num_axes) {
            common = s->mesh;
            continue;
        }
        if (!s->mesh->num_axes)
            continue;
        if (!same_axes(common, s->mesh))
            return NULL;
        if (!s->mesh->device_ids)
            common = s->mesh;
    }
    return common && common->num_axes ? most_common_mesh(op, common) : NULL;
}

Sharding *mlir_closed_sharding(Module *m, const Mesh *mesh, const DimAxes *axes)
{
    Sharding *s = sharding_new_open(&m->arena, mesh, axes->rank);
    for (int d = 0; d < axes->rank; d++) {
        s->dims[d].is_closed = true;
        s->dims[d].num_axes = axes->dims[d].count;
        s->dims[d].axes = arena_memdup(&m->arena, axes->dims[d].axes, (size_t)axes->dims[d].count,
                                       sizeof(AxisRef));
    }
    return s;
}

/* The closed sharding of `axes`, keeping `old`'s unreduced axes (the
 * op's result keeps them). */
static Sharding *sharding_of(Module *m, const Mesh *mesh, const DimAxes *axes, const Sharding *old)
{
    Sharding *s = mlir_closed_sharding(m, mesh, axes);
    if (old && old->num_unreduced) {
        s->num_unreduced = old->num_unreduced;
        s->unreduced = old->unreduced;
        s->unreduced_op = old->unreduced_op;
    }
    return s;
}

Op *mlir_new_reshard(Module *m, Value *v, Sharding *to)
{
    Op *r = op_new(m, OP_RESHARD, v->loc);
    char name[256];
    snprintf(name, sizeof name, "%.200s.reshard", v->name ? v->name : "v");
    Value *out = value_new(m, arena_strdup(&m->arena, name), v->type, v->loc);
    out->def = r;
    out->sharding = to;
    r->num_operands = r->num_results = 1;
    r->operands = arena_memdup(&m->arena, &v, 1, sizeof(Value *));
    r->results = arena_memdup(&m->arena, &out, 1, sizeof(Value *));
    return r;
}

Sharding *mlir_closed_empty(Module *m, const Mesh *mesh, int rank)
{
    Sharding *s = sharding_new_open(&m->arena, mesh, rank);
    for (int d = 0; d < rank; d++)
        s->dims[d].is_closed = true;
    return s;
}

void mlir_sort_and_merge_axes(AxisList *l)
{
    for (int i = 1; i < l->count; i++)
        for (int j = i; j > 0; j--) {
            AxisRef a = l->axes[j - 1], b = l->axes[j];
            if (a.axis < b.axis || (a.axis == b.axis && a.pre_size <= b.pre_size))
                break;
            l->axes[j - 1] = b;
            l->axes[j] = a;
        }
    AxisList merged = {0};
    for (int i = 0; i < l->count; i++)
        axis_list_add_or_merge(&merged, l->axes[i], NULL);
    *l = merged;
}

/* insertAllReducesForReductionFactors: `axes` (of the reduction factors)
 * that the first result does not keep unreduced, reduced right after op. */
static void reduce_results(Module *m, Op *op, const AxisList *axes, const Mesh *mesh)
{
    AxisList unreduced = {0}, reduce;
    const Sharding *first = op->num_results ? op->results[0]->sharding : NULL;
    for (int k = 0; first && k < first->num_unreduced && k < AXIS_LIST_MAX; k++)
        unreduced.axes[unreduced.count++] = first->unreduced[k];
    axis_list_minus(&reduce, axes, &unreduced);
    mlir_sort_and_merge_axes(&reduce);
    for (int j = op->num_results - 1; reduce.count && j >= 0; j--) {
        Value *v = op->results[j];
        Sharding *out = v->sharding ? v->sharding : mlir_closed_empty(m, mesh, v->type.rank);
        Op *ar = ir_insert_identity(m, v, OP_ALL_REDUCE, "all_reduce");
        ar->results[0]->sharding = out;
        mlir_all_reduce_attrs(m, ar, mesh, &reduce, out->unreduced_op);
    }
}

/* The full version's reduction axes: every reduction factor's assigned ones. */
static void assigned_reduction_axes(AxisList *axes, const OpShardingRule *rule, const AxisList *assignment)
{
    *axes = (AxisList){0};
    for (int f = 0; f < rule->num_factors; f++)
        if (rule->factors[f].kind == FACTOR_REDUCTION)
            axis_list_union(axes, &assignment[f]);
}

/* Without the full version, only a result kept unreduced is reduced, over
 * the axes every tensor shards its reduction factors by alike (none when
 * they differ: Shardy stops there). */
static void common_reduction_axes(AxisList *axes, const Op *op, const ShardingProjection *p)
{
    *axes = (AxisList){0};
    if (!op->num_results || !op->results[0]->sharding || !op->results[0]->sharding->num_unreduced)
        return;
    for (int f = 0; f < p->rule->num_factors; f++) {
        if (p->rule->factors[f].kind != FACTOR_REDUCTION)
            continue;
        const AxisList *common = NULL;
        for (int t = 0; t < p->num_tensors; t++) {
            const FactorSharding *fs = &p->tensors[t].factors[f];
            if (fs->present && common && !axis_list_equal(common, &fs->axes)) {
                *axes = (AxisList){0};
                return;
            }
            common = fs->present ? &fs->axes : common;
        }
        if (common)
            axis_list_union(axes, common);
    }
}

/* Whether tensor t of op does not have the dim axes `want`; if so, `to`
 * is the sharding that gives them. */
static bool needs_reshard(Module *m, const Op *op, int t, const DimAxes *want, const Mesh *mesh, Sharding **to)
{
    const Value *v = tensor_value(op, t);
    const Sharding *s = mlir_sharding_bypassing_barriers(v);
    DimAxes have;
    reshard_dim_axes_from_sharding(&have, s, v->type.rank);
    bool other_order = s && s->mesh && !no_dim_axes(s) && !mesh_equal(s->mesh, mesh); /* shouldReshardToCommonMesh */
    if (reshard_dim_axes_equal(&have, want) && !other_order)
        return false;
    *to = sharding_of(m, mesh, want, v->sharding);
    return true;
}

/* What the users of a result of an op without shardings had, as Shardy's
 * insertExplicitReshardsOnResult finds it: the first result it reshards
 * gets closed and empty dims (getOrCreateSharding), and setting that
 * result's sharding gives the op fully open shardings on the others
 * (replaceShardingAtIndex; Shardy's TODO b/479473118 keeps it so). */
static Sharding *unsharded_result_had(Module *m, const Mesh *mesh, const Value *v, bool first)
{
    return first ? mlir_closed_empty(m, mesh, v->type.rank) : sharding_new_open(&m->arena, mesh, v->type.rank);
}

/* Operands in order, each resharded right before op; then results in
 * reverse, each right after op (so they end up in order): the op's
 * tensors take the dim axes `want` gives them and a reshard gives its
 * users the sharding they had. */
static void reshard_tensors(Module *m, Op *op, const DimAxes *want, const Mesh *mesh)
{
    Sharding *to;
    for (int i = 0; i < op->num_operands; i++)
        if (needs_reshard(m, op, i, &want[i], mesh, &to)) {
            Op *r = mlir_new_reshard(m, op->operands[i], to);
            block_insert_before(op->parent, op, r);
            op->operands[i] = r->results[0];
        }
    int first = -1;
    bool unsharded = true;
    for (int j = 0; j < op->num_results; j++) {
        unsharded = unsharded && !op->results[j]->sharding;
        if (first < 0 && needs_reshard(m, op, op->num_operands + j, &want[op->num_operands + j], mesh, &to))
            first = j;
    }
    for (int j = op->num_results - 1; j >= 0; j--) {
        Value *v = op->results[j];
        if (!needs_reshard(m, op, op->num_operands + j, &want[op->num_operands + j], mesh, &to)) {
            if (unsharded && first >= 0)
                v->sharding = unsharded_result_had(m, mesh, v, false);
            continue;
        }
        Sharding *had = v->sharding ? v->sharding : unsharded_result_had(m, mesh, v, !unsharded || j == first);
        v->sharding = to;
        ir_insert_identity(m, v, OP_RESHARD, "reshard")->results[0]->sharding = had;
    }
}

/* isOnFullVersion: the option, or a concatenate some operand of which is
 * not sharded exactly as its result. */
static bool full_version(const Explicit *x, const Op *op)
{
    for (int i = 0; !x->full && op->kind == OP_CONCATENATE && i < op->num_operands; i++)
        if (!sharding_equal(op->operands[i]->sharding, op->results[0]->sharding))
            return true;
    return x->full;
}

/* Where the result of a dot conflicts with its operands in one factor
 * only, the result sharded by its reduction axes, and it is no larger than
 * the conflicting operand: the dot takes the operand's axes and the
 * smaller result is resharded (Shardy's processDot, outside the full
 * version). Returns the factor, or -1. */
static int dot_conflict(const ShardingProjection *p, AxisList *operand_axes)
{
    AxisList reduction = {0}, seen = {0};
    int conflict = -1;
    int64_t sizes[3] = {p->tensors[0].num_elements, p->tensors[1].num_elements, p->tensors[2].num_elements};
    for (int f = 0; f < p->rule->num_factors; f++) {
        const FactorSharding *l = &p->tensors[0].factors[f], *r = &p->tensors[1].factors[f];
        const AxisList *axes = l->present ? &l->axes : &r->axes;
        int64_t max_size = l->present && r->present ? (sizes[0] > sizes[1] ? sizes[0] : sizes[1])
                         : sizes[l->present ? 0 : 1];
        if (l->present && r->present && !axis_list_equal(&l->axes, &r->axes))
            return -1;
        if (l->present && r->present && p->rule->factors[f].kind == FACTOR_REDUCTION) {
            axis_list_union(&reduction, axes);
            continue;
        }
        if (!(l->present && r->present)) {
            AxisList rest = *axes;
            if (axis_list_truncate_without_overlap(&rest, &seen))
                return -1;
            axis_list_union(&seen, axes);
        }
        if (axis_list_equal(&p->tensors[2].factors[f].axes, axes))
            continue;
        if (!axes->count || conflict >= 0 || sizes[2] > max_size)
            return -1;
        conflict = f;
        *operand_axes = *axes;
    }
    const AxisList *res = conflict >= 0 ? &p->tensors[2].factors[conflict].axes : NULL;
    return res && res->count && axis_list_equal(res, &reduction) ? conflict : -1;
}

static void process_dot(Explicit *x, Op *op, ShardingProjection *p)
{
    AxisList axes;
    int f = op->kind == OP_EINSUM && op->num_operands == 2 && op->results[0]->sharding ? dot_conflict(p, &axes)
                                                                                        : -1;
    if (f < 0)
        return;
    Value *v = op->results[0];
    Sharding *had = v->sharding;
    p->tensors[2].factors[f].axes = axes;
    v->sharding = projection_to_sharding(p, 2, had, &x->m->arena);
    ir_insert_identity(x->m, v, OP_RESHARD, "reshard")->results[0]->sharding = had;
}

/* getOrCreateShardingRule: the op's own sdy.sharding_rule, else shardc's. */
static const OpShardingRule *rule_of(Explicit *x, const Op *op)
{
    if (op->mlir && op->mlir->written_rule)
        return op->mlir->written_rule;
    return rules_of_op(&x->scratch, x->diag, op);
}

/* The dim axes each tensor of op gets and, per factor, the axes it is
 * sharded by (findCommonAxes; a reshape with overflow axes as
 * processReshapeWithOverflowAxes deals them). */
static void decide_tensor_axes(Explicit *x, const Op *op, const OpShardingRule *rule, const Mesh *mesh,
                               Sharding *const *shardings, const TensorType *const *types, DimAxes *want,
                               AxisList *assignment)
{
    int count = op->num_operands + op->num_results;
    if (op->kind == OP_RESHAPE &&
        mlir_reshape_overflow(want, assignment, &x->scratch, rule, mesh, shardings, types))
        return;
    factor_assignment(assignment, rule, mesh, shardings, types, count, op->num_operands, UNEVEN_GLOBAL_VIEW,
                      &x->scratch);
    for (int t = 0; t < count; t++)
        factor_assignment_tensor_axes(&want[t], rule, assignment, t);
}

static void explicit_op(Explicit *x, Op *op)
{
    if (mlir_single_device_op(op)) {
        x->failed |= !mlir_explicit_single_device(x->m, op, x->diag);
        return;
    }
    arena_reset(&x->scratch);  /* what the op before needed */
    const Mesh *mesh = has_no_rule(op->kind) ? NULL : op_mesh(op);
    const OpShardingRule *rule = mesh ? rule_of(x, op) : NULL;
    if (!rule || rule->is_custom)
        return;
    int count = op->num_operands + op->num_results;
    Sharding *shardings[count + 1];
    const TensorType *types[count + 1];
    for (int t = 0; t < count; t++) {
        shardings[t] = mlir_sharding_bypassing_barriers(tensor_value(op, t));
        types[t] = &tensor_value(op, t)->type;
    }
    AxisList axes;
    if (!full_version(x, op)) {
        ShardingProjection p;
        projection_build(&p, &x->scratch, rule, mesh, shardings, types, op->num_operands, count);
        common_reduction_axes(&axes, op, &p);
        process_dot(x, op, &p);
        reduce_results(x->m, op, &axes, mesh);
        return;
    }
    AxisList *assignment = ARENA_ARRAY(&x->scratch, AxisList, rule->num_factors + 1);
    DimAxes *want = ARENA_ARRAY_UNINIT(&x->scratch, DimAxes, count);
    decide_tensor_axes(x, op, rule, mesh, shardings, types, want, assignment);
    reshard_tensors(x->m, op, want, mesh);
    assigned_reduction_axes(&axes, rule, assignment);
    reduce_results(x->m, op, &axes, mesh);
}

/* Shardy's isEquivalent: both replicated (no axes, none unreduced), or
 * the same mesh, unreduced axes and axes per dim; no sharding is
 * equivalent to any without axes, unreduced or not. */
static bool equivalent(const Sharding *a, const Sharding *b)
{
    if (!a)
        return !b || sharding_num_blocks(b) == 1;
    bool a_rep = !a || (!a->num_unreduced && sharding_num_blocks(a) == 1);
    bool b_rep = !b || (!b->num_unreduced && sharding_num_blocks(b) == 1);
    if (a_rep || b_rep)
        return a_rep && b_rep;
    if (a->num_unreduced != b->num_unreduced)
        return false;
    for (int k = 0; k < a->num_unreduced; k++)
        if (!axis_ref_equal(a->unreduced[k], b->unreduced[k]))
            return false;
    return strcmp(a->mesh->name, b->mesh->name) == 0 && sharding_same_dim_axes(a, b);
}

/* Shardy's getSharding: a manual computation's result has its out_spec. */
static const Sharding *value_sharding(const Value *v)
{
    for (int j = 0; !v->sharding && v->def && v->def->kind == OP_SHARD_MAP && j < v->def->num_results; j++)
        if (v->def->results[j] == v)
            return op_attr_sharding_at(v->def, ATTR_KEY_OUT_SPECS, j);
    return v->sharding;
}

/* insertExplicitReshardsOnFuncReturn: the unreduced collectives a
 * result needs, then (full version) a reshard to the rest of it. */
static void reshard_returns(Module *m, Func *fn, bool full)
{
    Block *b = fn->body;
    for (int j = 0; j < b->num_returns && j < fn->num_results; j++) {
        const Sharding *want = fn->result_shardings ? fn->result_shardings[j] : NULL;
        Value *collected = mlir_unreduced_collectives(m, b, NULL, b->returns[j], want);
        if (collected)
            b->returns[j] = collected;
        Value *v = b->returns[j];
        if (!full || equivalent(value_sharding(v), want))
            continue;
        Sharding *to = want ? sharding_clone(&m->arena, want) : mlir_closed_empty(m, v->sharding->mesh, v->type.rank);
        Op *r = mlir_new_reshard(m, v, to);
        block_insert_before(b, NULL, r);
        b->returns[j] = r->results[0];
    }
}

/* Right after v's definition (first in its block for an argument). */
static void insert_after_value(Value *v, Op *r)
{
    if (v->def)
        block_insert_before(v->def->parent, v->def->next, r);
    else
        block_insert_before(v->block, v->block->first, r);
}

/* The sharding a call's operands are resharded to: the callee's
 * arguments', or, when it has none, fully closed on the mesh of the
 * operands (none when they have no sharding either). */
static Sharding *call_target(Module *m, const Op *call, const Func *callee, int i)
{
    for (int k = 0; k < callee->body->num_args && k < call->num_operands; k++)
        if (callee->body->args[k]->sharding)
            return callee->body->args[i]->sharding;
    for (int k = 0; k < call->num_operands; k++) {
        const Sharding *s = call->operands[k]->sharding;
        if (s && s->mesh && s->mesh->num_axes)
            return mlir_closed_empty(m, s->mesh, call->operands[i]->type.rank);
    }
    return NULL;
}

/* insertExplicitReshardsOnCallOp: each operand not sharded as its callee
 * argument is resharded to it right after its definition. */
static void reshard_call(Explicit *x, Op *op)
{
    const Func *callee = op->callee ? module_find_func(x->m, op->callee) : NULL;
    for (int i = 0; callee && i < op->num_operands && i < callee->body->num_args; i++) {
        Value *v = op->operands[i];
        Sharding *to = call_target(x->m, op, callee, i);
        if (!to || equivalent(v->sharding, to))
            continue;
        Op *r = mlir_new_reshard(x->m, v, sharding_clone(&x->m->arena, to));
        insert_after_value(v, r);
        op->operands[i] = r->results[0];
    }
}

/* insertExplicitReshardsToTargetSharding for a data-flow edge's source
 * in *slot: the unreduced axes its owner drops all-reduced, the unreduced
 * collectives it adds, then (full version) a reshard to the owner's
 * sharding (closed and empty when it has none), right after the source's
 * definition. */
static void reshard_source(Explicit *x, Value **slot, const Sharding *target, bool full)
{
    Value *v = *slot;
    Block *b = v->def ? v->def->parent : v->block;
    Op *before = v->def ? v->def->next : b->first;
    Value *r = mlir_unreduced_all_reduce(x->m, b, before, v, target);
    Value *collected = mlir_unreduced_collectives(x->m, b, before, r, target);
    r = collected ? collected : r;
    if (full && !equivalent(r->sharding, target)) {
        Sharding *to = target ? sharding_clone(&x->m->arena, target)
                              : mlir_closed_empty(x->m, r->sharding->mesh, r->type.rank);
        Op *op = mlir_new_reshard(x->m, r, to);
        block_insert_before(b, before, op);
        r = op->results[0];
    }
    *slot = r;
}

static void reshard_returned(Explicit *x, Block *b, int i, const Sharding *target)
{
    if (b && i < b->num_returns)
        reshard_source(x, &b->returns[i], target, x->full);
}

/* A manual computation's edges: operands to its in_shardings (the
 * manual part the op keeps joined with the free part its body argument
 * has), the body's returned values to its out_shardings without the
 * manual axes (the body's view of them). */
static void reshard_manual_edges(Explicit *x, Op *op)
{
    uint64_t manual = op_manual_axes_mask(op, NULL);
    for (int i = 0; op->region && i < op->num_operands && i < op->region->num_args; i++) {
        const Sharding *spec = op_attr_sharding_at(op, ATTR_KEY_IN_SPECS, i), *free_part = op->region->args[i]->sharding;
        const Sharding *in = spec && free_part ? sharding_join_manual(&x->m->arena, spec, free_part) : spec;
        reshard_source(x, &op->operands[i], in, x->full);
    }
    for (int i = 0; i < op->num_results; i++) {
        const Sharding *out = value_sharding(op->results[i]);
        Sharding *manual_part, *free_part = NULL;
        if (out)
            sharding_split_manual(&x->m->arena, out, manual, &manual_part, &free_part);
        reshard_returned(x, op->region, i, free_part);
    }
}

/* insertExplicitReshardsOnDataFlowOp: each edge's sources resharded to
 * its owner's sharding (a result's): a while's operand and body result,
 * each case branch's result, an optimization barrier's operand. */
static bool reshard_data_flow(Explicit *x, Op *op)
{
    switch (op->kind) {
    case OP_WHILE:
        for (int i = 0; op->num_regions == 2 && i < op->num_results; i++) {
            reshard_source(x, &op->operands[i], op->results[i]->sharding, x->full);
            reshard_returned(x, op->regions[1], i, op->results[i]->sharding);
        }
        return true;
    case OP_CASE:
        for (int i = 0; i < op->num_results; i++)
            for (int k = 0; k < op->num_regions; k++)
                reshard_returned(x, op->regions[k], i, op->results[i]->sharding);
        return true;
    case OP_OPTIMIZATION_BARRIER:
        for (int i = 0; i < op->num_operands && i < op->num_results; i++)
            reshard_source(x, &op->operands[i], op->results[i]->sharding, x->full);
        return true;
    case OP_SHARD_MAP:
        reshard_manual_edges(x, op);
        return true;
    default:
        return false;
    }
}

/* convertReshardToUnreducedCollectives: a reshard that makes its operand
 * unreduced over more axes becomes the unreduced collectives. */
static bool reshard_to_unreduced_collectives(Explicit *x, Op *op)
{
    Value *r = mlir_unreduced_collectives(x->m, op->parent, op, op->operands[0], op->results[0]->sharding);
    if (!r)
        return false;
    Block *b = op->parent;
    while (b->parent_op)
        b = b->parent_op->parent;
    ir_replace_uses(b, op->results[0], r);
    block_remove(op->parent, op);
    return true;
}

static bool visit(Op *op, void *user)
{
    if (op->kind == OP_CALL)
        reshard_call(user, op);
    else if (op->kind == OP_RESHARD && reshard_to_unreduced_collectives(user, op))
        return true;
    else if (reshard_data_flow(user, op))
        return true;
    else
        explicit_op(user, op);
    return true;
}

bool mlir_insert_explicit_reshards(Module *m, DiagEngine *diag, bool full)
{
    mlir_export_unreduced(m);
    Explicit x = {m, diag, full, false, {0}};
    arena_init(&x.scratch);
    for (int f = 0; f < m->num_funcs; f++) {
        if (!mlir_no_single_device_boundary(m->funcs[f], diag)) {
            x.failed = true;
            continue;
        }
        ir_walk(m->funcs[f]->body, &(IrWalker){.post = visit, .user = &x, .scope = IR_WALK_PROPAGATED});
        reshard_returns(m, m->funcs[f], full);
    }
    arena_free(&x.scratch);
    return !x.failed;
}
