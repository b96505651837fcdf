/* The verifier's attribute checks, driven by the op table (ops.def): every
 * attribute an op carries must be one it takes, and each one it takes must
 * hold its type, each miss a located diagnostic. What depends on the op's
 * operands, mesh or group (dim ranges, axis names, spec counts) is left to
 * the op's own rule, which reads the attribute by key. */
#include <string.h>
#include "shardc/layout.h"
#include "shardc/verify.h"

/* How a missing required attribute is reported: "'op' needs attribute
 * 'name'" and this; NULL: by the op's rule, in words of its own. */
static const char *const missing_what[ATYPE_COUNT] = {
    [ATYPE_INT] = " (an integer)",
    [ATYPE_INTS] = " (a list of integers)",
    [ATYPE_STRING] = " (a string)",
    [ATYPE_AXES] = " (a list of mesh axis names)",
    [ATYPE_TENSOR] = "",
    [ATYPE_SCALAR] = "",
};

/* NULL if v holds a `type`, else what it must be. Values, symbols,
 * shardings, pairs and factor lists are checked by their op's rule
 * (against the type, mesh, count or group) or the rule-string options
 * (rules/registry.c). */
static const char *misfit(AttrType type, AttrKey key, const AttrValue *v)
{
    switch (type) {
    case ATYPE_INT: return v->kind == ATTR_INT ? NULL : "an integer";
    case ATYPE_INTS:
        if (attr_is_int_array(v) && v->u.array.count <= SHARDC_MAX_RANK)
            return NULL;
        return v->kind == ATTR_ARRAY && v->u.array.count > SHARDC_MAX_RANK
                   ? "a list of integers no longer than the rank"
                   : "a list of integers";
    case ATYPE_BOOL: return v->kind == ATTR_BOOL ? NULL : "true or false";
    case ATYPE_STRING: return v->kind == ATTR_STRING ? NULL : "a string";
    case ATYPE_AXES:
        /* manual_axes = []: a shard_map manual over no axis (Shardy's
         * manual_axes={}), whose body sees every axis free */
        if (key == ATTR_KEY_MANUAL_AXES && v->kind == ATTR_ARRAY)
            return NULL;
        return v->kind == ATTR_ARRAY && v->u.array.count > 0 ? NULL : "a non-empty list of mesh axis names";
    default: return NULL;
    }
}

static void report_misfit(VerifyCtx *vc, const Op *op, AttrKey key, const char *what)
{
    diag_error(vc->diag, op_attr_loc(op, key), "attribute '%s' of '%s' must be %s", attr_key_name(key),
               op_info(op->kind)->name, what);
}

/* What the written attribute a must be, or NULL if it fits its spec. */
static const char *spec_misfit(const OpAttrSpec *spec, const NamedAttr *a)
{
    return spec->presence != ATTR_ANNOTATION ? misfit(spec->type, spec->key, a->value) : NULL;
}

bool verify_attr_valid(const Op *op, AttrKey key)
{
    const OpAttrSpec *spec = op_attr_spec(op->kind, key);
    const NamedAttr *a = op_attr_find(op, key);
    if (!spec)
        return false;
    return a ? !spec_misfit(spec, a) : spec->presence != ATTR_REQUIRED;
}

/* Each attribute the op takes, against its spec. */
static void check_specs(VerifyCtx *vc, const Op *op)
{
    const OpInfo *info = op_info(op->kind);
    for (int i = 0; i < info->num_attrs; i++) {
        const OpAttrSpec *spec = &info->attrs[i];
        const NamedAttr *a = op_attr_find(op, spec->key);
        const char *what = a ? spec_misfit(spec, a) : NULL;
        if (what)
            report_misfit(vc, op, spec->key, what);
        else if (!a && spec->presence == ATTR_REQUIRED && missing_what[spec->type])
            diag_error(vc->diag, op->loc, "'%s' needs attribute '%s'%s", info->name, attr_key_name(spec->key),
                       missing_what[spec->type]);
    }
}

/* `dimension` on an op that takes `dim` (sort, concatenate, argmax: .shir's
 * name for StableHLO's `dimension`), or `dim` on iota: the name it takes. */
static const char *other_dim_spelling(const Op *op, const char *written)
{
    bool dim = strcmp(written, "dim") == 0, dimension = strcmp(written, "dimension") == 0;
    if (dimension && op_attr_spec(op->kind, ATTR_KEY_DIM))
        return "dim";
    return dim && op_attr_spec(op->kind, ATTR_KEY_DIMENSION) ? "dimension" : NULL;
}

