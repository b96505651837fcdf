/* The common spellings of sdy's sharding attributes, read whole by the
 * scanner: `#sdy.sharding<@mesh, [{"a"}, {}, {"b", ?}p1]>` and
 * `#sdy.sharding_per_value<[<@mesh, [...]>, ...]>` on one line, axes and
 * sub-axes `"x":(1)2`, open dims and priorities. Read token by token they
 * were two fifths of the tokens and parser steps of a typical op
 * (bench/instructions.sh). Anything else (an inline mesh, replicated= or
 * unreduced=, an escape in a string, a line break, a comment, a malformed
 * piece) is left to the grammar, which reads it with its own diagnostics:
 * this reader reports nothing, and builds exactly what the grammar's
 * actions build for the text it accepts. */
#include <string.h>
#include "mlir/mlir_parse_ctx.h"

typedef struct FastReader {
    MlirParseCtx *ctx;
    const char *text, *p, *end;     /* text: where column `col` is */
    Loc loc;
    bool ok;
} FastReader;

static Loc fast_loc(const FastReader *r, const char *at)
{
    return (Loc){r->loc.file, r->loc.line, r->loc.col + (int)(at - r->text)};
}

static void fast_space(FastReader *r)
{
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t'))
        r->p++;
}

/* Skips spaces, then the character c; false (and the reader fails) if it
 * is not there. */
static bool fast_eat(FastReader *r, char c)
{
    fast_space(r);
    if (r->ok && r->p < r->end && *r->p == c) {
        r->p++;
        return true;
    }
    r->ok = false;
    return false;
}

/* Skips spaces; true (and eats it) if c comes next. */
static bool fast_try(FastReader *r, char c)
{
    fast_space(r);
    if (r->p < r->end && *r->p == c) {
        r->p++;
        return true;
    }
    return false;
}

static bool fast_peek(FastReader *r, char c)
{
    fast_space(r);
    return r->p < r->end && *r->p == c;
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static bool is_id_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_' || c == '$' || c == '.';
}

/* A quoted string without escapes, its contents copied. */
static const char *fast_string(FastReader *r, Loc *loc)
{
    fast_space(r);
    if (!r->ok || r->p >= r->end || *r->p != '"')
        return r->ok = false, NULL;
    const char *start = ++r->p;
    while (r->p < r->end && *r->p != '"' && *r->p != '\\' && *r->p != '\n' && *r->p != '\0')
        r->p++;
    if (r->p >= r->end || *r->p != '"')
        return r->ok = false, NULL;
    *loc = fast_loc(r, start - 1);
    return arena_strndup(r->ctx->arena, start, (size_t)(r->p++ - start));
}

/* Decimal digits the scanner would read as one INT token, at most 18 of
 * them (so that the value fits); followed by `follow` after spaces. */
static int64_t fast_int(FastReader *r, const char *follow)
{
    fast_space(r);
    int64_t v = 0;
    const char *start = r->p;
    while (r->p < r->end && is_digit(*r->p) && r->p - start < 18)
        v = v * 10 + (*r->p++ - '0');
    if (r->p == start || (r->p < r->end && (is_id_char(*r->p) || *r->p == '-')))
        r->ok = false;
    fast_space(r);
    if (r->p >= r->end || !strchr(follow, *r->p))
        r->ok = false;
    return v;
}

/* "x" or "x":(pre)size. */
static MlirAxisRef *fast_axis(FastReader *r)
{
    Loc loc;
    const char *name = fast_string(r, &loc);
    if (!r->ok || !fast_try(r, ':'))
        return r->ok ? mlir_build_axis(r->ctx, name, 1, 0, false, loc) : NULL;
    fast_eat(r, '(');
    int64_t pre = fast_int(r, ")");
    fast_eat(r, ')');
    int64_t size = fast_int(r, ",}");
    return r->ok ? mlir_build_axis(r->ctx, name, pre, size, true, loc) : NULL;
}

/* A dim's priority `p<1-6 digits>`, as the scanner's identifier before
 * `,` or `]`; NULL when there is none. */
