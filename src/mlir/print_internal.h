/* The MLIR printer's shared state (print*.c): how values are named, how
 * one shardc op becomes one or more MLIR ops, and the pieces of MLIR
 * syntax every op form uses. Internal to src/mlir/.
 *
 * Naming follows MLIR's AsmPrinter (SSANameState): a region is numbered
 * whole before the regions nested in it, which start from the counters
 * where their parent's numbering ended (so sibling regions reuse numbers);
 * names an op asks for (stablehlo.constant's %cst and %c) get _N suffixes
 * from one counter on conflict. print.c names a block's ops as if in a
 * first pass (mlir_name_block) before printing them: a run of ops at a
 * time just ahead of printing them, and the rest of the block before a
 * region nested in it opens, which gives the same names without a
 * second walk of the ops. */
#ifndef SHARDC_MLIR_PRINT_INTERNAL_H
#define SHARDC_MLIR_PRINT_INTERNAL_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "mlir_extra.h"
#include "shardc/ir.h"
#include "shardc/symtab.h"
#include "shardc/writer.h"

/* A set of names (print_names.c): the names in the order added, with
 * their hashes, chained by bucket; a bucket is the head of its chain and
 * a Bloom filter of the names in it (3 bits each of 64), which rules out
 * all but about 1 in 200 of the names that are not there without reading
 * the chain. A look-up reads one bucket (4 to 16 bytes a name), where an
 * open-addressing table of 16-byte slots, at most half full and reserved
 * by counting the block's ops first, made naming half of printing a
 * 1e5-op function. */
typedef struct MlirNameEntry {
    const char *name;
    uint64_t hash;
    int next;               /* the entry added before it to its bucket, or -1 */
} MlirNameEntry;

typedef struct MlirNameBucket {
    uint64_t filter;        /* the filter bits of its names */
    int head;               /* its last entry, or -1 */
} MlirNameBucket;

typedef struct MlirNameSet {
    MlirNameEntry *entries; /* the names, in the order added */
    int count, room;        /* room: entries allocated */
    MlirNameBucket *buckets;
    int num_buckets;        /* a power of two, or 0 */
} MlirNameSet;

/* The names visible in one region, and MLIR's three counters. */
typedef struct MlirScope {
    const struct MlirScope *parent; /* enclosing names it must not reuse, or NULL */
    MlirNameSet used;
    int next_value, next_arg, next_conflict;
    const struct Op *unnamed;       /* the first op of its block not named yet, or NULL */
} MlirScope;

/* A value the printer makes up to spell a shardc op in StableHLO (an
 * implicit broadcast, a reduce's init constant, the dot_general before an
 * einsum's transpose). An op's made-up values are defined, in plan order,
 * before the MLIR op that defines its own results. */
typedef struct MlirAux {
    const char *role;       /* for the name in .shir naming: %<result>.<role> */
    const char *asm_name;   /* "cst" / "c" for constants (MLIR's names), or NULL */
} MlirAux;

enum { MLIR_MAX_AUX = 8 };

/* A value as an MLIR op line uses it: a shardc value or a made-up one. */
typedef struct MlirVal {
    const char *name;       /* without the % */
    int index;              /* %name#index of a multi-result op, or -1 */
    TensorType type;
} MlirVal;

/* A piece of text (a sharding's, a type's) as the printer wrote it the
 * first time, copied after for every equal key (print_attrs.c). */
typedef struct MlirKeptText {
    const void *key;            /* NULL: a free slot */
    uint64_t hash;
    const char *text;
    size_t len;
} MlirKeptText;

/* The kept text of an object by its address (a module's values share
 * their types' dims arrays): one probe, no hashing of the object. `tag`
 * tells apart objects at one address. (Shardings are interned per source
 * location, so equal ones seldom share an address.) */
typedef struct MlirTextMemo {
    const void *address;        /* NULL: empty */
    int tag;
    const char *text;
    size_t len;
} MlirTextMemo;

enum { MLIR_TEXT_MEMO = 256 }; /* a power of two */

/* Open addressing by hash, at most half full, behind a direct-mapped memo
 * by address. */
