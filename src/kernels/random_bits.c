/* StableHLO's rng_bit_generator, bit for bit as XLA computes it
 * (xla/hlo/builder/lib/prng.cc, ThreeFryBitGenerator and
 * PhiloxBitGenerator, through RngBitGeneratorExpander). THREE_FRY: state
 * = [key, counter] as u64; the key's low and high words key Threefry-2x32
 * (20 rounds), the counters are the state's counter plus an element's
 * index. PHILOX: state = [key, counter low, counter high] (a u64[2] state
 * is [key, counter low] with the key as the counter's high half, as XLA's
 * expander reverses it); Philox-4x32 (10 rounds) on the 128-bit counter
 * plus an element's flat index / 4 (32-bit bits; / 2 for 64-bit). 8- and
 * 16-bit bits are the low bits of the 32-bit ones of the same shape.
 * Every element is computed from its global index alone, so a block of
 * the bits (a device's shard) is computed without the rest: that is what
 * the partitioner relies on. */
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

/* Philox-4x32, 10 rounds (Salmon et al., SC'11; Random123's
 * philox4x32_R(10, ...)): multipliers 0xD2511F53 and 0xCD9E8D57, the key
 * bumped by the Weyl constants 0x9E3779B9 and 0xBB67AE85 after each
 * round. */
