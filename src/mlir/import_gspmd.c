/* GSPMD shardings (`mhlo.sharding = "{devices=[2,1]0,1}"`, as JAX exports
 * them without Shardy) converted to sdy shardings the way Shardy's
 * StableHLO import does (xla/service/spmd/shardy/stablehlo_round_trip/
 * stablehlo_import.cc):
 *   {replicated}                  every dim closed and empty
 *   {maximal device=N}            <@maximal_mesh_N, []> on the mesh
 *                                 `maximal_mesh_N = <[], device_ids=[N]>`
 *   {devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}, {devices=[2,2]<=[4]},
 *   {devices=[4,2]<=[2,4]T(1,0)}  tiled: closed dims over mesh axes
 * A tile assignment must be an iota of device ids, reshaped and transposed
 * (Shardy's AnalyzeTileAssignment): each tile dim then splits into factors
 * with a constant device-id stride, and the factors sorted by stride are
 * the sizes of the local mesh the sharding is written for.
 *
 * The mesh: the module's sdy mesh named `mesh`, else its only mesh; with
 * no sdy mesh, one is made as Shardy does: `sdy.mesh @mesh` whose axes
 * `_axis_0`, `_axis_1`, ... are the common refinement of every tiled
 * sharding's local mesh in the module. Local mesh factors map onto its
 * axes in order, as sub-axes where a factor covers part of an axis. A
 * replicated sharding with no mesh to put it on stays an attribute, as
 * Shardy leaves it. Manual, tuple and last_tile_dims shardings are errors. */
#include <stdlib.h>
#include <string.h>
#include "mlir/import_internal.h"

enum { GSPMD_MAX_DEVICES = 1 << 20, GSPMD_MAX_FACTORS = 64, GSPMD_MAX_TILE = SHARDC_MAX_RANK + 1 };

typedef enum { G_REPLICATED, G_MAXIMAL, G_TILED } GspmdKind;

typedef struct Gspmd {
    GspmdKind kind;
    int64_t device;                 /* maximal */
    int num_tile;
    int64_t tile[GSPMD_MAX_TILE];
    int64_t num_devices;
    int64_t *devices;               /* row-major over the tile dims */
    bool last_replicate;
} Gspmd;

/* The local mesh of a tiled sharding: factors of the tile dims, each with
 * the device-id stride of one step along it. */
typedef struct GspmdFactor {
    int64_t size, stride;
    int dim;
} GspmdFactor;

typedef struct GspmdLocal {
    int num_factors;
    GspmdFactor f[GSPMD_MAX_FACTORS];   /* by tile dim, major to minor in each */
    int order[GSPMD_MAX_FACTORS];       /* indices of f by stride, largest first */
} GspmdLocal;

/* ---- parsing ---- */

typedef struct GspmdText {
    const char *p;
    const char *error;
} GspmdText;

static void skip(GspmdText *t)
{
    while (*t->p == ' ')
        t->p++;
}

static bool eat(GspmdText *t, const char *word)
{
    skip(t);
    size_t n = strlen(word);
    if (strncmp(t->p, word, n) != 0)
        return false;
    t->p += n;
    return true;
}

static bool number(GspmdText *t, int64_t *out)
{
    skip(t);
    char *end;
    long long v = strtoll(t->p, &end, 10);
    if (end == t->p || v < 0) {
        t->error = "expected a number";
        return false;
    }
    t->p = end;
    *out = v;
    return true;
}

/* `[a,b,...]` into out (at most max); its count, or -1. */
static int bracket_list(GspmdText *t, int64_t *out, int max)
{
    int n = 0;
    if (!eat(t, "[")) {
        t->error = "expected '['";
        return -1;
    }
    do {
        if (n == max) {
            t->error = "too many dims";
            return -1;
        }
        if (!number(t, &out[n++]))
            return -1;
    } while (eat(t, ","));
    if (!eat(t, "]")) {
        t->error = "expected ']'";
        return -1;
    }
    return n;
}

/* `T(1,0)` after an iota: a permutation of its rank dims. */
static bool transpose_perm(GspmdText *t, int64_t *perm, int rank)
{
    bool seen[GSPMD_MAX_TILE] = {0};
    int k = 0;
    do {
        if (k == rank || !number(t, &perm[k]) || perm[k] >= rank || seen[perm[k]])
            return t->error = "bad transpose", false;
        seen[perm[k++]] = true;
    } while (eat(t, ","));
    if (!eat(t, ")") || k != rank)
        return t->error = "bad transpose", false;
    return true;
}

