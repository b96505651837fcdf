/* `shardc rule 'RULE' [--types '...'] ...`: check a JAX custom_partitioning
 * sharding rule string and, given types, show the Shardy rule it becomes. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "cmd.h"
#include "shardc/config.h"
#include "shardc/rule.h"

enum { LIST_REDUCTION, LIST_NEED_REPLICATION, LIST_PERMUTATION, NUM_LISTS };

typedef struct RuleArgs {
    CliCommon common;   /* --config, --rules: accepted (and checked) as by every subcommand */
    Arena *arena;
    const char *rule, *types;
    RuleFactorSize *sizes;
    int num_sizes;
    const char **lists[NUM_LISTS];
    int list_counts[NUM_LISTS];
} RuleArgs;

/* ---- flags ---- */

static RuleArgs *rule_args(CliParse *p) { return p->args; }

static bool parse_size_value(const char *text, int64_t *out)
{
    int64_t value = 0;
    if (!*text)
        return false;
    for (const char *c = text; *c; c++) {
        if (*c < '0' || *c > '9')
            return false;
        if (__builtin_mul_overflow(value, 10, &value) ||
            __builtin_add_overflow(value, *c - '0', &value))
            return false;
    }
    *out = value;
    return true;
}

/* --size NAME=SIZE */
static int flag_size(CliParse *p, const char *value)
{
    RuleArgs *args = rule_args(p);
    const char *eq = strchr(value, '=');
    int64_t size;
    if (!eq || eq == value || !parse_size_value(eq + 1, &size))
        return cli_usage_error(p->cmd, "--size expects NAME=SIZE with a non-negative integer SIZE, got '%s'",
                               value);
    const char *name = arena_strndup(args->arena, value, (size_t)(eq - value));
    for (int i = 0; i < args->num_sizes; i++)
        if (strcmp(args->sizes[i].name, name) == 0)
            return cli_usage_error(p->cmd, "--size given twice for factor '%s'", name);
    args->sizes[args->num_sizes++] = (RuleFactorSize){name, size};
    return CLI_OK;
}

static const char *trimmed(Arena *arena, const char *start, const char *end)
{
    while (start < end && (*start == ' ' || *start == '\t'))
        start++;
    while (end > start && (end[-1] == ' ' || end[-1] == '\t'))
        end--;
    return arena_strndup(arena, start, (size_t)(end - start));
}

/* Appends the comma-separated names of `value` to list `list`. */
static int add_names(CliParse *p, int list, const char *value)
{
    RuleArgs *args = rule_args(p);
    int count = args->list_counts[list], items = 1;
    for (const char *c = value; *c; c++)
        items += *c == ',';
    const char **names = ARENA_ARRAY(args->arena, const char *, count + items);
    if (count)
        memcpy(names, args->lists[list], sizeof *names * (size_t)count);
    for (const char *start = value;; start++) {
        const char *end = strchr(start, ',');
        end = end ? end : start + strlen(start);
        names[count] = trimmed(args->arena, start, end);
        if (!*names[count++])
            return cli_usage_error(p->cmd, "%s: empty factor name in '%s'", p->flag->name, value);
        start = end;
        if (!*end)
            break;
    }
    args->lists[list] = names;
    args->list_counts[list] = count;
    return CLI_OK;
}

static int flag_reduction(CliParse *p, const char *v) { return add_names(p, LIST_REDUCTION, v); }
static int flag_need_replication(CliParse *p, const char *v) { return add_names(p, LIST_NEED_REPLICATION, v); }
static int flag_permutation(CliParse *p, const char *v) { return add_names(p, LIST_PERMUTATION, v); }

static int flag_types(CliParse *p, const char *value)
{
    if (rule_args(p)->types)
        return cli_usage_error(p->cmd, "--types given twice");
    rule_args(p)->types = value;
    return CLI_OK;
}

static int flag_rule(CliParse *p, const char *value) { return cli_take_one(&rule_args(p)->rule, value); }

