/* A VNI per VLAN (VXLAN VSWITCH name VLAN v VNI n) on the hermetic daemon: VXSW is VLAN
 * AWARE, its native VLAN 1 travels as VNI 5000, VLAN 10 as 10010, VLAN 20 as 10020, and
 * LNXA's NIC is on VLAN 10 (tests/unit/hermetic/SYSTEM-VXLAN-VLAN.CONFIG). The remote
 * VTEP 10.0.0.2 is played on the far end of OSA 28BA. QUERY VSWITCH shows the map; VNI
 * 10010 reaches the guest with its tag taken off, VNIs of other VLANs do not, a VNI the
 * switch does not serve is counted; the guest's frames leave as VNI 10010, untagged
 * inside (RFC 7348 section 6.1). */
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
#include "tests/unit/herm_vxlan.h"

static const char *const links[] = { "osa28ba", NULL };
static const uint8_t MAC_A[6] = { 0x02, 0x00, 0x00, 0x00, 0x01, 0x01 };   /* LNXA F000 */
static const uint8_t MAC_R[6] = { 0x02, 0x00, 0x00, 0x00, 0x0a, 0x0a };   /* behind .2 */

/* The remote's encapsulated frame (100 bytes inside, to dst) on `vni`. */
static void from_remote(struct herm *h, const uint8_t dst[6], uint32_t vni)
{
    uint8_t inner[100];
    herm_frame(inner, sizeof inner, dst, MAC_R, vni);
    herm_vx_send(h, "osa28ba", NULL, inner, sizeof inner, vni);
}

static void a_vni_per_vlan(void **state)
{
    struct herm_opts o = {
        .sysconfig = "tests/unit/hermetic/SYSTEM-VXLAN-VLAN.CONFIG",
        .userdirect = "tests/unit/hermetic/USER-CCB.DIRECT",
        .links = links,
    };
    struct herm *h = herm_start(&o);
    const char *q = herm_op(h, "QUERY VSWITCH VXSW");
    herm_expect(q, "    VNI 5000  VLAN 1\n");
    herm_expect(q, "    VNI 10010  VLAN 10\n");
    herm_expect(q, "    VNI 10020  VLAN 20\n");
    herm_op(h, "COUPLE USERID LNXA F000 TO SYSTEM VXSW");
    struct herm_guest *a = herm_guest_attach(h, "LNXA", 0xF000);

    /* In: VLAN 10's VNI reaches the guest untagged; the other VLANs' VNIs do not. */
    from_remote(h, MAC_A, 10010);
    assert_int_equal(herm_guest_receive(h, a), 1);
    assert_int_equal(a->rx_bytes, 100);
    from_remote(h, MAC_A, 10020);
    assert_int_equal(herm_guest_receive(h, a), 0);
    from_remote(h, MAC_A, 5000);
    assert_int_equal(herm_guest_receive(h, a), 0);
    from_remote(h, MAC_A, 999);
    assert_int_equal(herm_guest_receive(h, a), 0);
    q = herm_op(h, "QUERY VSWITCH VXSW DETAILS");
    herm_expect(q, "Discards vxlan-unknown-vni: 1");
    herm_expect(q, "decapsulated: 3");
    herm_expect(q, "MAC 02-00-00-00-0A-0A VNI 10010  remote 0");
    herm_expect(q, "MAC 02-00-00-00-0A-0A VNI 10020  remote 0");

    /* Out: the first frame asks ARP for the remote, whose request answers it; the next
     * leaves as VNI 10010. */
    struct herm_link *l = herm_link(h, "osa28ba");
    uint8_t arp[ZVS_UARP_FRAME_LEN], f[100];
    const uint8_t ip2[4] = { 10, 0, 0, 2 }, ip1[4] = { 10, 0, 0, 1 };
    herm_frame(f, sizeof f, MAC_R, MAC_A, 1);
    herm_guest_send(h, a, f, sizeof f, 1);
    assert_int_equal(zvs_be16(l->last + 12), 0x0806);
    zvs_uarp_request(arp, herm_vx_remote_mac, ip2, ip1);
    herm_link_send(h, "osa28ba", arp, sizeof arp);
    uint64_t before = l->data_rx;
    herm_guest_send(h, a, f, sizeof f, 1);
    assert_int_equal(l->data_rx, before + 1);
    struct zvs_vxlan_decoded d;
    assert_int_equal(zvs_vxlan_decode(l->last, l->last_len, 4789, 9216, &d), ZVS_VXLAN_OK);
    assert_int_equal(d.vni, 10010);
    assert_int_equal(l->last_len, 150);
    assert_memory_equal(l->last + d.inner_off, f, sizeof f);
    herm_stop(h);
}

