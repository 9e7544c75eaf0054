/* The watched names in the monitor file, on virtual time (hermetic.h): the daemon's
 * in-memory resolver driven through a record change, a server that goes and comes back,
 * and the monitor file read back with monitor/'s reader: the resolver's D15R1 counters
 * exact in every sample after the first name is watched (none before: a system that
 * watches no name writes the file it wrote before these records), and a D15R2 at the exact
 * instant of each change, failure and recovery, with the old and new addresses, TTL, state
 * and last error. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hermetic.h"
#include "daemon/daemon.h"
#include "monitor/monfile.h"
#include "monitor/monrec.h"
#include "names/resolver_mem.h"

static const char *const links[] = { "osa28ba", "osa2902", NULL };

static void set_peer(struct herm *h, const char *addr, uint32_t ttl)
{
    const char *a[] = { addr };
    assert_int_equal(zvs_resolver_mem_set(zvsd_resolver(h->d), "peer1.lab", a, 1, ttl), 0);
}

static size_t put_addrs(char *t, size_t cap, const struct zvs_mon_res_addr *a, unsigned n)
{
    size_t len = 0;
    if (!n)
        len += (size_t)snprintf(t + len, cap - len, " -");
    for (unsigned i = 0; i < n; i++)           /* IPv4 only in this test */
        len += (size_t)snprintf(t + len, cap - len, " %u.%u.%u.%u", a[i].addr[0],
                                a[i].addr[1], a[i].addr[2], a[i].addr[3]);
    return len;
}

/* One line per group naming the uplinks' and NICs' records, one line per record of ours. */
static void read_back(const char *path, char *text, size_t cap)
{
    int err = 0;
    struct zvs_mon_reader *rd = zvs_mon_reader_open(path, &err);
    struct zvs_mon_group g;
    struct zvs_mon_read_error e;
    size_t len = 0;

    assert_non_null(rd);
    while (zvs_mon_reader_next(rd, &g, &e) == 1) {
        uint64_t at_us = zvs_mon_tod_to_unix_us(g.tod) - HERM_WALL_US;
        len += (size_t)snprintf(text + len, cap - len, "%s %llu.%06llu",
                                g.sample ? "sample" : "event",
                                (unsigned long long)(at_us / 1000000),
                                (unsigned long long)(at_us % 1000000));
        for (unsigned i = 0; i < g.nrec; i++)
            if (g.rec[i].domain != ZVS_MON_DOMAIN_ZVS)
                len += (size_t)snprintf(text + len, cap - len, " %s",
                                        zvs_mon_record_name(g.rec[i].domain, g.rec[i].number));
        len += (size_t)snprintf(text + len, cap - len, "\n");
        for (unsigned i = 0; i < g.nrec; i++) {
            const struct zvs_mon_record *r = &g.rec[i];
            if (r->domain != ZVS_MON_DOMAIN_ZVS)
                continue;
            if (r->number == ZVS_MON_REC_D15R1) {
                const struct zvs_mon_resolver_activity *v = &r->u.res;
                len += (size_t)snprintf(text + len, cap - len,
                    "  D15R1 watched %u lookups %llu failures %llu bad %llu changes %llu "
                    "deferred %llu in flight %u\n", v->watched,
                    (unsigned long long)v->lookups, (unsigned long long)v->failures,
                    (unsigned long long)v->bad_answers, (unsigned long long)v->changes,
                    (unsigned long long)v->deferred, v->in_flight);
                continue;
            }
            const struct zvs_mon_resolver_event *v = &r->u.resev;
            len += (size_t)snprintf(text + len, cap - len,
                                    "  D15R2 %s event %u state %u error %u ttl %u old",
                                    v->name, v->event, v->state, v->last_error, v->ttl_s);
            len += put_addrs(text + len, cap - len, v->old, v->nold);
            len += (size_t)snprintf(text + len, cap - len, " new");
            len += put_addrs(text + len, cap - len, v->now, v->nnew);
            len += (size_t)snprintf(text + len, cap - len, "\n");
        }
    }
    assert_int_equal(e.record, 0);              /* the end, not a damaged group */
    zvs_mon_reader_close(rd);
}

