/* Sharding groups (sharding_group ops, JAX's shard_alike): finding them,
 * merging group ids that share a value and numbering the merged groups by
 * first appearance (Shardy's -sdy-sharding-group-import), seeding every
 * member with the shardings its members already have, and keeping the
 * members equal while propagation runs (docs/propagation.md). */
#include <stdio.h>
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

static void add_member(ShardingGroups *g, int group, Op *op, Arena *arena)
{
    Value *v = op->operands[0];
    if (g->of_value[v->id] >= 0)
        return;
    g->of_value[v->id] = group;
    g->op_of_value[v->id] = op;
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
    g->num_values = m->num_values;
    g->of_value = ARENA_ARRAY(arena, int, m->num_values + 1);
    for (int v = 0; v < m->num_values; v++)
        g->of_value[v] = -1;
    g->op_of_value = ARENA_ARRAY(arena, Op *, m->num_values + 1);
    g->members = ARENA_ARRAY(arena, Value **, g->count + 1);
    g->num_members = ARENA_ARRAY(arena, int, g->count + 1);
    for (int i = 0; i < g->num_ops; i++)
        add_member(g, g->op_group[i], g->ops[i], arena);
}

void propagate_renumber_groups(Module *m, const ShardingGroups *g)
{
    for (int i = 0; i < g->num_ops; i++) {
        AttrValue *v = attr_new(&m->arena, ATTR_INT, op_attr_loc(g->ops[i], ATTR_KEY_GROUP_ID));
        v->u.i = g->op_group[i];
        op_attr_set(&m->arena, g->ops[i], ATTR_KEY_GROUP_ID, v);
    }
}

/* ---- seeding and keeping members equal ---- */

/* Whether a's axes begin b's. */
static bool axes_prefix(const DimSharding *a, const DimSharding *b)
{
    for (int k = 0; k < a->num_axes; k++)
        if (k >= b->num_axes || !axis_ref_equal(a->axes[k], b->axes[k]))
            return false;
    return a->num_axes <= b->num_axes;
}

static bool same_axes(const DimSharding *a, const DimSharding *b)
{
    return a->num_axes == b->num_axes && axes_prefix(a, b);
}

/* Whether a's axes are a strict prefix of b's and a may still grow. */
static bool grows_into(const DimSharding *a, const DimSharding *b)
{
    return !a->is_closed && a->num_axes < b->num_axes && axes_prefix(a, b);
}

static bool axes_used_twice(const Sharding *s)
{
    for (int d = 0; d < s->rank; d++)
        for (int e = d + 1; e < s->rank; e++)
            for (int i = 0; i < s->dims[d].num_axes; i++)
                for (int j = 0; j < s->dims[e].num_axes; j++)
                    if (axis_ref_overlaps(s->dims[d].axes[i], s->dims[e].axes[j]))
                        return true;
    return false;
}

/* Merge s into `into`, dim by dim; false if they conflict. */
static bool merge_sharding(Sharding *into, const Sharding *s)
{
    if (into->mesh != s->mesh || into->rank != s->rank)
        return false;
    for (int d = 0; d < s->rank; d++) {
        DimSharding *a = &into->dims[d];
        const DimSharding *b = &s->dims[d];
        if (same_axes(a, b))
            a->is_closed = a->is_closed || b->is_closed;
        else if (grows_into(a, b))
            *a = *b;
        else if (!grows_into(b, a))
            return false;
    }
    return !axes_used_twice(into);
}

/* The function body v lives in, through while, case and named-computation
 * regions and partial-manual bodies (the ones propagation enters); NULL in
 * a body it stays out of (a fully manual shard_map). */
static const Block *member_home(const Value *v)
{
    const Block *b = v->def ? v->def->parent : v->block;
    while (b && b->parent_op) {
        if (!prop_edge_owner(b))
            return NULL;
        b = b->parent_op->parent;
    }
    return b;
}

/* Propagation stays out of shard_map bodies, and so do groups there. */
static bool member_propagates(const Value *v)
{
    return member_home(v) != NULL;
}

static void report_conflict(DiagEngine *diag, const ShardingGroups *g, const Value *v, const Value *w)
{
    char *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    FILE *fa = open_memstream(&a, &na), *fb = open_memstream(&b, &nb);
    if (fa)
        print_sharding(fa, v->sharding), fclose(fa);
    if (fb)
        print_sharding(fb, w->sharding), fclose(fb);
    Loc where = v->sharding->loc.file ? v->sharding->loc : v->loc;
    diag_error(diag, where, "sharding group %lld: %%%s is %s but %%%s, in the same group, is %s; the members of a "
               "sharding group must have one sharding", (long long)op_attr_int(g->op_of_value[v->id], ATTR_KEY_GROUP_ID),
               v->name, a ? a : "?", w->name, b ? b : "?");
    diag_note(diag, w->sharding->loc.file ? w->sharding->loc : w->loc, "%%%s's sharding", w->name);
    diag_note(diag, g->op_of_value[v->id]->loc, "%%%s joins the group here", v->name);
    free(a);
    free(b);
}

