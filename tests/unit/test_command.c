/* Tests of the CP command parser (cp-commands/command.c) and its message catalogue.
 *
 * Every command with every operand, each keyword at its shortest accepted abbreviation
 * and one letter shorter (refused, exact message), privilege refusals, and every refused
 * command of tests/golden/commands/errors.txt with its exact response, compared byte for
 * byte. Every accepted command of tests/golden/commands/canonical.txt formats to its
 * canonical text, which parses back to the identical struct. DEFINE VSWITCH and GRANT
 * are checked against the SYSTEM CONFIG parser they share: same struct, same messages.
 * A failing parse must leave *cmd byte-for-byte as it was; a successful one writes
 * nothing to the response and fills every byte of *cmd (padding too) the same way.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp-commands/command.h"

#define GOLDEN_ERRORS    "tests/golden/commands/errors.txt"
#define GOLDEN_CANONICAL "tests/golden/commands/canonical.txt"

static uint32_t classes(const char *letters)
{
    uint32_t m = 0;
    for (; *letters != '\0'; letters++)
        m |= ZVS_PRIVCLASS(*letters);
    return m;
}

#define ALL_CLASSES classes("ABCDEFG")

/* Parses a line that must be accepted into *cmd; the response must stay empty. */
static void parse_into(const char *line, uint32_t privclass, struct zvs_cmd *cmd)
{
    struct zvs_cp_response r;

    memset(cmd, 0xA5, sizeof *cmd);
    zvs_cp_response_init(&r);
    int rc = zvs_cmd_parse(line, privclass, cmd, &r);
    if (rc != 0)
        fail_msg("refused: \"%s\": %s", line, r.text);
    assert_int_equal(r.len, 0);
    assert_int_equal(r.rc, 0);
    zvs_cp_response_fini(&r);
}

/* The same, returning the struct (its padding is then undefined: compare members). */
static struct zvs_cmd parse_ok(const char *line, uint32_t privclass)
{
    struct zvs_cmd cmd;
    parse_into(line, privclass, &cmd);
    return cmd;
}

/* Parses a line that must be refused with exactly `expect` (one line, no newline) and
 * rc; *cmd must be untouched. */
static void parse_bad(const char *line, uint32_t privclass, const char *expect, int rc)
{
    struct zvs_cmd cmd, before;
    struct zvs_cp_response r;
    char want[600];

    memset(&cmd, 0x5A, sizeof cmd);
    memcpy(&before, &cmd, sizeof cmd);
    zvs_cp_response_init(&r);
    if (zvs_cmd_parse(line, privclass, &cmd, &r) >= 0)
        fail_msg("accepted: \"%s\"", line);
    snprintf(want, sizeof want, "%s\n", expect);
    assert_string_equal(r.text, want);
    assert_int_equal(r.len, strlen(want));
    assert_int_equal(r.rc, rc);
    assert_memory_equal(&cmd, &before, sizeof cmd);
    zvs_cp_response_fini(&r);
}

/* The line parses to the same bytes whatever *cmd held before (padding included). */
static void expect_clean(const char *line, uint32_t privclass)
{
    struct zvs_cmd a, b;
    struct zvs_cp_response r;

    memset(&a, 0x00, sizeof a);
    memset(&b, 0xFF, sizeof b);
    zvs_cp_response_init(&r);
    assert_int_equal(zvs_cmd_parse(line, privclass, &a, &r), 0);
    assert_int_equal(zvs_cmd_parse(line, privclass, &b, &r), 0);
    assert_int_equal(r.len, 0);
    zvs_cp_response_fini(&r);
    assert_memory_equal(&a, &b, sizeof a);
}

/* Both lines parse to byte-identical structs (the parser copies out a zeroed struct, so
 * padding compares too). */
static void expect_same(const char *a, const char *b, uint32_t privclass)
{
    struct zvs_cmd ca, cb;
    parse_into(a, privclass, &ca);
    parse_into(b, privclass, &cb);
    assert_memory_equal(&ca, &cb, sizeof ca);
}

static void test_grammar_check(void **state)
{
    assert_int_equal(zvs_cmd_grammar_check(), 0);
}

/* ---- each command, each operand ------------------------------------------------------ */

static void test_set_port_group_join(void **state)
{
    struct zvs_cmd c = parse_ok("SET PORT GROUP CCBGROUP JOIN 28BA 2902", ALL_CLASSES);
    assert_int_equal(c.verb, ZVS_CMD_SET_PORT_GROUP);
    assert_string_equal(c.name, "CCBGROUP");
    assert_int_equal(c.pg_op, ZVS_CMD_PG_JOIN);
    assert_int_equal(c.nrdev, 2);
    assert_int_equal(c.rdev[0].devno, 0x28BA);
    assert_int_equal(c.rdev[0].port, 0);
    assert_int_equal(c.rdev[1].devno, 0x2902);
    assert_false(c.details);
    assert_int_equal(c.interval_s, 0);

    c = parse_ok("SET PORT GROUP G1 JOIN 1 2 3 4 5 6 7 300.P1", ALL_CLASSES);
    assert_int_equal(c.nrdev, 8);
    assert_int_equal(c.rdev[6].devno, 7);
    assert_int_equal(c.rdev[7].devno, 0x300);
    assert_int_equal(c.rdev[7].port, 1);
    /* Same device number on two OSA ports is two devices. */
    c = parse_ok("SET PORT GROUP G1 JOIN 300 300.P1", ALL_CLASSES);
    assert_int_equal(c.nrdev, 2);
}

static void test_set_port_group_leave(void **state)
{
    struct zvs_cmd c = parse_ok("SET PORT GROUP G#$@9 LEAVE 2902.PF", ALL_CLASSES);
    assert_int_equal(c.verb, ZVS_CMD_SET_PORT_GROUP);
    assert_string_equal(c.name, "G#$@9");
    assert_int_equal(c.pg_op, ZVS_CMD_PG_LEAVE);
    assert_int_equal(c.nrdev, 1);
    assert_int_equal(c.rdev[0].devno, 0x2902);
    assert_int_equal(c.rdev[0].port, 0xF);
}

static void test_set_port_group_lacp(void **state)
{
    struct zvs_cmd c = parse_ok("SET PORT GROUP G1 LACP ACTIVE", ALL_CLASSES);
    assert_int_equal(c.pg_op, ZVS_CMD_PG_LACP);
    assert_true(c.lacp_active);
    assert_int_equal(c.nrdev, 0);
    c = parse_ok("SET PORT GROUP G1 LACP INACTIVE", ALL_CLASSES);
    assert_int_equal(c.pg_op, ZVS_CMD_PG_LACP);
    assert_false(c.lacp_active);
}

/* SHARED gives the group to the IVL domain (cfg_apply_group.c says whether it can be);
 * EXCLUSIVE, the default, or nothing takes it back. */
static void test_set_port_group_shared(void **state)
{
    struct zvs_cmd c = parse_ok("SET PORT GROUP G1 LACP ACTIVE SHARED", ALL_CLASSES);
    assert_int_equal(c.pg_op, ZVS_CMD_PG_LACP);
    assert_true(c.lacp_active);
    assert_true(c.lacp_shared);
    c = parse_ok("SET PORT GROUP G1 LACP ACTIVE EXCLUSIVE", ALL_CLASSES);
    assert_false(c.lacp_shared);
    c = parse_ok("SET PORT GROUP G1 LACP INACTIVE", ALL_CLASSES);
    assert_false(c.lacp_shared);
}

/* SET VSWITCH ivlsw IVLPORT HEARTBEAT TIMEOUT s ([SV]'s IVLPort options): 1-300 s. */
static void test_set_vswitch_ivlport(void **state)
{
    struct zvs_cmd c = parse_ok("SET VSWITCH IVLVSW IVLPORT HEARTBEAT TIMEOUT 5", ALL_CLASSES);
    assert_int_equal(c.verb, ZVS_CMD_SET_VSWITCH);
    assert_int_equal(c.vs_op, ZVS_CMD_VS_IVLPORT_HEARTBEAT);
    assert_int_equal(c.heartbeat_s, 5);
    c = parse_ok("SET VSWITCH IVLVSW IVLP HEART TIME 300", ALL_CLASSES);
    assert_int_equal(c.heartbeat_s, 300);
}

static void test_set_port_group_interval(void **state)
{
    struct zvs_cmd c = parse_ok("SET PORT GROUP CCBGROUP INTERVAL 30", ALL_CLASSES);
    assert_int_equal(c.pg_op, ZVS_CMD_PG_INTERVAL);
    assert_int_equal(c.interval_s, 30);
    /* Rounded up to the next multiple of 30 s (SWPBK's SWPINTSC, "rounded to next higher
     * multiple of 30 seconds"). */
    assert_int_equal(parse_ok("SET PORT GROUP G1 INTERVAL 1", ALL_CLASSES).interval_s, 30);
    assert_int_equal(parse_ok("SET PORT GROUP G1 INTERVAL 29", ALL_CLASSES).interval_s, 30);
    assert_int_equal(parse_ok("SET PORT GROUP G1 INTERVAL 31", ALL_CLASSES).interval_s, 60);
    assert_int_equal(parse_ok("SET PORT GROUP G1 INTERVAL 60", ALL_CLASSES).interval_s, 60);
    assert_int_equal(parse_ok("SET PORT GROUP G1 INTERVAL 9961", ALL_CLASSES).interval_s, 9990);
    assert_int_equal(parse_ok("SET PORT GROUP G1 INTERVAL 9990", ALL_CLASSES).interval_s, 9990);
    assert_int_equal(parse_ok("SET PORT GROUP G1 INTERVAL 0300", ALL_CLASSES).interval_s, 300);
    c = parse_ok("SET PORT GROUP G1 INTERVAL OFF", ALL_CLASSES);
    assert_int_equal(c.pg_op, ZVS_CMD_PG_INTERVAL);
    assert_int_equal(c.interval_s, 0);
}

/* POLICY (ours): LOAD [TOTAL | OUTBOUND] | LBT [n]; what is not given takes its default,
 * as in SYSTEM CONFIG. */
static void test_set_port_group_policy(void **state)
{
    struct zvs_cmd c = parse_ok("SET PORT GROUP CCBGROUP POLICY LOAD OUTBOUND", ALL_CLASSES);
    assert_int_equal(c.pg_op, ZVS_CMD_PG_POLICY);
    assert_int_equal(c.policy, ZVS_CFG_POLICY_LOAD);
    assert_int_equal(c.load, ZVS_CFG_LOAD_OUTBOUND);
    assert_int_equal(c.lbt_percent, 75);
    c = parse_ok("set port group g1 policy load", ALL_CLASSES);
    assert_int_equal(c.policy, ZVS_CFG_POLICY_LOAD);
    assert_int_equal(c.load, ZVS_CFG_LOAD_TOTAL);
    c = parse_ok("SET PORT GROUP G1 POLICY LOAD TOTAL", ALL_CLASSES);
    assert_int_equal(c.load, ZVS_CFG_LOAD_TOTAL);
    c = parse_ok("SET PORT GROUP G1 POLICY LBT", ALL_CLASSES);
    assert_int_equal(c.policy, ZVS_CFG_POLICY_LBT);
    assert_int_equal(c.lbt_percent, 75);
    assert_int_equal(c.load, ZVS_CFG_LOAD_TOTAL);
    assert_int_equal(parse_ok("SET PORT GROUP G1 POLICY LBT 60", ALL_CLASSES).lbt_percent, 60);
    assert_int_equal(parse_ok("SET PORT GROUP G1 POLICY LBT 100", ALL_CLASSES).lbt_percent, 100);
    parse_bad("SET PORT GROUP G1 POLICY LOAD INBOUND", ALL_CLASSES,
              "ZVSCMD1105E Invalid POLICY LOAD value - INBOUND; valid: TOTAL, OUTBOUND", 1105);
    parse_bad("SET PORT GROUP G1 POLICY LOAD OUT", ALL_CLASSES,
              "ZVSCMD1105E Invalid POLICY LOAD value - OUT; valid: TOTAL, OUTBOUND", 1105);
    parse_bad("SET PORT GROUP G1 POLICY LBT 0", ALL_CLASSES,
              "ZVSCMD1105E Invalid POLICY LBT value - 0; valid: 1-100", 1105);
    parse_bad("SET PORT GROUP G1 POLICY LBT TOTAL", ALL_CLASSES,
              "ZVSCMD1105E Invalid POLICY LBT value - TOTAL; valid: 1-100", 1105);
    parse_bad("SET PORT GROUP G1 POLICY ROUNDROBIN", ALL_CLASSES,
              "HCPCMD003E Invalid option - ROUNDROBIN", 3);
    parse_bad("SET PORT GROUP G1 POL LOAD", ALL_CLASSES, "HCPCMD003E Invalid option - POL", 3);
}

static void test_query_port_group(void **state)
{
    struct zvs_cmd c = parse_ok("QUERY PORT GROUP", ALL_CLASSES);
    assert_int_equal(c.verb, ZVS_CMD_QUERY_PORT_GROUP);
    assert_string_equal(c.name, "");
    c = parse_ok("QUERY PORT GROUP ALL", ALL_CLASSES);
    assert_string_equal(c.name, "");
    c = parse_ok("QUERY PORT GROUP ccbgroup", ALL_CLASSES);
    assert_string_equal(c.name, "CCBGROUP");
    assert_false(c.details);
    /* ALL is three letters; AL is a name. */
    assert_string_equal(parse_ok("Q PORT GROUP AL", ALL_CLASSES).name, "AL");
    /* ACTIVE and DETAILS (s390-tools' dbginfo.sh: "q port group all active details"):
     * keywords, so DET alone is DETAILS, not a group named DET (issue 21); a group named
     * DET is Q PORT GROUP DET DET. */
    c = parse_ok("Q PORT GROUP DET", ALL_CLASSES);
    assert_string_equal(c.name, "");
    assert_true(c.details);
    c = parse_ok("q port group all active details", ALL_CLASSES);
    assert_string_equal(c.name, "");
    assert_int_equal(c.level, ZVS_CMD_LEVEL_ACTIVE);
    assert_true(c.details);
    c = parse_ok("Q PORT GROUP DET DET", ALL_CLASSES);
    assert_string_equal(c.name, "DET");
    assert_true(c.details);
    c = parse_ok("Q PORT GROUP ACT", ALL_CLASSES);
    assert_string_equal(c.name, "");
    assert_int_equal(c.level, ZVS_CMD_LEVEL_ACTIVE);
    parse_bad("Q PORT GROUP G1 DETAILS ACTIVE", ALL_CLASSES,
              "HCPSWP003E Invalid option - ACTIVE", 3);
    /* QUERY VSWITCH ... CONTROLLER | PROMISCUOUS (dbginfo.sh): levels, not names. */
    c = parse_ok("q vswitch controller", ALL_CLASSES);
    assert_string_equal(c.name, "");
    assert_int_equal(c.level, ZVS_CMD_LEVEL_CONTROLLER);
    c = parse_ok("Q VSW SW1 PROM", ALL_CLASSES);
    assert_string_equal(c.name, "SW1");
    assert_int_equal(c.level, ZVS_CMD_LEVEL_PROMISCUOUS);
}

static void test_query_lacp(void **state)
{
    struct zvs_cmd c = parse_ok("QUERY LACP", ALL_CLASSES);
    assert_int_equal(c.verb, ZVS_CMD_QUERY_LACP);
    assert_string_equal(c.name, "");
    assert_false(c.details);
    c = parse_ok("QUERY LACP ALL DETAILS", ALL_CLASSES);
    assert_string_equal(c.name, "");
    assert_true(c.details);
    c = parse_ok("QUERY LACP DETAILS", ALL_CLASSES);
    assert_string_equal(c.name, "");
    assert_true(c.details);
    c = parse_ok("QUERY LACP G1", ALL_CLASSES);
    assert_string_equal(c.name, "G1");
    assert_false(c.details);
    c = parse_ok("QUERY LACP G1 DET", ALL_CLASSES);
    assert_string_equal(c.name, "G1");
    assert_true(c.details);
    /* A group called DET: the name comes first when both are given. */
    c = parse_ok("QUERY LACP DET DET", ALL_CLASSES);
    assert_string_equal(c.name, "DET");
    assert_true(c.details);
}

