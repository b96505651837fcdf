/* `shardc FILE.shir`: parse, run the pipeline, print what --emit asks for. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cli.h"
#include "shardc/autoshard.h"
#include "cmd.h"
#include "shardc/config.h"
#include "shardc/interp.h"
#include "output.h"
#include "shardc/limits.h"
#include "shardc/suggest.h"
#include "shardc/mlir.h"
#include "shardc/origin.h"
#include "shardc/partition.h"
#include "shardc/propagate.h"
#include "shardc/rules.h"
#include "shardc/parse.h"
#include "shardc/pass.h"
#include "shardc/print.h"
#include "shardc/timer.h"

#define SHARDC_VERSION "0.1.0"

typedef enum { STATS_NONE, STATS_TABLE, STATS_JSON } StatsFormat;

typedef struct CompileArgs {
    CliCommon common;   /* --func, --max-bytes, --config, --rules */
    const char *input, *output;
    CompileOptions options;
    StatsFormat stats;
    int device;         /* --device=K for --emit=devices, or -1 */
    bool mlir;          /* --emit=sdy, sdy-partitioned: print as StableHLO + sdy MLIR */
    bool dot;           /* --emit=dot: the partitioned program as a Graphviz graph */
    const char *visualize; /* --visualize=%v[,%w]: those values' device layouts */
    bool visualize_svg;    /* --visualize-format=svg: one NAME.svg each, in -o DIR */
    bool split, verify; /* -split-input-file, -verify-diagnostics */
} CompileArgs;

/* ---- flags ---- */

static CompileArgs *compile_args(CliParse *p) { return p->args; }

static int flag_input(CliParse *p, const char *v) { return cli_take_one(&compile_args(p)->input, v); }

static int flag_output(CliParse *p, const char *v) { compile_args(p)->output = v; return CLI_OK; }

/* sdy and sdy-partitioned are the propagated and the partitioned program
 * printed as sdy_opt prints MLIR (src/mlir/, docs/mlir.md). */
static const struct { const char *name; EmitKind kind; bool mlir, dot; } emit_names[] = {
    {"ir", EMIT_IR, false, false}, {"rules", EMIT_RULES, false, false},
    {"propagated", EMIT_PROPAGATED, false, false}, {"partitioned", EMIT_PARTITIONED, false, false},
    {"devices", EMIT_DEVICES, false, false}, {"sdy", EMIT_PROPAGATED, true, false},
    {"sdy-partitioned", EMIT_PARTITIONED, true, false}, {"dot", EMIT_PARTITIONED, false, true},
};

static int flag_emit(CliParse *p, const char *v)
{
    for (size_t i = 0; i < sizeof emit_names / sizeof emit_names[0]; i++) {
        if (strcmp(v, emit_names[i].name) == 0) {
            compile_args(p)->options.emit = emit_names[i].kind;
            compile_args(p)->mlir = emit_names[i].mlir;
            compile_args(p)->dot = emit_names[i].dot;
            return CLI_OK;
        }
    }
    enum { NUM_EMIT = sizeof emit_names / sizeof emit_names[0] };
    const char *names[NUM_EMIT];
    for (size_t i = 0; i < NUM_EMIT; i++)
        names[i] = emit_names[i].name;
    const char *near = suggest_closest(v, strlen(v), names, NUM_EMIT);
    return near ? cli_usage_error(p->cmd, "unknown --emit kind '%s'; did you mean '%s'?", v, near) : CLI_BAD;
}

/* basic, aggressive, or conservative: aggressive with Shardy's
 * conservative-propagation (no sub-axes made, resized dims not sharded). */
static int flag_propagation(CliParse *p, const char *v)
{
    bool basic = strcmp(v, "basic") == 0, conservative = strcmp(v, "conservative") == 0;
    compile_args(p)->options.propagation = basic ? PROPAGATION_BASIC : PROPAGATION_AGGRESSIVE;
    compile_args(p)->options.conservative_propagation = conservative;
    return basic || conservative || strcmp(v, "aggressive") == 0 ? CLI_OK : CLI_BAD;
}

/* --explain alone, or --explain=%NAME (the '%' optional) */
static int flag_explain(CliParse *p, const char *v)
{
    compile_args(p)->options.explain = v ? v + (v[0] == '%') : "";
    return CLI_OK;
}

