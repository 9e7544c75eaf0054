/* Frame descriptors: what travels through the data path.
 *
 * A frame descriptor points at bytes it does not own: a buffer of the frame pool (frames
 * received from a kernel interface) or an entry of a guest's QDIO output buffer. The bytes
 * are read-only on the path: VLAN tags are not stripped or inserted in place but applied
 * when a frame is written to its egress (frame_emit), so one received frame can be
 * flooded to several ports and each gets the tagging it needs with one copy.
 *
 * Offload metadata (checksum still to be completed, GSO super-frame) rides along in
 * `vnet`, in host byte order, with the meaning of the virtio-net header: this is how a
 * TCP super-frame from a tap or a veth crosses the switch without being segmented.
 */
#ifndef ZVS_FRAME_H
#define ZVS_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#define ZVS_ETH_ALEN        6
#define ZVS_ETH_HLEN        14
#define ZVS_VLAN_HLEN       4
#define ZVS_ETH_MIN_LEN     14          /* shorter than a MAC header: a runt */
#define ZVS_ETHERTYPE_VLAN  0x8100
#define ZVS_ETHERTYPE_QINQ  0x88A8
#define ZVS_ETHERTYPE_SLOW  0x8809
#define ZVS_BATCH           32          /* frames handled per burst on every stage */
#define ZVS_MAX_FRAGS       16          /* one QDIO buffer's worth of entries */
/* The most pieces a frame descriptor may have: a QDIO buffer's entries, or a VXLAN
 * uplink's encapsulated copy of such a frame (its outer header, then the inner frame's
 * pieces with a tag edit's two more: overlay/uplink_vxlan.c). The frame functions take
 * up to this many and refuse more (never past their arrays). */
#define ZVS_FRAME_PIECES_MAX (ZVS_MAX_FRAGS + 3)
#define ZVS_VID_NONE        0           /* untagged / VLAN UNAWARE */
#define ZVS_VID_MAX         4094

/* Offload metadata, virtio-net semantics, host byte order. */
#define ZVS_VNET_F_NEEDS_CSUM  0x01     /* checksum at csum_start+csum_offset is partial */
#define ZVS_VNET_F_DATA_VALID  0x02     /* checksum already verified by the sender's host */
#define ZVS_VNET_GSO_NONE      0
#define ZVS_VNET_GSO_TCPV4     1
#define ZVS_VNET_GSO_UDP       3
#define ZVS_VNET_GSO_TCPV6     4
#define ZVS_VNET_GSO_UDP_L4    5
#define ZVS_VNET_GSO_ECN       0x80
/* A UDP tunnel super-frame (virtio 1.4's tunnel extension, Linux's SKB_GSO_UDP_TUNNEL):
 * OR-ed into a TCPV4/TCPV6 type; the outer headers are the first tnl_outer_th +
 * 8 bytes and more, the inner IP header at tnl_inner_nh, csum_start the inner L4 header.
 * Only between a VXLAN uplink and an underlay port that takes it (ZVS_CAP_UDP_TUNNEL_GSO):
 * the switch never sees one. */
#define ZVS_VNET_GSO_UDP_TUNNEL4 0x20   /* the outer IP header is IPv4 */
#define ZVS_VNET_GSO_UDP_TUNNEL6 0x40   /* the outer IP header is IPv6 */
#define ZVS_VNET_GSO_UDP_TUNNEL  (ZVS_VNET_GSO_UDP_TUNNEL4 | ZVS_VNET_GSO_UDP_TUNNEL6)

struct zvs_vnet {
    uint8_t  flags;                     /* ZVS_VNET_F_* */
    uint8_t  gso_type;                  /* ZVS_VNET_GSO_* (| ECN) */
    uint16_t hdr_len;                   /* bytes of headers before the GSO payload */
    uint16_t gso_size;                  /* payload bytes per segment (MSS) */
    uint16_t csum_start;                /* offset from frame start where summing starts */
    uint16_t csum_offset;               /* where, after csum_start, the sum is stored */
    uint16_t tnl_outer_th;              /* GSO_UDP_TUNNEL: the outer UDP header's offset */
    uint16_t tnl_inner_nh;              /* GSO_UDP_TUNNEL: the inner IP header's offset */
};

/* No offload metadata at all (every field 0): two 8-byte loads that overlap (bytes 0-7
 * and 6-13) cover the 14 bytes, one load and one OR fewer than 8 + 4 + 2. */
static inline bool zvs_vnet_is_zero(const struct zvs_vnet *v)
{
    uint64_t a, b;

    _Static_assert(sizeof(*v) == 14, "vnet metadata is 14 bytes, no padding");
    __builtin_memcpy(&a, v, 8);
    __builtin_memcpy(&b, (const uint8_t *)v + 6, 8);
    return (a | b) == 0;
}