void kern_philox4x32(const uint32_t key[2], const uint32_t ctr[4], uint32_t out[4])
{
    uint32_t k0 = key[0], k1 = key[1], x[4] = {ctr[0], ctr[1], ctr[2], ctr[3]};
    for (int round = 0; round < 10; round++) {
        uint64_t p0 = (uint64_t)x[0] * 0xD2511F53u, p1 = (uint64_t)x[2] * 0xCD9E8D57u;
        uint32_t y[4] = {(uint32_t)(p1 >> 32) ^ x[1] ^ k0, (uint32_t)p1, (uint32_t)(p0 >> 32) ^ x[3] ^ k1,
                         (uint32_t)p0};
        memcpy(x, y, sizeof x);
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    memcpy(out, x, sizeof x);
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
    bool philox;
    uint64_t key, counter, counter_high; /* counter_high: Philox's 128-bit counter's high half */
    int rank, width;                     /* width: the bits' bytes */
    const int64_t *global, *offsets;     /* the whole output's shape; this block's start */
} RngBlockArgs;

/* Philox's words of vector v (the 128-bit counter + v). */
static void philox_vector(const RngBlockArgs *a, uint64_t v, uint32_t out[4])
{
    uint64_t low = a->counter + v, high = a->counter_high + (low < a->counter);
    uint32_t ctr[4] = {(uint32_t)low, (uint32_t)(low >> 32), (uint32_t)high, (uint32_t)(high >> 32)};
    kern_philox4x32((const uint32_t[]){(uint32_t)a->key, (uint32_t)(a->key >> 32)}, ctr, out);
}

/* PhiloxRngBit32/64: flat index f takes word f % 4 of vector f / 4 (64-bit
 * bits: words 2(f % 2) and 2(f % 2) + 1 of vector f / 2, low first). */
static uint64_t philox_element(const RngBlockArgs *a, const int64_t *g)
{
    uint64_t flat = 0;
    for (int d = 0; d < a->rank; d++)
        flat = flat * (uint64_t)a->global[d] + (uint64_t)g[d];
    uint32_t w[4];
    if (a->width == 8) {
        philox_vector(a, flat / 2, w);
        return (uint64_t)w[2 * (flat % 2)] | (uint64_t)w[2 * (flat % 2) + 1] << 32;
    }
    philox_vector(a, flat / 4, w);
    return w[flat % 4];
}

static uint64_t threefry_element(const RngBlockArgs *a, const RngShape *s, const int64_t *g)
{
    int word;
    uint64_t c = a->counter + element_counter(s, g, &word);
    return a->width == 8 ? threefry_u64(a->key, c) : threefry_word(a->key, c, word);
}

/* The element's bits stored in its width: 8- and 16-bit ones the low bits
 * of the 32-bit word (XLA's ConvertElementType to u8/u16). */
static void store_bits(Tensor *out, int64_t e, int width, uint64_t v)
{
    switch (width) {
    case 8: ((uint64_t *)out->data)[e] = v; break;
    case 4: ((uint32_t *)out->data)[e] = (uint32_t)v; break;
    case 2: ((uint16_t *)out->data)[e] = (uint16_t)v; break;
    default: ((uint8_t *)out->data)[e] = (uint8_t)v; break;
    }
}

/* Fill out (a block of the bits at a->offsets) element by element;
 * elements past the global shape (a padded shard) are zeros. */
static void fill_block(const RngBlockArgs *a, const RngShape *s, Tensor *out)
{
    int64_t idx[SHARDC_MAX_RANK] = {0}, g[SHARDC_MAX_RANK];
    for (int64_t e = 0; e < out->count; e++) {
        bool inside = true;
        for (int d = 0; d < a->rank; d++) {
            g[d] = a->offsets[d] + idx[d];
            inside &= g[d] < a->global[d];
        }
        uint64_t v = !inside ? 0 : a->philox ? philox_element(a, g) : threefry_element(a, s, g);
        store_bits(out, e, a->width, v);
        for (int d = a->rank - 1; d >= 0 && ++idx[d] == out->dims[d]; d--)
            idx[d] = 0;
    }
}

/* The state's checks: u64[2] for THREE_FRY, u64[2] or u64[3] for PHILOX. */
static TensorStatus check_state(TensorCtx *ctx, const Tensor *state, bool philox)
{
    bool size_ok = state->rank == 1 && (state->dims[0] == 2 || (philox && state->dims[0] == 3));
    if (state->dtype != DT_U64 || !size_ok)
        return tensor_fail(ctx, TENSOR_ERR_SHAPE, philox ? "rng_bit_generator: PHILOX takes a u64[2] or u64[3] state"
                                                         : "rng_bit_generator: THREE_FRY takes a u64[2] state");
    return TENSOR_OK;
}

/* The block's arguments from the state, and the counter's advance: the
 * generator calls of the whole output (Philox: 4 words a call, 2 of 64
 * bits; Threefry: the shape's counters). */
static RngBlockArgs block_args(const Tensor *state, const RngBitsRequest *req, const RngShape *s, uint64_t *advance)
{
    const uint64_t *st = state->data;
    int width = (int)dtype_size(req->dtype);
    RngBlockArgs a = {req->philox, st[0], st[1], 0, req->rank, width, req->global_dims, req->offsets};
    if (!req->philox) {
        *advance = s->counters;
        return a;
    }
    a.counter_high = state->dims[0] == 3 ? st[2] : st[0];
    uint64_t n = 1;
    for (int d = 0; d < req->rank; d++)
        n *= (uint64_t)req->global_dims[d];
    *advance = width == 8 ? (n + 1) / 2 : (n + 3) / 4;
    return a;
}

/* The new state: the key, the counter advanced (Philox's u64[3] with the
 * carry into its high half; a u64[2] state keeps only the low half). */
static void write_state(Tensor *ns, const RngBlockArgs *a, uint64_t advance)
{
    uint64_t *out = ns->data, low = a->counter + advance;
    out[0] = a->key;
    out[1] = low;
    if (ns->dims[0] == 3)
        out[2] = a->counter_high + (low < a->counter);
}

TensorStatus kern_rng_bit_generator(TensorCtx *ctx, const Tensor *state, const RngBitsRequest *req,
                                    Tensor **new_state, Tensor **bits)
{
    *new_state = *bits = NULL;
    if (check_state(ctx, state, req->philox) != TENSOR_OK)
        return ctx->status;
    size_t width = dtype_size(req->dtype);
    if (width != 1 && width != 2 && width != 4 && width != 8)
        return tensor_fail(ctx, TENSOR_ERR_DTYPE, "rng_bit_generator: %s bits are not computed (8-, 16-, 32- and "
                           "64-bit types only)", dtype_name(req->dtype));
    RngShape s = rng_shape(req->rank, req->global_dims, width <= 4);
    uint64_t advance;
    RngBlockArgs a = block_args(state, req, &s, &advance);
    if (tensor_new(ctx, DT_U64, 1, state->dims, new_state) != TENSOR_OK)
        return ctx->status;
    if (tensor_new_uninit(ctx, req->dtype, req->rank, req->local_dims, bits) != TENSOR_OK) {
        tensor_release(*new_state);
        *new_state = NULL;
        return ctx->status;
    }
    write_state(*new_state, &a, advance);
    fill_block(&a, &s, *bits);
    return TENSOR_OK;
}
