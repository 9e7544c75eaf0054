/* Link aggregation wired into the switch (lag/lag.c): two switches back to back over two
 * memlink cables, each with a two-port group, on virtual time. Asserts negotiation, the
 * collecting/distributing gates, MAC-suffix distribution, failover inside the carrier call,
 * static groups, the RDEV fallback and bad Slow Protocols input. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fake_port.h"
#include "lacp/pdu.h"
#include "lag/lag.h"
#include "backends/memlink.h"
#include "lag/pgroup.h"
#include "dataplane/switch.h"

#define MS   1000000ull
#define SEC  1000000000ull
#define T0   (1000 * SEC)                /* virtual time starts far from 0 */

static const uint8_t SYS_A[6] = { 0x02, 0x00, 0x0A, 0x00, 0x00, 0x00 };
static const uint8_t SYS_B[6] = { 0x02, 0x00, 0x0B, 0x00, 0x00, 0x00 };
static const uint8_t MAC_GA[6] = { 0x02, 0x00, 0x0A, 0x00, 0x01, 0x10 };   /* guest on A */
/* Guests on B: suffixes 0x01 and 0x02 land in different buckets and, with two members
 * spread b mod 2, on different ports. */
static const uint8_t MAC_G1[6] = { 0x02, 0x00, 0x0B, 0x00, 0x01, 0x01 };
static const uint8_t MAC_G2[6] = { 0x02, 0x00, 0x0B, 0x00, 0x01, 0x02 };

struct side {
    struct zvs_switch *sw;
    struct zvs_lag    *lag;
    struct zvs_port   *m[2];            /* members, cabled to the other side's m[i] */
    struct fake_port  *g[2];            /* guests */
    struct fake_port  *rdev;            /* optional fallback RDEV */
};

struct bb {
    struct side a, b;
    uint64_t    now;
};

static struct zvs_guest guest(const char *owner, const uint8_t *mac)
{
    struct zvs_guest g = { .vdev = 0xF000 };
    strcpy(g.owner, owner);
    memcpy(g.mac, mac, 6);
    zvs_vlan_port_init(&g.vlan, ZVS_VLAN_ACCESS, ZVS_VID_NONE);
    return g;
}

static void side_init(struct side *s, const char *name, const uint8_t sys[6], bool lacp,
                      uint64_t now)
{
    struct zvs_switch_params p = { .vlan = { .aware = false } };
    snprintf(p.name, sizeof p.name, "%s", name);
    s->sw = zvs_switch_create(&p);
    assert_non_null(s->sw);
    struct zvs_lag_params lp = { .pg = { .name = "ETHGRP", .lacp = lacp } };
    memcpy(lp.system, sys, 6);
    s->lag = zvs_lag_create(s->sw, &lp, now);
    assert_non_null(s->lag);
}

static void side_join(struct side *s, const uint8_t sys[6], uint64_t now)
{
    static const char *rdevs[2] = { "28BA", "2902" };
    for (int i = 0; i < 2; i++) {
        uint8_t mac[6];
        memcpy(mac, sys, 6);
        mac[5] = (uint8_t)(0x80 + i);
        assert_int_equal(zvs_lag_join(s->lag, s->m[i], rdevs[i], mac, 1000, now), i);
    }
}

static void bb_setup(struct bb *t, bool lacp_a, bool lacp_b)
{
    memset(t, 0, sizeof *t);
    t->now = T0;
    side_init(&t->a, "VSWA", SYS_A, lacp_a, t->now);
    side_init(&t->b, "VSWB", SYS_B, lacp_b, t->now);
    for (int i = 0; i < 2; i++)
        assert_int_equal(zvs_memlink_pair(i ? "A2902" : "A28BA", i ? "B2902" : "B28BA",
                                          64, 0, &t->a.m[i], &t->b.m[i]), 0);
    side_join(&t->a, SYS_A, t->now);
    side_join(&t->b, SYS_B, t->now);
    t->a.g[0] = fake_port_new("LNXA.F000", ZVS_CAP_CSUM | ZVS_CAP_GSO, 1500);
    t->b.g[0] = fake_port_new("LNX1.F000", ZVS_CAP_CSUM | ZVS_CAP_GSO, 1500);
    t->b.g[1] = fake_port_new("LNX2.F000", ZVS_CAP_CSUM | ZVS_CAP_GSO, 1500);
    struct zvs_guest ga = guest("LNXA", MAC_GA), g1 = guest("LNX1", MAC_G1),
                     g2 = guest("LNX2", MAC_G2);
    assert_int_equal(zvs_switch_add_guest(t->a.sw, &t->a.g[0]->port, &ga), 0);
    assert_int_equal(zvs_switch_add_guest(t->b.sw, &t->b.g[0]->port, &g1), 0);
    assert_int_equal(zvs_switch_add_guest(t->b.sw, &t->b.g[1]->port, &g2), 0);
}

