/* daemon_vxlan.c: VXLAN VSWITCH made real. A switch with a VXLAN statement gets a VXLAN
 * uplink (overlay/uplink_vxlan.h) on its underlay RDEV: the RDEV's backend opened as for
 * any RDEV, a VTEP built from the statement (our address and the interface's MAC, the
 * VNI on the switch's untagged VLAN, the remote VTEPs, host names watched in the daemon's
 * names table), the port attached to the switch and tracked like an RDEV (its descriptor
 * and carrier are the underlay's). QUERY VSWITCH shows the VTEP, its remotes and the
 * learned MACs, and the discards by reason (lines of ours).
 *
 * The underlay may instead be the switch's port group (VXLAN ... GROUP): the group joins
 * its members and runs their LACP as for any group, the uplink writes on them through
 * overlay/underlay_group.h (each flow's member by the outer UDP source port) and reads
 * them (on_uplink polls the uplink when a member is readable), and the switch leaves
 * the members to it (zvs_switch_set_group_underlay). The VTEP's MAC is the group's LACP
 * system MAC, one address whichever member carries a frame, as a bond has one. The
 * uplink goes before its group does (group_release).
 *
 * The uplink is built when the switch's uplinks open (start, CONNECT); after that its
 * VTEP follows the statement's remotes and VNI (daemon_vxlan_follow.c: SET VSWITCH ...
 * VXLAN); LOCAL, UDPPORT, GATEWAY and the underlay are the uplink's own and change with
 * the switch's uplinks reopened.
 */
#include "daemon/daemon_impl.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "backends/ivl_port.h"
#include "overlay/underlay_group.h"
#include "overlay/uplink_vxlan.h"
#include "overlay/vtep_names.h"

static const struct zvs_cfg_vxlan *vxlan_cfg(const struct zvs_cfg *cfg, const char *vswitch)
{
    for (unsigned i = 0; i < cfg->nvxlan; i++)
        if (strcmp(cfg->vxlan[i].vswitch, vswitch) == 0)
            return &cfg->vxlan[i];
    return NULL;
}

/* The switch's VXLAN uplink, or NULL. */
static struct zvs_port *vxlan_port(const struct d_switch *ds)
{
    for (struct zvs_port *p = zvs_switch_next_port(ds->sw, NULL); p;
         p = zvs_switch_next_port(ds->sw, p))
        if (zvs_uplink_is_vxlan(p))
            return p;
    return NULL;
}

/* The VTEP of a statement; NULL with why. */
static struct zvs_vtep *vtep_make(struct zvsd *d, const struct zvs_cfg_vxlan *vx,
                                  const struct zvs_cfg_vswitch *vs, const uint8_t mac[6],
                                  char *why, size_t whylen)
{
    struct zvs_vtep_config c = { .udp_port = vx->udp_port,
                                 .untagged_vid = vs->vlan_aware ? vs->native_vid : 0 };
    struct zvs_vtep *v;
    int rc;

    memcpy(c.local_mac, mac, 6);
    if (zvs_ipaddr_parse(vx->local, &c.local) < 0 ||
        (vx->gateway[0] && zvs_ipaddr_parse(vx->gateway, &c.gateway) < 0)) {
        snprintf(why, whylen, "bad address");          /* the parser checked them */
        return NULL;
    }
    v = zvs_vtep_create(&c);
    if (!v) {
        snprintf(why, whylen, "VTEP: %s", strerror(errno));
        return NULL;
    }
    rc = zvsd_vtep_follow(d, v, vx, vs, why, whylen);
    if (rc < 0) {
        zvsd_vxlan_forget(d, v);
        zvs_vtep_destroy(v);
        return NULL;
    }
    return v;
}

bool zvsd_vxlan_open(const struct d_switch *ds)
{
    return vxlan_port(ds) != NULL;
}

struct zvs_port *zvsd_vxlan_port(const struct d_switch *ds)
{
    return vxlan_port(ds);
}

