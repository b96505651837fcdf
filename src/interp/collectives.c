/* The collectives, with JAX's semantics (jax/_src/lax/parallel.py), on the
 * devices of a shard_map. Each works in the caller's group -- the devices
 * that agree on every coordinate outside `axes` -- where a member's index
 * is its row-major coordinate over `axes`, first listed most major.
 *
 * Data moves through the transport in contiguous buffers; the reshuffles
 * around it (which block goes to whom, where the gathered blocks land) are
 * transposes and reshapes done by the kernels. */
#include <stdlib.h>
#include <string.h>
#include "interp/collectives_internal.h"
#include "shardc/cost.h"
#include "shardc/layout.h"

/* ---- groups ---------------------------------------------------------------------------- */

bool collective_device(ExecCtx *x, const Op *op)
{
    if (!x->device)
        return exec_fail(x, op, "'%s' outside a shard_map: there are no devices to communicate with",
                         op_info(op->kind)->name);
    const char *mesh = op_attr_symbol(op, ATTR_KEY_MESH);
    if (mesh && strcmp(mesh, x->device->mesh->name) != 0)
        return exec_fail(x, op, "'%s' is on mesh @%s but runs on a device of @%s", op_info(op->kind)->name,
                         mesh, x->device->mesh->name);
    return true;
}

static bool parse_axes(ExecCtx *x, const Op *op, Group *g)
{
    const Mesh *mesh = x->device->mesh;
    const AttrValue *v = op_attr_get(op, ATTR_KEY_AXES);
    if (!v || v->kind != ATTR_ARRAY || v->u.array.count > GROUP_MAX_AXES)
        return exec_fail(x, op, "'%s' needs 'axes': a list of mesh axis names", op_info(op->kind)->name);
    g->num_refs = v->u.array.count;
    for (int i = 0; i < g->num_refs; i++) {
        const AttrValue *item = v->u.array.items[i];
        if (item->kind != ATTR_STRING || !axis_ref_parse(mesh, item->u.s, &g->refs[i]))
            return exec_fail(x, op, "'%s': axis %d is not an axis of @%s", op_info(op->kind)->name, i, mesh->name);
        if (!(x->device->manual_mask >> g->refs[i].axis & 1))
            return exec_fail(x, op, "'%s': axis \"%s\" is not manual here", op_info(op->kind)->name, item->u.s);
    }
    return true;
}

bool group_resolve(ExecCtx *x, const Op *op, Group *g)
{
    memset(g, 0, sizeof *g);
    if (!collective_device(x, op) || !parse_axes(x, op, g))
        return false;
    const DeviceCtx *dev = x->device;
    g->t.size = axis_refs_size(g->refs, g->num_refs);
    g->t.index = mesh_group_index(dev->mesh, dev->position, g->refs, g->num_refs);
    g->members = calloc((size_t)g->t.size, sizeof *g->members);
    if (!g->members)
        return exec_fail(x, op, "out of memory");
    for (int64_t k = 0; k < g->t.size; k++)
        g->members[k] = mesh_group_member(dev->mesh, dev->position, g->refs, g->num_refs, k);
    g->t.members = g->members;
    return true;
}

void group_free(Group *g)
{
    free(g->members);
    g->members = NULL;
}

/* ---- shared helpers ----------------------------------------------------------------------- */

bool collective_transport_result(ExecCtx *x, const Op *op, TransportStatus status)
{
    if (status == TRANSPORT_OK)
        return true;
    if (status == TRANSPORT_ABORTED)
        return exec_fail_aborted(x, op);
    return exec_fail(x, op, "'%s': %s", op_info(op->kind)->name, transport_status_name(status));
}

/* What the device received, by the one definition of shardc/cost.h, so
 * `run --stats` measures what `shardc --stats` counts. */
void collective_count_traffic(ExecCtx *x, const Op *op, int64_t sent, int64_t received)
{
    x->collectives[op->kind].bytes += received;
    x->collectives[op->kind].sent += sent;
    if (x->device->active_index == 0)
        x->collectives[op->kind].calls++;
}

void collective_count_symmetric(ExecCtx *x, const Op *op, int64_t n, int64_t in_bytes, int64_t out_bytes)
{
    int64_t bytes = cost_collective_received(op->kind, n, in_bytes, out_bytes);
    collective_count_traffic(x, op, bytes, bytes);
}

