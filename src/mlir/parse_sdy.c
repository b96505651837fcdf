/* The MLIR grammar's builders for sdy's attributes: axis refs, dim
 * shardings, sharding options, mesh literals and op sharding rules. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
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

/* Shardy's priority errors (parsers.cc), then the sharding's own. */
static int priority_error(MlirParseCtx *ctx, Loc loc, const char *fmt, const char *text)
{
    syntax_error(ctx, loc, fmt, text);
    syntax_error(ctx, loc, "%s", "failed to parse Sdy_TensorSharding parameter 'dim_shardings' which is to be a "
                 "`::llvm::ArrayRef<DimensionShardingAttr>`");
    ctx->sharding_failed = true;
    return -1;
}

/* `p3` -> 3; anything else is an error (a dim's only suffix is its
 * priority), in Shardy's words; shardc's priorities stop at p999999. */
static int parse_priority(MlirParseCtx *ctx, const char *text, Loc loc)
{
    const char *digits = text + 1;
    size_t n = strlen(digits);
    if (text[0] != 'p' || n == 0 || strspn(digits, "0123456789") != n)
        return priority_error(ctx, loc, "expecting priority in format 'p<number>', got: %s", text);
    if (digits[0] == '0' && n > 1)
        return priority_error(ctx, loc, "priorities with leading zeros are not allowed, got: %s", text);
    if (n > 19 || (n == 19 && strcmp(digits, "9223372036854775807") > 0))
        return priority_error(ctx, loc, "expecting integer priority, got: %s", text);
    if (n > 6) {
        syntax_error(ctx, loc, "priority %s is above shardc's largest, p999999", text);
        return -1;
    }
    return (int)strtol(digits, NULL, 10);
}

