/* uplink_afpacket: an uplink port on a Linux interface (a real NIC or a veth end).
 *
 * The port reads and writes whole Ethernet frames on the interface through an AF_PACKET
 * socket with the virtio-net header enabled, so TCP super-frames (GSO) and frames whose
 * checksum is still partial cross the switch with their offload metadata instead of being
 * broken or segmented. 802.1Q tags that the kernel moved into packet metadata on receive
 * are put back into the bytes, so the switch sees frames as they were on the wire.
 *
 * The port survives its interface going down and up, and being deleted and re-created:
 * feed it the netlink_link events for its name (zvs_uplink_afpacket_link_event).
 */
#ifndef ZVS_UPLINK_AFPACKET_H
#define ZVS_UPLINK_AFPACKET_H

#include <stdbool.h>
#include <stdint.h>

#include "dataplane/frame.h"
#include "dataplane/port.h"

#define ZVS_AFP_POOL_BUFS   256         /* receive buffers per port */
#define ZVS_AFP_TX_RETRIES  4           /* bounded waits when the kernel has no room */

struct zvs_afpacket_stats {
    uint64_t rx_frames;                 /* frames handed to the switch */
    uint64_t rx_outgoing;               /* our own transmissions seen and skipped */
    uint64_t rx_truncated;              /* larger than a pool buffer: dropped */
    uint64_t rx_bad_vnet;               /* unknown GSO type or impossible offsets: dropped */
    uint64_t rx_vlan_restored;          /* tags taken back from packet metadata */
    uint64_t rx_no_buffer;              /* rx calls that found the pool empty */
    uint64_t rx_errors;                 /* recvmmsg failures other than "nothing queued" */
    uint64_t tx_frames;                 /* frames the kernel accepted */
    uint64_t tx_waits;                  /* bounded polls after EAGAIN / ENOBUFS */
    uint64_t tx_no_buffer;              /* given up after the waits (ZVS_DROP_NO_BUFFER) */
    uint64_t tx_link_down;              /* ENETDOWN / ENXIO, or ENOBUFS with the carrier
                                         * gone (ZVS_DROP_LINK_DOWN) */
    uint64_t tx_link_probes;            /* drivers asked for carrier after an ENOBUFS */
    uint64_t tx_fail;                   /* refused for another reason (ZVS_DROP_TX_FAIL) */
    uint64_t reopens;                   /* sockets rebuilt by name */
    int      last_errno;                /* last unexpected error, for diagnostics */
};

/* Open the port on interface `ifname`. Needs CAP_NET_RAW. The port's name is the
 * interface name, its mtu, MAC and carrier are read from the interface, caps are
 * CSUM|GSO with max_gso 65535. Returns NULL with *err = -errno (-ENODEV: no such
 * interface, -EINVAL: bad name). */
struct zvs_port *zvs_uplink_afpacket_open(const char *ifname, int *err);

struct zvs_ifinfo;
/* One of the uplink's two sockets on interface `name`: the read one, or the written one
 * (tx); *fi gets the interface's facts. The fd, or -errno. Exported for
 * tests/tools/tap_pump, which opens an uplink exactly as the driver does. */
int zvs_uplink_afpacket_socket(const char *name, struct zvs_ifinfo *fi, bool tx);

/* The socket to poll for input (EPOLLIN; EPOLLERR reports a link event, handled by rx).
 * It changes when the port is reopened. */
int zvs_uplink_afpacket_fd(const struct zvs_port *p);

/* The interface index the socket is bound to (0 while the interface is gone). */
int zvs_uplink_afpacket_ifindex(const struct zvs_port *p);

/* The interface's MAC address as read at open / reopen. */
void zvs_uplink_afpacket_mac(const struct zvs_port *p, uint8_t mac[6]);

/* Build a fresh socket on the interface of the port's name (after it was deleted and
 * re-created, or renamed back) and refresh mtu, MAC and carrier. Frames held by the
 * switch stay valid. On success the old socket is closed: the caller removes the fd it
 * had registered (zvs_evloop_del_fd works on a closed fd) and registers
 * zvs_uplink_afpacket_fd(). Returns 0 or -errno (the old socket then stays). */
int zvs_uplink_afpacket_reopen(struct zvs_port *p);

/* Apply a netlink_link event for the port's interface: sets port->carrier, reopens when
 * the interface exists under a new ifindex, refreshes mtu and MAC, and clears the error
 * the kernel leaves on the socket when a link goes down. Returns 1 if the socket was
 * replaced (as in reopen: drop the old fd from the event loop, add the new one), 0 if
 * not, -errno if a needed reopen failed (carrier is then false). The caller then tells
 * the switch (zvs_switch_set_carrier) so it can fail over. Typical glue:
 *     int old = zvs_uplink_afpacket_fd(p);
 *     if (zvs_uplink_afpacket_link_event(p, ifindex, carrier, exists) == 1) {
 *         zvs_evloop_del_fd(loop, old);
 *         zvs_evloop_add_fd(loop, zvs_uplink_afpacket_fd(p), EPOLLIN, on_rx, p);
 *     }
 *     zvs_switch_set_carrier(sw, p, p->carrier);
 */
int zvs_uplink_afpacket_link_event(struct zvs_port *p, int ifindex, bool carrier, bool exists);

void zvs_uplink_afpacket_stats(const struct zvs_port *p, struct zvs_afpacket_stats *out);

#endif
