/* What one run of a program costs per device, counted from its text
 * (docs/partitioning.md, "Cost metrics"): the bytes every collective of its
 * shard_map bodies sends and receives by the one definition of
 * shardc/cost.h, and the most bytes live at once in a body. `shardc
 * --stats` counts the partitioned program with it, `shardc run --stats` the
 * program it runs, beside what the run measured with the same definition. */
#include <stdlib.h>
#include <string.h>
#include "shardc/layout.h"
#include "shardc/partition.h"

typedef struct Counter {
    const Module *m;
    ProgramCost *cost;
    const Mesh *mesh;       /* of the innermost shard_map; NULL outside */
    int64_t times;          /* runs of the current block per run of the program */
    bool unknown;           /* inside a loop of unknown trip count */
    bool in_case;
} Counter;

static void count_block(Counter *c, const Block *b);

static int64_t value_bytes(const Value *v)
{
    int64_t n = 0, bytes;
    if (!type_num_elements(&v->type, &n) || __builtin_mul_overflow(n, (int64_t)dtype_size(v->type.dtype), &bytes))
        return INT64_MAX;
    return bytes;
}

static int64_t times_bytes(Counter *c, int64_t bytes)
{
    int64_t total;
    if (__builtin_mul_overflow(bytes, c->times, &total)) {
        c->cost->tally.overflow = true;
        return INT64_MAX;
    }
    return total;
}

/* The op's group axes; false if it names none this mesh has. */
static int group_axes(const Mesh *mesh, const Op *op, AxisRef *refs)
{
    const AttrValue *axes = op_attr_get(op, ATTR_KEY_AXES);
    int n = 0;
    for (int i = 0; axes && axes->kind == ATTR_ARRAY && i < axes->u.array.count && n < 16; i++)
        if (axes->u.array.items[i]->kind == ATTR_STRING && axis_ref_parse(mesh, axes->u.array.items[i]->u.s, &refs[n]))
            n++;
    return n;
}

/* ppermute: a device receives when some pair names it as destination of
 * another member, and sends to each other member it is the source of. */
static void count_ppermute(Counter *c, const Op *op, int slot, int64_t in, int64_t out)
{
    AxisRef refs[16];
    int nr = group_axes(c->mesh, op, refs);
    const AttrValue *perm = op_attr_get(op, ATTR_KEY_PERM);
    for (int64_t p = 0; p < c->mesh->num_devices; p++) {
        int64_t self = mesh_group_index(c->mesh, p, refs, nr), pair[2], sent = 0, received = 0;
        for (int i = 0; perm && perm->kind == ATTR_ARRAY && i < perm->u.array.count; i++) {
            if (attr_int_array(perm->u.array.items[i], pair, 2) != 2 || pair[0] == pair[1])
                continue;
            sent += pair[0] == self ? in : 0;
            received = pair[1] == self ? out : received;
        }
        cost_tally_add(&c->cost->tally, mesh_device_id(c->mesh, p), slot, times_bytes(c, sent),
                       times_bytes(c, received));
    }
}

/* collective_permute: each device takes its target block from the first
 * device holding it under the source sharding (as the interpreter does). */
static void count_collective_permute(Counter *c, const Op *op, int slot, int64_t in, int64_t out)
{
    const Sharding *from = op_attr_sharding(op, ATTR_KEY_SOURCE), *to = op_attr_sharding(op, ATTR_KEY_TARGET);
    int64_t devices = c->mesh->num_devices, blocks = from ? sharding_num_blocks(from) : 0;
    int64_t *holder = to ? calloc((size_t)blocks + 1, sizeof *holder) : NULL;
    int64_t *sends = holder ? calloc((size_t)devices, sizeof *sends) : NULL;
    if (!sends) {
        free(holder);
        c->cost->tally.overflow = true; /* not counted: say the figure is incomplete */
        return;
    }
    for (int64_t p = devices - 1; p >= 0; p--)
        holder[sharding_block_id(from, p)] = p;
    for (int64_t p = 0; p < devices; p++) {
        int64_t source = holder[sharding_block_id(to, p)];
        sends[source] += source != p;
        cost_tally_add(&c->cost->tally, mesh_device_id(c->mesh, p), slot, 0, times_bytes(c, source != p ? out : 0));
    }
    for (int64_t p = 0; p < devices; p++)
        cost_tally_add(&c->cost->tally, mesh_device_id(c->mesh, p), slot, times_bytes(c, sends[p] * in), 0);
    free(holder);
    free(sends);
}