static void test_query_vswitch(void **state)
{
    struct zvs_cmd c = parse_ok("QUERY VSWITCH", ALL_CLASSES);
    assert_int_equal(c.verb, ZVS_CMD_QUERY_VSWITCH);
    assert_string_equal(c.name, "");
    assert_int_equal(c.level, ZVS_CMD_LEVEL_BRIEF);
    assert_false(c.details);                /* details is QUERY LACP's and QUERY NIC's */
    c = parse_ok("QUERY VSWITCH CCBVSW1 DETAILS", ALL_CLASSES);
    assert_string_equal(c.name, "CCBVSW1");
    assert_int_equal(c.level, ZVS_CMD_LEVEL_DETAILS);
    assert_false(c.details);
    c = parse_ok("Q VSWITCH ALL", ALL_CLASSES);
    assert_string_equal(c.name, "");
    assert_int_equal(c.level, ZVS_CMD_LEVEL_BRIEF);
    c = parse_ok("q vSwItCh ccbvsw1 dEtAiLs", ALL_CLASSES);
    assert_string_equal(c.name, "CCBVSW1");
    assert_int_equal(c.level, ZVS_CMD_LEVEL_DETAILS);
    c = parse_ok("QUERY VSWITCH SW1 ACCESSLIST", ALL_CLASSES);
    assert_string_equal(c.name, "SW1");
    assert_int_equal(c.level, ZVS_CMD_LEVEL_ACCESSLIST);
    c = parse_ok("QUERY VSWITCH ALL ACTIVE", ALL_CLASSES);
    assert_string_equal(c.name, "");
    assert_int_equal(c.level, ZVS_CMD_LEVEL_ACTIVE);
    /* The last-token rule: a lone level keyword is the level, for every switch. */
    c = parse_ok("Q VSW ACC", ALL_CLASSES);
    assert_string_equal(c.name, "");
    assert_int_equal(c.level, ZVS_CMD_LEVEL_ACCESSLIST);
    c = parse_ok("Q VSW ACT", ALL_CLASSES);
    assert_string_equal(c.name, "");
    assert_int_equal(c.level, ZVS_CMD_LEVEL_ACTIVE);
    c = parse_ok("Q VSW DET", ALL_CLASSES);
    assert_string_equal(c.name, "");
    assert_int_equal(c.level, ZVS_CMD_LEVEL_DETAILS);
    /* A switch called ACT: the name comes first when both are given. */
    c = parse_ok("Q VSW ACT ACT", ALL_CLASSES);
    assert_string_equal(c.name, "ACT");
    assert_int_equal(c.level, ZVS_CMD_LEVEL_ACTIVE);
    /* AC abbreviates neither ACCESSLIST nor ACTIVE: a switch name. */
    c = parse_ok("Q VSW AC", ALL_CLASSES);
    assert_string_equal(c.name, "AC");
    assert_int_equal(c.level, ZVS_CMD_LEVEL_BRIEF);
    /* Class G may ask too (the executor shows it only what it may see). */
    c = parse_ok("Q VSW SW1 ACTIVE", classes("G"));
    assert_int_equal(c.level, ZVS_CMD_LEVEL_ACTIVE);
}

static void test_set_lacp_fault(void **state)
{
    struct zvs_cmd c = parse_ok("SET LACP 28BA DROPRX ON", classes("A"));
    assert_int_equal(c.verb, ZVS_CMD_SET_LACP_FAULT);
    assert_int_equal(c.fault, ZVS_CMD_FAULT_DROPRX);
    assert_true(c.fault_on);
    assert_int_equal(c.nrdev, 1);
    assert_int_equal(c.rdev[0].devno, 0x28BA);
    c = parse_ok("SET LACP 2902.P1 DROPTX OFF", classes("A"));
    assert_int_equal(c.fault, ZVS_CMD_FAULT_DROPTX);
    assert_false(c.fault_on);
    assert_int_equal(c.rdev[0].port, 1);
    c = parse_ok("SET LACP 28BA DELAYTX 250", classes("A"));
    assert_int_equal(c.fault, ZVS_CMD_FAULT_DELAYTX);
    assert_int_equal(c.delay_ms, 250);
    assert_int_equal(parse_ok("SET LACP 28BA DELAYTX 0", classes("A")).delay_ms, 0);
    assert_int_equal(parse_ok("SET LACP 28BA DELAYTX 10000", classes("A")).delay_ms, 10000);
}

static void test_set_port_group_delete(void **state)
{
    struct zvs_cmd c = parse_ok("SET PORT GROUP CCBGROUP DELETE", ALL_CLASSES);
    assert_int_equal(c.verb, ZVS_CMD_SET_PORT_GROUP);
    assert_string_equal(c.name, "CCBGROUP");
    assert_int_equal(c.pg_op, ZVS_CMD_PG_DELETE);
    assert_int_equal(c.nrdev, 0);
    assert_int_equal(c.interval_s, 0);
    parse_bad("SET PORT GROUP G1 DELETE 28BA", ALL_CLASSES, "HCPCMD003E Invalid option - 28BA", 3);
    parse_bad("SET PORT GROUP G1 DELET", ALL_CLASSES, "HCPCMD003E Invalid option - DELET", 3);
}

/* ---- DEFINE VSWITCH: the SYSTEM CONFIG statement's operands ------------------------- */

static void test_define_vswitch_defaults(void **state)
{
    struct zvs_cmd c = parse_ok("DEFINE VSWITCH ccbvsw1", ALL_CLASSES);
    assert_int_equal(c.verb, ZVS_CMD_DEFINE_VSWITCH);
    assert_string_equal(c.name, "CCBVSW1");
    assert_string_equal(c.vsw.name, "CCBVSW1");
    assert_int_equal(c.vsw.line, 0);
    assert_int_equal(c.vsw.nrdev, 0);
    assert_false(c.vsw.nouplink);
    assert_true(c.vsw.connect);
    assert_false(c.vsw.vlan_aware);
    assert_int_equal(c.vsw.default_vid, 0);
    assert_int_equal(c.vsw.native_vid, 1);
    assert_int_equal(c.vsw.porttype, ZVS_PORTTYPE_ACCESS);
    assert_int_equal(c.vsw.queuestorage_mb, 8);
    assert_string_equal(c.vsw.controller, "*");
    assert_string_equal(c.vsw.group, "");
    assert_int_equal(c.vsw.macprotect, ZVS_MACPROTECT_UNSPECIFIED);
    assert_false(c.vsw.isolation);
    /* Nothing else of the struct is touched. */
    assert_int_equal(c.nrdev, 0);
    assert_string_equal(c.userid, "");
    assert_string_equal(c.target, "");
    assert_int_equal(c.devices, 0);
    expect_same("DEF VSWITCH CCBVSW1", "DEFINE VSWITCH CCBVSW1", ALL_CLASSES);
    expect_clean("DEFINE VSWITCH CCBVSW1 RDEV 300 400.P1", ALL_CLASSES);
}

static void test_define_vswitch_operands(void **state)
{
    struct zvs_cmd c = parse_ok("DEFINE VSWITCH SW1 RDEV 300 400.P1 2902 ETHERNET VLAN AWARE "
                                "NATIVE NONE PORTTYPE TRUNK QUEUESTORAGE 2M DISCONNECT "
                                "CONTROLLER dtcvsw1 GROUP ccbgroup MACPROTECT ON ISOLATION ON",
                                ALL_CLASSES);
    assert_int_equal(c.vsw.nrdev, 3);
    assert_int_equal(c.vsw.rdev[0].devno, 0x300);
    assert_int_equal(c.vsw.rdev[0].port, 0);
    assert_int_equal(c.vsw.rdev[1].devno, 0x400);
    assert_int_equal(c.vsw.rdev[1].port, 1);
    assert_int_equal(c.vsw.rdev[2].devno, 0x2902);
    assert_true(c.vsw.vlan_aware);
    assert_int_equal(c.vsw.default_vid, 1);
    assert_int_equal(c.vsw.native_vid, 0);
    assert_int_equal(c.vsw.porttype, ZVS_PORTTYPE_TRUNK);
    assert_int_equal(c.vsw.queuestorage_mb, 2);
    assert_false(c.vsw.connect);
    assert_string_equal(c.vsw.controller, "DTCVSW1");
    assert_string_equal(c.vsw.group, "CCBGROUP");
    assert_int_equal(c.vsw.macprotect, ZVS_MACPROTECT_ON);
    assert_true(c.vsw.isolation);

    c = parse_ok("DEF VSWITCH SW1 VLAN 100 NATIVE 200 QUEUESTORAGE 5", ALL_CLASSES);
    assert_true(c.vsw.vlan_aware);
    assert_int_equal(c.vsw.default_vid, 100);
    assert_int_equal(c.vsw.native_vid, 200);
    assert_int_equal(c.vsw.queuestorage_mb, 5);
    c = parse_ok("DEF VSWITCH SW1 NOUPLINK NOGROUP CONNECT MACPROTECT OFF ISOLATION OFF", ALL_CLASSES);
    assert_true(c.vsw.nouplink);
    assert_int_equal(c.vsw.nrdev, 0);
    assert_true(c.vsw.connect);
    assert_int_equal(c.vsw.macprotect, ZVS_MACPROTECT_OFF);
    c = parse_ok("DEF VSWITCH SW1 RDEV NONE VLAN UNAWARE PORTTYPE ACCESS MACPROTECT UNSPECIFIED",
                 ALL_CLASSES);
    assert_int_equal(c.vsw.nrdev, 0);
    assert_false(c.vsw.vlan_aware);
    c = parse_ok("def vswitch sw1 controller *", ALL_CLASSES);
    assert_string_equal(c.vsw.controller, "*");
    /* Any order. */
    expect_same("DEF VSWITCH SW1 ISOLATION ON RDEV 300 VLAN 7",
                "DEF VSWITCH SW1 VLAN 7 RDEV 300 ISOLATION ON", ALL_CLASSES);
}

/* The statement's operand keywords are not abbreviated (one syntax with SYSTEM CONFIG);
 * each refusal is the statement parser's own message, rc its number. */
static void test_define_vswitch_errors(void **state)
{
    parse_bad("DEFINE VSWITCH", ALL_CLASSES, "HCPCFC026E Operand missing or invalid", 26);
    parse_bad("DEFINE VSWITCH ALL", ALL_CLASSES, "HCPCMD002E Invalid operand - ALL", 2);
    parse_bad("DEFINE VSWITCH SW-1", ALL_CLASSES, "HCPCMD002E Invalid operand - SW-1", 2);
    parse_bad("DEFINE VSWITCH SW1 QUEUESTORAGE 9M", ALL_CLASSES,
              "ZVSCFG1003E Operand QUEUESTORAGE value 9M is not valid (1M-8M)", 1003);
    parse_bad("DEFINE VSWITCH SW1 RDEV 1 2 3 4", ALL_CLASSES,
              "ZVSCFG1008E Operand RDEV accepts at most 3 values; 4 is one too many", 1008);
    parse_bad("DEFINE VSWITCH SW1 RDEV", ALL_CLASSES, "ZVSCFG1007E Operand RDEV requires a value",
              1007);
    parse_bad("DEFINE VSWITCH SW1 RDEV 300 300", ALL_CLASSES,
              "ZVSCFG1003E Operand RDEV value 300 is not valid (device given twice)", 1003);
    parse_bad("DEFINE VSWITCH SW1 RDEV 30X", ALL_CLASSES,
              "ZVSCFG1003E Operand RDEV value 30X is not valid (hex device nnnn or nnnn.Pn)", 1003);
    parse_bad("DEFINE VSWITCH SW1 RDEV NONE 300", ALL_CLASSES,
              "ZVSCFG1003E Operand RDEV value NONE is not valid (NONE stands alone)", 1003);
    parse_bad("DEFINE VSWITCH SW1 NATIVE 5", ALL_CLASSES,
              "ZVSCFG1027E Operand NATIVE is not allowed: VSWITCH SW1 is VLAN UNAWARE", 1027);
    parse_bad("DEFINE VSWITCH SW1 VLAN 4095", ALL_CLASSES,
              "ZVSCFG1003E Operand VLAN value 4095 is not valid (UNAWARE, AWARE or 1-4094)", 1003);
    parse_bad("DEFINE VSWITCH SW1 NOUPLINK RDEV 300", ALL_CLASSES,
              "ZVSCFG1006E Operand RDEV conflicts with NOUPLINK", 1006);
    parse_bad("DEFINE VSWITCH SW1 GROUP G1 NOUPLINK", ALL_CLASSES,
              "ZVSCFG1006E Operand NOUPLINK conflicts with GROUP", 1006);
    parse_bad("DEFINE VSWITCH SW1 CONNECT CONNECT", ALL_CLASSES,
              "ZVSCFG1005E Operand CONNECT is specified more than once", 1005);
    parse_bad("DEFINE VSWITCH SW1 IP", ALL_CLASSES,
              "ZVSCFG1017E Operand IP is not supported: zvswitch switches are ETHERNET (layer 2) only",
              1017);
    parse_bad("DEFINE VSWITCH SW1 PORTTYPE HYBRID", ALL_CLASSES,
              "ZVSCFG1003E Operand PORTTYPE value HYBRID is not valid (ACCESS or TRUNK)", 1003);
    parse_bad("DEFINE VSWITCH SW1 CONTROLLER", ALL_CLASSES,
              "ZVSCFG1007E Operand CONTROLLER requires a value", 1007);
    /* Unknown and abbreviated operands; the token is shown upper-cased. */
    parse_bad("DEFINE VSWITCH SW1 foo", ALL_CLASSES,
              "ZVSCFG1004E Operand FOO is not recognized by DEFINE VSWITCH", 1004);
    parse_bad("DEFINE VSWITCH SW1 QU 2", ALL_CLASSES,
              "ZVSCFG1004E Operand QU is not recognized by DEFINE VSWITCH", 1004);
    /* The first problem, left to right, is the one reported. */
    parse_bad("DEFINE VSWITCH SW1 FOO NATIVE 5 BAR", ALL_CLASSES,
              "ZVSCFG1004E Operand FOO is not recognized by DEFINE VSWITCH", 1004);
    /* Bytes outside printable ASCII are '?' on the response line. */
    parse_bad("DEFINE VSWITCH SW1 \x1b[31m", ALL_CLASSES,
              "ZVSCFG1004E Operand ?[31M is not recognized by DEFINE VSWITCH", 1004);
    /* Class B only. */
    parse_bad("DEFINE VSWITCH SW1", classes("G"),
              "ZVSCMD1100E Not authorized: DEFINE VSWITCH requires privilege class B", 1100);
}

/* As many operands as a SYSTEM CONFIG statement may hold (128 tokens with DEFINE VSWITCH
 * name), then one more. */
static void test_define_vswitch_token_limit(void **state)
{
    char line[ZVS_CMD_LINE_MAX + 1];
    int n = snprintf(line, sizeof line, "DEFINE VSWITCH SW1");

    for (int i = 0; i < 125; i++)
        n += snprintf(line + n, sizeof line - (size_t)n, " X");
    parse_bad(line, ALL_CLASSES, "ZVSCFG1004E Operand X is not recognized by DEFINE VSWITCH",
              1004);
    snprintf(line + n, sizeof line - (size_t)n, " X");
    parse_bad(line, ALL_CLASSES, "ZVSCFG1013E Statement DEFINE has more than 128 operands", 1013);
}

/* The command and the SYSTEM CONFIG statement are one syntax: the same operands give the
 * same switch, the same bad operands the same message. */
static void test_define_vswitch_is_the_statement(void **state)
{
    static const char *const good[] = {
        "",
        "RDEV 300 400.P1 2902 VLAN AWARE NATIVE NONE PORTTYPE TRUNK QUEUESTORAGE 2M",
        "NOUPLINK DISCONNECT CONTROLLER DTCVSW1 MACPROTECT ON ISOLATION ON",
        "GROUP G1 RDEV NONE VLAN 4094 NATIVE 4094 ETHERNET QUEUESTORAGE 1",
    };
    static const char *const bad[] = {
        "QUEUESTORAGE 9M", "RDEV 1 2 3 4", "NATIVE 5", "FOO", "VLAN", "IP",
        "RDEV NONE NONE", "GROUP G1 NOGROUP", "MACPROTECT MAYBE", "ISOLATION 1",
        "CONTROLLER TOOLONGUSER",
    };
    char stmt[512], line[512];

    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        struct zvs_cfg *cfg = zvs_cfg_new();
        assert_non_null(cfg);
        snprintf(stmt, sizeof stmt, "DEFINE VSWITCH SW1 %s\n", good[i]);
        assert_int_equal(zvs_cfg_parse_sysconfig_text(cfg, "T", stmt), 0);
        assert_int_equal(cfg->nvswitch, 1);
        snprintf(line, sizeof line, "DEFINE VSWITCH SW1 %s", good[i]);
        struct zvs_cmd c = parse_ok(line, ALL_CLASSES);
        const struct zvs_cfg_vswitch *f = &cfg->vswitch[0], *v = &c.vsw;
        assert_string_equal(v->name, f->name);
        assert_int_equal(v->nrdev, f->nrdev);
        for (unsigned k = 0; k < f->nrdev; k++)
            assert_true(zvs_rdev_equal(v->rdev[k], f->rdev[k]));
        assert_int_equal(v->nouplink, f->nouplink);
        assert_int_equal(v->connect, f->connect);
        assert_int_equal(v->vlan_aware, f->vlan_aware);
        assert_int_equal(v->default_vid, f->default_vid);
        assert_int_equal(v->native_vid, f->native_vid);
        assert_int_equal(v->porttype, f->porttype);
        assert_int_equal(v->queuestorage_mb, f->queuestorage_mb);
        assert_string_equal(v->controller, f->controller);
        assert_string_equal(v->group, f->group);
        assert_int_equal(v->macprotect, f->macprotect);
        assert_int_equal(v->isolation, f->isolation);
        zvs_cfg_free(cfg);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct zvs_cfg *cfg = zvs_cfg_new();
        struct zvs_cp_response r;
        struct zvs_cmd c;
        assert_non_null(cfg);
        snprintf(stmt, sizeof stmt, "DEFINE VSWITCH SW1 %s\n", bad[i]);
        assert_true(zvs_cfg_parse_sysconfig_text(cfg, "T", stmt) > 0);
        assert_int_equal(cfg->nvswitch, 0);
        snprintf(line, sizeof line, "DEFINE VSWITCH SW1 %s", bad[i]);
        zvs_cp_response_init(&r);
        assert_true(zvs_cmd_parse(line, ALL_CLASSES, &c, &r) < 0);
        /* "T:1: ZVSCFGnnnnE text" in the file, "ZVSCFGnnnnE text" on the console. */
        assert_true(strncmp(cfg->msgs.msg[0].text, "T:1: ", 5) == 0);
        snprintf(stmt, sizeof stmt, "%s\n", cfg->msgs.msg[0].text + 5);
        assert_string_equal(r.text, stmt);
        assert_int_equal(r.rc, cfg->msgs.msg[0].number);
        zvs_cp_response_fini(&r);
        zvs_cfg_free(cfg);
    }
}

