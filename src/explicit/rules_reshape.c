/* reshape: JAX's _reshape_sharding_rule (jax/_src/lax/lax.py).
 *   - a replicated operand gives a replicated result;
 *   - if only size-1 dims come or go, the other dims keep their sharding;
 *   - if one operand dim is split into several result dims, its axes go to
 *     the new dims major first, each new dim taking axes while its size
 *     divides by them (4@dp -> 2x2 takes dp only if dp divides 2);
 *   - if several operand dims merge into one result dim, the sharded ones
 *     must come first (4@dp,2@mp,3 -> 4@dp,6@mp works; 2,3@mp -> 6 does
 *     not) and their axes must divide the merged size;
 *   - anything else (two dims split, a split and a merge, ...) is
 *     ambiguous: an error asking for out_sharding. */
#include "shardc/explicit.h"

/* How the dims of the shorter shape map onto the longer one: dim i is
 * either the same size (a plain dim) or the product of a group of dims. */
typedef struct DimGroups {
    int count;
    bool is_group[SHARDC_MAX_RANK];
    int first[SHARDC_MAX_RANK], len[SHARDC_MAX_RANK];
} DimGroups;

typedef enum { GROUPS_NONE, GROUPS_FOUND, GROUPS_AMBIGUOUS } GroupsResult;

typedef struct Shapes {
    const int64_t *shorter, *longer;
    int short_rank, long_rank;
} Shapes;

static void push_group(DimGroups *g, bool is_group, int first, int len)
{
    g->is_group[g->count] = is_group;
    g->first[g->count] = first;
    g->len[g->count++] = len;
}

/* Grow the group of longer dims starting at *j until their product is
 * shorter[i] (absorbing trailing size-1 dims unless the next dim already
 * matches); JAX's inner loop of _split_on_one_axis. */
static bool grow_group(const Shapes *s, int i, int *j)
{
    int64_t prod = s->longer[*j];
    int next_j = *j + 1, next_i = i + 1;
    while (prod != s->shorter[i] || (next_j < s->long_rank && s->longer[next_j] == 1)) {
        if (prod > s->shorter[i])
            return false;
        if (prod == s->shorter[i] && next_i < s->short_rank && s->longer[next_j] == s->shorter[next_i])
            break;
        if (++*j >= s->long_rank)
            return false;
        prod *= s->longer[*j];
        next_j++;
    }
    return true;
}

/* JAX's _split_on_one_axis: does exactly one shorter dim turn into a group
 * of longer dims, the others staying as they are? Trailing size-1 dims
 * common to both are set aside first. */
static GroupsResult find_groups(Shapes s, DimGroups *g)
{
    int full_short = s.short_rank, num_1s = 0, i = 0, groups = 0;
    if (s.long_rank <= s.short_rank)
        return GROUPS_NONE;
    for (; s.short_rank > 0 && s.shorter[s.short_rank - 1] == 1 && s.longer[s.long_rank - 1] == 1; num_1s++)
        s.short_rank--, s.long_rank--;
    g->count = 0;
    for (int j = 0; j < s.long_rank; i++, j++) {
        if (i >= s.short_rank)
            return GROUPS_NONE;
        int first = j;
        if (s.shorter[i] != s.longer[j] && ++groups > 1)
            return GROUPS_AMBIGUOUS;
        if (s.shorter[i] != s.longer[j] && !grow_group(&s, i, &j))
            return GROUPS_NONE;
        push_group(g, s.shorter[i] != s.longer[first], first, j - first + 1);
    }
    for (int k = 0; k < num_1s; k++)
        push_group(g, false, s.long_rank + k, 1);
    return g->count == full_short ? GROUPS_FOUND : GROUPS_NONE;
}

/* JAX's split_partitions: each size takes axes, major first, while it is
 * more than 1; an axis taken must divide what is left of the size, and
 * every axis must be taken. */
static bool split_axes(const AxisRef *axes, int count, const int64_t *sizes, int num_sizes, XDim *out)
{
    int next = 0;
    for (int i = 0; i < num_sizes; i++) {
        int64_t left = sizes[i];
        int start = next;
        for (; left > 1 && next < count; next++) {
            if (left % axes[next].size != 0)
                return false;
            left /= axes[next].size;
        }
        out[i] = (XDim){next - start, axes + start};
    }
    return next == count;
}

