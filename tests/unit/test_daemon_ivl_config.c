/* The IVL domain's configuration on the real daemon (hermetic harness): a TYPE IVL switch
 * and a Global VSWITCH from SYSTEM CONFIG, what QUERY VSWITCH says of each, and the
 * domain's commands through the console's executor: SET PORT GROUP ... SHARED (accepted
 * for the Global VSWITCH's group), SET VSWITCH ivlsw IVLPORT HEARTBEAT TIMEOUT (the IVL
 * switch only). No cluster is given to this harness, so the domain runs alone
 * (test_daemon_ivl.c runs it against the in-memory twin): SHARED gives the group the
 * domain's port numbers and System ID, its members negotiate LACP again under them, and the
 * group aggregates alone. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "hermetic.h"

static const char *const ivl_links[] = { "ivl0", "osa28ba", "osa2902", NULL };

static struct herm *ivl_start(void)
{
    struct herm_opts o = {
        .sysconfig = "tests/unit/hermetic/SYSTEM-IVL.CONFIG",
        .userdirect = "tests/unit/hermetic/USER-CCB.DIRECT",
        .links = ivl_links,
        .partner_lacp = true,
    };
    return herm_start(&o);
}

static void test_query_global_and_ivl(void **state)
{
    struct herm *h = ivl_start();
    const char *t = herm_op(h, "QUERY VSWITCH IVLVSW");
    assert_non_null(strstr(t, "VSWITCH SYSTEM IVLVSW   Type: IVL     Connected:"));
    assert_non_null(strstr(t, "  PORTBASED   LOCAL\n"));
    t = herm_op(h, "QUERY VSWITCH GLOBSW");
    assert_non_null(strstr(t, "VSWITCH SYSTEM GLOBSW   Type: QDIO    Connected:"));
    assert_non_null(strstr(t, "  USERBASED   GLOBAL\n"));
    herm_stop(h);
}

static void test_domain_commands(void **state)
{
    struct herm *h = ivl_start();
    herm_warp(h, 5);                    /* the group aggregates (alone) */
    assert_string_equal(herm_op(h, "SET PORT GROUP GG LACP ACTIVE SHARED"), "Command complete");
    assert_string_equal(herm_op(h, "SET VSWITCH IVLVSW IVLPORT HEARTBEAT TIMEOUT 4"),
                        "Command complete");
    int rc;
    const char *t = herm_cp(h, "OPERATOR", "ABCDEFG",
                            "SET VSWITCH GLOBSW IVLPORT HEARTBEAT TIMEOUT 4", &rc);
    assert_int_equal(rc, 1262);
    assert_string_equal(t, "ZVSIVL1262E VSWITCH GLOBSW is not TYPE IVL: IVLPORT belongs to"
                           " the IVL switch");
    herm_warp(h, 10);                   /* LACP again under the domain's identity */
    t = herm_op(h, "QUERY PORT GROUP GG");
    assert_non_null(strstr(t, "Members: 2  Distributing: 2"));
    assert_non_null(strstr(t, "  IVL domain: A  Status: ALONE (NO IVL DOMAIN CONFIGURED)"));
    herm_stop(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_query_global_and_ivl),
        cmocka_unit_test(test_domain_commands),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