static int flag_visualize(CliParse *p, const char *v)
{
    compile_args(p)->visualize = v;
    return *v ? CLI_OK : CLI_BAD;
}

static int flag_visualize_format(CliParse *p, const char *v)
{
    compile_args(p)->visualize_svg = strcmp(v, "svg") == 0;
    return compile_args(p)->visualize_svg || strcmp(v, "text") == 0 ? CLI_OK : CLI_BAD;
}

static int flag_stats(CliParse *p, const char *v)
{
    bool json = v && strcmp(v, "json") == 0;
    compile_args(p)->stats = json ? STATS_JSON : STATS_TABLE;
    return json || !v || strcmp(v, "table") == 0 ? CLI_OK : CLI_BAD;
}

static int flag_device(CliParse *p, const char *v)
{
    char *end;
    long id = strtol(v, &end, 10);
    compile_args(p)->device = (int)id;
    /* an empty or out-of-range id is not device 0 or a wrapped int */
    return end == v || *end || id < 0 || id > INT32_MAX ? CLI_BAD : CLI_OK;
}

static int flag_time_passes(CliParse *p, const char *v) { compile_args(p)->options.time_passes = true; return CLI_OK; }

/* --pass-pipeline=verify,propagate,...: a sub-list of --list-passes. */
static int flag_pass_pipeline(CliParse *p, const char *v)
{
    char buf[256];
    if (!*v)
        return CLI_BAD;
    const char *error = pipeline_check_list(v, true, buf, sizeof buf);
    compile_args(p)->options.pass_list = v;
    return error ? cli_usage_error(p->cmd, "--pass-pipeline: %s", error) : CLI_OK;
}

/* --print-ir-before=PASS[,PASS], --print-ir-after=..., --print-ir-after-all */
static int flag_print_ir(CliParse *p, const char *v)
{
    char buf[256];
    if (v && !*v)
        return CLI_BAD;
    const char *error = v ? pipeline_check_list(v, false, buf, sizeof buf) : NULL;
    CompileOptions *options = &compile_args(p)->options;
    if (strcmp(p->flag->name, "--print-ir-before") == 0)
        options->print_before = v;
    else
        options->print_after = v ? v : "*";
    return error ? cli_usage_error(p->cmd, "%s: %s", p->flag->name, error) : CLI_OK;
}

static int flag_list_passes(CliParse *p, const char *v)
{
    for (const Pass *const *pass = pipeline_passes(); *pass; pass++)
        if (!(*pass)->enabled) /* opt-in passes (auto-shard) are not the default pipeline */
            printf("%s\n", (*pass)->name);
    return 0;
}

static int flag_split(CliParse *p, const char *v) { compile_args(p)->split = true; return CLI_OK; }
static int flag_verify(CliParse *p, const char *v) { compile_args(p)->verify = true; return CLI_OK; }

static int flag_version(CliParse *p, const char *v)
{
    printf("shardc %s\n", SHARDC_VERSION);
    return 0;
}

