/* Partitioning ops whose bodies are already per-device code: shard_map
 * regions and custom ops with a partition function (JAX's `partition`
 * callback), and custom ops without one. */
#include <stdio.h>
#include <string.h>
#include "shardc/ir_clone.h"
#include "partition/partition_ctx.h"
#include "shardc/rules.h"

void pc_inline_block(PartitionCtx *pc, const Block *body, Value **args, Value **returns)
{
    ValueMap map;
    value_map_init(&map, &pc->module->arena);
    for (int i = 0; i < body->num_args; i++)
        value_map_put(&map, body->args[i], args[i]);
    for (const Op *op = body->first; op; op = op->next) {
        Op *c = op_clone(pc->module, op, &map, NULL);
        for (int j = 0; j < c->num_results; j++) {
            c->results[j]->name = pc_unique_name(pc, c->results[j]->name);
            c->results[j]->sharding = NULL;
        }
        block_append(pc->body, c);
    }
    for (int i = 0; i < body->num_returns; i++)
        returns[i] = value_map_get(&map, body->returns[i]);
}

/* The body of a shard_map manual over some axes only: per-device along
 * its manual axes, and partitioned along the free ones like any code, by
 * the shardings propagation gave its values (free axes only); `args` come
 * and `returns` go laid out as those body values. Collectives run whole
 * (partition_collective); a nested shard_map, manual over free axes of
 * this one, is partitioned in place. */
/* A body value's layout along the free axes, at the body's boundary: its
 * sharding's, but whole along a dim its free axes do not divide. Cut
 * unevenly, a manual block's free shards are not the joined layout's: 16
 * rows over "pipe"=4 then "z"=3 are 12 shards of 2 rows, device (p, q)
 * holding rows 6p + 2q..., while block p (rows 4p..4p+3) over "z" would
 * hold rows 4p + 2q... (and padding). */
static void free_layout(DimAxes *out, const Value *local)
{
    pc_layout_of(out, local);
    for (int d = 0; d < local->type.rank && d < out->rank; d++)
        if (pc_dim_uneven(&local->type, out, d))
            out->dims[d].count = 0;
}

static void partition_partial_body(PartitionCtx *pc, const Block *body, Value **args, Value **returns)
{
    DimAxes layout;
    for (int i = 0; i < body->num_args; i++) {
        free_layout(&layout, body->args[i]);
        pc_add_version(pc, body->args[i], args[i], &layout);
    }
    pc->partial_manual++;
    for (Op *op = body->first; op && pc->ok; op = op->next) {
        arena_reset(&pc->scratch);
        pc_partition_op(pc, op);
    }
    pc->partial_manual--;
    for (int i = 0; i < body->num_returns && pc->ok; i++) {
        free_layout(&layout, body->returns[i]);
        pc->reason = pc_printf(pc, "returned value %%%s of a partial-manual shard_map laid out as its sharding",
                               body->returns[i]->name);
        returns[i] = pc_local_as(pc, body->returns[i], &layout, body->return_loc);
    }
}

/* The layout of a shard_map's operand or result i: its spec's; in a
 * partial-manual one, with the free axes of the body value `local` after
 * the manual ones on the dims free_layout keeps them on (the body value's
 * own layout is its free part). */
static void layout_of_spec(PartitionCtx *pc, DimAxes *out, const Op *op, AttrKey specs, int i, const Value *local)
{
    const Sharding *spec = op_attr_sharding_at(op, specs, i);
    int rank = local->type.rank;
    reshard_dim_axes_from_sharding(out, spec, rank);
    if (!spec || !local->sharding || !op_is_partial_manual(op))
        return;
    DimAxes manual = *out, free;
    free_layout(&free, local);
    reshard_dim_axes_from_sharding(out, sharding_join_manual(&pc->scratch, spec, local->sharding), rank);
    for (int d = 0; d < rank; d++)
        if (!free.dims[d].count)
            out->dims[d] = manual.dims[d];
}

/* Per-device results laid out as `layouts`, resharded to the results'
 * propagated shardings. */
