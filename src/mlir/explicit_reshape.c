/* Shardy's processReshapeWithOverflowAxes (insert_explicit_reshards.cc),
 * for -sdy-insert-explicit-reshards on a reshape one of whose tensors
 * projects with overflow axes (axes a major factor of a compound dim
 * cannot divide, so the factors after it get none): the axes of the
 * side sharded over more devices are dealt out again, axis first, over
 * each side's factors (distributeAxesAcrossFactors), both sides are
 * projected once more, and each factor keeps what the two agree on. */
#include "shardc/propagate.h"
#include "explicit_internal.h"

static bool any_overflow(const ShardingProjection *p)
{
    for (int t = 0; t < p->num_tensors; t++)
        for (int f = 0; f < p->rule->num_factors; f++)
            if (p->tensors[t].factors[f].present && p->tensors[t].factors[f].overflow.count)
                return true;
    return false;
}

/* getShardingSize: the devices every factor's axes, overflow ones too, span. */
static int64_t sharding_size(const ShardingProjection *p, int t)
{
    int64_t size = 1;
    for (int f = 0; f < p->rule->num_factors; f++)
        if (p->tensors[t].factors[f].present)
            size *= axis_list_size(&p->tensors[t].factors[f].axes) *
                    axis_list_size(&p->tensors[t].factors[f].overflow);
    return size;
}

/* Every axis of tensor t, factor by factor, overflow after the factor's. */
static void all_axes(AxisList *all, const ShardingProjection *p, int t)
{
    all->count = 0;
    for (int f = 0; f < p->rule->num_factors; f++) {
        const FactorSharding *fs = &p->tensors[t].factors[f];
        for (int i = 0; fs->present && i < fs->axes.count + fs->overflow.count && all->count < AXIS_LIST_MAX; i++)
            all->axes[all->count++] = i < fs->axes.count ? fs->axes.axes[i] : fs->overflow.axes[i - fs->axes.count];
    }
}

/* The factors tensor t has, in dim order, with their sizes; cleared. */
static int flatten_factors(FactorSharding **out, int64_t *sizes, ShardingProjection *p, int t)
{
    const TensorFactors *tf = t < p->num_operands ? &p->rule->operands[t] : &p->rule->results[t - p->num_operands];
    int n = 0;
    for (int d = 0; d < tf->rank; d++)
        for (int k = 0; k < tf->dims[d].count; k++) {
            int f = tf->dims[d].factors[k];
            FactorSharding *fs = &p->tensors[t].factors[f];
            if (!fs->present)
                continue;
            fs->axes.count = fs->overflow.count = 0;
            sizes[n] = p->rule->factors[f].size;
            out[n++] = fs;
        }
    return n;
}

/* Part of *cur, as much as divides what factor fs still has room for:
 * true if that was all of it. */
static bool take_part(FactorSharding *fs, int64_t *room, AxisRef *cur, const Mesh *mesh)
{
    int64_t g = ir_gcd64(*room, cur->size);
    if (cur->size > g) {
        axis_list_add_or_merge(&fs->axes, (AxisRef){cur->axis, cur->pre_size, g}, mesh);
        cur->pre_size *= g;
        cur->size /= g;
        *room /= g;
        return false;
    }
    axis_list_add_or_merge(&fs->axes, *cur, mesh);
    *room /= cur->size;
    return true;
}

/* distributeAxesAcrossFactors: each (sub-)axis in turn goes to the first
 * factors with room for a part of it that divides them, whole or split;
 * from the first axis no factor can take on, the axes overflow the last
 * factor. */
static void distribute(ShardingProjection *p, int t, AxisList axes)
{
    int nf = p->rule->num_factors;
    FactorSharding *factors[nf + 1];
    int64_t room[nf + 1];
    int n = flatten_factors(factors, room, p, t);
    for (int a = 0; n && a < axes.count;) {
        AxisRef *cur = &axes.axes[a];
        bool used = false, whole = false;
        for (int i = 0; i < n && !whole; i++) {
            if (room[i] <= 1 || (cur->size != 1 && ir_gcd64(room[i], cur->size) == 1))
                continue;
            used = true;
            whole = take_part(factors[i], &room[i], cur, p->mesh);
        }
        if (whole) {
            a++;
        } else if (!used) {
            for (; a < axes.count; a++)
                axis_list_add_or_merge(&factors[n - 1]->overflow, axes.axes[a], p->mesh);
        }
    }
}

/* getGreatestCommonPrefix of two axis lists. */
static void common_prefix(AxisList *acc, const AxisList *other)
{
    int i = 0;
    while (i < acc->count && i < other->count && axis_ref_equal(acc->axes[i], other->axes[i]))
        i++;
    if (i < acc->count && i < other->count) {
        AxisRef a = acc->axes[i], b = other->axes[i];
        if (axis_ref_prefix_of(a, b) || axis_ref_prefix_of(b, a))
            acc->axes[i++] = axis_ref_prefix_of(a, b) ? a : b;
    }
    acc->count = i;
}

/* getGreatestCommonPrefixAxes of the projection of both sides as they now
 * shard their dims. */
static void agreed_axes(AxisList *common, const ShardingProjection *p, Arena *scratch,
                        const TensorType *const *types)
{
    Sharding *built[2];
    for (int t = 0; t < 2; t++)
        built[t] = projection_to_sharding(p, t, NULL, scratch);
    ShardingProjection legal;
    projection_build(&legal, scratch, p->rule, p->mesh, built, types, 1, 2);
    for (int f = 0; f < p->rule->num_factors; f++) {
        bool seen = false;
        for (int t = 0; t < 2; t++) {
            const FactorSharding *fs = &legal.tensors[t].factors[f];
            if (fs->present && seen)
                common_prefix(&common[f], &fs->axes);
            else if (fs->present)
                axis_list_copy(&common[f], &fs->axes);
            seen |= fs->present;
        }
        if (!seen)
            common[f].count = 0;
    }
}

bool mlir_reshape_overflow(DimAxes *want, AxisList *common, Arena *scratch, const OpShardingRule *rule,
                           const Mesh *mesh, Sharding *const *shardings, const TensorType *const *types)
{
    ShardingProjection p;
    projection_build(&p, scratch, rule, mesh, shardings, types, 1, 2);
    if (rule->num_operands != 1 || rule->num_results != 1 || !any_overflow(&p))
        return false;
    AxisList axes;
    all_axes(&axes, &p, sharding_size(&p, 0) >= sharding_size(&p, 1) ? 0 : 1);
    distribute(&p, 0, axes);
    distribute(&p, 1, axes);
    agreed_axes(common, &p, scratch, types);
    for (int t = 0; t < 2; t++) {
        for (int f = 0; f < rule->num_factors; f++)
            if (p.tensors[t].factors[f].present) {
                axis_list_copy(&p.tensors[t].factors[f].axes, &common[f]);
                p.tensors[t].factors[f].overflow.count = 0;
            }
        reshard_dim_axes_from_sharding(&want[t], projection_to_sharding(&p, t, NULL, scratch), types[t]->rank);
    }
    return true;
}
