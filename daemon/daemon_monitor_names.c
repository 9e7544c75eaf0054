/* The watched names in the monitor: the resolver's counters as a D15R1 in every sample
 * group and each name's event as a D15R2 (monitor/RECORDS.md; our domain 15).
 *
 * Owns: turning names/'s counters, states, errors and addresses into the records' codes.
 * Rules:
 *  - Only a system that watches names writes them: while no name is watched the sample
 *    has no D15R1, and events come only from watched names, so the monitor file of a
 *    system without RESOLVER WATCH is what it was before these records.
 *  - The codes are names/'s enums, pinned below: monitor/ may not include names/, and a
 *    new state or status must get its code in RECORDS.md (and the decoder) first.
 */
#include "daemon/daemon_impl.h"

#include <string.h>
#include <sys/socket.h>

#include "monitor/monrec.h"
#include "names/name_watch.h"

_Static_assert(ZVS_NAME_EV_CHANGED == ZVS_MON_RES_EV_CHANGED &&
               ZVS_NAME_EV_FAILING == ZVS_MON_RES_EV_FAILING &&
               ZVS_NAME_EV_RECOVERED == ZVS_MON_RES_EV_RECOVERED, "D15R2 event codes");
_Static_assert(ZVS_NAME_RESOLVING == 0 && ZVS_NAME_RESOLVED == 1 && ZVS_NAME_RETRYING == 2 &&
               ZVS_NAME_FAILED == ZVS_MON_RES_STATE_MAX, "D15R2 state codes");
_Static_assert(ZVS_RES_OK == 0 && ZVS_RES_NSTATUS - 1 == ZVS_MON_RES_ERROR_MAX,
               "D15R2 error codes");
_Static_assert(ZVS_RES_MAX_ADDRS == ZVS_MON_RES_ADDRS, "D15R2 carries every address");
_Static_assert(ZVS_HOSTNAME_MAX == ZVS_MON_RES_NAME_MAX, "D15R2 carries the whole name");

bool zvsd_monitor_names_sample(struct zvsd *d, struct zvs_mon_resolver_activity *v)
{
    const struct zvs_names *t = zvsd_names_table(d);
    struct zvs_names_counters c;

    if (!t)
        return false;
    zvs_names_counters(t, &c);
    if (!c.watched)
        return false;
    *v = (struct zvs_mon_resolver_activity){
        .watched = c.watched, .in_flight = c.in_flight, .lookups = c.lookups,
        .failures = c.failures, .bad_answers = c.bad_answers, .changes = c.changes,
        .deferred = c.deferred,
    };
    return true;
}

static void put_addrs(struct zvs_mon_res_addr *out, const struct zvs_res_addr *a, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        out[i].family = a[i].family == AF_INET6 ? 6 : 4;
        memset(out[i].addr, 0, sizeof out[i].addr);
        memcpy(out[i].addr, a[i].bytes, a[i].family == AF_INET6 ? 16 : 4);
    }
}

void zvsd_monitor_name_event(struct zvsd *d, const struct zvs_name *n, unsigned ev,
                             const struct zvs_res_addr *old, unsigned nold, uint64_t now)
{
    struct zvs_mon_record r = { .domain = ZVS_MON_DOMAIN_ZVS, .number = ZVS_MON_REC_D15R2 };
    struct zvs_mon_resolver_event *e = &r.u.resev;

    snprintf(e->name, sizeof e->name, "%s", n->name);
    e->event = (uint8_t)ev;
    e->state = (uint8_t)n->state;
    e->last_error = (uint8_t)n->last_error;
    e->ttl_s = n->ttl_s;
    e->nold = (uint8_t)nold;
    e->nnew = (uint8_t)n->naddr;
    put_addrs(e->old, old, nold);
    put_addrs(e->now, n->addr, n->naddr);
    zvsd_monitor_event(d, &r, now);
}
