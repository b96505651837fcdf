/* Generators for gather and scatter: one or two operand dims addressed by
 * an index vector (collapsed / inserted, or kept as a window dim), the
 * other dims windows that are whole or cut as slice's are, one or two
 * batch dims of indices in [-8, 8) (random inputs) so starts clamp
 * (gather) or miss (scatter); embedding lookups and scatter-adds are the
 * common case. */
#include <string.h>
#include "shirgen.h"

/* The dimension numbers being built and the window (slice) sizes. */
typedef struct GsGen {
    int rank, k, nb;                    /* operand rank, index vector length, batch dims */
    int64_t map[2], collapsed[2], offset[SHARDC_MAX_RANK], window[SHARDC_MAX_RANK];
    int ncollapsed, noffset;
    int64_t sizes[SHARDC_MAX_RANK];     /* per operand dim: 1 if collapsed, else its window */
    bool implicit;                      /* no index vector dim (k == 1) */
} GsGen;

static void window_of(Gen *g, int64_t size, bool whole, int64_t *out)
{
    int64_t start, limit, stride;
    *out = size;
    if (!whole) {
        slice_dim(g, size, &start, &limit, &stride);
        *out = limit - start;
    }
}

/* Picks the addressed dims and the window sizes of x. */
static void plan(Gen *g, GsGen *s, const TensorType *x)
{
    int dims[SHARDC_MAX_RANK];
    for (int d = 0; d < x->rank; d++)
        dims[d] = d;
    rng_shuffle(&g->rng, dims, x->rank);
    s->rank = x->rank;
    s->k = x->rank > 1 && rng_pct(&g->rng, 25) ? 2 : 1;
    s->nb = rng_pct(&g->rng, 35) ? 2 : 1;
    s->implicit = s->k == 1 && rng_pct(&g->rng, 20);
    s->ncollapsed = s->noffset = 0;
    for (int i = 0; i < s->k; i++)
        s->map[i] = dims[i];
    for (int d = 0; d < x->rank; d++) {
        bool addressed = d == s->map[0] || (s->k == 2 && d == s->map[1]);
        if (addressed && rng_pct(&g->rng, 75)) {
            s->collapsed[s->ncollapsed++] = d;
            s->sizes[d] = x->dims[d] < 1 ? x->dims[d] : 1;
            continue;
        }
        window_of(g, x->dims[d], !addressed && rng_pct(&g->rng, 70), &s->sizes[d]);
        s->window[s->noffset] = s->sizes[d];
        s->offset[s->noffset] = s->nb + s->noffset;
        s->noffset++;
    }
}

/* The indices: nb batch dims, then the index vector dim (unless implicit). */
static GenVal *indices(Gen *g, const GsGen *s, int64_t *batch, int64_t *count)
{
    TensorType b = gen_shape(g, DT_I32, s->nb);
    int64_t dims[3];
    *count = 1;
    for (int i = 0; i < s->nb; i++) {
        batch[i] = dims[i] = b.dims[i];
        *count *= b.dims[i];
    }
    dims[s->nb] = s->k;
    TensorType t = gen_type(g, DT_I32, s->nb + !s->implicit, dims);
    return gen_value_of(g, &t, true);
}

/* The slices' type: batch dims, then the windows. */
static TensorType slices_type(Gen *g, const GsGen *s, DType dt, const int64_t *batch)
{
    int64_t dims[SHARDC_MAX_RANK + 2];
    memcpy(dims, batch, sizeof(int64_t) * (size_t)s->nb);
    memcpy(dims + s->nb, s->window, sizeof(int64_t) * (size_t)s->noffset);
    return gen_type(g, dt, s->nb + s->noffset, dims);
}

static void set_dims(Gen *g, Op *op, const GsGen *s, bool scatter)
{
    gen_set_attr(g, op, scatter ? ATTR_KEY_UPDATE_WINDOW_DIMS : ATTR_KEY_OFFSET_DIMS,
                 attr_ints(g, s->offset, s->noffset));
    int64_t collapsed[2] = {s->collapsed[0], s->collapsed[1]};
    if (s->ncollapsed == 2 && collapsed[0] > collapsed[1]) /* sorted, as StableHLO wants */
        collapsed[0] = s->collapsed[1], collapsed[1] = s->collapsed[0];
    gen_set_attr(g, op, scatter ? ATTR_KEY_INSERTED_WINDOW_DIMS : ATTR_KEY_COLLAPSED_SLICE_DIMS,
                 attr_ints(g, collapsed, s->ncollapsed));
    gen_set_attr(g, op, scatter ? ATTR_KEY_SCATTER_DIMS_TO_OPERAND_DIMS : ATTR_KEY_START_INDEX_MAP,
                 attr_ints(g, s->map, s->k));
    gen_set_attr(g, op, ATTR_KEY_INDEX_VECTOR_DIM, attr_i(g, s->nb));
}

/* What both ops start with: the operand (of `dtypes`), the plan, the
 * indices and the slices' type; false if the slices are too big. */
