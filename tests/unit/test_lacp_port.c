/* Tests for the LACP port engine (lacp/lacp_port.c and the machine files) on virtual time:
 * two engines back to back through their send callbacks (PDUs delivered at a time the test
 * chooses), or one engine and a scripted partner (the simulator in lacp_sim.c). Exact
 * states at exact nanoseconds.
 *
 * The whole group runs twice: once with the coupled Mux (cfg.coupled_mux) and once with
 * the independent Mux (the default). Where the two differ, the test says which it expects
 * (formed_mux(), g_coupled). Scenarios only the independent Mux has are in test_lacp_mux.c. */
#include "lacp_sim.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#define S(x)  ((uint64_t)(x) * ZVS_LACP_NS_PER_SEC)
#define MS(x) ((uint64_t)(x) * 1000000ull)

static bool g_coupled;                  /* this run of the group: coupled Mux */

/* The Mux state of a formed link in this run. */
static enum zvs_lacp_mux_state formed_mux(void)
{
    return g_coupled ? ZVS_LACP_MUX_COLLECTING_DISTRIBUTING : ZVS_LACP_MUX_DISTRIBUTING;
}

/* The simulator's settings, with this run's Mux control. */
static struct zvs_lacp_port_cfg cfg_for(int idx, bool active, bool fast)
{
    struct zvs_lacp_port_cfg c = lacp_sim_cfg(idx, active, fast);

    c.coupled_mux = g_coupled;
    return c;
}

/* ---- tests ----------------------------------------------------------------------------- */

static void check_formed(struct lacp_sim *s, uint8_t state)
{
    int i;

    for (i = 0; i < 2; i++) {
        struct lacp_sim_end *e = &s->e[i];

        assert_int_equal(zvs_lacp_port_rx_state(&e->port), ZVS_LACP_RX_CURRENT);
        assert_int_equal(zvs_lacp_port_selected(&e->port), ZVS_LACP_SELECTED);
        assert_int_equal(zvs_lacp_port_mux_state(&e->port), formed_mux());
        assert_true(zvs_lacp_port_is_collecting(&e->port));
        assert_true(zvs_lacp_port_is_distributing(&e->port));
        assert_int_equal(zvs_lacp_port_actor(&e->port)->state, state);
        assert_int_equal(zvs_lacp_port_partner(&e->port)->state, state);
        assert_int_equal(zvs_lacp_port_partner(&e->port)->key, 100 + (1 - i));
        assert_true(e->attached && e->collecting && e->distributing);
        assert_int_equal(e->last_tx.actor.state, state);
        assert_int_equal(zvs_lacp_port_actor_churn(&e->port), ZVS_LACP_NO_CHURN);
        assert_int_equal(zvs_lacp_port_partner_churn(&e->port), ZVS_LACP_NO_CHURN);
    }
}

static void back_to_back(bool fast, uint8_t state)
{
    struct lacp_sim *s = lacp_sim_new();
    struct zvs_lacp_port_cfg c0 = cfg_for(0, true, fast), c1 = cfg_for(1, true, fast);
    int i;

    lacp_sim_init_end(s, 0, &c0);
    lacp_sim_init_end(s, 1, &c1);
    lacp_sim_run_until(s, S(2) - 1);
    for (i = 0; i < 2; i++) {
        assert_int_equal(zvs_lacp_port_mux_state(&s->e[i].port), ZVS_LACP_MUX_WAITING);
        assert_false(s->e[i].attached);
        assert_int_equal(zvs_lacp_port_actor(&s->e[i].port)->state,
                         fast ? 0x07 : 0x05);   /* ACT,(SHORT),AGG: CURRENT, not SYNC */
    }
    lacp_sim_run_until(s, S(2));
    check_formed(s, state);
    lacp_sim_run_until(s, S(200));
    check_formed(s, state);
    for (i = 0; i < 2; i++) {
        assert_int_equal(zvs_lacp_port_ptx_state(&s->e[i].port),
                         fast ? ZVS_LACP_PTX_FAST_PERIODIC : ZVS_LACP_PTX_SLOW_PERIODIC);
        assert_int_equal(zvs_lacp_port_stats(&s->e[i].port)->expired, 1);  /* the initial one */
        assert_int_equal(zvs_lacp_port_stats(&s->e[i].port)->defaulted, 0);
    }
    /* Steady state: one PDU per period. */
    assert_int_equal(s->e[0].tx_at[s->e[0].ntx - 1] - s->e[0].tx_at[s->e[0].ntx - 2],
                     fast ? S(1) : S(30));
    test_free(s);
}

static void test_back_to_back_slow(void **st) { (void)st; back_to_back(false, 0x3D); }
static void test_back_to_back_fast(void **st) { (void)st; back_to_back(true, 0x3F); }

/* One PDU at t=10, then silence: EXPIRED at last PDU + current_while, DEFAULTED 3 s later. */
static void expiry(bool fast, uint64_t expire_at)
{
    struct lacp_sim *s = lacp_sim_new();
    struct zvs_lacp_port_cfg c = cfg_for(0, true, fast);
    struct zvs_lacpdu pdu = lacp_sim_partner_pdu(1, 5, 0x07);
    const struct zvs_lacp_port *p = &s->e[0].port;

    lacp_sim_init_end(s, 0, &c);
    lacp_sim_run_until(s, S(3) - 1);
    assert_int_equal(zvs_lacp_port_rx_state(p), ZVS_LACP_RX_EXPIRED);
    lacp_sim_run_until(s, S(3));
    assert_int_equal(zvs_lacp_port_rx_state(p), ZVS_LACP_RX_DEFAULTED);
    lacp_sim_run_until(s, S(10));
    lacp_sim_deliver(s, 0, &pdu);
    assert_int_equal(zvs_lacp_port_rx_state(p), ZVS_LACP_RX_CURRENT);
    assert_int_equal(zvs_lacp_port_actor(p)->state & (ZVS_LACP_STATE_DEFAULTED |
                                                      ZVS_LACP_STATE_EXPIRED), 0);
    lacp_sim_run_until(s, expire_at - 1);
    assert_int_equal(zvs_lacp_port_rx_state(p), ZVS_LACP_RX_CURRENT);
    lacp_sim_run_until(s, expire_at);
    assert_int_equal(zvs_lacp_port_rx_state(p), ZVS_LACP_RX_EXPIRED);
    assert_true(zvs_lacp_port_actor(p)->state & ZVS_LACP_STATE_EXPIRED);
    assert_true(zvs_lacp_port_partner(p)->state & ZVS_LACP_STATE_TIMEOUT);
    assert_int_equal(zvs_lacp_port_ptx_state(p), ZVS_LACP_PTX_FAST_PERIODIC);
    lacp_sim_run_until(s, expire_at + S(3) - 1);
    assert_int_equal(zvs_lacp_port_rx_state(p), ZVS_LACP_RX_EXPIRED);
    lacp_sim_run_until(s, expire_at + S(3));
    assert_int_equal(zvs_lacp_port_rx_state(p), ZVS_LACP_RX_DEFAULTED);
    assert_int_equal(zvs_lacp_port_actor(p)->state,
                     0x45 | (fast ? ZVS_LACP_STATE_TIMEOUT : 0));   /* ACT,(SHORT),AGG,DEF */
    assert_int_equal(zvs_lacp_port_stats(p)->expired, 2);
    assert_int_equal(zvs_lacp_port_stats(p)->defaulted, 2);
    assert_int_equal(zvs_lacp_port_selected(p), ZVS_LACP_UNSELECTED);
    assert_int_equal(zvs_lacp_port_mux_state(p), ZVS_LACP_MUX_DETACHED);
    test_free(s);
}

