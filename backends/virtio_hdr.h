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

/* The header a tap takes once TUN_F_UDP_TUNNEL_GSO is negotiated and TUNSETVNETHDRSZ is
 * its size: Linux's struct virtio_net_hdr_v1_hash_tunnel (6.16+, the virtio 1.4 UDP
 * tunnel extension), always little endian: the 10-byte header, num_buffers, 8 bytes of
 * hash report (0 here), then the outer UDP header's and the inner IP header's offsets.
 * Defined here: distributions' headers may be older than the kernel. */
struct zvs_virtio_hdr_tnl {
    uint8_t  flags;
    uint8_t  gso_type;
    uint16_t hdr_len, gso_size, csum_start, csum_offset;
    uint16_t num_buffers;
    uint16_t hash_value_lo, hash_value_hi, hash_report, padding;
    uint16_t outer_th_offset, inner_nh_offset;
};
#define ZVS_VIRTIO_HDR_TNL_LEN        ((uint32_t)sizeof(struct zvs_virtio_hdr_tnl))
#define ZVS_VIRTIO_GSO_UDP_TUNNEL_IPV4 0x20
#define ZVS_VIRTIO_GSO_UDP_TUNNEL_IPV6 0x40
#define ZVS_VIRTIO_F_UDP_TUNNEL_CSUM  0x08      /* the outer UDP checksum is partial too */

/* Decode a tunnel-capable header of a frame of len bytes. Without a tunnel GSO type, as
 * zvs_virtio_hdr_decode (little endian). With one, also false unless it has the shape
 * the kernel requires (virtio_net_hdr_tnl_to_skb): one outer family, an inner TCPV4 or
 * TCPV6 type, NEEDS_CSUM, and outer_th + 8 <= inner_nh < csum_start; the offsets go to
 * tnl_outer_th / tnl_inner_nh. The kernel's minimum header sizes and whether the offsets
 * name the frame's real headers are checked by the reader of the headers
 * (overlay/vxlan_gso.c's zvs_vxlan_gso_check, against the bytes). UDP_TUNNEL_CSUM is accepted and
 * dropped: the outer UDP checksum is not ours to verify (the kernel did). */
bool zvs_virtio_hdr_tnl_decode(const struct zvs_virtio_hdr_tnl *h, uint32_t len,
                               struct zvs_vnet *out);
/* Encode; false when the metadata has no form here (as zvs_virtio_hdr_encode). */
bool zvs_virtio_hdr_tnl_encode(const struct zvs_vnet *v, struct zvs_virtio_hdr_tnl *out);

/* A packet socket hands every reader a frame without its 802.1Q tag (the tag is in the
 * socket's metadata: PACKET_AUXDATA, or a receive ring slot's header), and the
 * virtio-net header's offsets count without it. Puts it back: the frame's len bytes
 * (len >= 12) lie at start + 4; its MAC addresses slide to start, the tag (tpid, tci)
 * follows them, and csum_start and a GSO frame's hdr_len move with the bytes. Returns
 * the new length, len + 4. */
uint32_t zvs_packet_tag_restore(uint8_t *start, uint32_t len, uint16_t tpid, uint16_t tci,
                                struct zvs_vnet *v);

#endif
