/* The cost model (docs/auto_sharding.md): a collective over a group of mesh
 * axes takes alpha + beta * bytes seconds (Alpa's and XLA's alpha-beta
 * model; a group over several axes is as slow as its slowest link), where
 * bytes are what each device receives in the partitioner's own reshard plan
 * (reshard_plan, reshard_step_bytes), so the model and the emitted program
 * count the same bytes. Compute is FLOPs / devices sharing the work /
 * flops_per_second. */
#include <string.h>
#include "autoshard/autoshard_internal.h"
#include "shardc/dtype.h"

void autoshard_costs_init(AsCosts *c, const Mesh *mesh, const Config *config)
{
    c->flops_per_second = config && config->flops_per_second > 0 ? config->flops_per_second : CONFIG_DEFAULT_FLOPS;
    for (int a = 0; a < mesh->num_axes && a < AS_MAX_AXES; a++) {
        const ConfigLink *link = config_find_link(config, mesh->axes[a].name);
        c->alpha[a] = link ? link->alpha : CONFIG_DEFAULT_ALPHA;
        c->beta[a] = link ? link->beta : CONFIG_DEFAULT_BETA;
    }
}

static void to_dim_axes(DimAxes *out, const Mesh *mesh, const AsLayout *l)
{
    reshard_dim_axes_clear(out, l->rank);
    for (int d = 0; d < l->rank; d++) {
        for (int i = 0; i < l->n[d]; i++)
            out->dims[d].axes[i] = (AxisRef){l->ax[d][i], 1, mesh->axes[l->ax[d][i]].size};
        out->dims[d].count = l->n[d];
    }
}

/* Local bytes of a tensor laid out as `s` (padded blocks round up). */
static int64_t local_bytes(const TensorType *t, const DimAxes *s)
{
    int64_t n = (int64_t)dtype_size(t->dtype);
    for (int d = 0; d < t->rank; d++) {
        int64_t shards = axis_list_size(&s->dims[d]);
        n *= (t->dims[d] + shards - 1) / shards;
    }
    return n;
}

int64_t autoshard_layout_bytes(const Mesh *mesh, const TensorType *t, const AsLayout *l)
{
    int64_t n = (int64_t)dtype_size(t->dtype);
    for (int d = 0; d < t->rank; d++) {
        int64_t shards = 1;
        for (int i = 0; i < l->n[d]; i++)
            shards *= mesh->axes[l->ax[d][i]].size;
        n *= (t->dims[d] + shards - 1) / shards;
    }
    return n;
}

/* The mesh axes of a step's group, as a bit set. A collective-permute
 * names none (its pairs are the placement change): every axis that
 * shards the tensor before or after it, whose links the blocks cross.
 * Without this a permute would cost nothing and the search would trade
 * all-reduces for permutes the program pays for. */
static uint32_t step_axes(const ReshardStep *s, const DimAxes *before)
{
    uint32_t axes = 0;
    for (int i = 0; i < s->axes.count; i++)
        axes |= 1u << s->axes.axes[i].axis;
    if (s->kind != STEP_COLLECTIVE_PERMUTE || axes)
        return axes;
    for (int d = 0; d < before->rank; d++) {
        for (int i = 0; i < before->dims[d].count; i++)
            axes |= 1u << before->dims[d].axes[i].axis;
        for (int i = 0; i < s->after.dims[d].count; i++)
            axes |= 1u << s->after.dims[d].axes[i].axis;
    }
    return axes;
}

static double step_seconds(const AsCosts *c, uint32_t axes, int64_t bytes)
{
    double alpha = 0, beta = 0;
    for (int a = 0; a < AS_MAX_AXES; a++)
        if (axes & (1u << a)) {
            alpha = c->alpha[a] > alpha ? c->alpha[a] : alpha;
            beta = c->beta[a] > beta ? c->beta[a] : beta;
        }
    return alpha + beta * (double)bytes;
}

/* Seconds of the reshard from `from` (partial over the axes of `partial`)
 * to `to`; *bytes gets the bytes per device. A reshard with no plan costs
 * 1e6 s: never chosen while anything else is possible. */
double autoshard_plan_cost(const AsGraph *g, const TensorType *t, const AsLayout *from, uint32_t partial,
                           const AsLayout *to, int64_t *bytes)
{
    *bytes = 0;
    if (!partial && memcmp(from, to, sizeof *from) == 0)
        return 0;
    AsScratch *w = g->scratch;
    to_dim_axes(&w->from, g->mesh, from);
    to_dim_axes(&w->to, g->mesh, to);
    AxisList pending = {0};
    for (int a = 0; a < g->mesh->num_axes; a++)
        if (partial & (1u << a))
            pending.axes[pending.count++] = (AxisRef){a, 1, g->mesh->axes[a].size};
    ReshardOptions opt = {.shape = t->dims, .even_steps = true, .fewest_bytes = g->costs.fewest_bytes};
    if (!reshard_plan(&w->plan, g->mesh, &w->from, &pending, &w->to, &opt))
        return 1e6;
    double seconds = 0;
    int64_t before = local_bytes(t, &w->from);
    for (int i = 0; i < w->plan.num_steps; i++) {
        const ReshardStep *s = &w->plan.steps[i];
        int64_t after = local_bytes(t, &s->after);
        int64_t b = reshard_step_bytes(s, before, after);
        if (s->kind != STEP_ALL_SLICE)
            seconds += step_seconds(&g->costs, step_axes(s, i ? &w->plan.steps[i - 1].after : &w->from), b);
        *bytes += b;
        before = after;
    }
    return seconds;
}
