/* The IVL domain's forwarding decision (ivl/forward_rule.c), checked as properties over
 * every case of a three-system domain: which systems have a distributing member (all 8
 * masks), where a frame starts (each system's guest, or the LAN through the partner's
 * hash onto any system that distributes), broadcast and unicast. A small model carries
 * each decision's frames: the partner switch never sends a frame back into the channel it
 * came from, the IVL carries frames between systems of one view.
 *
 * Properties: a broadcast reaches every guest but its sender exactly once and the LAN
 * exactly once (never when no system distributes: counted as no uplink); a unicast reaches
 * its one destination once; no frame crosses the IVL twice; a frame from the IVL never
 * goes back onto it. And the cut IVL: the lone system (held, not distributing) still
 * delivers to its own guests and drops toward the LAN. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "ivl/forward_rule.h"

#define NSYS 3
#define ALL  0x0E                       /* systems 1..3 */

struct hop {
    unsigned          sys;
    enum zvs_ivl_from from;
    uint8_t           kind;
    unsigned          crossings;        /* IVL crossings so far */
};

struct tally {
    unsigned guests[NSYS + 1];          /* deliveries to a system's guests */
    unsigned lan;                       /* frames the partner passed to the LAN */
    unsigned max_crossings;
    unsigned drops;
};

/* The destination as system `sys` knows it: broadcast, or a unicast to a guest of
 * `dst_sys` (0: a LAN station). */
static enum zvs_ivl_dst where(unsigned sys, bool bcast, unsigned dst_sys)
{
    if (bcast)
        return ZVS_IVL_DST_FLOOD;
    if (dst_sys == 0)
        return ZVS_IVL_DST_LAN;
    return dst_sys == sys ? ZVS_IVL_DST_LOCAL : ZVS_IVL_DST_REMOTE;
}

static void carry(struct hop start, bool bcast, unsigned dst_sys, uint8_t present,
                  uint8_t dist, struct tally *t)
{
    struct hop q[64];
    unsigned nq = 0;
    q[nq++] = start;
    for (unsigned i = 0; i < nq; i++) {
        struct hop h = q[i];
        struct zvs_ivl_fwd_in in = {
            .from = h.from, .kind = h.kind, .dst = where(h.sys, bcast, dst_sys),
            .remote = (uint8_t)dst_sys, .self = (uint8_t)h.sys, .present = present,
            .distributing = dist,
        };
        struct zvs_ivl_fwd_out out;
        zvs_ivl_forward_rule(&in, &out);
        if (h.crossings > t->max_crossings)
            t->max_crossings = h.crossings;
        if (out.drop)
            t->drops++;
        if (out.to_guests)
            t->guests[h.sys]++;
        if (out.to_members)
            t->lan++;                   /* the partner never reflects into the channel */
        uint8_t sends[3] = { out.outbound, out.inbound, out.flood };
        uint8_t kinds[3] = { ZVS_IVL_OUTBOUND, ZVS_IVL_INBOUND, ZVS_IVL_FLOOD };
        for (unsigned k = 0; k < 3; k++) {
            if (sends[k] && h.from == ZVS_IVL_FROM_IVL)
                fail_msg("system %u sent a frame from the IVL back onto it", h.sys);
            assert_int_equal(sends[k] & (1u << h.sys), 0);
            assert_int_equal(sends[k] & ~present, 0);
            for (unsigned s = 1; s <= NSYS; s++)
                if (sends[k] & (1u << s)) {
                    assert_true(nq < 64);
                    q[nq++] = (struct hop){ .sys = s, .from = ZVS_IVL_FROM_IVL,
                                            .kind = kinds[k], .crossings = h.crossings + 1 };
                }
        }
        assert_true(__builtin_popcount(out.outbound) <= 1);
        assert_true(__builtin_popcount(out.inbound) <= 1);
    }
}

static void broadcast_once_everywhere(void **state)
{
    for (uint8_t dist = 0; dist <= ALL; dist += 2) {
        /* from a guest of each system */
        for (unsigned s = 1; s <= NSYS; s++) {
            struct tally t = { 0 };
            carry((struct hop){ .sys = s, .from = ZVS_IVL_FROM_GUEST }, true, 0, ALL, dist, &t);
            for (unsigned o = 1; o <= NSYS; o++)
                assert_int_equal(t.guests[o], 1);   /* the sender's system: its others */
            assert_int_equal(t.lan, dist ? 1 : 0);
            assert_true(t.max_crossings <= 1);
            assert_int_equal(t.drops, dist ? 0 : 1);
        }
        /* from the LAN: the partner floods into the channel once, on any member */
        for (unsigned h = 1; h <= NSYS; h++) {
            if (!(dist & (1u << h)))
                continue;
            struct tally t = { 0 };
            carry((struct hop){ .sys = h, .from = ZVS_IVL_FROM_LAG }, true, 0, ALL, dist, &t);
            for (unsigned o = 1; o <= NSYS; o++)
                assert_int_equal(t.guests[o], 1);
            assert_int_equal(t.lan, 0);
            assert_true(t.max_crossings <= 1);
        }
    }
}

