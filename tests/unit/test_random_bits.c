/* Unit tests of rng_bit_generator's kernel (src/kernels/random_bits.c):
 * Threefry-2x32 and Philox-4x32 against published known answers, XLA's
 * layout of the bits (32, 64, and 8/16 as the low bits of 32), and blocks
 * of the output equal to the whole output's blocks. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include "shardc/kernels.h"
#include "tensor_support.h"

static void check_threefry(uint32_t c0, uint32_t c1, uint32_t k0, uint32_t k1, uint32_t o0, uint32_t o1)
{
    uint32_t out[2];
    kern_threefry2x32((const uint32_t[]){k0, k1}, (const uint32_t[]){c0, c1}, out);
    assert_int_equal(out[0], o0);
    assert_int_equal(out[1], o1);
}

/* Random123's known-answer vectors (tests/kat_vectors, the three
 * "threefry2x32 20" lines: counter words, key words, output words). */
static void test_threefry_random123_kat(void **state)
{
    (void)state;
    check_threefry(0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x6b200159, 0x99ba4efe);
    check_threefry(0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x1cb996fc, 0xbb002be7);
    check_threefry(0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xc4923a9c, 0x483df7a0);
}

/* JAX: jax.random.bits(jax.random.key(0), (4,)) prints
 * [4146024105 967050713 2718843009 1272950319] (JAX's documentation,
 * "Pseudorandom numbers", and random.split(key(0)) printing the same
 * words as two keys): the counts [0, 1, 2, 3] are hashed as the pairs
 * (0, 2) and (1, 3) under the key (0, 0), first words then second. */
static void test_threefry_jax_key0(void **state)
{
    (void)state;
    check_threefry(0, 2, 0, 0, 4146024105u, 2718843009u);
    check_threefry(1, 3, 0, 0, 967050713u, 1272950319u);
}

static void check_philox(const uint32_t ctr[4], uint32_t k0, uint32_t k1, const uint32_t want[4])
{
    uint32_t out[4];
    kern_philox4x32((const uint32_t[]){k0, k1}, ctr, out);
    for (int i = 0; i < 4; i++)
        assert_int_equal(out[i], want[i]);
}

/* Random123's known-answer vectors (tests/kat_vectors, the three
 * "philox4x32 10" lines: counter words, key words, output words). */
static void test_philox_random123_kat(void **state)
{
    (void)state;
    check_philox((const uint32_t[]){0, 0, 0, 0}, 0, 0,
                 (const uint32_t[]){0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8});
    check_philox((const uint32_t[]){0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, 0xffffffff, 0xffffffff,
                 (const uint32_t[]){0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd});
    check_philox((const uint32_t[]){0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, 0xa4093822, 0x299f31d0,
                 (const uint32_t[]){0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1});
}

static Tensor *state_of(uint64_t key, uint64_t counter)
{
    TensorCtx ctx;
    tensor_ctx_init(&ctx, NULL);
    Tensor *t;
    assert_int_equal(tensor_new(&ctx, DT_U64, 1, DIMS(2), &t), TENSOR_OK);
    ((uint64_t *)t->data)[0] = key;
    ((uint64_t *)t->data)[1] = counter;
    return t;
}

static Tensor *state3_of(uint64_t key, uint64_t low, uint64_t high)
{
    TensorCtx ctx;
    tensor_ctx_init(&ctx, NULL);
    Tensor *t;
    assert_int_equal(tensor_new(&ctx, DT_U64, 1, DIMS(3), &t), TENSOR_OK);
    ((uint64_t *)t->data)[0] = key;
    ((uint64_t *)t->data)[1] = low;
    ((uint64_t *)t->data)[2] = high;
    return t;
}

static void generate_with(const Tensor *st, bool philox, DType dt, int rank, const int64_t *global,
                          const int64_t *offsets, const int64_t *local, Tensor **new_state, Tensor **bits)
{
    TensorCtx ctx;
    tensor_ctx_init(&ctx, NULL);
    RngBitsRequest req = {dt, rank, global, offsets, local, philox};
    assert_int_equal(kern_rng_bit_generator(&ctx, st, &req, new_state, bits), TENSOR_OK);
}

static void generate(const Tensor *st, DType dt, int rank, const int64_t *global, const int64_t *offsets,
                     const int64_t *local, Tensor **new_state, Tensor **bits)
{
    generate_with(st, false, dt, rank, global, offsets, local, new_state, bits);
}

static uint32_t word(uint64_t key, uint64_t counter, int w)
{
    uint32_t out[2];
    kern_threefry2x32((const uint32_t[]){(uint32_t)key, (uint32_t)(key >> 32)},
                      (const uint32_t[]){(uint32_t)counter, (uint32_t)(counter >> 32)}, out);
    return out[w];
}

/* XLA's ThreeFryRngBit32: pairs along the first even dim (here dim 1 of
 * [3, 4]): element (i, j) is word j % 2 of counter c + i * 2 + j / 2; the
 * state's counter moves by 6 calls. */
static void test_u32_pairs_along_first_even_dim(void **state)
{
    (void)state;
    uint64_t key = 0x0123456789abcdefull, c = 0xfffffffffffffffeull; /* the counter wraps */
    Tensor *st = state_of(key, c), *ns, *bits;
    generate(st, DT_U32, 2, DIMS(3, 4), INTS(0, 0), DIMS(3, 4), &ns, &bits);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++)
            assert_int_equal(((uint32_t *)bits->data)[i * 4 + j], word(key, c + (uint64_t)(i * 2 + j / 2), j % 2));
    assert_int_equal(((uint64_t *)ns->data)[0], key);
    assert_int_equal(((uint64_t *)ns->data)[1], c + 6);
    tensor_release(st);
    tensor_release(ns);
    tensor_release(bits);
}

/* No even dim: the largest ([3, 5]: dim 1, halved to 3 with the last
 * pair's second word dropped); a scalar takes word 0 of one counter. */
static void test_u32_odd_dims_and_scalar(void **state)
{
    (void)state;
    Tensor *st = state_of(7, 100), *ns, *bits;
    generate(st, DT_U32, 2, DIMS(3, 5), INTS(0, 0), DIMS(3, 5), &ns, &bits);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 5; j++)
            assert_int_equal(((uint32_t *)bits->data)[i * 5 + j], word(7, 100 + (uint64_t)(i * 3 + j / 2), j % 2));
    assert_int_equal(((uint64_t *)ns->data)[1], 109);
    tensor_release(ns);
    tensor_release(bits);
    generate(st, DT_U32, 0, NULL, NULL, NULL, &ns, &bits);
    assert_int_equal(((uint32_t *)bits->data)[0], word(7, 100, 0));
    assert_int_equal(((uint64_t *)ns->data)[1], 101);
    tensor_release(st);
    tensor_release(ns);
    tensor_release(bits);
}

