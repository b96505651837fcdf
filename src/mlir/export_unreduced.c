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

/* The all-reduce of v over the axes `target` does not keep unreduced, or
 * v itself when there are none. Before `before` in block b. */
static Value *reduce_for(Module *m, Block *b, Op *before, Value *v, const Sharding *target)
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
    out->num_unreduced = keep.count;
    out->unreduced = arena_memdup(&m->arena, keep.axes, (size_t)keep.count, sizeof(AxisRef));
    Op *op = op_new(m, OP_ALL_REDUCE, v->loc);
    op->num_operands = 1;
    op->operands = arena_memdup(&m->arena, &v, 1, sizeof(Value *));
    char name[256];
    snprintf(name, sizeof name, "%s.all_reduce", v->name);
    Value *r = value_new(m, arena_strdup(&m->arena, name), v->type, v->loc);
    r->sharding = out;
    r->def = op;
    op->num_results = 1;
    op->results = arena_memdup(&m->arena, &r, 1, sizeof(Value *));
    mlir_all_reduce_attrs(m, op, s->mesh, &reduce, s->unreduced_op);
    block_insert_before(b, before, op);
    return r;
}

void mlir_all_reduce_attrs(Module *m, Op *op, const Mesh *mesh, const AxisList *reduce, UnreducedOp kind)
{
    AttrValue *axes = attr_new(&m->arena, ATTR_ARRAY, (Loc){0});
    axes->u.array.count = reduce->count;
    axes->u.array.items = ARENA_ARRAY(&m->arena, AttrValue *, reduce->count);
    for (int k = 0; k < reduce->count; k++) {
        char name[160];
        axis_ref_format(name, sizeof name, mesh, reduce->axes[k]);
        axes->u.array.items[k] = string_attr(m, arena_strdup(&m->arena, name));
    }
    op_attr_set(&m->arena, op, ATTR_KEY_AXES, axes);
    op_attr_set(&m->arena, op, ATTR_KEY_REDUCTION, string_attr(m, sharding_unreduced_op_name(kind)));
    AttrValue *mesh_attr = attr_new(&m->arena, ATTR_SYMBOL, (Loc){0});
    mesh_attr->u.s = mesh->name;
    op_attr_set(&m->arena, op, ATTR_KEY_MESH, mesh_attr);
}

static bool reduce_operands(Op *op, void *user)
{
    Module *m = user;
    if (!op->num_results)
        return true;
    for (int i = 0; i < op->num_operands; i++)
        if (op->operands[i]->sharding && op->operands[i]->sharding->num_unreduced)
            op->operands[i] = reduce_for(m, op->parent, op, op->operands[i], op->results[0]->sharding);
    return true;
}

void mlir_export_unreduced(Module *m)
{
    ir_walk_module(m, &(IrWalker){.pre = reduce_operands, .user = m, .scope = IR_WALK_GLOBAL});
    for (int f = 0; f < m->num_funcs; f++) {
        Func *fn = m->funcs[f];
        Block *b = fn->body;
        for (int j = 0; j < b->num_returns && j < fn->num_results; j++) {
            Value *v = b->returns[j];
            if (v->sharding && v->sharding->num_unreduced)
                b->returns[j] = reduce_for(m, b, NULL, v, fn->result_shardings ? fn->result_shardings[j] : NULL);
        }
    }
}
