/* virtio-net header codec shared by the tap driver and the AF_PACKET uplink. */
#include "backends/virtio_hdr.h"

#include <endian.h>
#include <string.h>

_Static_assert(sizeof(struct virtio_net_hdr) == 10, "virtio_net_hdr layout");

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
