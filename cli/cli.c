/* The command-line layer: one parser over the commands' flag tables, one
 * usage error, --help made from the tables, and the flags every command
 * shares (cli.h says how to add one). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "shardc/autoshard.h"
#include "shardc/io.h"
#include "shardc/mlir.h"
#include "shardc/parse.h"
#include "shardc/partition.h"
#include "shardc/limits.h"
#include "shardc/suggest.h"

/* Usage lines wrap before this column. */
enum { USAGE_WIDTH = 88 };

/* ---- help ---- */

/* "LEAD NAME POSITIONAL [flag]...", wrapped under the positional. */
static void print_usage(FILE *out, const char *lead, const CliCommand *cmd)
{
    int indent = fprintf(out, "%s%s ", lead, cmd->name), col = indent;
    for (size_t i = 0; i < cmd->num_flags; i++) {
        const char *synopsis = cmd->flags[i].synopsis;
        if (!synopsis)
            continue;
        int len = (int)strlen(synopsis);
        if (col > indent && col + 1 + len > USAGE_WIDTH)
            col = fprintf(out, "\n%*s", indent, "") - 1;
        else if (col > indent)
            col += fprintf(out, " ");
        col += fprintf(out, "%s", synopsis);
    }
    fputc('\n', out);
}

void cli_print_help(FILE *out, const CliCommand *cmd)
{
    print_usage(out, "usage: ", cmd);
    for (const CliCommand *const *other = cmd->others; other && *other; other++)
        print_usage(out, "       ", *other);
    if (cmd->more_usage)
        fprintf(out, "       %s\n", cmd->more_usage);
    fprintf(out, "\n%s", cmd->description);
    if (!cmd->others)
        return;
    fprintf(out, "\ncommands ('shardc help COMMAND' shows one):\n  %-13s %s\n", "FILE", cmd->summary);
    for (const CliCommand *const *other = cmd->others; *other; other++)
        fprintf(out, "  %-13s %s\n", (*other)->name + strlen("shardc "), (*other)->summary);
    fprintf(out, "  %-13s %s\n", "help", "this text, or one command's");
}

/* The message, then the main command's pointer to --help (its whole usage
 * text after every typo would bury the one line that matters) or a
 * subcommand's shorter help. */
int cli_usage_error(const CliCommand *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", cmd->name);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    if (cmd->help_on_error)
        cli_print_help(stderr, cmd);
    else
        fprintf(stderr, "Try '%s --help' for more information.\n", cmd->name);
    return 2;
}

/* ---- parsing ---- */

/* Whether `arg` spells `flag`; *value is what follows its '=', or NULL. */
static bool flag_matches(const CliFlag *flag, const char *arg, const char **value)
{
    size_t n = strlen(flag->name);
    if (strncmp(arg, flag->name, n) != 0)
        return false;
    const char *rest = arg + n;
    *value = *rest == '=' ? rest + 1 : NULL;
    switch (flag->form) {
    case CLI_JOINED:
        return *rest == '=';
    case CLI_OPTIONAL:
    case CLI_EITHER:
        return !*rest || *rest == '=';
    default:
        return !*rest;
    }
}

static const CliFlag *find_flag(const CliCommand *cmd, const char *arg, const char **value)
{
    for (size_t i = 1; i < cmd->num_flags; i++)
        if (flag_matches(&cmd->flags[i], arg, value))
            return &cmd->flags[i];
    return NULL;
}

enum { CLI_MAX_FLAGS = 64 };

/* The flag of cmd closest to a mistyped one (dashes and value aside), or NULL. */
static const char *closest_flag(const CliCommand *cmd, const char *arg)
{
    const char *names[CLI_MAX_FLAGS] = {0};
    size_t n = cmd->num_flags < CLI_MAX_FLAGS ? cmd->num_flags : CLI_MAX_FLAGS;
    for (size_t i = 1; i < n; i++)
        names[i] = cmd->flags[i].name + strspn(cmd->flags[i].name, "-");
    const char *word = arg + strspn(arg, "-");
    const char *near = suggest_closest(word, strcspn(word, "="), names, n);
    for (size_t i = 1; near && i < n; i++)
        if (names[i] == near)
            return cmd->flags[i].name;
    return NULL;
}

/* With dash_positionals, a near miss of a flag ('-sdy-basic-propagat') is
 * a mistyped option, not a second input. */
