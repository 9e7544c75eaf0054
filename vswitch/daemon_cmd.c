/* The executor of CP commands on the running vswitchd (the console's callback).
 *
 * Owns: what each parsed command (cp-commands/command.h) does to the running switches,
 * port groups and LACP engines, and the text of the responses.
 * Rules:
 *  - A command that fails changes nothing: every operand is checked against the running
 *    system before the first change (devices mapped, not in use elsewhere, room in the
 *    group); a JOIN whose n-th device cannot be opened leaves the devices it joined.
 *  - Changes happen inside the console's event-loop callback, between bursts, so the data
 *    path never sees half a change: LEAVE moves the member's buckets (published map),
 *    flushes its backend and only then destroys it.
 *  - Responses: z/VM's wording where the reference confirms it, ours otherwise (the
 *    catalogue in cp-commands/cp_messages.c for errors; the QUERY shapes are documented in
 *    cp-commands/README.md).
 * Hazard: port groups are created by SYSTEM CONFIG in this version; SET PORT GROUP on a
 * group no running VSWITCH uses is refused (HCP1110E), not stored for a later DEFINE.
 */
#include "daemon_impl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cp-commands/cp_messages.h"
#include "monitor/monrec.h"
#include "pgroup.h"

static struct d_switch *switch_of_group(struct zvsd *d, const char *group)
{
    for (unsigned i = 0; i < d->nsw; i++)
        if (d->sw[i].lag && strcmp(zvs_lag_params(d->sw[i].lag)->pg.name, group) == 0)
            return &d->sw[i];
    return NULL;
}

static struct d_switch *switch_by_name(struct zvsd *d, const char *name)
{
    for (unsigned i = 0; i < d->nsw; i++)
        if (strcmp(d->sw[i].cfg.name, name) == 0)
            return &d->sw[i];
    return NULL;
}

/* The uplink (RDEV or group member) of any switch whose device is `dev`, or NULL. */
static struct d_uplink *uplink_of_rdev(struct zvsd *d, struct zvs_rdev dev)
{
    char name[12];
    zvs_rdev_format(dev, name, sizeof name);
    for (unsigned i = 0; i < d->nup; i++)
        if (d->up[i].port && strcmp(d->up[i].port->name, name) == 0)
            return &d->up[i];
    return NULL;
}

static bool rdev_mapped(const struct zvsd *d, struct zvs_rdev dev)
{
    for (unsigned k = 0; k < d->nrdevice; k++)
        if (zvs_rdev_equal(d->rdevice[k].rdev, dev))
            return true;
    return false;
}

static uint64_t now_of(const struct zvsd *d)
{
    return zvs_evloop_now(d->loop);
}

