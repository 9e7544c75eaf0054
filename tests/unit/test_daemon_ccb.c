/* The report's command sequence typed into the real daemon, hermetically (hermetic.h):
 * SET PORT GROUP CCBGROUP JOIN 28BA 2902 / INTERVAL 30 / DEFINE VSWITCH CCBVSW1 ETHERNET
 * GROUP CCBGROUP QUEUESTORAGE 1M / GRANT / COUPLE, then the QUERY responses the root lab
 * tests/integration/cp_commands.sh checks (tests/golden/commands/query_*.txt, after the
 * lab's masking) and the same responses with every counter exact
 * (tests/golden/hermetic/ccb_*.txt). The lab's traffic (3 pings LNXA -> LNXB after
 * COUNTERS CLEAR) is 3 frames of 98 bytes each way between the guests' queues.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hermetic.h"

static const char *const ccb_links[] = { "osa28ba", "osa2902", "osa2a00", "osa2b00",
                                         "osa2d00", NULL };

static struct herm *ccb_start(void)
{
    struct herm_opts o = {
        .sysconfig = "configs/lab/SYSTEM-CCB.CONFIG",
        .userdirect = "tests/unit/hermetic/USER-CCB.DIRECT",
        .links = ccb_links, .partner_lacp = true,
    };
    return herm_start(&o);
}

static const uint8_t MAC_A[6] = { 0x02, 0x00, 0x0c, 0x00, 0x01, 0x01 };
static const uint8_t MAC_B[6] = { 0x02, 0x00, 0x0c, 0x00, 0x01, 0x0a };

/* Typed at virtual time 0, in the report's order; each answer is exact. */
static void type_report_sequence(struct herm *h)
{
    int rc;
    assert_string_equal(herm_cp(h, "OPERATOR", "ABCDEFG", "QUERY VSWITCH", &rc),
                        "ZVSCMD1138I No VSWITCH to show");
    assert_int_equal(rc, 0);
    assert_string_equal(herm_op(h, "SET PORT GROUP CCBGROUP JOIN 28BA 2902"), "Command complete");
    assert_string_equal(herm_op(h, "SET PORT GROUP CCBGROUP INTERVAL 30"), "Command complete");
    assert_string_equal(herm_op(h, "DEFINE VSWITCH CCBVSW1 ETHERNET GROUP CCBGROUP QUEUESTORAGE 1M"),
                        "VSWITCH SYSTEM CCBVSW1 is created");
    herm_op(h, "SET VSWITCH CCBVSW1 GRANT LNXA");
    herm_op(h, "SET VSWITCH CCBVSW1 GRANT LNXB");
    assert_string_equal(herm_cp(h, "LNXA", "G", "DEFINE VSWITCH MYVSW", &rc),
                        "ZVSCMD1100E Not authorized: DEFINE VSWITCH requires privilege class B");
    assert_string_equal(herm_cp(h, "LNXA", "G", "COUPLE USERID LNXB F000 TO SYSTEM CCBVSW1", &rc),
                        "ZVSCMD1100E Not authorized: COUPLE USERID requires privilege class B");
    assert_string_equal(herm_cp(h, "LNXA", "G", "COUPLE F000 TO SYSTEM CCBVSW1", &rc),
                        "NIC F000 is connected to VSWITCH SYSTEM CCBVSW1");
    assert_int_equal(rc, 0);
    herm_op(h, "COUP USERID LNXB F000 SYSTEM CCBVSW1");
    assert_string_equal(herm_cp(h, "OPERATOR", "ABCDEFG", "COUPLE USERID LNXC F000 TO SYSTEM CCBVSW1", &rc),
                        "ZVSVSW1121E User LNXC is not authorized to couple to VSWITCH CCBVSW1");
    assert_int_equal(rc, 1121);                 /* vmcp shows 255: exit codes stop there */
}

