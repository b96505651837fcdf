/* stablehlo.gather and stablehlo.scatter: the dimension numbers of their
 * #stablehlo.gather<...> / #stablehlo.scatter<...> attribute become the
 * op's dim-list attributes; a scatter's update computation, one binary op
 * of its two block arguments or the return of the update, becomes its
 * combiner; any other, or one of several inputs, stays a region. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "mlir/import_internal.h"

static bool gs_error(OpImport *oi, Loc loc, const char *msg, const char *detail)
{
    diag_error(oi->ic->diag, mlir_imp_loc(oi->ic, loc), "'%s': %s%s", oi->src->name, msg, detail);
    return false;
}

static const char *skip_space(const char *s)
{
    while (*s == ' ')
        s++;
    return s;
}

/* `[1, 2]` or `3` into v; the end, or NULL. */
static const char *parse_value(const char *s, int64_t *v, int *n, bool *is_list)
{
    *n = 0;
    *is_list = *s == '[';
    if (!*is_list) {
        char *end;
        v[0] = strtoll(s, &end, 10);
        *n = 1;
        return end == s ? NULL : end;
    }
    s = skip_space(s + 1);
    while (*s != ']') {
        char *end;
        if (*n == SHARDC_MAX_RANK)
            return NULL;
        v[(*n)++] = strtoll(s, &end, 10);
        if (end == s)
            return NULL;
        s = skip_space(end);
        if (*s == ',')
            s = skip_space(s + 1);
        else if (*s != ']')
            return NULL;
    }
    return s + 1;
}

/* The entries of a dimension-numbers attribute, by their StableHLO names,
 * which are the .shir attribute names. */
static bool read_dim_numbers(OpImport *oi, const MlirAttr *a, const char *mnemonic)
{
    char prefix[32];
    snprintf(prefix, sizeof prefix, "#stablehlo.%s<", mnemonic);
    if (a->kind != MA_DIALECT || !a->raw || strncmp(a->raw, prefix, strlen(prefix)) != 0)
        return gs_error(oi, a->loc, "its dimension numbers must be ", prefix);
    Loc loc = mlir_imp_loc(oi->ic, a->loc);
    mlir_imp_set(oi, ATTR_KEY_INDEX_VECTOR_DIM, mlir_imp_int_attr(oi->ic, 0, loc));
    for (const char *s = skip_space(a->raw + strlen(prefix)); *s != '>';) {
        char name[64];
        size_t len = 0;
        while ((isalnum((unsigned char)s[len]) || s[len] == '_') && len + 1 < sizeof name)
            len++;
        memcpy(name, s, len);
        name[len] = '\0';
        s = skip_space(s + len);
        AttrKey key = attr_key_lookup(name);
        int64_t v[SHARDC_MAX_RANK];
        int n;
        bool list;
        if (key == ATTR_KEY_NONE || !op_attr_spec(oi->op->kind, key) || *s != '=')
            return gs_error(oi, a->loc, "unknown or malformed dimension numbers entry ", name);
        if (!(s = parse_value(skip_space(s + 1), v, &n, &list)) || list != (key != ATTR_KEY_INDEX_VECTOR_DIM))
            return gs_error(oi, a->loc, "malformed dimension numbers entry ", name);
        mlir_imp_set(oi, key, list ? mlir_imp_int_list(oi->ic, v, n, loc) : mlir_imp_int_attr(oi->ic, v[0], loc));
        s = skip_space(s);
        if (*s == ',')
            s = skip_space(s + 1);
        else if (*s != '>')
            return gs_error(oi, a->loc, "malformed dimension numbers after ", name);
    }
    return true;
}

static bool read_flag(OpImport *oi, AttrKey key)
{
    const MlirAttr *a = mlir_imp_attr(oi, attr_key_name(key));
    if (!a)
        return true;
    if (a->kind != MA_BOOL)
        return gs_error(oi, a->loc, "attribute must be true or false: ", attr_key_name(key));
    AttrValue *v = attr_new(oi->ic->arena, ATTR_BOOL, mlir_imp_loc(oi->ic, a->loc));
    v->u.b = a->b;
    mlir_imp_set(oi, key, v);
    return true;
}

bool mlir_imp_gather(OpImport *oi)
{
    const MlirAttr *d = mlir_imp_attr(oi, "dimension_numbers");
    if (!mlir_imp_make_op(oi, OP_GATHER))
        return false;
    if (!d)
        return gs_error(oi, oi->src->loc, "it needs attribute ", "'dimension_numbers'");
    return read_dim_numbers(oi, d, "gather") &&
           mlir_imp_ints_attr(oi, ATTR_KEY_SLICE_SIZES, "slice_sizes", "slice_sizes", true) &&
           read_flag(oi, ATTR_KEY_INDICES_ARE_SORTED);
}

/* A block argument's scalar sharding constraint `sdy.sharding_constraint
 * %arg <@mesh, []>` (Shardy keeps them on a scatter's region): its mesh,
 * or NULL. Replicated scalars, so they change nothing but the text. */
