/* libFuzzer target, structure-aware: random programs from the generator
 * (tools/shirgen*.c) through the whole pipeline and the interpreter, as
 * `shardc run` and tools/difftest.sh do, in process.
 *
 * The input bytes are not a program: they choose the generator's seed and
 * options (decode_options), so every input is a valid program and the
 * fuzzer explores the compiler's behaviour on valid code, which fuzz_parse
 * rarely reaches. The program is printed and parsed back (what shardc
 * reads), compiled twice -- as written (the reference) and partitioned --
 * and both run on the same random inputs. An error on a program the front
 * end accepts, a signature change, or a result beyond the generator's
 * tolerance is a bug: the harness aborts (never the library), so libFuzzer
 * keeps the input. Meshes and tensors stay small so an execution takes
 * milliseconds. A finding prints the program and the `shirgen` command line
 * that makes it; FUZZ_RUN_PRINT=1 prints them for every input (for a
 * sanitizer report, which does not). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../tools/shirgen.h"
#include "shardc/diag.h"
#include "shardc/interp.h"
#include "shardc/kernels.h"
#include "shardc/origin.h"
#include "shardc/parse.h"
#include "shardc/partition.h"
#include "shardc/pass.h"
#include "shardc/print.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Byte i of the input, 0 past its end: a short input is a valid choice. */
static unsigned byte_at(const uint8_t *data, size_t size, size_t i)
{
    return i < size ? data[i] : 0;
}

/* Bytes 0-7: the seed; 8: ops; 9: the mesh size cap; 10: uneven and
 * unreduced; 11-12: features switched off; 13: the tensor size cap. The
 * caps keep each execution fast (at most 8 devices, 256 elements). */
static void decode_options(const uint8_t *data, size_t size, GenOpts *o)
{
    gen_default_opts(o);
    o->seed = 0;
    for (size_t i = 0; i < 8; i++)
        o->seed |= (uint64_t)byte_at(data, size, i) << (8 * i);
    o->num_ops = 1 + (int)(byte_at(data, size, 8) % 12);
    o->max_devices = 1 << (byte_at(data, size, 9) % 4);
    o->uneven = byte_at(data, size, 10) & 1;
    o->unreduced = byte_at(data, size, 10) & 2;
    unsigned off = byte_at(data, size, 11) | byte_at(data, size, 12) << 8;
    o->features = FEAT_ALL & ~off;
    o->max_elems = 64 * (1 + (int64_t)(byte_at(data, size, 13) % 4));
}

/* The command line that makes the same program (for a report). */
static void print_regen(FILE *out, const GenOpts *o)
{
    fprintf(out, "shirgen --seed=%llu --ops=%d --max-devices=%d --max-elems=%lld%s%s",
            (unsigned long long)o->seed, o->num_ops, o->max_devices, (long long)o->max_elems,
            o->uneven ? " --uneven" : "", o->unreduced ? " --unreduced" : "");
    if (o->features != FEAT_ALL)
        gen_print_features(out, " --no=", FEAT_ALL & ~o->features);
    fputc('\n', out);
}

/* Everything one execution owns, freed by run_free. */
typedef struct Run {
    GenOpts opts;
    double tol;
    char *text, *diags;
    size_t len, diags_len;
    FILE *diag_stream;
    DiagEngine diag;
    Module *ref, *spmd;
    const Func *ref_entry, *spmd_entry;
    Tensor **inputs, **ref_out, **spmd_out;
    InterpCtx ref_interp, spmd_interp;
} Run;

/* A bug: what was run and why it failed, then abort. */
static void report_bug(Run *r, const char *what)
{
    fflush(r->diag_stream);
    fprintf(stderr, "fuzz_run: %s\nregenerate with: ", what);
    print_regen(stderr, &r->opts);
    fprintf(stderr, "--- diagnostics\n%s--- program\n%s", r->diags ? r->diags : "", r->text);
    abort();
}

/* The generated program as text, the form shardc reads. */
static void generate(Run *r)
{
    Module *m = gen_program(&r->opts, &r->tol);
    FILE *out = open_memstream(&r->text, &r->len);
    if (!out)
        abort();
    print_module(out, m);
    fclose(out);
    module_free(m);
    /* A sanitizer report does not show the program: ask for it. */
    if (getenv("FUZZ_RUN_PRINT")) {
        print_regen(stderr, &r->opts);
        fputs(r->text, stderr);
    }
}

