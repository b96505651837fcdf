/* Logical axis names against the config: config meshes brought into the
 * module, and logical names resolved to shardings by a rule set. */

/* The config's meshes in the module: a mesh the .shir file declares and
 * the config defines too must be the same mesh (a silent mismatch would
 * shard the program for devices it does not run on); a mesh only the
 * config defines is copied into the module, so the output declares it. */
#include <string.h>
#include "shardc/logical_axes.h"
#include "shardc/textbuf.h"

static int64_t device_at(const Mesh *mesh, int64_t position)
{
    return mesh->device_ids ? mesh->device_ids[position] : position;
}

static bool same_axes(const Mesh *a, const Mesh *b)
{
    if (a->num_axes != b->num_axes)
        return false;
    for (int i = 0; i < a->num_axes; i++)
        if (strcmp(a->axes[i].name, b->axes[i].name) != 0 || a->axes[i].size != b->axes[i].size)
            return false;
    return true;
}

static void add_axes(TextBuf *why, const Mesh *mesh)
{
    textbuf_add(why, "<");
    for (int i = 0; i < mesh->num_axes; i++)
        textbuf_add(why, "%s\"%s\"=%lld", i ? ", " : "", mesh->axes[i].name, (long long)mesh->axes[i].size);
    textbuf_add(why, ">");
}

/* The first difference, in words; nothing if the meshes agree. */
static void describe_difference(TextBuf *why, const Mesh *file, const Mesh *config)
{
    if (!same_axes(file, config)) {
        textbuf_add(why, "its axes are ");
        add_axes(why, file);
        textbuf_add(why, " here but ");
        add_axes(why, config);
        textbuf_add(why, " in the config");
        return;
    }
    for (int i = 0; i < file->num_axes; i++) {
        if (file->axes[i].is_explicit != config->axes[i].is_explicit) {
            textbuf_add(why, "axis \"%s\" is %s here but %s in the config", file->axes[i].name,
                        file->axes[i].is_explicit ? "explicit" : "auto",
                        config->axes[i].is_explicit ? "explicit" : "auto");
            return;
        }
    }
    for (int64_t k = 0; k < file->num_devices; k++) {
        if (device_at(file, k) != device_at(config, k)) {
            textbuf_add(why, "mesh position %lld holds device %lld here but device %lld in the config",
                        (long long)k, (long long)device_at(file, k), (long long)device_at(config, k));
            return;
        }
    }
}

static bool meshes_agree(const Mesh *file, const Mesh *config, DiagEngine *diag)
{
    TextBuf why;
    textbuf_init(&why);
    describe_difference(&why, file, config);
    if (why.len == 0)
        return true;
    diag_error(diag, file->loc, "mesh '@%s' disagrees with the config's mesh '@%s': %s", file->name, config->name,
               why.text);
    diag_note(diag, config->loc, "the config's mesh '@%s' is defined here", config->name);
    return false;
}

/* A deep copy in the module's arena: the module may outlive the config. */
static Mesh *copy_mesh(Arena *arena, const Mesh *src)
{
    Mesh *mesh = ARENA_NEW(arena, Mesh);
    *mesh = *src;
    const char *file = arena_strdup(arena, src->loc.file);
    mesh->name = arena_strdup(arena, src->name);
    mesh->loc.file = file;
    mesh->axes = ARENA_ARRAY(arena, MeshAxis, src->num_axes + 1);
    for (int i = 0; i < src->num_axes; i++) {
        mesh->axes[i] = src->axes[i];
        mesh->axes[i].name = arena_strdup(arena, src->axes[i].name);
        mesh->axes[i].loc.file = file;
    }
    if (src->device_ids)
        mesh->device_ids = arena_memdup(arena, src->device_ids, (size_t)src->num_devices, sizeof(int64_t));
    return mesh;
}

bool logical_merge_meshes(Module *m, const Config *c, DiagEngine *diag)
{
    bool ok = true;
    /* One array with room for every config mesh: growing it by one per
     * mesh copied it each time (quadratic: 10 GB for 50,000 meshes). */
    Mesh **meshes = ARENA_ARRAY(&m->arena, Mesh *, m->num_meshes + c->num_meshes + 1);
    if (m->num_meshes)
        memcpy(meshes, m->meshes, sizeof(Mesh *) * (size_t)m->num_meshes);
    m->meshes = meshes;
    for (int i = 0; i < c->num_meshes; i++) {
        const Mesh *declared = module_find_mesh(m, c->meshes[i]->name);
        if (declared)
            ok &= meshes_agree(declared, c->meshes[i], diag);
        else
            m->meshes[m->num_meshes++] = copy_mesh(&m->arena, c->meshes[i]);
    }
    return ok;
}

/* One value's logical axis names to a sharding, as Haliax's pspec_for_axis
 * builds a PartitionSpec from an axis mapping: a dim whose name maps to
 * mesh axes is sharded over them (major to minor), every other dim is
 * replicated, and every dim is closed (a PartitionSpec is complete). */

static int find_mesh_axis(const Mesh *mesh, const char *name)
{
    for (int i = 0; i < mesh->num_axes; i++)
        if (strcmp(mesh->axes[i].name, name) == 0)
            return i;
    return -1;
}

static Loc rule_axis_loc(const LogicalRule *rule, const char *axis)
{
    for (int k = 0; k < rule->num_axes; k++)
        if (strcmp(rule->axes[k], axis) == 0)
            return rule->axis_locs[k];
    return rule->loc;
}

