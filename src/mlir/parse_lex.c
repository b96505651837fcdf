/* The MLIR scanner's helpers: text of tokens scanned whole, strings,
 * identifiers, lexical errors. */
#include <stdarg.h>
#include <string.h>
#include "mlir/mlir_parse_ctx.h"

MlirTextBuf mlir_text_begin(MlirParseCtx *ctx, const char *text, int len)
{
    MlirTextBuf buf = {NULL, 0, len + 64};
    buf.data = arena_alloc_uninit(ctx->arena, (size_t)buf.cap);
    memcpy(buf.data, text, (size_t)len);
    buf.len = len;
    return buf;
}

void mlir_text_add(MlirParseCtx *ctx, MlirTextBuf *buf, char c)
{
    if (buf->len + 1 >= buf->cap) {
        int cap = buf->cap * 2;
        char *data = arena_alloc_uninit(ctx->arena, (size_t)cap);
        memcpy(data, buf->data, (size_t)buf->len);
        buf->data = data;
        buf->cap = cap;
    }
    buf->data[buf->len++] = c;
}

const char *mlir_text_end(MlirParseCtx *ctx, MlirTextBuf *buf)
{
    mlir_text_add(ctx, buf, '\0');
    return buf->data;
}

const char *mlir_lex_intern(MlirParseCtx *ctx, const char *text, int len)
{
    return arena_strndup(ctx->arena, text, (size_t)len);
}

int mlir_hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* MLIR string escapes: \n \t \" \\ and two hex digits (\0A). */
const char *mlir_lex_string(MlirParseCtx *ctx, const char *text, int len, Loc loc)
{
    char *out = arena_alloc(ctx->arena, (size_t)len);
    int n = 0;
    for (int i = 1; i < len - 1; i++) {
        char c = text[i];
        if (c == '\\') {
            char e = text[++i];
            int hi = mlir_hex_digit(e), lo = i + 1 < len - 1 ? mlir_hex_digit(text[i + 1]) : -1;
            if (e == 'n' || e == 't' || e == '"' || e == '\\') {
                c = e == 'n' ? '\n' : e == 't' ? '\t' : e;
            } else if (hi >= 0 && lo >= 0) {
                c = (char)(hi * 16 + lo);
                i++;
            } else {
                mlir_lex_error(ctx, loc_offset(loc, i - 1), "unknown escape '\\%c' in string", e);
                c = e;
            }
        }
        out[n++] = c;
    }
    out[n] = '\0';
    return out;
}

/* An identifier before `,` or `}` is a unit attribute in a dict; a
 * terminator (`return`, `sdy.return`, `stablehlo.return`) written without
 * operands before a region's `}` is an op. */
bool mlir_lex_is_unit_key(const char *name)
{
    size_t n = strlen(name);
    return !(n >= 6 && strcmp(name + n - 6, "return") == 0);
}

void mlir_lex_error(MlirParseCtx *ctx, Loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vreport(ctx->diag, DIAG_ERROR, loc, fmt, ap);
    va_end(ap);
    ctx->lex_error_pending = true;
}

bool mlir_enter_nesting(MlirParseCtx *ctx, Loc loc)
{
    if (++ctx->nesting <= MLIR_MAX_NESTING)
        return true;
    mlir_lex_error(ctx, loc, "nesting is too deep: more than %d levels of brackets and regions",
                   MLIR_MAX_NESTING);
    return false;
}
