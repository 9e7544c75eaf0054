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
#include <string.h>

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

/* Every NIC coupled to ds fitted again, as at its COUPLE (a segment opened or moved). */
static void couple_all(struct zvsd *d, const struct d_switch *ds)
{
    for (unsigned i = 0; i < d->nnic; i++)
        if (d->nic[i].used && d->nic[i].ds == ds)
            zvsd_vxlan_mtu_couple(d, &d->nic[i]);
}

void zvsd_vxlan_mtu_opened(struct zvsd *d, struct d_switch *ds)
{
    struct zvs_oversize_rec rec[TAKE_ROOM];

    /* What the switch recorded before it had a segment (a plain RDEV's MTU) is no
     * segment's to tell. */
    while (ds->sw && zvs_switch_take_oversize(ds->sw, rec, TAKE_ROOM) == TAKE_ROOM)
        ;
    couple_all(d, ds);
}

void zvsd_vxlan_mtu_moved(struct zvsd *d, struct d_switch *ds, uint32_t was)
{
    uint32_t now_mtu = segment_mtu(ds);

    if (now_mtu == 0)                   /* 0 here: open, but the underlay is all overhead */
        zvs_warn("VSWITCH %s: the VXLAN segment carries nothing now (was %u): its "
                 "underlay's MTU is no larger than the encapsulation", ds->cfg.name, was);
    else
        zvs_info("VSWITCH %s: the VXLAN segment carries %u bytes now (was %u): its "
                 "underlay's MTU changed", ds->cfg.name, now_mtu, was);
    couple_all(d, ds);
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

/* Records rec[0..n) into len[] by port index (the last length wins), len[] cleared at
 * the first record; returns whether there was any so far. */
static bool note_lens(uint32_t *len, bool any, const struct zvs_oversize_rec *rec,
                      unsigned n)
{
    if (n && !any)
        memset(len, 0, ZVS_MAX_PORTS * sizeof *len);
    for (unsigned i = 0; i < n; i++)
        if (rec[i].in_port < ZVS_MAX_PORTS)
            len[rec[i].in_port] = rec[i].len;
    return any || n;
}

/* Switch ds, whose VXLAN uplink p: what the switch dropped before it (a frame longer than
 * the uplink's MTU, a TCP super-frame whose MSS is past it: the port's "oversize") and
 * what its VTEP dropped (vxlan-mtu-exceeded: a super-frame's segments, a tag removed too
 * late). Both tables are emptied into one length per port index, then the switch's NICs
 * are walked once: every NIC that sent such frames is seen, however many did, at a cost
 * of one pass over the NICs, not one a record; a NIC told within the minute is skipped
 * before anything is formatted. */
void zvsd_vxlan_mtu_take(struct zvsd *d, const struct d_switch *ds, struct zvs_port *p,
                         uint64_t now)
{
    struct zvs_vtep *v = zvs_uplink_vxlan_vtep(p);
    struct zvs_oversize_rec rec[TAKE_ROOM];
    uint32_t len[ZVS_MAX_PORTS];
    bool any = false;
    unsigned n;

    do {                                /* each table until it is empty */
        n = zvs_switch_take_oversize(ds->sw, rec, TAKE_ROOM);
        any = note_lens(len, any, rec, n);
    } while (n == TAKE_ROOM);
    do {
        n = zvs_vtep_take_oversize(v, rec, TAKE_ROOM);
        any = note_lens(len, any, rec, n);
    } while (n == TAKE_ROOM);
    if (!any)
        return;
    uint32_t seg = zvs_vtep_inner_mtu(v);
    for (unsigned i = 0; i < d->nnic; i++) {
        struct d_nic *nic = &d->nic[i];
        if (!nic->used || nic->ds != ds || !nic->port || !len[nic->port->index] ||
            (nic->mtu_told && now - nic->mtu_told_ns < TELL_EVERY_NS))
            continue;
        uint32_t l = len[nic->port->index];
        nic->mtu_told = true;
        nic->mtu_told_ns = now;
        char vdev[8], lb[12], need[12], sb[12];
        snprintf(vdev, sizeof vdev, "%04X", nic->vdev);
        say_u32(lb, sizeof lb, l);
        say_u32(need, sizeof need, l - ZVS_ETH_HLEN);
        say_u32(sb, sizeof sb, seg);
        zvsd_say(d, ZVS_CPMSG_VXL_FRAME_TOO_BIG, nic->userid, ds->cfg.name, lb, vdev,
                 nic->userid, need, sb, NULL);
    }
}

void zvsd_vxlan_mtu_detaching(struct zvsd *d, const struct d_switch *ds, uint64_t now)
{
    struct zvs_port *p = ds && ds->sw ? zvsd_vxlan_port(ds) : NULL;

    /* Records name ports by index, and a NIC coupled next may take this one's: what its
     * port dropped is told while the index is still its own. */
    if (p)
        zvsd_vxlan_mtu_take(d, ds, p, now);
}

