/* Tests for the independent-control Mux (lacp/mux.c; IEEE 802.1AX-2008 5.4.15 / 2014
 * 6.4.15) on virtual time, and the callback order of both controls. Same harness as
 * test_lacp_port.c (lacp_sim.c: two engines back to back, or one engine and a scripted
 * partner), whose log of every attach/collecting/distributing callback with its time and
 * the Mux state the getter showed during the call these tests assert on. Exact states at
 * exact nanoseconds. */
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

/* ---- helpers --------------------------------------------------------------------------- */

/* A scripted partner's PDU that sees e[0] correctly (matched), with the given state. */
static struct zvs_lacpdu pdu_seeing(const struct lacp_sim *s, uint8_t state)
{
    struct zvs_lacpdu pdu = lacp_sim_partner_pdu(1, 5, state);

    pdu.partner = *zvs_lacp_port_actor(&s->e[0].port);
    return pdu;
}

static void check_ev(const struct lacp_sim_end *e, unsigned i, char kind, bool on, uint64_t at,
                     enum zvs_lacp_mux_state mux)
{
    assert_true(i < e->nlog);
    assert_int_equal(e->log[i].kind, kind);
    assert_int_equal(e->log[i].on, on);
    assert_int_equal(e->log[i].at, at);
    assert_int_equal(e->log[i].mux, mux);
}

static void check_mux(const struct lacp_sim_end *e, enum zvs_lacp_mux_state mux, bool col,
                      bool dist)
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
static struct lacp_sim *pair_with_delay(bool fast, uint64_t d, bool coupled0, bool coupled1)
{
    struct lacp_sim *s = lacp_sim_new();
    struct zvs_lacp_port_cfg c0 = lacp_sim_cfg(0, true, fast), c1 = lacp_sim_cfg(1, true, fast);

    c0.enabled = c1.enabled = false;
    c0.coupled_mux = coupled0;
    c1.coupled_mux = coupled1;
    s->delay = d;
    lacp_sim_init_end(s, 0, &c0);
    lacp_sim_init_end(s, 1, &c1);
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
    struct lacp_sim *s = pair_with_delay(fast, d, false, false);
    int i;