static void pg_join(struct zvsd *d, struct d_switch *ds, const struct zvs_cmd *c,
                    struct zvs_cp_response *r)
{
    struct zvs_pgroup *g = zvs_lag_group(ds->lag);
    char dev[12];
    if (zvs_pgroup_members(g) + c->nrdev > ZVS_PG_MAX_MEMBERS) {
        char cnt[8], first[12];
        snprintf(cnt, sizeof cnt, "%u", zvs_pgroup_members(g));
        zvs_rdev_format(c->rdev[0], first, sizeof first);
        zvs_cp_error(r, ZVS_CPMSG_GROUP_FULL, c->name, cnt, first);
        return;
    }
    for (unsigned i = 0; i < c->nrdev; i++) {
        zvs_rdev_format(c->rdev[i], dev, sizeof dev);
        if (!rdev_mapped(d, c->rdev[i])) {
            zvs_cp_error(r, ZVS_CPMSG_DEVICE_UNMAPPED, dev);
            return;
        }
        const struct d_uplink *u = uplink_of_rdev(d, c->rdev[i]);
        if (u && u->member) {
            zvs_cp_error(r, ZVS_CPMSG_DEVICE_IN_GROUP, dev,
                         zvs_lag_params(u->ds->lag)->pg.name);
            return;
        }
        if (u) {
            char why[64];
            snprintf(why, sizeof why, "device %s is an RDEV of VSWITCH %s", dev, u->ds->cfg.name);
            zvs_cp_error(r, ZVS_CPMSG_COMMAND_FAILED, "SET PORT GROUP", why);
            return;
        }
        for (unsigned j = 0; j < i; j++)
            if (zvs_rdev_equal(c->rdev[i], c->rdev[j])) {
                zvs_cp_error(r, ZVS_CPMSG_DEVICE_REPEATED, dev);
                return;
            }
    }
    uint64_t now = now_of(d);
    for (unsigned i = 0; i < c->nrdev; i++) {
        const char *ifname = NULL;
        uint8_t mac[6] = { 0 };
        zvs_rdev_format(c->rdev[i], dev, sizeof dev);
        struct zvs_port *p = zvsd_open_rdev(d, ds, c->rdev[i], &ifname, mac);
        if (!p) {
            char why[64];
            snprintf(why, sizeof why, "the interface of device %s cannot be opened", dev);
            zvs_cp_error(r, ZVS_CPMSG_COMMAND_FAILED, "SET PORT GROUP JOIN", why);
            return;
        }
        int rc = zvs_lag_join(ds->lag, p, dev, mac, zvsd_if_speed_mbps(ifname, 10000), now);
        if (rc < 0) {
            p->ops->destroy(p);
            zvs_cp_error(r, ZVS_CPMSG_COMMAND_FAILED, "SET PORT GROUP JOIN", strerror(-rc));
            return;
        }
        zvsd_track_uplink(d, ds, p, ifname, true);
        zvs_info("SET PORT GROUP %s JOIN %s (%s)", c->name, dev, ifname);
    }
    zvs_cp_printf(r, "Command complete");
}

static void pg_leave(struct zvsd *d, struct d_switch *ds, const struct zvs_cmd *c,
                     struct zvs_cp_response *r)
{
    struct zvs_port *ports[ZVS_CMD_MAX_RDEVS];
    char dev[12];
    for (unsigned i = 0; i < c->nrdev; i++) {
        zvs_rdev_format(c->rdev[i], dev, sizeof dev);
        struct d_uplink *u = uplink_of_rdev(d, c->rdev[i]);
        if (!u || u->ds != ds || !u->member) {
            zvs_cp_error(r, ZVS_CPMSG_DEVICE_NOT_IN_GROUP, dev, c->name);
            return;
        }
        ports[i] = u->port;
    }
    uint64_t now = now_of(d);
    for (unsigned i = 0; i < c->nrdev; i++) {
        zvs_rdev_format(c->rdev[i], dev, sizeof dev);
        struct d_uplink *u = uplink_of_rdev(d, c->rdev[i]);
        if (u)
            zvsd_monitor_uplink_event(d, u, false, ZVS_MON_FAIL_LEAVE, now);
        zvsd_untrack_uplink(d, ports[i]);
        zvs_lag_leave(ds->lag, ports[i], now);
        zvs_info("SET PORT GROUP %s LEAVE %s", c->name, dev);
    }
    zvs_cp_printf(r, "Command complete");
}

static void set_port_group(struct zvsd *d, const struct zvs_cmd *c, struct zvs_cp_response *r)
{
    struct d_switch *ds = switch_of_group(d, c->name);
    if (!ds) {
        zvs_cp_error(r, ZVS_CPMSG_GROUP_NOT_FOUND, c->name);
        return;
    }
    switch (c->pg_op) {
    case ZVS_CMD_PG_JOIN:
        pg_join(d, ds, c, r);
        break;
    case ZVS_CMD_PG_LEAVE:
        pg_leave(d, ds, c, r);
        break;
    case ZVS_CMD_PG_LACP:
        zvs_lag_set_lacp(ds->lag, c->lacp_active, now_of(d));
        zvs_info("SET PORT GROUP %s LACP %s", c->name, c->lacp_active ? "ACTIVE" : "INACTIVE");
        zvs_cp_printf(r, "Command complete");
        break;
    case ZVS_CMD_PG_INTERVAL:
        zvs_pgroup_set_interval(zvs_lag_group(ds->lag), c->interval_s, now_of(d));
        zvs_info("SET PORT GROUP %s INTERVAL %u", c->name, c->interval_s);
        zvs_cp_printf(r, "Command complete");
        break;
    }
}

