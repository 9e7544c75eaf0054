/* One aggregation port's LACP engine: the driver (IEEE 802.1AX-2008 5.4 / 802.1AX-2014
 * 6.4: variables 5.4.7/6.4.7, timers 5.4.4/6.4.4, state machines 5.4.12-5.4.17 /
 * 6.4.12-6.4.17).
 *
 * Owns: init/fini, the public entry points that run the machines (run, set_enabled; rx is
 * in rx.c), the fixed-point driver, the single transition hook, next_wakeup, timers_left,
 * the getters and the state names. Each machine lives in its own file: rx.c (Receive),
 * periodic.c (Periodic Transmission), selection.c (Selection), mux.c (Mux, independent and
 * coupled control), transmit.c (Transmit, 3-per-second limit, tx fault knobs), churn.c
 * (Actor/Partner Churn Detection); lacp_internal.h is their private interface. No I/O, no
 * clock, no allocation: `now` (ns) comes in, PDUs and attach/collecting/distributing go
 * out through callbacks.
 *
 * Rules:
 *  - Timers are absolute deadlines; a timer has expired when now >= deadline.
 *  - Each machine has one step function (a switch on its state, deciding the next state) and
 *    one entry function (a switch doing the entry actions); every change of state goes
 *    through zvs_lacp_transition, the single hook that counts and reports.
 *  - The driver loops Receive -> Periodic -> Selection -> Mux -> Churn until no machine
 *    moves (Linux order, but to a fixed point so one call settles, e.g. DETACHED -> WAITING
 *    right after selection, or DISTRIBUTING -> COLLECTING -> ATTACHED), then releases due
 *    delayed PDUs and runs Transmit once: at most one LACPDU built per call.
 *  - Mux: independent control by default, coupled with cfg.coupled_mux (see mux.c).
 * Hazards: callbacks must not call back into the same engine (asserted: in_call). The
 * fixed-point loop is bounded (assert): every cycle in the machines needs a timer or input.
 */
#include "lacp/lacp_port.h"

#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "lacp/lacp_internal.h"

#define MAX_PASSES 32                   /* fixed-point loop bound; 8 suffices in practice */

/* ---- names ----------------------------------------------------------------------------- */

static const char *const machine_names[ZVS_LACP_MACHINE_COUNT] = {
    "rx", "ptx", "selection", "mux", "actor_churn", "partner_churn",
};
static const char *const rx_names[] = {
    "INITIALIZE", "PORT_DISABLED", "LACP_DISABLED", "EXPIRED", "DEFAULTED", "CURRENT",
};
static const char *const ptx_names[] = {
    "NO_PERIODIC", "FAST_PERIODIC", "SLOW_PERIODIC", "PERIODIC_TX",
};
static const char *const sel_names[] = { "UNSELECTED", "SELECTED", "STANDBY" };
static const char *const mux_names[] = {
    "DETACHED", "WAITING", "ATTACHED", "COLLECTING_DISTRIBUTING", "COLLECTING", "DISTRIBUTING",
};
static const char *const churn_names[] = { "NO_CHURN", "CHURN_MONITOR", "CHURN" };

const char *zvs_lacp_machine_name(enum zvs_lacp_machine m)
{
    if ((unsigned)m >= ZVS_LACP_MACHINE_COUNT)
        return "?";
    return machine_names[m];
}

