/* The .shir grammar (docs/language.md has it in EBNF). A pure, reentrant
 * parser; actions only collect syntax and hand it to the builder
 * (src/front/build.c), which creates IR and reports semantic errors. */
%require "3.8"
%define api.pure full
%define parse.error detailed
%locations
/* One conflict, resolved by shifting: an op with no operands and no
 * written result types (`%z = zeros`) could end before a value name that
 * starts the next op; shifting reads it as an operand. Such ops (zeros,
 * full, constant, iota) cannot have their types inferred anyway, so they
 * keep `: type`, and every program valid before result types were
 * optional parses as before. */
%expect 1
%parse-param {ParseCtx *ctx}
%lex-param {ParseCtx *ctx}

%code requires {
#include <stdint.h>
#include "front/parse_ctx.h"
}

%code {
#include <string.h>
int shir_lex(YYSTYPE *lval, YYLTYPE *lloc, void *scanner);
/* A LEX_ERROR token was reported by the scanner; the syntax error it causes
 * is not. Any other token ends that, so an error later in the file (perhaps
 * while the parser was discarding tokens in recovery) is reported. */
static int yylex(YYSTYPE *lval, YYLTYPE *lloc, ParseCtx *ctx)
{
    int token = shir_lex(lval, lloc, ctx->scanner);
    if (token != LEX_ERROR)
        ctx->lex_error_pending = false;
    return token;
}
static void yyerror(YYLTYPE *lloc, ParseCtx *ctx, const char *msg);
#define L(yyl) ((Loc){ctx->file, (yyl).first_line, (yyl).first_column})
#define PUSH(list, item) arena_list_push(&ctx->syntax, &(list), (item))
/* a syntax node, freed with the parse (parse_ctx.h) */
#define SYNTAX_NEW(T) ARENA_NEW(&ctx->syntax, T)
}

%union {
    int64_t i;
    double f;
    const char *s;
    const Word *word;
    PtrList list;
    TensorType *type;
    AttrValue *attr;
    NamedAttr *named;
    Block *block;
    Value *value;
    DimSyntax *dim;
    AxisRefSyntax *axis_ref;
    MeshItemSyntax *mesh_item;
    FuncResultSyntax *result;
    ShardingOptsSyntax *sharding_opts;
    bool flag;
}

%token MESH "'mesh'" FUNC "'func'" RETURN "'return'" TRUE "'true'" FALSE "'false'"
%token EXPLICIT "'explicit'" AUTO "'auto'" ARROW "'->'" LEX_ERROR "invalid token"
%token <i> INT "integer"
%token <f> FLOAT "float"
/* (in this order: the expected tokens a syntax error lists follow it) */
%token <s> STRING "string"
%token <word> IDENT "identifier"
%token <s> VALUE_ID "value name" SYMBOL "symbol"
%token <type> TYPE "type"

%type <list> mesh_items int_list opt_int_list opt_args args opt_func_results func_results
%type <list> value_uses opt_value_uses result_names operand_part types opt_result_types named_attrs opt_attr_dict
%type <list> attr_dict attr_values dims opt_dims axis_refs
%type <sharding_opts> sharding_opts
%type <mesh_item> mesh_item
%type <flag> axis_kind
%type <type> type
%type <value> value_use
%type <attr> attr_value sharding
%type <named> named_attr
%type <block> region
%type <list> regions
%type <dim> dim dim_axes
%type <axis_ref> axis_ref
%type <result> func_result
%type <i> opt_priority
%type <s> opt_string
%type <word> attr_name

%%

module
    : %empty
    | module item           { parse_release_syntax(ctx); }
    | module error          { build_abandon_func(ctx); }
    ;

item: mesh_decl | func_decl ;

/* ---- meshes ---- */
mesh_decl
    : MESH SYMBOL '=' '<' mesh_items '>'   { build_mesh(ctx, $2, L(@2), &$5); }
    | MESH SYMBOL '=' '<' '>'              { PtrList none = {0}; build_mesh(ctx, $2, L(@2), &none); }
    ;
mesh_items
    : mesh_item                     { $$ = (PtrList){0}; PUSH($$, $1); }
    | mesh_items ',' mesh_item      { $$ = $1; PUSH($$, $3); }
    ;
