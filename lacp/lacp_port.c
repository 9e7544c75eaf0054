/* One aggregation port's LACP machines (IEEE 802.1AX 6.4; reference: shared/reference/lacp.md
 * sections 2-4).
 *
 * Owns: the actor and partner operational info of one port, the Receive, Periodic
 * Transmission, Selection, Mux (coupled control), Transmit and Actor/Partner Churn machines,
 * and the port's counters. No I/O, no clock, no allocation: `now` (ns) comes in, PDUs and
 * attach/collecting/distributing go out through callbacks.
 *
 * Rules:
 *  - Timers are absolute deadlines; a timer has expired when now >= deadline.
 *  - Each machine has one step function (a switch on its state, deciding the next state) and
 *    one entry function (a switch doing the entry actions); every change of state goes
 *    through transition(), the single hook that counts and reports.
 *  - run() loops Receive -> Periodic -> Selection -> Mux -> Churn until no machine moves
 *    (Linux order, but to a fixed point so one call settles, e.g. DETACHED -> WAITING right
 *    after selection), then runs Transmit once: at most one LACPDU per call.
 *  - Ordering at one `now`: zvs_lacp_port_rx applies the PDU first (Receive machine
 *    -> CURRENT, current_while restarted) and only then runs the machines. A PDU that is
 *    delivered at or after the current_while deadline, but before any run() processed that
 *    deadline, therefore wins: no false EXPIRED after an event-loop stall.
 *  - current_while: Short_Timeout_Time (3 s) if OUR timeout is fast, else Long (90 s);
 *    EXPIRED always waits Short_Timeout_Time (3 s) before DEFAULTED. Periodic interval follows
 *    the PARTNER's TIMEOUT bit; EXPIRED sets that bit locally so we send fast while recovering.
 *  - Transmit: NTT ∧ port enabled ∧ LACP_Enabled ∧ Periodic not NO_PERIODIC, and fewer than
 *    3 LACPDUs in the last Fast_Periodic_Time (ring of the last 3 send times; the 4th may go
 *    at oldest + 1 s). A held NTT stays set and sends the latest info when allowed.
 *  - Mux: coupled control (DETACHED, WAITING, ATTACHED, COLLECTING_DISTRIBUTING): the z/VM
 *    mapping in lacp.md section 6 suggests it, and it yields actor state 0x3D/0x3F.
 *  - Selection: one aggregator per port group (struct zvs_lacp_aggregator, shared by
 *    pointer). A port is SELECTED only if its actor key equals the aggregator's, the partner
 *    System ID is non-null and aggregatable, and, if the aggregator already has selected ports,
 *    partner System ID + partner key + speed equal the bound ones. No second aggregator: a port
 *    that does not match stays UNSELECTED (z/VM: one partner switch per group).
 *  - READY (all ports waited): the aggregator keeps ready_at, the latest wait_while deadline
 *    of ports that entered WAITING; a port leaves WAITING when now >= its own wait_while and
 *    now >= ready_at. A port that gives up WAITING does not shorten ready_at (conservative).
 *  - Partner admin defaults are all zero, state 0 (FreeBSD strict / OVS): a DEFAULTED port is
 *    never selected (no traffic without LACP agreement) and a passive port with a defaulted
 *    partner never transmits (passive-passive stays silent).
 *  - Port disabled (no carrier) -> PORT_DISABLED, which also makes the port UNSELECTED so
 *    the Mux detaches it at once.
 *  - Churn (802.1AX-2008 style): NO_CHURN -> CHURN_MONITOR when SYNC is lost (or at BEGIN,
 *    or while the port is disabled: timer held), CHURN after 60 s without SYNC, NO_CHURN
 *    when SYNC returns. Diagnostic only.
 *  - Fault knobs (struct zvs_lacp_faults) sit at the engine's wire edge: drop_rx in
 *    zvs_lacp_port_rx before anything else, drop_tx / delay_tx in tx_run after the PDU is
 *    built and the send recorded (NTT cleared, rate-limit ring updated), so the machines
 *    behave exactly as if the wire lost or delayed the PDU. The delay queue is a FIFO of
 *    ZVS_LACP_TX_DELAY_SLOTS, drained by machines_run before Transmit (older PDUs first).
 * Hazards: callbacks must not call back into the same engine (asserted: in_call). The
 * fixed-point loop is bounded (assert) — every cycle in the machines needs a timer or input.
 */
