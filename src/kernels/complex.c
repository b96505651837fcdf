/* Complex numbers taken apart and put together (StableHLO's real, imag and
 * complex): c64 is two f32 parts, c128 two f64 parts, interleaved. */
#include "shardc/kernels.h"

/* Part `which` (0 real, 1 imaginary) of each element of x. */
static TensorStatus take_part(TensorCtx *ctx, const Tensor *x, int which, Tensor **out)
{
    *out = NULL;
    if (!dtype_is_complex(x->dtype) && !dtype_is_float(x->dtype))
        return tensor_fail(ctx, TENSOR_ERR_DTYPE, "%s of %s: needs a complex or float tensor",
                           which ? "imag" : "real", dtype_name(x->dtype));
    Tensor *dense;
    TensorStatus st = tensor_contiguous(ctx, (Tensor *)x, &dense);
    if (st == TENSOR_OK && !dtype_is_complex(x->dtype)) /* a float is its own real part */
        st = which ? tensor_new(ctx, x->dtype, x->rank, x->dims, out) : tensor_clone(ctx, dense, out);
    else if (st == TENSOR_OK)
        st = tensor_new_uninit(ctx, dtype_complex_part(x->dtype), x->rank, x->dims, out);
    if (st == TENSOR_OK && dtype_is_complex(x->dtype)) {
        size_t part = dtype_size((*out)->dtype);
        const char *src = dense->data;
        char *dst = (*out)->data;
        for (int64_t i = 0; i < x->count; i++)
            memcpy(dst + (size_t)i * part, src + (size_t)(2 * i + which) * part, part);
    }
    tensor_release(dense);
    return st;
}

TensorStatus kern_real(TensorCtx *ctx, const Tensor *x, Tensor **out) { return take_part(ctx, x, 0, out); }
TensorStatus kern_imag(TensorCtx *ctx, const Tensor *x, Tensor **out) { return take_part(ctx, x, 1, out); }

TensorStatus kern_complex(TensorCtx *ctx, const Tensor *re, const Tensor *im, Tensor **out)
{
    *out = NULL;
    DType dt;
    if (re->dtype != im->dtype || !dtype_complex_of(re->dtype, &dt) || !tensor_same_shape(re, im))
        return tensor_fail(ctx, TENSOR_ERR_DTYPE, "complex: needs two f32 or two f64 tensors of one shape");
    Tensor *a, *b = NULL;
    TensorStatus st = tensor_contiguous(ctx, (Tensor *)re, &a);
    if (st != TENSOR_OK)
        return st;
    if ((st = tensor_contiguous(ctx, (Tensor *)im, &b)) == TENSOR_OK &&
        (st = tensor_new_uninit(ctx, dt, re->rank, re->dims, out)) == TENSOR_OK) {
        size_t part = dtype_size(re->dtype);
        char *dst = (*out)->data;
        for (int64_t i = 0; i < re->count; i++) {
            memcpy(dst + (size_t)(2 * i) * part, (const char *)a->data + (size_t)i * part, part);
            memcpy(dst + (size_t)(2 * i + 1) * part, (const char *)b->data + (size_t)i * part, part);
        }
    }
    tensor_release(a);
    tensor_release(b);
    return st;
}