static void resolver_counted_and_logged(void **state)
{
    struct herm_opts o = {
        .sysconfig = "configs/lab/SYSTEM-CCB.CONFIG",
        .userdirect = "tests/unit/hermetic/USER-CCB.DIRECT",
        .links = links, .partner_lacp = true, .console = true, .monitor_interval_s = 30,
    };
    struct herm *h = herm_start(&o);
    herm_report_sequence(h);
    herm_warp(h, 5.0);
    set_peer(h, "192.0.2.10", 30);
    herm_op(h, "RESOLVER WATCH PEER1.LAB");     /* asked at 5 s, answered 1 ms later */
    herm_warp(h, 31.0);
    set_peer(h, "192.0.2.20", 30);              /* seen at the lookup after the TTL: 35 s */
    herm_warp(h, 61.0);
    /* the server goes: the lookup at 65.002 s times out 5 s later, the address stays */
    zvs_resolver_mem_down(zvsd_resolver(h->d), true, 5 * HERM_S);
    herm_warp(h, 71.0);
    /* it returns: the retry one backoff step (1 s) after the failure answers */
    zvs_resolver_mem_down(zvsd_resolver(h->d), false, 0);
    herm_warp(h, 95.0);
    char path[128], dir[64];
    snprintf(path, sizeof path, "%s", h->mon_path);
    snprintf(dir, sizeof dir, "%s", h->dir);
    h->keep_monitor = true;
    herm_stop(h);                               /* its last sample: at 95 s */

    char text[4096];
    read_back(path, text, sizeof text);
    unlink(path);
    rmdir(dir);
    /* Event codes: 0 changed, 1 failing, 2 recovered; states: 1 resolved, 2 retrying;
     * error 3: timeout (monitor/RECORDS.md, D15R2). */
    assert_string_equal(text,
        "sample 0.000000\n"                      /* before the uplinks and the NIC */
        "event 0.250000 D8R2\n"
        "event 2.000000 D6R23\n"
        "event 2.000000 D6R23\n"
        "event 5.001000\n"
        "  D15R2 peer1.lab event 0 state 1 error 0 ttl 30 old - new 192.0.2.10\n"
        "sample 30.000000 D6R21 D6R21 D8R1\n"
        "  D15R1 watched 1 lookups 1 failures 0 bad 0 changes 1 deferred 0 in flight 0\n"
        "event 35.002000\n"
        "  D15R2 peer1.lab event 0 state 1 error 0 ttl 30 old 192.0.2.10 new 192.0.2.20\n"
        "sample 60.000000 D6R21 D6R21 D8R1\n"
        "  D15R1 watched 1 lookups 2 failures 0 bad 0 changes 2 deferred 0 in flight 0\n"
        "event 70.002000\n"
        "  D15R2 peer1.lab event 1 state 2 error 3 ttl 30 old 192.0.2.20 new 192.0.2.20\n"
        "event 71.003000\n"                      /* the last error stays until the next */
        "  D15R2 peer1.lab event 2 state 1 error 3 ttl 30 old 192.0.2.20 new 192.0.2.20\n"
        "sample 90.000000 D6R21 D6R21 D8R1\n"
        "  D15R1 watched 1 lookups 4 failures 1 bad 0 changes 2 deferred 0 in flight 0\n"
        "sample 95.000000 D6R21 D6R21 D8R1\n"
        "  D15R1 watched 1 lookups 4 failures 1 bad 0 changes 2 deferred 0 in flight 0\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(resolver_counted_and_logged),
    };
    return cmocka_run_group_tests_name("daemon_names_monitor", tests, NULL, NULL);
}
