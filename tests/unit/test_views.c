/* Unit tests of tensor views (tensor_view_block): blocks of a tensor read
 * in place, charged like copies; the einsum reads strided ones through
 * BLAS leading dimensions and gets the same bits as from dense copies. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include "shardc/kernels.h"
#include "tensor_support.h"

static Tensor *iota_f32(int64_t rows, int64_t cols)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *t;
    assert_int_equal(tensor_new(&ctx, DT_F32, 2, DIMS(rows, cols), &t), TENSOR_OK);
    for (int64_t i = 0; i < t->count; i++)
        tensor_set_f64(t, i, (double)((i * 7919) % 97) / 13.0 - 3.0);
    return t;
}

static void test_row_block_is_contiguous(void **state)
{
    (void)state;
    TensorAccounting acct = {0, 0};
    TensorCtx ctx;
    kernel_ctx_init(&ctx, &acct);
    Tensor *g = iota_f32(6, 8), *v;
    assert_int_equal(tensor_view_block(&ctx, g, INTS(2, 0), DIMS(3, 8), &v), TENSOR_OK);
    assert_false(v->strided);
    assert_ptr_equal(v->data, (float *)g->data + 16);
    assert_int_equal(acct.current_bytes, 3 * 8 * 4);
    tensor_release(g); /* the view keeps the data alive */
    assert_true(tensor_get_f64(v, 0) == (double)(float)((double)((16 * 7919) % 97) / 13.0 - 3.0));
    tensor_release(v);
    assert_int_equal(acct.current_bytes, 0);
    assert_int_equal(acct.peak_bytes, 3 * 8 * 4);
}

static void test_column_block_is_strided(void **state)
{
    (void)state;
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *g = iota_f32(6, 8), *v, *dense, *copy;
    assert_int_equal(tensor_view_block(&ctx, g, INTS(1, 4), DIMS(4, 2), &v), TENSOR_OK);
    assert_true(v->strided);
    assert_int_equal(v->strides[0], 8);
    assert_int_equal(tensor_contiguous(&ctx, v, &dense), TENSOR_OK);
    assert_int_equal(tensor_extract_block(&ctx, g, INTS(1, 4), DIMS(4, 2), &copy), TENSOR_OK);
    assert_false(dense->strided);
    assert_memory_equal(dense->data, copy->data, copy->nbytes);
    tensor_release(dense);
    tensor_release(copy);
    tensor_release(v);
    tensor_release(g);
}

static void release3(Tensor *a, Tensor *b, Tensor *c)
{
    tensor_release(a);
    tensor_release(b);
    tensor_release(c);
}

/* Densifying a strided view keeps its charge (no second copy counted) and
 * lets the global tensor go. */
static void test_densify_keeps_the_charge(void **state)
{
    (void)state;
    TensorAccounting acct = {0, 0};
    TensorCtx ctx;
    kernel_ctx_init(&ctx, &acct);
    Tensor *g = iota_f32(6, 8), *v, *copy;
    assert_int_equal(tensor_view_block(&ctx, g, INTS(1, 4), DIMS(4, 2), &v), TENSOR_OK);
    assert_int_equal(tensor_extract_block(&ctx, g, INTS(1, 4), DIMS(4, 2), &copy), TENSOR_OK);
    assert_int_equal(tensor_densify(&ctx, v), TENSOR_OK);
    assert_false(v->strided);
    assert_null(v->base);
    assert_int_equal(acct.current_bytes, 2 * 4 * 2 * 4);
    assert_int_equal(acct.peak_bytes, 2 * 4 * 2 * 4);
    tensor_release(g);
    assert_memory_equal(v->data, copy->data, copy->nbytes);
    tensor_release(copy);
    tensor_release(v);
    assert_int_equal(acct.current_bytes, 0);
}

/* The einsum of a strided view equals the einsum of its dense copy, bit
 * for bit, on the BLAS path (transposed or not) and on the loop path. */
static void check_einsum_view(const char *spec, Tensor *a, Tensor *view, EinsumPath path)
{
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *dense, *want, *got;
    assert_int_equal(tensor_contiguous(&ctx, view, &dense), TENSOR_OK);
    const Tensor *with_view[2] = {a, view}, *with_dense[2] = {a, dense};
    assert_int_equal(kern_einsum_path(&ctx, spec, 2, with_dense, path, &want), TENSOR_OK);
    assert_int_equal(kern_einsum_path(&ctx, spec, 2, with_view, path, &got), TENSOR_OK);
    assert_int_equal(got->nbytes, want->nbytes);
    assert_memory_equal(got->data, want->data, want->nbytes);
    release3(dense, want, got);
}

static void test_einsum_reads_views(void **state)
{
    (void)state;
    TensorCtx ctx;
    kernel_ctx_init(&ctx, NULL);
    Tensor *g = iota_f32(40, 64), *a = iota_f32(5, 24), *v;
    assert_int_equal(tensor_view_block(&ctx, g, INTS(8, 16), DIMS(24, 32), &v), TENSOR_OK);
    check_einsum_view("bh,hf->bf", a, v, EINSUM_AUTO);
    check_einsum_view("bh,hf->fb", a, v, EINSUM_AUTO);
    check_einsum_view("bh,hf->bf", a, v, EINSUM_GENERIC);
    Tensor *at = iota_f32(5, 32);
    check_einsum_view("bf,hf->bh", at, v, EINSUM_AUTO); /* the view transposed */
    check_einsum_view("bf,hg->bh", at, v, EINSUM_AUTO); /* a private label: summed first */
    Tensor *a3 = iota_f32(24 * 32, 3);
    a3->rank = 3, a3->dims[0] = 24, a3->dims[1] = 32, a3->dims[2] = 3;
    check_einsum_view("adx,ad->x", a3, v, EINSUM_AUTO); /* both of the view's dims contracted */
    check_einsum_view("adx,ad->xa", a3, v, EINSUM_AUTO); /* a batch dim of the view */
    tensor_release(a3);
    tensor_release(at);
    tensor_release(v);
    tensor_release(a);
    tensor_release(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_row_block_is_contiguous),
        cmocka_unit_test(test_column_block_is_strided),
        cmocka_unit_test(test_densify_keeps_the_charge),
        cmocka_unit_test(test_einsum_reads_views),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
