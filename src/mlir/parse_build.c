/* The MLIR grammar's builders for types, attribute values, values, blocks,
 * regions, functions and generic ops (grammar/mlir_parser.y). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "mlir/mlir_parse_ctx.h"

#define NEW(ctx, type) ((type *)arena_alloc((ctx)->arena, sizeof(type)))

MlirAttr *mlir_dict_get(const MlirList *dict, const char *name)
{
    for (int i = 0; i < dict->count; i++) {
        MlirNamedAttr *a = dict->items[i];
        if (strcmp(a->name, name) == 0)
            return a->value;
    }
    return NULL;
}

/* Text scanned whole with its line breaks and indentation collapsed to
 * single spaces (outside strings), as it is printed back on one line. */
static const char *normalize_ws_n(Arena *arena, const char *text, size_t n)
{
    char *out = arena_alloc_uninit(arena, n + 1);
    size_t k = 0;
    bool in_string = false, escaped = false;
    for (size_t i = 0; i < n; i++) {
        char c = text[i];
        if (!in_string && isspace((unsigned char)c)) {
            if (k > 0 && out[k - 1] != ' ' && out[k - 1] != '<' && out[k - 1] != '(')
                out[k++] = ' ';
            continue;
        }
        if (!in_string && (c == '>' || c == ')') && k > 0 && out[k - 1] == ' ')
            k--;
        if (in_string) {
            in_string = escaped || c != '"';
            escaped = !escaped && c == '\\';
        } else if (c == '"') {
            in_string = true;
        }
        out[k++] = c;
    }
    out[k] = '\0';
    return out;
}

static const char *normalize_ws(MlirParseCtx *ctx, const char *text)
{
    return normalize_ws_n(ctx->arena, text, strlen(text));
}

/* ---- types ---- */

/* `8x?x16xf32` into dims and the element type. */
static bool parse_shape(MlirParseCtx *ctx, MlirType *t, const char *body)
{
    int64_t dims[64];
    int rank = 0;
    const char *p = body;
    while (*p == '?' || isdigit((unsigned char)*p)) {
        int64_t d = -1;
        if (*p == '?') {
            p++;
        } else {
            errno = 0;
            char *end;
            long long v = strtoll(p, &end, 10);
            if (errno == ERANGE || end == p)
                return false;
            d = (int64_t)v;
            p = end;
        }
        if (*p != 'x' || rank == 64)
            return false;
        dims[rank++] = d;
        p++;
    }
    if (!*p)
        return false;
    t->elem = arena_strdup(ctx->arena, p);
    t->rank = rank;
    t->dims = rank ? arena_memdup(ctx->arena, dims, (size_t)rank, sizeof(int64_t)) : NULL;
    return true;
}

/* The ',' that ends a tensor's shape before its encoding, or NULL. */
static const char *top_level_comma(const char *s)
{
    int depth = 0;
    for (; *s; s++) {
        if (*s == '<' || *s == '[' || *s == '(')
            depth++;
        else if (*s == '>' || *s == ']' || *s == ')')
            depth--;
        else if (*s == ',' && depth == 0)
            return s;
    }
    return NULL;
}

static bool parse_tensor(MlirParseCtx *ctx, MlirType *t, const char *text)
{
    size_t n = strlen(text);
    char *body = arena_strndup(ctx->arena, text + 7, n - 8);  /* tensor< ... > */
    char *comma = (char *)top_level_comma(body);
    if (comma) {
        *comma = '\0';
        t->encoding = normalize_ws(ctx, comma + 1 + strspn(comma + 1, " \t\r\n"));
    }
    size_t len = strlen(body);
    while (len && isspace((unsigned char)body[len - 1]))
        body[--len] = '\0';
    return parse_shape(ctx, t, body + strspn(body, " \t\r\n"));
}

/* A type spelled as one already read is a copy of it at its own location:
 * a program spells the same few tensor types at every op, and parsing each
 * again showed in profiles (bench/mlir.sh). The copies share text and dims,
 * which nothing changes after parsing. */
static MlirType *cached_type(MlirParseCtx *ctx, const char *text, Loc loc)
{
    if (!ctx->types_ready) {
        symtab_init(&ctx->types, ctx->keep);
        ctx->types_ready = true;
    }
    const MlirType *seen = mlir_cached_get(&ctx->recent_types, &ctx->types, text, false);
    if (!seen)
        return NULL;
    MlirType *t = NEW(ctx, MlirType);
    *t = *seen;
    t->loc = loc;
    return t;
}