/* Runs `show` for every group a running VSWITCH uses whose name matches (all when no name
 * is given); says so when there is none. */
static void each_group(struct zvsd *d, const struct zvs_cmd *c, struct zvs_cp_response *r,
                       void (*show)(struct zvsd *, const struct d_switch *,
                                    struct zvs_cp_response *))
{
    unsigned shown = 0;
    for (unsigned i = 0; i < d->nsw; i++) {
        const struct d_switch *ds = &d->sw[i];
        if (!ds->lag || (c->name[0] && strcmp(c->name, zvs_lag_params(ds->lag)->pg.name) != 0))
            continue;
        show(d, ds, r);
        shown++;
    }
    if (shown)
        return;
    if (c->name[0])
        zvs_cp_error(r, ZVS_CPMSG_GROUP_NOT_FOUND, c->name);
    else
        zvs_cp_error(r, ZVS_CPMSG_NO_GROUPS);
}

/* QUERY PORT GROUP: one block per group, a line per member (our layout; z/VM's text is
 * UNCONFIRMED, see cp-commands/README.md). */
static void show_port_group(struct zvsd *d, const struct d_switch *ds, struct zvs_cp_response *r)
{
    struct zvs_pgroup *g = zvs_lag_group(ds->lag);
    const struct zvs_pg_params *pp = zvs_pgroup_params(g);
    char ivl[12];
    zvs_cp_printf(r, "PORT GROUP %-8s VSWITCH %-8s LACP: %s  Interval: %s  Members: %u"
                  "  Distributing: %u", pp->name, ds->cfg.name,
                  zvs_lag_params(ds->lag)->pg.lacp ? "ACTIVE" : "INACTIVE",
                  zvs_pg_interval_str(pp->interval_s, ivl, sizeof ivl),
                  zvs_pgroup_members(g), zvs_pgroup_distributing(g));
    const struct zvs_pg_stats *st = zvs_pgroup_stats(g);
    zvs_cp_printf(r, "  Distribution: %s  Policy: %s  Passes: %llu  Moves: %llu"
                  "  Failover moves: %llu  Marker flushes: %llu  Marker timeouts: %llu",
                  zvs_pg_hash_name(pp->hash), zvs_pg_policy_name(pp->policy),
                  (unsigned long long)st->passes, (unsigned long long)st->moves,
                  (unsigned long long)st->failover_moves,
                  (unsigned long long)st->marker_flushes,
                  (unsigned long long)st->marker_timeouts);
    for (unsigned s = 0; s < ZVS_PG_MAX_MEMBERS; s++) {
        const struct zvs_pg_member *m = zvs_pgroup_member(g, s);
        struct zvs_port *p = zvs_lag_member_port(ds->lag, s);
        if (!m || !m->used || !p)
            continue;
        zvs_cp_printf(r, "  RDEV %-8s %-6s Collecting: %-3s Distributing: %-3s Buckets: %3u"
                      "  Out: %.1f Mbit/s  In: %.1f Mbit/s", m->rdev,
                      p->carrier ? "UP" : "DOWN", m->collecting ? "YES" : "NO",
                      m->distributing ? "YES" : "NO", m->buckets, m->out_bps / 1e6,
                      m->in_bps / 1e6);
    }
}

/* Text of a FILE*-writing report, appended line by line to the response. */
static void append_text(struct zvs_cp_response *r, const char *text, size_t len)
{
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        zvs_cp_printf(r, "%.*s", (int)n, p);
        p += n + (nl ? 1 : 0);
    }
}

/* QUERY LACP: the group block and each member's LACP report (lag.c, lacp_show.c). */
static void show_lacp(struct zvsd *d, const struct d_switch *ds, struct zvs_cp_response *r)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) {
        zvs_cp_error(r, ZVS_CPMSG_COMMAND_FAILED, "QUERY LACP", "out of storage");
        return;
    }
    zvs_lag_report(ds->lag, now_of(d), f);
    fclose(f);
    append_text(r, text, len);
    free(text);
}

