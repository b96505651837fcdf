/* The axis lists of Shardy's reshard-to-collectives (reshard_shardy.c):
 * Shardy keeps them as std::list<AxisRefAttr> and edits them in place, so
 * these are the list edits on an AxisList, the sub-axis operations of
 * Shardy's AxisRefAttr that shardc's sub-axis algebra (src/ir/sharding.c)
 * lacks, and alignSubAxesByDecomposition, which splits sub-axes so that
 * two that overlap are equal (then an axis works as a key). */
#include <stdlib.h>
#include <string.h>
#include "reshard_internal.h"

bool reshard_list_insert(AxisList *l, int at, AxisRef a)
{
    if (l->count == AXIS_LIST_MAX)
        return false;
    memmove(&l->axes[at + 1], &l->axes[at], sizeof(AxisRef) * (size_t)(l->count - at));
    l->axes[at] = a;
    l->count++;
    return true;
}

void reshard_list_erase(AxisList *l, int at)
{
    memmove(&l->axes[at], &l->axes[at + 1], sizeof(AxisRef) * (size_t)(l->count - at - 1));
    l->count--;
}

int reshard_list_find(const AxisList *l, AxisRef a)
{
    for (int i = 0; i < l->count; i++)
        if (axis_ref_equal(l->axes[i], a))
            return i;
    return -1;
}

bool reshard_sizes_divisible(int64_t a, int64_t b)
{
    return a % b == 0 || b % a == 0;
}

static bool is_full(const Mesh *mesh, AxisRef a)
{
    return axis_ref_is_full(mesh, a);
}

/* Shardy's canCoexist: two sub-axes of one axis whose overlap, or gap,
 * is itself a sub-axis (sizes dividing each other). */
static bool can_coexist(const Mesh *mesh, AxisRef a, AxisRef b)
{
    if (a.axis != b.axis || is_full(mesh, a) || is_full(mesh, b))
        return true;
    int64_t min_pre = a.pre_size < b.pre_size ? a.pre_size : b.pre_size;
    int64_t max_pre = a.pre_size < b.pre_size ? b.pre_size : a.pre_size;
    int64_t a_end = axis_ref_end(a), b_end = axis_ref_end(b);
    int64_t min_end = a_end < b_end ? a_end : b_end, max_end = a_end < b_end ? b_end : a_end;
    if (min_end > max_pre)
        return min_end % max_pre == 0 && max_pre % min_pre == 0 && max_end % min_end == 0;
    return max_pre % min_end == 0;
}

/* The part of a that b overlaps (Shardy's getOverlap). */
static bool overlap_of(const Mesh *mesh, AxisRef a, AxisRef b, AxisRef *out)
{
    if (a.axis != b.axis || !axis_ref_overlaps(a, b) || !can_coexist(mesh, a, b))
        return false;
    int64_t pre = a.pre_size > b.pre_size ? a.pre_size : b.pre_size;
    int64_t end = axis_ref_end(a) < axis_ref_end(b) ? axis_ref_end(a) : axis_ref_end(b);
    *out = (AxisRef){a.axis, pre, end / pre};
    return true;
}

/* The part of a before b starts, or after b ends (Shardy's
 * getPrefixWithoutOverlap / getSuffixWithoutOverlap); a itself when they
 * do not overlap. */
bool reshard_prefix_without_overlap(const Mesh *mesh, AxisRef a, AxisRef b, AxisRef *out)
{
    if (!can_coexist(mesh, a, b))
        return false;
    if (!axis_ref_overlaps(a, b)) {
        *out = a;
        return true;
    }
    if (a.pre_size >= b.pre_size)
        return false;
    *out = (AxisRef){a.axis, a.pre_size, b.pre_size / a.pre_size};
    return true;
}

static bool suffix_without_overlap(const Mesh *mesh, AxisRef a, AxisRef b, AxisRef *out)
{
    if (!can_coexist(mesh, a, b))
        return false;
    if (!axis_ref_overlaps(a, b)) {
        *out = a;
        return true;
    }
    int64_t a_end = axis_ref_end(a), b_end = axis_ref_end(b);
    if (a_end <= b_end)
        return false;
    *out = (AxisRef){a.axis, b_end, a_end / b_end};
    return true;
}

/* Shardy's AxisRefAttr order within one axis (by pre-size); axes apart
 * by their index, which only needs to group them. */
static int compare_axes(const void *pa, const void *pb)
{
    const AxisRef *a = pa, *b = pb;
    if (a->axis != b->axis)
        return a->axis < b->axis ? -1 : 1;
    if (a->pre_size != b->pre_size)
        return a->pre_size < b->pre_size ? -1 : 1;
    return a->size < b->size ? -1 : a->size > b->size;
}

void reshard_sort_axes(AxisRef *axes, int count)
{
    qsort(axes, (size_t)count, sizeof *axes, compare_axes);
}

static int first_overlapping(const AxisRef *ordered, int count, AxisRef a)
{
    for (int i = 0; i < count; i++)
        if (axis_ref_overlaps(ordered[i], a))
            return i;
    return count;
}

/* Split each axis of l where it overlaps, in part, an axis of `ordered`
 * (disjoint, sorted): into the part before, the overlap and the part
 * after, the last split again by the next ordered axis. */
static bool align_list(const Mesh *mesh, AxisList *l, const AxisRef *ordered, int count)
{
    int i = 0;
    while (i < l->count) {
        AxisRef a = l->axes[i];
        int k = first_overlapping(ordered, count, a);
        bool advanced = false;
        while (k < count && can_coexist(mesh, ordered[k], a) && !axis_ref_contains(ordered[k], a) &&
               axis_ref_overlaps(ordered[k], a)) {
            AxisRef prefix, overlap, suffix;
            reshard_list_erase(l, i);
            if (reshard_prefix_without_overlap(mesh, a, ordered[k], &prefix) && !reshard_list_insert(l, i++, prefix))
                return false;
            if (!overlap_of(mesh, a, ordered[k], &overlap) || !reshard_list_insert(l, i++, overlap))
                return false;
            if (!suffix_without_overlap(mesh, a, ordered[k], &suffix)) {
                advanced = true;
                break;
            }
            if (!reshard_list_insert(l, i, suffix))
                return false;
            a = suffix;
            k++;
        }
        if (!advanced)
            i++;
    }
    return true;
}

/* Every axis of the lists, sorted. */
static int ordered_axes(const AxisList *lists, int n, AxisRef *out, int cap)
{
    int count = 0;
    for (int d = 0; d < n; d++)
        for (int i = 0; i < lists[d].count && count < cap; i++)
            out[count++] = lists[d].axes[i];
    reshard_sort_axes(out, count);
    return count;
}

bool reshard_align_lists(const Mesh *mesh, AxisList *lists, int n, const AxisRef *ordered, int count)
{
    for (int d = 0; d < n; d++)
        if (!align_list(mesh, &lists[d], ordered, count))
            return false;
    return true;
}

bool reshard_align_both(const Mesh *mesh, AxisList *in, AxisList *out, int n)
{
    AxisRef in_axes[RESHARD_MAX_AXES], out_axes[RESHARD_MAX_AXES];
    int in_count = ordered_axes(in, n, in_axes, RESHARD_MAX_AXES);
    int out_count = ordered_axes(out, n, out_axes, RESHARD_MAX_AXES);
    return reshard_align_lists(mesh, in, n, out_axes, out_count) && reshard_align_lists(mesh, out, n, in_axes, in_count);
}
