/* mlir_import: a parsed MLIR module (mlir_ast.h) onto shardc's IR. This
 * file holds the module, its functions and blocks, value names and types;
 * one op at a time is import_op.c's.
 *
 * Value names. MLIR names (`%0`, `%arg0`, `%cst_1`) are kept: shardc's
 * names are [A-Za-z0-9_.$] and may start with a digit, like MLIR's but
 * for '-', which becomes '_'. A definition of several results `%1:2`
 * (used as %1#0, %1#1) names them `1.0` and `1.1` (MLIR names cannot hold
 * a '.' after a leading digit, so `1.0` is never an MLIR name of its own);
 * `%v, %i = ...` (how the printer writes .shir's multi-result ops) keeps
 * both names. A name already taken in the function (a sanitized or dotted
 * name meeting a written one, or a name reused in an isolated region)
 * gets the first free suffix `_1`, `_2`, ..., so names stay unique per
 * function, as the IR wants. */
#include <string.h>
#include "mlir/import_internal.h"

Loc mlir_imp_loc(const ImportCtx *ic, Loc loc)
{
    return (Loc){ic->m->file, loc.line, loc.col};
}

const char *mlir_imp_str(ImportCtx *ic, const char *s)
{
    return s ? arena_strdup(ic->arena, s) : NULL;
}

/* ---- types ---- */

/* MLIR's spelling (i1, ui32: dtype.h's table). */
static bool element_type(const char *elem, DType *out)
{
    return elem && dtype_parse_mlir(elem, strlen(elem), out) && *out != DT_TOKEN;
}

/* The interned dims of t, the AST's `?` (-1) as TYPE_DYNAMIC_DIM. */
static int64_t *interned_dims(ImportCtx *ic, const MlirType *t)
{
    int64_t dims[SHARDC_MAX_RANK];
    const int64_t *shape = t->dims;
    for (int d = 0; d < t->rank; d++) {
        if (t->dims[d] >= 0)
            continue;
        memcpy(dims, t->dims, sizeof(int64_t) * (size_t)t->rank); /* the rare dynamic shape */
        for (int k = d; k < t->rank; k++)
            dims[k] = t->dims[k] < 0 ? TYPE_DYNAMIC_DIM : t->dims[k];
        shape = dims;
        break;
    }
    return (int64_t *)interner_get(&ic->shapes, shape, sizeof(int64_t) * (size_t)t->rank);
}

/* Dynamic dims and unranked tensors are read (docs/mlir.md "What is
 * read"); mlir_read_module_with refuses them after the import unless
 * `shardc opt` allows them. */
bool mlir_imp_type(ImportCtx *ic, const MlirType *t, TensorType *out)
{
    Loc loc = mlir_imp_loc(ic, t->loc);
    if (t->kind != MT_TENSOR && t->text && strcmp(t->text, "!stablehlo.token") == 0) {
        *out = (TensorType){.dtype = DT_TOKEN};
        return true;
    }
    if (t->kind != MT_TENSOR) {
        diag_error(ic->diag, loc, "type '%s' is not supported by shardc (expected a tensor<...>)", t->text);
        return false;
    }
    DType dt;
    bool unranked = t->elem && t->elem[0] == '*' && t->elem[1] == 'x' && t->rank == 0;
    if (!element_type(unranked ? t->elem + 2 : t->elem, &dt)) {
        diag_error(ic->diag, loc, "element type '%s' is not supported by shardc", t->elem ? t->elem : t->text);
        return false;
    }
    if (t->encoding) {
        diag_error(ic->diag, loc, "tensor encodings are not supported by shardc ('%s')", t->encoding);
        return false;
    }
    if (t->rank > SHARDC_MAX_RANK) {
        diag_error(ic->diag, loc, "rank %d exceeds the maximum rank %d", t->rank, SHARDC_MAX_RANK);
        return false;
    }
    if (unranked) {
        *out = (TensorType){dt, SHARDC_UNRANKED, NULL};
        return ic->read_dynamic = true;
    }
    /* values of one shape share its dims (never changed in place) */
    *out = (TensorType){dt, t->rank, interned_dims(ic, t)};
    int64_t count;
    if (type_num_elements(out, &count))
        return true;
    if (!type_is_static(out)) /* which type_num_elements refuses */
        return ic->read_dynamic = true;
    diag_error(ic->diag, loc, "the type's element count overflows 64 bits");
    return false;
}

