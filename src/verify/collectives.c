/* Verifier rules for the collectives of manual regions and SPMD programs
 * (JAX semantics, jax/_src/lax/parallel.py). */
#include <string.h>
#include "shardc/verify.h"

enum { MAX_GROUP_AXES = 16 };

const Mesh *verify_collective_mesh(VerifyCtx *vc, const Op *op)
{
    if (vc->region_mesh)
        return vc->region_mesh;
    if (op_attr_symbol(op, ATTR_KEY_MESH))
        return op_attr_mesh(vc->module, op, ATTR_KEY_MESH);
    return vc->module->num_meshes == 1 ? vc->module->meshes[0] : NULL;
}

/* Whether the enclosing shard_map's manual_axes (NULL: all axes) lists the
 * axis. A malformed list was reported with the shard_map; it counts as all. */
static bool is_manual_axis(const AttrValue *manual, const char *name)
{
    if (!manual || manual->kind != ATTR_ARRAY)
        return true;
    bool found = false;
    for (int j = 0; j < manual->u.array.count; j++) {
        const AttrValue *item = manual->u.array.items[j];
        if (item->kind != ATTR_STRING)
            return true;
        found |= strcmp(item->u.s, name) == 0;
    }
    return found;
}

/* The product of the group's axis sizes, or -1 (reported). */
static int64_t group_size(VerifyCtx *vc, const Op *op, const Mesh *mesh)
{
    AxisRef refs[MAX_GROUP_AXES];
    int n = verify_axis_refs(vc, op, ATTR_KEY_AXES, mesh, refs, MAX_GROUP_AXES);
    if (n < 0)
        return -1;
    int axes[MAX_GROUP_AXES];
    for (int i = 0; i < n; i++)
        axes[i] = refs[i].axis;
    const AttrValue *manual = vc->region_op ? op_attr_get(vc->region_op, ATTR_KEY_MANUAL_AXES) : NULL;
    int64_t size = 1;
    for (int i = 0; i < n; i++) {
        if (!is_manual_axis(manual, mesh->axes[axes[i]].name)) {
            diag_error(vc->diag, op_attr_loc(op, ATTR_KEY_AXES), "axis \"%s\" is not a manual axis of the enclosing "
                       "shard_map", mesh->axes[axes[i]].name);
            return -1;
        }
        size *= refs[i].size;
    }
    return size;
}

static void expect_shape(VerifyCtx *vc, const Op *op, const TensorType *in, const int64_t *dims, int rank)
{
    TensorType want = {in->dtype, rank, (int64_t *)dims};
    verify_expect_type(vc, op, &want, op->results[0]);
}

/* size * group into *out; false (reported) if it overflows. */
static bool gathered_dim(VerifyCtx *vc, const Op *op, int64_t size, int64_t group, int64_t *out)
{
    if (!__builtin_mul_overflow(size, group, out))
        return true;
    diag_error(vc->diag, op->loc, "'%s' result dim of %lld * %lld elements does not fit in 64 bits",
               op_info(op->kind)->name, (long long)size, (long long)group);
    return false;
}

/* all_gather (tiled: the dim grows; stacked: a new dim of the group size). */
static void verify_all_gather(VerifyCtx *vc, const Op *op, const TensorType *in, int64_t group)
{
    bool tiled = op_attr_bool(op, ATTR_KEY_TILED);
    int64_t axis, dims[SHARDC_MAX_RANK + 1];
    if (!verify_dim_attr(vc, op, ATTR_KEY_AXIS, in->rank + (tiled ? 0 : 1), &axis))
        return;
    if (tiled && in->rank == 0) {
        diag_error(vc->diag, op->loc, "a tiled all_gather needs an operand of rank >= 1");
        return;
    }
    int rank = 0;
    for (int d = 0; d <= in->rank; d++) {
        if (!tiled && d == axis)
            dims[rank++] = group;
        if (d < in->rank && !gathered_dim(vc, op, in->dims[d], tiled && d == axis ? group : 1, &dims[rank++]))
            return;
    }
    expect_shape(vc, op, in, dims, rank);
}

/* sharded_to_unreduced: `dim` grows by the group size (all_slice's
 * opposite). */
