/* The explicit-axes pass: JAX's explicit sharding mode ("sharding in
 * types") on meshes with `explicit` axes. It runs after inlining and
 * before propagation: for every function on such a mesh it decides each
 * value's sharding along the explicit axes op by op with JAX's rules
 * (src/explicit_rules*.c), reports JAX's errors where a rule has no
 * answer, and writes the decisions into the values' shardings in a form
 * propagation cannot change (src/explicit/spec.c), so that propagation
 * only decides the auto axes. Manual region bodies are per-device code
 * and are left alone. */
#include "shardc/explicit.h"
#include "shardc/layout.h"
#include "shardc/pass.h"

static const Mesh *op_mesh(const Module *m, const Op *op)
{
    for (int i = 0; i < op->num_results; i++)
        if (op->results[i]->sharding)
            return op->results[i]->sharding->mesh;
    const Sharding *out = op_attr_sharding(op, ATTR_KEY_OUT_SHARDING);
    if (out)
        return out->mesh;
    return op->kind == OP_SHARD_MAP ? op_attr_mesh(m, op, ATTR_KEY_MESH) : NULL;
}

typedef struct MeshFind {
    const Module *m;
    const Mesh *mesh;
} MeshFind;

static bool find_op_mesh(Op *op, void *user)
{
    MeshFind *find = user;
    find->mesh = op_mesh(find->m, op);
    return !find->mesh;
}

/* The first mesh the function's arguments, results or ops (not those of
 * manual region bodies) name. */
static const Mesh *func_mesh(const Module *m, const Func *f)
{
    for (int i = 0; i < f->body->num_args; i++)
        if (f->body->args[i]->sharding)
            return f->body->args[i]->sharding->mesh;
    for (int i = 0; i < f->num_results; i++)
        if (f->result_shardings[i])
            return f->result_shardings[i]->mesh;
    MeshFind find = {m, NULL};
    ir_walk(f->body, &(IrWalker){.pre = find_op_mesh, .user = &find, .scope = IR_WALK_GLOBAL});
    return find.mesh;
}

static bool has_explicit_axis(const Mesh *mesh)
{
    for (int k = 0; k < mesh->num_axes; k++)
        if (mesh->axes[k].is_explicit)
            return true;
    return false;
}

/* An operand whose defining op failed counts as replicated, so that one
 * error does not cascade. */
static XSpec *spec_of(ExplicitCtx *cx, const Value *v)
{
    if (!cx->specs[v->id])
        cx->specs[v->id] = xspec_replicated(cx->arena, v->type.rank);
    return cx->specs[v->id];
}

/* out_sharding (JAX's out_sharding argument) decides a single result's
 * type outright, before any rule could object; otherwise the op's rule. */
static bool result_specs(ExplicitCtx *cx, const Op *op, XSpec *const *in, XSpec **out)
{
    const Sharding *given = op_attr_sharding(op, ATTR_KEY_OUT_SHARDING);
    if (given && op->num_results == 1) {
        out[0] = xspec_of_sharding(cx->arena, cx->mesh, given, op->results[0]->type.rank);
        return true;
    }
    return explicit_rule(op_info(op->kind)->op_class)(cx, op, in, out);
}

/* JAX's NamedSharding check (sharding_impls._check_unique_resources). */
static void report_duplicate(ExplicitCtx *cx, const Op *op, const XSpec *spec, AxisRef dup)
{
    TextBuf t;
    textbuf_init(&t);
    xspec_format_pspec(&t, cx->mesh, spec);
    char name[128];
    axis_ref_format(name, sizeof name, cx->mesh, dup);
    textbuf_add(&t, " has duplicate entries for `%s", name);
    diag_error(cx->diag, op->loc, "A single NamedSharding spec specification can map every mesh axis to at most one "
               "positional dimension, but %s`", t.text);
}

static void report_annotation(ExplicitCtx *cx, const Op *op, const Value *v, const XSpec *spec)
{
    TextBuf t;
    textbuf_init(&t);
    xspec_format_pspec(&t, cx->mesh, xspec_of_sharding(cx->arena, cx->mesh, v->sharding, spec->rank));
    textbuf_add(&t, " along explicit axes, but JAX's sharding rule for '%s' gives ", op_info(op->kind)->name);
    xspec_format_pspec(&t, cx->mesh, spec);
    diag_error(cx->diag, v->loc, "%%%s is annotated %s; along explicit axes the sharding is part of the type: "
               "change it with reshard or the op's out_sharding", v->name, t.text);
}

static void accept_result(ExplicitCtx *cx, const Op *op, const Value *v, XSpec *spec)
{
    AxisRef dup;
    if (xspec_duplicate(spec, &dup))
        report_duplicate(cx, op, spec, dup);
    else if (!explicit_annotation_agrees(cx, v, spec))
        report_annotation(cx, op, v, spec);
    else
        cx->specs[v->id] = spec;
}

static void explicit_op(ExplicitCtx *cx, const Op *op)
{
    XSpec *in[op->num_operands + 1], *out[op->num_results + 1];
    for (int i = 0; i < op->num_operands; i++)
        in[i] = spec_of(cx, op->operands[i]);
    for (int i = 0; i < op->num_results; i++)
        out[i] = NULL;
    if (!result_specs(cx, op, in, out))
        return;
    for (int i = 0; i < op->num_results; i++)
        if (out[i])
            accept_result(cx, op, op->results[i], out[i]);
}

static bool explicit_walk_op(Op *op, void *cx)
{
    explicit_op(cx, op);
    return true;
}

typedef struct SpecWriter {
    Module *m;
    const ExplicitCtx *cx;
} SpecWriter;

static bool write_spec(Value *v, void *user)
{
    const SpecWriter *w = user;
    explicit_write(w->m, w->cx, v);
    return true;
}

/* Manual region bodies are left alone (the global scope). */
static void explicit_func(Module *m, Func *f, Arena *arena, DiagEngine *diag)
{
    const Mesh *mesh = func_mesh(m, f);
    if (!mesh || !has_explicit_axis(mesh))
        return;
    ExplicitCtx cx = {diag, mesh, arena, ARENA_ARRAY(arena, XSpec *, m->num_values + 1)};
    Block *b = f->body;
    for (int i = 0; i < b->num_args; i++) /* `shardc opt`'s dynamic arguments, used by no op, get no spec */
        if (type_is_static(&b->args[i]->type))
            cx.specs[b->args[i]->id] = xspec_of_sharding(arena, mesh, b->args[i]->sharding, b->args[i]->type.rank);
    ir_walk(b, &(IrWalker){.pre = explicit_walk_op, .user = &cx, .scope = IR_WALK_GLOBAL});
    SpecWriter writer = {m, &cx};
    ir_walk(b, &(IrWalker){.value = write_spec, .user = &writer, .scope = IR_WALK_GLOBAL});
}

static bool run_explicit_axes(Module *m, PassContext *ctx)
{
    int errors_before = ctx->diag->errors;
    Arena arena;
    arena_init(&arena);
    for (int i = 0; i < m->num_funcs; i++)
        explicit_func(m, m->funcs[i], &arena, ctx->diag);
    arena_free(&arena);
    return ctx->diag->errors == errors_before;
}

const Pass pass_explicit_axes = {"explicit-axes", EMIT_PROPAGATED, run_explicit_axes, NULL};
