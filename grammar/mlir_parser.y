/* The MLIR grammar: modules of sdy meshes and func.funcs whose ops are
 * written in MLIR's generic form or in the custom forms StableHLO, sdy and
 * func print (docs/mlir.md). A pure, reentrant parser that stops at the
 * first syntax error, as mlir-opt does.
 *
 * Custom forms differ per op; the grammar reads any of them as an op name,
 * a sequence of items (values, keywords, `key = value`, attribute values,
 * attribute dicts, parenthesized groups, regions) up to the `:` type
 * signature, and what may follow it (reduce's `reducer`, while's
 * `cond`/`do`, `attributes {...}`). src/mlir/parse_custom.c knows each
 * op's form and turns the items into the generic op: every op leaves the
 * parser as one MlirOp (mlir_ast.h). The scanner tells attribute names
 * (`key =`, unit `key,`) from other identifiers, which keeps the places
 * where `{` opens either an attribute dict or a region LALR(1). */
%require "3.8"
%define api.pure full
%define api.prefix {mlir_yy}
/* bison's "detailed" messages, with the tokens the scanner reads whole
 * named as the ones they start with (yyreport_syntax_error below). */
%define parse.error custom
/* An op written without a `:` signature (`return`, `sdy.return`) ends where
 * its items do: a value, identifier, string or alias after it is read as
 * one more item (shift), so such ops end a block, as they do in practice. */
%expect 4
%locations
%parse-param {MlirParseCtx *ctx}
%lex-param {MlirParseCtx *ctx}
%initial-action { @$ = (MlirSpan){1, 1, 0, 0}; }

%code requires {
#include <stdint.h>
#include "mlir/mlir_parse_ctx.h"
/* Where a symbol starts, and the byte offsets of its text, so that an
 * attribute's source text can be kept whole (mlir_keep_text). Nothing
 * reads where it ends by line and column: the scanner keeps its position
 * in the context, and the four fields the parser copies at every step
 * were six (bench/instructions.sh). */
typedef struct MlirSpan {
    int first_line, first_column;
    int first_offset, last_offset;
} MlirSpan;
#define MLIR_YYLTYPE MlirSpan
#define MLIR_YYLTYPE_IS_DECLARED 1
#define YYLLOC_DEFAULT(cur, rhs, n) do {                                    \
        if (n) {                                                            \
            (cur).first_line = YYRHSLOC(rhs, 1).first_line;                 \
            (cur).first_column = YYRHSLOC(rhs, 1).first_column;             \
            (cur).first_offset = YYRHSLOC(rhs, 1).first_offset;             \
            (cur).last_offset = YYRHSLOC(rhs, n).last_offset;               \
        } else {                                                            \
            (cur).first_line = YYRHSLOC(rhs, 0).first_line;                 \
            (cur).first_column = YYRHSLOC(rhs, 0).first_column;             \
            (cur).first_offset = (cur).last_offset = YYRHSLOC(rhs, 0).last_offset; \
        }                                                                   \
    } while (0)
}

%code {
#include <string.h>
int mlir_scan_lex(MLIR_YYSTYPE *lval, MLIR_YYLTYPE *lloc, void *scanner);
/* A LEX_ERROR token was reported by the scanner already; the syntax error
 * it causes is not reported again. */
static int mlir_yylex(MLIR_YYSTYPE *lval, MLIR_YYLTYPE *lloc, MlirParseCtx *ctx)
{
    int token = mlir_scan_lex(lval, lloc, ctx->scanner);
    if (token != LEX_ERROR)
        ctx->lex_error_pending = false;
    ctx->last_token = token;
    return token;
}
static void mlir_yyerror(MLIR_YYLTYPE *lloc, MlirParseCtx *ctx, const char *msg);
#define L(yyl) ((Loc){ctx->file, (yyl).first_line, (yyl).first_column})
#define PUSH(list, item) arena_list_push(ctx->arena, &(list), (item))
/* An attribute value's text as written, kept for what the importer does
 * not model and prints back. */
#define SPAN(attr, yyl) mlir_keep_text(ctx, (attr), (yyl).first_offset, (yyl).last_offset)
#define NEW(type) ((type *)arena_alloc(ctx->arena, sizeof(type)))
static MlirSyntaxItem *item_new(MlirParseCtx *ctx, MlirSyntaxKind kind, Loc loc)
{
    MlirSyntaxItem *it = NEW(MlirSyntaxItem);
    it->kind = kind;
    it->loc = loc;
    return it;
}
/* The type of a `: type` read whole, as the item `type` is: its text ends
 * the token, as written (no spaces inside). */
static MlirSyntaxItem *type_item(MlirParseCtx *ctx, MlirType *type, MlirSpan span)
{
    MlirSyntaxItem *it = item_new(ctx, MI_ATTR, type->loc);
    MlirAttr *a = mlir_attr_new(ctx, MA_TYPE, type->loc);
    a->type = type;
    it->attr = mlir_keep_text(ctx, a, span.last_offset - (int)strlen(type->text), span.last_offset);
    return it;
}
static MlirList list_of(MlirParseCtx *ctx, void *item)
{
    MlirList l = {0};
    PUSH(l, item);
    return l;
}
}

