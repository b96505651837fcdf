/* shard_map: split the operands into per-device blocks by in_specs, run the
 * body once per device -- in lockstep on a worker pool (lockstep.c) where
 * the body allows it, else one thread each, meeting in collectives through
 * a local transport -- and assemble the results by out_specs.
 *
 * The devices are the mesh positions that vary along the manual axes (the
 * other coordinates fixed: 0, or the enclosing device's in a nested
 * shard_map over other axes); along non-manual axes the body keeps the
 * global view, so one thread stands for all of them.
 *
 * In a distributed run (ic->world) a top-level shard_map starts only this
 * process's devices, with a transport from the world, and the blocks travel
 * between the root and the other processes (interp_distributed.c). */
#include <stdlib.h>
#include <string.h>
#include "interp/interp_shard_map.h"
#include "shardc/layout.h"
#include "shardc/limits.h"

enum { DEVICE_STACK_BYTES = 8 << 20, MAX_MESH_AXES = 64 };

/* ---- setting up ------------------------------------------------------------------------- */

/* The specs of an attribute: one sharding per value. */
static void read_specs(const Op *op, AttrKey key, int count, const Sharding **out)
{
    for (int i = 0; i < count; i++)
        out[i] = op_attr_sharding_at(op, key, i);
}

static bool axis_listed(const AttrValue *list, const char *name)
{
    if (!list || list->kind != ATTR_ARRAY)
        return true; /* no manual_axes: every axis is manual */
    for (int i = 0; i < list->u.array.count; i++)
        if (list->u.array.items[i]->kind == ATTR_STRING && strcmp(list->u.array.items[i]->u.s, name) == 0)
            return true;
    return false;
}

static bool manual_axes_mask(ExecCtx *x, const Op *op, const Mesh *mesh, uint64_t *mask)
{
    const AttrValue *listed = op_attr_get(op, ATTR_KEY_MANUAL_AXES);
    if (mesh->num_axes > MAX_MESH_AXES)
        return exec_fail(x, op, "meshes of more than %d axes are not supported", MAX_MESH_AXES);
    *mask = 0;
    for (int k = 0; k < mesh->num_axes; k++)
        if (axis_listed(listed, mesh->axes[k].name))
            *mask |= 1ull << k;
    if (x->device && x->device->mesh == mesh && (x->device->manual_mask & *mask))
        return exec_fail(x, op, "a shard_map nested in another may not be manual over the same axes");
    return true;
}

/* The positions that run the body: every combination of manual
 * coordinates, ascending (the manual axes are taken major to minor). */
/* Per-device bookkeeping the simulation could not allocate: a mesh of 2^30
 * devices is a valid program that this machine cannot simulate. */
static bool fail_devices(ExecCtx *x, const ShardMapRun *r)
{
    int64_t per_device = (int64_t)(sizeof *r->active + sizeof *r->devices + sizeof *r->threads);
    char total[32];
    return exec_fail(x, r->op, "out of memory simulating the %lld devices of mesh @%s: %lld bytes per device "
                     "(%s) before any tensor", (long long)r->num_active, r->mesh->name, (long long)per_device,
                     limits_format_bytes(per_device * r->num_active, total, sizeof total));
}

static bool active_positions(ExecCtx *x, ShardMapRun *r)
{
    AxisRef refs[MAX_MESH_AXES];
    int n = 0;
    for (int k = 0; k < r->mesh->num_axes; k++)
        if (r->manual_mask >> k & 1)
            refs[n++] = (AxisRef){k, 1, r->mesh->axes[k].size};
    int64_t base = x->device && x->device->mesh == r->mesh ? x->device->position : 0;
    r->num_active = axis_refs_size(refs, n);
    r->active = calloc((size_t)r->num_active, sizeof *r->active);
    if (!r->active)
        return fail_devices(x, r);
    for (int64_t k = 0; k < r->num_active; k++)
        r->active[k] = mesh_group_member(r->mesh, base, refs, n, k);
    return true;
}

