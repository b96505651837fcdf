/* State shared by the scanner, the bison parser and the IR builder while one
 * module is parsed. Internal to the front end (grammar/, src/parse*.c). */
#ifndef SHARDC_PARSE_CTX_H
#define SHARDC_PARSE_CTX_H
#include <stdint.h>
#include "shardc/diag.h"
#include "shardc/dtype.h"
#include "shardc/interner.h"
#include "shardc/ir.h"
#include "shardc/symtab.h"

/* A growable list of pointers, in the parse's syntax arena: a builder
 * keeping its items copies them into the module's. */
typedef ArenaList PtrList;

/* A bare word (an op's name, an element type, an attribute name), kept
 * once per parse with what it names, looked up when first seen: the scanner
 * hands the parser these, where each op compared its words against the
 * tables of op, attribute and type names (a tenth of reading a file). */
typedef struct Word {
    const char *text;
    int op;                 /* its OpKind, or -1: no op is named so */
    AttrKey key;            /* ATTR_KEY_NONE: no attribute the IR knows */
    bool is_dtype;
    DType dtype;
} Word;

/* An op's written parts, collected by the grammar and checked by the builder. */
typedef struct OpSyntax {
    PtrList result_names;   /* NameRef* */
    const Word *name;
    Loc name_loc;
    const char *str;
    Loc str_loc;
    const char *callee;
    Loc callee_loc;
    PtrList operands;       /* Value* (already resolved) */
    PtrList attrs;          /* NamedAttr* */
    Block *region;
    PtrList regions;        /* Block*: the regions after the first (while, case) */
    PtrList types;          /* TensorType* */
} OpSyntax;

typedef struct NameRef {
    const char *name;
    Loc loc;
} NameRef;

/* A lexical scope of SSA names; regions are isolated from above, so a
 * region's scope does not see its parent's names. */
typedef struct Scope {
    SymTab names;
    Block *outer_block;     /* the block to return to when the scope ends */
    struct Scope *parent;
    bool sees_outer;        /* a control-flow region: the parent's names are visible */
} Scope;

typedef struct ParseCtx {
    Module *module;
    DiagEngine *diag;
    Arena *arena;           /* the module's: what the IR keeps */
    /* What only the parse needs (lists, syntax nodes), apart from the IR:
     * half the bytes a parse allocated were these, alive until the module
     * was freed (bench/README.md). Released after each op of a function's
     * body and each mesh or function (parse_release_syntax), so the parse
     * holds one op's syntax, not the module's. */
    Arena syntax;
    Arena syntax_before;    /* the syntax before the last release */
    Interner shapes;        /* type shapes, one copy each in the module's arena */
    SymTab words;           /* text -> Word, on the heap */
    Arena word_arena;       /* the Words and their text, for the parse */
    const char *file;
    void *scanner;
    int line;               /* the scanner's line, and where it starts */
    const char *line_start; /* in the scanner's buffer */
    Scope *scope;
    Block *block;           /* the block ops are appended to */
    Func *func;
    int syntax_errors;
    const char *pending_callee; /* @f of `@f(...)` operands, for build_op */
    Loc pending_callee_loc;
    bool lex_error_pending; /* the scanner already reported this token */
    int nesting;            /* open attribute brackets and regions */
    bool control_flow_op;   /* the op being parsed is while or case */
    PtrList funcs, meshes;
    SymTab func_names, mesh_names;  /* the first of each name in funcs, meshes */
} ParseCtx;

/* Scanner helpers (parse_lex.c). */
const char *parse_intern(ParseCtx *ctx, const char *text, int len);
/* A value name, in the syntax arena: most are looked up (operands) and
 * dropped; the builder copies the ones the IR keeps (results, arguments). */
