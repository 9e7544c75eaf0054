/* Private to lacp/: what the machine files of one port engine share (lacp_port.c, rx.c,
 * periodic.c, selection.c, mux.c, transmit.c, churn.c). Not for callers outside lacp/.
 *
 * Each machine exports a step function (decide and take at most one transition, return
 * true if it moved) and, where another machine needs it, an entry or helper function.
 * Only lacp_port.c's zvs_lacp_machines_run drives the steps; only zvs_lacp_transition
 * reports a state change.
 */
#ifndef ZVS_LACP_INTERNAL_H
#define ZVS_LACP_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "lacp/lacp_port.h"

/* A timer has expired when now >= its deadline. */
static inline bool zvs_lacp_expired(uint64_t deadline, uint64_t now)
{
    return now >= deadline;
}

/* now + ns, saturating below ZVS_LACP_NEVER (a running timer is never NEVER). */
static inline uint64_t zvs_lacp_deadline_after(uint64_t now, uint64_t ns)
{
    return now > UINT64_MAX - ns ? UINT64_MAX - 1 : now + ns;
}

static inline uint64_t zvs_lacp_min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

/* LACP_Enabled: full duplex (802.1AX-2008 5.4.7 / 2014 6.4.7). */
static inline bool zvs_lacp_enabled(const struct zvs_lacp_port *p)
{
    return p->cfg.full_duplex;
}

static inline void zvs_lacp_set_bits(uint8_t *state, uint8_t bits, bool on)
{
    if (on)
        *state |= bits;
    else
        *state &= (uint8_t)~bits;
}

static inline bool zvs_lacp_actor_bit(const struct zvs_lacp_port *p, uint8_t bit)
{
    return (p->actor.state & bit) != 0;
}

static inline bool zvs_lacp_partner_bit(const struct zvs_lacp_port *p, uint8_t bit)
{
    return (p->partner.state & bit) != 0;
}

/* lacp_port.c: the single transition hook (counts, reports); the fixed-point driver. */
void zvs_lacp_transition(struct zvs_lacp_port *p, enum zvs_lacp_machine m, int from, int to,
                         uint64_t now);
void zvs_lacp_machines_run(struct zvs_lacp_port *p, uint64_t now);

/* rx.c: Receive machine. pdu is required for RX_CURRENT, NULL otherwise. */
void zvs_lacp_rx_enter(struct zvs_lacp_port *p, enum zvs_lacp_rx_state s,
                       const struct zvs_lacpdu *pdu, uint64_t now);
bool zvs_lacp_rx_step(struct zvs_lacp_port *p, uint64_t now);

/* periodic.c: Periodic Transmission machine. */
bool zvs_lacp_ptx_step(struct zvs_lacp_port *p, uint64_t now);

/* selection.c: Selection logic; select_set keeps the aggregator's selected_ports. */
void zvs_lacp_select_set(struct zvs_lacp_port *p, enum zvs_lacp_selected s, uint64_t now);
bool zvs_lacp_select_step(struct zvs_lacp_port *p, uint64_t now);

/* mux.c: Mux machine. mux_begin: BEGIN entry into DETACHED (no transition counted). */
void zvs_lacp_mux_begin(struct zvs_lacp_port *p, uint64_t now);
bool zvs_lacp_mux_step(struct zvs_lacp_port *p, uint64_t now);
uint64_t zvs_lacp_mux_wait_deadline(const struct zvs_lacp_port *p);

/* churn.c: Actor (m ACTOR_CHURN) or Partner (PARTNER_CHURN) Churn Detection. */
bool zvs_lacp_churn_step(struct zvs_lacp_port *p, enum zvs_lacp_machine m, uint64_t now);

/* transmit.c: Transmit machine, 3-per-second limit, fault knobs' tx side. */
bool zvs_lacp_tx_may_send(const struct zvs_lacp_port *p);
uint64_t zvs_lacp_tx_allowed_at(const struct zvs_lacp_port *p);
void zvs_lacp_tx_run(struct zvs_lacp_port *p, uint64_t now);
void zvs_lacp_tx_release_delayed(struct zvs_lacp_port *p, uint64_t now, bool all);

#endif