/* JAX rejects a PartitionSpec naming a mesh axis twice (DuplicateSpecError);
 * here both dims and both rules are pointed at. */
static void report_axis_twice(const LogicalResolver *r, const LogicalAxes *names, int first, int second,
                              const char *axis, const char *what)
{
    const char *a = names->names[first], *b = names->names[second];
    diag_error(r->diag, names->locs[second], "mesh axis \"%s\" would shard both dim %d ('%s') and dim %d ('%s') "
               "of %s; a mesh axis may shard only one dim of a tensor", axis, first, a, second, b, what);
    diag_note(r->diag, rule_axis_loc(config_rule_set_find(r->rules, a), axis), "'%s' maps to \"%s\" here", a, axis);
    if (strcmp(a, b) != 0)
        diag_note(r->diag, rule_axis_loc(config_rule_set_find(r->rules, b), axis), "'%s' maps to \"%s\" here", b, axis);
}

/* shardc does not pad (Haliax's round_axis_for_partitioning rounds a
 * logical axis up to a multiple of its physical size for this reason). */
static void report_uneven(const LogicalResolver *r, const LogicalAxes *names, int d, const LogicalRule *rule,
                          int64_t size, int64_t shards, const char *what)
{
    TextBuf axes;
    textbuf_init(&axes);
    for (int k = 0; k < rule->num_axes; k++)
        textbuf_add(&axes, "%s\"%s\"", k ? ", " : "", rule->axes[k]);
    int64_t rounded;
    if (__builtin_add_overflow(size / shards * shards, shards, &rounded))
        rounded = size; /* no multiple fits in 64 bits: only the complaint is printed */
    diag_error(r->diag, names->locs[d], "dim %d ('%s') of %s has size %lld, which its %lld shards (mesh axes %s) "
               "do not divide; round it up to %lld (Haliax's round_axis_for_partitioning)", d, names->names[d],
               what, (long long)size, (long long)shards, axes.text, (long long)rounded);
}

static bool resolve_dim(const LogicalResolver *r, Sharding *s, int d, const LogicalAxes *names,
                        const TensorType *type, int *owner, const char *what, const LogicalRule *rule)
{
    if (!rule || rule->num_axes == 0)
        return true;
    DimSharding *dim = &s->dims[d];
    dim->axes = ARENA_ARRAY(r->arena, AxisRef, rule->num_axes);
    int64_t shards = 1;
    for (int k = 0; k < rule->num_axes; k++) {
        int axis = find_mesh_axis(r->mesh, rule->axes[k]);
        if (axis < 0)
            return false; /* config_rule_set_check_axes reported it */
        if (owner[axis] >= 0) {
            report_axis_twice(r, names, owner[axis], d, rule->axes[k], what);
            return false;
        }
        owner[axis] = d;
        int64_t size = r->mesh->axes[axis].size;
        dim->axes[dim->num_axes++] = (AxisRef){axis, 1, size};
        shards *= size; /* cannot overflow: the mesh's device count fits in 32 bits */
    }
    if (type->dims[d] % shards == 0)
        return true;
    report_uneven(r, names, d, rule, type->dims[d], shards, what);
    return false;
}

/* Whether none of rule's mesh axes is taken by a rule already chosen. */
static bool axes_free(const LogicalRule *rule, const LogicalRule *const *chosen, int rank)
{
    for (int d = 0; d < rank; d++)
        for (int i = 0; chosen[d] && i < chosen[d]->num_axes; i++)
            for (int k = 0; k < rule->num_axes; k++)
                if (strcmp(chosen[d]->axes[i], rule->axes[k]) == 0)
                    return false;
    return true;
}

/* flax's _logical_to_mesh_axes (T5X's list form): each rule in order goes
 * to the first dim of its name, if no rule went there and none of its
 * mesh axes is taken; a null rule takes its dim too (it stays whole). */
static void choose_in_order(const LogicalResolver *r, const LogicalAxes *names, const LogicalRule **chosen)
{
    for (int d = 0; d < names->rank; d++)
        chosen[d] = NULL;
    for (int k = 0; k < r->rules->num_rules; k++) {
        const LogicalRule *rule = &r->rules->rules[k];
        int d = 0;
        while (d < names->rank && strcmp(names->names[d], rule->name) != 0)
            d++;
        if (d < names->rank && !chosen[d] && axes_free(rule, chosen, names->rank))
            chosen[d] = rule;
    }
}

Sharding *logical_resolve(const LogicalResolver *r, const LogicalAxes *names, const TensorType *type,
                          const char *what)
{
    Sharding *s = sharding_new_open(r->arena, r->mesh, names->rank);
    s->loc = names->loc;
    int *owner = ARENA_ARRAY(r->arena, int, r->mesh->num_axes + 1);
    for (int i = 0; i < r->mesh->num_axes; i++)
        owner[i] = -1;
    const LogicalRule **chosen = ARENA_ARRAY(r->arena, const LogicalRule *, names->rank + 1);
    if (r->rules->ordered)
        choose_in_order(r, names, chosen);
    for (int d = 0; !r->rules->ordered && d < names->rank; d++)
        chosen[d] = names->names[d][0] ? config_rule_set_find(r->rules, names->names[d]) : NULL;
    bool ok = true;
    for (int d = 0; d < names->rank; d++) {
        s->dims[d].is_closed = true;
        ok &= resolve_dim(r, s, d, names, type, owner, what, chosen[d]);
    }
    return ok ? s : NULL;
}
