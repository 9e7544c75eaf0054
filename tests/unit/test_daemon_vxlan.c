/* vswitchd with a VXLAN VSWITCH (daemon/daemon_vxlan.c), hermetic: the switch's uplink is
 * a VXLAN segment on OSA 28BA (a dummy link whose far end this test plays as the remote
 * VTEP 10.0.0.2). QUERY VSWITCH shows the VTEP and its remotes; a guest's broadcast asks
 * ARP for the remote first, then goes out encapsulated on the OSA port, counted there;
 * the remote's encapsulated answer reaches the guest and its MAC is learned. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "overlay/underlay_arp.h"
#include "overlay/vxlan_codec.h"
#include "tests/unit/hermetic.h"

static const char *const links[] = { "osa28ba", NULL };
static const uint8_t MAC_A[6] = { 0x02, 0x00, 0x00, 0x00, 0x01, 0x01 };   /* LNXA F000 */
static const uint8_t MAC_R[6] = { 0x02, 0x00, 0x00, 0x00, 0x0a, 0x0a };   /* behind .2 */
static const uint8_t OSA_R[6] = { 0x02, 0xbb, 0x00, 0x00, 0x00, 0x02 };   /* remote VTEP */

static void expect(const char *text, const char *want)
{
    if (!strstr(text, want))
        fail_msg("no \"%s\" in:\n%s", want, text);
}

static void vxlan_switch_carries_a_guest(void **state)
{
    struct herm_opts o = {
        .sysconfig = "tests/unit/hermetic/SYSTEM-VXLAN.CONFIG",
        .userdirect = "tests/unit/hermetic/USER-CCB.DIRECT",
        .links = links,
    };
    struct herm *h = herm_start(&o);
    herm_op(h, "COUPLE USERID LNXA F000 TO SYSTEM VXSW");
    const char *q = herm_op(h, "QUERY VSWITCH VXSW");
    expect(q, "VXLAN VTEP: 10.0.0.1  UDP port: 4789  underlay RDEV: 28BA  MTU: 1450");
    expect(q, "Remote 0: 10.0.0.2  address: 10.0.0.2  state: ACTIVE");
    expect(q, "Remote 1: vtep3.lab  address: -  state: RESOLVING");

    struct herm_guest *a = herm_guest_attach(h, "LNXA", 0xF000);
    struct herm_link *l = herm_link(h, "osa28ba");
    uint8_t f[128];
    const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

    /* No next hop yet: an ARP request goes out on the OSA port. */
    herm_frame(f, 100, bcast, MAC_A, 1);
    herm_guest_send(h, a, f, 100, 1);
    assert_int_equal(l->data_rx, 1);
    assert_int_equal(zvs_be16(l->last + 12), 0x0806);
    /* The remote answers; the next broadcast goes out encapsulated. */
    uint8_t arp[ZVS_UARP_FRAME_LEN];
    const uint8_t ip2[4] = { 10, 0, 0, 2 }, ip1[4] = { 10, 0, 0, 1 };
    zvs_uarp_request(arp, OSA_R, ip2, ip1);             /* its request names it too */
    herm_link_send(h, "osa28ba", arp, sizeof arp);
    assert_int_equal(l->data_rx, 2);                    /* our answer to its request */
    herm_guest_send(h, a, f, 100, 1);
    assert_int_equal(l->data_rx, 3);
    assert_int_equal(l->last_len, 150);
    struct zvs_vxlan_decoded d;
    assert_int_equal(zvs_vxlan_decode(l->last, l->last_len, 4789, 9216, &d), ZVS_VXLAN_OK);
    assert_int_equal(d.vni, 5000);
    assert_memory_equal(l->last, OSA_R, 6);
    assert_memory_equal(l->last + d.inner_off, f, 100);

    /* The remote's answer, encapsulated, reaches the guest. */
    uint8_t inner[100], outer[256];
    herm_frame(inner, 100, MAC_A, MAC_R, 2);
    struct zvs_vxlan_outer ou = { .src = { .family = 4, .a = { 10, 0, 0, 2 } },
                                  .dst = { .family = 4, .a = { 10, 0, 0, 1 } } };
    memcpy(ou.src_mac, OSA_R, 6);
    memcpy(ou.dst_mac, l->last + 6, 6);                 /* the OSA port's MAC */
    unsigned hl = zvs_vxlan_encap(outer, &ou, 5000, 50000, sizeof inner);
    memcpy(outer + hl, inner, sizeof inner);
    herm_link_send(h, "osa28ba", outer, hl + sizeof inner);
    assert_int_equal(herm_guest_receive(h, a), 1);
    assert_int_equal(a->rx_bytes, 100);

    q = herm_op(h, "QUERY VSWITCH VXSW DETAILS");
    expect(q, "Encapsulated: 1  replicated: 0  decapsulated: 1  learned MACs: 1 of 8192");
    expect(q, "MAC 02-00-00-00-0A-0A VNI 5000  remote 0");
    expect(q, "Discards vxlan-no-neighbour: 1");
    /* The OSA port counts what crossed it: ARP, our ARP answer, the encapsulated frame
     * out (60 + 60 + 150 bytes); the remote's ARP and its encapsulated frame in. */
    expect(q, "RX Packets: 2              Discarded: 0              Errors: 0\n"
              "    TX Packets: 3              Discarded: 0              Errors: 0\n"
              "    RX Bytes: 210              TX Bytes: 270");
    if (getenv("VXLAN_SHOW"))
        fprintf(stderr, "%s", q);
    herm_stop(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(vxlan_switch_carries_a_guest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
