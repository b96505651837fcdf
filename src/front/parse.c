/* parse_module: run the scanner and parser over a text and collect the
 * module; and the scanner's helpers (numbers, strings, locations). */

/* parse_module: run the scanner and parser over a text and collect the
 * module. */
#include <stdint.h>
#include <string.h>
#include "shardc/parse.h"
#include "front/parse_ctx.h"
#include "parser.h"
#include "lexer.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>

int yyparse(ParseCtx *ctx);

static void finish_module(ParseCtx *ctx)
{
    Module *m = ctx->module;
    m->num_meshes = ctx->meshes.count;
    m->meshes = (Mesh **)ctx->meshes.items;
    m->num_funcs = ctx->funcs.count;
    m->funcs = (Func **)ctx->funcs.items;
}

/* What only the parse needed; the module keeps the rest. */
static void free_parse_state(ParseCtx *ctx)
{
    build_free_scopes(ctx);
    symtab_free(&ctx->func_names);
    symtab_free(&ctx->mesh_names);
    arena_free(&ctx->syntax);
    arena_free(&ctx->syntax_before);
    interner_free(&ctx->shapes);
    symtab_free(&ctx->words);
    arena_free(&ctx->word_arena);
}

/* flex scans a copy ending in two NULs, in place: token columns are
 * offsets from the start of their line in it (lexer.l). */
static void scan_and_parse(ParseCtx *ctx, yyscan_t scanner, const char *text, size_t len)
{
    char *copy = malloc(len + 2);
    if (!copy)
        arena_out_of_memory();
    memcpy(copy, text, len);
    copy[len] = copy[len + 1] = '\0';
    YY_BUFFER_STATE buffer = shir__scan_buffer(copy, len + 2, scanner);
    ctx->scanner = scanner;
    ctx->line = 1;
    ctx->line_start = copy;
    yyparse(ctx);
    shir__delete_buffer(buffer, scanner);
    free(copy);
}

Module *parse_module(const char *file, const char *text, size_t len, DiagEngine *diag)
{
    if (len > INT32_MAX - 2) {
        /* flex takes an int length (plus two end-of-buffer bytes) */
        diag_error(diag, (Loc){file, 0, 0}, "the file is too large (%zu bytes; at most %d)", len,
                   INT32_MAX - 2);
        return NULL;
    }
    Module *m = module_new(file);
    ParseCtx ctx = {.module = m, .diag = diag, .arena = &m->arena, .file = m->file};
    arena_init(&ctx.syntax);
    arena_init(&ctx.syntax_before);
    interner_init(&ctx.shapes, &m->arena);
    symtab_init(&ctx.words, NULL);
    arena_init(&ctx.word_arena);
    symtab_init(&ctx.func_names, NULL);
    symtab_init(&ctx.mesh_names, NULL);
    int errors_before = diag->errors;
    yyscan_t scanner;
    if (shir_lex_init_extra(&ctx, &scanner) != 0) {
        diag_error(diag, (Loc){file, 0, 0}, "cannot initialise the scanner");
        free_parse_state(&ctx);
        module_free(m);
        return NULL;
    }
    scan_and_parse(&ctx, scanner, text, len);
    shir_lex_destroy(scanner);
    free_parse_state(&ctx);
    finish_module(&ctx);
    if (diag->errors > errors_before) {
        module_free(m);
        return NULL;
    }
    return m;
}

/* Token-level helpers of the scanner: interning, literals, lexical errors. */

const char *parse_intern(ParseCtx *ctx, const char *text, int len)
{
    return arena_strndup(ctx->arena, text, (size_t)len);
}

const char *parse_value_name(ParseCtx *ctx, const char *text, int len)
{
    return arena_strndup(&ctx->syntax, text, (size_t)len);
}

const Word *parse_word(ParseCtx *ctx, const char *text, int len)
{
    Word *w = symtab_get_len(&ctx->words, text, (size_t)len);
    if (w)
        return w;
    w = ARENA_NEW(&ctx->word_arena, Word);
    w->text = arena_strndup(&ctx->word_arena, text, (size_t)len);
    OpKind kind;
    w->op = op_lookup(w->text, &kind) ? (int)kind : -1;
    w->key = attr_key_lookup(w->text);
    w->is_dtype = dtype_parse(w->text, (size_t)len, &w->dtype);
    symtab_put(&ctx->words, w->text, w);
    return w;
}