#include "lacp/lacp_port.h"

#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>

#define MAX_PASSES 32                   /* fixed-point loop bound; 8 suffices in practice */

static const uint8_t null_mac[6];

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
    "DETACHED", "WAITING", "ATTACHED", "COLLECTING_DISTRIBUTING",
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

/* ---- helpers --------------------------------------------------------------------------- */

/* The single transition hook: every state change of every machine passes here. */
static void transition(struct zvs_lacp_port *p, enum zvs_lacp_machine m, int from, int to,
                       uint64_t now)
{
    if (from == to)
        return;
    p->stats.transitions++;
    if (p->cb.transition)
        p->cb.transition(p->arg, m, from, to, now);
}

static bool expired(uint64_t deadline, uint64_t now)
{
    return now >= deadline;
}

static uint64_t deadline_after(uint64_t now, uint64_t ns)
{
    return now > UINT64_MAX - ns ? UINT64_MAX - 1 : now + ns;
}

static bool lacp_enabled(const struct zvs_lacp_port *p)
{
    return p->cfg.full_duplex;          /* LACP_Enabled: full duplex (802.1AX 6.4.7) */
}

static void set_bits(uint8_t *state, uint8_t bits, bool on)
{
    if (on)
        *state |= bits;
    else
        *state &= (uint8_t)~bits;
}

static bool actor_bit(const struct zvs_lacp_port *p, uint8_t bit)
{
    return (p->actor.state & bit) != 0;
}

static bool partner_bit(const struct zvs_lacp_port *p, uint8_t bit)
{
    return (p->partner.state & bit) != 0;
}

static void callback_attach(struct zvs_lacp_port *p, bool on)
{
    if (p->cb.attach)
        p->cb.attach(p->arg, on);
}

static void callback_collecting(struct zvs_lacp_port *p, bool on)
{
    if (p->cb.collecting)
        p->cb.collecting(p->arg, on);
}

static void callback_distributing(struct zvs_lacp_port *p, bool on)
{
    if (p->cb.distributing)
        p->cb.distributing(p->arg, on);
}

/* Port ID, System ID and key of two infos agree (the AGGREGATION bit is checked apart). */
static bool info_ids_equal(const struct zvs_lacp_info *a, const struct zvs_lacp_info *b)
{
    return a->port == b->port && a->port_priority == b->port_priority &&
           a->system_priority == b->system_priority &&
           memcmp(a->system, b->system, sizeof(a->system)) == 0 && a->key == b->key;
}

/* ---- selection ------------------------------------------------------------------------- */

void zvs_lacp_aggregator_init(struct zvs_lacp_aggregator *agg, uint16_t actor_key)
{
    assert(agg);
    memset(agg, 0, sizeof(*agg));
    agg->actor_key = actor_key;
}

static void select_set(struct zvs_lacp_port *p, enum zvs_lacp_selected s, uint64_t now)
{
    struct zvs_lacp_aggregator *agg = p->agg;
    enum zvs_lacp_selected from = p->selected;

    if (from == s)
        return;
    if (from == ZVS_LACP_UNSELECTED) {
        /* Joining: the first port binds the aggregator's LAG ID. */
        if (agg->selected_ports == 0) {
            agg->partner_system_priority = p->partner.system_priority;
            memcpy(agg->partner_system, p->partner.system, sizeof(agg->partner_system));
            agg->partner_key = p->partner.key;
            agg->speed_mbps = p->cfg.speed_mbps;
            agg->ready_at = 0;
        }
        agg->selected_ports++;
    } else if (s == ZVS_LACP_UNSELECTED) {
        assert(agg->selected_ports > 0);
        agg->selected_ports--;
    }
    p->selected = s;
    transition(p, ZVS_LACP_MACHINE_SELECTION, (int)from, (int)s, now);
}