/* Parse the text and compile it up to `emit` for entry @main. */
static Module *compile(Run *r, EmitKind emit, const Func **entry)
{
    Module *m = parse_module("gen.shir", r->text, r->len, &r->diag);
    CompileOptions options = {.emit = emit, .entry = "main"};
    OriginTable origins = {0};
    PartitionStats stats = {0};
    PassContext ctx = {&r->diag, &options, &origins, &stats, NULL};
    if (!m || !pipeline_run(m, &ctx) || r->diag.errors || !(*entry = module_find_func(m, "main")))
        report_bug(r, emit == EMIT_IR ? "the generated program does not compile" : "partitioning failed");
    return m;
}

static bool same_signature(const Func *a, const Func *b)
{
    bool same = a->body->num_args == b->body->num_args && a->num_results == b->num_results;
    for (int i = 0; same && i < a->body->num_args; i++)
        same = type_equal(&a->body->args[i]->type, &b->body->args[i]->type);
    for (int i = 0; same && i < a->num_results; i++)
        same = type_equal(&a->result_types[i], &b->result_types[i]);
    return same;
}

/* Random inputs, as `shardc run` makes them (its --seed is the seed here). */
static void make_inputs(Run *r)
{
    const Block *body = r->ref_entry->body;
    r->inputs = calloc((size_t)body->num_args + 1, sizeof *r->inputs);
    for (int i = 0; r->inputs && i < body->num_args; i++) {
        const TensorType *t = &body->args[i]->type;
        TensorCtx ctx;
        tensor_ctx_init(&ctx, NULL);
        if (kern_random(&ctx, t->dtype, t->rank, t->dims, r->opts.seed, (uint64_t)i, &r->inputs[i]) != TENSOR_OK)
            report_bug(r, "cannot make an input");
    }
    if (!r->inputs)
        abort();
}

/* One run on one worker: the fuzzer has one core. */
static Tensor **execute(Run *r, InterpCtx *ic, const Module *m, const Func *f)
{
    interp_ctx_init(ic, &r->diag);
    ic->threads = 1;
    Tensor **out = calloc((size_t)f->num_results + 1, sizeof *out);
    if (!out)
        abort();
    if (!interp_run_func(ic, m, f, r->inputs, out))
        report_bug(r, m == r->ref ? "the reference run failed" : "the partitioned run failed");
    return out;
}

/* Floats within the generator's tolerance (difftest's --rtol/--atol);
 * integers and bools exactly (tensor_allclose). */
static void compare(Run *r)
{
    for (int i = 0; i < r->ref_entry->num_results; i++) {
        TensorDiff diff = {0};
        if (!tensor_allclose(r->spmd_out[i], r->ref_out[i], r->tol, r->tol, &diff)) {
            fprintf(stderr, "result %d: %lld elements differ; first at %lld: %.9g, reference %.9g\n", i,
                    (long long)diff.mismatches, (long long)diff.first_index, diff.a_value, diff.b_value);
            report_bug(r, "the partitioned run differs from the reference");
        }
    }
}

static void release_all(Tensor **ts, int n)
{
    for (int i = 0; ts && i < n; i++)
        tensor_release(ts[i]);
    free(ts);
}

static void run_free(Run *r)
{
    int results = r->ref_entry ? r->ref_entry->num_results : 0;
    release_all(r->ref_out, results);
    release_all(r->spmd_out, results);
    release_all(r->inputs, r->ref_entry ? r->ref_entry->body->num_args : 0);
    if (r->ref_out)
        interp_ctx_free(&r->ref_interp);
    if (r->spmd_out)
        interp_ctx_free(&r->spmd_interp);
    module_free(r->ref);
    module_free(r->spmd);
    diag_free(&r->diag);
    fclose(r->diag_stream);
    free(r->diags);
    free(r->text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Run r;
    memset(&r, 0, sizeof r);
    decode_options(data, size, &r.opts);
    generate(&r);
    r.diag_stream = open_memstream(&r.diags, &r.diags_len);
    if (!r.diag_stream)
        abort();
    diag_init(&r.diag, r.diag_stream);
    diag_add_source(&r.diag, "gen.shir", r.text, r.len);
    r.ref = compile(&r, EMIT_IR, &r.ref_entry);
    r.spmd = compile(&r, EMIT_PARTITIONED, &r.spmd_entry);
    if (!same_signature(r.ref_entry, r.spmd_entry))
        report_bug(&r, "partitioning changed @main's signature");
    make_inputs(&r);
    r.ref_out = execute(&r, &r.ref_interp, r.ref, r.ref_entry);
    r.spmd_out = execute(&r, &r.spmd_interp, r.spmd, r.spmd_entry);
    compare(&r);
    run_free(&r);
    return 0;
}