static bool run_setup(ExecCtx *x, const Op *op, Tensor *const *in, ShardMapRun *r)
{
    r->op = op;
    r->globals = in;
    r->mesh = op_attr_mesh(x->module, op, ATTR_KEY_MESH);
    if (!r->mesh)
        return exec_fail(x, op, "'shard_map' needs 'mesh = @m' naming a mesh");
    r->in_specs = calloc((size_t)op->num_operands + 1, sizeof *r->in_specs);
    r->out_specs = calloc((size_t)op->num_results + 1, sizeof *r->out_specs);
    if (!r->in_specs || !r->out_specs)
        return exec_fail(x, op, "out of memory");
    read_specs(op, ATTR_KEY_IN_SPECS, op->num_operands, r->in_specs);
    read_specs(op, ATTR_KEY_OUT_SPECS, op->num_results, r->out_specs);
    return manual_axes_mask(x, op, r->mesh, &r->manual_mask) && active_positions(x, r);
}

static bool devices_setup(ExecCtx *x, ShardMapRun *r)
{
    r->world = x->device ? NULL : x->ic->world;
    if (r->world && !dist_open(x, r))
        return false;
    if (!r->world)
        r->transport = r->lockstep ? transport_lockstep_new(r->mesh->num_devices)
                                   : transport_local_new(r->mesh->num_devices, r->num_active);
    r->devices = calloc((size_t)r->num_active, sizeof *r->devices);
    r->threads = calloc((size_t)r->num_active, sizeof *r->threads);
    if (!r->transport || !r->devices || !r->threads)
        return fail_devices(x, r);
    for (int64_t k = 0; k < r->num_active; k++) {
        DeviceRun *d = &r->devices[k];
        d->run = r;
        d->local = !r->transport->local || r->transport->local[r->active[k]];
        d->device = (DeviceCtx){r->mesh, r->active[k], mesh_device_id(r->mesh, r->active[k]), r->active,
                                r->num_active, k, r->manual_mask, r->transport};
        exec_ctx_init(&d->exec, x->ic, x->module, x->plan, &d->acct, &d->device, x->call_depth);
        d->blocks = calloc((size_t)r->op->num_results + 1, sizeof *d->blocks);
        if (!d->blocks)
            return exec_fail(x, r->op, "out of memory");
    }
    return true;
}

/* ---- one device ------------------------------------------------------------------------------ */

/* The index of position p among the devices a spec's unreduced axes group
 * together (0 for a spec without any). */
static int64_t unreduced_index(const Mesh *mesh, const Sharding *spec, int64_t p)
{
    return spec && spec->num_unreduced ? mesh_group_index(mesh, p, spec->unreduced, spec->num_unreduced) : 0;
}

static bool split_operand(DeviceRun *d, int i, Tensor **block)
{
    const ShardMapRun *r = d->run;
    if (d->received) { /* distributed, off the root */
        *block = tensor_retain(d->received[i]);
        return true;
    }
    const TensorType *global = &r->op->operands[i]->type;
    int64_t offsets[SHARDC_MAX_RANK], sizes[SHARDC_MAX_RANK], local[SHARDC_MAX_RANK];
    sharding_block(r->in_specs[i], global, d->device.position, offsets, sizes);
    sharding_local_dims(r->in_specs[i], global, local);
    /* Unreduced over some axes (sum): the group's first device holds the
     * value, the others zeros, so that their sum is the value. */
    const Sharding *spec = r->in_specs[i];
    if (spec && spec->unreduced_op == UNREDUCED_SUM && unreduced_index(r->mesh, spec, d->device.position))
        return exec_kernel(&d->exec, r->op, tensor_new(&d->exec.tensors, global->dtype, global->rank, local, block));
    bool padded = false;
    for (int k = 0; k < global->rank; k++)
        padded |= local[k] != sizes[k];
    if (!padded) /* read in place: the global operand outlives the run */
        return exec_kernel(&d->exec, r->op, tensor_view_block(&d->exec.tensors, r->globals[i], offsets, sizes, block));
    return exec_kernel(&d->exec, r->op,
                       tensor_extract_padded(&d->exec.tensors, r->globals[i], offsets, sizes, local, block));
}

