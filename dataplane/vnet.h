/* Offload fix-up: finish in software what a sender's offloads left for "the hardware".
 *
 * Frames read from a veth with PACKET_VNET_HDR or from a tap with IFF_VNET_HDR carry
 * virtio-net metadata (struct zvs_vnet in frame.h, host byte order): a TCP/UDP checksum
 * that is still partial (ZVS_VNET_F_NEEDS_CSUM: the field at csum_start + csum_offset holds
 * the folded, not complemented, pseudo-header sum) and GSO super-frames of up to ~64 KB
 * (gso_type, gso_size = MSS). An egress without ZVS_CAP_CSUM / ZVS_CAP_GSO, or whose
 * max_gso or MTU is smaller than the frame, gets the frame fixed up here:
 *   - zvs_vnet_csum_complete()  completes a partial checksum in place;
 *   - zvs_vnet_segment()        cuts a super-frame into MSS segments (or smaller
 *                               super-frames), as Linux tcp_gso_segment/__udp_gso_segment do.
 *
 * Frames handled by the segmenter: Ethernet II, at most ONE 802.1Q tag, IPv4 (options
 * allowed, no fragments) or IPv6 without extension headers, then TCP (options allowed)
 * or UDP. Anything else is -ENOTSUP (IPv6 extension headers, QinQ, legacy UFO, ...).
 * Metadata is never trusted: hdr_len is ignored beyond a bounds check (the header length
 * is taken from the packet), csum_start/csum_offset must match the parsed headers, and the
 * segment payload ends where the IP length field says (Ethernet padding is dropped).
 *
 * Checksums: a computed L4 checksum that comes out as 0x0000 is written as 0xFFFF (the
 * same value in ones' complement; mandatory for UDP, where 0 means "no checksum"; Linux
 * skb_checksum_help does the same for every protocol).
 */
#ifndef ZVS_VNET_H
#define ZVS_VNET_H

#include <stdbool.h>
#include <stdint.h>

#include "dataplane/frame.h"

/* ---- Internet checksum (RFC 1071) ------------------------------------------------- */

/* Add len bytes (big-endian 16-bit words, an odd last byte padded with a zero byte) to the
 * folded ones'-complement sum `sum`; returns the folded sum, not complemented. To sum a
 * buffer in several calls, every call but the last must cover an even number of bytes. */
uint16_t zvs_csum_add(uint16_t sum, const uint8_t *p, uint32_t len);

/* The Internet checksum of len bytes: the complement of their ones'-complement sum. A
 * header that includes its own correct checksum field gives 0. */
uint16_t zvs_inet_csum(const uint8_t *p, uint32_t len);

/* ---- Header location ---------------------------------------------------------------- */

#define ZVS_IPPROTO_TCP  6
#define ZVS_IPPROTO_UDP  17

/* Where the headers of an Ethernet / [802.1Q] / IP / TCP|UDP frame are. */
struct zvs_l4_hdrs {
    uint16_t l3_off;                    /* IP header: 14, or 18 behind an 802.1Q tag */
    uint16_t l4_off;                    /* TCP/UDP header: l3_off + IHL*4, or l3_off + 40 */
    uint16_t hdr_len;                   /* all headers: l4_off + TCP data offset*4, or + 8 */
    uint8_t  ip_ver;                    /* 4 or 6 */
    uint8_t  l4_proto;                  /* ZVS_IPPROTO_TCP or ZVS_IPPROTO_UDP */
    uint32_t ip_end;                    /* end of the IP datagram per its length field,
                                           <= frame length (the rest is padding) */
};

/* Locate the L3/L4 headers of a contiguous frame of len bytes. Returns 0, or
 * -EINVAL  malformed: runt, truncated header, IP version not matching the EtherType,
 *          IHL < 5, IP length field beyond the frame or shorter than the headers,
 *          TCP data offset < 5 or beyond the datagram, UDP header truncated;
 * -ENOTSUP well-formed but not handled: not IPv4/IPv6, stacked tags (QinQ, 802.1ad),
 *          IPv4 fragment, IPv6 extension header (incl. jumbograms), L4 not TCP/UDP. */
int zvs_vnet_parse(const uint8_t *frame, uint32_t len, struct zvs_l4_hdrs *h);