static const char *fast_priority(FastReader *r)
{
    fast_space(r);
    if (r->p >= r->end || !(is_id_char(*r->p) && !is_digit(*r->p) && *r->p != '$' && *r->p != '.'))
        return NULL;
    const char *start = r->p;
    while (r->p < r->end && is_id_char(*r->p))
        r->p++;
    size_t n = (size_t)(r->p - start);
    if (start[0] != 'p' || n < 2 || n > 7 || strspn(start + 1, "0123456789") != n - 1)
        return r->ok = false, NULL;
    if (!fast_peek(r, ',') && !fast_peek(r, ']'))
        return r->ok = false, NULL;
    return arena_strndup(r->ctx->arena, start, n);
}

/* {}, {?}, {"a", "b"}, {"a", ?}, each with an optional priority. */
static MlirDimSharding *fast_dim(FastReader *r)
{
    fast_space(r);
    Loc loc = fast_loc(r, r->p);
    if (!fast_eat(r, '{'))
        return NULL;
    MlirList axes = {0};
    bool open = fast_try(r, '?');
    if (!open && !fast_peek(r, '}')) {
        do {
            MlirAxisRef *a = fast_axis(r);
            if (!r->ok)
                return NULL;
            arena_list_push(r->ctx->arena, &axes, a);
        } while (fast_try(r, ',') && !(open = fast_try(r, '?')));
    }
    if (!fast_eat(r, '}'))
        return NULL;
    const char *priority = fast_priority(r);
    if (!r->ok)
        return NULL;
    return mlir_build_dim(r->ctx, axes.count ? &axes : NULL, open, priority, loc);
}

/* `@mesh, [dims]>`: a sharding over a named mesh and no options. */
static MlirSharding *fast_sharding_body(FastReader *r)
{
    fast_space(r);
    if (r->p >= r->end || *r->p != '@')
        return r->ok = false, NULL;
    Loc loc = fast_loc(r, r->p);
    const char *name = ++r->p;
    while (r->p < r->end && (is_id_char(*r->p) || *r->p == '-'))
        r->p++;
    size_t name_len = (size_t)(r->p - name);
    if (!name_len || !fast_eat(r, ',') || !fast_eat(r, '['))
        return r->ok = false, NULL;
    MlirSharding *s = arena_alloc(r->ctx->arena, sizeof *s);
    s->mesh_name = arena_strndup(r->ctx->arena, name, name_len);
    s->loc = loc;
    if (!fast_peek(r, ']')) {
        do {
            MlirDimSharding *d = fast_dim(r);
            if (!r->ok)
                return NULL;
            arena_list_push(r->ctx->arena, &s->dims, d);
        } while (fast_try(r, ','));
    }
    fast_eat(r, ']');
    fast_eat(r, '>');
    return r->ok ? s : NULL;
}

/* `[<...>, #sdy.sharding<...>]>` */
static void fast_per_value(FastReader *r, MlirAttr *a)
{
    static const char sharding_open[] = "#sdy.sharding<";
    const size_t open_len = sizeof sharding_open - 1;
    if (!fast_eat(r, '[') || fast_peek(r, ']'))
        return (void)(fast_eat(r, ']') && fast_eat(r, '>'));
    do {
        if ((size_t)(r->end - r->p) > open_len && memcmp(r->p, sharding_open, open_len) == 0)
            r->p += open_len;
        else if (!fast_eat(r, '<'))
            return;
        MlirSharding *s = fast_sharding_body(r);
        if (!s)
            return;
        arena_list_push(r->ctx->arena, &a->shardings, s);
    } while (fast_try(r, ','));
    fast_eat(r, ']');
    fast_eat(r, '>');
}

MlirAttr *mlir_fast_sdy_attr(MlirParseCtx *ctx, bool per_value, Loc loc, int open_len, int *used)
{
    /* the grammar counts the brackets it reads (mlir_enter_nesting): near
     * the limit, it reads them and reports */
    if (ctx->nesting + 4 > MLIR_MAX_NESTING)
        return NULL;
    /* a line break ends the reader: nothing it accepts spans one, so a
     * column is the token's plus how far along the line it is */
    const char *text = ctx->text + ctx->offset;
    FastReader r = {ctx, text - open_len, text, ctx->text + ctx->len, loc, true};
    MlirAttr *a = mlir_attr_new(ctx, per_value ? MA_SHARDINGS : MA_SHARDING, loc);
    if (per_value)
        fast_per_value(&r, a);
    else
        a->sharding = fast_sharding_body(&r);
    if (!r.ok)
        return NULL;
    *used = (int)(r.p - text);
    return a;
}