bool collective_new_tensor(ExecCtx *x, const Op *op, DType dtype, int rank, const int64_t *dims, Tensor **out)
{
    return exec_kernel(x, op, tensor_new_uninit(&x->tensors, dtype, rank, dims, out));
}

/* t with dim `dim` cut into n equal parts and the part index moved to the
 * front: [n, d0, ..., d_dim / n, ...], so part k is contiguous. For dim 0
 * that is only a reshape, but it is needed: all_to_all moves the leading
 * part index to concat_axis. */
static bool split_to_front(ExecCtx *x, const Op *op, const Tensor *t, int dim, int64_t n, Tensor **out)
{
    int64_t dims[SHARDC_MAX_RANK + 1];
    memcpy(dims, t->dims, (size_t)dim * sizeof *dims);
    dims[dim] = n;
    dims[dim + 1] = t->dims[dim] / n;
    memcpy(dims + dim + 2, t->dims + dim + 1, (size_t)(t->rank - dim - 1) * sizeof *dims);
    TensorType split = {t->dtype, t->rank + 1, dims};
    Tensor *reshaped = NULL;
    bool ok = interp_reshape_to(x, op, t, &split, &reshaped) && interp_move_axis(x, op, reshaped, dim, 0, out);
    tensor_release(reshaped);
    return ok;
}

/* Divide by the group size, for the mean reductions. */
static bool divide_by(ExecCtx *x, const Op *op, Tensor **t, int64_t n)
{
    Tensor *divisor = NULL, *quotient = NULL;
    bool ok = exec_kernel(x, op, kern_full(&x->tensors, (*t)->dtype, 0, NULL, scalar_int(n), &divisor)) &&
              exec_kernel(x, op, kern_binary(&x->tensors, BIN_DIV, *t, divisor, &quotient));
    tensor_release(divisor);
    tensor_release(*t);
    *t = quotient;
    return ok;
}

/* ---- in place: the lockstep transport's _shared calls ---------------------------------------- */

/* A shape cut along dim into n equal blocks, as the transport lays them
 * out (include/shardc/transport.h). */
static TransportBlocks blocks_along(DType dtype, int rank, const int64_t *dims, int64_t dim, int64_t n)
{
    TransportBlocks b = {1, dtype_size(dtype)};
    for (int d = 0; d < rank; d++) {
        if (d < dim)
            b.outer *= (size_t)dims[d];
        else
            b.inner *= (size_t)(d == dim ? dims[d] / n : dims[d]);
    }
    return b;
}

/* The device's result from its group's tensor: the elements from `at` on,
 * read in place as the op's result type (a view, charged to the device as
 * a copy would be). Takes over the reference to group. */
static bool group_view(ExecCtx *x, const Op *op, Tensor *group, int64_t at, Tensor **out)
{
    const TensorType *rt = &op->results[0]->type;
    int64_t count = 0;
    bool ok = type_num_elements(rt, &count) && at + count <= group->count;
    ok = ok ? exec_kernel(x, op, tensor_view_block(&x->tensors, group, &at, &count, out)) && interp_relabel(x, op, *out, rt)
            : exec_fail(x, op, "'%s': the result type does not fit the group's result", op_info(op->kind)->name);
    tensor_release(group);
    return ok;
}

/* Whether the op's result type cuts dim into n blocks. */
static bool result_cuts(ExecCtx *x, const Op *op, int64_t dim, int64_t n)
{
    const TensorType *rt = &op->results[0]->type;
    if (dim >= 0 && dim < rt->rank && rt->dims[dim] % n == 0)
        return true;
    return exec_fail(x, op, "'%s': result dim %lld does not split into %lld blocks", op_info(op->kind)->name,
                     (long long)dim, (long long)n);
}

/* ---- reductions -------------------------------------------------------------------------------- */

typedef struct Reduction {
    ReduceOp op;
    bool mean;
} Reduction;

