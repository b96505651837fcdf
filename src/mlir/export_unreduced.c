/* Shardy's explicit reshards for unreduced values (issue 16), as its
 * propagation pipeline's export inserts them: where a value unreduced over
 * some axes meets an op whose (first) result, or a function result, is not
 * unreduced over them all, an `sdy.all_reduce` over the missing axes goes
 * before the use, its out_sharding the value's without them
 * (insertAllReduceIfUnreducedToReplicated in Shardy's
 * explicit_reshards_util.cc). One per use, as Shardy's. */
#include <stdio.h>
#include <string.h>
#include "shardc/ir.h"
#include "shardc/layout.h"
#include "shardc/mlir.h"
#include "explicit_internal.h"

static void unreduced_list(AxisList *out, const Sharding *s)
{
    out->count = 0;
    for (int k = 0; s && k < s->num_unreduced && k < AXIS_LIST_MAX; k++)
        out->axes[out->count++] = s->unreduced[k];
}

static AttrValue *string_attr(Module *m, const char *s)
{
    AttrValue *a = attr_new(&m->arena, ATTR_STRING, (Loc){0});
    a->u.s = s;
    return a;
}

/* `axes` (their names) and `mesh` of a global-view collective. */
static void set_axes_attrs(Module *m, Op *op, const Mesh *mesh, const AxisList *list)
{
    AttrValue *axes = attr_new(&m->arena, ATTR_ARRAY, (Loc){0});
    axes->u.array.count = list->count;
    axes->u.array.items = ARENA_ARRAY(&m->arena, AttrValue *, list->count);
    for (int k = 0; k < list->count; k++) {
        char name[160];
        axis_ref_format(name, sizeof name, mesh, list->axes[k]);
        axes->u.array.items[k] = string_attr(m, arena_strdup(&m->arena, name));
    }
    op_attr_set(&m->arena, op, ATTR_KEY_AXES, axes);
    AttrValue *mesh_attr = attr_new(&m->arena, ATTR_SYMBOL, (Loc){0});
    mesh_attr->u.s = mesh->name;
    op_attr_set(&m->arena, op, ATTR_KEY_MESH, mesh_attr);
}

void mlir_all_reduce_attrs(Module *m, Op *op, const Mesh *mesh, const AxisList *reduce, UnreducedOp kind)
{
    set_axes_attrs(m, op, mesh, reduce);
    op_attr_set(&m->arena, op, ATTR_KEY_REDUCTION, string_attr(m, sharding_unreduced_op_name(kind)));
}

/* A one-operand op of `kind` on v whose result is sharded `out`, before
 * `before` in block b. */
static Op *insert_unary(Module *m, Block *b, Op *before, OpKind kind, Value *v, Sharding *out, const char *suffix)
{
    Op *op = op_new(m, kind, v->loc);
    op->num_operands = 1;
    op->operands = arena_memdup(&m->arena, &v, 1, sizeof(Value *));
    char name[256];
    snprintf(name, sizeof name, "%.200s.%s", v->name ? v->name : "v", suffix);
    Value *r = value_new(m, arena_strdup(&m->arena, name), v->type, v->loc);
    r->sharding = out;
    r->def = op;
    op->num_results = 1;
    op->results = arena_memdup(&m->arena, &r, 1, sizeof(Value *));
    block_insert_before(b, before, op);
    return op;
}

static void set_unreduced(Module *m, Sharding *s, const AxisList *axes, UnreducedOp kind)
{
    s->num_unreduced = axes->count;
    s->unreduced = arena_memdup(&m->arena, axes->axes, (size_t)axes->count, sizeof(AxisRef));
    s->unreduced_op = kind;
}

Value *mlir_unreduced_all_reduce(Module *m, Block *b, Op *before, Value *v, const Sharding *target)
{
    const Sharding *s = v->sharding;
    AxisList have, keep_target, reduce, keep;
    unreduced_list(&have, s);
    unreduced_list(&keep_target, target);
    axis_list_minus(&reduce, &have, &keep_target);
    if (!reduce.count)
        return v;
    axis_list_minus(&keep, &have, &reduce);
    Sharding *out = sharding_clone(&m->arena, s);
    set_unreduced(m, out, &keep, s->unreduced_op);
    Op *op = insert_unary(m, b, before, OP_ALL_REDUCE, v, out, "all_reduce");
    mlir_all_reduce_attrs(m, op, s->mesh, &reduce, s->unreduced_op);
    return op->results[0];
}

