/* The real daemon's port group on virtual time (hermetic.h): LACP convergence and a
 * silent partner's expiry at exact instants (802.1AX 6.4.4 timers: fast periodic 1 s,
 * slow periodic 30 s, short timeout 3 s, long timeout 90 s), failover when a member's
 * carrier goes, and the monitor sampler's records read back with monitor/'s reader.
 * QUERY responses at each instant are golden files (tests/golden/hermetic/lacp_*.txt).
 */
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
#include "monitor/monfile.h"
#include "monitor/monrec.h"

static const char *const links[] = { "osa28ba", "osa2902", NULL };

static struct herm *group_start(bool partner_long, uint32_t monitor_s)
{
    struct herm_opts o = {
        .sysconfig = "configs/lab/SYSTEM-CCB.CONFIG",
        .userdirect = "tests/unit/hermetic/USER-CCB.DIRECT",
        .links = links, .partner_lacp = true, .partner_long_timeout = partner_long,
        .monitor_interval_s = monitor_s,
    };
    struct herm *h = herm_start(&o);
    herm_report_group(h);
    return h;
}

static int distributing(struct herm *h)
{
    const char *out = herm_op(h, "QUERY PORT GROUP CCBGROUP");
    const char *p = strstr(out, "Distributing: ");
    assert_non_null(p);
    return atoi(p + strlen("Distributing: "));
}

/* Both sides Active and fast: distributing on both members exactly at 2 s (the
 * Aggregate_Wait_Time of the Mux, 6.4.15), not a nanosecond earlier. */
static void converges_at_exactly_2s(void **state)
{
    struct herm *h = group_start(false, 0);
    herm_warp_ns(h, 2 * HERM_S - 1);
    assert_int_equal(distributing(h), 0);
    herm_warp_ns(h, 2 * HERM_S);
    assert_int_equal(distributing(h), 2);
    /* Fast periodic: each side sends one LACPDU a second once in sync. */
    struct herm_link *l = herm_link(h, "osa28ba");
    uint64_t c0 = l->lacpdu_rx;
    herm_warp(h, 12.0);
    assert_int_equal(l->lacpdu_rx - c0, 10);
    herm_stop(h);
}

/* The partner falls silent on 28BA at 10 s (its engine's drop_tx knob): the daemon's
 * current_while (short timeout, 3 s after the last LACPDU) expires exactly then and 28BA
 * stops distributing; 3 s later it is DEFAULTED. */
static void silent_partner_expires_after_3s(void **state)
{
    struct herm *h = group_start(false, 0);
    herm_warp(h, 10.0);
    struct herm_link *l = herm_link(h, "osa28ba");
    struct zvs_lacp_faults f = { .drop_tx = true };
    zvs_lacp_port_set_faults(&l->engine, &f, HERM_T0 + herm_now_ns(h));
    uint64_t last = zvs_lacp_port_stats(&l->engine)->last_tx_ns - HERM_T0;
    assert_int_equal(last, 10 * HERM_S);        /* its periodic PDU of 10 s went out */
    herm_warp_ns(h, last + 3 * HERM_S - 1);
    assert_int_equal(distributing(h), 2);
    herm_warp_ns(h, last + 3 * HERM_S);
    assert_int_equal(distributing(h), 1);
    herm_golden("lacp_expired_13.000s.txt", herm_op(h, "QUERY PORT GROUP CCBGROUP"));
    herm_warp_ns(h, last + 6 * HERM_S);
    herm_golden("lacp_defaulted_16.000s.txt", herm_op(h, "QUERY LACP CCBGROUP DETAILS"));
    herm_stop(h);
}

/* The partner asks for slow PDUs (long timeout): the daemon's periodic machine sends every
 * 30 s (SLOW_PERIODIC). When the daemon falls silent (the operator's SET LACP DROPTX),
 * the partner keeps it for the long timeout, 90 s, and expires it exactly then. */
static void long_timeout_slow_periodic_and_90s_expiry(void **state)
{
    struct herm *h = group_start(true, 0);
    herm_warp(h, 5.0);
    assert_int_equal(distributing(h), 2);
    struct herm_link *l = herm_link(h, "osa28ba");
    uint64_t c0 = l->lacpdu_rx;
    herm_warp(h, 95.0);
    assert_int_equal(l->lacpdu_rx - c0, 3);     /* 90 s of SLOW_PERIODIC */
    herm_op(h, "SET LACP 28BA DROPTX ON");
    uint64_t last = zvs_lacp_port_stats(&l->engine)->last_rx_ns - HERM_T0;
    herm_warp_ns(h, last + 90 * HERM_S - 1);
    assert_int_equal(zvs_lacp_port_rx_state(&l->engine), ZVS_LACP_RX_CURRENT);
    herm_warp_ns(h, last + 90 * HERM_S);
    assert_int_equal(zvs_lacp_port_rx_state(&l->engine), ZVS_LACP_RX_EXPIRED);
    herm_golden("lacp_partner_expired_90s.txt", herm_op(h, "QUERY PORT GROUP CCBGROUP"));
    herm_stop(h);
}

