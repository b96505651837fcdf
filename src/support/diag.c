#include "shardc/diag.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *const level_names[] = {"error", "warning", "note"};

/* A warning said: its place and text, copied (loc.file points at the
 * copy). The engine may outlive the module whose names a Loc points into. */
struct DiagSeen {
    struct DiagSeen *next;
    Loc loc;
    char message[];
};

void diag_init(DiagEngine *diag, FILE *out)
{
    memset(diag, 0, sizeof *diag);
    diag->out = out ? out : stderr;
    diag->max_errors = 50;
}

void diag_free(DiagEngine *diag)
{
    DiagSource *src = diag->sources;
    while (src) {
        DiagSource *next = src->next;
        free(src->reloaded);
        free(src);
        src = next;
    }
    diag->sources = NULL;
    while (diag->seen) {
        struct DiagSeen *next = diag->seen->next;
        free(diag->seen);
        diag->seen = next;
    }
}

void diag_add_source(DiagEngine *diag, const char *name, const char *text, size_t len)
{
    DiagSource *src = calloc(1, sizeof *src);
    if (!src)
        return; /* quoting source lines is a nicety; losing it is harmless */
    src->name = name;
    src->text = text;
    src->len = len;
    src->next = diag->sources;
    diag->sources = src;
}

static DiagSource *find_source(const DiagEngine *diag, const char *name)
{
    for (DiagSource *s = diag->sources; s; s = s->next)
        if (name && s->name && strcmp(s->name, name) == 0)
            return s;
    return NULL;
}

void diag_release_source(DiagEngine *diag, const char *name, const char *path)
{
    DiagSource *src = find_source(diag, name);
    if (!src)
        return;
    src->text = NULL;
    src->reload_path = path;
    src->mark_line = 0;
}

/* A released source read again, whole, when a diagnostic first quotes it.
 * A file whose size changed since it was parsed is not quoted: its lines
 * may no longer be the ones the locations point at. */
static bool reload_source(DiagSource *src)
{
    FILE *in = src->reload_path ? fopen(src->reload_path, "rb") : NULL;
    src->reload_path = NULL; /* one attempt */
    if (!in)
        return false;
    char *buf = src->len < SIZE_MAX ? malloc(src->len + 1) : NULL;
    size_t got = buf ? fread(buf, 1, src->len + 1, in) : 0;
    fclose(in);
    if (got != src->len) {
        free(buf);
        return false;
    }
    src->text = src->reloaded = buf;
    return true;
}

/* Print the quoted source line and a caret under the column. Tabs are kept
 * in the padding so the caret lines up in a terminal. */
/* The start of line `target` of src, or the text's end if it has fewer
 * lines. Diagnostics come mostly in line order, so the search starts at
 * the line found last when it can: scanning from the top for each of many
 * errors made a long file's diagnostics quadratic (fuzz_parse). */
static const char *line_start(DiagSource *src, int target)
{
    if (src->mark_line < 1 || target < src->mark_line) {
        src->mark_line = 1;
        src->mark_offset = 0;
    }
    const char *p = src->text + src->mark_offset, *end = src->text + src->len;
    int line = src->mark_line;
    for (; line < target && p < end; p++)
        if (*p == '\n')
            line++;
    if (line == target) {
        src->mark_line = line;
        src->mark_offset = (size_t)(p - src->text);
    }
    return p;
}

static void quote_line(const DiagEngine *diag, Loc loc)
{
    DiagSource *src = find_source(diag, loc.file);
    if (!src || loc.line <= 0 || (!src->text && !reload_source(src)))
        return;
    const char *p = line_start(src, loc.line), *end = src->text + src->len;
    if (p >= end && loc.line > 1)
        return;
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    if (!eol)
        eol = end;
    if (eol > p && eol[-1] == '\r')
        eol--; /* CRLF files: a stray \r would hide the line in a terminal */
    fwrite(p, 1, (size_t)(eol - p), diag->out); /* not %.*s: a NUL byte would cut the line */
    fputc('\n', diag->out);
    for (int i = 1; i < loc.col && p + i - 1 < eol; i++)
        fputc(p[i - 1] == '\t' ? '\t' : ' ', diag->out);
    fputs("^\n", diag->out);
}

