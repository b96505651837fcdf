/* The common op line of a function body, read whole by the scanner where
 * it stands after a previous op's `: (types) -> types` or after another
 * op line read whole (both end an op: see mlir_fast_op_line):
 *
 *   line     := '%' NAME ' = ' (custom | generic) then the end of the line
 *   custom   := OPNAME ((' ' | ', ') item)* ' : ' SIG  (the first item may
 *               follow OPNAME directly when it is a group)
 *   item     := '%' NAME | KEY ' = ' ARRAY (' x ' ARRAY)? | WORD
 *             | '(' (('%' NAME | WORD | ':') with ' ' or ', ' between) ')'
 *             | '{' DICT | 'dense<' text without '<', '"' or a break '>'
 *   generic  := '"' OPNAME '"(' ('%' NAME (', ' '%' NAME)*)? ')' (' {' DICT)?
 *               ' : ' SIG, SIG a function type
 *   DICT     := (KEY ' = ' VALUE | UNIT_KEY) (', ' ...)* '}'
 *   VALUE    := ARRAY | `array<i64: 1, 2>` | `#sdy.sharding<...>` or
 *               `#sdy.sharding_per_value<...>` (mlir_fast_sdy_attr)
 *   ARRAY    := `[0, 1]` (mlir_fast_int_array)
 *   SIG      := `(types) -> types` (mlir_fast_type_sig) or one tensor type
 *               (mlir_fast_colon_type)
 *
 * with OPNAME a dotted identifier and WORD an identifier the scanner reads
 * as one (a keyword: `applies`, `across`, `init`). It is what a propagated
 * program's ops look like: elementwise ops, broadcasts, transposes and
 * dot_generals (`%r = stablehlo.add %a, %b {sdy.sharding = ...} :
 * tensor<8xf32>`), reduces `stablehlo.reduce(%x init: %c) applies
 * stablehlo.add across dimensions = [1] {...}`, constants
 * `stablehlo.constant {shardc.implicit_constant} dense<0.0> : tensor<f32>`
 * and shardc's own ops in the generic form (`"shardc.reduce_mean"(%x)
 * {dims = array<i64: 2>, sdy.sharding = ...} : (...) -> ...`).
 * The syntax built is the grammar's for the same text, item by item and
 * at the same columns; the grammar action of the OP_READ token makes the
 * op from it as custom_op (or generic_op) and op_stmt do. Anything else
 * (a loc(...), `%r:2`, properties or regions, another attribute value,
 * other spacing, a malformed piece) is left to the grammar from the
 * line's start: this reader reports nothing. */
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
static bool op_named_array(OpLine *o, const char *key, const char *key_end)
{
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

/* `<prefix>...>` with nothing inside that scan_balanced would read
 * otherwise (a nested `<`, a string, a line break): its text, as the
 * DENSE or DENSE_ARRAY token holds it; NULL if none. */
static const char *op_bracketed(OpLine *o, const char *prefix)
{
    const char *start = o->p;
    if (!op_prefix(o, prefix))
        return NULL;
    while (o->p < o->end && *o->p != '>' && *o->p != '<' && *o->p != '"' && *o->p >= 0x20 && *o->p < 0x7f)
        o->p++;
    if (o->p == o->end || *o->p != '>')
        return NULL;
    o->p++;
    return mlir_lex_intern(o->ctx, start, (int)(o->p - start));
}

/* `array<i64: 1, 2>` of small decimals (mlir_build_dense_array reports
 * nothing for them), as DENSE_ARRAY builds it. */
static MlirAttr *op_dense_array(OpLine *o)
{
    const char *start = o->p;
    if (!op_prefix(o, "array<i64"))
        return NULL;
    if (op_prefix(o, ": ")) {
        do {
            o->p += o->p < o->end && *o->p == '-';
            const char *digits = o->p;
            while (o->p < o->end && *o->p >= '0' && *o->p <= '9' && o->p - digits < 18)
                o->p++;
            if (o->p == digits)
                return NULL;
        } while (op_prefix(o, ", "));
    }
    if (!op_prefix(o, ">"))
        return NULL;
    const char *text = mlir_lex_intern(o->ctx, start, (int)(o->p - start));
    return mlir_build_dense_array(o->ctx, text, op_loc(o, start));
}

/* `#sdy.sharding<...>` or `#sdy.sharding_per_value<...>` read whole as
 * SDY_WHOLE reads it, its text kept as a dict entry's value is. */
static MlirAttr *op_sdy_attr(OpLine *o)
{
    static const char per_value[] = "#sdy.sharding_per_value<", single[] = "#sdy.sharding<";
    const char *open = o->p;
    bool is_per_value = op_prefix(o, per_value);
    if (!is_per_value && !op_prefix(o, single))
        return NULL;
    FastRun run;
    int used = 0;
    const char *after = o->p;
    op_run_at(o, after, &run);
    MlirAttr *a = mlir_fast_sdy_attr(o->ctx, is_per_value, op_loc(o, open), (int)(after - open), &used);
    op_run_done(o, after, a ? used : 0, &run);
    int first = (int)(open - o->ctx->text);
    return a ? mlir_keep_text(o->ctx, a, first, (int)(o->p - o->ctx->text)) : NULL;
}

/* A dict entry's value after its ` = `: an integer array, a dense array
 * of integers or a sharding. */
static MlirAttr *op_entry_value(OpLine *o)
{
    if (o->p == o->end)
        return NULL;
    if (*o->p == '[')
        return op_int_array(o);
    if (*o->p == '#')
        return op_sdy_attr(o);
    return op_dense_array(o);
}

/* After a `{`, `key = value` and unit entries up to the `}`, `, ` between,
 * as dict_entries builds them (DICT_BODY's for a lone sharding). */
static bool op_dict_entries(OpLine *o, MlirList *entries)
{
    do {
        const char *key = o->p, *key_end = id_end(o->p, o->end);
        MlirAttr *value = NULL;
        o->p = key_end;
        if (key_end == key)
            return false;
        const char *name = mlir_lex_intern(o->ctx, key, (int)(key_end - key));
        if (op_prefix(o, " = "))
            value = op_entry_value(o);
        else if (o->p < o->end && (*o->p == ',' || *o->p == '}') && mlir_lex_is_unit_key(name))
            value = mlir_attr_new(o->ctx, MA_UNIT, op_loc(o, key));
        if (!value)
            return false;
        arena_list_push(o->ctx->arena, entries, mlir_named(o->ctx, name, value, op_loc(o, key)));
    } while (op_prefix(o, ", "));
    return op_prefix(o, "}");
}

/* The words the scanner reads as tokens of their own, not identifiers. */
static bool is_scanner_keyword(const char *word, size_t n)
{
    switch (n) {
    case 2: return memcmp(word, "do", 2) == 0;
    case 4: return memcmp(word, "cond", 4) == 0;
    case 6: return memcmp(word, "module", 6) == 0;
    case 7: return memcmp(word, "reducer", 7) == 0;
    case 8: return memcmp(word, "sdy.mesh", 8) == 0;
    case 9: return memcmp(word, "func.func", 9) == 0;
    case 10: return memcmp(word, "attributes", 10) == 0;
    default: return false;
    }
}

/* An identifier as an item: `key = [ints]` (ATTR_KEY), else a keyword
 * (BARE_ID or UNIT_KEY), not one the scanner would read as a longer
 * token (`dense<`, `loc(`) or a word of its own. */
static bool op_word(OpLine *o)
{
    const char *word = o->p, *end = id_end(o->p, o->end);
    if (end == word || (end < o->end && (*end == '<' || *end == '(')) || is_scanner_keyword(word, (size_t)(end - word)))
        return false;
    o->p = end;
    if (op_prefix(o, " = "))
        return op_named_array(o, word, end);
    const char *q = end;
    while (q < o->end && (*q == ' ' || *q == '\t' || *q == '\r' || *q == '\n'))
        q++;
    if (q < o->end && *q == '=')
        return false;
    MlirSyntaxItem *kw = op_item(o, MI_KEYWORD, op_loc(o, word));
    return kw && (kw->name = mlir_lex_intern(o->ctx, word, (int)(end - word)));
}

/* `%name` as a MI_USE item at the end of list (or of the op's items). */
static MlirSyntaxItem *op_use(OpLine *o)
{
    Loc at = op_loc(o, o->p);
    const char *name = op_value_name(o);
    MlirSyntaxItem *use = name ? op_item(o, MI_USE, at) : NULL;
    if (use)
        use->use = mlir_build_use(o->ctx, name, at);
    return use;
}

/* `(` values, keywords and `:` `)`, as paren_items reads reduce's
 * `(%x init: %c)`: a `:` only before a value, where the scanner finds no
 * type to read whole. The items go to the group, not the op. */
static bool op_parens(OpLine *o)
{
    MlirSyntaxItem *parens = op_item(o, MI_PARENS, op_loc(o, o->p));
    int outer = o->n_items;
    o->p++;
    while (parens && !op_prefix(o, ")")) {
        if (o->n_items > outer && !op_prefix(o, ", "))
            op_prefix(o, " ");
        bool ok;
        if (o->p < o->end && *o->p == '%')
            ok = op_use(o) != NULL;
        else if (o->end - o->p > 2 && memcmp(o->p, ": %", 3) == 0)
            ok = op_item(o, MI_COLON, op_loc(o, o->p++)) != NULL;
        else
            ok = op_word(o);
        if (!ok)
            return false;
    }
    for (int i = outer; parens && i < o->n_items; i++)
        arena_list_push(o->ctx->arena, &parens->list, o->items[i]);
    o->n_items = outer;
    return parens != NULL;
}

/* `dense<...>` as an attribute item, as DENSE builds it. */
static bool op_dense_item(OpLine *o)
{
    const char *start = o->p;
    const char *text = op_bracketed(o, "dense<");
    MlirSyntaxItem *it = text ? op_item(o, MI_ATTR, op_loc(o, start)) : NULL;
    if (it)
        it->attr = mlir_build_raw(o->ctx, MA_DENSE, text, op_loc(o, start));
    return it != NULL;
}

/* One item of a custom form. */
static bool op_one_item(OpLine *o)
{
    if (o->p == o->end)
        return false;
    switch (*o->p) {
    case '%':
        return op_use(o) != NULL;
    case '(':
        return op_parens(o);
    case '{': {
        MlirSyntaxItem *dict = op_item(o, MI_DICT, op_loc(o, o->p));
        o->p++;
        return dict && op_dict_entries(o, &dict->list);
    }
    case 'd':
        if (o->end - o->p > 6 && memcmp(o->p, "dense<", 6) == 0)
            return op_dense_item(o);
        return op_word(o);
    default:
        return op_word(o);
    }
}

/* The items up to the ` : `, each after `, ` or a space (the first may
 * follow the op name directly: `stablehlo.reduce(`). */
static bool op_items(OpLine *o)
{
    while (!(o->end - o->p >= 2 && o->p[0] == ' ' && o->p[1] == ':')) {
        if (!op_prefix(o, ", ") && !op_prefix(o, " ") && !(o->n_items == 0 && o->p < o->end && *o->p == '('))
            return false;
        if (!op_one_item(o))
            return false;
    }
    return true;
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

/* `OPNAME` then a space or the `(` of a first group: a BARE_ID, dotted,
 * not a word of the scanner's own. */
static bool op_custom_name(OpLine *o, MlirCustomSyntax *syntax)
{
    const char *name = o->p, *name_end = id_end(o->p, o->end);
    size_t n = (size_t)(name_end - name);
    if (!memchr(name, '.', n) || is_scanner_keyword(name, n) || name_end == o->end ||
        (*name_end != ' ' && *name_end != '('))
        return false;
    syntax->name = mlir_lex_intern(o->ctx, name, (int)n);
    syntax->name_loc = op_loc(o, name);
    o->p = name_end;
    return true;
}

/* A custom form: its name, items and signature, as custom_op reads them. */
static MlirCustomSyntax *op_custom(OpLine *o)
{
    MlirCustomSyntax *syntax = ARENA_NEW(o->ctx->arena, MlirCustomSyntax);
    if (!op_custom_name(o, syntax) || !op_items(o) || !op_signature(o, &syntax->sig))
        return NULL;
    for (int i = 0; i < o->n_items; i++)
        arena_list_push(o->ctx->arena, &syntax->items, o->items[i]);
    return syntax;
}

/* The generic form `"dialect.op"(%a, %b) {dict} : (types) -> types`, no
 * properties or regions, the name without escapes: the op generic_op
 * builds. */
static MlirOp *op_generic(OpLine *o)
{
    const char *quote = o->p, *name = ++o->p;
    while (o->p < o->end && *o->p != '"' && *o->p != '\\' && *o->p >= 0x20 && *o->p < 0x7f)
        o->p++;
    if (!op_prefix(o, "\"("))
        return NULL;
    const char *op_name = mlir_lex_intern(o->ctx, name, (int)(o->p - 2 - name));
    MlirList uses = {0}, attrs = {0}, none = {0};
    if (!op_prefix(o, ")")) {
        do {
            MlirSyntaxItem *use = op_use(o);
            if (!use)
                return NULL;
            arena_list_push(o->ctx->arena, &uses, use->use);
        } while (op_prefix(o, ", "));
        if (!op_prefix(o, ")"))
            return NULL;
    }
    MlirTypeSig sig;
    if ((op_prefix(o, " {") && !op_dict_entries(o, &attrs)) || !op_signature(o, &sig) || !sig.is_function)
        return NULL;
    return mlir_build_generic(o->ctx, op_name, op_loc(o, quote), &uses, &none, &none, &attrs, &sig);
}

/* `%name = `: the result, as result_def reads it. */
static bool op_result(OpLine *o, MlirResultDef *result)
{
    result->name = op_value_name(o);
    result->count = 1;
    result->loc = o->loc;
    return result->name && op_prefix(o, " = ");
}

/* Outside an op sharding rule, where `[` and `{key =` read otherwise, and
 * away from the nesting limit, which the grammar reports. */
MlirFastOp *mlir_fast_op_line(MlirParseCtx *ctx, Loc loc, int first_offset, int *used)
{
    OpLine o = {ctx, ctx->text + first_offset, ctx->text + first_offset, ctx->text + ctx->len, loc, {0}, 0};
    MlirFastOp *op = ARENA_NEW(ctx->arena, MlirFastOp);
    if (ctx->in_rule || ctx->nesting + 4 > MLIR_MAX_NESTING || !op_result(&o, &op->result) || o.p == o.end)
        return NULL;
    if (*o.p == '"' ? !(op->generic = op_generic(&o)) : !(op->syntax = op_custom(&o)))
        return NULL;
    if (!op_next_line_ok(&o))
        return NULL;
    *used = (int)(o.p - o.start);
    return op;
}
