/* The running configuration: zvs_cfg_apply on a configuration parsed from SYSTEM CONFIG
 * and USER DIRECT text.
 *
 * Every test builds its commands as the parser would (struct zvs_cmd, zeroed first) and
 * asserts the exact response (text and CP return code), the exact resulting fields and,
 * where the dump shows them, the exact dump lines. Every refused command is checked the
 * same way: one error line, the errno, and a configuration identical before and after
 * (zvs_cfg_dump text and the whole struct byte for byte, cfg->msgs included).
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

#include "tests/unit/cfg_text.h"
#include "cp-commands/cfg_apply.h"

/* ---- fixtures ------------------------------------------------------------------------ */

/* Three switches (VSWB NOUPLINK VLAN aware; VSWC VLAN 10 TRUNK with group GRPC), an
 * unused group GRPX (2D00 and 3007, JOINed by two statements), an empty group GRPE; free
 * mapped devices 28BA 2902 3000-3006;
 * 2E00 has no RDEVICE. MACIDs: LINUX2 0620 names 000007, the others get 1-6, 8, 9. */
static const char RICH_SC[] =
    "RDEVICE 28BA INTERFACE osa28ba\n"
    "RDEVICE 2902 INTERFACE osa2902\n"
    "RDEVICE 2A00 INTERFACE osa2a00\n"
    "RDEVICE 2B00 INTERFACE osa2b00\n"
    "RDEVICE 2C00 INTERFACE osa2c00\n"
    "RDEVICE 2D00 INTERFACE osa2d00\n"
    "RDEVICE 3000 INTERFACE osa3000\n"
    "RDEVICE 3001 INTERFACE osa3001\n"
    "RDEVICE 3002 INTERFACE osa3002\n"
    "RDEVICE 3003 INTERFACE osa3003\n"
    "RDEVICE 3004 INTERFACE osa3004\n"
    "RDEVICE 3005 INTERFACE osa3005\n"
    "RDEVICE 3006 INTERFACE osa3006\n"
    "RDEVICE 3007 INTERFACE osa3007\n"
    "DEFINE VSWITCH VSWA RDEV 2A00\n"
    "DEFINE VSWITCH VSWB NOUPLINK VLAN AWARE\n"
    "DEFINE VSWITCH VSWC RDEV 2B00 VLAN 10 PORTTYPE TRUNK GROUP GRPC\n"
    "MODIFY VSWITCH VSWA GRANT LINUX1\n"
    "MODIFY VSWITCH VSWB GRANT LINUX2 VLAN 20\n"
    "MODIFY VSWITCH VSWC GRANT LINUX1 VLAN 10-12\n"
    "MODIFY VSWITCH VSWC GRANT LINUX3\n"
    "SET PORT GROUP GRPC JOIN 2C00\n"
    "SET PORT GROUP GRPX JOIN 2D00 INTERVAL 60\n"
    "SET PORT GROUP GRPX JOIN 3007\n"
    "SET PORT GROUP GRPE LACP INACTIVE\n";

static const char RICH_UD[] =
    "USER OPERATOR PW 32M 64M ABCDEFG\n"
    "USER LINUX1 PW 1G 2G G\n"
    "  NICDEF 0600 TYPE QDIO LAN SYSTEM VSWA\n"
    "  NICDEF 0700 TYPE QDIO DEVICES 4 LAN SYSTEM VSWC\n"
    "  NICDEF 0800 TYPE QDIO LAN SYSTEM VSWA PORTTYPE ACCESS\n"
    "USER LINUX2 PW 1G 2G G\n"
    "  NICDEF 0600 TYPE QDIO LAN SYSTEM VSWB\n"
    "  NICDEF 0610 TYPE QDIO LAN SYSTEM VSWB PORTTYPE TRUNK VLAN 30-31\n"
    "  NICDEF 0620 TYPE QDIO MACID 000007\n"
    "USER LINUX3 PW 1G 2G G\n"
    "  NICDEF 0600 TYPE QDIO LAN SYSTEM VSWC\n"
    "  NICDEF 0603 TYPE QDIO\n"
    "  NICDEF 0610 TYPE QDIO VLAN 40-41\n"
    "USER LINUX4 PW 1G 2G G\n";

/* The measurement report's lab before its commands: devices only, idle guests. */
static const char LAB_SC[] =
    "VMLAN MACPREFIX 02000C\n"
    "RDEVICE 28BA INTERFACE osa28ba\n"
    "RDEVICE 2902 INTERFACE osa2902\n"
    "RDEVICE 2A00 INTERFACE osa2a00\n";

static const char LAB_UD[] =
    "USER OPERATOR PW 32M 64M ABCDEFG\n"
    "USER LINUX1 PW 1G 2G G\n"
    "  NICDEF 0600 TYPE QDIO\n"
    "USER LINUX2 PW 1G 2G G\n"
    "  NICDEF 0600 TYPE QDIO\n"
    "USER LINUX3 PW 1G 2G G\n"
    "  NICDEF 0600 TYPE QDIO\n";

enum { U_OPERATOR, U_LINUX1, U_LINUX2, U_LINUX3, U_LINUX4 };
enum { SW_A, SW_B, SW_C };
enum { G_C, G_X, G_E };

static const struct zvs_issuer OPERATOR = { "OPERATOR", 0x7F };   /* classes A-G */
static const struct zvs_issuer LINUX1 = { "LINUX1", 1u << ('G' - 'A') };
static const struct zvs_issuer LINUX2 = { "LINUX2", 1u << ('G' - 'A') };
static const struct zvs_issuer LINUX3 = { "LINUX3", 1u << ('G' - 'A') };

static struct zvs_cfg *load(const char *sc, const char *ud)
{
    struct zvs_cfg *cfg = zvs_cfg_new();
    assert_non_null(cfg);
    assert_true(zvs_cfg_parse_sysconfig_text(cfg, "SYSTEM.CONFIG", sc) >= 0);
    assert_true(zvs_cfg_parse_userdirect_text(cfg, "USER.DIRECT", ud) >= 0);
    assert_true(zvs_cfg_validate(cfg) >= 0);
    for (unsigned i = 0; i < cfg->msgs.n; i++)
        if (cfg->msgs.msg[i].severity == 'E')
            print_message("fixture: %s\n", cfg->msgs.msg[i].text);
    assert_int_equal(zvs_cfg_errors(cfg), 0);
    return cfg;
}

static int rich_setup(void **state)
{
    *state = load(RICH_SC, RICH_UD);
    return 0;
}

static int lab_setup(void **state)
{
    *state = load(LAB_SC, LAB_UD);
    return 0;
}

static int teardown(void **state)
{
    zvs_cfg_free(*state);
    return 0;
}

/* True when the dump holds `line` (without its newline) as a whole line. */
static bool dump_has(const struct zvs_cfg *cfg, const char *line)
{
    char *d = cfg_dump_text(cfg);
    size_t n = strlen(line);
    bool found = false;
    for (const char *p = d; !found && (p = strstr(p, line)) != NULL; p++)
        found = (p == d || p[-1] == '\n') && p[n] == '\n';
    if (!found)
        print_message("dump has no line \"%s\":\n%s", line, d);
    free(d);
    return found;
}

/* ---- command builders (as zvs_cmd_parse fills them) ---------------------------------- */

/* Copies a name that must fit (a test bug otherwise). */
static void set_str(char *dst, size_t size, const char *src)
{
    size_t n = strlen(src);
    assert_true(n < size);
    memcpy(dst, src, n + 1);
}

static struct zvs_cmd cmd_new(enum zvs_cmd_verb verb, const char *name)
{
    struct zvs_cmd c;
    memset(&c, 0, sizeof c);
    c.verb = verb;
    set_str(c.name, sizeof c.name, name);
    return c;
}

static void add_rdev(struct zvs_cmd *c, uint16_t devno)
{
    assert_true(c->nrdev < ZVS_CMD_MAX_RDEVS);
    c->rdev[c->nrdev].devno = devno;
    c->rdev[c->nrdev++].port = 0;
}

static struct zvs_cmd pg(const char *group, enum zvs_cmd_pg_op op)
{
    struct zvs_cmd c = cmd_new(ZVS_CMD_SET_PORT_GROUP, group);
    c.pg_op = op;
    return c;
}

static struct zvs_cmd pg_devs(const char *group, enum zvs_cmd_pg_op op, unsigned n, ...)
{
    struct zvs_cmd c = pg(group, op);
    va_list ap;
    va_start(ap, n);
    for (unsigned i = 0; i < n; i++)
        add_rdev(&c, (uint16_t)va_arg(ap, unsigned));
    va_end(ap);
    return c;
}

static struct zvs_cmd vs(const char *name, enum zvs_cmd_vs_op op)
{
    struct zvs_cmd c = cmd_new(ZVS_CMD_SET_VSWITCH, name);
    c.vs_op = op;
    return c;
}

static struct zvs_cmd grant(const char *sw, const char *user, enum zvs_porttype pt,
                            const char *vlans)
{
    struct zvs_cmd c = vs(sw, ZVS_CMD_VS_GRANT);
    set_str(c.userid, sizeof c.userid, user);
    c.porttype = pt;
    if (vlans != NULL) {
        char buf[256], *save = NULL;
        set_str(buf, sizeof buf, vlans);
        c.has_vlan = true;
        for (char *t = strtok_r(buf, " ", &save); t != NULL; t = strtok_r(NULL, " ", &save))
            assert_int_equal(zvs_vidset_add(&c.vlan, t), 0);
    }
    return c;
}

static struct zvs_cmd revoke(const char *sw, const char *user)
{
    struct zvs_cmd c = vs(sw, ZVS_CMD_VS_REVOKE);
    set_str(c.userid, sizeof c.userid, user);
    return c;
}

/* DEFINE VSWITCH name with the SYSTEM CONFIG defaults (sysconfig.c). */
static struct zvs_cmd define_vsw(const char *name)
{
    struct zvs_cmd c = cmd_new(ZVS_CMD_DEFINE_VSWITCH, name);
    set_str(c.vsw.name, sizeof c.vsw.name, name);
    c.vsw.connect = true;
    c.vsw.native_vid = 1;
    c.vsw.porttype = ZVS_PORTTYPE_ACCESS;
    c.vsw.queuestorage_mb = 8;
    snprintf(c.vsw.controller, sizeof c.vsw.controller, "*");
    c.vsw.macprotect = ZVS_MACPROTECT_UNSPECIFIED;
    return c;
}

static struct zvs_cmd nic_cmd(enum zvs_cmd_verb verb, const char *target, uint16_t vdev)
{
    struct zvs_cmd c = cmd_new(verb, "");
    set_str(c.target, sizeof c.target, target);
    c.vdev = vdev;
    if (verb == ZVS_CMD_DEFINE_NIC)
        c.devices = 3;
    return c;
}

static struct zvs_cmd couple_cmd(const char *target, uint16_t vdev, const char *sw)
{
    struct zvs_cmd c = nic_cmd(ZVS_CMD_COUPLE, target, vdev);
    set_str(c.name, sizeof c.name, sw);
    return c;
}

/* ---- assertions ---------------------------------------------------------------------- */

static void expect_ok(struct zvs_cfg *cfg, const struct zvs_cmd *cmd,
                      const struct zvs_issuer *who, const char *text)
{
    struct zvs_cp_response r;
    unsigned nmsgs = cfg->msgs.n;

    zvs_cp_response_init(&r);
    int rc = zvs_cfg_apply(cfg, cmd, who, &r);
    if (rc != 0 || strcmp(r.text, text) != 0)
        print_message("rc %d response:\n%s", rc, r.text);
    assert_int_equal(rc, 0);
    assert_int_equal(r.rc, 0);
    assert_string_equal(r.text, text);
    assert_int_equal(cfg->msgs.n, nmsgs);
    zvs_cp_response_fini(&r);
}

/* A refusal: errno, CP rc, exactly `line` (plus newline), cfg unchanged byte for byte. */
static void expect_err(struct zvs_cfg *cfg, const struct zvs_cmd *cmd,
                       const struct zvs_issuer *who, int err, int cprc, const char *line)
{
    struct zvs_cp_response r;
    struct zvs_cfg *before = malloc(sizeof *before);
    char *dump0 = cfg_dump_text(cfg);
    char want[600];

    assert_non_null(before);
    memcpy(before, cfg, sizeof *cfg);
    snprintf(want, sizeof want, "%s\n", line);
    zvs_cp_response_init(&r);
    int rc = zvs_cfg_apply(cfg, cmd, who, &r);
    if (rc != err || strcmp(r.text, want) != 0)
        print_message("rc %d response:\n%s", rc, r.text);
    assert_int_equal(rc, err);
    assert_int_equal(r.rc, cprc);
    assert_string_equal(r.text, want);
    char *dump1 = cfg_dump_text(cfg);
    assert_string_equal(dump1, dump0);
    assert_memory_equal(cfg, before, sizeof *cfg);
    zvs_cp_response_fini(&r);
    free(dump0);
    free(dump1);
    free(before);
}