/* May this port join its aggregator now? */
static bool select_matches(const struct zvs_lacp_port *p)
{
    const struct zvs_lacp_aggregator *agg = p->agg;

    if (!p->port_enabled || !lacp_enabled(p))
        return false;
    if (p->cfg.key != agg->actor_key)
        return false;
    if (memcmp(p->partner.system, null_mac, sizeof(null_mac)) == 0)
        return false;                   /* no partner (DEFAULTED, or never heard) */
    if (!partner_bit(p, ZVS_LACP_STATE_AGGREGATION))
        return false;                   /* partner Individual: no aggregation */
    if (agg->selected_ports == 0)
        return true;
    return agg->partner_system_priority == p->partner.system_priority &&
           memcmp(agg->partner_system, p->partner.system, sizeof(agg->partner_system)) == 0 &&
           agg->partner_key == p->partner.key && agg->speed_mbps == p->cfg.speed_mbps;
}

static bool select_step(struct zvs_lacp_port *p, uint64_t now)
{
    switch (p->selected) {
    case ZVS_LACP_UNSELECTED:
        /* Re-select only once the Mux has seen UNSELECTED and detached. */
        if (p->mux == ZVS_LACP_MUX_DETACHED && select_matches(p)) {
            select_set(p, ZVS_LACP_SELECTED, now);
            return true;
        }
        return false;
    case ZVS_LACP_SELECTED:
    case ZVS_LACP_STANDBY:
        return false;                   /* leaving is driven by rx (update_selected etc.) */
    }
    assert(!"bad selected");
    return false;
}

/* ---- receive machine ------------------------------------------------------------------- */

static void record_default(struct zvs_lacp_port *p)
{
    memset(&p->partner, 0, sizeof(p->partner));   /* partner admin defaults: all zero */
    set_bits(&p->actor.state, ZVS_LACP_STATE_DEFAULTED, true);
}

/* update_selected: the partner in the PDU is not the one we selected with. */
static void update_selected(struct zvs_lacp_port *p, const struct zvs_lacpdu *pdu, uint64_t now)
{
    if (!info_ids_equal(&pdu->actor, &p->partner) ||
        ((pdu->actor.state ^ p->partner.state) & ZVS_LACP_STATE_AGGREGATION))
        select_set(p, ZVS_LACP_UNSELECTED, now);
}

/* update_ntt: the partner's view of us is stale. */
static void update_ntt(struct zvs_lacp_port *p, const struct zvs_lacpdu *pdu)
{
    const uint8_t bits = ZVS_LACP_STATE_ACTIVITY | ZVS_LACP_STATE_TIMEOUT |
                         ZVS_LACP_STATE_SYNC | ZVS_LACP_STATE_AGGREGATION;

    if (!info_ids_equal(&pdu->partner, &p->actor) ||
        ((pdu->partner.state ^ p->actor.state) & bits))
        p->ntt = true;
}

static void record_pdu(struct zvs_lacp_port *p, const struct zvs_lacpdu *pdu)
{
    bool matched = (info_ids_equal(&pdu->partner, &p->actor) &&
                    !((pdu->partner.state ^ p->actor.state) & ZVS_LACP_STATE_AGGREGATION)) ||
                   !(pdu->actor.state & ZVS_LACP_STATE_AGGREGATION);
    bool sync = matched && (pdu->actor.state & ZVS_LACP_STATE_SYNC) &&
                ((pdu->actor.state & ZVS_LACP_STATE_ACTIVITY) ||
                 actor_bit(p, ZVS_LACP_STATE_ACTIVITY));

    p->partner = pdu->actor;
    set_bits(&p->partner.state, ZVS_LACP_STATE_SYNC, sync);
    set_bits(&p->actor.state, ZVS_LACP_STATE_DEFAULTED, false);
}