/* The exported operand parsers directly: *out untouched on error, no file prefix. */
static void test_shared_operand_parsers(void **state)
{
    const char *ops[] = { "VLAN", "10", "NATIVE", "10" };
    const char *badops[] = { "QUEUESTORAGE", "0" };
    struct zvs_msg_list msgs = { 0 };
    struct zvs_cfg_vswitch v, before;

    memset(&v, 0x3C, sizeof v);
    assert_int_equal(zvs_cfg_parse_vswitch_def("sw1", ops, 4, &v, &msgs), 0);
    assert_int_equal(msgs.n, 0);
    assert_string_equal(v.name, "SW1");
    assert_int_equal(v.default_vid, 10);
    assert_int_equal(v.native_vid, 10);
    memcpy(&before, &v, sizeof v);
    assert_int_equal(zvs_cfg_parse_vswitch_def("SW1", badops, 2, &v, &msgs), -EINVAL);
    assert_memory_equal(&v, &before, sizeof v);
    assert_int_equal(msgs.n, 1);
    assert_string_equal(msgs.msg[0].text,
                        "ZVSCFG1003E Operand QUEUESTORAGE value 0 is not valid (1M-8M)");
    zvs_msg_list_free(&msgs);
    /* A bad name is reported too (the command refuses it before, with HCPCMD002E). */
    assert_int_equal(zvs_cfg_parse_vswitch_def("SW-1", ops, 0, &v, &msgs), -EINVAL);
    assert_string_equal(msgs.msg[0].text,
                        "ZVSCFG1003E Operand switchname value SW-1 is not valid"
                        " (1-8 characters A-Z 0-9 @ # $)");
    zvs_msg_list_free(&msgs);

    const char *grant[] = { "GRANT", "linux1", "VLAN", "20", "10-12" };
    const char *nogrant[] = { "PORTTYPE", "TRUNK" };
    struct zvs_cfg_grant g;
    memset(&g, 0x3C, sizeof g);
    assert_int_equal(zvs_cfg_parse_grant("SET VSWITCH", grant, 5, &g, &msgs), 0);
    assert_string_equal(g.userid, "LINUX1");
    assert_int_equal(g.porttype, ZVS_PORTTYPE_UNSPEC);
    assert_true(g.has_vlan);
    assert_int_equal(zvs_vidset_count(&g.vlan), 4);
    assert_int_equal(g.line, 0);
    assert_int_equal(g.vswitch, 0);
    assert_int_equal(zvs_cfg_parse_grant("SET VSWITCH", nogrant, 2, &g, &msgs), -EINVAL);
    assert_string_equal(msgs.msg[0].text, "ZVSCFG1002E Operand GRANT is missing");
    assert_string_equal(g.userid, "LINUX1");
    zvs_msg_list_free(&msgs);

    uint8_t mb = 99;
    assert_int_equal(zvs_cfg_parse_queuestorage("8m", &mb), 0);
    assert_int_equal(mb, 8);
    assert_int_equal(zvs_cfg_parse_queuestorage("01M", &mb), 0);
    assert_int_equal(mb, 1);
    assert_int_equal(zvs_cfg_parse_queuestorage("M", &mb), -EINVAL);
    assert_int_equal(zvs_cfg_parse_queuestorage("0", &mb), -EINVAL);
    assert_int_equal(zvs_cfg_parse_queuestorage("9", &mb), -EINVAL);
    assert_int_equal(zvs_cfg_parse_queuestorage("1MM", &mb), -EINVAL);
    assert_int_equal(zvs_cfg_parse_queuestorage("0001M", &mb), -EINVAL);
    assert_int_equal(mb, 1);
}

/* ---- SET VSWITCH --------------------------------------------------------------------- */

static void test_set_vswitch_grant(void **state)
{
    struct zvs_cmd c = parse_ok("SET VSWITCH ccbvsw1 GRANT linux1", ALL_CLASSES);
    assert_int_equal(c.verb, ZVS_CMD_SET_VSWITCH);
    assert_string_equal(c.name, "CCBVSW1");
    assert_int_equal(c.vs_op, ZVS_CMD_VS_GRANT);
    assert_string_equal(c.userid, "LINUX1");
    assert_int_equal(c.porttype, ZVS_PORTTYPE_UNSPEC);
    assert_false(c.has_vlan);
    assert_int_equal(c.vlan.n, 0);
    c = parse_ok("SET VSWITCH SW1 GRANT LINUX1 PORTTYPE TRUNK VLAN 10 20 11-19 100", ALL_CLASSES);
    assert_int_equal(c.porttype, ZVS_PORTTYPE_TRUNK);
    assert_true(c.has_vlan);
    assert_int_equal(c.vlan.n, 2);          /* 10-20 and 100, merged */
    assert_int_equal(c.vlan.r[0].lo, 10);
    assert_int_equal(c.vlan.r[0].hi, 20);
    assert_int_equal(c.vlan.r[1].lo, 100);
    assert_int_equal(c.vlan.r[1].hi, 100);
    assert_int_equal(c.vlan.r[2].lo, 0);    /* nothing stale behind the ranges in use */
    assert_int_equal(c.vlan.r[2].hi, 0);
    c = parse_ok("SET VSWITCH SW1 GRANT LINUX1 VLAN 5 PORTTYPE ACCESS", ALL_CLASSES);
    assert_int_equal(c.porttype, ZVS_PORTTYPE_ACCESS);
    assert_int_equal(c.vlan.n, 1);
    expect_clean("SET VSWITCH SW1 GRANT LINUX1 PORTTYPE TRUNK VLAN 10 20 11-19 100", ALL_CLASSES);
    /* The statement's rules against the switch (VLAN AWARE, one VLAN on ACCESS) are the
     * executor's: the parser cannot know the switch. */
    c = parse_ok("SET VSWITCH SW1 GRANT LINUX1 PORTTYPE ACCESS VLAN 1-5", ALL_CLASSES);
    assert_int_equal(zvs_vidset_count(&c.vlan), 5);
}

static void test_set_vswitch_grant_errors(void **state)
{
    parse_bad("SET VSWITCH SW1 GRANT", ALL_CLASSES, "ZVSCFG1007E Operand GRANT requires a value",
              1007);
    parse_bad("SET VSWITCH SW1 GRANT TOOLONGUSER", ALL_CLASSES,
              "ZVSCFG1003E Operand GRANT value TOOLONGUSER is not valid"
              " (1-8 characters A-Z 0-9 @ # $)", 1003);
    parse_bad("SET VSWITCH SW1 GRANT U1 FOO", ALL_CLASSES,
              "ZVSCFG1004E Operand FOO is not recognized by SET VSWITCH", 1004);
    parse_bad("SET VSWITCH SW1 GRANT U1 PORTTYPE", ALL_CLASSES,
              "ZVSCFG1007E Operand PORTTYPE requires a value", 1007);
    parse_bad("SET VSWITCH SW1 GRANT U1 PORTTYPE BOTH", ALL_CLASSES,
              "ZVSCFG1003E Operand PORTTYPE value BOTH is not valid (ACCESS or TRUNK)", 1003);
    parse_bad("SET VSWITCH SW1 GRANT U1 VLAN 0", ALL_CLASSES,
              "ZVSCFG1003E Operand VLAN value 0 is not valid (VLAN IDs 1-4094 or ranges lo-hi)",
              1003);
    parse_bad("SET VSWITCH SW1 GRANT U1 VLAN 20-10", ALL_CLASSES,
              "ZVSCFG1003E Operand VLAN value 20-10 is not valid (VLAN IDs 1-4094 or ranges lo-hi)",
              1003);
    parse_bad("SET VSWITCH SW1 GRANT U1 GRANT U2", ALL_CLASSES,
              "ZVSCFG1005E Operand GRANT is specified more than once", 1005);
    parse_bad("SET VSWITCH SW1 GRANT U1 VLAN 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 "
              "20 21 22 23 24 25 26 27 28 29 30 31 32 33", ALL_CLASSES,
              "ZVSCFG1008E Operand VLAN accepts at most 32 values; 33 is one too many", 1008);
    parse_bad("SET VSWITCH SW1 GR U1", ALL_CLASSES, "HCPCMD003E Invalid option - GR", 3);
}

static void test_set_vswitch_revoke(void **state)
{
    struct zvs_cmd c = parse_ok("SET VSWITCH SW1 REVOKE linux1", ALL_CLASSES);
    assert_int_equal(c.verb, ZVS_CMD_SET_VSWITCH);
    assert_int_equal(c.vs_op, ZVS_CMD_VS_REVOKE);
    assert_string_equal(c.userid, "LINUX1");
    parse_bad("SET VSWITCH SW1 REVOKE", ALL_CLASSES, "HCPCFC026E Operand missing or invalid", 26);
    parse_bad("SET VSWITCH SW1 REVOKE TOOLONGUSER", ALL_CLASSES,
              "HCPCMD002E Invalid operand - TOOLONGUSER", 2);
    parse_bad("SET VSWITCH SW1 REVOKE ALL", ALL_CLASSES, "HCPCMD002E Invalid operand - ALL", 2);
    parse_bad("SET VSWITCH SW1 REVOKE U1 U2", ALL_CLASSES, "HCPCMD003E Invalid option - U2", 3);
    parse_bad("SET VSWITCH SW1 RE U1", ALL_CLASSES, "HCPCMD003E Invalid option - RE", 3);
}

static void test_set_vswitch_rdev(void **state)
{
    struct zvs_cmd c = parse_ok("SET VSWITCH SW1 RDEV 300 400.P1 2902", ALL_CLASSES);
    assert_int_equal(c.vs_op, ZVS_CMD_VS_RDEV);
    assert_int_equal(c.nrdev, 3);
    assert_int_equal(c.rdev[0].devno, 0x300);
    assert_int_equal(c.rdev[1].devno, 0x400);
    assert_int_equal(c.rdev[1].port, 1);
    assert_int_equal(c.rdev[2].devno, 0x2902);
    c = parse_ok("SET VSWITCH SW1 RDEV NONE", ALL_CLASSES);
    assert_int_equal(c.vs_op, ZVS_CMD_VS_RDEV);
    assert_int_equal(c.nrdev, 0);
    c = parse_ok("SET VSWITCH SW1 UPLINK RDEV 300", ALL_CLASSES);
    assert_int_equal(c.vs_op, ZVS_CMD_VS_RDEV);
    assert_int_equal(c.nrdev, 1);
    expect_same("SET VSWITCH SW1 UPLINK RDEV 300", "SET VSWITCH SW1 RDEV 300", ALL_CLASSES);
    parse_bad("SET VSWITCH SW1 RDEV 1 2 3 4", ALL_CLASSES,
              "ZVSCMD1103E Too many devices - 4; at most 3 may be given", 1103);
    parse_bad("SET VSWITCH SW1 RDEV", ALL_CLASSES, "HCPCFC026E Operand missing or invalid", 26);
    parse_bad("SET VSWITCH SW1 RDEV 300 300", ALL_CLASSES,
              "ZVSCMD1104E Device 300 is given more than once", 1104);
    parse_bad("SET VSWITCH SW1 RDEV 300 NONE", ALL_CLASSES, "HCPCMD002E Invalid operand - NONE", 2);
    parse_bad("SET VSWITCH SW1 RDEV NONE 300", ALL_CLASSES, "HCPCMD003E Invalid option - 300", 3);
    parse_bad("SET VSWITCH SW1 RDEV 3000X", ALL_CLASSES, "HCPCMD002E Invalid operand - 3000X", 2);
    parse_bad("SET VSWITCH SW1 RDE 300", ALL_CLASSES, "HCPCMD003E Invalid option - RDE", 3);
}

static void test_set_vswitch_group(void **state)
{
    struct zvs_cmd c = parse_ok("SET VSWITCH SW1 GROUP ccbgroup", ALL_CLASSES);
    assert_int_equal(c.vs_op, ZVS_CMD_VS_GROUP);
    assert_string_equal(c.group, "CCBGROUP");
    assert_string_equal(c.name, "SW1");
    c = parse_ok("SET VSWITCH SW1 NOGROUP", ALL_CLASSES);
    assert_int_equal(c.vs_op, ZVS_CMD_VS_NOGROUP);
    assert_string_equal(c.group, "");
    parse_bad("SET VSWITCH SW1 GROUP", ALL_CLASSES, "HCPCFC026E Operand missing or invalid", 26);
    parse_bad("SET VSWITCH SW1 GROUP G/1", ALL_CLASSES, "HCPCMD002E Invalid operand - G/1", 2);
    parse_bad("SET VSWITCH SW1 NOGROUP G1", ALL_CLASSES, "HCPCMD003E Invalid option - G1", 3);
    parse_bad("SET VSWITCH SW1 NO", ALL_CLASSES, "HCPCMD003E Invalid option - NO", 3);
}

static void test_set_vswitch_connect(void **state)
{
    assert_int_equal(parse_ok("SET VSWITCH SW1 CONNECT", ALL_CLASSES).vs_op, ZVS_CMD_VS_CONNECT);
    assert_int_equal(parse_ok("SET VSWITCH SW1 CON", ALL_CLASSES).vs_op, ZVS_CMD_VS_CONNECT);
    assert_int_equal(parse_ok("SET VSWITCH SW1 UPLINK CONNECT", ALL_CLASSES).vs_op,
                     ZVS_CMD_VS_CONNECT);
    assert_int_equal(parse_ok("SET VSWITCH SW1 DISCONNECT", ALL_CLASSES).vs_op,
                     ZVS_CMD_VS_DISCONNECT);
    assert_int_equal(parse_ok("SET VSWITCH SW1 UPLINK DISCON", ALL_CLASSES).vs_op,
                     ZVS_CMD_VS_DISCONNECT);
    parse_bad("SET VSWITCH SW1 CO", ALL_CLASSES, "HCPCMD003E Invalid option - CO", 3);
    parse_bad("SET VSWITCH SW1 DISCO", ALL_CLASSES, "HCPCMD003E Invalid option - DISCO", 3);
    parse_bad("SET VSWITCH SW1 CONNECT NOW", ALL_CLASSES, "HCPCMD003E Invalid option - NOW", 3);
}

static void test_set_vswitch_uplink(void **state)
{
    /* UPLINK goes before RDEV, CONNECT, DISCONNECT and SWITCHOVER only. */
    parse_bad("SET VSWITCH SW1 UPLINK", ALL_CLASSES, "HCPCFC026E Operand missing or invalid", 26);
    parse_bad("SET VSWITCH SW1 UPLINK GRANT U1", ALL_CLASSES, "HCPCMD003E Invalid option - GRANT",
              3);
    parse_bad("SET VSWITCH SW1 UPLINK QUEUESTORAGE 2", ALL_CLASSES,
              "HCPCMD003E Invalid option - QUEUESTORAGE", 3);
    parse_bad("SET VSWITCH SW1 UPLINK UPLINK RDEV 300", ALL_CLASSES,
              "HCPCMD003E Invalid option - UPLINK", 3);
    parse_bad("SET VSWITCH SW1 UPLIN RDEV 300", ALL_CLASSES, "HCPCMD003E Invalid option - UPLIN", 3);
}

static void test_set_vswitch_queuestorage(void **state)
{
    struct zvs_cmd c = parse_ok("SET VSWITCH SW1 QUEUESTORAGE 4M", ALL_CLASSES);
    assert_int_equal(c.vs_op, ZVS_CMD_VS_QUEUESTORAGE);
    assert_int_equal(c.queuestorage_mb, 4);
    assert_int_equal(parse_ok("SET VSWITCH SW1 QUEUEST 1", ALL_CLASSES).queuestorage_mb, 1);
    assert_int_equal(parse_ok("SET VSWITCH SW1 QUEUESTORAGE 8m", ALL_CLASSES).queuestorage_mb, 8);
    parse_bad("SET VSWITCH SW1 QUEUESTORAGE 9M", ALL_CLASSES,
              "ZVSCMD1105E Invalid QUEUESTORAGE value - 9M; valid: 1M-8M", 1105);
    parse_bad("SET VSWITCH SW1 QUEUESTORAGE 0", ALL_CLASSES,
              "ZVSCMD1105E Invalid QUEUESTORAGE value - 0; valid: 1M-8M", 1105);
    parse_bad("SET VSWITCH SW1 QUEUESTORAGE 4K", ALL_CLASSES,
              "ZVSCMD1105E Invalid QUEUESTORAGE value - 4K; valid: 1M-8M", 1105);
    parse_bad("SET VSWITCH SW1 QUEUESTORAGE", ALL_CLASSES, "HCPCFC026E Operand missing or invalid",
              26);
    parse_bad("SET VSWITCH SW1 QU 4", ALL_CLASSES, "HCPCMD003E Invalid option - QU", 3);
}

static void test_set_vswitch_isolation(void **state)
{
    struct zvs_cmd c = parse_ok("SET VSWITCH SW1 ISOLATION ON", ALL_CLASSES);
    assert_int_equal(c.vs_op, ZVS_CMD_VS_ISOLATION);
    assert_true(c.onoff);
    c = parse_ok("SET VSWITCH SW1 ISOL OFF", ALL_CLASSES);
    assert_int_equal(c.vs_op, ZVS_CMD_VS_ISOLATION);
    assert_false(c.onoff);
    parse_bad("SET VSWITCH SW1 ISOLATION", ALL_CLASSES, "HCPCFC026E Operand missing or invalid", 26);
    parse_bad("SET VSWITCH SW1 ISOLATION YES", ALL_CLASSES, "HCPCMD003E Invalid option - YES", 3);
    parse_bad("SET VSWITCH SW1 ISO ON", ALL_CLASSES, "HCPCMD003E Invalid option - ISO", 3);
}

