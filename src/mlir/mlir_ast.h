/* MLIR text as parsed, before it maps onto the IR. The grammar
 * (grammar/mlir_parser.y) turns every op it reads, in its generic form or
 * in the custom form StableHLO, sdy and func print, into one generic
 * MlirOp: a name, operands, attributes, regions and types, exactly what
 * MLIR's generic form spells out. The importer (import.c) then maps those
 * onto shardc's IR, and the printer (print.c) writes the custom forms back.
 *
 * Everything is allocated from the parser's arena; nothing here outlives
 * the import. Read op by op (read.c), the ops of a function body come from
 * arenas reused two batches of ops later, and the tensor types, which the parser
 * shares between ops, from the module's. Internal to src/mlir/. */
#ifndef SHARDC_MLIR_AST_H
#define SHARDC_MLIR_AST_H
#include <stdbool.h>
#include <stdint.h>
#include "shardc/arena.h"
#include "shardc/diag.h"

typedef struct MlirAttr MlirAttr;
typedef struct MlirOp MlirOp;
typedef struct MlirRegion MlirRegion;

/* A growable array of pointers, arena-backed. */
typedef ArenaList MlirList;

/* ---- types ------------------------------------------------------------- */

typedef enum {
    MT_TENSOR,      /* tensor<8x?x16xf32>; dims -1 are dynamic */
    MT_SCALAR,      /* a bare element type: f32, i1, index */
    MT_TOKEN,       /* !stablehlo.token */
    MT_OTHER,       /* anything else, kept as text (tuple<...>, !foo.bar) */
} MlirTypeKind;

typedef struct MlirType {
    MlirTypeKind kind;
    const char *text;       /* as written, whitespace-normalized */
    const char *elem;       /* element type spelling (f32, complex<f32>), or NULL */
    int rank;
    int64_t *dims;          /* rank entries, -1 for `?` */
    const char *encoding;   /* tensor<8xf32, #enc>: the encoding's text, or NULL */
    Loc loc;
} MlirType;

/* ---- shardings (sdy) ------------------------------------------------------- */

typedef struct MlirAxisRef {
    const char *name;
    int64_t pre_size, size;     /* "x":(pre)size when sub */
    bool sub;                   /* false: the whole axis "x" */
    Loc loc;
} MlirAxisRef;

typedef struct MlirDimSharding {
    MlirList axes;              /* MlirAxisRef* */
    bool is_open;               /* `?` */
    int priority;               /* p<N>, or -1 */
    Loc loc;
} MlirDimSharding;

typedef struct MlirMeshAxis {
    const char *name;
    int64_t size;
    Loc loc;
} MlirMeshAxis;

/* A mesh literal `<["a"=2, "b"=4], device_ids=[...]>`. */
typedef struct MlirMesh {
    MlirList axes;              /* MlirMeshAxis* */
    bool has_device_ids;
    MlirList device_ids;        /* int64_t* */
    Loc loc;
} MlirMesh;

/* `<@mesh, [{"a", ?}, {}]p0, replicated={"b"}, unreduced={"c"}>`. */
enum { MLIR_SHARDING_MEMO = 16 };   /* sharding texts remembered (memo_id) */

typedef struct MlirSharding {
    const char *mesh_name;      /* @name without @, or NULL for an inline mesh */
    MlirMesh *inline_mesh;
    MlirList dims;              /* MlirDimSharding* */
    MlirList replicated;        /* MlirAxisRef* */
    MlirList unreduced;         /* MlirAxisRef* */
    const char *unreduced_kind; /* unreduced=max{...}: "max", or NULL (sum) */
    Loc loc;
    /* 1 + its index in the streamed reader's memo of sharding texts
     * (parse_sdy_fast.c): shardings of one memo_id are written alike, and
     * share their dims; 0 for any other */
    int memo_id;
} MlirSharding;

