/* Mux machine of one aggregation port (IEEE 802.1AX-2008 5.4.15 / 802.1AX-2014 6.4.15).
 *
 * Owns: p->mux, wait_while, the aggregator's ready_at, the actor SYNC / COLLECTING /
 * DISTRIBUTING bits, mux_flaps, and the attach / collecting / distributing callbacks.
 *
 * Two controls, chosen per port by cfg.coupled_mux:
 *  - Independent (default): DETACHED -> WAITING (Selected) -> ATTACHED (2 s
 *    and READY) -> COLLECTING (partner SYNC) -> DISTRIBUTING (partner SYNC and partner
 *    COLLECTING). Back: DISTRIBUTING -> COLLECTING when not SELECTED, or partner SYNC or
 *    COLLECTING lost; COLLECTING -> ATTACHED when not SELECTED or partner SYNC lost;
 *    ATTACHED -> DETACHED when not SELECTED. We never send on a link before the partner
 *    collects on it: a switch may hold a port up but suspended.
 *  - Coupled (802.3ad): ATTACHED -> COLLECTING_DISTRIBUTING on partner SYNC,
 *    back to ATTACHED when not SELECTED or partner SYNC lost. Yields 0x3D/0x3F.
 *
 * Rules:
 *  - Callbacks are edge-triggered: each fires exactly at the transition that changes what
 *    it controls, never twice in a row with the same value. Order: attach(true) before
 *    collecting(true) before distributing(true); distributing(false) before
 *    collecting(false) before attach(false) (stop sending before refusing input). The
 *    fixed-point driver in lacp_port.c runs DISTRIBUTING -> COLLECTING -> ATTACHED in one
 *    call, so a lost partner SYNC gives both disables in that order at one `now`.
 *  - The actor bits and p->mux are updated BEFORE the callbacks, so a callback reading the
 *    getters sees the new state.
 *  - Every entry except WAITING sets NTT (the partner must learn SYNC/COLLECTING/
 *    DISTRIBUTING promptly; transmit.c applies the 3-per-second limit).
 *  - READY: the aggregator keeps ready_at, the latest wait_while deadline of ports that
 *    entered WAITING; a port leaves WAITING when now >= max(own wait_while, ready_at). A
 *    port that gives up WAITING does not shorten ready_at (conservative).
 *  - mux_flaps counts every exit from DISTRIBUTING or COLLECTING_DISTRIBUTING.
 */
#include "lacp/lacp_internal.h"

#include <assert.h>

#define CD (ZVS_LACP_STATE_COLLECTING | ZVS_LACP_STATE_DISTRIBUTING)

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

uint64_t zvs_lacp_mux_wait_deadline(const struct zvs_lacp_port *p)
{
    return p->wait_while > p->agg->ready_at ? p->wait_while : p->agg->ready_at;
}

void zvs_lacp_mux_begin(struct zvs_lacp_port *p, uint64_t now)
{
    (void)now;
    p->mux = ZVS_LACP_MUX_DETACHED;
    zvs_lacp_set_bits(&p->actor.state, ZVS_LACP_STATE_SYNC | CD, false);
    p->ntt = true;
}

