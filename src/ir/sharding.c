/* Sharding queries shared by the verifier, propagation and partitioning,
 * sets of mesh axes (axis_set_*), and the sub-axis algebra of axis refs and
 * axis lists. */

/* Sharding queries shared by the verifier, propagation and partitioning. */
#include <string.h>
#include "shardc/ir.h"
#include "shardc/axis_set.h"

Sharding *sharding_new_open(Arena *a, const Mesh *mesh, int rank)
{
    Sharding *s = ARENA_NEW(a, Sharding);
    s->mesh = mesh;
    s->rank = rank;
    s->dims = ARENA_ARRAY(a, DimSharding, rank);
    for (int d = 0; d < rank; d++)
        s->dims[d].priority = PRIORITY_NONE;
    return s;
}

Sharding *sharding_clone(Arena *a, const Sharding *s)
{
    Sharding *c = ARENA_NEW(a, Sharding);
    *c = *s;
    c->dims = ARENA_ARRAY(a, DimSharding, s->rank);
    for (int d = 0; d < s->rank; d++) {
        c->dims[d] = s->dims[d];
        c->dims[d].axes = arena_memdup(a, s->dims[d].axes, (size_t)s->dims[d].num_axes, sizeof(AxisRef));
    }
    c->replicated = arena_memdup(a, s->replicated, (size_t)s->num_replicated, sizeof(AxisRef));
    return c;
}

bool axis_ref_equal(AxisRef a, AxisRef b)
{
    return a.axis == b.axis && a.pre_size == b.pre_size && a.size == b.size;
}

bool axis_ref_is_full(const Mesh *mesh, AxisRef r)
{
    return r.pre_size == 1 && r.size == mesh->axes[r.axis].size;
}

/* Sub-axes of one axis are intervals [pre, pre*size) in the axis's
 * multiplicative "coordinate" space; they overlap iff the intervals do. */
bool axis_ref_overlaps(AxisRef a, AxisRef b)
{
    if (a.axis != b.axis)
        return false;
    int64_t a_end = a.pre_size * a.size, b_end = b.pre_size * b.size;
    return a.pre_size < b_end && b.pre_size < a_end;
}

static bool dim_equal(const DimSharding *a, const DimSharding *b)
{
    if (a->num_axes != b->num_axes || a->is_closed != b->is_closed || a->priority != b->priority)
        return false;
    for (int k = 0; k < a->num_axes; k++)
        if (!axis_ref_equal(a->axes[k], b->axes[k]))
            return false;
    return true;
}

bool sharding_equal(const Sharding *a, const Sharding *b)
{
    if (a == b)
        return true;
    if (!a || !b || a->mesh != b->mesh || a->rank != b->rank || a->num_replicated != b->num_replicated)
        return false;
    for (int d = 0; d < a->rank; d++)
        if (!dim_equal(&a->dims[d], &b->dims[d]))
            return false;
    for (int k = 0; k < a->num_replicated; k++)
        if (!axis_ref_equal(a->replicated[k], b->replicated[k]))
            return false;
    return true;
}

int64_t sharding_dim_shards(const Sharding *s, int d)
{
    int64_t n = 1;
    for (int k = 0; k < s->dims[d].num_axes; k++)
        n *= s->dims[d].axes[k].size;
    return n;
}

/* Bitsets of mesh axes. */

int axis_set_words(int num_axes)
{
    return num_axes > 0 ? (num_axes + 63) / 64 : 1;
}

AxisSet axis_set_new(Arena *arena, int words)
{
    return (AxisSet){words, ARENA_ARRAY(arena, uint64_t, words)};
}

void axis_set_clear(AxisSet s)
{
    for (int w = 0; w < s.words; w++)
        s.bits[w] = 0;
}

void axis_set_add(AxisSet s, int axis)
{
    if (axis >= 0 && axis / 64 < s.words)
        s.bits[axis / 64] |= (uint64_t)1 << (axis % 64);
}

void axis_set_del(AxisSet s, int axis)
{
    if (axis >= 0 && axis / 64 < s.words)
        s.bits[axis / 64] &= ~((uint64_t)1 << (axis % 64));
}

