/* The underlay's neighbour table (overlay/underlay_arp.c) in time: an answered entry
 * REACHABLE for exactly the age, then STALE and still carrying traffic while it is asked
 * again once a retry interval, the answer making it REACHABLE again; a STATIC entry never
 * asked and never aged, replacing a learned one, and taken away again (a learned entry,
 * asked at its next use); a full table reclaiming an entry nothing uses (STALE before
 * INCOMPLETE, the least recently used first; never a STATIC one). Times are passed in, so
 * every boundary is exact. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "overlay/underlay_arp.h"

#define S   UINT64_C(1000000000)
#define AGE (60 * S)                    /* IPTIMEOUT 1 */

static const uint8_t MAC_B[6] = { 0x02, 0xbb, 0, 0, 0, 2 };
static const uint8_t MAC_C[6] = { 0x02, 0xcc, 0, 0, 0, 3 };
static const uint8_t LOCAL_IP[4] = { 10, 99, 0, 1 };
static const uint8_t LOCAL_MAC[6] = { 0x02, 0xaa, 0, 0, 0, 1 };

static struct zvs_ipaddr ip4(uint8_t last)
{
    struct zvs_ipaddr a = { .family = 4, .a = { 10, 99, 0, last } };
    return a;
}

static enum zvs_uarp_state state_of(const struct zvs_uarp *u, const struct zvs_ipaddr *ip)
{
    const struct zvs_uarp_entry *e = zvs_uarp_find(u, ip);
    return e ? (enum zvs_uarp_state)e->state : ZVS_UARP_FREE;
}

/* resolve at now: whether it gave a MAC (checked against want when it did) and asked. */
static void resolves(struct zvs_uarp *u, const struct zvs_ipaddr *ip, uint64_t now,
                     const uint8_t *want, bool want_ask)
{
    uint8_t mac[6];
    bool ask = !want_ask;

    assert_int_equal(zvs_uarp_resolve(u, ip, now, mac, &ask), want != NULL);
    if (want)
        assert_memory_equal(mac, want, 6);
    assert_int_equal(ask, want_ask);
    if (ask)
        zvs_uarp_asked(u, ip, now);
}

/* ip answers with mac at now, as an ARP reply on the underlay (not one for us). */
static void answers(struct zvs_uarp *u, const struct zvs_ipaddr *ip, const uint8_t mac[6],
                    uint64_t now)
{
    uint8_t f[ZVS_UARP_FRAME_LEN], reply[ZVS_UARP_FRAME_LEN];

    zvs_uarp_request(f, mac, ip->a, ip->a);             /* a gratuitous one names it too */
    assert_int_equal(zvs_uarp_input(u, f, sizeof f, LOCAL_IP, LOCAL_MAC, now, reply), 0);
}

static void test_reachable_stale_reachable(void **state)
{
    struct zvs_uarp u;
    struct zvs_ipaddr b = ip4(2);
    const uint64_t t = 5 * S;

    zvs_uarp_init(&u, AGE);
    resolves(&u, &b, t, NULL, true);                    /* INCOMPLETE, asked */
    assert_int_equal(state_of(&u, &b), ZVS_UARP_INCOMPLETE);
    resolves(&u, &b, t + S / 4, NULL, false);           /* the retry interval not over */
    answers(&u, &b, MAC_B, t + S / 2);
    assert_int_equal(state_of(&u, &b), ZVS_UARP_REACHABLE);
    assert_int_equal(u.replies, 1);

    const uint64_t learned = t + S / 2;
    resolves(&u, &b, learned + AGE - 1, MAC_B, false);  /* the last nanosecond of the age */
    assert_int_equal(state_of(&u, &b), ZVS_UARP_REACHABLE);
    resolves(&u, &b, learned + AGE, MAC_B, true);       /* exactly the age: STALE, asked */
    assert_int_equal(state_of(&u, &b), ZVS_UARP_STALE);
    /* STALE still carries every frame; asked once a retry interval, not per frame. */
    resolves(&u, &b, learned + AGE + 1, MAC_B, false);
    resolves(&u, &b, learned + AGE + S - 1, MAC_B, false);
    resolves(&u, &b, learned + AGE + S, MAC_B, true);
    resolves(&u, &b, learned + AGE + S + S / 2, MAC_B, false);
    assert_int_equal(u.e[0].requests, 2);
    assert_int_equal(state_of(&u, &b), ZVS_UARP_STALE);

    /* The answer (a new MAC: the next hop was replaced) makes it REACHABLE again. */
    const uint64_t again = learned + AGE + 2 * S;
    answers(&u, &b, MAC_C, again);
    assert_int_equal(state_of(&u, &b), ZVS_UARP_REACHABLE);
    assert_int_equal(u.replies, 2);
    assert_int_equal(u.e[0].requests, 0);
    resolves(&u, &b, again + AGE - 1, MAC_C, false);
    resolves(&u, &b, again + AGE, MAC_C, true);
}

