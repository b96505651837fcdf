/* The pass pipeline: a flat list, run in order. --pass-pipeline runs a
 * sub-list of it; --print-ir-before/after print the module around the
 * passes they name. */
#include <stdio.h>
#include <string.h>
#include "shardc/pass.h"
#include "shardc/print.h"
#include "shardc/suggest.h"
#include "shardc/timer.h"

static const Pass *const pipeline[] = {
    &pass_verify,
    &pass_check_vma,
    &pass_limits,
    &pass_logical_axes,
    &pass_inline_calls,
    &pass_explicit_axes,
    &pass_auto_shard,
    &pass_propagate,
    &pass_partition,
    &pass_relax_vma,
    NULL,
};
enum { NUM_PASSES = sizeof pipeline / sizeof pipeline[0] - 1 };

/* What a pass needs to have run before it in a --pass-pipeline (verify,
 * which every pass needs, aside): partitioning reads the shardings
 * propagation completes, relax-vma the partitioner's shard_maps. */
static const struct { const Pass *pass, *needs; } needs[] = {
    {&pass_partition, &pass_propagate},
    {&pass_relax_vma, &pass_partition},
};

const Pass *const *pipeline_passes(void) { return pipeline; }

const Pass *pipeline_find(const char *name, size_t len)
{
    for (size_t i = 0; i < NUM_PASSES; i++)
        if (strlen(pipeline[i]->name) == len && strncmp(pipeline[i]->name, name, len) == 0)
            return pipeline[i];
    return NULL;
}

bool pipeline_list_names(const char *list, const Pass *pass)
{
    if (!list)
        return false;
    if (strcmp(list, "*") == 0)
        return true;
    size_t n = strlen(pass->name);
    for (const char *p = list; (p = strstr(p, pass->name)); p += n)
        if ((p == list || p[-1] == ',') && (p[n] == ',' || !p[n]))
            return true;
    return false;
}

static void print_ir(const Module *m, const char *when, const Pass *pass)
{
    fprintf(stderr, "// ----- IR %s %s -----\n", when, pass->name);
    print_module(stderr, m);
}

static bool runs(const Pass *pass, const CompileOptions *options)
{
    if (options->pass_list)
        return pipeline_list_names(options->pass_list, pass);
    return options->emit >= pass->needed_from && (!pass->enabled || pass->enabled(options));
}

bool pipeline_run(Module *m, PassContext *ctx)
{
    const CompileOptions *options = ctx->options;
    for (size_t i = 0; i < NUM_PASSES; i++) {
        const Pass *pass = pipeline[i];
        if (!runs(pass, options))
            continue;
        if (pipeline_list_names(options->print_before, pass))
            print_ir(m, "before", pass);
        Timer start = timer_start();
        bool ok = pass->run(m, ctx);
        if (options->time_passes)
            timer_report(stderr, pass->name, start);
        if (!ok)
            return false;
        if (pipeline_list_names(options->print_after, pass))
            print_ir(m, "after", pass);
    }
    return true;
}

const Pass *pipeline_none_run(const char *list, const CompileOptions *options)
{
    const Pass *idle = NULL;
    if (!list || strcmp(list, "*") == 0)
        return NULL;
    for (size_t i = 0; i < NUM_PASSES; i++)
        if (pipeline_list_names(list, pipeline[i])) {
            if (runs(pipeline[i], options))
                return NULL;
            idle = idle ? idle : pipeline[i];
        }
    return idle;
}

/* ---- checking a list of names ---- */

static const char *unknown_pass(const char *name, size_t len, char *buf, size_t size)
{
    const char *names[NUM_PASSES];
    for (size_t i = 0; i < NUM_PASSES; i++)
        names[i] = pipeline[i]->name;
    const char *near = suggest_closest(name, len, names, NUM_PASSES);
    int n = snprintf(buf, size, "unknown pass '%.*s'", (int)len, name);
    if (near && n >= 0 && (size_t)n < size)
        snprintf(buf + n, size - (size_t)n, "; did you mean '%s'?", near);
    else if (n >= 0 && (size_t)n < size)
        snprintf(buf + n, size - (size_t)n, " (shardc --list-passes lists them)");
    return buf;
}

static size_t index_of(const Pass *pass)
{
    size_t i = 0;
    while (pipeline[i] != pass)
        i++;
    return i;
}

/* The order rules of a pipeline, given the index of each pass listed
 * (position in the list, or -1). */
static const char *check_order(const int *at, char *buf, size_t size)
{
    if (at[index_of(&pass_verify)] != 0) {
        snprintf(buf, size, "the pass pipeline must start with 'verify': every pass needs verified IR");
        return buf;
    }
    for (size_t i = 0; i < sizeof needs / sizeof needs[0]; i++)
        if (at[index_of(needs[i].pass)] >= 0 && at[index_of(needs[i].needs)] < 0) {
            snprintf(buf, size, "pass '%s' needs '%s' before it in the pass pipeline", needs[i].pass->name,
                     needs[i].needs->name);
            return buf;
        }
    return NULL;
}

/* One name of a pipeline at position `pos`: after every name before it
 * in the flat list, and not twice. */
static const char *place(const Pass *pass, int pos, int *at, int *last, char *buf, size_t size)
{
    size_t i = index_of(pass);
    if (at[i] >= 0)
        snprintf(buf, size, "pass '%s' appears twice in the pass pipeline", pass->name);
    else if (*last >= 0 && (size_t)*last > i)
        snprintf(buf, size, "pass '%s' cannot run after '%s' (the order is that of shardc --list-passes)",
                 pass->name, pipeline[*last]->name);
    else {
        at[i] = pos;
        *last = (int)i;
        return NULL;
    }
    return buf;
}

const char *pipeline_check_list(const char *list, bool ordered, char *buf, size_t size)
{
    int at[NUM_PASSES], last = -1, pos = 0;
    for (size_t i = 0; i < NUM_PASSES; i++)
        at[i] = -1;
    if (!ordered && strcmp(list, "*") == 0)
        return NULL;
    for (const char *p = list;; pos++) {
        size_t len = strcspn(p, ",");
        const Pass *pass = pipeline_find(p, len);
        if (!pass)
            return unknown_pass(p, len, buf, size);
        if (ordered && place(pass, pos, at, &last, buf, size))
            return buf;
        if (!p[len])
            break;
        p += len + 1;
    }
    return ordered ? check_order(at, buf, size) : NULL;
}
