/* State shared by the importer's files (import*.c): one ImportCtx per
 * module, one OpImport per op being mapped. Internal to src/mlir/.
 *
 * import.c            the module, functions, blocks, value names, types
 * import_op.c         one op: dispatch by MLIR name, operands, results,
 *                     result shardings, attributes kept or refused
 * import_stablehlo.c  the StableHLO ops with attributes of their own
 * import_control_flow.c  stablehlo.while, case, if (regions that see
 *                     the values around them)
 * import_manual.c     sdy.manual_computation, the collectives inside it,
 *                     custom_call with its sharding rule
 * import_sharding.c   sdy meshes and shardings
 * import_rule.c       an op's sdy.sharding_rule checked as Shardy's verifier does
 * import_gspmd.c      GSPMD `mhlo.sharding` strings to sdy shardings
 * import_dense.c      dense<...> literals */
#ifndef SHARDC_MLIR_IMPORT_INTERNAL_H
#define SHARDC_MLIR_IMPORT_INTERNAL_H
#include "mlir/mlir_ast.h"
#include "mlir/mlir_extra.h"
#include "mlir/mlir_import.h"
#include "mlir/mlir_name_cache.h"
#include "shardc/interner.h"
#include "shardc/symtab.h"

/* What an MLIR value name stands for. The printer writes two shardc
 * conventions that fold away here: a broadcast_in_dim marked
 * `shardc.implicit_broadcast` is .shir's NumPy-style broadcast of a binary
 * operand (its one user takes the unbroadcast value), and a constant
 * marked `shardc.implicit_constant` is the init of a reduce or the value of
 * a pad that .shir leaves implicit (no IR value). */
typedef enum { IMP_PLAIN, IMP_BROADCAST, IMP_CONSTANT } ImpFold;

/* A rank-0 constant's literal and type, copied (the op's AST is gone
 * when a streamed import reads them: mlir_imp_scalar_operand). */
typedef struct ImpScalar {
    const MlirAttr *literal;
    const MlirType *type;
} ImpScalar;

/* An MLIR value name's definition: small (80 bytes for one result), as
 * there is one per value and they live to the function's end. */
typedef struct ImpValue {
    int count;
    ImpFold fold;
    int uses;
    int line, col;          /* of its definition (mlir_imp_value_loc) */
    /* defined by a stablehlo/sdy.constant of a rank-0 tensor type */
    const ImpScalar *scalar;
    /* where its MLIR name is bound: the name's entry, the scope, the
     * definition it hides until the scope ends, the scope's one before */
    struct ImpName *name;
    struct ImpScope *scope;
    struct ImpValue *hidden, *scope_next;
    Value *values[];        /* count entries; for IMP_BROADCAST the operand */
} ImpValue;

/* A name of the function, MLIR's and the IR's in one table (a value's
 * name is mostly both): what the MLIR name means where the import is, and
 * whether an IR value already has it. */
typedef struct ImpName {
    ImpValue *value;        /* the innermost definition in scope, or NULL */
    bool taken;             /* an IR value of the function is named so */
} ImpName;

/* A region's scope; a region isolated from above (a function body,
 * sdy.manual_computation's) does not see its parent's names. */
typedef struct ImpScope {
    ImpValue *defined;      /* the values it defines, last first */
    struct ImpScope *parent;
    bool isolated;
    Loc owner;              /* of the op whose region it is, when isolated */
} ImpScope;

/* The innermost sdy.manual_computation: its mesh and manual axes, which
 * give the stablehlo collectives inside it their axes. */
typedef struct ImpManual {
    const Mesh *mesh;
    int num_axes;
    const AxisRef *axes;
    struct ImpManual *outer;
    Loc loc;                /* of the op, for the verifier's note */
} ImpManual;

/* Where a sharding sits, for Shardy's verifier messages (import_verify.c):
 * the op holding it and which of its values. Errors go to the op's
 * location as "'<op>' op <value> <index> - <message>": value NULL for the
 * op's own sharding, index left out when count is 1 (a function's
 * arguments and results always carry it: count 0). */
typedef struct ImpSite {
    Loc loc;
    const char *op;
    const char *value;      /* "arg", "result", "operand", or NULL */
    int index, count;
    bool no_value;          /* the sharding of an op of no results */
} ImpSite;

