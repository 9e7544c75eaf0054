/* vswitchd with a VXLAN VSWITCH whose underlay is a LACP port group (VXLAN ... GROUP,
 * overlay/underlay_group.c), hermetic: OSA 28BA, 2902 and 2A00 in group VXGRP against
 * the harness's LACP partner, whose far ends this test plays as the remote VTEP
 * 10.0.0.2. The members' LACPDUs cross through the VXLAN uplink's reads and the group
 * aggregates; a guest's flows (inner TCP, distinct ports) leave encapsulated, each on
 * the member its outer UDP source port's bucket names (RFC 7348 section 5), spread
 * over all three; one flow stays on one member; 2902's cable cut moves 2902's flows
 * only; an encapsulated frame arriving on any member reaches the guest. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/daemon.h"
#include "dataplane/distribution.h"
#include "lag/lag.h"
#include "lag/pgroup.h"
#include "overlay/underlay_arp.h"
#include "overlay/vxlan_codec.h"
#include "tests/unit/herm_vxlan.h"
#include "tests/unit/vxlan_frames.h"

#define FLOWS 48

static const char *const links[] = { "osa28ba", "osa2902", "osa2a00", NULL };
static const uint8_t MAC_A[6] = { 0x02, 0x00, 0x0c, 0x00, 0x01, 0x01 };   /* LNXA F000 */
static const uint8_t MAC_R[6] = { 0x02, 0x00, 0x00, 0x00, 0x0a, 0x0a };   /* behind .2 */

/* A 100-byte inner IPv4/TCP frame of flow `port` (its TCP source port). */
static uint32_t flow_frame(uint8_t *f, const uint8_t dst[6], const uint8_t src[6],
                           uint16_t port)
{
    return vf_tcp(f, 100, dst, src, port);
}

/* The link (0..2) a guest's frame of flow `port` left by; the frame checked as the
 * encapsulated copy of what was sent, on the member its outer source port names. */
static int send_flow(struct herm *h, struct herm_guest *a, uint16_t port)
{
    uint64_t before[3];
    uint8_t f[100];
    int on = -1;

    flow_frame(f, MAC_R, MAC_A, port);
    for (int i = 0; i < 3; i++)
        before[i] = h->link[i].data_rx;
    herm_guest_send(h, a, f, sizeof f, 1);
    for (int i = 0; i < 3; i++) {
        if (h->link[i].data_rx == before[i])
            continue;
        assert_int_equal(h->link[i].data_rx, before[i] + 1);
        assert_int_equal(on, -1);
        on = i;
    }
    assert_true(on >= 0);
    const struct herm_link *l = &h->link[on];
    struct zvs_vxlan_decoded d;
    assert_int_equal(zvs_vxlan_decode(l->last, l->last_len, 4789, 9216, &d), ZVS_VXLAN_OK);
    assert_int_equal(d.vni, 5000);
    assert_memory_equal(l->last + d.inner_off, f, sizeof f);
    assert_int_equal(d.sport, zvs_vxlan_sport(f, sizeof f));
    unsigned bucket = zvs_pg_frame_bucket(ZVS_PG_HASH_UDP_SPORT, l->last, l->last_len);
    const struct zvs_pg_map *m = zvs_pgroup_map(zvs_lag_group(zvsd_port_group(h->d, "VXGRP")));
    assert_int_equal(m->bucket_slot[bucket], on);       /* slots in JOIN order */
    return on;
}

