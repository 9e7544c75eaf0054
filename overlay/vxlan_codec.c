/* The VXLAN codec (RFC 7348): outer headers written and parsed; see vxlan_codec.h. */
#include "overlay/vxlan_codec.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "dataplane/vnet.h"

#define IPV4_DF        0x4000
#define IPV4_MF        0x2000
#define IPV4_OFFMASK   0x1FFF
#define IP_MAX_LEN     65535u

bool zvs_ipaddr_equal(const struct zvs_ipaddr *x, const struct zvs_ipaddr *y)
{
    if (x->family != y->family)
        return false;
    return memcmp(x->a, y->a, x->family == 4 ? 4 : 16) == 0;
}

int zvs_ipaddr_parse(const char *s, struct zvs_ipaddr *out)
{
    memset(out, 0, sizeof *out);
    if (inet_pton(AF_INET, s, out->a) == 1) {
        out->family = 4;
        return 0;
    }
    if (inet_pton(AF_INET6, s, out->a) == 1) {
        out->family = 6;
        return 0;
    }
    return -EINVAL;
}

const char *zvs_ipaddr_str(const struct zvs_ipaddr *a, char *buf, unsigned size)
{
    if (a->family == 4 || a->family == 6) {
        if (inet_ntop(a->family == 4 ? AF_INET : AF_INET6, a->a, buf, size))
            return buf;
    }
    snprintf(buf, size, "-");
    return buf;
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

unsigned zvs_vxlan_hdr_len(const struct zvs_vxlan_outer *o)
{
    return (o->dst.family == 6 ? ZVS_VXLAN_OVERHEAD_V6 : ZVS_VXLAN_OVERHEAD_V4) +
           (o->underlay_vid ? ZVS_VLAN_HLEN : 0);
}

/* The outer Ethernet header (and the underlay's tag); returns its length. */
static unsigned put_eth(uint8_t *b, const struct zvs_vxlan_outer *o, uint16_t type)
{
    unsigned n = 12;

    memcpy(b, o->dst_mac, 6);
    memcpy(b + 6, o->src_mac, 6);
    if (o->underlay_vid) {
        zvs_put_be16(b + n, ZVS_ETHERTYPE_VLAN);
        zvs_put_be16(b + n + 2, o->underlay_vid & 0x0FFF);
        n += 4;
    }
    zvs_put_be16(b + n, type);
    return n + 2;
}

static void put_vxlan(uint8_t *b, uint32_t vni)
{
    memset(b, 0, ZVS_VXLAN_HLEN);
    b[0] = ZVS_VXLAN_FLAG_I;
    b[4] = (uint8_t)(vni >> 16);
    b[5] = (uint8_t)(vni >> 8);
    b[6] = (uint8_t)vni;
}

unsigned zvs_vxlan_encap(uint8_t *buf, const struct zvs_vxlan_outer *o, uint32_t vni,
                         uint16_t sport, uint32_t inner_len)
{
    uint32_t udp_len = ZVS_UDP_HLEN + ZVS_VXLAN_HLEN + inner_len;
    uint8_t ttl = o->ttl ? o->ttl : 64;
    uint8_t *ip, *udp;

    if (vni > ZVS_VXLAN_VNI_MAX || o->src.family != o->dst.family)
        return 0;
    if (o->dst.family == 6) {
        if (udp_len > IP_MAX_LEN)
            return 0;
        ip = buf + put_eth(buf, o, ZVS_ETHERTYPE_IPV6);
        ip[0] = (uint8_t)(0x60 | o->tos >> 4);
        ip[1] = (uint8_t)(o->tos << 4);
        ip[2] = ip[3] = 0;                      /* flow label: 0 */
        zvs_put_be16(ip + 4, (uint16_t)udp_len);
        ip[6] = ZVS_IPPROTO_UDP_NUM;
        ip[7] = ttl;
        memcpy(ip + 8, o->src.a, 16);
        memcpy(ip + 24, o->dst.a, 16);
        udp = ip + ZVS_IPV6_HLEN;
    } else if (o->dst.family == 4) {
        if (udp_len + ZVS_IPV4_HLEN > IP_MAX_LEN)
            return 0;
        ip = buf + put_eth(buf, o, ZVS_ETHERTYPE_IPV4);
        ip[0] = 0x45;
        ip[1] = o->tos;
        zvs_put_be16(ip + 2, (uint16_t)(udp_len + ZVS_IPV4_HLEN));
        zvs_put_be16(ip + 4, 0);                /* ID: DF set, never fragmented */
        zvs_put_be16(ip + 6, IPV4_DF);
        ip[8] = ttl;
        ip[9] = ZVS_IPPROTO_UDP_NUM;
        zvs_put_be16(ip + 10, 0);
        memcpy(ip + 12, o->src.a, 4);
        memcpy(ip + 16, o->dst.a, 4);
        zvs_put_be16(ip + 10, zvs_inet_csum(ip, ZVS_IPV4_HLEN));
        udp = ip + ZVS_IPV4_HLEN;
    } else {
        return 0;
    }
    zvs_put_be16(udp, sport);
    zvs_put_be16(udp + 2, o->dst_port ? o->dst_port : ZVS_VXLAN_UDP_PORT);
    zvs_put_be16(udp + 4, (uint16_t)udp_len);
    zvs_put_be16(udp + 6, 0);
    if (o->dst.family == 6) {
        /* The pseudo-header seed: the one completing the sum adds UDP header and payload. */
        uint8_t tail[4] = { 0, 0, 0, ZVS_IPPROTO_UDP_NUM };
        uint16_t sum = zvs_csum_add(0, ip + 8, 32);

        sum = zvs_csum_add(sum, tail, 4);
        sum = zvs_csum_add(sum, udp + 4, 2);
        zvs_put_be16(udp + 6, sum);
    }
    put_vxlan(udp + ZVS_UDP_HLEN, vni);
    return (unsigned)(udp + ZVS_UDP_HLEN + ZVS_VXLAN_HLEN - buf);
}

struct zvs_vnet zvs_vxlan_outer_vnet(const struct zvs_vxlan_outer *o, unsigned hdr_len)
{
    struct zvs_vnet v = { 0 };

    if (o->dst.family == 6) {
        v.flags = ZVS_VNET_F_NEEDS_CSUM;
        v.csum_start = (uint16_t)(hdr_len - ZVS_VXLAN_HLEN - ZVS_UDP_HLEN);
        v.csum_offset = 6;
    }
    return v;
}

/* FNV-1a over the fields that name a flow: cheap, and every bit of them reaches the port. */
static uint32_t fnv(uint32_t h, const uint8_t *p, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 16777619u;
    return h;
}

uint16_t zvs_vxlan_sport(const uint8_t *inner, uint32_t len)
{
    uint32_t h = 2166136261u, l3 = ZVS_ETH_HLEN, l4 = 0;
    uint16_t type;
    uint8_t proto = 0;

    if (len < ZVS_ETH_HLEN)
        return ZVS_VXLAN_SPORT_MIN;
    h = fnv(h, inner, 14);
    type = zvs_be16(inner + 12);
    if (type == ZVS_ETHERTYPE_VLAN && len >= 18) {
        type = zvs_be16(inner + 16);
        l3 = 18;
    }
    if (type == ZVS_ETHERTYPE_IPV4 && len >= l3 + ZVS_IPV4_HLEN &&
        (inner[l3] >> 4) == 4) {
        h = fnv(h, inner + l3 + 12, 8);
        proto = inner[l3 + 9];
        /* Only the first fragment carries ports; take none so fragments stay together. */
        if ((zvs_be16(inner + l3 + 6) & (IPV4_MF | IPV4_OFFMASK)) == 0)
            l4 = l3 + (inner[l3] & 0x0Fu) * 4;
    } else if (type == ZVS_ETHERTYPE_IPV6 && len >= l3 + ZVS_IPV6_HLEN) {
        h = fnv(h, inner + l3 + 8, 32);
        proto = inner[l3 + 6];
        l4 = l3 + ZVS_IPV6_HLEN;
    }
    if (l4 && (proto == 6 || proto == 17 || proto == 132) && len >= l4 + 4) {
        h = fnv(h, &proto, 1);
        h = fnv(h, inner + l4, 4);
    }
    h ^= h >> 16;
    return (uint16_t)(ZVS_VXLAN_SPORT_MIN + (h % (65536u - ZVS_VXLAN_SPORT_MIN)));
}

enum zvs_vxlan_verdict zvs_vxlan_decode(const uint8_t *p, uint32_t len, uint16_t dst_port,
                                        uint32_t inner_max, struct zvs_vxlan_decoded *out)
{
    uint32_t l3 = ZVS_ETH_HLEN, udp, ip_end;
    uint16_t type;

    memset(out, 0, sizeof *out);
    if (len < ZVS_ETH_HLEN)
        return ZVS_VXLAN_TRUNCATED;
    type = zvs_be16(p + 12);
    if (type == ZVS_ETHERTYPE_VLAN) {
        if (len < ZVS_ETH_HLEN + ZVS_VLAN_HLEN)
            return ZVS_VXLAN_TRUNCATED;
        type = zvs_be16(p + 16);
        l3 += ZVS_VLAN_HLEN;
    }
    if (type == ZVS_ETHERTYPE_IPV4) {
        uint32_t ihl, tot;

        if (len < l3 + ZVS_IPV4_HLEN)
            return len >= l3 + 10 && p[l3 + 9] != ZVS_IPPROTO_UDP_NUM ? ZVS_VXLAN_NOT_VXLAN
                                                                     : ZVS_VXLAN_TRUNCATED;
        if (p[l3 + 9] != ZVS_IPPROTO_UDP_NUM)
            return ZVS_VXLAN_NOT_VXLAN;
        ihl = (p[l3] & 0x0Fu) * 4;
        tot = zvs_be16(p + l3 + 2);
        if ((p[l3] >> 4) != 4 || ihl < ZVS_IPV4_HLEN || tot < ihl)
            return ZVS_VXLAN_BAD_OUTER;
        if (tot > len - l3)
            return ZVS_VXLAN_TRUNCATED;
        /* A packet socket sees frames before IP does: nobody checked the header sum. */
        if (zvs_inet_csum(p + l3, ihl) != 0)
            return ZVS_VXLAN_BAD_OUTER;
        if (zvs_be16(p + l3 + 6) & (IPV4_MF | IPV4_OFFMASK))
            return ZVS_VXLAN_BAD_OUTER;         /* the kernel reassembles; we do not */
        out->src.family = out->dst.family = 4;
        memcpy(out->src.a, p + l3 + 12, 4);
        memcpy(out->dst.a, p + l3 + 16, 4);
        udp = l3 + ihl;
        ip_end = l3 + tot;
    } else if (type == ZVS_ETHERTYPE_IPV6) {
        if (len < l3 + ZVS_IPV6_HLEN)
            return ZVS_VXLAN_TRUNCATED;
        if (p[l3 + 6] != ZVS_IPPROTO_UDP_NUM)
            return ZVS_VXLAN_NOT_VXLAN;
        if ((p[l3] >> 4) != 6)
            return ZVS_VXLAN_BAD_OUTER;
        ip_end = l3 + ZVS_IPV6_HLEN + zvs_be16(p + l3 + 4);
        if (ip_end > len)
            return ZVS_VXLAN_TRUNCATED;
        out->src.family = out->dst.family = 6;
        memcpy(out->src.a, p + l3 + 8, 16);
        memcpy(out->dst.a, p + l3 + 24, 16);
        udp = l3 + ZVS_IPV6_HLEN;
    } else {
        return ZVS_VXLAN_NOT_VXLAN;
    }
    if (ip_end < udp + ZVS_UDP_HLEN)
        return ip_end < udp + 4 ? ZVS_VXLAN_TRUNCATED
               : zvs_be16(p + udp + 2) != dst_port ? ZVS_VXLAN_NOT_VXLAN : ZVS_VXLAN_TRUNCATED;
    if (zvs_be16(p + udp + 2) != dst_port)
        return ZVS_VXLAN_NOT_VXLAN;
    {
        uint32_t ulen = zvs_be16(p + udp + 4);

        if (ulen < ZVS_UDP_HLEN || udp + ulen > ip_end)
            return ZVS_VXLAN_BAD_OUTER;
        ip_end = udp + ulen;                    /* what follows the datagram is padding */
    }
    out->sport = zvs_be16(p + udp);
    if (ip_end < udp + ZVS_UDP_HLEN + ZVS_VXLAN_HLEN)
        return ZVS_VXLAN_TRUNCATED;
    {
        const uint8_t *vx = p + udp + ZVS_UDP_HLEN;

        if (!(vx[0] & ZVS_VXLAN_FLAG_I))
            return ZVS_VXLAN_I_FLAG_CLEAR;
        /* RFC 7348 section 5: reserved fields are sent as 0 and ignored on receipt. */
        out->reserved_set = (vx[0] & ~ZVS_VXLAN_FLAG_I) || vx[1] || vx[2] || vx[3] || vx[7];
        out->vni = be32(vx + 4) >> 8;
    }
    out->inner_off = udp + ZVS_UDP_HLEN + ZVS_VXLAN_HLEN;
    out->inner_len = ip_end - out->inner_off;
    if (out->inner_len < ZVS_ETH_MIN_LEN)
        return ZVS_VXLAN_INNER_RUNT;
    if (out->inner_len > inner_max)
        return ZVS_VXLAN_INNER_OVERSIZE;
    return ZVS_VXLAN_OK;
}

const char *zvs_vxlan_verdict_name(enum zvs_vxlan_verdict v)
{
    switch (v) {
    case ZVS_VXLAN_OK:             return "ok";
    case ZVS_VXLAN_NOT_VXLAN:      return "not-vxlan";
    case ZVS_VXLAN_TRUNCATED:      return "vxlan-truncated";
    case ZVS_VXLAN_BAD_OUTER:      return "vxlan-bad-outer";
    case ZVS_VXLAN_I_FLAG_CLEAR:   return "vxlan-i-flag-clear";
    case ZVS_VXLAN_INNER_RUNT:     return "vxlan-inner-runt";
    case ZVS_VXLAN_INNER_OVERSIZE: return "vxlan-inner-oversize";
    }
    return "?";
}