%union {
    const char *s;
    MlirList list;
    MlirList *plist;
    MlirType *type;
    MlirAttr *attr;
    MlirNamedAttr *named;
    MlirOp *op;
    MlirRegion *region;
    MlirBlock *block;
    MlirBlockArg *barg;
    MlirResultDef *rdef;
    MlirSyntaxItem *item;
    MlirCustomSyntax *custom;
    MlirTypeSig *sig;           /* a pointer: the union is copied at every parser step */
    MlirSharding *sharding;
    MlirDimSharding *dim;
    MlirAxisRef *axis;
    MlirMesh *mesh;
    MlirMeshAxis *mesh_axis;
    MlirRule *rule;
    MlirFunc *func;
    MlirFastOp *fast_op;
}

%token KW_MODULE "'module'" KW_FUNC "'func.func'" KW_SDY_MESH "'sdy.mesh'"
%token KW_ATTRIBUTES "'attributes'" KW_REDUCER "'reducer'" KW_COND "'cond'" KW_DO "'do'"
%token ARROW "'->'" SDY_SHARDING "'#sdy.sharding<'" SDY_PER_VALUE "'#sdy.sharding_per_value<'"
%token SDY_RULE "'#sdy.op_sharding_rule<'" SDY_MESH "'#sdy.mesh<'" MESH_OPEN "'mesh<'"
/* The same two, read whole by the scanner with what they open
 * (parse_sdy_fast.c): syntax errors name them as the tokens above. */
%token <attr> SDY_SHARDING_READ "'#sdy.sharding<' read" SDY_PER_VALUE_READ "'#sdy.sharding_per_value<' read"
/* `sdy.sharding = <sharding>}` after a `{`, read whole likewise: named as
 * the attribute name it starts with. */
%token <plist> DICT_BODY "attribute dict read whole"
/* `[0, 1]` after an `=`, read whole likewise: named as its `[`. */
%token <attr> ARRAY_READ "'[' read"
/* `: (types) -> types` read whole likewise: named as its `:`. */
%token <sig> SIG_READ "':' read"
/* `: tensor<...>` read whole likewise where it ends its line (or comes
 * before a `{`): named as its `:` too. */
%token <type> TYPE_READ "':' and type read"
%token LEX_ERROR "invalid token"
%token <s> TYPE "type" DENSE "dense literal" DENSE_ARRAY "array literal" DIALECT_ATTR "dialect attribute"
%token <s> ALIAS "alias" LOC_TEXT "location" BLOCK_LABEL "block label" FLOAT "float" INT "integer"
%token <s> VALUE_ID "value name" SYMBOL "symbol" ATTR_KEY "attribute name" UNIT_KEY "unit attribute"
%token <s> BARE_ID "identifier" STRING "string"
/* A whole op line read by the scanner (parse_op_fast.c): named as the
 * value name it starts with. Declared last, so that syntax errors list
 * the tokens expected in the same order as without it. */
%token <fast_op> OP_READ "op line read"

%type <s> keyword opt_symbol opt_visibility opt_loc opt_priority option_key
%type <list> top_items func_args opt_func_args func_results result_list dict dict_entries
%type <list> opt_types types items paren_items opt_uses uses result_defs block_args opt_block_args
%type <list> body_ops regions opt_region_list opt_props opt_dict opt_fattrs ops ops1 mesh_axes opt_mesh_axes
%type <list> dims opt_dims axis_list shardings opt_shardings factor_dim_lists opt_factor_dim_lists
%type <list> keywords opt_keywords dim_names opt_dim_names array_elems reducer_groups opt_attributes opt_module_attrs
%type <plist> factor_dims
%type <type> type colon_type
%type <attr> value value_nb value_nk array array_elem brace_value angle sdy_attr axis_set
%type <named> dict_entry
%type <op> op_stmt op_body generic_op custom_op
%type <custom> custom_head
%type <region> region region_ne func_body
%type <block> labeled_block
%type <barg> block_arg func_arg
%type <rdef> result_def
%type <item> item paren_item brace_item
%type <sig> type_sig op_sig
%type <sharding> sharding_body sharding_elem
%type <dim> dim
%type <axis> axis_ref
%type <mesh> mesh_body
%type <mesh_axis> mesh_axis
%type <rule> rule_body
%type <func> func_decl func_head

%%

file
    : top_items                 { ctx->module->items = $1; }
    | top_items KW_MODULE opt_symbol opt_module_attrs '{' top_items '}' opt_loc top_items
        {
            /* JAX prints `#loc1 = loc(...)` aliases before the module:
             * they go to loc_aliases, so nothing else may stand there */
            if ($1.count) {
                diag_error(ctx->diag, L(@2), "only location aliases may come before 'module'");
                YYABORT;
            }
            ctx->module->explicit_module = true;
            ctx->module->name = $3;
            ctx->module->attrs = $4;
            ctx->module->items = $6;
            for (int i = 0; i < $9.count; i++)
                PUSH(ctx->module->items, $9.items[i]);
        }
    ;

opt_symbol: %empty { $$ = NULL; } | SYMBOL { $$ = $1; } ;
opt_module_attrs: %empty { $$ = (MlirList){0}; } | KW_ATTRIBUTES dict { $$ = $2; } ;

