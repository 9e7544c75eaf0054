/* The executor of CP commands on the running vswitchd (the console's callback).
 *
 * Owns: the dispatch of a parsed command (cp-commands/command.h): configuration commands
 * go through the running configuration (cp-commands/cfg_apply.c) and then the reconciler
 * (daemon_reconcile.c) makes the data plane match; queries go to daemon_query.c; the
 * actions that change no configuration (COUNTERS CLEAR, SWITCHOVER, SET LACP's fault
 * knobs) are here.
 * Rules:
 *  - A command that fails changes nothing: it is applied to a copy of the running
 *    configuration (d->scratch, zvs_cfg_copy: the used parts only) and the copy becomes
 *    the running one only when the whole command was valid. The data plane is touched
 *    only after that.
 *  - A command whose data-plane step fails (a device that cannot be opened, a member
 *    that cannot join, a NIC that cannot be made, coupled or bound; a COUPLE that leaves
 *    its NIC uncoupled) is rolled back: the previous configuration is restored and
 *    reconciled back, the messages the command would have said are dropped, and the
 *    command ends with ZVSCMD1119S, so the configuration never claims what the data plane
 *    does not hold. The data plane's fingerprint before the command is compared with the
 *    one after the rollback; a difference (README.md: what cannot be undone) adds
 *    ZVSCMD1150W and an error in the log.
 *  - Changes happen inside the console's event-loop callback, between bursts, so the data
 *    path never sees half a change.
 */
#include "daemon/daemon_impl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cp-commands/cfg_apply.h"
#include "cp-commands/cp_messages.h"
#include "monitor/monrec.h"
#include "lag/pgroup.h"

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

static uint64_t now_of(const struct zvsd *d)
{
    return zvs_evloop_now(d->loop);
}

static const char *owner_of(const struct zvs_cmd *c, const char *issuer)
{
    return c->target[0] ? c->target : issuer;
}

/* Checks only the daemon can make before a configuration command: a NIC must have
 * something to drive it here before it can couple. */
static int precheck(struct zvsd *d, const struct zvs_cmd *c, const char *issuer,
                    struct zvs_cp_response *r)
{
    if (c->verb != ZVS_CMD_COUPLE)
        return 0;
    const char *owner = owner_of(c, issuer);
    int k = zvs_cfg_find_nic(d->run, owner, c->vdev);
    if (k >= 0 && !zvsd_nic_has_backend(d, &d->run->nic[k])) {
        char vdev[8];
        snprintf(vdev, sizeof vdev, "%04X", d->run->nic[k].vdev);
        zvs_cp_error(r, ZVS_CPMSG_NO_BACKEND, vdev, owner);
        return -ENODEV;
    }
    return 0;
}

static void swap_configs(struct zvsd *d)
{
    struct zvs_cfg *t = d->run;
    d->run = d->scratch;
    d->scratch = t;
}

/* Appends every line of `from` to `to`. */
static void append_response(struct zvs_cp_response *to, const struct zvs_cp_response *from)
{
    const char *p = from->text, *end = from->text + from->len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        zvs_cp_printf(to, "%.*s", (int)n, p);
        p += n + (nl ? 1 : 0);
    }
}

/* The command's name in ZVSCMD1119S and ZVSCMD1150W. */
static const char *title_of(const struct zvs_cmd *c)
{
    switch (c->verb) {
    case ZVS_CMD_DEFINE_VSWITCH: return "DEFINE VSWITCH";
    case ZVS_CMD_SET_VSWITCH:    return "SET VSWITCH";
    case ZVS_CMD_DETACH_VSWITCH: return "DETACH VSWITCH";
    case ZVS_CMD_SET_PORT_GROUP: return "SET PORT GROUP";
    case ZVS_CMD_DEFINE_NIC:     return "DEFINE NIC";
    case ZVS_CMD_DETACH_NIC:     return "DETACH NIC";
    case ZVS_CMD_COUPLE:         return "COUPLE";
    case ZVS_CMD_UNCOUPLE:       return "UNCOUPLE";
    case ZVS_CMD_RESOLVER:       return "RESOLVER";
    default:                     return "?";
    }
}

/* The command's data plane could not follow: the previous configuration is restored and
 * reconciled back (undoing what the command's pass did), what the command said is
 * dropped, and the answer is the pass's warnings (the failed step among them) and
 * ZVSCMD1119S; ZVSCMD1150W first when the data plane is not what it was (`before`). */
