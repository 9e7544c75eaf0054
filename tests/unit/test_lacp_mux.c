/* Tests for the independent-control Mux (lacp/mux.c; IEEE 802.1AX-2008 6.4.15, figure
 * 6-22) on virtual time, and the callback order of both controls. Same harness as
 * test_lacp_port.c (two engines back to back, or one engine and a scripted partner), plus
 * a log of every attach/collecting/distributing callback with its time and the Mux state
 * the getter showed during the call. Exact states at exact nanoseconds. */
#include "lacp/lacp_port.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#define S(x)  ((uint64_t)(x) * ZVS_LACP_NS_PER_SEC)
#define MS(x) ((uint64_t)(x) * 1000000ull)
#define QLEN  256
#define TXLOG 1024

struct sim;

#define LOGN 64

/* One attach/collecting/distributing callback as the engine made it. */
struct ev {
    char kind;                          /* 'A' attach, 'C' collecting, 'D' distributing */
    bool on;                            /* enable or disable */
    uint64_t at;                        /* sim time of the call */
    enum zvs_lacp_mux_state mux;        /* Mux state the getter showed during the call */
};


struct end {
    struct zvs_lacp_port port;          /* the engine */
    struct sim *sim;                    /* back pointer */
    int idx;                            /* 0 or 1 */
    bool live;                          /* engine initialised */
    uint64_t tx_at[TXLOG];              /* send times */
    unsigned ntx;                       /* sends */
    struct zvs_lacpdu last_tx;          /* last PDU sent */
    bool attached, collecting, distributing;
    unsigned rx_transitions;            /* Receive machine transitions seen by the hook */
    uint64_t queued_at[TXLOG];          /* times the engine put a PDU in its delay queue */
    unsigned nqueued;                   /* entries in queued_at */
    struct ev log[LOGN];                /* attach/collecting/distributing callbacks */
    unsigned nlog;                      /* entries in log */
};

struct sim {
    struct end e[2];
    struct { uint64_t at; struct zvs_lacpdu pdu; } q[2][QLEN];  /* q[i]: to e[i] */
    unsigned qh[2], qt[2];
    uint64_t now;
    uint64_t delay;                     /* wire delay */
};

static void cb_send(void *arg, const struct zvs_lacpdu *pdu)
{
    struct end *e = arg;
    struct sim *s = e->sim;
    int to = 1 - e->idx;

    assert_true(e->ntx < TXLOG);
    e->tx_at[e->ntx++] = s->now;
    e->last_tx = *pdu;
    if (s->e[to].live) {
        assert_true(s->qt[to] - s->qh[to] < QLEN);
        s->q[to][s->qt[to] % QLEN].at = s->now + s->delay;
        s->q[to][s->qt[to] % QLEN].pdu = *pdu;
        s->qt[to]++;
    }
}

static void log_ev(struct end *e, char kind, bool on)
{
    assert_true(e->nlog < LOGN);
    e->log[e->nlog].kind = kind;
    e->log[e->nlog].on = on;
    e->log[e->nlog].at = e->sim->now;
    e->log[e->nlog].mux = zvs_lacp_port_mux_state(&e->port);
    e->nlog++;
}

static void cb_attach(void *arg, bool on)
{
    struct end *e = arg;

    assert_true(e->attached != on);             /* edge-triggered */
    e->attached = on;
    log_ev(e, 'A', on);
}

static void cb_coll(void *arg, bool on)
{
    struct end *e = arg;

    assert_true(e->collecting != on);
    assert_true(on ? e->attached : !e->distributing);   /* order */
    e->collecting = on;
    log_ev(e, 'C', on);
}

static void cb_dist(void *arg, bool on)
{
    struct end *e = arg;

    assert_true(e->distributing != on);
    if (on)
        assert_true(e->collecting);
    e->distributing = on;
    log_ev(e, 'D', on);
}

static void cb_transition(void *arg, enum zvs_lacp_machine m, int from, int to, uint64_t now)
{
    struct end *e = arg;

    assert_int_not_equal(from, to);
    assert_string_not_equal(zvs_lacp_state_name(m, to), "?");
    if (m == ZVS_LACP_MACHINE_RX)
        e->rx_transitions++;
}

static const struct zvs_lacp_port_cb cbs = {
    .send = cb_send, .attach = cb_attach, .collecting = cb_coll, .distributing = cb_dist,
    .transition = cb_transition,
};

static struct zvs_lacp_port_cfg cfg_for(int idx, bool active, bool fast)
{
    struct zvs_lacp_port_cfg c;

