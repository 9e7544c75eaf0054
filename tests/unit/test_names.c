/* names/: host name syntax, and the watched names on the in-memory resolver: TTL expiry at
 * the exact instant, the TTL floor and ceiling, backoff steps, a changed address reaching
 * its watcher, the failure states, the bound on lookups in flight. Time is the test's:
 * every `now` is an argument. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "names/name_syntax.h"
#include "names/name_watch.h"
#include "names/resolver_mem.h"

#define S  1000000000ull
#define MS 1000000ull
#define T0 (100 * S)

/* ---- syntax -------------------------------------------------------------------------- */

static enum zvs_hostname_err check(const char *s, char *canon)
{
    return zvs_hostname_check(s, strlen(s), canon);
}

static void hostnames_valid_and_canonical(void **state)
{
    char c[ZVS_HOSTNAME_MAX + 1];
    assert_int_equal(check("PEER1.Example.ORG.", c), ZVS_HOSTNAME_OK);
    assert_string_equal(c, "peer1.example.org");
    assert_int_equal(check("3com.net", c), ZVS_HOSTNAME_OK);       /* RFC 1123 digit */
    assert_int_equal(check("a-b", c), ZVS_HOSTNAME_OK);
    assert_int_equal(check("192.0.2.7", c), ZVS_HOSTNAME_OK);
    assert_string_equal(c, "192.0.2.7");
    assert_int_equal(check("2001:DB8::1", c), ZVS_HOSTNAME_OK);
    assert_string_equal(c, "2001:db8::1");
}

static void hostnames_malformed_refused(void **state)
{
    char label64[80], long255[300];
    memset(label64, 'a', 64);
    label64[64] = '\0';
    /* "a.a. ... .a": 128 labels, 255 characters; 253 is the most */
    size_t n = 0;
    while (n < 255) {
        long255[n++] = 'a';
        if (n < 255)
            long255[n++] = '.';
    }
    long255[n] = '\0';
    assert_int_equal(check("", NULL), ZVS_HOSTNAME_EMPTY);
    assert_int_equal(check(".", NULL), ZVS_HOSTNAME_EMPTY);
    assert_int_equal(check(label64, NULL), ZVS_HOSTNAME_LABEL_LONG);
    assert_int_equal(check(long255, NULL), ZVS_HOSTNAME_TOO_LONG);
    assert_int_equal(check("a..b", NULL), ZVS_HOSTNAME_LABEL_EMPTY);
    assert_int_equal(check(".a", NULL), ZVS_HOSTNAME_LABEL_EMPTY);
    assert_int_equal(check("a_b", NULL), ZVS_HOSTNAME_BAD_CHAR);
    assert_int_equal(check("a b", NULL), ZVS_HOSTNAME_BAD_CHAR);
    assert_int_equal(check("-a.b", NULL), ZVS_HOSTNAME_HYPHEN);
    assert_int_equal(check("a-.b", NULL), ZVS_HOSTNAME_HYPHEN);
    assert_int_equal(check("1.2.3", NULL), ZVS_HOSTNAME_NUMERIC_TLD);
    assert_string_equal(zvs_hostname_err_text(ZVS_HOSTNAME_LABEL_LONG),
                        "label longer than 63 characters");
}

/* ---- the watched names --------------------------------------------------------------- */

struct seen {
    unsigned changed, failing, recovered;
    unsigned naddr;
    char     first[ZVS_RES_ADDR_STR];
    unsigned nold;
    uint64_t at;
};

static void on_event(void *arg, const struct zvs_name *n, enum zvs_name_event ev,
                     const struct zvs_res_addr *old, unsigned nold, uint64_t now)
{
    struct seen *s = arg;
    s->at = now;
    if (ev == ZVS_NAME_EV_CHANGED) {
        s->changed++;
        s->naddr = n->naddr;
        s->nold = nold;
        s->first[0] = '\0';
        if (n->naddr)
            zvs_res_addr_format(&n->addr[0], s->first, sizeof s->first);
    } else if (ev == ZVS_NAME_EV_FAILING) {
        s->failing++;
    } else {
        s->recovered++;
    }
}

struct fixture {
    struct zvs_names    *t;
    struct zvs_resolver *r;
    struct seen          seen;
};