static void verify_unslice(VerifyCtx *vc, const Op *op, const TensorType *in, int64_t group)
{
    int64_t dim, dims[SHARDC_MAX_RANK];
    if (!verify_dim_attr(vc, op, ATTR_KEY_DIM, in->rank, &dim))
        return;
    for (int d = 0; d < in->rank; d++)
        if (!gathered_dim(vc, op, in->dims[d], d == dim ? group : 1, &dims[d]))
            return;
    expect_shape(vc, op, in, dims, in->rank);
}

/* psum_scatter / reduce_scatter / all_slice: a dim shrinks by the group
 * size (untiled psum_scatter: a dim of exactly the group size goes away). */
static void verify_scatter(VerifyCtx *vc, const Op *op, const TensorType *in, int64_t group,
                           AttrKey dim_key, bool tiled)
{
    int64_t dim, dims[SHARDC_MAX_RANK];
    if (!verify_dim_attr(vc, op, dim_key, in->rank, &dim))
        return;
    if (in->rank == 0 || (tiled && in->dims[dim] % group) || (!tiled && in->dims[dim] != group)) {
        diag_error(vc->diag, op->loc, tiled ? "'%s' dim %lld of size %lld is not divisible by the group size %lld"
                                            : "'%s' untiled: dim %lld has size %lld but must equal the group "
                                              "size %lld", op_info(op->kind)->name, (long long)dim,
                   (long long)(in->rank ? in->dims[dim] : 0), (long long)group);
        return;
    }
    int rank = 0;
    for (int d = 0; d < in->rank; d++)
        if (tiled || d != dim)
            dims[rank++] = d == dim ? in->dims[d] / group : in->dims[d];
    expect_shape(vc, op, in, dims, rank);
}

static void verify_all_to_all(VerifyCtx *vc, const Op *op, const TensorType *in, int64_t group)
{
    int64_t split, concat, dims[SHARDC_MAX_RANK];
    bool tiled = op_attr_bool(op, ATTR_KEY_TILED);
    if (!verify_dim_attr(vc, op, ATTR_KEY_SPLIT_AXIS, in->rank, &split) ||
        !verify_dim_attr(vc, op, ATTR_KEY_CONCAT_AXIS, in->rank, &concat))
        return;
    if (tiled ? in->dims[split] % group != 0 : in->dims[split] != group) {
        diag_error(vc->diag, op->loc, "'all_to_all' split_axis %lld of size %lld must be %s the group size %lld",
                   (long long)split, (long long)in->dims[split], tiled ? "divisible by" : "equal to",
                   (long long)group);
        return;
    }
    memcpy(dims, in->dims, sizeof(int64_t) * (size_t)in->rank);
    if (tiled) {
        dims[split] /= group;
        if (!gathered_dim(vc, op, dims[concat], group, &dims[concat]))
            return;
    } else {
        /* Untiled: the split dim (of the group size) moves to concat_axis. */
        int64_t moved = dims[split];
        memmove(dims + split, dims + split + 1, sizeof(int64_t) * (size_t)(in->rank - split - 1));
        memmove(dims + concat + 1, dims + concat, sizeof(int64_t) * (size_t)(in->rank - concat - 1));
        dims[concat] = moved;
    }
    expect_shape(vc, op, in, dims, in->rank);
}

static void verify_permute_pairs(VerifyCtx *vc, const Op *op, int64_t group)
{
    const AttrValue *v = op_attr_get(op, ATTR_KEY_PERM);
    if (!v || v->kind != ATTR_ARRAY) {
        diag_error(vc->diag, v ? v->loc : op->loc, "'%s' needs 'perm': a list of [source, destination] pairs",
                   op_info(op->kind)->name);
        return;
    }
    uint64_t sources = 0, dests = 0;
    for (int i = 0; i < v->u.array.count; i++) {
        int64_t pair[2];
        const AttrValue *item = v->u.array.items[i];
        if (attr_int_array(item, pair, 2) != 2 || pair[0] < 0 || pair[1] < 0 || pair[0] >= group ||
            pair[1] >= group || pair[0] >= 64 || pair[1] >= 64 ||
            (sources >> pair[0] & 1) || (dests >> pair[1] & 1)) {
            diag_error(vc->diag, item->loc, "'perm' entries must be [source, destination] pairs of distinct "
                       "indices in [0, %lld)", (long long)group);
            return;
        }
        sources |= 1ull << pair[0];
        dests |= 1ull << pair[1];
    }
}

