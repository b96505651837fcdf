/* mlir-opt's -verify-diagnostics: the input's `// expected-error {{...}}`
 * annotations (expected-warning, -note, -remark; at `@+N`, `@-N`, `@N`,
 * `@above`, `@below` or the same line) are matched against the
 * diagnostics a run emits, by level, line and message substring. Every
 * annotation must be met and every error and warning expected. */
#include <stdlib.h>
#include <string.h>
#include "shardc/mlir.h"

typedef struct Expectation {
    DiagLevel level;
    bool remark;                /* expected-remark: shardc emits none */
    int line;
    const char *message;
    Loc loc;                    /* of the annotation */
    bool met;
} Expectation;

struct MlirExpectations {
    Arena *arena;
    const char *file;
    Expectation *items;
    int count, cap;
    DiagEngine *report;         /* where mismatches go */
    int unexpected;
};

static const char *line_start(const char *text, size_t len, int line)
{
    const char *p = text;
    for (int l = 1; l < line && p < text + len; l++) {
        const char *nl = memchr(p, '\n', (size_t)(text + len - p));
        if (!nl)
            return NULL;
        p = nl + 1;
    }
    return p;
}

static bool line_has_annotation(const char *text, size_t len, int line)
{
    const char *p = line_start(text, len, line);
    if (!p)
        return false;
    const char *nl = memchr(p, '\n', (size_t)(text + len - p));
    size_t n = nl ? (size_t)(nl - p) : (size_t)(text + len - p);
    char buf[4096];
    if (n >= sizeof buf)
        n = sizeof buf - 1;
    memcpy(buf, p, n);
    buf[n] = '\0';
    return strstr(buf, "expected-") != NULL;
}

/* The line an annotation on `line` with suffix `at` (after '@') names. */
static int target_line(const char *at, int line, const char *text, size_t len, int num_lines)
{
    if (!at)
        return line;
    if (at[0] == '+' || at[0] == '-')
        return line + atoi(at);
    int step = strncmp(at, "below", 5) == 0 ? 1 : strncmp(at, "above", 5) == 0 ? -1 : 0;
    if (step == 0)
        return atoi(at);
    int l = line + step;
    while (l > 0 && l <= num_lines && line_has_annotation(text, len, l))
        l += step;
    return l;
}

static void add(MlirExpectations *e, Expectation x)
{
    if (e->count == e->cap) {
        int cap = e->cap ? e->cap * 2 : 8;
        Expectation *items = ARENA_ARRAY(e->arena, Expectation, cap);
        if (e->count)
            memcpy(items, e->items, sizeof *items * (size_t)e->count);
        e->items = items;
        e->cap = cap;
    }
    e->items[e->count++] = x;
}

static const struct { const char *word; DiagLevel level; bool remark; } kinds[] = {
    {"expected-error", DIAG_ERROR, false}, {"expected-warning", DIAG_WARNING, false},
    {"expected-note", DIAG_NOTE, false}, {"expected-remark", DIAG_NOTE, true},
};

/* One annotation starting at p (just after "expected-"... word) on `line`. */
static void parse_one(MlirExpectations *e, const char *p, int k, int line, const char *text, size_t len,
                      int num_lines)
{
    const char *q = p + strlen(kinds[k].word);
    const char *at = NULL;
    q += strspn(q, " ");
    if (*q == '@')
        at = ++q;
    const char *open = strstr(q, "{{");
    const char *close = open ? strstr(open + 2, "}}") : NULL;
    const char *nl = memchr(q, '\n', (size_t)(text + len - q));
    if (!open || !close || (nl && close > nl))
        return;
    Expectation x = {kinds[k].level, kinds[k].remark, target_line(at, line, text, len, num_lines),
                     arena_strndup(e->arena, open + 2, (size_t)(close - open - 2)),
                     {e->file, line, (int)(p - line_start(text, len, line)) + 1}, false};
    add(e, x);
}

MlirExpectations *mlir_expect_parse(Arena *arena, const char *file, const char *text, size_t len)
{
    MlirExpectations *e = arena_alloc(arena, sizeof *e);
    e->arena = arena;
    e->file = file;
    int num_lines = 1;
    for (size_t i = 0; i < len; i++)
        num_lines += text[i] == '\n';
    int line = 1;
    for (const char *p = text; p < text + len; p++) {
        if (*p == '\n') {
            line++;
            continue;
        }
        if (*p != 'e' || strncmp(p, "expected-", 9) != 0)
            continue;
        for (int k = 0; k < 4; k++) {
            size_t n = strlen(kinds[k].word);
            if (strncmp(p, kinds[k].word, n) == 0 && (p[n] == ' ' || p[n] == '@' || p[n] == '{'))
                parse_one(e, p, k, line, text, len, num_lines);
        }
    }
    return e;
}

int mlir_expect_count(const MlirExpectations *e)
{
    return e->count;
}

void mlir_expect_sink(void *user, DiagLevel level, Loc loc, const char *message)
{
    MlirExpectations *e = user;
    for (int i = 0; i < e->count; i++) {
        Expectation *x = &e->items[i];
        /* met or not, as mlir-opt: a diagnostic emitted twice meets one annotation */
        if (!x->remark && x->level == level && x->line == loc.line && strstr(message, x->message)) {
            x->met = true;
            return;
        }
    }
    if (level == DIAG_NOTE)
        return;     /* a note shardc adds to an expected error is not a mismatch */
    e->unexpected++;
    static const char *const names[] = {"error", "warning", "note"};
    diag_error(e->report, loc, "unexpected %s: %s", names[level], message);
}

void mlir_expect_begin(MlirExpectations *e, DiagEngine *diag, DiagEngine *report)
{
    e->report = report;
    diag->sink = mlir_expect_sink;
    diag->sink_user = e;
}

bool mlir_expect_finish(MlirExpectations *e)
{
    static const char *const names[] = {"error", "warning", "note"};
    int missing = 0;
    for (int i = 0; i < e->count; i++) {
        Expectation *x = &e->items[i];
        if (x->met)
            continue;
        missing++;
        diag_error(e->report, x->loc, "expected %s \"%s\" was not produced", x->remark ? "remark" : names[x->level],
                   x->message);
    }
    return missing == 0 && e->unexpected == 0;
}
