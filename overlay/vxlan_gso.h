/* UDP tunnel GSO for VXLAN: the offload metadata of ONE encapsulated TCP super-frame, and
 * its check on the way back.
 *
 * An underlay port that takes UDP tunnel super-frames (ZVS_CAP_UDP_TUNNEL_GSO: a tap,
 * backends/uplink_tap.h) lets the VTEP put one outer header before a guest's whole TCP
 * super-frame: the kernel cuts it into segments, each with the outer headers repeated
 * (outer IPv4 length, id and checksum and UDP length fixed per segment; the outer UDP
 * checksum stays 0 over IPv4, RFC 7348 section 5) and the inner TCP checksum completed.
 * The metadata is the kernel's (virtio_net_hdr_tnl_to_skb): the inner type (TCPV4/TCPV6)
 * with GSO_UDP_TUNNEL4, NEEDS_CSUM at the inner TCP checksum, gso_size the inner MSS,
 * tnl_outer_th the outer UDP header, tnl_inner_nh the inner IP header; hdr_len says how
 * many bytes every segment repeats (outer headers + inner headers), which is what the
 * underlay port's counters need to count the segments on the wire (dataplane/wire.h).
 *
 * Pure functions on metadata and header bytes; the VTEP (vtep.c) decides when. Over an
 * IPv6 underlay the outer UDP checksum is mandatory and would be a second partial
 * checksum: not offered (the switch segments, as before).
 */
#ifndef ZVS_VXLAN_GSO_H
#define ZVS_VXLAN_GSO_H

#include <stdbool.h>
#include <stdint.h>

#include "dataplane/frame.h"
#include "overlay/vxlan_codec.h"

/* Is f a super-frame the tunnel offload carries (TCPV4/TCPV6, ECN or not, NEEDS_CSUM at
 * a TCP header inside its first bytes)? True with *seg_hdr = the bytes of headers every
 * inner segment repeats, counted in f as it is (Ethernet to the end of TCP's options). */
bool zvs_vxlan_gso_inner(const struct zvs_frame *f, uint32_t *seg_hdr);

/* The metadata of the encapsulated super-frame: iv is the inner frame's as written (after
 * its tag edit, inner_seg_hdr likewise), hdr_len the outer header's bytes (an underlay
 * tag included). */
struct zvs_vnet zvs_vxlan_gso_outer(const struct zvs_vnet *iv, unsigned hdr_len,
                                    uint32_t inner_seg_hdr);

/* Check the tunnel metadata v of a received frame (contiguous bytes `frame`) against the
 * headers d decoded and the bytes: the outer family and UDP header, an inner TCPv4 or
 * TCPv6 super-frame (its EtherType, IP version and protocol, TCP right after the IP
 * header) whose partial checksum is TCP's, a segment size that is neither 0 nor
 * GSO_BY_FRAGS, payload past the headers, and each segment within underlay_mtu as the
 * encapsulation holds its own. 0 (*inner_hdr_len: the inner headers a segment repeats,
 * counted from the inner frame, not the sender's hint), -EINVAL (metadata that names no
 * such super-frame), -EMSGSIZE (segments too large). A frame without a tunnel type: 0,
 * *inner_hdr_len untouched. */
int zvs_vxlan_gso_check(const struct zvs_vnet *v, const struct zvs_vxlan_decoded *d,
                        const uint8_t *frame, uint32_t underlay_mtu, uint16_t *inner_hdr_len);

#endif
