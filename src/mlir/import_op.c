/* One MLIR op onto the IR: its name picks a handler (mlir_ops.def for the
 * ops with no attributes of their own, a handler for the others), its
 * operands and results become values, `sdy.sharding` / `mhlo.sharding` the
 * results' shardings, `shardc.<attr>` sets the op's attribute <attr> (how
 * the printer writes what only shardc models, e.g. shardc.check_vma), and
 * every other attribute is either read by the handler, kept as written
 * (discardable ones, dialect-prefixed, and the inherent ones that do not
 * change what the op computes) or refused with a located error. */
#include <string.h>
#include "mlir/import_internal.h"

typedef struct ImpOpEntry {
    const char *name;
    OpKind kind;
    ImpHandler handler;
} ImpOpEntry;

static bool plain(OpImport *oi)
{
    return mlir_imp_make_op(oi, oi->kind);
}

typedef enum { IMP_FORM_SAME, IMP_FORM_FUNC, IMP_FORM_SPECIAL, IMP_FORM_SHARDC } ImpForm;

static const struct {
    OpKind kind;
    const char *name;
    ImpForm form;
} op_table[] = {
#define MLIR_OP(kind, name, form) {OP_##kind, name, IMP_FORM_##form},
#include "mlir/mlir_ops.def"
#undef MLIR_OP
};

/* The SPECIAL ops' handlers, and MLIR ops with no line of their own in
 * mlir_ops.def (JAX's collectives inside manual computations). */
static const ImpOpEntry special_ops[] = {
    {"stablehlo.compare", OP_COMPARE, mlir_imp_compare},
    {"stablehlo.dot_general", OP_EINSUM, mlir_imp_dot_general},
    {"stablehlo.dot", OP_EINSUM, mlir_imp_dot},
    {"stablehlo.reduce", OP_REDUCE_SUM, mlir_imp_reduce},
    {"stablehlo.sort", OP_SORT, mlir_imp_sort},
    {"stablehlo.transpose", OP_TRANSPOSE, mlir_imp_transpose},
    {"stablehlo.broadcast_in_dim", OP_BROADCAST, mlir_imp_broadcast},
    {"stablehlo.concatenate", OP_CONCATENATE, mlir_imp_concatenate},
    {"stablehlo.slice", OP_SLICE, mlir_imp_slice},
    {"stablehlo.pad", OP_PAD, mlir_imp_pad},
    {"stablehlo.reverse", OP_REVERSE, mlir_imp_reverse},
    {"stablehlo.fft", OP_FFT, mlir_imp_fft},
    {"stablehlo.dynamic_slice", OP_DYNAMIC_SLICE, mlir_imp_dynamic_slice},
    {"stablehlo.gather", OP_GATHER, mlir_imp_gather},
    {"stablehlo.scatter", OP_SCATTER, mlir_imp_scatter},
    {"stablehlo.convolution", OP_CONVOLUTION, mlir_imp_convolution},
    {"stablehlo.reduce_window", OP_REDUCE_WINDOW, mlir_imp_reduce_window},
    {"stablehlo.select_and_scatter", OP_SELECT_AND_SCATTER, mlir_imp_select_and_scatter},
    {"stablehlo.rng_bit_generator", OP_RNG_BIT_GENERATOR, mlir_imp_rng_bit_generator},
    {"stablehlo.cholesky", OP_CHOLESKY, mlir_imp_linalg},
    {"stablehlo.triangular_solve", OP_TRIANGULAR_SOLVE, mlir_imp_linalg},
    {"stablehlo.batch_norm_inference", OP_BATCH_NORM_INFERENCE, mlir_imp_linalg},
    {"stablehlo.batch_norm_training", OP_BATCH_NORM_TRAINING, mlir_imp_linalg},
    {"stablehlo.batch_norm_grad", OP_BATCH_NORM_GRAD, mlir_imp_linalg},
    {"stablehlo.constant", OP_CONSTANT, mlir_imp_constant},
    {"sdy.constant", OP_CONSTANT, mlir_imp_constant},
    {"stablehlo.iota", OP_IOTA, mlir_imp_iota},
    {"func.call", OP_CALL, mlir_imp_call},
    {"stablehlo.custom_call", OP_CUSTOM, mlir_imp_custom_call},
    {"stablehlo.send", OP_CUSTOM, mlir_imp_host_transfer},
    {"stablehlo.recv", OP_CUSTOM, mlir_imp_host_transfer},
    {"sdy.sharding_constraint", OP_SHARDING_CONSTRAINT, mlir_imp_sharding_op},
    {"sdy.reshard", OP_RESHARD, mlir_imp_sharding_op},
    {"sdy.propagation_barrier", OP_PROPAGATION_BARRIER, mlir_imp_barrier},
    {"sdy.data_flow_edge", OP_DATA_FLOW_EDGE, mlir_imp_data_flow_edge},
    {"sdy.sharding_group", OP_SHARDING_GROUP, mlir_imp_sharding_group},
    {"sdy.manual_computation", OP_SHARD_MAP, mlir_imp_manual_computation},
    {"sdy.named_computation", OP_NAMED_COMPUTATION, mlir_imp_named_computation},
    {"stablehlo.while", OP_WHILE, mlir_imp_while},
    {"stablehlo.case", OP_CASE, mlir_imp_case},
    {"stablehlo.if", OP_CASE, mlir_imp_if},
    {"stablehlo.optimization_barrier", OP_OPTIMIZATION_BARRIER, plain},
    {"stablehlo.all_reduce", OP_PSUM, mlir_imp_collective},
    {"stablehlo.all_gather", OP_ALL_GATHER, mlir_imp_collective},
    {"stablehlo.all_to_all", OP_ALL_TO_ALL, mlir_imp_collective},
    {"stablehlo.collective_permute", OP_PPERMUTE, mlir_imp_collective},
    {"stablehlo.reduce_scatter", OP_PSUM_SCATTER, mlir_imp_collective},
    {"sdy.all_gather", OP_ALL_GATHER, mlir_imp_sdy_collective},
    {"sdy.all_slice", OP_ALL_SLICE, mlir_imp_sdy_collective},
    {"sdy.all_reduce", OP_ALL_REDUCE, mlir_imp_sdy_collective},
    {"sdy.reduce_scatter", OP_REDUCE_SCATTER, mlir_imp_sdy_collective},
    {"sdy.all_to_all", OP_ALL_TO_ALL, mlir_imp_sdy_collective},
    {"sdy.collective_permute", OP_COLLECTIVE_PERMUTE, mlir_imp_sdy_collective},
    {"stablehlo.collective_broadcast", OP_GROUP_COLLECTIVE_BROADCAST, mlir_imp_collective},
};