static const char *arg_constraint(const MlirOp *op, const MlirBlock *b, const char **arg)
{
    if (strcmp(op->name, "sdy.sharding_constraint") != 0 || op->operands.count != 1 || op->results.count != 1)
        return NULL;
    const MlirAttr *a = mlir_dict_get(&op->attrs, "sharding");
    const MlirSharding *sh = a && a->kind == MA_SHARDING ? a->sharding : NULL;
    if (!sh || !sh->mesh_name || sh->dims.count || sh->replicated.count || sh->unreduced.count)
        return NULL;
    const char *use = ((const MlirUse *)op->operands.items[0])->name;
    for (int i = 0; i < b->args.count; i++)
        if (strcmp(((const MlirBlockArg *)b->args.items[i])->name, use) == 0)
            *arg = use;
    return *arg ? sh->mesh_name : NULL;
}

/* The name a use stands for: a constrained argument's own name. */
static const char *unalias(const char *use, const char *const *from, const char *const *to, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(use, from[i]) == 0)
            return to[i];
    return use;
}

static const char *use_name(const MlirOp *op, int i)
{
    return ((const MlirUse *)op->operands.items[i])->name;
}

/* The combiner of a body of one binary op of its two arguments (or that
 * returns its second argument: "replace"), after optional constraints of
 * both arguments (*mesh gets their mesh); NULL if it is none of those. */
static const char *match_body(const MlirBlock *b, const char **mesh)
{
    static const char *const map[][2] = {{"stablehlo.add", "add"},     {"stablehlo.multiply", "mul"},
                                         {"stablehlo.maximum", "max"}, {"stablehlo.minimum", "min"},
                                         {"stablehlo.and", "and"},     {"stablehlo.or", "or"}};
    const char *from[2], *to[2];
    int n = 0, k = 0;
    *mesh = NULL;
    for (; k < b->ops.count && n < 2; k++) {
        const MlirOp *op = b->ops.items[k];
        const char *arg = NULL, *m = arg_constraint(op, b, &arg);
        if (!m || (*mesh && strcmp(*mesh, m) != 0))
            break;
        *mesh = m;
        from[n] = ((const MlirResultDef *)op->results.items[0])->name;
        to[n++] = arg;
    }
    if (n == 1 || b->args.count != 2)
        return NULL;
    const char *x = ((const MlirBlockArg *)b->args.items[0])->name, *y = ((const MlirBlockArg *)b->args.items[1])->name;
    if (n == 2 && (strcmp(to[0], x) != 0 || strcmp(to[1], y) != 0))
        return NULL; /* printed back in argument order */
    const MlirOp *ret = b->ops.items[b->ops.count - 1];
    if (strcmp(ret->name, "stablehlo.return") != 0 || ret->operands.count != 1)
        return NULL;
    const char *r = unalias(use_name(ret, 0), from, to, n);
    if (k == b->ops.count - 1 && strcmp(r, y) == 0)
        return "replace";
    const MlirOp *op = k == b->ops.count - 2 ? b->ops.items[k] : NULL;
    if (!op || op->operands.count != 2 || op->results.count != 1 ||
        strcmp(r, ((const MlirResultDef *)op->results.items[0])->name) != 0)
        return NULL;
    const char *u = unalias(use_name(op, 0), from, to, n), *v = unalias(use_name(op, 1), from, to, n);
    if (!((strcmp(u, x) == 0 && strcmp(v, y) == 0) || (strcmp(u, y) == 0 && strcmp(v, x) == 0)))
        return NULL;
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(map[i][0], op->name) == 0)
            return map[i][1];
    return NULL;
}

/* The combiner of a one-input update computation that names one, or
 * NULL: the region is then kept as it is. */
static const char *combiner_of(OpImport *oi)
{
    const MlirRegion *r = oi->src->regions.count == 1 ? oi->src->regions.items[0] : NULL;
    const MlirBlock *b = r && r->blocks.count == 1 ? r->blocks.items[0] : NULL;
    return b && oi->num_operands == 3 ? match_body(b, &oi->region_mesh) : NULL;
}

/* One input whose region is a known combiner becomes `combiner` (printed
 * back as that region); any other region, or several inputs, is kept as
 * the op's update region. */
bool mlir_imp_scatter(OpImport *oi)
{
    if (oi->src->regions.count != 1)
        return gs_error(oi, oi->src->loc, "it needs its update computation region", "");
    const MlirAttr *d = mlir_imp_attr(oi, "scatter_dimension_numbers");
    const char *c = combiner_of(oi);
    if (!mlir_imp_make_op(oi, OP_SCATTER))
        return false;
    if (!d)
        return gs_error(oi, oi->src->loc, "it needs attribute ", "'scatter_dimension_numbers'");
    if (c)
        mlir_imp_set(oi, ATTR_KEY_COMBINER, mlir_imp_string_attr(oi->ic, c, oi->op->loc));
    else if (!mlir_imp_regions(oi, false))
        return false;
    return read_dim_numbers(oi, d, "scatter") && read_flag(oi, ATTR_KEY_INDICES_ARE_SORTED) &&
           read_flag(oi, ATTR_KEY_UNIQUE_INDICES);
}
