/* vswitchd: the composition root. It is the one place that knows every piece: the parsed
 * configuration (cp-commands/config.h), the switches (switch.h), the uplink backend
 * (uplink_afpacket), guest NICs (nic_qdio) and their drivers (guest_tap), carrier events
 * (netlink_link) and the event loop.
 *
 * Wiring per iteration of the event loop:
 *  - an uplink socket readable: up to UPLINK_BURSTS bursts through zvs_switch_poll;
 *  - a tap readable: the tap driver fills the NIC's output queue, then the switch polls
 *    the NIC (SIGA-w is not needed in-process: the switch polls right after the fill);
 *  - a NIC's thin interrupt (irq eventfd): the tap driver empties the input queue into
 *    the tap;
 *  - netlink: carrier changes of uplinks fail over; a tap's carrier is its own business;
 *  - signalfd: SIGTERM/SIGINT stop the loop, SIGUSR1 writes the counters report.
 * Authorization follows z/VM: a NIC couples to a VSWITCH only with a GRANT (MODIFY
 * VSWITCH ... GRANT) or a directory authorization (NICDEF ... PORTTYPE/VLAN).
 */
#include "daemon.h"
#include "daemon_impl.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "cp-commands/config.h"
#include "cp-commands/console.h"
#include "evloop.h"
#include "guest_tap.h"
#include "lag.h"
#include "log.h"
#include "mac_table.h"
#include "nic_qdio.h"
#include "qdio_attach.h"
#include "netlink_link.h"
#include "switch.h"
#include "uplink_afpacket.h"
#include "uplink_pcap.h"

#define UPLINK_BURSTS 8                 /* bursts per readable event before yielding */
#define MB            (1024u * 1024u)


/* ---- event callbacks ---------------------------------------------------------------- */

static void on_uplink(void *arg, int fd, uint32_t events, uint64_t now)
{
    struct d_uplink *u = arg;
    for (int i = 0; i < UPLINK_BURSTS; i++)
        if (zvs_switch_poll(u->ds->sw, u->port, now) < ZVS_BATCH)
            break;
}

static void on_tap(void *arg, int fd, uint32_t events, uint64_t now)
{
    struct d_nic *n = arg;
    for (int i = 0; i < UPLINK_BURSTS; i++) {
        int queued = zvs_guest_tap_pump_out(n->tap);
        while (zvs_switch_poll(n->ds->sw, n->port, now) > 0)
            ;
        if (queued == -EBADFD) {
            /* The guest's namespace and its tap are gone: stop watching a dead fd. The
             * NIC stays coupled; frames for it are dropped by the driver and counted. */
            zvs_warn("%s: tap %s is gone", n->port->name, n->ifname);
            zvs_evloop_del_fd(n->d->loop, fd);
            return;
        }
        if (queued < ZVS_BATCH)
            break;
    }
}

static void on_nic_irq(void *arg, int fd, uint32_t events, uint64_t now)
{
    struct d_nic *n = arg;
    zvs_guest_tap_pump_in(n->tap);
}

/* An external program signalled SIGA-w: take what it primed. */
static void on_nic_siga(void *arg, int fd, uint32_t events, uint64_t now)
{
    struct d_nic *n = arg;
    zvs_qdio_siga_ack(zvs_nic_qdio_queues(n->port));
    while (zvs_switch_poll(n->ds->sw, n->port, now) > 0)
        ;
}

static void detach_external(struct d_nic *n, uint64_t now)
{
    struct zvs_qdio *q = zvs_nic_qdio_queues(n->port);
    /* Buffers the program primed before it left belong to the adapter: send them. */
    while (zvs_switch_poll(n->ds->sw, n->port, now) > 0)
        ;
    zvs_evloop_del_fd(n->d->loop, zvs_qdio_siga_fd(q));
    zvs_evloop_del_fd(n->d->loop, n->session);
    close(n->session);
    n->session = -1;
    int rc = zvs_qdio_reset(q);
    zvs_info("%s: guest program detached%s", n->port->name, rc < 0 ? " (queues busy)" : "");
}

/* The attach connection of an external guest: EOF (or anything) means it detached. */
static void on_nic_session(void *arg, int fd, uint32_t events, uint64_t now)
{
    struct d_nic *n = arg;
    char buf[64];
    if (read(fd, buf, sizeof(buf)) <= 0 || (events & (EPOLLHUP | EPOLLERR)))
        detach_external(n, now);
}

