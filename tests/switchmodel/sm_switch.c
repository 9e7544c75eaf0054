/* The switch model at run time (see sm_switch.h).
 *
 * Design note.
 * - Owns: one backend port per configured interface (AF_PACKET with virtio-net headers,
 *   so super-frames and partial checksums pass intact, or a dummy link: sm_switch_io), the LACP engine and
 *   Marker responder of every member of an LACP channel group, the channel groups, the L2
 *   core (sm_l2), the shapers of rate-limited ports, a netlink watcher for carrier.
 * - Receive burst: up to ZVS_BATCH frames from one port. Slow Protocols frames (DA
 *   01:80:C2:00:00:02 or EtherType 0x8809) go to LACP / Marker and are never forwarded;
 *   other 01:80:C2:00:00:0x frames are dropped (a bridge never forwards them). A data frame
 *   on a member that is not collecting is dropped (in_not_bundled). The rest is
 *   classified (VLAN), learned and forwarded: to a port-channel through the member the
 *   Catalyst hash picks (sm_hash.h). Frames to write are batched per egress port and
 *   written at the end of the burst, before the received buffers are released.
 * - Rate limits: a rate-limited port has an ingress and an egress shaper (sm_tbf.h); its
 *   frames are copied into the queue and released by one timer per port. LACPDUs and
 *   Marker Responses bypass the shapers (a switch's control plane has its own queue).
 * - LACP: engines run on the loop's `now`; one timer armed for the earliest
 *   next_wakeup of every engine. Quirks act before the engine sees a PDU: a refused PDU
 *   is counted and the port shows 's' (suspended).
 * - Admin shutdown sets our veth end down (SIOCSIFFLAGS) so the peer loses carrier, as a
 *   real switch port does; carrier then comes back through netlink like any link event.
 *   On a dummy link it cuts the link's carrier; the other end hears the link event.
 * - Hazards: callbacks from the LACP engine must not call back into it (we only record
 *   state there and recompute the group); every pending frame is written before its rx
 *   buffer is released, and a shaper pass writes its releases before it returns (they
 *   point into the shaper's ring, which the next receive may write).
 */
#include "tests/switchmodel/sm_switch.h"
#include "tests/switchmodel/sm_switch_impl.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <net/if.h>

#include "lacp/pdu.h"
#include "tests/switchmodel/sm_hash.h"
#include "dataplane/log.h"
#include "backends/backend.h"
#include "backends/memlink.h"

#define SPEED_MBPS 1000                 /* every port is a GigabitEthernet */
#define AGE_PERIOD_NS 1000000000ull

static void flush_all(struct sm_switch *sw);
static void shaper_service(struct sm_port *p, uint64_t now);
static void port_link_event(struct sm_port *p, const struct zvs_port_link_event *ev,
                            uint64_t now);

/* ---- lookups ------------------------------------------------------------------------- */

struct sm_port *sm_port_find(struct sm_switch *sw, const char *name)
{
    uint8_t slot, port;
    if (sm_ifname_parse(name, &slot, &port) < 0)
        return NULL;
    for (unsigned i = 0; i < sw->n_ports; i++)
        if (sw->ports[i].cfg->slot == slot && sw->ports[i].cfg->port == port)
            return &sw->ports[i];
    return NULL;
}

bool sm_port_up(const struct sm_port *p)
{
    return p->carrier && !p->admin_down;
}

static bool port_collecting(const struct sm_port *p)
{
    if (!sm_port_up(p))
        return false;
    return p->lacp ? p->collecting : true;
}

static bool port_distributing(const struct sm_port *p)
{
    if (!sm_port_up(p))
        return false;
    return p->lacp ? p->distributing : true;
}

static bool rx_state_is(const struct sm_port *p, const char *name)
{
    return strcmp(zvs_lacp_state_name(ZVS_LACP_MACHINE_RX, (int)zvs_lacp_port_rx_state(&p->lp)),
                  name) == 0;
}

char sm_port_flag(const struct sm_port *p)
{
    if (!sm_port_up(p))
        return 'D';
    if (!p->grp)
        return ' ';
    if (port_distributing(p))
        return 'P';
    if (!p->lacp)
        return 'D';
    if (p->rejected)
        return 's';
    if (rx_state_is(p, "DEFAULTED") || rx_state_is(p, "EXPIRED"))
        return (p->sw->cfg.quirks & SM_QUIRK_SUSPEND_INDIVIDUAL) ? 's' : 'I';
    return 'w';
}

/* ---- groups and logical ports -------------------------------------------------------- */