static const CliFlag compile_flags[] = {
    {NULL, CLI_BARE, flag_input, "more than one input file ('%s')", "FILE.shir"},
    {"-o", CLI_SEPARATE, flag_output, "-o needs a file name", "[-o OUT]"},
    {"--emit", CLI_JOINED, flag_emit, "unknown --emit kind '%s'", "[--emit=ir|rules|propagated|partitioned|devices|sdy|sdy-partitioned|dot]"},
    CLI_FLAG_FUNC,
    {"--propagation", CLI_JOINED, flag_propagation, "unknown option '--propagation=%s'",
     "[--propagation=aggressive|basic|conservative]"},
    {"--explain", CLI_OPTIONAL, flag_explain, NULL, "[--explain[=%VALUE]]"},
    {"--visualize", CLI_JOINED, flag_visualize, "--visualize needs value names", "[--visualize=%V[,%W...]]"},
    {"--visualize-format", CLI_JOINED, flag_visualize_format, "unknown --visualize-format '%s' (text or svg)",
     "[--visualize-format=text|svg]"},
    {"--stats", CLI_OPTIONAL, flag_stats, "unknown option '--stats=%s'", "[--stats[=json]]"},
    {"--device", CLI_JOINED, flag_device, "--device needs a device id, got '%s'", "[--device=K]"},
    {"--time-passes", CLI_BARE, flag_time_passes, NULL, "[--time-passes]"},
    {"--pass-pipeline", CLI_JOINED, flag_pass_pipeline, "--pass-pipeline needs pass names", "[--pass-pipeline=PASS,...]"},
    {"--print-ir-before", CLI_JOINED, flag_print_ir, "--print-ir-before needs pass names", "[--print-ir-before=PASS,...]"},
    {"--print-ir-after", CLI_JOINED, flag_print_ir, "--print-ir-after needs pass names", "[--print-ir-after=PASS,...]"},
    {"--print-ir-after-all", CLI_BARE, flag_print_ir, NULL, "[--print-ir-after-all]"},
    {"--list-passes", CLI_BARE, flag_list_passes, NULL, NULL},
    {"-split-input-file", CLI_BARE, flag_split, NULL, "[-split-input-file]"},
    {"--split-input-file", CLI_BARE, flag_split, NULL, NULL},
    {"-verify-diagnostics", CLI_BARE, flag_verify, NULL, "[-verify-diagnostics]"},
    {"--verify-diagnostics", CLI_BARE, flag_verify, NULL, NULL},
    CLI_FLAGS_CONFIG(CLI_CONFIG_SYNOPSIS),
    CLI_FLAG_MAX_BYTES,
    CLI_FLAG_INPUT_FORMAT,
    CLI_FLAGS_AUTO_SHARD,
    CLI_FLAG_RESHARD_PLAN,
    CLI_FLAGS_WARNINGS,
    CLI_FLAGS_HELP,
    {"--version", CLI_BARE, flag_version, NULL, NULL},
};

static const CliCommand *const subcommands[] = {&cmd_run_command, &cmd_rule_command, &cmd_opt_command, NULL};

const CliCommand cmd_compile_command = {
    .name = "shardc",
    .summary = "verify, propagate, partition FILE; print what --emit asks for",
    CLI_TABLE(compile_flags),
    .description = "FILE may be '-' for standard input. Output goes to stdout unless -o names a\n"
                   "file, which is written only if the whole run succeeds.\n",
    .others = subcommands,
    .more_usage = "shardc --help | --version | --list-passes | help [COMMAND]",
    .missing_positional = "no input file",
};

/* What --emit, --stats or --explain print must be made by a pass the
 * --pass-pipeline runs: an unpartitioned module is no --emit=partitioned. */
static int check_pass_list(const CompileArgs *args)
{
    const char *list = args->options.pass_list;
    const Pass *needed = args->options.emit >= EMIT_PARTITIONED  ? &pass_partition
                         : args->options.emit >= EMIT_PROPAGATED ? &pass_propagate
                                                                 : NULL;
    if (!list || !needed || pipeline_list_names(list, needed))
        return -1;
    return cli_usage_error(&cmd_compile_command, "what --emit, --stats or --explain print needs the pass '%s' in --pass-pipeline",
                           needed->name);
}

static const char *emit_name(EmitKind kind)
{
    for (size_t i = 0; i < sizeof emit_names / sizeof emit_names[0]; i++)
        if (emit_names[i].kind == kind && !emit_names[i].mlir && !emit_names[i].dot)
            return emit_names[i].name;
    return "?";
}

/* Some pass --print-ir-before/after names must run, or nothing would print. */
static int check_printed_passes(const CompileOptions *options)
{
    const char *flags[] = {"--print-ir-before", "--print-ir-after"}, *lists[] = {options->print_before,
                                                                                  options->print_after};
    for (int i = 0; i < 2; i++) {
        const Pass *idle = pipeline_none_run(lists[i], options);
        if (!idle)
            continue;
        if (options->pass_list)
            return cli_usage_error(&cmd_compile_command, "%s: pass '%s' is not in --pass-pipeline", flags[i], idle->name);
        if (options->emit >= idle->needed_from) /* an opt-in pass */
            return cli_usage_error(&cmd_compile_command, "%s: pass '%s' runs only with --%s", flags[i], idle->name,
                                   idle->name);
        return cli_usage_error(&cmd_compile_command, "%s: pass '%s' does not run for --emit=%s; it runs from --emit=%s on",
                               flags[i], idle->name, emit_name(options->emit), emit_name(idle->needed_from));
    }
    return -1;
}

