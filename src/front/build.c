/* The IR builder behind the grammar actions: scopes, values, functions,
 * regions and ops. Semantic checks that need the whole module (types of
 * ops, callees, shardings against ranks) are the verifier's job. */
#include <stdlib.h>
#include <string.h>
#include "front/parse_ctx.h"

void build_reverse(PtrList *list)
{
    for (int i = 0, j = list->count - 1; i < j; i++, j--) {
        void *t = list->items[i];
        list->items[i] = list->items[j];
        list->items[j] = t;
    }
}

/* Scopes and their tables are on the heap: they outlive the ops whose
 * syntax is released (parse_release_syntax), and a grown table frees its
 * old array. */
static void push_scope(ParseCtx *ctx)
{
    Scope *scope = malloc(sizeof *scope);
    if (!scope)
        arena_out_of_memory();
    *scope = (Scope){.outer_block = ctx->block, .parent = ctx->scope};
    symtab_init(&scope->names, NULL);
    ctx->scope = scope;
}

static void pop_scope(ParseCtx *ctx)
{
    Scope *scope = ctx->scope;
    ctx->block = scope->outer_block;
    ctx->scope = scope->parent;
    symtab_free(&scope->names);
    free(scope);
}

void build_free_scopes(ParseCtx *ctx)
{
    while (ctx->scope)
        pop_scope(ctx);
}

void build_define_value(ParseCtx *ctx, Value *v)
{
    if (!ctx->scope)
        return;
    Value *previous = symtab_put(&ctx->scope->names, v->name, v);
    if (previous) {
        diag_error(ctx->diag, v->loc, "redefinition of value '%%%s'", v->name);
        diag_note(ctx->diag, previous->loc, "previous definition is here");
    }
}

Value *build_use(ParseCtx *ctx, const char *name, Loc loc)
{
    if (!ctx->scope)
        return NULL;
    Scope *scope = ctx->scope;
    Value *v = symtab_get(&scope->names, name);
    for (; !v && scope->sees_outer && scope->parent; scope = scope->parent)
        v = symtab_get(&scope->parent->names, name);
    if (v)
        return v;
    for (Scope *s = scope->parent; s; s = s->parent) {
        if (symtab_get(&s->names, name)) {
            diag_error(ctx->diag, loc,
                       "value '%%%s' is defined outside this region; shard_map and named_computation bodies are "
                       "isolated from above: pass it as an operand", name);
            return NULL;
        }
    }
    diag_error(ctx->diag, loc, "use of undefined value '%%%s'", name);
    return NULL;
}

void build_begin_func(ParseCtx *ctx, const char *name, Loc loc)
{
    Func *f = ARENA_NEW(ctx->arena, Func);
    f->name = name;
    f->loc = loc;
    f->body = ARENA_NEW(ctx->arena, Block);
    f->body->parent_func = f;
    const Func *other = symtab_get(&ctx->func_names, name);
    if (other) {
        diag_error(ctx->diag, loc, "redefinition of function '@%s'", name);
        diag_note(ctx->diag, other->loc, "previous definition is here");
    }
    ctx->func = f;
    build_free_scopes(ctx);
    ctx->block = NULL;
    push_scope(ctx);
    ctx->block = f->body;
}

void build_abandon_func(ParseCtx *ctx)
{
    build_free_scopes(ctx);
    ctx->func = NULL;
    ctx->block = NULL;
    ctx->pending_callee = NULL;
    ctx->nesting = 0;
}

/* Move `sharding = <...>` or `logical = [...]` out of an attribute list
 * onto a value. */
static void apply_value_attrs(ParseCtx *ctx, Value *v, PtrList *attrs, const char *what)
{
    for (int i = 0; attrs && i < attrs->count; i++) {
        NamedAttr *a = attrs->items[i];
        if (strcmp(a->name, "sharding") == 0 && a->value->kind == ATTR_SHARDING)
            v->sharding = a->value->u.sharding;
        else if (strcmp(a->name, "sharding") == 0)
            diag_error(ctx->diag, a->value->loc, "'sharding' must be a sharding <@mesh, [...]>");
        else if (strcmp(a->name, "logical") == 0)
            v->logical = build_logical_axes(ctx, a, &v->type);
        else
            diag_error(ctx->diag, a->loc, "unknown %s attribute '%s' (expected 'sharding' or 'logical')", what,
                       a->name);
    }
    build_check_one_layout(ctx, v->sharding, v->logical);
}

Value *build_block_arg(ParseCtx *ctx, const char *name, Loc loc, TensorType *type, PtrList *attrs)
{
    Block *b = ctx->block;
    Value *v = value_new(ctx->module, arena_strdup(ctx->arena, name), type ? *type : (TensorType){0}, loc);
    apply_value_attrs(ctx, v, attrs, "argument");
    if (!b)
        return v;
    v->block = b;
    v->index = b->num_args;
    /* The capacity is implied: 4, then doubled whenever num_args reaches a
     * power of two, so many arguments cost linear, not quadratic, memory. */
    int n = b->num_args;
    if (n == 0 || (n >= 4 && (n & (n - 1)) == 0)) {
        Value **args = ARENA_ARRAY(ctx->arena, Value *, n ? 2 * n : 4);
        if (n)
            memcpy(args, b->args, sizeof(Value *) * (size_t)n);
        b->args = args;
    }
    b->args[b->num_args++] = v;
    build_define_value(ctx, v);
    return v;
}

