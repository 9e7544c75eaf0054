/* Bucket moves and the Marker flush (lag/pgroup_moves_impl.h), driven directly: a table the
 * test owns, member slots, counters, a fake Marker originator and a recorder of reported
 * moves, on virtual time. Members are switch ports 10 + slot; the table starts as the idle
 * layout, bucket b on slot b mod n. Every check is an exact table, exact counters and an
 * exact sequence of reported moves at an exact time. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lag/pgroup_moves_impl.h"

#define S_NS     1000000000ull
#define MS_NS    1000000ull
#define IVL_S    10u                            /* hold-down: two intervals, 20 s */
#define HOLD_NS  (2ull * IVL_S * S_NS)
#define TMO_NS   ZVS_PG_MARKER_TIMEOUT_NS       /* the flush's wait for a Marker Response */
#define PORT(s)  ((uint16_t)(10 + (s)))

struct moved_rec { uint8_t bucket; uint16_t from, to; enum zvs_pg_cause cause; };

struct fx {
    struct zvs_pg_member member[ZVS_PG_MAX_MEMBERS];
    struct zvs_pg_params params;
    struct zvs_pg_ops    ops;
    struct zvs_pg_stats  stats;
    struct zvs_pg_map    map;                   /* the spare the moves edit */
    struct zvs_pg_moves  mv;
    uint8_t              want[ZVS_PG_BUCKETS];  /* the table the test expects */
    /* Marker originator fake: each port numbers its Markers from 1, as a port's own
     * originator does, so two ports' Markers may carry the same transaction id. */
    int                  marker_rc;
    uint32_t             next_xid[ZVS_PG_MAX_MEMBERS];
    unsigned             markers;
    uint16_t             marker_port[16];
    uint32_t             marker_xid[16];
    unsigned             nmoved;
    struct moved_rec     moved[2 * ZVS_PG_BUCKETS];
};

static int fake_send_marker(void *arg, uint16_t port, uint32_t *xid)
{
    struct fx *f = arg;
    if (f->marker_rc)
        return f->marker_rc;
    assert_true(f->markers < 16);
    *xid = ++f->next_xid[port - PORT(0)];
    f->marker_port[f->markers] = port;
    f->marker_xid[f->markers] = *xid;
    f->markers++;
    return 0;
}

static void rec_moved(void *arg, unsigned bucket, uint16_t from, uint16_t to,
                      enum zvs_pg_cause cause)
{
    struct fx *f = arg;
    assert_true(f->nmoved < sizeof f->moved / sizeof f->moved[0]);
    f->moved[f->nmoved++] = (struct moved_rec){ (uint8_t)bucket, from, to, cause };
}

/* n distributing members, bucket b on slot b mod n, nothing pending, counters zero. */
static struct fx *fx_new(unsigned n)
{
    struct fx *f = calloc(1, sizeof(*f));
    assert_non_null(f);
    f->params.interval_s = IVL_S;
    f->ops = (struct zvs_pg_ops){ .send_marker = fake_send_marker, .moved = rec_moved };
    for (unsigned s = 0; s < n; s++)
        f->member[s] = (struct zvs_pg_member){ .used = true, .port = PORT(s),
                                               .collecting = true, .distributing = true };
    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++) {
        f->map.bucket_slot[b] = f->want[b] = (uint8_t)(b % n);
        f->map.bucket_port[b] = PORT(b % n);
    }
    zvs_pgm_init(&f->mv, f->member, &f->params, &f->ops, f, &f->stats);
    return f;
}

static void start(struct fx *f, const struct zvs_pgb_move *list, unsigned n,
                  enum zvs_pgm_kind kind, enum zvs_pg_cause cause, uint64_t now)
{
    f->mv.cause = cause;
    zvs_pgm_start(&f->mv, &f->map, list, n, kind, now);
}

/* The table is exactly f->want, slots and ports. */
static void assert_table(const struct fx *f)
{
    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++) {
        assert_int_equal(f->map.bucket_slot[b], f->want[b]);
        assert_int_equal(f->map.bucket_port[b], f->want[b] == ZVS_PG_NO_SLOT
                                                 ? ZVS_PG_NO_PORT : PORT(f->want[b]));
    }
}

