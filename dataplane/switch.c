/* VSWITCH management: creating the switch, attaching uplinks, coupling guests, carrier
 * and uplink failover. The per-frame path is in forward.c.
 *
 * Uplink failover (DEFINE VSWITCH ... RDEV a b c): the first RDEV attached that has
 * carrier carries all traffic; when it loses carrier the next one in attach order with
 * carrier takes over, and when an earlier one returns it takes the traffic back, which is
 * what z/VM does with its primary and backup devices.
 * SET VSWITCH ... SWITCHOVER (zvs_switch_switchover) forces another RDEV active. A forced
 * choice is sticky: carrier events of other RDEVs (an earlier one returning included) do
 * not move the traffic while the forced one has carrier. When it loses carrier, or is
 * detached, the forcing ends and the rule above picks again (the first RDEV with carrier
 * in attach order), so failover keeps working and a later return preempts as before.
 * The "forced" bit is management state that forward.c never reads: it lives in struct
 * switch_mgmt around struct zvs_switch, here only.
 *
 * Runtime changes of a coupled guest (zvs_switch_update_guest: SET VSWITCH GRANT, a new
 * MAC or MACPROTECT) are checked completely before anything is touched (MAC and VIDs
 * usable, no other port's assigned MAC on a new VID, room in the MAC table), so a refused
 * change leaves the table as it was; an accepted one cannot fail half-way.
 *
 * Detaching a port (zvs_switch_detach_port; remove_port is detach + destroy) is for the
 * event loop between bursts, or for the Slow Protocols handler, which forward.c calls
 * after the burst's frames are written: no egress holds frames then (asserted).
 * Hazards: the handler must not detach the port whose burst it is called for (its
 * remaining frames and the backend's release still use it), and a port-group member must
 * leave the group's map (lag.c) before it is detached, as the map names ports by index.
 *
 * Port groups: members are uplinks too (zvs_switch_add_group_port) but not failover
 * devices. Outbound frames follow the group's bucket map (distribution.h) while any member
 * distributes; only when none does do they fall back to the active RDEV, so an RDEV
 * given beside GROUP is the group's backup. The group itself (its LACP engines and
 * rebalancer) is driven from outside (lag.c); the switch only reads its published map.
 */
#include "dataplane/switch.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dataplane/mac_table.h"
#include "dataplane/switch_impl.h"

#define DEFAULT_MAC_AGE_NS (300ull * 1000000000ull)

/* What only management reads: kept beside, not inside, the data path's layout. */
struct switch_mgmt {
    struct zvs_switch sw;               /* first: a struct zvs_switch * is this */
    bool              uplink_forced;    /* active_uplink chosen by SWITCHOVER: sticky */
};

static struct switch_mgmt *mgmt(struct zvs_switch *sw)
{
    return (struct switch_mgmt *)sw;
}

struct zvs_switch *zvs_switch_create(const struct zvs_switch_params *params)
{
    struct switch_mgmt *m = calloc(1, sizeof(*m));
    if (!m)
        return NULL;
    struct zvs_switch *sw = &m->sw;
    sw->params = *params;
    uint32_t cap = params->mac_capacity ? params->mac_capacity : ZVS_MAC_CAPACITY;
    uint64_t age = params->mac_age_ns ? params->mac_age_ns : DEFAULT_MAC_AGE_NS;
    sw->macs = zvs_mac_table_create(cap, age);
    sw->scratch = malloc(ZVS_SCRATCH_LEN);
    sw->scratch2 = malloc(ZVS_SCRATCH_LEN);
    sw->active_uplink = -1;
    sw->ivl_port = -1;
    if (!sw->macs || !sw->scratch || !sw->scratch2) {
        zvs_switch_destroy(sw);
        return NULL;
    }
    return sw;
}

void zvs_switch_destroy(struct zvs_switch *sw)
{
    if (!sw)
        return;
    for (int i = 0; i < ZVS_MAX_PORTS; i++) {
        struct zvs_port *p = sw->sp[i].port;
        if (p && p->ops->destroy)
            p->ops->destroy(p);
    }
    zvs_mac_table_destroy(sw->macs);
    free(sw->scratch);
    free(sw->scratch2);
    free(mgmt(sw));
}

