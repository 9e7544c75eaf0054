/* vswitchd: the composition root. It is the one place that knows every piece: the parsed
 * configuration (cp-commands/config.h), the switches (switch.h), the uplink backends
 * (opened by kind through backends/backend.h), guest NICs (nic_qdio) and the kinds that
 * drive them (backends/nic_class.h: a tap, a program, a machine's LCS tap), carrier events
 * (netlink_link) and the event loop.
 *
 * Wiring per iteration of the event loop:
 *  - an uplink socket readable: up to UPLINK_BURSTS bursts through zvs_switch_poll;
 *  - a descriptor a NIC's kind watches (a tap readable, the NIC's thin interrupt, a
 *    program's SIGA-w or session): the kind's wake-up, which has the switch take what the
 *    guest primed (SIGA-w is not needed in-process: the switch polls right after a fill);
 *  - an attach request on the attach socket: the NIC's kind grants or refuses it;
 *  - link events: carrier changes of uplinks fail over, from netlink for a Linux interface
 *    or from the port's own descriptor for a link with none (dummy); a guest's carrier is
 *    its kind's business;
 *  - signalfd: SIGTERM/SIGINT stop the loop, SIGUSR1 writes the counters report, SIGHUP
 *    reopens the log file (logrotate).
 * Authorization follows z/VM: a NIC couples to a VSWITCH only with a GRANT (MODIFY
 * VSWITCH ... GRANT) or a directory authorization (NICDEF ... PORTTYPE/VLAN).
 */
#include "daemon/daemon.h"
#include "daemon/daemon_impl.h"
#include "dataplane/sockpath.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "cp-commands/config.h"
#include "daemon/console.h"
#include "daemon/console_users.h"
#include "daemon/evloop.h"
#include "backends/backend.h"
#include "backends/nic_class.h"
#include "guests/nic_lcs.h"
#include "lag/lag.h"
#include "overlay/uplink_vxlan.h"
#include "dataplane/log.h"
#include "dataplane/mac_table.h"
#include "qdio/qdio_attach.h"
#include "backends/netlink_link.h"
#include "dataplane/switch.h"

#define UPLINK_BURSTS 8                 /* bursts per readable event before yielding */
#define MB            (1024u * 1024u)


/* ---- event callbacks ---------------------------------------------------------------- */

static void uplink_link_event(struct d_uplink *u, const struct zvs_port_link_event *ev,
                              uint64_t now);

static void on_uplink(void *arg, int fd, uint32_t events, uint64_t now)
{
    struct d_uplink *u = arg;
    struct zvs_port_link_event ev;
    /* A link that reports its own carrier (a dummy link) rings the same descriptor. */
    if (u->port->ops->link_poll && u->port->ops->link_poll(u->port, &ev) == 1)
        uplink_link_event(u, &ev, now);
    /* A member of a VXLAN underlay group carries encapsulated frames: read through the
     * VXLAN uplink, which reads the members in turn. */
    struct zvs_port *from = u->member && u->ds->overlay ? u->ds->overlay : u->port;
    for (int i = 0; i < UPLINK_BURSTS; i++)
        if (zvs_switch_poll(u->ds->sw, from, now) < ZVS_BATCH)
            break;
}

/* ---- the NIC kinds' host (backends/nic_class.h) ----------------------------------- */

/* A descriptor a NIC's kind watches is ready: the kind's wake-up. */
static void on_nic(void *arg, int fd, uint32_t events, uint64_t now)
{
    struct d_nic *n = arg;
    zvs_nic_wake(n->side, fd, events, now);
}

static int nic_watch(struct zvs_nic_side *b, int fd)
{
    struct d_nic *n = b->owner;
    return zvs_evloop_add_fd(n->d->loop, fd, EPOLLIN, on_nic, n);
}

/* While the daemon stops, every watch left the loop already (zvsd_destroy). */
static void nic_unwatch(struct zvs_nic_side *b, int fd)
{
    struct d_nic *n = b->owner;
    if (!n->d->stopping)
        zvs_evloop_del_fd(n->d->loop, fd);
}

/* SIGA-w is not needed in-process: the switch polls the NIC right after the guest's side
 * filled its output queue. */
static void nic_deliver(struct zvs_nic_side *b, uint64_t now)
{
    struct d_nic *n = b->owner;
    while (n->ds && zvs_switch_poll(n->ds->sw, n->port, now) > 0)
        ;
}