static void bind_results(PartitionCtx *pc, const Op *op, Value **locals, const DimAxes *layouts)
{
    for (int j = 0; j < op->num_results; j++) {
        DimAxes want;
        pc_layout_of(&want, op->results[j]);
        pc->reason = pc_printf(pc, "result %%%s of '%s' comes out as %s but its sharding is %s",
                               op->results[j]->name, op_info(op->kind)->name, pc_format_layout(pc, &layouts[j]),
                               pc_format_layout(pc, &want));
        /* A shard_map's unreduced out_spec: its per-device results are
         * partials, kept so where the result is unreduced too. */
        const Sharding *spec = op->kind == OP_SHARD_MAP ? op_attr_sharding_at(op, ATTR_KEY_OUT_SPECS, j) : NULL;
        const Sharding *result = op->results[j]->sharding;
        AxisList partial, keep, reduce, left, extra, none = {0};
        pc_unreduced_of(&partial, spec);
        pc_unreduced_of(&keep, result);
        bool same = pc_unreduced_kind(spec) == pc_unreduced_kind(result);
        pc_axes_minus(&reduce, &partial, same ? &keep : &none);
        pc_axes_minus(&left, &partial, &reduce);
        pc->kept = &left;
        Value *r = pc_reshard(pc, locals[j], &op->results[j]->type, &layouts[j], reduce.count ? &reduce : NULL,
                              pc_unreduced_kind(spec), &want, op->results[j]->name, op->loc);
        pc->kept = NULL;
        pc_axes_minus(&extra, &keep, &left);
        if (r && extra.count)
            r = pc_replicated_to_unreduced(pc, r, &extra, pc_unreduced_kind(result), op->loc);
        if (r)
            pc_add_partial_version(pc, op->results[j], r, &want, &keep, pc_unreduced_kind(result));
    }
}

static bool pads_uneven(const Op *op)
{
    return op_attr_bool(op, ATTR_KEY_PAD_UNEVEN);
}

/* A shard_map with pad_uneven promises its body zero padding; a value
 * computed on padded blocks has unspecified padding, so it is masked. */
static Value *zero_padding(PartitionCtx *pc, Value *local, const TensorType *global, const DimAxes *layout, Loc loc)
{
    for (int d = 0; d < global->rank; d++)
        if (pc_dim_uneven(global, layout, d))
            local = pc_mask_padding(pc, local, global, layout, d, pc_zero_attr(pc, local->type.dtype), loc);
    return local;
}

void pc_partition_shard_map(PartitionCtx *pc, Op *op)
{
    Value *args[op->num_operands + 1], *returns[op->num_results + 1];
    for (int i = 0; i < op->num_operands; i++) {
        DimAxes want;
        layout_of_spec(pc, &want, op, ATTR_KEY_IN_SPECS, i, op->region->args[i]);
        pc->reason = pc_printf(pc, "operand %%%s of shard_map laid out as its in_spec %s", op->operands[i]->name,
                               pc_format_layout(pc, &want));
        const Sharding *spec = op_attr_sharding_at(op, ATTR_KEY_IN_SPECS, i);
        AxisList keep; /* an unreduced in_spec takes the operand's partials */
        pc_unreduced_of(&keep, spec);
        if (!(args[i] = pc_local_as_partial(pc, op->operands[i], &want, &keep, pc_unreduced_kind(spec), op->loc)))
            return;
        if (pads_uneven(op))
            args[i] = zero_padding(pc, args[i], &op->operands[i]->type, &want, op->loc);
    }
    if (op_is_partial_manual(op))
        partition_partial_body(pc, op->region, args, returns);
    else
        pc_inline_block(pc, op->region, args, returns);
    if (!pc->ok)
        return;
    DimAxes layouts[op->num_results + 1];
    for (int j = 0; j < op->num_results; j++)
        layout_of_spec(pc, &layouts[j], op, ATTR_KEY_OUT_SPECS, j, op->region->returns[j]);
    bind_results(pc, op, returns, layouts);
}

/* For each of `count` global values pick the first candidate layout whose
 * per-device type is `want` (the partition function's signature). */
static bool match_layout(PartitionCtx *pc, const Value *global, const TensorType *want, const DimAxes *candidates,
                         int num_candidates, DimAxes *out)
{
    for (int k = 0; k < num_candidates; k++) {
        TensorType local = pc_local_type(pc, &global->type, &candidates[k]);
        if (type_equal(&local, want)) {
            *out = candidates[k];
            return true;
        }
    }
    return false;
}

