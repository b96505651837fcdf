/* The propagation pass: Shardy-style factor propagation to a fixed point
 * (src/propagate/propagate.c), with --explain origins. */
#include "shardc/pass.h"
#include "shardc/propagate.h"

static bool run_propagate(Module *m, PassContext *ctx)
{
    PropagateOptions options = {.mode = (PropagationMode)ctx->options->propagation,
                                .conservative = ctx->options->conservative_propagation,
                                .diag = ctx->diag,
                                .warn_conflicts = !ctx->options->quiet_conflicts,
                                .origins = ctx->origins};
    return propagate_module(m, &options);
}

const Pass pass_propagate = {"propagate", EMIT_PROPAGATED, run_propagate};