static void side_fini(struct side *s, uint64_t now)
{
    zvs_lag_destroy(s->lag, now);
    zvs_switch_destroy(s->sw);
}

static void bb_teardown(struct bb *t)
{
    side_fini(&t->a, t->now);
    side_fini(&t->b, t->now);
}

/* Deliver everything on the wires, then run due timers on both sides. */
static void side_step(struct side *s, uint64_t now)
{
    for (int i = 0; i < 2; i++)
        if (s->m[i] && zvs_lag_is_member(s->lag, s->m[i]))
            while (zvs_switch_poll(s->sw, s->m[i], now) > 0)
                ;
    if (zvs_lag_next_wakeup(s->lag) <= now)
        zvs_lag_run(s->lag, now);
}

/* Advance virtual time in 10 ms steps up to `until`. */
static void pump_until(struct bb *t, uint64_t until)
{
    for (; t->now <= until; t->now += 10 * MS) {
        side_step(&t->a, t->now);
        side_step(&t->b, t->now);
        side_step(&t->a, t->now);
    }
    t->now -= 10 * MS;
}

static bool both_distributing(const struct bb *t)
{
    return zvs_pgroup_distributing(zvs_lag_group(t->a.lag)) == 2 &&
           zvs_pgroup_distributing(zvs_lag_group(t->b.lag)) == 2;
}

/* Frame from A's guest to `dst`, 100 bytes of payload. */
static void guest_send(struct bb *t, const uint8_t *dst, int count)
{
    uint8_t buf[128];
    memcpy(buf, dst, 6);
    memcpy(buf + 6, MAC_GA, 6);
    buf[12] = 0x08;
    buf[13] = 0x00;
    for (int i = 14; i < 114; i++)
        buf[i] = (uint8_t)i;
    for (int i = 0; i < count; i++) {
        struct zvs_frame f = { .data = buf, .len = 114 };
        zvs_switch_input(t->a.sw, &t->a.g[0]->port, &f, 1, t->now);
    }
}

static void cut(struct bb *t, int link, bool up)
{
    zvs_memlink_set_carrier(t->a.m[link], up);
    zvs_memlink_set_carrier(t->b.m[link], up);
    t->a.m[link]->carrier = up;
    t->b.m[link]->carrier = up;
    zvs_switch_set_carrier(t->a.sw, t->a.m[link], up);
    zvs_lag_carrier(t->a.lag, t->a.m[link], up, t->now);
    zvs_switch_set_carrier(t->b.sw, t->b.m[link], up);
    zvs_lag_carrier(t->b.lag, t->b.m[link], up, t->now);
}

static void test_lacp_converges_after_aggregate_wait(void **state)
{
    struct bb t;
    bb_setup(&t, true, true);
    /* Nothing distributes before the 2 s Aggregate_Wait_Time has run. */
    pump_until(&t, T0 + 1900 * MS);
    assert_int_equal(zvs_pgroup_distributing(zvs_lag_group(t.a.lag)), 0);
    uint64_t done = 0;
    for (uint64_t end = T0 + 5 * SEC; t.now <= end && !done; ) {
        pump_until(&t, t.now + 10 * MS);
        if (both_distributing(&t))
            done = t.now;
    }
    assert_true(done >= T0 + 2 * SEC);
    assert_true(done <= T0 + 3 * SEC);
    for (unsigned i = 0; i < 2; i++) {
        const struct zvs_lacp_port *lp = zvs_lag_member_lacp(t.a.lag, i);
        assert_non_null(lp);
        uint8_t st = zvs_lacp_port_actor(lp)->state;
        assert_int_equal(st & 0x3F, ZVS_LACP_STATE_ACTIVITY | ZVS_LACP_STATE_TIMEOUT |
                         ZVS_LACP_STATE_AGGREGATION | ZVS_LACP_STATE_SYNC |
                         ZVS_LACP_STATE_COLLECTING | ZVS_LACP_STATE_DISTRIBUTING);
        const struct zvs_lacp_info *pi = zvs_lacp_port_partner(lp);
        assert_memory_equal(pi->system, SYS_B, 6);
        assert_int_equal(pi->port, i ? 0x2902 : 0x28BA);
    }
    assert_int_equal(zvs_lag_stats(t.a.lag)->malformed_rx, 0);
    assert_int_equal(zvs_lag_stats(t.a.lag)->slow_tx_fail, 0);
    bb_teardown(&t);
}