void mlir_per_value_done(MlirParseCtx *ctx, Loc loc)
{
    ctx->in_per_value = false;
    if (ctx->sharding_failed)
        syntax_error(ctx, loc, "%s", "failed to parse Sdy_TensorShardingPerValue parameter 'shardings' which is to be "
                     "a `::llvm::ArrayRef<TensorShardingAttr>`");
    ctx->sharding_failed = false;
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

void mlir_sharding_trailing_comma(MlirParseCtx *ctx, Loc loc, const char *next)
{
    if (next && (strcmp(next, "replicated") == 0 || strcmp(next, "unreduced") == 0)) {
        ctx->sdy_option = next;
        mlir_sdy_syntax_error(ctx, loc, SDY_MISSING_EQUALS);
        ctx->shardy_reported = true; /* bison stops at the word next: said */
        return;
    }
    syntax_error(ctx, loc, "%s", "failed to parse Sdy_TensorSharding, expected valid named axis list after comma");
    ctx->sharding_failed = true;
}

/* The parameter errors Shardy's generated parsers add around a failed
 * option: the axis list's, the sharding's, the per-value attribute's. */
static void option_cascade(MlirParseCtx *ctx, Loc loc, bool in_axis_list)
{
    if (in_axis_list) {
        syntax_error(ctx, loc, "%s", "failed to parse Sdy_AxisRef parameter 'name' which is to be a `::llvm::StringRef`");
        syntax_error(ctx, loc, "%s", "failed to parse axis list which is expected to be an `ArrayRef<AxisRefAttr>`");
    }
    syntax_error(ctx, loc, "failed to parse Sdy_TensorSharding parameter '%s'",
                 strcmp(ctx->sdy_option, "replicated") == 0 ? "replicated_axes" : "unreduced_axes");
    if (ctx->in_per_value)
        syntax_error(ctx, loc, "%s", "failed to parse Sdy_TensorShardingPerValue parameter 'shardings' which is to be "
                     "a `::llvm::ArrayRef<TensorShardingAttr>`");
}

static const char *const missing_words[] = {"expected '='", "expected '{'", "expected '}'", "expected string",
                                            "expected ']'", "expecting integer after 'z_'"};

bool mlir_sdy_syntax_error(MlirParseCtx *ctx, Loc loc, SdyMissing what)
{
    bool option = ctx->sdy_option && what <= SDY_MISSING_STRING;
    bool rule = ctx->in_rule && (what == SDY_MISSING_EQUALS || (ctx->rule_param && what >= SDY_MISSING_RBRACKET));
    if (!(option || rule))
        return false;
    if (what == SDY_MISSING_Z_INDEX) {
        syntax_error(ctx, loc, "expecting integer after 'z_'. Received: '%s' and a number apart", ctx->rule_dim);
        syntax_error(ctx, loc, "%s", "failed to parse Sdy_TensorMapping parameter 'dim_mappings'");
    } else {
        syntax_error(ctx, loc, "%s", missing_words[what]);
    }
    if (option)
        option_cascade(ctx, loc, what == SDY_MISSING_STRING);
    else if (ctx->rule_param)
        syntax_error(ctx, loc, "failed to parse Sdy_OpShardingRule parameter '%s'", ctx->rule_param);
    return true;
}

/* Shardy's format: `, replicated={...}` and `, unreduced={...}`, each at
 * most once (in either order); anything else after a comma is its error. */
static bool option_in_order(MlirParseCtx *ctx, const MlirSharding *s, bool replicated, Loc loc)
{
    if (ctx->options_of != s)
        ctx->options_of = s, ctx->options_seen = 0;
    int bit = replicated ? 1 : 2;
    if (ctx->options_seen & bit) {
        mlir_sharding_trailing_comma(ctx, loc, NULL);
        return false;
    }
    ctx->options_seen |= bit;
    return true;
}

void mlir_sharding_option(MlirParseCtx *ctx, MlirSharding *s, const char *key, const char *kind,
                          MlirAttr *axes, Loc loc)
{
    bool replicated = strcmp(key, "replicated") == 0;
    ctx->sdy_option = NULL;
    if (!replicated && strcmp(key, "unreduced") != 0) {
        mlir_sharding_trailing_comma(ctx, loc, NULL);
        return;
    }
    if (!option_in_order(ctx, s, replicated, loc))
        return;
    if (kind && replicated) {
        syntax_error(ctx, loc, "%s", "replicated axes take no reduction kind");
        return;
    }
    s->unreduced_kind = kind;
    if (axes->kind == MA_DICT && axes->items.count == 0)
        return;     /* `{}` */
    if (axes->kind != MA_AXES) { /* `{q}`: Shardy wants a string first */
        ctx->sdy_option = key;
        mlir_sdy_syntax_error(ctx, loc, SDY_MISSING_STRING);
        ctx->sdy_option = NULL;
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

/* Errors here are Shardy's parser's (parsers.cc), so that sdy_opt's
 * -verify-diagnostics annotations match: factor symbols are i..z and z_N
 * (N a positive int64), the sizes list names them in index order. */

enum { START_AT_Z = 'z' - 'i' };

static void rule_error(MlirParseCtx *ctx, Loc loc, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    syntax_error(ctx, loc, "%s", msg);
}

/* The factor symbol at *p (advanced past it), or NULL (reported). An index
 * past int64 is reported but read on, as Shardy's parser does. */
static const char *factor_symbol(MlirParseCtx *ctx, const char **p, Loc loc)
{
    const char *s = *p;
    if (strncmp(s, "z_", 2) != 0) {
        if (*s < 'i' || *s > 'z') {
            rule_error(ctx, loc, "expecting symbol from 'i' to 'z'. Received: '%c'", *s);
            return NULL;
        }
        *p = s + 1;
        return arena_strndup(ctx->arena, s, 1);
    }
    size_t n = strspn(s + 2, "0123456789");
    if (!n) {
        rule_error(ctx, loc, "expecting integer after 'z_'. Received: '%s'", s);
        return NULL;
    }
    if (s[2] == '0') {
        rule_error(ctx, loc, "expecting positive integer without leading zeros. Received: '%.*s'", (int)n, s + 2);
        return NULL;
    }
    if (n > 19 || (n == 19 && strncmp(s + 2, "9223372036854775807", 19) > 0))
        rule_error(ctx, loc, "expecting symbol index <=2^63-1. Received: '%.*s'", (int)n, s + 2);
    *p = s + 2 + n;
    return arena_strndup(ctx->arena, s, n + 2);
}

int64_t mlir_rule_factor_index(const char *sym)
{
    if (sym[0] != 'z' || sym[1] != '_')
        return sym[0] - 'i';
    long long n = strtoll(sym + 2, NULL, 10);
    return n > INT64_MAX - START_AT_Z ? INT64_MAX : START_AT_Z + n;
}

MlirList *mlir_rule_dims(MlirParseCtx *ctx, MlirList *names, Loc loc)
{
    (void)loc;
    MlirList *dims = NEW(ctx, MlirList);
    *dims = *names;
    return dims;
}

/* A dim as written (`ijz_1`) split into its factor symbols; NULL (reported). */
static MlirList *split_dim(MlirParseCtx *ctx, const char *text, Loc loc)
{
    MlirList *factors = NEW(ctx, MlirList);
    for (const char *p = text; *p;) {
        const char *sym = factor_symbol(ctx, &p, loc);
        if (!sym)
            return NULL;
        arena_list_push(ctx->arena, factors, (void *)sym);
    }
    return factors;
}

static bool split_side(MlirParseCtx *ctx, MlirList *tensors, const char *param, Loc loc)
{
    if (!tensors->count) {
        rule_error(ctx, loc, "expected '['");
        rule_error(ctx, loc, "failed to parse Sdy_OpShardingRule parameter '%s'", param);
        return false;
    }
    for (int t = 0; t < tensors->count; t++) {
        MlirList *dims = tensors->items[t];
        for (int d = 0; d < dims->count; d++) {
            MlirList *factors = split_dim(ctx, dims->items[d], loc);
            if (!factors) {
                rule_error(ctx, loc, "failed to parse Sdy_TensorMapping parameter 'dim_mappings'");
                rule_error(ctx, loc, "failed to parse Sdy_OpShardingRule parameter '%s'", param);
                return false;
            }
            dims->items[d] = factors;
        }
    }
    return true;
}

MlirRule *mlir_build_rule(MlirParseCtx *ctx, MlirList *operands, MlirList *results, Loc loc)
{
    if (!split_side(ctx, operands, "operand_mappings", loc) || !split_side(ctx, results, "result_mappings", loc))
        return NULL;
    MlirRule *r = NEW(ctx, MlirRule);
    *r = (MlirRule){.operands = *operands, .results = *results, .loc = loc};
    ctx->rule = r;
    return r;
}

/* The symbol of factor index f (Shardy's factorSymbolString). */
static void index_symbol(char *buf, size_t n, int64_t f)
{
    if (f <= START_AT_Z)
        snprintf(buf, n, "%c", (char)('i' + f));
    else
        snprintf(buf, n, "z_%lld", (long long)(f - START_AT_Z));
}

bool mlir_rule_size(MlirParseCtx *ctx, MlirRule *r, const char *factor, int64_t size, Loc loc)
{
    const char *p = factor;
    const char *sym = factor_symbol(ctx, &p, loc);
    if (!sym)
        return false;
    if (mlir_rule_factor_index(sym) != r->factor_names.count) {
        char want[32];
        index_symbol(want, sizeof want, r->factor_names.count);
        rule_error(ctx, loc, "expecting factor indices to be ordered like an iota ([0,1,2,...], e.g. {i=#, j=#, "
                   "...}). Expecting factor index symbol '%s', received: '%s'", want, sym);
        return false;
    }
    int64_t *v = NEW(ctx, int64_t);
    *v = size;
    arena_list_push(ctx->arena, &r->factor_names, (void *)factor);
    arena_list_push(ctx->arena, &r->factor_sizes, v);
    return true;
}

/* The lists come in this order, each once; anything else ends the rule
 * where Shardy's parser wants its '>'. */
void mlir_rule_factors(MlirParseCtx *ctx, MlirRule *r, const char *key, MlirList *names, Loc loc)
{
    static const char *const keys[] = {"reduction", "need_replication", "permutation", "blocked_propagation"};
    MlirList *lists[] = {&r->reduction, &r->need_replication, &r->permutation, &r->blocked};
    int i = 0;
    while (i < 4 && strcmp(key, keys[i]) != 0)
        i++;
    for (int j = i; j <= 4; j++)
        if (j == 4 ? i == 4 : lists[j]->count > 0) {
            rule_error(ctx, loc, "expected '>'");
            return;
        }
    for (int k = 0; k < names->count; k++) {
        const char *p = names->items[k];
        if (!factor_symbol(ctx, &p, loc))
            return;
    }
    *lists[i] = *names;
}

void mlir_rule_flag(MlirParseCtx *ctx, MlirRule *r, const char *flag, Loc loc)
{
    if (strcmp(flag, "custom") == 0)
        r->is_custom = true;
    else
        rule_error(ctx, loc, "expected 'custom'");
}