const char *zvs_lacp_state_name(enum zvs_lacp_machine m, int state)
{
    const char *const *names = NULL;
    unsigned n = 0;

    switch (m) {
    case ZVS_LACP_MACHINE_RX:
        names = rx_names; n = sizeof(rx_names) / sizeof(rx_names[0]);
        break;
    case ZVS_LACP_MACHINE_PTX:
        names = ptx_names; n = sizeof(ptx_names) / sizeof(ptx_names[0]);
        break;
    case ZVS_LACP_MACHINE_SELECTION:
        names = sel_names; n = sizeof(sel_names) / sizeof(sel_names[0]);
        break;
    case ZVS_LACP_MACHINE_MUX:
        names = mux_names; n = sizeof(mux_names) / sizeof(mux_names[0]);
        break;
    case ZVS_LACP_MACHINE_ACTOR_CHURN:
    case ZVS_LACP_MACHINE_PARTNER_CHURN:
        names = churn_names; n = sizeof(churn_names) / sizeof(churn_names[0]);
        break;
    default:
        return "?";
    }
    if (state < 0 || (unsigned)state >= n)
        return "?";
    return names[state];
}

/* ---- driver ---------------------------------------------------------------------------- */

void zvs_lacp_transition(struct zvs_lacp_port *p, enum zvs_lacp_machine m, int from, int to,
                         uint64_t now)
{
    if (from == to)
        return;
    p->stats.transitions++;
    if (p->cb.transition)
        p->cb.transition(p->arg, m, from, to, now);
}

void zvs_lacp_machines_run(struct zvs_lacp_port *p, uint64_t now)
{
    unsigned pass;

    for (pass = 0;; pass++) {
        bool moved = false;

        assert(pass < MAX_PASSES);
        moved |= zvs_lacp_rx_step(p, now);
        moved |= zvs_lacp_ptx_step(p, now);
        moved |= zvs_lacp_select_step(p, now);
        moved |= zvs_lacp_mux_step(p, now);
        moved |= zvs_lacp_churn_step(p, ZVS_LACP_MACHINE_ACTOR_CHURN, now);
        moved |= zvs_lacp_churn_step(p, ZVS_LACP_MACHINE_PARTNER_CHURN, now);
        if (!moved)
            break;
    }
    zvs_lacp_tx_release_delayed(p, now, false);    /* older PDUs leave before a new one */
    zvs_lacp_tx_run(p, now);
}

int zvs_lacp_port_init(struct zvs_lacp_port *p, const struct zvs_lacp_port_cfg *cfg,
                       const struct zvs_lacp_port_cb *cb, void *arg, uint64_t now)
{
    if (!p || !cfg || !cb || !cb->send || cfg->port == 0)
        return -EINVAL;
    memset(p, 0, sizeof(*p));
    p->cfg = *cfg;
    p->cb = *cb;
    p->arg = arg;
    if (cfg->aggregator) {
        p->agg = cfg->aggregator;
    } else {
        zvs_lacp_aggregator_init(&p->own_agg, cfg->key);
        p->agg = &p->own_agg;
    }
    p->actor.system_priority = cfg->system_priority;
    memcpy(p->actor.system, cfg->system, sizeof(p->actor.system));
    p->actor.key = cfg->key;
    p->actor.port_priority = cfg->port_priority;
    p->actor.port = cfg->port;
    p->actor.state = ZVS_LACP_STATE_AGGREGATION;
    zvs_lacp_set_bits(&p->actor.state, ZVS_LACP_STATE_ACTIVITY, cfg->active);
    zvs_lacp_set_bits(&p->actor.state, ZVS_LACP_STATE_TIMEOUT, cfg->fast);
    p->port_enabled = cfg->enabled;

    /* BEGIN: every machine to its initial state (no transitions counted). */
    p->in_call = true;
    p->rx = ZVS_LACP_RX_INITIALIZE;
    zvs_lacp_rx_enter(p, ZVS_LACP_RX_INITIALIZE, NULL, now);
    p->ptx = ZVS_LACP_PTX_NO_PERIODIC;
    p->selected = ZVS_LACP_UNSELECTED;
    zvs_lacp_mux_begin(p, now);
    p->actor_churn = ZVS_LACP_CHURN_MONITOR;
    p->partner_churn = ZVS_LACP_CHURN_MONITOR;
    p->actor_churn_timer = zvs_lacp_deadline_after(now, ZVS_LACP_CHURN_DETECTION_NS);
    p->partner_churn_timer = p->actor_churn_timer;
    zvs_lacp_machines_run(p, now);
    p->in_call = false;
    return 0;
}