top_items
    : %empty                    { $$ = (MlirList){0}; }
    | top_items KW_SDY_MESH SYMBOL '=' '<' mesh_body '>' opt_dict opt_loc
        {
            MlirMeshDecl *d = NEW(MlirMeshDecl);
            *d = (MlirMeshDecl){$3, $6, $8, L(@2)};
            MlirItem *it = NEW(MlirItem);
            *it = (MlirItem){.kind = MT_ITEM_MESH, .mesh = d};
            $$ = $1; PUSH($$, it);
            if (!mlir_stream_mesh(ctx, d))
                YYABORT;
        }
    | top_items func_decl
        {
            MlirItem *it = NEW(MlirItem);
            *it = (MlirItem){.kind = MT_ITEM_FUNC, .func = $2};
            $$ = $1; PUSH($$, it);
        }
    | top_items ALIAS '=' LOC_TEXT
        { $$ = $1; PUSH(ctx->module->loc_aliases, mlir_named(ctx, $2, mlir_build_raw(ctx, MA_DIALECT, $4, L(@4)), L(@2))); }
    | top_items op_stmt
        {
            MlirItem *it = NEW(MlirItem);
            *it = (MlirItem){.kind = MT_ITEM_OP, .op = $2};
            $$ = $1; PUSH($$, it);
        }
    ;

/* ---- functions ---- */

/* Streamed (read.c: ctx->stream), a function is imported from its header
 * on, each op of its body as it is read; a declaration or a body with
 * block labels is not streamed (the module is read again whole). */
func_decl
    : func_head opt_loc
        {
            $$ = $1;
            $$->loc_text = $2;
            if (ctx->stream)
                YYABORT;
        }
    | func_head func_body opt_loc
        {
            $$ = $1;
            $$->body = $2;
            $$->loc_text = $3;
            if (ctx->stream && $2)
                YYABORT;
        }
    ;
func_head
    : KW_FUNC func_header opt_visibility SYMBOL '(' opt_func_args ')' result_list opt_fattrs
        {
            $$ = mlir_build_func(ctx, $4, $3, &$6, &$8, &$9, L(@4));
            if (!mlir_stream_func_begin(ctx, $$))
                YYABORT;
        }
    ;
/* Streamed, the header's AST goes to an arena of its own (read.c). */
func_header: %empty { mlir_stream_func_header(ctx); } ;
/* A function body as `region` reads it, its ops streamed (then NULL). */
func_body
    : '{' '}'                   { $$ = mlir_build_region(ctx, NULL, L(@1)); }
    | '{' body_ops '}'
        {
            $$ = ctx->stream ? NULL : mlir_build_region(ctx, mlir_build_block(ctx, NULL, NULL, &$2, L(@1)), L(@1));
            if (!mlir_stream_func_end(ctx))
                YYABORT;
        }
    | '{' labeled_block '}'     { $$ = mlir_build_region(ctx, $2, L(@1)); }
    ;
body_ops
    : op_stmt                   { $$ = (MlirList){0}; if (!mlir_stream_op(ctx, &$$, $1)) YYABORT; }
    | body_ops op_stmt          { $$ = $1; if (!mlir_stream_op(ctx, &$$, $2)) YYABORT; }
    ;

opt_visibility: %empty { $$ = NULL; } | BARE_ID { $$ = $1; } ;
opt_fattrs: %empty { $$ = (MlirList){0}; } | KW_ATTRIBUTES dict { $$ = $2; } ;

opt_func_args: %empty { $$ = (MlirList){0}; } | func_args ;
func_args
    : func_arg                  { $$ = list_of(ctx, $1); }
    | func_args ',' func_arg    { $$ = $1; PUSH($$, $3); }
    ;
func_arg
    : VALUE_ID colon_type opt_dict opt_loc
        { $$ = NEW(MlirBlockArg); *$$ = (MlirBlockArg){$1, $2, $3, L(@1)}; }
    ;

/* Each entry is an MlirBlockArg with no name: a result type and its attributes. */
result_list
    : %empty                    { $$ = (MlirList){0}; }
    | ARROW type                { MlirBlockArg *r = NEW(MlirBlockArg); *r = (MlirBlockArg){NULL, $2, {0}, L(@2)};
                                  $$ = list_of(ctx, r); }
    | ARROW '(' ')'             { $$ = (MlirList){0}; }
    | ARROW '(' func_results ')' { $$ = $3; }
    ;
func_results
    : type opt_dict             { MlirBlockArg *r = NEW(MlirBlockArg); *r = (MlirBlockArg){NULL, $1, $2, L(@1)};
                                  $$ = list_of(ctx, r); }
    | func_results ',' type opt_dict
        { MlirBlockArg *r = NEW(MlirBlockArg); *r = (MlirBlockArg){NULL, $3, $4, L(@3)};
          $$ = $1; PUSH($$, r); }
    ;

/* ---- regions and blocks ---- */

/* A region that may be empty (a function body, a generic op's region list). */
region
    : '{' '}'                   { $$ = mlir_build_region(ctx, NULL, L(@1)); }
    | region_ne                 { $$ = $1; }
    ;

/* A region with at least one op or block: where `{` may also open an
 * attribute dict, `{}` is the dict. */
region_ne
    : '{' ops1 '}'              { $$ = mlir_build_region(ctx, mlir_build_block(ctx, NULL, NULL, &$2, L(@1)), L(@1)); }
    | '{' labeled_block '}'     { $$ = mlir_build_region(ctx, $2, L(@1)); }
    ;

labeled_block
    : BLOCK_LABEL opt_block_args ':' ops { $$ = mlir_build_block(ctx, $1, &$2, &$4, L(@1)); }
    ;
