/* Shardy's -sdy-convert-global-to-local (convert_global_to_local.cc): a
 * module in the global view, its collectives explicit (what
 * -sdy-reshard-to-collectives leaves), becomes the per-device program.
 *
 * Every value with a sharding takes its local type (layout.h's
 * sharding_local_type: the one definition of block sizes), and so do the
 * function results; values without one keep theirs (the global types
 * stay on the side, by value id). Then, in program order, the ops whose
 * meaning depends on where the shard sits are rewritten from the
 * shardings:
 *   - sdy.all_gather: a stablehlo.all_gather per gathered dim (last dim
 *     first), or with several dims and no per-dim-all-gather, one gather
 *     of all their axes on a new leading dim, reshaped and transposed
 *     into place;
 *   - sdy.all_reduce: stablehlo.all_reduce with its reducer;
 *   - sdy.reduce_scatter: stablehlo.reduce_scatter on its one dim; on
 *     several, an all_reduce and a dynamic slice (or, with
 *     combine-multi-dimension-reduce-scatter, one reduce_scatter of the
 *     dims' blocks brought to the front);
 *   - sdy.all_to_all: stablehlo.all_to_all for one param; for several,
 *     reshapes and transposes around one all_to_all on a leading dim;
 *   - sdy.collective_permute: stablehlo.collective_permute, device i
 *     sending to the device whose block under the target has i's index
 *     under the source (axes split into the atomic pieces of both);
 *   - sdy.all_slice and sharded dense sdy.constant: a dynamic_slice at
 *     offsets looked up by the device id (partition_id, or replica_id
 *     with replica-count > 1) in a table of every device's offset;
 *   - sdy.constant: a stablehlo.constant (a splat one at the local type);
 *   - stablehlo.iota on a sharded dim: the local iota plus the offset;
 *   - stablehlo.slice of sharded dims: the local bounds; a convolution:
 *     per-device group counts; concatenate: Shardy's checks only;
 *   - sdy.manual_computation: inlined (its body is local already).
 * Replica groups are the printer's (print_collectives.c); with
 * enable-rgv3 those without sub-axes print as mesh axes. */
#include <float.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "shardc/layout.h"
#include "shardc/mlir.h"
#include "shardc/window.h"
#include "mlir_extra.h"
#include "explicit_internal.h"
#include "print_internal.h"

typedef struct G2L {
    Module *m;
    const MlirGlobalToLocalOptions *opt;
    DiagEngine *diag;
    Block *block;       /* where new ops go: before `at` (NULL: at its end) */
    Op *at;
    Loc loc;            /* of the op they replace */
    TensorType *global;  /* by Value.id: the types before the pass */
    int num_global;
    bool ok;
} G2L;

/* ---- building ops ---------------------------------------------------------------- */

static TensorType make_type(G2L *g, DType dt, int rank, const int64_t *dims)
{
    TensorType t = {dt, rank, ARENA_ARRAY(&g->m->arena, int64_t, rank + 1)};
    if (rank)
        memcpy(t.dims, dims, sizeof *dims * (size_t)rank);
    return t;
}

/* A new op of kind on n operands with one result of type t, before g->at. */
static Op *emit(G2L *g, OpKind kind, Value **operands, int n, TensorType t)
{
    Module *m = g->m;
    Op *op = op_new(m, kind, g->loc);
    Value *r = value_new(m, "g2l", t, g->loc);
    r->def = op;
    op->num_operands = n;
    op->operands = n ? arena_memdup(&m->arena, operands, (size_t)n, sizeof(Value *)) : NULL;
    op->num_results = 1;
    op->results = arena_memdup(&m->arena, &r, 1, sizeof(Value *));
    block_insert_before(g->block, g->at, op);
    return op;
}

static Value *emit1(G2L *g, OpKind kind, Value *x, TensorType t)
{
    return emit(g, kind, &x, 1, t)->results[0];
}

static AttrValue *int_attr(G2L *g, int64_t v)
{
    AttrValue *a = attr_new(&g->m->arena, ATTR_INT, (Loc){0});
    a->u.i = v;
    return a;
}

static AttrValue *string_attr(Module *m, const char *v)
{
    AttrValue *a = attr_new(&m->arena, ATTR_STRING, (Loc){0});
    a->u.s = v;
    return a;
}

static AttrValue *ints_attr(G2L *g, const int64_t *v, int n)
{
    AttrValue *a = attr_new(&g->m->arena, ATTR_ARRAY, (Loc){0});
    a->u.array.count = n;
    a->u.array.items = ARENA_ARRAY(&g->m->arena, AttrValue *, n + 1);
    for (int i = 0; i < n; i++)
        a->u.array.items[i] = int_attr(g, v[i]);
    return a;
}

/* `stablehlo.constant dense<v> : tensor<i64>` or, n >= 0, `tensor<nxi64>`. */
static Value *const_i64(G2L *g, const int64_t *v, int64_t n)
{
    TensorType t = make_type(g, DT_I64, n >= 0, &n);
    Op *op = emit(g, OP_CONSTANT, NULL, 0, t);
    op_attr_set(&g->m->arena, op, ATTR_KEY_VALUE, n >= 0 ? ints_attr(g, v, (int)n) : int_attr(g, v[0]));
    return op->results[0];
}

static Value *reshape(G2L *g, Value *x, const int64_t *dims, int rank)
{
    return emit1(g, OP_RESHAPE, x, make_type(g, x->type.dtype, rank, dims));
}

static Value *transpose(G2L *g, Value *x, const int64_t *perm)
{
    int64_t dims[2 * SHARDC_MAX_RANK];
    for (int d = 0; d < x->type.rank; d++)
        dims[d] = x->type.dims[perm[d]];
    Op *op = emit(g, OP_TRANSPOSE, &x, 1, make_type(g, x->type.dtype, x->type.rank, dims));
    op_attr_set(&g->m->arena, op, ATTR_KEY_PERMUTATION, ints_attr(g, perm, x->type.rank));
    return op->results[0];
}

/* ---- device ids and offsets -------------------------------------------------------- */

/* Shardy's getDeviceId: the partition id (the replica id when there are
 * replicas) as a tensor<i64>. */
static Value *device_id(G2L *g)
{
    OpKind kind = g->opt->replica_count > 1 ? OP_REPLICA_ID : OP_PARTITION_ID;
    Value *id = emit(g, kind, NULL, 0, make_type(g, DT_U32, 0, NULL))->results[0];
    return emit1(g, OP_CONVERT, id, make_type(g, DT_I64, 0, NULL));
}

/* The offset of the shard of size `size` that each device holds along
 * axes, looked up by the device id (Shardy's getDimensionOffset). */
static Value *dim_offset(G2L *g, const Mesh *mesh, const AxisRef *axes, int n, int64_t size)
{
    Value *id = device_id(g);
    int64_t count = mesh->num_devices;
    int64_t *table = ARENA_ARRAY(&g->m->arena, int64_t, count + 1);
    for (int64_t dev = 0; dev < count; dev++)
        table[dev] = mesh_group_index(mesh, mesh_position_of(mesh, dev), axes, n) * size;
    Value *ops[2] = {const_i64(g, table, count), id};
    Value *one = emit(g, OP_DYNAMIC_SLICE, ops, 2, make_type(g, DT_I64, 1, (int64_t[]){1}))->results[0];
    return reshape(g, one, NULL, 0);
}

/* x sliced to type `local` at every device's block under per-dim axes
 * (Shardy's emitDynamicSliceForAxes). */
static Value *slice_for_axes(G2L *g, Value *x, const Sharding *axes, TensorType local)
{
    Value *ops[SHARDC_MAX_RANK + 1] = {x};
    for (int d = 0; d < local.rank; d++) {
        const DimSharding *ds = &axes->dims[d];
        ops[d + 1] = ds->num_axes ? dim_offset(g, axes->mesh, ds->axes, ds->num_axes, local.dims[d])
                                  : const_i64(g, (int64_t[]){0}, -1);
    }
    return emit(g, OP_DYNAMIC_SLICE, ops, local.rank + 1, local)->results[0];
}

/* ---- local types ------------------------------------------------------------------- */

/* The type of a value sharded s (global if s has no mesh); false, with
 * a located error, where a dim's shards do not divide it (Shardy's pass
 * stops there too: getLocalType with allowNonDivisible=false). */
static bool local_type(G2L *g, const Sharding *s, const TensorType *global, Loc loc, TensorType *out)
{
    *out = *global;
    if (!s || !s->mesh || s->rank != global->rank)
        return true;
    for (int d = 0; d < global->rank; d++) {
        int64_t shards = sharding_dim_shards(s, d);
        if (shards > 1 && global->dims[d] % shards != 0) {
            diag_error(g->diag, loc, "-sdy-convert-global-to-local: dimension %d of size %lld is not divisible by "
                       "its %lld shards", d, (long long)global->dims[d], (long long)shards);
            return g->ok = false;
        }
    }
    *out = sharding_local_type(&g->m->arena, s, global);
    return true;
}