static void test_set_vswitch_macprotect(void **state)
{
    struct zvs_cmd c = parse_ok("SET VSWITCH SW1 MACPROTECT ON", ALL_CLASSES);
    assert_int_equal(c.vs_op, ZVS_CMD_VS_MACPROTECT);
    assert_int_equal(c.macprotect, ZVS_MACPROTECT_ON);
    assert_int_equal(parse_ok("SET VSWITCH SW1 MACPROT OFF", ALL_CLASSES).macprotect,
                     ZVS_MACPROTECT_OFF);
    assert_int_equal(parse_ok("SET VSWITCH SW1 MACPROTECT UNSPECIFIED", ALL_CLASSES).macprotect,
                     ZVS_MACPROTECT_UNSPECIFIED);
    assert_int_equal(parse_ok("SET VSWITCH SW1 MACPROTECT UNSPEC", ALL_CLASSES).macprotect,
                     ZVS_MACPROTECT_UNSPECIFIED);
    parse_bad("SET VSWITCH SW1 MACPROTECT UNSPE", ALL_CLASSES, "HCPCMD003E Invalid option - UNSPE",
              3);
    parse_bad("SET VSWITCH SW1 MACPROTECT", ALL_CLASSES, "HCPCFC026E Operand missing or invalid",
              26);
    parse_bad("SET VSWITCH SW1 MAC ON", ALL_CLASSES, "HCPCMD003E Invalid option - MAC", 3);
}

static void test_set_vswitch_counters(void **state)
{
    struct zvs_cmd c = parse_ok("SET VSWITCH SW1 COUNTERS CLEAR", ALL_CLASSES);
    assert_int_equal(c.vs_op, ZVS_CMD_VS_COUNTERS_CLEAR);
    assert_int_equal(c.counters, ZVS_CMD_COUNTERS_ALL);
    c = parse_ok("SET VSWITCH SW1 COUNTERS CLEAR UPLINK", ALL_CLASSES);
    assert_int_equal(c.counters, ZVS_CMD_COUNTERS_UPLINK);
    c = parse_ok("SET VSWITCH SW1 COUNTERS CLEAR ALL", ALL_CLASSES);
    assert_int_equal(c.counters, ZVS_CMD_COUNTERS_ALL);
    expect_same("SET VSWITCH SW1 COUNTERS CLEAR ALL", "SET VSWITCH SW1 COUNTERS CLEAR",
                ALL_CLASSES);
    parse_bad("SET VSWITCH SW1 COUNTERS", ALL_CLASSES, "HCPCFC026E Operand missing or invalid", 26);
    parse_bad("SET VSWITCH SW1 COUNTERS CLEA", ALL_CLASSES, "HCPCMD003E Invalid option - CLEA", 3);
    /* [DATA | DISCARDED | ERRORS] (SET VSWITCH, z/VM 7.2): one kind, after the port. */
    c = parse_ok("SET VSWITCH SW1 COUNTERS CLEAR DATA", ALL_CLASSES);
    assert_int_equal(c.counters, ZVS_CMD_COUNTERS_ALL);
    assert_int_equal(c.counters_kind, ZVS_CMD_CTR_DATA);
    c = parse_ok("SET VSWITCH SW1 COUNTERS CLEAR BRIDGEPORT DISCARDED", ALL_CLASSES);
    assert_int_equal(c.counters, ZVS_CMD_COUNTERS_BRIDGEPORT);
    assert_int_equal(c.counters_kind, ZVS_CMD_CTR_DISCARDED);
    c = parse_ok("SET VSWITCH SW1 COUNTERS CLEAR UPLINK ERRORS", ALL_CLASSES);
    assert_int_equal(c.counters_kind, ZVS_CMD_CTR_ERRORS);
    parse_bad("SET VSWITCH SW1 COUNTERS CLEAR DATA UPLINK", ALL_CLASSES,
              "HCPCMD003E Invalid option - UPLINK", 3);
    parse_bad("SET VSWITCH SW1 COUNTERS CLEAR DATA ERRORS", ALL_CLASSES,
              "HCPCMD003E Invalid option - ERRORS", 3);
    parse_bad("SET VSWITCH SW1 COUNTERS CLEAR UPLINK ALL", ALL_CLASSES,
              "HCPCMD003E Invalid option - ALL", 3);
    parse_bad("SET VSWITCH SW1 COUN CLEAR", ALL_CLASSES, "HCPCMD003E Invalid option - COUN", 3);
}

static void test_set_vswitch_switchover(void **state)
{
    struct zvs_cmd c = parse_ok("SET VSWITCH SW1 SWITCHOVER", ALL_CLASSES);
    assert_int_equal(c.vs_op, ZVS_CMD_VS_SWITCHOVER);
    assert_int_equal(c.nrdev, 0);
    expect_same("SET VSWITCH SW1 SWITCHOVER", "SET VSWITCH SW1 SWITCHOVER AVAILABLE",
                ALL_CLASSES);
    expect_same("SET VSWITCH SW1 SWITCHOVER", "SET VSWITCH SW1 UPLINK SWITCHOVER AVAILABLE",
                ALL_CLASSES);
    c = parse_ok("SET VSWITCH SW1 SWITCHOVER RDEV 400.P1", ALL_CLASSES);
    assert_int_equal(c.vs_op, ZVS_CMD_VS_SWITCHOVER);
    assert_int_equal(c.nrdev, 1);
    assert_int_equal(c.rdev[0].devno, 0x400);
    assert_int_equal(c.rdev[0].port, 1);
    parse_bad("SET VSWITCH SW1 SWITCHOVER RDEV", ALL_CLASSES,
              "HCPCFC026E Operand missing or invalid", 26);
    parse_bad("SET VSWITCH SW1 SWITCHOVER RDEV 400 500", ALL_CLASSES,
              "HCPCMD003E Invalid option - 500", 3);
    parse_bad("SET VSWITCH SW1 SWITCHOVER RDEV XYZ", ALL_CLASSES, "HCPCMD002E Invalid operand - XYZ",
              2);
    parse_bad("SET VSWITCH SW1 SWITCHOVER AVAI", ALL_CLASSES, "HCPCMD003E Invalid option - AVAI", 3);
    parse_bad("SET VSWITCH SW1 SWITCHOVE", ALL_CLASSES, "HCPCMD003E Invalid option - SWITCHOVE", 3);
}

static void test_set_vswitch_errors(void **state)
{
    parse_bad("SET VSWITCH", ALL_CLASSES, "HCPCFC026E Operand missing or invalid", 26);
    parse_bad("SET VSWITCH SW1", ALL_CLASSES, "HCPCFC026E Operand missing or invalid", 26);
    parse_bad("SET VSWITCH ALL CONNECT", ALL_CLASSES, "HCPCMD002E Invalid operand - ALL", 2);
    parse_bad("SET VSWITCH TOOLONGNAME CONNECT", ALL_CLASSES,
              "HCPCMD002E Invalid operand - TOOLONGNAME", 2);
    parse_bad("SET VSWITCH SW1 FOO", ALL_CLASSES, "HCPCMD003E Invalid option - FOO", 3);
    parse_bad("SET VSWITCH SW1 CONNECT", classes("G"),
              "ZVSCMD1100E Not authorized: SET VSWITCH requires privilege class B", 1100);
}

static void test_detach_vswitch(void **state)
{
    struct zvs_cmd c = parse_ok("DETACH VSWITCH ccbvsw1", ALL_CLASSES);
    assert_int_equal(c.verb, ZVS_CMD_DETACH_VSWITCH);
    assert_string_equal(c.name, "CCBVSW1");
    expect_same("DET VSW CCBVSW1", "DETACH VSWITCH CCBVSW1", ALL_CLASSES);
    parse_bad("DETACH VSWITCH", ALL_CLASSES, "HCPCFC026E Operand missing or invalid", 26);
    parse_bad("DETACH VSWITCH SW1 NOW", ALL_CLASSES, "HCPCMD003E Invalid option - NOW", 3);
    parse_bad("DETACH VSWITCH ALL", ALL_CLASSES, "HCPCMD002E Invalid operand - ALL", 2);
    parse_bad("DETACH VSWITCH SW1", classes("G"),
              "ZVSCMD1100E Not authorized: DETACH VSWITCH requires privilege class B", 1100);
}

/* ---- NIC commands -------------------------------------------------------------------- */

static void test_define_nic(void **state)
{
    struct zvs_cmd c = parse_ok("DEFINE NIC 600", classes("G"));
    assert_int_equal(c.verb, ZVS_CMD_DEFINE_NIC);
    assert_string_equal(c.target, "");
    assert_int_equal(c.vdev, 0x600);
    assert_int_equal(c.devices, 3);
    assert_false(c.has_vdev);
    assert_string_equal(c.name, "");
    c = parse_ok("DEFINE NIC USERID linux1 0a00 QDIO DEVICES 6", classes("BG"));
    assert_string_equal(c.target, "LINUX1");
    assert_int_equal(c.vdev, 0xA00);
    assert_int_equal(c.devices, 6);
    assert_int_equal(parse_ok("DEF NIC FFFF DEV 3072", classes("G")).devices, 3072);
    assert_int_equal(parse_ok("DEF NIC 0 QDIO", classes("G")).vdev, 0);
    expect_same("DEF NIC 600", "DEFINE NIC 0600 QDIO DEVICES 3", classes("G"));
    expect_clean("DEFINE NIC USERID LINUX1 600 DEVICES 9", classes("BG"));
    parse_bad("DEFINE NIC", classes("G"), "HCPCFC026E Operand missing or invalid", 26);
    parse_bad("DEFINE NIC 60G", classes("G"), "HCPNIC002E Invalid operand - 60G", 2);
    parse_bad("DEFINE NIC 10000", classes("G"), "HCPNIC002E Invalid operand - 10000", 2);
    parse_bad("DEFINE NIC 600 DEVICES 2", classes("G"),
              "ZVSCMD1105E Invalid DEVICES value - 2; valid: 3-3072", 1105);
    parse_bad("DEFINE NIC 600 DEVICES 3073", classes("G"),
              "ZVSCMD1105E Invalid DEVICES value - 3073; valid: 3-3072", 1105);
    parse_bad("DEFINE NIC 600 DEVICES", classes("G"), "HCPCFC026E Operand missing or invalid", 26);
    parse_bad("DEFINE NIC 600 HIPERS", classes("G"), "HCPNIC003E Invalid option - HIPERS", 3);
    parse_bad("DEFINE NIC 600 DEVICES 3 QDIO", classes("G"), "HCPNIC003E Invalid option - QDIO", 3);
    parse_bad("DEFINE NIC 600 DE 3", classes("G"), "HCPNIC003E Invalid option - DE", 3);
    parse_bad("DEFINE NIC USERID", classes("BG"), "HCPCFC026E Operand missing or invalid", 26);
    parse_bad("DEFINE NIC USERID LINUX1", classes("BG"), "HCPCFC026E Operand missing or invalid",
              26);
    parse_bad("DEFINE NIC USERID 600", classes("BG"), "HCPCFC026E Operand missing or invalid", 26);
    parse_bad("DEFINE NIC USERID TOOLONGUSER 600", classes("BG"),
              "HCPNIC002E Invalid operand - TOOLONGUSER", 2);
}

static void test_detach_nic(void **state)
{
    struct zvs_cmd c = parse_ok("DETACH NIC 600", classes("G"));
    assert_int_equal(c.verb, ZVS_CMD_DETACH_NIC);
    assert_int_equal(c.vdev, 0x600);
    assert_string_equal(c.target, "");
    c = parse_ok("DET NIC USERID LINUX1 FFFF", classes("BG"));
    assert_string_equal(c.target, "LINUX1");
    assert_int_equal(c.vdev, 0xFFFF);
    parse_bad("DETACH NIC", classes("G"), "HCPCFC026E Operand missing or invalid", 26);
    parse_bad("DETACH NIC 600 700", classes("G"), "HCPNIC003E Invalid option - 700", 3);
    parse_bad("DETACH NIC ALL", classes("G"), "HCPNIC002E Invalid operand - ALL", 2);
}

static void test_couple(void **state)
{
    struct zvs_cmd c = parse_ok("COUPLE 600 TO SYSTEM ccbvsw1", classes("G"));
    assert_int_equal(c.verb, ZVS_CMD_COUPLE);
    assert_int_equal(c.vdev, 0x600);
    assert_string_equal(c.name, "CCBVSW1");
    assert_string_equal(c.target, "");
    expect_same("COUP 600 SYSTEM CCBVSW1", "COUPLE 0600 TO SYSTEM CCBVSW1", classes("G"));
    c = parse_ok("COUPLE USERID LINUX1 600 SYSTEM SW1", classes("BG"));
    assert_string_equal(c.target, "LINUX1");
    assert_string_equal(c.name, "SW1");
    parse_bad("COUPLE", classes("G"), "HCPCFC026E Operand missing or invalid", 26);
    parse_bad("COUPLE 600", classes("G"), "HCPCFC026E Operand missing or invalid", 26);
    parse_bad("COUPLE 600 TO", classes("G"), "HCPCFC026E Operand missing or invalid", 26);
    parse_bad("COUPLE 600 TO SYSTEM", classes("G"), "HCPCFC026E Operand missing or invalid", 26);
    /* A guest LAN (owner and LAN name) is not emulated: the owner is refused. */
    parse_bad("COUPLE 600 TO LINUX2 LAN1", classes("G"), "HCPCMD002E Invalid operand - LINUX2", 2);
    parse_bad("COUPLE 600 SYS SW1", classes("G"), "HCPCMD002E Invalid operand - SYS", 2);
    parse_bad("COUPLE 600 TO SYSTEM SW1 NOW", classes("G"), "HCPCMD003E Invalid option - NOW", 3);
    parse_bad("COUPLE 600 TO SYSTEM ALL", classes("G"), "HCPCMD002E Invalid operand - ALL", 2);
    parse_bad("COUPLE XYZ TO SYSTEM SW1", classes("G"), "HCPCMD002E Invalid operand - XYZ", 2);
    parse_bad("COU 600 TO SYSTEM SW1", classes("G"), "HCPCMD001E Unknown CP command: COU", 1);
}

static void test_uncouple(void **state)
{
    struct zvs_cmd c = parse_ok("UNCOUPLE 600", classes("G"));
    assert_int_equal(c.verb, ZVS_CMD_UNCOUPLE);
    assert_int_equal(c.vdev, 0x600);
    c = parse_ok("UNCOUP USERID LINUX1 1", classes("BG"));
    assert_string_equal(c.target, "LINUX1");
    assert_int_equal(c.vdev, 1);
    parse_bad("UNCOUPLE", classes("G"), "HCPCFC026E Operand missing or invalid", 26);
    parse_bad("UNCOUPLE 600 FROM", classes("G"), "HCPCMD003E Invalid option - FROM", 3);
    parse_bad("UNCOU 600", classes("G"), "HCPCMD001E Unknown CP command: UNCOU", 1);
}

static void test_query_nic(void **state)
{
    struct zvs_cmd c = parse_ok("QUERY NIC", classes("G"));
    assert_int_equal(c.verb, ZVS_CMD_QUERY_NIC);
    assert_false(c.has_vdev);
    assert_false(c.details);
    assert_string_equal(c.target, "");
    c = parse_ok("QUERY NIC 600 DETAILS", classes("G"));
    assert_true(c.has_vdev);
    assert_int_equal(c.vdev, 0x600);
    assert_true(c.details);
    c = parse_ok("Q NIC DET", classes("G"));
    assert_false(c.has_vdev);
    assert_true(c.details);
    c = parse_ok("Q NIC ALL", classes("G"));
    assert_false(c.has_vdev);
    assert_false(c.details);
    /* DE is hex: a device. */
    c = parse_ok("Q NIC DE", classes("G"));
    assert_true(c.has_vdev);
    assert_int_equal(c.vdev, 0xDE);
    c = parse_ok("Q NIC USERID LINUX1 ALL DETAILS", classes("BG"));
    assert_string_equal(c.target, "LINUX1");
    assert_false(c.has_vdev);
    assert_true(c.details);
    c = parse_ok("Q NIC USERID LINUX1", classes("BG"));
    assert_string_equal(c.target, "LINUX1");
    expect_same("Q NIC", "QUERY NIC ALL", classes("G"));
    parse_bad("Q NIC XYZ", classes("G"), "HCPNIC002E Invalid operand - XYZ", 2);
    parse_bad("Q NIC 600 700", classes("G"), "HCPNIC003E Invalid option - 700", 3);
    parse_bad("Q NIC 600 DETAILS MORE", classes("G"), "HCPNIC003E Invalid option - MORE", 3);
    parse_bad("Q NIC USERID", classes("BG"), "HCPCFC026E Operand missing or invalid", 26);
    parse_bad("Q NIC", classes("B"),
              "ZVSCMD1100E Not authorized: QUERY NIC requires privilege class G", 1100);
}

static void test_query_vmlan(void **state)
{
    struct zvs_cmd c = parse_ok("QUERY VMLAN", classes("G"));
    assert_int_equal(c.verb, ZVS_CMD_QUERY_VMLAN);
    assert_string_equal(c.name, "");
    expect_same("q vmlan", "QUERY VMLAN", classes("G"));
    parse_bad("QUERY VMLAN DETAILS", classes("G"), "HCPVLQ003E Invalid option - DETAILS", 3);
    parse_bad("QUERY VMLA", classes("G"), "HCPCQV003E Invalid option - VMLA", 3);
    parse_bad("QUERY VMLAN", classes("B"),
              "ZVSCMD1100E Not authorized: QUERY VMLAN requires privilege class G", 1100);
}

