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
#include <stdlib.h>
#include <string.h>
#include "interp_shard_map.h"
#include "shardc/layout.h"

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

bool dist_open(ExecCtx *x, ShardMapRun *r)
{
    TransportWorld *w = r->world;
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
    shape_strides(global->rank, global->dims, gstrides);
    shape_strides(global->rank, local, bstrides);
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
        strided_copy(elem, global->rank, sizes, buf, bstrides, base, gstrides);
    else
        strided_copy(elem, global->rank, sizes, base, gstrides, buf, bstrides);
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