/* ---- collectives --------------------------------------------------------------------- */

static void set_bool(G2L *g, Op *op, AttrKey key, bool v)
{
    AttrValue *b = attr_new(&g->m->arena, ATTR_BOOL, (Loc){0});
    b->u.b = v;
    op_attr_set(&g->m->arena, op, key, b);
}

/* `axes` by name and `mesh` on a collective the printer spells as
 * StableHLO's, with V3 replica groups where asked for and no sub-axis. */
static void set_group_axes(G2L *g, Op *op, const Mesh *mesh, const AxisRef *axes, int n)
{
    AxisList list = {0};
    bool sub = false;
    for (int i = 0; i < n && i < AXIS_LIST_MAX; i++) {
        list.axes[list.count++] = axes[i];
        sub = sub || axes[i].size != mesh->axes[axes[i].axis].size;
    }
    mlir_all_reduce_attrs(g->m, op, mesh, &list, UNREDUCED_SUM);
    set_bool(g, op, ATTR_KEY_MESH_AXES_GROUPS, g->opt->enable_rgv3 && !sub);
}

/* One tiled all_gather of x along dim over axes. */
static Value *gather_dim(G2L *g, Value *x, int dim, const Mesh *mesh, const AxisRef *axes, int n)
{
    TensorType t = make_type(g, x->type.dtype, x->type.rank, x->type.dims);
    t.dims[dim] *= axis_refs_size(axes, n);
    Op *op = emit(g, OP_ALL_GATHER, &x, 1, t);
    set_group_axes(g, op, mesh, axes, n);
    op_attr_set(&g->m->arena, op, ATTR_KEY_AXIS, int_attr(g, dim));
    set_bool(g, op, ATTR_KEY_TILED, true);
    return op->results[0];
}

/* Every gathered dim's axes in dim order, their dims and per-dim sizes. */
static int gathered_dims(const Sharding *axes, AxisRef *all, int *num_all, int *dims, int64_t *factors)
{
    int n = 0;
    *num_all = 0;
    for (int d = 0; d < axes->rank; d++) {
        if (!axes->dims[d].num_axes)
            continue;
        dims[n] = d;
        factors[n++] = axis_refs_size(axes->dims[d].axes, axes->dims[d].num_axes);
        for (int i = 0; i < axes->dims[d].num_axes && *num_all < AXIS_LIST_MAX; i++)
            all[(*num_all)++] = axes->dims[d].axes[i];
    }
    return n;
}

/* Shardy's rewriteAllGatherCombiningDims: one gather of every axis on a
 * new leading dim, its factors then moved beside their dims. */
static Value *gather_combined(G2L *g, Value *x, const Sharding *axes)
{
    AxisRef all[AXIS_LIST_MAX];
    int dims[SHARDC_MAX_RANK], num_all, rank = x->type.rank;
    int64_t factors[SHARDC_MAX_RANK], shape[2 * SHARDC_MAX_RANK], perm[2 * SHARDC_MAX_RANK];
    int n = gathered_dims(axes, all, &num_all, dims, factors);
    shape[0] = 1;
    memcpy(shape + 1, x->type.dims, sizeof *shape * (size_t)rank);
    Value *v = gather_dim(g, reshape(g, x, shape, rank + 1), 0, axes->mesh, all, num_all);
    memcpy(shape, factors, sizeof *shape * (size_t)n);
    memcpy(shape + n, x->type.dims, sizeof *shape * (size_t)rank);
    v = reshape(g, v, shape, n + rank);
    for (int d = 0, k = 0, j = 0; d < rank; d++) {
        if (j < n && dims[j] == d)
            perm[k++] = j++;
        perm[k++] = d + n;
    }
    v = transpose(g, v, perm);
    memcpy(shape, x->type.dims, sizeof *shape * (size_t)rank);
    for (int j = 0; j < n; j++)
        shape[dims[j]] *= factors[j];
    return reshape(g, v, shape, rank);
}

static Value *lower_all_gather(G2L *g, Value *x, const Sharding *axes)
{
    AxisRef all[AXIS_LIST_MAX];
    int dims[SHARDC_MAX_RANK], num_all;
    int64_t factors[SHARDC_MAX_RANK];
    int n = gathered_dims(axes, all, &num_all, dims, factors);
    if (n > 1 && !g->opt->per_dim_all_gather)
        return gather_combined(g, x, axes);
    for (int d = axes->rank - 1; d >= 0; d--)
        if (axes->dims[d].num_axes)
            x = gather_dim(g, x, d, axes->mesh, axes->dims[d].axes, axes->dims[d].num_axes);
    return x;
}

/* The reduction an op carries (sum if none). */
static const char *reduction_of(const Op *op)
{
    const char *r = op_attr_string(op, ATTR_KEY_REDUCTION);
    return r ? r : "sum";
}

static Value *all_reduce(G2L *g, Value *x, const Mesh *mesh, const AxisRef *axes, int n, const char *reduction)
{
    Op *op = emit(g, OP_ALL_REDUCE, &x, 1, x->type);
    set_group_axes(g, op, mesh, axes, n);
    op_attr_set(&g->m->arena, op, ATTR_KEY_REDUCTION, string_attr(g->m, reduction));
    return op->results[0];
}

/* sdy.all_reduce: its axes are already by name; the result's type is the
 * operand's local one. */
static Value *lower_all_reduce(G2L *g, Op *op, Value *x)
{
    const Mesh *mesh = op_attr_mesh(g->m, op, ATTR_KEY_MESH);
    const AttrValue *names = op_attr_get(op, ATTR_KEY_AXES);
    AxisRef axes[AXIS_LIST_MAX];
    int n = 0;
    for (int i = 0; mesh && names && i < names->u.array.count && n < AXIS_LIST_MAX; i++)
        n += axis_ref_parse(mesh, names->u.array.items[i]->u.s, &axes[n]);
    return all_reduce(g, x, mesh, axes, n, reduction_of(op));
}

/* Shardy's rewriteReduceScatterCombiningMultipleDims. */
static Value *scatter_combined(G2L *g, Op *op, Value *x, const Sharding *axes, TensorType local)
{
    AxisRef all[AXIS_LIST_MAX];
    int dims[SHARDC_MAX_RANK], num_all, rank = x->type.rank;
    int64_t factors[SHARDC_MAX_RANK], shape[2 * SHARDC_MAX_RANK], perm[2 * SHARDC_MAX_RANK];
    int n = gathered_dims(axes, all, &num_all, dims, factors), k = 0, j = 0, f = 0;
    for (int d = 0; d < rank; d++) {
        if (j < n && dims[j] == d) {
            perm[f++] = k;
            shape[k++] = factors[j];
            shape[k++] = x->type.dims[d] / factors[j++];
        } else {
            shape[k++] = x->type.dims[d];
        }
    }
    for (int i = 0; i < k; i++) {
        bool factor = false;
        for (int q = 0; q < n; q++)
            factor = factor || perm[q] == i;
        if (!factor)
            perm[f++] = i;
    }
    Value *v = transpose(g, reshape(g, x, shape, k), perm);
    shape[0] = axis_refs_size(all, num_all);
    memcpy(shape + 1, local.dims, sizeof *shape * (size_t)rank);
    v = reshape(g, v, shape, rank + 1);
    shape[0] = 1;
    Op *rs = emit(g, OP_REDUCE_SCATTER, &v, 1, make_type(g, x->type.dtype, rank + 1, shape));
    set_group_axes(g, rs, axes->mesh, all, num_all);
    op_attr_set(&g->m->arena, rs, ATTR_KEY_DIM, int_attr(g, 0));
    op_attr_set(&g->m->arena, rs, ATTR_KEY_REDUCTION, string_attr(g->m, reduction_of(op)));
    return emit1(g, OP_RESHAPE, rs->results[0], local);
}

static Value *lower_reduce_scatter(G2L *g, Op *op, Value *x, const Sharding *axes)
{
    AxisRef all[AXIS_LIST_MAX];
    int dims[SHARDC_MAX_RANK], num_all;
    int64_t factors[SHARDC_MAX_RANK];
    int n = gathered_dims(axes, all, &num_all, dims, factors);
    TensorType local = op->results[0]->type;
    if (n > 1 && g->opt->combine_reduce_scatter)
        return scatter_combined(g, op, x, axes, local);
    if (n > 1)
        return slice_for_axes(g, all_reduce(g, x, axes->mesh, all, num_all, reduction_of(op)), axes, local);
    Op *rs = emit(g, OP_REDUCE_SCATTER, &x, 1, local);
    set_group_axes(g, rs, axes->mesh, all, num_all);
    op_attr_set(&g->m->arena, rs, ATTR_KEY_DIM, int_attr(g, dims[0]));
    op_attr_set(&g->m->arena, rs, ATTR_KEY_REDUCTION, string_attr(g->m, reduction_of(op)));
    return rs->results[0];
}

