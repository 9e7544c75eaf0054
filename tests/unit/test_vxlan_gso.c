/* UDP tunnel GSO on the VXLAN uplink (overlay/vxlan_gso.c, vtep.c, uplink_vxlan.c):
 * a guest's TCP super-frame encapsulated ONCE when the underlay takes tunnel super-frames
 * (the metadata's exact values, the outer lengths, a segment held to the underlay's MTU),
 * refused (not-segmented) when it does not; a UDP_L4 super-frame segmented by the switch
 * first (the offload carries TCP only); decapsulated back into the inner super-frame;
 * tunnel offsets that disagree with the headers counted vxlan-bad-tunnel-gso; and two
 * switches over a memlink wire whose ports take tunnel super-frames: one descriptor on
 * the wire, counted on the underlay as the segments it becomes, the guest on the far side
 * given the inner super-frame whole. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "backends/memlink.h"
#include "dataplane/switch.h"
#include "dataplane/vlan.h"
#include "dataplane/wire.h"
#include "overlay/uplink_vxlan.h"
#include "overlay/vxlan_gso.h"
#include "tests/unit/vxlan_frames.h"

#define VNI   5000
#define MSS   1400
#define SEGS  4
#define INNER (54 + SEGS * MSS)         /* Ethernet, IPv4, TCP, 4 x 1400 bytes */

static const uint8_t OSA1[6] = { 0x02, 0xaa, 0, 0, 0, 1 };
static const uint8_t OSA2[6] = { 0x02, 0xaa, 0, 0, 0, 2 };

static const struct zvs_vnet TSO = {
    .flags = ZVS_VNET_F_NEEDS_CSUM, .gso_type = ZVS_VNET_GSO_TCPV4, .hdr_len = 54,
    .gso_size = MSS, .csum_start = 34, .csum_offset = 16,
};

static uint8_t sf[INNER], wirebuf[INNER + 64];

/* VTEP 10.0.0.<me>, the other of .1/.2 its remote with a static next hop. */
static struct zvs_vtep *mk(uint8_t me, bool tunnel_gso)
{
    struct zvs_vtep_config c = { .local = vf_ip4(10, 0, 0, me) };
    struct zvs_ipaddr peer = vf_ip4(10, 0, 0, (uint8_t)(3 - me));

    memcpy(c.local_mac, me == 1 ? OSA1 : OSA2, 6);
    struct zvs_vtep *v = zvs_vtep_create(&c);
    assert_non_null(v);
    assert_int_equal(zvs_vtep_map_vni(v, 0, VNI), 0);
    assert_true(zvs_vtep_add_remote(v, "peer", &peer) >= 0);
    assert_int_equal(zvs_uarp_set_static(zvs_vtep_uarp(v), &peer, me == 1 ? OSA2 : OSA1), 0);
    zvs_vtep_set_tunnel_gso(v, tunnel_gso);
    return v;
}

static struct zvs_vtep_stats st(const struct zvs_vtep *v)
{
    struct zvs_vtep_stats s;
    zvs_vtep_stats(v, &s);
    return s;
}

/* The guest's super-frame: A's guest to B's (learned on B's side beforehand). */
static struct zvs_frame super_frame(void)
{
    uint8_t g1[6], g2[6];

    vf_mac(g1, 1);
    vf_mac(g2, 2);
    vf_tcp(sf, INNER, g2, g1, 4000);
    struct zvs_frame f = vf_frame(sf, INNER, 0);
    f.vnet = TSO;
    return f;
}