/* Decode escapes of a quoted string token (quotes included in text). */
const char *parse_string_token(ParseCtx *ctx, const char *text, int len, Loc loc)
{
    char *out = arena_alloc(ctx->arena, (size_t)len);
    int n = 0;
    for (int i = 1; i < len - 1; i++) {
        char c = text[i];
        if (c == '\\') {
            char e = text[++i];
            switch (e) {
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case '"': case '\\': c = e; break;
            default:
                diag_error(ctx->diag, loc_offset(loc, i - 1), "unknown escape '\\%c' in string", e);
                c = e;
            }
        }
        out[n++] = c;
    }
    out[n] = '\0';
    return out;
}

/* The value of len bytes "-"?[0-9]+; false if it does not fit in int64
 * (the scanner converts the digits itself: strtoll was a twentieth of
 * reading a file). */
static bool int_of_digits(const char *text, int len, int64_t *out)
{
    bool negative = text[0] == '-';
    uint64_t limit = negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    uint64_t most_before_last = limit / 10;
    unsigned largest_last = (unsigned)(limit % 10);
    uint64_t v = 0;
    for (int i = negative; i < len; i++) {
        unsigned digit = (unsigned)(text[i] - '0');
        if (v > most_before_last || (v == most_before_last && digit > largest_last))
            return false;
        v = v * 10 + digit;
    }
    *out = !negative ? (int64_t)v : v == limit ? INT64_MIN : -(int64_t)v;
    return true;
}

int64_t parse_int_token(ParseCtx *ctx, const char *text, int len, Loc loc)
{
    int64_t v;
    if (int_of_digits(text, len, &v))
        return v;
    diag_error(ctx->diag, loc, "integer '%.*s' does not fit in 64 bits", len, text);
    return 0;
}

/* `f32[8, 16]`: the dims are "-"?[0-9]+ apart by "," or ", " (lexer.l);
 * each is checked at its own column, as its token was. */
TensorType *parse_type_token(ParseCtx *ctx, const char *text, int len, Loc loc)
{
    int open = (int)(strchr(text, '[') - text);
    int64_t dims[SHARDC_MAX_RANK];
    int rank = 0;
    for (int at = open + 1; at < len - 1;) {
        int end = at + 1;
        while (text[end] >= '0' && text[end] <= '9')
            end++;
        int64_t v = parse_int_token(ctx, text + at, end - at, loc_offset(loc, at));
        if (rank < SHARDC_MAX_RANK)
            dims[rank] = v;
        rank++;
        at = end + (text[end] == ',') + (text[end + 1] == ' ');
    }
    return build_type_dims(ctx, parse_word(ctx, text, open), loc, dims, rank);
}

double parse_float_token(ParseCtx *ctx, const char *text, Loc loc)
{
    if (strcmp(text, "nan") == 0)
        return NAN;
    if (strcmp(text, "inf") == 0)
        return INFINITY;
    if (strcmp(text, "-inf") == 0)
        return -INFINITY;
    errno = 0;
    double v = strtod(text, NULL);
    if (errno == ERANGE && isinf(v))
        diag_error(ctx->diag, loc, "float '%s' is out of range", text);
    return v;
}

void parse_lex_error(ParseCtx *ctx, Loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vreport(ctx->diag, DIAG_ERROR, loc, fmt, ap);
    va_end(ap);
    ctx->lex_error_pending = true;
}

int64_t parse_priority(ParseCtx *ctx, const char *text, Loc loc)
{
    const char *p = text + 1;
    if (text[0] != 'p' || !*p || strspn(p, "0123456789") != strlen(p) || strlen(p) > 6) {
        diag_error(ctx->diag, loc, "expected a priority p0, p1, ..., got '%s'", text);
        return PRIORITY_NONE;
    }
    return strtol(p, NULL, 10);
}

void parse_release_syntax(ParseCtx *ctx)
{
    if (ctx->nesting)
        return;
    Arena released = ctx->syntax_before;
    ctx->syntax_before = ctx->syntax;
    arena_reset(&released);
    ctx->syntax = released;
}

bool parse_enter_nesting(ParseCtx *ctx, Loc loc)
{
    if (++ctx->nesting <= PARSE_MAX_NESTING)
        return true;
    diag_error(ctx->diag, loc, "nesting is too deep: more than %d levels of brackets and regions",
               PARSE_MAX_NESTING);
    return false;
}
