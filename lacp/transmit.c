/* Transmit machine of one aggregation port (IEEE 802.1AX-2008 5.4.16 / 2014 6.4.16) and
 * the transmit side of the fault knobs (drop_tx, delay_tx_ns; lacp_port.h).
 *
 * Owns: NTT's consumer, the ring of the last 3 send times, the delay queue, the tx counters
 * (lacpdus_tx, last_tx_ns, tx_rate_limited, tx_dropped_by_knob, tx_delayed,
 * tx_delay_overflow) and the knobs themselves (zvs_lacp_port_set_faults).
 *
 * Rules:
 *  - A LACPDU is built when NTT and carrier and LACP_Enabled and Periodic is not
 *    NO_PERIODIC, and fewer than 3 were built in the last Fast_Periodic_Time (the 4th may
 *    go at oldest + 1 s, exactly). A held NTT stays set and sends the latest info when
 *    allowed; next_wakeup includes that time. At most one LACPDU per engine call.
 *  - The PDU carries the actor and partner info as they are after every machine settled
 *    (the driver runs Transmit last), so one PDU announces all changes of one call.
 *  - Knobs act after the build is recorded (NTT cleared, ring updated): the machines behave
 *    exactly as if the wire lost or delayed the PDU. drop_tx is checked before delay_tx.
 *    The delay queue is a FIFO of ZVS_LACP_TX_DELAY_SLOTS; while it holds anything new
 *    PDUs queue behind (no reordering); a full queue drops (tx_delay_overflow). The driver
 *    releases due PDUs before building a new one.
 *  - The final LACPDU of a port that leaves its group (zvs_lacp_port_leave) obeys the same
 *    limit: when 3 PDUs went in the last Fast_Periodic_Time it is not sent (counted in
 *    tx_rate_limited, leave returns -EAGAIN) and the partner drops the link at its own
 *    timeout, as it did before leave sent anything. Why not send it anyway: the limit is a
 *    "shall" of the Transmit machine (802.1AX-2014 6.4.16) and of Slow Protocols (IEEE
 *    802.3 Annex 43B), and a partner may police it (a switch's control-plane policer, the
 *    switch model's rate-limit), so a 4th PDU could be lost anyway. Why not defer it: the
 *    port is taken off the switch in the same call, so there is no later to send it in.
 *    The budget is used up only when three PDUs went within the last second, i.e. a leave
 *    right behind a burst of changes the partner was already told about: rare, and bounded
 *    by the partner's timeout.
 * Hazards: cb.send runs with the slot already freed; it must not re-enter (asserted by
 * the callers' in_call guard).
 */
#include "lacp/lacp_internal.h"

#include <assert.h>
#include <string.h>

bool zvs_lacp_tx_may_send(const struct zvs_lacp_port *p)
{
    return p->ntt && p->port_enabled && zvs_lacp_enabled(p) &&
           p->ptx != ZVS_LACP_PTX_NO_PERIODIC;
}

/* Earliest time the rate limit lets the next LACPDU go. */
uint64_t zvs_lacp_tx_allowed_at(const struct zvs_lacp_port *p)
{
    if (p->tx_count < ZVS_LACP_TX_PER_FAST_PERIOD)
        return 0;
    return zvs_lacp_deadline_after(p->tx_times[p->tx_next], ZVS_LACP_FAST_PERIODIC_NS);
}

static void send_now(struct zvs_lacp_port *p, const struct zvs_lacpdu *pdu, uint64_t now)
{
    p->stats.lacpdus_tx++;
    p->stats.last_tx_ns = now;
    p->cb.send(p->arg, pdu);
}

static void delay_push(struct zvs_lacp_port *p, const struct zvs_lacpdu *pdu, uint64_t now)
{
    struct zvs_lacp_delayed_pdu *d;

    if (p->delay_len == ZVS_LACP_TX_DELAY_SLOTS) {
        p->stats.tx_delay_overflow++;
        return;
    }
    d = &p->delayq[(p->delay_head + p->delay_len) % ZVS_LACP_TX_DELAY_SLOTS];
    d->release_at = zvs_lacp_deadline_after(now, p->faults.delay_tx_ns);
    d->pdu = *pdu;
    p->delay_len++;
    p->stats.tx_delayed++;
}

/* Sends queued PDUs in order while the oldest is due (or all of them if `all`). */
void zvs_lacp_tx_release_delayed(struct zvs_lacp_port *p, uint64_t now, bool all)
{
    while (p->delay_len > 0) {
        struct zvs_lacp_delayed_pdu *d = &p->delayq[p->delay_head];
        struct zvs_lacpdu pdu;

        if (!all && !zvs_lacp_expired(d->release_at, now))
            break;
        pdu = d->pdu;
        p->delay_head = (p->delay_head + 1) % ZVS_LACP_TX_DELAY_SLOTS;
        p->delay_len--;
        send_now(p, &pdu, now);
    }
}

void zvs_lacp_tx_run(struct zvs_lacp_port *p, uint64_t now)
{
    struct zvs_lacpdu pdu;

    if (!zvs_lacp_tx_may_send(p))
        return;
    if (!zvs_lacp_expired(zvs_lacp_tx_allowed_at(p), now)) {
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
    send_now(p, &pdu, now);
}

void zvs_lacp_port_set_faults(struct zvs_lacp_port *p, const struct zvs_lacp_faults *f,
                              uint64_t now)
{
    assert(p && !p->in_call);
    if (f)
        p->faults = *f;
    else
        memset(&p->faults, 0, sizeof(p->faults));
    p->in_call = true;
    zvs_lacp_tx_release_delayed(p, now, p->faults.delay_tx_ns == 0);
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