static void test_suffix_distribution_and_delivery(void **state)
{
    struct bb t;
    bb_setup(&t, true, true);
    pump_until(&t, T0 + 4 * SEC);
    assert_true(both_distributing(&t));
    const struct zvs_pg_map *map = zvs_pgroup_map(zvs_lag_group(t.a.lag));
    uint16_t p1 = map->bucket_port[0x01], p2 = map->bucket_port[0x02];
    assert_int_not_equal(p1, p2);
    uint64_t o1 = t.a.sw ? zvs_switch_port(t.a.sw, p1)->ctr.out_packets : 0;
    uint64_t o2 = zvs_switch_port(t.a.sw, p2)->ctr.out_packets;
    guest_send(&t, MAC_G1, 5);
    guest_send(&t, MAC_G2, 3);
    assert_int_equal(zvs_switch_port(t.a.sw, p1)->ctr.out_packets - o1, 5);
    assert_int_equal(zvs_switch_port(t.a.sw, p2)->ctr.out_packets - o2, 3);
    side_step(&t.b, t.now);
    /* Only data frames reach guests: no Slow Protocols frame ever did. */
    assert_int_equal(t.b.g[0]->nframes, 5);
    assert_int_equal(t.b.g[1]->nframes, 3);
    assert_memory_equal(t.b.g[0]->frames[0].bytes, MAC_G1, 6);
    assert_int_equal(t.a.g[0]->nframes, 0);
    /* The per-bucket byte counters saw exactly those frames. */
    uint64_t *bytes = zvs_pgroup_bucket_bytes(zvs_lag_group(t.a.lag));
    assert_int_equal(bytes[0x01], 5 * 114);
    assert_int_equal(bytes[0x02], 3 * 114);
    bb_teardown(&t);
}

static void test_carrier_loss_moves_every_bucket_in_the_same_call(void **state)
{
    struct bb t;
    bb_setup(&t, true, true);
    pump_until(&t, T0 + 4 * SEC);
    assert_true(both_distributing(&t));
    cut(&t, 0, false);
    /* No time has passed: the map already avoids the dead member. */
    const struct zvs_pg_map *map = zvs_pgroup_map(zvs_lag_group(t.a.lag));
    for (int b = 0; b < ZVS_PG_BUCKETS; b++)
        assert_int_equal(map->bucket_port[b], t.a.m[1]->index);
    assert_int_equal(map->flood_port, t.a.m[1]->index);
    uint64_t before = t.a.m[1]->ctr.out_packets;
    guest_send(&t, MAC_G1, 4);
    guest_send(&t, MAC_G2, 4);
    assert_int_equal(t.a.m[1]->ctr.out_packets - before, 8);
    assert_int_equal(t.a.m[0]->ctr.drops[ZVS_DROP_LINK_DOWN], 0);
    side_step(&t.b, t.now);
    assert_int_equal(t.b.g[0]->nframes + t.b.g[1]->nframes, 8);
    /* The link returns: LACP brings the member back and it takes buckets again. */
    cut(&t, 0, true);
    pump_until(&t, t.now + 5 * SEC);
    assert_true(both_distributing(&t));
    map = zvs_pgroup_map(zvs_lag_group(t.a.lag));
    unsigned on0 = 0;
    for (int b = 0; b < ZVS_PG_BUCKETS; b++)
        on0 += map->bucket_port[b] == t.a.m[0]->index;
    assert_true(on0 > 0);
    bb_teardown(&t);
}

/* The link dies before anyone has told the group: the backend refuses the frames with
 * LINK_DOWN (or the port already shows no carrier), and the switch hands them to the
 * surviving member instead of dropping them. */
