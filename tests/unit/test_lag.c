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
#include <unistd.h>

#include "fake_port.h"
#include "lacp/pdu.h"
#include "lag/lag.h"
#include "backends/memlink.h"
#include "lag/pgroup.h"
#include "dataplane/log.h"
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

/* A LACPv2 PDU (802.1AX-2014 6.4.2.3, version 2) as B's member `link` would send it, its
 * v2 TLVs `tlvs` (type, length, then length - 2 bytes of 0x5A each) between the Collector
 * TLV and the Terminator, zero-padded to `len` bytes. Returns the frame length. */
static uint32_t v2_frame(const struct bb *t, int link, const uint8_t (*tlvs)[2], int ntlv,
                         uint32_t len, uint8_t *f)
{
    struct zvs_lacpdu pdu = { .version = 2 };
    pdu.actor = *zvs_lacp_port_actor(zvs_lag_member_lacp(t->b.lag, (unsigned)link));
    pdu.partner = *zvs_lacp_port_actor(zvs_lag_member_lacp(t->a.lag, (unsigned)link));
    uint8_t src[6];
    memcpy(src, SYS_B, 6);
    src[5] = (uint8_t)(0x80 + link);
    memset(f, 0, len);
    assert_int_equal(zvs_lacpdu_build(&pdu, src, f, ZVS_SLOW_FRAME_LEN), ZVS_SLOW_FRAME_LEN);
    uint32_t off = 14 + 58;             /* the v1 Terminator's place: the v2 TLVs start here */
    for (int i = 0; i < ntlv; i++) {
        f[off] = tlvs[i][0];
        f[off + 1] = tlvs[i][1];
        memset(f + off + 2, 0x5A, tlvs[i][1] - 2u);
        off += tlvs[i][1];
    }
    assert_true(off + 2 <= len);
    f[off] = 0;                         /* Terminator: type 0, length 0 */
    f[off + 1] = 0;
    return len;
}

/* 802.1AX-2014 v2 LACPDUs are longer than the 124 bytes of v1: the whole frame reaches
 * the codec, so the TLV walk meets the Terminator and the PDU counts as received. */
static void test_long_v2_lacpdus_accepted_through_the_glue(void **state)
{
    struct bb t;
    bb_setup(&t, true, true);
    pump_until(&t, T0 + 4 * SEC);
    assert_true(both_distributing(&t));
    /* Port Algorithm (type 4, 6), Port Conversation ID Digest (5, 20), Port Conversation
     * Masks 1-4 (6, 131; 7-9, 130): the full set a v2 partner sends, 642 bytes padded. */
    static const uint8_t v2set[6][2] = { { 4, 6 }, { 5, 20 }, { 6, 131 }, { 7, 130 },
                                         { 8, 130 }, { 9, 130 } };
    /* The same and four more (type 10, 255, 255, 255, 128): the Terminator ends exactly at
     * byte 1514, the longest untagged frame without FCS (802.3 4.4.2: 1518 with it). */
    static const uint8_t maxset[10][2] = { { 4, 6 }, { 5, 20 }, { 6, 131 }, { 7, 130 },
                                           { 8, 130 }, { 9, 130 }, { 10, 255 }, { 10, 255 },
                                           { 10, 255 }, { 10, 128 } };
    static uint8_t f[1514];
    const struct zvs_lacp_port_stats *st = zvs_lacp_port_stats(zvs_lag_member_lacp(t.a.lag, 0));
    uint64_t rx0 = st->lacpdus_rx;
    uint32_t n = v2_frame(&t, 0, v2set, 6, 642, f);
    assert_int_equal(n, 642);
    assert_int_equal(zvs_memlink_inject(t.a.m[0], f, n, NULL), 0);
    side_step(&t.a, t.now);
    assert_int_equal(st->lacpdus_rx, rx0 + 1);
    n = v2_frame(&t, 0, maxset, 10, 1514, f);
    assert_int_equal(f[1512], 0);
    assert_int_equal(f[1511], 0x5A);    /* the last TLV ends right before the Terminator */
    assert_int_equal(zvs_memlink_inject(t.a.m[0], f, n, NULL), 0);
    side_step(&t.a, t.now);
    assert_int_equal(st->lacpdus_rx, rx0 + 2);
    assert_int_equal(st->illegal_rx, 0);
    assert_int_equal(zvs_lag_stats(t.a.lag)->malformed_rx, 0);
    /* One byte short of the Terminator is still refused (bad-terminator). */
    assert_int_equal(zvs_memlink_inject(t.a.m[0], f, 1513, NULL), 0);
    side_step(&t.a, t.now);
    assert_int_equal(st->lacpdus_rx, rx0 + 2);
    assert_int_equal(st->illegal_rx, 1);
    assert_int_equal(zvs_lag_stats(t.a.lag)->malformed_rx, 1);
    pump_until(&t, t.now + 2 * SEC);
    assert_true(both_distributing(&t));
    bb_teardown(&t);
}

/* A port whose `carrier` still says up (read when it was opened) while its driver already
 * has no link: carrier_now tells the truth. */