/* `<=[dims]` or `<=[dims]T(perm)`: iota(N).reshape(dims).transpose(perm). */
static bool iota_devices(GspmdText *t, Gspmd *g)
{
    int64_t dims[GSPMD_MAX_TILE], perm[GSPMD_MAX_TILE], stride[GSPMD_MAX_TILE], n = 1;
    int rank = bracket_list(t, dims, GSPMD_MAX_TILE);
    if (rank < 0)
        return false;
    for (int i = 0; i < rank; i++)
        perm[i] = i;
    if (eat(t, "T(") && !transpose_perm(t, perm, rank))
        return false;
    for (int d = rank - 1; d >= 0; d--) {
        stride[d] = n;
        n *= dims[d];
    }
    if (n != g->num_devices)
        return t->error = "the iota has another device count than the tiles", false;
    for (int64_t i = 0; i < n; i++) {
        int64_t rem = i, id = 0;
        for (int j = rank - 1; j >= 0; j--) { /* i is row-major over the transposed dims */
            id += rem % dims[perm[j]] * stride[perm[j]];
            rem /= dims[perm[j]];
        }
        g->devices[i] = id;
    }
    return true;
}

static bool explicit_devices(GspmdText *t, Gspmd *g)
{
    for (int64_t i = 0; i < g->num_devices; i++)
        if ((i && !eat(t, ",")) || !number(t, &g->devices[i]))
            return t->error = "the device list does not match the tiles", false;
    return true;
}

static bool tiled(GspmdText *t, Gspmd *g, Arena *arena)
{
    g->kind = G_TILED;
    g->num_tile = bracket_list(t, g->tile, GSPMD_MAX_TILE);
    if (g->num_tile < 0)
        return false;
    g->num_devices = 1;
    for (int i = 0; i < g->num_tile; i++) {
        if (g->tile[i] < 1 || g->num_devices * g->tile[i] > GSPMD_MAX_DEVICES)
            return t->error = "bad tile dims", false;
        g->num_devices *= g->tile[i];
    }
    g->devices = ARENA_ARRAY(arena, int64_t, g->num_devices);
    if (!(eat(t, "<=") ? iota_devices(t, g) : explicit_devices(t, g)))
        return false;
    g->last_replicate = eat(t, "last_tile_dim_replicate");
    if (eat(t, "last_tile_dims"))
        return t->error = "last_tile_dims is not supported by shardc", false;
    return true;
}

static bool parse_gspmd(const char *text, Gspmd *g, Arena *arena, const char **error)
{
    GspmdText t = {text, NULL};
    bool ok = eat(&t, "{");
    if (ok && (eat(&t, "{") || eat(&t, "manual") || eat(&t, "unknown")))
        t.error = "tuple, manual and unknown shardings are not supported by shardc";
    else if (ok && eat(&t, "replicated"))
        g->kind = G_REPLICATED;
    else if (ok && eat(&t, "maximal device="))
        ok = number(&t, &g->device), g->kind = G_MAXIMAL;
    else if (ok && eat(&t, "devices="))
        ok = tiled(&t, g, arena);
    else
        ok = false;
    if (ok && !t.error && eat(&t, "metadata={")) /* op metadata: skip to its end */
        t.p = strchr(t.p, '}') ? strchr(t.p, '}') + 1 : t.p;
    if (ok && !t.error && !(eat(&t, "}") && (skip(&t), *t.p == '\0')))
        t.error = "unexpected text";
    *error = t.error ? t.error : "expected {replicated}, {maximal device=N} or {devices=[...]...}";
    return ok && !t.error;
}

/* ---- the local mesh of a tile assignment ---- */

static int64_t tile_stride(const Gspmd *g, int d)
{
    int64_t s = 1;
    for (int k = g->num_tile - 1; k > d; k--)
        s *= g->tile[k];
    return s;
}

/* Whether the first f steps of `unit` along dim d go stride s apart. */
static bool linear_run(const Gspmd *g, int d, int64_t unit, int64_t f, int64_t s)
{
    int64_t step = tile_stride(g, d) * unit;
    for (int64_t j = 0; j < f; j++)
        if (g->devices[j * step] != j * s)
            return false;
    return true;
}