static void test_static_never_asks_never_ages(void **state)
{
    struct zvs_uarp u;
    struct zvs_ipaddr b = ip4(2);

    zvs_uarp_init(&u, AGE);
    assert_int_equal(zvs_uarp_set_static(&u, &b, MAC_B), 0);
    resolves(&u, &b, 0, MAC_B, false);
    resolves(&u, &b, AGE, MAC_B, false);
    resolves(&u, &b, 1000 * AGE, MAC_B, false);
    assert_int_equal(state_of(&u, &b), ZVS_UARP_STATIC);
    /* An answer with another MAC does not move a configured entry. */
    answers(&u, &b, MAC_C, 1000 * AGE + 1);
    resolves(&u, &b, 1000 * AGE + 2, MAC_B, false);
    assert_int_equal(u.replies, 0);
    assert_int_equal(u.e[0].requests, 0);
}

static void test_static_replaces_learned(void **state)
{
    struct zvs_uarp u;
    struct zvs_ipaddr b = ip4(2);

    zvs_uarp_init(&u, AGE);
    resolves(&u, &b, S, NULL, true);
    answers(&u, &b, MAC_B, 2 * S);
    resolves(&u, &b, 2 * S + AGE, MAC_B, true);         /* STALE and being asked */
    assert_int_equal(zvs_uarp_set_static(&u, &b, MAC_C), 0);
    assert_int_equal(state_of(&u, &b), ZVS_UARP_STATIC);
    resolves(&u, &b, 2 * S + AGE + S, MAC_C, false);    /* no more asking */
    answers(&u, &b, MAC_B, 3 * S + AGE);                /* the late answer changes nothing */
    resolves(&u, &b, 4 * S + AGE, MAC_C, false);
    assert_int_equal(u.replies, 1);
    /* One entry for the address, not two. */
    unsigned used = 0;
    for (unsigned i = 0; i < ZVS_UARP_MAX; i++)
        used += u.e[i].state != ZVS_UARP_FREE;
    assert_int_equal(used, 1);
}

static void test_static_deleted_is_learned(void **state)
{
    struct zvs_uarp u;
    struct zvs_ipaddr b = ip4(2), c = ip4(3);

    zvs_uarp_init(&u, AGE);
    assert_int_equal(zvs_uarp_set_static(&u, &b, MAC_B), 0);
    resolves(&u, &b, 10 * S, MAC_B, false);
    assert_int_equal(zvs_uarp_unset_static(&u, &b), 0);
    assert_int_equal(state_of(&u, &b), ZVS_UARP_STALE);
    /* The next frame still goes to the MAC it had, and asks at once. */
    resolves(&u, &b, 10 * S + 1, MAC_B, true);
    resolves(&u, &b, 10 * S + 2, MAC_B, false);
    answers(&u, &b, MAC_C, 11 * S);
    assert_int_equal(state_of(&u, &b), ZVS_UARP_REACHABLE);
    resolves(&u, &b, 11 * S + AGE, MAC_C, true);        /* and ages as a learned one */
    /* Only a static entry can be taken away. */
    assert_int_equal(zvs_uarp_unset_static(&u, &b), -ENOENT);
    assert_int_equal(zvs_uarp_unset_static(&u, &c), -ENOENT);
    assert_int_equal(state_of(&u, &c), ZVS_UARP_FREE);
}

