/* Generators for slice, pad, top_k, sort, argmax, reverse and the dynamic
 * slices. */
#include <string.h>
#include "shirgen.h"

static Pick pick_ranked1(unsigned dtypes, bool need_exact)
{
    Pick p = pick_any(dtypes);
    p.min_rank = 1;
    p.max_rank = 5;
    p.need_exact = need_exact;
    p.max_bound = 1e4;
    return p;
}

int64_t resize_unit(const Gen *g)
{
    return (g->opts.features & FEAT_ODD_RESIZE) ? 1 : g->mesh->num_devices;
}

/* A random window of a dim; its length is a multiple of the resize unit
 * (and the dim is only cut when its size is one too). */
void slice_dim(Gen *g, int64_t size, int64_t *start, int64_t *limit, int64_t *stride)
{
    int64_t unit = resize_unit(g);
    *start = 0, *limit = size, *stride = 1;
    if (size == 0 || size % unit || size / unit < 2 || rng_pct(&g->rng, 45))
        return;
    if (unit > 1) {
        *limit = unit * rng_range(&g->rng, 1, (int)(size / unit) - 1);
        *start = rng_range(&g->rng, 0, (int)(size - *limit));
        *limit += *start;
        return;
    }
    *start = rng_range(&g->rng, 0, (int)size - 1);
    *limit = rng_range(&g->rng, (int)*start + 1, (int)size);
    if ((g->opts.features & FEAT_EMPTY) && rng_pct(&g->rng, 3))
        *limit = *start;
    if (rng_pct(&g->rng, 30))
        *stride = rng_range(&g->rng, 2, 3);
}

bool gen_slice(Gen *g, OpKind kind)
{
    Pick p = pick_ranked1(0, false);
    GenVal *x = gen_operand(g, &p);
    const TensorType *t = &x->v->type;
    int64_t start[SHARDC_MAX_RANK], limit[SHARDC_MAX_RANK], stride[SHARDC_MAX_RANK], dims[SHARDC_MAX_RANK];
    bool strided = rng_pct(&g->rng, 20);
    for (int d = 0; d < t->rank; d++) {
        slice_dim(g, t->dims[d], &start[d], &limit[d], &stride[d]);
        dims[d] = (limit[d] - start[d] + stride[d] - 1) / stride[d];
        strided |= stride[d] > 1;
    }
    TensorType rt = gen_type(g, t->dtype, t->rank, dims);
    Op *op = gen_op(g, kind, &x->v, 1, &rt, 1);
    gen_set_attr(g, op, ATTR_KEY_START, attr_ints(g, start, t->rank));
    gen_set_attr(g, op, ATTR_KEY_LIMIT, attr_ints(g, limit, t->rank));
    if (strided)
        gen_set_attr(g, op, ATTR_KEY_STRIDE, attr_ints(g, stride, t->rank));
    gen_result(g, op, 0, x->bound, x->exact, x->vma);
    return true;
}

static AttrValue *pad_value(Gen *g, DType dt, double *bound)
{
    int k = rng_range(&g->rng, -4, 4);
    *bound = k < 0 ? -k : k;
    if (dt == DT_BOOL)
        return attr_b(g, k > 0);
    return dtype_is_float(dt) ? attr_f(g, k / 2.0) : attr_i(g, k);
}

/* low, high and interior padding of one dim, keeping its size a multiple
 * of the resize unit when it has to. */
static int64_t pad_dim(Gen *g, int64_t size, bool interior, int64_t *lo, int64_t *hi, int64_t *in)
{
    int64_t unit = resize_unit(g);
    *lo = rng_pct(&g->rng, 50) ? 0 : rng_range(&g->rng, 1, 3);
    *hi = rng_pct(&g->rng, 50) ? 0 : rng_range(&g->rng, 1, 3);
    *in = interior && unit == 1 && rng_pct(&g->rng, 50) ? 1 : 0;
    if (unit > 1 && size % unit)
        *lo = *hi = 0;
    else if (unit > 1)
        *hi += (unit - (*lo + *hi) % unit) % unit;
    else if (size > 2 && rng_pct(&g->rng, 20)) /* negative padding crops: at most 3 of >= 3 */
        *lo = -rng_range(&g->rng, 1, 2), *hi = rng_pct(&g->rng, 50) ? -1 : *hi;
    return *lo + *hi + (size ? size + (size - 1) * *in : 0);
}

