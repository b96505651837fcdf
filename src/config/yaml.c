/* libyaml document nodes as config values: locations, kinds, names and
 * integers, with a located diagnostic for every mismatch. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "config/config_internal.h"

static size_t utf8_length(unsigned char lead)
{
    if (lead >= 0xF0)
        return 4;
    if (lead >= 0xE0)
        return 3;
    return lead >= 0xC0 ? 2 : 1;
}

static void cursor_reset(YamlCtx *y)
{
    const Config *c = y->config;
    bool bom = c->len >= 3 && memcmp(c->text, "\xEF\xBB\xBF", 3) == 0;
    y->cursor = (YamlCursor){0, 0, bom ? 3 : 0, 0};
}

/* libyaml counts columns in characters; Locs count bytes. */
Loc yaml_mark_loc(YamlCtx *y, yaml_mark_t mark)
{
    const Config *c = y->config;
    YamlCursor *at = &y->cursor;
    if (mark.line < at->line || (mark.line == at->line && mark.column < at->chars))
        cursor_reset(y);
    while (at->line < mark.line && at->byte < c->len) {
        const char *eol = memchr(c->text + at->byte, '\n', c->len - at->byte);
        at->byte = eol ? (size_t)(eol - c->text) + 1 : c->len;
        at->line_start = at->byte;
        at->line++;
        at->chars = 0;
    }
    while (at->chars < mark.column && at->byte < c->len && c->text[at->byte] != '\n') {
        at->byte += utf8_length((unsigned char)c->text[at->byte]);
        at->chars++;
    }
    return (Loc){c->file, (int)mark.line + 1, (int)(at->byte - at->line_start) + 1};
}

Loc yaml_node_loc(YamlCtx *y, const yaml_node_t *node)
{
    return yaml_mark_loc(y, node->start_mark);
}

yaml_node_t *yaml_child(YamlCtx *y, int index)
{
    return yaml_document_get_node(y->doc, index);
}

