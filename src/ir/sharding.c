/* Sharding queries shared by the verifier, propagation and partitioning,
 * sets of mesh axes (axis_set_*), and the sub-axis algebra of axis refs and
 * axis lists. */

/* Sharding queries shared by the verifier, propagation and partitioning. */
#include <stdint.h>
#include <stdlib.h>
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
    c->unreduced = arena_memdup(a, s->unreduced, (size_t)s->num_unreduced, sizeof(AxisRef));
    return c;
}

bool axis_ref_is_full(const Mesh *mesh, AxisRef r)
{
    return r.pre_size == 1 && r.size == mesh->axes[r.axis].size;
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
    if (!a || !b || a->mesh != b->mesh || a->rank != b->rank || a->num_replicated != b->num_replicated ||
        a->num_unreduced != b->num_unreduced || a->unreduced_op != b->unreduced_op)
        return false;
    for (int d = 0; d < a->rank; d++)
        if (!dim_equal(&a->dims[d], &b->dims[d]))
            return false;
    for (int k = 0; k < a->num_replicated; k++)
        if (!axis_ref_equal(a->replicated[k], b->replicated[k]))
            return false;
    for (int k = 0; k < a->num_unreduced; k++)
        if (!axis_ref_equal(a->unreduced[k], b->unreduced[k]))
            return false;
    return true;
}

/* ---- shardings, one copy each (module_intern_sharding) ---- */

struct ShardingIndex {
    Sharding **slots;   /* open addressing; NULL is empty */
    size_t cap, count;  /* cap a power of two */
};

static uint64_t hash_mix(uint64_t h, uint64_t x) { return (h ^ x) * 1099511628211ull; }

static uint64_t hash_axes(uint64_t h, const AxisRef *axes, int count)
{
    for (int k = 0; k < count; k++)
        h = hash_mix(hash_mix(hash_mix(h, (uint64_t)axes[k].axis), (uint64_t)axes[k].pre_size),
                     (uint64_t)axes[k].size);
    return hash_mix(h, (uint64_t)count);
}

uint64_t sharding_hash(const Sharding *s)
{
    uint64_t h = hash_mix(1469598103934665603ull, (uint64_t)(uintptr_t)s->mesh);
    h = hash_mix(hash_mix(h, (uint64_t)s->rank), (uint64_t)s->unreduced_op);
    for (int d = 0; d < s->rank; d++)
        h = hash_mix(hash_mix(hash_axes(h, s->dims[d].axes, s->dims[d].num_axes), s->dims[d].is_closed),
                     (uint64_t)(int64_t)s->dims[d].priority);
    return hash_axes(hash_axes(h, s->replicated, s->num_replicated), s->unreduced, s->num_unreduced);
}

/* The interned copies differ by loc too. */
static uint64_t interned_hash(const Sharding *s)
{
    return hash_mix(hash_mix(hash_mix(sharding_hash(s), (uint64_t)(uintptr_t)s->loc.file), (uint64_t)s->loc.line),
                    (uint64_t)s->loc.col);
}

static bool same_loc(Loc a, Loc b) { return a.file == b.file && a.line == b.line && a.col == b.col; }

static Sharding **index_slot(const struct ShardingIndex *ix, const Sharding *s, uint64_t hash)
{
    for (size_t i = hash & (ix->cap - 1);; i = (i + 1) & (ix->cap - 1))
        if (!ix->slots[i] || (sharding_equal(ix->slots[i], s) && same_loc(ix->slots[i]->loc, s->loc)))
            return &ix->slots[i];
}

/* Doubles the table (or makes it); false when out of memory. */
static bool index_grow(struct ShardingIndex *ix)
{
    size_t cap = ix->cap ? 2 * ix->cap : 64;
    Sharding **old = ix->slots;
    size_t old_cap = ix->cap;
    ix->slots = calloc(cap, sizeof *ix->slots);
    if (!ix->slots) {
        ix->slots = old;
        return false;
    }
    ix->cap = cap;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i])
            *index_slot(ix, old[i], interned_hash(old[i])) = old[i];
    free(old);
    return true;
}

void sharding_index_free(struct ShardingIndex *ix)
{
    if (ix)
        free(ix->slots);
    free(ix);
}