/* Shardy's rewriteAllToAllMultipleParams: each param's target dim split
 * into (its group size, the rest), the factors brought to the front and
 * merged into one dim for a single all_to_all, then moved beside their
 * source dims. */
typedef struct A2AParam {
    int src, tgt;
    int64_t size;
} A2AParam;

static int by_target(const void *a, const void *b)
{
    return ((const A2AParam *)a)->tgt - ((const A2AParam *)b)->tgt;
}

static const A2AParam *param_for(const A2AParam *p, int n, int tgt)
{
    for (int i = 0; i < n; i++)
        if (p[i].tgt == tgt)
            return &p[i];
    return NULL;
}

static Value *all_to_all(G2L *g, Value *x, const Mesh *mesh, const AxisRef *axes, int n, int split, int concat)
{
    int64_t count = axis_refs_size(axes, n);
    TensorType t = make_type(g, x->type.dtype, x->type.rank, x->type.dims);
    t.dims[split] /= count;
    t.dims[concat] *= count;
    Op *op = emit(g, OP_ALL_TO_ALL, &x, 1, t);
    set_group_axes(g, op, mesh, axes, n);
    op_attr_set(&g->m->arena, op, ATTR_KEY_SPLIT_AXIS, int_attr(g, split));
    op_attr_set(&g->m->arena, op, ATTR_KEY_CONCAT_AXIS, int_attr(g, concat));
    set_bool(g, op, ATTR_KEY_TILED, true);
    return op->results[0];
}

static Value *a2a_split_front(G2L *g, Value *x, const A2AParam *p, int np)
{
    int64_t shape[2 * SHARDC_MAX_RANK], perm[2 * SHARDC_MAX_RANK];
    int k = 0, f = 0;
    for (int d = 0; d < x->type.rank; d++) {
        const A2AParam *q = param_for(p, np, d);
        if (q)
            perm[f++] = k, shape[k++] = q->size;
        shape[k++] = q ? x->type.dims[d] / q->size : x->type.dims[d];
    }
    for (int i = 0; i < k; i++) {
        bool factor = false;
        for (int j = 0; j < np; j++)
            factor = factor || perm[j] == i;
        if (!factor)
            perm[f++] = i;
    }
    return transpose(g, reshape(g, x, shape, k), perm);
}

static Value *a2a_multi(G2L *g, Value *x, const Sharding *axes, const int64_t *dims)
{
    A2AParam p[SHARDC_MAX_RANK];
    AxisRef all[AXIS_LIST_MAX];
    int np = axes->rank, num_all = 0, rank = x->type.rank;
    for (int i = 0; i < np; i++)
        p[i] = (A2AParam){(int)dims[2 * i], (int)dims[2 * i + 1], 0};
    for (int i = 0; i < np; i++) /* the axes in the params' written order, sorted with them */
        p[i].size = i;
    qsort(p, (size_t)np, sizeof *p, by_target);
    for (int i = 0; i < np; i++) {
        const DimSharding *ds = &axes->dims[p[i].size];
        for (int j = 0; j < ds->num_axes && num_all < AXIS_LIST_MAX; j++)
            all[num_all++] = ds->axes[j];
        p[i].size = axis_refs_size(ds->axes, ds->num_axes);
    }
    Value *t0 = a2a_split_front(g, x, p, np);
    int64_t shape[2 * SHARDC_MAX_RANK], perm[2 * SHARDC_MAX_RANK] = {0};
    shape[0] = axis_refs_size(all, num_all);
    memcpy(shape + 1, t0->type.dims + np, sizeof *shape * (size_t)rank);
    Value *v = all_to_all(g, reshape(g, t0, shape, rank + 1), axes->mesh, all, num_all, 0, 0);
    v = emit1(g, OP_RESHAPE, v, t0->type);
    int n = rank;
    for (int d = 0; d < rank; d++)
        perm[d] = d + np;
    for (int i = 0; i < np; i++) {
        int at = 0;
        while (perm[at] != p[i].src + np)
            at++;
        memmove(perm + at + 1, perm + at, sizeof *perm * (size_t)(n++ - at));
        perm[at] = i;
    }
    v = transpose(g, v, perm);
    int k = 0;
    for (int i = 0; i < n; i++)
        shape[k++] = perm[i] < np ? v->type.dims[i] * v->type.dims[i + 1] : v->type.dims[i], i += perm[i] < np;
    return reshape(g, v, shape, k);
}

static Value *lower_all_to_all(G2L *g, Op *op, Value *x, const Sharding *axes)
{
    int64_t dims[2 * SHARDC_MAX_RANK];
    int n = op_attr_ints(op, ATTR_KEY_DIMS, dims, 2 * SHARDC_MAX_RANK);
    if (n != 2 * axes->rank)
        return NULL;
    if (axes->rank > 1)
        return a2a_multi(g, x, axes, dims);
    return all_to_all(g, x, axes->mesh, axes->dims[0].axes, axes->dims[0].num_axes, (int)dims[1], (int)dims[0]);
}

/* ---- collective_permute ---- */

/* Every mesh axis cut at each sub-axis boundary the shardings use, in
 * mesh order (Shardy's getOrderedAxisRefs). */
static int atomic_axes(const Mesh *mesh, const Sharding *const *s, int ns, AxisRef *out)
{
    int n = 0;
    for (int k = 0; k < mesh->num_axes; k++) {
        int64_t cut[2 * AXIS_LIST_MAX + 2];
        int nc = 0;
        cut[nc++] = 1;
        cut[nc++] = mesh->axes[k].size;
        for (int i = 0; i < ns; i++)
            for (int d = 0; s[i] && d < s[i]->rank; d++)
                for (int j = 0; j < s[i]->dims[d].num_axes && nc < 2 * AXIS_LIST_MAX; j++) {
                    AxisRef r = s[i]->dims[d].axes[j];
                    if (r.axis == k)
                        cut[nc++] = r.pre_size, cut[nc++] = axis_ref_end(r);
                }
        for (int a = 1; a < nc; a++) /* insertion sort; few cuts */
            for (int b = a; b > 0 && cut[b - 1] > cut[b]; b--) {
                int64_t t = cut[b];
                cut[b] = cut[b - 1], cut[b - 1] = t;
            }
        for (int a = 0; a + 1 < nc && n < AXIS_LIST_MAX; a++)
            if (cut[a + 1] != cut[a])
                out[n++] = (AxisRef){k, cut[a], cut[a + 1] / cut[a]};
    }
    return n;
}

/* The atomic axes in the order s shards by them, then the others. */
static int sharding_axes(const Sharding *s, const AxisRef *atomic, int na, AxisRef *out)
{
    bool used[AXIS_LIST_MAX] = {0};
    int n = 0;
    for (int d = 0; s && d < s->rank; d++)
        for (int j = 0; j < s->dims[d].num_axes; j++)
            for (int a = 0; a < na; a++)
                if (!used[a] && axis_ref_contains(s->dims[d].axes[j], atomic[a]))
                    used[a] = true, out[n++] = atomic[a];
    for (int a = 0; a < na; a++)
        if (!used[a])
            out[n++] = atomic[a];
    return n;
}

static int64_t shard_index(const Mesh *mesh, int64_t device, const AxisRef *axes, int n)
{
    return mesh_group_index(mesh, mesh_position_of(mesh, device), axes, n);
}

/* A ppermute over every axis of the target's mesh (one group, its
 * devices in position order): pairs of positions. */
static Value *lower_permute(G2L *g, Value *x, const Sharding *from, const Sharding *to)
{
    const Mesh *mesh = to->mesh;
    const Sharding *both[2] = {from, to};
    AxisRef atomic[AXIS_LIST_MAX], in_axes[AXIS_LIST_MAX], out_axes[AXIS_LIST_MAX], every[AXIS_LIST_MAX];
    int na = atomic_axes(mesh, both, 2, atomic);
    int ni = sharding_axes(from, atomic, na, in_axes), no = sharding_axes(to, atomic, na, out_axes);
    int64_t count = mesh->num_devices, *target = ARENA_ARRAY(&g->m->arena, int64_t, count + 1);
    for (int64_t j = 0; j < count; j++)
        target[shard_index(mesh, j, out_axes, no)] = j;
    AttrValue *pairs = attr_new(&g->m->arena, ATTR_ARRAY, (Loc){0});
    pairs->u.array.count = (int)count;
    pairs->u.array.items = ARENA_ARRAY(&g->m->arena, AttrValue *, count + 1);
    for (int64_t i = 0; i < count; i++) {
        int64_t pair[2] = {mesh_position_of(mesh, i),
                           mesh_position_of(mesh, target[shard_index(from->mesh, i, in_axes, ni)])};
        pairs->u.array.items[i] = ints_attr(g, pair, 2);
    }
    for (int k = 0; k < mesh->num_axes; k++)
        every[k] = (AxisRef){k, 1, mesh->axes[k].size};
    Op *op = emit(g, OP_PPERMUTE, &x, 1, x->type);
    set_group_axes(g, op, mesh, every, mesh->num_axes);
    op_attr_set(&g->m->arena, op, ATTR_KEY_PERM, pairs);
    return op->results[0];
}

