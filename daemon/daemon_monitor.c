/* vswitchd's monitor: sample records every monitor interval, event records when uplinks
 * and NICs change, written to a MONWRITE-like file (monitor/monfile.h) that perfkit reads.
 *
 * Owns: the monitor timer, the file writer, and the last state seen of every uplink and
 * NIC (to turn changes into events).
 * Rules:
 *  - Sampling reads counters only (relaxed loads of single-writer counters, port.h); it
 *    never stops or locks the data path. One group per interval, one write.
 *  - D6R21 per uplink device (RDEVs and every port-group member), D8R1 per coupled NIC;
 *    D6R22/D6R23 when an uplink stops/starts carrying traffic (a group member leaving or
 *    entering Distributing, an RDEV losing or regaining carrier), with the reason; D8R2/D8R3
 *    when a NIC's link goes up or down; while names are watched, the resolver's D15R1
 *    (daemon_monitor_names.c, which also writes their D15R2 events).
 *  - Uplink changes are looked at every event-loop iteration (a handful of members); NIC
 *    links every ZVS_MON_NIC_SCAN_MS, since a switch may have thousands of NICs.
 * Hazard: events are written as they happen, one group each; a flapping link writes one
 * small group per flap.
 */
#include "daemon/daemon_impl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "dataplane/sockpath.h"
#include "cp-commands/version.h"
#include "monitor/monfile.h"
#include "lag/pgroup.h"

#define ZVS_MON_NIC_SCAN_NS (250ull * 1000000ull)

struct zvsd_monitor {
    struct zvs_mon_writer *w;
    int                    live_fd;          /* listening socket for live readers, -1 */
    struct zvs_timer      *timer;
    uint64_t               interval_ns;
    uint64_t               next_sample;
    uint64_t               next_nic_scan;
    uint64_t               wall_offset_us;   /* unix us = monotonic us + offset */
    bool                   up_state[ZVS_CFG_MAX_VSWITCHES * (ZVS_CFG_MAX_RDEV + ZVS_CFG_MAX_GROUP_PORTS)];
    const struct zvs_port *up_port[ZVS_CFG_MAX_VSWITCHES * (ZVS_CFG_MAX_RDEV + ZVS_CFG_MAX_GROUP_PORTS)];
    bool                  *nic_up;           /* per d->nic slot */
    struct zvs_mon_record *recs;             /* scratch for one sample group */
    unsigned               cap;
};

/* The device view of a port's counters into a D6R21 or D8R1 (the same member names). */
#define COPY_DEVICE_COUNTERS(v, c) do {                                               \
        (v)->tx_bytes = (c)->tx_bytes;       (v)->rx_bytes = (c)->rx_bytes;            \
        (v)->tx_packets = (c)->tx_packets;   (v)->rx_packets = (c)->rx_packets;        \
        (v)->tx_discards = (c)->tx_discards; (v)->rx_discards = (c)->rx_discards;      \
        (v)->tx_errors = (c)->tx_errors;     (v)->rx_errors = (c)->rx_errors;          \
    } while (0)

/* The data plane's drop reasons under the monitor's codes (a file format: monitor/'s own
 * enum). A reason added to dataplane/port.h stops the build here until it has a code. */
_Static_assert((int)ZVS_DROP__COUNT == (int)ZVS_MON_DROP_REASONS, "a drop reason without a monitor code");
static const uint8_t mon_drop[ZVS_DROP__COUNT] = {
    [ZVS_DROP_RUNT] = ZVS_MON_DROP_RUNT,             [ZVS_DROP_OVERSIZE] = ZVS_MON_DROP_OVERSIZE,
    [ZVS_DROP_BAD_VLAN] = ZVS_MON_DROP_BAD_VLAN,     [ZVS_DROP_VLAN_DENIED] = ZVS_MON_DROP_VLAN_DENIED,
    [ZVS_DROP_MACPROTECT] = ZVS_MON_DROP_MACPROTECT, [ZVS_DROP_NO_BUFFER] = ZVS_MON_DROP_NO_BUFFER,
    [ZVS_DROP_MAC_FULL] = ZVS_MON_DROP_MAC_FULL,     [ZVS_DROP_LINK_DOWN] = ZVS_MON_DROP_LINK_DOWN,
    [ZVS_DROP_NO_UPLINK] = ZVS_MON_DROP_NO_UPLINK,   [ZVS_DROP_SLOW_PROTO] = ZVS_MON_DROP_SLOW_PROTO,
    [ZVS_DROP_TX_FAIL] = ZVS_MON_DROP_TX_FAIL,       [ZVS_DROP_ISOLATION] = ZVS_MON_DROP_ISOLATION,
    [ZVS_DROP_BAD_SRC] = ZVS_MON_DROP_BAD_SRC,       [ZVS_DROP_SAME_PORT] = ZVS_MON_DROP_SAME_PORT,
    [ZVS_DROP_FILTERED] = ZVS_MON_DROP_FILTERED,     [ZVS_DROP_OFFLOAD] = ZVS_MON_DROP_OFFLOAD,
    [ZVS_DROP_NOT_COLLECTING] = ZVS_MON_DROP_NOT_COLLECTING,
    [ZVS_DROP_GUEST_OVERRUN] = ZVS_MON_DROP_GUEST_OVERRUN,
};

