/* Shardy's single-device operations under -sdy-insert-explicit-reshards
 * (insert_explicit_reshards.cc, processSingleDeviceOperation): an op with
 * a result on a maximal mesh (`<[], device_ids=[d]>`) runs on device d.
 * Each tensor operand is resharded to that device, through the module's
 * global mesh (its first mesh with axes) fully replicated unless it is
 * already replicated there; each tensor result is resharded back to
 * replicated on the global mesh, then to its own sharding when that is
 * not on a maximal mesh; the op's tensor results then all live on the
 * device, its token results replicated on the global mesh. Function
 * arguments and results may not be on a maximal mesh. */
#include "shardc/mlir.h"
#include "explicit_internal.h"
#include "print_internal.h"

/* Shardy's isSingleDeviceSharding: on a maximal mesh. */
bool mlir_single_device_sharding(const Sharding *s)
{
    return s && s->mesh && s->mesh->num_axes == 0 && s->mesh->device_ids && s->mesh->num_devices == 1;
}

/* getGlobalMeshOp: the module's first mesh with axes, or NULL. */
static const Mesh *global_mesh(const Module *m)
{
    for (int i = 0; i < m->num_meshes; i++)
        if (m->meshes[i]->num_axes > 0)
            return m->meshes[i];
    return NULL;
}

static bool is_tensor(const Value *v) { return v->type.dtype != DT_TOKEN; }

static bool replicated(const Sharding *s)
{
    for (int d = 0; s && d < s->rank; d++)
        if (s->dims[d].num_axes)
            return false;
    return !s || !s->num_unreduced;
}

/* A reshard of operand i to `to` right before op, which now uses it. */
static void reshard_operand(Module *m, Op *op, int i, Sharding *to)
{
    Op *r = mlir_new_reshard(m, op->operands[i], to);
    block_insert_before(op->parent, op, r);
    op->operands[i] = r->results[0];
}

/* insertSingleDeviceOperandReshards. */
static void reshard_operands_to_device(Module *m, Op *op, Sharding *device, const Mesh *global)
{
    for (int i = 0; i < op->num_operands; i++) {
        const Value *v = op->operands[i];
        const Sharding *s = v->sharding ? v->sharding : mlir_closed_empty(m, global, v->type.rank);
        if (!is_tensor(v) || (replicated(s) && s->mesh == device->mesh))
            continue;
        if (!replicated(s) || s->mesh != global)
            reshard_operand(m, op, i, mlir_closed_empty(m, global, v->type.rank));
        reshard_operand(m, op, i, device);
    }
}

/* A reshard of v to `to` right after *after (which becomes it), that every
 * other use of v in the function now uses. */
static Value *reshard_after(Module *m, Op **after, Value *v, Sharding *to)
{
    Block *body = (*after)->parent;
    while (body->parent_op)
        body = body->parent_op->parent;
    Op *r = mlir_new_reshard(m, v, to);
    block_insert_before((*after)->parent, (*after)->next, r);
    ir_replace_uses(body, v, r->results[0]);
    *after = r;
    return r->results[0];
}

/* insertSingleDeviceResultReshards: replicated on the global mesh, then
 * the result's own sharding unless that is on a device (or the same);
 * each after the last one inserted. */
static void reshard_results_from_device(Module *m, Op *op, const Mesh *global)
{
    Op *last = op;
    for (int j = 0; j < op->num_results; j++) {
        Value *v = op->results[j];
        if (!is_tensor(v))
            continue;
        Sharding *rep = mlir_closed_empty(m, global, v->type.rank), *own = v->sharding;
        Value *back = reshard_after(m, &last, v, rep);
        if (own && !mlir_single_device_sharding(own) && !sharding_equal(own, rep))
            reshard_after(m, &last, back, own);
    }
}

/* The maximal mesh of op's results, or NULL after an error when they name
 * different devices (getSingleDeviceMeshInfo). */
static const Mesh *device_mesh(const Op *op, DiagEngine *diag)
{
    const Mesh *mesh = NULL;
    for (int j = 0; j < op->num_results; j++) {
        const Sharding *s = mlir_sharding_bypassing_barriers(op->results[j]);
        if (!mlir_single_device_sharding(s))
            continue;
        if (mesh && mesh->device_ids[0] != s->mesh->device_ids[0]) {
            diag_error(diag, op->loc, "'%s' op has conflicting single-device result shardings", mlir_op_name(op));
            return NULL;
        }
        mesh = s->mesh;
    }
    return mesh;
}

bool mlir_single_device_op(const Op *op)
{
    for (int j = 0; j < op->num_results; j++)
        if (mlir_single_device_sharding(mlir_sharding_bypassing_barriers(op->results[j])))
            return true;
    return false;
}

bool mlir_explicit_single_device(Module *m, Op *op, DiagEngine *diag)
{
    const Mesh *mesh = device_mesh(op, diag), *global = global_mesh(m);
    if (!mesh)
        return false;
    if (!global)
        return true;
    Sharding *device = mlir_closed_empty(m, mesh, 0);
    reshard_operands_to_device(m, op, device, global);
    reshard_results_from_device(m, op, global);
    for (int j = 0; j < op->num_results; j++)
        op->results[j]->sharding = is_tensor(op->results[j]) ? device : mlir_closed_empty(m, global, 0);
    return true;
}

bool mlir_no_single_device_boundary(const Func *fn, DiagEngine *diag)
{
    for (int i = 0; i < fn->body->num_args; i++)
        if (mlir_single_device_sharding(fn->body->args[i]->sharding)) {
            diag_error(diag, fn->loc, "'func.func' op function argument %d cannot have a single-device (maximal) "
                       "sharding attribute", i);
            return false;
        }
    for (int j = 0; fn->result_shardings && j < fn->num_results; j++)
        if (mlir_single_device_sharding(fn->result_shardings[j])) {
            diag_error(diag, fn->loc, "'func.func' op function result %d cannot have a single-device (maximal) "
                       "sharding attribute", j);
            return false;
        }
    return true;
}
