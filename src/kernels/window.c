/* Windowed kernels: convolution as im2col + BLAS gemm per group and batch
 * element, reduce_window and select_and_scatter by walking each window
 * (docs/kernels.md). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "shardc/kernels.h"
#include "kernels/kern_libs.h"

/* The type a convolution computes in: f64 for f64 and integers (exact for
 * the values they hold), f32 for the rest. */
static DType conv_compute_type(DType dt)
{
    return dt == DT_F64 || dtype_is_int(dt) ? DT_F64 : DT_F32;
}

/* x dense and of type `to`: a new reference. */
static TensorStatus as_dense(TensorCtx *ctx, const Tensor *x, DType to, Tensor **out)
{
    Tensor *dense;
    TensorStatus s = tensor_contiguous(ctx, (Tensor *)x, &dense);
    if (s != TENSOR_OK || dense->dtype == to) {
        *out = s == TENSOR_OK ? dense : NULL;
        return s;
    }
    s = tensor_convert(ctx, dense, to, out);
    tensor_release(dense);
    return s;
}

/* What one im2col + gemm pass needs: element strides of the three
 * tensors, sizes and the group being computed. */
typedef struct ConvPlan {
    const KernLibFns *blas;
    const ConvDims *d;
    const WindowDims *w;
    size_t esize;
    int64_t xs[SHARDC_MAX_RANK], ks[SHARDC_MAX_RANK], os[SHARDC_MAX_RANK];
    int64_t in_sizes[SHARDC_MAX_RANK], out_sizes[SHARDC_MAX_RANK], k_sizes[SHARDC_MAX_RANK];
    int64_t windows, window_elems; /* output positions and kernel positions per image */
    int64_t cg, og;                /* input features per group, output features per group */
    int64_t cin0, cout0, in_batch; /* this pass's first input feature, output feature, input image */
} ConvPlan;

/* Spatial multi-index of flat position p over sizes (row-major). */
static void unflatten(int n, const int64_t *sizes, int64_t p, int64_t *idx)
{
    for (int i = n - 1; i >= 0; i--) {
        idx[i] = p % sizes[i];
        p /= sizes[i];
    }
}

/* The element offset of input image p.in_batch at output position op and
 * kernel position kp, or -1 where that is padding or a dilation hole. */
static int64_t input_offset(const ConvPlan *p, const int64_t *op, const int64_t *kp)
{
    int64_t off = p->in_batch * p->xs[p->d->in_batch];
    for (int i = 0; i < p->d->num_spatial; i++) {
        int64_t pos = op[i] * p->w->stride[i] + kp[i] * p->w->win_dil[i] - p->w->lo[i];
        if (pos < 0 || pos % p->w->base_dil[i] || pos / p->w->base_dil[i] >= p->in_sizes[i])
            return -1;
        off += pos / p->w->base_dil[i] * p->xs[p->d->in_spatial[i]];
    }
    return off;
}

/* The element offset of input image p.in_batch at window start p0 and
 * kernel position kp when nothing is dilated: no divisions (the common
 * case, and im2col's inner loop). */
static int64_t dense_offset(const ConvPlan *p, const int64_t *p0, const int64_t *kp)
{
    int64_t off = p->in_batch * p->xs[p->d->in_batch];
    for (int i = 0; i < p->d->num_spatial; i++) {
        int64_t pos = p0[i] + kp[i] * p->w->win_dil[i];
        if (pos < 0 || pos >= p->in_sizes[i])
            return -1;
        off += pos * p->xs[p->d->in_spatial[i]];
    }
    return off;
}

static void copy_features(const ConvPlan *p, const char *x, int64_t off, char *a)
{
    int64_t fstride = p->xs[p->d->in_feature];
    size_t row = (size_t)p->cg * p->esize;
    if (off < 0)
        memset(a, 0, row);
    else if (fstride == 1)
        memcpy(a, x + (size_t)(off + p->cin0) * p->esize, row);
    else
        for (int64_t c = 0; c < p->cg; c++)
            memcpy(a + (size_t)c * p->esize, x + (size_t)(off + (p->cin0 + c) * fstride) * p->esize, p->esize);
}

/* Whether the kernel row along the last spatial dim, starting at input
 * position p0, is one contiguous piece of the input: no window dilation,
 * inside the dim, and the group's features are all of a position's,
 * innermost (NHWC). */
static bool run_contiguous(const ConvPlan *p, int64_t p0)
{
    int last = p->d->num_spatial - 1;
    return p->w->win_dil[last] == 1 && p->xs[p->d->in_feature] == 1 && p->cin0 == 0 &&
           p->xs[p->d->in_spatial[last]] == p->cg && p0 >= 0 && p0 + p->k_sizes[last] <= p->in_sizes[last];
}