typedef struct ImportCtx {
    Module *m;
    Arena *arena;           /* the module's: everything the IR keeps */
    Arena tables;           /* the importer's own tables (names, values, scopes,
                               meshes, functions, memos), freed at the end */
    Arena scratch;          /* what importing one op of a function body needs
                               (its nested ops' with it): reset after it */
    int op_depth;           /* of the op being imported: 1 for a body's */
    bool read_dynamic;      /* a dynamic or unranked type was read (import_op.c checks ops then) */
    DiagEngine *diag;
    SymTab ops;             /* MLIR op name -> its handler (import_op.c) */
    Interner shapes;        /* types' dims, one copy per shape, as .shir's reader */
    MlirNameCache recent_ops;   /* in front of ops */
    MlirList meshes, funcs;
    Func *func;             /* being imported */
    Block *block;           /* ops are appended to */
    ImpScope *scope;
    SymTab names;           /* the current function's names -> ImpName*: on the
                               heap, a grown table's old array freed (as much
                               again, at the peak of reading MLIR) */
    ImpManual *manual;
    /* GSPMD: the mesh `mhlo.sharding` strings map onto (import_gspmd.c). */
    const Mesh *gspmd_mesh;
    bool gspmd_failed;
    /* Read op by op (read.c): the GSPMD mesh is not settled by the meshes
     * (gspmd_deferred) and a tiled string needs the whole module's scan
     * (needs_whole_module); the function body has had its func.return. */
    bool gspmd_deferred, needs_whole_module;
    bool returned;
    bool allow_unregistered;    /* MlirReadOptions' */
    int errors_before;      /* diag's count when the import began */
    /* Per MlirSharding.memo_id: the sharding imported for that text on a
     * value of this shape outside manual computations, copied for the
     * next one (checking and building it again cost more than reading
     * the text) */
    struct ImpShardingMemo {
        const Sharding *sharding;
        int rank;               /* of the value's type, -1 for none */
        bool token, no_value;
    } sharding_memo[MLIR_SHARDING_MEMO];
} ImportCtx;

/* One op being mapped. */
typedef struct OpImport {
    ImportCtx *ic;
    const MlirOp *src;
    OpKind kind;            /* the op kind its name maps onto (mlir_ops.def) */
    char *attr_state;       /* per src->attrs entry: IMP_UNREAD, IMP_READ, IMP_KEPT */
    int num_operands;
    Value **operands;
    ImpValue **operand_names;
    int num_results;
    TensorType *result_types;
    Op *op;                 /* made by mlir_imp_make_op */
    int attr_cap;
    const char *op_name;    /* MlirExtra.op_name */
    const Value *init;      /* MlirExtra.init */
    const char *region_mesh; /* MlirExtra.region_mesh */
    bool no_compare_type;   /* MlirExtra.no_compare_type */
    bool rule_not_custom;   /* MlirExtra.rule_not_custom */
    ImpFold fold;           /* not IMP_PLAIN: no op, the results fold away */
    ImpName *result_entry;  /* a single result's name, if result_names found it */
} OpImport;

enum { IMP_UNREAD, IMP_READ, IMP_KEPT };

typedef bool (*ImpHandler)(OpImport *oi);

/* ---- import.c ---- */
/* An import's life: begin, the meshes (mlir_imp_mesh), the functions, then
 * finish, which returns the module, or NULL if errors were reported since
 * begin; or abandon, which drops what was made. */
void mlir_imp_begin(ImportCtx *ic, const char *file, DiagEngine *diag);
Module *mlir_imp_finish(ImportCtx *ic, const MlirModule *ast);
void mlir_imp_abandon(ImportCtx *ic);
/* A function read op by op as it is parsed (read.c): its header, each op
 * of its body, its end. False: the function cannot be read so (an op after
 * its func.return, or none): the whole module's import reports why. */
