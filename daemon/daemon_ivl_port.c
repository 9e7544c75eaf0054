/* The Global VSWITCH's IVL port in the daemon: the IVL switch's RDEV (DEFINE VSWITCH ...
 * TYPE IVL RDEV nnnn, its RDEVICE's interface on the IVL network) opened as the Global
 * VSWITCH's IVL port (backends/ivl_port.h) while its domain runs, watched on the loop as
 * any uplink is (its frames polled, its carrier from netlink or its dummy link, its
 * counters in the monitor's records as the device's), told which systems are in the view
 * and which distribute, and shown in QUERY with what it carried by kind.
 *
 * Why the IVL switch does not open the device itself: z/VM's IVL switch is the systems'
 * private network for the Global VSWITCHes (z/VM Connectivity); zvswitch carries their
 * frames on it, so the device is the Global VSWITCH's, and the TYPE IVL switch keeps none
 * (daemon_reconcile.c: no uplink for it).
 * A device that cannot be opened yet (no interface) is tried again once a second.
 */
#include "daemon/daemon_impl.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "backends/ivl_port.h"
#include "monitor/monrec.h"

#define RETRY_NS 1000000000ull

/* The Global VSWITCH's id in the IVL header: the same on every system (its name). */
static uint16_t vswitch_id(const char *name)
{
    uint32_t h = 2166136261u;           /* FNV-1a */
    for (const char *c = name; *c; c++)
        h = (h ^ (uint8_t)*c) * 16777619u;
    return (uint16_t)(h ^ (h >> 16));
}

static const struct zvs_cfg_vswitch *ivl_switch(const struct zvs_cfg *cfg)
{
    for (unsigned i = 0; i < cfg->nvswitch; i++)
        if (cfg->vswitch[i].scope == ZVS_VSW_IVL && cfg->vswitch[i].nrdev)
            return &cfg->vswitch[i];
    return NULL;
}

static void not_opened(struct zvsd *d, const char *why, uint64_t now)
{
    if (strcmp(why, d->ivl_port_why) != 0)
        zvs_warn("IVL port: %s", why);
    snprintf(d->ivl_port_why, sizeof d->ivl_port_why, "%s", why);
    d->ivl_port_retry = now + RETRY_NS;
}

void zvsd_ivl_port_sync(struct zvsd *d, const char *vswitch, uint8_t index, char domain,
                        uint64_t now)
{
    struct d_switch *ds = zvsd_switch_by_name(d, vswitch);
    if (d->ivl_port || !ds || !ds->sw || now < d->ivl_port_retry)
        return;
    const struct zvs_cfg_vswitch *iv = ivl_switch(d->run);
    if (!iv) {
        not_opened(d, "no VSWITCH of TYPE IVL with an RDEV", now);
        return;
    }
    const char *ifname = NULL;
    uint8_t mac[6];
    char why[96], rdev[12];
    int err = 0;
    zvs_rdev_format(iv->rdev[0], rdev, sizeof rdev);
    struct zvs_port *lower = zvsd_open_rdev(d, iv->rdev[0], &ifname, mac, why, sizeof why, &err);
    if (!lower) {
        char text[160];
        snprintf(text, sizeof text, "RDEV %s of VSWITCH %s: %s", rdev, iv->name, why);
        not_opened(d, text, now);
        return;
    }
    struct zvs_ivl_port_params pp = { .self = index, .domain = domain,
                                      .vswitch = vswitch_id(vswitch) };
    struct zvs_port *p = zvs_ivl_port_open(lower, &pp, &err);     /* owns lower */
    if (p && (err = zvs_switch_add_ivl_port(ds->sw, p)) < 0) {
        p->ops->destroy(p);
        p = NULL;
    }
    if (!p) {
        snprintf(why, sizeof why, "RDEV %s: %s", rdev, strerror(-err));
        not_opened(d, why, now);
        return;
    }
    zvsd_track_uplink(d, ds, p, ifname, false);
    d->ivl_port = p;
    d->ivl_port_ds = ds;
    snprintf(d->ivl_port_on, sizeof d->ivl_port_on, "%s", iv->name);
    d->ivl_port_rdev = iv->rdev[0];
    d->ivl_port_why[0] = '\0';
    zvs_info("VSWITCH %s: IVL port on RDEV %s (%s, MTU %u for the guests' frames)", vswitch,
             rdev, ifname, (unsigned)p->mtu);
}

