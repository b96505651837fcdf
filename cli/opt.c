/* `shardc opt FILE.mlir [flags]`: an sdy_opt-compatible driver. It reads
 * StableHLO + sdy MLIR, runs the Shardy-named passes given as flags
 * (mapped onto shardc's own stages, opt_passes below) and prints MLIR as
 * sdy_opt does; with -split-input-file each `// -----` chunk is a module
 * of its own, with -verify-diagnostics the chunk's expected-* annotations
 * are checked as mlir-opt checks them (docs/mlir.md). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "opt_shardings.h"
#include "cmd.h"
#include "output.h"
#include "shardc/mlir.h"
#include "shardc/pass.h"
#include "shardc/propagate.h"

/* What a Shardy pass flag becomes. */
typedef enum {
    OPT_IDENTITY,       /* nothing to do on the programs shardc reads */
    OPT_BASIC,          /* propagation, conflict-free axes only */
    OPT_AGGRESSIVE,     /* propagation that resolves conflicts */
    OPT_PIPELINE,       /* propagation, then shardings closed as Shardy's export does */
    OPT_GROUP_IMPORT,   /* sharding groups merged and renumbered */
    OPT_SPLIT,          /* constant sub-computations copied per use */
    OPT_RULES,          /* each op's sharding rule attached as sdy.sharding_rule */
    OPT_EXPLICIT,       /* explicit reshards and all-reduces (mlir_insert_explicit_reshards) */
    OPT_COLLECTIVES,    /* reshards to collectives (mlir_reshard_to_collectives) */
    OPT_GLOBAL_TO_LOCAL, /* per-device types and collectives (mlir_convert_global_to_local) */
    OPT_UNSUPPORTED,
} OptAction;

typedef struct OptPass {
    const char *name;
    OptAction action;
    const char *options[8];     /* the pass options it takes (NAME=VALUE as written; NAME= takes a count) */
} OptPass;

static const OptPass opt_passes[] = {
    {"-sdy-basic-propagate", OPT_BASIC,
     {"conservative-propagation=false", "conservative-propagation=true", "keep-sharding-rules=false",
      "keep-sharding-rules=true"}},
    {"-sdy-aggressive-propagate", OPT_AGGRESSIVE, {"propagation-strategy=aggressive"}},
    {"-sdy-op-priority-propagate", OPT_AGGRESSIVE, {0}},
    {"-sdy-user-priority-propagate", OPT_AGGRESSIVE, {0}},
    {"-sdy-propagation-pipeline", OPT_PIPELINE, {"dedup-functions-fully=false", "dedup-functions-fully=true"}},
    {"-sdy-add-data-flow-edges", OPT_IDENTITY, {0}},
    {"-sdy-sink-data-flow-edges", OPT_IDENTITY, {0}},
    {"-sdy-sharding-group-import", OPT_GROUP_IMPORT, {0}},
    {"-sdy-populate-op-sharding-rules", OPT_RULES, {"conservative-propagation=false", "conservative-propagation=true"}},
    {"-sdy-insert-explicit-reshards", OPT_EXPLICIT, {"enable-full-version=true", "enable-full-version=false"}},
    {"-sdy-reshard-to-collectives", OPT_COLLECTIVES, {0}},
    {"-sdy-constant-or-scalar-splitter", OPT_SPLIT, {0}},
    {"-sdy-convert-global-to-local", OPT_GLOBAL_TO_LOCAL,
     {"per-dim-all-gather=true", "per-dim-all-gather=false", "enable-rgv3=true", "enable-rgv3=false",
      "combine-multi-dimension-reduce-scatter=true", "combine-multi-dimension-reduce-scatter=false",
      "replica-count=", "partition-count="}},
    {"-sdy-drop-sharding-and-mesh", OPT_UNSUPPORTED, {0}},
};
enum { OPT_NUM_PASSES = sizeof opt_passes / sizeof opt_passes[0], OPT_MAX_RUN = 16 };

typedef struct OptArgs {
    CliCommon common;
    const char *input, *output;
    bool split, verify;
    MlirReadOptions read;       /* -allow-unregistered-dialect */
    int num_run;
    const OptPass *run[OPT_MAX_RUN];
    const char *run_options[OPT_MAX_RUN];
    bool *warned_unknown_call;  /* Shardy warns of an unknown custom call once per run */
} OptArgs;

