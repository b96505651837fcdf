/* IR construction and lookup. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "shardc/ir.h"
#include "shardc/symtab.h"
#include "front/parse_ctx.h"

/* Each op's attribute specs (ops.def), ended by ATTR_KEY_NONE. */
#define DEFAULT_INT(v) {.kind = ATTR_INT, .u = {.i = v}}
#define DEFAULT_SCALAR(v) DEFAULT_INT(v)
#define DEFAULT_BOOL(v) {.kind = ATTR_BOOL, .u = {.b = v}}
#define DEFAULT_STRING(v) {.kind = ATTR_STRING, .u = {.s = v}}
#define REQ(key, type) {ATTR_KEY_##key, ATYPE_##type, ATTR_REQUIRED, {0}},
#define OPT(key, type) {ATTR_KEY_##key, ATYPE_##type, ATTR_OPTIONAL, {0}},
#define DEF(key, type, v) {ATTR_KEY_##key, ATYPE_##type, ATTR_DEFAULTED, DEFAULT_##type(v)},
#define NOTE(key, type) {ATTR_KEY_##key, ATYPE_##type, ATTR_ANNOTATION, {0}},
#define OP(id, name, cls, min_ops, max_ops, nres, attrs) static const OpAttrSpec attrs_##id[] = {attrs{0}};
#include "shardc/ops.def"
#undef OP
#undef REQ
#undef OPT
#undef DEF
#undef NOTE