/* Three "pings" of 98 bytes: request A -> B, reply B -> A. */
static void ping3(struct herm *h, struct herm_guest *a, struct herm_guest *b)
{
    uint8_t f[98];
    for (uint32_t i = 0; i < 3; i++) {
        herm_frame(f, sizeof f, MAC_B, MAC_A, i);
        herm_guest_send(h, a, f, sizeof f, 1);
        assert_int_equal(herm_guest_receive(h, b), 1);
        herm_frame(f, sizeof f, MAC_A, MAC_B, 100 + i);
        herm_guest_send(h, b, f, sizeof f, 1);
        assert_int_equal(herm_guest_receive(h, a), 1);
    }
}

/* A response against both golden files of `name`: the root lab's
 * tests/golden/commands/query_<name>.txt after the lab's masking, and the exact
 * tests/golden/hermetic/ccb_<name>.txt. */
static void golden_lab_and_exact(const char *out, const char *name)
{
    char lab[128], exact[64];
    snprintf(lab, sizeof lab, "tests/golden/commands/query_%s.txt", name);
    snprintf(exact, sizeof exact, "ccb_%s.txt", name);
    herm_golden_lab(lab, out);
    herm_golden(exact, out);
}

static void report_sequence_and_queries(void **state)
{
    struct herm *h = ccb_start();
    const char *out = herm_op(h, "QUERY VMLAN");
    golden_lab_and_exact(out, "empty_vmlan");

    type_report_sequence(h);
    /* 802.1AX: both sides Active, short timeout: selected at once, attached after the
     * Aggregate_Wait_Time (2 s, 6.4.15), collecting and distributing when the partner's
     * next PDU says it is in sync. */
    herm_warp(h, 1.999);
    herm_golden("ccb_port_group_1.999s.txt", herm_op(h, "QUERY PORT GROUP CCBGROUP"));
    herm_warp(h, 2.0);
    herm_golden("ccb_port_group_2.000s.txt", herm_op(h, "QUERY PORT GROUP CCBGROUP"));
    herm_warp(h, 10.0);

    struct herm_guest *a = herm_guest_attach(h, "LNXA", 0xF000);
    struct herm_guest *b = herm_guest_attach(h, "LNXB", 0xF000);
    herm_op(h, "SET VSWITCH CCBVSW1 COUNTERS CLEAR");
    ping3(h, a, b);

    golden_lab_and_exact(herm_op(h, "QUERY VSWITCH CCBVSW1"), "vswitch_brief");
    golden_lab_and_exact(herm_op(h, "Q VSW CCBVSW1 DET"), "vswitch_details");
    golden_lab_and_exact(herm_op(h, "QUERY VSWITCH CCBVSW1 ACCESSLIST"), "vswitch_accesslist");
    golden_lab_and_exact(herm_op(h, "QUERY VSWITCH ALL ACTIVE"), "vswitch_active");
    golden_lab_and_exact(herm_op(h, "QUERY PORT GROUP CCBGROUP"), "port_group");
    golden_lab_and_exact(herm_op(h, "QUERY NIC USERID LNXA"), "nic");
    /* The lab's query_nic_details.txt names the tap (Backend: tap lnxb-f000); here the
     * NIC is driven over the attach socket, so only the exact hermetic file is checked. */
    herm_golden("ccb_nic_details.txt", herm_op(h, "QUERY NIC USERID LNXB F000 DETAILS"));
    golden_lab_and_exact(herm_op(h, "QUERY VMLAN"), "vmlan");
    int rc;
    out = herm_cp(h, "LNXA", "G", "QUERY VSWITCH CCBVSW1 DETAILS", &rc);
    assert_int_equal(rc, 0);
    golden_lab_and_exact(out, "vswitch_classg");
    herm_golden("ccb_lacp_details.txt", herm_op(h, "QUERY LACP CCBGROUP DETAILS"));
    herm_stop(h);
}

/* The refused commands of the lab, their exact answers (tests/golden/commands/refused.txt
 * in the lab's format), and that none of them changed the configuration. */
