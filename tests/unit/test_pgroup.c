/* Port group (pgroup.h): distribution, swap, failover, Marker flush, INTERVAL passes, on
 * virtual time. Members are switch ports 10 + slot. A small simulator feeds steady
 * per-bucket loads through the live map into the bucket counters and port counters. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "lag/pgroup.h"

#define S_NS     1000000000ull
#define IVL_S    10u
#define PORT(s)  ((uint16_t)(10 + (s)))

struct sim {
    struct zvs_pgroup *g;
    uint64_t now;
    double   rate[ZVS_PG_BUCKETS];              /* outbound bytes/s per bucket */
    double   in_rate[ZVS_PG_MAX_MEMBERS];       /* inbound bytes/s per slot */
    uint64_t out_bytes[ZVS_PG_MAX_MEMBERS];     /* port counters, by slot */
    uint64_t in_bytes[ZVS_PG_MAX_MEMBERS];
    double   ivl_out[ZVS_PG_MAX_MEMBERS];       /* bytes per slot in the last interval */
    /* Marker fake */
    int      marker_rc;
    bool     auto_answer;                       /* answer every Marker after run() */
    unsigned markers;
    uint16_t marker_port[64];
    uint32_t marker_xid[64];
    unsigned answered;
};

static int fake_send_marker(void *arg, uint16_t port, uint32_t *xid)
{
    struct sim *s = arg;
    if (s->marker_rc)
        return s->marker_rc;
    assert_true(s->markers < 64);
    s->marker_port[s->markers] = port;
    s->marker_xid[s->markers] = 0x1000 + s->markers;
    *xid = s->marker_xid[s->markers];
    s->markers++;
    return 0;
}

static const struct zvs_pg_ops marker_ops = { .send_marker = fake_send_marker };

static struct zvs_pgroup *make(struct sim *s, unsigned members, unsigned up,
                               const struct zvs_pg_ops *ops, enum zvs_pg_policy pol)
{
    struct zvs_pg_params p = { .name = "GRP1", .interval_s = IVL_S, .policy = pol };
    memset(s, 0, sizeof(*s));
    s->g = zvs_pgroup_create(&p, ops, s);
    assert_non_null(s->g);
    for (unsigned i = 0; i < members; i++)
        assert_int_equal(zvs_pgroup_join(s->g, PORT(i), "28BA", 1000000000ull, 0), (int)i);
    for (unsigned i = 0; i < up; i++)
        assert_int_equal(zvs_pgroup_set_state(s->g, PORT(i), true, true, 0), 0);
    return s->g;
}

static void answer_all(struct sim *s)
{
    for (; s->answered < s->markers; s->answered++)
        zvs_pgroup_marker_answered(s->g, s->marker_port[s->answered],
                                   s->marker_xid[s->answered], s->now);
}

static int run(struct sim *s)
{
    struct zvs_pg_sample smp[ZVS_PG_MAX_MEMBERS];
    int n = 0;
    for (unsigned i = 0; i < ZVS_PG_MAX_MEMBERS; i++) {
        if (!zvs_pgroup_member(s->g, i))
            continue;
        smp[n++] = (struct zvs_pg_sample){ PORT(i), s->out_bytes[i], s->in_bytes[i] };
    }
    int rc = zvs_pgroup_run(s->g, s->now, smp, n);
    if (s->auto_answer)
        answer_all(s);
    return rc;
}

/* Advance one interval of steady load through the live map, then run(). */
static int step(struct sim *s)
{
    const struct zvs_pg_map *m = zvs_pgroup_map(s->g);
    uint64_t *bytes = zvs_pgroup_bucket_bytes(s->g);

    memset(s->ivl_out, 0, sizeof(s->ivl_out));
    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++) {
        uint64_t n = (uint64_t)(s->rate[b] * IVL_S);
        bytes[b] += n;
        if (m->bucket_slot[b] < ZVS_PG_MAX_MEMBERS) {
            s->out_bytes[m->bucket_slot[b]] += n;
            s->ivl_out[m->bucket_slot[b]] += (double)n;
        }
    }
    for (unsigned i = 0; i < ZVS_PG_MAX_MEMBERS; i++)
        s->in_bytes[i] += (uint64_t)(s->in_rate[i] * IVL_S);
    s->now += IVL_S * S_NS;
    return run(s);
}

/* max/mean of outbound bytes per distributing member over the last interval. */
static double ivl_ratio(const struct sim *s)
{
    double sum = 0, max = 0;
    unsigned n = 0;
    for (unsigned i = 0; i < ZVS_PG_MAX_MEMBERS; i++) {
        const struct zvs_pg_member *m = zvs_pgroup_member(s->g, i);
        if (!m || !m->distributing)
            continue;
        sum += s->ivl_out[i];
        max = s->ivl_out[i] > max ? s->ivl_out[i] : max;
        n++;
    }
    return max / (sum / n);
}

static unsigned on_slot(const struct zvs_pg_map *m, unsigned slot)
{
    unsigned n = 0;
    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++)
        n += m->bucket_slot[b] == slot;
    return n;
}

/* Every bucket has carried a byte: the group is no longer idle. */
static void make_busy(struct sim *s)
{
    uint64_t *bytes = zvs_pgroup_bucket_bytes(s->g);
    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++)
        bytes[b] += 1000;
}

/* ---- creation and membership --------------------------------------------------------- */

