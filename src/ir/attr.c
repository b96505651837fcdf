/* Op attributes by key: names, the ops.def specs, typed reads and setting.
 * The verifier has checked each attribute against its spec, so the stages
 * after it read them here, defaults included, without look-ups by name. */
#include <string.h>
#include "shardc/ir.h"

static const char *const key_names[ATTR_KEY_COUNT] = {
    [ATTR_KEY_NONE] = "",
#define ATTR_KEY(id, name) [ATTR_KEY_##id] = name,
#include "shardc/attrs.def"
#undef ATTR_KEY
};

const char *attr_key_name(AttrKey key) { return key_names[key]; }

AttrKey attr_key_lookup(const char *name)
{
    for (int k = ATTR_KEY_NONE + 1; k < ATTR_KEY_COUNT; k++)
        if (strcmp(key_names[k], name) == 0)
            return (AttrKey)k;
    return ATTR_KEY_NONE;
}

const OpAttrSpec *op_attr_spec(OpKind kind, AttrKey key)
{
    for (const OpAttrSpec *s = op_info(kind)->attrs; s->key != ATTR_KEY_NONE; s++)
        if (s->key == key)
            return s;
    return NULL;
}

const NamedAttr *op_attr_find(const Op *op, AttrKey key)
{
    for (int i = 0; i < op->num_attrs; i++)
        if (op->attrs[i].key == key)
            return &op->attrs[i];
    return NULL;
}

const AttrValue *op_attr_get(const Op *op, AttrKey key)
{
    const NamedAttr *a = op_attr_find(op, key);
    if (a)
        return a->value;
    const OpAttrSpec *s = op_attr_spec(op->kind, key);
    return s && s->presence == ATTR_DEFAULTED ? &s->fallback : NULL;
}

Loc op_attr_loc(const Op *op, AttrKey key)
{
    const NamedAttr *a = op_attr_find(op, key);
    return a ? a->value->loc : op->loc;
}

/* The value if it is of kind `kind`, else the default if it is, else NULL. */
static const AttrValue *get_kind(const Op *op, AttrKey key, AttrKind kind)
{
    const NamedAttr *a = op_attr_find(op, key);
    if (a && a->value->kind == kind)
        return a->value;
    const OpAttrSpec *s = op_attr_spec(op->kind, key);
    return s && s->presence == ATTR_DEFAULTED && s->fallback.kind == kind ? &s->fallback : NULL;
}

int64_t op_attr_int(const Op *op, AttrKey key)
{
    const AttrValue *v = get_kind(op, key, ATTR_INT);
    return v ? v->u.i : 0;
}

bool op_attr_bool(const Op *op, AttrKey key)
{
    const AttrValue *v = get_kind(op, key, ATTR_BOOL);
    return v && v->u.b;
}

const char *op_attr_string(const Op *op, AttrKey key)
{
    const AttrValue *v = get_kind(op, key, ATTR_STRING);
    return v ? v->u.s : NULL;
}

int op_barrier_directions(const Op *op)
{
    static const char *const words[] = {"none", "forward", "backward", "both"};
    const char *s = op_attr_string(op, ATTR_KEY_ALLOWED_DIRECTION);
    for (int i = 0; s && i < 4; i++)
        if (strcmp(s, words[i]) == 0)
            return i;
    return -1;
}

const char *op_attr_symbol(const Op *op, AttrKey key)
{
    const AttrValue *v = get_kind(op, key, ATTR_SYMBOL);
    return v ? v->u.s : NULL;
}

const Mesh *op_attr_mesh(const Module *m, const Op *op, AttrKey key)
{
    const char *name = op_attr_symbol(op, key);
    return name ? module_find_mesh(m, name) : NULL;
}

Sharding *op_attr_sharding(const Op *op, AttrKey key)
{
    const AttrValue *v = get_kind(op, key, ATTR_SHARDING);
    return v ? v->u.sharding : NULL;
}

Sharding *op_attr_sharding_at(const Op *op, AttrKey key, int i)
{
    const AttrValue *v = get_kind(op, key, ATTR_ARRAY);
    if (!v || i < 0 || i >= v->u.array.count || v->u.array.items[i]->kind != ATTR_SHARDING)
        return NULL;
    return v->u.array.items[i]->u.sharding;
}

int op_attr_ints(const Op *op, AttrKey key, int64_t *out, int max)
{
    return attr_int_array(op_attr_get(op, key), out, max);
}

void op_attr_set(Arena *arena, Op *op, AttrKey key, AttrValue *value)
{
    NamedAttr *attrs = ARENA_ARRAY(arena, NamedAttr, op->num_attrs + 1);
    if (op->num_attrs)
        memcpy(attrs, op->attrs, sizeof(NamedAttr) * (size_t)op->num_attrs);
    op->attrs = attrs;
    for (int i = 0; i < op->num_attrs; i++)
        if (attrs[i].key == key) {
            attrs[i].value = value;
            return;
        }
    attrs[op->num_attrs++] = (NamedAttr){.name = attr_key_name(key), .loc = op->loc, .value = value, .key = key};
}

void op_attrs_append(Arena *arena, Op *op, int n, const AttrKey *keys, AttrValue *const *values)
{
    NamedAttr *attrs = ARENA_ARRAY(arena, NamedAttr, op->num_attrs + n);
    if (op->num_attrs)
        memcpy(attrs, op->attrs, sizeof(NamedAttr) * (size_t)op->num_attrs);
    for (int i = 0; i < n; i++)
        attrs[op->num_attrs + i] =
            (NamedAttr){.name = attr_key_name(keys[i]), .loc = op->loc, .value = values[i], .key = keys[i]};
    op->attrs = attrs;
    op->num_attrs += n;
}

AttrValue *attr_new(Arena *arena, AttrKind kind, Loc loc)
{
    AttrValue *v = ARENA_NEW(arena, AttrValue);
    v->kind = kind;
    v->loc = loc;
    return v;
}

bool attr_is_int_array(const AttrValue *v)
{
    if (!v || v->kind != ATTR_ARRAY)
        return false;
    for (int i = 0; i < v->u.array.count; i++)
        if (v->u.array.items[i]->kind != ATTR_INT)
            return false;
    return true;
}

int attr_int_array(const AttrValue *v, int64_t *out, int max)
{
    if (!attr_is_int_array(v) || v->u.array.count > max)
        return -1;
    for (int i = 0; i < v->u.array.count; i++)
        out[i] = v->u.array.items[i]->u.i;
    return v->u.array.count;
}
