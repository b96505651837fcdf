/* Partitioning while, case and optimization_barrier. A region is
 * partitioned once, not per iteration: its ops go through the partitioner
 * like any others into the region of the per-device op. Each carried value
 * (a while position, a case result) is fixed to the layout of the op's
 * result, which propagation agreed on along its data-flow edge; operands
 * are resharded to it before the loop, returned values at the end of the
 * region. Values a region uses from outside keep their versions, and the
 * versions (reshards) made inside a region are forgotten when it ends:
 * they do not dominate the code after the op. */
#include <string.h>
#include "partition/partition_ctx.h"

static bool value_in_block(const Value *v, const Block *b)
{
    const Block *home = v->def ? v->def->parent : v->block;
    for (; home; home = home->parent_op ? home->parent_op->parent : NULL)
        if (home == b)
            return true;
    return false;
}

/* Whether v is defined in one of the regions of op. */
static bool defined_inside(const Value *v, const Op *op)
{
    for (int k = 0; k < op->num_regions; k++)
        if (op->regions[k] && value_in_block(v, op->regions[k]))
            return true;
    return false;
}

HoistPoint *pc_hoist_target(const PartitionCtx *pc, const Value *from)
{
    const HoistPoint *inner = pc->hoist;
    bool in_loop_region = false;
    for (int k = 0; inner && k < inner->loop->num_regions; k++)
        in_loop_region |= inner->loop->regions[k] == pc->body;
    /* Only straight from a loop's region: out of a case branch inside it,
     * a reshard would run whichever branch is taken. */
    if (!in_loop_region || defined_inside(from, inner->loop))
        return NULL;
    HoistPoint *at = pc->hoist;
    while (at->outer && !defined_inside(from, at->outer->loop))
        at = at->outer;
    return at;
}

/* Drop every version whose value lives in (or under) region block b. */
static void forget_versions(PartitionCtx *pc, const Block *b)
{
    for (int id = 0; id < pc->num_global_values; id++)
        for (LocalVersion **v = &pc->versions[id]; *v;)
            if (value_in_block((*v)->local, b))
                *v = (*v)->next;
            else
                v = &(*v)->next;
}

/* A carried value keeps its result's layout, padded shards included: the
 * region's ops see padded blocks like any others (masked where they
 * reduce over the padding). */
static bool carried_layout(PartitionCtx *pc, const Op *op, const Value *global, DimAxes *out)
{
    (void)pc;
    (void)op;
    pc_layout_of(out, global);
    return true;
}

static Value *carried_local(PartitionCtx *pc, const Op *op, const Value *global, const Value *carrier)
{
    DimAxes layout;
    if (!carried_layout(pc, op, carrier, &layout))
        return NULL;
    pc->reason = pc_printf(pc, "%%%s carried through '%s' as %s", global->name, op_info(op->kind)->name,
                           pc_format_layout(pc, &layout));
    return pc_local_as(pc, global, &layout, op->loc);
}

/* Region k of `op` partitioned into a region of `local`: arguments laid
 * out as the carriers, returned values resharded to them. */
static bool partition_region(PartitionCtx *pc, const Op *op, Op *local, int k, Value *const *carriers)
{
    const Block *src = op->regions[k];
    Block *b = ARENA_NEW(&pc->module->arena, Block);
    b->parent_func = pc->body->parent_func;
    b->parent_op = local;
    local->regions[k] = b;
    b->num_args = src->num_args;
    b->args = ARENA_ARRAY(&pc->module->arena, Value *, src->num_args + 1);
    for (int i = 0; i < src->num_args && pc->ok; i++) {
        DimAxes layout;
        if (!carried_layout(pc, op, carriers[i], &layout))
            return false;
        b->args[i] = pc_new_value(pc, src->args[i]->name, pc_local_type(pc, &src->args[i]->type, &layout), op->loc);
        b->args[i]->block = b;
        b->args[i]->index = i;
        pc_add_version(pc, src->args[i], b->args[i], &layout);
    }
    Block *outer = pc->body;
    PaddingMask *masks = pc->masks;
    pc->body = b;
    for (Op *inner = src->first; inner && pc->ok; inner = inner->next) {
        arena_reset(&pc->scratch);
        pc_partition_op(pc, inner);
    }
    b->num_returns = src->num_returns;
    b->returns = ARENA_ARRAY(&pc->module->arena, Value *, src->num_returns + 1);
    b->return_loc = src->return_loc;
    bool is_cond = op->kind == OP_WHILE && k == 0;
    for (int i = 0; i < src->num_returns && pc->ok; i++)
        b->returns[i] = carried_local(pc, op, src->returns[i], is_cond ? src->returns[i] : carriers[i]);
    pc->body = outer;
    forget_versions(pc, b);
    pc->masks = masks; /* the region's masks do not dominate the code after it */
    return pc->ok;
}

/* The per-device op: operands laid out as `carriers` (all of them for a
 * while and a barrier; the index, replicated, for a case). */
static Op *local_op(PartitionCtx *pc, const Op *op, int num_carried)
{
    Value **operands = ARENA_ARRAY(&pc->module->arena, Value *, op->num_operands + 1);
    for (int i = 0; i < op->num_operands; i++) {
        const Value *carrier = i < num_carried ? op->results[i] : op->operands[i];
        if (!(operands[i] = carried_local(pc, op, op->operands[i], carrier)))
            return NULL;
    }
    Op *local = pc_append_op(pc, op->kind, op->loc, operands, op->num_operands);
    local->num_regions = op->num_regions;
    local->regions = ARENA_ARRAY(&pc->module->arena, Block *, op->num_regions + 1);
    local->num_results = op->num_results;
    local->results = ARENA_ARRAY(&pc->module->arena, Value *, op->num_results + 1);
    return local;
}