/* One image's im2col rows: row (output position), columns (kernel
 * position, input feature of the group); kernel positions counted as an
 * odometer. */
static void im2col(const ConvPlan *p, const char *x, char *a)
{
    int n = p->d->num_spatial;
    bool dilated = false;
    for (int i = 0; i < n; i++)
        dilated |= p->w->base_dil[i] != 1;
    int64_t op[SHARDC_MAX_RANK], kp[SHARDC_MAX_RANK], p0[SHARDC_MAX_RANK];
    size_t row = (size_t)p->cg * p->esize;
    for (int64_t r = 0; r < p->windows; r++) {
        unflatten(n, p->out_sizes, r, op);
        for (int i = 0; i < n; i++) {
            p0[i] = op[i] * p->w->stride[i] - p->w->lo[i];
            kp[i] = 0;
        }
        for (int64_t k = 0; k < p->window_elems;) {
            int64_t off = dilated ? input_offset(p, op, kp) : dense_offset(p, p0, kp), run = 1;
            if (!dilated && off >= 0 && kp[n - 1] == 0 && run_contiguous(p, p0[n - 1]))
                run = p->k_sizes[n - 1]; /* a whole kernel row lies in one piece (NHWC) */
            if (run > 1)
                memcpy(a, x + (size_t)off * p->esize, row * (size_t)run);
            else
                copy_features(p, x, off, a);
            a += row * (size_t)run;
            k += run;
            kp[n - 1] += run - 1;
            for (int i = n - 1; i >= 0 && ++kp[i] == p->k_sizes[i]; i--)
                kp[i] = 0;
        }
    }
}

/* The group's kernel as a (kernel position, input feature) x output
 * feature matrix. */
static void kernel_matrix(const ConvPlan *p, const char *k, char *b)
{
    int n = p->d->num_spatial;
    int64_t kp[SHARDC_MAX_RANK];
    for (int64_t e = 0; e < p->window_elems; e++) {
        unflatten(n, p->k_sizes, e, kp);
        int64_t base = 0;
        for (int i = 0; i < n; i++)
            base += kp[i] * p->ks[p->d->k_spatial[i]];
        for (int64_t c = 0; c < p->cg; c++) {
            const char *from = k + (size_t)(base + c * p->ks[p->d->k_in] + p->cout0 * p->ks[p->d->k_out]) * p->esize;
            if (p->ks[p->d->k_out] == 1) { /* HWIO: a row of output features */
                memcpy(b, from, (size_t)p->og * p->esize);
                b += (size_t)p->og * p->esize;
                continue;
            }
            for (int64_t o = 0; o < p->og; o++, b += p->esize)
                memcpy(b, from + (size_t)(o * p->ks[p->d->k_out]) * p->esize, p->esize);
        }
    }
}

/* The gemm's rows into output image b. */
static void scatter_rows(const ConvPlan *p, const char *c, char *out, int64_t b)
{
    int n = p->d->num_spatial;
    int64_t op[SHARDC_MAX_RANK], fstride = p->os[p->d->out_feature];
    for (int64_t r = 0; r < p->windows; r++, c += (size_t)p->og * p->esize) {
        unflatten(n, p->out_sizes, r, op);
        int64_t off = b * p->os[p->d->out_batch] + p->cout0 * fstride;
        for (int i = 0; i < n; i++)
            off += op[i] * p->os[p->d->out_spatial[i]];
        if (fstride == 1) {
            memcpy(out + (size_t)off * p->esize, c, (size_t)p->og * p->esize);
            continue;
        }
        for (int64_t o = 0; o < p->og; o++)
            memcpy(out + (size_t)(off + o * fstride) * p->esize, c + (size_t)o * p->esize, p->esize);
    }
}

/* One gemm over `images` images' rows. */
static void gemm(const ConvPlan *p, int64_t images, const void *a, const void *b, void *c)
{
    int M = (int)(p->windows * images), N = (int)p->og, K = (int)(p->window_elems * p->cg);
    if (p->esize == sizeof(float))
        p->blas->cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, a, K, b, N, 0.0f, c, N);
    else
        p->blas->cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0, a, K, b, N, 0.0, c, N);
}

