/* batch_norm_inference, batch_norm_training and batch_norm_grad
 * (StableHLO's semantics). Every input is widened to f64 and every result
 * rounded once to the operand's type, so f32 results do not depend on
 * the order the statistics are summed in. */
#include "shardc/kernels.h"
#include <math.h>

/* The operand seen as [outer, features, inner] around the feature dim. */
typedef struct BnShape {
    int64_t outer, features, inner;
} BnShape;

static BnShape bn_shape(const Tensor *x, int64_t feature)
{
    BnShape s = {1, x->dims[feature], 1};
    for (int d = 0; d < x->rank; d++) {
        if (d < feature)
            s.outer *= x->dims[d];
        else if (d > feature)
            s.inner *= x->dims[d];
    }
    return s;
}

static int64_t bn_feature_of(const BnShape *s, int64_t i) { return i / s->inner % s->features; }

/* f64 copies of in[0..n) into w (released by release_all). */
static TensorStatus widen_all(TensorCtx *ctx, Tensor *const *in, int n, Tensor **w)
{
    for (int i = 0; i < n; i++)
        w[i] = NULL;
    if (!dtype_is_float(in[0]->dtype))
        return tensor_fail(ctx, TENSOR_ERR_DTYPE, "batch_norm needs float operands, got %s", dtype_name(in[0]->dtype));
    for (int i = 0; i < n; i++) {
        TensorStatus st = tensor_convert(ctx, in[i], DT_F64, &w[i]);
        if (st != TENSOR_OK)
            return st;
    }
    return TENSOR_OK;
}

static void release_all(Tensor **t, int n)
{
    for (int i = 0; i < n; i++) {
        tensor_release(t[i]);
        t[i] = NULL;
    }
}

/* Rounds each f64 result w[i] to `dtype` into out[i]; releases w. */
static TensorStatus narrow_all(TensorCtx *ctx, Tensor **w, int n, DType dtype, Tensor **out)
{
    TensorStatus st = TENSOR_OK;
    for (int i = 0; i < n; i++) {
        out[i] = NULL;
        if (st == TENSOR_OK)
            st = tensor_convert(ctx, w[i], dtype, &out[i]);
    }
    release_all(w, n);
    if (st != TENSOR_OK)
        release_all(out, n);
    return st;
}

/* y = scale · (x - mean) / sqrt(var + epsilon) + offset per feature. */
static void normalize(const BnShape *s, const double *x, const double *scale, const double *offset,
                      const double *mean, const double *var, double epsilon, double *y, int64_t count)
{
    for (int64_t i = 0; i < count; i++) {
        int64_t f = bn_feature_of(s, i);
        y[i] = scale[f] * (x[i] - mean[f]) / sqrt(var[f] + epsilon) + offset[f];
    }
}

TensorStatus kern_batch_norm_inference(TensorCtx *ctx, Tensor *const in[5], double epsilon, int64_t feature,
                                       Tensor **out)
{
    Tensor *w[5], *y = NULL;
    BnShape s = bn_shape(in[0], feature);
    TensorStatus st = widen_all(ctx, in, 5, w);
    if (st == TENSOR_OK)
        st = tensor_new_uninit(ctx, DT_F64, in[0]->rank, in[0]->dims, &y);
    if (st == TENSOR_OK)
        normalize(&s, w[0]->data, w[1]->data, w[2]->data, w[3]->data, w[4]->data, epsilon, y->data, in[0]->count);
    release_all(w, 5);
    *out = NULL;
    return st == TENSOR_OK ? narrow_all(ctx, &y, 1, in[0]->dtype, out) : (tensor_release(y), st);
}

/* Per feature: the mean and the biased variance of x. */
static void moments(const BnShape *s, const double *x, int64_t count, double *mean, double *var)
{
    double n = (double)(s->outer * s->inner);
    for (int64_t i = 0; i < count; i++)
        mean[bn_feature_of(s, i)] += x[i];
    for (int64_t f = 0; f < s->features; f++)
        mean[f] = n > 0 ? mean[f] / n : NAN;
    for (int64_t i = 0; i < count; i++) {
        double c = x[i] - mean[bn_feature_of(s, i)];
        var[bn_feature_of(s, i)] += c * c;
    }
    for (int64_t f = 0; f < s->features; f++)
        var[f] = n > 0 ? var[f] / n : NAN;
}

