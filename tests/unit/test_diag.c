/* Diagnostics: file:line:col, the quoted source line and its caret (with
 * tabs and CRLF line endings), notes and warnings, the error cut-off. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "shardc/diag.h"

typedef struct Fixture {
    DiagEngine diag;
    FILE *stream;
    char *out;
    size_t out_len;
} Fixture;

static int setup(void **state)
{
    Fixture *f = calloc(1, sizeof *f);
    f->stream = open_memstream(&f->out, &f->out_len);
    diag_init(&f->diag, f->stream);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    Fixture *f = *state;
    diag_free(&f->diag);
    fclose(f->stream);
    free(f->out);
    free(f);
    return 0;
}

static const char *output(Fixture *f)
{
    fflush(f->stream);
    return f->out ? f->out : "";
}

static void add_source(Fixture *f, const char *name, const char *text)
{
    diag_add_source(&f->diag, name, text, strlen(text));
}

static const char source[] = "mesh @m = <\"x\"=2>\nfunc @f() {\n  return\n}\n";

static void test_error_with_caret(void **state)
{
    Fixture *f = *state;
    add_source(f, "a.shir", source);
    diag_error(&f->diag, (Loc){"a.shir", 2, 6}, "bad name '%s'", "@f");
    assert_string_equal(output(f), "a.shir:2:6: error: bad name '@f'\n"
                                   "func @f() {\n"
                                   "     ^\n");
    assert_int_equal(f->diag.errors, 1);
    assert_int_equal(f->diag.warnings, 0);
}

static void test_first_and_last_line(void **state)
{
    Fixture *f = *state;
    add_source(f, "a.shir", source);
    diag_error(&f->diag, (Loc){"a.shir", 1, 1}, "first");
    diag_error(&f->diag, (Loc){"a.shir", 4, 1}, "last");
    assert_string_equal(output(f), "a.shir:1:1: error: first\nmesh @m = <\"x\"=2>\n^\n"
                                   "a.shir:4:1: error: last\n}\n^\n");
}

/* Quoting starts its search at the line quoted last (line_start): lines
 * out of order, repeated, and past the end still quote what they should. */
static void test_lines_in_any_order(void **state)
{
    Fixture *f = *state;
    add_source(f, "a.shir", source);
    static const int lines[] = {3, 3, 1, 4, 2, 9, 3};
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        diag_error(&f->diag, (Loc){"a.shir", lines[i], 1}, "e");
    assert_string_equal(output(f), "a.shir:3:1: error: e\n  return\n^\n"
                                   "a.shir:3:1: error: e\n  return\n^\n"
                                   "a.shir:1:1: error: e\nmesh @m = <\"x\"=2>\n^\n"
                                   "a.shir:4:1: error: e\n}\n^\n"
                                   "a.shir:2:1: error: e\nfunc @f() {\n^\n"
                                   "a.shir:9:1: error: e\n"
                                   "a.shir:3:1: error: e\n  return\n^\n");
}

/* Tabs before the column stay tabs, so the caret lines up in a terminal. */
static void test_caret_after_tabs(void **state)
{
    Fixture *f = *state;
    add_source(f, "t.shir", "\t%y =\tneg\n");
    diag_error(&f->diag, (Loc){"t.shir", 1, 7}, "here");
    assert_string_equal(output(f), "t.shir:1:7: error: here\n\t%y =\tneg\n\t    \t^\n");
}

/* A CRLF file's quoted line has no carriage return. */
static void test_crlf_line(void **state)
{
    Fixture *f = *state;
    add_source(f, "c.shir", "first\r\nsecond line\r\n");
    diag_error(&f->diag, (Loc){"c.shir", 2, 8}, "word");
    assert_string_equal(output(f), "c.shir:2:8: error: word\nsecond line\n       ^\n");
}

/* The last line may lack a newline; a column past its end puts the caret
 * just after it. */
static void test_last_line_without_newline(void **state)
{
    Fixture *f = *state;
    add_source(f, "n.shir", "abc\ndef");
    diag_error(&f->diag, (Loc){"n.shir", 2, 9}, "end");
    assert_string_equal(output(f), "n.shir:2:9: error: end\ndef\n   ^\n");
}

/* A NUL byte in the line is quoted like any other byte, not the end of it. */
static void test_line_with_nul_byte(void **state)
{
    Fixture *f = *state;
    static const char text[] = "ab\0cd ef\n";
    diag_add_source(&f->diag, "z.shir", text, sizeof text - 1);
    diag_error(&f->diag, (Loc){"z.shir", 1, 7}, "after");
    static const char want[] = "z.shir:1:7: error: after\nab\0cd ef\n      ^\n";
    fflush(f->stream);
    assert_int_equal(f->out_len, sizeof want - 1);
    assert_memory_equal(f->out, want, sizeof want - 1);
}

