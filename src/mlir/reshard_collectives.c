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

/* One collective for n steps of one kind on v, leaving it as `after`,
 * before `before`. */
static Value *emit_steps(Module *m, Op *before, Value *v, const ReshardStep *steps, int n, const Mesh *mesh,
                         const DimAxes *after)
{
    Op *op = op_new(m, step_op(steps[0].kind), v->loc);
    Value *r = value_new(m, v->name, v->type, v->loc);
    r->def = op;
    r->sharding = mlir_closed_sharding(m, mesh, after);
    op->num_operands = op->num_results = 1;
    op->operands = arena_memdup(&m->arena, &v, 1, sizeof(Value *));
    op->results = arena_memdup(&m->arena, &r, 1, sizeof(Value *));
    step_axes(m, op, steps, n, mesh, v->type.rank);
    block_insert_before(before->parent, before, op);
    return r;
}

/* Shardy's all-to-alls move one source dim's axes to one target dim
 * each: a merged all-to-all step of the plan is one op per move, from
 * `cur` (the layout before the step). */
static Value *emit_moves(Module *m, Op *before, Value *v, const ReshardStep *s, const Mesh *mesh,
                         const DimAxes *cur)
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
        v = emit_steps(m, before, v, &one, 1, mesh, i + 1 < s->num_moves ? &layout : &s->after);
    }
    return v;
}

/* The reshard's collectives, their result replacing its; false (the
 * reshard stays) where Shardy's pass leaves it: other meshes, maximal
 * meshes, no plan. */
static bool lower_reshard(Module *m, Op *op, ReshardPlan *plan)
{
    Value *in = op->operands[0], *out = op->results[0];
    const Sharding *from = mlir_sharding_bypassing_barriers(in), *to = out->sharding;
    DimAxes a, b, none;
    reshard_dim_axes_from_sharding(&a, from, in->type.rank);
    reshard_dim_axes_from_sharding(&b, to, in->type.rank);
    reshard_dim_axes_clear(&none, in->type.rank);
    bool replicated = reshard_dim_axes_equal(&a, &none) && reshard_dim_axes_equal(&b, &none);
    bool other_mesh = !to || !to->mesh || (from && from->mesh && strcmp(from->mesh->name, to->mesh->name));
    AxisList partial = {0};
    ReshardOptions opt = {.shape = in->type.dims};
    plan->num_steps = 0;
    if (!replicated && (other_mesh || !to->mesh->num_axes || !reshard_plan(plan, to->mesh, &a, &partial, &b, &opt)))
        return false;
    Value *v = in;
    for (int first = 0, last; first < plan->num_steps; first = last) {
        for (last = first + 1; last < plan->num_steps && plan->steps[last].kind == plan->steps[first].kind &&
                               plan->steps[first].kind != STEP_ALL_TO_ALL; last++)
            continue;
        if (plan->steps[first].kind == STEP_ALL_TO_ALL)
            v = emit_moves(m, op, v, &plan->steps[first], to->mesh, &a);
        else
            v = emit_steps(m, op, v, &plan->steps[first], last - first, to->mesh, &plan->steps[last - 1].after);
        a = plan->steps[last - 1].after;
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
