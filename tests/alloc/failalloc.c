/* Allocation-failure injection for `make check-alloc` (docs/testing.md), in
 * the style of SQLite's malloc tests. Linked into build-alloc/shardc only,
 * with -Wl,--wrap for each allocator, so every allocation shardc's own code
 * makes (not libyaml's, OpenBLAS's or libc's internal ones) goes through
 * here:
 *   SHARDC_FAIL_ALLOC=N     the N-th allocation (from 1) fails; with
 *                           SHARDC_FAIL_ALLOC_PERSIST=1 every later one
 *                           fails too, as when memory runs out for good;
 *   SHARDC_FAIL_ALLOC_TRACE=1 the failing allocation prints its stack
 *                           (ASan's symbolizer), to find the caller;
 *   SHARDC_COUNT_ALLOC=FILE at exit, the number of allocations made is
 *                           written to FILE (the failure points to try).
 * A test shim, not library code: it holds the process's counter. */
#include <sanitizer/common_interface_defs.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);

static atomic_long calls;
static long fail_at = -1; /* -1: not read yet; 0: never fail */
static int persist, trace;

static void write_count(void)
{
    const char *path = getenv("SHARDC_COUNT_ALLOC");
    FILE *f = path ? fopen(path, "w") : NULL;
    if (f) {
        fprintf(f, "%ld\n", (long)atomic_load(&calls));
        fclose(f);
    }
}

static long limit(void)
{
    if (fail_at < 0) {
        const char *v = getenv("SHARDC_FAIL_ALLOC");
        fail_at = v ? atol(v) : 0;
        persist = getenv("SHARDC_FAIL_ALLOC_PERSIST") != NULL;
        trace = getenv("SHARDC_FAIL_ALLOC_TRACE") != NULL;
        if (getenv("SHARDC_COUNT_ALLOC"))
            atexit(write_count);
    }
    return fail_at;
}

/* Whether this allocation is to fail. */
static int fails(void)
{
    long n = atomic_fetch_add(&calls, 1) + 1, at = limit();
    if (trace && n == at)
        __sanitizer_print_stack_trace();
    return at > 0 && (n == at || (persist && n > at));
}

void *__wrap_malloc(size_t size) { return fails() ? NULL : __real_malloc(size); }
void *__wrap_calloc(size_t n, size_t size) { return fails() ? NULL : __real_calloc(n, size); }
void *__wrap_realloc(void *p, size_t size) { return fails() ? NULL : __real_realloc(p, size); }
char *__wrap_strdup(const char *s) { return fails() ? NULL : __real_strdup(s); }
char *__wrap_strndup(const char *s, size_t n) { return fails() ? NULL : __real_strndup(s, n); }
