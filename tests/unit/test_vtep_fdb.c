/* The VTEP's remote-MAC table (overlay/vtep_fdb.c): learning, moves, the capacity limit a
 * flood of new sources meets, static entries, aging at exact virtual times, forgetting a
 * remote, and a randomized comparison with a plain reference array (fixed seed) that
 * exercises backward-shift deletion. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "overlay/vtep_fdb.h"
#include "tests/unit/vxlan_frames.h"

#define S  UINT64_C(1000000000)

static struct zvs_vtep_fdb_stats stats_of(const struct zvs_vtep_fdb *t)
{
    struct zvs_vtep_fdb_stats s;
    zvs_vtep_fdb_stats(t, &s);
    return s;
}

static void test_learn_refresh_move(void **state)
{
    struct zvs_vtep_fdb *t = zvs_vtep_fdb_create(16, 300 * S);
    uint8_t m[6];
    vf_mac(m, 1);

    assert_int_equal(zvs_vtep_fdb_lookup(t, m, 10), -1);
    assert_int_equal(zvs_vtep_fdb_learn(t, m, 10, 3, 1), ZVS_VTEP_FDB_ADDED);
    assert_int_equal(zvs_vtep_fdb_learn(t, m, 10, 3, 2), ZVS_VTEP_FDB_REFRESHED);
    assert_int_equal(zvs_vtep_fdb_lookup(t, m, 10), 3);
    assert_int_equal(zvs_vtep_fdb_lookup(t, m, 11), -1);         /* per VNI */
    assert_int_equal(zvs_vtep_fdb_learn(t, m, 10, 4, 3), ZVS_VTEP_FDB_MOVED);
    assert_int_equal(zvs_vtep_fdb_lookup(t, m, 10), 4);
    assert_int_equal(stats_of(t).moves, 1);
    const uint8_t bc[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }, zero[6] = { 0 };
    assert_int_equal(zvs_vtep_fdb_learn(t, bc, 10, 4, 3), -EINVAL);
    assert_int_equal(zvs_vtep_fdb_learn(t, zero, 10, 4, 3), -EINVAL);
    zvs_vtep_fdb_destroy(t);
}

/* Past the capacity new sources are refused and counted; known ones still refresh. */
static void test_capacity_limit(void **state)
{
    struct zvs_vtep_fdb *t = zvs_vtep_fdb_create(5, 300 * S);
    uint8_t m[6];

    for (uint16_t i = 1; i <= 5; i++) {
        vf_mac(m, i);
        assert_int_equal(zvs_vtep_fdb_learn(t, m, 1, 0, 1), ZVS_VTEP_FDB_ADDED);
    }
    for (uint16_t i = 6; i <= 100; i++) {
        vf_mac(m, i);
        assert_int_equal(zvs_vtep_fdb_learn(t, m, 1, 0, 1), -ENOSPC);
    }
    vf_mac(m, 3);
    assert_int_equal(zvs_vtep_fdb_learn(t, m, 1, 0, 2), ZVS_VTEP_FDB_REFRESHED);
    struct zvs_vtep_fdb_stats s = stats_of(t);
    assert_int_equal(s.entries, 5);
    assert_int_equal(s.refused_full, 95);
    errno = 0;
    assert_null(zvs_vtep_fdb_create(0, 1));
    assert_int_equal(errno, EINVAL);
    zvs_vtep_fdb_destroy(t);
}

static void test_static_entries(void **state)
{
    struct zvs_vtep_fdb *t = zvs_vtep_fdb_create(8, 10 * S);
    uint8_t m[6];
    vf_mac(m, 9);

    assert_int_equal(zvs_vtep_fdb_learn(t, m, 1, 2, 0), ZVS_VTEP_FDB_ADDED);
    assert_int_equal(zvs_vtep_fdb_add_static(t, m, 1, 1), 0);    /* takes the learned one */
    assert_int_equal(stats_of(t).learned, 0);
    assert_int_equal(zvs_vtep_fdb_learn(t, m, 1, 2, 5), -EPERM);
    assert_int_equal(zvs_vtep_fdb_learn(t, m, 1, 1, 5), ZVS_VTEP_FDB_REFRESHED);
    assert_int_equal(zvs_vtep_fdb_age(t, 1000 * S), 0);
    assert_int_equal(zvs_vtep_fdb_lookup(t, m, 1), 1);
    zvs_vtep_fdb_destroy(t);
}