typedef struct GsStart {
    GenVal *x, *idx;
    GsGen s;
    int64_t batch[2], count;
    TensorType slices;
} GsStart;

static bool gs_start(Gen *g, unsigned dtypes, GsStart *st)
{
    Pick p = pick_any(dtypes);
    p.min_rank = 1, p.max_rank = 4, p.max_bound = 1e4;
    st->x = gen_operand(g, &p);
    plan(g, &st->s, &st->x->v->type);
    st->idx = indices(g, &st->s, st->batch, &st->count);
    st->slices = slices_type(g, &st->s, st->x->v->type.dtype, st->batch);
    return type_elems(&st->slices) <= g->opts.max_elems;
}

bool gen_gather(Gen *g, OpKind kind)
{
    GsStart st;
    if (!gs_start(g, 0, &st))
        return false;
    GenVal *in[2] = {st.x, st.idx};
    Op *op = gen_op(g, kind, (Value *[]){st.x->v, st.idx->v}, 2, &st.slices, 1);
    set_dims(g, op, &st.s, false);
    gen_set_attr(g, op, ATTR_KEY_SLICE_SIZES, attr_ints(g, st.s.sizes, st.s.rank));
    gen_result(g, op, 0, st.x->bound, exact_of(in, 2), vma_of(in, 2));
    return true;
}

/* One input and its updates, with the bound and exactness of its result
 * under combiner or region return kind c ("add" turns to "max" where the
 * partitioner's reassociated sum would not be exact enough). */
typedef struct ScatterInput {
    GenVal *x, *upd;
    const char *kind;
    double bound;
    bool exact;
} ScatterInput;

static void scatter_input(Gen *g, const GsStart *st, GenVal *x, const char *c, ScatterInput *in)
{
    GenVal *upd = gen_value_of(g, &st->slices, false);
    if (dtype_is_float(st->slices.dtype))
        upd = gen_bounded(g, upd, 1e4);
    /* The partitioner may sum batch-sharded partial scatter-adds: a sum
     * it reassociates, so not exact for floats, and short for bf16. */
    bool add = strcmp(c, "add") == 0;
    if (add && !sum_ok(st->slices.dtype, st->count + 1))
        c = "max", add = false;
    *in = (ScatterInput){x, upd, c, x->bound > upd->bound ? x->bound : upd->bound,
                         x->exact && upd->exact && !(add && dtype_is_float(st->slices.dtype))};
    if (add)
        in->bound = cap_bound(st->slices.dtype, x->bound + (double)st->count * upd->bound);
}

/* The scatter of the n inputs in[] at st's indices, without its update
 * computation; vals gets its 2n + 1 operands. */
static Op *scatter_op(Gen *g, OpKind kind, const GsStart *st, const ScatterInput *in, int n, GenVal **vals)
{
    Value *ops[2 * MAX_SCATTER_INPUTS + 1];
    TensorType types[MAX_SCATTER_INPUTS];
    for (int i = 0; i < n; i++) {
        vals[i] = in[i].x, vals[n + 1 + i] = in[i].upd;
        types[i] = in[i].x->v->type;
    }
    vals[n] = st->idx;
    for (int i = 0; i < 2 * n + 1; i++)
        ops[i] = vals[i]->v;
    Op *op = gen_op(g, kind, ops, 2 * n + 1, types, n);
    set_dims(g, op, &st->s, true);
    return op;
}

/* `combiner` (half the scatters, as before issue 18), or a region over one
 * or two inputs whose returns are add, max or a select (no combiner). */
bool gen_scatter(Gen *g, OpKind kind)
{
    static const char *const combiners[] = {"add", "max", "min", "replace"};
    static const char *const returns[] = {"add", "max", "select"};
    GsStart st;
    if (!gs_start(g, DTS_NUM, &st))
        return false;
    int form = (int)rng_below(&g->rng, 4), n = form == 3 ? 2 : 1;
    ScatterInput in[MAX_SCATTER_INPUTS];
    DType dts[MAX_SCATTER_INPUTS];
    const char *kinds[MAX_SCATTER_INPUTS];
    for (int i = 0; i < n; i++) {
        GenVal *x = i ? gen_value_of(g, &st.x->v->type, false) : st.x;
        scatter_input(g, &st, x, form < 2 ? combiners[rng_below(&g->rng, 4)] : returns[rng_below(&g->rng, 3)],
                      &in[i]);
        dts[i] = x->v->type.dtype, kinds[i] = in[i].kind;
    }
    GenVal *vals[2 * MAX_SCATTER_INPUTS + 1];
    Op *op = scatter_op(g, kind, &st, in, n, vals);
    if (form < 2)
        gen_set_attr(g, op, ATTR_KEY_COMBINER, attr_s(g, in[0].kind));
    else
        gen_scatter_region(g, op, dts, kinds, n);
    for (int i = 0; i < n; i++)
        gen_result(g, op, i, in[i].bound, in[i].exact && st.idx->exact, vma_of(vals, 2 * n + 1));
    return true;
}
