/* SYSTEM CONFIG's VXLAN VSWITCH statement (cp-commands/sysconfig.c): a VSWITCH's uplink
 * that is a VXLAN segment, parsed, kept canonical and dumped, and every bad operand
 * refused with its message while the rest of the file is read. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp-commands/config.h"
#include "tests/unit/cfg_text.h"

#define BASE "DEFINE VSWITCH VXSW RDEV NONE\nRDEVICE 28BA INTERFACE osa28ba\n"

static void test_vxlan_statement(void **state)
{
    struct zvs_cfg *cfg = zvs_cfg_new();
    assert_int_equal(zvs_cfg_parse_sysconfig_text(cfg, "S", BASE
        "VXLAN VSWITCH vxsw VNI 5000 LOCAL 10.0.0.1 RDEV 28BA,\n"
        "   REMOTE 10.0.0.2 VTEP3.Lab. GATEWAY 10.0.0.254\n"), 0);
    assert_int_equal(cfg->msgs.n, 0);
    assert_int_equal(cfg->nvxlan, 1);
    const struct zvs_cfg_vxlan *v = &cfg->vxlan[0];
    assert_string_equal(v->vswitch, "VXSW");
    assert_int_equal(v->line, 3);
    assert_int_equal(v->vni, 5000);
    assert_string_equal(v->local, "10.0.0.1");
    assert_int_equal(v->rdev.devno, 0x28BA);
    assert_int_equal(v->udp_port, 4789);
    assert_int_equal(v->nremote, 2);
    assert_string_equal(v->remote[1], "vtep3.lab");
    char *got = cfg_dump_text(cfg);
    assert_non_null(strstr(got, "VXLAN VSWITCH VXSW VNI 5000 LOCAL 10.0.0.1 RDEV 28BA "
                                "UDPPORT 4789 GATEWAY 10.0.0.254 REMOTE 10.0.0.2 vtep3.lab\n"));
    free(got);
    zvs_cfg_free(cfg);

    cfg = zvs_cfg_new();
    assert_int_equal(zvs_cfg_parse_sysconfig_text(cfg, "S", BASE
        "VXLAN VSWITCH VXSW VNI 16777215 LOCAL 2001:DB8::1 RDEV 28BA UDPPORT 8472\n"), 0);
    assert_int_equal(cfg->msgs.n, 0);
    assert_string_equal(cfg->vxlan[0].local, "2001:db8::1");
    assert_int_equal(cfg->vxlan[0].udp_port, 8472);
    assert_int_equal(cfg->vxlan[0].nremote, 0);
    zvs_cfg_free(cfg);
}

/* The first message of a file ending in bad VXLAN statement(s) contains `want`, and
 * `kept` statements were kept. */
static void refused_kept(const char *stmt, const char *want, unsigned kept)
{
    char text[1024];
    struct zvs_cfg *cfg = zvs_cfg_new();

    snprintf(text, sizeof text, BASE "%s", stmt);
    zvs_cfg_parse_sysconfig_text(cfg, "S", text);
    assert_true(cfg->msgs.n >= 1);
    if (!strstr(cfg->msgs.msg[0].text, want)) {
        fprintf(stderr, "%s -> %s (want %s)\n", stmt, cfg->msgs.msg[0].text, want);
        fail();
    }
    assert_int_equal(cfg->nvxlan, kept);
    zvs_cfg_free(cfg);
}

static void refused(const char *stmt, const char *want)
{
    refused_kept(stmt, want, 0);
}

