/* CP command responses: the growing text buffer of struct zvs_cp_response and its lines.
 *
 * Owns: zvs_cp_response_init/fini, zvs_cp_printf (one formatted line) and zvs_cp_error
 * (one "ID text" line from the cp_messages.c catalogue, rc set to the catalogue's code).
 *
 * Rules: a response is lines of text, each ending in "\n", NUL-terminated. An empty
 * response owns no memory (text points at a static ""), so init cannot fail and fini may
 * be called twice. Bytes that would end a console response early (RS, 0x1E) or a C string
 * (NUL) are written as '?'. Writing never fails visibly: a response is capped at
 * RESPONSE_MAX bytes, and when a line does not fit (the cap, or out of memory) the
 * response ends with the catalogue's truncation line and takes nothing more.
 * Hazards: the truncation line must always fit, so every growth keeps RESPONSE_RESERVE
 * bytes free behind the text; a response that never got a buffer (the first allocation
 * failed) cannot say it was truncated and stays empty.
 */
#include "cp-commands/cp_response.h"

#include <assert.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RESPONSE_MAX     (1u << 20)     /* a response longer than this is truncated */
#define RESPONSE_RESERVE 64             /* always free: room for the truncation line */

static char empty_text[1];

void zvs_cp_response_init(struct zvs_cp_response *r)
{
    r->text = empty_text;
    r->len = 0;
    r->cap = 0;
    r->rc = 0;
    r->module[0] = '\0';
}

void zvs_cp_response_fini(struct zvs_cp_response *r)
{
    if (r->cap > 0)
        free(r->text);
    zvs_cp_response_init(r);
}

static void truncation_line(char *buf, size_t size)
{
    zvs_cpmsg_format(buf, size, ZVS_CPMSG_TRUNCATED, NULL, 0);
}

/* True when the response already ends with the truncation line (nothing more is added). */
static bool response_truncated(const struct zvs_cp_response *r)
{
    char line[64];
    truncation_line(line, sizeof line);
    size_t n = strlen(line);
    return r->len >= n + 1 && r->text[r->len - 1] == '\n' &&
           memcmp(r->text + r->len - 1 - n, line, n) == 0 &&
           (r->len == n + 1 || r->text[r->len - n - 2] == '\n');
}

/* Ends the response with the truncation line, written into the reserve. */
static void response_truncate(struct zvs_cp_response *r)
{
    char line[64];
    truncation_line(line, sizeof line);
    size_t n = strlen(line);
    assert(r->cap == 0 || r->len + 1 + RESPONSE_RESERVE <= r->cap);
    if (r->cap == 0)
        return;                         /* no buffer at all: nothing can be said */
    if (r->len > 0 && r->text[r->len - 1] != '\n')
        r->text[r->len++] = '\n';
    memcpy(r->text + r->len, line, n);
    r->len += n;
    r->text[r->len++] = '\n';
    r->text[r->len] = '\0';
}

/* Makes room for `more` bytes plus the NUL and the reserve; false if it cannot. */
static bool response_reserve(struct zvs_cp_response *r, size_t more)
{
    size_t need = r->len + more + 1 + RESPONSE_RESERVE;
    if (r->len + more > RESPONSE_MAX)
        return false;
    if (need <= r->cap)
        return true;
    size_t cap = r->cap < 256 ? 256 : r->cap;
    while (cap < need)
        cap *= 2;
    if (cap > RESPONSE_MAX + 1 + RESPONSE_RESERVE)
        cap = RESPONSE_MAX + 1 + RESPONSE_RESERVE;     /* need never exceeds it */
    char *text = r->cap > 0 ? realloc(r->text, cap) : malloc(cap);
    if (text == NULL)
        return false;
    if (r->cap == 0)
        text[0] = '\0';
    r->text = text;
    r->cap = cap;
    return true;
}

/* Appends one line (a newline is added); RS bytes, which end a console response, become
 * '?'. */
static void response_line(struct zvs_cp_response *r, const char *line, size_t n)
{
    if (response_truncated(r))
        return;
    if (!response_reserve(r, n + 1)) {
        response_truncate(r);
        return;
    }
    for (size_t i = 0; i < n; i++)
        r->text[r->len + i] = line[i] == '\x1e' || line[i] == '\0' ? '?' : line[i];
    r->len += n;
    r->text[r->len++] = '\n';
    r->text[r->len] = '\0';
}

void zvs_cp_printf(struct zvs_cp_response *r, const char *fmt, ...)
{
    char small[256];
    va_list ap;

    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        response_line(r, small, (size_t)n);
        return;
    }
    char *big = (size_t)n <= RESPONSE_MAX ? malloc((size_t)n + 1) : NULL;
    if (big == NULL) {
        if (!response_truncated(r) && response_reserve(r, 0))
            response_truncate(r);
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    response_line(r, big, (size_t)n);
    free(big);
}

void zvs_cp_error(struct zvs_cp_response *r, int msg, ...)
{
    enum zvs_cpmsg_id id = (enum zvs_cpmsg_id)msg;
    const char *args[ZVS_CPMSG_ARGS_MAX];
    unsigned nargs = zvs_cpmsg_nargs(id);
    char line[ZVS_CPMSG_TEXT_MAX];
    va_list ap;

    assert(nargs <= ZVS_CPMSG_ARGS_MAX);
    va_start(ap, msg);
    for (unsigned i = 0; i < nargs; i++)
        args[i] = va_arg(ap, const char *);
    va_end(ap);
    zvs_cpmsg_format_in(line, sizeof line, id, r->module, args, nargs);
    response_line(r, line, strlen(line));
    r->rc = zvs_cpmsg_def(id)->rc;
}
