/* MAC table: capacity limits, learning rules, aging at exact virtual times, and a
 * randomized comparison with a plain reference array (fixed seed) that exercises the
 * backward-shift deletion in long, wrapping clusters. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "dataplane/mac_table.h"

#define NS_PER_S  UINT64_C(1000000000)
#define AGE_300S  (300 * NS_PER_S)

/* Locally administered unicast MAC 02:00:00:xx:xx:xx built from n. */
static void mac_of(uint32_t n, uint8_t mac[6])
{
    mac[0] = 0x02;
    mac[1] = 0x00;
    mac[2] = (uint8_t)(n >> 24);
    mac[3] = (uint8_t)(n >> 16);
    mac[4] = (uint8_t)(n >> 8);
    mac[5] = (uint8_t)n;
}

static struct zvs_mac_table_stats stats_of(const struct zvs_mac_table *t)
{
    struct zvs_mac_table_stats s;
    zvs_mac_table_stats(t, &s);
    return s;
}

static void test_create_rejects_bad_capacity(void **state)
{
    errno = 0;
    assert_null(zvs_mac_table_create(0, AGE_300S));
    assert_int_equal(errno, EINVAL);
    errno = 0;
    assert_null(zvs_mac_table_create(ZVS_MAC_TABLE_MAX_CAPACITY + 1, AGE_300S));
    assert_int_equal(errno, EINVAL);
}

/* A capacity that is not a power of two holds exactly that many entries. */
static void test_capacity_not_power_of_two(void **state)
{
    struct zvs_mac_table *t = zvs_mac_table_create(3, AGE_300S);
    uint8_t mac[6];

    assert_non_null(t);
    for (uint32_t n = 1; n <= 3; n++) {
        mac_of(n, mac);
        assert_int_equal(zvs_mac_table_learn(t, mac, 0, 1, 0), ZVS_MAC_ADDED);
    }
    mac_of(4, mac);
    assert_int_equal(zvs_mac_table_learn(t, mac, 0, 1, 0), -ENOSPC);
    struct zvs_mac_table_stats s = stats_of(t);
    assert_int_equal(s.capacity, 3);
    assert_int_equal(s.entries, 3);
    assert_int_equal(s.refused_full, 1);
    zvs_mac_table_destroy(t);
}

/* 65536 entries (the same 32768 MACs in VLAN 0 and VLAN 10), then the table is full. */
static void test_fill_to_capacity(void **state)
{
    struct zvs_mac_table *t = zvs_mac_table_create(ZVS_MAC_TABLE_DEFAULT_CAPACITY, AGE_300S);
    uint8_t mac[6];

    assert_non_null(t);
    for (uint32_t i = 0; i < 65536; i++) {
        mac_of(i & 0x7FFF, mac);
        uint16_t vid = i < 32768 ? 0 : 10;
        uint16_t port = (uint16_t)(i % 251);
        if (i & 1)
            assert_int_equal(zvs_mac_table_add_static(t, mac, vid, port), 0);
        else
            assert_int_equal(zvs_mac_table_learn(t, mac, vid, port, 5), ZVS_MAC_ADDED);
    }
    struct zvs_mac_table_stats s = stats_of(t);
    assert_int_equal(s.entries, 65536);
    assert_int_equal(s.static_entries, 32768);
    assert_int_equal(s.learned, 32768);
    assert_int_equal(s.refused_full, 0);

    mac_of(40000, mac);
    assert_int_equal(zvs_mac_table_add_static(t, mac, 0, 1), -ENOSPC);
    assert_int_equal(zvs_mac_table_learn(t, mac, 0, 1, 6), -ENOSPC);
    assert_int_equal(zvs_mac_table_lookup(t, mac, 0), -1);
    s = stats_of(t);
    assert_int_equal(s.entries, 65536);
    assert_int_equal(s.refused_full, 2);

    /* A full table still refreshes and moves what it holds. */
    mac_of(0, mac);
    assert_int_equal(zvs_mac_table_learn(t, mac, 0, 0, 7), ZVS_MAC_REFRESHED);
    assert_int_equal(zvs_mac_table_learn(t, mac, 0, 250, 7), ZVS_MAC_MOVED);
    assert_int_equal(zvs_mac_table_learn(t, mac, 0, 0, 7), ZVS_MAC_MOVED);

    for (uint32_t i = 0; i < 65536; i++) {
        mac_of(i & 0x7FFF, mac);
        uint16_t vid = i < 32768 ? 0 : 10;
        assert_int_equal(zvs_mac_table_lookup(t, mac, vid), (int)(i % 251));
    }
    mac_of(5, mac);
    assert_int_equal(zvs_mac_table_lookup(t, mac, 11), -1);

    /* One removal makes room for exactly one more. */
    mac_of(123, mac);
    assert_int_equal(zvs_mac_table_remove(t, mac, 10), 0);
    mac_of(40000, mac);
    assert_int_equal(zvs_mac_table_add_static(t, mac, 0, 9), 0);
    mac_of(40001, mac);
    assert_int_equal(zvs_mac_table_add_static(t, mac, 0, 9), -ENOSPC);
    assert_int_equal(stats_of(t).refused_full, 3);
    zvs_mac_table_destroy(t);
}

