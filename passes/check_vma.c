/* The check_vma pass: JAX's `check_vma` for every shard_map. It computes
 * the varying manual axes of every value in each body (src/verify/vma.c)
 * and reports an out_spec that leaves out a manual axis the returned value
 * varies over (src/verify/vma.c). `check_vma = false` on a shard_map turns
 * its check off. It runs right after the verifier, on every --emit.
 * relax-vma, after partitioning, turns it off where the partitioner's own
 * collectives make a replication JAX's rules cannot see. */
#include <string.h>
#include "shardc/pass.h"
#include "shardc/vma.h"

enum { MAX_CALL_DEPTH = 64 };

typedef struct VmaCtx {
    const Module *module;
    DiagEngine *diag;
    Arena *arena;
    int words;              /* of every AxisSet: enough for the largest mesh */
    uint64_t *bits;         /* every value's set, `words` each, by Value.id (vma_of) */
    const Mesh *mesh;       /* of the innermost shard_map, or NULL */
    AxisSet manual;         /* manual axes there, enclosing ones included */
    AxisSet scratch;        /* operands_vma's answer, until its next call */
    int call_depth;
    bool report;            /* false while a callee is analysed for a call:
                               its own walk reports its errors, once */
    ArenaList *unprovable;  /* relax-vma: the shard_maps to uncheck, instead
                               of reports */
} VmaCtx;

static void vma_block(VmaCtx *cx, const Block *b);

/* v's set of varying manual axes: its slice of the block. */
static AxisSet vma_of(const VmaCtx *cx, const Value *v)
{
    return (AxisSet){cx->words, cx->bits + (size_t)v->id * (size_t)cx->words};
}

/* The union of the operands' sets, in cx's scratch set: read it before
 * the next call (an op's walk allocates nothing). */
static AxisSet operands_vma(const VmaCtx *cx, const Op *op)
{
    AxisSet m = cx->scratch;
    axis_set_clear(m);
    for (int i = 0; i < op->num_operands; i++)
        axis_set_union(m, vma_of(cx, op->operands[i]));
    return m;
}

/* A call's results vary as the callee's body makes them, given the VMAs
 * of the arguments (calls are not inlined yet). Outside manual regions
 * nothing varies, so there is nothing to follow. */
static void vma_call(VmaCtx *cx, const Op *op)
{
    const Func *callee = module_find_func(cx->module, op->callee);
    if (!callee || !cx->mesh || cx->call_depth >= MAX_CALL_DEPTH) {
        for (int i = 0; i < op->num_results; i++)
            axis_set_copy(vma_of(cx, op->results[i]), operands_vma(cx, op));
        return;
    }
    for (int i = 0; i < op->num_operands && i < callee->body->num_args; i++)
        axis_set_copy(vma_of(cx, callee->body->args[i]), vma_of(cx, op->operands[i]));
    VmaCtx inner = *cx;
    inner.call_depth++;
    inner.report = false;
    vma_block(&inner, callee->body);
    for (int i = 0; i < op->num_results && i < callee->body->num_returns; i++)
        axis_set_copy(vma_of(cx, op->results[i]), vma_of(cx, callee->body->returns[i]));
}

/* The shard_map's manual_axes (default: every axis of its mesh). */
static AxisSet manual_axes(const VmaCtx *cx, const Mesh *mesh, const Op *op)
{
    AxisSet m = axis_set_new(cx->arena, cx->words);
    const AttrValue *list = op_attr_get(op, ATTR_KEY_MANUAL_AXES);
    if (!list || list->kind != ATTR_ARRAY) {
        vma_add_all_axes(m, mesh);
        return m;
    }
    for (int i = 0; i < list->u.array.count; i++) {
        const AttrValue *name = list->u.array.items[i];
        for (int k = 0; k < mesh->num_axes; k++)
            if (name->kind == ATTR_STRING && !strcmp(name->u.s, mesh->axes[k].name))
                axis_set_add(m, k);
    }
    return m;
}