/* `#sdy.op_sharding_rule<([i, j], [j, k])->([i, k]) {i=8, j=4, k=16}
 *  reduction={j} need_replication={...} permutation={...}
 *  blocked_propagation={...}, custom>`. Each dim is a list of factor
 * names (a compound dim `ij` is two). */
typedef struct MlirRule {
    MlirList operands;          /* MlirList* of dims, each MlirList* of const char* */
    MlirList results;
    MlirList factor_names;      /* const char*, in {i=8, ...} order */
    MlirList factor_sizes;      /* int64_t* */
    MlirList reduction, need_replication, permutation, blocked;  /* const char* */
    bool is_custom;
    Loc loc;
} MlirRule;

/* A factor symbol's index as Shardy numbers them: i..z are 0..17, z_N
 * 17+N (saturated at INT64_MAX). */
int64_t mlir_rule_factor_index(const char *sym);

/* ---- attributes -------------------------------------------------------- */

typedef enum {
    MA_UNIT,        /* a name with no value */
    MA_BOOL,
    MA_INT,         /* 3, 3 : i64 (the type, if written, in type_text) */
    MA_FLOAT,
    MA_STRING,
    MA_SYMBOL,      /* @name */
    MA_KEYWORD,     /* a bare identifier: GT, BACKWARD, DEFAULT */
    MA_ARRAY,       /* [a, b] */
    MA_DENSE_ARRAY, /* array<i64: 1, 2>: ints in items as MA_INT */
    MA_DICT,        /* {a = 1, b} */
    MA_TYPE,        /* a type used as an attribute */
    MA_DENSE,       /* dense<...>: its text in raw */
    MA_SHARDING,    /* #sdy.sharding<...>, or a bare <@mesh, ...> */
    MA_SHARDINGS,   /* #sdy.sharding_per_value<[...]>, or [<...>, ...] */
    MA_RULE,        /* #sdy.op_sharding_rule<...> */
    MA_MESH,        /* #sdy.mesh<...> or a mesh literal <[...]> */
    MA_AXES,        /* {"a", "b":(1)2}: an axis-ref list */
    MA_DIM_AXES,    /* [{"a"}, {}]: axes per dim (sdy collectives) */
    MA_DIALECT,     /* #dialect<...>, #dialect.name<...>: its text in raw */
    MA_DIMS_PAIR,   /* [1] x [0] (dot_general's custom form): items[0], items[1] */
} MlirAttrKind;

typedef struct MlirNamedAttr {
    const char *name;
    MlirAttr *value;
    Loc loc;
} MlirNamedAttr;

struct MlirAttr {
    MlirAttrKind kind;
    Loc loc;
    const char *raw;            /* the source text, whitespace-normalized */
    const char *span;           /* or, until asked for (mlir_attr_raw), where */
    size_t span_len;            /* it is in the input and how long */
    const char *type_text;      /* `: i64` of a typed int/float, or NULL */
    int64_t i;
    double f;
    bool b;
    const char *s;              /* string (unescaped), symbol, keyword */
    MlirList items;             /* MlirAttr* (array, dense array, pair), MlirNamedAttr* (dict),
                                   MlirAxisRef* (axes), MlirList* of MlirAxisRef* (dim axes) */
    MlirType *type;
    MlirSharding *sharding;
    MlirList shardings;         /* MlirSharding* */
    MlirRule *rule;
    MlirMesh *mesh;
};

/* The attribute an op shardc does not map carries when its custom form had
 * items the parser did not read (convolution's dim_numbers): such an op
 * cannot be printed back, only reported. */
#define MLIR_UNREAD_ITEMS "mlir.unread_custom_form"

/* The attribute's source text, whitespace-normalized (in arena when it is
 * normalized now), or NULL when it has none. */
const char *mlir_attr_raw(Arena *arena, const MlirAttr *a);

/* The value of the named attribute in a dict list (MlirNamedAttr*), or NULL. */
MlirAttr *mlir_dict_get(const MlirList *dict, const char *name);

/* ---- ops, blocks, regions -------------------------------------------------- */

