/* Selection logic of one aggregation port (IEEE 802.1AX-2008 5.4.14 / 2014 6.4.14).
 *
 * Owns: the port's Selected variable and its share of the port group's aggregator
 * (struct zvs_lacp_aggregator, shared by pointer by every port of the group).
 *
 * Rules:
 *  - One aggregator per port group (z/VM: one partner switch per group). A port is SELECTED
 *    only if it has carrier and LACP_Enabled, its actor key equals the aggregator's, the
 *    partner System ID is non-null (not DEFAULTED) and the partner is aggregatable, and, if
 *    the aggregator already has selected ports, partner System ID + partner key + speed
 *    equal the bound ones. A port that does not match stays UNSELECTED: no second aggregator.
 *  - The first port to join binds the LAG ID; it is free again when selected_ports is 0.
 *  - Leaving (UNSELECTED) is decided by the Receive machine (update_selected, PORT_DISABLED,
 *    DEFAULTED); re-selection waits until the Mux has seen UNSELECTED and reached DETACHED,
 *    so a port never moves between LAG IDs while attached.
 *  - STANDBY is defined but never used.
 * Hazards: selected_ports is the single source of truth for "LAG ID bound": every change of
 * Selected must go through zvs_lacp_select_set.
 */
#include "lacp/lacp_internal.h"

#include <assert.h>
#include <string.h>

static const uint8_t null_mac[6];

void zvs_lacp_aggregator_init(struct zvs_lacp_aggregator *agg, uint16_t actor_key)
{
    assert(agg);
    memset(agg, 0, sizeof(*agg));
    agg->actor_key = actor_key;
}

void zvs_lacp_select_set(struct zvs_lacp_port *p, enum zvs_lacp_selected s, uint64_t now)
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
    zvs_lacp_transition(p, ZVS_LACP_MACHINE_SELECTION, (int)from, (int)s, now);
}

/* May this port join its aggregator now? */
static bool select_matches(const struct zvs_lacp_port *p)
{
    const struct zvs_lacp_aggregator *agg = p->agg;

    if (!p->port_enabled || !zvs_lacp_enabled(p))
        return false;
    if (p->cfg.key != agg->actor_key)
        return false;
    if (!zvs_lacp_actor_bit(p, ZVS_LACP_STATE_AGGREGATION))
        return false;                   /* we left (zvs_lacp_port_leave): Individual */
    if (memcmp(p->partner.system, null_mac, sizeof(null_mac)) == 0)
        return false;                   /* no partner (DEFAULTED, or never heard) */
    if (!zvs_lacp_partner_bit(p, ZVS_LACP_STATE_AGGREGATION))
        return false;                   /* partner Individual: no aggregation */
    if (agg->selected_ports == 0)
        return true;
    return agg->partner_system_priority == p->partner.system_priority &&
           memcmp(agg->partner_system, p->partner.system, sizeof(agg->partner_system)) == 0 &&
           agg->partner_key == p->partner.key && agg->speed_mbps == p->cfg.speed_mbps;
}

bool zvs_lacp_select_step(struct zvs_lacp_port *p, uint64_t now)
{
    switch (p->selected) {
    case ZVS_LACP_UNSELECTED:
        /* Re-select only once the Mux has seen UNSELECTED and detached. */
        if (p->mux == ZVS_LACP_MUX_DETACHED && select_matches(p)) {
            zvs_lacp_select_set(p, ZVS_LACP_SELECTED, now);
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
