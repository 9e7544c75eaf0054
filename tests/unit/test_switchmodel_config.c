/* Switch model config parser: a good file gives an exact structure; every error gives an
 * exact "file:line: message" naming the token. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "tests/switchmodel/sm_config.h"

static struct sm_config cfg;
static char err[256];

static const char good[] =
    "! the report's switch\n"
    "HOSTNAME LAB6509\n"
    "lacp system-priority 100\n"
    "Port-Channel Load-Balance src-dst-ip\n"
    "lacp quirk suspend-individual\n"
    "lacp quirk require-aggregation\n"
    "mac address-table aging-time 60\n"
    "interface GigabitEthernet2/23\n"
    "   description to zvswitch OSA 28BA\n"
    "attach sw-osa28ba\n"
    " channel-protocol lacp\n"
    " channel-group 1 mode active\n"
    " lacp rate fast\n"
    " lacp port-priority 200\n"
    " rate-limit 1g\n"
    "interface gi2/24\n"
    " attach sw-osa2902\n"
    " channel-group 1 MODE passive\n"
    " shutdown\n"
    "interface Port-channel1\n"
    " switchport trunk encapsulation dot1q\n"
    " switchport mode trunk\n"
    " no shutdown\n"
    "interface Gi3/1\n"
    " attach sw-srv1\n"
    " switchport access vlan 20\n"
    " rate-limit 1000000\n"
    "interface gig3/2\r\n"
    " attach sw-srv2\n"
    " switchport mode trunk\n"
    "end\n";

static void test_good(void **state)
{
    (void)state;
    assert_int_equal(sm_config_parse(good, "lab.conf", &cfg, err, sizeof(err)), 0);
    assert_string_equal(err, "");
    assert_string_equal(cfg.hostname, "LAB6509");
    assert_int_equal(cfg.system_priority, 100);
    assert_int_equal(cfg.lb, SM_LB_SRC_DST_IP);
    assert_int_equal(cfg.quirks, SM_QUIRK_SUSPEND_INDIVIDUAL | SM_QUIRK_REQUIRE_AGGREGATION);
    assert_int_equal(cfg.aging_s, 60);
    assert_int_equal(cfg.n_ifs, 4);

    const struct sm_if_cfg *a = &cfg.ifs[0];
    assert_string_equal(a->name, "GigabitEthernet2/23");
    assert_string_equal(a->short_name, "Gi2/23");
    assert_int_equal(a->slot, 2);
    assert_int_equal(a->port, 23);
    assert_int_equal(a->line, 8);
    assert_string_equal(a->description, "to zvswitch OSA 28BA");
    assert_string_equal(a->attach, "sw-osa28ba");
    assert_int_equal(a->group, 1);
    assert_int_equal(a->mode, SM_CHAN_ACTIVE);
    assert_true(a->fast);
    assert_int_equal(a->port_priority, 200);
    assert_int_equal(a->rate_bps, 1000000000ull);
    assert_false(a->shutdown);
    assert_false(a->trunk);
    assert_int_equal(a->access_vlan, 1);

    const struct sm_if_cfg *b = &cfg.ifs[1];
    assert_string_equal(b->name, "GigabitEthernet2/24");
    assert_int_equal(b->line, 16);
    assert_int_equal(b->mode, SM_CHAN_PASSIVE);
    assert_false(b->fast);
    assert_int_equal(b->port_priority, 32768);
    assert_int_equal(b->rate_bps, 0);
    assert_true(b->shutdown);
    assert_string_equal(b->description, "");

    const struct sm_if_cfg *c = &cfg.ifs[2];
    assert_string_equal(c->short_name, "Gi3/1");
    assert_int_equal(c->group, 0);
    assert_int_equal(c->mode, SM_CHAN_NONE);
    assert_int_equal(c->access_vlan, 20);
    assert_int_equal(c->rate_bps, 1000000);

    const struct sm_if_cfg *d = &cfg.ifs[3];
    assert_string_equal(d->name, "GigabitEthernet3/2");
    assert_string_equal(d->attach, "sw-srv2");
    assert_true(d->trunk);
}

static void test_defaults(void **state)
{
    (void)state;
    assert_int_equal(sm_config_parse("interface Gi1/1\n attach x\n", "d", &cfg, err,
                                     sizeof(err)), 0);
    assert_string_equal(cfg.hostname, "Switch");
    assert_int_equal(cfg.system_priority, 32768);
    assert_int_equal(cfg.lb, SM_LB_SRC_DST_MAC);
    assert_int_equal(cfg.quirks, 0);
    assert_int_equal(cfg.aging_s, 300);
    assert_int_equal(cfg.n_ifs, 1);
}

/* Re-entering an interface adds to it, as IOS does. */
static void test_reenter(void **state)
{
    (void)state;
    assert_int_equal(sm_config_parse("interface Gi1/1\n attach x\ninterface Gi1/2\n attach y\n"
                                     "interface GigabitEthernet1/1\n lacp rate fast\n",
                                     "r", &cfg, err, sizeof(err)), 0);
    assert_int_equal(cfg.n_ifs, 2);
    assert_true(cfg.ifs[0].fast);
    assert_false(cfg.ifs[1].fast);
}