static void on_attach(void *arg, int fd, uint32_t events, uint64_t now)
{
    struct zvsd *d = arg;
    char userid[9];
    uint16_t vdev;
    int client;
    int rc = zvs_qdio_attach_accept(fd, 200, &client, userid, &vdev);
    if (rc < 0) {
        /* A client looping on bad requests must not flood the log. */
        if (zvs_ratelimit_ok(&d->attach_rl, now, 60000000000ull, 10)) {
            zvs_warn("attach: request refused: %s (%u more suppressed)", strerror(-rc),
                     d->attach_rl.suppressed);
            d->attach_rl.suppressed = 0;
        }
        return;
    }
    struct d_nic *n = NULL;
    for (unsigned i = 0; i < d->nnic; i++)
        if (d->nic[i].external && d->nic[i].vdev == vdev && strcmp(d->nic[i].userid, userid) == 0)
            n = &d->nic[i];
    if (!n) {
        zvs_qdio_attach_refuse(client, "no NICBIND QDIO NIC for that userid and vdev");
        zvs_warn("attach: %s %04X: no such external NIC", userid, vdev);
        return;
    }
    if (n->session >= 0) {
        zvs_qdio_attach_refuse(client, "NIC already attached");
        return;
    }
    struct zvs_qdio *q = zvs_nic_qdio_queues(n->port);
    if (zvs_qdio_attach_grant(client, zvs_qdio_memfd(q), zvs_qdio_siga_fd(q),
                              zvs_qdio_irq_fd(q)) < 0) {
        close(client);
        return;
    }
    n->session = client;
    zvs_evloop_add_fd(d->loop, client, EPOLLIN, on_nic_session, n);
    zvs_evloop_add_fd(d->loop, zvs_qdio_siga_fd(q), EPOLLIN, on_nic_siga, n);
    zvs_info("%s: guest program attached", n->port->name);
}

static void write_report(struct zvsd *d)
{
    if (!d->opt.stats_path)
        return;
    char tmp[512];
    snprintf(tmp, sizeof(tmp), "%s.tmp", d->opt.stats_path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        zvs_warn("cannot write %s: %s", tmp, strerror(errno));
        return;
    }
    zvsd_report(d, f);
    /* Readers never see half a report: write beside, then rename over. */
    if (fclose(f) == 0)
        rename(tmp, d->opt.stats_path);
}