const struct zvs_switch_params *zvs_switch_params(const struct zvs_switch *sw)
{
    return &sw->params;
}

static int free_slot(const struct zvs_switch *sw)
{
    for (int i = 0; i < ZVS_MAX_PORTS; i++)
        if (!sw->sp[i].port)
            return i;
    return -1;
}

/* Position of port index idx in the RDEV list (attach order), or -1. */
static int uplink_pos(const struct zvs_switch *sw, int idx)
{
    for (uint16_t i = 0; i < sw->nuplinks; i++)
        if (sw->uplinks[i] == idx)
            return i;
    return -1;
}

static void pick_uplink(struct zvs_switch *sw)
{
    struct switch_mgmt *m = mgmt(sw);
    if (m->uplink_forced) {
        /* A SWITCHOVER choice stays while it is attached and has carrier. */
        if (sw->active_uplink >= 0 && uplink_pos(sw, sw->active_uplink) >= 0 &&
                sw->sp[sw->active_uplink].port->carrier)
            return;
        m->uplink_forced = false;
    }
    sw->active_uplink = -1;
    for (uint16_t i = 0; i < sw->nuplinks; i++) {
        struct zvs_port *p = sw->sp[sw->uplinks[i]].port;
        if (p->carrier) {
            sw->active_uplink = p->index;
            return;
        }
    }
    /* None has carrier: keep the primary so its discards are counted where expected. */
    if (sw->nuplinks)
        sw->active_uplink = sw->uplinks[0];
}

int zvs_switch_add_uplink(struct zvs_switch *sw, struct zvs_port *port)
{
    int slot = free_slot(sw);
    if (slot < 0 || sw->nuplinks >= ZVS_MAX_UPLINKS)
        return -ENOSPC;
    port->index = (uint16_t)slot;
    port->role = ZVS_PORT_UPLINK;
    sw->sp[slot] = (struct zvs_swport){ .port = port };
    sw->sp[slot].collecting = true;
    sw->uplinks[sw->nuplinks++] = (uint16_t)slot;
    pick_uplink(sw);
    return 0;
}

int zvs_switch_add_group_port(struct zvs_switch *sw, struct zvs_port *port)
{
    int slot = free_slot(sw);
    if (slot < 0)
        return -ENOSPC;
    port->index = (uint16_t)slot;
    port->role = ZVS_PORT_UPLINK;
    sw->sp[slot] = (struct zvs_swport){ .port = port, .in_group = true };
    return 0;
}

int zvs_switch_add_ivl_port(struct zvs_switch *sw, struct zvs_port *port)
{
    if (sw->ivl_port >= 0)
        return -EEXIST;
    int slot = free_slot(sw);
    if (slot < 0)
        return -ENOSPC;
    port->index = (uint16_t)slot;
    port->role = ZVS_PORT_UPLINK;
    sw->sp[slot] = (struct zvs_swport){ .port = port, .is_ivl = true, .collecting = true };
    sw->ivl_port = slot;
    return 0;
}

struct zvs_port *zvs_switch_ivl_port(const struct zvs_switch *sw)
{
    return sw->ivl_port >= 0 ? sw->sp[sw->ivl_port].port : NULL;
}

void zvs_switch_set_group(struct zvs_switch *sw, struct zvs_pg_dist *group)
{
    sw->group = group;
}

struct zvs_pg_dist *zvs_switch_group(const struct zvs_switch *sw)
{
    return sw->group;
}

void zvs_switch_set_group_underlay(struct zvs_switch *sw, bool on)
{
    sw->group_underlay = on;
}

void zvs_switch_set_collecting(struct zvs_switch *sw, struct zvs_port *port, bool on)
{
    struct zvs_swport *s = &sw->sp[port->index];
    if (s->port == port && !s->is_guest)
        s->collecting = on;
}

bool zvs_switch_is_group_port(const struct zvs_switch *sw, const struct zvs_port *port)
{
    const struct zvs_swport *s = &sw->sp[port->index];
    return s->port == port && s->in_group;
}

/* The VIDs a guest's assigned MAC is registered on: its access VLAN, every granted VLAN
 * of a trunk, or VID 0 when the switch is VLAN UNAWARE. fn's first non-zero result ends
 * the walk and is returned. */