static void rx_enter(struct zvs_lacp_port *p, enum zvs_lacp_rx_state s,
                     const struct zvs_lacpdu *pdu, uint64_t now)
{
    enum zvs_lacp_rx_state from = p->rx;

    p->rx = s;
    transition(p, ZVS_LACP_MACHINE_RX, (int)from, (int)s, now);
    switch (s) {
    case ZVS_LACP_RX_INITIALIZE:
        select_set(p, ZVS_LACP_UNSELECTED, now);
        record_default(p);
        set_bits(&p->actor.state, ZVS_LACP_STATE_EXPIRED, false);
        break;
    case ZVS_LACP_RX_PORT_DISABLED:
        set_bits(&p->partner.state, ZVS_LACP_STATE_SYNC, false);
        select_set(p, ZVS_LACP_UNSELECTED, now);      /* carrier lost: detach at once */
        break;
    case ZVS_LACP_RX_LACP_DISABLED:
        select_set(p, ZVS_LACP_UNSELECTED, now);
        record_default(p);
        set_bits(&p->partner.state, ZVS_LACP_STATE_AGGREGATION, false);
        set_bits(&p->actor.state, ZVS_LACP_STATE_EXPIRED, false);
        break;
    case ZVS_LACP_RX_EXPIRED:
        set_bits(&p->partner.state, ZVS_LACP_STATE_SYNC, false);
        set_bits(&p->partner.state, ZVS_LACP_STATE_TIMEOUT, true);  /* send fast meanwhile */
        p->current_while = deadline_after(now, ZVS_LACP_SHORT_TIMEOUT_NS);
        set_bits(&p->actor.state, ZVS_LACP_STATE_EXPIRED, true);
        p->stats.expired++;
        break;
    case ZVS_LACP_RX_DEFAULTED:
        /* update_default_selected: admin defaults differ from a real partner. */
        if (memcmp(p->partner.system, null_mac, sizeof(null_mac)) != 0)
            select_set(p, ZVS_LACP_UNSELECTED, now);
        record_default(p);
        set_bits(&p->actor.state, ZVS_LACP_STATE_EXPIRED, false);
        p->stats.defaulted++;
        break;
    case ZVS_LACP_RX_CURRENT:
        assert(pdu);
        update_selected(p, pdu, now);
        update_ntt(p, pdu);
        record_pdu(p, pdu);
        p->current_while = deadline_after(now, p->cfg.fast ? ZVS_LACP_SHORT_TIMEOUT_NS
                                                           : ZVS_LACP_LONG_TIMEOUT_NS);
        set_bits(&p->actor.state, ZVS_LACP_STATE_EXPIRED, false);
        break;
    }
}

static bool rx_step(struct zvs_lacp_port *p, uint64_t now)
{
    enum zvs_lacp_rx_state next = p->rx;

    switch (p->rx) {
    case ZVS_LACP_RX_INITIALIZE:
        next = ZVS_LACP_RX_PORT_DISABLED;
        break;
    case ZVS_LACP_RX_PORT_DISABLED:
        if (p->port_enabled)
            next = lacp_enabled(p) ? ZVS_LACP_RX_EXPIRED : ZVS_LACP_RX_LACP_DISABLED;
        break;
    case ZVS_LACP_RX_LACP_DISABLED:
    case ZVS_LACP_RX_DEFAULTED:
        if (!p->port_enabled)
            next = ZVS_LACP_RX_PORT_DISABLED;
        break;
    case ZVS_LACP_RX_EXPIRED:
        if (!p->port_enabled)
            next = ZVS_LACP_RX_PORT_DISABLED;
        else if (expired(p->current_while, now))
            next = ZVS_LACP_RX_DEFAULTED;
        break;
    case ZVS_LACP_RX_CURRENT:
        if (!p->port_enabled)
            next = ZVS_LACP_RX_PORT_DISABLED;
        else if (expired(p->current_while, now))
            next = ZVS_LACP_RX_EXPIRED;
        break;
    }
    if (next == p->rx)
        return false;
    rx_enter(p, next, NULL, now);
    return true;
}

/* ---- periodic transmission machine ----------------------------------------------------- */

static bool ptx_may_run(const struct zvs_lacp_port *p)
{
    return p->port_enabled && lacp_enabled(p) &&
           (actor_bit(p, ZVS_LACP_STATE_ACTIVITY) || partner_bit(p, ZVS_LACP_STATE_ACTIVITY));
}

static void ptx_enter(struct zvs_lacp_port *p, enum zvs_lacp_ptx_state s, uint64_t now)
{
    enum zvs_lacp_ptx_state from = p->ptx;

    p->ptx = s;
    transition(p, ZVS_LACP_MACHINE_PTX, (int)from, (int)s, now);
    switch (s) {
    case ZVS_LACP_PTX_NO_PERIODIC:
        break;
    case ZVS_LACP_PTX_FAST_PERIODIC:
        p->periodic = deadline_after(now, ZVS_LACP_FAST_PERIODIC_NS);
        break;
    case ZVS_LACP_PTX_SLOW_PERIODIC:
        p->periodic = deadline_after(now, ZVS_LACP_SLOW_PERIODIC_NS);
        break;
    case ZVS_LACP_PTX_PERIODIC_TX:
        p->ntt = true;
        break;
    }
}