typedef struct MlirTextCache {
    MlirKeptText *slots;
    int count, cap;
    bool (*equal)(const void *a, const void *b); /* NULL: the same address */
    MlirTextMemo memo[MLIR_TEXT_MEMO];
} MlirTextCache;

typedef struct MlirPrinter {
    Writer *out;
    const Module *m;
    bool renumber;          /* read from MLIR: %0, %arg0, %cst as MLIR prints them */
    Arena arena;            /* names, made-up types */
    const char **names;     /* by Value.id: the value's name, or NULL before it is named */
    const char ***aux;      /* by Op.id: the names of its made-up values (plan order) */
    const void **plans;     /* by Op.id: what a form's plan worked out for its emit (an einsum's), or NULL */
    int64_t next_channel;   /* stablehlo channel handles, counted from 1 per module */
    bool *channel_repeats;  /* by Op.id: its kept channel handle is an earlier op's (a copy's); NULL: none kept */
    MlirScope *scope;       /* of the block being printed, numbered whole */
    const struct MlirOpForm *forms[OP_COUNT]; /* by OpKind: mlir_op_form's answer, found once */
    const char *canonical[OP_COUNT];          /* by OpKind: mlir_op_canonical_name's, found once */
    MlirTextCache sharding_texts;             /* by Sharding */
    MlirTextCache sharding_codes;             /* common ones by mesh and code (print_attrs.c) */
    MlirTextCache value_dicts, op_dicts;      /* dicts of one such sharding, the same (mlir_attrs_print) */
    MlirTextCache type_texts;                 /* by TensorType */
    MlirNameSet einsum_specs;                 /* spec texts planned (print_einsum.c) */
    const void **einsum_plans;                /* by entry of einsum_specs: its EinsumPlan */
    int einsum_plans_room;
} MlirPrinter;

/* How one op kind prints (print_ops.c): the made-up values it needs (their
 * count; may be NULL for none; called once an op, while naming, and may
 * keep what it worked out in MlirPrinter.plans) and the lines it prints. */
typedef struct MlirOpForm {
    int (*plan)(MlirPrinter *p, const Op *op, MlirAux *aux);
    void (*emit)(MlirPrinter *p, const Op *op, int indent);
} MlirOpForm;

const MlirOpForm *mlir_op_form(OpKind kind);
/* mlir_op_form of op's kind, from the printer's table (print.c). */
const MlirOpForm *mlir_form_of(const MlirPrinter *p, const Op *op);
/* MLIR's generic form `"shardc.<op>"(...)`, which any op can fall back to. */
void mlir_emit_generic(MlirPrinter *p, const Op *op, int indent);
/* mlir_ops.def's canonical MLIR name of a kind (its first line), or NULL
 * when it has none (the generic "shardc.<op>" form). */
const char *mlir_op_canonical_name(OpKind kind);

/* ---- naming (print.c, print_names.c) ---- */

uint64_t mlir_name_hash(const char *name);
/* Whether set has name, whose mlir_name_hash is hash. */
bool mlir_name_set_has(const MlirNameSet *set, const char *name, uint64_t hash);
/* The entry of name (its place in the order added), or -1. */
int mlir_name_set_find(const MlirNameSet *set, const char *name, uint64_t hash);
/* Room in an empty set for `names` names (an upper bound known without
 * a walk), so that it need not grow. */
void mlir_name_set_expect(MlirPrinter *p, MlirNameSet *set, int64_t names);
/* Adds name (which must outlive the printer) to set; false if set had it. */
bool mlir_name_set_add(MlirPrinter *p, MlirNameSet *set, const char *name, uint64_t hash);

/* A scope inside `parent` (or NULL) counting on from `counters` (or
 * NULL); the ops of their blocks not named yet are named first. */
void mlir_scope_init(MlirScope *s, MlirPrinter *p, MlirScope *parent, MlirScope *counters);
/* A name not yet taken in s or the scopes it sees (MLIR's uniqueValueName):
 * base itself when free, kept as it is (it must outlive the printer: a
 * literal, a name of the module, the printer's arena), else a copy. */
