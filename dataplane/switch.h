/* The layer-2 switch: ports, guest registrations, the forwarding path.
 *
 * One struct zvs_switch is one VSWITCH. It owns the ports attached to it (uplink RDEVs and
 * coupled guest NICs), the MAC table of its guests, and the per-egress burst queues of the
 * forwarding path. It never reads the clock: `now` comes in with every call.
 */
#ifndef ZVS_SWITCH_H
#define ZVS_SWITCH_H

#include <stdbool.h>
#include <stdint.h>

#include "dataplane/frame.h"
#include "dataplane/oversize.h"
#include "dataplane/port.h"
#include "dataplane/vlan.h"

#define ZVS_MAX_PORTS     1024          /* guests + uplinks per switch */
#define ZVS_MAX_UPLINKS   8             /* RDEVs (3 for failover) or port-group members */
#define ZVS_MAC_CAPACITY  65536

struct zvs_switch;
struct zvs_mac_table;
struct zvs_pg_dist;

struct zvs_switch_params {
    char     name[9];                   /* VSWITCH name, upper case */
    struct zvs_vlan_switch vlan;        /* VLAN AWARE/UNAWARE, NATIVE */
    bool     isolation;                 /* ISOLATION ON: no guest-to-guest traffic */
    uint32_t mac_capacity;              /* MAC table entries (0: ZVS_MAC_CAPACITY) */
    uint64_t mac_age_ns;                /* age of learned entries (0: 300 s) */
};

/* What the switch knows of a coupled guest NIC. */
struct zvs_guest {
    char     owner[9];                  /* CP userid owning the NIC */
    uint16_t vdev;                      /* NIC base virtual device number */
    uint8_t  mac[ZVS_ETH_ALEN];         /* assigned MAC (MACPREFIX ++ MACID) */
    bool     macprotect;                /* only the assigned MAC may be a source */
    struct zvs_vlan_port vlan;          /* PORTTYPE, access VID, granted VIDs */
};

/* Called with Slow Protocols frames (LACP, Marker) received on an uplink port, after the
 * burst they came in (its other frames written), in the order they came; the frame's
 * bytes are valid until the call returns. */
typedef void (*zvs_slow_fn)(void *arg, struct zvs_port *port, const struct zvs_frame *f,
                            uint64_t now);

struct zvs_switch_stats {
    uint64_t bursts;                    /* input bursts processed */
    uint64_t frames;                    /* frames through zvs_switch_input */
    uint64_t floods;                    /* broadcast/multicast/unknown frames flooded */
    uint64_t fixups;                    /* frames segmented or checksummed for an egress */
    uint64_t resteered;                 /* frames a failed group member handed to a survivor */
};

struct zvs_switch *zvs_switch_create(const struct zvs_switch_params *params);
/* Destroys every port still attached. */
void zvs_switch_destroy(struct zvs_switch *sw);
const struct zvs_switch_params *zvs_switch_params(const struct zvs_switch *sw);

/* Attach an uplink (RDEV) port; the first attached with carrier carries traffic, the
 * others are failover backups. The switch owns the port from now on. */
int zvs_switch_add_uplink(struct zvs_switch *sw, struct zvs_port *port);
/* Attach a port-group member (SET PORT GROUP ... JOIN): an uplink that neither collects
 * nor distributes until told (zvs_switch_set_collecting; the group's map for outbound).
 * It is not one of the RDEV failover devices. The switch owns the port. */
int zvs_switch_add_group_port(struct zvs_switch *sw, struct zvs_port *port);
/* Attach the IVL port (one per switch: a Global VSWITCH's way to the other systems of its
 * IVL domain; its backend wraps and unwraps frames, backends/ivl_port.h). The forwarding
 * path sends it what belongs to the other systems, each frame with its kind (ZVS_FIVL_*):
 * a guest's unicast learned on it (INBOUND), broadcast, multicast and, from the uplink,
 * unknown unicast (FLOOD), and a guest's frame for the LAN while no member of this
 * system distributes and no RDEV carries (OUTBOUND); what it receives goes by its kind:
 * OUTBOUND out of the uplink only, INBOUND and FLOOD to guests only, never back to it.
 * Source MACs of frames marked GUEST_SRC are learned on it. -EEXIST: one is attached;
 * -ENOSPC. The switch owns the port. */
int zvs_switch_add_ivl_port(struct zvs_switch *sw, struct zvs_port *port);
struct zvs_port *zvs_switch_ivl_port(const struct zvs_switch *sw);
/* The port group whose bucket map steers outbound frames (NULL: none; not owned). While
 * no member distributes, outbound falls back to the RDEV uplink, if any. */
void zvs_switch_set_group(struct zvs_switch *sw, struct zvs_pg_dist *group);
struct zvs_pg_dist *zvs_switch_group(const struct zvs_switch *sw);
/* The group is an overlay's underlay (a VXLAN uplink over it, overlay/): its members carry
 * the overlay port's encapsulated frames, which that port puts on them itself, so the
 * switch's outbound goes to the active RDEV uplink (the overlay port), never straight to
 * a member. The group keeps its map, members and LACP. */
void zvs_switch_set_group_underlay(struct zvs_switch *sw, bool on);
/* Inbound gate of a group member: frames other than Slow Protocols are discarded
 * (ZVS_DROP_NOT_COLLECTING) while off. RDEV uplinks always collect. */
