/* Stage one of custom-op sharding rules: a JAX custom_partitioning rule
 * string ('b v, -> b k') scanned and validated before any types are known.
 *
 * The scanner is JAX's _parse_values state machine, step for step, and each
 * check runs at the moment JAX runs it, so the first error reported is the
 * one JAX would raise, with JAX's wording. Positions are kept for carets. */
#include "shardc/rule.h"
#include <limits.h>
#include <stdarg.h>
#include <string.h>

/* U+2026, which JAX substitutes for "..." before parsing. */
static const char ellipsis_char[] = "\xE2\x80\xA6";

typedef struct Span {
    int start, len;     /* a factor name: offset and length in the text */
} Span;

typedef struct PendingDim {
    int first_name, count; /* range of Parser.names */
    int col;
} PendingDim;

/* Scanning state for one side of the arrow; mirrors the locals of JAX's
 * _parse_values (value, current_factor, current_compound_dim). */
typedef struct Parser {
    Arena *arena;
    DiagEngine *diag;
    const RuleString *rule;
    const char *text;
    PendingDim *dims;       /* the tensor being read */
    int num_dims;
    Span *names;
    int num_names;
    bool has_ellipsis;
    Span group_digits;
    int ellipsis_col, tensor_col;
    bool in_compound;       /* a '(' is open; it may span a ',' as in JAX */
    int compound_col;
    Span *compound;
    int compound_count;
    int factor_start;       /* -1 when no name is being read */
    RuleTensor *tensors;
    int num_tensors;
} Parser;

