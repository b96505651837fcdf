/* Custom op forms to generic ops. The grammar reads a custom form as an op
 * name, items, a signature and what follows it (mlir_parse_ctx.h); each
 * op's form says what its items mean. The result is the op MLIR's generic
 * form spells out, with the attribute names the generic form uses, so the
 * importer reads one form. Items a form does not take are an error. */
#include <string.h>
#include "mlir/mlir_parse_ctx.h"

#define NEW(ctx, type) ((type *)arena_alloc((ctx)->arena, sizeof(type)))
#define PUSH(ctx, list, item) arena_list_push((ctx)->arena, &(list), (item))

typedef struct Form Form;
typedef bool (*FormFn)(MlirParseCtx *ctx, MlirCustomSyntax *syn, MlirOp *op, int *next);

/* Custom keys that the generic form names otherwise, per op. */
typedef struct KeyRename {
    const char *op, *custom, *generic;
} KeyRename;

static const KeyRename key_renames[] = {
    {"stablehlo.broadcast_in_dim", "dims", "broadcast_dimensions"},
    {"stablehlo.transpose", "dims", "permutation"},
    {"stablehlo.reverse", "dims", "dimensions"},
    {"stablehlo.concatenate", "dim", "dimension"},
    {"stablehlo.iota", "dim", "iota_dimension"},
    {"stablehlo.pad", "low", "edge_padding_low"},
    {"stablehlo.pad", "high", "edge_padding_high"},
    {"stablehlo.pad", "interior", "interior_padding"},
    {"stablehlo.dynamic_slice", "sizes", "slice_sizes"},
    {"stablehlo.rng_bit_generator", "algorithm", "rng_algorithm"},
    {"stablehlo.dot_general", "precision", "precision_config"},
    {"stablehlo.dot", "precision", "precision_config"},
    {"stablehlo.reduce", "dimensions", "dimensions"},
    {"stablehlo.fft", "type", "fft_type"},
    {"stablehlo.fft", "length", "fft_length"},
    {"sdy.all_gather", "out_sharding", "out_sharding"},
};

/* The key first: it is short and rarely matches, the op names share
 * their `stablehlo.` prefix (bench/instructions.sh). */
static const char *generic_key(const char *op, const char *key)
{
    for (size_t i = 0; i < sizeof key_renames / sizeof key_renames[0]; i++) {
        if (key_renames[i].custom[0] == key[0] && strcmp(key_renames[i].custom, key) == 0 &&
            strcmp(key_renames[i].op, op) == 0)
            return key_renames[i].generic;
    }
    return key;
}

static void add_attr(MlirParseCtx *ctx, MlirOp *op, const char *name, MlirAttr *value, Loc loc)
{
    PUSH(ctx, op->attrs, mlir_named(ctx, generic_key(op->name, name), value, loc));
}

static MlirSyntaxItem *item_at(MlirCustomSyntax *syn, int i)
{
    return i < syn->items.count ? syn->items.items[i] : NULL;
}

static bool unexpected(MlirParseCtx *ctx, const MlirOp *op, const MlirSyntaxItem *it)
{
    static const char *const what[] = {"value", "keyword", "attribute", "attribute", "attribute dict",
                                       "'('", "region", "':'", "type", "'->'"};
    const char *word = it->kind == MI_KEYWORD ? it->name : what[it->kind];
    diag_error(ctx->diag, it->loc, "unexpected %s '%s' in the custom form of '%s'",
               it->kind == MI_KEYWORD ? "keyword" : "item", word, op->name);
    ctx->syntax_errors++;
    return false;
}