static bool is_option(const CliCommand *cmd, const char *arg)
{
    const char *value;
    if (arg[0] != '-' || arg[1] == '\0')
        return false;
    return !cmd->dash_positionals || arg[1] == '-' || find_flag(cmd, arg, &value) || closest_flag(cmd, arg);
}

static int report_bad_value(const CliParse *p, const char *value)
{
    if (p->flag->error)
        return cli_usage_error(p->cmd, p->flag->error, value ? value : "");
    if (!value)
        return cli_usage_error(p->cmd, "option '%s' needs a value", p->flag->name);
    return cli_usage_error(p->cmd, "bad value in '%s'", p->arg);
}

static int apply_flag(CliParse *p, const char *value)
{
    int status = p->flag->apply(p, value);
    return status == CLI_BAD ? report_bad_value(p, value) : status;
}

static int unknown_option(const CliCommand *cmd, const char *arg)
{
    const char *near = closest_flag(cmd, arg);
    if (near)
        return cli_usage_error(cmd, "unknown option '%s'; did you mean '%s'?", arg, near);
    return cli_usage_error(cmd, "unknown option '%s'", arg);
}

/* argv[*i], an option; *i advances past a separate value. */
static int parse_option(CliParse *p, int argc, char **argv, int *i)
{
    const char *value;
    p->flag = find_flag(p->cmd, p->arg, &value);
    if (!p->flag)
        return unknown_option(p->cmd, p->arg);
    bool separate = !value && (p->flag->form == CLI_SEPARATE || p->flag->form == CLI_EITHER);
    if (separate && *i + 1 >= argc)
        return report_bad_value(p, NULL);
    return apply_flag(p, separate ? argv[++*i] : value);
}

int cli_parse(const CliCommand *cmd, int argc, char **argv, void *args, CliCommon *common)
{
    CliParse p = {cmd, args, common, NULL, NULL};
    bool options = true, positional = false;
    for (int i = 1; i < argc; i++) {
        p.arg = argv[i];
        int status;
        if (options && cmd->dash_positionals && strcmp(p.arg, "--") == 0) {
            options = false;
            continue;
        }
        if (options && is_option(cmd, p.arg)) {
            status = parse_option(&p, argc, argv, &i);
        } else {
            p.flag = &cmd->flags[0];
            status = apply_flag(&p, p.arg);
            positional = true;
        }
        if (status != CLI_OK)
            return status;
    }
    if (!positional && cmd->missing_positional)
        return cli_usage_error(cmd, "%s", cmd->missing_positional);
    return CLI_OK;
}

int cli_take_one(const char **slot, const char *value)
{
    if (*slot)
        return CLI_BAD;
    *slot = value;
    return CLI_OK;
}

/* ---- the shared flags ---- */

int cli_help(CliParse *p, const char *value)
{
    cli_print_help(stdout, p->cmd);
    return 0;
}

/* config_parse_arg knows --config= and --rules=; it rejects empty values. */
int cli_config(CliParse *p, const char *value)
{
    return config_parse_arg(&p->common->config, p->arg) == CONFIG_ARG_TAKEN ? CLI_OK : CLI_BAD;
}

int cli_input_format(CliParse *p, const char *value)
{
    bool ok = strcmp(value, "mlir") == 0 || strcmp(value, "shir") == 0;
    p->common->input_format = value;
    return ok ? CLI_OK : CLI_BAD;
}

static bool is_mlir_input(const char *path, const CliCommon *common)
{
    if (common->input_format)
        return strcmp(common->input_format, "mlir") == 0;
    size_t n = strlen(path);
    return n >= 5 && strcmp(path + n - 5, ".mlir") == 0;
}

Module *cli_read_program(DiagEngine *diag, const char *path, const CliCommon *common, char **text, size_t *len)
{
    const char *name = strcmp(path, "-") == 0 ? "<stdin>" : path;
    *text = io_read_source(diag, path, len);
    if (!*text)
        return NULL;
    diag_add_source(diag, name, *text, *len);
    return cli_parse_program(diag, path, common, *text, *len);
}

void cli_release_text(DiagEngine *diag, const char *path, char **text)
{
    if (!*text || strcmp(path, "-") == 0)
        return; /* standard input cannot be read again */
    diag_release_source(diag, path, path);
    free(*text);
    *text = NULL;
}

