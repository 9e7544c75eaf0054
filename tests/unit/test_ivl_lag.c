/* Multi-VSwitch Link Aggregation end to end on virtual time, without a daemon: three
 * systems, each a switch with a port group SHARED in one IVL domain (ivl/domain.c over the
 * in-memory cluster) and two members, all six cabled (memlinks) to ONE partner switch
 * whose port group holds all six in one aggregation, as one channel-group of a physical
 * switch would. lag/lag_domain.c is the glue under test.
 *
 * The partner sees one actor system id and key and six distinct port numbers (0x0101 ..
 * 0x0302); when the IVL is cut so that system 3 is alone, it loses quorum after the token
 * timeout and leaves the aggregation with a final LACPDU (the partner keeps the other
 * four, never a split LAG), and comes back when the IVL heals; a system whose group
 * definition differs refuses to share and the partner never aggregates its ports; a
 * system killed with its links up is dropped by the partner at LACP's short timeout, one
 * killed with its links at once, while the other two keep the LAG. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "backends/memlink.h"
#include "dataplane/switch.h"
#include "ivl/cluster_mem.h"
#include "ivl/domain.h"
#include "lag/lag.h"
#include "lag/lag_domain.h"
#include "lag/pgroup.h"

#define MS       1000000ull
#define SEC      1000000000ull
#define T0       (1000 * SEC)
#define TOKEN_MS 1000u
#define NSYS     3

static const uint8_t SYS_DOMAIN[6] = { 0x02, 0x00, 0x00, 0x00, 0x0D, 0x00 };  /* shared */
static const uint8_t SYS_PARTNER[6] = { 0x02, 0x00, 0x00, 0x00, 0x0F, 0x00 };

struct sys {
    struct zvs_switch     *sw;
    struct zvs_lag        *lag;
    struct zvs_port       *m[2];
    struct zvs_ivl_domain *d;
};

struct lab {
    struct zvs_cluster_mem_net *net;
    struct sys                  s[NSYS + 1];      /* 1..3 */
    struct zvs_switch          *psw;              /* the partner */
    struct zvs_lag             *plag;
    struct zvs_port            *pm[2 * NSYS];
    uint64_t                    now;
    bool                        dead[NSYS + 1];   /* killed: its loop no longer runs */
    unsigned                    nsys;             /* 2 or 3 */
};

static struct zvs_switch *new_switch(const char *name)
{
    struct zvs_switch_params p = { .vlan = { .aware = false } };
    snprintf(p.name, sizeof p.name, "%.8s", name);
    struct zvs_switch *sw = zvs_switch_create(&p);
    assert_non_null(sw);
    return sw;
}

static struct zvs_lag_params group_params(uint8_t index, const uint8_t sys[6], uint16_t key)
{
    struct zvs_lag_params lp = { .pg = { .name = "ETHGRP", .lacp = true },
                                 .domain_index = index, .key = key };
    memcpy(lp.system, sys, 6);
    return lp;
}

/* nsys systems (2 with votequorum's auto_tie_breaker, as the generated corosync.conf
 * has it); key3: system 3's actor key (1 agrees). */