/* `key = [1] x [0]` (dot_general's dims) as one MA_DIMS_PAIR value. */
static MlirAttr *dims_pair(MlirParseCtx *ctx, MlirCustomSyntax *syn, MlirSyntaxItem *named, int *next)
{
    MlirSyntaxItem *x = item_at(syn, *next), *rhs = item_at(syn, *next + 1);
    if (!x || x->kind != MI_KEYWORD || strcmp(x->name, "x") != 0 || !rhs || rhs->kind != MI_ATTR)
        return named->attr;
    MlirAttr *pair = mlir_attr_new(ctx, MA_DIMS_PAIR, named->attr->loc);
    PUSH(ctx, pair->items, named->attr);
    PUSH(ctx, pair->items, rhs->attr);
    *next += 2;
    return pair;
}

/* The items every form shares: values are operands, `key = value` and
 * dicts attributes, regions regions. False if the item is none of those. */
static bool common_item(MlirParseCtx *ctx, MlirCustomSyntax *syn, MlirOp *op, MlirSyntaxItem *it, int *next)
{
    switch (it->kind) {
    case MI_USE:
        PUSH(ctx, op->operands, it->use);
        return true;
    case MI_NAMED:
        add_attr(ctx, op, it->name, dims_pair(ctx, syn, it, next), it->loc);
        return true;
    case MI_DICT:
        for (int i = 0; i < it->list.count; i++)
            PUSH(ctx, op->attrs, it->list.items[i]);
        return true;
    case MI_REGION:
        PUSH(ctx, op->regions, it->region);
        return true;
    default:
        return false;
    }
}

/* ---- per-op items ---- */

/* `( %a, %b )`: operands. */
static bool paren_uses(MlirParseCtx *ctx, MlirOp *op, MlirSyntaxItem *parens)
{
    for (int i = 0; i < parens->list.count; i++) {
        MlirSyntaxItem *u = parens->list.items[i];
        if (u->kind != MI_USE)
            return unexpected(ctx, op, u);
        PUSH(ctx, op->operands, u->use);
    }
    return true;
}

/* `(%arg1: tensor<...>, ...)`: a region's block arguments. */
static bool paren_block_args(MlirParseCtx *ctx, MlirOp *op, MlirSyntaxItem *parens, MlirList *out)
{
    MlirList *l = &parens->list;
    for (int i = 0; i < l->count; i += 3) {
        MlirSyntaxItem *name = l->items[i];
        MlirSyntaxItem *colon = i + 1 < l->count ? l->items[i + 1] : NULL;
        MlirSyntaxItem *type = i + 2 < l->count ? l->items[i + 2] : NULL;
        if (name->kind != MI_USE || !colon || colon->kind != MI_COLON || !type ||
            !(type->kind == MI_ATTR && type->attr->kind == MA_TYPE))
            return unexpected(ctx, op, name);
        MlirBlockArg *arg = NEW(ctx, MlirBlockArg);
        *arg = (MlirBlockArg){name->use->name, type->attr->type, {0}, name->loc};
        PUSH(ctx, *out, arg);
    }
    return true;
}

static void init_forms(MlirParseCtx *ctx);

/* Whether shardc maps the op onto its IR (mlir_ops.def): its custom
 * form is read strictly. The forms of other ops are read leniently, so
 * that the importer reports the op itself as not supported. */
static bool is_mapped(MlirParseCtx *ctx, const char *name)
{
    init_forms(ctx);
    return symtab_get(&ctx->mapped, name) != NULL;
}

/* Other keywords and values a form takes; the default takes `(%a, %b)`
 * as operands, and keeps the rest of an op shardc does not map under
 * MLIR_UNREAD_ITEMS. */
static bool form_default(MlirParseCtx *ctx, MlirCustomSyntax *syn, MlirOp *op, int *next)
{
    MlirSyntaxItem *it = item_at(syn, *next - 1);
    bool uses = it->kind == MI_PARENS && it->list.count > 0;
    for (int i = 0; uses && i < it->list.count; i++)
        uses = ((MlirSyntaxItem *)it->list.items[i])->kind == MI_USE;
    if (uses)
        return paren_uses(ctx, op, it);
    if (is_mapped(ctx, op->name))
        return unexpected(ctx, op, it);
    if (!mlir_dict_get(&op->attrs, MLIR_UNREAD_ITEMS))
        add_attr(ctx, op, MLIR_UNREAD_ITEMS, mlir_attr_new(ctx, MA_UNIT, it->loc), it->loc);
    return true;
}

