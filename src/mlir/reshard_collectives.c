/* Shardy's -sdy-reshard-to-collectives (reshard_to_collectives.cc) on a
 * module in the global view: each sdy.reshard becomes the collectives the
 * partitioner's reshard planner (reshard_plan, which follows Shardy's
 * order: all-slices, a collective-permute, all-to-alls, all-gathers)
 * makes of it, as sdy.all_slice / sdy.collective_permute /
 * sdy.all_to_all / sdy.all_gather ops, each with the sharding it leaves
 * the tensor in. Consecutive steps of one kind are one op, as Shardy's are
 * (one all-slice or all-gather over every dim). The per-dim axes of an op
 * are kept as a sharding-valued `axes` attribute (for an all-to-all, one
 * "dim" per move, its source and target dims in `dims`), which the
 * printer spells as Shardy does. */
#include <string.h>
#include "shardc/layout.h"
#include "shardc/mlir.h"
#include "shardc/partition.h"
#include "explicit_internal.h"

static OpKind step_op(ReshardStepKind kind)
{
    switch (kind) {
    case STEP_ALL_SLICE: return OP_ALL_SLICE;
    case STEP_ALL_GATHER: return OP_ALL_GATHER;
    case STEP_ALL_TO_ALL: return OP_ALL_TO_ALL;
    default: return OP_COLLECTIVE_PERMUTE;
    }
}

static void push_int(Module *m, AttrValue *array, int64_t v)
{
    AttrValue *a = attr_new(&m->arena, ATTR_INT, (Loc){0});
    a->u.i = v;
    array->u.array.items[array->u.array.count++] = a;
}

/* The collective's per-dim axes of n steps (for an all-to-all
 * its moves' axes, their source and target dims in `dims`). */
static void step_axes(Module *m, Op *op, const ReshardStep *steps, int n, const Mesh *mesh, int rank)
{
    bool a2a = steps[0].kind == STEP_ALL_TO_ALL;
    DimAxes per;
    reshard_dim_axes_clear(&per, a2a ? 0 : rank);
    AttrValue *dims = attr_new(&m->arena, ATTR_ARRAY, (Loc){0});
    dims->u.array.items = ARENA_ARRAY(&m->arena, AttrValue *, 2 * SHARDC_MAX_RANK);
    for (int k = 0; k < n; k++) {
        const ReshardStep *s = &steps[k];
        for (int i = 0; !a2a && i < s->axes.count; i++)
            axis_list_add_or_merge(&per.dims[s->dim], s->axes.axes[i], mesh);
        for (int v = 0; a2a && v < s->num_moves && per.rank < SHARDC_MAX_RANK; v++) {
            const ReshardMove *mv = &s->moves[v];
            AxisList *l = &per.dims[per.rank++];
            l->count = 0;
            for (int i = mv->first; i < mv->first + mv->count; i++)
                axis_list_add_or_merge(l, s->axes.axes[i], mesh);
            push_int(m, dims, mv->src_dim);
            push_int(m, dims, mv->dim);
        }
    }
    if (a2a)
        op_attr_set(&m->arena, op, ATTR_KEY_DIMS, dims);
    AttrValue *axes = attr_new(&m->arena, ATTR_SHARDING, (Loc){0});
    axes->u.sharding = mlir_closed_sharding(m, mesh, &per);
    op_attr_set(&m->arena, op, ATTR_KEY_AXES, axes);
}

/* Where the collectives go and what their shardings keep: the mesh of
 * each (the source's until the plan's reorder step, the target's from
 * it) and the unreduced axes of the target. */
typedef struct Emit {
    Module *m;
    Op *before;
    const Mesh *from_mesh, *to_mesh;
    const Sharding *unreduced;
    int reorder_step;
} Emit;

static const Mesh *step_mesh(const Emit *e, int step)
{
    return e->reorder_step >= 0 && step < e->reorder_step ? e->from_mesh : e->to_mesh;
}

static Sharding *result_sharding(const Emit *e, const Mesh *mesh, const DimAxes *after)
{
    Sharding *s = mlir_closed_sharding(e->m, mesh, after);
    if (e->unreduced) {
        s->num_unreduced = e->unreduced->num_unreduced;
        s->unreduced = e->unreduced->unreduced;
        s->unreduced_op = e->unreduced->unreduced_op;
    }
    return s;
}

/* One collective for n steps of one kind on v, leaving it as `after`. */
static Value *emit_steps(const Emit *e, Value *v, const ReshardStep *steps, int n, const Mesh *mesh,
                         const DimAxes *after)
{
    Module *m = e->m;
    Op *op = op_new(m, step_op(steps[0].kind), v->loc);
    Value *r = value_new(m, v->name, v->type, v->loc);
    r->def = op;
    r->sharding = result_sharding(e, mesh, after);
    op->num_operands = op->num_results = 1;
    op->operands = arena_memdup(&m->arena, &v, 1, sizeof(Value *));
    op->results = arena_memdup(&m->arena, &r, 1, sizeof(Value *));
    step_axes(m, op, steps, n, mesh, v->type.rank);
    block_insert_before(e->before->parent, e->before, op);
    return r;
}

/* Shardy's all-to-alls move one source dim's axes to one target dim
 * each: a merged all-to-all step of the plan is one op per move, from
 * `cur` (the layout before the step). */
