/* Communication statistics of a partitioned program (--stats) and the
 * per-device view (--emit=devices). */

/* Communication statistics of a partitioned program (--stats). */
#include <stdlib.h>
#include <string.h>
#include "shardc/layout.h"
#include "shardc/partition.h"
#include <stdio.h>

void stats_record(PartitionStats *stats, Arena *arena, CollectiveRecord record)
{
    if (stats->count == stats->cap) {
        int cap = stats->cap ? stats->cap * 2 : 16;
        CollectiveRecord *records = ARENA_ARRAY(arena, CollectiveRecord, cap);
        if (stats->count)
            memcpy(records, stats->records, sizeof(CollectiveRecord) * (size_t)stats->count);
        stats->records = records;
        stats->cap = cap;
    }
    stats->records[stats->count++] = record;
}

typedef struct KindTotal {
    int64_t count;
    int64_t bytes;
} KindTotal;

/* A collective in a loop of unknown trip count is counted once. */
static int64_t runs_of(const CollectiveRecord *r)
{
    return r->executions < 0 ? 1 : r->executions;
}

/* Calls and bytes per run of the program, by kind; the total bytes. */
static int64_t totals_by_kind(const PartitionStats *stats, KindTotal *totals)
{
    int64_t total = 0;
    memset(totals, 0, sizeof(KindTotal) * OP_COUNT);
    for (int i = 0; i < stats->count; i++) {
        const CollectiveRecord *r = &stats->records[i];
        int64_t bytes = r->bytes_per_device * runs_of(r);
        totals[r->kind].count += runs_of(r);
        totals[r->kind].bytes += bytes;
        total += bytes;
    }
    return total;
}

/* What the loop counts mean, when there are loops. */
static void print_loop_note(FILE *out, const PartitionStats *stats)
{
    int looped = 0, unknown = 0;
    for (int i = 0; i < stats->count; i++) {
        looped += stats->records[i].executions != 1;
        unknown += stats->records[i].executions < 0;
    }
    if (looped > unknown)
        fprintf(out, "collectives in loops of static trip count counted per iteration: %d\n", looped - unknown);
    if (unknown)
        fprintf(out, "collectives in loops of unknown trip count, counted once: %d\n", unknown);
}

static void print_axes_json(FILE *out, const Mesh *mesh, const AxisList *axes);

enum { TOP_ROWS = 10 };

/* Largest bytes per run of the program first; ties in program order. */
static int by_bytes(const void *a, const void *b)
{
    const CollectiveRecord *x = *(const CollectiveRecord *const *)a, *y = *(const CollectiveRecord *const *)b;
    int64_t bx = x->bytes_per_device * runs_of(x), by = y->bytes_per_device * runs_of(y);
    return bx != by ? (bx < by ? 1 : -1) : (x < y ? -1 : x > y);
}

/* The collectives that move the most, each with the value it moves and
 * where the op that needed it is: where to look first. */
static void print_top(FILE *out, const PartitionStats *stats)
{
    if (!stats->count)
        return;
    const CollectiveRecord **order = malloc(sizeof *order * (size_t)stats->count);
    if (!order)
        return;
    for (int i = 0; i < stats->count; i++)
        order[i] = &stats->records[i];
    qsort(order, (size_t)stats->count, sizeof *order, by_bytes);
    fputs("top communicators (bytes/device per run, largest first):\n", out);
    for (int i = 0; i < stats->count && i < TOP_ROWS; i++) {
        const CollectiveRecord *r = order[i];
        fprintf(out, "%20lld  %s ", (long long)(r->bytes_per_device * runs_of(r)), op_info(r->kind)->name);
        print_axes_json(out, r->mesh, &r->axes);
        fprintf(out, " of %%%s at %s:%d:%d", r->value, r->loc.file ? r->loc.file : "", r->loc.line, r->loc.col);
        if (r->executions != 1)
            fprintf(out, r->executions < 0 ? " (loop, counted once)" : " (x%lld in loops)", (long long)r->executions);
        fputc('\n', out);
    }
    if (stats->count > TOP_ROWS)
        fprintf(out, "%20s  ... %d more\n", "", stats->count - TOP_ROWS);
    free(order);
}