static void lab_setup_n(struct lab *l, unsigned nsys, uint16_t key3)
{
    uint32_t ids[NSYS] = { 1, 2, 3 };
    memset(l, 0, sizeof *l);
    l->now = T0;
    l->nsys = nsys;
    l->net = zvs_cluster_mem_net_new(ids, nsys, TOKEN_MS, nsys == 2);
    assert_non_null(l->net);
    l->psw = new_switch("PARTNER");
    struct zvs_lag_params pp = group_params(0, SYS_PARTNER, 7);
    l->plag = zvs_lag_create(l->psw, &pp, l->now);
    assert_non_null(l->plag);
    for (unsigned n = 1; n <= l->nsys; n++) {
        struct sys *s = &l->s[n];
        char name[8];
        snprintf(name, sizeof name, "SYS%u", n % 10);
        s->sw = new_switch(name);
        struct zvs_lag_params lp = group_params((uint8_t)n, SYS_DOMAIN, n == 3 ? key3 : 1);
        s->lag = zvs_lag_create(s->sw, &lp, l->now);
        assert_non_null(s->lag);
        for (unsigned i = 0; i < 2; i++) {
            char a[16], b[16], rdev[8];
            unsigned pi = 2 * (n - 1) + i;
            snprintf(a, sizeof a, "S%u%c", n, 'A' + i);
            snprintf(b, sizeof b, "P%u", pi);
            assert_int_equal(zvs_memlink_pair(a, b, 64, 0, &s->m[i], &l->pm[pi]), 0);
            uint8_t mac[6] = { 0x02, 0, 0, (uint8_t)n, 0, (uint8_t)(0x80 + i) };
            snprintf(rdev, sizeof rdev, "%u%c00", n, 'A' + i);
            assert_int_equal(zvs_lag_join(s->lag, s->m[i], rdev, mac, 1000, l->now), (int)i);
            uint8_t pmac[6] = { 0x02, 0, 0, 0, 0x0F, (uint8_t)(0x10 + pi) };
            snprintf(rdev, sizeof rdev, "P%u", pi);
            assert_int_equal(zvs_lag_join(l->plag, l->pm[pi], rdev, pmac, 1000, l->now),
                             (int)pi);
        }
        struct zvs_ivl_domain_cfg c = { .index = (uint8_t)n, .vswitch = "GLOBVSW",
                                        .group = "ETHGRP", .shared = true,
                                        .heartbeat_ms = TOKEN_MS };
        snprintf(c.system, sizeof c.system, "SYS%u", n);
        zvs_lag_domain_def(zvs_lag_params(s->lag), &c.def);
        s->d = zvs_ivl_domain_new(&c, zvs_cluster_mem_new(l->net, n, NULL), NULL, NULL);
        assert_non_null(s->d);
        assert_int_equal(zvs_ivl_domain_start(s->d), 0);
    }
}

static void lab_setup(struct lab *l, uint16_t key3)
{
    lab_setup_n(l, NSYS, key3);
}

static void lab_teardown(struct lab *l)
{
    for (unsigned n = 1; n <= l->nsys; n++) {
        zvs_ivl_domain_free(l->s[n].d);
        zvs_lag_destroy(l->s[n].lag, l->now);
        zvs_switch_destroy(l->s[n].sw);
    }
    zvs_lag_destroy(l->plag, l->now);
    zvs_switch_destroy(l->psw);
    zvs_cluster_mem_net_free(l->net);
}

static void poll_members(struct zvs_switch *sw, struct zvs_port **m, unsigned n, uint64_t now)
{
    for (unsigned i = 0; i < n; i++)
        while (zvs_switch_poll(sw, m[i], now) > 0)
            ;
}

/* One event-loop turn of every system and the partner, in 10 ms steps up to `until`. */
static void pump_until(struct lab *l, uint64_t until)
{
    for (; l->now <= until; l->now += 10 * MS) {
        for (unsigned n = 1; n <= l->nsys; n++) {
            struct sys *s = &l->s[n];
            if (l->dead[n])
                continue;
            poll_members(s->sw, s->m, 2, l->now);
            zvs_ivl_domain_run(s->d, l->now);
            zvs_lag_domain_sync(s->lag, s->d, l->now);
            if (zvs_lag_next_wakeup(s->lag) <= l->now)
                zvs_lag_run(s->lag, l->now);
        }
        poll_members(l->psw, l->pm, 2 * l->nsys, l->now);
        if (zvs_lag_next_wakeup(l->plag) <= l->now)
            zvs_lag_run(l->plag, l->now);
    }
    l->now -= 10 * MS;
}

static unsigned distributing(struct zvs_lag *lag)
{
    return zvs_pgroup_distributing(zvs_lag_group(lag));
}

static bool partner_slot_distributing(const struct lab *l, unsigned slot)
{
    const struct zvs_pg_member *pm = zvs_pgroup_member(zvs_lag_group(l->plag), slot);
    return pm && pm->distributing;
}

/* The three systems set up and run until the partner aggregates all six ports. */
static void lab_converged(struct lab *l)
{
    lab_setup(l, 1);
    pump_until(l, T0 + 4 * SEC);
    assert_int_equal(distributing(l->plag), 6);
}

