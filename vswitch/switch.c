/* VSWITCH management: creating the switch, attaching uplinks, coupling guests, carrier
 * and uplink failover. The per-frame path is in forward.c.
 *
 * Uplink failover (DEFINE VSWITCH ... RDEV a b c): the first RDEV attached that has
 * carrier carries all traffic; when it loses carrier the next one in attach order with
 * carrier takes over, and when an earlier one returns it takes the traffic back, which is
 * what z/VM does with its primary and backup devices.
 *
 * Port groups: members are uplinks too (zvs_switch_add_group_port) but not failover
 * devices. Outbound frames follow the group's bucket map (pgroup.h) while any member
 * distributes; only when none does do they fall back to the active RDEV, so an RDEV
 * given beside GROUP is the group's backup. The group itself (its LACP engines and
 * rebalancer) is driven from outside (lag.c); the switch only reads its published map.
 */
#include "switch.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mac_table.h"
#include "switch_impl.h"

#define DEFAULT_MAC_AGE_NS (300ull * 1000000000ull)

struct zvs_switch *zvs_switch_create(const struct zvs_switch_params *params)
{
    struct zvs_switch *sw = calloc(1, sizeof(*sw));
    if (!sw)
        return NULL;
    sw->params = *params;
    uint32_t cap = params->mac_capacity ? params->mac_capacity : ZVS_MAC_CAPACITY;
    uint64_t age = params->mac_age_ns ? params->mac_age_ns : DEFAULT_MAC_AGE_NS;
    sw->macs = zvs_mac_table_create(cap, age);
    sw->scratch = malloc(ZVS_SCRATCH_LEN);
    sw->scratch2 = malloc(ZVS_SCRATCH_LEN);
    sw->active_uplink = -1;
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
    free(sw);
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

static void pick_uplink(struct zvs_switch *sw)
{
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

void zvs_switch_set_group(struct zvs_switch *sw, struct zvs_pgroup *group)
{
    sw->group = group;
}

struct zvs_pgroup *zvs_switch_group(const struct zvs_switch *sw)
{
    return sw->group;
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
 * of a trunk, or VID 0 when the switch is VLAN UNAWARE. */
static int for_each_guest_vid(const struct zvs_switch *sw, const struct zvs_guest *g,
                              int (*fn)(struct zvs_switch *, const struct zvs_guest *, uint16_t, uint16_t),
                              struct zvs_switch *msw, uint16_t port)
{
    if (!sw->params.vlan.aware)
        return fn(msw, g, ZVS_VID_NONE, port);
    if (g->vlan.porttype == ZVS_VLAN_ACCESS)
        return fn(msw, g, g->vlan.access_vid, port);
    for (uint16_t vid = 1; vid <= ZVS_VID_MAX; vid++) {
        if (!zvs_vlan_is_granted(&g->vlan, vid))
            continue;
        int rc = fn(msw, g, vid, port);
        if (rc)
            return rc;
    }
    return 0;
}

static int register_mac(struct zvs_switch *sw, const struct zvs_guest *g, uint16_t vid, uint16_t port)
{
    int rc = zvs_mac_table_add_static(sw->macs, g->mac, vid, port);
    return rc == -EEXIST && zvs_mac_table_lookup(sw->macs, g->mac, vid) == port ? 0 : rc;
}

static int unregister_mac(struct zvs_switch *sw, const struct zvs_guest *g, uint16_t vid, uint16_t port)
{
    if (zvs_mac_table_lookup(sw->macs, g->mac, vid) == port)
        zvs_mac_table_remove(sw->macs, g->mac, vid);
    return 0;
}

int zvs_switch_add_guest(struct zvs_switch *sw, struct zvs_port *port, const struct zvs_guest *guest)
{
    int slot = free_slot(sw);
    if (slot < 0)
        return -ENOSPC;
    int rc = for_each_guest_vid(sw, guest, register_mac, sw, (uint16_t)slot);
    if (rc) {
        /* Leave nothing behind: a failed couple changes nothing. */
        for_each_guest_vid(sw, guest, unregister_mac, sw, (uint16_t)slot);
        return rc;
    }
    port->index = (uint16_t)slot;
    port->role = ZVS_PORT_GUEST;
    sw->sp[slot] = (struct zvs_swport){ .port = port, .is_guest = true, .guest = *guest };
    sw->guests[sw->nguests++] = (uint16_t)slot;
    return 0;
}

int zvs_switch_remove_port(struct zvs_switch *sw, struct zvs_port *port)
{
    uint16_t idx = port->index;
    if (idx >= ZVS_MAX_PORTS || sw->sp[idx].port != port)
        return -ENOENT;
    if (sw->sp[idx].is_guest) {
        zvs_mac_table_remove_port(sw->macs, idx);
        for (uint16_t i = 0; i < sw->nguests; i++) {
            if (sw->guests[i] == idx) {
                sw->guests[i] = sw->guests[--sw->nguests];
                break;
            }
        }
    } else {
        for (uint16_t i = 0; i < sw->nuplinks; i++) {
            if (sw->uplinks[i] == idx) {
                memmove(&sw->uplinks[i], &sw->uplinks[i + 1],
                        (size_t)(sw->nuplinks - i - 1) * sizeof(sw->uplinks[0]));
                sw->nuplinks--;
                break;
            }
        }
        pick_uplink(sw);
    }
    sw->sp[idx] = (struct zvs_swport){ 0 };
    if (port->ops->destroy)
        port->ops->destroy(port);
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

struct zvs_port *zvs_switch_active_uplink(const struct zvs_switch *sw)
{
    return sw->active_uplink >= 0 ? sw->sp[sw->active_uplink].port : NULL;
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