/* Returns -1 to continue, else an exit status. */
static int parse_args(int argc, char **argv, CompileArgs *args)
{
    memset(args, 0, sizeof *args);
    args->device = -1;
    int status = cli_parse(&cmd_compile_command, argc, argv, args, &args->common);
    if (status >= 0)
        return status;
    const char *config = args->common.config.path;
    if (config && strcmp(config, "-") == 0 && strcmp(args->input, "-") == 0)
        return cli_usage_error(&cmd_compile_command, "--config=- and the input '-' cannot both be standard input");
    args->options.entry = args->common.func;
    args->options.max_bytes = args->common.max_bytes;
    args->options.auto_shard = args->common.auto_shard;
    args->options.memory_budget = args->common.memory_budget;
    args->options.auto_shard_time = args->common.auto_shard_time;
    args->options.reshard_plan = args->common.reshard_plan;
    if ((args->options.explain || args->visualize || args->options.auto_shard) && args->options.emit < EMIT_PROPAGATED)
        args->options.emit = EMIT_PROPAGATED;
    if (args->visualize_svg && !args->visualize)
        return cli_usage_error(&cmd_compile_command, "--visualize-format needs --visualize=%%V[,%%W...]");
    if (args->stats && args->options.emit < EMIT_PARTITIONED)
        args->options.emit = EMIT_PARTITIONED;
    int status_lists = check_pass_list(args);
    return status_lists >= 0 ? status_lists : check_printed_passes(&args->options);
}

/* --stats goes to stdout; the program then only goes to -o, if given. */
static bool emit_stats(const CompileArgs *args, const Module *m, const char *entry, PartitionStats *stats)
{
    stats_count(stats, m, entry); /* a figure it could not count is said in the table */
    if (args->stats == STATS_JSON)
        stats_print_json(stdout, stats);
    else
        stats_print_table(stdout, stats);
    stats_free(stats);
    return fflush(stdout) == 0;
}

/* The search's --explain lines: all of them, or (--explain=%NAME) the
 * value's line and its runner-up line. */
static void print_auto_shard_explain(FILE *out, const char *text, const char *name)
{
    size_t n = strlen(name);
    bool shown = false;
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) + 1 : strlen(line);
        if (line[0] != ' ')
            shown = !n || (line[0] == '%' && strncmp(line + 1, name, n) == 0 && line[n + 1] == ':');
        if (shown)
            fwrite(line, 1, len, out);
        line += len;
    }
}

/* What --emit asks for. */
static void print_output(FILE *out, Module *m, const CompileArgs *args, PassContext *ctx)
{
    if (args->options.emit == EMIT_DEVICES)
        partition_print_devices(out, m, args->device);
    else if (args->options.explain) {
        if (ctx->autoshard && ctx->autoshard->explain) /* why the search chose what propagation then spread */
            print_auto_shard_explain(out, ctx->autoshard->explain, args->options.explain);
        origins_explain(out, ctx->origins, m, args->options.explain[0] ? args->options.explain : NULL);
        if (args->options.emit >= EMIT_PARTITIONED)
            stats_print_reasons(out, ctx->stats);
    }
    else if (args->options.emit == EMIT_RULES)
        rule_print_module(out, m, ctx->diag);
    else if (args->mlir)
        mlir_print_module(out, m);
    else if (args->dot)
        print_module_dot(out, m);
    else
        print_module(out, m);
}

/* ---- --visualize ---- */

typedef struct NamedValue {
    const char *name;
    const Value *found;
} NamedValue;

static bool match_name(Value *v, void *user)
{
    NamedValue *n = user;
    if (v->name && strcmp(v->name, n->name) == 0)
        n->found = v;
    return n->found == NULL;
}

/* The first value named `name` (no '%') in module order, or NULL. */
static const Value *find_value(const Module *m, const char *name)
{
    NamedValue n = {name, NULL};
    ir_walk_module(m, &(IrWalker){.value = match_name, .user = &n, .scope = IR_WALK_GLOBAL});
    return n.found;
}

/* "%v: f32[4,8] <@m, [...]>" */
static char *value_title(const Value *v)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem)
        return NULL;
    fprintf(mem, "%%%s: ", v->name);
    type_print(mem, &v->type);
    if (v->sharding) {
        fputc(' ', mem);
        print_sharding(mem, v->sharding);
    }
    fclose(mem);
    return text;
}

