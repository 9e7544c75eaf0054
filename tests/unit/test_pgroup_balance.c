/* Rebalancing policies (pgroup_balance.h): exact moves for stated load pictures. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "lag/pgroup_balance.h"

struct pic {
    double   load[ZVS_PG_BUCKETS];      /* bytes/s */
    uint8_t  slot[ZVS_PG_BUCKETS];
    uint64_t hold[ZVS_PG_BUCKETS];
    struct zvs_pgb_input in;
    struct zvs_pgb_move mv[ZVS_PGB_MAX_MOVES];
    struct zvs_pgb_report rep;
};

static void pic_init(struct pic *p, unsigned members)
{
    memset(p, 0, sizeof(*p));
    memset(p->slot, ZVS_PG_NO_SLOT, sizeof(p->slot));
    for (unsigned s = 0; s < members; s++) {
        p->in.member[s].eligible = true;
        p->in.member[s].capacity_bps = 1000000000ull;
    }
    p->in.bucket_load = p->load;
    p->in.bucket_slot = p->slot;
    p->in.holddown_until = p->hold;
    p->in.now = 1000;
}

static void put(struct pic *p, unsigned b, unsigned slot, double bytes_per_s)
{
    p->slot[b] = (uint8_t)slot;
    p->load[b] = bytes_per_s;
    p->in.member[slot].out_bps += 8.0 * bytes_per_s;
}

static unsigned plan(struct pic *p, enum zvs_pg_policy pol)
{
    return zvs_pgb_plan(pol, &p->in, p->mv, &p->rep);
}

static void assert_move(const struct zvs_pgb_move *m, unsigned b, unsigned from, unsigned to)
{
    assert_int_equal(m->bucket, b);
    assert_int_equal(m->from, from);
    assert_int_equal(m->to, to);
}

static void test_ratio_and_port_load(void **state)
{
    double load[3] = { 300, 100, 900 };
    bool elig[3] = { true, true, false };
    struct zvs_pgb_member m = { .eligible = true, .out_bps = 100, .in_bps = 60 };

    assert_true(zvs_pgb_ratio(load, elig, 3) == 1.5);
    elig[0] = elig[1] = false;
    assert_true(zvs_pgb_ratio(load, elig, 3) == 1.0);  /* no eligible port */
    assert_true(zvs_pgb_port_load(&m, ZVS_PG_LOAD_TOTAL) == 160.0);     /* out + in */
    assert_true(zvs_pgb_port_load(&m, ZVS_PG_LOAD_OUTBOUND) == 100.0);  /* out */
}

/* 600 vs 400: ratio 1.2 > 1.10, one bucket of 100 (half the difference) evens it out. */
static void test_load_moves_half_difference(void **state)
{
    struct pic p;
    pic_init(&p, 2);
    for (unsigned b = 0; b < 6; b++)
        put(&p, b, 0, 100);
    for (unsigned b = 6; b < 10; b++)
        put(&p, b, 1, 100);
    assert_int_equal(plan(&p, ZVS_PG_POLICY_LOAD), 1);
    assert_move(&p.mv[0], 0, 0, 1);
    assert_true(p.rep.ratio_before == 1.2);
    assert_true(p.rep.ratio_after == 1.0);
    assert_false(p.rep.heavy);
    assert_int_equal(p.rep.heavy_bucket, -1);
}

/* Hysteresis: 560/440 (1.12) starts and goes on to 500/500 through 530/470 (1.06);
 * 530/470 alone does not start. */
static void test_load_hysteresis(void **state)
{
    struct pic p;
    pic_init(&p, 2);
    put(&p, 0, 0, 30);
    put(&p, 1, 0, 30);
    put(&p, 2, 0, 500);
    put(&p, 3, 1, 440);
    assert_int_equal(plan(&p, ZVS_PG_POLICY_LOAD), 2);
    assert_move(&p.mv[0], 0, 0, 1);
    assert_move(&p.mv[1], 1, 0, 1);
    assert_true(p.rep.ratio_after == 1.0);

    pic_init(&p, 2);
    put(&p, 0, 0, 30);
    put(&p, 2, 0, 500);
    put(&p, 3, 1, 470);
    assert_int_equal(plan(&p, ZVS_PG_POLICY_LOAD), 0);
    assert_true(p.rep.ratio_before == 1.06);
}

/* The only bucket of a port that is busy with inbound stays, though moving it would help. */
static void test_load_last_bucket_never_moved(void **state)
{
    struct pic p;
    pic_init(&p, 2);
    put(&p, 0, 0, 100);                 /* 800 bit/s out */
    p.in.member[0].in_bps = 4000;       /* load 4800 */
    put(&p, 1, 1, 100);
    put(&p, 2, 1, 100);                 /* load 1600 */
    assert_int_equal(plan(&p, ZVS_PG_POLICY_LOAD), 0);
    assert_false(p.rep.heavy);
    assert_true(p.rep.ratio_before == 1.5);
}