void stats_print_table(FILE *out, const PartitionStats *stats)
{
    KindTotal totals[OP_COUNT];
    int64_t total = totals_by_kind(stats, totals);
    fprintf(out, "%-20s %8s %20s\n", "collective", "count", "bytes/device");
    int64_t count = 0;
    for (int k = 0; k < OP_COUNT; k++) {
        if (!totals[k].count)
            continue;
        fprintf(out, "%-20s %8lld %20lld\n", op_info((OpKind)k)->name, (long long)totals[k].count,
                (long long)totals[k].bytes);
        count += totals[k].count;
    }
    fprintf(out, "%-20s %8lld %20lld\n", "total", (long long)count, (long long)total);
    print_loop_note(out, stats);
    fprintf(out, "peak local bytes per device: %lld\n", (long long)stats->peak_local_bytes);
    fprintf(out, "full replications: %d\n", stats->full_replications);
    if (stats->predicted)
        fprintf(out, "auto-shard predicted: %lld bytes/device, %.6g s, peak %lld bytes/device\n",
                (long long)stats->predicted_bytes, stats->predicted_seconds, (long long)stats->predicted_peak_bytes);
    print_top(out, stats);
}

static void print_axes_json(FILE *out, const Mesh *mesh, const AxisList *axes)
{
    AxisList merged = {0};
    for (int i = 0; i < axes->count; i++)
        axis_list_add_or_merge(&merged, axes->axes[i], mesh);
    fputc('[', out);
    for (int i = 0; i < merged.count; i++) {
        char buf[128];
        axis_ref_format(buf, sizeof buf, mesh, merged.axes[i]);
        fprintf(out, "%s\"%s\"", i ? "," : "", buf);
    }
    fputc(']', out);
}

void stats_print_json(FILE *out, const PartitionStats *stats)
{
    KindTotal totals[OP_COUNT];
    int64_t total = totals_by_kind(stats, totals);
    fputs("{\"collectives\":[", out);
    for (int i = 0; i < stats->count; i++) {
        const CollectiveRecord *r = &stats->records[i];
        fprintf(out, "%s{\"kind\":\"%s\",\"axes\":", i ? "," : "", op_info(r->kind)->name);
        print_axes_json(out, r->mesh, &r->axes);
        fprintf(out, ",\"bytes_per_device\":%lld,\"op\":\"%%%s\",\"loc\":\"%s:%d:%d\"", (long long)r->bytes_per_device,
                r->value, r->loc.file ? r->loc.file : "", r->loc.line, r->loc.col);
        if (r->executions < 0)
            fputs(",\"executions\":null}", out);
        else
            fprintf(out, ",\"executions\":%lld}", (long long)r->executions);
    }
    fprintf(out, "],\"total_bytes_per_device\":%lld,\"count\":%d,\"peak_local_bytes\":%lld,\"full_replications\":%d",
            (long long)total, stats->count, (long long)stats->peak_local_bytes, stats->full_replications);
    if (stats->predicted) /* --auto-shard's model, beside the actual figures above */
        fprintf(out, ",\"auto_shard\":{\"predicted_bytes_per_device\":%lld,\"actual_bytes_per_device\":%lld,"
                "\"predicted_seconds\":%.6g,\"predicted_peak_bytes\":%lld}",
                (long long)stats->predicted_bytes, (long long)total, stats->predicted_seconds,
                (long long)stats->predicted_peak_bytes);
    fputs("}\n", out);
}

void stats_print_reasons(FILE *out, const PartitionStats *stats)
{
    fputs("# collectives\n", out);
    for (int i = 0; i < stats->count; i++) {
        const CollectiveRecord *r = &stats->records[i];
        fprintf(out, "%%%s = %s over ", r->result ? r->result : r->value, op_info(r->kind)->name);
        print_axes_json(out, r->mesh, &r->axes);
        fprintf(out, ", %lld bytes/device, at %s:%d:%d\n    %s\n", (long long)r->bytes_per_device,
                r->loc.file ? r->loc.file : "", r->loc.line, r->loc.col, r->reason ? r->reason : "");
    }
}

/* --emit=devices: the per-device view of partitioned programs — each
 * device's mesh coordinates, the global slice each argument and result
 * shard covers, and the concrete device group of each collective. */

static void print_slice(FILE *out, const Sharding *s, const TensorType *t, int64_t position)
{
    int64_t offsets[SHARDC_MAX_RANK], sizes[SHARDC_MAX_RANK], local[SHARDC_MAX_RANK];
    sharding_block(s, t, position, offsets, sizes);
    sharding_local_dims(s, t, local);
    bool padded = false;
    fputc('[', out);
    for (int d = 0; d < t->rank; d++) {
        fprintf(out, "%s%lld:%lld", d ? ", " : "", (long long)offsets[d], (long long)(offsets[d] + sizes[d]));
        padded |= sizes[d] != local[d];
    }
    fputc(']', out);
    /* An uneven dim's shard holds padding past the tensor's end. */
    for (int d = 0; padded && d < t->rank; d++)
        fprintf(out, "%s%lld", d ? "x" : " padded to ", (long long)local[d]);
}

