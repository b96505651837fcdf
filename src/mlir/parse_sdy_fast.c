/* The common spellings of sdy's sharding attributes, read whole by the
 * scanner: `#sdy.sharding<@mesh, [{"a"}, {}, {"b", ?}p1]>` and
 * `#sdy.sharding_per_value<[<@mesh, [...]>, ...]>` as sdy_opt prints them
 * (on one line, a space after each comma), with axes, sub-axes
 * `"x":(1)2`, open dims and priorities; and an attribute dict holding just
 * one of them, `{sdy.sharding = ...}`, as every op and argument of a
 * propagated program carries; and an array of integers after an `=`,
 * `dims = [0, 1]`, on one line with a space after each comma; and an op's
 * type signature `: (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>`, or one
 * `: tensor<8xf32>` ending its line. Read token
 * by token they were most of the tokens and parser steps of a typical op
 * (bench/instructions.sh). Anything
 * else (an inline mesh, replicated= or unreduced=, an escape in a string, a
 * line break, other spacing, a malformed piece) is left to the grammar,
 * which reads it with its own diagnostics: this reader reports nothing, and
 * builds exactly what the grammar's actions build for the text it accepts. */
#include <string.h>
#include "mlir/mlir_parse_ctx.h"

enum { FAST_MAX_ITEMS = 16 };   /* dims, axes or shardings in one list */

typedef struct FastReader {
    MlirParseCtx *ctx;
    const char *p, *end;
    const char *base;           /* where column base_col of line is */
    int line, base_col;
    bool ok;
} FastReader;

static inline Loc fast_loc(const FastReader *r, const char *at)
{
    return (Loc){r->ctx->file, r->line, r->base_col + (int)(at - r->base)};
}

static inline bool fast_at(const FastReader *r, char c)
{
    return r->p < r->end && *r->p == c;
}

/* The character c, else the reader fails. */
static inline bool fast_eat(FastReader *r, char c)
{
    if (r->ok && fast_at(r, c)) {
        r->p++;
        return true;
    }
    return r->ok = false;
}

/* A comma and the spaces after it, if one comes next. */
static inline bool fast_comma(FastReader *r)
{
    if (!fast_at(r, ','))
        return false;
    r->p++;
    while (fast_at(r, ' '))
        r->p++;
    return true;
}

static inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

static inline bool is_id_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_' || c == '$' || c == '.';
}

/* An arena list holding items[0..n). */
static MlirList fast_list(MlirParseCtx *ctx, void **items, int n)
{
    MlirList l = {n, n, NULL};
    if (n) {
        l.items = ARENA_ARRAY_UNINIT(ctx->arena, void *, n);
        memcpy(l.items, items, sizeof(void *) * (size_t)n);
    }
    return l;
}

/* text[0..n) as a string, the copy made for the same text just before
 * when there is one (axis and mesh names repeat on every op). */
static const char *fast_name(FastReader *r, const char *text, size_t n, const char **last)
{
    if (*last && strncmp(*last, text, n) == 0 && (*last)[n] == '\0')
        return *last;
    return *last = arena_strndup(r->ctx->arena, text, n);
}

/* A quoted axis name without escapes. */
static const char *fast_axis_name(FastReader *r, Loc *loc)
{
    if (!fast_at(r, '"'))
        return r->ok = false, NULL;
    const char *start = ++r->p;
    while (r->p < r->end && *r->p != '"' && *r->p != '\\' && *r->p != '\n' && *r->p != '\0')
        r->p++;
    if (!fast_at(r, '"'))
        return r->ok = false, NULL;
    *loc = fast_loc(r, start - 1);
    return fast_name(r, start, (size_t)(r->p++ - start), &r->ctx->fast_axis_name);
}

/* Decimal digits the scanner reads as one INT token (at most 18, so that
 * the value fits), then `follow` or `or_follow`. */
static int64_t fast_int(FastReader *r, char follow, char or_follow)
{
    int64_t v = 0;
    const char *start = r->p;
    while (r->p < r->end && is_digit(*r->p) && r->p - start < 18)
        v = v * 10 + (*r->p++ - '0');
    if (r->p == start || !(fast_at(r, follow) || fast_at(r, or_follow)))
        r->ok = false;
    return v;
}

