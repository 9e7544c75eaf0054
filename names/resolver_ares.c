/* The c-ares resolver (resolver_ares.h), c-ares 1.18's API as Debian 12 ships it.
 *
 * The channel tells us which sockets to watch through its socket-state callback; we pass
 * them to the host. A ready socket, or the deadline of ares_timeout, makes us call
 * ares_process_fd (with ARES_SOCKET_BAD for both when only time passed: c-ares then ends
 * the queries whose time is up). c-ares reads its own clock for those timeouts: ours only
 * decides when we ask it to look.
 *
 * Answers: ares_getaddrinfo with ARES_AI_NOSORT (the order is ours, zvs_res_answer_order);
 * the TTL is the smallest of the addresses used. More addresses than ZVS_RES_MAX_ADDRS is
 * an oversized answer, a failure. A UDP answer with TC set is retried over TCP by c-ares
 * (the default: ARES_FLAG_IGNTC off); if that fails too, the lookup fails with c-ares'
 * error (ECONNREFUSED when nothing listens on TCP: "no server").
 *
 * c-ares 1.18 ends a query whose every server answered SERVFAIL, REFUSED or NOTIMP with the
 * status a query starts with, ECONNREFUSED, the one an unreachable server gives: both show
 * as "no server" (a later c-ares says ESERVFAIL, mapped to "SERVFAIL" below). */
#include "names/resolver_ares.h"

#include <ares.h>
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>

struct ares_res {
    struct zvs_resolver base;
    ares_channel        ch;
    struct zvs_res_host host;
    uint64_t            now;            /* the `now` of the call c-ares' callbacks run in */
    bool                library;        /* ares_library_init succeeded */
};

struct ares_query {
    struct ares_res    *r;
    uint64_t            token;
    enum zvs_res_order  order;
};

enum zvs_res_status zvs_res_ares_status(int s)
{
    switch (s) {
    case ARES_SUCCESS:      return ZVS_RES_OK;
    case ARES_ENOTFOUND:
    case ARES_ENONAME:      return ZVS_RES_NXDOMAIN;
    case ARES_ENODATA:      return ZVS_RES_NODATA;
    case ARES_ETIMEOUT:     return ZVS_RES_TIMEOUT;
    case ARES_ESERVFAIL:
    case ARES_EREFUSED:
    case ARES_ENOTIMP:      return ZVS_RES_SERVFAIL;
    case ARES_EFORMERR:
    case ARES_EBADRESP:
    case ARES_EBADNAME:
    case ARES_EBADQUERY:
    case ARES_EOF:          return ZVS_RES_BADANSWER;
    case ARES_ENOMEM:       return ZVS_RES_NOMEM;
    case ARES_ECANCELLED:
    case ARES_EDESTRUCTION: return ZVS_RES_CANCELLED;
    default:                return ZVS_RES_NOSERVER;    /* ECONNREFUSED, EFILE, ... */
    }
}

static void sock_state(void *data, ares_socket_t fd, int readable, int writable)
{
    struct ares_res *r = data;
    if (!readable && !writable)
        r->host.unwatch(r->host.arg, fd);
    else
        r->host.watch(r->host.arg, fd, writable != 0);
}

/* The answer's addresses, deduplicated; false when there are more than we keep. */
static bool collect(const struct ares_addrinfo *ai, struct zvs_res_answer *a)
{
    bool ttl_set = false;
    for (const struct ares_addrinfo_node *n = ai ? ai->nodes : NULL; n; n = n->ai_next) {
        struct zvs_res_addr x = { .family = n->ai_family };
        if (n->ai_family == AF_INET && n->ai_addrlen >= sizeof(struct sockaddr_in))
            memcpy(x.bytes, &((const struct sockaddr_in *)n->ai_addr)->sin_addr, 4);
        else if (n->ai_family == AF_INET6 && n->ai_addrlen >= sizeof(struct sockaddr_in6))
            memcpy(x.bytes, &((const struct sockaddr_in6 *)n->ai_addr)->sin6_addr, 16);
        else
            continue;
        bool dup = false;
        for (unsigned i = 0; i < a->naddr && !dup; i++)
            dup = zvs_res_addr_equal(&a->addr[i], &x);
        if (dup)
            continue;
        if (a->naddr == ZVS_RES_MAX_ADDRS)
            return false;
        a->addr[a->naddr++] = x;
        uint32_t ttl = n->ai_ttl > 0 ? (uint32_t)n->ai_ttl : 0;
        if (!ttl_set || ttl < a->ttl_s)
            a->ttl_s = ttl;
        ttl_set = true;
    }
    return true;
}

static void on_addrinfo(void *arg, int status, int timeouts, struct ares_addrinfo *ai)
{
    struct ares_query *q = arg;
    struct ares_res *r = q->r;
    struct zvs_res_answer a;
    memset(&a, 0, sizeof a);
    a.status = zvs_res_ares_status(status);
    if (a.status == ZVS_RES_OK) {
        if (!collect(ai, &a)) {
            memset(&a, 0, sizeof a);
            a.status = ZVS_RES_OVERSIZED;
        } else {
            zvs_res_answer_order(&a, q->order);
            if (a.naddr == 0)
                a.status = ZVS_RES_NODATA;
        }
    }
    if (ai)
        ares_freeaddrinfo(ai);
    if (a.status != ZVS_RES_OK)
        a.naddr = 0;
    uint64_t token = q->token;
    free(q);
    r->base.done(r->base.done_arg, token, &a, r->now);
}