const struct zvs_nic_host zvsd_nic_host = {
    .watch = nic_watch, .unwatch = nic_unwatch, .deliver = nic_deliver,
};

void zvsd_nics_fold(struct zvsd *d)
{
    for (unsigned i = 0; i < d->nnic; i++)
        if (d->nic[i].used)
            zvs_nic_fold(d->nic[i].side);
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
    /* The NIC's kind grants it, or refuses (a kind no program drives, no NIC at all). */
    struct d_nic *n = zvsd_nic_find(d, userid, vdev);
    zvs_nic_attach(n ? n->side : NULL, client, userid, vdev);
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
        case SIGHUP: {
            int rc = zvs_log_reopen();
            if (rc < 0)
                zvs_err("signal 1: cannot reopen the log: %s", strerror(-rc));
            else
                zvs_info("signal 1: log reopened");
            break;
        }
        default:
            break;
        }
    }
}

/* The operator console: one connection per vmcp session, each line a CP command. */
static void on_console_client(void *arg, int fd, uint32_t events, uint64_t now)
{
    struct zvsd *d = arg;
    zvs_console_client_input(d->console, fd);   /* a client that leaves is forgotten below */
}

/* The console is about to close a client: stop watching it while it is still open. */
static void on_console_forget(void *arg, int fd)
{
    struct zvsd *d = arg;
    zvs_evloop_del_fd(d->loop, fd);
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

/* Is a netlink_link watch the source of the uplink's carrier (a Linux interface stands
 * behind it)? Not for a dummy link, whose name may even be a real interface's. */
/* Whether netlink's link events reach this uplink: its wire's backend says so (a VXLAN
 * uplink hears its underlay's carrier; its own kind is no backend class). */
static bool uplink_netlink(const struct zvs_port *p)
{
    const struct zvs_backend_class *c = zvs_backend_of(zvsd_wire_port(p));
    return c && c->netlink && p->ops->link_event;
}

static void uplink_register(struct d_uplink *u)
{
    int fd = u->port->ops->fd ? u->port->ops->fd(u->port) : -1;
    if (fd == u->fd)
        return;
    if (u->fd >= 0)
        zvs_evloop_del_fd(u->d->loop, u->fd);
    u->fd = -1;
    if (fd >= 0 && zvs_evloop_add_fd(u->d->loop, fd, EPOLLIN, on_uplink, u) == 0)
        u->fd = fd;
}

/* Give the switch (RDEV failover) and the port group (LACP, or the member's state
 * without it) the port's carrier as it stands. */
static void tell_carrier(struct d_uplink *u, uint64_t now)
{
    zvs_switch_set_carrier(u->ds->sw, u->port, u->port->carrier);
    if (u->member)
        zvs_lag_carrier(u->ds->lag, u->port, u->port->carrier, now);
    u->carrier_told = u->port->carrier;
}

/* The device's carrier as the operator hears it (ZVSVSW1170E / ZVSVSW1171I), before the
 * switch and the group act on it, so their messages follow their cause. */
static void say_carrier(struct d_uplink *u, const char *why)
{
    char reason[96];
    snprintf(reason, sizeof reason, "carrier %s on interface %s%s",
             u->port->carrier ? "up" : "down", u->ifname, why);
    zvsd_say(u->d, u->port->carrier ? ZVS_CPMSG_DEVICE_READY : ZVS_CPMSG_DEVICE_NOT_READY,
             NULL, u->port->name, u->ds->cfg.name, reason, NULL);
}

/* A link event for an uplink, whichever way it came: from netlink for a Linux interface
 * (on_link_event) or from the port itself for a link with none behind it (on_uplink, a
 * dummy link's doorbell). The backend applies it (carrier; a re-created interface
 * reopens its socket), the loop watches the descriptor the port has now, and the switch
 * (RDEV failover) and the port group (LACP port_enabled, 802.1AX 6.4.7) hear the carrier
 * in this same iteration. */
static void uplink_link_event(struct d_uplink *u, const struct zvs_port_link_event *ev,
                              uint64_t now)
{
    uint32_t mtu = u->port->mtu;
    int rc = u->port->ops->link_event(u->port, ev->ifindex, ev->carrier, ev->exists);
    if (rc < 0)
        zvs_warn("RDEV %s (%s): cannot reopen: %s", u->port->name, u->ifname, strerror(-rc));
    if (u->port->mtu != mtu && zvs_uplink_is_vxlan(u->port))
        zvsd_vxlan_mtu_moved(u->d, u->ds, mtu);     /* the underlay's MTU changed */
    uplink_register(u);
    if (ev->mtu_only && u->port->carrier == u->carrier_told)
        return;                         /* the carrier is as it was: nothing to tell */
    say_carrier(u, ev->exists ? "" : " (interface gone)");
    tell_carrier(u, now);
}

/* A netlink event for the uplink of interface ifname, if any: the socket may be replaced
 * (interface re-created, or a handle that had failed), and a new one may get the old
 * descriptor's number: leave epoll first. */
static void netlink_event(struct zvsd *d, const char *ifname, struct zvs_port_link_event *ev)
{
    struct d_uplink *u = uplink_by_ifname(d, ifname);
    if (!u || !uplink_netlink(u->port))
        return;
    if (u->fd >= 0)
        zvs_evloop_del_fd(d->loop, u->fd);
    u->fd = -1;
    if (ev->mtu_only) {
        /* The carrier as the switch knows it: a transmit may have seen it go down before
         * netlink did (carrier_told still up, idle not yet run), and that stays down. A
         * port the switch was told is down takes the carrier netlink_link derived from
         * this message (flags and operstate, as for a carrier event): a handle that had
         * failed is reopened by this event, and no carrier event follows for a carrier
         * that did not change. */
        struct zvs_link_state st;
        ev->carrier = u->port->carrier;
        if (!ev->carrier && !u->carrier_told &&
            zvs_netlink_link_state(d->nl, ifname, &st) == 0 && st.known)
            ev->carrier = st.carrier;
    }
    uplink_link_event(u, ev, zvs_evloop_now(d->loop));
}

static void on_link_event(void *arg, const char *ifname, int ifindex, bool carrier, bool exists)
{
    struct zvs_port_link_event ev = { .ifindex = ifindex, .carrier = carrier, .exists = exists };
    netlink_event(arg, ifname, &ev);
}

/* A watched interface changed only its MTU: its uplink reads it again (a VXLAN uplink's
 * segment follows its underlay's). */
static void on_link_mtu(void *arg, const char *ifname, int ifindex, uint32_t mtu)
{
    struct zvs_port_link_event ev = { .ifindex = ifindex, .exists = true, .mtu_only = true };
    netlink_event(arg, ifname, &ev);
}

/* A transmit found the link gone (the backend asked the driver after an ENOBUFS) and
 * set the port's carrier down: fail over now, not when linkwatch's netlink event comes,
 * which on a busy machine is many milliseconds later. The event still comes and finds
 * nothing left to do. Only downs start here: the data plane never raises a carrier. */
static void carrier_seen_by_tx(struct zvsd *d, uint64_t now)
{
    for (unsigned i = 0; i < d->nup; i++) {
        struct d_uplink *u = &d->up[i];
        if (!u->port || u->port->carrier || !u->carrier_told)
            continue;
        say_carrier(u, " (a transmit found the link gone)");
        tell_carrier(u, now);
        if (d->nl)
            (void)zvs_netlink_link_carrier_lost(d->nl, u->ifname);
    }
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
    carrier_seen_by_tx(d, now);
    zvsd_monitor_run(d, now);
    for (unsigned i = 0; i < d->nsw; i++) {
        struct d_switch *ds = &d->sw[i];
        if (!ds->sw)
            continue;
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
    zvsd_ivl_idle(d, now);              /* after the groups ran: their members' states */
    zvsd_vxlan_idle(d, now);            /* segments age (carrying nothing too); frames
                                           they could not carry told by NIC */
    zvsd_say_switches(d);
}


/* ---- building the switches ------------------------------------------------------------ */

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
struct zvs_port *zvsd_open_rdev(struct zvsd *d, struct zvs_rdev dev, const char **ifname,
                                uint8_t mac[6], char *why, size_t whylen, int *err)
{
    char rdev[12];
    zvs_rdev_format(dev, rdev, sizeof(rdev));
    int m = -1;
    for (unsigned k = 0; k < d->nrdevice && m < 0; k++)
        if (zvs_rdev_equal(d->rdevice[k].rdev, dev))
            m = (int)k;
    if (m < 0) {
        snprintf(why, whylen, "no RDEVICE ... INTERFACE statement");
        *err = -ENOENT;
        return NULL;
    }
    *ifname = d->rdevice[m].ifname;
    /* The daemon's uplink_kind option overrides the statement's BACKEND for every RDEV. */
    const char *kind = d->opt.uplink_kind ? d->opt.uplink_kind
                       : d->rdevice[m].backend == ZVS_RDEV_BACKEND_PCAP ? "pcap"
                       : d->rdevice[m].backend == ZVS_RDEV_BACKEND_TAP ? "rdevtap" : "afpacket";
    const struct zvs_backend_class *c = zvs_backend_find(kind);
    *err = zvsd_step_fault(d, ZVSD_STEP_DEVICE_OPEN);
    struct zvs_port *p = *err < 0 ? NULL : zvs_backend_open(kind, *ifname, err);
    if (!p) {
        snprintf(why, whylen, "interface %s: %s", *ifname, strerror(-*err));
        return NULL;
    }
    c->mac(p, mac);
    snprintf(p->name, sizeof(p->name), "%s", rdev);
    return p;                           /* never called while DISCONNECTed (reconciler) */
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
    *u = (struct d_uplink){ .d = d, .ds = ds, .port = p, .fd = -1, .member = member,
                            .carrier_told = p->carrier };
    snprintf(u->ifname, sizeof(u->ifname), "%s", ifname);
    uplink_register(u);
    if (d->nl && uplink_netlink(p))
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
        if (d->nl && uplink_netlink(p))
            zvs_netlink_link_unwatch(d->nl, u->ifname);
        /* The slot stays where it is (the event loop holds pointers to other slots);
         * zvsd_track_uplink reuses it. */
        d->up[i] = (struct d_uplink){ .fd = -1 };
        return;
    }
}

struct zvsd *zvsd_create(const struct zvs_cfg *cfg, const struct zvsd_options *opt)
{
    struct zvsd *d = calloc(1, sizeof(*d));
    if (!d)
        return NULL;
    d->sigfd = -1;
    d->attach_fd = -1;
    d->opt = *opt;
    d->nics.host = &zvsd_nic_host;
    d->run = zvs_cfg_new();
    d->scratch = zvs_cfg_new();
    if (!d->run || !d->scratch)
        goto fail;
    /* The running configuration: the files' result; commands change it from here on. Its
     * message list is its own (empty): the files' messages stay with the caller. */
    memcpy(d->run, cfg, sizeof *cfg);
    d->run->msgs = (struct zvs_msg_list){ 0 };
    d->nrdevice = cfg->nrdevice;
    memcpy(d->rdevice, cfg->rdevice, cfg->nrdevice * sizeof(cfg->rdevice[0]));
    memcpy(d->macprefix, cfg->vmlan.macprefix, 3);
    zvsd_system_init(d, cfg);
    d->nic = calloc(ZVS_CFG_MAX_NICS, sizeof(*d->nic));
    d->loop = opt->virtual_start_ns
              ? zvs_evloop_create_virtual(opt->virtual_start_ns, opt->virtual_wall_us)
              : zvs_evloop_create();
    /* The NIC kind that lives above backends/ enters the registry (backend.h). */
    if (!d->nic || !d->loop || zvsd_guests_create(d) < 0 || zvs_nic_lcs_register() < 0 ||
        zvsd_names_create(d) < 0)
        goto fail;

    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGUSR1);
    sigaddset(&set, SIGHUP);
    sigprocmask(SIG_BLOCK, &set, NULL);
    d->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
    if (d->sigfd < 0 || zvs_evloop_add_fd(d->loop, d->sigfd, EPOLLIN, on_signal, d) < 0)
        goto fail;

    int err = 0;
    d->nl = zvs_netlink_link_open(on_link_event, d, &err);
    if (d->nl) {
        zvs_netlink_link_on_mtu(d->nl, on_link_mtu);
        zvs_evloop_add_fd(d->loop, zvs_netlink_link_fd(d->nl), EPOLLIN, on_netlink, d);
    } else
        zvs_warn("netlink: %s; carrier changes will not be seen", strerror(-err));

    if (opt->qdio_socket) {
        /* The error is the listen's (attach_fd holds -errno then) or, with a socket
         * listening, the watch's. */
        d->attach_fd = zvs_qdio_attach_listen(opt->qdio_socket);
        err = d->attach_fd;
        if (err >= 0)
            err = zvs_evloop_add_fd(d->loop, d->attach_fd, EPOLLIN, on_attach, d);
        if (err < 0) {
            zvs_err("cannot listen on %s: %s", opt->qdio_socket, strerror(-err));
            goto fail;
        }
    }
    if (opt->console_path) {
        int cerr = 0;
        d->console = zvs_console_open(opt->console_path, zvsd_execute, d, &cerr);
        if (d->console) {
            zvs_console_on_forget(d->console, on_console_forget, d);
            cerr = zvs_evloop_add_fd(d->loop, zvs_console_listen_fd(d->console), EPOLLIN,
                                     on_console, d);
        }
        if (cerr < 0) {
            zvs_err("cannot open the console %s: %s", opt->console_path, strerror(-cerr));
            goto fail;
        }
        if (opt->console_group) {
            gid_t gid;
            int gerr = zvs_console_group_resolve(opt->console_group, &gid);
            if (gerr == 0)
                gerr = zvs_console_set_group(d->console, gid);
            if (gerr < 0) {
                zvs_err("console group %s: %s", opt->console_group,
                        gerr == -ENOENT ? "no such group" : strerror(-gerr));
                goto fail;
            }
        }
        char uerr[ZVS_CFG_PATH_MAX + ZVS_MSG_TEXT_MAX];
        int nmapped = zvs_console_map_directory(d->console, cfg, uerr, sizeof(uerr));
        if (nmapped < 0) {
            zvs_err("console: %s", uerr);
            goto fail;
        }
        zvs_info("console %s: mode %s, %d Linux user(s) mapped by LINUXUSER",
                 opt->console_path, opt->console_group ? "0660" : "0600", nmapped);
    }
    /* A live vswitchd's monitor-live socket refuses the start before any tap is touched
     * (the monitor itself opens after the first reconcile pass). */
    if (opt->monitor_path && opt->monitor_live_path &&
        (err = zvs_sockpath_claim(opt->monitor_live_path)) < 0) {
        zvs_err("monitor: cannot listen on %s: %s", opt->monitor_live_path, strerror(-err));
        goto fail;
    }
    zvsd_reconcile(d, NULL, NULL, NULL, 0);
    zvs_nic_env_started(&d->nics);      /* taps a crash left that no NIC took: deleted */
    if (zvs_evloop_add_idle(d->loop, on_idle, d) < 0)
        goto fail;
    if (opt->monitor_path && zvsd_monitor_open(d, zvs_evloop_clock(d->loop)) < 0)
        goto fail;
    return d;
fail:
    zvsd_destroy(d);
    return NULL;
}

