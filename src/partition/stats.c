/* Communication statistics of a partitioned program (--stats), printed
 * from its cost (cost.c) and the partitioner's records of why each
 * collective is there, and the per-device view (--emit=devices). */
#include <stdlib.h>
#include <string.h>
#include "shardc/layout.h"
#include "shardc/partition.h"
#include <stdio.h>

void stats_record(PartitionStats *stats, Arena *arena, CollectiveRecord record)
{
    if (stats->count == stats->cap) {
        int cap = stats->cap ? stats->cap * 2 : 16;
        StatsRecord *records = ARENA_ARRAY(arena, StatsRecord, cap);
        if (stats->count)
            memcpy(records, stats->records, sizeof(StatsRecord) * (size_t)stats->count);
        stats->records = records;
        stats->cap = cap;
    }
    stats->records[stats->count++] = (StatsRecord){
        record.kind, record.axes.count, record.mesh,
        arena_memdup(arena, record.axes.axes, (size_t)record.axes.count, sizeof(AxisRef)),
        record.bytes_per_device, record.value, record.result, record.reason, record.loc, record.executions};
}

bool stats_count(PartitionStats *stats, const Module *m, const char *counted)
{
    bool ok = true;
    for (int i = 0; i < m->num_funcs; i++)
        if (!counted || strcmp(m->funcs[i]->name, counted) == 0)
            ok &= stats_count_program(&stats->cost, m, m->funcs[i]);
    return ok;
}

void stats_free(PartitionStats *stats) { stats_cost_free(&stats->cost); }

/* What the loop and branch counts mean, when there are loops or branches. */
static void print_loop_note(FILE *out, const ProgramCost *cost)
{
    int looped = 0;
    for (int i = 0; i < cost->num_items; i++)
        looped += cost->items[i].executions > 1;
    if (looped)
        fprintf(out, "collectives in loops of static trip count counted per iteration: %d\n", looped);
    if (cost->unknown_trips)
        fprintf(out, "collectives in loops of unknown trip count, counted once: %d\n", cost->unknown_trips);
    if (cost->in_branches)
        fprintf(out, "collectives in case branches, the costliest branch counted: %d\n", cost->in_branches);
}

static void print_axes_json(FILE *out, const Mesh *mesh, const AxisList *axes);

enum { TOP_ROWS = 10 };

/* Largest bytes per run of the program first; ties in program order. */
static int by_bytes(const void *a, const void *b)
{
    const CostItem *x = a, *y = b;
    return x->bytes != y->bytes ? (x->bytes < y->bytes ? 1 : -1) : (x->op->id > y->op->id) - (x->op->id < y->op->id);
}

/* The partitioner's record of the collective that made op, or NULL: the
 * program's own collectives (shard_map bodies, partition functions) have none. */
static const StatsRecord *record_of(const PartitionStats *stats, const Op *op)
{
    for (int i = 0; i < stats->count; i++)
        if (stats->records[i].result && strcmp(stats->records[i].result, op->results[0]->name) == 0)
            return &stats->records[i];
    return NULL;
}

/* The value a collective moves and the op that needed it: the record's
 * (the resharded value, where its user is), else the op's own. */
static void print_origin(FILE *out, const PartitionStats *stats, const Op *op, bool json)
{
    const StatsRecord *r = record_of(stats, op);
    const char *value = r ? r->value : op->num_operands ? op->operands[0]->name : op->results[0]->name;
    Loc loc = r ? r->loc : op->loc;
    fprintf(out, json ? "\"op\":\"%%%s\",\"loc\":\"%s:%d:%d\"" : "of %%%s at %s:%d:%d", value,
            loc.file ? loc.file : "", loc.line, loc.col);
    if (!r && !json)
        fputs(" (in the program)", out);
}

static void print_op_axes(FILE *out, const Op *op)
{
    const AttrValue *axes = op_attr_get(op, ATTR_KEY_AXES);
    fputc('[', out);
    for (int i = 0; axes && axes->kind == ATTR_ARRAY && i < axes->u.array.count; i++)
        fprintf(out, "%s\"%s\"", i ? "," : "", axes->u.array.items[i]->kind == ATTR_STRING ? axes->u.array.items[i]->u.s : "?");
    fputc(']', out);
}

/* The collectives that move the most, each with the value it moves and
 * where the op that needed it is: where to look first. */
