/* Building meshes, shardings and logical-axis annotations from their
 * syntax, with the checks that need only the mesh. */

/* Building meshes and shardings from their syntax, with the checks that need
 * only the mesh: axis names and sizes, device ids, sub-axes, axes used twice. */
#include <string.h>
#include "front/parse_ctx.h"

static int find_axis(const Mesh *mesh, const char *name)
{
    for (int i = 0; i < mesh->num_axes; i++)
        if (strcmp(mesh->axes[i].name, name) == 0)
            return i;
    return -1;
}

static void check_device_ids(ParseCtx *ctx, const Mesh *mesh, const MeshItemSyntax *item)
{
    if (item->device_ids.count != mesh->num_devices) {
        diag_error(ctx->diag, item->loc, "device_ids has %d entries but the mesh has %lld devices",
                   item->device_ids.count, (long long)mesh->num_devices);
        return;
    }
    /* A maximal mesh (no axes) names the one device it is, any id. */
    if (mesh->num_axes == 0 && mesh->device_ids[0] >= 0)
        return;
    bool *seen = ARENA_ARRAY(&ctx->syntax, bool, mesh->num_devices);
    for (int i = 0; i < item->device_ids.count; i++) {
        int64_t id = mesh->device_ids[i];
        if (id < 0 || id >= mesh->num_devices || seen[id]) {
            diag_error(ctx->diag, item->loc, "device_ids must be a permutation of 0..%lld; entry %d is %lld",
                       (long long)mesh->num_devices - 1, i, (long long)id);
            return;
        }
        seen[id] = true;
    }
}

/* A bad axis is still added (the module is discarded anyway), so shardings
 * naming the mesh or the axis do not report a cascade of unknown names. */
static bool add_axis(ParseCtx *ctx, Mesh *mesh, SymTab *names, const MeshItemSyntax *item)
{
    bool ok = true;
    /* hashed: a scan per axis made 1024 axes half a million comparisons */
    if (symtab_put(names, item->axis_name, (void *)item)) {
        diag_error(ctx->diag, item->loc, "duplicate mesh axis \"%s\"", item->axis_name);
        ok = false;
    }
    if (item->size < 1) {
        diag_error(ctx->diag, item->loc, "mesh axis \"%s\" must have a positive size, got %lld",
                   item->axis_name, (long long)item->size);
        ok = false;
    } else if (mesh->num_devices > INT32_MAX / item->size) {
        diag_error(ctx->diag, item->loc, "the mesh has more than %d devices", INT32_MAX);
        ok = false;
    } else {
        mesh->num_devices *= item->size;
    }
    mesh->axes[mesh->num_axes++] = (MeshAxis){item->axis_name, item->size, item->is_explicit, item->loc};
    return ok;
}

void build_mesh(ParseCtx *ctx, const char *name, Loc loc, PtrList *items)
{
    Mesh *mesh = ARENA_NEW(ctx->arena, Mesh);
    mesh->name = name;
    mesh->loc = loc;
    mesh->num_devices = 1;
    mesh->axes = ARENA_ARRAY(ctx->arena, MeshAxis, items->count);
    const MeshItemSyntax *ids = NULL;
    bool axes_ok = true;
    SymTab names;
    symtab_init(&names, &ctx->syntax);
    for (int i = 0; i < items->count; i++) {
        const MeshItemSyntax *item = items->items[i];
        if (!item->axis_name && ids)
            diag_error(ctx->diag, item->loc, "device_ids is given twice");
        if (!item->axis_name) {
            ids = item;
        } else if (mesh->num_axes == SHARDC_MAX_MESH_AXES) {
            diag_error(ctx->diag, item->loc, "a mesh has at most %d axes", SHARDC_MAX_MESH_AXES);
            axes_ok = false;
            break;
        } else {
            axes_ok &= add_axis(ctx, mesh, &names, item);
        }
    }
    if (ids && axes_ok) {
        mesh->device_ids = ARENA_ARRAY(ctx->arena, int64_t, ids->device_ids.count);
        for (int i = 0; i < ids->device_ids.count; i++)
            mesh->device_ids[i] = *(int64_t *)ids->device_ids.items[i];
        check_device_ids(ctx, mesh, ids);
    }
    const Mesh *previous = build_find_mesh(ctx, name, (Loc){0});
    if (previous) {
        diag_error(ctx->diag, loc, "redefinition of mesh '@%s'", name);
        diag_note(ctx->diag, previous->loc, "previous definition is here");
        return;
    }
    arena_list_push(ctx->arena, &ctx->meshes, mesh);
    symtab_put(&ctx->mesh_names, mesh->name, mesh);
}

