/* The shardc IR: modules of meshes and functions; functions of blocks of
 * ops on SSA values; values carry a tensor type and (optionally) a sharding.
 * Everything is allocated from the Module's arena.
 *
 * Shardings follow Shardy's model (docs/sharding_representation.md): per
 * tensor dim an ordered list of mesh axes, major to minor; a dim is closed
 * (propagation may not add axes) or open; a dim may carry a priority; some
 * axes may be explicitly replicated. A value with no sharding is fully open. */
#ifndef SHARDC_IR_H
#define SHARDC_IR_H
#include <stdbool.h>
#include <stdint.h>
#include "shardc/arena.h"
#include "shardc/diag.h"
#include "shardc/type.h"

/* ---- ops ---------------------------------------------------------------- */

typedef enum {
#define OPCLASS(cls, verify, rule, explicit, partition, exec) cls,
#include "shardc/opclasses.def"
#undef OPCLASS
    OPC_COUNT
} OpClass;

typedef enum {
#define OP(id, name, cls, min_ops, max_ops, nres, attrs) OP_##id,
#include "shardc/ops.def"
#undef OP
    OP_COUNT
} OpKind;

/* Attribute keys, one per attribute name (attrs.def). */
typedef enum {
    ATTR_KEY_NONE,      /* a name no op takes (the verifier reports it) */
#define ATTR_KEY(id, name) ATTR_KEY_##id,
#include "shardc/attrs.def"
#undef ATTR_KEY
    ATTR_KEY_COUNT
} AttrKey;

/* What an op's attribute holds (the TYPE of ops.def). */
typedef enum {
    ATYPE_INT, ATYPE_INTS, ATYPE_BOOL, ATYPE_STRING, ATYPE_SYMBOL, ATYPE_AXES, ATYPE_TENSOR, ATYPE_SCALAR,
    ATYPE_SHARDING, ATYPE_SHARDINGS, ATYPE_PAIRS, ATYPE_NAMES, ATYPE_SIZES, ATYPE_COUNT
} AttrType;

typedef enum { ATTR_REQUIRED, ATTR_OPTIONAL, ATTR_DEFAULTED, ATTR_ANNOTATION } AttrPresence;

typedef struct OpAttrSpec OpAttrSpec;

typedef struct OpInfo {
    const char *name;
    OpClass op_class;
    int min_operands, max_operands; /* max -1: variadic */
    int num_results;                /* -1: from the written types */
    int num_attrs;
    const OpAttrSpec *attrs;        /* its own attributes, in ops.def order */
} OpInfo;

const OpInfo *op_info(OpKind kind);
/* Look up an op by spelling; false if unknown. */
bool op_lookup(const char *name, OpKind *out);

/* ---- meshes and shardings ------------------------------------------------ */

/* Real meshes have a handful of axes; the cap keeps a hostile mesh of
 * 200000 size-1 axes from minutes of quadratic duplicate-name checks. */
enum { SHARDC_MAX_MESH_AXES = 1024 };

typedef struct MeshAxis {
    const char *name;
    int64_t size;
    bool is_explicit;   /* JAX AxisType.Explicit; default auto */
    Loc loc;
} MeshAxis;

typedef struct Mesh {
    const char *name;   /* without the @ */
    Loc loc;
    int num_axes;
    MeshAxis *axes;
    int64_t num_devices;
    int64_t *device_ids; /* explicit order, or NULL for row-major 0..N-1 */
} Mesh;

/* A mesh axis or a sub-axis "x":(pre_size)size of it. A whole axis has
 * pre_size 1 and size equal to the axis size. */
typedef struct AxisRef {
    int axis;           /* index into Mesh.axes */
    int64_t pre_size;
    int64_t size;
} AxisRef;

enum { PRIORITY_NONE = -1 };

typedef struct DimSharding {
    int num_axes;
    AxisRef *axes;      /* major to minor */
    bool is_closed;
    int priority;       /* p0 is highest; PRIORITY_NONE if absent */
} DimSharding;

/* How the partial values of an unreduced value combine (Shardy's
 * `unreduced=max{...}`); sum unless written. */
