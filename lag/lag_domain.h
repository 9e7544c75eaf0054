/* lag_domain: a SHARED port group's glue to its IVL domain (ivl/domain.h).
 *
 * Two directions, both in one call the owner makes whenever either side may have changed
 * (the domain's `changed` callback, a member's carrier or LACP state, after zvs_lag_run):
 *   - the domain's answer to the group: a system that may not aggregate (no quorum, a
 *     definition that disagrees) holds its members out (zvs_lag_set_domain_hold);
 *   - the group's members to the domain: each member's RDEV, domain-wide port number,
 *     carrier / Selected / Collecting / Distributing and speed, replicated to the others
 *     (the domain sends only what changed).
 * And the group's definition as the domain compares it across systems.
 */
#ifndef ZVS_LAG_DOMAIN_H
#define ZVS_LAG_DOMAIN_H

#include <stdint.h>

#include "ivl/domain.h"
#include "lag/lag.h"

/* What every system must define alike for one LAG, from the group's parameters. */
void zvs_lag_domain_def(const struct zvs_lag_params *p, struct zvs_ivl_group_def *def);

/* Bring group and domain into line (both directions, above). */
void zvs_lag_domain_sync(struct zvs_lag *lag, struct zvs_ivl_domain *d, uint64_t now);

#endif
