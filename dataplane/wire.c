/* Frames on the wire: the segments and bytes of a GSO super-frame (rules in wire.h).
 *
 * Out of line on purpose: plain frames never get here (zvs_wire_of tests gso_type inline),
 * and a super-frame carries tens of segments, so one call and one division per super-frame
 * is noise next to the copy of its 64 KB.
 */
#include "dataplane/wire.h"

#define TCP_MIN_HLEN  20
#define UDP_HLEN      8

/* Bytes of headers every segment repeats, and the payload each carries (mss); 0 when the
 * metadata does not say. */
static uint32_t seg_headers(const struct zvs_frame *f, uint8_t type, uint32_t *mss)
{
    uint32_t avail = f->nfrags ? (uint32_t)f->frags[0].iov_len : f->len;
    uint32_t l4 = f->vnet.csum_start;

    *mss = f->vnet.gso_size;
    if (type == ZVS_VNET_GSO_UDP)
        *mss &= ~7u;                    /* IP fragments carry multiples of 8 bytes */
    if ((f->vnet.flags & ZVS_VNET_F_NEEDS_CSUM) && l4 > ZVS_ETH_HLEN) {
        switch (type) {
        case ZVS_VNET_GSO_TCPV4:
        case ZVS_VNET_GSO_TCPV6:
            if (l4 + 13 <= avail) {
                uint32_t doff = (uint32_t)(f->data[l4 + 12] >> 4) * 4u;
                if (doff >= TCP_MIN_HLEN)
                    return l4 + doff;
            }
            break;
        case ZVS_VNET_GSO_UDP_L4:
            return l4 + UDP_HLEN;
        case ZVS_VNET_GSO_UDP:
            return l4;                  /* fragments repeat the IP header, not UDP's */
        default:
            break;
        }
    }
    return f->vnet.hdr_len;
}

struct zvs_wire zvs_wire_gso(const struct zvs_frame *f, uint32_t out_len)
{
    struct zvs_wire w = { 1, out_len };
    /* A UDP tunnel super-frame is cut as its inner type, the outer headers repeated. */
    uint8_t type = f->vnet.gso_type & (uint8_t)~(ZVS_VNET_GSO_ECN | ZVS_VNET_GSO_UDP_TUNNEL);
    uint32_t mss;

    if (type != ZVS_VNET_GSO_TCPV4 && type != ZVS_VNET_GSO_TCPV6 &&
            type != ZVS_VNET_GSO_UDP_L4 && type != ZVS_VNET_GSO_UDP)
        return w;
    uint32_t hdr = seg_headers(f, type, &mss);
    if (hdr <= ZVS_ETH_HLEN || hdr >= f->len || mss == 0)
        return w;
    uint32_t segs = (f->len - hdr + mss - 1) / mss;
    /* out_len - f->len is 0 or +-4 (a tag edit); hdr > 14 keeps the sum positive. */
    w.frames = segs;
    w.bytes = out_len + (uint64_t)(segs - 1) * (hdr + out_len - f->len);
    return w;
}
