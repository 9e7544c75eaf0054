/* The VXLAN uplink (overlay/uplink_vxlan.c) between two switches: each VSWITCH has a
 * guest and a VXLAN uplink whose underlay is one end of a memlink pair (the wire between
 * two OSA ports). A broadcast crosses by head-end replication, the answer by the MAC
 * learned from it; the underlay ports count the encapsulated frames with their 50 bytes;
 * the uplink's MTU leaves room for them; a frame too large is counted, not sent. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "backends/memlink.h"
#include "dataplane/switch.h"
#include "dataplane/vlan.h"
#include "overlay/uplink_vxlan.h"
#include "tests/unit/vxlan_frames.h"

static const uint8_t OSA1[6] = { 0x02, 0xaa, 0, 0, 0, 1 };
static const uint8_t OSA2[6] = { 0x02, 0xaa, 0, 0, 0, 2 };

struct side {
    struct zvs_switch *sw;
    struct zvs_port   *guest, *vx, *under;
    struct zvs_vtep   *vtep;
};

static void side_setup(struct side *s, struct zvs_port *under, uint8_t me, uint8_t peer,
                       const uint8_t *my_osa, const uint8_t *peer_osa, uint16_t gmac)
{
    struct zvs_switch_params p = { .name = "VXSW" };
    struct zvs_vtep_config c = { .local = vf_ip4(10, 0, 0, me) };
    struct zvs_ipaddr rip = vf_ip4(10, 0, 0, peer);
    struct zvs_guest g = { .vdev = 0xF000, .owner = "LNX" };
    int err = 0;

    memcpy(c.local_mac, my_osa, 6);
    s->sw = zvs_switch_create(&p);
    assert_non_null(s->sw);
    s->vtep = zvs_vtep_create(&c);
    assert_non_null(s->vtep);
    assert_int_equal(zvs_vtep_map_vni(s->vtep, 0, 5000), 0);
    assert_true(zvs_vtep_add_remote(s->vtep, "peer", &rip) >= 0);
    assert_int_equal(zvs_uarp_set_static(zvs_vtep_uarp(s->vtep), &rip, peer_osa), 0);
    s->under = under;
    s->vx = zvs_uplink_vxlan_create("VXLAN1", s->vtep, under, &err);
    assert_non_null(s->vx);
    assert_int_equal(zvs_switch_add_uplink(s->sw, s->vx), 0);
    s->guest = zvs_memlink_create("LNX.F000", 0, 0);
    s->guest->role = ZVS_PORT_GUEST;
    vf_mac(g.mac, gmac);
    zvs_vlan_port_init(&g.vlan, ZVS_VLAN_ACCESS, 1);
    assert_int_equal(zvs_switch_add_guest(s->sw, s->guest, &g), 0);
}

static void side_teardown(struct side *s)
{
    zvs_switch_destroy(s->sw);
}

static void test_two_switches_over_vxlan(void **state)
{
    struct zvs_port *u1, *u2;
    struct side a, b;
    uint8_t ga[6], gb[6], f[200], got[2048];

    assert_int_equal(zvs_memlink_pair("28BA", "2902", 0, 0, &u1, &u2), 0);
    side_setup(&a, u1, 1, 2, OSA1, OSA2, 1);
    side_setup(&b, u2, 2, 1, OSA2, OSA1, 2);
    vf_mac(ga, 1);
    vf_mac(gb, 2);
    assert_int_equal(a.vx->mtu, 1450);
    assert_int_equal(a.vx->caps, ZVS_CAP_CSUM);

    /* A broadcasts: replicated to B's VTEP, delivered to B's guest, A learned. */
    vf_tcp(f, 120, NULL, ga, 1234);
    assert_int_equal(zvs_memlink_inject(a.guest, f, 120, NULL), 0);
    assert_int_equal(zvs_switch_poll(a.sw, a.guest, 1), 1);
    assert_int_equal(a.under->ctr.out_packets, 1);
    assert_int_equal(a.under->ctr.out_bytes, 170);
    assert_int_equal(zvs_switch_poll(b.sw, b.vx, 2), 1);
    assert_int_equal(b.under->ctr.in_packets, 1);
    assert_int_equal(b.under->ctr.in_bytes, 170);
    assert_int_equal(zvs_memlink_read(b.guest, got, sizeof got, NULL), 120);
    assert_memory_equal(got, f, 120);

    /* B answers A: one copy, to A's VTEP, from the learned entry. */
    vf_tcp(f, 200, ga, gb, 80);
    assert_int_equal(zvs_memlink_inject(b.guest, f, 200, NULL), 0);
    assert_int_equal(zvs_switch_poll(b.sw, b.guest, 3), 1);
    struct zvs_vtep_stats st;
    zvs_vtep_stats(b.vtep, &st);
    assert_int_equal(st.encapsulated, 1);
    assert_int_equal(st.replicated, 0);
    assert_int_equal(zvs_switch_poll(a.sw, a.vx, 4), 1);
    assert_int_equal(zvs_memlink_read(a.guest, got, sizeof got, NULL), 200);
    assert_memory_equal(got, f, 200);

    /* A frame the underlay cannot carry is counted, never fragmented. */
    static uint8_t big[1600];
    vf_tcp(big, 1451 + 14, gb, ga, 1);
    a.vx->mtu = 1500;                   /* as if the switch let it through */
    struct zvs_frame bf = vf_frame(big, 1451 + 14, 0);
    zvs_switch_input(a.sw, a.guest, &bf, 1, 5);
    zvs_vtep_stats(a.vtep, &st);
    assert_int_equal(st.reason[ZVS_VTEP_MTU_EXCEEDED], 1);
    assert_int_equal(a.under->ctr.out_packets, 1);

    assert_true(zvs_uplink_is_vxlan(a.vx));
    assert_false(zvs_uplink_is_vxlan(a.guest));
    assert_ptr_equal(zvs_uplink_vxlan_vtep(a.vx), a.vtep);
    assert_ptr_equal(zvs_uplink_vxlan_underlay(a.vx), u1);
    side_teardown(&a);
    side_teardown(&b);
}