/* A member's cable is cut: in the same iteration its buckets move to the other member
 * (failover moves), and QUERY PORT GROUP shows it down with no buckets. */
static void failover_moves_buckets_in_the_same_iteration(void **state)
{
    struct herm *h = group_start(false, 0);
    herm_warp(h, 10.0);
    herm_cut(h, "osa2902", false);
    assert_int_equal(herm_now_ns(h), 10 * HERM_S);  /* no time passed */
    herm_golden("lacp_failover_10.000s.txt", herm_op(h, "QUERY PORT GROUP CCBGROUP"));
    herm_stop(h);
}

/* LEAVE of a formed member, against a partner with the long timeout (it would keep the
 * link 90 s after the last LACPDU it heard): the partner receives our final LACPDU in the
 * same instant as the command, out of sync and Individual, and takes the link out of its
 * port-channel at once; the other member is untouched, and the one that left sends
 * nothing more. Then LACP INACTIVE says the same on the remaining member. */
static const uint8_t final_2902[124] = {
    0x01, 0x80, 0xC2, 0x00, 0x00, 0x02,             /* Slow_Protocols_Multicast */
    0x02, 0x00, 0x76, 0xB6, 0x89, 0xE9,             /* osa2902's MAC (the dummy link's) */
    0x88, 0x09, 0x01, 0x01,                         /* Slow Protocols, LACP, version 1 */
    0x01, 0x14, 0x80, 0x00,                         /* Actor: priority 32768 */
    0x02, 0x00, 0x0C, 0x00, 0x00, 0x00,             /* the VSWITCH's system MAC */
    0x00, 0x01, 0x80, 0x00, 0x29, 0x02,             /* key 1, port 32768,0x2902 */
    0x03, 0x00, 0x00, 0x00,                         /* ACT STO; AGG SYN COL DIS clear */
    0x02, 0x14, 0x80, 0x00,                         /* Partner: the port-channel ... */
    0x00, 0x1B, 0x2B, 0x65, 0x09, 0x00,
    0x00, 0x64, 0x80, 0x00, 0x01, 0x02,             /* key 100, port 32768,0x0102 */
    0x3D, 0x00, 0x00, 0x00,                         /* ... as last heard: in sync, long */
    0x03, 0x10, 0x00, 0x00,                         /* Collector, max delay 0 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00,                                     /* Terminator; 50 reserved zeros */
};

static void leave_tells_the_partner_at_once(void **state)
{
    struct herm *h = group_start(true, 0);
    herm_warp(h, 10.0);
    assert_int_equal(distributing(h), 2);
    struct herm_link *l = herm_link(h, "osa2902"), *k = herm_link(h, "osa28ba");
    assert_true(zvs_lacp_port_is_distributing(&l->engine));
    uint64_t rx = l->lacpdu_rx;
    assert_true(l->last_lacpdu_ns < 10 * HERM_S);  /* slow periodic: nothing due at 10 s */

    herm_op(h, "SET PORT GROUP CCBGROUP LEAVE 2902");
    assert_int_equal(herm_now_ns(h), 10 * HERM_S);  /* no time passed */
    assert_int_equal(l->lacpdu_rx, rx + 1);
    assert_int_equal(l->last_lacpdu_ns, 10 * HERM_S);
    assert_int_equal(l->last_lacpdu_len, sizeof final_2902);
    assert_memory_equal(l->last_lacpdu, final_2902, sizeof final_2902);
    /* The partner's port-channel lets go of the link now, not at 10 s + 90 s. */
    assert_int_equal(zvs_lacp_port_selected(&l->engine), ZVS_LACP_UNSELECTED);
    assert_int_equal(zvs_lacp_port_mux_state(&l->engine), ZVS_LACP_MUX_DETACHED);
    assert_false(zvs_lacp_port_is_collecting(&l->engine));
    assert_true(zvs_lacp_port_is_distributing(&k->engine));
    assert_int_equal(distributing(h), 1);
    herm_warp(h, 20.0);
    assert_int_equal(l->lacpdu_rx, rx + 1);         /* gone: nothing more on that link */
    assert_true(zvs_lacp_port_is_distributing(&k->engine));

    /* LACP INACTIVE stops the engine of every member: each says goodbye the same way. */
    rx = k->lacpdu_rx;
    herm_op(h, "SET PORT GROUP CCBGROUP LACP INACTIVE");
    assert_int_equal(k->lacpdu_rx, rx + 1);
    assert_int_equal(k->last_lacpdu_ns, 20 * HERM_S);
    assert_int_equal(k->last_lacpdu[14 + 2 + 2 + 14], 0x03);   /* actor state */
    assert_int_equal(zvs_lacp_port_mux_state(&k->engine), ZVS_LACP_MUX_DETACHED);
    herm_stop(h);
}

