/* The `meshes:` section: each mesh's axes (an ordered mapping of names to
 * sizes, major to minor), optional device order and explicit axes -- the
 * same meshes a .shir file declares with `mesh @m = <...>`. */
#include <string.h>
#include "config/config_internal.h"

enum { MESH_AXES, MESH_DEVICE_IDS, MESH_EXPLICIT, NUM_MESH_KEYS };
static const char *const mesh_keys[NUM_MESH_KEYS] = {"axes", "device_ids", "explicit"};

/* The mesh is printed into .shir as @name, so the name must lex as one. */
static bool is_symbol_name(const char *name)
{
    for (const char *c = name; *c; c++)
        if (!(('a' <= *c && *c <= 'z') || ('A' <= *c && *c <= 'Z') || ('0' <= *c && *c <= '9') ||
              *c == '_' || *c == '.' || *c == '$'))
            return false;
    return true;
}

static int find_mesh_axis(const Mesh *mesh, const char *name)
{
    for (int i = 0; i < mesh->num_axes; i++)
        if (strcmp(mesh->axes[i].name, name) == 0)
            return i;
    return -1;
}

static bool add_axis(YamlCtx *y, const char *key, const yaml_node_t *key_node, const yaml_node_t *value,
                     void *user)
{
    Mesh *mesh = user;
    int64_t size;
    if (!yaml_positive_int(y, value, "a mesh axis size", &size))
        return false;
    if (mesh->num_devices > INT32_MAX / size) {
        diag_error(y->diag, yaml_node_loc(y, value), "mesh '@%s' has more than %d devices", mesh->name, INT32_MAX);
        return false;
    }
    mesh->num_devices *= size;
    mesh->axes[mesh->num_axes++] = (MeshAxis){key, size, false, yaml_node_loc(y, key_node)};
    return true;
}

static bool read_axes(YamlCtx *y, Mesh *mesh, const yaml_node_t *node)
{
    if (!yaml_expect(y, node, YAML_MAPPING_NODE, "'axes'"))
        return false;
    size_t count = (size_t)(node->data.mapping.pairs.top - node->data.mapping.pairs.start);
    if (count > SHARDC_MAX_MESH_AXES) {
        diag_error(y->diag, yaml_node_loc(y, node), "a mesh has at most %d axes", SHARDC_MAX_MESH_AXES);
        return false;
    }
    mesh->axes = ARENA_ARRAY(&y->config->arena, MeshAxis, count + 1);
    mesh->num_devices = 1;
    return yaml_each_pair(y, node, "'axes'", add_axis, mesh);
}

static bool read_explicit(YamlCtx *y, Mesh *mesh, const yaml_node_t *node)
{
    if (!yaml_expect(y, node, YAML_SEQUENCE_NODE, "'explicit'"))
        return false;
    bool ok = true;
    for (yaml_node_item_t *it = node->data.sequence.items.start; it < node->data.sequence.items.top; it++) {
        const yaml_node_t *item = yaml_child(y, *it);
        const char *name = yaml_name(y, item, "an explicit axis");
        int axis = name ? find_mesh_axis(mesh, name) : -1;
        if (name && axis < 0)
            diag_error(y->diag, yaml_node_loc(y, item), "unknown axis \"%s\" in mesh '@%s'", name, mesh->name);
        if (axis < 0)
            ok = false;
        else
            mesh->axes[axis].is_explicit = true;
    }
    return ok;
}

static bool check_permutation(YamlCtx *y, const Mesh *mesh, const yaml_node_t *node)
{
    bool *seen = ARENA_ARRAY(&y->config->arena, bool, mesh->num_devices + 1);
    for (int64_t k = 0; k < mesh->num_devices; k++) {
        int64_t id = mesh->device_ids[k];
        if (id < 0 || id >= mesh->num_devices || seen[id]) {
            const yaml_node_t *item = yaml_child(y, node->data.sequence.items.start[k]);
            diag_error(y->diag, yaml_node_loc(y, item), "device_ids must be a permutation of 0..%lld; entry %lld "
                       "is %lld", (long long)mesh->num_devices - 1, (long long)k, (long long)id);
            return false;
        }
        seen[id] = true;
    }
    return true;
}

static bool read_device_ids(YamlCtx *y, Mesh *mesh, const yaml_node_t *node)
{
    if (!yaml_expect(y, node, YAML_SEQUENCE_NODE, "'device_ids'"))
        return false;
    int64_t count = node->data.sequence.items.top - node->data.sequence.items.start;
    if (count != mesh->num_devices) {
        diag_error(y->diag, yaml_node_loc(y, node), "device_ids has %lld entries but mesh '@%s' has %lld devices",
                   (long long)count, mesh->name, (long long)mesh->num_devices);
        return false;
    }
    mesh->device_ids = ARENA_ARRAY(&y->config->arena, int64_t, count + 1);
    for (int64_t k = 0; k < count; k++)
        if (!yaml_int(y, yaml_child(y, node->data.sequence.items.start[k]), "a device id", &mesh->device_ids[k]))
            return false;
    return check_permutation(y, mesh, node);
}

static bool read_mesh(YamlCtx *y, const char *name, const yaml_node_t *key_node, const yaml_node_t *value,
                      void *user)
{
    if (!is_symbol_name(name)) {
        diag_error(y->diag, yaml_node_loc(y, key_node), "mesh name '%s' is not a .shir symbol name (letters, "
                   "digits, '_', '.' and '$')", name);
        return false;
    }
    yaml_node_t *fields[NUM_MESH_KEYS];
    if (!yaml_fields(y, value, mesh_keys, NUM_MESH_KEYS, fields, NULL, "a mesh"))
        return false;
    if (!fields[MESH_AXES]) {
        diag_error(y->diag, yaml_node_loc(y, value), "mesh '%s' needs 'axes', e.g. axes: {data: 2, model: 4}",
                   name);
        return false;
    }
    Mesh *mesh = ARENA_NEW(&y->config->arena, Mesh);
    mesh->name = name;
    mesh->loc = yaml_node_loc(y, key_node);
    if (!read_axes(y, mesh, fields[MESH_AXES]))
        return false;
    if (fields[MESH_EXPLICIT] && !read_explicit(y, mesh, fields[MESH_EXPLICIT]))
        return false;
    if (fields[MESH_DEVICE_IDS] && !read_device_ids(y, mesh, fields[MESH_DEVICE_IDS]))
        return false;
    Config *c = y->config;
    c->meshes[c->num_meshes++] = mesh;
    return true;
}

bool config_read_meshes(YamlCtx *y, const yaml_node_t *node)
{
    if (!yaml_expect(y, node, YAML_MAPPING_NODE, "'meshes'"))
        return false;
    size_t count = (size_t)(node->data.mapping.pairs.top - node->data.mapping.pairs.start);
    y->config->meshes = ARENA_ARRAY(&y->config->arena, Mesh *, count + 1);
    return yaml_each_pair(y, node, "'meshes'", read_mesh, NULL);
}

const Mesh *config_find_mesh(const Config *c, const char *name)
{
    for (int i = 0; i < c->num_meshes; i++)
        if (strcmp(c->meshes[i]->name, name) == 0)
            return c->meshes[i];
    return NULL;
}