static void test_encapsulated_once_with_tunnel_metadata(void **state)
{
    struct zvs_vtep *a = mk(1, true);
    struct zvs_frame in = super_frame();
    struct zvs_vtep_tx tx;

    assert_int_equal(zvs_vtep_encap_burst(a, &in, 1, 1, &tx, 1, NULL), 1);
    assert_int_equal(tx.hdr_len, 50);
    assert_int_equal(tx.len, 50 + INNER);
    const struct zvs_vnet want = {
        .flags = ZVS_VNET_F_NEEDS_CSUM, .gso_type = ZVS_VNET_GSO_TCPV4 | ZVS_VNET_GSO_UDP_TUNNEL4,
        .hdr_len = 50 + 54, .gso_size = MSS, .csum_start = 50 + 34, .csum_offset = 16,
        .tnl_outer_th = 34, .tnl_inner_nh = 64,
    };
    assert_memory_equal(&tx.vnet, &want, sizeof want);
    /* The outer lengths are the whole super-frame's: the kernel fixes them per segment. */
    assert_int_equal(zvs_be16(tx.hdr + 16), 20 + 8 + 8 + INNER);
    assert_int_equal(zvs_be16(tx.hdr + 38), 8 + 8 + INNER);
    assert_int_equal(zvs_be16(tx.hdr + 40), 0);         /* outer UDP checksum 0 */
    /* On the wire: 4 segments, each with the outer and inner headers. */
    struct zvs_frame w = { .data = tx.hdr, .len = tx.len, .vnet = tx.vnet };
    memcpy(wirebuf, tx.hdr, 50);
    memcpy(wirebuf + 50, sf, INNER);
    w.data = wirebuf;
    struct zvs_wire cnt = zvs_wire_of(&w, w.len);
    assert_int_equal(cnt.frames, SEGS);
    assert_int_equal(cnt.bytes, 50 + INNER + (SEGS - 1) * 104);
    assert_int_equal(st(a).encapsulated, 1);
    zvs_vtep_destroy(a);
}

/* Each segment must fit: 50 + 54 + MSS - 14 <= the underlay's IP MTU. */
static void test_segment_held_to_the_underlay_mtu(void **state)
{
    struct zvs_vtep *a = mk(1, true);
    struct zvs_frame in = super_frame();
    struct zvs_vtep_tx tx;

    zvs_vtep_set_underlay_mtu(a, 90 + MSS);
    assert_int_equal(zvs_vtep_encap_burst(a, &in, 1, 1, &tx, 1, NULL), 1);
    zvs_vtep_set_underlay_mtu(a, 90 + MSS - 1);
    assert_int_equal(zvs_vtep_encap_burst(a, &in, 1, 1, &tx, 1, NULL), 0);
    assert_int_equal(st(a).reason[ZVS_VTEP_MTU_EXCEEDED], 1);
    zvs_vtep_destroy(a);
}

/* Without the offload, over IPv6, or a super-frame the offload cannot carry: refused. */
static void test_not_segmented_without_the_offload(void **state)
{
    struct zvs_vtep *a = mk(1, false), *t = mk(1, true);
    struct zvs_frame in = super_frame(), udp = in, nocsum = in;
    struct zvs_vtep_tx tx;
    uint32_t hdr;

    assert_int_equal(zvs_vtep_encap_burst(a, &in, 1, 1, &tx, 1, NULL), 0);
    assert_int_equal(st(a).reason[ZVS_VTEP_NOT_SEGMENTED], 1);
    udp.vnet.gso_type = ZVS_VNET_GSO_UDP_L4;
    nocsum.vnet.flags = 0;
    assert_int_equal(zvs_vtep_encap_burst(t, &udp, 1, 1, &tx, 1, NULL), 0);
    assert_int_equal(zvs_vtep_encap_burst(t, &nocsum, 1, 1, &tx, 1, NULL), 0);
    assert_int_equal(st(t).reason[ZVS_VTEP_NOT_SEGMENTED], 2);
    assert_true(zvs_vxlan_gso_inner(&in, &hdr));
    assert_int_equal(hdr, 54);
    in.vnet.csum_offset = 6;            /* UDP's: not a TCP super-frame */
    assert_false(zvs_vxlan_gso_inner(&in, &hdr));
    zvs_vtep_destroy(a);
    zvs_vtep_destroy(t);
}

/* B decapsulates A's super-frame into the inner one; offsets that do not name the
 * headers B decodes are counted and the frame dropped. */