opt_block_args: %empty { $$ = (MlirList){0}; } | '(' block_args ')' { $$ = $2; } ;
block_args
    : block_arg                 { $$ = list_of(ctx, $1); }
    | block_args ',' block_arg  { $$ = $1; PUSH($$, $3); }
    ;
block_arg
    : VALUE_ID colon_type opt_loc { $$ = NEW(MlirBlockArg); *$$ = (MlirBlockArg){$1, $2, {0}, L(@1)}; }
    ;

ops: %empty { $$ = (MlirList){0}; } | ops1 ;
ops1
    : op_stmt                   { $$ = list_of(ctx, $1); }
    | ops1 op_stmt              { $$ = $1; PUSH($$, $2); }
    ;

/* ---- ops ---- */

op_stmt
    : result_defs '=' op_body opt_loc   { $$ = mlir_finish_op(ctx, $3, &$1, $4, L(@1)); if (!$$) YYABORT; }
    | op_body opt_loc                   { $$ = mlir_finish_op(ctx, $1, NULL, $2, L(@1)); if (!$$) YYABORT; }
    | OP_READ
        {
            MlirList results = list_of(ctx, &$1->result);
            $$ = $1->generic ? $1->generic : mlir_custom_op(ctx, $1->syntax);
            if (!$$ || !($$ = mlir_finish_op(ctx, $$, &results, NULL, L(@1))))
                YYABORT;
        }
    ;

result_defs
    : result_def                { $$ = list_of(ctx, $1); }
    | result_defs ',' result_def { $$ = $1; PUSH($$, $3); }
    ;
result_def
    : VALUE_ID                  { $$ = NEW(MlirResultDef); *$$ = (MlirResultDef){$1, 1, L(@1)}; }
    | VALUE_ID ':' INT          { $$ = NEW(MlirResultDef); *$$ = (MlirResultDef){$1, (int)mlir_int_value(ctx, $3, L(@3)), L(@1)}; }
    ;

op_body: generic_op | custom_op ;

generic_op
    : STRING '(' opt_uses ')' opt_props opt_region_list opt_dict op_sig
        { $$ = mlir_build_generic(ctx, $1, L(@1), &$3, &$5, &$6, &$7, $8); if (!$$) YYABORT; }
    ;
opt_uses: %empty { $$ = (MlirList){0}; } | uses ;
uses
    : VALUE_ID                  { $$ = list_of(ctx, mlir_build_use(ctx, $1, L(@1))); }
    | uses ',' VALUE_ID         { $$ = $1; PUSH($$, mlir_build_use(ctx, $3, L(@3))); }
    ;
opt_props: %empty { $$ = (MlirList){0}; } | '<' dict '>' { $$ = $2; } ;
opt_region_list: %empty { $$ = (MlirList){0}; } | '(' regions ')' { $$ = $2; } ;
regions
    : region                    { $$ = list_of(ctx, $1); }
    | regions ',' region        { $$ = $1; PUSH($$, $3); }
    ;
opt_dict: %empty { $$ = (MlirList){0}; } | dict ;

custom_op
    : custom_head               { $$ = mlir_custom_op(ctx, $1); if (!$$) YYABORT; }
    | custom_head op_sig opt_attributes
        { $1->sig = *$2; $1->attributes = $3; $$ = mlir_custom_op(ctx, $1); if (!$$) YYABORT; }
    | custom_head op_sig opt_attributes KW_REDUCER reducer_groups region
        {
            $1->sig = *$2; $1->attributes = $3; $1->reducer_args = $5;
            PUSH($1->trailing_regions, $6);
            $$ = mlir_custom_op(ctx, $1); if (!$$) YYABORT;
        }
    | custom_head op_sig opt_attributes KW_COND region KW_DO region
        {
            $1->sig = *$2; $1->attributes = $3;
            PUSH($1->trailing_regions, $5); PUSH($1->trailing_regions, $7);
            $$ = mlir_custom_op(ctx, $1); if (!$$) YYABORT;
        }
    ;
custom_head
    : BARE_ID items
        { $$ = NEW(MlirCustomSyntax); $$->name = $1; $$->name_loc = L(@1); $$->items = $2; }
    ;
opt_attributes: %empty { $$ = (MlirList){0}; } | KW_ATTRIBUTES dict { $$ = $2; } ;
reducer_groups
    : '(' block_args ')'        { MlirList *l = NEW(MlirList); *l = $2; $$ = list_of(ctx, l); }
    | reducer_groups '(' block_args ')' { MlirList *l = NEW(MlirList); *l = $3; $$ = $1; PUSH($$, l); }
    ;

items
    : %empty                    { $$ = (MlirList){0}; }
    | items item                { $$ = $1; PUSH($$, $2); }
    | items ','                 { $$ = $1; }
    ;
item
    : VALUE_ID                  { $$ = item_new(ctx, MI_USE, L(@1)); $$->use = mlir_build_use(ctx, $1, L(@1)); }
    | keyword                   { $$ = item_new(ctx, MI_KEYWORD, L(@1)); $$->name = $1; }
    | ATTR_KEY '=' value        { $$ = item_new(ctx, MI_NAMED, L(@1)); $$->name = $1; $$->attr = SPAN($3, @3); }
    | value_nk                  { $$ = item_new(ctx, MI_ATTR, L(@1)); $$->attr = SPAN($1, @1); }
    | brace_item                { $$ = $1; }
    | '(' paren_items ')'       { $$ = item_new(ctx, MI_PARENS, L(@1)); $$->list = $2; }
    | ARROW                     { $$ = item_new(ctx, MI_ARROW, L(@1)); }
    ;
