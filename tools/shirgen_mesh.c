/* Random meshes and shardings for shirgen. Shardings only use axes whose
 * product divides the dim, unless GenOpts.uneven: then half the time an
 * axis that does not divide it is kept too, and the partitioner pads
 * (docs/partitioning.md "Uneven dims"). */
#include <string.h>
#include "shirgen.h"

static const char *const axis_names[] = {"x", "y", "z", "data", "model", "pipe", "dp", "tp", "a_1", "expert"};
static const int64_t axis_sizes[] = {1, 2, 2, 2, 2, 3, 4, 4, 4, 8};

static void mesh_add(Gen *g, Mesh *mesh)
{
    Mesh **meshes = ARENA_ARRAY(gen_arena(g), Mesh *, g->m->num_meshes + 1);
    if (g->m->num_meshes)
        memcpy(meshes, g->m->meshes, sizeof(Mesh *) * (size_t)g->m->num_meshes);
    meshes[g->m->num_meshes++] = mesh;
    g->m->meshes = meshes;
}

static void mesh_device_ids(Gen *g, Mesh *mesh)
{
    int n = (int)mesh->num_devices, perm[64];
    for (int i = 0; i < n; i++)
        perm[i] = i;
    rng_shuffle(&g->rng, perm, n);
    mesh->device_ids = ARENA_ARRAY(gen_arena(g), int64_t, n);
    for (int i = 0; i < n; i++)
        mesh->device_ids[i] = perm[i];
}