static void test_decap_checks_tunnel_offsets(void **state)
{
    struct zvs_vtep *a = mk(1, true), *b = mk(2, true);
    struct zvs_frame in = super_frame(), out;
    struct zvs_vtep_tx tx;

    assert_int_equal(zvs_vtep_encap_burst(a, &in, 1, 1, &tx, 1, NULL), 1);
    memcpy(wirebuf, tx.hdr, 50);
    memcpy(wirebuf + 50, sf, INNER);
    struct zvs_frame u = vf_frame(wirebuf, tx.len, 0);
    u.vnet = tx.vnet;
    assert_int_equal(zvs_vtep_decap_burst(b, &u, 1, 2, &out, NULL, NULL), 1);
    assert_int_equal(out.len, INNER);
    assert_memory_equal(out.data, sf, INNER);
    assert_memory_equal(&out.vnet, &TSO, sizeof TSO);   /* the inner super-frame's own */

    static const struct { uint16_t outer_th, inner_nh, csum_start; uint8_t tnl; } bad[] = {
        { 30, 64, 84, ZVS_VNET_GSO_UDP_TUNNEL4 },       /* UDP header elsewhere */
        { 34, 68, 84, ZVS_VNET_GSO_UDP_TUNNEL4 },       /* inner IP not after inner MAC */
        { 34, 64, 80, ZVS_VNET_GSO_UDP_TUNNEL4 },       /* inner checksum inside inner IP */
        { 34, 64, 84, ZVS_VNET_GSO_UDP_TUNNEL6 },       /* an IPv6 outer over IPv4 */
    };
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        u.vnet = tx.vnet;
        u.vnet.tnl_outer_th = bad[i].outer_th;
        u.vnet.tnl_inner_nh = bad[i].inner_nh;
        u.vnet.csum_start = bad[i].csum_start;
        u.vnet.gso_type = (uint8_t)(ZVS_VNET_GSO_TCPV4 | bad[i].tnl);
        assert_int_equal(zvs_vtep_decap_burst(b, &u, 1, 3, &out, NULL, NULL), 0);
    }
    /* Metadata a guest's tap would refuse, an inner frame that is not what the type says,
     * and segments larger than the underlay carries. */
    u.vnet = tx.vnet;
    u.vnet.csum_offset = 6;             /* UDP's checksum field, not TCP's */
    assert_int_equal(zvs_vtep_decap_burst(b, &u, 1, 3, &out, NULL, NULL), 0);
    u.vnet = tx.vnet;
    u.vnet.gso_size = 0xFFFF;           /* GSO_BY_FRAGS */
    assert_int_equal(zvs_vtep_decap_burst(b, &u, 1, 3, &out, NULL, NULL), 0);
    u.vnet = tx.vnet;
    u.vnet.gso_type = ZVS_VNET_GSO_TCPV6 | ZVS_VNET_GSO_UDP_TUNNEL4;    /* inner is IPv4 */
    assert_int_equal(zvs_vtep_decap_burst(b, &u, 1, 3, &out, NULL, NULL), 0);
    assert_int_equal(st(b).reason[ZVS_VTEP_BAD_TUNNEL_GSO], 7);
    u.vnet = tx.vnet;
    u.vnet.gso_size = 1460;             /* 54 + 1460 + 36 > 1500 */
    assert_int_equal(zvs_vtep_decap_burst(b, &u, 1, 3, &out, NULL, NULL), 0);
    assert_int_equal(st(b).reason[ZVS_VTEP_MTU_EXCEEDED], 1);
    assert_string_equal(zvs_vtep_reason_name(ZVS_VTEP_BAD_TUNNEL_GSO), "vxlan-bad-tunnel-gso");
    assert_int_equal(st(b).decapsulated, 1);
    zvs_vtep_destroy(a);
    zvs_vtep_destroy(b);
}

struct side {
    struct zvs_switch *sw;
    struct zvs_port   *guest, *vx, *under;
    struct zvs_vtep   *vtep;
};