static void plan_sizes(ConvPlan *p, const Tensor *x, const Tensor *k, const Tensor *out, int64_t groups)
{
    const ConvDims *d = p->d;
    tensor_shape_strides(x->rank, x->dims, p->xs);
    tensor_shape_strides(k->rank, k->dims, p->ks);
    tensor_shape_strides(out->rank, out->dims, p->os);
    p->windows = p->window_elems = 1;
    for (int i = 0; i < d->num_spatial; i++) {
        p->in_sizes[i] = x->dims[d->in_spatial[i]];
        p->out_sizes[i] = out->dims[d->out_spatial[i]];
        p->k_sizes[i] = k->dims[d->k_spatial[i]];
        p->windows *= p->out_sizes[i];
        p->window_elems *= p->k_sizes[i];
    }
    p->cg = k->dims[d->k_in];
    p->og = k->dims[d->k_out] / groups;
}

/* Whether the gemm's rows are the output's as they lie (batch, spatial
 * dims in order, then the feature: NHWC), so it writes them in place. */
static bool rows_in_place(const ConvPlan *p)
{
    const ConvDims *d = p->d;
    bool ok = d->out_batch == 0 && d->out_feature == d->num_spatial + 1;
    for (int i = 0; ok && i < d->num_spatial; i++)
        ok = d->out_spatial[i] == i + 1;
    return ok;
}

/* Images per gemm: as many as keep the im2col buffer near 8 MB (one gemm
 * over many images runs faster than one per image; a bigger buffer costs
 * more in fresh pages than it saves). */
static int64_t images_per_pass(const ConvPlan *p, int64_t images)
{
    int64_t per_image = p->windows * p->window_elems * p->cg * (int64_t)p->esize;
    int64_t n = per_image > 0 ? ((int64_t)8 << 20) / per_image : images;
    return n < 1 ? 1 : n > images ? images : n;
}

/* Every (group, run of output images) pass: im2col, gemm, rows into place. */
static TensorStatus conv_passes(TensorCtx *ctx, ConvPlan *p, const Tensor *x, const Tensor *k, Tensor *out,
                                int64_t fg, int64_t bg)
{
    int64_t images = out->dims[p->d->out_batch], chunk = images_per_pass(p, images);
    bool direct = fg * bg == 1 && rows_in_place(p);
    size_t a_image = (size_t)(p->windows * p->window_elems * p->cg) * p->esize;
    size_t c_image = (size_t)(p->windows * p->og) * p->esize;
    size_t b_bytes = (size_t)(p->window_elems * p->cg * p->og) * p->esize;
    char *a = malloc(a_image * (size_t)chunk + 1), *b = malloc(b_bytes + 1), *c = malloc(c_image * (size_t)chunk + 1);
    if (!a || !b || !c) {
        free(a), free(b), free(c);
        return tensor_fail(ctx, TENSOR_ERR_NOMEM, "convolution: out of memory for its im2col buffers");
    }
    for (int64_t g = 0; g < fg * bg; g++) {
        p->cin0 = fg > 1 ? g * p->cg : 0;
        p->cout0 = g * p->og;
        kernel_matrix(p, k->data, b);
        for (int64_t first = 0; first < images; first += chunk) {
            int64_t n = images - first < chunk ? images - first : chunk;
            for (int64_t i = 0; i < n; i++) {
                p->in_batch = bg > 1 ? g * images + first + i : first + i;
                im2col(p, x->data, a + a_image * (size_t)i);
            }
            char *rows = direct ? (char *)out->data + c_image * (size_t)first : c;
            if (p->windows && p->og)
                gemm(p, n, a, b, rows);
            for (int64_t i = 0; !direct && i < n; i++)
                scatter_rows(p, c + c_image * (size_t)i, out->data, first + i);
        }
    }
    free(a), free(b), free(c);
    return TENSOR_OK;
}

TensorStatus kern_convolution(TensorCtx *ctx, const Tensor *x, const Tensor *k, const ConvDims *d,
                              const WindowDims *w, int64_t fg, int64_t bg, const int64_t *out_dims, Tensor **out)
{
    *out = NULL;
    const KernLibFns *blas = kern_libs_fns(ctx);
    if (!blas)
        return ctx->status;
    DType ct = conv_compute_type(x->dtype);
    Tensor *xc = NULL, *kc = NULL, *oc = NULL;
    TensorStatus s = as_dense(ctx, x, ct, &xc);
    if (s == TENSOR_OK)
        s = as_dense(ctx, k, ct, &kc);
    if (s == TENSOR_OK)
        s = tensor_new_uninit(ctx, ct, x->rank, out_dims, &oc); /* every element is written */
    if (s == TENSOR_OK) {
        ConvPlan p = {.blas = blas, .d = d, .w = w, .esize = dtype_size(ct)};
        plan_sizes(&p, xc, kc, oc, fg * bg);
        s = conv_passes(ctx, &p, xc, kc, oc, fg, bg);
    }
    tensor_release(xc);
    tensor_release(kc);
    if (s == TENSOR_OK && ct != x->dtype) {
        s = tensor_convert(ctx, oc, x->dtype, out);
        tensor_release(oc);
    } else if (s == TENSOR_OK) {
        *out = oc;
    } else {
        tensor_release(oc);
    }
    return s;
}

