/* The propagation pass: Shardy-style factor propagation to a fixed point
 * (src/propagate/propagate.c), with --explain origins. */
#include "shardc/pass.h"
#include "shardc/propagate.h"

static bool run_propagate(Module *m, PassContext *ctx)
{
    PropagateOptions options = {(PropagationMode)ctx->options->propagation, ctx->diag,
                                !ctx->options->quiet_conflicts, ctx->origins};
    return propagate_module(m, &options);
}

const Pass pass_propagate = {"propagate", EMIT_PROPAGATED, run_propagate};