    lacp_sim_run_until(s, S(2) + d - 1);
    for (i = 0; i < 2; i++) {
        check_mux(&s->e[i], ZVS_LACP_MUX_WAITING, false, false);
        assert_int_equal(s->e[i].nlog, 0);
    }
    lacp_sim_run_until(s, S(2) + d);
    for (i = 0; i < 2; i++)
        check_mux(&s->e[i], ZVS_LACP_MUX_ATTACHED, false, false);
    lacp_sim_run_until(s, S(2) + 2 * d - 1);
    for (i = 0; i < 2; i++)
        check_mux(&s->e[i], ZVS_LACP_MUX_ATTACHED, false, false);
    lacp_sim_run_until(s, S(2) + 2 * d);
    for (i = 0; i < 2; i++)
        check_mux(&s->e[i], ZVS_LACP_MUX_COLLECTING, true, false);
    lacp_sim_run_until(s, S(2) + 3 * d - 1);
    for (i = 0; i < 2; i++)
        check_mux(&s->e[i], ZVS_LACP_MUX_COLLECTING, true, false);
    lacp_sim_run_until(s, S(2) + 3 * d);
    for (i = 0; i < 2; i++) {
        struct lacp_sim_end *e = &s->e[i];

        check_mux(e, ZVS_LACP_MUX_DISTRIBUTING, true, true);
        assert_int_equal(e->nlog, 3);
        check_ev(e, 0, 'A', true, S(2) + d, ZVS_LACP_MUX_ATTACHED);
        check_ev(e, 1, 'C', true, S(2) + 2 * d, ZVS_LACP_MUX_COLLECTING);
        check_ev(e, 2, 'D', true, S(2) + 3 * d, ZVS_LACP_MUX_DISTRIBUTING);
    }
    lacp_sim_run_until(s, S(200));
    for (i = 0; i < 2; i++) {
        struct lacp_sim_end *e = &s->e[i];

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
    struct lacp_sim *s = lacp_sim_new();
    struct zvs_lacp_port_cfg c = lacp_sim_cfg(0, true, true);
    struct lacp_sim_end *e = &s->e[0];
    const struct zvs_lacp_port *p = &e->port;
    struct zvs_lacpdu pdu;
    unsigned t;

    (void)st;
    lacp_sim_init_end(s, 0, &c);
    lacp_sim_run_until(s, S(1));
    pdu = pdu_seeing(s, 0x0F);                          /* ACT,STO,AGG,SYNC */
    lacp_sim_deliver(s, 0, &pdu);
    check_mux(e, ZVS_LACP_MUX_WAITING, false, false);
    /* The 2 s wait holds back ATTACHED and COLLECTING alike. */
    lacp_sim_run_until(s, S(2));
    pdu = pdu_seeing(s, 0x0F);
    lacp_sim_deliver(s, 0, &pdu);
    lacp_sim_run_until(s, S(3) - 1);
    check_mux(e, ZVS_LACP_MUX_WAITING, false, false);
    assert_int_equal(e->nlog, 0);
    lacp_sim_run_until(s, S(3));
    check_mux(e, ZVS_LACP_MUX_COLLECTING, true, false);
    assert_int_equal(e->nlog, 2);
    check_ev(e, 0, 'A', true, S(3), ZVS_LACP_MUX_ATTACHED);
    check_ev(e, 1, 'C', true, S(3), ZVS_LACP_MUX_COLLECTING);
    assert_int_equal(e->tx_at[e->ntx - 1], S(3));
    assert_int_equal(e->last_tx.actor.state, 0x1F);     /* ACT,STO,AGG,SYNC,COL */
    /* 100 s of a partner that is in sync but not collecting: we never distribute. */
    for (t = 3; t <= 100; t++) {
        lacp_sim_run_until(s, S(t));
        pdu = pdu_seeing(s, 0x0F);
        lacp_sim_deliver(s, 0, &pdu);
        check_mux(e, ZVS_LACP_MUX_COLLECTING, true, false);
    }
    assert_int_equal(e->nlog, 2);
    assert_int_equal(zvs_lacp_port_actor(p)->state, 0x1F);
    /* Partner collecting: DISTRIBUTING at once, announced at once. */
    lacp_sim_run_until(s, S(101));
    pdu = pdu_seeing(s, 0x1F);
    lacp_sim_deliver(s, 0, &pdu);
    check_mux(e, ZVS_LACP_MUX_DISTRIBUTING, true, true);
    check_ev(e, 2, 'D', true, S(101), ZVS_LACP_MUX_DISTRIBUTING);
    assert_int_equal(zvs_lacp_port_actor(p)->state, 0x3F);
    assert_int_equal(e->tx_at[e->ntx - 1], S(101));
    assert_int_equal(e->last_tx.actor.state, 0x3F);
    /* Partner stops collecting but stays in sync: back to COLLECTING, one flap. */
    lacp_sim_run_until(s, S(102));
    pdu = pdu_seeing(s, 0x0F);
    lacp_sim_deliver(s, 0, &pdu);
    check_mux(e, ZVS_LACP_MUX_COLLECTING, true, false);
    check_ev(e, 3, 'D', false, S(102), ZVS_LACP_MUX_COLLECTING);
    assert_int_equal(zvs_lacp_port_stats(p)->mux_flaps, 1);
    lacp_sim_run_until(s, S(103));
    pdu = pdu_seeing(s, 0x1F);
    lacp_sim_deliver(s, 0, &pdu);
    check_mux(e, ZVS_LACP_MUX_DISTRIBUTING, true, true);
    check_ev(e, 4, 'D', true, S(103), ZVS_LACP_MUX_DISTRIBUTING);
    /* Partner drops SYNC: DISTRIBUTING -> COLLECTING -> ATTACHED in one call, the disables
     * in that order, the link still attached. */
    lacp_sim_run_until(s, S(104));
    pdu = pdu_seeing(s, 0x17);                          /* ACT,STO,AGG,COL: no SYNC */
    lacp_sim_deliver(s, 0, &pdu);
    check_mux(e, ZVS_LACP_MUX_ATTACHED, false, false);
    assert_int_equal(e->nlog, 7);
    check_ev(e, 5, 'D', false, S(104), ZVS_LACP_MUX_COLLECTING);
    check_ev(e, 6, 'C', false, S(104), ZVS_LACP_MUX_ATTACHED);
    assert_true(e->attached);
    assert_int_equal(zvs_lacp_port_actor(p)->state, 0x0F);    /* SYNC kept: still attached */
    assert_int_equal(zvs_lacp_port_stats(p)->mux_flaps, 2);
    assert_int_equal(zvs_lacp_port_selected(p), ZVS_LACP_SELECTED);
    /* SYNC back: COLLECTING again (partner shows COLLECTING too: DISTRIBUTING). */
    lacp_sim_run_until(s, S(105));
    pdu = pdu_seeing(s, 0x1F);
    lacp_sim_deliver(s, 0, &pdu);
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
    struct lacp_sim *s = pair_with_delay(true, d, coupled, coupled);
    struct lacp_sim_end *e = &s->e[0];
    enum zvs_lacp_mux_state formed = coupled ? ZVS_LACP_MUX_COLLECTING_DISTRIBUTING
                                             : ZVS_LACP_MUX_DISTRIBUTING;
    enum zvs_lacp_mux_state coll = coupled ? ZVS_LACP_MUX_ATTACHED : ZVS_LACP_MUX_COLLECTING;
    unsigned n;

    lacp_sim_run_until(s, S(10));
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
    struct lacp_sim *s = pair_with_delay(true, d, false, true);

    (void)st;
    lacp_sim_run_until(s, S(2) + 2 * d);
    check_mux(&s->e[0], ZVS_LACP_MUX_COLLECTING, true, false);
    check_mux(&s->e[1], ZVS_LACP_MUX_COLLECTING_DISTRIBUTING, true, true);
    lacp_sim_run_until(s, S(2) + 3 * d - 1);
    check_mux(&s->e[0], ZVS_LACP_MUX_COLLECTING, true, false);
    lacp_sim_run_until(s, S(2) + 3 * d);
    check_mux(&s->e[0], ZVS_LACP_MUX_DISTRIBUTING, true, true);
    lacp_sim_run_until(s, S(100));
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
    struct lacp_sim *s = lacp_sim_new();
    struct zvs_lacp_port_cfg c = lacp_sim_cfg(0, true, true);
    struct lacp_sim_end *e = &s->e[0];
    struct zvs_lacpdu pdu;
    unsigned t;

    (void)st;
    lacp_sim_init_end(s, 0, &c);
    for (t = 1; t <= 5; t++) {
        lacp_sim_run_until(s, S(t));
        pdu = pdu_seeing(s, 0x1F);
        lacp_sim_deliver(s, 0, &pdu);
    }
    check_mux(e, ZVS_LACP_MUX_DISTRIBUTING, true, true);
    assert_int_equal(e->nlog, 3);
    lacp_sim_run_until(s, S(6));
    pdu = pdu_seeing(s, 0x1F);
    pdu.actor.key = 6;
    lacp_sim_deliver(s, 0, &pdu);
    assert_int_equal(zvs_lacp_port_selected(&e->port), ZVS_LACP_SELECTED);
    check_mux(e, ZVS_LACP_MUX_WAITING, false, false);
    assert_int_equal(e->nlog, 6);
    check_ev(e, 3, 'D', false, S(6), ZVS_LACP_MUX_COLLECTING);
    check_ev(e, 4, 'C', false, S(6), ZVS_LACP_MUX_ATTACHED);
    check_ev(e, 5, 'A', false, S(6), ZVS_LACP_MUX_DETACHED);
    assert_int_equal(zvs_lacp_port_next_wakeup(&e->port), S(7));   /* fast periodic first */
    lacp_sim_run_until(s, S(7));
    pdu = pdu_seeing(s, 0x1F);
    pdu.actor.key = 6;
    lacp_sim_deliver(s, 0, &pdu);
    lacp_sim_run_until(s, S(8) - 1);
    check_mux(e, ZVS_LACP_MUX_WAITING, false, false);
    lacp_sim_run_until(s, S(8));
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