/* USERID acts for another user: class B on top of the command's class G. */
static void test_userid_needs_class_b(void **state)
{
    parse_bad("DEFINE NIC USERID LINUX1 600", classes("G"),
              "ZVSCMD1100E Not authorized: DEFINE NIC USERID requires privilege class B", 1100);
    parse_bad("DETACH NIC USERID LINUX1 600", classes("G"),
              "ZVSCMD1100E Not authorized: DETACH NIC USERID requires privilege class B", 1100);
    parse_bad("COUPLE USERID LINUX1 600 TO SYSTEM SW1", classes("G"),
              "ZVSCMD1100E Not authorized: COUPLE USERID requires privilege class B", 1100);
    parse_bad("UNCOUPLE USERID LINUX1 600", classes("G"),
              "ZVSCMD1100E Not authorized: UNCOUPLE USERID requires privilege class B", 1100);
    parse_bad("QUERY NIC USERID LINUX1", classes("G"),
              "ZVSCMD1100E Not authorized: QUERY NIC USERID requires privilege class B", 1100);
    /* Checked when USERID is met, before its value. */
    parse_bad("QUERY NIC USERID", classes("G"),
              "ZVSCMD1100E Not authorized: QUERY NIC USERID requires privilege class B", 1100);
    /* B alone is not enough for the command itself. */
    parse_bad("DEFINE NIC USERID LINUX1 600", classes("B"),
              "ZVSCMD1100E Not authorized: DEFINE NIC requires privilege class G", 1100);
    parse_ok("DEFINE NIC USERID LINUX1 600", classes("BG"));
    /* USERI is not USERID: read as the vdev, which it is not. */
    parse_bad("DEFINE NIC USERI LINUX1 600", classes("BG"), "HCPNIC002E Invalid operand - USERI", 2);
}

/* A bad SET PORT GROUP operand is refused with one line, its own (the SYSTEM CONFIG side
 * of the same mistakes is in test_config.c: test_group_refusal_reported_once). */
static void test_set_port_group_bad_operand_one_message(void **state)
{
    parse_bad("SET PORT GROUP G1 LACP PASSIVE", ALL_CLASSES, "HCPCMD003E Invalid option - PASSIVE", 3);
    parse_bad("SET PORT GROUP G1 LACP", ALL_CLASSES, "HCPCFC026E Operand missing or invalid", 26);
    parse_bad("SET PORT GROUP G1 INTERVAL 0", ALL_CLASSES,
              "ZVSCMD1105E Invalid INTERVAL value - 0; valid: 1-9990, OFF", 1105);
    parse_bad("SET PORT GROUP G1 JOIN ZZZZ", ALL_CLASSES, "HCPCMD002E Invalid operand - ZZZZ", 2);
    parse_bad("SET PORT GROUP G1 LEAVE ZZZZ", ALL_CLASSES, "HCPCMD002E Invalid operand - ZZZZ", 2);
    parse_bad("SET PORT GROUP G1 FOO", ALL_CLASSES, "HCPCMD003E Invalid option - FOO", 3);
}

/* The report's own sequence parses, and blanks of any kind and number are tolerated. */
static void test_blanks_and_report_sequence(void **state)
{
    expect_same("  SET   PORT\tGROUP  ccbgroup   JOIN 28ba\t2902  \r",
                "SET PORT GROUP CCBGROUP JOIN 28BA 2902", ALL_CLASSES);
    expect_same("set port group ccbgroup interval 30\n",
                "SET PORT GROUP CCBGROUP INTERVAL 30", ALL_CLASSES);
    expect_same("\tq\tvsw\tccbvsw1\tdet\t", "QUERY VSWITCH CCBVSW1 DETAILS", ALL_CLASSES);
    /* A form feed or vertical tab is no blank in a command (a file's lexer makes them
     * blanks, tokens.c): part of the token, shown as '?'. */
    parse_bad("Q\fVMLAN", ALL_CLASSES, "HCPCMD001E Unknown CP command: Q?VMLAN", 1);
    parse_bad("Q VMLAN\v", ALL_CLASSES, "HCPCQV003E Invalid option - VMLAN?", 3);
}

/* ---- abbreviations ------------------------------------------------------------------- */

struct abbrev_case {
    const char *full;                   /* full keyword */
    const char *shortest;               /* shortest accepted: same command as full */
    const char *shorter;                /* one letter shorter; NULL: none exists */
    const char *refusal;                /* its exact response */
    int         rc;
};

/* Minimum abbreviations. The IBM ones are typed here from IBM's syntax diagrams, where the
 * upper-case part of a keyword is its minimum: "Set VSWITCH", "GRAnt", "REVoke", "GROup",
 * "NOGroup", "CONnect", "DISCONnect", "QUEuestorage", "ISOLation", "MACProtect",
 * "UNSPECified", "COUNTERS CLEAR UPLINK BRIDGEport ALL DATA DISCARDed ERRORs", "SWITCHOVER
 * AVAILABLE", "RDEV ... NONE" (SET VSWITCH, z/VM 7.2 CP Commands and Utilities Reference);
 * "DEFine VSWITCH", "ETHernet", "GROup", "QUEuestorage", "PORTType" (DEFINE VSWITCH
 * Statement, z/VM 7.4 CP Planning and Administration); "JOIn", "LEAve", "INTerval",
 * "ACTive", "INACTive", "EXClusive" (SET PORT GROUP, z/VM 7.3, and issue 15). Each is typed
 * at its minimum and one letter short. The rest (marked "ours") have no diagram we read. */
static const struct abbrev_case abbrevs[] = {
    { "SET PORT GROUP G1 LACP ACTIVE", "s port group g1 lacp active", NULL, NULL, 0 },
    { "SET VSWITCH SW1 CONNECT", "S VSWITCH SW1 CON", NULL, NULL, 0 },
    { "SET PORT GROUP G1 LACP ACTIVE", "SE PORT GROUP G1 LACP ACTIVE",
      "ST PORT GROUP G1 LACP ACTIVE", "HCPCMD001E Unknown CP command: ST", 1 },
    { "QUERY LACP", "Q LACP", NULL, NULL, 0 },
    { "QUERY LACP", "QU LACP", NULL, NULL, 0 },
    { "QUERY LACP", "QUE LACP", NULL, NULL, 0 },
    { "QUERY LACP", "QUER LACP", NULL, NULL, 0 },
    { "QUERY PORT GROUP", "Q PORT GROUP", "Q POR GROUP", "HCPCQV003E Invalid option - POR", 3 },
    { "SET PORT GROUP G1 LEAVE 1", "SET PORT GROUP G1 LEAVE 1",
      "SET POR GROUP G1 LEAVE 1", "HCPCMD003E Invalid option - POR", 3 },
    { "QUERY PORT GROUP", "Q PORT GROUP", "Q PORT GROU", "HCPCQV003E Invalid option - GROU", 3 },
    { "SET PORT GROUP G1 LEAVE 1", "SET PORT GROUP G1 LEAVE 1",
      "SET PORT GROU G1 LEAVE 1", "HCPCMD003E Invalid option - GROU", 3 },
    { "QUERY LACP", "Q LACP", "Q LAC", "HCPCQV003E Invalid option - LAC", 3 },
    { "SET LACP 1 DROPRX ON", "SET LACP 1 DROPRX ON", "SET LAC 1 DROPRX ON",
      "HCPCMD003E Invalid option - LAC", 3 },
    { "QUERY VSWITCH", "Q VSW", "Q VS", "HCPCQV003E Invalid option - VS", 3 },
    { "QUERY VSWITCH", "Q VSWI", NULL, NULL, 0 },
    { "QUERY VSWITCH", "Q VSWITC", NULL, NULL, 0 },
    { "SET PORT GROUP G1 JOIN 1", "SET PORT GROUP G1 JOI 1", "SET PORT GROUP G1 JO 1",
      "HCPCMD003E Invalid option - JO", 3 },
    { "SET PORT GROUP G1 LEAVE 1", "SET PORT GROUP G1 LEA 1", "SET PORT GROUP G1 LE 1",
      "HCPCMD003E Invalid option - LE", 3 },
    { "SET PORT GROUP G1 LACP ACTIVE", "SET PORT GROUP G1 LACP ACT EXC",
      "SET PORT GROUP G1 LACP ACT EX", "HCPCMD003E Invalid option - EX", 3 },
    { "SET PORT GROUP G1 LACP INACTIVE", "SET PORT GROUP G1 LACP INACTIVE EXCLUSIVE", NULL,
      NULL, 0 },
    { "SET VSWITCH V1 IVLPORT HEARTBEAT TIMEOUT 5", "SET VSWITCH V1 IVLP HEART TIME 5",
      "SET VSWITCH V1 IVL HEART TIME 5", "HCPCMD003E Invalid option - IVL", 3 },
    { "SET VSWITCH V1 IVLPORT HEARTBEAT TIMEOUT 5", "SET VSWITCH V1 IVLPORT HEARTBEAT TIMEOUT 5",
      "SET VSWITCH V1 IVLPORT HEAR TIMEOUT 5", "HCPCMD003E Invalid option - HEAR", 3 },
    { "SET VSWITCH V1 IVLPORT HEARTBEAT TIMEOUT 5", "SET VSWITCH V1 IVLPORT HEARTBEAT TIMEOUT 5",
      "SET VSWITCH V1 IVLPORT HEARTBEAT TIM 5", "HCPCMD003E Invalid option - TIM", 3 },
    { "SET PORT GROUP G1 LACP ACTIVE SHARED", "SET PORT GROUP G1 LACP ACT SHARED",
      "SET PORT GROUP G1 LACP ACT SHARE", "HCPCMD003E Invalid option - SHARE", 3 },
    { "SET PORT GROUP G1 DELETE", "SET PORT G1 DELETE", NULL, NULL, 0 },
    { "SET PORT GROUP G1 LACP INACTIVE", "SET PORT GROUP G1 LACP INACTIVE",
      "SET PORT GROUP G1 LAC INACTIVE", "HCPCMD003E Invalid option - LAC", 3 },
    { "SET PORT GROUP G1 INTERVAL 30", "SET PORT GROUP G1 INT 30", "SET PORT GROUP G1 IN 30",
      "HCPCMD003E Invalid option - IN", 3 },
    { "SET PORT GROUP G1 INTERVAL 30", "SET PORT GROUP G1 INTERV 30", NULL, NULL, 0 },
    { "SET PORT GROUP G1 INTERVAL OFF", "SET PORT GROUP G1 INTERVAL OFF",
      "SET PORT GROUP G1 INTERVAL OF",
      "ZVSCMD1105E Invalid INTERVAL value - OF; valid: 1-9990, OFF", 1105 },
    { "SET PORT GROUP G1 LACP ACTIVE", "SET PORT GROUP G1 LACP ACT",
      "SET PORT GROUP G1 LACP AC", "HCPCMD003E Invalid option - AC", 3 },
    { "SET PORT GROUP G1 LACP INACTIVE", "SET PORT GROUP G1 LACP INACT",
      "SET PORT GROUP G1 LACP INAC", "HCPCMD003E Invalid option - INAC", 3 },
    { "QUERY LACP G1 DETAILS", "Q LACP G1 DET", "Q LACP G1 DE",
      "HCPSWP003E Invalid option - DE", 3 },
    { "QUERY VSWITCH SW1 DETAILS", "Q VSW SW1 DET", "Q VSW SW1 DE",
      "HCPSWQ003E Invalid option - DE", 3 },
    { "QUERY VSWITCH SW1 DETAILS", "Q VSW SW1 DETAIL", NULL, NULL, 0 },
    { "QUERY LACP DETAILS", "Q LACP DET", NULL, NULL, 0 },
    { "QUERY VSWITCH ALL", "Q VSWITCH ALL", NULL, NULL, 0 },
    { "SET LACP 1 DROPRX ON", "SET LACP 1 DROPRX ON", "SET LACP 1 DROPR ON",
      "HCPCMD003E Invalid option - DROPR", 3 },
    { "SET LACP 1 DROPTX ON", "SET LACP 1 DROPTX ON", "SET LACP 1 DROPT ON",
      "HCPCMD003E Invalid option - DROPT", 3 },
    { "SET LACP 1 DELAYTX 5", "SET LACP 1 DELAYTX 5", "SET LACP 1 DELAYT 5",
      "HCPCMD003E Invalid option - DELAYT", 3 },
    { "SET LACP 1 DROPTX ON", "SET LACP 1 DROPTX ON", "SET LACP 1 DROPTX O",
      "HCPCMD003E Invalid option - O", 3 },
    { "SET LACP 1 DROPTX OFF", "SET LACP 1 DROPTX OFF", "SET LACP 1 DROPTX OF",
      "HCPCMD003E Invalid option - OF", 3 },
    /* The commands of issue 5. */
    { "DEFINE VSWITCH SW1", "DEF VSWITCH SW1", "DE VSWITCH SW1",
      "HCPCMD001E Unknown CP command: DE", 1 },
    { "DEFINE VSWITCH SW1", "DEFI VSWITCH SW1", NULL, NULL, 0 },
    { "DEFINE VSWITCH SW1", "DEF VSWITCH SW1", "DEF VSWITC SW1",
      "HCPCMD003E Invalid option - VSWITC", 3 },
    { "SET VSWITCH SW1 CONNECT", "SET VSWITCH SW1 CONNECT", "SET VSWITC SW1 CONNECT",
      "HCPCMD003E Invalid option - VSWITC", 3 },
    { "DEFINE VSWITCH SW1 ETHERNET", "DEF VSWITCH SW1 ETH", "DEF VSWITCH SW1 ET",
      "ZVSCFG1004E Operand ET is not recognized by DEFINE VSWITCH", 1004 },
    { "DEFINE VSWITCH SW1 GROUP G1", "DEF VSWITCH SW1 GRO G1", "DEF VSWITCH SW1 GR G1",
      "ZVSCFG1004E Operand GR is not recognized by DEFINE VSWITCH", 1004 },
    { "DEFINE VSWITCH SW1 NOGROUP", "DEF VSWITCH SW1 NOG", "DEF VSWITCH SW1 NO",
      "ZVSCFG1004E Operand NO is not recognized by DEFINE VSWITCH", 1004 },
    { "DEFINE VSWITCH SW1 QUEUESTORAGE 1M", "DEF VSWITCH SW1 QUE 1M", "DEF VSWITCH SW1 QU 1M",
      "ZVSCFG1004E Operand QU is not recognized by DEFINE VSWITCH", 1004 },
    { "DEFINE VSWITCH SW1 PORTTYPE TRUNK", "DEF VSWITCH SW1 PORTT TRUNK",
      "DEF VSWITCH SW1 PORT TRUNK", "ZVSCFG1004E Operand PORT is not recognized by DEFINE VSWITCH",
      1004 },
    { "DEFINE VSWITCH SW1 CONNECT", "DEF VSWITCH SW1 CON", "DEF VSWITCH SW1 CO",
      "ZVSCFG1004E Operand CO is not recognized by DEFINE VSWITCH", 1004 },
    { "DEFINE VSWITCH SW1 DISCONNECT", "DEF VSWITCH SW1 DISCON", "DEF VSWITCH SW1 DISCO",
      "ZVSCFG1004E Operand DISCO is not recognized by DEFINE VSWITCH", 1004 },
    { "DEFINE VSWITCH SW1 CONTROLLER *", "DEF VSWITCH SW1 CONTR *", "DEF VSWITCH SW1 CONT *",
      "ZVSCFG1004E Operand CONT is not recognized by DEFINE VSWITCH", 1004 },
    { "DEFINE VSWITCH SW1 VLAN AWARE NATIVE 5", "DEF VSWITCH SW1 VLAN AWARE NAT 5",
      "DEF VSWITCH SW1 VLAN AWARE NA 5",
      "ZVSCFG1004E Operand NA is not recognized by DEFINE VSWITCH", 1004 },
    { "SET VSWITCH SW1 GRANT U1 PORTTYPE TRUNK", "SET VSWITCH SW1 GRA U1 PORTT TRUNK",
      "SET VSWITCH SW1 GRA U1 PORT TRUNK",
      "ZVSCFG1004E Operand PORT is not recognized by SET VSWITCH", 1004 },
    { "DETACH VSWITCH SW1", "DET VSW SW1", "DE VSW SW1", "HCPCMD001E Unknown CP command: DE", 1 },
    { "DETACH VSWITCH SW1", "DETA VSW SW1", NULL, NULL, 0 },
    { "DEFINE NIC 600", "DEF NIC 600", "DEF NI 600", "HCPCMD003E Invalid option - NI", 3 },
    { "DETACH NIC 600", "DET NIC 600", "DET NI 600", "HCPCMD003E Invalid option - NI", 3 },
    { "COUPLE 600 TO SYSTEM SW1", "COUP 600 TO SYSTEM SW1", "COU 600 TO SYSTEM SW1",
      "HCPCMD001E Unknown CP command: COU", 1 },
    { "COUPLE 600 TO SYSTEM SW1", "COUPL 600 TO SYSTEM SW1", NULL, NULL, 0 },
    { "UNCOUPLE 600", "UNCOUP 600", "UNCOU 600", "HCPCMD001E Unknown CP command: UNCOU", 1 },
    { "QUERY NIC", "Q NIC", "Q NI", "HCPCQV003E Invalid option - NI", 3 },
    { "QUERY VMLAN", "Q VMLAN", "Q VMLA", "HCPCQV003E Invalid option - VMLA", 3 },
    { "QUERY NIC 600 DETAILS", "Q NIC 600 DET", "Q NIC 600 DE", "HCPNIC003E Invalid option - DE",
      3 },
    { "QUERY VSWITCH SW1 ACCESSLIST", "Q VSW SW1 ACC", "Q VSW SW1 AC",
      "HCPSWQ003E Invalid option - AC", 3 },
    { "QUERY VSWITCH SW1 ACTIVE", "Q VSW SW1 ACT", "Q VSW SW1 AC",
      "HCPSWQ003E Invalid option - AC", 3 },
    { "QUERY VSWITCH SW1 ACCESSLIST", "Q VSW SW1 ACCESSL", NULL, NULL, 0 },
    { "SET VSWITCH SW1 GRANT U1", "SET VSWITCH SW1 GRA U1", "SET VSWITCH SW1 GR U1",
      "HCPCMD003E Invalid option - GR", 3 },
    { "SET VSWITCH SW1 REVOKE U1", "SET VSWITCH SW1 REV U1", "SET VSWITCH SW1 RE U1",
      "HCPCMD003E Invalid option - RE", 3 },
    { "SET VSWITCH SW1 QUEUESTORAGE 2", "SET VSWITCH SW1 QUE 2", "SET VSWITCH SW1 QU 2",
      "HCPCMD003E Invalid option - QU", 3 },
    { "SET VSWITCH SW1 ISOLATION ON", "SET VSWITCH SW1 ISOL ON", "SET VSWITCH SW1 ISO ON",
      "HCPCMD003E Invalid option - ISO", 3 },
    { "SET VSWITCH SW1 MACPROTECT ON", "SET VSWITCH SW1 MACP ON", "SET VSWITCH SW1 MAC ON",
      "HCPCMD003E Invalid option - MAC", 3 },
    { "SET VSWITCH SW1 MACPROTECT UNSPECIFIED", "SET VSWITCH SW1 MACPROT UNSPEC",
      "SET VSWITCH SW1 MACPROT UNSPE", "HCPCMD003E Invalid option - UNSPE", 3 },
    { "SET VSWITCH SW1 COUNTERS CLEAR", "SET VSWITCH SW1 COUNTERS CLEAR",
      "SET VSWITCH SW1 COUNTER CLEAR", "HCPCMD003E Invalid option - COUNTER", 3 },
    { "SET VSWITCH SW1 COUNTERS CLEAR", "SET VSWITCH SW1 COUNTERS CLEAR",
      "SET VSWITCH SW1 COUNTERS CLEA", "HCPCMD003E Invalid option - CLEA", 3 },
    { "SET VSWITCH SW1 COUNTERS CLEAR UPLINK", "SET VSWITCH SW1 COUNTERS CLEAR UPLINK",
      "SET VSWITCH SW1 COUNTERS CLEAR UPLIN", "HCPCMD003E Invalid option - UPLIN", 3 },
    { "SET VSWITCH SW1 COUNTERS CLEAR BRIDGEPORT", "SET VSWITCH SW1 COUNTERS CLEAR BRIDGE",
      "SET VSWITCH SW1 COUNTERS CLEAR BRIDG", "HCPCMD003E Invalid option - BRIDG", 3 },
    { "SET VSWITCH SW1 COUNTERS CLEAR ALL DATA", "SET VSWITCH SW1 COUNTERS CLEAR DATA",
      "SET VSWITCH SW1 COUNTERS CLEAR DAT", "HCPCMD003E Invalid option - DAT", 3 },
    { "SET VSWITCH SW1 COUNTERS CLEAR ALL DISCARDED",
      "SET VSWITCH SW1 COUNTERS CLEAR ALL DISCARD", "SET VSWITCH SW1 COUNTERS CLEAR DISCAR",
      "HCPCMD003E Invalid option - DISCAR", 3 },
    { "SET VSWITCH SW1 COUNTERS CLEAR UPLINK ERRORS",
      "SET VSWITCH SW1 COUNTERS CLEAR UPLINK ERROR",
      "SET VSWITCH SW1 COUNTERS CLEAR UPLINK ERRO", "HCPCMD003E Invalid option - ERRO", 3 },
    { "SET VSWITCH SW1 SWITCHOVER", "SET VSWITCH SW1 SWITCHOVER", "SET VSWITCH SW1 SWITCHOVE",
      "HCPCMD003E Invalid option - SWITCHOVE", 3 },
    { "SET VSWITCH SW1 SWITCHOVER AVAILABLE", "SET VSWITCH SW1 SWITCHOVER AVAILABLE",
      "SET VSWITCH SW1 SWITCHOVER AVAILABL", "HCPCMD003E Invalid option - AVAILABL", 3 },
    { "SET VSWITCH SW1 CONNECT", "SET VSWITCH SW1 CON", "SET VSWITCH SW1 CO",
      "HCPCMD003E Invalid option - CO", 3 },
    { "SET VSWITCH SW1 DISCONNECT", "SET VSWITCH SW1 DISCON", "SET VSWITCH SW1 DISCO",
      "HCPCMD003E Invalid option - DISCO", 3 },
    { "SET VSWITCH SW1 NOGROUP", "SET VSWITCH SW1 NOG", "SET VSWITCH SW1 NO",
      "HCPCMD003E Invalid option - NO", 3 },
    { "SET VSWITCH SW1 GROUP G1", "SET VSWITCH SW1 GRO G1", "SET VSWITCH SW1 GR G1",
      "HCPCMD003E Invalid option - GR", 3 },
    { "SET VSWITCH SW1 GROUP G1", "SET VSWITCH SW1 UPLINK GRO G1", NULL, NULL, 0 },
    { "SET VSWITCH SW1 NOGROUP", "SET VSWITCH SW1 UPLINK NOG", NULL, NULL, 0 },
    { "SET VSWITCH SW1 RDEV 300", "SET VSWITCH SW1 RDEV 300", "SET VSWITCH SW1 RDE 300",
      "HCPCMD003E Invalid option - RDE", 3 },
    { "SET VSWITCH SW1 RDEV NONE", "SET VSWITCH SW1 RDEV NONE", "SET VSWITCH SW1 RDEV NON",
      "HCPCMD002E Invalid operand - NON", 2 },
    { "SET VSWITCH SW1 RDEV 300", "SET VSWITCH SW1 UPLINK RDEV 300", "SET VSWITCH SW1 UPLIN RDEV 300",
      "HCPCMD003E Invalid option - UPLIN", 3 },
    /* Ours: DELETE in full (the SET PORT GROUP diagram was not read). */
    { "SET PORT GROUP G1 DELETE", "SET PORT GROUP G1 DELETE", "SET PORT GROUP G1 DELET",
      "HCPCMD003E Invalid option - DELET", 3 },
    { "DEFINE NIC 600 DEVICES 4", "DEF NIC 600 DEV 4", "DEF NIC 600 DE 4",
      "HCPNIC003E Invalid option - DE", 3 },
    { "DEFINE NIC 600 QDIO", "DEF NIC 600 QDIO", "DEF NIC 600 QDI",
      "HCPNIC003E Invalid option - QDI", 3 },
    { "DEFINE NIC USERID U1 600", "DEF NIC USERID U1 600", "DEF NIC USERI U1 600",
      "HCPNIC002E Invalid operand - USERI", 2 },
    { "COUPLE 600 TO SYSTEM SW1", "COUP 600 SYSTEM SW1", "COUP 600 SYSTE SW1",
      "HCPCMD002E Invalid operand - SYSTE", 2 },
    { "COUPLE 600 TO SYSTEM SW1", "COUP 600 TO SYSTEM SW1", "COUP 600 T SYSTEM SW1",
      "HCPCMD002E Invalid operand - T", 2 },
    { "QUERY NIC ALL", "Q NIC ALL", "Q NIC AL", "HCPNIC002E Invalid operand - AL", 2 },
    /* The machine commands. SIGNAL from its diagram ("SIGnal SHUTdown", USER, ALL and
     * WITHIN in full; z/VM 7.1); XAUTOLOG's diagram (z/VM 7.3) shows XAUTOLog, and XAUTO,
     * accepted since the machines came, stays; the rest ours. "SIG SHUT AL" is no
     * refusal: AL is a userid (test_machine_commands). */
    { "XAUTOLOG FP1", "XAUTO FP1", "XAUT FP1", "HCPCMD001E Unknown CP command: XAUT", 1 },
    { "XAUTOLOG FP1", "XAUTOL FP1", NULL, NULL, 0 },
    { "FORCE FP1", "FORCE FP1", "FORC FP1", "HCPCMD001E Unknown CP command: FORC", 1 },
    { "FORCE FP1", "FORCE FP1 IMME", "FORCE FP1 IMM", "HCPCMD003E Invalid option - IMM", 3 },
    { "FORCE FP1 IMMEDIATE", "FORCE FP1 IMMED", NULL, NULL, 0 },
    { "SIGNAL SHUTDOWN FP1", "SIG SHUT FP1", "SI SHUT FP1", "HCPCMD001E Unknown CP command: SI",
      1 },
    { "SIGNAL SHUTDOWN FP1", "SIG SHUT FP1", "SIG SHU FP1", "HCPCMD002E Invalid operand - SHU", 2 },
    { "SIGNAL SHUTDOWN USER ALL", "SIG SHUT USER ALL", "SIG SHUT USE ALL",
      "HCPCMD003E Invalid option - ALL", 3 },
    { "SIGNAL SHUTDOWN ALL", "SIG SHUT ALL", NULL, NULL, 0 },
    { "SIGNAL SHUTDOWN FP1 WITHIN 30", "SIG SHUT FP1 WITHIN 30", "SIG SHUT FP1 WITHI 30",
      "HCPCMD003E Invalid option - WITHI", 3 },
    { "SEND FP1 hello", "SEND FP1 hello", "SEN FP1 hello", "HCPCMD001E Unknown CP command: SEN",
      1 },
    { "QUERY NAMES", "Q NAM", "Q NA", "HCPCQV003E Invalid option - NA", 3 },
    { "QUERY USERS FP1", "Q USER FP1", "Q USE FP1", "HCPCQV003E Invalid option - USE", 3 },
    { "QUERY CONSLOG FP1", "Q CONSLOG FP1", "Q CONSLO FP1", "HCPCQV003E Invalid option - CONSLO",
      3 },
};

