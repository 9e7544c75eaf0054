/* SYSTEM CONFIG / USER DIRECT parser tests.
 *
 * Golden: the lab files in configs/ parse without a message and dump byte for byte as
 * tests/golden/config/sample.dump (group.sysconfig as group.dump: port groups). Errors: every case below feeds a SYSTEM CONFIG and/or
 * USER DIRECT text, runs validate, and compares the complete list of messages (file,
 * line, id and text) with the expected strings, in order. Run from the repository root.
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

#include "cp-commands/config.h"
#include "tests/unit/cfg_text.h"
#include "cp-commands/messages.h"
#include "cp-commands/tokens.h"

#define GOLDEN_DIR "tests/golden/config/"

static struct zvs_cfg *run(const char *sc, const char *ud)
{
    struct zvs_cfg *cfg = zvs_cfg_new();
    assert_non_null(cfg);
    if (sc != NULL)
        assert_true(zvs_cfg_parse_sysconfig_text(cfg, "SYSTEM.CONFIG", sc) >= 0);
    if (ud != NULL)
        assert_true(zvs_cfg_parse_userdirect_text(cfg, "USER.DIRECT", ud) >= 0);
    assert_true(zvs_cfg_validate(cfg) >= 0);
    return cfg;
}

static void print_msgs(const struct zvs_cfg *cfg)
{
    for (unsigned i = 0; i < cfg->msgs.n; i++)
        print_message("  got: %s\n", cfg->msgs.msg[i].text);
}

/* exp: NULL-terminated list of the exact message lines. */
static void expect_msgs(const struct zvs_cfg *cfg, const char *const *exp)
{
    unsigned n = 0;
    while (exp[n] != NULL)
        n++;
    if (cfg->msgs.n != n)
        print_msgs(cfg);
    assert_int_equal(cfg->msgs.n, n);
    unsigned errors = 0;
    for (unsigned i = 0; i < n; i++) {
        if (strcmp(cfg->msgs.msg[i].text, exp[i]) != 0)
            print_msgs(cfg);
        assert_string_equal(cfg->msgs.msg[i].text, exp[i]);
        errors += cfg->msgs.msg[i].severity == 'E';
    }
    assert_int_equal(zvs_cfg_errors(cfg), errors);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        fail_msg("cannot open %s (run from the repository root)", path);
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    int c;
    while ((c = fgetc(f)) != EOF)
        fputc(c, m);
    fclose(m);
    fclose(f);
    return buf;
}

/* ---- error cases --------------------------------------------------------------------- */

struct err_case {
    const char *name;
    const char *sc;                     /* SYSTEM.CONFIG text or NULL */
    const char *ud;                     /* USER.DIRECT text or NULL */
    const char *exp[6];                 /* messages, NULL-terminated */
};

#define SC "SYSTEM.CONFIG:"
#define UD "USER.DIRECT:"
#define RULE_NAME "(1-8 characters A-Z 0-9 @ # $)"
#define RULE_RDEV "(hex device nnnn or nnnn.Pn)"
#define RULE_IFNAME "(Linux interface name: 1-15 characters, no / : or blanks)"
#define RULE_VIDSET "(VLAN IDs 1-4094 or ranges lo-hi)"
#define RULE_RANGE "(xxxxxx-xxxxxx, 6 hex digits each, low <= high)"
#define RULE_LINUXUSER "(1-32 of A-Z a-z 0-9 . _ - (- not first), or uid 0-4294967294)"
/* Maps devices 0100-0109 and gives group G1 a switch. */
#define GRP_TAIL "DEFINE VSWITCH SW GROUP G1\n" \
    "RDEVICE 100 INTERFACE e0\nRDEVICE 101 INTERFACE e1\nRDEVICE 102 INTERFACE e2\n" \
    "RDEVICE 103 INTERFACE e3\nRDEVICE 104 INTERFACE e4\nRDEVICE 105 INTERFACE e5\n" \
    "RDEVICE 106 INTERFACE e6\nRDEVICE 107 INTERFACE e7\nRDEVICE 108 INTERFACE e8\n" \
    "RDEVICE 109 INTERFACE e9\n"
#define NOTLOCAL " is not a locally administered unicast prefix (first byte: X'02' set, X'01' clear)"