static void test_vxlan_refused(void **state)
{
    refused("VXLAN VSWITCH NOSUCH VNI 1 LOCAL 10.0.0.1 RDEV 28BA\n", "NOSUCH");
    refused("VXLAN VSWITCH VXSW LOCAL 10.0.0.1 RDEV 28BA\n", "VNI, LOCAL and RDEV");
    refused("VXLAN VSWITCH VXSW VNI 16777216 LOCAL 10.0.0.1 RDEV 28BA\n", "0-16777215");
    refused("VXLAN VSWITCH VXSW VNI 1 LOCAL host.lab RDEV 28BA\n", "host.lab");
    refused("VXLAN VSWITCH VXSW VNI 1 LOCAL 10.0.0.1 RDEV XYZ\n", "XYZ");
    refused("VXLAN VSWITCH VXSW VNI 1 LOCAL 10.0.0.1 RDEV 28BA UDPPORT 0\n", "1-65535");
    refused("VXLAN VSWITCH VXSW VNI 1 LOCAL 10.0.0.1 RDEV 28BA REMOTE -x-.lab\n", "-x-.lab");
    refused("VXLAN VSWITCH VXSW VNI 1 LOCAL 10.0.0.1 RDEV 28BA REMOTE a.lab A.LAB\n",
            "given twice");
    refused("VXLAN VSWITCH VXSW VNI 1 LOCAL 10.0.0.1 RDEV 28BA REMOTE 2001:db8::2\n",
            "family of LOCAL");
    refused("VXLAN VSWITCH VXSW VNI 1 LOCAL 10.0.0.1 RDEV 28BA GATEWAY 2001:db8::9\n",
            "family of LOCAL");
    refused("VXLAN VSWITCH VXSW VNI 1 LOCAL 10.0.0.1 RDEV 28BA REMOTE a b c d e f g h i\n",
            "VXLAN REMOTE");
    refused_kept("VXLAN VSWITCH VXSW VNI 1 LOCAL 10.0.0.1 RDEV 28BA\n"
                 "VXLAN VSWITCH VXSW VNI 2 LOCAL 10.0.0.1 RDEV 28BA\n", "VXSW", 1);
}

/* Each statement of bad[] after `base` is refused, the first message naming its want,
 * and `kept` VXLAN statements stand. */
static void all_refused(const char *base, const char *const (*bad)[2], unsigned n,
                        unsigned kept)
{
    for (unsigned i = 0; i < n; i++) {
        char text[2048];
        struct zvs_cfg *cfg = zvs_cfg_new();

        snprintf(text, sizeof text, "%s%s", base, bad[i][0]);
        zvs_cfg_parse_sysconfig_text(cfg, "S", text);
        assert_true(cfg->msgs.n >= 1);
        if (!strstr(cfg->msgs.msg[0].text, bad[i][1]))
            fail_msg("%s -> %s (want %s)", bad[i][0], cfg->msgs.msg[0].text, bad[i][1]);
        assert_int_equal(cfg->nvxlan, kept);
        zvs_cfg_free(cfg);
    }
}

/* GROUP: the underlay is the switch's own port group; exactly one of RDEV and GROUP. */
#define GBASE "SET PORT GROUP VXGRP JOIN 28BA 2902 DISTRIBUTION UDPPORT\n" \
              "DEFINE VSWITCH VXSW ETHERNET GROUP VXGRP\n" \
              "DEFINE VSWITCH OTHER RDEV NONE\n"

static void test_vxlan_group(void **state)
{
    struct zvs_cfg *cfg = zvs_cfg_new();
    assert_int_equal(zvs_cfg_parse_sysconfig_text(cfg, "S", GBASE
        "VXLAN VSWITCH VXSW VNI 5000 LOCAL 10.0.0.1 GROUP vxgrp REMOTE 10.0.0.2\n"), 0);
    assert_int_equal(cfg->msgs.n, 0);
    assert_int_equal(cfg->nvxlan, 1);
    assert_string_equal(cfg->vxlan[0].group, "VXGRP");
    char *got = cfg_dump_text(cfg);
    assert_non_null(strstr(got, "VXLAN VSWITCH VXSW VNI 5000 LOCAL 10.0.0.1 GROUP VXGRP "
                                "UDPPORT 4789 REMOTE 10.0.0.2\n"));
    free(got);
    zvs_cfg_free(cfg);

    const char *bad[][2] = {
        { "VXLAN VSWITCH VXSW VNI 1 LOCAL 10.0.0.1\n", "VNI, LOCAL and RDEV or GROUP" },
        { "VXLAN VSWITCH VXSW VNI 1 LOCAL 10.0.0.1 RDEV 28BA GROUP VXGRP\n", "GROUP" },
        { "VXLAN VSWITCH OTHER VNI 1 LOCAL 10.0.0.1 GROUP VXGRP\n", "own GROUP" },
        { "VXLAN VSWITCH VXSW VNI 1 LOCAL 10.0.0.1 GROUP TOOLONGNAME\n", "TOOLONGNAME" },
    };
    all_refused(GBASE, bad, sizeof bad / sizeof bad[0], 0);
}

