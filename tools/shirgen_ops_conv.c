/* Generators for convolution, reduce_window and select_and_scatter.
 * Windows are drawn so the partitioner's cases come up: "same" windows at
 * stride 1 and JAX's "SAME" at stride 2 (halo exchanges), tiling windows
 * (local pools) and anything else (dilations, other padding: mostly
 * gathered). Convolutions take random layouts and feature or batch
 * groups. */
#include <string.h>
#include "shirgen.h"
#include "shardc/window.h"

/* One window dim over an input of `size`: its size, stride, padding and
 * dilations; false if no window fits. */
static bool draw_window(Gen *g, WindowDims *w, int i, int64_t size, bool dilate)
{
    int kind = rng_below(&g->rng, 10);
    w->base_dil[i] = w->win_dil[i] = 1;
    w->size[i] = rng_range(&g->rng, 1, 3);
    w->lo[i] = w->hi[i] = 0;
    if (kind < 3) { /* "same" */
        w->stride[i] = 1;
        w->lo[i] = rng_range(&g->rng, 0, (int)w->size[i] - 1);
        w->hi[i] = w->size[i] - 1 - w->lo[i];
    } else if (kind < 5) { /* JAX's "SAME" at stride 2 (a max-pool's): halos with strides */
        w->stride[i] = 2;
        int64_t total = ((size + 1) / 2 - 1) * 2 + w->size[i] - size;
        w->lo[i] = total > 0 ? total / 2 : 0;
        w->hi[i] = total > 0 ? total - w->lo[i] : 0;
    } else if (kind < 7) { /* tiling */
        w->stride[i] = w->size[i];
    } else {
        w->stride[i] = rng_range(&g->rng, 1, 2);
        w->lo[i] = rng_range(&g->rng, 0, 1);
        w->hi[i] = rng_range(&g->rng, 0, 2);
        if (dilate && rng_pct(&g->rng, 25))
            w->base_dil[i] = 2;
        if (dilate && rng_pct(&g->rng, 25))
            w->win_dil[i] = 2;
    }
    return op_window_count(w, i, size) > 0;
}

/* `padding = [[lo, hi], ...]` of the first n windows (always written for
 * a convolution, left out when 0 elsewhere now and then). */
static void set_window(Gen *g, Op *op, const WindowDims *w, bool conv)
{
    AttrValue *pairs[SHARDC_MAX_RANK];
    bool any = false, dil = false;
    for (int i = 0; i < w->n; i++) {
        pairs[i] = attr_ints(g, (int64_t[]){w->lo[i], w->hi[i]}, 2);
        any |= w->lo[i] || w->hi[i];
        dil |= w->base_dil[i] != 1 || w->win_dil[i] != 1;
    }
    if (any || rng_pct(&g->rng, 30))
        gen_set_attr(g, op, ATTR_KEY_PADDING, attr_list(g, pairs, w->n));
    gen_set_attr(g, op, ATTR_KEY_WINDOW_STRIDES, attr_ints(g, w->stride, w->n));
    if (!conv)
        gen_set_attr(g, op, ATTR_KEY_WINDOW_DIMENSIONS, attr_ints(g, w->size, w->n));
    if (op->kind != OP_SELECT_AND_SCATTER && (dil || rng_pct(&g->rng, 10))) {
        gen_set_attr(g, op, conv ? ATTR_KEY_LHS_DILATION : ATTR_KEY_BASE_DILATIONS, attr_ints(g, w->base_dil, w->n));
        gen_set_attr(g, op, conv ? ATTR_KEY_RHS_DILATION : ATTR_KEY_WINDOW_DILATIONS, attr_ints(g, w->win_dil, w->n));
    }
}

/* A random role per dim: b/f (or i/o) and the spatial numbers. */
static void draw_layout(Gen *g, int rank, int64_t *first, int64_t *second, int64_t *spatial)
{
    int dims[SHARDC_MAX_RANK];
    for (int d = 0; d < rank; d++)
        dims[d] = d;
    rng_shuffle(&g->rng, dims, rank);
    *first = dims[0];
    *second = dims[1];
    for (int i = 0; i + 2 < rank; i++)
        spatial[i] = dims[i + 2];
}

/* A divisor of n other than 1, or 1 if n has none or by chance. */
static int64_t draw_groups(Gen *g, int64_t n, int percent)
{
    if (!rng_pct(&g->rng, percent))
        return 1;
    for (int64_t k = 2; k <= n; k++)
        if (n % k == 0 && rng_pct(&g->rng, 60))
            return k;
    return 1;
}

typedef struct ConvGen {
    ConvDims d;
    WindowDims w;
    int64_t fg, bg;
    int64_t kdims[SHARDC_MAX_RANK], odims[SHARDC_MAX_RANK];
} ConvGen;

