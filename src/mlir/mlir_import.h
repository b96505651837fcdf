/* The MLIR importer: the parsed MLIR AST (mlir_ast.h) mapped onto shardc's
 * IR, built exactly as the .shir front end builds it (values, ops, keyed
 * attributes, meshes, shardings, shard_map bodies), so that every stage
 * after it works unchanged. What the IR does not model is kept on
 * Op/Func/Module.mlir (mlir_extra.h) for the printer. Internal to src/mlir/. */
#ifndef SHARDC_MLIR_IMPORT_H
#define SHARDC_MLIR_IMPORT_H
#include "mlir/mlir_ast.h"
#include "shardc/ir.h"
#include "shardc/mlir.h"

/* The module ast stands for, its names and locations registered as `file`;
 * NULL after located errors (reported through diag). Nothing of the AST is
 * referenced by the result: the AST's arena may be freed afterwards. */
Module *mlir_import(const MlirModule *ast, const char *file, const MlirReadOptions *options,
                    DiagEngine *diag);

/* The two ways mlir_read_module reads (read.c): op by op as the parser
 * goes, or NULL (nothing reported) when the module must be read whole;
 * and whole, the AST of the module then its import. */
Module *mlir_read_streamed(const char *file, const char *text, size_t len);
Module *mlir_read_whole(const char *file, const char *text, size_t len, const MlirReadOptions *options,
                        DiagEngine *diag);

/* Empties an arena to be filled again (freed under AddressSanitizer, so
 * that a pointer into what it held is reported when used). */
void mlir_reuse_arena(Arena *arena);

#endif