void zvs_lacp_port_fini(struct zvs_lacp_port *p, uint64_t now)
{
    assert(p && !p->in_call);
    zvs_lacp_port_set_enabled(p, false, now);   /* PORT_DISABLED: unselected, detached */
    assert(p->selected == ZVS_LACP_UNSELECTED && p->mux == ZVS_LACP_MUX_DETACHED);
}

/* Linux bonding sends the same farewell when a slave is unbound; 802.1AX has no leave
 * event of its own, so it is modelled as the Aggregation Port ceasing to be aggregatable
 * while its link is still up: the actor Aggregation bit clears (Individual, 6.4.2.3), the
 * port is UNSELECTED (Selection, 6.4.14; selection.c never selects an Individual actor),
 * and the machines run. The Mux detaches in that same run (6.4.15: distributing(false),
 * collecting(false), attach(false), SYNC/COL/DIS clear, NTT), so nothing of ours uses the
 * link before the partner is told, and Transmit (6.4.16) sends the result last, as in any
 * run. Only then does the carrier go (fini), so the port sends nothing more. */
int zvs_lacp_port_leave(struct zvs_lacp_port *p, uint64_t now)
{
    int rc;

    assert(p && !p->in_call);
    p->in_call = true;
    zvs_lacp_set_bits(&p->actor.state, ZVS_LACP_STATE_AGGREGATION, false);
    zvs_lacp_select_set(p, ZVS_LACP_UNSELECTED, now);
    /* Even a port that never attached (WAITING, DETACHED) may have told the partner it is
     * aggregatable: the partner hears the change whatever the Mux did. */
    p->ntt = true;
    zvs_lacp_machines_run(p, now);
    if (!p->ntt)
        rc = 0;                         /* built: Transmit cleared NTT */
    else if (zvs_lacp_tx_may_send(p))
        rc = -EAGAIN;                   /* held back by the 3-per-second limit */
    else
        rc = -ENETDOWN;
    p->in_call = false;
    zvs_lacp_port_fini(p, now);
    return rc;
}

void zvs_lacp_port_set_enabled(struct zvs_lacp_port *p, bool enabled, uint64_t now)
{
    assert(p && !p->in_call);
    p->in_call = true;
    p->port_enabled = enabled;
    zvs_lacp_machines_run(p, now);
    p->in_call = false;
}

void zvs_lacp_port_run(struct zvs_lacp_port *p, uint64_t now)
{
    assert(p && !p->in_call);
    p->in_call = true;
    zvs_lacp_machines_run(p, now);
    p->in_call = false;
}

/* ---- timers ---------------------------------------------------------------------------- */

/* The running timers' deadlines, ZVS_LACP_NEVER for one that is not running. */
static void deadlines(const struct zvs_lacp_port *p, struct zvs_lacp_timers_left *d)
{
    d->current_while = (p->rx == ZVS_LACP_RX_CURRENT || p->rx == ZVS_LACP_RX_EXPIRED)
                       ? p->current_while : ZVS_LACP_NEVER;
    d->periodic = (p->ptx == ZVS_LACP_PTX_FAST_PERIODIC || p->ptx == ZVS_LACP_PTX_SLOW_PERIODIC)
                  ? p->periodic : ZVS_LACP_NEVER;
    d->wait_while = (p->mux == ZVS_LACP_MUX_WAITING && p->selected == ZVS_LACP_SELECTED)
                    ? zvs_lacp_mux_wait_deadline(p) : ZVS_LACP_NEVER;
    d->actor_churn = (p->port_enabled && p->actor_churn == ZVS_LACP_CHURN_MONITOR)
                     ? p->actor_churn_timer : ZVS_LACP_NEVER;
    d->partner_churn = (p->port_enabled && p->partner_churn == ZVS_LACP_CHURN_MONITOR)
                       ? p->partner_churn_timer : ZVS_LACP_NEVER;
}