/* ---- randomized comparison with a reference array ---------------------------------- */

struct ref_entry {
    int present;
    uint16_t port;
    int is_static;
    uint64_t seen;
};

static uint64_t rng_state;

static uint32_t rng(void)
{
    /* xorshift64*: fixed seed, reproducible across platforms. */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * UINT64_C(2685821657736338717)) >> 32);
}

#define UNIVERSE_MAX 4096

struct ref_table {
    struct ref_entry e[UNIVERSE_MAX];
    uint32_t universe;                  /* keys in play */
    uint32_t capacity;
    uint32_t count;
};

/* Key n of the universe: a few VLANs so IVL keys share MACs. */
static void key_of(uint32_t n, uint8_t mac[6], uint16_t *vid)
{
    mac_of(n / 3, mac);
    *vid = (uint16_t)(n % 3 * 100);
}

static void check_all(const struct zvs_mac_table *t, const struct ref_table *r)
{
    uint8_t mac[6];
    uint16_t vid;
    uint32_t n_static = 0;

    for (uint32_t n = 0; n < r->universe; n++) {
        key_of(n, mac, &vid);
        int want = r->e[n].present ? r->e[n].port : -1;
        assert_int_equal(zvs_mac_table_lookup(t, mac, vid), want);
        n_static += r->e[n].present && r->e[n].is_static;
    }
    struct zvs_mac_table_stats s = stats_of(t);
    assert_int_equal(s.entries, r->count);
    assert_int_equal(s.static_entries, n_static);
}

static void random_ops(uint32_t capacity, uint32_t universe, uint32_t ops, uint32_t check_every,
                       uint64_t seed)
{
    static struct ref_table r;
    const uint64_t age = 20000;         /* 20 operations of 1000 ns */
    struct zvs_mac_table *t = zvs_mac_table_create(capacity, age);
    uint8_t mac[6];
    uint16_t vid;
    uint64_t now = 0;

    assert_non_null(t);
    assert_true(universe <= UNIVERSE_MAX);
    memset(&r, 0, sizeof(r));
    r.universe = universe;
    r.capacity = capacity;
    rng_state = seed;
    for (uint32_t op = 0; op < ops; op++) {
        uint32_t n = rng() % universe;
        uint16_t port = (uint16_t)(rng() % 8);
        struct ref_entry *e = &r.e[n];
        uint32_t what = rng() % 100;
        int rc;

        now += 1000;
        key_of(n, mac, &vid);
        if (what < 40) {
            rc = zvs_mac_table_learn(t, mac, vid, port, now);
            if (e->present && e->is_static) {
                assert_int_equal(rc, e->port == port ? ZVS_MAC_REFRESHED : -EPERM);
            } else if (e->present) {
                assert_int_equal(rc, e->port == port ? ZVS_MAC_REFRESHED : ZVS_MAC_MOVED);
                e->port = port;
                e->seen = now;
            } else if (r.count == capacity) {
                assert_int_equal(rc, -ENOSPC);
            } else {
                assert_int_equal(rc, ZVS_MAC_ADDED);
                *e = (struct ref_entry){ 1, port, 0, now };
                r.count++;
            }
        } else if (what < 55) {
            rc = zvs_mac_table_add_static(t, mac, vid, port);
            if (e->present && e->is_static) {
                assert_int_equal(rc, -EEXIST);
            } else if (e->present) {
                assert_int_equal(rc, 0);
                e->is_static = 1;
                e->port = port;
            } else if (r.count == capacity) {
                assert_int_equal(rc, -ENOSPC);
            } else {
                assert_int_equal(rc, 0);
                *e = (struct ref_entry){ 1, port, 1, 0 };
                r.count++;
            }
        } else if (what < 95) {
            rc = zvs_mac_table_remove(t, mac, vid);
            assert_int_equal(rc, e->present ? 0 : -ENOENT);
            if (e->present)
                r.count--;
            e->present = 0;
        } else if (what < 98) {
            /* A budget of two laps makes one call a complete pass over the table. */
            uint32_t want = 0;
            for (uint32_t k = 0; k < universe; k++) {
                struct ref_entry *x = &r.e[k];
                if (x->present && !x->is_static && now - x->seen >= age) {
                    x->present = 0;
                    want++;
                }
            }
            assert_int_equal(zvs_mac_table_age(t, now, 4 * capacity + 4), want);
            r.count -= want;
        } else {
            uint32_t want = 0;
            for (uint32_t k = 0; k < universe; k++) {
                if (r.e[k].present && r.e[k].port == port) {
                    r.e[k].present = 0;
                    want++;
                }
            }
            assert_int_equal(zvs_mac_table_remove_port(t, port), want);
            r.count -= want;
        }
        if (op % check_every == 0)
            check_all(t, &r);
    }
    check_all(t, &r);
    zvs_mac_table_destroy(t);
}