/* compare: `GT, %a, %b` and an optional comparison type `FLOAT`. */
static bool form_compare(MlirParseCtx *ctx, MlirCustomSyntax *syn, MlirOp *op, int *next)
{
    MlirSyntaxItem *it = item_at(syn, *next - 1);
    if (it->kind != MI_KEYWORD)
        return unexpected(ctx, op, it);
    const char *key = op->operands.count == 0 ? "comparison_direction" : "compare_type";
    add_attr(ctx, op, key, mlir_build_keyword(ctx, it->name, it->loc), it->loc);
    return true;
}

/* `@target(%a, %b)` of call and custom_call. */
static bool form_callee(MlirParseCtx *ctx, MlirCustomSyntax *syn, MlirOp *op, int *next)
{
    MlirSyntaxItem *it = item_at(syn, *next - 1);
    if (it->kind == MI_ATTR && it->attr->kind == MA_SYMBOL) {
        bool call = strcmp(op->name, "func.call") == 0;
        MlirAttr *target = it->attr;
        if (!call) {
            target = mlir_attr_new(ctx, MA_STRING, it->loc);
            target->s = it->attr->s;
        }
        add_attr(ctx, op, call ? "callee" : "call_target_name", target, it->loc);
        return true;
    }
    if (it->kind == MI_PARENS)
        return paren_uses(ctx, op, it);
    return unexpected(ctx, op, it);
}

/* slice: `%x [0:4, 2:8:2]`. */
static bool form_slice(MlirParseCtx *ctx, MlirCustomSyntax *syn, MlirOp *op, int *next)
{
    MlirSyntaxItem *it = item_at(syn, *next - 1);
    if (it->kind != MI_ATTR || it->attr->kind != MA_ARRAY)
        return unexpected(ctx, op, it);
    MlirAttr *parts[3];
    for (int k = 0; k < 3; k++)
        parts[k] = mlir_attr_new(ctx, MA_DENSE_ARRAY, it->loc);
    for (int i = 0; i < it->attr->items.count; i++) {
        MlirAttr *range = it->attr->items.items[i];
        if (range->kind != MA_ARRAY || !range->s)
            return unexpected(ctx, op, it);
        for (int k = 0; k < 3; k++) {
            MlirAttr *v = k < range->items.count ? range->items.items[k] : mlir_build_int(ctx, "1", it->loc);
            PUSH(ctx, parts[k]->items, v);
        }
    }
    add_attr(ctx, op, "start_indices", parts[0], it->loc);
    add_attr(ctx, op, "limit_indices", parts[1], it->loc);
    add_attr(ctx, op, "strides", parts[2], it->loc);
    return true;
}

/* The sharding after the operand of sharding_constraint and reshard. */
static bool form_sharding(MlirParseCtx *ctx, MlirCustomSyntax *syn, MlirOp *op, int *next)
{
    MlirSyntaxItem *it = item_at(syn, *next - 1);
    if (it->kind != MI_ATTR || it->attr->kind != MA_SHARDING)
        return unexpected(ctx, op, it);
    add_attr(ctx, op, "sharding", it->attr, it->loc);
    return true;
}

/* constant: `dense<...>` (or any attribute) is its value. */
static bool form_constant(MlirParseCtx *ctx, MlirCustomSyntax *syn, MlirOp *op, int *next)
{
    MlirSyntaxItem *it = item_at(syn, *next - 1);
    if (it->kind != MI_ATTR)
        return unexpected(ctx, op, it);
    add_attr(ctx, op, "value", it->attr, it->loc);
    return true;
}