static const struct err_case err_cases[] = {
    /* Statements and lexical rules. */
    { "unknown statement", "FOO BAR\n", NULL,
      { SC "1: ZVSCFG1001E Statement FOO is not recognized" } },
    { "unknown DEFINE", "\n\nDEFINE LAN X\n", NULL,
      { SC "3: ZVSCFG1001E Statement DEFINE LAN is not recognized" } },
    { "continued at EOF", "VMLAN MACPREFIX 02000C\nDEFINE VSWITCH A,\n* comment\n\n", NULL,
      { SC "2: ZVSCFG1009E Statement DEFINE is continued at end of file" } },
    { "continued at EOF after comment", "DEFINE VSWITCH A, /* more */", NULL,
      { SC "1: ZVSCFG1009E Statement DEFINE is continued at end of file" } },
    { "unterminated comment", "VMLAN MACPREFIX 02000C\n/* open\n more\n", NULL,
      { SC "2: ZVSCFG1010E Comment /* is not terminated at end of file" } },
    { "unterminated comment after statement", "DEFINE VSWITCH A /* oops\nDEFINE VSWITCH B\n",
      NULL, { SC "1: ZVSCFG1010E Comment /* is not terminated at end of file" } },
    { "comments do not nest", "/* a /* b */ c */\n", NULL,
      { SC "1: ZVSCFG1011E Comment end */ has no comment start",
        SC "1: ZVSCFG1001E Statement c is not recognized" } },
    { "invalid character", "VMLAN MACPREFIX 02000C\x01\x02\n", NULL,
      { SC "1: ZVSCFG1012E Character X'01' is not valid" } },
    { "invalid character 8-bit", "VMLAN MACPREFIX \xC3\xA9" "02000C\n", NULL,
      { SC "1: ZVSCFG1012E Character X'C3' is not valid" } },

    /* DEFINE VSWITCH. */
    { "switchname missing", "DEFINE VSWITCH\n", NULL,
      { SC "1: ZVSCFG1002E Operand switchname is missing" } },
    { "switchname too long", "DEFINE VSWITCH TOOLONGNM\n", NULL,
      { SC "1: ZVSCFG1003E Operand switchname value TOOLONGNM is not valid " RULE_NAME } },
    { "switchname bad char", "DEFINE VSWITCH A-B\n", NULL,
      { SC "1: ZVSCFG1003E Operand switchname value A-B is not valid " RULE_NAME } },
    { "unknown operand", "DEFINE VSWITCH A FOO\n", NULL,
      { SC "1: ZVSCFG1004E Operand FOO is not recognized by DEFINE VSWITCH" } },
    /* Abbreviations as the DEFINE VSWITCH Statement diagram (z/VM 7.4 CP Planning and
     * Administration) gives them: DEFine, ETHernet, QUEuestorage, GROup, ... At the
     * minimum they are accepted; one letter short, refused. */
    { "abbreviation", "DEFINE VSWITCH A QU 1M\n", NULL,
      { SC "1: ZVSCFG1004E Operand QU is not recognized by DEFINE VSWITCH",
        SC "1: ZVSCFG1004E Operand 1M is not recognized by DEFINE VSWITCH" } },
    { "abbreviations at the minimum", "DEF VSWITCH A ETH QUE 1M CON MACP ON ISOL OFF PORTT ACCESS\n", NULL,
      { NULL } },
    { "DEFINE one letter short", "DE VSWITCH A\n", NULL,
      { SC "1: ZVSCFG1001E Statement DE is not recognized" } },
    { "operand twice", "DEFINE VSWITCH A CONNECT,\n  connect\n", NULL,
      { SC "2: ZVSCFG1005E Operand CONNECT is specified more than once" } },
    { "CONNECT DISCONNECT", "DEFINE VSWITCH A CONNECT DISCONNECT\n", NULL,
      { SC "1: ZVSCFG1006E Operand DISCONNECT conflicts with CONNECT" } },
    { "RDEV NOUPLINK", "DEFINE VSWITCH A NOUPLINK RDEV 28BA\n", NULL,
      { SC "1: ZVSCFG1006E Operand RDEV conflicts with NOUPLINK" } },
    { "RDEV GROUP fallback", "DEFINE VSWITCH A RDEV 28BA GROUP G1\nSET PORT GROUP G1 JOIN 2902\n"
      "RDEVICE 28BA INTERFACE e0\nRDEVICE 2902 INTERFACE e1\n", NULL, { NULL } },
    { "GROUP NOUPLINK", "DEFINE VSWITCH A NOUPLINK GROUP G1\n", NULL,
      { SC "1: ZVSCFG1006E Operand GROUP conflicts with NOUPLINK" } },
    { "NOUPLINK GROUP RDEV", "DEFINE VSWITCH A GROUP G1 RDEV 28BA NOUPLINK\n", NULL,
      { SC "1: ZVSCFG1006E Operand NOUPLINK conflicts with RDEV" } },
    { "GROUP NOGROUP", "DEFINE VSWITCH A NOGROUP GROUP G1\n", NULL,
      { SC "1: ZVSCFG1006E Operand GROUP conflicts with NOGROUP" } },
    { "RDEV four", "DEFINE VSWITCH A RDEV 1 2 3 4\n", NULL,
      { SC "1: ZVSCFG1008E Operand RDEV accepts at most 3 values; 4 is one too many" } },
    { "RDEV five digits", "DEFINE VSWITCH A RDEV 12345\n", NULL,
      { SC "1: ZVSCFG1003E Operand RDEV value 12345 is not valid " RULE_RDEV } },
    { "RDEV port 10", "DEFINE VSWITCH A RDEV 28BA.P10\n", NULL,
      { SC "1: ZVSCFG1003E Operand RDEV value 28BA.P10 is not valid " RULE_RDEV } },
    { "RDEV port letter", "DEFINE VSWITCH A RDEV 28BA.Q1\n", NULL,
      { SC "1: ZVSCFG1003E Operand RDEV value 28BA.Q1 is not valid " RULE_RDEV } },
    { "RDEV NONE not alone", "DEFINE VSWITCH A RDEV NONE 28BA\n", NULL,
      { SC "1: ZVSCFG1003E Operand RDEV value NONE is not valid (NONE stands alone)" } },
    { "RDEV twice", "DEFINE VSWITCH A RDEV 28BA 28ba\n", NULL,
      { SC "1: ZVSCFG1003E Operand RDEV value 28ba is not valid (device given twice)" } },
    { "RDEV no value", "DEFINE VSWITCH A RDEV ETHERNET\n", NULL,
      { SC "1: ZVSCFG1007E Operand RDEV requires a value" } },
    { "IP", "DEFINE VSWITCH A IP\n", NULL,
      { SC "1: ZVSCFG1017E Operand IP is not supported: zvswitch switches are ETHERNET (layer 2) only" } },
    { "ETHERNET IP", "DEFINE VSWITCH A ETHERNET IP\n", NULL,
      { SC "1: ZVSCFG1006E Operand IP conflicts with ETHERNET" } },
    { "VLAN 4095", "DEFINE VSWITCH A VLAN 4095\n", NULL,
      { SC "1: ZVSCFG1003E Operand VLAN value 4095 is not valid (UNAWARE, AWARE or 1-4094)" } },
    { "NATIVE 0", "DEFINE VSWITCH A VLAN AWARE NATIVE 0\n", NULL,
      { SC "1: ZVSCFG1003E Operand NATIVE value 0 is not valid (NONE or 1-4094)" } },
    { "NATIVE unaware", "DEFINE VSWITCH A NATIVE 5\n", NULL,
      { SC "1: ZVSCFG1027E Operand NATIVE is not allowed: VSWITCH A is VLAN UNAWARE" } },
    { "PORTTYPE", "DEFINE VSWITCH A PORTTYPE HYBRID\n", NULL,
      { SC "1: ZVSCFG1003E Operand PORTTYPE value HYBRID is not valid (ACCESS or TRUNK)" } },
    { "QUEUESTORAGE 9M", "\n\n\n\n\n\n\n\n\n\n\nDEFINE VSWITCH A QUEUESTORAGE 9M\n", NULL,
      { SC "12: ZVSCFG1003E Operand QUEUESTORAGE value 9M is not valid (1M-8M)" } },
    { "QUEUESTORAGE 0", "DEFINE VSWITCH A QUEUESTORAGE 0\n", NULL,
      { SC "1: ZVSCFG1003E Operand QUEUESTORAGE value 0 is not valid (1M-8M)" } },
    { "QUEUESTORAGE M", "DEFINE VSWITCH A QUEUESTORAGE M\n", NULL,
      { SC "1: ZVSCFG1003E Operand QUEUESTORAGE value M is not valid (1M-8M)" } },
    { "QUEUESTORAGE 1MB", "DEFINE VSWITCH A QUEUESTORAGE 1MB\n", NULL,
      { SC "1: ZVSCFG1003E Operand QUEUESTORAGE value 1MB is not valid (1M-8M)" } },
    { "QUEUESTORAGE 10M", "DEFINE VSWITCH A QUEUESTORAGE 10M\n", NULL,
      { SC "1: ZVSCFG1003E Operand QUEUESTORAGE value 10M is not valid (1M-8M)" } },
    { "QUEUESTORAGE no value", "DEFINE VSWITCH A QUEUESTORAGE\n", NULL,
      { SC "1: ZVSCFG1007E Operand QUEUESTORAGE requires a value" } },
    { "CONTROLLER", "DEFINE VSWITCH A CONTROLLER TCPIPUSER1\n", NULL,
      { SC "1: ZVSCFG1003E Operand CONTROLLER value TCPIPUSER1 is not valid"
           " (* or a userid of 1-8 characters A-Z 0-9 @ # $)" } },
    { "GROUP", "DEFINE VSWITCH A GROUP G.1\n", NULL,
      { SC "1: ZVSCFG1003E Operand GROUP value G.1 is not valid " RULE_NAME } },
    { "MACPROTECT", "DEFINE VSWITCH A MACPROTECT YES\n", NULL,
      { SC "1: ZVSCFG1003E Operand MACPROTECT value YES is not valid (ON, OFF or UNSPECIFIED)" } },
    { "ISOLATION", "DEFINE VSWITCH A ISOLATION 1\n", NULL,
      { SC "1: ZVSCFG1003E Operand ISOLATION value 1 is not valid (ON or OFF)" } },
    { "DEFINE twice", "DEFINE VSWITCH A\n* x\nDEFINE VSWITCH a RDEV NONE\n", NULL,
      { SC "3: ZVSCFG1014E VSWITCH A is already defined on line 1" } },
    { "all errors of a statement", "DEFINE VSWITCH A VLAN 0,\n PORTTYPE X QUEUESTORAGE 9\n",
      NULL,
      { SC "1: ZVSCFG1003E Operand VLAN value 0 is not valid (UNAWARE, AWARE or 1-4094)",
        SC "2: ZVSCFG1003E Operand PORTTYPE value X is not valid (ACCESS or TRUNK)",
        SC "2: ZVSCFG1003E Operand QUEUESTORAGE value 9 is not valid (1M-8M)" } },

    /* MODIFY VSWITCH ... GRANT. */
    { "MODIFY undefined", "MODIFY VSWITCH B GRANT X\n", NULL,
      { SC "1: ZVSCFG1016E VSWITCH B is not defined" } },
    { "MODIFY before DEFINE", "MODIFY VSWITCH A GRANT X\nDEFINE VSWITCH A\n", NULL,
      { SC "1: ZVSCFG1016E VSWITCH A is not defined" } },
    { "GRANT missing", "DEFINE VSWITCH A\nMODIFY VSWITCH A PORTTYPE TRUNK\n", NULL,
      { SC "2: ZVSCFG1002E Operand GRANT is missing" } },
    { "GRANT bad user", "DEFINE VSWITCH A\nMODIFY VSWITCH A GRANT LINUXGUEST\n", NULL,
      { SC "2: ZVSCFG1003E Operand GRANT value LINUXGUEST is not valid " RULE_NAME } },
    { "GRANT VLAN unaware", "DEFINE VSWITCH A\nMODIFY VSWITCH A GRANT U VLAN 10\n", NULL,
      { SC "2: ZVSCFG1027E Operand VLAN is not allowed: VSWITCH A is VLAN UNAWARE" } },
    { "GRANT ACCESS two VLANs", "DEFINE VSWITCH A VLAN 1\nMODIFY VSWITCH A GRANT U VLAN 20 10\n",
      NULL,
      { SC "2: ZVSCFG1028E Operand VLAN 10 20 names more than one VLAN ID; PORTTYPE ACCESS allows one" } },
    { "GRANT switch TRUNK default", "DEFINE VSWITCH A VLAN 1 PORTTYPE TRUNK\n"
      "MODIFY VSWITCH A GRANT U VLAN 20 10 PORTTYPE ACCESS\n", NULL,
      { SC "2: ZVSCFG1028E Operand VLAN 10 20 names more than one VLAN ID; PORTTYPE ACCESS allows one" } },
    { "GRANT VLAN 0", "DEFINE VSWITCH A VLAN 1\nMODIFY VSWITCH A GRANT U PORTTYPE TRUNK VLAN 0\n",
      NULL, { SC "2: ZVSCFG1003E Operand VLAN value 0 is not valid " RULE_VIDSET } },
    { "GRANT VLAN range reversed",
      "DEFINE VSWITCH A VLAN 1\nMODIFY VSWITCH A GRANT U PORTTYPE TRUNK VLAN 20-10 4095\n", NULL,
      { SC "2: ZVSCFG1003E Operand VLAN value 20-10 is not valid " RULE_VIDSET,
        SC "2: ZVSCFG1003E Operand VLAN value 4095 is not valid " RULE_VIDSET } },
    { "GRANT VLAN 33 tokens",
      "DEFINE VSWITCH A VLAN 1\nMODIFY VSWITCH A GRANT U PORTTYPE TRUNK VLAN 1 2 3 4 5 6 7 8 9 "
      "10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33\n", NULL,
      { SC "2: ZVSCFG1008E Operand VLAN accepts at most 32 values; 33 is one too many" } },
    { "GRANT twice", "DEFINE VSWITCH A\nMODIFY VSWITCH A GRANT U\nMODIFY VSWITCH A GRANT u\n",
      NULL, { SC "3: ZVSCFG1029E USER U is already granted on VSWITCH A on line 2" } },

    /* RDEVICE. */
    { "RDEVICE bad", "RDEVICE XYZ1 INTERFACE eth0\n", NULL,
      { SC "1: ZVSCFG1003E Operand RDEVICE value XYZ1 is not valid " RULE_RDEV } },
    { "RDEVICE no INTERFACE", "RDEVICE 28BA\n", NULL,
      { SC "1: ZVSCFG1002E Operand INTERFACE is missing" } },
    { "RDEVICE rdev missing", "RDEVICE\n", NULL,
      { SC "1: ZVSCFG1002E Operand rdev is missing" } },
    { "INTERFACE slash", "RDEVICE 28BA INTERFACE a/b\n", NULL,
      { SC "1: ZVSCFG1003E Operand INTERFACE value a/b is not valid " RULE_IFNAME } },
    { "INTERFACE colon", "RDEVICE 28BA INTERFACE eth0:1\n", NULL,
      { SC "1: ZVSCFG1003E Operand INTERFACE value eth0:1 is not valid " RULE_IFNAME } },
    { "INTERFACE 16 chars", "RDEVICE 28BA INTERFACE abcdefghijklmnop\n", NULL,
      { SC "1: ZVSCFG1003E Operand INTERFACE value abcdefghijklmnop is not valid " RULE_IFNAME } },
    { "INTERFACE dotdot", "RDEVICE 28BA INTERFACE ..\n", NULL,
      { SC "1: ZVSCFG1003E Operand INTERFACE value .. is not valid " RULE_IFNAME } },
    { "RDEVICE twice", "RDEVICE 28BA INTERFACE a\nRDEVICE 28ba.P0 INTERFACE b\n", NULL,
      { SC "2: ZVSCFG1014E RDEVICE 28BA is already defined on line 1" } },
    { "BACKEND bad", "RDEVICE 28BA INTERFACE eth0 BACKEND DPDK\n", NULL,
      { SC "1: ZVSCFG1003E Operand BACKEND value DPDK is not valid (AFPACKET, PCAP or TAP)" } },
    { "BACKEND twice", "RDEVICE 28BA INTERFACE eth0 BACKEND PCAP,\n  BACKEND afpacket\n", NULL,
      { SC "2: ZVSCFG1005E Operand BACKEND is specified more than once" } },
    { "BACKEND no value", "RDEVICE 28BA INTERFACE eth0 BACKEND\n", NULL,
      { SC "1: ZVSCFG1007E Operand BACKEND requires a value" } },

    /* VMLAN. */
    { "MACPREFIX not local", "VMLAN MACPREFIX 000000\n", NULL,
      { SC "1: ZVSCFG1023E MACPREFIX 000000" NOTLOCAL } },
    { "MACPREFIX multicast", "VMLAN MACPREFIX 03000C\n", NULL,
      { SC "1: ZVSCFG1023E MACPREFIX 03000C" NOTLOCAL } },
    { "MACPREFIX 5 digits", "VMLAN MACPREFIX 02000\n", NULL,
      { SC "1: ZVSCFG1003E Operand MACPREFIX value 02000 is not valid (6 hex digits)" } },
    { "MACPREFIX twice", "VMLAN MACPREFIX 020000\nVMLAN MACPREFIX 020001\n", NULL,
      { SC "2: ZVSCFG1014E VMLAN MACPREFIX is already defined on line 1" } },
    { "VMLAN empty", "VMLAN\n", NULL,
      { SC "1: ZVSCFG1002E Operand MACPREFIX or MACIDRANGE is missing" } },
    { "MACIDRANGE overlap", "VMLAN MACIDRANGE SYSTEM 000001-0000FF USER 000080-FFFFFF\n", NULL,
      { SC "1: ZVSCFG1024E MACIDRANGE SYSTEM 000001-0000FF overlaps USER 000080-FFFFFF" } },
    { "MACIDRANGE no USER", "VMLAN MACIDRANGE SYSTEM 000001-0000FF\n", NULL,
      { SC "1: ZVSCFG1002E Operand USER is missing" } },
    { "MACIDRANGE reversed", "VMLAN MACIDRANGE USER 000100-FFFFFF SYSTEM 0000FF-000001\n", NULL,
      { SC "1: ZVSCFG1003E Operand SYSTEM value 0000FF-000001 is not valid " RULE_RANGE } },
    { "MACIDRANGE sub-operand", "VMLAN MACIDRANGE SYSTEM 000001-00000F FOO 1\n", NULL,
      { SC "1: ZVSCFG1004E Operand FOO is not recognized by MACIDRANGE",
        SC "1: ZVSCFG1004E Operand 1 is not recognized by MACIDRANGE",
        SC "1: ZVSCFG1002E Operand USER is missing" } },
    { "MACIDRANGE twice",
      "VMLAN MACIDRANGE SYSTEM 000001-00000F USER 000010-0000FF\n"
      "VMLAN MACPREFIX 02000C MACIDRANGE SYSTEM 000001-00000F USER 000010-0000FF\n", NULL,
      { SC "2: ZVSCFG1014E VMLAN MACIDRANGE is already defined on line 1" } },

    /* USER DIRECT. */
    { "NICDEF outside USER", NULL, "NICDEF F000 TYPE QDIO\n",
      { UD "1: ZVSCFG1020E Statement NICDEF is not within a USER entry" } },
    { "NICBIND outside USER", NULL, "NICBIND F000 QDIO\n",
      { UD "1: ZVSCFG1020E Statement NICBIND is not within a USER entry" } },
    { "USER short", NULL, "USER A PW 1G\n",
      { UD "1: ZVSCFG1002E Operand maxstorage is missing" } },
    { "USER bad userid", NULL, "USER LINUXGUEST PW 1G 2G\n",
      { UD "1: ZVSCFG1003E Operand userid value LINUXGUEST is not valid " RULE_NAME } },
    { "USER bad storage", NULL, "USER A PW 1X 2G\n",
      { UD "1: ZVSCFG1003E Operand storage value 1X is not valid (1-10 digits and K, M, G or T)" } },
    { "USER storage overflow", NULL, "USER A PW 1G 99999999T\n",
      { UD "1: ZVSCFG1003E Operand maxstorage value 99999999T is not valid"
           " (1-10 digits and K, M, G or T)" } },
    { "USER storage > max", NULL, "USER A PW 4G 2048M\n",
      { UD "1: ZVSCFG1025E Operand storage value 4G exceeds maxstorage 2048M" } },
    { "USER password", NULL, "USER A SECRET123 1G 2G\n",
      { UD "1: ZVSCFG1003E Operand password value (not shown) is not valid (1-8 characters)" } },
    { "USER classes", NULL, "USER A PW 1G 2G G7\n",
      { UD "1: ZVSCFG1003E Operand privclasses value G7 is not valid (letters A-Z and digits 1-6)" } },
    { "USER extra", NULL, "USER A PW 1G 2G G EXTRA\n",
      { UD "1: ZVSCFG1004E Operand EXTRA is not recognized by USER" } },
    { "USER twice", NULL, "USER A PW 1G 2G\nIDENTITY a PW 1G 2G\n",
      { UD "2: ZVSCFG1014E USER A is already defined on line 1" } },
    { "NICDEF bad vdev", NULL, "USER A PW 1G 2G\nNICDEF 10000 TYPE QDIO\n",
      { UD "2: ZVSCFG1003E Operand vdev value 10000 is not valid (1-4 hex digits)" } },
    { "NICDEF no TYPE", NULL, "USER A PW 1G 2G\nNICDEF F000 DEVICES 3\n",
      { UD "2: ZVSCFG1021E NICDEF F000 requires operand TYPE" } },
    { "NICDEF TYPE in modifier", NULL,
      "USER A PW 1G 2G\nNICDEF F000 DEVICES 4\nNICDEF F000 TYPE QDIO\n", { NULL } },
    { "NICDEF TYPE twice", NULL,
      "USER A PW 1G 2G\nNICDEF F000 TYPE QDIO\nNICDEF F000 TYPE QDIO\n",
      { UD "3: ZVSCFG1030E NICDEF F000 operand TYPE was already given on line 2" } },
    { "NICDEF TYPE twice in one", NULL, "USER A PW 1G 2G\nNICDEF F000 TYPE QDIO TYPE QDIO\n",
      { UD "2: ZVSCFG1005E Operand TYPE is specified more than once" } },
    { "NICDEF HIPERSOCKETS", NULL, "USER A PW 1G 2G\nNICDEF F000 TYPE HIPERSOCKETS\n",
      { UD "2: ZVSCFG1018E NICDEF TYPE HIPERSOCKETS is not supported:"
           " zvswitch emulates QDIO adapters only" } },
    { "NICDEF TYPE bad", NULL, "USER A PW 1G 2G\nNICDEF F000 TYPE OSA\n",
      { UD "2: ZVSCFG1003E Operand TYPE value OSA is not valid (QDIO or HIPERSOCKETS)" } },
    { "NICDEF DEVICES 2", NULL, "USER A PW 1G 2G\nNICDEF F000 TYPE QDIO DEVICES 2\n",
      { UD "2: ZVSCFG1003E Operand DEVICES value 2 is not valid (3-3072)" } },
    { "NICDEF past FFFF", NULL, "USER A PW 1G 2G\nNICDEF FFFE TYPE QDIO\n",
      { UD "2: ZVSCFG1003E Operand DEVICES value 3 is not valid"
           " (vdev + DEVICES - 1 must not exceed FFFF)" } },
    { "NICDEF overlap", NULL, "USER A PW 1G 2G\nNICDEF F000 TYPE QDIO\nNICDEF F002 TYPE QDIO\n",
      { UD "3: ZVSCFG1026E NICDEF F002 (devices F002-F004) overlaps NICDEF F000 (devices F000-F002)" } },
    { "NICDEF no overlap across users", NULL,
      "USER A PW 1G 2G\nNICDEF F000 TYPE QDIO\nUSER B PW 1G 2G\nNICDEF F000 TYPE QDIO\n",
      { NULL } },
    { "NICDEF guest LAN", NULL, "USER A PW 1G 2G\nNICDEF F000 TYPE QDIO LAN * MYLAN\n",
      { UD "2: ZVSCFG1019E Operand LAN * MYLAN is not supported: use LAN SYSTEM switchname" } },
    { "NICDEF LAN short", NULL, "USER A PW 1G 2G\nNICDEF F000 TYPE QDIO LAN SYSTEM\n",
      { UD "2: ZVSCFG1007E Operand LAN requires a value" } },
    { "NICDEF LAN name", NULL, "USER A PW 1G 2G\nNICDEF F000 TYPE QDIO LAN SYSTEM SW_1\n",
      { UD "2: ZVSCFG1003E Operand LAN SYSTEM value SW_1 is not valid " RULE_NAME } },
    { "NICDEF MACID", NULL, "USER A PW 1G 2G\nNICDEF F000 TYPE QDIO MACID 12345\n",
      { UD "2: ZVSCFG1003E Operand MACID value 12345 is not valid (6 hex digits)" } },
    { "NICDEF PORTTYPE", NULL, "USER A PW 1G 2G\nNICDEF F000 TYPE QDIO PORTTYPE X\n",
      { UD "2: ZVSCFG1003E Operand PORTTYPE value X is not valid (ACCESS or TRUNK)" } },
    { "NICDEF VLAN", NULL, "USER A PW 1G 2G\nNICDEF F000 TYPE QDIO VLAN 1-\n",
      { UD "2: ZVSCFG1003E Operand VLAN value 1- is not valid " RULE_VIDSET } },
    { "NICDEF after failed USER", NULL, "USER A PW 1X 2G\nNICDEF F000 DEVICES 9999\n",
      { UD "1: ZVSCFG1003E Operand storage value 1X is not valid (1-10 digits and K, M, G or T)",
        UD "2: ZVSCFG1003E Operand DEVICES value 9999 is not valid (3-3072)" } },
    { "NICBIND no NICDEF", NULL, "USER A PW 1G 2G\nNICBIND F000 QDIO\nNICDEF F000 TYPE QDIO\n",
      { UD "2: ZVSCFG1022E NICBIND F000 has no preceding NICDEF in USER A" } },
    { "NICBIND other user", NULL,
      "USER A PW 1G 2G\nNICDEF F000 TYPE QDIO\nUSER B PW 1G 2G\nNICBIND F000 QDIO\n",
      { UD "4: ZVSCFG1022E NICBIND F000 has no preceding NICDEF in USER B" } },
    { "NICBIND twice", NULL,
      "USER A PW 1G 2G\nNICDEF F000 TYPE QDIO\nNICBIND F000 QDIO\nNICBIND F000 TAP t0\n",
      { UD "4: ZVSCFG1014E NICBIND F000 is already defined on line 3" } },
    { "NICBIND nothing", NULL, "USER A PW 1G 2G\nNICDEF F000 TYPE QDIO\nNICBIND F000\n",
      { UD "3: ZVSCFG1002E Operand TAP, QDIO or LCS is missing" } },
    { "NICBIND TAP QDIO", NULL, "USER A PW 1G 2G\nNICDEF F000 TYPE QDIO\nNICBIND F000 TAP t0 QDIO\n",
      { UD "3: ZVSCFG1006E Operand QDIO conflicts with TAP" } },
    { "NICBIND TAP name", NULL, "USER A PW 1G 2G\nNICDEF F000 TYPE QDIO\nNICBIND F000 TAP a/b\n",
      { UD "3: ZVSCFG1003E Operand TAP value a/b is not valid " RULE_IFNAME } },
    /* WORKLOAD left the grammar (traffic generators are test equipment, tests/lib): it is
     * an operand like any other NICBIND does not know. */
    { "NICBIND WORKLOAD refused", NULL,
      "USER A PW 1G 2G\nNICDEF F004 TYPE QDIO\nNICBIND F004 WORKLOAD RR\n",
      { UD "3: ZVSCFG1004E Operand WORKLOAD is not recognized by NICBIND",
        UD "3: ZVSCFG1004E Operand RR is not recognized by NICBIND",
        UD "3: ZVSCFG1002E Operand TAP, QDIO or LCS is missing" } },
    { "USER DIRECT unknown statement", NULL, "USER A PW 1G 2G\nMDISK 0191 3390 1 10 VOL1\n",
      { UD "2: ZVSCFG1001E Statement MDISK is not recognized" } },

    /* SET PORT GROUP: statement shape. */
    { "SET PORT not GROUP", "SET PORT ETHGRP JOIN 28BA FOO\n", NULL,
      { SC "1: ZVSCFG1031E Operand ETHGRP is not valid after SET PORT: the statement is"
           " SET PORT GROUP groupname" } },
    { "SET PORT alone", "SET PORT\n", NULL, { SC "1: ZVSCFG1002E Operand GROUP is missing" } },
    { "SET PORT GROUP alone", "set port group\n", NULL,
      { SC "1: ZVSCFG1002E Operand groupname is missing" } },
    { "SET PORT GROUP no name", "SET PORT GROUP,\n JOIN 28BA\n", NULL,
      { SC "2: ZVSCFG1002E Operand groupname is missing" } },
    { "SET VSWITCH", "SET VSWITCH A GRANT B\n", NULL,
      { SC "1: ZVSCFG1001E Statement SET VSWITCH is not recognized" } },
    { "groupname bad", "SET PORT GROUP G.1 JOIN 28BA\n", NULL,
      { SC "1: ZVSCFG1003E Operand groupname value G.1 is not valid " RULE_NAME } },
    { "groupname too long", "SET PORT GROUP ETHGROUP1 LACP ACTIVE\n", NULL,
      { SC "1: ZVSCFG1003E Operand groupname value ETHGROUP1 is not valid " RULE_NAME } },
    { "SET PORT GROUP no operand", "SET PORT GROUP G1\n", NULL,
      { SC "1: ZVSCFG1002E Operand JOIN, LACP or INTERVAL is missing" } },
    { "SET PORT GROUP unknown operand", "SET PORT GROUP G1 SPEED 10G\n", NULL,
      { SC "1: ZVSCFG1004E Operand SPEED is not recognized by SET PORT GROUP",
        SC "1: ZVSCFG1004E Operand 10G is not recognized by SET PORT GROUP",
        SC "1: ZVSCFG1002E Operand JOIN, LACP or INTERVAL is missing" } },
    /* SET PORT GROUP (z/VM 7.3 CP Commands and Utilities Reference): JOIn, INTerval,
     * EXClusive; INT accepted, IN refused. */
    { "abbreviated operand", "SET PORT GROUP G1 INT 30 JOI 28BA EXC\n"
      "RDEVICE 28BA INTERFACE e0\nDEF VSWITCH A GRO G1\n", NULL, { NULL } },
    { "operand one letter short", "SET PORT GROUP G1 IN 30\n", NULL,
      { SC "1: ZVSCFG1004E Operand IN is not recognized by SET PORT GROUP",
        SC "1: ZVSCFG1004E Operand 30 is not recognized by SET PORT GROUP",
        SC "1: ZVSCFG1002E Operand JOIN, LACP or INTERVAL is missing" } },
    { "LACP twice", "SET PORT GROUP G1 LACP ACTIVE,\n LACP INACTIVE\n", NULL,
      { SC "2: ZVSCFG1005E Operand LACP is specified more than once" } },
    { "JOIN twice in one", "SET PORT GROUP G1 JOIN 100 LACP ACTIVE JOIN 101\n", NULL,
      { SC "1: ZVSCFG1005E Operand JOIN is specified more than once" } },

    /* SET PORT GROUP: operand values. */
    { "JOIN no value", "SET PORT GROUP G1 JOIN LACP ACTIVE\n", NULL,
      { SC "1: ZVSCFG1007E Operand JOIN requires a value" } },
    { "JOIN bad device", "SET PORT GROUP G1 JOIN 28BA 28BA.P10 XYZ\n", NULL,
      { SC "1: ZVSCFG1003E Operand JOIN value 28BA.P10 is not valid " RULE_RDEV,
        SC "1: ZVSCFG1003E Operand JOIN value XYZ is not valid " RULE_RDEV } },
    { "JOIN same device twice", "SET PORT GROUP G1 JOIN 28BA,\n 28ba.P0\n", NULL,
      { SC "2: ZVSCFG1033E Device 28BA already joined PORT GROUP G1 on line 1" } },
    { "JOIN nine devices", "SET PORT GROUP G1 JOIN 100 101 102 103 104 105 106 107,\n"
      "  108 109\n", NULL,
      { SC "2: ZVSCFG1032E PORT GROUP G1 already has 8 devices (the limit); 0108 cannot join" } },
    { "LACP bad", "SET PORT GROUP G1 LACP ON\n", NULL,
      { SC "1: ZVSCFG1003E Operand LACP value ON is not valid (ACTIVE or INACTIVE)" } },
    { "LACP no value", "SET PORT GROUP G1 LACP\n", NULL,
      { SC "1: ZVSCFG1007E Operand LACP requires a value" } },
    { "INTERVAL 0", "SET PORT GROUP G1 INTERVAL 0\n", NULL,
      { SC "1: ZVSCFG1003E Operand INTERVAL value 0 is not valid (1-9990 or OFF)" } },
    { "INTERVAL 9991", "SET PORT GROUP G1 INTERVAL 9991\n", NULL,
      { SC "1: ZVSCFG1003E Operand INTERVAL value 9991 is not valid (1-9990 or OFF)" } },
    { "INTERVAL ON", "SET PORT GROUP G1 INTERVAL ON\n", NULL,
      { SC "1: ZVSCFG1003E Operand INTERVAL value ON is not valid (1-9990 or OFF)" } },
    { "TIMEOUT bad", "SET PORT GROUP G1 TIMEOUT FAST\n", NULL,
      { SC "1: ZVSCFG1003E Operand TIMEOUT value FAST is not valid (SHORT or LONG)" } },
    { "DISTRIBUTION bad", "SET PORT GROUP G1 DISTRIBUTION DST\n", NULL,
      { SC "1: ZVSCFG1003E Operand DISTRIBUTION value DST is not valid"
           " (DESTINATION, SOURCE or BOTH)" } },
    { "POLICY bad", "SET PORT GROUP G1 POLICY ROUNDROBIN\n", NULL,
      { SC "1: ZVSCFG1003E Operand POLICY value ROUNDROBIN is not valid (LOAD [TOTAL or OUTBOUND] or LBT [1-100])" } },
    { "POLICY LOAD n", "SET PORT GROUP G1 POLICY LOAD 50\n", NULL,
      { SC "1: ZVSCFG1003E Operand POLICY LOAD value 50 is not valid (TOTAL or OUTBOUND)" } },
    { "POLICY LOAD bad", "SET PORT GROUP G1 POLICY LOAD INBOUND\n", NULL,
      { SC "1: ZVSCFG1003E Operand POLICY LOAD value INBOUND is not valid (TOTAL or OUTBOUND)" } },
    { "POLICY LBT 0", "SET PORT GROUP G1 POLICY LBT 0\n", NULL,
      { SC "1: ZVSCFG1003E Operand POLICY LBT value 0 is not valid (1-100)" } },
    { "POLICY LBT 101", "SET PORT GROUP G1 POLICY LBT 101\n", NULL,
      { SC "1: ZVSCFG1003E Operand POLICY LBT value 101 is not valid (1-100)" } },
    { "POLICY LBT three values", "SET PORT GROUP G1 POLICY LBT 50 60\n", NULL,
      { SC "1: ZVSCFG1008E Operand POLICY accepts at most 2 values; 60 is one too many" } },
    { "POLICY no value", "SET PORT GROUP G1 POLICY\n", NULL,
      { SC "1: ZVSCFG1007E Operand POLICY requires a value" } },
    /* SHARED (ours in SYSTEM CONFIG): the command's rule, checked by validate */
    { "SHARED without an IVL switch", "SET PORT GROUP G1 JOIN 100 SHARED\n" GRP_TAIL, NULL,
      { SC "1: ZVSCFG1078E PORT GROUP G1 is SHARED: it needs a TYPE IVL switch on this system" } },
    { "SHARED, a LOCAL switch uses it",
      "DEFINE VSWITCH IVLSW TYPE IVL RDEV E00\nRDEVICE E00 INTERFACE ivl0\n"
      "SET PORT GROUP G1 JOIN 100 SHARED\n" GRP_TAIL, NULL,
      { SC "3: ZVSCFG1079E PORT GROUP G1 is SHARED: VSWITCH SW, which uses it, is not GLOBAL" } },
    { "EXCLUSIVE SHARED", "SET PORT GROUP G1 EXCLUSIVE SHARED\n", NULL,
      { SC "1: ZVSCFG1006E Operand SHARED conflicts with EXCLUSIVE" } },
    { "DELETE", "SET PORT GROUP G1 JOIN 100 EXCLUSIVE\nset port group g1 delete\n", NULL,
      { SC "2: ZVSCFG1035E Operand DELETE is not valid in SYSTEM CONFIG: it is a CP command operand",
        SC "1: ZVSCFG1060E Device 0100 of PORT GROUP G1 has no RDEVICE INTERFACE statement",
        SC "1: ZVSCFG1063W PORT GROUP G1 is not used by any VSWITCH" } },
    { "LEAVE", "SET PORT GROUP G1 LEAVE 100 101\n", NULL,
      { SC "1: ZVSCFG1035E Operand LEAVE is not valid in SYSTEM CONFIG: it is a CP command operand" } },
    { "all errors of a SET PORT GROUP",
      "SET PORT GROUP G1 JOIN 100 100 LACP MAYBE INTERVAL -1 POLICY LBT 200 EXCLUSIVE SHARED\n",
      NULL,
      { SC "1: ZVSCFG1033E Device 0100 already joined PORT GROUP G1 on line 1",
        SC "1: ZVSCFG1003E Operand LACP value MAYBE is not valid (ACTIVE or INACTIVE)",
        SC "1: ZVSCFG1003E Operand INTERVAL value -1 is not valid (1-9990 or OFF)",
        SC "1: ZVSCFG1003E Operand POLICY LBT value 200 is not valid (1-100)",
        SC "1: ZVSCFG1006E Operand SHARED conflicts with EXCLUSIVE" } },

    /* SET PORT GROUP: accumulation across statements (the rest of the file maps devices
     * 0100-0109 and uses G1, after the statements under test: order is free). */
    { "JOIN again in a later statement",
      "SET PORT GROUP G1 JOIN 100 101\n\nSET PORT GROUP g1 JOIN 102 101\n" GRP_TAIL, NULL,
      { SC "3: ZVSCFG1033E Device 0101 already joined PORT GROUP G1 on line 1" } },
    { "JOIN past 8 in a later statement",
      "SET PORT GROUP G1 JOIN 100 101 102 103 104\n"
      "SET PORT GROUP G1 INTERVAL 30 JOIN 105 106 107,\n  108 109\n" GRP_TAIL, NULL,
      { SC "3: ZVSCFG1032E PORT GROUP G1 already has 8 devices (the limit); 0108 cannot join" } },

    /* Port groups against the switches (zvs_cfg_validate). */
    { "GROUP undefined", "DEFINE VSWITCH A GROUP G1\nSET PORT GROUP G2 JOIN 100\n"
      "DEFINE VSWITCH B GROUP G2\nRDEVICE 100 INTERFACE e0\n", NULL,
      { SC "1: ZVSCFG1058E VSWITCH A names PORT GROUP G1, which is not defined by SET PORT GROUP" } },
    { "GROUP defined by a bad statement", "SET PORT GROUP G1 JOIN 100 LACP OFF\n"
      "DEFINE VSWITCH A GROUP G1\nRDEVICE 100 INTERFACE e0\n", NULL,
      { SC "1: ZVSCFG1003E Operand LACP value OFF is not valid (ACTIVE or INACTIVE)" } },
    { "GROUP on two switches", "SET PORT GROUP G1 JOIN 100\nDEFINE VSWITCH A GROUP G1\n"
      "DEFINE VSWITCH B GROUP g1\nRDEVICE 100 INTERFACE e0\n", NULL,
      { SC "3: ZVSCFG1059E PORT GROUP G1 is used by VSWITCH A and VSWITCH B (a group is EXCLUSIVE)" } },
    { "GROUP device unmapped", "SET PORT GROUP G1 JOIN 100\nDEFINE VSWITCH A GROUP G1\n"
      "SET PORT GROUP G1 LACP INACTIVE,\n JOIN 101.P1 102\nRDEVICE 100 INTERFACE e0\n", NULL,
      { SC "3: ZVSCFG1060E Device 0101.P1 of PORT GROUP G1 has no RDEVICE INTERFACE statement",
        SC "3: ZVSCFG1060E Device 0102 of PORT GROUP G1 has no RDEVICE INTERFACE statement" } },
    { "GROUP device is own RDEV", "DEFINE VSWITCH A GROUP G1 RDEV 101 100\n"
      "SET PORT GROUP G1 JOIN 100\nRDEVICE 100 INTERFACE e0\nRDEVICE 101 INTERFACE e1\n", NULL,
      { SC "2: ZVSCFG1061E Device 0100 of PORT GROUP G1 is also an RDEV of VSWITCH A" } },
    { "GROUP device is other RDEV", "DEFINE VSWITCH A GROUP G1\nDEFINE VSWITCH B RDEV 100.P1\n"
      "SET PORT GROUP G1 JOIN 100 100.P1\nRDEVICE 100 INTERFACE e0\nRDEVICE 100.P1 INTERFACE e1\n",
      NULL, { SC "3: ZVSCFG1061E Device 0100.P1 of PORT GROUP G1 is also an RDEV of VSWITCH B" } },
    { "GROUP device in two groups", "SET PORT GROUP G1 JOIN 100\nSET PORT GROUP G2 JOIN 101 100\n"
      "DEFINE VSWITCH A GROUP G1\nDEFINE VSWITCH B GROUP G2\n"
      "RDEVICE 100 INTERFACE e0\nRDEVICE 101 INTERFACE e1\n", NULL,
      { SC "2: ZVSCFG1062E Device 0100 is in PORT GROUP G1 and PORT GROUP G2" } },
    { "GROUP unused", "SET PORT GROUP G1 JOIN 100\nRDEVICE 100 INTERFACE e0\n"
      "DEFINE VSWITCH A RDEV 101\nRDEVICE 101 INTERFACE e1\n", NULL,
      { SC "1: ZVSCFG1063W PORT GROUP G1 is not used by any VSWITCH" } },
    { "GROUP without devices", "SET PORT GROUP G1 LACP INACTIVE\nDEFINE VSWITCH A GROUP G1\n",
      NULL, { SC "1: ZVSCFG1064W PORT GROUP G1 of VSWITCH A has no devices (no JOIN)" } },
    { "GROUP before SET PORT GROUP", "DEFINE VSWITCH A GROUP G1\nSET PORT GROUP G1 JOIN 100\n"
      "RDEVICE 100 INTERFACE e0\n", NULL, { NULL } },

    /* LINUXUSER (console identities). */
    { "LINUXUSER outside USER", NULL, "LINUXUSER root\n",
      { UD "1: ZVSCFG1020E Statement LINUXUSER is not within a USER entry" } },
    { "LINUXUSER without a user", NULL, "USER A PW 1G 2G\nlinuxuser\n",
      { UD "2: ZVSCFG1002E Operand user is missing" } },
    { "LINUXUSER bad names", NULL,
      "USER A PW 1G 2G\nLINUXUSER -bob a/b,\n 4294967295 x23456789012345678901234567890123\n",
      { UD "2: ZVSCFG1003E Operand LINUXUSER value -bob is not valid " RULE_LINUXUSER,
        UD "2: ZVSCFG1003E Operand LINUXUSER value a/b is not valid " RULE_LINUXUSER,
        UD "3: ZVSCFG1003E Operand LINUXUSER value 4294967295 is not valid " RULE_LINUXUSER,
        UD "3: ZVSCFG1003E Operand LINUXUSER value x23456789012345678901234567890123 is not valid "
           RULE_LINUXUSER } },
    { "LINUXUSER good names", NULL,
      "USER A PW 1G 2G\nLINUXUSER 0 4294967294 x2345678901234567890123456789012 a.b_c-d\n",
      { NULL } },
    { "LINUXUSER in two entries", NULL,
      "USER A PW 1G 2G\nLINUXUSER bob\nUSER B PW 1G 2G\nLINUXUSER alice bob\n",
      { UD "4: ZVSCFG1065E LINUXUSER bob of USER B is already mapped to USER A on line 2" } },
    { "LINUXUSER twice in one entry", NULL,
      "USER A PW 1G 2G\nLINUXUSER bob 007\nLINUXUSER Bob 7 bob\n",
      { UD "3: ZVSCFG1065E LINUXUSER 7 of USER A is already mapped to USER A on line 2",
        UD "3: ZVSCFG1065E LINUXUSER bob of USER A is already mapped to USER A on line 2" } },
    { "LINUXUSER twice in one statement", NULL, "USER A PW 1G 2G\nLINUXUSER bob,\n  bob\n",
      { UD "3: ZVSCFG1065E LINUXUSER bob of USER A is already mapped to USER A on line 2" } },
    { "LINUXUSER nine in one entry", NULL,
      "USER A PW 1G 2G\nLINUXUSER u1 u2 u3 u4 u5\nLINUXUSER u6 u7 u8 u9 u10\n",
      { UD "3: ZVSCFG1066E USER A maps more than 8 Linux users; u9 is one too many" } },
    { "LINUXUSER in a bad entry", NULL, "USER A-B PW 1G 2G\nLINUXUSER bob -x\n",
      { UD "1: ZVSCFG1003E Operand userid value A-B is not valid " RULE_NAME,
        UD "2: ZVSCFG1003E Operand LINUXUSER value -x is not valid " RULE_LINUXUSER } },

    /* Cross-checks. */
    { "LAN SYSTEM undefined", "DEFINE VSWITCH SW1\n",
      "USER A PW 1G 2G\n NICDEF F000 TYPE QDIO LAN SYSTEM NOSUCH\n",
      { UD "2: ZVSCFG1050E NICDEF F000 of USER A names VSWITCH NOSUCH, which is not defined" } },
    { "RDEV without RDEVICE", "DEFINE VSWITCH A RDEV 28BA 2902.P1\nRDEVICE 2902 INTERFACE e0\n",
      NULL,
      { SC "1: ZVSCFG1051E RDEV 28BA of VSWITCH A has no RDEVICE INTERFACE statement",
        SC "1: ZVSCFG1051E RDEV 2902.P1 of VSWITCH A has no RDEVICE INTERFACE statement" } },
    { "RDEV on two switches",
      "DEFINE VSWITCH A RDEV 28BA\nDEFINE VSWITCH B RDEV 2902 28BA\n"
      "RDEVICE 28BA INTERFACE e0\nRDEVICE 2902 INTERFACE e1\n", NULL,
      { SC "2: ZVSCFG1055E RDEV 28BA is used by VSWITCH A and VSWITCH B" } },
    { "interface twice", "RDEVICE 28BA INTERFACE e0\nRDEVICE 2902 INTERFACE e0\n",
      "USER A PW 1G 2G\nNICDEF F000 TYPE QDIO\nNICBIND F000 TAP e0\n",
      { SC "2: ZVSCFG1056E Interface e0 of RDEVICE 2902 is already used by RDEVICE 28BA",
        UD "3: ZVSCFG1056E Interface e0 of USER A NICBIND F000 is already used by RDEVICE 28BA" } },
    { "NICDEF VLAN unaware", "DEFINE VSWITCH SW1\n",
      "USER A PW 1G 2G\nNICDEF F000 TYPE QDIO LAN SYSTEM SW1 VLAN 10\n",
      { UD "2: ZVSCFG1027E Operand VLAN is not allowed: VSWITCH SW1 is VLAN UNAWARE" } },
    { "NICDEF ACCESS two VLANs", "DEFINE VSWITCH SW1 VLAN AWARE\n",
      "USER A PW 1G 2G\nNICDEF F000 TYPE QDIO LAN SYSTEM SW1 VLAN 10-11\n",
      { UD "2: ZVSCFG1028E Operand VLAN 10-11 names more than one VLAN ID; PORTTYPE ACCESS allows one" } },
    { "NICDEF TRUNK VLANs", "DEFINE VSWITCH SW1 VLAN AWARE PORTTYPE TRUNK\n",
      "USER A PW 1G 2G\nNICDEF F000 TYPE QDIO LAN SYSTEM SW1 VLAN 10-11\n", { NULL } },
    { "NIC not authorized", "DEFINE VSWITCH SW1\nMODIFY VSWITCH SW1 GRANT B\n",
      "USER A PW 1G 2G\nNICDEF F000 TYPE QDIO LAN SYSTEM SW1\n"
      "NICDEF F004 TYPE QDIO LAN SYSTEM SW1 PORTTYPE ACCESS\n"
      "USER B PW 1G 2G\nNICDEF F000 TYPE QDIO LAN SYSTEM SW1\n",
      { UD "2: ZVSCFG1057W NICDEF F000 of USER A is not authorized for VSWITCH SW1"
           " (no GRANT, no NICDEF PORTTYPE or VLAN)" } },
    { "duplicate MAC", NULL,
      "USER A PW 1G 2G\nNICDEF F000 TYPE QDIO MACID 000100\n"
      "USER B PW 1G 2G\nNICDEF F000 TYPE QDIO\nNICDEF F004 TYPE QDIO MACID 000100\n",
      { UD "5: ZVSCFG1052E MAC 02-00-00-00-01-00 of USER B NICDEF F004 duplicates USER A NICDEF F000" } },
    { "MACID outside USER range",
      "VMLAN MACIDRANGE SYSTEM 000001-0000FF USER 000100-00FFFF\n",
      "USER A PW 1G 2G\nNICDEF F000 TYPE QDIO MACID 000005\n",
      { UD "2: ZVSCFG1053E MACID 000005 of USER A NICDEF F000 is outside MACIDRANGE USER 000100-00FFFF" } },
    { "MACIDRANGE exhausted",
      "VMLAN MACIDRANGE SYSTEM 000001-000001 USER 000100-00FFFF\n",
      "USER A PW 1G 2G\nNICDEF F000 TYPE QDIO\nNICDEF F004 TYPE QDIO\nNICDEF F008 TYPE QDIO\n",
      { UD "3: ZVSCFG1054E MACIDRANGE SYSTEM 000001-000001 is exhausted at USER A NICDEF F004" } },
};

