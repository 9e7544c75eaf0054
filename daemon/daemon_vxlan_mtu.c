/* daemon_vxlan_mtu.c: a guest MTU that a switch's VXLAN segment cannot carry is reported,
 * never only counted (RFC 7348's segment carries the underlay's MTU less 50 bytes over
 * IPv4, 70 over IPv6, and zvswitch neither fragments nor drops uncounted).
 *
 * Owns:
 *  - the segment's MTU a NIC's kind is opened with (nic_create, daemon_reconcile.c): a tap
 *    vswitchd makes takes it when it is below 1500 (backends/nic_tap.c);
 *  - at COUPLE, and for the NICs already coupled when the segment opens (an underlay that
 *    came late) or its underlay's MTU changes: the kind's device lowered to it while
 *    still at the MTU the kind gave it (fit_mtu), and ZVSVXL1240W when the NIC's MTU is
 *    known and still larger (a tap adopted after a restart, one the guest raised); inside
 *    a command only once it stands (a rolled-back COUPLE leaves the tap as it was);
 *  - ZVSVXL1241W for the frames the segment could not carry, named by the NIC that sent
 *    them: the switch drops a frame longer than the VXLAN uplink's MTU before it, or a
 *    TCP super-frame whose MSS is past it where it cuts the segments (the uplink port's
 *    `oversize` discards), and the VTEP what only it can see is too big
 *    (vxlan-mtu-exceeded: a super-frame's segments); both record such frames by ingress
 *    port (dataplane/oversize.h: a record per port index and a bitmap of the ones set,
 *    nothing allocated on the data path), and this takes the records after every
 *    event-loop iteration's events, until none is left. A NIC's first such frame is told
 *    at once, then at most one a minute per NIC; the counters count every frame, told or
 *    not.
 * Rules: the VTEP stays pure (it knows ports by index, never NICs or messages); a frame
 * from a port that is no coupled NIC (another uplink) is counted only.
 */
#include "daemon/daemon_impl.h"

#include <stdio.h>

#include "dataplane/log.h"
#include "overlay/uplink_vxlan.h"
#include "overlay/vtep.h"

#define TELL_EVERY_NS (60ull * 1000000000ull)  /* a NIC's ZVSVXL1241W at most once a minute */
#define TAKE_ROOM     16                        /* oversize records moved per take */

/* The inner IP MTU of the switch's VXLAN segment, 0 when it has none open. */
static uint32_t segment_mtu(const struct d_switch *ds)
{
    struct zvs_port *p = ds && ds->sw ? zvsd_vxlan_port(ds) : NULL;

    return p ? zvs_vtep_inner_mtu(zvs_uplink_vxlan_vtep(p)) : 0;
}

uint32_t zvsd_vxlan_nic_mtu(struct zvsd *d, const struct zvs_cfg_nic *nic)
{
    return nic->vswitch >= 0 ? segment_mtu(zvsd_switch_by_name(d, nic->lan)) : 0;
}

static void say_u32(char *buf, size_t size, uint32_t v)
{
    snprintf(buf, size, "%u", (unsigned)v);
}

/* Coupled NIC n's device lowered to its segment while at the kind's own MTU; told
 * (ZVSVXL1240W) when its MTU is known and still larger. */
static void fit_nic(struct zvsd *d, struct d_nic *n, bool tell)
{
    uint32_t seg = segment_mtu(n->ds);

    if (seg == 0)
        return;
    uint32_t mtu = zvs_nic_fit_mtu(n->side, seg);
    if (mtu <= seg || !tell)
        return;                         /* fits, or unknown (a program's: its frames tell) */
    char vdev[8], m[12], s[12];
    snprintf(vdev, sizeof vdev, "%04X", n->vdev);
    say_u32(m, sizeof m, mtu);
    say_u32(s, sizeof s, seg);
    zvsd_say(d, ZVS_CPMSG_VXL_NIC_MTU, n->userid, vdev, n->userid, m, n->ds->cfg.name, s,
             NULL);
}

void zvsd_vxlan_mtu_couple(struct zvsd *d, struct d_nic *n)
{
    if (d->holding) {
        /* A command's pass: a tap lowered now would stay lowered if the command were
         * rolled back (the reverse pass uncouples, it cannot know the MTU was ours). */
        n->mtu_fit_due = true;
        return;
    }
    fit_nic(d, n, true);
}

void zvsd_vxlan_mtu_opened(struct zvsd *d, struct d_switch *ds)
{
    struct zvs_oversize_rec rec[TAKE_ROOM];

    /* What the switch recorded before it had a segment (a plain RDEV's MTU) is no
     * segment's to tell. */
    while (ds->sw && zvs_switch_take_oversize(ds->sw, rec, TAKE_ROOM) == TAKE_ROOM)
        ;
    for (unsigned i = 0; i < d->nnic; i++)
        if (d->nic[i].used && d->nic[i].ds == ds)
            zvsd_vxlan_mtu_couple(d, &d->nic[i]);
}

