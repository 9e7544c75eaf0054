/* Receive machine of one aggregation port (IEEE 802.1AX-2008 5.4.12 / 2014 6.4.12), and
 * the engine's LACPDU input (zvs_lacp_port_rx, zvs_lacp_port_count_parse_error).
 *
 * Owns: the partner operational info, the actor EXPIRED and DEFAULTED bits, current_while,
 * and the rx counters (lacpdus_rx, last_rx_ns, loopback_rx, ignored_rx, illegal/unknown,
 * expired, defaulted, rx_dropped_by_knob).
 *
 * Rules:
 *  - current_while: Short_Timeout_Time (3 s) if OUR timeout is fast, else Long (90 s);
 *    EXPIRED always waits Short_Timeout_Time (3 s) before DEFAULTED and sets the partner's
 *    TIMEOUT bit locally, so Periodic sends fast while recovering.
 *  - Ordering at one `now`: zvs_lacp_port_rx applies the PDU first (-> CURRENT,
 *    current_while restarted) and only then runs the machines. A PDU delivered at or after
 *    the current_while deadline, but before any run() processed that deadline, therefore
 *    wins: no false EXPIRED after an event-loop stall.
 *  - Partner admin defaults are all zero, state 0 (FreeBSD strict / OVS): a DEFAULTED port
 *    is never selected and a passive port with a defaulted partner never transmits.
 *  - PORT_DISABLED (no carrier) also makes the port UNSELECTED, so the Mux detaches at once.
 *  - A PDU with our own actor System ID is a loopback: counted, ignored.
 *  - fault knob drop_rx: the PDU is dropped before anything else (rx_dropped_by_knob only).
 * Hazards: record_pdu decides partner SYNC ("matched"); update_selected must run before it
 * (it compares the PDU with the OLD partner info).
 */
#include "lacp/lacp_internal.h"

#include <assert.h>
#include <string.h>

static const uint8_t null_mac[6];

/* Port ID, System ID and key of two infos agree (the AGGREGATION bit is checked apart). */
static bool info_ids_equal(const struct zvs_lacp_info *a, const struct zvs_lacp_info *b)
{
    return a->port == b->port && a->port_priority == b->port_priority &&
           a->system_priority == b->system_priority &&
           memcmp(a->system, b->system, sizeof(a->system)) == 0 && a->key == b->key;
}

static void record_default(struct zvs_lacp_port *p)
{
    memset(&p->partner, 0, sizeof(p->partner));   /* partner admin defaults: all zero */
    zvs_lacp_set_bits(&p->actor.state, ZVS_LACP_STATE_DEFAULTED, true);
}

/* update_selected: the partner in the PDU is not the one we selected with. */
static void update_selected(struct zvs_lacp_port *p, const struct zvs_lacpdu *pdu, uint64_t now)
{
    if (!info_ids_equal(&pdu->actor, &p->partner) ||
        ((pdu->actor.state ^ p->partner.state) & ZVS_LACP_STATE_AGGREGATION))
        zvs_lacp_select_set(p, ZVS_LACP_UNSELECTED, now);
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
                 zvs_lacp_actor_bit(p, ZVS_LACP_STATE_ACTIVITY));

    p->partner = pdu->actor;
    zvs_lacp_set_bits(&p->partner.state, ZVS_LACP_STATE_SYNC, sync);
    zvs_lacp_set_bits(&p->actor.state, ZVS_LACP_STATE_DEFAULTED, false);
}