static void assert_stats(const struct fx *f, struct zvs_pg_stats want)
{
    assert_int_equal(f->stats.moves, want.moves);
    assert_int_equal(f->stats.failover_moves, want.failover_moves);
    assert_int_equal(f->stats.membership_moves, want.membership_moves);
    assert_int_equal(f->stats.marker_flushes, want.marker_flushes);
    assert_int_equal(f->stats.marker_timeouts, want.marker_timeouts);
    assert_int_equal(f->stats.marker_unsent, want.marker_unsent);
    assert_int_equal(f->stats.passes, 0);               /* the group's, never the moves' */
    assert_int_equal(f->stats.heavy_buckets, 0);
    assert_int_equal(f->stats.publishes, 0);
}

static void assert_moved(const struct fx *f, unsigned i, unsigned bucket, unsigned from_slot,
                         unsigned to_slot, enum zvs_pg_cause cause)
{
    assert_true(i < f->nmoved);
    assert_int_equal(f->moved[i].bucket, bucket);
    assert_int_equal(f->moved[i].from, PORT(from_slot));
    assert_int_equal(f->moved[i].to, PORT(to_slot));
    assert_int_equal(f->moved[i].cause, cause);
}

/* The pass's hold-down of bucket b. */
static uint64_t hold_of(const struct fx *f, unsigned b)
{
    uint64_t until[ZVS_PG_BUCKETS];
    zvs_pgm_holddown(&f->mv, until);
    return until[b];
}

/* ---- a move waits for its Marker Response -------------------------------------------- */

static void test_move_waits_for_marker_response(void **state)
{
    struct fx *f = fx_new(2);
    const struct zvs_pgb_move list[] = { { 0, 0, 1 }, { 2, 0, 1 }, { 4, 0, 1 } };
    const uint64_t t0 = 5 * S_NS;

    start(f, list, 3, ZVS_PGM_MEMBERSHIP, ZVS_PG_CAUSE_JOIN, t0);
    /* One Marker on the old port for the three moves; nothing is bound yet. */
    assert_int_equal(f->markers, 1);
    assert_int_equal(f->marker_port[0], PORT(0));
    assert_int_equal(f->marker_xid[0], 1);
    assert_table(f);
    assert_int_equal(f->nmoved, 0);
    assert_stats(f, (struct zvs_pg_stats){ 0 });
    assert_int_equal(zvs_pgm_pending(&f->mv), 3);
    assert_true(zvs_pgm_is_pending(&f->mv, 2));
    assert_false(zvs_pgm_is_pending(&f->mv, 6));
    assert_int_equal(zvs_pgm_effective_slot(&f->mv, &f->map, 2), 1);   /* where it goes */
    assert_int_equal(zvs_pgm_effective_slot(&f->mv, &f->map, 6), 0);
    assert_int_equal(zvs_pgm_next_deadline(&f->mv), t0 + TMO_NS);
    assert_int_equal(hold_of(f, 0), ZVS_PG_NEVER);                     /* pending */
    assert_int_equal(hold_of(f, 6), 0);

    /* Just before the deadline nothing expires. */
    assert_int_equal(zvs_pgm_expire(&f->mv, &f->map, t0 + TMO_NS - 1), 0);
    assert_table(f);

    /* The Response: the three move, with the cause they started with (the group's cause
     * is carrier by now), in bucket order, counted as membership moves and flushes. */
    f->mv.cause = ZVS_PG_CAUSE_CARRIER;
    assert_int_equal(zvs_pgm_answered(&f->mv, &f->map, 0, f->marker_xid[0]), 3);
    f->want[0] = f->want[2] = f->want[4] = 1;
    assert_table(f);
    assert_int_equal(f->nmoved, 3);
    assert_moved(f, 0, 0, 0, 1, ZVS_PG_CAUSE_JOIN);
    assert_moved(f, 1, 2, 0, 1, ZVS_PG_CAUSE_JOIN);
    assert_moved(f, 2, 4, 0, 1, ZVS_PG_CAUSE_JOIN);
    assert_stats(f, (struct zvs_pg_stats){ .membership_moves = 3, .marker_flushes = 3 });
    assert_int_equal(zvs_pgm_pending(&f->mv), 0);
    assert_int_equal(zvs_pgm_next_deadline(&f->mv), ZVS_PG_NEVER);
    assert_int_equal(hold_of(f, 2), t0 + HOLD_NS);  /* held from when the move started */
    /* Answered twice, or expired later: nothing left. */
    assert_int_equal(zvs_pgm_answered(&f->mv, &f->map, 0, f->marker_xid[0]), 0);
    assert_int_equal(zvs_pgm_expire(&f->mv, &f->map, t0 + TMO_NS), 0);
    assert_int_equal(f->nmoved, 3);
    free(f);
}