static bool ptx_step(struct zvs_lacp_port *p, uint64_t now)
{
    bool partner_short = partner_bit(p, ZVS_LACP_STATE_TIMEOUT);
    enum zvs_lacp_ptx_state next = p->ptx;

    switch (p->ptx) {
    case ZVS_LACP_PTX_NO_PERIODIC:
        if (ptx_may_run(p))
            next = ZVS_LACP_PTX_FAST_PERIODIC;
        break;
    case ZVS_LACP_PTX_FAST_PERIODIC:
        if (!ptx_may_run(p))
            next = ZVS_LACP_PTX_NO_PERIODIC;
        else if (!partner_short)
            next = ZVS_LACP_PTX_SLOW_PERIODIC;
        else if (expired(p->periodic, now))
            next = ZVS_LACP_PTX_PERIODIC_TX;
        break;
    case ZVS_LACP_PTX_SLOW_PERIODIC:
        if (!ptx_may_run(p))
            next = ZVS_LACP_PTX_NO_PERIODIC;
        else if (partner_short || expired(p->periodic, now))
            next = ZVS_LACP_PTX_PERIODIC_TX;    /* partner went fast: don't wait 30 s */
        break;
    case ZVS_LACP_PTX_PERIODIC_TX:
        if (!ptx_may_run(p))
            next = ZVS_LACP_PTX_NO_PERIODIC;
        else
            next = partner_short ? ZVS_LACP_PTX_FAST_PERIODIC : ZVS_LACP_PTX_SLOW_PERIODIC;
        break;
    }
    if (next == p->ptx)
        return false;
    ptx_enter(p, next, now);
    return true;
}

/* ---- mux machine (coupled control) ----------------------------------------------------- */

static uint64_t mux_wait_deadline(const struct zvs_lacp_port *p)
{
    return p->wait_while > p->agg->ready_at ? p->wait_while : p->agg->ready_at;
}

static void mux_enter(struct zvs_lacp_port *p, enum zvs_lacp_mux_state s, uint64_t now)
{
    enum zvs_lacp_mux_state from = p->mux;
    const uint8_t cd = ZVS_LACP_STATE_COLLECTING | ZVS_LACP_STATE_DISTRIBUTING;

    p->mux = s;
    transition(p, ZVS_LACP_MACHINE_MUX, (int)from, (int)s, now);
    switch (s) {
    case ZVS_LACP_MUX_DETACHED:
        if (from == ZVS_LACP_MUX_ATTACHED)
            callback_attach(p, false);
        set_bits(&p->actor.state, ZVS_LACP_STATE_SYNC | cd, false);
        p->ntt = true;
        break;
    case ZVS_LACP_MUX_WAITING:
        p->wait_while = deadline_after(now, ZVS_LACP_AGGREGATE_WAIT_NS);
        if (p->wait_while > p->agg->ready_at)
            p->agg->ready_at = p->wait_while;
        break;
    case ZVS_LACP_MUX_ATTACHED:
        if (from == ZVS_LACP_MUX_WAITING)
            callback_attach(p, true);
        if (from == ZVS_LACP_MUX_COLLECTING_DISTRIBUTING) {
            callback_distributing(p, false);    /* stop sending before refusing input */
            callback_collecting(p, false);
        }
        set_bits(&p->actor.state, ZVS_LACP_STATE_SYNC, true);  /* the one aggregator is active */
        set_bits(&p->actor.state, cd, false);
        p->ntt = true;
        break;
    case ZVS_LACP_MUX_COLLECTING_DISTRIBUTING:
        set_bits(&p->actor.state, cd, true);
        callback_collecting(p, true);
        callback_distributing(p, true);
        p->ntt = true;
        break;
    }
}

