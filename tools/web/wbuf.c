/* The pages' growing text buffer (wbuf.h). */
#include "tools/web/wbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void wbuf_init(struct wbuf *b)
{
    memset(b, 0, sizeof(*b));
}

void wbuf_free(struct wbuf *b)
{
    free(b->p);
    wbuf_init(b);
}

bool wbuf_ok(const struct wbuf *b)
{
    return !b->failed;
}

static bool reserve(struct wbuf *b, size_t more)
{
    if (b->failed)
        return false;
    if (b->len + more + 1 <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + more + 1)
        cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
        b->failed = true;
        return false;
    }
    b->p = p;
    b->cap = cap;
    return true;
}

void wbuf_printf(struct wbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !reserve(b, (size_t)n)) {
        b->failed = true;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void wbuf_puts(struct wbuf *b, const char *s)
{
    size_t n = strlen(s);
    if (!reserve(b, n))
        return;
    memcpy(b->p + b->len, s, n + 1);
    b->len += n;
}

void wbuf_html(struct wbuf *b, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': wbuf_puts(b, "&amp;"); break;
        case '<': wbuf_puts(b, "&lt;"); break;
        case '>': wbuf_puts(b, "&gt;"); break;
        case '"': wbuf_puts(b, "&quot;"); break;
        case '\'': wbuf_puts(b, "&#39;"); break;
        default: {
            char c[2] = { *s, '\0' };
            wbuf_puts(b, c);
        }
        }
    }
}

void wbuf_json(struct wbuf *b, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            wbuf_printf(b, "\\%c", c);
        else if (c < 0x20)
            wbuf_printf(b, "\\u%04x", c);
        else
            wbuf_printf(b, "%c", c);
    }
}

char *wbuf_take(struct wbuf *b, size_t *len)
{
    if (b->failed || !reserve(b, 0)) {
        wbuf_free(b);
        return NULL;
    }
    char *p = b->p;
    *len = b->len;
    wbuf_init(b);
    return p;
}