static void add_item(Counter *c, const Op *op, int64_t bytes)
{
    ProgramCost *cost = c->cost;
    if (cost->num_items == cost->cap_items) {
        int cap = cost->cap_items ? 2 * cost->cap_items : 16;
        CostItem *grown = realloc(cost->items, (size_t)cap * sizeof *grown);
        if (!grown) {
            cost->tally.overflow = true;
            return;
        }
        cost->items = grown;
        cost->cap_items = cap;
    }
    cost->items[cost->num_items++] = (CostItem){op, bytes, c->unknown ? -1 : c->times};
}

static void count_collective(Counter *c, const Op *op)
{
    int slot = cost_kind_slot(op->kind);
    if (slot < 0 || !c->mesh)
        return;
    int64_t in = op->num_operands ? value_bytes(op->operands[0]) : 0, out = value_bytes(op->results[0]);
    c->cost->tally.calls[slot] += c->times;
    c->cost->unknown_trips += c->unknown;
    c->cost->in_branches += c->in_case;
    if (op->kind == OP_PPERMUTE || op->kind == OP_COLLECTIVE_PERMUTE) {
        add_item(c, op, times_bytes(c, out));
        return op->kind == OP_PPERMUTE ? count_ppermute(c, op, slot, in, out)
                                       : count_collective_permute(c, op, slot, in, out);
    }
    AxisRef refs[16];
    int64_t n = axis_refs_size(refs, group_axes(c->mesh, op, refs));
    int64_t bytes = times_bytes(c, cost_collective_received(op->kind, n, in, out));
    if (op->kind != OP_AXIS_INDEX) /* a device's own index: no communication to list */
        add_item(c, op, bytes);
    for (int64_t p = 0; p < c->mesh->num_devices; p++)
        cost_tally_add(&c->cost->tally, mesh_device_id(c->mesh, p), slot, bytes, bytes);
}

/* Region `k` of op, run `runs` times per run of op (-1: unknown). */
static void count_region(Counter *c, const Op *op, int k, int64_t runs)
{
    Counter inner = *c;
    if (runs < 0 || __builtin_mul_overflow(c->times, runs, &inner.times)) {
        inner.times = c->times;
        inner.unknown = true;
    }
    count_block(&inner, op->regions[k]);
}

/* A while's body runs its trip count, its condition once more. */
static void count_while(Counter *c, const Op *op)
{
    int64_t trips = -1;
    if (op->num_regions != 2 || !partition_static_trip_count(op, &trips))
        trips = -1;
    count_region(c, op, 0, trips < 0 ? -1 : trips + 1);
    if (op->num_regions == 2)
        count_region(c, op, 1, trips);
}

/* Which branch runs is data (and may differ by device): the costliest one
 * is counted. */
static void count_case(Counter *c, const Op *op)
{
    ProgramCost best = {0}, branch = {0};
    int64_t most = -1;
    for (int k = 0; k < op->num_regions; k++) {
        memset(&branch, 0, sizeof branch);
        if (!cost_tally_reserve(&branch.tally, c->cost->tally.devices))
            break;
        Counter inner = *c;
        inner.cost = &branch;
        inner.in_case = true;
        count_block(&inner, op->regions[k]);
        int64_t bytes = cost_tally_per_device(&branch.tally, -1, false);
        if (bytes > most) {
            most = bytes;
            stats_cost_free(&best);
            best = branch;
        } else {
            stats_cost_free(&branch);
        }
    }
    cost_tally_merge(&c->cost->tally, &best.tally);
    c->cost->unknown_trips += best.unknown_trips;
    c->cost->in_branches += best.in_branches;
    for (int i = 0; i < best.num_items; i++) {
        Counter keep = *c;
        keep.times = best.items[i].executions < 0 ? c->times : best.items[i].executions;
        keep.unknown = best.items[i].executions < 0;
        add_item(&keep, best.items[i].op, best.items[i].bytes);
    }
    stats_cost_free(&best);
}

static void count_op(Counter *c, const Op *op)
{
    if (op->kind == OP_SHARD_MAP) {
        Counter inner = *c;
        inner.mesh = op_attr_mesh(c->m, op, ATTR_KEY_MESH);
        if (inner.mesh && !cost_tally_reserve(&c->cost->tally, inner.mesh->num_devices))
            c->cost->tally.overflow = true;
        else if (inner.mesh)
            count_block(&inner, op->region);
        return;
    }
    if (op->kind == OP_WHILE)
        return count_while(c, op);
    if (op->kind == OP_CASE)
        return count_case(c, op);
    if (op_info(op->kind)->op_class == OPC_COLLECTIVE)
        return count_collective(c, op);
    for (int k = 0; k < op->num_regions; k++) /* once per run of the op: named computations */
        count_block(c, op->regions[k]);
}