/* The port's per-reason counters (both directions, relaxed loads as for the totals). */
static void fill_drops(const struct zvs_port *p, uint8_t *ndrops, uint64_t *drops)
{
    for (unsigned k = 0; k < ZVS_DROP__COUNT; k++)
        drops[mon_drop[k]] = zvs_ctr_read(&p->ctr.drops[k]);
    *ndrops = ZVS_MON_DROP_REASONS;
}

static void name_copy(char dst[9], const char *src)
{
    snprintf(dst, 9, "%s", src);
}

static uint64_t tod_of(const struct zvsd_monitor *m, uint64_t now_ns)
{
    return zvs_mon_tod_from_unix_us(now_ns / 1000 + m->wall_offset_us);
}

static uint16_t rdev_number(const struct zvs_port *p, uint8_t *port)
{
    char *end;
    unsigned long dev = strtoul(p->name, &end, 16);
    *port = (end[0] == '.' && (end[1] == 'P' || end[1] == 'p')) ? (uint8_t)strtoul(end + 2, NULL, 16) : 0;
    return (uint16_t)dev;
}

/* The controller name a record carries: the DEFINE VSWITCH CONTROLLER, or blanks for "*"
 * (no controller virtual machine: the daemon itself drives every uplink; a made-up userid
 * would read as a real guest). FCX240 shows blanks as "*" (monitor/SCREENS.md). */
static void controller_of(const struct d_switch *ds, char out[9])
{
    name_copy(out, strcmp(ds->cfg.controller, "*") == 0 ? "" : ds->cfg.controller);
}

static void fill_vsw(const struct d_uplink *u, struct zvs_mon_vswitch_activity *v)
{
    const struct d_switch *ds = u->ds;
    struct zvs_device_counters c;
    memset(v, 0, sizeof *v);
    v->rdev = rdev_number(u->port, &v->osa_port);
    v->queuestorage_mb = ds->cfg.queuestorage_mb;
    v->iptimeout_ticks = (uint16_t)(zvs_cfg_iptimeout(&ds->cfg) * 2);   /* minutes -> 30 s */
    controller_of(ds, v->controller);
    name_copy(v->lan_owner, "SYSTEM");
    name_copy(v->lan_name, ds->cfg.name);
    zvs_port_device_counters(zvsd_wire_port(u->port), &c);
    COPY_DEVICE_COUNTERS(v, &c);
    fill_drops(zvsd_wire_port(u->port), &v->ndrops, v->drops);
    v->distributing = u->port->carrier;
    if (!u->member || !ds->lag)
        return;
    const struct zvs_pg_params *pp = zvs_pgroup_params(zvs_lag_group(ds->lag));
    name_copy(v->group, pp->name);
    v->interval_s = (uint16_t)pp->interval_s;
    int s = zvs_lag_member_slot(ds->lag, u->port);
    if (s < 0)
        return;
    const struct zvs_pg_member *pm = zvs_pgroup_member(zvs_lag_group(ds->lag), (unsigned)s);
    v->distributing = pm && pm->distributing;
    v->buckets = pm ? pm->buckets : 0;
    const struct zvs_pg_stats *st = zvs_pgroup_stats(zvs_lag_group(ds->lag));
    v->group_moves = (uint32_t)(st->moves + st->failover_moves + st->membership_moves);
    const struct zvs_lacp_port *lp = zvs_lag_member_lacp(ds->lag, (unsigned)s);
    if (lp) {
        const struct zvs_lacp_port_stats *ls = zvs_lacp_port_stats(lp);
        v->lacpdus_tx = (uint32_t)ls->lacpdus_tx;
        v->lacpdus_rx = (uint32_t)ls->lacpdus_rx;
        v->lacp_state = zvs_lacp_port_actor(lp)->state;
    }
    const struct zvs_lacp_marker *mk = zvs_lag_member_marker(ds->lag, (unsigned)s);
    if (mk) {
        const struct zvs_lacp_marker_stats *ms = zvs_lacp_marker_stats(mk);
        v->markers_tx = (uint32_t)ms->marker_pdus_tx;
        v->marker_responses_rx = (uint32_t)ms->marker_response_pdus_rx;
        v->marker_requests_rx = (uint32_t)ms->marker_pdus_rx;
        v->marker_timeouts = (uint32_t)ms->marker_timeouts;
    }
}

