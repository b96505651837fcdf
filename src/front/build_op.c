/* Building ops from their written syntax: op name, operand and result counts,
 * result values and the result shardings written as attributes. */
#include <string.h>
#include "front/parse_ctx.h"
#include "shardc/suggest.h"

static bool check_counts(ParseCtx *ctx, const OpSyntax *s, const OpInfo *info)
{
    bool ok = true;
    int n = s->operands.count;
    if (n < info->min_operands || (info->max_operands >= 0 && n > info->max_operands)) {
        if (info->min_operands == info->max_operands)
            diag_error(ctx->diag, s->name_loc, "'%s' takes %d operand%s, got %d", info->name,
                       info->min_operands, info->min_operands == 1 ? "" : "s", n);
        else if (info->max_operands < 0)
            diag_error(ctx->diag, s->name_loc, "'%s' takes at least %d operand%s, got %d", info->name,
                       info->min_operands, info->min_operands == 1 ? "" : "s", n);
        else
            diag_error(ctx->diag, s->name_loc, "'%s' takes %d to %d operands, got %d", info->name,
                       info->min_operands, info->max_operands, n);
        ok = false;
    }
    /* Types left out are inferred (infer.c): one per result name. */
    int results = s->types.count ? s->types.count : s->result_names.count;
    if (s->types.count && s->result_names.count != s->types.count) {
        diag_error(ctx->diag, s->name_loc, "%d result name%s but %d result type%s", s->result_names.count,
                   s->result_names.count == 1 ? "" : "s", s->types.count, s->types.count == 1 ? "" : "s");
        ok = false;
    } else if (info->num_results >= 0 && results != info->num_results) {
        diag_error(ctx->diag, s->name_loc, "'%s' has %d result%s, got %d", info->name, info->num_results,
                   info->num_results == 1 ? "" : "s", results);
        ok = false;
    }
    return ok;
}

/* while has a cond and a body region; case a region per branch; a named
 * computation one body. */
static bool check_region_count(ParseCtx *ctx, const OpSyntax *s, OpKind kind)
{
    int n = (s->region != NULL) + s->regions.count;
    if (kind == OP_WHILE && n != 2) {
        diag_error(ctx->diag, s->name_loc, "'while' takes a cond region and a body region, got %d region%s: "
                   "while %%x (%%a: ...) {... return %%p} (%%a: ...) {... return %%a2}", n, n == 1 ? "" : "s");
        return false;
    }
    if (kind == OP_CASE && n == 0) {
        diag_error(ctx->diag, s->name_loc, "'case' takes a region per branch: case %%i () {...} () {...}");
        return false;
    }
    if (kind == OP_NAMED_COMPUTATION && n != 1) {
        diag_error(ctx->diag, s->name_loc, "'named_computation' takes one body region: "
                   "named_computation %%a {name = \"f\"} (%%x: ...) {... return %%y}");
        return false;
    }
    if (kind == OP_REDUCE && n != 1) {
        diag_error(ctx->diag, s->name_loc, "'reduce' takes one body region: reduce %%x, %%init {dims = [1]} "
                   "(%%acc: f32[], %%e: f32[]) {... return %%r} : f32[...]");
        return false;
    }
    if (kind != OP_WHILE && kind != OP_CASE && s->regions.count) {
        diag_error(ctx->diag, s->name_loc, "'%s' takes at most one region", op_info(kind)->name);
        return false;
    }
    return true;
}