static void group_update(struct sm_group *g, struct sm_switch *sw)
{
    unsigned n = 0;
    for (unsigned i = 0; i < g->n_members; i++)
        if (port_distributing(g->members[i]))
            g->active[n++] = g->members[i];
    bool was_up = sw->l2.lp[g->lport].up;
    bool up = n > 0;
    for (unsigned i = 0; i < g->n_members && !up; i++)
        up = port_collecting(g->members[i]);
    g->n_active = n;
    sw->l2.lp[g->lport].up = up;
    if (was_up && !up) {
        (void)sm_mac_flush_lport(&sw->l2.mac, g->lport);
        zvs_info("%%LINK-3-UPDOWN: Interface Port-channel%u, changed state to down", g->id);
    } else if (!was_up && up) {
        zvs_info("%%LINK-3-UPDOWN: Interface Port-channel%u, changed state to up", g->id);
    }
}

static void port_update(struct sm_port *p)
{
    struct sm_switch *sw = p->sw;
    if (p->grp) {
        group_update(p->grp, sw);
        return;
    }
    bool up = sm_port_up(p);
    if (sw->l2.lp[p->lport].up && !up)
        (void)sm_mac_flush_lport(&sw->l2.mac, p->lport);
    sw->l2.lp[p->lport].up = up;
}

/* ---- transmit ------------------------------------------------------------------------ */

/* Counted as on the wire: a super-frame is its segments, in packets and octets alike. */
static void count_out(struct sm_port *p, const struct zvs_frame *f)
{
    uint32_t frames = sm_wire_frames(f);
    p->ctr.out_octets += sm_wire_bytes(f);
    if (f->data[0] == 0xff && memcmp(f->data, "\xff\xff\xff\xff\xff\xff", 6) == 0)
        p->ctr.out_bcast += frames;
    else if (f->data[0] & 1)
        p->ctr.out_mcast += frames;
    else
        p->ctr.out_ucast += frames;
}

/* Write now, bypassing batches and shapers (control frames, shaper releases). */
static void tx_now(struct sm_port *p, const struct zvs_frame *f, uint8_t op, uint16_t vid)
{
    struct zvs_tx tx = { .f = f, .tag_op = op, .vid = vid };
    enum zvs_drop why = ZVS_DROP_TX_FAIL;
    if (!sm_port_up(p) || p->zp->ops->tx(p->zp, &tx, 1, &why) != 1)
        p->ctr.out_errors++;
}

static void pend_flush(struct sm_port *p)
{
    if (p->npend == 0)
        return;
    enum zvs_drop why = ZVS_DROP_TX_FAIL;
    int sent = sm_port_up(p) ? p->zp->ops->tx(p->zp, p->pend, p->npend, &why) : 0;
    if (sent < p->npend)
        p->ctr.out_errors += (uint64_t)(p->npend - sent);
    p->npend = 0;
}

static void flush_all(struct sm_switch *sw)
{
    for (unsigned i = 0; i < sw->n_ports; i++)
        pend_flush(&sw->ports[i]);
}

/* Hand a frame to physical port p for output. */
static void port_output(struct sm_port *p, const struct zvs_frame *f, uint8_t op, uint16_t vid)
{
    if (!sm_port_up(p))
        return;
    if (p->shaped) {
        /* The queue stores the frame as it will leave: apply the tag edit on the copy. */
        struct zvs_frame c = *f;
        if (op != ZVS_TAG_KEEP) {
            static uint8_t buf[SM_TBF_MAX_FRAME + ZVS_VLAN_HLEN];
            if (zvs_frame_out_len(f, op) > sizeof(buf)) {
                p->ctr.out_queue_drops++;
                return;
            }
            struct zvs_vnet v;
            c.len = zvs_frame_emit(f, op, vid, buf, &v);
            c.data = buf;
            c.nfrags = 0;
            c.vnet = v;
        }
        if (!sm_shaper_enqueue(&p->sh_out, &c, vid, 0))
            p->ctr.out_queue_drops++;
        else
            p->sh_kicked = true;
        return;
    }
    if (p->npend == ZVS_BATCH)
        pend_flush(p);
    p->pend[p->npend++] = (struct zvs_tx){ .f = f, .tag_op = op, .vid = vid };
    count_out(p, f);
}

