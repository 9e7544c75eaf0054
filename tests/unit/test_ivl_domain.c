/* The IVL domain (ivl/domain.c) over the in-memory cluster (ivl/cluster_mem.c) on virtual
 * time: three systems converge and replicate their members; a system cut off by the IVL
 * loses quorum and leaves the LAG while the other two keep it, and rejoins; a system killed
 * (vswitchd and its corosync) is seen gone after the token timeout and restarts; a
 * corosync that dies under a running vswitchd takes that system out until it is back; two
 * systems with auto_tie_breaker (the lowest node id keeps the LAG; killing it takes the LAG
 * down by design); a definition or index that disagrees (reported on both sides, refused
 * by the one that differs); no corosync, corosync started after vswitchd, a join that
 * fails and is retried; HEARTBEAT TIMEOUT against the token timeout;
 * malformed state messages counted by reason; a state message the engine refuses (CPG's
 * flow control while a view syncs) sent again, never lost. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ivl/cluster_mem.h"
#include "ivl/domain.h"
#include "ivl/port_number.h"

#define MS        1000000ull
#define TOKEN_MS  1000u
#define NSYS      3

struct lab {
    struct zvs_cluster_mem_net *net;
    struct zvs_ivl_domain      *d[NSYS + 1];    /* by node id 1..3 */
    unsigned                    changes[NSYS + 1];
    uint64_t                    now;
    unsigned                    nsys;
};


static void on_changed(void *arg)
{
    unsigned *n = arg;
    (*n)++;
}

static struct zvs_ivl_domain_cfg cfg_of(unsigned node)
{
    struct zvs_ivl_domain_cfg c = {
        .index = (uint8_t)node, .vswitch = "GLOBVSW", .group = "ETHGRP", .shared = true,
        .def = { .lacp = 1, .timeout = 1, .distribution = 0, .key = 0x0100,
                 .system_priority = 0x8000, .system = { 0x02, 0, 0, 0, 0, 0x10 } },
        .heartbeat_ms = TOKEN_MS,
    };
    snprintf(c.system, sizeof c.system, "SYS%u", node);
    return c;
}

/* Two members per system: OSA ports n0A0 and n0B0, carrier up and distributing. */
static void give_members(struct lab *l, unsigned node, uint8_t state)
{
    struct zvs_ivl_member m[2];
    memset(m, 0, sizeof m);
    for (unsigned i = 0; i < 2; i++) {
        snprintf(m[i].rdev, sizeof m[i].rdev, "%u0%c0", node, 'A' + i);
        m[i].port = zvs_ivl_port_number(node, i);
        m[i].state = state;
        m[i].speed_mbps = 1000;
    }
    zvs_ivl_domain_set_members(l->d[node], m, 2);
}

static const uint8_t UP = ZVS_IVL_MS_CARRIER | ZVS_IVL_MS_SELECTED | ZVS_IVL_MS_COLLECTING |
                          ZVS_IVL_MS_DISTRIBUTING;

static void start_system(struct lab *l, unsigned node, const struct zvs_ivl_domain_cfg *c)
{
    struct zvs_cluster *cl = zvs_cluster_mem_new(l->net, node, NULL);
    assert_non_null(cl);
    l->d[node] = zvs_ivl_domain_new(c, cl, on_changed, &l->changes[node]);
    assert_non_null(l->d[node]);
    assert_int_equal(zvs_ivl_domain_start(l->d[node]), 0);
    give_members(l, node, UP);
}

/* Advance virtual time to `at`, running every live system at each millisecond step the
 * way each vswitchd's event loop would. */
static void run_until(struct lab *l, uint64_t at)
{
    do {
        for (unsigned n = 1; n <= l->nsys; n++)
            if (l->d[n])
                zvs_ivl_domain_run(l->d[n], l->now);
        if (l->now >= at)
            break;
        l->now += 10 * MS;
        if (l->now > at)
            l->now = at;
    } while (1);
}

static struct lab *lab_new(unsigned nsys, bool atb)
{
    static struct lab lab;
    uint32_t ids[NSYS] = { 1, 2, 3 };
    memset(&lab, 0, sizeof lab);
    lab.nsys = nsys;
    lab.net = zvs_cluster_mem_net_new(ids, nsys, TOKEN_MS, atb);
    assert_non_null(lab.net);
    return &lab;
}

