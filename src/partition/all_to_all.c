/* A merged all-to-all (reshard_plan.c: several dim-to-dim moves in one
 * exchange over all their axes) as one tiled all_to_all between local
 * reshapes and transposes, which move no data between devices.
 *
 * With moves k = 1..m of n_k devices each, in the group's order:
 *   1. each target dim of local size L is split into [n_k..., L / prod]
 *      (the destination's index is the major part of the target block);
 *   2. the n_k dims are brought together, in group order, where the first
 *      of them is, and merged into one dim of N = prod n_k: the index of
 *      the destination in the group;
 *   3. all_to_all with that dim as split and concat axis: block j goes to
 *      member j, and the block from member j lands at index j;
 *   4. that dim is split back into the n_k, each moved in front of its
 *      source dim (the sender's index is the major part of the gathered
 *      source block), and the dims merged to the new local shape.
 * The GSPMD example (tests/partition/gspmd_full_remat.shir) moves "x" from
 * dim 2 and "y" from dim 0 to dim 1: f32[8,16,4] -> [8,8,2,4] -> all_to_all
 * over ("x", "y") on dim 1 -> [8,4,2,2,4] -> transpose [2,8,2,4,4] ->
 * f32[16,2,16]. */
#include <string.h>
#include "partition/partition_ctx.h"

enum { A2A_MAX_RANK = 2 * SHARDC_MAX_RANK };

typedef struct A2aShapes {
    int rank;                           /* of the split shape */
    int64_t split[A2A_MAX_RANK];        /* step 1 */
    int block[SHARDC_MAX_RANK];         /* position of move k's n_k in split */
    int rest[SHARDC_MAX_RANK];          /* position of dim e's rest in split */
    int perm[A2A_MAX_RANK];             /* step 2: split position at each place */
    int at;                             /* where the merged dim is */
} A2aShapes;

static int64_t move_size(const ReshardStep *s, const ReshardMove *m)
{
    int64_t n = 1;
    for (int i = m->first; i < m->first + m->count; i++)
        n *= s->axes.axes[i].size;
    return n;
}

/* Step 1: the target dims split, destination parts major. */
static void split_targets(A2aShapes *sh, const ReshardStep *s, const TensorType *local)
{
    sh->rank = 0;
    for (int e = 0; e < local->rank; e++) {
        int64_t rest = local->dims[e];
        for (int k = 0; k < s->num_moves; k++)
            if (s->moves[k].dim == e) {
                sh->block[k] = sh->rank;
                sh->split[sh->rank++] = move_size(s, &s->moves[k]);
                rest /= move_size(s, &s->moves[k]);
            }
        sh->rest[e] = sh->rank;
        sh->split[sh->rank++] = rest;
    }
}

static bool is_block(const A2aShapes *sh, int num_moves, int pos)
{
    for (int k = 0; k < num_moves; k++)
        if (sh->block[k] == pos)
            return true;
    return false;
}

/* Step 2: the destination parts together, in group order, at the first. */
static void gather_blocks(A2aShapes *sh, int num_moves)
{
    int n = 0;
    sh->at = -1;
    for (int q = 0; q < sh->rank; q++) {
        if (!is_block(sh, num_moves, q)) {
            sh->perm[n++] = q;
        } else if (sh->at < 0) {
            sh->at = n;
            for (int k = 0; k < num_moves; k++)
                sh->perm[n++] = sh->block[k];
        }
    }
}

static TensorType shape_type(PartitionCtx *pc, DType dtype, int rank, const int64_t *dims)
{
    return type_make(&pc->module->arena, dtype, rank, dims);
}

static Value *emit_reshape(PartitionCtx *pc, Value *in, int rank, const int64_t *dims, const char *name, Loc loc)
{
    if (in->type.rank == rank && memcmp(in->type.dims, dims, sizeof(int64_t) * (size_t)rank) == 0)
        return in;
    return pc_emit1(pc, OP_RESHAPE, loc, &in, 1, name, shape_type(pc, in->type.dtype, rank, dims), NULL);
}

static bool is_identity(const int *perm, int n)
{
    for (int i = 0; i < n; i++)
        if (perm[i] != i)
            return false;
    return true;
}