bool gen_pad(Gen *g, OpKind kind)
{
    Pick p = pick_ranked1(0, false);
    GenVal *x = gen_operand(g, &p);
    const TensorType *t = &x->v->type;
    int64_t lo[SHARDC_MAX_RANK], hi[SHARDC_MAX_RANK], in[SHARDC_MAX_RANK], dims[SHARDC_MAX_RANK];
    bool interior = rng_pct(&g->rng, 30);
    for (int d = 0; d < t->rank; d++)
        dims[d] = pad_dim(g, t->dims[d], interior, &lo[d], &hi[d], &in[d]);
    TensorType rt = gen_type(g, t->dtype, t->rank, dims);
    if (type_elems(&rt) > 2 * g->opts.max_elems)
        return false;
    /* a quarter of the pads take their value as an operand (StableHLO's) */
    TensorType scalar = gen_type(g, t->dtype, 0, NULL);
    GenVal *value = rng_pct(&g->rng, 25) ? gen_value_of(g, &scalar, x->exact) : NULL;
    Value *operands[2] = {x->v, value ? value->v : NULL};
    Op *op = gen_op(g, kind, operands, value ? 2 : 1, &rt, 1);
    gen_set_attr(g, op, ATTR_KEY_LOW, attr_ints(g, lo, t->rank));
    gen_set_attr(g, op, ATTR_KEY_HIGH, attr_ints(g, hi, t->rank));
    if (interior)
        gen_set_attr(g, op, ATTR_KEY_INTERIOR, attr_ints(g, in, t->rank));
    double bound = value ? value->bound : 0;
    if (!value && rng_pct(&g->rng, 50))
        gen_set_attr(g, op, ATTR_KEY_VALUE, pad_value(g, t->dtype, &bound));
    bool exact = x->exact && (!value || value->exact);
    gen_result(g, op, 0, x->bound > bound ? x->bound : bound, exact, x->vma | (value ? value->vma : 0));
    return true;
}

/* top_k's indices jump when near-equal values swap: exact operands only. */
bool gen_top_k(Gen *g, OpKind kind)
{
    Pick p = pick_ranked1(DTS_NUM, true);
    GenVal *x = gen_operand(g, &p);
    const TensorType *t = &x->v->type;
    int64_t last = t->dims[t->rank - 1], dims[SHARDC_MAX_RANK];
    if (!x->exact || last == 0)
        return false;
    int64_t k = rng_range(&g->rng, 1, (int)(last < 4 ? last : 4));
    if ((g->opts.features & FEAT_EMPTY) && rng_pct(&g->rng, 3))
        k = 0;
    memcpy(dims, t->dims, sizeof(int64_t) * (size_t)t->rank);
    dims[t->rank - 1] = k;
    TensorType rt[2] = {gen_type(g, t->dtype, t->rank, dims), gen_type(g, DT_I32, t->rank, dims)};
    Op *op = gen_op(g, kind, &x->v, 1, rt, 2);
    gen_set_attr(g, op, ATTR_KEY_K, attr_i(g, k));
    gen_result(g, op, 0, x->bound, true, x->vma);
    gen_result(g, op, 1, (double)last, true, x->vma);
    return true;
}

bool gen_sort(Gen *g, OpKind kind)
{
    Pick p = pick_ranked1(DTS_NUM, false);
    GenVal *x = gen_operand(g, &p);
    if (rng_pct(&g->rng, 50) && gen_sort_region(g, kind, x))
        return true;
    Op *op = gen_op(g, kind, &x->v, 1, &x->v->type, 1);
    gen_set_attr(g, op, ATTR_KEY_DIM, attr_i(g, rng_below(&g->rng, x->v->type.rank)));
    if (rng_pct(&g->rng, 50))
        gen_set_attr(g, op, ATTR_KEY_DESCENDING, attr_b(g, rng_pct(&g->rng, 50)));
    gen_result(g, op, 0, x->bound, x->exact, x->vma);
    return true;
}

