/* --explain on what did not happen (docs/propagation.md, "--explain"): for
 * each value, the axes a neighbour holds along a factor they share that
 * the value does not, and why propagation did not pass them on: a blocked
 * factor, a closed dim, the value's own annotation, an axis already used
 * by another dim, a conflict between neighbours, a barrier, conservative
 * mode. Computed at the fixed point, while the rules and the user's
 * annotations are at hand, into the origin table that --explain prints. */
#include <stdio.h>
#include <string.h>
#include "shardc/layout.h"
#include "shardc/print.h"
#include "propagate/propagation_state.h"

typedef struct Miss {
    PropagationState *st;
    const Op *op;
    const OpShardingRule *rule;
    const ShardingProjection *p;
    Value *const *values;
    int tensor, factor;     /* the tensor that lacks axes, along this factor */
    int offer;              /* the tensor that holds them */
    AxisRef axis;           /* the first axis it lacks */
} Miss;

static void format_list(char *buf, size_t len, const Mesh *mesh, const AxisList *axes)
{
    size_t n = (size_t)snprintf(buf, len, "{");
    for (int i = 0; i < axes->count && n < len; i++) {
        char a[64];
        axis_ref_format(a, sizeof a, mesh, axes->axes[i]);
        n += (size_t)snprintf(buf + n, len - n, "%s\"%s\"", i ? ", " : "", a);
    }
    if (n < len)
        snprintf(buf + n, len - n, "}");
}

static bool is_prefix(const AxisList *a, const AxisList *b)
{
    return axis_list_equal(a, b) || axis_list_strict_prefix(a, b);
}

/* The dim of tensor t that factor f is part of. */
static int dim_of_factor(const OpShardingRule *rule, int t, int f)
{
    const TensorFactors *tf = t < rule->num_operands ? &rule->operands[t] : &rule->results[t - rule->num_operands];
    for (int d = 0; d < tf->rank; d++)
        for (int k = 0; k < tf->dims[d].count; k++)
            if (tf->dims[d].factors[k] == f)
                return d;
    return -1;
}

static bool axes_overlap(AxisRef a, AxisRef b)
{
    return a.axis == b.axis && a.pre_size < b.pre_size * b.size && b.pre_size < a.pre_size * a.size;
}

/* Another dim of v that holds (part of) the axis. */
static int dim_using(const Value *v, int except, AxisRef a)
{
    for (int d = 0; v->sharding && d < v->sharding->rank; d++)
        for (int k = 0; d != except && k < v->sharding->dims[d].num_axes; k++)
            if (axes_overlap(v->sharding->dims[d].axes[k], a))
                return d;
    return -1;
}

/* A third tensor whose axes along the factor neither extend nor are
 * extended by the offer's: neither side wins (Shardy takes the longest
 * common prefix). */
static int conflicting_tensor(const Miss *m)
{
    const AxisList *offer = &m->p->tensors[m->offer].factors[m->factor].axes;
    for (int t = 0; t < m->p->num_tensors; t++) {
        const FactorSharding *fs = &m->p->tensors[t].factors[m->factor];
        if (t != m->offer && t != m->tensor && fs->present && !is_prefix(&fs->axes, offer) &&
            !is_prefix(offer, &fs->axes))
            return t;
    }
    return -1;
}

static const char *loc_text(char *buf, size_t len, Loc loc)
{
    snprintf(buf, len, "%s:%d:%d", loc.file ? loc.file : "", loc.line, loc.col);
    return buf;
}

/* The annotation dim d of v took its axes from, following the origins
 * back; false if it has none (a fixed spec, nothing recorded). */
static bool annotation_of(const OriginTable *t, const Value *v, int d, const Value **root, int *root_dim)
{
    for (int guard = 0; v && guard < 10000 && v->id < t->num_values && t->dims[v->id]; guard++) {
        const DimOrigin *o = &t->dims[v->id][d];
        if (!o->from)
            return false;
        if (!o->via) {
            *root = v;
            *root_dim = d;
            return true;
        }
        d = o->from_dim;
        v = o->from;
    }
    return false;
}

