/* StableHLO gather and scatter (the spec's "Semantics" sections): each
 * batch position of the indices names a start in the operand; gather
 * copies the window there (starts clamped into range), scatter combines
 * the updates' window into a copy of the operand (a window reaching out of
 * range is skipped, as XLA does). */
#include <math.h>
#include <string.h>
#include "shardc/kernels.h"

/* The batch dims of the slices (gather's result, scatter's updates): the
 * dims that are not offset dims, in order; and the operand dims a window
 * spans (neither collapsed nor batching), in order. */
typedef struct GsLayout {
    int num_batch, num_window;
    int batch[SHARDC_MAX_RANK], window[SHARDC_MAX_RANK]; /* slices dims; operand dims */
} GsLayout;

static void gs_layout(const GatherDims *g, int x_rank, int slices_rank, GsLayout *l)
{
    l->num_batch = l->num_window = 0;
    for (int d = 0; d < slices_rank; d++)
        if (!gather_dims_has(g->offset, g->num_offset, d))
            l->batch[l->num_batch++] = d;
    for (int d = 0; d < x_rank; d++)
        if (!gather_dims_has(g->collapsed, g->num_collapsed, d) &&
            !gather_dims_has(g->operand_batching, g->num_operand_batching, d))
            l->window[l->num_window++] = d;
}

/* The operand index a batch position starts at (before clamping or the
 * bounds check): the index vector's entries at their mapped dims, and the
 * position's batching dims at the operand's. `pos` indexes the slices'
 * batch dims, which are the indices' dims but the index vector dim. */
static void start_of(const GatherDims *g, const Tensor *idx, const int64_t *pos, int x_rank, int64_t *start)
{
    int64_t at[SHARDC_MAX_RANK], strides[SHARDC_MAX_RANK];
    tensor_shape_strides(idx->rank, idx->dims, strides);
    for (int d = 0, b = 0; d < idx->rank; d++)
        at[d] = d == g->index_vector_dim ? 0 : pos[b++];
    int64_t base = 0;
    for (int d = 0; d < idx->rank; d++)
        base += at[d] * strides[d];
    int64_t step = g->index_vector_dim < idx->rank ? strides[g->index_vector_dim] : 0;
    memset(start, 0, sizeof(int64_t) * (size_t)x_rank);
    for (int k = 0; k < g->num_map; k++)
        start[g->map[k]] = tensor_get_i64(idx, base + k * step);
    for (int i = 0; i < g->num_operand_batching; i++) {
        int64_t d = g->index_batching[i];
        start[g->operand_batching[i]] = pos[d < g->index_vector_dim ? d : d - 1];
    }
}

/* Advances a multi-index over dims; false after the last. */
static bool next_index(int rank, const int64_t *dims, int64_t *pos)
{
    for (int d = rank - 1; d >= 0; d--) {
        if (++pos[d] < dims[d])
            return true;
        pos[d] = 0;
    }
    return false;
}

static bool any_empty(int rank, const int64_t *dims)
{
    for (int d = 0; d < rank; d++)
        if (dims[d] == 0)
            return true;
    return false;
}

/* The sizes and strides of the slices' batch dims, and of its window
 * dims with the operand's strides along them. */
typedef struct GsWalk {
    int64_t batch_dims[SHARDC_MAX_RANK], batch_strides[SHARDC_MAX_RANK];
    int64_t window_dims[SHARDC_MAX_RANK], slices_window_strides[SHARDC_MAX_RANK], x_window_strides[SHARDC_MAX_RANK];
    int64_t x_strides[SHARDC_MAX_RANK];
} GsWalk;

static void gs_walk(const GatherDims *g, const GsLayout *l, const Tensor *x, int slices_rank,
                    const int64_t *slices_dims, GsWalk *w)
{
    int64_t s_strides[SHARDC_MAX_RANK];
    tensor_shape_strides(slices_rank, slices_dims, s_strides);
    tensor_shape_strides(x->rank, x->dims, w->x_strides);
    for (int i = 0; i < l->num_batch; i++) {
        w->batch_dims[i] = slices_dims[l->batch[i]];
        w->batch_strides[i] = s_strides[l->batch[i]];
    }
    for (int i = 0; i < l->num_window; i++) {
        w->window_dims[i] = slices_dims[g->offset[i]];
        w->slices_window_strides[i] = s_strides[g->offset[i]];
        w->x_window_strides[i] = w->x_strides[l->window[i]];
    }
}

