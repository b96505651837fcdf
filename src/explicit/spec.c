/* Explicit-axis specs (XSpec): the part of a sharding that is a JAX type;
 * formatting them as JAX prints them, and writing them back as shardings. */

/* Explicit-axis specs: the part of a sharding that is a JAX type. */
#include "shardc/explicit.h"
#include "shardc/layout.h"
#include <string.h>

bool explicit_axis_is_explicit(const Mesh *mesh, AxisRef r)
{
    return mesh->axes[r.axis].is_explicit;
}

XSpec *xspec_replicated(Arena *a, int rank)
{
    XSpec *s = ARENA_NEW(a, XSpec);
    s->rank = rank;
    s->dims = ARENA_ARRAY(a, XDim, rank + 1);
    return s;
}

/* The explicit axes of one dim, in order; the auto ones are the compiler's
 * business and are not part of the type. */
static XDim explicit_axes_of(Arena *a, const Mesh *mesh, const DimSharding *dim)
{
    AxisRef *axes = ARENA_ARRAY(a, AxisRef, dim->num_axes + 1);
    int count = 0;
    for (int k = 0; k < dim->num_axes; k++)
        if (explicit_axis_is_explicit(mesh, dim->axes[k]))
            axes[count++] = dim->axes[k];
    return (XDim){count, axes};
}

XSpec *xspec_of_sharding(Arena *a, const Mesh *mesh, const Sharding *s, int rank)
{
    XSpec *x = xspec_replicated(a, rank);
    if (!s || s->mesh != mesh || s->rank != rank)
        return x;
    for (int d = 0; d < rank; d++)
        x->dims[d] = explicit_axes_of(a, mesh, &s->dims[d]);
    return x;
}

XSpec *xspec_copy(Arena *a, const XSpec *s)
{
    XSpec *c = xspec_replicated(a, s->rank);
    for (int d = 0; d < s->rank; d++)
        c->dims[d] = s->dims[d];
    return c;
}

bool xdim_equal(const XDim *a, const XDim *b)
{
    if (a->count != b->count)
        return false;
    for (int k = 0; k < a->count; k++)
        if (!axis_ref_equal(a->axes[k], b->axes[k]))
            return false;
    return true;
}

bool xspec_equal(const XSpec *a, const XSpec *b)
{
    if (a->rank != b->rank)
        return false;
    for (int d = 0; d < a->rank; d++)
        if (!xdim_equal(&a->dims[d], &b->dims[d]))
            return false;
    return true;
}

int64_t xdim_shards(const XDim *d)
{
    int64_t n = 1;
    for (int k = 0; k < d->count; k++)
        n *= d->axes[k].size;
    return n;
}

/* Whether r overlaps an axis of dims [from, rank) of s. */
static bool used_from(const XSpec *s, int from, AxisRef r)
{
    for (int d = from; d < s->rank; d++)
        for (int k = 0; k < s->dims[d].count; k++)
            if (axis_ref_overlaps(s->dims[d].axes[k], r))
                return true;
    return false;
}

bool xspec_duplicate(const XSpec *s, AxisRef *dup)
{
    for (int d = 0; d < s->rank; d++)
        for (int k = 0; k < s->dims[d].count; k++)
            if (used_from(s, d + 1, s->dims[d].axes[k])) {
                *dup = s->dims[d].axes[k];
                return true;
            }
    return false;
}

/* JAX's spellings of specs and types, so that explicit-axis errors quote
 * the same text JAX prints (`('dp', None)`, `float32[8@dp,4]`). */

static const char *const jax_dtype_names[DT_COUNT] = {
    [DT_F32] = "float32", [DT_F64] = "float64", [DT_BF16] = "bfloat16", [DT_F16] = "float16",
    [DT_I8] = "int8",     [DT_I32] = "int32",   [DT_I64] = "int64",     [DT_U32] = "uint32", [DT_U64] = "uint64",
    [DT_BOOL] = "bool", [DT_TOKEN] = "token", [DT_C64] = "complex64", [DT_C128] = "complex128",
};

/* An axis as JAX names it; sub-axes (which JAX does not have) keep
 * shardc's "x:(1)2" form. */
static void axis_name(TextBuf *t, const Mesh *mesh, AxisRef r)
{
    char name[128];
    axis_ref_format(name, sizeof name, mesh, r);
    textbuf_add(t, "%s", name);
}

static void axis_quoted(TextBuf *t, const Mesh *mesh, AxisRef r)
{
    textbuf_add(t, "'");
    axis_name(t, mesh, r);
    textbuf_add(t, "'");
}

void xdim_format(TextBuf *t, const Mesh *mesh, const XDim *d)
{
    if (d->count == 0) {
        textbuf_add(t, "None");
        return;
    }
    if (d->count == 1) {
        axis_quoted(t, mesh, d->axes[0]);
        return;
    }
    textbuf_add(t, "(");
    for (int k = 0; k < d->count; k++) {
        textbuf_add(t, k ? ", " : "");
        axis_quoted(t, mesh, d->axes[k]);
    }
    textbuf_add(t, ")");
}

/* The entries separated by ", ", with Python's trailing comma for a
 * one-element tuple when `tuple_comma` asks for it. */
static void entries_format(TextBuf *t, const Mesh *mesh, const XSpec *s, bool tuple_comma)
{
    for (int d = 0; d < s->rank; d++) {
        textbuf_add(t, d ? ", " : "");
        xdim_format(t, mesh, &s->dims[d]);
    }
    if (tuple_comma && s->rank == 1)
        textbuf_add(t, ",");
}

void xspec_format_tuple(TextBuf *t, const Mesh *mesh, const XSpec *s)
{
    textbuf_add(t, "(");
    entries_format(t, mesh, s, true);
    textbuf_add(t, ")");
}

