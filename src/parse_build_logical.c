/* Building `logical = ["batch", "embed"]` annotations: one logical axis name
 * per dim of the value, "" for a dim with no name. Only the form is checked
 * here; what the names mean comes from the --config rules, later. */
#include <string.h>
#include "shardc/parse_ctx.h"

static bool check_logical_form(ParseCtx *ctx, const AttrValue *v, const TensorType *type)
{
    if (v->kind != ATTR_ARRAY) {
        diag_error(ctx->diag, v->loc, "'logical' must be a list of logical axis names, one per dim: "
                                      "logical = [\"batch\", \"embed\"]");
        return false;
    }
    bool ok = true;
    for (int d = 0; d < v->u.array.count; d++) {
        if (v->u.array.items[d]->kind != ATTR_STRING) {
            diag_error(ctx->diag, v->u.array.items[d]->loc,
                       "expected a logical axis name in double quotes (\"\" for a dim with no name)");
            ok = false;
        }
    }
    if (ok && type && v->u.array.count != type->rank) {
        diag_error(ctx->diag, v->loc, "'logical' names %d dim%s but the value has rank %d", v->u.array.count,
                   v->u.array.count == 1 ? "" : "s", type->rank);
        ok = false;
    }
    return ok;
}

LogicalAxes *build_logical_axes(ParseCtx *ctx, const NamedAttr *a, const TensorType *type)
{
    const AttrValue *v = a->value;
    if (!check_logical_form(ctx, v, type))
        return NULL;
    LogicalAxes *names = ARENA_NEW(ctx->arena, LogicalAxes);
    ctx->module->logical_annotations++;
    names->rank = v->u.array.count;
    names->names = ARENA_ARRAY(ctx->arena, const char *, names->rank + 1);
    names->locs = ARENA_ARRAY(ctx->arena, Loc, names->rank + 1);
    names->loc = a->loc;
    for (int d = 0; d < names->rank; d++) {
        names->names[d] = v->u.array.items[d]->u.s;
        names->locs[d] = v->u.array.items[d]->loc;
    }
    return names;
}

/* A value's layout is given once: by a sharding or by logical names. */
void build_check_one_layout(ParseCtx *ctx, const Sharding *sharding, const LogicalAxes *logical)
{
    if (sharding && logical)
        diag_error(ctx->diag, logical->loc, "a value takes 'sharding' or 'logical', not both: the "
                                            "logical names are resolved to a sharding by --config");
}

/* `logical = [...]` on an op names the dims of its single result. */
bool build_take_op_logical(ParseCtx *ctx, Op *op, const NamedAttr *a)
{
    if (strcmp(a->name, "logical") != 0)
        return false;
    if (op->num_results != 1) {
        diag_error(ctx->diag, a->loc, "'logical' is for single-result ops");
        return true;
    }
    op->results[0]->logical = build_logical_axes(ctx, a, &op->results[0]->type);
    return true;
}