static Block *func_body(Op *op);

/* ---- constants and iota ---------------------------------------------------------------- */

static bool same_leaf(const AttrValue *a, const AttrValue *b)
{
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case ATTR_INT: return a->u.i == b->u.i;
    case ATTR_FLOAT: return a->u.f == b->u.f || (a->u.f != a->u.f && b->u.f != b->u.f);
    case ATTR_BOOL: return a->u.b == b->u.b;
    default: return false;
    }
}

static const AttrValue *first_leaf(const AttrValue *v)
{
    while (v && v->kind == ATTR_ARRAY)
        v = v->u.array.count ? v->u.array.items[0] : NULL;
    return v;
}

/* Whether every element of a dense value is `leaf`. */
static bool all_leaves(const AttrValue *v, const AttrValue *leaf)
{
    if (v->kind != ATTR_ARRAY)
        return same_leaf(v, leaf);
    for (int i = 0; i < v->u.array.count; i++)
        if (!all_leaves(v->u.array.items[i], leaf))
            return false;
    return true;
}

/* Printed as stablehlo.constant, with no sharding (Shardy makes a new one). */
static void plain_constant(G2L *g, Op *op)
{
    if (op->mlir && op->mlir->op_name) {
        struct MlirExtra *x = ARENA_NEW(&g->m->arena, struct MlirExtra);
        *x = *op->mlir;
        x->op_name = NULL;
        op->mlir = x;
    }
    op->results[0]->sharding = NULL;
}

/* sdy.constant: a splat or unsharded one at its local type; a sharded
 * dense one stays global and is sliced. */
static void lower_constant(G2L *g, Op *op)
{
    Value *r = op->results[0];
    const Sharding *s = r->sharding;
    const AttrValue *v = op_attr_get(op, ATTR_KEY_VALUE), *leaf = v ? first_leaf(v) : NULL;
    bool splat = leaf && all_leaves(v, leaf);
    plain_constant(g, op);
    if (!s || splat || r->id >= g->num_global || type_same_shape(&r->type, &g->global[r->id]))
        return;
    TensorType local = r->type;
    r->type = g->global[r->id];
    g->at = op->next;
    Value *sliced = slice_for_axes(g, r, s, local);
    ir_replace_uses(func_body(op), r, sliced);
}

static bool replicated(const Sharding *s)
{
    for (int d = 0; s && d < s->rank; d++)
        if (s->dims[d].num_axes)
            return false;
    return true;
}

/* iota sharded along its dim: the local iota plus the shard's offset. */
static Value *lower_iota(G2L *g, Op *op)
{
    Value *r = op->results[0];
    const Sharding *s = r->sharding;
    int dim = (int)op_attr_int(op, ATTR_KEY_DIMENSION);
    Op *iota = emit(g, OP_IOTA, NULL, 0, r->type);
    op_attr_set(&g->m->arena, iota, ATTR_KEY_DIMENSION, int_attr(g, dim));
    if (dim < 0 || dim >= s->rank || !s->dims[dim].num_axes)
        return iota->results[0];
    const DimSharding *ds = &s->dims[dim];
    Value *offset = dim_offset(g, s->mesh, ds->axes, ds->num_axes, r->type.dims[dim]);
    offset = emit1(g, OP_CONVERT, offset, make_type(g, r->type.dtype, 0, NULL));
    Op *b = emit(g, OP_BROADCAST, &offset, 1, r->type);
    op_attr_set(&g->m->arena, b, ATTR_KEY_DIMS, ints_attr(g, NULL, 0));
    Value *ops[2] = {iota->results[0], b->results[0]};
    return emit(g, OP_ADD, ops, 2, r->type)->results[0];
}

/* ---- ops whose attributes hold global sizes ---------------------------------------------- */