/* ThreeFryRngBit64: one counter per element, low word first. */
static void test_u64_one_counter_each(void **state)
{
    (void)state;
    Tensor *st = state_of(42, 5), *ns, *bits;
    generate(st, DT_U64, 1, DIMS(3), INTS(0), DIMS(3), &ns, &bits);
    for (int i = 0; i < 3; i++)
        assert_true(((uint64_t *)bits->data)[i] ==
                    ((uint64_t)word(42, 5 + (uint64_t)i, 0) | (uint64_t)word(42, 5 + (uint64_t)i, 1) << 32));
    assert_int_equal(((uint64_t *)ns->data)[1], 8);
    tensor_release(st);
    tensor_release(ns);
    tensor_release(bits);
}

/* A block (a device's shard) equals the whole output's block at its
 * start; a padded block's elements past the shape are zeros. */
static void test_blocks_match_whole(void **state)
{
    (void)state;
    Tensor *st = state_of(3, 9), *ns, *whole, *blk;
    generate(st, DT_F32, 2, DIMS(5, 6), INTS(0, 0), DIMS(5, 6), &ns, &whole);
    tensor_release(ns);
    generate(st, DT_F32, 2, DIMS(5, 6), INTS(3, 3), DIMS(3, 3), &ns, &blk);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            uint32_t got = ((uint32_t *)blk->data)[i * 3 + j];
            uint32_t want = i + 3 < 5 ? ((uint32_t *)whole->data)[(i + 3) * 6 + j + 3] : 0;
            assert_int_equal(got, want);
        }
    assert_int_equal(((uint64_t *)ns->data)[1], 9 + 15);
    tensor_release(st);
    tensor_release(ns);
    tensor_release(whole);
    tensor_release(blk);
}

/* Philox word w of the 128-bit counter (low, high) under key. */
static uint32_t philox_word(uint64_t key, uint64_t low, uint64_t high, int w)
{
    uint32_t out[4];
    kern_philox4x32((const uint32_t[]){(uint32_t)key, (uint32_t)(key >> 32)},
                    (const uint32_t[]){(uint32_t)low, (uint32_t)(low >> 32), (uint32_t)high, (uint32_t)(high >> 32)},
                    out);
    return out[w];
}

/* XLA's PhiloxRngBit32: flat element f is word f % 4 of counter + f / 4,
 * the counter 128 bits (here its low half carries into the high one);
 * the new state's counter moves by ceil(n / 4) = 4 for [3, 5]. */
static void test_philox_u32_round_robin(void **state)
{
    (void)state;
    uint64_t key = 0xfeedfacecafebeefull, low = 0xfffffffffffffffeull, high = 7;
    Tensor *st = state3_of(key, low, high), *ns, *bits;
    generate_with(st, true, DT_U32, 2, DIMS(3, 5), INTS(0, 0), DIMS(3, 5), &ns, &bits);
    for (uint64_t f = 0; f < 15; f++) {
        uint64_t l = low + f / 4;
        assert_int_equal(((uint32_t *)bits->data)[f], philox_word(key, l, high + (l < low), (int)(f % 4)));
    }
    const uint64_t *n = ns->data;
    assert_true(n[0] == key && n[1] == low + 4 && n[2] == high + 1);
    tensor_release(st);
    tensor_release(ns);
    tensor_release(bits);
}