/* Inherent attributes kept as written on any op that has them: they do
 * not change what shardc computes (precision, layouts, channel ids,
 * custom_call's backend data). */
static const char *const kept_inherent[] = {
    "precision_config", "precision", "algorithm", "compare_type", "result_accuracy", "api_version",
    "backend_config", "has_side_effect", "called_computations", "output_operand_aliases", "operand_layouts",
    "result_layouts", "channel_handle", "use_global_device_ids", "custom_call_schedule",
};

void mlir_imp_register_ops(ImportCtx *ic)
{
    symtab_init(&ic->ops, &ic->tables);
    for (size_t i = 0; i < sizeof special_ops / sizeof special_ops[0]; i++)
        symtab_put(&ic->ops, special_ops[i].name, (void *)&special_ops[i]);
    for (size_t i = 0; i < sizeof op_table / sizeof op_table[0]; i++) {
        if (op_table[i].form == IMP_FORM_SPECIAL || symtab_get(&ic->ops, op_table[i].name))
            continue; /* a SPECIAL op with no handler is not supported yet (sdy.all_gather, ...) */
        ImpOpEntry *e = ARENA_NEW(&ic->tables, ImpOpEntry);
        *e = (ImpOpEntry){op_table[i].name, op_table[i].kind, plain};
        symtab_put(&ic->ops, e->name, e);
    }
}

/* ---- attributes ---- */

static const MlirAttr *find_attr(OpImport *oi, const char *name, char state)
{
    for (int i = 0; i < oi->src->attrs.count; i++) {
        const MlirNamedAttr *a = oi->src->attrs.items[i];
        if (strcmp(a->name, name) == 0) {
            oi->attr_state[i] = state;
            return a->value;
        }
    }
    return NULL;
}

const MlirAttr *mlir_imp_attr(OpImport *oi, const char *name)
{
    return find_attr(oi, name, IMP_READ);
}

const MlirAttr *mlir_imp_attr2(OpImport *oi, const char *name, const char *other)
{
    const MlirAttr *a = mlir_imp_attr(oi, name);
    /* other may be NULL (no second spelling): not a name to look up */
    return a || !other ? a : mlir_imp_attr(oi, other);
}

void mlir_imp_keep_attr(OpImport *oi, const char *name)
{
    find_attr(oi, name, IMP_KEPT);
}

AttrValue *mlir_imp_int_attr(ImportCtx *ic, int64_t v, Loc loc)
{
    AttrValue *a = attr_new(ic->arena, ATTR_INT, loc);
    a->u.i = v;
    return a;
}

AttrValue *mlir_imp_string_attr(ImportCtx *ic, const char *s, Loc loc)
{
    AttrValue *a = attr_new(ic->arena, ATTR_STRING, loc);
    a->u.s = mlir_imp_str(ic, s);
    return a;
}

AttrValue *mlir_imp_array(ImportCtx *ic, int count, Loc loc)
{
    AttrValue *a = attr_new(ic->arena, ATTR_ARRAY, loc);
    a->u.array.count = count;
    a->u.array.items = ARENA_ARRAY(ic->arena, AttrValue *, count);
    return a;
}

