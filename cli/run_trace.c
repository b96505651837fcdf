/* `shardc run --trace=FILE.json`: the runs' timelines in the Trace Event
 * format (Chrome's about:tracing, Perfetto, the format JAX's profiler
 * exports): process 1 is the reference run, process 2 the SPMD run; in each,
 * track 0 is the host (global semantics) and track d + 1 is device d. Every
 * executed op is one complete ("X") slice with its operand and result
 * types and bytes (a collective's: what the device received from others). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "run_trace.h"
#include "shardc/type.h"

static void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

static void types_list(FILE *out, Value *const *values, int n)
{
    fputc('"', out);
    for (int i = 0; i < n; i++) {
        if (i)
            fputs(", ", out);
        type_print(out, &values[i]->type);
    }
    fputc('"', out);
}

static void write_event(FILE *out, int pid, const InterpTraceEvent *e, double origin)
{
    const Op *op = e->op;
    bool collective = op_info(op->kind)->op_class == OPC_COLLECTIVE;
    fprintf(out, ",\n{\"ph\": \"X\", \"pid\": %d, \"tid\": %lld, \"ts\": %.3f, \"dur\": %.3f, \"cat\": \"%s\", \"name\": ",
            pid, (long long)(e->device + 1), e->start_us - origin, e->dur_us, collective ? "collective" : "op");
    json_string(out, op_info(op->kind)->name);
    fputs(", \"args\": {\"operands\": ", out);
    types_list(out, op->operands, op->num_operands);
    fputs(", \"results\": ", out);
    types_list(out, op->results, op->num_results);
    fprintf(out, ", \"bytes\": %lld, \"loc\": ", (long long)e->bytes);
    char loc[512];
    snprintf(loc, sizeof loc, "%s:%d:%d", op->loc.file ? op->loc.file : "", op->loc.line, op->loc.col);
    json_string(out, loc);
    fputs("}}", out);
}

/* Metadata: the run's name and one named, ordered track per thread. */
static void write_tracks(FILE *out, int pid, const char *name, const InterpTrace *t)
{
    fprintf(out, ",\n{\"ph\": \"M\", \"pid\": %d, \"name\": \"process_name\", \"args\": {\"name\": \"%s\"}}", pid,
            name);
    fprintf(out, ",\n{\"ph\": \"M\", \"pid\": %d, \"name\": \"process_sort_index\", \"args\": {\"sort_index\": %d}}",
            pid, pid);
    int64_t max_device = -1;
    for (int64_t i = 0; i < t->num; i++)
        if (t->events[i].device > max_device)
            max_device = t->events[i].device;
    for (int64_t d = -1; d <= max_device; d++) {
        fprintf(out, ",\n{\"ph\": \"M\", \"pid\": %d, \"tid\": %lld, \"name\": \"thread_name\", \"args\": {\"name\": ",
                pid, (long long)(d + 1));
        if (d < 0)
            fputs("\"host\"}}", out);
        else
            fprintf(out, "\"device %lld\"}}", (long long)d);
        fprintf(out, ",\n{\"ph\": \"M\", \"pid\": %d, \"tid\": %lld, \"name\": \"thread_sort_index\", "
                     "\"args\": {\"sort_index\": %lld}}", pid, (long long)(d + 1), (long long)(d + 1));
    }
}

static double first_start(const InterpTrace *a, const InterpTrace *b)
{
    double origin = 0;
    bool any = false;
    for (int k = 0; k < 2; k++) {
        const InterpTrace *t = k ? b : a;
        for (int64_t i = 0; i < t->num; i++)
            if (!any || t->events[i].start_us < origin) {
                origin = t->events[i].start_us;
                any = true;
            }
    }
    return origin;
}

bool cli_trace_write(DiagEngine *diag, const char *path, const InterpTrace *ref, const InterpTrace *spmd)
{
    FILE *out = fopen(path, "w");
    if (!out) {
        diag_error(diag, (Loc){path, 0, 0}, "cannot write the trace: %s", strerror(errno));
        return false;
    }
    double origin = first_start(ref, spmd);
    fputs("{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n{\"ph\": \"M\", \"pid\": 0, \"name\": \"process_name\", "
          "\"args\": {\"name\": \"shardc run\"}}", out);
    write_tracks(out, 1, "reference run", ref);
    write_tracks(out, 2, "spmd run", spmd);
    for (int k = 0; k < 2; k++) {
        const InterpTrace *t = k ? spmd : ref;
        for (int64_t i = 0; i < t->num; i++)
            write_event(out, k + 1, &t->events[i], origin);
    }
    fputs("\n]}\n", out);
    bool ok = !ferror(out);
    ok &= fclose(out) == 0;
    if (!ok)
        diag_error(diag, (Loc){path, 0, 0}, "cannot write the trace: %s", strerror(errno));
    if (ref->incomplete || spmd->incomplete)
        diag_warning(diag, (Loc){path, 0, 0}, "out of memory while tracing: some ops are missing from the trace");
    return ok;
}