/* Read before the body: the body's ops release the syntax of the results. */
void build_func_results(ParseCtx *ctx, PtrList *results)
{
    Func *f = ctx->func;
    if (!f)
        return;
    f->num_results = results->count;
    f->result_types = ARENA_ARRAY(ctx->arena, TensorType, results->count);
    f->result_shardings = ARENA_ARRAY(ctx->arena, Sharding *, results->count);
    f->result_locs = ARENA_ARRAY(ctx->arena, Loc, results->count);
    f->result_logical = ARENA_ARRAY(ctx->arena, LogicalAxes *, results->count);
    for (int i = 0; i < results->count; i++) {
        FuncResultSyntax *r = results->items[i];
        Value scratch = {.loc = r->loc, .type = r->type ? *r->type : (TensorType){0}};
        apply_value_attrs(ctx, &scratch, &r->attrs, "result");
        f->result_types[i] = r->type ? *r->type : (TensorType){0};
        f->result_shardings[i] = scratch.sharding;
        f->result_logical[i] = scratch.logical;
        f->result_locs[i] = r->loc;
    }
}

void build_end_func(ParseCtx *ctx)
{
    Func *f = ctx->func;
    if (!f)
        return;
    arena_list_push(ctx->arena, &ctx->funcs, f);
    if (!symtab_get(&ctx->func_names, f->name))
        symtab_put(&ctx->func_names, f->name, f);
    build_abandon_func(ctx);
}

Block *build_begin_region(ParseCtx *ctx)
{
    Block *region = ARENA_NEW(ctx->arena, Block);
    region->parent_func = ctx->func;
    push_scope(ctx);
    ctx->scope->sees_outer = ctx->control_flow_op;
    ctx->block = region;
    return region;
}

Block *build_end_region(ParseCtx *ctx, Block *region)
{
    /* The ops of the region set it for themselves; the op owning the
     * region may have more regions. */
    if (ctx->scope)
        ctx->control_flow_op = ctx->scope->sees_outer;
    if (ctx->scope)
        pop_scope(ctx);
    return region;
}

bool build_is_control_flow(const Word *name)
{
    return name->op == OP_WHILE || name->op == OP_CASE;
}

void build_return(ParseCtx *ctx, PtrList *values, Loc loc)
{
    Block *b = ctx->block;
    if (!b)
        return;
    b->num_returns = values->count;
    b->returns = arena_memdup(ctx->arena, values->items, (size_t)values->count, sizeof(Value *));
    b->return_loc = loc;
}

TensorType *build_type(ParseCtx *ctx, const Word *dtype, Loc loc, PtrList *dims)
{
    int64_t shape[SHARDC_MAX_RANK];
    int rank = dims->count;
    for (int i = 0; i < rank && i < SHARDC_MAX_RANK; i++)
        shape[i] = *(int64_t *)dims->items[i];
    return build_type_dims(ctx, dtype, loc, shape, rank);
}

TensorType *build_type_dims(ParseCtx *ctx, const Word *dtype, Loc loc, const int64_t *dims, int rank)
{
    TensorType *t = ARENA_NEW(&ctx->syntax, TensorType); /* read by value; its dims are kept */
    t->dtype = dtype->dtype;
    if (!dtype->is_dtype)
        diag_error(ctx->diag, loc, "unknown element type '%s' (expected " SHARDC_DTYPE_SPELLINGS ")", dtype->text);
    if (rank > SHARDC_MAX_RANK)
        diag_error(ctx->diag, loc, "rank %d exceeds the maximum rank %d", rank, SHARDC_MAX_RANK);
    t->rank = rank > SHARDC_MAX_RANK ? SHARDC_MAX_RANK : rank;
    bool negative = false;
    for (int i = 0; i < t->rank; i++) {
        if (dims[i] < 0)
            diag_error(ctx->diag, loc, "dimension %d of the type has negative size %lld", i, (long long)dims[i]);
        negative |= dims[i] < 0;
    }
    /* values of one shape share its dims (never changed in place) */
    t->dims = (int64_t *)interner_get(&ctx->shapes, dims, sizeof(int64_t) * (size_t)t->rank);
    int64_t count;
    if (!negative && !type_num_elements(t, &count)) /* which refuses negative dims */
        diag_error(ctx->diag, loc, "the type's element count overflows 64 bits");
    return t;
}

NamedAttr *build_named_attr(ParseCtx *ctx, const Word *name, Loc loc, AttrValue *value)
{
    NamedAttr *a = ARENA_NEW(&ctx->syntax, NamedAttr); /* ops and dicts copy it */
    /* resolved once for the word; a dict's entries are keyless (parser.y) */
    a->key = name->key;
    a->name = a->key != ATTR_KEY_NONE ? attr_key_name(a->key) : arena_strdup(ctx->arena, name->text);
    a->loc = loc;
    a->value = value ? value : attr_new(ctx->arena, ATTR_BOOL, loc);
    return a;
}