/* sdy collectives: `max` (reduce_scatter), axes `[{"a"}, {}]` or `{"a"}`. */
static bool form_collective(MlirParseCtx *ctx, MlirCustomSyntax *syn, MlirOp *op, int *next)
{
    static const struct { const char *op, *key; } axes_keys[] = {
        {"sdy.all_gather", "gathering_axes"}, {"sdy.all_slice", "slicing_axes"},
        {"sdy.all_reduce", "reduction_axes"}, {"sdy.reduce_scatter", "reduce_scatter_axes"},
        {"sdy.all_to_all", "params"},
    };
    MlirSyntaxItem *it = item_at(syn, *next - 1);
    if (it->kind == MI_KEYWORD) {
        add_attr(ctx, op, "reduction", mlir_build_keyword(ctx, it->name, it->loc), it->loc);
        return true;
    }
    if (it->kind != MI_ATTR)
        return unexpected(ctx, op, it);
    for (size_t i = 0; i < sizeof axes_keys / sizeof axes_keys[0]; i++) {
        if (strcmp(op->name, axes_keys[i].op) == 0) {
            add_attr(ctx, op, axes_keys[i].key, it->attr, it->loc);
            return true;
        }
    }
    return unexpected(ctx, op, it);
}

/* manual_computation and named_computation: `<"name">`, `(%operands)`,
 * then `(%block: args)` of the region that follows. */
static bool form_computation(MlirParseCtx *ctx, MlirCustomSyntax *syn, MlirOp *op, int *next)
{
    MlirSyntaxItem *it = item_at(syn, *next - 1);
    if (it->kind == MI_ATTR && it->attr->kind == MA_STRING) {
        add_attr(ctx, op, "name", it->attr, it->loc);
        return true;
    }
    if (it->kind != MI_PARENS)
        return unexpected(ctx, op, it);
    bool decl = it->list.count > 1 && ((MlirSyntaxItem *)it->list.items[1])->kind == MI_COLON;
    if (!decl && op->operands.count == 0)
        return paren_uses(ctx, op, it);
    MlirSyntaxItem *region = item_at(syn, *next);
    if (!region || region->kind != MI_REGION || region->region->blocks.count != 1)
        return unexpected(ctx, op, it);
    MlirBlock *entry = region->region->blocks.items[0];
    return paren_block_args(ctx, op, it, &entry->args);
}

/* reduce: `(%x init: %c), (%y init: %d)`, `applies stablehlo.add`,
 * `across`. Inputs come first among the operands, then the inits. */
static bool form_reduce(MlirParseCtx *ctx, MlirCustomSyntax *syn, MlirOp *op, int *next)
{
    MlirSyntaxItem *it = item_at(syn, *next - 1);
    if (it->kind == MI_KEYWORD && strcmp(it->name, "across") == 0)
        return true;
    if (it->kind == MI_KEYWORD && strcmp(it->name, "applies") == 0) {
        MlirSyntaxItem *body = item_at(syn, (*next)++);
        if (!body || body->kind != MI_KEYWORD)
            return unexpected(ctx, op, it);
        add_attr(ctx, op, "applies", mlir_build_keyword(ctx, body->name, body->loc), body->loc);
        return true;
    }
    MlirList *l = &it->list;
    MlirSyntaxItem *x = l->count == 4 ? l->items[0] : NULL, *init = l->count == 4 ? l->items[3] : NULL;
    if (it->kind != MI_PARENS || !x || x->kind != MI_USE || init->kind != MI_USE)
        return unexpected(ctx, op, it);
    PUSH(ctx, op->operands, x->use);
    PUSH(ctx, syn->extra_uses, init->use);  /* the inits, appended after the inputs */
    return true;
}

/* convolution: `dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`,
 * whose input and kernel lists common_item took as a dims pair: the
 * output list after `->` joins them. */
