/* mlir_read_module: MLIR text to IR, parsed (parse.c) and imported
 * (import.c) op by op. The ops of a function body go into the IR a batch
 * of STREAM_BATCH at a time, as soon as the parser has read them, and the
 * memory of their AST is reused two batches later: the AST of the whole
 * module alive during the import doubled the memory, and the page faults,
 * of reading a module (bench/mlir.sh).
 *
 * What cannot be read so is read again the plain way, the whole AST then
 * the import, which reports errors as it always did: any error (the
 * streamed attempt reports nothing), a mesh declared after a function
 * (the functions before it may name it), a function declaration, a body
 * with block labels, an op outside a function, an op after func.return,
 * and GSPMD strings whose mesh needs every string of the module
 * (mlir_imp_gspmd_prepare). */
#include <string.h>
#include "mlir/import_internal.h"
#include "mlir/mlir_parse_ctx.h"
#include "shardc/mlir.h"

/* Ops are imported a batch at a time: reading an op and importing it
 * each ran more code than the instruction cache holds, and, one after the
 * other, each evicted the other's (callgrind --cache-sim=yes). */
enum { STREAM_BATCH = 32 };

/* A module being read op by op. */
struct MlirStream {
    ImportCtx ic;
    Arena *module_arena;    /* the AST outside function bodies */
    /* The body's AST: the batch being read (current), and the one before */
    Arena body[2];
    int current;
    bool funcs_begun;
    const MlirOp *pending[STREAM_BATCH];   /* read, in current, not imported yet */
    int num_pending;
};

static bool stream_ok(const MlirStream *s)
{
    return s->ic.diag->errors == 0 && !s->ic.needs_whole_module;
}

bool mlir_stream_mesh(MlirParseCtx *ctx, MlirMeshDecl *decl)
{
    MlirStream *s = ctx->stream;
    if (!s)
        return true;
    if (s->funcs_begun)
        return false;
    mlir_imp_mesh(&s->ic, decl);
    return stream_ok(s);
}

/* An arena whose contents are done with, to be filled again. Under
 * AddressSanitizer it is freed, not kept: a pointer into it kept past
 * this point is then reported (make check-asan). */
void mlir_reuse_arena(Arena *arena)
{
#if defined(__SANITIZE_ADDRESS__)
    arena_free(arena);
    arena_init(arena);
#else
    arena_reset(arena);
#endif
}

/* The names parse_sdy_fast.c reuses were copied into the arena left. */
static void use_arena(MlirParseCtx *ctx, Arena *arena)
{
    ctx->arena = arena;
    ctx->fast_axis_name = ctx->fast_mesh_name = NULL;
}

/* The header of a function goes to the arena of the body's second op: a
 * module's function headers, the arguments of every layer, made a tenth
 * of the memory of reading it. */
void mlir_stream_func_header(MlirParseCtx *ctx)
{
    MlirStream *s = ctx->stream;
    if (!s)
        return;
    mlir_reuse_arena(&s->body[1]);
    use_arena(ctx, &s->body[1]);
}

bool mlir_stream_func_begin(MlirParseCtx *ctx, MlirFunc *func)
{
    MlirStream *s = ctx->stream;
    if (!s)
        return true;
    s->funcs_begun = true;
    mlir_imp_stream_func(&s->ic, func);
    *func = (MlirFunc){.loc = func->loc};
    mlir_reuse_arena(&s->body[0]);
    mlir_reuse_arena(&s->body[1]);
    s->current = 0;
    use_arena(ctx, &s->body[0]);
    return stream_ok(s);
}

/* Imports the ops read and not imported yet, up to the first failure. */
static bool import_pending(MlirStream *s)
{
    bool ok = true;
    for (int i = 0; ok && i < s->num_pending; i++)
        ok = mlir_imp_stream_op(&s->ic, s->pending[i]) && stream_ok(s);
    s->num_pending = 0;
    return ok;
}

/* The parser reads one token ahead: the next op's first token went to
 * the current arena with the rest of this batch, and this batch's first
 * token to the other one, with the batch before, which is now free. */
