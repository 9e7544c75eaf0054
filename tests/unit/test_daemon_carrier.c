/* Carrier events of the real daemon's uplinks on virtual time (hermetic.h): a member's
 * cable cut and restored on a dummy link, the daemon hearing both through the link's own
 * event (dummy.h: the near end's doorbell and ops->link_poll, fed to ops->link_event as
 * a netlink event is for an AF_PACKET uplink). Cut: the member's buckets fail over in
 * that instant. Restore: port_enabled (802.1AX 6.4.7) starts the member again, LACPDUs
 * are exchanged at once, the Mux waits Aggregate_Wait_Time (2 s, 6.4.15) and the member
 * distributes exactly 2 s after the restore, taking its share of buckets back: through
 * a Marker flush on the member that holds them when the group has carried traffic,
 * at once when it is idle (nothing to reorder). QUERY PORT GROUP before and after are
 * golden files (tests/golden/hermetic/carrier_*.txt).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hermetic.h"
#include "daemon/daemon.h"
#include "lag/lag.h"
#include "lag/pgroup.h"

static const uint8_t MAC_A[6] = { 0x02, 0x00, 0x0c, 0x00, 0x01, 0x01 };   /* LNXA F000 */

static struct zvs_lag *lag_of(struct herm *h)
{
    struct zvs_lag *lag = zvsd_port_group(h->d, "CCBGROUP");
    assert_non_null(lag);
    return lag;
}

static const struct zvs_pg_stats *pg_stats(struct herm *h)
{
    return zvs_pgroup_stats(zvs_lag_group(lag_of(h)));
}

static unsigned buckets(struct herm *h, unsigned slot)
{
    return zvs_pgroup_member(zvs_lag_group(lag_of(h)), slot)->buckets;
}

/* The daemon's Mux state of the member in `slot` (0: 28BA, 1: 2902). */
static enum zvs_lacp_mux_state mux(struct herm *h, unsigned slot)
{
    return zvs_lacp_port_mux_state(zvs_lag_member_lacp(lag_of(h), slot));
}

static void snapshot(struct herm *h, uint8_t slot[ZVS_PG_BUCKETS])
{
    memcpy(slot, zvs_pgroup_map(zvs_lag_group(lag_of(h)))->bucket_slot, ZVS_PG_BUCKETS);
}

/* Cut 2902 at 10 s, restore it at 20 s; with `traffic`, a guest's frame to an outside
 * host (bucket 10, on 28BA) at 5 s makes the group busy. */