static bool mux_step(struct zvs_lacp_port *p, uint64_t now)
{
    enum zvs_lacp_mux_state next = p->mux;

    switch (p->mux) {
    case ZVS_LACP_MUX_DETACHED:
        if (p->selected != ZVS_LACP_UNSELECTED)
            next = ZVS_LACP_MUX_WAITING;
        break;
    case ZVS_LACP_MUX_WAITING:
        if (p->selected == ZVS_LACP_UNSELECTED)
            next = ZVS_LACP_MUX_DETACHED;
        else if (p->selected == ZVS_LACP_SELECTED && expired(mux_wait_deadline(p), now))
            next = ZVS_LACP_MUX_ATTACHED;
        break;
    case ZVS_LACP_MUX_ATTACHED:
        if (p->selected != ZVS_LACP_SELECTED)
            next = ZVS_LACP_MUX_DETACHED;
        else if (partner_bit(p, ZVS_LACP_STATE_SYNC))
            next = ZVS_LACP_MUX_COLLECTING_DISTRIBUTING;
        break;
    case ZVS_LACP_MUX_COLLECTING_DISTRIBUTING:
        if (p->selected != ZVS_LACP_SELECTED || !partner_bit(p, ZVS_LACP_STATE_SYNC))
            next = ZVS_LACP_MUX_ATTACHED;
        break;
    }
    if (next == p->mux)
        return false;
    mux_enter(p, next, now);
    return true;
}

/* ---- churn detection ------------------------------------------------------------------- */

static bool churn_step(struct zvs_lacp_port *p, enum zvs_lacp_machine m, uint64_t now)
{
    bool actor = m == ZVS_LACP_MACHINE_ACTOR_CHURN;
    enum zvs_lacp_churn_state *state = actor ? &p->actor_churn : &p->partner_churn;
    uint64_t *timer = actor ? &p->actor_churn_timer : &p->partner_churn_timer;
    bool sync = actor ? actor_bit(p, ZVS_LACP_STATE_SYNC) : partner_bit(p, ZVS_LACP_STATE_SYNC);
    enum zvs_lacp_churn_state from = *state, next = from;

    if (!p->port_enabled) {
        /* Held in CHURN_MONITOR, timer restarted: no churn counted while disabled. */
        *timer = deadline_after(now, ZVS_LACP_CHURN_DETECTION_NS);
        next = ZVS_LACP_CHURN_MONITOR;
    } else {
        switch (from) {
        case ZVS_LACP_NO_CHURN:
            if (!sync)
                next = ZVS_LACP_CHURN_MONITOR;
            break;
        case ZVS_LACP_CHURN_MONITOR:
            if (sync)
                next = ZVS_LACP_NO_CHURN;
            else if (expired(*timer, now))
                next = ZVS_LACP_CHURN;
            break;
        case ZVS_LACP_CHURN:
            if (sync)
                next = ZVS_LACP_NO_CHURN;
            break;
        }
    }
    if (next == from)
        return false;
    *state = next;
    transition(p, m, (int)from, (int)next, now);
    switch (next) {
    case ZVS_LACP_NO_CHURN:
        break;
    case ZVS_LACP_CHURN_MONITOR:
        *timer = deadline_after(now, ZVS_LACP_CHURN_DETECTION_NS);
        break;
    case ZVS_LACP_CHURN:
        if (actor)
            p->stats.actor_churn_count++;
        else
            p->stats.partner_churn_count++;
        break;
    }
    return true;
}

/* ---- transmit machine ------------------------------------------------------------------ */

static bool tx_may_send(const struct zvs_lacp_port *p)
{
    return p->ntt && p->port_enabled && lacp_enabled(p) && p->ptx != ZVS_LACP_PTX_NO_PERIODIC;
}

/* Earliest time the rate limit lets the next LACPDU go. */
static uint64_t tx_allowed_at(const struct zvs_lacp_port *p)
{
    if (p->tx_count < ZVS_LACP_TX_PER_FAST_PERIOD)
        return 0;
    return deadline_after(p->tx_times[p->tx_next], ZVS_LACP_FAST_PERIODIC_NS);
}

/* ---- fault knob: delay queue ------------------------------------------------------------ */