static void test_expiry_fast(void **st) { (void)st; expiry(true, S(13)); }
static void test_expiry_slow(void **st) { (void)st; expiry(false, S(100)); }

/* A PDU every second keeps CURRENT for 100 s: no Receive transition after the first PDU. */
static void test_pdus_keep_current(void **st)
{
    struct lacp_sim *s = lacp_sim_new();
    struct zvs_lacp_port_cfg c = cfg_for(0, true, true);
    struct zvs_lacpdu pdu = lacp_sim_partner_pdu(1, 5, 0x07);
    unsigned t;

    (void)st;
    lacp_sim_init_end(s, 0, &c);
    /* At init: INITIALIZE -> PORT_DISABLED -> EXPIRED; then EXPIRED -> CURRENT. */
    assert_int_equal(s->e[0].rx_transitions, 2);
    lacp_sim_deliver(s, 0, &pdu);
    assert_int_equal(s->e[0].rx_transitions, 3);
    for (t = 1; t <= 100; t++) {
        lacp_sim_run_until(s, S(t));
        lacp_sim_deliver(s, 0, &pdu);
        assert_int_equal(zvs_lacp_port_rx_state(&s->e[0].port), ZVS_LACP_RX_CURRENT);
    }
    lacp_sim_run_until(s, S(103) - 1);
    assert_int_equal(zvs_lacp_port_rx_state(&s->e[0].port), ZVS_LACP_RX_CURRENT);
    assert_int_equal(s->e[0].rx_transitions, 3);
    assert_int_equal(zvs_lacp_port_stats(&s->e[0].port)->lacpdus_rx, 101);
    test_free(s);
}

/* WAITING lasts exactly Aggregate_Wait_Time; ATTACHED without partner SYNC stays there. */
static void test_waiting_2s(void **st)
{
    struct lacp_sim *s = lacp_sim_new();
    struct zvs_lacp_port_cfg c = cfg_for(0, true, false);
    struct zvs_lacpdu pdu = lacp_sim_partner_pdu(1, 5, 0x05);
    const struct zvs_lacp_port *p = &s->e[0].port;

    (void)st;
    lacp_sim_init_end(s, 0, &c);
    lacp_sim_run_until(s, S(1));
    lacp_sim_deliver(s, 0, &pdu);
    assert_int_equal(zvs_lacp_port_selected(p), ZVS_LACP_SELECTED);
    assert_int_equal(zvs_lacp_port_mux_state(p), ZVS_LACP_MUX_WAITING);
    assert_int_equal(zvs_lacp_port_next_wakeup(p), S(3));
    lacp_sim_run_until(s, S(3) - 1);
    assert_int_equal(zvs_lacp_port_mux_state(p), ZVS_LACP_MUX_WAITING);
    assert_false(s->e[0].attached);
    lacp_sim_run_until(s, S(3));
    assert_int_equal(zvs_lacp_port_mux_state(p), ZVS_LACP_MUX_ATTACHED);
    assert_true(s->e[0].attached);
    assert_int_equal(s->e[0].tx_at[s->e[0].ntx - 1], S(3));   /* SYNC announced at once */
    assert_int_equal(s->e[0].last_tx.actor.state, 0x0D);       /* ACT,AGG,SYNC */
    lacp_sim_run_until(s, S(20));
    assert_int_equal(zvs_lacp_port_mux_state(p), ZVS_LACP_MUX_ATTACHED);
    assert_false(s->e[0].collecting);
    /* The partner now shows SYNC and sees us correctly: COLLECTING_DISTRIBUTING (coupled);
     * independent: COLLECTING until the partner shows COLLECTING too. */
    pdu.partner = *zvs_lacp_port_actor(p);
    pdu.actor.state = 0x0D;
    lacp_sim_deliver(s, 0, &pdu);
    if (g_coupled) {
        assert_int_equal(zvs_lacp_port_mux_state(p), ZVS_LACP_MUX_COLLECTING_DISTRIBUTING);
        assert_true(s->e[0].collecting && s->e[0].distributing);
    } else {
        assert_int_equal(zvs_lacp_port_mux_state(p), ZVS_LACP_MUX_COLLECTING);
        assert_true(s->e[0].collecting && !s->e[0].distributing);
        pdu.partner = *zvs_lacp_port_actor(p);
        pdu.actor.state = 0x1D;
        lacp_sim_deliver(s, 0, &pdu);
        assert_int_equal(zvs_lacp_port_mux_state(p), ZVS_LACP_MUX_DISTRIBUTING);
        assert_true(s->e[0].collecting && s->e[0].distributing);
    }
    test_free(s);
}

/* At most 3 LACPDUs in any Fast_Periodic_Time even with NTT set by every PDU. */
static void test_tx_rate_limit(void **st)
{
    struct lacp_sim *s = lacp_sim_new();
    struct zvs_lacp_port_cfg c = cfg_for(0, true, true);
    /* Partner field zero: NTT each time. */
    struct zvs_lacpdu pdu = lacp_sim_partner_pdu(1, 5, 0x05);
    const uint64_t want[] = { 0, S(1), S(2), S(5), S(5) + MS(100), S(5) + MS(200), S(6), S(7) };
    unsigned i;

    (void)st;
    lacp_sim_init_end(s, 0, &c);
    lacp_sim_run_until(s, S(5));
    for (i = 0; i < 10; i++) {
        lacp_sim_run_until(s, S(5) + MS(100) * i);
        lacp_sim_deliver(s, 0, &pdu);
    }
    lacp_sim_run_until(s, S(7) + MS(500));
    assert_int_equal(s->e[0].ntx, sizeof(want) / sizeof(want[0]));
    for (i = 0; i < s->e[0].ntx; i++)
        assert_int_equal(s->e[0].tx_at[i], want[i]);
    for (i = 0; i + 3 < s->e[0].ntx; i++)
        assert_true(s->e[0].tx_at[i + 3] - s->e[0].tx_at[i] >= S(1));
    assert_int_equal(zvs_lacp_port_stats(&s->e[0].port)->lacpdus_tx, 8);
    assert_int_equal(zvs_lacp_port_stats(&s->e[0].port)->tx_rate_limited, 7);
    test_free(s);
}