void mlir_imp_stream_func(ImportCtx *ic, const MlirFunc *mf);
bool mlir_imp_stream_op(ImportCtx *ic, const MlirOp *op);
bool mlir_imp_stream_func_end(ImportCtx *ic);
Loc mlir_imp_loc(const ImportCtx *ic, Loc loc);
const char *mlir_imp_str(ImportCtx *ic, const char *s);
bool mlir_imp_type(ImportCtx *ic, const MlirType *t, TensorType *out);
/* The ops of a region's single block up to its terminator `terminator`,
 * appended to b; the terminator's operands become b's returns. */
bool mlir_imp_body(ImportCtx *ic, const MlirRegion *region, Block *b, const char *terminator, Loc owner);
/* b's arguments from a block's (region bodies; function arguments are
 * added by import.c with their attributes). */
bool mlir_imp_block_args(ImportCtx *ic, const MlirList *args, Block *b);
void mlir_imp_push_scope(ImportCtx *ic, bool isolated);
void mlir_imp_pop_scope(ImportCtx *ic);
/* Defines MLIR name `name` (a def of `count` results); entry, if not
 * NULL, is its entry in the names, as mlir_imp_value_name found it. */
ImpValue *mlir_imp_define(ImportCtx *ic, const char *name, ImpName *entry, int count, Loc loc);
Loc mlir_imp_value_loc(const ImportCtx *ic, const ImpValue *v);
/* An IR value name for result `index` of def `name` (count results);
 * *entry (if entry is not NULL) the entry of `name` in the names when it
 * is kept as the IR name, else NULL: defining it then needs no look-up. */
const char *mlir_imp_value_name(ImportCtx *ic, const char *name, int count, int index, ImpName **entry);
/* What a use by op `user` names, or NULL (reported); *index is its result. */
ImpValue *mlir_imp_use(ImportCtx *ic, const MlirUse *use, int *index, const MlirOp *user);
MlirKeptAttr mlir_imp_keep(ImportCtx *ic, const MlirNamedAttr *a);
MlirKeptAttrs mlir_imp_keep_list(ImportCtx *ic, const MlirKeptAttr *items, int count);

/* ---- import_op.c ---- */
void mlir_imp_op(ImportCtx *ic, const MlirOp *op);
void mlir_imp_register_ops(ImportCtx *ic);
/* The op's attribute `name` (marked as read), or NULL. */
const MlirAttr *mlir_imp_attr(OpImport *oi, const char *name);
/* The first of two spellings (generic name, custom-form name). */
const MlirAttr *mlir_imp_attr2(OpImport *oi, const char *name, const char *other);
/* Makes the op with the results' values; false if the counts are wrong. */
bool mlir_imp_make_op(OpImport *oi, OpKind kind);
void mlir_imp_set(OpImport *oi, AttrKey key, AttrValue *v);
void mlir_imp_unset(Op *op, AttrKey key);
/* A list of ints (array<i64: ...>, [1, 2], dense<[1, 2]>); false (reported). */
bool mlir_imp_ints(ImportCtx *ic, const MlirAttr *a, const char *what, int64_t *out, int max, int *count);
/* An array value of count (unset) items. */
AttrValue *mlir_imp_array(ImportCtx *ic, int count, Loc loc);
AttrValue *mlir_imp_int_list(ImportCtx *ic, const int64_t *v, int count, Loc loc);
AttrValue *mlir_imp_int_attr(ImportCtx *ic, int64_t v, Loc loc);
AttrValue *mlir_imp_string_attr(ImportCtx *ic, const char *s, Loc loc);
/* Sets an int-list attribute read from the op's attribute `name` (or its
 * custom-form spelling `other`); required ones are reported missing. */
bool mlir_imp_ints_attr(OpImport *oi, AttrKey key, const char *name, const char *other, bool required);
/* Sets an int attribute from the op's attribute `name` (or `other`). */
bool mlir_imp_int_attr_from(OpImport *oi, AttrKey key, const char *name, const char *other);
/* Any MLIR attribute as a shardc attribute value (shardc.* ops and
 * overrides); type: the result's, for dense literals. NULL (reported). */
AttrValue *mlir_imp_attr_value(ImportCtx *ic, const MlirAttr *a, const TensorType *type);
/* Marks the op's attribute `name`, if present, to be kept as written. */
void mlir_imp_keep_attr(OpImport *oi, const char *name);
/* The scalar value of a stablehlo.constant (or sdy.constant) of a rank-0
 * type defining operand i, or NULL. */
