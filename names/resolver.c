/* The resolver interface's dispatch and the helpers both implementations share: status
 * names, address text, the family order of an answer. */
#include "names/resolver.h"

#include <arpa/inet.h>
#include <stdio.h>
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
