/* The report's sequence against the modelled Catalyst 6509 (hermetic.h, switch-model
 * mode): the real daemon and the switch model (tests/switchmodel, the lab's
 * configs/switchmodel/lab6509.conf: Gi2/23 and Gi2/24 in channel-group 1 mode active,
 * lacp rate fast, port-channel load-balance dst-mac; servers on Gi3/1 and Gi3/2) on one
 * virtual loop, cabled with dummy links. LACP between the two implementations converges
 * at exactly 2 s (Aggregate_Wait_Time, 802.1AX 6.4.15); a guest reaches a server through
 * the port-channel and the server's answer comes back by the member the Catalyst's
 * dst-mac hash picks; the model's "shutdown Gi2/24" is a carrier loss the daemon hears
 * in that instant, "no shutdown" re-converges exactly 2 s later and the member takes its
 * buckets back through a Marker flush the model answers. Both sides' views are golden
 * files (tests/golden/hermetic/sm_*.txt).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hermetic.h"
#include "daemon/daemon.h"
#include "lag/lag.h"
#include "lag/pgroup.h"

static const char *const links[] = { "osa28ba", "osa2902", NULL };
static const char *const lan[] = { "sw-srv1", "sw-srv2", NULL };
static const uint8_t MAC_A[6] = { 0x02, 0x00, 0x0c, 0x00, 0x01, 0x01 };   /* LNXA F000 */
static const uint8_t SRV1[6] = { 0x00, 0x50, 0x56, 0x00, 0x00, 0x01 };    /* bucket 01 */

/* The daemon on the CCB files (osa28ba, osa2902) against the switch model configured by
 * conf, cabled with dummy links, servers on sw-srv1 and sw-srv2. */
static struct herm *start_against(const char *conf)
{
    struct herm_opts o = {
        .sysconfig = "configs/lab/SYSTEM-CCB.CONFIG",
        .userdirect = "tests/unit/hermetic/USER-CCB.DIRECT",
        .links = links, .switchmodel = conf, .lan = lan,
    };
    return herm_start(&o);
}

static const struct zvs_pgroup *group(struct herm *h)
{
    struct zvs_lag *lag = zvsd_port_group(h->d, "CCBGROUP");
    assert_non_null(lag);
    return zvs_lag_group(lag);
}

static int distributing(struct herm *h)
{
    return (int)zvs_pgroup_distributing(group(h));
}

static const char *model_ok(struct herm *h, const char *line)
{
    int rc;
    const char *out = herm_model(h, line, &rc);
    if (rc != 0)
        fail_msg("switch model: '%s': %d: %s", line, rc, out);
    return out;
}

static void report_sequence_against_the_modelled_catalyst(void **state)
{
    struct herm *h = start_against("configs/switchmodel/lab6509.conf");
    struct herm_guest *a = herm_report_sequence(h);
    struct herm_link *srv1 = herm_link(h, "sw-srv1"), *srv2 = herm_link(h, "sw-srv2");

    /* Both sides active and fast: bundled exactly at 2 s. */
    herm_warp_ns(h, 2 * HERM_S - 1);
    assert_int_equal(distributing(h), 0);
    herm_warp_ns(h, 2 * HERM_S);
    assert_int_equal(distributing(h), 2);
    herm_golden("sm_etherchannel_2.000s.txt", model_ok(h, "show etherchannel summary"));
    herm_golden("sm_lacp_neighbor_2.000s.txt", model_ok(h, "show lacp neighbor"));
    herm_golden("sm_port_group_2.000s.txt", herm_op(h, "QUERY PORT GROUP CCBGROUP"));

    /* LNXA -> server 1: bucket 01 is 2902's, so Gi2/24 receives it; the Catalyst does not
     * know SRV1 yet and floods it to both servers. The answer goes back by the member
     * the dst-mac hash of LNXA's MAC picks (Gi2/24). */
    uint8_t f[98];
    herm_frame(f, sizeof f, SRV1, MAC_A, 1);
    herm_guest_send(h, a, f, sizeof f, 1);
    assert_int_equal(srv1->data_rx, 1);
    assert_int_equal(srv2->data_rx, 1);
    assert_memory_equal(srv1->last, f, sizeof f);
    herm_frame(f, sizeof f, MAC_A, SRV1, 2);
    herm_link_send(h, "sw-srv1", f, sizeof f);
    assert_int_equal(herm_guest_receive(h, a), 1);
    herm_golden("sm_mac_table_2.000s.txt", model_ok(h, "show mac address-table"));
    herm_golden("sm_counters_2.000s.txt", model_ok(h, "show interfaces counters"));

    /* 5 s: the Catalyst shuts Gi2/24. The daemon hears the carrier loss in this instant
     * (the dummy link's event) and 2902's buckets fail over to 28BA. */
    herm_warp(h, 5.0);
    model_ok(h, "shutdown Gi2/24");
    assert_int_equal(herm_now_ns(h), 5 * HERM_S);
    assert_int_equal(distributing(h), 1);
    assert_int_equal(zvs_pgroup_stats(group(h))->failover_moves, 128);
    herm_golden("sm_port_group_shut_5.000s.txt", herm_op(h, "QUERY PORT GROUP CCBGROUP"));
    herm_golden("sm_etherchannel_shut_5.000s.txt", model_ok(h, "show etherchannel summary"));
    /* Bucket 01 now leaves by 28BA; the Catalyst knows SRV1 now: no flood. */
    herm_frame(f, sizeof f, SRV1, MAC_A, 3);
    herm_guest_send(h, a, f, sizeof f, 1);
    assert_int_equal(srv1->data_rx, 2);
    assert_int_equal(srv2->data_rx, 1);

    /* 10 s: no shutdown. Both engines start again, wait_while 2 s: bundled at 12 s, and
     * 2902 takes 128 buckets back through one Marker on 28BA, which the model answers. */
    herm_warp(h, 10.0);
    model_ok(h, "no shutdown Gi2/24");
    herm_warp_ns(h, 12 * HERM_S - 1);
    assert_int_equal(distributing(h), 1);
    herm_warp_ns(h, 12 * HERM_S);
    assert_int_equal(distributing(h), 2);
    const struct zvs_pg_stats *st = zvs_pgroup_stats(group(h));
    assert_int_equal(st->marker_flushes, 128);
    assert_int_equal(st->marker_timeouts, 0);
    herm_golden("sm_port_group_restored_12.000s.txt", herm_op(h, "QUERY PORT GROUP CCBGROUP"));
    herm_golden("sm_etherchannel_restored_12.000s.txt",
                model_ok(h, "show etherchannel summary"));
    herm_stop(h);
}

