/* The command-line layer of every subcommand (cli/cli.c): each command
 * declares a table of its flags, cli_parse reads argv by it, --help is
 * printed from it, and every usage error goes through cli_usage_error. */
#ifndef SHARDC_CLI_H
#define SHARDC_CLI_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "shardc/config.h"
#include "shardc/io.h"

/* How a flag takes its value. */
typedef enum {
    CLI_BARE,       /* NAME exactly; no value (the handler gets NULL) */
    CLI_JOINED,     /* NAME=VALUE */
    CLI_OPTIONAL,   /* NAME or NAME=VALUE; NULL without '=' */
    CLI_SEPARATE,   /* NAME VALUE: the next argument, whatever it looks like */
    CLI_EITHER,     /* NAME VALUE or NAME=VALUE */
} CliForm;

/* What a handler returns: CLI_OK to go on, CLI_BAD when the value is wrong
 * (the parser reports it with the flag's `error`), or the exit status to
 * stop with -- 0 after --help, 2 after a usage error it reported itself. */
enum { CLI_OK = -1, CLI_BAD = -2 };

typedef struct CliParse CliParse;
typedef int (*CliApply)(CliParse *p, const char *value);

/* One row of a command's flag table. The table is the command's whole
 * command line: cli_parse reads argv by it, --help shows the rows'
 * synopses in their order, and a bad value is reported with the row's
 * error text.
 *
 * To add a flag, add a row to the command's table (cli/compile.c,
 * cli/run.c, cli/rule.c) and a handler storing the value into the
 * command's argument struct (p->args), e.g.
 *     static int flag_seed(CliParse *p, const char *v) { ... return ok ? CLI_OK : CLI_BAD; }
 *     {"--seed", CLI_JOINED, flag_seed, NULL, "[--seed=N]"},
 * A flag that several commands take is spelled once, as a CLI_FLAG* macro
 * below whose handler (in cli.c) stores into CliCommon; each command puts
 * the macro in its table. The first row, without a name, takes the
 * positional arguments. */
typedef struct CliFlag {
    const char *name;       /* "--func", "-o"; NULL for positional arguments */
    CliForm form;           /* (not read for positional arguments) */
    CliApply apply;
    /* A missing (CLI_SEPARATE, CLI_EITHER) or bad value: a printf format
     * given the value ("" when missing). NULL: "option 'NAME' needs a
     * value", or "bad value in 'ARG'". */
    const char *error;
    /* The flag in the usage lines, e.g. "[--func=NAME]"; NULL: not shown. */
    const char *synopsis;
} CliFlag;

typedef struct CliCommand {
    const char *name;           /* "shardc run": leads usage lines and errors */
    const CliFlag *flags;       /* set with CLI_TABLE */
    size_t num_flags;
    const char *description;    /* --help's text below the usage lines */
    /* A usage error is followed by the whole --help text; else by a
     * pointer to --help. */
    bool help_on_error;
    /* A positional argument may begin with '-' (a rule string '-> i'): only
     * "--NAME" and the table's other spellings are options, and "--" ends
     * them. */
    bool dash_positionals;
    /* The usage error when the positional argument (the first row) is not
     * given, e.g. "no input file". */
    const char *missing_positional;
    /* More usage lines in --help: other commands', then a literal one. */
    const struct CliCommand *const *others;   /* NULL-terminated, or NULL */
    const char *more_usage;
    /* One line for the command list of `shardc --help`. */
    const char *summary;
} CliCommand;

#define CLI_TABLE(rows) .flags = (rows), .num_flags = sizeof(rows) / sizeof((rows)[0])

