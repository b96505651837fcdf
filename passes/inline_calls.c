/* Inline `call` and `named_computation` ops before propagation, so shardings flow through function
 * boundaries exactly as through the callee's ops (Shardy works on inlined
 * programs too). Custom ops' implementation and partition functions are
 * not calls and stay as they are. */
#include <stdio.h>
#include "shardc/ir_clone.h"
#include "shardc/pass.h"

/* Calls that fan out at every level (@g1 calls @g0 twice, @g2 calls @g1
 * twice, ...) grow exponentially in depth: a 1 KB file would inline into
 * billions of ops and exhaust memory. */
enum { MAX_INLINE_DEPTH = 64, MAX_INLINED_OPS = 1 << 20 };

typedef struct Inliner {
    Module *m;
    DiagEngine *diag;
    Arena sweep;        /* one sweep's map of call results */
    Arena call;         /* one call's map of callee values, reset per call */
    int counter;        /* numbers the name prefixes of inlined copies */
    int64_t inlined_ops;
} Inliner;

static bool count_op(Op *op, void *n)
{
    ++*(int64_t *)n;
    return true;
}

static int64_t count_ops(Block *b)
{
    int64_t n = 0;
    ir_walk(b, &(IrWalker){.pre = count_op, .user = &n});
    return n;
}

/* The body a call or named computation runs (a named computation's is
 * written in place), and the name that prefixes its inlined values. */
static const Block *called_body(Module *m, Op *call, const char **name)
{
    if (call->kind == OP_NAMED_COMPUTATION) {
        *name = op_attr_string(call, ATTR_KEY_NAME);
        return call->regions[0];
    }
    Func *callee = module_find_func(m, call->callee);
    callee->called = true;
    *name = callee->name;
    return callee->body;
}

/* Clone the callee's body before `call` and record what replaces each call
 * result in `results`. Operands that are results of calls inlined earlier
 * in the sweep are resolved through `results` first. A named computation's
 * argument shardings are not kept: its operands take their place. */
static bool inline_call(Inliner *in, Block *b, Op *call, ValueMap *results)
{
    Module *m = in->m;
    const char *callee;
    const Block *body = called_body(m, call, &callee);
    in->inlined_ops += count_ops((Block *)body); /* ir_walk takes no const */
    if (in->inlined_ops > MAX_INLINED_OPS) {
        diag_error(in->diag, call->loc, "inlining the calls would create more than %d ops "
                   "(calls that fan out at every level grow exponentially)", MAX_INLINED_OPS);
        return false;
    }
    ValueMap map;
    arena_reset(&in->call);
    value_map_init(&map, &in->call);
    for (int i = 0; i < call->num_operands; i++)
        value_map_put(&map, body->args[i], value_map_get(results, call->operands[i]));
    char prefix[64];
    snprintf(prefix, sizeof prefix, "%.40s%d", callee, in->counter++);
    const char *name = arena_strdup(&m->arena, prefix);
    for (const Op *op = body->first; op; op = op->next)
        block_insert_before(b, call, op_clone(m, op, &map, name));
    for (int i = 0; i < call->num_results; i++) {
        Value *returned = value_map_get(&map, body->returns[i]);
        if (!returned->sharding)
            returned->sharding = call->results[i]->sharding;
        value_map_put(results, call->results[i], returned);
    }
    block_remove(b, call);
    return true;
}

typedef struct Sweep {
    Inliner *in;
    ValueMap results;   /* what replaces each inlined call's results */
    bool changed;
} Sweep;

static bool inline_if_call(Op *op, void *user)
{
    Sweep *s = user;
    if (op->kind != OP_CALL && op->kind != OP_NAMED_COMPUTATION)
        return true;
    if (!inline_call(s->in, op->parent, op, &s->results))
        return false;
    s->changed = true;
    return true;
}

/* One pass over the block inlining every call in it; the other uses of
 * their results are rewritten once at the end, not once per call (that
 * made a function of many calls quadratic, and each call's maps, kept in
 * the module's arena, quadratic in memory). Calls in shard_map bodies
 * stay: they are per-device code, which propagation does not enter. */
static bool inline_sweep(Inliner *in, Block *b, bool *changed)
{
    Sweep s = {.in = in};
    arena_reset(&in->sweep);
    value_map_init(&s.results, &in->sweep);
    bool ok = ir_walk(b, &(IrWalker){.pre = inline_if_call, .user = &s, .scope = IR_WALK_GLOBAL});
    *changed = s.changed;
    if (ok && s.changed)
        block_replace_uses(b, &s.results);
    return ok;
}

/* Inline until no call is left; calls inside inlined bodies come around
 * again, up to a depth that only recursion reaches. */
static bool inline_block(Inliner *in, Block *b)
{
    for (int depth = 0; depth < MAX_INLINE_DEPTH; depth++) {
        bool changed;
        if (!inline_sweep(in, b, &changed))
            return false;
        if (!changed)
            return true;
    }
    diag_error(in->diag, b->first ? b->first->loc : (Loc){in->m->file, 0, 0},
               "calls nest deeper than %d levels (recursion?); cannot inline", MAX_INLINE_DEPTH);
    return false;
}

static bool run_inline_calls(Module *m, PassContext *ctx)
{
    if (ctx->options->keep_calls || (!m->ops_created[OP_CALL] && !m->ops_created[OP_NAMED_COMPUTATION]))
        return true;
    Inliner in = {.m = m, .diag = ctx->diag};
    arena_init(&in.sweep);
    arena_init(&in.call);
    bool ok = true;
    for (int i = 0; i < m->num_funcs && ok; i++)
        ok = inline_block(&in, m->funcs[i]->body);
    arena_free(&in.sweep);
    arena_free(&in.call);
    return ok;
}

const Pass pass_inline_calls = {"inline-calls", EMIT_PROPAGATED, run_inline_calls, NULL};