void zvsd_ivl_port_close(struct zvsd *d, uint64_t now)
{
    struct zvs_port *p = d->ivl_port;
    if (!p)
        return;
    if (d->stopping) {                  /* every watch is gone; the switch takes the port */
        d->ivl_port = NULL;
        d->ivl_port_ds = NULL;
        return;
    }
    for (unsigned i = 0; i < d->nup; i++)
        if (d->up[i].port == p)
            zvsd_monitor_uplink_gone(d, &d->up[i], ZVS_MON_FAIL_DETACHED, now);
    zvsd_untrack_uplink(d, p);
    zvs_info("VSWITCH %s: IVL port closed", d->ivl_port_ds->cfg.name);
    zvs_switch_remove_port(d->ivl_port_ds->sw, p);
    d->ivl_port = NULL;
    d->ivl_port_ds = NULL;
    d->ivl_port_retry = 0;
}

bool zvsd_ivl_port_current(const struct zvsd *d)
{
    if (!d->ivl_port)
        return true;
    const struct zvs_cfg_vswitch *iv = ivl_switch(d->run);
    return iv && strcmp(iv->name, d->ivl_port_on) == 0 &&
           iv->rdev[0].devno == d->ivl_port_rdev.devno &&
           iv->rdev[0].port == d->ivl_port_rdev.port;
}

void zvsd_ivl_port_switch_gone(struct zvsd *d, struct d_switch *ds, uint64_t now)
{
    if (d->ivl_port && d->ivl_port_ds == ds)
        zvsd_ivl_port_close(d, now);
}

void zvsd_ivl_port_view(struct zvsd *d, uint8_t present, uint8_t distributing)
{
    if (d->ivl_port)
        zvs_ivl_port_set_view(d->ivl_port, present, distributing);
}

/* One direction's frames and bytes by kind (and, sent, those no system could take). */
static void kinds_line(struct zvs_cp_response *r, const char *what, const uint64_t *frames,
                       const uint64_t *bytes, bool sent, uint64_t no_system)
{
    char tail[40] = "";
    if (sent)
        snprintf(tail, sizeof tail, "  No system: %llu", (unsigned long long)no_system);
    zvs_cp_printf(r, "    %s OUTBOUND %llu (%llu bytes)  INBOUND %llu (%llu bytes)"
                  "  FLOOD %llu (%llu bytes)%s", what,
                  (unsigned long long)frames[ZVS_IVL_OUTBOUND],
                  (unsigned long long)bytes[ZVS_IVL_OUTBOUND],
                  (unsigned long long)frames[ZVS_IVL_INBOUND],
                  (unsigned long long)bytes[ZVS_IVL_INBOUND],
                  (unsigned long long)frames[ZVS_IVL_FLOOD],
                  (unsigned long long)bytes[ZVS_IVL_FLOOD], tail);
}

void zvsd_ivl_port_query(struct zvsd *d, struct zvs_cp_response *r)
{
    const struct zvs_port *p = d->ivl_port;
    if (!p) {
        zvs_cp_printf(r, "  IVL port: not open%s%s", d->ivl_port_why[0] ? ": " : "",
                      d->ivl_port_why);
        return;
    }
    struct zvs_ivl_port_stats st;
    zvs_ivl_port_stats(p, &st);
    const struct zvs_ivl_link_stats *l = &st.link;
    uint64_t bad = 0;
    for (unsigned k = 0; k < ZVS_IVL_FE_COUNT; k++)
        bad += l->rx_bad[k];
    zvs_cp_printf(r, "  IVL port: %s  %s  MTU: %u", p->name, p->carrier ? "UP" : "DOWN",
                  (unsigned)p->mtu);
    kinds_line(r, "Sent:    ", l->tx_frames, l->tx_bytes, true, st.no_system);
    kinds_line(r, "Received:", l->rx_frames, l->rx_bytes, false, 0);
    zvs_cp_printf(r, "    Refused: %llu  own: %llu  other VSWITCH: %llu  not ours: %llu"
                  "  Lost: %llu  Reordered: %llu",
                  (unsigned long long)bad, (unsigned long long)l->rx_own,
                  (unsigned long long)l->rx_other_vswitch, (unsigned long long)st.not_ours,
                  (unsigned long long)l->rx_lost, (unsigned long long)l->rx_reordered);
}