/* ---- names and scopes ---- */

void mlir_imp_push_scope(ImportCtx *ic, bool isolated)
{
    ImpScope *s = ARENA_NEW(&ic->tables, ImpScope);
    s->parent = ic->scope;
    s->isolated = isolated;
    ic->scope = s;
}

/* The names the scope defined mean again what they meant before it. */
void mlir_imp_pop_scope(ImportCtx *ic)
{
    for (ImpValue *v = ic->scope->defined; v; v = v->scope_next)
        v->name->value = v->hidden;
    ic->scope = ic->scope->parent;
}

/* The entry of name, added if new. */
static ImpName *name_entry(ImportCtx *ic, const char *name)
{
    ImpName *e = symtab_get(&ic->names, name);
    if (e)
        return e;
    e = ARENA_NEW(&ic->tables, ImpName);
    /* the name may be the AST's, which a streamed import frees after the op */
    symtab_put(&ic->names, arena_strdup(&ic->tables, name), e);
    return e;
}

/* The entry of key, a string that outlives the import, added if new: one
 * look-up, not two, when it is (a result's IR name, mostly). */
static ImpName *new_name_entry(ImportCtx *ic, const char *key)
{
    ImpName *fresh = ARENA_NEW(&ic->tables, ImpName);
    ImpName *e = symtab_put(&ic->names, key, fresh);
    if (!e)
        return fresh;
    symtab_put(&ic->names, key, e);     /* as it was */
    return e;
}

static bool ir_name_taken(const ImportCtx *ic, const char *name)
{
    const ImpName *e = symtab_get(&ic->names, name);
    return e && e->taken;
}

const char *mlir_imp_value_name(ImportCtx *ic, const char *name, int count, int index, ImpName **entry)
{
    if (entry)
        *entry = NULL;
    if (count == 1 && !strchr(name, '-')) { /* the common case: a name not taken, kept as is */
        const char *kept = arena_strdup(ic->arena, name);
        ImpName *e = new_name_entry(ic, kept);
        if (entry)
            *entry = e;
        if (!e->taken)
            return e->taken = true, kept;
    }
    size_t len = strlen(name) + 24;
    char *base = arena_alloc(&ic->scratch, len);
    if (count > 1)
        snprintf(base, len, "%s.%d", name, index);
    else
        snprintf(base, len, "%s", name);
    for (char *p = base; *p; p++)
        if (*p == '-')
            *p = '_';
    char *unique = arena_alloc(ic->arena, len + 24);
    snprintf(unique, len + 24, "%s", base);
    for (int k = 1; ir_name_taken(ic, unique); k++)
        snprintf(unique, len + 24, "%s_%d", base, k);
    new_name_entry(ic, unique)->taken = true;
    return unique;
}

ImpValue *mlir_imp_define(ImportCtx *ic, const char *name, ImpName *entry, int count, Loc loc)
{
    size_t size = sizeof(ImpValue) + sizeof(Value *) * (size_t)(count > 0 ? count : 1);
    ImpValue *v = arena_alloc(&ic->tables, size);
    v->count = count;
    v->line = loc.line;
    v->col = loc.col;
    v->name = entry ? entry : name_entry(ic, name);
    v->scope = ic->scope;
    v->hidden = v->name->value;
    v->scope_next = ic->scope->defined;
    ic->scope->defined = v;
    v->name->value = v;
    if (v->hidden && v->hidden->scope == ic->scope) {
        diag_error(ic->diag, mlir_imp_value_loc(ic, v), "redefinition of value '%%%s'", name);
        diag_note(ic->diag, mlir_imp_value_loc(ic, v->hidden), "previous definition is here");
    }
    return v;
}

