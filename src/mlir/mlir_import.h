/* The importer: the parsed MLIR AST onto shardc's IR (import*.c).
 * Internal to src/mlir/. */
#ifndef SHARDC_MLIR_IMPORT_H
#define SHARDC_MLIR_IMPORT_H
#include "mlir/mlir_ast.h"
#include "shardc/ir.h"

/* NULL after located errors. */
Module *mlir_import(const MlirModule *ast, const char *file, DiagEngine *diag);

#endif