static void test_error_case(void **state)
{
    const struct err_case *c = *state;
    struct zvs_cfg *cfg = run(c->sc, c->ud);
    expect_msgs(cfg, c->exp);
    zvs_cfg_free(cfg);
}

/* ---- golden and behaviour ------------------------------------------------------------ */

/* zvs_cfg_copy: the used parts only, into a destination full of another configuration's
 * leftovers; the copy dumps the same, its own message list is kept, and a copy made
 * smaller (fewer NICs) dumps the same as its source too. */
static void test_cfg_copy(void **state)
{
    struct zvs_cfg *src = zvs_cfg_new(), *dst = zvs_cfg_new();
    assert_int_equal(zvs_cfg_parse_sysconfig(src, "configs/SYSTEM.CONFIG"), 0);
    assert_int_equal(zvs_cfg_parse_userdirect(src, "configs/USER.DIRECT"), 0);
    assert_int_equal(zvs_cfg_validate(src), 0);
    assert_true(src->nnic > 1 && src->nvswitch > 0);
    struct zvs_msg_list own = dst->msgs;
    memset((char *)dst, 0xA5, offsetof(struct zvs_cfg, msgs));
    zvs_cfg_copy(dst, src);
    assert_memory_equal(&dst->msgs, &own, sizeof own);
    char *a = cfg_dump_text(src), *b = cfg_dump_text(dst);
    assert_string_equal(a, b);
    free(b);
    src->nnic--;                        /* the last user's last NIC goes */
    src->user[src->nuser - 1].nnic--;
    zvs_cfg_copy(dst, src);
    char *c = cfg_dump_text(src), *e = cfg_dump_text(dst);
    assert_string_equal(c, e);
    assert_string_not_equal(a, c);
    free(a);
    free(c);
    free(e);
    zvs_cfg_free(src);
    zvs_cfg_free(dst);
}