static void test_line_beyond_text(void **state)
{
    Fixture *f = *state;
    add_source(f, "s.shir", "one\n");
    diag_error(&f->diag, (Loc){"s.shir", 5, 1}, "gone");
    assert_string_equal(output(f), "s.shir:5:1: error: gone\n");
}

/* Without a registered source only the message line is printed; without a
 * line the location is just the file; without a file it is the program. */
static void test_locations_without_source(void **state)
{
    Fixture *f = *state;
    diag_error(&f->diag, (Loc){"x.shir", 3, 4}, "no text");
    diag_error(&f->diag, (Loc){"x.shir", 0, 0}, "cannot open: %s", "No such file");
    diag_error(&f->diag, (Loc){NULL, 0, 0}, "no file");
    assert_string_equal(output(f), "x.shir:3:4: error: no text\n"
                                   "x.shir: error: cannot open: No such file\n"
                                   "shardc: error: no file\n");
}

static void test_notes_and_warnings(void **state)
{
    Fixture *f = *state;
    add_source(f, "a.shir", source);
    diag_warning(&f->diag, (Loc){"a.shir", 3, 3}, "unused");
    diag_note(&f->diag, (Loc){"a.shir", 1, 6}, "declared here");
    assert_string_equal(output(f), "a.shir:3:3: warning: unused\n  return\n  ^\n"
                                   "a.shir:1:6: note: declared here\nmesh @m = <\"x\"=2>\n     ^\n");
    assert_int_equal(f->diag.errors, 0);
    assert_int_equal(f->diag.warnings, 1);
}

/* A warning said again (same place and words) is not repeated, nor are
 * its notes; another place or message is a new cause. */
static void test_warning_once_per_cause(void **state)
{
    Fixture *f = *state;
    for (int i = 0; i < 2; i++) {
        diag_warning(&f->diag, (Loc){"a.shir", 3, 3}, "unused %s", "x");
        diag_note(&f->diag, (Loc){"a.shir", 1, 6}, "declared here");
    }
    diag_warning(&f->diag, (Loc){"a.shir", 4, 3}, "unused x");
    assert_string_equal(output(f), "a.shir:3:3: warning: unused x\na.shir:1:6: note: declared here\n"
                                   "a.shir:4:3: warning: unused x\n");
    assert_int_equal(f->diag.warnings, 2);
}

/* The engine remembers a warning's file name by value: a Loc's file lives
 * in its module, which may be freed while the engine is kept for another
 * compile of the same text (fuzz_parse found a use after free). Here the
 * first name's storage is overwritten instead; the repeat is still known. */
static void test_warning_once_after_its_file_name_is_gone(void **state)
{
    Fixture *f = *state;
    char first[] = "a.shir", second[] = "a.shir";
    diag_warning(&f->diag, (Loc){first, 3, 3}, "unused x");
    memcpy(first, "b.shir", sizeof first);
    diag_warning(&f->diag, (Loc){second, 3, 3}, "unused x");
    assert_string_equal(output(f), "a.shir:3:3: warning: unused x\n");
    assert_int_equal(f->diag.warnings, 1);
}

/* -w drops warnings and their notes; -Werror makes them errors. */
static void test_warnings_ignored_or_errors(void **state)
{
    Fixture *f = *state;
    f->diag.warnings_as = DIAG_WARNINGS_IGNORE;
    diag_warning(&f->diag, (Loc){"a.shir", 3, 3}, "unused");
    diag_note(&f->diag, (Loc){"a.shir", 1, 6}, "declared here");
    assert_string_equal(output(f), "");
    f->diag.warnings_as = DIAG_WARNINGS_ERROR;
    diag_warning(&f->diag, (Loc){"a.shir", 2, 1}, "odd");
    assert_string_equal(output(f), "a.shir:2:1: error: odd [-Werror]\n");
    assert_int_equal(f->diag.errors, 1);
    assert_int_equal(f->diag.warnings, 0);
}

/* A message longer than the first buffer comes out whole. */
static void test_long_message(void **state)
{
    Fixture *f = *state;
    char word[3000];
    memset(word, 'w', sizeof word - 1);
    word[sizeof word - 1] = '\0';
    diag_error(&f->diag, (Loc){0}, "%s", word);
    assert_int_equal(strlen(output(f)), strlen("shardc: error: \n") + sizeof word - 1);
}

