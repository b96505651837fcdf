/* The common op line of a function body, read whole by the scanner where
 * it stands after a previous op's `: (types) -> types` or after another
 * op line read whole (both end an op: see mlir_fast_op_line):
 *
 *   line     := '%' NAME ' = ' OPNAME ' ' item (', ' item)* (' {' DICT)? ' : ' SIG
 *   item     := '%' NAME | KEY ' = ' ARRAY (' x ' ARRAY)?
 *   DICT     := `sdy.sharding = <sharding>}` (mlir_fast_sdy_dict)
 *   ARRAY    := `[0, 1]` (mlir_fast_int_array)
 *   SIG      := `(types) -> types` (mlir_fast_type_sig) or one tensor type
 *               (mlir_fast_colon_type), then the end of the line
 *
 * with OPNAME a dotted identifier. It is what a propagated program's
 * elementwise ops, broadcasts, transposes and dot_generals look like
 * (`%r = stablehlo.add %a, %b {sdy.sharding = ...} : tensor<8xf32>`).
 * The syntax built is the grammar's for the same text, item by item and
 * at the same columns; the grammar action of the OP_READ token makes the
 * op from it as custom_op and op_stmt do. Anything else (a loc(...), a
 * generic op, `%r:2`, another attribute, other spacing, a malformed piece)
 * is left to the grammar from the line's start: this reader reports
 * nothing. */
#include <string.h>
#include "mlir/mlir_parse_ctx.h"

enum { OP_FAST_MAX_ITEMS = 16 };

typedef struct OpLine {
    MlirParseCtx *ctx;
    const char *start, *p, *end; /* start: the `%` of the result */
    Loc loc;                     /* of start */
    MlirSyntaxItem *items[OP_FAST_MAX_ITEMS];
    int n_items;
} OpLine;

static Loc op_loc(const OpLine *o, const char *at)
{
    return (Loc){o->loc.file, o->loc.line, o->loc.col + (int)(at - o->start)};
}

static bool op_prefix(OpLine *o, const char *s)
{
    size_t n = strlen(s);
    if ((size_t)(o->end - o->p) < n || memcmp(o->p, s, n) != 0)
        return false;
    o->p += n;
    return true;
}

/* Bit 1: a byte of a value name after its `%` ({SUFFIX} in mlir_lexer.l);
 * bit 2: a byte of an identifier after its first ({ID}). A table: testing
 * the ranges byte by byte cost more than the rest of reading a name. */
static const unsigned char name_chars[256] = {
    ['-'] = 1, ['.'] = 3, ['$'] = 3, ['_'] = 3,
    ['0'] = 3, ['1'] = 3, ['2'] = 3, ['3'] = 3, ['4'] = 3, ['5'] = 3, ['6'] = 3, ['7'] = 3, ['8'] = 3, ['9'] = 3,
    ['a'] = 3, ['b'] = 3, ['c'] = 3, ['d'] = 3, ['e'] = 3, ['f'] = 3, ['g'] = 3, ['h'] = 3, ['i'] = 3,
    ['j'] = 3, ['k'] = 3, ['l'] = 3, ['m'] = 3, ['n'] = 3, ['o'] = 3, ['p'] = 3, ['q'] = 3, ['r'] = 3,
    ['s'] = 3, ['t'] = 3, ['u'] = 3, ['v'] = 3, ['w'] = 3, ['x'] = 3, ['y'] = 3, ['z'] = 3,
    ['A'] = 3, ['B'] = 3, ['C'] = 3, ['D'] = 3, ['E'] = 3, ['F'] = 3, ['G'] = 3, ['H'] = 3, ['I'] = 3,
    ['J'] = 3, ['K'] = 3, ['L'] = 3, ['M'] = 3, ['N'] = 3, ['O'] = 3, ['P'] = 3, ['Q'] = 3, ['R'] = 3,
    ['S'] = 3, ['T'] = 3, ['U'] = 3, ['V'] = 3, ['W'] = 3, ['X'] = 3, ['Y'] = 3, ['Z'] = 3,
};

static bool is_suffix_char(char c)
{
    return name_chars[(unsigned char)c] & 1;
}

static bool is_id_char(char c)
{
    return name_chars[(unsigned char)c] & 2;
}

static bool is_id_start(char c)
{
    return is_id_char(c) && !(c >= '0' && c <= '9') && c != '$' && c != '.';
}