/* The physical port a frame for logical port lp leaves through, or NULL. */
static struct sm_port *egress_port(struct sm_switch *sw, uint16_t lp, const struct zvs_frame *f)
{
    for (unsigned g = 1; g <= SM_MAX_GROUPS; g++) {
        struct sm_group *grp = &sw->groups[g];
        if (grp->id && grp->lport == lp) {
            if (grp->n_active == 0)
                return NULL;
            unsigned b = sm_lb_bucket(sw->cfg.lb, f->data, f->nfrags ? 0 : f->len);
            return grp->active[sm_lb_member(b, grp->n_active)];
        }
    }
    for (unsigned i = 0; i < sw->n_ports; i++)
        if (!sw->ports[i].grp && sw->ports[i].lport == lp)
            return &sw->ports[i];
    return NULL;
}

static void forward(struct sm_switch *sw, const struct zvs_frame *f, uint16_t in_lport,
                    uint16_t vid, uint64_t now)
{
    uint16_t out[SM_MAX_LPORTS];
    unsigned n = sm_l2_forward(&sw->l2, in_lport, vid, f->data, now, out);
    bool tagged = zvs_be16(f->data + 12) == ZVS_ETHERTYPE_VLAN;
    for (unsigned i = 0; i < n; i++) {
        struct sm_port *e = egress_port(sw, out[i], f);
        if (e)
            port_output(e, f, sm_l2_egress_op(&sw->l2.lp[out[i]], vid, tagged), vid);
    }
}

/* ---- LACP glue ----------------------------------------------------------------------- */

static void lacp_send(void *arg, const struct zvs_lacpdu *pdu)
{
    struct sm_port *p = arg;
    uint8_t buf[ZVS_SLOW_FRAME_LEN];
    if (zvs_lacpdu_build(pdu, p->mac, buf, sizeof(buf)) != ZVS_SLOW_FRAME_LEN)
        return;
    struct zvs_frame f = { .data = buf, .len = ZVS_SLOW_FRAME_LEN };
    tx_now(p, &f, ZVS_TAG_KEEP, 0);
}

static void marker_send(void *arg, const struct zvs_marker *m)
{
    struct sm_port *p = arg;
    uint8_t buf[ZVS_SLOW_FRAME_LEN];
    if (zvs_marker_build(m, p->mac, buf, sizeof(buf)) != ZVS_SLOW_FRAME_LEN)
        return;
    struct zvs_frame f = { .data = buf, .len = ZVS_SLOW_FRAME_LEN };
    tx_now(p, &f, ZVS_TAG_KEEP, 0);
}

static void lacp_collecting(void *arg, bool enable)
{
    struct sm_port *p = arg;
    p->collecting = enable;
    group_update(p->grp, p->sw);
}

static void lacp_distributing(void *arg, bool enable)
{
    struct sm_port *p = arg;
    if (p->distributing != enable)
        zvs_info("%%EC-5-%s: Interface %s %s port-channel%u", enable ? "BUNDLE" : "UNBUNDLE",
                 p->cfg->short_name, enable ? "joined" : "left", p->grp->id);
    p->distributing = enable;
    group_update(p->grp, p->sw);
}

static void lacp_transition(void *arg, enum zvs_lacp_machine m, int from, int to, uint64_t now)
{
    struct sm_port *p = arg;
    zvs_debug("%s: LACP %s %s -> %s", p->cfg->short_name, zvs_lacp_machine_name(m),
              zvs_lacp_state_name(m, from), zvs_lacp_state_name(m, to));
}

static void lacp_timer_fn(void *arg, struct zvs_timer *t, uint64_t now)
{
    struct sm_switch *sw = arg;
    sw->lacp_armed = UINT64_MAX;
    for (unsigned i = 0; i < sw->n_ports; i++) {
        struct sm_port *p = &sw->ports[i];
        if (!p->lacp)
            continue;
        if (zvs_lacp_port_next_wakeup(&p->lp) <= now)
            zvs_lacp_port_run(&p->lp, now);
        if (zvs_lacp_marker_next_wakeup(&p->mk) <= now)
            zvs_lacp_marker_run(&p->mk, now);
    }
    sm_lacp_rearm(sw);
}

void sm_lacp_rearm(struct sm_switch *sw)
{
    uint64_t next = UINT64_MAX;
    for (unsigned i = 0; i < sw->n_ports; i++) {
        struct sm_port *p = &sw->ports[i];
        if (!p->lacp)
            continue;
        uint64_t a = zvs_lacp_port_next_wakeup(&p->lp);
        uint64_t b = zvs_lacp_marker_next_wakeup(&p->mk);
        if (a < next)
            next = a;
        if (b < next)
            next = b;
    }
    if (next == sw->lacp_armed)
        return;
    sw->lacp_armed = next;
    if (next == UINT64_MAX)
        zvs_timer_disarm(sw->lacp_timer);
    else
        zvs_timer_arm(sw->lacp_timer, next);
}

