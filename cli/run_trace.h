/* `shardc run --trace=FILE.json` (run_trace.c). */
#ifndef SHARDC_CLI_RUN_TRACE_H
#define SHARDC_CLI_RUN_TRACE_H
#include <stdbool.h>
#include "shardc/diag.h"
#include "shardc/interp.h"

/* Both runs' events as one Trace Event JSON file; false (reported) if it
 * cannot be written. */
bool cli_trace_write(DiagEngine *diag, const char *path, const InterpTrace *ref, const InterpTrace *spmd);

#endif
