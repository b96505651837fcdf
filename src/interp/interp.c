/* The interpreter's engine: the op dispatch table, the per-function plan
 * (value lifetimes), running blocks with an environment of tensors by
 * Value.id, calls and custom ops, and the entry point. */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "interp/interp_internal.h"
#include "interp/pool.h"
#include "shardc/kern_libs.h"
#include "shardc/limits.h"

/* One handler per op class (opclasses.def's exec column): a class without
 * one does not compile. */
static const OpHandler class_handlers[OPC_COUNT] = {
#define OPCLASS(cls, verify, rule, explicit, partition, exec) [cls] = exec,
#include "shardc/opclasses.def"
#undef OPCLASS
};

static OpHandler op_handler(const Op *op) { return class_handlers[op_info(op->kind)->op_class]; }

/* ---- contexts and failures ---------------------------------------------------- */

void interp_ctx_init(InterpCtx *ic, DiagEngine *diag)
{
    memset(ic, 0, sizeof *ic);
    ic->diag = diag;
    ic->max_steps = INTERP_DEFAULT_MAX_STEPS;
    pthread_mutex_init(&ic->stats_lock, NULL);
    ic->libs = kern_libs_new();
}

void interp_ctx_free(InterpCtx *ic)
{
    free(ic->stats.device_peak_bytes);
    ic->stats.device_peak_bytes = NULL;
    cost_tally_free(&ic->stats.traffic);
    interp_pool_free(ic->pool);
    ic->pool = NULL;
    pthread_mutex_destroy(&ic->stats_lock);
    kern_libs_free(ic->libs);
    ic->libs = NULL;
}

void exec_ctx_init(ExecCtx *x, InterpCtx *ic, const Module *m, const ExecPlan *plan, TensorAccounting *acct,
                   const DeviceCtx *device, int call_depth)
{
    memset(x, 0, sizeof *x);
    x->ic = ic;
    x->module = m;
    x->plan = plan;
    tensor_ctx_init(&x->tensors, acct);
    x->tensors.libs = ic->libs;
    x->device = device;
    x->call_depth = call_depth;
}

static void exec_vfail(ExecCtx *x, Loc loc, bool secondary, const char *fmt, va_list ap)
{
    /* A root cause replaces a secondary failure, never the other way. */
    if (x->failed && (!x->secondary || secondary))
        return;
    x->failed = true;
    x->secondary = secondary;
    x->loc = loc;
    vsnprintf(x->msg, sizeof x->msg, fmt, ap);
}

bool exec_fail(ExecCtx *x, const Op *op, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    exec_vfail(x, op ? op->loc : (Loc){x->module->file, 0, 0}, false, fmt, ap);
    va_end(ap);
    return false;
}

static void exec_fail_at(ExecCtx *x, Loc loc, bool secondary, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    exec_vfail(x, loc, secondary, fmt, ap);
    va_end(ap);
}

bool exec_fail_aborted(ExecCtx *x, const Op *op)
{
    exec_fail_at(x, op->loc, true, "'%s' stopped: another device failed", op_info(op->kind)->name);
    return false;
}

bool exec_kernel(ExecCtx *x, const Op *op, TensorStatus status)
{
    if (status == TENSOR_OK)
        return true;
    return exec_fail(x, op, "'%s': %s", op_info(op->kind)->name, x->tensors.msg);
}

void exec_adopt_failure(ExecCtx *x, const ExecCtx *device, int64_t device_id)
{
    if (!device->failed)
        return;
    if (device->secondary)
        exec_fail_at(x, device->loc, true, "%s", device->msg);
    else
        exec_fail_at(x, device->loc, false, "device %lld: %s", (long long)device_id, device->msg);
}

/* ---- distributed runs ------------------------------------------------------------ */

bool exec_host_absent(const ExecCtx *x)
{
    return !x->device && x->ic->world && x->ic->world->rank != 0;
}

/* Without the global values a process still enters shard_maps (to run its
 * devices) and calls (which may hold shard_maps); it skips the rest. */
static bool runs_without_values(const Op *op)
{
    return op_handler(op) == exec_shard_map || op_handler(op) == exec_call;
}

/* ---- running blocks ------------------------------------------------------------ */