brace_item
    : '{' '}'                   { $$ = item_new(ctx, MI_DICT, L(@1)); }
    | '{' dict_entries '}'      { $$ = item_new(ctx, MI_DICT, L(@1)); $$->list = $2; }
    | '{' dict_entries ',' '}'  { $$ = item_new(ctx, MI_DICT, L(@1)); $$->list = $2; }
    | '{' DICT_BODY             { $$ = item_new(ctx, MI_DICT, L(@1)); $$->list = *$2; }
    | axis_set                  { $$ = item_new(ctx, MI_ATTR, L(@1)); $$->attr = $1; }
    | region_ne                 { $$ = item_new(ctx, MI_REGION, L(@1)); $$->region = $1; }
    ;
paren_items
    : %empty                    { $$ = (MlirList){0}; }
    | paren_items paren_item    { $$ = $1; PUSH($$, $2); }
    | paren_items TYPE_READ     { $$ = $1; PUSH($$, item_new(ctx, MI_COLON, L(@2))); PUSH($$, type_item(ctx, $2, @2)); }
    | paren_items ','           { $$ = $1; }
    ;
paren_item
    : item                      { $$ = $1; }
    | ':'                       { $$ = item_new(ctx, MI_COLON, L(@1)); }
    | '='                       { $$ = item_new(ctx, MI_KEYWORD, L(@1)); $$->name = "="; }
    ;

keyword: BARE_ID | UNIT_KEY ;

/* ---- types ---- */

/* An op's `:` and type signature, or both read whole by the scanner. */
op_sig
    : ':' type_sig              { $$ = $2; }
    | SIG_READ                  { $$ = $1; }
    | TYPE_READ                 { $$ = NEW(MlirTypeSig); *$$ = (MlirTypeSig){false, list_of(ctx, $1), {0}, true}; }
    | TYPE_READ ',' types       /* the line ended before the comma */
        {
            MlirList all = list_of(ctx, $1);
            for (int i = 0; i < $3.count; i++)
                PUSH(all, $3.items[i]);
            $$ = NEW(MlirTypeSig); *$$ = (MlirTypeSig){false, all, {0}, true};
        }
    ;
/* A `:` and one type, or both read whole by the scanner. */
colon_type
    : ':' type                  { $$ = $2; }
    | TYPE_READ                 { $$ = $1; }
    ;
type_sig
    : '(' opt_types ')' ARROW type         { $$ = NEW(MlirTypeSig); *$$ = (MlirTypeSig){true, $2, list_of(ctx, $5), true}; }
    | '(' opt_types ')' ARROW '(' opt_types ')' { $$ = NEW(MlirTypeSig); *$$ = (MlirTypeSig){true, $2, $6, true}; }
    | types                                { $$ = NEW(MlirTypeSig); *$$ = (MlirTypeSig){false, $1, {0}, true}; }
    ;
opt_types: %empty { $$ = (MlirList){0}; } | types ;
types
    : type                      { $$ = list_of(ctx, $1); }
    | types ',' type            { $$ = $1; PUSH($$, $3); }
    ;
type
    : TYPE                      { $$ = mlir_build_type(ctx, $1, L(@1)); if (!$$) YYABORT; }
    | keyword                   { $$ = mlir_build_type(ctx, $1, L(@1)); if (!$$) YYABORT; }
    ;

/* ---- attributes ---- */

dict
    : '{' '}'                   { $$ = (MlirList){0}; }
    | '{' dict_entries '}'      { $$ = $2; }
    | '{' dict_entries ',' '}'  { $$ = $2; }
    | '{' DICT_BODY             { $$ = *$2; }
    ;
dict_entries
    : dict_entry                { $$ = list_of(ctx, $1); }
    | dict_entries ',' dict_entry { $$ = $1; PUSH($$, $3); }
    ;
dict_entry
    : ATTR_KEY '=' value        { $$ = mlir_named(ctx, $1, SPAN($3, @3), L(@1)); }
    | ATTR_KEY '=' value colon_type { $$ = mlir_named(ctx, $1, mlir_typed(ctx, SPAN($3, @3), $4), L(@1)); }
    | UNIT_KEY                  { $$ = mlir_named(ctx, $1, mlir_attr_new(ctx, MA_UNIT, L(@1)), L(@1)); }
    ;

value
    : value_nb                  { $$ = $1; }
    | brace_value               { $$ = $1; }
    ;
value_nb
    : value_nk                  { $$ = $1; }
    | keyword                   { $$ = mlir_build_keyword(ctx, $1, L(@1)); }
    ;
/* An attribute value that is neither a keyword nor braced. */
value_nk
    : INT                       { $$ = mlir_build_int(ctx, $1, L(@1)); }
    | FLOAT                     { $$ = mlir_build_float(ctx, $1, L(@1)); }
    | STRING                    { $$ = mlir_attr_new(ctx, MA_STRING, L(@1)); $$->s = $1; }
    | SYMBOL                    { $$ = mlir_attr_new(ctx, MA_SYMBOL, L(@1)); $$->s = $1; }
    | DENSE                     { $$ = mlir_build_raw(ctx, MA_DENSE, $1, L(@1)); }
    | DENSE_ARRAY               { $$ = mlir_build_dense_array(ctx, $1, L(@1)); if (!$$) YYABORT; }
    | DIALECT_ATTR              { $$ = mlir_build_raw(ctx, MA_DIALECT, $1, L(@1)); }
    | ALIAS                     { $$ = mlir_build_raw(ctx, MA_DIALECT, $1, L(@1)); }
    | TYPE                      { $$ = mlir_attr_new(ctx, MA_TYPE, L(@1));
                                  $$->type = mlir_build_type(ctx, $1, L(@1)); if (!$$->type) YYABORT; }
    | array                     { $$ = $1; }
    | angle                     { $$ = $1; }
    | sdy_attr                  { $$ = $1; }
    ;