static void verify_reduction_kind(VerifyCtx *vc, const Op *op)
{
    const char *kind = op_attr_string(op, ATTR_KEY_REDUCTION); /* not a string: reported */
    if (kind && strcmp(kind, "sum") && strcmp(kind, "max") && strcmp(kind, "min") && strcmp(kind, "mean"))
        diag_error(vc->diag, op_attr_loc(op, ATTR_KEY_REDUCTION), "unknown reduction \"%s\" (expected sum, max, min or mean)",
                   kind);
}

/* collective_permute moves each device's block from where `source` puts it
 * to where `target` wants it; both must shard every dim alike in size. */
static void verify_collective_permute(VerifyCtx *vc, const Op *op, const Mesh *mesh)
{
    const Sharding *a = op_attr_sharding(op, ATTR_KEY_SOURCE), *b = op_attr_sharding(op, ATTR_KEY_TARGET);
    if (!a || !b) {
        diag_error(vc->diag, op->loc, "'collective_permute' needs 'source' and 'target' shardings");
        return;
    }
    const TensorType *in = &op->operands[0]->type;
    if (a->mesh != mesh || b->mesh != mesh || a->rank != in->rank || b->rank != in->rank) {
        diag_error(vc->diag, op->loc, "'collective_permute' source and target must be on mesh '@%s' with rank %d",
                   mesh->name, in->rank);
        return;
    }
    for (int d = 0; d < in->rank; d++)
        if (sharding_dim_shards(a, d) != sharding_dim_shards(b, d))
            diag_error(vc->diag, op->loc, "'collective_permute' source and target shard dim %d into different "
                       "numbers of pieces", d);
    verify_expect_type(vc, op, in, op->results[0]);
}

void verify_collective(VerifyCtx *vc, Op *op)
{
    const Mesh *mesh = verify_collective_mesh(vc, op);
    if (!mesh) {
        diag_error(vc->diag, op->loc, "'%s' outside a shard_map needs 'mesh = @m' (the module has %d meshes)",
                   op_info(op->kind)->name, vc->module->num_meshes);
        return;
    }
    if (op->kind == OP_COLLECTIVE_PERMUTE) {
        verify_collective_permute(vc, op, mesh);
        return;
    }
    int64_t group = group_size(vc, op, mesh);
    if (group < 0)
        return;
    const TensorType *in = op->num_operands ? &op->operands[0]->type : NULL;
    switch (op->kind) {
    case OP_AXIS_INDEX: expect_shape(vc, op, &(TensorType){DT_I32, 0, NULL}, NULL, 0); break;
    case OP_ALL_GATHER: verify_all_gather(vc, op, in, group); break;
    case OP_PSUM_SCATTER:
        verify_scatter(vc, op, in, group, ATTR_KEY_SCATTER_DIMENSION, op_attr_bool(op, ATTR_KEY_TILED));
        break;
    case OP_REDUCE_SCATTER:
        verify_reduction_kind(vc, op);
        verify_scatter(vc, op, in, group, ATTR_KEY_DIM, true);
        break;
    case OP_ALL_SLICE: verify_scatter(vc, op, in, group, ATTR_KEY_DIM, true); break;
    case OP_SHARDED_TO_UNREDUCED: verify_unslice(vc, op, in, group); break;
    case OP_ALL_TO_ALL: verify_all_to_all(vc, op, in, group); break;
    case OP_PPERMUTE:
        verify_permute_pairs(vc, op, group);
        verify_expect_type(vc, op, in, op->results[0]);
        break;
    case OP_ALL_REDUCE: case OP_PSUM: case OP_PMEAN: case OP_PMAX: case OP_PMIN:
        verify_reduction_kind(vc, op);
        verify_expect_type(vc, op, in, op->results[0]);
        break;
    default: verify_expect_type(vc, op, in, op->results[0]); break;
    }
}
