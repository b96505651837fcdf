/* The verifier's walk: every function, op, value sharding and region, and
 * the structural checks (arity, names, returns). */

/* The verifier's walk: every function, op, value sharding and region. */
#include <stdio.h>
#include <string.h>
#include "shardc/lapack.h"
#include "shardc/verify.h"

void verify_value_sharding(VerifyCtx *vc, Sharding **sharding, const TensorType *type, Loc loc,
                           const char *what)
{
    Sharding *s = *sharding;
    if (!s || !s->mesh)
        return;
    if (s->rank == 0 && type->rank > 0) {
        /* <@m, []> is P(): replicated, closed, whatever the rank. */
        Sharding *full = sharding_new_open(&vc->module->arena, s->mesh, type->rank);
        for (int d = 0; d < type->rank; d++)
            full->dims[d].is_closed = true;
        full->replicated = s->replicated;
        full->num_replicated = s->num_replicated;
        full->unreduced = s->unreduced;
        full->num_unreduced = s->num_unreduced;
        full->unreduced_op = s->unreduced_op;
        full->loc = s->loc;
        *sharding = full;
        return;
    }
    if (s->rank != type->rank)
        diag_error(vc->diag, s->loc, "%s has %d dim%s but the value has rank %d", what, s->rank,
                   s->rank == 1 ? "" : "s", type->rank);
}

/* The shard_map whose body holds op (the collectives' rules need it). */
static void enter_region_of(VerifyCtx *vc, const Op *op)
{
    const Op *owner = op->parent->parent_op;
    while (owner && owner->kind != OP_SHARD_MAP) /* through while and case regions */
        owner = owner->parent->parent_op;
    if (owner == vc->region_op)
        return;
    vc->region_op = owner;
    vc->region_mesh = owner ? op_attr_mesh(vc->module, owner, ATTR_KEY_MESH) : NULL;
}

static bool verify_walk_op(Op *op, void *vc)
{
    enter_region_of(vc, op);
    verify_op(vc, op);
    return true;
}

/* A token has no dims: its sharding, if any, is `<@mesh, []>` (in
 * Shardy's words, prefixed with the argument for a function's). */
static bool check_token(VerifyCtx *vc, const Value *v)
{
    if (v->type.rank != 0) {
        diag_error(vc->diag, v->loc, "a token has no shape: write token[], not %%%s's rank-%d type", v->name,
                   v->type.rank);
        return false;
    }
    const Sharding *s = v->sharding;
    if (!s || (s->rank == 0 && !s->num_replicated && !s->num_unreduced))
        return true;
    char where[64] = "";
    if (!v->def && v->block && !v->block->parent_op)
        snprintf(where, sizeof where, "'func.func' op arg %d - ", v->index);
    diag_error(vc->diag, s->loc, "%snon-shaped tensors can only have a sharding with rank 0 and no replicated or "
               "unreduced axes", where);
    return false;
}

static bool verify_walk_value(Value *v, void *user)
{
    VerifyCtx *vc = user;
    if (v->type.dtype == DT_TOKEN && !check_token(vc, v))
        return true;
    verify_value_sharding(vc, &v->sharding, &v->type, v->loc, "sharding");
    return true;
}

static void verify_func(VerifyCtx *vc, Func *f)
{
    vc->func = f;
    ir_walk(f->body, &(IrWalker){.value = verify_walk_value, .pre = verify_walk_op, .user = vc});
    Block *b = f->body;
    if (b->num_returns != f->num_results) {
        diag_error(vc->diag, b->return_loc, "'@%s' returns %d value%s but declares %d result%s", f->name,
                   b->num_returns, b->num_returns == 1 ? "" : "s", f->num_results, f->num_results == 1 ? "" : "s");
        return;
    }
    for (int i = 0; i < f->num_results; i++) {
        verify_value_sharding(vc, &f->result_shardings[i], &f->result_types[i], f->result_locs[i], "sharding");
        if (type_equal(&f->result_types[i], &b->returns[i]->type))
            continue;
        char want[256], got[256];
        verify_format_type(want, sizeof want, &f->result_types[i]);
        verify_format_type(got, sizeof got, &b->returns[i]->type);
        diag_error(vc->diag, b->return_loc, "returned value %%%s has type %s but '@%s' declares result %d as %s",
                   b->returns[i]->name, got, f->name, i, want);
    }
}

bool verify_module(Module *m, DiagEngine *diag)
{
    return verify_module_targets(m, diag, false);
}

bool verify_module_targets(Module *m, DiagEngine *diag, bool external_targets)
{
    return verify_module_checks(m, diag, external_targets, true);
}

bool verify_module_checks(Module *m, DiagEngine *diag, bool external_targets, bool groups)
{
    VerifyCtx vc = {.module = m, .diag = diag, .errors_before = diag->errors, .external_targets = external_targets};
    for (int i = 0; i < m->num_funcs; i++)
        verify_func(&vc, m->funcs[i]);
    if (groups)
        verify_sharding_groups(&vc);
    return diag->errors == vc.errors_before;
}

/* Verifier rules for calls, custom ops, sharding ops and shard_map. */

