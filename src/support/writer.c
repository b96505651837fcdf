/* The printers' buffered writer (shardc/writer.h). */
#include <stdarg.h>
#include <stdlib.h>
#include "shardc/arena.h"
#include "shardc/writer.h"

void writer_init(Writer *w, FILE *stream)
{
    w->stream = stream;
    w->len = 0;
    w->flushes = 0;
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
    w->flushes++;
    return !w->failed;
}

const char *writer_since(const Writer *w, WriterMark mark, size_t *n)
{
    if (mark.flushes != w->flushes || mark.len > w->len)
        return NULL;
    *n = w->len - mark.len;
    return w->buf + mark.len;
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

/* "00" "01" ... "99": two digits a division (most numbers printed are
 * dims and indices of one to four digits). */
static const char digit_pairs[201] = "0001020304050607080910111213141516171819"
                                     "2021222324252627282930313233343536373839"
                                     "4041424344454647484950515253545556575859"
                                     "6061626364656667686970717273747576777879"
                                     "8081828384858687888990919293949596979899";

/* Formatted in place in the buffer, the digits counted first (a
 * memcpy call from a scratch array cost as much as the digits). */
void writer_int(Writer *w, long long v)
{
    if (v >= 0 && v < 10) {
        writer_char(w, (char)('0' + v));
        return;
    }
    enum { LONGEST = 20 }; /* "-9223372036854775808" */
    if (sizeof w->buf - w->len < LONGEST)
        writer_flush(w);
    /* the magnitude in unsigned arithmetic: -LLONG_MIN overflows long long */
    unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    size_t digits = 1;
    for (unsigned long long t = u; t >= 10; t /= 10)
        digits++;
    char *start = w->buf + w->len, *p = start + (v < 0) + digits;
    w->len += (size_t)(p - start);
    for (; u >= 100; u /= 100) {
        p -= 2;
        memcpy(p, digit_pairs + 2 * (u % 100), 2);
    }
    if (u >= 10)
        memcpy(p - 2, digit_pairs + 2 * u, 2);
    else
        p[-1] = (char)('0' + u);
    if (v < 0)
        *start = '-';
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
