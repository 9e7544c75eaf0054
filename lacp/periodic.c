/* Periodic Transmission machine of one aggregation port (IEEE 802.1AX-2008 5.4.13 /
 * 802.1AX-2014 6.4.13; timers 5.4.4 / 6.4.4).
 *
 * Owns: the periodic timer. It only sets NTT; transmit.c sends.
 *
 * Rules:
 *  - NO_PERIODIC without carrier, without LACP_Enabled, or when both ends are passive
 *    (actor ACTIVITY clear and partner ACTIVITY clear, a defaulted partner counting as
 *    passive): passive-passive stays silent.
 *  - The interval follows the PARTNER's TIMEOUT bit: FAST_PERIODIC (1 s) if it asks for
 *    short timeouts, SLOW_PERIODIC (30 s) otherwise. In SLOW_PERIODIC a partner that turns
 *    fast causes PERIODIC_TX at once instead of waiting up to 30 s.
 *  - PERIODIC_TX is transient: NTT := TRUE, then back to FAST/SLOW, which restarts the timer.
 * Hazards: the timer restarts on entry to FAST/SLOW only, so FAST <-> SLOW changes go
 * through PERIODIC_TX (or restart) and never leave a stale deadline behind.
 */
#include "lacp/lacp_internal.h"

static bool ptx_may_run(const struct zvs_lacp_port *p)
{
    return p->port_enabled && zvs_lacp_enabled(p) &&
           (zvs_lacp_actor_bit(p, ZVS_LACP_STATE_ACTIVITY) ||
            zvs_lacp_partner_bit(p, ZVS_LACP_STATE_ACTIVITY));
}

static void ptx_enter(struct zvs_lacp_port *p, enum zvs_lacp_ptx_state s, uint64_t now)
{
    enum zvs_lacp_ptx_state from = p->ptx;

    p->ptx = s;
    zvs_lacp_transition(p, ZVS_LACP_MACHINE_PTX, (int)from, (int)s, now);
    switch (s) {
    case ZVS_LACP_PTX_NO_PERIODIC:
        break;
    case ZVS_LACP_PTX_FAST_PERIODIC:
        p->periodic = zvs_lacp_deadline_after(now, ZVS_LACP_FAST_PERIODIC_NS);
        break;
    case ZVS_LACP_PTX_SLOW_PERIODIC:
        p->periodic = zvs_lacp_deadline_after(now, ZVS_LACP_SLOW_PERIODIC_NS);
        break;
    case ZVS_LACP_PTX_PERIODIC_TX:
        p->ntt = true;
        break;
    }
}

bool zvs_lacp_ptx_step(struct zvs_lacp_port *p, uint64_t now)
{
    bool partner_short = zvs_lacp_partner_bit(p, ZVS_LACP_STATE_TIMEOUT);
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
        else if (zvs_lacp_expired(p->periodic, now))
            next = ZVS_LACP_PTX_PERIODIC_TX;
        break;
    case ZVS_LACP_PTX_SLOW_PERIODIC:
        if (!ptx_may_run(p))
            next = ZVS_LACP_PTX_NO_PERIODIC;
        else if (partner_short || zvs_lacp_expired(p->periodic, now))
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
