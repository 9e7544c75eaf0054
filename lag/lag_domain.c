/* lag_domain: a SHARED port group's glue to its IVL domain (lag_domain.h). */
#include "lag/lag_domain.h"

#include <stdio.h>
#include <string.h>

#include "ivl/port_number.h"

void zvs_lag_domain_def(const struct zvs_lag_params *p, struct zvs_ivl_group_def *def)
{
    memset(def, 0, sizeof *def);
    def->lacp = p->pg.lacp ? (p->lacp_passive ? 2 : 1) : 0;
    def->timeout = p->long_timeout ? 0 : 1;
    def->distribution = (uint8_t)p->pg.hash;
    /* the defaults as the engines apply them (lag.h: 0 means 1 and 32768) */
    def->key = p->key ? p->key : 1;
    def->system_priority = p->system_priority ? p->system_priority : 32768;
    memcpy(def->system, p->system, sizeof def->system);
}

static uint8_t member_state(const struct zvs_lag *lag, unsigned slot,
                            const struct zvs_pg_member *pm)
{
    const struct zvs_port *port = zvs_lag_member_port(lag, slot);
    const struct zvs_lacp_port *lp = zvs_lag_member_lacp(lag, slot);
    uint8_t st = 0;
    if (port && port->carrier)
        st |= ZVS_IVL_MS_CARRIER;
    if (lp && zvs_lacp_port_selected(lp) == ZVS_LACP_SELECTED)
        st |= ZVS_IVL_MS_SELECTED;
    if (pm->collecting)
        st |= ZVS_IVL_MS_COLLECTING;
    if (pm->distributing)
        st |= ZVS_IVL_MS_DISTRIBUTING;
    return st;
}

void zvs_lag_domain_sync(struct zvs_lag *lag, struct zvs_ivl_domain *d, uint64_t now)
{
    zvs_lag_set_domain_hold(lag, !zvs_ivl_domain_aggregating(d), now);

    const struct zvs_pgroup *g = zvs_lag_group(lag);
    unsigned index = zvs_lag_params(lag)->domain_index;
    struct zvs_ivl_member m[ZVS_IVL_MAX_MEMBERS];
    unsigned n = 0;
    memset(m, 0, sizeof m);
    for (unsigned slot = 0; slot < ZVS_PG_MAX_MEMBERS && n < ZVS_IVL_MAX_MEMBERS; slot++) {
        const struct zvs_pg_member *pm = zvs_pgroup_member(g, slot);
        if (!pm || !pm->used)
            continue;
        snprintf(m[n].rdev, sizeof m[n].rdev, "%.8s", pm->rdev);
        m[n].port = zvs_ivl_port_number(index, slot);
        m[n].state = member_state(lag, slot, pm);
        m[n].speed_mbps = (uint32_t)(pm->capacity_bps / 1000000u);
        n++;
    }
    zvs_ivl_domain_set_members(d, m, n);
}
