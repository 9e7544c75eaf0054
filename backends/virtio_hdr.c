/* virtio-net header codec shared by the tap driver and the AF_PACKET uplink. */
#include "backends/virtio_hdr.h"

#include <endian.h>
#include <string.h>

_Static_assert(sizeof(struct virtio_net_hdr) == 10, "virtio_net_hdr layout");
_Static_assert(sizeof(struct zvs_virtio_hdr_tnl) == 24, "virtio_net_hdr_v1_hash_tunnel layout");

static uint16_t from16(uint16_t v, bool le) { return le ? le16toh(v) : v; }
static uint16_t to16(uint16_t v, bool le) { return le ? htole16(v) : v; }

static bool gso_from_wire(uint8_t w, uint8_t *out)
{
    uint8_t ecn = (w & VIRTIO_NET_HDR_GSO_ECN) ? ZVS_VNET_GSO_ECN : 0;

    switch (w & (uint8_t)~VIRTIO_NET_HDR_GSO_ECN) {
    case VIRTIO_NET_HDR_GSO_NONE:   *out = ZVS_VNET_GSO_NONE;          return ecn == 0;
    case VIRTIO_NET_HDR_GSO_TCPV4:  *out = ZVS_VNET_GSO_TCPV4 | ecn;   return true;
    case VIRTIO_NET_HDR_GSO_UDP:    *out = ZVS_VNET_GSO_UDP | ecn;     return true;
    case VIRTIO_NET_HDR_GSO_TCPV6:  *out = ZVS_VNET_GSO_TCPV6 | ecn;   return true;
#ifdef VIRTIO_NET_HDR_GSO_UDP_L4
    case VIRTIO_NET_HDR_GSO_UDP_L4: *out = ZVS_VNET_GSO_UDP_L4 | ecn;  return true;
#endif
    default:                        return false;
    }
}

static bool gso_to_wire(uint8_t z, uint8_t *out)
{
    uint8_t ecn = (z & ZVS_VNET_GSO_ECN) ? VIRTIO_NET_HDR_GSO_ECN : 0;

    switch (z & (uint8_t)~ZVS_VNET_GSO_ECN) {
    case ZVS_VNET_GSO_NONE:   *out = VIRTIO_NET_HDR_GSO_NONE;          return ecn == 0;
    case ZVS_VNET_GSO_TCPV4:  *out = VIRTIO_NET_HDR_GSO_TCPV4 | ecn;   return true;
    case ZVS_VNET_GSO_UDP:    *out = VIRTIO_NET_HDR_GSO_UDP | ecn;     return true;
    case ZVS_VNET_GSO_TCPV6:  *out = VIRTIO_NET_HDR_GSO_TCPV6 | ecn;   return true;
#ifdef VIRTIO_NET_HDR_GSO_UDP_L4
    case ZVS_VNET_GSO_UDP_L4: *out = VIRTIO_NET_HDR_GSO_UDP_L4 | ecn;  return true;
#endif
    default:                  return false;
    }
}

bool zvs_virtio_hdr_decode(const struct virtio_net_hdr *vh, bool le, uint32_t len,
                           struct zvs_vnet *v)
{
    memset(v, 0, sizeof(*v));
    if ((vh->flags | vh->gso_type) == 0)
        return true;                    /* no metadata (an LCS frame): nothing else read */
    if (vh->flags & ~(VIRTIO_NET_HDR_F_NEEDS_CSUM | VIRTIO_NET_HDR_F_DATA_VALID))
        return false;
    if (!gso_from_wire(vh->gso_type, &v->gso_type))
        return false;
    if (vh->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM)
        v->flags |= ZVS_VNET_F_NEEDS_CSUM;
    if (vh->flags & VIRTIO_NET_HDR_F_DATA_VALID)
        v->flags |= ZVS_VNET_F_DATA_VALID;
    if (v->gso_type != ZVS_VNET_GSO_NONE) {
        v->hdr_len = from16(vh->hdr_len, le);
        v->gso_size = from16(vh->gso_size, le);
        if (v->gso_size == 0)
            return false;
    }
    if (v->flags & ZVS_VNET_F_NEEDS_CSUM) {
        v->csum_start = from16(vh->csum_start, le);
        v->csum_offset = from16(vh->csum_offset, le);
        if ((uint32_t)v->csum_start + v->csum_offset + 2u > len)
            return false;
    }
    return true;
}