static void one_lag_across_three_systems(void **state)
{
    struct lab l;
    lab_converged(&l);
    for (unsigned n = 1; n <= NSYS; n++) {
        assert_int_equal(distributing(l.s[n].lag), 2);
        assert_int_equal(zvs_ivl_domain_status(l.s[n].d), ZVS_IVL_ACTIVE);
    }
    /* the partner sees one actor system and key, six distinct port numbers */
    for (unsigned pi = 0; pi < 2 * NSYS; pi++) {
        const struct zvs_lacp_info *pa = zvs_lacp_port_partner(zvs_lag_member_lacp(l.plag, pi));
        assert_memory_equal(pa->system, SYS_DOMAIN, 6);
        assert_int_equal(pa->key, 1);
        assert_int_equal(pa->port, ((pi / 2 + 1) << 8) | (pi % 2 + 1));
    }
    /* each system knows the others' members, distributing */
    struct zvs_ivl_system_view v[ZVS_CL_MAX_NODES];
    assert_int_equal(zvs_ivl_domain_systems(l.s[1].d, v, ZVS_CL_MAX_NODES), 3);
    assert_int_equal(v[2].state.nmembers, 2);
    assert_int_equal(v[2].state.member[1].port, 0x0302);
    assert_int_equal(v[2].state.member[1].state & ZVS_IVL_MS_DISTRIBUTING,
                     ZVS_IVL_MS_DISTRIBUTING);
    lab_teardown(&l);
}

static void cut_ivl_lone_system_leaves_the_lag(void **state)
{
    struct lab l;
    lab_converged(&l);
    uint64_t cut = l.now;
    zvs_cluster_mem_set_side(l.net, 3, 1, cut);
    /* before the token timeout nothing changes */
    pump_until(&l, cut + (TOKEN_MS - 20) * MS);
    assert_int_equal(distributing(l.plag), 6);
    /* then system 3 loses quorum and its final LACPDUs take its links out at once */
    pump_until(&l, cut + (TOKEN_MS + 50) * MS);
    assert_int_equal(zvs_ivl_domain_status(l.s[3].d), ZVS_IVL_NO_QUORUM);
    assert_true(zvs_lag_domain_held(l.s[3].lag));
    assert_int_equal(distributing(l.s[3].lag), 0);
    assert_int_equal(distributing(l.plag), 4);
    assert_false(partner_slot_distributing(&l, 4));
    assert_false(partner_slot_distributing(&l, 5));
    assert_int_equal(distributing(l.s[1].lag), 2);
    assert_int_equal(distributing(l.s[2].lag), 2);
    /* the IVL heals: system 3 rejoins the domain and the aggregation */
    zvs_cluster_mem_set_side(l.net, 3, 0, l.now);
    pump_until(&l, l.now + (TOKEN_MS + 4000) * MS);
    assert_int_equal(zvs_ivl_domain_status(l.s[3].d), ZVS_IVL_ACTIVE);
    assert_int_equal(distributing(l.plag), 6);
    lab_teardown(&l);
}

static void disagreeing_system_never_joins_the_lag(void **state)
{
    struct lab l;
    lab_setup(&l, 9);       /* system 3's key differs */
    pump_until(&l, T0 + 4 * SEC);
    assert_int_equal(zvs_ivl_domain_status(l.s[3].d), ZVS_IVL_REFUSED);
    assert_int_equal(zvs_ivl_domain_disagreeing(l.s[1].d), 1);
    assert_int_equal(distributing(l.s[3].lag), 0);
    assert_int_equal(distributing(l.plag), 4);
    lab_teardown(&l);
}

/* System n dies (vswitchd and corosync) and its OSA links with it: the partner's ports
 * see carrier go, as a physical switch's do. */
static void kill_with_links(struct lab *l, unsigned n)
{
    l->dead[n] = true;
    zvs_cluster_mem_set_engine(l->net, n, false, l->now);
    for (unsigned i = 0; i < 2; i++) {
        struct zvs_port *p = l->pm[2 * (n - 1) + i];
        zvs_memlink_set_carrier(l->s[n].m[i], false);
        zvs_memlink_set_carrier(p, false);
        p->carrier = false;
        zvs_switch_set_carrier(l->psw, p, false);
        zvs_lag_carrier(l->plag, p, false, l->now);
    }
}