Loc mlir_imp_value_loc(const ImportCtx *ic, const ImpValue *v)
{
    return (Loc){ic->m->file, v->line, v->col};
}

/* A use across a region isolated from above, in MLIR's words and with
 * its note at the isolating op. */
static void report_isolated_use(ImportCtx *ic, const MlirUse *use, const MlirOp *user, const ImpScope *isolating)
{
    diag_error(ic->diag, mlir_imp_loc(ic, use->loc), "'%s' op using value defined outside the region ('%%%s': "
               "pass it as an operand)", user->name, use->name);
    if (isolating->owner.line)
        diag_note(ic->diag, mlir_imp_loc(ic, isolating->owner), "required by region isolation constraints");
}

/* The innermost region isolated from above between the import's scope
 * and v's, or NULL. */
static const ImpScope *isolated_between(const ImportCtx *ic, const ImpValue *v)
{
    for (const ImpScope *s = ic->scope; s && s != v->scope; s = s->parent)
        if (s->isolated)
            return s;
    return NULL;
}

ImpValue *mlir_imp_use(ImportCtx *ic, const MlirUse *use, int *index, const MlirOp *user)
{
    Loc loc = mlir_imp_loc(ic, use->loc);
    const ImpName *e = symtab_get(&ic->names, use->name);
    ImpValue *v = e ? e->value : NULL;
    if (!v) {
        diag_error(ic->diag, loc, "use of undefined value '%%%s'", use->name);
        return NULL;
    }
    const ImpScope *isolating = isolated_between(ic, v);
    if (isolating) {
        report_isolated_use(ic, use, user, isolating);
        return NULL;
    }
    *index = use->index < 0 ? 0 : use->index;
    if (*index < v->count)
        return v;
    diag_error(ic->diag, loc, "'%%%s' has %d result%s, no #%d", use->name, v->count, v->count == 1 ? "" : "s",
               *index);
    return NULL;
}

/* `name = text`, the text with its type (`8 : i32`) when one is written. */
MlirKeptAttr mlir_imp_keep(ImportCtx *ic, const MlirNamedAttr *a)
{
    const MlirAttr *v = a->value;
    if (!v || v->kind == MA_UNIT)
        return (MlirKeptAttr){mlir_imp_str(ic, a->name), NULL};
    const char *raw = mlir_attr_raw(&ic->scratch, v);
    raw = raw ? raw : "";
    size_t len = strlen(raw) + (v->type_text ? strlen(v->type_text) + 4 : 0) + 1;
    char *text = arena_alloc(ic->arena, len);
    snprintf(text, len, v->type_text ? "%s : %s" : "%s", raw, v->type_text);
    return (MlirKeptAttr){mlir_imp_str(ic, a->name), text};
}

MlirKeptAttrs mlir_imp_keep_list(ImportCtx *ic, const MlirKeptAttr *items, int count)
{
    return (MlirKeptAttrs){count, arena_memdup(ic->arena, items, (size_t)count, sizeof(MlirKeptAttr))};
}

/* ---- blocks ---- */

/* A bad type is reported and the value kept (with no type), so that its
 * uses do not report a cascade: the module is discarded anyway. */
static Value *block_arg(ImportCtx *ic, const MlirBlockArg *a, Block *b, int index, bool *ok)
{
    TensorType t = {0};
    *ok &= mlir_imp_type(ic, a->type, &t);
    ImpName *entry;
    Value *v = value_new(ic->m, mlir_imp_value_name(ic, a->name, 1, 0, &entry), t, mlir_imp_loc(ic, a->loc));
    ImpValue *name = mlir_imp_define(ic, a->name, entry, 1, a->loc);
    v->block = b;
    v->index = index;
    name->values[0] = v;
    return v;
}

bool mlir_imp_block_args(ImportCtx *ic, const MlirList *args, Block *b)
{
    bool ok = true;
    b->num_args = args->count;
    b->args = ARENA_ARRAY(ic->arena, Value *, args->count);
    for (int i = 0; i < args->count; i++)
        b->args[i] = block_arg(ic, args->items[i], b, i, &ok);
    return ok;
}

