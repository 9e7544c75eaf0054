/* Hercules machines in the directory (issue 13): IPL, GUESTIP and NICBIND LCS parse,
 * check and dump; the LCS tap MAC rule holds with sequential MACIDs; a TRUNK grant for an
 * LCS NIC is refused. The machine commands are the command grammar's: test_command.c. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp-commands/cfg_apply.h"
#include "cp-commands/command.h"
#include "cp-commands/config.h"
#include "tests/unit/cfg_text.h"

#define SC "VMLAN MACPREFIX 02000C\n" \
           "DEFINE VSWITCH SW1 RDEV NONE\n" \
           "DEFINE VSWITCH SW2 RDEV NONE VLAN AWARE PORTTYPE TRUNK\n"

static struct zvs_cfg *run(const char *ud)
{
    struct zvs_cfg *cfg = zvs_cfg_new();
    assert_non_null(cfg);
    assert_true(zvs_cfg_parse_sysconfig_text(cfg, "SYSTEM.CONFIG", SC) >= 0);
    assert_true(zvs_cfg_parse_userdirect_text(cfg, "USER.DIRECT", ud) >= 0);
    assert_true(zvs_cfg_validate(cfg) >= 0);
    return cfg;
}

static void expect_msgs(const struct zvs_cfg *cfg, const char *const *exp)
{
    unsigned n = 0, k = 0;
    while (exp[n] != NULL)
        n++;
    /* ZVSCFG1057W (a NIC with no GRANT) is beside the point here. */
    for (unsigned i = 0; i < cfg->msgs.n; i++) {
        if (strstr(cfg->msgs.msg[i].text, "ZVSCFG1057W") != NULL)
            continue;
        print_message("  got: %s\n", cfg->msgs.msg[i].text);
        assert_true(k < n);
        assert_string_equal(cfg->msgs.msg[i].text, exp[k]);
        k++;
    }
    assert_int_equal(k, n);
}

static void test_parse_and_dump(void **state)
{
    struct zvs_cfg *cfg = run(
        "USER FP1 PW 16M 16M G\n"
        " IPL frameprog\n"
        " GUESTIP 10.77.0.50/24 GATEWAY 10.77.0.1\n"
        " NICDEF 0600 TYPE QDIO LAN SYSTEM SW1\n"
        " NICBIND 0600 LCS 0600\n"
        "USER LNX1 PW 512M 1G G\n"
        " IPL INS /srv/guests/lnx1/linux.ins\n"
        " GUESTIP 10.77.0.60/24\n"
        " NICDEF 0600 TYPE QDIO LAN SYSTEM SW1\n"
        " NICBIND 0600 LCS 600\n"
        "USER NS1 PW 1M 1M G\n"
        " NICDEF F000 TYPE QDIO LAN SYSTEM SW1\n"
        " NICBIND F000 TAP ns1tap\n");
    expect_msgs(cfg, (const char *const[]){ NULL });
    char *d = cfg_dump_text(cfg);
    /* Sequential system MACIDs: FP1 takes 000002 (its tap 000001), LNX1 000004 (tap
     * 000003), NS1 000005; no NIC gets a tap's MAC. */
    assert_non_null(strstr(d, "USER FP1 STORAGE 16M MAXSTORAGE 16M CLASSES G IPL FRAMEPROG "
                              "GUESTIP 10.77.0.50/24 GATEWAY 10.77.0.1\n"));
    assert_non_null(strstr(d, "  NICDEF 0600 TYPE QDIO DEVICES 3 LAN SYSTEM SW1 MACID 000002 "
                              "SYSTEM MAC 02-00-0C-00-00-02 NICBIND LCS 0600\n"));
    assert_non_null(strstr(d, "USER LNX1 STORAGE 512M MAXSTORAGE 1G CLASSES G IPL INS "
                              "/srv/guests/lnx1/linux.ins GUESTIP 10.77.0.60/24\n"));
    assert_non_null(strstr(d, "MACID 000004 SYSTEM MAC 02-00-0C-00-00-04 NICBIND LCS 0600\n"));
    assert_non_null(strstr(d, "MACID 000005 SYSTEM MAC 02-00-0C-00-00-05 NICBIND TAP ns1tap\n"));
    uint8_t tap[6];
    zvs_lcs_tap_mac(cfg->nic[0].mac, tap);
    assert_memory_equal(tap, ((uint8_t[]){ 0x02, 0x00, 0x0C, 0x00, 0x00, 0x01 }), 6);
    for (unsigned i = 0; i < cfg->nnic; i++)
        for (unsigned j = 0; j < cfg->nnic; j++) {
            if (cfg->nic[j].backend != ZVS_NIC_BACKEND_LCS)
                continue;
            zvs_lcs_tap_mac(cfg->nic[j].mac, tap);
            assert_memory_not_equal(cfg->nic[i].mac, tap, 6);
        }
    free(d);
    zvs_cfg_free(cfg);
}

