/* mlir_parse: MLIR text to the AST (mlir_ast.h) through the flex scanner
 * and the bison grammar of grammar/mlir_*. */
#include <stdlib.h>
#include <string.h>
#include "mlir/mlir_parse_ctx.h"
#include "mlir_parser.h"
#include "mlir_lexer.h"

int mlir_yyparse(MlirParseCtx *ctx);

MlirModule *mlir_parse(Arena *arena, DiagEngine *diag, const char *file, const char *text, size_t len,
                       struct MlirStream *stream)
{
    MlirParseCtx ctx = {.arena = arena, .keep = arena, .stream = stream, .diag = diag, .file = file,
                        .text = text, .len = len, .line = 1, .column = 1};
    ctx.module = arena_alloc(arena, sizeof(MlirModule));
    ctx.module->loc = (Loc){file, 1, 1};
    yyscan_t scanner;
    if (mlir_scan_lex_init_extra(&ctx, &scanner) != 0) {
        diag_error(diag, (Loc){file, 0, 0}, "cannot initialize the MLIR scanner");
        return NULL;
    }
    ctx.scanner = scanner;
    mlir_lex_begin(&ctx, scanner);
    int status = mlir_yyparse(&ctx);
    mlir_scan_lex_destroy(scanner);
    if (status != 0 || ctx.syntax_errors > 0) {
        if (diag->errors == 0)
            diag_error(diag, (Loc){file, 1, 1}, "malformed MLIR");
        return NULL;
    }
    return ctx.module;
}

/* ---- generic attribute forms to the ones the importer reads ---- */

/* `#stablehlo<comparison_direction GT>` -> GT. */
static void unwrap_enum(MlirParseCtx *ctx, MlirNamedAttr *a, const char *prefix)
{
    const char *raw = a->value->raw;
    size_t n = strlen(prefix);
    if (a->value->kind != MA_DIALECT || !raw || strncmp(raw, prefix, n) != 0)
        return;
    const char *word = raw + n + strspn(raw + n, " ");
    size_t len = strcspn(word, " >");
    a->value = mlir_build_keyword(ctx, arena_strndup(ctx->arena, word, len), a->value->loc);
}

/* The ints of `name = [1, 2]` inside a #stablehlo.dot<...> text, as an array. */
static MlirAttr *dims_in(MlirParseCtx *ctx, const char *raw, const char *name, Loc loc)
{
    MlirAttr *a = mlir_attr_new(ctx, MA_ARRAY, loc);
    const char *p = strstr(raw, name);
    if (!p || !(p = strchr(p, '[')))
        return a;
    for (p++; *p && *p != ']';) {
        p += strspn(p, " ,");
        if (*p == ']')
            break;
        size_t len = strcspn(p, " ,]");
        arena_list_push(ctx->arena, &a->items, mlir_build_int(ctx, arena_strndup(ctx->arena, p, len), loc));
        p += len;
    }
    return a;
}

static MlirNamedAttr *dims_pair(MlirParseCtx *ctx, const char *raw, const char *key, const char *which, Loc loc)
{
    char lhs[64], rhs[64];
    snprintf(lhs, sizeof lhs, "lhs_%s_dimensions", which);
    snprintf(rhs, sizeof rhs, "rhs_%s_dimensions", which);
    MlirAttr *pair = mlir_attr_new(ctx, MA_DIMS_PAIR, loc);
    arena_list_push(ctx->arena, &pair->items, dims_in(ctx, raw, lhs, loc));
    arena_list_push(ctx->arena, &pair->items, dims_in(ctx, raw, rhs, loc));
    return mlir_named(ctx, key, pair, loc);
}

/* dot_dimension_numbers = #stablehlo.dot<...> -> batching_dims and
 * contracting_dims pairs, as the custom form writes them. */
static void split_dot_dims(MlirParseCtx *ctx, MlirOp *op, int i)
{
    MlirNamedAttr *a = op->attrs.items[i];
    const char *raw = a->value->raw;
    if (a->value->kind != MA_DIALECT || !raw || strncmp(raw, "#stablehlo.dot<", 15) != 0)
        return;
    op->attrs.items[i] = dims_pair(ctx, raw, "contracting_dims", "contracting", a->loc);
    if (strstr(raw, "batching_dimensions"))
        arena_list_push(ctx->arena, &op->attrs, dims_pair(ctx, raw, "batching_dims", "batching", a->loc));
}

void mlir_normalize_attrs(MlirParseCtx *ctx, MlirOp *op)
{
    for (int i = 0; i < op->attrs.count; i++) {
        MlirNamedAttr *a = op->attrs.items[i];
        if (a->value->kind == MA_DENSE_ARRAY)
            a->value->kind = MA_ARRAY;
        else if (a->value->kind != MA_DIALECT)
            continue;   /* what follows rewrites #dialect<...> texts only */
        else if (strcmp(a->name, "comparison_direction") == 0)
            unwrap_enum(ctx, a, "#stablehlo<comparison_direction");
        else if (strcmp(a->name, "compare_type") == 0)
            unwrap_enum(ctx, a, "#stablehlo<comparison_type");
        else if (strcmp(a->name, "transpose_a") == 0)
            unwrap_enum(ctx, a, "#stablehlo<transpose");
        else if (strcmp(a->name, "fft_type") == 0)
            unwrap_enum(ctx, a, "#stablehlo<fft_type");
        else if (strcmp(a->name, "rng_algorithm") == 0)
            unwrap_enum(ctx, a, "#stablehlo<rng_algorithm");
        else if (strcmp(a->name, "allowed_direction") == 0)
            unwrap_enum(ctx, a, "#sdy<propagation_direction");
        else if (strcmp(a->name, "dot_dimension_numbers") == 0)
            split_dot_dims(ctx, op, i);
    }
}
