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

/* ---- JAX's lapack_*_ffi custom_calls ---- */

/* One mhlo.backend_config entry, `uplo = 76 : ui8`: the letter as the
 * string "L". */
static bool backend_letter(OpImport *oi, const MlirNamedAttr *e)
{
    static const AttrKey keys[] = {ATTR_KEY_UPLO, ATTR_KEY_MODE, ATTR_KEY_SIDE, ATTR_KEY_TRANS_X, ATTR_KEY_DIAG};
    Loc loc = mlir_imp_loc(oi->ic, e->loc);
    AttrKey key = attr_key_lookup(e->name);
    bool known = false;
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        known |= key == keys[i];
    if (!known || e->value->kind != MA_INT || e->value->i < 32 || e->value->i > 126) {
        diag_error(oi->ic->diag, loc, "mhlo.backend_config entry '%s' is not a LAPACK letter shardc knows "
                   "(uplo, mode, side, trans_x, diag = <ASCII code> : ui8)", e->name);
        return false;
    }
    char s[2] = {(char)e->value->i, 0};
    mlir_imp_set(oi, key, mlir_imp_string_attr(oi->ic, s, loc));
    return true;
}

/* stablehlo.custom_call @lapack_..._ffi -> the lapack op: its backend
 * config's letters become attributes; its layouts (JAX's column-major
 * matrices) are kept as written, and a JAX sharding rule on it is
 * dropped: shardc's rule for the op replaces it (rules/linalg.c). */
bool mlir_imp_lapack(OpImport *oi, const char *target, Loc target_loc)
{
    const MlirAttr *config = mlir_imp_attr(oi, "mhlo.backend_config");
    mlir_imp_attr(oi, "sdy.sharding_rule");
    mlir_imp_keep_attr(oi, "mhlo.frontend_attributes");
    if (!mlir_imp_make_op(oi, OP_LAPACK))
        return false;
    mlir_imp_set(oi, ATTR_KEY_TARGET, mlir_imp_string_attr(oi->ic, target, target_loc));
    if (config && config->kind != MA_DICT) {
        diag_error(oi->ic->diag, mlir_imp_loc(oi->ic, config->loc), "mhlo.backend_config of '%s' must be a dict",
                   target);
        return false;
    }
    bool ok = true;
    for (int i = 0; config && i < config->items.count; i++)
        ok &= backend_letter(oi, config->items.items[i]);
    return ok;
}
