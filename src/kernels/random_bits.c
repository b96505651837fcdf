/* StableHLO's rng_bit_generator, bit for bit as XLA computes it
 * (xla/hlo/builder/lib/prng.cc, ThreeFryBitGenerator, through
 * RngBitGeneratorExpander): state = [key, counter] as u64; the key's low
 * and high words key Threefry-2x32 (20 rounds), the counters are the
 * state's counter plus an element's index. Every element is computed from
 * its global index alone, so a block of the bits (a device's shard) is
 * computed without the rest: that is what the partitioner relies on. */
#include <string.h>
#include "shardc/kernels.h"

static inline uint32_t rotl32(uint32_t x, unsigned r) { return (x << r) | (x >> (32u - r)); }

/* Threefry-2x32, 20 rounds (Salmon et al., SC'11; Random123's
 * threefry2x32_R(20, ...)): key injection every 4 rounds, rotation
 * constants R_32x2 and the Skein parity constant 0x1BD11BDA. */
void kern_threefry2x32(const uint32_t key[2], const uint32_t ctr[2], uint32_t out[2])
{
    static const unsigned rot[8] = {13, 15, 26, 6, 17, 29, 16, 24};
    uint32_t ks[3] = {key[0], key[1], key[0] ^ key[1] ^ 0x1BD11BDAu};
    uint32_t x0 = ctr[0] + ks[0], x1 = ctr[1] + ks[1];
    for (unsigned round = 0; round < 20; round++) {
        x0 += x1;
        x1 = rotl32(x1, rot[round % 8]) ^ x0;
        if (round % 4 == 3) { /* inject key s = (round + 1) / 4 */
            unsigned s = (round + 1) / 4;
            x0 += ks[s % 3];
            x1 += ks[(s + 1) % 3] + s;
        }
    }
    out[0] = x0;
    out[1] = x1;
}

static uint32_t threefry_word(uint64_t key, uint64_t counter, int word)
{
    uint32_t k[2] = {(uint32_t)key, (uint32_t)(key >> 32)};
    uint32_t c[2] = {(uint32_t)counter, (uint32_t)(counter >> 32)};
    uint32_t out[2];
    kern_threefry2x32(k, c, out);
    return out[word];
}

static uint64_t threefry_u64(uint64_t key, uint64_t counter)
{
    return (uint64_t)threefry_word(key, counter, 0) | (uint64_t)threefry_word(key, counter, 1) << 32;
}

/* XLA's SplitShapeIntoHalves: 32-bit bits come in pairs (one Threefry
 * call, two words) along the first even dim, else the first largest one;
 * the pair's words are adjacent along it. -1 for a scalar. */
static int split_dim(int rank, const int64_t *dims)
{
    for (int d = 0; d < rank; d++)
        if (dims[d] % 2 == 0)
            return d;
    int s = rank ? 0 : -1;
    for (int d = 1; d < rank; d++)
        if (dims[d] > dims[s])
            s = d;
    return s;
}

typedef struct RngShape {
    int rank, split;         /* split: the paired dim of 32-bit bits, -1 for none */
    int64_t dims[SHARDC_MAX_RANK]; /* the global shape, halved along split */
    uint64_t counters;       /* Threefry calls of the whole output */
} RngShape;

static RngShape rng_shape(int rank, const int64_t *global, bool words32)
{
    RngShape s = {.rank = rank, .split = words32 ? split_dim(rank, global) : -1, .counters = 1};
    for (int d = 0; d < rank; d++) {
        s.dims[d] = d == s.split ? (global[d] + 1) / 2 : global[d];
        s.counters *= (uint64_t)s.dims[d];
    }
    return s;
}

/* The counter offset and word of the element at global index g. */
static uint64_t element_counter(const RngShape *s, const int64_t *g, int *word)
{
    uint64_t linear = 0;
    *word = 0;
    for (int d = 0; d < s->rank; d++) {
        int64_t i = g[d];
        if (d == s->split) {
            *word = (int)(i % 2);
            i /= 2;
        }
        linear = linear * (uint64_t)s->dims[d] + (uint64_t)i;
    }
    return linear;
}

typedef struct RngBlockArgs {
    uint64_t key, counter;
    int rank;
    const int64_t *global, *offsets; /* the whole output's shape; this block's start */
} RngBlockArgs;

/* Fill out (a block of the bits at a->offsets) element by element;
 * elements past the global shape (a padded shard) are zeros. */
static void fill_block(const RngBlockArgs *a, const RngShape *s, Tensor *out)
{
    int64_t idx[SHARDC_MAX_RANK] = {0}, g[SHARDC_MAX_RANK];
    bool wide = dtype_size(out->dtype) == 8;
    for (int64_t e = 0; e < out->count; e++) {
        bool inside = true;
        for (int d = 0; d < a->rank; d++) {
            g[d] = a->offsets[d] + idx[d];
            inside &= g[d] < a->global[d];
        }
        int word;
        uint64_t c = a->counter + element_counter(s, g, &word);
        if (wide)
            ((uint64_t *)out->data)[e] = inside ? threefry_u64(a->key, c) : 0;
        else
            ((uint32_t *)out->data)[e] = inside ? threefry_word(a->key, c, word) : 0;
        for (int d = a->rank - 1; d >= 0 && ++idx[d] == out->dims[d]; d--)
            idx[d] = 0;
    }
}

TensorStatus kern_rng_bit_generator(TensorCtx *ctx, const Tensor *state, const RngBitsRequest *req,
                                    Tensor **new_state, Tensor **bits)
{
    *new_state = *bits = NULL;
    if (state->dtype != DT_U64 || state->rank != 1 || state->dims[0] != 2)
        return tensor_fail(ctx, TENSOR_ERR_SHAPE, "rng_bit_generator: THREE_FRY takes a u64[2] state");
    size_t width = dtype_size(req->dtype);
    if (width != 4 && width != 8)
        return tensor_fail(ctx, TENSOR_ERR_DTYPE, "rng_bit_generator: %s bits are not computed (32- and "
                           "64-bit types only)", dtype_name(req->dtype));
    const uint64_t *st = state->data;
    RngShape s = rng_shape(req->rank, req->global_dims, width == 4);
    RngBlockArgs a = {st[0], st[1], req->rank, req->global_dims, req->offsets};
    if (tensor_new(ctx, DT_U64, 1, state->dims, new_state) != TENSOR_OK)
        return ctx->status;
    if (tensor_new_uninit(ctx, req->dtype, req->rank, req->local_dims, bits) != TENSOR_OK) {
        tensor_release(*new_state);
        *new_state = NULL;
        return ctx->status;
    }
    ((uint64_t *)(*new_state)->data)[0] = st[0];
    ((uint64_t *)(*new_state)->data)[1] = st[1] + s.counters;
    fill_block(&a, &s, *bits);
    return TENSOR_OK;
}