AttrValue *mlir_imp_int_list(ImportCtx *ic, const int64_t *v, int count, Loc loc)
{
    AttrValue *a = mlir_imp_array(ic, count, loc);
    for (int i = 0; i < count; i++)
        a->u.array.items[i] = mlir_imp_int_attr(ic, v[i], loc);
    return a;
}

bool mlir_imp_ints(ImportCtx *ic, const MlirAttr *a, const char *what, int64_t *out, int max, int *count)
{
    bool ok = a->kind == MA_ARRAY || a->kind == MA_DENSE_ARRAY;
    for (int i = 0; ok && i < a->items.count; i++)
        ok = ((const MlirAttr *)a->items.items[i])->kind == MA_INT;
    if (ok && a->items.count > max) {
        diag_error(ic->diag, mlir_imp_loc(ic, a->loc), "'%s' has %d entries, more than the maximum rank %d", what,
                   a->items.count, max);
        return false;
    }
    if (!ok) {
        diag_error(ic->diag, mlir_imp_loc(ic, a->loc), "'%s' must be a list of integers", what);
        return false;
    }
    for (int i = 0; i < a->items.count; i++)
        out[i] = ((const MlirAttr *)a->items.items[i])->i;
    *count = a->items.count;
    return true;
}

void mlir_imp_set(OpImport *oi, AttrKey key, AttrValue *v)
{
    Op *op = oi->op;
    for (int i = 0; i < op->num_attrs; i++)
        if (op->attrs[i].key == key) {
            op->attrs[i].value = v;
            return;
        }
    if (op->num_attrs == oi->attr_cap) {
        /* room for one, then doubling: most ops keep one attribute, and
         * room for four from the start was 15 MB of the 1e5-op
         * transformer's 107 MB peak (bench/mlir.sh) */
        oi->attr_cap = oi->attr_cap ? 2 * oi->attr_cap : 1;
        NamedAttr *attrs = ARENA_ARRAY(oi->ic->arena, NamedAttr, oi->attr_cap);
        if (op->num_attrs)
            memcpy(attrs, op->attrs, sizeof(NamedAttr) * (size_t)op->num_attrs);
        op->attrs = attrs;
    }
    op->attrs[op->num_attrs++] = (NamedAttr){.name = attr_key_name(key), .loc = v->loc, .value = v, .key = key};
}

static bool missing(OpImport *oi, const char *name)
{
    diag_error(oi->ic->diag, mlir_imp_loc(oi->ic, oi->src->loc), "'%s' needs attribute '%s'", oi->src->name, name);
    return false;
}

bool mlir_imp_ints_attr(OpImport *oi, AttrKey key, const char *name, const char *other, bool required)
{
    const MlirAttr *a = mlir_imp_attr2(oi, name, other);
    if (!a)
        return !required || missing(oi, name);
    int64_t v[SHARDC_MAX_RANK];
    int n;
    if (!mlir_imp_ints(oi->ic, a, name, v, SHARDC_MAX_RANK, &n))
        return false;
    mlir_imp_set(oi, key, mlir_imp_int_list(oi->ic, v, n, mlir_imp_loc(oi->ic, a->loc)));
    return true;
}

bool mlir_imp_int_attr_from(OpImport *oi, AttrKey key, const char *name, const char *other)
{
    const MlirAttr *a = mlir_imp_attr2(oi, name, other);
    if (!a)
        return missing(oi, name);
    if (a->kind != MA_INT) {
        diag_error(oi->ic->diag, mlir_imp_loc(oi->ic, a->loc), "'%s' must be an integer", name);
        return false;
    }
    mlir_imp_set(oi, key, mlir_imp_int_attr(oi->ic, a->i, mlir_imp_loc(oi->ic, a->loc)));
    return true;
}

static AttrValue *list_value(ImportCtx *ic, const MlirAttr *a, const TensorType *type, Loc loc)
{
    AttrValue *v = mlir_imp_array(ic, a->items.count, loc);
    for (int i = 0; i < a->items.count; i++)
        if (!(v->u.array.items[i] = mlir_imp_attr_value(ic, a->items.items[i], type)))
            return NULL;
    return v;
}

static AttrValue *dict_value(ImportCtx *ic, const MlirAttr *a, Loc loc)
{
    AttrValue *v = attr_new(ic->arena, ATTR_DICT, loc);
    v->u.dict.count = a->items.count;
    v->u.dict.items = ARENA_ARRAY(ic->arena, NamedAttr, a->items.count);
    for (int i = 0; i < a->items.count; i++) {
        const MlirNamedAttr *n = a->items.items[i];
        AttrValue *item = mlir_imp_attr_value(ic, n->value, NULL);
        if (!item)
            return NULL;
        v->u.dict.items[i] = (NamedAttr){mlir_imp_str(ic, n->name), mlir_imp_loc(ic, n->loc), item, ATTR_KEY_NONE};
    }
    return v;
}