/* The end of an identifier ([A-Za-z_][A-Za-z0-9_$.]*) at p, p if none. */
static const char *id_end(const char *p, const char *end)
{
    if (p == end || !is_id_start(*p))
        return p;
    while (p < end && is_id_char(*p))
        p++;
    return p;
}

static MlirSyntaxItem *op_item(OpLine *o, MlirSyntaxKind kind, Loc loc)
{
    if (o->n_items == OP_FAST_MAX_ITEMS)
        return NULL;
    MlirSyntaxItem *it = ARENA_NEW(o->ctx->arena, MlirSyntaxItem);
    it->kind = kind;
    it->loc = loc;
    return o->items[o->n_items++] = it;
}

/* `%name` (no `#N`, no `:N`) as the VALUE_ID token reads it: its text
 * after the `%`, NULL if none. */
static const char *op_value_name(OpLine *o)
{
    const char *name = o->p + 1;
    if (o->p == o->end || *o->p != '%')
        return NULL;
    const char *q = name;
    while (q < o->end && is_suffix_char(*q))
        q++;
    if (q == name || (q < o->end && (*q == '#' || *q == ':')))
        return NULL;
    o->p = q;
    return mlir_lex_intern(o->ctx, name, (int)(q - name));
}

/* One of the readers of parse_sdy_fast.c, run as the scanner runs it:
 * with the scanner's offset just past the token that starts it. */
typedef struct FastRun {
    int saved_offset;
} FastRun;

static void op_run_at(OpLine *o, const char *after, FastRun *run)
{
    run->saved_offset = o->ctx->offset;
    o->ctx->offset = (int)(after - o->ctx->text);
}

static void op_run_done(OpLine *o, const char *after, int used, FastRun *run)
{
    o->ctx->offset = run->saved_offset;
    o->p = after + used;
}

/* `[ints]` at p, as ARRAY_READ (after an `=`) or `array` reads it. */
static MlirAttr *op_int_array(OpLine *o)
{
    if (o->p == o->end || *o->p != '[')
        return NULL;
    const char *open = o->p;
    FastRun run;
    int used = 0;
    op_run_at(o, open + 1, &run);
    MlirAttr *a = mlir_fast_int_array(o->ctx, op_loc(o, open), &used);
    op_run_done(o, open + 1, a ? used : 0, &run);
    int first = (int)(open - o->ctx->text);
    return a ? mlir_keep_text(o->ctx, a, first, first + 1 + used) : NULL;
}

/* `key = [ints]`, then ` x [ints]` if it follows (dot_general's dims). */
static bool op_named_array(OpLine *o)
{
    const char *key = o->p, *key_end = id_end(o->p, o->end);
    o->p = key_end;
    if (key_end == key || !op_prefix(o, " = "))
        return false;
    MlirSyntaxItem *named = op_item(o, MI_NAMED, op_loc(o, key));
    if (!named || !(named->attr = op_int_array(o)))
        return false;
    named->name = mlir_lex_intern(o->ctx, key, (int)(key_end - key));
    if (!op_prefix(o, " x ["))
        return true;
    o->p--;
    MlirSyntaxItem *x = op_item(o, MI_KEYWORD, op_loc(o, o->p - 2));
    MlirSyntaxItem *second = op_item(o, MI_ATTR, op_loc(o, o->p));
    if (!x || !second)
        return false;
    x->name = mlir_lex_intern(o->ctx, "x", 1);
    return (second->attr = op_int_array(o)) != NULL;
}

/* The operands and named arrays before the ` {`. */
static bool op_items(OpLine *o)
{
    do {
        Loc at = op_loc(o, o->p);
        if (o->p < o->end && *o->p == '%') {
            const char *name = op_value_name(o);
            MlirSyntaxItem *use = name ? op_item(o, MI_USE, at) : NULL;
            if (!use)
                return false;
            use->use = mlir_build_use(o->ctx, name, at);
        } else if (!op_named_array(o)) {
            return false;
        }
    } while (op_prefix(o, ", "));
    return true;
}

/* ` {sdy.sharding = <sharding>}`, as '{' DICT_BODY, if a `{` comes. */
static bool op_sharding_dict(OpLine *o)
{
    static const char key[] = "sdy.sharding =";
    const char *open = o->p + 1;
    if (!op_prefix(o, " {"))
        return true;
    if (o->ctx->in_rule || !op_prefix(o, key))
        return false;
    MlirSyntaxItem *dict = op_item(o, MI_DICT, op_loc(o, open));
    if (!dict)
        return false;
    FastRun run;
    int used = 0;
    op_run_at(o, o->p, &run);
    MlirList *entries = mlir_fast_sdy_dict(o->ctx, key, sizeof key - 1, op_loc(o, open + 1), &used);
    op_run_done(o, o->p, entries ? used : 0, &run);
    if (entries)
        dict->list = *entries;
    return entries != NULL;
}