/* Splits tile dim d into factors, minor first, then reverses them. */
static bool split_dim(const Gspmd *g, int d, GspmdLocal *l)
{
    int first = l->num_factors;
    for (int64_t r = g->tile[d], unit = 1; r > 1;) {
        int64_t s = g->devices[tile_stride(g, d) * unit], f = r;
        while (f > 1 && (r % f != 0 || !linear_run(g, d, unit, f, s)))
            f--;
        if (f < 2 || l->num_factors == GSPMD_MAX_FACTORS)
            return false;
        l->f[l->num_factors++] = (GspmdFactor){f, s, d};
        unit *= f;
        r /= f;
    }
    for (int i = first, j = l->num_factors - 1; i < j; i++, j--) {
        GspmdFactor tmp = l->f[i];
        l->f[i] = l->f[j];
        l->f[j] = tmp;
    }
    return true;
}

/* The device the factors give at tile position i. */
static int64_t device_at(const Gspmd *g, const GspmdLocal *l, int64_t i)
{
    int64_t coord[GSPMD_MAX_TILE], id = 0;
    for (int d = g->num_tile - 1; d >= 0; d--) {
        coord[d] = i % g->tile[d];
        i /= g->tile[d];
    }
    for (int k = l->num_factors - 1; k >= 0; k--) { /* minor factors first */
        const GspmdFactor *f = &l->f[k];
        id += coord[f->dim] % f->size * f->stride;
        coord[f->dim] /= f->size;
    }
    return id;
}

/* l->order: the factors by stride, largest first (an insertion sort:
 * at most a few dozen). */
static void sort_by_stride(GspmdLocal *l)
{
    for (int k = 0; k < l->num_factors; k++) {
        int j = k;
        for (; j > 0 && l->f[l->order[j - 1]].stride < l->f[k].stride; j--)
            l->order[j] = l->order[j - 1];
        l->order[j] = k;
    }
}

static bool local_mesh(const Gspmd *g, GspmdLocal *l)
{
    l->num_factors = 0;
    for (int d = 0; d < g->num_tile; d++)
        if (!split_dim(g, d, l))
            return false;
    for (int64_t i = 0; i < g->num_devices; i++)
        if (device_at(g, l, i) != g->devices[i])
            return false;
    sort_by_stride(l);
    int64_t expect = 1; /* minor to major: strides 1, f1, f1 * f2, ... */
    for (int k = l->num_factors - 1; k >= 0; k--) {
        if (l->f[l->order[k]].stride != expect)
            return false;
        expect *= l->f[l->order[k]].size;
    }
    return true;
}

/* ---- the mesh ---- */

/* Shardy's ExtractCommonFactorSequence: the coarsest sizes both refine
 * into; false if there is none. */
static bool refine(int64_t *axes, int *n, const int64_t *sizes, int count)
{
    int64_t out[GSPMD_MAX_FACTORS];
    int k = 0, i = 0, j = 0;
    int64_t a = *n ? axes[0] : 1, b = count ? sizes[0] : 1;
    while (i < *n && j < count) {
        int64_t g = ir_gcd64(a, b);
        if (g == 1 || k == GSPMD_MAX_FACTORS)
            return false;
        out[k++] = g;
        if ((a /= g) == 1 && ++i < *n)
            a = axes[i];
        if ((b /= g) == 1 && ++j < count)
            b = sizes[j];
    }
    if (i < *n || j < count)
        return false;
    memcpy(axes, out, sizeof(int64_t) * (size_t)k);
    *n = k;
    return true;
}

typedef struct GspmdScan {
    ImportCtx *ic;
    int64_t axes[GSPMD_MAX_FACTORS];
    int num_axes;
    bool any_tiled, incompatible;
} GspmdScan;

static void scan_attr(GspmdScan *s, const MlirNamedAttr *a)
{
    Gspmd g = {0};
    GspmdLocal l;
    const char *error;
    if (strcmp(a->name, "mhlo.sharding") != 0 || !a->value || a->value->kind != MA_STRING ||
        !parse_gspmd(a->value->s, &g, &s->ic->scratch, &error) || g.kind != G_TILED || !local_mesh(&g, &l))
        return; /* errors are reported where the sharding is read */
    int64_t sizes[GSPMD_MAX_FACTORS];
    for (int k = 0; k < l.num_factors; k++)
        sizes[k] = l.f[l.order[k]].size;
    if (!s->any_tiled) {
        memcpy(s->axes, sizes, sizeof(int64_t) * (size_t)l.num_factors);
        s->num_axes = l.num_factors;
    } else if (!refine(s->axes, &s->num_axes, sizes, l.num_factors)) {
        s->incompatible = true;
    }
    s->any_tiled = true;
}

static void scan_attrs(GspmdScan *s, const MlirList *attrs)
{
    for (int i = 0; attrs && i < attrs->count; i++)
        scan_attr(s, attrs->items[i]);
}