/* ---- the Response releases exactly the buckets of its member --------------------------- */

static void test_response_releases_its_member_only(void **state)
{
    struct fx *f = fx_new(3);
    const struct zvs_pgb_move list[] = { { 0, 0, 2 }, { 1, 1, 2 }, { 3, 0, 1 }, { 4, 1, 0 } };
    const uint64_t t0 = 1 * S_NS;

    start(f, list, 4, ZVS_PGM_PASS, ZVS_PG_CAUSE_BALANCE, t0);
    /* Two Markers, one per old port, and both ports numbered theirs 1. */
    assert_int_equal(f->markers, 2);
    assert_int_equal(f->marker_port[0], PORT(0));
    assert_int_equal(f->marker_port[1], PORT(1));
    assert_int_equal(f->marker_xid[0], 1);
    assert_int_equal(f->marker_xid[1], 1);
    assert_int_equal(zvs_pgm_pending(&f->mv), 4);

    /* xid 1 on port 1: buckets 1 and 4 only, not port 0's buckets with the same id. */
    assert_int_equal(zvs_pgm_answered(&f->mv, &f->map, 1, 1), 2);
    f->want[1] = 2;
    f->want[4] = 0;
    assert_table(f);
    assert_int_equal(f->nmoved, 2);
    assert_moved(f, 0, 1, 1, 2, ZVS_PG_CAUSE_BALANCE);
    assert_moved(f, 1, 4, 1, 0, ZVS_PG_CAUSE_BALANCE);
    assert_stats(f, (struct zvs_pg_stats){ .moves = 2, .marker_flushes = 2 });
    assert_true(zvs_pgm_is_pending(&f->mv, 0));
    assert_true(zvs_pgm_is_pending(&f->mv, 3));

    /* No move off port 2; port 0 never sent xid 2: both complete nothing. */
    assert_int_equal(zvs_pgm_answered(&f->mv, &f->map, 2, 1), 0);
    assert_int_equal(zvs_pgm_answered(&f->mv, &f->map, 0, 2), 0);
    assert_table(f);

    assert_int_equal(zvs_pgm_answered(&f->mv, &f->map, 0, 1), 2);
    f->want[0] = 2;
    f->want[3] = 1;
    assert_table(f);
    assert_moved(f, 2, 0, 0, 2, ZVS_PG_CAUSE_BALANCE);
    assert_moved(f, 3, 3, 0, 1, ZVS_PG_CAUSE_BALANCE);
    assert_stats(f, (struct zvs_pg_stats){ .moves = 4, .marker_flushes = 4 });
    assert_int_equal(zvs_pgm_pending(&f->mv), 0);
    free(f);
}

/* ---- a Marker that is never answered ---------------------------------------------------- */