/* "x" or "x":(pre)size, as mlir_build_axis builds it. */
static MlirAxisRef *fast_axis(FastReader *r)
{
    MlirAxisRef *a = ARENA_ARRAY_UNINIT(r->ctx->arena, MlirAxisRef, 1);    /* every field set */
    a->name = fast_axis_name(r, &a->loc);
    a->pre_size = 1;
    a->size = 0;
    a->sub = false;
    if (r->ok && fast_at(r, ':')) {
        r->p++;
        fast_eat(r, '(');
        a->pre_size = r->ok ? fast_int(r, ')', ')') : 0;
        if (fast_eat(r, ')'))
            a->size = fast_int(r, ',', '}');
        a->sub = true;
    }
    return a;
}

/* A dim's priority `p<1-6 digits>` before `,` or `]`, as
 * mlir_build_dim reads it; -1 when there is none. */
static int fast_priority(FastReader *r)
{
    if (!fast_at(r, 'p'))
        return r->ok = r->ok && (fast_at(r, ',') || fast_at(r, ']')), -1;
    const char *start = ++r->p;
    int v = 0;
    while (r->p < r->end && is_digit(*r->p) && r->p - start < 6)
        v = v * 10 + (*r->p++ - '0');
    if (r->p == start || !(fast_at(r, ',') || fast_at(r, ']')) || (*start == '0' && r->p - start > 1))
        r->ok = false;  /* left to the grammar, which reports it */
    return v;
}

/* {}, {?}, {"a", "b"}, {"a", ?}, each with an optional priority. */
static MlirDimSharding *fast_dim(FastReader *r)
{
    MlirDimSharding *d = ARENA_ARRAY_UNINIT(r->ctx->arena, MlirDimSharding, 1);   /* every field set */
    d->loc = fast_loc(r, r->p);
    void *axes[FAST_MAX_ITEMS];
    int n = 0;
    fast_eat(r, '{');
    d->is_open = fast_at(r, '?');
    if (!d->is_open && !fast_at(r, '}')) {
        do {
            if (n == FAST_MAX_ITEMS)
                return r->ok = false, NULL;
            axes[n++] = fast_axis(r);
        } while (r->ok && fast_comma(r) && !(d->is_open = fast_at(r, '?')));
    }
    r->p += d->is_open;
    fast_eat(r, '}');
    d->axes = fast_list(r->ctx, axes, n);
    d->priority = fast_priority(r);
    return d;
}

/* `@mesh, [dims]>`: a sharding over a named mesh, without options. */
static MlirSharding *read_sharding_body(FastReader *r)
{
    MlirSharding *s = ARENA_NEW(r->ctx->arena, MlirSharding);
    s->loc = fast_loc(r, r->p);
    fast_eat(r, '@');
    const char *name = r->p;
    while (r->p < r->end && (is_id_char(*r->p) || *r->p == '-'))
        r->p++;
    if (r->p == name || !r->ok)
        return r->ok = false, NULL;
    s->mesh_name = fast_name(r, name, (size_t)(r->p - name), &r->ctx->fast_mesh_name);
    fast_eat(r, ',');
    while (fast_at(r, ' '))
        r->p++;
    fast_eat(r, '[');
    void *dims[FAST_MAX_ITEMS];
    int n = 0;
    if (r->ok && !fast_at(r, ']')) {
        do {
            if (n == FAST_MAX_ITEMS)
                return r->ok = false, NULL;
            dims[n++] = fast_dim(r);
        } while (r->ok && fast_comma(r));
    }
    fast_eat(r, ']');
    fast_eat(r, '>');
    s->dims = fast_list(r->ctx, dims, n);
    return s;
}

/* The memo's sharding whose text comes next, or NULL. */
static const struct MlirShardingMemo *memo_find(const FastReader *r)
{
    const MlirParseCtx *ctx = r->ctx;
    for (int i = 0; i < ctx->num_sharding_memo; i++) {
        const struct MlirShardingMemo *e = &ctx->sharding_memo[i];
        if (r->end - r->p > e->len && memcmp(r->p, e->text, (size_t)e->len) == 0)
            return e;
    }
    return NULL;
}