uint64_t zvs_lacp_port_next_wakeup(const struct zvs_lacp_port *p)
{
    struct zvs_lacp_timers_left d;
    uint64_t t;

    assert(p);
    deadlines(p, &d);
    t = zvs_lacp_min_u64(d.current_while, d.periodic);
    t = zvs_lacp_min_u64(t, d.wait_while);
    t = zvs_lacp_min_u64(t, d.actor_churn);
    t = zvs_lacp_min_u64(t, d.partner_churn);
    if (zvs_lacp_tx_may_send(p))
        t = zvs_lacp_min_u64(t, zvs_lacp_tx_allowed_at(p));  /* NTT held by the rate limit */
    if (p->delay_len > 0)
        t = zvs_lacp_min_u64(t, p->delayq[p->delay_head].release_at);
    return t;
}

static uint64_t left(uint64_t deadline, uint64_t now)
{
    if (deadline == ZVS_LACP_NEVER)
        return ZVS_LACP_NEVER;
    return deadline > now ? deadline - now : 0;
}

void zvs_lacp_port_timers_left(const struct zvs_lacp_port *p, uint64_t now,
                               struct zvs_lacp_timers_left *out)
{
    struct zvs_lacp_timers_left d;

    assert(p && out);
    deadlines(p, &d);
    out->current_while = left(d.current_while, now);
    out->periodic = left(d.periodic, now);
    out->wait_while = left(d.wait_while, now);
    out->actor_churn = left(d.actor_churn, now);
    out->partner_churn = left(d.partner_churn, now);
}

/* ---- getters --------------------------------------------------------------------------- */

const struct zvs_lacp_info *zvs_lacp_port_actor(const struct zvs_lacp_port *p)
{
    return &p->actor;
}

const struct zvs_lacp_info *zvs_lacp_port_partner(const struct zvs_lacp_port *p)
{
    return &p->partner;
}

enum zvs_lacp_rx_state zvs_lacp_port_rx_state(const struct zvs_lacp_port *p)
{
    return p->rx;
}

enum zvs_lacp_ptx_state zvs_lacp_port_ptx_state(const struct zvs_lacp_port *p)
{
    return p->ptx;
}

enum zvs_lacp_selected zvs_lacp_port_selected(const struct zvs_lacp_port *p)
{
    return p->selected;
}

enum zvs_lacp_mux_state zvs_lacp_port_mux_state(const struct zvs_lacp_port *p)
{
    return p->mux;
}

enum zvs_lacp_churn_state zvs_lacp_port_actor_churn(const struct zvs_lacp_port *p)
{
    return p->actor_churn;
}

enum zvs_lacp_churn_state zvs_lacp_port_partner_churn(const struct zvs_lacp_port *p)
{
    return p->partner_churn;
}

const struct zvs_lacp_port_stats *zvs_lacp_port_stats(const struct zvs_lacp_port *p)
{
    return &p->stats;
}

const struct zvs_lacp_port_cfg *zvs_lacp_port_cfg(const struct zvs_lacp_port *p)
{
    return &p->cfg;
}

bool zvs_lacp_port_enabled(const struct zvs_lacp_port *p)
{
    return p->port_enabled;
}

bool zvs_lacp_port_is_collecting(const struct zvs_lacp_port *p)
{
    return p->mux == ZVS_LACP_MUX_COLLECTING || p->mux == ZVS_LACP_MUX_DISTRIBUTING ||
           p->mux == ZVS_LACP_MUX_COLLECTING_DISTRIBUTING;
}

bool zvs_lacp_port_is_distributing(const struct zvs_lacp_port *p)
{
    return p->mux == ZVS_LACP_MUX_DISTRIBUTING ||
           p->mux == ZVS_LACP_MUX_COLLECTING_DISTRIBUTING;
}