static void delay_push(struct zvs_lacp_port *p, const struct zvs_lacpdu *pdu, uint64_t now)
{
    struct zvs_lacp_delayed_pdu *d;

    if (p->delay_len == ZVS_LACP_TX_DELAY_SLOTS) {
        p->stats.tx_delay_overflow++;
        return;
    }
    d = &p->delayq[(p->delay_head + p->delay_len) % ZVS_LACP_TX_DELAY_SLOTS];
    d->release_at = deadline_after(now, p->faults.delay_tx_ns);
    d->pdu = *pdu;
    p->delay_len++;
    p->stats.tx_delayed++;
}

/* Sends queued PDUs in order while the oldest is due (or all of them if `all`). */
static void delay_release(struct zvs_lacp_port *p, uint64_t now, bool all)
{
    while (p->delay_len > 0) {
        struct zvs_lacp_delayed_pdu *d = &p->delayq[p->delay_head];

        if (!all && !expired(d->release_at, now))
            break;
        p->delay_head = (p->delay_head + 1) % ZVS_LACP_TX_DELAY_SLOTS;
        p->delay_len--;
        p->stats.lacpdus_tx++;
        p->cb.send(p->arg, &d->pdu);    /* slot already free: send may not re-enter anyway */
    }
}

static void tx_run(struct zvs_lacp_port *p, uint64_t now)
{
    struct zvs_lacpdu pdu;

    if (!tx_may_send(p))
        return;
    if (!expired(tx_allowed_at(p), now)) {
        p->stats.tx_rate_limited++;
        return;
    }
    memset(&pdu, 0, sizeof(pdu));
    pdu.version = ZVS_LACP_VERSION;
    pdu.actor = p->actor;
    pdu.partner = p->partner;
    pdu.collector_max_delay = 0;
    p->tx_times[p->tx_next] = now;
    p->tx_next = (p->tx_next + 1) % ZVS_LACP_TX_PER_FAST_PERIOD;
    if (p->tx_count < ZVS_LACP_TX_PER_FAST_PERIOD)
        p->tx_count++;
    p->ntt = false;
    if (p->faults.drop_tx) {
        p->stats.tx_dropped_by_knob++;
        return;
    }
    if (p->faults.delay_tx_ns > 0 || p->delay_len > 0) {
        delay_push(p, &pdu, now);
        return;
    }
    p->stats.lacpdus_tx++;
    p->cb.send(p->arg, &pdu);
}

/* ---- driver ---------------------------------------------------------------------------- */

static void machines_run(struct zvs_lacp_port *p, uint64_t now)
{
    unsigned pass;

    for (pass = 0;; pass++) {
        bool moved = false;

        assert(pass < MAX_PASSES);
        moved |= rx_step(p, now);
        moved |= ptx_step(p, now);
        moved |= select_step(p, now);
        moved |= mux_step(p, now);
        moved |= churn_step(p, ZVS_LACP_MACHINE_ACTOR_CHURN, now);
        moved |= churn_step(p, ZVS_LACP_MACHINE_PARTNER_CHURN, now);
        if (!moved)
            break;
    }
    delay_release(p, now, false);       /* older PDUs leave before a new one is built */
    tx_run(p, now);
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
    set_bits(&p->actor.state, ZVS_LACP_STATE_ACTIVITY, cfg->active);
    set_bits(&p->actor.state, ZVS_LACP_STATE_TIMEOUT, cfg->fast);
    p->port_enabled = cfg->enabled;

    /* BEGIN: every machine to its initial state (no transitions counted). */
    p->in_call = true;
    p->rx = ZVS_LACP_RX_INITIALIZE;
    rx_enter(p, ZVS_LACP_RX_INITIALIZE, NULL, now);
    p->ptx = ZVS_LACP_PTX_NO_PERIODIC;
    p->selected = ZVS_LACP_UNSELECTED;
    p->mux = ZVS_LACP_MUX_DETACHED;
    mux_enter(p, ZVS_LACP_MUX_DETACHED, now);
    p->actor_churn = ZVS_LACP_CHURN_MONITOR;
    p->partner_churn = ZVS_LACP_CHURN_MONITOR;
    p->actor_churn_timer = deadline_after(now, ZVS_LACP_CHURN_DETECTION_NS);
    p->partner_churn_timer = p->actor_churn_timer;
    machines_run(p, now);
    p->in_call = false;
    return 0;
}