static void test_sample_golden(void **state)
{
    struct zvs_cfg *cfg = zvs_cfg_new();
    assert_int_equal(zvs_cfg_parse_sysconfig(cfg, "configs/SYSTEM.CONFIG"), 0);
    assert_int_equal(zvs_cfg_parse_userdirect(cfg, "configs/USER.DIRECT"), 0);
    assert_int_equal(zvs_cfg_validate(cfg), 0);
    assert_int_equal(cfg->msgs.n, 0);
    char *got = cfg_dump_text(cfg);
    char *want = slurp(GOLDEN_DIR "sample.dump");
    if (strcmp(got, want) != 0)
        print_message("dump:\n%s", got);
    assert_string_equal(got, want);
    free(got);
    free(want);

    /* What the daemon reads, directly. */
    int k = zvs_cfg_find_vswitch(cfg, "ccbvsw1");
    assert_int_equal(k, 0);
    const struct zvs_cfg_vswitch *sw = &cfg->vswitch[k];
    assert_int_equal(sw->nrdev, 2);
    assert_int_equal(sw->rdev[0].devno, 0x28BA);
    assert_int_equal(sw->rdev[1].devno, 0x2902);
    assert_int_equal(sw->queuestorage_mb, 1);
    assert_string_equal(sw->controller, "TCPCB1");
    int u = zvs_cfg_find_user(cfg, "LNXREGC");
    assert_true(u >= 0);
    const struct zvs_cfg_nic *nic = &cfg->nic[cfg->user[u].first_nic];
    static const uint8_t mac[6] = { 0x02, 0x00, 0x0C, 0x00, 0x01, 0x0A };
    assert_memory_equal(nic->mac, mac, 6);
    assert_int_equal(nic->vswitch, k);
    assert_int_equal(nic->backend, ZVS_NIC_BACKEND_TAP);
    assert_string_equal(nic->ifname, "regc-f000");
    zvs_cfg_free(cfg);
}

static void test_syntax_check(void **state)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(zvs_config_syntax_check("configs/SYSTEM.CONFIG", "configs/USER.DIRECT", f), 0);
    fclose(f);
    assert_string_equal(buf, "ZVSCFG1099I Configuration check complete: 0 error(s)\n");
    free(buf);

    f = open_memstream(&buf, &len);
    assert_int_equal(zvs_config_syntax_check("configs/SYSTEM.CONFIG", "/nonexistent/USER.DIRECT",
                                             f), 1);
    fclose(f);
    assert_string_equal(buf, "ZVSCFG1000E File /nonexistent/USER.DIRECT cannot be read: "
                             "No such file or directory\n"
                             "ZVSCFG1099I Configuration check complete: 1 error(s)\n");
    free(buf);
}

/* What `vswitchd --check` prints for an operator's broken first try, byte for byte. */
static void test_syntax_check_golden(void **state)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(zvs_config_syntax_check(GOLDEN_DIR "bad.sysconfig",
                                             GOLDEN_DIR "bad.userdirect", f), 21);
    fclose(f);
    char *want = slurp(GOLDEN_DIR "bad.check");
    assert_string_equal(buf, want);
    free(want);
    free(buf);
}

static void test_unreadable(void **state)
{
    struct zvs_cfg *cfg = zvs_cfg_new();
    assert_int_equal(zvs_cfg_parse_sysconfig(cfg, "/nonexistent/SYSTEM.CONFIG"), -ENOENT);
    assert_int_equal(zvs_cfg_parse_userdirect(cfg, "/"), -EISDIR);
    assert_int_equal(cfg->msgs.n, 2);
    assert_string_equal(cfg->msgs.msg[0].text, "ZVSCFG1000E File /nonexistent/SYSTEM.CONFIG cannot "
                                               "be read: No such file or directory");
    assert_string_equal(cfg->msgs.msg[1].text, "ZVSCFG1000E File / cannot be read: Is a directory");
    assert_int_equal(zvs_cfg_errors(cfg), 2);
    zvs_cfg_free(cfg);
}

/* Case, comments anywhere, continuation over comment and blank lines. */
static void test_lexical_rules(void **state)
{
    static const char sc[] =
        "  * comment line\n"
        "define vswitch sw@1, /* the\n"
        "   name */ rdev 28ba.p1,  /* comment after the comma */\n"
        "\n"
        "* a comment line inside the continuation\n"
        "\tvlan aware native none,\n"
        "   queuestorage 3 porttype trunk controller * nogroup isolation on macprotect ON\n"
        "rdevice 28BA.P1 interface EthUp0 /* case kept */\n"
        "/* */ VMLAN /**/ MACPREFIX 0A00FF\n";
    struct zvs_cfg *cfg = run(sc, NULL);
    expect_msgs(cfg, (const char *[]){ NULL });
    assert_int_equal(cfg->nvswitch, 1);
    const struct zvs_cfg_vswitch *sw = &cfg->vswitch[0];
    assert_string_equal(sw->name, "SW@1");
    assert_int_equal(sw->line, 2);
    assert_int_equal(sw->nrdev, 1);
    assert_int_equal(sw->rdev[0].devno, 0x28BA);
    assert_int_equal(sw->rdev[0].port, 1);
    assert_true(sw->vlan_aware);
    assert_int_equal(sw->default_vid, 1);
    assert_int_equal(sw->native_vid, 0);
    assert_int_equal(sw->queuestorage_mb, 3);
    assert_int_equal(sw->porttype, ZVS_PORTTYPE_TRUNK);
    assert_string_equal(sw->controller, "*");
    assert_string_equal(sw->group, "");
    assert_true(sw->isolation);
    assert_int_equal(sw->macprotect, ZVS_MACPROTECT_ON);
    assert_true(sw->connect);
    assert_int_equal(cfg->nrdevice, 1);
    assert_string_equal(cfg->rdevice[0].ifname, "EthUp0");
    assert_int_equal(cfg->vmlan.macprefix[0], 0x0A);
    assert_int_equal(cfg->vmlan.macprefix[2], 0xFF);
    assert_int_equal(cfg->vmlan.macprefix_line, 9);
    zvs_cfg_free(cfg);
}

static void test_defaults(void **state)
{
    struct zvs_cfg *cfg = run("DEFINE VSWITCH A\nDEFINE VSWITCH B GROUP grp1 DISCONNECT\n", NULL);
    const struct zvs_cfg_vswitch *sw = &cfg->vswitch[0];
    assert_int_equal(sw->nrdev, 0);
    assert_false(sw->nouplink);
    assert_true(sw->connect);
    assert_false(sw->vlan_aware);
    assert_int_equal(sw->default_vid, 0);
    assert_int_equal(sw->native_vid, 1);
    assert_int_equal(sw->porttype, ZVS_PORTTYPE_ACCESS);
    assert_int_equal(sw->queuestorage_mb, 8);
    assert_string_equal(sw->controller, "*");
    assert_string_equal(sw->group, "");
    assert_int_equal(sw->macprotect, ZVS_MACPROTECT_UNSPECIFIED);
    assert_false(sw->isolation);
    assert_int_equal(cfg->vmlan.macprefix[0], 0x02);
    assert_int_equal(cfg->vmlan.macprefix_line, 0);
    assert_string_equal(cfg->vswitch[1].group, "GRP1");
    assert_false(cfg->vswitch[1].connect);
    zvs_cfg_free(cfg);
}

/* RDEVICE ... BACKEND: default AFPACKET, either keyword in any case and position; a bad
 * value stores nothing. */