/* {"x", "y":(1)2} as collectives write axes: ["x", "y:(1)2"]. */
static AttrValue *axes_value(ImportCtx *ic, const MlirAttr *a, Loc loc)
{
    AttrValue *v = mlir_imp_array(ic, a->items.count, loc);
    for (int i = 0; i < a->items.count; i++) {
        const MlirAxisRef *r = a->items.items[i];
        char buf[256];
        if (r->sub)
            snprintf(buf, sizeof buf, "%s:(%lld)%lld", r->name, (long long)r->pre_size, (long long)r->size);
        else
            snprintf(buf, sizeof buf, "%s", r->name);
        v->u.array.items[i] = mlir_imp_string_attr(ic, buf, mlir_imp_loc(ic, r->loc));
    }
    return v;
}

static AttrValue *scalar_value(ImportCtx *ic, const MlirAttr *a, Loc loc)
{
    AttrValue *v = attr_new(ic->arena, ATTR_INT, loc);
    switch (a->kind) {
    case MA_INT: v->u.i = a->i; break;
    case MA_FLOAT: v->kind = ATTR_FLOAT; v->u.f = a->f; break;
    case MA_BOOL: v->kind = ATTR_BOOL; v->u.b = a->b; break;
    case MA_UNIT: v->kind = ATTR_BOOL; v->u.b = true; break;
    case MA_STRING: case MA_KEYWORD: v->kind = ATTR_STRING; v->u.s = mlir_imp_str(ic, a->s); break;
    case MA_SYMBOL: v->kind = ATTR_SYMBOL; v->u.s = mlir_imp_str(ic, a->s); break;
    default: return NULL;
    }
    return v;
}

AttrValue *mlir_imp_attr_value(ImportCtx *ic, const MlirAttr *a, const TensorType *type)
{
    Loc loc = mlir_imp_loc(ic, a->loc);
    AttrValue *v = scalar_value(ic, a, loc);
    if (v)
        return v;
    switch (a->kind) {
    case MA_ARRAY: case MA_DENSE_ARRAY: return list_value(ic, a, type, loc);
    case MA_DICT: return dict_value(ic, a, loc);
    case MA_AXES: return axes_value(ic, a, loc);
    case MA_SHARDING: return mlir_imp_sharding_attr(ic, a->sharding);
    case MA_SHARDINGS: {
        v = mlir_imp_array(ic, a->shardings.count, loc);
        for (int i = 0; i < a->shardings.count; i++)
            if (!(v->u.array.items[i] = mlir_imp_sharding_attr(ic, a->shardings.items[i])))
                return NULL;
        return v;
    }
    case MA_DENSE:
        if (type)
            return mlir_imp_dense(ic, a, type);
        break;
    default: break;
    }
    const char *raw = mlir_attr_raw(&ic->scratch, a);
    diag_error(ic->diag, loc, "attribute '%s' has no shardc equivalent", raw ? raw : "?");
    return NULL;
}

const AttrValue *mlir_imp_scalar_operand(OpImport *oi, int i)
{
    const ImpValue *v = oi->operand_names[i];
    TensorType t;
    if (!v || !v->scalar || !mlir_imp_type(oi->ic, v->scalar->type, &t))
        return NULL;
    const AttrValue *scalar = mlir_imp_dense(oi->ic, v->scalar->literal, &t);
    return scalar && scalar->kind != ATTR_ARRAY ? scalar : NULL;
}

/* A rank-0 constant's literal and type, for mlir_imp_scalar_operand. */
static void keep_scalar_literal(ImportCtx *ic, const MlirOp *def, ImpValue *v)
{
    if ((strcmp(def->name, "stablehlo.constant") != 0 && strcmp(def->name, "sdy.constant") != 0) ||
        def->result_types.count != 1)
        return;
    const MlirAttr *value = mlir_dict_get(&def->attrs, "value");
    const MlirType *mt = def->result_types.items[0];
    if (!value || mt->kind != MT_TENSOR || mt->rank != 0)
        return;
    MlirAttr *literal = ARENA_NEW(&ic->tables, MlirAttr);   /* what mlir_imp_dense reads */
    literal->kind = value->kind;
    literal->loc = value->loc;
    literal->raw = value->raw ? arena_strdup(&ic->tables, value->raw) : mlir_attr_raw(&ic->tables, value);
    MlirType *type = ARENA_NEW(&ic->tables, MlirType);
    *type = *mt;    /* its text and dims are the parser's type table's (parse_build.c) */
    ImpScalar *scalar = ARENA_NEW(&ic->tables, ImpScalar);
    *scalar = (ImpScalar){literal, type};
    v->scalar = scalar;
}

/* ---- operands, results ---- */