/* ---- reduce_window and select_and_scatter ------------------------------------------------- */

/* Walks the valid input elements of one window: the flat input index of
 * each, in window order. */
typedef struct WindowWalk {
    const WindowDims *w;
    int rank;
    int64_t dims[SHARDC_MAX_RANK], strides[SHARDC_MAX_RANK];
} WindowWalk;

static int64_t walk_at(const WindowWalk *ww, const int64_t *out_idx, const int64_t *kp)
{
    int64_t off = 0;
    for (int i = 0; i < ww->rank; i++) {
        const WindowDims *w = ww->w;
        int64_t pos = out_idx[i] * w->stride[i] + kp[i] * w->win_dil[i] - w->lo[i];
        if (pos < 0 || pos % w->base_dil[i] || pos / w->base_dil[i] >= ww->dims[i])
            return -1;
        off += pos / w->base_dil[i] * ww->strides[i];
    }
    return off;
}

static int64_t window_elems(const WindowDims *w, int rank)
{
    int64_t n = 1;
    for (int i = 0; i < rank; i++)
        n *= w->size[i];
    return n;
}

static void walk_init(WindowWalk *ww, const WindowDims *w, const Tensor *x)
{
    ww->w = w;
    ww->rank = x->rank;
    memcpy(ww->dims, x->dims, sizeof ww->dims);
    tensor_shape_strides(x->rank, x->dims, ww->strides);
}

/* A reduction's identity: 0, or the type's least / greatest value. */
static void identity(WindowReduction r, DType dt, double *f, int64_t *i)
{
    int64_t lo = 0, hi = 0;
    bool is_int = dtype_int_range(dt, &lo, &hi);
    *f = r == WINDOW_SUM ? 0.0 : r == WINDOW_MAX ? -INFINITY : INFINITY;
    *i = r == WINDOW_SUM ? 0 : r == WINDOW_MAX ? (is_int ? lo : 0) : (is_int ? hi : 0);
}

static int64_t combine_i(WindowReduction r, int64_t acc, int64_t v)
{
    return r == WINDOW_SUM ? (int64_t)((uint64_t)acc + (uint64_t)v) : r == WINDOW_MAX ? (v > acc ? v : acc)
                                                                                     : (v < acc ? v : acc);
}

static double combine_f(WindowReduction r, double acc, double v)
{
    return r == WINDOW_SUM ? acc + v : r == WINDOW_MAX ? (v > acc || isnan(v) ? v : acc) : (v < acc || isnan(v) ? v : acc);
}

/* Output element o: init combined with each element of its window, a
 * padding position or base-dilation hole reading as init (StableHLO pads
 * the input with init); without an init, the reduction's identity, which
 * such positions leave alone. */
static void reduce_one(const Tensor *x, const Tensor *init, Tensor *out, int64_t o, const WindowWalk *ww,
                       WindowReduction r)
{
    int64_t idx[SHARDC_MAX_RANK], kp[SHARDC_MAX_RANK], acc_i, n = window_elems(ww->w, ww->rank);
    double acc_f;
    bool is_int = dtype_is_int(x->dtype);
    identity(r, x->dtype, &acc_f, &acc_i);
    if (init)
        acc_i = tensor_get_i64(init, 0), acc_f = tensor_get_f64(init, 0);
    unflatten(ww->rank, out->dims, o, idx);
    for (int64_t k = 0; k < n; k++) {
        unflatten(ww->rank, ww->w->size, k, kp);
        int64_t at = walk_at(ww, idx, kp);
        if (at < 0 && !init)
            continue;
        if (is_int)
            acc_i = combine_i(r, acc_i, at < 0 ? tensor_get_i64(init, 0) : tensor_get_i64(x, at));
        else
            acc_f = combine_f(r, acc_f, at < 0 ? tensor_get_f64(init, 0) : tensor_get_f64(x, at));
    }
    if (is_int)
        tensor_set_i64(out, o, acc_i);
    else
        tensor_set_f64(out, o, acc_f);
}

