/* The one walk over ops: passes give callbacks instead of writing loops, so
 * none forgets the regions of an op (ir.h says what callbacks may do). */
#include <stdio.h>
#include "shardc/ir.h"

static bool walk_block(Block *b, const IrWalker *w);

static bool enters(const Op *op, IrWalkScope scope)
{
    if (scope == IR_WALK_PROPAGATED) /* a reduce's, scatter's or sort's body computes on scalars */
        return !op_has_scalar_body(op) && (op->kind != OP_SHARD_MAP || op_is_partial_manual(op));
    return scope == IR_WALK_ALL || (scope == IR_WALK_GLOBAL && op->kind != OP_SHARD_MAP);
}

/* The one place that knows where an op keeps its regions. */
static bool walk_regions(Op *op, const IrWalker *w)
{
    if (!enters(op, w->scope))
        return true;
    for (int i = 0; i < op->num_regions; i++)
        if (!walk_block(op->regions[i], w))
            return false;
    return !op->region || walk_block(op->region, w);
}

static bool walk_values(Value **values, int count, const IrWalker *w)
{
    for (int i = 0; w->value && i < count; i++)
        if (!w->value(values[i], w->user))
            return false;
    return true;
}

static bool walk_op(Block *b, Op *op, const IrWalker *w)
{
    if (w->pre && !w->pre(op, w->user))
        return false;
    if (op->parent != b)
        return true; /* pre removed it */
    return walk_values(op->results, op->num_results, w) && walk_regions(op, w) && (!w->post || w->post(op, w->user));
}

static bool walk_block(Block *b, const IrWalker *w)
{
    if ((w->enter && !w->enter(b, w->user)) || !walk_values(b->args, b->num_args, w))
        return false;
    for (Op *op = b->first, *next; op; op = next) {
        next = op->next;
        if (!walk_op(b, op, w))
            return false;
    }
    return !w->leave || w->leave(b, w->user);
}

bool ir_walk(Block *b, const IrWalker *w) { return walk_block(b, w); }

bool ir_walk_module(const Module *m, const IrWalker *w)
{
    for (int i = 0; i < m->num_funcs; i++)
        if (!walk_block(m->funcs[i]->body, w))
            return false;
    return true;
}

typedef struct UseCount {
    int *count;
    bool skip_groups;
} UseCount;

static bool count_operand_uses(Op *op, void *user)
{
    UseCount *u = user;
    for (int i = 0; !(u->skip_groups && op->kind == OP_SHARDING_GROUP) && i < op->num_operands; i++)
        u->count[op->operands[i]->id]++;
    return true;
}

static bool count_returned_uses(Block *b, void *user)
{
    UseCount *u = user;
    for (int i = 0; i < b->num_returns; i++)
        u->count[b->returns[i]->id]++;
    return true;
}

void ir_count_uses(Block *b, int *count, bool skip_groups)
{
    UseCount u = {count, skip_groups};
    ir_walk(b, &(IrWalker){.pre = count_operand_uses, .leave = count_returned_uses, .user = &u,
                           .scope = IR_WALK_ALL});
}

/* ---- inserting an identity after a value ---- */

typedef struct Replacement {
    Value *from, *to;
} Replacement;

static bool replace_operand_uses(Op *op, void *user)
{
    Replacement *r = user;
    if (op != r->to->def)
        for (int i = 0; i < op->num_operands; i++)
            if (op->operands[i] == r->from)
                op->operands[i] = r->to;
    return true;
}

static bool replace_returned(Block *b, void *user)
{
    Replacement *r = user;
    for (int i = 0; i < b->num_returns; i++)
        if (b->returns[i] == r->from)
            b->returns[i] = r->to;
    return true;
}

void ir_replace_uses(Block *body, Value *from, Value *to)
{
    Replacement r = {from, to};
    ir_walk(body, &(IrWalker){.pre = replace_operand_uses, .leave = replace_returned, .user = &r,
                              .scope = IR_WALK_ALL});
}

static void insert_after_value(Block *b, Value *v, Op *op)
{
    if (v->def && v->def->next)
        block_insert_before(b, v->def->next, op);
    else if (v->def || !b->first)
        block_append(b, op);
    else
        block_insert_before(b, b->first, op);
}

Op *ir_insert_identity(Module *m, Value *v, OpKind kind, const char *suffix)
{
    Op *op = op_new(m, kind, v->loc);
    char name[256];
    snprintf(name, sizeof name, "%.200s.%.40s", v->name ? v->name : "v", suffix);
    Value *c = value_new(m, arena_strdup(&m->arena, name), v->type, v->loc);
    c->def = op;
    op->num_operands = op->num_results = 1;
    op->operands = ARENA_ARRAY(&m->arena, Value *, 1);
    op->results = ARENA_ARRAY(&m->arena, Value *, 1);
    op->operands[0] = v;
    op->results[0] = c;
    Block *b = v->def ? v->def->parent : v->block;
    insert_after_value(b, v, op);
    ir_replace_uses(b->parent_func ? b->parent_func->body : b, v, c);
    return op;
}