Sharding *module_intern_sharding(Module *m, const Sharding *s)
{
    if (s->rank > SHARDC_MAX_RANK) /* not from a verified module; left unshared */
        return sharding_clone(&m->arena, s);
    struct ShardingIndex *ix = m->shardings;
    if (!ix && !(ix = m->shardings = calloc(1, sizeof *ix)))
        arena_out_of_memory();
    if ((ix->count + 1) * 2 > ix->cap && !index_grow(ix))
        arena_out_of_memory();
    Sharding **slot = index_slot(ix, s, interned_hash(s));
    if (!*slot) {
        *slot = sharding_clone(&m->arena, s);
        ix->count++;
    }
    return *slot;
}

Sharding *module_close_sharding(Module *m, const Sharding *s, const Mesh *mesh, int rank)
{
    Sharding closed = s ? *s : (Sharding){.mesh = mesh, .rank = rank};
    if (closed.rank > SHARDC_MAX_RANK) { /* not from a verified module; left unshared */
        Sharding *c = s ? sharding_clone(&m->arena, s) : sharding_new_open(&m->arena, mesh, rank);
        for (int d = 0; d < c->rank; d++)
            c->dims[d] = (DimSharding){c->dims[d].num_axes, c->dims[d].axes, true, PRIORITY_NONE};
        return c;
    }
    DimSharding dims[SHARDC_MAX_RANK];
    for (int d = 0; d < closed.rank; d++)
        dims[d] = s ? (DimSharding){s->dims[d].num_axes, s->dims[d].axes, true, PRIORITY_NONE}
                    : (DimSharding){0, NULL, true, PRIORITY_NONE};
    closed.dims = dims;
    return module_intern_sharding(m, &closed);
}

const char *sharding_unreduced_op_name(UnreducedOp op)
{
    return op == UNREDUCED_MAX ? "max" : op == UNREDUCED_MIN ? "min" : "sum";
}