static int for_each_guest_vid(const struct zvs_switch *sw, const struct zvs_guest *g,
                              int (*fn)(void *ctx, uint16_t vid), void *ctx)
{
    if (!sw->params.vlan.aware)
        return fn(ctx, ZVS_VID_NONE);
    if (g->vlan.porttype == ZVS_VLAN_ACCESS)
        return fn(ctx, g->vlan.access_vid);
    for (uint16_t vid = 1; vid <= ZVS_VID_MAX; vid++) {
        if (!zvs_vlan_is_granted(&g->vlan, vid))
            continue;
        int rc = fn(ctx, vid);
        if (rc)
            return rc;
    }
    return 0;
}

/* Is the guest's assigned MAC registered on vid (the same rule as for_each_guest_vid)? */
static bool guest_on_vid(const struct zvs_switch *sw, const struct zvs_guest *g, uint16_t vid)
{
    if (!sw->params.vlan.aware)
        return vid == ZVS_VID_NONE;
    if (g->vlan.porttype == ZVS_VLAN_ACCESS)
        return vid == g->vlan.access_vid;
    return vid >= 1 && vid <= ZVS_VID_MAX && zvs_vlan_is_granted(&g->vlan, vid);
}

/* One guest's MAC entries being registered or checked. */
struct reg {
    struct zvs_switch      *sw;
    const struct zvs_guest *g;          /* whose MAC */
    const struct zvs_guest *keep;       /* update: the registration that replaces g */
    uint16_t                port;       /* port index of the guest */
    uint32_t                needed;     /* check: new entries the change adds */
    uint32_t                freed;      /* check: entries the change removes */
};

static int register_mac(void *ctx, uint16_t vid)
{
    struct reg *r = ctx;
    int rc = zvs_mac_table_add_static(r->sw->macs, r->g->mac, vid, r->port);
    return rc == -EEXIST && zvs_mac_table_lookup(r->sw->macs, r->g->mac, vid) == r->port ? 0 : rc;
}

static int unregister_mac(void *ctx, uint16_t vid)
{
    struct reg *r = ctx;
    if (zvs_mac_table_lookup(r->sw->macs, r->g->mac, vid) == r->port)
        zvs_mac_table_remove(r->sw->macs, r->g->mac, vid);
    return 0;
}

int zvs_switch_add_guest(struct zvs_switch *sw, struct zvs_port *port, const struct zvs_guest *guest)
{
    int slot = free_slot(sw);
    if (slot < 0)
        return -ENOSPC;
    struct reg r = { .sw = sw, .g = guest, .port = (uint16_t)slot };
    int rc = for_each_guest_vid(sw, guest, register_mac, &r);
    if (rc) {
        /* Leave nothing behind: a failed couple changes nothing. */
        for_each_guest_vid(sw, guest, unregister_mac, &r);
        return rc;
    }
    port->index = (uint16_t)slot;
    port->role = ZVS_PORT_GUEST;
    sw->sp[slot] = (struct zvs_swport){ .port = port, .is_guest = true, .guest = *guest };
    sw->guests[sw->nguests++] = (uint16_t)slot;
    return 0;
}

static bool mac_equal(const uint8_t *a, const uint8_t *b)
{
    return memcmp(a, b, ZVS_ETH_ALEN) == 0;
}

/* Update check, per VID of the new registration: the key must be usable and not another
 * guest's assigned MAC (a STATIC entry: only this file makes them, so the owner's
 * registration says which entries are static); count the keys that need a new entry. */
static int check_new_vid(void *ctx, uint16_t vid)
{
    struct reg *r = ctx;
    if (vid > ZVS_VID_MAX)
        return -EINVAL;
    int out = zvs_mac_table_lookup(r->sw->macs, r->g->mac, vid);
    if (out < 0) {
        r->needed++;
        return 0;
    }
    const struct zvs_swport *o = &r->sw->sp[out];
    if (out != r->port && o->port && o->is_guest && mac_equal(o->guest.mac, r->g->mac) &&
            guest_on_vid(r->sw, &o->guest, vid))
        return -EEXIST;
    return 0;                           /* ours, or learned: add_static takes it over */
}