static void test_create_params(void **state)
{
    struct zvs_pg_params p = { .name = "GRP1", .interval_s = ZVS_PG_INTERVAL_MAX_S + 1 };
    assert_null(zvs_pgroup_create(&p, NULL, NULL));
    p.interval_s = 300;
    p.lbt_percent = 101;
    assert_null(zvs_pgroup_create(&p, NULL, NULL));
    p.lbt_percent = 0;
    struct zvs_pgroup *g = zvs_pgroup_create(&p, NULL, NULL);
    assert_non_null(g);
    assert_int_equal(zvs_pgroup_params(g)->lbt_percent, 75);
    assert_string_equal(zvs_pgroup_params(g)->name, "GRP1");
    const struct zvs_pg_map *m = zvs_pgroup_map(g);
    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++) {
        assert_int_equal(m->bucket_port[b], ZVS_PG_NO_PORT);
        assert_int_equal(m->bucket_slot[b], ZVS_PG_NO_SLOT);
    }
    assert_int_equal(m->flood_port, ZVS_PG_NO_PORT);
    assert_int_equal(m->generation, 0);
    assert_int_equal(zvs_pgroup_next_wakeup(g), ZVS_PG_NEVER);   /* clock not started */
    assert_string_equal(zvs_pg_hash_name(ZVS_PG_HASH_SRC_DST), "SRC-DST");
    assert_string_equal(zvs_pg_hash_name(ZVS_PG_HASH_DST), "DST");
    assert_string_equal(zvs_pg_policy_name(ZVS_PG_POLICY_LBT), "LBT");
    zvs_pgroup_set_hash(g, ZVS_PG_HASH_SRC);
    assert_int_equal(zvs_pgroup_params(g)->hash, ZVS_PG_HASH_SRC);
    char text[24];
    assert_string_equal(zvs_pg_policy_str(zvs_pgroup_params(g), text, sizeof text),
                        "LOAD TOTAL");              /* the default */
    zvs_pgroup_set_load(g, ZVS_PG_LOAD_OUTBOUND);
    assert_string_equal(zvs_pg_policy_str(zvs_pgroup_params(g), text, sizeof text),
                        "LOAD OUTBOUND");
    zvs_pgroup_set_load(g, (enum zvs_pg_load)2);    /* not a measure: ignored */
    assert_int_equal(zvs_pgroup_params(g)->load, ZVS_PG_LOAD_OUTBOUND);
    zvs_pgroup_set_policy(g, ZVS_PG_POLICY_LBT);
    assert_int_equal(zvs_pgroup_params(g)->policy, ZVS_PG_POLICY_LBT);
    zvs_pgroup_set_lbt_percent(g, 60);
    assert_string_equal(zvs_pg_policy_str(zvs_pgroup_params(g), text, sizeof text), "LBT 60");
    zvs_pgroup_set_lbt_percent(g, 0);
    assert_string_equal(zvs_pg_policy_str(zvs_pgroup_params(g), text, sizeof text), "LBT 75");
    zvs_pgroup_destroy(g);
    p.load = (enum zvs_pg_load)2;
    assert_null(zvs_pgroup_create(&p, NULL, NULL));
}

static void test_join_leave_limits(void **state)
{
    struct sim s;
    struct zvs_pgroup *g = make(&s, 8, 0, NULL, ZVS_PG_POLICY_LOAD);

    assert_int_equal(zvs_pgroup_members(g), 8);
    assert_int_equal(zvs_pgroup_join(g, 99, "29BA", 0, 0), -ENOSPC);
    assert_int_equal(zvs_pgroup_join(g, PORT(3), "28BA", 0, 0), -EEXIST);
    assert_int_equal(zvs_pgroup_leave(g, 99, 0), -ENOENT);
    assert_int_equal(zvs_pgroup_set_state(g, 99, true, true, 0), -ENOENT);
    assert_int_equal(zvs_pgroup_slot_of(g, 99), -ENOENT);
    assert_int_equal(zvs_pgroup_leave(g, PORT(3), 0), 0);
    assert_null(zvs_pgroup_member(g, 3));
    assert_null(zvs_pgroup_member(g, 8));
    assert_int_equal(zvs_pgroup_members(g), 7);
    assert_int_equal(zvs_pgroup_join(g, 99, "29BA.P1", 10000000000ull, 0), 3);
    const struct zvs_pg_member *m = zvs_pgroup_member(g, 3);
    assert_string_equal(m->rdev, "29BA.P1");
    assert_int_equal(m->port, 99);
    assert_false(m->distributing);
    assert_int_equal(zvs_pgroup_distributing(g), 0);
    assert_int_equal(zvs_pgroup_stats(g)->publishes, 0);   /* nobody distributes yet */
    zvs_pgroup_destroy(g);
}

/* ---- distribution -------------------------------------------------------------------- */

static void spread(unsigned n)
{
    struct sim s;
    struct zvs_pgroup *g = make(&s, n, n, NULL, ZVS_PG_POLICY_LOAD);
    const struct zvs_pg_map *m = zvs_pgroup_map(g);

    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++) {
        assert_int_equal(m->bucket_slot[b], b % n);
        assert_int_equal(m->bucket_port[b], PORT(b % n));
    }
    /* Sequential suffixes: any n in a row land on n different members. */
    for (unsigned first = 0; first + n <= 8; first++) {
        unsigned seen = 0;
        for (unsigned b = first; b < first + n; b++)
            seen |= 1u << m->bucket_slot[b];
        assert_int_equal(seen, (1u << n) - 1);
    }
    for (unsigned i = 0; i < n; i++) {
        assert_int_equal(zvs_pgroup_member(g, i)->buckets, ZVS_PG_BUCKETS / n);
        assert_int_equal(on_slot(m, i), ZVS_PG_BUCKETS / n);
    }
    assert_int_equal(m->flood_port, PORT(0));
    assert_int_equal(m->generation, n);                    /* one publish per set_state */
    assert_int_equal(zvs_pgroup_stats(g)->publishes, n);
    assert_int_equal(zvs_pgroup_pending_moves(g), 0);
    assert_int_equal(zvs_pgroup_stats(g)->marker_unsent, 0);  /* idle: no flush needed */
    zvs_pgroup_destroy(g);
}

static void test_initial_spread(void **state)
{
    spread(2);
    spread(4);
    spread(8);
    /* Two members: the second takes exactly the odd suffixes. */
    struct sim s;
    struct zvs_pgroup *g = make(&s, 2, 2, NULL, ZVS_PG_POLICY_LOAD);
    assert_int_equal(zvs_pgroup_stats(g)->membership_moves, 128);
    zvs_pgroup_destroy(g);
}

/* The data path's view: bucket by MAC suffix, lookup in the live map. */
static void test_bucket_choice(void **state)
{
    const uint8_t dst[6] = { 2, 0, 0, 0, 0, 0x35 }, src[6] = { 2, 0, 0, 0, 0, 0x0F };
    assert_int_equal(zvs_pg_bucket(ZVS_PG_HASH_DST, dst, src), 0x35);
    assert_int_equal(zvs_pg_bucket(ZVS_PG_HASH_SRC, dst, src), 0x0F);
    assert_int_equal(zvs_pg_bucket(ZVS_PG_HASH_SRC_DST, dst, src), 0x3A);
}