static void on_signal(void *arg, int fd, uint32_t events, uint64_t now)
{
    struct zvsd *d = arg;
    struct signalfd_siginfo si;
    while (read(fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
        switch (si.ssi_signo) {
        case SIGTERM:
        case SIGINT:
            zvs_info("signal %u: shutting down", si.ssi_signo);
            zvs_evloop_stop(d->loop);
            break;
        case SIGUSR1:
            write_report(d);
            break;
        default:
            break;
        }
    }
}

/* The operator console: one connection per vmcp session, each line a CP command. */
static void on_console_client(void *arg, int fd, uint32_t events, uint64_t now)
{
    struct zvsd *d = arg;
    if (zvs_console_client_input(d->console, fd) < 0)
        zvs_evloop_del_fd(d->loop, fd);     /* the console has closed it */
}

static void on_console(void *arg, int fd, uint32_t events, uint64_t now)
{
    struct zvsd *d = arg;
    int client = zvs_console_accept(d->console);
    if (client >= 0 && zvs_evloop_add_fd(d->loop, client, EPOLLIN, on_console_client, d) < 0)
        zvs_warn("console: cannot watch a new client (fd %d)", client);
}

static struct d_uplink *uplink_by_ifname(struct zvsd *d, const char *ifname)
{
    for (unsigned i = 0; i < d->nup; i++)
        if (d->up[i].port && strcmp(d->up[i].ifname, ifname) == 0)
            return &d->up[i];
    return NULL;
}

static void uplink_register(struct d_uplink *u)
{
    int fd = u->port->ops->fd(u->port);
    if (fd == u->fd)
        return;
    if (u->fd >= 0)
        zvs_evloop_del_fd(u->d->loop, u->fd);
    u->fd = -1;
    if (fd >= 0 && zvs_evloop_add_fd(u->d->loop, fd, EPOLLIN, on_uplink, u) == 0)
        u->fd = fd;
}

static void on_link_event(void *arg, const char *ifname, int ifindex, bool carrier, bool exists)
{
    struct zvsd *d = arg;
    struct d_uplink *u = uplink_by_ifname(d, ifname);
    if (!u)
        return;
    /* The socket may be replaced (interface re-created): leave epoll first. */
    if (u->fd >= 0)
        zvs_evloop_del_fd(d->loop, u->fd);
    u->fd = -1;
    int rc = u->port->ops->link_event(u->port, ifindex, carrier, exists);
    if (rc < 0)
        zvs_warn("RDEV %s (%s): cannot reopen: %s", u->port->name, ifname, strerror(-rc));
    uplink_register(u);
    zvs_switch_set_carrier(u->ds->sw, u->port, u->port->carrier);
    if (u->member)
        zvs_lag_carrier(u->ds->lag, u->port, u->port->carrier, zvs_evloop_now(d->loop));
    zvs_info("VSWITCH %s RDEV %s (%s): %s%s", u->ds->cfg.name, u->port->name, ifname,
             exists ? "" : "interface gone, ", u->port->carrier ? "carrier up" : "carrier down");
}

static void on_netlink(void *arg, int fd, uint32_t events, uint64_t now)
{
    struct zvsd *d = arg;
    int rc = zvs_netlink_link_process(d->nl);
    if (rc < 0)
        zvs_warn("netlink: %s", strerror(-rc));
}

/* Every iteration ends here: LACP, Marker and rebalancing deadlines that are due run now
 * (a PDU is late by at most the iteration it fell due in, however busy the data path),
 * and the group's timer is re-armed for its next deadline so an idle loop wakes for it. */
static void on_idle(void *arg, uint64_t now)
{
    struct zvsd *d = arg;
    zvsd_monitor_run(d, now);
    for (unsigned i = 0; i < d->nsw; i++) {
        struct d_switch *ds = &d->sw[i];
        zvs_switch_run(ds->sw, now);
        if (!ds->lag)
            continue;
        if (zvs_lag_next_wakeup(ds->lag) <= now)
            zvs_lag_run(ds->lag, now);
        uint64_t next = zvs_lag_next_wakeup(ds->lag);
        if (next == UINT64_MAX)
            zvs_timer_disarm(ds->lag_timer);
        else
            zvs_timer_arm(ds->lag_timer, next);
    }
}

/* The wake-up itself: the work happens in on_idle of the same iteration. */
static void on_lag_timer(void *arg, struct zvs_timer *t, uint64_t now)
{
}


/* ---- building the switches ------------------------------------------------------------ */

static const struct zvs_cfg_grant *find_grant(const struct zvs_cfg *cfg, unsigned sw, const char *user)
{
    for (unsigned i = 0; i < cfg->ngrant; i++)
        if (cfg->grant[i].vswitch == sw && strcmp(cfg->grant[i].userid, user) == 0)
            return &cfg->grant[i];
    return NULL;
}

/* The guest registration of a NIC: MAC, MACPROTECT and VLAN rules from the NICDEF's
 * directory authorization or the GRANT, with the switch's defaults. -EPERM when the user
 * is not authorized for the switch. */
static int guest_of(const struct zvs_cfg *cfg, const struct zvs_cfg_nic *nic, struct zvs_guest *g)
{
    const struct zvs_cfg_vswitch *vs = &cfg->vswitch[nic->vswitch];
    const struct zvs_cfg_user *u = &cfg->user[nic->user];
    const struct zvs_cfg_grant *gr = find_grant(cfg, (unsigned)nic->vswitch, u->userid);
    bool dna = nic->has_vlan || nic->porttype != ZVS_PORTTYPE_UNSPEC;

    if (!gr && !dna)
        return -EPERM;
    memset(g, 0, sizeof(*g));
    snprintf(g->owner, sizeof(g->owner), "%s", u->userid);
    g->vdev = nic->vdev;
    memcpy(g->mac, nic->mac, 6);
    /* MACPROTECT UNSPECIFIED behaves as OFF, z/VM's system default. */
    g->macprotect = vs->macprotect == ZVS_MACPROTECT_ON;

    enum zvs_porttype pt = dna ? nic->porttype : gr->porttype;
    if (pt == ZVS_PORTTYPE_UNSPEC)
        pt = vs->porttype == ZVS_PORTTYPE_UNSPEC ? ZVS_PORTTYPE_ACCESS : vs->porttype;
    const struct zvs_vidset *set = dna ? (nic->has_vlan ? &nic->vlan : NULL)
                                       : (gr->has_vlan ? &gr->vlan : NULL);
    if (!vs->vlan_aware) {
        zvs_vlan_port_init(&g->vlan, ZVS_VLAN_ACCESS, ZVS_VID_NONE);
        return 0;
    }
    if (pt == ZVS_PORTTYPE_ACCESS) {
        uint16_t vid = set && set->n ? set->r[0].lo : vs->default_vid;
        zvs_vlan_port_init(&g->vlan, ZVS_VLAN_ACCESS, vid);
        return 0;
    }
    zvs_vlan_port_init(&g->vlan, ZVS_VLAN_TRUNK, 0);
    if (set && set->n) {
        for (unsigned i = 0; i < set->n; i++)
            zvs_vlan_grant(&g->vlan, set->r[i].lo, set->r[i].hi);
    } else {
        zvs_vlan_grant(&g->vlan, vs->default_vid, vs->default_vid);
    }
    return 0;
}

/* The link speed Linux reports for an interface in Mbit/s (veth: 10000), or `dflt`. */
uint32_t zvsd_if_speed_mbps(const char *ifname, uint32_t dflt)
{
    char path[64];
    snprintf(path, sizeof(path), "/sys/class/net/%s/speed", ifname);
    FILE *f = fopen(path, "r");
    if (!f)
        return dflt;
    long v = -1;
    if (fscanf(f, "%ld", &v) != 1)
        v = -1;
    fclose(f);
    return v > 0 ? (uint32_t)v : dflt;
}

/* Opens the backend of real device `dev` (its RDEVICE ... INTERFACE mapping). */
struct zvs_port *zvsd_open_rdev(struct zvsd *d, const struct d_switch *ds, struct zvs_rdev dev,
                                const char **ifname, uint8_t mac[6])
{
    char rdev[12];
    zvs_rdev_format(dev, rdev, sizeof(rdev));
    int m = -1;
    for (unsigned k = 0; k < d->nrdevice && m < 0; k++)
        if (zvs_rdev_equal(d->rdevice[k].rdev, dev))
            m = (int)k;
    if (m < 0) {
        zvs_err("VSWITCH %s RDEV %s: no RDEVICE ... INTERFACE statement", ds->cfg.name, rdev);
        return NULL;
    }
    *ifname = d->rdevice[m].ifname;
    bool pcap = d->rdevice[m].backend == ZVS_RDEV_BACKEND_PCAP;
    int err = 0;
    struct zvs_port *p = pcap ? zvs_uplink_pcap_open(*ifname, &err)
                              : zvs_uplink_afpacket_open(*ifname, &err);
    if (!p) {
        zvs_err("VSWITCH %s RDEV %s: cannot open interface %s: %s", ds->cfg.name, rdev,
                *ifname, strerror(-err));
        return NULL;
    }
    if (pcap)
        zvs_uplink_pcap_mac(p, mac);
    else
        zvs_uplink_afpacket_mac(p, mac);
    snprintf(p->name, sizeof(p->name), "%s", rdev);
    if (!ds->cfg.connect)
        p->carrier = false;             /* DISCONNECT: defined, not carrying traffic */
    return p;
}

void zvsd_track_uplink(struct zvsd *d, struct d_switch *ds, struct zvs_port *p,
                       const char *ifname, bool member)
{
    struct d_uplink *u = NULL;
    for (unsigned i = 0; i < d->nup && !u; i++)
        if (!d->up[i].port)
            u = &d->up[i];
    if (!u)
        u = &d->up[d->nup++];
    *u = (struct d_uplink){ .d = d, .ds = ds, .port = p, .fd = -1, .member = member };
    snprintf(u->ifname, sizeof(u->ifname), "%s", ifname);
    uplink_register(u);
    if (d->nl)
        zvs_netlink_link_watch(d->nl, ifname);
}

void zvsd_untrack_uplink(struct zvsd *d, struct zvs_port *p)
{
    for (unsigned i = 0; i < d->nup; i++) {
        struct d_uplink *u = &d->up[i];
        if (u->port != p)
            continue;
        if (u->fd >= 0)
            zvs_evloop_del_fd(d->loop, u->fd);
        if (d->nl)
            zvs_netlink_link_unwatch(d->nl, u->ifname);
        /* The slot stays where it is (the event loop holds pointers to other slots);
         * zvsd_track_uplink reuses it. */
        d->up[i] = (struct d_uplink){ .fd = -1 };
        return;
    }
}

/* GROUP grp: the port group's members, aggregated with LACP (ACTIVE) or statically. */
static void add_group(struct zvsd *d, const struct zvs_cfg *cfg, struct d_switch *ds)
{
    int gi = zvs_cfg_find_group(cfg, ds->cfg.group);
    if (gi < 0) {
        zvs_err("VSWITCH %s: port group %s is not defined", ds->cfg.name, ds->cfg.group);
        return;
    }
    const struct zvs_cfg_group *g = &cfg->group[gi];
    uint64_t now = zvs_clock_now();
    struct zvs_lag_params lp = {
        .pg = {
            .hash = g->distribution == ZVS_CFG_DIST_SOURCE ? ZVS_PG_HASH_SRC :
                    g->distribution == ZVS_CFG_DIST_BOTH ? ZVS_PG_HASH_SRC_DST : ZVS_PG_HASH_DST,
            .policy = g->policy == ZVS_CFG_POLICY_LBT ? ZVS_PG_POLICY_LBT : ZVS_PG_POLICY_LOAD,
            .interval_s = g->interval_s,
            .lacp = g->lacp,
            .lbt_percent = g->lbt_percent,
        },
        .long_timeout = g->lacp_long_timeout,
        .system_priority = 32768,
        .key = (uint16_t)(gi + 1),
    };
    snprintf(lp.pg.name, sizeof(lp.pg.name), "%s", g->name);
    /* System ID: the MACPREFIX with MACID 000000, which no NIC gets: one LACP system per
     * zvswitch, as a z/VM system is one partner to its physical switch. */
    memcpy(lp.system, cfg->vmlan.macprefix, 3);
    ds->lag = zvs_lag_create(ds->sw, &lp, now);
    ds->lag_timer = zvs_timer_create(d->loop, on_lag_timer, ds);
    if (!ds->lag || !ds->lag_timer) {
        zvs_err("VSWITCH %s: cannot create port group %s", ds->cfg.name, g->name);
        return;
    }
    for (unsigned i = 0; i < g->nport; i++) {
        const char *ifname = NULL;
        uint8_t mac[6] = { 0 };
        struct zvs_port *p = zvsd_open_rdev(d, ds, g->port[i], &ifname, mac);
        if (!p)
            continue;
        char rdev[24];
        snprintf(rdev, sizeof(rdev), "%s", p->name);
        uint32_t speed = zvsd_if_speed_mbps(ifname, 10000);
        int rc = zvs_lag_join(ds->lag, p, rdev, mac, speed, now);
        if (rc < 0) {
            zvs_err("VSWITCH %s port group %s: cannot JOIN %s: %s", ds->cfg.name, g->name,
                    rdev, strerror(-rc));
            p->ops->destroy(p);
            continue;
        }
        zvsd_track_uplink(d, ds, p, ifname, true);
        zvs_info("VSWITCH %s port group %s: JOIN %s on %s (%s, %u Mbit/s, %s)", ds->cfg.name,
                 g->name, rdev, ifname, p->ops->kind, speed,
                 p->carrier ? "carrier up" : "no carrier");
    }
    zvs_info("VSWITCH %s port group %s: LACP %s, INTERVAL %u, %u member(s)", ds->cfg.name,
             g->name, g->lacp ? "ACTIVE" : "INACTIVE", g->interval_s,
             zvs_pgroup_members(zvs_lag_group(ds->lag)));
}

static void add_uplinks(struct zvsd *d, const struct zvs_cfg *cfg, struct d_switch *ds)
{
    for (unsigned r = 0; r < ds->cfg.nrdev; r++) {
        const char *ifname = NULL;
        uint8_t mac[6];
        struct zvs_port *p = zvsd_open_rdev(d, ds, ds->cfg.rdev[r], &ifname, mac);
        if (!p)
            continue;
        if (zvs_switch_add_uplink(ds->sw, p) < 0) {
            p->ops->destroy(p);
            continue;
        }
        zvsd_track_uplink(d, ds, p, ifname, false);
        const char *rdev = p->name;
        zvs_info("VSWITCH %s RDEV %s on %s (%s, MTU %u, %s)", ds->cfg.name, rdev, ifname,
                 p->ops->kind, p->mtu, p->carrier ? "carrier up" : "no carrier");
    }
}

static void add_nic(struct zvsd *d, const struct zvs_cfg *cfg, const struct zvs_cfg_nic *nic)
{
    const struct zvs_cfg_user *u = &cfg->user[nic->user];
    struct d_switch *ds = &d->sw[nic->vswitch];
    struct zvs_guest g;
    char name[24], mac[18];

    snprintf(name, sizeof(name), "%s.%04X", u->userid, nic->vdev);
    if (guest_of(cfg, nic, &g) < 0) {
        zvs_err("%s: not authorized for VSWITCH %s (no GRANT, no NICDEF VLAN/PORTTYPE)",
                name, ds->cfg.name);
        return;
    }
    bool external = nic->backend == ZVS_NIC_BACKEND_QDIO;
    if (nic->backend != ZVS_NIC_BACKEND_TAP && !(external && d->attach_fd >= 0)) {
        zvs_warn("%s: NICBIND %s not supported by this vswitchd%s; NIC not coupled", name,
                 nic->backend == ZVS_NIC_BACKEND_NONE ? "(none)" :
                 external ? "QDIO" : "WORKLOAD", external ? " without --qdio-socket" : " yet");
        return;
    }
    int err = 0;
    struct zvs_port *p = zvs_nic_qdio_create(name, ds->cfg.queuestorage_mb * MB,
                                             ZVS_NIC_MTU_DEFAULT, &err);
    if (!p) {
        zvs_err("%s: cannot make QDIO queues: %s", name, strerror(-err));
        return;
    }
    struct d_nic *n = &d->nic[d->nnic];
    *n = (struct d_nic){ .d = d, .ds = ds, .port = p, .vdev = nic->vdev,
                         .external = external, .session = -1 };
    snprintf(n->userid, sizeof(n->userid), "%s", u->userid);
    snprintf(n->ifname, sizeof(n->ifname), "%s", nic->ifname);
    if (external) {
        /* Coupled now; frames for it are discarded (no input buffers) until a program
         * attaches and establishes the queues, as for a z/VM guest not yet running. */
        err = zvs_switch_add_guest(ds->sw, p, &g);
        if (err < 0) {
            zvs_err("%s: cannot couple to VSWITCH %s: %s", name, ds->cfg.name, strerror(-err));
            p->ops->destroy(p);
            return;
        }
        d->nnic++;
        zvs_mac_format(g.mac, mac, sizeof(mac));
        zvs_info("%s coupled to VSWITCH %s: MAC %s, external QDIO guest", name, ds->cfg.name, mac);
        return;
    }
    err = zvs_guest_tap_open(nic->ifname, 1500, p, &n->tap);
    if (err < 0) {
        zvs_err("%s: cannot make tap %s: %s", name, nic->ifname, strerror(-err));
        p->ops->destroy(p);
        return;
    }
    /* The guest's interface uses the MAC CP assigned (MACPREFIX ++ MACID), as a z/VM
     * guest's NIC does; MACPROTECT then holds it to that. */
    err = zvs_guest_tap_set_mac(n->tap, g.mac);
    if (err < 0)
        zvs_warn("%s: cannot set MAC on tap %s: %s", name, nic->ifname, strerror(-err));
    err = zvs_switch_add_guest(ds->sw, p, &g);
    if (err < 0) {
        zvs_mac_format(g.mac, mac, sizeof(mac));
        zvs_err("%s: cannot couple to VSWITCH %s (MAC %s): %s", name, ds->cfg.name, mac,
                strerror(-err));
        zvs_guest_tap_close(n->tap);
        p->ops->destroy(p);
        return;
    }
    zvs_evloop_add_fd(d->loop, zvs_guest_tap_fd(n->tap), EPOLLIN, on_tap, n);
    zvs_evloop_add_fd(d->loop, zvs_guest_tap_irq_fd(n->tap), EPOLLIN, on_nic_irq, n);
    d->nnic++;
    zvs_mac_format(g.mac, mac, sizeof(mac));
    zvs_info("%s coupled to VSWITCH %s: MAC %s, tap %s", name, ds->cfg.name, mac, nic->ifname);
}

struct zvsd *zvsd_create(const struct zvs_cfg *cfg, const struct zvsd_options *opt)
{
    struct zvsd *d = calloc(1, sizeof(*d));
    if (!d)
        return NULL;
    d->sigfd = -1;
    d->attach_fd = -1;
    d->opt = *opt;
    d->nrdevice = cfg->nrdevice;
    memcpy(d->rdevice, cfg->rdevice, cfg->nrdevice * sizeof(cfg->rdevice[0]));
    memcpy(d->macprefix, cfg->vmlan.macprefix, 3);
    d->nic = calloc(ZVS_CFG_MAX_NICS, sizeof(*d->nic));
    d->loop = zvs_evloop_create();
    if (!d->nic || !d->loop)
        goto fail;

    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGUSR1);
    sigprocmask(SIG_BLOCK, &set, NULL);
    d->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
    if (d->sigfd < 0 || zvs_evloop_add_fd(d->loop, d->sigfd, EPOLLIN, on_signal, d) < 0)
        goto fail;

    int err = 0;
    d->nl = zvs_netlink_link_open(on_link_event, d, &err);
    if (d->nl)
        zvs_evloop_add_fd(d->loop, zvs_netlink_link_fd(d->nl), EPOLLIN, on_netlink, d);
    else
        zvs_warn("netlink: %s; carrier changes will not be seen", strerror(-err));

    if (opt->qdio_socket) {
        d->attach_fd = zvs_qdio_attach_listen(opt->qdio_socket);
        if (d->attach_fd < 0 ||
            zvs_evloop_add_fd(d->loop, d->attach_fd, EPOLLIN, on_attach, d) < 0) {
            zvs_err("cannot listen on %s: %s", opt->qdio_socket, strerror(-d->attach_fd));
            goto fail;
        }
    }
    if (opt->console_path) {
        int cerr = 0;
        d->console = zvs_console_open(opt->console_path, zvsd_execute, d, &cerr);
        if (!d->console ||
            zvs_evloop_add_fd(d->loop, zvs_console_listen_fd(d->console), EPOLLIN,
                              on_console, d) < 0) {
            zvs_err("cannot open the console %s: %s", opt->console_path, strerror(-cerr));
            goto fail;
        }
    }
    for (unsigned i = 0; i < cfg->nvswitch; i++) {
        const struct zvs_cfg_vswitch *vs = &cfg->vswitch[i];
        struct zvs_switch_params p = {
            .vlan = { .aware = vs->vlan_aware, .native_vid = vs->native_vid },
            .isolation = vs->isolation,
        };
        snprintf(p.name, sizeof(p.name), "%s", vs->name);
        struct d_switch *ds = &d->sw[d->nsw];
        ds->cfg = *vs;
        ds->sw = zvs_switch_create(&p);
        if (!ds->sw)
            goto fail;
        d->nsw++;
        zvs_info("VSWITCH %s defined: %s, QUEUESTORAGE %uM%s", vs->name,
                 vs->vlan_aware ? "VLAN AWARE" : "VLAN UNAWARE", vs->queuestorage_mb,
                 vs->nouplink ? ", NOUPLINK" : "");
        if (!vs->nouplink && vs->group[0] != '\0')
            add_group(d, cfg, ds);
        if (!vs->nouplink)
            add_uplinks(d, cfg, ds);
    }
    for (unsigned i = 0; i < cfg->nnic; i++)
        if (cfg->nic[i].vswitch >= 0)
            add_nic(d, cfg, &cfg->nic[i]);
    if (zvs_evloop_add_idle(d->loop, on_idle, d) < 0)
        goto fail;
    if (opt->monitor_path && zvsd_monitor_open(d, zvs_clock_now()) < 0)
        goto fail;
    return d;
fail:
    zvsd_destroy(d);
    return NULL;
}

