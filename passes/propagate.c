/* The propagation pass: Shardy-style factor propagation to a fixed point
 * (src/propagate/propagate.c), with --explain origins; before it, one
 * warning when a program declares a mesh and shards nothing on it. */
#include "shardc/pass.h"
#include "shardc/propagate.h"

static bool shards(const Sharding *s)
{
    for (int d = 0; s && d < s->rank; d++)
        if (s->dims[d].num_axes)
            return true;
    return s && s->num_unreduced; /* partial values per device */
}

/* A sharding attribute (sharding_constraint's, shard_map's specs) naming an axis. */
static bool attr_shards(const AttrValue *v)
{
    if (v && v->kind == ATTR_SHARDING)
        return shards(v->u.sharding);
    for (int i = 0; v && v->kind == ATTR_ARRAY && i < v->u.array.count; i++)
        if (attr_shards(v->u.array.items[i]))
            return true;
    return false;
}

static bool op_unsharded(Op *op, void *user)
{
    (void)user;
    for (int i = 0; i < op->num_attrs; i++)
        if (attr_shards(op->attrs[i].value))
            return false;
    /* manual axes shard a shard_map's body; a collective names mesh axes */
    return op->kind != OP_SHARD_MAP && !op_attr_find(op, ATTR_KEY_AXES);
}

static bool value_unsharded(Value *v, void *user)
{
    (void)user;
    return !shards(v->sharding);
}

static bool shards_nothing(const Module *m)
{
    for (int i = 0; i < m->num_funcs; i++) {
        const Func *f = m->funcs[i];
        for (int r = 0; f->result_shardings && r < f->num_results; r++)
            if (shards(f->result_shardings[r]))
                return false;
        for (int a = 0; a < f->body->num_args; a++)
            if (shards(f->body->args[a]->sharding))
                return false;
    }
    return ir_walk_module(m, &(IrWalker){.pre = op_unsharded, .value = value_unsharded});
}

/* A mesh and no sharding: most likely a forgotten annotation, since the
 * program then runs whole on every device. Said once, at the first mesh. */
static void warn_unsharded(const Module *m, DiagEngine *diag)
{
    const Mesh *mesh = NULL;
    for (int i = 0; !mesh && i < m->num_meshes; i++)
        mesh = mesh_is_empty(m->meshes[i]) ? NULL : m->meshes[i];
    if (mesh && shards_nothing(m))
        diag_warning(diag, mesh->loc, "mesh @%s is declared but nothing is sharded: every device holds and computes "
                     "the whole program", mesh->name);
}

static bool run_propagate(Module *m, PassContext *ctx)
{
    PropagateOptions options = {.mode = (PropagationMode)ctx->options->propagation,
                                .conservative = ctx->options->conservative_propagation,
                                .diag = ctx->diag,
                                /* --auto-shard's conflicts are reshards its model priced */
                                .warn_conflicts = !ctx->options->quiet_conflicts && !ctx->options->auto_shard,
                                .origins = ctx->origins,
                                .explain = ctx->origins && ctx->options->explain,
                                .skip_apply_constraints = ctx->options->constraints_not_applied};
    int errors = ctx->diag->errors; /* -Werror makes the warning one */
    if (!ctx->options->quiet_conflicts) /* sdy_opt does not warn */
        warn_unsharded(m, ctx->diag);
    return propagate_module(m, &options) && ctx->diag->errors == errors;
}

const Pass pass_propagate = {"propagate", EMIT_PROPAGATED, run_propagate, NULL};