static OptArgs *opt_args(CliParse *p) { return p->args; }
static int flag_input(CliParse *p, const char *v) { return cli_take_one(&opt_args(p)->input, v); }
static int flag_output(CliParse *p, const char *v) { opt_args(p)->output = v; return CLI_OK; }
static int flag_split(CliParse *p, const char *v) { (void)v; opt_args(p)->split = true; return CLI_OK; }
static int flag_verify(CliParse *p, const char *v) { (void)v; opt_args(p)->verify = true; return CLI_OK; }
static int flag_unregistered(CliParse *p, const char *v)
{
    (void)v;
    opt_args(p)->read.allow_unregistered = true;
    return CLI_OK;
}

/* Whether o is the option `known` (NAME=VALUE), or (`known` ending in
 * '=') NAME= and a count from 1. */
static bool option_matches(const char *known, const char *o)
{
    size_t n = strlen(known);
    if (!n || known[n - 1] != '=')
        return strcmp(known, o) == 0;
    char *end;
    return strncmp(known, o, n) == 0 && o[n] >= '1' && o[n] <= '9' && strtoll(o + n, &end, 10) > 0 && !*end;
}

/* Whether each space-separated NAME=VALUE of `options` is one the pass takes. */
static bool options_known(const OptPass *pass, const char *options)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", options);
    for (char *save = NULL, *o = strtok_r(buf, " ", &save); o; o = strtok_r(NULL, " ", &save)) {
        bool known = false;
        for (int i = 0; i < 8 && pass->options[i]; i++)
            known = known || option_matches(pass->options[i], o);
        if (!known)
            return false;
    }
    return true;
}

static int flag_pass(CliParse *p, const char *v)
{
    OptArgs *args = opt_args(p);
    if (args->num_run == OPT_MAX_RUN)
        return cli_usage_error(p->cmd, "too many passes (at most %d)", OPT_MAX_RUN);
    const OptPass *pass = NULL;
    for (int i = 0; i < OPT_NUM_PASSES; i++)
        if (strcmp(opt_passes[i].name, p->flag->name) == 0)
            pass = &opt_passes[i];
    if (v && !options_known(pass, v))
        return cli_usage_error(p->cmd, "%s: pass options '%s' are not supported (docs/mlir.md)", pass->name, v);
    args->run_options[args->num_run] = v;
    args->run[args->num_run++] = pass;
    return CLI_OK;
}

#define OPT_PASS_ROW(name) {name, CLI_OPTIONAL, flag_pass, NULL, NULL}

static const CliFlag opt_flags[] = {
    {NULL, CLI_BARE, flag_input, "shardc opt: more than one input file ('%s')", "FILE.mlir|-"},
    CLI_FLAGS_HELP,
    {"-o", CLI_SEPARATE, flag_output, "-o needs a file name", "[-o OUT.mlir]"},
    {"-split-input-file", CLI_BARE, flag_split, NULL, "[-split-input-file]"},
    {"-verify-diagnostics", CLI_BARE, flag_verify, NULL, "[-verify-diagnostics]"},
    {"-allow-unregistered-dialect", CLI_BARE, flag_unregistered, NULL, "[-allow-unregistered-dialect]"},
    OPT_PASS_ROW("-sdy-basic-propagate"), OPT_PASS_ROW("-sdy-aggressive-propagate"),
    OPT_PASS_ROW("-sdy-op-priority-propagate"), OPT_PASS_ROW("-sdy-user-priority-propagate"),
    OPT_PASS_ROW("-sdy-propagation-pipeline"), OPT_PASS_ROW("-sdy-add-data-flow-edges"),
    OPT_PASS_ROW("-sdy-sink-data-flow-edges"), OPT_PASS_ROW("-sdy-sharding-group-import"),
    OPT_PASS_ROW("-sdy-populate-op-sharding-rules"), OPT_PASS_ROW("-sdy-insert-explicit-reshards"),
    OPT_PASS_ROW("-sdy-reshard-to-collectives"), OPT_PASS_ROW("-sdy-constant-or-scalar-splitter"),
    OPT_PASS_ROW("-sdy-convert-global-to-local"), OPT_PASS_ROW("-sdy-drop-sharding-and-mesh"),
};

const CliCommand cmd_opt_command = {
    .name = "shardc opt",
    .summary = "sdy_opt's command line: Shardy passes over StableHLO + sdy MLIR",
    CLI_TABLE(opt_flags),
    .description = "Read StableHLO + sdy MLIR, run the Shardy passes named by the flags, print MLIR\n"
                   "as sdy_opt does. LLVM-style flags: -flag and --flag are the same (docs/mlir.md).\n",
    .dash_positionals = true,
    .missing_positional = "no input file",
    .more_usage = "shardc opt FILE.mlir [-sdy-PASS[=OPTIONS]]...",
};

