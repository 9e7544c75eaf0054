/* uplink_tap: an uplink port (RDEV) whose device is a tap: vswitchd plays the NIC on
 * the far end of the tap's wire, the system joins the tap's kernel side to the LAN (a
 * bridge with the physical NIC or a veth in it).
 *
 * Why: a tap takes the virtio-net UDP tunnel extension (TUN_F_UDP_TUNNEL_GSO, the 24-byte
 * header of backends/virtio_hdr.h) that a packet socket cannot (its header stops at 12
 * bytes on Linux 6.18): a VXLAN uplink over it writes one encapsulated super-frame and the
 * kernel segments it, or hands it on whole through a bridge and a veth; and it reads
 * the remote VTEP's super-frames whole (overlay/README.md, "Offloads on this kernel").
 *
 * The tap is the system's: `RDEVICE nnnn INTERFACE ifname BACKEND TAP` names a
 * persistent tap (`ip tuntap add ifname mode tap`) that the port attaches to by name and
 * never creates (-ENODEV while there is none: the netlink event of its arrival opens it,
 * as for any RDEV). The system sets its MTU, brings it up and bridges it; the port's
 * carrier is the tap's (on while attached and up). Closing the port detaches; the tap
 * stays. The port's MAC is not the tap's own (the kernel side's, which a bridge keeps as
 * a local address and never forwards to): it is that address with its last byte
 * complemented, the far end of the tap's wire.
 *
 * Offloads: TUN_F_CSUM|TSO4|TSO6|TSO_ECN (caps CSUM|GSO, max_gso 65535), and
 * UDP_TUNNEL_GSO|UDP_TUNNEL_GSO_CSUM only while a VXLAN uplink asks (the port's
 * ops->tunnel_gso, kept across a reopen: off at attach, so a tap on a plain VSWITCH gets
 * tunnel traffic segmented); ZVS_CAP_UDP_TUNNEL_GSO says the kernel takes them
 * (-EOPNOTSUPP from the op otherwise).
 */
#ifndef ZVS_UPLINK_TAP_H
#define ZVS_UPLINK_TAP_H

#include <stdbool.h>
#include <stdint.h>

#include "dataplane/port.h"

#define ZVS_UTAP_POOL_BUFS  256         /* receive buffers per port */

struct zvs_uplink_tap_stats {
    uint64_t rx_frames;                 /* frames handed to the switch */
    uint64_t rx_tunnel_gso;             /* of which UDP tunnel super-frames */
    uint64_t rx_bad_vnet;               /* a header the codec refuses: dropped */
    uint64_t rx_no_buffer;              /* rx calls that found the pool empty */
    uint64_t rx_errors;                 /* reads failing other than "nothing queued" */
    uint64_t tx_frames;                 /* frames the tap took */
    uint64_t tx_tunnel_gso;             /* of which UDP tunnel super-frames */
    uint64_t tx_link_down;              /* EIO / ENXIO / EBADFD: the tap is down or gone */
    uint64_t tx_fail;                   /* refused for another reason (EINVAL: offsets) */
    uint64_t reopens;                   /* attached again by name */
    int      last_errno;
};

/* Attach to the tap `ifname`. NULL with *err = -errno: -ENODEV (no such interface),
 * -EINVAL (bad name, or an interface that is not a tap). */
struct zvs_port *zvs_uplink_tap_open(const char *ifname, int *err);
void zvs_uplink_tap_mac(const struct zvs_port *p, uint8_t mac[6]);
void zvs_uplink_tap_stats(const struct zvs_port *p, struct zvs_uplink_tap_stats *out);

#endif