static void side_setup(struct side *s, struct zvs_port *under, uint8_t me, uint16_t gmac)
{
    struct zvs_switch_params p = { .name = "VXSW" };
    struct zvs_guest g = { .vdev = 0xF000, .owner = "LNX" };
    int err = 0;

    under->caps |= ZVS_CAP_UDP_TUNNEL_GSO;      /* as a tap uplink announces it */
    s->under = under;
    s->vtep = mk(me, false);                    /* the uplink turns it on */
    s->sw = zvs_switch_create(&p);
    assert_non_null(s->sw);
    s->vx = zvs_uplink_vxlan_create("VXLAN1", s->vtep, under, &err);
    assert_non_null(s->vx);
    assert_int_equal(zvs_switch_add_uplink(s->sw, s->vx), 0);
    s->guest = zvs_memlink_create("LNX.F000", 0, 65536);
    s->guest->role = ZVS_PORT_GUEST;
    vf_mac(g.mac, gmac);
    zvs_vlan_port_init(&g.vlan, ZVS_VLAN_ACCESS, 1);
    assert_int_equal(zvs_switch_add_guest(s->sw, s->guest, &g), 0);
}

static void test_two_switches_one_super_frame(void **state)
{
    struct zvs_port *u1, *u2;
    struct side a, b;
    static uint8_t got[65536];
    uint8_t hello[100], g1[6], g2[6];
    struct zvs_vnet v;

    assert_int_equal(zvs_memlink_pair("28BA", "2902", 0, 65536, &u1, &u2), 0);
    side_setup(&a, u1, 1, 1);
    side_setup(&b, u2, 2, 2);
    assert_int_equal(a.vx->caps, ZVS_CAP_CSUM | ZVS_CAP_GSO | ZVS_CAP_GSO_TCP_ONLY);
    assert_int_equal(a.vx->max_gso, 65535 - 50);
    assert_int_equal(a.vx->mtu, 1450);

    /* B's guest speaks first, so A's VTEP knows where it is. */
    vf_mac(g1, 1);
    vf_mac(g2, 2);
    vf_tcp(hello, sizeof hello, g1, g2, 80);
    assert_int_equal(zvs_memlink_inject(b.guest, hello, sizeof hello, NULL), 0);
    assert_int_equal(zvs_switch_poll(b.sw, b.guest, 1), 1);
    assert_int_equal(zvs_switch_poll(a.sw, a.vx, 2), 1);
    assert_int_equal(zvs_memlink_read(a.guest, got, sizeof got, NULL), (int)sizeof hello);

    /* A's guest sends a super-frame: one descriptor on the wire, 4 segments counted. */
    struct zvs_frame in = super_frame();
    uint64_t out0 = a.under->ctr.out_packets, bytes0 = a.under->ctr.out_bytes;
    assert_int_equal(zvs_memlink_inject(a.guest, sf, INNER, &TSO), 0);
    assert_int_equal(zvs_switch_poll(a.sw, a.guest, 3), 1);
    assert_int_equal(a.under->ctr.out_packets - out0, SEGS);
    assert_int_equal(a.under->ctr.out_bytes - bytes0, 50 + INNER + (SEGS - 1) * 104);
    assert_int_equal(st(a.vtep).encapsulated, 1);

    /* B hands its guest the inner super-frame whole; the underlay counts 4 segments in. */
    uint64_t in0 = b.under->ctr.in_packets;
    assert_int_equal(zvs_switch_poll(b.sw, b.vx, 4), 1);
    assert_int_equal(b.under->ctr.in_packets - in0, SEGS);
    assert_int_equal(zvs_memlink_read(b.guest, got, sizeof got, &v), INNER);
    assert_memory_equal(got, in.data, INNER);
    assert_int_equal(v.gso_type, ZVS_VNET_GSO_TCPV4);
    assert_int_equal(v.gso_size, MSS);
    assert_int_equal(v.csum_start, 34);
    assert_int_equal(v.tnl_outer_th, 0);

    /* A UDP_L4 super-frame (3 x 1000 bytes): the tunnel offload carries TCP only, so A's
     * switch segments it (ZVS_CAP_GSO_TCP_ONLY) and each datagram is encapsulated. */
    static uint8_t udp[42 + 3000];
    vf_tcp(udp, sizeof udp, g2, g1, 5000);
    udp[23] = 17;
    zvs_put_be16(udp + 36, 53);
    zvs_put_be16(udp + 38, (uint16_t)(sizeof udp - 34));
    udp[40] = udp[41] = 0;
    for (unsigned k = 42; k < sizeof udp; k++)
        udp[k] = (uint8_t)k;
    vf_ip_csum(udp + 14);
    const struct zvs_vnet uso = { .flags = ZVS_VNET_F_NEEDS_CSUM, .gso_type = ZVS_VNET_GSO_UDP_L4,
                                  .hdr_len = 42, .gso_size = 1000, .csum_start = 34,
                                  .csum_offset = 6 };
    uint32_t enc0 = (uint32_t)st(a.vtep).encapsulated;
    out0 = a.under->ctr.out_packets;
    assert_int_equal(zvs_memlink_inject(a.guest, udp, sizeof udp, &uso), 0);
    assert_int_equal(zvs_switch_poll(a.sw, a.guest, 5), 1);
    assert_int_equal(st(a.vtep).encapsulated - enc0, 3);
    assert_int_equal(a.under->ctr.out_packets - out0, 3);
    assert_int_equal(st(a.vtep).reason[ZVS_VTEP_NOT_SEGMENTED], 0);
    assert_int_equal(zvs_switch_poll(b.sw, b.vx, 6), 3);
    for (unsigned k = 0; k < 3; k++) {
        assert_int_equal(zvs_memlink_read(b.guest, got, sizeof got, &v), 42 + 1000);
        assert_int_equal(v.gso_type, ZVS_VNET_GSO_NONE);
        assert_int_equal(zvs_be16(got + 38), 8 + 1000);
        assert_memory_equal(got + 42, udp + 42 + k * 1000, 1000);
    }
    zvs_switch_destroy(a.sw);
    zvs_switch_destroy(b.sw);
}