static void fill_vnic(const struct d_nic *n, struct zvs_mon_vnic_activity *v)
{
    const struct zvs_guest *g = zvs_switch_guest(n->ds->sw, n->port);
    struct zvs_device_counters c;
    memset(v, 0, sizeof *v);
    name_copy(v->owner, n->userid);
    v->vdev = n->vdev;
    if (g)
        memcpy(v->mac, g->mac, 6);
    v->nic_type = 2;                    /* QDIO */
    v->vswitch = 1;
    v->transport = 2;                   /* Ethernet */
    name_copy(v->lan_owner, "SYSTEM");
    name_copy(v->lan_name, n->ds->cfg.name);
    if (n->ds->lag)
        name_copy(v->group, zvs_lag_params(n->ds->lag)->pg.name);
    zvs_port_device_counters(n->port, &c);
    COPY_DEVICE_COUNTERS(v, &c);
    fill_drops(n->port, &v->ndrops, v->drops);
}

static void write_group(struct zvsd *d, bool sample, uint64_t tod,
                        const struct zvs_mon_record *r, unsigned n)
{
    int rc = zvs_mon_write_group(d->mon->w, sample, tod, r, n);
    if (rc < 0)
        zvs_warn("monitor: cannot write %s: %s", d->opt.monitor_path, strerror(-rc));
}

void zvsd_monitor_event(struct zvsd *d, struct zvs_mon_record *r, uint64_t now)
{
    if (!d->mon)
        return;
    r->tod = tod_of(d->mon, now);
    write_group(d, false, r->tod, r, 1);
}

static void sample(struct zvsd *d, uint64_t now)
{
    struct zvsd_monitor *m = d->mon;
    uint64_t tod = tod_of(m, now);
    unsigned n = 0;
    zvsd_nics_fold(d);                  /* what the kinds count outside (LCS): D8R1 */
    for (unsigned i = 0; i < d->nup && n < m->cap; i++) {
        if (!d->up[i].port)
            continue;
        struct zvs_mon_record *r = &m->recs[n++];
        *r = (struct zvs_mon_record){ .domain = ZVS_MON_DOMAIN_IO, .number = ZVS_MON_REC_D6R21,
                                      .tod = tod };
        fill_vsw(&d->up[i], &r->u.vsw);
    }
    for (unsigned i = 0; i < d->nnic && n < m->cap; i++) {
        if (!d->nic[i].used || !d->nic[i].ds)
            continue;                   /* not coupled: no VNIC activity to report */
        struct zvs_mon_record *r = &m->recs[n++];
        *r = (struct zvs_mon_record){ .domain = ZVS_MON_DOMAIN_NET, .number = ZVS_MON_REC_D8R1,
                                      .tod = tod };
        fill_vnic(&d->nic[i], &r->u.vnic);
    }
    if (n < m->cap && zvsd_monitor_names_sample(d, &m->recs[n].u.res)) {
        m->recs[n].domain = ZVS_MON_DOMAIN_ZVS;     /* only while names are watched */
        m->recs[n].number = ZVS_MON_REC_D15R1;
        m->recs[n++].tod = tod;
    }
    write_group(d, true, tod, m->recs, n);
}

/* Is the uplink carrying traffic: a member Distributing, an RDEV with carrier? */
static bool uplink_up(const struct d_uplink *u, uint8_t *reason)
{
    *reason = u->port->carrier ? ZVS_MON_FAIL_NONE : ZVS_MON_FAIL_CARRIER;
    if (!u->member || !u->ds->lag)
        return u->port->carrier;
    int s = zvs_lag_member_slot(u->ds->lag, u->port);
    if (s < 0)
        return false;
    const struct zvs_pg_member *pm = zvs_pgroup_member(zvs_lag_group(u->ds->lag), (unsigned)s);
    const struct zvs_lacp_port *lp = zvs_lag_member_lacp(u->ds->lag, (unsigned)s);
    if (u->port->carrier && lp) {
        enum zvs_lacp_rx_state rx = zvs_lacp_port_rx_state(lp);
        *reason = rx == ZVS_LACP_RX_EXPIRED || rx == ZVS_LACP_RX_DEFAULTED
                  ? ZVS_MON_FAIL_LACP_EXPIRED : ZVS_MON_FAIL_LACP_DETACHED;
    }
    return pm && pm->distributing;
}