/* The monitor sampler: a baseline sample at start, then one every interval with the
 * counters exact, stamped with the virtual wall clock; the last at shutdown. */
static void monitor_samples_each_interval(void **state)
{
    struct herm *h = group_start(false, 60);
    herm_op(h, "SET VSWITCH CCBVSW1 GRANT LNXA");
    herm_op(h, "SET VSWITCH CCBVSW1 GRANT LNXB");
    herm_op(h, "COUPLE USERID LNXA F000 TO SYSTEM CCBVSW1");
    herm_op(h, "COUPLE USERID LNXB F000 TO SYSTEM CCBVSW1");
    struct herm_guest *a = herm_guest_attach(h, "LNXA", 0xF000);
    struct herm_guest *b = herm_guest_attach(h, "LNXB", 0xF000);
    herm_warp(h, 30.0);
    static const uint8_t ma[6] = { 0x02, 0x00, 0x0c, 0x00, 0x01, 0x01 };
    static const uint8_t mb[6] = { 0x02, 0x00, 0x0c, 0x00, 0x01, 0x0a };
    uint8_t f[98];
    herm_frame(f, sizeof f, mb, ma, 1);
    herm_guest_send(h, a, f, sizeof f, 5);
    assert_int_equal(herm_guest_receive(h, b), 5);
    herm_warp(h, 125.0);
    char path[128], dir[64];
    snprintf(path, sizeof path, "%s", h->mon_path);
    snprintf(dir, sizeof dir, "%s", h->dir);
    h->keep_monitor = true;
    herm_stop(h);                               /* its last sample: at 125 s */

    int err = 0;
    struct zvs_mon_reader *rd = zvs_mon_reader_open(path, &err);
    assert_non_null(rd);
    struct zvs_mon_group g;
    struct zvs_mon_read_error e;
    char text[4096];
    size_t len = 0;
    int samples = 0;
    while (zvs_mon_reader_next(rd, &g, &e) == 1) {
        uint64_t at_us = zvs_mon_tod_to_unix_us(g.tod) - HERM_WALL_US;
        len += (size_t)snprintf(text + len, sizeof text - len, "%s at %llu.%06llu s: %u records\n",
                                g.sample ? "sample" : "event", (unsigned long long)(at_us / 1000000),
                                (unsigned long long)(at_us % 1000000), g.nrec);
        samples += g.sample;
        for (unsigned i = 0; i < g.nrec; i++) {
            const struct zvs_mon_record *r = &g.rec[i];
            if (r->number == ZVS_MON_REC_D6R21)    /* IPTIMEOUT 5 minutes: 10 ticks of 30 s */
                assert_int_equal(r->u.vsw.iptimeout_ticks, 10);
            if (r->number == ZVS_MON_REC_D8R1 && r->domain == ZVS_MON_DOMAIN_NET)
                len += (size_t)snprintf(text + len, sizeof text - len,
                                        "  D8R1 %.8s %04X tx %llu/%llu rx %llu/%llu\n",
                                        r->u.vnic.owner, r->u.vnic.vdev,
                                        (unsigned long long)r->u.vnic.tx_packets,
                                        (unsigned long long)r->u.vnic.tx_bytes,
                                        (unsigned long long)r->u.vnic.rx_packets,
                                        (unsigned long long)r->u.vnic.rx_bytes);
            else if (r->number == ZVS_MON_REC_D6R21)
                len += (size_t)snprintf(text + len, sizeof text - len,
                                        "  D6R21 %04X distributing %u buckets %u lacpdus tx %u rx %u\n",
                                        r->u.vsw.rdev, r->u.vsw.distributing, r->u.vsw.buckets,
                                        r->u.vsw.lacpdus_tx, r->u.vsw.lacpdus_rx);
            else
                len += (size_t)snprintf(text + len, sizeof text - len, "  D%uR%u\n",
                                        r->domain, r->number);
        }
    }
    zvs_mon_reader_close(rd);
    unlink(path);
    rmdir(dir);
    /* Baseline at 0, then 60, 120, and the last at shutdown (125). */
    assert_int_equal(samples, 4);
    herm_golden("monitor_records.txt", text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(converges_at_exactly_2s),
        cmocka_unit_test(silent_partner_expires_after_3s),
        cmocka_unit_test(long_timeout_slow_periodic_and_90s_expiry),
        cmocka_unit_test(failover_moves_buckets_in_the_same_iteration),
        cmocka_unit_test(leave_tells_the_partner_at_once),
        cmocka_unit_test(monitor_samples_each_interval),
    };
    return cmocka_run_group_tests_name("daemon_lacp", tests, NULL, NULL);
}