static void test_passive_passive(void **st)
{
    struct lacp_sim *s = lacp_sim_new();
    struct zvs_lacp_port_cfg c0 = cfg_for(0, false, false), c1 = cfg_for(1, false, true);
    int i;

    (void)st;
    lacp_sim_init_end(s, 0, &c0);
    lacp_sim_init_end(s, 1, &c1);
    lacp_sim_run_until(s, S(300));
    for (i = 0; i < 2; i++) {
        const struct zvs_lacp_port *p = &s->e[i].port;

        assert_int_equal(s->e[i].ntx, 0);
        assert_int_equal(zvs_lacp_port_stats(p)->lacpdus_tx, 0);
        assert_int_equal(zvs_lacp_port_rx_state(p), ZVS_LACP_RX_DEFAULTED);
        assert_int_equal(zvs_lacp_port_ptx_state(p), ZVS_LACP_PTX_NO_PERIODIC);
        assert_int_equal(zvs_lacp_port_selected(p), ZVS_LACP_UNSELECTED);
        assert_int_equal(zvs_lacp_port_mux_state(p), ZVS_LACP_MUX_DETACHED);
        assert_false(s->e[i].attached);
        /* Never SYNC: both churn machines report CHURN once, at 60 s. */
        assert_int_equal(zvs_lacp_port_stats(p)->actor_churn_count, 1);
        assert_int_equal(zvs_lacp_port_stats(p)->partner_churn_count, 1);
    }
    assert_int_equal(zvs_lacp_port_actor(&s->e[0].port)->state, 0x44);   /* AGG,DEF */
    assert_int_equal(zvs_lacp_port_actor(&s->e[1].port)->state, 0x46);   /* SHORT,AGG,DEF */
    test_free(s);
}

/* A passive port answers an active partner and aggregates. */
static void test_passive_active(void **st)
{
    struct lacp_sim *s = lacp_sim_new();
    struct zvs_lacp_port_cfg c0 = cfg_for(0, false, false), c1 = cfg_for(1, true, false);

    (void)st;
    lacp_sim_init_end(s, 0, &c0);
    lacp_sim_init_end(s, 1, &c1);
    lacp_sim_run_until(s, S(10));
    assert_int_equal(zvs_lacp_port_mux_state(&s->e[0].port), formed_mux());
    assert_int_equal(zvs_lacp_port_actor(&s->e[0].port)->state, 0x3C);
    assert_int_equal(zvs_lacp_port_actor(&s->e[1].port)->state, 0x3D);
    test_free(s);
}

/* Selection in one port group: the aggregator's key, the bound partner System ID + key. */
static void test_selection(void **st)
{
    struct zvs_lacp_aggregator agg;
    struct lacp_sim *s[4];
    struct zvs_lacp_port_cfg c[4];
    struct zvs_lacpdu pdu[4];
    unsigned t;
    int i;

    (void)st;
    zvs_lacp_aggregator_init(&agg, 100);
    for (i = 0; i < 4; i++) {
        s[i] = lacp_sim_new();
        c[i] = cfg_for(0, true, false);
        c[i].port = (uint16_t)(1 + i);
        c[i].aggregator = &agg;
    }
    c[3].key = 101;                                     /* wrong actor key */
    pdu[0] = lacp_sim_partner_pdu(1, 5, 0x05);                   /* binds the LAG ID */
    pdu[1] = lacp_sim_partner_pdu(1, 6, 0x05);                   /* same switch, other key */
    pdu[2] = lacp_sim_partner_pdu(2, 5, 0x05);                   /* other switch */
    pdu[3] = lacp_sim_partner_pdu(1, 5, 0x05);                   /* right partner, wrong own key */
    for (i = 0; i < 4; i++)
        lacp_sim_init_end(s[i], 0, &c[i]);
    for (t = 0; t <= 30; t++) {
        for (i = 0; i < 4; i++) {
            lacp_sim_run_until(s[i], S(t));
            lacp_sim_deliver(s[i], 0, &pdu[i]);
        }
        for (i = 1; i < 4; i++) {
            assert_int_equal(zvs_lacp_port_selected(&s[i]->e[0].port), ZVS_LACP_UNSELECTED);
            assert_int_equal(zvs_lacp_port_mux_state(&s[i]->e[0].port),
                             ZVS_LACP_MUX_DETACHED);
        }
    }
    assert_int_equal(zvs_lacp_port_selected(&s[0]->e[0].port), ZVS_LACP_SELECTED);
    assert_int_equal(zvs_lacp_port_mux_state(&s[0]->e[0].port), ZVS_LACP_MUX_ATTACHED);
    assert_int_equal(agg.selected_ports, 1);
    /* Port 0 loses carrier: the aggregator is free and the next port binds it. */
    zvs_lacp_port_set_enabled(&s[0]->e[0].port, false, S(31));
    assert_false(s[0]->e[0].attached);
    assert_int_equal(zvs_lacp_port_rx_state(&s[0]->e[0].port), ZVS_LACP_RX_PORT_DISABLED);
    assert_int_equal(agg.selected_ports, 0);
    lacp_sim_run_until(s[2], S(31));
    lacp_sim_deliver(s[2], 0, &pdu[2]);
    assert_int_equal(zvs_lacp_port_selected(&s[2]->e[0].port), ZVS_LACP_SELECTED);
    assert_int_equal(agg.selected_ports, 1);
    for (i = 0; i < 4; i++) {
        zvs_lacp_port_fini(&s[i]->e[0].port, S(32));
        test_free(s[i]);
    }
    assert_int_equal(agg.selected_ports, 0);
}

/* Speed mismatch: same partner System ID and key, but the second port runs at another
 * speed: it never joins the bound aggregator, even after 60 s of PDUs. */
