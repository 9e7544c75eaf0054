/* Actor and Partner Churn Detection machines of one aggregation port (IEEE 802.1AX-2008
 * 5.4.17 / 802.1AX-2014 6.4.17). Diagnostic only: nothing else reads their state.
 *
 * Owns: actor_churn / partner_churn, their timers, actor_churn_count / partner_churn_count.
 *
 * Rules: NO_CHURN -> CHURN_MONITOR when SYNC (actor's, resp. partner's) is false; CHURN
 * after Churn_Detection_Time (60 s, now >= deadline) without SYNC; NO_CHURN as soon as SYNC
 * returns. BEGIN starts both in CHURN_MONITOR. While the port has no carrier the machine is
 * held in CHURN_MONITOR with its timer restarted at every run: no churn is counted for a
 * port that is simply down, and the 60 s count afresh when carrier returns.
 */
#include "lacp/lacp_internal.h"

bool zvs_lacp_churn_step(struct zvs_lacp_port *p, enum zvs_lacp_machine m, uint64_t now)
{
    bool actor = m == ZVS_LACP_MACHINE_ACTOR_CHURN;
    enum zvs_lacp_churn_state *state = actor ? &p->actor_churn : &p->partner_churn;
    uint64_t *timer = actor ? &p->actor_churn_timer : &p->partner_churn_timer;
    bool sync = actor ? zvs_lacp_actor_bit(p, ZVS_LACP_STATE_SYNC)
                      : zvs_lacp_partner_bit(p, ZVS_LACP_STATE_SYNC);
    enum zvs_lacp_churn_state from = *state, next = from;

    if (!p->port_enabled) {
        /* Held in CHURN_MONITOR, timer restarted: no churn counted while disabled. */
        *timer = zvs_lacp_deadline_after(now, ZVS_LACP_CHURN_DETECTION_NS);
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
            else if (zvs_lacp_expired(*timer, now))
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
    zvs_lacp_transition(p, m, (int)from, (int)next, now);
    switch (next) {
    case ZVS_LACP_NO_CHURN:
        break;
    case ZVS_LACP_CHURN_MONITOR:
        *timer = zvs_lacp_deadline_after(now, ZVS_LACP_CHURN_DETECTION_NS);
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