    memset(&c, 0, sizeof(c));
    c.active = active;
    c.fast = fast;
    c.system_priority = 0x8000;
    c.system[0] = 0x02;
    c.system[5] = (uint8_t)(0x10 + idx);
    c.key = (uint16_t)(100 + idx);
    c.port_priority = 0x8000;
    c.port = (uint16_t)(1 + idx);
    c.speed_mbps = 10000;
    c.full_duplex = true;
    c.enabled = true;
    return c;
}

static void end_init(struct sim *s, int idx, const struct zvs_lacp_port_cfg *c)
{
    struct end *e = &s->e[idx];

    e->sim = s;
    e->idx = idx;
    e->live = true;
    assert_int_equal(zvs_lacp_port_init(&e->port, c, &cbs, e, s->now), 0);
}

static struct sim *sim_new(void)
{
    struct sim *s = test_calloc(1, sizeof(*s));

    assert_non_null(s);
    s->e[0].sim = s;
    s->e[1].sim = s;
    s->e[1].idx = 1;
    return s;
}

/* Log the time of every PDU the engine put in its delay queue since the last call. */
static void note_queued(struct end *e, uint64_t now)
{
    while (e->nqueued < zvs_lacp_port_stats(&e->port)->tx_delayed) {
        assert_true(e->nqueued < TXLOG);
        e->queued_at[e->nqueued++] = now;
    }
}

/* Advance virtual time to t_end, delivering PDUs and running each engine at its own
 * next_wakeup (never more often), so wrong wakeups show up as wrong timings. */
static void sim_run_until(struct sim *s, uint64_t t_end)
{
    unsigned guard = 0;

    for (;;) {
        uint64_t t = UINT64_MAX;
        int i;

        assert_true(++guard < 100000);
        for (i = 0; i < 2; i++) {
            if (!s->e[i].live)
                continue;
            if (zvs_lacp_port_next_wakeup(&s->e[i].port) < t)
                t = zvs_lacp_port_next_wakeup(&s->e[i].port);
            if (s->qh[i] != s->qt[i] && s->q[i][s->qh[i] % QLEN].at < t)
                t = s->q[i][s->qh[i] % QLEN].at;
        }
        if (t > t_end)
            break;
        if (t > s->now)
            s->now = t;
        for (i = 0; i < 2; i++) {
            while (s->qh[i] != s->qt[i] && s->q[i][s->qh[i] % QLEN].at <= s->now) {
                struct zvs_lacpdu pdu = s->q[i][s->qh[i] % QLEN].pdu;

                s->qh[i]++;
                zvs_lacp_port_rx(&s->e[i].port, &pdu, s->now);
                note_queued(&s->e[i], s->now);
            }
        }
        for (i = 0; i < 2; i++) {
            if (s->e[i].live && zvs_lacp_port_next_wakeup(&s->e[i].port) <= s->now) {
                zvs_lacp_port_run(&s->e[i].port, s->now);
                note_queued(&s->e[i], s->now);
            }
        }
    }
    s->now = t_end;
}

/* A scripted partner's PDU to e[0]: actor = partner system 0x03..id, key pkey. */
static struct zvs_lacpdu partner_pdu(uint8_t id, uint16_t pkey, uint8_t state)
{
    struct zvs_lacpdu pdu;

    memset(&pdu, 0, sizeof(pdu));
    pdu.version = ZVS_LACP_VERSION;
    pdu.actor.system_priority = 0x7000;
    pdu.actor.system[0] = 0x03;
    pdu.actor.system[5] = id;
    pdu.actor.key = pkey;
    pdu.actor.port_priority = 1;
    pdu.actor.port = 7;
    pdu.actor.state = state;
    return pdu;
}

static void deliver(struct sim *s, int to, const struct zvs_lacpdu *pdu)
{
    zvs_lacp_port_rx(&s->e[to].port, pdu, s->now);
}

/* ---- helpers --------------------------------------------------------------------------- */

/* A scripted partner's PDU that sees e[0] correctly (matched), with the given state. */
static struct zvs_lacpdu pdu_seeing(const struct sim *s, uint8_t state)
{
    struct zvs_lacpdu pdu = partner_pdu(1, 5, state);

    pdu.partner = *zvs_lacp_port_actor(&s->e[0].port);
    return pdu;
}