static void test_load_holddown_respected(void **state)
{
    struct pic p;
    pic_init(&p, 2);
    for (unsigned b = 0; b < 6; b++)
        put(&p, b, 0, 100);
    for (unsigned b = 6; b < 10; b++)
        put(&p, b, 1, 100);
    p.hold[0] = p.in.now + 1;           /* held: the next equal bucket goes */
    assert_int_equal(plan(&p, ZVS_PG_POLICY_LOAD), 1);
    assert_move(&p.mv[0], 1, 0, 1);
    for (unsigned b = 0; b < 6; b++)
        p.hold[b] = p.in.now + 1;       /* all held: nothing moves */
    assert_int_equal(plan(&p, ZVS_PG_POLICY_LOAD), 0);
    p.hold[0] = p.in.now;               /* expiry is inclusive: movable at now */
    assert_int_equal(plan(&p, ZVS_PG_POLICY_LOAD), 1);
    assert_move(&p.mv[0], 0, 0, 1);
}

/* A bucket above the fair share is reported and left; the rest moves around it. */
static void test_load_heavy_reported_not_chased(void **state)
{
    struct pic p;
    pic_init(&p, 2);
    put(&p, 0, 0, 1000);
    put(&p, 1, 0, 100);
    put(&p, 2, 0, 101);
    put(&p, 3, 1, 100);
    assert_int_equal(plan(&p, ZVS_PG_POLICY_LOAD), 2);
    assert_move(&p.mv[0], 2, 0, 1);     /* 101 is nearer half of 1101 than 100 */
    assert_move(&p.mv[1], 1, 0, 1);
    assert_true(p.rep.heavy);
    assert_int_equal(p.rep.heavy_bucket, 0);
}

static void test_load_bounded_moves(void **state)
{
    struct pic p;
    pic_init(&p, 2);
    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++)
        put(&p, b, 0, 10);
    p.in.member[1].eligible = true;     /* empty port */
    assert_int_equal(plan(&p, ZVS_PG_POLICY_LOAD), ZVS_PGB_MAX_MOVES);
    for (unsigned i = 0; i < ZVS_PGB_MAX_MOVES; i++)
        assert_move(&p.mv[i], i, 0, 1);
    p.in.max_moves = 5;
    assert_int_equal(plan(&p, ZVS_PG_POLICY_LOAD), 5);
    assert_int_equal(p.rep.n_moves, 5);
}

/* Buckets of a member that does not distribute are not moved, and it receives none. */
static void test_load_ineligible_ignored(void **state)
{
    struct pic p;
    pic_init(&p, 3);
    for (unsigned b = 0; b < 6; b++)
        put(&p, b, 0, 100);
    for (unsigned b = 6; b < 10; b++)
        put(&p, b, 1, 100);
    put(&p, 10, 2, 5000);
    p.in.member[2].eligible = false;
    p.in.member[2].out_bps = 0;
    assert_int_equal(plan(&p, ZVS_PG_POLICY_LOAD), 1);
    assert_move(&p.mv[0], 0, 0, 1);
    /* Idle buckets are never moved: nothing to gain. */
    pic_init(&p, 2);
    for (unsigned b = 0; b < 4; b++)
        put(&p, b, 0, 0);
    p.in.member[0].out_bps = 1000;      /* load that no bucket accounts for */
    assert_int_equal(plan(&p, ZVS_PG_POLICY_LOAD), 0);
}

/* Equal outbound, but port 0 carries inbound: outbound moves to port 1 until the ports'
 * totals are equal. Full weight: 6400 vs 3200 takes two buckets of 800 (0.5 x inbound
 * would have stopped after one, at 5600 vs 4000). */
static void test_load_inbound_steers_outbound(void **state)
{
    struct pic p;
    pic_init(&p, 2);
    for (unsigned b = 0; b < 8; b++)
        put(&p, b, b % 2, 100);         /* 800 bit/s each, 3200 per port */
    p.in.member[0].in_bps = 3200;       /* total 6400 vs 3200 */
    assert_int_equal(plan(&p, ZVS_PG_POLICY_LOAD), 2);
    assert_move(&p.mv[0], 0, 0, 1);     /* 5600 / 4000 */
    assert_move(&p.mv[1], 2, 0, 1);     /* 4800 / 4800 */
    assert_true(p.rep.ratio_after == 1.0);
    /* Inbound on port 1 instead: the moves go the other way. */
    p.in.member[0].in_bps = 0;
    p.in.member[1].in_bps = 3200;
    assert_int_equal(plan(&p, ZVS_PG_POLICY_LOAD), 2);
    assert_move(&p.mv[0], 1, 1, 0);
    assert_move(&p.mv[1], 3, 1, 0);
    /* OUTBOUND: 3200 vs 3200, inbound ignored: nothing moves. */
    p.in.load = ZVS_PG_LOAD_OUTBOUND;
    assert_int_equal(plan(&p, ZVS_PG_POLICY_LOAD), 0);
    assert_true(p.rep.ratio_before == 1.0);
}