static const OpInfo op_table[OP_COUNT] = {
#define OP(id, name, cls, min_ops, max_ops, nres, attrs) \
    [OP_##id] = {name, cls, min_ops, max_ops, nres, (int)(sizeof attrs_##id / sizeof attrs_##id[0]) - 1, attrs_##id},
#include "shardc/ops.def"
#undef OP
};

const OpInfo *op_info(OpKind kind) { return &op_table[kind]; }

bool op_lookup(const char *name, OpKind *out)
{
    for (int k = 0; k < OP_COUNT; k++) {
        /* the first letter first: most names differ there, and every op
         * of every program is looked up (30 strcmp calls an op) */
        if (op_table[k].name[0] == name[0] && strcmp(op_table[k].name, name) == 0) {
            *out = (OpKind)k;
            return true;
        }
    }
    return false;
}

Module *module_new(const char *file)
{
    Module *m = calloc(1, sizeof *m);
    if (!m)
        arena_out_of_memory();
    arena_init(&m->arena);
    m->file = file ? arena_strdup(&m->arena, file) : NULL;
    return m;
}

void module_free(Module *m)
{
    if (!m)
        return;
    sharding_index_free(m->shardings);
    arena_free(&m->arena);
    free(m);
}

/* Name -> position + 1 in an array of funcs or meshes. Entries are added
 * as the array grows; a new array or a shorter one rebuilds it. Names are
 * set when a func or mesh is made and never change, but a position is
 * still checked against the array before it is believed (an entry
 * replaced in place rebuilds the index). */
typedef struct NameIndex {
    SymTab table;
    void *const *items;
    int count;
} NameIndex;

typedef const char *(*NameOf)(const void *item);
static const char *func_name(const void *f) { return ((const Func *)f)->name; }
static const char *mesh_name(const void *m) { return ((const Mesh *)m)->name; }

static void index_update(Module *m, NameIndex **slot, void *const *items, int count, NameOf name_of)
{
    NameIndex *ix = *slot;
    if (!ix) {
        ix = *slot = ARENA_NEW(&m->arena, NameIndex);
        ix->count = -1;
    }
    if (ix->items != items || ix->count > count || ix->count < 0) {
        symtab_init(&ix->table, &m->arena); /* the old table stays in the arena */
        ix->items = items;
        ix->count = 0;
    }
    for (; ix->count < count; ix->count++) {
        const char *name = name_of(items[ix->count]);
        if (!symtab_get(&ix->table, name)) /* the first of equal names, as a scan finds */
            symtab_put(&ix->table, name, (void *)(intptr_t)(ix->count + 1));
    }
}

static int index_find(const Module *cm, NameIndex **slot, void *const *items, int count, NameOf name_of,
                      const char *name)
{
    Module *m = (Module *)cm; /* the index is a cache: look-ups stay logically const */
    for (int attempt = 0; attempt < 2; attempt++) {
        index_update(m, slot, items, count, name_of);
        intptr_t pos = (intptr_t)symtab_get(&(*slot)->table, name);
        if (!pos)
            return -1;
        if (strcmp(name_of(items[pos - 1]), name) == 0)
            return (int)pos - 1;
        (*slot)->count = -1; /* stale: rebuild */
    }
    return -1;
}

const Mesh *module_find_mesh(const Module *m, const char *name)
{
    int i = index_find(m, (NameIndex **)&m->mesh_index, (void *const *)m->meshes, m->num_meshes, mesh_name, name);
    return i < 0 ? NULL : m->meshes[i];
}

Func *module_find_func(const Module *m, const char *name)
{
    int i = index_find(m, (NameIndex **)&m->func_index, (void *const *)m->funcs, m->num_funcs, func_name, name);
    return i < 0 ? NULL : m->funcs[i];
}

void module_index(const Module *cm)
{
    Module *m = (Module *)cm;
    index_update(m, &m->func_index, (void *const *)m->funcs, m->num_funcs, func_name);
    index_update(m, &m->mesh_index, (void *const *)m->meshes, m->num_meshes, mesh_name);
}

static int64_t value_bytes(const TensorType *type)
{
    int64_t count, bytes;
    if (!type_num_elements(type, &count) || __builtin_mul_overflow(count, (int64_t)dtype_size(type->dtype), &bytes))
        return INT64_MAX;
    return bytes;
}

Value *value_new(Module *m, const char *name, TensorType type, Loc loc)
{
    int64_t bytes = value_bytes(&type);
    if (bytes > m->largest_value_bytes)
        m->largest_value_bytes = bytes;
    Value *v = ARENA_NEW(&m->arena, Value);
    v->name = name;
    v->type = type;
    v->loc = loc;
    v->id = m->num_values++;
    return v;
}

void module_account_value(Module *m, const Value *v)
{
    int64_t bytes = value_bytes(&v->type);
    if (bytes > m->largest_value_bytes)
        m->largest_value_bytes = bytes;
}

/* An op starts a cache line: its first line holds what walks and side
 * tables read (ir.h). */
enum { OP_LINE = 64 };
_Static_assert(offsetof(Op, region) + sizeof(Block *) <= OP_LINE, "an op's walked fields fill its first line");

Op *op_new(Module *m, OpKind kind, Loc loc)
{
    Op *op = arena_alloc_aligned(&m->arena, sizeof(Op), OP_LINE);
    op->kind = kind;
    op->loc = loc;
    op->id = m->num_ops++;
    m->ops_created[kind]++;
    return op;
}

/* A copy of op's aside, now op's, to change one field of. */
static OpAside *new_aside(Arena *arena, Op *op)
{
    OpAside *a = ARENA_NEW(arena, OpAside);
    if (op->aside)
        *a = *op->aside;
    op->aside = a;
    return a;
}

static bool loc_is_none(Loc loc) { return !loc.file && !loc.line && !loc.col; }

void op_set_str_loc(Arena *arena, Op *op, Loc loc)
{
    if (op->aside || !loc_is_none(loc))
        new_aside(arena, op)->str_loc = loc;
}

void op_set_callee_loc(Arena *arena, Op *op, Loc loc)
{
    if (op->aside || !loc_is_none(loc))
        new_aside(arena, op)->callee_loc = loc;
}

void op_set_bound_rule(Arena *arena, Op *op, const struct BoundRule *rule)
{
    if (op->aside || rule)
        new_aside(arena, op)->bound_rule = rule;
}

void block_append(Block *b, Op *op)
{
    op->parent = b;
    op->prev = b->last;
    op->next = NULL;
    if (b->last)
        b->last->next = op;
    else
        b->first = op;
    b->last = op;
}

void block_insert_before(Block *b, Op *before, Op *op)
{
    if (!before) {
        block_append(b, op);
        return;
    }
    op->parent = b;
    op->next = before;
    op->prev = before->prev;
    if (before->prev)
        before->prev->next = op;
    else
        b->first = op;
    before->prev = op;
}

void block_remove(Block *b, Op *op)
{
    if (op->prev)
        op->prev->next = op->next;
    else
        b->first = op->next;
    if (op->next)
        op->next->prev = op->prev;
    else
        b->last = op->prev;
    op->prev = op->next = NULL;
    op->parent = NULL;
}

/* The first mesh that is not the empty placeholder, else the first. */
static bool find_mesh(Value *v, void *user)
{
    const Mesh **mesh = user;
    if (v->sharding && (!*mesh || mesh_is_empty(*mesh)))
        *mesh = v->sharding->mesh;
    return !*mesh || mesh_is_empty(*mesh);
}

const Func *module_entry_func(const Module *m)
{
    return m->num_funcs == 1 ? m->funcs[0] : module_find_func(m, "main");
}

const Mesh *func_first_mesh(const Func *f)
{
    /* Not in shard_map bodies: per-device values, not the function's. */
    const Mesh *mesh = NULL;
    ir_walk(f->body, &(IrWalker){.value = find_mesh, .user = &mesh, .scope = IR_WALK_GLOBAL});
    return mesh;
}

bool mesh_is_empty(const Mesh *m)
{
    return m->num_axes == 0 && !m->device_ids;
}

static bool same_device_order(const Mesh *a, const Mesh *b)
{
    if (!a->device_ids || !b->device_ids)
        return !a->device_ids && !b->device_ids;
    for (int64_t i = 0; i < a->num_devices; i++)
        if (a->device_ids[i] != b->device_ids[i])
            return false;
    return true;
}

bool mesh_equal(const Mesh *a, const Mesh *b)
{
    if (a == b)
        return true;
    if (a->num_axes != b->num_axes || a->num_devices != b->num_devices)
        return false;
    for (int i = 0; i < a->num_axes; i++)
        if (a->axes[i].size != b->axes[i].size || strcmp(a->axes[i].name, b->axes[i].name) != 0)
            return false;
    return same_device_order(a, b);
}

bool op_has_scalar_body(const Op *op)
{
    return (op->kind == OP_REDUCE || op->kind == OP_SORT || op->kind == OP_SCATTER) && op->num_regions > 0;
}