brace_value
    : '{' '}'                   { $$ = mlir_attr_new(ctx, MA_DICT, L(@1)); }
    | '{' dict_entries '}'      { $$ = mlir_attr_new(ctx, MA_DICT, L(@1)); $$->items = $2; }
    | '{' dict_entries ',' '}'  { $$ = mlir_attr_new(ctx, MA_DICT, L(@1)); $$->items = $2; }
    | '{' DICT_BODY             { $$ = mlir_attr_new(ctx, MA_DICT, L(@1)); $$->items = *$2; }
    | axis_set                  { $$ = $1; }
    ;
axis_set
    : '{' axis_list '}'         { $$ = mlir_attr_new(ctx, MA_AXES, L(@1)); $$->items = $2; }
    ;

array
    : '[' ']'                   { $$ = mlir_attr_new(ctx, MA_ARRAY, L(@1)); }
    | '[' array_elems ']'       { $$ = mlir_build_array(ctx, &$2, L(@1)); }
    | ARRAY_READ                { $$ = $1; }
    ;
array_elems
    : array_elem                { $$ = list_of(ctx, $1); }
    | array_elems ',' array_elem { $$ = $1; PUSH($$, $3); }
    ;
/* Arrays hold attribute values, slice ranges `0:8:2` (stablehlo.slice),
 * per-dim axes `{"a"}` (sdy collectives, shardings) and all_to_all's
 * `{"a"}: 0->1`. */
array_elem
    : value_nb                  { $$ = $1; }
    | DENSE colon_type          { $$ = mlir_typed(ctx, mlir_build_raw(ctx, MA_DENSE, $1, L(@1)), $2); } /* operand_layouts */
    | '{' dict_entries '}'      { $$ = mlir_attr_new(ctx, MA_DICT, L(@1)); $$->items = $2; }
    | '{' DICT_BODY             { $$ = mlir_attr_new(ctx, MA_DICT, L(@1)); $$->items = *$2; }
    | dim                       { $$ = mlir_dim_attr(ctx, $1, -1, -1); }
    | dim ':' INT ARROW INT     { $$ = mlir_dim_attr(ctx, $1, mlir_int_value(ctx, $3, L(@3)), mlir_int_value(ctx, $5, L(@5))); }
    | INT ':' INT               { $$ = mlir_build_range(ctx, $1, $3, NULL, L(@1)); }
    | INT ':' INT ':' INT       { $$ = mlir_build_range(ctx, $1, $3, $5, L(@1)); }
    ;

angle
    : '<' sharding_body '>'     { $$ = mlir_attr_new(ctx, MA_SHARDING, L(@1)); $$->sharding = $2; }
    | '<' STRING '>'            { $$ = mlir_attr_new(ctx, MA_STRING, L(@2)); $$->s = $2; }
    | '<' mesh_body '>'         { $$ = mlir_attr_new(ctx, MA_MESH, L(@1)); $$->mesh = $2; }
    | '<' dict '>'              { $$ = mlir_attr_new(ctx, MA_DICT, L(@1)); $$->items = $2; }
    ;
sdy_attr
    : SDY_SHARDING sharding_body '>'
        { $$ = mlir_attr_new(ctx, MA_SHARDING, L(@1)); $$->sharding = $2; ctx->sharding_failed = false; }
    | SDY_PER_VALUE { ctx->in_per_value = true; } '[' opt_shardings ']' '>'
        { $$ = mlir_attr_new(ctx, MA_SHARDINGS, L(@1)); $$->shardings = $4; mlir_per_value_done(ctx, L(@1)); }
    | SDY_RULE rule_body '>'    { $$ = mlir_attr_new(ctx, MA_RULE, L(@1)); $$->rule = $2; }
    | SDY_MESH mesh_body '>'    { $$ = mlir_attr_new(ctx, MA_MESH, L(@1)); $$->mesh = $2; }
    | SDY_SHARDING_READ         { $$ = $1; }
    | SDY_PER_VALUE_READ        { $$ = $1; }
    ;
opt_shardings: %empty { $$ = (MlirList){0}; } | shardings ;
shardings
    : sharding_elem             { $$ = list_of(ctx, $1); }
    | shardings ',' sharding_elem { $$ = $1; PUSH($$, $3); }
    ;
sharding_elem
    : '<' sharding_body '>'     { $$ = $2; }
    | SDY_SHARDING sharding_body '>' { $$ = $2; }
    | SDY_SHARDING_READ         { $$ = $1->sharding; }
    ;

/* ---- sdy shardings and meshes ---- */

