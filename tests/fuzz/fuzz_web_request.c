/* libFuzzer target for what perfkit serve takes from a request (tools/web/): the request
 * checks (request.c) and a screen page with the request's ?i= and ?t= (pages.c), over a
 * store of four samples.
 *
 * Input: lines "METHOD\nPATH\nI\nT" (a missing line: no such part; I and T empty: absent).
 *
 * Invariants:
 *   - request_check answers one of its reasons; a path with ".." or a control character,
 *     or not starting with "/", is never accepted; a method other than GET and HEAD never;
 *   - an accepted path names a screen or not: page_screen answers 200 or 404 for a screen
 *     and -ENOENT for anything else, never another value;
 *   - the page is well formed as far as the request can reach it: it holds exactly one
 *     "<html" and one "</html>", and no "<script" (the screens have none, so one would be
 *     the request's text unescaped).
 *
 *   build/fuzz/fuzz_web_request -max_total_time=60 work/ tests/fuzz/corpus/web_request
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "tools/web/request.h"
#include "tools/web/web.h"

#define TOD0 0xDE6E75AA78380000ull       /* 2024-01-01 00:00:30 UTC */
#define SEC  (1000000ull << 12)

static struct web *w;
static struct web_opts opts = { .generator = "fuzz" };

static void fill(struct zvs_mon_record rec[2], uint64_t tod, unsigned k)
{
    memset(rec, 0, 2 * sizeof(*rec));
    rec[0].domain = ZVS_MON_DOMAIN_IO;
    rec[0].number = ZVS_MON_REC_D6R21;
    rec[0].tod = tod;
    rec[0].u.vsw.rdev = 0x28BA;
    rec[0].u.vsw.queuestorage_mb = 8;
    strcpy(rec[0].u.vsw.lan_owner, "SYSTEM");
    strcpy(rec[0].u.vsw.lan_name, "VSW1");
    strcpy(rec[0].u.vsw.group, "GRP");
    rec[0].u.vsw.tx_bytes = 1000ull * k * k;
    rec[1].domain = ZVS_MON_DOMAIN_NET;
    rec[1].number = ZVS_MON_REC_D8R1;
    rec[1].tod = tod;
    strcpy(rec[1].u.vnic.owner, "LNXA");
    rec[1].u.vnic.vdev = 0x0600;
    strcpy(rec[1].u.vnic.lan_owner, "SYSTEM");
    strcpy(rec[1].u.vnic.lan_name, "VSW1");
    rec[1].u.vnic.rx_bytes = 700ull * k;
}

static void setup(void)
{
    w = calloc(1, sizeof(*w));
    if (!w || store_init(&w->st) != 0)
        abort();
    w->o = &opts;
    for (unsigned k = 0; k < 4; k++) {
        struct zvs_mon_record rec[2];
        fill(rec, TOD0 + 10 * SEC * k, k);
        struct zvs_mon_group g = { .sample = true, .tod = TOD0 + 10 * SEC * k, .nrec = 2,
                                   .rec = rec };
        if (store_add(&w->st, &g) != 0)
            abort();
    }
}

/* Part n of the input's lines (malloc'ed), NULL if the input has fewer lines. */
static char *part(const uint8_t *data, size_t size, unsigned n)
{
    size_t at = 0;
    for (unsigned k = 0; k < n; k++) {
        const uint8_t *nl = memchr(data + at, '\n', size - at);
        if (!nl)
            return NULL;
        at = (size_t)(nl - data) + 1;
    }
    const uint8_t *nl = memchr(data + at, '\n', size - at);
    size_t len = (nl ? (size_t)(nl - data) : size) - at;
    char *s = malloc(len + 1);
    if (!s)
        abort();
    memcpy(s, data + at, len);
    s[len] = '\0';
    return s;
}

static unsigned count(const char *hay, const char *needle)
{
    unsigned n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p++)
        n++;
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!w)
        setup();
    char *method = part(data, size, 0), *path = part(data, size, 1);
    char *qi = part(data, size, 2), *qt = part(data, size, 3);
    if (!path)
        goto out;
    enum metrics_refusal r = request_check(method, path, size);
    CHECK(r <= REFUSED_NREASONS);
    bool bad_path = path[0] != '/' || strstr(path, "..");
    for (const char *c = path; *c; c++)
        bad_path |= (unsigned char)*c < 0x20 || *c == 0x7F;
    if (bad_path || (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0))
        CHECK(r != REFUSED_NREASONS);
    if (r != REFUSED_NREASONS)
        goto out;
    struct wbuf out;
    wbuf_init(&out);
    int status = page_screen(w, path + 1, qi && *qi ? qi : NULL, qt && *qt ? qt : NULL, &out);
    CHECK(status == 200 || status == 404 || status == -ENOENT);
    size_t len;
    char *html = wbuf_take(&out, &len);
    if (status > 0) {
        CHECK(html != NULL);
        CHECK(count(html, "<html") == 1 && count(html, "</html>") == 1);
        CHECK(count(html, "<script") == 0);
    }
    free(html);
out:
    free(method);
    free(path);
    free(qi);
    free(qt);
    return 0;
}

#include "fuzz_replay.h"
