/* Loading a --config file, the --config/--rules arguments, and choosing the
 * rule set. */

/* Loading a --config file: read it, let libyaml's document API build the
 * node graph, then read the two sections (meshes first, since rules are
 * checked against them). YAML syntax errors become located diagnostics. */
#include <stdlib.h>
#include <string.h>
#include "config/config_internal.h"
#include "shardc/io.h"
#include "shardc/config.h"
#include "shardc/textbuf.h"

enum { ROOT_MESHES, ROOT_RULES, NUM_ROOT_KEYS };
static const char *const root_keys[NUM_ROOT_KEYS] = {"meshes", "logical_axis_rules"};

static void report_parser_error(YamlCtx *y, const yaml_parser_t *parser)
{
    const Config *c = y->config;
    const char *problem = parser->problem ? parser->problem : "unreadable input";
    if (parser->error == YAML_MEMORY_ERROR) {
        diag_error(y->diag, (Loc){c->file, 0, 0}, "out of memory while reading the YAML");
    } else if (parser->error == YAML_READER_ERROR) {
        diag_error(y->diag, yaml_offset_loc(c, parser->problem_offset), "invalid YAML: %s", problem);
    } else {
        diag_error(y->diag, yaml_mark_loc(y, parser->problem_mark), "invalid YAML: %s", problem);
        if (parser->context)
            diag_note(y->diag, yaml_mark_loc(y, parser->context_mark), "%s", parser->context);
    }
}

/* A config is one document: a second one would be silently ignored. */
static bool check_single_document(YamlCtx *y, yaml_parser_t *parser)
{
    yaml_document_t next;
    if (!yaml_parser_load(parser, &next)) {
        report_parser_error(y, parser);
        return false;
    }
    const yaml_node_t *root = yaml_document_get_root_node(&next);
    if (root)
        diag_error(y->diag, yaml_mark_loc(y, root->start_mark), "the config must be a single YAML document");
    yaml_document_delete(&next);
    return root == NULL;
}

/* The `auto_shard:` section (cost.c) is taken out of the root mapping
 * first: the root's unknown-key message names the two sections every
 * config is about. *rest is root without it, its pairs in `pairs`. */
static const yaml_node_t *take_costs(YamlCtx *y, const yaml_node_t *root, yaml_node_t *rest, yaml_node_pair_t *pairs,
                                     size_t max)
{
    const yaml_node_t *costs = NULL;
    *rest = *root;
    size_t n = 0;
    for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
        const yaml_node_t *key = yaml_child(y, p->key);
        if (!costs && key && key->type == YAML_SCALAR_NODE && strcmp((const char *)key->data.scalar.value, "auto_shard") == 0)
            costs = yaml_child(y, p->value);
        else if (n < max)
            pairs[n++] = *p;
    }
    rest->data.mapping.pairs.start = pairs;
    rest->data.mapping.pairs.top = rest->data.mapping.pairs.end = pairs + n;
    return costs;
}

static bool read_root(YamlCtx *y, const yaml_node_t *root)
{
    yaml_node_t *fields[NUM_ROOT_KEYS];
    const yaml_node_t *keys[NUM_ROOT_KEYS];
    yaml_node_t rest;
    yaml_node_pair_t pairs[16];
    const yaml_node_t *costs = NULL;
    if (root->type == YAML_MAPPING_NODE && root->data.mapping.pairs.top - root->data.mapping.pairs.start <= 16)
        root = (costs = take_costs(y, root, &rest, pairs, 16)) ? &rest : root;
    if (!yaml_fields(y, root, root_keys, NUM_ROOT_KEYS, fields, keys, "the config") ||
        (costs && !config_read_costs(y, costs)))
        return false;
    Config *c = y->config;
    c->rule_sets_loc = keys[ROOT_RULES] ? yaml_node_loc(y, keys[ROOT_RULES]) : (Loc){c->file, 0, 0};
    if (fields[ROOT_MESHES] && !config_read_meshes(y, fields[ROOT_MESHES]))
        return false;
    return !fields[ROOT_RULES] || config_read_rule_sets(y, fields[ROOT_RULES]);
}