sharding_body
    : SYMBOL ',' '[' opt_dims ']'
        { $$ = NEW(MlirSharding); $$->mesh_name = $1; $$->dims = $4; $$->loc = L(@1); }
    | MESH_OPEN mesh_body '>' ',' '[' opt_dims ']'
        { $$ = NEW(MlirSharding); $$->inline_mesh = $2; $$->dims = $6; $$->loc = L(@1); }
    | sharding_body ',' option_key '=' brace_value
        { $$ = $1; mlir_sharding_option(ctx, $$, $3, NULL, $5, L(@3)); }
    | sharding_body ',' option_key '=' keyword brace_value
        { $$ = $1; mlir_sharding_option(ctx, $$, $3, $5, $6, L(@3)); }
    | sharding_body ','
        { $$ = $1; mlir_sharding_trailing_comma(ctx, L(@2), yychar == BARE_ID || yychar == UNIT_KEY ? yylval.s : NULL); }
    ;
/* The option being read, for Shardy's words should it fail (parse_sdy.c). */
option_key: ATTR_KEY            { $$ = $1; ctx->sdy_option = $1; }
    ;
opt_dims: %empty { $$ = (MlirList){0}; } | dims ;
dims
    : dim                       { $$ = list_of(ctx, $1); }
    | dims ',' dim              { $$ = $1; PUSH($$, $3); }
    ;
dim
    : '{' '}' opt_priority              { $$ = mlir_build_dim(ctx, NULL, false, $3, L(@1)); }
    | '{' '?' '}' opt_priority          { $$ = mlir_build_dim(ctx, NULL, true, $4, L(@1)); }
    | '{' axis_list '}' opt_priority    { $$ = mlir_build_dim(ctx, &$2, false, $4, L(@1)); }
    | '{' axis_list ',' '?' '}' opt_priority { $$ = mlir_build_dim(ctx, &$2, true, $6, L(@1)); }
    ;
opt_priority: %empty { $$ = NULL; } | keyword { $$ = $1; } ;
axis_list
    : axis_ref                  { $$ = list_of(ctx, $1); }
    | axis_list ',' axis_ref    { $$ = $1; PUSH($$, $3); }
    ;
axis_ref
    : STRING                    { $$ = mlir_build_axis(ctx, $1, 1, 0, false, L(@1)); }
    | STRING ':' '(' INT ')' INT
        { $$ = mlir_build_axis(ctx, $1, mlir_int_value(ctx, $4, L(@4)), mlir_int_value(ctx, $6, L(@6)), true, L(@1)); }
    ;

mesh_body
    : '[' opt_mesh_axes ']'     { $$ = NEW(MlirMesh); $$->axes = $2; $$->loc = L(@1); }
    | mesh_body ',' ATTR_KEY '=' value { $$ = $1; mlir_mesh_option(ctx, $$, $3, $5, L(@3)); }
    ;
opt_mesh_axes: %empty { $$ = (MlirList){0}; } | mesh_axes ;
mesh_axes
    : mesh_axis                 { $$ = list_of(ctx, $1); }
    | mesh_axes ',' mesh_axis   { $$ = $1; PUSH($$, $3); }
    ;
mesh_axis
    : STRING '=' INT            { $$ = NEW(MlirMeshAxis); *$$ = (MlirMeshAxis){$1, mlir_int_value(ctx, $3, L(@3)), L(@1)}; }
    ;

/* ---- sdy op sharding rules ---- */

rule_body
    : '(' { ctx->rule_param = "operand_mappings"; } opt_factor_dim_lists ')' ARROW
      '(' { ctx->rule_param = "result_mappings"; } opt_factor_dim_lists ')'
        { ctx->rule_param = NULL; $$ = mlir_build_rule(ctx, &$3, &$8, L(@1)); if (!$$) YYABORT; }
    | rule_body '{' factor_sizes '}'    { $$ = $1; }
    | rule_body ATTR_KEY '=' '{' opt_keywords '}'
        { $$ = $1; mlir_rule_factors(ctx, $$, $2, &$5, L(@2)); }
    | rule_body ',' keyword     { $$ = $1; mlir_rule_flag(ctx, $$, $3, L(@3)); }
    | rule_body ','             { $$ = $1; mlir_rule_flag(ctx, $$, "", L(@2)); } /* Shardy's error */
    ;
factor_sizes
    : factor_size
    | factor_sizes ',' factor_size
    ;
factor_size
    : ATTR_KEY '=' INT          { if (!mlir_rule_size(ctx, ctx->rule, $1, mlir_int_value(ctx, $3, L(@3)), L(@1))) YYABORT; }
    ;
opt_factor_dim_lists: %empty { $$ = (MlirList){0}; } | factor_dim_lists ;
factor_dim_lists
    : factor_dims               { $$ = list_of(ctx, $1); }
    | factor_dim_lists ',' factor_dims { $$ = $1; PUSH($$, $3); }
    ;
factor_dims
    : '[' opt_dim_names ']'     { $$ = mlir_rule_dims(ctx, &$2, L(@1)); }
    ;
/* Shardy parses `[i,]` (an empty dim mapping after the comma) and its
 * verifier rejects it: "dim mapping must have at least one factor". */
opt_dim_names: %empty { $$ = (MlirList){0}; } | dim_names ;
dim_names
    : keyword                   { $$ = list_of(ctx, (void *)$1); ctx->rule_dim = $1; }
    | dim_names ',' keyword     { $$ = $1; PUSH($$, (void *)$3); ctx->rule_dim = $3; }
    | dim_names ','             { $$ = $1; PUSH($$, (void *)""); }
    ;
opt_keywords: %empty { $$ = (MlirList){0}; } | keywords ;
keywords
    : keyword                   { $$ = list_of(ctx, (void *)$1); }
    | keywords ',' keyword      { $$ = $1; PUSH($$, (void *)$3); }
    ;