static bool reduction_of(ExecCtx *x, const Op *op, Reduction *r)
{
    static const struct { const char *name; Reduction r; } names[] = {
        {"sum", {RED_SUM, false}}, {"max", {RED_MAX, false}}, {"min", {RED_MIN, false}}, {"mean", {RED_SUM, true}},
    };
    static const Reduction by_kind[OP_COUNT] = {
        [OP_PSUM] = {RED_SUM, false}, [OP_PMEAN] = {RED_SUM, true}, [OP_PMAX] = {RED_MAX, false},
        [OP_PMIN] = {RED_MIN, false}, [OP_PSUM_SCATTER] = {RED_SUM, false},
    };
    *r = by_kind[op->kind];
    if (op->kind != OP_ALL_REDUCE && op->kind != OP_REDUCE_SCATTER)
        return true;
    const char *name = op_attr_string(op, ATTR_KEY_REDUCTION);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i].name) == 0) {
            *r = names[i].r;
            return true;
        }
    return exec_fail(x, op, "'%s' has an unknown reduction \"%s\"", op_info(op->kind)->name, name);
}

/* The group's reduction in the device's own result: a view of the one
 * tensor the lockstep transport computes per group (charged to the device
 * as a copy would be), else a copy the transport writes. */
static bool all_reduce_into(ExecCtx *x, const Op *op, const Group *g, TransportReduction how, const Tensor *in,
                            Tensor **out)
{
    Transport *t = x->device->transport;
    if (!t->ops->allreduce_shared)
        return collective_new_tensor(x, op, in->dtype, in->rank, in->dims, out) &&
               collective_transport_result(x, op, t->ops->allreduce(t, &g->t, how, in->data, (*out)->data, in->count));
    Tensor *shared = NULL;
    int64_t zeros[SHARDC_MAX_RANK] = {0};
    bool ok = collective_transport_result(x, op, t->ops->allreduce_shared(t, &g->t, how, in, &shared)) &&
              exec_kernel(x, op, tensor_view_block(&x->tensors, shared, zeros, in->dims, out));
    tensor_release(shared);
    return ok;
}

/* psum, pmean, pmax, pmin, all_reduce: every member gets the reduction. */
static bool coll_all_reduce(ExecCtx *x, const Op *op, const Group *g, const Tensor *in, Tensor **out)
{
    Reduction red;
    if (!reduction_of(x, op, &red))
        return false;
    TransportReduction how = {in->dtype, red.op};
    Transport *t = x->device->transport;
    /* in is the operand in the device's environment: it outlives both
     * lockstep passes, as transport_lockstep_new asks of an all-reduce's
     * send. The publish pass only sends: its result would be thrown away. */
    if (x->publishing)
        return collective_transport_result(x, op, t->ops->allreduce_shared
                                                      ? t->ops->allreduce_shared(t, &g->t, how, in, NULL)
                                                      : t->ops->allreduce(t, &g->t, how, in->data, NULL, in->count));
    if (!all_reduce_into(x, op, g, how, in, out))
        return false;
    collective_count_symmetric(x, op, g->t.size, (int64_t)in->nbytes, (int64_t)in->nbytes);
    return !red.mean || divide_by(x, op, out, g->t.size);
}

/* reduce_scatter read in place: each member's block of the group's result
 * is combined straight from the members' operands. */
static bool reduce_scatter_shared(ExecCtx *x, const Op *op, const Group *g, const Tensor *in, int64_t dim,
                                  Reduction red, Tensor **out)
{
    Transport *t = x->device->transport;
    TransportReduction how = {in->dtype, red.op};
    TransportBlocks from = blocks_along(in->dtype, in->rank, in->dims, dim, g->t.size);
    Tensor *group = NULL;
    bool ok = collective_transport_result(
        x, op, t->ops->reduce_scatter_shared(t, &g->t, how, in, from, x->publishing ? NULL : &group));
    if (x->publishing || !ok)
        return ok;
    int64_t count = in->count / g->t.size;
    collective_count_symmetric(x, op, g->t.size, (int64_t)in->nbytes, count * (int64_t)dtype_size(in->dtype));
    return group_view(x, op, group, g->t.index * count, out) && (!red.mean || divide_by(x, op, out, g->t.size));
}

/* psum_scatter, reduce_scatter: member i keeps block i of the reduction
 * along the scatter dim (untiled: that dim, of the group size, goes away). */