static void test_marker_timeout_releases(void **state)
{
    struct fx *f = fx_new(2);
    const struct zvs_pgb_move list[] = { { 6, 0, 1 }, { 8, 0, 1 } };
    const uint64_t t0 = 3 * S_NS;

    start(f, list, 2, ZVS_PGM_PASS, ZVS_PG_CAUSE_BALANCE, t0);
    assert_int_equal(zvs_pgm_next_deadline(&f->mv), t0 + TMO_NS);
    assert_int_equal(zvs_pgm_expire(&f->mv, &f->map, t0 + TMO_NS - 1), 0);
    assert_table(f);
    assert_int_equal(zvs_pgm_expire(&f->mv, &f->map, t0 + TMO_NS), 2);
    f->want[6] = f->want[8] = 1;
    assert_table(f);
    assert_moved(f, 0, 6, 0, 1, ZVS_PG_CAUSE_BALANCE);
    assert_moved(f, 1, 8, 0, 1, ZVS_PG_CAUSE_BALANCE);
    assert_stats(f, (struct zvs_pg_stats){ .moves = 2, .marker_timeouts = 2 });
    assert_int_equal(zvs_pgm_next_deadline(&f->mv), ZVS_PG_NEVER);
    /* The Response after the timeout finds nothing. */
    assert_int_equal(zvs_pgm_answered(&f->mv, &f->map, 0, f->marker_xid[0]), 0);
    assert_int_equal(f->stats.marker_flushes, 0);

    /* A configured timeout replaces the default. */
    f->params.marker_timeout_ns = 7 * MS_NS;
    const struct zvs_pgb_move back[] = { { 6, 1, 0 } };
    start(f, back, 1, ZVS_PGM_PASS, ZVS_PG_CAUSE_BALANCE, t0 + S_NS);
    assert_int_equal(zvs_pgm_next_deadline(&f->mv), t0 + S_NS + 7 * MS_NS);
    assert_int_equal(zvs_pgm_expire(&f->mv, &f->map, t0 + S_NS + 7 * MS_NS), 1);
    f->want[6] = 0;
    assert_table(f);
    assert_stats(f, (struct zvs_pg_stats){ .moves = 3, .marker_timeouts = 3 });
    free(f);
}

/* ---- a member stops distributing while a move is pending ---------------------------------- */

static void test_member_stops_while_pending(void **state)
{
    struct fx *f = fx_new(3);
    const struct zvs_pgb_move list[] = { { 0, 0, 1 }, { 1, 1, 0 }, { 2, 2, 1 }, { 3, 0, 2 } };
    const uint64_t t0 = 1 * S_NS, t1 = 2 * S_NS;

    start(f, list, 4, ZVS_PGM_PASS, ZVS_PG_CAUSE_BALANCE, t0);
    assert_int_equal(f->markers, 3);
    assert_int_equal(zvs_pgm_pending(&f->mv), 4);

    /* Carrier loss on slot 0, as the group reports it: the member no longer distributes,
     * then its moves. Off it (0 and 3): made now, no Marker to wait for, counted failover,
     * with the cause of now, held from now. Onto it (1): cancelled, the bucket stays on
     * slot 1. Between the others (2): still waiting for slot 2's Response. */
    f->member[0].distributing = false;
    f->mv.cause = ZVS_PG_CAUSE_CARRIER;
    zvs_pgm_member_stopped(&f->mv, &f->map, 0, t1);
    f->want[0] = 1;
    f->want[3] = 2;
    assert_table(f);
    assert_int_equal(f->nmoved, 2);
    assert_moved(f, 0, 0, 0, 1, ZVS_PG_CAUSE_CARRIER);
    assert_moved(f, 1, 3, 0, 2, ZVS_PG_CAUSE_CARRIER);
    assert_stats(f, (struct zvs_pg_stats){ .failover_moves = 2 });
    assert_int_equal(zvs_pgm_pending(&f->mv), 1);
    assert_false(zvs_pgm_is_pending(&f->mv, 1));
    assert_true(zvs_pgm_is_pending(&f->mv, 2));
    assert_int_equal(hold_of(f, 0), t1 + HOLD_NS);
    assert_int_equal(hold_of(f, 3), t1 + HOLD_NS);
    assert_int_equal(hold_of(f, 1), t0 + HOLD_NS);      /* the cancelled move's */
    assert_int_equal(hold_of(f, 2), ZVS_PG_NEVER);
    /* Slot 0's Marker is answered after all: its moves are gone. */
    assert_int_equal(zvs_pgm_answered(&f->mv, &f->map, 0, 1), 0);

    /* Slot 2's Response completes the last one with the cause it started with. */
    assert_int_equal(zvs_pgm_answered(&f->mv, &f->map, 2, 1), 1);
    f->want[2] = 1;
    assert_table(f);
    assert_moved(f, 2, 2, 2, 1, ZVS_PG_CAUSE_BALANCE);
    assert_stats(f, (struct zvs_pg_stats){ .moves = 1, .failover_moves = 2,
                                           .marker_flushes = 1 });
    assert_int_equal(zvs_pgm_pending(&f->mv), 0);
    free(f);
}