static int fake_carrier_down(struct zvs_port *p)
{
    return 0;
}

/* JOIN of a member whose link is down: its LACP engine starts with port_enabled false
 * (802.1AX 6.4.12: the Receive machine goes to PORT_DISABLED, the Periodic machine stays
 * NO_PERIODIC), so nothing is sent and the partner is never Expired, although the port's
 * `carrier` was stale. Once the carrier comes, the engine runs as usual. */
static void test_join_reads_the_carrier_first(void **state)
{
    struct zvs_switch_params p = { .vlan = { .aware = false } };
    snprintf(p.name, sizeof p.name, "VSWA");
    struct zvs_switch *sw = zvs_switch_create(&p);
    assert_non_null(sw);
    struct zvs_lag_params lp = { .pg = { .name = "ETHGRP", .lacp = true } };
    memcpy(lp.system, SYS_A, 6);
    struct zvs_lag *lag = zvs_lag_create(sw, &lp, T0);
    assert_non_null(lag);
    struct fake_port *fp = fake_port_new("28BA", ZVS_CAP_CSUM | ZVS_CAP_GSO, 1500);
    static struct zvs_port_ops ops;
    ops = *fp->port.ops;
    ops.carrier_now = fake_carrier_down;
    fp->port.ops = &ops;
    fp->port.carrier = true;            /* stale: what the kernel's flags said at open */
    fp->accept = 0;                     /* a frame sent now fails as on a dead link */
    fp->refuse_why = ZVS_DROP_LINK_DOWN;
    assert_int_equal(zvs_lag_join(lag, &fp->port, "28BA", MAC_GA, 1000, T0), 0);
    const struct zvs_lacp_port *lacp = zvs_lag_member_lacp(lag, 0);
    const struct zvs_lacp_port_stats *st = zvs_lacp_port_stats(lacp);
    print_message("after join: lacpdus_tx %llu expired %llu tx_calls %d slow_tx_fail %llu\n",
                  (unsigned long long)st->lacpdus_tx, (unsigned long long)st->expired,
                  fp->tx_calls, (unsigned long long)zvs_lag_stats(lag)->slow_tx_fail);
    assert_int_equal(st->lacpdus_tx, 0);
    assert_int_equal(st->expired, 0);
    assert_int_equal(fp->tx_calls, 0);
    assert_int_equal(zvs_lag_stats(lag)->slow_tx, 0);
    assert_int_equal(zvs_lag_stats(lag)->slow_tx_fail, 0);
    assert_false(fp->port.carrier);
    assert_false(zvs_lacp_port_enabled(lacp));
    assert_int_equal(zvs_lacp_port_rx_state(lacp), ZVS_LACP_RX_PORT_DISABLED);
    assert_int_equal(zvs_lacp_port_ptx_state(lacp), ZVS_LACP_PTX_NO_PERIODIC);
    /* A few ms of timers change nothing while the link is down. */
    for (uint64_t t = T0; t <= T0 + 5 * MS; t += MS)
        if (zvs_lag_next_wakeup(lag) <= t)
            zvs_lag_run(lag, t);
    assert_int_equal(st->lacpdus_tx, 0);
    assert_int_equal(st->expired, 0);
    assert_int_equal(zvs_lag_stats(lag)->slow_tx_fail, 0);
    /* The carrier comes: one LACPDU at once, the partner Expired once (no PDU yet). */
    fp->accept = -1;
    zvs_switch_set_carrier(sw, &fp->port, true);
    zvs_lag_carrier(lag, &fp->port, true, T0 + 10 * MS);
    assert_int_equal(zvs_lacp_port_rx_state(lacp), ZVS_LACP_RX_EXPIRED);
    assert_int_equal(st->expired, 1);
    assert_int_equal(st->lacpdus_tx, 1);
    assert_int_equal(fp->nframes, 1);
    assert_int_equal(zvs_lag_stats(lag)->slow_tx, 1);
    assert_int_equal(zvs_lag_stats(lag)->slow_tx_fail, 0);
    zvs_lag_destroy(lag, T0 + 10 * MS);
    zvs_switch_destroy(sw);
}

/* 10,000 Marker Information PDUs a second for 5 s from B into A's member 28BA (virtual
 * time, one every 100 us) while LACP runs: the responses counted on the wire at B are 7 a
 * second (802.3 Annex 43B: 10 Slow Protocols frames a second per port, 3 kept for LACP),
 * 35 in all, the rest counted suppressed; A's LACPDUs leave on time (one a second, none
 * held by LACP's own limit) and the group stays up. */