void zvs_switch_set_collecting(struct zvs_switch *sw, struct zvs_port *port, bool on);
bool zvs_switch_is_group_port(const struct zvs_switch *sw, const struct zvs_port *port);
/* Couple a guest NIC: registers its MAC on its VLANs. -EEXIST if the MAC is in use,
 * -ENOSPC when the port table or MAC table is full. The switch owns the port. */
int zvs_switch_add_guest(struct zvs_switch *sw, struct zvs_port *port,
                         const struct zvs_guest *guest);
/* Replace a coupled guest's registration in place (SET VSWITCH GRANT / REVOKE, a new MAC
 * or MACPROTECT): its assigned MAC is registered on the new VIDs and removed from the VIDs
 * it loses, and every entry the port learned is flushed; other ports' entries and frames
 * are untouched. The whole change is checked first, so on an error nothing changed:
 * -ENOENT if port is not a guest of sw; -EEXIST if the new MAC is another guest's
 * assigned MAC on one of the new VIDs; -EINVAL for a group or all-zero MAC or an access
 * VID above 4094; -ENOSPC if the MAC table could not hold the new entries (counted
 * without the port's learned entries, which the change would flush). */
int zvs_switch_update_guest(struct zvs_switch *sw, struct zvs_port *port,
                            const struct zvs_guest *guest);
/* Uncouple / detach and hand the port back, not destroyed: its MAC entries go, an uplink
 * leaves the failover list (another RDEV takes over if it was active). Between bursts or
 * from the Slow Protocols handler (called after its burst is written). The caller owns
 * the port again and may re-add it. NULL if port is not attached to sw. Not for the port
 * whose burst is running (the handler's port); a port-group member must leave the
 * group's map first. */
struct zvs_port *zvs_switch_detach_port(struct zvs_switch *sw, struct zvs_port *port);
/* Uncouple / detach: zvs_switch_detach_port, then destroy the port. 0 or -ENOENT. */
int zvs_switch_remove_port(struct zvs_switch *sw, struct zvs_port *port);

struct zvs_port *zvs_switch_port(const struct zvs_switch *sw, uint16_t index);
const struct zvs_guest *zvs_switch_guest(const struct zvs_switch *sw, const struct zvs_port *p);
/* Iterate ports in index order: returns the next port after `after` (NULL: first). */
struct zvs_port *zvs_switch_next_port(const struct zvs_switch *sw, const struct zvs_port *after);
/* Frames an uplink egress dropped as too big for its MTU (a VXLAN segment's), by the port
 * they came in on, since the last take (dataplane/oversize.h): up to room records moved
 * into out, as zvs_oversize_take. Frames to other egresses are counted only. */
unsigned zvs_switch_take_oversize(struct zvs_switch *sw, struct zvs_oversize_rec *out,
                                  unsigned room);
/* The uplink now carrying traffic, or NULL. */
struct zvs_port *zvs_switch_active_uplink(const struct zvs_switch *sw);
/* SET VSWITCH ... SWITCHOVER: make another RDEV uplink the active one. to NULL
 * (AVAILABLE): the next RDEV after the active one in attach order, wrapping, that has
 * carrier. The choice is sticky: it stays active until it loses carrier or is detached
 * (an earlier RDEV regaining carrier does not take the traffic back meanwhile); then the
 * usual rule picks again (the first RDEV in attach order with carrier). Port-group members
 * are not RDEVs. Returns 0; -EINVAL if `to` is not an RDEV uplink of sw; -EALREADY if it is
 * the active one; -ENETDOWN if it has no carrier; -ENODEV (AVAILABLE) if no other RDEV
 * has carrier. */
int zvs_switch_switchover(struct zvs_switch *sw, struct zvs_port *to);

/* Carrier of a port changed (netlink event, tap down). Uplinks fail over. */
void zvs_switch_set_carrier(struct zvs_switch *sw, struct zvs_port *port, bool up);
void zvs_switch_set_slow_handler(struct zvs_switch *sw, zvs_slow_fn fn, void *arg);
void zvs_switch_set_isolation(struct zvs_switch *sw, bool on);
void zvs_switch_set_macprotect(struct zvs_switch *sw, struct zvs_port *port, bool on);

/* The forwarding path: process n frames received on `in`, write them to their egress
 * ports and flush those ports, then hand the burst's Slow Protocols frames to the slow
 * handler. Frames' bytes must stay valid until this returns. Up to ZVS_BATCH Slow
 * Protocols frames a call reach the handler; more in one call are discarded and counted
 * (ZVS_DROP_SLOW_PROTO), which zvs_switch_poll's bursts of ZVS_BATCH cannot reach. */
void zvs_switch_input(struct zvs_switch *sw, struct zvs_port *in, struct zvs_frame *frames,
                      int n, uint64_t now);
/* Read one burst from a port's backend, forward it, release it. Returns frames read. */
int zvs_switch_poll(struct zvs_switch *sw, struct zvs_port *port, uint64_t now);
/* Housekeeping each event-loop iteration: ages learned MAC entries a little at a time. */
void zvs_switch_run(struct zvs_switch *sw, uint64_t now);

struct zvs_mac_table *zvs_switch_mac_table(const struct zvs_switch *sw);
void zvs_switch_stats(const struct zvs_switch *sw, struct zvs_switch_stats *out);

#endif