/* " (pN)" for an annotated dim with a priority, else "". */
static const char *priority_text(char *buf, size_t len, const Sharding *user, int d)
{
    buf[0] = 0;
    if (user && d >= 0 && d < user->rank && user->dims[d].priority != PRIORITY_NONE)
        snprintf(buf, len, " (p%d)", user->dims[d].priority);
    return buf;
}

/* v holds other axes along the factor: where they came from, with the
 * priorities of both annotations when they decided it. */
static void held_instead(const Miss *m, int dim, char *out, size_t len)
{
    const PropagationState *st = m->st;
    const Value *v = m->values[m->tensor], *u = m->values[m->offer], *root = NULL;
    int root_dim = 0, offer_dim = dim_of_factor(m->rule, m->offer, m->factor);
    char have[512], pw[16], po[16], loc[256];
    format_list(have, sizeof have, st->func_mesh, &m->p->tensors[m->tensor].factors[m->factor].axes);
    if (!annotation_of(st->origins, v, dim, &root, &root_dim)) {
        snprintf(out, len, "%%%s holds %s along it instead", v->name, have);
        return;
    }
    const Sharding *won = st->user[root->id], *lost = u ? st->user[u->id] : NULL;
    priority_text(pw, sizeof pw, won, root_dim);
    priority_text(po, sizeof po, lost, offer_dim);
    loc_text(loc, sizeof loc, won ? won->loc : root->loc);
    if (pw[0] && po[0]) /* both annotations had priorities: say which lost */
        snprintf(out, len, "%%%s holds %s along it instead, from the annotation of %%%s%s at %s, over %%%s's%s",
                 v->name, have, root->name, pw, loc, u->name, po);
    else
        snprintf(out, len, "%%%s holds %s along it instead, from the annotation of %%%s%s at %s", v->name, have,
                 root->name, pw, loc);
}

/* Why the value at m->tensor did not take m->axis, most specific first. */
static void reason(const Miss *m, int dim, char *out, size_t len)
{
    const Value *v = m->values[m->tensor];
    const Sharding *user = m->st->user[v->id];
    const Mesh *mesh = m->st->func_mesh;
    char a[64], loc[256], other[512];
    axis_ref_format(a, sizeof a, mesh, m->axis);
    int used = dim_using(v, dim, m->axis), conflict = conflicting_tensor(m);
    if (m->rule->blocked && m->rule->blocked[m->factor])
        snprintf(out, len, "the factor is blocked: '%s' passes no sharding on along it (Shardy's blocked_propagation)",
                 op_info(m->op->kind)->name);
    else if (m->op->kind == OP_PROPAGATION_BARRIER)
        snprintf(out, len, "the propagation_barrier at %s allows only %s", loc_text(loc, sizeof loc, m->op->loc),
                 op_attr_string(m->op, ATTR_KEY_ALLOWED_DIRECTION));
    else if (user && dim < user->rank && user->dims[dim].is_closed)
        snprintf(out, len, "dim %d of %%%s is closed by its annotation at %s", dim, v->name,
                 loc_text(loc, sizeof loc, user->loc));
    else if (user && dim < user->rank && user->dims[dim].num_axes)
        snprintf(out, len, "%%%s's own annotation at %s holds the dim and is not extended past it", v->name,
                 loc_text(loc, sizeof loc, user->loc));
    else if (used >= 0)
        snprintf(out, len, "axis \"%s\" already shards dim %d of %%%s", a, used, v->name);
    else if (m->p->tensors[m->tensor].factors[m->factor].axes.count)
        held_instead(m, dim, out, len);
    else if (conflict >= 0) {
        format_list(other, sizeof other, mesh, &m->p->tensors[conflict].factors[m->factor].axes);
        snprintf(out, len, "conflict: %%%s holds %s along the same factor; neither extends the other, so "
                 "propagation takes only their common prefix", m->values[conflict] ? m->values[conflict]->name : "?",
                 other);
    } else if (m->p->conservative)
        snprintf(out, len, "conservative propagation (--propagation=conservative) does not shard a dim its "
                 "axes do not divide, nor make sub-axes");
    else
        snprintf(out, len, "no rule passed it on (the partitioner reshards between the two)");
}