typedef enum { UNREDUCED_SUM, UNREDUCED_MAX, UNREDUCED_MIN } UnreducedOp;

typedef struct Sharding {
    const Mesh *mesh;
    int rank;
    DimSharding *dims;
    int num_replicated;
    AxisRef *replicated; /* explicitly replicated axes */
    Loc loc;
    /* Unreduced axes (JAX's P(unreduced=...)): each device holds a partial
     * result and the value is their sum (or max/min) across these axes. */
    int num_unreduced;
    AxisRef *unreduced;
    UnreducedOp unreduced_op;
} Sharding;

/* ---- attributes ------------------------------------------------------------ */

typedef enum {
    ATTR_INT, ATTR_FLOAT, ATTR_BOOL, ATTR_STRING, ATTR_SYMBOL,
    ATTR_ARRAY, ATTR_DICT, ATTR_SHARDING,
} AttrKind;

typedef struct NamedAttr NamedAttr;

typedef struct AttrValue {
    AttrKind kind;
    Loc loc;
    union {
        int64_t i;
        double f;
        bool b;
        const char *s;          /* string, or symbol name without @ */
        Sharding *sharding;
        struct { int count; struct AttrValue **items; } array;
        struct { int count; NamedAttr *items; } dict;
    } u;
} AttrValue;

struct NamedAttr {
    const char *name;
    Loc loc;
    AttrValue *value;
    AttrKey key;        /* an op's attribute: resolved once when built; NONE in dicts */
};

/* One attribute an op takes (ops.def). */
struct OpAttrSpec {
    AttrKey key;
    AttrType type;
    AttrPresence presence;
    AttrValue fallback;     /* ATTR_DEFAULTED: what an absent one reads as */
};

/* ---- logical axis names ---------------------------------------------------- */

/* Logical axis names (Haliax, T5X): one per tensor dim, "" for a dim with no
 * name. Written `{logical = ["batch", "embed"]}`; the logical-axes pass
 * (passes/logical_axes.c) replaces them by the sharding the --config rules
 * give, so the passes after it see only shardings. */
typedef struct LogicalAxes {
    int rank;
    const char **names;
    Loc *locs;          /* each name's position */
    Loc loc;            /* the attribute's */
} LogicalAxes;

/* ---- values, ops, blocks, functions -------------------------------------- */

typedef struct Op Op;
typedef struct Block Block;
typedef struct Func Func;
struct BoundRule;       /* opaque: src/rules/registry.c */
/* What an op, function or module carried in MLIR that the IR does not
 * model (its MLIR op name where several map onto one op kind, attributes
 * kept to be printed back): opaque to every stage but src/mlir/, copied
 * by clones, NULL for IR read from .shir. */
struct MlirExtra;

/* 80 bytes, made for every result of every op, twice over once
 * partitioned (bench/README.md): what passes read of each operand (its
 * type, sharding, definer, ids) comes first, then its name, the block of
 * an argument and what only diagnostics and the logical-axes pass read. */
typedef struct Value {
    TensorType type;
    Sharding *sharding; /* NULL: fully open, nothing known */
    Op *def;            /* defining op, or NULL for a block argument */
    int index;          /* result index in def, or argument index */
    int id;             /* dense per-module numbering, for pass side tables */
    const char *name;   /* without the %; unique within its function */
    Block *block;       /* owning block, for block arguments */
    LogicalAxes *logical; /* written logical names, until resolved; or NULL */
    Loc loc;
} Value;

/* What few ops carry, out of line: where a string (einsum's spec) or a
 * callee is written, and a custom op's rule string bound to its types by
 * the verifier (rules_of_op, rules.h, reuses it for the same shapes).
 * Never changed in place, as clones share it: the setters below copy it. */
typedef struct OpAside {
    Loc str_loc, callee_loc;
    const struct BoundRule *bound_rule;
} OpAside;

/* An op is made twice over once partitioned (bench/README.md): 136 bytes,
 * starting a cache line (op_new). The first line holds all a walk of the
 * IR reads (ir_walk: kind, results, the links, region counts) and what the
 * passes' side tables are indexed by (id) and the operands: a pass over a
 * module too large for the cache then misses once per op, not two or
 * three times (issue 20, scaling). The rest is read by few passes. */