static void cut_and_restore(bool traffic)
{
    struct herm_guest *a;
    struct herm *h = herm_start_report(&a);
    struct herm_link *l28 = herm_link(h, "osa28ba"), *l29 = herm_link(h, "osa2902");
    herm_warp(h, 5.0);
    assert_int_equal(zvs_pgroup_distributing(zvs_lag_group(lag_of(h))), 2);
    uint8_t layout[ZVS_PG_BUCKETS], now_map[ZVS_PG_BUCKETS];
    snapshot(h, layout);
    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++)
        assert_int_equal(layout[b], b % 2);     /* the idle layout: even 28BA, odd 2902 */
    if (traffic) {
        uint8_t f[98], dst[6] = { 0x00, 0x1b, 0x2b, 0xaa, 0x00, 0x10 };
        herm_frame(f, sizeof f, dst, MAC_A, 1);
        herm_guest_send(h, a, f, sizeof f, 1);
        assert_int_equal(l28->data_rx, 1);
    }

    /* Cut: heard in this instant, before any transmit could find the link gone. */
    herm_warp(h, 10.0);
    herm_cut(h, "osa2902", false);
    assert_int_equal(herm_now_ns(h), 10 * HERM_S);
    assert_int_equal(zvs_lag_stats(lag_of(h))->slow_tx_fail, 0);
    assert_int_equal(pg_stats(h)->failover_moves, 128);
    assert_int_equal(buckets(h, 0), 256);
    assert_int_equal(buckets(h, 1), 0);
    assert_int_equal(mux(h, 1), ZVS_LACP_MUX_DETACHED);
    herm_golden("carrier_cut_10.000s.txt", herm_op(h, "QUERY PORT GROUP CCBGROUP"));

    /* Ten seconds down: nothing crosses the cut (the partner's engine is disabled too). */
    uint64_t pdus = l29->lacpdu_rx;
    herm_warp(h, 20.0);
    assert_int_equal(l29->lacpdu_rx, pdus);
    assert_int_equal(mux(h, 1), ZVS_LACP_MUX_DETACHED);

    /* Restore at 20 s: the daemon's engine is enabled in this instant and sends a LACPDU
     * (NTT), the partner's too; both select and the Mux starts wait_while. */
    herm_cut(h, "osa2902", true);
    assert_int_equal(herm_now_ns(h), 20 * HERM_S);
    assert_int_equal(l29->lacpdu_rx, pdus + 1);
    assert_int_equal(mux(h, 1), ZVS_LACP_MUX_WAITING);
    assert_int_equal(zvs_lacp_port_mux_state(&l29->engine), ZVS_LACP_MUX_WAITING);
    herm_warp(h, 21.0);
    assert_int_equal(l29->lacpdu_rx, pdus + 2);     /* fast periodic, 1 s */
    herm_warp_ns(h, 22 * HERM_S - 1);
    assert_int_equal(mux(h, 1), ZVS_LACP_MUX_WAITING);
    assert_int_equal(buckets(h, 1), 0);
    uint64_t joins = pg_stats(h)->membership_moves;

    /* 22 s: Aggregate_Wait_Time over on both sides; attached, in sync, distributing. The
     * periodic PDU and one per Mux step: 3 more LACPDUs in this instant. */
    herm_warp_ns(h, 22 * HERM_S);
    assert_int_equal(mux(h, 1), ZVS_LACP_MUX_DISTRIBUTING);
    assert_int_equal(zvs_lacp_port_mux_state(&l29->engine), ZVS_LACP_MUX_DISTRIBUTING);
    assert_int_equal(l29->lacpdu_rx, pdus + 5);
    assert_int_equal(buckets(h, 0), 128);
    assert_int_equal(buckets(h, 1), 128);
    assert_int_equal(pg_stats(h)->membership_moves - joins, 128);
    /* It takes back the very buckets it had: the lightest, then those b mod 2 gives it. */
    snapshot(h, now_map);
    assert_memory_equal(now_map, layout, ZVS_PG_BUCKETS);
    if (traffic) {
        /* Busy: one Marker on 28BA for the 128 moves, answered in the same instant. */
        assert_int_equal(l28->markers_answered, 1);
        assert_int_equal(pg_stats(h)->marker_flushes, 128);
        herm_golden("carrier_restored_22.000s.txt", herm_op(h, "QUERY PORT GROUP CCBGROUP"));
    } else {
        /* Idle: laid out again at once, no Marker. */
        assert_int_equal(l28->markers_answered, 0);
        assert_int_equal(pg_stats(h)->marker_flushes, 0);
        herm_golden("carrier_restored_idle_22.000s.txt",
                    herm_op(h, "QUERY PORT GROUP CCBGROUP"));
    }
    assert_int_equal(pg_stats(h)->marker_timeouts, 0);
    herm_stop(h);
}

static void restored_member_takes_its_buckets_back_through_a_flush(void **state)
{
    cut_and_restore(true);
}

static void restored_member_of_an_idle_group_takes_them_at_once(void **state)
{
    cut_and_restore(false);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(restored_member_takes_its_buckets_back_through_a_flush),
        cmocka_unit_test(restored_member_of_an_idle_group_takes_them_at_once),
    };
    return cmocka_run_group_tests_name("daemon_carrier", tests, NULL, NULL);
}