mesh_item
    : STRING '=' INT axis_kind {
          $$ = SYNTAX_NEW(MeshItemSyntax);
          $$->axis_name = $1; $$->size = $3; $$->is_explicit = $4; $$->loc = L(@1);
      }
    | IDENT '=' '[' opt_int_list ']' {
          $$ = SYNTAX_NEW(MeshItemSyntax);
          $$->axis_name = NULL; $$->device_ids = $4; $$->loc = L(@1);
          if (strcmp($1->text, "device_ids") != 0)
              diag_error(ctx->diag, L(@1), "expected an axis \"name\"=size or device_ids=[...], got '%s'", $1->text);
      }
    ;
axis_kind: %empty { $$ = false; } | AUTO { $$ = false; } | EXPLICIT { $$ = true; } ;
opt_int_list: %empty { $$ = (PtrList){0}; } | int_list ;
int_list
    : INT               { $$ = (PtrList){0}; int64_t *v = SYNTAX_NEW(int64_t); *v = $1; PUSH($$, v); }
    | int_list ',' INT  { $$ = $1; int64_t *v = SYNTAX_NEW(int64_t); *v = $3; PUSH($$, v); }
    ;

/* ---- functions ---- */
func_decl
    : FUNC SYMBOL { build_begin_func(ctx, $2, L(@2)); }
      '(' opt_args ')' opt_func_results '{' { build_func_results(ctx, &$7); } body '}'   { build_end_func(ctx); }
    ;
opt_args: %empty { $$ = (PtrList){0}; } | args ;
args
    : VALUE_ID ':' type opt_attr_dict               { $$ = (PtrList){0}; PUSH($$, build_block_arg(ctx, $1, L(@1), $3, &$4)); }
    | args ',' VALUE_ID ':' type opt_attr_dict      { $$ = $1; PUSH($$, build_block_arg(ctx, $3, L(@3), $5, &$6)); }
    ;
opt_func_results
    : %empty                            { $$ = (PtrList){0}; }
    | ARROW type                        {
          $$ = (PtrList){0};
          FuncResultSyntax *r = SYNTAX_NEW(FuncResultSyntax);
          r->type = $2; r->loc = L(@2); PUSH($$, r);
      }
    | ARROW '(' ')'                     { $$ = (PtrList){0}; }
    | ARROW '(' func_results ')'        { $$ = $3; }
    ;
func_results
    : func_result                   { $$ = (PtrList){0}; PUSH($$, $1); }
    | func_results ',' func_result  { $$ = $1; PUSH($$, $3); }
    ;
func_result
    : type opt_attr_dict {
          $$ = SYNTAX_NEW(FuncResultSyntax);
          $$->type = $1; $$->attrs = $2; $$->loc = L(@1);
      }
    ;

body: ops RETURN opt_value_uses    { build_return(ctx, &$3, L(@2)); } ;
ops: %empty | ops op ;

op
    : result_names '=' IDENT { ctx->control_flow_op = build_is_control_flow($3); }
      opt_string operand_part opt_attr_dict regions opt_result_types {
          OpSyntax syntax = {0};
          syntax.result_names = $1;
          syntax.name = $3; syntax.name_loc = L(@3);
          syntax.str = $5; syntax.str_loc = L(@5);
          syntax.operands = $6;
          syntax.attrs = $7;
          build_reverse(&$8);
          syntax.region = $8.count ? $8.items[0] : NULL;
          syntax.regions = (PtrList){$8.count ? $8.count - 1 : 0, 0, $8.count ? $8.items + 1 : NULL};
          syntax.types = $9;
          if (ctx->pending_callee) {
              syntax.callee = ctx->pending_callee; syntax.callee_loc = ctx->pending_callee_loc;
              ctx->pending_callee = NULL;
          }
          build_op(ctx, &syntax);
          parse_release_syntax(ctx);
      }
    /* result-less: `sharding_group %x {group_id = 0}` */
    | IDENT value_uses opt_attr_dict {
          OpSyntax syntax = {0};
          syntax.name = $1; syntax.name_loc = L(@1);
          syntax.operands = $2;
          syntax.attrs = $3;
          build_op(ctx, &syntax);
          parse_release_syntax(ctx);
      }
    ;
result_names
    : VALUE_ID {
          $$ = (PtrList){0};
          NameRef *n = SYNTAX_NEW(NameRef); n->name = $1; n->loc = L(@1); PUSH($$, n);
      }
    | result_names ',' VALUE_ID {
          $$ = $1;
          NameRef *n = SYNTAX_NEW(NameRef); n->name = $3; n->loc = L(@3); PUSH($$, n);
      }
    ;
opt_string: %empty { $$ = NULL; } | STRING ;
operand_part
    : opt_value_uses
    | SYMBOL '(' opt_value_uses ')' {
          $$ = $3; ctx->pending_callee = $1; ctx->pending_callee_loc = L(@1);
      }
    ;