static const char *const refused[] = {
    "DEFINE VSWITCH CCBVSW1 ETHERNET", "DEFINE VSWITCH NEWVSW QUEUESTORAGE 9M",
    "DEFINE VSWITCH NEWVSW GROUP CCBGROUP", "DEFINE VSWITCH NEWVSW RDEV 28BA",
    "DEFINE VSWITCH NEWVSW RDEV 3000", "SET VSWITCH NOSUCH GRANT LNXC",
    "SET VSWITCH CCBVSW1 REVOKE LNXC", "SET VSWITCH CCBVSW1 GRANT LNXC VLAN 10",
    "SET VSWITCH CCBVSW1 GROUP NOSUCH", "SET PORT GROUP CCBGROUP INTERVAL 0",
    "SET PORT GROUP CCBGROUP JOIN 28BA", "SET PORT GROUP CCBGROUP JOIN 3000",
    "SET PORT GROUP CCBGROUP LEAVE 2A00", "SET PORT GROUP CCBGROUP DELETE",
    "SET PORT GROUP CCBGROUP JOIN 1 2 3 4 5 6 7 8 9", "COUPLE USERID LNXA F000 TO SYSTEM CCBVSW1",
    "COUPLE USERID NOBODY F000 TO SYSTEM CCBVSW1", "UNCOUPLE USERID LNXC F000",
    "DETACH NIC USERID LNXA 0700", "DEFINE NIC USERID LNXA F001", "DETACH VSWITCH NOSUCH",
    "DEFINE VSWITCH", "FROBNICATE CCBVSW1", "COUPLE USERID LNXA XYZW TO SYSTEM CCBVSW1",
};

static char *snapshot(struct herm *h)
{
    static const char *const q[] = {
        "QUERY VSWITCH ALL ACCESSLIST", "QUERY PORT GROUP", "QUERY VMLAN",
        "QUERY NIC USERID OPERATOR DETAILS", "QUERY NIC USERID LNXA DETAILS",
        "QUERY NIC USERID LNXB DETAILS", "QUERY NIC USERID LNXC DETAILS",
    };
    size_t cap = 65536, len = 0;
    char *s = calloc(1, cap);
    for (size_t i = 0; i < sizeof q / sizeof q[0]; i++) {
        int rc;
        const char *out = herm_cp(h, "OPERATOR", "ABCDEFG", q[i], &rc);
        len += (size_t)snprintf(s + len, cap - len, "%s\n", out);
    }
    return s;
}

/* Issue 15: a group member that cannot be opened, or has no carrier, or whose partner
 * has stopped answering is shown with its state and why in every QUERY, and counts as a
 * member. 2C00 maps to osa2c00, which the lab does not have (SYSTEM-CCB.CONFIG). Each
 * member is an RDEV line in IBM's shape (RDEV: / VDEV: / Controller:); the state and
 * reason after it are ours (z/VM's texts for these states were not found). */
static void failed_members_shown_with_reason(void **state)
{
    struct herm *h = ccb_start();
    type_report_sequence(h);
    herm_warp(h, 3.0);
    assert_string_equal(herm_op(h, "SET PORT GROUP CCBGROUP JOIN 2C00"),
                        "Command complete\n"
                        "Warning: port group CCBGROUP: device 2C00 cannot be opened: "
                        "interface osa2c00: No such device");
    const char *q = herm_op(h, "QUERY PORT GROUP CCBGROUP");
    assert_non_null(strstr(q, "LACP: ACTIVE  Interval: 30  Members: 3  Distributing: 2\n"));
    assert_non_null(strstr(q, "\n  RDEV 2C00     NOT READY  interface osa2c00: No such device"));
    q = herm_op(h, "QUERY VSWITCH CCBVSW1");
    assert_non_null(strstr(q, "\n  Port Group: CCBGROUP LACP: ACTIVE   Interval: 30    "
                              "Members: 3  Distributing: 2\n"));
    assert_non_null(strstr(q, "\n  RDEV: 2C00.P00 VDEV: 2C00 Controller: *        GROUP MEMBER  "
                              "Not ready: interface osa2c00: No such device"));
    /* Carrier down on 2902: its line says so, and the count keeps it. */
    herm_cut(h, "osa2902", false);
    herm_warp(h, 3.5);
    q = herm_op(h, "QUERY VSWITCH CCBVSW1 DETAILS");
    assert_non_null(strstr(q, "Members: 3  Distributing: 1\n"));
    assert_non_null(strstr(q, "\n  RDEV: 2902.P00 VDEV: 2902 Controller: *        GROUP MEMBER  "
                              "Inactive  NO CARRIER\n"));
    assert_non_null(strstr(q, "\n  RDEV: 2C00.P00 VDEV: 2C00 Controller: *        GROUP MEMBER  "
                              "Not ready: interface osa2c00: No such device\n"
                              "    Device: 2C02  Unit: 002   Role: DATA    Interface: osa2c00\n"));
    /* LEAVE takes it out of the count and the list. */
    herm_op(h, "SET PORT GROUP CCBGROUP LEAVE 2C00");
    q = herm_op(h, "QUERY PORT GROUP CCBGROUP");
    assert_non_null(strstr(q, "Members: 2  Distributing: 1\n"));
    assert_null(strstr(q, "2C00"));
    herm_stop(h);
}