static bool coll_reduce_scatter(ExecCtx *x, const Op *op, const Group *g, const Tensor *in, Tensor **out)
{
    int64_t dim = op_attr_int(op, op->kind == OP_PSUM_SCATTER ? ATTR_KEY_SCATTER_DIMENSION : ATTR_KEY_DIM);
    int64_t n = g->t.size;
    Reduction red;
    if (!reduction_of(x, op, &red))
        return false;
    const TensorType *rt = &op->results[0]->type;
    int64_t result_count = 0;
    type_num_elements(rt, &result_count);
    if (dim < 0 || dim >= in->rank || in->dims[dim] % n != 0 || result_count * n != in->count ||
        rt->dtype != in->dtype)
        return exec_fail(x, op, "'%s': dim %lld does not split into %lld blocks of the result type",
                         op_info(op->kind)->name, (long long)dim, (long long)n);
    Transport *t = x->device->transport;
    TransportReduction how = {in->dtype, red.op};
    if (t->ops->reduce_scatter_shared)
        return reduce_scatter_shared(x, op, g, in, dim, red, out);
    Tensor *send = NULL;
    bool ok = split_to_front(x, op, in, (int)dim, n, &send) &&
              (x->publishing || collective_new_tensor(x, op, rt->dtype, rt->rank, rt->dims, out));
    void *recv = ok && !x->publishing ? (*out)->data : NULL;
    ok = ok && collective_transport_result(x, op, t->ops->reduce_scatter(t, &g->t, how, send->data, recv, result_count));
    tensor_release(send);
    if (x->publishing)
        return ok;
    if (ok)
        collective_count_symmetric(x, op, n, (int64_t)in->nbytes, (int64_t)(*out)->nbytes);
    return ok && (!red.mean || divide_by(x, op, out, n));
}

/* ---- gathers and exchanges ------------------------------------------------------------------------ */

/* all_gather read in place: the group's one result, each member's operand
 * copied straight to its block at `axis` of the result type. */
static bool all_gather_shared(ExecCtx *x, const Op *op, const Group *g, const Tensor *in, int64_t axis, Tensor **out)
{
    const TensorType *rt = &op->results[0]->type;
    if (!result_cuts(x, op, axis, g->t.size))
        return false;
    Transport *t = x->device->transport;
    TransportBlocks into = blocks_along(rt->dtype, rt->rank, rt->dims, axis, g->t.size);
    Tensor *group = NULL;
    bool ok = collective_transport_result(
        x, op, t->ops->allgather_shared(t, &g->t, in, into, x->publishing ? NULL : &group));
    if (x->publishing || !ok)
        return ok;
    collective_count_symmetric(x, op, g->t.size, (int64_t)in->nbytes, (int64_t)in->nbytes * g->t.size);
    return group_view(x, op, group, 0, out);
}

/* all_gather: the members' operands stacked in group order at `axis`
 * (untiled), or concatenated along `axis` (tiled). Both are the stack
 * [n, operand...] with its first dim moved to `axis`; tiled then merges it
 * with the next dim, which the result type's shape does by itself. */
static bool coll_all_gather(ExecCtx *x, const Op *op, const Group *g, const Tensor *in, Tensor **out)
{
    int64_t axis = op_attr_int(op, ATTR_KEY_AXIS), dims[SHARDC_MAX_RANK + 1];
    if (x->device->transport->ops->allgather_shared)
        return all_gather_shared(x, op, g, in, axis, out);
    dims[0] = g->t.size;
    memcpy(dims + 1, in->dims, (size_t)in->rank * sizeof *dims);
    Tensor *stacked = NULL, *moved = NULL;
    Transport *t = x->device->transport;
    if (x->publishing) /* the publish pass only sends: its result would be thrown away */
        return collective_transport_result(x, op, t->ops->allgather(t, &g->t, in->data, in->nbytes, NULL));
    bool ok = collective_new_tensor(x, op, in->dtype, in->rank + 1, dims, &stacked) &&
              collective_transport_result(x, op, t->ops->allgather(t, &g->t, in->data, in->nbytes, stacked->data));
    if (ok)
        collective_count_symmetric(x, op, g->t.size, (int64_t)in->nbytes, (int64_t)in->nbytes * g->t.size);
    ok = ok && interp_move_axis(x, op, stacked, 0, (int)axis, &moved);
    tensor_release(stacked); /* before the relabel, which needs moved to itself */
    ok = ok && interp_relabel(x, op, moved, &op->results[0]->type);
    *out = ok ? moved : NULL;
    if (!ok)
        tensor_release(moved);
    return ok;
}