static Value *emit_transpose(PartitionCtx *pc, Value *in, const int *perm, const char *name, Loc loc)
{
    if (is_identity(perm, in->type.rank))
        return in;
    int64_t dims[A2A_MAX_RANK];
    AttrValue *attr = attr_new(&pc->module->arena, ATTR_ARRAY, (Loc){0});
    attr->u.array.count = in->type.rank;
    attr->u.array.items = ARENA_ARRAY(&pc->module->arena, AttrValue *, in->type.rank);
    for (int i = 0; i < in->type.rank; i++) {
        dims[i] = in->type.dims[perm[i]];
        attr->u.array.items[i] = pc_int_attr(pc, perm[i]);
    }
    Op *op;
    Value *out = pc_emit1(pc, OP_TRANSPOSE, loc, &in, 1, name, shape_type(pc, in->type.dtype, in->type.rank, dims),
                          &op);
    pc_set_attr(pc, op, ATTR_KEY_PERMUTATION, attr);
    return out;
}

/* The shape after step 2, with the destination parts separate or merged
 * into one dim of their product. */
static int gathered_shape(const A2aShapes *sh, int num_moves, bool merged, int64_t *dims)
{
    int n = 0;
    for (int i = 0; i < sh->rank; i++) {
        int64_t d = sh->split[sh->perm[i]];
        if (merged && i > sh->at && i < sh->at + num_moves)
            dims[n - 1] *= d;
        else
            dims[n++] = d;
    }
    return n;
}

/* Step 3: the exchange, recorded like every other collective. */
static Value *emit_exchange(PartitionCtx *pc, Value *in, const ReshardStep *s, int at, const char *base, Loc loc)
{
    Op *op;
    Value *out = pc_emit1(pc, OP_ALL_TO_ALL, loc, &in, 1, pc_printf(pc, "%s.all_to_all", base), in->type, &op);
    int64_t n = axis_list_size(&s->axes), bytes = pc_type_bytes(&in->type) / n * (n - 1);
    pc_set_attr(pc, op, ATTR_KEY_AXES, pc_axes_attr(pc, &s->axes));
    pc_set_attr(pc, op, ATTR_KEY_SPLIT_AXIS, pc_int_attr(pc, at));
    pc_set_attr(pc, op, ATTR_KEY_CONCAT_AXIS, pc_int_attr(pc, at));
    pc_set_attr(pc, op, ATTR_KEY_TILED, pc_bool_attr(pc, true));
    pc_set_attr(pc, op, ATTR_KEY_BYTES_PER_DEVICE, pc_int_attr(pc, bytes));
    pc_record_collective(pc, (CollectiveRecord){OP_ALL_TO_ALL, pc->mesh, s->axes, bytes, base, loc, out->name,
                                                pc->reason, 0});
    return out;
}

/* Step 4's transpose: each source dim's rest preceded by the sender parts
 * of the moves that gather it. Positions are in the step 2 order. Of two
 * moves from one dim the later took the axes major to the earlier's. */
static void scatter_blocks(const A2aShapes *sh, const ReshardStep *s, int rank, int *perm)
{
    int where[A2A_MAX_RANK], n = 0;
    for (int i = 0; i < sh->rank; i++)
        where[sh->perm[i]] = i;
    for (int e = 0; e < rank; e++) {
        for (int k = s->num_moves - 1; k >= 0; k--)
            if (s->moves[k].src_dim == e)
                perm[n++] = sh->at + k;
        perm[n++] = where[sh->rest[e]];
    }
}

Value *pc_emit_merged_all_to_all(PartitionCtx *pc, Value *in, const TensorType *global, const ReshardStep *s,
                                 const char *base, Loc loc)
{
    A2aShapes sh;
    int64_t dims[A2A_MAX_RANK];
    int perm[A2A_MAX_RANK];
    TensorType local = in->type, final = pc_local_type(pc, global, &s->after);
    const char *name = pc_printf(pc, "%s.a2a", base);
    split_targets(&sh, s, &local);
    gather_blocks(&sh, s->num_moves);
    Value *v = in;
    if (!is_identity(sh.perm, sh.rank))
        v = emit_transpose(pc, emit_reshape(pc, v, sh.rank, sh.split, name, loc), sh.perm, name, loc);
    int n = gathered_shape(&sh, s->num_moves, true, dims);
    v = emit_reshape(pc, v, n, dims, name, loc);
    v = emit_exchange(pc, v, s, sh.at, base, loc);
    n = gathered_shape(&sh, s->num_moves, false, dims);
    v = emit_reshape(pc, v, n, dims, name, loc);
    scatter_blocks(&sh, s, local.rank, perm);
    v = emit_transpose(pc, v, perm, name, loc);
    return emit_reshape(pc, v, final.rank, final.dims, name, loc);
}