/* DISTRIBUTION UDPPORT: a UDP frame's source port picks the bucket (its bytes XORed),
 * tagged or not, IPv4 or IPv6; anything else, a later IPv4 fragment, or headers beyond the
 * bytes given fall back to the destination MAC. VXLAN flows to one VTEP (one MAC) spread
 * over the buckets where the MAC suffix would put them all in one. */
static void udp_frame(uint8_t *f, bool tagged, bool v6, uint16_t sport)
{
    unsigned l3 = tagged ? 18 : 14;

    memset(f, 0, 80);
    f[5] = 0x35;
    if (tagged) {
        f[12] = 0x81;
        f[15] = 7;
    }
    f[l3 - 2] = v6 ? 0x86 : 0x08;
    f[l3 - 1] = v6 ? 0xDD : 0x00;
    f[l3] = v6 ? 0x60 : 0x45;
    f[l3 + (v6 ? 6 : 9)] = 17;
    unsigned l4 = l3 + (v6 ? 40 : 20);
    f[l4] = (uint8_t)(sport >> 8);
    f[l4 + 1] = (uint8_t)sport;
}

static void test_bucket_udp_sport(void **state)
{
    uint8_t f[80];

    udp_frame(f, false, false, 0xC1A2);
    assert_int_equal(zvs_pg_frame_bucket(ZVS_PG_HASH_UDP_SPORT, f, 80), 0xC1 ^ 0xA2);
    assert_int_equal(zvs_pg_frame_bucket(ZVS_PG_HASH_DST, f, 80), 0x35);
    assert_int_equal(zvs_pg_frame_bucket(ZVS_PG_HASH_UDP_SPORT, f, 35), 0x35);
    udp_frame(f, true, false, 0xC1A2);
    assert_int_equal(zvs_pg_frame_bucket(ZVS_PG_HASH_UDP_SPORT, f, 80), 0xC1 ^ 0xA2);
    udp_frame(f, false, true, 0xC1A2);
    assert_int_equal(zvs_pg_frame_bucket(ZVS_PG_HASH_UDP_SPORT, f, 80), 0xC1 ^ 0xA2);
    udp_frame(f, true, true, 0xFF00);
    assert_int_equal(zvs_pg_frame_bucket(ZVS_PG_HASH_UDP_SPORT, f, 80), 0xFF);
    udp_frame(f, false, false, 0xC1A2);
    f[20] = 0x00;
    f[21] = 0x10;                                       /* a later fragment: no ports */
    assert_int_equal(zvs_pg_frame_bucket(ZVS_PG_HASH_UDP_SPORT, f, 80), 0x35);
    udp_frame(f, false, false, 0xC1A2);
    f[23] = 6;                                          /* TCP */
    assert_int_equal(zvs_pg_frame_bucket(ZVS_PG_HASH_UDP_SPORT, f, 80), 0x35);
    assert_string_equal(zvs_pg_hash_name(ZVS_PG_HASH_UDP_SPORT), "UDP-SPORT");

    uint8_t seen[ZVS_PG_BUCKETS] = { 0 };
    unsigned distinct = 0;
    for (unsigned p = 49152; p < 49152 + 1024; p += 4) {
        udp_frame(f, false, false, (uint16_t)p);
        if (!seen[zvs_pg_frame_bucket(ZVS_PG_HASH_UDP_SPORT, f, 80)]++)
            distinct++;
    }
    assert_true(distinct >= 64);
}

/* ---- the swap ------------------------------------------------------------------------ */

static void test_swap_once_per_operation(void **state)
{
    struct sim s;
    struct zvs_pgroup *g = make(&s, 2, 2, NULL, ZVS_PG_POLICY_LOAD);
    struct zvs_pg_map copy;

    make_busy(&s);
    const struct zvs_pg_map *old = zvs_pgroup_map(g);
    memcpy(&copy, old, sizeof(copy));
    uint64_t pubs = zvs_pgroup_stats(g)->publishes;

    assert_int_equal(zvs_pgroup_set_state(g, PORT(1), true, false, 1), 0);  /* failover */
    const struct zvs_pg_map *now = zvs_pgroup_map(g);
    assert_ptr_not_equal(now, old);
    assert_int_equal(now->generation, copy.generation + 1);
    assert_int_equal(zvs_pgroup_stats(g)->publishes, pubs + 1);
    assert_memory_equal(old, &copy, sizeof(copy));          /* old table untouched */
    assert_int_equal(on_slot(now, 0), 256);

    /* No change, no publish. */
    assert_int_equal(zvs_pgroup_set_state(g, PORT(1), false, false, 2), 0);
    assert_ptr_equal(zvs_pgroup_map(g), now);
    assert_int_equal(zvs_pgroup_stats(g)->publishes, pubs + 1);

    /* Return without Marker support: 128 buckets move at once, still one publish. */
    assert_int_equal(zvs_pgroup_set_state(g, PORT(1), true, true, 3), 0);
    assert_ptr_equal(zvs_pgroup_map(g), old);
    assert_int_equal(zvs_pgroup_map(g)->generation, copy.generation + 2);
    assert_int_equal(zvs_pgroup_stats(g)->publishes, pubs + 2);
    assert_int_equal(zvs_pgroup_stats(g)->marker_unsent, 128);
    assert_int_equal(on_slot(zvs_pgroup_map(g), 1), 128);
    zvs_pgroup_destroy(g);
}

/* ---- failover ------------------------------------------------------------------------ */