/* all_to_all read in place: block j of concat_axis of member i's result
 * is copied straight from block i of split_axis of member j's operand
 * (the blocks hold the same elements in the same order: tiled, the
 * operand's dims with split_axis cut; untiled, without split_axis, which
 * is the group size). */
static bool all_to_all_shared(ExecCtx *x, const Op *op, const Group *g, const Tensor *in, int64_t split,
                              int64_t concat, Tensor **out)
{
    const TensorType *rt = &op->results[0]->type;
    if (!result_cuts(x, op, concat, g->t.size))
        return false;
    Transport *t = x->device->transport;
    TransportBlocks from = blocks_along(in->dtype, in->rank, in->dims, split, g->t.size);
    TransportBlocks into = blocks_along(rt->dtype, rt->rank, rt->dims, concat, g->t.size);
    Tensor *group = NULL;
    bool ok = collective_transport_result(
        x, op, t->ops->alltoall_shared(t, &g->t, in, from, into, x->publishing ? NULL : &group));
    if (x->publishing || !ok)
        return ok;
    collective_count_symmetric(x, op, g->t.size, (int64_t)in->nbytes, (int64_t)in->nbytes);
    return group_view(x, op, group, g->t.index * in->count, out);
}

/* all_to_all: block k of split_axis goes to member k; the blocks received
 * are concatenated (tiled) or stacked (untiled) at concat_axis in sender
 * order. */
static bool coll_all_to_all(ExecCtx *x, const Op *op, const Group *g, const Tensor *in, Tensor **out)
{
    int64_t split = op_attr_int(op, ATTR_KEY_SPLIT_AXIS), concat = op_attr_int(op, ATTR_KEY_CONCAT_AXIS);
    int64_t n = g->t.size;
    bool tiled = op_attr_bool(op, ATTR_KEY_TILED);
    if (split < 0 || split >= in->rank || concat < 0 || concat >= in->rank ||
        (tiled ? in->dims[split] % n != 0 : in->dims[split] != n))
        return exec_fail(x, op, "'all_to_all' needs split_axis and concat_axis dims, split_axis %s %lld",
                         tiled ? "divisible by" : "equal to", (long long)n);
    Transport *t = x->device->transport;
    if (t->ops->alltoall_shared)
        return all_to_all_shared(x, op, g, in, split, concat, out);
    Tensor *send = NULL, *recv = NULL, *moved = NULL;
    bool ok = (tiled ? split_to_front(x, op, in, (int)split, n, &send)
                     : interp_move_axis(x, op, in, (int)split, 0, &send)) &&
              (x->publishing || collective_new_tensor(x, op, send->dtype, send->rank, send->dims, &recv)) &&
              collective_transport_result(x, op, t->ops->alltoall(t, &g->t, send->data, send->nbytes / (size_t)n,
                                                                  recv ? recv->data : NULL));
    if (x->publishing) {
        tensor_release(send);
        return ok;
    }
    if (ok)
        collective_count_symmetric(x, op, n, (int64_t)send->nbytes, (int64_t)send->nbytes);
    ok = ok && interp_move_axis(x, op, recv, 0, (int)concat, &moved);
    tensor_release(send);
    tensor_release(recv);
    ok = ok && interp_relabel(x, op, moved, &op->results[0]->type);
    *out = ok ? moved : NULL;
    if (!ok)
        tensor_release(moved);
    return ok;
}

/* ppermute: member d receives the operand of the member s of the pair
 * [s, d]; a member that is nobody's destination gets zeros. */
static bool coll_ppermute(ExecCtx *x, const Op *op, const Group *g, const Tensor *in, Tensor **out)
{
    const AttrValue *perm = op_attr_get(op, ATTR_KEY_PERM);
    int64_t dest = -1, source = -1, pair[2];
    for (int i = 0; perm && perm->kind == ATTR_ARRAY && i < perm->u.array.count; i++) {
        if (attr_int_array(perm->u.array.items[i], pair, 2) != 2 || pair[0] < 0 || pair[1] < 0 ||
            pair[0] >= g->t.size || pair[1] >= g->t.size)
            return exec_fail(x, op, "'ppermute' pairs must be [source, destination] group indices");
        if (pair[0] == g->t.index)
            dest = g->members[pair[1]];
        if (pair[1] == g->t.index)
            source = g->members[pair[0]];
    }
    Transport *t = x->device->transport;
    int64_t self = x->device->position;
    if (!exec_kernel(x, op, tensor_new(&x->tensors, in->dtype, in->rank, in->dims, out)) ||
        !collective_transport_result(x, op, t->ops->sendrecv(t, self, in->data, in->nbytes, dest, (*out)->data,
                                                  source >= 0 ? in->nbytes : 0, source)))
        return false;
    collective_count_traffic(x, op, dest >= 0 && dest != self ? (int64_t)in->nbytes : 0,
                             source >= 0 && source != self ? (int64_t)in->nbytes : 0);
    return true;
}