/* Operand and result types against a function's signature. */
static void verify_signature(VerifyCtx *vc, const Op *op, const Func *f, const char *role)
{
    if (f->body->num_args != op->num_operands || f->num_results != op->num_results) {
        diag_error(vc->diag, op_callee_loc(op), "%s '@%s' takes %d argument%s and returns %d result%s, but the op "
                   "has %d operand%s and %d result%s", role, f->name, f->body->num_args,
                   f->body->num_args == 1 ? "" : "s", f->num_results, f->num_results == 1 ? "" : "s",
                   op->num_operands, op->num_operands == 1 ? "" : "s", op->num_results,
                   op->num_results == 1 ? "" : "s");
        return;
    }
    char want[256], got[256];
    for (int i = 0; i < op->num_operands; i++) {
        if (type_equal(&f->body->args[i]->type, &op->operands[i]->type))
            continue;
        verify_format_type(want, sizeof want, &f->body->args[i]->type);
        verify_format_type(got, sizeof got, &op->operands[i]->type);
        diag_error(vc->diag, op_callee_loc(op), "operand %d (%%%s) has type %s but '@%s' expects %s", i,
                   op->operands[i]->name, got, f->name, want);
    }
    for (int i = 0; i < op->num_results; i++)
        verify_expect_type(vc, op, &f->result_types[i], op->results[i]);
}

static const Func *find_callee(VerifyCtx *vc, const char *name, Loc loc)
{
    const Func *f = module_find_func(vc->module, name);
    if (!f)
        diag_error(vc->diag, loc, "unknown function '@%s'", name);
    return f;
}

void verify_call(VerifyCtx *vc, Op *op)
{
    const Func *f = find_callee(vc, op->callee, op_callee_loc(op));
    if (f)
        verify_signature(vc, op, f, "function");
}

void verify_custom(VerifyCtx *vc, Op *op)
{
    const Func *impl = module_find_func(vc->module, op->callee);
    if (!impl && !vc->external_targets && lapack_is_target_name(op->callee)) /* a JAX target it cannot run */
        diag_error(vc->diag, op_callee_loc(op), "unknown LAPACK target '%s': shardc runs " LAPACK_KNOWN_TARGETS,
                   op->callee);
    else if (!vc->external_targets)
        impl = find_callee(vc, op->callee, op_callee_loc(op));
    if (impl)
        verify_signature(vc, op, impl, "custom op implementation");
    const AttrValue *partition = op_attr_get(op, ATTR_KEY_PARTITION);
    if (partition && partition->kind != ATTR_SYMBOL)
        diag_error(vc->diag, partition->loc, "'partition' must name a function: partition = @f");
    else if (partition) {
        const Func *f = find_callee(vc, partition->u.s, partition->loc);
        /* The partitioner keeps partition functions global: the op's own
         * function would never be partitioned, and would run per device. */
        if (f && f == vc->func)
            diag_error(vc->diag, partition->loc, "partition function '@%s' is the function holding the custom op",
                       f->name);
        else if (f && (f->body->num_args != op->num_operands || f->num_results != op->num_results))
            diag_error(vc->diag, partition->loc, "partition function '@%s' must take %d argument%s and "
                       "return %d result%s (the op's local shards)", f->name, op->num_operands,
                       op->num_operands == 1 ? "" : "s", op->num_results, op->num_results == 1 ? "" : "s");
    }
    verify_custom_rule(vc, op);
}

/* Shardy rejects BOTH: a barrier that lets everything through is no
 * barrier (its PropagationBarrierOp verifier). */
void verify_barrier(VerifyCtx *vc, Op *op)
{
    verify_expect_type(vc, op, &op->operands[0]->type, op->results[0]);
    const AttrValue *dir = op_attr_get(op, ATTR_KEY_ALLOWED_DIRECTION);
    if (!dir || dir->kind != ATTR_STRING)
        return; /* reported by verify_op_attrs */
    if (strcmp(dir->u.s, "both") == 0)
        diag_error(vc->diag, dir->loc, "'propagation_barrier' cannot specify `BOTH` as the direction "
                   "(allowed_direction = \"both\" would block nothing)");
    else if (op_barrier_directions(op) < 0)
        diag_error(vc->diag, dir->loc, "'allowed_direction' must be \"none\", \"forward\" or \"backward\", got \"%s\"",
                   dir->u.s);
}

void verify_group(VerifyCtx *vc, Op *op)
{
    const AttrValue *id = op_attr_get(op, ATTR_KEY_GROUP_ID);
    if (id && id->kind == ATTR_INT && id->u.i < 0)
        diag_error(vc->diag, id->loc, "'group_id' must be non-negative, got %lld", (long long)id->u.i);
}

/* Shardy's sdy.data_flow_edge: the identity whose (optional) sharding is
 * the sharding of its operand's data-flow edge. */
void verify_data_flow_edge(VerifyCtx *vc, Op *op)
{
    verify_expect_type(vc, op, &op->operands[0]->type, op->results[0]);
}

void verify_sharding_op(VerifyCtx *vc, Op *op)
{
    verify_expect_type(vc, op, &op->operands[0]->type, op->results[0]);
    /* logical names become the target sharding in the logical-axes pass */
    if (!op->results[0]->sharding && !op->results[0]->logical)
        diag_error(vc->diag, op->loc, "'%s' needs its target: {sharding = <@mesh, [...]>}",
                   op_info(op->kind)->name);
}