static void lab_free(struct lab *l)
{
    for (unsigned n = 1; n <= l->nsys; n++)
        zvs_ivl_domain_free(l->d[n]);
    zvs_cluster_mem_net_free(l->net);
}

static void lab_up(struct lab *l)
{
    for (unsigned n = 1; n <= l->nsys; n++) {
        struct zvs_ivl_domain_cfg c = cfg_of(n);
        start_system(l, n, &c);
    }
    run_until(l, l->now + 10 * MS);
}

/* What `node` knows of `other`: its state, or NULL when it does not know it. */
static const struct zvs_ivl_state *known(struct lab *l, unsigned node, unsigned other,
                                         struct zvs_ivl_system_view *buf)
{
    unsigned n = zvs_ivl_domain_systems(l->d[node], buf, ZVS_CL_MAX_NODES);
    for (unsigned i = 0; i < n; i++)
        if (buf[i].node_id == other)
            return &buf[i].state;
    return NULL;
}

static void assert_status(struct lab *l, unsigned node, enum zvs_ivl_status s)
{
    enum zvs_ivl_status got = zvs_ivl_domain_status(l->d[node]);
    if (got != s)
        fail_msg("system %u: status %s, expected %s", node, zvs_ivl_status_name(got),
                 zvs_ivl_status_name(s));
}

/* ---- tests ------------------------------------------------------------------------- */

static void converge_and_replicate(void **state)
{
    struct lab *l = lab_new(3, false);
    struct zvs_ivl_system_view v[ZVS_CL_MAX_NODES];
    lab_up(l);
    for (unsigned n = 1; n <= 3; n++) {
        assert_status(l, n, ZVS_IVL_ACTIVE);
        assert_true(zvs_ivl_domain_aggregating(l->d[n]));
        assert_int_equal(zvs_ivl_domain_systems(l->d[n], v, ZVS_CL_MAX_NODES), 3);
        for (unsigned o = 1; o <= 3; o++) {
            const struct zvs_ivl_state *s = known(l, n, o, v);
            assert_non_null(s);
            assert_int_equal(s->index, o);
            assert_int_equal(s->nmembers, 2);
            assert_int_equal(s->member[1].port, (o << 8) | 2);
            assert_true(s->flags & ZVS_IVL_SF_AGGREGATING);
        }
        assert_int_equal(zvs_ivl_domain_disagreeing(l->d[n]), 0);
    }
    /* a member of system 2 stops distributing: 1 and 3 learn it */
    give_members(l, 2, ZVS_IVL_MS_CARRIER);
    run_until(l, l->now + 10 * MS);
    for (unsigned n = 1; n <= 3; n += 2)
        assert_int_equal(known(l, n, 2, v)->member[0].state, ZVS_IVL_MS_CARRIER);
    /* an unchanged share is not sent again */
    uint64_t tx = zvs_ivl_domain_counters(l->d[2])->state_tx;
    give_members(l, 2, ZVS_IVL_MS_CARRIER);
    run_until(l, l->now + 10 * MS);
    assert_int_equal(zvs_ivl_domain_counters(l->d[2])->state_tx, tx);
    lab_free(l);
}

static void partition_leaves_lag_and_rejoins(void **state)
{
    struct lab *l = lab_new(3, false);
    struct zvs_ivl_system_view v[ZVS_CL_MAX_NODES];
    lab_up(l);
    zvs_cluster_mem_set_side(l->net, 3, 1, l->now);
    /* totem has not noticed yet: nothing changes before the token timeout */
    run_until(l, l->now + (TOKEN_MS - 10) * MS);
    for (unsigned n = 1; n <= 3; n++)
        assert_status(l, n, ZVS_IVL_ACTIVE);
    run_until(l, l->now + 20 * MS);
    assert_status(l, 3, ZVS_IVL_NO_QUORUM);
    assert_false(zvs_ivl_domain_aggregating(l->d[3]));
    for (unsigned n = 1; n <= 2; n++) {
        assert_status(l, n, ZVS_IVL_ACTIVE);
        assert_null(known(l, n, 3, v));
    }
    assert_int_equal(zvs_ivl_domain_systems(l->d[3], v, ZVS_CL_MAX_NODES), 1);
    /* the lone system's members change while cut off; the others learn it on rejoin */
    give_members(l, 3, ZVS_IVL_MS_CARRIER);
    zvs_cluster_mem_set_side(l->net, 3, 0, l->now);
    run_until(l, l->now + (TOKEN_MS + 10) * MS);
    for (unsigned n = 1; n <= 3; n++) {
        assert_status(l, n, ZVS_IVL_ACTIVE);
        assert_int_equal(zvs_ivl_domain_systems(l->d[n], v, ZVS_CL_MAX_NODES), 3);
    }
    assert_int_equal(known(l, 1, 3, v)->member[0].state, ZVS_IVL_MS_CARRIER);
    assert_non_null(known(l, 3, 1, v));
    lab_free(l);
}

