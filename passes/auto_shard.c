/* The auto-sharding pass (--auto-shard, src/autoshard/): before
 * propagation, the search writes the shardings it chose; propagation and
 * partitioning then run as on any annotated program. The model's
 * predicted bytes and time go to --stats beside the partitioner's. */
#include "shardc/autoshard.h"
#include "shardc/partition.h"
#include "shardc/pass.h"

static bool enabled(const CompileOptions *options) { return options->auto_shard != AUTOSHARD_OFF; }

static bool run_auto_shard(Module *m, PassContext *ctx)
{
    const CompileOptions *o = ctx->options;
    AutoShardOptions options = {
        .mode = o->auto_shard != AUTOSHARD_OFF ? (AutoShardMode)o->auto_shard : AUTOSHARD_ILP,
        .memory_budget = o->memory_budget,
        .time_limit = o->auto_shard_time,
        .config = o->config,
        .explain = o->explain != NULL && ctx->autoshard != NULL,
        .fewest_bytes_reshards = o->reshard_plan == RESHARD_PLAN_FEWEST_BYTES,
    };
    AutoShardReport local = {0};
    AutoShardReport *report = ctx->autoshard ? ctx->autoshard : &local;
    int errors = ctx->diag->errors;
    bool ok = autoshard_module(m, ctx->diag, &options, report) && ctx->diag->errors == errors;
    if (ctx->stats && report->functions) {
        ctx->stats->predicted = true;
        ctx->stats->predicted_bytes = report->predicted_bytes;
        ctx->stats->predicted_seconds = report->predicted_seconds;
        ctx->stats->predicted_peak_bytes = report->peak_bytes;
    }
    autoshard_report_free(&local);
    return ok;
}

const Pass pass_auto_shard = {"auto-shard", EMIT_PROPAGATED, run_auto_shard, enabled};