/* ---- running ---- */

/* LLVM's options take one dash or two: --sdy-basic-propagate is
 * -sdy-basic-propagate (but --help and -- stay). */
static char **normalize_dashes(int argc, char **argv)
{
    char **out = calloc((size_t)argc + 1, sizeof *out);
    for (int i = 0; i < argc; i++) {
        bool two = i > 0 && strncmp(argv[i], "--", 2) == 0 && argv[i][2] && strcmp(argv[i], "--help") != 0;
        out[i] = two ? argv[i] + 1 : argv[i];
    }
    return out;
}

/* What the passes asked for, in order: the emit kind and propagation;
 * whether constants are split (Shardy's splitter, also in its pipeline's
 * import), sharding groups renumbered (the pipeline imports them too), and
 * the pipeline's import and export run around propagation. */
typedef struct OptPlan {
    CompileOptions options;
    bool split, import_groups, pipeline, explicit_reshards;
    bool explicit_partial;
    bool collectives;       /* -sdy-reshard-to-collectives */
    bool global_to_local;   /* -sdy-convert-global-to-local, with its options: */
    MlirGlobalToLocalOptions local;  /* enable-full-version=false (or not given, Shardy's default) */
    bool dedup_fully;   /* the pipeline's dedup-functions-fully=true: calls stay, edges join functions */
    bool rules, rules_conservative; /* -sdy-populate-op-sharding-rules and its option */
} OptPlan;

/* The value of NAME=N in options, else 1. */
static int64_t count_option(const char *options, const char *name)
{
    const char *at = options ? strstr(options, name) : NULL;
    return at ? strtoll(at + strlen(name), NULL, 10) : 1;
}

static void plan_global_to_local(OptPlan *plan, const char *options)
{
    plan->global_to_local = true;
    plan->local = (MlirGlobalToLocalOptions){
        .per_dim_all_gather = options && strstr(options, "per-dim-all-gather=true"),
        .enable_rgv3 = options && strstr(options, "enable-rgv3=true"),
        .combine_reduce_scatter = options && strstr(options, "combine-multi-dimension-reduce-scatter=true"),
        .replica_count = count_option(options, "replica-count="),
        .partition_count = count_option(options, "partition-count="),
    };
}

static void plan_pass(OptPlan *plan, const OptPass *pass, const char *options)
{
    if (pass->action == OPT_GLOBAL_TO_LOCAL) {
        plan_global_to_local(plan, options);
        return;
    }
    plan->split = plan->split || pass->action == OPT_SPLIT || pass->action == OPT_PIPELINE;
    plan->import_groups = plan->import_groups || pass->action == OPT_GROUP_IMPORT || pass->action == OPT_PIPELINE;
    plan->pipeline = plan->pipeline || pass->action == OPT_PIPELINE;
    plan->dedup_fully = plan->dedup_fully || (options && strstr(options, "dedup-functions-fully=true"));
    if (pass->action == OPT_RULES) {
        plan->rules = true;
        plan->rules_conservative = options && strstr(options, "conservative-propagation=true");
        return;
    }
    plan->explicit_reshards = plan->explicit_reshards || pass->action == OPT_EXPLICIT;
    if (pass->action == OPT_EXPLICIT)
        plan->explicit_partial = !(options && strstr(options, "enable-full-version=true"));
    plan->collectives = plan->collectives || pass->action == OPT_COLLECTIVES;
    if (pass->action == OPT_EXPLICIT || pass->action == OPT_COLLECTIVES || pass->action == OPT_IDENTITY || pass->action == OPT_GROUP_IMPORT || pass->action == OPT_SPLIT)
        return;
    plan->options.emit = EMIT_PROPAGATED;
    plan->options.propagation = pass->action == OPT_BASIC ? PROPAGATION_BASIC : PROPAGATION_AGGRESSIVE;
    plan->options.conservative_propagation = options && strstr(options, "conservative-propagation=true");
    /* keep-sharding-rules=true: the rules propagation used stay on the ops */
    if (options && strstr(options, "keep-sharding-rules=true")) {
        plan->rules = true;
        plan->rules_conservative = plan->options.conservative_propagation;
    }
}

