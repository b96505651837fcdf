#include "shardc/textbuf.h"
#include <stdarg.h>
#include <stdio.h>

void textbuf_init(TextBuf *t)
{
    t->text[0] = '\0';
    t->len = 0;
}

void textbuf_add(TextBuf *t, const char *fmt, ...)
{
    if (t->len + 1 >= sizeof t->text)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->text + t->len, sizeof t->text - t->len, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    t->len += (size_t)n;
    if (t->len >= sizeof t->text)
        t->len = sizeof t->text - 1;
}
