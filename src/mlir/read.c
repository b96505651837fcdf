/* mlir_read_module: MLIR text to IR, parsed (parse.c) then imported
 * (import.c); the AST lives in a scratch arena for the duration. */
#include "mlir/mlir_import.h"
#include "shardc/mlir.h"

Module *mlir_read_module(const char *file, const char *text, size_t len, DiagEngine *diag)
{
    Arena scratch;
    arena_init(&scratch);
    MlirModule *ast = mlir_parse(&scratch, diag, file, text, len);
    Module *m = ast ? mlir_import(ast, file, diag) : NULL;
    arena_free(&scratch);
    return m;
}
