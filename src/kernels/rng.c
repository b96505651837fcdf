/* Deterministic pseudo-random tensor data: a counter-based splitmix64, so an
 * element depends only on (seed, stream, flat index). A device can therefore
 * generate exactly its shard of a global random tensor, and results never
 * depend on fill order or threading. */
#include "shardc/kernels.h"
#include <string.h>

static const uint64_t GOLDEN_GAMMA = 0x9e3779b97f4a7c15ull;

/* The splitmix64 output function (Steele, Lea, Flood 2014). */
static inline uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static inline uint64_t stream_key(uint64_t seed, uint64_t stream)
{
    return mix64(mix64(seed) ^ (stream * GOLDEN_GAMMA + 0x632be59bd9b4e019ull));
}

/* Element `index` of the splitmix64 sequence that starts at `key`. */
static inline uint64_t counter_bits(uint64_t key, uint64_t index)
{
    return mix64(key + (index + 1) * GOLDEN_GAMMA);
}

uint64_t rng_bits(uint64_t seed, uint64_t stream, uint64_t index)
{
    return counter_bits(stream_key(seed, stream), index);
}

/* Uniform on the grid k * 2^-23 in [-1, 1): exact in f32. */
static inline float map_f32(uint64_t bits)
{
    return (float)((int64_t)(bits >> 40) - (1ll << 23)) * 0x1p-23f;
}

static inline double map_f64(uint64_t bits)
{
    return (double)((int64_t)(bits >> 11) - (1ll << 52)) * 0x1p-52;
}

/* Truncating the f32 sample (rather than rounding) keeps it below 1. */
static inline uint16_t map_bf16(uint64_t bits)
{
    float f = map_f32(bits);
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return (uint16_t)(u >> 16);
}

/* Uniform on the grid k * 2^-10 in [-1, 1): 11 significant bits at most,
 * so exact in f16. */
static inline uint16_t map_f16(uint64_t bits)
{
    return f32_to_f16((float)((int64_t)(bits >> 53) - (1ll << 10)) * 0x1p-10f);
}

static inline int8_t map_i8(uint64_t bits) { return (int8_t)((int)(bits >> 60) - 8); }
static inline int32_t map_i32(uint64_t bits) { return (int32_t)(bits >> 60) - 8; }
static inline int64_t map_i64(uint64_t bits) { return (int64_t)(bits >> 60) - 8; }
static inline uint32_t map_u32(uint64_t bits) { return (uint32_t)(bits >> 60); }
static inline uint64_t map_u64(uint64_t bits) { return bits >> 60; }
static inline uint8_t map_bool(uint64_t bits) { return (uint8_t)(bits >> 63); }

typedef void (*FillFn)(void *data, int64_t n, uint64_t key);

#define RNG_FILL(DT, T, MAP)                                                         \
    static void fill_##DT(void *data, int64_t n, uint64_t key)                       \
    {                                                                                \
        T *y = data;                                                                 \
        for (int64_t i = 0; i < n; i++)                                              \
            y[i] = MAP(counter_bits(key, (uint64_t)i));                              \
    }
RNG_FILL(F32, float, map_f32)
RNG_FILL(F64, double, map_f64)
RNG_FILL(BF16, uint16_t, map_bf16)
RNG_FILL(F16, uint16_t, map_f16)
RNG_FILL(I8, int8_t, map_i8)
RNG_FILL(I32, int32_t, map_i32)
RNG_FILL(I64, int64_t, map_i64)
RNG_FILL(U32, uint32_t, map_u32)
RNG_FILL(U64, uint64_t, map_u64)
RNG_FILL(BOOL, uint8_t, map_bool)

/* A complex element's real and imaginary parts are parts 2i and 2i+1 of
 * the stream, each uniform like its part type's. */
static void fill_C64(void *data, int64_t n, uint64_t key) { fill_F32(data, 2 * n, key); }
static void fill_C128(void *data, int64_t n, uint64_t key) { fill_F64(data, 2 * n, key); }

/* A token holds no data: its one byte is 0 whatever the seed. */
static void fill_TOKEN(void *data, int64_t count, uint64_t key)
{
    (void)key;
    memset(data, 0, (size_t)count);
}

static const FillFn fill_fns[DT_COUNT] = {
    [DT_F32] = fill_F32, [DT_F64] = fill_F64, [DT_BF16] = fill_BF16, [DT_F16] = fill_F16,
    [DT_I8] = fill_I8,   [DT_I32] = fill_I32, [DT_I64] = fill_I64,   [DT_U32] = fill_U32,
    [DT_U64] = fill_U64,
    [DT_BOOL] = fill_BOOL, [DT_TOKEN] = fill_TOKEN, [DT_C64] = fill_C64, [DT_C128] = fill_C128,
};

void rng_fill(Tensor *t, uint64_t seed, uint64_t stream)
{
    fill_fns[t->dtype](t->data, t->count, stream_key(seed, stream));
}

TensorStatus kern_random(TensorCtx *ctx, DType dtype, int rank, const int64_t *dims,
                         uint64_t seed, uint64_t stream, Tensor **out)
{
    TensorStatus st = tensor_new_uninit(ctx, dtype, rank, dims, out);
    if (st == TENSOR_OK)
        rng_fill(*out, seed, stream);
    return st;
}