static void print_top(FILE *out, const PartitionStats *stats)
{
    const ProgramCost *cost = &stats->cost;
    if (!cost->num_items)
        return;
    CostItem *order = malloc(sizeof *order * (size_t)cost->num_items);
    if (!order)
        return;
    memcpy(order, cost->items, sizeof *order * (size_t)cost->num_items);
    qsort(order, (size_t)cost->num_items, sizeof *order, by_bytes);
    fputs("top communicators (bytes received/device per run, largest first):\n", out);
    for (int i = 0; i < cost->num_items && i < TOP_ROWS; i++) {
        fprintf(out, "%20lld  %s ", (long long)order[i].bytes, op_info(order[i].op->kind)->name);
        print_op_axes(out, order[i].op);
        fputc(' ', out);
        print_origin(out, stats, order[i].op, false);
        if (order[i].executions != 1)
            fprintf(out, order[i].executions < 0 ? " (loop, counted once)" : " (x%lld in loops)",
                    (long long)order[i].executions);
        fputc('\n', out);
    }
    if (cost->num_items > TOP_ROWS)
        fprintf(out, "%20s  ... %d more\n", "", cost->num_items - TOP_ROWS);
    free(order);
}

void stats_print_tally(FILE *out, const CostTally *t)
{
    fprintf(out, "%-20s %8s %20s %20s\n", "collective", "count", "received/device", "sent/device");
    int64_t count = 0;
    for (int k = 0; k < COST_KINDS; k++) {
        if (!t->calls[k])
            continue;
        fprintf(out, "%-20s %8lld %20lld %20lld\n", op_info(cost_slot_kind(k))->name, (long long)t->calls[k],
                (long long)cost_tally_per_device(t, k, false), (long long)cost_tally_per_device(t, k, true));
        count += t->calls[k];
    }
    fprintf(out, "%-20s %8lld %20lld %20lld\n", "total", (long long)count, (long long)cost_tally_per_device(t, -1, false),
            (long long)cost_tally_per_device(t, -1, true));
}

/* The table `shardc --stats` and `shardc run --stats` both print. */
void stats_print_cost(FILE *out, const ProgramCost *cost)
{
    const CostTally *t = &cost->tally;
    stats_print_tally(out, t);
    print_loop_note(out, cost);
    fprintf(out, "peak live bytes per device: %lld\n", (long long)cost->peak_live_bytes);
    if (t->overflow)
        fputs("(some figure passed 2^63 bytes or could not be counted: the figures are lower bounds)\n", out);
}

void stats_print_table(FILE *out, const PartitionStats *stats)
{
    stats_print_cost(out, &stats->cost);
    fprintf(out, "full replications: %d\n", stats->full_replications);
    if (stats->predicted)
        fprintf(out, "auto-shard predicted: %lld bytes/device, %.6g s, peak %lld bytes/device\n",
                (long long)stats->predicted_bytes, stats->predicted_seconds, (long long)stats->predicted_peak_bytes);
    print_top(out, stats);
}

static void print_axes_json(FILE *out, const Mesh *mesh, const AxisList *axes)
{
    AxisList merged;
    merged.count = 0;
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
    const ProgramCost *cost = &stats->cost;
    int64_t total = cost_tally_per_device(&cost->tally, -1, false);
    fputs("{\"collectives\":[", out);
    for (int i = 0; i < cost->num_items; i++) {
        const CostItem *it = &cost->items[i];
        fprintf(out, "%s{\"kind\":\"%s\",\"axes\":", i ? "," : "", op_info(it->op->kind)->name);
        print_op_axes(out, it->op);
        int64_t runs = it->executions < 0 ? 1 : it->executions;
        fprintf(out, ",\"bytes_per_device\":%lld,", (long long)(runs ? it->bytes / runs : 0));
        print_origin(out, stats, it->op, true);
        if (it->executions < 0)
            fputs(",\"executions\":null}", out);
        else
            fprintf(out, ",\"executions\":%lld}", (long long)it->executions);
    }
    fprintf(out, "],\"total_bytes_per_device\":%lld,\"total_bytes_sent_per_device\":%lld,\"count\":%d,"
            "\"peak_live_bytes_per_device\":%lld,\"full_replications\":%d",
            (long long)total, (long long)cost_tally_per_device(&cost->tally, -1, true), cost->num_items,
            (long long)cost->peak_live_bytes, stats->full_replications);
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
        const StatsRecord *r = &stats->records[i];
        fprintf(out, "%%%s = %s over ", r->result ? r->result : r->value, op_info(r->kind)->name);
        AxisList axes = {.count = r->num_axes};
        memcpy(axes.axes, r->axes, sizeof(AxisRef) * (size_t)r->num_axes);
        print_axes_json(out, r->mesh, &axes);
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
        /* One device: looked up, not searched for among up to 2^31 devices. */
        int64_t one = device >= 0 ? mesh_position_of(mesh, device) : -1;
        if (one >= 0 && one < mesh->num_devices)
            print_device(out, smap, mesh, one);
        for (int64_t p = 0; device < 0 && p < mesh->num_devices; p++)
            print_device(out, smap, mesh, p);
    }
}