/* A type not read before. Tensor types are remembered, so they live in
 * ctx->keep, with their text and dims. */
static MlirType *new_type(MlirParseCtx *ctx, const char *text, Loc loc)
{
    MlirType *t = NEW(ctx, MlirType);
    t->text = normalize_ws(ctx, text);
    t->loc = loc;
    if (strncmp(text, "tensor<", 7) == 0) {
        t->kind = MT_TENSOR;
        if (parse_tensor(ctx, t, t->text)) {
            symtab_put(&ctx->types, arena_strdup(ctx->arena, text), t);
            return t;
        }
        diag_error(ctx->diag, loc, "malformed tensor type '%s'", t->text);
        ctx->syntax_errors++;
        return NULL;
    }
    if (strcmp(text, "!stablehlo.token") == 0) {
        t->kind = MT_TOKEN;
    } else if (text[0] == '!' || strchr(text, '<')) {
        t->kind = strncmp(text, "complex<", 8) == 0 ? MT_SCALAR : MT_OTHER;
        t->elem = t->kind == MT_SCALAR ? t->text : NULL;
    } else {
        t->kind = MT_SCALAR;
        t->elem = t->text;
    }
    return t;
}

MlirType *mlir_build_type(MlirParseCtx *ctx, const char *text, Loc loc)
{
    MlirType *t = cached_type(ctx, text, loc);
    if (t)
        return t;
    Arena *op_arena = ctx->arena;
    if (strncmp(text, "tensor<", 7) == 0)
        ctx->arena = ctx->keep;
    t = new_type(ctx, text, loc);
    ctx->arena = op_arena;
    return t;
}

/* ---- attribute values ---- */

MlirAttr *mlir_attr_new(MlirParseCtx *ctx, MlirAttrKind kind, Loc loc)
{
    MlirAttr *a = NEW(ctx, MlirAttr);
    a->kind = kind;
    a->loc = loc;
    return a;
}

MlirAttr *mlir_build_raw(MlirParseCtx *ctx, MlirAttrKind kind, const char *text, Loc loc)
{
    MlirAttr *a = mlir_attr_new(ctx, kind, loc);
    a->raw = normalize_ws(ctx, text);
    return a;
}

/* A decimal of at most 18 digits, which fits: read without strtoll, which
 * cost more than the rest of building an int (every dim of every op's
 * `dims = [..]`). False for any other text. */
static bool small_decimal(const char *text, int64_t *value)
{
    const char *p = text + (text[0] == '-');
    int64_t v = 0;
    int digits = 0;
    for (; digits < 18 && *p >= '0' && *p <= '9'; p++, digits++)
        v = v * 10 + (*p - '0');
    if (digits == 0 || *p)    /* none, a 19th digit, or not a decimal */
        return false;
    *value = text[0] == '-' ? -v : v;
    return true;
}

int64_t mlir_int_value(MlirParseCtx *ctx, const char *text, Loc loc)
{
    int64_t small;
    if (small_decimal(text, &small))
        return small;
    errno = 0;
    bool hex = text[0] == '0' && text[1] == 'x';
    char *end;
    long long v = hex ? (long long)strtoull(text, &end, 16) : strtoll(text, &end, 10);
    if (errno == ERANGE || *end) {
        diag_error(ctx->diag, loc, "integer '%s' does not fit in 64 bits", text);
        ctx->syntax_errors++;
        return 0;
    }
    return (int64_t)v;
}

MlirAttr *mlir_build_int(MlirParseCtx *ctx, const char *text, Loc loc)
{
    MlirAttr *a = mlir_attr_new(ctx, MA_INT, loc);
    a->raw = text;
    a->i = mlir_int_value(ctx, text, loc);
    a->f = (double)a->i;
    return a;
}

MlirAttr *mlir_build_float(MlirParseCtx *ctx, const char *text, Loc loc)
{
    MlirAttr *a = mlir_attr_new(ctx, MA_FLOAT, loc);
    a->raw = text;
    a->f = strtod(text, NULL);
    return a;
}

MlirAttr *mlir_build_keyword(MlirParseCtx *ctx, const char *word, Loc loc)
{
    bool is_bool = strcmp(word, "true") == 0 || strcmp(word, "false") == 0;
    MlirAttr *a = mlir_attr_new(ctx, is_bool ? MA_BOOL : MA_KEYWORD, loc);
    a->raw = a->s = word;
    a->b = strcmp(word, "true") == 0;
    return a;
}

