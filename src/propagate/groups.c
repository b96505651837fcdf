/* Sharding groups (sharding_group ops, JAX's shard_alike): finding them,
 * merging group ids that share a value and numbering the merged groups by
 * first appearance (Shardy's -sdy-sharding-group-import), seeding every
 * member with the shardings its members already have, and keeping the
 * members equal while propagation runs (docs/propagation.md). */
#include <stdlib.h>
#include <string.h>
#include "propagate/propagation_state.h"
#include "shardc/print.h"

typedef struct GroupOps {
    Op **ops;
    int count, cap;
} GroupOps;

static bool collect_op(Op *op, void *user)
{
    GroupOps *g = user;
    if (op->kind != OP_SHARDING_GROUP || op->num_operands != 1)
        return true;
    if (g->count == g->cap) {
        int cap = g->cap ? g->cap * 2 : 16;
        Op **ops = realloc(g->ops, sizeof *ops * (size_t)cap);
        if (!ops)
            return false;
        g->ops = ops;
        g->cap = cap;
    }
    g->ops[g->count++] = op;
    return true;
}

static int compare_ids(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int find_root(int *parent, int i)
{
    while (parent[i] != i)
        i = parent[i] = parent[parent[i]];
    return i;
}

/* Each op's index among the distinct ids written, in `idx`. */
static int distinct_ids(const GroupOps *g, int *idx, Arena *arena)
{
    int64_t *ids = ARENA_ARRAY(arena, int64_t, g->count + 1);
    for (int i = 0; i < g->count; i++)
        ids[i] = op_attr_int(g->ops[i], ATTR_KEY_GROUP_ID);
    int64_t *sorted = ARENA_ARRAY(arena, int64_t, g->count + 1);
    memcpy(sorted, ids, sizeof *ids * (size_t)g->count);
    qsort(sorted, (size_t)g->count, sizeof *sorted, compare_ids);
    int n = 0;
    for (int i = 0; i < g->count; i++)
        if (n == 0 || sorted[n - 1] != sorted[i])
            sorted[n++] = sorted[i];
    for (int i = 0; i < g->count; i++)
        idx[i] = (int)((int64_t *)bsearch(&ids[i], sorted, (size_t)n, sizeof *sorted, compare_ids) - sorted);
    return n;
}

static void add_member(ShardingGroups *g, int group, Value *v, Arena *arena)
{
    if (g->of_value[v->id] >= 0)
        return;
    g->of_value[v->id] = group;
    int n = g->num_members[group];
    if ((n & (n - 1)) == 0) { /* grown at powers of two */
        Value **members = ARENA_ARRAY(arena, Value *, n ? 2 * n : 1);
        if (n)
            memcpy(members, g->members[group], sizeof *members * (size_t)n);
        g->members[group] = members;
    }
    g->members[group][g->num_members[group]++] = v;
}

/* Ids written on one value are one group; merged groups are numbered by
 * their first member in program order. */
static void merge_groups(ShardingGroups *g, const GroupOps *ops, const Module *m, Arena *arena)
{
    int *idx = ARENA_ARRAY(arena, int, ops->count + 1);
    int n = distinct_ids(ops, idx, arena);
    int *parent = ARENA_ARRAY(arena, int, n + 1), *number = ARENA_ARRAY(arena, int, n + 1);
    int *first_id = ARENA_ARRAY(arena, int, m->num_values + 1);
    for (int i = 0; i < n; i++)
        parent[i] = i, number[i] = -1;
    for (int v = 0; v < m->num_values; v++)
        first_id[v] = -1;
    for (int i = 0; i < ops->count; i++) {
        int v = ops->ops[i]->operands[0]->id;
        if (first_id[v] < 0)
            first_id[v] = idx[i];
        else
            parent[find_root(parent, idx[i])] = find_root(parent, first_id[v]);
    }
    g->op_group = ARENA_ARRAY(arena, int, ops->count + 1);
    for (int i = 0; i < ops->count; i++) {
        int r = find_root(parent, idx[i]);
        if (number[r] < 0)
            number[r] = g->count++;
        g->op_group[i] = number[r];
    }
}

void propagate_find_groups(ShardingGroups *g, const Module *m, Arena *arena)
{
    memset(g, 0, sizeof *g);
    GroupOps ops = {0};
    ir_walk_module(m, &(IrWalker){.pre = collect_op, .user = &ops});
    merge_groups(g, &ops, m, arena);
    g->num_ops = ops.count;
    g->ops = ARENA_ARRAY(arena, Op *, ops.count + 1);
    if (ops.count)
        memcpy(g->ops, ops.ops, sizeof *g->ops * (size_t)ops.count);
    free(ops.ops);
    g->of_value = ARENA_ARRAY(arena, int, m->num_values + 1);
    for (int v = 0; v < m->num_values; v++)
        g->of_value[v] = -1;
    g->members = ARENA_ARRAY(arena, Value **, g->count + 1);
    g->num_members = ARENA_ARRAY(arena, int, g->count + 1);
    for (int i = 0; i < g->num_ops; i++)
        add_member(g, g->op_group[i], g->ops[i]->operands[0], arena);
}

void propagate_renumber_groups(Module *m, const ShardingGroups *g)
{
    for (int i = 0; i < g->num_ops; i++) {
        AttrValue *v = attr_new(&m->arena, ATTR_INT, op_attr_loc(g->ops[i], ATTR_KEY_GROUP_ID));
        v->u.i = g->op_group[i];
        op_attr_set(&m->arena, g->ops[i], ATTR_KEY_GROUP_ID, v);
    }
}