static void mux_enter(struct zvs_lacp_port *p, enum zvs_lacp_mux_state s, uint64_t now)
{
    enum zvs_lacp_mux_state from = p->mux;

    p->mux = s;
    zvs_lacp_transition(p, ZVS_LACP_MACHINE_MUX, (int)from, (int)s, now);
    if (from == ZVS_LACP_MUX_DISTRIBUTING || from == ZVS_LACP_MUX_COLLECTING_DISTRIBUTING)
        p->stats.mux_flaps++;
    switch (s) {
    case ZVS_LACP_MUX_DETACHED:
        assert(from == ZVS_LACP_MUX_WAITING || from == ZVS_LACP_MUX_ATTACHED);
        zvs_lacp_set_bits(&p->actor.state, ZVS_LACP_STATE_SYNC | CD, false);
        p->ntt = true;
        if (from == ZVS_LACP_MUX_ATTACHED)
            callback_attach(p, false);
        break;
    case ZVS_LACP_MUX_WAITING:
        p->wait_while = zvs_lacp_deadline_after(now, ZVS_LACP_AGGREGATE_WAIT_NS);
        if (p->wait_while > p->agg->ready_at)
            p->agg->ready_at = p->wait_while;
        break;
    case ZVS_LACP_MUX_ATTACHED:
        /* The one aggregator is always the active one: SYNC on attach. */
        zvs_lacp_set_bits(&p->actor.state, ZVS_LACP_STATE_SYNC, true);
        zvs_lacp_set_bits(&p->actor.state, CD, false);
        p->ntt = true;
        if (from == ZVS_LACP_MUX_WAITING)
            callback_attach(p, true);
        if (from == ZVS_LACP_MUX_COLLECTING_DISTRIBUTING)
            callback_distributing(p, false);
        if (from == ZVS_LACP_MUX_COLLECTING_DISTRIBUTING || from == ZVS_LACP_MUX_COLLECTING)
            callback_collecting(p, false);
        break;
    case ZVS_LACP_MUX_COLLECTING_DISTRIBUTING:
        zvs_lacp_set_bits(&p->actor.state, CD, true);
        p->ntt = true;
        callback_collecting(p, true);
        callback_distributing(p, true);
        break;
    case ZVS_LACP_MUX_COLLECTING:
        zvs_lacp_set_bits(&p->actor.state, ZVS_LACP_STATE_COLLECTING, true);
        zvs_lacp_set_bits(&p->actor.state, ZVS_LACP_STATE_DISTRIBUTING, false);
        p->ntt = true;
        if (from == ZVS_LACP_MUX_DISTRIBUTING)
            callback_distributing(p, false);
        else
            callback_collecting(p, true);
        break;
    case ZVS_LACP_MUX_DISTRIBUTING:
        zvs_lacp_set_bits(&p->actor.state, ZVS_LACP_STATE_DISTRIBUTING, true);
        p->ntt = true;
        callback_distributing(p, true);
        break;
    }
}

static bool partner_sync(const struct zvs_lacp_port *p)
{
    return zvs_lacp_partner_bit(p, ZVS_LACP_STATE_SYNC);
}

bool zvs_lacp_mux_step(struct zvs_lacp_port *p, uint64_t now)
{
    bool selected = p->selected == ZVS_LACP_SELECTED;
    enum zvs_lacp_mux_state next = p->mux;

    switch (p->mux) {
    case ZVS_LACP_MUX_DETACHED:
        if (p->selected != ZVS_LACP_UNSELECTED)
            next = ZVS_LACP_MUX_WAITING;
        break;
    case ZVS_LACP_MUX_WAITING:
        if (p->selected == ZVS_LACP_UNSELECTED)
            next = ZVS_LACP_MUX_DETACHED;
        else if (selected && zvs_lacp_expired(zvs_lacp_mux_wait_deadline(p), now))
            next = ZVS_LACP_MUX_ATTACHED;
        break;
    case ZVS_LACP_MUX_ATTACHED:
        if (!selected)
            next = ZVS_LACP_MUX_DETACHED;
        else if (partner_sync(p))
            next = p->cfg.coupled_mux ? ZVS_LACP_MUX_COLLECTING_DISTRIBUTING
                                      : ZVS_LACP_MUX_COLLECTING;
        break;
    case ZVS_LACP_MUX_COLLECTING_DISTRIBUTING:
        if (!selected || !partner_sync(p))
            next = ZVS_LACP_MUX_ATTACHED;
        break;
    case ZVS_LACP_MUX_COLLECTING:
        if (!selected || !partner_sync(p))
            next = ZVS_LACP_MUX_ATTACHED;
        else if (zvs_lacp_partner_bit(p, ZVS_LACP_STATE_COLLECTING))
            next = ZVS_LACP_MUX_DISTRIBUTING;
        break;
    case ZVS_LACP_MUX_DISTRIBUTING:
        if (!selected || !partner_sync(p) ||
            !zvs_lacp_partner_bit(p, ZVS_LACP_STATE_COLLECTING))
            next = ZVS_LACP_MUX_COLLECTING;
        break;
    }
    if (next == p->mux)
        return false;
    mux_enter(p, next, now);
    return true;
}