static const AttrValue *spec_at(const Op *op, AttrKey key, int i)
{
    const AttrValue *specs = op_attr_get(op, key);
    if (!specs || specs->kind != ATTR_ARRAY || i >= specs->u.array.count)
        return NULL;
    return specs->u.array.items[i]->kind == ATTR_SHARDING ? specs->u.array.items[i] : NULL;
}

/* Each out_spec must name every manual axis of this shard_map the
 * returned value varies over (JAX's _valid_repeats). */
static void check_out_specs(VmaCtx *cx, const Op *op, AxisSet this_manual)
{
    for (int i = 0; i < op->num_results && i < op->region->num_returns && cx->report; i++) {
        const AttrValue *spec = spec_at(op, ATTR_KEY_OUT_SPECS, i);
        const Value *returned = op->region->returns[i];
        AxisSet failing = axis_set_new(cx->arena, cx->words), mentioned = axis_set_new(cx->arena, cx->words);
        vma_add_sharding_axes(mentioned, spec ? spec->u.sharding : NULL);
        axis_set_copy(failing, vma_of(cx, returned));
        axis_set_intersect(failing, this_manual);
        axis_set_remove(failing, mentioned);
        if (!spec || axis_set_is_empty(failing))
            continue;
        if (cx->unprovable) {
            arena_list_push(cx->arena, cx->unprovable, (void *)op);
            return;
        }
        VmaFailure f = {op, cx->mesh, i, spec, returned, vma_of(cx, returned), failing, cx->arena};
        vma_report(cx->diag, &f);
    }
}

/* Block arguments vary over the axes their in_spec names, and over what
 * the operand already varies over (JAX's _shard_shaped_array). */
static void enter_body(VmaCtx *cx, const Op *op, const Mesh *mesh)
{
    for (int i = 0; i < op->region->num_args && i < op->num_operands; i++) {
        AxisSet arg = vma_of(cx, op->region->args[i]);
        const AttrValue *spec = spec_at(op, ATTR_KEY_IN_SPECS, i);
        axis_set_copy(arg, mesh == cx->mesh ? vma_of(cx, op->operands[i]) : axis_set_new(cx->arena, cx->words));
        vma_add_sharding_axes(arg, spec ? spec->u.sharding : NULL);
    }
}

/* Results keep only the enclosing region's manual axes (JAX's
 * _unshard_shaped_array); an unchecked body's results vary over nothing. */
static void vma_shard_map(VmaCtx *cx, const Op *op)
{
    const Mesh *mesh = op_attr_mesh(cx->module, op, ATTR_KEY_MESH);
    bool checked = op_attr_bool(op, ATTR_KEY_CHECK_VMA);
    if (!mesh)
        return;
    VmaCtx inner = *cx;
    AxisSet this_manual = manual_axes(cx, mesh, op);
    inner.mesh = mesh;
    inner.manual = axis_set_new(cx->arena, cx->words);
    axis_set_copy(inner.manual, mesh == cx->mesh ? cx->manual : inner.manual);
    axis_set_union(inner.manual, this_manual);
    enter_body(cx, op, mesh);
    vma_block(&inner, op->region);
    if (checked)
        check_out_specs(&inner, op, this_manual);
    for (int i = 0; i < op->num_results && i < op->region->num_returns; i++) {
        AxisSet result = vma_of(cx, op->results[i]);
        axis_set_clear(result);
        if (checked && mesh == cx->mesh)
            axis_set_union(result, vma_of(cx, op->region->returns[i]));
        axis_set_intersect(result, cx->manual);
    }
}

/* ---- control flow: results vary as the regions make them ------------------------ */

/* out[i] |= what region b returns at i; whether any set grew. Sets only
 * grow, so a count tells a change. */
static bool join_returns(const VmaCtx *cx, const Block *b, AxisSet *out, int n)
{
    bool grew = false;
    for (int i = 0; i < n && i < b->num_returns; i++) {
        int before = axis_set_count(out[i]);
        axis_set_union(out[i], vma_of(cx, b->returns[i]));
        grew |= axis_set_count(out[i]) != before;
    }
    return grew;
}