/* What the shared flags set; each command's arguments hold one. */
typedef struct CliCommon {
    ConfigArgs config;      /* --config=FILE.yaml, --rules=NAME */
    const char *func;       /* --func=NAME without its '@', or NULL */
    int64_t max_bytes;      /* --max-bytes, 0 for the default */
    const char *input_format; /* --input-format=mlir|shir, or NULL: by extension */
    DiagWarnings warnings;  /* -w, -Werror */
    int auto_shard;         /* --auto-shard[=ilp|greedy]: an AutoShardMode, 0 off */
    int64_t memory_budget;  /* --memory-budget=BYTES, 0: none */
    double auto_shard_time; /* --auto-shard-time=SECONDS, 0: the default */
    int reshard_plan;       /* --reshard-plan=shardy|fewest-bytes: a ReshardPlanChoice */
} CliCommon;

/* A handler's view of the parse. */
struct CliParse {
    const CliCommand *cmd;
    void *args;             /* the command's own argument struct */
    CliCommon *common;      /* ... and its shared part */
    const char *arg;        /* the argument being read */
    const CliFlag *flag;    /* ... and its row */
};

/* The shared flags. CLI_FLAGS_CONFIG takes the synopsis to show, or NULL. */
int cli_help(CliParse *p, const char *value);
int cli_config(CliParse *p, const char *value);
int cli_func(CliParse *p, const char *value);
int cli_max_bytes(CliParse *p, const char *value);
int cli_input_format(CliParse *p, const char *value);
int cli_warnings(CliParse *p, const char *value);
int cli_auto_shard(CliParse *p, const char *value);
int cli_memory_budget(CliParse *p, const char *value);
int cli_auto_shard_time(CliParse *p, const char *value);
int cli_reshard_plan(CliParse *p, const char *value);

#define CLI_FLAGS_HELP {"--help", CLI_BARE, cli_help, NULL, NULL}, {"-h", CLI_BARE, cli_help, NULL, NULL}
#define CLI_FLAGS_CONFIG(synopsis)                                                          \
    {"--config", CLI_JOINED, cli_config, "--config needs a YAML file name", synopsis},       \
    {"--rules", CLI_JOINED, cli_config, "--rules needs the name of a rule set", NULL}
#define CLI_CONFIG_SYNOPSIS "[--config=FILE.yaml [--rules=NAME]]"
#define CLI_FLAG_FUNC {"--func", CLI_JOINED, cli_func, "--func needs a function name", "[--func=NAME]"}
#define CLI_FLAG_MAX_BYTES                                                                   \
    {"--max-bytes", CLI_JOINED, cli_max_bytes,                                              \
     "--max-bytes needs a positive size such as 4096 or 64G, got '%s'", "[--max-bytes=N[K|M|G|T]]"}

/* Auto-sharding (docs/auto_sharding.md). */
#define CLI_FLAGS_AUTO_SHARD                                                                 \
    {"--auto-shard", CLI_OPTIONAL, cli_auto_shard, "unknown option '--auto-shard=%s' (ilp or greedy)", \
     "[--auto-shard[=ilp|greedy]]"},                                                        \
    {"--memory-budget", CLI_JOINED, cli_memory_budget,                                      \
     "--memory-budget needs a positive size such as 4096 or 64M, got '%s'", "[--memory-budget=BYTES]"}, \
    {"--auto-shard-time", CLI_JOINED, cli_auto_shard_time,                                  \
     "--auto-shard-time needs a positive number of seconds, got '%s'", "[--auto-shard-time=SECONDS]"}

/* docs/partitioning.md "Reshards to collectives": Shardy's plans, or the fewest bytes. */
#define CLI_FLAG_RESHARD_PLAN                                                                \
    {"--reshard-plan", CLI_JOINED, cli_reshard_plan,                                        \
     "unknown option '--reshard-plan=%s' (shardy or fewest-bytes)", "[--reshard-plan=shardy|fewest-bytes]"}

/* -w: no warnings; -Werror: warnings are errors (exit 1). */
#define CLI_FLAGS_WARNINGS                                                                   \
    {"-w", CLI_BARE, cli_warnings, NULL, "[-w | -Werror]"}, {"-Werror", CLI_BARE, cli_warnings, NULL, NULL}