/* ---- Fix-ups -------------------------------------------------------------------------- */

/* Complete a partial L4 checksum in place: sum from csum_start to the end of the frame
 * (the field holds the pseudo-header seed) and store the result at csum_start+csum_offset.
 * frame is writable, len bytes. Clears NEEDS_CSUM, sets DATA_VALID and zeroes
 * csum_start/csum_offset in *vnet. A frame without NEEDS_CSUM is left alone (returns 0). Returns 0, or -EINVAL when the checksum
 * field does not lie within the frame (csum_start + csum_offset + 2 > len); nothing is
 * written then. */
int zvs_vnet_csum_complete(uint8_t *frame, uint32_t len, struct zvs_vnet *vnet);

/* Receives each output piece; frame/vnet are valid only during the call. Return 0 (or any
 * value >= 0) to go on, < 0 to stop: zvs_vnet_segment then returns that value. */
typedef int (*zvs_vnet_emit_fn)(void *arg, const uint8_t *frame, uint32_t len,
                                const struct zvs_vnet *vnet);

/* Split a GSO super-frame (contiguous, len bytes, Ethernet header first, at most one 802.1Q
 * tag) into pieces of at most max_len bytes each (whole frame incl. Ethernet header), each
 * built in `scratch` (max_len bytes; nothing is allocated) and handed to emit.
 *
 * - TCPV4 / TCPV6 / UDP_L4 (| ECN): with out_gso and room for 2+ segments in max_len, a
 *   piece carries a multiple of gso_size payload bytes (the last piece the rest) and is a
 *   GSO frame itself: headers fixed up, gso_type/gso_size kept, hdr_len set to the real
 *   header length, checksum partial (NEEDS_CSUM, seed over the piece's L4 length). Its
 *   segments, cut later by the egress, are the ones direct segmentation gives (IPv4 ids
 *   advance by the segments already sent). Otherwise, and for any piece whose payload is
 *   not bigger than gso_size, a piece is a plain frame (gso_type NONE) with its L4
 *   checksum completed (flags DATA_VALID), or left partial with the right pseudo-header
 *   seed and csum metadata when out_csum_partial.
 *   TCP: seq += payload offset; FIN and PSH only on the last piece, CWR only on the first.
 *   UDP_L4: every piece is its own datagram (UDP length and checksum of its own).
 *   IPv4: total length, id (+1 per segment, the first keeps the original) and header
 *   checksum recomputed. IPv6: payload length recomputed.
 *   A frame whose payload is not bigger than gso_size gives one piece.
 * - NONE: one piece, the frame as it is, checksum completed unless out_csum_partial (any
 *   EtherType: only csum_start/csum_offset are used).
 *
 * Returns the number of pieces emitted (>= 1), or
 * -EINVAL   malformed frame (see zvs_vnet_parse) or inconsistent metadata: gso_size 0,
 *           hdr_len > len, csum field outside the frame, NEEDS_CSUM with csum_start/offset
 *           not at the parsed TCP/UDP checksum, gso_type not matching the headers;
 * -ENOTSUP  gso_type not handled (legacy UFO ZVS_VNET_GSO_UDP, unknown) or headers
 *           zvs_vnet_parse does not handle;
 * -EMSGSIZE max_len too small for one segment (headers + gso_size, or the whole frame
 *           when it is not segmented): the egress MTU is below the sender's MSS;
 * or the callback's negative value. Every check is made before the first piece is emitted. */
int zvs_vnet_segment(const uint8_t *frame, uint32_t len, const struct zvs_vnet *vnet,
                     uint32_t max_len, bool out_gso, bool out_csum_partial,
                     uint8_t *scratch, zvs_vnet_emit_fn emit, void *arg);

/* The smallest max_len zvs_vnet_segment takes for this frame when it cuts plain segments
 * (out_gso false): the headers and one gso_size of payload, or the whole datagram when it
 * carries no more; a frame without GSO, len. What a sender's segments needed when
 * zvs_vnet_segment said -EMSGSIZE, so the sender can be told the MTU it uses. 0 for a
 * frame it would refuse otherwise. */
uint32_t zvs_vnet_segment_need(const uint8_t *frame, uint32_t len, const struct zvs_vnet *vnet);

#endif