static void test_rdevice_backend(void **state)
{
    struct zvs_cfg *cfg = run("RDEVICE 28BA INTERFACE e0\n"
                              "RDEVICE 2902 INTERFACE e1 BACKEND pcap\n"
                              "RDEVICE 2903 BACKEND AFPACKET INTERFACE e2\n"
                              "RDEVICE 2904 INTERFACE e3 BACKEND PCAP\n"
                              "RDEVICE 2905 INTERFACE e4 BACKEND XDP\n", NULL);
    assert_int_equal(zvs_cfg_errors(cfg), 1);
    assert_int_equal(cfg->nrdevice, 4);
    assert_int_equal(cfg->rdevice[0].backend, ZVS_RDEV_BACKEND_AFPACKET);
    assert_int_equal(cfg->rdevice[1].backend, ZVS_RDEV_BACKEND_PCAP);
    assert_string_equal(cfg->rdevice[1].ifname, "e1");
    assert_int_equal(cfg->rdevice[2].backend, ZVS_RDEV_BACKEND_AFPACKET);
    assert_string_equal(cfg->rdevice[2].ifname, "e2");
    assert_int_equal(cfg->rdevice[3].backend, ZVS_RDEV_BACKEND_PCAP);
    assert_int_equal(cfg->rdevice[3].rdev.devno, 0x2904);
    assert_int_equal(zvs_cfg_find_rdevice(cfg, (struct zvs_rdev){ .devno = 0x2905 }), -1);
    zvs_cfg_free(cfg);

    /* The lab's libpcap variant parses clean against the lab directory. */
    cfg = zvs_cfg_new();
    assert_int_equal(zvs_cfg_parse_sysconfig(cfg, "configs/lab/SYSTEM-PCAP.CONFIG"), 0);
    assert_int_equal(zvs_cfg_parse_userdirect(cfg, "configs/lab/USER.DIRECT"), 0);
    assert_int_equal(zvs_cfg_validate(cfg), 0);
    assert_int_equal(cfg->nrdevice, 1);
    assert_string_equal(cfg->rdevice[0].ifname, "osa28ba");
    assert_int_equal(cfg->rdevice[0].backend, ZVS_RDEV_BACKEND_PCAP);
    zvs_cfg_free(cfg);
}

/* RESOLVER (ours): names kept canonical and accumulated, servers and order once, every
 * bad value named, a statement with an error storing nothing; the dump shows it. */
static void test_resolver(void **state)
{
    struct zvs_cfg *cfg = run("RESOLVER WATCH Peer1.Example.ORG. 192.0.2.9\n"
                              "RESOLVER SERVER 127.0.0.1:5353 [::1]:53 10.0.0.1 ORDER IPV6 IPV4\n"
                              "RESOLVER WATCH peer2.lab\n"
                              "RESOLVER TIMEOUT 500 MINTTL 1\n", NULL);
    assert_int_equal(zvs_cfg_errors(cfg), 0);
    const struct zvs_cfg_resolver *r = &cfg->resolver;
    assert_int_equal(r->nwatch, 3);
    assert_string_equal(r->watch[0], "peer1.example.org");
    assert_int_equal(r->watch_line[2], 3);
    assert_int_equal(zvs_cfg_find_watch(r, "PEER2.LAB."), 2);
    assert_int_equal(r->nserver, 3);
    assert_string_equal(r->server[1], "[::1]:53");
    assert_string_equal(r->server[2], "10.0.0.1:53");
    assert_int_equal(r->order, ZVS_RES_ORDER_V6_V4);
    assert_int_equal(r->timeout_ms, 500);
    assert_int_equal(r->minttl_s, 1);
    char *d = cfg_dump_text(cfg);
    assert_non_null(strstr(d, "RESOLVER SERVER 127.0.0.1:5353 [::1]:53 10.0.0.1:53\n"
                              "RESOLVER ORDER IPV6 IPV4\n"
                              "RESOLVER TIMEOUT 500\n"
                              "RESOLVER MINTTL 1\n"
                              "RESOLVER WATCH peer1.example.org\n"
                              "RESOLVER WATCH 192.0.2.9\n"
                              "RESOLVER WATCH peer2.lab\n"));
    free(d);
    zvs_cfg_free(cfg);

    cfg = run("RESOLVER WATCH a.lab\n"
              "RESOLVER WATCH b.lab bad_name A.LAB. c..d\n"
              "RESOLVER SERVER 1.2.3 [::1 127.0.0.1:0 ORDER IPV4 IPV4\n"
              "RESOLVER ORDER IPV5\n"
              "RESOLVER\n"
              "RESOLVER TIMEOUT 99 MINTTL 0\n", NULL);
    static const char *const want[] = {
        SC "2: ZVSCFG1003E Operand WATCH value bad_name is not valid (character not allowed in a host name)",
        SC "2: ZVSCFG1014E RESOLVER WATCH a.lab is already defined on line 1",
        SC "2: ZVSCFG1003E Operand WATCH value c..d is not valid (empty label)",
        SC "3: ZVSCFG1003E Operand SERVER value 1.2.3 is not valid (address, address:port or [IPv6 address]:port)",
        SC "3: ZVSCFG1003E Operand SERVER value [::1 is not valid (address, address:port or [IPv6 address]:port)",
        SC "3: ZVSCFG1003E Operand SERVER value 127.0.0.1:0 is not valid (address, address:port or [IPv6 address]:port)",
        SC "3: ZVSCFG1003E Operand ORDER value IPV4 is not valid (IPV4 or IPV6, one or both in order)",
        SC "4: ZVSCFG1003E Operand ORDER value IPV5 is not valid (IPV4 or IPV6, one or both in order)",
        SC "5: ZVSCFG1002E Operand WATCH, SERVER, ORDER, TIMEOUT or MINTTL is missing",
        SC "6: ZVSCFG1003E Operand TIMEOUT value 99 is not valid (100-30000)",
        SC "6: ZVSCFG1003E Operand MINTTL value 0 is not valid (1-3600)",
        NULL };
    expect_msgs(cfg, want);
    assert_int_equal(cfg->resolver.nwatch, 1);      /* b.lab went with its statement */
    assert_int_equal(cfg->resolver.nserver, 0);
    assert_int_equal(cfg->resolver.order_line, 0);
    zvs_cfg_free(cfg);
}

/* A statement with an error stores nothing; the first DEFINE of a name wins. */
static void test_error_stores_nothing(void **state)
{
    struct zvs_cfg *cfg = run("DEFINE VSWITCH A QUEUESTORAGE 9M\n"
                              "DEFINE VSWITCH B QUEUESTORAGE 2M\n"
                              "DEFINE VSWITCH B QUEUESTORAGE 4M\n"
                              "VMLAN MACPREFIX 02000C MACIDRANGE SYSTEM 1-2 USER 3-4\n", NULL);
    assert_int_equal(zvs_cfg_errors(cfg), 4);
    assert_int_equal(cfg->nvswitch, 1);
    assert_string_equal(cfg->vswitch[0].name, "B");
    assert_int_equal(cfg->vswitch[0].queuestorage_mb, 2);
    assert_int_equal(cfg->vmlan.macprefix[2], 0x00);    /* VMLAN had an error: default kept */
    zvs_cfg_free(cfg);
}

/* LINUXUSER: what is kept (case, canonical uids, lines), accumulation over statements,
 * a statement with an error stores none of its names, IDENTITY entries, and the dump. */
static void test_linuxuser(void **state)
{
    struct zvs_cfg *cfg = run(NULL,
        "USER LINUX1 PW 1G 2G G\n"
        " LINUXUSER nobody Bob\n"
        " LINUXUSER 0065534,\n"
        "   bob\n"
        "IDENTITY MAINT PW 1G 2G BG\n"
        " LINUXUSER alice nobody\n"                 /* nobody: taken; alice not stored */
        " LINUXUSER 0\n"
        "USER LINUX2 PW 1G 2G\n");
    expect_msgs(cfg, (const char *const[]){
        UD "6: ZVSCFG1065E LINUXUSER nobody of USER MAINT is already mapped to USER LINUX1 on line 2",
        NULL });
    assert_int_equal(cfg->nuser, 3);
    const struct zvs_cfg_user *u = &cfg->user[0];
    assert_int_equal(u->nlinuxuser, 4);
    assert_string_equal(u->linuxuser[0], "nobody");
    assert_string_equal(u->linuxuser[1], "Bob");
    assert_string_equal(u->linuxuser[2], "65534");
    assert_string_equal(u->linuxuser[3], "bob");
    assert_int_equal(u->linuxuser_line[0], 2);
    assert_int_equal(u->linuxuser_line[1], 2);
    assert_int_equal(u->linuxuser_line[2], 3);
    assert_int_equal(u->linuxuser_line[3], 4);
    u = &cfg->user[1];
    assert_int_equal(u->nlinuxuser, 1);
    assert_string_equal(u->linuxuser[0], "0");
    assert_int_equal(u->linuxuser_line[0], 7);
    assert_int_equal(cfg->user[2].nlinuxuser, 0);
    char *got = cfg_dump_text(cfg);
    assert_string_equal(got,
        "VMLAN MACPREFIX 020000 MACIDRANGE NONE\n"
        "USER LINUX1 STORAGE 1G MAXSTORAGE 2G CLASSES G LINUXUSER nobody Bob 65534 bob\n"
        "IDENTITY MAINT STORAGE 1G MAXSTORAGE 2G CLASSES BG LINUXUSER 0\n"
        "USER LINUX2 STORAGE 1G MAXSTORAGE 2G CLASSES G\n");
    free(got);
    zvs_cfg_free(cfg);

    /* Eight over several statements is the limit, not an error; a second file's entry
     * cannot take a name the first file mapped. */
    cfg = run(NULL, "USER A PW 1G 2G\nLINUXUSER u1 u2 u3\nLINUXUSER u4 u5 u6 u7 u8\n");
    assert_int_equal(cfg->msgs.n, 0);
    assert_int_equal(cfg->user[0].nlinuxuser, ZVS_CFG_MAX_LINUXUSERS);
    assert_string_equal(cfg->user[0].linuxuser[7], "u8");
    assert_int_equal(zvs_cfg_parse_userdirect_text(cfg, "MORE.DIRECT",
                                                   "USER B PW 1G 2G\nLINUXUSER u9 u3\n"), 1);
    assert_string_equal(cfg->msgs.msg[0].text,
                        "MORE.DIRECT:2: ZVSCFG1065E LINUXUSER u3 of USER B is already mapped to"
                        " USER A on line 2");
    assert_int_equal(cfg->user[1].nlinuxuser, 0);
    zvs_cfg_free(cfg);
}

static void test_nicdef_modifier(void **state)
{
    struct zvs_cfg *cfg = run("DEFINE VSWITCH SW1 VLAN 5 PORTTYPE TRUNK\nDEFINE VSWITCH SW2\n",
                              "identity a pw 512m 1g bgz6\n"
                              "NICDEF 600 TYPE QDIO LAN SYSTEM SW2 VLAN 7\n"
                              "NICDEF 0600 DEVICES 6 LAN SYSTEM sw1 MACID 0000aa\n"
                              "NICDEF 600 VLAN 30 10-20 21 5\n"
                              "nicbind 600 qdio\n");
    expect_msgs(cfg, (const char *[]){ NULL });
    assert_int_equal(cfg->nuser, 1);
    const struct zvs_cfg_user *u = &cfg->user[0];
    assert_true(u->identity);
    assert_string_equal(u->userid, "A");
    assert_int_equal(u->storage, 512ull << 20);
    assert_int_equal(u->maxstorage, 1ull << 30);
    assert_int_equal(u->privclass, ZVS_PRIVCLASS('B') | ZVS_PRIVCLASS('G') | ZVS_PRIVCLASS('Z') |
                                   ZVS_PRIVCLASS('6'));
    assert_int_equal(u->nnic, 1);
    const struct zvs_cfg_nic *n = &cfg->nic[0];
    assert_int_equal(n->vdev, 0x600);
    assert_int_equal(n->devices, 6);
    assert_string_equal(n->lan, "SW1");
    assert_int_equal(n->vswitch, 0);
    assert_int_equal(n->macid, 0xAA);
    assert_int_equal(n->macid_source, ZVS_MACID_USER);
    assert_int_equal(n->type_line, 2);
    assert_int_equal(n->line, 2);
    assert_int_equal(n->vlan.n, 3);            /* 5, 10-21, 30 */
    assert_int_equal(n->vlan.r[0].lo, 5);
    assert_int_equal(n->vlan.r[1].lo, 10);
    assert_int_equal(n->vlan.r[1].hi, 21);
    assert_int_equal(n->vlan.r[2].lo, 30);
    assert_int_equal(zvs_vidset_count(&n->vlan), 14);
    assert_true(zvs_vidset_contains(&n->vlan, 21));
    assert_false(zvs_vidset_contains(&n->vlan, 22));
    assert_int_equal(n->backend, ZVS_NIC_BACKEND_QDIO);
    zvs_cfg_free(cfg);
}

/* Without MACIDRANGE: assignment from 000001 in order, skipping MACIDs users chose, and
 * the same result when validate runs again. */
static void test_mac_assignment(void **state)
{
    struct zvs_cfg *cfg = run("VMLAN MACPREFIX 02ABCD\n",
                              "USER A PW 1G 2G\n"
                              "NICDEF 100 TYPE QDIO\n"
                              "NICDEF 200 TYPE QDIO MACID 000002\n"
                              "USER B PW 1G 2G\n"
                              "NICDEF 100 TYPE QDIO\n"
                              "NICDEF 200 TYPE QDIO\n");
    expect_msgs(cfg, (const char *[]){ NULL });
    static const uint32_t want[4] = { 1, 2, 3, 4 };
    static const enum zvs_macid_source src[4] = { ZVS_MACID_SYSTEM, ZVS_MACID_USER,
                                                  ZVS_MACID_SYSTEM, ZVS_MACID_SYSTEM };
    for (int pass = 0; pass < 2; pass++) {
        for (unsigned i = 0; i < 4; i++) {
            assert_int_equal(cfg->nic[i].macid, want[i]);
            assert_int_equal(cfg->nic[i].macid_source, src[i]);
            const uint8_t mac[6] = { 0x02, 0xAB, 0xCD, 0, 0, (uint8_t)want[i] };
            assert_memory_equal(cfg->nic[i].mac, mac, 6);
        }
        assert_int_equal(zvs_cfg_validate(cfg), 0);
    }
    zvs_cfg_free(cfg);
}

static void test_nul_byte(void **state)
{
    static const char text[] = "VMLAN MACPREFIX 02000C\0\nDEFINE VSWITCH A\n";
    struct zvs_cfg *cfg = zvs_cfg_new();
    assert_int_equal(zvs_cfg_parse_sysconfig_buf(cfg, "S", text, sizeof text - 1), 1);
    assert_string_equal(cfg->msgs.msg[0].text, "S:1: ZVSCFG1012E Character X'00' is not valid");
    assert_int_equal(cfg->nvswitch, 1);
    assert_int_equal(cfg->vmlan.macprefix[2], 0x0C);
    zvs_cfg_free(cfg);
}

static void test_too_many_operands(void **state)
{
    char text[2048] = "MODIFY VSWITCH A GRANT U VLAN";
    for (int i = 0; i < 130; i++)
        strcat(text, i % 20 == 19 ? " 1,\n" : " 1");
    strcat(text, "\nDEFINE VSWITCH B\n");
    struct zvs_cfg *cfg = run(text, NULL);
    expect_msgs(cfg, (const char *[]){
        SC "7: ZVSCFG1013E Statement MODIFY has more than 128 operands", NULL });
    assert_int_equal(cfg->nvswitch, 1);
    zvs_cfg_free(cfg);
}

static void test_limits(void **state)
{
    char *text = malloc(65 * 32);
    size_t len = 0;
    for (int i = 0; i < 65; i++)
        len += (size_t)sprintf(text + len, "DEFINE VSWITCH S%d\n", i);
    struct zvs_cfg *cfg = run(text, NULL);
    expect_msgs(cfg, (const char *[]){
        SC "65: ZVSCFG1015E Too many VSWITCH definitions (limit 64)", NULL });
    assert_int_equal(cfg->nvswitch, 64);
    zvs_cfg_free(cfg);
    free(text);
}