static bool split_rule(const Op *op, const XSpec *in, const DimGroups *g, XSpec *out)
{
    const int64_t *sizes = op->results[0]->type.dims;
    for (int i = 0; i < g->count; i++) {
        XDim *dst = &out->dims[g->first[i]];
        if (!g->is_group[i])
            *dst = in->dims[i];
        else if (in->dims[i].count && !split_axes(in->dims[i].axes, in->dims[i].count, sizes + g->first[i],
                                                  g->len[i], dst))
            return false;
    }
    return true;
}

/* The axes of a merged group of operand dims into *out; false if an
 * unsharded dim comes before a sharded one (the merged dim would not be
 * a tiling). */
static bool merged_axes(ExplicitCtx *cx, const XDim *dims, int count, XDim *out)
{
    int total = 0;
    for (int k = 0; k < count; k++)
        total += dims[k].count;
    AxisRef *axes = ARENA_ARRAY(cx->arena, AxisRef, total + 1);
    bool gap = false;
    *out = (XDim){0, axes};
    for (int k = 0; k < count; k++) {
        if (dims[k].count && gap)
            return false;
        gap |= dims[k].count == 0;
        for (int a = 0; a < dims[k].count; a++)
            axes[out->count++] = dims[k].axes[a];
    }
    return true;
}

static bool merge_rule(ExplicitCtx *cx, const Op *op, const XSpec *in, const DimGroups *g, XSpec *out)
{
    const int64_t *sizes = op->results[0]->type.dims;
    for (int i = 0; i < g->count; i++) {
        const XDim *src = &in->dims[g->first[i]];
        XDim merged;
        if (!g->is_group[i])
            out->dims[i] = *src;
        else if (!merged_axes(cx, src, g->len[i], &merged) ||
                 (merged.count && !split_axes(merged.axes, merged.count, &sizes[i], 1, &out->dims[i])))
            return false;
    }
    return true;
}

/* Only size-1 dims come or go: the other dims keep their shardings. */
static bool same_non_unit_dims(const TensorType *a, const TensorType *b)
{
    int i = 0, j = 0;
    for (;; i++, j++) {
        while (i < a->rank && a->dims[i] == 1)
            i++;
        while (j < b->rank && b->dims[j] == 1)
            j++;
        if (i == a->rank || j == b->rank)
            return i == a->rank && j == b->rank;
        if (a->dims[i] != b->dims[j])
            return false;
    }
}

static void singleton_rule(const Op *op, const XSpec *in, XSpec *out)
{
    const TensorType *a = &op->operands[0]->type, *r = &op->results[0]->type;
    int next = 0;
    for (int d = 0; d < r->rank; d++) {
        if (r->dims[d] == 1)
            continue;
        while (next < a->rank && a->dims[next] == 1)
            next++;
        out->dims[d] = in->dims[next++];
    }
}

static bool is_replicated(const XSpec *s)
{
    for (int d = 0; d < s->rank; d++)
        if (s->dims[d].count)
            return false;
    return true;
}

static bool report_reshape(ExplicitCtx *cx, const Op *op, const XSpec *in)
{
    TextBuf t;
    textbuf_init(&t);
    xspec_format_type(&t, cx->mesh, in, &op->operands[0]->type);
    textbuf_add(&t, ", new sizes: ");
    explicit_format_shape_tuple(&t, &op->results[0]->type);
    diag_error(cx->diag, op->loc, "This reshape is not supported. Please specify the sharding of the output via the "
               "`out_sharding` argument of jax.lax.reshape. Got operand type: %s", t.text);
    return false;
}

bool explicit_rule_reshape(ExplicitCtx *cx, const Op *op, XSpec *const *in, XSpec **out)
{
    const TensorType *a = &op->operands[0]->type, *r = &op->results[0]->type;
    out[0] = xspec_replicated(cx->arena, r->rank);
    if (is_replicated(in[0]))
        return true;
    if (same_non_unit_dims(a, r)) {
        singleton_rule(op, in[0], out[0]);
        return true;
    }
    DimGroups g;
    GroupsResult split = find_groups((Shapes){a->dims, r->dims, a->rank, r->rank}, &g);
    if (split == GROUPS_FOUND && split_rule(op, in[0], &g, out[0]))
        return true;
    if (split == GROUPS_NONE && find_groups((Shapes){r->dims, a->dims, r->rank, a->rank}, &g) == GROUPS_FOUND &&
        merge_rule(cx, op, in[0], &g, out[0]))
        return true;
    return report_reshape(cx, op, in[0]);
}