static void check_ev(const struct end *e, unsigned i, char kind, bool on, uint64_t at,
                     enum zvs_lacp_mux_state mux)
{
    assert_true(i < e->nlog);
    assert_int_equal(e->log[i].kind, kind);
    assert_int_equal(e->log[i].on, on);
    assert_int_equal(e->log[i].at, at);
    assert_int_equal(e->log[i].mux, mux);
}

static void check_mux(const struct end *e, enum zvs_lacp_mux_state mux, bool col, bool dist)
{
    assert_int_equal(zvs_lacp_port_mux_state(&e->port), mux);
    assert_int_equal(zvs_lacp_port_is_collecting(&e->port), col);
    assert_int_equal(zvs_lacp_port_is_distributing(&e->port), dist);
    assert_int_equal(e->collecting, col);
    assert_int_equal(e->distributing, dist);
    assert_int_equal(!!(zvs_lacp_port_actor(&e->port)->state & ZVS_LACP_STATE_COLLECTING), col);
    assert_int_equal(!!(zvs_lacp_port_actor(&e->port)->state & ZVS_LACP_STATE_DISTRIBUTING),
                     dist);
}

/* Both ends get carrier at t=0 (so each hears the other's first PDU), wire delay d. */
static struct sim *pair_with_delay(bool fast, uint64_t d, bool coupled0, bool coupled1)
{
    struct sim *s = sim_new();
    struct zvs_lacp_port_cfg c0 = cfg_for(0, true, fast), c1 = cfg_for(1, true, fast);

    c0.enabled = c1.enabled = false;
    c0.coupled_mux = coupled0;
    c1.coupled_mux = coupled1;
    s->delay = d;
    end_init(s, 0, &c0);
    end_init(s, 1, &c1);
    zvs_lacp_port_set_enabled(&s->e[0].port, true, 0);
    zvs_lacp_port_set_enabled(&s->e[1].port, true, 0);
    return s;
}

/* ---- tests ----------------------------------------------------------------------------- */

/* Two independent engines, wire delay d: each hears the other's first PDU at d and waits
 * 2 s (ATTACHED at 2 s + d, announcing SYNC), hears SYNC at 2 s + 2d (COLLECTING, announcing
 * COLLECTING), hears COLLECTING at 2 s + 3d: DISTRIBUTING. So the link forms 2 s after the
 * first PDU arrives plus one PDU exchange (2d). */
static void converge(bool fast)
{
    const uint64_t d = MS(10);
    struct sim *s = pair_with_delay(fast, d, false, false);
    int i;

    sim_run_until(s, S(2) + d - 1);
    for (i = 0; i < 2; i++) {
        check_mux(&s->e[i], ZVS_LACP_MUX_WAITING, false, false);
        assert_int_equal(s->e[i].nlog, 0);
    }
    sim_run_until(s, S(2) + d);
    for (i = 0; i < 2; i++)
        check_mux(&s->e[i], ZVS_LACP_MUX_ATTACHED, false, false);
    sim_run_until(s, S(2) + 2 * d - 1);
    for (i = 0; i < 2; i++)
        check_mux(&s->e[i], ZVS_LACP_MUX_ATTACHED, false, false);
    sim_run_until(s, S(2) + 2 * d);
    for (i = 0; i < 2; i++)
        check_mux(&s->e[i], ZVS_LACP_MUX_COLLECTING, true, false);
    sim_run_until(s, S(2) + 3 * d - 1);
    for (i = 0; i < 2; i++)
        check_mux(&s->e[i], ZVS_LACP_MUX_COLLECTING, true, false);
    sim_run_until(s, S(2) + 3 * d);
    for (i = 0; i < 2; i++) {
        struct end *e = &s->e[i];

        check_mux(e, ZVS_LACP_MUX_DISTRIBUTING, true, true);
        assert_int_equal(e->nlog, 3);
        check_ev(e, 0, 'A', true, S(2) + d, ZVS_LACP_MUX_ATTACHED);
        check_ev(e, 1, 'C', true, S(2) + 2 * d, ZVS_LACP_MUX_COLLECTING);
        check_ev(e, 2, 'D', true, S(2) + 3 * d, ZVS_LACP_MUX_DISTRIBUTING);
    }
    sim_run_until(s, S(200));
    for (i = 0; i < 2; i++) {
        struct end *e = &s->e[i];

        check_mux(e, ZVS_LACP_MUX_DISTRIBUTING, true, true);
        assert_int_equal(e->nlog, 3);
        assert_int_equal(zvs_lacp_port_actor(&e->port)->state, fast ? 0x3F : 0x3D);
        assert_int_equal(zvs_lacp_port_partner(&e->port)->state, fast ? 0x3F : 0x3D);
        assert_int_equal(zvs_lacp_port_stats(&e->port)->mux_flaps, 0);
        assert_int_equal(zvs_lacp_port_stats(&e->port)->expired, 1);     /* the initial one */
        assert_int_equal(zvs_lacp_port_actor_churn(&e->port), ZVS_LACP_NO_CHURN);
        assert_int_equal(zvs_lacp_port_partner_churn(&e->port), ZVS_LACP_NO_CHURN);
    }
    test_free(s);
}

