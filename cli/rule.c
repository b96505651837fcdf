/* `shardc rule 'RULE' [--types '...'] ...`: check a JAX custom_partitioning
 * sharding rule string and, given types, show the Shardy rule it becomes. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "cmd.h"
#include "shardc/config.h"
#include "shardc/rule.h"

static const char usage_text[] =
    "usage: shardc rule 'RULE' [--types 'T, ... -> T, ...'] [--size f=N]...\n"
    "                   [--reduction f,...] [--need-replication f,...] [--permutation f,...]\n"
    "\n"
    "Checks a JAX custom_partitioning sharding rule such as 'b v, -> b k'. With\n"
    "--types (e.g. 'f32[8,16], f32[] -> f32[8,2]') it binds the rule to those\n"
    "operand and result types and prints the factor table and the Shardy form.\n"
    "--size gives the size of a factor used only inside compound dims (i j).\n";

enum { LIST_REDUCTION, LIST_NEED_REPLICATION, LIST_PERMUTATION, NUM_LISTS };

static const char *const list_flags[NUM_LISTS] = {"reduction", "need-replication",
                                                  "permutation"};

typedef struct RuleArgs {
    const char *rule, *types;
    RuleFactorSize *sizes;
    int num_sizes;
    const char **lists[NUM_LISTS];
    int list_counts[NUM_LISTS];
    ConfigArgs config;  /* accepted (and checked) as by every subcommand */
} RuleArgs;

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("shardc rule: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n%s", usage_text);
    return 2;
}

/* ---- flags ---- */

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

/* Returns -1 on success, else an exit status. */
static int add_size(RuleArgs *args, Arena *arena, const char *value)
{
    const char *eq = strchr(value, '=');
    int64_t size;
    if (!eq || eq == value || !parse_size_value(eq + 1, &size))
        return usage_error("--size expects NAME=SIZE with a non-negative integer SIZE, got '%s'",
                           value);
    const char *name = arena_strndup(arena, value, (size_t)(eq - value));
    for (int i = 0; i < args->num_sizes; i++)
        if (strcmp(args->sizes[i].name, name) == 0)
            return usage_error("--size given twice for factor '%s'", name);
    args->sizes[args->num_sizes++] = (RuleFactorSize){name, size};
    return -1;
}

static const char *trimmed(Arena *arena, const char *start, const char *end)
{
    while (start < end && (*start == ' ' || *start == '\t'))
        start++;
    while (end > start && (end[-1] == ' ' || end[-1] == '\t'))
        end--;
    return arena_strndup(arena, start, (size_t)(end - start));
}

/* Appends the comma-separated names of `value`; -1 on success. */
static int add_names(RuleArgs *args, Arena *arena, int list, const char *value)
{
    int count = args->list_counts[list], items = 1;
    for (const char *c = value; *c; c++)
        items += *c == ',';
    const char **names = ARENA_ARRAY(arena, const char *, count + items);
    if (count)
        memcpy(names, args->lists[list], sizeof *names * (size_t)count);
    for (const char *start = value;; start++) {
        const char *end = strchr(start, ',');
        end = end ? end : start + strlen(start);
        names[count] = trimmed(arena, start, end);
        if (!*names[count++])
            return usage_error("--%s: empty factor name in '%s'", list_flags[list], value);
        start = end;
        if (!*end)
            break;
    }
    args->lists[list] = names;
    args->list_counts[list] = count;
    return -1;
}

static int apply_flag(RuleArgs *args, Arena *arena, const char *flag, const char *value)
{
    if (strcmp(flag, "types") == 0) {
        if (args->types)
            return usage_error("--types given twice");
        args->types = value;
        return -1;
    }
    if (strcmp(flag, "size") == 0)
        return add_size(args, arena, value);
    for (int list = 0; list < NUM_LISTS; list++)
        if (strcmp(flag, list_flags[list]) == 0)
            return add_names(args, arena, list, value);
    return usage_error("unknown option '--%s'", flag);
}

static bool is_value_flag(const char *flag)
{
    if (strcmp(flag, "types") == 0 || strcmp(flag, "size") == 0)
        return true;
    for (int list = 0; list < NUM_LISTS; list++)
        if (strcmp(flag, list_flags[list]) == 0)
            return true;
    return false;
}

/* --flag VALUE or --flag=VALUE; *i advances past a separate value. */
static int parse_flag(RuleArgs *args, Arena *arena, int argc, char **argv, int *i)
{
    const char *arg = argv[*i] + 2;
    const char *eq = strchr(arg, '=');
    if (eq)
        return apply_flag(args, arena, arena_strndup(arena, arg, (size_t)(eq - arg)), eq + 1);
    if (!is_value_flag(arg))
        return usage_error("unknown option '--%s'", arg);
    if (*i + 1 >= argc)
        return usage_error("option '--%s' needs a value", arg);
    return apply_flag(args, arena, arg, argv[++*i]);
}

static int parse_positional(RuleArgs *args, const char *arg)
{
    if (args->rule)
        return usage_error("unexpected argument '%s'", arg);
    args->rule = arg;
    return -1;
}

/* Returns -1 to go on, else an exit status. A rule may begin with '-'
 * ('-> i'), so only "--..." and -h are options. */
static int parse_args(int argc, char **argv, Arena *arena, RuleArgs *args)
{
    memset(args, 0, sizeof *args);
    args->sizes = ARENA_ARRAY(arena, RuleFactorSize, argc);
    bool options_done = false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        int status = -1;
        ConfigArgResult config_arg = options_done ? CONFIG_ARG_NONE : config_parse_arg(&args->config, arg);
        if (config_arg == CONFIG_ARG_BAD)
            return 2;
        if (config_arg == CONFIG_ARG_TAKEN)
            continue;
        if (!options_done && (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0)) {
            fputs(usage_text, stdout);
            return 0;
        } else if (!options_done && strcmp(arg, "--") == 0) {
            options_done = true;
        } else if (!options_done && strncmp(arg, "--", 2) == 0) {
            status = parse_flag(args, arena, argc, argv, &i);
        } else {
            status = parse_positional(args, arg);
        }
        if (status >= 0)
            return status;
    }
    return args->rule ? -1 : usage_error("missing the rule string");
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
    RuleStringOptions opts = {args->num_sizes, args->sizes, 0, 0, 0, NULL, NULL, NULL};
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
        status = config_apply_cli(&args.config, &diag, &config);
        if (status < 0)
            status = run_rule(&arena, &diag, &args);
        diag_free(&diag);
        config_free(config);
    }
    arena_free(&arena);
    return status;
}