static bool visualize_one(const Value *v, const CompileArgs *args, FILE *out, DiagEngine *diag)
{
    char *title = value_title(v);
    if (!title)
        return false;
    bool ok = true;
    if (!args->visualize_svg) {
        fprintf(out, "%s\n", title);
        visualize_sharding(out, v->sharding, &v->type);
    } else {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.svg", args->output ? args->output : ".", v->name);
        OutputFile file;
        ok = cli_output_open(&file, diag, path);
        if (ok) {
            visualize_sharding_svg(file.stream, v->sharding, &v->type, title);
            ok = cli_output_commit(&file, diag);
        }
    }
    free(title);
    return ok;
}

/* --visualize=%a,%b: every name is checked before anything is written. */
static bool visualize_values(const Module *m, const CompileArgs *args, DiagEngine *diag)
{
    char list[1024];
    snprintf(list, sizeof list, "%s", args->visualize);
    const Value *values[64];
    int n = 0;
    for (char *save = NULL, *name = strtok_r(list, ",", &save); name && n < 64; name = strtok_r(NULL, ",", &save)) {
        name += name[0] == '%';
        if (!(values[n++] = find_value(m, name))) {
            diag_error(diag, (Loc){m->file, 0, 0}, "--visualize: no value %%%s in the program", name);
            return false;
        }
    }
    /* -o DIR for the SVGs: made if missing, as `mkdir DIR` would */
    if (args->visualize_svg && args->output && mkdir(args->output, 0777) != 0 && errno != EEXIST) {
        diag_error(diag, (Loc){args->output, 0, 0}, "cannot create the directory for --visualize-format=svg: %s",
                   strerror(errno));
        return false;
    }
    OutputFile out;
    bool to_file = args->output && !args->visualize_svg;
    if (to_file && !cli_output_open(&out, diag, args->output))
        return false;
    bool ok = true;
    for (int i = 0; i < n && ok; i++)
        ok = visualize_one(values[i], args, to_file ? out.stream : stdout, diag);
    if (to_file)
        return ok ? cli_output_commit(&out, diag) : (cli_output_abandon(&out), false);
    return ok;
}

static bool emit_module(Module *m, const CompileArgs *args, PassContext *ctx)
{
    if (args->visualize)
        return visualize_values(m, args, ctx->diag);
    if (args->stats && !emit_stats(args, m, ctx->options->entry, ctx->stats))
        return false;
    if (args->stats && !args->output)
        return true;
    if ((args->options.emit == EMIT_DEVICES && !partition_check_device(m, args->device, ctx->diag)) ||
        (args->options.explain && args->options.explain[0] &&
         !origins_check_name(ctx->origins, m, args->options.explain, ctx->diag)))
        return false;
    OutputFile out;
    int errors_before = ctx->diag->errors;
    if (!cli_output_open(&out, ctx->diag, args->output))
        return false;
    print_output(out.stream, m, args, ctx);
    if (ctx->diag->errors > errors_before) {
        cli_output_abandon(&out); /* e.g. a rule that failed to build: no partial file */
        return false;
    }
    return cli_output_commit(&out, ctx->diag);
}

/* Reads and parses the input; NULL (reported) on errors. *text stays for
 * the diagnostics only while parsing fails or the input is standard input
 * (cli_release_text). */
static Module *read_module(DiagEngine *diag, const CompileArgs *args, char **text)
{
    Timer start = timer_start();
    size_t len = 0;
    Module *m = cli_read_program(diag, args->input, &args->common, text, &len);
    if (m)
        cli_release_text(diag, args->input, text);
    if (args->options.time_passes) /* the same format as the passes' lines */
        timer_report(stderr, "parse", start);
    return m;
}

/* The whole file as one module. *text (free it) is NULL once released. */
static bool compile_file(CompileArgs *args, DiagEngine *diag, char **text)
{
    Module *m = read_module(diag, args, text);
    OriginTable origins = {0};
    PartitionStats stats = {0};
    AutoShardReport autoshard = {0};
    PassContext ctx = {diag, &args->options, &origins, &stats, &autoshard};
    /* --stats count the function `shardc run` runs */
    if (m && args->stats)
        args->options.entry = cli_entry_name(diag, m, args->options.entry);
    /* (a pass that went on after a warning -Werror made an error stops here) */
    bool ok = m && (!args->stats || args->options.entry) && pipeline_run(m, &ctx) && diag->errors == 0;
    Timer start = timer_start();
    ok = ok && emit_module(m, args, &ctx);
    if (ok && args->options.time_passes)
        timer_report(stderr, "emit", start);
    autoshard_report_free(&autoshard);
    module_free(m);
    return ok;
}

