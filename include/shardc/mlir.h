/* StableHLO + Shardy (sdy) MLIR in and out (src/mlir/, docs/mlir.md):
 * the text `jax.jit(f).lower(...).as_text()` and `sdy_opt` print. */
#ifndef SHARDC_MLIR_H
#define SHARDC_MLIR_H
#include <stddef.h>
#include <stdio.h>
#include "shardc/diag.h"
#include "shardc/ir.h"

/* Parse MLIR text (named `file` in diagnostics; register it with
 * diag_add_source first) and map it onto the IR. Reports located errors
 * through diag and returns NULL if there were any; like parse_module, the
 * IR is not verified yet. */
Module *mlir_read_module(const char *file, const char *text, size_t len, DiagEngine *diag);

/* Print m as sdy_opt prints StableHLO + sdy MLIR: `module { sdy.mesh ...
 * func.func ... }`, values renumbered as MLIR does for a module read from
 * MLIR, kept as written for one read from .shir. */
void mlir_print_module(FILE *out, const Module *m);

#endif