/* ---- flush ordering ----------------------------------------------------------------------- */

/* Markers go out in slot order whatever the order of the list; the moves of a Response are
 * made in bucket order; a later flush on the same member has its own id and deadline, so
 * answering it first releases only its own buckets and the earlier one still times out. */
static void test_flush_ordering(void **state)
{
    struct fx *f = fx_new(3);
    const struct zvs_pgb_move first[] = { { 5, 2, 0 }, { 7, 1, 0 }, { 9, 0, 1 }, { 4, 1, 2 },
                                          { 1, 1, 0 } };
    const uint64_t t0 = 1 * MS_NS, t1 = 2 * MS_NS;

    start(f, first, 5, ZVS_PGM_MEMBERSHIP, ZVS_PG_CAUSE_LACP, t0);
    assert_int_equal(f->markers, 3);
    assert_int_equal(f->marker_port[0], PORT(0));
    assert_int_equal(f->marker_port[1], PORT(1));
    assert_int_equal(f->marker_port[2], PORT(2));

    /* Slot 1's Response: 1, 4, 7 in bucket order, not in list order. */
    assert_int_equal(zvs_pgm_answered(&f->mv, &f->map, 1, 1), 3);
    assert_int_equal(f->nmoved, 3);
    assert_moved(f, 0, 1, 1, 0, ZVS_PG_CAUSE_LACP);
    assert_moved(f, 1, 4, 1, 2, ZVS_PG_CAUSE_LACP);
    assert_moved(f, 2, 7, 1, 0, ZVS_PG_CAUSE_LACP);
    f->want[1] = 0;
    f->want[4] = 2;
    f->want[7] = 0;

    /* A second flush on slot 0 a millisecond later: Marker xid 2, its own deadline. */
    const struct zvs_pgb_move second[] = { { 12, 0, 2 } };
    start(f, second, 1, ZVS_PGM_PASS, ZVS_PG_CAUSE_BALANCE, t1);
    assert_int_equal(f->markers, 4);
    assert_int_equal(f->marker_port[3], PORT(0));
    assert_int_equal(f->marker_xid[3], 2);
    assert_int_equal(zvs_pgm_next_deadline(&f->mv), t0 + TMO_NS);   /* the earliest */

    /* Its Response comes first: bucket 12 moves, bucket 9 (xid 1) keeps waiting. */
    assert_int_equal(zvs_pgm_answered(&f->mv, &f->map, 0, 2), 1);
    f->want[12] = 2;
    assert_table(f);
    assert_moved(f, 3, 12, 0, 2, ZVS_PG_CAUSE_BALANCE);
    assert_true(zvs_pgm_is_pending(&f->mv, 9));
    assert_true(zvs_pgm_is_pending(&f->mv, 5));

    /* The first flush's deadline: 5 (slot 2) and 9 (slot 0) together, in bucket order. */
    assert_int_equal(zvs_pgm_expire(&f->mv, &f->map, t0 + TMO_NS), 2);
    f->want[5] = 0;
    f->want[9] = 1;
    assert_table(f);
    assert_int_equal(f->nmoved, 6);
    assert_moved(f, 4, 5, 2, 0, ZVS_PG_CAUSE_LACP);
    assert_moved(f, 5, 9, 0, 1, ZVS_PG_CAUSE_LACP);
    assert_stats(f, (struct zvs_pg_stats){ .moves = 1, .membership_moves = 5,
                                           .marker_flushes = 4, .marker_timeouts = 2 });
    assert_int_equal(zvs_pgm_next_deadline(&f->mv), ZVS_PG_NEVER);
    free(f);
}

/* ---- no Marker: the move is made at once ------------------------------------------------- */