const AttrValue *mlir_imp_scalar_operand(OpImport *oi, int i);

/* ---- handlers (import_stablehlo.c, import_manual.c) ---- */
bool mlir_imp_dot_general(OpImport *oi);
bool mlir_imp_dot(OpImport *oi);
bool mlir_imp_reduce(OpImport *oi);
bool mlir_imp_broadcast(OpImport *oi);
bool mlir_imp_compare(OpImport *oi);
bool mlir_imp_rng_bit_generator(OpImport *oi); /* issue 18 (h33) */
bool mlir_imp_transpose(OpImport *oi);
bool mlir_imp_concatenate(OpImport *oi);
bool mlir_imp_slice(OpImport *oi);
bool mlir_imp_reverse(OpImport *oi);
bool mlir_imp_fft(OpImport *oi);
bool mlir_imp_dynamic_slice(OpImport *oi);
bool mlir_imp_gather(OpImport *oi);
bool mlir_imp_scatter(OpImport *oi);
bool mlir_imp_convolution(OpImport *oi);
bool mlir_imp_reduce_window(OpImport *oi);
bool mlir_imp_select_and_scatter(OpImport *oi);
bool mlir_imp_pad(OpImport *oi);
bool mlir_imp_constant(OpImport *oi);
bool mlir_imp_iota(OpImport *oi);
bool mlir_imp_call(OpImport *oi);
bool mlir_imp_sharding_op(OpImport *oi);
bool mlir_imp_barrier(OpImport *oi);
bool mlir_imp_data_flow_edge(OpImport *oi);
bool mlir_imp_reduce_region(OpImport *oi);
/* The source op's regions as the op's (reversed: in reverse order). */
bool mlir_imp_regions(OpImport *oi, bool reversed);
bool mlir_imp_sort(OpImport *oi);
bool mlir_imp_sharding_group(OpImport *oi);
bool mlir_imp_manual_computation(OpImport *oi);
bool mlir_imp_collective(OpImport *oi);
/* sdy.all_gather, all_slice, all_reduce, reduce_scatter, all_to_all,
 * collective_permute (import_sdy_collectives.c) */
bool mlir_imp_sdy_collective(OpImport *oi);
bool mlir_imp_custom_call(OpImport *oi);
bool mlir_imp_host_transfer(OpImport *oi);
/* stablehlo.cholesky, triangular_solve, batch_norm_* (import_linalg.c) */
bool mlir_imp_linalg(OpImport *oi);
/* stablehlo.custom_call @lapack_*_ffi -> lapack (import_linalg.c) */
bool mlir_imp_lapack(OpImport *oi, const char *target, Loc target_loc);
/* import_control_flow.c */
bool mlir_imp_while(OpImport *oi);
bool mlir_imp_case(OpImport *oi);
bool mlir_imp_if(OpImport *oi);
bool mlir_imp_named_computation(OpImport *oi);
/* The binary op a reducer region applies to its two arguments
 * (stablehlo.add/maximum/minimum/...), or NULL (reported at owner). */
const char *mlir_imp_reducer(ImportCtx *ic, const MlirOp *owner, int region);
/* Whether v is the identity of reduce op `kind` (reduce_sum/max/min) on dt. */
bool mlir_imp_is_identity(const AttrValue *v, OpKind kind, DType dt);

/* ---- import_sharding.c ---- */
void mlir_imp_mesh(ImportCtx *ic, const MlirMeshDecl *decl);
const Mesh *mlir_imp_find_mesh(ImportCtx *ic, const char *name);
Mesh *mlir_imp_add_mesh(ImportCtx *ic, const char *name, Loc loc);
Sharding *mlir_imp_sharding(ImportCtx *ic, const MlirSharding *s);
/* The axis refs a sharding names: its dims', replicated and unreduced. */
int mlir_imp_count_axis_refs(const MlirSharding *s);
/* The same, checked as Shardy checks a sharding at site on a value of type
 * (both may be NULL: mlir_imp_verify_sharding). */
