/* The lockstep engine: the devices of a shard_map as data, not threads.
 *
 * Every device runs the same ops in the same order, so the engine walks the
 * body once and runs each op for every device on a small worker pool (one
 * worker per core, `--threads`), then goes on to the next op. A collective
 * is a memory operation between the devices' buffers at the op that issues
 * it (transport_lockstep_new): its handler runs for every device twice, a
 * publish pass that records each device's sends and a complete pass that
 * reads them -- no per-device thread waits at a barrier. With 8 devices on
 * 2 cores that removes the context switches the threaded engine pays at
 * every collective.
 *
 * The engine needs every device to reach each collective of the body at
 * the same op: true of the body's own ops, not of a `while` or `case` (or a
 * call) whose region holds a collective, since the devices' trip counts and
 * branches may differ. Such bodies run on the threaded engine
 * (shard_map.c); so does a distributed run (one device per process). */
#include <stdlib.h>
#include "interp/interp_shard_map.h"
#include "interp/pool.h"

/* ---- which bodies ---------------------------------------------------------------- */

enum { SCAN_MAX_DEPTH = 64 };

static bool block_has_collective(const Module *m, const Block *b, int depth);

/* Whether running op may issue a collective on the caller's devices (a
 * nested shard_map has devices and a transport of its own). */
static bool op_has_collective(const Module *m, const Op *op, int depth)
{
    OpHandler h = exec_op_handler(op);
    if (h == exec_collective)
        return true;
    if (h == exec_shard_map)
        return false;
    if (depth >= SCAN_MAX_DEPTH)
        return true; /* recursion: assume the worst */
    for (int k = 0; k < op->num_regions; k++)
        if (block_has_collective(m, op->regions[k], depth + 1))
            return true;
    const Func *callee = op->callee ? module_find_func(m, op->callee) : NULL;
    return callee && block_has_collective(m, callee->body, depth + 1);
}

static bool block_has_collective(const Module *m, const Block *b, int depth)
{
    for (const Op *op = b->first; op; op = op->next)
        if (op_has_collective(m, op, depth))
            return true;
    return false;
}

bool interp_lockstep_fits(const Module *m, const Block *body)
{
    for (const Op *op = body->first; op; op = op->next)
        if (exec_op_handler(op) != exec_collective && op_has_collective(m, op, 0))
            return false;
    return true;
}

/* ---- running -------------------------------------------------------------------------- */

typedef struct Step {
    ShardMapRun *r;
    const Op *op;
    bool dry;
} Step;

static void device_begin(void *user, int64_t k)
{
    ShardMapRun *r = ((Step *)user)->r;
    DeviceRun *d = &r->devices[k];
    /* The blocks are held to the end, as a device thread holds them. */
    d->operands = calloc((size_t)r->op->num_operands + 1, sizeof *d->operands);
    d->ok = d->operands ? interp_device_operands(d, d->operands) : exec_fail(&d->exec, r->op, "out of memory");
    d->ok = d->ok && exec_block_begin(&d->exec, r->op->region, d->operands);
}

static void device_step(void *user, int64_t k)
{
    const Step *s = user;
    DeviceRun *d = &s->r->devices[k];
    d->ok = s->dry ? exec_block_dry(&d->exec, s->op) : exec_block_step(&d->exec, s->op);
}

static void device_end(void *user, int64_t k)
{
    ShardMapRun *r = ((Step *)user)->r;
    DeviceRun *d = &r->devices[k];
    d->ok = exec_block_end(&d->exec, r->op->region, d->ok, d->blocks);
    for (int i = 0; d->operands && i < r->op->num_operands; i++)
        tensor_release(d->operands[i]);
    free(d->operands);
    d->operands = NULL;
}

static bool all_ok(const ShardMapRun *r)
{
    for (int64_t k = 0; k < r->num_active; k++)
        if (!r->devices[k].ok)
            return false;
    return true;
}

/* One op on every device; a collective in its two passes. */
static bool step_all(InterpPool *pool, Step *s)
{
    if (exec_op_handler(s->op) == exec_collective) {
        transport_lockstep_pass(s->r->transport, false);
        s->dry = true;
        interp_pool_run(pool, s->r->num_active, device_step, s);
        s->dry = false;
        if (!all_ok(s->r))
            return false;
        transport_lockstep_pass(s->r->transport, true);
    }
    interp_pool_run(pool, s->r->num_active, device_step, s);
    return all_ok(s->r);
}

/* The pool of a top-level shard_map; devices of a nested one are already
 * on a worker and run in order. */
static InterpPool *pool_for(ExecCtx *x)
{
    InterpCtx *ic = x->ic;
    if (x->device)
        return NULL;
    if (!ic->pool && ic->threads != 1)
        ic->pool = interp_pool_new(ic->threads > 0 ? ic->threads : interp_default_threads());
    return ic->pool;
}

bool interp_lockstep_run(ExecCtx *x, ShardMapRun *r)
{
    InterpPool *pool = pool_for(x);
    Step s = {r, NULL, false};
    interp_pool_run(pool, r->num_active, device_begin, &s);
    bool ok = all_ok(r);
    for (const Op *op = r->op->region->first; ok && op; op = op->next) {
        s.op = op;
        ok = step_all(pool, &s);
    }
    bool stepped = ok;
    for (int64_t k = 0; k < r->num_active; k++)
        r->devices[k].ok = stepped; /* end: results only if every device got there */
    interp_pool_run(pool, r->num_active, device_end, &s);
    return interp_adopt_devices(x, r) && ok;
}
