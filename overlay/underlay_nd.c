/* IPv6 Neighbor Discovery on the underlay; see underlay_nd.h. */
#include "overlay/underlay_nd.h"

#include <errno.h>
#include <string.h>

#include "dataplane/frame.h"
#include "dataplane/vnet.h"

#define ICMPV6        58
#define ND_NS         135
#define ND_NA         136
#define ND_HOP_LIMIT  255
#define OPT_SRC_LL    1
#define OPT_TGT_LL    2
#define NA_SOLICITED  0x40
#define NA_OVERRIDE   0x20
#define ND_LEN        24                /* ICMPv6 header + reserved/flags + target */

/* The ICMPv6 checksum of icmp (len bytes) from src to dst (RFC 8200 section 8.1). */
static uint16_t icmp6_sum(const uint8_t src[16], const uint8_t dst[16], const uint8_t *icmp,
                          uint32_t len)
{
    uint8_t tail[8] = { 0, 0, (uint8_t)(len >> 8), (uint8_t)len, 0, 0, 0, ICMPV6 };
    uint16_t sum = zvs_csum_add(0, src, 16);

    sum = zvs_csum_add(sum, dst, 16);
    sum = zvs_csum_add(sum, tail, sizeof tail);
    return zvs_csum_add(sum, icmp, len);
}

/* One NS or NA with one link-layer address option; ZVS_UND_FRAME_LEN bytes. */
static unsigned build(uint8_t *buf, const uint8_t dst_mac[6], const uint8_t src_mac[6],
                      const uint8_t src_ip[16], const uint8_t dst_ip[16], uint8_t type,
                      uint8_t flags, const uint8_t target[16], uint8_t opt)
{
    uint8_t *ip = buf + ZVS_ETH_HLEN, *icmp = ip + ZVS_IPV6_HLEN;

    memset(buf, 0, ZVS_UND_FRAME_LEN);
    memcpy(buf, dst_mac, 6);
    memcpy(buf + 6, src_mac, 6);
    zvs_put_be16(buf + 12, ZVS_ETHERTYPE_IPV6);
    ip[0] = 0x60;
    zvs_put_be16(ip + 4, ND_LEN + 8);
    ip[6] = ICMPV6;
    ip[7] = ND_HOP_LIMIT;
    memcpy(ip + 8, src_ip, 16);
    memcpy(ip + 24, dst_ip, 16);
    icmp[0] = type;
    icmp[4] = flags;
    memcpy(icmp + 8, target, 16);
    icmp[ND_LEN] = opt;
    icmp[ND_LEN + 1] = 1;               /* in units of 8 bytes */
    memcpy(icmp + ND_LEN + 2, src_mac, 6);
    zvs_put_be16(icmp + 2, (uint16_t)~icmp6_sum(src_ip, dst_ip, icmp, ND_LEN + 8));
    return ZVS_UND_FRAME_LEN;
}

unsigned zvs_und_solicit(uint8_t *buf, const uint8_t src_mac[6], const uint8_t src_ip[16],
                         const uint8_t target[16])
{
    uint8_t dst_ip[16] = { 0xff, 0x02, [11] = 0x01, [12] = 0xff };
    uint8_t dst_mac[6] = { 0x33, 0x33, 0xff };

    memcpy(dst_ip + 13, target + 13, 3);        /* solicited-node (RFC 4291 2.7.1) */
    memcpy(dst_mac + 3, target + 13, 3);        /* its MAC (RFC 2464 section 7) */
    return build(buf, dst_mac, src_mac, src_ip, dst_ip, ND_NS, 0, target, OPT_SRC_LL);
}

/* The MAC of the link-layer address option `want` among the options at o (n bytes), or
 * NULL; -1 through *bad when an option's length is 0 (section 7.1.1 / 7.1.2). */
static const uint8_t *ll_option(const uint8_t *o, uint32_t n, uint8_t want, int *bad)
{
    const uint8_t *mac = NULL;

    while (n >= 2) {
        uint32_t l = (uint32_t)o[1] * 8;

        if (l == 0 || l > n) {
            *bad = -1;
            return NULL;
        }
        if (o[0] == want && l >= 8)
            mac = o + 2;
        o += l;
        n -= l;
    }
    return mac;
}

int zvs_und_input(struct zvs_uarp *u, const uint8_t *frame, uint32_t len,
                  const uint8_t local_ip[16], const uint8_t local_mac[6], uint64_t now,
                  uint8_t *reply)
{
    static const uint8_t unspecified[16];
    uint32_t off = len >= 16 && zvs_be16(frame + 12) == ZVS_ETHERTYPE_VLAN ? 16 : 12;
    const uint8_t *ip = frame + off + 2, *icmp = ip + ZVS_IPV6_HLEN, *mac;
    uint32_t plen;
    struct zvs_ipaddr who = { .family = 6 };
    int bad = 0;

    if (len < off + 2 + ZVS_IPV6_HLEN + ND_LEN || zvs_be16(frame + off) != ZVS_ETHERTYPE_IPV6)
        goto ignored;
    plen = zvs_be16(ip + 4);
    if ((ip[0] >> 4) != 6 || ip[6] != ICMPV6 || ip[7] != ND_HOP_LIMIT || plen < ND_LEN ||
        off + 2 + ZVS_IPV6_HLEN + plen > len || (icmp[0] != ND_NS && icmp[0] != ND_NA) ||
        icmp[1] != 0 || icmp[8] == 0xff || icmp6_sum(ip + 8, ip + 24, icmp, plen) != 0xFFFF)
        goto ignored;
    mac = ll_option(icmp + ND_LEN, plen - ND_LEN, icmp[0] == ND_NS ? OPT_SRC_LL : OPT_TGT_LL,
                    &bad);
    if (bad)
        goto ignored;
    if (icmp[0] == ND_NA) {             /* the target's address and MAC */
        memcpy(who.a, icmp + 8, 16);
        zvs_uarp_learn(u, &who, mac ? mac : frame + 6, now);
        return 0;
    }
    if (memcmp(ip + 8, unspecified, 16) == 0)
        return 0;                       /* Duplicate Address Detection: not ours to answer */
    memcpy(who.a, ip + 8, 16);
    if (mac)
        zvs_uarp_learn(u, &who, mac, now);
    if (memcmp(icmp + 8, local_ip, 16) != 0)
        return 0;
    u->requests_answered++;
    return (int)build(reply, mac ? mac : frame + 6, local_mac, local_ip, ip + 8, ND_NA,
                      NA_SOLICITED | NA_OVERRIDE, local_ip, OPT_TGT_LL);
ignored:
    u->ignored++;
    return -EINVAL;
}
