/* UDP tunnel GSO metadata for VXLAN; see vxlan_gso.h. */
#include "overlay/vxlan_gso.h"

#define TCP_MIN_HLEN   20
#define TCP_DOFF_BYTE  12               /* the data offset's byte in the TCP header */
#define TCP_CSUM_OFF   16               /* the checksum's offset in the TCP header */
/* The furthest a TCP header starts: Ethernet, a tag, IPv6 or IPv4 with options. */
#define PEEK_MAX       (ZVS_ETH_HLEN + ZVS_VLAN_HLEN + 60 + TCP_DOFF_BYTE + 1)

bool zvs_vxlan_gso_inner(const struct zvs_frame *f, uint32_t *seg_hdr)
{
    uint8_t type = f->vnet.gso_type & (uint8_t)~ZVS_VNET_GSO_ECN;
    uint32_t l4 = f->vnet.csum_start;
    uint8_t head[PEEK_MAX];
    const uint8_t *p = f->data;

    if ((type != ZVS_VNET_GSO_TCPV4 && type != ZVS_VNET_GSO_TCPV6) || f->vnet.gso_size == 0 ||
        !(f->vnet.flags & ZVS_VNET_F_NEEDS_CSUM) || f->vnet.csum_offset != TCP_CSUM_OFF ||
        l4 <= ZVS_ETH_HLEN ||
        l4 + TCP_DOFF_BYTE + 1 > PEEK_MAX || l4 + TCP_MIN_HLEN > f->len)
        return false;
    if (f->nfrags && zvs_frame_peek(f, head, l4 + TCP_DOFF_BYTE + 1) == l4 + TCP_DOFF_BYTE + 1)
        p = head;
    else if (f->nfrags)
        return false;
    uint32_t doff = (uint32_t)(p[l4 + TCP_DOFF_BYTE] >> 4) * 4u;
    if (doff < TCP_MIN_HLEN || l4 + doff > f->len)
        return false;
    *seg_hdr = l4 + doff;
    return true;
}

struct zvs_vnet zvs_vxlan_gso_outer(const struct zvs_vnet *iv, unsigned hdr_len,
                                    uint32_t inner_seg_hdr)
{
    struct zvs_vnet v = *iv;

    v.flags = ZVS_VNET_F_NEEDS_CSUM;
    v.gso_type |= ZVS_VNET_GSO_UDP_TUNNEL4;
    v.csum_start = (uint16_t)(iv->csum_start + hdr_len);
    v.hdr_len = (uint16_t)(hdr_len + inner_seg_hdr);
    v.tnl_outer_th = (uint16_t)(hdr_len - ZVS_VXLAN_HLEN - ZVS_UDP_HLEN);
    v.tnl_inner_nh = (uint16_t)(hdr_len + ZVS_ETH_HLEN);
    return v;
}

bool zvs_vxlan_gso_matches(const struct zvs_vnet *v, const struct zvs_vxlan_decoded *d)
{
    uint8_t tnl = v->gso_type & ZVS_VNET_GSO_UDP_TUNNEL;
    uint8_t want = d->dst.family == 6 ? ZVS_VNET_GSO_UDP_TUNNEL6 : ZVS_VNET_GSO_UDP_TUNNEL4;
    uint8_t type = v->gso_type & (uint8_t)~(ZVS_VNET_GSO_ECN | ZVS_VNET_GSO_UDP_TUNNEL);
    uint32_t inner_nh = d->inner_off + ZVS_ETH_HLEN;
    uint32_t inner_l3 = type == ZVS_VNET_GSO_TCPV6 ? ZVS_IPV6_HLEN : ZVS_IPV4_HLEN;

    if (!tnl)
        return true;
    return tnl == want && (v->flags & ZVS_VNET_F_NEEDS_CSUM) &&
           v->tnl_outer_th == d->inner_off - ZVS_VXLAN_HLEN - ZVS_UDP_HLEN &&
           v->tnl_inner_nh == inner_nh && v->csum_start >= inner_nh + inner_l3 &&
           (uint32_t)v->csum_start + TCP_MIN_HLEN <= d->inner_off + d->inner_len;
}