/* Tiny table (16 slots) kept near full: every cluster wraps around the end. */
static void test_random_tiny_table(void **state)
{
    random_ops(8, 24, 20000, 1, UINT64_C(0x5eed0001));
}

/* Larger table, universe twice the capacity so the table stays full most of the time. */
static void test_random_against_reference(void **state)
{
    random_ops(1024, 2048, 40000, 97, UINT64_C(0x5eed0002));
}

/* ---- learning rules ---------------------------------------------------------------- */

static void test_static_not_overwritten_by_learn(void **state)
{
    struct zvs_mac_table *t = zvs_mac_table_create(16, AGE_300S);
    const uint8_t mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x07 };

    assert_int_equal(zvs_mac_table_add_static(t, mac, 5, 1), 0);
    assert_int_equal(zvs_mac_table_learn(t, mac, 5, 2, 100), -EPERM);
    assert_int_equal(zvs_mac_table_learn(t, mac, 5, 2, 101), -EPERM);
    assert_int_equal(zvs_mac_table_lookup(t, mac, 5), 1);
    assert_int_equal(zvs_mac_table_learn(t, mac, 5, 1, 102), ZVS_MAC_REFRESHED);
    /* Same MAC in another VLAN is another key (independent VLAN learning). */
    assert_int_equal(zvs_mac_table_learn(t, mac, 6, 2, 103), ZVS_MAC_ADDED);
    assert_int_equal(zvs_mac_table_lookup(t, mac, 6), 2);
    assert_int_equal(zvs_mac_table_lookup(t, mac, 5), 1);
    /* A second static registration of the key fails whatever the port. */
    assert_int_equal(zvs_mac_table_add_static(t, mac, 5, 1), -EEXIST);
    assert_int_equal(zvs_mac_table_add_static(t, mac, 5, 3), -EEXIST);

    struct zvs_mac_table_stats s = stats_of(t);
    assert_int_equal(s.conflicts, 2);
    assert_int_equal(s.moves, 0);
    assert_int_equal(s.entries, 2);
    assert_int_equal(s.static_entries, 1);
    assert_int_equal(s.learned, 1);

    /* Static entries never age. */
    assert_int_equal(zvs_mac_table_age(t, UINT64_MAX, 1000), 1);
    assert_int_equal(zvs_mac_table_lookup(t, mac, 5), 1);
    assert_int_equal(zvs_mac_table_lookup(t, mac, 6), -1);
    zvs_mac_table_destroy(t);
}

static void test_static_takes_over_learned(void **state)
{
    struct zvs_mac_table *t = zvs_mac_table_create(16, AGE_300S);
    const uint8_t mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x08 };

    assert_int_equal(zvs_mac_table_learn(t, mac, 0, 4, 100), ZVS_MAC_ADDED);
    assert_int_equal(zvs_mac_table_add_static(t, mac, 0, 9), 0);
    assert_int_equal(zvs_mac_table_lookup(t, mac, 0), 9);
    assert_int_equal(zvs_mac_table_learn(t, mac, 0, 4, 200), -EPERM);
    struct zvs_mac_table_stats s = stats_of(t);
    assert_int_equal(s.entries, 1);
    assert_int_equal(s.static_entries, 1);
    assert_int_equal(s.learned, 0);
    assert_int_equal(s.conflicts, 1);
    assert_int_equal(zvs_mac_table_age(t, 100 + AGE_300S, 100), 0);
    assert_int_equal(zvs_mac_table_lookup(t, mac, 0), 9);
    zvs_mac_table_destroy(t);
}

