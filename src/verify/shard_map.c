/* Verifier rules for shard_map: mesh, manual axes, in/out specs, and the
 * local types of the body against the global types of the op. */
#include "shardc/checked.h"
#include "shardc/verify.h"

static bool axis_is_manual(const int *manual, int num_manual, int axis)
{
    for (int i = 0; i < num_manual; i++)
        if (manual[i] == axis)
            return true;
    return false;
}

/* Global type -> per-device type under a spec; false (reported) if a dim
 * does not divide, unless the shard_map pads uneven dims (pad_uneven, as
 * the partitioner's SPMD programs do: ceil(dim / shards) per device). */
static bool local_type(VerifyCtx *vc, const Sharding *spec, const TensorType *global, int64_t *dims,
                       TensorType *out, Loc loc, bool pad_uneven)
{
    for (int d = 0; d < global->rank; d++) {
        int64_t shards = sharding_dim_shards(spec, d);
        if (pad_uneven) {
            dims[d] = size_ceil_div(global->dims[d], shards);
            continue;
        }
        if (global->dims[d] % shards != 0) {
            diag_error(vc->diag, loc, "dim %d of size %lld is not divisible by its %lld shards", d,
                       (long long)global->dims[d], (long long)shards);
            return false;
        }
        dims[d] = global->dims[d] / shards;
    }
    *out = (TensorType){global->dtype, global->rank, dims};
    return true;
}

static bool check_spec(VerifyCtx *vc, Sharding **spec, const TensorType *global, const Mesh *mesh,
                       const int *manual, int num_manual, Loc loc)
{
    Sharding *s = *spec;
    if (s->mesh != mesh) {
        diag_error(vc->diag, s->loc, "spec is on mesh '@%s' but the shard_map is on '@%s'",
                   s->mesh ? s->mesh->name : "?", mesh->name);
        return false;
    }
    verify_value_sharding(vc, spec, global, loc, "spec");
    s = *spec;
    if (s->rank != global->rank)
        return false;
    for (int d = 0; d < s->rank; d++) {
        if (!s->dims[d].is_closed || s->dims[d].priority != PRIORITY_NONE) {
            diag_error(vc->diag, s->loc, "shard_map specs must be closed and have no priorities");
            return false;
        }
        for (int k = 0; k < s->dims[d].num_axes; k++) {
            if (!axis_is_manual(manual, num_manual, s->dims[d].axes[k].axis)) {
                diag_error(vc->diag, s->loc, "spec uses axis \"%s\", which is not a manual axis of this "
                           "shard_map", mesh->axes[s->dims[d].axes[k].axis].name);
                return false;
            }
        }
    }
    return true;
}

/* A body argument (or returned value) whose type is not the per-device
 * type its spec gives. Returned values are reported at the return, so an
 * argument returned unchanged does not get the same message twice. */
static void report_local_type(VerifyCtx *vc, const Op *op, bool is_result, const TensorType *want_type,
                              const Value *local)
{
    char want[256], got[256];
    verify_format_type(want, sizeof want, want_type);
    verify_format_type(got, sizeof got, &local->type);
    if (is_result)
        diag_error(vc->diag, op->region->return_loc, "returned value %%%s has type %s, but its out spec "
                   "gives the per-device result type %s", local->name, got, want);
    else
        diag_error(vc->diag, local->loc, "body argument %%%s has type %s, but its in spec gives the "
                   "per-device type %s", local->name, got, want);
}

/* Each spec of `specs` (an attribute) against the global values' types, and
 * the matching body values' local types. */
