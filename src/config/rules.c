/* The `logical_axis_rules:` section: named rule sets, each mapping logical
 * axis names to a mesh axis, a list of mesh axes or null -- Haliax's
 * ResourceMapping (`{"batch": "data", "embed": None}`) -- or T5X's ordered
 * list of such pairs (`- [batch, data]`), where a name may come back as a
 * fallback (RuleSet.ordered). */
#include <string.h>
#include "config/config_internal.h"

enum { SET_MESH, SET_RULES, NUM_SET_KEYS };
static const char *const set_keys[NUM_SET_KEYS] = {"mesh", "rules"};

static bool add_rule_axis(YamlCtx *y, LogicalRule *rule, const yaml_node_t *node)
{
    const char *axis = yaml_name(y, node, "a mesh axis");
    if (!axis)
        return false;
    for (int i = 0; i < rule->num_axes; i++) {
        if (strcmp(rule->axes[i], axis) == 0) {
            diag_error(y->diag, yaml_node_loc(y, node), "mesh axis \"%s\" appears twice in the rule for '%s'",
                       axis, rule->name);
            return false;
        }
    }
    rule->axis_locs[rule->num_axes] = yaml_node_loc(y, node);
    rule->axes[rule->num_axes++] = axis;
    return true;
}

/* null (or []) replicates; "x" is one axis; [x, y] shards over both. */
static bool read_rule_axes(YamlCtx *y, LogicalRule *rule, const yaml_node_t *value)
{
    Arena *arena = &y->config->arena;
    if (yaml_is_null(value))
        return true;
    if (value->type == YAML_SCALAR_NODE) {
        rule->axes = ARENA_ARRAY(arena, const char *, 1);
        rule->axis_locs = ARENA_ARRAY(arena, Loc, 1);
        return add_rule_axis(y, rule, value);
    }
    if (value->type != YAML_SEQUENCE_NODE) {
        diag_error(y->diag, yaml_node_loc(y, value), "the rule for '%s' must be a mesh axis, a list of mesh "
                   "axes or null, got %s", rule->name, yaml_node_kind(value));
        return false;
    }
    size_t count = (size_t)(value->data.sequence.items.top - value->data.sequence.items.start);
    rule->axes = ARENA_ARRAY(arena, const char *, count + 1);
    rule->axis_locs = ARENA_ARRAY(arena, Loc, count + 1);
    bool ok = true;
    for (yaml_node_item_t *it = value->data.sequence.items.start; it < value->data.sequence.items.top; it++)
        ok &= add_rule_axis(y, rule, yaml_child(y, *it));
    return ok;
}

static bool read_rule(YamlCtx *y, const char *name, const yaml_node_t *key_node, const yaml_node_t *value,
                      void *user)
{
    RuleSet *rs = user;
    LogicalRule *rule = &rs->rules[rs->num_rules];
    *rule = (LogicalRule){.name = name, .loc = yaml_node_loc(y, key_node)};
    if (!read_rule_axes(y, rule, value))
        return false;
    symtab_put(&rs->by_name, name, rule);
    rs->num_rules++;
    return true;
}

/* `- [logical, axes]`: one pair of T5X's list. */
static bool read_rule_pair(YamlCtx *y, RuleSet *rs, const yaml_node_t *item)
{
    size_t n = item->type == YAML_SEQUENCE_NODE
                   ? (size_t)(item->data.sequence.items.top - item->data.sequence.items.start) : 0;
    if (n != 2) {
        diag_error(y->diag, yaml_node_loc(y, item), "a rule of a list is a pair [logical name, mesh axes], "
                   "e.g. [batch, data] or [embed, null]; got %s", n ? "a list of another length" : yaml_node_kind(item));
        return false;
    }
    const yaml_node_t *key = yaml_child(y, item->data.sequence.items.start[0]);
    const char *name = yaml_name(y, key, "a logical axis name");
    LogicalRule *rule = &rs->rules[rs->num_rules];
    *rule = (LogicalRule){.name = name, .loc = yaml_node_loc(y, key)};
    if (!name || !read_rule_axes(y, rule, yaml_child(y, item->data.sequence.items.start[1])))
        return false;
    if (!symtab_get(&rs->by_name, name))
        symtab_put(&rs->by_name, name, rule);
    rs->num_rules++;
    return true;
}