/* Every flag takes --flag VALUE or --flag=VALUE. */
static const CliFlag rule_flags[] = {
    {NULL, CLI_BARE, flag_rule, "unexpected argument '%s'", "'RULE'"},
    {"--types", CLI_EITHER, flag_types, NULL, "[--types 'T, ... -> T, ...']"},
    {"--size", CLI_EITHER, flag_size, NULL, "[--size f=N]..."},
    {"--reduction", CLI_EITHER, flag_reduction, NULL, "[--reduction f,...]"},
    {"--need-replication", CLI_EITHER, flag_need_replication, NULL, "[--need-replication f,...]"},
    {"--permutation", CLI_EITHER, flag_permutation, NULL, "[--permutation f,...]"},
    CLI_FLAGS_CONFIG(NULL),
    CLI_FLAGS_HELP,
};

/* A rule may begin with '-' ('-> i'): only "--..." and -h are options. */
const CliCommand cmd_rule_command = {
    .name = "shardc rule",
    .summary = "check a JAX custom_partitioning rule string against types",
    CLI_TABLE(rule_flags),
    .description =
        "Checks a JAX custom_partitioning sharding rule such as 'b v, -> b k'. With\n"
        "--types (e.g. 'f32[8,16], f32[] -> f32[8,2]') it binds the rule to those\n"
        "operand and result types and prints the factor table and the Shardy form.\n"
        "--size gives the size of a factor used only inside compound dims (i j).\n",
    .help_on_error = true,
    .dash_positionals = true,
    .missing_positional = "missing the rule string",
};

/* Returns -1 to go on, else an exit status. */
static int parse_args(int argc, char **argv, Arena *arena, RuleArgs *args)
{
    memset(args, 0, sizeof *args);
    args->arena = arena;
    args->sizes = ARENA_ARRAY(arena, RuleFactorSize, argc);
    return cli_parse(&cmd_rule_command, argc, argv, args, &args->common);
}

/* ---- the --types string: 'f32[8,16], f32[] -> f32[8,2]' ---- */

typedef struct TypeParser {
    Arena *arena;
    DiagEngine *diag;
    RuleString where;   /* only text and loc: for rule_string_loc's carets */
    const char *text;
    int pos;
} TypeParser;