/* The refusal of a command zvs_cfg_apply does not handle. */
static void not_config_line(const struct zvs_cmd *cmd, char *line, size_t size)
{
    char text[256];
    zvs_cmd_format(cmd, text, sizeof text);
    const char *args[] = { text[0] != '\0' ? text : "?", "not a configuration command" };
    zvs_cpmsg_format(line, size, ZVS_CPMSG_COMMAND_FAILED, args, 2);
}

/* Every user's NICs are nic[first_nic .. +nnic), they name the user, the runs are in user
 * order, disjoint and cover nic[0 .. nnic). */
static void check_runs(const struct zvs_cfg *cfg)
{
    unsigned next = 0;
    for (unsigned u = 0; u < cfg->nuser; u++) {
        const struct zvs_cfg_user *user = &cfg->user[u];
        if (user->nnic == 0)
            continue;
        assert_int_equal(user->first_nic, next);
        for (unsigned i = user->first_nic; i < (unsigned)user->first_nic + user->nnic; i++)
            assert_int_equal(cfg->nic[i].user, u);
        next += user->nnic;
    }
    assert_int_equal(next, cfg->nnic);
}

static const struct zvs_cfg_nic *nic_of(const struct zvs_cfg *cfg, const char *user,
                                        uint16_t vdev)
{
    int i = zvs_cfg_find_nic(cfg, user, vdev);
    assert_true(i >= 0);
    return &cfg->nic[i];
}

/* ---- the measurement report's sequence ----------------------------------------------- */

static void test_report_sequence(void **state)
{
    struct zvs_cfg *cfg = *state;

    struct zvs_cmd c = pg_devs("CCBGROUP", ZVS_CMD_PG_JOIN, 2, 0x28BA, 0x2902);
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    c = pg("CCBGROUP", ZVS_CMD_PG_INTERVAL);
    c.interval_s = 30;
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    c = define_vsw("CCBVSW1");
    snprintf(c.vsw.group, sizeof c.vsw.group, "CCBGROUP");
    c.vsw.queuestorage_mb = 1;
    expect_ok(cfg, &c, &OPERATOR, "VSWITCH SYSTEM CCBVSW1 is created\n");
    c = grant("CCBVSW1", "LINUX1", ZVS_PORTTYPE_UNSPEC, NULL);
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    c = couple_cmd("", 0x0600, "CCBVSW1");
    expect_ok(cfg, &c, &LINUX1, "NIC 0600 is connected to VSWITCH SYSTEM CCBVSW1\n");

    char *d = cfg_dump_text(cfg);
    assert_string_equal(d,
        "VMLAN MACPREFIX 02000C MACIDRANGE NONE\n"
        "VSWITCH CCBVSW1 ETHERNET RDEV NONE CONNECT VLAN UNAWARE NATIVE 1 PORTTYPE ACCESS "
        "QUEUESTORAGE 1M CONTROLLER * GROUP CCBGROUP MACPROTECT UNSPECIFIED ISOLATION OFF\n"
        "  GRANT LINUX1\n"
        "GROUP CCBGROUP JOIN 28BA 2902 LACP ACTIVE TIMEOUT SHORT INTERVAL 30 "
        "DISTRIBUTION DESTINATION POLICY LOAD TOTAL\n"
        "RDEVICE 28BA INTERFACE osa28ba\n"
        "RDEVICE 2902 INTERFACE osa2902\n"
        "RDEVICE 2A00 INTERFACE osa2a00\n"
        "USER OPERATOR STORAGE 32M MAXSTORAGE 64M CLASSES ABCDEFG\n"
        "USER LINUX1 STORAGE 1G MAXSTORAGE 2G CLASSES G\n"
        "  NICDEF 0600 TYPE QDIO DEVICES 3 LAN SYSTEM CCBVSW1 MACID 000001 SYSTEM "
        "MAC 02-00-0C-00-00-01 NICBIND NONE\n"
        "USER LINUX2 STORAGE 1G MAXSTORAGE 2G CLASSES G\n"
        "  NICDEF 0600 TYPE QDIO DEVICES 3 LAN NONE MACID 000002 SYSTEM "
        "MAC 02-00-0C-00-00-02 NICBIND NONE\n"
        "USER LINUX3 STORAGE 1G MAXSTORAGE 2G CLASSES G\n"
        "  NICDEF 0600 TYPE QDIO DEVICES 3 LAN NONE MACID 000003 SYSTEM "
        "MAC 02-00-0C-00-00-03 NICBIND NONE\n");
    free(d);
    /* What the dump does not show. */
    assert_int_equal(cfg->nic[0].vswitch, 0);
    assert_int_equal(cfg->vswitch[0].line, 0);
    assert_int_equal(cfg->group[0].line, 0);
    assert_int_equal(cfg->group_join_line[0][0], 0);
    assert_int_equal(cfg->group_join_line[0][1], 0);
    assert_int_equal(cfg->grant[0].line, 0);
    assert_int_equal(cfg->grant[0].vswitch, 0);
    /* The result passes the file checks too. */
    unsigned nmsgs = cfg->msgs.n;
    assert_int_equal(zvs_cfg_validate(cfg), 0);
    assert_int_equal(cfg->msgs.n, nmsgs);
}

/* ---- DEFINE VSWITCH ------------------------------------------------------------------ */

static void test_define_vswitch(void **state)
{
    struct zvs_cfg *cfg = *state;
    struct zvs_cmd c = define_vsw("NEWSW");

    c.vsw.nrdev = 2;
    c.vsw.rdev[0].devno = 0x28BA;
    c.vsw.rdev[1].devno = 0x2902;
    c.vsw.rdev[1].port = 1;
    snprintf(c.vsw.group, sizeof c.vsw.group, "GRPX");
    c.vsw.vlan_aware = true;
    c.vsw.default_vid = 5;
    c.vsw.isolation = true;
    c.vsw.macprotect = ZVS_MACPROTECT_ON;
    c.vsw.connect = false;
    /* 2902.P1 has no RDEVICE (2902 port 0 has). */
    expect_err(cfg, &c, &OPERATOR, -ENOENT, 1117,
               "ZVSVSW1117E Device 2902.P1 has no RDEVICE INTERFACE mapping");
    c.vsw.rdev[1].port = 0;
    expect_ok(cfg, &c, &OPERATOR, "VSWITCH SYSTEM NEWSW is created\n");
    assert_int_equal(cfg->nvswitch, 4);
    assert_int_equal(zvs_cfg_find_vswitch(cfg, "NEWSW"), 3);
    assert_int_equal(cfg->vswitch[3].line, 0);
    assert_true(dump_has(cfg, "VSWITCH NEWSW ETHERNET RDEV 28BA 2902 DISCONNECT VLAN 5 NATIVE 1 "
                              "PORTTYPE ACCESS QUEUESTORAGE 8M CONTROLLER * GROUP GRPX "
                              "MACPROTECT ON ISOLATION ON"));

    c = define_vsw("VSWA");
    expect_err(cfg, &c, &OPERATOR, -EEXIST, 1120, "ZVSVSW1120E VSWITCH VSWA already exists");
    c = define_vsw("S1");               /* a count the parser never gives */
    c.vsw.nrdev = 4;
    expect_err(cfg, &c, &OPERATOR, -EINVAL, 1103,
               "ZVSCMD1103E Too many devices - 4; at most 3 may be given");
    c = define_vsw("S1");
    snprintf(c.vsw.group, sizeof c.vsw.group, "NOGRP");
    expect_err(cfg, &c, &OPERATOR, -ENOENT, 1110, "ZVSLAG1110E Port group NOGRP does not exist");
    snprintf(c.vsw.group, sizeof c.vsw.group, "GRPE");
    expect_err(cfg, &c, &OPERATOR, -EINVAL, 1137, "ZVSLAG1137E Port group GRPE has no devices");
    snprintf(c.vsw.group, sizeof c.vsw.group, "GRPC");
    expect_err(cfg, &c, &OPERATOR, -EBUSY, 1115,
               "ZVSLAG1115E Port group GRPC is in use by VSWITCH VSWC");
    c = define_vsw("S1");
    c.vsw.nrdev = 1;
    c.vsw.rdev[0].devno = 0x2E00;
    expect_err(cfg, &c, &OPERATOR, -ENOENT, 1117,
               "ZVSVSW1117E Device 2E00 has no RDEVICE INTERFACE mapping");
    c.vsw.rdev[0].devno = 0x2A00;
    expect_err(cfg, &c, &OPERATOR, -EBUSY, 1131, "ZVSVSW1131E Device 2A00 is in use by VSWITCH VSWA");
    c.vsw.rdev[0].devno = 0x2C00;
    expect_err(cfg, &c, &OPERATOR, -EBUSY, 1131,
               "ZVSVSW1131E Device 2C00 is in use by PORT GROUP GRPC");
    c.vsw.rdev[0].devno = 0x3000;
    c.vsw.nrdev = 2;
    c.vsw.rdev[1].devno = 0x28BA;       /* NEWSW's */
    expect_err(cfg, &c, &OPERATOR, -EBUSY, 1131, "ZVSVSW1131E Device 28BA is in use by VSWITCH NEWSW");
}

static void test_define_vswitch_room(void **state)
{
    struct zvs_cfg *cfg = *state;
    char name[12];

    for (unsigned i = cfg->nvswitch; i < ZVS_CFG_MAX_VSWITCHES; i++) {
        snprintf(name, sizeof name, "S%u", i);
        struct zvs_cmd c = define_vsw(name);
        c.vsw.nouplink = true;
        char want[64];
        snprintf(want, sizeof want, "VSWITCH SYSTEM %s is created\n", name);
        expect_ok(cfg, &c, &OPERATOR, want);
    }
    assert_int_equal(cfg->nvswitch, ZVS_CFG_MAX_VSWITCHES);
    struct zvs_cmd c = define_vsw("ONEMORE");
    expect_err(cfg, &c, &OPERATOR, -ENOSPC, 1133,
               "ZVSCMD1133E No room for another VSWITCH; the limit is 64");
}

/* ---- DETACH VSWITCH ------------------------------------------------------------------ */

static void test_detach_vswitch_renumbers(void **state)
{
    struct zvs_cfg *cfg = *state;
    struct zvs_cmd c = cmd_new(ZVS_CMD_DETACH_VSWITCH, "NOSUCH");

    expect_err(cfg, &c, &OPERATOR, -ENOENT, 1111, "ZVSVSW1111E VSWITCH NOSUCH does not exist");
    c = cmd_new(ZVS_CMD_DETACH_VSWITCH, "VSWA");
    expect_ok(cfg, &c, &OPERATOR,
              "NIC 0600 of LINUX1 is uncoupled\n"
              "NIC 0800 of LINUX1 is uncoupled\n"
              "VSWITCH SYSTEM VSWA is destroyed\n");
    assert_int_equal(cfg->nvswitch, 2);
    assert_string_equal(cfg->vswitch[0].name, "VSWB");
    assert_string_equal(cfg->vswitch[1].name, "VSWC");
    /* Grants: VSWA's gone, the others renumbered, order kept. */
    assert_int_equal(cfg->ngrant, 3);
    assert_int_equal(cfg->grant[0].vswitch, 0);
    assert_string_equal(cfg->grant[0].userid, "LINUX2");
    assert_int_equal(cfg->grant[1].vswitch, 1);
    assert_string_equal(cfg->grant[1].userid, "LINUX1");
    assert_int_equal(cfg->grant[2].vswitch, 1);
    assert_string_equal(cfg->grant[2].userid, "LINUX3");
    /* NICs: VSWA's uncoupled, the others renumbered. */
    const struct zvs_cfg_nic *n = nic_of(cfg, "LINUX1", 0x0600);
    assert_int_equal(n->vswitch, -1);
    assert_string_equal(n->lan, "");
    n = nic_of(cfg, "LINUX1", 0x0800);
    assert_int_equal(n->vswitch, -1);
    assert_string_equal(n->lan, "");
    assert_int_equal(nic_of(cfg, "LINUX1", 0x0700)->vswitch, 1);
    assert_int_equal(nic_of(cfg, "LINUX2", 0x0600)->vswitch, 0);
    assert_int_equal(nic_of(cfg, "LINUX2", 0x0610)->vswitch, 0);
    assert_int_equal(nic_of(cfg, "LINUX3", 0x0600)->vswitch, 1);
    assert_int_equal(nic_of(cfg, "LINUX3", 0x0603)->vswitch, -1);
    assert_true(dump_has(cfg, "  NICDEF 0600 TYPE QDIO DEVICES 3 LAN NONE MACID 000001 SYSTEM "
                              "MAC 02-00-00-00-00-01 NICBIND NONE"));

    /* VSWC goes too: its group stays defined, unbound, and may then be deleted. */
    c = cmd_new(ZVS_CMD_DETACH_VSWITCH, "VSWC");
    expect_ok(cfg, &c, &OPERATOR,
              "NIC 0700 of LINUX1 is uncoupled\n"
              "NIC 0600 of LINUX3 is uncoupled\n"
              "VSWITCH SYSTEM VSWC is destroyed\n");
    assert_int_equal(cfg->nvswitch, 1);
    assert_int_equal(cfg->ngrant, 1);
    assert_int_equal(cfg->grant[0].vswitch, 0);
    assert_int_equal(nic_of(cfg, "LINUX2", 0x0600)->vswitch, 0);
    assert_int_equal(zvs_cfg_find_group(cfg, "GRPC"), G_C);
    assert_int_equal(cfg->group[G_C].nport, 1);
    c = pg("GRPC", ZVS_CMD_PG_DELETE);
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    /* GRPX and GRPE moved down with their join lines; the freed slot is clean. */
    assert_int_equal(cfg->ngroup, 2);
    assert_string_equal(cfg->group[0].name, "GRPX");
    assert_int_equal(cfg->group_join_line[0][0], 23);
    assert_int_equal(cfg->group_join_line[0][1], 24);
    assert_string_equal(cfg->group[1].name, "GRPE");
    assert_int_equal(cfg->group_join_line[1][0], 0);
    assert_string_equal(cfg->group[2].name, "");
    assert_int_equal(cfg->group_join_line[2][0], 0);
    /* A switch of the same name may be defined again, without the old grants. */
    c = define_vsw("VSWA");
    expect_ok(cfg, &c, &OPERATOR, "VSWITCH SYSTEM VSWA is created\n");
    c = couple_cmd("", 0x0600, "VSWA");
    expect_err(cfg, &c, &LINUX1, -EACCES, 1121,
               "ZVSVSW1121E User LINUX1 is not authorized to couple to VSWITCH VSWA");
    check_runs(cfg);
}