bool zvs_virtio_hdr_encode(const struct zvs_vnet *v, bool le, struct virtio_net_hdr *vh)
{
    uint8_t gso;

    memset(vh, 0, sizeof(*vh));
    if (!gso_to_wire(v->gso_type, &gso))
        return false;
    vh->gso_type = gso;
    if (gso != VIRTIO_NET_HDR_GSO_NONE) {
        vh->gso_size = to16(v->gso_size, le);
        vh->hdr_len = to16(v->hdr_len, le);
    }
    if (v->flags & ZVS_VNET_F_NEEDS_CSUM) {
        vh->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
        vh->csum_start = to16(v->csum_start, le);
        vh->csum_offset = to16(v->csum_offset, le);
    } else if (v->flags & ZVS_VNET_F_DATA_VALID) {
        vh->flags = VIRTIO_NET_HDR_F_DATA_VALID;
    }
    return true;
}

bool zvs_virtio_hdr_tnl_decode(const struct zvs_virtio_hdr_tnl *h, uint32_t len,
                               struct zvs_vnet *v)
{
    struct virtio_net_hdr base;
    uint8_t tnl = h->gso_type & (ZVS_VIRTIO_GSO_UDP_TUNNEL_IPV4 | ZVS_VIRTIO_GSO_UDP_TUNNEL_IPV6);

    /* The first 10 bytes are the plain header, the tunnel bits aside. */
    memcpy(&base, h, sizeof base);
    base.gso_type &= (uint8_t)~tnl;
    base.flags &= (uint8_t)~ZVS_VIRTIO_F_UDP_TUNNEL_CSUM;
    if (!zvs_virtio_hdr_decode(&base, true, len, v))
        return false;
    if (!tnl)
        return true;
    uint8_t inner = v->gso_type & (uint8_t)~ZVS_VNET_GSO_ECN;
    v->tnl_outer_th = le16toh(h->outer_th_offset);
    v->tnl_inner_nh = le16toh(h->inner_nh_offset);
    if (tnl == (ZVS_VIRTIO_GSO_UDP_TUNNEL_IPV4 | ZVS_VIRTIO_GSO_UDP_TUNNEL_IPV6) ||
        (inner != ZVS_VNET_GSO_TCPV4 && inner != ZVS_VNET_GSO_TCPV6) ||
        !(v->flags & ZVS_VNET_F_NEEDS_CSUM) || v->tnl_outer_th < ZVS_ETH_HLEN ||
        v->tnl_outer_th + 8u > v->tnl_inner_nh || v->tnl_inner_nh >= v->csum_start)
        return false;
    v->gso_type |= tnl == ZVS_VIRTIO_GSO_UDP_TUNNEL_IPV4 ? ZVS_VNET_GSO_UDP_TUNNEL4
                                                         : ZVS_VNET_GSO_UDP_TUNNEL6;
    return true;
}

bool zvs_virtio_hdr_tnl_encode(const struct zvs_vnet *v, struct zvs_virtio_hdr_tnl *h)
{
    struct zvs_vnet plain = *v;
    struct virtio_net_hdr base;
    uint8_t tnl = v->gso_type & ZVS_VNET_GSO_UDP_TUNNEL;

    memset(h, 0, sizeof *h);
    plain.gso_type &= (uint8_t)~ZVS_VNET_GSO_UDP_TUNNEL;
    if (tnl == ZVS_VNET_GSO_UDP_TUNNEL || !zvs_virtio_hdr_encode(&plain, true, &base))
        return false;
    memcpy(h, &base, sizeof base);
    if (tnl) {
        h->gso_type |= tnl == ZVS_VNET_GSO_UDP_TUNNEL4 ? ZVS_VIRTIO_GSO_UDP_TUNNEL_IPV4
                                                       : ZVS_VIRTIO_GSO_UDP_TUNNEL_IPV6;
        h->outer_th_offset = htole16(v->tnl_outer_th);
        h->inner_nh_offset = htole16(v->tnl_inner_nh);
    }
    return true;
}

uint32_t zvs_packet_tag_restore(uint8_t *start, uint32_t len, uint16_t tpid, uint16_t tci,
                                struct zvs_vnet *v)
{
    memmove(start, start + ZVS_VLAN_HLEN, 2 * ZVS_ETH_ALEN);
    zvs_put_be16(start + 12, tpid);
    zvs_put_be16(start + 14, tci);
    if (v->flags & ZVS_VNET_F_NEEDS_CSUM)
        v->csum_start = (uint16_t)(v->csum_start + ZVS_VLAN_HLEN);
    if (v->gso_type != ZVS_VNET_GSO_NONE && v->hdr_len)
        v->hdr_len = (uint16_t)(v->hdr_len + ZVS_VLAN_HLEN);
    return len + ZVS_VLAN_HLEN;
}
