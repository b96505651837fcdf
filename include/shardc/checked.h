/* Checked arithmetic on sizes (dims, element and byte counts, shard
 * counts), in one place. Dims reach INT64_MAX in hostile programs, and a
 * zero-element tensor may have any other dim that large, so the textbook
 * forms overflow: (n + k - 1) / k for a ceiling, a product of dims that
 * overflows before it meets the zero. Every size computation that a
 * program's shapes can push near int64's range goes through these. */
#ifndef SHARDC_CHECKED_H
#define SHARDC_CHECKED_H
#include <stdbool.h>
#include <stdint.h>

/* ceil(size / parts) for size >= 0 and parts >= 1, without the overflow
 * of (size + parts - 1) / parts. */
static inline int64_t size_ceil_div(int64_t size, int64_t parts)
{
    return size == 0 ? 0 : (size - 1) / parts + 1;
}

/* a * b and a + b into *out; false (and *out unchanged) on overflow. */
static inline bool size_mul(int64_t a, int64_t b, int64_t *out)
{
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r))
        return false;
    *out = r;
    return true;
}

static inline bool size_add(int64_t a, int64_t b, int64_t *out)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
        return false;
    *out = r;
    return true;
}

/* The product of n dims (the element count); 0 when any dim is 0,
 * however large the others. False on overflow of a nonzero product, or
 * for a dim below 0 (MLIR's dynamic `?`, TYPE_DYNAMIC_DIM), which has no
 * size to count. */
static inline bool size_product(const int64_t *dims, int n, int64_t *out)
{
    int64_t count = 1;
    bool overflow = false, zero = false;
    for (int i = 0; i < n; i++) {
        if (dims[i] > 0)
            overflow |= !size_mul(count, dims[i], &count);
        else if (dims[i] < 0)
            return false;
        else
            zero = true;
    }
    if (zero) {
        *out = 0;
        return true;
    }
    if (overflow)
        return false;
    *out = count;
    return true;
}

/* The size a dim is padded to when split `parts` ways:
 * parts * ceil(size / parts); false when that passes INT64_MAX. */
static inline bool size_padded(int64_t size, int64_t parts, int64_t *out)
{
    return size_mul(size_ceil_div(size, parts), parts, out);
}

#endif