int zvsd_run(struct zvsd *d)
{
    int rc = zvs_evloop_run(d->loop);
    write_report(d);
    return rc;
}

void zvsd_destroy(struct zvsd *d)
{
    if (!d)
        return;
    for (unsigned i = 0; i < d->nnic; i++) {
        if (d->nic[i].tap)
            zvs_guest_tap_close(d->nic[i].tap); /* the switch destroys the NIC ports */
        if (d->nic[i].session >= 0)
            close(d->nic[i].session);
    }
    zvsd_monitor_close(d, zvs_clock_now()); /* its last sample reads the switches */
    zvs_console_close(d->console);          /* before the loop: it closes its clients */
    if (d->attach_fd >= 0) {
        close(d->attach_fd);
        unlink(d->opt.qdio_socket);
    }
    for (unsigned i = 0; i < d->nsw; i++) {
        zvs_lag_destroy(d->sw[i].lag, zvs_evloop_now(d->loop));
        if (d->sw[i].lag_timer)
            zvs_timer_destroy(d->sw[i].lag_timer);
        zvs_switch_destroy(d->sw[i].sw);
    }
    zvs_netlink_link_close(d->nl);
    if (d->sigfd >= 0)
        close(d->sigfd);
    zvs_evloop_destroy(d->loop);
    free(d->nic);
    free(d);
}

