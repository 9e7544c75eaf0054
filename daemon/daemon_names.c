/* The daemon's name layer: the names of the running configuration (RESOLVER WATCH) kept
 * resolved by names/name_watch.c, its resolver's sockets and deadline on the event loop,
 * QUERY RESOLVER and the resolver's lines of the counters report.
 *
 * The resolver: c-ares on a real loop (the servers of RESOLVER SERVER, else the host's
 * resolv.conf); the in-memory one on a virtual loop, so the hermetic suite stays on
 * virtual time and tests fill it through zvsd_resolver(). It is made again when SERVER or
 * ORDER change; the names it was looking up are asked again on the new one.
 *
 * What a name does reaches the operator as it happens: a change of its addresses
 * (ZVSRES1202I), its first failure (ZVSRES1203W), an answer after failures (ZVSRES1204I),
 * each told to the console's subscribers and the log (zvsd_say), and written to the
 * monitor as a D15R2 (daemon_monitor_names.c). A name's user is RESOLVER WATCH itself
 * (QUERY RESOLVER shows the addresses in use) or a VXLAN VTEP for each remote given by
 * host name (overlay/vtep_names.h, daemon_vxlan_follow.c: the remote follows the
 * name's addresses). The IVL domain's members are resolved once, by
 * `vswitchd --write-corosync` (ivl_conf.c): Corosync owns their addresses after that.
 *
 * Cost: nothing per frame. The timer is re-armed after each of our own callbacks and each
 * reconcile pass, the only moments the table changes.
 */
#include "daemon/daemon_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "names/name_watch.h"
#include "names/resolver_ares.h"
#include "names/resolver_mem.h"
#include "overlay/vtep_names.h"

#define NAMES_FDS_MAX 32                /* c-ares' sockets at once (UDP per server, TCP) */
#define NS_PER_S      1000000000ull

struct zvsd_names {
    struct zvsd       *d;
    struct zvs_names  *t;
    struct zvs_timer  *timer;
    char               servers[ZVS_CFG_MAX_DNS * ZVS_RES_SERVER_STR]; /* the resolver's */
    enum zvs_res_order order;
    bool               made;            /* a resolver was made for servers/order */
    unsigned           nfd;
    int                fd[NAMES_FDS_MAX];
};

static void addr_list(const struct zvs_res_addr *a, unsigned n, char *buf, size_t len)
{
    size_t off = 0;
    buf[0] = '\0';
    if (!n)
        snprintf(buf, len, "no address");
    for (unsigned i = 0; i < n && off < len; i++) {
        char s[ZVS_RES_ADDR_STR];
        zvs_res_addr_format(&a[i], s, sizeof s);
        int w = snprintf(buf + off, len - off, "%s%s", i ? " " : "", s);
        if (w < 0)
            break;
        off += (size_t)w;
    }
}

static void rearm(struct zvsd_names *nm, uint64_t now)
{
    uint64_t w = zvs_names_next_wakeup(nm->t, now);
    if (w)
        zvs_timer_arm(nm->timer, w);
    else
        zvs_timer_disarm(nm->timer);
}

static void on_event(void *arg, const struct zvs_name *n, enum zvs_name_event ev,
                     const struct zvs_res_addr *old, unsigned nold, uint64_t now)
{
    struct zvsd_names *nm = arg;
    char now_s[ZVS_RES_MAX_ADDRS * ZVS_RES_ADDR_STR], was[sizeof now_s];
    if (n->user)                        /* a VXLAN remote VTEP's name: the VTEP moves */
        zvs_vtep_name_event(n->user, n);
    addr_list(n->addr, n->naddr, now_s, sizeof now_s);
    switch (ev) {
    case ZVS_NAME_EV_CHANGED:
        addr_list(old, nold, was, sizeof was);
        zvsd_say(nm->d, ZVS_CPMSG_RES_CHANGED, NULL, n->name, now_s, was, NULL);
        break;
    case ZVS_NAME_EV_FAILING:
        zvsd_say(nm->d, ZVS_CPMSG_RES_FAILING, NULL, n->name,
                 zvs_res_status_name(n->last_error),
                 n->state == ZVS_NAME_FAILED ? "no address in use, retrying"
                 : n->naddr ? "last addresses kept, retrying" : "retrying", NULL);
        break;
    case ZVS_NAME_EV_RECOVERED:
        zvsd_say(nm->d, ZVS_CPMSG_RES_RECOVERED, NULL, n->name, now_s, NULL);
        break;
    }
    zvsd_monitor_name_event(nm->d, n, ev, old, nold, now);
}

static void on_timer(void *arg, struct zvs_timer *t, uint64_t now)
{
    struct zvsd_names *nm = arg;
    zvs_names_run(nm->t, now);
    rearm(nm, now);
}

