/* stablehlo.cholesky, triangular_solve and batch_norm_*: their attributes
 * are shardc's own under the same names (ops.def), so each is read by its
 * name; transpose_a's enum `#stablehlo<transpose X>` arrives as the
 * keyword X (mlir_normalize_attrs) and becomes the string "X". */
#include <string.h>
#include "mlir/import_internal.h"

/* The ops.def default, which .shir leaves unwritten (the printer spells
 * out what StableHLO requires). */
static bool is_fallback(const OpAttrSpec *spec, const AttrValue *v)
{
    const AttrValue *f = &spec->fallback;
    if (spec->presence != ATTR_DEFAULTED || f->kind != v->kind)
        return false;
    return v->kind == ATTR_BOOL ? v->u.b == f->u.b : v->kind == ATTR_STRING && strcmp(v->u.s, f->u.s) == 0;
}

static bool read_own_attr(OpImport *oi, const OpAttrSpec *spec)
{
    const char *name = attr_key_name(spec->key);
    const MlirAttr *a = mlir_imp_attr(oi, name);
    if (!a)
        return true; /* a missing required one: the verifier's located error */
    bool fits = spec->type == ATYPE_BOOL     ? a->kind == MA_BOOL
                : spec->type == ATYPE_INT    ? a->kind == MA_INT
                : spec->type == ATYPE_SCALAR ? a->kind == MA_INT || a->kind == MA_FLOAT
                                             : a->kind == MA_KEYWORD || a->kind == MA_STRING;
    if (!fits) {
        diag_error(oi->ic->diag, mlir_imp_loc(oi->ic, a->loc), "'%s' of '%s' has the wrong kind of value", name,
                   oi->src->name);
        return false;
    }
    AttrValue *v = mlir_imp_attr_value(oi->ic, a, NULL);
    if (v && !is_fallback(spec, v))
        mlir_imp_set(oi, spec->key, v);
    return v != NULL;
}

bool mlir_imp_linalg(OpImport *oi)
{
    if (!mlir_imp_make_op(oi, oi->kind))
        return false;
    const OpInfo *info = op_info(oi->kind);
    bool ok = true;
    for (int i = 0; i < info->num_attrs; i++)
        ok &= read_own_attr(oi, &info->attrs[i]);
    return ok;
}