static bool read_document(YamlCtx *y, yaml_parser_t *parser)
{
    yaml_document_t doc;
    if (!yaml_parser_load(parser, &doc)) {
        report_parser_error(y, parser);
        return false;
    }
    y->doc = &doc;
    const yaml_node_t *root = yaml_document_get_root_node(&doc);
    bool ok = root != NULL;
    if (!root)
        diag_error(y->diag, (Loc){y->config->file, 0, 0}, "the config is empty; expected a mapping with "
                   "'meshes' and 'logical_axis_rules'");
    ok = ok && read_root(y, root) && check_single_document(y, parser);
    yaml_document_delete(&doc);
    y->doc = NULL;
    return ok;
}

/* Caps checked before libyaml sees the text: its scanner takes time
 * quadratic in the depth of flow collections (100,000 nested '[' took
 * over a minute), and no config needs more than a few levels or bytes. */
enum { CONFIG_MAX_DEPTH = 64, CONFIG_MAX_BYTES = 64 << 20 };

/* The end of a quoted scalar starting at text[i] (its closing quote), or len. */
static size_t skip_quoted(const char *text, size_t len, size_t i)
{
    char q = text[i];
    for (i++; i < len; i++) {
        if (q == '"' && text[i] == '\\')
            i++;
        else if (text[i] == q && !(q == '\'' && i + 1 < len && text[i + 1] == '\''))
            return i;
        else if (q == '\'' && text[i] == q)
            i++; /* '' inside single quotes */
    }
    return len;
}

/* The depth of flow brackets ('[', '{') outside quotes and comments. */
static bool check_caps(const Config *c, DiagEngine *diag)
{
    if (c->len > CONFIG_MAX_BYTES) {
        diag_error(diag, (Loc){c->file, 0, 0}, "the config is %zu bytes; at most %d MiB are read", c->len,
                   CONFIG_MAX_BYTES >> 20);
        return false;
    }
    int depth = 0, line = 1, col = 1;
    for (size_t i = 0; i < c->len; i++, col++) {
        char ch = c->text[i];
        if (ch == '\n') {
            line++;
            col = 0;
        } else if (ch == '#' && (i == 0 || c->text[i - 1] == ' ' || c->text[i - 1] == '\t' ||
                                 c->text[i - 1] == '\n')) {
            while (i + 1 < c->len && c->text[i + 1] != '\n')
                i++;
        } else if (ch == '"' || ch == '\'') {
            size_t end = skip_quoted(c->text, c->len, i);
            for (; i < end; i++) /* quoted scalars may span lines */
                if (c->text[i] == '\n')
                    line++, col = 0;
                else
                    col++;
        } else if ((ch == '[' || ch == '{') && ++depth > CONFIG_MAX_DEPTH) {
            diag_error(diag, (Loc){c->file, line, col}, "YAML collections nest more than %d levels deep",
                       CONFIG_MAX_DEPTH);
            return false;
        } else if ((ch == ']' || ch == '}') && depth > 0) {
            depth--;
        }
    }
    return true;
}

static bool parse_config(Config *c, DiagEngine *diag)
{
    if (!check_caps(c, diag))
        return false;
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        diag_error(diag, (Loc){c->file, 0, 0}, "out of memory while reading the YAML");
        return false;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)c->text, c->len);
    YamlCtx y = {.diag = diag, .config = c};
    bool ok = read_document(&y, &parser);
    yaml_parser_delete(&parser);
    return ok;
}

Config *config_load(DiagEngine *diag, const char *path)
{
    Config *c = calloc(1, sizeof *c);
    if (!c) {
        diag_error(diag, (Loc){path, 0, 0}, "out of memory");
        return NULL;
    }
    arena_init(&c->arena);
    c->file = strcmp(path, "-") == 0 ? "<stdin>" : path;
    c->text = io_read_source(diag, path, &c->len);
    if (!c->text) {
        config_free(c);
        return NULL;
    }
    diag_add_source(diag, c->file, c->text, c->len);
    if (!parse_config(c, diag)) {
        config_free(c);
        return NULL;
    }
    return c;
}

void config_free(Config *c)
{
    if (!c)
        return;
    arena_free(&c->arena);
    free(c->text);
    free(c);
}

