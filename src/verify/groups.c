/* Sharding groups across the module, as Shardy's ShardingGroupOp verifier
 * checks them: all values of one group_id have the same shape and the same
 * enclosing shard_map (Shardy's manual computation). Each later member is
 * compared with the group's first, in program order. The messages keep
 * Shardy's wording, so its -verify-diagnostics annotations match. */
#include <stdlib.h>
#include "shardc/verify.h"

typedef struct GroupEntry {
    int64_t id;
    int order;              /* program order, for a stable sort */
    const Op *op;
    const Op *region;       /* innermost enclosing shard_map, or NULL */
} GroupEntry;

typedef struct GroupList {
    GroupEntry *items;
    int count, cap;
} GroupList;

static const Op *enclosing_shard_map(const Op *op)
{
    for (const Block *b = op->parent; b && b->parent_op; b = b->parent_op->parent)
        if (b->parent_op->kind == OP_SHARD_MAP)
            return b->parent_op;
    return NULL;
}

static bool collect_group(Op *op, void *user)
{
    GroupList *l = user;
    if (op->kind != OP_SHARDING_GROUP)
        return true;
    const AttrValue *id = op_attr_get(op, ATTR_KEY_GROUP_ID);
    if (!id || id->kind != ATTR_INT || op->num_operands != 1)
        return true;
    if (l->count == l->cap) {
        int cap = l->cap ? l->cap * 2 : 16;
        GroupEntry *items = realloc(l->items, sizeof *items * (size_t)cap);
        if (!items)
            return false;
        l->items = items;
        l->cap = cap;
    }
    l->items[l->count] = (GroupEntry){id->u.i, l->count, op, enclosing_shard_map(op)};
    l->count++;
    return true;
}

static int compare_entries(const void *pa, const void *pb)
{
    const GroupEntry *a = pa, *b = pb;
    if (a->id != b->id)
        return a->id < b->id ? -1 : 1;
    return a->order - b->order;
}

static void check_member(VerifyCtx *vc, const GroupEntry *first, const GroupEntry *e)
{
    const Value *v = e->op->operands[0], *w = first->op->operands[0];
    if (e->region != first->region) {
        diag_error(vc->diag, e->op->loc, "ShardingGroupOps values cannot cross ManualComputationOp boundaries "
                   "for groupId: %lld (%%%s and %%%s are not in the same shard_map body)", (long long)e->id,
                   v->name, w->name);
        diag_note(vc->diag, first->op->loc, "the group's first member");
    } else if (!type_same_shape(&v->type, &w->type)) {
        char a[256], b[256];
        verify_format_type(a, sizeof a, &v->type);
        verify_format_type(b, sizeof b, &w->type);
        diag_error(vc->diag, e->op->loc, "ShardingGroupOps values must have the same shape for groupId: %lld "
                   "(%%%s is %s, %%%s is %s)", (long long)e->id, v->name, a, w->name, b);
        diag_note(vc->diag, first->op->loc, "the group's first member");
    }
}

void verify_sharding_groups(VerifyCtx *vc)
{
    if (!vc->module->ops_created[OP_SHARDING_GROUP])
        return; /* no walk for a module that never had a group */
    GroupList l = {0};
    ir_walk_module(vc->module, &(IrWalker){.pre = collect_group, .user = &l});
    if (l.count)
        qsort(l.items, (size_t)l.count, sizeof *l.items, compare_entries);
    for (int i = 0, first = 0; i < l.count; i++) {
        if (l.items[i].id != l.items[first].id)
            first = i;
        else if (i != first)
            check_member(vc, &l.items[first], &l.items[i]);
    }
    free(l.items);
}