static void killed_system_restarts(void **state)
{
    struct lab *l = lab_new(3, false);
    struct zvs_ivl_system_view v[ZVS_CL_MAX_NODES];
    lab_up(l);
    /* SIGKILL of vswitchd and its corosync: nobody says goodbye */
    zvs_cluster_mem_set_engine(l->net, 2, false, l->now);
    zvs_ivl_domain_free(l->d[2]);
    l->d[2] = NULL;
    run_until(l, l->now + (TOKEN_MS / 2) * MS);
    assert_non_null(known(l, 1, 2, v));
    run_until(l, l->now + (TOKEN_MS / 2 + 10) * MS);
    for (unsigned n = 1; n <= 3; n += 2) {
        assert_status(l, n, ZVS_IVL_ACTIVE);
        assert_null(known(l, n, 2, v));
    }
    /* restarted: its corosync, then its vswitchd */
    zvs_cluster_mem_set_engine(l->net, 2, true, l->now);
    struct zvs_ivl_domain_cfg c = cfg_of(2);
    start_system(l, 2, &c);
    run_until(l, l->now + 10 * MS);
    for (unsigned n = 1; n <= 3; n++) {
        assert_status(l, n, ZVS_IVL_ACTIVE);
        assert_int_equal(zvs_ivl_domain_systems(l->d[n], v, ZVS_CL_MAX_NODES), 3);
    }
    lab_free(l);
}

/* Corosync alone dies under a running vswitchd: that system leaves the LAG at once (the
 * others will hold it without it after the token timeout: keeping it would split the
 * aggregation), tries to join again once a second, and is back when the engine is. */
static void engine_lost_leaves_then_rejoins(void **state)
{
    struct lab *l = lab_new(3, false);
    struct zvs_ivl_system_view v[ZVS_CL_MAX_NODES];
    lab_up(l);
    zvs_cluster_mem_set_engine(l->net, 2, false, l->now);
    run_until(l, l->now + 10 * MS);
    assert_status(l, 2, ZVS_IVL_ENGINE_LOST);
    assert_false(zvs_ivl_domain_aggregating(l->d[2]));
    assert_string_equal(zvs_ivl_status_name(ZVS_IVL_ENGINE_LOST), "COROSYNC LOST");
    run_until(l, l->now + (TOKEN_MS + 10) * MS);
    assert_null(known(l, 1, 2, v));
    assert_status(l, 1, ZVS_IVL_ACTIVE);
    assert_status(l, 2, ZVS_IVL_ENGINE_LOST);
    zvs_cluster_mem_set_engine(l->net, 2, true, l->now);
    run_until(l, l->now + 1010 * MS);
    for (unsigned n = 1; n <= 3; n++) {
        assert_status(l, n, ZVS_IVL_ACTIVE);
        assert_int_equal(zvs_ivl_domain_systems(l->d[n], v, ZVS_CL_MAX_NODES), 3);
    }
    assert_int_equal(known(l, 1, 2, v)->nmembers, 2);
    lab_free(l);
}

static void clean_stop_is_seen_at_once(void **state)
{
    struct lab *l = lab_new(3, false);
    struct zvs_ivl_system_view v[ZVS_CL_MAX_NODES];
    lab_up(l);
    zvs_ivl_domain_free(l->d[3]);
    l->d[3] = NULL;
    run_until(l, l->now + 10 * MS);
    assert_null(known(l, 1, 3, v));
    assert_status(l, 1, ZVS_IVL_ACTIVE);    /* corosync on 3 still votes */
    lab_free(l);
}