static void scan_ops(GspmdScan *s, const MlirRegion *r)
{
    for (int b = 0; r && b < r->blocks.count; b++) {
        const MlirBlock *block = r->blocks.items[b];
        for (int i = 0; i < block->ops.count; i++) {
            const MlirOp *op = block->ops.items[i];
            scan_attrs(s, &op->attrs);
            for (int k = 0; k < op->regions.count; k++)
                scan_ops(s, op->regions.items[k]);
        }
    }
}

static void scan_func_attrs(GspmdScan *s, const MlirFunc *f)
{
    for (int a = 0; a < f->args.count; a++)
        scan_attrs(s, &((const MlirBlockArg *)f->args.items[a])->attrs);
    for (int r = 0; r < f->result_attrs.count; r++)
        scan_attrs(s, f->result_attrs.items[r]);
}

void mlir_imp_gspmd_scan(ImportCtx *ic, const MlirFunc *f, const MlirOp *op)
{
    if (!ic->gspmd_deferred)
        return;
    GspmdScan s = {.ic = ic};
    if (f)
        scan_func_attrs(&s, f);
    if (op) {
        scan_attrs(&s, &op->attrs);
        for (int k = 0; k < op->regions.count; k++)
            scan_ops(&s, op->regions.items[k]);
    }
    ic->needs_whole_module |= s.any_tiled;
}

static void make_mesh(ImportCtx *ic, const GspmdScan *s, Loc loc)
{
    Mesh *mesh = mlir_imp_add_mesh(ic, "mesh", loc);
    mesh->axes = ARENA_ARRAY(ic->arena, MeshAxis, s->num_axes);
    for (int k = 0; k < s->num_axes; k++) {
        char name[32];
        snprintf(name, sizeof name, "_axis_%d", k);
        mesh->axes[mesh->num_axes++] = (MeshAxis){mlir_imp_str(ic, name), s->axes[k], false, loc};
        mesh->num_devices *= s->axes[k];
    }
    ic->gspmd_mesh = mesh;
}

void mlir_imp_gspmd_prepare(ImportCtx *ic, const MlirModule *ast)
{
    const Mesh *named = mlir_imp_find_mesh(ic, "mesh");
    if (named || ic->meshes.count == 1) { /* no need to scan every op's attributes */
        ic->gspmd_mesh = named ? named : ic->meshes.items[0];
        ic->gspmd_failed = false;
        return;
    }
    if (!ast) {
        ic->gspmd_deferred = true;
        return;
    }
    GspmdScan s = {.ic = ic};
    for (int i = 0; i < ast->items.count; i++) {
        const MlirItem *item = ast->items.items[i];
        if (item->kind != MT_ITEM_FUNC)
            continue;
        scan_func_attrs(&s, item->func);
        scan_ops(&s, item->func->body);
    }
    if (ic->meshes.count == 0 && s.any_tiled && !s.incompatible)
        make_mesh(ic, &s, mlir_imp_loc(ic, ast->loc));
    ic->gspmd_failed = s.incompatible && !ic->gspmd_mesh;
}

/* ---- one sharding ---- */

/* The axes of the global mesh local factor `size` covers, consuming them
 * in order from *axis (pre-size *pre): Shardy's step 1. */
static bool global_axes(const Mesh *mesh, int64_t size, int *axis, int64_t *pre, AxisRef *out, int *n)
{
    while (size > 1) {
        if (*axis >= mesh->num_axes)
            return false;
        int64_t rest = mesh->axes[*axis].size / *pre;
        if (rest == 1) {
            (*axis)++;
            *pre = 1;
            continue;
        }
        int64_t g = ir_gcd64(size, rest);
        if (g == 1 || *n == GSPMD_MAX_FACTORS)
            return false;
        out[(*n)++] = (AxisRef){*axis, *pre, g == rest && *pre == 1 ? mesh->axes[*axis].size : g};
        *pre *= g;
        size /= g;
    }
    return true;
}

static Sharding *new_sharding(ImportCtx *ic, const Mesh *mesh, int rank, Loc loc)
{
    Sharding *s = ARENA_NEW(ic->arena, Sharding);
    s->mesh = mesh;
    s->rank = rank;
    s->loc = loc;
    s->dims = ARENA_ARRAY(ic->arena, DimSharding, rank);
    for (int d = 0; d < rank; d++)
        s->dims[d] = (DimSharding){.is_closed = true, .priority = PRIORITY_NONE};
    return s;
}