static void test_marker_flood_answered_within_budget(void **state)
{
    struct bb t;
    bb_setup(&t, true, true);
    pump_until(&t, T0 + 4 * SEC);
    assert_true(both_distributing(&t));
    const struct zvs_lacp_port_stats *la = zvs_lacp_port_stats(zvs_lag_member_lacp(t.a.lag, 0));
    const struct zvs_lacp_port_stats *lb = zvs_lacp_port_stats(zvs_lag_member_lacp(t.b.lag, 0));
    const struct zvs_lacp_marker_stats *ma = zvs_lacp_marker_stats(zvs_lag_member_marker(t.a.lag, 0));
    const struct zvs_lacp_marker_stats *mb = zvs_lacp_marker_stats(zvs_lag_member_marker(t.b.lag, 0));
    uint64_t a_tx0 = la->lacpdus_tx, b_rx0 = lb->lacpdus_rx, a_lim0 = la->tx_rate_limited;
    uint64_t wire0 = mb->marker_response_pdus_rx;
    uint64_t start = t.now + 10 * MS;
    uint8_t src[6];
    memcpy(src, SYS_B, 6);
    src[5] = 0x80;
    struct zvs_marker info = { .version = ZVS_MARKER_VERSION, .requester_port = 77 };
    memcpy(info.requester_system, SYS_B, 6);
    uint8_t f[ZVS_SLOW_FRAME_LEN];
    uint64_t last_a_tx = 0, max_gap = 0;
    for (unsigned k = 0; k < 50000; k++) {
        uint64_t now = start + k * 100000ull;
        info.transaction_id = k;
        assert_int_equal(zvs_marker_build(&info, src, f, sizeof f), ZVS_SLOW_FRAME_LEN);
        assert_int_equal(zvs_memlink_inject(t.a.m[0], f, sizeof f, NULL), 0);
        side_step(&t.a, now);
        if (k % 100 == 99) {            /* B every 10 ms, as the pump does */
            side_step(&t.b, now);
            side_step(&t.a, now);
        }
        if (la->last_tx_ns != last_a_tx) {
            if (last_a_tx && la->last_tx_ns - last_a_tx > max_gap)
                max_gap = la->last_tx_ns - last_a_tx;
            last_a_tx = la->last_tx_ns;
        }
    }
    t.now = start + 50000 * 100000ull;
    side_step(&t.b, t.now);
    assert_int_equal(ma->marker_pdus_rx, 50000);
    assert_int_equal(ma->marker_response_pdus_tx, 35);
    assert_int_equal(ma->marker_response_suppressed, 49965);
    assert_int_equal(mb->marker_response_pdus_rx - wire0, 35);     /* on the wire */
    assert_int_equal(la->lacpdus_tx - a_tx0, 5);
    assert_int_equal(la->tx_rate_limited - a_lim0, 0);
    assert_int_equal(lb->lacpdus_rx - b_rx0, 5);
    assert_true(max_gap <= 1 * SEC);
    pump_until(&t, t.now + 1 * SEC);
    assert_true(both_distributing(&t));
    bb_teardown(&t);
}

static unsigned count_lines(const char *path, const char *needle, char *first, size_t len)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[512];
    unsigned n = 0;
    while (fgets(line, sizeof line, f))
        if (strstr(line, needle) && n++ == 0 && first)
            snprintf(first, len, "%s", strstr(line, "ZVSLAG"));
    fclose(f);
    return n;
}

/* A failover at carrier loss is logged in the carrier call itself, one line per bucket
 * with its cause, at most 16 lines a second; the next line says how many were not shown. */
static void test_moves_logged_when_made_with_cause(void **state)
{
    struct bb t;
    bb_setup(&t, true, true);
    pump_until(&t, T0 + 4 * SEC);
    assert_true(both_distributing(&t));
    char path[] = "/tmp/test_lag_log_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(zvs_log_open(path), 0);
    cut(&t, 0, false);                  /* no time passes, no run(): the call itself logs */
    char first[256] = "";
    /* Both sides (same group and device names) lose the link: 16 lines each. */
    assert_int_equal(count_lines(path, "moved from 28BA to 2902 (carrier)", first, sizeof first),
                     32);
    /* (the first line also counts the moves of the start-up not shown) */
    static const char want[] =
        "ZVSLAG1175I Port group ETHGRP bucket 00 moved from 28BA to 2902 (carrier)";
    assert_memory_equal(first, want, sizeof want - 1);
    assert_int_equal(count_lines(path, " moved ", NULL, 0), 32);   /* nothing else */
    /* A second later the link is back: the first line reports the 112 not shown. */
    t.now += 1 * SEC;
    cut(&t, 0, true);
    pump_until(&t, t.now + 4 * SEC);
    assert_true(both_distributing(&t));
    assert_int_equal(count_lines(path, "(LACP); 112 more move(s) not shown", NULL, 0), 2);
    zvs_log_close();
    unlink(path);
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
        cmocka_unit_test(test_long_v2_lacpdus_accepted_through_the_glue),
        cmocka_unit_test(test_join_reads_the_carrier_first),
        cmocka_unit_test(test_marker_flood_answered_within_budget),
        cmocka_unit_test(test_moves_logged_when_made_with_cause),
        cmocka_unit_test(test_leave_moves_buckets_and_removes_port),
        cmocka_unit_test(test_rdev_fallback_while_group_down),
        cmocka_unit_test(test_report_names_members_and_states),
    };
    return cmocka_run_group_tests_name("lag", tests, NULL, NULL);
}