static void test_speed_mismatch(void **st)
{
    struct zvs_lacp_aggregator agg;
    struct lacp_sim *s[2];
    struct zvs_lacp_port_cfg c[2];
    struct zvs_lacpdu pdu = lacp_sim_partner_pdu(1, 5, 0x05);
    unsigned t;
    int i;

    (void)st;
    zvs_lacp_aggregator_init(&agg, 100);
    for (i = 0; i < 2; i++) {
        s[i] = lacp_sim_new();
        c[i] = cfg_for(0, true, false);
        c[i].port = (uint16_t)(1 + i);
        c[i].aggregator = &agg;
    }
    c[1].speed_mbps = 1000;
    for (i = 0; i < 2; i++)
        lacp_sim_init_end(s[i], 0, &c[i]);
    for (t = 0; t <= 60; t++) {
        for (i = 0; i < 2; i++) {
            lacp_sim_run_until(s[i], S(t));
            lacp_sim_deliver(s[i], 0, &pdu);
        }
        assert_int_equal(zvs_lacp_port_selected(&s[1]->e[0].port), ZVS_LACP_UNSELECTED);
        assert_int_equal(zvs_lacp_port_mux_state(&s[1]->e[0].port), ZVS_LACP_MUX_DETACHED);
        assert_false(s[1]->e[0].attached);
    }
    assert_int_equal(zvs_lacp_port_selected(&s[0]->e[0].port), ZVS_LACP_SELECTED);
    assert_int_equal(zvs_lacp_port_mux_state(&s[0]->e[0].port), ZVS_LACP_MUX_ATTACHED);
    assert_int_equal(agg.selected_ports, 1);
    assert_int_equal(agg.speed_mbps, 10000);
    /* The 10G port goes away: the 1G port may now bind the aggregator at its own speed. */
    zvs_lacp_port_set_enabled(&s[0]->e[0].port, false, S(61));
    lacp_sim_run_until(s[1], S(61));
    lacp_sim_deliver(s[1], 0, &pdu);
    assert_int_equal(zvs_lacp_port_selected(&s[1]->e[0].port), ZVS_LACP_SELECTED);
    assert_int_equal(agg.speed_mbps, 1000);
    for (i = 0; i < 2; i++) {
        zvs_lacp_port_fini(&s[i]->e[0].port, S(62));
        test_free(s[i]);
    }
    assert_int_equal(agg.selected_ports, 0);
}

/* timers_left and last_rx_ns / last_tx_ns at exact times. */
static void test_timers_left(void **st)
{
    struct lacp_sim *s = lacp_sim_new();
    struct zvs_lacp_port_cfg c = cfg_for(0, true, true);
    struct zvs_lacpdu pdu = lacp_sim_partner_pdu(1, 5, 0x05);    /* active, long timeout, AGG */
    const struct zvs_lacp_port *p = &s->e[0].port;
    struct zvs_lacp_timers_left tl;

    (void)st;
    s->now = S(100);
    lacp_sim_init_end(s, 0, &c);
    assert_int_equal(zvs_lacp_port_stats(p)->last_rx_ns, 0);
    assert_int_equal(zvs_lacp_port_stats(p)->last_tx_ns, S(100));
    /* Init: EXPIRED (3 s), FAST_PERIODIC (partner TIMEOUT set by EXPIRED), churn 60 s. */
    zvs_lacp_port_timers_left(p, S(100) + MS(250), &tl);
    assert_int_equal(tl.current_while, S(2) + MS(750));
    assert_int_equal(tl.periodic, MS(750));
    assert_int_equal(tl.wait_while, ZVS_LACP_NEVER);
    assert_int_equal(tl.actor_churn, S(59) + MS(750));
    assert_int_equal(tl.partner_churn, S(59) + MS(750));
    lacp_sim_run_until(s, S(101) + MS(500));
    lacp_sim_deliver(s, 0, &pdu);                                /* CURRENT, SELECTED, WAITING */
    assert_int_equal(zvs_lacp_port_stats(p)->last_rx_ns, S(101) + MS(500));
    assert_int_equal(zvs_lacp_port_stats(p)->last_tx_ns, S(101) + MS(500)); /* update_ntt */
    assert_int_equal(zvs_lacp_port_ptx_state(p), ZVS_LACP_PTX_SLOW_PERIODIC);
    zvs_lacp_port_timers_left(p, S(102), &tl);
    assert_int_equal(tl.current_while, S(2) + MS(500));   /* our timeout: fast, 3 s */
    assert_int_equal(tl.periodic, S(29) + MS(500));       /* partner asks slow: 30 s */
    assert_int_equal(tl.wait_while, S(1) + MS(500));
    assert_int_equal(tl.actor_churn, S(58));
    assert_int_equal(tl.partner_churn, S(58));
    /* A due timer that run() has not processed yet reads 0, not a wrapped value. */
    zvs_lacp_port_timers_left(p, S(200), &tl);
    assert_int_equal(tl.current_while, 0);
    assert_int_equal(tl.wait_while, 0);
    lacp_sim_run_until(s, S(103) + MS(500));
    assert_int_equal(zvs_lacp_port_mux_state(p), ZVS_LACP_MUX_ATTACHED);
    zvs_lacp_port_timers_left(p, S(103) + MS(500), &tl);
    assert_int_equal(tl.wait_while, ZVS_LACP_NEVER);
    assert_int_equal(tl.actor_churn, ZVS_LACP_NEVER);       /* actor SYNC: NO_CHURN */
    assert_int_equal(tl.partner_churn, S(56) + MS(500));    /* partner not SYNC */
    assert_int_equal(zvs_lacp_port_stats(p)->last_tx_ns, S(103) + MS(500)); /* SYNC news */
    /* No carrier: nothing runs. */
    zvs_lacp_port_set_enabled(&s->e[0].port, false, S(104));
    zvs_lacp_port_timers_left(p, S(104), &tl);
    assert_int_equal(tl.current_while, ZVS_LACP_NEVER);
    assert_int_equal(tl.periodic, ZVS_LACP_NEVER);
    assert_int_equal(tl.wait_while, ZVS_LACP_NEVER);
    assert_int_equal(tl.actor_churn, ZVS_LACP_NEVER);
    assert_int_equal(tl.partner_churn, ZVS_LACP_NEVER);
    assert_int_equal(zvs_lacp_port_next_wakeup(p), ZVS_LACP_NEVER);
    assert_false(zvs_lacp_port_enabled(p));
    assert_int_equal(zvs_lacp_port_cfg(p)->coupled_mux, g_coupled);
    test_free(s);
}

/* Event-loop stall: PDUs every second until 10, no run() until the next PDU arrives. */
static void test_stall_no_false_expiry(void **st)
{
    struct lacp_sim *s = lacp_sim_new();
    struct zvs_lacp_port_cfg c = cfg_for(0, true, true);
    struct zvs_lacpdu pdu = lacp_sim_partner_pdu(1, 5, 0x07);
    const struct zvs_lacp_port *p = &s->e[0].port;
    unsigned t;

    (void)st;
    lacp_sim_init_end(s, 0, &c);
    for (t = 0; t <= 10; t++) {
        lacp_sim_run_until(s, S(t));
        lacp_sim_deliver(s, 0, &pdu);
    }
    assert_int_equal(zvs_lacp_port_next_wakeup(p), S(11));      /* fast periodic */
    /* 2 s stall: no run() at all, then a PDU at 12 s: still CURRENT, deadline 15 s. */
    s->now = S(12);
    lacp_sim_deliver(s, 0, &pdu);
    assert_int_equal(zvs_lacp_port_rx_state(p), ZVS_LACP_RX_CURRENT);
    /* Stall past the 3 s deadline (15 s): a PDU delivered at 15.5 s before any run()
     * processed the deadline wins; rx is applied before timers at one `now`. */
    s->now = S(15) + MS(500);
    lacp_sim_deliver(s, 0, &pdu);
    assert_int_equal(zvs_lacp_port_rx_state(p), ZVS_LACP_RX_CURRENT);
    assert_int_equal(zvs_lacp_port_stats(p)->expired, 1);       /* only the initial one */
    lacp_sim_run_until(s, S(18) + MS(500) - 1);
    assert_int_equal(zvs_lacp_port_rx_state(p), ZVS_LACP_RX_CURRENT);
    lacp_sim_run_until(s, S(18) + MS(500));
    assert_int_equal(zvs_lacp_port_rx_state(p), ZVS_LACP_RX_EXPIRED);
    test_free(s);
}