static void two_systems_auto_tie_breaker(void **state)
{
    struct lab *l = lab_new(2, true);
    lab_up(l);
    assert_status(l, 1, ZVS_IVL_ACTIVE);
    assert_status(l, 2, ZVS_IVL_ACTIVE);
    /* the IVL cut: half the votes each; the lowest node id keeps the LAG */
    zvs_cluster_mem_set_side(l->net, 2, 1, l->now);
    run_until(l, l->now + (TOKEN_MS + 10) * MS);
    assert_status(l, 1, ZVS_IVL_ACTIVE);
    assert_status(l, 2, ZVS_IVL_NO_QUORUM);
    zvs_cluster_mem_set_side(l->net, 2, 0, l->now);
    run_until(l, l->now + (TOKEN_MS + 10) * MS);
    assert_status(l, 2, ZVS_IVL_ACTIVE);
    /* the lowest node id dies: the survivor holds half without it, so the LAG goes down
     * (an arbiter, corosync-qnetd, is what lets it survive: README.md) */
    zvs_cluster_mem_set_engine(l->net, 1, false, l->now);
    zvs_ivl_domain_free(l->d[1]);
    l->d[1] = NULL;
    run_until(l, l->now + (TOKEN_MS + 10) * MS);
    assert_status(l, 2, ZVS_IVL_NO_QUORUM);
    assert_false(zvs_ivl_domain_aggregating(l->d[2]));
    lab_free(l);
}

static void two_systems_without_tie_breaker(void **state)
{
    struct lab *l = lab_new(2, false);
    lab_up(l);
    zvs_cluster_mem_set_side(l->net, 2, 1, l->now);
    run_until(l, l->now + (TOKEN_MS + 10) * MS);
    assert_status(l, 1, ZVS_IVL_NO_QUORUM);
    assert_status(l, 2, ZVS_IVL_NO_QUORUM);
    lab_free(l);
}

static void quorate_rules(void **state)
{
    uint32_t a[] = { 1 }, b[] = { 2 }, ab[] = { 1, 2 }, bc[] = { 2, 3 };
    assert_false(zvs_cluster_quorate(2, a, 1, false, 1));
    assert_true(zvs_cluster_quorate(2, a, 1, true, 1));
    assert_false(zvs_cluster_quorate(2, b, 1, true, 1));
    assert_true(zvs_cluster_quorate(3, ab, 2, false, 1));
    assert_true(zvs_cluster_quorate(3, bc, 2, false, 1));
    assert_false(zvs_cluster_quorate(3, a, 1, true, 1));  /* a third is never half */
    assert_true(zvs_cluster_quorate(4, ab, 2, true, 1));
    assert_false(zvs_cluster_quorate(4, bc, 2, true, 1));
}

static void disagreeing_definition_refuses(void **state)
{
    struct lab *l = lab_new(3, false);
    for (unsigned n = 1; n <= 3; n++) {
        struct zvs_ivl_domain_cfg c = cfg_of(n);
        if (n == 2)
            c.def.key = 0x0200;
        start_system(l, n, &c);
    }
    run_until(l, l->now + 10 * MS);
    assert_status(l, 1, ZVS_IVL_ACTIVE);
    assert_status(l, 2, ZVS_IVL_REFUSED);
    assert_false(zvs_ivl_domain_aggregating(l->d[2]));
    assert_status(l, 3, ZVS_IVL_ACTIVE);
    /* reported on both sides */
    assert_int_equal(zvs_ivl_domain_disagreeing(l->d[1]), 1);
    assert_int_equal(zvs_ivl_domain_disagreeing(l->d[2]), 2);
    assert_int_equal(zvs_ivl_domain_disagreeing(l->d[3]), 1);
    struct zvs_ivl_system_view v[ZVS_CL_MAX_NODES];
    assert_int_equal(zvs_ivl_domain_systems(l->d[1], v, ZVS_CL_MAX_NODES), 3);
    assert_true(v[0].self && v[0].agrees);
    assert_false(v[1].agrees);
    assert_false(v[1].state.flags & ZVS_IVL_SF_AGGREGATING);
    assert_true(v[2].agrees);
    lab_free(l);
}