static void test_failover_moves_every_bucket(void **state)
{
    struct sim s;
    struct zvs_pgroup *g = make(&s, 4, 4, NULL, ZVS_PG_POLICY_LOAD);
    uint64_t gen = zvs_pgroup_map(g)->generation;

    make_busy(&s);
    assert_int_equal(zvs_pgroup_set_state(g, PORT(0), true, false, 5), 0);
    const struct zvs_pg_map *m = zvs_pgroup_map(g);
    assert_int_equal(m->generation, gen + 1);
    assert_int_equal(on_slot(m, 0), 0);
    assert_int_equal(m->flood_port, PORT(1));
    assert_int_equal(zvs_pgroup_stats(g)->failover_moves, 64);
    /* Round robin over equal survivors: 22 / 21 / 21 more. */
    assert_int_equal(zvs_pgroup_member(g, 1)->buckets, 86);
    assert_int_equal(zvs_pgroup_member(g, 2)->buckets, 85);
    assert_int_equal(zvs_pgroup_member(g, 3)->buckets, 85);
    assert_int_equal(m->bucket_slot[0], 1);
    assert_int_equal(m->bucket_slot[4], 2);
    assert_int_equal(m->bucket_slot[8], 3);
    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++)
        assert_int_equal(m->bucket_port[b], PORT(m->bucket_slot[b]));

    /* Whole group down: no port anywhere. */
    for (unsigned i = 1; i < 4; i++)
        assert_int_equal(zvs_pgroup_set_state(g, PORT(i), false, false, 6), 0);
    m = zvs_pgroup_map(g);
    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++) {
        assert_int_equal(m->bucket_port[b], ZVS_PG_NO_PORT);
        assert_int_equal(m->bucket_slot[b], ZVS_PG_NO_SLOT);
    }
    assert_int_equal(m->flood_port, ZVS_PG_NO_PORT);
    assert_int_equal(zvs_pgroup_distributing(g), 0);
    assert_int_equal(zvs_pgroup_stats(g)->failover_moves, 64 + 86 + 128);  /* the last has none to give */

    /* The first to return takes everything at once. */
    assert_int_equal(zvs_pgroup_set_state(g, PORT(2), true, true, 7), 0);
    m = zvs_pgroup_map(g);
    assert_int_equal(on_slot(m, 2), 256);
    assert_int_equal(m->flood_port, PORT(2));
    assert_int_equal(zvs_pgroup_pending_moves(g), 0);
    zvs_pgroup_destroy(g);
}

static void test_flood_port_stable(void **state)
{
    struct sim s;
    struct zvs_pgroup *g = make(&s, 3, 3, NULL, ZVS_PG_POLICY_LOAD);

    assert_int_equal(zvs_pgroup_map(g)->flood_port, PORT(0));
    zvs_pgroup_set_state(g, PORT(0), false, false, 1);
    assert_int_equal(zvs_pgroup_map(g)->flood_port, PORT(1));
    zvs_pgroup_set_state(g, PORT(0), true, true, 2);       /* returns: slot 1 keeps it */
    assert_int_equal(zvs_pgroup_map(g)->flood_port, PORT(1));
    zvs_pgroup_set_state(g, PORT(2), false, false, 3);     /* another leaves: unchanged */
    assert_int_equal(zvs_pgroup_map(g)->flood_port, PORT(1));
    zvs_pgroup_destroy(g);
}

static void test_leave(void **state)
{
    struct sim s;
    struct zvs_pgroup *g = make(&s, 3, 3, NULL, ZVS_PG_POLICY_LOAD);
    uint64_t pubs = zvs_pgroup_stats(g)->publishes;

    make_busy(&s);
    assert_int_equal(zvs_pgroup_leave(g, PORT(1), 9), 0);
    assert_int_equal(zvs_pgroup_slot_of(g, PORT(1)), -ENOENT);
    assert_int_equal(zvs_pgroup_members(g), 2);
    assert_int_equal(zvs_pgroup_distributing(g), 2);
    assert_int_equal(zvs_pgroup_stats(g)->publishes, pubs + 1);
    assert_int_equal(zvs_pgroup_stats(g)->failover_moves, 85);
    const struct zvs_pg_map *m = zvs_pgroup_map(g);
    assert_int_equal(on_slot(m, 1), 0);
    assert_int_equal(on_slot(m, 0) + on_slot(m, 2), 256);
    assert_int_equal(zvs_pgroup_member(g, 0)->buckets, 128);
    assert_int_equal(zvs_pgroup_member(g, 2)->buckets, 128);
    /* Leaving a member that does not distribute publishes nothing. */
    zvs_pgroup_join(g, PORT(5), "29BA", 0, 9);
    assert_int_equal(zvs_pgroup_leave(g, PORT(5), 9), 0);
    assert_int_equal(zvs_pgroup_stats(g)->publishes, pubs + 1);
    zvs_pgroup_destroy(g);
}

/* ---- Marker flush -------------------------------------------------------------------- */

/* Slot 0 carries everything (busy); slot 1 returns and asks for its share. */
static struct zvs_pgroup *returning(struct sim *s)
{
    struct zvs_pgroup *g = make(s, 2, 1, &marker_ops, ZVS_PG_POLICY_LOAD);
    make_busy(s);
    s->now = 100;
    assert_int_equal(zvs_pgroup_set_state(g, PORT(1), true, true, s->now), 0);
    return g;
}

static void test_marker_flush_then_move(void **state)
{
    struct sim s;
    struct zvs_pgroup *g = returning(&s);
    const struct zvs_pg_map *m = zvs_pgroup_map(g);
    uint32_t gen = m->generation;

    /* One Marker on the old port for the 128 moves; nothing moved yet. */
    assert_int_equal(s.markers, 1);
    assert_int_equal(s.marker_port[0], PORT(0));
    assert_int_equal(zvs_pgroup_pending_moves(g), 128);
    assert_int_equal(on_slot(m, 0), 256);
    assert_int_equal(m->generation, gen);
    assert_int_equal(zvs_pgroup_next_wakeup(g), 100 + ZVS_PG_MARKER_TIMEOUT_NS);

    /* Unknown xid, or the right xid on the wrong port: ignored. */
    assert_int_equal(zvs_pgroup_marker_answered(g, PORT(0), 0x9999, 200), -ENOENT);
    assert_int_equal(zvs_pgroup_marker_answered(g, PORT(1), s.marker_xid[0], 200), -ENOENT);
    assert_int_equal(zvs_pgroup_pending_moves(g), 128);
    assert_ptr_equal(zvs_pgroup_map(g), m);

    assert_int_equal(zvs_pgroup_marker_answered(g, PORT(0), s.marker_xid[0], 300), 0);
    m = zvs_pgroup_map(g);
    assert_int_equal(m->generation, gen + 1);
    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++)     /* the odd suffixes (ties: b mod 2) */
        assert_int_equal(m->bucket_slot[b], b % 2);
    const struct zvs_pg_stats *st = zvs_pgroup_stats(g);
    assert_int_equal(st->marker_flushes, 128);
    assert_int_equal(st->membership_moves, 128);
    assert_int_equal(st->marker_timeouts, 0);
    assert_int_equal(zvs_pgroup_pending_moves(g), 0);
    /* Answered twice: the second is unknown. */
    assert_int_equal(zvs_pgroup_marker_answered(g, PORT(0), s.marker_xid[0], 301), -ENOENT);
    zvs_pgroup_destroy(g);
}

