/* The MLIR grammar's builders for sdy's attributes: axis refs, dim
 * shardings, sharding options, mesh literals and op sharding rules. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "mlir/mlir_parse_ctx.h"

#define NEW(ctx, type) ((type *)arena_alloc((ctx)->arena, sizeof(type)))

static void syntax_error(MlirParseCtx *ctx, Loc loc, const char *fmt, const char *arg)
{
    diag_error(ctx->diag, loc, fmt, arg);
    ctx->syntax_errors++;
}

MlirAxisRef *mlir_build_axis(MlirParseCtx *ctx, const char *name, int64_t pre, int64_t size, bool sub, Loc loc)
{
    MlirAxisRef *a = NEW(ctx, MlirAxisRef);
    *a = (MlirAxisRef){name, pre, size, sub, loc};
    return a;
}

/* `p3` -> 3; anything else is an error (a dim's only suffix is its priority). */
static int parse_priority(MlirParseCtx *ctx, const char *text, Loc loc)
{
    const char *digits = text + 1;
    size_t n = strlen(digits);
    if (text[0] != 'p' || n == 0 || n > 6 || strspn(digits, "0123456789") != n) {
        syntax_error(ctx, loc, "expected a priority p0, p1, ... after a dim sharding, got '%s'", text);
        return -1;
    }
    return (int)strtol(digits, NULL, 10);
}

MlirDimSharding *mlir_build_dim(MlirParseCtx *ctx, MlirList *axes, bool open, const char *priority,
                                Loc loc)
{
    MlirDimSharding *d = NEW(ctx, MlirDimSharding);
    if (axes)
        d->axes = *axes;
    d->is_open = open;
    d->priority = priority ? parse_priority(ctx, priority, loc) : -1;
    d->loc = loc;
    return d;
}

MlirAttr *mlir_dim_attr(MlirParseCtx *ctx, MlirDimSharding *dim, int64_t src, int64_t dst)
{
    MlirAttr *a = mlir_attr_new(ctx, MA_AXES, dim->loc);
    a->items = dim->axes;
    a->i = src;
    a->f = (double)dst;
    if (dim->is_open || dim->priority >= 0)
        syntax_error(ctx, dim->loc, "%s", "an axis list takes no '?' or priority");
    return a;
}

void mlir_sharding_option(MlirParseCtx *ctx, MlirSharding *s, const char *key, const char *kind,
                          MlirAttr *axes, Loc loc)
{
    bool replicated = strcmp(key, "replicated") == 0;
    if (kind && replicated) {
        syntax_error(ctx, loc, "%s", "replicated axes take no reduction kind");
        return;
    }
    s->unreduced_kind = kind;
    if (!replicated && strcmp(key, "unreduced") != 0) {
        syntax_error(ctx, loc, "unknown sharding option '%s' (expected replicated or unreduced)", key);
        return;
    }
    if (axes->kind == MA_DICT && axes->items.count == 0)
        return;     /* `{}` */
    if (axes->kind != MA_AXES) {
        syntax_error(ctx, loc, "'%s' takes a list of axes {\"a\", ...}", key);
        return;
    }
    *(replicated ? &s->replicated : &s->unreduced) = axes->items;
}

void mlir_mesh_option(MlirParseCtx *ctx, MlirMesh *mesh, const char *key, MlirAttr *value, Loc loc)
{
    if (strcmp(key, "device_ids") != 0) {
        syntax_error(ctx, loc, "unknown mesh option '%s' (expected device_ids)", key);
        return;
    }
    if (value->kind != MA_ARRAY) {
        syntax_error(ctx, loc, "%s", "device_ids takes a list of integers");
        return;
    }
    mesh->has_device_ids = true;
    for (int i = 0; i < value->items.count; i++) {
        MlirAttr *id = value->items.items[i];
        if (id->kind != MA_INT) {
            syntax_error(ctx, id->loc, "%s", "device_ids takes a list of integers");
            return;
        }
        int64_t *v = NEW(ctx, int64_t);
        *v = id->i;
        arena_list_push(ctx->arena, &mesh->device_ids, v);
    }
}

/* ---- op sharding rules ---- */

/* Factor names are a letter and an optional `_N` (i, j, z_1); a dim of
 * several factors writes them one after another (`ij`). */
MlirList *mlir_rule_dims(MlirParseCtx *ctx, MlirList *names, Loc loc)
{
    MlirList *dims = NEW(ctx, MlirList);
    for (int i = 0; i < names->count; i++) {
        const char *p = names->items[i];
        MlirList *factors = NEW(ctx, MlirList);
        while (*p) {
            if (!islower((unsigned char)*p)) {
                syntax_error(ctx, loc, "malformed factor name in '%s'", (const char *)names->items[i]);
                return NULL;
            }
            size_t n = 1;
            if (p[1] == '_')
                n = 2 + strspn(p + 2, "0123456789");
            arena_list_push(ctx->arena, factors, arena_strndup(ctx->arena, p, n));
            p += n;
        }
        arena_list_push(ctx->arena, dims, factors);
    }
    return dims;
}

void mlir_rule_size(MlirParseCtx *ctx, MlirRule *r, const char *factor, int64_t size, Loc loc)
{
    (void)loc;
    int64_t *v = NEW(ctx, int64_t);
    *v = size;
    arena_list_push(ctx->arena, &r->factor_names, (void *)factor);
    arena_list_push(ctx->arena, &r->factor_sizes, v);
}

void mlir_rule_factors(MlirParseCtx *ctx, MlirRule *r, const char *key, MlirList *names, Loc loc)
{
    static const char *const keys[] = {"reduction", "need_replication", "permutation", "blocked_propagation"};
    MlirList *lists[] = {&r->reduction, &r->need_replication, &r->permutation, &r->blocked};
    for (int i = 0; i < 4; i++) {
        if (strcmp(key, keys[i]) == 0) {
            *lists[i] = *names;
            return;
        }
    }
    syntax_error(ctx, loc, "unknown sharding rule option '%s'", key);
}

void mlir_rule_flag(MlirParseCtx *ctx, MlirRule *r, const char *flag, Loc loc)
{
    if (strcmp(flag, "custom") == 0)
        r->is_custom = true;
    else
        syntax_error(ctx, loc, "unknown sharding rule flag '%s' (expected custom)", flag);
}