void sm_port_set_faults(struct sm_port *p, const struct zvs_lacp_faults *f, uint64_t now)
{
    if (!p->lacp)
        return;
    zvs_lacp_port_set_faults(&p->lp, f, now);
    sm_lacp_rearm(p->sw);
}

/* A quirk that refuses this PDU, or NULL. */
static const char *quirk_refuses(const struct sm_switch *sw, const struct zvs_lacpdu *pdu)
{
    if ((sw->cfg.quirks & SM_QUIRK_REJECT_PORT_ZERO) && pdu->actor.port == 0)
        return "partner port number 0";
    if ((sw->cfg.quirks & SM_QUIRK_REQUIRE_AGGREGATION) &&
        !(pdu->actor.state & ZVS_LACP_STATE_AGGREGATION))
        return "partner not aggregatable";
    return NULL;
}

static void slow_rx(struct sm_port *p, const struct zvs_frame *f, uint64_t now)
{
    struct zvs_lacpdu pdu;
    struct zvs_marker mk;
    uint8_t buf[ZVS_SLOW_FRAME_LEN];
    uint32_t len = zvs_frame_peek(f, buf, sizeof(buf));

    int rc = zvs_slow_parse(buf, len, &pdu, &mk);
    if (rc < 0) {
        p->ctr.lacp_bad++;
        if (p->lacp)
            zvs_lacp_port_count_parse_error(&p->lp, rc);
        return;
    }
    if (rc == ZVS_SLOW_LACP) {
        if (!p->lacp) {
            p->ctr.lacp_ignored++;
            return;
        }
        const char *why = quirk_refuses(p->sw, &pdu);
        if (why) {
            if (!p->rejected)
                zvs_warn("%%EC-5-L3DONTBNDL2: %s suspended: %s", p->cfg->short_name, why);
            p->rejected = true;
            p->ctr.lacp_rejected++;
            return;
        }
        p->rejected = false;
        p->last_pdu_rx = now;
        zvs_lacp_port_rx(&p->lp, &pdu, now);
    } else if (rc == ZVS_SLOW_MARKER) {
        if (!p->lacp) {
            p->ctr.marker_ignored++;
            return;
        }
        zvs_lacp_marker_rx(&p->mk, &mk, now);
    } else {
        p->ctr.lacp_bad++;
    }
    sm_lacp_rearm(p->sw);
}

/* ---- receive ------------------------------------------------------------------------- */

static bool is_reserved(const uint8_t *d)
{
    return d[0] == 0x01 && d[1] == 0x80 && d[2] == 0xc2 && d[3] == 0 && d[4] == 0 &&
           (d[5] & 0xf0) == 0;
}

static void count_in(struct sm_port *p, const struct zvs_frame *f)
{
    uint32_t frames = sm_wire_frames(f);
    p->ctr.in_octets += sm_wire_bytes(f);
    if (memcmp(f->data, "\xff\xff\xff\xff\xff\xff", 6) == 0)
        p->ctr.in_bcast += frames;
    else if (f->data[0] & 1)
        p->ctr.in_mcast += frames;
    else
        p->ctr.in_ucast += frames;
}

static uint16_t in_lport_of(const struct sm_port *p)
{
    return p->grp ? p->grp->lport : p->lport;
}

static void rx_frame(struct sm_port *p, struct zvs_frame *f, uint64_t now)
{
    struct sm_switch *sw = p->sw;
    if (f->len < ZVS_ETH_HLEN || f->nfrags) {
        p->ctr.in_runts++;
        return;
    }
    if (zvs_be16(f->data + 12) == ZVS_SLOW_ETHERTYPE || is_reserved(f->data)) {
        if (zvs_be16(f->data + 12) == ZVS_SLOW_ETHERTYPE ||
            memcmp(f->data, zvs_slow_protocols_mac, 6) == 0)
            slow_rx(p, f, now);
        else
            p->ctr.in_reserved++;
        return;
    }
    count_in(p, f);
    if (!port_collecting(p)) {
        p->ctr.in_not_bundled++;
        return;
    }
    uint16_t lp = in_lport_of(p), vid;
    if (sm_l2_classify(&sw->l2.lp[lp], f->data, f->len, &vid) < 0) {
        p->ctr.in_vlan_denied++;
        return;
    }
    if (p->shaped) {
        if (!sm_shaper_enqueue(&p->sh_in, f, vid, lp))
            p->ctr.in_queue_drops++;
        return;
    }
    forward(sw, f, lp, vid, now);
}