/* The device holds only its own blocks, charged to it: views of the global
 * operands where no padding is needed (tensor_view_block), else copies. */
bool interp_device_operands(DeviceRun *d, Tensor **blocks)
{
    bool ok = true;
    for (int i = 0; ok && i < d->run->op->num_operands; i++)
        ok = split_operand(d, i, &blocks[i]);
    return ok;
}

static bool device_body(DeviceRun *d)
{
    const Op *op = d->run->op;
    Tensor **blocks = calloc((size_t)op->num_operands + 1, sizeof *blocks);
    if (!blocks)
        return exec_fail(&d->exec, op, "out of memory");
    bool ok = interp_device_operands(d, blocks) && exec_block(&d->exec, op->region, blocks, d->blocks);
    for (int i = 0; i < op->num_operands; i++)
        tensor_release(blocks[i]);
    free(blocks);
    return ok;
}

static void *device_main(void *arg)
{
    DeviceRun *d = arg;
    d->ok = device_body(d);
    if (!d->ok)
        d->run->transport->ops->abort(d->run->transport);
    return NULL;
}

/* ---- running the devices ------------------------------------------------------------------------ */

/* A thread for every local device; -1, or the first that would not start. */
static int64_t start_devices(ShardMapRun *r)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, DEVICE_STACK_BYTES);
    int64_t failed = -1;
    for (int64_t k = 0; k < r->num_active && failed < 0; k++) {
        DeviceRun *d = &r->devices[k];
        if (d->local && !(d->started = pthread_create(&r->threads[k], &attr, device_main, d) == 0))
            failed = k;
    }
    pthread_attr_destroy(&attr);
    return failed;
}

static bool start_and_join(ExecCtx *x, ShardMapRun *r)
{
    int64_t failed = start_devices(r);
    if (failed >= 0)
        r->transport->ops->abort(r->transport);
    for (int64_t k = 0; k < r->num_active; k++)
        if (r->devices[k].started)
            pthread_join(r->threads[k], NULL);
    if (failed >= 0)
        return exec_fail(x, r->op, "cannot start a thread for device %lld of %lld", (long long)failed,
                         (long long)r->num_active);
    return interp_adopt_devices(x, r);
}

/* The devices' failures, in device order: a root cause wins over the
 * others' "stopped" (exec_adopt_failure). */
bool interp_adopt_devices(ExecCtx *x, const ShardMapRun *r)
{
    bool ok = true;
    for (int64_t k = 0; k < r->num_active; k++) {
        if (!r->devices[k].local)
            continue;
        exec_adopt_failure(x, &r->devices[k].exec, r->devices[k].device.device_id);
        ok &= r->devices[k].ok;
    }
    return ok;
}

/* A further partial of an unreduced result (issue 16): its block of `out`
 * combined with the device's (its valid part) by the spec's reduction. */
static bool combine_partial(ExecCtx *x, const ShardMapRun *r, const Sharding *spec, Tensor *out, const Tensor *part,
                            const int64_t *offsets, const int64_t *sizes)
{
    int64_t zero[SHARDC_MAX_RANK] = {0};
    Tensor *acc = NULL, *valid = NULL;
    BinaryOp op = spec->unreduced_op == UNREDUCED_MAX ? BIN_MAX : spec->unreduced_op == UNREDUCED_MIN ? BIN_MIN
                                                                                                    : BIN_ADD;
    bool ok = exec_kernel(x, r->op, tensor_extract_block(&x->tensors, out, offsets, sizes, &acc)) &&
              exec_kernel(x, r->op, tensor_extract_block(&x->tensors, part, zero, sizes, &valid)) &&
              exec_kernel(x, r->op, kern_accumulate(&x->tensors, op, acc, valid)) &&
              exec_kernel(x, r->op, tensor_insert_block(&x->tensors, out, acc, offsets));
    tensor_release(acc);
    tensor_release(valid);
    return ok;
}