const char *mlir_scope_unique(MlirPrinter *p, MlirScope *s, const char *base);
/* Names every value the block's ops define, as a first pass would (not
 * nested regions): a run of ops as mlir_print_block_ops reaches them, or
 * the rest when a scope inside s opens. The block's arguments are named
 * by the caller. */
void mlir_name_block(MlirScope *s, const Block *b);
/* Prints the ops of a block given to mlir_name_block, then its terminator
 * `<ret> %a, %b : types` (ret "return" or "sdy.return"). */
void mlir_print_block_ops(MlirPrinter *p, MlirScope *s, const Block *b, int indent, const char *ret);
/* Opens the scope of a region nested in the block being printed (its
 * counters start where the parent block's numbering ended) and names the
 * block's arguments and ops: print its header, then mlir_print_block_ops.
 * In .shir naming an isolated region (sdy.manual_computation) may reuse
 * names of the enclosing ones. */
void mlir_region_open(MlirPrinter *p, MlirScope *s, const Block *b, bool isolated);
/* The same for a region of stablehlo.while, whose arguments (shared by
 * its cond and body regions) are named after `names`' arguments: %iterArg,
 * %iterArg_0, ... as MLIR names them, or in .shir naming as written. */
void mlir_region_open_iter(MlirPrinter *p, MlirScope *s, const Block *b, const Block *names);
/* A made-up region's argument (%argN) and value (%N) in scope s; in .shir
 * naming, `shir_name` made unique. */
const char *mlir_scope_arg(MlirPrinter *p, MlirScope *s, const char *shir_name);
const char *mlir_scope_value(MlirPrinter *p, MlirScope *s, const char *shir_name);
/* The MLIR name of the op: Op.mlir's, else the canonical one. */
const char *mlir_op_name(const Op *op);
/* The same from the printer's table (mlir_op_canonical_name searches
 * mlir_ops.def), and the canonical name alone. */
const char *mlir_printed_op_name(const MlirPrinter *p, const Op *op);
const char *mlir_printed_canonical_name(const MlirPrinter *p, OpKind kind);

MlirVal mlir_val(const MlirPrinter *p, const Value *v);
MlirVal mlir_aux_val(const MlirPrinter *p, const Op *op, int i, TensorType type);
/* The name of a value defined in block `at` (named so far), or NULL: a
 * reduce's init kept from MLIR, while it is still there. */
const char *mlir_visible_name(const MlirPrinter *p, const Value *v, const Block *at);
void mlir_print_val(MlirPrinter *p, MlirVal v);
void mlir_print_vals(MlirPrinter *p, const MlirVal *v, int n);
/* `%0 = `, `%0:2 = `, `%a, %b = ` (nothing for no results), after the indent. */
void mlir_print_defs(MlirPrinter *p, const Op *op, int indent);
/* ` (%arg1: t1, ...) {` and a newline: a region's arguments, as the sdy
 * ops with a body print them (manual and named computations). */
void mlir_print_block_args(MlirPrinter *p, const Block *body);
/* `%a: t, %b: t` of a block's arguments. */
void mlir_print_arg_list(MlirPrinter *p, const Block *body);
void mlir_print_aux_def(MlirPrinter *p, const Op *op, int i, int indent);

/* ---- attributes and types (print_attrs.c) ---- */

void mlir_print_string(Writer *out, const char *s);
/* The caches of printed text of a printer made all zero (empty), told
 * how to compare their keys (print.c calls it per module; zeroing them
 * again was a pass over their memos). */
void mlir_text_caches_init(MlirPrinter *p);
/* `tensor<2x3xf32>`, each distinct type printed once and copied after. */
void mlir_print_type(MlirPrinter *p, const TensorType *t);
/* `(a, b) -> c` as MLIR's printFunctionalType: one result without parens. */
void mlir_print_fn_type(MlirPrinter *p, const MlirVal *in, int n_in, const MlirVal *res, int n_res);
/* ` : type` if every operand's type is the result's, else ` : (types) -> type`
 * (StableHLO's SameOperandsAndResultType). */
