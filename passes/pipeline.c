/* The pass pipeline: a flat list, run in order. */
#include <stdio.h>
#include "shardc/pass.h"
#include "shardc/timer.h"

static const Pass *const pipeline[] = {
    &pass_verify,
    &pass_check_vma,
    &pass_limits,
    &pass_logical_axes,
    &pass_inline_calls,
    &pass_explicit_axes,
    &pass_propagate,
    &pass_partition,
    &pass_relax_vma,
};

bool pipeline_run(Module *m, PassContext *ctx)
{
    for (size_t i = 0; i < sizeof pipeline / sizeof pipeline[0]; i++) {
        const Pass *pass = pipeline[i];
        if (ctx->options->emit < pass->needed_from)
            continue;
        Timer start = timer_start();
        bool ok = pass->run(m, ctx);
        if (ctx->options->time_passes)
            timer_report(stderr, pass->name, start);
        if (!ok)
            return false;
    }
    return true;
}
