/* A buffered text writer for the printers: appends go into the writer's
 * own buffer (a memcpy, integers formatted without printf) and reach the
 * stream in large blocks. stdio's per-call cost (its locking, the
 * _IO_file_xsputn path, strlen) was most of printing a module: a printer
 * makes dozens of calls an op.
 *
 * A write error is kept: the stream's error flag is set by the failed
 * fwrite (io_output_commit checks it and reports), writer_flush returns
 * false, and later output is dropped. */
#ifndef SHARDC_WRITER_H
#define SHARDC_WRITER_H
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

enum { WRITER_BUFFER = 16384 };

typedef struct Writer {
    FILE *stream;
    size_t len;             /* bytes waiting in buf */
    unsigned long flushes;  /* times buf was emptied (writer_since) */
    bool failed;            /* a write to the stream failed */
    char buf[WRITER_BUFFER];
} Writer;

/* A place in the output, for a printer that keeps a copy of a piece it
 * writes (to copy the piece the next time instead of printing it again). */
typedef struct WriterMark {
    size_t len;
    unsigned long flushes;
} WriterMark;

static inline WriterMark writer_mark(const Writer *w) { return (WriterMark){w->len, w->flushes}; }
/* The bytes written since `mark` when they are all still in the buffer
 * (*n of them), else NULL (a flush came between). */
const char *writer_since(const Writer *w, WriterMark mark, size_t *n);

void writer_init(Writer *w, FILE *stream);
/* Writes what is buffered to the stream (not fflush: the stream keeps its
 * own buffering); false if this or an earlier write failed. */
bool writer_flush(Writer *w);
/* The stream, flushed up to here: for a stdio caller in the middle of a
 * writer's output (a print hook). */
FILE *writer_stream(Writer *w);
/* The slow path of writer_bytes: n does not fit what is left of buf. */
void writer_bytes_flushing(Writer *w, const char *s, size_t n);

static inline void writer_bytes(Writer *w, const char *s, size_t n)
{
    if (n > sizeof w->buf - w->len) {
        writer_bytes_flushing(w, s, n);
        return;
    }
    memcpy(w->buf + w->len, s, n);
    w->len += n;
}

/* Inline, so that a literal's strlen is a constant. */
static inline void writer_str(Writer *w, const char *s) { writer_bytes(w, s, strlen(s)); }

static inline void writer_char(Writer *w, char c)
{
    if (w->len == sizeof w->buf)
        writer_flush(w);
    w->buf[w->len++] = c;
}

/* Decimal, every value of long long included (LLONG_MIN). */
void writer_int(Writer *w, long long v);
/* n spaces (nothing for n <= 0). */
void writer_spaces(Writer *w, int n);
/* printf's formatting, for the rare line that needs it (not the hot paths:
 * its format parsing is what the writer's other calls avoid). */
void writer_printf(Writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