static void append_axes(ImportCtx *ic, AxisRef **list, int *count, const AxisRef *axes, int n)
{
    AxisRef *grown = ARENA_ARRAY(ic->arena, AxisRef, *count + n);
    if (*count)
        memcpy(grown, *list, sizeof(AxisRef) * (size_t)*count);
    memcpy(grown + *count, axes, sizeof(AxisRef) * (size_t)n);
    *list = grown;
    *count += n;
}

static Sharding *tiled_sharding(ImportCtx *ic, const Gspmd *g, const GspmdLocal *l, int rank, Loc loc)
{
    const Mesh *mesh = ic->gspmd_mesh;
    Sharding *s = new_sharding(ic, mesh, rank, loc);
    AxisRef *per_factor[GSPMD_MAX_FACTORS];
    int counts[GSPMD_MAX_FACTORS], axis = 0;
    int64_t pre = 1;
    for (int k = 0; k < l->num_factors; k++) { /* local mesh order: largest stride first */
        int f = l->order[k];
        AxisRef axes[GSPMD_MAX_FACTORS];
        counts[f] = 0;
        if (!global_axes(mesh, l->f[f].size, &axis, &pre, axes, &counts[f]))
            return NULL;
        per_factor[f] = arena_memdup(&ic->scratch, axes, (size_t)counts[f], sizeof(AxisRef));
    }
    for (int f = 0; f < l->num_factors; f++) { /* by tile dim, major to minor */
        int d = l->f[f].dim;
        if (d < rank)
            append_axes(ic, &s->dims[d].axes, &s->dims[d].num_axes, per_factor[f], counts[f]);
        else
            append_axes(ic, &s->replicated, &s->num_replicated, per_factor[f], counts[f]);
    }
    return s;
}

/* `maximal_mesh_N = <[], device_ids=[N]>`, made at its first use. */
static const Mesh *maximal_mesh(ImportCtx *ic, int64_t device, Loc loc)
{
    char name[48];
    snprintf(name, sizeof name, "maximal_mesh_%lld", (long long)device);
    const Mesh *found = mlir_imp_find_mesh(ic, name);
    if (found)
        return found;
    Mesh *mesh = mlir_imp_add_mesh(ic, name, loc);
    mesh->device_ids = ARENA_NEW(ic->arena, int64_t);
    mesh->device_ids[0] = device;
    return mesh;
}

static const char *check_tiled(ImportCtx *ic, const Gspmd *g, GspmdLocal *l, int rank)
{
    if (g->num_tile != rank + (g->last_replicate ? 1 : 0))
        return "its tile dims do not match the value's rank";
    if (!local_mesh(g, l))
        return "its device order is not an iota of the devices, reshaped and transposed";
    if (ic->gspmd_failed || !ic->gspmd_mesh)
        return "the module's GSPMD shardings have no common mesh (declare one with sdy.mesh)";
    if (ic->gspmd_mesh->device_ids)
        return "the mesh it maps onto has explicit device_ids";
    if (g->num_devices != ic->gspmd_mesh->num_devices)
        return "its device count differs from the mesh's";
    return NULL;
}

Sharding *mlir_imp_gspmd(ImportCtx *ic, const MlirAttr *a, int rank, bool *bad)
{
    Loc loc = mlir_imp_loc(ic, a->loc);
    Gspmd g = {0};
    GspmdLocal l;
    const char *error = NULL;
    *bad = true;
    if (a->kind != MA_STRING)
        error = "expected a string";
    else if (!parse_gspmd(a->s, &g, &ic->scratch, &error))
        ;
    else if (g.kind == G_REPLICATED) {
        *bad = false;
        return ic->gspmd_mesh ? new_sharding(ic, ic->gspmd_mesh, rank, loc) : NULL;
    } else if (g.kind == G_MAXIMAL) {
        *bad = false;
        return new_sharding(ic, maximal_mesh(ic, g.device, loc), 0, loc);
    } else if (!(error = check_tiled(ic, &g, &l, rank))) {
        Sharding *s = tiled_sharding(ic, &g, &l, rank, loc);
        error = s ? NULL : "its tiles do not map onto the mesh's axes";
        *bad = !s;
        if (s)
            return s;
    }
    diag_error(ic->diag, loc, "cannot read mhlo.sharding %s%s%s: %s", a->kind == MA_STRING ? "\"" : "",
               a->kind == MA_STRING ? a->s : "", a->kind == MA_STRING ? "\"" : "", error);
    return NULL;
}