/* PhiloxRngBit64: element f is words 2(f % 2), 2(f % 2) + 1 of counter +
 * f / 2, low first. A u64[2] state [key, low] counts with the key as the
 * counter's high half (XLA's expander reverses the state) and keeps only
 * the low half. */
static void test_philox_u64_two_per_counter(void **state)
{
    (void)state;
    Tensor *st = state_of(42, 5), *ns, *bits;
    generate_with(st, true, DT_U64, 1, DIMS(3), INTS(0), DIMS(3), &ns, &bits);
    for (uint64_t f = 0; f < 3; f++) {
        int w = 2 * (int)(f % 2);
        uint64_t want = (uint64_t)philox_word(42, 5 + f / 2, 42, w) | (uint64_t)philox_word(42, 5 + f / 2, 42, w + 1) << 32;
        assert_true(((uint64_t *)bits->data)[f] == want);
    }
    assert_int_equal(ns->dims[0], 2);
    assert_true(((uint64_t *)ns->data)[0] == 42 && ((uint64_t *)ns->data)[1] == 7);
    tensor_release(st);
    tensor_release(ns);
    tensor_release(bits);
}

/* 8- and 16-bit bits are the low bits of the 32-bit bits of the same
 * shape (XLA's ThreeFryRngBitNarrow / PhiloxRngBitNarrow), with the same
 * new state; a block of them equals the whole output's. */
static void test_narrow_bits_are_low_bits_of_u32(void **state)
{
    (void)state;
    for (int philox = 0; philox < 2; philox++) {
        Tensor *st = state_of(11, 3), *ns32, *w32, *ns8, *w8, *ns16, *w16, *nsb, *blk;
        generate_with(st, philox, DT_U32, 2, DIMS(3, 6), INTS(0, 0), DIMS(3, 6), &ns32, &w32);
        generate_with(st, philox, DT_I8, 2, DIMS(3, 6), INTS(0, 0), DIMS(3, 6), &ns8, &w8);
        generate_with(st, philox, DT_F16, 2, DIMS(3, 6), INTS(0, 0), DIMS(3, 6), &ns16, &w16);
        generate_with(st, philox, DT_BF16, 2, DIMS(3, 6), INTS(1, 3), DIMS(2, 3), &nsb, &blk);
        for (int e = 0; e < 18; e++) {
            uint32_t v = ((uint32_t *)w32->data)[e];
            assert_int_equal(((uint8_t *)w8->data)[e], v & 0xff);
            assert_int_equal(((uint16_t *)w16->data)[e], v & 0xffff);
        }
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 3; j++)
                assert_int_equal(((uint16_t *)blk->data)[i * 3 + j], ((uint32_t *)w32->data)[(i + 1) * 6 + j + 3] & 0xffff);
        assert_true(((uint64_t *)ns8->data)[1] == ((uint64_t *)ns32->data)[1]);
        assert_true(((uint64_t *)ns16->data)[1] == ((uint64_t *)ns32->data)[1]);
        Tensor *all[] = {st, ns32, w32, ns8, w8, ns16, w16, nsb, blk};
        for (size_t i = 0; i < sizeof all / sizeof *all; i++)
            tensor_release(all[i]);
    }
}

static void test_rejects_bad_state(void **state)
{
    (void)state;
    TensorCtx ctx;
    tensor_ctx_init(&ctx, NULL);
    Tensor *ns, *bits;
    Tensor *wrong = make_i(DT_I64, 1, DIMS(2), INTS(1, 2));
    RngBitsRequest req = {DT_U32, 1, DIMS(4), INTS(0), DIMS(4), false};
    assert_int_equal(kern_rng_bit_generator(&ctx, wrong, &req, &ns, &bits), TENSOR_ERR_SHAPE);
    assert_null(ns);
    assert_null(bits);
    Tensor *three = state3_of(1, 2, 3); /* u64[3] is PHILOX's only */
    assert_int_equal(kern_rng_bit_generator(&ctx, three, &req, &ns, &bits), TENSOR_ERR_SHAPE);
    req.philox = true;
    assert_int_equal(kern_rng_bit_generator(&ctx, three, &req, &ns, &bits), TENSOR_OK);
    tensor_release(ns);
    tensor_release(bits);
    tensor_release(three);
    tensor_release(wrong);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threefry_random123_kat),
        cmocka_unit_test(test_threefry_jax_key0),
        cmocka_unit_test(test_u32_pairs_along_first_even_dim),
        cmocka_unit_test(test_u32_odd_dims_and_scalar),
        cmocka_unit_test(test_u64_one_counter_each),
        cmocka_unit_test(test_blocks_match_whole),
        cmocka_unit_test(test_philox_random123_kat),
        cmocka_unit_test(test_philox_u32_round_robin),
        cmocka_unit_test(test_philox_u64_two_per_counter),
        cmocka_unit_test(test_narrow_bits_are_low_bits_of_u32),
        cmocka_unit_test(test_rejects_bad_state),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