/* ---- SET VSWITCH GRANT / REVOKE ------------------------------------------------------ */

static void test_grant(void **state)
{
    struct zvs_cfg *cfg = *state;

    struct zvs_cmd c = grant("NOSUCH", "LINUX1", ZVS_PORTTYPE_UNSPEC, NULL);
    expect_err(cfg, &c, &OPERATOR, -ENOENT, 1111, "ZVSVSW1111E VSWITCH NOSUCH does not exist");
    /* Any valid userid, in the directory or not. */
    c = grant("VSWA", "NOBODY", ZVS_PORTTYPE_UNSPEC, NULL);
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    assert_int_equal(zvs_cfg_find_grant(cfg, SW_A, "NOBODY"), 4);
    assert_int_equal(cfg->grant[4].line, 0);
    assert_true(dump_has(cfg, "  GRANT NOBODY"));
    c = grant("VSWA", "LINUX3", ZVS_PORTTYPE_UNSPEC, "10");
    expect_err(cfg, &c, &OPERATOR, -EINVAL, 1129,
               "ZVSVSW1129E VLAN requires a VLAN AWARE VSWITCH; VSWA is VLAN UNAWARE");
    /* ACCESS (the switch's default) takes one VLAN. */
    c = grant("VSWB", "LINUX3", ZVS_PORTTYPE_UNSPEC, "20-21");
    expect_err(cfg, &c, &OPERATOR, -EINVAL, 1130,
               "ZVSVSW1130E PORTTYPE ACCESS takes one VLAN; 20-21 given");
    c = grant("VSWB", "LINUX3", ZVS_PORTTYPE_TRUNK, "20-21 30");
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    assert_true(dump_has(cfg, "  GRANT LINUX3 PORTTYPE TRUNK VLAN 20-21 30"));

    /* A second GRANT adds VLANs and keeps PORTTYPE unless given. */
    c = grant("VSWC", "LINUX1", ZVS_PORTTYPE_UNSPEC, "20 13");
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    assert_true(dump_has(cfg, "  GRANT LINUX1 VLAN 10-13 20"));
    c = grant("VSWC", "LINUX1", ZVS_PORTTYPE_ACCESS, NULL);
    expect_err(cfg, &c, &OPERATOR, -EINVAL, 1130,
               "ZVSVSW1130E PORTTYPE ACCESS takes one VLAN; 10-13 20 given");
    /* LINUX2 holds VLAN 20 ACCESS on VSWB: adding 21 breaks the ACCESS rule ... */
    c = grant("VSWB", "LINUX2", ZVS_PORTTYPE_UNSPEC, "21");
    expect_err(cfg, &c, &OPERATOR, -EINVAL, 1130,
               "ZVSVSW1130E PORTTYPE ACCESS takes one VLAN; 20-21 given");
    /* ... unless the same GRANT makes it a trunk. */
    c = grant("VSWB", "LINUX2", ZVS_PORTTYPE_TRUNK, "21");
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    int g = zvs_cfg_find_grant(cfg, SW_B, "LINUX2");
    assert_int_equal(g, 1);
    assert_int_equal(cfg->grant[g].porttype, ZVS_PORTTYPE_TRUNK);
    assert_true(cfg->grant[g].has_vlan);
    assert_int_equal(zvs_vidset_count(&cfg->grant[g].vlan), 2);
    assert_true(dump_has(cfg, "  GRANT LINUX2 PORTTYPE TRUNK VLAN 20-21"));
    /* A PORTTYPE alone replaces it, VLANs stay. */
    c = grant("VSWA", "LINUX1", ZVS_PORTTYPE_TRUNK, NULL);
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    assert_true(dump_has(cfg, "  GRANT LINUX1 PORTTYPE TRUNK"));
    assert_int_equal(cfg->ngrant, 6);
}

static void test_grant_limits(void **state)
{
    struct zvs_cfg *cfg = *state;
    char user[12], vid[8];

    /* 32 separate VLANs fill a vidset; a 33rd range has no room. */
    struct zvs_cmd c = grant("VSWB", "TRUNKER", ZVS_PORTTYPE_TRUNK, NULL);
    c.has_vlan = true;
    for (unsigned i = 0; i < ZVS_VIDSET_MAX; i++) {
        snprintf(vid, sizeof vid, "%u", 100 + 2 * i);
        assert_int_equal(zvs_vidset_add(&c.vlan, vid), 0);
    }
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    c = grant("VSWB", "TRUNKER", ZVS_PORTTYPE_UNSPEC, "1000");
    expect_err(cfg, &c, &OPERATOR, -ENOSPC, 1133,
               "ZVSCMD1133E No room for another VLAN RANGE; the limit is 32");
    c = grant("VSWB", "TRUNKER", ZVS_PORTTYPE_UNSPEC, "101");  /* merges: 100-102 */
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");

    while (cfg->ngrant < ZVS_CFG_MAX_GRANTS) {
        snprintf(user, sizeof user, "U%u", cfg->ngrant);
        c = grant("VSWA", user, ZVS_PORTTYPE_UNSPEC, NULL);
        expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    }
    c = grant("VSWC", "LINUX4", ZVS_PORTTYPE_UNSPEC, NULL);
    expect_err(cfg, &c, &OPERATOR, -ENOSPC, 1133,
               "ZVSCMD1133E No room for another GRANT; the limit is 1024");
    /* Modifying an existing grant needs no room. */
    c = grant("VSWC", "LINUX3", ZVS_PORTTYPE_TRUNK, NULL);
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    assert_int_equal(cfg->ngrant, ZVS_CFG_MAX_GRANTS);
}

static void test_revoke(void **state)
{
    struct zvs_cfg *cfg = *state;

    struct zvs_cmd c = revoke("VSWA", "LINUX3");
    expect_err(cfg, &c, &OPERATOR, -ENOENT, 1127,
               "ZVSVSW1127E User LINUX3 has no GRANT for VSWITCH VSWA");
    c = revoke("NOSUCH", "LINUX1");
    expect_err(cfg, &c, &OPERATOR, -ENOENT, 1111, "ZVSVSW1111E VSWITCH NOSUCH does not exist");
    /* LINUX1 0600 rides on the grant; 0800 has PORTTYPE in its NICDEF and stays. */
    c = revoke("VSWA", "LINUX1");
    expect_ok(cfg, &c, &OPERATOR, "NIC 0600 of LINUX1 is uncoupled\nCommand complete\n");
    assert_int_equal(zvs_cfg_find_grant(cfg, SW_A, "LINUX1"), -1);
    assert_int_equal(cfg->ngrant, 3);
    assert_int_equal(nic_of(cfg, "LINUX1", 0x0600)->vswitch, -1);
    assert_string_equal(nic_of(cfg, "LINUX1", 0x0600)->lan, "");
    assert_int_equal(nic_of(cfg, "LINUX1", 0x0800)->vswitch, SW_A);
    assert_string_equal(nic_of(cfg, "LINUX1", 0x0800)->lan, "VSWA");
    /* Its NIC on VSWC is untouched. */
    assert_int_equal(nic_of(cfg, "LINUX1", 0x0700)->vswitch, SW_C);
    assert_true(dump_has(cfg, "  NICDEF 0600 TYPE QDIO DEVICES 3 LAN NONE MACID 000001 SYSTEM "
                              "MAC 02-00-00-00-00-01 NICBIND NONE"));
    /* A user with nothing coupled: just the grant. */
    c = revoke("VSWC", "LINUX1");
    expect_ok(cfg, &c, &OPERATOR, "NIC 0700 of LINUX1 is uncoupled\nCommand complete\n");
    c = revoke("VSWB", "LINUX2");       /* 0610 has VLAN in its NICDEF and stays */
    expect_ok(cfg, &c, &OPERATOR, "NIC 0600 of LINUX2 is uncoupled\nCommand complete\n");
    assert_int_equal(nic_of(cfg, "LINUX2", 0x0610)->vswitch, SW_B);
    c = grant("VSWA", "NOBODY", ZVS_PORTTYPE_UNSPEC, NULL);
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    c = revoke("VSWA", "NOBODY");
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    assert_int_equal(cfg->ngrant, 1);
    assert_string_equal(cfg->grant[0].userid, "LINUX3");
    assert_int_equal(cfg->grant[0].vswitch, SW_C);
}

/* ---- SET VSWITCH uplink and settings ------------------------------------------------- */

static void test_set_rdev(void **state)
{
    struct zvs_cfg *cfg = *state;

    struct zvs_cmd c = vs("VSWB", ZVS_CMD_VS_RDEV);
    add_rdev(&c, 0x28BA);
    expect_err(cfg, &c, &OPERATOR, -EINVAL, 1135,
               "ZVSVSW1135E VSWITCH VSWB is defined NOUPLINK; RDEV is not allowed");
    c = vs("VSWA", ZVS_CMD_VS_RDEV);
    add_rdev(&c, 0x2A00);               /* its own: fine */
    add_rdev(&c, 0x2B00);
    expect_err(cfg, &c, &OPERATOR, -EBUSY, 1131, "ZVSVSW1131E Device 2B00 is in use by VSWITCH VSWC");
    c = vs("VSWA", ZVS_CMD_VS_RDEV);
    add_rdev(&c, 0x2C00);
    expect_err(cfg, &c, &OPERATOR, -EBUSY, 1131, "ZVSVSW1131E Device 2C00 is in use by PORT GROUP GRPC");
    c = vs("VSWC", ZVS_CMD_VS_RDEV);    /* its own group's member: not as RDEV */
    add_rdev(&c, 0x2C00);
    expect_err(cfg, &c, &OPERATOR, -EBUSY, 1131, "ZVSVSW1131E Device 2C00 is in use by PORT GROUP GRPC");
    c = vs("VSWA", ZVS_CMD_VS_RDEV);
    add_rdev(&c, 0x2E00);
    expect_err(cfg, &c, &OPERATOR, -ENOENT, 1117,
               "ZVSVSW1117E Device 2E00 has no RDEVICE INTERFACE mapping");
    c = vs("VSWA", ZVS_CMD_VS_RDEV);
    add_rdev(&c, 0x28BA);
    add_rdev(&c, 0x2902);
    add_rdev(&c, 0x3000);
    add_rdev(&c, 0x3001);
    expect_err(cfg, &c, &OPERATOR, -EINVAL, 1103,
               "ZVSCMD1103E Too many devices - 3001; at most 3 may be given");
    c.nrdev = 3;
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    assert_int_equal(cfg->vswitch[SW_A].nrdev, 3);
    assert_int_equal(cfg->vswitch[SW_A].rdev[0].devno, 0x28BA);
    assert_int_equal(cfg->vswitch[SW_A].rdev[2].devno, 0x3000);
    assert_true(dump_has(cfg, "VSWITCH VSWA ETHERNET RDEV 28BA 2902 3000 CONNECT VLAN UNAWARE "
                              "NATIVE 1 PORTTYPE ACCESS QUEUESTORAGE 8M CONTROLLER * NOGROUP "
                              "MACPROTECT UNSPECIFIED ISOLATION OFF"));
    /* 2A00 is free now. */
    c = vs("VSWC", ZVS_CMD_VS_RDEV);
    add_rdev(&c, 0x2A00);
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    c = vs("VSWA", ZVS_CMD_VS_RDEV);    /* RDEV NONE */
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    assert_int_equal(cfg->vswitch[SW_A].nrdev, 0);
    assert_true(dump_has(cfg, "VSWITCH VSWA ETHERNET RDEV NONE CONNECT VLAN UNAWARE "
                              "NATIVE 1 PORTTYPE ACCESS QUEUESTORAGE 8M CONTROLLER * NOGROUP "
                              "MACPROTECT UNSPECIFIED ISOLATION OFF"));
}