static Sharding *with_dims(Module *m, const Sharding *base, const DimAxes *dims)
{
    Sharding *s = mlir_closed_sharding(m, base->mesh, dims);
    s->num_replicated = base->num_replicated;
    s->replicated = base->replicated;
    s->num_unreduced = base->num_unreduced;
    s->unreduced = base->unreduced;
    s->unreduced_op = base->unreduced_op;
    return s;
}

Value *mlir_unreduced_collectives(Module *m, Block *b, Op *before, Value *v, const Sharding *target)
{
    const Sharding *in = v->sharding;
    if (!in || !target || !target->num_unreduced || !in->mesh || strcmp(in->mesh->name, target->mesh->name))
        return NULL;
    AxisList in_u, out_u, added, s2u, r2u;
    unreduced_list(&in_u, in);
    unreduced_list(&out_u, target);
    axis_list_minus(&added, &out_u, &in_u);
    if (!added.count)
        return NULL;
    DimAxes have, want, tmp, shed;
    reshard_dim_axes_from_sharding(&have, in, v->type.rank);
    reshard_dim_axes_from_sharding(&want, target, v->type.rank);
    Value *r = v;
    if (reshard_unreduced_split(&have, &want, &added, &tmp, &shed, &s2u))
        r = insert_unary(m, b, before, OP_RESHARD, r, with_dims(m, in, &tmp), "reshard")->results[0];
    axis_list_minus(&r2u, &added, &s2u);
    if (r2u.count) {
        AxisList now = in_u;
        axis_list_union(&now, &r2u);
        mlir_sort_and_merge_axes(&now);
        Sharding *s = with_dims(m, target, &tmp);
        set_unreduced(m, s, &now, target->unreduced_op);
        Op *op = insert_unary(m, b, before, OP_REPLICATED_TO_UNREDUCED, r, s, "unreduced");
        set_axes_attrs(m, op, in->mesh, &r2u);
        r = op->results[0];
    }
    if (s2u.count) {
        Op *op = insert_unary(m, b, before, OP_SHARDED_TO_UNREDUCED, r, sharding_clone(&m->arena, target), "unreduced");
        AttrValue *axes = attr_new(&m->arena, ATTR_SHARDING, (Loc){0});
        axes->u.sharding = mlir_closed_sharding(m, in->mesh, &shed);
        op_attr_set(&m->arena, op, ATTR_KEY_AXES, axes);
        r = op->results[0];
    }
    return r;
}


static bool reduce_operands(Op *op, void *user)
{
    Module *m = user;
    if (!op->num_results || op->kind == OP_SHARD_MAP) /* its in_specs are the target: explicit_reshards.c */
        return true;
    for (int i = 0; i < op->num_operands; i++)
        if (op->operands[i]->sharding && op->operands[i]->sharding->num_unreduced)
            op->operands[i] = mlir_unreduced_all_reduce(m, op->parent, op, op->operands[i], op->results[0]->sharding);
    return true;
}

void mlir_export_unreduced(Module *m)
{
    /* partially manual bodies too: their values are unreduced over free axes */
    ir_walk_module(m, &(IrWalker){.pre = reduce_operands, .user = m, .scope = IR_WALK_PROPAGATED});
    for (int f = 0; f < m->num_funcs; f++) {
        Func *fn = m->funcs[f];
        Block *b = fn->body;
        for (int j = 0; j < b->num_returns && j < fn->num_results; j++) {
            Value *v = b->returns[j];
            if (v->sharding && v->sharding->num_unreduced)
                b->returns[j] = mlir_unreduced_all_reduce(m, b, NULL, v, fn->result_shardings ? fn->result_shardings[j] : NULL);
        }
    }
}