/* Serve every shaper, then again those that a release queued frames on after their turn
 * (an ingress release lands in another port's egress queue, maybe one served already):
 * without the second round such a frame waited for the next unrelated event, 30 ms and
 * more on a quiet lab. Egress releases queue nothing, so this ends. */
static void services(struct sm_switch *sw, uint64_t now)
{
    for (unsigned i = 0; i < sw->n_ports; i++)
        if (sw->ports[i].shaped) {
            sw->ports[i].sh_kicked = false;
            shaper_service(&sw->ports[i], now);
        }
    for (bool again = true; again;) {
        again = false;
        for (unsigned i = 0; i < sw->n_ports; i++) {
            struct sm_port *p = &sw->ports[i];
            if (p->shaped && p->sh_kicked) {
                p->sh_kicked = false;
                shaper_service(p, now);
                again = true;
            }
        }
    }
}

static void on_rx(void *arg, int fd, uint32_t events, uint64_t now)
{
    struct sm_port *p = arg;
    struct zvs_frame fr[ZVS_BATCH];
    struct zvs_port_link_event ev;
    /* A link that reports its own carrier (a dummy link) rings the same descriptor. */
    if (p->zp->ops->link_poll && p->zp->ops->link_poll(p->zp, &ev) == 1)
        port_link_event(p, &ev, now);
    /* A few bursts per wakeup, then let timers and other ports run. */
    for (int burst = 0; burst < 8; burst++) {
        int n = p->zp->ops->rx(p->zp, fr, ZVS_BATCH);
        if (n <= 0)
            break;
        for (int i = 0; i < n; i++)
            rx_frame(p, &fr[i], now);
        flush_all(p->sw);
        p->zp->ops->rx_release(p->zp, fr, n);
        if (n < ZVS_BATCH)
            break;
    }
    services(p->sw, now);
}

/* ---- shapers ------------------------------------------------------------------------- */

static void shaper_service(struct sm_port *p, uint64_t now)
{
    /* The released frames point into the port's two rings, which only this port's receive
     * path writes: they stay valid through the pass, so each egress port gets one write
     * for the whole pass instead of one per frame. */
    struct zvs_frame rel[ZVS_BATCH];
    unsigned nrel = 0;
    uint16_t vid, aux;
    uint64_t r_in = UINT64_MAX, r_out = UINT64_MAX;
    bool in_ok = true, out_ok = true;

    /* One frame each way in turn: with a frame bucket shared by both directions, serving
     * one queue until it blocks would starve the other (an OSA adapter serves both). */
    while (in_ok || out_ok) {
        if (nrel + 2 > ZVS_BATCH) {
            flush_all(p->sw);
            nrel = 0;
        }
        if (in_ok && (in_ok = sm_shaper_head(&p->sh_in, now, &rel[nrel], &vid, &aux, &r_in))) {
            forward(p->sw, &rel[nrel++], aux, vid, now);
            sm_shaper_pop(&p->sh_in, now);
        }
        if (out_ok && (out_ok = sm_shaper_head(&p->sh_out, now, &rel[nrel], &vid, &aux, &r_out))) {
            count_out(p, &rel[nrel]);
            if (p->npend == ZVS_BATCH)
                pend_flush(p);
            p->pend[p->npend++] = (struct zvs_tx){ .f = &rel[nrel++], .tag_op = ZVS_TAG_KEEP };
            sm_shaper_pop(&p->sh_out, now);
        }
    }
    flush_all(p->sw);
    uint64_t next = r_in < r_out ? r_in : r_out;
    if (next == UINT64_MAX) {
        zvs_timer_disarm(p->sh_timer);
        return;
    }
    /* Wake at most every sh_tick: the buckets' burst carries the tokens over, so the rates
     * hold and a wakeup releases a few frames, as an OSA moves a QDIO buffer at a time;
     * a wakeup and a write per frame cost the model 0.65-0.77 of a core in the repro lab. */
    if (next < now + p->sh_tick)
        next = now + p->sh_tick;
    zvs_timer_arm(p->sh_timer, next);
}

static void sh_timer_fn(void *arg, struct zvs_timer *t, uint64_t now)
{
    struct sm_port *p = arg;
    shaper_service(p, now);
    /* ingress releases may have queued frames on other shaped ports */
    services(p->sw, now);
}

/* ---- links --------------------------------------------------------------------------- */

