/* A digest of the data plane as the reconciler built it, for a command's rollback to
 * check itself: taken before the command and after the previous configuration was
 * reconciled back, equal when the rollback undid exactly what the command did.
 *
 * Owns: what counts as "the same data plane": each switch slot in use (its name, the
 * switch and group objects, the devices noted as not opened), its uplink ports in their
 * order (the objects, names, carrier and counters: a port reopened is a new object with
 * counters from zero), each group's members by slot, its LACP key, settings and Slow
 * Protocols counters (PDUs a member sent are not taken back), the
 * uplink slots (port, descriptor watched, COUNTERS CLEAR base), the NIC slots (their
 * kind's instance, coupling, queues, registration, base), and how many descriptors and
 * timers the event loop has.
 * Rule: objects are compared by identity (their address), so a digest is only compared
 * with one taken in the same process moments before; it is never stored or shown.
 */
#include "daemon/daemon_impl.h"

#include <stdint.h>
#include <string.h>

#include "lag/pgroup.h"

/* A word at a time: a command on a system with hundreds of guests pays for this twice. */
static uint64_t mix64(uint64_t h, uint64_t v)
{
    h = (h ^ v) * 0x9e3779b97f4a7c15ull;
    return h ^ (h >> 32);
}

static uint64_t mix(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t w;
    for (; n >= sizeof w; n -= sizeof w, b += sizeof w) {
        memcpy(&w, b, sizeof w);
        h = mix64(h, w);
    }
    w = 0;
    memcpy(&w, b, n);
    return mix64(h, w ^ n);
}

static uint64_t mix_ptr(uint64_t h, const void *p)
{
    return mix64(h, (uint64_t)(uintptr_t)p);
}

static uint64_t mix_str(uint64_t h, const char *s)
{
    return mix(h, s, strlen(s) + 1);
}

/* A NIC's registration (its MAC and owner are the slot's, hashed with it); a TRUNK's
 * 4096-bit VLAN set folded first (a set that changed folds differently), an ACCESS
 * port's set is not used. */
static uint64_t mix_guest(uint64_t h, const struct zvs_guest *g)
{
    uint64_t fold = 0;
    for (unsigned i = 0; g->vlan.porttype == ZVS_VLAN_TRUNK &&
                         i < sizeof g->vlan.granted / sizeof g->vlan.granted[0]; i++) {
        uint64_t w = g->vlan.granted[i];
        unsigned r = i % 64;
        fold ^= r ? (w << r) | (w >> (64 - r)) : w;     /* rotated: where a bit is counts */
    }
    h = mix64(h, ((uint64_t)g->macprotect << 24) | ((uint64_t)g->vlan.porttype << 16) |
                 g->vlan.access_vid);
    return mix64(h, fold);
}

static uint64_t mix_counters(uint64_t h, const struct zvs_device_counters *c)
{
    h = mix64(mix64(mix64(mix64(h, c->tx_bytes), c->tx_packets), c->tx_discards),
              c->tx_errors);
    return mix64(mix64(mix64(mix64(h, c->rx_bytes), c->rx_packets), c->rx_discards),
                 c->rx_errors);
}

static uint64_t mix_switch(uint64_t h, const struct d_switch *ds)
{
    h = mix_str(h, ds->cfg.name);
    h = mix_ptr(h, ds->sw);
    h = mix(h, &ds->cfg.isolation, sizeof ds->cfg.isolation);
    for (unsigned k = 0; k < ds->nclosed; k++)
        h = mix_str(mix(h, &ds->closed[k].dev.devno, sizeof ds->closed[k].dev.devno),
                    ds->closed[k].why);
    /* A guest's port is its NIC slot's (hashed there, by identity: only traffic moves its
     * counters, and none flows while a command runs). An uplink's counters move with
     * what the reconciler sends (a member's LACPDUs). */
    for (const struct zvs_port *p = zvs_switch_next_port(ds->sw, NULL); p;
         p = zvs_switch_next_port(ds->sw, p)) {
        if (p->role != ZVS_PORT_UPLINK)
            continue;
        h = mix_ptr(h, p);
        struct zvs_device_counters c;
        zvs_port_device_counters(p, &c);
        h = mix_str(h, p->name);
        h = mix_counters(mix64(h, p->carrier), &c);
    }
    h = mix_ptr(h, ds->lag);
    if (!ds->lag)
        return h;
    const struct zvs_lag_params *lp = zvs_lag_params(ds->lag);
    const struct zvs_pg_params *pp = zvs_pgroup_params(zvs_lag_group(ds->lag));
    h = mix(h, &lp->key, sizeof lp->key);
    h = mix(h, &lp->pg.lacp, sizeof lp->pg.lacp);
    h = mix(h, &pp->interval_s, sizeof pp->interval_s);
    h = mix(h, &pp->policy, sizeof pp->policy);
    h = mix(h, &pp->load, sizeof pp->load);
    const struct zvs_lag_stats *st = zvs_lag_stats(ds->lag);
    const uint64_t n[] = { st->slow_rx, st->slow_tx, st->slow_tx_fail, st->slow_rx_other,
                           st->malformed_rx, st->lacpdu_static_rx };
    h = mix(h, n, sizeof n);
    for (unsigned s = 0; s < ZVS_PG_MAX_MEMBERS; s++)
        h = mix_ptr(h, zvs_lag_member_port(ds->lag, s));
    return h;
}

uint64_t zvsd_fingerprint(const struct zvsd *d)
{
    uint64_t h = 14695981039346656037ull;
    unsigned loop[2];                   /* watches and timers: none left behind */
    zvs_evloop_count(d->loop, &loop[0], &loop[1]);
    h = mix(h, loop, sizeof loop);
    for (unsigned i = 0; i < d->nsw; i++)
        if (d->sw[i].sw)
            h = mix_switch(mix(h, &i, sizeof i), &d->sw[i]);
    for (unsigned i = 0; i < d->nup; i++) {
        const struct d_uplink *u = &d->up[i];
        if (!u->port)
            continue;
        h = mix_str(mix_ptr(mix(h, &i, sizeof i), u->port), u->ifname);
        h = mix(h, &u->fd, sizeof u->fd);
        h = mix(h, &u->member, sizeof u->member);
        h = mix_counters(mix_ptr(h, u->ds), &u->base);
    }
    for (unsigned i = 0; i < d->nnic; i++) {
        const struct d_nic *n = &d->nic[i];
        if (!n->used)
            continue;
        h = mix64(h, ((uint64_t)i << 16) | n->vdev);    /* a new NIC has a new side */
        h = mix_ptr(mix_ptr(mix_ptr(h, n->side), n->ds), n->port);
        if (n->ds)
            h = mix_guest(h, &n->guest);
        h = mix_counters(h, &n->base);
    }
    return h;
}