static void test_abbreviations(void **state)
{
    for (size_t i = 0; i < sizeof abbrevs / sizeof abbrevs[0]; i++) {
        const struct abbrev_case *a = &abbrevs[i];
        expect_same(a->full, a->shortest, ALL_CLASSES);
        if (a->shorter != NULL)
            parse_bad(a->shorter, ALL_CLASSES, a->refusal, a->rc);
    }
}

/* ---- machine commands ---------------------------------------------------------------- */

/* XAUTOLOG, FORCE, SIGNAL, SEND and QUERY NAMES / USERS / CONSLOG: operands, defaults,
 * classes and the answers to bad input (these cases came with the machines, issue 13). */
static void test_machine_commands(void **state)
{
    struct zvs_cmd c;

    c = parse_ok("xauto fp1", classes("B"));
    assert_int_equal(c.verb, ZVS_CMD_XAUTOLOG);
    assert_string_equal(c.userid, "FP1");
    assert_int_equal(parse_ok("FORCE FP1 IMMED", classes("A")).verb, ZVS_CMD_FORCE);
    c = parse_ok("SIG SHUT LNX1 WITHIN 30", classes("C"));
    assert_int_equal(c.verb, ZVS_CMD_SIGNAL_SHUTDOWN);
    assert_int_equal(c.within_s, 30);
    assert_string_equal(c.userid, "LNX1");
    c = parse_ok("SIGNAL SHUTDOWN ALL", classes("A"));
    assert_string_equal(c.userid, "");
    assert_int_equal(c.within_s, 300);
    c = parse_ok("SIGNAL SHUTDOWN USER ALL", classes("A"));
    assert_string_equal(c.userid, "ALL");
    c = parse_ok("SIG SHUT AL", classes("A"));        /* a userid: ALL is not abbreviated */
    assert_string_equal(c.userid, "AL");
    c = parse_ok("SIGNAL SHUTDOWN WITHIN", classes("A"));   /* a userid WITHIN */
    assert_string_equal(c.userid, "WITHIN");
    assert_int_equal(c.within_s, 300);
    c = parse_ok("SEND LNX1   ping -c 1  Host ", classes("C"));
    assert_int_equal(c.verb, ZVS_CMD_SEND);
    assert_string_equal(c.text, "ping -c 1  Host");
    assert_string_equal(parse_ok("SEND LNX1 \t", classes("C")).text, "");
    assert_int_equal(parse_ok("Q NAM", classes("G")).verb, ZVS_CMD_QUERY_NAMES);
    assert_int_equal(parse_ok("Q USER fp1", classes("G")).verb, ZVS_CMD_QUERY_USERS);
    c = parse_ok("QUERY CONSLOG FP1 5", classes("B"));
    assert_int_equal(c.verb, ZVS_CMD_QUERY_CONSLOG);
    assert_int_equal(c.lines, 5);
    assert_int_equal(parse_ok("Q CONSLOG FP1", classes("A")).lines, 20);
    /* The rest of the grammar is not theirs. */
    assert_int_equal(parse_ok("Q VSW", classes("B")).verb, ZVS_CMD_QUERY_VSWITCH);
    parse_bad("XAUT FP1", classes("B"), "HCPCMD001E Unknown CP command: XAUT", 1);
    /* Classes (checked before the operands) and bad input. */
    parse_bad("FORCE FP1", classes("B"),
              "ZVSCMD1100E Not authorized: FORCE requires privilege class A", 1100);
    parse_bad("XAUTOLOG FP1", classes("G"),
              "ZVSCMD1140E Not authorized: XAUTOLOG requires privilege class A or B", 1140);
    parse_bad("SEND FP1 hi", classes("G"),
              "ZVSCMD1140E Not authorized: SEND requires privilege class A, B or C", 1140);
    parse_bad("SIGNAL STOP", classes("G"),
              "ZVSCMD1140E Not authorized: SIGNAL requires privilege class A or C", 1140);
    parse_bad("Q NAMES", classes("ABC"),
              "ZVSCMD1100E Not authorized: QUERY NAMES requires privilege class G", 1100);
    parse_bad("Q CONSLOG FP1", classes("G"),
              "ZVSCMD1140E Not authorized: QUERY CONSLOG requires privilege class A or B", 1140);
    parse_bad("XAUTOLOG", classes("A"), "HCPCFC026E Operand missing or invalid", 26);
    parse_bad("XAUTOLOG TOOLONGUSER", classes("A"), "HCPCMD002E Invalid operand - TOOLONGUSER", 2);
    parse_bad("XAUTOLOG FP1 ASYNCH", classes("A"), "HCPCMD003E Invalid option - ASYNCH", 3);
    parse_bad("SIGNAL SHUTDOWN FP1 WITHIN 0", classes("A"),
              "ZVSCMD1105E Invalid WITHIN value - 0; valid: 1-32767", 1105);
    parse_bad("SIGNAL SHUTDOWN FP1 WITHIN 32768", classes("A"),
              "ZVSCMD1105E Invalid WITHIN value - 32768; valid: 1-32767", 1105);
    parse_bad("SIGNAL SHUTDOWN FP1 WITHIN", classes("A"), "HCPCFC026E Operand missing or invalid",
              26);
    parse_bad("SIGNAL SHUTDOWN FP1 BY 10:00", classes("A"), "HCPCMD003E Invalid option - BY", 3);
    parse_bad("SIGNAL SHUTDOWN WITHIN 30", classes("A"), "HCPCMD003E Invalid option - 30", 3);
    parse_bad("SIGNAL STOP FP1", classes("A"), "HCPCMD002E Invalid operand - STOP", 2);
    parse_bad("SIGNAL", classes("A"), "HCPCFC026E Operand missing or invalid", 26);
    parse_bad("SIGNAL SHUTDOWN", classes("A"), "HCPCFC026E Operand missing or invalid", 26);
    parse_bad("SIGNAL SHUTDOWN USER", classes("A"), "HCPCFC026E Operand missing or invalid", 26);
    parse_bad("SEND", classes("A"), "HCPCFC026E Operand missing or invalid", 26);
    parse_bad("FORCE FP1 IMMED NOW", classes("A"), "HCPCMD003E Invalid option - NOW", 3);
    parse_bad("Q NAMES FP1", classes("G"), "HCPCQU003E Invalid option - FP1", 3);
    parse_bad("Q USERS", classes("G"), "HCPCFC026E Operand missing or invalid", 26);
    parse_bad("Q USERS FP1 FP2", classes("G"), "HCPCQU003E Invalid option - FP2", 3);
    parse_bad("Q CONSLOG FP1 0", classes("B"),
              "ZVSCMD1105E Invalid CONSLOG value - 0; valid: 1-500", 1105);
    parse_bad("Q CONSLOG FP1 501", classes("B"),
              "ZVSCMD1105E Invalid CONSLOG value - 501; valid: 1-500", 1105);
    parse_bad("Q CONSLOG FP1 5 6", classes("B"), "HCPCQV003E Invalid option - 6", 3);
}

/* ---- privilege ----------------------------------------------------------------------- */