static void port_carrier(struct sm_port *p, uint64_t now)
{
    if (p->lacp) {
        zvs_lacp_port_set_enabled(&p->lp, sm_port_up(p), now);
        sm_lacp_rearm(p->sw);
    }
    port_update(p);
}

/* A link event for a port, from netlink (on_link) or from the link itself (on_rx). */
static void port_link_event(struct sm_port *p, const struct zvs_port_link_event *ev,
                            uint64_t now)
{
    struct sm_switch *sw = p->sw;
    int old = p->fd;
    int rc = p->zp->ops->link_event(p->zp, ev->ifindex, ev->carrier, ev->exists);
    if (rc == 1) {
        if (old >= 0)
            (void)zvs_evloop_del_fd(sw->loop, old);
        p->fd = p->zp->ops->fd(p->zp);
        if (p->fd >= 0 && zvs_evloop_add_fd(sw->loop, p->fd, EPOLLIN, on_rx, p) < 0)
            p->fd = -1;
    }
    bool was = sm_port_up(p);
    p->carrier = p->zp->carrier;
    if (was != sm_port_up(p))
        zvs_info("%%LINK-3-UPDOWN: Interface %s, changed state to %s", p->cfg->name,
                 sm_port_up(p) ? "up" : "down");
    port_carrier(p, now);
}

static void on_link(void *arg, const char *ifname, int ifindex, bool carrier, bool exists)
{
    struct sm_switch *sw = arg;
    struct zvs_port_link_event ev = { .ifindex = ifindex, .carrier = carrier, .exists = exists };
    for (unsigned i = 0; i < sw->n_ports; i++)
        if (strcmp(sw->ports[i].cfg->attach, ifname) == 0)
            port_link_event(&sw->ports[i], &ev, zvs_evloop_now(sw->loop));
}

static void on_netlink(void *arg, int fd, uint32_t events, uint64_t now)
{
    struct sm_switch *sw = arg;
    (void)zvs_netlink_link_process(sw->nl);
}

/* Set the interface administratively up or down (the peer then sees carrier change). */
static int set_if_up(const char *ifname, bool up)
{
    struct ifreq ifr;
    int rc = 0;
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    memset(&ifr, 0, sizeof(ifr));
    snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
    if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0) {
        rc = -errno;
        goto out;
    }
    if (up)
        ifr.ifr_flags = (short)(ifr.ifr_flags | IFF_UP);
    else
        ifr.ifr_flags = (short)(ifr.ifr_flags & ~IFF_UP);
    if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
        rc = -errno;
out:
    close(fd);
    return rc;
}

/* The port's link administratively up or down, so the peer's carrier follows: a Linux
 * interface through its flags (netlink then tells both ends), a dummy link by cutting
 * its carrier (the other end hears a link event; this end knows at once). */
static int set_link_up(struct sm_port *p, bool up)
{
    if (p->sw->io->netlink)
        return set_if_up(p->cfg->attach, up);
    zvs_memlink_set_carrier(p->zp, up);
    p->carrier = p->zp->carrier;
    return 0;
}

void sm_port_admin(struct sm_port *p, bool down, uint64_t now)
{
    if (p->admin_down == down)
        return;
    p->admin_down = down;
    int rc = set_link_up(p, !down);
    if (rc < 0)
        zvs_warn("%s: cannot set %s %s: %s", p->cfg->short_name, p->cfg->attach,
                 down ? "down" : "up", strerror(-rc));
    zvs_info("%%LINK-5-CHANGED: Interface %s, changed state to %s", p->cfg->name,
             down ? "administratively down" : "up");
    port_carrier(p, now);
}

static void age_timer_fn(void *arg, struct zvs_timer *t, uint64_t now)
{
    struct sm_switch *sw = arg;
    (void)sm_mac_age(&sw->l2.mac, now);
    zvs_timer_arm(t, now + AGE_PERIOD_NS);
}

/* ---- set-up -------------------------------------------------------------------------- */