TensorStatus kern_gather(TensorCtx *ctx, const Tensor *x, const Tensor *idx, const GatherDims *g, int rank,
                         const int64_t *dims, Tensor **out)
{
    GsLayout l;
    GsWalk w;
    gs_layout(g, x->rank, rank, &l);
    if (l.num_window != g->num_offset || g->num_slice_sizes != x->rank)
        return *out = NULL, tensor_fail(ctx, TENSOR_ERR_ARG, "gather: dimension numbers do not fit the operand");
    TensorStatus st = tensor_new(ctx, x->dtype, rank, dims, out);
    if (st != TENSOR_OK || (*out)->count == 0 || any_empty(x->rank, x->dims))
        return st;
    gs_walk(g, &l, x, rank, dims, &w);
    size_t size = dtype_size(x->dtype);
    int64_t pos[SHARDC_MAX_RANK] = {0}, start[SHARDC_MAX_RANK];
    do {
        start_of(g, idx, pos, x->rank, start);
        int64_t src = 0, dst = 0;
        for (int d = 0; d < x->rank; d++) {
            int64_t hi = x->dims[d] - g->slice_sizes[d], s = start[d];
            src += (s < 0 ? 0 : s > hi ? hi : s) * w.x_strides[d];
        }
        for (int i = 0; i < l.num_batch; i++)
            dst += pos[i] * w.batch_strides[i];
        tensor_strided_copy(size, l.num_window, w.window_dims, (char *)(*out)->data + dst * (int64_t)size,
                            w.slices_window_strides, (const char *)x->data + src * (int64_t)size,
                            w.x_window_strides);
    } while (next_index(l.num_batch, w.batch_dims, pos));
    return TENSOR_OK;
}

/* ---- scatter ---------------------------------------------------------------- */

static double combine_f64(ScatterCombiner c, double a, double b)
{
    switch (c) {
    case SCATTER_ADD: return a + b;
    case SCATTER_MUL: return a * b;
    case SCATTER_MAX: return isnan(a) || a > b ? a : b;
    case SCATTER_MIN: return isnan(a) || a < b ? a : b;
    default: return b;
    }
}

static int64_t combine_i64(ScatterCombiner c, int64_t a, int64_t b, bool is_bool)
{
    switch (c) {
    case SCATTER_ADD: return is_bool ? (a | b) : (int64_t)((uint64_t)a + (uint64_t)b);
    case SCATTER_MUL: return is_bool ? (a & b) : (int64_t)((uint64_t)a * (uint64_t)b);
    case SCATTER_MAX: return a > b ? a : b;
    case SCATTER_MIN: return a < b ? a : b;
    case SCATTER_AND: return a & b;
    case SCATTER_OR: return a | b;
    default: return b;
    }
}

/* out[o] = c(out[o], upd[u]). Unsigned 64-bit values combine as their
 * two's-complement bits, which add and mul wrap alike. */
static void combine_at(ScatterCombiner c, Tensor *out, int64_t o, const Tensor *upd, int64_t u)
{
    size_t size = dtype_size(out->dtype);
    if (c == SCATTER_REPLACE) {
        memcpy((char *)out->data + o * (int64_t)size, (const char *)upd->data + u * (int64_t)size, size);
    } else if (dtype_is_float(out->dtype)) {
        tensor_set_f64(out, o, combine_f64(c, tensor_get_f64(out, o), tensor_get_f64(upd, u)));
    } else {
        bool is_bool = out->dtype == DT_BOOL;
        tensor_set_i64(out, o, combine_i64(c, tensor_get_i64(out, o), tensor_get_i64(upd, u), is_bool));
    }
}