opt_value_uses: %empty { $$ = (PtrList){0}; } | value_uses ;
value_uses
    : value_use                 { $$ = (PtrList){0}; PUSH($$, $1); }
    | value_uses ',' value_use  { $$ = $1; PUSH($$, $3); }
    ;
value_use: VALUE_ID             { $$ = build_use(ctx, $1, L(@1)); } ;

/* shard_map has one region; while (cond, body) and case (a branch each)
 * more. Right-recursive, so no region is a default reduction (as it was
 * before control flow: the syntax errors expecting ':' stay so); the list
 * comes out last region first. */
regions
    : %empty            { $$ = (PtrList){0}; }
    | region regions    { $$ = $2; PUSH($$, $1); }
    ;
region
    : '(' {
          if (!parse_enter_nesting(ctx, L(@1)))
              YYABORT;
          $<block>$ = build_begin_region(ctx);
      } opt_args ')' '{' body '}'
          { $$ = build_end_region(ctx, $<block>2); ctx->nesting--; }
    ;

/* Result types may be left out where the operands and attributes give
 * them (src/front/infer.c). */
opt_result_types
    : %empty            { $$ = (PtrList){0}; }
    | ':' types         { $$ = $2; }
    ;
types
    : type              { $$ = (PtrList){0}; PUSH($$, $1); }
    | types ',' type    { $$ = $1; PUSH($$, $3); }
    ;
type
    : TYPE
    | IDENT '[' opt_int_list ']'   { $$ = build_type(ctx, $1, L(@1), &$3); }
    ;

/* ---- attributes ---- */
opt_attr_dict: %empty { $$ = (PtrList){0}; } | attr_dict ;
attr_dict
    : dict_open '}'               { $$ = (PtrList){0}; ctx->nesting--; }
    | dict_open named_attrs '}'   { $$ = $2; ctx->nesting--; }
    ;
/* Nesting is limited so hostile input cannot exhaust the parser's stack
 * (or the recursion of the printer and verifier). */
dict_open: '{'  { if (!parse_enter_nesting(ctx, L(@1))) YYABORT; } ;
array_open: '[' { if (!parse_enter_nesting(ctx, L(@1))) YYABORT; } ;
named_attrs
    : named_attr                    { $$ = (PtrList){0}; PUSH($$, $1); }
    | named_attrs ',' named_attr    { $$ = $1; PUSH($$, $3); }
    ;
named_attr: attr_name '=' attr_value   { $$ = build_named_attr(ctx, $1, L(@1), $3); } ;
/* Keywords are fine as attribute names: {mesh = @m}. */
attr_name
    : IDENT
    | MESH      { $$ = parse_word(ctx, "mesh", 4); }
    | FUNC      { $$ = parse_word(ctx, "func", 4); }
    | RETURN    { $$ = parse_word(ctx, "return", 6); }
    | EXPLICIT  { $$ = parse_word(ctx, "explicit", 8); }
    | AUTO      { $$ = parse_word(ctx, "auto", 4); }
    ;
attr_value
    : INT       { $$ = attr_new(ctx->arena, ATTR_INT, L(@1)); $$->u.i = $1; }
    | FLOAT     { $$ = attr_new(ctx->arena, ATTR_FLOAT, L(@1)); $$->u.f = $1; }
    | STRING    { $$ = attr_new(ctx->arena, ATTR_STRING, L(@1)); $$->u.s = $1; }
    | SYMBOL    { $$ = attr_new(ctx->arena, ATTR_SYMBOL, L(@1)); $$->u.s = $1; }
    | TRUE      { $$ = attr_new(ctx->arena, ATTR_BOOL, L(@1)); $$->u.b = true; }
    | FALSE     { $$ = attr_new(ctx->arena, ATTR_BOOL, L(@1)); $$->u.b = false; }
    | array_open ']'   { $$ = attr_new(ctx->arena, ATTR_ARRAY, L(@1)); ctx->nesting--; }
    | array_open attr_values ']' {
          $$ = attr_new(ctx->arena, ATTR_ARRAY, L(@1));
          $$->u.array.count = $2.count;
          $$->u.array.items = arena_memdup(ctx->arena, $2.items, (size_t)$2.count, sizeof(AttrValue *));
          ctx->nesting--;
      }
    | attr_dict {
          $$ = attr_new(ctx->arena, ATTR_DICT, L(@1));
          $$->u.dict.count = $1.count;
          $$->u.dict.items = ARENA_ARRAY(ctx->arena, NamedAttr, $1.count);
          for (int k = 0; k < $1.count; k++) {
              $$->u.dict.items[k] = *(NamedAttr *)$1.items[k];
              $$->u.dict.items[k].key = ATTR_KEY_NONE; /* only an op's attributes have keys */
          }
      }
    | sharding
    ;
