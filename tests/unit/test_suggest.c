/* Did-you-mean (src/support/suggest.c): the distance, and which names are
 * close enough to be suggested. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include "shardc/suggest.h"

static size_t distance(const char *a, const char *b) { return suggest_distance(a, strlen(a), b); }

static void test_distance(void **state)
{
    (void)state;
    assert_int_equal(distance("", ""), 0);
    assert_int_equal(distance("neg", "neg"), 0);
    assert_int_equal(distance("", "abc"), 3);
    assert_int_equal(distance("kitten", "sitting"), 3);
    assert_int_equal(distance("negate", "neg"), 3);
    assert_int_equal(distance("rnu", "run"), 1);     /* a swap is one edit */
    assert_int_equal(distance("propgate", "propagate"), 1);
}

static void test_closest(void **state)
{
    (void)state;
    const char *ops[] = {"add", "neg", "negative_slope", NULL, "exp"};
    assert_string_equal(suggest_closest("negate", 6, ops, 5), "neg");   /* a prefix */
    assert_string_equal(suggest_closest("ad", 2, ops, 5), "add");
    assert_string_equal(suggest_closest("exq", 3, ops, 5), "exp");
    assert_null(suggest_closest("optimize", 8, ops, 5));
    assert_string_equal(suggest_closest("emit=ir", 4, (const char *[]){"emit", "emti"}, 2), "emti");
}

static void test_long_names(void **state)
{
    (void)state;
    char long_name[200];
    memset(long_name, 'a', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    const char *names[] = {"aaa"};
    assert_int_equal(suggest_distance(long_name, strlen(long_name), "aaa"), (size_t)-1);
    assert_null(suggest_closest(long_name, strlen(long_name), names, 1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_distance),
        cmocka_unit_test(test_closest),
        cmocka_unit_test(test_long_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