static void vxlan_over_a_group(void **state)
{
    struct herm_opts o = {
        .sysconfig = "tests/unit/hermetic/SYSTEM-VXLAN-GROUP.CONFIG",
        .userdirect = "tests/unit/hermetic/USER-CCB.DIRECT",
        .links = links, .partner_lacp = true,
    };
    struct herm *h = herm_start(&o);
    herm_op(h, "COUPLE USERID LNXA F000 TO SYSTEM VXSW");
    herm_warp(h, 5.0);
    struct zvs_pgroup *pg = zvs_lag_group(zvsd_port_group(h->d, "VXGRP"));
    assert_int_equal(zvs_pgroup_distributing(pg), 3);   /* LACP through the VXLAN uplink */
    const char *q = herm_op(h, "QUERY VSWITCH VXSW");
    herm_expect(q, "VXLAN VTEP: 10.0.0.1  UDP port: 4789  underlay GROUP: VXGRP  MTU: 1450");

    /* The first frame asks ARP for the remote, on the group's designated member. */
    struct herm_guest *a = herm_guest_attach(h, "LNXA", 0xF000);
    uint8_t f[100];
    flow_frame(f, MAC_R, MAC_A, 1000);
    herm_guest_send(h, a, f, sizeof f, 1);
    uint64_t arp = h->link[0].data_rx + h->link[1].data_rx + h->link[2].data_rx;
    assert_int_equal(arp, 1);
    uint8_t req[ZVS_UARP_FRAME_LEN];
    const uint8_t ip2[4] = { 10, 0, 0, 2 }, ip1[4] = { 10, 0, 0, 1 };
    zvs_uarp_request(req, herm_vx_remote_mac, ip2, ip1);
    herm_link_send(h, "osa2902", req, sizeof req);     /* read through the VXLAN uplink */

    /* Flows spread over the three members; a flow keeps its member. */
    int on[FLOWS], count[3] = { 0 };
    for (int i = 0; i < FLOWS; i++) {
        on[i] = send_flow(h, a, (uint16_t)(1000 + i));
        count[on[i]]++;
        assert_int_equal(send_flow(h, a, (uint16_t)(1000 + i)), on[i]);
    }
    for (int i = 0; i < 3; i++)
        assert_true(count[i] >= FLOWS / 8);
    if (getenv("VXLAN_SHOW"))
        fprintf(stderr, "flows per member: %d %d %d\n", count[0], count[1], count[2]);

    /* 2902's cable cut: its flows go to the others, the others' flows stay. */
    herm_warp(h, 10.0);
    herm_cut(h, "osa2902", false);
    assert_int_equal(zvs_pgroup_distributing(pg), 2);
    for (int i = 0; i < FLOWS; i++) {
        int now = send_flow(h, a, (uint16_t)(1000 + i));
        assert_int_not_equal(now, 1);
        if (on[i] != 1)
            assert_int_equal(now, on[i]);
    }

    /* The remote's encapsulated frame on a member, to the VTEP's (the group's) MAC, reaches
     * the guest. */
    uint8_t inner[100];
    flow_frame(inner, MAC_A, MAC_R, 7);
    uint64_t t = herm_now_ns(h);
    herm_vx_send(h, "osa2a00", h->link[0].last + 6, inner, sizeof inner, 5000);
    assert_int_equal(herm_guest_receive(h, a), 1);

    q = herm_op(h, "QUERY VSWITCH VXSW DETAILS");
    herm_expect(q, "decapsulated: 1  learned MACs: 1 of 8192");
    herm_expect(q, "    MAC 02-00-00-00-0A-0A VNI 5000  remote 0\n");
    if (getenv("VXLAN_SHOW"))
        fprintf(stderr, "%s\n", q);

    /* A group's VXLAN uplink ages on the daemon's clock as an RDEV's does
     * (test_daemon_vxlan_aging.c): the MAC is there just before the table's age (300 s)
     * and gone a second after it, with no frame in between. */
    herm_warp_ns(h, t + 300 * HERM_S - 1);
    herm_expect(herm_op(h, "QUERY VSWITCH VXSW DETAILS"), "learned MACs: 1 of 8192");
    herm_warp_ns(h, t + 301 * HERM_S);
    q = herm_op(h, "QUERY VSWITCH VXSW DETAILS");
    herm_expect(q, "learned MACs: 0 of 8192");
    assert_null(strstr(q, "MAC 02-00-00-00-0A-0A"));
    herm_stop(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(vxlan_over_a_group),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
