/* Building the per-device program: values, ops and attributes. */
#include <stdarg.h>
#include <stdio.h>
#include "shardc/checked.h"
#include "shardc/layout.h"
#include "partition/partition_ctx.h"

void pc_record_collective(PartitionCtx *pc, CollectiveRecord record)
{
    record.executions = pc->executions;
    stats_record(pc->stats, &pc->module->arena, record);
}

Op *pc_append_op(PartitionCtx *pc, OpKind kind, Loc loc, Value **operands, int num_operands)
{
    Op *op = op_new(pc->module, kind, loc);
    op->num_operands = num_operands;
    op->operands = arena_memdup(&pc->module->arena, operands, (size_t)num_operands, sizeof(Value *));
    if (pc->insert_before)
        block_insert_before(pc->body, pc->insert_before, op);
    else
        block_append(pc->body, op);
    return op;
}

void pc_set_attr(PartitionCtx *pc, Op *op, AttrKey key, AttrValue *value)
{
    op_attr_set(&pc->module->arena, op, key, value);
}

AttrValue *pc_int_attr(PartitionCtx *pc, int64_t v)
{
    AttrValue *a = attr_new(&pc->module->arena, ATTR_INT, (Loc){0});
    a->u.i = v;
    return a;
}

AttrValue *pc_bool_attr(PartitionCtx *pc, bool v)
{
    AttrValue *a = attr_new(&pc->module->arena, ATTR_BOOL, (Loc){0});
    a->u.b = v;
    return a;
}

AttrValue *pc_string_attr(PartitionCtx *pc, const char *s)
{
    AttrValue *a = attr_new(&pc->module->arena, ATTR_STRING, (Loc){0});
    a->u.s = arena_strdup(&pc->module->arena, s);
    return a;
}

/* ["x", "y:(1)2"]: consecutive sub-axes merged first. */
AttrValue *pc_axes_attr(PartitionCtx *pc, const AxisList *axes)
{
    AxisList merged;
    merged.count = 0;
    for (int i = 0; i < axes->count; i++)
        axis_list_add_or_merge(&merged, axes->axes[i], pc->mesh);
    AttrValue *a = attr_new(&pc->module->arena, ATTR_ARRAY, (Loc){0});
    a->u.array.count = merged.count;
    a->u.array.items = ARENA_ARRAY(&pc->module->arena, AttrValue *, merged.count + 1);
    for (int i = 0; i < merged.count; i++) {
        char buf[128];
        axis_ref_format(buf, sizeof buf, pc->mesh, merged.axes[i]);
        a->u.array.items[i] = pc_string_attr(pc, buf);
    }
    return a;
}

Sharding *pc_sharding_in(PartitionCtx *pc, Arena *arena, const DimAxes *layout)
{
    Sharding *s = sharding_new_open(arena, pc->mesh, layout->rank);
    for (int d = 0; d < layout->rank; d++) {
        AxisList merged;
        merged.count = 0;
        for (int i = 0; i < layout->dims[d].count; i++)
            axis_list_add_or_merge(&merged, layout->dims[d].axes[i], pc->mesh);
        s->dims[d].is_closed = true;
        s->dims[d].num_axes = merged.count;
        s->dims[d].axes = arena_memdup(arena, merged.axes, (size_t)merged.count, sizeof(AxisRef));
    }
    return s;
}

Sharding *pc_sharding(PartitionCtx *pc, const DimAxes *layout)
{
    return pc_sharding_in(pc, &pc->module->arena, layout);
}

AttrValue *pc_sharding_attr(PartitionCtx *pc, const DimAxes *layout)
{
    AttrValue *a = attr_new(&pc->module->arena, ATTR_SHARDING, (Loc){0});
    a->u.sharding = pc_sharding(pc, layout);
    return a;
}

AttrValue *pc_partial_sharding_attr(PartitionCtx *pc, const DimAxes *layout, const AxisList *partial)
{
    AttrValue *a = pc_sharding_attr(pc, layout);
    if (partial && partial->count) {
        a->u.sharding->num_unreduced = partial->count;
        a->u.sharding->unreduced = arena_memdup(&pc->module->arena, partial->axes, (size_t)partial->count,
                                                sizeof(AxisRef));
    }
    return a;
}