/* One line: dim D of %v lacks {axes} %u holds through 'op' at loc: why. */
static void record(const Miss *m)
{
    const Value *v = m->values[m->tensor], *u = m->values[m->offer];
    int dim = dim_of_factor(m->rule, m->tensor, m->factor);
    if (!v || dim < 0)
        return;
    char offered[512], why[1024], loc[256], line[2048], who[160] = "a fixed spec";
    if (u)
        snprintf(who, sizeof who, "%%%s", u->name);
    format_list(offered, sizeof offered, m->st->func_mesh, &m->p->tensors[m->offer].factors[m->factor].axes);
    reason(m, dim, why, sizeof why);
    snprintf(line, sizeof line, "  dim %d: not %s, which %s holds through '%s' at %s:\n      %s\n", dim, offered,
             who, op_info(m->op->kind)->name, loc_text(loc, sizeof loc, m->op->loc), why);
    origins_add_missing(m->st->origins, &m->st->module->arena, v, line);
}

/* Tensor t lacks some of what tensor `offer` holds along factor f. */
static bool lacks(const ShardingProjection *p, int t, int offer, int f)
{
    const FactorSharding *have = &p->tensors[t].factors[f], *other = &p->tensors[offer].factors[f];
    return t != offer && have->present && other->present && other->axes.count &&
           !is_prefix(&other->axes, &have->axes);
}

static void explain_op(PropagationState *st, const Op *op, const OpShardingRule *rule, Value **values, Sharding **shardings,
                       int count)
{
    ShardingProjection p;
    const TensorType *types[count];
    for (int t = 0; t < count; t++)
        types[t] = &values[t]->type;
    arena_reset(&st->scratch);
    projection_build(&p, &st->scratch, rule, st->func_mesh, shardings, types, op->num_operands, count);
    for (int f = 0; f < rule->num_factors; f++)
        for (int t = 0; t < count; t++)
            for (int o = 0; o < count; o++) {
                if (!lacks(&p, t, o, f))
                    continue;
                const AxisList *have = &p.tensors[t].factors[f].axes, *offer = &p.tensors[o].factors[f].axes;
                int k = 0;
                while (k < have->count && k < offer->count && axis_ref_equal(have->axes[k], offer->axes[k]))
                    k++;
                record(&(Miss){st, op, rule, &p, values, t, f, o, offer->axes[k < offer->count ? k : 0]});
                break; /* one offer per tensor and factor */
            }
}

static bool explain_visit(Op *op, void *user)
{
    PropagationState *st = user;
    int count = op->num_operands + op->num_results;
    const OpShardingRule *rule = op->kind == OP_SHARD_MAP ? NULL : prop_state_rule(st, op);
    if (!rule || !count || rule->num_operands + rule->num_results != count)
        return true;
    Value *values[count];
    Sharding *shardings[count];
    for (int t = 0; t < count; t++) {
        values[t] = t < op->num_operands ? op->operands[t] : op->results[t - op->num_operands];
        shardings[t] = values[t]->sharding;
        if (values[t]->sharding && values[t]->sharding->mesh != st->func_mesh)
            return true;
    }
    explain_op(st, op, rule, values, shardings, count);
    return true;
}

void prop_explain_missing(PropagationState *st, Func *f)
{
    if (st->func_mesh)
        ir_walk(f->body, &(IrWalker){.pre = explain_visit, .user = st, .scope = IR_WALK_GLOBAL});
}