/* Each block of the result comes from the lowest position holding it, so
 * along axes the out spec does not mention the device with coordinate 0
 * speaks for its replicas (JAX's un-tiling). Along unreduced axes the
 * devices' blocks are partial results: they are summed (or maxed, minned). */
static bool assemble_result(ExecCtx *x, const ShardMapRun *r, int res, Tensor **out)
{
    const Sharding *spec = r->out_specs[res];
    const TensorType *global = &r->op->results[res]->type;
    int64_t blocks = sharding_num_blocks(spec), parts = spec ? axis_refs_size(spec->unreduced, spec->num_unreduced) : 1;
    bool *seen = calloc((size_t)(blocks * parts) + 1, sizeof *seen), *placed = calloc((size_t)blocks + 1, 1);
    bool ok = seen && placed ? exec_kernel(x, r->op, tensor_new_for_type(&x->tensors, global, out))
                             : exec_fail(x, r->op, "out of memory");
    for (int64_t k = 0; ok && k < r->num_active; k++) {
        int64_t id = sharding_block_id(spec, r->active[k]), offsets[SHARDC_MAX_RANK], sizes[SHARDC_MAX_RANK];
        int64_t key = id * parts + unreduced_index(r->mesh, spec, r->active[k]);
        if (seen[key])
            continue;
        seen[key] = true;
        sharding_block(spec, global, r->active[k], offsets, sizes);
        const Tensor *block = r->devices[k].blocks[res];
        ok = placed[id] ? combine_partial(x, r, spec, *out, block, offsets, sizes)
                        : exec_kernel(x, r->op, tensor_insert_valid(&x->tensors, *out, block, offsets, sizes));
        placed[id] = true;
    }
    free(seen);
    free(placed);
    return ok;
}

static void merge_stats(InterpCtx *ic, const ShardMapRun *r)
{
    pthread_mutex_lock(&ic->stats_lock);
    for (int64_t k = 0; k < r->num_active; k++) {
        const DeviceRun *d = &r->devices[k];
        int64_t *peak = &ic->stats.device_peak_bytes[d->device.device_id];
        if (d->acct.peak_bytes > *peak)
            *peak = d->acct.peak_bytes;
        for (int slot = 0; slot < COST_KINDS; slot++) {
            const InterpCollectiveStats *c = &d->exec.collectives[cost_slot_kind(slot)];
            ic->stats.traffic.calls[slot] += c->calls;
            cost_tally_add(&ic->stats.traffic, d->device.device_id, slot, c->sent, c->bytes);
        }
    }
    if (!r->world || r->world->rank == 0) /* a distributed run counts once, on the root */
        ic->stats.shard_map_runs++;
    pthread_mutex_unlock(&ic->stats_lock);
}

static void run_free(ShardMapRun *r)
{
    for (int64_t k = 0; r->devices && k < r->num_active; k++) {
        for (int i = 0; r->devices[k].blocks && i < r->op->num_results; i++)
            tensor_release(r->devices[k].blocks[i]);
        for (int i = 0; r->devices[k].received && i < r->op->num_operands; i++)
            tensor_release(r->devices[k].received[i]);
        free(r->devices[k].blocks);
        free(r->devices[k].received);
    }
    if (r->transport)
        r->transport->ops->destroy(r->transport);
    free(r->devices);
    free(r->threads);
    free(r->active);
    free(r->owner);
    free(r->in_specs);
    free(r->out_specs);
}