/* ---- local ones ------------------------------------------------------------------------------------ */

/* axis_index: the device's index in its group, an i32 scalar. */
static bool coll_axis_index(ExecCtx *x, const Op *op, const Group *g, const Tensor *in, Tensor **out)
{
    (void)in;
    collective_count_traffic(x, op, 0, 0);
    return exec_kernel(x, op, kern_full(&x->tensors, DT_I32, 0, NULL, scalar_int(g->t.index), out));
}

/* all_slice: keep block `index` of `dim` (no communication). */
static bool coll_all_slice(ExecCtx *x, const Op *op, const Group *g, const Tensor *in, Tensor **out)
{
    int64_t dim = op_attr_int(op, ATTR_KEY_DIM), offsets[SHARDC_MAX_RANK] = {0}, sizes[SHARDC_MAX_RANK];
    if (dim < 0 || dim >= in->rank || in->dims[dim] % g->t.size != 0)
        return exec_fail(x, op, "'all_slice': dim %lld does not split into %lld blocks", (long long)dim,
                         (long long)g->t.size);
    memcpy(sizes, in->dims, (size_t)in->rank * sizeof *sizes);
    sizes[dim] /= g->t.size;
    offsets[dim] = g->t.index * sizes[dim];
    collective_count_traffic(x, op, 0, 0);
    return exec_kernel(x, op, tensor_extract_block(&x->tensors, in, offsets, sizes, out));
}

/* replicated_to_unreduced (a sum's partials): member 0 keeps the value,
 * the others hold zeros, so the group's sum is the value (no
 * communication). */
static bool coll_replicated_to_unreduced(ExecCtx *x, const Op *op, const Group *g, const Tensor *in, Tensor **out)
{
    collective_count_traffic(x, op, 0, 0);
    if (g->t.index == 0)
        return exec_kernel(x, op, tensor_extract_block(&x->tensors, in, (int64_t[SHARDC_MAX_RANK]){0}, in->dims, out));
    return exec_kernel(x, op, tensor_new(&x->tensors, in->dtype, in->rank, in->dims, out));
}

/* sharded_to_unreduced: the block a member holds of `dim`, at its place in
 * zeros the size of the whole dim, so the group's sum is the whole value
 * (no communication; the opposite of all_slice). */
static bool coll_sharded_to_unreduced(ExecCtx *x, const Op *op, const Group *g, const Tensor *in, Tensor **out)
{
    int64_t dim = op_attr_int(op, ATTR_KEY_DIM), offsets[SHARDC_MAX_RANK] = {0}, dims[SHARDC_MAX_RANK];
    if (dim < 0 || dim >= in->rank)
        return exec_fail(x, op, "'sharded_to_unreduced': no dim %lld", (long long)dim);
    memcpy(dims, in->dims, (size_t)in->rank * sizeof *dims);
    dims[dim] *= g->t.size;
    offsets[dim] = g->t.index * in->dims[dim];
    collective_count_traffic(x, op, 0, 0);
    if (!exec_kernel(x, op, tensor_new(&x->tensors, in->dtype, in->rank, dims, out)))
        return false;
    return exec_kernel(x, op, tensor_insert_block(&x->tensors, *out, in, offsets));
}

/* ---- dispatch ------------------------------------------------------------------------------------------ */

typedef bool (*CollectiveFn)(ExecCtx *x, const Op *op, const Group *g, const Tensor *in, Tensor **out);