static void query_vswitch(struct zvsd *d, const struct zvs_cmd *c, struct zvs_cp_response *r)
{
    const struct d_switch *only = NULL;
    if (c->name[0]) {
        only = switch_by_name(d, c->name);
        if (!only) {
            zvs_cp_error(r, ZVS_CPMSG_VSWITCH_NOT_FOUND, c->name);
            return;
        }
    }
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) {
        zvs_cp_error(r, ZVS_CPMSG_COMMAND_FAILED, "QUERY", "out of storage");
        return;
    }
    zvsd_report_switch(d, only, f);
    fclose(f);
    if (!c->details) {
        /* Without DETAILS: the switch lines only, not the per-port counters. */
        char *p = text;
        while (p && *p) {
            char *nl = strchr(p, '\n');
            size_t n = nl ? (size_t)(nl - p) : strlen(p);
            if (strncmp(p, "VSWITCH ", 8) == 0 || strncmp(p, "  PERSISTENT", 12) == 0 ||
                strncmp(p, "  VLAN", 6) == 0 || strncmp(p, "  QueueStorage", 14) == 0 ||
                strncmp(p, "    RDEV:", 9) == 0 || strncmp(p, "  Uplink Port:", 14) == 0 ||
                strncmp(p, "PORT GROUP", 10) == 0)
                zvs_cp_printf(r, "%.*s", (int)n, p);
            p = nl ? nl + 1 : NULL;
        }
    } else {
        append_text(r, text, len);
    }
    free(text);
}

static void set_lacp_fault(struct zvsd *d, const struct zvs_cmd *c, struct zvs_cp_response *r)
{
    char dev[12];
    zvs_rdev_format(c->rdev[0], dev, sizeof dev);
    struct d_uplink *u = uplink_of_rdev(d, c->rdev[0]);
    if (!u || !u->member || !u->ds->lag) {
        zvs_cp_error(r, ZVS_CPMSG_DEVICE_NOT_PORT, dev);
        return;
    }
    int slot = zvs_lag_member_slot(u->ds->lag, u->port);
    const struct zvs_lacp_port *lp = slot < 0 ? NULL : zvs_lag_member_lacp(u->ds->lag, (unsigned)slot);
    if (!lp) {
        zvs_cp_error(r, ZVS_CPMSG_COMMAND_FAILED, "SET LACP",
                     "the device's port group runs LACP INACTIVE");
        return;
    }
    struct zvs_lacp_faults f = *zvs_lacp_port_faults(lp);
    switch (c->fault) {
    case ZVS_CMD_FAULT_DROPRX:  f.drop_rx = c->fault_on; break;
    case ZVS_CMD_FAULT_DROPTX:  f.drop_tx = c->fault_on; break;
    case ZVS_CMD_FAULT_DELAYTX: f.delay_tx_ns = (uint64_t)c->delay_ms * 1000000ull; break;
    }
    zvs_lag_set_faults(u->ds->lag, u->port, &f, now_of(d));
    zvs_warn("SET LACP %s: fault knobs drop_rx %s, drop_tx %s, delay_tx %llu ms", dev,
             f.drop_rx ? "ON" : "OFF", f.drop_tx ? "ON" : "OFF",
             (unsigned long long)(f.delay_tx_ns / 1000000ull));
    zvs_cp_printf(r, "Command complete");
}

void zvsd_execute(void *arg, const char *userid, uint32_t privclass, const char *line,
                  struct zvs_cp_response *r)
{
    struct zvsd *d = arg;
    struct zvs_cmd c;
    if (zvs_cmd_parse(line, privclass, &c, r) < 0) {
        zvs_info("console: %s: %s: refused (rc %d)", userid, line, r->rc);
        return;
    }
    zvs_info("console: %s: %s", userid, line);
    switch (c.verb) {
    case ZVS_CMD_SET_PORT_GROUP:   set_port_group(d, &c, r); break;
    case ZVS_CMD_QUERY_PORT_GROUP: each_group(d, &c, r, show_port_group); break;
    case ZVS_CMD_QUERY_LACP:       each_group(d, &c, r, show_lacp); break;
    case ZVS_CMD_QUERY_VSWITCH:    query_vswitch(d, &c, r); break;
    case ZVS_CMD_SET_LACP_FAULT:   set_lacp_fault(d, &c, r); break;
    }
}