void zvsd_vxlan_mtu_moved(struct zvsd *d, struct d_switch *ds, uint32_t was)
{
    zvs_info("VSWITCH %s: the VXLAN segment carries %u bytes now (was %u): its underlay's "
             "MTU changed", ds->cfg.name, segment_mtu(ds), was);
    for (unsigned i = 0; i < d->nnic; i++)
        if (d->nic[i].used && d->nic[i].ds == ds)
            zvsd_vxlan_mtu_couple(d, &d->nic[i]);
}

void zvsd_vxlan_mtu_settled(struct zvsd *d, bool stands)
{
    for (unsigned i = 0; i < d->nnic; i++) {
        struct d_nic *n = &d->nic[i];
        if (!n->used || !n->mtu_fit_due)
            continue;
        n->mtu_fit_due = false;
        /* Rolled back: what is still coupled (a segment that opened by itself in the
         * pass, an UNCOUPLE undone) is fitted without a word, as the command said none. */
        if (n->ds)
            fit_nic(d, n, stands);
    }
}

/* The coupled NIC whose port has index `in_port` on ds's switch, or NULL. */
static struct d_nic *nic_of_port(struct zvsd *d, const struct d_switch *ds, uint16_t in_port)
{
    const struct zvs_port *p = zvs_switch_port(ds->sw, in_port);

    for (unsigned i = 0; p && i < d->nnic; i++)
        if (d->nic[i].used && d->nic[i].ds == ds && d->nic[i].port == p)
            return &d->nic[i];
    return NULL;
}

/* Records of frames the segment of switch ds could not carry (seg: its MTU): each NIC's
 * told unless it was within the minute. */
static void tell_oversize(struct zvsd *d, const struct d_switch *ds, uint32_t seg,
                          const struct zvs_oversize_rec *rec, unsigned n, uint64_t now)
{
    for (unsigned i = 0; i < n; i++) {
        struct d_nic *nic = nic_of_port(d, ds, rec[i].in_port);
        if (!nic || (nic->mtu_told && now - nic->mtu_told_ns < TELL_EVERY_NS))
            continue;
        nic->mtu_told = true;
        nic->mtu_told_ns = now;
        char vdev[8], len[12], need[12], s[12];
        snprintf(vdev, sizeof vdev, "%04X", nic->vdev);
        say_u32(len, sizeof len, rec[i].len);
        say_u32(need, sizeof need, rec[i].len - ZVS_ETH_HLEN);
        say_u32(s, sizeof s, seg);
        zvsd_say(d, ZVS_CPMSG_VXL_FRAME_TOO_BIG, nic->userid, ds->cfg.name, len, vdev,
                 nic->userid, need, s, NULL);
    }
}

/* Switch ds, whose VXLAN uplink p: what the switch dropped before it (a frame longer than
 * the uplink's MTU, a TCP super-frame whose MSS is past it: the port's "oversize") and
 * what its VTEP dropped (vxlan-mtu-exceeded: a super-frame's segments, a tag removed too
 * late). Each table is walked until it is empty: every NIC that sent such frames is
 * seen, however many did. */
static void vxlan_oversize(struct zvsd *d, const struct d_switch *ds, struct zvs_port *p,
                           uint64_t now)
{
    struct zvs_vtep *v = zvs_uplink_vxlan_vtep(p);
    struct zvs_oversize_rec rec[TAKE_ROOM];
    unsigned n;

    do {
        if ((n = zvs_switch_take_oversize(ds->sw, rec, TAKE_ROOM)) > 0)
            tell_oversize(d, ds, zvs_vtep_inner_mtu(v), rec, n, now);
    } while (n == TAKE_ROOM);
    do {
        if ((n = zvs_vtep_take_oversize(v, rec, TAKE_ROOM)) > 0)
            tell_oversize(d, ds, zvs_vtep_inner_mtu(v), rec, n, now);
    } while (n == TAKE_ROOM);
}

void zvsd_vxlan_mtu_idle(struct zvsd *d, uint64_t now)
{
    /* The VXLAN uplinks: an RDEV underlay's is tracked as an uplink, a group's is the
     * switch's overlay; a look at each costs a load when it recorded nothing. */
    for (unsigned i = 0; i < d->nup; i++) {
        struct d_uplink *u = &d->up[i];
        if (u->port && u->ds && u->ds->sw && zvs_uplink_is_vxlan(u->port))
            vxlan_oversize(d, u->ds, u->port, now);
    }
    for (unsigned i = 0; i < d->nsw; i++)
        if (d->sw[i].sw && d->sw[i].overlay)
            vxlan_oversize(d, &d->sw[i], d->sw[i].overlay, now);
}
