/* A growing text buffer for the pages perfkit serve writes: printf, HTML escaping. A
 * failed allocation is remembered (wbuf_ok() false) and later calls do nothing, so a page
 * is written without checking every call; the server answers 500 for it. */
#ifndef ZVS_WEB_WBUF_H
#define ZVS_WEB_WBUF_H

#include <stdbool.h>
#include <stddef.h>

struct wbuf {
    char  *p;                           /* NUL terminated while ok */
    size_t len;
    size_t cap;
    bool   failed;
};

void wbuf_init(struct wbuf *b);
void wbuf_free(struct wbuf *b);
bool wbuf_ok(const struct wbuf *b);
void wbuf_printf(struct wbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void wbuf_puts(struct wbuf *b, const char *s);
/* s with & < > " ' as entities: for text and attribute values. */
void wbuf_html(struct wbuf *b, const char *s);
/* s as the inside of a JSON string (RFC 8259: " \ and control characters escaped). */
void wbuf_json(struct wbuf *b, const char *s);
/* The text, handed over (malloc'ed; the caller frees), and *len; NULL if a call failed. */
char *wbuf_take(struct wbuf *b, size_t *len);

#endif