static void test_marker_timeout(void **state)
{
    struct sim s;
    struct zvs_pgroup *g = returning(&s);
    uint64_t deadline = 100 + ZVS_PG_MARKER_TIMEOUT_NS;

    assert_int_equal(zvs_pgroup_run(g, deadline - 1, NULL, 0), 0);
    assert_int_equal(zvs_pgroup_pending_moves(g), 128);
    assert_int_equal(on_slot(zvs_pgroup_map(g), 1), 0);
    assert_int_equal(zvs_pgroup_run(g, deadline, NULL, 0), 0);
    assert_int_equal(zvs_pgroup_pending_moves(g), 0);
    assert_int_equal(on_slot(zvs_pgroup_map(g), 1), 128);
    assert_int_equal(zvs_pgroup_stats(g)->marker_timeouts, 128);
    assert_int_equal(zvs_pgroup_stats(g)->marker_flushes, 0);
    assert_int_equal(zvs_pgroup_next_wakeup(g), IVL_S * S_NS);
    /* A late answer finds nothing. */
    assert_int_equal(zvs_pgroup_marker_answered(g, PORT(0), s.marker_xid[0], deadline), -ENOENT);
    zvs_pgroup_destroy(g);
}

static void test_marker_unsent(void **state)
{
    struct sim s;
    struct zvs_pgroup *g = make(&s, 2, 1, &marker_ops, ZVS_PG_POLICY_LOAD);
    s.marker_rc = -EIO;
    make_busy(&s);
    assert_int_equal(zvs_pgroup_set_state(g, PORT(1), true, true, 1), 0);
    assert_int_equal(zvs_pgroup_pending_moves(g), 0);
    assert_int_equal(on_slot(zvs_pgroup_map(g), 1), 128);
    assert_int_equal(zvs_pgroup_stats(g)->marker_unsent, 128);
    assert_int_equal(zvs_pgroup_stats(g)->membership_moves, 128);
    zvs_pgroup_destroy(g);
}

/* A pending move whose destination fails is cancelled; one whose source fails completes. */
static void test_pending_member_gone(void **state)
{
    struct sim s;
    struct zvs_pgroup *g = returning(&s);

    assert_int_equal(zvs_pgroup_set_state(g, PORT(1), true, false, 200), 0);
    assert_int_equal(zvs_pgroup_pending_moves(g), 0);
    assert_int_equal(on_slot(zvs_pgroup_map(g), 0), 256);
    assert_int_equal(zvs_pgroup_stats(g)->failover_moves, 0);
    zvs_pgroup_destroy(g);

    g = returning(&s);
    assert_int_equal(zvs_pgroup_set_state(g, PORT(0), true, false, 200), 0);
    assert_int_equal(zvs_pgroup_pending_moves(g), 0);
    assert_int_equal(on_slot(zvs_pgroup_map(g), 1), 256);
    assert_int_equal(zvs_pgroup_stats(g)->failover_moves, 256);
    assert_int_equal(zvs_pgroup_stats(g)->membership_moves, 0);
    assert_int_equal(zvs_pgroup_map(g)->flood_port, PORT(1));
    zvs_pgroup_destroy(g);
}

/* A loaded group: the returning third member takes 85 of the least loaded buckets, one at
 * a time from whoever holds most, through one Marker per donor port. */
static void test_join_fair_share_via_flush(void **state)
{
    struct sim s;
    struct zvs_pgroup *g = make(&s, 3, 2, &marker_ops, ZVS_PG_POLICY_LOAD);

    s.auto_answer = true;
    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++)
        s.rate[b] = 1000 + b;           /* lighter buckets have lower suffixes */
    run(&s);
    step(&s);
    assert_true(zvs_pgroup_bucket_load(g, 7) == 1007.0);
    assert_int_equal(zvs_pgroup_stats(g)->moves, 0);       /* 1.0-ish: nothing to do */
    s.auto_answer = false;
    assert_int_equal(zvs_pgroup_set_state(g, PORT(2), true, true, s.now + 1), 0);
    assert_int_equal(s.markers, 2);
    assert_int_equal(s.marker_port[0], PORT(0));
    assert_int_equal(s.marker_port[1], PORT(1));
    assert_int_equal(zvs_pgroup_pending_moves(g), 85);
    assert_int_equal(on_slot(zvs_pgroup_map(g), 2), 0);
    answer_all(&s);
    const struct zvs_pg_map *m = zvs_pgroup_map(g);
    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++)
        assert_int_equal(m->bucket_slot[b], b < 85 ? 2 : b % 2);
    assert_int_equal(zvs_pgroup_member(g, 0)->buckets, 85);
    assert_int_equal(zvs_pgroup_member(g, 1)->buckets, 86);
    assert_int_equal(zvs_pgroup_member(g, 2)->buckets, 85);
    assert_int_equal(zvs_pgroup_stats(g)->membership_moves, 128 + 85);  /* 128: 2nd up, idle */
    assert_int_equal(zvs_pgroup_stats(g)->marker_flushes, 85);
    zvs_pgroup_destroy(g);
}

/* ---- INTERVAL ------------------------------------------------------------------------ */

static void test_set_interval_bounds(void **state)
{
    struct sim s;
    struct zvs_pgroup *g = make(&s, 2, 2, NULL, ZVS_PG_POLICY_LOAD);

    assert_int_equal(zvs_pgroup_next_wakeup(g), IVL_S * S_NS);
    assert_int_equal(zvs_pgroup_set_interval(g, 9991, 5), -EINVAL);
    assert_int_equal(zvs_pgroup_params(g)->interval_s, IVL_S);
    assert_int_equal(zvs_pgroup_set_interval(g, 9990, 5), 0);
    assert_int_equal(zvs_pgroup_next_wakeup(g), 5 + 9990ull * S_NS);
    assert_int_equal(zvs_pgroup_set_interval(g, 1, 7), 0);
    assert_int_equal(zvs_pgroup_next_wakeup(g), 7 + S_NS);
    assert_int_equal(zvs_pgroup_set_interval(g, 0, 8), 0);  /* OFF */
    assert_int_equal(zvs_pgroup_next_wakeup(g), ZVS_PG_NEVER);
    s.now = 100 * S_NS;
    assert_int_equal(run(&s), 0);
    assert_int_equal(zvs_pgroup_stats(g)->passes, 0);
    assert_int_equal(zvs_pgroup_set_interval(g, 300, s.now), 0);
    assert_int_equal(zvs_pgroup_params(g)->interval_s, 300);
    assert_int_equal(zvs_pgroup_run(g, s.now + 300 * S_NS, NULL, 0), 0);  /* no samples */
    s.now += 300 * S_NS;
    assert_int_equal(run(&s), 1);
    assert_int_equal(zvs_pgroup_stats(g)->passes, 1);
    assert_int_equal(zvs_pgroup_next_wakeup(g), s.now + 300 * S_NS);
    zvs_pgroup_destroy(g);
}