static void unicast_once(void **state)
{
    for (uint8_t dist = 2; dist <= ALL; dist += 2) {
        for (unsigned s = 1; s <= NSYS; s++) {
            /* guest to guest on every system */
            for (unsigned d = 1; d <= NSYS; d++) {
                struct tally t = { 0 };
                carry((struct hop){ .sys = s, .from = ZVS_IVL_FROM_GUEST }, false, d, ALL,
                      dist, &t);
                for (unsigned o = 1; o <= NSYS; o++)
                    assert_int_equal(t.guests[o], o == d ? 1 : 0);
                assert_int_equal(t.lan, 0);
                assert_true(t.max_crossings <= 1);
            }
            /* guest to the LAN: out of its own members when it has one */
            struct tally t = { 0 };
            carry((struct hop){ .sys = s, .from = ZVS_IVL_FROM_GUEST }, false, 0, ALL, dist, &t);
            assert_int_equal(t.lan, 1);
            assert_int_equal(t.max_crossings, (dist & (1u << s)) ? 0 : 1);
        }
        /* the LAN to a guest of d, hashed onto any distributing system */
        for (unsigned h = 1; h <= NSYS; h++) {
            if (!(dist & (1u << h)))
                continue;
            for (unsigned d = 1; d <= NSYS; d++) {
                struct tally t = { 0 };
                carry((struct hop){ .sys = h, .from = ZVS_IVL_FROM_LAG }, false, d, ALL,
                      dist, &t);
                for (unsigned o = 1; o <= NSYS; o++)
                    assert_int_equal(t.guests[o], o == d ? 1 : 0);
                assert_int_equal(t.max_crossings, h == d ? 0 : 1);
            }
        }
    }
}

static void cut_ivl_lone_system(void **state)
{
    /* system 3 alone (held: not distributing), 1 and 2 together */
    struct tally t = { 0 };
    carry((struct hop){ .sys = 3, .from = ZVS_IVL_FROM_GUEST }, true, 0, 0x08, 0, &t);
    assert_int_equal(t.guests[3], 1);
    assert_int_equal(t.lan, 0);
    assert_int_equal(t.drops, 1);
    memset(&t, 0, sizeof t);
    carry((struct hop){ .sys = 1, .from = ZVS_IVL_FROM_LAG }, true, 0, 0x06, 0x06, &t);
    assert_int_equal(t.guests[1], 1);
    assert_int_equal(t.guests[2], 1);
    assert_int_equal(t.guests[3], 0);
}

static void drops_named(void **state)
{
    struct zvs_ivl_fwd_out out;
    struct zvs_ivl_fwd_in in = { .from = ZVS_IVL_FROM_IVL, .kind = ZVS_IVL_OUTBOUND,
                                 .self = 1, .present = ALL, .distributing = 0x04 };
    zvs_ivl_forward_rule(&in, &out);
    assert_int_equal(out.drop, ZVS_IVL_FWD_NO_UPLINK);
    in.kind = ZVS_IVL_INBOUND;
    in.dst = ZVS_IVL_DST_FLOOD;
    zvs_ivl_forward_rule(&in, &out);
    assert_int_equal(out.drop, ZVS_IVL_FWD_NO_GUEST);
    in.kind = 9;
    zvs_ivl_forward_rule(&in, &out);
    assert_int_equal(out.drop, ZVS_IVL_FWD_BAD_KIND);
    in = (struct zvs_ivl_fwd_in){ .from = ZVS_IVL_FROM_LAG, .dst = ZVS_IVL_DST_LAN,
                                  .self = 1, .present = ALL, .distributing = ALL };
    zvs_ivl_forward_rule(&in, &out);
    assert_int_equal(out.drop, ZVS_IVL_FWD_REFLECTED);
    assert_false(out.to_members || out.to_guests || out.flood || out.inbound);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(broadcast_once_everywhere),
        cmocka_unit_test(unicast_once),
        cmocka_unit_test(cut_ivl_lone_system),
        cmocka_unit_test(drops_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
