/* Vectorisable f32 exp, tanh and logistic for the elementwise kernels
 * (src/kernels/elementwise.c; accuracy and method in docs/kernels.md).
 *
 * libm's expf/tanhf are calls GCC cannot vectorise: a gelu loop spent
 * 12-16 ns per element in tanhf. These are straight-line code (no calls,
 * no branches: selects are bit masks, because -ftrapping-math keeps GCC
 * from if-converting float compares), force-inlined, so a
 * TENSOR_VECTOR_LOOP over them becomes SIMD code at -O2. Every operation
 * is a single IEEE operation (no FMA; ISO C mode does not contract a*b+c),
 * so the results are the same bits on every x86-64 machine and in the
 * SSE2 and AVX2 versions of a loop.
 *
 * Maximum errors against the correctly rounded result, measured over every
 * finite f32 (tests/unit/test_kernels.c checks a dense sweep):
 * vm_expf 1.05 ulp, vm_tanhf 1.07 ulp, vm_logisticf 2.40 ulp (glibc 2.36:
 * expf 0.50, tanhf 2.19; 1 / (1 + expf(-x)) loses the results below
 * 2^-126 entirely, as expf(-x) overflows). */
#ifndef SHARDC_VECMATH_H
#define SHARDC_VECMATH_H
#include <stdint.h>

#define VM_INLINE static inline __attribute__((always_inline))

typedef union VmBits {
    float f;
    int32_t i;
} VmBits;

VM_INLINE float vm_from_bits(int32_t i) { return ((VmBits){.i = i}).f; }
VM_INLINE int32_t vm_bits(float f) { return ((VmBits){.f = f}).i; }

/* c ? a : b, as bit masks (all ones where c). */
VM_INLINE float vm_select(int c, float a, float b)
{
    int32_t m = -(int32_t)c;
    return vm_from_bits((vm_bits(a) & m) | (vm_bits(b) & ~m));
}

/* 2^k for -126 <= k <= 127, built in unsigned arithmetic: for x = NaN, k
 * is garbage (the result is discarded) and must not overflow a shift. */
VM_INLINE float vm_pow2(int32_t k)
{
    return vm_from_bits((int32_t)((uint32_t)(k + 127) << 23));
}

/* e^r for |r| <= ln2/2: the Taylor polynomial of degree 7 (truncation
 * error below 1e-8 relative), 1 + r added last. */
VM_INLINE float vm_exp_reduced(float r)
{
    float p = 1.0f / 5040.0f;
    p = p * r + 1.0f / 720.0f;
    p = p * r + 1.0f / 120.0f;
    p = p * r + 1.0f / 24.0f;
    p = p * r + 1.0f / 6.0f;
    p = p * r + 0.5f;
    return (p * r * r + r) + 1.0f;
}

/* e^x = 2^k e^r with k = round(x / ln2) (the 1.5 * 2^23 shifter leaves k
 * in the low mantissa bits) and r = x - k ln2 in two steps (Cody-Waite:
 * k * 0x1.62e4p-1 is exact for |k| < 2^8). 2^k is applied as two
 * halves, so results near overflow and in the subnormal range round once.
 * x is clamped to [-104, 89], beyond which e^x is 0 or inf anyway. */
VM_INLINE float vm_expf(float x)
{
    const float shifter = 0x1.8p23f;
    float u = vm_select(x < -104.0f, -104.0f, x);
    u = vm_select(u > 89.0f, 89.0f, u);
    float s = u * 0x1.715476p0f + shifter;
    float k = s - shifter;
    float r = (u - k * 0x1.62e4p-1f) - k * 0x1.7f7d1cp-20f;
    int32_t ki = vm_bits(s) - vm_bits(shifter);
    int32_t k1 = ki >> 1, k2 = ki - k1;
    float y = vm_exp_reduced(r) * vm_pow2(k1) * vm_pow2(k2);
    return vm_select(x != x, x, y);
}

/* tanh(a) for 0 <= a < 1/sqrt 2: a + a^3 P(a^2), P of degree 5 fitted at
 * Chebyshev nodes to (tanh(a) - a) / a^3 on a^2 in [0, 1/2] (error of the
 * fit with f32 coefficients: 9e-9 relative). */
VM_INLINE float vm_tanh_small(float a)
{
    float s = a * a;
    float q = 0x1.0b3ea8p-9f;
    q = q * s - 0x1.091136p-7f;
    q = q * s + 0x1.63347ap-6f;
    q = q * s - 0x1.b9ee70p-5f;
    q = q * s + 0x1.111096p-3f;
    q = q * s - 0x1.555554p-2f;
    return a + a * s * q;
}

/* tanh(x): the polynomial near 0; above 1/sqrt 2 (where tanh > 0.6, so
 * the subtraction loses nothing) 1 - 2 / (e^2|x| + 1), which is exactly 1
 * once e^2|x| overflows. Odd, NaN in NaN out. */
VM_INLINE float vm_tanhf(float x)
{
    float a = vm_from_bits(vm_bits(x) & 0x7fffffff);
    float big = 1.0f - 2.0f / (vm_expf(2.0f * a) + 1.0f);
    float t = vm_select(a < 0.70710678f, vm_tanh_small(a), big);
    t = vm_from_bits(vm_bits(t) | (vm_bits(x) & INT32_MIN));
    return vm_select(x != x, x, t);
}

/* 1 / (1 + e^-x), as e^x / (1 + e^x) for x < 0: e^-|x| never overflows,
 * and tiny results keep their precision down to the subnormals. */
VM_INLINE float vm_logisticf(float x)
{
    float e = vm_expf(-vm_from_bits(vm_bits(x) & 0x7fffffff));
    float y = vm_select(x < 0.0f, e, 1.0f) / (1.0f + e);
    return vm_select(x != x, x, y);
}

#endif
