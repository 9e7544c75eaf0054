/* Two-engine LACP simulator for unit tests: two engines back to back on virtual time.
 *
 * Owns: the wire between the ends (one ring of PDUs per direction, each with a delivery
 * time = send time + s->delay) and the per-end logs the tests assert on.
 * Rules: the engines are only ever run at their own next_wakeup or when a PDU arrives, and
 * received PDUs are applied before timers at one `now`, as the event loop does.
 * Hazards: the rings and logs are fixed-size; overflowing one is a cmocka failure, not a
 * silent wrap. The callbacks assert edge triggering and the enable/disable order
 * (attach before collecting before distributing, and the reverse to disable), so every test
 * that uses the simulator checks that order too. */
#include "lacp_sim.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

static void cb_send(void *arg, const struct zvs_lacpdu *pdu)
{
    struct lacp_sim_end *e = arg;
    struct lacp_sim *s = e->sim;
    int to = 1 - e->idx;

    assert_true(e->ntx < LACP_SIM_TXLOG);
    e->tx_at[e->ntx++] = s->now;
    e->last_tx = *pdu;
    if (s->e[to].live) {
        struct lacp_sim_msg *m;

        assert_true(s->qt[to] - s->qh[to] < LACP_SIM_QLEN);
        m = &s->q[to][s->qt[to] % LACP_SIM_QLEN];
        m->at = s->now + s->delay;
        m->pdu = *pdu;
        s->qt[to]++;
    }
}

static void log_ev(struct lacp_sim_end *e, char kind, bool on)
{
    struct lacp_sim_ev *ev;

    assert_true(e->nlog < LACP_SIM_LOGN);
    ev = &e->log[e->nlog++];
    ev->kind = kind;
    ev->on = on;
    ev->at = e->sim->now;
    ev->mux = zvs_lacp_port_mux_state(&e->port);
}

static void cb_attach(void *arg, bool on)
{
    struct lacp_sim_end *e = arg;

    assert_true(e->attached != on);             /* edge-triggered */
    e->attached = on;
    log_ev(e, 'A', on);
}

static void cb_coll(void *arg, bool on)
{
    struct lacp_sim_end *e = arg;

    assert_true(e->collecting != on);
    assert_true(on ? e->attached : !e->distributing);   /* order */
    e->collecting = on;
    log_ev(e, 'C', on);
}

static void cb_dist(void *arg, bool on)
{
    struct lacp_sim_end *e = arg;

    assert_true(e->distributing != on);
    if (on)
        assert_true(e->collecting);
    e->distributing = on;
    log_ev(e, 'D', on);
}

static void cb_transition(void *arg, enum zvs_lacp_machine m, int from, int to, uint64_t now)
{
    struct lacp_sim_end *e = arg;

    assert_int_not_equal(from, to);
    assert_string_not_equal(zvs_lacp_state_name(m, to), "?");
    if (m == ZVS_LACP_MACHINE_RX)
        e->rx_transitions++;
}

const struct zvs_lacp_port_cb lacp_sim_cbs = {
    .send = cb_send, .attach = cb_attach, .collecting = cb_coll, .distributing = cb_dist,
    .transition = cb_transition,
};

struct zvs_lacp_port_cfg lacp_sim_cfg(int idx, bool active, bool fast)
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

void lacp_sim_init_end(struct lacp_sim *s, int idx, const struct zvs_lacp_port_cfg *c)
{
    struct lacp_sim_end *e = &s->e[idx];

    e->sim = s;
    e->idx = idx;
    e->live = true;
    assert_int_equal(zvs_lacp_port_init(&e->port, c, &lacp_sim_cbs, e, s->now), 0);
}

struct lacp_sim *lacp_sim_new(void)
{
    struct lacp_sim *s = test_calloc(1, sizeof(*s));

    assert_non_null(s);
    s->e[0].sim = s;
    s->e[1].sim = s;
    s->e[1].idx = 1;
    return s;
}

void lacp_sim_note_queued(struct lacp_sim_end *e, uint64_t now)
{
    while (e->nqueued < zvs_lacp_port_stats(&e->port)->tx_delayed) {
        assert_true(e->nqueued < LACP_SIM_TXLOG);
        e->queued_at[e->nqueued++] = now;
    }
}

/* The head of the ring towards e[i], or NULL if it is empty. */
static const struct lacp_sim_msg *head(const struct lacp_sim *s, int i)
{
    return s->qh[i] != s->qt[i] ? &s->q[i][s->qh[i] % LACP_SIM_QLEN] : NULL;
}

/* The earliest instant anything happens: an engine wakeup or a PDU arrival. */
static uint64_t next_event(const struct lacp_sim *s)
{
    uint64_t t = UINT64_MAX;
    int i;

    for (i = 0; i < 2; i++) {
        const struct lacp_sim_msg *m = head(s, i);

        if (!s->e[i].live)
            continue;
        if (zvs_lacp_port_next_wakeup(&s->e[i].port) < t)
            t = zvs_lacp_port_next_wakeup(&s->e[i].port);
        if (m && m->at < t)
            t = m->at;
    }
    return t;
}

void lacp_sim_run_until(struct lacp_sim *s, uint64_t t_end)
{
    unsigned guard = 0;

    for (;;) {
        uint64_t t = next_event(s);
        const struct lacp_sim_msg *m;
        int i;

        assert_true(++guard < 100000);
        if (t > t_end)
            break;
        if (t > s->now)
            s->now = t;
        for (i = 0; i < 2; i++) {
            while ((m = head(s, i)) && m->at <= s->now) {
                struct zvs_lacpdu pdu = m->pdu;

                s->qh[i]++;
                zvs_lacp_port_rx(&s->e[i].port, &pdu, s->now);
                lacp_sim_note_queued(&s->e[i], s->now);
            }
        }
        for (i = 0; i < 2; i++) {
            if (s->e[i].live && zvs_lacp_port_next_wakeup(&s->e[i].port) <= s->now) {
                zvs_lacp_port_run(&s->e[i].port, s->now);
                lacp_sim_note_queued(&s->e[i], s->now);
            }
        }
    }
    s->now = t_end;
}

struct zvs_lacpdu lacp_sim_partner_pdu(uint8_t id, uint16_t pkey, uint8_t state)
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

void lacp_sim_deliver(struct lacp_sim *s, int to, const struct zvs_lacpdu *pdu)
{
    zvs_lacp_port_rx(&s->e[to].port, pdu, s->now);
}
