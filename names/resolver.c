/* The resolver interface's dispatch and the helpers both implementations share: status
 * names, address text, the family order of an answer. */
#include "names/resolver.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

static const char *const status_names[ZVS_RES_NSTATUS] = {
    [ZVS_RES_OK]        = "OK",
    [ZVS_RES_NXDOMAIN]  = "NXDOMAIN",
    [ZVS_RES_NODATA]    = "no address",
    [ZVS_RES_TIMEOUT]   = "timeout",
    [ZVS_RES_SERVFAIL]  = "SERVFAIL",
    [ZVS_RES_NOSERVER]  = "no server",
    [ZVS_RES_BADANSWER] = "bad answer",
    [ZVS_RES_OVERSIZED] = "oversized answer",
    [ZVS_RES_NOMEM]     = "no memory",
    [ZVS_RES_CANCELLED] = "cancelled",
};

const char *zvs_res_status_name(enum zvs_res_status s)
{
    return (unsigned)s < ZVS_RES_NSTATUS ? status_names[s] : "?";
}

int zvs_resolver_query(struct zvs_resolver *r, const char *name, enum zvs_res_order order,
                       uint64_t token, uint64_t now)
{
    return r->ops->query(r, name, order, token, now);
}

void zvs_resolver_fd_ready(struct zvs_resolver *r, int fd, bool readable, bool writable,
                           uint64_t now)
{
    if (r->ops->fd_ready)
        r->ops->fd_ready(r, fd, readable, writable, now);
}

void zvs_resolver_run(struct zvs_resolver *r, uint64_t now)
{
    r->ops->run(r, now);
}

uint64_t zvs_resolver_next_wakeup(struct zvs_resolver *r, uint64_t now)
{
    return r->ops->next_wakeup(r, now);
}

void zvs_resolver_servers(struct zvs_resolver *r, char *buf, size_t len)
{
    r->ops->servers(r, buf, len);
}

void zvs_resolver_destroy(struct zvs_resolver *r)
{
    if (r)
        r->ops->destroy(r);
}

void zvs_res_addr_format(const struct zvs_res_addr *a, char *buf, size_t len)
{
    if (!inet_ntop(a->family, a->bytes, buf, (socklen_t)len))
        snprintf(buf, len, "?");
}

bool zvs_res_addr_parse(const char *s, struct zvs_res_addr *out)
{
    memset(out, 0, sizeof *out);
    if (inet_pton(AF_INET, s, out->bytes) == 1) {
        out->family = AF_INET;
        return true;
    }
    if (inet_pton(AF_INET6, s, out->bytes) == 1) {
        out->family = AF_INET6;
        return true;
    }
    return false;
}

bool zvs_res_addr_equal(const struct zvs_res_addr *a, const struct zvs_res_addr *b)
{
    size_t n = a->family == AF_INET ? 4 : 16;
    return a->family == b->family && memcmp(a->bytes, b->bytes, n) == 0;
}

void zvs_res_answer_order(struct zvs_res_answer *a, enum zvs_res_order order)
{
    int first = order == ZVS_RES_ORDER_V6_V4 || order == ZVS_RES_ORDER_V6 ? AF_INET6 : AF_INET;
    bool single = order == ZVS_RES_ORDER_V4 || order == ZVS_RES_ORDER_V6;
    struct zvs_res_addr out[ZVS_RES_MAX_ADDRS];
    unsigned n = 0;
    for (int pass = 0; pass < (single ? 1 : 2); pass++)
        for (unsigned i = 0; i < a->naddr; i++)
            if ((a->addr[i].family == first) == (pass == 0))
                out[n++] = a->addr[i];
    memcpy(a->addr, out, n * sizeof out[0]);
    a->naddr = n;
}

/* The port after an address ("" or ":n"), 53 when none; false when not 1-65535. */
static bool server_port(const char *s, unsigned *port)
{
    *port = 53;
    if (*s == '\0')
        return true;
    if (*s != ':' || s[1] < '0' || s[1] > '9' || strlen(s + 1) > 5)
        return false;
    char *end;
    unsigned long v = strtoul(s + 1, &end, 10);
    if (*end != '\0' || v < 1 || v > 65535)
        return false;
    *port = (unsigned)v;
    return true;
}

bool zvs_res_server_parse(const char *s, char *canon, size_t len)
{
    char host[ZVS_RES_ADDR_STR];
    const char *rest;
    struct zvs_res_addr a;
    unsigned port;

    if (s[0] == '[') {                  /* [v6] or [v6]:port */
        const char *close = strchr(s, ']');
        if (!close || (size_t)(close - s - 1) >= sizeof host)
            return false;
        memcpy(host, s + 1, (size_t)(close - s - 1));
        host[close - s - 1] = '\0';
        rest = close + 1;
        if (!zvs_res_addr_parse(host, &a) || a.family != AF_INET6)
            return false;
    } else if (zvs_res_addr_parse(s, &a)) {
        rest = "";                      /* a bare address, v4 or v6 */
    } else {                            /* v4:port */
        const char *colon = strchr(s, ':');
        if (!colon || (size_t)(colon - s) >= sizeof host)
            return false;
        memcpy(host, s, (size_t)(colon - s));
        host[colon - s] = '\0';
        rest = colon;
        if (!zvs_res_addr_parse(host, &a) || a.family != AF_INET)
            return false;
    }
    if (!server_port(rest, &port))
        return false;
    zvs_res_addr_format(&a, host, sizeof host);
    int n = snprintf(canon, len, a.family == AF_INET6 ? "[%s]:%u" : "%s:%u", host, port);
    return n > 0 && (size_t)n < len;
}