void mlir_print_same_type(MlirPrinter *p, const MlirVal *in, int n_in, const MlirVal *res);
/* A float as MLIR prints it (`1.000000e+00`, shortest round trip, or hex). */
void mlir_print_float(Writer *out, double v, DType dt);
/* `dense<...> : tensor<...>` of a shardc tensor value (a scalar splat or
 * nested lists) of type t. */
void mlir_print_dense(Writer *out, const AttrValue *v, const TensorType *t);
/* A scalar constant `dense<x> : tensor<dt>` of a shardc scalar value. */
void mlir_print_dense_scalar(Writer *out, const AttrValue *v, DType dt);
/* `dense<[[0, 1], ...]> : tensor<RxCxi64>` of a row-major int64 matrix. */
void mlir_print_dense_i64(Writer *out, const int64_t *v, int64_t rows, int64_t cols);
/* A collective's channel handle as read (its `handle = N`), or 0. */
int64_t mlir_kept_channel_handle(const Op *op);
void mlir_print_ints(Writer *out, const int64_t *v, int n); /* [1, 2] */
/* `<@mesh, [{"a", ?}, {}], replicated={"b"}>` */
void mlir_print_tensor_sharding(MlirPrinter *p, const Sharding *s);
/* `"a", "b":(1)2`: axis refs as sdy writes them. */
void mlir_print_axes(Writer *out, const Mesh *mesh, const AxisRef *axes, int n);
/* An open sharding of rank `rank` (a result propagation left unknown). */
void mlir_print_open_sharding(MlirPrinter *p, const Mesh *mesh, int rank);
void mlir_print_mesh_literal(Writer *out, const Mesh *mesh); /* <["a"=2], device_ids=[...]> */

/* An attribute dictionary ` {a = ..., b}` (nothing when empty), its names
 * sorted as MLIR's DictionaryAttr keeps them. Items are collected, then
 * printed once. */
typedef enum {
    MLIR_ITEM_KEPT,         /* const MlirKeptAttr *: as read from MLIR */
    MLIR_ITEM_UNIT,         /* a unit attribute (a printer's marker) */
    MLIR_ITEM_SHARDING,     /* const Sharding *: #sdy.sharding<...> */
    MLIR_ITEM_SHARDINGS,    /* const Op *: #sdy.sharding_per_value of its results */
    MLIR_ITEM_RULE,         /* const OpShardingRule *: #sdy.op_sharding_rule<...> */
    MLIR_ITEM_LOGICAL,      /* const LogicalAxes *: ["batch", ""] */
    MLIR_ITEM_OP_ATTR,      /* const NamedAttr * of the op being printed */
    MLIR_ITEM_STRING,       /* const char *: "text" */
    MLIR_ITEM_SYMBOL,       /* const char *: @name */
} MlirItemKind;

typedef struct MlirAttrItem {
    const char *name;
    MlirItemKind kind;
    const void *ptr;
} MlirAttrItem;

enum { MLIR_ATTR_INLINE = 16 };

typedef struct MlirAttrList {
    MlirPrinter *p;
    const Op *op;           /* whose attributes MLIR_ITEM_OP_ATTR items are */
    int count, cap;
    MlirAttrItem *items;
    MlirAttrItem inline_items[MLIR_ATTR_INLINE];
} MlirAttrList;

/* The name of the sdy.sharding items (mlir_attrs_print knows it by its address). */
extern const char mlir_sdy_sharding[];

void mlir_attrs_init(MlirAttrList *l, MlirPrinter *p, const Op *op);
/* Doubles the room of l (mlir_attrs_add's slow path). */
void mlir_attrs_grow(MlirAttrList *l);
/* Inline: every op adds its sharding item. */
static inline void mlir_attrs_add(MlirAttrList *l, const char *name, MlirItemKind kind, const void *ptr)
{
    if (l->count == l->cap)
        mlir_attrs_grow(l);
    l->items[l->count++] = (MlirAttrItem){name, kind, ptr};
}
void mlir_attrs_add_kept(MlirAttrList *l, const MlirKeptAttrs *kept);
void mlir_attrs_print(MlirAttrList *l);
/* The same between `open` and `close` (` <{`, `}>`: an op's properties). */
void mlir_attrs_print_in(MlirAttrList *l, const char *open, const char *close);