/* A sharding body; streamed, one whose text was read before is copied
 * from the memo (its own location, dims shared: the importer reads them,
 * nothing writes them), and the first texts are read into the memo. The
 * plain read (whole, to report errors) uses no memo, so its diagnostics
 * point into each sharding as written. */
static MlirSharding *fast_sharding_body(FastReader *r)
{
    MlirParseCtx *ctx = r->ctx;
    if (!ctx->stream)
        return read_sharding_body(r);
    const struct MlirShardingMemo *e = memo_find(r);
    if (e) {
        MlirSharding *s = ARENA_ARRAY_UNINIT(ctx->arena, MlirSharding, 1);
        *s = *e->sharding;
        s->loc = fast_loc(r, r->p);
        r->p += e->len;
        return s;
    }
    if (ctx->num_sharding_memo == MLIR_SHARDING_MEMO)
        return read_sharding_body(r);
    const char *start = r->p;
    Arena *op_arena = ctx->arena;
    ctx->arena = ctx->keep;
    ctx->fast_axis_name = ctx->fast_mesh_name = NULL;   /* copies in the op's arena */
    MlirSharding *s = read_sharding_body(r);
    ctx->arena = op_arena;
    if (r->ok) {
        s->memo_id = ++ctx->num_sharding_memo;
        ctx->sharding_memo[s->memo_id - 1] = (struct MlirShardingMemo){start, (int)(r->p - start), s};
    }
    return s;
}

static const char sharding_open[] = "#sdy.sharding<", per_value_open[] = "#sdy.sharding_per_value<";

static bool fast_prefix(FastReader *r, const char *prefix, size_t n)
{
    if ((size_t)(r->end - r->p) <= n || memcmp(r->p, prefix, n) != 0)
        return false;
    r->p += n;
    return true;
}

/* `[<...>, #sdy.sharding<...>]>` */
static void fast_per_value(FastReader *r, MlirAttr *a)
{
    void *shardings[FAST_MAX_ITEMS];
    int n = 0;
    fast_eat(r, '[');
    if (r->ok && !fast_at(r, ']')) {
        do {
            if (n == FAST_MAX_ITEMS || !(fast_prefix(r, sharding_open, sizeof sharding_open - 1) || fast_eat(r, '<')))
                return (void)(r->ok = false);
            shardings[n++] = fast_sharding_body(r);
        } while (r->ok && fast_comma(r));
    }
    fast_eat(r, ']');
    fast_eat(r, '>');
    a->shardings = fast_list(r->ctx, shardings, n);
}

/* The attribute after its opening token (already read), at r->p. */
static MlirAttr *fast_sdy_attr(FastReader *r, bool per_value, Loc loc)
{
    MlirAttr *a = mlir_attr_new(r->ctx, per_value ? MA_SHARDINGS : MA_SHARDING, loc);
    if (per_value)
        fast_per_value(r, a);
    else
        a->sharding = fast_sharding_body(r);
    return r->ok ? a : NULL;
}

/* A reader from the scanner's position, which is column `col` of `line`;
 * the grammar counts the brackets it reads (mlir_enter_nesting): near the
 * limit, it reads them and reports, so this reader does not start. */
static FastReader fast_reader(MlirParseCtx *ctx, int line, int col)
{
    const char *p = ctx->text + ctx->offset;
    return (FastReader){ctx, p, ctx->text + ctx->len, p, line, col, ctx->nesting + 4 <= MLIR_MAX_NESTING};
}

MlirAttr *mlir_fast_sdy_attr(MlirParseCtx *ctx, bool per_value, Loc loc, int open_len, int *used)
{
    FastReader r = fast_reader(ctx, loc.line, loc.col + open_len);
    MlirAttr *a = r.ok ? fast_sdy_attr(&r, per_value, loc) : NULL;
    *used = (int)(r.p - r.base);
    return a;
}

/* An integer as the scanner's INT token reads it, at most 18 digits (its
 * value fits), followed by `,` or `]`: as the grammar builds it. */