static void test_churn_partner_silent(void **st)
{
    struct lacp_sim *s = lacp_sim_new();
    struct zvs_lacp_port_cfg c = cfg_for(0, true, true);
    const struct zvs_lacp_port *p = &s->e[0].port;

    (void)st;
    lacp_sim_init_end(s, 0, &c);
    lacp_sim_run_until(s, S(60) - 1);
    assert_int_equal(zvs_lacp_port_actor_churn(p), ZVS_LACP_CHURN_MONITOR);
    assert_int_equal(zvs_lacp_port_stats(p)->actor_churn_count, 0);
    lacp_sim_run_until(s, S(60));
    assert_int_equal(zvs_lacp_port_actor_churn(p), ZVS_LACP_CHURN);
    assert_int_equal(zvs_lacp_port_partner_churn(p), ZVS_LACP_CHURN);
    lacp_sim_run_until(s, S(500));
    assert_int_equal(zvs_lacp_port_stats(p)->actor_churn_count, 1);
    assert_int_equal(zvs_lacp_port_stats(p)->partner_churn_count, 1);
    /* Defaulted partner: slow periodic every 30 s after t=3. */
    assert_int_equal(zvs_lacp_port_ptx_state(p), ZVS_LACP_PTX_SLOW_PERIODIC);
    assert_int_equal(s->e[0].tx_at[3], S(33));
    test_free(s);
}

static void test_carrier_loss_and_loopback(void **st)
{
    struct lacp_sim *s = lacp_sim_new();
    struct zvs_lacp_port_cfg c0 = cfg_for(0, true, true), c1 = cfg_for(1, true, true);
    struct zvs_lacpdu own;

    (void)st;
    lacp_sim_init_end(s, 0, &c0);
    lacp_sim_init_end(s, 1, &c1);
    lacp_sim_run_until(s, S(5));
    check_formed(s, 0x3F);
    own = s->e[0].last_tx;
    lacp_sim_deliver(s, 0, &own);
    assert_int_equal(zvs_lacp_port_stats(&s->e[0].port)->loopback_rx, 1);
    assert_int_equal(zvs_lacp_port_rx_state(&s->e[0].port), ZVS_LACP_RX_CURRENT);
    zvs_lacp_port_set_enabled(&s->e[0].port, false, s->now);
    assert_false(s->e[0].attached || s->e[0].collecting || s->e[0].distributing);
    assert_int_equal(zvs_lacp_port_mux_state(&s->e[0].port), ZVS_LACP_MUX_DETACHED);
    /* The other side hears nothing: EXPIRED at 5 + ... its last PDU from us plus 3 s. */
    lacp_sim_run_until(s, S(15));
    assert_int_equal(zvs_lacp_port_rx_state(&s->e[1].port), ZVS_LACP_RX_DEFAULTED);
    assert_false(s->e[1].distributing);
    zvs_lacp_port_set_enabled(&s->e[0].port, true, s->now);
    lacp_sim_run_until(s, S(20));
    check_formed(s, 0x3F);
    zvs_lacp_port_count_parse_error(&s->e[0].port, ZVS_LACP_ERR_SHORT);
    zvs_lacp_port_count_parse_error(&s->e[0].port, ZVS_LACP_ERR_ETHERTYPE);
    zvs_lacp_port_count_parse_error(&s->e[0].port, ZVS_LACP_ERR_NOT_SLOW);
    assert_int_equal(zvs_lacp_port_stats(&s->e[0].port)->illegal_rx, 1);
    assert_int_equal(zvs_lacp_port_stats(&s->e[0].port)->unknown_rx, 1);
    test_free(s);
}

/* ---- fault knobs ----------------------------------------------------------------------- */

/* A formed fast pair at t=5 s. */
static struct lacp_sim *formed_fast_pair(void)
{
    struct lacp_sim *s = lacp_sim_new();
    struct zvs_lacp_port_cfg c0 = cfg_for(0, true, true), c1 = cfg_for(1, true, true);

    lacp_sim_init_end(s, 0, &c0);
    lacp_sim_init_end(s, 1, &c1);
    lacp_sim_run_until(s, S(5));
    check_formed(s, 0x3F);
    return s;
}

static void check_rx(const struct lacp_sim_end *e, enum zvs_lacp_rx_state want)
{
    assert_int_equal(zvs_lacp_port_rx_state(&e->port), want);
}

/* drop_rx on e0: e0 expires exactly 3 s after the last PDU it accepted, DEFAULTED 3 s later;
 * every later PDU from e1 is counted as dropped, none as received. */
static void test_fault_drop_rx(void **st)
{
    struct lacp_sim *s = formed_fast_pair();
    struct zvs_lacp_faults f = { .drop_rx = true };
    const struct zvs_lacp_port *p = &s->e[0].port;
    uint64_t last, rx_before;
    unsigned tx1_before;

    (void)st;
    zvs_lacp_port_set_faults(&s->e[0].port, &f, s->now);
    assert_true(zvs_lacp_port_faults(p)->drop_rx);
    last = s->e[1].tx_at[s->e[1].ntx - 1];      /* wire delay 0: accepted when sent */
    assert_int_equal(last, S(5));               /* fast periodic from e1: ..., 4 s, 5 s */
    rx_before = zvs_lacp_port_stats(p)->lacpdus_rx;
    tx1_before = s->e[1].ntx;
    lacp_sim_run_until(s, last + S(3) - 1);
    check_rx(&s->e[0], ZVS_LACP_RX_CURRENT);
    lacp_sim_run_until(s, last + S(3));
    check_rx(&s->e[0], ZVS_LACP_RX_EXPIRED);
    lacp_sim_run_until(s, last + S(6) - 1);
    check_rx(&s->e[0], ZVS_LACP_RX_EXPIRED);
    lacp_sim_run_until(s, last + S(6));
    check_rx(&s->e[0], ZVS_LACP_RX_DEFAULTED);
    assert_int_equal(zvs_lacp_port_mux_state(p), ZVS_LACP_MUX_DETACHED);
    assert_false(s->e[0].attached);
    assert_int_equal(zvs_lacp_port_stats(p)->expired, 2);
    assert_int_equal(zvs_lacp_port_stats(p)->defaulted, 1);
    assert_int_equal(zvs_lacp_port_stats(p)->lacpdus_rx, rx_before);
    assert_true(s->e[1].ntx > tx1_before);
    assert_int_equal(zvs_lacp_port_stats(p)->rx_dropped_by_knob, s->e[1].ntx - tx1_before);
    /* Knobs off: the next PDU from e1 is accepted and the pair forms again. */
    zvs_lacp_port_set_faults(&s->e[0].port, NULL, s->now);
    assert_false(zvs_lacp_port_faults(p)->drop_rx);
    lacp_sim_run_until(s, s->now + S(10));
    check_formed(s, 0x3F);
    test_free(s);
}

