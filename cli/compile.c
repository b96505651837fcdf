/* `shardc FILE.shir`: parse, run the pipeline, print what --emit asks for. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli.h"
#include "shardc/config.h"
#include "shardc/io.h"
#include "shardc/limits.h"
#include "shardc/origin.h"
#include "shardc/partition.h"
#include "shardc/propagate.h"
#include "shardc/rules.h"
#include "shardc/parse.h"
#include "shardc/pass.h"
#include "shardc/print.h"

static const char usage_text[] =
    "usage: shardc FILE.shir [-o OUT] [--emit=ir|rules|propagated|partitioned|devices]\n"
    "                        [--func=NAME] [--propagation=aggressive|basic]\n"
    "                        [--explain[=%VALUE]] [--stats[=json]] [--device=K]\n"
    "                        [--time-passes] [--config=FILE.yaml [--rules=NAME]]\n"
    "                        [--max-bytes=N[K|M|G|T]]\n"
    "       shardc rule 'RULE' [--types 'T, ... -> T, ...'] [--size f=N]... [--reduction f,...]\n"
    "                        [--need-replication f,...] [--permutation f,...]\n"
    "       shardc --help | --version\n"
    "\n"
    "FILE may be '-' for standard input. Output goes to stdout unless -o names a\n"
    "file, which is written only if the whole run succeeds.\n";

typedef enum { STATS_NONE, STATS_TABLE, STATS_JSON } StatsFormat;

typedef struct CompileArgs {
    const char *input, *output;
    CompileOptions options;
    StatsFormat stats;
    int device;         /* --device=K for --emit=devices, or -1 */
    ConfigArgs config;  /* --config=FILE.yaml, --rules=NAME */
} CompileArgs;

static const struct { const char *name; EmitKind kind; } emit_names[] = {
    {"ir", EMIT_IR}, {"rules", EMIT_RULES}, {"propagated", EMIT_PROPAGATED},
    {"partitioned", EMIT_PARTITIONED}, {"devices", EMIT_DEVICES},
};

static bool parse_emit(const char *value, EmitKind *out)
{
    for (size_t i = 0; i < sizeof emit_names / sizeof emit_names[0]; i++) {
        if (strcmp(value, emit_names[i].name) == 0) {
            *out = emit_names[i].kind;
            return true;
        }
    }
    return false;
}

/* The message and a pointer to --help: the whole usage text after every
 * typo would bury the one line that matters. */
static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "shardc: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'shardc --help' for more information.\n");
    return 2;
}

/* Returns -1 to continue, else an exit status. */
static int parse_args(int argc, char **argv, CompileArgs *args)
{
    memset(args, 0, sizeof *args);
    args->device = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        ConfigArgResult config_arg = config_parse_arg(&args->config, a);
        if (config_arg == CONFIG_ARG_BAD)
            return 2;
        if (config_arg == CONFIG_ARG_TAKEN)
            continue;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage_text, stdout);
            return 0;
        } else if (strcmp(a, "--version") == 0) {
            printf("shardc %s\n", SHARDC_VERSION);
            return 0;
        } else if (strcmp(a, "-o") == 0) {
            if (++i == argc)
                return usage_error("-o needs a file name%s", "");
            args->output = argv[i];
        } else if (strncmp(a, "--emit=", 7) == 0) {
            if (!parse_emit(a + 7, &args->options.emit))
                return usage_error("unknown --emit kind '%s'", a + 7);
        } else if (strncmp(a, "--func=", 7) == 0) {
            if (!a[7] || (a[7] == '@' && !a[8]))
                return usage_error("--func needs a function name%s", "");
            args->options.entry = a + 7 + (a[7] == '@');
        } else if (strcmp(a, "--propagation=aggressive") == 0 || strcmp(a, "--propagation=basic") == 0) {
            args->options.propagation = a[14] == 'b' ? PROPAGATION_BASIC : PROPAGATION_AGGRESSIVE;
        } else if (strcmp(a, "--explain") == 0 || strncmp(a, "--explain=", 10) == 0) {
            args->options.explain = a[9] ? a + 10 + (a[10] == '%') : "";
        } else if (strcmp(a, "--stats") == 0 || strcmp(a, "--stats=table") == 0) {
            args->stats = STATS_TABLE;
        } else if (strcmp(a, "--stats=json") == 0) {
            args->stats = STATS_JSON;
        } else if (strncmp(a, "--device=", 9) == 0) {
            char *end;
            long id = strtol(a + 9, &end, 10);
            /* an empty or out-of-range id is not device 0 or a wrapped int */
            if (end == a + 9 || *end || id < 0 || id > INT32_MAX)
                return usage_error("--device needs a device id, got '%s'", a + 9);
            args->device = (int)id;
        } else if (strcmp(a, "--time-passes") == 0) {
            args->options.time_passes = true;
        } else if (strncmp(a, "--max-bytes=", 12) == 0) {
            if (!parse_byte_size(a + 12, &args->options.max_bytes))
                return usage_error("--max-bytes needs a positive size such as 4096 or 64G, got '%s'", a + 12);
        } else if (a[0] == '-' && a[1] != '\0') {
            return usage_error("unknown option '%s'", a);
        } else if (args->input) {
            return usage_error("more than one input file ('%s')", a);
        } else {
            args->input = a;
        }
    }
    if (!args->input)
        return usage_error("no input file%s", "");
    if (args->config.path && strcmp(args->config.path, "-") == 0 && strcmp(args->input, "-") == 0)
        return usage_error("--config=- and the input '-' cannot both be standard input%s", "");
    if (args->options.explain && args->options.emit < EMIT_PROPAGATED)
        args->options.emit = EMIT_PROPAGATED;
    if (args->stats && args->options.emit < EMIT_PARTITIONED)
        args->options.emit = EMIT_PARTITIONED;
    return -1;
}