/* array<i64: 1, 2> (or array<i64>, array<i1: true>). */
MlirAttr *mlir_build_dense_array(MlirParseCtx *ctx, const char *text, Loc loc)
{
    MlirAttr *a = mlir_build_raw(ctx, MA_DENSE_ARRAY, text, loc);
    const char *p = strchr(text, ':');
    if (!p)
        return a;
    for (p++; *p && *p != '>';) {
        p += strspn(p, " \t\r\n,");
        if (*p == '>')
            break;
        size_t len = strcspn(p, " \t\r\n,>");
        char *word = arena_strndup(ctx->arena, p, len);
        MlirAttr *item = isalpha((unsigned char)*word) ? mlir_build_keyword(ctx, word, loc)
                                                        : mlir_build_int(ctx, word, loc);
        if (item->kind == MA_BOOL)
            item->i = item->b;
        arena_list_push(ctx->arena, &a->items, item);
        p += len;
    }
    return a;
}

MlirAttr *mlir_build_array(MlirParseCtx *ctx, MlirList *elems, Loc loc)
{
    MlirAttr *a = mlir_attr_new(ctx, MA_ARRAY, loc);
    a->items = *elems;
    bool all_axes = elems->count > 0;
    for (int i = 0; i < elems->count; i++) {
        MlirAttr *e = elems->items[i];
        all_axes = all_axes && e->kind == MA_AXES;
    }
    if (all_axes)
        a->kind = MA_DIM_AXES;
    return a;
}

MlirAttr *mlir_build_range(MlirParseCtx *ctx, const char *start, const char *limit, const char *stride,
                           Loc loc)
{
    MlirAttr *a = mlir_attr_new(ctx, MA_ARRAY, loc);
    a->s = ":";
    arena_list_push(ctx->arena, &a->items, mlir_build_int(ctx, start, loc));
    arena_list_push(ctx->arena, &a->items, mlir_build_int(ctx, limit, loc));
    if (stride)
        arena_list_push(ctx->arena, &a->items, mlir_build_int(ctx, stride, loc));
    return a;
}

MlirAttr *mlir_typed(MlirParseCtx *ctx, MlirAttr *value, MlirType *type)
{
    (void)ctx;
    value->type_text = type->text;
    return value;
}

/* Only the place is kept: the importer asks for the text of the few
 * attributes it keeps as written, and normalizing every attribute's text
 * was a twelfth of reading MLIR (bench/instructions.sh). The input outlives
 * the AST (mlir_read_module). */
MlirAttr *mlir_keep_text(MlirParseCtx *ctx, MlirAttr *value, int first, int last)
{
    if (value->raw || first < 0 || last < first || (size_t)last > ctx->len)
        return value;
    value->span = ctx->text + first;
    value->span_len = (size_t)(last - first);
    return value;
}

const char *mlir_attr_raw(Arena *arena, const MlirAttr *a)
{
    if (a->raw || !a->span)
        return a->raw;
    return normalize_ws_n(arena, a->span, a->span_len);
}

MlirNamedAttr *mlir_named(MlirParseCtx *ctx, const char *name, MlirAttr *value, Loc loc)
{
    MlirNamedAttr *n = NEW(ctx, MlirNamedAttr);
    *n = (MlirNamedAttr){name, value, loc};
    return n;
}

/* ---- values, blocks, regions, functions, generic ops ---- */

MlirUse *mlir_build_use(MlirParseCtx *ctx, const char *text, Loc loc)
{
    MlirUse *u = NEW(ctx, MlirUse);
    const char *hash = strchr(text, '#');
    u->name = hash ? arena_strndup(ctx->arena, text, (size_t)(hash - text)) : text;
    u->index = hash ? (int)strtol(hash + 1, NULL, 10) : -1;
    u->loc = loc;
    return u;
}

MlirBlock *mlir_build_block(MlirParseCtx *ctx, const char *label, MlirList *args, MlirList *ops, Loc loc)
{
    MlirBlock *b = NEW(ctx, MlirBlock);
    b->label = label;
    if (args)
        b->args = *args;
    if (ops)
        b->ops = *ops;
    b->loc = loc;
    return b;
}

