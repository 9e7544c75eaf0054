/* SET VSWITCH name VXLAN REMOTE ADD | DELETE host and VXLAN VNI n (ours) on the hermetic
 * daemon (tests/unit/hermetic/SYSTEM-VXLAN.CONFIG: VXSW, VNI 5000 on OSA 28BA, remotes
 * 10.0.0.2 and vtep3.lab): the running VTEP follows each accepted command at once, every
 * refusal is a ZVSVXL message that changes nothing, and a remote the data plane cannot
 * add rolls the command back whole (ZVSCMD1119S). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>

#include "daemon/daemon.h"
#include "daemon/step_fault.h"
#include "tests/unit/herm_vxlan.h"

static const char *const links[] = { "osa28ba", NULL };
static const uint8_t MAC_A[6] = { 0x02, 0x00, 0x00, 0x00, 0x01, 0x01 };   /* LNXA F000 */
static const uint8_t MAC_R[6] = { 0x02, 0x00, 0x00, 0x00, 0x0a, 0x0a };

static struct herm *start(void)
{
    struct herm_opts o = {
        .sysconfig = "tests/unit/hermetic/SYSTEM-VXLAN.CONFIG",
        .userdirect = "tests/unit/hermetic/USER-CCB.DIRECT",
        .links = links,
    };
    return herm_start(&o);
}

/* An encapsulated frame from 10.0.0.2 to the guest on `vni`. */
static void from_remote(struct herm *h, uint32_t vni)
{
    uint8_t inner[100];
    herm_frame(inner, sizeof inner, MAC_A, MAC_R, vni);
    herm_vx_send(h, "osa28ba", NULL, inner, sizeof inner, vni);
}

static void remotes_added_and_deleted(void **state)
{
    struct herm *h = start();
    assert_string_equal(herm_op(h, "SET VSWITCH VXSW VXLAN REMOTE ADD 10.0.0.3"),
                        "Command complete");
    assert_string_equal(herm_op(h, "SET VSWITCH VXSW VXLAN REMOTE ADD Vtep4.Lab."),
                        "Command complete");
    const char *q = herm_op(h, "QUERY VSWITCH VXSW");
    herm_expect(q, "Remote 0: 10.0.0.2  address: 10.0.0.2  state: ACTIVE");
    herm_expect(q, "Remote 2: 10.0.0.3  address: 10.0.0.3  state: ACTIVE");
    herm_expect(q, "Remote 3: vtep4.lab  address: -  state: RESOLVING");

    herm_refused(h, "SET VSWITCH VXSW VXLAN REMOTE ADD 10.0.0.3", 1221,
            "ZVSVXL1221E VSWITCH VXSW already has remote VTEP 10.0.0.3");
    herm_refused(h, "SET VSWITCH VXSW VXLAN REMOTE ADD 2001:db8::3", 1223,
            "ZVSVXL1223E Remote VTEP 2001:DB8::3 is not of the address family of LOCAL "
            "10.0.0.1");
    herm_refused(h, "SET VSWITCH VXSW VXLAN REMOTE DELETE nosuch.lab", 1224,
            "ZVSVXL1224E VSWITCH VXSW has no remote VTEP NOSUCH.LAB");

    assert_string_equal(herm_op(h, "SET VSWITCH VXSW VXLAN REMOTE DELETE vtep3.lab"),
                        "Command complete");
    assert_string_equal(herm_op(h, "SET VSWITCH VXSW VXLAN REMOTE DELETE 10.0.0.2"),
                        "Command complete");
    q = herm_op(h, "QUERY VSWITCH VXSW");
    assert_null(strstr(q, "vtep3.lab"));
    assert_null(strstr(q, "Remote 0:"));
    herm_expect(q, "Remote 2: 10.0.0.3");
    /* 10.0.0.2 is no remote any more: its frames are an unknown VTEP's. */
    herm_op(h, "COUPLE USERID LNXA F000 TO SYSTEM VXSW");
    struct herm_guest *a = herm_guest_attach(h, "LNXA", 0xF000);
    from_remote(h, 5000);
    assert_int_equal(herm_guest_receive(h, a), 0);
    herm_expect(herm_op(h, "QUERY VSWITCH VXSW"), "Discards vxlan-unknown-vtep: 1");

    /* Up to 8 remotes in the statement. */
    char line[80];
    for (int i = 5; i <= 10; i++) {
        snprintf(line, sizeof line, "SET VSWITCH VXSW VXLAN REMOTE ADD 10.0.0.%d", i);
        assert_string_equal(herm_op(h, line), "Command complete");
    }
    herm_refused(h, "SET VSWITCH VXSW VXLAN REMOTE ADD 10.0.0.11", 1222,
            "ZVSVXL1222E VSWITCH VXSW has 8 remote VTEPs: no room for 10.0.0.11");
    herm_stop(h);
}