struct Op {
    OpKind kind;
    int id;             /* dense per-module numbering, for pass side tables */
    int num_results;
    int num_operands;
    int num_regions;
    int num_attrs;
    Value **results;
    Value **operands;
    Op *next;
    Block *parent;
    Block *region;      /* body of shard_map, or NULL */
    /* Control-flow regions (while: cond then body; case: its branches),
     * which, unlike shard_map bodies, see the values of enclosing blocks. */
    Block **regions;
    NamedAttr *attrs;
    Op *prev;
    Loc loc;
    const char *str;    /* leading string literal (einsum spec), or NULL */
    const char *callee; /* @symbol of call/custom, without @; or NULL */
    const OpAside *aside; /* or NULL: none of its fields set */
    const struct MlirExtra *mlir;
};

struct Block {
    int num_args;
    Value **args;
    Op *first, *last;
    int num_returns;
    Value **returns;
    Loc return_loc;
    Op *parent_op;      /* the shard_map, while or case owning this block, or NULL */
    Func *parent_func;
};

struct Func {
    const char *name;
    Loc loc;
    Block *body;        /* args are the function arguments */
    int num_results;
    TensorType *result_types;
    Sharding **result_shardings; /* entries may be NULL */
    LogicalAxes **result_logical; /* NULL, or entries that may be NULL */
    Loc *result_locs;
    const struct MlirExtra *mlir;
    bool called;        /* a call named it (inline-calls sets it as it removes the calls) */
};

typedef struct Module {
    Arena arena;
    const char *file;
    int num_meshes;
    Mesh **meshes;
    int num_funcs;
    Func **funcs;
    int num_values;     /* next Value.id */
    int num_ops;        /* next Op.id */
    /* A census for passes that act on few ops: ops ever created per kind
     * and logical annotations ever parsed. Upper bounds (inlining removes
     * calls): a pass whose ops never existed skips its walk, which on a
     * 1e5-op module is a cache miss per op for nothing. */
    int ops_created[OP_COUNT];
    int logical_annotations;
    int64_t largest_value_bytes;    /* of every value created; INT64_MAX on overflow */
    const struct MlirExtra *mlir;
    /* Hash indexes of funcs and meshes by name: a cache that the look-ups
     * (module_find_func/mesh) bring up to date as the arrays change, so a
     * module of 1e5 functions is not scanned once per call (ir.c). */
    struct NameIndex *func_index, *mesh_index;
    /* The shardings propagation puts on values, one copy of each
     * (module_intern_sharding); a heap table, freed with the module. */
    struct ShardingIndex *shardings;
} Module;

/* ---- construction and queries (ir.c) ------------------------------------- */

Module *module_new(const char *file);
void module_free(Module *m);
const Mesh *module_find_mesh(const Module *m, const char *name);
Func *module_find_func(const Module *m, const char *name);
/* Shardy's main function (getMainFuncOrDie with useSingleFunc): the only
 * function, else @main, else NULL. */
const Func *module_entry_func(const Module *m);
/* Bring the look-up indexes up to date. The look-ups update them when the
 * module changed, so call this before look-ups from several threads (the
 * interpreter does); then the look-ups only read. */
void module_index(const Module *m);
/* The mesh of the first sharding in f (arguments, then op results), or
 * NULL: the mesh a function is propagated and partitioned on. */
const Mesh *func_first_mesh(const Func *f);
/* Shardy's placeholder mesh `<[]>`: no axes and no device (a maximal mesh
 * `<[], device_ids=[0]>` names a device). A sharding on it says only which
 * dims are open; propagation moves it onto the mesh it meets. */
bool mesh_is_empty(const Mesh *m);
/* The same axes (names and sizes) and device order, whatever the names of
 * the meshes: Shardy compares meshes by value. */
bool mesh_equal(const Mesh *a, const Mesh *b);

