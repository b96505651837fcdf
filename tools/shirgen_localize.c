/* Re-emitting a custom op's implementation on per-device shapes: the body
 * of a generated partition function (JAX's `partition` callback) is the
 * implementation's body with every type replaced by its local one. Only
 * ops whose local semantics equal their global ones on the pinned layout
 * are supported: the templates in shirgen_custom.c keep to those. */
#include <string.h>
#include "shirgen.h"

static TensorType drop_dims(Gen *g, const TensorType *t, DType dt, const int64_t *drop, int nd)
{
    int64_t dims[SHARDC_MAX_RANK];
    int n = 0;
    for (int d = 0; d < t->rank; d++) {
        bool dropped = false;
        for (int i = 0; i < nd; i++)
            dropped |= drop[i] == d;
        if (!dropped)
            dims[n++] = t->dims[d];
    }
    return gen_type(g, dt, n, dims);
}

/* einsum: each label's size from the (local) operand it appears in. */
static TensorType local_einsum(Gen *g, const Op *op, Value **ops, DType dt)
{
    int64_t size[128] = {0}, dims[SHARDC_MAX_RANK];
    const char *s = op->str;
    int k = 0, n = 0;
    for (; *s != '-'; s++) {
        if (*s == ',')
            k++, n = 0;
        else
            size[(unsigned char)*s] = ops[k]->type.dims[n++];
    }
    n = 0;
    for (s += 2; *s; s++)
        dims[n++] = size[(unsigned char)*s];
    return gen_type(g, dt, n, dims);
}

static bool local_types(Gen *g, const Op *op, Value **ops, TensorType *out)
{
    DType dt = op->results[0]->type.dtype;
    int64_t v[SHARDC_MAX_RANK];
    switch (op_info(op->kind)->op_class) {
    case OPC_UNARY: case OPC_UNARY_FLOAT: case OPC_CONVERT: case OPC_SORT:
        *out = gen_type(g, dt, ops[0]->type.rank, ops[0]->type.dims);
        return true;
    case OPC_BINARY: case OPC_COMPARE:
        if (!shapes_broadcast(&ops[0]->type, &ops[1]->type, out, g))
            return false;
        out->dtype = dt;
        return true;
    case OPC_CLAMP:
        *out = gen_type(g, dt, ops[1]->type.rank, ops[1]->type.dims);
        return true;
    case OPC_NULLARY:
        *out = op->results[0]->type;
        return out->rank == 0;
    case OPC_REDUCE:
        *out = drop_dims(g, &ops[0]->type, dt, v, op_attr_ints(op, ATTR_KEY_DIMS, v, SHARDC_MAX_RANK));
        return true;
    case OPC_ARGMAX:
        v[0] = op_attr_int(op, ATTR_KEY_DIM);
        *out = drop_dims(g, &ops[0]->type, dt, v, 1);
        return true;
    case OPC_EINSUM:
        *out = local_einsum(g, op, ops, dt);
        return true;
    default:
        return false;
    }
}

static bool local_top_k(Gen *g, const Op *op, Value **ops, TensorType *out)
{
    const TensorType *t = &ops[0]->type;
    int64_t dims[SHARDC_MAX_RANK];
    memcpy(dims, t->dims, sizeof(int64_t) * (size_t)t->rank);
    dims[t->rank - 1] = op_attr_int(op, ATTR_KEY_K);
    out[0] = gen_type(g, t->dtype, t->rank, dims);
    out[1] = gen_type(g, DT_I32, t->rank, dims);
    return true;
}

static bool localize_op(Gen *g, const Op *src, Value **map)
{
    Value *ops[3];
    TensorType types[2];
    for (int i = 0; i < src->num_operands; i++)
        ops[i] = map[src->operands[i]->id];
    bool ok = src->kind == OP_TOP_K ? local_top_k(g, src, ops, types) : local_types(g, src, ops, types);
    if (!ok)
        return false;
    Op *op = gen_op(g, src->kind, ops, src->num_operands, types, src->num_results);
    op->str = src->str;
    op->attrs = src->attrs;
    op->num_attrs = src->num_attrs;
    for (int i = 0; i < src->num_results; i++)
        map[src->results[i]->id] = op->results[i];
    return true;
}

bool localize_body(Gen *g, const Block *impl, Value **args, Value **results)
{
    Value **map = ARENA_ARRAY(gen_arena(g), Value *, g->m->num_values + 1);
    for (int i = 0; i < impl->num_args; i++)
        map[impl->args[i]->id] = args[i];
    for (const Op *op = impl->first; op; op = op->next)
        if (!localize_op(g, op, map))
            return false;
    for (int i = 0; i < impl->num_returns; i++)
        results[i] = map[impl->returns[i]->id];
    return true;
}