void zvs_lacp_rx_enter(struct zvs_lacp_port *p, enum zvs_lacp_rx_state s,
                       const struct zvs_lacpdu *pdu, uint64_t now)
{
    enum zvs_lacp_rx_state from = p->rx;

    p->rx = s;
    zvs_lacp_transition(p, ZVS_LACP_MACHINE_RX, (int)from, (int)s, now);
    switch (s) {
    case ZVS_LACP_RX_INITIALIZE:
        zvs_lacp_select_set(p, ZVS_LACP_UNSELECTED, now);
        record_default(p);
        zvs_lacp_set_bits(&p->actor.state, ZVS_LACP_STATE_EXPIRED, false);
        break;
    case ZVS_LACP_RX_PORT_DISABLED:
        zvs_lacp_set_bits(&p->partner.state, ZVS_LACP_STATE_SYNC, false);
        zvs_lacp_select_set(p, ZVS_LACP_UNSELECTED, now);  /* carrier lost: detach at once */
        break;
    case ZVS_LACP_RX_LACP_DISABLED:
        zvs_lacp_select_set(p, ZVS_LACP_UNSELECTED, now);
        record_default(p);
        zvs_lacp_set_bits(&p->partner.state, ZVS_LACP_STATE_AGGREGATION, false);
        zvs_lacp_set_bits(&p->actor.state, ZVS_LACP_STATE_EXPIRED, false);
        break;
    case ZVS_LACP_RX_EXPIRED:
        zvs_lacp_set_bits(&p->partner.state, ZVS_LACP_STATE_SYNC, false);
        zvs_lacp_set_bits(&p->partner.state, ZVS_LACP_STATE_TIMEOUT, true); /* send fast */
        p->current_while = zvs_lacp_deadline_after(now, ZVS_LACP_SHORT_TIMEOUT_NS);
        zvs_lacp_set_bits(&p->actor.state, ZVS_LACP_STATE_EXPIRED, true);
        p->stats.expired++;
        break;
    case ZVS_LACP_RX_DEFAULTED:
        /* update_default_selected: admin defaults differ from a real partner. */
        if (memcmp(p->partner.system, null_mac, sizeof(null_mac)) != 0)
            zvs_lacp_select_set(p, ZVS_LACP_UNSELECTED, now);
        record_default(p);
        zvs_lacp_set_bits(&p->actor.state, ZVS_LACP_STATE_EXPIRED, false);
        p->stats.defaulted++;
        break;
    case ZVS_LACP_RX_CURRENT:
        assert(pdu);
        update_selected(p, pdu, now);
        update_ntt(p, pdu);
        record_pdu(p, pdu);
        p->current_while = zvs_lacp_deadline_after(now, p->cfg.fast ? ZVS_LACP_SHORT_TIMEOUT_NS
                                                                    : ZVS_LACP_LONG_TIMEOUT_NS);
        zvs_lacp_set_bits(&p->actor.state, ZVS_LACP_STATE_EXPIRED, false);
        break;
    }
}

bool zvs_lacp_rx_step(struct zvs_lacp_port *p, uint64_t now)
{
    enum zvs_lacp_rx_state next = p->rx;

    switch (p->rx) {
    case ZVS_LACP_RX_INITIALIZE:
        next = ZVS_LACP_RX_PORT_DISABLED;
        break;
    case ZVS_LACP_RX_PORT_DISABLED:
        if (p->port_enabled)
            next = zvs_lacp_enabled(p) ? ZVS_LACP_RX_EXPIRED : ZVS_LACP_RX_LACP_DISABLED;
        break;
    case ZVS_LACP_RX_LACP_DISABLED:
    case ZVS_LACP_RX_DEFAULTED:
        if (!p->port_enabled)
            next = ZVS_LACP_RX_PORT_DISABLED;
        break;
    case ZVS_LACP_RX_EXPIRED:
        if (!p->port_enabled)
            next = ZVS_LACP_RX_PORT_DISABLED;
        else if (zvs_lacp_expired(p->current_while, now))
            next = ZVS_LACP_RX_DEFAULTED;
        break;
    case ZVS_LACP_RX_CURRENT:
        if (!p->port_enabled)
            next = ZVS_LACP_RX_PORT_DISABLED;
        else if (zvs_lacp_expired(p->current_while, now))
            next = ZVS_LACP_RX_EXPIRED;
        break;
    }
    if (next == p->rx)
        return false;
    zvs_lacp_rx_enter(p, next, NULL, now);
    return true;
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
    p->stats.last_rx_ns = now;
    if (zvs_lacp_is_loopback(pdu, p->actor.system_priority, p->actor.system)) {
        p->stats.loopback_rx++;
    } else if (p->rx == ZVS_LACP_RX_EXPIRED || p->rx == ZVS_LACP_RX_DEFAULTED ||
               p->rx == ZVS_LACP_RX_CURRENT) {
        /* Before any timer at `now` (see above): the PDU wins over expiry. */
        zvs_lacp_rx_enter(p, ZVS_LACP_RX_CURRENT, pdu, now);
    } else {
        p->stats.ignored_rx++;
    }
    zvs_lacp_machines_run(p, now);
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