static void test_converge_fast(void **st) { (void)st; converge(true); }
static void test_converge_slow(void **st) { (void)st; converge(false); }

/* Scripted partner: SYNC but not COLLECTING keeps us in COLLECTING (never distributing);
 * partner COLLECTING -> DISTRIBUTING; partner stops collecting -> COLLECTING (a flap);
 * partner drops SYNC -> ATTACHED, Disable_Distributing then Disable_Collecting. */
static void test_partner_collecting(void **st)
{
    struct sim *s = sim_new();
    struct zvs_lacp_port_cfg c = cfg_for(0, true, true);
    struct end *e = &s->e[0];
    const struct zvs_lacp_port *p = &e->port;
    struct zvs_lacpdu pdu;
    unsigned t;

    (void)st;
    end_init(s, 0, &c);
    sim_run_until(s, S(1));
    pdu = pdu_seeing(s, 0x0F);                          /* ACT,STO,AGG,SYNC */
    deliver(s, 0, &pdu);
    check_mux(e, ZVS_LACP_MUX_WAITING, false, false);
    /* The 2 s wait holds back ATTACHED and COLLECTING alike. */
    sim_run_until(s, S(2));
    pdu = pdu_seeing(s, 0x0F);
    deliver(s, 0, &pdu);
    sim_run_until(s, S(3) - 1);
    check_mux(e, ZVS_LACP_MUX_WAITING, false, false);
    assert_int_equal(e->nlog, 0);
    sim_run_until(s, S(3));
    check_mux(e, ZVS_LACP_MUX_COLLECTING, true, false);
    assert_int_equal(e->nlog, 2);
    check_ev(e, 0, 'A', true, S(3), ZVS_LACP_MUX_ATTACHED);
    check_ev(e, 1, 'C', true, S(3), ZVS_LACP_MUX_COLLECTING);
    assert_int_equal(e->tx_at[e->ntx - 1], S(3));
    assert_int_equal(e->last_tx.actor.state, 0x1F);     /* ACT,STO,AGG,SYNC,COL */
    /* 100 s of a partner that is in sync but not collecting: we never distribute. */
    for (t = 3; t <= 100; t++) {
        sim_run_until(s, S(t));
        pdu = pdu_seeing(s, 0x0F);
        deliver(s, 0, &pdu);
        check_mux(e, ZVS_LACP_MUX_COLLECTING, true, false);
    }
    assert_int_equal(e->nlog, 2);
    assert_int_equal(zvs_lacp_port_actor(p)->state, 0x1F);
    /* Partner collecting: DISTRIBUTING at once, announced at once. */
    sim_run_until(s, S(101));
    pdu = pdu_seeing(s, 0x1F);
    deliver(s, 0, &pdu);
    check_mux(e, ZVS_LACP_MUX_DISTRIBUTING, true, true);
    check_ev(e, 2, 'D', true, S(101), ZVS_LACP_MUX_DISTRIBUTING);
    assert_int_equal(zvs_lacp_port_actor(p)->state, 0x3F);
    assert_int_equal(e->tx_at[e->ntx - 1], S(101));
    assert_int_equal(e->last_tx.actor.state, 0x3F);
    /* Partner stops collecting but stays in sync: back to COLLECTING, one flap. */
    sim_run_until(s, S(102));
    pdu = pdu_seeing(s, 0x0F);
    deliver(s, 0, &pdu);
    check_mux(e, ZVS_LACP_MUX_COLLECTING, true, false);
    check_ev(e, 3, 'D', false, S(102), ZVS_LACP_MUX_COLLECTING);
    assert_int_equal(zvs_lacp_port_stats(p)->mux_flaps, 1);
    sim_run_until(s, S(103));
    pdu = pdu_seeing(s, 0x1F);
    deliver(s, 0, &pdu);
    check_mux(e, ZVS_LACP_MUX_DISTRIBUTING, true, true);
    check_ev(e, 4, 'D', true, S(103), ZVS_LACP_MUX_DISTRIBUTING);
    /* Partner drops SYNC: DISTRIBUTING -> COLLECTING -> ATTACHED in one call, the disables
     * in that order, the link still attached. */
    sim_run_until(s, S(104));
    pdu = pdu_seeing(s, 0x17);                          /* ACT,STO,AGG,COL: no SYNC */
    deliver(s, 0, &pdu);
    check_mux(e, ZVS_LACP_MUX_ATTACHED, false, false);
    assert_int_equal(e->nlog, 7);
    check_ev(e, 5, 'D', false, S(104), ZVS_LACP_MUX_COLLECTING);
    check_ev(e, 6, 'C', false, S(104), ZVS_LACP_MUX_ATTACHED);
    assert_true(e->attached);
    assert_int_equal(zvs_lacp_port_actor(p)->state, 0x0F);    /* SYNC kept: still attached */
    assert_int_equal(zvs_lacp_port_stats(p)->mux_flaps, 2);
    assert_int_equal(zvs_lacp_port_selected(p), ZVS_LACP_SELECTED);
    /* SYNC back: COLLECTING again (partner shows COLLECTING too: DISTRIBUTING). */
    sim_run_until(s, S(105));
    pdu = pdu_seeing(s, 0x1F);
    deliver(s, 0, &pdu);
    check_mux(e, ZVS_LACP_MUX_DISTRIBUTING, true, true);
    check_ev(e, 7, 'C', true, S(105), ZVS_LACP_MUX_COLLECTING);
    check_ev(e, 8, 'D', true, S(105), ZVS_LACP_MUX_DISTRIBUTING);
    test_free(s);
}