struct bad_case {
    const char *text;
    const char *msg;
};

static const struct bad_case bad[] = {
    { "hostname A\nfrobnicate 1\n", "t.conf:2: unknown command 'frobnicate'" },
    { "hostname\n", "t.conf:1: missing value after 'hostname'" },
    { "hostname a b\n", "t.conf:1: unexpected 'b'" },
    { "lacp system-priority 0\n", "t.conf:1: invalid value '0' for 'system-priority'" },
    { "lacp system-priority 65536\n", "t.conf:1: invalid value '65536' for 'system-priority'" },
    { "lacp quirk be-nice\n", "t.conf:1: invalid value 'be-nice' for 'quirk'" },
    { "lacp colour blue\n", "t.conf:1: unknown command 'lacp colour'" },
    { "port-channel load-balance round-robin\n",
      "t.conf:1: invalid value 'round-robin' for 'load-balance'" },
    { "interface Te1/1\n", "t.conf:1: invalid interface name 'Te1/1'" },
    { "interface Gi0/1\n", "t.conf:1: invalid interface name 'Gi0/1'" },
    { "interface Gi1/1\n attach a\n channel-group 9 mode active\n",
      "t.conf:3: invalid value '9' for 'channel-group'" },
    { "interface Gi1/1\n attach a\n channel-group 1 mode desirable\n",
      "t.conf:3: invalid value 'desirable' for 'mode'" },
    { "interface Gi1/1\n attach a\n channel-group 1\n", "t.conf:3: missing value after '1'" },
    { "interface Gi1/1\n attach a\n lacp rate slow\n", "t.conf:3: invalid value 'slow' for 'rate'" },
    { "interface Gi1/1\n attach a\n rate-limit 10x\n", "t.conf:3: invalid value '10x' for 'rate-limit'" },
    { "interface Gi1/1\n attach a\n rate-limit 1g 84000\n",
      "t.conf:3: invalid value '84000' for 'rate-limit'" },
    { "interface Gi1/1\n attach a\n rate-limit 1g 84000pps queue\n",
      "t.conf:3: missing value after 'queue'" },
    { "interface Gi1/1\n attach a\n rate-limit 1g queue 0\n",
      "t.conf:3: invalid value '0' for 'queue'" },
    { "interface Gi1/1\n attach a\n rate-limit 1g 84kpps queue 9 extra\n",
      "t.conf:3: unexpected 'extra'" },
    { "interface Gi1/1\n attach a\n switchport access vlan 4095\n",
      "t.conf:3: invalid value '4095' for 'vlan'" },
    { "attach a\n", "t.conf:1: 'attach' is valid only under an interface" },
    { "interface Gi1/1\n description\n", "t.conf:2: missing value after 'description'" },
    { "!\ninterface Gi1/1\n!\n", "t.conf:2: interface GigabitEthernet1/1 has no 'attach'" },
    { "interface Gi1/1\n attach a\ninterface Gi1/2\n attach a\n",
      "t.conf:3: attach 'a' already used by GigabitEthernet1/1" },
    { "interface Gi1/1\n attach a\n channel-group 1 mode on\n"
      "interface Gi1/2\n attach b\n channel-group 1 mode active\n",
      "t.conf:4: channel-group 1: mode 'active' of GigabitEthernet1/2 conflicts with mode 'on' of GigabitEthernet1/1" },
    { "interface Gi1/1\n attach a/b\n", "t.conf:2: invalid value 'a/b' for 'attach'" },
    { "interface Po1\n channel-group 1 mode on\n",
      "t.conf:2: 'channel-group' is valid only under an interface" },
};