bool exec_shard_map(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    ShardMapRun r;
    memset(&r, 0, sizeof r);
    r.lockstep = x->ic->engine == INTERP_ENGINE_AUTO && !(x->device ? NULL : x->ic->world) &&
                 interp_lockstep_fits(x->module, op->region);
    bool ok = run_setup(x, op, in, &r) && devices_setup(x, &r) && (!r.world || dist_scatter_operands(x, &r)) &&
              (r.lockstep ? interp_lockstep_run(x, &r) : start_and_join(x, &r));
    if (r.devices && r.threads)
        merge_stats(x->ic, &r);
    for (int i = 0; ok && i < op->num_results; i++)
        ok = r.world ? dist_gather_result(x, &r, i, &out[i]) : assemble_result(x, &r, i, &out[i]);
    if (!ok)
        for (int i = 0; i < op->num_results; i++) {
            tensor_release(out[i]);
            out[i] = NULL;
        }
    run_free(&r);
    return ok;
}

/* A top-level shard_map of a distributed run (docs/distributed.md): device
 * d runs on process d, the root (process 0) holds the global operands and
 * the assembled results.
 *
 * Every process derives the same plan from the IR -- which positions are
 * active, which block each one needs, which position speaks for each block
 * of a result -- so the transfers need no negotiation: one scatter per
 * operand (the root packs every other process's block, in process order)
 * and one gather per result (each block from the lowest position holding
 * it, as in-process). The root's own device takes its blocks directly. */

enum { ROOT = 0 };

static bool is_root(const ShardMapRun *r)
{
    return r->world->rank == ROOT;
}

static bool world_result(ExecCtx *x, const Op *op, TransportStatus status)
{
    if (status == TRANSPORT_OK)
        return true;
    return exec_fail(x, op, "'shard_map': moving blocks between processes: %s", transport_status_name(status));
}

/* ---- opening ------------------------------------------------------------------------------ */

static bool any_unreduced(const Sharding **specs, int count)
{
    for (int i = 0; i < count; i++)
        if (specs[i] && specs[i]->num_unreduced)
            return true;
    return false;
}

bool dist_open(ExecCtx *x, ShardMapRun *r)
{
    TransportWorld *w = r->world;
    if (any_unreduced(r->in_specs, r->op->num_operands) || any_unreduced(r->out_specs, r->op->num_results))
        return exec_fail(x, r->op, "unreduced in_specs or out_specs are not supported with --transport=mpi yet");
    if (r->mesh->num_devices != w->size)
        return exec_fail(x, r->op,
                         "the mesh @%s has %lld devices, but the job has %lld process%s (one device per process: "
                         "mpirun -n %lld)",
                         r->mesh->name, (long long)r->mesh->num_devices, (long long)w->size, w->size == 1 ? "" : "es",
                         (long long)r->mesh->num_devices);
    r->owner = calloc((size_t)r->mesh->num_devices, sizeof *r->owner);
    if (!r->owner)
        return exec_fail(x, r->op, "out of memory");
    for (int64_t p = 0; p < r->mesh->num_devices; p++)
        r->owner[p] = mesh_device_id(r->mesh, p);
    r->transport = w->ops->open(w, r->owner, r->mesh->num_devices, r->active, r->num_active);
    if (!r->transport)
        return exec_fail(x, r->op, "'shard_map': cannot set up the MPI transport (see the message above)");
    return true;
}

/* ---- packing ------------------------------------------------------------------------------- */

/* Copy between the block of `global` at offsets (of sizes real elements
 * per dim) and a dense buffer holding a padded shard of shape `local`
 * (sharding_block): packing zeroes the padding. */