static void set_args(const VmaCtx *cx, const Block *b, AxisSet *vals, int n)
{
    for (int i = 0; i < n && i < b->num_args; i++)
        axis_set_copy(vma_of(cx, b->args[i]), vals[i]);
}

/* The results' sets, seeded with each operand's (or empty). */
static AxisSet *result_sets(const VmaCtx *cx, const Op *op, bool seed)
{
    AxisSet *sets = ARENA_ARRAY(cx->arena, AxisSet, op->num_results + 1);
    for (int i = 0; i < op->num_results; i++) {
        sets[i] = axis_set_new(cx->arena, cx->words);
        if (seed && i < op->num_operands)
            axis_set_copy(sets[i], vma_of(cx, op->operands[i]));
    }
    return sets;
}

static void store_results(VmaCtx *cx, const Op *op, AxisSet *sets, AxisSet extra)
{
    for (int i = 0; i < op->num_results; i++) {
        AxisSet r = vma_of(cx, op->results[i]);
        axis_set_copy(r, sets[i]);
        if (extra.bits)
            axis_set_union(r, extra);
        axis_set_intersect(r, cx->manual);
    }
}

/* A carried value varies over what its initial value and every iteration's
 * body make it vary over: iterate the body to a fixpoint (silently: a
 * shard_map in it is reported once, on the last walk). The results also
 * vary over the cond's axes: devices that disagree on it run different
 * numbers of iterations. */
static void vma_while(VmaCtx *cx, const Op *op)
{
    if (op->num_regions != 2) {
        store_results(cx, op, result_sets(cx, op, true), (AxisSet){0, NULL});
        return;
    }
    const Block *cond = op->regions[0], *body = op->regions[1];
    AxisSet *carried = result_sets(cx, op, true);
    VmaCtx quiet = *cx;
    quiet.report = false;
    bool grew = true;
    while (grew) {
        set_args(cx, cond, carried, op->num_results);
        set_args(cx, body, carried, op->num_results);
        vma_block(&quiet, body);
        grew = join_returns(cx, body, carried, op->num_results);
    }
    vma_block(cx, body);
    vma_block(cx, cond);
    AxisSet pred = cond->num_returns ? vma_of(cx, cond->returns[0]) : (AxisSet){0, NULL};
    store_results(cx, op, carried, pred);
}

/* A result varies as any branch's return does, and over the index's axes:
 * devices that disagree on the index take different branches. */
static void vma_case(VmaCtx *cx, const Op *op)
{
    AxisSet *sets = result_sets(cx, op, false);
    for (int k = 0; k < op->num_regions; k++) {
        vma_block(cx, op->regions[k]);
        join_returns(cx, op->regions[k], sets, op->num_results);
    }
    AxisSet index = op->num_operands ? vma_of(cx, op->operands[0]) : (AxisSet){0, NULL};
    store_results(cx, op, sets, index);
}

/* named_computation: a call written in place, position by position. */
static void vma_named(VmaCtx *cx, const Op *op)
{
    AxisSet *sets = result_sets(cx, op, false);
    if (op->num_regions == 1) {
        AxisSet *args = ARENA_ARRAY(cx->arena, AxisSet, op->num_operands + 1);
        for (int i = 0; i < op->num_operands; i++)
            args[i] = vma_of(cx, op->operands[i]);
        set_args(cx, op->regions[0], args, op->num_operands);
        vma_block(cx, op->regions[0]);
        join_returns(cx, op->regions[0], sets, op->num_results);
    }
    store_results(cx, op, sets, (AxisSet){0, NULL});
}