static void set_returns(ImportCtx *ic, const MlirOp *ret, Block *b)
{
    b->return_loc = mlir_imp_loc(ic, ret->loc);
    b->num_returns = ret->operands.count;
    b->returns = ARENA_ARRAY(ic->arena, Value *, ret->operands.count);
    for (int i = 0; i < ret->operands.count; i++) {
        int index;
        ImpValue *v = mlir_imp_use(ic, ret->operands.items[i], &index, ret);
        if (v && v->fold != IMP_PLAIN)
            diag_error(ic->diag, mlir_imp_loc(ic, ((MlirUse *)ret->operands.items[i])->loc),
                       "a value marked shardc.implicit_* cannot be returned");
        b->returns[i] = v ? v->values[index] : NULL;
    }
}

bool mlir_imp_body(ImportCtx *ic, const MlirRegion *region, Block *b, const char *terminator, Loc owner)
{
    if (!region || region->blocks.count != 1) {
        diag_error(ic->diag, mlir_imp_loc(ic, region ? region->loc : owner),
                   "a region of exactly one block is expected");
        return false;
    }
    const MlirBlock *block = region->blocks.items[0];
    int before = ic->diag->errors;
    Block *outer = ic->block;
    ic->block = b;
    for (int i = 0; i < block->ops.count; i++) {
        const MlirOp *op = block->ops.items[i];
        if (strcmp(op->name, terminator) != 0) {
            mlir_imp_op(ic, op);
        } else {
            if (i == block->ops.count - 1)
                set_returns(ic, op, b);
            else
                diag_error(ic->diag, mlir_imp_loc(ic, op->loc), "'%s' must be the last op of its block", terminator);
            ic->block = outer;
            return ic->diag->errors == before;
        }
    }
    ic->block = outer;
    diag_error(ic->diag, mlir_imp_loc(ic, block->ops.count ? ((MlirOp *)block->ops.items[block->ops.count - 1])->loc
                                                           : block->loc),
               "the block must end with '%s'", terminator);
    return false;
}

/* ---- functions ---- */

/* Kept attributes of one argument or result: all but its sharding (an
 * mhlo.sharding not read, because sdy.sharding is there or because it is
 * replicated with no mesh to put it on, is kept). */
static MlirKeptAttrs kept_value_attrs(ImportCtx *ic, const MlirList *attrs, bool sharding_read)
{
    MlirKeptAttr *items = ARENA_ARRAY(&ic->scratch, MlirKeptAttr, attrs ? attrs->count + 1 : 1);
    int n = 0;
    bool has_sdy = false;
    for (int i = 0; attrs && i < attrs->count; i++)
        has_sdy |= strcmp(((const MlirNamedAttr *)attrs->items[i])->name, "sdy.sharding") == 0;
    for (int i = 0; attrs && i < attrs->count; i++) {
        const MlirNamedAttr *a = attrs->items[i];
        if (strcmp(a->name, "sdy.sharding") == 0 ||
            (sharding_read && !has_sdy && strcmp(a->name, "mhlo.sharding") == 0))
            continue;
        items[n++] = mlir_imp_keep(ic, a);
    }
    return mlir_imp_keep_list(ic, items, n);
}

static void import_args(ImportCtx *ic, const MlirFunc *mf, Func *f, struct MlirExtra *x)
{
    MlirKeptAttrs *kept = ARENA_ARRAY(ic->arena, MlirKeptAttrs, mf->args.count + 1);
    mlir_imp_block_args(ic, &mf->args, f->body);
    for (int i = 0; i < mf->args.count; i++) {
        const MlirBlockArg *a = mf->args.items[i];
        Value *v = f->body->args[i];
        bool bad = false;
        ImpSite site = {mf->loc, "func.func", "arg", i, 0, false};
        v->sharding = mlir_imp_value_sharding(ic, &site, &a->attrs, &v->type, &bad);
        kept[i] = kept_value_attrs(ic, &a->attrs, v->sharding != NULL);
    }
    x->num_args = mf->args.count;
    x->arg_attrs = kept;
}