static void print_group(FILE *out, const Mesh *mesh, const Op *op, int64_t position)
{
    const AttrValue *axes = op_attr_get(op, ATTR_KEY_AXES);
    AxisRef refs[16];
    int n = 0;
    for (int i = 0; axes && i < axes->u.array.count && n < 16; i++)
        if (axis_ref_parse(mesh, axes->u.array.items[i]->u.s, &refs[n]))
            n++;
    int64_t size = axis_refs_size(refs, n);
    fprintf(out, "    %%%s = %s: group {", op->results[0]->name, op_info(op->kind)->name);
    for (int64_t k = 0; k < size; k++)
        fprintf(out, "%s%lld", k ? ", " : "", (long long)mesh_device_id(mesh, mesh_group_member(mesh, position, refs, n, k)));
    fputs("}\n", out);
}

typedef struct DeviceView {
    FILE *out;
    const Mesh *mesh;
    int64_t position;
} DeviceView;

static bool print_collective_group(Op *op, void *user)
{
    const DeviceView *dv = user;
    if (op_info(op->kind)->op_class == OPC_COLLECTIVE && op->kind != OP_COLLECTIVE_PERMUTE)
        print_group(dv->out, dv->mesh, op, dv->position);
    return true;
}

static void print_device(FILE *out, const Op *smap, const Mesh *mesh, int64_t position)
{
    fprintf(out, "  device %lld (", (long long)mesh_device_id(mesh, position));
    for (int k = 0; k < mesh->num_axes; k++)
        fprintf(out, "%s%s=%lld", k ? ", " : "", mesh->axes[k].name, (long long)mesh_coord(mesh, position, k));
    fputs("):\n", out);
    for (int i = 0; i < smap->num_operands; i++) {
        fprintf(out, "    arg %%%s ", smap->operands[i]->name);
        print_slice(out, op_attr_sharding_at(smap, ATTR_KEY_IN_SPECS, i), &smap->operands[i]->type, position);
        fputc('\n', out);
    }
    for (int j = 0; j < smap->num_results; j++) {
        fprintf(out, "    result %d ", j);
        print_slice(out, op_attr_sharding_at(smap, ATTR_KEY_OUT_SPECS, j), &smap->results[j]->type, position);
        fputc('\n', out);
    }
    /* Not in nested shard_maps: their groups are of their own mesh. */
    DeviceView dv = {out, mesh, position};
    ir_walk(smap->region, &(IrWalker){.pre = print_collective_group, .user = &dv, .scope = IR_WALK_GLOBAL});
}

/* The mesh of a function partitioned into one shard_map, or NULL. */
static const Mesh *spmd_mesh(const Module *m, const Func *f)
{
    const Op *smap = f->body->first;
    return smap && smap->kind == OP_SHARD_MAP && !smap->next ? op_attr_mesh(m, smap, ATTR_KEY_MESH) : NULL;
}

bool partition_check_device(const Module *m, int device, DiagEngine *diag)
{
    const Mesh *last = NULL;
    for (int i = 0; i < m->num_funcs && device >= 0; i++) {
        const Mesh *mesh = spmd_mesh(m, m->funcs[i]);
        if (!mesh)
            continue;
        last = mesh;
        int64_t p = mesh_position_of(mesh, device);
        if (p >= 0 && p < mesh->num_devices)
            return true;
    }
    if (device < 0)
        return true;
    if (!last)
        diag_error(diag, (Loc){m->file, 0, 0}, "--device=%d: no function is partitioned onto a mesh", device);
    else
        diag_error(diag, (Loc){m->file, 0, 0}, "--device=%d: mesh @%s has device ids 0 to %lld%s", device,
                   last->name, (long long)last->num_devices - 1, last->device_ids ? " (in its device order)" : "");
    return false;
}

void partition_print_devices(FILE *out, const Module *m, int device)
{
    for (int i = 0; i < m->num_funcs; i++) {
        const Op *smap = m->funcs[i]->body->first;
        const Mesh *mesh = spmd_mesh(m, m->funcs[i]);
        if (!mesh)
            continue;
        fprintf(out, "func @%s on @%s (%lld devices)\n", m->funcs[i]->name, mesh->name, (long long)mesh->num_devices);
        for (int64_t p = 0; p < mesh->num_devices; p++)
            if (device < 0 || mesh_device_id(mesh, p) == device)
                print_device(out, smap, mesh, p);
    }
}