static bool form_convolution(MlirParseCtx *ctx, MlirCustomSyntax *syn, MlirOp *op, int *next)
{
    MlirSyntaxItem *it = item_at(syn, *next - 1);
    if (it->kind != MI_ARROW)
        return form_default(ctx, syn, op, next);
    MlirSyntaxItem *out = item_at(syn, *next);
    MlirAttr *dims = mlir_dict_get(&op->attrs, "dim_numbers");
    if (!out || out->kind != MI_ATTR || !dims || dims->kind != MA_DIMS_PAIR || dims->items.count != 2)
        return unexpected(ctx, op, it);
    PUSH(ctx, dims->items, out->attr);
    ++*next;
    return true;
}

/* while: `(%iterArg = %x, ...)`: operands, and the names of both regions'
 * block arguments (their types are the signature's). */
static bool form_while(MlirParseCtx *ctx, MlirCustomSyntax *syn, MlirOp *op, int *next)
{
    MlirSyntaxItem *it = item_at(syn, *next - 1);
    if (it->kind != MI_PARENS)
        return unexpected(ctx, op, it);
    MlirList *l = &it->list;
    for (int i = 0; i < l->count; i += 3) {
        MlirSyntaxItem *name = l->items[i];
        MlirSyntaxItem *init = i + 2 < l->count ? l->items[i + 2] : NULL;
        if (name->kind != MI_USE || !init || init->kind != MI_USE)
            return unexpected(ctx, op, name);
        PUSH(ctx, op->operands, init->use);
        PUSH(ctx, syn->extra_uses, name->use);  /* the iteration arguments' names */
    }
    return true;
}

/* ---- the forms ---- */

typedef struct FormEntry {
    const char *op;
    FormFn item;
} FormEntry;

static const FormEntry forms[] = {
    {"stablehlo.compare", form_compare},
    {"func.call", form_callee},
    {"stablehlo.custom_call", form_callee},
    {"stablehlo.slice", form_slice},
    {"sdy.sharding_constraint", form_sharding},
    {"sdy.reshard", form_sharding},
    {"stablehlo.constant", form_constant},
    {"sdy.constant", form_constant},
    {"sdy.all_gather", form_collective},
    {"sdy.all_slice", form_collective},
    {"sdy.all_reduce", form_collective},
    {"sdy.reduce_scatter", form_collective},
    {"sdy.all_to_all", form_collective},
    {"sdy.manual_computation", form_computation},
    {"sdy.named_computation", form_computation},
    {"stablehlo.reduce", form_reduce},
    {"stablehlo.while", form_while},
    {"stablehlo.convolution", form_convolution},
};

static void init_forms(MlirParseCtx *ctx)
{
    static const char *const mapped[] = {
#define MLIR_OP(kind, mlir_name, form) mlir_name,
#include "mlir/mlir_ops.def"
#undef MLIR_OP
        "func.return", "stablehlo.return", "sdy.return",
    };
    if (ctx->forms_ready)
        return;
    ctx->forms_ready = true;
    symtab_init(&ctx->forms, ctx->keep);
    symtab_init(&ctx->mapped, ctx->keep);
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++)
        if (!symtab_get(&ctx->forms, forms[i].op)) /* the first entry wins, as the scan did */
            symtab_put(&ctx->forms, forms[i].op, (void *)&forms[i]);
    for (size_t i = 0; i < sizeof mapped / sizeof mapped[0]; i++)
        symtab_put(&ctx->mapped, mapped[i], (void *)mapped[i]);
}

static FormFn form_of(MlirParseCtx *ctx, const char *name)
{
    init_forms(ctx);
    const FormEntry *e = mlir_cached_get(&ctx->recent_forms, &ctx->forms, name, true);
    return e ? e->item : form_default;
}

/* `return` and `call` are func's ops printed without their dialect. */
static const char *full_name(const char *name)
{
    if (strcmp(name, "return") == 0)
        return "func.return";
    if (strcmp(name, "call") == 0)
        return "func.call";
    return name;
}

static void take_signature(MlirParseCtx *ctx, MlirCustomSyntax *syn, MlirOp *op)
{
    (void)ctx;
    if (!syn->sig.present)
        return;
    if (syn->sig.is_function) {
        op->operand_types = syn->sig.inputs;
        op->result_types = syn->sig.outputs;
    } else {
        op->sig_types = syn->sig.inputs;
        op->sig_pending = true;
    }
}