bool gen_argmax(Gen *g, OpKind kind)
{
    Pick p = pick_ranked1(DTS_NUM, true);
    GenVal *x = gen_operand(g, &p);
    const TensorType *t = &x->v->type;
    if (!x->exact)
        return false;
    int dim = rng_below(&g->rng, t->rank);
    if (t->dims[dim] == 0)
        return false; /* jnp.argmax of an empty axis is an error */
    int64_t dims[SHARDC_MAX_RANK];
    for (int d = 0, n = 0; d < t->rank; d++)
        if (d != dim)
            dims[n++] = t->dims[d];
    TensorType rt = gen_type(g, DT_I32, t->rank - 1, dims);
    Op *op = gen_op(g, kind, &x->v, 1, &rt, 1);
    gen_set_attr(g, op, ATTR_KEY_DIM, attr_i(g, dim));
    gen_result(g, op, 0, (double)t->dims[dim], true, x->vma);
    return true;
}

/* lax.rev along a random non-empty set of dims. */
bool gen_reverse(Gen *g, OpKind kind)
{
    Pick p = pick_ranked1(0, false);
    GenVal *x = gen_operand(g, &p);
    int rank = x->v->type.rank, n = 0;
    int64_t dims[SHARDC_MAX_RANK];
    for (int d = 0; d < rank; d++)
        if (rng_pct(&g->rng, 50))
            dims[n++] = d;
    if (n == 0)
        dims[n++] = rng_below(&g->rng, rank);
    Op *op = gen_op(g, kind, &x->v, 1, &x->v->type, 1);
    gen_set_attr(g, op, ATTR_KEY_DIMS, attr_ints(g, dims, n));
    gen_result(g, op, 0, x->bound, x->exact, x->vma);
    return true;
}

/* A start index: a constant (in or just out of range, which clamps) or
 * any i32 scalar (random inputs lie in [-8, 8)). */
static GenVal *start_index(Gen *g, int64_t dim)
{
    if (rng_pct(&g->rng, 40))
        return gen_full(g, DT_I32, rng_range(&g->rng, -1, (int)(dim > 8 ? 8 : dim) + 1), NULL);
    TensorType t = gen_type(g, DT_I32, 0, NULL);
    return gen_value_of(g, &t, true);
}

/* Operands from `first` on: one start index per dim of x. */
static void start_indices(Gen *g, const TensorType *x, GenVal **in, int first)
{
    for (int d = 0; d < x->rank; d++)
        in[first + d] = start_index(g, x->dims[d]);
}

/* Slice sizes as slice's windows (multiples of the resize unit). */
static void window_sizes(Gen *g, const TensorType *x, int64_t *dims)
{
    for (int d = 0; d < x->rank; d++) {
        int64_t start, limit, stride;
        slice_dim(g, x->dims[d], &start, &limit, &stride);
        dims[d] = limit - start;
    }
}

static void emit_dynamic(Gen *g, OpKind kind, GenVal **in, int n, const TensorType *rt, double bound)
{
    Value *ops[SHARDC_MAX_RANK + 2];
    for (int i = 0; i < n; i++)
        ops[i] = in[i]->v;
    Op *op = gen_op(g, kind, ops, n, rt, 1);
    gen_result(g, op, 0, bound, exact_of(in, n), vma_of(in, n));
}

bool gen_dynamic_slice(Gen *g, OpKind kind)
{
    Pick p = pick_ranked1(0, false);
    GenVal *in[SHARDC_MAX_RANK + 1];
    in[0] = gen_operand(g, &p);
    const TensorType *x = &in[0]->v->type;
    int64_t dims[SHARDC_MAX_RANK];
    window_sizes(g, x, dims);
    start_indices(g, x, in, 1);
    TensorType rt = gen_type(g, x->dtype, x->rank, dims);
    emit_dynamic(g, kind, in, 1 + x->rank, &rt, in[0]->bound);
    return true;
}

bool gen_dynamic_update_slice(Gen *g, OpKind kind)
{
    Pick p = pick_ranked1(0, false);
    GenVal *in[SHARDC_MAX_RANK + 2];
    in[0] = gen_operand(g, &p);
    const TensorType *x = &in[0]->v->type;
    int64_t dims[SHARDC_MAX_RANK];
    window_sizes(g, x, dims);
    TensorType ut = gen_type(g, x->dtype, x->rank, dims);
    in[1] = gen_value_of(g, &ut, false);
    if (dtype_is_float(x->dtype))
        in[1] = gen_bounded(g, in[1], 1e4);
    start_indices(g, x, in, 2);
    double bound = in[0]->bound > in[1]->bound ? in[0]->bound : in[1]->bound;
    emit_dynamic(g, kind, in, 2 + x->rank, x, bound);
    return true;
}