/* LEAVE against the modelled Catalyst: our final LACPDU (out of sync, Individual) makes
 * the switch take Gi2/24 out of Po1 in the instant of the command, rather than at its
 * short timeout 3 s later with every frame it hashed onto the link meanwhile lost. */
static void leave_unbundles_at_once(void **state)
{
    struct herm *h = start_against("configs/switchmodel/lab6509.conf");
    herm_op(h, "SET PORT GROUP CCBGROUP JOIN 28BA 2902");
    herm_op(h, "DEFINE VSWITCH CCBVSW1 ETHERNET GROUP CCBGROUP QUEUESTORAGE 1M");
    herm_warp(h, 5.0);
    assert_int_equal(distributing(h), 2);
    assert_non_null(strstr(model_ok(h, "show etherchannel summary"), "Gi2/24(P)"));
    herm_op(h, "SET PORT GROUP CCBGROUP LEAVE 2902");
    assert_int_equal(herm_now_ns(h), 5 * HERM_S);  /* no time passed */
    const char *out = model_ok(h, "show etherchannel summary");
    assert_null(strstr(out, "Gi2/24(P)"));
    assert_non_null(strstr(out, "Gi2/23(P)"));
    herm_golden("sm_etherchannel_leave_5.000s.txt", out);
    herm_stop(h);
}

/* The switch model's shapers on the virtual loop (tests/switchmodel/sm_switch.c), with the
 * OSA port model on the members and a ceiling of 10,000 frames/s on server 1's port
 * (tests/unit/hermetic/lab6509-shaped.conf). A frame that enters a shaped port and leaves
 * by a shaped port served earlier in the same pass is written in that instant (it used
 * to wait for the next unrelated event); a burst over the ceiling leaves at the ceiling,
 * the bucket's 64 frames at once and then within the tokens at every step. */
static void shapers_release_in_the_instant_and_at_the_ceiling(void **state)
{
    struct herm *h = start_against("tests/unit/hermetic/lab6509-shaped.conf");
    struct herm_guest *a = herm_report_sequence(h);
    herm_warp(h, 2.0);
    assert_int_equal(distributing(h), 2);

    /* The model learns LNXA's MAC on Po1. */
    uint8_t f[98];
    herm_frame(f, sizeof f, SRV1, MAC_A, 1);
    herm_guest_send(h, a, f, sizeof f, 1);
    herm_warp(h, 3.0);                  /* the frame bucket is full again */

    /* Server 1 (Gi3/1, shaped) to LNXA through Gi2/23 or Gi2/24, shaped and served
     * before Gi3/1 in the pass: delivered with no time passing. */
    herm_frame(f, sizeof f, MAC_A, SRV1, 2);
    herm_link_send(h, "sw-srv1", f, sizeof f);
    assert_int_equal(herm_now_ns(h), 3 * HERM_S);
    assert_int_equal(herm_guest_receive(h, a), 1);

    /* LNXA sends 100 frames to server 1 at once: they leave Gi3/1 at its ceiling, the 64
     * frames of the bucket (full again a second after the two frames above) at once, then
     * the rest at the ceiling, a few at each wakeup. */
    herm_warp(h, 4.0);
    const uint64_t t0 = 4 * HERM_S;
    struct herm_link *srv1 = herm_link(h, "sw-srv1");
    uint64_t rx0 = srv1->data_rx;
    herm_frame(f, sizeof f, SRV1, MAC_A, 100);
    herm_guest_blast(h, a, f, sizeof f, 100);
    assert_int_equal(srv1->data_rx - rx0, 64);
    /* From then on the tokens decide: by t, at most 64 + t x 10,000/s frames, and at
     * least the tokens of t less one tick (a wakeup comes at most 200 us after a token). */
    for (uint64_t us = 50; us <= 3800; us += 50) {
        herm_warp_ns(h, t0 + us * 1000);
        uint64_t got = srv1->data_rx - rx0, most = 64 + us / 100;
        uint64_t least = 64 + (us > 200 ? (us - 200) / 100 : 0);
        if (most > 100)
            most = 100;
        if (least > 100)
            least = 100;
        if (got > most || got < least)
            fail_msg("at %" PRIu64 " us: %" PRIu64 " frames, not %" PRIu64 "..%" PRIu64, us, got,
                     least, most);
    }
    assert_int_equal(srv1->data_rx - rx0, 100);     /* the last 36 within 3.6 ms + a tick */
    herm_warp_ns(h, t0 + 10000000);
    assert_int_equal(srv1->data_rx - rx0, 100);
    herm_stop(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(report_sequence_against_the_modelled_catalyst),
        cmocka_unit_test(leave_unbundles_at_once),
        cmocka_unit_test(shapers_release_in_the_instant_and_at_the_ceiling),
    };
    return cmocka_run_group_tests_name("daemon_switchmodel", tests, NULL, NULL);
}