/* The report's picture: the partner puts all inbound (800 Mbit/s) on port A (slot 0);
 * our outbound is spread evenly, 4 buckets of 50 Mbit/s on each port. TOTAL: A 1000, B
 * 200 Mbit/s; each step moves one 50 Mbit/s bucket (all equally close to half the gap,
 * the lowest wins) from A to B, until A has one bucket left (a port's last bucket never
 * moves): 0, 2, 4, then A (850 of it inbound) is set aside and nothing is left to even
 * out. OUTBOUND: 200 vs 200, nothing moves. */
static void test_total_moves_outbound_off_the_inbound_port(void **state)
{
    struct pic p;
    pic_init(&p, 2);
    for (unsigned b = 0; b < 8; b++)
        put(&p, b, b % 2, 6.25e6);      /* 50 Mbit/s */
    p.in.member[0].in_bps = 800e6;
    assert_int_equal(plan(&p, ZVS_PG_POLICY_LOAD), 3);
    assert_move(&p.mv[0], 0, 0, 1);
    assert_move(&p.mv[1], 2, 0, 1);
    assert_move(&p.mv[2], 4, 0, 1);
    assert_true(p.rep.ratio_before == 1000.0 / 600.0);
    assert_true(p.rep.ratio_after == 850.0 / 600.0);
    assert_false(p.rep.heavy);

    p.in.load = ZVS_PG_LOAD_OUTBOUND;
    assert_int_equal(plan(&p, ZVS_PG_POLICY_LOAD), 0);
    assert_true(p.rep.ratio_before == 1.0);
    assert_true(p.rep.ratio_after == 1.0);
}

/* All 256 buckets busy (1 Mbit/s each, b on slot b mod 2) and 500 Mbit/s inbound on slot
 * 0: TOTAL 628 vs 128 Mbit/s wants 250 moves; a pass makes the first 32 (the even buckets
 * 0..62), the next passes the rest. OUTBOUND: 128 vs 128, none. */
static void test_total_bounded_per_pass(void **state)
{
    struct pic p;
    pic_init(&p, 2);
    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++)
        put(&p, b, b % 2, 125000);
    p.in.member[0].in_bps = 500e6;
    assert_int_equal(plan(&p, ZVS_PG_POLICY_LOAD), ZVS_PGB_MAX_MOVES);
    for (unsigned i = 0; i < ZVS_PGB_MAX_MOVES; i++)
        assert_move(&p.mv[i], 2 * i, 0, 1);
    assert_true(p.rep.ratio_after == 596.0 / 378.0);
    p.in.load = ZVS_PG_LOAD_OUTBOUND;
    assert_int_equal(plan(&p, ZVS_PG_POLICY_LOAD), 0);
}

/* One 1G and one 10G port: LBT judges utilisation. */
static void mixed(struct pic *p, double per_bucket_1g, double per_bucket_10g)
{
    pic_init(p, 2);
    p->in.member[1].capacity_bps = 10000000000ull;
    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++)
        put(p, b, b % 2, b % 2 ? per_bucket_10g : per_bucket_1g);
}

static void test_lbt_mixed_speeds(void **state)
{
    struct pic p;

    /* 1G at 96 % (128 x 7.5 Mbit/s), 10G at 50 %: 28 buckets bring the 1G to 75 %. */
    mixed(&p, 937500, 4882812.5);
    assert_true(p.in.member[0].out_bps == 960e6);
    assert_int_equal(plan(&p, ZVS_PG_POLICY_LBT), 28);
    for (unsigned i = 0; i < 28; i++)
        assert_move(&p.mv[i], 2 * i, 0, 1);
    assert_true(p.rep.ratio_before == 0.96);
    assert_true(p.rep.ratio_after == 0.75);
    assert_false(p.rep.heavy);

    /* 1G at 70 %, 10G at 50 % (7x the bit/s): nothing above 75 %, nothing moves... */
    mixed(&p, 683593.75, 4882812.5);
    assert_int_equal(plan(&p, ZVS_PG_POLICY_LBT), 0);
    /* ...whereas LOAD, blind to speed, would push the 10G's load onto the 1G port. */
    assert_true(plan(&p, ZVS_PG_POLICY_LOAD) > 0);
    assert_int_equal(p.mv[0].from, 1);
    assert_int_equal(p.mv[0].to, 0);
}