TensorStatus kern_batch_norm_training(TensorCtx *ctx, Tensor *const in[3], double epsilon, int64_t feature,
                                      Tensor *out[3])
{
    Tensor *w[3], *r[3] = {NULL, NULL, NULL};
    BnShape s = bn_shape(in[0], feature);
    TensorStatus st = widen_all(ctx, in, 3, w);
    if (st == TENSOR_OK)
        st = tensor_new_uninit(ctx, DT_F64, in[0]->rank, in[0]->dims, &r[0]);
    for (int i = 1; i < 3 && st == TENSOR_OK; i++)
        st = tensor_new(ctx, DT_F64, 1, &s.features, &r[i]);
    if (st == TENSOR_OK) {
        moments(&s, w[0]->data, in[0]->count, r[1]->data, r[2]->data);
        normalize(&s, w[0]->data, w[1]->data, w[2]->data, r[1]->data, r[2]->data, epsilon, r[0]->data,
                  in[0]->count);
    }
    release_all(w, 3);
    if (st != TENSOR_OK) {
        release_all(r, 3);
        return st;
    }
    return narrow_all(ctx, r, 3, in[0]->dtype, out);
}

/* Per feature sums of grad_output (grad_offset), of grad_output times
 * the centred operand (i3 of the StableHLO formula) and of grad_output
 * times the normalized operand (grad_scale). */
static void grad_sums(const BnShape *s, const double *const *v, double epsilon, int64_t count, double *sum_dy,
                      double *sum_dy_c, double *grad_scale)
{
    const double *x = v[0], *mean = v[2], *var = v[3], *dy = v[4];
    for (int64_t i = 0; i < count; i++) {
        int64_t f = bn_feature_of(s, i);
        double c = x[i] - mean[f];
        sum_dy[f] += dy[i];
        sum_dy_c[f] += dy[i] * c;
        grad_scale[f] += dy[i] * c / sqrt(var[f] + epsilon);
    }
}

/* grad_operand = scale / stddev / N · (N·dy - Σdy - c · Σ(dy·c) / (var + ε)). */
static void grad_operand(const BnShape *s, const double *const *v, double epsilon, int64_t count,
                         const double *sum_dy, const double *sum_dy_c, double *dx)
{
    const double *x = v[0], *scale = v[1], *mean = v[2], *var = v[3], *dy = v[4];
    double n = (double)(s->outer * s->inner);
    for (int64_t i = 0; i < count; i++) {
        int64_t f = bn_feature_of(s, i);
        double c = x[i] - mean[f], ve = var[f] + epsilon;
        dx[i] = scale[f] / sqrt(ve) / n * (dy[i] * n - sum_dy[f] - c * sum_dy_c[f] / ve);
    }
}

TensorStatus kern_batch_norm_grad(TensorCtx *ctx, Tensor *const in[5], double epsilon, int64_t feature,
                                  Tensor *out[3])
{
    Tensor *w[5], *r[4] = {NULL, NULL, NULL, NULL};
    BnShape s = bn_shape(in[0], feature);
    TensorStatus st = widen_all(ctx, in, 5, w);
    if (st == TENSOR_OK)
        st = tensor_new_uninit(ctx, DT_F64, in[0]->rank, in[0]->dims, &r[0]);
    for (int i = 1; i < 4 && st == TENSOR_OK; i++)
        st = tensor_new(ctx, DT_F64, 1, &s.features, &r[i]);
    if (st == TENSOR_OK) {
        const double *v[5] = {w[0]->data, w[1]->data, w[2]->data, w[3]->data, w[4]->data};
        /* r[1] grad_scale, r[2] grad_offset (Σdy), r[3] Σ(dy·c) */
        grad_sums(&s, v, epsilon, in[0]->count, r[2]->data, r[3]->data, r[1]->data);
        grad_operand(&s, v, epsilon, in[0]->count, r[2]->data, r[3]->data, r[0]->data);
    }
    release_all(w, 5);
    tensor_release(r[3]);
    if (st != TENSOR_OK) {
        release_all(r, 3);
        return st;
    }
    return narrow_all(ctx, r, 3, in[0]->dtype, out);
}