static void rollback(struct zvsd *d, const struct zvs_cmd *c, uint64_t before,
                     const struct zvs_cp_response *warnings, const char *why,
                     struct zvs_cp_response *r)
{
    swap_configs(d);
    zvsd_reconcile(d, NULL, NULL, NULL, 0);
    zvsd_say_release(d, false);
    zvsd_vxlan_mtu_settled(d, false);   /* the taps it coupled stay as they were */
    zvs_warn("%s: rolled back: %s", title_of(c),
             why[0] ? why : "the NIC could not be coupled");
    append_response(r, warnings);
    if (zvsd_fingerprint(d) != before) {
        zvs_err("%s: the rollback did not restore the data plane exactly", title_of(c));
        zvs_cp_error(r, ZVS_CPMSG_ROLLBACK_INEXACT, title_of(c));
    }
    if (c->verb == ZVS_CMD_COUPLE)
        zvs_cp_error(r, ZVS_CPMSG_COMMAND_FAILED, "COUPLE",
                     "the NIC could not be coupled (see above)");
    else
        zvs_cp_error(r, ZVS_CPMSG_COMMAND_FAILED, title_of(c),
                     "the data plane could not follow (see above)");
}

static void configure(struct zvsd *d, const struct zvs_cmd *c, const char *userid,
                      uint32_t privclass, struct zvs_cp_response *r)
{
    struct zvs_issuer who = { .privclass = privclass };
    struct zvs_cp_response done, warnings;
    snprintf(who.userid, sizeof who.userid, "%s", userid);
    if (precheck(d, c, userid, r) < 0)
        return;
    zvs_cfg_copy(d->scratch, d->run);
    if (zvs_cfg_apply(d->scratch, c, &who, r) < 0)
        return;
    uint64_t before = zvsd_fingerprint(d);
    swap_configs(d);
    /* The success text waits until the data plane has followed: a command that cannot be
     * carried out answers with the reason and ZVSCMD1119S, not with "is connected" as well.
     * An issuer without class B reads the warnings about its own NICs only. */
    done = *r;
    zvs_cp_response_init(r);
    zvs_cp_response_init(&warnings);
    char why[256] = "";
    zvsd_say_hold(d);
    bool ok = zvsd_reconcile(d, &warnings, privclass & ZVS_PRIVCLASS('B') ? NULL : userid,
                             why, sizeof why) >= 0;
    if (ok && c->verb == ZVS_CMD_COUPLE) {
        const char *owner = owner_of(c, userid);
        int k = zvs_cfg_find_nic(d->run, owner, c->vdev);
        const struct d_nic *n = k >= 0 ? zvsd_nic_find(d, owner, d->run->nic[k].vdev) : NULL;
        ok = n && n->ds;
    }
    if (ok) {
        zvsd_say_release(d, true);
        zvsd_vxlan_mtu_settled(d, true);        /* after its ZVSNIC1176I */
        append_response(r, &done);
        append_response(r, &warnings);
    } else {
        rollback(d, c, before, &warnings, why, r);
    }
    zvs_cp_response_fini(&done);
    zvs_cp_response_fini(&warnings);
}

/* Moves the kinds of counters asked for (ZVS_CMD_CTR_*; 0 = all) of *base up to now: the
 * reports subtract the base, so they count from here. The port's own counters, which the
 * monitor's intervals are computed from, never go backwards. */
static void clear_base(const struct zvs_port *p, uint8_t kind, struct zvs_device_counters *base)
{
    struct zvs_device_counters now;
    zvs_port_device_counters(zvsd_wire_port(p), &now);
    if (kind == 0 || (kind & ZVS_CMD_CTR_DATA)) {
        base->tx_bytes = now.tx_bytes;
        base->tx_packets = now.tx_packets;
        base->rx_bytes = now.rx_bytes;
        base->rx_packets = now.rx_packets;
    }
    if (kind == 0 || (kind & ZVS_CMD_CTR_DISCARDED)) {
        base->tx_discards = now.tx_discards;
        base->rx_discards = now.rx_discards;
    }
    if (kind == 0 || (kind & ZVS_CMD_CTR_ERRORS)) {
        base->tx_errors = now.tx_errors;
        base->rx_errors = now.rx_errors;
    }
}

