/* uplink_pcap: an uplink port on a Linux interface through libpcap.
 *
 * The portable alternative to uplink_afpacket (RDEVICE ... BACKEND PCAP), and its
 * measured comparison. libpcap hands over whole Ethernet frames (802.1Q tags put back
 * into the bytes by libpcap itself) but no offload metadata: a veth peer with offloads on
 * sends TCP/UDP frames whose checksum is only partial and TCP super-frames larger than
 * the MTU, and nothing says which. The backend therefore marks every IPv4/IPv6 TCP and
 * UDP frame it receives as "checksum to be completed" (rewriting the field to the
 * pseudo-header sum, so completion is right whatever the sender left there) and every
 * TCP frame longer than the MTU as a GSO super-frame, so the switch's egress fix-up
 * (vnet.h) completes and segments them for egresses that need it. On transmit it takes
 * neither (caps 0): the switch segments and checksums for it, and each frame is one
 * pcap_inject.
 *
 * Like uplink_afpacket, the port survives its interface going down and up and being
 * deleted and re-created: feed it the netlink_link events for its name
 * (zvs_uplink_pcap_link_event). libpcap reports a link going down as a read error; the
 * handle is then rebuilt when the interface is back.
 */
#ifndef ZVS_UPLINK_PCAP_H
#define ZVS_UPLINK_PCAP_H

#include <stdbool.h>
#include <stdint.h>

#include "dataplane/frame.h"
#include "dataplane/port.h"

#define ZVS_PCAP_POOL_BUFS   256        /* receive buffers per port */
#define ZVS_PCAP_TX_RETRIES  4          /* bounded waits when the kernel has no room */
#define ZVS_PCAP_BUFFER      (32 << 20) /* libpcap ring size (pcap_set_buffer_size) */
#define ZVS_PCAP_SNAPLEN     262144     /* libpcap's maximum; it sizes ring slots from
                                           the MTU, or 64 KiB when the interface has
                                           offloads on */

struct zvs_pcap_stats {
    uint64_t rx_frames;                 /* frames handed to the switch */
    uint64_t rx_truncated;              /* captured shorter than on the wire: dropped */
    uint64_t rx_csum_marked;            /* TCP/UDP frames given NEEDS_CSUM */
    uint64_t rx_csum_done;              /* padded TCP/UDP frames checksummed right here */
    uint64_t rx_gso_marked;             /* TCP frames longer than the MTU given GSO */
    uint64_t rx_no_buffer;              /* rx calls that found the pool empty */
    uint64_t rx_errors;                 /* pcap_dispatch errors (the link going down) */
    uint64_t tx_frames;                 /* frames the kernel accepted */
    uint64_t tx_copied;                 /* frames copied to scratch for a tag edit */
    uint64_t tx_waits;                  /* bounded polls after EAGAIN / ENOBUFS */
    uint64_t tx_no_buffer;              /* given up after the waits (ZVS_DROP_NO_BUFFER) */
    uint64_t tx_link_down;              /* ENETDOWN / ENXIO / no handle (ZVS_DROP_LINK_DOWN) */
    uint64_t tx_link_probes;            /* drivers asked for carrier after an ENOBUFS */
    uint64_t tx_fail;                   /* refused for another reason (ZVS_DROP_TX_FAIL) */
    uint64_t reopens;                   /* handles rebuilt by name */
    uint64_t kernel_drops;              /* pcap_stats ps_drop of the current handle: frames
                                           the ring had no room for */
    int      last_errno;                /* last unexpected error, for diagnostics */
    char     last_error[128];           /* libpcap's text for it (pcap_geterr) */
};

/* Open the port on interface `ifname`. Needs CAP_NET_RAW. The port's name is the
 * interface name, its mtu, MAC and carrier are read from the interface, caps are 0.
 * An interface that exists but is administratively down gets a port without a handle
 * (fd -1, carrier false), completed by link_event when the interface comes up.
 * Returns NULL with *err = -errno (-ENODEV: no such interface, -EINVAL: bad name,
 * -EPERM: no permission, -EPROTONOSUPPORT: not an Ethernet interface, -EIO: another
 * libpcap failure, its text in the stats' last_error). */
struct zvs_port *zvs_uplink_pcap_open(const char *ifname, int *err);

/* pcap_get_selectable_fd: poll it for EPOLLIN. -1 while there is no handle. It changes
 * when the handle is rebuilt. */
int zvs_uplink_pcap_fd(const struct zvs_port *p);

/* The interface index the handle was opened on (0 while the interface is gone). */
int zvs_uplink_pcap_ifindex(const struct zvs_port *p);

/* The interface's MAC address as read at open / reopen. */
void zvs_uplink_pcap_mac(const struct zvs_port *p, uint8_t mac[6]);

/* Build a fresh handle on the interface of the port's name and refresh mtu, MAC and
 * carrier. Frames held by the switch stay valid. On success the old handle is closed:
 * the caller removes the fd it had registered and registers zvs_uplink_pcap_fd().
 * Returns 0 or -errno (-ENETDOWN: interface down; the old handle then stays). */
int zvs_uplink_pcap_reopen(struct zvs_port *p);

/* Apply a netlink_link event for the port's interface: sets port->carrier; rebuilds the
 * handle when the interface exists and is up and the handle is missing, saw an error
 * (the link went down meanwhile) or belongs to an older ifindex; refreshes mtu and MAC.
 * Returns 1 if the handle was replaced (drop the old fd from the event loop, add the new
 * one), 0 if not, -errno if a needed reopen failed (carrier is then false). The glue is
 * the same as zvs_uplink_afpacket_link_event's. */
int zvs_uplink_pcap_link_event(struct zvs_port *p, int ifindex, bool carrier, bool exists);

void zvs_uplink_pcap_stats(const struct zvs_port *p, struct zvs_pcap_stats *out);

#endif