Module *cli_parse_program(DiagEngine *diag, const char *path, const CliCommon *common, const char *text, size_t len)
{
    const char *name = strcmp(path, "-") == 0 ? "<stdin>" : path;
    if (is_mlir_input(path, common))
        return mlir_read_module(name, text, len, diag);
    return parse_module(name, text, len, diag);
}

int cli_warnings(CliParse *p, const char *value)
{
    p->common->warnings = strcmp(p->flag->name, "-w") == 0 ? DIAG_WARNINGS_IGNORE : DIAG_WARNINGS_ERROR;
    return CLI_OK;
}

/* --func=NAME or --func=@NAME. */
int cli_func(CliParse *p, const char *value)
{
    p->common->func = value + (value[0] == '@');
    return *p->common->func ? CLI_OK : CLI_BAD;
}

/* ---- the entry function ---- */

/* False (stop) at an op naming the function. */
static bool not_naming(Op *op, void *func)
{
    const char *name = ((const Func *)func)->name;
    const char *partition = op->kind == OP_CUSTOM ? op_attr_symbol(op, ATTR_KEY_PARTITION) : NULL;
    return !((op->callee && strcmp(op->callee, name) == 0) || (partition && strcmp(partition, name) == 0));
}

static bool is_public(const Module *m, const Func *f)
{
    return !mlir_func_is_private(f) && ir_walk_module(m, &(IrWalker){.pre = not_naming, .user = (void *)f});
}

/* "@a, @b and @c" into buf. */
static void list_candidates(const Module *m, char *buf, size_t size, int count)
{
    size_t at = 0;
    for (int i = 0, seen = 0; i < m->num_funcs && at < size; i++) {
        if (!is_public(m, m->funcs[i]))
            continue;
        seen++;
        const char *sep = seen == 1 ? "" : seen == count ? " and " : ", ";
        int n = snprintf(buf + at, size - at, "%s@%s", sep, m->funcs[i]->name);
        at += n > 0 ? (size_t)n : 0;
    }
}

const char *cli_entry_name(DiagEngine *diag, const Module *m, const char *name)
{
    if (name || module_find_func(m, "main"))
        return name ? name : "main";
    const Func *only = NULL;
    int count = 0;
    for (int i = 0; i < m->num_funcs; i++)
        if (is_public(m, m->funcs[i]))
            only = count++ ? only : m->funcs[i];
    if (count == 1)
        return only->name;
    Loc loc = {m->file, 0, 0};
    if (count == 0) {
        diag_error(diag, loc, "no function to run: no @main and no public function");
        return NULL;
    }
    char buf[512];
    list_candidates(m, buf, sizeof buf, count);
    diag_error(diag, loc, "which function to run? no @main, and %d public functions: %s; name one with --func=NAME",
               count, buf);
    return NULL;
}

int cli_max_bytes(CliParse *p, const char *value)
{
    return limits_parse_bytes(value, &p->common->max_bytes) ? CLI_OK : CLI_BAD;
}

int cli_load_config(const CliCommand *cmd, const ConfigArgs *args, DiagEngine *diag, Config **out)
{
    int status = config_apply_cli(args, diag, out);
    if (status == 2) /* its one usage error */
        cli_usage_error(cmd, "--rules needs --config=FILE.yaml to choose from");
    return status;
}

/* --auto-shard alone is --auto-shard=ilp. */
int cli_auto_shard(CliParse *p, const char *value)
{
    if (!value || strcmp(value, "ilp") == 0)
        p->common->auto_shard = AUTOSHARD_ILP;
    else if (strcmp(value, "greedy") == 0)
        p->common->auto_shard = AUTOSHARD_GREEDY;
    else
        return CLI_BAD;
    return CLI_OK;
}

int cli_memory_budget(CliParse *p, const char *value)
{
    return limits_parse_bytes(value, &p->common->memory_budget) ? CLI_OK : CLI_BAD;
}

int cli_reshard_plan(CliParse *p, const char *value)
{
    bool fewest = strcmp(value, "fewest-bytes") == 0;
    p->common->reshard_plan = fewest ? RESHARD_PLAN_FEWEST_BYTES : RESHARD_PLAN_SHARDY;
    return fewest || strcmp(value, "shardy") == 0 ? CLI_OK : CLI_BAD;
}

int cli_auto_shard_time(CliParse *p, const char *value)
{
    char *end;
    double s = strtod(value, &end);
    p->common->auto_shard_time = s;
    return end != value && !*end && s > 0 && s <= 1e6 ? CLI_OK : CLI_BAD;
}