static void test_privilege(void **state)
{
    /* Class B: everything but the fault knobs. */
    parse_ok("SET PORT GROUP G1 JOIN 28BA", classes("B"));
    parse_ok("Q VSW", classes("B"));
    parse_ok("Q LACP", classes("B"));
    parse_ok("Q PORT GROUP", classes("B"));
    parse_bad("SET LACP 28BA DROPRX ON", classes("B"),
              "ZVSCMD1100E Not authorized: SET LACP requires privilege class A", 1100);
    /* Class A alone: the fault knobs only. */
    parse_ok("SET LACP 28BA DROPRX ON", classes("A"));
    parse_bad("Q LACP", classes("A"),
              "ZVSCMD1100E Not authorized: QUERY LACP requires privilege class B", 1100);
    /* Class G: its NICs, QUERY VMLAN and QUERY VSWITCH; none of the switch commands. */
    parse_ok("Q VSWITCH CCBVSW1 DETAILS", classes("G"));
    parse_ok("DEFINE NIC 600", classes("G"));
    parse_ok("DETACH NIC 600", classes("G"));
    parse_ok("COUPLE 600 TO SYSTEM SW1", classes("G"));
    parse_ok("UNCOUPLE 600", classes("G"));
    parse_ok("QUERY NIC", classes("G"));
    parse_ok("QUERY VMLAN", classes("G"));
    parse_bad("DEF", classes("G"), "HCPCFC026E Operand missing or invalid", 26);
    parse_bad("SET PORT GROUP G1 JOIN 28BA", classes("G"),
              "ZVSCMD1100E Not authorized: SET PORT GROUP requires privilege class B", 1100);
    parse_bad("DEFINE VSWITCH SW1", classes("G"),
              "ZVSCMD1100E Not authorized: DEFINE VSWITCH requires privilege class B", 1100);
    parse_bad("SET VSWITCH SW1 CONNECT", classes("G"),
              "ZVSCMD1100E Not authorized: SET VSWITCH requires privilege class B", 1100);
    parse_bad("DETACH VSWITCH SW1", classes("G"),
              "ZVSCMD1100E Not authorized: DETACH VSWITCH requires privilege class B", 1100);
    /* QUERY VSWITCH: B or G. */
    parse_ok("Q VSW", classes("G"));
    parse_bad("Q VSW", classes("A"),
              "ZVSCMD1140E Not authorized: QUERY VSWITCH requires privilege class B or G", 1140);
    parse_bad("Q VSW SW1 !!", 0,
              "ZVSCMD1140E Not authorized: QUERY VSWITCH requires privilege class B or G", 1140);
    /* The NIC commands: G (B alone does not do). */
    parse_bad("DEFINE NIC 600", classes("AB"),
              "ZVSCMD1100E Not authorized: DEFINE NIC requires privilege class G", 1100);
    parse_bad("COUPLE 600 TO SYSTEM SW1", classes("B"),
              "ZVSCMD1100E Not authorized: COUPLE requires privilege class G", 1100);
    /* Privilege is checked before the operands. */
    parse_bad("SET PORT GROUP !! JOIN", classes("G"),
              "ZVSCMD1100E Not authorized: SET PORT GROUP requires privilege class B", 1100);
    /* Classes outside A-G count too; no class at all refuses everything. */
    parse_ok("Q LACP", classes("B1"));
    parse_bad("Q LACP", classes("CDEFG123456"),
              "ZVSCMD1100E Not authorized: QUERY LACP requires privilege class B", 1100);
    parse_bad("Q LACP", 0, "ZVSCMD1100E Not authorized: QUERY LACP requires privilege class B",
              1100);
}

/* ---- length limits and sanitising ---------------------------------------------------- */

static void test_line_length(void **state)
{
    char line[ZVS_CMD_LINE_MAX + 2];
    const char *cmd = "Q LACP";

    memset(line, ' ', sizeof line);
    memcpy(line, cmd, strlen(cmd));
    line[ZVS_CMD_LINE_MAX] = '\0';      /* exactly the limit: accepted */
    assert_int_equal(parse_ok(line, ALL_CLASSES).verb, ZVS_CMD_QUERY_LACP);
    line[ZVS_CMD_LINE_MAX] = ' ';
    line[ZVS_CMD_LINE_MAX + 1] = '\0';  /* one more: refused */
    parse_bad(line, ALL_CLASSES, "ZVSCMD1102E Command line longer than 1024 characters is ignored",
              1102);
}

static void test_many_tokens(void **state)
{
    char line[ZVS_CMD_LINE_MAX + 1];
    size_t n = 0;

    n += (size_t)snprintf(line, sizeof line, "SET PORT GROUP G1 JOIN");
    while (n + 2 <= ZVS_CMD_LINE_MAX) {
        line[n++] = ' ';
        line[n++] = '1';
    }
    line[n] = '\0';
    parse_bad(line, ALL_CLASSES, "ZVSCMD1104E Device 1 is given more than once", 1104);
    /* Nothing but blanks and one-letter tokens: the most tokens a line can hold. */
    for (n = 0; n + 2 <= ZVS_CMD_LINE_MAX; n += 2) {
        line[n] = 'X';
        line[n + 1] = ' ';
    }
    line[n] = '\0';
    parse_bad(line, ALL_CLASSES, "HCPCMD001E Unknown CP command: X", 1);
}

/* ---- golden files -------------------------------------------------------------------- */

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long size;

    if (f == NULL)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)size + 1)) != NULL) {
        *len = fread(buf, 1, (size_t)size, f);
        buf[*len] = '\0';
    }
    fclose(f);
    return buf;
}

struct text {
    char  *s;
    size_t len;
    size_t cap;
};

static void text_add(struct text *t, const char *s, size_t n)
{
    if (t->len + n + 1 > t->cap) {
        t->cap = (t->len + n + 1) * 2;
        t->s = realloc(t->s, t->cap);
        assert_non_null(t->s);
    }
    memcpy(t->s + t->len, s, n);
    t->len += n;
    t->s[t->len] = '\0';
}

/* The golden command files share one layout: "#" comment lines (kept), command lines
 * "> command" or ">CLASSES command" (">- command": no class at all), and after each the
 * lines the test writes for it (dropped on reading, rebuilt by `each`). golden_walk runs
 * `each` for every command with its issuer's classes and appends what it rebuilds to
 * `out`; golden_finish rewrites the file under ZVS_GOLDEN_UPDATE=1 and compares it byte
 * for byte. Returns the number of commands. */
typedef void golden_fn(const char *cmdline, uint32_t privclass, struct text *out);

static unsigned golden_walk(const char *golden, size_t len, golden_fn *each, struct text *out)
{
    unsigned ncmd = 0;
    for (const char *p = golden; p < golden + len; ) {
        const char *nl = memchr(p, '\n', (size_t)(golden + len - p));
        size_t n = nl != NULL ? (size_t)(nl - p) : (size_t)(golden + len - p);
        char line[2 * ZVS_CMD_LINE_MAX];

        assert_true(n < sizeof line);
        memcpy(line, p, n);
        line[n] = '\0';
        p += n + (nl != NULL);
        if (line[0] == '#') {
            text_add(out, line, n);
            text_add(out, "\n", 1);
            continue;
        }
        if (line[0] != '>')
            continue;                   /* written by `each`: rebuilt */
        char *sp = strchr(line, ' ');
        assert_non_null(sp);
        char cls[32] = "";
        assert_true((size_t)(sp - line - 1) < sizeof cls);
        memcpy(cls, line + 1, (size_t)(sp - line - 1));
        cls[sp - line - 1] = '\0';
        uint32_t privclass = cls[0] == '\0' ? ALL_CLASSES :
                             strcmp(cls, "-") == 0 ? 0 : classes(cls);
        text_add(out, line, n);
        text_add(out, "\n", 1);
        each(sp + 1, privclass, out);
        ncmd++;
    }
    return ncmd;
}

static void golden_finish(const char *path, struct text *out, char *golden, size_t len)
{
    if (getenv("ZVS_GOLDEN_UPDATE") != NULL) {
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(out->s, 1, out->len, f), out->len);
        fclose(f);
    }
    if (out->len != len || memcmp(out->s, golden, len) != 0) {
        fprintf(stderr, "%s differs; rebuilt:\n%s", path, out->s);
        fail();
    }
    free(out->s);
    free(golden);
}

/* A refused command: *cmd untouched, one error line, rc > 0; writes the line and rc. */
static void golden_refused(const char *cmdline, uint32_t privclass, struct text *out)
{
    struct zvs_cmd cmd, before;
    struct zvs_cp_response r;
    char rcline[32];
    memset(&cmd, 0xC3, sizeof cmd);
    memcpy(&before, &cmd, sizeof cmd);
    zvs_cp_response_init(&r);
    if (zvs_cmd_parse(cmdline, privclass, &cmd, &r) >= 0)
        fail_msg("golden command accepted: \"%s\"", cmdline);
    assert_memory_equal(&cmd, &before, sizeof cmd);
    assert_true(r.rc > 0);
    text_add(out, r.text, r.len);
    snprintf(rcline, sizeof rcline, "rc=%d\n", r.rc);
    text_add(out, rcline, strlen(rcline));
    zvs_cp_response_fini(&r);
}

/* Every refused command and its exact response (GOLDEN_ERRORS). */
static void test_golden_errors(void **state)
{
    size_t len = 0;
    char *golden = read_file(GOLDEN_ERRORS, &len);
    struct text out = { 0 };
    assert_non_null(golden);
    assert_true(golden_walk(golden, len, golden_refused, &out) >= 80);
    golden_finish(GOLDEN_ERRORS, &out, golden, len);
}

/* An accepted command: its canonical text parses back to the identical struct. */
static void golden_canonical(const char *cmdline, uint32_t privclass, struct text *out)
{
    struct zvs_cmd cmd, again;
    char canon[ZVS_CMD_LINE_MAX + 1];
    parse_into(cmdline, privclass, &cmd);
    size_t clen = zvs_cmd_format(&cmd, canon, sizeof canon);
    assert_true(clen > 0 && clen < sizeof canon);
    parse_into(canon, privclass, &again);
    assert_memory_equal(&cmd, &again, sizeof cmd);
    expect_clean(cmdline, privclass);
    text_add(out, "= ", 2);
    text_add(out, canon, clen);
    text_add(out, "\n", 1);
}

/* Every accepted command of the canonical corpus: "> command" (or ">CLASSES command")
 * followed by "= canonical text" (GOLDEN_CANONICAL). */
static void test_golden_canonical(void **state)
{
    size_t len = 0;
    char *golden = read_file(GOLDEN_CANONICAL, &len);
    struct text out = { 0 };
    assert_non_null(golden);
    assert_true(golden_walk(golden, len, golden_canonical, &out) >= 60);
    golden_finish(GOLDEN_CANONICAL, &out, golden, len);
}

/* ---- canonical text ------------------------------------------------------------------ */

static void test_format_round_trip(void **state)
{
    static const struct { const char *in; const char *canon; } cases[] = {
        { "set port group ccbgroup join 28ba 2902 300.p1",
          "SET PORT GROUP CCBGROUP JOIN 28BA 2902 0300.P1" },
        { "SET PORT GROUP G1 LEAVE 28ba", "SET PORT GROUP G1 LEAVE 28BA" },
        { "SET PORT GROUP G1 LACP INACT", "SET PORT GROUP G1 LACP INACTIVE" },
        { "SET PORT GROUP G1 LACP ACT", "SET PORT GROUP G1 LACP ACTIVE" },
        { "SET PORT GROUP G1 INT 30", "SET PORT GROUP G1 INTERVAL 30" },
        { "SET PORT GROUP G1 INT OFF", "SET PORT GROUP G1 INTERVAL OFF" },
        { "SET PORT GROUP G1 POLICY LOAD", "SET PORT GROUP G1 POLICY LOAD TOTAL" },
        { "SET PORT GROUP G1 POLICY load outbound", "SET PORT GROUP G1 POLICY LOAD OUTBOUND" },
        { "SET PORT GROUP G1 POLICY LBT", "SET PORT GROUP G1 POLICY LBT 75" },
        { "SET PORT GROUP G1 POLICY LBT 060", "SET PORT GROUP G1 POLICY LBT 60" },
        { "Q PORT GROUP", "QUERY PORT GROUP ALL" },
        { "Q PORT GROUP G1", "QUERY PORT GROUP G1" },
        { "Q LACP DET", "QUERY LACP ALL DETAILS" },
        { "Q LACP G1", "QUERY LACP G1" },
        { "Q VSW CCBVSW1 DET", "QUERY VSWITCH CCBVSW1 DETAILS" },
        { "SET LACP 28BA.P2 DROPRX ON", "SET LACP 28BA.P2 DROPRX ON" },
        { "SET LACP 28BA DROPTX OFF", "SET LACP 28BA DROPTX OFF" },
        { "SET LACP 28BA DELAYTX 007", "SET LACP 28BA DELAYTX 7" },
        { "SET PORT GROUP G1 DELETE", "SET PORT GROUP G1 DELETE" },
        { "Q VSW", "QUERY VSWITCH ALL" },
        { "Q VSW SW1", "QUERY VSWITCH SW1" },
        { "Q VSW ACC", "QUERY VSWITCH ALL ACCESSLIST" },
        { "Q VSW SW1 ACT", "QUERY VSWITCH SW1 ACTIVE" },
        { "Q VSW ACT ACT", "QUERY VSWITCH ACT ACTIVE" },
        { "Q VSW DET DET", "QUERY VSWITCH DET DETAILS" },
        { "Q LACP DET DET", "QUERY LACP DET DETAILS" },
        { "DEF VSWITCH sw1",
          "DEFINE VSWITCH SW1 RDEV NONE VLAN UNAWARE PORTTYPE ACCESS QUEUESTORAGE 8M CONNECT"
          " CONTROLLER * NOGROUP MACPROTECT UNSPECIFIED ISOLATION OFF" },
        { "DEF VSWITCH SW1 RDEV 300 400.P1 2902 VLAN AWARE NATIVE NONE PORTTYPE TRUNK"
          " QUEUESTORAGE 2 DISCONNECT CONTROLLER DTCVSW1 GROUP G1 MACPROTECT ON ISOLATION ON",
          "DEFINE VSWITCH SW1 RDEV 0300 0400.P1 2902 VLAN AWARE NATIVE NONE PORTTYPE TRUNK"
          " QUEUESTORAGE 2M DISCONNECT CONTROLLER DTCVSW1 GROUP G1 MACPROTECT ON ISOLATION ON" },
        { "DEF VSWITCH SW1 NOUPLINK VLAN 1 NATIVE 4094",
          "DEFINE VSWITCH SW1 NOUPLINK VLAN AWARE NATIVE 4094 PORTTYPE ACCESS QUEUESTORAGE 8M"
          " CONNECT CONTROLLER * NOGROUP MACPROTECT UNSPECIFIED ISOLATION OFF" },
        { "DEF VSWITCH SW1 VLAN 100 MACPROTECT OFF",
          "DEFINE VSWITCH SW1 RDEV NONE VLAN 100 NATIVE 1 PORTTYPE ACCESS QUEUESTORAGE 8M"
          " CONNECT CONTROLLER * NOGROUP MACPROTECT OFF ISOLATION OFF" },
        { "SET VSWITCH SW1 GRANT linux1", "SET VSWITCH SW1 GRANT LINUX1" },
        { "SET VSWITCH SW1 GRANT LINUX1 VLAN 30 10-20 21 PORTTYPE TRUNK",
          "SET VSWITCH SW1 GRANT LINUX1 PORTTYPE TRUNK VLAN 10-21 30" },
        { "SET VSWITCH SW1 GRANT LINUX1 PORTTYPE ACCESS VLAN 0010",
          "SET VSWITCH SW1 GRANT LINUX1 PORTTYPE ACCESS VLAN 10" },
        { "SET VSWITCH SW1 REVOKE linux1", "SET VSWITCH SW1 REVOKE LINUX1" },
        { "SET VSWITCH SW1 UPLINK RDEV 300 400.p2", "SET VSWITCH SW1 RDEV 0300 0400.P2" },
        { "SET VSWITCH SW1 RDEV none", "SET VSWITCH SW1 RDEV NONE" },
        { "SET VSWITCH SW1 GROUP g1", "SET VSWITCH SW1 GROUP G1" },
        { "SET VSWITCH SW1 NOGROUP", "SET VSWITCH SW1 NOGROUP" },
        { "SET VSWITCH SW1 UPLINK CON", "SET VSWITCH SW1 CONNECT" },
        { "SET VSWITCH SW1 DISCON", "SET VSWITCH SW1 DISCONNECT" },
        { "SET VSWITCH SW1 QUEUEST 3", "SET VSWITCH SW1 QUEUESTORAGE 3M" },
        { "SET VSWITCH SW1 ISOL ON", "SET VSWITCH SW1 ISOLATION ON" },
        { "SET VSWITCH SW1 ISOL OFF", "SET VSWITCH SW1 ISOLATION OFF" },
        { "SET VSWITCH SW1 MACPROT UNSPEC", "SET VSWITCH SW1 MACPROTECT UNSPECIFIED" },
        { "SET VSWITCH SW1 MACPROT ON", "SET VSWITCH SW1 MACPROTECT ON" },
        { "SET VSWITCH SW1 COUNTERS CLEAR", "SET VSWITCH SW1 COUNTERS CLEAR ALL" },
        { "SET VSWITCH SW1 COUNTERS CLEAR UPLINK", "SET VSWITCH SW1 COUNTERS CLEAR UPLINK" },
        { "SET VSWITCH SW1 SWITCHOVER", "SET VSWITCH SW1 SWITCHOVER AVAILABLE" },
        { "SET VSWITCH SW1 UPLINK SWITCHOVER RDEV 400", "SET VSWITCH SW1 SWITCHOVER RDEV 0400" },
        { "DET VSW SW1", "DETACH VSWITCH SW1" },
        { "DEF NIC 600", "DEFINE NIC 0600 QDIO DEVICES 3" },
        { "DEF NIC USERID linux1 a QDIO DEV 0006", "DEFINE NIC USERID LINUX1 000A QDIO DEVICES 6" },
        { "DET NIC ffff", "DETACH NIC FFFF" },
        { "DET NIC USERID LINUX1 600", "DETACH NIC USERID LINUX1 0600" },
        { "COUP 600 SYSTEM sw1", "COUPLE 0600 TO SYSTEM SW1" },
        { "COUPLE USERID LINUX1 600 TO SYSTEM SW1", "COUPLE USERID LINUX1 0600 TO SYSTEM SW1" },
        { "UNCOUP 600", "UNCOUPLE 0600" },
        { "UNCOUP USERID LINUX1 600", "UNCOUPLE USERID LINUX1 0600" },
        { "Q NIC", "QUERY NIC ALL" },
        { "Q NIC DET", "QUERY NIC ALL DETAILS" },
        { "Q NIC 600", "QUERY NIC 0600" },
        { "Q NIC de det", "QUERY NIC 00DE DETAILS" },
        { "Q NIC USERID LINUX1", "QUERY NIC USERID LINUX1 ALL" },
        { "Q NIC USERID LINUX1 600 DET", "QUERY NIC USERID LINUX1 0600 DETAILS" },
        { "Q VMLAN", "QUERY VMLAN" },
        { "xauto fp1", "XAUTOLOG FP1" },
        { "FORCE fp1 IMMED", "FORCE FP1" },
        { "SIG SHUT fp1", "SIGNAL SHUTDOWN FP1 WITHIN 300" },
        { "SIG SHUT ALL WITHIN 030", "SIGNAL SHUTDOWN ALL WITHIN 30" },
        { "SIG SHUT USER all", "SIGNAL SHUTDOWN USER ALL WITHIN 300" },
        { "SIG SHUT USER USER", "SIGNAL SHUTDOWN USER USER WITHIN 300" },
        { "SIG SHUT WITHIN WITHIN 5", "SIGNAL SHUTDOWN WITHIN WITHIN 5" },
        { "SEND fp1", "SEND FP1" },
        { "SEND fp1\t echo  Hi\t ", "SEND FP1 echo  Hi" },
        { "Q NAM", "QUERY NAMES" },
        { "Q USER fp1", "QUERY USERS FP1" },
        { "Q CONSLOG fp1", "QUERY CONSLOG FP1 20" },
        { "Q CONSLOG fp1 0500", "QUERY CONSLOG FP1 500" },
    };
    char buf[ZVS_CMD_LINE_MAX + 1];

    assert_true(sizeof cases / sizeof cases[0] >= 60);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct zvs_cmd c = parse_ok(cases[i].in, ALL_CLASSES);
        size_t n = zvs_cmd_format(&c, buf, sizeof buf);
        assert_string_equal(buf, cases[i].canon);
        assert_int_equal(n, strlen(cases[i].canon));
        expect_same(cases[i].in, buf, ALL_CLASSES);
        expect_clean(cases[i].in, ALL_CLASSES);
    }
    /* A short buffer: cut, NUL-terminated, full length returned. */
    struct zvs_cmd c = parse_ok("Q VSW CCBVSW1 DET", ALL_CLASSES);
    assert_int_equal(zvs_cmd_format(&c, buf, 8), strlen("QUERY VSWITCH CCBVSW1 DETAILS"));
    assert_string_equal(buf, "QUERY V");
}

