/* The `auto_shard:` section: the constants of the auto-sharding cost model
 * (docs/auto_sharding.md) -- the devices' FLOP rate and, per mesh axis,
 * the alpha (seconds per collective) and beta (seconds per byte) of the
 * interconnect along it:
 *     auto_shard:
 *       flops_per_second: 1e12
 *       axes:
 *         data: {alpha: 1e-5, beta: 1e-10}
 * Axes are matched by name against the mesh being sharded; an axis not
 * listed keeps the defaults. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "config/config_internal.h"

enum { COST_FLOPS, COST_AXES, NUM_COST_KEYS };
static const char *const cost_keys[NUM_COST_KEYS] = {"flops_per_second", "axes"};
enum { LINK_ALPHA, LINK_BETA, NUM_LINK_KEYS };
static const char *const link_keys[NUM_LINK_KEYS] = {"alpha", "beta"};

/* A finite number >= 0 (> 0 when `positive`), in any notation strtod reads. */
static bool read_number(YamlCtx *y, const yaml_node_t *node, const char *what, bool positive, double *out)
{
    if (!yaml_expect(y, node, YAML_SCALAR_NODE, what))
        return false;
    const char *text = (const char *)node->data.scalar.value;
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end || !isfinite(v) || v < 0 || (positive && v == 0)) {
        diag_error(y->diag, yaml_node_loc(y, node), "%s must be a %s number, got '%s'", what,
                   positive ? "positive" : "non-negative", text);
        return false;
    }
    *out = v;
    return true;
}

static bool add_link(YamlCtx *y, const char *key, const yaml_node_t *key_node, const yaml_node_t *value, void *user)
{
    Config *c = y->config;
    yaml_node_t *fields[NUM_LINK_KEYS];
    if (!yaml_fields(y, value, link_keys, NUM_LINK_KEYS, fields, NULL, "an axis's link costs"))
        return false;
    ConfigLink *link = &c->links[c->num_links];
    *link = (ConfigLink){key, yaml_node_loc(y, key_node), CONFIG_DEFAULT_ALPHA, CONFIG_DEFAULT_BETA};
    if ((fields[LINK_ALPHA] && !read_number(y, fields[LINK_ALPHA], "'alpha'", false, &link->alpha)) ||
        (fields[LINK_BETA] && !read_number(y, fields[LINK_BETA], "'beta'", false, &link->beta)))
        return false;
    c->num_links++;
    return true;
}

bool config_read_costs(YamlCtx *y, const yaml_node_t *node)
{
    yaml_node_t *fields[NUM_COST_KEYS];
    if (!yaml_fields(y, node, cost_keys, NUM_COST_KEYS, fields, NULL, "'auto_shard'"))
        return false;
    Config *c = y->config;
    if (fields[COST_FLOPS] && !read_number(y, fields[COST_FLOPS], "'flops_per_second'", true, &c->flops_per_second))
        return false;
    const yaml_node_t *axes = fields[COST_AXES];
    if (!axes)
        return true;
    if (!yaml_expect(y, axes, YAML_MAPPING_NODE, "'axes'"))
        return false;
    size_t count = (size_t)(axes->data.mapping.pairs.top - axes->data.mapping.pairs.start);
    c->links = ARENA_ARRAY(&c->arena, ConfigLink, count + 1);
    return yaml_each_pair(y, axes, "'axes'", add_link, NULL);
}

const ConfigLink *config_find_link(const Config *c, const char *axis)
{
    for (int i = 0; c && i < c->num_links; i++)
        if (strcmp(c->links[i].axis, axis) == 0)
            return &c->links[i];
    return NULL;
}
