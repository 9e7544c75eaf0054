/* Offload fix-up: partial checksums and GSO super-frames finished in software.
 *
 * Owns: the Internet checksum, locating the IP and TCP/UDP headers of a frame, completing
 * a partial checksum (virtio-net NEEDS_CSUM) and cutting GSO super-frames (TCPV4, TCPV6,
 * UDP_L4) into segments or smaller super-frames for an egress that cannot take them.
 *
 * Rules, after Linux tcp_gso_segment / __udp_gso_segment / inet_gso_segment:
 *   - every piece is headers (copied from the super-frame, fixed up) + a slice of payload;
 *   - TCP: seq advances by the payload offset, FIN/PSH stay on the last piece only, CWR on
 *     the first only; UDP_L4: each piece is a datagram with its own length;
 *   - IPv4: total length, id (+1 per segment) and header checksum per piece; IPv6: payload
 *     length per piece;
 *   - L4 checksum: computed from scratch over pseudo-header + segment (the super-frame's
 *     checksum field is never used), or left partial with the seed over the piece's own
 *     L4 length, which is what a virtio/tap receiver expects of a GSO frame.
 *
 * Hazards: metadata comes from another host's kernel or a guest and is not trusted.
 * hdr_len is only bounds-checked (it is 0 or wrong in practice; the header length comes
 * from the packet), csum_start/csum_offset must point at the parsed L4 checksum, and the
 * payload ends at the IP length, never at the frame length. Every check is done before
 * the first byte is written to scratch, so an error never emits half a super-frame.
 * Nothing is allocated: each piece is built in the caller's scratch and handed to emit.
 */
#include "dataplane/vnet.h"

#include <assert.h>
#include <errno.h>
#include <string.h>

#define ETHERTYPE_IPV4   0x0800
#define ETHERTYPE_IPV6   0x86DD
#define IPV4_MIN_HLEN    20
#define IPV6_HLEN        40
#define IPV4_MF          0x2000         /* more fragments, in the flags/offset word */
#define IPV4_FRAG_OFF    0x1FFF
#define TCP_MIN_HLEN     20
#define UDP_HLEN         8
#define TCP_CSUM_OFF     16             /* checksum field within the TCP header */
#define UDP_CSUM_OFF     6              /* checksum field within the UDP header */
#define TCP_FIN          0x01
#define TCP_PSH          0x08
#define TCP_CWR          0x80

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* ---- Internet checksum ---------------------------------------------------------------- */

static uint16_t csum_fold(uint64_t acc)
{
    while (acc >> 16)
        acc = (acc & 0xFFFF) + (acc >> 16);
    return (uint16_t)acc;
}

uint16_t zvs_csum_add(uint16_t sum, const uint8_t *p, uint32_t len)
{
    uint64_t acc = sum;
    uint32_t i = 0;

    /* 32-bit words: 2^16 == 1 modulo 0xFFFF, so folding them gives the 16-bit word sum. */
    for (; i + 4 <= len; i += 4)
        acc += be32(p + i);
    if (i + 2 <= len) {
        acc += zvs_be16(p + i);
        i += 2;
    }
    if (i < len)
        acc += (uint32_t)p[i] << 8;
    return csum_fold(acc);
}

uint16_t zvs_inet_csum(const uint8_t *p, uint32_t len)
{
    return (uint16_t)~zvs_csum_add(0, p, len);
}

/* Store a completed L4 checksum; 0x0000 goes out as 0xFFFF (UDP reads 0 as "none"). */
static void csum_store(uint8_t *field, uint16_t sum)
{
    uint16_t c = (uint16_t)~sum;

    zvs_put_be16(field, c ? c : 0xFFFF);
}

/* Pseudo-header sum for an L4 length: addresses + protocol + length. The IPv4 and IPv6
 * layouts differ, but their word sums are the same for lengths below 64 KB. */
static uint16_t pseudo_sum(const uint8_t *frame, const struct zvs_l4_hdrs *h, uint32_t l4_len)
{
    const uint8_t *ip = frame + h->l3_off;
    uint16_t sum;

    if (h->ip_ver == 4)
        sum = zvs_csum_add(0, ip + 12, 8);
    else
        sum = zvs_csum_add(0, ip + 8, 32);
    return csum_fold((uint64_t)sum + h->l4_proto + l4_len);
}

/* ---- Header location ------------------------------------------------------------------ */