/* ---- port groups --------------------------------------------------------------------- */

/* Every operand on one statement, in any order and case. */
static void test_group_operands(void **state)
{
    struct zvs_cfg *cfg = run("DEFINE VSWITCH SW GROUP ethgrp\n"
                              "RDEVICE 28BA INTERFACE e0\nRDEVICE 2902.P1 INTERFACE e1\n"
                              "\n"
                              "set port group ethgrp policy lbt 60 join 28ba 2902.p1 exclusive,\n"
                              "  lacp inactive interval 30 timeout long distribution both\n", NULL);
    expect_msgs(cfg, (const char *[]){ NULL });
    assert_int_equal(cfg->ngroup, 1);
    const struct zvs_cfg_group *g = &cfg->group[0];
    assert_string_equal(g->name, "ETHGRP");
    assert_int_equal(g->line, 5);
    assert_int_equal(g->nport, 2);
    assert_int_equal(g->port[0].devno, 0x28BA);
    assert_int_equal(g->port[0].port, 0);
    assert_int_equal(g->port[1].devno, 0x2902);
    assert_int_equal(g->port[1].port, 1);
    assert_int_equal(cfg->group_join_line[0][0], 5);
    assert_int_equal(cfg->group_join_line[0][1], 5);
    assert_false(g->lacp);
    assert_true(g->lacp_long_timeout);
    assert_int_equal(g->interval_s, 30);
    assert_int_equal(g->distribution, ZVS_CFG_DIST_BOTH);
    assert_int_equal(g->policy, ZVS_CFG_POLICY_LBT);
    assert_int_equal(g->lbt_percent, 60);
    assert_int_equal(zvs_cfg_find_group(cfg, "EthGrp"), 0);
    assert_int_equal(zvs_cfg_find_group(cfg, "ETHGR"), -1);
    assert_string_equal(cfg->vswitch[0].group, "ETHGRP");
    zvs_cfg_free(cfg);
}

/* Defaults (LACP ACTIVE, TIMEOUT SHORT, INTERVAL 300, DESTINATION, LOAD 75) and each value
 * spelling, one group per statement. */
static void test_group_defaults_and_values(void **state)
{
    struct zvs_cfg *cfg = zvs_cfg_new();
    assert_int_equal(zvs_cfg_parse_sysconfig_text(cfg, "S",
        "SET PORT GROUP D JOIN 100\n"
        "SET PORT GROUP A LACP ACTIVE TIMEOUT SHORT INTERVAL OFF DISTRIBUTION DEST\n"
        "SET PORT GROUP B EXCLUSIVE DISTRIBUTION SOURCE POLICY LBT INTERVAL 9990\n"
        "SET PORT GROUP C DISTRIBUTION src POLICY LOAD INTERVAL 1\n"
        "SET PORT GROUP E DISTRIBUTION DESTINATION POLICY LBT 100 TIMEOUT LONG\n"
        "SET PORT GROUP F POLICY LBT 1\n"
        "SET PORT GROUP G POLICY LOAD OUTBOUND\n"
        "SET PORT GROUP G INTERVAL 30\n"           /* keeps OUTBOUND */
        "SET PORT GROUP H POLICY LOAD OUTBOUND\n"
        "SET PORT GROUP H POLICY LBT 60\n"), 0);
    assert_int_equal(cfg->msgs.n, 0);
    assert_int_equal(cfg->ngroup, 8);
    const struct zvs_cfg_group *g = &cfg->group[0];
    assert_string_equal(g->name, "D");
    assert_int_equal(g->line, 1);
    assert_int_equal(g->nport, 1);
    assert_int_equal(g->port[0].devno, 0x100);
    assert_true(g->lacp);
    assert_false(g->lacp_long_timeout);
    assert_int_equal(g->interval_s, 300);
    assert_int_equal(g->distribution, ZVS_CFG_DIST_DESTINATION);
    assert_int_equal(g->policy, ZVS_CFG_POLICY_LOAD);
    assert_int_equal(g->lbt_percent, 75);
    assert_int_equal(g->load, ZVS_CFG_LOAD_TOTAL);      /* the default */

    g = &cfg->group[1];
    assert_int_equal(g->nport, 0);
    assert_true(g->lacp);
    assert_false(g->lacp_long_timeout);
    assert_int_equal(g->interval_s, 0);
    assert_int_equal(g->distribution, ZVS_CFG_DIST_DESTINATION);
    g = &cfg->group[2];
    assert_int_equal(g->distribution, ZVS_CFG_DIST_SOURCE);
    assert_int_equal(g->policy, ZVS_CFG_POLICY_LBT);
    assert_int_equal(g->lbt_percent, 75);
    assert_int_equal(g->interval_s, 9990);
    g = &cfg->group[3];
    assert_int_equal(g->distribution, ZVS_CFG_DIST_SOURCE);
    assert_int_equal(g->policy, ZVS_CFG_POLICY_LOAD);
    assert_int_equal(g->interval_s, 30);    /* INTERVAL 1: CP rounds up to 30 s (SWPBK) */
    g = &cfg->group[4];
    assert_int_equal(g->distribution, ZVS_CFG_DIST_DESTINATION);
    assert_int_equal(g->lbt_percent, 100);
    assert_true(g->lacp_long_timeout);
    assert_int_equal(cfg->group[5].lbt_percent, 1);
    assert_int_equal(cfg->group[5].line, 6);
    assert_int_equal(cfg->group[6].policy, ZVS_CFG_POLICY_LOAD);
    assert_int_equal(cfg->group[6].load, ZVS_CFG_LOAD_OUTBOUND);
    assert_int_equal(cfg->group[7].policy, ZVS_CFG_POLICY_LBT);
    assert_int_equal(cfg->group[7].load, ZVS_CFG_LOAD_TOTAL);  /* a POLICY says it all */

    char *got = cfg_dump_text(cfg);
    assert_string_equal(got,
        "VMLAN MACPREFIX 020000 MACIDRANGE NONE\n"
        "GROUP D JOIN 0100 LACP ACTIVE TIMEOUT SHORT INTERVAL 300 DISTRIBUTION DESTINATION POLICY LOAD TOTAL\n"
        "GROUP A JOIN NONE LACP ACTIVE TIMEOUT SHORT INTERVAL OFF DISTRIBUTION DESTINATION POLICY LOAD TOTAL\n"
        "GROUP B JOIN NONE LACP ACTIVE TIMEOUT SHORT INTERVAL 9990 DISTRIBUTION SOURCE POLICY LBT 75\n"
        "GROUP C JOIN NONE LACP ACTIVE TIMEOUT SHORT INTERVAL 30 DISTRIBUTION SOURCE POLICY LOAD TOTAL\n"
        "GROUP E JOIN NONE LACP ACTIVE TIMEOUT LONG INTERVAL 300 DISTRIBUTION DESTINATION POLICY LBT 100\n"
        "GROUP F JOIN NONE LACP ACTIVE TIMEOUT SHORT INTERVAL 300 DISTRIBUTION DESTINATION POLICY LBT 1\n"
        "GROUP G JOIN NONE LACP ACTIVE TIMEOUT SHORT INTERVAL 30 DISTRIBUTION DESTINATION POLICY LOAD OUTBOUND\n"
        "GROUP H JOIN NONE LACP ACTIVE TIMEOUT SHORT INTERVAL 300 DISTRIBUTION DESTINATION POLICY LBT 60\n");
    free(got);
    zvs_cfg_free(cfg);
}

/* DISTRIBUTION UDPPORT (a VXLAN underlay's groups): parsed and dumped. */
static void test_group_distribution_udpport(void **state)
{
    struct zvs_cfg *cfg = zvs_cfg_new();
    assert_int_equal(zvs_cfg_parse_sysconfig_text(cfg, "S",
        "SET PORT GROUP U DISTRIBUTION udpport\n"), 0);
    assert_int_equal(cfg->msgs.n, 0);
    assert_int_equal(cfg->group[0].distribution, ZVS_CFG_DIST_UDPPORT);
    char *got = cfg_dump_text(cfg);
    assert_non_null(strstr(got, "GROUP U JOIN NONE LACP ACTIVE TIMEOUT SHORT INTERVAL 300 "
                                "DISTRIBUTION UDPPORT POLICY LOAD TOTAL\n"));
    free(got);
    zvs_cfg_free(cfg);
}

/* Statements naming one group add to it: JOINs append in order, a later value replaces
 * an earlier one, the group keeps the line of its first statement, each device the line
 * of the statement that JOINed it. */
static void test_group_accumulates(void **state)
{
    struct zvs_cfg *cfg = zvs_cfg_new();
    assert_int_equal(zvs_cfg_parse_sysconfig_text(cfg, "S",
        "* the group, in pieces\n"
        "SET PORT GROUP LAG JOIN 100 101 LACP INACTIVE POLICY LBT 50\n"
        "DEFINE VSWITCH SW GROUP LAG\n"
        "SET PORT GROUP lag INTERVAL OFF,\n"
        "  JOIN 102.P1\n"
        "SET PORT GROUP LAG LACP ACTIVE POLICY LOAD JOIN 103 104 105 106 107\n"
        "SET PORT GROUP LAG DISTRIBUTION BOTH\n"), 0);
    assert_int_equal(cfg->msgs.n, 0);
    assert_int_equal(cfg->ngroup, 1);
    const struct zvs_cfg_group *g = &cfg->group[0];
    assert_int_equal(g->line, 2);
    assert_int_equal(g->nport, 8);
    static const uint16_t devs[8] = { 0x100, 0x101, 0x102, 0x103, 0x104, 0x105, 0x106, 0x107 };
    static const uint32_t lines[8] = { 2, 2, 4, 6, 6, 6, 6, 6 };
    for (unsigned i = 0; i < 8; i++) {
        assert_int_equal(g->port[i].devno, devs[i]);
        assert_int_equal(g->port[i].port, i == 2 ? 1 : 0);
        assert_int_equal(cfg->group_join_line[0][i], lines[i]);
    }
    assert_true(g->lacp);
    assert_int_equal(g->interval_s, 0);
    assert_int_equal(g->policy, ZVS_CFG_POLICY_LOAD);
    assert_int_equal(g->lbt_percent, 75);
    assert_int_equal(g->distribution, ZVS_CFG_DIST_BOTH);

    /* Full: one more device is refused and names it; the group stays as it was. */
    assert_int_equal(zvs_cfg_parse_sysconfig_text(cfg, "S", "SET PORT GROUP LAG JOIN 108\n"), 1);
    assert_string_equal(cfg->msgs.msg[0].text,
                        "S:1: ZVSCFG1032E PORT GROUP LAG already has 8 devices (the limit); "
                        "0108 cannot join");
    assert_int_equal(g->nport, 8);
    zvs_cfg_free(cfg);
}

/* A SET PORT GROUP (or DEFINE VSWITCH) with any error leaves the whole configuration as
 * it was, byte for byte, including the group it would have extended. */
/* SHARED in SYSTEM CONFIG (ours; z/VM takes it on the command only): the group is the IVL
 * domain's when this system has its IVL switch and the group's switch is GLOBAL, wherever
 * the statements stand; a later statement with LACP and without SHARED, or EXCLUSIVE,
 * makes it EXCLUSIVE again, as the command's LACP ACTIVE [EXCLUSIVE | SHARED] does. */
static void test_group_shared(void **state)
{
    static const char ivl[] =
        "DEFINE VSWITCH IVLVSW TYPE IVL RDEV E00\nRDEVICE E00 INTERFACE ivl0\n"
        "DEFINE VSWITCH GLOBSW TYPE QDIO GLOBAL GROUP GG\n"
        "RDEVICE 28BA INTERFACE osa28ba\nRDEVICE 2902 INTERFACE osa2902\n";
    static const struct { const char *stmts; bool shared; } cases[] = {
        { "SET PORT GROUP GG JOIN 28BA 2902 LACP ACTIVE SHARED\n", true },
        { "SET PORT GROUP GG JOIN 28BA 2902\nSET PORT GROUP GG SHARED\n", true },
        { "SET PORT GROUP GG JOIN 28BA 2902 LACP ACTIVE SHARED\n"
          "SET PORT GROUP GG INTERVAL 30\n", true },
        { "SET PORT GROUP GG JOIN 28BA 2902 SHARED\nSET PORT GROUP GG LACP ACTIVE\n", false },
        { "SET PORT GROUP GG JOIN 28BA 2902 SHARED\nSET PORT GROUP GG EXCLUSIVE\n", false },
        { "SET PORT GROUP GG JOIN 28BA 2902 LACP ACTIVE EXCLUSIVE\n", false },
    };
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int order = 0; order < 2; order++) {       /* the group before the switches too */
            char text[512];
            snprintf(text, sizeof text, "%s%s", order ? cases[i].stmts : ivl,
                     order ? ivl : cases[i].stmts);
            struct zvs_cfg *cfg = run(text, NULL);
            print_msgs(cfg);
            assert_int_equal(zvs_cfg_errors(cfg), 0);
            assert_int_equal(cfg->ngroup, 1);
            assert_int_equal(cfg->group[0].shared, cases[i].shared);
            assert_int_equal(cfg->group[0].nport, 2);
            char *d = cfg_dump_text(cfg);
            assert_int_equal(strstr(d, "LACP ACTIVE TIMEOUT SHORT SHARED ") != NULL,
                             cases[i].shared);
            free(d);
            zvs_cfg_free(cfg);
        }
    }
}

static void test_group_error_changes_nothing(void **state)
{
    static const char *const bad[] = {
        "SET PORT GROUP G1 LACP INACTIVE JOIN 102 100\n",          /* 0100 joined already */
        "SET PORT GROUP G1 JOIN 102 103 104 105 106 107 108\n",   /* the 9th device */
        "SET PORT GROUP G1 INTERVAL 5 TIMEOUT LONG LACP BAD\n",
        "SET PORT GROUP G1 JOIN 102 DISTRIBUTION SOURCE POLICY LBT 0\n",
        "SET PORT GROUP G1 JOIN 102 EXCLUSIVE SHARED\n",
        "SET PORT GROUP G1 JOIN 102 DELETE\n",
        "SET PORT GROUP G1 JOIN 102 LEAVE 100\n",
        "SET PORT GROUP G1 JOIN 102 JOIN 103\n",
        "SET PORT GROUP G2 JOIN 200 FOO\n",                        /* a new group */
        "SET PORT GROUP G2 JOIN 200 LACP ACTIVE LACP ACTIVE\n",
        "SET PORT GRUPPE G1 JOIN 102\n",
        "SET PORT GROUP G1\n",
        "DEFINE VSWITCH SW2 GROUP G1 NOUPLINK\n",
    };
    struct zvs_cfg *cfg = zvs_cfg_new();
    assert_int_equal(zvs_cfg_parse_sysconfig_text(cfg, "S",
        "SET PORT GROUP G1 JOIN 100 101 LACP ACTIVE INTERVAL 30\nDEFINE VSWITCH SW GROUP G1\n"),
        0);
    struct zvs_cfg *before = malloc(sizeof *before);
    assert_non_null(before);
    memcpy(before, cfg, sizeof *before);
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        unsigned n0 = cfg->msgs.n;
        assert_true(zvs_cfg_parse_sysconfig_text(cfg, "S", bad[i]) >= 1);
        assert_true(cfg->msgs.n > n0);
        before->msgs = cfg->msgs;           /* only the messages (and the note of */
        before->nrefused_group = cfg->nrefused_group;       /* refused groups) may differ */
        memcpy(before->refused_group, cfg->refused_group, sizeof cfg->refused_group);
        if (memcmp(before, cfg, sizeof *before) != 0)
            fail_msg("statement %u changed the configuration: %s", i, bad[i]);
    }
    assert_int_equal(cfg->ngroup, 1);
    assert_int_equal(cfg->group[0].nport, 2);
    free(before);
    zvs_cfg_free(cfg);
}

/* A refused SET PORT GROUP gets one message, its own: the DEFINE VSWITCH ... GROUP that
 * names the group is not also reported for naming a group "not defined" (it is not, but
 * only because of the error already shown), whichever operand was wrong and whichever
 * statement comes first. */