/* Decaying average: first sample as is, then 0.5 old + 0.5 new. */
static void test_bucket_load_decay(void **state)
{
    struct sim s;
    struct zvs_pgroup *g = make(&s, 2, 2, NULL, ZVS_PG_POLICY_LOAD);

    s.rate[3] = 4000;
    assert_int_equal(step(&s), 1);
    assert_true(zvs_pgroup_bucket_load(g, 3) == 4000.0);
    assert_int_equal(zvs_pgroup_bucket_bytes(g)[3], 0);   /* counters zeroed */
    s.rate[3] = 0;
    step(&s);
    assert_true(zvs_pgroup_bucket_load(g, 3) == 2000.0);
    step(&s);
    assert_true(zvs_pgroup_bucket_load(g, 3) == 1000.0);
    assert_true(zvs_pgroup_bucket_load(g, 999) == 0.0);
    /* Member rates from the counters: slot 1 carried bucket 3 in the first interval. */
    assert_true(zvs_pgroup_member(g, 1)->out_bps == 0.0);
    zvs_pgroup_destroy(g);
}

/* Two heavy buckets (0 and 2) start on port 0: one pass moves one of them. */
static void test_skew_converges_2p(void **state)
{
    struct sim s;
    struct zvs_pgroup *g = make(&s, 2, 2, &marker_ops, ZVS_PG_POLICY_LOAD);

    s.auto_answer = true;
    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++)
        s.rate[b] = 10000;
    s.rate[0] = s.rate[2] = 5000000;
    run(&s);                            /* port counter baselines at t = 0 */
    assert_int_equal(step(&s), 1);
    assert_true(ivl_ratio(&s) > 1.5);
    assert_int_equal(zvs_pgroup_stats(g)->moves, 1);
    assert_int_equal(zvs_pgroup_map(g)->bucket_slot[0], 1);
    assert_int_equal(zvs_pgroup_map(g)->bucket_slot[2], 0);
    assert_int_equal(zvs_pgroup_stats(g)->marker_flushes, 1);
    step(&s);
    assert_true(ivl_ratio(&s) <= 1.10);
    for (unsigned i = 0; i < 100; i++) {
        step(&s);
        assert_true(ivl_ratio(&s) <= 1.10);
    }
    assert_int_equal(zvs_pgroup_stats(g)->moves, 1);
    assert_int_equal(zvs_pgroup_stats(g)->passes, 102);
    assert_int_equal(zvs_pgroup_stats(g)->heavy_buckets, 0);
    zvs_pgroup_destroy(g);
}

/* The same with a Marker that is never answered: the move happens at the deadline. */
static void test_skew_marker_timeout(void **state)
{
    struct sim s;
    struct zvs_pgroup *g = make(&s, 2, 2, &marker_ops, ZVS_PG_POLICY_LOAD);

    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++)
        s.rate[b] = 10000;
    s.rate[0] = s.rate[2] = 5000000;
    run(&s);
    step(&s);
    assert_int_equal(zvs_pgroup_pending_moves(g), 1);
    assert_int_equal(zvs_pgroup_map(g)->bucket_slot[0], 0);       /* still on the old port */
    assert_int_equal(zvs_pgroup_next_wakeup(g), s.now + ZVS_PG_MARKER_TIMEOUT_NS);
    assert_int_equal(zvs_pgroup_run(g, s.now + ZVS_PG_MARKER_TIMEOUT_NS, NULL, 0), 0);
    assert_int_equal(zvs_pgroup_map(g)->bucket_slot[0], 1);
    assert_int_equal(zvs_pgroup_stats(g)->marker_timeouts, 1);
    assert_int_equal(zvs_pgroup_stats(g)->moves, 1);
    zvs_pgroup_destroy(g);
}

/* Four ports, 64 talkers with Zipf loads (1/rank), the two heaviest on port 0. */
static void test_skew_converges_4p_zipf(void **state)
{
    struct sim s;
    struct zvs_pgroup *g = make(&s, 4, 4, &marker_ops, ZVS_PG_POLICY_LOAD);

    s.auto_answer = true;
    for (unsigned k = 1; k <= 64; k++) {
        unsigned b = (k - 1) * 4 % 64 + (k - 1) * 4 / 64;   /* 0, 4, 8, ... then 1, 5, ... */
        s.rate[b] = 64000000.0 / k;
    }
    run(&s);
    step(&s);
    assert_true(ivl_ratio(&s) > 1.5);
    assert_int_equal(zvs_pgroup_stats(g)->moves, 7);       /* one pass, see balance test */
    step(&s);
    assert_true(ivl_ratio(&s) <= 1.10);
    uint64_t moves = zvs_pgroup_stats(g)->moves;
    assert_int_equal(moves, 7);
    for (unsigned i = 0; i < 100; i++) {
        step(&s);
        assert_true(ivl_ratio(&s) <= 1.10);
    }
    assert_int_equal(zvs_pgroup_stats(g)->moves, moves);
    zvs_pgroup_destroy(g);
}

struct move_rec { uint8_t bucket; uint16_t from, to; enum zvs_pg_cause cause; };
static struct move_rec recs[4 * ZVS_PG_BUCKETS];
static unsigned nrecs;

static void rec_moved(void *arg, unsigned bucket, uint16_t from, uint16_t to,
                      enum zvs_pg_cause cause)
{
    assert_true(nrecs < sizeof recs / sizeof recs[0]);
    recs[nrecs++] = (struct move_rec){ (uint8_t)bucket, from, to, cause };
}

/* Equal outbound; the physical switch loads port 0 with inbound: outbound moves away
 * (POLICY LOAD TOTAL, the default), each move reported through ops->moved with cause
 * balance when its Marker is answered; with LOAD OUTBOUND the same picture moves nothing. */