const Mesh *build_find_mesh(ParseCtx *ctx, const char *name, Loc loc)
{
    const Mesh *m = symtab_get(&ctx->mesh_names, name);
    if (m)
        return m;
    if (loc.line)
        diag_error(ctx->diag, loc, "unknown mesh '@%s' (meshes must be declared before use)", name);
    return NULL;
}

/* Resolve "x" or "x":(pre)size against the mesh, with Shardy's sub-axis
 * rules: size > 1, pre_size * size divides the axis, and not the whole axis. */
static bool resolve_axis_ref(ParseCtx *ctx, const Mesh *mesh, const AxisRefSyntax *s, AxisRef *out)
{
    int axis = find_axis(mesh, s->name);
    if (axis < 0) {
        diag_error(ctx->diag, s->loc, "unknown axis \"%s\" in mesh '@%s'", s->name, mesh->name);
        return false;
    }
    int64_t full = mesh->axes[axis].size;
    *out = (AxisRef){axis, 1, full};
    if (!s->sub)
        return true;
    int64_t product;
    if (s->pre_size < 1 || s->size <= 1 || __builtin_mul_overflow(s->pre_size, s->size, &product) ||
        full % product != 0 || (s->pre_size == 1 && s->size == full)) {
        diag_error(ctx->diag, s->loc,
                   "invalid sub-axis \"%s\":(%lld)%lld of an axis of size %lld (need size > 1, "
                   "pre-size * size dividing the axis size, and less than the whole axis)",
                   s->name, (long long)s->pre_size, (long long)s->size, (long long)full);
        return false;
    }
    *out = (AxisRef){axis, s->pre_size, s->size};
    return true;
}

static void print_axis_ref_name(char *buf, size_t len, const Mesh *mesh, AxisRef r)
{
    if (axis_ref_is_full(mesh, r))
        snprintf(buf, len, "\"%s\"", mesh->axes[r.axis].name);
    else
        snprintf(buf, len, "\"%s\":(%lld)%lld", mesh->axes[r.axis].name, (long long)r.pre_size,
                 (long long)r.size);
}

/* An axis (or overlapping sub-axis) may appear once per sharding. */
static void check_axis_unused(ParseCtx *ctx, const Mesh *mesh, AxisRef r, Loc loc,
                              const AxisRef *used, int num_used)
{
    for (int i = 0; i < num_used; i++) {
        if (axis_ref_overlaps(used[i], r)) {
            char name[128];
            print_axis_ref_name(name, sizeof name, mesh, r);
            diag_error(ctx->diag, loc, "axis %s is used more than once in this sharding", name);
            return;
        }
    }
}

static int count_axes(PtrList *dims, const ShardingOptsSyntax *opts)
{
    int n = opts->replicated.count + opts->unreduced.count;
    for (int d = 0; d < dims->count; d++)
        n += ((DimSyntax *)dims->items[d])->axes.count;
    return n;
}

static void build_dim(ParseCtx *ctx, Sharding *s, int d, DimSyntax *ds, AxisRef *used, int *num_used)
{
    DimSharding *dim = &s->dims[d];
    dim->is_closed = !ds->is_open;
    dim->priority = ds->priority;
    dim->axes = ARENA_ARRAY(ctx->arena, AxisRef, ds->axes.count);
    for (int k = 0; k < ds->axes.count; k++) {
        AxisRefSyntax *as = ds->axes.items[k];
        AxisRef r;
        if (!resolve_axis_ref(ctx, s->mesh, as, &r))
            continue;
        check_axis_unused(ctx, s->mesh, r, as->loc, used, *num_used);
        used[(*num_used)++] = r;
        dim->axes[dim->num_axes++] = r;
    }
    if (dim->priority != PRIORITY_NONE && dim->is_closed && dim->num_axes == 0)
        diag_error(ctx->diag, ds->loc, "a priority on a closed, unsharded dim has no effect; "
                                       "drop it or open the dim with '?'");
}