void xspec_format_pspec(TextBuf *t, const Mesh *mesh, const XSpec *s)
{
    textbuf_add(t, "PartitionSpec(");
    entries_format(t, mesh, s, true);
    textbuf_add(t, ")");
}

void xspec_format_type(TextBuf *t, const Mesh *mesh, const XSpec *s, const TensorType *type)
{
    textbuf_add(t, "%s[", jax_dtype_names[type->dtype]);
    for (int d = 0; d < type->rank; d++) {
        textbuf_add(t, "%s%lld", d ? "," : "", (long long)type->dims[d]);
        const XDim *dim = &s->dims[d];
        if (dim->count > 0)
            textbuf_add(t, dim->count > 1 ? "@(" : "@");
        for (int k = 0; k < dim->count; k++) {
            textbuf_add(t, k ? "," : "");
            axis_name(t, mesh, dim->axes[k]);
        }
        textbuf_add(t, dim->count > 1 ? ")" : "");
    }
    textbuf_add(t, "]");
}

void explicit_format_shape_tuple(TextBuf *t, const TensorType *type)
{
    textbuf_add(t, "(");
    for (int d = 0; d < type->rank; d++)
        textbuf_add(t, "%s%lld", d ? ", " : "", (long long)type->dims[d]);
    textbuf_add(t, type->rank == 1 ? ",)" : ")");
}

/* Explicit-axis decisions go into the values' shardings in a form that
 * propagation (which only ever adds axes, never to closed dims or
 * explicitly replicated axes) cannot change:
 *   - on a mesh whose axes are all explicit, every dim is closed;
 *   - on a mesh with auto axes too, dims stay as open as they were, so
 *     propagation can still add auto axes, and every explicit axis the
 *     value does not use is listed as explicitly replicated
 *     (`replicated={...}`), so propagation can add no explicit axis. */

static bool names_explicit_axis(const Mesh *mesh, const DimSharding *dim)
{
    for (int k = 0; k < dim->num_axes; k++)
        if (explicit_axis_is_explicit(mesh, dim->axes[k]))
            return true;
    return false;
}

bool explicit_annotation_agrees(ExplicitCtx *cx, const Value *v, const XSpec *spec)
{
    const Sharding *s = v->sharding;
    if (!s || s->mesh != cx->mesh || s->rank != spec->rank)
        return true;
    XSpec *annotated = xspec_of_sharding(cx->arena, cx->mesh, s, spec->rank);
    for (int d = 0; d < spec->rank; d++)
        if ((s->dims[d].is_closed || annotated->dims[d].count) && !xdim_equal(&annotated->dims[d], &spec->dims[d]))
            return false;
    return true;
}

/* A dim that names no explicit axis gets the type's, major to the auto
 * axes it may already have. */
static DimSharding with_explicit_axes(Arena *a, const Mesh *mesh, DimSharding dim, const XDim *x)
{
    if (x->count == 0 || names_explicit_axis(mesh, &dim))
        return dim;
    AxisRef *axes = ARENA_ARRAY(a, AxisRef, x->count + dim.num_axes + 1);
    memcpy(axes, x->axes, sizeof(AxisRef) * (size_t)x->count);
    if (dim.num_axes)
        memcpy(axes + x->count, dim.axes, sizeof(AxisRef) * (size_t)dim.num_axes);
    dim.axes = axes;
    dim.num_axes += x->count;
    return dim;
}

static bool mesh_all_explicit(const Mesh *mesh)
{
    for (int k = 0; k < mesh->num_axes; k++)
        if (!mesh->axes[k].is_explicit)
            return false;
    return true;
}

static bool used_by(const Sharding *s, AxisRef r)
{
    for (int d = 0; d < s->rank; d++)
        for (int k = 0; k < s->dims[d].num_axes; k++)
            if (axis_ref_overlaps(s->dims[d].axes[k], r))
                return true;
    for (int k = 0; k < s->num_replicated; k++)
        if (axis_ref_overlaps(s->replicated[k], r))
            return true;
    return false;
}

static void replicate_unused_explicit_axes(Arena *a, Sharding *s)
{
    const Mesh *mesh = s->mesh;
    AxisRef *list = ARENA_ARRAY(a, AxisRef, s->num_replicated + mesh->num_axes + 1);
    if (s->num_replicated)
        memcpy(list, s->replicated, sizeof(AxisRef) * (size_t)s->num_replicated);
    int n = s->num_replicated;
    for (int k = 0; k < mesh->num_axes; k++) {
        AxisRef r = {k, 1, mesh->axes[k].size};
        if (mesh->axes[k].is_explicit && !used_by(s, r))
            list[n++] = r;
    }
    s->replicated = list;
    s->num_replicated = n;
}

void explicit_write(Module *m, const ExplicitCtx *cx, Value *v)
{
    const XSpec *spec = cx->specs[v->id];
    if (!spec || (v->sharding && v->sharding->mesh != cx->mesh) || spec->rank != v->type.rank)
        return;
    Arena *a = &m->arena;
    Sharding *s = v->sharding ? sharding_clone(a, v->sharding) : sharding_new_open(a, cx->mesh, v->type.rank);
    for (int d = 0; d < s->rank; d++)
        s->dims[d] = with_explicit_axes(a, cx->mesh, s->dims[d], &spec->dims[d]);
    if (mesh_all_explicit(cx->mesh))
        for (int d = 0; d < s->rank; d++)
            s->dims[d].is_closed = true;
    else
        replicate_unused_explicit_axes(a, s);
    if (!sharding_equal(s, v->sharding))
        v->sharding = s;
}