void zvs_lacp_port_fini(struct zvs_lacp_port *p, uint64_t now)
{
    assert(p && !p->in_call);
    zvs_lacp_port_set_enabled(p, false, now);   /* PORT_DISABLED: unselected, detached */
    assert(p->selected == ZVS_LACP_UNSELECTED && p->mux == ZVS_LACP_MUX_DETACHED);
}

void zvs_lacp_port_rx(struct zvs_lacp_port *p, const struct zvs_lacpdu *pdu, uint64_t now)
{
    assert(p && pdu && !p->in_call);
    if (p->faults.drop_rx) {
        p->stats.rx_dropped_by_knob++;  /* lost on the wire: no machine sees it */
        return;
    }
    p->in_call = true;
    p->stats.lacpdus_rx++;
    if (zvs_lacp_is_loopback(pdu, p->actor.system_priority, p->actor.system)) {
        p->stats.loopback_rx++;
    } else if (p->rx == ZVS_LACP_RX_EXPIRED || p->rx == ZVS_LACP_RX_DEFAULTED ||
               p->rx == ZVS_LACP_RX_CURRENT) {
        /* Before any timer at `now` (see the design note): the PDU wins over expiry. */
        rx_enter(p, ZVS_LACP_RX_CURRENT, pdu, now);
    } else {
        p->stats.ignored_rx++;
    }
    machines_run(p, now);
    p->in_call = false;
}

void zvs_lacp_port_count_parse_error(struct zvs_lacp_port *p, int rc)
{
    assert(p);
    if (zvs_slow_rx_is_illegal(rc))
        p->stats.illegal_rx++;
    else if (zvs_slow_rx_is_unknown(rc))
        p->stats.unknown_rx++;
}

void zvs_lacp_port_set_enabled(struct zvs_lacp_port *p, bool enabled, uint64_t now)
{
    assert(p && !p->in_call);
    p->in_call = true;
    p->port_enabled = enabled;
    machines_run(p, now);
    p->in_call = false;
}

void zvs_lacp_port_run(struct zvs_lacp_port *p, uint64_t now)
{
    assert(p && !p->in_call);
    p->in_call = true;
    machines_run(p, now);
    p->in_call = false;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

uint64_t zvs_lacp_port_next_wakeup(const struct zvs_lacp_port *p)
{
    uint64_t t = ZVS_LACP_NEVER;

    assert(p);
    if (p->rx == ZVS_LACP_RX_CURRENT || p->rx == ZVS_LACP_RX_EXPIRED)
        t = min_u64(t, p->current_while);
    if (p->ptx == ZVS_LACP_PTX_FAST_PERIODIC || p->ptx == ZVS_LACP_PTX_SLOW_PERIODIC)
        t = min_u64(t, p->periodic);
    if (p->mux == ZVS_LACP_MUX_WAITING && p->selected == ZVS_LACP_SELECTED)
        t = min_u64(t, mux_wait_deadline(p));
    if (p->port_enabled && p->actor_churn == ZVS_LACP_CHURN_MONITOR)
        t = min_u64(t, p->actor_churn_timer);
    if (p->port_enabled && p->partner_churn == ZVS_LACP_CHURN_MONITOR)
        t = min_u64(t, p->partner_churn_timer);
    if (tx_may_send(p))
        t = min_u64(t, tx_allowed_at(p));   /* NTT held back by the rate limit */
    if (p->delay_len > 0)
        t = min_u64(t, p->delayq[p->delay_head].release_at);
    return t;
}

/* ---- fault knobs ----------------------------------------------------------------------- */

void zvs_lacp_port_set_faults(struct zvs_lacp_port *p, const struct zvs_lacp_faults *f,
                              uint64_t now)
{
    assert(p && !p->in_call);
    if (f)
        p->faults = *f;
    else
        memset(&p->faults, 0, sizeof(p->faults));
    p->in_call = true;
    delay_release(p, now, p->faults.delay_tx_ns == 0);
    p->in_call = false;
}

const struct zvs_lacp_faults *zvs_lacp_port_faults(const struct zvs_lacp_port *p)
{
    return &p->faults;
}

unsigned zvs_lacp_port_tx_delayed(const struct zvs_lacp_port *p)
{
    return p->delay_len;
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