static void report_unknown(VerifyCtx *vc, const Op *op, const NamedAttr *a)
{
    const OpInfo *info = op_info(op->kind);
    const char *spelled = other_dim_spelling(op, a->name);
    if (spelled) {
        diag_error(vc->diag, a->loc, "unknown attribute '%s' for '%s': .shir spells it '%s'", a->name, info->name,
                   spelled);
        return;
    }
    if (!info->num_attrs) {
        diag_error(vc->diag, a->loc, "unknown attribute '%s' for '%s' (it takes only out_sharding)", a->name,
                   info->name);
        return;
    }
    char names[256] = "";
    for (int i = 0; i < info->num_attrs; i++) {
        size_t n = strlen(names);
        snprintf(names + n, sizeof names - n, "%s%s", i ? " " : "", attr_key_name(info->attrs[i].key));
    }
    diag_error(vc->diag, a->loc, "unknown attribute '%s' for '%s' (it takes: %s, out_sharding)", a->name,
               info->name, names);
}

void verify_op_attrs(VerifyCtx *vc, const Op *op)
{
    const NamedAttr *out = NULL; /* the first out_sharding, as op_attr_find would find it */
    for (int i = 0; i < op->num_attrs; i++) {
        AttrKey key = op->attrs[i].key;
        if (key == ATTR_KEY_OUT_SHARDING)
            out = out ? out : &op->attrs[i];
        else if (!op_attr_spec(op->kind, key))
            report_unknown(vc, op, &op->attrs[i]);
    }
    if (out && out->value->kind != ATTR_SHARDING)
        diag_error(vc->diag, out->value->loc, "'out_sharding' must be a sharding <@mesh, [...]>");
    else if (out && op->num_results == 1)
        verify_value_sharding(vc, &out->value->u.sharding, &op->results[0]->type, out->value->loc,
                              "out_sharding");
    check_specs(vc, op);
}

bool verify_dim_attr(VerifyCtx *vc, const Op *op, AttrKey key, int rank, int64_t *out)
{
    if (!verify_attr_valid(op, key))
        return false; /* reported by verify_op_attrs */
    *out = op_attr_int(op, key);
    if (!op_attr_find(op, key))
        return true; /* the table's default */
    if (*out < 0 || *out >= rank) {
        diag_error(vc->diag, op_attr_loc(op, key), "'%s' = %lld is out of range for rank %d", attr_key_name(key),
                   (long long)*out, rank);
        return false;
    }
    return true;
}

static int find_axis(const Mesh *mesh, const char *name)
{
    for (int i = 0; i < mesh->num_axes; i++)
        if (strcmp(mesh->axes[i].name, name) == 0)
            return i;
    return -1;
}

/* The attribute, a valid axis list of at most max entries, or NULL
 * (reported). */
static const AttrValue *axis_list_attr(VerifyCtx *vc, const Op *op, AttrKey key, int max)
{
    if (!verify_attr_valid(op, key))
        return NULL; /* reported by verify_op_attrs */
    const AttrValue *v = op_attr_get(op, key);
    if (v->u.array.count > max) {
        report_misfit(vc, op, key, "a non-empty list of mesh axis names");
        return NULL;
    }
    return v;
}

int verify_mesh_axes(VerifyCtx *vc, const Op *op, AttrKey key, const Mesh *mesh, int *out, int max)
{
    const AttrValue *v = axis_list_attr(vc, op, key, max);
    if (!v)
        return -1;
    for (int i = 0; i < v->u.array.count; i++) {
        const AttrValue *item = v->u.array.items[i];
        int axis = item->kind == ATTR_STRING ? find_axis(mesh, item->u.s) : -1;
        if (axis < 0) {
            diag_error(vc->diag, item->loc, item->kind == ATTR_STRING ? "unknown axis \"%s\" in mesh '@%s'"
                                                                     : "expected an axis name%s in mesh '@%s'",
                       item->kind == ATTR_STRING ? item->u.s : "", mesh->name);
            return -1;
        }
        for (int j = 0; j < i; j++)
            if (out[j] == axis) {
                diag_error(vc->diag, item->loc, "axis \"%s\" is listed twice", item->u.s);
                return -1;
            }
        out[i] = axis;
    }
    return v->u.array.count;
}

int verify_axis_refs(VerifyCtx *vc, const Op *op, AttrKey key, const Mesh *mesh, AxisRef *out, int max)
{
    const AttrValue *v = axis_list_attr(vc, op, key, max);
    if (!v)
        return -1;
    for (int i = 0; i < v->u.array.count; i++) {
        const AttrValue *item = v->u.array.items[i];
        if (item->kind != ATTR_STRING || !axis_ref_parse(mesh, item->u.s, &out[i])) {
            diag_error(vc->diag, item->loc, "expected an axis of mesh '@%s' (\"x\" or a sub-axis \"x:(1)2\")",
                       mesh->name);
            return -1;
        }
        for (int j = 0; j < i; j++)
            if (axis_ref_overlaps(out[j], out[i])) {
                diag_error(vc->diag, item->loc, "axis \"%s\" overlaps another axis of the list", item->u.s);
                return -1;
            }
    }
    return v->u.array.count;
}