static MlirType *scalar_of(MlirParseCtx *ctx, const MlirType *t)
{
    MlirType *s = NEW(ctx, MlirType);
    *s = *t;
    s->rank = 0;
    s->dims = NULL;
    s->encoding = NULL;
    const char *elem = t->elem ? t->elem : "f32";
    size_t n = strlen(elem);
    char *text = arena_alloc(ctx->arena, n + 9);
    memcpy(text, "tensor<", 7);
    memcpy(text + 7, elem, n);
    memcpy(text + 7 + n, ">", 2);
    s->text = text;
    return s;
}

/* prefix and i in decimal, in the arena (snprintf was a sixth of reading a
 * reduce's custom form). */
static const char *numbered_name(MlirParseCtx *ctx, const char *prefix, int i)
{
    char digits[12];
    int n = 0;
    do
        digits[n++] = (char)('0' + i % 10);
    while ((i /= 10) > 0);
    size_t len = strlen(prefix);
    char *name = arena_alloc(ctx->arena, len + (size_t)n + 1);
    memcpy(name, prefix, len);
    while (n > 0)
        name[len++] = digits[--n];
    return name;
}

static MlirBlockArg *block_arg(MlirParseCtx *ctx, const char *name, MlirType *type, Loc loc)
{
    MlirBlockArg *a = NEW(ctx, MlirBlockArg);
    *a = (MlirBlockArg){name, type, {0}, loc};
    return a;
}

/* `applies stablehlo.add`: the body the region form spells out,
 * ^bb0(%lhs0, ..., %rhs0, ...): %r_i = op %lhs_i, %rhs_i; return %r... */
static MlirRegion *applied_body(MlirParseCtx *ctx, MlirOp *op, const char *body_op, Loc loc)
{
    int n = op->operands.count / 2;
    MlirBlock *b = mlir_build_block(ctx, NULL, NULL, NULL, loc);
    MlirOp *ret = NEW(ctx, MlirOp);
    ret->name = "stablehlo.return";
    ret->loc = ret->name_loc = loc;
    for (int side = 0; side < 2; side++) {
        for (int i = 0; i < n; i++) {
            MlirType *t = op->operand_types.count > n + i ? op->operand_types.items[n + i] : NULL;
            if (!t)
                return NULL;
            const char *name = numbered_name(ctx, side ? ".rhs" : ".lhs", i);
            PUSH(ctx, b->args, block_arg(ctx, name, scalar_of(ctx, t), loc));
        }
    }
    for (int i = 0; i < n; i++) {
        MlirOp *apply = NEW(ctx, MlirOp);
        apply->name = body_op;
        apply->loc = apply->name_loc = loc;
        for (int side = 0; side < 2; side++) {
            MlirBlockArg *a = b->args.items[side * n + i];
            MlirUse *u = mlir_build_use(ctx, a->name, loc);
            PUSH(ctx, apply->operands, u);
            PUSH(ctx, apply->operand_types, a->type);
        }
        MlirResultDef *d = NEW(ctx, MlirResultDef);
        *d = (MlirResultDef){numbered_name(ctx, ".r", i), 1, loc};
        PUSH(ctx, apply->results, d);
        apply->num_results = 1;
        PUSH(ctx, apply->result_types, ((MlirBlockArg *)b->args.items[i])->type);
        PUSH(ctx, b->ops, apply);
        PUSH(ctx, ret->operands, mlir_build_use(ctx, d->name, loc));
        PUSH(ctx, ret->operand_types, ((MlirBlockArg *)b->args.items[i])->type);
    }
    PUSH(ctx, b->ops, ret);
    return mlir_build_region(ctx, b, loc);
}

/* reducer(%a: t, %c: t) (%b: t, %d: t) {...}: the groups pair each
 * input's two arguments; the block takes all first ones, then all second. */