/* Carrier loss while distributing: distributing(false), collecting(false), attach(false),
 * in that order at that instant, in both controls; the getters already show the state the
 * Mux is passing through. */
static void carrier_loss(bool coupled)
{
    const uint64_t d = MS(10);
    struct sim *s = pair_with_delay(true, d, coupled, coupled);
    struct end *e = &s->e[0];
    enum zvs_lacp_mux_state formed = coupled ? ZVS_LACP_MUX_COLLECTING_DISTRIBUTING
                                             : ZVS_LACP_MUX_DISTRIBUTING;
    enum zvs_lacp_mux_state coll = coupled ? ZVS_LACP_MUX_ATTACHED : ZVS_LACP_MUX_COLLECTING;
    unsigned n;

    sim_run_until(s, S(10));
    check_mux(e, formed, true, true);
    n = e->nlog;
    assert_int_equal(n, 3);
    if (coupled) {
        /* Coupled: both enables at ATTACHED -> COLLECTING_DISTRIBUTING, at 2 s + 2d. */
        check_ev(e, 1, 'C', true, S(2) + 2 * d, formed);
        check_ev(e, 2, 'D', true, S(2) + 2 * d, formed);
    }
    s->now = S(10) + MS(1);
    zvs_lacp_port_set_enabled(&e->port, false, s->now);
    check_mux(e, ZVS_LACP_MUX_DETACHED, false, false);
    assert_int_equal(e->nlog, n + 3);
    check_ev(e, n, 'D', false, S(10) + MS(1), coll);
    check_ev(e, n + 1, 'C', false, S(10) + MS(1), ZVS_LACP_MUX_ATTACHED);
    check_ev(e, n + 2, 'A', false, S(10) + MS(1), ZVS_LACP_MUX_DETACHED);
    assert_int_equal(zvs_lacp_port_stats(&e->port)->mux_flaps, 1);
    assert_int_equal(zvs_lacp_port_actor(&e->port)->state & 0x38, 0);  /* no SYNC,COL,DIST */
    test_free(s);
}

static void test_carrier_loss_independent(void **st) { (void)st; carrier_loss(false); }
static void test_carrier_loss_coupled(void **st) { (void)st; carrier_loss(true); }

/* Independent (e0) against coupled (e1): the coupled end collects and distributes on our
 * SYNC at 2 s + 2d and announces both; we collect at 2 s + 2d and distribute on its
 * COLLECTING at 2 s + 3d. Both end with 0x3F. */