TensorStatus kern_reduce_window(TensorCtx *ctx, const Tensor *x, WindowReduction r, const Tensor *init,
                                const WindowDims *w, const int64_t *out_dims, Tensor **out)
{
    Tensor *dense;
    *out = NULL;
    if (init && (init->dtype != x->dtype || init->count != 1))
        return tensor_fail(ctx, TENSOR_ERR_ARG, "reduce_window: init must be one %s", dtype_name(x->dtype));
    TensorStatus s = tensor_contiguous(ctx, (Tensor *)x, &dense);
    if (s != TENSOR_OK)
        return s;
    if ((s = tensor_new(ctx, x->dtype, x->rank, out_dims, out)) == TENSOR_OK) {
        WindowWalk ww;
        walk_init(&ww, w, dense);
        for (int64_t o = 0; o < (*out)->count; o++)
            reduce_one(dense, init, *out, o, &ww, r);
    }
    tensor_release(dense);
    return s;
}

/* `compare select, a, b` of two elements of x. */
static bool select_keeps(const Tensor *x, int64_t a, int64_t b, WindowSelect select)
{
    if (dtype_is_int(x->dtype)) {
        int64_t u = tensor_get_i64(x, a), v = tensor_get_i64(x, b);
        return select == WINDOW_SELECT_GE ? u >= v : select == WINDOW_SELECT_GT ? u > v
               : select == WINDOW_SELECT_LE ? u <= v : u < v;
    }
    double u = tensor_get_f64(x, a), v = tensor_get_f64(x, b);
    return select == WINDOW_SELECT_GE ? u >= v : select == WINDOW_SELECT_GT ? u > v
           : select == WINDOW_SELECT_LE ? u <= v : u < v;
}

/* Source element o's window: the element the select keeps, walking the
 * window in order (it keeps the current one unless `compare` of it and
 * the next is false), -1 if the window holds none. */
static int64_t select_one(const Tensor *x, const int64_t *idx, const WindowWalk *ww, WindowSelect select)
{
    int64_t kp[SHARDC_MAX_RANK], best = -1, n = window_elems(ww->w, ww->rank);
    for (int64_t k = 0; k < n; k++) {
        unflatten(ww->rank, ww->w->size, k, kp);
        int64_t at = walk_at(ww, idx, kp);
        if (at < 0)
            continue;
        if (best < 0 || !select_keeps(x, best, at, select))
            best = at;
    }
    return best;
}

/* out = init everywhere (zeros without one), then the scatter's adds. */
static TensorStatus scatter_start(TensorCtx *ctx, const Tensor *x, const Tensor *init, Tensor **out)
{
    if (!init)
        return tensor_new(ctx, x->dtype, x->rank, x->dims, out);
    TensorStatus s = tensor_new_uninit(ctx, x->dtype, x->rank, x->dims, out);
    size_t size = dtype_size(x->dtype);
    for (int64_t i = 0; s == TENSOR_OK && i < (*out)->count; i++)
        memcpy((char *)(*out)->data + (size_t)i * size, init->data, size);
    return s;
}

TensorStatus kern_select_and_scatter(TensorCtx *ctx, const Tensor *x, const Tensor *src, const Tensor *init,
                                     const WindowDims *w, WindowSelect select, Tensor **out)
{
    Tensor *dx, *ds = NULL;
    *out = NULL;
    if (init && (init->dtype != x->dtype || init->count != 1))
        return tensor_fail(ctx, TENSOR_ERR_ARG, "select_and_scatter: init must be one %s", dtype_name(x->dtype));
    TensorStatus s = tensor_contiguous(ctx, (Tensor *)x, &dx);
    if (s == TENSOR_OK)
        s = tensor_contiguous(ctx, (Tensor *)src, &ds);
    if (s == TENSOR_OK)
        s = scatter_start(ctx, x, init, out);
    if (s == TENSOR_OK) {
        WindowWalk ww;
        walk_init(&ww, w, dx);
        bool is_int = dtype_is_int(x->dtype);
        int64_t idx[SHARDC_MAX_RANK];
        for (int64_t o = 0; o < ds->count; o++) {
            unflatten(ds->rank, ds->dims, o, idx);
            int64_t at = select_one(dx, idx, &ww, select);
            if (at < 0)
                continue;
            if (is_int)
                tensor_set_i64(*out, at, (int64_t)((uint64_t)tensor_get_i64(*out, at) + (uint64_t)tensor_get_i64(ds, o)));
            else
                tensor_set_f64(*out, at, tensor_get_f64(*out, at) + tensor_get_f64(ds, o));
        }
    }
    tensor_release(dx);
    tensor_release(ds);
    return s;
}