static void test_set_group(void **state)
{
    struct zvs_cfg *cfg = *state;

    struct zvs_cmd c = vs("VSWB", ZVS_CMD_VS_GROUP);
    snprintf(c.group, sizeof c.group, "GRPX");
    expect_err(cfg, &c, &OPERATOR, -EINVAL, 1135,
               "ZVSVSW1135E VSWITCH VSWB is defined NOUPLINK; GROUP is not allowed");
    c = vs("VSWA", ZVS_CMD_VS_GROUP);
    snprintf(c.group, sizeof c.group, "NOGRP");
    expect_err(cfg, &c, &OPERATOR, -ENOENT, 1110, "ZVSLAG1110E Port group NOGRP does not exist");
    snprintf(c.group, sizeof c.group, "GRPE");
    expect_err(cfg, &c, &OPERATOR, -EINVAL, 1137, "ZVSLAG1137E Port group GRPE has no devices");
    snprintf(c.group, sizeof c.group, "GRPC");
    expect_err(cfg, &c, &OPERATOR, -EBUSY, 1115,
               "ZVSLAG1115E Port group GRPC is in use by VSWITCH VSWC");
    snprintf(c.group, sizeof c.group, "GRPX");
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    assert_string_equal(cfg->vswitch[SW_A].group, "GRPX");
    c = vs("VSWC", ZVS_CMD_VS_GROUP);   /* its own group again: fine */
    snprintf(c.group, sizeof c.group, "GRPC");
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    c = vs("VSWC", ZVS_CMD_VS_NOGROUP);
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    assert_string_equal(cfg->vswitch[SW_C].group, "");
    assert_true(dump_has(cfg, "VSWITCH VSWC ETHERNET RDEV 2B00 CONNECT VLAN 10 NATIVE 1 "
                              "PORTTYPE TRUNK QUEUESTORAGE 8M CONTROLLER * NOGROUP "
                              "MACPROTECT UNSPECIFIED ISOLATION OFF"));
    c = vs("VSWA", ZVS_CMD_VS_GROUP);   /* GRPC is free now */
    snprintf(c.group, sizeof c.group, "GRPC");
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    assert_string_equal(cfg->vswitch[SW_A].group, "GRPC");
}

static void test_set_settings(void **state)
{
    struct zvs_cfg *cfg = *state;

    struct zvs_cmd c = vs("VSWA", ZVS_CMD_VS_DISCONNECT);
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    assert_false(cfg->vswitch[SW_A].connect);
    c = vs("VSWB", ZVS_CMD_VS_CONNECT);
    expect_err(cfg, &c, &OPERATOR, -EINVAL, 1135,
               "ZVSVSW1135E VSWITCH VSWB is defined NOUPLINK; CONNECT is not allowed");
    c = vs("VSWB", ZVS_CMD_VS_DISCONNECT);
    expect_err(cfg, &c, &OPERATOR, -EINVAL, 1135,
               "ZVSVSW1135E VSWITCH VSWB is defined NOUPLINK; DISCONNECT is not allowed");
    c = vs("VSWA", ZVS_CMD_VS_QUEUESTORAGE);
    c.queuestorage_mb = 2;
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    c.queuestorage_mb = 9;
    expect_err(cfg, &c, &OPERATOR, -EINVAL, 1105,
               "ZVSCMD1105E Invalid QUEUESTORAGE value - 9; valid: 1-8");
    c = vs("VSWA", ZVS_CMD_VS_ISOLATION);
    c.onoff = true;
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    c = vs("VSWA", ZVS_CMD_VS_MACPROTECT);
    c.macprotect = ZVS_MACPROTECT_OFF;
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    assert_true(dump_has(cfg, "VSWITCH VSWA ETHERNET RDEV 2A00 DISCONNECT VLAN UNAWARE NATIVE 1 "
                              "PORTTYPE ACCESS QUEUESTORAGE 2M CONTROLLER * NOGROUP "
                              "MACPROTECT OFF ISOLATION ON"));
    c = vs("VSWA", ZVS_CMD_VS_CONNECT);
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    c = vs("VSWA", ZVS_CMD_VS_ISOLATION);
    c.onoff = false;
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    c = vs("VSWA", ZVS_CMD_VS_MACPROTECT);
    c.macprotect = ZVS_MACPROTECT_UNSPECIFIED;
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    assert_true(cfg->vswitch[SW_A].connect);
    assert_false(cfg->vswitch[SW_A].isolation);
    assert_int_equal(cfg->vswitch[SW_A].macprotect, ZVS_MACPROTECT_UNSPECIFIED);
    assert_int_equal(cfg->vswitch[SW_A].queuestorage_mb, 2);
    /* Not for this file: the data plane's operands. */
    c = vs("VSWA", ZVS_CMD_VS_COUNTERS_CLEAR);
    char line[ZVS_CPMSG_TEXT_MAX];
    not_config_line(&c, line, sizeof line);
    expect_err(cfg, &c, &OPERATOR, -EINVAL, 1119, line);
}

/* ---- SET PORT GROUP ------------------------------------------------------------------ */

static void test_port_group_join(void **state)
{
    struct zvs_cfg *cfg = *state;

    uint32_t line0 = cfg->group_join_line[G_X][0], line1 = cfg->group_join_line[G_X][1];
    assert_int_equal(line0, 23);
    assert_int_equal(line1, 24);
    struct zvs_cmd c = pg_devs("GRPX", ZVS_CMD_PG_JOIN, 2, 0x28BA, 0x2E00);
    expect_err(cfg, &c, &OPERATOR, -ENOENT, 1117,
               "ZVSVSW1117E Device 2E00 has no RDEVICE INTERFACE mapping");
    c = pg_devs("GRPX", ZVS_CMD_PG_JOIN, 1, 0x2D00);
    expect_err(cfg, &c, &OPERATOR, -EEXIST, 1112,
               "ZVSLAG1112E Device 2D00 is already in port group GRPX");
    c = pg_devs("GRPX", ZVS_CMD_PG_JOIN, 2, 0x28BA, 0x28BA);
    expect_err(cfg, &c, &OPERATOR, -EEXIST, 1112,
               "ZVSLAG1112E Device 28BA is already in port group GRPX");
    c = pg_devs("GRPNEW", ZVS_CMD_PG_JOIN, 1, 0x2C00);
    expect_err(cfg, &c, &OPERATOR, -EBUSY, 1112,
               "ZVSLAG1112E Device 2C00 is already in port group GRPC");
    c = pg_devs("GRPX", ZVS_CMD_PG_JOIN, 1, 0x28BA);
    c.nrdev = ZVS_CMD_MAX_RDEVS + 1;    /* a count the parser never gives */
    expect_err(cfg, &c, &OPERATOR, -EINVAL, 1103,
               "ZVSCMD1103E Too many devices - 9; at most 8 may be given");
    c.pg_op = ZVS_CMD_PG_LEAVE;
    expect_err(cfg, &c, &OPERATOR, -EINVAL, 1103,
               "ZVSCMD1103E Too many devices - 9; at most 8 may be given");
    c = pg_devs("GRPX", ZVS_CMD_PG_JOIN, 1, 0x2A00);
    expect_err(cfg, &c, &OPERATOR, -EBUSY, 1131, "ZVSVSW1131E Device 2A00 is in use by VSWITCH VSWA");
    c = pg_devs("GRPX", ZVS_CMD_PG_JOIN, 6, 0x28BA, 0x2902, 0x3000, 0x3001, 0x3002, 0x3003);
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    assert_int_equal(cfg->group[G_X].nport, 8);
    assert_int_equal(cfg->group_join_line[G_X][0], line0);
    assert_int_equal(cfg->group_join_line[G_X][1], line1);
    for (unsigned p = 2; p < 8; p++)
        assert_int_equal(cfg->group_join_line[G_X][p], 0);
    assert_true(dump_has(cfg, "GROUP GRPX JOIN 2D00 3007 28BA 2902 3000 3001 3002 3003 LACP ACTIVE "
                              "TIMEOUT SHORT INTERVAL 60 DISTRIBUTION DESTINATION POLICY LOAD TOTAL"));
    c = pg_devs("GRPX", ZVS_CMD_PG_JOIN, 1, 0x3004);
    expect_err(cfg, &c, &OPERATOR, -ENOSPC, 1114,
               "ZVSLAG1114E Port group GRPX has 8 devices; 3004 cannot join");
    c = pg_devs("GRPE", ZVS_CMD_PG_JOIN, 1, 0x3004);
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    assert_int_equal(cfg->group[G_E].nport, 1);
}

static void test_port_group_create_defaults(void **state)
{
    struct zvs_cfg *cfg = *state;

    struct zvs_cmd c = pg("NEWG", ZVS_CMD_PG_LACP);
    c.lacp_active = false;
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    assert_int_equal(cfg->ngroup, 4);
    const struct zvs_cfg_group *g = &cfg->group[3];
    assert_string_equal(g->name, "NEWG");
    assert_int_equal(g->line, 0);
    assert_int_equal(g->nport, 0);
    assert_false(g->lacp);
    assert_false(g->lacp_long_timeout);
    assert_int_equal(g->interval_s, 300);
    assert_int_equal(g->distribution, ZVS_CFG_DIST_DESTINATION);
    assert_int_equal(g->policy, ZVS_CFG_POLICY_LOAD);
    assert_int_equal(g->lbt_percent, 75);
    assert_true(dump_has(cfg, "GROUP NEWG JOIN NONE LACP INACTIVE TIMEOUT SHORT INTERVAL 300 "
                              "DISTRIBUTION DESTINATION POLICY LOAD TOTAL"));
    c = pg("NEWG2", ZVS_CMD_PG_INTERVAL);
    c.interval_s = 0;
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    assert_true(dump_has(cfg, "GROUP NEWG2 JOIN NONE LACP ACTIVE TIMEOUT SHORT INTERVAL OFF "
                              "DISTRIBUTION DESTINATION POLICY LOAD TOTAL"));
    c.interval_s = 9991;
    expect_err(cfg, &c, &OPERATOR, -EINVAL, 1105,
               "ZVSCMD1105E Invalid INTERVAL value - 9991; valid: 1-9990 OR OFF");
    /* POLICY (ours) sets the whole policy; the other operands stay. */
    c = pg("NEWG2", ZVS_CMD_PG_POLICY);
    c.policy = ZVS_CFG_POLICY_LOAD;
    c.load = ZVS_CFG_LOAD_OUTBOUND;
    c.lbt_percent = 75;
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    assert_true(dump_has(cfg, "GROUP NEWG2 JOIN NONE LACP ACTIVE TIMEOUT SHORT INTERVAL OFF "
                              "DISTRIBUTION DESTINATION POLICY LOAD OUTBOUND"));
    c.policy = ZVS_CFG_POLICY_LBT;
    c.load = ZVS_CFG_LOAD_TOTAL;
    c.lbt_percent = 60;
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    assert_true(dump_has(cfg, "GROUP NEWG2 JOIN NONE LACP ACTIVE TIMEOUT SHORT INTERVAL OFF "
                              "DISTRIBUTION DESTINATION POLICY LBT 60"));
    c = pg("NEWG3", ZVS_CMD_PG_POLICY);         /* creates the group, as INTERVAL does */
    c.load = ZVS_CFG_LOAD_OUTBOUND;
    c.lbt_percent = 75;
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    assert_true(dump_has(cfg, "GROUP NEWG3 JOIN NONE LACP ACTIVE TIMEOUT SHORT INTERVAL 300 "
                              "DISTRIBUTION DESTINATION POLICY LOAD OUTBOUND"));
    c = pg("NEWG", ZVS_CMD_PG_LACP);
    c.lacp_active = true;
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    c = pg("GRPX", ZVS_CMD_PG_INTERVAL);
    c.interval_s = 9990;
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    assert_true(cfg->group[3].lacp);
    assert_int_equal(cfg->group[G_X].interval_s, 9990);

    /* Room: 64 groups. */
    char name[12];
    while (cfg->ngroup < ZVS_CFG_MAX_GROUPS) {
        snprintf(name, sizeof name, "G%u", cfg->ngroup);
        c = pg(name, ZVS_CMD_PG_INTERVAL);
        c.interval_s = 5;
        expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    }
    c = pg("ONEMORE", ZVS_CMD_PG_LACP);
    expect_err(cfg, &c, &OPERATOR, -ENOSPC, 1133,
               "ZVSCMD1133E No room for another PORT GROUP; the limit is 64");
    c = pg_devs("ONEMORE", ZVS_CMD_PG_JOIN, 1, 0x3000);
    expect_err(cfg, &c, &OPERATOR, -ENOSPC, 1133,
               "ZVSCMD1133E No room for another PORT GROUP; the limit is 64");
    c = pg_devs("NEWG", ZVS_CMD_PG_JOIN, 1, 0x3000);   /* an existing one: fine */
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
}