static void copy_block(Tensor *global, const int64_t *offsets, const int64_t *sizes, const int64_t *local, char *buf,
                       bool to_buf)
{
    int64_t gstrides[SHARDC_MAX_RANK], bstrides[SHARDC_MAX_RANK], at = 0, count = 1, real = 1;
    tensor_shape_strides(global->rank, global->dims, gstrides);
    tensor_shape_strides(global->rank, local, bstrides);
    for (int d = 0; d < global->rank; d++) {
        at += offsets[d] * gstrides[d];
        count *= local[d];
        real *= sizes[d];
    }
    size_t elem = dtype_size(global->dtype);
    char *base = (char *)global->data + (size_t)at * elem;
    if (to_buf && real != count)
        memset(buf, 0, (size_t)count * elem);
    if (real == 0)
        return;
    if (to_buf)
        tensor_strided_copy(elem, global->rank, sizes, buf, bstrides, base, gstrides);
    else
        tensor_strided_copy(elem, global->rank, sizes, base, gstrides, buf, bstrides);
}

static size_t block_bytes(const TensorType *type, const int64_t *sizes)
{
    size_t n = dtype_size(type->dtype);
    for (int d = 0; d < type->rank; d++)
        n *= (size_t)sizes[d];
    return n;
}

/* The pieces of one transfer: bytes by process, and each process's block. */
typedef struct Transfer {
    size_t *bytes;         /* by process */
    int64_t *position;     /* by process: whose block, or -1 */
    char *packed;          /* the root's buffer, pieces in process order */
    size_t total;
} Transfer;

static bool transfer_alloc(ExecCtx *x, const ShardMapRun *r, Transfer *t)
{
    int64_t n = r->world->size;
    t->bytes = calloc((size_t)n, sizeof *t->bytes);
    t->position = malloc((size_t)n * sizeof *t->position);
    for (int64_t p = 0; t->position && p < n; p++)
        t->position[p] = -1;
    return (t->bytes && t->position) || exec_fail(x, r->op, "out of memory");
}

static bool transfer_pack(ExecCtx *x, const ShardMapRun *r, Transfer *t)
{
    for (int64_t p = 0; p < r->world->size; p++)
        t->total += t->bytes[p];
    t->packed = is_root(r) ? malloc(t->total + 1) : NULL;
    return !is_root(r) || t->packed || exec_fail(x, r->op, "out of memory");
}

static void transfer_free(Transfer *t)
{
    free(t->bytes);
    free(t->position);
    free(t->packed);
}

/* ---- operands ------------------------------------------------------------------------------ */

/* Each device off the root gets operand i's block, charged to it. */
static bool receive_buffers(ExecCtx *x, ShardMapRun *r, int i, Transfer *t)
{
    const TensorType *type = &r->op->operands[i]->type;
    for (int64_t k = 0; k < r->num_active; k++) {
        DeviceRun *d = &r->devices[k];
        int64_t proc = r->owner[r->active[k]], local[SHARDC_MAX_RANK];
        if (proc == ROOT)
            continue;
        sharding_local_dims(r->in_specs[i], type, local);
        t->bytes[proc] = block_bytes(type, local);
        t->position[proc] = r->active[k];
        if (d->local && tensor_new_uninit(&d->exec.tensors, type->dtype, type->rank, local, &d->received[i]) != TENSOR_OK)
            return exec_fail(x, r->op, "'shard_map': device %lld: %s", (long long)d->device.device_id,
                             d->exec.tensors.msg);
    }
    return true;
}

static void pack_operand(const ShardMapRun *r, int i, Transfer *t)
{
    char *at = t->packed;
    for (int64_t p = 0; p < r->world->size; p++) {
        int64_t offsets[SHARDC_MAX_RANK], sizes[SHARDC_MAX_RANK], local[SHARDC_MAX_RANK];
        if (t->position[p] < 0)
            continue;
        sharding_block(r->in_specs[i], &r->op->operands[i]->type, t->position[p], offsets, sizes);
        sharding_local_dims(r->in_specs[i], &r->op->operands[i]->type, local);
        copy_block(r->globals[i], offsets, sizes, local, at, true);
        at += t->bytes[p];
    }
}