/* Whether the warning was said before; remembers it if not. */
static bool seen_before(DiagEngine *diag, Loc loc, const char *message)
{
    for (const struct DiagSeen *s = diag->seen; s; s = s->next)
        if (s->loc.line == loc.line && s->loc.col == loc.col && strcmp(s->message, message) == 0 &&
            (s->loc.file == loc.file || (s->loc.file && loc.file && strcmp(s->loc.file, loc.file) == 0)))
            return true;
    size_t len = strlen(message) + 1, file_len = loc.file ? strlen(loc.file) + 1 : 0;
    struct DiagSeen *s = malloc(sizeof *s + len + file_len);
    if (s) {
        s->loc = loc;
        memcpy(s->message, message, len);
        if (loc.file)
            s->loc.file = memcpy(s->message + len, loc.file, file_len);
        s->next = diag->seen;
        diag->seen = s;
    }
    return false;
}

/* -w, a repeated warning, and their notes: not reported. -Werror: a
 * warning becomes an error. Returns whether to report it, at *level. */
static bool filter(DiagEngine *diag, DiagLevel *level, Loc loc, const char *message)
{
    if (*level == DIAG_NOTE)
        return !diag->dropping_notes;
    diag->dropping_notes = *level == DIAG_WARNING &&
                           (diag->warnings_as == DIAG_WARNINGS_IGNORE || seen_before(diag, loc, message));
    if (*level == DIAG_WARNING && diag->warnings_as == DIAG_WARNINGS_ERROR)
        *level = DIAG_ERROR;
    return !diag->dropping_notes;
}

static void print(DiagEngine *diag, DiagLevel level, Loc loc, const char *message, bool werror)
{
    if (loc.file && loc.line > 0)
        fprintf(diag->out, "%s:%d:%d: ", loc.file, loc.line, loc.col);
    else if (loc.file)
        fprintf(diag->out, "%s: ", loc.file);
    else
        fputs("shardc: ", diag->out);
    fprintf(diag->out, "%s: %s%s\n", level_names[level], message, werror ? " [-Werror]" : "");
    quote_line(diag, loc);
}

static void report(DiagEngine *diag, DiagLevel level, Loc loc, const char *message, bool werror)
{
    if (level == DIAG_ERROR) {
        diag->errors++;
        if (diag->max_errors && diag->errors > diag->max_errors) {
            if (diag->errors == diag->max_errors + 1)
                fprintf(diag->out, "shardc: too many errors, stopping\n");
            return;
        }
    } else if (level == DIAG_WARNING) {
        diag->warnings++;
    }
    if (diag->sink)
        diag->sink(diag->sink_user, level, loc, message);
    else
        print(diag, level, loc, message, werror);
}

void diag_vreport(DiagEngine *diag, DiagLevel level, Loc loc, const char *fmt, va_list ap)
{
    /* An error past the cut-off is counted, not formatted: for a flood of
     * them (garbage input) formatting was most of the work (fuzz_parse). */
    if (level == DIAG_ERROR && diag->max_errors && diag->errors >= diag->max_errors) {
        diag->dropping_notes = false;
        report(diag, level, loc, "", false);
        return;
    }
    char buf[1024], *message = buf;
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    if (n >= (int)sizeof buf && (message = malloc((size_t)n + 1)))
        vsnprintf(message, (size_t)n + 1, fmt, again);
    va_end(again);
    if (!message)
        message = buf;  /* out of memory: the message cut short */
    bool werror = level == DIAG_WARNING && diag->warnings_as == DIAG_WARNINGS_ERROR;
    if (filter(diag, &level, loc, message))
        report(diag, level, loc, message, werror);
    if (message != buf)
        free(message);
}

void diag_report(DiagEngine *diag, DiagLevel level, Loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vreport(diag, level, loc, fmt, ap);
    va_end(ap);
}

#define DEFINE_LEVEL_REPORTER(fn, level)                     \
    void fn(DiagEngine *diag, Loc loc, const char *fmt, ...) \
    {                                                        \
        va_list ap;                                          \
        va_start(ap, fmt);                                   \
        diag_vreport(diag, level, loc, fmt, ap);             \
        va_end(ap);                                          \
    }
DEFINE_LEVEL_REPORTER(diag_error, DIAG_ERROR)
DEFINE_LEVEL_REPORTER(diag_warning, DIAG_WARNING)
DEFINE_LEVEL_REPORTER(diag_note, DIAG_NOTE)

Loc loc_offset(Loc loc, int offset)
{
    loc.col += offset;
    return loc;
}