/* A VNI per VLAN: VXLAN VSWITCH name VLAN v VNI n after the switch's statement. */
#define VBASE "DEFINE VSWITCH VXSW RDEV NONE VLAN AWARE NATIVE 1\n" \
              "DEFINE VSWITCH FLAT RDEV NONE\n" \
              "RDEVICE 28BA INTERFACE osa28ba\nRDEVICE 2902 INTERFACE osa2902\n" \
              "VXLAN VSWITCH VXSW VNI 5000 LOCAL 10.0.0.1 RDEV 28BA\n" \
              "VXLAN VSWITCH FLAT VNI 6000 LOCAL 10.0.0.1 RDEV 2902\n"

static void test_vxlan_vlan_vni(void **state)
{
    struct zvs_cfg *cfg = zvs_cfg_new();
    assert_int_equal(zvs_cfg_parse_sysconfig_text(cfg, "S", VBASE
        "VXLAN VSWITCH VXSW VLAN 10 VNI 10010\n"
        "vxlan vswitch vxsw vni 10020 vlan 20\n"), 0);
    assert_int_equal(cfg->msgs.n, 0);
    assert_int_equal(cfg->nvxlan, 2);
    const struct zvs_cfg_vxlan *v = &cfg->vxlan[0];
    assert_int_equal(v->nvlan, 2);
    assert_int_equal(v->vlan_vid[1], 20);
    assert_int_equal(v->vlan_vni[1], 10020);
    char *got = cfg_dump_text(cfg);
    assert_non_null(strstr(got, "VXLAN VSWITCH VXSW VLAN 10 VNI 10010\n"
                                "VXLAN VSWITCH VXSW VLAN 20 VNI 10020\n"));
    free(got);
    zvs_cfg_free(cfg);

    const char *bad[][2] = {
        { "VXLAN VSWITCH VXSW VLAN 10\n", "VNI" },
        { "VXLAN VSWITCH VXSW VLAN 0 VNI 1\n", "1-4094" },
        { "VXLAN VSWITCH VXSW VLAN 10 VNI 1 REMOTE 10.0.0.2\n", "VLAN" },
        { "VXLAN VSWITCH FLAT VLAN 10 VNI 1\n", "VLAN AWARE" },
        { "VXLAN VSWITCH VXSW VLAN 1 VNI 1\n", "NATIVE" },
        { "VXLAN VSWITCH VXSW VLAN 30 VNI 5000\n", "no other VLAN" },
        { "VXLAN VSWITCH VXSW VLAN 10 VNI 7\nVXLAN VSWITCH VXSW VLAN 10 VNI 8\n",
          "without a VNI" },
        { "VXLAN VSWITCH VXSW VLAN 10 VNI 7\nVXLAN VSWITCH VXSW VLAN 11 VNI 7\n",
          "no other VLAN" },
    };
    all_refused(VBASE, bad, sizeof bad / sizeof bad[0], 2);
    /* Before the switch's statement: refused. */
    cfg = zvs_cfg_new();
    zvs_cfg_parse_sysconfig_text(cfg, "S", "DEFINE VSWITCH VXSW RDEV NONE VLAN AWARE\n"
                                 "VXLAN VSWITCH VXSW VLAN 10 VNI 7\n");
    assert_true(cfg->msgs.n >= 1);
    assert_non_null(strstr(cfg->msgs.msg[0].text, "VXLAN VSWITCH statement above"));
    zvs_cfg_free(cfg);
}