void zvsd_vxlan_forget(struct zvsd *d, struct zvs_vtep *v)
{
    struct zvs_names *names = zvsd_names_table(d);

    for (unsigned i = 0; names && i < ZVS_VTEP_MAX_REMOTES; i++) {
        const struct zvs_vtep_remote *r = zvs_vtep_remote(v, i);

        if (r->state != ZVS_VTEP_REMOTE_FREE)
            zvs_vtep_del_remote_name(v, names, i);
    }
}

/* A member's Slow Protocols frame, read through the VXLAN uplink: to its group. */
static void group_slow(void *arg, struct zvs_port *member, const struct zvs_frame *f)
{
    struct zvsd *d = arg;

    for (unsigned i = 0; i < d->nsw; i++)
        if (d->sw[i].sw && d->sw[i].lag && zvs_lag_is_member(d->sw[i].lag, member))
            zvs_lag_slow_input(d->sw[i].lag, member, f, zvs_evloop_now(d->loop));
}

/* The underlay of a statement: its RDEV opened (tracked with the uplink), or the
 * switch's group borrowed; NULL with why and *err. */
static struct zvs_port *underlay_open(struct zvsd *d, struct d_switch *ds,
                                      const struct zvs_cfg_vxlan *vx, const char **ifname,
                                      uint8_t mac[6], char *why, size_t whylen, int *err)
{
    struct zvs_port *u;

    if (!vx->group[0])
        return zvsd_open_rdev(d, vx->rdev, ifname, mac, why, whylen, err);
    if (!ds->lag || strcmp(zvs_lag_params(ds->lag)->pg.name, vx->group) != 0) {
        snprintf(why, whylen, "port group %s is not the switch's", vx->group);
        *err = -ENODEV;                 /* waits for the switch's GROUP */
        return NULL;
    }
    u = zvs_underlay_group_create(vx->group, ds->lag, group_slow, d, err);
    if (!u)
        snprintf(why, whylen, "port group %s: %s", vx->group, strerror(-*err));
    else
        memcpy(mac, zvs_lag_params(ds->lag)->system, 6);
    *ifname = vx->group;
    return u;
}

/* The VXLAN uplink's clock: the event loop's (CLOCK_MONOTONIC on a real loop, the
 * virtual time on a test's), so the VTEP's learned MACs and neighbours age in the time
 * the rest of the daemon runs in: a call and a load, cheaper than clock_gettime.
 * The loop reads its clock once per iteration (again when a deadline falls due among
 * the callbacks, and after them), so a frame is stamped at most one iteration's bursts
 * early, milliseconds against aging's granularity of a second and ages of minutes. */
static uint64_t loop_now(void *loop)
{
    return zvs_evloop_now(loop);
}

int zvsd_vxlan_sync(struct zvsd *d, struct d_switch *ds, const struct zvs_cfg_vswitch *vs,
                    char *why, size_t whylen, int *err)
{
    const struct zvs_cfg_vxlan *vx = vxlan_cfg(d->run, vs->name);
    const char *ifname = NULL;
    struct zvs_port *under, *p;
    struct zvs_vtep *v;
    uint8_t mac[6];

    why[0] = '\0';
    *err = 0;
    if (!vx)
        return 0;
    if ((p = vxlan_port(ds)) != NULL) {  /* a command changed the statement, or nothing */
        *err = zvsd_vtep_follow(d, zvs_uplink_vxlan_vtep(p), vx, vs, why, whylen);
        return *err < 0 ? -1 : 0;
    }
    under = underlay_open(d, ds, vx, &ifname, mac, why, whylen, err);
    if (!under)
        return -1;
    v = vtep_make(d, vx, vs, mac, why, whylen);
    if (!v) {
        under->ops->destroy(under);
        *err = -EINVAL;
        return -1;
    }
    p = zvs_uplink_vxlan_create(under->name, v, under, err);
    if (!p) {
        snprintf(why, whylen, "VXLAN uplink: %s", strerror(-*err));
        zvsd_vxlan_forget(d, v);
        zvs_vtep_destroy(v);
        under->ops->destroy(under);
        return -1;
    }
    zvs_uplink_vxlan_set_clock(p, loop_now, d->loop);
    if (zvs_switch_add_uplink(ds->sw, p) < 0) {
        snprintf(why, whylen, "no room for the uplink");
        zvsd_vxlan_forget(d, v);
        p->ops->destroy(p);
        *err = -ENOSPC;
        return -1;
    }
    if (vx->group[0]) {                 /* the members are read through p */
        ds->overlay = p;
        zvs_switch_set_group_underlay(ds->sw, true);
    } else {
        zvsd_track_uplink(d, ds, p, ifname, false);
    }
    zvs_info("VSWITCH %s VXLAN VNI %u on %s %s (%s), MTU %u", vs->name, (unsigned)vx->vni,
             vx->group[0] ? "GROUP" : "RDEV", p->name, ifname, p->mtu);
    zvsd_vxlan_mtu_opened(d, ds);       /* NICs coupled before the segment was known */
    return 0;
}

