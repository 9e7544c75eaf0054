/* The VXLAN codec (RFC 7348): the outer Ethernet, IPv4 or IPv6, UDP and VXLAN headers a
 * VTEP puts before an inner frame, and their parse on the way back.
 *
 * Pure functions on bytes, no state: the VTEP (vtep.c) decides where a frame goes, this
 * file only writes and reads headers. Encapsulation writes the outer headers into a
 * caller's buffer, the inner frame stays where it is (the egress sends both as two
 * iovecs), so a frame replicated to N remote VTEPs is never copied N times.
 *
 * Checksums: the outer IPv4 header's is computed here. The outer UDP checksum is 0 over
 * IPv4 (RFC 7348 section 5 allows it, and Linux and Open vSwitch send it so by default);
 * over IPv6 a zero UDP checksum is refused by default (RFC 6935, RFC 6936; Linux's
 * udp6zerocsumrx is off), so the field gets the pseudo-header seed and the caller marks
 * the frame ZVS_VNET_F_NEEDS_CSUM: the kernel completes it where it offers the offload,
 * dataplane/vnet.c where it does not (zvs_vxlan_outer_vnet).
 */
#ifndef ZVS_VXLAN_CODEC_H
#define ZVS_VXLAN_CODEC_H

#include <stdbool.h>
#include <stdint.h>

#include "dataplane/frame.h"

#define ZVS_VXLAN_UDP_PORT      4789    /* IANA, RFC 7348 section 5 */
#define ZVS_VXLAN_HLEN          8       /* flags, reserved, VNI, reserved */
#define ZVS_VXLAN_FLAG_I        0x08    /* "a valid VNI is present": must be set */
#define ZVS_VXLAN_VNI_MAX       0xFFFFFFu
#define ZVS_UDP_HLEN            8
#define ZVS_IPV4_HLEN           20      /* we send no options; we accept them */
#define ZVS_IPV6_HLEN           40
/* The overhead an inner frame gets: outer Ethernet + IP + UDP + VXLAN. */
#define ZVS_VXLAN_OVERHEAD_V4   (ZVS_ETH_HLEN + ZVS_IPV4_HLEN + ZVS_UDP_HLEN + ZVS_VXLAN_HLEN)
#define ZVS_VXLAN_OVERHEAD_V6   (ZVS_ETH_HLEN + ZVS_IPV6_HLEN + ZVS_UDP_HLEN + ZVS_VXLAN_HLEN)
/* Room for the largest outer header we write (an underlay tag included). */
#define ZVS_VXLAN_MAX_HDR       (ZVS_VXLAN_OVERHEAD_V6 + ZVS_VLAN_HLEN)
/* RFC 7348 section 5: the source port should come from the dynamic range 49152-65535. */
#define ZVS_VXLAN_SPORT_MIN     49152u
#define ZVS_ETHERTYPE_IPV4      0x0800
#define ZVS_ETHERTYPE_IPV6      0x86DD
#define ZVS_ETHERTYPE_ARP       0x0806
#define ZVS_IPPROTO_UDP_NUM     17

/* An underlay address: IPv4 in the first 4 bytes of a[] when family is 4. */
struct zvs_ipaddr {
    uint8_t family;                     /* 4 or 6; 0: none */
    uint8_t a[16];
};

bool zvs_ipaddr_equal(const struct zvs_ipaddr *x, const struct zvs_ipaddr *y);
/* Parse "192.0.2.1" or "2001:db8::1"; 0 or -EINVAL. */
int zvs_ipaddr_parse(const char *s, struct zvs_ipaddr *out);
/* Text form into buf (at least 46 bytes); returns buf. */
const char *zvs_ipaddr_str(const struct zvs_ipaddr *a, char *buf, unsigned size);