static void index_collision_refuses_higher_node(void **state)
{
    struct lab *l = lab_new(3, false);
    for (unsigned n = 1; n <= 3; n++) {
        struct zvs_ivl_domain_cfg c = cfg_of(n);
        if (n == 3)
            c.index = 2;
        struct zvs_cluster *cl = zvs_cluster_mem_new(l->net, n, NULL);
        l->d[n] = zvs_ivl_domain_new(&c, cl, on_changed, &l->changes[n]);
        assert_int_equal(zvs_ivl_domain_start(l->d[n]), 0);
    }
    run_until(l, l->now + 10 * MS);
    assert_status(l, 1, ZVS_IVL_ACTIVE);
    assert_status(l, 2, ZVS_IVL_ACTIVE);
    assert_status(l, 3, ZVS_IVL_REFUSED);
    lab_free(l);
}

static void no_engine_or_no_cluster_runs_alone(void **state)
{
    struct lab *l = lab_new(2, true);
    struct zvs_ivl_domain_cfg c = cfg_of(1);
    zvs_cluster_mem_set_engine(l->net, 1, false, 0);
    l->d[1] = zvs_ivl_domain_new(&c, zvs_cluster_mem_new(l->net, 1, NULL), NULL, NULL);
    assert_int_equal(zvs_ivl_domain_start(l->d[1]), -ENOTCONN);
    assert_status(l, 1, ZVS_IVL_ALONE_NO_ENGINE);
    assert_true(zvs_ivl_domain_aggregating(l->d[1]));
    assert_string_equal(zvs_ivl_status_name(zvs_ivl_domain_status(l->d[1])),
                        "ALONE (COROSYNC NOT RUNNING)");
    lab_free(l);

    struct zvs_ivl_domain *d = zvs_ivl_domain_new(&c, NULL, NULL, NULL);
    assert_int_equal(zvs_ivl_domain_start(d), -ENOENT);
    assert_int_equal(zvs_ivl_domain_status(d), ZVS_IVL_ALONE_UNCONFIGURED);
    assert_true(zvs_ivl_domain_aggregating(d));
    zvs_ivl_domain_free(d);
}

/* Corosync started after vswitchd: the system runs alone until then, tries the join once
 * a second, and joins the domain of the two that run (JOINING, then ACTIVE) with no
 * restart; its members reach the others. */
static void engine_started_later_joins(void **state)
{
    struct lab *l = lab_new(3, false);
    struct zvs_ivl_system_view v[ZVS_CL_MAX_NODES];
    zvs_cluster_mem_set_engine(l->net, 3, false, l->now);
    for (unsigned n = 1; n <= 2; n++) {
        struct zvs_ivl_domain_cfg c = cfg_of(n);
        start_system(l, n, &c);
        give_members(l, n, UP);
    }
    struct zvs_ivl_domain_cfg c3 = cfg_of(3);
    l->d[3] = zvs_ivl_domain_new(&c3, zvs_cluster_mem_new(l->net, 3, NULL), on_changed,
                                 &l->changes[3]);
    assert_int_equal(zvs_ivl_domain_start(l->d[3]), -ENOTCONN);
    give_members(l, 3, UP);
    run_until(l, l->now + 2500 * MS);   /* retries find no engine: still alone */
    assert_status(l, 3, ZVS_IVL_ALONE_NO_ENGINE);
    assert_true(zvs_ivl_domain_aggregating(l->d[3]));
    assert_null(known(l, 1, 3, v));
    assert_status(l, 1, ZVS_IVL_ACTIVE);
    unsigned before = l->changes[3];
    zvs_cluster_mem_set_engine(l->net, 3, true, l->now);
    run_until(l, l->now + 1010 * MS);
    assert_true(l->changes[3] > before);
    for (unsigned n = 1; n <= 3; n++) {
        assert_status(l, n, ZVS_IVL_ACTIVE);
        assert_int_equal(zvs_ivl_domain_systems(l->d[n], v, ZVS_CL_MAX_NODES), 3);
    }
    assert_int_equal(known(l, 1, 3, v)->nmembers, 2);
    lab_free(l);
}