/* Underlay ARP through the port: no static next hop, the first frame asks, the peer's
 * VTEP answers on the wire, the next frame goes. */
static void test_arp_through_the_port(void **state)
{
    struct zvs_port *u1, *u2;
    struct side a, b;
    uint8_t ga[6], f[100], got[2048];

    assert_int_equal(zvs_memlink_pair("28BA", "2902", 0, 0, &u1, &u2), 0);
    side_setup(&a, u1, 1, 2, OSA1, OSA2, 1);
    side_setup(&b, u2, 2, 1, OSA2, OSA1, 2);
    struct zvs_ipaddr two = vf_ip4(10, 0, 0, 2);
    zvs_uarp_forget(zvs_vtep_uarp(a.vtep), &two);
    vf_mac(ga, 1);
    vf_tcp(f, 100, NULL, ga, 1);

    assert_int_equal(zvs_memlink_inject(a.guest, f, 100, NULL), 0);
    zvs_switch_poll(a.sw, a.guest, 1);
    struct zvs_vtep_stats st;
    zvs_vtep_stats(a.vtep, &st);
    assert_int_equal(st.reason[ZVS_VTEP_NO_NEIGHBOUR], 1);
    assert_int_equal(a.under->ctr.out_packets, 1);     /* the ARP request */
    assert_int_equal(zvs_switch_poll(b.sw, b.vx, 2), 0);   /* B answers it */
    assert_int_equal(b.under->ctr.out_packets, 1);
    assert_int_equal(zvs_switch_poll(a.sw, a.vx, 3), 0);   /* A learns the answer */
    assert_int_equal(zvs_memlink_inject(a.guest, f, 100, NULL), 0);
    zvs_switch_poll(a.sw, a.guest, 4);
    assert_int_equal(zvs_switch_poll(b.sw, b.vx, 5), 1);
    assert_int_equal(zvs_memlink_read(b.guest, got, sizeof got, NULL), 100);
    side_teardown(&a);
    side_teardown(&b);
}

/* A plain frame a QDIO guest spread over a buffer's 16 entries, to a VXLAN uplink over a
 * packet-socket-like underlay (no tunnel offload): its copy is the outer header and the
 * 16 pieces, 17 in all, past what the frame functions once took on their stacks. It
 * leaves as one frame: the header, then the inner bytes unchanged. */
static void test_sixteen_piece_frame_encapsulated(void **state)
{
    static const uint8_t osa1[6] = { 0x02, 0xaa, 0, 0, 0, 1 };
    static const uint8_t osa2[6] = { 0x02, 0xaa, 0, 0, 0, 2 };
    struct zvs_vtep_config c = { .local = vf_ip4(10, 0, 0, 1) };
    struct zvs_ipaddr peer = vf_ip4(10, 0, 0, 2);
    struct zvs_port *u1, *u2;
    int err = 0;

    memcpy(c.local_mac, osa1, 6);
    struct zvs_vtep *v = zvs_vtep_create(&c);
    assert_non_null(v);
    assert_int_equal(zvs_vtep_map_vni(v, 0, 5000), 0);
    assert_true(zvs_vtep_add_remote(v, "peer", &peer) >= 0);
    assert_int_equal(zvs_uarp_set_static(zvs_vtep_uarp(v), &peer, osa2), 0);
    assert_int_equal(zvs_memlink_pair("28BA", "2902", 0, 65536, &u1, &u2), 0);
    struct zvs_port *vx = zvs_uplink_vxlan_create("VXLAN1", v, u1, &err);
    assert_non_null(vx);

    static uint8_t buf[1400], got[2048];
    uint8_t g1[6], g2[6];
    vf_mac(g1, 1);
    vf_mac(g2, 2);
    vf_tcp(buf, sizeof buf, g2, g1, 80);
    for (unsigned k = 54; k < sizeof buf; k++)
        buf[k] = (uint8_t)(k * 7);
    struct iovec fr[ZVS_MAX_FRAGS];
    uint32_t off = 0;
    for (int i = 0; i < ZVS_MAX_FRAGS; i++) {
        uint32_t l = i == 0 ? 60 : (i < ZVS_MAX_FRAGS - 1 ? 90 : 1400 - 60 - 14 * 90);
        fr[i] = (struct iovec){ .iov_base = buf + off, .iov_len = l };
        off += l;
    }
    assert_int_equal(off, sizeof buf);
    struct zvs_frame f = vf_frame(buf, sizeof buf, 0);
    f.nfrags = ZVS_MAX_FRAGS;
    f.frags = fr;
    struct zvs_tx tx = { .f = &f, .tag_op = ZVS_TAG_KEEP };
    enum zvs_drop why = ZVS_DROP_TX_FAIL;
    assert_int_equal(vx->ops->tx(vx, &tx, 1, &why), 1);
    assert_int_equal(u1->ctr.out_packets, 1);
    int n = zvs_memlink_read(u1, got, sizeof got, NULL);
    assert_int_equal(n, ZVS_VXLAN_OVERHEAD_V4 + (int)sizeof buf);
    assert_memory_equal(got + ZVS_VXLAN_OVERHEAD_V4, buf, sizeof buf);
    vx->ops->destroy(vx);               /* the underlay and the VTEP with it */
    u2->ops->destroy(u2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_switches_over_vxlan),
        cmocka_unit_test(test_arp_through_the_port),
        cmocka_unit_test(test_sixteen_piece_frame_encapsulated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