static void test_frames_for_a_dead_member_go_to_the_survivor(void **state)
{
    struct bb t;
    bb_setup(&t, true, true);
    pump_until(&t, T0 + 4 * SEC);
    const struct zvs_pg_map *map = zvs_pgroup_map(zvs_lag_group(t.a.lag));
    int dead = map->bucket_port[0x01] == t.a.m[0]->index ? 0 : 1, live = 1 - dead;
    /* the wire is cut; the port still believes it has carrier */
    zvs_memlink_set_carrier(t.a.m[dead], false);
    uint64_t live0 = t.a.m[live]->ctr.out_packets;
    guest_send(&t, MAC_G1, 4);
    struct zvs_switch_stats st;
    zvs_switch_stats(t.a.sw, &st);
    assert_int_equal(st.resteered, 4);
    assert_int_equal(t.a.m[live]->ctr.out_packets - live0, 4);
    assert_int_equal(t.a.m[dead]->ctr.out_discards, 0);
    /* the port now knows it has no carrier, the group not yet: still no loss */
    t.a.m[dead]->carrier = false;
    guest_send(&t, MAC_G1, 3);
    zvs_switch_stats(t.a.sw, &st);
    assert_int_equal(st.resteered, 7);
    assert_int_equal(t.a.m[live]->ctr.out_packets - live0, 7);
    assert_int_equal(t.a.m[dead]->ctr.drops[ZVS_DROP_LINK_DOWN], 0);
    zvs_memlink_set_carrier(t.b.m[dead], false);
    t.b.m[dead]->carrier = false;
    side_step(&t.b, t.now);
    assert_int_equal(t.b.g[0]->nframes, 7);
    t.a.m[dead]->carrier = true;        /* restore for a clean teardown */
    zvs_memlink_set_carrier(t.a.m[dead], true);
    bb_teardown(&t);
}

static void test_static_group_needs_no_pdus(void **state)
{
    struct bb t;
    bb_setup(&t, false, false);
    assert_true(both_distributing(&t));
    assert_null(zvs_lag_member_lacp(t.a.lag, 0));
    guest_send(&t, MAC_G1, 2);
    side_step(&t.b, t.now);
    assert_int_equal(t.b.g[0]->nframes, 2);
    pump_until(&t, T0 + 3 * SEC);
    /* No LACPDU was sent by either side (Markers only when buckets move). */
    assert_int_equal(zvs_lag_stats(t.a.lag)->slow_tx, 0);
    assert_int_equal(zvs_lag_stats(t.b.lag)->slow_tx, 0);
    bb_teardown(&t);
}

static void test_lacp_against_static_partner_never_distributes(void **state)
{
    struct bb t;
    bb_setup(&t, true, false);
    pump_until(&t, T0 + 10 * SEC);
    /* A's LACPDUs are ignored by the static side (counted), so A never sees a partner. */
    assert_int_equal(zvs_pgroup_distributing(zvs_lag_group(t.a.lag)), 0);
    assert_true(zvs_lag_stats(t.b.lag)->lacpdu_static_rx > 0);
    bb_teardown(&t);
}

static void test_inbound_dropped_until_collecting(void **state)
{
    struct bb t;
    bb_setup(&t, true, true);
    uint8_t buf[64] = { 0 };
    memcpy(buf, MAC_GA, 6);
    memcpy(buf + 6, MAC_G1, 6);
    buf[12] = 0x08;
    assert_int_equal(zvs_memlink_inject(t.a.m[0], buf, 64, NULL), 0);
    side_step(&t.a, t.now);
    assert_int_equal(t.a.m[0]->ctr.drops[ZVS_DROP_NOT_COLLECTING], 1);
    assert_int_equal(t.a.m[0]->ctr.in_discards, 1);
    assert_int_equal(t.a.g[0]->nframes, 0);
    pump_until(&t, T0 + 4 * SEC);
    assert_int_equal(zvs_memlink_inject(t.a.m[0], buf, 64, NULL), 0);
    side_step(&t.a, t.now);
    assert_int_equal(t.a.g[0]->nframes, 1);
    assert_int_equal(t.a.m[0]->ctr.drops[ZVS_DROP_NOT_COLLECTING], 1);
    bb_teardown(&t);
}

static void test_malformed_slow_frames_counted_and_dropped(void **state)
{
    struct bb t;
    bb_setup(&t, true, true);
    pump_until(&t, T0 + 4 * SEC);
    uint8_t buf[ZVS_SLOW_FRAME_LEN];
    static const uint8_t slow[6] = { 0x01, 0x80, 0xC2, 0x00, 0x00, 0x02 };
    memset(buf, 0, sizeof buf);
    memcpy(buf, slow, 6);
    memcpy(buf + 6, SYS_B, 6);
    buf[12] = 0x88;
    buf[13] = 0x09;
    buf[14] = 1;                        /* LACP */
    buf[15] = 1;
    buf[16] = 1;                        /* actor TLV ... */
    buf[17] = 19;                       /* ... with a wrong length */
    for (int i = 0; i < 100; i++)
        assert_int_equal(zvs_memlink_inject(t.a.m[0], buf, sizeof buf, NULL), 0 - (i >= 64) * ENOBUFS);
    side_step(&t.a, t.now);
    assert_int_equal(zvs_lag_stats(t.a.lag)->malformed_rx, 64);
    assert_int_equal(zvs_lacp_port_stats(zvs_lag_member_lacp(t.a.lag, 0))->illegal_rx, 64);
    assert_int_equal(t.a.g[0]->nframes, 0);
    /* The port keeps its state. */
    pump_until(&t, t.now + 2 * SEC);
    assert_true(both_distributing(&t));
    bb_teardown(&t);
}