static bool reducer_region(MlirParseCtx *ctx, MlirCustomSyntax *syn, MlirOp *op)
{
    MlirRegion *r = syn->trailing_regions.items[0];
    if (r->blocks.count != 1)
        return false;
    MlirBlock *b = r->blocks.items[0];
    b->args = (MlirList){0};
    for (int side = 0; side < 2; side++) {
        for (int i = 0; i < syn->reducer_args.count; i++) {
            MlirList *group = syn->reducer_args.items[i];
            if (group->count != 2)
                return false;
            PUSH(ctx, b->args, group->items[side]);
        }
    }
    PUSH(ctx, op->regions, r);
    return true;
}

static bool finish_reduce(MlirParseCtx *ctx, MlirCustomSyntax *syn, MlirOp *op)
{
    for (int i = 0; i < syn->extra_uses.count; i++)
        PUSH(ctx, op->operands, syn->extra_uses.items[i]);
    MlirAttr *applies = mlir_dict_get(&op->attrs, "applies");
    if (syn->trailing_regions.count)
        return reducer_region(ctx, syn, op);
    if (!applies)
        return false;
    for (int i = 0; i < op->attrs.count; i++) {
        MlirNamedAttr *a = op->attrs.items[i];
        if (a->value == applies)
            op->attrs.items[i] = op->attrs.items[--op->attrs.count];
    }
    MlirRegion *body = applied_body(ctx, op, applies->s, applies->loc);
    if (!body)
        return false;
    PUSH(ctx, op->regions, body);
    return true;
}

/* while's cond and do regions take the iteration arguments. */
static bool finish_while(MlirParseCtx *ctx, MlirCustomSyntax *syn, MlirOp *op)
{
    if (syn->trailing_regions.count != 2 || syn->sig.is_function ||
        syn->sig.inputs.count != syn->extra_uses.count)
        return false;
    for (int k = 0; k < 2; k++) {
        MlirRegion *r = syn->trailing_regions.items[k];
        if (r->blocks.count != 1)
            return false;
        MlirBlock *b = r->blocks.items[0];
        for (int i = 0; i < syn->extra_uses.count; i++) {
            MlirUse *name = syn->extra_uses.items[i];
            PUSH(ctx, b->args, block_arg(ctx, name->name, syn->sig.inputs.items[i], name->loc));
        }
        PUSH(ctx, op->regions, r);
    }
    return true;
}

static bool finish_form(MlirParseCtx *ctx, MlirCustomSyntax *syn, MlirOp *op)
{
    bool ok = true;
    if (strcmp(op->name, "stablehlo.reduce") == 0)
        ok = finish_reduce(ctx, syn, op);
    else if (strcmp(op->name, "stablehlo.while") == 0)
        ok = finish_while(ctx, syn, op);
    else if (syn->trailing_regions.count)
        ok = false;
    if (!ok) {
        diag_error(ctx->diag, syn->name_loc, "malformed custom form of '%s'", op->name);
        ctx->syntax_errors++;
    }
    return ok;
}

MlirOp *mlir_custom_op(MlirParseCtx *ctx, MlirCustomSyntax *syn)
{
    MlirOp *op = NEW(ctx, MlirOp);
    op->name = full_name(syn->name);
    op->loc = op->name_loc = syn->name_loc;
    FormFn form = form_of(ctx, op->name);
    take_signature(ctx, syn, op);
    for (int next = 0; next < syn->items.count;) {
        MlirSyntaxItem *it = syn->items.items[next++];
        if (!common_item(ctx, syn, op, it, &next) && !form(ctx, syn, op, &next))
            return NULL;
    }
    for (int i = 0; i < syn->attributes.count; i++)
        PUSH(ctx, op->attrs, syn->attributes.items[i]);
    if (!finish_form(ctx, syn, op))
        return NULL;
    mlir_normalize_attrs(ctx, op);
    return op;
}