void zvsd_monitor_uplink_event(struct zvsd *d, const struct d_uplink *u, bool up,
                               uint8_t reason, uint64_t now)
{
    if (!d->mon)
        return;
    struct zvs_mon_record r = {
        .domain = ZVS_MON_DOMAIN_IO, .number = up ? ZVS_MON_REC_D6R23 : ZVS_MON_REC_D6R22,
        .tod = tod_of(d->mon, now),
    };
    struct zvs_mon_vswitch_event *e = &r.u.vswev;
    name_copy(e->lan_owner, "SYSTEM");
    name_copy(e->lan_name, u->ds->cfg.name);
    controller_of(u->ds, e->controller);
    e->rdev = rdev_number(u->port, &e->osa_port);
    if (u->member && u->ds->lag)
        name_copy(e->group, zvs_lag_params(u->ds->lag)->pg.name);
    e->reason = up ? ZVS_MON_FAIL_NONE : reason;
    write_group(d, false, r.tod, &r, 1);
    for (unsigned i = 0; i < d->nup; i++)
        if (&d->up[i] == u) {
            d->mon->up_state[i] = up;
            d->mon->up_port[i] = u->port;
        }
}

static void nic_event(struct zvsd *d, const struct d_nic *n, bool up, uint64_t now)
{
    struct zvs_mon_record r = {
        .domain = ZVS_MON_DOMAIN_NET, .number = up ? ZVS_MON_REC_D8R2 : ZVS_MON_REC_D8R3,
        .tod = tod_of(d->mon, now),
    };
    name_copy(r.u.link.lan_owner, "SYSTEM");
    name_copy(r.u.link.lan_name, n->ds ? n->ds->cfg.name : "");
    name_copy(r.u.link.nic_owner, n->userid);
    r.u.link.vdev = n->vdev;
    r.u.link.nic_type = 2;
    write_group(d, false, r.tod, &r, 1);
}

void zvsd_monitor_uplink_gone(struct zvsd *d, const struct d_uplink *u, uint8_t reason,
                              uint64_t now)
{
    struct zvsd_monitor *m = d->mon;
    if (!m)
        return;
    for (unsigned i = 0; i < d->nup; i++) {
        if (&d->up[i] != u)
            continue;
        if (m->up_port[i] == u->port && m->up_state[i])
            zvsd_monitor_uplink_event(d, u, false, reason, now);
        /* The slot's next port is new: a baseline, never compared with this one (a new
         * port may even get this one's address). */
        m->up_port[i] = NULL;
        m->up_state[i] = false;
    }
}

void zvsd_monitor_nic_gone(struct zvsd *d, const struct d_nic *n, uint64_t now)
{
    struct zvsd_monitor *m = d->mon;
    if (!m)
        return;
    size_t i = (size_t)(n - d->nic);
    if (i < ZVS_CFG_MAX_NICS && m->nic_up[i]) {
        nic_event(d, n, false, now);    /* while the slot still names the NIC and switch */
        m->nic_up[i] = false;
    }
}

/* Every event-loop iteration: uplink changes become events at once; NIC links and the
 * sample when their time has come. */
void zvsd_monitor_run(struct zvsd *d, uint64_t now)
{
    struct zvsd_monitor *m = d->mon;
    if (!m)
        return;
    for (unsigned i = 0; i < d->nup; i++) {
        const struct d_uplink *u = &d->up[i];
        if (!u->port)
            continue;
        uint8_t reason;
        bool up = uplink_up(u, &reason);
        if (m->up_port[i] != u->port) {         /* new in this slot: no event, a baseline */
            m->up_port[i] = u->port;
            m->up_state[i] = up;
            continue;
        }
        if (up != m->up_state[i])
            zvsd_monitor_uplink_event(d, u, up, reason, now);
    }
    if (now >= m->next_nic_scan) {
        m->next_nic_scan = now + ZVS_MON_NIC_SCAN_NS;
        for (unsigned i = 0; i < d->nnic; i++) {
            /* Uncoupled (or freed) is down: UNCOUPLE is a link loss for the guest. */
            bool up = d->nic[i].used && d->nic[i].ds && d->nic[i].port->carrier;
            if (up != m->nic_up[i]) {
                m->nic_up[i] = up;
                nic_event(d, &d->nic[i], up, now);
            }
        }
    }
    if (now >= m->next_sample) {
        sample(d, now);
        m->next_sample += m->interval_ns;
        if (m->next_sample <= now)              /* a stall: no burst of catch-up samples */
            m->next_sample = now + m->interval_ns;
    }
    zvs_timer_arm(m->timer, m->next_sample < m->next_nic_scan ? m->next_sample : m->next_nic_scan);
}

