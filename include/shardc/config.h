/* The YAML configuration of `--config=FILE.yaml` (docs/config.md): device
 * meshes and named sets of logical-axis rules in the style of Haliax's
 * axis mappings and T5X's logical_axis_rules. A rule maps a logical axis
 * name ("batch") to one mesh axis, several (major to minor) or none
 * (replicated). Loaded once per run; every Loc in it points into the YAML
 * file, whose text the config keeps for the diagnostics that quote it. */
#ifndef SHARDC_CONFIG_H
#define SHARDC_CONFIG_H
#include <stdbool.h>
#include "shardc/arena.h"
#include "shardc/diag.h"
#include "shardc/ir.h"
#include "shardc/symtab.h"

typedef struct LogicalRule {
    const char *name;       /* the logical axis name */
    Loc loc;                /* its key in the YAML file */
    int num_axes;           /* 0: replicated (null or []) */
    const char **axes;      /* mesh axis names, major to minor */
    Loc *axis_locs;
} LogicalRule;

typedef struct RuleSet {
    const char *name;
    Loc loc;
    const char *mesh;       /* the `mesh:` the rules refer to, or NULL: the only mesh */
    Loc mesh_loc;
    int num_rules;
    LogicalRule *rules;     /* in file order */
    SymTab by_name;         /* logical name -> its first LogicalRule* */
    /* Written as T5X's list of [logical, mesh] pairs: rules apply in order,
     * each to the first dim of its name that no earlier rule assigned, if
     * none of its mesh axes is taken yet; a later rule of the same name is
     * a fallback (flax's _logical_to_mesh_axes). Else Haliax's mapping. */
    bool ordered;
} RuleSet;

/* The auto-sharding cost model's link along one mesh axis (the
 * `auto_shard: axes:` section; docs/auto_sharding.md): a collective over
 * it takes alpha + beta * bytes seconds. */
typedef struct ConfigLink {
    const char *axis;
    Loc loc;
    double alpha, beta;
} ConfigLink;

#define CONFIG_DEFAULT_ALPHA 1e-6       /* seconds per collective */
#define CONFIG_DEFAULT_BETA 1e-10       /* seconds per byte: 10 GB/s */
#define CONFIG_DEFAULT_FLOPS 1e12       /* FLOP/s of one device */

typedef struct Config {
    Arena arena;
    const char *file;
    char *text;             /* the YAML source (malloc'd) */
    size_t len;
    int num_meshes;
    Mesh **meshes;
    int num_rule_sets;
    RuleSet **rule_sets;
    Loc rule_sets_loc;      /* the `logical_axis_rules` key, or the file */
    const RuleSet *rules;   /* the set --rules chose, or NULL if there is none */
    double flops_per_second; /* `auto_shard: flops_per_second:`, or 0: the default */
    int num_links;
    ConfigLink *links;
} Config;

/* Reads and checks FILE.yaml; registers its text with diag. NULL after
 * reporting errors. The config must outlive every diagnostic that may
 * point into it: free it after the DiagEngine's last report. */
Config *config_load(DiagEngine *diag, const char *path);
void config_free(Config *c);
/* Picks the rule set `name`, or (name NULL) the one named "default", or
 * the only one. False after reporting. */
bool config_select_rules(Config *c, DiagEngine *diag, const char *name);
const Mesh *config_find_mesh(const Config *c, const char *name);
/* The rule for a logical name, or NULL: Haliax replicates unknown names. */
const LogicalRule *config_rule_set_find(const RuleSet *rs, const char *logical_name);
/* Reports rule axes that `mesh` does not have (each at its YAML node). */
bool config_rule_set_check_axes(const RuleSet *rs, const Mesh *mesh, DiagEngine *diag);

/* The link costs given for mesh axis `axis`, or NULL (c may be NULL). */
const ConfigLink *config_find_link(const Config *c, const char *axis);

/* ---- the command line, shared by every subcommand (cli/cli.c) ---- */

typedef struct ConfigArgs {
    const char *path;       /* --config=FILE.yaml */
    const char *rules;      /* --rules=NAME */
} ConfigArgs;

typedef enum { CONFIG_ARG_NONE, CONFIG_ARG_TAKEN, CONFIG_ARG_BAD } ConfigArgResult;

/* Recognises --config=FILE and --rules=NAME. CONFIG_ARG_BAD is an empty
 * value: the caller reports the usage error and exits with status 2. */
ConfigArgResult config_parse_arg(ConfigArgs *args, const char *arg);
/* After all arguments: loads --config and selects --rules; *out is NULL
 * without --config. Returns -1 on success, else the exit status: 2 for
 * --rules without --config (a usage error for the caller to report), 1
 * after errors reported through diag. */
int config_apply_cli(const ConfigArgs *args, DiagEngine *diag, Config **out);

#endif