static void test_rejects_unusable_keys(void **state)
{
    struct zvs_mac_table *t = zvs_mac_table_create(16, AGE_300S);
    const uint8_t mcast[6] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 };
    const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
    const uint8_t zero[6] = { 0 };
    const uint8_t ok[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };

    assert_int_equal(zvs_mac_table_learn(t, mcast, 0, 1, 1), -EINVAL);
    assert_int_equal(zvs_mac_table_learn(t, bcast, 0, 1, 1), -EINVAL);
    assert_int_equal(zvs_mac_table_learn(t, zero, 0, 1, 1), -EINVAL);
    assert_int_equal(zvs_mac_table_learn(t, ok, 4095, 1, 1), -EINVAL);
    assert_int_equal(zvs_mac_table_add_static(t, mcast, 0, 1), -EINVAL);
    assert_int_equal(zvs_mac_table_add_static(t, ok, 4095, 1), -EINVAL);
    assert_int_equal(zvs_mac_table_learn(t, ok, 4094, 1, 1), ZVS_MAC_ADDED);
    assert_int_equal(zvs_mac_table_remove(t, ok, 4093), -ENOENT);
    assert_int_equal(zvs_mac_table_remove(t, ok, 4094), 0);
    assert_int_equal(zvs_mac_table_remove(t, ok, 4094), -ENOENT);
    assert_int_equal(stats_of(t).entries, 0);
    zvs_mac_table_destroy(t);
}

struct seen {
    int n;
    struct zvs_mac_entry e[4];
};

static void collect(void *arg, const struct zvs_mac_entry *e)
{
    struct seen *s = arg;
    assert_true(s->n < 4);
    s->e[s->n++] = *e;
}

static void test_learned_entry_moves(void **state)
{
    struct zvs_mac_table *t = zvs_mac_table_create(16, AGE_300S);
    const uint8_t mac[6] = { 0x02, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE };
    struct seen s = { 0 };

    assert_int_equal(zvs_mac_table_learn(t, mac, 20, 3, 100), ZVS_MAC_ADDED);
    assert_int_equal(zvs_mac_table_learn(t, mac, 20, 4, 200), ZVS_MAC_MOVED);
    assert_int_equal(zvs_mac_table_lookup(t, mac, 20), 4);
    assert_int_equal(stats_of(t).moves, 1);
    assert_int_equal(stats_of(t).entries, 1);

    zvs_mac_table_foreach(t, collect, &s);
    assert_int_equal(s.n, 1);
    assert_memory_equal(s.e[0].mac, mac, 6);
    assert_int_equal(s.e[0].vid, 20);
    assert_int_equal(s.e[0].port, 4);
    assert_int_equal(s.e[0].kind, ZVS_MAC_LEARNED);
    assert_int_equal(s.e[0].last_seen, 200);

    /* The move refreshed the time: aging counts from 200, not 100. */
    assert_int_equal(zvs_mac_table_age(t, 100 + AGE_300S, 64), 0);
    assert_int_equal(zvs_mac_table_age(t, 200 + AGE_300S - 1, 64), 0);
    assert_int_equal(zvs_mac_table_age(t, 200 + AGE_300S, 64), 1);
    assert_int_equal(zvs_mac_table_lookup(t, mac, 20), -1);
    zvs_mac_table_destroy(t);
}

/* ---- aging ------------------------------------------------------------------------- */