/* A locally administered system MAC from the hostname, so two models differ. */
static void system_mac(const char *host, uint8_t mac[6])
{
    uint32_t h = 2166136261u;
    for (const char *s = host; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    mac[0] = 0x02;
    mac[1] = 0x65;                      /* "e" for etherchannel */
    mac[2] = (uint8_t)(h >> 24);
    mac[3] = (uint8_t)(h >> 16);
    mac[4] = (uint8_t)(h >> 8);
    mac[5] = (uint8_t)h;
}

static int port_open(struct sm_switch *sw, struct sm_port *p, uint64_t now)
{
    int err = 0;
    const struct sm_if_cfg *ic = p->cfg;

    p->fd = -1;
    p->zp = zvs_backend_open(sw->io->kind, ic->attach, &err);
    if (!p->zp) {
        zvs_err("%s: cannot open %s: %s", ic->name, ic->attach, strerror(-err));
        return err;
    }
    p->zp->index = (uint16_t)p->idx;
    sw->io->mac(p->zp, p->mac);
    p->fd = p->zp->ops->fd(p->zp);
    if ((err = zvs_evloop_add_fd(sw->loop, p->fd, EPOLLIN, on_rx, p)) < 0)
        return err;
    if (sw->nl && (err = zvs_netlink_link_watch(sw->nl, ic->attach)) < 0)
        return err;
    if (ic->shutdown) {
        p->admin_down = true;
        (void)set_link_up(p, false);
    } else if (sw->io->netlink) {
        (void)set_link_up(p, true);     /* a dummy link is plugged in up already */
    }
    p->carrier = p->zp->carrier;
    if (ic->rate_bps) {
        uint32_t lim = sm_tbf_limit_for(ic->rate_bps);
        if ((err = sm_shaper_init(&p->sh_in, ic->rate_bps, SM_TBF_BURST_BYTES, lim, now)) < 0 ||
            (err = sm_shaper_init(&p->sh_out, ic->rate_bps, SM_TBF_BURST_BYTES, lim, now)) < 0)
            return err;
        if (ic->rate_fps)
            sm_fb_init(&p->fb, ic->rate_fps, SM_FB_BURST_FRAMES, now);
        sm_shaper_set_frames(&p->sh_in, ic->rate_fps ? &p->fb : NULL, ic->queue_frames);
        sm_shaper_set_frames(&p->sh_out, ic->rate_fps ? &p->fb : NULL, ic->queue_frames);
        p->sh_tick = sm_shaper_tick_ns(ic->rate_bps, SM_TBF_BURST_BYTES, ic->rate_fps,
                                       SM_FB_BURST_FRAMES);
        p->sh_timer = zvs_timer_create(sw->loop, sh_timer_fn, p);
        if (!p->sh_timer)
            return -ENOMEM;
        p->shaped = true;
    }
    return 0;
}

static int port_lacp_start(struct sm_switch *sw, struct sm_port *p, uint64_t now)
{
    const struct sm_if_cfg *ic = p->cfg;
    struct zvs_lacp_port_cfg lc = {
        .active = ic->mode == SM_CHAN_ACTIVE,
        .fast = ic->fast,
        .system_priority = sw->cfg.system_priority,
        .key = (uint16_t)ic->group,
        .port_priority = ic->port_priority,
        .port = (uint16_t)(ic->slot << 8 | ic->port),   /* IOS: 0x101 for Gi1/1 */
        .speed_mbps = SPEED_MBPS,
        .full_duplex = true,
        .enabled = sm_port_up(p),
        .aggregator = &p->grp->agg,
    };
    memcpy(lc.system, sw->sysmac, 6);
    struct zvs_lacp_port_cb cb = {
        .send = lacp_send,
        .collecting = lacp_collecting,
        .distributing = lacp_distributing,
        .transition = lacp_transition,
    };
    struct zvs_lacp_marker_cb mcb = { .send = marker_send };
    int rc = zvs_lacp_marker_init(&p->mk, lc.port, sw->sysmac, &mcb, p);
    if (rc < 0)
        return rc;
    p->lacp = true;
    return zvs_lacp_port_init(&p->lp, &lc, &cb, p, now);
}

struct sm_switch *sm_switch_create(const struct sm_config *cfg, struct zvs_evloop *loop,
                                   int *err)
{
    struct sm_switch_io io = { .kind = "afpacket" };
    return sm_switch_create_io(cfg, loop, &io, err);
}

struct sm_switch *sm_switch_create_io(const struct sm_config *cfg, struct zvs_evloop *loop,
                                      const struct sm_switch_io *io, int *err)
{
    int rc = -ENOMEM;
    uint64_t now = zvs_evloop_clock(loop);
    const struct zvs_backend_class *cls = zvs_backend_find(io && io->kind ? io->kind
                                                                         : "afpacket");
    struct sm_switch *sw = NULL;
    if (!cls || !cls->open) {
        rc = -ENOENT;
        goto fail;
    }
    sw = calloc(1, sizeof(*sw));
    if (!sw)
        goto fail;
    sw->cfg = *cfg;
    sw->loop = loop;
    sw->io = cls;
    sw->lacp_armed = UINT64_MAX;
    system_mac(cfg->hostname, sw->sysmac);
    sm_mac_init(&sw->l2.mac, (uint64_t)cfg->aging_s * 1000000000ull);
    if (cls->netlink) {
        sw->nl = zvs_netlink_link_open(on_link, sw, &rc);
        if (!sw->nl)
            goto fail;
        rc = zvs_evloop_add_fd(loop, zvs_netlink_link_fd(sw->nl), EPOLLIN, on_netlink, sw);
        if (rc < 0)
            goto fail;
    }
    rc = -ENOMEM;
    sw->lacp_timer = zvs_timer_create(loop, lacp_timer_fn, sw);
    sw->age_timer = zvs_timer_create(loop, age_timer_fn, sw);
    if (!sw->lacp_timer || !sw->age_timer)
        goto fail;

    /* Logical ports: one per physical port, then one per channel group. */
    sw->n_ports = cfg->n_ifs;
    unsigned nlp = cfg->n_ifs;
    for (unsigned i = 0; i < cfg->n_ifs; i++) {
        struct sm_port *p = &sw->ports[i];
        p->sw = sw;
        p->cfg = &sw->cfg.ifs[i];
        p->idx = i;
        p->lport = (uint16_t)i;
        p->fd = -1;
        sw->l2.lp[i].trunk = p->cfg->trunk;
        sw->l2.lp[i].access_vid = p->cfg->access_vlan;
        unsigned g = p->cfg->group;
        if (!g)
            continue;
        struct sm_group *grp = &sw->groups[g];
        if (!grp->id) {
            grp->id = g;
            grp->lport = (uint16_t)nlp;
            sw->l2.lp[nlp].trunk = true;
            nlp++;
            grp->lacp = p->cfg->mode != SM_CHAN_ON;
            zvs_lacp_aggregator_init(&grp->agg, (uint16_t)g);
        }
        grp->members[grp->n_members++] = p;
        p->grp = grp;
    }
    sw->l2.n_lports = nlp;
    for (unsigned i = 0; i < sw->n_ports; i++)
        if ((rc = port_open(sw, &sw->ports[i], now)) < 0)
            goto fail;
    for (unsigned i = 0; i < sw->n_ports; i++) {
        struct sm_port *p = &sw->ports[i];
        if (p->grp && p->grp->lacp && (rc = port_lacp_start(sw, p, now)) < 0)
            goto fail;
    }
    for (unsigned i = 0; i < sw->n_ports; i++)
        port_update(&sw->ports[i]);     /* after every engine runs: no false "up" */
    sm_lacp_rearm(sw);
    zvs_timer_arm(sw->age_timer, now + AGE_PERIOD_NS);
    zvs_info("%s: %u interfaces, load-balance %s, system %02x%02x.%02x%02x.%02x%02x", cfg->hostname,
             sw->n_ports, sm_lb_name(cfg->lb), sw->sysmac[0], sw->sysmac[1], sw->sysmac[2],
             sw->sysmac[3], sw->sysmac[4], sw->sysmac[5]);
    return sw;
fail:
    sm_switch_destroy(sw);
    if (err)
        *err = rc;
    return NULL;
}

void sm_switch_destroy(struct sm_switch *sw)
{
    if (!sw)
        return;
    uint64_t now = zvs_evloop_now(sw->loop);
    for (unsigned i = 0; i < sw->n_ports; i++) {
        struct sm_port *p = &sw->ports[i];
        if (p->lacp)
            zvs_lacp_port_fini(&p->lp, now);
        p->lacp = false;
        if (p->fd >= 0)
            (void)zvs_evloop_del_fd(sw->loop, p->fd);
        if (p->zp)
            p->zp->ops->destroy(p->zp);
        if (p->sh_timer)
            zvs_timer_destroy(p->sh_timer);
        sm_shaper_fini(&p->sh_in);
        sm_shaper_fini(&p->sh_out);
    }
    if (sw->nl) {
        (void)zvs_evloop_del_fd(sw->loop, zvs_netlink_link_fd(sw->nl));
        zvs_netlink_link_close(sw->nl);
    }
    if (sw->lacp_timer)
        zvs_timer_destroy(sw->lacp_timer);
    if (sw->age_timer)
        zvs_timer_destroy(sw->age_timer);
    free(sw);
}

int sm_switch_command(struct sm_switch *sw, const char *line, FILE *out)
{
    return sm_cmd_exec(sw, line, out);
}