/* An IVL port's frame kinds (the low bits of zvs_frame.ivl and zvs_tx.ivl): what the
 * switch of another system of the IVL domain does with a frame that crossed the IVL, and
 * what ours asks of the other systems (ivl/frame.h has the header and the rules). */
#define ZVS_FIVL_OUTBOUND  0x01         /* out of the receiver's port group members only */
#define ZVS_FIVL_INBOUND   0x02         /* to the receiver's guest only */
#define ZVS_FIVL_FLOOD     0x03         /* to the receiver's guests only */
#define ZVS_FIVL_KIND      0x03
#define ZVS_FIVL_GUEST_SRC 0x10         /* the source is a guest of the sending system */

/* Frame flags. */
#define ZVS_FF_TAGGED      0x01         /* bytes carry an 802.1Q tag at offset 12 */
#define ZVS_FF_BCAST       0x02         /* destination ff:ff:ff:ff:ff:ff */
#define ZVS_FF_MCAST       0x04         /* destination group bit set (incl. broadcast) */
#define ZVS_FF_SLOW        0x08         /* Slow Protocols (LACP, Marker): never to guests */

struct zvs_frame {
    const uint8_t  *data;               /* first byte of the Ethernet header */
    uint32_t        len;                /* bytes in the whole frame */
    uint16_t        vid;                /* VLAN after ingress classification */
    uint8_t         pcp;                /* priority bits from the tag, else 0 */
    uint8_t         flags;              /* ZVS_FF_* */
    uint16_t        in_port;            /* ingress port index in the switch */
    uint16_t        nfrags;             /* 0: all len bytes at data; else frags[] hold them,
                                           frags[0] starts at data and holds >= 18 bytes */
    struct zvs_vnet vnet;               /* offload metadata */
    uint8_t         ivl;                /* from an IVL port only (its backend sets it; any
                                           other port's frames leave it unread): the kind
                                           and source of a frame from another system of
                                           the IVL domain, ZVS_FIVL_* */
    const struct iovec *frags;          /* scattered frames (QDIO first/middle/last entries) */
    uint64_t        cookie;             /* owner's handle to release the bytes */
};

/* What an egress does with the 802.1Q tag when it writes a frame. */
enum zvs_tag_op {
    ZVS_TAG_KEEP,                       /* bytes as received */
    ZVS_TAG_STRIP,                      /* remove the tag the bytes carry */
    ZVS_TAG_PUSH,                       /* insert a tag (bytes are untagged) */
    ZVS_TAG_REWRITE,                    /* replace the VID of the tag the bytes carry */
};

static inline uint16_t zvs_be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }

static inline void zvs_put_be16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

/* Length of the frame as it will be written after applying `op`. */
static inline uint32_t zvs_frame_out_len(const struct zvs_frame *f, enum zvs_tag_op op)
{
    if (op == ZVS_TAG_STRIP)
        return f->len - ZVS_VLAN_HLEN;
    if (op == ZVS_TAG_PUSH)
        return f->len + ZVS_VLAN_HLEN;
    return f->len;
}

/* Copy the frame into dst (room for zvs_frame_out_len bytes), applying the tag operation;
 * the one copy a frame gets on its way through the switch. Returns bytes written.
 * *vnet_out (may be NULL) gets zvs_frame_vnet_after_op(f, op).
 * STRIP and REWRITE need a tagged frame of at least 18 bytes, PUSH one of at least 12:
 * the switch's ingress checks guarantee both. */
uint32_t zvs_frame_emit(const struct zvs_frame *f, enum zvs_tag_op op, uint16_t vid,
                        uint8_t *dst, struct zvs_vnet *vnet_out);

/* Describe the frame after the tag operation as an iovec list without copying (for
 * sendmsg/writev). `tag` is 4 bytes of scratch that must outlive the iovecs. Returns the
 * number of iovecs used (at most ZVS_FRAME_PIECES_MAX + 2), or -1 when iov_max is too
 * small or the frame has more than ZVS_FRAME_PIECES_MAX pieces. */
int zvs_frame_iov(const struct zvs_frame *f, enum zvs_tag_op op, uint16_t vid,
                  uint8_t tag[4], struct iovec *iov, int iov_max);

/* The offload metadata of f after the tag edit `op`: csum_start and hdr_len move with
 * the 4 bytes a tag adds or removes. */
struct zvs_vnet zvs_frame_vnet_after_op(const struct zvs_frame *f, enum zvs_tag_op op);

/* Read the first `n` bytes of a frame (contiguous or scattered) into out; returns bytes
 * read. Used to parse headers of scattered frames. */
uint32_t zvs_frame_peek(const struct zvs_frame *f, uint8_t *out, uint32_t n);

#endif
