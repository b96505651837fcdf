/* Resource limits (limits.h): --max-bytes values, byte counts that must
 * not wrap, and the human-readable sizes of the diagnostics. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "shardc/limits.h"
#include "shardc/pass.h"

static void test_parse_plain_and_suffixed(void **state)
{
    int64_t v;
    assert_true(limits_parse_bytes("4096", &v));
    assert_int_equal(v, 4096);
    assert_true(limits_parse_bytes("1K", &v));
    assert_int_equal(v, 1024);
    assert_true(limits_parse_bytes("3M", &v));
    assert_int_equal(v, 3 << 20);
    assert_true(limits_parse_bytes("64G", &v));
    assert_int_equal(v, SHARDC_DEFAULT_MAX_BYTES);
    assert_true(limits_parse_bytes("2T", &v));
    assert_int_equal(v, (int64_t)2 << 40);
}

/* Anything but digits and one suffix, zero, and overflow (before or after
 * the suffix) are refused rather than read as some other number. */
static void test_parse_refuses(void **state)
{
    static const char *const bad[] = {
        "", "0", "0K", "-1", "K", "12Q", "1KB", "1 K", "1k", " 1", "1.5G",
        "9223372036854775808", "99999999999T", "8388608T",
    };
    int64_t v = 7;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_false(limits_parse_bytes(bad[i], &v));
    }
    assert_true(limits_parse_bytes("8388607T", &v)); /* the largest whole T */
}

static void test_format(void **state)
{
    char buf[32];
    assert_string_equal(limits_format_bytes(1, buf, sizeof buf), "1 byte");
    assert_string_equal(limits_format_bytes(31, buf, sizeof buf), "31 bytes");
    assert_string_equal(limits_format_bytes(1024, buf, sizeof buf), "1 KiB");
    assert_string_equal(limits_format_bytes(1536, buf, sizeof buf), "1.5 KiB");
    assert_string_equal(limits_format_bytes(SHARDC_DEFAULT_MAX_BYTES, buf, sizeof buf), "64 GiB");
    assert_string_equal(limits_format_bytes(4000000000000, buf, sizeof buf), "3.6 TiB");
    assert_string_equal(limits_format_bytes(INT64_MAX, buf, sizeof buf), "8 EiB");
}

/* Element counts that fit may still overflow once multiplied by the
 * element size. */
static void test_type_bytes(void **state)
{
    int64_t dims[] = {(int64_t)1 << 61};
    TensorType t = {DT_F64, 1, dims};
    int64_t bytes;
    assert_false(limits_type_bytes(&t, &bytes));
    t.dtype = DT_BOOL;
    assert_true(limits_type_bytes(&t, &bytes));
    assert_int_equal(bytes, (int64_t)1 << 61);
    TensorType scalar = {DT_F32, 0, NULL};
    assert_true(limits_type_bytes(&scalar, &bytes));
    assert_int_equal(bytes, 4);
}

/* Dynamic dims and unranked tensors (`shardc opt`'s) have no size: no
 * count comes out of them, not even one a zero dim or a rank of -1 would
 * make, and no text of theirs is a number. */
static void test_no_size_of_dynamic(void **state)
{
    int64_t dims[] = {8, TYPE_DYNAMIC_DIM, 0};
    TensorType dynamic = {DT_F32, 3, dims}, unranked = {DT_F32, SHARDC_UNRANKED, NULL};
    int64_t count = 7, bytes = 7;
    assert_false(type_is_static(&dynamic));
    assert_false(type_is_static(&unranked));
    assert_false(type_num_elements(&dynamic, &count));
    assert_false(type_num_elements(&unranked, &count));
    assert_false(limits_type_bytes(&dynamic, &bytes));
    assert_false(limits_type_bytes(&unranked, &bytes));
    assert_int_equal(count, 7);
    assert_int_equal(bytes, 7);
    dims[1] = 3;
    assert_true(type_is_static(&dynamic));
    assert_true(type_num_elements(&dynamic, &count));
    assert_int_equal(count, 0);
    char text[64];
    dims[1] = TYPE_DYNAMIC_DIM;
    type_mlir_text(text, sizeof text, &dynamic);
    assert_string_equal(text, "tensor<8x?x0xf32>");
    type_mlir_text(text, sizeof text, &unranked);
    assert_string_equal(text, "tensor<*xf32>");
}

static void test_default_cap(void **state)
{
    CompileOptions options = {0};
    assert_int_equal(limits_max_bytes(&options), SHARDC_DEFAULT_MAX_BYTES);
    options.max_bytes = 16;
    assert_int_equal(limits_max_bytes(&options), 16);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_plain_and_suffixed),
        cmocka_unit_test(test_parse_refuses),
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_type_bytes),
        cmocka_unit_test(test_no_size_of_dynamic),
        cmocka_unit_test(test_default_cap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