MlirRegion *mlir_build_region(MlirParseCtx *ctx, MlirBlock *entry, Loc loc)
{
    MlirRegion *r = NEW(ctx, MlirRegion);
    if (entry)
        arena_list_push(ctx->arena, &r->blocks, entry);
    r->loc = loc;
    return r;
}

MlirFunc *mlir_build_func(MlirParseCtx *ctx, const char *name, const char *visibility, MlirList *args,
                          MlirList *results, MlirList *attrs, Loc loc)
{
    MlirFunc *f = ARENA_NEW(ctx->keep, MlirFunc);  /* the grammar sets its body after the header */
    f->name = name;
    f->visibility = visibility;
    f->args = *args;
    f->attrs = *attrs;
    f->loc = loc;
    for (int i = 0; i < results->count; i++) {
        MlirBlockArg *r = results->items[i];
        MlirList *result_attrs = NEW(ctx, MlirList);
        *result_attrs = r->attrs;
        arena_list_push(ctx->arena, &f->result_types, r->type);
        arena_list_push(ctx->arena, &f->result_attrs, result_attrs);
    }
    return f;
}

MlirOp *mlir_build_generic(MlirParseCtx *ctx, const char *name, Loc loc, MlirList *operands,
                           MlirList *props, MlirList *regions, MlirList *attrs, MlirTypeSig *sig)
{
    MlirOp *op = NEW(ctx, MlirOp);
    op->name = name;
    op->loc = op->name_loc = loc;
    op->generic = true;
    op->operands = *operands;
    op->attrs = *props;
    for (int i = 0; i < attrs->count; i++)
        arena_list_push(ctx->arena, &op->attrs, attrs->items[i]);
    op->regions = *regions;
    if (!sig->is_function) {
        diag_error(ctx->diag, loc, "expected a function type '(...) -> ...' after a generic op");
        ctx->syntax_errors++;
        return NULL;
    }
    op->operand_types = sig->inputs;
    op->result_types = sig->outputs;
    mlir_normalize_attrs(ctx, op);
    return op;
}

/* A plain type list: one type for all operands and results
 * (`stablehlo.add %a, %b : tensor<8xf32>`), or one per result, or one per
 * operand of an op with no results (`return %a, %b : t1, t2`). */
bool mlir_settle_types(MlirParseCtx *ctx, MlirOp *op)
{
    MlirList *t = &op->sig_types;
    int n = t->count, m = op->operands.count, r = op->num_results;
    op->sig_pending = false;
    if (n == 1) {
        for (int i = 0; i < m; i++)
            arena_list_push(ctx->arena, &op->operand_types, t->items[0]);
        for (int i = 0; i < r; i++)
            arena_list_push(ctx->arena, &op->result_types, t->items[0]);
        return true;
    }
    if (n == r && n > 0) {
        op->result_types = *t;
        if (n == m)
            op->operand_types = *t;
        return true;
    }
    if (r == 0 && n == m) {
        op->operand_types = *t;
        return true;
    }
    if (n == 2 && m == 3 && r == 1) {   /* select %p, %a, %b : pred type, value type */
        void *types[] = {t->items[0], t->items[1], t->items[1]};
        for (int i = 0; i < 3; i++)
            arena_list_push(ctx->arena, &op->operand_types, types[i]);
        arena_list_push(ctx->arena, &op->result_types, t->items[1]);
        return true;
    }
    return false;
}

MlirOp *mlir_finish_op(MlirParseCtx *ctx, MlirOp *op, MlirList *results, const char *loc_text, Loc loc)
{
    op->loc_text = loc_text;
    op->num_results = 0;
    if (results) {
        op->loc = loc;
        op->results = *results;
        for (int i = 0; i < results->count; i++)
            op->num_results += ((MlirResultDef *)results->items[i])->count;
    }
    if (op->sig_pending && !mlir_settle_types(ctx, op)) {
        diag_error(ctx->diag, loc, "'%s' has %d operand%s and %d result%s but its signature lists %d types",
                   op->name, op->operands.count, op->operands.count == 1 ? "" : "s", op->num_results,
                   op->num_results == 1 ? "" : "s", op->sig_types.count);
        ctx->syntax_errors++;
        return NULL;
    }
    if (op->result_types.count != op->num_results) {
        diag_error(ctx->diag, loc, "'%s' defines %d result%s but its type lists %d", op->name,
                   op->num_results, op->num_results == 1 ? "" : "s", op->result_types.count);
        ctx->syntax_errors++;
        return NULL;
    }
    return op;
}