/* SET VSWITCH ... COUNTERS CLEAR [UPLINK | BRIDGEPORT | ALL] [DATA | DISCARDED | ERRORS]:
 * what QUERY shows counts from now. UPLINK: the uplink devices; ALL: they and the coupled
 * adapters (our reading: IBM's text for ALL was not read); BRIDGEPORT: we emulate no bridge
 * port, so nothing is cleared. */
static void counters_clear(struct zvsd *d, const struct zvs_cmd *c, struct zvs_cp_response *r)
{
    static const char *const what[] = {
        [ZVS_CMD_COUNTERS_ALL] = "ALL", [ZVS_CMD_COUNTERS_UPLINK] = "UPLINK",
        [ZVS_CMD_COUNTERS_BRIDGEPORT] = "BRIDGEPORT",
    };
    struct d_switch *ds = zvsd_switch_by_name(d, c->name);
    if (!ds) {
        zvs_cp_error(r, ZVS_CPMSG_VSWITCH_NOT_FOUND, c->name);
        return;
    }
    bool up = c->counters != ZVS_CMD_COUNTERS_BRIDGEPORT;
    for (unsigned i = 0; up && i < d->nup; i++)
        if (d->up[i].port && d->up[i].ds == ds)
            clear_base(d->up[i].port, c->counters_kind, &d->up[i].base);
    for (unsigned i = 0; c->counters == ZVS_CMD_COUNTERS_ALL && i < d->nnic; i++)
        if (d->nic[i].used && d->nic[i].ds == ds)
            clear_base(d->nic[i].port, c->counters_kind, &d->nic[i].base);
    zvs_info("VSWITCH %s: COUNTERS CLEAR %s (kinds %#x)", c->name, what[c->counters],
             (unsigned)c->counters_kind);
    zvs_cp_printf(r, "Command complete");
}

/* SET VSWITCH ... SWITCHOVER: the RDEV failover on demand. */
static void switchover(struct zvsd *d, const struct zvs_cmd *c, struct zvs_cp_response *r)
{
    struct d_switch *ds = zvsd_switch_by_name(d, c->name);
    if (!ds) {
        zvs_cp_error(r, ZVS_CPMSG_VSWITCH_NOT_FOUND, c->name);
        return;
    }
    struct zvs_port *to = NULL;
    char dev[12] = "";
    if (c->nrdev == 1) {
        zvs_rdev_format(c->rdev[0], dev, sizeof dev);
        struct d_uplink *u = uplink_of_rdev(d, c->rdev[0]);
        if (!u || u->ds != ds || u->member) {
            char why[64];
            snprintf(why, sizeof why, "%s is not one of its RDEV devices", dev);
            zvs_cp_error(r, ZVS_CPMSG_NO_SWITCHOVER, c->name, why);
            return;
        }
        to = u->port;
    }
    int rc = zvs_switch_switchover(ds->sw, to);
    if (rc < 0) {
        const char *why = rc == -ENODEV ? "no other RDEV device is ready" :
                          rc == -ENETDOWN ? "the device has no carrier" :
                          rc == -EALREADY ? "the device is already active" : strerror(-rc);
        zvs_cp_error(r, ZVS_CPMSG_NO_SWITCHOVER, c->name, why);
        return;
    }
    const struct zvs_port *a = zvs_switch_active_uplink(ds->sw);
    zvs_info("VSWITCH %s: SWITCHOVER to RDEV %s", c->name, a ? a->name : "?");
    zvs_cp_printf(r, "VSWITCH SYSTEM %s uplink switched over to RDEV %s", c->name,
                  a ? a->name : "?");
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
    if (zvsd_guests_exec(d, userid, &c, r)) {
        zvs_info("console: %s: %s (rc %d)", userid, line, r->rc);
        return;
    }
    zvs_info("console: %s: %s", userid, line);
    zvsd_nics_fold(d);                  /* counters exact when shown, cleared or uncoupled */
    if (zvs_cfg_cmd_is_config(&c)) {
        configure(d, &c, userid, privclass, r);
        return;
    }
    switch (c.verb) {
    case ZVS_CMD_SET_LACP_FAULT:
        set_lacp_fault(d, &c, r);
        break;
    case ZVS_CMD_SET_VSWITCH:
        if (c.vs_op == ZVS_CMD_VS_COUNTERS_CLEAR)
            counters_clear(d, &c, r);
        else
            switchover(d, &c, r);
        break;
    default:
        zvsd_query(d, &c, userid, privclass, r);
        break;
    }
}