static bool plan_conv(Gen *g, ConvGen *c, const TensorType *x)
{
    int rank = x->rank;
    c->d.num_spatial = c->w.n = rank - 2;
    draw_layout(g, rank, &c->d.in_batch, &c->d.in_feature, c->d.in_spatial);
    draw_layout(g, rank, &c->d.k_in, &c->d.k_out, c->d.k_spatial);
    draw_layout(g, rank, &c->d.out_batch, &c->d.out_feature, c->d.out_spatial);
    int64_t n = x->dims[c->d.in_batch], ch = x->dims[c->d.in_feature];
    c->fg = draw_groups(g, ch, 25);
    c->bg = c->fg == 1 ? draw_groups(g, n, 10) : 1;
    int64_t per_group = rng_range(&g->rng, 1, 3);
    c->kdims[c->d.k_in] = ch / c->fg;
    c->kdims[c->d.k_out] = per_group * c->fg * c->bg;
    c->odims[c->d.out_batch] = n / c->bg;
    c->odims[c->d.out_feature] = c->kdims[c->d.k_out];
    for (int i = 0; i < c->w.n; i++) {
        int64_t size = x->dims[c->d.in_spatial[i]];
        if (!draw_window(g, &c->w, i, size, true))
            return false;
        c->kdims[c->d.k_spatial[i]] = c->w.size[i];
        c->odims[c->d.out_spatial[i]] = op_window_count(&c->w, i, size);
    }
    return true;
}

bool gen_convolution(Gen *g, OpKind kind)
{
    Pick p = pick_any(1u << DT_F32 | 1u << DT_F64);
    p.min_rank = 3, p.max_rank = 4;
    GenVal *x = gen_operand(g, &p);
    ConvGen c;
    if (x->v->type.rank < 3 || !plan_conv(g, &c, &x->v->type))
        return false;
    TensorType kt = gen_type(g, x->v->type.dtype, x->v->type.rank, c.kdims);
    TensorType ot = gen_type(g, x->v->type.dtype, x->v->type.rank, c.odims);
    if (type_elems(&ot) > g->opts.max_elems || type_elems(&kt) > g->opts.max_elems)
        return false;
    x = gen_bounded(g, x, 10);
    GenVal *k = gen_bounded(g, gen_value_of(g, &kt, false), 1);
    char dims[128];
    op_conv_dims_format(&c.d, dims, sizeof dims);
    Op *op = gen_op(g, kind, (Value *[]){x->v, k->v}, 2, &ot, 1);
    gen_set_attr(g, op, ATTR_KEY_DIM_NUMBERS, attr_s(g, dims));
    set_window(g, op, &c.w, true);
    if (c.fg > 1 || rng_pct(&g->rng, 10))
        gen_set_attr(g, op, ATTR_KEY_FEATURE_GROUP_COUNT, attr_i(g, c.fg));
    if (c.bg > 1)
        gen_set_attr(g, op, ATTR_KEY_BATCH_GROUP_COUNT, attr_i(g, c.bg));
    int64_t terms = kt.dims[c.d.k_in];
    for (int i = 0; i < c.w.n; i++)
        terms *= c.w.size[i];
    GenVal *in[2] = {x, k};
    gen_result(g, op, 0, cap_bound(ot.dtype, 10.0 * (double)terms), false, vma_of(in, 2));
    return true;
}

/* Windows over every dim of x (some of size 1: batch-like dims). */
static bool plan_windows(Gen *g, WindowDims *w, const TensorType *x, bool dilate, int64_t *out)
{
    w->n = x->rank;
    for (int i = 0; i < x->rank; i++) {
        if (rng_pct(&g->rng, 35)) {
            w->size[i] = w->stride[i] = w->base_dil[i] = w->win_dil[i] = 1;
            w->lo[i] = w->hi[i] = 0;
        } else if (!draw_window(g, w, i, x->dims[i], dilate)) {
            return false;
        }
        out[i] = op_window_count(w, i, x->dims[i]);
    }
    return true;
}

static double window_elems(const WindowDims *w)
{
    double n = 1;
    for (int i = 0; i < w->n; i++)
        n *= (double)w->size[i];
    return n;
}

/* A scalar init of dt for a window op (StableHLO's operand), exact when
 * `exact` asks, or NULL. */
static GenVal *window_init(Gen *g, DType dt, bool exact)
{
    TensorType scalar = gen_type(g, dt, 0, NULL);
    GenVal *init = gen_value_of(g, &scalar, exact);
    return dtype_is_float(dt) ? gen_bounded(g, init, 10) : init;
}

/* The bound of a window reduction of inputs bounded by `in` from an init
 * bounded by `init`: a sum adds the init once and once per padding hole. */