struct zvs_evloop *zvsd_loop(struct zvsd *d)
{
    return d->loop;
}

void zvsd_exec(struct zvsd *d, const char *userid, uint32_t privclass, const char *line,
               struct zvs_cp_response *r)
{
    zvsd_execute(d, userid, privclass, line, r);
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
    zvsd_guests_destroy(d);                 /* no machine outlives the daemon */
    zvsd_monitor_close(d, zvs_evloop_clock(d->loop)); /* its last sample reads the switches */
    /* Every descriptor the loop watches leaves it now, while all are still open: below,
     * taps, sessions, the console, the attach socket, uplinks (with their switch), netlink
     * and the signalfd are closed, none of them removed first (evloop.h's contract; a
     * start refused for a live daemon's socket comes this way too). */
    zvs_evloop_del_all_fds(d->loop);
    d->stopping = true;
    zvsd_names_destroy(d);                  /* c-ares closes its sockets */
    zvsd_ivl_destroy(d);                    /* leaves the domain's group cleanly */
    for (unsigned i = 0; d->nic && i < d->nnic; i++)
        if (d->nic[i].used)
            zvs_nic_close(d->nic[i].side);     /* the switch destroys the NIC ports */
    zvs_console_close(d->console);          /* before the loop: it closes its clients */
    d->console = NULL;      /* what the groups say as they stop (below) goes to the log */
    if (d->attach_fd >= 0) {
        close(d->attach_fd);
        unlink(d->opt.qdio_socket);
    }
    for (unsigned i = 0; i < d->nsw; i++) {
        if (!d->sw[i].sw)
            continue;
        zvs_lag_destroy(d->sw[i].lag, zvs_evloop_now(d->loop));
        if (d->sw[i].lag_timer)
            zvs_timer_destroy(d->sw[i].lag_timer);
        zvs_switch_destroy(d->sw[i].sw);
    }
    zvs_nic_env_fini(&d->nics);         /* a failed start deletes no tap a crash left */
    zvs_netlink_link_close(d->nl);
    if (d->sigfd >= 0)
        close(d->sigfd);
    zvs_evloop_destroy(d->loop);
    free(d->nic);
    zvs_cfg_free(d->run);
    zvs_cfg_free(d->scratch);
    free(d);
}