/* drop_tx on e0: e0 believes it sends (NTT cleared, no busy loop), e1 hears nothing and
 * expires exactly 3 s after e0's last real PDU, DEFAULTED 3 s later. */
static void test_fault_drop_tx(void **st)
{
    struct lacp_sim *s = formed_fast_pair();
    struct zvs_lacp_faults f = { .drop_tx = true };
    const struct zvs_lacp_port *p = &s->e[0].port;
    uint64_t last, tx_before;
    unsigned ntx_before = s->e[0].ntx;

    (void)st;
    zvs_lacp_port_set_faults(&s->e[0].port, &f, s->now);
    last = s->e[0].tx_at[ntx_before - 1];
    assert_int_equal(last, S(5));
    tx_before = zvs_lacp_port_stats(p)->lacpdus_tx;
    lacp_sim_run_until(s, last + S(1));
    assert_int_equal(zvs_lacp_port_stats(p)->tx_dropped_by_knob, 1);  /* the periodic one */
    assert_int_equal(zvs_lacp_port_next_wakeup(p), last + S(2));     /* NTT was cleared */
    lacp_sim_run_until(s, last + S(3) - 1);
    check_rx(&s->e[1], ZVS_LACP_RX_CURRENT);
    lacp_sim_run_until(s, last + S(3));
    check_rx(&s->e[1], ZVS_LACP_RX_EXPIRED);
    lacp_sim_run_until(s, last + S(6) - 1);
    check_rx(&s->e[1], ZVS_LACP_RX_EXPIRED);
    lacp_sim_run_until(s, last + S(6));
    check_rx(&s->e[1], ZVS_LACP_RX_DEFAULTED);
    assert_int_equal(zvs_lacp_port_mux_state(&s->e[1].port), ZVS_LACP_MUX_DETACHED);
    assert_int_equal(s->e[0].ntx, ntx_before);                       /* send never called */
    assert_int_equal(zvs_lacp_port_stats(p)->lacpdus_tx, tx_before);
    assert_true(zvs_lacp_port_stats(p)->tx_dropped_by_knob >= 6);
    zvs_lacp_port_set_faults(&s->e[0].port, NULL, s->now);
    lacp_sim_run_until(s, s->now + S(10));
    check_formed(s, 0x3F);
    test_free(s);
}

/* delay_tx 500 ms on e0 from its first PDU: the pair forms and stays formed; every PDU
 * leaves e0 exactly 500 ms after the engine queued it, in order. */
static void test_fault_delay_forms(void **st)
{
    struct lacp_sim *s = lacp_sim_new();
    struct zvs_lacp_port_cfg c0 = cfg_for(0, true, true), c1 = cfg_for(1, true, true);
    struct zvs_lacp_faults f = { .delay_tx_ns = MS(500) };
    const struct zvs_lacp_port *p = &s->e[0].port;
    unsigned i;

    (void)st;
    c0.enabled = false;                         /* set the knob before anything is sent */
    lacp_sim_init_end(s, 0, &c0);
    lacp_sim_init_end(s, 1, &c1);
    zvs_lacp_port_set_faults(&s->e[0].port, &f, s->now);
    zvs_lacp_port_set_enabled(&s->e[0].port, true, s->now);
    lacp_sim_note_queued(&s->e[0], s->now);
    assert_int_equal(s->e[0].nqueued, 1);
    assert_int_equal(s->e[0].ntx, 0);
    assert_int_equal(zvs_lacp_port_tx_delayed(p), 1);
    assert_int_equal(zvs_lacp_port_next_wakeup(p), MS(500));   /* the release, before 1 s */
    lacp_sim_run_until(s, S(10));
    check_formed(s, 0x3F);
    lacp_sim_run_until(s, S(100));
    check_formed(s, 0x3F);
    assert_true(s->e[0].ntx > 90);
    assert_true(s->e[0].nqueued - s->e[0].ntx <= 1);     /* one may still wait at 100 s */
    for (i = 0; i < s->e[0].ntx; i++)
        assert_int_equal(s->e[0].tx_at[i], s->e[0].queued_at[i] + MS(500));
    for (i = 0; i < 2; i++) {
        assert_int_equal(zvs_lacp_port_stats(&s->e[i].port)->expired, 1);  /* initial */
        assert_int_equal(zvs_lacp_port_stats(&s->e[i].port)->defaulted, 0);
    }
    assert_int_equal(zvs_lacp_port_stats(p)->lacpdus_tx, s->e[0].ntx);
    assert_int_equal(zvs_lacp_port_stats(p)->tx_delayed, s->e[0].nqueued);
    assert_int_equal(zvs_lacp_port_stats(p)->tx_delay_overflow, 0);
    test_free(s);
}

/* delay_tx 2.5 s switched on in a formed fast pair. e1's budget is Short_Timeout_Time, 3 s,
 * from the last PDU it accepted (last, sent at 5 s). e0's next PDU is built at last + 1 s
 * (fast periodic) and arrives at last + 1 s + 2.5 s = last + 3.5 s: 0.5 s too late, so e1
 * is EXPIRED from exactly last + 3 s to exactly last + 3.5 s. After that PDUs arrive every
 * 1 s again (a constant delay shifts them, it does not widen the gaps): no further expiry,
 * and the pair forms again. */