static void setup_with(struct fixture *f, const struct zvs_names_params *pp)
{
    memset(f, 0, sizeof *f);
    struct zvs_names_params p = *pp;
    p.event = on_event;
    p.arg = &f->seen;
    f->t = zvs_names_create(&p);
    assert_non_null(f->t);
    f->r = zvs_resolver_mem_create(zvs_names_answer, f->t);
    assert_non_null(f->r);
    zvs_names_set_resolver(f->t, f->r, T0);
}

/* Runs the table at each of its wakeups up to `until`, as the daemon's timer does. */
static void advance(struct fixture *f, uint64_t until)
{
    for (int guard = 0; guard < 100000; guard++) {
        uint64_t w = zvs_names_next_wakeup(f->t, 0);
        if (!w || w > until)
            break;
        zvs_names_run(f->t, w);
    }
}

static void assert_totals(const struct fixture *f, uint64_t lookups, uint64_t failures,
                          uint64_t changes)
{
    struct zvs_names_counters c;
    zvs_names_counters(f->t, &c);
    assert_int_equal(c.lookups, lookups);
    assert_int_equal(c.failures, failures);
    assert_int_equal(c.changes, changes);
}

static void ttl_expiry_at_the_exact_instant(void **state)
{
    struct fixture f;
    struct zvs_names_params p = { .ttl_floor_s = 5, .ttl_ceiling_s = 3600 };
    setup_with(&f, &p);
    const char *a[] = { "192.0.2.10" };
    assert_int_equal(zvs_resolver_mem_set(f.r, "peer.lab", a, 1, 30), 0);
    assert_int_equal(zvs_names_watch(f.t, "PEER.LAB", NULL, T0), 0);
    assert_int_equal(zvs_names_next_wakeup(f.t, T0), T0);
    zvs_names_run(f.t, T0);
    assert_int_equal(zvs_resolver_mem_queries(f.r), 1);
    advance(&f, T0 + 1 * MS);                       /* the answer, 1 ms later */
    const struct zvs_name *n = zvs_names_find(f.t, "peer.lab");
    assert_non_null(n);
    assert_int_equal(n->state, ZVS_NAME_RESOLVED);
    assert_int_equal(n->ttl_s, 30);
    assert_int_equal(f.seen.changed, 1);
    assert_string_equal(f.seen.first, "192.0.2.10");
    /* the next lookup is due 30 s after the answer, not a nanosecond earlier */
    uint64_t due = T0 + 1 * MS + 30 * S;
    assert_int_equal(zvs_names_next_wakeup(f.t, T0 + 2 * MS), due);
    advance(&f, due - 1);
    assert_int_equal(zvs_resolver_mem_queries(f.r), 1);
    advance(&f, due);
    assert_int_equal(zvs_resolver_mem_queries(f.r), 2);
    assert_int_equal(zvs_name_seconds_left(n, due), 0);
    zvs_names_destroy(f.t);
}

static void ttl_floor_and_ceiling(void **state)
{
    struct fixture f;
    struct zvs_names_params p = { .ttl_floor_s = 5, .ttl_ceiling_s = 60 };
    setup_with(&f, &p);
    zvs_resolver_mem_delay(f.r, 0);                 /* answers at the query's instant */
    const char *a[] = { "192.0.2.10" };
    zvs_resolver_mem_set(f.r, "zero.lab", a, 1, 0);     /* dnsmasq --local-ttl=0 */
    zvs_resolver_mem_set(f.r, "long.lab", a, 1, 86400);
    zvs_names_watch(f.t, "zero.lab", NULL, T0);
    zvs_names_watch(f.t, "long.lab", NULL, T0);
    /* TTL 0: one lookup per floor (5 s), not a loop: 1 + 120 s / 5 s lookups in 120 s */
    advance(&f, T0 + 120 * S);
    const struct zvs_name *z = zvs_names_find(f.t, "zero.lab");
    const struct zvs_name *l = zvs_names_find(f.t, "long.lab");
    assert_int_equal(z->lookups, 1 + 120 / 5);
    assert_int_equal(z->ttl_s, 0);                  /* shown as answered */
    assert_int_equal(l->lookups, 1 + 120 / 60);     /* the ceiling */
    zvs_names_destroy(f.t);
}