static bool fail(Parser *p, int offset, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static bool fail(Parser *p, int offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vreport(p->diag, DIAG_ERROR, rule_string_loc(p->rule, offset), fmt, ap);
    va_end(ap);
    return false;
}

Loc rule_string_loc(const RuleString *rule, int offset)
{
    Loc loc = rule->loc;
    int line_start = -1;
    for (int i = 0; i < offset && rule->text[i]; i++) {
        if (rule->text[i] == '\n' && loc.line > 0) {
            loc.line++;
            line_start = i + 1;
        }
    }
    if (line_start < 0)
        return loc_offset(loc, offset);
    loc.col = 1 + offset - line_start;
    return loc;
}

/* Python's str.split() whitespace, restricted to ASCII. */
static bool is_space(char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r') || (c >= '\x1c' && c <= '\x1f');
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

static bool is_name_char(char c) { return c == '_' || is_digit(c) || is_letter(c); }

static bool is_ellipsis(const char *text, int i)
{
    return text[i] == '.' && text[i + 1] == '.' && text[i + 2] == '.';
}

/* The text JAX quotes in messages: "..." replaced by U+2026 and, for one
 * side of the arrow, whitespace runs collapsed as " ".join(s.split()). */
static char *jax_text(Arena *arena, const char *text, int start, int end, bool collapse)
{
    char *out = arena_alloc(arena, (size_t)(end - start) + 1);
    int n = 0;
    bool space_pending = false;
    for (int i = start; i < end; i++) {
        if (collapse && is_space(text[i])) {
            space_pending = n > 0;
            continue;
        }
        if (space_pending)
            out[n++] = ' ';
        space_pending = false;
        if (is_ellipsis(text, i)) {
            memcpy(out + n, ellipsis_char, 3);
            n += 3;
            i += 2;
        } else {
            out[n++] = text[i];
        }
    }
    out[n] = '\0';
    return out;
}

/* ---- the scanner ---- */

static void add_plain_dim(Parser *p, Span name)
{
    p->names[p->num_names] = name;
    p->dims[p->num_dims++] = (PendingDim){p->num_names++, 1, name.start};
}

/* JAX's add_factor(current_factor) at a separator. */
static void flush_factor(Parser *p, int end)
{
    if (p->factor_start < 0)
        return;
    Span name = {p->factor_start, end - p->factor_start};
    p->factor_start = -1;
    if (p->in_compound)
        p->compound[p->compound_count++] = name;
    else
        add_plain_dim(p, name);
}

/* JAX's _check_factor: only '_' can reach here as a bad first character. */
static bool check_name_start(Parser *p, Span name)
{
    char first = p->text[name.start];
    if (is_letter(first))
        return true;
    return fail(p, name.start, "Factor names have to start with a letter, but got '%c'", first);
}

static bool scan_ellipsis(Parser *p, int *pos, int end)
{
    int i = *pos;
    if (p->factor_start >= 0 || p->in_compound || p->num_dims > 0 || p->has_ellipsis)
        return fail(p, i, "Ellipsis can only be used at the beginning of a dimension");
    int digits = i + 3;
    while (digits < end && is_digit(p->text[digits]))
        digits++;
    p->has_ellipsis = true;
    p->ellipsis_col = i;
    p->group_digits = (Span){i + 3, digits - (i + 3)};
    *pos = digits;
    return true;
}

static bool scan_name_char(Parser *p, int i)
{
    if (p->factor_start >= 0)
        return true;
    if (is_digit(p->text[i]))
        return fail(p, i, "Factor names have to start with a letter, but got '%c'", p->text[i]);
    p->factor_start = i;
    return true;
}

static bool open_compound(Parser *p, int i)
{
    if (p->in_compound)
        return fail(p, i, "Compound factors should be one level, nested brackets are not allowed");
    p->in_compound = true;
    p->compound_col = i;
    p->compound_count = 0;
    return true;
}

static bool close_compound(Parser *p, int i)
{
    if (!p->in_compound)
        return fail(p, i, "Brackets are not balanced");
    if (p->compound_count <= 1)
        return fail(p, p->compound_col, "Brackets should contain at least two factors");
    for (int k = 0; k < p->compound_count; k++)
        if (!check_name_start(p, p->compound[k]))
            return false;
    p->dims[p->num_dims++] = (PendingDim){p->num_names, p->compound_count, p->compound_col};
    memcpy(p->names + p->num_names, p->compound, sizeof(Span) * (size_t)p->compound_count);
    p->num_names += p->compound_count;
    p->in_compound = false;
    return true;
}

static const char *ellipsis_group(Parser *p)
{
    Span d = p->group_digits;
    while (d.len > 1 && p->text[d.start] == '0') {
        d.start++;
        d.len--;
    }
    return d.len == 0 ? "0" : arena_strndup(p->arena, p->text + d.start, (size_t)d.len);
}

/* ...N's N as an int, INT_MAX when larger, -1 for a plain "...". */
static int ellipsis_number(Parser *p)
{
    if (p->group_digits.len == 0)
        return -1;
    long long n = 0;
    for (int i = 0; i < p->group_digits.len && n <= INT_MAX; i++)
        n = n * 10 + (p->text[p->group_digits.start + i] - '0');
    return n > INT_MAX ? INT_MAX : (int)n;
}

static RuleDim build_dim(Parser *p, const PendingDim *pending)
{
    RuleDim dim = {pending->count, NULL, pending->col, NULL};
    dim.names = ARENA_ARRAY(p->arena, const char *, pending->count);
    dim.name_cols = ARENA_ARRAY(p->arena, int, pending->count);
    for (int k = 0; k < pending->count; k++) {
        Span name = p->names[pending->first_name + k];
        dim.names[k] = arena_strndup(p->arena, p->text + name.start, (size_t)name.len);
        dim.name_cols[k] = name.start;
    }
    return dim;
}

/* JAX's ArrayMapping(*value) at ',' or at the end of a side. */
static bool finish_tensor(Parser *p, int at)
{
    for (int d = 0; d < p->num_dims; d++)
        if (p->dims[d].count == 1 && !check_name_start(p, p->names[p->dims[d].first_name]))
            return false;
    RuleTensor *t = &p->tensors[p->num_tensors++];
    memset(t, 0, sizeof *t);
    t->has_ellipsis = p->has_ellipsis;
    t->ellipsis_rank = p->has_ellipsis ? ellipsis_number(p) : -1;
    t->ellipsis_group = p->has_ellipsis ? ellipsis_group(p) : NULL;
    t->ellipsis_col = p->has_ellipsis ? p->ellipsis_col : -1;
    t->col = p->tensor_col >= 0 ? p->tensor_col : at;
    t->rank = p->num_dims;
    t->dims = ARENA_ARRAY(p->arena, RuleDim, p->num_dims);
    for (int d = 0; d < p->num_dims; d++)
        t->dims[d] = build_dim(p, &p->dims[d]);
    p->num_dims = p->num_names = 0;
    p->has_ellipsis = false;
    p->tensor_col = -1;
    return true;
}

static bool scan_separator(Parser *p, int i)
{
    flush_factor(p, i);
    switch (p->text[i]) {
    case '(':
        return open_compound(p, i);
    case ')':
        return close_compound(p, i);
    case ',':
        return finish_tensor(p, i);
    default:
        return true;
    }
}

static bool unknown_character(Parser *p, int i, int end)
{
    unsigned char lead = (unsigned char)p->text[i];
    int len = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    if (i + len > end)
        len = end - i;
    return fail(p, i, "Unknown character '%.*s'", len, p->text + i);
}

static bool scan_char(Parser *p, int *pos, int end)
{
    int i = *pos;
    char c = p->text[i];
    if (!is_space(c) && p->tensor_col < 0)
        p->tensor_col = i;
    if (c == '.')
        return scan_ellipsis(p, pos, end);
    *pos = i + 1;
    if (is_space(c) || c == '(' || c == ')' || c == ',')
        return scan_separator(p, i);
    if (is_name_char(c))
        return scan_name_char(p, i);
    return unknown_character(p, i, end);
}

static bool finish_side(Parser *p, int start, int end)
{
    if (p->in_compound)
        return fail(p, p->compound_col, "Brackets are not balanced in rule: '%s'",
                    jax_text(p->arena, p->text, start, end, true));
    flush_factor(p, end);
    return finish_tensor(p, end);
}

static bool parse_side(Parser *p, int start, int end, RuleTensor **tensors, int *count)
{
    int cap = end - start + 1;
    p->dims = ARENA_ARRAY(p->arena, PendingDim, cap);
    p->names = ARENA_ARRAY(p->arena, Span, cap);
    p->compound = ARENA_ARRAY(p->arena, Span, cap);
    p->tensors = ARENA_ARRAY(p->arena, RuleTensor, cap);
    p->num_dims = p->num_names = p->num_tensors = 0;
    p->has_ellipsis = p->in_compound = false;
    p->factor_start = p->tensor_col = -1;
    for (int i = start; i < end;)
        if (!scan_char(p, &i, end))
            return false;
    if (!finish_side(p, start, end))
        return false;
    *tensors = p->tensors;
    *count = p->num_tensors;
    return true;
}

/* ---- checks on the whole string, before scanning (str_to_sdy_sharding_rule) ---- */

static bool check_dots(Parser *p)
{
    const char *text = p->text;
    const char *u2026 = strstr(text, ellipsis_char);
    if (u2026)
        return fail(p, (int)(u2026 - text), "Unknown character '%s'", ellipsis_char);
    for (int i = 0; text[i]; i++) {
        if (is_ellipsis(text, i))
            i += 2;
        else if (text[i] == '.')
            return fail(p, i, "Character '.' must be used inside ellipsis '...'");
    }
    return true;
}

static bool find_arrow(Parser *p, int *arrow)
{
    const char *first = strstr(p->text, "->");
    const char *second = first ? strstr(first + 2, "->") : NULL;
    if (first && !second) {
        *arrow = (int)(first - p->text);
        return true;
    }
    int len = (int)strlen(p->text);
    return fail(p, second ? (int)(second - p->text) : 0, "There is no -> in rule: '%s'",
                jax_text(p->arena, p->text, 0, len, false));
}

/* ---- validation of the parsed rule (SdyShardingRule.__init__) ---- */

typedef struct FactorUse {
    const char *name;
    bool inferable;         /* used for a whole dim somewhere */
    int first_col, whole_col;
} FactorUse;

typedef struct FactorUses {
    FactorUse *items;
    int count;
} FactorUses;

static FactorUse *find_use(const FactorUses *uses, const char *name)
{
    for (int i = 0; i < uses->count; i++)
        if (strcmp(uses->items[i].name, name) == 0)
            return &uses->items[i];
    return NULL;
}

static void note_use(FactorUses *uses, const char *name, bool whole, int col)
{
    FactorUse *use = find_use(uses, name);
    if (!use) {
        use = &uses->items[uses->count++];
        *use = (FactorUse){name, false, col, -1};
    }
    if (whole && !use->inferable) {
        use->inferable = true;
        use->whole_col = col;
    }
}

static void collect_tensor_uses(FactorUses *uses, const RuleTensor *t)
{
    for (int d = 0; d < t->rank; d++)
        for (int k = 0; k < t->dims[d].count; k++)
            note_use(uses, t->dims[d].names[k], t->dims[d].count == 1, t->dims[d].name_cols[k]);
}

/* Factors in first-appearance order, as JAX's factors_inferrable dict. The
 * ellipsis is not a factor here: it cannot be named in sizes or sets. */
static FactorUses collect_uses(Arena *arena, const RuleString *rule)
{
    FactorUses uses = {ARENA_ARRAY(arena, FactorUse, strlen(rule->text) + 1), 0};
    for (int i = 0; i < rule->num_operands; i++)
        collect_tensor_uses(&uses, &rule->operands[i]);
    for (int i = 0; i < rule->num_results; i++)
        collect_tensor_uses(&uses, &rule->results[i]);
    return uses;
}

static const RuleFactorSize *find_size(const RuleString *rule, const char *name)
{
    for (int i = 0; i < rule->num_sizes; i++)
        if (strcmp(rule->sizes[i].name, name) == 0)
            return &rule->sizes[i];
    return NULL;
}

static bool check_sizes(Parser *p, const FactorUses *uses)
{
    const RuleString *rule = p->rule;
    for (int i = 0; i < rule->num_sizes; i++)
        if (!find_use(uses, rule->sizes[i].name))
            return fail(p, 0, "Factor %s is not used in the rule, but size is provided",
                        rule->sizes[i].name);
    for (int i = 0; i < uses->count; i++) {
        const FactorUse *use = &uses->items[i];
        bool sized = find_size(rule, use->name) != NULL;
        if (!sized && !use->inferable)
            return fail(p, use->first_col,
                        "Factor %s is only used in compound factors; must specify its size",
                        use->name);
        if (sized && use->inferable)
            return fail(p, use->whole_col,
                        "Factor %s represents a whole dimension; do not specify its size",
                        use->name);
    }
    return true;
}

typedef struct NameSet {
    const char **names;
    int count;
} NameSet;

static bool name_set_has(const NameSet *set, const char *name)
{
    for (int i = 0; i < set->count; i++)
        if (strcmp(set->names[i], name) == 0)
            return true;
    return false;
}

static bool has_duplicate(const char *const *names, int count)
{
    for (int i = 0; i < count; i++)
        for (int j = i + 1; j < count; j++)
            if (strcmp(names[i], names[j]) == 0)
                return true;
    return false;
}

/* JAX's check_special_factors for one of the three sets. */
static bool check_special(Parser *p, const FactorUses *uses, NameSet *special, const char *kind,
                          const char *const *names, int count)
{
    if (has_duplicate(names, count))
        return fail(p, 0, "%s contains duplicated factors", kind);
    for (int i = 0; i < count; i++) {
        if (!find_use(uses, names[i]))
            return fail(p, 0, "Factor %s in %s is not used in the rule", names[i], kind);
        if (name_set_has(special, names[i]))
            return fail(p, 0,
                        "Factor %s can only be in one of the reduction, need replication, or "
                        "permutation factor sets.",
                        names[i]);
        special->names[special->count++] = names[i];
    }
    return true;
}

/* Blocked factors may be of any kind (Shardy: a factor that keeps its
 * sharding but does not pass it on), so they are not one of the sets. */
static bool check_blocked(Parser *p, const FactorUses *uses, const char *const *names, int count)
{
    if (has_duplicate(names, count))
        return fail(p, 0, "blocked_propagation contains duplicated factors");
    for (int i = 0; i < count; i++)
        if (!find_use(uses, names[i]))
            return fail(p, 0, "Factor %s in blocked_propagation is not used in the rule", names[i]);
    return true;
}

static bool validate(Parser *p)
{
    const RuleString *r = p->rule;
    FactorUses uses = collect_uses(p->arena, r);
    if (!check_sizes(p, &uses))
        return false;
    int total = r->num_reduction + r->num_need_replication + r->num_permutation;
    NameSet special = {ARENA_ARRAY(p->arena, const char *, total), 0};
    return check_special(p, &uses, &special, "reduction_factors", r->reduction, r->num_reduction) &&
           check_special(p, &uses, &special, "need_replication_factors", r->need_replication,
                         r->num_need_replication) &&
           check_special(p, &uses, &special, "permutation_factors", r->permutation,
                         r->num_permutation) &&
           check_blocked(p, &uses, r->blocked, r->num_blocked);
}

/* ---- options ---- */

/* What Python's **factor_sizes cannot express, checked before parsing as
 * JAX checks the types of factor_sizes. */
static bool check_size_options(Parser *p, const RuleStringOptions *opts)
{
    for (int i = 0; i < opts->num_sizes; i++) {
        const RuleFactorSize *s = &opts->sizes[i];
        if (s->size < 0)
            return fail(p, 0, "Factor %s size must be non-negative, but got %lld", s->name,
                        (long long)s->size);
        for (int j = 0; j < i; j++)
            if (strcmp(opts->sizes[j].name, s->name) == 0)
                return fail(p, 0, "Factor %s size is provided more than once", s->name);
    }
    return true;
}

static const char **copy_names(Arena *arena, const char *const *names, int count)
{
    const char **copy = ARENA_ARRAY(arena, const char *, count);
    for (int i = 0; i < count; i++)
        copy[i] = arena_strdup(arena, names[i]);
    return copy;
}

static void copy_options(Arena *arena, RuleString *rule, const RuleStringOptions *opts)
{
    rule->num_sizes = opts->num_sizes;
    rule->sizes = ARENA_ARRAY(arena, RuleFactorSize, opts->num_sizes);
    for (int i = 0; i < opts->num_sizes; i++)
        rule->sizes[i] = (RuleFactorSize){arena_strdup(arena, opts->sizes[i].name),
                                          opts->sizes[i].size};
    rule->num_reduction = opts->num_reduction;
    rule->reduction = copy_names(arena, opts->reduction, opts->num_reduction);
    rule->num_need_replication = opts->num_need_replication;
    rule->need_replication = copy_names(arena, opts->need_replication, opts->num_need_replication);
    rule->num_permutation = opts->num_permutation;
    rule->permutation = copy_names(arena, opts->permutation, opts->num_permutation);
    rule->num_blocked = opts->num_blocked;
    rule->blocked = copy_names(arena, opts->blocked, opts->num_blocked);
}

RuleString *rule_string_parse(Arena *arena, DiagEngine *diag, const char *text, Loc loc,
                              const RuleStringOptions *opts)
{
    static const RuleStringOptions no_options;
    RuleString *rule = ARENA_NEW(arena, RuleString);
    rule->text = arena_strdup(arena, text);
    rule->loc = loc;
    Parser p = {.arena = arena, .diag = diag, .rule = rule, .text = rule->text};
    int arrow = 0;
    if (!opts)
        opts = &no_options;
    if (!check_size_options(&p, opts) || !check_dots(&p) || !find_arrow(&p, &arrow))
        return NULL;
    if (!parse_side(&p, 0, arrow, &rule->operands, &rule->num_operands) ||
        !parse_side(&p, arrow + 2, (int)strlen(text), &rule->results, &rule->num_results))
        return NULL;
    copy_options(arena, rule, opts);
    return validate(&p) ? rule : NULL;
}