/* The text with every run of blanks made one blank: the IBM report's example reached us
 * that way (a web page), so its lines are compared word for word, not column for column. */
static char *collapse(const char *text)
{
    char *out = malloc(strlen(text) + 1);
    size_t o = 0;
    for (const char *p = text; *p; p++) {
        if (*p == ' ' && (o == 0 || out[o - 1] == ' ' || out[o - 1] == '\n'))
            continue;
        if (*p == '\n' && o > 0 && out[o - 1] == ' ')
            o--;
        out[o++] = *p;
    }
    out[o] = 0;
    return out;
}

/* Issue 15: the response shapes typed from IBM's documents, never from our own output.
 * Sources (cp-commands/README.md "Responses" names them in full):
 *  [R]  issue 15's list of QUERY VSWITCH DETAILS lines (blanks collapsed; UNCONFIRMED:
 *       once attributed to IBM's "z/VM 5.3 Virtual Switch Link Aggregation" report,
 *       which shows no QUERY output, issue 21), with issue 21's VEPA Status. Our values
 *       replace the report's where they differ (MAC 02-00-0C-00-00-00, QueueStorage 1,
 *       RDEV 28BA/2902 driven by no controller VM: VDEV 28BA, Controller *); Type: is QDIO
 *       as z/VM 6 and later print it ([X]), not the report's VSWITCH.
 *  [X]  xCAT, IBM's z/VM management code (xCAT-server zvmUtils.pm and its rinv/lsvm
 *       documentation) quoting z/VM's responses column for column: "VSWITCH SYSTEM
 *       XCATVSW1 Type: QDIO    Connected: 2    Maxconn: INFINITE", "  PERSISTENT
 *       UNRESTRICTED  IP                        Accounting: OFF"; and QUERY VMLAN read
 *       after "VMLAN MAC address assignment:" from the line "  MACADDR Prefix: ".
 * What is ours (the Port Group line, the member states and reasons, the Device line's
 * Interface:, QUERY PORT GROUP) is not asserted here. */