static bool resolve_operands(OpImport *oi)
{
    ImportCtx *ic = oi->ic;
    int n = oi->src->operands.count;
    bool ok = true;
    oi->num_operands = n;
    oi->operands = ARENA_ARRAY(ic->arena, Value *, n);
    oi->operand_names = ARENA_ARRAY(&ic->scratch, ImpValue *, n);
    for (int i = 0; i < n; i++) {
        const MlirUse *use = oi->src->operands.items[i];
        int index;
        ImpValue *v = mlir_imp_use(ic, use, &index, oi->src);
        if (v && v->fold == IMP_BROADCAST && ++v->uses > 1)
            diag_error(ic->diag, mlir_imp_loc(ic, use->loc), "a shardc.implicit_broadcast value ('%%%s') must "
                       "have a single user", use->name);
        ok &= v != NULL;
        oi->operand_names[i] = v;
        oi->operands[i] = v ? v->values[index] : NULL;
    }
    return ok;
}

static bool result_types(OpImport *oi)
{
    const MlirOp *src = oi->src;
    if (src->result_types.count != src->num_results) {
        diag_error(oi->ic->diag, mlir_imp_loc(oi->ic, src->loc), "'%s' has %d result%s but %d result type%s",
                   src->name, src->num_results, src->num_results == 1 ? "" : "s", src->result_types.count,
                   src->result_types.count == 1 ? "" : "s");
        return false;
    }
    bool ok = true;
    oi->num_results = src->num_results;
    oi->result_types = ARENA_ARRAY(oi->ic->arena, TensorType, src->num_results);
    for (int i = 0; i < src->num_results; i++)
        ok &= mlir_imp_type(oi->ic, src->result_types.items[i], &oi->result_types[i]);
    return ok;
}

static bool check_counts(OpImport *oi, const OpInfo *info)
{
    int n = oi->num_operands;
    if (n < info->min_operands || (info->max_operands >= 0 && n > info->max_operands)) {
        diag_error(oi->ic->diag, mlir_imp_loc(oi->ic, oi->src->loc), "'%s' has %d operand%s; shardc's '%s' "
                   "takes %d%s", oi->src->name, n, n == 1 ? "" : "s", info->name, info->min_operands,
                   info->max_operands == info->min_operands ? "" : " or more");
        return false;
    }
    if (info->num_results >= 0 && oi->num_results != info->num_results) {
        diag_error(oi->ic->diag, mlir_imp_loc(oi->ic, oi->src->loc), "'%s' has %d result%s; shardc's '%s' has %d",
                   oi->src->name, oi->num_results, oi->num_results == 1 ? "" : "s", info->name,
                   info->num_results);
        return false;
    }
    return true;
}

/* Operands folded away by the printer's conventions may only go where
 * they came from. */
static bool check_folds(OpImport *oi, OpKind kind)
{
    OpClass cls = op_info(kind)->op_class;
    bool ok = true;
    for (int i = 0; i < oi->num_operands; i++) {
        const ImpValue *v = oi->operand_names[i];
        if (v->fold == IMP_CONSTANT || (v->fold == IMP_BROADCAST && cls != OPC_BINARY && cls != OPC_COMPARE &&
                                        cls != OPC_SELECT)) {
            const MlirUse *use = oi->src->operands.items[i]; /* folds come from written operands only */
            diag_error(oi->ic->diag, mlir_imp_loc(oi->ic, use->loc), "'%%%s' is marked %s: it may only be %s",
                       use->name, v->fold == IMP_CONSTANT ? "shardc.implicit_constant" : "shardc.implicit_broadcast",
                       v->fold == IMP_CONSTANT ? "a reduce's init or a pad's padding value"
                                               : "an operand of an elementwise binary op, compare or select");
            ok = false;
        }
    }
    return ok;
}

/* The result names of the op, in order (a def `%1:2` gives two). */
static const char **result_names(OpImport *oi)
{
    const char **names = ARENA_ARRAY(&oi->ic->scratch, const char *, oi->num_results + 1);
    int k = 0;
    for (int d = 0; d < oi->src->results.count; d++) {
        const MlirResultDef *def = oi->src->results.items[d];
        for (int i = 0; i < def->count && k < oi->num_results; i++)
            names[k++] = mlir_imp_value_name(oi->ic, def->name, def->count, i,
                                             oi->src->results.count == 1 ? &oi->result_entry : NULL);
    }
    return names;
}

static Loc result_loc(const OpImport *oi, int index)
{
    for (int d = 0, k = 0; d < oi->src->results.count; d++) {
        const MlirResultDef *def = oi->src->results.items[d];
        if (index < k + def->count)
            return mlir_imp_loc(oi->ic, def->loc);
        k += def->count;
    }
    return mlir_imp_loc(oi->ic, oi->src->loc);
}

bool mlir_imp_make_op(OpImport *oi, OpKind kind)
{
    ImportCtx *ic = oi->ic;
    if (!check_counts(oi, op_info(kind)) || !check_folds(oi, kind))
        return false;
    Op *op = op_new(ic->m, kind, mlir_imp_loc(ic, oi->src->loc));
    op->num_operands = oi->num_operands;
    op->operands = oi->operands;
    op->num_results = oi->num_results;
    op->results = ARENA_ARRAY(ic->arena, Value *, oi->num_results);
    const char **names = result_names(oi);
    for (int i = 0; i < oi->num_results; i++) {
        Value *v = value_new(ic->m, names[i], oi->result_types[i], result_loc(oi, i));
        v->def = op;
        v->index = i;
        op->results[i] = v;
    }
    oi->op = op;
    return true;
}