/* What the outer headers say; both addresses of the same family. */
struct zvs_vxlan_outer {
    uint8_t          dst_mac[6];        /* the next hop on the underlay */
    uint8_t          src_mac[6];        /* the underlay uplink's */
    uint16_t         underlay_vid;      /* 0: untagged underlay */
    struct zvs_ipaddr src, dst;         /* local and remote VTEP */
    uint16_t         dst_port;          /* 4789 unless configured */
    uint8_t          ttl;               /* 0 means 64 */
    uint8_t          tos;               /* DSCP/ECN byte (IPv4 TOS, IPv6 traffic class) */
};

/* Bytes of outer header for `o` (ZVS_VXLAN_OVERHEAD_V4/V6, plus 4 with an underlay tag). */
unsigned zvs_vxlan_hdr_len(const struct zvs_vxlan_outer *o);

/* Write the outer headers for an inner frame of inner_len bytes into buf (room for
 * zvs_vxlan_hdr_len(o)); returns the bytes written, or 0 when the result would not fit an
 * IP datagram (inner_len too large) or the VNI is above 24 bits. */
unsigned zvs_vxlan_encap(uint8_t *buf, const struct zvs_vxlan_outer *o, uint32_t vni,
                         uint16_t sport, uint32_t inner_len);

/* The offload metadata the encapsulated frame (header of hdr_len bytes, then the inner
 * frame) carries: IPv4 none (UDP checksum 0); IPv6 NEEDS_CSUM on the outer UDP header. */
struct zvs_vnet zvs_vxlan_outer_vnet(const struct zvs_vxlan_outer *o, unsigned hdr_len);

/* The outer UDP source port for an inner frame: a hash of its Ethernet addresses and
 * EtherType, and for IPv4/IPv6 its addresses and, for TCP/UDP/SCTP, its ports (RFC 7348
 * section 5: entropy for ECMP and for a port group's choice of member), in 49152-65535.
 * One flow, one port: segments of a stream are never reordered across members. */
uint16_t zvs_vxlan_sport(const uint8_t *inner, uint32_t len);

/* Why a frame from the underlay is not a good VXLAN frame. */
enum zvs_vxlan_verdict {
    ZVS_VXLAN_OK = 0,
    ZVS_VXLAN_NOT_VXLAN,                /* not IPv4/IPv6 UDP to our port: not for the VTEP */
    ZVS_VXLAN_TRUNCATED,                /* ends inside the outer headers */
    ZVS_VXLAN_BAD_OUTER,                /* bad IP version/length/checksum, a fragment, bad
                                           UDP length */
    ZVS_VXLAN_I_FLAG_CLEAR,             /* RFC 7348 section 5: the I flag must be 1 */
    ZVS_VXLAN_INNER_RUNT,               /* inner frame shorter than an Ethernet header */
    ZVS_VXLAN_INNER_OVERSIZE,           /* inner frame longer than the VTEP allows */
};

/* A parsed VXLAN frame. */
struct zvs_vxlan_decoded {
    uint32_t         vni;
    bool             reserved_set;      /* reserved bits or flags set: counted, ignored */
    struct zvs_ipaddr src, dst;         /* outer addresses */
    uint16_t         sport;             /* outer UDP source port */
    uint32_t         inner_off;         /* the inner Ethernet header's offset */
    uint32_t         inner_len;         /* bytes of inner frame (outer padding cut) */
};

/* Parse an underlay frame of len bytes (untagged or one 802.1Q tag): IPv4 (options
 * allowed, header checksum verified) or IPv6 (no extension headers) carrying UDP to dst_port, then the VXLAN header.
 * inner_max: the longest inner frame accepted. The UDP checksum is not verified (a zero
 * one is allowed over IPv4; the kernel checked the rest, or a NIC did). */
enum zvs_vxlan_verdict zvs_vxlan_decode(const uint8_t *p, uint32_t len, uint16_t dst_port,
                                        uint32_t inner_max, struct zvs_vxlan_decoded *out);

/* The verdict's name for counters and QUERY ("vxlan-truncated" ...). */
const char *zvs_vxlan_verdict_name(enum zvs_vxlan_verdict v);

#endif