static bool op_error(G2L *g, const Op *op, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static bool op_error(G2L *g, const Op *op, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    diag_error(g->diag, op->loc, "'%s' op %s", mlir_op_name(op), msg);
    /* the dialect conversion's own complaint, which Shardy's pass adds */
    diag_error(g->diag, op->loc, "failed to legalize operation '%s' that was explicitly marked illegal",
               mlir_op_name(op));
    return g->ok = false;
}

static int64_t dim_shards(const Sharding *s, int d)
{
    return s && d < s->rank ? sharding_dim_shards(s, d) : 1;
}

static bool same_dim_axes(const Sharding *a, const Sharding *b, int d)
{
    int na = a && d < a->rank ? a->dims[d].num_axes : 0, nb = b && d < b->rank ? b->dims[d].num_axes : 0;
    if (na != nb)
        return false;
    for (int i = 0; i < na; i++)
        if (!axis_ref_equal(a->dims[d].axes[i], b->dims[d].axes[i]))
            return false;
    return true;
}

static const TensorType *global_type(const G2L *g, const Value *v)
{
    return v->id < g->num_global ? &g->global[v->id] : &v->type;
}

/* Shardy's isCommunicationFreeSliceDim. */
static bool free_slice_dim(const G2L *g, const Op *op, int d, int64_t start, int64_t stride)
{
    int64_t n = dim_shards(op->operands[0]->sharding, d);
    if (n <= 1)
        return true;
    int64_t in = global_type(g, op->operands[0])->dims[d], out = global_type(g, op->results[0])->dims[d];
    return start == 0 && stride == 1 && (in + n - 1) / n == (out + n - 1) / n;
}

/* A slice of sharded dims: the whole local shard (or, communication
 * free, the local result's size) from 0; other dims keep their bounds. */
static void lower_slice(G2L *g, Op *op)
{
    const Sharding *in = op->operands[0]->sharding, *out = op->results[0]->sharding;
    int64_t start[SHARDC_MAX_RANK], limit[SHARDC_MAX_RANK], stride[SHARDC_MAX_RANK];
    int rank = op->operands[0]->type.rank;
    if (replicated(in) && replicated(out))
        return;
    op_attr_ints(op, ATTR_KEY_START, start, SHARDC_MAX_RANK);
    op_attr_ints(op, ATTR_KEY_LIMIT, limit, SHARDC_MAX_RANK);
    for (int d = 0; d < rank; d++)
        stride[d] = 1;
    op_attr_ints(op, ATTR_KEY_STRIDE, stride, SHARDC_MAX_RANK);
    for (int d = 0; d < rank; d++) {
        if (!same_dim_axes(in, out, d)) {
            op_error(g, op, "dimension %d has mismatched sharding axes. This requires a reshard which should "
                     "have been handled by previous passes.", d);
            return;
        }
        if (!in || !in->dims[d].num_axes)
            continue;
        bool full = limit[d] == global_type(g, op->operands[0])->dims[d];
        if (start[d] != 0 || (!full && !free_slice_dim(g, op, d, start[d], stride[d]))) {
            op_error(g, op, "dimension %d is sharded but the slice is not a full slice and requires device "
                     "communication.", d);
            return;
        }
        limit[d] = full ? op->operands[0]->type.dims[d] : op->results[0]->type.dims[d];
    }
    op_attr_set(&g->m->arena, op, ATTR_KEY_LIMIT, ints_attr(g, limit, rank));
    op->results[0]->sharding = NULL; /* Shardy's is a new slice, unannotated */
}

/* ---- pad ------------------------------------------------------------------------------ */

typedef struct PadDims {
    int rank;
    int64_t low[SHARDC_MAX_RANK], high[SHARDC_MAX_RANK], interior[SHARDC_MAX_RANK];
    int64_t *offsets[SHARDC_MAX_RANK];  /* per dim, per device: where its input data starts in its output shard */
    bool uniform[SHARDC_MAX_RANK];
} PadDims;

/* (GlobalStartOfInputData) - (GlobalStartOfOutputShard) per device and
 * dim, as Shardy's StablehloPadOpPattern: false (reported) where a dim's
 * axes differ between operand and result. */
static bool pad_offsets(G2L *g, const Op *op, const Mesh *mesh, PadDims *pd)
{
    const Sharding *in = op->operands[0]->sharding, *out = op->results[0]->sharding;
    const TensorType *gin = global_type(g, op->operands[0]), *gout = global_type(g, op->results[0]);
    for (int d = 0; d < pd->rank; d++) {
        if (!same_dim_axes(in, out, d))
            return op_error(g, op, "dimension %d has mismatched sharding axes. This requires a reshard collective "
                            "which should have been handled by previous passes.", d);
        const AxisRef *axes = in->dims[d].axes;
        int n = in->dims[d].num_axes;
        int64_t shards = dim_shards(in, d), s_in = gin->dims[d] / shards, s_out = gout->dims[d] / shards;
        pd->offsets[d] = ARENA_ARRAY(&g->m->arena, int64_t, mesh->num_devices + 1);
        pd->uniform[d] = true;
        for (int64_t dev = 0; dev < mesh->num_devices; dev++) {
            int64_t k = shard_index(mesh, dev, axes, n);
            pd->offsets[d][dev] = k * s_in * (pd->interior[d] + 1) + pd->low[d] - k * s_out;
            pd->uniform[d] &= pd->offsets[d][dev] == pd->offsets[d][0];
        }
    }
    return true;
}

/* The local input's size once its interior padding is in. */
static int64_t expanded(const Op *op, const PadDims *pd, int d)
{
    return (op->operands[0]->type.dims[d] - 1) * (pd->interior[d] + 1) + 1;
}

/* The slice start of dim d in the safe pad: a constant where every device
 * has the same, else looked up by the device id. */
static Value *pad_slice_start(G2L *g, const Mesh *mesh, const PadDims *pd, int d, Value *id)
{
    int64_t count = mesh->num_devices;
    int64_t *table = ARENA_ARRAY(&g->m->arena, int64_t, count + 1);
    for (int64_t dev = 0; dev < count; dev++)
        table[dev] = pd->low[d] - pd->offsets[d][dev];
    if (pd->uniform[d])
        return const_i64(g, table, -1);
    Value *ops[2] = {const_i64(g, table, count), id};
    Value *one = emit(g, OP_DYNAMIC_SLICE, ops, 2, make_type(g, DT_I64, 1, (int64_t[]){1}))->results[0];
    return reshape(g, one, NULL, 0);
}

/* A pad of sharded dims (Shardy's StablehloPadOpPattern): where every
 * device's input data starts at the same place in its output shard, a
 * local pad; else a pad wide enough for every device's shift, then each
 * device's window of it (a dynamic_slice at offsets by device id). */
static Value *lower_pad(G2L *g, Op *op)
{
    const Sharding *in = op->operands[0]->sharding;
    Value *r = op->results[0];
    PadDims pd = {.rank = r->type.rank};
    op_attr_ints(op, ATTR_KEY_LOW, pd.low, SHARDC_MAX_RANK);
    op_attr_ints(op, ATTR_KEY_HIGH, pd.high, SHARDC_MAX_RANK);
    op_attr_ints(op, ATTR_KEY_INTERIOR, pd.interior, SHARDC_MAX_RANK);
    if (!in || !in->mesh || replicated(in) || !pad_offsets(g, op, in->mesh, &pd))
        return NULL;
    bool uniform = true;
    for (int d = 0; d < pd.rank; d++)
        uniform &= pd.uniform[d];
    int64_t safe[SHARDC_MAX_RANK];
    for (int d = 0; d < pd.rank; d++) {
        int64_t max = pd.offsets[d][0], min = max;
        for (int64_t dev = 1; dev < in->mesh->num_devices; dev++) {
            max = pd.offsets[d][dev] > max ? pd.offsets[d][dev] : max;
            min = pd.offsets[d][dev] < min ? pd.offsets[d][dev] : min;
        }
        pd.low[d] = uniform ? pd.offsets[d][0] : max > 0 ? max : 0;
        pd.high[d] = r->type.dims[d] - (uniform ? expanded(op, &pd, d) + pd.low[d] : min + expanded(op, &pd, d));
        pd.high[d] = uniform || pd.high[d] > 0 ? pd.high[d] : 0;
        safe[d] = pd.low[d] + expanded(op, &pd, d) + pd.high[d];
    }
    op_attr_set(&g->m->arena, op, ATTR_KEY_LOW, ints_attr(g, pd.low, pd.rank));
    op_attr_set(&g->m->arena, op, ATTR_KEY_HIGH, ints_attr(g, pd.high, pd.rank));
    r->sharding = NULL; /* Shardy's is a new pad, unannotated */
    if (uniform)
        return NULL;
    TensorType local = r->type;
    r->type = make_type(g, local.dtype, local.rank, safe);
    g->at = op->next;
    Value *id = device_id(g);
    Value *ops[SHARDC_MAX_RANK + 1] = {r};
    for (int d = 0; d < pd.rank; d++)
        ops[d + 1] = pad_slice_start(g, in->mesh, &pd, d, id);
    Value *sliced = emit(g, OP_DYNAMIC_SLICE, ops, pd.rank + 1, local)->results[0];
    ir_replace_uses(func_body(op), r, sliced);
    return NULL;
}

/* ---- gather ------------------------------------------------------------------------------ */

static Value *emit2(G2L *g, OpKind kind, Value *a, Value *b, TensorType t)
{
    Value *ops[2] = {a, b};
    return emit(g, kind, ops, 2, t)->results[0];
}

/* `dense<v>` of type t (a splat: one leaf of any shape). */
static Value *splat(G2L *g, TensorType t, int64_t v)
{
    Op *op = emit(g, OP_CONSTANT, NULL, 0, t);
    op_attr_set(&g->m->arena, op, ATTR_KEY_VALUE, int_attr(g, v));
    return op->results[0];
}

/* `dense<[v...]> : tensor<nxdt>`. */
static Value *vector(G2L *g, DType dt, const int64_t *v, int n)
{
    int64_t len = n;
    Op *op = emit(g, OP_CONSTANT, NULL, 0, make_type(g, dt, 1, &len));
    op_attr_set(&g->m->arena, op, ATTR_KEY_VALUE, ints_attr(g, v, n));
    return op->results[0];
}

static Value *broadcast(G2L *g, Value *x, TensorType t, const int64_t *dims, int n)
{
    Op *op = emit(g, OP_BROADCAST, &x, 1, t);
    op_attr_set(&g->m->arena, op, ATTR_KEY_DIMS, ints_attr(g, dims, n));
    return op->results[0];
}

/* `stablehlo.compare DIR, a, b` without a compare_type, as Shardy makes it. */
static Value *compare(G2L *g, const char *dir, Value *a, Value *b)
{
    TensorType t = a->type;
    t.dtype = DT_BOOL;
    Op *op = emit(g, OP_COMPARE, (Value *[]){a, b}, 2, t);
    op_attr_set(&g->m->arena, op, ATTR_KEY_DIRECTION, string_attr(g->m, dir));
    struct MlirExtra *x = ARENA_NEW(&g->m->arena, struct MlirExtra);
    x->no_compare_type = true;
    op->mlir = x;
    return op->results[0];
}

static bool contains(const int64_t *v, int n, int64_t x)
{
    for (int i = 0; i < n; i++)
        if (v[i] == x)
            return true;
    return false;
}

typedef struct GatherDims {
    int64_t sizes[SHARDC_MAX_RANK], batching[SHARDC_MAX_RANK], index_map[SHARDC_MAX_RANK];
    int64_t offset_dims[SHARDC_MAX_RANK], trivial[SHARDC_MAX_RANK];
    int num_batching, num_index_map, num_offset_dims, num_trivial;
    int64_t ivd;
    const Sharding *s;       /* the operand's */
    const TensorType *global; /* the operand's global type */
} GatherDims;

/* A tensor like the indices holding values[k] along the index vector dim
 * (one value: a splat). */
static Value *indices_like(G2L *g, TensorType t, int64_t ivd, const int64_t *values, int n)
{
    if (ivd < t.rank && n > 1)
        return broadcast(g, vector(g, t.dtype, values, n), t, &ivd, 1);
    return splat(g, t, values[0]);
}

/* clampGatherIndices: each index clamped to [0, global dim size - 1]. */
static Value *clamp_indices(G2L *g, Value *indices, const GatherDims *gd)
{
    int64_t zero = 0, max[SHARDC_MAX_RANK];
    for (int k = 0; k < gd->num_index_map; k++)
        max[k] = gd->global->dims[gd->index_map[k]] - 1;
    Value *lo = indices_like(g, indices->type, gd->ivd, &zero, 1);
    Value *hi = indices_like(g, indices->type, gd->ivd, max, gd->num_index_map);
    return emit(g, OP_CLAMP, (Value *[]){lo, indices, hi}, 3, indices->type)->results[0];
}

/* The bounds of indexed dim d in the local shard (getTrivialSliceDimBounds;
 * the upper one only with max). */
static void dim_bounds(G2L *g, const GatherDims *gd, int64_t d, int64_t shard, DType dt, Value **min, Value **max)
{
    TensorType scalar = make_type(g, dt, 0, NULL);
    if (!contains(gd->trivial, gd->num_trivial, d)) {
        *min = splat(g, scalar, 0);
        if (max)
            *max = splat(g, scalar, gd->global->dims[d] - 1);
        return;
    }
    const DimSharding *ds = &gd->s->dims[d];
    *min = emit1(g, OP_CONVERT, dim_offset(g, gd->s->mesh, ds->axes, ds->num_axes, shard), scalar);
    if (max)
        *max = emit2(g, OP_ADD, *min, splat(g, scalar, shard - 1), scalar);
}

/* The bounds as a tensor like the indices (buildBoundsTensor). */
static Value *bounds_tensor(G2L *g, Value **bounds, int n, TensorType t, int64_t ivd)
{
    if (ivd >= t.rank || t.dims[ivd] == 1)
        return broadcast(g, bounds[0], t, NULL, 0);
    Value *parts[SHARDC_MAX_RANK];
    for (int k = 0; k < n; k++)
        parts[k] = reshape(g, bounds[k], (int64_t[]){1}, 1);
    int64_t len = n;
    Op *cat = emit(g, OP_CONCATENATE, parts, n, make_type(g, t.dtype, 1, &len));
    op_attr_set(&g->m->arena, cat, ATTR_KEY_DIM, int_attr(g, 0));
    return broadcast(g, cat->results[0], t, &ivd, 1);
}

/* The local indices of the indexed trivial dims and, given mask (a
 * gather's), where they fall in this shard, the indices clamped to the
 * global operand first (computeLocalIndicesAndMask's index part; a
 * scatter's stay as they are, so that those out of bounds stay out);
 * *mask NULL if no trivial dim is indexed. */
static Value *local_indices(G2L *g, Value *indices, const GatherDims *gd, const TensorType *local, Value **mask)
{
    bool indexed = false;
    for (int k = 0; k < gd->num_trivial; k++)
        indexed |= contains(gd->index_map, gd->num_index_map, gd->trivial[k]);
    if (mask)
        *mask = NULL;
    if (!indexed)
        return indices;
    Value *base = mask ? clamp_indices(g, indices, gd) : indices, *min[SHARDC_MAX_RANK], *max[SHARDC_MAX_RANK];
    for (int k = 0; k < gd->num_index_map; k++)
        dim_bounds(g, gd, gd->index_map[k], local->dims[gd->index_map[k]], indices->type.dtype, &min[k],
                   mask ? &max[k] : NULL);
    Value *lo = bounds_tensor(g, min, gd->num_index_map, indices->type, gd->ivd);
    Value *hi = mask ? bounds_tensor(g, max, gd->num_index_map, indices->type, gd->ivd) : NULL;
    Value *adjusted = emit2(g, OP_SUB, base, lo, indices->type);
    if (mask) {
        Value *ge = compare(g, "ge", base, lo), *le = compare(g, "le", base, hi);
        *mask = emit2(g, OP_AND, ge, le, ge->type);
    }
    return adjusted;
}

/* The sharded dims that are not indexed hold the slice only on the shard
 * at offset 0 (the partition part of computeLocalIndicesAndMask). */
static Value *partition_mask(G2L *g, const GatherDims *gd, const TensorType *local, Value *mask)
{
    Value *pm = NULL;
    for (int k = 0; k < gd->num_trivial; k++) {
        int64_t d = gd->trivial[k];
        if (contains(gd->index_map, gd->num_index_map, d))
            continue;
        const DimSharding *ds = &gd->s->dims[d];
        Value *offset = dim_offset(g, gd->s->mesh, ds->axes, ds->num_axes, local->dims[d]);
        Value *eq = compare(g, "eq", offset, splat(g, offset->type, 0));
        pm = pm ? emit2(g, OP_AND, pm, eq, eq->type) : eq;
    }
    if (!pm || !mask)
        return pm ? pm : mask;
    return emit2(g, OP_AND, mask, broadcast(g, pm, mask->type, NULL, 0), mask->type);
}

/* The gather's result zeroed where the mask says its index is not in
 * this shard: the mask reduced by `and` over the index vector dim, then
 * broadcast over the result's batch dims. */
static Value *apply_mask(G2L *g, Value *gathered, Value *mask, const GatherDims *gd)
{
    if (mask->type.rank > 0 && gd->ivd < mask->type.rank) {
        Value *yes = splat(g, make_type(g, DT_BOOL, 0, NULL), 1);
        int64_t dims[SHARDC_MAX_RANK];
        int n = 0;
        for (int d = 0; d < mask->type.rank; d++)
            if (d != gd->ivd)
                dims[n++] = mask->type.dims[d];
        Op *all = emit(g, OP_REDUCE_MIN, &mask, 1, make_type(g, DT_BOOL, n, dims)); /* min over i1 is and */
        op_attr_set(&g->m->arena, all, ATTR_KEY_DIMS, ints_attr(g, &gd->ivd, 1));
        struct MlirExtra *x = ARENA_NEW(&g->m->arena, struct MlirExtra);
        x->init = yes;
        all->mlir = x;
        mask = all->results[0];
    }
    int64_t batch[SHARDC_MAX_RANK];
    int n = 0;
    for (int d = 0; mask->type.rank && d < gathered->type.rank; d++)
        if (!contains(gd->offset_dims, gd->num_offset_dims, d))
            batch[n++] = d;
    TensorType bools = gathered->type;
    bools.dtype = DT_BOOL;
    Value *wide = broadcast(g, mask, bools, batch, n);
    Value *zero = splat(g, gathered->type, 0);
    return emit(g, OP_SELECT, (Value *[]){wide, gathered, zero}, 3, gathered->type)->results[0];
}

/* Slice sizes of sharded dims taken whole become the local dim's; the
 * sharded dims sliced to size 1 (not batching ones) are the trivial ones. */
static bool gather_dims(G2L *g, Op *op, GatherDims *gd)
{
    gd->s = op->operands[0]->sharding;
    gd->global = global_type(g, op->operands[0]);
    int rank = gd->global->rank;
    op_attr_ints(op, ATTR_KEY_SLICE_SIZES, gd->sizes, SHARDC_MAX_RANK);
    gd->num_batching = op_attr_ints(op, ATTR_KEY_OPERAND_BATCHING_DIMS, gd->batching, SHARDC_MAX_RANK);
    gd->num_index_map = op_attr_ints(op, ATTR_KEY_START_INDEX_MAP, gd->index_map, SHARDC_MAX_RANK);
    gd->num_offset_dims = op_attr_ints(op, ATTR_KEY_OFFSET_DIMS, gd->offset_dims, SHARDC_MAX_RANK);
    gd->ivd = op_attr_int(op, ATTR_KEY_INDEX_VECTOR_DIM);
    gd->num_trivial = 0;
    for (int d = 0; d < rank; d++) {
        int64_t shards = dim_shards(gd->s, d);
        if (shards <= 1 || contains(gd->batching, gd->num_batching, d))
            continue;
        if (gd->sizes[d] == 1) {
            gd->trivial[gd->num_trivial++] = d;
        } else if (gd->sizes[d] != gd->global->dims[d] || gd->sizes[d] % shards) {
            return op_error(g, op, "dimension %d is sharded but its slice is neither whole nor of size 1", d);
        } else {
            gd->sizes[d] /= shards;
        }
    }
    op_attr_set(&g->m->arena, op, ATTR_KEY_SLICE_SIZES, ints_attr(g, gd->sizes, rank));
    return true;
}

/* A gather of a sharded operand (Shardy's StablehloGatherOpPattern):
 * local slice sizes; where dims sliced to size 1 are sharded (the
 * partial results the sdy.all_reduce after it sums), indices clamped and
 * made local, and the result zeroed where they fall outside the shard. */
static void lower_gather(G2L *g, Op *op)
{
    GatherDims gd;
    if (replicated(op->operands[0]->sharding) || !gather_dims(g, op, &gd) || !gd.num_trivial)
        return;
    const TensorType *local = &op->operands[0]->type;
    Value *mask;
    op->operands[1] = local_indices(g, op->operands[1], &gd, local, &mask);
    mask = partition_mask(g, &gd, local, mask);
    g->at = op->next;
    Value *r = apply_mask(g, op->results[0], mask, &gd);
    ir_replace_uses(func_body(op), op->results[0], r);
}

/* ---- scatter ----------------------------------------------------------------------------- */

/* getScatterReductionAxes: the axes of the updates' batch dims (not
 * window dims) that shard no dim of the input: each device scatters its
 * part of the updates, and the sdy.all_reduce after sums over them. */
static int scatter_reduction_axes(const Op *op, const Sharding *in, const Sharding *up, AxisRef *out)
{
    int64_t window[SHARDC_MAX_RANK];
    int nw = op_attr_ints(op, ATTR_KEY_UPDATE_WINDOW_DIMS, window, SHARDC_MAX_RANK), n = 0;
    for (int d = 0; up && d < up->rank; d++) {
        if (contains(window, nw, d))
            continue;
        for (int k = 0; k < up->dims[d].num_axes; k++) {
            bool in_input = false;
            for (int e = 0; in && e < in->rank; e++)
                for (int j = 0; j < in->dims[e].num_axes; j++)
                    in_input |= axis_ref_equal(in->dims[e].axes[j], up->dims[d].axes[k]);
            if (!in_input && n < AXIS_LIST_MAX)
                out[n++] = up->dims[d].axes[k];
        }
    }
    return n;
}

/* APFloat::getLargest: the largest finite value of a float type. */
static double largest_finite(DType dt)
{
    switch (dt) {
    case DT_F64: return DBL_MAX;
    case DT_F16: return 65504.0;
    case DT_BF16: return 3.3895313892515355e38;
    default: return FLT_MAX;
    }
}

/* getScatterReductionIdentity: the identity of the scatter's combiner
 * (max and min of floats start at the largest finite value, as Shardy's),
 * or false for one that has none (replace, a general region). */
static bool combiner_identity(const Op *op, DType dt, AttrValue **out, Module *m)
{
    const char *c = op_attr_string(op, ATTR_KEY_COMBINER);
    bool is_float = dtype_is_float(dt);
    if (!c)
        return false;
    AttrValue *v = attr_new(&m->arena, is_float && strcmp(c, "add") && strcmp(c, "and") && strcmp(c, "or")
                                           ? ATTR_FLOAT : ATTR_INT, (Loc){0});
    if (strcmp(c, "add") == 0 || strcmp(c, "or") == 0)
        v->u.i = 0;
    else if (strcmp(c, "mul") == 0 || strcmp(c, "and") == 0)
        is_float ? (void)(v->u.f = 1.0) : (void)(v->u.i = 1);
    else if (strcmp(c, "max") == 0 || strcmp(c, "min") == 0) {
        bool max = strcmp(c, "max") == 0;
        int64_t lo = 0, hi = 0;
        dtype_int_range(dt, &lo, &hi);
        if (is_float)
            v->u.f = max ? -largest_finite(dt) : largest_finite(dt);
        else
            v->u.i = max ? lo : hi;
    } else
        return false;
    *out = v;
    return true;
}

/* The inputs of all but the devices at index 0 over the reduction axes
 * reset to the combiner's identity, so that the all-reduce after counts
 * the input once. */
static bool leader_inputs(G2L *g, Op *op, int n, const Mesh *mesh, const AxisRef *axes, int na)
{
    TensorType local = op->operands[0]->type;
    AttrValue *identity;
    if (!combiner_identity(op, local.dtype, &identity, g->m)) {
        diag_error(g->diag, op->loc, "failed to get scatter reduction identity.");
        return g->ok = false;
    }
    Op *c = emit(g, OP_CONSTANT, NULL, 0, make_type(g, local.dtype, 0, NULL));
    op_attr_set(&g->m->arena, c, ATTR_KEY_VALUE, identity);
    Value *id = device_id(g);
    int64_t count = mesh->num_devices;
    int64_t *table = ARENA_ARRAY(&g->m->arena, int64_t, count + 1);
    for (int64_t dev = 0; dev < count; dev++)
        table[dev] = shard_index(mesh, dev, axes, na) == 0;
    Value *ops[2] = {vector(g, DT_BOOL, table, (int)count), id};
    Value *leader = emit(g, OP_DYNAMIC_SLICE, ops, 2, make_type(g, DT_BOOL, 1, (int64_t[]){1}))->results[0];
    TensorType bools = local;
    bools.dtype = DT_BOOL;
    leader = broadcast(g, leader, bools, (int64_t[]){0}, 1);
    Value *fill = broadcast(g, c->results[0], local, NULL, 0);
    for (int k = 0; k < n; k++)
        op->operands[k] = emit(g, OP_SELECT, (Value *[]){leader, op->operands[k], fill}, 3,
                               op->operands[k]->type)->results[0];
    return true;
}

/* The input's sharded dims the indices address (Shardy's indexedInputDims);
 * false (reported) for a sharded inserted window dim they do not. */
static bool scatter_dims(G2L *g, Op *op, GatherDims *gd)
{
    gd->s = op->operands[0]->sharding;
    gd->global = global_type(g, op->operands[0]);
    gd->num_index_map = op_attr_ints(op, ATTR_KEY_SCATTER_DIMS_TO_OPERAND_DIMS, gd->index_map, SHARDC_MAX_RANK);
    gd->ivd = op_attr_int(op, ATTR_KEY_INDEX_VECTOR_DIM);
    int64_t inserted[SHARDC_MAX_RANK];
    int ni = op_attr_ints(op, ATTR_KEY_INSERTED_WINDOW_DIMS, inserted, SHARDC_MAX_RANK);
    gd->num_trivial = 0;
    for (int d = 0; !replicated(gd->s) && d < gd->global->rank; d++) {
        if (!gd->s->dims[d].num_axes)
            continue;
        if (contains(gd->index_map, gd->num_index_map, d))
            gd->trivial[gd->num_trivial++] = d;
        else if (contains(inserted, ni, d))
            return op_error(g, op, "sharding operand dimension %d that is not indexed but in inserted window "
                            "dimension is not supported.", d);
    }
    return true;
}

/* A scatter (Shardy's StablehloScatterOpPattern): updates sharded along
 * their batch dims by axes the input does not use scatter on every
 * device, the input counted by one of them (leader_inputs); indices of
 * sharded indexed dims made local (writes to other shards fall out of
 * bounds and are dropped, as scatter drops them). */
static void lower_scatter(G2L *g, Op *op)
{
    int n = (op->num_operands - 1) / 2;
    const Sharding *in = op->operands[0]->sharding, *up = op->operands[n + 1]->sharding;
    if (replicated(in) && replicated(up))
        return;
    AxisRef axes[AXIS_LIST_MAX];
    int na = scatter_reduction_axes(op, replicated(in) ? NULL : in, replicated(up) ? NULL : up, axes);
    GatherDims gd;
    if ((!na && replicated(in)) || !scatter_dims(g, op, &gd) || (!gd.num_trivial && !na))
        return;
    if (na && !leader_inputs(g, op, n, !replicated(in) ? in->mesh : up->mesh, axes, na))
        return;
    if (!replicated(in))
        op->operands[n] = local_indices(g, op->operands[n], &gd, &op->operands[0]->type, NULL);
}

/* Shardy checks a concatenate only: its dim not sharded, the others as
 * its result's. */
static void check_concatenate(G2L *g, Op *op)
{
    const Sharding *out = op->results[0]->sharding;
    int dim = (int)op_attr_int(op, ATTR_KEY_DIM);
    if (dim_shards(out, dim) > 1 || (out && dim < out->rank && out->dims[dim].num_axes)) {
        op_error(g, op, "dimension %d is sharded but the concatenation is on this dimension.", dim);
        return;
    }
    for (int i = 0; i < op->num_operands; i++) {
        const Sharding *in = op->operands[i]->sharding;
        if (replicated(in))
            continue;
        if (dim < in->rank && in->dims[dim].num_axes) {
            op_error(g, op, "operand %d is sharded on concatenation dimension %d. This is not supported.", i, dim);
            return;
        }
        for (int d = 0; d < in->rank; d++)
            if (d != dim && !same_dim_axes(in, out, d)) {
                op_error(g, op, "dimension %d has mismatched sharding axes. This requires a reshard which should "
                         "have been handled by previous passes.", d);
                return;
            }
    }
}

/* Shardy's getLocalGroupCount: a group count divided by the shards of
 * the dim it groups (at most the count itself). */
static int64_t local_group_count(G2L *g, const Op *op, int64_t count, const Sharding *s, int64_t dim)
{
    int64_t shards = dim >= 0 && dim < SHARDC_MAX_RANK ? dim_shards(s, (int)dim) : 1;
    int64_t divisor = shards < count ? shards : count;
    if (count <= 1 || divisor <= 1)
        return count;
    if (count % divisor != 0)
        op_error(g, op, "global group count %lld is not divisible by the %lld shards of its dimension",
                 (long long)count, (long long)divisor);
    return count / divisor;
}

/* A sharded convolution: its group counts per device, the result
 * unannotated (Shardy makes a new convolution). */
static void lower_convolution(G2L *g, Op *op)
{
    const Sharding *lhs = op->operands[0]->sharding, *rhs = op->operands[1]->sharding;
    const char *spec = op_attr_string(op, ATTR_KEY_DIM_NUMBERS), *err;
    ConvDims d;
    if ((replicated(lhs) && replicated(rhs) && replicated(op->results[0]->sharding)) || !spec ||
        !op_conv_dims_parse(spec, op->operands[0]->type.rank, &d, &err))
        return;
    int64_t features = local_group_count(g, op, op_attr_int(op, ATTR_KEY_FEATURE_GROUP_COUNT), rhs, d.k_out);
    int64_t batches = local_group_count(g, op, op_attr_int(op, ATTR_KEY_BATCH_GROUP_COUNT), lhs, d.in_batch);
    op_attr_set(&g->m->arena, op, ATTR_KEY_FEATURE_GROUP_COUNT, int_attr(g, features));
    op_attr_set(&g->m->arena, op, ATTR_KEY_BATCH_GROUP_COUNT, int_attr(g, batches));
    op->results[0]->sharding = NULL;
}

/* ---- manual computations ---------------------------------------------------------------- */

/* A collective of the body, out of its manual computation: its mesh
 * named, not printed (the printer finds a collective's mesh from its
 * shard_map). */
static void name_mesh(G2L *g, Op *op, const Op *manual)
{
    if (op_info(op->kind)->op_class != OPC_COLLECTIVE || op_attr_find(op, ATTR_KEY_MESH))
        return;
    op_attr_set(&g->m->arena, op, ATTR_KEY_MESH, (AttrValue *)op_attr_get(manual, ATTR_KEY_MESH));
    set_bool(g, op, ATTR_KEY_MESH_AXES_GROUPS, false);
}

/* Shardy inlines a manual computation: its body's values are local
 * already (their types divided by the free axes like any value), its
 * arguments become its operands and its results what its body returns. */
static void inline_manual(G2L *g, Op *op)
{
    Block *body = op->region, *func = func_body(op);
    if (!body || body->num_args != op->num_operands || body->num_returns != op->num_results)
        return;
    for (Op *inner = body->first, *next; inner; inner = next) {
        next = inner->next;
        block_remove(body, inner);
        block_insert_before(op->parent, op, inner);
        name_mesh(g, inner, op);
    }
    for (int i = 0; i < body->num_args; i++)
        ir_replace_uses(func, body->args[i], op->operands[i]);
    for (int i = 0; i < op->num_results; i++)
        ir_replace_uses(func, op->results[i], body->returns[i]);
    block_remove(op->parent, op);
}

/* ---- the walk ------------------------------------------------------------------------ */

/* The per-dim axes of a collective read from sdy (import_sdy_collectives.c). */
static const Sharding *sdy_axes(const Op *op)
{
    const AttrValue *a = op_attr_get(op, ATTR_KEY_AXES);
    return a && a->kind == ATTR_SHARDING ? a->u.sharding : NULL;
}

static bool sdy_all_reduce(const Op *op)
{
    return op->kind == OP_ALL_REDUCE && op->num_operands == 1 && op->results[0]->sharding &&
           op_attr_symbol(op, ATTR_KEY_MESH);
}

/* Shardy's collective_permute needs meshes of one size (its words). */
static bool collective_fits(G2L *g, const Op *op, const Value *x)
{
    const Mesh *from = x->sharding ? x->sharding->mesh : NULL, *to = op->results[0]->sharding->mesh;
    if (op->kind == OP_COLLECTIVE_PERMUTE && from && (from->num_devices != to->num_devices ||
                                                      from->num_axes != to->num_axes))
        return op_error(g, op, "collective-permute between meshes of different sizes is not supported.");
    return true;
}

/* The value that replaces op's result, or NULL to leave op as it is. */
static Value *lower_op(G2L *g, Op *op)
{
    const Sharding *axes = sdy_axes(op);
    Value *x = op->num_operands ? op->operands[0] : NULL;
    if (axes && op->num_operands == 1 && op->num_results == 1 && op->results[0]->sharding) {
        if (!collective_fits(g, op, x))
            return NULL;
        switch (op->kind) {
        case OP_ALL_GATHER: return lower_all_gather(g, x, axes);
        case OP_ALL_SLICE: return slice_for_axes(g, x, axes, op->results[0]->type);
        case OP_REDUCE_SCATTER: return lower_reduce_scatter(g, op, x, axes);
        case OP_ALL_TO_ALL: return lower_all_to_all(g, op, x, axes);
        case OP_COLLECTIVE_PERMUTE:
            return x->sharding && x->sharding->mesh ? lower_permute(g, x, x->sharding, op->results[0]->sharding)
                                                    : NULL;
        default: return NULL;
        }
    }
    if (sdy_all_reduce(op))
        return lower_all_reduce(g, op, x);
    if (op->kind == OP_IOTA && op->num_results == 1 && !replicated(op->results[0]->sharding))
        return lower_iota(g, op);
    if (op->kind == OP_CONSTANT && op->num_results == 1 && strcmp(mlir_op_name(op), "sdy.constant") == 0)
        lower_constant(g, op);
    if (op->kind == OP_SLICE && op->num_operands == 1 && op->num_results == 1)
        lower_slice(g, op);
    if (op->kind == OP_CONCATENATE && op->num_results == 1)
        check_concatenate(g, op);
    if (op->kind == OP_CONVOLUTION && op->num_operands == 2 && op->num_results == 1)
        lower_convolution(g, op);
    if (op->kind == OP_PAD && op->num_results == 1)
        return lower_pad(g, op);
    if (op->kind == OP_GATHER && op->num_operands == 2 && op->num_results == 1)
        lower_gather(g, op);
    if (op->kind == OP_SCATTER && op->num_operands >= 3 && op->num_operands % 2 == 1)
        lower_scatter(g, op);
    return NULL;
}

/* The function body op is in (uses may be anywhere in it). */
static Block *func_body(Op *op)
{
    Block *body = op->parent;
    while (body->parent_op)
        body = body->parent_op->parent;
    return body;
}

static void lower(G2L *g, Op *op)
{
    if (op->kind == OP_SHARD_MAP) {
        inline_manual(g, op);
        return;
    }
    g->block = op->parent;
    g->at = op;
    g->loc = op->loc;
    Value *r = lower_op(g, op);
    if (r) {
        ir_replace_uses(func_body(op), op->results[0], r);
        block_remove(op->parent, op);
    }
}

typedef struct OpList {
    int count, cap;
    Op **items;
} OpList;

static bool collect(Op *op, void *user)
{
    OpList *l = user;
    if (l->count == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->items = realloc(l->items, sizeof *l->items * (size_t)l->cap);
        if (!l->items)
            arena_out_of_memory();
    }
    l->items[l->count++] = op;
    return true;
}

/* ---- types --------------------------------------------------------------------------- */

static bool localize_value(Value *v, void *user)
{
    G2L *g = user;
    if (v->id >= 0 && v->id < g->num_global)
        g->global[v->id] = v->type;
    TensorType t;
    if (local_type(g, v->sharding, &v->type, v->loc, &t))
        v->type = t;
    return true;
}

static void localize_results(G2L *g, Func *f)
{
    for (int i = 0; i < f->num_results; i++) {
        TensorType t;
        const Sharding *s = f->result_shardings ? f->result_shardings[i] : NULL;
        if (local_type(g, s, &f->result_types[i], f->result_locs ? f->result_locs[i] : f->loc, &t))
            f->result_types[i] = t;
    }
}

bool mlir_convert_global_to_local(Module *m, const MlirGlobalToLocalOptions *options, DiagEngine *diag)
{
    if (options->replica_count > 1 && options->partition_count > 1) {
        diag_error(diag, (Loc){.file = m->file}, "Shardy partitioner convert_global_to_local does not support both "
                   "replica_count > 1 and partition_count > 1 yet.");
        return false;
    }
    G2L g = {.m = m, .opt = options, .diag = diag, .ok = true, .num_global = m->num_values};
    g.global = calloc((size_t)g.num_global + 1, sizeof *g.global);
    if (!g.global)
        arena_out_of_memory();
    ir_walk_module(m, &(IrWalker){.value = localize_value, .user = &g, .scope = IR_WALK_ALL});
    for (int i = 0; i < m->num_funcs; i++)
        localize_results(&g, m->funcs[i]);
    OpList ops = {0};
    ir_walk_module(m, &(IrWalker){.pre = collect, .user = &ops, .scope = IR_WALK_ALL});
    for (int i = 0; g.ok && i < ops.count; i++)
        lower(&g, ops.items[i]);
    free(ops.items);
    free(g.global);
    return g.ok;
}
