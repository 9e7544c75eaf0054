/* Frames the overlay's unit tests build: inner Ethernet frames (IPv4/TCP or bare) and the
 * VTEP set-ups they share. Header only (static inline), like the fuzz targets' helpers:
 * each test is its own binary. */
#ifndef ZVS_TEST_VXLAN_FRAMES_H
#define ZVS_TEST_VXLAN_FRAMES_H

#include <stdint.h>
#include <string.h>

#include "dataplane/frame.h"
#include "overlay/vxlan_codec.h"

/* Locally administered unicast 02:00:00:00:xx:yy. */
static inline void vf_mac(uint8_t mac[6], uint16_t n)
{
    const uint8_t m[6] = { 0x02, 0, 0, 0, (uint8_t)(n >> 8), (uint8_t)n };
    memcpy(mac, m, 6);
}

/* An inner IPv4/TCP frame of len bytes (>= 54) from MAC src to MAC dst (NULL: broadcast),
 * TCP ports sport -> 80; returns len. */
static inline uint32_t vf_tcp(uint8_t *buf, uint32_t len, const uint8_t *dst,
                              const uint8_t *src, uint16_t sport)
{
    memset(buf, 0, len);
    if (dst)
        memcpy(buf, dst, 6);
    else
        memset(buf, 0xff, 6);
    memcpy(buf + 6, src, 6);
    zvs_put_be16(buf + 12, ZVS_ETHERTYPE_IPV4);
    buf[14] = 0x45;
    zvs_put_be16(buf + 16, (uint16_t)(len - 14));
    buf[22] = 64;
    buf[23] = 6;
    const uint8_t ips[8] = { 192, 168, 1, 1, 192, 168, 1, 2 };
    memcpy(buf + 26, ips, 8);
    zvs_put_be16(buf + 34, sport);
    zvs_put_be16(buf + 36, 80);
    buf[46] = 0x50;
    return len;
}

/* A descriptor for len contiguous bytes. */
static inline struct zvs_frame vf_frame(const uint8_t *data, uint32_t len, uint16_t vid)
{
    struct zvs_frame f = { .data = data, .len = len, .vid = vid };

    if (data[0] & 1)
        f.flags |= ZVS_FF_MCAST;
    if (zvs_be16(data + 12) == ZVS_ETHERTYPE_VLAN)
        f.flags |= ZVS_FF_TAGGED;
    return f;
}

/* An independent ones'-complement sum (no code shared with dataplane/vnet.c), and its
 * fold to 16 bits. */
static inline uint32_t vf_sum16(const uint8_t *p, uint32_t n, uint32_t acc)
{
    for (uint32_t i = 0; i + 1 < n; i += 2)
        acc += (uint32_t)(p[i] << 8 | p[i + 1]);
    if (n & 1)
        acc += (uint32_t)p[n - 1] << 8;
    return acc;
}

static inline uint16_t vf_fold(uint32_t acc)
{
    while (acc >> 16)
        acc = (acc & 0xFFFF) + (acc >> 16);
    return (uint16_t)acc;
}

/* Recompute an IPv4 header's checksum after a test edited it. */
static inline void vf_ip_csum(uint8_t *ip)
{
    zvs_put_be16(ip + 10, 0);
    zvs_put_be16(ip + 10, (uint16_t)~vf_fold(vf_sum16(ip, 20, 0)));
}

static inline struct zvs_ipaddr vf_ip4(uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
    struct zvs_ipaddr ip = { .family = 4, .a = { a, b, c, d } };
    return ip;
}

#endif
