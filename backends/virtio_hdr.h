/* The virtio-net header on the wire <-> struct zvs_vnet.
 *
 * Taps (IFF_VNET_HDR) and AF_PACKET sockets (PACKET_VNET_HDR) both hand over offload
 * metadata as a 10-byte struct virtio_net_hdr. Its byte order depends on the device:
 * the tap driver sets TUNSETVNETLE and uses little endian on every host; a packet socket
 * uses the host's order. One codec, told which.
 */
#ifndef ZVS_VIRTIO_HDR_H
#define ZVS_VIRTIO_HDR_H

#include <linux/virtio_net.h>
#include <stdbool.h>
#include <stdint.h>

#include "dataplane/frame.h"

#define ZVS_VIRTIO_HDR_LEN ((uint32_t)sizeof(struct virtio_net_hdr))

/* Decode the header of a frame of len bytes. False when it cannot be right (unknown flag
 * or GSO type, checksum offsets beyond the frame, GSO without a segment size): such a
 * frame is an error, not something to forward. Fields without their flag or GSO type
 * mean nothing and come out zero. */
bool zvs_virtio_hdr_decode(const struct virtio_net_hdr *vh, bool little_endian, uint32_t len,
                           struct zvs_vnet *out);
/* Encode; false when the metadata has no virtio-net form. */
bool zvs_virtio_hdr_encode(const struct zvs_vnet *v, bool little_endian,
                           struct virtio_net_hdr *out);

#endif