/* A cluster that answers but fails its first `fails` joins with -EIO (a cpg_join or
 * votequorum_trackstart refused), then is the in-memory one. */
struct flaky {
    struct zvs_cluster  base;
    struct zvs_cluster *inner;
    unsigned            fails, joins;
};

static struct flaky *flaky_of(const struct zvs_cluster *c)
{
    return (struct flaky *)c;
}

static int flaky_join(struct zvs_cluster *c)
{
    struct flaky *f = flaky_of(c);
    f->joins++;
    if (f->fails) {
        f->fails--;
        return -EIO;
    }
    f->inner->cb = c->cb;               /* the domain set ours: the twin calls it */
    return zvs_cluster_join(f->inner);
}

static void flaky_leave(struct zvs_cluster *c) { zvs_cluster_leave(flaky_of(c)->inner); }
static int flaky_send(struct zvs_cluster *c, const void *m, size_t len)
{
    return zvs_cluster_send(flaky_of(c)->inner, m, len);
}
static uint32_t flaky_node(const struct zvs_cluster *c)
{
    return zvs_cluster_node_id(flaky_of(c)->inner);
}
static uint32_t flaky_token(const struct zvs_cluster *c)
{
    return flaky_of(c)->inner->ops->token_timeout_ms(flaky_of(c)->inner);
}
static void flaky_run(struct zvs_cluster *c, uint64_t now)
{
    zvs_cluster_run(flaky_of(c)->inner, now);
}
static void flaky_destroy(struct zvs_cluster *c)
{
    zvs_cluster_destroy(flaky_of(c)->inner);
    free(c);
}

static const struct zvs_cluster_ops flaky_ops = {
    .join = flaky_join, .leave = flaky_leave, .send = flaky_send, .node_id = flaky_node,
    .token_timeout_ms = flaky_token, .run = flaky_run, .destroy = flaky_destroy,
};

/* Corosync answers and the join fails (not "not running"): the system runs alone,
 * aggregating, with its own status, tries again once a second and joins when the join
 * goes through. */
static void join_failed_runs_alone_then_joins(void **state)
{
    struct lab *l = lab_new(3, false);
    struct zvs_ivl_system_view v[ZVS_CL_MAX_NODES];
    for (unsigned n = 1; n <= 2; n++) {
        struct zvs_ivl_domain_cfg c = cfg_of(n);
        start_system(l, n, &c);
        give_members(l, n, UP);
    }
    struct flaky *f = calloc(1, sizeof *f);
    assert_non_null(f);
    f->base.ops = &flaky_ops;
    f->inner = zvs_cluster_mem_new(l->net, 3, NULL);
    f->fails = 3;
    struct zvs_ivl_domain_cfg c3 = cfg_of(3);
    l->d[3] = zvs_ivl_domain_new(&c3, &f->base, on_changed, &l->changes[3]);
    assert_int_equal(zvs_ivl_domain_start(l->d[3]), -EIO);
    give_members(l, 3, UP);
    assert_status(l, 3, ZVS_IVL_ALONE_JOIN_FAILED);
    assert_true(zvs_ivl_domain_aggregating(l->d[3]));
    assert_string_equal(zvs_ivl_status_name(ZVS_IVL_ALONE_JOIN_FAILED),
                        "ALONE (COROSYNC JOIN FAILED)");
    run_until(l, l->now + 1500 * MS);   /* the retries at once and 1 s later fail too */
    assert_int_equal(f->joins, 3);
    assert_status(l, 3, ZVS_IVL_ALONE_JOIN_FAILED);
    run_until(l, l->now + 1010 * MS);   /* the fourth goes through */
    assert_int_equal(f->joins, 4);
    for (unsigned n = 1; n <= 3; n++) {
        assert_status(l, n, ZVS_IVL_ACTIVE);
        assert_int_equal(zvs_ivl_domain_systems(l->d[n], v, ZVS_CL_MAX_NODES), 3);
    }
    assert_int_equal(known(l, 1, 3, v)->nmembers, 2);
    lab_free(l);
}

