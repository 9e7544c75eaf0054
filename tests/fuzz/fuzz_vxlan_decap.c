/* libFuzzer target for VXLAN decapsulation (overlay/vxlan_codec.c, overlay/vtep.c).
 *
 * Input: one underlay frame, as an uplink would deliver it, into a VTEP at 10.0.0.1 with
 * one remote, 10.0.0.2 (its MAC static), VNI 5000 on VLAN 0 and VNI 10010 on VLAN 10, a remote-MAC table of 8 entries (so floods of sources meet the limit) and
 * an inner limit of 1514 bytes; then the same frame into its IPv6 twin (2001:db8::1, the
 * remote 2001:db8::2), whose non-VXLAN frames go to Neighbor Discovery. The frame is an
 * exactly sized heap copy, so ASan sees any read past its end. Beyond memory safety it
 * checks what the API promises:
 *   - zvs_vxlan_decode: OK only with the inner frame inside the input, at least a MAC
 *     header and at most the limit long, and the VNI within 24 bits;
 *   - zvs_vtep_decap_burst: at most one inner frame, pointing where the codec said, on
 *     the VLAN its VNI maps to, never tagged; every frame is delivered, counted under
 *     exactly one drop reason, or is ARP (IPv4) or ICMPv6 (IPv6), which count nothing
 *     when well formed; an answer it writes (an ARP reply, a Neighbor Advertisement) fits
 *     its frame, and an advertisement's ICMPv6 checksum verifies;
 *   - a delivered frame, encapsulated back to its sender, decodes to the same bytes;
 *   - then the same frame into the IPv4 VTEP once more as a UDP tunnel super-frame from a
 *     tap underlay: the tunnel metadata a kernel would give it (from where the codec finds
 *     the headers, inner limit 64 KiB), its offsets, family and inner checksum moved or
 *     not by the input's last byte: delivered only when the offsets name the headers
 *     (zvs_vxlan_gso_check), never with a tunnel type left on the inner frame, else
 *     counted under one reason as before.
 *
 * Build: make fuzzers; run: build/fuzz/fuzz_vxlan_decap tests/fuzz/corpus/vxlan_decap
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dataplane/vnet.h"
#include "overlay/vtep.h"
#include "overlay/vxlan_gso.h"
#include "tests/fuzz/fuzz_common.h"

#define INNER_MAX 1514u
#define GSO_INNER_MAX 65535u            /* the VTEP's limit for a super-frame's inner one */

static struct zvs_vtep *vtep, *vtep6;

static struct zvs_vtep *setup(int family)
{
    struct zvs_vtep_config c = { .local = { .family = 4, .a = { 10, 0, 0, 1 } },
                                 .local_mac = { 0x02, 0xaa, 0, 0, 0, 1 },
                                 .fdb_capacity = 8, .inner_max = INNER_MAX };
    struct zvs_ipaddr r = { .family = 4, .a = { 10, 0, 0, 2 } };
    const uint8_t mac[6] = { 0x02, 0xaa, 0, 0, 0, 2 };

    if (family == 6) {
        c.local = (struct zvs_ipaddr){ .family = 6, .a = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 } };
        r = (struct zvs_ipaddr){ .family = 6, .a = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 } };
    }
    struct zvs_vtep *v = zvs_vtep_create(&c);

    CHECK(v != NULL);
    CHECK(zvs_vtep_map_vni(v, 0, 5000) == 0);
    CHECK(zvs_vtep_map_vni(v, 10, 10010) == 0);
    CHECK(zvs_vtep_add_remote(v, family == 6 ? "2001:db8::2" : "10.0.0.2", &r) == 0);
    CHECK(zvs_uarp_set_static(zvs_vtep_uarp(v), &r, mac) == 0);
    return v;
}

static uint64_t total_drops(const struct zvs_vtep_stats *s)
{
    uint64_t n = 0;

    for (int r = 0; r < ZVS_VTEP_REASONS; r++)
        if (r != ZVS_VTEP_RESERVED_BITS)
            n += s->reason[r];
    return n;
}

/* An ICMPv6 answer's checksum (an untagged IPv6 frame) sums to 0xFFFF. */
static bool icmp6_ok(const uint8_t *f, uint32_t len)
{
    uint32_t plen = (uint32_t)(f[18] << 8 | f[19]);
    uint8_t tail[8] = { 0, 0, (uint8_t)(plen >> 8), (uint8_t)plen, 0, 0, 0, 58 };

    if (len < 54 + plen)
        return false;
    uint16_t s = zvs_csum_add(zvs_csum_add(0, f + 22, 32), tail, 8);
    return zvs_csum_add(s, f + 54, plen) == 0xFFFF;
}