/* ---- the operator's report -------------------------------------------------------------- */

static void report_counters(FILE *out, const char *indent, const struct zvs_port *p)
{
    struct zvs_device_counters c;
    zvs_port_device_counters(p, &c);
    fprintf(out, "%sRX Packets: %llu  Discarded: %llu  Errors: %llu\n", indent,
            (unsigned long long)c.rx_packets, (unsigned long long)c.rx_discards,
            (unsigned long long)c.rx_errors);
    fprintf(out, "%sTX Packets: %llu  Discarded: %llu  Errors: %llu\n", indent,
            (unsigned long long)c.tx_packets, (unsigned long long)c.tx_discards,
            (unsigned long long)c.tx_errors);
    fprintf(out, "%sRX Bytes: %llu  TX Bytes: %llu\n", indent,
            (unsigned long long)c.rx_bytes, (unsigned long long)c.tx_bytes);
    bool any = false;
    for (int r = 0; r < ZVS_DROP__COUNT; r++) {
        uint64_t v = zvs_ctr_read(&p->ctr.drops[r]);
        if (!v)
            continue;
        fprintf(out, "%s%s%s %llu", any ? "" : indent, any ? "  " : "Drops: ",
                zvs_drop_name((enum zvs_drop)r), (unsigned long long)v);
        any = true;
    }
    if (any)
        fputc('\n', out);
}