int64_t pc_shard_size(int64_t size, const AxisList *axes)
{
    int64_t shards = axis_list_size(axes);
    return size_ceil_div(size, shards);
}

AttrValue *pc_int_array_attr(PartitionCtx *pc, const int64_t *values, int count)
{
    AttrValue *a = attr_new(&pc->module->arena, ATTR_ARRAY, (Loc){0});
    a->u.array.count = count;
    a->u.array.items = ARENA_ARRAY(&pc->module->arena, AttrValue *, count + 1);
    for (int i = 0; i < count; i++)
        a->u.array.items[i] = pc_int_attr(pc, values[i]);
    return a;
}

AttrValue *pc_zero_attr(PartitionCtx *pc, DType dtype)
{
    return dtype == DT_BOOL ? pc_bool_attr(pc, false) : pc_int_attr(pc, 0);
}

AttrValue *pc_float_attr(PartitionCtx *pc, double v)
{
    AttrValue *a = attr_new(&pc->module->arena, ATTR_FLOAT, (Loc){0});
    a->u.f = v;
    return a;
}

/* Its dims are shared with every local type of the same shape (never
 * changed in place). */
TensorType pc_local_type(PartitionCtx *pc, const TensorType *global, const DimAxes *layout)
{
    if (global->rank > SHARDC_MAX_RANK) /* not from a verified module: not shared */
        return type_make(&pc->module->arena, global->dtype, global->rank, global->dims);
    int64_t dims[SHARDC_MAX_RANK];
    for (int d = 0; d < global->rank; d++)
        dims[d] = d < layout->rank ? pc_shard_size(global->dims[d], &layout->dims[d]) : global->dims[d];
    TensorType t = {global->dtype, global->rank, NULL};
    t.dims = (int64_t *)interner_get(&pc->shapes, dims, sizeof(int64_t) * (size_t)t.rank);
    return t;
}

int64_t pc_type_bytes(const TensorType *t)
{
    int64_t n = 0;
    type_num_elements(t, &n);
    return n * (int64_t)dtype_size(t->dtype);
}

Value *pc_emit1(PartitionCtx *pc, OpKind kind, Loc loc, Value **operands, int num_operands, const char *name,
                TensorType type, Op **op_out)
{
    Op *op = pc_append_op(pc, kind, loc, operands, num_operands);
    Value *out = pc_new_value(pc, name, type, loc);
    out->def = op;
    op->num_results = 1;
    op->results = ARENA_ARRAY(&pc->module->arena, Value *, 1);
    op->results[0] = out;
    if (op_out)
        *op_out = op;
    return out;
}

const char *pc_printf(PartitionCtx *pc, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return arena_strdup(&pc->module->arena, buf);
}

static const char *format_layout(PartitionCtx *pc, const DimAxes *layout)
{
    char buf[1024];
    size_t n = (size_t)snprintf(buf, sizeof buf, "[");
    for (int d = 0; d < layout->rank && n < sizeof buf; d++) {
        AxisList merged;
        merged.count = 0;
        for (int i = 0; i < layout->dims[d].count; i++)
            axis_list_add_or_merge(&merged, layout->dims[d].axes[i], pc->mesh);
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s{", d ? ", " : "");
        for (int i = 0; i < merged.count && n < sizeof buf; i++) {
            char axis[128];
            axis_ref_format(axis, sizeof axis, pc->mesh, merged.axes[i]);
            n += (size_t)snprintf(buf + n, sizeof buf - n, "%s\"%s\"", i ? ", " : "", axis);
        }
        if (n < sizeof buf)
            n += (size_t)snprintf(buf + n, sizeof buf - n, "}");
    }
    if (n < sizeof buf)
        snprintf(buf + n, sizeof buf - n, "]");
    return arena_strdup(&pc->module->arena, buf);
}

/* Formatted once per layout: the reasons of a model's collectives name
 * the same few layouts over and over. */
const char *pc_format_layout(PartitionCtx *pc, const DimAxes *layout)
{
    PackedLayout *p = pc_packed_layout(pc, layout);
    if (!p->text)
        p->text = format_layout(pc, layout);
    return p->text;
}
