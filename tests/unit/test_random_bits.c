/* Unit tests of rng_bit_generator's kernel (src/kernels/random_bits.c):
 * Threefry-2x32 against published known answers, XLA's layout of the
 * bits, and blocks of the output equal to the whole output's blocks. */
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

static void generate(const Tensor *st, DType dt, int rank, const int64_t *global, const int64_t *offsets,
                     const int64_t *local, Tensor **new_state, Tensor **bits)
{
    TensorCtx ctx;
    tensor_ctx_init(&ctx, NULL);
    RngBitsRequest req = {dt, rank, global, offsets, local};
    assert_int_equal(kern_rng_bit_generator(&ctx, st, &req, new_state, bits), TENSOR_OK);
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

static void test_rejects_narrow_bits_and_bad_state(void **state)
{
    (void)state;
    TensorCtx ctx;
    tensor_ctx_init(&ctx, NULL);
    Tensor *st = state_of(1, 2), *ns, *bits;
    RngBitsRequest req = {DT_F16, 1, DIMS(4), INTS(0), DIMS(4)};
    assert_int_equal(kern_rng_bit_generator(&ctx, st, &req, &ns, &bits), TENSOR_ERR_DTYPE);
    assert_null(ns);
    assert_null(bits);
    Tensor *wrong = make_i(DT_I64, 1, DIMS(2), INTS(1, 2));
    req.dtype = DT_U32;
    assert_int_equal(kern_rng_bit_generator(&ctx, wrong, &req, &ns, &bits), TENSOR_ERR_SHAPE);
    tensor_release(st);
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
        cmocka_unit_test(test_rejects_narrow_bits_and_bad_state),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