/* An op's attribute dictionary: sdy.sharding of its results, its shardc
 * attributes that the form did not spell (`consumed`, ATTR_KEY_NONE-
 * terminated; as `shardc.<name>` unless `generic`, where an einsum's spec
 * and a call's callee are `spec` and `callee`), those kept from MLIR, a
 * custom op's sdy.sharding_rule and `extra`.
 * Annotations (bytes_per_device) are dropped. */
typedef struct MlirAttrOpts {
    const AttrKey *consumed;
    bool generic;           /* "shardc.<op>": its own attributes keep their names */
    bool no_callee;         /* generic, but the callee is the op's name (stablehlo.send) */
    bool no_shardings;      /* the form spells the result shardings itself */
    const struct OpShardingRule *rule; /* a custom op's, or NULL */
    const char *const *skip_kept;      /* kept attributes the form spelled (NULL-terminated) */
    const MlirKeptAttr *extra;         /* more attributes up to a NULL name, or NULL */
    const char *open;                  /* what opens the dict (` attributes {`), or NULL for ` {` */
} MlirAttrOpts;
void mlir_print_op_attrs(MlirPrinter *p, const Op *op, const MlirAttrOpts *opts);
/* ` {marker}` on a made-up op. */
void mlir_print_marker(MlirPrinter *p, const char *marker);
/* A shardc attribute's value in MLIR syntax (typed as ops.def says). */
void mlir_print_attr_value(MlirPrinter *p, const Op *op, const NamedAttr *a);

/* ---- gather and scatter (print_gather.c) ---- */

void mlir_emit_gather(MlirPrinter *p, const Op *op, int indent);
void mlir_emit_scatter(MlirPrinter *p, const Op *op, int indent);

/* ---- convolution, reduce_window, select_and_scatter (print_window.c) ---- */

void mlir_emit_convolution(MlirPrinter *p, const Op *op, int indent);
int mlir_plan_window(MlirPrinter *p, const Op *op, MlirAux *aux);
void mlir_emit_reduce_window(MlirPrinter *p, const Op *op, int indent);
void mlir_emit_select_and_scatter(MlirPrinter *p, const Op *op, int indent);

/* ---- control flow (print_control_flow.c) ---- */

extern const MlirOpForm mlir_form_while, mlir_form_case, mlir_form_barrier, mlir_form_named, mlir_form_reduce,
    mlir_form_sort;

/* ---- collectives (print_collectives.c) ---- */

int mlir_plan_collective(MlirPrinter *p, const Op *op, MlirAux *aux);
void mlir_emit_collective(MlirPrinter *p, const Op *op, int indent);
/* group_all_gather, ...: StableHLO's collective over its replica groups. */
void mlir_emit_group_collective(MlirPrinter *p, const Op *op, int indent);

/* ---- einsum and reductions (print_einsum.c) ---- */

int mlir_plan_einsum(MlirPrinter *p, const Op *op, MlirAux *aux);
void mlir_emit_einsum(MlirPrinter *p, const Op *op, int indent);
int mlir_plan_reduce(MlirPrinter *p, const Op *op, MlirAux *aux);
void mlir_emit_reduce(MlirPrinter *p, const Op *op, int indent);
/* The init of a reduction read from MLIR (op->mlir->init) while visible,
 * else a made-up constant of the identity of `kind` (a reduce op), printed
 * here; mlir_plan_reduce planned it. */
MlirVal mlir_print_reduce_init(MlirPrinter *p, const Op *op, OpKind kind, int indent);
/* `stablehlo.reduce(%x init: %i) applies stablehlo.add across dimensions =
 * [..]` up to its attribute dict; the caller prints the attrs and type. */
void mlir_emit_reduce_head(MlirPrinter *p, MlirVal x, MlirVal init, const char *body_op, const int64_t *dims,
                           int n);
/* The reduction's stablehlo op for a dtype, and its identity element as
 * `dense<...> : tensor<dt>`. */
const char *mlir_reduce_body(OpKind kind, DType dt);
void mlir_print_reduce_identity(Writer *out, OpKind kind, DType dt);

#endif