/* Static underlay neighbours: VXLAN VSWITCH name NEIGHBOR addr MAC mac after the
 * switch's statement, dumped as such lines, the dump parsing back to the same. */
#define NBASE_DEVICES "DEFINE VSWITCH VXSW RDEV NONE\nDEFINE VSWITCH SIX RDEV NONE\n" \
              "DEFINE VSWITCH BARE RDEV NONE\n" \
              "RDEVICE 28BA INTERFACE osa28ba\nRDEVICE 2902 INTERFACE osa2902\n"
#define NBASE NBASE_DEVICES \
              "VXLAN VSWITCH VXSW VNI 5000 LOCAL 10.0.0.1 RDEV 28BA REMOTE 10.0.0.2\n" \
              "VXLAN VSWITCH SIX VNI 6000 LOCAL 2001:db8::1 RDEV 2902\n"

static void test_vxlan_neighbor(void **state)
{
    struct zvs_cfg *cfg = zvs_cfg_new();
    assert_int_equal(zvs_cfg_parse_sysconfig_text(cfg, "S", NBASE
        "VXLAN VSWITCH VXSW NEIGHBOR 10.0.0.2 MAC 02-00-0c-00-00-22\n"
        "vxlan vswitch vxsw mac 02-00-0C-00-00-FE neighbor 10.0.0.254\n"
        "VXLAN VSWITCH SIX NEIGHBOR 2001:DB8::2 MAC 02-00-0C-00-00-62\n"), 0);
    assert_int_equal(cfg->msgs.n, 0);
    const struct zvs_cfg_vxlan *v = &cfg->vxlan[0];
    static const uint8_t m22[6] = { 0x02, 0, 0x0c, 0, 0, 0x22 };
    static const uint8_t mfe[6] = { 0x02, 0, 0x0c, 0, 0, 0xfe };
    assert_int_equal(v->nneighbor, 2);
    assert_string_equal(v->neighbor_addr[0], "10.0.0.2");
    assert_memory_equal(v->neighbor_mac[0], m22, 6);
    assert_string_equal(v->neighbor_addr[1], "10.0.0.254");
    assert_memory_equal(v->neighbor_mac[1], mfe, 6);
    assert_int_equal(cfg->vxlan[1].nneighbor, 1);
    assert_string_equal(cfg->vxlan[1].neighbor_addr[0], "2001:db8::2");
    char *got = cfg_dump_text(cfg);
    assert_non_null(strstr(got, "VXLAN VSWITCH VXSW NEIGHBOR 10.0.0.2 MAC 02-00-0C-00-00-22\n"
                                "VXLAN VSWITCH VXSW NEIGHBOR 10.0.0.254 MAC 02-00-0C-00-00-FE\n"
                                "VXLAN VSWITCH SIX VNI 6000"));
    assert_non_null(strstr(got, "VXLAN VSWITCH SIX NEIGHBOR 2001:db8::2 MAC 02-00-0C-00-00-62\n"));

    /* The dump's VXLAN lines, after the switches and devices, parse back to the same
     * statements. */
    char text[2048];
    size_t n = (size_t)snprintf(text, sizeof text, "%s", NBASE_DEVICES);
    for (const char *l = got; (l = strstr(l, "VXLAN VSWITCH ")) != NULL; l = strchr(l, '\n')) {
        size_t len = (size_t)(strchr(l, '\n') - l) + 1;
        assert_true(n + len < sizeof text);
        memcpy(text + n, l, len);
        text[n += len] = '\0';
    }
    struct zvs_cfg *back = zvs_cfg_new();
    assert_int_equal(zvs_cfg_parse_sysconfig_text(back, "D", text), 0);
    assert_int_equal(back->msgs.n, 0);
    assert_int_equal(back->nvxlan, 2);
    for (unsigned i = 0; i < 2; i++) {
        struct zvs_cfg_vxlan a = cfg->vxlan[i], b = back->vxlan[i];
        a.line = b.line = 0;
        assert_memory_equal(&a, &b, sizeof a);
    }
    char *again = cfg_dump_text(back);
    assert_string_equal(got, again);
    free(again);
    free(got);
    zvs_cfg_free(back);
    zvs_cfg_free(cfg);

    static const char *const bad[][2] = {
        { "VXLAN VSWITCH VXSW NEIGHBOR 10.0.0.2\n", "S:8: ZVSCFG1002E Operand MAC is missing" },
        { "VXLAN VSWITCH VXSW MAC 02-00-0c-00-00-22\n",
          "S:8: ZVSCFG1002E Operand NEIGHBOR is missing" },
        { "VXLAN VSWITCH VXSW NEIGHBOR host.lab MAC 02-00-0c-00-00-22\n",
          "S:8: ZVSCFG1003E Operand NEIGHBOR value host.lab is not valid (an IPv4 or IPv6 "
          "address)" },
        { "VXLAN VSWITCH VXSW NEIGHBOR 10.0.0.2 MAC 02:00:0c:00:00:22\n",
          "S:8: ZVSCFG1003E Operand MAC value 02:00:0c:00:00:22 is not valid "
          "(xx-xx-xx-xx-xx-xx, a unicast MAC)" },
        { "VXLAN VSWITCH VXSW NEIGHBOR 10.0.0.2 MAC 01-00-5E-00-00-01\n",
          "S:8: ZVSCFG1003E Operand MAC value 01-00-5E-00-00-01 is not valid "
          "(xx-xx-xx-xx-xx-xx, a unicast MAC)" },
        { "VXLAN VSWITCH VXSW NEIGHBOR 10.0.0.2 MAC 00-00-00-00-00-00\n",
          "S:8: ZVSCFG1003E Operand MAC value 00-00-00-00-00-00 is not valid "
          "(xx-xx-xx-xx-xx-xx, a unicast MAC)" },
        { "VXLAN VSWITCH VXSW NEIGHBOR 10.0.0.2 MAC 02-00-0c-00-00-2\n",
          "S:8: ZVSCFG1003E Operand MAC value 02-00-0c-00-00-2 is not valid "
          "(xx-xx-xx-xx-xx-xx, a unicast MAC)" },
        { "VXLAN VSWITCH VXSW NEIGHBOR 2001:db8::2 MAC 02-00-0c-00-00-22\n",
          "S:8: ZVSCFG1003E Operand NEIGHBOR value 2001:db8::2 is not valid (the family of "
          "LOCAL)" },
        { "VXLAN VSWITCH SIX NEIGHBOR 10.0.0.2 MAC 02-00-0c-00-00-22\n",
          "S:8: ZVSCFG1003E Operand NEIGHBOR value 10.0.0.2 is not valid (the family of "
          "LOCAL)" },
        { "VXLAN VSWITCH VXSW NEIGHBOR 10.0.0.2 MAC 02-00-0c-00-00-22 REMOTE 10.0.0.3\n",
          "S:8: ZVSCFG1006E Operand NEIGHBOR conflicts with REMOTE" },
        { "VXLAN VSWITCH VXSW NEIGHBOR 0.0.0.0 MAC 02-00-0c-00-00-22\n",
          "S:8: ZVSCFG1003E Operand NEIGHBOR value 0.0.0.0 is not valid (a unicast address of "
          "another host)" },
        { "VXLAN VSWITCH VXSW NEIGHBOR 255.255.255.255 MAC 02-00-0c-00-00-22\n",
          "S:8: ZVSCFG1003E Operand NEIGHBOR value 255.255.255.255 is not valid (a unicast address of "
          "another host)" },
        { "VXLAN VSWITCH VXSW NEIGHBOR 224.0.0.1 MAC 02-00-0c-00-00-22\n",
          "S:8: ZVSCFG1003E Operand NEIGHBOR value 224.0.0.1 is not valid (a unicast address of "
          "another host)" },
        { "VXLAN VSWITCH VXSW NEIGHBOR 239.1.2.3 MAC 02-00-0c-00-00-22\n",
          "S:8: ZVSCFG1003E Operand NEIGHBOR value 239.1.2.3 is not valid (a unicast address of "
          "another host)" },
        { "VXLAN VSWITCH VXSW NEIGHBOR 10.0.0.1 MAC 02-00-0c-00-00-22\n",
          "S:8: ZVSCFG1003E Operand NEIGHBOR value 10.0.0.1 is not valid (a unicast address of "
          "another host)" },
        { "VXLAN VSWITCH SIX NEIGHBOR :: MAC 02-00-0c-00-00-22\n",
          "S:8: ZVSCFG1003E Operand NEIGHBOR value :: is not valid (a unicast address of "
          "another host)" },
        { "VXLAN VSWITCH SIX NEIGHBOR ff02::1 MAC 02-00-0c-00-00-22\n",
          "S:8: ZVSCFG1003E Operand NEIGHBOR value ff02::1 is not valid (a unicast address of "
          "another host)" },
        { "VXLAN VSWITCH SIX NEIGHBOR 2001:db8::1 MAC 02-00-0c-00-00-22\n",
          "S:8: ZVSCFG1003E Operand NEIGHBOR value 2001:db8::1 is not valid (a unicast address of "
          "another host)" },
        { "VXLAN VSWITCH BARE NEIGHBOR 10.0.0.2 MAC 02-00-0c-00-00-22\n",
          "S:8: ZVSCFG1003E Operand VSWITCH value BARE is not valid (a switch with its VXLAN "
          "VSWITCH statement above)" },
        { "VXLAN VSWITCH VXSW NEIGHBOR 10.0.0.2 MAC 02-00-0c-00-00-22\n"
          "VXLAN VSWITCH VXSW NEIGHBOR 10.0.0.2 MAC 02-00-0c-00-00-23\n",
          "S:9: ZVSCFG1003E Operand NEIGHBOR value 10.0.0.2 is not valid (an address without "
          "a static neighbor)" },
    };
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cfg = zvs_cfg_new();
        snprintf(text, sizeof text, "%s%s", NBASE, bad[i][0]);
        zvs_cfg_parse_sysconfig_text(cfg, "S", text);
        assert_int_equal(cfg->msgs.n, 1);
        if (strcmp(cfg->msgs.msg[0].text, bad[i][1]) != 0)
            fail_msg("%s -> %s (want %s)", bad[i][0], cfg->msgs.msg[0].text, bad[i][1]);
        assert_int_equal(cfg->nvxlan, 2);
        assert_int_equal(cfg->vxlan[0].nneighbor, i == sizeof bad / sizeof bad[0] - 1);
        assert_int_equal(cfg->vxlan[1].nneighbor, 0);
        zvs_cfg_free(cfg);
    }

    /* At most 16 a switch: the 17th is refused, the 16 stand. */
    n = (size_t)snprintf(text, sizeof text, "%s", NBASE);
    for (unsigned i = 0; i <= ZVS_CFG_MAX_VXLAN_NEIGHBORS; i++)
        n += (size_t)snprintf(text + n, sizeof text - n,
                              "VXLAN VSWITCH VXSW NEIGHBOR 10.0.1.%u MAC 02-00-00-00-01-%02X\n",
                              i + 1, i + 1);
    cfg = zvs_cfg_new();
    zvs_cfg_parse_sysconfig_text(cfg, "S", text);
    assert_int_equal(cfg->msgs.n, 1);
    assert_string_equal(cfg->msgs.msg[0].text,
                        "S:24: ZVSCFG1015E Too many VXLAN NEIGHBOR definitions (limit 16)");
    assert_int_equal(cfg->vxlan[0].nneighbor, 16);
    zvs_cfg_free(cfg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vxlan_statement),
        cmocka_unit_test(test_vxlan_refused),
        cmocka_unit_test(test_vxlan_group),
        cmocka_unit_test(test_vxlan_vlan_vni),
        cmocka_unit_test(test_vxlan_neighbor),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