static Value *emit_moves(const Emit *e, Value *v, const ReshardStep *s, const Mesh *mesh, const DimAxes *cur)
{
    DimAxes layout = *cur;
    ReshardStep one;
    for (int i = 0; i < s->num_moves; i++) {
        const ReshardMove *mv = &s->moves[i];
        AxisList moved = {0}, rest;
        for (int j = mv->first; j < mv->first + mv->count; j++)
            moved.axes[moved.count++] = s->axes.axes[j];
        axis_list_minus(&rest, &layout.dims[mv->src_dim], &moved);
        layout.dims[mv->src_dim] = rest;
        for (int j = 0; j < moved.count; j++)
            axis_list_add_or_merge(&layout.dims[mv->dim], moved.axes[j], mesh);
        one.kind = STEP_ALL_TO_ALL;
        one.axes = moved;
        one.num_moves = 1;
        one.moves[0] = (ReshardMove){mv->dim, mv->src_dim, 0, moved.count};
        v = emit_steps(e, v, &one, 1, mesh, i + 1 < s->num_moves ? &layout : &s->after);
    }
    return v;
}

/* The plan's collectives on v from layout a: consecutive steps of one
 * kind (but all-to-alls and the reorder permute) are one op. */
static Value *emit_plan(const Emit *e, Value *v, const ReshardPlan *plan, DimAxes a)
{
    for (int first = 0, last; first < plan->num_steps; first = last) {
        ReshardStepKind kind = plan->steps[first].kind;
        for (last = first + 1; last < plan->num_steps && plan->steps[last].kind == kind && kind != STEP_ALL_TO_ALL &&
                               last != e->reorder_step; last++)
            continue;
        const Mesh *mesh = step_mesh(e, first);
        if (kind == STEP_ALL_TO_ALL)
            v = emit_moves(e, v, &plan->steps[first], mesh, &a);
        else
            v = emit_steps(e, v, &plan->steps[first], last - first, mesh, &plan->steps[last - 1].after);
        a = plan->steps[last - 1].after;
    }
    return v;
}

/* A maximal mesh: no axes, one named device (Shardy leaves reshards
 * from or to one alone). */
static bool mesh_is_maximal(const Mesh *mesh)
{
    return mesh && !mesh->num_axes && mesh->device_ids;
}

/* The same axes, whatever the device order (Shardy's MeshAttr::equals
 * ignoring device ids). */
static bool same_axes(const Mesh *a, const Mesh *b)
{
    if (a->num_axes != b->num_axes || a->num_devices != b->num_devices)
        return false;
    for (int i = 0; i < a->num_axes; i++)
        if (a->axes[i].size != b->axes[i].size || strcmp(a->axes[i].name, b->axes[i].name) != 0)
            return false;
    return true;
}

static bool no_axes(const DimAxes *a)
{
    for (int d = 0; d < a->rank; d++)
        if (a->dims[d].count)
            return false;
    return true;
}

/* The reshard's input past propagation barriers, and its sharding: a
 * while's block argument has its op's sharding for that result. */
static Value *bypass_barriers(Value *v)
{
    while (v->def && v->def->kind == OP_PROPAGATION_BARRIER)
        v = v->def->operands[0];
    return v;
}

static const Sharding *input_sharding(const Value *v)
{
    const Op *owner = !v->def && v->block ? v->block->parent_op : NULL;
    if (v->sharding || !owner || owner->kind != OP_WHILE || v->index >= owner->num_results)
        return v->sharding;
    return owner->results[v->index]->sharding;
}

/* The reshard's collectives, their result replacing its; false (the
 * reshard stays) where Shardy's pass leaves it: meshes with other axes,
 * maximal meshes, no plan. A target with no axes is the source's
 * sharding closed and empty (Shardy's getFullyClosedLike). */
static bool lower_reshard(Module *m, Op *op, ReshardPlan *plan)
{
    Value *in = bypass_barriers(op->operands[0]), *out = op->results[0], *v = op->operands[0];
    const Sharding *from = input_sharding(in), *to = out->sharding;
    const Mesh *from_mesh = from && from->mesh ? from->mesh : to ? to->mesh : NULL;
    if (!to || !to->mesh || mesh_is_maximal(to->mesh) || mesh_is_maximal(from_mesh))
        return false;
    DimAxes a, b;
    reshard_dim_axes_from_sharding(&a, from, in->type.rank);
    reshard_dim_axes_from_sharding(&b, to, in->type.rank);
    Emit e = {m, op, from_mesh, no_axes(&b) ? from_mesh : to->mesh, no_axes(&b) ? from : to, -1};
    if (!no_axes(&a) || !no_axes(&b)) {
        ReshardOptions opt = {.shape = in->type.dims, .reorder_devices = e.to_mesh != from_mesh};
        AxisList partial = {0};
        if (!e.to_mesh->num_axes || !same_axes(from_mesh, e.to_mesh) ||
            !reshard_plan(plan, e.to_mesh, &a, &partial, &b, &opt) || (opt.reorder_devices && plan->reorder_step < 0))
            return false;
        e.reorder_step = plan->reorder_step;
        v = emit_plan(&e, in, plan, a);
    }
    ir_replace_uses(op->parent->parent_func ? op->parent->parent_func->body : op->parent, out, v);
    block_remove(op->parent, op);
    return true;
}

typedef struct Lowering {
    Module *m;
    ReshardPlan *plan;
} Lowering;

static bool visit(Op *op, void *user)
{
    Lowering *l = user;
    if (op->kind == OP_RESHARD)
        lower_reshard(l->m, op, l->plan);
    return true;
}

void mlir_reshard_to_collectives(Module *m)
{
    Arena scratch;  /* one plan (400 KB) for every reshard */
    arena_init(&scratch);
    Lowering l = {m, ARENA_NEW(&scratch, ReshardPlan)};
    ir_walk_module(m, &(IrWalker){.pre = visit, .user = &l, .scope = IR_WALK_GLOBAL});
    arena_free(&scratch);
}