static bool check_structure(ParseCtx *ctx, const OpSyntax *s, OpKind kind)
{
    bool wants_callee = kind == OP_CALL || kind == OP_CUSTOM;
    bool ok = true;
    if (wants_callee && !s->callee) {
        diag_error(ctx->diag, s->name_loc, "'%s' needs a callee: %s @f(%%a, ...)", op_info(kind)->name,
                   op_info(kind)->name);
        ok = false;
    } else if (!wants_callee && s->callee) {
        diag_error(ctx->diag, s->callee_loc, "'%s' does not take a callee", op_info(kind)->name);
        ok = false;
    }
    /* a scatter's update region and sort's comparator are optional
     * (`combiner` may name the first; without the second, sort's fixed
     * order) */
    bool region_op = kind == OP_WHILE || kind == OP_CASE || kind == OP_NAMED_COMPUTATION || kind == OP_REDUCE ||
                     ((kind == OP_SCATTER || kind == OP_SORT) && s->region);
    if (region_op || s->regions.count) {
        if (!check_region_count(ctx, s, kind))
            ok = false;
    } else if ((kind == OP_SHARD_MAP) != (s->region != NULL)) {
        diag_error(ctx->diag, s->name_loc, kind == OP_SHARD_MAP ? "'shard_map' needs a body region"
                                                                 : "'%s' does not take a region",
                   op_info(kind)->name);
        ok = false;
    }
    if ((kind == OP_EINSUM) != (s->str != NULL)) {
        diag_error(ctx->diag, kind == OP_EINSUM ? s->name_loc : s->str_loc,
                   kind == OP_EINSUM ? "'einsum' needs its spec string: einsum \"ij,jk->ik\" %%a, %%b"
                                     : "'%s' does not take a string operand",
                   op_info(kind)->name);
        ok = false;
    }
    return ok;
}

/* `sharding = <...>` gives the single result's sharding; `shardings =
 * [<...>, ...]` one per result. They move from the attributes to the values. */
static bool take_result_shardings(ParseCtx *ctx, Op *op, const NamedAttr *a)
{
    if (strcmp(a->name, "sharding") == 0) {
        if (a->value->kind != ATTR_SHARDING)
            diag_error(ctx->diag, a->value->loc, "'sharding' must be a sharding <@mesh, [...]>");
        else if (op->num_results != 1)
            diag_error(ctx->diag, a->loc, "'sharding' is for single-result ops; use 'shardings = [...]' "
                                          "with one sharding per result");
        else
            op->results[0]->sharding = a->value->u.sharding;
        return true;
    }
    if (strcmp(a->name, "shardings") != 0)
        return false;
    const AttrValue *v = a->value;
    if (v->kind != ATTR_ARRAY || v->u.array.count != op->num_results) {
        diag_error(ctx->diag, v->loc, "'shardings' must list one sharding per result (%d)", op->num_results);
        return true;
    }
    for (int i = 0; i < v->u.array.count; i++) {
        if (v->u.array.items[i]->kind != ATTR_SHARDING)
            diag_error(ctx->diag, v->u.array.items[i]->loc, "expected a sharding <@mesh, [...]>");
        else
            op->results[i]->sharding = v->u.array.items[i]->u.sharding;
    }
    return true;
}

static void set_attrs(ParseCtx *ctx, Op *op, const PtrList *attrs)
{
    op->attrs = ARENA_ARRAY(ctx->arena, NamedAttr, attrs->count);
    for (int i = 0; i < attrs->count; i++) {
        const NamedAttr *a = attrs->items[i];
        for (int j = 0; j < op->num_attrs; j++)
            if (strcmp(op->attrs[j].name, a->name) == 0)
                diag_error(ctx->diag, a->loc, "duplicate attribute '%s'", a->name);
        if (take_result_shardings(ctx, op, a) || build_take_op_logical(ctx, op, a))
            continue;
        /* Its key was resolved by build_named_attr; an unknown name keeps
         * ATTR_KEY_NONE, which the verifier reports with the names the op takes. */
        op->attrs[op->num_attrs++] = *a;
    }
    if (op->num_results == 1)
        build_check_one_layout(ctx, op->results[0]->sharding, op->results[0]->logical);
}

/* The results, typed as written, or untyped until build_infer_result_types
 * when the types were left out. */
static void make_results(ParseCtx *ctx, Op *op, const OpSyntax *s)
{
    op->num_results = s->result_names.count;
    op->results = ARENA_ARRAY(ctx->arena, Value *, op->num_results);
    for (int i = 0; i < op->num_results; i++) {
        const NameRef *n = s->result_names.items[i];
        TensorType t = s->types.count ? *(TensorType *)s->types.items[i] : (TensorType){0};
        Value *v = value_new(ctx->module, arena_strdup(ctx->arena, n->name), t, n->loc);
        v->def = op;
        v->index = i;
        op->results[i] = v;
        build_define_value(ctx, v);
    }
}