static MlirAttr *fast_array_int(FastReader *r)
{
    const char *start = r->p;
    Loc loc = fast_loc(r, start);
    r->p += fast_at(r, '-');
    fast_int(r, ',', ']');
    return r->ok ? mlir_build_int(r->ctx, arena_strndup(r->ctx->arena, start, (size_t)(r->p - start)), loc) : NULL;
}

MlirAttr *mlir_fast_int_array(MlirParseCtx *ctx, Loc loc, int *used)
{
    FastReader r = fast_reader(ctx, loc.line, loc.col + 1);
    void *ints[FAST_MAX_ITEMS];
    int n = 0;
    do {
        if (n == FAST_MAX_ITEMS || !r.ok)
            return NULL;
        ints[n++] = fast_array_int(&r);
    } while (r.ok && fast_comma(&r));
    if (!fast_eat(&r, ']'))
        return NULL;
    MlirList items = fast_list(ctx, ints, n);
    *used = (int)(r.p - r.base);
    return mlir_build_array(ctx, &items, loc);
}

/* `sdy.sharding` then spaces and `=` (not a longer name, no line break). */
static bool is_sharding_key(const char *match, int len)
{
    static const char key[] = "sdy.sharding";
    const int n = sizeof key - 1;
    if (len <= n || memcmp(match, key, (size_t)n) != 0)
        return false;
    while (n < len && (match[n] == ' ' || match[n] == '\t'))
        match++, len--;
    return n == len - 1 && match[n] == '=';
}

MlirList *mlir_fast_sdy_dict(MlirParseCtx *ctx, const char *match, int match_len, Loc key_loc, int *used)
{
    if (!is_sharding_key(match, match_len))
        return NULL;
    FastReader r = fast_reader(ctx, key_loc.line, key_loc.col + match_len);
    if (!r.ok)
        return NULL;
    while (fast_at(&r, ' '))
        r.p++;
    const char *value = r.p;
    bool per_value = fast_prefix(&r, per_value_open, sizeof per_value_open - 1);
    if (!per_value && !fast_prefix(&r, sharding_open, sizeof sharding_open - 1))
        return NULL;
    MlirAttr *a = fast_sdy_attr(&r, per_value, fast_loc(&r, value));
    if (!a || !fast_at(&r, '}'))
        return NULL;
    int first = (int)(value - ctx->text);
    mlir_keep_text(ctx, a, first, first + (int)(r.p - value));
    MlirList *dict = ARENA_NEW(ctx->arena, MlirList);
    *dict = fast_list(ctx, (void *[]){mlir_named(ctx, arena_strndup(ctx->arena, match, 12), a, key_loc)}, 1);
    *used = (int)(++r.p - r.base);
    return dict;
}

enum { FAST_TYPE_SLOTS = sizeof ((MlirParseCtx *)0)->fast_types / sizeof (MlirType) };

/* The memo slot of a type's text: a program spells the same few types on
 * every op, and checking one again cost more than the rest of its op's
 * signature. */
static MlirType *fast_type_slot(MlirParseCtx *ctx, const char *text, size_t n)
{
    unsigned h = (unsigned)n * 31u + (unsigned char)text[n - 3] * 7u + (unsigned char)text[n / 2];
    return &ctx->fast_types[h % FAST_TYPE_SLOTS];
}

/* A type read whole before, spelled text[0..) up to its `>`, at loc. */
static MlirType *fast_seen_type(FastReader *r, const char *text)
{
    size_t avail = (size_t)(r->end - text);
    if (avail < 9 || memcmp(text, "tensor<", 7) != 0)
        return NULL;
    const char *gt = memchr(text + 7, '>', avail - 7 < 256 ? avail - 7 : 256);
    if (!gt)
        return NULL;
    size_t n = (size_t)(gt + 1 - text);
    const MlirType *seen = fast_type_slot(r->ctx, text, n);
    if (!seen->text || strncmp(seen->text, text, n) != 0 || seen->text[n] != '\0')
        return NULL;
    MlirType *t = ARENA_ARRAY_UNINIT(r->ctx->arena, MlirType, 1);
    *t = *seen;
    t->loc = fast_loc(r, text);
    r->p = gt + 1;
    return t;
}