static void test_leave_moves_buckets_and_removes_port(void **state)
{
    struct bb t;
    bb_setup(&t, true, true);
    pump_until(&t, T0 + 4 * SEC);
    struct zvs_port *gone = t.a.m[0];
    uint16_t gone_index = gone->index;
    assert_int_equal(zvs_lag_leave(t.a.lag, gone, t.now), 0);
    t.a.m[0] = NULL;                    /* destroyed with its switch slot */
    assert_null(zvs_switch_port(t.a.sw, gone_index));
    assert_int_equal(zvs_pgroup_members(zvs_lag_group(t.a.lag)), 1);
    const struct zvs_pg_map *map = zvs_pgroup_map(zvs_lag_group(t.a.lag));
    for (int b = 0; b < ZVS_PG_BUCKETS; b++)
        assert_int_equal(map->bucket_port[b], t.a.m[1]->index);
    guest_send(&t, MAC_G1, 3);
    side_step(&t.b, t.now);
    assert_int_equal(t.b.g[0]->nframes, 3);
    assert_int_equal(zvs_lag_leave(t.a.lag, gone, t.now), -ENOENT);
    bb_teardown(&t);
}

static void test_rdev_fallback_while_group_down(void **state)
{
    struct bb t;
    bb_setup(&t, true, true);
    t.a.rdev = fake_port_new("3000", ZVS_CAP_CSUM | ZVS_CAP_GSO, 1500);
    assert_int_equal(zvs_switch_add_uplink(t.a.sw, &t.a.rdev->port), 0);
    /* Group not distributing yet: the RDEV carries the frame. */
    guest_send(&t, MAC_G1, 1);
    assert_int_equal(t.a.rdev->nframes, 1);
    pump_until(&t, T0 + 4 * SEC);
    guest_send(&t, MAC_G1, 1);
    assert_int_equal(t.a.rdev->nframes, 1);
    /* Whole group down: back to the RDEV at once. */
    cut(&t, 0, false);
    cut(&t, 1, false);
    guest_send(&t, MAC_G1, 1);
    assert_int_equal(t.a.rdev->nframes, 2);
    bb_teardown(&t);
}

static void test_report_names_members_and_states(void **state)
{
    struct bb t;
    bb_setup(&t, true, true);
    pump_until(&t, T0 + 4 * SEC);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    zvs_lag_report(t.a.lag, t.now, f);
    fclose(f);
    assert_non_null(strstr(text, "PORT GROUP ETHGRP   LACP: ACTIVE  Timeout: SHORT"));
    assert_non_null(strstr(text, "Members: 2  Distributing: 2"));
    assert_non_null(strstr(text, "RDEV 28BA     Port 10426  Carrier: UP  Collecting: YES"
                                 "  Distributing: YES  Buckets: 128"));
    assert_non_null(strstr(text, "RDEV 2902     Port 10498"));
    free(text);
    bb_teardown(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lacp_converges_after_aggregate_wait),
        cmocka_unit_test(test_suffix_distribution_and_delivery),
        cmocka_unit_test(test_carrier_loss_moves_every_bucket_in_the_same_call),
        cmocka_unit_test(test_frames_for_a_dead_member_go_to_the_survivor),
        cmocka_unit_test(test_static_group_needs_no_pdus),
        cmocka_unit_test(test_lacp_against_static_partner_never_distributes),
        cmocka_unit_test(test_inbound_dropped_until_collecting),
        cmocka_unit_test(test_malformed_slow_frames_counted_and_dropped),
        cmocka_unit_test(test_leave_moves_buckets_and_removes_port),
        cmocka_unit_test(test_rdev_fallback_while_group_down),
        cmocka_unit_test(test_report_names_members_and_states),
    };
    return cmocka_run_group_tests_name("lag", tests, NULL, NULL);
}