static void on_monitor_timer(void *arg, struct zvs_timer *t, uint64_t now)
{
}

/* A live reader connected (perfkit --live through the socket): it gets every group from
 * now on; a newer reader replaces an older one (the writer serves one). */
static void on_monitor_live(void *arg, int fd, uint32_t events, uint64_t now)
{
    struct zvsd *d = arg;
    int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
    if (c < 0)
        return;
    struct ucred cred;
    socklen_t len = sizeof cred;
    if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 || cred.uid != 0) {
        close(c);                       /* only root reads the monitor stream */
        return;
    }
    zvs_mon_writer_subscribe(d->mon->w, c);
    zvs_info("monitor: live reader connected");
}

static int live_listen(struct zvsd *d, const char *path)
{
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof a.sun_path)
        return -ENAMETOOLONG;
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    int rc = zvs_sockpath_claim(path);  /* stale: replaced; a live vswitchd's: refused */
    if (rc < 0)
        return rc;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return -errno;
    mode_t old = umask(077);
    rc = bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, 4) < 0 ? -errno : 0;
    umask(old);
    if (rc == 0)
        rc = zvs_evloop_add_fd(d->loop, fd, EPOLLIN, on_monitor_live, d);
    if (rc < 0) {
        close(fd);
        return rc;
    }
    return fd;
}

int zvsd_monitor_open(struct zvsd *d, uint64_t now)
{
    struct zvsd_monitor *m = calloc(1, sizeof *m);
    if (!m)
        return -ENOMEM;
    m->live_fd = -1;
    m->cap = ZVS_CFG_MAX_VSWITCHES * (ZVS_CFG_MAX_RDEV + ZVS_CFG_MAX_GROUP_PORTS) + ZVS_CFG_MAX_NICS
             + 1;                               /* the resolver's D15R1 */
    m->recs = calloc(m->cap, sizeof *m->recs);
    m->nic_up = calloc(ZVS_CFG_MAX_NICS, sizeof *m->nic_up);
    char producer[64], system[9];
    struct zvs_mon_writer_opts o = { .max_bytes = d->opt.monitor_max_bytes, .keep = 3,
                                     .producer = producer, .system = system };

    snprintf(producer, sizeof(producer), "zvswitch %s", zvs_version());
    snprintf(system, sizeof(system), "%s", d->sysname);   /* SYSTEM_IDENTIFIER (daemon_system.c) */
    int err = 0;
    m->w = m->recs && m->nic_up ? zvs_mon_writer_open(d->opt.monitor_path, &o, &err) : NULL;
    m->timer = zvs_timer_create(d->loop, on_monitor_timer, d);
    if (!m->w || !m->timer) {
        zvs_err("monitor: cannot open %s: %s", d->opt.monitor_path, strerror(err ? -err : ENOMEM));
        d->mon = m;
        zvsd_monitor_close(d, now);
        return err ? err : -ENOMEM;
    }
    uint32_t s = d->opt.monitor_interval_s ? d->opt.monitor_interval_s : 60;
    m->interval_ns = (uint64_t)s * 1000000000ull;
    m->wall_offset_us = zvs_evloop_wall_us(d->loop) - now / 1000;
    m->live_fd = -1;
    if (d->opt.monitor_live_path) {
        m->live_fd = live_listen(d, d->opt.monitor_live_path);
        if (m->live_fd < 0) {
            zvs_err("monitor: cannot listen on %s: %s", d->opt.monitor_live_path,
                    strerror(-m->live_fd));
            d->mon = m;
            zvsd_monitor_close(d, now);
            return -EADDRNOTAVAIL;
        }
    }
    m->next_sample = now;                       /* a first sample at once: the baseline */
    m->next_nic_scan = now;
    d->mon = m;
    zvs_info("monitor: sampling every %u s into %s", s, d->opt.monitor_path);
    return 0;
}

void zvsd_monitor_close(struct zvsd *d, uint64_t now)
{
    struct zvsd_monitor *m = d->mon;
    if (!m)
        return;
    if (m->w)
        sample(d, now);                         /* the last interval is not lost */
    zvs_mon_writer_close(m->w);
    if (m->live_fd >= 0) {
        zvs_evloop_del_fd(d->loop, m->live_fd);
        close(m->live_fd);
        unlink(d->opt.monitor_live_path);
    }
    if (m->timer)
        zvs_timer_destroy(m->timer);
    free(m->recs);
    free(m->nic_up);
    free(m);
    d->mon = NULL;
}