/* ---- finishing: result shardings, overrides, kept and refused attributes ---- */

void mlir_imp_unset(Op *op, AttrKey key)
{
    for (int i = 0; i < op->num_attrs; i++)
        if (op->attrs[i].key == key)
            op->attrs[i--] = op->attrs[--op->num_attrs];
}

/* Whether v is the ops.def default of a DEF attribute (bools and ints). */
static bool is_default(const OpAttrSpec *spec, const AttrValue *v)
{
    if (!spec || spec->presence != ATTR_DEFAULTED || spec->fallback.kind != v->kind)
        return false;
    return v->kind == ATTR_BOOL ? v->u.b == spec->fallback.u.b : v->kind == ATTR_INT && v->u.i == spec->fallback.u.i;
}

/* `shardc.<attr> = value` sets the op's attribute <attr>. Its default
 * leaves it unset, as .shir writes it: the printer spells out what MLIR's
 * reading would otherwise change (shardc.check_vma = true, since a
 * manual computation without it reads as check_vma = false). */
static bool apply_override(OpImport *oi, int i)
{
    const MlirNamedAttr *a = oi->src->attrs.items[i];
    const char *name = a->name + strlen("shardc.");
    AttrKey key = attr_key_lookup(name);
    oi->attr_state[i] = IMP_READ;
    if (key == ATTR_KEY_NONE || (key != ATTR_KEY_OUT_SHARDING && !op_attr_spec(oi->op->kind, key))) {
        diag_error(oi->ic->diag, mlir_imp_loc(oi->ic, a->loc), "'%s': shardc's '%s' has no attribute '%s'", a->name,
                   op_info(oi->op->kind)->name, name);
        return false;
    }
    AttrValue *v = mlir_imp_attr_value(oi->ic, a->value, oi->num_results ? &oi->result_types[0] : NULL);
    if (v && is_default(op_attr_spec(oi->op->kind, key), v))
        mlir_imp_unset(oi->op, key);
    else if (v)
        mlir_imp_set(oi, key, v);
    return v != NULL;
}

static bool is_kept_inherent(const char *name)
{
    for (size_t k = 0; k < sizeof kept_inherent / sizeof kept_inherent[0]; k++)
        if (strcmp(kept_inherent[k], name) == 0)
            return true;
    return false;
}

/* Ops whose every inherent attribute shardc reads (a constant's value, an
 * iota's dimension): any other attribute is discardable, as MLIR keeps
 * `stablehlo.constant {foo} dense<...>`'s `foo`. */
static bool reads_all_inherent(const char *op_name)
{
    static const char *const ops[] = {"stablehlo.constant", "sdy.constant", "stablehlo.iota"};
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
        if (strcmp(ops[k], op_name) == 0)
            return true;
    return false;
}

/* The attributes nobody read: kept if discardable (a dialect prefix, or
 * any on an op whose inherent ones were all read) or harmless, else
 * refused: an inherent attribute shardc does not know might change what
 * the op computes. */
static bool sort_out_attrs(OpImport *oi, MlirKeptAttr *kept, int *num_kept)
{
    bool ok = true;
    for (int i = 0; i < oi->src->attrs.count; i++) {
        const MlirNamedAttr *a = oi->src->attrs.items[i];
        if (oi->attr_state[i] == IMP_UNREAD && strncmp(a->name, "shardc.", 7) == 0)
            ok &= apply_override(oi, i);
        else if (oi->attr_state[i] == IMP_KEPT ||
                 (oi->attr_state[i] == IMP_UNREAD &&
                  (strchr(a->name, '.') || is_kept_inherent(a->name) || reads_all_inherent(oi->src->name))))
            kept[(*num_kept)++] = mlir_imp_keep(oi->ic, a);
        else if (oi->attr_state[i] == IMP_UNREAD) {
            diag_error(oi->ic->diag, mlir_imp_loc(oi->ic, a->loc), "attribute '%s' of '%s' is not supported by "
                       "shardc", a->name, oi->src->name);
            ok = false;
        }
    }
    return ok;
}