const char *parse_value_name(ParseCtx *ctx, const char *text, int len);
/* The Word of the len bytes at text. */
const Word *parse_word(ParseCtx *ctx, const char *text, int len);
const char *parse_string_token(ParseCtx *ctx, const char *text, int len, Loc loc);
int64_t parse_int_token(ParseCtx *ctx, const char *text, int len, Loc loc);
/* `f32[8,16]`, as one token (lexer.l). */
TensorType *parse_type_token(ParseCtx *ctx, const char *text, int len, Loc loc);
double parse_float_token(ParseCtx *ctx, const char *text, Loc loc);
void parse_lex_error(ParseCtx *ctx, Loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Builder (parse_build.c): called from grammar actions. */
void build_reverse(PtrList *list);
void build_begin_func(ParseCtx *ctx, const char *name, Loc loc);
void build_func_results(ParseCtx *ctx, PtrList *results);
void build_end_func(ParseCtx *ctx);
/* Ends every open scope (a function abandoned in error, the parse's end). */
void build_free_scopes(ParseCtx *ctx);
void build_abandon_func(ParseCtx *ctx);
Value *build_block_arg(ParseCtx *ctx, const char *name, Loc loc, TensorType *type, PtrList *attrs);
Block *build_begin_region(ParseCtx *ctx);
Block *build_end_region(ParseCtx *ctx, Block *region);
/* Whether the op named `name` is while or case, whose regions see the
 * values around them (other regions are isolated from above). */
bool build_is_control_flow(const Word *name);
void build_return(ParseCtx *ctx, PtrList *values, Loc loc);
void build_define_value(ParseCtx *ctx, Value *v);
Value *build_use(ParseCtx *ctx, const char *name, Loc loc);
void build_op(ParseCtx *ctx, OpSyntax *syntax);
/* The result types of an op written without them (infer.c): false, with a
 * located error, where its operands and attributes do not give them. */
bool build_infer_result_types(ParseCtx *ctx, Op *op);
TensorType *build_type(ParseCtx *ctx, const Word *dtype, Loc loc, PtrList *dims);
/* The same for rank dims (any number: more than SHARDC_MAX_RANK is reported). */
TensorType *build_type_dims(ParseCtx *ctx, const Word *dtype, Loc loc, const int64_t *dims, int rank);
void build_mesh(ParseCtx *ctx, const char *name, Loc loc, PtrList *items);
const Mesh *build_find_mesh(ParseCtx *ctx, const char *name, Loc loc);
int64_t parse_priority(ParseCtx *ctx, const char *text, Loc loc);
/* Ends the syntax of a finished op, mesh or function, where nothing
 * encloses it (no region, no open bracket): the syntax arena becomes the
 * one before, which holds the parser's lookahead token (the next op's
 * first name, read to end this op) until the next release. */
void parse_release_syntax(ParseCtx *ctx);
/* Count one more open bracket or region; false (reported) past the limit. */
enum { PARSE_MAX_NESTING = 64 };
bool parse_enter_nesting(ParseCtx *ctx, Loc loc);
NamedAttr *build_named_attr(ParseCtx *ctx, const Word *name, Loc loc, AttrValue *value);

/* A function result as written: `f32[8] {sharding = ...}`. */
typedef struct FuncResultSyntax {
    TensorType *type;
    PtrList attrs;          /* NamedAttr* */
    Loc loc;
} FuncResultSyntax;

/* A parsed-but-unresolved sharding piece. */
typedef struct AxisRefSyntax {
    const char *name;
    Loc loc;
    int64_t pre_size, size;  /* "x":(pre)size when sub */
    bool sub;                /* false: the whole axis "x" (a written size 0 is an error) */
} AxisRefSyntax;

typedef struct DimSyntax {
    PtrList axes;            /* AxisRefSyntax* */
    bool is_open;
    int priority;
    Loc loc;
} DimSyntax;

/* Mesh item: an axis or the device_ids list. */
typedef struct MeshItemSyntax {
    const char *axis_name;   /* NULL for device_ids */
    int64_t size;
    bool is_explicit;
    PtrList device_ids;      /* int64_t* */
    Loc loc;
} MeshItemSyntax;

/* The `, replicated={...}, unreduced=max{...}` tail of a sharding. */
typedef struct ShardingOptsSyntax {
    PtrList replicated;      /* AxisRefSyntax* */
    PtrList unreduced;       /* AxisRefSyntax* */
    UnreducedOp unreduced_op;
} ShardingOptsSyntax;

void build_sharding_option(ParseCtx *ctx, ShardingOptsSyntax *opts, const char *key, Loc key_loc,
                           const char *kind, Loc kind_loc, PtrList *axes);
AttrValue *build_sharding_attr(ParseCtx *ctx, const char *mesh, Loc loc, PtrList *dims,
                               const ShardingOptsSyntax *opts);

/* Logical axis names (parse_build_logical.c): `logical = ["batch", ""]`,
 * checked against the value's type (NULL: not known yet); NULL if bad. */
LogicalAxes *build_logical_axes(ParseCtx *ctx, const NamedAttr *a, const TensorType *type);
/* Reports a value given both a sharding and logical names. */
void build_check_one_layout(ParseCtx *ctx, const Sharding *sharding, const LogicalAxes *logical);
/* Takes `logical` off an op onto its single result; false for other names. */
bool build_take_op_logical(ParseCtx *ctx, Op *op, const NamedAttr *a);
#endif
