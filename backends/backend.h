/* backend: the uplink backends as classes, opened by kind from one registry.
 *
 * Each kind of backend has one class: its kind name and the few operations the
 * composition root needs beyond the port's own ops table (dataplane/port.h), which
 * carries the per-frame work (tx, rx, rx_release, flush), the descriptor to poll and the
 * carrier events. The daemon opens every RDEV and port-group member with
 * zvs_backend_open(kind, ifname, &err), the kind taken from the RDEVICE statement
 * (AFPACKET when it names none, PCAP) or forced for every uplink by the daemon's
 * uplink_kind option (hermetic tests force "dummy").
 *
 * Kinds:
 *   "afpacket"  a Linux interface through an AF_PACKET socket (uplink_afpacket.h)
 *   "pcap"      a Linux interface through libpcap (uplink_pcap.h)
 *   "dummy"     a named in-memory link that a test created first (dummy.h)
 *   "tap"       the guest side, listed so its kind is known, but not opened here: a tap
 *               is not a port of its own but the driver of a guest NIC port's QDIO
 *               queues, made with a NIC, an MTU and a MAC and bound and unbound with the
 *               NIC's coupling (zvs_guest_tap_open in guest_tap.h). Its class has no
 *               open, and zvs_backend_open("tap") is -EOPNOTSUPP.
 * A Hercules LCS tap kind ("lcs") would be one more entry in the registry (backend.c)
 * with its own file; nothing else changes.
 *
 * Rules: classes are constant and live for the program; opening needs the kind's own
 * privileges (CAP_NET_RAW for afpacket and pcap). Nothing here is on the per-frame path.
 */
#ifndef ZVS_BACKEND_H
#define ZVS_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

#include "dataplane/port.h"

enum zvs_backend_side {
    ZVS_BACKEND_UPLINK,                 /* opens a port towards the LAN (an RDEV) */
    ZVS_BACKEND_GUEST,                  /* drives a guest NIC port; opened by its module */
};

struct zvs_backend_class {
    const char           *kind;         /* "afpacket", "pcap", "dummy", "tap" */
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
    /* The far end's MAC address as read at open / reopen (the switch's uplink MAC). */
    void                 (*mac)(const struct zvs_port *p, uint8_t mac[6]);
};

/* The class of `kind` (exact, lower case), or NULL when no backend has that kind. */
const struct zvs_backend_class *zvs_backend_find(const char *kind);

/* The class a port was opened by (matched on port->ops->kind), or NULL. */
const struct zvs_backend_class *zvs_backend_of(const struct zvs_port *p);

/* Open an uplink port of `kind` on `ifname`. NULL with *err: -ENOENT (unknown kind),
 * -EOPNOTSUPP (a guest-side kind), or the class's own -errno. */
struct zvs_port *zvs_backend_open(const char *kind, const char *ifname, int *err);

#endif