static int parse_ipv4(const uint8_t *f, uint32_t len, struct zvs_l4_hdrs *h)
{
    const uint8_t *ip = f + h->l3_off;
    uint32_t avail = len - h->l3_off;

    if (avail < IPV4_MIN_HLEN || ip[0] >> 4 != 4)
        return -EINVAL;
    uint32_t ihl = (ip[0] & 0x0Fu) * 4u;
    uint32_t tot = zvs_be16(ip + 2);
    if (ihl < IPV4_MIN_HLEN || ihl > avail || tot < ihl || tot > avail)
        return -EINVAL;
    if (zvs_be16(ip + 6) & (IPV4_MF | IPV4_FRAG_OFF))
        return -ENOTSUP;
    h->ip_ver = 4;
    h->l4_proto = ip[9];
    h->l4_off = (uint16_t)(h->l3_off + ihl);
    h->ip_end = h->l3_off + tot;
    return 0;
}

static int parse_ipv6(const uint8_t *f, uint32_t len, struct zvs_l4_hdrs *h)
{
    const uint8_t *ip = f + h->l3_off;
    uint32_t avail = len - h->l3_off;

    if (avail < IPV6_HLEN || ip[0] >> 4 != 6)
        return -EINVAL;
    uint32_t plen = zvs_be16(ip + 4);
    if (IPV6_HLEN + plen > avail)
        return -EINVAL;
    h->ip_ver = 6;
    h->l4_proto = ip[6];                /* next header: extension headers are refused below */
    h->l4_off = (uint16_t)(h->l3_off + IPV6_HLEN);
    h->ip_end = h->l3_off + IPV6_HLEN + plen;
    return 0;
}

static int parse_l4(const uint8_t *f, struct zvs_l4_hdrs *h)
{
    uint32_t avail = h->ip_end - h->l4_off;

    if (h->l4_proto == ZVS_IPPROTO_UDP) {
        if (avail < UDP_HLEN)
            return -EINVAL;
        h->hdr_len = (uint16_t)(h->l4_off + UDP_HLEN);
        return 0;
    }
    if (h->l4_proto != ZVS_IPPROTO_TCP)
        return -ENOTSUP;
    if (avail < TCP_MIN_HLEN)
        return -EINVAL;
    uint32_t doff = (f[h->l4_off + 12] >> 4) * 4u;
    if (doff < TCP_MIN_HLEN || doff > avail)
        return -EINVAL;
    h->hdr_len = (uint16_t)(h->l4_off + doff);
    return 0;
}

int zvs_vnet_parse(const uint8_t *frame, uint32_t len, struct zvs_l4_hdrs *h)
{
    assert(frame || len == 0);
    assert(h);
    memset(h, 0, sizeof(*h));
    if (len < ZVS_ETH_HLEN)
        return -EINVAL;
    uint16_t type = zvs_be16(frame + 12);
    h->l3_off = ZVS_ETH_HLEN;
    if (type == ZVS_ETHERTYPE_VLAN) {
        if (len < ZVS_ETH_HLEN + ZVS_VLAN_HLEN)
            return -EINVAL;
        type = zvs_be16(frame + 16);
        h->l3_off = ZVS_ETH_HLEN + ZVS_VLAN_HLEN;
    }
    int rc;
    if (type == ETHERTYPE_IPV4)
        rc = parse_ipv4(frame, len, h);
    else if (type == ETHERTYPE_IPV6)
        rc = parse_ipv6(frame, len, h);
    else
        rc = -ENOTSUP;                  /* ARP, QinQ / stacked tags, anything else */
    if (rc == 0)
        rc = parse_l4(frame, h);
    return rc;
}

/* ---- Checksum completion -------------------------------------------------------------- */

/* The partial checksum field lies within len bytes. */
static bool csum_field_ok(const struct zvs_vnet *vnet, uint32_t len)
{
    return (uint32_t)vnet->csum_start + vnet->csum_offset + 2u <= len;
}

int zvs_vnet_csum_complete(uint8_t *frame, uint32_t len, struct zvs_vnet *vnet)
{
    assert(frame || len == 0);
    assert(vnet);
    if (!(vnet->flags & ZVS_VNET_F_NEEDS_CSUM))
        return 0;
    if (!csum_field_ok(vnet, len))
        return -EINVAL;
    uint32_t start = vnet->csum_start;
    csum_store(frame + start + vnet->csum_offset, zvs_csum_add(0, frame + start, len - start));
    vnet->flags = (uint8_t)((vnet->flags & ~ZVS_VNET_F_NEEDS_CSUM) | ZVS_VNET_F_DATA_VALID);
    vnet->csum_start = 0;
    vnet->csum_offset = 0;
    return 0;
}