static void bad_configuration_refused(void **state)
{
    struct zvs_ivl_domain_cfg c = cfg_of(1);
    c.index = 4;
    assert_null(zvs_ivl_domain_new(&c, NULL, NULL, NULL));
    c = cfg_of(1);
    strcpy(c.group, "lower");
    assert_null(zvs_ivl_domain_new(&c, NULL, NULL, NULL));
    /* the cluster handle given is destroyed, not leaked (valgrind) */
    struct lab *l = lab_new(2, true);
    assert_null(zvs_ivl_domain_new(&c, zvs_cluster_mem_new(l->net, 1, NULL), NULL, NULL));
    lab_free(l);
}

static void heartbeat_against_token(void **state)
{
    struct lab *l = lab_new(2, true);
    struct zvs_ivl_domain_cfg c = cfg_of(1);
    uint32_t token = 0;
    l->d[1] = zvs_ivl_domain_new(&c, zvs_cluster_mem_new(l->net, 1, NULL), NULL, NULL);
    assert_false(zvs_ivl_domain_heartbeat_mismatch(l->d[1], &token));
    assert_int_equal(token, TOKEN_MS);
    c = cfg_of(2);
    c.heartbeat_ms = 3000;
    l->d[2] = zvs_ivl_domain_new(&c, zvs_cluster_mem_new(l->net, 2, NULL), NULL, NULL);
    assert_true(zvs_ivl_domain_heartbeat_mismatch(l->d[2], &token));
    assert_int_equal(token, TOKEN_MS);
    lab_free(l);
}

static void malformed_state_counted_and_dropped(void **state)
{
    struct lab *l = lab_new(2, true);
    struct zvs_ivl_domain_cfg c = cfg_of(1);
    start_system(l, 1, &c);
    struct zvs_cluster *raw = zvs_cluster_mem_new(l->net, 2, NULL);
    assert_int_equal(zvs_cluster_join(raw), 0);
    run_until(l, l->now + 10 * MS);
    uint8_t junk[60] = { 'Z', 'I', 9 };
    assert_int_equal(zvs_cluster_send(raw, junk, 3), 0);
    assert_int_equal(zvs_cluster_send(raw, junk, sizeof junk), 0);
    junk[2] = 1;
    assert_int_equal(zvs_cluster_send(raw, junk, sizeof junk), 0);
    run_until(l, l->now + 10 * MS);
    const struct zvs_ivl_counters *k = zvs_ivl_domain_counters(l->d[1]);
    assert_int_equal(k->state_bad[ZVS_IVL_SE_SHORT], 1);
    assert_int_equal(k->state_bad[ZVS_IVL_SE_VERSION], 1);
    assert_int_equal(k->state_bad[ZVS_IVL_SE_TYPE], 1);
    assert_int_equal(k->state_rx, 0);
    struct zvs_ivl_system_view v[ZVS_CL_MAX_NODES];
    assert_int_equal(zvs_ivl_domain_systems(l->d[1], v, ZVS_CL_MAX_NODES), 1);
    zvs_cluster_destroy(raw);
    lab_free(l);
}

/* A cluster that refuses the next `refuse` sends with -EAGAIN (corosync's CS_ERR_TRY_AGAIN
 * while a new view syncs), then passes everything to the in-memory one it wraps. */
struct busy_cluster {
    struct zvs_cluster  base;
    struct zvs_cluster *in;
    unsigned            refuse;
};