/* A system killed (vswitchd and its corosync) with its OSA links left up: the partner
 * learns it only from LACP's short timeout (3 s: the silent system-loss gap, under the
 * 3.5 s target), the other two keep quorum and their members throughout. */
static void killed_system_silent_links(void **state)
{
    struct lab l;
    lab_converged(&l);
    uint64_t kill = l.now;
    l.dead[2] = true;
    zvs_cluster_mem_set_engine(l.net, 2, false, kill);
    uint64_t gone = 0;
    while (!gone && l.now < kill + 5 * SEC) {
        pump_until(&l, l.now + 10 * MS);
        if (!partner_slot_distributing(&l, 2) && !partner_slot_distributing(&l, 3))
            gone = l.now;
        assert_int_equal(distributing(l.s[1].lag), 2);
        assert_int_equal(distributing(l.s[3].lag), 2);
    }
    assert_true(gone >= kill + 2900 * MS);
    assert_true(gone <= kill + 3500 * MS);
    assert_int_equal(distributing(l.plag), 4);
    assert_int_equal(zvs_ivl_domain_status(l.s[1].d), ZVS_IVL_ACTIVE);
    assert_int_equal(zvs_ivl_domain_status(l.s[3].d), ZVS_IVL_ACTIVE);
    lab_teardown(&l);
}

/* A system dies with its links: the partner takes them out in the carrier event itself
 * (the carrier system-loss gap: 0 ms of virtual time, under the 100 ms target). */
static void killed_system_with_its_links(void **state)
{
    struct lab l;
    lab_setup(&l, 1);
    pump_until(&l, T0 + 4 * SEC);
    kill_with_links(&l, 3);
    assert_int_equal(distributing(l.plag), 4);
    pump_until(&l, l.now + (TOKEN_MS + 50) * MS);
    assert_int_equal(distributing(l.plag), 4);
    assert_int_equal(zvs_ivl_domain_status(l.s[1].d), ZVS_IVL_ACTIVE);
    assert_int_equal(distributing(l.s[1].lag), 2);
    lab_teardown(&l);
}

/* Two systems: votequorum's auto_tie_breaker lets the lowest node id keep the LAG when
 * the IVL is cut, and so killing the lowest node id takes the whole LAG down, by design
 * (README: an arbiter, corosync-qnetd, is what lets the survivor keep it). */
static void two_systems_lowest_node_decides(void **state)
{
    struct lab l;
    lab_setup_n(&l, 2, 1);
    pump_until(&l, T0 + 4 * SEC);
    assert_int_equal(distributing(l.plag), 4);
    zvs_cluster_mem_set_side(l.net, 2, 1, l.now);
    pump_until(&l, l.now + (TOKEN_MS + 50) * MS);
    assert_int_equal(zvs_ivl_domain_status(l.s[1].d), ZVS_IVL_ACTIVE);
    assert_int_equal(zvs_ivl_domain_status(l.s[2].d), ZVS_IVL_NO_QUORUM);
    assert_int_equal(distributing(l.plag), 2);
    assert_int_equal(distributing(l.s[1].lag), 2);
    zvs_cluster_mem_set_side(l.net, 2, 0, l.now);
    pump_until(&l, l.now + (TOKEN_MS + 4000) * MS);
    assert_int_equal(distributing(l.plag), 4);
    /* the lowest node id dies with its links: the survivor has half the votes without
     * the tie-breaker, so nothing is left in the aggregation */
    kill_with_links(&l, 1);
    pump_until(&l, l.now + (TOKEN_MS + 50) * MS);
    assert_int_equal(zvs_ivl_domain_status(l.s[2].d), ZVS_IVL_NO_QUORUM);
    assert_int_equal(distributing(l.s[2].lag), 0);
    assert_int_equal(distributing(l.plag), 0);
    lab_teardown(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_lag_across_three_systems),
        cmocka_unit_test(cut_ivl_lone_system_leaves_the_lag),
        cmocka_unit_test(disagreeing_system_never_joins_the_lag),
        cmocka_unit_test(killed_system_silent_links),
        cmocka_unit_test(killed_system_with_its_links),
        cmocka_unit_test(two_systems_lowest_node_decides),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