static void test_inbound_steers_outbound(void **state)
{
    static const struct zvs_pg_ops ops = { .send_marker = fake_send_marker,
                                           .moved = rec_moved };
    struct sim s;
    struct zvs_pgroup *g = make(&s, 2, 2, &ops, ZVS_PG_POLICY_LOAD);

    assert_int_equal(zvs_pgroup_params(g)->load, ZVS_PG_LOAD_TOTAL);
    s.auto_answer = true;
    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++)
        s.rate[b] = 100000;             /* 102.4 Mbit/s per port */
    s.in_rate[0] = 100000000;           /* 800 Mbit/s inbound on port 0 */
    run(&s);
    nrecs = 0;
    assert_int_equal(step(&s), 1);
    assert_true(zvs_pgroup_member(g, 0)->in_bps == 800e6);
    assert_true(zvs_pgroup_member(g, 0)->out_bps == 102.4e6);
    assert_int_equal(zvs_pgroup_stats(g)->moves, 32);      /* bounded per pass */
    assert_int_equal(zvs_pgroup_member(g, 0)->buckets, 96);
    assert_int_equal(zvs_pgroup_member(g, 1)->buckets, 160);
    /* The idle layout put the even buckets on port 0; all weigh the same, so the lowest
     * go first: 0, 2, ..., 62. */
    assert_int_equal(nrecs, 32);
    for (unsigned i = 0; i < nrecs; i++) {
        assert_int_equal(recs[i].bucket, 2 * i);
        assert_int_equal(recs[i].from, PORT(0));
        assert_int_equal(recs[i].to, PORT(1));
        assert_int_equal(recs[i].cause, ZVS_PG_CAUSE_BALANCE);
    }
    zvs_pgroup_destroy(g);

    /* LOAD OUTBOUND: 102.4 vs 102.4 Mbit/s out, the inbound ignored: no move. */
    g = make(&s, 2, 2, &ops, ZVS_PG_POLICY_LOAD);
    zvs_pgroup_set_load(g, ZVS_PG_LOAD_OUTBOUND);
    s.auto_answer = true;
    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++)
        s.rate[b] = 100000;
    s.in_rate[0] = 100000000;
    run(&s);
    nrecs = 0;
    assert_int_equal(step(&s), 1);
    assert_int_equal(step(&s), 1);
    assert_int_equal(zvs_pgroup_stats(g)->passes, 2);
    assert_int_equal(zvs_pgroup_stats(g)->moves, 0);
    assert_int_equal(nrecs, 0);
    zvs_pgroup_destroy(g);
}

/* Buckets moved by membership are not moved by a pass for two intervals (hold-down). */
static void test_holddown_after_membership(void **state)
{
    struct sim s;
    struct zvs_pgroup *g = make(&s, 2, 1, &marker_ops, ZVS_PG_POLICY_LOAD);

    s.auto_answer = true;
    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++)
        s.rate[b] = 100000;
    run(&s);
    step(&s);                           /* t = 10 s: one member, nothing to balance */
    assert_int_equal(zvs_pgroup_set_state(g, PORT(1), true, true, s.now + 1), 0);
    answer_all(&s);
    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++)
        assert_int_equal(zvs_pgroup_map(g)->bucket_slot[b], b % 2);  /* ties: b mod 2 */
    /* The odd buckets (all moved to slot 1, held until 30 s + 1 ns) become heavy. */
    for (unsigned b = 1; b < ZVS_PG_BUCKETS; b += 2)
        s.rate[b] = 1000000;
    step(&s);                           /* 20 s */
    step(&s);                           /* 30 s */
    assert_int_equal(zvs_pgroup_stats(g)->passes, 3);
    assert_int_equal(zvs_pgroup_stats(g)->moves, 0);
    assert_int_equal(zvs_pgroup_member(g, 1)->buckets, 128);
    step(&s);                           /* 40 s: free to move */
    assert_int_equal(zvs_pgroup_stats(g)->moves, 32);
    assert_int_equal(zvs_pgroup_member(g, 1)->buckets, 96);
    zvs_pgroup_destroy(g);
}

/* An imbalance of trickles (busiest port under 5% of its speed) is left alone; the same
 * shape at real load is balanced. */
static void test_trickle_imbalance_not_moved(void **state)
{
    struct sim s;
    struct zvs_pgroup *g = make(&s, 2, 2, &marker_ops, ZVS_PG_POLICY_LOAD);

    s.auto_answer = true;
    for (unsigned b = 1; b < ZVS_PG_BUCKETS; b += 2)
        s.rate[b] = 1000;               /* 1 Mbit/s on slot 1, nothing on slot 0 */
    run(&s);
    for (int i = 0; i < 5; i++)
        step(&s);
    assert_int_equal(zvs_pgroup_stats(g)->moves, 0);
    for (unsigned b = 1; b < ZVS_PG_BUCKETS; b += 2)
        s.rate[b] = 1000000;            /* 1 Gbit/s on slot 1 */
    step(&s);
    step(&s);
    assert_true(zvs_pgroup_stats(g)->moves > 0);
    zvs_pgroup_destroy(g);
}

/* A skew that appears between passes: the decayed bucket averages see half of the new
 * load while the port counters see all of it. The plan must use one measure, so exactly
 * one of the two heavy buckets moves (mixing them moved both: the skew just changed
 * ports). */
static void test_new_skew_moves_one_bucket(void **state)
{
    struct sim s;
    struct zvs_pgroup *g = make(&s, 2, 2, &marker_ops, ZVS_PG_POLICY_LOAD);

    s.auto_answer = true;
    run(&s);
    step(&s);                           /* an idle pass: averages start at 0 */
    s.rate[0x01] = 60000000;            /* two 480 Mbit/s flows, both on slot 1 */
    s.rate[0x03] = 60000000;
    step(&s);
    assert_int_equal(zvs_pgroup_stats(g)->moves, 1);
    const struct zvs_pg_map *m = zvs_pgroup_map(g);
    assert_int_not_equal(m->bucket_slot[0x01], m->bucket_slot[0x03]);
    for (int i = 0; i < 20; i++)
        step(&s);
    assert_int_equal(zvs_pgroup_stats(g)->moves, 1);        /* and stays */
    zvs_pgroup_destroy(g);
}

