/* Reading a libyaml document into a Config: the node helpers every section
 * reader shares (config_yaml.c), and the section readers (config_mesh.c,
 * config_rules.c). Internal to src/config*.c. */
#ifndef SHARDC_CONFIG_INTERNAL_H
#define SHARDC_CONFIG_INTERNAL_H
#include <yaml.h>
#include "shardc/config.h"

/* Converting a mark's character column to bytes scans its line; the
 * cursor remembers the last conversion so marks visited in file order cost
 * linear time in total, even when a flow-style config is one long line. */
typedef struct YamlCursor {
    size_t line, chars;     /* 0-based line, characters into it */
    size_t byte;            /* the byte offset of that position */
    size_t line_start;      /* the byte offset of the line */
} YamlCursor;

typedef struct YamlCtx {
    yaml_document_t *doc;
    DiagEngine *diag;
    Config *config;
    YamlCursor cursor;
} YamlCtx;

/* A libyaml mark (0-based line, column in characters) as a 1-based Loc
 * whose column counts bytes, as every other diagnostic's does. */
Loc yaml_mark_loc(YamlCtx *y, yaml_mark_t mark);
Loc yaml_node_loc(YamlCtx *y, const yaml_node_t *node);
/* A byte offset into the YAML text (libyaml's reader errors give these). */
Loc yaml_offset_loc(const Config *c, size_t offset);
yaml_node_t *yaml_child(YamlCtx *y, int index);
/* "a mapping", "a sequence", "a string", "null": for "expected X, got Y". */
const char *yaml_node_kind(const yaml_node_t *node);
bool yaml_is_null(const yaml_node_t *node);
/* Reports "WHAT must be KIND, got ..." unless node has that type. */
bool yaml_expect(YamlCtx *y, const yaml_node_t *node, yaml_node_type_t type, const char *what);
/* A non-empty string scalar (no NUL bytes), copied into the config's arena. */
const char *yaml_name(YamlCtx *y, const yaml_node_t *node, const char *what);
bool yaml_positive_int(YamlCtx *y, const yaml_node_t *node, const char *what, int64_t *out);
bool yaml_int(YamlCtx *y, const yaml_node_t *node, const char *what, int64_t *out);

/* The value nodes of a mapping with a fixed set of (at most 8) keys:
 * out[i] is the value of keys[i] or NULL, key_nodes[i] (if key_nodes is
 * not NULL) its key. Unknown and duplicate keys are reported. */
bool yaml_fields(YamlCtx *y, const yaml_node_t *map, const char *const *keys, int num_keys,
                 yaml_node_t **out, const yaml_node_t **key_nodes, const char *where);

/* A mapping with free-form keys (mesh names, axis names, logical names):
 * each key must be a name and appear once; visit is called per pair and
 * may report errors of its own (it returns false then). */
typedef bool (*YamlPairVisit)(YamlCtx *y, const char *key, const yaml_node_t *key_node,
                              const yaml_node_t *value, void *user);
bool yaml_each_pair(YamlCtx *y, const yaml_node_t *map, const char *what, YamlPairVisit visit,
                    void *user);

/* The sections of the config. */
bool config_read_meshes(YamlCtx *y, const yaml_node_t *node);
bool config_read_rule_sets(YamlCtx *y, const yaml_node_t *node);
bool config_read_costs(YamlCtx *y, const yaml_node_t *node);

#endif