static void backoff_doubles_to_its_cap(void **state)
{
    struct fixture f;
    struct zvs_names_params p = { .backoff_first_ms = 1000, .backoff_max_ms = 8000 };
    setup_with(&f, &p);
    zvs_resolver_mem_delay(f.r, 0);
    zvs_resolver_mem_fail(f.r, "bad.lab", ZVS_RES_SERVFAIL);
    zvs_names_watch(f.t, "bad.lab", NULL, T0);
    const struct zvs_name *n = zvs_names_find(f.t, "bad.lab");
    uint64_t expect[] = { 1, 2, 4, 8, 8, 8 };
    uint64_t at = T0;
    zvs_names_run(f.t, at);                         /* query, answered at once (delay 0) */
    zvs_names_run(f.t, at);
    for (unsigned i = 0; i < 6; i++) {
        assert_int_equal(n->failures, i + 1);
        assert_int_equal(n->state, ZVS_NAME_RETRYING);
        assert_int_equal(n->last_error, ZVS_RES_SERVFAIL);
        uint64_t next = zvs_names_next_wakeup(f.t, at);
        assert_int_equal(next - at, expect[i] * S);
        at = next;
        zvs_names_run(f.t, at);
        zvs_names_run(f.t, at);
    }
    assert_int_equal(f.seen.failing, 1);            /* told once, not every retry */
    /* it comes back: resolved, backoff reset, recovered told */
    const char *a[] = { "192.0.2.1" };
    zvs_resolver_mem_set(f.r, "bad.lab", a, 1, 30);
    at = zvs_names_next_wakeup(f.t, at);
    zvs_names_run(f.t, at);
    zvs_names_run(f.t, at);
    assert_int_equal(n->state, ZVS_NAME_RESOLVED);
    assert_int_equal(n->failures, 0);
    assert_int_equal(f.seen.changed, 1);
    zvs_names_destroy(f.t);
}

static void changed_address_reaches_its_watcher(void **state)
{
    struct fixture f;
    struct zvs_names_params p = { .ttl_floor_s = 1 };
    setup_with(&f, &p);
    const char *a[] = { "192.0.2.10", "2001:db8::10" };
    zvs_resolver_mem_set(f.r, "peer.lab", a, 2, 10);
    zvs_names_watch(f.t, "peer.lab", NULL, T0);
    advance(&f, T0 + 1 * MS);
    assert_int_equal(f.seen.changed, 1);
    assert_int_equal(f.seen.naddr, 2);
    assert_int_equal(f.seen.nold, 0);
    /* the same set in another order is no change */
    const char *rot[] = { "2001:db8::10", "192.0.2.10" };
    zvs_resolver_mem_set(f.r, "peer.lab", rot, 2, 10);
    advance(&f, T0 + 11 * S);
    assert_int_equal(f.seen.changed, 1);
    /* the record changes: told at the answer after the TTL, with the old set */
    const char *b[] = { "192.0.2.20" };
    zvs_resolver_mem_set(f.r, "peer.lab", b, 1, 10);
    advance(&f, T0 + 22 * S);
    assert_int_equal(f.seen.changed, 2);
    assert_string_equal(f.seen.first, "192.0.2.20");
    assert_int_equal(f.seen.nold, 2);
    assert_int_equal(f.seen.at, T0 + 3 * MS + 20 * S);   /* 1 ms per answer */
    assert_totals(&f, 3, 0, 2);
    zvs_names_destroy(f.t);
}

static void address_order_is_configurable(void **state)
{
    struct fixture f;
    struct zvs_names_params p = { .order = ZVS_RES_ORDER_V6_V4 };
    setup_with(&f, &p);
    const char *a[] = { "192.0.2.10", "2001:db8::10" };
    zvs_resolver_mem_set(f.r, "peer.lab", a, 2, 10);
    zvs_names_watch(f.t, "peer.lab", NULL, T0);
    advance(&f, T0 + 1 * MS);
    assert_string_equal(f.seen.first, "2001:db8::10");
    zvs_names_set_order(f.t, ZVS_RES_ORDER_V4);
    advance(&f, T0 + 12 * S);
    const struct zvs_name *n = zvs_names_find(f.t, "peer.lab");
    assert_int_equal(n->naddr, 1);
    assert_int_equal(n->addr[0].family, AF_INET);
    zvs_names_destroy(f.t);
}