/* SET PORT GROUP grp LACP ACTIVE SHARED (z/VM Connectivity, "Multi-VSwitch Link
 * Aggregation"): the IVL domain's group, so this system needs its TYPE IVL switch
 * (ZVSIVL1260E) and a switch the group serves must be GLOBAL (ZVSIVL1261E); EXCLUSIVE, or
 * nothing, takes it back. */
static void test_port_group_shared(void **state)
{
    struct zvs_cfg *cfg = *state;           /* rich: no IVL switch, GRPX serves a local one */
    struct zvs_cmd c = pg("NEWG", ZVS_CMD_PG_LACP);
    c.lacp_active = true;
    c.lacp_shared = true;
    expect_err(cfg, &c, &OPERATOR, -EINVAL, 1260,
               "ZVSIVL1260E PORT GROUP NEWG cannot be SHARED: this system has no VSWITCH of "
               "TYPE IVL");
    zvs_cfg_free(cfg);
    *state = cfg = load("DEFINE VSWITCH IVLVSW TYPE IVL\n"
                        "DEFINE VSWITCH GLOBSW TYPE QDIO GLOBAL GROUP GG\n"
                        "DEFINE VSWITCH LOCSW GROUP LG\n"
                        "SET PORT GROUP GG JOIN 28BA\nSET PORT GROUP LG JOIN 2902\n"
                        "RDEVICE 28BA INTERFACE e0\nRDEVICE 2902 INTERFACE e1\n", "");
    c = pg("LG", ZVS_CMD_PG_LACP);
    c.lacp_active = true;
    c.lacp_shared = true;
    expect_err(cfg, &c, &OPERATOR, -EINVAL, 1261,
               "ZVSIVL1261E PORT GROUP LG cannot be SHARED: VSWITCH LOCSW is not GLOBAL");
    c = pg("GG", ZVS_CMD_PG_LACP);
    c.lacp_active = true;
    c.lacp_shared = true;
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    assert_true(cfg->group[0].shared);
    assert_true(dump_has(cfg, "GROUP GG JOIN 28BA LACP ACTIVE TIMEOUT SHORT SHARED INTERVAL 300 "
                              "DISTRIBUTION DESTINATION POLICY LOAD TOTAL"));
    c.lacp_shared = false;                  /* LACP ACTIVE [EXCLUSIVE] */
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    assert_false(cfg->group[0].shared);
}

/* SET VSWITCH ivlsw IVLPORT HEARTBEAT TIMEOUT s: the IVL switch's (corosync's token
 * timeout, what --write-corosync writes); another switch answers ZVSIVL1262E. */
static void test_ivlport_heartbeat(void **state)
{
    struct zvs_cfg *cfg = *state;
    zvs_cfg_free(cfg);
    *state = cfg = load("DEFINE VSWITCH IVLVSW TYPE IVL\nDEFINE VSWITCH LOCSW\n"
                        "IVL HEARTBEAT TIMEOUT 3\n", "");
    struct zvs_cmd c = cmd_new(ZVS_CMD_SET_VSWITCH, "LOCSW");
    c.vs_op = ZVS_CMD_VS_IVLPORT_HEARTBEAT;
    c.heartbeat_s = 9;
    expect_err(cfg, &c, &OPERATOR, -EINVAL, 1262,
               "ZVSIVL1262E VSWITCH LOCSW is not TYPE IVL: IVLPORT belongs to the IVL switch");
    c = cmd_new(ZVS_CMD_SET_VSWITCH, "IVLVSW");
    c.vs_op = ZVS_CMD_VS_IVLPORT_HEARTBEAT;
    c.heartbeat_s = 9;
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    assert_int_equal(cfg->ivl.heartbeat_s, 9);
    assert_true(dump_has(cfg, "IVL HEARTBEAT TIMEOUT 9"));
}

static void test_port_group_leave(void **state)
{
    struct zvs_cfg *cfg = *state;

    struct zvs_cmd c = pg_devs("GRPX", ZVS_CMD_PG_JOIN, 3, 0x28BA, 0x2902, 0x3000);
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    uint32_t line1 = cfg->group_join_line[G_X][1];
    assert_int_equal(line1, 24);
    c = pg_devs("NOGRP", ZVS_CMD_PG_LEAVE, 1, 0x28BA);
    expect_err(cfg, &c, &OPERATOR, -ENOENT, 1110, "ZVSLAG1110E Port group NOGRP does not exist");
    c = pg_devs("GRPX", ZVS_CMD_PG_LEAVE, 2, 0x2902, 0x2C00);
    expect_err(cfg, &c, &OPERATOR, -ENOENT, 1113,
               "ZVSLAG1113E Device 2C00 is not in port group GRPX");
    c = pg_devs("GRPX", ZVS_CMD_PG_LEAVE, 2, 0x2902, 0x2902);
    expect_err(cfg, &c, &OPERATOR, -ENOENT, 1113,
               "ZVSLAG1113E Device 2902 is not in port group GRPX");
    c = pg_devs("GRPX", ZVS_CMD_PG_LEAVE, 2, 0x2902, 0x2D00);
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    /* 3007 28BA 3000 remain in order; 3007's join line moved with it. */
    assert_int_equal(cfg->group[G_X].nport, 3);
    assert_int_equal(cfg->group[G_X].port[0].devno, 0x3007);
    assert_int_equal(cfg->group[G_X].port[1].devno, 0x28BA);
    assert_int_equal(cfg->group[G_X].port[2].devno, 0x3000);
    assert_int_equal(cfg->group[G_X].port[3].devno, 0);
    assert_int_equal(cfg->group_join_line[G_X][0], line1);
    assert_int_equal(cfg->group_join_line[G_X][1], 0);
    assert_int_equal(cfg->group_join_line[G_X][2], 0);
    assert_int_equal(cfg->group_join_line[G_X][3], 0);
    assert_true(dump_has(cfg, "GROUP GRPX JOIN 3007 28BA 3000 LACP ACTIVE TIMEOUT SHORT INTERVAL 60 "
                              "DISTRIBUTION DESTINATION POLICY LOAD TOTAL"));
    /* A device that left may serve as an RDEV. */
    c = vs("VSWA", ZVS_CMD_VS_RDEV);
    add_rdev(&c, 0x2D00);
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    /* A switch's group may be emptied (validate warns about it in files). */
    c = pg_devs("GRPC", ZVS_CMD_PG_LEAVE, 1, 0x2C00);
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    assert_int_equal(cfg->group[G_C].nport, 0);
}

static void test_port_group_delete(void **state)
{
    struct zvs_cfg *cfg = *state;

    uint32_t e_line = cfg->group[G_E].line;
    struct zvs_cmd c = pg_devs("GRPE", ZVS_CMD_PG_JOIN, 1, 0x3000);
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    c = pg("NOGRP", ZVS_CMD_PG_DELETE);
    expect_err(cfg, &c, &OPERATOR, -ENOENT, 1110, "ZVSLAG1110E Port group NOGRP does not exist");
    c = pg("GRPC", ZVS_CMD_PG_DELETE);
    expect_err(cfg, &c, &OPERATOR, -EBUSY, 1115,
               "ZVSLAG1115E Port group GRPC is in use by VSWITCH VSWC");
    c = pg("GRPX", ZVS_CMD_PG_DELETE);
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    assert_int_equal(cfg->ngroup, 2);
    assert_int_equal(zvs_cfg_find_group(cfg, "GRPX"), -1);
    /* GRPE moved down with its join lines; the freed slot is clean. */
    assert_string_equal(cfg->group[1].name, "GRPE");
    assert_int_equal(cfg->group[1].line, e_line);
    assert_int_equal(cfg->group[1].nport, 1);
    assert_int_equal(cfg->group_join_line[1][0], 0);
    assert_int_equal(cfg->group_join_line[1][1], 0);
    assert_int_equal(cfg->group[2].nport, 0);
    assert_int_equal(cfg->group_join_line[2][1], 0);
    assert_int_equal(cfg->group_join_line[2][0], 0);
    /* 2D00 is free for another group now. */
    c = pg_devs("GRPE", ZVS_CMD_PG_JOIN, 1, 0x2D00);
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    assert_true(dump_has(cfg, "GROUP GRPE JOIN 3000 2D00 LACP INACTIVE TIMEOUT SHORT INTERVAL 300 "
                              "DISTRIBUTION DESTINATION POLICY LOAD TOTAL"));
}

/* ---- NIC commands -------------------------------------------------------------------- */

static void test_define_nic(void **state)
{
    struct zvs_cfg *cfg = *state;

    struct zvs_cmd c = nic_cmd(ZVS_CMD_DEFINE_NIC, "", 0x0900);
    expect_ok(cfg, &c, &LINUX1, "NIC 0900 is created; devices 0900-0902 defined\n"
                                "MAC 02-00-00-00-00-0A\n");
    check_runs(cfg);
    assert_int_equal(cfg->nnic, 10);
    assert_int_equal(cfg->user[U_LINUX1].nnic, 4);
    assert_int_equal(cfg->user[U_LINUX2].first_nic, 4);
    assert_int_equal(cfg->user[U_LINUX3].first_nic, 7);
    assert_int_equal(cfg->user[U_LINUX4].first_nic, 10);
    const struct zvs_cfg_nic *n = &cfg->nic[3];
    assert_int_equal(n->user, U_LINUX1);
    assert_int_equal(n->vdev, 0x0900);
    assert_int_equal(n->devices, 3);
    assert_string_equal(n->lan, "");
    assert_int_equal(n->vswitch, -1);
    assert_int_equal(n->porttype, ZVS_PORTTYPE_UNSPEC);
    assert_false(n->has_vlan);
    assert_int_equal(n->macid_source, ZVS_MACID_SYSTEM);
    assert_int_equal(n->macid, 0x0A);
    assert_memory_equal(n->mac, ((uint8_t[]){ 0x02, 0, 0, 0, 0, 0x0A }), 6);
    assert_int_equal(n->backend, ZVS_NIC_BACKEND_NONE);
    assert_int_equal(n->line, 0);
    assert_int_equal(n->bind_line, 0);
    /* Line 0 (made by DEFINE NIC): the dump says TYPE QDIO. */
    assert_true(dump_has(cfg, "  NICDEF 0900 TYPE QDIO DEVICES 3 LAN NONE MACID 00000A SYSTEM "
                              "MAC 02-00-00-00-00-0A NICBIND NONE"));

    /* Class B for another user, first NIC of a user without any (inserted at the end). */
    c = nic_cmd(ZVS_CMD_DEFINE_NIC, "LINUX4", 0x0700);
    c.devices = 8;
    expect_ok(cfg, &c, &OPERATOR, "NIC 0700 is created; devices 0700-0707 defined\n"
                                  "MAC 02-00-00-00-00-0B\n");
    check_runs(cfg);
    assert_int_equal(cfg->user[U_LINUX4].first_nic, 10);
    assert_int_equal(cfg->user[U_LINUX4].nnic, 1);
    /* The first user, NIC-less and at index 0: every run moves up. */
    c = nic_cmd(ZVS_CMD_DEFINE_NIC, "", 0xF000);
    c.devices = 0;                      /* the default 3 */
    expect_ok(cfg, &c, &OPERATOR, "NIC F000 is created; devices F000-F002 defined\n"
                                  "MAC 02-00-00-00-00-0C\n");
    check_runs(cfg);
    assert_int_equal(cfg->user[U_OPERATOR].first_nic, 0);
    assert_int_equal(cfg->user[U_LINUX1].first_nic, 1);
    assert_int_equal(cfg->user[U_LINUX2].first_nic, 5);
    assert_int_equal(cfg->user[U_LINUX3].first_nic, 8);
    assert_int_equal(cfg->user[U_LINUX4].first_nic, 11);
    assert_int_equal(cfg->nnic, 12);
    /* The highest range that fits. */
    c = nic_cmd(ZVS_CMD_DEFINE_NIC, "LINUX4", 0xFFFD);
    expect_ok(cfg, &c, &OPERATOR, "NIC FFFD is created; devices FFFD-FFFF defined\n"
                                  "MAC 02-00-00-00-00-0D\n");
    check_runs(cfg);
    /* The rest of the configuration still validates. */
    unsigned nmsgs = cfg->msgs.n, errors = zvs_cfg_errors(cfg);
    zvs_cfg_validate(cfg);
    for (unsigned i = nmsgs; i < cfg->msgs.n; i++)
        assert_int_not_equal(cfg->msgs.msg[i].severity, 'E');
    assert_int_equal(zvs_cfg_errors(cfg), errors);
}

