/* The real daemon's INTERVAL pass on virtual time (hermetic.h): a guest's skewed load onto
 * one member's buckets, the pass at exactly INTERVAL (30 s, the report's SET PORT GROUP
 * CCBGROUP INTERVAL 30) moving a bucket through a Marker flush (802.1AX 6.5.4: the
 * partner's Marker Responder answers at the same instant, so the move completes in the
 * pass's own iteration) and the frames of that bucket leaving by the other member from then
 * on. The moves are read from the group's bucket map before and after; QUERY PORT GROUP
 * after the pass is a golden file (tests/golden/hermetic/interval_*.txt).
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

/* Hosts beyond the Catalyst: the last byte is the bucket (Distribution DST). */
static void outside(uint8_t mac[6], uint8_t last)
{
    static const uint8_t base[6] = { 0x00, 0x1b, 0x2b, 0xaa, 0x00, 0x00 };
    memcpy(mac, base, 6);
    mac[5] = last;
}

static const struct zvs_pgroup *group(struct herm *h)
{
    struct zvs_lag *lag = zvsd_port_group(h->d, "CCBGROUP");
    assert_non_null(lag);
    return zvs_lag_group(lag);
}

/* The member slot each bucket is bound to now. */
static void snapshot(struct herm *h, uint8_t slot[ZVS_PG_BUCKETS])
{
    memcpy(slot, zvs_pgroup_map(group(h))->bucket_slot, ZVS_PG_BUCKETS);
}

/* "BB:from->to" for every bucket whose member changed, in bucket order. */
static const char *moves(struct herm *h, const uint8_t before[ZVS_PG_BUCKETS],
                         const uint8_t after[ZVS_PG_BUCKETS])
{
    static char text[1024];
    size_t len = 0;
    text[0] = 0;
    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++) {
        if (before[b] == after[b])
            continue;
        const struct zvs_pg_member *f = zvs_pgroup_member(group(h), before[b]);
        const struct zvs_pg_member *t = zvs_pgroup_member(group(h), after[b]);
        len += (size_t)snprintf(text + len, sizeof text - len, "%s%02X:%s->%s",
                                len ? " " : "", b, f ? f->rdev : "-", t ? t->rdev : "-");
    }
    return text;
}

static int slot_of_rdev(struct herm *h, const char *rdev)
{
    for (unsigned s = 0; s < ZVS_PG_MAX_MEMBERS; s++) {
        const struct zvs_pg_member *m = zvs_pgroup_member(group(h), s);
        if (m && strcmp(m->rdev, rdev) == 0)
            return (int)s;
    }
    fail_msg("no member %s", rdev);
    return -1;
}

/* 1514-byte frames (MTU 1500). The LOAD policy moves only when the busiest member carries
 * at least 1 % of its speed (10 Gbit/s: 100 Mbit/s over the 30 s), so the skew is
 * 8 units of UNIT frames on 28BA's buckets 10, 12, 14, 16 (4:2:1:1), 106 Mbit/s in all.
 * The plan moves the bucket closest to half the difference (4 units: bucket 10) and stops
 * at 4:4, a ratio of 1.0. */
#define FRAME 1514
#define UNIT  33000

static void skewed_load_moves_one_bucket_at_the_interval(void **state)
{
    struct herm_guest *a;
    struct herm *h = herm_start_report(&a);
    herm_warp(h, 5.0);
    int s28ba = slot_of_rdev(h, "28BA"), s2902 = slot_of_rdev(h, "2902");
    uint8_t before[ZVS_PG_BUCKETS], after[ZVS_PG_BUCKETS];
    snapshot(h, before);
    /* The idle layout: bucket b on the (b mod 2)-th distributing member. */
    for (unsigned b = 0x10; b <= 0x16; b += 2)
        assert_int_equal(before[b], s28ba);
    assert_int_equal(before[0x11], s2902);

    static const struct { uint8_t bucket; int units; } load[] = {
        { 0x10, 4 }, { 0x12, 2 }, { 0x14, 1 }, { 0x16, 1 },
    };
    uint8_t f[FRAME], dst[6];
    struct herm_link *l28 = herm_link(h, "osa28ba"), *l29 = herm_link(h, "osa2902");
    for (unsigned i = 0; i < sizeof load / sizeof load[0]; i++) {
        outside(dst, load[i].bucket);
        herm_frame(f, sizeof f, dst, MAC_A, i);
        herm_guest_blast(h, a, f, sizeof f, load[i].units * UNIT);
    }
    assert_int_equal(l28->data_rx, 8ull * UNIT);
    assert_int_equal(l29->data_rx, 0);

    herm_warp_ns(h, 30 * HERM_S - 1);
    const struct zvs_pg_stats *st = zvs_pgroup_stats(group(h));
    assert_int_equal(st->passes, 0);
    snapshot(h, after);
    assert_string_equal(moves(h, before, after), "");

    herm_warp_ns(h, 30 * HERM_S);
    snapshot(h, after);
    assert_string_equal(moves(h, before, after), "10:28BA->2902");
    assert_int_equal(st->passes, 1);
    assert_int_equal(st->moves, 1);
    assert_int_equal(st->marker_flushes, 1);
    assert_int_equal(st->marker_timeouts, 0);
    assert_int_equal(st->marker_unsent, 0);
    assert_int_equal(zvs_pgroup_pending_moves(group(h)), 0);
    assert_int_equal(l28->markers_answered, 1);     /* one Marker, on the old member */
    assert_int_equal(l29->markers_answered, 0);
    herm_golden("interval_pass_30.000s.txt", herm_op(h, "QUERY PORT GROUP CCBGROUP"));

    /* Bucket 10's conversation now leaves by 2902, the others stay. */
    outside(dst, 0x10);
    herm_frame(f, sizeof f, dst, MAC_A, 99);
    herm_guest_send(h, a, f, sizeof f, 1);
    assert_int_equal(l29->data_rx, 1);
    outside(dst, 0x12);
    herm_frame(f, sizeof f, dst, MAC_A, 100);
    herm_guest_send(h, a, f, sizeof f, 1);
    assert_int_equal(l28->data_rx, 8ull * UNIT + 1);

    /* The next pass, at 60 s, finds the two balanced (4:4 units, decayed alike): none. */
    herm_warp_ns(h, 60 * HERM_S);
    assert_int_equal(st->passes, 2);
    assert_int_equal(st->moves, 1);
    herm_stop(h);
}