static void import_results(ImportCtx *ic, const MlirFunc *mf, Func *f, struct MlirExtra *x)
{
    int n = mf->result_types.count;
    f->num_results = n;
    f->result_types = ARENA_ARRAY(ic->arena, TensorType, n);
    f->result_shardings = ARENA_ARRAY(ic->arena, Sharding *, n);
    f->result_locs = ARENA_ARRAY(ic->arena, Loc, n);
    f->result_logical = ARENA_ARRAY(ic->arena, LogicalAxes *, n);
    MlirKeptAttrs *kept = ARENA_ARRAY(ic->arena, MlirKeptAttrs, n + 1);
    for (int i = 0; i < n; i++) {
        const MlirType *t = mf->result_types.items[i];
        const MlirList *attrs = i < mf->result_attrs.count ? mf->result_attrs.items[i] : NULL;
        f->result_locs[i] = mlir_imp_loc(ic, t->loc);
        bool bad = false;
        if (mlir_imp_type(ic, t, &f->result_types[i]) && attrs)
            f->result_shardings[i] = mlir_imp_value_sharding(ic, &(ImpSite){mf->loc, "func.func", "result", i, 0, false},
                                                             attrs, &f->result_types[i], &bad);
        kept[i] = kept_value_attrs(ic, attrs, f->result_shardings[i] != NULL);
    }
    x->num_results = n;
    x->result_attrs = kept;
}

static MlirKeptAttrs keep_all(ImportCtx *ic, const MlirList *attrs)
{
    MlirKeptAttr *items = ARENA_ARRAY(&ic->scratch, MlirKeptAttr, attrs->count + 1);
    for (int i = 0; i < attrs->count; i++)
        items[i] = mlir_imp_keep(ic, attrs->items[i]);
    return mlir_imp_keep_list(ic, items, attrs->count);
}

/* The function's IR Func with its arguments and results, and the scope
 * its body's ops are read in (ended by end_func). */
static Func *begin_func(ImportCtx *ic, const MlirFunc *mf)
{
    Loc loc = mlir_imp_loc(ic, mf->loc);
    for (int i = 0; i < ic->funcs.count; i++) {
        const Func *other = ic->funcs.items[i];
        if (strcmp(other->name, mf->name) == 0) {
            diag_error(ic->diag, loc, "redefinition of function '@%s'", mf->name);
            diag_note(ic->diag, other->loc, "previous definition is here");
        }
    }
    Func *f = ARENA_NEW(ic->arena, Func);
    struct MlirExtra *x = ARENA_NEW(ic->arena, struct MlirExtra);
    f->name = mlir_imp_str(ic, mf->name);
    f->loc = loc;
    f->body = ARENA_NEW(ic->arena, Block);
    f->body->parent_func = f;
    f->mlir = x;
    if (mf->visibility && strcmp(mf->visibility, "private") == 0)
        x->visibility = "private";
    x->attrs = keep_all(ic, &mf->attrs);
    ic->func = f;
    symtab_free(&ic->names);
    symtab_init(&ic->names, NULL);
    mlir_imp_push_scope(ic, true);
    import_args(ic, mf, f, x);
    import_results(ic, mf, f, x);
    return f;
}

static void end_func(ImportCtx *ic)
{
    mlir_imp_pop_scope(ic);
    arena_list_push(&ic->tables, &ic->funcs, ic->func);
    symtab_free(&ic->names);
}

static void import_func(ImportCtx *ic, const MlirFunc *mf)
{
    if (!mf->body) {
        diag_error(ic->diag, mlir_imp_loc(ic, mf->loc), "function declarations (no body) are not supported by "
                   "shardc: '@%s'", mf->name);
        return;
    }
    Func *f = begin_func(ic, mf);
    mlir_imp_body(ic, mf->body, f->body, "func.return", mf->loc);
    end_func(ic);
}

/* ---- a function read op by op (read.c) ---- */