static void test_mixed_controls(void **st)
{
    const uint64_t d = MS(10);
    struct sim *s = pair_with_delay(true, d, false, true);

    (void)st;
    sim_run_until(s, S(2) + 2 * d);
    check_mux(&s->e[0], ZVS_LACP_MUX_COLLECTING, true, false);
    check_mux(&s->e[1], ZVS_LACP_MUX_COLLECTING_DISTRIBUTING, true, true);
    sim_run_until(s, S(2) + 3 * d - 1);
    check_mux(&s->e[0], ZVS_LACP_MUX_COLLECTING, true, false);
    sim_run_until(s, S(2) + 3 * d);
    check_mux(&s->e[0], ZVS_LACP_MUX_DISTRIBUTING, true, true);
    sim_run_until(s, S(100));
    check_mux(&s->e[0], ZVS_LACP_MUX_DISTRIBUTING, true, true);
    check_mux(&s->e[1], ZVS_LACP_MUX_COLLECTING_DISTRIBUTING, true, true);
    assert_int_equal(zvs_lacp_port_actor(&s->e[0].port)->state, 0x3F);
    assert_int_equal(zvs_lacp_port_actor(&s->e[1].port)->state, 0x3F);
    assert_int_equal(s->e[0].nlog, 3);
    assert_int_equal(s->e[1].nlog, 3);
    test_free(s);
}

/* The partner changes its key while we distribute: UNSELECTED, so DISTRIBUTING ->
 * COLLECTING -> ATTACHED -> DETACHED in one call (three disables, in order), then the port
 * is selected again with the new LAG ID and waits 2 s once more. */
static void test_unselected_while_distributing(void **st)
{
    struct sim *s = sim_new();
    struct zvs_lacp_port_cfg c = cfg_for(0, true, true);
    struct end *e = &s->e[0];
    struct zvs_lacpdu pdu;
    unsigned t;

    (void)st;
    end_init(s, 0, &c);
    for (t = 1; t <= 5; t++) {
        sim_run_until(s, S(t));
        pdu = pdu_seeing(s, 0x1F);
        deliver(s, 0, &pdu);
    }
    check_mux(e, ZVS_LACP_MUX_DISTRIBUTING, true, true);
    assert_int_equal(e->nlog, 3);
    sim_run_until(s, S(6));
    pdu = pdu_seeing(s, 0x1F);
    pdu.actor.key = 6;
    deliver(s, 0, &pdu);
    assert_int_equal(zvs_lacp_port_selected(&e->port), ZVS_LACP_SELECTED);
    check_mux(e, ZVS_LACP_MUX_WAITING, false, false);
    assert_int_equal(e->nlog, 6);
    check_ev(e, 3, 'D', false, S(6), ZVS_LACP_MUX_COLLECTING);
    check_ev(e, 4, 'C', false, S(6), ZVS_LACP_MUX_ATTACHED);
    check_ev(e, 5, 'A', false, S(6), ZVS_LACP_MUX_DETACHED);
    assert_int_equal(zvs_lacp_port_next_wakeup(&e->port), S(7));   /* fast periodic first */
    sim_run_until(s, S(7));
    pdu = pdu_seeing(s, 0x1F);
    pdu.actor.key = 6;
    deliver(s, 0, &pdu);
    sim_run_until(s, S(8) - 1);
    check_mux(e, ZVS_LACP_MUX_WAITING, false, false);
    sim_run_until(s, S(8));
    check_mux(e, ZVS_LACP_MUX_DISTRIBUTING, true, true);
    assert_int_equal(zvs_lacp_port_partner(&e->port)->key, 6);
    test_free(s);
}

static void test_names(void **st)
{
    (void)st;
    assert_string_equal(zvs_lacp_state_name(ZVS_LACP_MACHINE_MUX, ZVS_LACP_MUX_COLLECTING),
                        "COLLECTING");
    assert_string_equal(zvs_lacp_state_name(ZVS_LACP_MACHINE_MUX, ZVS_LACP_MUX_DISTRIBUTING),
                        "DISTRIBUTING");
    assert_string_equal(zvs_lacp_state_name(ZVS_LACP_MACHINE_MUX,
                                            ZVS_LACP_MUX_COLLECTING_DISTRIBUTING),
                        "COLLECTING_DISTRIBUTING");
    assert_string_equal(zvs_lacp_state_name(ZVS_LACP_MACHINE_MUX, 6), "?");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_converge_fast),
        cmocka_unit_test(test_converge_slow),
        cmocka_unit_test(test_partner_collecting),
        cmocka_unit_test(test_carrier_loss_independent),
        cmocka_unit_test(test_carrier_loss_coupled),
        cmocka_unit_test(test_mixed_controls),
        cmocka_unit_test(test_unselected_while_distributing),
        cmocka_unit_test(test_names),
    };

    return cmocka_run_group_tests_name("lacp_mux", tests, NULL, NULL);
}