/* YAML 1.1's null: a plain ~, null, Null, NULL, or nothing at all. */
bool yaml_is_null(const yaml_node_t *node)
{
    if (node->type != YAML_SCALAR_NODE || node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return false;
    const char *v = (const char *)node->data.scalar.value;
    return node->data.scalar.length == 0 || strcmp(v, "~") == 0 || strcmp(v, "null") == 0 ||
           strcmp(v, "Null") == 0 || strcmp(v, "NULL") == 0;
}

const char *yaml_node_kind(const yaml_node_t *node)
{
    switch (node->type) {
    case YAML_MAPPING_NODE: return "a mapping";
    case YAML_SEQUENCE_NODE: return "a sequence";
    default: return yaml_is_null(node) ? "null" : "a scalar";
    }
}

bool yaml_expect(YamlCtx *y, const yaml_node_t *node, yaml_node_type_t type, const char *what)
{
    if (node->type == type && !yaml_is_null(node))
        return true;
    const char *want = type == YAML_MAPPING_NODE ? "a mapping" : type == YAML_SEQUENCE_NODE ? "a sequence"
                                                                                            : "a scalar";
    diag_error(y->diag, yaml_node_loc(y, node), "%s must be %s, got %s", what, want, yaml_node_kind(node));
    return false;
}

const char *yaml_name(YamlCtx *y, const yaml_node_t *node, const char *what)
{
    if (!yaml_expect(y, node, YAML_SCALAR_NODE, what))
        return NULL;
    const char *v = (const char *)node->data.scalar.value;
    size_t len = node->data.scalar.length;
    if (len == 0 || strlen(v) != len) {
        diag_error(y->diag, yaml_node_loc(y, node), "%s must be a non-empty name without NUL characters", what);
        return NULL;
    }
    return arena_strndup(&y->config->arena, v, len);
}

bool yaml_int(YamlCtx *y, const yaml_node_t *node, const char *what, int64_t *out)
{
    if (!yaml_expect(y, node, YAML_SCALAR_NODE, what))
        return false;
    const char *v = (const char *)node->data.scalar.value;
    char *end;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    bool plain = node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
    if (!plain || end == v || *end || errno == ERANGE || (size_t)(end - v) != node->data.scalar.length) {
        diag_error(y->diag, yaml_node_loc(y, node), "%s must be an integer, got '%s'", what, v);
        return false;
    }
    *out = n;
    return true;
}

bool yaml_positive_int(YamlCtx *y, const yaml_node_t *node, const char *what, int64_t *out)
{
    if (!yaml_int(y, node, what, out))
        return false;
    if (*out >= 1)
        return true;
    diag_error(y->diag, yaml_node_loc(y, node), "%s must be positive, got %lld", what, (long long)*out);
    return false;
}

Loc yaml_offset_loc(const Config *c, size_t offset)
{
    int line = 1;
    size_t line_start = 0;
    for (size_t i = 0; i < offset && i < c->len; i++) {
        if (c->text[i] == '\n') {
            line++;
            line_start = i + 1;
        }
    }
    return (Loc){c->file, line, (int)(offset - line_start) + 1};
}

/* Walking YAML mappings: keys are names, each given once. libyaml keeps
 * duplicate keys (YAML forbids them but the loader does not check), so
 * they are caught here; a fixed-schema mapping also rejects unknown keys,
 * which catches typos that would otherwise silently do nothing. */

static void report_duplicate(YamlCtx *y, const char *key, const yaml_node_t *again, const yaml_node_t *first)
{
    diag_error(y->diag, yaml_node_loc(y, again), "duplicate key '%s'", key);
    diag_note(y->diag, yaml_node_loc(y, first), "'%s' is first given here", key);
}

static void report_unknown(YamlCtx *y, const yaml_node_t *key_node, const char *key, const char *const *keys,
                           int num_keys, const char *where)
{
    char expected[512] = "";
    size_t len = 0;
    for (int i = 0; i < num_keys && len < sizeof expected; i++)
        len += (size_t)snprintf(expected + len, sizeof expected - len, "%s'%s'",
                                i == 0 ? "" : i + 1 == num_keys ? " or " : ", ", keys[i]);
    diag_error(y->diag, yaml_node_loc(y, key_node), "unknown key '%s' in %s (expected %s)", key, where, expected);
}

static int find_key(const char *key, const char *const *keys, int num_keys)
{
    for (int i = 0; i < num_keys; i++)
        if (strcmp(keys[i], key) == 0)
            return i;
    return -1;
}

enum { MAX_FIELDS = 8 };

bool yaml_fields(YamlCtx *y, const yaml_node_t *map, const char *const *keys, int num_keys, yaml_node_t **out,
                 const yaml_node_t **keys_out, const char *where)
{
    const yaml_node_t *key_nodes[MAX_FIELDS] = {0};
    for (int i = 0; i < num_keys; i++) {
        out[i] = NULL;
        if (keys_out)
            keys_out[i] = NULL;
    }
    if (!yaml_expect(y, map, YAML_MAPPING_NODE, where))
        return false;
    bool ok = true;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        const yaml_node_t *key_node = yaml_child(y, p->key);
        const char *key = yaml_name(y, key_node, "a key");
        int k = key ? find_key(key, keys, num_keys) : -1;
        if (key && k < 0)
            report_unknown(y, key_node, key, keys, num_keys, where);
        else if (k >= 0 && key_nodes[k])
            report_duplicate(y, key, key_node, key_nodes[k]);
        if (k < 0 || key_nodes[k]) {
            ok = false;
            continue;
        }
        key_nodes[k] = key_node;
        out[k] = yaml_child(y, p->value);
    }
    if (keys_out)
        memcpy(keys_out, key_nodes, sizeof(key_nodes[0]) * (size_t)num_keys);
    return ok;
}

bool yaml_each_pair(YamlCtx *y, const yaml_node_t *map, const char *what, YamlPairVisit visit, void *user)
{
    if (!yaml_expect(y, map, YAML_MAPPING_NODE, what))
        return false;
    SymTab seen;
    symtab_init(&seen, &y->config->arena);
    bool ok = true;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        const yaml_node_t *key_node = yaml_child(y, p->key);
        const char *key = yaml_name(y, key_node, "a key");
        const yaml_node_t *first = key ? symtab_put(&seen, key, (void *)key_node) : NULL;
        if (first) {
            symtab_put(&seen, key, (void *)first); /* later duplicates point at the first */
            report_duplicate(y, key, key_node, first);
        }
        if (!key || first) {
            ok = false;
            continue;
        }
        ok &= visit(y, key, key_node, yaml_child(y, p->value), user);
    }
    return ok;
}