/* A use of an SSA value: %name or %name#index. */
typedef struct MlirUse {
    const char *name;           /* without the % */
    int index;                  /* #N, or -1 */
    Loc loc;
} MlirUse;

/* A definition: `%name` or `%name:N` (N results named %name#0...). */
typedef struct MlirResultDef {
    const char *name;
    int count;
    Loc loc;
} MlirResultDef;

typedef struct MlirBlockArg {
    const char *name;
    MlirType *type;
    MlirList attrs;             /* MlirNamedAttr* (func arguments) */
    Loc loc;
} MlirBlockArg;

typedef struct MlirBlock {
    const char *label;          /* ^bb0, or NULL */
    MlirList args;              /* MlirBlockArg* */
    MlirList ops;               /* MlirOp* */
    Loc loc;
} MlirBlock;

struct MlirRegion {
    MlirList blocks;            /* MlirBlock* */
    Loc loc;
};

struct MlirOp {
    const char *name;           /* full name: stablehlo.add, func.return, sdy.mesh */
    Loc loc;                    /* of the op name (of the first result, if any) */
    Loc name_loc;
    MlirList results;           /* MlirResultDef* */
    int num_results;            /* sum of the defs' counts */
    MlirList operands;          /* MlirUse* */
    MlirList attrs;             /* MlirNamedAttr*: inherent and discardable, as MLIR's
                                   generic form lists them (properties included) */
    MlirList regions;           /* MlirRegion* */
    MlirList operand_types;     /* MlirType* */
    MlirList result_types;      /* MlirType* */
    bool generic;               /* written in the generic "quoted" form */
    /* A custom form's signature that is a plain type list (`: tensor<8xf32>`):
     * which types are the operands' and which the results' is settled once
     * the result count is known (mlir_finish_op). */
    MlirList sig_types;
    bool sig_pending;
    const char *loc_text;       /* trailing loc(...), as written, or NULL */
};

/* A func.func. */
typedef struct MlirFunc {
    const char *name;
    const char *visibility;     /* "private", "public", or NULL */
    MlirList args;              /* MlirBlockArg*: the entry block's arguments */
    MlirList result_types;      /* MlirType* */
    MlirList result_attrs;      /* MlirList* of MlirNamedAttr*, one per result */
    MlirList attrs;             /* `attributes {...}` */
    MlirRegion *body;           /* NULL for a declaration */
    Loc loc;
    const char *loc_text;
} MlirFunc;

/* `sdy.mesh @name = <...>`. */
typedef struct MlirMeshDecl {
    const char *name;
    MlirMesh *mesh;
    MlirList attrs;             /* MlirNamedAttr*: {shardc.explicit_axes = [...]} */
    Loc loc;
} MlirMeshDecl;

/* A top-level item, in file order. */
typedef enum { MT_ITEM_MESH, MT_ITEM_FUNC, MT_ITEM_OP } MlirItemKind;

typedef struct MlirItem {
    MlirItemKind kind;
    MlirMeshDecl *mesh;
    MlirFunc *func;
    MlirOp *op;                 /* any other top-level op, kept as is */
} MlirItem;

typedef struct MlirModule {
    const char *name;           /* module @name, or NULL */
    MlirList attrs;             /* module attributes {...} */
    MlirList items;             /* MlirItem* */
    MlirList loc_aliases;       /* MlirNamedAttr*: #loc3 = loc(...), kept as text */
    Loc loc;
    bool explicit_module;       /* written `module ... { }` (else implicit) */
} MlirModule;

/* The value of a hex digit, or -1. */
int mlir_hex_digit(char c);

/* Parses MLIR text (NUL-terminated, len bytes) registered as `file` in diag.
 * Returns NULL after reporting at least one located error. With a stream
 * (read.c), function bodies are imported as they are parsed, not kept;
 * NULL then also means that the module must be read whole. */
struct MlirStream;
MlirModule *mlir_parse(Arena *arena, DiagEngine *diag, const char *file, const char *text, size_t len,
                       struct MlirStream *stream);

#endif