/* Operand and result arrays: on the stack when small. */
typedef struct TensorList {
    Tensor *inline_items[INTERP_INLINE_TENSORS];
    Tensor **items;
} TensorList;

static bool tensor_list_init(TensorList *l, int n)
{
    memset(l->inline_items, 0, sizeof l->inline_items);
    l->items = n <= INTERP_INLINE_TENSORS ? l->inline_items : calloc((size_t)n, sizeof(Tensor *));
    return l->items != NULL;
}

static void tensor_list_free(TensorList *l)
{
    if (l->items != l->inline_items)
        free(l->items);
}

static void release_after(const ExecPlan *plan, Tensor **env, const Op *op)
{
    for (int i = plan->release_start[op->id]; i < plan->release_start[op->id + 1]; i++) {
        int id = plan->release_values[i];
        tensor_release(env[id]);
        env[id] = NULL;
    }
}

/* The result tensors must have the types the IR gives them; a mismatch
 * would otherwise surface as a confusing error ops later. */
static bool check_results(ExecCtx *x, const Op *op, Tensor **out)
{
    for (int i = 0; i < op->num_results; i++) {
        if (tensor_matches_type(out[i], &op->results[i]->type))
            continue;
        char got[TENSOR_TYPE_STR_SIZE], want[256];
        FILE *s = fmemopen(want, sizeof want, "w");
        if (s) {
            type_print(s, &op->results[i]->type);
            fclose(s);
        }
        return exec_fail(x, op, "'%s' produced %s for %%%s of type %s", op_info(op->kind)->name,
                         tensor_type_str(out[i], got), op->results[i]->name, s ? want : "?");
    }
    return true;
}

/* A strided view (a device's block read in place) becomes dense, in place
 * (its holders are this device's), the first time an op that cannot read
 * it needs it: charged once, alive as long as the view would have been. */
static bool make_dense(ExecCtx *x, const Op *op, Tensor **slot)
{
    if (tensor_densify(&x->tensors, *slot) != TENSOR_OK) /* op is NULL for an empty block */
        return exec_fail(x, op, "%s", x->tensors.msg);
    return true;
}

static bool gather_operands(ExecCtx *x, const Op *op, Tensor **env, Tensor **in)
{
    bool views = op_handler(op) == exec_einsum; /* its BLAS path reads views */
    for (int i = 0; i < op->num_operands; i++) {
        const Value *v = op->operands[i];
        Tensor **slot = v->id < x->plan->num_values ? &env[v->id] : NULL;
        if ((!slot || !*slot) && !exec_host_absent(x))
            return exec_fail(x, op, "%%%s has no value here (defined outside this region?)", v->name);
        if (slot && *slot && (*slot)->strided && !views && !make_dense(x, op, slot))
            return false;
        in[i] = slot ? *slot : NULL;
    }
    return true;
}

/* ---- tracing ------------------------------------------------------------------ */

void interp_trace_init(InterpTrace *t)
{
    memset(t, 0, sizeof *t);
    pthread_mutex_init(&t->lock, NULL);
}

