/* UDP tunnel GSO metadata for VXLAN; see vxlan_gso.h. */
#include "overlay/vxlan_gso.h"

#include <errno.h>

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

int zvs_vxlan_gso_check(const struct zvs_vnet *v, const struct zvs_vxlan_decoded *d,
                        const uint8_t *frame, uint32_t underlay_mtu, uint16_t *inner_hdr_len)
{
    uint8_t tnl = v->gso_type & ZVS_VNET_GSO_UDP_TUNNEL;
    uint8_t want = d->dst.family == 6 ? ZVS_VNET_GSO_UDP_TUNNEL6 : ZVS_VNET_GSO_UDP_TUNNEL4;
    uint8_t type = v->gso_type & (uint8_t)~(ZVS_VNET_GSO_ECN | ZVS_VNET_GSO_UDP_TUNNEL);
    uint32_t inner_nh = d->inner_off + ZVS_ETH_HLEN;
    uint32_t end = d->inner_off + d->inner_len;
    uint32_t l4 = v->csum_start;

    if (!tnl)
        return 0;
    /* What the sender's kernel would have had to accept (virtio_net_hdr_tnl_to_skb) and
     * what a guest's tap takes (an inner TCP super-frame, its checksum partial at TCP's
     * field, a real segment size), at the offsets the decoded headers put them. */
    if (tnl != want || !(v->flags & ZVS_VNET_F_NEEDS_CSUM) ||
        (type != ZVS_VNET_GSO_TCPV4 && type != ZVS_VNET_GSO_TCPV6) ||
        v->gso_size == 0 || v->gso_size == 0xFFFF || v->csum_offset != TCP_CSUM_OFF ||
        v->tnl_outer_th != d->inner_off - ZVS_VXLAN_HLEN - ZVS_UDP_HLEN ||
        v->tnl_inner_nh != inner_nh || l4 + TCP_MIN_HLEN > end)
        return -EINVAL;
    /* The inner headers themselves: the IP version the type says, TCP right after the IP
     * header (IPv4's options counted; IPv6 without extension headers). */
    const uint8_t *in = frame + d->inner_off;
    uint16_t etype = (uint16_t)(in[12] << 8 | in[13]);
    const uint8_t *ip = frame + inner_nh;
    if (type == ZVS_VNET_GSO_TCPV4) {
        if (etype != ZVS_ETHERTYPE_IPV4 || inner_nh + ZVS_IPV4_HLEN > end ||
            (ip[0] >> 4) != 4 || ip[9] != 6 || l4 != inner_nh + (uint32_t)(ip[0] & 15) * 4u ||
            (ip[0] & 15) < 5)
            return -EINVAL;
    } else if (etype != ZVS_ETHERTYPE_IPV6 || inner_nh + ZVS_IPV6_HLEN > end ||
               (ip[0] >> 4) != 6 || ip[6] != 6 || l4 != inner_nh + ZVS_IPV6_HLEN) {
        return -EINVAL;
    }
    uint32_t doff = (uint32_t)(frame[l4 + TCP_DOFF_BYTE] >> 4) * 4u;
    if (doff < TCP_MIN_HLEN || l4 + doff >= end)
        return -EINVAL;                 /* no payload to segment */
    /* Each segment the guest's side may cut must fit the VXLAN port's MTU, the rule the
     * encapsulation holds its own super-frames to (vtep.c's inner_of). */
    uint32_t seg_ip = l4 + doff - d->inner_off + v->gso_size + ZVS_VXLAN_HLEN + ZVS_UDP_HLEN +
                      (d->dst.family == 6 ? ZVS_IPV6_HLEN : ZVS_IPV4_HLEN);
    if (seg_ip > underlay_mtu)
        return -EMSGSIZE;
    *inner_hdr_len = (uint16_t)(l4 + doff - d->inner_off);
    return 0;
}