/* One `key={...}` or `key=kind{...}` option; each key at most once,
 * replicated before unreduced as Shardy prints them. */
void build_sharding_option(ParseCtx *ctx, ShardingOptsSyntax *opts, const char *key, Loc key_loc,
                           const char *kind, Loc kind_loc, PtrList *axes)
{
    bool replicated = strcmp(key, "replicated") == 0;
    if (!replicated && strcmp(key, "unreduced") != 0) {
        diag_error(ctx->diag, key_loc, "expected 'replicated', got '%s'", key);
        return;
    }
    PtrList *list = replicated ? &opts->replicated : &opts->unreduced;
    if (list->count || (replicated && opts->unreduced.count)) {
        diag_error(ctx->diag, key_loc, "'%s' %s", key, list->count ? "is given twice"
                                                   : "must come before 'unreduced' (Shardy's order)");
        return;
    }
    if (kind && (replicated || (strcmp(kind, "sum") && strcmp(kind, "max") && strcmp(kind, "min")))) {
        diag_error(ctx->diag, kind_loc, replicated ? "replicated axes take no reduction kind"
                                                   : "expected a reduction kind sum, max or min, got '%s'", kind);
        return;
    }
    if (kind)
        opts->unreduced_op = strcmp(kind, "max") == 0 ? UNREDUCED_MAX
                           : strcmp(kind, "min") == 0 ? UNREDUCED_MIN : UNREDUCED_SUM;
    *list = *axes;
}

/* The axes of one option, each checked against every axis used before. */
static AxisRef *build_axis_set(ParseCtx *ctx, const Mesh *mesh, const PtrList *list, int *count, AxisRef *used,
                               int *num_used)
{
    AxisRef *out = ARENA_ARRAY(ctx->arena, AxisRef, list->count);
    for (int k = 0; k < list->count; k++) {
        AxisRefSyntax *as = list->items[k];
        AxisRef r;
        if (!resolve_axis_ref(ctx, mesh, as, &r))
            continue;
        check_axis_unused(ctx, mesh, r, as->loc, used, *num_used);
        used[(*num_used)++] = r;
        out[(*count)++] = r;
    }
    return out;
}

AttrValue *build_sharding_attr(ParseCtx *ctx, const char *mesh_name, Loc loc, PtrList *dims,
                               const ShardingOptsSyntax *opts)
{
    AttrValue *v = attr_new(ctx->arena, ATTR_SHARDING, loc);
    Sharding *s = ARENA_NEW(ctx->arena, Sharding);
    v->u.sharding = s;
    s->loc = loc;
    s->mesh = build_find_mesh(ctx, mesh_name, loc);
    if (!s->mesh)
        return v;
    s->rank = dims->count;
    s->dims = ARENA_ARRAY(ctx->arena, DimSharding, dims->count);
    AxisRef *used = ARENA_ARRAY(&ctx->syntax, AxisRef, count_axes(dims, opts) + 1);
    int num_used = 0;
    for (int d = 0; d < dims->count; d++)
        build_dim(ctx, s, d, dims->items[d], used, &num_used);
    s->replicated = build_axis_set(ctx, s->mesh, &opts->replicated, &s->num_replicated, used, &num_used);
    s->unreduced = build_axis_set(ctx, s->mesh, &opts->unreduced, &s->num_unreduced, used, &num_used);
    s->unreduced_op = opts->unreduced_op;
    return v;
}

/* Building `logical = ["batch", "embed"]` annotations: one logical axis name
 * per dim of the value, "" for a dim with no name. Only the form is checked
 * here; what the names mean comes from the --config rules, later. */

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