static void test_define_nic_errors(void **state)
{
    struct zvs_cfg *cfg = *state;

    struct zvs_cmd c = nic_cmd(ZVS_CMD_DEFINE_NIC, "", 0x06FE);
    expect_err(cfg, &c, &LINUX1, -EEXIST, 1123, "ZVSNIC1123E Device 06FE already exists for user LINUX1");
    c.vdev = 0x0602;
    expect_err(cfg, &c, &LINUX1, -EEXIST, 1123, "ZVSNIC1123E Device 0602 already exists for user LINUX1");
    c.vdev = 0x0703;                    /* 0700 has DEVICES 4: 0700-0703 */
    expect_err(cfg, &c, &LINUX1, -EEXIST, 1123, "ZVSNIC1123E Device 0703 already exists for user LINUX1");
    c.vdev = 0x0704;                    /* adjacent is fine, and another user's 0600 too */
    expect_ok(cfg, &c, &LINUX1, "NIC 0704 is created; devices 0704-0706 defined\n"
                                "MAC 02-00-00-00-00-0A\n");
    c.vdev = 0xFFFE;
    expect_err(cfg, &c, &LINUX1, -EINVAL, 1105,
               "ZVSCMD1105E Invalid VDEV value - FFFE; valid: 0000-FFFD");
    c.vdev = 0xFF00;
    c.devices = 300;
    expect_err(cfg, &c, &LINUX1, -EINVAL, 1105,
               "ZVSCMD1105E Invalid DEVICES value - 300; valid: 3-256");
    c.devices = 2;
    expect_err(cfg, &c, &LINUX1, -EINVAL, 1105,
               "ZVSCMD1105E Invalid DEVICES value - 2; valid: 3-3072");
    /* Ownership: class G names only itself; class B anyone in the directory. */
    c = nic_cmd(ZVS_CMD_DEFINE_NIC, "LINUX2", 0x0900);
    expect_err(cfg, &c, &LINUX1, -EPERM, 1134,
               "ZVSNIC1134E User LINUX1 may not act on NIC 0900 of another user");
    c = nic_cmd(ZVS_CMD_DEFINE_NIC, "LINUX1", 0x0900);   /* itself by name: fine */
    expect_ok(cfg, &c, &LINUX1, "NIC 0900 is created; devices 0900-0902 defined\n"
                                "MAC 02-00-00-00-00-0B\n");
    c = nic_cmd(ZVS_CMD_DEFINE_NIC, "LINUX9", 0x0900);
    expect_err(cfg, &c, &OPERATOR, -ENOENT, 1126, "ZVSGST1126E User LINUX9 is not in the directory");
    const struct zvs_issuer stranger = { "STRANGER", 1u << ('G' - 'A') };
    c = nic_cmd(ZVS_CMD_DEFINE_NIC, "", 0x0900);
    expect_err(cfg, &c, &stranger, -ENOENT, 1126, "ZVSGST1126E User STRANGER is not in the directory");
    check_runs(cfg);
}

static void test_define_nic_room(void **state)
{
    struct zvs_cfg *cfg = *state;

    /* Fill the NIC table with LINUX4 NICs (directly: 4000 commands add nothing). */
    struct zvs_cfg_user *u = &cfg->user[U_LINUX4];
    assert_int_equal(u->first_nic, cfg->nnic);
    while (cfg->nnic < ZVS_CFG_MAX_NICS) {
        struct zvs_cfg_nic *n = &cfg->nic[cfg->nnic];
        memset(n, 0, sizeof *n);
        n->user = U_LINUX4;
        n->vdev = (uint16_t)(0x1000 + 3 * u->nnic);
        n->devices = 3;
        n->vswitch = -1;
        n->macid_source = ZVS_MACID_USER;
        n->macid = 0x100000 + cfg->nnic;
        cfg->nnic++;
        u->nnic++;
    }
    struct zvs_cmd c = nic_cmd(ZVS_CMD_DEFINE_NIC, "", 0x0900);
    expect_err(cfg, &c, &LINUX1, -ENOSPC, 1133, "ZVSCMD1133E No room for another NIC; the limit is 4096");
    /* DETACH frees one; the next DEFINE takes the slot. */
    c = nic_cmd(ZVS_CMD_DETACH_NIC, "LINUX4", 0x1001);
    expect_ok(cfg, &c, &OPERATOR, "NIC 1000 is destroyed; devices 1000-1002 detached\n");
    c = nic_cmd(ZVS_CMD_DEFINE_NIC, "", 0x0900);
    expect_ok(cfg, &c, &LINUX1, "NIC 0900 is created; devices 0900-0902 defined\n"
                                "MAC 02-00-00-00-00-0A\n");
    assert_int_equal(cfg->nnic, ZVS_CFG_MAX_NICS);
    check_runs(cfg);
}

static void test_macid_assignment(void **state)
{
    struct zvs_cfg *cfg = *state;

    /* Free 3 (LINUX1 0800) and 6 (LINUX3 0600); 7 is a NICDEF MACID, 8 and 9 assigned. */
    struct zvs_cmd c = nic_cmd(ZVS_CMD_DETACH_NIC, "LINUX1", 0x0800);
    expect_ok(cfg, &c, &OPERATOR, "NIC 0800 is destroyed; devices 0800-0802 detached\n");
    c = nic_cmd(ZVS_CMD_DETACH_NIC, "", 0x0602);   /* a later device of the range */
    expect_ok(cfg, &c, &LINUX3, "NIC 0600 is destroyed; devices 0600-0602 detached\n");
    check_runs(cfg);
    assert_int_equal(cfg->nnic, 7);
    assert_int_equal(cfg->user[U_LINUX1].nnic, 2);
    assert_int_equal(cfg->user[U_LINUX2].first_nic, 2);
    assert_int_equal(cfg->user[U_LINUX3].first_nic, 5);
    assert_int_equal(cfg->user[U_LINUX3].nnic, 2);
    assert_int_equal(cfg->user[U_LINUX4].first_nic, 7);
    assert_int_equal(cfg->nic[cfg->nnic].vdev, 0);  /* the freed slot is clean */

    c = nic_cmd(ZVS_CMD_DEFINE_NIC, "", 0x0A00);
    expect_ok(cfg, &c, &LINUX2, "NIC 0A00 is created; devices 0A00-0A02 defined\n"
                                "MAC 02-00-00-00-00-03\n");
    c.vdev = 0x0B00;
    expect_ok(cfg, &c, &LINUX2, "NIC 0B00 is created; devices 0B00-0B02 defined\n"
                                "MAC 02-00-00-00-00-06\n");
    c.vdev = 0x0C00;                    /* skips 7 (USER), 8 and 9 (SYSTEM) */
    expect_ok(cfg, &c, &LINUX2, "NIC 0C00 is created; devices 0C00-0C02 defined\n"
                                "MAC 02-00-00-00-00-0A\n");
    check_runs(cfg);
    assert_true(dump_has(cfg, "  NICDEF 0A00 TYPE QDIO DEVICES 3 LAN NONE MACID 000003 SYSTEM "
                              "MAC 02-00-00-00-00-03 NICBIND NONE"));
    assert_true(dump_has(cfg, "  NICDEF 0B00 TYPE QDIO DEVICES 3 LAN NONE MACID 000006 SYSTEM "
                              "MAC 02-00-00-00-00-06 NICBIND NONE"));
    assert_int_equal(cfg->user[U_LINUX2].nnic, 6);
    assert_int_equal(cfg->nic[cfg->user[U_LINUX2].first_nic + 5].vdev, 0x0C00);
    c = nic_cmd(ZVS_CMD_DETACH_NIC, "", 0x0800);
    expect_err(cfg, &c, &LINUX1, -ENOENT, 1122, "ZVSNIC1122E NIC 0800 does not exist for user LINUX1");
}

static void test_macid_exhausted(void **state)
{
    struct zvs_cfg *cfg = load("VMLAN MACPREFIX 02000C\n"
                               "VMLAN MACIDRANGE SYSTEM 000001-000002 USER 000100-0001FF\n",
                               "USER LINUX1 PW 1G 2G G\n"
                               "  NICDEF 0600 TYPE QDIO\n"
                               "  NICDEF 0610 TYPE QDIO MACID 000100\n"
                               "  NICDEF 0620 TYPE QDIO\n");
    struct zvs_cmd c = nic_cmd(ZVS_CMD_DEFINE_NIC, "", 0x0700);

    expect_err(cfg, &c, &LINUX1, -ENOSPC, 1128, "ZVSNIC1128E No MACID is free in range 000001-000002");
    c = nic_cmd(ZVS_CMD_DETACH_NIC, "", 0x0600);
    expect_ok(cfg, &c, &LINUX1, "NIC 0600 is destroyed; devices 0600-0602 detached\n");
    c = nic_cmd(ZVS_CMD_DEFINE_NIC, "", 0x0700);
    expect_ok(cfg, &c, &LINUX1, "NIC 0700 is created; devices 0700-0702 defined\n"
                                "MAC 02-00-0C-00-00-01\n");
    zvs_cfg_free(cfg);
}

static void test_couple(void **state)
{
    struct zvs_cfg *cfg = *state;

    struct zvs_cmd c = couple_cmd("", 0x0700, "VSWC");
    expect_err(cfg, &c, &LINUX3, -ENOENT, 1122, "ZVSNIC1122E NIC 0700 does not exist for user LINUX3");
    c = couple_cmd("", 0x0601, "VSWB");
    expect_err(cfg, &c, &LINUX1, -EBUSY, 1124, "ZVSNIC1124E NIC 0600 is already coupled to VSWITCH VSWA");
    c = couple_cmd("", 0x0603, "NOSUCH");
    expect_err(cfg, &c, &LINUX3, -ENOENT, 1111, "ZVSVSW1111E VSWITCH NOSUCH does not exist");
    c = couple_cmd("", 0x0603, "VSWA");
    expect_err(cfg, &c, &LINUX3, -EACCES, 1121,
               "ZVSVSW1121E User LINUX3 is not authorized to couple to VSWITCH VSWA");
    c = couple_cmd("LINUX3", 0x0603, "VSWA");  /* class B acts for LINUX3: LINUX3's rights */
    expect_err(cfg, &c, &OPERATOR, -EACCES, 1121,
               "ZVSVSW1121E User LINUX3 is not authorized to couple to VSWITCH VSWA");
    c = couple_cmd("LINUX3", 0x0603, "VSWC");
    expect_err(cfg, &c, &LINUX1, -EPERM, 1134,
               "ZVSNIC1134E User LINUX1 may not act on NIC 0603 of another user");
    c = couple_cmd("", 0x0605, "VSWC");         /* granted; a later device names it */
    expect_ok(cfg, &c, &LINUX3, "NIC 0603 is connected to VSWITCH SYSTEM VSWC\n");
    const struct zvs_cfg_nic *n = nic_of(cfg, "LINUX3", 0x0603);
    assert_string_equal(n->lan, "VSWC");
    assert_int_equal(n->vswitch, SW_C);
    assert_true(dump_has(cfg, "  NICDEF 0603 TYPE QDIO DEVICES 3 LAN SYSTEM VSWC MACID 000008 SYSTEM "
                              "MAC 02-00-00-00-00-08 NICBIND NONE"));
    /* Directory authorization (PORTTYPE TRUNK VLAN 30-31) without any GRANT ... */
    c = nic_cmd(ZVS_CMD_UNCOUPLE, "", 0x0610);
    expect_ok(cfg, &c, &LINUX2, "NIC 0610 is disconnected from VSWITCH SYSTEM VSWB\n");
    c = couple_cmd("", 0x0610, "VSWA");         /* ... but VSWA is VLAN unaware */
    expect_err(cfg, &c, &LINUX2, -EINVAL, 1129,
               "ZVSVSW1129E VLAN requires a VLAN AWARE VSWITCH; VSWA is VLAN UNAWARE");
    c = couple_cmd("", 0x0610, "VSWC");
    expect_ok(cfg, &c, &LINUX2, "NIC 0610 is connected to VSWITCH SYSTEM VSWC\n");
    assert_int_equal(nic_of(cfg, "LINUX2", 0x0610)->vswitch, SW_C);
    assert_int_equal(zvs_cfg_find_grant(cfg, SW_C, "LINUX2"), -1);
    /* LINUX3 0610: VLAN 40-41, no PORTTYPE: VSWB's ACCESS takes one VLAN. */
    c = grant("VSWB", "LINUX3", ZVS_PORTTYPE_UNSPEC, NULL);
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    c = couple_cmd("", 0x0610, "VSWB");
    expect_err(cfg, &c, &LINUX3, -EINVAL, 1130,
               "ZVSVSW1130E PORTTYPE ACCESS takes one VLAN; 40-41 given");
    /* After a GRANT the directory-less NIC couples. */
    c = nic_cmd(ZVS_CMD_DEFINE_NIC, "", 0x0900);
    expect_ok(cfg, &c, &LINUX3, "NIC 0900 is created; devices 0900-0902 defined\n"
                                "MAC 02-00-00-00-00-0A\n");
    c = couple_cmd("", 0x0900, "VSWB");
    expect_ok(cfg, &c, &LINUX3, "NIC 0900 is connected to VSWITCH SYSTEM VSWB\n");
    assert_int_equal(nic_of(cfg, "LINUX3", 0x0900)->vswitch, SW_B);
}