static bool seed_group(Module *m, const ShardingGroups *g, int group, DiagEngine *diag)
{
    Sharding *merged = NULL;
    const Value *first = NULL;
    for (int i = 0; i < g->num_members[group]; i++) {
        const Value *v = g->members[group][i];
        if (!v->sharding || !member_propagates(v) || v->sharding->rank != v->type.rank)
            continue; /* a rank mismatch is the verifier's to report */
        if (!merged) {
            merged = sharding_clone(&m->arena, v->sharding);
            first = v;
        } else if (!merge_sharding(merged, v->sharding)) {
            report_conflict(diag, g, v, first);
            return false;
        }
    }
    for (int i = 0; merged && i < g->num_members[group]; i++)
        if (member_propagates(g->members[group][i]))
            g->members[group][i]->sharding = sharding_clone(&m->arena, merged);
    return true;
}

bool propagate_seed_groups(Module *m, const ShardingGroups *g, DiagEngine *diag)
{
    bool ok = true;
    for (int i = 0; i < g->count; i++)
        ok = seed_group(m, g, i, diag) && ok;
    return ok;
}

/* Whether w's function is yet to be propagated (functions go in module
 * order): a finished one has its shardings closed already. */
static bool home_pending(const PropagationState *st, const Block *home)
{
    bool seen_current = st->module_wide; /* every function is pending until the end */
    for (int f = 0; f < st->module->num_funcs; f++) {
        seen_current |= st->module->funcs[f] == st->func;
        if (st->module->funcs[f]->body == home)
            return seen_current;
    }
    return false;
}

/* Shardy's sharding-group propagation: whenever a member's sharding
 * changes, every member takes it, and their neighbours are revisited
 * (those of the function being propagated; the others' when their turn
 * comes). Members in functions already propagated keep what they have. */
void prop_groups_sync(PropagationState *st, const Value *v)
{
    const ShardingGroups *g = &st->groups;
    int group = g->of_value && v->id < g->num_values ? g->of_value[v->id] : -1;
    if (group < 0 || !member_propagates(v))
        return;
    for (int i = 0; i < g->num_members[group]; i++) {
        Value *w = g->members[group][i];
        const Block *home = member_home(w);
        if (w == v || !home || sharding_equal(w->sharding, v->sharding) || !home_pending(st, home))
            continue;
        DimOrigin *origins = st->options->explain ? origins_of(st->origins, &st->module->arena, w) : NULL;
        for (int d = 0; origins && d < w->type.rank; d++)
            if (v->sharding->dims[d].num_axes > (w->sharding ? w->sharding->dims[d].num_axes : 0))
                origins[d] = (DimOrigin){v, g->op_of_value[w->id], d, (Loc){0}};
        w->sharding = v->sharding;
        if (st->module_wide || home == st->func->body)
            prop_queue_neighbours(st, w);
    }
}

/* ---- Shardy's answer to conflicting members (shardc opt) ---- */

/* Whether the group's members' shardings cannot be merged, and the first
 * sharding that is not fully open (what the open constraints copy). */
static bool group_conflicts(const ShardingGroups *g, int group, Arena *arena, const Sharding **like)
{
    Sharding *merged = NULL;
    *like = NULL;
    for (int i = 0; i < g->num_members[group]; i++) {
        const Value *v = g->members[group][i];
        if (!v->sharding || !member_propagates(v) || v->sharding->rank != v->type.rank)
            continue;
        if (!merged) {
            merged = sharding_clone(arena, v->sharding);
            *like = v->sharding;
        } else if (!merge_sharding(merged, v->sharding)) {
            return true;
        }
    }
    return false;
}

/* The op a value belongs to, for the warning: its definer, the op whose
 * region it is an argument of, or (a function argument) NULL. */
static Loc owner_loc(const Value *v)
{
    if (v->def)
        return v->def->loc;
    if (v->block && v->block->parent_op)
        return v->block->parent_op->loc;
    return v->block && v->block->parent_func ? v->block->parent_func->loc : v->loc;
}

/* An open sharding_constraint right after v (first in its block for an
 * argument) that every other use of v now uses. */
static Value *constrain_member(Module *m, Value *v, const Sharding *like)
{
    Value *c = ir_insert_identity(m, v, OP_SHARDING_CONSTRAINT, "group")->results[0];
    c->sharding = sharding_new_open(&m->arena, like->mesh, v->type.rank);
    return c;
}

bool propagate_constrain_group_conflicts(Module *m, const ShardingGroups *g, DiagEngine *diag)
{
    bool changed = false;
    for (int group = 0; group < g->count; group++) {
        const Sharding *like;
        if (!g->num_members[group] || !group_conflicts(g, group, &m->arena, &like))
            continue;
        diag_warning(diag, owner_loc(g->members[group][0]), "The initial operand shardings on the sharding groups of "
                     "groupID: %d do not match. Inserting an open sharding constraint to all constrained values. "
                     "This can be caused when shardings from different values are grouped (e.g. from "
                     "jax.shard_alike) but have separate inconsistent sharding constraints on them.", group);
        for (int i = 0; i < g->num_members[group]; i++)
            constrain_member(m, g->members[group][i], like);
        changed = true;
    }
    return changed;
}

/* ---- Shardy's export: groups have done their work ---- */

static bool remove_group_op(Op *op, void *user)
{
    (void)user;
    if (op->kind == OP_SHARDING_GROUP)
        block_remove(op->parent, op);
    return true;
}

void propagate_remove_groups(Module *m)
{
    ir_walk_module(m, &(IrWalker){.pre = remove_group_op});
}
