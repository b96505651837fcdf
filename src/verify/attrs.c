/* Typed attribute access for the verifier, each miss a located diagnostic. */
#include <string.h>
#include "shardc/layout.h"
#include "shardc/verify.h"

Loc va_loc(const Op *op, const char *name)
{
    const NamedAttr *a = op_attr(op, name);
    return a ? a->value->loc : op->loc;
}

static const AttrValue *lookup(VerifyCtx *vc, const Op *op, const char *name, bool required,
                               const char *what)
{
    const AttrValue *v = op_attr_value(op, name);
    if (!v && required)
        diag_error(vc->diag, op->loc, "'%s' needs attribute '%s' (%s)", op_info(op->kind)->name, name, what);
    return v;
}

static void wrong_kind(VerifyCtx *vc, const Op *op, const char *name, const char *what)
{
    diag_error(vc->diag, va_loc(op, name), "attribute '%s' of '%s' must be %s", name,
               op_info(op->kind)->name, what);
}

bool va_int(VerifyCtx *vc, const Op *op, const char *name, bool required, int64_t *out)
{
    const AttrValue *v = lookup(vc, op, name, required, "an integer");
    if (!v)
        return !required;
    if (v->kind != ATTR_INT) {
        wrong_kind(vc, op, name, "an integer");
        return false;
    }
    *out = v->u.i;
    return true;
}

int va_ints(VerifyCtx *vc, const Op *op, const char *name, bool required, int64_t *out, int max)
{
    const AttrValue *v = lookup(vc, op, name, required, "a list of integers");
    if (!v)
        return required ? -1 : 0;
    int n = attr_int_array(v, out, max);
    if (n < 0)
        wrong_kind(vc, op, name, v->kind == ATTR_ARRAY && v->u.array.count > max
                                     ? "a list of integers no longer than the rank"
                                     : "a list of integers");
    return n;
}

bool va_bool(VerifyCtx *vc, const Op *op, const char *name, bool fallback, bool *out)
{
    const AttrValue *v = op_attr_value(op, name);
    *out = fallback;
    if (!v)
        return true;
    if (v->kind != ATTR_BOOL) {
        wrong_kind(vc, op, name, "true or false");
        return false;
    }
    *out = v->u.b;
    return true;
}

const char *va_string(VerifyCtx *vc, const Op *op, const char *name, bool required)
{
    const AttrValue *v = lookup(vc, op, name, required, "a string");
    if (!v)
        return NULL;
    if (v->kind != ATTR_STRING) {
        wrong_kind(vc, op, name, "a string");
        return NULL;
    }
    return v->u.s;
}

bool va_dim(VerifyCtx *vc, const Op *op, const char *name, int rank, bool required, int64_t *out)
{
    if (!va_int(vc, op, name, required, out))
        return false;
    if (!op_attr_value(op, name))
        return true; /* optional and absent: *out keeps the caller's default */
    if (*out < 0 || *out >= rank) {
        diag_error(vc->diag, va_loc(op, name), "'%s' = %lld is out of range for rank %d", name,
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

/* The attribute as a non-empty list of at most max entries, or NULL
 * (reported). */
static const AttrValue *axis_list_attr(VerifyCtx *vc, const Op *op, const char *name, int max)
{
    const AttrValue *v = lookup(vc, op, name, true, "a list of mesh axis names");
    if (v && (v->kind != ATTR_ARRAY || v->u.array.count == 0 || v->u.array.count > max)) {
        wrong_kind(vc, op, name, "a non-empty list of mesh axis names");
        return NULL;
    }
    return v;
}

int va_axes(VerifyCtx *vc, const Op *op, const char *name, const Mesh *mesh, int *out, int max)
{
    const AttrValue *v = axis_list_attr(vc, op, name, max);
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

int va_axis_refs(VerifyCtx *vc, const Op *op, const char *name, const Mesh *mesh, AxisRef *out, int max)
{
    const AttrValue *v = axis_list_attr(vc, op, name, max);
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