static void vma_op(VmaCtx *cx, const Op *op)
{
    switch (op->kind) {
    case OP_SHARD_MAP: vma_shard_map(cx, op); return;
    case OP_CALL: vma_call(cx, op); return;
    case OP_WHILE: vma_while(cx, op); return;
    case OP_CASE: vma_case(cx, op); return;
    case OP_NAMED_COMPUTATION: vma_named(cx, op); return;
    /* the identity, position by position */
    case OP_OPTIMIZATION_BARRIER: store_results(cx, op, result_sets(cx, op, true), (AxisSet){0, NULL}); return;
    default: break;
    }
    AxisSet operands = operands_vma(cx, op);
    for (int i = 0; i < op->num_results; i++) {
        AxisSet result = vma_of(cx, op->results[i]);
        vma_result(cx->mesh, op, operands, result);
        axis_set_intersect(result, cx->manual);
    }
}

/* The block's own ops: vma_shard_map goes into a body itself, with the
 * body's mesh and manual axes. */
static void vma_block(VmaCtx *cx, const Block *b)
{
    for (const Op *op = b->first; op; op = op->next)
        vma_op(cx, op);
}

/* One AxisSet per value, all of the width of the module's largest mesh,
 * in one zeroed block (not an allocation each). */
static void init_ctx(VmaCtx *cx, Module *m, DiagEngine *diag, Arena *arena)
{
    int max_axes = 0;
    for (int i = 0; i < m->num_meshes; i++)
        max_axes = m->meshes[i]->num_axes > max_axes ? m->meshes[i]->num_axes : max_axes;
    *cx = (VmaCtx){.module = m, .diag = diag, .arena = arena, .words = axis_set_words(max_axes), .report = true};
    cx->bits = ARENA_ARRAY(arena, uint64_t, (size_t)cx->words * ((size_t)m->num_values + 1));
    cx->manual = axis_set_new(arena, cx->words);
    cx->scratch = axis_set_new(arena, cx->words);
}

/* Every function's body walked: reported, or collected in `unprovable`. */
static void walk_module(Module *m, DiagEngine *diag, Arena *arena, ArenaList *unprovable)
{
    VmaCtx cx;
    init_ctx(&cx, m, diag, arena);
    cx.unprovable = unprovable;
    for (int i = 0; i < m->num_funcs; i++) {
        const Block *body = m->funcs[i]->body;
        for (int a = 0; a < body->num_args; a++)
            axis_set_clear(vma_of(&cx, body->args[a])); /* a call analysis may have set them */
        vma_block(&cx, body);
    }
}

static bool run_check_vma(Module *m, PassContext *ctx)
{
    /* Values vary over manual axes only in shard_map bodies and partition
     * functions (custom ops name them). */
    if (!m->ops_created[OP_SHARD_MAP] && !m->ops_created[OP_CUSTOM])
        return true;
    int errors_before = ctx->diag->errors;
    Arena arena;
    arena_init(&arena);
    walk_module(m, ctx->diag, &arena, NULL);
    arena_free(&arena);
    return ctx->diag->errors == errors_before;
}

const Pass pass_check_vma = {"check-vma", EMIT_IR, run_check_vma, NULL};

/* On the partitioned program: the partitioner's shard_maps return values
 * its all_gathers made replicated, which JAX's rules still call varying
 * (lax.all_gather is; only all_gather_invariant is not). Such a shard_map
 * says check_vma = false, as a JAX user would write it, so that the
 * program prints, re-parses and verifies as it is; the others stay
 * checked. */
static bool run_relax_vma(Module *m, PassContext *ctx)
{
    Arena arena;
    arena_init(&arena);
    ArenaList unprovable = {0};
    walk_module(m, ctx->diag, &arena, &unprovable);
    for (int i = 0; i < unprovable.count; i++) {
        Op *op = unprovable.items[i];
        AttrValue *off = attr_new(&m->arena, ATTR_BOOL, op->loc);
        off->u.b = false;
        op_attr_set(&m->arena, op, ATTR_KEY_CHECK_VMA, off);
    }
    arena_free(&arena);
    return true;
}

const Pass pass_relax_vma = {"relax-vma", EMIT_PARTITIONED, run_relax_vma, NULL};