static void test_statement_errors(void **state)
{
    struct zvs_cfg *cfg = run(
        "IPL FRAMEPROG\n"
        "USER FP1 PW 16M 16M G\n"
        " IPL FRAME.PROG\n"
        " IPL INS relative/path.ins\n"
        " IPL 0190 PARM AUTOCR\n"
        " GUESTIP 10.77.0.300/24\n"
        " GUESTIP 10.77.0.50/33\n"
        " GUESTIP 10.77.0.50/24 GATEWAY nowhere\n"
        " NICDEF 0600 TYPE QDIO LAN SYSTEM SW1\n"
        " NICBIND 0600 LCS 0601\n"
        " NICBIND 0600 LCS 0600 QDIO\n");
    expect_msgs(cfg, (const char *const[]){
        "USER.DIRECT:1: ZVSCFG1020E Statement IPL is not within a USER entry",
        "USER.DIRECT:3: ZVSCFG1003E Operand IPL value FRAME.PROG is not valid (a guest image name (1-16 of A-Z 0-9 _ -) or INS path)",
        "USER.DIRECT:4: ZVSCFG1003E Operand INS value relative/path.ins is not valid (an absolute path of 1-200 characters)",
        "USER.DIRECT:5: ZVSCFG1004E Operand PARM is not recognized by IPL",
        "USER.DIRECT:5: ZVSCFG1004E Operand AUTOCR is not recognized by IPL",
        "USER.DIRECT:6: ZVSCFG1003E Operand GUESTIP value 10.77.0.300/24 is not valid (a.b.c.d/n (n 1-32))",
        "USER.DIRECT:7: ZVSCFG1003E Operand GUESTIP value 10.77.0.50/33 is not valid (a.b.c.d/n (n 1-32))",
        "USER.DIRECT:8: ZVSCFG1003E Operand GATEWAY value nowhere is not valid (an IPv4 address a.b.c.d)",
        "USER.DIRECT:10: ZVSCFG1003E Operand LCS value 0601 is not valid (1-4 hex digits, even (the read device; write is +1))",
        "USER.DIRECT:11: ZVSCFG1006E Operand QDIO conflicts with LCS",
        NULL });
    zvs_cfg_free(cfg);
}