/* ---- responses ----------------------------------------------------------------------- */

static void test_response_lines(void **state)
{
    struct zvs_cp_response r;

    zvs_cp_response_init(&r);
    assert_non_null(r.text);
    assert_string_equal(r.text, "");
    zvs_cp_printf(&r, "VSWITCH SYSTEM %s Type: QDIO Connected: %d", "CCBVSW1", 2);
    zvs_cp_printf(&r, "a\x1e" "b");
    assert_string_equal(r.text, "VSWITCH SYSTEM CCBVSW1 Type: QDIO Connected: 2\na?b\n");
    assert_int_equal(r.len, strlen(r.text));
    assert_int_equal(r.rc, 0);
    zvs_cp_error(&r, ZVS_CPMSG_GROUP_NOT_FOUND, "nogrp");
    assert_string_equal(r.text + r.len - strlen("ZVSLAG1110E Port group NOGRP does not exist\n"),
                        "ZVSLAG1110E Port group NOGRP does not exist\n");
    assert_int_equal(r.rc, 1110);
    /* A line longer than printf's stack buffer. */
    char big[1000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    size_t before = r.len;
    zvs_cp_printf(&r, "%s", big);
    assert_int_equal(r.len, before + sizeof big);
    assert_int_equal(r.text[r.len - 1], '\n');
    zvs_cp_response_fini(&r);
    assert_int_equal(r.len, 0);
    assert_string_equal(r.text, "");
    zvs_cp_response_fini(&r);           /* twice is harmless */
}

static void test_response_truncated(void **state)
{
    struct zvs_cp_response r;
    char line[1024];
    unsigned lines = 0;

    memset(line, 'y', sizeof line - 1);
    line[sizeof line - 1] = '\0';
    zvs_cp_response_init(&r);
    for (unsigned i = 0; i < 2000; i++) {
        size_t before = r.len;
        zvs_cp_printf(&r, "%s", line);
        if (r.len == before + sizeof line)
            lines++;
    }
    const char *tail = "ZVSCMD1109W Response truncated\n";
    assert_true(r.len <= (1u << 20) + 64);
    assert_true(r.cap <= (1u << 20) + 65);
    assert_true(lines > 1000 && lines < 2000);
    assert_string_equal(r.text + r.len - strlen(tail), tail);
    assert_int_equal(r.len, (size_t)lines * sizeof line + strlen(tail));
    size_t len = r.len;
    zvs_cp_printf(&r, "more");
    zvs_cp_error(&r, ZVS_CPMSG_INVALID_OPTION, "X");
    assert_int_equal(r.len, len);       /* nothing after the truncation line */
    assert_int_equal(r.rc, 3);          /* but the rc still counts */
    zvs_cp_response_fini(&r);
}

/* ---- catalogue ----------------------------------------------------------------------- */

static void test_catalogue(void **state)
{
    char buf[ZVS_CPMSG_TEXT_MAX];
    const char *args[] = { "a\x1e\tb", "c" };

    for (int i = 0; i < ZVS_CPMSG_COUNT; i++) {
        const struct zvs_cpmsg_def *d = zvs_cpmsg_def((enum zvs_cpmsg_id)i);
        assert_non_null(d->text);
        assert_true(zvs_cpmsg_nargs((enum zvs_cpmsg_id)i) <= ZVS_CPMSG_ARGS_MAX);
        assert_true(d->severity == 'I' || d->severity == 'W' || d->severity == 'E' ||
                    d->severity == 'S');
        /* Errors end a command with their number as rc; notices with 0. */
        assert_int_equal(d->rc, d->severity == 'E' || d->severity == 'S' ? d->number : 0);
        /* The prefix: none (HCP + the answering command's module), or HCP or ZVS and
         * three letters; ours are 1100-1299 (cp_messages.h). */
        if (d->prefix != NULL) {
            assert_int_equal(strlen(d->prefix), 6);
            assert_true(strncmp(d->prefix, "HCP", 3) == 0 || strncmp(d->prefix, "ZVS", 3) == 0);
        }
        if (d->prefix != NULL && strncmp(d->prefix, "ZVS", 3) == 0)
            assert_true(d->number >= 1100 && d->number <= 1299);
        /* Every number once, across IBM's ids and ours alike (the rc tells every message
         * apart), and every id (as the default module gives it) once. */
        char id[16], other[16];
        zvs_cpmsg_id(id, sizeof id, (enum zvs_cpmsg_id)i, NULL);
        for (int j = 0; j < i; j++) {
            const struct zvs_cpmsg_def *e = zvs_cpmsg_def((enum zvs_cpmsg_id)j);
            assert_int_not_equal(e->number, d->number);
            zvs_cpmsg_id(other, sizeof other, (enum zvs_cpmsg_id)j, NULL);
            assert_string_not_equal(other, id);
        }
    }
    /* zvswitch's own ids: ZVS, the component, four digits, the severity. */
    const char *nm[] = { "peer1.lab" };
    zvs_cpmsg_format(buf, sizeof buf, ZVS_CPMSG_RES_WATCHED, nm, 1);
    assert_string_equal(buf, "ZVSRES1200E Name PEER1.LAB is already watched");
    zvs_cpmsg_format(buf, sizeof buf, ZVS_CPMSG_UNKNOWN_COMMAND, args, 1);
    assert_string_equal(buf, "HCPCMD001E Unknown CP command: A??B");
    zvs_cpmsg_format(buf, sizeof buf, ZVS_CPMSG_DEVICE_IN_GROUP, args, 1);
    assert_string_equal(buf, "ZVSLAG1112E Device A??B is already in port group ?");
    /* Unsolicited: CP's module in the id; a second line repeats it; a Linux interface
     * name keeps its case (still sanitised). Texts: cp_messages.h names their sources. */
    const char *sw[] = { "CCBVSW1", "ready" };
    zvs_cpmsg_format(buf, sizeof buf, ZVS_CPMSG_SWITCH_STATUS, sw, 2);
    assert_string_equal(buf, "HCPSWU2830I VSWITCH SYSTEM CCBVSW1 status is ready.");
    zvs_cpmsg_format(buf, sizeof buf, ZVS_CPMSG_SWITCH_NOT_ACTIVE, sw, 1);
    assert_string_equal(buf, "HCPSWU2832E Connection for VSWITCH SYSTEM CCBVSW1 is not active.\n"
                             "HCPSWU2832E None of the RDEVs are available working OSA-Express"
                             " devices.");
    const char *dev[] = { "2902", "CCBVSW1", "carrier down on interface osa\x1e" "2902" };
    zvs_cpmsg_format(buf, sizeof buf, ZVS_CPMSG_DEVICE_NOT_READY, dev, 3);
    assert_string_equal(buf, "ZVSVSW1170E Device 2902 of VSWITCH SYSTEM CCBVSW1 is not ready:"
                             " carrier down on interface osa?2902");
    /* Cut to the buffer, full length returned. */
    assert_int_equal(zvs_cpmsg_format(buf, 13, ZVS_CPMSG_OPERAND_MISSING, NULL, 0),
                     strlen("HCPCFC026E Operand missing or invalid"));
    assert_string_equal(buf, "HCPCFC026E O");
}

/* What z/VM automation issues (cp-commands/README.md "What z/VM automation issues"):
 * QUERY USERID, QUERY CPLEVEL, QUERY VIRTUAL NIC, QUERY LAN [name|ALL] [OWNER owner],
 * DEFINE NIC vdev TYPE QDIO. Their errors carry their command's CP module. */
static void test_automation_commands(void **state)
{
    struct zvs_cmd c;
    assert_int_equal(parse_ok("Q USERID", classes("G")).verb, ZVS_CMD_QUERY_USERID);
    assert_int_equal(parse_ok("QUERY CPLEVEL", classes("G")).verb, ZVS_CMD_QUERY_CPLEVEL);
    assert_int_equal(parse_ok("q cplev", classes("G")).verb, ZVS_CMD_QUERY_CPLEVEL);
    parse_bad("Q CPLE", classes("G"), "HCPCQV003E Invalid option - CPLE", 3);
    parse_bad("Q USERID X", classes("G"), "HCPCMD003E Invalid option - X", 3);

    c = parse_ok("Q V NIC", classes("G"));
    assert_int_equal(c.verb, ZVS_CMD_QUERY_VIRTUAL_NIC);
    assert_false(c.has_vdev);
    assert_false(c.details);
    assert_string_equal(c.target, "");
    c = parse_ok("QUERY VIRTUAL NIC 600 DET", classes("G"));
    assert_true(c.has_vdev);
    assert_int_equal(c.vdev, 0x600);
    assert_true(c.details);
    assert_false(parse_ok("Q V NIC ALL", classes("G")).has_vdev);
    parse_bad("Q V NIC XYZ", classes("G"), "HCPNDQ002E Invalid operand - XYZ", 2);
    parse_bad("Q V NIC 600 700", classes("G"), "HCPNDQ003E Invalid option - 700", 3);
    parse_bad("Q V NI", classes("G"), "HCPCQV003E Invalid option - NI", 3);
    parse_bad("Q V", classes("G"), "HCPCFC026E Operand missing or invalid", 26);

    c = parse_ok("Q LAN", classes("G"));
    assert_int_equal(c.verb, ZVS_CMD_QUERY_LAN);
    assert_string_equal(c.name, "");
    assert_string_equal(c.userid, "");
    c = parse_ok("Q LAN VSW1 OWNER SYSTEM", classes("G"));
    assert_string_equal(c.name, "VSW1");
    assert_string_equal(c.userid, "SYSTEM");
    c = parse_ok("QUERY LAN ALL OWNER SYSTEM", classes("G"));
    assert_string_equal(c.name, "");
    assert_string_equal(c.userid, "SYSTEM");
    c = parse_ok("Q LAN OWNER SYSTEM", classes("G"));   /* OWNER with its value: the keyword */
    assert_string_equal(c.name, "");
    assert_string_equal(c.userid, "SYSTEM");
    c = parse_ok("Q LAN OWNER", classes("G"));          /* last token, no value: a LAN name */
    assert_string_equal(c.name, "OWNER");
    parse_bad("Q LAN VSW1 OWNER", classes("G"), "HCPCFC026E Operand missing or invalid", 26);
    parse_bad("Q LAN VSW1 FOO", classes("G"), "HCPVLQ003E Invalid option - FOO", 3);

    c = parse_ok("DEFINE NIC 600 TYPE QDIO", classes("G"));
    assert_int_equal(c.verb, ZVS_CMD_DEFINE_NIC);
    assert_int_equal(c.vdev, 0x600);
    assert_int_equal(c.devices, 3);
    assert_int_equal(parse_ok("DEF NIC 600 TYPE QDIO DEV 6", classes("G")).devices, 6);
    parse_bad("DEF NIC 600 TYPE HIPERSOCKETS", classes("G"),
              "HCPNIC003E Invalid option - HIPERSOCKETS", 3);
    parse_bad("DEF NIC 600 TYPE QDIO QDIO", classes("G"), "HCPNIC003E Invalid option - QDIO", 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grammar_check),
        cmocka_unit_test(test_set_port_group_join),
        cmocka_unit_test(test_set_port_group_leave),
        cmocka_unit_test(test_set_port_group_lacp),
        cmocka_unit_test(test_set_port_group_shared),
        cmocka_unit_test(test_set_vswitch_ivlport),
        cmocka_unit_test(test_set_port_group_interval),
        cmocka_unit_test(test_set_port_group_policy),
        cmocka_unit_test(test_query_port_group),
        cmocka_unit_test(test_query_lacp),
        cmocka_unit_test(test_query_vswitch),
        cmocka_unit_test(test_set_lacp_fault),
        cmocka_unit_test(test_set_port_group_delete),
        cmocka_unit_test(test_define_vswitch_defaults),
        cmocka_unit_test(test_define_vswitch_operands),
        cmocka_unit_test(test_define_vswitch_errors),
        cmocka_unit_test(test_define_vswitch_token_limit),
        cmocka_unit_test(test_define_vswitch_is_the_statement),
        cmocka_unit_test(test_shared_operand_parsers),
        cmocka_unit_test(test_set_vswitch_grant),
        cmocka_unit_test(test_set_vswitch_grant_errors),
        cmocka_unit_test(test_set_vswitch_revoke),
        cmocka_unit_test(test_set_vswitch_rdev),
        cmocka_unit_test(test_set_vswitch_group),
        cmocka_unit_test(test_set_vswitch_connect),
        cmocka_unit_test(test_set_vswitch_uplink),
        cmocka_unit_test(test_set_vswitch_queuestorage),
        cmocka_unit_test(test_set_vswitch_isolation),
        cmocka_unit_test(test_set_vswitch_macprotect),
        cmocka_unit_test(test_set_vswitch_counters),
        cmocka_unit_test(test_set_vswitch_switchover),
        cmocka_unit_test(test_set_vswitch_errors),
        cmocka_unit_test(test_detach_vswitch),
        cmocka_unit_test(test_define_nic),
        cmocka_unit_test(test_detach_nic),
        cmocka_unit_test(test_couple),
        cmocka_unit_test(test_uncouple),
        cmocka_unit_test(test_query_nic),
        cmocka_unit_test(test_query_vmlan),
        cmocka_unit_test(test_userid_needs_class_b),
        cmocka_unit_test(test_blanks_and_report_sequence),
        cmocka_unit_test(test_set_port_group_bad_operand_one_message),
        cmocka_unit_test(test_abbreviations),
        cmocka_unit_test(test_machine_commands),
        cmocka_unit_test(test_automation_commands),
        cmocka_unit_test(test_privilege),
        cmocka_unit_test(test_line_length),
        cmocka_unit_test(test_many_tokens),
        cmocka_unit_test(test_golden_errors),
        cmocka_unit_test(test_golden_canonical),
        cmocka_unit_test(test_format_round_trip),
        cmocka_unit_test(test_response_lines),
        cmocka_unit_test(test_response_truncated),
        cmocka_unit_test(test_catalogue),
    };
    return cmocka_run_group_tests_name("command", tests, NULL, NULL);
}