/* sdy_opt rewrites text and never holds a tensor, so neither does `opt`:
 * any size 64 bits count is read (Shardy's tests shard bf16 tensors of 6
 * TiB); a count that overflows them is still an error, since the module's
 * census records it as INT64_MAX. */
#define OPT_MAX_BYTES (INT64_MAX - 1)

static bool plan_passes(const OptArgs *args, OptPlan *plan, DiagEngine *diag)
{
    *plan = (OptPlan){.options = {.emit = EMIT_IR, .propagation = PROPAGATION_AGGRESSIVE, .quiet_conflicts = true,
                                  .external_custom_targets = true, .keep_calls = true,
                                  .constraints_not_applied = true, .max_bytes = OPT_MAX_BYTES}};
    for (int i = 0; i < args->num_run; i++) {
        if (args->run[i]->action == OPT_UNSUPPORTED) {
            diag_error(diag, (Loc){0}, "pass '%s' is not supported by shardc opt yet (docs/mlir.md)",
                       args->run[i]->name);
            return false;
        }
        plan_pass(plan, args->run[i], args->run_options[i]);
    }
    plan->options.groups_unchecked = plan->options.emit < EMIT_PROPAGATED && !plan->import_groups &&
                                     !plan->explicit_reshards && !plan->collectives;
    return true;
}

/* Shardy's propagation gives a sharding group's members their members'
 * shardings before it starts, as if written on them: they print as
 * written (closed dims closed). Propagation seeds them again, finding
 * them as they are. */
static bool seed_groups(Module *m, const CompileOptions *options, DiagEngine *diag)
{
    if (options->emit < EMIT_PROPAGATED)
        return true;
    ShardingGroups groups;
    propagate_find_groups(&groups, m, &m->arena);
    if (propagate_constrain_group_conflicts(m, &groups, diag))
        propagate_find_groups(&groups, m, &m->arena);
    return propagate_seed_groups(m, &groups, diag);
}

/* Shardy's import, as far as shardc has it: constants split (their
 * copies spelled sdy.constant, as the splitter leaves them); in the
 * pipeline, calls made named computations (with dedup-functions-fully,
 * func_data_flow_edges added instead) and closed constraints applied
 * (their closed dims then print closed, as written). */
static bool opt_import(const OptPlan *plan, Module *m, DiagEngine *diag)
{
    if (plan->split && !mlir_split_constants(m, diag))
        return false;
    if (!plan->pipeline)
        return true;
    if (!plan->dedup_fully)
        return mlir_import_func_calls(m, diag) && propagate_apply_constraints(m);
    /* Shardy's import applies constraints before the edges are added */
    bool ok = propagate_apply_constraints(m);
    mlir_add_func_data_flow_edges(m);
    return ok;
}

/* After propagation: open dims as Shardy prints them; the pipeline's export
 * (dims closed, constraints to reshards, calls back; constants stay
 * sdy.constant, as Shardy's do); group ids renumbered. False after an
 * error (reported). */
static bool opt_export(const OptPlan *plan, Module *m, CliWritten *before, DiagEngine *diag)
{
    if (plan->options.emit >= EMIT_PROPAGATED) {
        cli_reopen_propagated(m, before);
        cli_edge_shardings_on_edges(m);
    }
    if (plan->pipeline) {
        if (plan->dedup_fully)
            mlir_sink_func_data_flow_edges(m);
        cli_close_shardings(m);
        mlir_export_named_computations(m);
        mlir_export_unreduced(m);
        propagate_remove_groups(m);
    }
    if (plan->explicit_reshards && !mlir_insert_explicit_reshards(m, diag, !plan->explicit_partial))
        return false;
    if (plan->collectives)
        mlir_reshard_to_collectives(m);
    if (plan->import_groups) {
        ShardingGroups groups;
        propagate_find_groups(&groups, m, &m->arena);
        propagate_renumber_groups(m, &groups);
    }
    return true;
}

/* -sdy-convert-global-to-local alone reads a module past its
 * collectives (sdy.all_gather, ...: what reshard-to-collectives leaves),
 * which shardc's verifier, made for the programs its own pipeline takes,
 * does not know; the reader has checked what the pass reads, and nothing
 * else runs (docs/mlir.md). */
static bool local_only(const OptArgs *args)
{
    return args->num_run == 1 && args->run[0]->action == OPT_GLOBAL_TO_LOCAL;
}

/* Dynamic and unranked values (read past the verifier's checks) pass
 * through opt only as function arguments and results that no op uses,
 * and not into the passes that compute local shapes and collectives
 * (docs/mlir.md "What is read"). */