static void test_fault_delay_expires(void **st)
{
    struct lacp_sim *s = formed_fast_pair();
    struct zvs_lacp_faults f = { .delay_tx_ns = S(2) + MS(500) };
    unsigned ntx_before = s->e[0].ntx, i;
    uint64_t last = s->e[0].tx_at[ntx_before - 1];

    (void)st;
    assert_int_equal(last, S(5));
    zvs_lacp_port_set_faults(&s->e[0].port, &f, s->now);
    lacp_sim_run_until(s, last + S(3) - 1);
    check_rx(&s->e[1], ZVS_LACP_RX_CURRENT);
    assert_int_equal(s->e[0].queued_at[0], last + S(1));
    lacp_sim_run_until(s, last + S(3));
    check_rx(&s->e[1], ZVS_LACP_RX_EXPIRED);
    assert_int_equal(zvs_lacp_port_mux_state(&s->e[1].port), ZVS_LACP_MUX_ATTACHED);
    lacp_sim_run_until(s, last + S(3) + MS(500) - 1);
    check_rx(&s->e[1], ZVS_LACP_RX_EXPIRED);
    lacp_sim_run_until(s, last + S(3) + MS(500));
    check_rx(&s->e[1], ZVS_LACP_RX_CURRENT);
    lacp_sim_run_until(s, S(100));
    check_formed(s, 0x3F);
    assert_int_equal(zvs_lacp_port_stats(&s->e[1].port)->expired, 2);   /* initial + 1 */
    assert_int_equal(zvs_lacp_port_stats(&s->e[1].port)->defaulted, 0);
    assert_int_equal(zvs_lacp_port_stats(&s->e[0].port)->expired, 1);
    assert_int_equal(zvs_lacp_port_stats(&s->e[0].port)->tx_delay_overflow, 0);
    assert_true(s->e[0].ntx - ntx_before > 90);
    for (i = 0; ntx_before + i < s->e[0].ntx; i++)      /* i-th queued is i-th sent after */
        assert_int_equal(s->e[0].tx_at[ntx_before + i], s->e[0].queued_at[i] + S(2) + MS(500));
    assert_true(zvs_lacp_port_tx_delayed(&s->e[0].port) >= 2);   /* 2.5 s of PDUs in flight */
    test_free(s);
}

/* ---- leaving the group (zvs_lacp_port_leave) ------------------------------------------ */

/* The 124-byte frame of the final LACPDU of end 0 (system 02:00:00:00:00:10, key 100,
 * port 1) to end 1 (02:00:00:00:00:11, key 101, port 2, formed fast: 0x3F), sent from
 * port MAC 02:00:00:00:01:01. Actor state 0x03: Activity and Short Timeout only;
 * Aggregation, Synchronization, Collecting and Distributing clear (802.1AX-2014 6.4.2.3). */
static const uint8_t leave_frame[124] = {
    0x01, 0x80, 0xC2, 0x00, 0x00, 0x02,             /* Slow_Protocols_Multicast */
    0x02, 0x00, 0x00, 0x00, 0x01, 0x01,             /* the port's own MAC */
    0x88, 0x09, 0x01, 0x01,                         /* Slow Protocols, LACP, version 1 */
    0x01, 0x14,                                     /* Actor TLV, 20 */
    0x80, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x10, /* system priority, system */
    0x00, 0x64, 0x80, 0x00, 0x00, 0x01,             /* key 100, port priority, port 1 */
    0x03, 0x00, 0x00, 0x00,                         /* ACT STO: not AGG SYN COL DIS */
    0x02, 0x14,                                     /* Partner TLV, 20 */
    0x80, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x11,
    0x00, 0x65, 0x80, 0x00, 0x00, 0x02,             /* key 101, port 2 */
    0x3F, 0x00, 0x00, 0x00,                         /* the partner as we knew it */
    0x03, 0x10, 0x00, 0x00,                         /* Collector TLV, 16, max delay 0 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00,                                     /* Terminator */
    /* 50 reserved bytes: zero */
};

/* A formed member leaves: one PDU at that very instant, after the Mux has detached
 * (distributing, collecting, attach off), out of sync and Individual; the partner's Mux
 * detaches when it arrives, not at its current_while 3 s later; nothing more is sent. */
static void test_leave_sends_final_pdu(void **st)
{
    struct lacp_sim *s = lacp_sim_new();
    struct zvs_lacp_port_cfg c0 = cfg_for(0, true, true), c1 = cfg_for(1, true, true);
    const struct zvs_lacp_port *p = &s->e[0].port, *q = &s->e[1].port;
    const uint8_t mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x01, 0x01 };
    const uint64_t t = S(10) + MS(500);
    uint8_t buf[ZVS_SLOW_FRAME_LEN];
    unsigned ntx, nlog;
    uint64_t tx_before;

    (void)st;
    lacp_sim_init_end(s, 0, &c0);
    lacp_sim_init_end(s, 1, &c1);
    lacp_sim_run_until(s, t);
    check_formed(s, 0x3F);
    ntx = s->e[0].ntx;
    nlog = s->e[0].nlog;
    tx_before = zvs_lacp_port_stats(p)->lacpdus_tx;

    assert_int_equal(zvs_lacp_port_leave(&s->e[0].port, t), 0);
    assert_int_equal(s->e[0].ntx, ntx + 1);
    assert_int_equal(s->e[0].tx_at[ntx], t);
    assert_int_equal(zvs_lacp_port_stats(p)->lacpdus_tx, tx_before + 1);
    assert_int_equal(zvs_lacp_port_stats(p)->last_tx_ns, t);
    assert_int_equal(s->e[0].last_tx.version, ZVS_LACP_VERSION);
    assert_int_equal(s->e[0].last_tx.actor.state, 0x03);
    assert_int_equal(zvs_lacpdu_build(&s->e[0].last_tx, mac, buf, sizeof buf), 124);
    assert_memory_equal(buf, leave_frame, sizeof leave_frame);
    /* The Mux let go first, at the same instant, in the disable order. */
    assert_int_equal(s->e[0].nlog, nlog + 3);
    assert_int_equal(s->e[0].log[nlog].kind, 'D');
    assert_int_equal(s->e[0].log[nlog + 1].kind, 'C');
    assert_int_equal(s->e[0].log[nlog + 2].kind, 'A');
    for (unsigned i = nlog; i < nlog + 3; i++) {
        assert_false(s->e[0].log[i].on);
        assert_int_equal(s->e[0].log[i].at, t);
    }
    assert_int_equal(zvs_lacp_port_mux_state(p), ZVS_LACP_MUX_DETACHED);
    assert_int_equal(zvs_lacp_port_selected(p), ZVS_LACP_UNSELECTED);
    assert_int_equal(zvs_lacp_port_rx_state(p), ZVS_LACP_RX_PORT_DISABLED);
    assert_int_equal(zvs_lacp_port_next_wakeup(p), ZVS_LACP_NEVER);

    /* The partner, at the same instant (no wire delay): out of the aggregate now. */
    lacp_sim_run_until(s, t);
    assert_int_equal(zvs_lacp_port_selected(q), ZVS_LACP_UNSELECTED);
    assert_int_equal(zvs_lacp_port_mux_state(q), ZVS_LACP_MUX_DETACHED);
    assert_false(s->e[1].collecting || s->e[1].distributing || s->e[1].attached);
    assert_int_equal(zvs_lacp_port_partner(q)->state, 0x03);
    assert_int_equal(zvs_lacp_port_rx_state(q), ZVS_LACP_RX_CURRENT);
    /* And it never comes back: the partner's PDUs are ignored, we send nothing more. */
    lacp_sim_run_until(s, t + S(20));
    assert_int_equal(s->e[0].ntx, ntx + 1);
    assert_int_equal(zvs_lacp_port_mux_state(q), ZVS_LACP_MUX_DETACHED);
    assert_false(s->e[1].distributing);
    test_free(s);
}