attr_values
    : attr_value                    { $$ = (PtrList){0}; PUSH($$, $1); }
    | attr_values ',' attr_value    { $$ = $1; PUSH($$, $3); }
    ;

/* ---- shardings ---- */
sharding
    : '<' SYMBOL ',' '[' opt_dims ']' sharding_opts '>'
          { $$ = build_sharding_attr(ctx, $2, L(@1), &$5, $7); }
    ;
opt_dims: %empty { $$ = (PtrList){0}; } | dims ;
dims
    : dim           { $$ = (PtrList){0}; PUSH($$, $1); }
    | dims ',' dim  { $$ = $1; PUSH($$, $3); }
    ;
dim: '{' dim_axes '}' opt_priority    { $$ = $2; $$->priority = (int)$4; $$->loc = L(@1); } ;
dim_axes
    : %empty                { $$ = SYNTAX_NEW(DimSyntax); }
    | '?'                   { $$ = SYNTAX_NEW(DimSyntax); $$->is_open = true; }
    | axis_refs             { $$ = SYNTAX_NEW(DimSyntax); $$->axes = $1; }
    | axis_refs ',' '?'     { $$ = SYNTAX_NEW(DimSyntax); $$->axes = $1; $$->is_open = true; }
    ;
opt_priority
    : %empty    { $$ = PRIORITY_NONE; }
    | IDENT     { $$ = parse_priority(ctx, $1->text, L(@1)); }
    ;
axis_refs
    : axis_ref                  { $$ = (PtrList){0}; PUSH($$, $1); }
    | axis_refs ',' axis_ref    { $$ = $1; PUSH($$, $3); }
    ;
axis_ref
    : STRING {
          $$ = SYNTAX_NEW(AxisRefSyntax); $$->name = $1; $$->loc = L(@1);
      }
    | STRING ':' '(' INT ')' INT {
          $$ = SYNTAX_NEW(AxisRefSyntax); $$->name = $1; $$->loc = L(@1);
          $$->pre_size = $4; $$->size = $6; $$->sub = true;
      }
    ;
/* `, replicated={"y"}, unreduced={"z"}` (`unreduced=max{...}`: how the
 * partial values combine; sum unless written). */
sharding_opts
    : %empty    { $$ = SYNTAX_NEW(ShardingOptsSyntax); }
    | sharding_opts ',' IDENT '=' '{' axis_refs '}' {
          $$ = $1; build_sharding_option(ctx, $$, $3->text, L(@3), NULL, L(@3), &$6);
      }
    | sharding_opts ',' IDENT '=' IDENT '{' axis_refs '}' {
          $$ = $1; build_sharding_option(ctx, $$, $3->text, L(@3), $5->text, L(@5), &$7);
      }
    ;

%%

static void yyerror(YYLTYPE *lloc, ParseCtx *ctx, const char *msg)
{
    ctx->syntax_errors++;
    if (ctx->lex_error_pending) {
        ctx->lex_error_pending = false;
        return;
    }
    /* Where an op may start, an identifier starts a result-less op
     * (sharding_group); the message names the usual starts only. */
    static const char extra[] = " or identifier or value name";
    const char *at = strstr(msg, extra);
    /* `%z = zeros` then `%y = ...`: %y read as an operand of zeros;
     * `%y = neg %x f32[4]`: a type where the op may end (or, the type
     * spaced, f32 read as the next op's name) */
    static const char result_type_hint[] = " (a result type follows ':': `%y = neg %x : f32[4]`)";
    bool type_unexpected = strstr(msg, "unexpected type") != NULL;
    const char *hint = type_unexpected ? result_type_hint
                       : strstr(msg, "unexpected '='") ? " (an op without operands keeps its result type: "
                                                         "`%z = zeros : f32[8]`)" : "";
    if (at && strstr(msg, "expecting 'return'"))
        diag_error(ctx->diag, L(*lloc), "%.*s or value name%s%s", (int)(at - msg), msg, at + sizeof extra - 1, hint);
    else if (type_unexpected || (strstr(msg, "unexpected '['") && strstr(msg, "expecting value name")))
        diag_error(ctx->diag, L(*lloc), "%s%s", msg, result_type_hint);
    else
        diag_error(ctx->diag, L(*lloc), "%s", msg);
}