/* Update check, per VID of the old registration: entries of keys the new one drops. */
static int count_old_vid(void *ctx, uint16_t vid)
{
    struct reg *r = ctx;
    bool kept = mac_equal(r->g->mac, r->keep->mac) && guest_on_vid(r->sw, r->keep, vid);
    if (!kept && zvs_mac_table_lookup(r->sw->macs, r->g->mac, vid) == r->port)
        r->freed++;
    return 0;
}

/* Update, per VID of the old registration: remove the entries the new one drops. */
static int drop_old_vid(void *ctx, uint16_t vid)
{
    struct reg *r = ctx;
    if (mac_equal(r->g->mac, r->keep->mac) && guest_on_vid(r->sw, r->keep, vid))
        return 0;
    return unregister_mac(ctx, vid);
}

static bool mac_assignable(const uint8_t *mac)
{
    static const uint8_t zero[ZVS_ETH_ALEN];
    return !(mac[0] & 1) && !mac_equal(mac, zero);
}

int zvs_switch_update_guest(struct zvs_switch *sw, struct zvs_port *port,
                            const struct zvs_guest *guest)
{
    uint16_t idx = port->index;
    if (idx >= ZVS_MAX_PORTS || sw->sp[idx].port != port || !sw->sp[idx].is_guest)
        return -ENOENT;
    struct zvs_swport *s = &sw->sp[idx];
    if (!mac_assignable(guest->mac))
        return -EINVAL;

    /* Check everything first: a refused change changes nothing. */
    struct reg nr = { .sw = sw, .g = guest, .port = idx };
    int rc = for_each_guest_vid(sw, guest, check_new_vid, &nr);
    if (rc)
        return rc;
    struct reg orr = { .sw = sw, .g = &s->guest, .keep = guest, .port = idx };
    for_each_guest_vid(sw, &s->guest, count_old_vid, &orr);
    struct zvs_mac_table_stats ms;
    zvs_mac_table_stats(sw->macs, &ms);
    /* The port's learned entries are flushed too, but not counted: conservative. */
    if ((uint64_t)ms.entries - orr.freed + nr.needed > ms.capacity)
        return -ENOSPC;

    /* Apply: old keys out, the port's learned entries out (they were learned on the old
     * VLANs, and MACPROTECT may now forbid them), new keys in; nothing can fail now. */
    for_each_guest_vid(sw, &s->guest, drop_old_vid, &orr);
    zvs_mac_table_remove_learned_port(sw->macs, idx);
    rc = for_each_guest_vid(sw, guest, register_mac, &nr);
    assert(rc == 0);
    (void)rc;
    s->guest = *guest;
    return 0;
}

struct zvs_port *zvs_switch_detach_port(struct zvs_switch *sw, struct zvs_port *port)
{
    uint16_t idx = port->index;
    if (idx >= ZVS_MAX_PORTS || sw->sp[idx].port != port)
        return NULL;
    /* Nothing is called out of a burst (forward.c), so no frame is queued for the port. */
    assert(!sw->sp[idx].active && sw->sp[idx].npend == 0);
    if (sw->sp[idx].is_guest) {
        zvs_mac_table_remove_port(sw->macs, idx);
        for (uint16_t i = 0; i < sw->nguests; i++) {
            if (sw->guests[i] == idx) {
                sw->guests[i] = sw->guests[--sw->nguests];
                break;
            }
        }
        sw->sp[idx] = (struct zvs_swport){ 0 };
    } else if (sw->sp[idx].is_ivl) {
        zvs_mac_table_remove_port(sw->macs, idx);   /* the other systems' guests */
        sw->sp[idx] = (struct zvs_swport){ 0 };
        sw->ivl_port = -1;
    } else {
        int pos = uplink_pos(sw, idx);
        if (pos >= 0) {
            memmove(&sw->uplinks[pos], &sw->uplinks[pos + 1],
                    (size_t)(sw->nuplinks - pos - 1) * sizeof(sw->uplinks[0]));
            sw->nuplinks--;
        }
        sw->sp[idx] = (struct zvs_swport){ 0 };
        pick_uplink(sw);                /* after the slot is free: it is gone */
    }
    return port;
}

