/* Warnings for the factors whose shardings still disagree after
 * propagation: each is a conflict the partitioner will resolve by
 * resharding, so the user should hear about it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "shardc/print.h"
#include "propagate/propagation_state.h"

static void format_axes(char *buf, size_t len, const Mesh *mesh, const FactorSharding *fs)
{
    size_t n = (size_t)snprintf(buf, len, "{");
    for (int i = 0; i < fs->axes.count + fs->overflow.count && n < len; i++) {
        AxisRef r = i < fs->axes.count ? fs->axes.axes[i] : fs->overflow.axes[i - fs->axes.count];
        const char *name = mesh->axes[r.axis].name;
        if (axis_ref_is_full(mesh, r))
            n += (size_t)snprintf(buf + n, len - n, "%s\"%s\"", i ? ", " : "", name);
        else
            n += (size_t)snprintf(buf + n, len - n, "%s\"%s\":(%lld)%lld", i ? ", " : "", name,
                                  (long long)r.pre_size, (long long)r.size);
    }
    if (n < len)
        snprintf(buf + n, len - n, "}");
}

static bool same_factor_sharding(const FactorSharding *a, const FactorSharding *b)
{
    return axis_list_equal(&a->axes, &b->axes) && axis_list_equal(&a->overflow, &b->overflow);
}

static const char *tensor_name(const Op *op, int t)
{
    return t < op->num_operands ? op->operands[t]->name : op->results[t - op->num_operands]->name;
}

/* "factor F (size N) of 'op': {..} on %a but {..} on %b" for factor f's
 * first disagreement, appended to text; false if its tensors agree. */
static bool describe_conflict(PropagationState *st, const Op *op, const OpShardingRule *rule,
                              const ShardingProjection *p, int f, char *text, size_t len)
{
    int count = op->num_operands + op->num_results, first = -1;
    for (int t = 0; t < count; t++) {
        if (!p->tensors[t].factors[f].present)
            continue;
        if (first < 0) {
            first = t;
            continue;
        }
        if (same_factor_sharding(&p->tensors[first].factors[f], &p->tensors[t].factors[f]))
            continue;
        char a[256], b[256];
        format_axes(a, sizeof a, st->func_mesh, &p->tensors[first].factors[f]);
        format_axes(b, sizeof b, st->func_mesh, &p->tensors[t].factors[f]);
        size_t n = strlen(text);
        snprintf(text + n, len - n, "%sfactor %d (size %lld)%s%s%s: %s on %%%s but %s on %%%s", n ? "; " : "", f,
                 (long long)rule->factors[f].size, n ? "" : " of '", n ? "" : op_info(op->kind)->name, n ? "" : "'",
                 a, tensor_name(op, first), b, tensor_name(op, t));
        return true;
    }
    return false;
}

/* Whether axis a shards a factor other than f of an operand of p: the
 * data the op takes in (the batch, for FSDP) already uses it. */
static bool held_by_other_factor(const ShardingProjection *p, int f, AxisRef a)
{
    for (int t = 0; t < p->num_operands; t++)
        for (int g = 0; g < p->rule->num_factors; g++)
            for (int k = 0; g != f && p->tensors[t].factors[g].present && k < p->tensors[t].factors[g].axes.count; k++)
                if (axis_ref_equal(p->tensors[t].factors[g].axes.axes[k], a))
                    return true;
    return false;
}

/* FSDP (ZeRO-3): a parameter stored sharded along its contracting dim, on
 * an axis the op's batch already uses, must be gathered to be used, as the
 * user asked by storing it so. That is: no result has factor f (it is
 * contracted), every operand holding axes along f is a function argument
 * holding the same axes, and each such axis shards another factor of an
 * operand. No warning for it; any other disagreement is a conflict. */
static bool fsdp_gather(const PropagationState *st, const Op *op, const ShardingProjection *p, int f)
{
    const FactorSharding *held = NULL;
    for (int t = op->num_operands; t < p->num_tensors; t++)
        if (p->tensors[t].factors[f].present)
            return false;
    for (int t = 0; t < op->num_operands; t++) {
        const FactorSharding *fs = &p->tensors[t].factors[f];
        if (!fs->present || !fs->axes.count)
            continue;
        const Value *v = op->operands[t];
        if (v->def || v->block != st->func->body || (held && !axis_list_equal(&held->axes, &fs->axes)))
            return false;
        held = fs;
        for (int k = 0; k < fs->axes.count; k++)
            if (!held_by_other_factor(p, f, fs->axes.axes[k]))
                return false;
    }
    return held != NULL;
}