static void count_block(Counter *c, const Block *b)
{
    for (const Op *op = b->first; op; op = op->next)
        count_op(c, op);
}

/* ---- peak live bytes --------------------------------------------------------------------------- */

/* A marker for values a block returns: live to its end. */
static const Op block_end;

/* Whether v is a result of an op of b (arguments are not freed). */
static bool made_in(const Value *v, const Block *b) { return v->def && v->def->parent == b; }

/* Uses of b's own values by op, inside its regions too, are op's. */
static void mark_uses(const Op **last_use, const Block *b, const Op *top, const Op *op)
{
    for (int i = 0; i < op->num_operands; i++)
        if (made_in(op->operands[i], b))
            last_use[op->operands[i]->id] = top;
    for (int k = 0; k < op->num_regions; k++) {
        const Block *r = op->regions[k];
        for (const Op *inner = r->first; inner; inner = inner->next)
            mark_uses(last_use, b, top, inner);
        for (int i = 0; i < r->num_returns; i++)
            if (made_in(r->returns[i], b))
                last_use[r->returns[i]->id] = top;
    }
}

/* Subtract the bytes of b's values whose last use is op. */
static int64_t free_dead(const Op **last_use, const Block *b, const Op *top, const Op *op, int64_t live)
{
    for (int i = 0; i < op->num_operands; i++)
        if (made_in(op->operands[i], b) && last_use[op->operands[i]->id] == top) {
            live -= value_bytes(op->operands[i]);
            last_use[op->operands[i]->id] = NULL;
        }
    for (int k = 0; k < op->num_regions; k++)
        for (const Op *inner = op->regions[k]->first; inner; inner = inner->next)
            live = free_dead(last_use, b, top, inner, live);
    return live;
}

static int64_t sum_sat(int64_t a, int64_t b)
{
    int64_t s;
    return __builtin_add_overflow(a, b, &s) ? INT64_MAX : s;
}

/* Most bytes live at once in b, `live` on entry: every value from its op
 * to its last use (a value nothing uses dies at once), an op's operands
 * and results at the same time, and an op's regions' own values on top of
 * what is live around it. Arguments are not freed: the caller's. */
static int64_t block_peak(const Op **last_use, const Block *b, int64_t live)
{
    for (const Op *op = b->first; op; op = op->next) {
        for (int j = 0; j < op->num_results; j++)
            last_use[op->results[j]->id] = op;
        mark_uses(last_use, b, op, op);
    }
    for (int i = 0; i < b->num_returns; i++)
        if (made_in(b->returns[i], b))
            last_use[b->returns[i]->id] = &block_end;
    int64_t peak = live;
    for (const Op *op = b->first; op; op = op->next) {
        for (int j = 0; j < op->num_results; j++)
            live = sum_sat(live, value_bytes(op->results[j]));
        int64_t inner = 0;
        for (int k = 0; k < op->num_regions; k++) {
            int64_t r = block_peak(last_use, op->regions[k], 0);
            inner = r > inner ? r : inner;
        }
        peak = sum_sat(live, inner) > peak ? sum_sat(live, inner) : peak;
        live = free_dead(last_use, b, op, op, live);
        for (int j = 0; j < op->num_results; j++)
            if (last_use[op->results[j]->id] == op) { /* unused */
                live -= value_bytes(op->results[j]);
                last_use[op->results[j]->id] = NULL;
            }
    }
    return peak;
}

typedef struct PeakWalk {
    const Op **last_use;
    int64_t peak;
} PeakWalk;

static bool shard_map_peak(Op *op, void *user)
{
    PeakWalk *w = user;
    if (op->kind != OP_SHARD_MAP)
        return true;
    int64_t args = 0;
    for (int i = 0; i < op->region->num_args; i++)
        args = sum_sat(args, value_bytes(op->region->args[i]));
    int64_t peak = block_peak(w->last_use, op->region, args);
    w->peak = peak > w->peak ? peak : w->peak;
    return true;
}

bool stats_count_program(ProgramCost *cost, const Module *m, const Func *f)
{
    Counter c = {m, cost, NULL, 1, false, false};
    count_block(&c, f->body);
    PeakWalk w = {calloc((size_t)m->num_values + 1, sizeof *w.last_use), cost->peak_live_bytes};
    if (!w.last_use)
        return false;
    ir_walk(f->body, &(IrWalker){.pre = shard_map_peak, .user = &w, .scope = IR_WALK_ALL});
    free(w.last_use);
    cost->peak_live_bytes = w.peak;
    return !cost->tally.overflow;
}

void stats_cost_free(ProgramCost *cost)
{
    cost_tally_free(&cost->tally);
    free(cost->items);
    memset(cost, 0, sizeof *cost);
}