/* Boundary is inclusive: learned at t with age A, present at t + A - 1 ns, gone at t + A. */
static void test_aging_boundary(void **state)
{
    const uint64_t t0 = 7 * NS_PER_S + 123;
    struct zvs_mac_table *t = zvs_mac_table_create(64, AGE_300S);
    const uint8_t a[6] = { 0x02, 0, 0, 0, 0, 0x0A };
    const uint8_t b[6] = { 0x02, 0, 0, 0, 0, 0x0B };
    const uint8_t s[6] = { 0x02, 0, 0, 0, 0, 0x0C };

    assert_int_equal(zvs_mac_table_learn(t, a, 0, 1, t0), ZVS_MAC_ADDED);
    assert_int_equal(zvs_mac_table_learn(t, b, 0, 2, t0), ZVS_MAC_ADDED);
    assert_int_equal(zvs_mac_table_add_static(t, s, 0, 3), 0);
    /* b is refreshed 1 ns later and lives 1 ns longer. */
    assert_int_equal(zvs_mac_table_learn(t, b, 0, 2, t0 + 1), ZVS_MAC_REFRESHED);

    assert_int_equal(zvs_mac_table_age(t, t0 + AGE_300S - 1, 1000), 0);
    assert_int_equal(zvs_mac_table_lookup(t, a, 0), 1);
    assert_int_equal(zvs_mac_table_lookup(t, b, 0), 2);

    assert_int_equal(zvs_mac_table_age(t, t0 + AGE_300S, 1000), 1);
    assert_int_equal(zvs_mac_table_lookup(t, a, 0), -1);
    assert_int_equal(zvs_mac_table_lookup(t, b, 0), 2);

    assert_int_equal(zvs_mac_table_age(t, t0 + 1 + AGE_300S, 1000), 1);
    assert_int_equal(zvs_mac_table_lookup(t, b, 0), -1);
    assert_int_equal(zvs_mac_table_lookup(t, s, 0), 3);

    struct zvs_mac_table_stats st = stats_of(t);
    assert_int_equal(st.aged_out, 2);
    assert_int_equal(st.entries, 1);
    assert_int_equal(st.learned, 0);

    /* A time before the last refresh (never on a monotonic clock) does not age. */
    assert_int_equal(zvs_mac_table_learn(t, a, 0, 1, t0 + AGE_300S * 4), ZVS_MAC_ADDED);
    assert_int_equal(zvs_mac_table_age(t, t0, 1000), 0);
    zvs_mac_table_destroy(t);
}

static void test_aging_disabled(void **state)
{
    struct zvs_mac_table *t = zvs_mac_table_create(16, 0);
    const uint8_t a[6] = { 0x02, 0, 0, 0, 0, 0x0A };

    assert_int_equal(zvs_mac_table_learn(t, a, 0, 1, 0), ZVS_MAC_ADDED);
    assert_int_equal(zvs_mac_table_age(t, UINT64_MAX, 1000), 0);
    assert_int_equal(zvs_mac_table_lookup(t, a, 0), 1);
    zvs_mac_table_set_age(t, 10);
    assert_int_equal(zvs_mac_table_age(t, 9, 1000), 0);
    assert_int_equal(zvs_mac_table_age(t, 10, 1000), 1);
    assert_int_equal(stats_of(t).aged_out, 1);
    zvs_mac_table_destroy(t);
}

/* The sweep examines at most `budget` slots a call and resumes where it stopped: with
 * budget 1, each call removes at most one entry, and one lap (slots + removals calls)
 * removes them all. */
static void test_aging_incremental_budget(void **state)
{
    struct zvs_mac_table *t = zvs_mac_table_create(8, AGE_300S);   /* 16 slots */
    uint8_t mac[6];
    uint32_t total = 0;
    uint32_t calls = 0;

    for (uint32_t n = 0; n < 8; n++) {
        mac_of(n, mac);
        assert_int_equal(zvs_mac_table_learn(t, mac, 0, 1, 1000), ZVS_MAC_ADDED);
    }
    assert_int_equal(zvs_mac_table_age(t, 1000 + AGE_300S, 0), 0);
    while (total < 8) {
        uint32_t r = zvs_mac_table_age(t, 1000 + AGE_300S, 1);
        assert_true(r <= 1);
        total += r;
        calls++;
        assert_true(calls <= 16 + 8);
    }
    assert_int_equal(stats_of(t).entries, 0);
    assert_int_equal(stats_of(t).aged_out, 8);
    /* Nothing learned left: the sweep returns at once. */
    assert_int_equal(zvs_mac_table_age(t, UINT64_MAX, 1000), 0);

    /* 8 expired entries, budget 8 per call: gone within one lap of 16 + 8 examinations. */
    for (uint32_t n = 0; n < 8; n++) {
        mac_of(n + 100, mac);
        assert_int_equal(zvs_mac_table_learn(t, mac, 0, 1, 2000), ZVS_MAC_ADDED);
    }
    total = zvs_mac_table_age(t, 2000 + AGE_300S, 8);
    total += zvs_mac_table_age(t, 2000 + AGE_300S, 8);
    total += zvs_mac_table_age(t, 2000 + AGE_300S, 8);
    assert_int_equal(total, 8);
    zvs_mac_table_destroy(t);
}

/* ---- uncouple ---------------------------------------------------------------------- */

