/* The printers' buffered writer (src/support/writer.c): integers in
 * decimal at their limits, output that crosses the buffer's end, text
 * larger than the buffer, and a write error (/dev/full). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "shardc/writer.h"

/* What `emit` writes through a writer on a memory stream. */
typedef struct Captured {
    char *text;
    size_t len;
} Captured;

static Captured capture(void (*emit)(Writer *w, void *arg), void *arg)
{
    Captured c = {NULL, 0};
    FILE *mem = open_memstream(&c.text, &c.len);
    assert_non_null(mem);
    Writer *w = malloc(sizeof *w);
    assert_non_null(w);
    writer_init(w, mem);
    emit(w, arg);
    assert_true(writer_flush(w));
    free(w);
    assert_int_equal(fclose(mem), 0);
    return c;
}

static void emit_int(Writer *w, void *arg) { writer_int(w, *(long long *)arg); }

static void assert_int_text(long long v, const char *want)
{
    Captured c = capture(emit_int, &v);
    assert_string_equal(c.text, want);
    free(c.text);
}

static void test_int_limits(void **state)
{
    (void)state;
    assert_int_text(0, "0");
    assert_int_text(7, "7");
    assert_int_text(-1, "-1");
    assert_int_text(10, "10");
    assert_int_text(-4096, "-4096");
    assert_int_text(LLONG_MAX, "9223372036854775807");
    assert_int_text(LLONG_MIN, "-9223372036854775808"); /* its magnitude does not fit long long */
}

/* Every digit count and both signs, around each power of ten, as printf
 * writes them (digits go two at a time: odd and even lengths differ). */
static void emit_ints(Writer *w, void *arg)
{
    (void)arg;
    for (long long p = 1; p <= LLONG_MAX / 10; p *= 10)
        for (long long d = -2; d <= 2; d++) {
            writer_int(w, p + d);
            writer_char(w, ' ');
            writer_int(w, -(p + d));
            writer_char(w, ' ');
        }
    for (long long v = -1000; v <= 1000; v++) {
        writer_int(w, v);
        writer_char(w, ' ');
    }
}

static void test_int_like_printf(void **state)
{
    (void)state;
    Captured c = capture(emit_ints, NULL);
    char *want = NULL;
    size_t want_len = 0;
    FILE *mem = open_memstream(&want, &want_len);
    assert_non_null(mem);
    for (long long p = 1; p <= LLONG_MAX / 10; p *= 10)
        for (long long d = -2; d <= 2; d++)
            fprintf(mem, "%lld %lld ", p + d, -(p + d));
    for (long long v = -1000; v <= 1000; v++)
        fprintf(mem, "%lld ", v);
    fclose(mem);
    assert_int_equal(c.len, want_len);
    assert_memory_equal(c.text, want, want_len);
    free(c.text);
    free(want);
}

/* Numbered lines, enough to cross the buffer's end many times, each piece
 * written by another call. */
static void emit_lines(Writer *w, void *arg)
{
    int lines = *(int *)arg;
    for (int i = 0; i < lines; i++) {
        writer_spaces(w, i % 7);
        writer_str(w, "line ");
        writer_int(w, i);
        writer_char(w, ':');
        writer_printf(w, " %s=%d", "x", -i);
        writer_char(w, '\n');
    }
}

static void test_crosses_buffer(void **state)
{
    (void)state;
    int lines = 5000; /* about 100 KB: six buffers */
    Captured c = capture(emit_lines, &lines);
    char *want = NULL;
    size_t want_len = 0;
    FILE *mem = open_memstream(&want, &want_len);
    assert_non_null(mem);
    for (int i = 0; i < lines; i++)
        fprintf(mem, "%*sline %d: x=%d\n", i % 7, "", i, -i);
    fclose(mem);
    assert_true(c.len > 4 * (size_t)WRITER_BUFFER);
    assert_int_equal(c.len, want_len);
    assert_memory_equal(c.text, want, want_len);
    free(c.text);
    free(want);
}

/* Text longer than the buffer, from a writer part full: in order, whole. */
static void emit_large(Writer *w, void *arg)
{
    const char *big = arg;
    writer_str(w, "head:");
    writer_str(w, big);
    writer_printf(w, "[%s]", big);
    writer_spaces(w, 200);
    writer_str(w, ":tail");
}

static void test_larger_than_buffer(void **state)
{
    (void)state;
    size_t n = 3 * (size_t)WRITER_BUFFER + 17;
    char *big = malloc(n + 1);
    assert_non_null(big);
    for (size_t i = 0; i < n; i++)
        big[i] = (char)('a' + i % 26);
    big[n] = '\0';
    Captured c = capture(emit_large, big);
    size_t at = 0;
    assert_int_equal(c.len, 5 + n + 1 + n + 1 + 200 + 5);
    assert_memory_equal(c.text, "head:", 5), at += 5;
    assert_memory_equal(c.text + at, big, n), at += n;
    assert_memory_equal(c.text + at, "[", 1), at += 1;
    assert_memory_equal(c.text + at, big, n), at += n;
    assert_memory_equal(c.text + at, "]", 1), at += 1;
    for (size_t i = 0; i < 200; i++)
        assert_int_equal(c.text[at + i], ' ');
    assert_memory_equal(c.text + at + 200, ":tail", 5);
    free(c.text);
    free(big);
}

/* What was written since a mark, while it is in the buffer; NULL once a
 * flush came between (the MLIR printer's kept sharding texts). */
static void test_since_mark(void **state)
{
    (void)state;
    FILE *null = fopen("/dev/null", "w");
    assert_non_null(null);
    Writer *w = malloc(sizeof *w);
    assert_non_null(w);
    writer_init(w, null);
    writer_str(w, "before ");
    WriterMark mark = writer_mark(w);
    writer_str(w, "<@mesh, [{");
    writer_int(w, -42);
    size_t n = 0;
    const char *text = writer_since(w, mark, &n);
    assert_non_null(text);
    assert_int_equal(n, 13);
    assert_memory_equal(text, "<@mesh, [{-42", 13);
    writer_spaces(w, WRITER_BUFFER); /* crosses the end: flushed */
    assert_null(writer_since(w, mark, &n));
    mark = writer_mark(w);
    writer_flush(w);
    assert_null(writer_since(w, mark, &n)); /* an explicit flush too */
    free(w);
    fclose(null);
}

/* A full disk: the flush fails, stays failed, and the stream's error flag
 * is set (what io_output_commit reports). */
static void test_write_error(void **state)
{
    (void)state;
    FILE *full = fopen("/dev/full", "w");
    if (!full)
        skip();
    Writer *w = malloc(sizeof *w);
    assert_non_null(w);
    writer_init(w, full);
    int lines = 3000;
    emit_lines(w, &lines); /* more than a buffer: a flush on the way fails */
    assert_true(w->failed);
    assert_false(writer_flush(w));
    writer_str(w, "more");
    assert_false(writer_flush(w));
    assert_true(ferror(full) || fflush(full) != 0);
    free(w);
    fclose(full);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_int_limits),
        cmocka_unit_test(test_int_like_printf),
        cmocka_unit_test(test_crosses_buffer),
        cmocka_unit_test(test_larger_than_buffer),
        cmocka_unit_test(test_since_mark),
        cmocka_unit_test(test_write_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