#define CLI_FLAG_INPUT_FORMAT                                                                \
    {"--input-format", CLI_JOINED, cli_input_format, "--input-format takes mlir or shir, got '%s'", \
     "[--input-format=mlir|shir]"}

/* Reads and parses the program at path ("-": stdin) as MLIR or .shir (by
 * --input-format, else by the extension .mlir); NULL (reported) on
 * errors. *text (free it) stays alive for the diagnostics that quote it. */
struct Module;
struct Module *cli_read_program(struct DiagEngine *diag, const char *path, const CliCommon *common, char **text,
                                size_t *len);
/* Parses text already read from path (by cli_read_program): standard input
 * reads once, so a command that builds two modules from "-" parses twice. */
struct Module *cli_parse_program(struct DiagEngine *diag, const char *path, const CliCommon *common,
                                 const char *text, size_t len);
/* Frees *text (and sets it NULL) once the module is built from a file: the
 * IR keeps copies of what it needs, and a later diagnostic reads the file
 * again to quote a line. Text read from standard input stays. */
void cli_release_text(struct DiagEngine *diag, const char *path, char **text);

/* The function `shardc run` runs and --stats counts: --func=NAME (`name`),
 * else @main, else the only public function -- one that is not MLIR
 * `private` and that no call or custom op of the module names (a helper,
 * an implementation or a partition function). Looked for before the
 * pipeline inlines calls. NULL (reported, listing the candidates) when
 * there is none or no way to choose. */
const char *cli_entry_name(struct DiagEngine *diag, const struct Module *m, const char *name);

/* -split-input-file (cli/split.c): the chunk of [*p, end) up to the next
 * line that begins `// -----` (or `# -----` if `hash`), which *p then
 * passes; allocated in `arena`, NUL-terminated, of *len bytes, and led by
 * one newline per line before it (*line counts them). */
struct Arena;
char *cli_split_next(struct Arena *arena, const char **p, const char *end, int *line, size_t *len, bool hash);

/* -verify-diagnostics: runs `compile` on the chunk with a DiagEngine whose
 * diagnostics are matched against the chunk's `expected-error @+1 {{...}}`
 * annotations (as mlir-opt does, src/mlir/expect.c); mismatches go to
 * `report`. True when every annotation was met and nothing else said. */
typedef bool (*CliChunkFn)(void *user, struct DiagEngine *diag, const char *name, const char *text, size_t len);
bool cli_verify_diagnostics(const char *name, const char *text, size_t len, struct DiagEngine *report,
                            CliChunkFn compile, void *user);

/* A handler's helper for a command's one positional argument: stores the
 * first in *slot; CLI_BAD (the row's error) for a second. */
int cli_take_one(const char **slot, const char *value);

/* Reads argv[1..] into `args` and `common`, which the command has
 * initialised. Returns -1 when every argument was taken, else the exit
 * status: 0 after --help, 2 after a usage error (reported). */
int cli_parse(const CliCommand *cmd, int argc, char **argv, void *args, CliCommon *common);

/* "NAME: MESSAGE", then the --help text or a pointer to it, on stderr.
 * Returns 2, the exit status of bad usage. */
int cli_usage_error(const CliCommand *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

void cli_print_help(FILE *out, const CliCommand *cmd);

/* config_apply_cli, with --rules without --config reported as bad usage
 * of `cmd`. -1 on success, else the exit status. */
int cli_load_config(const CliCommand *cmd, const ConfigArgs *args, DiagEngine *diag, Config **out);

/* io_output_open/commit/abandon, with the temporary file removed if the
 * process exits or is stopped by a signal in between (cli/output.c). */
bool cli_output_open(OutputFile *out, DiagEngine *diag, const char *path);
bool cli_output_commit(OutputFile *out, DiagEngine *diag);
void cli_output_abandon(OutputFile *out);

#endif
