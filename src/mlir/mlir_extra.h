/* What an op, function or module carried in MLIR that shardc's IR does not
 * model, kept on the IR (Op.mlir, Func.mlir, Module.mlir; opaque outside
 * src/mlir/) so that the printer writes back what the importer read.
 * Internal to src/mlir/. */
#ifndef SHARDC_MLIR_EXTRA_H
#define SHARDC_MLIR_EXTRA_H
#include "shardc/ir.h"
#include "shardc/rule.h"

/* An attribute kept as written: `name = text`, or a unit `name` (text NULL). */
typedef struct MlirKeptAttr {
    const char *name;
    const char *text;
} MlirKeptAttr;

typedef struct MlirKeptAttrs {
    int count;
    const MlirKeptAttr *items;
} MlirKeptAttrs;

struct MlirExtra {
    /* Ops: the MLIR op it was read from where it is not the canonical one
     * of its kind (mlir_ops.def): stablehlo.dot for an einsum, else NULL. */
    const char *op_name;
    /* Attributes the IR does not model (discardable ones, and inherent ones
     * such as precision_config), printed back in this order. */
    MlirKeptAttrs attrs;
    /* stablehlo.reduce: the value written as its init (a scalar constant),
     * printed back as `init: %name` while it is still defined. */
    const Value *init;
    /* stablehlo.scatter: the mesh of the replicated sharding constraints
     * its update computation put on its two arguments, or NULL. */
    const char *region_mesh;
    /* stablehlo.compare written without compare_type: printed back
     * without one, as sdy_opt prints it (ops shardc makes print the
     * operand type's). */
    bool no_compare_type;
    /* A custom_call whose sdy.sharding_rule was written without `custom`:
     * printed back without it (a rule shardc binds to a custom op is
     * custom, as JAX's custom_partitioning writes them). */
    bool rule_not_custom;
    /* A built-in op's own sdy.sharding_rule (kept in attrs too, to print):
     * Shardy's passes use an op's rule where it has one
     * (getOrCreateShardingRule); -sdy-insert-explicit-reshards does. */
    const struct OpShardingRule *written_rule;
    /* Functions: visibility ("private", or NULL), and per argument and per
     * result the attributes other than sdy.sharding. */
    const char *visibility;
    int num_args, num_results;
    const MlirKeptAttrs *arg_attrs, *result_attrs;
    /* Modules: `module @name` (or NULL) and the `loc` aliases kept as text. */
    const char *module_name;
    MlirKeptAttrs loc_aliases;
    /* Modules: whether a dynamic dim or unranked tensor was read; without
     * one, static_shapes.c has nothing to look for. */
    bool dynamic_types;
};

#endif