/* --stats goes to stdout; the program then only goes to -o, if given. */
static bool emit_stats(const CompileArgs *args, const PartitionStats *stats)
{
    if (args->stats == STATS_JSON)
        stats_print_json(stdout, stats);
    else
        stats_print_table(stdout, stats);
    return fflush(stdout) == 0;
}

static bool emit_module(Module *m, const CompileArgs *args, PassContext *ctx)
{
    if (args->stats && !emit_stats(args, ctx->stats))
        return false;
    if (args->stats && !args->output)
        return true;
    OutputFile out;
    int errors_before = ctx->diag->errors;
    if (!output_open(&out, ctx->diag, args->output))
        return false;
    if (args->options.emit == EMIT_DEVICES)
        print_devices(out.stream, m, args->device);
    else if (args->options.explain) {
        origins_explain(out.stream, ctx->origins, m, args->options.explain[0] ? args->options.explain : NULL);
        if (args->options.emit >= EMIT_PARTITIONED)
            stats_print_reasons(out.stream, ctx->stats);
    }
    else if (args->options.emit == EMIT_RULES)
        print_module_with_rules(out.stream, m, ctx->diag);
    else
        print_module(out.stream, m);
    if (ctx->diag->errors > errors_before) {
        output_abandon(&out); /* e.g. a rule that failed to build: no partial file */
        return false;
    }
    return output_commit(&out, ctx->diag);
}

/* For --time-passes: reading and parsing, and printing the output, are
 * timed here, the passes in passes/pipeline.c, in the same format: wall
 * time, then this thread's CPU time. */
static double time_seconds(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct StageTimer {
    double wall, cpu;
} StageTimer;

static StageTimer stage_start(void)
{
    return (StageTimer){time_seconds(CLOCK_MONOTONIC), time_seconds(CLOCK_THREAD_CPUTIME_ID)};
}

static void stage_report(const char *name, StageTimer start)
{
    fprintf(stderr, "  %-24s %10.3f ms %10.3f ms cpu\n", name, 1e3 * (time_seconds(CLOCK_MONOTONIC) - start.wall),
            1e3 * (time_seconds(CLOCK_THREAD_CPUTIME_ID) - start.cpu));
}

int cmd_compile(int argc, char **argv)
{
    CompileArgs args;
    int status = parse_args(argc, argv, &args);
    if (status >= 0)
        return status;
    DiagEngine diag;
    diag_init(&diag, stderr);
    Config *config = NULL;
    status = config_apply_cli(&args.config, &diag, &config);
    if (status >= 0) {
        diag_free(&diag);
        return status;
    }
    args.options.config = config;
    size_t len = 0;
    const char *name = strcmp(args.input, "-") == 0 ? "<stdin>" : args.input;
    StageTimer start = stage_start();
    char *text = read_source(&diag, args.input, &len);
    Module *m = NULL;
    if (text) {
        diag_add_source(&diag, name, text, len);
        m = parse_module(name, text, len, &diag);
    }
    if (args.options.time_passes) /* the same format as the passes' lines */
        stage_report("parse", start);
    OriginTable origins = {0};
    PartitionStats stats = {0};
    PassContext ctx = {&diag, &args.options, &origins, &stats};
    bool ok = m && pipeline_run(m, &ctx);
    start = stage_start();
    ok = ok && emit_module(m, &args, &ctx);
    if (ok && args.options.time_passes)
        stage_report("emit", start);
    module_free(m);
    diag_free(&diag);
    config_free(config); /* after the last diagnostic, which may quote it */
    free(text);
    return ok ? 0 : 1;
}