static void test_group_refusal_reported_once(void **state)
{
    static const struct { const char *stmt, *msg; } cases[] = {
        { "SET PORT GROUP G1 JOIN 28BA LACP PASSIVE",
          "ZVSCFG1003E Operand LACP value PASSIVE is not valid (ACTIVE or INACTIVE)" },
        { "SET PORT GROUP G1 LACP PASSIVE",
          "ZVSCFG1003E Operand LACP value PASSIVE is not valid (ACTIVE or INACTIVE)" },
        { "SET PORT GROUP G1 JOIN 28BA INTERVAL 0",
          "ZVSCFG1003E Operand INTERVAL value 0 is not valid (1-9990 or OFF)" },
        { "SET PORT GROUP G1 JOIN ZZZZ",
          "ZVSCFG1003E Operand JOIN value ZZZZ is not valid (hex device nnnn or nnnn.Pn)" },
        { "SET PORT GROUP G1 JOIN 28BA TIMEOUT X",
          "ZVSCFG1003E Operand TIMEOUT value X is not valid (SHORT or LONG)" },
        { "SET PORT GROUP G1 JOIN 28BA DISTRIBUTION X",
          "ZVSCFG1003E Operand DISTRIBUTION value X is not valid (DESTINATION, SOURCE or BOTH)" },
        { "SET PORT GROUP G1 JOIN 28BA POLICY X",
          "ZVSCFG1003E Operand POLICY value X is not valid (LOAD [TOTAL or OUTBOUND] or LBT [1-100])" },
        { "SET PORT GROUP G1 JOIN 28BA EXCLUSIVE SHARED",
          "ZVSCFG1006E Operand SHARED conflicts with EXCLUSIVE" },
        { "SET PORT GROUP G1 JOIN 28BA DELETE",
          "ZVSCFG1035E Operand DELETE is not valid in SYSTEM CONFIG: it is a CP command operand" },
        { "SET PORT GROUP G1 JOIN 28BA LEAVE 28BA",
          "ZVSCFG1035E Operand LEAVE is not valid in SYSTEM CONFIG: it is a CP command operand" },
        { "SET PORT GROUP G1",
          "ZVSCFG1002E Operand JOIN, LACP or INTERVAL is missing" },
    };
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int order = 0; order < 2; order++) {
            char text[256], want[256];
            snprintf(text, sizeof text, order ? "%s\nDEFINE VSWITCH V1 GROUP G1\n"
                                              : "DEFINE VSWITCH V1 GROUP G1\n%s\n",
                     cases[i].stmt);
            snprintf(want, sizeof want, "SYSTEM.CONFIG:%d: %s", order ? 1 : 2, cases[i].msg);
            struct zvs_cfg *cfg = run(text, NULL);
            expect_msgs(cfg, (const char *const[]){ want, NULL });
            assert_int_equal(cfg->ngroup, 0);
            zvs_cfg_free(cfg);
        }
    }
    /* A group no statement names at all is still reported. */
    struct zvs_cfg *cfg = run("DEFINE VSWITCH V1 GROUP G1\nSET PORT GROUP G2 LACP PASSIVE\n",
                              NULL);
    expect_msgs(cfg, (const char *const[]){
        "SYSTEM.CONFIG:2: ZVSCFG1003E Operand LACP value PASSIVE is not valid (ACTIVE or INACTIVE)",
        "SYSTEM.CONFIG:1: ZVSCFG1058E VSWITCH V1 names PORT GROUP G1, which is not defined by "
        "SET PORT GROUP", NULL });
    zvs_cfg_free(cfg);
}

/* At most ZVS_CFG_MAX_GROUPS groups; a statement for an existing group needs no room. */
static void test_group_limit(void **state)
{
    char *text = malloc(66 * 40);
    size_t len = 0;
    for (int i = 0; i < 65; i++)
        len += (size_t)sprintf(text + len, "SET PORT GROUP G%d LACP ACTIVE\n", i);
    sprintf(text + len, "SET PORT GROUP G63 LACP INACTIVE\n");
    struct zvs_cfg *cfg = zvs_cfg_new();
    assert_int_equal(zvs_cfg_parse_sysconfig_text(cfg, "S", text), 1);
    assert_int_equal(cfg->msgs.n, 1);
    assert_string_equal(cfg->msgs.msg[0].text,
                        "S:65: ZVSCFG1015E Too many PORT GROUP definitions (limit 64)");
    assert_int_equal(cfg->ngroup, 64);
    assert_false(cfg->group[63].lacp);
    assert_int_equal(zvs_cfg_find_group(cfg, "G64"), -1);
    zvs_cfg_free(cfg);
    free(text);
}

/* The lab switch with its port group and the RDEV fallback: parses clean and dumps as
 * tests/golden/config/group.dump. */
static void test_group_golden(void **state)
{
    struct zvs_cfg *cfg = zvs_cfg_new();
    assert_int_equal(zvs_cfg_parse_sysconfig(cfg, GOLDEN_DIR "group.sysconfig"), 0);
    assert_int_equal(zvs_cfg_validate(cfg), 0);
    if (cfg->msgs.n != 0)
        print_msgs(cfg);
    assert_int_equal(cfg->msgs.n, 0);
    char *got = cfg_dump_text(cfg);
    char *want = slurp(GOLDEN_DIR "group.dump");
    if (strcmp(got, want) != 0)
        print_message("dump:\n%s", got);
    assert_string_equal(got, want);
    free(got);
    free(want);
    int k = zvs_cfg_find_vswitch(cfg, "CCBVSW1");
    assert_true(k >= 0);
    assert_string_equal(cfg->vswitch[k].group, "ETHGRP");
    assert_int_equal(cfg->vswitch[k].nrdev, 1);
    int g = zvs_cfg_find_group(cfg, cfg->vswitch[k].group);
    assert_true(g >= 0);
    assert_int_equal(cfg->group[g].nport, 2);
    zvs_cfg_free(cfg);
}

/* The list keeps ZVS_MSG_LIST_MAX messages and counts the rest. */
static void test_message_cap(void **state)
{
    size_t n = ZVS_MSG_LIST_MAX + 100;
    char *text = malloc(n * 4 + 1);
    for (size_t i = 0; i < n; i++)
        memcpy(text + 4 * i, "FOO\n", 4);
    text[4 * n] = '\0';
    struct zvs_cfg *cfg = run(text, NULL);
    assert_int_equal(cfg->msgs.n, ZVS_MSG_LIST_MAX);
    assert_int_equal(cfg->msgs.errors, n);
    assert_int_equal(cfg->msgs.dropped, 100);
    zvs_cfg_free(cfg);
    free(text);
}

/* Every catalogue text uses only %s, numbers are unique, severities are known; long
 * arguments are cut. */
static void test_catalogue(void **state)
{
    for (unsigned i = 0; i < ZVS_MSG_COUNT; i++) {
        const struct zvs_msg_def *d = zvs_msg_def(i);
        assert_non_null(d->text);
        assert_true(d->number >= 1000 && d->number <= 1099);
        assert_non_null(strchr("IWES", d->severity));
        for (const char *p = strchr(d->text, '%'); p != NULL; p = strchr(p + 2, '%'))
            assert_int_equal(p[1], 's');
        assert_true(zvs_msg_nargs(i) <= ZVS_MSG_ARGS_MAX);
        for (unsigned j = 0; j < i; j++)
            assert_int_not_equal(zvs_msg_def(j)->number, d->number);
    }
    char buf[128];
    const char *args[1] = { "0123456789012345678901234567890123456789012345678901234567890123456789" };
    size_t n = zvs_msg_format(buf, sizeof buf, ZVS_MSG_STMT_UNKNOWN, args, 1);
    assert_string_equal(buf, "ZVSCFG1001E Statement 0123456789012345678901234567890123456789012345678901234567890123..."
                             " is not recognized");
    assert_int_equal(n, strlen(buf));
    char small[15];
    n = zvs_msg_format(small, sizeof small, ZVS_MSG_STMT_UNKNOWN, args, 1);
    assert_string_equal(small, "ZVSCFG1001E St");
    assert_int_equal(n, strlen(buf));
}

static void test_value_helpers(void **state)
{
    struct zvs_rdev r;
    char buf[16];
    assert_int_equal(zvs_rdev_parse("1", &r), 0);
    assert_int_equal(r.devno, 1);
    assert_int_equal(zvs_rdev_parse("ffff.pf", &r), 0);
    assert_int_equal(r.devno, 0xFFFF);
    assert_int_equal(r.port, 15);
    zvs_rdev_format(r, buf, sizeof buf);
    assert_string_equal(buf, "FFFF.PF");
    assert_int_equal(zvs_rdev_parse("28BA.P0F", &r), 0);
    assert_int_equal(r.port, 15);
    assert_int_equal(zvs_rdev_parse("28BA.", &r), -EINVAL);
    assert_int_equal(zvs_rdev_parse("28BA.P", &r), -EINVAL);
    assert_int_equal(zvs_rdev_parse(".P1", &r), -EINVAL);
    assert_int_equal(zvs_rdev_parse("28BA.P1.P2", &r), -EINVAL);

    struct zvs_vidset set = { 0 };
    assert_int_equal(zvs_vidset_add(&set, "4094"), 0);
    assert_int_equal(zvs_vidset_add(&set, "1-4093"), 0);
    assert_int_equal(set.n, 1);
    assert_int_equal(zvs_vidset_count(&set), 4094);
    assert_int_equal(zvs_vidset_add(&set, "-5"), -EINVAL);
    assert_int_equal(zvs_vidset_add(&set, "5-"), -EINVAL);
    assert_int_equal(zvs_vidset_add(&set, "a"), -EINVAL);
    struct zvs_vidset odd = { 0 };
    for (unsigned v = 1; v <= 2 * ZVS_VIDSET_MAX; v += 2) {
        snprintf(buf, sizeof buf, "%u", v);
        assert_int_equal(zvs_vidset_add(&odd, buf), 0);
    }
    assert_int_equal(zvs_vidset_add(&odd, "100"), -ENOSPC);
    assert_int_equal(zvs_vidset_add(&odd, "2"), 0);         /* merges 1-3: fits again */
    assert_int_equal(odd.n, ZVS_VIDSET_MAX - 1);

    assert_true(zvs_ifname_valid("a"));
    assert_true(zvs_ifname_valid("abcdefghijklmno"));
    assert_false(zvs_ifname_valid("."));
    assert_false(zvs_ifname_valid(""));

    uint32_t v;
    assert_int_equal(zvs_parse_dec("4294967295", 0, UINT32_MAX, &v), 0);
    assert_int_equal(v, UINT32_MAX);
    assert_int_equal(zvs_parse_dec("4294967296", 0, UINT32_MAX, &v), -EINVAL);
    assert_int_equal(zvs_parse_hex("dEaDbEeF", 1, 8, &v), 0);
    assert_int_equal(v, 0xDEADBEEF);
}

/* The tokenizer files and commands share: blanks are space, tab, CR and LF; a token is
 * cut in place, end included. In a file, form feed and vertical tab are layout: blanks
 * (a comment's '*' after one is still first), never reported. */
static void test_tokenizer(void **state)
{
    char text[] = " \ta\r\nbc\fd ";
    char *q = text, *end = text + strlen(text);
    assert_true(zvs_is_blank(' ') && zvs_is_blank('\t') && zvs_is_blank('\r') &&
                zvs_is_blank('\n'));
    assert_false(zvs_is_blank('\f') || zvs_is_blank('\v') || zvs_is_blank('\0'));
    assert_string_equal(zvs_token_cut(&q, end), "a");
    assert_string_equal(zvs_token_cut(&q, end), "bc\fd");
    assert_null(zvs_token_cut(&q, end));
    assert_ptr_equal(q, end);

    static const char file[] = "\f* a comment\nA\fB\vC,\n\v\n\fD\v";
    struct zvs_msg_list list = { 0 };
    struct zvs_msg_sink sink = { &list, "T" };
    struct zvs_lexer lx;
    struct zvs_stmt st;
    assert_int_equal(zvs_lexer_init(&lx, file, sizeof file - 1, &sink), 0);
    assert_int_equal(zvs_lexer_next(&lx, &st), 1);
    assert_int_equal(st.ntok, 4);
    static const char *const want[4] = { "A", "B", "C", "D" };
    for (unsigned i = 0; i < 4; i++)
        assert_string_equal(st.tok[i].s, want[i]);
    assert_int_equal(st.tok[3].line, 4);
    assert_int_equal(zvs_lexer_next(&lx, &st), 0);
    assert_int_equal(list.n, 0);
    zvs_lexer_fini(&lx);
    zvs_msg_list_free(&list);
}

/* The lexer alone: tokens, their lines, continuation joins. */
static void test_lexer(void **state)
{
    static const char text[] = "A B,\n  C /* x */D*/E\n*F\n\n G";
    struct zvs_msg_list list = { 0 };
    struct zvs_msg_sink sink = { &list, "T" };
    struct zvs_lexer lx;
    struct zvs_stmt st;
    assert_int_equal(zvs_lexer_init(&lx, text, sizeof text - 1, &sink), 0);
    assert_int_equal(zvs_lexer_next(&lx, &st), 1);
    assert_int_equal(st.ntok, 5);
    static const char *const want[5] = { "A", "B", "C", "D", "E" };
    static const uint32_t lines[5] = { 1, 1, 2, 2, 2 };
    for (unsigned i = 0; i < 5; i++) {
        assert_string_equal(st.tok[i].s, want[i]);
        assert_int_equal(st.tok[i].line, lines[i]);
    }
    assert_int_equal(zvs_lexer_next(&lx, &st), 1);
    assert_int_equal(st.ntok, 1);
    assert_string_equal(st.tok[0].s, "G");
    assert_int_equal(st.tok[0].line, 5);
    assert_int_equal(zvs_lexer_next(&lx, &st), 0);
    assert_int_equal(list.n, 1);
    assert_string_equal(list.msg[0].text, "T:2: ZVSCFG1011E Comment end */ has no comment start");
    zvs_lexer_fini(&lx);
    zvs_msg_list_free(&list);
}

/* SYSTEM_IDENTIFIER (an LPAR entry for this host wins), SYSTEM_IDENTIFIER_DEFAULT (else),
 * the host name (neither: upper case, 8 characters), SYSTEM_USERIDS OPERATOR; errors store
 * nothing. z/VM's statements ("SYSTEM_IDENTIFIER Statement", "SYSTEM_USERIDS Statement",
 * CP Planning and Administration); the LPAR-is-the-host rule is ours (sysconfig.c). */