int zvs_switch_remove_port(struct zvs_switch *sw, struct zvs_port *port)
{
    struct zvs_port *p = zvs_switch_detach_port(sw, port);
    if (!p)
        return -ENOENT;
    if (p->ops->destroy)
        p->ops->destroy(p);
    return 0;
}

struct zvs_port *zvs_switch_port(const struct zvs_switch *sw, uint16_t index)
{
    return index < ZVS_MAX_PORTS ? sw->sp[index].port : NULL;
}

const struct zvs_guest *zvs_switch_guest(const struct zvs_switch *sw, const struct zvs_port *p)
{
    const struct zvs_swport *s = &sw->sp[p->index];
    return s->port == p && s->is_guest ? &s->guest : NULL;
}

struct zvs_port *zvs_switch_next_port(const struct zvs_switch *sw, const struct zvs_port *after)
{
    for (int i = after ? after->index + 1 : 0; i < ZVS_MAX_PORTS; i++)
        if (sw->sp[i].port)
            return sw->sp[i].port;
    return NULL;
}

_Static_assert(ZVS_OVERSIZE_PORTS == ZVS_MAX_PORTS, "an oversize record per port index");

unsigned zvs_switch_take_oversize(struct zvs_switch *sw, struct zvs_oversize_rec *out,
                                  unsigned room)
{
    return zvs_oversize_take(&sw->oversize, out, room);
}

struct zvs_port *zvs_switch_active_uplink(const struct zvs_switch *sw)
{
    return sw->active_uplink >= 0 ? sw->sp[sw->active_uplink].port : NULL;
}

/* SET VSWITCH ... SWITCHOVER: see the note at the top. */
int zvs_switch_switchover(struct zvs_switch *sw, struct zvs_port *to)
{
    int target = -1;

    if (to) {
        uint16_t idx = to->index;
        if (idx >= ZVS_MAX_PORTS || sw->sp[idx].port != to || uplink_pos(sw, idx) < 0)
            return -EINVAL;             /* not an RDEV of this switch (guest, group member) */
        if (sw->active_uplink == idx)
            return -EALREADY;
        if (!to->carrier)
            return -ENETDOWN;
        target = idx;
    } else {
        /* SWITCHOVER AVAILABLE: the next RDEV after the active one, wrapping. */
        int cur = sw->active_uplink >= 0 ? uplink_pos(sw, sw->active_uplink) : -1;
        for (uint16_t k = 1; k <= sw->nuplinks && target < 0; k++) {
            int pos = (int)((cur + k) % sw->nuplinks);
            uint16_t idx = sw->uplinks[pos];
            if (idx != sw->active_uplink && sw->sp[idx].port->carrier)
                target = idx;
        }
        if (target < 0)
            return -ENODEV;
    }
    sw->active_uplink = target;
    mgmt(sw)->uplink_forced = true;
    return 0;
}

void zvs_switch_set_carrier(struct zvs_switch *sw, struct zvs_port *port, bool up)
{
    port->carrier = up;
    if (port->role == ZVS_PORT_UPLINK)
        pick_uplink(sw);
}

void zvs_switch_set_slow_handler(struct zvs_switch *sw, zvs_slow_fn fn, void *arg)
{
    sw->slow_fn = fn;
    sw->slow_arg = arg;
}

void zvs_switch_set_isolation(struct zvs_switch *sw, bool on)
{
    sw->params.isolation = on;
}

void zvs_switch_set_macprotect(struct zvs_switch *sw, struct zvs_port *port, bool on)
{
    struct zvs_swport *s = &sw->sp[port->index];
    if (s->port == port && s->is_guest) {
        s->guest.macprotect = on;
        if (on) /* entries learned while protection was off must not keep attracting traffic */
            zvs_mac_table_remove_learned_port(sw->macs, port->index);
    }
}

void zvs_switch_run(struct zvs_switch *sw, uint64_t now)
{
    zvs_mac_table_age(sw->macs, now, 256);
}

struct zvs_mac_table *zvs_switch_mac_table(const struct zvs_switch *sw)
{
    return sw->macs;
}

void zvs_switch_stats(const struct zvs_switch *sw, struct zvs_switch_stats *out)
{
    *out = sw->stats;
}