static void test_uncouple(void **state)
{
    struct zvs_cfg *cfg = *state;

    struct zvs_cmd c = nic_cmd(ZVS_CMD_UNCOUPLE, "", 0x0603);
    expect_err(cfg, &c, &LINUX3, -ENOTCONN, 1125, "ZVSNIC1125E NIC 0603 is not coupled");
    c.vdev = 0x0999;
    expect_err(cfg, &c, &LINUX3, -ENOENT, 1122, "ZVSNIC1122E NIC 0999 does not exist for user LINUX3");
    c = nic_cmd(ZVS_CMD_UNCOUPLE, "LINUX2", 0x0600);
    expect_err(cfg, &c, &LINUX3, -EPERM, 1134,
               "ZVSNIC1134E User LINUX3 may not act on NIC 0600 of another user");
    c = nic_cmd(ZVS_CMD_UNCOUPLE, "", 0x0602);
    expect_ok(cfg, &c, &LINUX1, "NIC 0600 is disconnected from VSWITCH SYSTEM VSWA\n");
    const struct zvs_cfg_nic *n = nic_of(cfg, "LINUX1", 0x0600);
    assert_string_equal(n->lan, "");
    assert_int_equal(n->vswitch, -1);
    assert_true(dump_has(cfg, "  NICDEF 0600 TYPE QDIO DEVICES 3 LAN NONE MACID 000001 SYSTEM "
                              "MAC 02-00-00-00-00-01 NICBIND NONE"));
    c = nic_cmd(ZVS_CMD_UNCOUPLE, "LINUX2", 0x0600);
    expect_ok(cfg, &c, &OPERATOR, "NIC 0600 is disconnected from VSWITCH SYSTEM VSWB\n");
    /* Coupled again by the owner (granted). */
    c = couple_cmd("", 0x0600, "VSWA");
    expect_ok(cfg, &c, &LINUX1, "NIC 0600 is connected to VSWITCH SYSTEM VSWA\n");
    assert_int_equal(nic_of(cfg, "LINUX1", 0x0600)->vswitch, SW_A);
}

/* ---- lookups and the verb filter ----------------------------------------------------- */

static void test_lookups(void **state)
{
    struct zvs_cfg *cfg = *state;

    assert_int_equal(zvs_cfg_find_nic(cfg, "LINUX1", 0x0700), 1);
    assert_int_equal(zvs_cfg_find_nic(cfg, "LINUX1", 0x0703), 1);
    assert_int_equal(zvs_cfg_find_nic(cfg, "LINUX1", 0x0704), -1);
    assert_int_equal(zvs_cfg_find_nic(cfg, "LINUX1", 0x05FF), -1);
    assert_int_equal(zvs_cfg_find_nic(cfg, "linux3", 0x0611), 8);
    assert_int_equal(zvs_cfg_find_nic(cfg, "NOBODY", 0x0600), -1);
    assert_int_equal(zvs_cfg_find_nic(cfg, "LINUX4", 0x0600), -1);
    assert_int_equal(zvs_cfg_find_grant(cfg, SW_C, "LINUX3"), 3);
    assert_int_equal(zvs_cfg_find_grant(cfg, SW_C, "linux1"), 2);
    assert_int_equal(zvs_cfg_find_grant(cfg, SW_A, "LINUX3"), -1);
    assert_true(zvs_cfg_may_couple(cfg, SW_A, "LINUX1", NULL));
    assert_false(zvs_cfg_may_couple(cfg, SW_A, "LINUX2", NULL));
    assert_true(zvs_cfg_may_couple(cfg, SW_A, "LINUX2", nic_of(cfg, "LINUX2", 0x0610)));
    assert_true(zvs_cfg_may_couple(cfg, SW_A, "LINUX1", nic_of(cfg, "LINUX1", 0x0800)));
    assert_false(zvs_cfg_may_couple(cfg, SW_A, "LINUX3", nic_of(cfg, "LINUX3", 0x0603)));
    assert_true(zvs_cfg_may_couple(cfg, SW_A, "LINUX3", nic_of(cfg, "LINUX3", 0x0610)));
}

static void test_is_config(void **state)
{
    static const enum zvs_cmd_vs_op vs_config[] = {
        ZVS_CMD_VS_GRANT, ZVS_CMD_VS_REVOKE, ZVS_CMD_VS_RDEV, ZVS_CMD_VS_GROUP,
        ZVS_CMD_VS_NOGROUP, ZVS_CMD_VS_CONNECT, ZVS_CMD_VS_DISCONNECT,
        ZVS_CMD_VS_QUEUESTORAGE, ZVS_CMD_VS_ISOLATION, ZVS_CMD_VS_MACPROTECT,
    };
    static const enum zvs_cmd_pg_op pg_config[] = {
        ZVS_CMD_PG_JOIN, ZVS_CMD_PG_LEAVE, ZVS_CMD_PG_LACP, ZVS_CMD_PG_INTERVAL,
        ZVS_CMD_PG_DELETE,
    };
    static const enum zvs_cmd_verb config[] = {
        ZVS_CMD_DEFINE_VSWITCH, ZVS_CMD_DETACH_VSWITCH, ZVS_CMD_DEFINE_NIC,
        ZVS_CMD_DETACH_NIC, ZVS_CMD_COUPLE, ZVS_CMD_UNCOUPLE,
    };
    static const enum zvs_cmd_verb other[] = {
        ZVS_CMD_QUERY_PORT_GROUP, ZVS_CMD_QUERY_LACP, ZVS_CMD_QUERY_VSWITCH,
        ZVS_CMD_SET_LACP_FAULT, ZVS_CMD_QUERY_NIC, ZVS_CMD_QUERY_VMLAN,
    };
    struct zvs_cmd c;

    for (size_t i = 0; i < sizeof vs_config / sizeof vs_config[0]; i++) {
        c = vs("X", vs_config[i]);
        assert_true(zvs_cfg_cmd_is_config(&c));
    }
    c = vs("X", ZVS_CMD_VS_COUNTERS_CLEAR);
    assert_false(zvs_cfg_cmd_is_config(&c));
    c = vs("X", ZVS_CMD_VS_SWITCHOVER);
    assert_false(zvs_cfg_cmd_is_config(&c));
    for (size_t i = 0; i < sizeof pg_config / sizeof pg_config[0]; i++) {
        c = pg("X", pg_config[i]);
        assert_true(zvs_cfg_cmd_is_config(&c));
    }
    for (size_t i = 0; i < sizeof config / sizeof config[0]; i++) {
        c = cmd_new(config[i], "X");
        assert_true(zvs_cfg_cmd_is_config(&c));
    }
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
        c = cmd_new(other[i], "X");
        assert_false(zvs_cfg_cmd_is_config(&c));
    }
}

static void test_not_config_refused(void **state)
{
    struct zvs_cfg *cfg = *state;
    static const enum zvs_cmd_verb verbs[] = {
        ZVS_CMD_QUERY_PORT_GROUP, ZVS_CMD_QUERY_LACP, ZVS_CMD_QUERY_VSWITCH,
        ZVS_CMD_SET_LACP_FAULT, ZVS_CMD_QUERY_NIC, ZVS_CMD_QUERY_VMLAN,
    };
    char line[ZVS_CPMSG_TEXT_MAX];

    for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++) {
        struct zvs_cmd c = cmd_new(verbs[i], "");
        not_config_line(&c, line, sizeof line);
        assert_memory_equal(line, "ZVSCMD1119S Command ", 17);
        expect_err(cfg, &c, &OPERATOR, -EINVAL, 1119, line);
    }
}

/* ---- RESOLVER WATCH | UNWATCH --------------------------------------------------------- */

static struct zvs_cmd resolver_cmd(enum zvs_cmd_res_op op, const char *name)
{
    struct zvs_cmd c = cmd_new(ZVS_CMD_RESOLVER, "");
    c.res_op = op;
    set_str(c.hostname, sizeof c.hostname, name);
    return c;
}

/* Names added in order and removed keeping the others' order; a watched name again, a
 * name not watched and the 257th name refused with cfg unchanged byte for byte. */
static void test_resolver_watch(void **state)
{
    struct zvs_cfg *cfg = *state;
    struct zvs_cmd c;
    char name[32];

    assert_true(zvs_cfg_cmd_is_config(&(struct zvs_cmd){ .verb = ZVS_CMD_RESOLVER }));
    c = resolver_cmd(ZVS_CMD_RES_WATCH, "peer1.lab");
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    c = resolver_cmd(ZVS_CMD_RES_WATCH, "peer2.lab");
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    c = resolver_cmd(ZVS_CMD_RES_WATCH, "peer1.lab");
    expect_err(cfg, &c, &OPERATOR, -EEXIST, 1200, "ZVSRES1200E Name PEER1.LAB is already watched");
    c = resolver_cmd(ZVS_CMD_RES_UNWATCH, "peer3.lab");
    expect_err(cfg, &c, &OPERATOR, -ENOENT, 1201, "ZVSRES1201E Name PEER3.LAB is not watched");
    c = resolver_cmd(ZVS_CMD_RES_UNWATCH, "peer1.lab");
    expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    assert_int_equal(cfg->resolver.nwatch, 1);
    assert_string_equal(cfg->resolver.watch[0], "peer2.lab");
    assert_int_equal(cfg->resolver.watch_line[0], 0);       /* by command */
    char *d = cfg_dump_text(cfg);
    assert_non_null(strstr(d, "RESOLVER WATCH peer2.lab\n"));
    assert_null(strstr(d, "peer1.lab"));
    free(d);
    for (unsigned i = cfg->resolver.nwatch; i < ZVS_CFG_MAX_WATCH; i++) {
        snprintf(name, sizeof name, "host%u.lab", i);
        c = resolver_cmd(ZVS_CMD_RES_WATCH, name);
        expect_ok(cfg, &c, &OPERATOR, "Command complete\n");
    }
    c = resolver_cmd(ZVS_CMD_RES_WATCH, "one.more.lab");
    expect_err(cfg, &c, &OPERATOR, -ENOSPC, 1133,
               "ZVSCMD1133E No room for another RESOLVER WATCH; the limit is 256");
}

/* ---- atomicity: every refusal leaves everything as it was ---------------------------- */

struct bad {
    struct zvs_cmd            cmd;
    const struct zvs_issuer  *who;
    int                       err;
    const char               *line;
};