/* LBT with a 1G and a 10G member. */
static void test_lbt_mixed_speeds(void **state)
{
    struct sim s;
    struct zvs_pg_params p = { .name = "LBT", .interval_s = IVL_S,
                               .policy = ZVS_PG_POLICY_LBT };
    memset(&s, 0, sizeof(s));
    s.g = zvs_pgroup_create(&p, &marker_ops, &s);
    s.auto_answer = true;
    zvs_pgroup_join(s.g, PORT(0), "28BA", 1000000000ull, 0);
    zvs_pgroup_join(s.g, PORT(1), "29BA", 10000000000ull, 0);
    zvs_pgroup_set_state(s.g, PORT(0), true, true, 0);
    zvs_pgroup_set_state(s.g, PORT(1), true, true, 0);
    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++)
        s.rate[b] = b % 2 ? 4882812 : 937500;   /* 1G at 96 %, 10G at 50 % */
    run(&s);
    step(&s);
    assert_true(zvs_pgroup_member(s.g, 0)->out_bps == 960e6);
    assert_int_equal(zvs_pgroup_stats(s.g)->moves, 28);  /* down to 75 % */
    for (unsigned i = 0; i < 10; i++)
        step(&s);
    assert_true(zvs_pgroup_member(s.g, 0)->out_bps == 750e6);
    assert_int_equal(zvs_pgroup_stats(s.g)->moves, 28);
    assert_int_equal(zvs_pgroup_stats(s.g)->passes, 11);
    zvs_pgroup_destroy(s.g);
}

/* ---- the moved callback ---------------------------------------------------------------- */

/* Every move is reported in the call that makes it, bucket by bucket, with its cause:
 * LACP (the default), carrier (set by the caller), leave (set by leave itself). */
static void test_moved_callback_sequence(void **state)
{
    static const struct zvs_pg_ops ops = { .moved = rec_moved };
    struct sim s;
    nrecs = 0;
    make(&s, 2, 0, &ops, ZVS_PG_POLICY_LOAD);
    assert_int_equal(nrecs, 0);                     /* JOIN alone moves nothing */
    assert_int_equal(zvs_pgroup_set_state(s.g, PORT(0), true, true, 0), 0);
    assert_int_equal(nrecs, ZVS_PG_BUCKETS);
    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++) {
        assert_int_equal(recs[b].bucket, b);
        assert_int_equal(recs[b].from, ZVS_PG_NO_PORT);
        assert_int_equal(recs[b].to, PORT(0));
        assert_int_equal(recs[b].cause, ZVS_PG_CAUSE_LACP);
    }
    nrecs = 0;
    assert_int_equal(zvs_pgroup_set_state(s.g, PORT(1), true, true, 0), 0);
    unsigned to1 = nrecs;
    for (unsigned i = 0; i < nrecs; i++) {
        assert_int_equal(recs[i].from, PORT(0));
        assert_int_equal(recs[i].to, PORT(1));
        assert_int_equal(recs[i].cause, ZVS_PG_CAUSE_LACP);
    }
    assert_int_equal(to1, ZVS_PG_BUCKETS / 2);
    /* Carrier loss of PORT(0): exactly its buckets, in bucket order, before the call
     * returns, each once, cause carrier. */
    const struct zvs_pg_map *map = zvs_pgroup_map(s.g);
    uint8_t on0[ZVS_PG_BUCKETS];
    unsigned n0 = 0;
    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++)
        if (map->bucket_port[b] == PORT(0))
            on0[n0++] = (uint8_t)b;
    assert_int_equal(n0, ZVS_PG_BUCKETS / 2);
    nrecs = 0;
    zvs_pgroup_set_cause(s.g, ZVS_PG_CAUSE_CARRIER);
    assert_int_equal(zvs_pgroup_set_state(s.g, PORT(0), false, false, 1000000000ull), 0);
    assert_int_equal(nrecs, n0);
    for (unsigned i = 0; i < n0; i++) {
        assert_int_equal(recs[i].bucket, on0[i]);
        assert_int_equal(recs[i].from, PORT(0));
        assert_int_equal(recs[i].to, PORT(1));
        assert_int_equal(recs[i].cause, ZVS_PG_CAUSE_CARRIER);
    }
    /* LEAVE of the last member: every bucket to no port, cause leave. */
    zvs_pgroup_set_cause(s.g, ZVS_PG_CAUSE_LACP);
    nrecs = 0;
    assert_int_equal(zvs_pgroup_leave(s.g, PORT(1), 2000000000ull), 0);
    assert_int_equal(nrecs, ZVS_PG_BUCKETS);
    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++) {
        assert_int_equal(recs[b].from, PORT(1));
        assert_int_equal(recs[b].to, ZVS_PG_NO_PORT);
        assert_int_equal(recs[b].cause, ZVS_PG_CAUSE_LEAVE);
    }
    assert_string_equal(zvs_pg_cause_name(ZVS_PG_CAUSE_BALANCE), "balance");
    assert_string_equal(zvs_pg_cause_name(ZVS_PG_CAUSE_CARRIER), "carrier");
    zvs_pgroup_destroy(s.g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create_params),
        cmocka_unit_test(test_join_leave_limits),
        cmocka_unit_test(test_initial_spread),
        cmocka_unit_test(test_bucket_choice),
        cmocka_unit_test(test_bucket_udp_sport),
        cmocka_unit_test(test_swap_once_per_operation),
        cmocka_unit_test(test_failover_moves_every_bucket),
        cmocka_unit_test(test_flood_port_stable),
        cmocka_unit_test(test_leave),
        cmocka_unit_test(test_marker_flush_then_move),
        cmocka_unit_test(test_marker_timeout),
        cmocka_unit_test(test_marker_unsent),
        cmocka_unit_test(test_pending_member_gone),
        cmocka_unit_test(test_join_fair_share_via_flush),
        cmocka_unit_test(test_set_interval_bounds),
        cmocka_unit_test(test_bucket_load_decay),
        cmocka_unit_test(test_skew_converges_2p),
        cmocka_unit_test(test_skew_marker_timeout),
        cmocka_unit_test(test_skew_converges_4p_zipf),
        cmocka_unit_test(test_inbound_steers_outbound),
        cmocka_unit_test(test_holddown_after_membership),
        cmocka_unit_test(test_trickle_imbalance_not_moved),
        cmocka_unit_test(test_new_skew_moves_one_bucket),
        cmocka_unit_test(test_lbt_mixed_speeds),
        cmocka_unit_test(test_moved_callback_sequence),
    };
    return cmocka_run_group_tests_name("pgroup", tests, NULL, NULL);
}