static bool finish_op(OpImport *oi)
{
    ImportCtx *ic = oi->ic;
    MlirKeptAttr *kept = ARENA_ARRAY(&ic->scratch, MlirKeptAttr, oi->src->attrs.count + 1);
    int num_kept = 0;
    bool ok = mlir_imp_result_shardings(oi);
    ok &= sort_out_attrs(oi, kept, &num_kept);
    const OpShardingRule *written = oi->op->kind == OP_CUSTOM ? NULL : mlir_imp_written_rule(oi);
    if (num_kept || oi->op_name || oi->init || oi->region_mesh || oi->no_compare_type || oi->rule_not_custom ||
        written) {
        struct MlirExtra *x = ARENA_NEW(ic->arena, struct MlirExtra);
        x->op_name = oi->op_name;
        x->init = oi->init;
        x->no_compare_type = oi->no_compare_type;
        x->rule_not_custom = oi->rule_not_custom;
        x->written_rule = written;
        x->region_mesh = oi->region_mesh ? mlir_imp_str(ic, oi->region_mesh) : NULL;
        x->attrs = mlir_imp_keep_list(ic, kept, num_kept);
        oi->op->mlir = x;
    }
    if (ok)
        block_append(ic->block, oi->op);
    return ok;
}

/* Each result name is defined, even after an error (with values of the
 * written types), so later uses do not report a cascade. */
static void define_results(OpImport *oi, bool made)
{
    ImportCtx *ic = oi->ic;
    for (int d = 0, k = 0; d < oi->src->results.count; d++) {
        const MlirResultDef *def = oi->src->results.items[d];
        ImpValue *v = mlir_imp_define(ic, def->name, oi->src->results.count == 1 ? oi->result_entry : NULL,
                                      def->count, def->loc);
        if (oi->kind == OP_CONSTANT)
            keep_scalar_literal(ic, oi->src, v);
        v->fold = made ? oi->fold : IMP_PLAIN;
        for (int i = 0; i < def->count; i++, k++) {
            if (made && oi->fold == IMP_BROADCAST)
                v->values[i] = oi->operands[0];
            else if (made && oi->fold == IMP_PLAIN)
                v->values[i] = oi->op->results[k];
            else if (!made || oi->fold != IMP_CONSTANT)
                v->values[i] = value_new(ic->m, def->name,
                                         k < oi->num_results ? oi->result_types[k] : (TensorType){0},
                                         mlir_imp_value_loc(ic, v));
        }
    }
}

/* A generic `"shardc.<op>"(...) {attrs}`: a shardc op with no StableHLO
 * equivalent, its attributes by name (`sharding`/`shardings` are the
 * results' shardings, as in .shir; `callee` is call's and custom's @f). */
static bool shardc_op(OpImport *oi)
{
    ImportCtx *ic = oi->ic;
    OpKind kind;
    if (!op_lookup(oi->src->name + strlen("shardc."), &kind)) {
        diag_error(ic->diag, mlir_imp_loc(ic, oi->src->loc), "op '%s' is not supported by shardc: shardc has no "
                   "op '%s'", oi->src->name, oi->src->name + strlen("shardc."));
        return false;
    }
    if (oi->src->regions.count) {
        diag_error(ic->diag, mlir_imp_loc(ic, oi->src->loc), "'%s' takes no region", oi->src->name);
        return false;
    }
    if (!mlir_imp_make_op(oi, kind))
        return false;
    bool ok = true;
    for (int i = 0; i < oi->src->attrs.count; i++) {
        const MlirNamedAttr *a = oi->src->attrs.items[i];
        if (strchr(a->name, '.'))
            continue; /* sdy.sharding, kept ones: finish_op */
        oi->attr_state[i] = IMP_READ;
        if (strcmp(a->name, "callee") == 0 && a->value->kind == MA_SYMBOL) {
            oi->op->callee = mlir_imp_str(ic, a->value->s);
            op_set_callee_loc(ic->arena, oi->op, mlir_imp_loc(ic, a->value->loc));
            continue;
        }
        if (strcmp(a->name, "spec") == 0 && a->value->kind == MA_STRING) { /* einsum's */
            oi->op->str = mlir_imp_str(ic, a->value->s);
            op_set_str_loc(ic->arena, oi->op, mlir_imp_loc(ic, a->value->loc));
            continue;
        }
        AttrKey key = strcmp(a->name, "sharding") == 0 || strcmp(a->name, "shardings") == 0
                          ? ATTR_KEY_NONE : attr_key_lookup(a->name);
        if (key == ATTR_KEY_NONE) {
            oi->attr_state[i] = IMP_UNREAD; /* sharding(s): finish_op; else refused there */
            continue;
        }
        AttrValue *v = mlir_imp_attr_value(ic, a->value, oi->num_results ? &oi->result_types[0] : NULL);
        if (v)
            mlir_imp_set(oi, key, v);
        ok &= v != NULL;
    }
    return ok;
}

/* An op of a dialect shardc does not know, read under mlir-opt's
 * -allow-unregistered-dialect: an opaque custom op named after it, with
 * no rule (nothing propagates through it, as through Shardy's ops without
 * one), printed back in the generic form with its attributes as written.
 * With regions it is refused: shardc could not say what they compute. */