/* One warning per op, naming each factor whose shardings disagree. */
static void check_op(PropagationState *st, const Op *op, const OpShardingRule *rule)
{
    int count = op->num_operands + op->num_results;
    Sharding *shardings[count];
    const TensorType *types[count];
    const Mesh *mesh = st->func_mesh;
    for (int t = 0; t < count; t++) {
        const Value *v = t < op->num_operands ? op->operands[t] : op->results[t - op->num_operands];
        shardings[t] = v->sharding;
        types[t] = &v->type;
        if (v->sharding && v->sharding->mesh != mesh)
            return;
    }
    if (projection_agrees(rule, shardings, op->num_operands, count))
        return; /* the common case: no factor can disagree */
    ShardingProjection p;
    arena_reset(&st->scratch);
    projection_build(&p, &st->scratch, rule, mesh, shardings, types, op->num_operands, count);
    char text[2048] = "";
    for (int f = 0; f < rule->num_factors; f++)
        if (!(rule->blocked && rule->blocked[f]) && !fsdp_gather(st, op, &p, f)) /* both by design */
            describe_conflict(st, op, rule, &p, f, text, sizeof text);
    if (text[0])
        diag_warning(st->options->diag, op->loc, "conflicting shardings for %s; the partitioner will reshard", text);
}

/* Warn that `v`, laid out as `have`, must be resharded to the fixed `want`
 * (`what` says whose it is). Shardings are printed closed, as decided. */
static void warn_boundary(PropagationState *st, Loc loc, const Value *v, const Sharding *want, const char *what)
{
    if (!v->sharding || sharding_same_dim_axes(want, v->sharding))
        return;
    char *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    FILE *fa = open_memstream(&a, &na), *fb = open_memstream(&b, &nb);
    print_sharding(fa, v->sharding);
    print_sharding(fb, want);
    fclose(fa);
    fclose(fb);
    diag_warning(st->options->diag, loc, "%%%s is %s but %s is %s; the partitioner will reshard", v->name, a, what, b);
    free(a);
    free(b);
}

static bool warn_in_specs(Op *op, void *st)
{
    char what[128];
    const AttrValue *specs = op->kind == OP_SHARD_MAP ? op_attr_get(op, ATTR_KEY_IN_SPECS) : NULL;
    for (int i = 0; specs && i < op->num_operands && i < specs->u.array.count; i++) {
        snprintf(what, sizeof what, "in_specs[%d] of 'shard_map'", i);
        const Sharding *want = specs->u.array.items[i]->u.sharding;
        const Value *arg = op_is_partial_manual(op) ? op->region->args[i] : NULL;
        if (arg && arg->sharding) /* the whole sharding the body takes: manual axes, then free ones */
            want = sharding_join_manual(&((PropagationState *)st)->work, want, arg->sharding);
        warn_boundary(st, op->loc, op->operands[i], want, what);
    }
    return true;
}

/* Returned values laid out otherwise than their results' annotations, and
 * shard_map operands otherwise than their in_specs, are resharded there. */
void prop_report_boundary_conflicts(PropagationState *st, Func *f)
{
    char what[128];
    for (int i = 0; i < f->num_results; i++) {
        snprintf(what, sizeof what, "result %d of '@%s'", i, f->name);
        if (f->result_shardings[i])
            warn_boundary(st, f->result_locs[i], f->body->returns[i], f->result_shardings[i], what);
    }
    if (st->module->ops_created[OP_SHARD_MAP])
        ir_walk(f->body, &(IrWalker){.pre = warn_in_specs, .user = st, .scope = IR_WALK_PROPAGATED});
}

static bool check_op_conflicts(Op *op, void *st)
{
    /* reshard and sharding_constraint ask for a change of sharding, a
     * propagation_barrier for one not to pass: the reshard there is
     * intended, no conflict to warn about. */
    bool intended = op->kind == OP_RESHARD || op->kind == OP_SHARDING_CONSTRAINT || op->kind == OP_PROPAGATION_BARRIER;
    const OpShardingRule *rule = op->kind == OP_SHARD_MAP || intended ? NULL : prop_state_rule(st, op);
    /* An op whose last visit found its shardings agreeing, and which
     * still has them, has no conflict (most ops). */
    if (rule && !prop_visit_settled(st, op))
        check_op(st, op, rule);
    return true;
}

void prop_report_conflicts(PropagationState *st, Func *f)
{
    /* Not in shard_map bodies, which propagation does not enter. */
    if (st->func_mesh)
        ir_walk(f->body, &(IrWalker){.pre = check_op_conflicts, .user = st, .scope = IR_WALK_GLOBAL});
}