/* Whether some unreduced axis of s is (part of) mesh axis `axis`. */
bool sharding_has_unreduced_axis(const Sharding *s, int axis)
{
    for (int k = 0; s && k < s->num_unreduced; k++)
        if (s->unreduced[k].axis == axis)
            return true;
    return false;
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

/* Sets of axes with sub-axes as intervals [pre_size, end) of their axis's
 * multiplicative coordinates (Shardy's getAxisSetDiff): "x" less
 * "x":(1)2 is "x":(2)2 on an axis of 4. */
static void add_piece(AxisList *out, int axis, int64_t lo, int64_t hi)
{
    if (lo > 0 && hi > lo && hi % lo == 0 && out->count < AXIS_LIST_MAX)
        out->axes[out->count++] = (AxisRef){axis, lo, hi / lo};
}

void axis_list_minus(AxisList *out, const AxisList *a, const AxisList *b)
{
    AxisList cur;
    axis_list_copy(&cur, a);
    for (int j = 0; j < b->count; j++) {
        AxisList next;
        next.count = 0;
        AxisRef y = b->axes[j];
        for (int i = 0; i < cur.count; i++) {
            AxisRef x = cur.axes[i];
            if (!axis_ref_overlaps(x, y)) {
                next.axes[next.count++] = x;
                continue;
            }
            int64_t x_end = axis_ref_end(x), y_end = axis_ref_end(y);
            add_piece(&next, x.axis, x.pre_size, y.pre_size < x_end ? y.pre_size : x_end);
            add_piece(&next, x.axis, y_end > x.pre_size ? y_end : x.pre_size, x_end);
        }
        axis_list_copy(&cur, &next);
    }
    axis_list_copy(out, &cur);
}

void axis_list_intersect(AxisList *out, const AxisList *a, const AxisList *b)
{
    AxisList r;
    r.count = 0;
    for (int i = 0; i < a->count; i++) {
        for (int j = 0; j < b->count; j++) {
            AxisRef x = a->axes[i], y = b->axes[j];
            if (!axis_ref_overlaps(x, y))
                continue;
            int64_t x_end = axis_ref_end(x), y_end = axis_ref_end(y);
            add_piece(&r, x.axis, x.pre_size > y.pre_size ? x.pre_size : y.pre_size, x_end < y_end ? x_end : y_end);
        }
    }
    axis_list_copy(out, &r);
}

void axis_list_union(AxisList *acc, const AxisList *b)
{
    AxisList extra;
    axis_list_minus(&extra, b, acc);
    for (int i = 0; i < extra.count && acc->count < AXIS_LIST_MAX; i++)
        acc->axes[acc->count++] = extra.axes[i];
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

bool axis_list_truncate_without_overlap(AxisList *a, const AxisList *other)
{
    for (int i = 0; i < a->count; i++) {
        AxisRef r = a->axes[i];
        bool kept = true;
        for (int k = 0; kept && k < other->count; k++)
            kept = axis_ref_prefix_without_overlap(r, other->axes[k], &r);
        if (!kept) {
            a->count = i;
            return true;
        }
        if (!axis_ref_equal(r, a->axes[i])) {
            a->axes[i] = r;
            a->count = i + 1;
            return true;
        }
    }
    return false;
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

/* ---- partial-manual shard_maps: the manual part and the free part ---- */

/* The manual axes of a shard_map as a mask over its mesh's axes, and that
 * mesh (from its specs: the attribute names only a symbol); 0 and NULL
 * when it has no specs. No manual_axes attribute: every axis. */
uint64_t op_manual_axes_mask(const Op *op, const Mesh **mesh_out)
{
    const Sharding *s = op_attr_sharding_at(op, ATTR_KEY_IN_SPECS, 0);
    if (!s)
        s = op_attr_sharding_at(op, ATTR_KEY_OUT_SPECS, 0);
    const Mesh *mesh = s ? s->mesh : NULL;
    if (mesh_out)
        *mesh_out = mesh;
    if (!mesh)
        return 0;
    const AttrValue *v = op_attr_get(op, ATTR_KEY_MANUAL_AXES);
    uint64_t mask = 0;
    for (int k = 0; k < mesh->num_axes && k < 64; k++) {
        bool manual = !v || v->kind != ATTR_ARRAY;
        for (int i = 0; !manual && i < v->u.array.count; i++)
            manual = v->u.array.items[i]->kind == ATTR_STRING && strcmp(v->u.array.items[i]->u.s, mesh->axes[k].name) == 0;
        mask |= manual ? (uint64_t)1 << k : 0;
    }
    return mask;
}

/* A shard_map whose body has free axes: shardings along them propagate
 * through it (Shardy's partial-manual sdy.manual_computation). */
bool op_is_partial_manual(const Op *op)
{
    const Mesh *mesh;
    if (op->kind != OP_SHARD_MAP)
        return false;
    uint64_t mask = op_manual_axes_mask(op, &mesh);
    if (!mesh || mesh->num_axes == 0 || mesh->num_axes > 64)
        return false;
    return mask != (uint64_t)-1 >> (64 - mesh->num_axes);
}

static bool axis_in(uint64_t mask, AxisRef r)
{
    return r.axis < 64 && (mask >> r.axis & 1);
}

/* The manual axes of `axes` into m, the others into f. */
static void split_axes(const AxisRef *axes, int n, uint64_t manual, AxisRef *m, int *nm, AxisRef *f, int *nf)
{
    *nm = *nf = 0;
    for (int i = 0; i < n; i++) {
        if (axis_in(manual, axes[i]))
            m[(*nm)++] = axes[i];
        else
            f[(*nf)++] = axes[i];
    }
}

/* s split in two: the leading manual axes of each dim and the manual
 * replicated and unreduced axes (closed: a shard_map spec), and the rest
 * (the free part, as the body sees it, keeping each dim's closedness and
 * priority: Shardy's getInShardingWithoutManualAxes). */
void sharding_split_manual(Arena *a, const Sharding *s, uint64_t manual, Sharding **manual_part,
                           Sharding **free_part)
{
    Sharding *m = sharding_clone(a, s), *f = sharding_clone(a, s);
    for (int d = 0; d < s->rank; d++) {
        int k = 0;
        while (k < s->dims[d].num_axes && axis_in(manual, s->dims[d].axes[k]))
            k++;
        m->dims[d] = (DimSharding){k, m->dims[d].axes, true, PRIORITY_NONE};
        f->dims[d].num_axes -= k;
        if (k) /* an empty dim's axes may be NULL, and NULL + 0 is undefined */
            f->dims[d].axes += k;
    }
    split_axes(s->replicated, s->num_replicated, manual, m->replicated, &m->num_replicated, f->replicated,
               &f->num_replicated);
    /* a body sees its values' partial sums over free axes only */
    split_axes(s->unreduced, s->num_unreduced, manual, m->unreduced, &m->num_unreduced, f->unreduced,
               &f->num_unreduced);
    *manual_part = m;
    *free_part = f;
}

/* Both parts' unreduced axes, in mesh order. */
static void join_unreduced(Arena *a, Sharding *s, const Sharding *manual_part, const Sharding *free_part)
{
    int nm = manual_part->num_unreduced, nf = free_part->num_unreduced, i = 0, j = 0;
    const AxisRef *mu = manual_part->unreduced, *fu = free_part->unreduced;
    AxisRef *u = ARENA_ARRAY(a, AxisRef, nm + nf + 1);
    while (i < nm || j < nf) {
        bool take_manual = j == nf || (i < nm && (mu[i].axis < fu[j].axis ||
                                                  (mu[i].axis == fu[j].axis && mu[i].pre_size < fu[j].pre_size)));
        if (take_manual)
            u[i + j] = mu[i], i++;
        else
            u[i + j] = fu[j], j++;
    }
    s->unreduced = u;
    s->num_unreduced = nm + nf;
    s->unreduced_op = nf ? free_part->unreduced_op : manual_part->unreduced_op;
}

/* The inverse: each dim the manual part's axes then the free part's, with
 * the free part's closedness and priority. */
Sharding *sharding_join_manual(Arena *a, const Sharding *manual_part, const Sharding *free_part)
{
    Sharding *s = sharding_clone(a, manual_part);
    for (int d = 0; d < s->rank && d < free_part->rank; d++) {
        const DimSharding *m = &manual_part->dims[d], *f = &free_part->dims[d];
        AxisRef *axes = ARENA_ARRAY(a, AxisRef, m->num_axes + f->num_axes + 1);
        if (m->num_axes)
            memcpy(axes, m->axes, sizeof(AxisRef) * (size_t)m->num_axes);
        if (f->num_axes)
            memcpy(axes + m->num_axes, f->axes, sizeof(AxisRef) * (size_t)f->num_axes);
        s->dims[d] = (DimSharding){m->num_axes + f->num_axes, axes, f->is_closed, f->priority};
    }
    AxisRef *rep = ARENA_ARRAY(a, AxisRef, manual_part->num_replicated + free_part->num_replicated + 1);
    if (manual_part->num_replicated)
        memcpy(rep, manual_part->replicated, sizeof(AxisRef) * (size_t)manual_part->num_replicated);
    if (free_part->num_replicated)
        memcpy(rep + manual_part->num_replicated, free_part->replicated,
               sizeof(AxisRef) * (size_t)free_part->num_replicated);
    s->replicated = rep;
    s->num_replicated = manual_part->num_replicated + free_part->num_replicated;
    join_unreduced(a, s, manual_part, free_part);
    return s;
}

/* No axis on any dim, every dim closed, no priority, none replicated. */
bool sharding_is_closed_empty(const Sharding *s)
{
    for (int d = 0; d < s->rank; d++)
        if (s->dims[d].num_axes || !s->dims[d].is_closed || s->dims[d].priority != PRIORITY_NONE)
            return false;
    return s->num_replicated == 0 && s->num_unreduced == 0;
}

bool sharding_same_dim_axes(const Sharding *a, const Sharding *b)
{
    if (a->mesh != b->mesh || a->rank != b->rank)
        return false;
    for (int d = 0; d < a->rank; d++) {
        if (a->dims[d].num_axes != b->dims[d].num_axes)
            return false;
        for (int k = 0; k < a->dims[d].num_axes; k++)
            if (!axis_ref_equal(a->dims[d].axes[k], b->dims[d].axes[k]))
                return false;
    }
    return true;
}
