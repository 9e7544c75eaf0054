/* libFuzzer target for VXLAN decapsulation (overlay/vxlan_codec.c, overlay/vtep.c).
 *
 * Input: one underlay frame, as an uplink would deliver it, into a VTEP at 10.0.0.1 with
 * one remote, 10.0.0.2 (its MAC static), VNI 5000 on VLAN 0 and VNI 10010 on VLAN 10, a remote-MAC table of 8 entries (so floods of sources meet the limit) and
 * an inner limit of 1514 bytes. The frame is an exactly sized heap copy, so ASan sees any
 * read past its end. Beyond memory safety it checks what the API promises:
 *   - zvs_vxlan_decode: OK only with the inner frame inside the input, at least a MAC
 *     header and at most the limit long, and the VNI within 24 bits;
 *   - zvs_vtep_decap_burst: at most one inner frame, pointing where the codec said, on
 *     the VLAN its VNI maps to, never tagged; every frame is delivered, counted under
 *     exactly one drop reason, or is ARP (which counts nothing when well formed);
 *   - a delivered frame, encapsulated back to its sender, decodes to the same bytes.
 *
 * Build: make fuzzers; run: build/fuzz/fuzz_vxlan_decap tests/fuzz/corpus/vxlan_decap
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "overlay/vtep.h"
#include "tests/fuzz/fuzz_common.h"

#define INNER_MAX 1514u

static struct zvs_vtep *vtep;

static struct zvs_vtep *setup(void)
{
    struct zvs_vtep_config c = { .local = { .family = 4, .a = { 10, 0, 0, 1 } },
                                 .local_mac = { 0x02, 0xaa, 0, 0, 0, 1 },
                                 .fdb_capacity = 8, .inner_max = INNER_MAX };
    struct zvs_ipaddr r = { .family = 4, .a = { 10, 0, 0, 2 } };
    const uint8_t mac[6] = { 0x02, 0xaa, 0, 0, 0, 2 };
    struct zvs_vtep *v = zvs_vtep_create(&c);

    CHECK(v != NULL);
    CHECK(zvs_vtep_map_vni(v, 0, 5000) == 0);
    CHECK(zvs_vtep_map_vni(v, 10, 10010) == 0);
    CHECK(zvs_vtep_add_remote(v, "10.0.0.2", &r) == 0);
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint64_t now;
    uint8_t *buf;
    struct zvs_vxlan_decoded d;
    enum zvs_vxlan_verdict vd;

    if (size > 65535)
        return 0;
    if (!vtep)
        vtep = setup();
    buf = malloc(size ? size : 1);
    CHECK(buf != NULL);
    memcpy(buf, data, size);

    vd = zvs_vxlan_decode(buf, (uint32_t)size, ZVS_VXLAN_UDP_PORT, INNER_MAX, &d);
    if (vd == ZVS_VXLAN_OK) {
        CHECK(d.inner_off + d.inner_len <= size);
        CHECK(d.inner_len >= ZVS_ETH_MIN_LEN && d.inner_len <= INNER_MAX);
        CHECK(d.vni <= ZVS_VXLAN_VNI_MAX);
    }
    TRACE("verdict %s\n", zvs_vxlan_verdict_name(vd));

    struct zvs_vtep_stats before, after;
    struct zvs_frame in = { .data = buf, .len = (uint32_t)size, .cookie = 9 }, out;
    struct zvs_vtep_ctl ctl = { .n = 0 };
    uint16_t idx = 0xFFFF;

    zvs_vtep_stats(vtep, &before);
    int k = zvs_vtep_decap_burst(vtep, &in, 1, ++now, &out, &idx, &ctl);
    zvs_vtep_stats(vtep, &after);
    CHECK(k == 0 || k == 1);
    CHECK(ctl.n <= 1);
    uint64_t drops = total_drops(&after) - total_drops(&before);
    bool is_arp = (size >= 14 && data[12] == 0x08 && data[13] == 0x06) ||
                  (size >= 18 && data[12] == 0x81 && data[13] == 0x00 && data[16] == 0x08 &&
                   data[17] == 0x06);
    if (k == 1) {
        CHECK(vd == ZVS_VXLAN_OK);
        CHECK(drops == 0);
        CHECK(idx == 0 && out.cookie == 9);
        CHECK(out.data == buf + d.inner_off && out.len == d.inner_len);
        CHECK(out.vid == (d.vni == 5000 ? 0 : 10));
        CHECK(!(out.flags & ZVS_FF_TAGGED));
        CHECK(after.decapsulated == before.decapsulated + 1);

        /* Back to where it came from: the same inner bytes. */
        struct zvs_vtep_tx tx[2];
        out.flags |= (uint8_t)((out.data[0] & 1) ? ZVS_FF_MCAST : 0);
        int n = zvs_vtep_encap_burst(vtep, &out, 1, now, tx, 2, NULL);
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
        CHECK(drops == 1 || (drops == 0 && is_arp));
    }
    if (now % 64 == 0)
        zvs_vtep_tick(vtep, now * 1000000000u);
    free(buf);
    return 0;
}

#include "fuzz_replay.h"