/* --config=FILE.yaml and --rules=NAME, the same for every subcommand: the
 * command line (cli/cli.c) hands such arguments to config_parse_arg and,
 * once they are all read, calls config_apply_cli; the command line reports
 * the usage errors these return (config.h). */

ConfigArgResult config_parse_arg(ConfigArgs *args, const char *arg)
{
    if (strncmp(arg, "--config=", 9) == 0) {
        if (!arg[9])
            return CONFIG_ARG_BAD;
        args->path = arg + 9;
        return CONFIG_ARG_TAKEN;
    }
    if (strncmp(arg, "--rules=", 8) == 0) {
        if (!arg[8])
            return CONFIG_ARG_BAD;
        args->rules = arg + 8;
        return CONFIG_ARG_TAKEN;
    }
    return CONFIG_ARG_NONE;
}

int config_apply_cli(const ConfigArgs *args, DiagEngine *diag, Config **out)
{
    *out = NULL;
    if (!args->path && args->rules)
        return 2;
    if (!args->path)
        return -1;
    Config *c = config_load(diag, args->path);
    if (!c)
        return 1;
    if (!config_select_rules(c, diag, args->rules)) {
        config_free(c);
        return 1;
    }
    *out = c;
    return -1;
}

/* Queries on a loaded config: which rule set --rules chose, a logical
 * name's rule, and whether a rule set's axes exist in its mesh. */

static void list_rule_sets(TextBuf *names, const Config *c)
{
    textbuf_init(names);
    for (int i = 0; i < c->num_rule_sets; i++)
        textbuf_add(names, "%s'%s'", i ? ", " : "", c->rule_sets[i]->name);
    if (c->num_rule_sets == 0)
        textbuf_add(names, "none");
}

static const RuleSet *find_rule_set(const Config *c, const char *name)
{
    for (int i = 0; i < c->num_rule_sets; i++)
        if (strcmp(c->rule_sets[i]->name, name) == 0)
            return c->rule_sets[i];
    return NULL;
}

/* Haliax has one mapping in scope; a config may offer several, and the
 * default is the one named "default" or else the only one. */
bool config_select_rules(Config *c, DiagEngine *diag, const char *name)
{
    TextBuf names;
    list_rule_sets(&names, c);
    if (name) {
        c->rules = find_rule_set(c, name);
        if (!c->rules)
            diag_error(diag, c->rule_sets_loc, "no rule set '%s' in the config (its rule sets: %s)", name,
                       names.text);
        return c->rules != NULL;
    }
    c->rules = find_rule_set(c, "default");
    if (!c->rules && c->num_rule_sets == 1)
        c->rules = c->rule_sets[0];
    if (!c->rules && c->num_rule_sets > 1) {
        diag_error(diag, c->rule_sets_loc, "the config has several rule sets (%s) and none is named 'default'; "
                   "choose one with --rules=NAME", names.text);
        return false;
    }
    return true;
}

const LogicalRule *config_rule_set_find(const RuleSet *rs, const char *logical_name)
{
    return symtab_get(&rs->by_name, logical_name);
}

static void list_mesh_axes(TextBuf *names, const Mesh *mesh)
{
    textbuf_init(names);
    for (int i = 0; i < mesh->num_axes; i++)
        textbuf_add(names, "%s\"%s\"", i ? ", " : "", mesh->axes[i].name);
    if (mesh->num_axes == 0)
        textbuf_add(names, "none");
}

static bool mesh_has_axis(const Mesh *mesh, const char *name)
{
    for (int i = 0; i < mesh->num_axes; i++)
        if (strcmp(mesh->axes[i].name, name) == 0)
            return true;
    return false;
}

bool config_rule_set_check_axes(const RuleSet *rs, const Mesh *mesh, DiagEngine *diag)
{
    bool ok = true;
    for (int r = 0; r < rs->num_rules; r++) {
        const LogicalRule *rule = &rs->rules[r];
        for (int k = 0; k < rule->num_axes; k++) {
            if (mesh_has_axis(mesh, rule->axes[k]))
                continue;
            TextBuf axes;
            list_mesh_axes(&axes, mesh);
            diag_error(diag, rule->axis_locs[k], "unknown axis \"%s\" in mesh '@%s' (its axes: %s)",
                       rule->axes[k], mesh->name, axes.text);
            ok = false;
        }
    }
    return ok;
}