/* Whether the window at start fits in x (XLA skips one that does not). */
static bool window_fits(const Tensor *x, const GsLayout *l, const GsWalk *w, const int64_t *start)
{
    for (int d = 0; d < x->rank; d++) {
        int i = -1;
        for (int k = 0; k < l->num_window; k++)
            if (l->window[k] == d)
                i = k;
        int64_t size = i < 0 ? 1 : w->window_dims[i];
        if (start[d] < 0 || start[d] > x->dims[d] - size)
            return false;
    }
    return true;
}

/* Visits one window's (operand, update) element pairs; false if visit did. */
static bool scatter_window(const GsLayout *l, const GsWalk *w, int64_t base, int64_t ubase, ScatterVisit visit,
                           void *user)
{
    int64_t at[SHARDC_MAX_RANK] = {0};
    if (any_empty(l->num_window, w->window_dims))
        return true;
    do {
        int64_t o = base, u = ubase;
        for (int i = 0; i < l->num_window; i++) {
            o += at[i] * w->x_window_strides[i];
            u += at[i] * w->slices_window_strides[i];
        }
        if (!visit(user, o, u))
            return false;
    } while (next_index(l->num_window, w->window_dims, at));
    return true;
}

TensorStatus kern_scatter_walk(TensorCtx *ctx, const Tensor *x, const Tensor *idx, const Tensor *upd,
                               const GatherDims *g, ScatterVisit visit, void *user)
{
    GsLayout l;
    GsWalk w;
    gs_layout(g, x->rank, upd->rank, &l);
    if (l.num_window != g->num_offset)
        return tensor_fail(ctx, TENSOR_ERR_ARG, "scatter: dimension numbers or updates do not fit the operand");
    if (upd->count == 0 || x->count == 0)
        return TENSOR_OK;
    gs_walk(g, &l, x, upd->rank, upd->dims, &w);
    int64_t pos[SHARDC_MAX_RANK] = {0}, start[SHARDC_MAX_RANK];
    do {
        start_of(g, idx, pos, x->rank, start);
        if (!window_fits(x, &l, &w, start))
            continue;
        int64_t base = 0, ubase = 0;
        for (int d = 0; d < x->rank; d++)
            base += start[d] * w.x_strides[d];
        for (int i = 0; i < l.num_batch; i++)
            ubase += pos[i] * w.batch_strides[i];
        if (!scatter_window(&l, &w, base, ubase, visit, user))
            return tensor_fail(ctx, TENSOR_ERR_ARG, "scatter: the update computation failed");
    } while (next_index(l.num_batch, w.batch_dims, pos));
    return TENSOR_OK;
}

typedef struct CombineVisit {
    ScatterCombiner c;
    Tensor *out;
    const Tensor *upd;
} CombineVisit;

static bool combine_visit(void *user, int64_t o, int64_t u)
{
    CombineVisit *v = user;
    combine_at(v->c, v->out, o, v->upd, u);
    return true;
}

TensorStatus kern_scatter(TensorCtx *ctx, const Tensor *x, const Tensor *idx, const Tensor *upd,
                          const GatherDims *g, ScatterCombiner c, Tensor **out)
{
    *out = NULL;
    if (upd->dtype != x->dtype)
        return tensor_fail(ctx, TENSOR_ERR_ARG, "scatter: dimension numbers or updates do not fit the operand");
    TensorStatus st = tensor_clone(ctx, x, out);
    if (st != TENSOR_OK)
        return st;
    CombineVisit v = {c, *out, upd};
    st = kern_scatter_walk(ctx, x, idx, upd, g, combine_visit, &v);
    if (st != TENSOR_OK) {
        tensor_release(*out);
        *out = NULL;
    }
    return st;
}

bool kern_scatter_combiner_lookup(const char *name, ScatterCombiner *out)
{
    static const char *const names[] = {"add", "mul", "max", "min", "and", "or", "replace"};
    for (int i = 0; i < (int)(sizeof names / sizeof names[0]); i++)
        if (strcmp(names[i], name) == 0) {
            *out = (ScatterCombiner)i;
            return true;
        }
    return false;
}