static void test_age_set(void **state)
{
    struct zvs_uarp u;
    struct zvs_ipaddr b = ip4(2);

    zvs_uarp_init(&u, 0);
    assert_int_equal(u.age_ns, ZVS_UARP_DEFAULT_AGE);
    assert_int_equal(ZVS_UARP_DEFAULT_AGE, 300 * S);    /* IPTIMEOUT's default, 5 minutes */
    resolves(&u, &b, 0, NULL, true);
    answers(&u, &b, MAC_B, S);
    resolves(&u, &b, S + 2 * AGE, MAC_B, false);        /* 120 s: within 300 */
    zvs_uarp_set_age(&u, AGE);                          /* a shorter IPTIMEOUT */
    resolves(&u, &b, S + 2 * AGE + 1, MAC_B, true);     /* past it at the next use */
    zvs_uarp_set_age(&u, 0);
    assert_int_equal(u.age_ns, ZVS_UARP_DEFAULT_AGE);
}

static struct zvs_ipaddr far4(unsigned n)
{
    struct zvs_ipaddr a = { .family = 4, .a = { 10, 98, (uint8_t)(n >> 8), (uint8_t)n } };
    return a;
}

/* A full table: a new next hop takes the place of an entry nothing resolved within the
 * age, STALE ones (here: REACHABLE past the age) before INCOMPLETE ones however old, the
 * least recently used first; a STATIC entry and entries in use are never taken. */
static void test_full_table_reclaims(void **state)
{
    struct zvs_uarp u;
    const uint64_t ms = S / 1000;

    zvs_uarp_init(&u, AGE);
    for (unsigned i = 33; i <= 63; i++) {               /* asked first, never answered */
        struct zvs_ipaddr a = far4(i);
        resolves(&u, &a, i * ms, NULL, true);
    }
    for (unsigned i = 1; i <= 32; i++) {
        struct zvs_ipaddr a = far4(i);
        resolves(&u, &a, 100 * ms + i * ms, NULL, true);
        answers(&u, &a, MAC_B, S);
    }
    struct zvs_ipaddr st = far4(64), n = far4(200);
    assert_int_equal(zvs_uarp_set_static(&u, &st, MAC_C), 0);   /* the 64th */
    assert_int_equal(u.full, 0);

    /* 30 s on: every entry was resolved within the age, so none is taken. */
    resolves(&u, &n, 30 * S, NULL, false);
    assert_int_equal(u.full, 1);
    assert_int_equal(u.reclaimed, 0);
    assert_int_equal(state_of(&u, &n), ZVS_UARP_FREE);
    struct zvs_ipaddr s2 = far4(300);
    assert_int_equal(zvs_uarp_set_static(&u, &s2, MAC_C), -ENOSPC);
    assert_int_equal(u.full, 2);

    /* 100 s on: the 32 answered ones are past the age (STALE), taken first, the least
     * recently used first, though the INCOMPLETE ones were resolved before them. */
    for (unsigned k = 0; k < 32; k++) {
        struct zvs_ipaddr a = far4(200 + k), gone = far4(1 + k), next = far4(2 + k);
        resolves(&u, &a, 100 * S, NULL, true);
        assert_int_equal(u.reclaimed, k + 1);
        assert_int_equal(state_of(&u, &gone), ZVS_UARP_FREE);
        if (k < 31)
            assert_int_equal(state_of(&u, &next), ZVS_UARP_REACHABLE);
    }
    /* Then the INCOMPLETE ones, the oldest first; the new ones are in use. */
    struct zvs_ipaddr a = far4(250), old = far4(33), young = far4(34);
    resolves(&u, &a, 100 * S, NULL, true);
    assert_int_equal(state_of(&u, &old), ZVS_UARP_FREE);
    assert_int_equal(state_of(&u, &young), ZVS_UARP_INCOMPLETE);
    /* A static set reclaims too; the STATIC entry stays through it all. */
    assert_int_equal(zvs_uarp_set_static(&u, &s2, MAC_C), 0);
    assert_int_equal(state_of(&u, &young), ZVS_UARP_FREE);
    assert_int_equal(state_of(&u, &st), ZVS_UARP_STATIC);
    assert_int_equal(u.reclaimed, 34);
    assert_int_equal(u.full, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reachable_stale_reachable),
        cmocka_unit_test(test_static_never_asks_never_ages),
        cmocka_unit_test(test_static_replaces_learned),
        cmocka_unit_test(test_static_deleted_is_learned),
        cmocka_unit_test(test_age_set),
        cmocka_unit_test(test_full_table_reclaims),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