Value *value_new(Module *m, const char *name, TensorType type, Loc loc);
/* Count v's bytes in the module's census (largest_value_bytes) after its
 * type was set later than value_new (types inferred by the front end). */
void module_account_value(Module *m, const Value *v);
Op *op_new(Module *m, OpKind kind, Loc loc);
/* Where op's string and callee are written ((Loc){0} if not recorded). */
static inline Loc op_str_loc(const Op *op) { return op->aside ? op->aside->str_loc : (Loc){0}; }
static inline Loc op_callee_loc(const Op *op) { return op->aside ? op->aside->callee_loc : (Loc){0}; }
static inline const struct BoundRule *op_bound_rule(const Op *op) { return op->aside ? op->aside->bound_rule : NULL; }
/* Each sets one field of a new copy of op's aside (in arena); setting
 * nothing ((Loc){0}, NULL) on an op without one makes none. */
void op_set_str_loc(Arena *arena, Op *op, Loc loc);
void op_set_callee_loc(Arena *arena, Op *op, Loc loc);
void op_set_bound_rule(Arena *arena, Op *op, const struct BoundRule *rule);
void block_append(Block *b, Op *op);
void block_insert_before(Block *b, Op *before, Op *op);
void block_remove(Block *b, Op *op);

/* ---- attributes (attr.c): by key; the verifier has checked their types ---- */

const char *attr_key_name(AttrKey key);
/* The key of an attribute name, or ATTR_KEY_NONE. */
AttrKey attr_key_lookup(const char *name);
/* What op kind takes under key, or NULL. */
const OpAttrSpec *op_attr_spec(OpKind kind, AttrKey key);

/* The attribute as written, or NULL. */
const NamedAttr *op_attr_find(const Op *op, AttrKey key);
/* Its value, else its ops.def default, else NULL. */
const AttrValue *op_attr_get(const Op *op, AttrKey key);
/* Where it is written, else the op's location. */
Loc op_attr_loc(const Op *op, AttrKey key);
/* Typed reads: the value, else the ops.def default, else 0, false or NULL
 * (a value of another kind, in IR not verified yet, reads as absent). */
int64_t op_attr_int(const Op *op, AttrKey key);
bool op_attr_bool(const Op *op, AttrKey key);
const char *op_attr_string(const Op *op, AttrKey key);
const char *op_attr_symbol(const Op *op, AttrKey key);
/* A propagation_barrier's allowed_direction as a mask (BARRIER_FORWARD |
 * BARRIER_BACKWARD; "none" is 0), or -1 if it is none of the four words. */
enum { BARRIER_FORWARD = 1, BARRIER_BACKWARD = 2 };
int op_barrier_directions(const Op *op);
/* The module's mesh a symbol attribute names, or NULL. */
const Mesh *op_attr_mesh(const Module *m, const Op *op, AttrKey key);
Sharding *op_attr_sharding(const Op *op, AttrKey key);
/* Entry i of a list of shardings (in_specs, out_specs), or NULL. */
Sharding *op_attr_sharding_at(const Op *op, AttrKey key, int i);
/* An int list copied into out (up to max entries): its length, or -1. */
int op_attr_ints(const Op *op, AttrKey key, int64_t *out, int max);
/* Sets (or replaces) the attribute; the attrs array is copied first, as
 * ops may share it. */
void op_attr_set(Arena *arena, Op *op, AttrKey key, AttrValue *value);
/* Appends n attributes the op does not have yet, in one array: op_attr_set
 * copies the op's array for every attribute it adds. */
void op_attrs_append(Arena *arena, Op *op, int n, const AttrKey *keys, AttrValue *const *values);

AttrValue *attr_new(Arena *arena, AttrKind kind, Loc loc);
bool attr_is_int_array(const AttrValue *v);
/* Copies an int array value into out (up to max entries); count or -1. */
int attr_int_array(const AttrValue *v, int64_t *out, int max);

/* ---- walking the IR (walk.c) ---------------------------------------------- */