static double window_bound(const char *r, const WindowDims *w, double in, double init)
{
    if (strcmp(r, "sum") != 0)
        return in > init ? in : init;
    return in * window_elems(w) + init * (window_elems(w) + 1);
}

/* One input (a third of them with an init operand), or two of one shape
 * with inits (StableHLO's variadic reduce_window), each reduced on its own. */
bool gen_reduce_window(Gen *g, OpKind kind)
{
    static const char *const reductions[] = {"sum", "max", "min"};
    Pick p = pick_any(DTS_NUM);
    p.min_rank = 1, p.max_rank = 4;
    GenVal *x = gen_operand(g, &p);
    WindowDims w;
    int64_t dims[SHARDC_MAX_RANK];
    if (x->v->type.rank < 1 || !plan_windows(g, &w, &x->v->type, true, dims))
        return false;
    int n = rng_pct(&g->rng, 20) ? 2 : 1;
    bool inits = n == 2 || rng_pct(&g->rng, 30);
    GenVal *in[4] = {x, n == 2 ? gen_value_of(g, &x->v->type, x->exact) : NULL};
    TensorType ot[2];
    for (int k = 0; k < n; k++)
        ot[k] = gen_type(g, in[k]->v->type.dtype, x->v->type.rank, dims);
    if (type_elems(&ot[0]) > g->opts.max_elems)
        return false;
    const char *r = reductions[rng_below(&g->rng, 3)];
    if (strcmp(r, "sum") == 0 && !sum_ok(ot[0].dtype, (int64_t)window_elems(&w) + (inits ? 1 : 0)))
        r = "max";
    for (int k = 0; inits && k < n; k++)
        in[n + k] = window_init(g, in[k]->v->type.dtype, in[k]->exact);
    Value *operands[4];
    for (int i = 0; i < (inits ? 2 * n : n); i++)
        operands[i] = in[i]->v;
    Op *op = gen_op(g, kind, operands, inits ? 2 * n : n, ot, n);
    gen_set_attr(g, op, ATTR_KEY_REDUCTION, attr_s(g, r));
    set_window(g, op, &w, false);
    for (int k = 0; k < n; k++) {
        GenVal *init = inits ? in[n + k] : NULL;
        double bound = window_bound(r, &w, in[k]->bound, init ? init->bound : 0);
        bool exact = in[k]->exact && (!init || init->exact);
        gen_result(g, op, k, cap_bound(ot[k].dtype, bound), exact, in[k]->vma | (init ? init->vma : 0));
    }
    return true;
}

/* A select of `ge` (half), `gt`, `le` or `lt`; a third with an init. The
 * operand is exact: which element a window selects jumps with one ulp of
 * rounding noise (difftest seed 500092: a bf16 reduce_sum summed in another
 * order moved a scattered value to the next row). */
bool gen_select_and_scatter(Gen *g, OpKind kind)
{
    static const char *const directions[] = {"gt", "le", "lt"};
    Pick p = pick_any(DTS_NUM);
    p.min_rank = 1, p.max_rank = 4;
    p.need_exact = true;
    GenVal *x = gen_operand(g, &p);
    WindowDims w;
    int64_t dims[SHARDC_MAX_RANK];
    if (!x->exact || x->v->type.rank < 1 || !plan_windows(g, &w, &x->v->type, false, dims))
        return false;
    TensorType st = gen_type(g, x->v->type.dtype, x->v->type.rank, dims);
    double overlap = 1;
    for (int i = 0; i < w.n; i++)
        overlap *= (double)((w.size[i] + w.stride[i] - 1) / w.stride[i]);
    if (type_elems(&st) > g->opts.max_elems || !sum_ok(st.dtype, (int64_t)overlap + 1))
        return false;
    GenVal *src = gen_value_of(g, &st, false);
    if (dtype_is_float(st.dtype))
        src = gen_bounded(g, src, 1e3);
    GenVal *in[3] = {x, src, rng_pct(&g->rng, 30) ? window_init(g, st.dtype, src->exact) : NULL};
    int count = in[2] ? 3 : 2;
    Op *op = gen_op(g, kind, (Value *[]){x->v, src->v, in[2] ? in[2]->v : NULL}, count, &x->v->type, 1);
    set_window(g, op, &w, false);
    if (rng_pct(&g->rng, 50))
        gen_set_attr(g, op, ATTR_KEY_DIRECTION, attr_s(g, directions[rng_below(&g->rng, 3)]));
    double bound = src->bound * overlap + (in[2] ? in[2]->bound : 0);
    gen_result(g, op, 0, cap_bound(st.dtype, bound), exact_of(in, count), vma_of(in, count));
    return true;
}