/* One frame into VTEP v (family 4 or 6), with every promise checked. */
static void one(struct zvs_vtep *v, int family, const uint8_t *data, size_t size,
                uint64_t now, const struct zvs_vnet *meta)
{
    bool gso = meta->gso_type != ZVS_VNET_GSO_NONE;
    uint32_t limit = gso ? GSO_INNER_MAX : INNER_MAX;
    uint8_t *buf;
    struct zvs_vxlan_decoded d;
    enum zvs_vxlan_verdict vd;

    buf = malloc(size ? size : 1);
    CHECK(buf != NULL);
    memcpy(buf, data, size);

    vd = zvs_vxlan_decode(buf, (uint32_t)size, ZVS_VXLAN_UDP_PORT, limit, &d);
    if (vd == ZVS_VXLAN_OK) {
        CHECK(d.inner_off + d.inner_len <= size);
        CHECK(d.inner_len >= ZVS_ETH_MIN_LEN && d.inner_len <= limit);
        CHECK(d.vni <= ZVS_VXLAN_VNI_MAX);
    }
    TRACE("IPv%d verdict %s\n", family, zvs_vxlan_verdict_name(vd));

    struct zvs_vtep_stats before, after;
    struct zvs_frame in = { .data = buf, .len = (uint32_t)size, .cookie = 9, .vnet = *meta },
                     out;
    struct zvs_vtep_ctl ctl = { .n = 0 };
    uint16_t idx = 0xFFFF;

    zvs_vtep_stats(v, &before);
    int k = zvs_vtep_decap_burst(v, &in, 1, now, &out, &idx, &ctl);
    zvs_vtep_stats(v, &after);
    CHECK(k == 0 || k == 1);
    CHECK(ctl.n <= 1);
    if (ctl.n == 1) {
        CHECK(ctl.len[0] <= ZVS_VTEP_CTL_FRAME_MAX);
        CHECK(family == 4 || icmp6_ok(ctl.frame[0], ctl.len[0]));
    }
    uint64_t drops = total_drops(&after) - total_drops(&before);
    uint16_t type = size >= 14 ? (uint16_t)(data[12] << 8 | data[13]) : 0;
    if (type == 0x8100 && size >= 18)
        type = (uint16_t)(data[16] << 8 | data[17]);
    bool neighbour = type == (family == 4 ? 0x0806 : 0x86DD);
    if (k == 1) {
        CHECK(vd == ZVS_VXLAN_OK);
        CHECK(drops == 0);
        CHECK(idx == 0 && out.cookie == 9);
        CHECK(out.data == buf + d.inner_off && out.len == d.inner_len);
        CHECK(out.vid == (d.vni == 5000 ? 0 : 10));
        CHECK(!(out.flags & ZVS_FF_TAGGED));
        CHECK(after.decapsulated == before.decapsulated + 1);
        CHECK(!(out.vnet.gso_type & ZVS_VNET_GSO_UDP_TUNNEL));
        uint16_t ihl = 0;
        CHECK(zvs_vxlan_gso_check(meta, &d, buf, 9000, &ihl) == 0);
        CHECK(!gso || out.vnet.hdr_len == ihl);
        CHECK(!gso || (out.vnet.gso_type == (meta->gso_type & (uint8_t)~ZVS_VNET_GSO_UDP_TUNNEL) &&
                       out.vnet.csum_start == meta->csum_start - d.inner_off));

        /* Back to where it came from: the same inner bytes. */
        struct zvs_vtep_tx tx[2];
        out.flags |= (uint8_t)((out.data[0] & 1) ? ZVS_FF_MCAST : 0);
        int n = zvs_vtep_encap_burst(v, &out, 1, now, tx, 2, NULL);
        if (n == 1) {
            uint8_t *w = malloc(tx[0].len);
            struct zvs_vxlan_decoded d2;

            CHECK(w != NULL);
            memcpy(w, tx[0].hdr, tx[0].hdr_len);
            memcpy(w + tx[0].hdr_len, out.data, out.len);
            CHECK(zvs_vxlan_decode(w, tx[0].len, ZVS_VXLAN_UDP_PORT, INNER_MAX, &d2) ==
                  ZVS_VXLAN_OK);
            CHECK(d2.vni == d.vni && d2.inner_len == out.len);
            CHECK(memcmp(w + d2.inner_off, out.data, out.len) == 0);
            free(w);
        }
    } else {
        CHECK(drops == 1 || (drops == 0 && neighbour));
    }
    if (now % 64 == 0)
        zvs_vtep_tick(v, now * 1000000000u);
    free(buf);
}

/* The metadata a tap gives the frame as a UDP tunnel super-frame, where the codec finds
 * its headers; the last byte's bits move the outer UDP offset, the inner IP offset, the
 * inner checksum, or claim an IPv6 outer. False when the codec finds no VXLAN frame. */
static bool tunnel_meta(const uint8_t *data, size_t size, struct zvs_vnet *m)
{
    struct zvs_vxlan_decoded d;
    uint8_t k = size ? data[size - 1] : 0;

    if (zvs_vxlan_decode(data, (uint32_t)size, ZVS_VXLAN_UDP_PORT, GSO_INNER_MAX, &d) !=
        ZVS_VXLAN_OK)
        return false;
    uint32_t outer_th = d.inner_off - ZVS_VXLAN_HLEN - ZVS_UDP_HLEN - (k & 1 ? 4 : 0);
    uint32_t inner_nh = d.inner_off + ZVS_ETH_HLEN + (k & 2 ? 4 : 0);
    *m = (struct zvs_vnet){
        .flags = ZVS_VNET_F_NEEDS_CSUM, .gso_size = (uint16_t)(1 + (k >> 5)),
        .gso_type = (uint8_t)(ZVS_VNET_GSO_TCPV4 | (k & 4 ? ZVS_VNET_GSO_UDP_TUNNEL6
                                                          : ZVS_VNET_GSO_UDP_TUNNEL4)),
        .csum_start = (uint16_t)(inner_nh + ZVS_IPV4_HLEN - (k & 8 ? 8 : 0)),
        .csum_offset = 16, .hdr_len = (uint16_t)(inner_nh + 40),
        .tnl_outer_th = (uint16_t)outer_th, .tnl_inner_nh = (uint16_t)inner_nh,
    };
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint64_t now;

    if (size > 65535)
        return 0;
    if (!vtep) {
        vtep = setup(4);
        vtep6 = setup(6);
    }
    now++;
    one(vtep, 4, data, size, now, &(struct zvs_vnet){ 0 });
    one(vtep6, 6, data, size, now, &(struct zvs_vnet){ 0 });
    struct zvs_vnet tnl;
    if (tunnel_meta(data, size, &tnl))
        one(vtep, 4, data, size, now, &tnl);
    return 0;
}

#include "fuzz_replay.h"