void zvsd_vxlan_closing(struct zvsd *d, struct d_switch *ds, struct zvs_port *p)
{
    zvsd_vxlan_forget(d, zvs_uplink_vxlan_vtep(p));
    if (p == ds->overlay) {
        zvs_switch_set_group_underlay(ds->sw, false);
        ds->overlay = NULL;
    }
}

void zvsd_vxlan_close_group(struct zvsd *d, struct d_switch *ds)
{
    struct zvs_port *p = ds->overlay;

    if (!p)
        return;
    zvs_info("VSWITCH %s VXLAN uplink over port group %s closed", ds->cfg.name, p->name);
    zvsd_vxlan_closing(d, ds, p);
    zvs_switch_remove_port(ds->sw, p);
}

/* A VXLAN uplink after the loop's events: its tables aged (a compare unless a second has
 * passed), then what its segment could not carry told (daemon_vxlan_mtu.c). */
static void uplink_idle(struct zvsd *d, const struct d_switch *ds, struct zvs_port *p,
                        uint64_t now)
{
    zvs_uplink_vxlan_age(p);
    zvsd_vxlan_mtu_take(d, ds, p, now);
}

void zvsd_vxlan_idle(struct zvsd *d, uint64_t now)
{
    /* An RDEV underlay's uplink is tracked as an uplink, a group's is the switch's
     * overlay. */
    for (unsigned i = 0; i < d->nup; i++) {
        struct d_uplink *u = &d->up[i];
        if (u->port && u->ds && u->ds->sw && zvs_uplink_is_vxlan(u->port))
            uplink_idle(d, u->ds, u->port, now);
    }
    for (unsigned i = 0; i < d->nsw; i++)
        if (d->sw[i].sw && d->sw[i].overlay)
            uplink_idle(d, &d->sw[i], d->sw[i].overlay, now);
}

static int show_mac(void *arg, const struct zvs_vtep_fdb_entry *e)
{
    struct zvs_cp_response *r = arg;
    char mac[18];

    zvs_mac_format(e->mac, mac, sizeof mac);
    zvs_cp_printf(r, "    MAC %s VNI %u  remote %u%s", mac, (unsigned)e->vni,
                  (unsigned)e->remote, e->is_static ? " static" : "");
    return 0;
}

/* The underlay's neighbour table, a line an entry (ours): the next hops the VTEP asked
 * for or was given, their MACs (none while INCOMPLETE) and states. */