bool mlir_stream_op(MlirParseCtx *ctx, MlirList *ops, MlirOp *op)
{
    MlirStream *s = ctx->stream;
    if (!s) {
        arena_list_push(ctx->arena, ops, op);
        return true;
    }
    s->pending[s->num_pending++] = op;
    if (s->num_pending < STREAM_BATCH)
        return true;
    bool ok = import_pending(s);
    s->current = 1 - s->current;
    mlir_reuse_arena(&s->body[s->current]);
    use_arena(ctx, &s->body[s->current]);
    return ok;
}

/* Called on the body's `}`, before the parser reads past it. */
bool mlir_stream_func_end(MlirParseCtx *ctx)
{
    MlirStream *s = ctx->stream;
    if (!s)
        return true;
    bool ok = import_pending(s);
    use_arena(ctx, s->module_arena);
    return ok && mlir_imp_stream_func_end(&s->ic) && stream_ok(s);
}

static void ignore_diag(void *user, DiagLevel level, Loc loc, const char *message)
{
    (void)user, (void)level, (void)loc, (void)message;
}

static bool has_top_level_op(const MlirModule *ast)
{
    for (int i = 0; i < ast->items.count; i++)
        if (((const MlirItem *)ast->items.items[i])->kind == MT_ITEM_OP)
            return true;
    return false;
}

Module *mlir_read_streamed(const char *file, const char *text, size_t len)
{
    DiagEngine quiet;
    diag_init(&quiet, NULL);
    quiet.sink = ignore_diag;
    quiet.max_errors = 0;
    Arena module_arena;
    arena_init(&module_arena);
    MlirStream *s = ARENA_NEW(&module_arena, MlirStream);
    s->module_arena = &module_arena;
    arena_init(&s->body[0]);
    arena_init(&s->body[1]);
    mlir_imp_begin(&s->ic, file, &quiet);
    MlirModule *ast = mlir_parse(&module_arena, &quiet, file, text, len, s);
    Module *m = NULL;
    if (ast && stream_ok(s) && !has_top_level_op(ast))
        m = mlir_imp_finish(&s->ic, ast);
    else
        mlir_imp_abandon(&s->ic);
    arena_free(&s->body[0]);
    arena_free(&s->body[1]);
    arena_free(&module_arena);
    diag_free(&quiet);
    return m;
}

/* MLIR text holds no NUL byte (MLIR's own lexer stops at one). Inside a
 * string or a kept attribute's text one would cut what is printed back
 * short (found by fuzz_mlir: tests/mlir/err_nul_byte.test). */
static bool has_nul(const char *file, const char *text, size_t len, DiagEngine *diag)
{
    const char *nul = memchr(text, '\0', len);
    if (!nul)
        return false;
    int line = 1, col = 1;
    for (const char *p = text; p < nul; p++) {
        col = *p == '\n' ? 1 : col + 1;
        line += *p == '\n';
    }
    diag_error(diag, (Loc){file, line, col}, "unexpected NUL byte");
    return true;
}

Module *mlir_read_module(const char *file, const char *text, size_t len, DiagEngine *diag)
{
    return mlir_read_module_with(file, text, len, NULL, diag);
}

/* The streamed reader refuses what it does not know, unregistered ops
 * among them: the whole one, which reads them when allowed, follows. */
Module *mlir_read_module_with(const char *file, const char *text, size_t len, const MlirReadOptions *options,
                              DiagEngine *diag)
{
    if (has_nul(file, text, len, diag))
        return NULL;
    Module *m = mlir_read_streamed(file, text, len);
    m = m ? m : mlir_read_whole(file, text, len, options, diag);
    if (m && !(options && options->allow_dynamic) &&
        !mlir_check_shapes(m, MLIR_SHAPES_STATIC, "shardc's compiler", false, diag)) {
        module_free(m);
        return NULL;
    }
    return m;
}

Module *mlir_read_whole(const char *file, const char *text, size_t len, const MlirReadOptions *options,
                        DiagEngine *diag)
{
    Arena scratch;
    arena_init(&scratch);
    MlirModule *ast = mlir_parse(&scratch, diag, file, text, len, NULL);
    Module *m = ast ? mlir_import(ast, file, options, diag) : NULL;
    arena_free(&scratch);
    return m;
}