static void test_lbt_threshold_and_room(void **state)
{
    struct pic p;

    /* 10G at 80 % sheds to the 1G (at 70 %) only what fits under the 1G's 75 %: 50 Mbit/s
     * of room; the 40 Mbit/s bucket fits, the 7.96 Gbit/s one never does (reported). */
    pic_init(&p, 2);
    p.in.member[1].capacity_bps = 10000000000ull;
    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b += 2)
        put(&p, b, 0, 683593.75);       /* 700 Mbit/s */
    put(&p, 1, 1, 5e6);                 /* 40 Mbit/s */
    put(&p, 3, 1, 995e6);               /* 7.96 Gbit/s */
    assert_int_equal(plan(&p, ZVS_PG_POLICY_LBT), 1);
    assert_move(&p.mv[0], 1, 1, 0);
    assert_true(p.rep.heavy);
    assert_int_equal(p.rep.heavy_bucket, 3);

    /* lbt_percent 50: both above, neither has room. */
    p.in.lbt_percent = 50;
    assert_int_equal(plan(&p, ZVS_PG_POLICY_LBT), 0);

    /* Two 1G: 808 vs 720 Mbit/s. The 8 Mbit/s bucket fits in the 30 of room and goes;
     * the 800 Mbit/s bucket alone keeps its port above 75 %: reported. */
    pic_init(&p, 2);
    put(&p, 0, 0, 100e6);
    put(&p, 1, 0, 1e6);
    put(&p, 2, 1, 90e6);
    assert_int_equal(plan(&p, ZVS_PG_POLICY_LBT), 1);
    assert_move(&p.mv[0], 1, 0, 1);
    assert_true(p.rep.heavy);
    assert_int_equal(p.rep.heavy_bucket, 0);

    /* Capacity unknown (0): LBT leaves the member alone. */
    pic_init(&p, 2);
    p.in.member[0].capacity_bps = 0;
    put(&p, 0, 0, 100e6);
    put(&p, 1, 0, 100e6);
    put(&p, 2, 1, 1e6);
    assert_int_equal(plan(&p, ZVS_PG_POLICY_LBT), 0);
}

/* LBT picks the smallest bucket that ends the overload when one exists. */
static void test_lbt_smallest_covering_bucket(void **state)
{
    struct pic p;
    pic_init(&p, 2);
    put(&p, 0, 0, 50e6);                /* 400 Mbit/s */
    put(&p, 1, 0, 6.25e6);              /* 50 */
    put(&p, 2, 0, 12.5e6);              /* 100 */
    put(&p, 3, 0, 50e6);                /* 400: 950 Mbit/s, 200 over 75 % */
    put(&p, 4, 1, 12.5e6);              /* 100 */
    assert_int_equal(plan(&p, ZVS_PG_POLICY_LBT), 1);
    assert_move(&p.mv[0], 0, 0, 1);     /* 400 covers 200; 50 and 100 do not */
    /* LBT judges outbound utilisation whatever the LOAD measure: inbound on the target
     * port changes nothing. */
    p.in.member[1].in_bps = 900e6;
    assert_int_equal(plan(&p, ZVS_PG_POLICY_LBT), 1);
    assert_move(&p.mv[0], 0, 0, 1);
    p.in.load = ZVS_PG_LOAD_OUTBOUND;
    assert_int_equal(plan(&p, ZVS_PG_POLICY_LBT), 1);
    assert_move(&p.mv[0], 0, 0, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ratio_and_port_load),
        cmocka_unit_test(test_load_moves_half_difference),
        cmocka_unit_test(test_load_hysteresis),
        cmocka_unit_test(test_load_last_bucket_never_moved),
        cmocka_unit_test(test_load_holddown_respected),
        cmocka_unit_test(test_load_heavy_reported_not_chased),
        cmocka_unit_test(test_load_bounded_moves),
        cmocka_unit_test(test_load_ineligible_ignored),
        cmocka_unit_test(test_load_inbound_steers_outbound),
        cmocka_unit_test(test_total_moves_outbound_off_the_inbound_port),
        cmocka_unit_test(test_total_bounded_per_pass),
        cmocka_unit_test(test_lbt_mixed_speeds),
        cmocka_unit_test(test_lbt_threshold_and_room),
        cmocka_unit_test(test_lbt_smallest_covering_bucket),
    };
    return cmocka_run_group_tests_name("pgroup_balance", tests, NULL, NULL);
}