static void busy_fwd(void *arg, const uint32_t *m, unsigned n, const uint32_t *j, unsigned nj,
                     const uint32_t *lf, unsigned nl)
{
    struct busy_cluster *b = arg;
    b->base.cb.confchg(b->base.cb.arg, m, n, j, nj, lf, nl);
}
static void busy_deliver(void *arg, uint32_t from, const void *msg, size_t len)
{
    struct busy_cluster *b = arg;
    b->base.cb.deliver(b->base.cb.arg, from, msg, len);
}
static void busy_quorum(void *arg, bool q, const uint32_t *nodes, unsigned n)
{
    struct busy_cluster *b = arg;
    b->base.cb.quorum(b->base.cb.arg, q, nodes, n);
}
static void busy_lost(void *arg)
{
    struct busy_cluster *b = arg;
    b->base.cb.lost(b->base.cb.arg);
}
static struct busy_cluster *busy(struct zvs_cluster *c) { return (struct busy_cluster *)c; }
static int busy_join(struct zvs_cluster *c) { return zvs_cluster_join(busy(c)->in); }
static void busy_leave(struct zvs_cluster *c) { zvs_cluster_leave(busy(c)->in); }
static int busy_send(struct zvs_cluster *c, const void *m, size_t len)
{
    struct busy_cluster *b = busy(c);
    if (b->refuse) {
        b->refuse--;
        return -EAGAIN;
    }
    return zvs_cluster_send(b->in, m, len);
}
static uint32_t busy_node(const struct zvs_cluster *c)
{
    return zvs_cluster_node_id(((const struct busy_cluster *)c)->in);
}
static uint32_t busy_token(const struct zvs_cluster *c)
{
    return zvs_cluster_token_ms(((const struct busy_cluster *)c)->in);
}
static void busy_run(struct zvs_cluster *c, uint64_t now) { zvs_cluster_run(busy(c)->in, now); }
static void busy_destroy(struct zvs_cluster *c)
{
    zvs_cluster_destroy(busy(c)->in);
    free(c);
}
static const struct zvs_cluster_ops busy_ops = {
    .join = busy_join, .leave = busy_leave, .send = busy_send, .node_id = busy_node,
    .token_timeout_ms = busy_token, .run = busy_run, .destroy = busy_destroy,
};

static void refused_state_is_sent_again(void **state)
{
    struct lab *l = lab_new(NSYS, false);
    for (unsigned n = 1; n <= 2; n++) {
        struct zvs_ivl_domain_cfg c = cfg_of(n);
        start_system(l, n, &c);
    }
    /* system 3's engine is busy for its first two sends: the newcomer's state and the
     * first one the view's change brings */
    struct busy_cluster *b = calloc(1, sizeof *b);
    assert_non_null(b);
    b->base.ops = &busy_ops;
    b->refuse = 2;
    struct zvs_cluster_cb inner = { .confchg = busy_fwd, .deliver = busy_deliver,
                                    .quorum = busy_quorum, .lost = busy_lost, .arg = b };
    b->in = zvs_cluster_mem_new(l->net, 3, &inner);
    assert_non_null(b->in);
    struct zvs_ivl_domain_cfg c3 = cfg_of(3);
    l->d[3] = zvs_ivl_domain_new(&c3, &b->base, on_changed, &l->changes[3]);
    assert_non_null(l->d[3]);
    assert_int_equal(zvs_ivl_domain_start(l->d[3]), 0);
    give_members(l, 3, UP);
    run_until(l, 500 * MS);
    assert_int_equal(b->refuse, 0);
    assert_true(zvs_ivl_domain_counters(l->d[3])->state_retry >= 1);
    for (unsigned n = 1; n <= 2; n++) {
        struct zvs_ivl_system_view v[NSYS];
        assert_int_equal(zvs_ivl_domain_systems(l->d[n], v, NSYS), 3);   /* 3 told its state */
        assert_int_equal(v[2].state.nmembers, 2);
    }
    lab_free(l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(converge_and_replicate),
        cmocka_unit_test(partition_leaves_lag_and_rejoins),
        cmocka_unit_test(killed_system_restarts),
        cmocka_unit_test(engine_lost_leaves_then_rejoins),
        cmocka_unit_test(clean_stop_is_seen_at_once),
        cmocka_unit_test(two_systems_auto_tie_breaker),
        cmocka_unit_test(two_systems_without_tie_breaker),
        cmocka_unit_test(quorate_rules),
        cmocka_unit_test(disagreeing_definition_refuses),
        cmocka_unit_test(index_collision_refuses_higher_node),
        cmocka_unit_test(no_engine_or_no_cluster_runs_alone),
        cmocka_unit_test(engine_started_later_joins),
        cmocka_unit_test(join_failed_runs_alone_then_joins),
        cmocka_unit_test(bad_configuration_refused),
        cmocka_unit_test(heartbeat_against_token),
        cmocka_unit_test(malformed_state_counted_and_dropped),
        cmocka_unit_test(refused_state_is_sent_again),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