/* Which regions a walk enters. */
typedef enum {
    IR_WALK_ALL,        /* every op's regions, nested (the default) */
    IR_WALK_GLOBAL,     /* all but shard_map bodies: per-device code, which the
                           passes on the global program leave alone */
    IR_WALK_BLOCK,      /* the walked block's own ops only */
    IR_WALK_PROPAGATED, /* all but the bodies of shard_maps manual over every
                           axis (op_is_partial_manual) and of reduce (scalar
                           code): what propagation sees */
} IrWalkScope;

/* A walk's callbacks, each optional; one returning false stops the walk.
 * Each block is walked as: enter, value on each argument, then per op in
 * order: pre, value on each result, the op's regions (entered as the
 * scope says, each walked the same way), post; then leave.
 *
 * The callbacks may remove the op they are given and insert ops before or
 * after it: the walker takes the next op before calling pre, so inserted
 * ops are not visited, and an op that pre removed is left at once (no
 * values, regions or post). They must not remove other ops of a block
 * being walked. */
typedef struct IrWalker {
    bool (*enter)(Block *b, void *user);
    bool (*value)(Value *v, void *user);
    bool (*pre)(Op *op, void *user);
    bool (*post)(Op *op, void *user);
    bool (*leave)(Block *b, void *user);
    void *user;
    IrWalkScope scope;
} IrWalker;

/* False if a callback stopped the walk. */
bool ir_walk(Block *b, const IrWalker *w);
/* Every function's body, in order. */
bool ir_walk_module(const Module *m, const IrWalker *w);
/* Add to count[v->id] each use of v in b and its regions: as an operand
 * (of any op but sharding_group when skip_groups) or a returned value. */
void ir_count_uses(Block *b, int *count, bool skip_groups);
/* A new one-operand identity op of `kind` right after v (first in its block
 * for an argument), its result named "<v>.<suffix>", that every other use
 * of v in v's function now uses. */
Op *ir_insert_identity(Module *m, Value *v, OpKind kind, const char *suffix);
/* Every use of `from` in body and its regions (as an operand of any op but
 * to's definer, or a returned value) becomes a use of `to`. */
void ir_replace_uses(Block *body, Value *from, Value *to);

/* Sharding helpers (sharding.c). */
Sharding *sharding_new_open(Arena *a, const Mesh *mesh, int rank);
Sharding *sharding_clone(Arena *a, const Sharding *s);
/* The module's one copy of a sharding equal to s (sharding_equal, and the
 * same loc), shared by every value given an equal one, so it must never be
 * changed in place: clone it first. Most values of a model share a handful
 * (bench/README.md). */
Sharding *module_intern_sharding(Module *m, const Sharding *s);
/* module_intern_sharding of s (NULL: no axes on any of rank dims of mesh)
 * with every dim closed and no priority. */
Sharding *module_close_sharding(Module *m, const Sharding *s, const Mesh *mesh, int rank);
struct ShardingIndex;
void sharding_index_free(struct ShardingIndex *ix); /* module_free's */
bool sharding_equal(const Sharding *a, const Sharding *b);
/* A hash of what sharding_equal compares (equal shardings, equal hashes). */
uint64_t sharding_hash(const Sharding *s);
/* The same mesh and the same axes on every dim, open or closed, whatever
 * the priorities and replicated axes. */
bool sharding_same_dim_axes(const Sharding *a, const Sharding *b);
/* Product of the axis sizes on dim d. */
int64_t sharding_dim_shards(const Sharding *s, int d);
/* The axis algebra below is inline: propagation and partitioning call it
 * for every factor of every tensor of every op (bench/README.md). */
static inline bool axis_ref_equal(AxisRef a, AxisRef b)
{
    return a.axis == b.axis && a.pre_size == b.pre_size && a.size == b.size;
}
/* Partial-manual shard_maps (docs/language.md "Manual regions"): the mask
 * of the manual axes over the mesh of the specs (returned in *mesh), and
 * whether some axis is free; a spec split into its closed manual part and
 * its free part (the body's view), and joined back. */
uint64_t op_manual_axes_mask(const Op *op, const Mesh **mesh);
bool op_is_partial_manual(const Op *op);
/* A reduce with a body, a scatter with an update region or a sort with a
 * comparator: its regions compute on scalars, so propagation and
 * partitioning leave them alone. */