static void test_entry_checks(void **state)
{
    struct zvs_cfg *cfg = run(
        "USER FP1 PW 16M 16M G\n"
        " IPL FRAMEPROG\n"
        " IPL LINUX\n"
        " NICDEF 0600 TYPE QDIO LAN SYSTEM SW1\n"
        " NICBIND 0600 LCS 0600\n"
        " NICDEF 0700 TYPE QDIO LAN SYSTEM SW1\n"
        " NICBIND 0700 LCS 0700\n"
        "USER FP2 PW 16M 16M G\n"
        " GUESTIP 10.0.0.2/8\n"
        " NICDEF 0600 TYPE QDIO LAN SYSTEM SW2\n"
        " NICBIND 0600 LCS 0600\n"
        "USER FP3 PW 16M 16M G\n"
        " GUESTIP 10.0.0.3/8\n"
        " NICDEF 0600 TYPE QDIO LAN SYSTEM SW1 MACID 000101\n"
        " NICBIND 0600 LCS 0600\n"
        "USER OTHER PW 16M 16M G\n"
        " NICDEF 0600 TYPE QDIO LAN SYSTEM SW1 MACID 000100\n"
        "USER SAME PW 16M 16M G\n"
        " NICDEF 0600 TYPE QDIO LAN SYSTEM SW1 MACID 000101\n");
    print_message("%s", "");
    expect_msgs(cfg, (const char *const[]){
        "USER.DIRECT:3: ZVSCFG1074E IPL is given twice in USER FP1; the first is on line 2",
        "USER.DIRECT:19: ZVSCFG1052E MAC 02-00-0C-00-01-01 of USER SAME NICDEF 0600 duplicates USER FP3 NICDEF 0600",
        "USER.DIRECT:17: ZVSCFG1073E MAC 02-00-0C-00-01-00 of the LCS tap of USER FP3 NICDEF 0600 is the MAC of USER OTHER NICDEF 0600",
        "USER.DIRECT:5: ZVSCFG1072E USER FP1 NICBIND 0600 LCS needs a GUESTIP statement",
        "USER.DIRECT:7: ZVSCFG1071E USER FP1 binds NIC 0700 to LCS; NIC 0600 is bound to LCS already (one per machine)",
        "USER.DIRECT:10: ZVSCFG1070E NICDEF 0600 of USER FP2 is bound to LCS, which carries no VLAN tags: it cannot be a TRUNK port (VSWITCH SW2 PORTTYPE TRUNK)",
        NULL });
    zvs_cfg_free(cfg);
}

static void test_grant_trunk_refused(void **state)
{
    struct zvs_cfg *cfg = run(
        "USER FP1 PW 16M 16M G\n"
        " IPL FRAMEPROG\n"
        " GUESTIP 10.77.0.50/24\n"
        " NICDEF 0600 TYPE QDIO LAN SYSTEM SW1\n"
        " NICBIND 0600 LCS 0600\n");
    expect_msgs(cfg, (const char *const[]){ NULL });
    struct zvs_cmd cmd;
    const struct zvs_issuer op = { "OPERATOR", ~0u };
    struct zvs_cp_response r;
    zvs_cp_response_init(&r);
    assert_int_equal(zvs_cmd_parse("DEFINE VSWITCH SW3 RDEV NONE VLAN AWARE", ~0u, &cmd, &r), 0);
    assert_int_equal(zvs_cfg_apply(cfg, &cmd, &op, &r), 0);
    zvs_cp_response_fini(&r);
    zvs_cp_response_init(&r);
    char *before = cfg_dump_text(cfg);
    assert_int_equal(zvs_cmd_parse("SET VSWITCH SW3 GRANT FP1 PORTTYPE TRUNK VLAN 10", ~0u, &cmd, &r), 0);
    assert_true(zvs_cfg_apply(cfg, &cmd, &op, &r) < 0);
    assert_string_equal(r.text, "ZVSGST1160E NIC 0600 of user FP1 is bound to LCS, which carries no "
                                "VLAN tags: it cannot be a TRUNK port\n");
    assert_int_equal(r.rc, 1160);
    char *after = cfg_dump_text(cfg);
    assert_string_equal(before, after);
    free(before);
    free(after);
    zvs_cp_response_fini(&r);
    zvs_cp_response_init(&r);
    assert_int_equal(zvs_cmd_parse("SET VSWITCH SW3 GRANT FP1 VLAN 10", ~0u, &cmd, &r), 0);
    assert_int_equal(zvs_cfg_apply(cfg, &cmd, &op, &r), 0);
    zvs_cp_response_fini(&r);
    zvs_cfg_free(cfg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_and_dump),
        cmocka_unit_test(test_statement_errors),
        cmocka_unit_test(test_entry_checks),
        cmocka_unit_test(test_grant_trunk_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