static void on_fd(void *arg, int fd, uint32_t events, uint64_t now)
{
    struct zvsd_names *nm = arg;
    struct zvs_resolver *r = zvs_names_resolver(nm->t);
    if (r)
        zvs_resolver_fd_ready(r, fd, events & (EPOLLIN | EPOLLERR | EPOLLHUP),
                              events & EPOLLOUT, now);
    zvs_names_run(nm->t, now);
    rearm(nm, now);
}

/* The resolver's host: its sockets on the daemon's loop. */
static int host_watch(void *arg, int fd, bool write)
{
    struct zvsd_names *nm = arg;
    uint32_t ev = EPOLLIN | (write ? EPOLLOUT : 0);
    for (unsigned i = 0; i < nm->nfd; i++)
        if (nm->fd[i] == fd)
            return zvs_evloop_mod_fd(nm->d->loop, fd, ev);
    int e = nm->nfd == NAMES_FDS_MAX ? -ENOSPC
                                      : zvs_evloop_add_fd(nm->d->loop, fd, ev, on_fd, nm);
    if (e == 0)
        nm->fd[nm->nfd++] = fd;
    else                                /* its lookups end by their timeouts */
        zvs_warn("resolver: cannot watch socket %d: %s", fd, strerror(-e));
    return e;
}

static void host_unwatch(void *arg, int fd)
{
    struct zvsd_names *nm = arg;
    for (unsigned i = 0; i < nm->nfd; i++) {
        if (nm->fd[i] != fd)
            continue;
        nm->fd[i] = nm->fd[--nm->nfd];
        if (!nm->d->stopping)           /* a stop removed every watch already */
            zvs_evloop_del_fd(nm->d->loop, fd);
        return;
    }
}

int zvsd_names_create(struct zvsd *d)
{
    struct zvsd_names *nm = calloc(1, sizeof *nm);
    if (!nm)
        return -ENOMEM;
    nm->d = d;
    struct zvs_names_params p = {
        .ttl_floor_s = d->run->resolver.minttl_s,   /* RESOLVER MINTTL, 0: the default */
        .event = on_event, .arg = nm,
    };
    nm->t = zvs_names_create(&p);
    nm->timer = zvs_timer_create(d->loop, on_timer, nm);
    d->names = nm;
    return nm->t && nm->timer ? 0 : -ENOMEM;
}

void zvsd_names_destroy(struct zvsd *d)
{
    struct zvsd_names *nm = d->names;
    if (!nm)
        return;
    zvs_names_destroy(nm->t);           /* c-ares unwatches, then closes, its sockets */
    if (nm->timer)
        zvs_timer_destroy(nm->timer);
    free(nm);
    d->names = NULL;
}

static void servers_csv(const struct zvs_cfg_resolver *cr, char *buf, size_t len)
{
    size_t off = 0;
    buf[0] = '\0';
    for (unsigned i = 0; i < cr->nserver && off < len; i++) {
        int w = snprintf(buf + off, len - off, "%s%s", i ? "," : "", cr->server[i]);
        if (w < 0)
            break;
        off += (size_t)w;
    }
}

/* A resolver for the configuration's servers and order, when it has none or they
 * changed. */
static void resolver_sync(struct zvsd_names *nm, const struct zvs_cfg_resolver *cr,
                          uint64_t now)
{
    char csv[sizeof nm->servers];
    servers_csv(cr, csv, sizeof csv);
    if (nm->made && strcmp(csv, nm->servers) == 0 && nm->order == cr->order)
        return;
    zvs_names_set_order(nm->t, cr->order);
    struct zvs_resolver *r;
    if (zvs_evloop_is_virtual(nm->d->loop)) {
        r = zvs_resolver_mem_create(zvs_names_answer, nm->t);
    } else {
        struct zvs_res_ares_params p = { .servers = csv, .timeout_ms = cr->timeout_ms };
        struct zvs_res_host host = { host_watch, host_unwatch, nm };
        int err = 0;
        r = zvs_resolver_ares_create(&p, &host, zvs_names_answer, nm->t, &err);
        if (!r)
            zvs_warn("resolver: cannot start c-ares with servers \"%s\": %s",
                     csv[0] ? csv : "(resolv.conf)", strerror(-err));
    }
    if (!r)
        return;                         /* tried again at the next pass */
    zvs_names_set_resolver(nm->t, r, now);
    snprintf(nm->servers, sizeof nm->servers, "%s", csv);
    nm->order = cr->order;
    nm->made = true;
    char shown[256];
    zvs_resolver_servers(r, shown, sizeof shown);
    zvs_info("resolver: asking %s, order %s", shown[0] ? shown : "(none)",
             zvs_cfg_order_text(cr->order));
}