static void bind_local_results(PartitionCtx *pc, const Op *op, Op *local)
{
    for (int i = 0; i < op->num_results && pc->ok; i++) {
        DimAxes layout;
        if (!carried_layout(pc, op, op->results[i], &layout))
            return;
        Value *r = pc_new_value(pc, op->results[i]->name, pc_local_type(pc, &op->results[i]->type, &layout),
                                op->loc);
        r->def = local;
        r->index = i;
        local->results[i] = r;
        pc_add_version(pc, op->results[i], r, &layout);
    }
}

/* ---- static trip counts, for --stats ---- */

/* The integer a scalar constant or full holds. */
static bool constant_int(const Value *v, int64_t *out)
{
    const Op *def = v ? v->def : NULL;
    if (!def || (def->kind != OP_CONSTANT && def->kind != OP_FULL) || v->type.rank != 0)
        return false;
    const AttrValue *value = op_attr_get(def, ATTR_KEY_VALUE);
    if (!value || value->kind != ATTR_INT)
        return false;
    *out = value->u.i;
    return true;
}

/* The loop's value of cond operand v: a constant, or a carried value the
 * body returns unchanged whose initial value is one (JAX's fori_loop
 * carries its upper bound). */
static bool loop_invariant_int(const Op *w, const Value *v, int64_t *out)
{
    if (constant_int(v, out))
        return true;
    const Block *cond = w->regions[0], *body = w->regions[1];
    if (!v || v->def || v->block != cond)
        return false;
    int k = v->index;
    return k < w->num_operands && k < body->num_returns && body->returns[k] == body->args[k] &&
           constant_int(w->operands[k], out);
}

/* Carried value k steps by a positive constant each iteration. */
static bool counter_step(const Op *w, int k, int64_t *step)
{
    const Block *body = w->regions[1];
    const Value *next = k < body->num_returns ? body->returns[k] : NULL;
    const Op *add = next ? next->def : NULL;
    if (!add || add->kind != OP_ADD || add->num_operands != 2)
        return false;
    int other = add->operands[0] == body->args[k] ? 1 : add->operands[1] == body->args[k] ? 0 : -1;
    return other >= 0 && constant_int(add->operands[other], step) && *step > 0;
}

/* A counted loop (`while i < n: i += step`, or <=, from constants) runs a
 * known number of times; anything else: false. */
bool partition_static_trip_count(const Op *w, int64_t *trips)
{
    const Block *cond = w->regions[0];
    const Value *p = cond->num_returns == 1 ? cond->returns[0] : NULL;
    const Op *cmp = p ? p->def : NULL;
    const char *dir = cmp && cmp->kind == OP_COMPARE ? op_attr_string(cmp, ATTR_KEY_DIRECTION) : NULL;
    if (!dir || (strcmp(dir, "lt") != 0 && strcmp(dir, "le") != 0))
        return false;
    const Value *i = cmp->operands[0];
    int64_t start, limit, step;
    if (i->def || i->block != cond || i->index >= w->num_operands || !constant_int(w->operands[i->index], &start) ||
        !loop_invariant_int(w, cmp->operands[1], &limit) || !counter_step(w, i->index, &step))
        return false;
    int64_t span; /* the count of integers in [start, limit) or [start, limit] */
    if (__builtin_sub_overflow(limit, start, &span) || __builtin_add_overflow(span, dir[1] == 'e', &span))
        return false;
    *trips = span <= 0 ? 0 : span / step + (span % step != 0);
    return true;
}

/* The loop's body and condition run `trips` times per run of the op around
 * them (the condition once more, which --stats leaves out). */
static int64_t executions_inside(const PartitionCtx *pc, const Op *op)
{
    int64_t trips, product;
    if (op->kind != OP_WHILE)
        return pc->executions;
    if (pc->executions < 0 || !partition_static_trip_count(op, &trips) ||
        __builtin_mul_overflow(pc->executions, trips, &product))
        return -1;
    return product;
}

void pc_partition_control_flow(PartitionCtx *pc, Op *op)
{
    int carried = op->kind == OP_CASE ? 0 : op->num_operands;
    if ((op->kind == OP_WHILE && op->num_regions != 2) || op->num_results < carried)
        return;
    Op *local = local_op(pc, op, carried);
    int64_t outside = pc->executions;
    HoistPoint *hoist = pc->hoist, loop = {pc->body, local, outside, pc->masks, hoist};
    pc->executions = executions_inside(pc, op);
    pc->hoist = op->kind == OP_WHILE ? &loop : NULL; /* nothing leaves a case or barrier region */
    for (int k = 0; local && k < op->num_regions && pc->ok; k++)
        partition_region(pc, op, local, k, op->results);
    pc->executions = outside;
    pc->hoist = hoist;
    if (local && pc->ok)
        bind_local_results(pc, op, local);
}

void pc_partition_named(PartitionCtx *pc, Op *op)
{
    diag_error(pc->diag, op->loc, "cannot partition a 'named_computation': the inline-calls pass inlines it "
               "before propagation (add it to --pass-pipeline)");
    pc->ok = false;
}