/* The OSA port model: bits, frames both ways, a queue in frames; "no rate-limit" clears all. */
static void test_osa_port_model(void **state)
{
    (void)state;
    assert_int_equal(sm_config_parse("interface Gi2/23\n attach a\n rate-limit 1000mbps 84000pps queue 256\n"
                                     "interface Gi2/24\n attach b\n rate-limit 250m 21kpps\n"
                                     "interface Gi3/1\n attach c\n rate-limit 1g queue 64\n"
                                     " no rate-limit\n",
                                     "o", &cfg, err, sizeof(err)), 0);
    assert_int_equal(cfg.ifs[0].rate_bps, 1000000000ull);
    assert_int_equal(cfg.ifs[0].rate_fps, 84000);
    assert_int_equal(cfg.ifs[0].queue_frames, 256);
    assert_int_equal(cfg.ifs[1].rate_bps, 250000000ull);
    assert_int_equal(cfg.ifs[1].rate_fps, 21000);
    assert_int_equal(cfg.ifs[1].queue_frames, 0);
    assert_int_equal(cfg.ifs[2].rate_bps, 0);
    assert_int_equal(cfg.ifs[2].rate_fps, 0);
    assert_int_equal(cfg.ifs[2].queue_frames, 0);
}

static void test_errors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        int rc = sm_config_parse(bad[i].text, "t.conf", &cfg, err, sizeof(err));
        if (rc != -EINVAL || strcmp(err, bad[i].msg) != 0)
            fail_msg("case %zu: rc %d, message \"%s\", want \"%s\"", i, rc, err, bad[i].msg);
    }
}

static void test_ifnames(void **state)
{
    (void)state;
    uint8_t s = 0, p = 0;
    assert_int_equal(sm_ifname_parse("GigabitEthernet1/2", &s, &p), 0);
    assert_int_equal(s, 1);
    assert_int_equal(p, 2);
    assert_int_equal(sm_ifname_parse("gi10/48", &s, &p), 0);
    assert_int_equal(s, 10);
    assert_int_equal(p, 48);
    assert_int_equal(sm_ifname_parse("G1/1", &s, &p), -EINVAL);
    assert_int_equal(sm_ifname_parse("Gi1", &s, &p), -EINVAL);
    assert_int_equal(sm_ifname_parse("Gi1/", &s, &p), -EINVAL);
    assert_int_equal(sm_ifname_parse("Gi1/100", &s, &p), -EINVAL);
    assert_int_equal(sm_ifname_parse("Gx1/1", &s, &p), -EINVAL);
    assert_int_equal(sm_poname_parse("Port-channel1"), 1);
    assert_int_equal(sm_poname_parse("po8"), 8);
    assert_int_equal(sm_poname_parse("po9"), -EINVAL);
    assert_int_equal(sm_poname_parse("pc1"), -EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_reenter),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_osa_port_model),
        cmocka_unit_test(test_ifnames),
    };
    return cmocka_run_group_tests_name("switchmodel_config", tests, NULL, NULL);
}