/* The final PDU obeys the 3-per-Fast_Periodic_Time limit: with the budget used up it is
 * not sent (-EAGAIN, counted as rate limited), and nothing follows once the budget is back. */
static void test_leave_rate_limited(void **st)
{
    struct lacp_sim *s = lacp_sim_new();
    struct zvs_lacp_port_cfg c = cfg_for(0, true, true);
    struct zvs_lacpdu pdu = lacp_sim_partner_pdu(1, 5, 0x05);  /* NTT on every one */
    const struct zvs_lacp_port *p = &s->e[0].port;
    uint64_t limited;
    unsigned i, ntx;

    (void)st;
    lacp_sim_init_end(s, 0, &c);
    lacp_sim_run_until(s, S(5));
    for (i = 0; i < 3; i++) {
        lacp_sim_run_until(s, S(5) + MS(100) * i);
        lacp_sim_deliver(s, 0, &pdu);
    }
    ntx = s->e[0].ntx;
    assert_int_equal(s->e[0].tx_at[ntx - 3], S(5));     /* 3 within the last second */
    limited = zvs_lacp_port_stats(p)->tx_rate_limited;
    lacp_sim_run_until(s, S(5) + MS(250));
    assert_int_equal(zvs_lacp_port_leave(&s->e[0].port, S(5) + MS(250)), -EAGAIN);
    assert_int_equal(s->e[0].ntx, ntx);
    assert_int_equal(zvs_lacp_port_stats(p)->tx_rate_limited, limited + 1);
    assert_int_equal(zvs_lacp_port_next_wakeup(p), ZVS_LACP_NEVER);
    lacp_sim_run_until(s, S(10));
    assert_int_equal(s->e[0].ntx, ntx);
    test_free(s);
}

/* A port that never attached (WAITING) still says goodbye: 0x07 becomes 0x03. Without
 * carrier nothing can be sent (-ENETDOWN); with drop_tx the PDU is built and lost. */
static void test_leave_waiting_no_carrier_drop_tx(void **st)
{
    struct lacp_sim *s = lacp_sim_new();
    struct zvs_lacp_port_cfg c = cfg_for(0, true, true);
    struct zvs_lacpdu pdu = lacp_sim_partner_pdu(1, 5, 0x07);
    const struct zvs_lacp_port *p = &s->e[0].port;
    struct zvs_lacp_faults f = { .drop_tx = true };
    unsigned ntx;

    (void)st;
    lacp_sim_init_end(s, 0, &c);
    lacp_sim_run_until(s, S(5));
    lacp_sim_deliver(s, 0, &pdu);
    assert_int_equal(zvs_lacp_port_mux_state(p), ZVS_LACP_MUX_WAITING);
    lacp_sim_run_until(s, S(6));
    ntx = s->e[0].ntx;
    assert_int_equal(zvs_lacp_port_leave(&s->e[0].port, S(6)), 0);
    assert_int_equal(s->e[0].ntx, ntx + 1);
    assert_int_equal(s->e[0].last_tx.actor.state, 0x03);
    assert_int_equal(s->e[0].nlog, 0);                  /* never attached: no callbacks */

    lacp_sim_init_end(s, 0, &c);
    zvs_lacp_port_set_enabled(&s->e[0].port, false, S(6));
    ntx = s->e[0].ntx;
    assert_int_equal(zvs_lacp_port_leave(&s->e[0].port, S(6)), -ENETDOWN);
    assert_int_equal(s->e[0].ntx, ntx);

    lacp_sim_init_end(s, 0, &c);
    zvs_lacp_port_set_faults(&s->e[0].port, &f, S(6));
    lacp_sim_run_until(s, S(8));
    ntx = s->e[0].ntx;
    assert_int_equal(zvs_lacp_port_leave(&s->e[0].port, S(8)), 0);
    assert_int_equal(s->e[0].ntx, ntx);
    assert_int_equal(zvs_lacp_port_stats(p)->tx_dropped_by_knob, 3);  /* 7 s, 8 s and leave */
    test_free(s);
}

static void test_init_refuses(void **st)
{
    struct zvs_lacp_port p;
    struct zvs_lacp_port_cfg c = cfg_for(0, true, true);
    struct zvs_lacp_port_cb nosend = lacp_sim_cbs;

    (void)st;
    nosend.send = NULL;
    c.port = 0;
    assert_int_equal(zvs_lacp_port_init(&p, &c, &lacp_sim_cbs, NULL, 0), -EINVAL);
    c.port = 1;
    assert_int_equal(zvs_lacp_port_init(&p, &c, &nosend, NULL, 0), -EINVAL);
    assert_int_equal(zvs_lacp_port_init(&p, NULL, &lacp_sim_cbs, NULL, 0), -EINVAL);
    assert_string_equal(zvs_lacp_state_name(ZVS_LACP_MACHINE_MUX,
                                            ZVS_LACP_MUX_COLLECTING_DISTRIBUTING),
                        "COLLECTING_DISTRIBUTING");
    assert_string_equal(zvs_lacp_state_name(ZVS_LACP_MACHINE_RX, ZVS_LACP_RX_DEFAULTED),
                        "DEFAULTED");
    assert_string_equal(zvs_lacp_state_name(ZVS_LACP_MACHINE_RX, 99), "?");
    assert_string_equal(zvs_lacp_machine_name(ZVS_LACP_MACHINE_PTX), "ptx");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_back_to_back_slow),
        cmocka_unit_test(test_back_to_back_fast),
        cmocka_unit_test(test_expiry_fast),
        cmocka_unit_test(test_expiry_slow),
        cmocka_unit_test(test_pdus_keep_current),
        cmocka_unit_test(test_waiting_2s),
        cmocka_unit_test(test_tx_rate_limit),
        cmocka_unit_test(test_passive_passive),
        cmocka_unit_test(test_passive_active),
        cmocka_unit_test(test_selection),
        cmocka_unit_test(test_speed_mismatch),
        cmocka_unit_test(test_timers_left),
        cmocka_unit_test(test_stall_no_false_expiry),
        cmocka_unit_test(test_churn_partner_silent),
        cmocka_unit_test(test_carrier_loss_and_loopback),
        cmocka_unit_test(test_fault_drop_rx),
        cmocka_unit_test(test_fault_drop_tx),
        cmocka_unit_test(test_fault_delay_forms),
        cmocka_unit_test(test_fault_delay_expires),
        cmocka_unit_test(test_leave_sends_final_pdu),
        cmocka_unit_test(test_leave_rate_limited),
        cmocka_unit_test(test_leave_waiting_no_carrier_drop_tx),
        cmocka_unit_test(test_init_refuses),
    };

    int failed;

    g_coupled = true;
    failed = cmocka_run_group_tests_name("lacp_port_coupled", tests, NULL, NULL);
    g_coupled = false;
    failed += cmocka_run_group_tests_name("lacp_port_independent", tests, NULL, NULL);
    return failed;
}
