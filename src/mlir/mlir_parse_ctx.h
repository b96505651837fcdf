/* State shared by the MLIR scanner, the bison parser and the AST builder
 * while one file is parsed. Internal to src/mlir/ and grammar/mlir_*. */
#ifndef SHARDC_MLIR_PARSE_CTX_H
#define SHARDC_MLIR_PARSE_CTX_H
#include <stdbool.h>
#include "mlir/mlir_ast.h"
#include "mlir/mlir_name_cache.h"
#include "shardc/symtab.h"

typedef struct MlirStream MlirStream;

typedef struct MlirParseCtx {
    Arena *arena;               /* where the AST goes: while a function body is
                                   streamed (read.c), one batch of ops' arena */
    Arena *keep;                /* what outlives an op: the tables below */
    struct MlirStream *stream;  /* NULL: the whole module's AST is built */
    DiagEngine *diag;
    const char *file;
    void *scanner;
    MlirModule *module;
    int syntax_errors;
    bool lex_error_pending;     /* the scanner reported this token already */
    int last_token;             /* the token the parser was given last */
    int nesting;                /* open brackets and regions */
    int line, column, offset;   /* the scanner's position, after what it read */
    MlirRule *rule;             /* the op sharding rule being read */
    const char *text;           /* the whole input, for attributes' source text */
    size_t len;
    size_t fed;                 /* how much of it the scanner was given */
    /* parse_custom.c's op name -> custom form and mapped op names, hashed
     * once per file (a table scan per op showed in profiles) */
    SymTab forms, mapped;
    bool forms_ready;
    MlirNameCache recent_forms;
    SymTab types;               /* type text -> the MlirType read first (parse_build.c) */
    bool types_ready;
    MlirNameCache recent_types; /* in front of types */
    /* parse_sdy_fast.c: inside an op sharding rule (from its opening token
     * to the first '>'), where `{key = ...` is not a dict; the last axis
     * and mesh names it copied */
    bool in_rule;
    const char *fast_axis_name, *fast_mesh_name;
    /* the tensor types it read whole, by their text's length and last
     * bytes: text, elem and dims in `keep`, loc unset */
    MlirType fast_types[16];
    /* Streamed (read.c), the first texts of sharding bodies it read, with
     * what it built for them in `keep`: the same text again is not read
     * but its sharding copied (a propagated program repeats a few). */
    struct MlirShardingMemo {
        const char *text;       /* in `text`, from `@` to the closing `>` */
        int len;
        const MlirSharding *sharding;
    } sharding_memo[MLIR_SHARDING_MEMO];
    int num_sharding_memo;
    /* a dim of the sharding being read was malformed (parse_sdy.c): a
     * #sdy.sharding_per_value holding it adds its own error, as Shardy's */
    bool sharding_failed;
    /* the sharding whose `, replicated=` / `, unreduced=` lists are being
     * read and which of them it had (1 replicated, 2 unreduced) */
    const MlirSharding *options_of;
    int options_seen;
    /* Where a syntax error would be in Shardy's parser (mlir_sdy_syntax_error):
     * the `replicated`/`unreduced` option being read, inside a
     * #sdy.sharding_per_value or not; the mappings of a rule being read
     * ("operand_mappings", "result_mappings"), its last dim as written;
     * and whether Shardy's words were given for this error already. */
    const char *sdy_option;
    bool in_per_value;
    const char *rule_param, *rule_dim;
    bool shardy_reported;
} MlirParseCtx;

/* ---- scanner helpers (parse_lex.c) ---- */

/* Sets the scanner to read ctx->text, a block of this many bytes at a time
 * (grammar/mlir_lexer.l). */
enum { MLIR_LEX_BLOCK = 1 << 16 };
void mlir_lex_begin(MlirParseCtx *ctx, void *scanner);

typedef struct MlirTextBuf {
    char *data;
    int len, cap;
} MlirTextBuf;