static bool scatter_operand(ExecCtx *x, ShardMapRun *r, int i)
{
    Transfer t = {0};
    bool ok = transfer_alloc(x, r, &t) && receive_buffers(x, r, i, &t) && transfer_pack(x, r, &t);
    Tensor *mine = NULL;
    for (int64_t k = 0; ok && k < r->num_active; k++)
        if (r->devices[k].local && r->devices[k].received)
            mine = r->devices[k].received[i];
    if (ok && is_root(r))
        pack_operand(r, i, &t);
    ok = ok && world_result(x, r->op, r->world->ops->scatter(r->world, t.packed, t.bytes, mine ? mine->data : NULL));
    transfer_free(&t);
    return ok;
}

bool dist_scatter_operands(ExecCtx *x, ShardMapRun *r)
{
    for (int64_t k = 0; !is_root(r) && k < r->num_active; k++) {
        DeviceRun *d = &r->devices[k];
        if (d->local && !(d->received = calloc((size_t)r->op->num_operands + 1, sizeof *d->received)))
            return exec_fail(x, r->op, "out of memory");
    }
    bool ok = true;
    for (int i = 0; ok && i < r->op->num_operands; i++)
        ok = scatter_operand(x, r, i);
    return ok;
}

/* ---- results ----------------------------------------------------------------------------------- */

/* Which process sends which block of result res: the lowest position
 * holding each block (the root's own block goes in directly). */
static bool plan_gather(ExecCtx *x, const ShardMapRun *r, int res, Transfer *t, const Tensor **mine)
{
    const Sharding *spec = r->out_specs[res];
    bool *seen = calloc((size_t)sharding_num_blocks(spec) + 1, sizeof *seen);
    if (!seen)
        return exec_fail(x, r->op, "out of memory");
    for (int64_t k = 0; k < r->num_active; k++) {
        int64_t id = sharding_block_id(spec, r->active[k]), proc = r->owner[r->active[k]];
        int64_t local[SHARDC_MAX_RANK];
        if (seen[id])
            continue;
        seen[id] = true;
        sharding_local_dims(spec, &r->op->results[res]->type, local);
        t->position[proc] = r->active[k];
        t->bytes[proc] = proc == ROOT ? 0 : block_bytes(&r->op->results[res]->type, local);
        if (r->devices[k].local)
            *mine = r->devices[k].blocks[res];
    }
    free(seen);
    return true;
}

/* The root places every block: its own device's, then the gathered ones. */
static void unpack_result(const ShardMapRun *r, int res, const Transfer *t, const Tensor *mine, Tensor *global)
{
    const char *at = t->packed;
    for (int64_t p = 0; p < r->world->size; p++) {
        int64_t offsets[SHARDC_MAX_RANK], sizes[SHARDC_MAX_RANK], local[SHARDC_MAX_RANK];
        if (t->position[p] < 0)
            continue;
        sharding_block(r->out_specs[res], &r->op->results[res]->type, t->position[p], offsets, sizes);
        sharding_local_dims(r->out_specs[res], &r->op->results[res]->type, local);
        copy_block(global, offsets, sizes, local, p == ROOT ? (char *)mine->data : (char *)at, false);
        at += t->bytes[p];
    }
}

bool dist_gather_result(ExecCtx *x, const ShardMapRun *r, int res, Tensor **out)
{
    Transfer t = {0};
    const Tensor *mine = NULL;
    bool ok = transfer_alloc(x, r, &t) && plan_gather(x, r, res, &t, &mine) && transfer_pack(x, r, &t);
    if (ok && is_root(r))
        ok = exec_kernel(x, r->op, tensor_new_for_type(&x->tensors, &r->op->results[res]->type, out));
    const void *send = mine && !is_root(r) && t.bytes[r->world->rank] ? mine->data : NULL;
    ok = ok && world_result(x, r->op, r->world->ops->gather(r->world, send, t.bytes, t.packed));
    if (ok && is_root(r))
        unpack_result(r, res, &t, mine, *out);
    transfer_free(&t);
    return ok;
}