static bool opt_shapes(const OptArgs *args, const OptPlan *plan, const Module *m, DiagEngine *diag)
{
    if (!mlir_check_shapes(m, MLIR_SHAPES_BOUNDARY, "shardc opt", plan->options.emit >= EMIT_PROPAGATED, diag))
        return false;
    for (int i = 0; i < args->num_run; i++) {
        OptAction a = args->run[i]->action;
        if ((a == OPT_EXPLICIT || a == OPT_COLLECTIVES || a == OPT_GLOBAL_TO_LOCAL) &&
            !mlir_check_shapes(m, MLIR_SHAPES_STATIC, args->run[i]->name, false, diag))
            return false;
    }
    return true;
}

/* One module: read, run, print into out. False on errors (reported). */
static bool opt_module(const OptArgs *args, const char *name, const char *text, size_t len, DiagEngine *diag,
                       FILE *out)
{
    OptPlan plan;
    if (!plan_passes(args, &plan, diag))
        return false;
    Module *m = mlir_read_module_with(name, text, len, &args->read, diag);
    PassContext ctx = {diag, &plan.options, NULL, NULL, NULL};
    CliWritten before = {0};
    bool ok = m && opt_shapes(args, &plan, m, diag) && opt_import(&plan, m, diag) && seed_groups(m, &plan.options, diag) &&
              cli_remember_shardings(m, &before) && (local_only(args) || pipeline_run(m, &ctx));
    ok = ok && opt_export(&plan, m, &before, diag);
    if (ok && plan.rules)
        mlir_populate_op_sharding_rules(m, plan.rules_conservative, diag, args->warned_unknown_call);
    if (ok && plan.global_to_local)
        ok = mlir_convert_global_to_local(m, &plan.local, diag);
    cli_written_free(&before);
    if (ok)
        mlir_print_module(out, m);
    module_free(m);
    return ok;
}

typedef struct OptChunk {
    const OptArgs *args;
    FILE *out;
} OptChunk;

static bool opt_chunk_fn(void *user, DiagEngine *diag, const char *name, const char *text, size_t len)
{
    const OptChunk *c = user;
    return opt_module(c->args, name, text, len, diag, c->out);
}

static bool opt_chunk(const OptArgs *args, const char *name, const char *text, size_t len, DiagEngine *diag,
                      FILE *out)
{
    diag_add_source(diag, name, text, len);
    OptChunk chunk = {args, out};
    if (args->verify) /* the module is printed only if it also compiled */
        return cli_verify_diagnostics(name, text, len, diag, opt_chunk_fn, &chunk);
    return opt_module(args, name, text, len, diag, out);
}

static bool opt_text(const OptArgs *args, const char *name, const char *text, size_t len, DiagEngine *diag,
                     FILE *out, Arena *chunks)
{
    if (!args->split)
        return opt_chunk(args, name, text, len, diag, out);
    bool ok = true;
    int line = 0;
    for (const char *p = text, *end = text + len; p < end;) {
        size_t n;
        char *chunk = cli_split_next(chunks, &p, end, &line, &n, false);
        if (p < end || chunk[0])
            ok = opt_chunk(args, name, chunk, n, diag, out) && ok;
        if (p < end)
            fputs("// -----\n", out);
    }
    return ok;
}

int cmd_opt(int argc, char **argv)
{
    bool warned_unknown_call = false;
    OptArgs args = {.warned_unknown_call = &warned_unknown_call, .read.allow_dynamic = true};
    char **norm = normalize_dashes(argc, argv);
    int status = cli_parse(&cmd_opt_command, argc, norm, &args, &args.common);
    free(norm);
    if (status >= 0)
        return status;
    DiagEngine diag;
    diag_init(&diag, stderr);
    size_t len = 0;
    const char *name = strcmp(args.input, "-") == 0 ? "<stdin>" : args.input;
    char *text = io_read_source(&diag, args.input, &len);
    OutputFile out;
    Arena chunks;       /* alive as long as the diagnostics that quote them */
    arena_init(&chunks);
    bool ok = text && cli_output_open(&out, &diag, args.output);
    if (ok) {
        ok = opt_text(&args, name, text, len, &diag, out.stream, &chunks);
        ok = ok ? cli_output_commit(&out, &diag) : (cli_output_abandon(&out), false);
    }
    diag_free(&diag);
    arena_free(&chunks);
    free(text);
    return ok ? 0 : 1;
}