static bool read_rule_list(YamlCtx *y, RuleSet *rs, const yaml_node_t *node)
{
    size_t count = (size_t)(node->data.sequence.items.top - node->data.sequence.items.start);
    rs->rules = ARENA_ARRAY(&y->config->arena, LogicalRule, count + 1);
    symtab_init(&rs->by_name, &y->config->arena);
    rs->ordered = true;
    bool ok = true;
    for (yaml_node_item_t *it = node->data.sequence.items.start; it < node->data.sequence.items.top && ok; it++)
        ok = read_rule_pair(y, rs, yaml_child(y, *it));
    return ok;
}

static bool read_rules(YamlCtx *y, RuleSet *rs, const yaml_node_t *node)
{
    if (node->type == YAML_SEQUENCE_NODE)
        return read_rule_list(y, rs, node);
    if (node->type != YAML_MAPPING_NODE) {
        diag_error(y->diag, yaml_node_loc(y, node), "'rules' must be a mapping (batch: data) or a list of "
                   "[logical, mesh] pairs (- [batch, data]), got %s", yaml_node_kind(node));
        return false;
    }
    size_t count = (size_t)(node->data.mapping.pairs.top - node->data.mapping.pairs.start);
    rs->rules = ARENA_ARRAY(&y->config->arena, LogicalRule, count + 1);
    symtab_init(&rs->by_name, &y->config->arena);
    return yaml_each_pair(y, node, "'rules'", read_rule, rs);
}

/* Rules are checked against their mesh now when the config defines it; a
 * mesh only the .shir file declares is checked by the logical-axes pass. */
static bool check_set_mesh(YamlCtx *y, const RuleSet *rs)
{
    const Config *c = y->config;
    if (!rs->mesh && c->num_meshes > 1) {
        diag_error(y->diag, rs->loc, "rule set '%s' must name its mesh ('mesh: NAME'): the config has %d meshes",
                   rs->name, c->num_meshes);
        return false;
    }
    const Mesh *mesh = rs->mesh ? config_find_mesh(c, rs->mesh) : c->num_meshes == 1 ? c->meshes[0] : NULL;
    return !mesh || config_rule_set_check_axes(rs, mesh, y->diag);
}

static bool read_rule_set(YamlCtx *y, const char *name, const yaml_node_t *key_node, const yaml_node_t *value,
                          void *user)
{
    yaml_node_t *fields[NUM_SET_KEYS];
    if (!yaml_fields(y, value, set_keys, NUM_SET_KEYS, fields, NULL, "a rule set"))
        return false;
    RuleSet *rs = ARENA_NEW(&y->config->arena, RuleSet);
    rs->name = name;
    rs->loc = yaml_node_loc(y, key_node);
    if (!fields[SET_RULES]) {
        diag_error(y->diag, yaml_node_loc(y, value), "rule set '%s' needs 'rules', e.g. rules: {batch: data}",
                   name);
        return false;
    }
    if (fields[SET_MESH]) {
        rs->mesh_loc = yaml_node_loc(y, fields[SET_MESH]);
        if (!(rs->mesh = yaml_name(y, fields[SET_MESH], "'mesh'")))
            return false;
    }
    if (!read_rules(y, rs, fields[SET_RULES]) || !check_set_mesh(y, rs))
        return false;
    Config *c = y->config;
    c->rule_sets[c->num_rule_sets++] = rs;
    return true;
}

bool config_read_rule_sets(YamlCtx *y, const yaml_node_t *node)
{
    if (!yaml_expect(y, node, YAML_MAPPING_NODE, "'logical_axis_rules'"))
        return false;
    size_t count = (size_t)(node->data.mapping.pairs.top - node->data.mapping.pairs.start);
    y->config->rule_sets = ARENA_ARRAY(&y->config->arena, RuleSet *, count + 1);
    return yaml_each_pair(y, node, "'logical_axis_rules'", read_rule_set, NULL);
}