/* The report's second FCX240 picture (POLICY LOAD TOTAL, the default): the partner puts
 * inbound (8 units) on 28BA, our outbound is even, one unit on each of buckets 10-17 (the
 * even ones on 28BA, the odd ones on 2902). Totals 12:4 units; each step moves the 28BA
 * bucket closest to half the gap: 10 (11:5), 12 (10:6), 14 (9:7), 16 (8:8), so after the
 * pass at 30 s 28BA carries the inbound and 2902 all the outbound. With POLICY LOAD
 * OUTBOUND the outbound is 4:4 and the same load moves nothing. IN_UNIT is the inbound
 * unit in frames: 28BA's total must reach 1 % of 10 Gbit/s over the 30 s. */
#define IN_UNIT 24000

static void inbound_load(struct herm *h, struct herm_guest *a)
{
    static const uint8_t far_host[6] = { 0x00, 0x1b, 0x2b, 0xaa, 0x00, 0x80 };
    uint8_t f[FRAME], dst[6];
    for (uint8_t b = 0x10; b <= 0x17; b++) {
        outside(dst, b);
        herm_frame(f, sizeof f, dst, MAC_A, b);
        herm_guest_blast(h, a, f, sizeof f, IN_UNIT);
    }
    herm_frame(f, sizeof f, MAC_A, far_host, 0);
    for (int i = 0; i < 8 * IN_UNIT; i++)
        herm_link_send(h, "osa28ba", f, sizeof f);
}

static void total_moves_outbound_off_the_inbound_port(void **state)
{
    struct herm_guest *a;
    struct herm *h = herm_start_report(&a);
    herm_warp(h, 5.0);
    int s28ba = slot_of_rdev(h, "28BA");
    uint8_t before[ZVS_PG_BUCKETS], after[ZVS_PG_BUCKETS];
    snapshot(h, before);
    assert_int_equal(before[0x10], s28ba);
    assert_int_equal(zvs_pgroup_params(group(h))->load, ZVS_PG_LOAD_TOTAL);
    inbound_load(h, a);
    struct herm_link *l28 = herm_link(h, "osa28ba"), *l29 = herm_link(h, "osa2902");
    assert_int_equal(l28->data_rx, 4ull * IN_UNIT);
    assert_int_equal(l29->data_rx, 4ull * IN_UNIT);

    herm_warp_ns(h, 30 * HERM_S - 1);
    snapshot(h, after);
    assert_string_equal(moves(h, before, after), "");
    herm_warp_ns(h, 30 * HERM_S);
    snapshot(h, after);
    assert_string_equal(moves(h, before, after),
                        "10:28BA->2902 12:28BA->2902 14:28BA->2902 16:28BA->2902");
    const struct zvs_pg_stats *st = zvs_pgroup_stats(group(h));
    assert_int_equal(st->passes, 1);
    assert_int_equal(st->moves, 4);
    assert_int_equal(st->marker_flushes, 4);
    assert_int_equal(l28->markers_answered, 1);     /* one Marker for the four */
    herm_golden("interval_total_30.000s.txt", herm_op(h, "QUERY PORT GROUP CCBGROUP"));
    herm_stop(h);
}

static void outbound_only_ignores_inbound(void **state)
{
    struct herm_guest *a;
    struct herm *h = herm_start_report(&a);
    herm_op(h, "SET PORT GROUP CCBGROUP POLICY LOAD OUTBOUND");
    assert_int_equal(zvs_pgroup_params(group(h))->load, ZVS_PG_LOAD_OUTBOUND);
    herm_warp(h, 5.0);
    uint8_t before[ZVS_PG_BUCKETS], after[ZVS_PG_BUCKETS];
    snapshot(h, before);
    inbound_load(h, a);
    herm_warp_ns(h, 30 * HERM_S);
    snapshot(h, after);
    assert_string_equal(moves(h, before, after), "");
    assert_int_equal(zvs_pgroup_stats(group(h))->passes, 1);
    assert_int_equal(zvs_pgroup_stats(group(h))->moves, 0);
    herm_golden("interval_outbound_30.000s.txt", herm_op(h, "QUERY PORT GROUP CCBGROUP"));
    herm_stop(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(skewed_load_moves_one_bucket_at_the_interval),
        cmocka_unit_test(total_moves_outbound_off_the_inbound_port),
        cmocka_unit_test(outbound_only_ignores_inbound),
    };
    return cmocka_run_group_tests_name("daemon_interval", tests, NULL, NULL);
}