/* ` : ` and the signature, as op_sig reads SIG_READ or TYPE_READ, then
 * nothing but spaces up to the end of the line. */
static bool op_signature(OpLine *o, MlirTypeSig *sig)
{
    if (!op_prefix(o, " :"))
        return false;
    const char *after = o->p;
    Loc colon = op_loc(o, after - 1);
    FastRun run;
    int used = 0;
    op_run_at(o, after, &run);
    MlirTypeSig *read = mlir_fast_type_sig(o->ctx, colon, &used);
    MlirType *type = read ? NULL : mlir_fast_colon_type(o->ctx, colon, &used);
    op_run_done(o, after, read || type ? used : 0, &run);
    if (read) {
        *sig = *read;
    } else if (type) {
        MlirList types = {0};
        arena_list_push(o->ctx->arena, &types, type);
        *sig = (MlirTypeSig){false, types, {0}, true};
    }
    const char *q = o->p;
    while (q < o->end && *q == ' ')
        q++;
    return (read || type) && (q == o->end || *q == '\n' || *q == '\r');
}

/* Whether what follows the line starts another op or closes the body:
 * nothing that could continue this op (`loc(`, `attributes`, a `,`),
 * nor a token the scanner would report (the grammar, reading this op
 * token by token, reports it before the op's own errors). */
static bool op_next_line_ok(const OpLine *o)
{
    const char *q = o->p;
    while (q < o->end && (*q == ' ' || *q == '\t' || *q == '\r' || *q == '\n'))
        q++;
    if (q == o->end || *q == '}')
        return true;
    if (*q == '%')
        return q + 1 < o->end && is_suffix_char(q[1]);
    if (*q == '"') {
        for (q++; q < o->end && *q != '"'; q++)
            if (*q == '\\' || *q == '\n' || (unsigned char)*q >= 0x80)
                return false;
        return q < o->end;
    }
    const char *e = id_end(q, o->end);
    return e > q && memchr(q, '.', (size_t)(e - q)) != NULL && (e == o->end || *e == ' ' || *e == '(') &&
           !(e - q == 9 && memcmp(q, "func.func", 9) == 0) && !(e - q == 8 && memcmp(q, "sdy.mesh", 8) == 0);
}

/* `%name = OPNAME `, the op name a BARE_ID (dotted, not a keyword). */
static bool op_head(OpLine *o, MlirResultDef *result, MlirCustomSyntax *syntax)
{
    result->name = op_value_name(o);
    result->count = 1;
    result->loc = o->loc;
    if (!result->name || !op_prefix(o, " = "))
        return false;
    const char *name = o->p, *name_end = id_end(o->p, o->end);
    size_t n = (size_t)(name_end - name);
    if (!memchr(name, '.', n) || (n == 9 && memcmp(name, "func.func", 9) == 0) ||
        (n == 8 && memcmp(name, "sdy.mesh", 8) == 0))
        return false;
    syntax->name = mlir_lex_intern(o->ctx, name, (int)n);
    syntax->name_loc = op_loc(o, name);
    o->p = name_end;
    return op_prefix(o, " ");
}

MlirFastOp *mlir_fast_op_line(MlirParseCtx *ctx, Loc loc, int first_offset, int *used)
{
    OpLine o = {ctx, ctx->text + first_offset, ctx->text + first_offset, ctx->text + ctx->len, loc, {0}, 0};
    MlirFastOp *op = ARENA_NEW(ctx->arena, MlirFastOp);
    op->syntax = ARENA_NEW(ctx->arena, MlirCustomSyntax);
    if (!op_head(&o, &op->result, op->syntax) || !op_items(&o) || !op_sharding_dict(&o) ||
        !op_signature(&o, &op->syntax->sig) || !op_next_line_ok(&o))
        return NULL;
    MlirList items = {0};
    for (int i = 0; i < o.n_items; i++)
        arena_list_push(ctx->arena, &items, o.items[i]);
    op->syntax->items = items;
    *used = (int)(o.p - o.start);
    return op;
}
