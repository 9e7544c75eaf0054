/* corosync.conf from the IVL domain's configuration (ivl/corosync_conf.c): the written
 * text line for line (three systems; two with auto_tie_breaker), refusals, and the check
 * of an existing file: what it reads (comments, sections it does not know, corosync's
 * default token) and each difference it names. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "ivl/corosync_conf.h"

static struct zvs_cs_conf three(void)
{
    struct zvs_cs_conf c = {
        .cluster_name = "GLOBVSW", .token_ms = 1000, .nnodes = 3,
        .node = { { 1, "ZVMA", "192.168.77.1" }, { 2, "ZVMB", "192.168.77.2" },
                  { 3, "ZVMC", "fd00::3" } },
        .keyfile = "/etc/zvswitch/corosync/authkey",
        .state_dir = "/var/lib/zvswitch/corosync",
    };
    return c;
}

static const char want_three[] =
    "# Written by vswitchd from SYSTEM CONFIG (the IVL domain of GLOBVSW).\n"
    "# Edit SYSTEM CONFIG and write it again rather than edit this file.\n"
    "totem {\n"
    "    version: 2\n"
    "    cluster_name: GLOBVSW\n"
    "    transport: knet\n"
    "    token: 1000\n"
    "    token_coefficient: 0\n"
    "    keyfile: /etc/zvswitch/corosync/authkey\n"
    "    crypto_cipher: aes256\n"
    "    crypto_hash: sha256\n"
    "    interface {\n"
    "        linknumber: 0\n"
    "    }\n"
    "}\n"
    "nodelist {\n"
    "    node {\n"
    "        name: ZVMA\n"
    "        nodeid: 1\n"
    "        ring0_addr: 192.168.77.1\n"
    "    }\n"
    "    node {\n"
    "        name: ZVMB\n"
    "        nodeid: 2\n"
    "        ring0_addr: 192.168.77.2\n"
    "    }\n"
    "    node {\n"
    "        name: ZVMC\n"
    "        nodeid: 3\n"
    "        ring0_addr: fd00::3\n"
    "    }\n"
    "}\n"
    "quorum {\n"
    "    provider: corosync_votequorum\n"
    "}\n"
    "system {\n"
    "    sched_rr: no\n"
    "    state_dir: /var/lib/zvswitch/corosync\n"
    "}\n"
    "logging {\n"
    "    to_syslog: yes\n"
    "    to_stderr: no\n"
    "}\n";

static void writes_three_systems(void **state)
{
    struct zvs_cs_conf c = three();
    char buf[4096];
    int n = zvs_cs_conf_write(&c, buf, sizeof buf);
    assert_int_equal(n, (int)strlen(want_three));
    assert_string_equal(buf, want_three);
    assert_int_equal(zvs_cs_conf_write(&c, buf, (size_t)n), -ENOSPC);
    assert_int_equal(zvs_cs_conf_write(&c, buf, (size_t)n + 1), n);
    char why[512];
    assert_int_equal(zvs_cs_conf_check(buf, (size_t)n, &c, why, sizeof why), 0);
    assert_string_equal(why, "");
}

static void two_systems_get_auto_tie_breaker(void **state)
{
    struct zvs_cs_conf c = three();
    c.nnodes = 2;
    char buf[4096];
    int n = zvs_cs_conf_write(&c, buf, sizeof buf);
    assert_true(n > 0);
    assert_non_null(strstr(buf, "quorum {\n    provider: corosync_votequorum\n"
                                "    auto_tie_breaker: 1\n    auto_tie_breaker_node: lowest\n}\n"));
    assert_int_equal(zvs_cs_conf_check(buf, (size_t)n, &c, NULL, 0), 0);
    /* the same file without it is named */
    char *atb = strstr(buf, "    auto_tie_breaker: 1\n");
    memcpy(atb, "    auto_tie_breaker: 0\n", 24);
    char why[512];
    assert_int_equal(zvs_cs_conf_check(buf, (size_t)n, &c, why, sizeof why), 1);
    assert_non_null(strstr(why, "quorum.auto_tie_breaker is 0"));
}

static void refuses_what_corosync_would(void **state)
{
    char buf[4096];
    struct zvs_cs_conf c = three();
    c.node[2].nodeid = 1;
    assert_int_equal(zvs_cs_conf_write(&c, buf, sizeof buf), -EINVAL);
    c = three();
    c.node[1].addr[0] = '\0';
    assert_int_equal(zvs_cs_conf_write(&c, buf, sizeof buf), -EINVAL);
    c = three();
    c.token_ms = 0;
    assert_int_equal(zvs_cs_conf_write(&c, buf, sizeof buf), -EINVAL);
    c = three();
    c.nnodes = 0;
    assert_int_equal(zvs_cs_conf_write(&c, buf, sizeof buf), -EINVAL);
}

static void check_names_each_difference(void **state)
{
    struct zvs_cs_conf c = three();
    static const char text[] =
        "# an operator's own file\n"
        "totem {\n"
        "    version: 2\n"
        "    crypto_hash: none   # no authentication\n"
        "    interface {\n"
        "        knet_link_priority: 1\n"
        "        deeper {\n"
        "            more {\n"
        "                token: 5\n"
        "            }\n"
        "        }\n"
        "    }\n"
        "}\n"
        "nodelist {\n"
        "  node {\n"
        "    ring0_addr: 192.168.77.1\n"
        "    nodeid: 1\n"
        "  }\n"
        "  node {\n"
        "    ring0_addr: 192.168.77.9\n"
        "    nodeid: 2\n"
        "  }\n"
        "}\n";
    char why[1024];
    unsigned n = zvs_cs_conf_check(text, sizeof text - 1, &c, why, sizeof why);
    /* token (default 3000), crypto, provider, sched_rr, node count, node 2, node 3 */
    assert_int_equal(n, 7);
    assert_non_null(strstr(why, "totem.token is 3000 ms, HEARTBEAT TIMEOUT is 1000 ms\n"));
    assert_non_null(strstr(why, "totem.crypto_hash is none"));
    assert_non_null(strstr(why, "quorum.provider is not set"));
    assert_non_null(strstr(why, "system.sched_rr is not set"));
    assert_non_null(strstr(why, "nodelist has 2 node(s), the domain 3 system(s)"));
    assert_non_null(strstr(why, "nodeid 2 (ZVMB) has ring0_addr 192.168.77.9, the IVL "
                                "address is 192.168.77.2"));
    assert_non_null(strstr(why, "nodelist has no nodeid 3 (ZVMC)"));
    /* a short buffer still counts every difference */
    char tiny[16];
    assert_int_equal(zvs_cs_conf_check(text, sizeof text - 1, &c, tiny, sizeof tiny), 7);
    assert_true(strlen(tiny) < sizeof tiny);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(writes_three_systems),
        cmocka_unit_test(two_systems_get_auto_tie_breaker),
        cmocka_unit_test(refuses_what_corosync_would),
        cmocka_unit_test(check_names_each_difference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
