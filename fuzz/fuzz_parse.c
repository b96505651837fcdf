/* libFuzzer target: the whole compile pipeline on arbitrary .shir text.
 *
 * Bad input must end in diagnostics, never a crash, leak or sanitizer
 * report. Beyond that, two oracles: a module that verifies must print as
 * text that parses, verifies and prints identically (the round-trip the
 * golden tests check for every sample), and the pipeline must never report
 * an internal error. Either failure aborts, so libFuzzer keeps the input. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "shardc/diag.h"
#include "shardc/origin.h"
#include "shardc/parse.h"
#include "shardc/partition.h"
#include "shardc/pass.h"
#include "shardc/print.h"
#include "shardc/rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Diagnostics go to a memory stream: formatting them (the quoted line, the
 * caret) is part of what is fuzzed, and the text is checked afterwards. */
typedef struct Sink {
    FILE *stream;
    char *buf;
    size_t len;
} Sink;

static void sink_open(Sink *s)
{
    s->buf = NULL;
    s->len = 0;
    s->stream = open_memstream(&s->buf, &s->len);
    if (!s->stream)
        abort();
}

static void sink_close(Sink *s)
{
    fclose(s->stream);
    free(s->buf);
}

/* Parse and run the pipeline up to `emit`; NULL if anything failed. */
static Module *compile_text(const char *text, size_t len, EmitKind emit, DiagEngine *diag,
                            OriginTable *origins)
{
    *origins = (OriginTable){0};
    Module *m = parse_module("fuzz.shir", text, len, diag);
    if (!m)
        return NULL;
    CompileOptions options = {.emit = emit};
    PartitionStats stats = {0};
    PassContext ctx = {diag, &options, origins, &stats, NULL};
    if (!pipeline_run(m, &ctx)) {
        module_free(m);
        return NULL;
    }
    return m;
}

/* print(m) must parse and verify, and print identically again. */
static void check_round_trip(const Module *m)
{
    Sink first, second, diags;
    sink_open(&first);
    print_module(first.stream, m);
    fflush(first.stream);
    sink_open(&diags);
    DiagEngine diag;
    diag_init(&diag, diags.stream);
    diag_add_source(&diag, "fuzz.shir", first.buf, first.len);
    OriginTable origins = {0};
    Module *again = compile_text(first.buf, first.len, EMIT_IR, &diag, &origins);
    if (!again) {
        fflush(diags.stream);
        fprintf(stderr, "printed module does not verify:\n%s\n%s", first.buf, diags.buf);
        abort();
    }
    sink_open(&second);
    print_module(second.stream, again);
    fflush(second.stream);
    if (first.len != second.len || memcmp(first.buf, second.buf, first.len) != 0) {
        fprintf(stderr, "print is not a fixpoint:\n%s\n---\n%s", first.buf, second.buf);
        abort();
    }
    module_free(again);
    diag_free(&diag);
    sink_close(&second);
    sink_close(&diags);
    sink_close(&first);
}

/* Whether a message line (not a quoted line: see compile_later) reports
 * an internal error. */
static bool has_internal_error(const char *diags)
{
    static const char internal[] = "fuzz.shir: error: internal";
    return diags && (strncmp(diags, internal, strlen(internal)) == 0 ||
                     strstr(diags, "\nfuzz.shir: error: internal"));
}

/* The passes after verification, with diagnostics that quote no source:
 * then every line of their output is a message, and an internal error is
 * the pipeline's own fault, not an echo of the input. */
static void compile_later(const char *text, size_t len, FILE *out)
{
    Sink diags;
    sink_open(&diags);
    DiagEngine diag;
    diag_init(&diag, diags.stream);
    OriginTable origins;
    Module *m = compile_text(text, len, EMIT_PROPAGATED, &diag, &origins);
    bool propagated = m != NULL;
    if (m)
        origins_explain(out, &origins, m, NULL);
    module_free(m);
    m = propagated ? compile_text(text, len, EMIT_PARTITIONED, &diag, &origins) : NULL;
    if (m) {
        print_module(out, m);
        partition_print_devices(out, m, 0);
    }
    module_free(m);
    fflush(diags.stream);
    if (has_internal_error(diags.buf)) {
        fprintf(stderr, "%s", diags.buf);
        abort();
    }
    diag_free(&diag);
    sink_close(&diags);
}

/* Every emit kind of a module that verifies, printed into `out`. */
static void compile_fully(const char *text, size_t len, DiagEngine *diag, FILE *out)
{
    OriginTable origins;
    Module *m = compile_text(text, len, EMIT_IR, diag, &origins);
    if (!m)
        return;
    check_round_trip(m);
    rule_print_module(out, m, diag);
    module_free(m);
    compile_later(text, len, out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* io_read_source hands the parser a NUL-terminated copy; so do we, and
     * ASan catches any read past it. */
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    Sink diags, out;
    sink_open(&diags);
    sink_open(&out);
    DiagEngine diag;
    diag_init(&diag, diags.stream);
    diag_add_source(&diag, "fuzz.shir", text, size);
    compile_fully(text, size, &diag, out.stream);
    diag_free(&diag);
    sink_close(&out);
    sink_close(&diags);
    free(text);
    return 0;
}
