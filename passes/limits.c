/* The limits pass: right after verification, every value must fit in
 * --max-bytes, so that later passes, and `shardc run`, only ever see
 * tensors the machine could hold. */
#include "shardc/limits.h"
#include "shardc/pass.h"

static bool run_limits(Module *m, PassContext *ctx)
{
    int64_t max_bytes = limits_max_bytes(ctx->options);
    /* The census says whether any value could be too big: the walk, a cache
     * miss per value, only runs to find and report it. */
    return m->largest_value_bytes <= max_bytes || limits_check_values(m, max_bytes, ctx->diag);
}

const Pass pass_limits = {"limits", EMIT_IR, run_limits, NULL};