void interp_trace_free(InterpTrace *t)
{
    free(t->events);
    t->events = NULL;
    pthread_mutex_destroy(&t->lock);
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void trace_record(InterpTrace *t, InterpTraceEvent e)
{
    pthread_mutex_lock(&t->lock);
    if (t->num == t->cap) {
        int64_t cap = t->cap ? 2 * t->cap : 256;
        InterpTraceEvent *grown = realloc(t->events, (size_t)cap * sizeof *grown);
        if (grown) {
            t->events = grown;
            t->cap = cap;
        }
    }
    if (t->num < t->cap)
        t->events[t->num++] = e;
    else
        t->incomplete = true;
    pthread_mutex_unlock(&t->lock);
}

static void trace_op(ExecCtx *x, const Op *op, double start, int64_t received)
{
    int64_t bytes = x->collectives[op->kind].bytes - received, n;
    if (exec_op_handler(op) != exec_collective)
        for (int i = 0; i < op->num_results; i++)
            if (type_num_elements(&op->results[i]->type, &n))
                bytes += n * (int64_t)dtype_size(op->results[i]->type.dtype);
    trace_record(x->ic->trace, (InterpTraceEvent){op, x->device ? x->device->device_id : -1, start,
                                                  now_us() - start, bytes});
}

static bool exec_op_untraced(ExecCtx *x, const Op *op, Tensor **env);

/* With a trace, the op's time and bytes are recorded after it ran. */
static bool exec_op(ExecCtx *x, const Op *op, Tensor **env)
{
    if (!x->ic->trace)
        return exec_op_untraced(x, op, env);
    double start = now_us();
    int64_t received = x->collectives[op->kind].bytes;
    bool ok = exec_op_untraced(x, op, env);
    if (ok)
        trace_op(x, op, start, received);
    return ok;
}

static bool exec_op_untraced(ExecCtx *x, const Op *op, Tensor **env)
{
    if (exec_host_absent(x) && !runs_without_values(op))
        return true;
    TensorList in, out;
    bool have_in = tensor_list_init(&in, op->num_operands);
    bool have_out = tensor_list_init(&out, op->num_results);
    if (!have_in || !have_out) {
        tensor_list_free(&in);
        tensor_list_free(&out);
        return exec_fail(x, op, "out of memory");
    }
    bool ok = gather_operands(x, op, env, in.items) && op_handler(op)(x, op, in.items, out.items) &&
              (exec_host_absent(x) || check_results(x, op, out.items));
    for (int i = 0; i < op->num_results; i++) {
        if (ok)
            env[op->results[i]->id] = out.items[i];
        else
            tensor_release(out.items[i]);
    }
    tensor_list_free(&in);
    tensor_list_free(&out);
    if (ok)
        release_after(x->plan, env, op);
    return ok;
}

static void release_block_values(const Block *b, Tensor **env)
{
    for (int i = 0; i < b->num_args; i++) {
        tensor_release(env[b->args[i]->id]);
        env[b->args[i]->id] = NULL;
    }
    for (const Op *op = b->first; op; op = op->next)
        for (int i = 0; i < op->num_results; i++) {
            tensor_release(env[op->results[i]->id]);
            env[op->results[i]->id] = NULL;
        }
}

static void bind_args(const ExecPlan *plan, const Block *b, Tensor *const *args, Tensor **env)
{
    for (int i = 0; i < b->num_args; i++)
        if (!plan->dead_on_entry[b->args[i]->id])
            env[b->args[i]->id] = args[i] ? tensor_retain(args[i]) : NULL; /* NULL: exec_host_absent */
}

/* b's results (new references, dense) if ok; then b's own values go. */
static bool finish_block(ExecCtx *x, const Block *b, bool ok, Tensor **results, Tensor **env)
{
    for (int i = 0; ok && i < b->num_returns; i++) {
        Tensor **slot = &env[b->returns[i]->id];
        if (*slot && (*slot)->strided)
            ok = make_dense(x, b->first, slot);
        results[i] = ok && *slot ? tensor_retain(*slot) : NULL;
    }
    release_block_values(b, env);
    return ok;
}

/* b's ops in env, which holds b's values (and those of the blocks around
 * it, for a control-flow region); b's own are released at the end. */
static bool run_in_env(ExecCtx *x, const Block *b, Tensor *const *args, Tensor **results, Tensor **env)
{
    Tensor **outer = x->env;
    x->env = env;
    bind_args(x->plan, b, args, env);
    bool ok = true;
    for (const Op *op = b->first; op && ok; op = op->next)
        ok = exec_op(x, op, env);
    ok = finish_block(x, b, ok, results, env);
    x->env = outer;
    return ok;
}

/* ---- one op at a time (the lockstep engine) ------------------------------------ */

OpHandler exec_op_handler(const Op *op)
{
    return op_handler(op);
}

bool exec_block_begin(ExecCtx *x, const Block *b, Tensor *const *args)
{
    x->env = calloc((size_t)x->plan->num_values + 1, sizeof *x->env);
    if (!x->env)
        return exec_fail(x, b->first, "out of memory");
    bind_args(x->plan, b, args, x->env);
    return true;
}

bool exec_block_step(ExecCtx *x, const Op *op)
{
    return exec_op(x, op, x->env);
}

bool exec_block_dry(ExecCtx *x, const Op *op)
{
    TensorList in, out;
    bool have_in = tensor_list_init(&in, op->num_operands), have_out = tensor_list_init(&out, op->num_results);
    InterpCollectiveStats counted = x->collectives[op->kind];
    x->publishing = true;
    bool ok = have_in && have_out ? gather_operands(x, op, x->env, in.items) && op_handler(op)(x, op, in.items, out.items)
                                  : exec_fail(x, op, "out of memory");
    x->publishing = false;
    x->collectives[op->kind] = counted;
    for (int i = 0; have_out && i < op->num_results; i++)
        tensor_release(out.items[i]);
    tensor_list_free(&in);
    tensor_list_free(&out);
    return ok;
}

bool exec_block_end(ExecCtx *x, const Block *b, bool ok, Tensor **results)
{
    if (!x->env)
        return false;
    ok = finish_block(x, b, ok, results, x->env);
    free(x->env);
    x->env = NULL;
    return ok;
}

bool exec_block(ExecCtx *x, const Block *b, Tensor *const *args, Tensor **results)
{
    Tensor **env = calloc((size_t)x->plan->num_values + 1, sizeof *env);
    if (!env)
        return exec_fail(x, b->first, "out of memory");
    bool ok = run_in_env(x, b, args, results, env);
    free(env);
    return ok;
}

bool exec_region(ExecCtx *x, const Block *b, Tensor *const *args, Tensor **results)
{
    return run_in_env(x, b, args, results, x->env);
}

/* ---- entry point ------------------------------------------------------------- */

static bool check_inputs(InterpCtx *ic, const Func *f, Tensor *const *inputs)
{
    for (int i = 0; i < f->body->num_args; i++) {
        const Value *arg = f->body->args[i];
        if (inputs[i] && tensor_matches_type(inputs[i], &arg->type))
            continue;
        char got[TENSOR_TYPE_STR_SIZE];
        diag_error(ic->diag, arg->loc, "input %d (%%%s) is %s, which does not match its type", i, arg->name,
                   inputs[i] ? tensor_type_str(inputs[i], got) : "missing");
        return false;
    }
    return true;
}

/* Per-device peaks are kept by device id, for every mesh of the module. */
static bool size_device_stats(InterpCtx *ic, const Module *m)
{
    int64_t devices = 0;
    const Mesh *largest = NULL;
    for (int i = 0; i < m->num_meshes; i++)
        if (m->meshes[i]->num_devices > devices) {
            devices = m->meshes[i]->num_devices;
            largest = m->meshes[i];
        }
    if (devices <= ic->stats.num_devices)
        return true;
    int64_t *peaks = realloc(ic->stats.device_peak_bytes, (size_t)devices * sizeof *peaks);
    if (peaks)
        ic->stats.device_peak_bytes = peaks;
    if (!peaks || !cost_tally_reserve(&ic->stats.traffic, devices)) {
        char total[32];
        size_t per_device = sizeof *peaks + 2 * COST_KINDS * sizeof(int64_t); /* peak, traffic */
        diag_error(ic->diag, largest->loc, "out of memory simulating the %lld devices of mesh @%s: %zu bytes per "
                   "device (%s) for their statistics alone", (long long)devices, largest->name, per_device,
                   limits_format_bytes(devices * (int64_t)per_device, total, sizeof total));
        return false;
    }
    memset(peaks + ic->stats.num_devices, 0, (size_t)(devices - ic->stats.num_devices) * sizeof *peaks);
    ic->stats.device_peak_bytes = peaks;
    ic->stats.num_devices = devices;
    return true;
}

/* Outputs leave the run: they stop counting against the host (the run's
 * own references are gone, so only the outputs hold them). */
static void detach_outputs(InterpCtx *ic, Tensor **outputs, int n)
{
    for (int i = 0; i < n; i++) {
        if (!outputs[i] || outputs[i]->acct != &ic->host_acct)
            continue;
        ic->host_acct.current_bytes -= (int64_t)outputs[i]->nbytes;
        outputs[i]->acct = NULL;
    }
}

static void report_failure(InterpCtx *ic, const ExecCtx *x)
{
    diag_error(ic->diag, x->loc, "%s", x->msg);
}

bool interp_run_func(InterpCtx *ic, const Module *m, const Func *f, Tensor *const *inputs, Tensor **outputs)
{
    for (int i = 0; i < f->num_results; i++)
        outputs[i] = NULL;
    module_index(m); /* the devices' threads look functions and meshes up: read-only from here */
    ExecPlan plan;
    bool absent = ic->world && ic->world->rank != 0; /* the root holds the inputs */
    if (!absent && !check_inputs(ic, f, inputs))
        return false;
    if (!size_device_stats(ic, m)) {
        return false;
    }
    if (!exec_plan_build(&plan, m)) {
        exec_plan_free(&plan);
        diag_error(ic->diag, f->loc, "out of memory");
        return false;
    }
    ExecCtx x;
    exec_ctx_init(&x, ic, m, &plan, &ic->host_acct, NULL, 0);
    bool ok = exec_block(&x, f->body, inputs, outputs);
    if (ok)
        detach_outputs(ic, outputs, f->num_results);
    else
        report_failure(ic, &x);
    ic->stats.host_peak_bytes = ic->host_acct.peak_bytes;
    exec_plan_free(&plan);
    return ok;
}

/* The release plan: for every op, the values whose last use it is, so a
 * run frees each tensor as early as possible. Computed once per run, for
 * every block of the module (function bodies and shard_map regions); the
 * device threads share it read-only. */

enum { USE_NONE = -1, USE_KEPT = -2 };

/* last_use[value id]: the op id of its last use, USE_KEPT if the block
 * returns it, USE_NONE if nothing uses it. */
/* Whether v belongs to b, not to a block around it (values made without
 * a block, by passes, count as b's). */
static bool is_own(const Value *v, const Block *b)
{
    const Block *home = v->def ? v->def->parent : v->block;
    return !home || home == b;
}

/* A value of `outer` used in a control-flow region (while, case) lives
 * until the op owning the region is done: it may run again. */
typedef struct CaptureScan {
    const Block *outer;
    int *last_use;
    int op_id;
} CaptureScan;

static void mark_captured_value(CaptureScan *c, const Value *v, const Block *inner)
{
    if (!is_own(v, inner) && is_own(v, c->outer) && c->last_use[v->id] != USE_KEPT)
        c->last_use[v->id] = c->op_id;
}

static bool mark_captured(Op *inner, void *user)
{
    for (int i = 0; i < inner->num_operands; i++)
        mark_captured_value(user, inner->operands[i], inner->parent);
    return true;
}

static bool mark_captured_returns(Block *inner, void *user)
{
    for (int i = 0; i < inner->num_returns; i++)
        mark_captured_value(user, inner->returns[i], inner);
    return true;
}

/* Only b's own values: a region's captured ones are released by b. */
static void mark_uses(const Block *b, int *last_use)
{
    for (const Op *op = b->first; op; op = op->next) {
        for (int i = 0; i < op->num_operands; i++)
            if (is_own(op->operands[i], b))
                last_use[op->operands[i]->id] = op->id;
        CaptureScan c = {b, last_use, op->id};
        IrWalker w = {.pre = mark_captured, .leave = mark_captured_returns, .user = &c, .scope = IR_WALK_GLOBAL};
        for (int k = 0; k < op->num_regions; k++)
            ir_walk(op->regions[k], &w);
    }
    for (int i = 0; i < b->num_returns; i++)
        if (is_own(b->returns[i], b))
            last_use[b->returns[i]->id] = USE_KEPT;
}

/* Unused results die right after their op; unused arguments on entry. */
static void mark_unused(const Block *b, int *last_use, bool *dead_on_entry)
{
    for (int i = 0; i < b->num_args; i++)
        dead_on_entry[b->args[i]->id] = last_use[b->args[i]->id] == USE_NONE;
    for (const Op *op = b->first; op; op = op->next)
        for (int i = 0; i < op->num_results; i++)
            if (last_use[op->results[i]->id] == USE_NONE)
                last_use[op->results[i]->id] = op->id;
}

typedef struct PlanScan {
    int *last_use;
    bool *dead_on_entry;
} PlanScan;

/* Each block on its own: regions are isolated from above, so a value is
 * used in its own block only. */
static bool scan_block(Block *b, void *user)
{
    PlanScan *s = user;
    mark_uses(b, s->last_use);
    mark_unused(b, s->last_use, s->dead_on_entry);
    return true;
}

/* Counting sort of the values by the op that releases them. */
static bool fill_release_lists(ExecPlan *plan, const int *last_use)
{
    int *cursor = calloc((size_t)plan->num_ops + 1, sizeof *cursor);
    if (!cursor)
        return false;
    for (int v = 0; v < plan->num_values; v++)
        if (last_use[v] >= 0)
            plan->release_start[last_use[v] + 1]++;
    for (int op = 0; op < plan->num_ops; op++)
        plan->release_start[op + 1] += plan->release_start[op];
    for (int v = 0; v < plan->num_values; v++)
        if (last_use[v] >= 0)
            plan->release_values[plan->release_start[last_use[v]] + cursor[last_use[v]]++] = v;
    free(cursor);
    return true;
}

static bool plan_alloc(ExecPlan *plan, const Module *m)
{
    plan->num_values = m->num_values;
    plan->num_ops = m->num_ops;
    plan->release_start = calloc((size_t)m->num_ops + 1, sizeof *plan->release_start);
    plan->release_values = calloc((size_t)m->num_values + 1, sizeof *plan->release_values);
    plan->dead_on_entry = calloc((size_t)m->num_values + 1, sizeof *plan->dead_on_entry);
    return plan->release_start && plan->release_values && plan->dead_on_entry;
}

bool exec_plan_build(ExecPlan *plan, const Module *m)
{
    int *last_use = malloc(((size_t)m->num_values + 1) * sizeof *last_use);
    bool ok = plan_alloc(plan, m) && last_use;
    for (int v = 0; ok && v < m->num_values; v++)
        last_use[v] = USE_NONE;
    PlanScan scan = {last_use, plan->dead_on_entry};
    if (ok)
        ir_walk_module(m, &(IrWalker){.enter = scan_block, .user = &scan});
    ok = ok && fill_release_lists(plan, last_use);
    free(last_use);
    return ok;
}

void exec_plan_free(ExecPlan *plan)
{
    free(plan->release_start);
    free(plan->release_values);
    free(plan->dead_on_entry);
    plan->release_start = plan->release_values = NULL;
    plan->dead_on_entry = NULL;
}

/* call and custom: run another function of the module on the operands.
 *
 * `call @f` is a function call; `custom @impl(...)` means its
 * implementation function on global values (its partition function is the
 * partitioner's business, which inlines it into the SPMD program). A device
 * thread stays a device inside the callee, so collectives there work. */

static bool check_arguments(ExecCtx *x, const Op *op, const Func *callee, Tensor *const *in)
{
    if (callee->body->num_args != op->num_operands || callee->num_results != op->num_results)
        return exec_fail(x, op, "'%s' passes %d operands and takes %d results, but @%s has %d and %d",
                         op_info(op->kind)->name, op->num_operands, op->num_results, callee->name,
                         callee->body->num_args, callee->num_results);
    for (int i = 0; i < op->num_operands; i++) {
        if (exec_host_absent(x) || tensor_matches_type(in[i], &callee->body->args[i]->type))
            continue;
        char got[TENSOR_TYPE_STR_SIZE];
        return exec_fail(x, op, "operand %d of '%s' is %s, which @%s's parameter %%%s does not take", i,
                         op_info(op->kind)->name, tensor_type_str(in[i], got), callee->name,
                         callee->body->args[i]->name);
    }
    return true;
}

bool exec_call(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    const Func *callee = op->callee ? module_find_func(x->module, op->callee) : NULL;
    if (!callee)
        return exec_fail(x, op, "'%s' names no function of the module", op_info(op->kind)->name);
    if (!check_arguments(x, op, callee, in))
        return false;
    if (x->call_depth >= INTERP_MAX_CALL_DEPTH)
        return exec_fail(x, op, "calls nest deeper than %d levels (recursion?)", INTERP_MAX_CALL_DEPTH);
    x->call_depth++;
    bool ok = exec_block(x, callee->body, in, out);
    x->call_depth--;
    return ok;
}