static bool unregistered_op(OpImport *oi)
{
    if (oi->src->regions.count) {
        diag_error(oi->ic->diag, mlir_imp_loc(oi->ic, oi->src->loc), "op '%s' of an unregistered dialect has "
                   "regions, which shardc does not read", oi->src->name);
        return false;
    }
    if (!mlir_imp_make_op(oi, OP_CUSTOM))
        return false;
    oi->op_name = mlir_imp_str(oi->ic, oi->src->name);
    oi->op->callee = oi->op_name;
    op_set_callee_loc(oi->ic->arena, oi->op, oi->op->loc);
    for (int i = 0; i < oi->src->attrs.count; i++)
        oi->attr_state[i] = IMP_KEPT;
    return true;
}

/* The dialects shardc reads; MLIR refuses an unknown op of a registered
 * dialect even with -allow-unregistered-dialect. */
static bool registered_dialect(const char *op_name)
{
    static const char *const dialects[] = {"stablehlo.", "sdy.", "func.", "chlo.", "mhlo.", "shardc.", "builtin."};
    for (size_t k = 0; k < sizeof dialects / sizeof dialects[0]; k++)
        if (strncmp(op_name, dialects[k], strlen(dialects[k])) == 0)
            return true;
    return !strchr(op_name, '.');
}

static const char *op_handler(ImportCtx *ic, OpImport *oi, ImpHandler *handler)
{
    const ImpOpEntry *e = mlir_cached_get(&ic->recent_ops, &ic->ops, oi->src->name, true);
    if (e) {
        oi->kind = e->kind;
        *handler = e->handler;
        return e->name;
    }
    if (strncmp(oi->src->name, "shardc.", 7) == 0) {
        *handler = shardc_op;
        return oi->src->name;
    }
    if (ic->allow_unregistered && !registered_dialect(oi->src->name)) {
        *handler = unregistered_op;
        return oi->src->name;
    }
    return NULL;
}

/* An elementwise op, a manual computation or a constant: what Shardy's
 * verifier has messages about on dynamic and unranked values (the plain
 * handler, the manual computation's local shapes, the dense literal's
 * static shape), and whose handlers compute nothing from dims. */
static bool reads_dynamic(const OpImport *oi, ImpHandler handler)
{
    if (handler == mlir_imp_manual_computation || handler == mlir_imp_constant)
        return true;
    OpClass cls = op_info(oi->kind)->op_class;
    return handler == plain && (cls == OPC_UNARY || cls == OPC_UNARY_FLOAT || cls == OPC_BINARY ||
                                cls == OPC_COMPARE || cls == OPC_SELECT || cls == OPC_CONVERT);
}

static bool refuse_dynamic(const OpImport *oi, const char *what, const char *name, const TensorType *t)
{
    char text[128];
    type_mlir_text(text, sizeof text, t);
    diag_error(oi->ic->diag, mlir_imp_loc(oi->ic, oi->src->loc), "'%s' op %s %%%s has the %s type %s: shardc reads "
               "dynamic and unranked values only as function arguments and results that no op uses (docs/mlir.md)",
               oi->src->name, what, name, t->rank == SHARDC_UNRANKED ? "unranked" : "dynamic", text);
    return false;
}

/* Other ops on dynamic or unranked values are refused before their
 * handlers compute with the dims (static_shapes.c refuses the rest). */
static bool dynamic_read(const OpImport *oi, ImpHandler handler)
{
    if (!oi->ic->read_dynamic || reads_dynamic(oi, handler))
        return true;
    for (int i = 0; i < oi->num_operands; i++)
        if (!type_is_static(&oi->operands[i]->type))
            return refuse_dynamic(oi, "operand", oi->operands[i]->name, &oi->operands[i]->type);
    for (int d = 0, k = 0; d < oi->src->results.count; d++) {
        const MlirResultDef *def = oi->src->results.items[d];
        for (int i = 0; i < def->count && k < oi->num_results; i++, k++)
            if (!type_is_static(&oi->result_types[k]))
                return refuse_dynamic(oi, "result", def->name, &oi->result_types[k]);
    }
    return true;
}

static void import_op(ImportCtx *ic, const MlirOp *src)
{
    OpImport oi = {.ic = ic, .src = src};
    oi.attr_state = arena_alloc(&ic->scratch, (size_t)src->attrs.count + 1);
    ImpHandler handler = NULL;
    bool made = false;
    if (!op_handler(ic, &oi, &handler))
        diag_error(ic->diag, mlir_imp_loc(ic, src->loc), "op '%s' is not supported by shardc", src->name);
    else if (resolve_operands(&oi) && result_types(&oi) && mlir_imp_verify_rule(&oi) && dynamic_read(&oi, handler) &&
             handler(&oi))
        made = oi.fold != IMP_PLAIN || finish_op(&oi);
    define_results(&oi, made);
}

/* The scratch of a function body's op is reset after it: kept for the
 * module, what it held (a tenth of the memory of reading MLIR) added up. */
void mlir_imp_op(ImportCtx *ic, const MlirOp *src)
{
    ic->op_depth++;
    import_op(ic, src);
    if (--ic->op_depth == 0)
        mlir_reuse_arena(&ic->scratch);
}