opt_loc: %empty { $$ = NULL; } | LOC_TEXT { $$ = $1; } ;

%%

/* A token the scanner reads whole, as the token it starts with. */
static yysymbol_kind_t token_as_written(yysymbol_kind_t kind)
{
    if (kind == YYSYMBOL_SDY_SHARDING_READ)
        return YYSYMBOL_SDY_SHARDING;
    if (kind == YYSYMBOL_SDY_PER_VALUE_READ)
        return YYSYMBOL_SDY_PER_VALUE;
    if (kind == YYSYMBOL_DICT_BODY)
        return YYSYMBOL_ATTR_KEY;
    if (kind == YYSYMBOL_ARRAY_READ)
        return YYTRANSLATE('[');
    if (kind == YYSYMBOL_SIG_READ || kind == YYSYMBOL_TYPE_READ)
        return YYTRANSLATE(':');
    if (kind == YYSYMBOL_OP_READ)
        return YYSYMBOL_VALUE_ID;
    return kind;
}

static bool expects(const yysymbol_kind_t *all, int n, yysymbol_kind_t kind)
{
    for (int i = 0; i < n; i++)
        if (all[i] == kind)
            return true;
    return false;
}

/* Inside a sharding option or a rule, what Shardy's parser would say is
 * missing (its words: mlir_sdy_syntax_error), from what bison expected. */
static bool shardy_words(const yypcontext_t *yyctx, MlirParseCtx *ctx, yysymbol_kind_t unexpected)
{
    yysymbol_kind_t all[YYNTOKENS];
    int n = yypcontext_expected_tokens(yyctx, all, YYNTOKENS);
    Loc loc = L(*yypcontext_location(yyctx));
    SdyMissing what;
    if (ctx->shardy_reported) { /* said already: only counted */
        ctx->shardy_reported = false;
        ctx->syntax_errors++;
        return true;
    }
    if (ctx->rule_param && unexpected == YYSYMBOL_INT && ctx->rule_dim &&
             strcmp(ctx->rule_dim + strlen(ctx->rule_dim) - (strlen(ctx->rule_dim) >= 2 ? 2 : 0), "z_") == 0)
        what = SDY_MISSING_Z_INDEX;
    else if (expects(all, n, YYTRANSLATE('=')) ||
             (ctx->in_rule && !ctx->rule_param && expects(all, n, YYSYMBOL_ATTR_KEY) &&
              (unexpected == YYSYMBOL_BARE_ID || unexpected == YYSYMBOL_UNIT_KEY)))
        what = SDY_MISSING_EQUALS;
    else if (expects(all, n, YYSYMBOL_STRING))
        what = SDY_MISSING_STRING;
    else if (expects(all, n, YYTRANSLATE('{')))
        what = SDY_MISSING_LBRACE;
    else if (expects(all, n, YYTRANSLATE('}')))
        what = SDY_MISSING_RBRACE;
    else if (expects(all, n, YYTRANSLATE(']')))
        what = SDY_MISSING_RBRACKET;
    else
        return false;
    if (!mlir_sdy_syntax_error(ctx, loc, what))
        return false;
    ctx->syntax_errors++;
    return true;
}

/* bison's "detailed" message, "syntax error, unexpected X, expecting A or
 * B", which lists at most four expected tokens, with the tokens read whole
 * named as written: a token read whole is expected wherever the one it
 * starts with is, and listed once; inside sdy's attributes, Shardy's
 * words where its parser has its own (shardy_words). */
static int yyreport_syntax_error(const yypcontext_t *yyctx, MlirParseCtx *ctx)
{
    enum { MAX_LISTED = 4 };
    yysymbol_kind_t unexpected = yypcontext_token(yyctx);
    if (unexpected != YYSYMBOL_YYEMPTY && !ctx->lex_error_pending && shardy_words(yyctx, ctx, unexpected))
        return 0;
    char msg[512] = "syntax error";
    if (unexpected != YYSYMBOL_YYEMPTY) {
        yysymbol_kind_t all[YYNTOKENS], listed[MAX_LISTED + 1];
        int n_all = yypcontext_expected_tokens(yyctx, all, YYNTOKENS), n = 0;
        for (int i = 0; i < n_all && n <= MAX_LISTED; i++) {
            yysymbol_kind_t kind = token_as_written(all[i]);
            bool seen = false;
            for (int j = 0; j < n; j++)
                seen = seen || listed[j] == kind;
            if (!seen)
                listed[n++] = kind;
        }
        size_t len = strlen(msg);
        len += (size_t)snprintf(msg + len, sizeof msg - len, ", unexpected %s",
                                yysymbol_name(token_as_written(unexpected)));
        for (int i = 0; n <= MAX_LISTED && i < n && len < sizeof msg; i++)
            len += (size_t)snprintf(msg + len, sizeof msg - len, "%s%s", i ? " or " : ", expecting ",
                                    yysymbol_name(listed[i]));
    }
    mlir_yyerror(yypcontext_location(yyctx), ctx, msg);
    return 0;
}

static void mlir_yyerror(MLIR_YYLTYPE *lloc, MlirParseCtx *ctx, const char *msg)
{
    ctx->syntax_errors++;
    if (ctx->lex_error_pending)
        return;
    diag_error(ctx->diag, L(*lloc), "%s", msg);
}