void zvsd_names_reconcile(struct zvsd *d)
{
    struct zvsd_names *nm = d->names;
    const struct zvs_cfg_resolver *cr = &d->run->resolver;
    if (!nm)
        return;
    uint64_t now = zvs_evloop_clock(d->loop);
    /* No c-ares for a system that names nobody; the in-memory resolver of a virtual loop
     * is there from the start, for tests to fill before the first name is watched. */
    if (cr->nwatch || d->run->nvxlan || nm->made || zvs_evloop_is_virtual(d->loop))
        resolver_sync(nm, cr, now);
    for (unsigned i = 0; i < zvs_names_slots(nm->t); i++) {
        const struct zvs_name *n = zvs_names_slot(nm->t, i);
        if (n->used && !n->user && zvs_cfg_find_watch(cr, n->name) < 0) {
            zvs_info("resolver: %s no longer watched", n->name);
            zvs_names_unwatch(nm->t, n->name);
        }
    }
    for (unsigned i = 0; i < cr->nwatch; i++)
        if (!zvs_names_find(nm->t, cr->watch[i]) &&
            zvs_names_watch(nm->t, cr->watch[i], NULL, now) == 0)
            zvs_info("resolver: watching %s", cr->watch[i]);
    rearm(nm, now);
}

struct zvs_names *zvsd_names_table(struct zvsd *d)
{
    return d->names ? d->names->t : NULL;
}

struct zvs_resolver *zvsd_resolver(struct zvsd *d)
{
    return d->names ? zvs_names_resolver(d->names->t) : NULL;
}

static void show_totals(struct zvsd_names *nm, struct zvs_cp_response *r)
{
    struct zvs_names_counters c;
    zvs_names_counters(nm->t, &c);
    zvs_cp_printf(r, "  Names: %u  lookups: %llu  failures: %llu  changes: %llu", c.watched,
                  (unsigned long long)c.lookups, (unsigned long long)c.failures,
                  (unsigned long long)c.changes);
    zvs_cp_printf(r, "  Bad answers: %llu  deferred: %llu  in flight: %u",
                  (unsigned long long)c.bad_answers, (unsigned long long)c.deferred,
                  c.in_flight);
}

void zvsd_names_query(struct zvsd *d, struct zvs_cp_response *r)
{
    struct zvsd_names *nm = d->names;
    const struct zvs_cfg_resolver *cr = &d->run->resolver;
    uint64_t now = zvs_evloop_now(d->loop);
    struct zvs_resolver *res = nm ? zvs_names_resolver(nm->t) : NULL;
    char servers[256] = "";
    if (res)
        zvs_resolver_servers(res, servers, sizeof servers);
    zvs_cp_printf(r, "Resolver: %s  servers: %s  order: %s",
                  !res ? "not started" : zvs_resolver_is_mem(res) ? "in memory" : "c-ares",
                  servers[0] ? servers : cr->nserver ? "(configured)" : "(host resolv.conf)",
                  zvs_cfg_order_text(cr->order));
    if (!nm)
        return;
    show_totals(nm, r);
    for (unsigned i = 0; i < cr->nwatch; i++) {
        const struct zvs_name *n = zvs_names_find(nm->t, cr->watch[i]);
        if (!n)
            continue;
        char addrs[ZVS_RES_MAX_ADDRS * ZVS_RES_ADDR_STR];
        addr_list(n->addr, n->naddr, addrs, sizeof addrs);
        uint32_t left = zvs_name_seconds_left(n, now);
        if (n->literal)
            zvs_cp_printf(r, "Name: %s  state: %s  (an address)", n->name,
                          zvs_name_state_text(n->state));
        else if (n->in_flight)
            zvs_cp_printf(r, "Name: %s  state: %s  TTL: %u  lookup in flight", n->name,
                          zvs_name_state_text(n->state), (unsigned)n->ttl_s);
        else
            zvs_cp_printf(r, "Name: %s  state: %s  TTL: %u  next lookup in %u s", n->name,
                          zvs_name_state_text(n->state), (unsigned)n->ttl_s,
                          (unsigned)left);
        zvs_cp_printf(r, "  Addresses: %s", addrs);
        zvs_cp_printf(r, "  Last error: %s  lookups: %llu  failures: %llu  changes: %llu",
                      n->last_error == ZVS_RES_OK ? "none" : zvs_res_status_name(n->last_error),
                      (unsigned long long)n->lookups, (unsigned long long)n->nfailed,
                      (unsigned long long)n->changes);
    }
}

void zvsd_names_report(struct zvsd *d, struct zvs_cp_response *r)
{
    struct zvsd_names *nm = d->names;
    struct zvs_names_counters c;
    if (!nm)
        return;
    zvs_names_counters(nm->t, &c);
    if (!c.watched && !c.lookups)
        return;                         /* no name was ever looked up: nothing to report */
    zvs_cp_printf(r, "Resolver:");
    show_totals(nm, r);
}