static void test_refusals_change_nothing(void **state)
{
    struct zvs_cfg *cfg = *state;
    static struct bad bad[48];
    unsigned n = 0;

#define BAD(c, w, e, l) (bad[n++] = (struct bad){ (c), (w), (e), (l) })
    struct zvs_cmd c;
    BAD(define_vsw("VSWB"), &OPERATOR, -EEXIST, "ZVSVSW1120E VSWITCH VSWB already exists");
    c = define_vsw("N1");
    snprintf(c.vsw.group, sizeof c.vsw.group, "GRPC");
    BAD(c, &OPERATOR, -EBUSY, "ZVSLAG1115E Port group GRPC is in use by VSWITCH VSWC");
    snprintf(c.vsw.group, sizeof c.vsw.group, "GRPE");
    BAD(c, &OPERATOR, -EINVAL, "ZVSLAG1137E Port group GRPE has no devices");
    snprintf(c.vsw.group, sizeof c.vsw.group, "ZZZ");
    BAD(c, &OPERATOR, -ENOENT, "ZVSLAG1110E Port group ZZZ does not exist");
    c = define_vsw("N1");
    c.vsw.nrdev = 2;
    c.vsw.rdev[0].devno = 0x28BA;
    c.vsw.rdev[1].devno = 0x2D00;
    BAD(c, &OPERATOR, -EBUSY, "ZVSVSW1131E Device 2D00 is in use by PORT GROUP GRPX");
    c.vsw.rdev[1].devno = 0x2B00;
    BAD(c, &OPERATOR, -EBUSY, "ZVSVSW1131E Device 2B00 is in use by VSWITCH VSWC");
    c.vsw.rdev[1].devno = 0x2E00;
    BAD(c, &OPERATOR, -ENOENT, "ZVSVSW1117E Device 2E00 has no RDEVICE INTERFACE mapping");
    BAD(grant("ZZZ", "LINUX1", ZVS_PORTTYPE_UNSPEC, NULL), &OPERATOR, -ENOENT,
        "ZVSVSW1111E VSWITCH ZZZ does not exist");
    BAD(grant("VSWA", "LINUX2", ZVS_PORTTYPE_TRUNK, "5"), &OPERATOR, -EINVAL,
        "ZVSVSW1129E VLAN requires a VLAN AWARE VSWITCH; VSWA is VLAN UNAWARE");
    BAD(grant("VSWB", "LINUX2", ZVS_PORTTYPE_UNSPEC, "7"), &OPERATOR, -EINVAL,
        "ZVSVSW1130E PORTTYPE ACCESS takes one VLAN; 7 20 given");
    BAD(grant("VSWC", "LINUX1", ZVS_PORTTYPE_ACCESS, NULL), &OPERATOR, -EINVAL,
        "ZVSVSW1130E PORTTYPE ACCESS takes one VLAN; 10-12 given");
    BAD(revoke("VSWB", "LINUX1"), &OPERATOR, -ENOENT,
        "ZVSVSW1127E User LINUX1 has no GRANT for VSWITCH VSWB");
    c = vs("VSWB", ZVS_CMD_VS_RDEV);
    BAD(c, &OPERATOR, -EINVAL, "ZVSVSW1135E VSWITCH VSWB is defined NOUPLINK; RDEV is not allowed");
    c = vs("VSWA", ZVS_CMD_VS_RDEV);
    add_rdev(&c, 0x28BA);
    add_rdev(&c, 0x2C00);
    BAD(c, &OPERATOR, -EBUSY, "ZVSVSW1131E Device 2C00 is in use by PORT GROUP GRPC");
    c = vs("VSWA", ZVS_CMD_VS_RDEV);
    add_rdev(&c, 0x28BA);
    add_rdev(&c, 0x28BA);
    BAD(c, &OPERATOR, -EINVAL, "ZVSCMD1104E Device 28BA is given more than once");
    c = vs("VSWA", ZVS_CMD_VS_GROUP);
    snprintf(c.group, sizeof c.group, "GRPC");
    BAD(c, &OPERATOR, -EBUSY, "ZVSLAG1115E Port group GRPC is in use by VSWITCH VSWC");
    c = vs("VSWB", ZVS_CMD_VS_GROUP);
    snprintf(c.group, sizeof c.group, "GRPX");
    BAD(c, &OPERATOR, -EINVAL, "ZVSVSW1135E VSWITCH VSWB is defined NOUPLINK; GROUP is not allowed");
    BAD(vs("VSWB", ZVS_CMD_VS_CONNECT), &OPERATOR, -EINVAL,
        "ZVSVSW1135E VSWITCH VSWB is defined NOUPLINK; CONNECT is not allowed");
    c = vs("VSWA", ZVS_CMD_VS_QUEUESTORAGE);
    BAD(c, &OPERATOR, -EINVAL, "ZVSCMD1105E Invalid QUEUESTORAGE value - 0; valid: 1-8");
    BAD(vs("ZZZ", ZVS_CMD_VS_ISOLATION), &OPERATOR, -ENOENT, "ZVSVSW1111E VSWITCH ZZZ does not exist");
    BAD(vs("VSWA", ZVS_CMD_VS_SWITCHOVER), &OPERATOR, -EINVAL, NULL);
    BAD(cmd_new(ZVS_CMD_DETACH_VSWITCH, "ZZZ"), &OPERATOR, -ENOENT,
        "ZVSVSW1111E VSWITCH ZZZ does not exist");
    BAD(pg_devs("GRPX", ZVS_CMD_PG_JOIN, 3, 0x28BA, 0x2902, 0x2B00), &OPERATOR, -EBUSY,
        "ZVSVSW1131E Device 2B00 is in use by VSWITCH VSWC");
    BAD(pg_devs("NEWG", ZVS_CMD_PG_JOIN, 2, 0x28BA, 0x2D00), &OPERATOR, -EBUSY,
        "ZVSLAG1112E Device 2D00 is already in port group GRPX");
    BAD(pg_devs("GRPX", ZVS_CMD_PG_JOIN, 7, 0x28BA, 0x2902, 0x3000, 0x3001, 0x3002, 0x3003,
                0x3004), &OPERATOR, -ENOSPC,
        "ZVSLAG1114E Port group GRPX has 8 devices; 3004 cannot join");
    BAD(pg_devs("GRPX", ZVS_CMD_PG_LEAVE, 2, 0x2D00, 0x28BA), &OPERATOR, -ENOENT,
        "ZVSLAG1113E Device 28BA is not in port group GRPX");
    BAD(pg_devs("NEWG", ZVS_CMD_PG_LEAVE, 1, 0x28BA), &OPERATOR, -ENOENT,
        "ZVSLAG1110E Port group NEWG does not exist");
    c = pg("GRPX", ZVS_CMD_PG_INTERVAL);
    c.interval_s = 10000;
    BAD(c, &OPERATOR, -EINVAL, "ZVSCMD1105E Invalid INTERVAL value - 10000; valid: 1-9990 OR OFF");
    BAD(pg("GRPC", ZVS_CMD_PG_DELETE), &OPERATOR, -EBUSY,
        "ZVSLAG1115E Port group GRPC is in use by VSWITCH VSWC");
    BAD(pg("NEWG", ZVS_CMD_PG_DELETE), &OPERATOR, -ENOENT, "ZVSLAG1110E Port group NEWG does not exist");
    BAD(nic_cmd(ZVS_CMD_DEFINE_NIC, "", 0x0700), &LINUX1, -EEXIST,
        "ZVSNIC1123E Device 0700 already exists for user LINUX1");
    BAD(nic_cmd(ZVS_CMD_DEFINE_NIC, "LINUX2", 0x0900), &LINUX1, -EPERM,
        "ZVSNIC1134E User LINUX1 may not act on NIC 0900 of another user");
    BAD(nic_cmd(ZVS_CMD_DEFINE_NIC, "NOBODY", 0x0900), &OPERATOR, -ENOENT,
        "ZVSGST1126E User NOBODY is not in the directory");
    BAD(nic_cmd(ZVS_CMD_DEFINE_NIC, "", 0xFFFF), &LINUX1, -EINVAL,
        "ZVSCMD1105E Invalid VDEV value - FFFF; valid: 0000-FFFD");
    BAD(nic_cmd(ZVS_CMD_DETACH_NIC, "", 0x0900), &LINUX1, -ENOENT,
        "ZVSNIC1122E NIC 0900 does not exist for user LINUX1");
    BAD(nic_cmd(ZVS_CMD_DETACH_NIC, "LINUX3", 0x0600), &LINUX2, -EPERM,
        "ZVSNIC1134E User LINUX2 may not act on NIC 0600 of another user");
    BAD(couple_cmd("", 0x0600, "VSWC"), &LINUX1, -EBUSY,
        "ZVSNIC1124E NIC 0600 is already coupled to VSWITCH VSWA");
    BAD(couple_cmd("", 0x0603, "VSWA"), &LINUX3, -EACCES,
        "ZVSVSW1121E User LINUX3 is not authorized to couple to VSWITCH VSWA");
    BAD(couple_cmd("", 0x0603, "ZZZ"), &LINUX3, -ENOENT, "ZVSVSW1111E VSWITCH ZZZ does not exist");
    BAD(couple_cmd("", 0x0610, "VSWA"), &LINUX3, -EINVAL,
        "ZVSVSW1129E VLAN requires a VLAN AWARE VSWITCH; VSWA is VLAN UNAWARE");
    BAD(nic_cmd(ZVS_CMD_UNCOUPLE, "", 0x0620), &LINUX2, -ENOTCONN, "ZVSNIC1125E NIC 0620 is not coupled");
    BAD(nic_cmd(ZVS_CMD_UNCOUPLE, "", 0x0500), &LINUX2, -ENOENT,
        "ZVSNIC1122E NIC 0500 does not exist for user LINUX2");
    BAD(cmd_new(ZVS_CMD_QUERY_VSWITCH, "VSWA"), &OPERATOR, -EINVAL, NULL);
#undef BAD
    assert_true(n >= 40 && n <= sizeof bad / sizeof bad[0]);

    char *d0 = cfg_dump_text(cfg);
    for (unsigned i = 0; i < n; i++) {
        char line[ZVS_CPMSG_TEXT_MAX];
        int cprc = 0;
        if (bad[i].line != NULL)
            snprintf(line, sizeof line, "%s", bad[i].line);
        else
            not_config_line(&bad[i].cmd, line, sizeof line);
        assert_int_equal(sscanf(line, "%*6[A-Z]%d", &cprc), 1);   /* HCPxxx or ZVSxxx */
        expect_err(cfg, &bad[i].cmd, bad[i].who, bad[i].err, cprc, line);
    }
    char *d1 = cfg_dump_text(cfg);
    assert_string_equal(d0, d1);
    free(d0);
    free(d1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_report_sequence, lab_setup, teardown),
        cmocka_unit_test_setup_teardown(test_define_vswitch, rich_setup, teardown),
        cmocka_unit_test_setup_teardown(test_define_vswitch_room, rich_setup, teardown),
        cmocka_unit_test_setup_teardown(test_detach_vswitch_renumbers, rich_setup, teardown),
        cmocka_unit_test_setup_teardown(test_grant, rich_setup, teardown),
        cmocka_unit_test_setup_teardown(test_grant_limits, rich_setup, teardown),
        cmocka_unit_test_setup_teardown(test_revoke, rich_setup, teardown),
        cmocka_unit_test_setup_teardown(test_set_rdev, rich_setup, teardown),
        cmocka_unit_test_setup_teardown(test_set_group, rich_setup, teardown),
        cmocka_unit_test_setup_teardown(test_set_settings, rich_setup, teardown),
        cmocka_unit_test_setup_teardown(test_port_group_join, rich_setup, teardown),
        cmocka_unit_test_setup_teardown(test_port_group_create_defaults, rich_setup, teardown),
        cmocka_unit_test_setup_teardown(test_port_group_shared, rich_setup, teardown),
        cmocka_unit_test_setup_teardown(test_ivlport_heartbeat, rich_setup, teardown),
        cmocka_unit_test_setup_teardown(test_port_group_leave, rich_setup, teardown),
        cmocka_unit_test_setup_teardown(test_port_group_delete, rich_setup, teardown),
        cmocka_unit_test_setup_teardown(test_define_nic, rich_setup, teardown),
        cmocka_unit_test_setup_teardown(test_define_nic_errors, rich_setup, teardown),
        cmocka_unit_test_setup_teardown(test_define_nic_room, rich_setup, teardown),
        cmocka_unit_test_setup_teardown(test_macid_assignment, rich_setup, teardown),
        cmocka_unit_test(test_macid_exhausted),
        cmocka_unit_test_setup_teardown(test_couple, rich_setup, teardown),
        cmocka_unit_test_setup_teardown(test_uncouple, rich_setup, teardown),
        cmocka_unit_test_setup_teardown(test_lookups, rich_setup, teardown),
        cmocka_unit_test(test_is_config),
        cmocka_unit_test_setup_teardown(test_not_config_refused, rich_setup, teardown),
        cmocka_unit_test_setup_teardown(test_refusals_change_nothing, rich_setup, teardown),
        cmocka_unit_test_setup_teardown(test_resolver_watch, rich_setup, teardown),
    };
    return cmocka_run_group_tests_name("cfg_apply", tests, NULL, NULL);
}