/* Each source is quoted under its own name. */
static void test_several_sources(void **state)
{
    Fixture *f = *state;
    add_source(f, "one.shir", "alpha\n");
    add_source(f, "two.shir", "beta\n");
    diag_error(&f->diag, (Loc){"one.shir", 1, 2}, "a");
    diag_error(&f->diag, (Loc){"two.shir", 1, 3}, "b");
    assert_string_equal(output(f), "one.shir:1:2: error: a\nalpha\n ^\ntwo.shir:1:3: error: b\nbeta\n  ^\n");
}

/* After max_errors errors the rest are counted but not printed, with one
 * line saying so; warnings and notes are not errors. */
static void test_max_errors(void **state)
{
    Fixture *f = *state;
    f->diag.max_errors = 2;
    for (int i = 0; i < 5; i++)
        diag_error(&f->diag, (Loc){"m.shir", i + 1, 1}, "error %d", i);
    assert_string_equal(output(f), "m.shir:1:1: error: error 0\n"
                                   "m.shir:2:1: error: error 1\n"
                                   "shardc: too many errors, stopping\n");
    assert_int_equal(f->diag.errors, 5);
}

static void test_default_max_errors(void **state)
{
    Fixture *f = *state;
    assert_int_equal(f->diag.max_errors, 50);
    f->diag.max_errors = 0; /* 0 is unlimited */
    for (int i = 0; i < 200; i++)
        diag_error(&f->diag, (Loc){NULL, 0, 0}, "e");
    assert_null(strstr(output(f), "too many"));
}

static void test_loc_offset(void **state)
{
    Loc loc = loc_offset((Loc){"f", 3, 10}, 5);
    assert_int_equal(loc.line, 3);
    assert_int_equal(loc.col, 15);
    assert_string_equal(loc.file, "f");
}

/* A released source (diag_release_source) is read again from its file when
 * a diagnostic first quotes it; a file whose size changed since is not
 * quoted, and neither is one that is gone. */
static char *write_temp(const char *text)
{
    char *path = strdup("/tmp/shardc-test-diag-XXXXXX");
    int fd = mkstemp(path);
    FILE *out = fdopen(fd, "w");
    fputs(text, out);
    fclose(out);
    return path;
}

static void test_released_source_read_again(void **state)
{
    Fixture *f = *state;
    char *path = write_temp(source);
    char *copy = strdup(source);
    diag_add_source(&f->diag, path, copy, strlen(copy));
    diag_release_source(&f->diag, path, path);
    free(copy);
    diag_error(&f->diag, (Loc){path, 3, 3}, "x");
    diag_error(&f->diag, (Loc){path, 2, 6}, "y");
    char expected[512];
    snprintf(expected, sizeof expected, "%s:3:3: error: x\n  return\n  ^\n%s:2:6: error: y\nfunc @f() {\n     ^\n",
             path, path);
    assert_string_equal(output(f), expected);
    unlink(path);
    free(path);
}

static void test_released_source_changed_or_gone(void **state)
{
    Fixture *f = *state;
    char *changed = write_temp("mesh @m = <\"x\"=2>\n");
    char *gone = write_temp(source);
    diag_add_source(&f->diag, changed, source, strlen(source));
    diag_release_source(&f->diag, changed, changed);
    diag_add_source(&f->diag, gone, source, strlen(source));
    diag_release_source(&f->diag, gone, gone);
    unlink(gone);
    diag_error(&f->diag, (Loc){changed, 1, 1}, "x");
    diag_error(&f->diag, (Loc){gone, 1, 1}, "y");
    char expected[512];
    snprintf(expected, sizeof expected, "%s:1:1: error: x\n%s:1:1: error: y\n", changed, gone);
    assert_string_equal(output(f), expected);
    unlink(changed);
    free(changed);
    free(gone);
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_error_with_caret), T(test_first_and_last_line), T(test_lines_in_any_order), T(test_caret_after_tabs),
        T(test_crlf_line), T(test_last_line_without_newline), T(test_line_with_nul_byte), T(test_line_beyond_text),
        T(test_locations_without_source), T(test_notes_and_warnings), T(test_several_sources),
        T(test_max_errors), T(test_default_max_errors), T(test_loc_offset), T(test_warning_once_per_cause),
        T(test_warning_once_after_its_file_name_is_gone),
        T(test_warnings_ignored_or_errors), T(test_long_message), T(test_released_source_read_again),
        T(test_released_source_changed_or_gone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