bool op_has_scalar_body(const Op *op);
void sharding_split_manual(Arena *a, const Sharding *s, uint64_t manual, Sharding **manual_part,
                           Sharding **free_part);
Sharding *sharding_join_manual(Arena *a, const Sharding *manual_part, const Sharding *free_part);
bool sharding_is_closed_empty(const Sharding *s);
const char *sharding_unreduced_op_name(UnreducedOp op);
bool sharding_has_unreduced_axis(const Sharding *s, int axis);
bool axis_ref_is_full(const Mesh *mesh, AxisRef r);
/* Whether two axis refs of the same mesh share any devices' coordinates. */
static inline bool axis_ref_overlaps(AxisRef a, AxisRef b)
{
    /* Sub-axes of one axis are intervals [pre, pre*size) in the axis's
     * multiplicative "coordinate" space; they overlap iff the intervals do. */
    return a.axis == b.axis && a.pre_size < b.pre_size * b.size && b.pre_size < a.pre_size * a.size;
}

enum { AXIS_LIST_MAX = 16 };

/* A short ordered list of (sub-)axes, major to minor. */
typedef struct AxisList {
    int count;
    AxisRef axes[AXIS_LIST_MAX];
} AxisList;

/* Sub-axis algebra (sharding.c), shared by propagation and partitioning. */
static inline int64_t axis_ref_end(AxisRef r) { return r.pre_size * r.size; }
/* a starts b (or equals it) */
static inline bool axis_ref_prefix_of(AxisRef a, AxisRef b)
{
    return a.axis == b.axis && a.pre_size == b.pre_size && a.size <= b.size && b.size % a.size == 0;
}
static inline bool axis_ref_contains(AxisRef a, AxisRef b)
{
    return a.axis == b.axis && a.pre_size <= b.pre_size && axis_ref_end(b) <= axis_ref_end(a);
}
/* The largest prefix of a that does not overlap other; false if none. */
bool axis_ref_prefix_without_overlap(AxisRef a, AxisRef other, AxisRef *out);
/* Sets of (sub-)axes: a without b, a and b, acc with b added (sub-axes
 * split where they overlap in part), in a's order. */
void axis_list_minus(AxisList *out, const AxisList *a, const AxisList *b);
void axis_list_intersect(AxisList *out, const AxisList *a, const AxisList *b);
void axis_list_union(AxisList *acc, const AxisList *b);
/* Append r, merging with the last axis when they are consecutive sub-axes
 * of one axis ("x":(1)2 then "x":(2)2 is "x":(1)4, or "x" if that is all). */
void axis_list_add_or_merge(AxisList *list, AxisRef r, const Mesh *mesh);
static inline int64_t axis_list_size(const AxisList *list)
{
    int64_t n = 1;
    for (int i = 0; i < list->count; i++)
        n *= list->axes[i].size;
    return n;
}
static inline bool axis_list_equal(const AxisList *a, const AxisList *b)
{
    if (a->count != b->count)
        return false;
    for (int i = 0; i < a->count; i++)
        if (!axis_ref_equal(a->axes[i], b->axes[i]))
            return false;
    return true;
}
/* Lists are read up to their count: copying (or clearing) the whole
 * 16-entry array was most of what hot loops did with them. */
static inline void axis_list_copy(AxisList *dst, const AxisList *src)
{
    dst->count = src->count;
    for (int i = 0; i < src->count; i++)
        dst->axes[i] = src->axes[i];
}
/* Whether a is a strict prefix of b (Shardy's isStrictPrefix). */
bool axis_list_strict_prefix(const AxisList *a, const AxisList *b);
/* Cut a to its longest prefix that overlaps nothing in other (a sub-axis
 * may keep its non-overlapping major part); true if anything was cut
 * (Shardy's truncateAxesByRemovingOverlaps). */
bool axis_list_truncate_without_overlap(AxisList *a, const AxisList *other);
/* Greatest common divisor of two positive sizes. */
int64_t ir_gcd64(int64_t a, int64_t b);

#endif
