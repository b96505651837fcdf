/* The arena allocator: alignment, zeroing, allocations bigger than a chunk,
 * reset and the copy helpers. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "shardc/arena.h"

static bool all_zero(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return false;
    return true;
}

static void test_alignment(void **state)
{
    Arena a;
    arena_init(&a);
    for (size_t size = 0; size < 100; size++) {
        void *p = arena_alloc(&a, size);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % ARENA_ALIGN, 0);
    }
    arena_free(&a);
}

/* arena_alloc_aligned: aligned, zeroed and apart from its neighbours,
 * after allocations of every size that leave the arena at every offset
 * and across chunk ends (the padding then comes from the new chunk). */
static void test_aligned(void **state)
{
    Arena a;
    arena_init(&a);
    unsigned char *before = NULL;
    for (size_t i = 0; i < 4000; i++) {
        before = arena_alloc(&a, i % 13 * 8 + 1);
        memset(before, 0xff, i % 13 * 8 + 1);
        size_t align = i % 2 ? 64 : 32;
        unsigned char *p = arena_alloc_aligned(&a, 136, align);
        assert_int_equal((uintptr_t)p % align, 0);
        assert_true(all_zero(p, 136));
        assert_true(p >= before + i % 13 * 8 + 1 || p + 136 <= before);
        memset(p, 0xff, 136);
    }
    arena_free(&a);
}

/* Memory is zeroed even when it reuses a reset chunk that held data. */
static void test_zeroed(void **state)
{
    Arena a;
    arena_init(&a);
    unsigned char *p = arena_alloc(&a, 1000);
    assert_true(all_zero(p, 1000));
    memset(p, 0xab, 1000);
    arena_reset(&a);
    unsigned char *q = arena_alloc(&a, 1000);
    assert_true(all_zero(q, 1000));
    arena_free(&a);
}

static void test_distinct_allocations(void **state)
{
    Arena a;
    arena_init(&a);
    int *x = ARENA_NEW(&a, int), *y = ARENA_NEW(&a, int);
    *x = 1;
    *y = 2;
    assert_ptr_not_equal(x, y);
    assert_int_equal(*x, 1);
    assert_int_equal(*y, 2);
    arena_free(&a);
}

/* Allocations larger than a chunk get a chunk of their own, and smaller
 * allocations keep working around them. */
static void test_big_allocations(void **state)
{
    Arena a;
    arena_init(&a);
    size_t big = 10u << 20;
    unsigned char *p = arena_alloc(&a, big);
    assert_true(all_zero(p, big));
    p[big - 1] = 7;
    char *small = arena_strdup(&a, "after");
    assert_string_equal(small, "after");
    unsigned char *q = arena_alloc(&a, big);
    assert_ptr_not_equal(p, q);
    assert_int_equal(p[big - 1], 7);
    assert_true(a.bytes_allocated >= 2 * big);
    arena_free(&a);
}

static void test_many_small_allocations(void **state)
{
    Arena a;
    arena_init(&a);
    int64_t *prev = NULL;
    for (int i = 0; i < 100000; i++) {
        int64_t *p = ARENA_NEW(&a, int64_t);
        *p = i;
        if (prev)
            assert_int_equal(*prev, i - 1);
        prev = p;
    }
    arena_free(&a);
}

/* Reset forgets everything but keeps one chunk; the arena stays usable. */
static void test_reset(void **state)
{
    Arena a;
    arena_init(&a);
    arena_reset(&a); /* resetting an empty arena is harmless */
    for (int i = 0; i < 100; i++)
        arena_alloc(&a, 10000);
    assert_true(a.bytes_allocated >= 100 * 10000);
    arena_reset(&a);
    assert_int_equal(a.bytes_allocated, 0);
    assert_non_null(a.head);
    char *s = arena_strdup(&a, "again");
    assert_string_equal(s, "again");
    arena_free(&a);
    assert_null(a.head);
    assert_int_equal(a.bytes_allocated, 0);
}

static void test_string_and_memdup(void **state)
{
    Arena a;
    arena_init(&a);
    assert_string_equal(arena_strndup(&a, "abcdef", 3), "abc");
    assert_string_equal(arena_strdup(&a, ""), "");
    int src[4] = {1, 2, 3, 4};
    int *copy = arena_memdup(&a, src, 4, sizeof *src);
    assert_memory_equal(copy, src, sizeof src);
    assert_ptr_not_equal(copy, src);
    assert_null(arena_memdup(&a, src, 0, sizeof *src));
    arena_free(&a);
}

/* A size whose rounding or chunk header would wrap around is out of
 * memory (exit status 1), not a tiny allocation. */
static void test_huge_size_is_out_of_memory(void **state)
{
    size_t sizes[] = {SIZE_MAX, SIZE_MAX - 8, SIZE_MAX / 2 + 1};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        fflush(NULL);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            if (!freopen("/dev/null", "w", stderr))
                _exit(3);
            Arena a;
            arena_init(&a);
            arena_alloc(&a, sizes[i]);
            _exit(0); /* not reached if the size is refused */
        }
        int status;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 1);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alignment),
        cmocka_unit_test(test_aligned),
        cmocka_unit_test(test_zeroed),
        cmocka_unit_test(test_distinct_allocations),
        cmocka_unit_test(test_big_allocations),
        cmocka_unit_test(test_many_small_allocations),
        cmocka_unit_test(test_reset),
        cmocka_unit_test(test_string_and_memdup),
        cmocka_unit_test(test_huge_size_is_out_of_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