static void test_remove_port(void **state)
{
    struct zvs_mac_table *t = zvs_mac_table_create(256, AGE_300S);
    uint8_t mac[6];

    for (uint32_t n = 0; n < 200; n++) {
        mac_of(n, mac);
        uint16_t port = (uint16_t)(n % 4);
        if (n % 5 == 0)
            assert_int_equal(zvs_mac_table_add_static(t, mac, 1, port), 0);
        else
            assert_int_equal(zvs_mac_table_learn(t, mac, 1, port, 10), ZVS_MAC_ADDED);
    }
    /* Port 2 holds n = 2, 6, 10, ...: 50 entries, 10 of them static (n % 20 == 10). */
    assert_int_equal(zvs_mac_table_remove_port(t, 2), 50);
    assert_int_equal(zvs_mac_table_remove_port(t, 2), 0);
    for (uint32_t n = 0; n < 200; n++) {
        mac_of(n, mac);
        int want = n % 4 == 2 ? -1 : (int)(n % 4);
        assert_int_equal(zvs_mac_table_lookup(t, mac, 1), want);
    }
    struct zvs_mac_table_stats s = stats_of(t);
    assert_int_equal(s.entries, 150);
    assert_int_equal(s.static_entries, 30);
    assert_int_equal(s.learned, 120);
    assert_int_equal(zvs_mac_table_remove_port(t, 0), 50);
    assert_int_equal(zvs_mac_table_remove_port(t, 1), 50);
    assert_int_equal(zvs_mac_table_remove_port(t, 3), 50);
    assert_int_equal(stats_of(t).entries, 0);
    zvs_mac_table_destroy(t);
}

/* Large from 8,192 entries: the switch loads a burst's slots ahead from there on, and
 * not below (removing an entry takes it back under). The prefetch calls here are a smoke
 * test (the table is const to them: they can read, not write), run with the addresses
 * in a frame's header as the switch passes them. */
static void test_large_and_prefetch(void **state)
{
    struct zvs_mac_table *t = zvs_mac_table_create(65536, 0);
    uint8_t mac[6];
    (void)state;

    assert_non_null(t);
    for (uint32_t n = 0; n < 8191; n++) {
        mac_of(n, mac);
        assert_int_equal(zvs_mac_table_learn(t, mac, 1, (uint16_t)(n % 7), 5), ZVS_MAC_ADDED);
    }
    assert_false(zvs_mac_table_is_large(t));
    mac_of(8191, mac);
    assert_int_equal(zvs_mac_table_learn(t, mac, 1, 3, 5), ZVS_MAC_ADDED);
    assert_true(zvs_mac_table_is_large(t));
    struct zvs_mac_table_stats before = stats_of(t);
    for (uint32_t n = 0; n < 9000; n++) {
        uint8_t hdr[14] = { 0 };            /* 8 readable bytes from each address */
        mac_of(n, hdr);
        mac_of(n, hdr + 6);
        const uint8_t *const macs[2] = { hdr, hdr + 6 };
        const uint16_t vids[2] = { 1, 4095 };
        zvs_mac_table_prefetch(t, macs, vids, 2);
    }
    struct zvs_mac_table_stats after = stats_of(t);
    assert_memory_equal(&before, &after, sizeof(before));
    for (uint32_t n = 0; n < 9000; n++) {
        mac_of(n, mac);
        assert_int_equal(zvs_mac_table_lookup(t, mac, 1), n < 8192 ? (int)(n == 8191 ? 3 : n % 7) : -1);
    }
    mac_of(0, mac);
    assert_int_equal(zvs_mac_table_remove(t, mac, 1), 0);
    assert_false(zvs_mac_table_is_large(t));
    zvs_mac_table_destroy(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create_rejects_bad_capacity),
        cmocka_unit_test(test_large_and_prefetch),
        cmocka_unit_test(test_capacity_not_power_of_two),
        cmocka_unit_test(test_fill_to_capacity),
        cmocka_unit_test(test_random_tiny_table),
        cmocka_unit_test(test_random_against_reference),
        cmocka_unit_test(test_static_not_overwritten_by_learn),
        cmocka_unit_test(test_static_takes_over_learned),
        cmocka_unit_test(test_rejects_unusable_keys),
        cmocka_unit_test(test_learned_entry_moves),
        cmocka_unit_test(test_aging_boundary),
        cmocka_unit_test(test_aging_disabled),
        cmocka_unit_test(test_aging_incremental_budget),
        cmocka_unit_test(test_remove_port),
    };
    return cmocka_run_group_tests_name("mac_table", tests, NULL, NULL);
}
