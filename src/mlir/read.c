/* mlir_read_module: MLIR text to IR, parsed (parse.c) then imported
 * (import.c); the AST lives in a scratch arena for the duration. */
#include <string.h>
#include "mlir/mlir_import.h"
#include "shardc/mlir.h"

/* MLIR text holds no NUL byte (MLIR's own lexer stops at one). Inside a
 * string or a kept attribute's text one would cut what is printed back
 * short (found by fuzz_mlir: tests/mlir/err_nul_byte.test). */
static bool has_nul(const char *file, const char *text, size_t len, DiagEngine *diag)
{
    const char *nul = memchr(text, '\0', len);
    if (!nul)
        return false;
    int line = 1, col = 1;
    for (const char *p = text; p < nul; p++) {
        col = *p == '\n' ? 1 : col + 1;
        line += *p == '\n';
    }
    diag_error(diag, (Loc){file, line, col}, "unexpected NUL byte");
    return true;
}

Module *mlir_read_module(const char *file, const char *text, size_t len, DiagEngine *diag)
{
    if (has_nul(file, text, len, diag))
        return NULL;
    Arena scratch;
    arena_init(&scratch);
    MlirModule *ast = mlir_parse(&scratch, diag, file, text, len);
    Module *m = ast ? mlir_import(ast, file, diag) : NULL;
    arena_free(&scratch);
    return m;
}