static const CollectiveFn collective_fns[OP_COUNT] = {
    [OP_PSUM] = coll_all_reduce, [OP_PMEAN] = coll_all_reduce, [OP_PMAX] = coll_all_reduce,
    [OP_PMIN] = coll_all_reduce, [OP_ALL_REDUCE] = coll_all_reduce,
    [OP_PSUM_SCATTER] = coll_reduce_scatter, [OP_REDUCE_SCATTER] = coll_reduce_scatter,
    [OP_ALL_GATHER] = coll_all_gather, [OP_ALL_TO_ALL] = coll_all_to_all, [OP_PPERMUTE] = coll_ppermute,
    [OP_AXIS_INDEX] = coll_axis_index, [OP_ALL_SLICE] = coll_all_slice,
    [OP_REPLICATED_TO_UNREDUCED] = coll_replicated_to_unreduced, [OP_SHARDED_TO_UNREDUCED] = coll_sharded_to_unreduced,
};

bool exec_collective(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    const Tensor *operand = op->num_operands ? in[0] : NULL;
    if (op->kind == OP_COLLECTIVE_PERMUTE)
        return exec_collective_permute(x, op, operand, out);
    if (!collective_fns[op->kind])
        return exec_fail(x, op, "no interpreter for collective '%s'", op_info(op->kind)->name);
    Group g;
    bool ok = group_resolve(x, op, &g) && collective_fns[op->kind](x, op, &g, operand, out);
    group_free(&g);
    return ok;
}

/* collective_permute {source, target}: each device's operand is its block
 * under `source`; its result is its block under `target`, fetched from the
 * lowest position holding that global block under `source` (itself if it
 * holds it).
 *
 * One device may be asked for its block by several others, so the
 * exchange runs in rounds of matched send/receive pairs: in round r a
 * device sends to its r-th requester (by position) and receives if it is
 * the r-th requester of its source. Every device derives the same schedule
 * from the two shardings, so the rounds match without negotiation (and map
 * onto MPI_Sendrecv). */

/* The schedule, as every device computes it. */
typedef struct PermutePlan {
    int64_t *source_of;    /* by active index: the position to fetch from, or -1 */
    int64_t *round_of;     /* by active index: the round it receives in (remote fetches) */
    int64_t *requests;     /* by position: remote requesters so far */
    int64_t rounds;
    int64_t my_source, my_round;
    int64_t *dest_by_round;
} PermutePlan;

static void plan_free(PermutePlan *p)
{
    free(p->source_of);
    free(p->round_of);
    free(p->requests);
    free(p->dest_by_round);
}

static bool plan_alloc(PermutePlan *p, int64_t num_active, int64_t num_positions)
{
    p->source_of = calloc((size_t)num_active, sizeof *p->source_of);
    p->round_of = calloc((size_t)num_active, sizeof *p->round_of);
    p->requests = calloc((size_t)num_positions, sizeof *p->requests);
    return p->source_of && p->round_of && p->requests;
}

/* A partial value (source unreduced over some axes, issue 16): the
 * device holding the block under the source that agrees with d on every
 * coordinate the source does not shard, so partials stay on their
 * coordinate (the pairs the MLIR printer prints for every permute). */
static int64_t agreeing_source(const Mesh *mesh, const Sharding *from, const Sharding *to, int64_t d)
{
    int64_t src = d;
    for (int k = 0; k < from->rank && k < to->rank; k++) {
        int64_t block = mesh_group_index(mesh, d, to->dims[k].axes, to->dims[k].num_axes);
        src = mesh_group_member(mesh, src, from->dims[k].axes, from->dims[k].num_axes, block);
    }
    return src;
}

/* source_of: the lowest active position whose source block is the block
 * the device needs under target. */
static bool find_sources(const DeviceCtx *dev, const Sharding *from, const Sharding *to, PermutePlan *p)
{
    if (from->num_unreduced) {
        for (int64_t k = 0; k < dev->num_active; k++)
            p->source_of[k] = agreeing_source(dev->mesh, from, to, dev->active[k]);
        return true;
    }
    int64_t blocks = sharding_num_blocks(from);
    int64_t *holder = malloc((size_t)blocks * sizeof *holder);
    if (!holder)
        return false;
    for (int64_t b = 0; b < blocks; b++)
        holder[b] = -1;
    for (int64_t k = dev->num_active - 1; k >= 0; k--)
        holder[sharding_block_id(from, dev->active[k])] = dev->active[k];
    for (int64_t k = 0; k < dev->num_active; k++)
        p->source_of[k] = holder[sharding_block_id(to, dev->active[k])];
    free(holder);
    return true;
}