static void test_unsent_marker_moves_at_once(void **state)
{
    struct fx *f = fx_new(2);
    const struct zvs_pgb_move list[] = { { 0, 0, 1 }, { 1, 1, 0 } };
    const uint64_t t0 = 4 * S_NS;

    f->marker_rc = -ENETDOWN;                   /* the port lost carrier meanwhile */
    start(f, list, 2, ZVS_PGM_MEMBERSHIP, ZVS_PG_CAUSE_JOIN, t0);
    f->want[0] = 1;
    f->want[1] = 0;
    assert_table(f);
    assert_moved(f, 0, 0, 0, 1, ZVS_PG_CAUSE_JOIN);
    assert_moved(f, 1, 1, 1, 0, ZVS_PG_CAUSE_JOIN);
    assert_stats(f, (struct zvs_pg_stats){ .membership_moves = 2, .marker_unsent = 2 });
    assert_int_equal(zvs_pgm_pending(&f->mv), 0);
    assert_int_equal(hold_of(f, 0), t0 + HOLD_NS);

    /* No send_marker at all: the same, counted as a pass's with a hold-down of its own. */
    f->ops.send_marker = NULL;
    f->params.holddown_ns = 5 * S_NS;
    const struct zvs_pgb_move back[] = { { 0, 1, 0 } };
    start(f, back, 1, ZVS_PGM_PASS, ZVS_PG_CAUSE_BALANCE, t0 + 1);
    f->want[0] = 0;
    assert_table(f);
    assert_stats(f, (struct zvs_pg_stats){ .moves = 1, .membership_moves = 2,
                                           .marker_unsent = 3 });
    assert_int_equal(hold_of(f, 0), t0 + 1 + 5 * S_NS);
    assert_int_equal(f->markers, 0);
    free(f);
}

/* ---- moves at once and the re-layout's cancel --------------------------------------------- */

static void test_move_at_once_and_cancel_all(void **state)
{
    struct fx *f = fx_new(2);

    /* A move reports only a change of port, with the cause being made; counts nothing. */
    f->mv.cause = ZVS_PG_CAUSE_LEAVE;
    zvs_pgm_move(&f->mv, &f->map, 3, 1);
    assert_int_equal(f->nmoved, 0);
    zvs_pgm_move(&f->mv, &f->map, 3, ZVS_PG_NO_SLOT);
    f->want[3] = ZVS_PG_NO_SLOT;
    assert_table(f);
    assert_int_equal(f->nmoved, 1);
    assert_int_equal(f->moved[0].bucket, 3);
    assert_int_equal(f->moved[0].from, PORT(1));
    assert_int_equal(f->moved[0].to, ZVS_PG_NO_PORT);
    assert_int_equal(f->moved[0].cause, ZVS_PG_CAUSE_LEAVE);
    zvs_pgm_move(&f->mv, &f->map, 3, 1);
    f->want[3] = 1;
    assert_int_equal(f->moved[1].from, ZVS_PG_NO_PORT);
    assert_stats(f, (struct zvs_pg_stats){ 0 });

    /* The idle re-layout drops every pending move: buckets stay, no deadline is left,
     * and the hold-down the moves set remains. */
    const struct zvs_pgb_move list[] = { { 10, 0, 1 }, { 11, 1, 0 } };
    start(f, list, 2, ZVS_PGM_MEMBERSHIP, ZVS_PG_CAUSE_LACP, 9 * S_NS);
    assert_int_equal(zvs_pgm_pending(&f->mv), 2);
    zvs_pgm_cancel_all(&f->mv);
    assert_int_equal(zvs_pgm_pending(&f->mv), 0);
    assert_int_equal(zvs_pgm_next_deadline(&f->mv), ZVS_PG_NEVER);
    assert_int_equal(zvs_pgm_expire(&f->mv, &f->map, ZVS_PG_NEVER - 1), 0);
    assert_table(f);
    assert_int_equal(hold_of(f, 10), 9 * S_NS + HOLD_NS);
    assert_int_equal(f->nmoved, 2);
    assert_stats(f, (struct zvs_pg_stats){ 0 });
    free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_move_waits_for_marker_response),
        cmocka_unit_test(test_response_releases_its_member_only),
        cmocka_unit_test(test_marker_timeout_releases),
        cmocka_unit_test(test_member_stops_while_pending),
        cmocka_unit_test(test_flush_ordering),
        cmocka_unit_test(test_unsent_marker_moves_at_once),
        cmocka_unit_test(test_move_at_once_and_cancel_all),
    };
    return cmocka_run_group_tests_name("pgroup_moves", tests, NULL, NULL);
}