/* `tensor<` then dims (at most 18 digits, or `?`) each followed by `x`,
 * fewer than parse_build.c's 64, then a plain element type and `>`: a type
 * the scanner reads as one TYPE token and mlir_build_type accepts, built as
 * the grammar builds it. */
static MlirType *fast_tensor_type(FastReader *r)
{
    static const char open[] = "tensor<";
    const char *start = r->p;
    MlirType *seen = fast_seen_type(r, start);
    if (seen)
        return seen;
    if (!fast_prefix(r, open, sizeof open - 1))
        return r->ok = false, NULL;
    for (int rank = 0; r->ok && (fast_at(r, '?') || (r->p < r->end && is_digit(*r->p))); rank++) {
        if (fast_at(r, '?'))
            r->p++;
        else
            fast_int(r, 'x', 'x');
        if (rank == 63 || !fast_eat(r, 'x'))
            return r->ok = false, NULL;
    }
    if (!r->ok || r->p == r->end || !(is_id_char(*r->p) && !is_digit(*r->p) && *r->p != '$' && *r->p != '.'))
        return r->ok = false, NULL;
    while (r->p < r->end && is_id_char(*r->p))
        r->p++;
    if (!fast_eat(r, '>'))
        return NULL;
    const char *text = mlir_lex_intern(r->ctx, start, (int)(r->p - start));
    MlirType *t = mlir_build_type(r->ctx, text, fast_loc(r, start));
    r->ok = t != NULL;  /* always: the checks above are parse_build.c's */
    if (t)
        *fast_type_slot(r->ctx, text, (size_t)(r->p - start)) = *t;
    return t;
}

/* `(` types `)`, a space after each comma. */
static MlirList fast_type_list(FastReader *r)
{
    void *types[FAST_MAX_ITEMS];
    int n = 0;
    if (fast_eat(r, '(') && !fast_at(r, ')')) {
        do {
            if (n == FAST_MAX_ITEMS)
                return r->ok = false, (MlirList){0};
            types[n++] = fast_tensor_type(r);
        } while (r->ok && fast_comma(r));
    }
    fast_eat(r, ')');
    return r->ok ? fast_list(r->ctx, types, n) : (MlirList){0};
}

/* Whether a tensor type may start here, after the `:` and its spaces. */
static bool fast_type_next(FastReader *r, char open)
{
    while (fast_at(r, ' '))
        r->p++;
    return r->ok && fast_at(r, open);
}

MlirType *mlir_fast_colon_type(MlirParseCtx *ctx, Loc loc, int *used)
{
    FastReader r = fast_reader(ctx, loc.line, loc.col + 1);
    if (!fast_type_next(&r, 't'))
        return NULL;
    MlirType *t = fast_tensor_type(&r);
    const char *end = r.p;
    while (fast_at(&r, ' '))
        r.p++;
    if (!r.ok || !(r.p == r.end || *r.p == '\n' || *r.p == '\r' || *r.p == '{'))
        return NULL;
    *used = (int)(end - r.base);
    return t;
}

MlirTypeSig *mlir_fast_type_sig(MlirParseCtx *ctx, Loc loc, int *used)
{
    FastReader r = fast_reader(ctx, loc.line, loc.col + 1);
    if (!fast_type_next(&r, '('))
        return NULL;
    MlirList inputs = fast_type_list(&r), outputs = {0};
    while (fast_at(&r, ' '))
        r.p++;
    if (!fast_eat(&r, '-') || !fast_eat(&r, '>'))
        return NULL;
    while (fast_at(&r, ' '))
        r.p++;
    if (fast_at(&r, '(')) {
        outputs = fast_type_list(&r);
    } else {
        void *type = fast_tensor_type(&r);
        if (r.ok)
            outputs = fast_list(ctx, &type, 1);
    }
    if (!r.ok)
        return NULL;
    MlirTypeSig *sig = ARENA_ARRAY_UNINIT(ctx->arena, MlirTypeSig, 1);
    *sig = (MlirTypeSig){true, inputs, outputs, true};
    *used = (int)(r.p - r.base);
    return sig;
}
