/* Diagnostics: every error, warning and note is reported as
 *   file:line:col: error: message
 *   <the source line>
 *       ^
 * through a DiagEngine, which owns no global state. */
#ifndef SHARDC_DIAG_H
#define SHARDC_DIAG_H
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

/* A source position; line and col are 1-based, col counts bytes. line == 0
 * means "no position" (e.g. command-line input without a file). */
typedef struct Loc {
    const char *file;
    int line, col;
} Loc;

typedef enum { DIAG_ERROR, DIAG_WARNING, DIAG_NOTE } DiagLevel;

/* A registered source text, so a diagnostic can quote its line. */
typedef struct DiagSource {
    const char *name;
    const char *text;
    size_t len;
    /* The line last quoted and where it starts in text (diag.c, line_start). */
    int mark_line;
    size_t mark_offset;
    /* Released (diag_release_source): text is NULL until a diagnostic
     * quotes a line; then the file at reload_path is read again into
     * reloaded, if it still has len bytes. */
    const char *reload_path;
    char *reloaded;
    struct DiagSource *next;
} DiagSource;

/* Takes each diagnostic instead of printing it (mlir-opt's
 * -verify-diagnostics matches them against the input's annotations). */
typedef void (*DiagSink)(void *user, DiagLevel level, Loc loc, const char *message);

/* What warnings become: shown (the default), dropped (-w), or errors
 * (-Werror, marked "[-Werror]"). */
typedef enum { DIAG_WARNINGS_SHOW, DIAG_WARNINGS_IGNORE, DIAG_WARNINGS_ERROR } DiagWarnings;

struct DiagSeen;

typedef struct DiagEngine {
    FILE *out;          /* where diagnostics go (stderr by default) */
    DiagSink sink;      /* set: diagnostics go to it, not to out */
    void *sink_user;
    DiagSource *sources;
    int errors, warnings;
    int max_errors;     /* stop reporting after this many (0 = unlimited) */
    DiagWarnings warnings_as;
    /* Warnings reported: one cause (place and message) is said once, however
     * many stages meet it (`shardc run` compiles a file twice). */
    struct DiagSeen *seen;
    bool dropping_notes; /* the notes of a warning not shown */
} DiagEngine;

void diag_init(DiagEngine *diag, FILE *out);
void diag_free(DiagEngine *diag);
/* Register a source text under a file name; text must outlive the engine. */
void diag_add_source(DiagEngine *diag, const char *name, const char *text, size_t len);
/* The caller frees the text registered under name: a later diagnostic
 * quotes its line from the file at path, read again on demand. A compile
 * keeps no copy of its input after parsing (about 80 bytes an op). */
void diag_release_source(DiagEngine *diag, const char *name, const char *path);
void diag_report(DiagEngine *diag, DiagLevel level, Loc loc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void diag_vreport(DiagEngine *diag, DiagLevel level, Loc loc, const char *fmt, va_list ap);
void diag_error(DiagEngine *diag, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void diag_warning(DiagEngine *diag, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void diag_note(DiagEngine *diag, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A location `offset` bytes to the right of loc on the same line (for
 * positions inside a string literal such as a rule string). */
Loc loc_offset(Loc loc, int offset);

#endif