/* A tag pushed on or taken off a tunnel super-frame moves its outer headers, so the
 * tunnel's offsets move with csum_start and hdr_len (dataplane/frame.c). */
static void test_tag_edit_moves_tunnel_offsets(void **state)
{
    struct zvs_frame f = vf_frame(sf, INNER, 0);
    f.vnet = (struct zvs_vnet){ .flags = ZVS_VNET_F_NEEDS_CSUM,
                                .gso_type = ZVS_VNET_GSO_UDP_TUNNEL4 | ZVS_VNET_GSO_TCPV4,
                                .hdr_len = 104, .gso_size = MSS, .csum_start = 84,
                                .csum_offset = 16, .tnl_outer_th = 34, .tnl_inner_nh = 64 };
    struct zvs_vnet v = zvs_frame_vnet_after_op(&f, ZVS_TAG_PUSH);
    assert_int_equal(v.csum_start, 88);
    assert_int_equal(v.hdr_len, 108);
    assert_int_equal(v.tnl_outer_th, 38);
    assert_int_equal(v.tnl_inner_nh, 68);
    f.vnet = v;
    v = zvs_frame_vnet_after_op(&f, ZVS_TAG_STRIP);
    assert_int_equal(v.tnl_outer_th, 34);
    assert_int_equal(v.tnl_inner_nh, 64);
    f.vnet.gso_type = ZVS_VNET_GSO_TCPV4;          /* no tunnel: its fields stay 0 */
    f.vnet.tnl_outer_th = f.vnet.tnl_inner_nh = 0;
    v = zvs_frame_vnet_after_op(&f, ZVS_TAG_PUSH);
    assert_int_equal(v.tnl_outer_th, 0);
    assert_int_equal(v.tnl_inner_nh, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_encapsulated_once_with_tunnel_metadata),
        cmocka_unit_test(test_segment_held_to_the_underlay_mtu),
        cmocka_unit_test(test_not_segmented_without_the_offload),
        cmocka_unit_test(test_decap_checks_tunnel_offsets),
        cmocka_unit_test(test_two_switches_one_super_frame),
        cmocka_unit_test(test_tag_edit_moves_tunnel_offsets),
    };
    return cmocka_run_group_tests_name("vxlan_gso", tests, NULL, NULL);
}