static void vni_changed(void **state)
{
    struct herm *h = start();
    herm_op(h, "COUPLE USERID LNXA F000 TO SYSTEM VXSW");
    struct herm_guest *a = herm_guest_attach(h, "LNXA", 0xF000);
    herm_expect(herm_op(h, "QUERY VSWITCH VXSW"), "    VNI 5000\n");
    assert_string_equal(herm_op(h, "SET VSWITCH VXSW VXLAN VNI 6000"), "Command complete");
    const char *q = herm_op(h, "QUERY VSWITCH VXSW");
    herm_expect(q, "    VNI 6000\n");
    assert_null(strstr(q, "VNI 5000"));
    from_remote(h, 5000);
    assert_int_equal(herm_guest_receive(h, a), 0);
    from_remote(h, 6000);
    assert_int_equal(herm_guest_receive(h, a), 1);
    herm_expect(herm_op(h, "QUERY VSWITCH VXSW"), "Discards vxlan-unknown-vni: 1");
    herm_refused(h, "SET VSWITCH VXSW VXLAN VNI 16777216", 1105,
            "ZVSCMD1105E Invalid VNI value - 16777216; valid: 0-16777215");
    herm_stop(h);
}

static void refused_without_vxlan_or_class(void **state)
{
    struct herm *h = start();
    herm_op(h, "DEFINE VSWITCH PLAIN RDEV NONE");
    herm_refused(h, "SET VSWITCH PLAIN VXLAN VNI 7", 1220,
            "ZVSVXL1220E VSWITCH PLAIN has no VXLAN uplink");
    herm_refused(h, "SET VSWITCH VXSW VXLAN VLAN 10 VNI 7", 1225,
            "ZVSVXL1225E VSWITCH VXSW is not VLAN AWARE: a VNI per VLAN needs it");
    int rc;
    herm_cp(h, "LNXA", "G", "SET VSWITCH VXSW VXLAN VNI 7", &rc);
    assert_int_not_equal(rc, 0);
    herm_expect(herm_op(h, "QUERY VSWITCH VXSW"), "    VNI 5000\n");
    herm_stop(h);
}

/* A remote the VTEP cannot take (the step fails: its table full, the names table's)
 * rolls the command back: the statement and the VTEP as they were, the add possible
 * again after. */
static void remote_add_rolled_back(void **state)
{
    struct herm *h = start();
    char *before = strdup(herm_op(h, "QUERY VSWITCH VXSW DETAILS"));
    zvsd_step_fail(h->d, ZVSD_STEP_VXLAN, 1, ENOSPC);
    int rc;
    const char *out = herm_cp(h, "OPERATOR", "ABCDEFG", "SET VSWITCH VXSW VXLAN REMOTE ADD "
                              "10.0.0.9", &rc);
    assert_int_equal(rc, 1119);
    herm_expect(out, "Warning: VSWITCH VXSW VXLAN: REMOTE 10.0.0.9: No space left on device\n");
    herm_expect(out, "ZVSCMD1119S");
    assert_int_equal(zvsd_step_count(h->d, ZVSD_STEP_VXLAN), 1);
    zvsd_step_fail(h->d, ZVSD_STEP_VXLAN, 0, 0);
    assert_string_equal(herm_op(h, "QUERY VSWITCH VXSW DETAILS"), before);
    free(before);
    assert_string_equal(herm_op(h, "SET VSWITCH VXSW VXLAN REMOTE ADD 10.0.0.9"),
                        "Command complete");
    herm_expect(herm_op(h, "QUERY VSWITCH VXSW"), "Remote 2: 10.0.0.9");
    herm_stop(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(remotes_added_and_deleted),
        cmocka_unit_test(vni_changed),
        cmocka_unit_test(refused_without_vxlan_or_class),
        cmocka_unit_test(remote_add_rolled_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