static void test_system_identity(void **state)
{
    char name[ZVS_NAME_MAX + 1];
    struct zvs_cfg *cfg = run("", NULL);
    zvs_cfg_system_name(cfg, "lab-host7.example", name);
    assert_string_equal(name, "LAB-HOST");
    zvs_cfg_system_name(cfg, "", name);
    assert_string_equal(name, "ZVSWITCH");
    assert_string_equal(zvs_cfg_operator(cfg), "OPERATOR");
    zvs_cfg_free(cfg);

    cfg = run("System_Identifier LPAR VMLP1 ZVMSYS1\n"
              "SYSTEM_IDENTIFIER 2964 0A1234 ZVMSYS2   /* a processor: never this host */\n"
              "SYSTEM_ID_DEFAULT X\n"                 /* not an abbreviation of ours */
              "system_identifier_default ZVSLAB1\n"
              "SYSTEM_USERIDS OPERATOR OPER1\n", NULL);
    assert_int_equal(zvs_cfg_errors(cfg), 1);
    assert_int_equal(cfg->system.nsysid, 2);
    zvs_cfg_system_name(cfg, "vmlp1", name);
    assert_string_equal(name, "ZVMSYS1");
    zvs_cfg_system_name(cfg, "otherhost", name);
    assert_string_equal(name, "ZVSLAB1");
    assert_string_equal(zvs_cfg_operator(cfg), "OPER1");
    zvs_cfg_free(cfg);

    static const char *const bad[] = {
        "SYSTEM_IDENTIFIER LPAR VMLP1\n",                  /* sysname missing */
        "SYSTEM_IDENTIFIER LPAR VMLP1 TOOLONGNAME\n",
        "SYSTEM_IDENTIFIER 29640 0A1234 ZVMSYS2\n",        /* model: 4 characters */
        "SYSTEM_IDENTIFIER 2964 XYZ ZVMSYS2\n",            /* cpuid: hex */
        "SYSTEM_IDENTIFIER_DEFAULT A B\n",
        "SYSTEM_IDENTIFIER_DEFAULT SECOND\n",              /* once per file */
        "SYSTEM_USERIDS OPERATOR OPER2\n",                 /* once per file */
        "SYSTEM_USERIDS OPERATOR BAD-NAME\n",
        "SYSTEM_USERIDS\n",
    };
    cfg = zvs_cfg_new();
    assert_int_equal(zvs_cfg_parse_sysconfig_text(cfg, "S",
        "SYSTEM_IDENTIFIER_DEFAULT FIRST\nSYSTEM_USERIDS OPERATOR OPER1\n"), 0);
    struct zvs_cfg *before = malloc(sizeof *before);
    assert_non_null(before);
    memcpy(before, cfg, sizeof *before);
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_true(zvs_cfg_parse_sysconfig_text(cfg, "S", bad[i]) >= 1);
        before->msgs = cfg->msgs;
        if (memcmp(before, cfg, sizeof *before) != 0)
            fail_msg("statement %u changed the configuration: %s", i, bad[i]);
    }
    unsigned found = 0;
    for (unsigned i = 0; i < cfg->msgs.n; i++)
        found += strcmp(cfg->msgs.msg[i].text, "S:1: ZVSCFG1014E SYSTEM_IDENTIFIER_DEFAULT "
                                               "FIRST is already defined on line 1") == 0;
    assert_int_equal(found, 2);                 /* "A B" and "SECOND" */
    free(before);
    zvs_cfg_free(cfg);
}

/* Each statement is an error and defines no switch. */
static void expect_no_vswitch(const char *const *bad, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct zvs_cfg *cfg = zvs_cfg_new();
        assert_true(zvs_cfg_parse_sysconfig_text(cfg, "S", bad[i]) >= 1);
        assert_int_equal(cfg->nvswitch, 0);
        zvs_cfg_free(cfg);
    }
}

/* DEFINE VSWITCH as real SYSTEM CONFIG files write it (z/VM 7.x, "DEFINE VSWITCH
 * Statement", z/VM 7.4 CP Planning and Administration): a bare QDIO or TYPE QDIO, UPLINK
 * before RDEV, IPTIMEOUT, USERBASED | PORTBASED, QUEUESTORAGE minM maxM. */
static void test_define_vswitch_real_forms(void **state)
{
    struct zvs_cfg *cfg = run("DEFINE VSWITCH VSW01 QDIO UPLINK RDEV A00 ETHERNET\n"
                              "DEFINE VSWITCH VSW02 TYPE QDIO RDEV B00 IPTIMEOUT 30 PORTBASED\n"
                              "DEFINE VSWITCH VSW03 RDEV C00 USERBASED QUEUESTORAGE 8M 256M\n"
                              "DEFINE VSWITCH VSW04 RDEV D00 QUEUESTORAGE 2M 4M IPT 240\n"
                              "RDEVICE A00 INTERFACE eth0\nRDEVICE B00 INTERFACE eth1\n"
                              "RDEVICE C00 INTERFACE eth2\nRDEVICE D00 INTERFACE eth3\n", NULL);
    print_msgs(cfg);
    assert_int_equal(zvs_cfg_errors(cfg), 0);
    assert_int_equal(cfg->nvswitch, 4);
    const struct zvs_cfg_vswitch *v = cfg->vswitch;
    assert_int_equal(v[0].nrdev, 1);
    assert_int_equal(v[0].rdev[0].devno, 0x0A00);
    assert_int_equal(zvs_cfg_iptimeout(&v[0]), 5);
    assert_false(v[0].portbased);
    assert_int_equal(zvs_cfg_iptimeout(&v[1]), 30);
    assert_true(v[1].portbased);
    assert_int_equal(v[2].queuestorage_mb, 8);      /* min 8M: zvswitch's queues hold 8M */
    assert_false(v[2].portbased);
    assert_int_equal(v[3].queuestorage_mb, 2);
    assert_int_equal(zvs_cfg_iptimeout(&v[3]), 240);
    zvs_cfg_free(cfg);

    static const char *const bad[] = {
        "DEFINE VSWITCH X1 TYPE IQD\n",
        "DEFINE VSWITCH X2 TYPE QDIO QDIO\n",
        "DEFINE VSWITCH X3 IPTIMEOUT 0\n",
        "DEFINE VSWITCH X4 IPTIMEOUT 241\n",
        "DEFINE VSWITCH X5 USERBASED PORTBASED\n",
        "DEFINE VSWITCH X6 QUEUESTORAGE 256M 8M\n",
        "DEFINE VSWITCH X7 QUEUESTORAGE 8M 4096M\n",
        "DEFINE VSWITCH X8 UPLINK NOUPLINK\n",
    };
    expect_no_vswitch(bad, sizeof bad / sizeof bad[0]);
}

/* The IVL domain's switches (z/VM 7.4 "DEFINE VSWITCH Statement"): TYPE QDIO GLOBAL, a
 * Global VSWITCH; TYPE IVL [DOMAIN A-H], the link between the systems, ETHERNET,
 * PORTBASED and PORTTYPE ACCESS only, no group. One IVL switch per system; a GLOBAL one
 * needs it. */
static void test_define_vswitch_ivl(void **state)
{
    struct zvs_cfg *cfg = run("DEFINE VSWITCH IVLVSW TYPE IVL RDEV E00\n"
                              "DEFINE VSWITCH GLOBSW TYPE QDIO GLOBAL RDEV A00\n"
                              "DEFINE VSWITCH LOCSW TYPE QDIO LOCAL RDEV B00\n"
                              "RDEVICE A00 INTERFACE eth0\nRDEVICE B00 INTERFACE eth1\n"
                              "RDEVICE E00 INTERFACE ivl0\n", NULL);
    print_msgs(cfg);
    assert_int_equal(zvs_cfg_errors(cfg), 0);
    const struct zvs_cfg_vswitch *v = cfg->vswitch;
    assert_int_equal(v[0].scope, ZVS_VSW_IVL);
    assert_int_equal(v[0].ivl_domain, 'A');
    assert_true(v[0].portbased);
    assert_int_equal(v[1].scope, ZVS_VSW_GLOBAL);
    assert_int_equal(v[1].ivl_domain, 0);
    assert_int_equal(v[2].scope, ZVS_VSW_LOCAL);
    char *d = cfg_dump_text(cfg);
    assert_non_null(strstr(d, " PORTBASED TYPE IVL DOMAIN A\n"));
    assert_non_null(strstr(d, " TYPE QDIO GLOBAL\n"));
    free(d);
    zvs_cfg_free(cfg);

    cfg = run("DEFINE VSWITCH IVLVSW TYPE IVL DOMAIN c RDEV E00\nRDEVICE E00 INTERFACE ivl0\n",
              NULL);
    assert_int_equal(zvs_cfg_errors(cfg), 0);
    assert_int_equal(cfg->vswitch[0].ivl_domain, 'C');
    zvs_cfg_free(cfg);

    static const char *const bad[] = {
        "DEFINE VSWITCH X1 TYPE IVL GLOBAL\n",
        "DEFINE VSWITCH X2 TYPE IVL LOCAL\n",
        "DEFINE VSWITCH X3 TYPE IVL GROUP G1\n",
        "DEFINE VSWITCH X4 TYPE IVL USERBASED\n",
        "DEFINE VSWITCH X5 TYPE IVL PORTTYPE TRUNK\n",
        "DEFINE VSWITCH X6 TYPE IVL DOMAIN I\n",
        "DEFINE VSWITCH X7 TYPE QDIO DOMAIN A\n",
        "DEFINE VSWITCH X8 GLOBAL LOCAL\n",
        "DEFINE VSWITCH X9 TYPE IVL DOMAIN AB\n",
    };
    expect_no_vswitch(bad, sizeof bad / sizeof bad[0]);

    cfg = run("DEFINE VSWITCH GLOBSW TYPE QDIO GLOBAL\n"
              "DEFINE VSWITCH IVL1 TYPE IVL\nDEFINE VSWITCH IVL2 TYPE IVL\n", NULL);
    static const char *const twice[] = {
        "SYSTEM.CONFIG:3: ZVSCFG1076E VSWITCH IVL2 is TYPE IVL, as VSWITCH IVL1 is: a system"
        " has one IVL switch",
        NULL,
    };
    expect_msgs(cfg, twice);
    zvs_cfg_free(cfg);
    cfg = run("DEFINE VSWITCH GLOBSW TYPE QDIO GLOBAL\n", NULL);
    static const char *const no_ivl[] = {
        "SYSTEM.CONFIG:1: ZVSCFG1075E VSWITCH GLOBSW is GLOBAL: it needs a TYPE IVL switch on"
        " this system",
        NULL,
    };
    expect_msgs(cfg, no_ivl);
    zvs_cfg_free(cfg);
}

/* The IVL domain's members and heartbeat (IVL MEMBER, IVL HEARTBEAT TIMEOUT: ours), from
 * which the corosync configuration is written. */
static void test_ivl_members(void **state)
{
    struct zvs_cfg *cfg = run("DEFINE VSWITCH IVLVSW TYPE IVL\n"
                              "IVL MEMBER zvma INDEX 1 ADDRESS 10.99.0.1\n"
                              "IVL MEMBER ZVMB ADDRESS Sysb.Example.ORG. INDEX 2\n"
                              "ivl member ZVMC index 3 address fd00::3\n"
                              "IVL HEARTBEAT TIMEOUT 2\n", NULL);
    print_msgs(cfg);
    assert_int_equal(zvs_cfg_errors(cfg), 0);
    const struct zvs_cfg_ivl *d = &cfg->ivl;
    assert_int_equal(d->nmember, 3);
    assert_string_equal(d->member[0].sysname, "ZVMA");
    assert_int_equal(d->member[0].index, 1);
    assert_string_equal(d->member[0].address, "10.99.0.1");
    assert_string_equal(d->member[1].address, "sysb.example.org");
    assert_int_equal(d->member[2].index, 3);
    assert_int_equal(d->heartbeat_s, 2);
    char *dump = cfg_dump_text(cfg);
    assert_non_null(strstr(dump, "IVL MEMBER ZVMA INDEX 1 ADDRESS 10.99.0.1\n"
                                 "IVL MEMBER ZVMB INDEX 2 ADDRESS sysb.example.org\n"
                                 "IVL MEMBER ZVMC INDEX 3 ADDRESS fd00::3\n"
                                 "IVL HEARTBEAT TIMEOUT 2\n"));
    free(dump);
    zvs_cfg_free(cfg);

    cfg = run("DEFINE VSWITCH IVLVSW TYPE IVL\n"
              "IVL MEMBER ZVMA INDEX 1 ADDRESS 10.99.0.1\n"
              "IVL MEMBER ZVMA INDEX 2 ADDRESS 10.99.0.2\n"
              "IVL MEMBER ZVMB INDEX 1 ADDRESS 10.99.0.2\n"
              "IVL MEMBER ZVMC INDEX 4 ADDRESS 10.99.0.3\n"
              "IVL MEMBER ZVMD ADDRESS -bad-\n"
              "IVL MEMBER ZVME INDEX 3\n"
              "IVL HEARTBEAT TIMEOUT 301\n"
              "IVL HEARTBEAT\n", NULL);
    static const char *const bad[] = {
        "SYSTEM.CONFIG:3: ZVSCFG1014E IVL MEMBER ZVMA is already defined on line 2",
        "SYSTEM.CONFIG:4: ZVSCFG1014E IVL MEMBER INDEX 1 is already defined on line 2",
        "SYSTEM.CONFIG:5: ZVSCFG1003E Operand INDEX value 4 is not valid (1-3)",
        "SYSTEM.CONFIG:6: ZVSCFG1003E Operand ADDRESS value -bad- is not valid (label begins"
        " or ends with a hyphen)",
        "SYSTEM.CONFIG:6: ZVSCFG1002E Operand INDEX is missing",
        "SYSTEM.CONFIG:7: ZVSCFG1002E Operand ADDRESS is missing",
        "SYSTEM.CONFIG:8: ZVSCFG1003E Operand TIMEOUT value 301 is not valid (1-300 seconds)",
        "SYSTEM.CONFIG:9: ZVSCFG1002E Operand TIMEOUT is missing",
        NULL,
    };
    expect_msgs(cfg, bad);
    assert_int_equal(cfg->ivl.nmember, 1);
    assert_int_equal(cfg->ivl.heartbeat_line, 0);
    zvs_cfg_free(cfg);

    cfg = run("DEFINE VSWITCH VSW1 RDEV A00\nRDEVICE A00 INTERFACE eth0\n"
              "IVL MEMBER ZVMA INDEX 1 ADDRESS 10.99.0.1\n"
              "IVL HEARTBEAT TIMEOUT 3\nIVL HEARTBEAT TIMEOUT 4\n", NULL);
    static const char *const no_ivl[] = {
        "SYSTEM.CONFIG:5: ZVSCFG1014E IVL HEARTBEAT is already defined on line 4",
        "SYSTEM.CONFIG:3: ZVSCFG1077E IVL MEMBER ZVMA: the IVL domain needs a TYPE IVL switch"
        " on this system",
        NULL,
    };
    expect_msgs(cfg, no_ivl);
    assert_int_equal(cfg->ivl.heartbeat_s, 3);
    zvs_cfg_free(cfg);
}

int main(void)
{
    static const struct CMUnitTest fixed[] = {
        cmocka_unit_test(test_sample_golden),
        cmocka_unit_test(test_syntax_check),
        cmocka_unit_test(test_syntax_check_golden),
        cmocka_unit_test(test_unreadable),
        cmocka_unit_test(test_lexical_rules),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_rdevice_backend),
        cmocka_unit_test(test_resolver),
        cmocka_unit_test(test_error_stores_nothing),
        cmocka_unit_test(test_linuxuser),
        cmocka_unit_test(test_nicdef_modifier),
        cmocka_unit_test(test_mac_assignment),
        cmocka_unit_test(test_nul_byte),
        cmocka_unit_test(test_too_many_operands),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_group_operands),
        cmocka_unit_test(test_group_defaults_and_values),
        cmocka_unit_test(test_group_distribution_udpport),
        cmocka_unit_test(test_group_accumulates),
        cmocka_unit_test(test_group_shared),
        cmocka_unit_test(test_group_error_changes_nothing),
        cmocka_unit_test(test_group_refusal_reported_once),
        cmocka_unit_test(test_group_limit),
        cmocka_unit_test(test_system_identity),
        cmocka_unit_test(test_define_vswitch_real_forms),
        cmocka_unit_test(test_define_vswitch_ivl),
        cmocka_unit_test(test_ivl_members),
        cmocka_unit_test(test_group_golden),
        cmocka_unit_test(test_message_cap),
        cmocka_unit_test(test_catalogue),
        cmocka_unit_test(test_value_helpers),
        cmocka_unit_test(test_tokenizer),
        cmocka_unit_test(test_lexer),
        cmocka_unit_test(test_cfg_copy),
    };
    size_t nfixed = sizeof fixed / sizeof fixed[0];
    size_t ncases = sizeof err_cases / sizeof err_cases[0];
    struct CMUnitTest *tests = calloc(nfixed + ncases, sizeof *tests);
    if (tests == NULL)
        return 1;
    memcpy(tests, fixed, sizeof fixed);
    for (size_t i = 0; i < ncases; i++)
        tests[nfixed + i] = (struct CMUnitTest){
            .name = err_cases[i].name,
            .test_func = test_error_case,
            .initial_state = (void *)&err_cases[i],
        };
    int rc = _cmocka_run_group_tests("config", tests, nfixed + ncases, NULL, NULL);
    free(tests);
    return rc;
}