static bool type_error(TypeParser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool type_error(TypeParser *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vreport(p->diag, DIAG_ERROR, rule_string_loc(&p->where, p->pos), fmt, ap);
    va_end(ap);
    return false;
}

static void skip_space(TypeParser *p)
{
    while (p->text[p->pos] == ' ' || (p->text[p->pos] >= '\t' && p->text[p->pos] <= '\r'))
        p->pos++;
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static bool parse_dim_size(TypeParser *p, int64_t *out)
{
    if (!is_digit(p->text[p->pos]))
        return type_error(p, "expected a dimension size");
    int start = p->pos;
    *out = 0;
    for (; is_digit(p->text[p->pos]); p->pos++) {
        if (__builtin_mul_overflow(*out, 10, out) ||
            __builtin_add_overflow(*out, p->text[p->pos] - '0', out)) {
            p->pos = start;
            return type_error(p, "dimension size is too large");
        }
    }
    return true;
}

/* After '[': sizes up to and including ']'. */
static bool parse_dims(TypeParser *p, int64_t *dims, int *rank)
{
    skip_space(p);
    if (p->text[p->pos] == ']') {
        p->pos++;
        return true;
    }
    for (;;) {
        skip_space(p);
        if (*rank == SHARDC_MAX_RANK)
            return type_error(p, "a type has at most %d dimensions", SHARDC_MAX_RANK);
        if (!parse_dim_size(p, &dims[(*rank)++]))
            return false;
        skip_space(p);
        char c = p->text[p->pos++];
        if (c == ']')
            return true;
        if (c != ',') {
            p->pos--;
            return type_error(p, "expected ',' or ']' in the shape");
        }
    }
}

static bool parse_type(TypeParser *p, TensorType *out)
{
    int start = p->pos;
    while ((p->text[p->pos] >= 'a' && p->text[p->pos] <= 'z') || is_digit(p->text[p->pos]))
        p->pos++;
    DType dtype;
    int len = p->pos - start;
    if (len == 0)
        return type_error(p, "expected a type such as f32[8,16]");
    if (!dtype_parse(p->text + start, (size_t)len, &dtype)) {
        p->pos = start;
        return type_error(p, "unknown dtype '%.*s'", len, p->text + start);
    }
    skip_space(p);
    if (p->text[p->pos] != '[')
        return type_error(p, "expected '[' after the dtype");
    p->pos++;
    int64_t dims[SHARDC_MAX_RANK];
    int rank = 0;
    if (!parse_dims(p, dims, &rank))
        return false;
    *out = type_make(p->arena, dtype, rank, dims);
    return true;
}

static bool at_side_end(TypeParser *p, bool operands)
{
    const char *rest = p->text + p->pos;
    return operands ? strncmp(rest, "->", 2) == 0 : *rest == '\0';
}

/* One side of the arrow; an empty side is no types at all. */
static bool parse_type_list(TypeParser *p, bool operands, TensorType *types, int *count)
{
    skip_space(p);
    *count = 0;
    if (at_side_end(p, operands))
        return true;
    for (;;) {
        skip_space(p);
        if (!parse_type(p, &types[(*count)++]))
            return false;
        skip_space(p);
        if (p->text[p->pos] != ',')
            break;
        p->pos++;
    }
    if (at_side_end(p, operands))
        return true;
    return type_error(p, operands ? "expected ',' or '->' after a type"
                                  : "expected ',' or the end of the types after a type");
}

typedef struct TypeLists {
    TensorType *operands, *results;
    int num_operands, num_results;
} TypeLists;

static bool parse_types(Arena *arena, DiagEngine *diag, const char *text, TypeLists *out)
{
    TypeParser p = {arena, diag, {.text = text, .loc = {"<types>", 1, 1}}, text, 0};
    int cap = 1;
    for (const char *c = text; *c; c++)
        cap += *c == '[';
    out->operands = ARENA_ARRAY(arena, TensorType, cap);
    out->results = ARENA_ARRAY(arena, TensorType, cap);
    if (!parse_type_list(&p, true, out->operands, &out->num_operands))
        return false;
    p.pos += 2;
    return parse_type_list(&p, false, out->results, &out->num_results);
}

/* ---- the command ---- */

static RuleStringOptions options_of(const RuleArgs *args)
{
    RuleStringOptions opts = {.num_sizes = args->num_sizes, .sizes = args->sizes};
    opts.num_reduction = args->list_counts[LIST_REDUCTION];
    opts.reduction = args->lists[LIST_REDUCTION];
    opts.num_need_replication = args->list_counts[LIST_NEED_REPLICATION];
    opts.need_replication = args->lists[LIST_NEED_REPLICATION];
    opts.num_permutation = args->list_counts[LIST_PERMUTATION];
    opts.permutation = args->lists[LIST_PERMUTATION];
    return opts;
}

static int run_rule(Arena *arena, DiagEngine *diag, const RuleArgs *args)
{
    RuleStringOptions opts = options_of(args);
    diag_add_source(diag, "<rule>", args->rule, strlen(args->rule));
    RuleString *rule = rule_string_parse(arena, diag, args->rule, (Loc){"<rule>", 1, 1}, &opts);
    if (!rule)
        return 1;
    if (!args->types) {
        rule_string_print(stdout, rule);
        return 0;
    }
    TypeLists types;
    diag_add_source(diag, "<types>", args->types, strlen(args->types));
    if (!parse_types(arena, diag, args->types, &types))
        return 1;
    OpShardingRule *bound = rule_string_bind(arena, diag, rule, types.num_operands,
                                             types.operands, types.num_results, types.results);
    if (!bound)
        return 1;
    rule_print_table(stdout, bound);
    rule_print_sdy(stdout, bound);
    fputc('\n', stdout);
    return 0;
}

int cmd_rule(int argc, char **argv)
{
    Arena arena;
    arena_init(&arena);
    RuleArgs args;
    int status = parse_args(argc, argv, &arena, &args);
    if (status < 0) {
        DiagEngine diag;
        diag_init(&diag, stderr);
        Config *config = NULL;
        status = cli_load_config(&cmd_rule_command, &args.common.config, &diag, &config);
        if (status < 0)
            status = run_rule(&arena, &diag, &args);
        diag_free(&diag);
        config_free(config);
    }
    arena_free(&arena);
    return status;
}
