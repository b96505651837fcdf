/* libFuzzer target: the MLIR reader (src/mlir/) and everything after it
 * on arbitrary StableHLO + sdy text.
 *
 * Bad input must end in located diagnostics, never a crash, leak or
 * sanitizer report. Beyond that, one oracle: a module that reads and
 * verifies prints as MLIR that reads, verifies and prints identically
 * (what `shardc X.mlir --emit=sdy` writes, shardc reads back). A failure
 * aborts, so libFuzzer keeps the input. Then, as fuzz_parse does, the
 * propagated and partitioned programs are printed as MLIR (--emit=sdy,
 * --emit=sdy-partitioned). A text refused there is read again as
 * `shardc opt` reads it, dynamic and unranked types allowed on function
 * boundaries, and propagated and printed as opt does. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "shardc/diag.h"
#include "shardc/mlir.h"
#include "shardc/origin.h"
#include "shardc/partition.h"
#include "shardc/pass.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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

/* Read and run the pipeline up to `emit`; NULL if anything failed. */
static Module *compile_text(const char *text, size_t len, EmitKind emit, DiagEngine *diag)
{
    Module *m = mlir_read_module("fuzz.mlir", text, len, diag);
    if (!m)
        return NULL;
    OriginTable origins = {0};
    CompileOptions options = {.emit = emit};
    PartitionStats stats = {0};
    PassContext ctx = {diag, &options, &origins, &stats, NULL};
    if (!pipeline_run(m, &ctx)) {
        module_free(m);
        return NULL;
    }
    return m;
}

/* m printed as MLIR must read, verify and print identically again. */
static void check_round_trip(const Module *m)
{
    Sink first, second, diags;
    sink_open(&first);
    mlir_print_module(first.stream, m);
    fflush(first.stream);
    sink_open(&diags);
    DiagEngine diag;
    diag_init(&diag, diags.stream);
    diag_add_source(&diag, "fuzz.mlir", first.buf, first.len);
    Module *again = compile_text(first.buf, first.len, EMIT_IR, &diag);
    if (!again) {
        fflush(diags.stream);
        fprintf(stderr, "printed MLIR does not read back:\n%s\n%s", first.buf, diags.buf);
        abort();
    }
    sink_open(&second);
    mlir_print_module(second.stream, again);
    fflush(second.stream);
    if (first.len != second.len || memcmp(first.buf, second.buf, first.len) != 0) {
        fprintf(stderr, "MLIR print is not a fixpoint:\n%s\n---\n%s", first.buf, second.buf);
        abort();
    }
    module_free(again);
    diag_free(&diag);
    sink_close(&second);
    sink_close(&diags);
    sink_close(&first);
}

/* The propagated and the partitioned program, printed as MLIR. */
static void compile_later(const char *text, size_t len, DiagEngine *diag, FILE *out)
{
    static const EmitKind stages[] = {EMIT_PROPAGATED, EMIT_PARTITIONED};
    for (size_t i = 0; i < sizeof stages / sizeof stages[0]; i++) {
        Module *m = compile_text(text, len, stages[i], diag);
        if (!m)
            return;
        mlir_print_module(out, m);
        module_free(m);
    }
}

/* `shardc opt -sdy-basic-propagate`'s reading and propagation, where
 * dynamic and unranked values may be on function boundaries. */
static void opt_propagate(const char *text, size_t len, DiagEngine *diag, FILE *out)
{
    MlirReadOptions read = {.allow_dynamic = true};
    Module *m = mlir_read_module_with("fuzz.mlir", text, len, &read, diag);
    if (!m)
        return;
    CompileOptions options = {.emit = EMIT_PROPAGATED, .propagation = PROPAGATION_BASIC, .quiet_conflicts = true,
                              .external_custom_targets = true, .keep_calls = true};
    PassContext ctx = {diag, &options, NULL, NULL, NULL};
    if (mlir_check_shapes(m, MLIR_SHAPES_BOUNDARY, "shardc opt", true, diag) && pipeline_run(m, &ctx))
        mlir_print_module(out, m);
    module_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* the CLI hands the reader a NUL-terminated copy; so do we, and ASan
     * catches any read past it */
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
    diag_add_source(&diag, "fuzz.mlir", text, size);
    Module *m = compile_text(text, size, EMIT_IR, &diag);
    if (m) {
        check_round_trip(m);
        module_free(m);
        compile_later(text, size, &diag, out.stream);
    } else {
        opt_propagate(text, size, &diag, out.stream);
    }
    diag_free(&diag);
    sink_close(&out);
    sink_close(&diags);
    free(text);
    return 0;
}