static void ibm_shapes_typed_from_sources(void **state)
{
    struct herm *h = ccb_start();
    type_report_sequence(h);
    herm_warp(h, 10.0);
    char *q = collapse(herm_op(h, "QUERY VSWITCH CCBVSW1 DETAILS"));
    /* [R], in the report's order, each line whole. */
    static const char *const report[] = {
        "VSWITCH SYSTEM CCBVSW1 Type: QDIO Connected: 2 Maxconn: INFINITE\n",
        "\nPERSISTENT RESTRICTED ETHERNET Accounting: OFF\n",
        "\nVLAN Unaware\n",
        "\nMAC address: 02-00-0C-00-00-00 MAC Protection: Unspecified\n",
        "\nIPTimeout: 5 QueueStorage: 1\n",
        "\nIsolation Status: OFF VEPA Status: OFF\n",      /* issue 21: VEPA beside it */
        "\nUplink Port:\nState: Ready\n",
        "\nRDEV: 28BA.P00 VDEV: 28BA Controller: * ",
        "\nRDEV: 2902.P00 VDEV: 2902 Controller: * ",
    };
    const char *at = q;
    for (size_t i = 0; i < sizeof report / sizeof report[0]; i++) {
        const char *f = strstr(at, report[i]);
        if (!f)
            fail_msg("[R] line %zu \"%s\" not found (in order) in:\n%s", i, report[i], q);
        at = f + 1;
    }
    free(q);
    /* [X]: the header's and the attribute line's columns. */
    const char *raw = herm_op(h, "QUERY VSWITCH CCBVSW1");
    assert_memory_equal(raw, "VSWITCH SYSTEM CCBVSW1  Type: QDIO    Connected: 2    "
                             "Maxconn: INFINITE\n", 72);
    const char *l2 = strchr(raw, '\n') + 1;
    assert_memory_equal(l2, "  PERSISTENT  ", 14);
    assert_memory_equal(l2 + 28, "ETHERNET", 8);        /* where [X] has "IP" */
    assert_memory_equal(l2 + 54, "Accounting: OFF\n", 16);
    /* [X]: QUERY VMLAN's prefix line, found as xCAT's IVP finds it (zxcatIVP.pl
     * verifyMACUserPrefix: the lines after "VMLAN MAC address assignment:", the one with
     * "  MACADDR Prefix:", its sixth word: USER Prefix's value). */
    const char *v = herm_op(h, "QUERY VMLAN");
    const char *blk = strstr(v, "VMLAN MAC address assignment:\n");
    assert_non_null(blk);
    assert_non_null(strstr(blk, "\n  MACADDR Prefix: 02000C  USER Prefix: 02000C\n"));
    char w[6][16];
    assert_int_equal(sscanf(strstr(blk, "  MACADDR Prefix:"), "%15s %15s %15s %15s %15s %15s",
                            w[0], w[1], w[2], w[3], w[4], w[5]), 6);
    assert_string_equal(w[5], "02000C");
    /* Issue 15's list for QUERY VMLAN: maintenance level, accounting, PERSISTENT and
     * TRANSIENT (labels as the issue names them; the layout of these lines is ours). */
    assert_non_null(strstr(v, "VMLAN maintenance level:\n"));
    assert_non_null(strstr(v, "VMLAN default accounting status:\n"));
    assert_non_null(strstr(v, "\n  PERSISTENT Limit: INFINITE"));
    assert_non_null(strstr(v, "\n  TRANSIENT  Limit: INFINITE"));
    /* Issue 15: our LACP detail is not appended to IBM's response; QUERY LACP has it. */
    assert_null(strstr(herm_op(h, "QUERY VSWITCH CCBVSW1 DETAILS"), "Actor:"));
    assert_non_null(strstr(herm_op(h, "QUERY LACP CCBGROUP DETAILS"), "Actor:"));
    herm_stop(h);
}

static void refused_commands_change_nothing(void **state)
{
    struct herm *h = ccb_start();
    int rc;
    char log[16384];
    size_t len = 0;
    /* The lab's refused.txt starts with the first QUERY and the ungranted COUPLE. */
    const char *out = herm_cp(h, "OPERATOR", "ABCDEFG", "QUERY VSWITCH", &rc);
    len += (size_t)snprintf(log + len, sizeof log - len, "> QUERY VSWITCH\n%s\nrc=%d\n", out, rc);
    type_report_sequence(h);
    len += (size_t)snprintf(log + len, sizeof log - len,
                            "> COUPLE USERID LNXC F000 TO SYSTEM CCBVSW1\n"
                            "ZVSVSW1121E User LNXC is not authorized to couple to VSWITCH CCBVSW1\n"
                            "rc=255\n");
    herm_warp(h, 5.0);
    char *before = snapshot(h);
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        out = herm_cp(h, "OPERATOR", "ABCDEFG", refused[i], &rc);
        len += (size_t)snprintf(log + len, sizeof log - len, "> %s\n%s\nrc=%d\n", refused[i],
                                out, rc > 255 ? 255 : rc);
    }
    herm_golden_lab("tests/golden/commands/refused.txt", log);
    char *after = snapshot(h);
    assert_string_equal(before, after);
    free(before);
    free(after);
    herm_stop(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(report_sequence_and_queries),
        cmocka_unit_test(refused_commands_change_nothing),
        cmocka_unit_test(failed_members_shown_with_reason),
        cmocka_unit_test(ibm_shapes_typed_from_sources),
    };
    return cmocka_run_group_tests_name("daemon_ccb", tests, NULL, NULL);
}