Mesh *gen_mesh(Gen *g, const char *name)
{
    Mesh *mesh = ARENA_NEW(gen_arena(g), Mesh);
    mesh->name = arena_strdup(gen_arena(g), name);
    int names[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    rng_shuffle(&g->rng, names, 10);
    mesh->num_axes = rng_pct(&g->rng, 30) ? 1 : rng_pct(&g->rng, 65) ? 2 : 3;
    mesh->axes = ARENA_ARRAY(gen_arena(g), MeshAxis, mesh->num_axes);
    mesh->num_devices = 1;
    for (int i = 0; i < mesh->num_axes; i++) {
        int64_t size = axis_sizes[rng_below(&g->rng, 10)];
        while (mesh->num_devices * size > g->opts.max_devices)
            size /= 2;
        mesh->axes[i] = (MeshAxis){.name = axis_names[names[i]], .size = size};
        mesh->num_devices *= size;
    }
    if ((g->opts.features & FEAT_DEVICE_IDS) && mesh->num_devices > 1 && rng_pct(&g->rng, 30))
        mesh_device_ids(g, mesh);
    mesh_add(g, mesh);
    return mesh;
}

/* A proper sub-axis of an axis of composite size, or the whole axis. */
static AxisRef random_axis_ref(Gen *g, int axis)
{
    int64_t size = g->mesh->axes[axis].size;
    AxisRef r = {axis, 1, size};
    if (!(g->opts.features & FEAT_SUB_AXES) || !rng_pct(&g->rng, 25))
        return r;
    int64_t cands[16][2];
    int n = 0;
    for (int64_t pre = 1; pre < size; pre++)
        for (int64_t sz = 2; pre * sz <= size; sz++)
            if (size % (pre * sz) == 0 && !(pre == 1 && sz == size) && n < 16)
                cands[n][0] = pre, cands[n][1] = sz, n++;
    if (n == 0)
        return r;
    int k = rng_below(&g->rng, n);
    return (AxisRef){axis, cands[k][0], cands[k][1]};
}

/* Up to two unused axes on dim d whose product divides its size. */
static void add_dim_axes(Gen *g, DimSharding *dim, int64_t size, uint32_t *used, bool whole)
{
    int order[SHARDC_MAX_MESH_AXES], n = g->mesh->num_axes, want = rng_pct(&g->rng, 75) ? 1 : 2;
    for (int i = 0; i < n; i++)
        order[i] = i;
    rng_shuffle(&g->rng, order, n);
    dim->axes = ARENA_ARRAY(gen_arena(g), AxisRef, 2);
    int64_t shards = 1;
    for (int i = 0; i < n && dim->num_axes < want; i++) {
        if (*used & (1u << order[i]))
            continue;
        AxisRef r = whole ? (AxisRef){order[i], 1, g->mesh->axes[order[i]].size} : random_axis_ref(g, order[i]);
        bool divides = size % (shards * r.size) == 0;
        /* shard_map specs and pinned layouts must divide even with --uneven */
        if (!divides && (whole || !(g->opts.uneven && rng_pct(&g->rng, 50))))
            continue;
        dim->axes[dim->num_axes++] = r;
        shards *= r.size;
        *used |= 1u << order[i];
    }
}

static void add_replicated(Gen *g, Sharding *s, uint32_t used)
{
    int axis = rng_below(&g->rng, g->mesh->num_axes);
    if (used & (1u << axis))
        return;
    s->replicated = ARENA_ARRAY(gen_arena(g), AxisRef, 1);
    s->replicated[0] = (AxisRef){axis, 1, g->mesh->axes[axis].size};
    s->num_replicated = 1;
}

/* --unreduced: the value is a partial sum over one axis no dim uses. */
static void add_unreduced(Gen *g, Sharding *s, uint32_t used)
{
    int axis = rng_below(&g->rng, g->mesh->num_axes);
    if (used & (1u << axis) || (s->num_replicated && s->replicated[0].axis == axis))
        return;
    s->unreduced = ARENA_ARRAY(gen_arena(g), AxisRef, 1);
    s->unreduced[0] = (AxisRef){axis, 1, g->mesh->axes[axis].size};
    s->num_unreduced = 1;
}

Sharding *gen_sharding(Gen *g, const TensorType *t, bool closed_only)
{
    Sharding *s = sharding_new_open(gen_arena(g), g->mesh, t->rank);
    int order[SHARDC_MAX_RANK];
    uint32_t used = 0;
    for (int d = 0; d < t->rank; d++)
        order[d] = d;
    rng_shuffle(&g->rng, order, t->rank);
    for (int i = 0; i < t->rank; i++) {
        DimSharding *dim = &s->dims[order[i]];
        if (rng_pct(&g->rng, 55))
            add_dim_axes(g, dim, t->dims[order[i]], &used, false);
        dim->is_closed = closed_only || rng_pct(&g->rng, 50);
        /* A priority on a closed, unsharded dim is rejected as meaningless. */
        bool meaningful = !dim->is_closed || dim->num_axes > 0;
        if ((g->opts.features & FEAT_PRIORITIES) && meaningful && rng_pct(&g->rng, 15))
            dim->priority = rng_below(&g->rng, 3);
    }
    if (rng_pct(&g->rng, 10))
        add_replicated(g, s, used);
    /* (no draw without the flag: the programs of a seed stay as they were) */
    if (g->opts.unreduced && dtype_is_float(t->dtype) && rng_pct(&g->rng, 25))
        add_unreduced(g, s, used);
    return s;
}

Sharding *gen_spec(Gen *g, const TensorType *t, uint32_t avoid, int percent)
{
    Sharding *s = sharding_new_open(gen_arena(g), g->mesh, t->rank);
    uint32_t used = avoid;
    for (int d = 0; d < t->rank; d++) {
        if (rng_pct(&g->rng, percent))
            add_dim_axes(g, &s->dims[d], t->dims[d], &used, true);
        s->dims[d].is_closed = true;
    }
    return s;
}

Sharding *spec_empty(Gen *g, int rank) { return gen_spec(g, &(TensorType){DT_F32, rank, NULL}, 0, 0); }

uint32_t sharding_axes(const Sharding *s)
{
    uint32_t mask = 0;
    for (int d = 0; d < s->rank; d++)
        for (int k = 0; k < s->dims[d].num_axes; k++)
            mask |= 1u << s->dims[d].axes[k].axis;
    return mask;
}

TensorType local_type(Gen *g, const TensorType *t, const Sharding *s)
{
    int64_t dims[SHARDC_MAX_RANK];
    for (int d = 0; d < t->rank; d++)
        dims[d] = t->dims[d] / sharding_dim_shards(s, d);
    return gen_type(g, t->dtype, t->rank, dims);
}