/* Number the remote requests of each holder in position order. */
static bool schedule_rounds(const DeviceCtx *dev, PermutePlan *p)
{
    for (int64_t k = 0; k < dev->num_active; k++) {
        int64_t src = p->source_of[k];
        if (src < 0 || src == dev->active[k])
            continue;
        p->round_of[k] = p->requests[src]++;
        if (p->requests[src] > p->rounds)
            p->rounds = p->requests[src];
    }
    p->dest_by_round = calloc((size_t)p->rounds + 1, sizeof *p->dest_by_round);
    if (!p->dest_by_round)
        return false;
    for (int64_t r = 0; r < p->rounds; r++)
        p->dest_by_round[r] = -1;
    for (int64_t k = 0; k < dev->num_active; k++)
        if (p->source_of[k] == dev->position && dev->active[k] != dev->position)
            p->dest_by_round[p->round_of[k]] = dev->active[k];
    p->my_source = p->source_of[dev->active_index];
    p->my_round = p->round_of[dev->active_index];
    return true;
}

static bool read_shardings(ExecCtx *x, const Op *op, const Tensor *in, const Sharding **from, const Sharding **to)
{
    *from = op_attr_sharding(op, ATTR_KEY_SOURCE);
    *to = op_attr_sharding(op, ATTR_KEY_TARGET);
    bool fits = (*from)->mesh == x->device->mesh && (*to)->mesh == x->device->mesh &&
                (*from)->rank == in->rank && (*to)->rank == in->rank;
    for (int d = 0; fits && d < in->rank; d++)
        fits = sharding_dim_shards(*from, d) == sharding_dim_shards(*to, d);
    if (!fits)
        return exec_fail(x, op, "'collective_permute' source and target must be on the device's mesh, "
                                "of the operand's rank, cutting each dim alike");
    return true;
}

static bool run_rounds(ExecCtx *x, const Op *op, const PermutePlan *p, const Tensor *in, Tensor *out)
{
    Transport *t = x->device->transport;
    int64_t self = x->device->position;
    bool remote = p->my_source != self;
    int64_t sent = 0;
    for (int64_t r = 0; r < p->rounds; r++) {
        int64_t source = remote && p->my_round == r ? p->my_source : -1;
        sent += p->dest_by_round[r] >= 0 ? (int64_t)in->nbytes : 0;
        TransportStatus st = t->ops->sendrecv(t, self, in->data, in->nbytes, p->dest_by_round[r], out->data,
                                              source >= 0 ? out->nbytes : 0, source);
        if (!collective_transport_result(x, op, st))
            return false;
    }
    collective_count_traffic(x, op, sent, remote ? (int64_t)out->nbytes : 0);
    return true;
}

bool exec_collective_permute(ExecCtx *x, const Op *op, const Tensor *in, Tensor **out)
{
    const Sharding *from = NULL, *to = NULL;
    if (!collective_device(x, op) || !read_shardings(x, op, in, &from, &to))
        return false;
    const DeviceCtx *dev = x->device;
    PermutePlan p = {0};
    bool ok = plan_alloc(&p, dev->num_active, dev->mesh->num_devices) && find_sources(dev, from, to, &p) &&
              schedule_rounds(dev, &p);
    if (!ok)
        ok = exec_fail(x, op, "out of memory");
    else if (p.my_source < 0)
        ok = exec_fail(x, op, "'collective_permute': no device holds this device's target block under the "
                              "source sharding");
    else if (p.my_source == dev->position)
        ok = exec_kernel(x, op, tensor_clone(&x->tensors, in, out)) && run_rounds(x, op, &p, in, *out);
    else
        ok = collective_new_tensor(x, op, in->dtype, in->rank, in->dims, out) && run_rounds(x, op, &p, in, *out);
    plan_free(&p);
    return ok;
}

/* StableHLO's collectives over replica groups name devices the run does
 * not have: shardc's devices are a mesh's, its collectives over axes. */
bool exec_group_collective(ExecCtx *x, const Op *op, Tensor *const *in, Tensor **out)
{
    (void)in;
    (void)out;
    return exec_fail(x, op, "cannot run '%s': its replica groups name devices, and shardc runs collectives over "
                     "mesh axes only (inside a shard_map)", op_info(op->kind)->name);
}
