/* The verify pass: the whole module (src/verify/), after checking that
 * --func names a function. */
#include "shardc/pass.h"
#include "shardc/verify.h"

static bool run_verify(Module *m, PassContext *ctx)
{
    if (ctx->options->entry && !module_find_func(m, ctx->options->entry)) {
        diag_error(ctx->diag, (Loc){m->file, 0, 0}, "no function '@%s' in the module", ctx->options->entry);
        return false;
    }
    return verify_module_checks(m, ctx->diag, ctx->options->external_custom_targets, !ctx->options->groups_unchecked);
}

const Pass pass_verify = {"verify", EMIT_IR, run_verify, NULL};
