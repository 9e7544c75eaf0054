/* The daemon's name layer on virtual time (hermetic.h): RESOLVER WATCH through the console's
 * executor, the in-memory resolver the daemon uses on a virtual loop (zvsd_resolver), the
 * record changed and seen in QUERY RESOLVER at the answer after the TTL's exact instant,
 * the server gone (retrying, the last address kept) and back within one backoff step, the
 * operator told each step on the console (ZVSRES1202I/0004W/0005I), refusals of bad names,
 * and the LACP group undisturbed throughout (a LACPDU every second on each link). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hermetic.h"
#include "daemon/daemon.h"
#include "names/resolver_mem.h"

static const char *const links[] = { "osa28ba", "osa2902", NULL };

static struct herm *start(void)
{
    struct herm_opts o = {
        .sysconfig = "configs/lab/SYSTEM-CCB.CONFIG",
        .userdirect = "tests/unit/hermetic/USER-CCB.DIRECT",
        .links = links, .partner_lacp = true, .console = true,
    };
    struct herm *h = herm_start(&o);
    herm_report_sequence(h);
    return h;
}

static void contains(const char *text, const char *want)
{
    if (!strstr(text, want))
        fail_msg("\"%s\" not in:\n%s", want, text);
}

static void set_peer(struct herm *h, const char *addr, uint32_t ttl)
{
    const char *a[] = { addr };
    assert_int_equal(zvs_resolver_mem_set(zvsd_resolver(h->d), "peer1.lab", a, 1, ttl), 0);
}

static void watched_name_follows_its_record(void **state)
{
    struct herm *h = start();
    int op = herm_console_attach(h, "OPERATOR", "ABCDEFG");
    herm_warp(h, 5.0);
    herm_console_read(h, op);
    contains(herm_op(h, "QUERY RESOLVER"), "Resolver: in memory");
    assert_int_equal(zvs_resolver_mem_queries(zvsd_resolver(h->d)), 0);
    set_peer(h, "192.0.2.10", 30);
    contains(herm_op(h, "RESOLVER WATCH PEER1.LAB"), "Command complete");
    herm_warp(h, 5.1);                              /* asked at 5 s, answered 1 ms later */
    const char *q = herm_op(h, "QUERY RESOLVER");
    contains(q, "Resolver: in memory");
    contains(q, "Name: peer1.lab  state: resolved  TTL: 30  next lookup in 30 s");
    contains(q, "  Addresses: 192.0.2.10");
    assert_string_equal(herm_console_read(h, op),
        "5.001s ZVSRES1202I Name peer1.lab resolves to 192.0.2.10 (was no address)\n");

    /* the record changes: seen at the first lookup after the TTL, 35.001 s */
    set_peer(h, "192.0.2.20", 30);
    herm_warp(h, 35.0);
    contains(herm_op(h, "QUERY RESOLVER"), "  Addresses: 192.0.2.10");
    herm_warp(h, 35.0 + 0.002);
    contains(herm_op(h, "QUERY RESOLVER"), "  Addresses: 192.0.2.20");
    assert_string_equal(herm_console_read(h, op),
        "35.002s ZVSRES1202I Name peer1.lab resolves to 192.0.2.20 (was 192.0.2.10)\n");

    /* the server goes: at 65.002 s the lookup times out 5 s later; the address stays */
    zvs_resolver_mem_down(zvsd_resolver(h->d), true, 5 * HERM_S);
    herm_warp(h, 71.0);
    q = herm_op(h, "QUERY RESOLVER");
    contains(q, "state: retrying");
    contains(q, "  Addresses: 192.0.2.20");
    contains(q, "  Last error: timeout");
    assert_string_equal(herm_console_read(h, op),
        "70.002s ZVSRES1203W Name peer1.lab cannot be resolved: timeout; last addresses "
        "kept, retrying\n");
    /* it returns: the retry one backoff step (1 s) after the failure succeeds */
    zvs_resolver_mem_down(zvsd_resolver(h->d), false, 0);
    herm_warp(h, 71.1);
    herm_op(h, "RESOLVER WATCH 198.51.100.7");
    herm_golden("resolver_query.txt", herm_op(h, "QUERY RESOLVER"));     /* the shape */
    assert_string_equal(herm_console_read(h, op),
        "71.003s ZVSRES1204I Name peer1.lab resolves again to 192.0.2.20\n"
        "71.100s ZVSRES1202I Name 198.51.100.7 resolves to 198.51.100.7 (was no address)\n");
    herm_op(h, "RESOLVER UNWATCH 198.51.100.7");

    /* the group never noticed: a LACPDU every second on each link (fast timeout) */
    assert_true(herm_link(h, "osa28ba")->lacpdu_rx >= 70);
    assert_true(herm_link(h, "osa2902")->lacpdu_rx >= 70);

    /* the counters report carries the resolver's totals */
    char *rep = NULL;
    size_t replen = 0;
    FILE *f = open_memstream(&rep, &replen);
    zvsd_report(h->d, f);
    fclose(f);
    contains(rep, "Resolver:\n  Names: 1  lookups: 4  failures: 1  changes: 3");
    free(rep);

    contains(herm_op(h, "RESOLVER UNWATCH peer1.lab."), "Command complete");
    assert_null(strstr(herm_op(h, "QUERY RESOLVER"), "peer1.lab"));
    close(op);
    herm_stop(h);
}