static int ares_query_start(struct zvs_resolver *base, const char *name,
                            enum zvs_res_order order, uint64_t token, uint64_t now)
{
    struct ares_res *r = (struct ares_res *)base;
    struct ares_query *q = malloc(sizeof *q);
    if (!q)
        return -ENOMEM;
    q->r = r;
    q->token = token;
    q->order = order;
    struct ares_addrinfo_hints h = {
        .ai_flags = ARES_AI_NOSORT,
        .ai_family = order == ZVS_RES_ORDER_V4 ? AF_INET :
                     order == ZVS_RES_ORDER_V6 ? AF_INET6 : AF_UNSPEC,
    };
    r->now = now;
    ares_getaddrinfo(r->ch, name, NULL, &h, on_addrinfo, q);
    return 0;
}

static void ares_fd_ready(struct zvs_resolver *base, int fd, bool readable, bool writable,
                          uint64_t now)
{
    struct ares_res *r = (struct ares_res *)base;
    r->now = now;
    ares_process_fd(r->ch, readable ? fd : ARES_SOCKET_BAD, writable ? fd : ARES_SOCKET_BAD);
}

static void ares_run(struct zvs_resolver *base, uint64_t now)
{
    struct ares_res *r = (struct ares_res *)base;
    r->now = now;
    ares_process_fd(r->ch, ARES_SOCKET_BAD, ARES_SOCKET_BAD);
}

static uint64_t ares_next(struct zvs_resolver *base, uint64_t now)
{
    struct ares_res *r = (struct ares_res *)base;
    struct timeval tv;
    if (!ares_timeout(r->ch, NULL, &tv))
        return 0;
    uint64_t at = now + (uint64_t)tv.tv_sec * 1000000000ull + (uint64_t)tv.tv_usec * 1000ull;
    return at ? at : 1;
}

static void ares_servers_text(struct zvs_resolver *base, char *buf, size_t len)
{
    struct ares_res *r = (struct ares_res *)base;
    struct ares_addr_port_node *list = NULL;
    size_t off = 0;
    buf[0] = '\0';
    if (ares_get_servers_ports(r->ch, &list) != ARES_SUCCESS)
        return;
    for (struct ares_addr_port_node *s = list; s && off < len; s = s->next) {
        char a[INET6_ADDRSTRLEN] = "?";
        inet_ntop(s->family, &s->addr, a, sizeof a);
        int port = s->udp_port ? s->udp_port : 53;
        int n = snprintf(buf + off, len - off, s->family == AF_INET6 ? "%s[%s]:%d" : "%s%s:%d",
                         off ? "," : "", a, port);
        if (n < 0)
            break;
        off += (size_t)n;
    }
    ares_free_data(list);
}

static void ares_res_destroy(struct zvs_resolver *base)
{
    struct ares_res *r = (struct ares_res *)base;
    if (r->ch)
        ares_destroy(r->ch);            /* every query ends: ARES_EDESTRUCTION */
    if (r->library)
        ares_library_cleanup();
    free(r);
}

static const struct zvs_resolver_ops ares_ops = {
    .query = ares_query_start,
    .fd_ready = ares_fd_ready,
    .run = ares_run,
    .next_wakeup = ares_next,
    .servers = ares_servers_text,
    .destroy = ares_res_destroy,
};

struct zvs_resolver *zvs_resolver_ares_create(const struct zvs_res_ares_params *p,
                                              const struct zvs_res_host *host,
                                              zvs_res_done_fn done, void *arg, int *err)
{
    struct ares_res *r = calloc(1, sizeof *r);
    *err = -ENOMEM;
    if (!r)
        return NULL;
    r->base.ops = &ares_ops;
    r->base.done = done;
    r->base.done_arg = arg;
    r->host = *host;
    if (ares_library_init(ARES_LIB_INIT_ALL) != ARES_SUCCESS)
        goto fail;
    r->library = true;
    bool own_servers = p->servers && p->servers[0];
    struct ares_options o = {
        .sock_state_cb = sock_state,
        .sock_state_cb_data = r,
        .timeout = p->timeout_ms ? (int)p->timeout_ms : 2000,
        .tries = p->tries ? (int)p->tries : 2,
        .lookups = (char *)"b",         /* DNS only: our servers, not /etc/hosts */
    };
    int mask = ARES_OPT_SOCK_STATE_CB | ARES_OPT_TIMEOUTMS | ARES_OPT_TRIES;
    if (own_servers)
        mask |= ARES_OPT_LOOKUPS;
    int s = ares_init_options(&r->ch, &o, mask);
    if (s != ARES_SUCCESS) {
        r->ch = NULL;
        *err = s == ARES_ENOMEM ? -ENOMEM : -EINVAL;
        goto fail;
    }
    if (own_servers && ares_set_servers_ports_csv(r->ch, p->servers) != ARES_SUCCESS) {
        *err = -EINVAL;
        goto fail;
    }
    *err = 0;
    return &r->base;
fail:
    ares_res_destroy(&r->base);
    return NULL;
}