static void show_neighbors(struct zvs_vtep *v, struct zvs_cp_response *r)
{
    const struct zvs_uarp *u = zvs_vtep_uarp(v);

    for (unsigned i = 0; i < ZVS_UARP_MAX; i++) {
        const struct zvs_uarp_entry *e = &u->e[i];
        char a[64], mac[18] = "-";

        if (e->state == ZVS_UARP_FREE)
            continue;
        if (e->state != ZVS_UARP_INCOMPLETE)
            zvs_mac_format(e->mac, mac, sizeof mac);
        zvs_cp_printf(r, "    Neighbor %s  MAC %s  state: %s", zvs_ipaddr_str(&e->ip, a, sizeof a),
                      mac, zvs_uarp_state_name((enum zvs_uarp_state)e->state));
    }
}

void zvsd_vxlan_query(const struct d_switch *ds, bool details, struct zvs_cp_response *r)
{
    struct zvs_port *p = vxlan_port(ds);
    struct zvs_vtep *v = p ? zvs_uplink_vxlan_vtep(p) : NULL;
    const struct zvs_vtep_config *c;
    struct zvs_vtep_fdb_stats fs;
    struct zvs_vtep_stats st;
    char a[64], g[64];

    if (!v)
        return;
    /* A quiet segment on a loop with no timer armed may not have run an idle pass for
     * a while: the tables are aged up to now before they are shown. */
    zvs_uplink_vxlan_age(p);
    c = zvs_vtep_config_of(v);
    zvs_vtep_fdb_stats(zvs_vtep_fdb(v), &fs);
    zvs_vtep_stats(v, &st);
    zvs_cp_printf(r, "  VXLAN VTEP: %s  UDP port: %u  underlay %s: %s  MTU: %u",
                  zvs_ipaddr_str(&c->local, a, sizeof a), (unsigned)c->udp_port,
                  p == ds->overlay ? "GROUP" : "RDEV", p->name, p->mtu);
    if (c->gateway.family)
        zvs_cp_printf(r, "    Gateway: %s", zvs_ipaddr_str(&c->gateway, g, sizeof g));
    for (unsigned i = 0; i < zvs_vtep_nvnis(v); i++) {
        uint16_t vid;
        uint32_t vni = zvs_vtep_vni_at(v, i, &vid);

        if (vid == ZVS_VID_NONE)
            zvs_cp_printf(r, "    VNI %u", (unsigned)vni);
        else
            zvs_cp_printf(r, "    VNI %u  VLAN %u", (unsigned)vni, (unsigned)vid);
    }
    for (unsigned i = 0; i < ZVS_VTEP_MAX_REMOTES; i++) {
        const struct zvs_vtep_remote *rm = zvs_vtep_remote(v, i);

        if (rm->state == ZVS_VTEP_REMOTE_FREE)
            continue;
        zvs_cp_printf(r, "    Remote %u: %s  address: %s  state: %s  TX: %llu  RX: %llu", i,
                      rm->name, zvs_ipaddr_str(&rm->addr, a, sizeof a),
                      rm->state == ZVS_VTEP_REMOTE_ACTIVE ? "ACTIVE" : "RESOLVING",
                      (unsigned long long)rm->tx_frames, (unsigned long long)rm->rx_frames);
    }
    show_neighbors(v, r);
    zvs_cp_printf(r, "    Encapsulated: %llu  replicated: %llu  decapsulated: %llu  "
                  "learned MACs: %u of %u", (unsigned long long)st.encapsulated,
                  (unsigned long long)st.replicated, (unsigned long long)st.decapsulated,
                  fs.entries, fs.capacity);
    for (int k = 0; k < ZVS_VTEP_REASONS; k++)
        if (st.reason[k])
            zvs_cp_printf(r, "    Discards %s: %llu", zvs_vtep_reason_name((enum zvs_vtep_reason)k),
                          (unsigned long long)st.reason[k]);
    if (details)
        zvs_vtep_fdb_foreach(zvs_vtep_fdb(v), show_mac, r);
}

const struct zvs_port *zvsd_wire_port(const struct zvs_port *p)
{
    const struct zvs_port *u = zvs_uplink_vxlan_underlay(p);

    if (!u)
        u = zvs_ivl_port_lower(p);
    return u ? u : p;
}