/* ---- -split-input-file, -verify-diagnostics ---- */

typedef struct Chunks {
    const CompileArgs *args;
    FILE *out;
    Arena texts;        /* the chunks, alive as long as the diagnostics that quote them */
} Chunks;

/* One chunk: parse, run the pipeline, print into c->out. */
static bool compile_chunk(void *user, DiagEngine *diag, const char *name, const char *text, size_t len)
{
    const Chunks *c = user;
    CompileOptions options = c->args->options;
    OriginTable origins = {0};
    PartitionStats stats = {0};
    AutoShardReport autoshard = {0};
    PassContext ctx = {diag, &options, &origins, &stats, &autoshard};
    Module *m = cli_parse_program(diag, c->args->input, &c->args->common, text, len);
    if (m && c->args->stats)
        options.entry = cli_entry_name(diag, m, options.entry);
    int errors = diag->errors;
    bool ok = m && (!c->args->stats || options.entry) && pipeline_run(m, &ctx);
    if (ok && c->args->stats)
        ok = emit_stats(c->args, m, options.entry, &stats);
    if (ok && (!c->args->stats || c->args->output))
        print_output(c->out, m, c->args, &ctx);
    autoshard_report_free(&autoshard);
    module_free(m);
    return ok && diag->errors == errors;
}

static bool run_chunk(Chunks *c, DiagEngine *diag, const char *name, const char *text, size_t len)
{
    diag_add_source(diag, name, text, len);
    if (c->args->verify)
        return cli_verify_diagnostics(name, text, len, diag, compile_chunk, c);
    return compile_chunk(c, diag, name, text, len);
}

/* Each chunk compiled on its own, the outputs separated by `// -----`;
 * the output file is written if every chunk succeeded. */
static bool compile_chunks(Chunks *c, DiagEngine *diag, const char *text, size_t len)
{
    const char *name = strcmp(c->args->input, "-") == 0 ? "<stdin>" : c->args->input;
    OutputFile out;
    if (!cli_output_open(&out, diag, c->args->output))
        return false;
    c->out = out.stream;
    bool ok = true;
    int line = 0;
    const char *p = text, *end = text + len;
    do {
        size_t n = len;
        const char *chunk = c->args->split ? cli_split_next(&c->texts, &p, end, &line, &n, true) : (p = end, text);
        ok = run_chunk(c, diag, name, chunk, n) && ok;
        if (p < end)
            fputs("// -----\n", out.stream);
    } while (p < end);
    if (ok)
        return cli_output_commit(&out, diag);
    cli_output_abandon(&out);
    return false;
}

int cmd_compile(int argc, char **argv)
{
    CompileArgs args;
    int status = parse_args(argc, argv, &args);
    if (status >= 0)
        return status;
    DiagEngine diag;
    diag_init(&diag, stderr);
    diag.warnings_as = args.common.warnings;
    Config *config = NULL;
    status = cli_load_config(&cmd_compile_command, &args.common.config, &diag, &config);
    if (status >= 0) {
        diag_free(&diag);
        return status;
    }
    args.options.config = config;
    /* Compiling needs a custom op's rule, not its meaning: a target the
     * module does not define (a runtime custom_call with its
     * sdy.sharding_rule) propagates and partitions; `shardc run`, which
     * computes it, reports it at the op (issue 18). */
    args.options.external_custom_targets = true;
    char *text = NULL;
    Chunks chunks = {.args = &args};
    arena_init(&chunks.texts);
    bool ok;
    if (args.split || args.verify) {
        size_t len = 0;
        text = io_read_source(&diag, args.input, &len);
        ok = text && compile_chunks(&chunks, &diag, text, len);
    } else {
        ok = compile_file(&args, &diag, &text);
    }
    diag_free(&diag);
    arena_free(&chunks.texts);
    config_free(config); /* after the last diagnostic, which may quote it */
    free(text);
    return ok ? 0 : 1;
}
