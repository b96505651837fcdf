/* -split-input-file, for `shardc` and `shardc opt`: a text cut at its
 * separator lines into chunks compiled one by one, each padded with the
 * newlines of the chunks before it so that every diagnostic carries the
 * line number of the original file (as mlir-opt does). */
#include <string.h>
#include "cli.h"
#include "shardc/mlir.h"

static bool is_separator(const char *q, bool hash)
{
    return strncmp(q, "// -----", 8) == 0 || (hash && strncmp(q, "# -----", 7) == 0);
}

static const char *next_line(const char *q, const char *end)
{
    const char *nl = memchr(q, '\n', (size_t)(end - q));
    return nl ? nl + 1 : end;
}

char *cli_split_next(Arena *arena, const char **p, const char *end, int *line, size_t *len, bool hash)
{
    const char *start = *p, *q = start;
    while (q < end && !is_separator(q, hash))
        q = next_line(q, end);
    size_t n = (size_t)(q - start);
    char *chunk = arena_alloc(arena, (size_t)*line + n + 1);
    memset(chunk, '\n', (size_t)*line);
    memcpy(chunk + *line, start, n);
    chunk[*line + n] = '\0';
    *len = (size_t)*line + n;
    for (size_t i = 0; i < n; i++)
        *line += start[i] == '\n';
    *p = q < end ? next_line(q, end) : end;
    *line += q < end;
    return chunk;
}

bool cli_verify_diagnostics(const char *name, const char *text, size_t len, DiagEngine *report, CliChunkFn compile,
                            void *user)
{
    Arena arena;
    arena_init(&arena);
    MlirExpectations *e = mlir_expect_parse(&arena, name, text, len);
    DiagEngine diag;
    diag_init(&diag, stderr);
    diag.max_errors = 0;
    mlir_expect_begin(e, &diag, report);
    compile(user, &diag, name, text, len);
    bool ok = mlir_expect_finish(e);
    diag_free(&diag);
    arena_free(&arena);
    return ok;
}