/* Aged exactly at the age; a refresh restarts it. */
static void test_aging(void **state)
{
    struct zvs_vtep_fdb *t = zvs_vtep_fdb_create(8, 10 * S);
    uint8_t a[6], b[6];
    vf_mac(a, 1);
    vf_mac(b, 2);

    zvs_vtep_fdb_learn(t, a, 1, 0, 0);
    zvs_vtep_fdb_learn(t, b, 1, 0, 0);
    zvs_vtep_fdb_learn(t, b, 1, 0, 5 * S);
    assert_int_equal(zvs_vtep_fdb_age(t, 10 * S - 1), 0);
    assert_int_equal(zvs_vtep_fdb_age(t, 10 * S), 1);
    assert_int_equal(zvs_vtep_fdb_lookup(t, a, 1), -1);
    assert_int_equal(zvs_vtep_fdb_lookup(t, b, 1), 0);
    assert_int_equal(zvs_vtep_fdb_age(t, 15 * S), 1);
    assert_int_equal(stats_of(t).aged_out, 2);
    assert_int_equal(stats_of(t).entries, 0);
    zvs_vtep_fdb_destroy(t);
}

static void test_forget_remote(void **state)
{
    struct zvs_vtep_fdb *t = zvs_vtep_fdb_create(64, 10 * S);
    uint8_t m[6];

    for (uint16_t i = 1; i <= 40; i++) {
        vf_mac(m, i);
        zvs_vtep_fdb_learn(t, m, 1, (uint16_t)(i % 3), 0);
    }
    assert_int_equal(zvs_vtep_fdb_forget_remote(t, 1), 14);
    for (uint16_t i = 1; i <= 40; i++) {
        vf_mac(m, i);
        assert_int_equal(zvs_vtep_fdb_lookup(t, m, 1), i % 3 == 1 ? -1 : i % 3);
    }
    zvs_vtep_fdb_destroy(t);
}

struct ref { uint8_t used; uint16_t remote; uint64_t seen; };

static int count_cb(void *arg, const struct zvs_vtep_fdb_entry *e)
{
    (*(unsigned *)arg)++;
    return 0;
}

/* Random learning, aging and forgetting against a reference array over 512 MACs in a
 * table of 600: long clusters, deletions in their middle. */
static void test_random_against_reference(void **state)
{
    enum { NMAC = 512 };
    struct zvs_vtep_fdb *t = zvs_vtep_fdb_create(600, 50);
    static struct ref ref[NMAC];
    uint8_t m[6];
    unsigned seed = 12345;

    memset(ref, 0, sizeof ref);
    for (uint64_t now = 1; now <= 20000; now++) {
        uint16_t i = (uint16_t)(rand_r(&seed) % NMAC);
        uint16_t r = (uint16_t)(rand_r(&seed) % 4);
        vf_mac(m, (uint16_t)(i + 1));
        zvs_vtep_fdb_learn(t, m, 7, r, now);
        ref[i] = (struct ref){ 1, r, now };
        if (now % 97 == 0) {
            zvs_vtep_fdb_age(t, now);
            for (unsigned j = 0; j < NMAC; j++)
                if (ref[j].used && now - ref[j].seen >= 50)
                    ref[j].used = 0;
        }
        if (now % 1013 == 0) {
            zvs_vtep_fdb_forget_remote(t, 2);
            for (unsigned j = 0; j < NMAC; j++)
                if (ref[j].remote == 2)
                    ref[j].used = 0;
        }
        if (now % 50 == 0) {
            unsigned n = 0, live = 0;
            for (unsigned j = 0; j < NMAC; j++) {
                vf_mac(m, (uint16_t)(j + 1));
                assert_int_equal(zvs_vtep_fdb_lookup(t, m, 7), ref[j].used ? ref[j].remote : -1);
                live += ref[j].used;
            }
            zvs_vtep_fdb_foreach(t, count_cb, &n);
            assert_int_equal(n, live);
        }
    }
    zvs_vtep_fdb_destroy(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_learn_refresh_move),
        cmocka_unit_test(test_capacity_limit),
        cmocka_unit_test(test_static_entries),
        cmocka_unit_test(test_aging),
        cmocka_unit_test(test_forget_remote),
        cmocka_unit_test(test_random_against_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