/* ---- Segmentation --------------------------------------------------------------------- */

/* One super-frame being cut: what every piece is built from. */
struct seg_plan {
    const uint8_t     *frame;           /* the super-frame */
    struct zvs_l4_hdrs h;               /* its parsed headers */
    uint8_t            gso_type;        /* as received, ECN bit included */
    uint16_t           mss;             /* gso_size */
    uint16_t           csum_off;        /* checksum field within the L4 header */
    uint32_t           payload;         /* bytes from h.hdr_len to h.ip_end */
    uint32_t           piece_payload;   /* payload bytes per piece (the last may have less) */
    bool               out_gso;         /* pieces of 2+ segments stay GSO frames */
    bool               out_csum_partial;/* plain pieces keep a partial checksum */
};

/* Build the piece carrying payload [off, off+plen) in out; segs_before segments of the
 * super-frame precede it. Returns the piece's length and its metadata in *ov. */
static uint32_t build_piece(const struct seg_plan *s, uint32_t off, uint32_t plen,
                            uint32_t segs_before, uint8_t *out, struct zvs_vnet *ov)
{
    const struct zvs_l4_hdrs *h = &s->h;
    uint32_t total = h->hdr_len + plen;
    uint32_t l4_len = total - h->l4_off;
    uint8_t *ip = out + h->l3_off;
    uint8_t *l4 = out + h->l4_off;

    memcpy(out, s->frame, h->hdr_len);
    memcpy(out + h->hdr_len, s->frame + h->hdr_len + off, plen);
    if (h->ip_ver == 4) {
        zvs_put_be16(ip + 2, (uint16_t)(total - h->l3_off));
        zvs_put_be16(ip + 4, (uint16_t)(zvs_be16(ip + 4) + segs_before));
        zvs_put_be16(ip + 10, 0);
        zvs_put_be16(ip + 10, zvs_inet_csum(ip, (uint32_t)(h->l4_off - h->l3_off)));
    } else {
        zvs_put_be16(ip + 4, (uint16_t)(total - h->l4_off));
    }
    if (h->l4_proto == ZVS_IPPROTO_TCP) {
        uint8_t flags = l4[13];
        put_be32(l4 + 4, be32(l4 + 4) + off);
        if (off + plen < s->payload)
            flags &= (uint8_t)~(TCP_FIN | TCP_PSH);
        if (off > 0)
            flags &= (uint8_t)~TCP_CWR;
        l4[13] = flags;
    } else {
        zvs_put_be16(l4 + 4, (uint16_t)l4_len);
    }

    bool gso = s->out_gso && plen > s->mss;
    uint16_t seed = pseudo_sum(out, h, l4_len);
    memset(ov, 0, sizeof(*ov));
    if (gso || s->out_csum_partial) {
        zvs_put_be16(l4 + s->csum_off, seed);
        ov->flags = ZVS_VNET_F_NEEDS_CSUM;
        ov->csum_start = h->l4_off;
        ov->csum_offset = s->csum_off;
    } else {
        zvs_put_be16(l4 + s->csum_off, 0);
        csum_store(l4 + s->csum_off, zvs_csum_add(seed, l4, l4_len));
        ov->flags = ZVS_VNET_F_DATA_VALID;
    }
    if (gso) {
        ov->gso_type = s->gso_type;
        ov->gso_size = s->mss;
        ov->hdr_len = h->hdr_len;
    }
    return total;
}

/* A frame without GSO: one piece, its checksum completed unless the egress takes it
 * partial. */
static int segment_none(const uint8_t *frame, uint32_t len, const struct zvs_vnet *vnet,
                        uint32_t max_len, bool out_csum_partial, uint8_t *scratch,
                        zvs_vnet_emit_fn emit, void *arg)
{
    struct zvs_vnet ov = *vnet;

    if (len > max_len)
        return -EMSGSIZE;
    ov.gso_type = ZVS_VNET_GSO_NONE;
    ov.gso_size = 0;
    ov.hdr_len = 0;
    memcpy(scratch, frame, len);
    if (!out_csum_partial && zvs_vnet_csum_complete(scratch, len, &ov) < 0)
        return -EINVAL;                 /* checked by the caller already */
    int rc = emit(arg, scratch, len, &ov);
    return rc < 0 ? rc : 1;
}