static void failure_states(void **state)
{
    struct fixture f;
    struct zvs_names_params p = { 0 };
    setup_with(&f, &p);
    const char *a[] = { "192.0.2.10" };
    zvs_resolver_mem_set(f.r, "peer.lab", a, 1, 10);
    zvs_names_watch(f.t, "peer.lab", NULL, T0);
    zvs_names_watch(f.t, "nobody.lab", NULL, T0);   /* not in the table: NXDOMAIN */
    advance(&f, T0 + 1 * MS);
    const struct zvs_name *n = zvs_names_find(f.t, "peer.lab");
    const struct zvs_name *x = zvs_names_find(f.t, "nobody.lab");
    assert_int_equal(x->state, ZVS_NAME_FAILED);
    assert_int_equal(x->last_error, ZVS_RES_NXDOMAIN);
    /* the server goes away: retrying, the last addresses kept */
    zvs_resolver_mem_down(f.r, true, 4 * S);
    advance(&f, T0 + 1 * MS + 10 * S + 4 * S);
    assert_int_equal(n->state, ZVS_NAME_RETRYING);
    assert_int_equal(n->last_error, ZVS_RES_TIMEOUT);
    assert_int_equal(n->naddr, 1);
    /* it returns: resolved within one backoff step */
    zvs_resolver_mem_down(f.r, false, 0);
    advance(&f, T0 + 1 * MS + 14 * S + 1 * S + 1 * MS);
    assert_int_equal(n->state, ZVS_NAME_RESOLVED);
    assert_int_equal(f.seen.recovered, 1);
    /* the record is deleted: failed, addresses dropped (a change) */
    zvs_resolver_mem_fail(f.r, "peer.lab", ZVS_RES_NXDOMAIN);
    advance(&f, T0 + 40 * S);
    assert_int_equal(n->state, ZVS_NAME_FAILED);
    assert_int_equal(n->naddr, 0);
    assert_int_equal(f.seen.naddr, 0);
    assert_int_equal(f.seen.nold, 1);
    zvs_names_destroy(f.t);
}

static void bad_answers_counted_as_failures(void **state)
{
    struct fixture f;
    struct zvs_names_params p = { 0 };
    setup_with(&f, &p);
    const char *many[ZVS_RES_MAX_ADDRS + 1];
    char buf[ZVS_RES_MAX_ADDRS + 1][20];
    for (unsigned i = 0; i <= ZVS_RES_MAX_ADDRS; i++) {
        snprintf(buf[i], sizeof buf[i], "192.0.2.%u", i + 1);
        many[i] = buf[i];
    }
    zvs_resolver_mem_set(f.r, "big.lab", many, ZVS_RES_MAX_ADDRS + 1, 10);
    zvs_resolver_mem_set(f.r, "empty.lab", NULL, 0, 10);
    zvs_resolver_mem_fail(f.r, "trunc.lab", ZVS_RES_BADANSWER);
    zvs_names_watch(f.t, "big.lab", NULL, T0);
    zvs_names_watch(f.t, "empty.lab", NULL, T0);
    zvs_names_watch(f.t, "trunc.lab", NULL, T0);
    advance(&f, T0 + 1 * MS);
    assert_int_equal(zvs_names_find(f.t, "big.lab")->last_error, ZVS_RES_OVERSIZED);
    assert_int_equal(zvs_names_find(f.t, "empty.lab")->state, ZVS_NAME_FAILED);
    assert_int_equal(zvs_names_find(f.t, "trunc.lab")->state, ZVS_NAME_RETRYING);
    assert_totals(&f, 3, 3, 0);
    struct zvs_names_counters c;
    zvs_names_counters(f.t, &c);
    assert_int_equal(c.bad_answers, 3);
    zvs_names_destroy(f.t);
}