/* JAX's partition callback: the function gets the local shards, so the
 * operands are laid out to fit its signature — their propagated shardings
 * if those fit, else the rule's choice. */
static void partition_with_function(PartitionCtx *pc, Op *op, const Func *fn, const OpShardingRule *rule,
                                    const AxisList *assignment)
{
    Value *args[op->num_operands + 1], *returns[op->num_results + 1];
    for (int i = 0; i < op->num_operands; i++) {
        DimAxes candidates[2], want;
        pc_layout_of(&candidates[0], op->operands[i]);
        factor_assignment_tensor_axes(&candidates[1], rule, assignment, i);
        if (!match_layout(pc, op->operands[i], &fn->body->args[i]->type, candidates, 2, &want)) {
            diag_error(pc->diag, op->loc, "partition function '@%s' takes argument %d of a per-device type that "
                       "neither the propagated sharding of %%%s nor the rule's gives", fn->name, i,
                       op->operands[i]->name);
            pc->ok = false;
            return;
        }
        pc->reason = pc_printf(pc, "operand %%%s of custom op laid out as %s for partition function '@%s'",
                               op->operands[i]->name, pc_format_layout(pc, &want), fn->name);
        if (!(args[i] = pc_local_as(pc, op->operands[i], &want, op->loc)))
            return;
    }
    pc_inline_block(pc, fn->body, args, returns);
    DimAxes layouts[op->num_results + 1];
    for (int j = 0; j < op->num_results; j++) {
        DimAxes candidates[2];
        pc_layout_of(&candidates[0], op->results[j]);
        factor_assignment_tensor_axes(&candidates[1], rule, assignment, op->num_operands + j);
        if (!match_layout(pc, op->results[j], &returns[j]->type, candidates, 2, &layouts[j])) {
            diag_error(pc->diag, op->loc, "partition function '@%s' returns result %d with a per-device type that "
                       "fits no sharding of %%%s", fn->name, j, op->results[j]->name);
            pc->ok = false;
            return;
        }
    }
    bind_results(pc, op, returns, layouts);
}

/* Without a partition function the implementation runs on whole values. */
static void partition_replicated(PartitionCtx *pc, Op *op, const Func *impl)
{
    Value *args[op->num_operands + 1], *returns[op->num_results + 1];
    for (int i = 0; i < op->num_operands; i++) {
        DimAxes whole = {.rank = op->operands[i]->type.rank};
        pc->reason = pc_printf(pc, "custom op '@%s' has no partition function: operand %%%s is gathered whole",
                               op->callee, op->operands[i]->name);
        if (!(args[i] = pc_local_as(pc, op->operands[i], &whole, op->loc)))
            return;
    }
    pc_inline_block(pc, impl->body, args, returns);
    DimAxes layouts[op->num_results + 1];
    for (int j = 0; j < op->num_results; j++)
        layouts[j] = (DimAxes){.rank = op->results[j]->type.rank};
    bind_results(pc, op, returns, layouts);
}

void pc_partition_custom(PartitionCtx *pc, Op *op)
{
    const char *partition = op_attr_symbol(op, ATTR_KEY_PARTITION);
    if (!partition) {
        partition_replicated(pc, op, module_find_func(pc->module, op->callee));
        return;
    }
    const OpShardingRule *rule = rule_cache_get(&pc->rules, &pc->scratch, pc->diag, op);
    if (!rule) {
        pc->ok = false;
        return;
    }
    int count = op->num_operands + op->num_results;
    Sharding *shardings[count + 1];
    const TensorType *types[count + 1];
    for (int t = 0; t < count; t++) {
        const Value *v = t < op->num_operands ? op->operands[t] : op->results[t - op->num_operands];
        shardings[t] = v->sharding;
        types[t] = &v->type;
    }
    AxisList *assignment = ARENA_ARRAY(&pc->scratch, AxisList, rule->num_factors + 1);
    factor_assignment(assignment, rule, pc->mesh, shardings, types, count, op->num_operands, UNEVEN_NONE, &pc->scratch);
    partition_with_function(pc, op, module_find_func(pc->module, partition), rule, assignment);
}