/* Parse the super-frame and check the metadata against it; fill the plan. */
static int plan_gso(const uint8_t *frame, uint32_t len, const struct zvs_vnet *vnet,
                    struct seg_plan *s)
{
    uint8_t type = vnet->gso_type & (uint8_t)~ZVS_VNET_GSO_ECN;

    if (type != ZVS_VNET_GSO_TCPV4 && type != ZVS_VNET_GSO_TCPV6 && type != ZVS_VNET_GSO_UDP_L4)
        return -ENOTSUP;                /* legacy UFO, unknown types */
    if (vnet->gso_size == 0)
        return -EINVAL;
    int rc = zvs_vnet_parse(frame, len, &s->h);
    if (rc < 0)
        return rc;
    const struct zvs_l4_hdrs *h = &s->h;
    bool tcp = h->l4_proto == ZVS_IPPROTO_TCP;
    if ((type == ZVS_VNET_GSO_TCPV4 && !(tcp && h->ip_ver == 4)) ||
        (type == ZVS_VNET_GSO_TCPV6 && !(tcp && h->ip_ver == 6)) ||
        (type == ZVS_VNET_GSO_UDP_L4 && tcp))
        return -EINVAL;
    s->csum_off = tcp ? TCP_CSUM_OFF : UDP_CSUM_OFF;
    if ((vnet->flags & ZVS_VNET_F_NEEDS_CSUM) &&
        (vnet->csum_start != h->l4_off || vnet->csum_offset != s->csum_off))
        return -EINVAL;
    s->frame = frame;
    s->gso_type = vnet->gso_type;
    s->mss = vnet->gso_size;
    s->payload = h->ip_end - h->hdr_len;
    return 0;
}

/* Payload bytes per piece for an egress of max_len bytes, or -EMSGSIZE. */
static int plan_pieces(struct seg_plan *s, uint32_t max_len)
{
    uint32_t hl = s->h.hdr_len;

    if (s->payload <= s->mss) {
        if (hl + s->payload > max_len)
            return -EMSGSIZE;
        s->piece_payload = s->payload;
        return 0;
    }
    if (hl + s->mss > max_len)
        return -EMSGSIZE;
    uint32_t segs = 1;
    if (s->out_gso && (max_len - hl) / s->mss >= 2)
        segs = (max_len - hl) / s->mss;
    s->piece_payload = segs * s->mss;
    return 0;
}

int zvs_vnet_segment(const uint8_t *frame, uint32_t len, const struct zvs_vnet *vnet,
                     uint32_t max_len, bool out_gso, bool out_csum_partial,
                     uint8_t *scratch, zvs_vnet_emit_fn emit, void *arg)
{
    struct seg_plan s = { .out_gso = out_gso, .out_csum_partial = out_csum_partial };

    assert(frame && vnet && scratch && emit);
    if (vnet->hdr_len > len)
        return -EINVAL;
    if ((vnet->flags & ZVS_VNET_F_NEEDS_CSUM) && !csum_field_ok(vnet, len))
        return -EINVAL;
    if ((vnet->gso_type & (uint8_t)~ZVS_VNET_GSO_ECN) == ZVS_VNET_GSO_NONE)
        return segment_none(frame, len, vnet, max_len, out_csum_partial, scratch, emit, arg);
    int rc = plan_gso(frame, len, vnet, &s);
    if (rc == 0)
        rc = plan_pieces(&s, max_len);
    if (rc < 0)
        return rc;

    uint32_t off = 0;
    uint32_t segs = 0;
    int n = 0;
    do {
        uint32_t plen = s.payload - off < s.piece_payload ? s.payload - off : s.piece_payload;
        struct zvs_vnet ov;
        uint32_t piece_len = build_piece(&s, off, plen, segs, scratch, &ov);
        assert(piece_len <= max_len);
        rc = emit(arg, scratch, piece_len, &ov);
        if (rc < 0)
            return rc;
        n++;
        off += plen;
        segs += plen ? (plen + s.mss - 1u) / s.mss : 1u;
    } while (off < s.payload);
    return n;
}

uint32_t zvs_vnet_segment_need(const uint8_t *frame, uint32_t len, const struct zvs_vnet *vnet)
{
    struct seg_plan s = { .out_gso = false };

    if ((vnet->gso_type & (uint8_t)~ZVS_VNET_GSO_ECN) == ZVS_VNET_GSO_NONE)
        return len;
    if (plan_gso(frame, len, vnet, &s) < 0)
        return 0;
    return s.h.hdr_len + (s.payload < s.mss ? s.payload : s.mss);
}