void mlir_imp_stream_func(ImportCtx *ic, const MlirFunc *mf)
{
    if (ic->funcs.count == 0)
        mlir_imp_gspmd_prepare(ic, NULL);
    mlir_imp_gspmd_scan(ic, mf, NULL);
    ic->block = begin_func(ic, mf)->body;
    ic->returned = false;
}

bool mlir_imp_stream_op(ImportCtx *ic, const MlirOp *op)
{
    if (ic->returned)
        return false;   /* an op after func.return: the whole module's import reports it */
    mlir_imp_gspmd_scan(ic, NULL, op);
    if (strcmp(op->name, "func.return") == 0) {
        set_returns(ic, op, ic->block);
        ic->returned = true;
    } else {
        mlir_imp_op(ic, op);
    }
    return true;
}

bool mlir_imp_stream_func_end(ImportCtx *ic)
{
    ic->block = NULL;
    end_func(ic);
    return ic->returned;
}

/* ---- the module ---- */

static void finish_module(ImportCtx *ic, const MlirModule *ast)
{
    Module *m = ic->m;
    m->num_meshes = ic->meshes.count;
    m->meshes = arena_memdup(ic->arena, ic->meshes.items, (size_t)ic->meshes.count, sizeof(Mesh *));
    m->num_funcs = ic->funcs.count;
    m->funcs = arena_memdup(ic->arena, ic->funcs.items, (size_t)ic->funcs.count, sizeof(Func *));
    struct MlirExtra *x = ARENA_NEW(ic->arena, struct MlirExtra);
    x->module_name = mlir_imp_str(ic, ast->name);
    x->attrs = keep_all(ic, &ast->attrs);
    x->loc_aliases = keep_all(ic, &ast->loc_aliases);
    x->dynamic_types = ic->read_dynamic;
    m->mlir = x;
}

void mlir_imp_begin(ImportCtx *ic, const char *file, DiagEngine *diag)
{
    Module *m = module_new(file);
    *ic = (ImportCtx){.m = m, .arena = &m->arena, .diag = diag, .errors_before = diag->errors};
    arena_init(&ic->tables);
    arena_init(&ic->scratch);
    interner_init(&ic->shapes, ic->arena);
    mlir_imp_register_ops(ic);
}

Module *mlir_imp_finish(ImportCtx *ic, const MlirModule *ast)
{
    finish_module(ic, ast);
    interner_free(&ic->shapes);
    symtab_free(&ic->names);
    arena_free(&ic->tables);
    arena_free(&ic->scratch);
    if (ic->diag->errors > ic->errors_before) {
        module_free(ic->m);
        return NULL;
    }
    return ic->m;
}

void mlir_imp_abandon(ImportCtx *ic)
{
    interner_free(&ic->shapes);
    symtab_free(&ic->names);
    arena_free(&ic->tables);
    arena_free(&ic->scratch);
    module_free(ic->m);
}

Module *mlir_import(const MlirModule *ast, const char *file, const MlirReadOptions *options, DiagEngine *diag)
{
    ImportCtx ic;
    mlir_imp_begin(&ic, file, diag);
    ic.allow_unregistered = options && options->allow_unregistered;
    for (int i = 0; i < ast->items.count; i++) {
        const MlirItem *item = ast->items.items[i];
        if (item->kind == MT_ITEM_MESH)
            mlir_imp_mesh(&ic, item->mesh);
    }
    mlir_imp_gspmd_prepare(&ic, ast);
    for (int i = 0; i < ast->items.count; i++) {
        const MlirItem *item = ast->items.items[i];
        if (item->kind == MT_ITEM_FUNC)
            import_func(&ic, item->func);
        else if (item->kind == MT_ITEM_OP)
            diag_error(diag, mlir_imp_loc(&ic, item->op->loc), "op '%s' is not supported by shardc",
                       item->op->name);
    }
    return mlir_imp_finish(&ic, ast);
}

bool mlir_func_is_private(const Func *f)
{
    return f->mlir && f->mlir->visibility && strcmp(f->mlir->visibility, "private") == 0;
}