static void check_specs(VerifyCtx *vc, Op *op, AttrKey key, Value **globals, Value **locals, int count,
                        const Mesh *mesh, const int *manual, int num_manual)
{
    bool pad_uneven = op_attr_bool(op, ATTR_KEY_PAD_UNEVEN);
    const char *name = attr_key_name(key);
    const AttrValue *v = op_attr_get(op, key);
    if (!v || v->kind != ATTR_ARRAY || v->u.array.count != count) {
        diag_error(vc->diag, v ? v->loc : op->loc, "'shard_map' needs '%s': a list of %d sharding%s", name,
                   count, count == 1 ? "" : "s");
        return;
    }
    for (int i = 0; i < count; i++) {
        AttrValue *item = v->u.array.items[i];
        if (item->kind != ATTR_SHARDING) {
            diag_error(vc->diag, item->loc, "'%s' entries must be shardings <@mesh, [...]>", name);
            continue;
        }
        int64_t dims[SHARDC_MAX_RANK];
        TensorType local;
        if (!check_spec(vc, &item->u.sharding, &globals[i]->type, mesh, manual, num_manual, item->loc) ||
            !local_type(vc, item->u.sharding, &globals[i]->type, dims, &local, item->loc, pad_uneven) || !locals)
            continue;
        if (!type_equal(&local, &locals[i]->type))
            report_local_type(vc, op, key == ATTR_KEY_OUT_SPECS, &local, locals[i]);
    }
}

static int manual_axes(VerifyCtx *vc, Op *op, const Mesh *mesh, int *out)
{
    if (!op_attr_find(op, ATTR_KEY_MANUAL_AXES)) {
        for (int i = 0; i < mesh->num_axes; i++)
            out[i] = i;
        return mesh->num_axes;
    }
    return verify_mesh_axes(vc, op, ATTR_KEY_MANUAL_AXES, mesh, out, mesh->num_axes);
}

/* A shard_map inside another on the same mesh is manual over other axes
 * only: the devices have already split the outer one's axes among them
 * (the interpreter refuses it too, so the compiler must). */
static void check_nesting(VerifyCtx *vc, Op *op, const Mesh *mesh, const int *manual, int num_manual)
{
    Op *outer = (Op *)vc->region_op;
    if (!outer || vc->region_mesh != mesh)
        return;
    int *outer_manual = ARENA_ARRAY(&vc->module->arena, int, mesh->num_axes + 1);
    int num_outer = manual_axes(vc, outer, mesh, outer_manual);
    for (int i = 0; i < num_manual; i++)
        if (axis_is_manual(outer_manual, num_outer, manual[i])) {
            diag_error(vc->diag, op->loc, "a shard_map nested in another may not be manual over the same axes "
                       "(\"%s\" is manual in both)", mesh->axes[manual[i]].name);
            return;
        }
}

void verify_shard_map(VerifyCtx *vc, Op *op)
{
    const AttrValue *mv = op_attr_get(op, ATTR_KEY_MESH);
    const Mesh *mesh = op_attr_mesh(vc->module, op, ATTR_KEY_MESH);
    if (!mesh) {
        diag_error(vc->diag, mv ? mv->loc : op->loc, mv ? "'mesh' must name a declared mesh"
                                                         : "'shard_map' needs 'mesh = @m'");
        return;
    }
    /* Meshes may have any number of (size-1) axes, so no fixed-size array. */
    int *manual = ARENA_ARRAY(&vc->module->arena, int, mesh->num_axes + 1);
    int num_manual = manual_axes(vc, op, mesh, manual);
    if (num_manual < 0)
        return;
    check_nesting(vc, op, mesh, manual, num_manual);
    Block *body = op->region;
    if (body->num_args != op->num_operands) {
        diag_error(vc->diag, op->loc, "the shard_map body takes %d argument%s for %d operand%s", body->num_args,
                   body->num_args == 1 ? "" : "s", op->num_operands, op->num_operands == 1 ? "" : "s");
        return;
    }
    check_specs(vc, op, ATTR_KEY_IN_SPECS, op->operands, body->args, op->num_operands, mesh, manual, num_manual);
    if (body->num_returns != op->num_results) {
        diag_error(vc->diag, body->return_loc, "the shard_map body returns %d value%s for %d result%s",
                   body->num_returns, body->num_returns == 1 ? "" : "s", op->num_results,
                   op->num_results == 1 ? "" : "s");
        return;
    }
    check_specs(vc, op, ATTR_KEY_OUT_SPECS, op->results, body->returns, op->num_results, mesh, manual, num_manual);
}