static void flood_bounded_in_flight(void **state)
{
    struct fixture f;
    struct zvs_names_params p = { .max_in_flight = 16 };
    setup_with(&f, &p);
    zvs_resolver_mem_delay(f.r, 100 * MS);
    const char *a[] = { "192.0.2.10" };
    char name[32];
    for (unsigned i = 0; i < 300; i++) {
        snprintf(name, sizeof name, "peer%u.lab", i);
        if (i < 60)
            zvs_resolver_mem_set(f.r, name, a, 1, 300);
        assert_int_equal(zvs_names_watch(f.t, name, NULL, T0), 0);
    }
    assert_int_equal(zvs_names_watch(f.t, "PEER0.lab", NULL, T0), -EEXIST);
    assert_int_equal(zvs_names_watch(f.t, "bad_name", NULL, T0), -EINVAL);
    zvs_names_run(f.t, T0);
    assert_int_equal(zvs_resolver_mem_in_flight(f.r), 16);
    unsigned peak = 0;
    for (int guard = 0; guard < 10000; guard++) {
        uint64_t w = zvs_names_next_wakeup(f.t, 0);
        if (!w || w > T0 + 3 * S)
            break;
        zvs_names_run(f.t, w);
        unsigned inf = zvs_resolver_mem_in_flight(f.r);
        peak = inf > peak ? inf : peak;
    }
    assert_true(peak <= 16);
    struct zvs_names_counters c;
    zvs_names_counters(f.t, &c);
    assert_int_equal(c.watched, 300);
    assert_true(c.deferred > 0);
    assert_true(c.lookups >= 300);                  /* every name looked up within 3 s */
    for (unsigned i = 0; i < 300; i++) {
        snprintf(name, sizeof name, "peer%u.lab", i);
        assert_int_not_equal(zvs_names_find(f.t, name)->state, ZVS_NAME_RESOLVING);
    }
    zvs_names_destroy(f.t);
}

static void unwatch_in_flight_and_literals(void **state)
{
    struct fixture f;
    struct zvs_names_params p = { 0 };
    setup_with(&f, &p);
    const char *a[] = { "192.0.2.10" };
    zvs_resolver_mem_set(f.r, "peer.lab", a, 1, 10);
    zvs_names_watch(f.t, "peer.lab", NULL, T0);
    zvs_names_run(f.t, T0);
    assert_int_equal(zvs_names_unwatch(f.t, "peer.lab"), 0);
    assert_int_equal(zvs_names_unwatch(f.t, "peer.lab"), -ENOENT);
    advance(&f, T0 + 1 * MS);                       /* its answer is dropped */
    assert_int_equal(f.seen.changed, 0);
    assert_null(zvs_names_find(f.t, "peer.lab"));
    /* an address literal: resolved at once, never looked up */
    assert_int_equal(zvs_names_watch(f.t, "198.51.100.7", NULL, T0), 0);
    assert_int_equal(f.seen.changed, 1);
    assert_int_equal(zvs_names_find(f.t, "198.51.100.7")->state, ZVS_NAME_RESOLVED);
    assert_int_equal(zvs_names_next_wakeup(f.t, T0 + 2 * MS), 0);
    assert_int_equal(zvs_resolver_mem_queries(f.r), 1);
    zvs_names_destroy(f.t);
}

static void resolver_swap_asks_again(void **state)
{
    struct fixture f;
    struct zvs_names_params p = { 0 };
    setup_with(&f, &p);
    zvs_names_watch(f.t, "peer.lab", NULL, T0);
    zvs_names_run(f.t, T0);                         /* in flight on the first resolver */
    struct zvs_resolver *r2 = zvs_resolver_mem_create(zvs_names_answer, f.t);
    const char *a[] = { "192.0.2.99" };
    zvs_resolver_mem_set(r2, "peer.lab", a, 1, 10);
    zvs_names_set_resolver(f.t, r2, T0 + 5 * MS);
    advance(&f, T0 + 10 * MS);
    assert_int_equal(zvs_names_find(f.t, "peer.lab")->state, ZVS_NAME_RESOLVED);
    assert_string_equal(f.seen.first, "192.0.2.99");
    struct zvs_names_counters c;
    zvs_names_counters(f.t, &c);
    assert_int_equal(c.in_flight, 0);
    zvs_names_destroy(f.t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hostnames_valid_and_canonical),
        cmocka_unit_test(hostnames_malformed_refused),
        cmocka_unit_test(ttl_expiry_at_the_exact_instant),
        cmocka_unit_test(ttl_floor_and_ceiling),
        cmocka_unit_test(backoff_doubles_to_its_cap),
        cmocka_unit_test(changed_address_reaches_its_watcher),
        cmocka_unit_test(address_order_is_configurable),
        cmocka_unit_test(failure_states),
        cmocka_unit_test(bad_answers_counted_as_failures),
        cmocka_unit_test(flood_bounded_in_flight),
        cmocka_unit_test(unwatch_in_flight_and_literals),
        cmocka_unit_test(resolver_swap_asks_again),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