static void bad_names_refused(void **state)
{
    struct herm *h = start();
    char line[400];
    int rc;
    const char *t = herm_cp(h, "OPERATOR", "ABCDEFG", "RESOLVER WATCH BAD_NAME", &rc);
    assert_int_equal(rc, 1105);
    contains(t, "ZVSCMD1105E Invalid WATCH value - BAD_NAME; valid: CHARACTER NOT ALLOWED");
    snprintf(line, sizeof line, "RESOLVER WATCH %0300d", 0);
    herm_cp(h, "OPERATOR", "ABCDEFG", line, &rc);
    assert_int_equal(rc, 1105);
    snprintf(line, sizeof line, "RESOLVER WATCH %064d.lab", 0);
    t = herm_cp(h, "OPERATOR", "ABCDEFG", line, &rc);
    assert_int_equal(rc, 1105);
    contains(t, "LABEL LONGER THAN 63 CHARACTERS");
    herm_cp(h, "OPERATOR", "ABCDEFG", "RESOLVER WATCH", &rc);
    assert_int_equal(rc, 26);
    herm_cp(h, "LNXA", "G", "RESOLVER WATCH PEER1.LAB", &rc);
    assert_int_equal(rc, 1100);                     /* class B */
    herm_op(h, "RESOLVER WATCH PEER1.LAB");
    t = herm_cp(h, "OPERATOR", "ABCDEFG", "RESOLVER WATCH peer1.lab.", &rc);
    assert_int_equal(rc, 1200);
    contains(t, "ZVSRES1200E Name PEER1.LAB is already watched");
    t = herm_cp(h, "OPERATOR", "ABCDEFG", "RESOLVER UNWATCH PEER2.LAB", &rc);
    assert_int_equal(rc, 1201);
    contains(t, "ZVSRES1201E Name PEER2.LAB is not watched");
    /* an address literal is watched as resolved, never looked up */
    herm_op(h, "RESOLVER WATCH 198.51.100.7");
    herm_warp(h, 1.0);
    contains(herm_op(h, "QUERY RESOLVER"),
             "Name: 198.51.100.7  state: resolved  (an address)\n  Addresses: 198.51.100.7");
    assert_int_equal(zvs_resolver_mem_queries(zvsd_resolver(h->d)), 1);   /* peer1 only */
    herm_stop(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(watched_name_follows_its_record),
        cmocka_unit_test(bad_names_refused),
    };
    return cmocka_run_group_tests_name("daemon_names", tests, NULL, NULL);
}
