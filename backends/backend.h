/* backend: the backends as classes, opened by kind from one registry: the uplinks
 * (RDEVs, port-group members) and the guest NIC kinds (NICBIND).
 *
 * Each kind of backend has one class: its kind name, its side, and the operations the
 * composition root needs. An uplink class opens a port (beyond it, the port's own ops
 * table, dataplane/port.h, carries the per-frame work, the descriptor to poll and the
 * carrier events): the daemon opens every RDEV and port-group member with
 * zvs_backend_open(kind, ifname, &err), the kind taken from the RDEVICE statement
 * (AFPACKET when it names none, PCAP, TAP) or forced for every uplink by the daemon's
 * uplink_kind option (hermetic tests force "dummy"). A guest class carries a NIC kind's
 * ops table (nic_class.h), opened with a NIC by zvs_nic_open under the kind name of the
 * NIC's NICBIND keyword; it opens no port by name.
 *
 * Kinds:
 *   "afpacket"  uplink: a Linux interface through an AF_PACKET socket (uplink_afpacket.h)
 *   "pcap"      uplink: a Linux interface through libpcap (uplink_pcap.h)
 *   "rdevtap"   uplink: a tap the system made, vswitchd its far end (uplink_tap.h)
 *   "dummy"     uplink: a named in-memory link that a test created first (dummy.h)
 *   "tap"       guest, NICBIND TAP: a tap the kind makes, driving the NIC's QDIO queues
 *               (nic_tap.h)
 *   "qdio"      guest, NICBIND QDIO: an external program attaches (nic_program.h)
 *   "none"      guest, no NICBIND: as "qdio" (nic_program.h)
 *   "lcs"       guest, NICBIND LCS: a Hercules machine's LCS tap. Its class lives in the
 *               layer that knows machines (guests/nic_lcs.h) and is registered from there
 *               at start-up (zvs_backend_register): this layer includes nothing above it.
 * Adding a kind is its own file and one entry in the table of backend.c (or, from a
 * higher layer, one zvs_backend_register call); the daemon never names a kind's
 * functions. Guest kinds have no open: zvs_backend_open of one is -EOPNOTSUPP.
 *
 * Rules: classes are constant and live for the program; registering is for start-up, on
 * the one thread; opening needs the kind's own privileges (CAP_NET_RAW for afpacket and
 * pcap). Nothing here is on the per-frame path.
 */
#ifndef ZVS_BACKEND_H
#define ZVS_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

#include "dataplane/port.h"

#define ZVS_BACKEND_REGISTERED_MAX 8    /* classes registered from above at start-up */

struct zvs_nic_class;

enum zvs_backend_side {
    ZVS_BACKEND_UPLINK,                 /* opens a port towards the LAN (an RDEV) */
    ZVS_BACKEND_GUEST,                  /* drives a guest NIC port; opened by its module */
};

struct zvs_backend_class {
    const char           *kind;         /* "afpacket", "pcap", "dummy", "tap", ... */
    enum zvs_backend_side side;
    /* True when the port's carrier and re-creation come from netlink_link events for
     * its interface name (feed them to port->ops->link_event); false for kinds that no
     * Linux interface stands behind (dummy), whose names must not be watched: their
     * ports announce carrier changes themselves (port->ops->link_poll on a wake of
     * port->ops->fd), and the owner feeds those to link_event the same way. */
    bool                  netlink;
    /* Open the port on `ifname`: its name is ifname, mtu, MAC and carrier as the far end
     * says. NULL with *err = -errno; -ENODEV when there is no such interface (or no
     * dummy of that name). NULL for the guest side. */
    struct zvs_port     *(*open)(const char *ifname, int *err);
    /* The far end's MAC address as read at open / reopen (the switch's uplink MAC). NULL
     * for the guest side. */
    void                 (*mac)(const struct zvs_port *p, uint8_t mac[6]);
    /* The guest side: the NIC kind's ops (nic_class.h). NULL for uplinks. */
    const struct zvs_nic_class *nic;
};

/* Adds a class from a layer above this one (the "lcs" NIC kind), once at start-up. 0 (also
 * when this very class is registered already), -EEXIST (another class has its kind), or
 * -ENOSPC. */
int zvs_backend_register(const struct zvs_backend_class *c);

/* The class of `kind` (exact, lower case), or NULL when no backend has that kind. */
const struct zvs_backend_class *zvs_backend_find(const char *kind);

/* The class a port was opened by (matched on port->ops->kind), or NULL. */
const struct zvs_backend_class *zvs_backend_of(const struct zvs_port *p);

/* Open an uplink port of `kind` on `ifname`. NULL with *err: -ENOENT (unknown kind),
 * -EOPNOTSUPP (a guest-side kind), or the class's own -errno. */
struct zvs_port *zvs_backend_open(const char *kind, const char *ifname, int *err);

#endif