void zvsd_report(const struct zvsd *d, FILE *out)
{
    zvsd_report_switch(d, NULL, out);
}

void zvsd_report_switch(const struct zvsd *d, const struct d_switch *only, FILE *out)
{
    for (unsigned i = 0; i < d->nsw; i++) {
        const struct d_switch *ds = &d->sw[i];
        if (only && ds != only)
            continue;
        unsigned guests = 0;
        for (struct zvs_port *p = zvs_switch_next_port(ds->sw, NULL); p;
             p = zvs_switch_next_port(ds->sw, p))
            guests += p->role == ZVS_PORT_GUEST;
        fprintf(out, "VSWITCH SYSTEM %-8s Type: QDIO  Connected: %u  Maxconn: INFINITE\n",
                ds->cfg.name, guests);
        fprintf(out, "  PERSISTENT  RESTRICTED  ETHERNET  Accounting: OFF\n");
        if (ds->cfg.vlan_aware)
            fprintf(out, "  VLAN Aware  Default VLAN: %04u  Default Porttype: %s  Native VLAN: %04u\n",
                    ds->cfg.default_vid,
                    ds->cfg.porttype == ZVS_PORTTYPE_TRUNK ? "Trunk" : "Access", ds->cfg.native_vid);
        else
            fprintf(out, "  VLAN Unaware\n");
        fprintf(out, "  QueueStorage: %u  Isolation Status: %s\n", ds->cfg.queuestorage_mb,
                ds->cfg.isolation ? "ON" : "OFF");
        const struct zvs_port *active = zvs_switch_active_uplink(ds->sw);
        bool header = false;
        for (struct zvs_port *p = zvs_switch_next_port(ds->sw, NULL); p;
             p = zvs_switch_next_port(ds->sw, p)) {
            if (p->role != ZVS_PORT_UPLINK)
                continue;
            if (!header)
                fprintf(out, "  Uplink Port:\n");
            header = true;
            const char *ifname = "";
            for (unsigned u = 0; u < d->nup; u++)
                if (d->up[u].port == p)
                    ifname = d->up[u].ifname;
            const char *role = zvs_switch_is_group_port(ds->sw, p) ? "GROUP MEMBER" :
                               p == active ? "ACTIVE" : "BACKUP";
            fprintf(out, "    RDEV: %s  Interface: %s  %s%s\n", p->name, ifname, role,
                    p->carrier ? "" : "  NO CARRIER");
            report_counters(out, "      ", p);
        }
        header = false;
        for (struct zvs_port *p = zvs_switch_next_port(ds->sw, NULL); p;
             p = zvs_switch_next_port(ds->sw, p)) {
            const struct zvs_guest *g = zvs_switch_guest(ds->sw, p);
            if (!g)
                continue;
            if (!header)
                fprintf(out, "  Adapter Connections:\n");
            header = true;
            char mac[18];
            zvs_mac_format(g->mac, mac, sizeof(mac));
            fprintf(out, "    Adapter Owner: %-8s NIC: %04X.P00  MAC: %s\n", g->owner, g->vdev, mac);
            report_counters(out, "      ", p);
        }
        if (ds->lag)
            zvs_lag_report(ds->lag, zvs_evloop_now(d->loop), out);
        struct zvs_mac_table_stats ms;
        zvs_mac_table_stats(zvs_switch_mac_table(ds->sw), &ms);
        fprintf(out, "  MAC table: %u entries (%u static, %u learned), %llu refused full\n",
                ms.entries, ms.static_entries, ms.learned, (unsigned long long)ms.refused_full);
    }
}