Sharding *mlir_imp_sharding_at(ImportCtx *ic, const ImpSite *site, const MlirSharding *s, const TensorType *type);
AttrValue *mlir_imp_sharding_attr(ImportCtx *ic, const MlirSharding *s);
/* The shardings of #sdy.sharding_per_value<[...]> or [<...>, ...] in out;
 * false if a is neither. */
bool mlir_imp_sharding_list(ImportCtx *ic, const MlirAttr *a, MlirList *out);
/* `sdy.sharding` (per value) and `mhlo.sharding` on the op: its results'. */
bool mlir_imp_result_shardings(OpImport *oi);
/* A value's sharding from an argument's or result's attributes
 * (sdy.sharding or mhlo.sharding), NULL if none; *bad if one was wrong. */
Sharding *mlir_imp_value_sharding(ImportCtx *ic, const ImpSite *site, const MlirList *attrs, const TensorType *type,
                                  bool *bad);

/* ---- import_verify.c ---- */
/* Shardy's checks of sharding src on a value of the given type (NULL:
 * unknown, no shape checks) at site (NULL: reported at src); false
 * (reported) if one fails. */
bool mlir_imp_verify_sharding(ImportCtx *ic, const ImpSite *site, const MlirSharding *src, const TensorType *type);
/* sdy.manual_computation's values of one kind (op->value: "operand" or
 * "result"): each global value against the local one its sharding makes
 * (manual axes first in each dim, dims divisible by them, the local type
 * the body's). false (reported) on the first that differs. */
bool mlir_imp_verify_manual_values(ImportCtx *ic, const ImpSite *op, const MlirList *shardings, const Mesh *mesh,
                                   const char *const *manual, int num_manual, Value *const *global, int num_global,
                                   Value *const *local, int num_local);
/* An error in Shardy's form for site (at loc when site is NULL). */
void mlir_imp_site_error(ImportCtx *ic, const ImpSite *site, Loc loc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* ---- import_rule.c ---- */
/* The op's sdy.sharding_rule, if any, against its operands and results;
 * false (reported in Shardy's words). */
bool mlir_imp_verify_rule(OpImport *oi);
/* The verified sdy.sharding_rule a built-in op carries, as an
 * OpShardingRule in the module's arena (MlirExtra.written_rule), or NULL. */
const OpShardingRule *mlir_imp_written_rule(OpImport *oi);

/* ---- import_gspmd.c ---- */
/* Finds or makes the mesh the module's GSPMD shardings map onto. With no
 * ast (a module read op by op), from the meshes alone if they settle it,
 * else deferred: as long as no tiled string is met (mlir_imp_gspmd_scan),
 * the whole module's scan would have found nothing either. */
void mlir_imp_gspmd_prepare(ImportCtx *ic, const MlirModule *ast);
/* Deferred: sets ic->needs_whole_module if the function's argument and
 * result attributes (f) or the op with its regions (op) hold a tiled
 * mhlo.sharding, which needs the whole module's scan. */
void mlir_imp_gspmd_scan(ImportCtx *ic, const MlirFunc *f, const MlirOp *op);
/* A GSPMD sharding string as an sdy sharding of a value of rank `rank`;
 * NULL (reported, *bad set) or NULL with *bad false: a replicated
 * sharding with no mesh to put it on, kept as written. */
Sharding *mlir_imp_gspmd(ImportCtx *ic, const MlirAttr *a, int rank, bool *bad);

/* ---- import_dense.c ---- */
/* A dense<...> literal of type t as a constant's `value` (a scalar for a
 * splat, else nested lists); NULL (reported). */
AttrValue *mlir_imp_dense(ImportCtx *ic, const MlirAttr *a, const TensorType *t);
/* Part `part` (0 real, 1 imaginary) of a complex literal's elements, as
 * mlir_imp_dense reads a real one; *any_imag: some imaginary part is
 * nonzero. */
AttrValue *mlir_imp_dense_part(ImportCtx *ic, const MlirAttr *a, const TensorType *t, int part, bool *any_imag);
/* A dense<...> literal of a 2-d integer tensor (replica groups, pairs):
 * rows x cols ints row-major in *out (scratch arena). */
bool mlir_imp_dense_matrix(ImportCtx *ic, const MlirAttr *a, const char *what, int64_t **out, int *rows,
                           int *cols);

#endif