/* A dropped op's results are still defined (with the written types where
 * they line up), so later uses do not report a cascade of undefined values.
 * The module is discarded anyway because an error was reported. */
static void define_dropped_results(ParseCtx *ctx, const OpSyntax *s)
{
    for (int i = 0; i < s->result_names.count; i++) {
        const NameRef *n = s->result_names.items[i];
        TensorType t = i < s->types.count ? *(TensorType *)s->types.items[i] : (TensorType){0};
        build_define_value(ctx, value_new(ctx->module, arena_strdup(ctx->arena, n->name), t, n->loc));
    }
}

/* Control flow keeps all its regions in Op.regions. */
static void set_regions(ParseCtx *ctx, Op *op, const OpSyntax *s)
{
    op->num_regions = 1 + s->regions.count;
    op->regions = ARENA_ARRAY(ctx->arena, Block *, op->num_regions);
    op->regions[0] = s->region;
    for (int i = 1; i < op->num_regions; i++)
        op->regions[i] = s->regions.items[i - 1];
    for (int i = 0; i < op->num_regions; i++)
        op->regions[i]->parent_op = op;
}

static bool infer_types(ParseCtx *ctx, Op *op)
{
    if (!build_infer_result_types(ctx, op))
        return false;
    for (int i = 0; i < op->num_results; i++)
        module_account_value(ctx->module, op->results[i]);
    return true;
}

/* "unknown op 'negate'; did you mean 'neg'?" */
static void report_unknown_op(ParseCtx *ctx, const OpSyntax *s)
{
    const char *names[OP_COUNT];
    for (int k = 0; k < OP_COUNT; k++)
        names[k] = op_info((OpKind)k)->name;
    const char *name = s->name->text;
    const char *near = suggest_closest(name, strlen(name), names, OP_COUNT);
    if (near)
        diag_error(ctx->diag, s->name_loc, "unknown op '%s'; did you mean '%s'?", name, near);
    else
        diag_error(ctx->diag, s->name_loc, "unknown op '%s'", name);
}

void build_op(ParseCtx *ctx, OpSyntax *s)
{
    OpKind kind = (OpKind)s->name->op;
    bool ok = true;
    if (s->name->op < 0) {
        report_unknown_op(ctx, s);
        ok = false;
    }
    for (int i = 0; ok && i < s->operands.count; i++)
        if (!s->operands.items[i])
            ok = false; /* an undefined operand was reported already */
    /* An op cut short by a lexical error (its types, now optional, not
     * reached) is not built: the error is the lexer's. */
    if (ctx->lex_error_pending)
        ok = false;
    if (!ok || !check_counts(ctx, s, op_info(kind)) || !check_structure(ctx, s, kind) || !ctx->block) {
        define_dropped_results(ctx, s);
        return;
    }
    Op *op = op_new(ctx->module, kind, s->name_loc);
    op->str = s->str;
    op->callee = s->callee;
    if (s->str)
        op_set_str_loc(ctx->arena, op, s->str_loc);
    if (s->callee)
        op_set_callee_loc(ctx->arena, op, s->callee_loc);
    op->num_operands = s->operands.count;
    op->operands = arena_memdup(ctx->arena, s->operands.items, (size_t)s->operands.count, sizeof(Value *));
    if (kind == OP_WHILE || kind == OP_CASE || kind == OP_NAMED_COMPUTATION || kind == OP_REDUCE ||
        ((kind == OP_SCATTER || kind == OP_SORT) && s->region))
        set_regions(ctx, op, s);
    else
        op->region = s->region;
    if (op->region)
        op->region->parent_op = op;
    make_results(ctx, op, s);
    set_attrs(ctx, op, &s->attrs);
    if (!s->types.count && op->num_results && !infer_types(ctx, op))
        return; /* reported; the module is discarded */
    block_append(ctx->block, op);
}
