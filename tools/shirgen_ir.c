/* Building IR for shirgen: ops, names, types and attribute values, all in
 * the module's arena (the printer only needs consistent IR, not a parser's
 * source locations, so every Loc is zero). */
#include <string.h>
#include "shirgen.h"

static const Loc NO_LOC = {0};

Arena *gen_arena(Gen *g) { return &g->m->arena; }

const char *gen_name(Gen *g, const char *prefix, int n)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%s%d", prefix, n);
    return arena_strdup(gen_arena(g), buf);
}

TensorType gen_type(Gen *g, DType dt, int rank, const int64_t *dims)
{
    return type_make(gen_arena(g), dt, rank, dims);
}

int64_t type_elems(const TensorType *t)
{
    int64_t n = 1;
    for (int d = 0; d < t->rank; d++)
        n *= t->dims[d];
    return n;
}

Op *gen_op(Gen *g, OpKind kind, Value **operands, int n, const TensorType *types, int nres)
{
    Op *op = op_new(g->m, kind, NO_LOC);
    op->num_operands = n;
    op->operands = arena_memdup(gen_arena(g), operands, (size_t)n, sizeof(Value *));
    op->num_results = nres;
    op->results = ARENA_ARRAY(gen_arena(g), Value *, nres > 0 ? nres : 1);
    for (int i = 0; i < nres; i++) {
        Value *v = value_new(g->m, gen_name(g, "v", g->next_value++), types[i], NO_LOC);
        v->def = op;
        v->index = i;
        op->results[i] = v;
    }
    block_append(g->scope->block, op);
    return op;
}

void gen_set_attr(Gen *g, Op *op, AttrKey key, AttrValue *v)
{
    op_attr_set(gen_arena(g), op, key, v);
}

AttrValue *attr_i(Gen *g, int64_t i)
{
    AttrValue *v = attr_new(gen_arena(g), ATTR_INT, NO_LOC);
    v->u.i = i;
    return v;
}

AttrValue *attr_f(Gen *g, double f)
{
    AttrValue *v = attr_new(gen_arena(g), ATTR_FLOAT, NO_LOC);
    v->u.f = f;
    return v;
}

AttrValue *attr_b(Gen *g, bool b)
{
    AttrValue *v = attr_new(gen_arena(g), ATTR_BOOL, NO_LOC);
    v->u.b = b;
    return v;
}

AttrValue *attr_s(Gen *g, const char *s)
{
    AttrValue *v = attr_new(gen_arena(g), ATTR_STRING, NO_LOC);
    v->u.s = arena_strdup(gen_arena(g), s);
    return v;
}

AttrValue *attr_sym(Gen *g, const char *s)
{
    AttrValue *v = attr_new(gen_arena(g), ATTR_SYMBOL, NO_LOC);
    v->u.s = arena_strdup(gen_arena(g), s);
    return v;
}

AttrValue *attr_list(Gen *g, AttrValue **items, int n)
{
    AttrValue *v = attr_new(gen_arena(g), ATTR_ARRAY, NO_LOC);
    v->u.array.count = n;
    v->u.array.items = arena_memdup(gen_arena(g), items, (size_t)n, sizeof(AttrValue *));
    return v;
}

AttrValue *attr_ints(Gen *g, const int64_t *vals, int n)
{
    AttrValue *items[SHARDC_MAX_RANK * 4];
    for (int i = 0; i < n; i++)
        items[i] = attr_i(g, vals[i]);
    return attr_list(g, items, n);
}

AttrValue *attr_shard(Gen *g, Sharding *s)
{
    AttrValue *v = attr_new(gen_arena(g), ATTR_SHARDING, NO_LOC);
    v->u.sharding = s;
    return v;
}

/* A collective's `axes = [...]`: mesh axes by index, in the given order. */
AttrValue *attr_axes(Gen *g, const int *axes, int n)
{
    AttrValue *items[SHARDC_MAX_MESH_AXES];
    for (int i = 0; i < n; i++)
        items[i] = attr_s(g, g->mesh->axes[axes[i]].name);
    return attr_list(g, items, n);
}