bool axis_set_has(AxisSet s, int axis)
{
    return axis >= 0 && axis / 64 < s.words && (s.bits[axis / 64] >> (axis % 64) & 1);
}

bool axis_set_is_empty(AxisSet s)
{
    return axis_set_count(s) == 0;
}

int axis_set_count(AxisSet s)
{
    int n = 0;
    for (int w = 0; w < s.words; w++)
        n += __builtin_popcountll(s.bits[w]);
    return n;
}

void axis_set_copy(AxisSet dst, AxisSet src)
{
    for (int w = 0; w < dst.words; w++)
        dst.bits[w] = w < src.words ? src.bits[w] : 0;
}

void axis_set_union(AxisSet dst, AxisSet src)
{
    for (int w = 0; w < dst.words && w < src.words; w++)
        dst.bits[w] |= src.bits[w];
}

void axis_set_remove(AxisSet dst, AxisSet src)
{
    for (int w = 0; w < dst.words && w < src.words; w++)
        dst.bits[w] &= ~src.bits[w];
}

void axis_set_intersect(AxisSet dst, AxisSet src)
{
    for (int w = 0; w < dst.words; w++)
        dst.bits[w] &= w < src.words ? src.bits[w] : 0;
}

/* Sub-axis algebra. A sub-axis "x":(pre)size covers the interval
 * [pre, pre*size) of axis x's multiplicative coordinates; a whole axis is
 * (1)size. Shardy's AxisRefAttr operations, on that representation. */

int64_t axis_ref_end(AxisRef r) { return r.pre_size * r.size; }

bool axis_ref_prefix_of(AxisRef a, AxisRef b)
{
    return a.axis == b.axis && a.pre_size == b.pre_size && a.size <= b.size && b.size % a.size == 0;
}

bool axis_ref_contains(AxisRef a, AxisRef b)
{
    return a.axis == b.axis && a.pre_size <= b.pre_size && axis_ref_end(b) <= axis_ref_end(a);
}

bool axis_ref_prefix_without_overlap(AxisRef a, AxisRef other, AxisRef *out)
{
    if (!axis_ref_overlaps(a, other)) {
        *out = a;
        return true;
    }
    if (other.pre_size <= a.pre_size || other.pre_size % a.pre_size != 0)
        return false;
    int64_t size = other.pre_size / a.pre_size;
    if (size <= 1)
        return false;
    *out = (AxisRef){a.axis, a.pre_size, size};
    return true;
}

void axis_list_add_or_merge(AxisList *list, AxisRef r, const Mesh *mesh)
{
    if (list->count > 0) {
        AxisRef *last = &list->axes[list->count - 1];
        if (last->axis == r.axis && axis_ref_end(*last) == r.pre_size) {
            last->size *= r.size;
            return;
        }
    }
    if (list->count < AXIS_LIST_MAX)
        list->axes[list->count++] = r;
    (void)mesh;
}

int64_t axis_list_size(const AxisList *list)
{
    int64_t n = 1;
    for (int i = 0; i < list->count; i++)
        n *= list->axes[i].size;
    return n;
}

bool axis_list_equal(const AxisList *a, const AxisList *b)
{
    if (a->count != b->count)
        return false;
    for (int i = 0; i < a->count; i++)
        if (!axis_ref_equal(a->axes[i], b->axes[i]))
            return false;
    return true;
}

bool axis_list_strict_prefix(const AxisList *a, const AxisList *b)
{
    if (a->count == 0)
        return b->count > 0;
    if (a->count > b->count)
        return false;
    for (int i = 0; i < a->count - 1; i++)
        if (!axis_ref_equal(a->axes[i], b->axes[i]))
            return false;
    AxisRef la = a->axes[a->count - 1], lb = b->axes[a->count - 1];
    if (a->count == b->count && axis_ref_equal(la, lb))
        return false;
    return axis_ref_prefix_of(la, lb);
}

/* Sub-axes split sizes by their common divisors (projections, reshape
 * rules). */
int64_t ir_gcd64(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}