MlirTextBuf mlir_text_begin(MlirParseCtx *ctx, const char *text, int len);
void mlir_text_add(MlirParseCtx *ctx, MlirTextBuf *buf, char c);
const char *mlir_text_end(MlirParseCtx *ctx, MlirTextBuf *buf);
const char *mlir_lex_intern(MlirParseCtx *ctx, const char *text, int len);
/* A quoted string's contents, escapes resolved. */
const char *mlir_lex_string(MlirParseCtx *ctx, const char *text, int len, Loc loc);
bool mlir_lex_is_unit_key(const char *name);
void mlir_lex_error(MlirParseCtx *ctx, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Counts one more open bracket; false (reported) past the limit, so that
 * hostile nesting ends in a diagnostic, not a deep recursion later. */
enum { MLIR_MAX_NESTING = 256 };
bool mlir_enter_nesting(MlirParseCtx *ctx, Loc loc);

/* `#sdy.sharding<...>` or `#sdy.sharding_per_value<...>` in its common
 * form, read whole (parse_sdy_fast.c) after the scanner read its opening
 * token (open_len bytes at loc): the attribute the grammar would build,
 * with *used the bytes read after the opening; NULL (nothing reported)
 * for any other form, which the grammar reads. */
MlirAttr *mlir_fast_sdy_attr(MlirParseCtx *ctx, bool per_value, Loc loc, int open_len, int *used);
/* After a `[` (at loc) that follows an `=`, an array of integers in its
 * common form up to its `]`: the array attribute the grammar builds, with
 * *used the bytes read after the `[`; NULL (nothing reported) for any
 * other array. */
MlirAttr *mlir_fast_int_array(MlirParseCtx *ctx, Loc loc, int *used);
/* After a `{`, the scanner's match `sdy.sharding =` (match_len bytes at
 * key_loc) and the rest of a dict holding just that sharding in its common
 * form, up to its `}`: the dict's entries as the grammar builds them, with
 * *used the bytes read after the match; NULL (nothing reported) for any
 * other dict. */
MlirList *mlir_fast_sdy_dict(MlirParseCtx *ctx, const char *match, int match_len, Loc key_loc, int *used);

/* ---- a custom-form op as the grammar reads it (parse_custom.c) ----
 * A custom form is an op name, a sequence of items up to its `:` type
 * signature, the signature, and what follows it (reduce's reducer, while's
 * cond/do, attributes). parse_custom.c turns that into the generic op,
 * knowing each op's form. */
typedef enum {
    MI_USE,         /* %x */
    MI_KEYWORD,     /* GT, applies, x, max, an op name */
    MI_NAMED,       /* key = value */
    MI_ATTR,        /* an attribute value: [..], dense<..>, <@m, ...>, @sym, 3 */
    MI_DICT,        /* {a = 1}: the op's attribute dict */
    MI_PARENS,      /* ( items ) */
    MI_REGION,      /* { ops } */
    MI_COLON,       /* `:` inside parens */
    MI_TYPE,        /* a type inside parens */
    MI_ARROW,       /* `->` inside parens */
} MlirSyntaxKind;

typedef struct MlirSyntaxItem {
    MlirSyntaxKind kind;
    Loc loc;
    MlirUse *use;
    const char *name;           /* keyword; key of NAMED */
    MlirAttr *attr;             /* NAMED, ATTR */
    MlirList list;              /* DICT: MlirNamedAttr*; PARENS: MlirSyntaxItem* */
    MlirRegion *region;
    MlirType *type;
} MlirSyntaxItem;

typedef struct MlirTypeSig {
    bool is_function;           /* (a, b) -> c */
    MlirList inputs;            /* MlirType* (the single list when not a function) */
    MlirList outputs;
    bool present;
} MlirTypeSig;

/* After a `:` (at loc), an op's function type in its common form,
 * `(tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>` (or `-> (...)`), on
 * one line, every type a tensor of static or `?` dims (at most 18 digits
 * each) and a plain element type: the signature the grammar builds, each
 * type at its own column, with *used the bytes read after the `:`; NULL
 * (nothing reported) for any other text, which the grammar reads. */
MlirTypeSig *mlir_fast_type_sig(MlirParseCtx *ctx, Loc loc, int *used);
/* After a `:` (at loc), one tensor type of that form that ends its line
 * or comes before a `{` (`: tensor<8xf32>` ending an op, or an argument's
 * type before its attributes): the type at its column, with *used the
 * bytes read after the `:`; NULL (nothing reported) for any other text. */
MlirType *mlir_fast_colon_type(MlirParseCtx *ctx, Loc loc, int *used);

typedef struct MlirCustomSyntax {
    const char *name;
    Loc name_loc;
    MlirList items;             /* MlirSyntaxItem* before the signature */
    MlirTypeSig sig;
    MlirList attributes;        /* `attributes {...}` after it: MlirNamedAttr* */
    MlirList reducer_args;      /* reducer (..) (..): MlirList* of MlirBlockArg* */
    MlirList trailing_regions;  /* reducer's, cond/do: MlirRegion* */
    MlirList extra_uses;        /* reduce's inits, while's iteration argument names */
} MlirCustomSyntax;

/* An op line read whole by the scanner (parse_op_fast.c): its result and
 * custom form, as the grammar's result_def and custom_head read them, or
 * the op its generic form is (generic_op's), syntax then NULL. */
typedef struct MlirFastOp {
    MlirResultDef result;
    MlirCustomSyntax *syntax;
    MlirOp *generic;
} MlirFastOp;

/* At a `%` (at loc, offset first_offset in the text) that starts an op
 * where the op before ended, the whole op line in the form
 * parse_op_fast.c describes, with *used its bytes from the `%`; NULL
 * (nothing reported, nothing read) for any other text. */
MlirFastOp *mlir_fast_op_line(MlirParseCtx *ctx, Loc loc, int first_offset, int *used);

/* The generic op a custom form stands for; NULL after an error. */
MlirOp *mlir_custom_op(MlirParseCtx *ctx, MlirCustomSyntax *syntax);

/* ---- streaming (read.c) ----
 * With ctx->stream set, the ops of a function body are imported into the
 * IR a batch at a time as they are parsed, and their AST's memory reused
 * for the batch after the next. Each returns false when the module cannot
 * be read that way (an error, or what needs the whole module first): the
 * parse stops and the module is read again whole. Without ctx->stream they
 * do nothing but build the AST. */
bool mlir_stream_mesh(MlirParseCtx *ctx, MlirMeshDecl *decl);
/* After `func.func`: what the header holds is read into an arena freed
 * once the function is begun. */
void mlir_stream_func_header(MlirParseCtx *ctx);
/* Imports the function's header; func (in ctx->keep) keeps nothing of
 * its AST but its location afterwards. */
bool mlir_stream_func_begin(MlirParseCtx *ctx, MlirFunc *func);
/* Appends op to the body's ops, or to the batch to import (imported when
 * the batch is full, or at the body's end). */
bool mlir_stream_op(MlirParseCtx *ctx, MlirList *ops, MlirOp *op);
bool mlir_stream_func_end(MlirParseCtx *ctx);

/* ---- builders (parse_build.c, parse_attr.c, parse_sdy.c) ---- */

MlirType *mlir_build_type(MlirParseCtx *ctx, const char *text, Loc loc);
MlirAttr *mlir_attr_new(MlirParseCtx *ctx, MlirAttrKind kind, Loc loc);
MlirAttr *mlir_build_raw(MlirParseCtx *ctx, MlirAttrKind kind, const char *text, Loc loc);
MlirAttr *mlir_build_int(MlirParseCtx *ctx, const char *text, Loc loc);
MlirAttr *mlir_build_float(MlirParseCtx *ctx, const char *text, Loc loc);
MlirAttr *mlir_build_keyword(MlirParseCtx *ctx, const char *word, Loc loc);
/* array<i64: 1, 2>: the ints as MA_INT items; NULL (reported) if malformed. */
MlirAttr *mlir_build_dense_array(MlirParseCtx *ctx, const char *text, Loc loc);
/* [a, b]: an array, or a dim-axes list when its elements are per-dim axes. */
MlirAttr *mlir_build_array(MlirParseCtx *ctx, MlirList *elems, Loc loc);
/* A slice range start:limit[:stride] as an MA_ARRAY of ints (s = ":"). */
MlirAttr *mlir_build_range(MlirParseCtx *ctx, const char *start, const char *limit, const char *stride,
                           Loc loc);
/* `value : type` in an attribute dict. */
MlirAttr *mlir_typed(MlirParseCtx *ctx, MlirAttr *value, MlirType *type);
/* Keeps text[first, last) as the value's raw text (mlir_attr_raw),
 * unless it has one already; returns the value. */
MlirAttr *mlir_keep_text(MlirParseCtx *ctx, MlirAttr *value, int first, int last);
MlirNamedAttr *mlir_named(MlirParseCtx *ctx, const char *name, MlirAttr *value, Loc loc);
int64_t mlir_int_value(MlirParseCtx *ctx, const char *text, Loc loc);

MlirAxisRef *mlir_build_axis(MlirParseCtx *ctx, const char *name, int64_t pre, int64_t size, bool sub, Loc loc);
/* A #sdy.sharding_per_value read: Shardy's error for it when a sharding
 * in it failed. */
void mlir_per_value_done(MlirParseCtx *ctx, Loc loc);
/* `<@mesh, [...], >`: a comma with no list after it; `next`, the word
 * after the comma (or NULL): `replicated` or `unreduced` without its `=`
 * is Shardy's "expected '='" instead. */
void mlir_sharding_trailing_comma(MlirParseCtx *ctx, Loc loc, const char *next);
/* What bison found missing where Shardy's parser words it itself. */
typedef enum {
    SDY_MISSING_EQUALS, SDY_MISSING_LBRACE, SDY_MISSING_RBRACE, SDY_MISSING_STRING, SDY_MISSING_RBRACKET,
    SDY_MISSING_Z_INDEX,
} SdyMissing;
/* A syntax error inside a sharding option or a rule, in Shardy's words
 * with its cascade of parameter errors, if the context is one Shardy
 * words (false: bison's message stands). */
bool mlir_sdy_syntax_error(MlirParseCtx *ctx, Loc loc, SdyMissing what);
MlirDimSharding *mlir_build_dim(MlirParseCtx *ctx, MlirList *axes, bool open, const char *priority,
                                Loc loc);
/* A dim's axes as an array element (sdy collectives): MA_AXES, with
 * all_to_all's `: src->dst` dims in i and f (or -1). */
MlirAttr *mlir_dim_attr(MlirParseCtx *ctx, MlirDimSharding *dim, int64_t src, int64_t dst);
/* `replicated={...}` / `unreduced={...}` of a sharding. */
void mlir_sharding_option(MlirParseCtx *ctx, MlirSharding *s, const char *key, const char *kind,
                          MlirAttr *axes, Loc loc);
void mlir_mesh_option(MlirParseCtx *ctx, MlirMesh *mesh, const char *key, MlirAttr *value, Loc loc);
/* A rule's tensor mapping `[ij, k]`, its dims as written. */
MlirList *mlir_rule_dims(MlirParseCtx *ctx, MlirList *names, Loc loc);
/* `(mappings)->(mappings)`: each dim split into its factor symbols; NULL
 * (reported in Shardy's words) if one is malformed or a side is empty. */
MlirRule *mlir_build_rule(MlirParseCtx *ctx, MlirList *operands, MlirList *results, Loc loc);
/* `i=8` of the sizes; false (reported) unless it names the next factor. */
bool mlir_rule_size(MlirParseCtx *ctx, MlirRule *r, const char *factor, int64_t size, Loc loc);
/* reduction={...}, need_replication={...}, permutation={...}, blocked_propagation={...} */
void mlir_rule_factors(MlirParseCtx *ctx, MlirRule *r, const char *key, MlirList *names, Loc loc);
void mlir_rule_flag(MlirParseCtx *ctx, MlirRule *r, const char *flag, Loc loc);

MlirUse *mlir_build_use(MlirParseCtx *ctx, const char *text, Loc loc);
MlirBlock *mlir_build_block(MlirParseCtx *ctx, const char *label, MlirList *args, MlirList *ops, Loc loc);
MlirRegion *mlir_build_region(MlirParseCtx *ctx, MlirBlock *entry, Loc loc);
MlirFunc *mlir_build_func(MlirParseCtx *ctx, const char *name, const char *visibility, MlirList *args,
                          MlirList *results, MlirList *attrs, Loc loc);
MlirOp *mlir_build_generic(MlirParseCtx *ctx, const char *name, Loc loc, MlirList *operands,
                           MlirList *props, MlirList *regions, MlirList *attrs, MlirTypeSig *sig);
/* Names the op's results and keeps its location; NULL (reported) if the
 * result count disagrees with its types. */
MlirOp *mlir_finish_op(MlirParseCtx *ctx, MlirOp *op, MlirList *results, const char *loc_text, Loc loc);
/* Splits a pending plain signature into operand and result types. */
bool mlir_settle_types(MlirParseCtx *ctx, MlirOp *op);
/* Normalizes a generic op's attributes to the forms the importer reads
 * (#stablehlo<comparison_direction GT> to GT, #stablehlo.dot<...> to
 * batching_dims/contracting_dims pairs). */
void mlir_normalize_attrs(MlirParseCtx *ctx, MlirOp *op);

#endif
