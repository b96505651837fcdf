/* The printers' buffered writer (shardc/writer.h). */
#include <stdarg.h>
#include <stdlib.h>
#include "shardc/arena.h"
#include "shardc/writer.h"

void writer_init(Writer *w, FILE *stream)
{
    w->stream = stream;
    w->len = 0;
    w->failed = false;
}

static void write_through(Writer *w, const char *s, size_t n)
{
    if (n && !w->failed && fwrite(s, 1, n, w->stream) != n)
        w->failed = true;
}

bool writer_flush(Writer *w)
{
    write_through(w, w->buf, w->len);
    w->len = 0;
    return !w->failed;
}

FILE *writer_stream(Writer *w)
{
    writer_flush(w);
    return w->stream;
}

void writer_bytes_flushing(Writer *w, const char *s, size_t n)
{
    writer_flush(w);
    if (n > sizeof w->buf) { /* larger than the buffer: straight through */
        write_through(w, s, n);
        return;
    }
    memcpy(w->buf, s, n);
    w->len = n;
}

void writer_int(Writer *w, long long v)
{
    char digits[24], *p = digits + sizeof digits;
    /* the magnitude in unsigned arithmetic: -LLONG_MIN overflows long long */
    unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    do
        *--p = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0)
        *--p = '-';
    writer_bytes(w, p, (size_t)(digits + sizeof digits - p));
}

void writer_spaces(Writer *w, int n)
{
    static const char spaces[] = "                                                                ";
    for (; n > 0; n -= (int)sizeof spaces - 1)
        writer_bytes(w, spaces, n < (int)sizeof spaces - 1 ? (size_t)n : sizeof spaces - 1);
}

void writer_printf(Writer *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(w->buf + w->len, sizeof w->buf - w->len, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof w->buf - w->len) { /* it fit, with vsnprintf's NUL */
        w->len += (size_t)n;
        return;
    }
    char *text = malloc((size_t)n + 1);
    if (!text)
        arena_out_of_memory();
    va_start(ap, fmt);
    vsnprintf(text, (size_t)n + 1, fmt, ap);
    va_end(ap);
    writer_bytes(w, text, (size_t)n);
    free(text);
}