/* SET VSWITCH ... VXLAN VLAN v VNI n | DELETE (ours) on the running switch. */
static void vlan_vni_by_command(void **state)
{
    struct herm_opts o = {
        .sysconfig = "tests/unit/hermetic/SYSTEM-VXLAN-VLAN.CONFIG",
        .userdirect = "tests/unit/hermetic/USER-CCB.DIRECT",
        .links = links,
    };
    struct herm *h = herm_start(&o);
    herm_op(h, "COUPLE USERID LNXA F000 TO SYSTEM VXSW");
    struct herm_guest *a = herm_guest_attach(h, "LNXA", 0xF000);

    assert_string_equal(herm_op(h, "SET VSWITCH VXSW VXLAN VLAN 10 VNI 10011"),
                        "Command complete");
    assert_string_equal(herm_op(h, "SET VSWITCH VXSW VXLAN VLAN 30 VNI 10030"),
                        "Command complete");
    assert_string_equal(herm_op(h, "SET VSWITCH VXSW VXLAN VLAN 20 DELETE"),
                        "Command complete");
    const char *q = herm_op(h, "QUERY VSWITCH VXSW");
    herm_expect(q, "    VNI 10011  VLAN 10\n");
    herm_expect(q, "    VNI 10030  VLAN 30\n");
    assert_null(strstr(q, "10010"));
    assert_null(strstr(q, "10020"));
    from_remote(h, MAC_A, 10010);
    assert_int_equal(herm_guest_receive(h, a), 0);
    from_remote(h, MAC_A, 10011);
    assert_int_equal(herm_guest_receive(h, a), 1);
    herm_expect(herm_op(h, "QUERY VSWITCH VXSW"), "Discards vxlan-unknown-vni: 1");

    herm_refused(h, "SET VSWITCH VXSW VXLAN VLAN 1 VNI 7", 1226,
            "ZVSVXL1226E VLAN 1 is the native VLAN of VSWITCH VXSW: it travels as VXLAN VNI");
    herm_refused(h, "SET VSWITCH VXSW VXLAN VLAN 40 VNI 10030", 1227,
            "ZVSVXL1227E VNI 10030 is VLAN 30's on VSWITCH VXSW");
    herm_refused(h, "SET VSWITCH VXSW VXLAN VNI 10011", 1227,
            "ZVSVXL1227E VNI 10011 is VLAN 10's on VSWITCH VXSW");
    herm_refused(h, "SET VSWITCH VXSW VXLAN VLAN 30 VNI 5000", 1227,
            "ZVSVXL1227E VNI 5000 is VLAN 1's on VSWITCH VXSW");
    herm_refused(h, "SET VSWITCH VXSW VXLAN VLAN 20 DELETE", 1228,
            "ZVSVXL1228E VSWITCH VXSW has no VNI for VLAN 20");
    /* Its own VNI again is no conflict. */
    assert_string_equal(herm_op(h, "SET VSWITCH VXSW VXLAN VLAN 30 VNI 10030"),
                        "Command complete");
    herm_stop(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_vni_per_vlan),
        cmocka_unit_test(vlan_vni_by_command),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
