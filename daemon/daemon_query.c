/* QUERY responses of the running vswitchd: QUERY VSWITCH (brief, DETAILS, ACCESSLIST,
 * ACTIVE), QUERY NIC [DETAILS], QUERY VMLAN, QUERY PORT GROUP and QUERY LACP, and the
 * counters report (vswitchd -s, SIGUSR1): QUERY VSWITCH ALL DETAILS with, after each
 * switch, its port group's LACP report and MAC table (ours; scripts read them there).
 *
 * Shapes: IBM's where a source shows them, ours elsewhere; cp-commands/README.md
 * ("Responses") names the source of every line and marks ours. QUERY VSWITCH follows the
 * IBM report's example (header, attribute lines, "Uplink Port:" / "State:", RDEV lines
 * with VDEV: and Controller:) with xCAT's recorded z/VM responses for the columns; our
 * LACP detail is QUERY LACP's, never appended to IBM's response. Pinned by
 * tests/unit/test_daemon_ccb.c (typed from the sources) and the golden files
 * (tests/golden/hermetic/ccb_*.txt exactly, tests/golden/commands/query_*.txt masked).
 * Rules:
 *  - Configuration comes from d->run (what the operator defined), state and counters from
 *    the data plane; a NIC coupled in the configuration that the data plane could not
 *    couple shows "State: not coupled (see the log)".
 *  - Counters are the z/VM device view minus the COUNTERS CLEAR base of the port.
 *  - A class G issuer without class B sees only switches it may couple to, and in them
 *    only its own adapters (no uplink counters, no other guests).
 */
#include "daemon/daemon_impl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cp-commands/cfg_apply.h"
#include "cp-commands/cp_messages.h"
#include "dataplane/mac_table.h"
#include "lacp/lacp_port.h"
#include "lacp/pdu.h"
#include "lag/pgroup.h"

void zvsd_counters(const struct zvs_port *p, const struct zvs_device_counters *base,
                   struct zvs_device_counters *out)
{
    zvs_port_device_counters(zvsd_wire_port(p), out);
    if (!base)
        return;
    out->tx_bytes -= base->tx_bytes;
    out->tx_packets -= base->tx_packets;
    out->tx_discards -= base->tx_discards;
    out->tx_errors -= base->tx_errors;
    out->rx_bytes -= base->rx_bytes;
    out->rx_packets -= base->rx_packets;
    out->rx_discards -= base->rx_discards;
    out->rx_errors -= base->rx_errors;
}

static void show_counters(struct zvs_cp_response *r, const char *indent,
                          const struct zvs_port *p, const struct zvs_device_counters *base)
{
    struct zvs_device_counters c;
    zvsd_counters(p, base, &c);
    zvs_cp_printf(r, "%sRX Packets: %-14llu Discarded: %-14llu Errors: %llu", indent,
                  (unsigned long long)c.rx_packets, (unsigned long long)c.rx_discards,
                  (unsigned long long)c.rx_errors);
    zvs_cp_printf(r, "%sTX Packets: %-14llu Discarded: %-14llu Errors: %llu", indent,
                  (unsigned long long)c.tx_packets, (unsigned long long)c.tx_discards,
                  (unsigned long long)c.tx_errors);
    zvs_cp_printf(r, "%sRX Bytes: %-16llu TX Bytes: %llu", indent,
                  (unsigned long long)c.rx_bytes, (unsigned long long)c.tx_bytes);
    char line[512];
    size_t len = 0;
    for (int k = 0; k < ZVS_DROP__COUNT && len < sizeof line; k++) {
        uint64_t v = zvs_ctr_read(&p->ctr.drops[k]);
        if (v)
            len += (size_t)snprintf(line + len, sizeof line - len, "%s%s %llu",
                                    len ? "  " : "", zvs_drop_name((enum zvs_drop)k),
                                    (unsigned long long)v);
    }
    if (len)
        zvs_cp_printf(r, "%sDrops: %s", indent, line);
}

static const char *porttype_text(enum zvs_porttype pt)
{
    return pt == ZVS_PORTTYPE_TRUNK ? "Trunk" : "Access";
}

static const char *macprotect_text(enum zvs_macprotect m)
{
    return m == ZVS_MACPROTECT_ON ? "ON" : m == ZVS_MACPROTECT_OFF ? "OFF" : "Unspecified";
}

/* ---- QUERY VSWITCH ------------------------------------------------------------------- */

struct viewer {
    const char *userid;
    bool        operator;               /* class B: sees everything */
};

static bool nic_visible(const struct viewer *v, const struct d_nic *n)
{
    return v->operator || strcmp(v->userid, n->userid) == 0;
}

static bool switch_visible(const struct zvsd *d, const struct viewer *v, const char *name)
{
    if (v->operator)
        return true;
    int k = zvs_cfg_find_vswitch(d->run, name);
    if (k < 0)
        return false;
    if (zvs_cfg_find_grant(d->run, (unsigned)k, v->userid) >= 0)
        return true;
    for (unsigned i = 0; i < d->run->nnic; i++) {
        const struct zvs_cfg_nic *nic = &d->run->nic[i];
        if (nic->vswitch == k && strcmp(d->run->user[nic->user].userid, v->userid) == 0)
            return true;
    }
    return false;
}

static const char *switch_state(const struct d_switch *ds)
{
    if (ds->cfg.nouplink)
        return "Ready (NOUPLINK)";
    if (!ds->cfg.connect)
        return "Disconnected";
    if (ds->lag && zvs_pgroup_distributing(zvs_lag_group(ds->lag)) > 0)
        return "Ready";
    const struct zvs_port *a = zvs_switch_active_uplink(ds->sw);
    if (a && a->carrier)
        return "Ready";
    if (ds->cfg.nrdev == 0 && ds->cfg.group[0] == '\0')
        return "No uplink defined (RDEV NONE)";
    return "Device not ready";
}

/* Coupled adapters the viewer may see: all for class B, its own for class G (the count
 * of other users' guests is not a class G user's business either). */
static unsigned connected(const struct zvsd *d, const struct d_switch *ds,
                          const struct viewer *v)
{
    unsigned n = 0;
    for (unsigned i = 0; i < d->nnic; i++)
        n += d->nic[i].used && d->nic[i].ds == ds && nic_visible(v, &d->nic[i]);
    return n;
}

static void show_header(struct zvsd *d, const struct d_switch *ds, const struct viewer *v,
                        struct zvs_cp_response *r)
{
    const struct zvs_cfg_vswitch *vs = &ds->cfg;
    char mac[18];
    uint8_t sysmac[6] = { 0 };
    memcpy(sysmac, d->run->vmlan.macprefix, 3);
    zvs_mac_format(sysmac, mac, sizeof mac);
    /* The header and attribute lines: cp-commands/README.md "QUERY VSWITCH" names the
     * source of each (the IBM report's example, xCAT's recorded z/VM output). */
    /* A TYPE IVL switch says IVL where QDIO stands (the monitor's LANTYPE IVL = 6), a
     * Global VSWITCH GLOBAL where LOCAL stands (our reading of the IVL domain's switches:
     * no IBM sample of either response was found) */
    zvs_cp_printf(r, "VSWITCH SYSTEM %-8s Type: %-4s    Connected: %-4u Maxconn: INFINITE",
                  vs->name, vs->scope == ZVS_VSW_IVL ? "IVL" : "QDIO", connected(d, ds, v));
    zvs_cp_printf(r, "  PERSISTENT  RESTRICTED    ETHERNET                  Accounting: OFF");
    zvs_cp_printf(r, "  %-11s %s", vs->portbased ? "PORTBASED" : "USERBASED",
                  vs->scope == ZVS_VSW_GLOBAL ? "GLOBAL" : "LOCAL");
    if (vs->vlan_aware) {
        char native[8];
        if (vs->native_vid)
            snprintf(native, sizeof native, "%04u", vs->native_vid);
        else
            snprintf(native, sizeof native, "NONE");
        zvs_cp_printf(r, "  VLAN Aware  Default VLAN: %04u    Default Porttype: %-6s "
                      "Native VLAN: %s", vs->default_vid, porttype_text(vs->porttype), native);
    } else {
        zvs_cp_printf(r, "  VLAN Unaware");
    }
    zvs_cp_printf(r, "  MAC address: %s    MAC Protection: %s", mac,
                  macprotect_text(vs->macprotect));
    zvs_cp_printf(r, "  IPTimeout: %-9u QueueStorage: %u", zvs_cfg_iptimeout(vs),
                  vs->queuestorage_mb);
    /* VEPA (reflective relay to the physical switch) is not emulated: always OFF. */
    zvs_cp_printf(r, "  Isolation Status: %-11sVEPA Status: OFF", vs->isolation ? "ON" : "OFF");
}

static const struct d_uplink *uplink_of_port(const struct zvsd *d, const struct zvs_port *p)
{
    for (unsigned i = 0; i < d->nup; i++)
        if (d->up[i].port == p)
            return &d->up[i];
    return NULL;
}

/* A device as z/VM shows it in QUERY VSWITCH: "28BA.P00". */
static void rdev_text(const char *name, char *buf, size_t size)
{
    struct zvs_rdev dev;
    if (zvs_rdev_parse(name, &dev) == 0)
        snprintf(buf, size, "%04X.P%02X", dev.devno, dev.port);
    else
        snprintf(buf, size, "%s", name);
}

/* Why a member with carrier does not distribute, from its LACP machines (ours: z/VM's
 * QUERY VSWITCH texts for these states were not found): "  (no LACPDU from partner)",
 * "  (partner not in sync)", ... or "" when nothing is known to be wrong yet. */
static void member_reason(const struct d_switch *ds, unsigned slot, char *buf, size_t size)
{
    const struct zvs_lacp_port *lp = zvs_lag_member_lacp(ds->lag, slot);
    const char *why = NULL;
    if (!lp || !zvs_lag_params(ds->lag)->pg.lacp)
        return;
    switch (zvs_lacp_port_rx_state(lp)) {
    case ZVS_LACP_RX_EXPIRED:
        why = "partner expired: no LACPDU";
        break;
    case ZVS_LACP_RX_DEFAULTED:
        why = "no LACPDU from partner";
        break;
    case ZVS_LACP_RX_LACP_DISABLED:
        why = "half duplex: no LACP";
        break;
    default:
        break;
    }
    if (!why) {
        switch (zvs_lacp_port_mux_state(lp)) {
        case ZVS_LACP_MUX_WAITING:
            why = "waiting to aggregate";
            break;
        case ZVS_LACP_MUX_ATTACHED:
            why = "partner not in sync";
            break;
        case ZVS_LACP_MUX_COLLECTING:
            why = "partner not collecting";
            break;
        case ZVS_LACP_MUX_DETACHED:
            why = zvs_lacp_port_selected(lp) == ZVS_LACP_SELECTED ? NULL
                                                                  : "partner not in sync";
            break;
        default:
            break;
        }
    }
    if (why)
        snprintf(buf, size, "  (%s)", why);
}

/* A device's line in IBM's shape, "RDEV: 28BA.P00 VDEV: 28BA Controller: *", then its
 * state (ours after the controller: ACTIVE, BACKUP, GROUP MEMBER ... with the reason). No
 * controller virtual machine drives our devices: VDEV is the device vswitchd drives itself,
 * Controller the switch's CONTROLLER operand. */
static void rdev_line(struct zvs_cp_response *r, const struct zvs_cfg_vswitch *vs,
                      const char *name, const char *state)
{
    char dev[32], vdev[16];
    struct zvs_rdev rd;
    rdev_text(name, dev, sizeof dev);
    if (zvs_rdev_parse(name, &rd) == 0)
        snprintf(vdev, sizeof vdev, "%04X", rd.devno);
    else
        snprintf(vdev, sizeof vdev, "NONE");
    zvs_cp_printf(r, "  RDEV: %s VDEV: %s Controller: %-8s %s", dev, vdev, vs->controller,
                  state);
}

/* DETAILS: the device's data subchannel (an OSA port is three devices: read, write, data)
 * and the Linux interface behind it (ours). */
static void data_device_line(struct zvs_cp_response *r, const char *name, const char *ifname)
{
    struct zvs_rdev rd;
    if (zvs_rdev_parse(name, &rd) != 0)
        return;
    zvs_cp_printf(r, "    Device: %04X  Unit: 002   Role: DATA    Interface: %s",
                  (rd.devno + 2u) & 0xffffu, ifname);
}

static void show_uplinks(struct zvsd *d, const struct d_switch *ds, bool counters,
                         struct zvs_cp_response *r)
{
    const struct zvs_cfg_vswitch *vs = &ds->cfg;
    if (vs->nouplink)
        return;
    if (vs->group[0] != '\0') {
        /* Ours: IBM's text for a port group in QUERY VSWITCH was not found. */
        if (ds->lag) {
            struct zvs_pgroup *g = zvs_lag_group(ds->lag);
            char ivl[12];
            zvs_cp_printf(r, "  Port Group: %-8s LACP: %-8s Interval: %-5s Members: %u  "
                          "Distributing: %u", vs->group,
                          zvs_lag_params(ds->lag)->pg.lacp ? "ACTIVE" : "INACTIVE",
                          zvs_pg_interval_str(zvs_pgroup_params(g)->interval_s, ivl, sizeof ivl),
                          zvs_pgroup_members(g) + ds->nclosed, zvs_pgroup_distributing(g));
        } else {
            zvs_cp_printf(r, "  Port Group: %-8s (uplink disconnected)", vs->group);
        }
    }
    const struct zvs_port *active = zvs_switch_active_uplink(ds->sw);
    unsigned shown = 0;
    for (struct zvs_port *p = zvs_switch_next_port(ds->sw, NULL); p;
         p = zvs_switch_next_port(ds->sw, p)) {
        if (p->role != ZVS_PORT_UPLINK || p == zvs_switch_ivl_port(ds->sw))
            continue;                   /* the IVL port: the domain's lines show it */
        const struct d_uplink *u = uplink_of_port(d, p);
        bool member = zvs_switch_is_group_port(ds->sw, p);
        const char *role = "BACKUP";
        char why[64] = "";
        if (member) {
            int s = zvs_lag_member_slot(ds->lag, p);
            const struct zvs_pg_member *m =
                s < 0 ? NULL : zvs_pgroup_member(zvs_lag_group(ds->lag), (unsigned)s);
            role = m && m->distributing ? "GROUP MEMBER  Distributing" :
                   m && m->collecting ? "GROUP MEMBER  Collecting" : "GROUP MEMBER  Inactive";
            if (s >= 0 && p->carrier && !(m && m->distributing))
                member_reason(ds, (unsigned)s, why, sizeof why);
        } else if (p == active) {
            role = "ACTIVE";
        }
        char state[128];
        snprintf(state, sizeof state, "%s%s%s", role, p->carrier ? "" : "  NO CARRIER", why);
        rdev_line(r, vs, p->name, state);
        if (counters) {
            zvs_cp_printf(r, "    Uplink Port Connection:");
            show_counters(r, "    ", p, u ? &u->base : NULL);
            data_device_line(r, p->name, u ? u->ifname : "?");
        }
        shown++;
    }
    /* Group devices that could not be opened: shown with the reason, never left out. */
    for (unsigned k = 0; ds->lag && k < ds->nclosed; k++) {
        char dev[12], ifname[ZVS_IFNAME_MAX + 1] = "?";
        zvs_rdev_format(ds->closed[k].dev, dev, sizeof dev);
        int m = zvs_cfg_find_rdevice(d->run, ds->closed[k].dev);
        if (m >= 0)
            snprintf(ifname, sizeof ifname, "%s", d->run->rdevice[m].ifname);
        char state[160];
        snprintf(state, sizeof state, "GROUP MEMBER  Not ready: %s", ds->closed[k].why);
        rdev_line(r, vs, dev, state);
        if (counters)
            data_device_line(r, dev, ifname);
        shown++;
    }
    if (!shown)
        zvs_cp_printf(r, "  RDEV: NONE%s", vs->connect ? "" : "  (DISCONNECT)");
}

static unsigned granted_count(const struct zvs_vlan_port *vp)
{
    unsigned n = 0;
    for (unsigned w = 0; w < sizeof vp->granted / sizeof vp->granted[0]; w++)
        n += (unsigned)__builtin_popcountll(vp->granted[w]);
    return n;
}

static void show_adapters(struct zvsd *d, const struct d_switch *ds, const struct viewer *v,
                          bool counters, struct zvs_cp_response *r)
{
    bool header = false;
    for (unsigned i = 0; i < d->nnic; i++) {
        const struct d_nic *n = &d->nic[i];
        if (!n->used || n->ds != ds || !nic_visible(v, n))
            continue;
        if (!header)
            zvs_cp_printf(r, "  Adapter Connections:");
        header = true;
        char mac[18];
        zvs_mac_format(n->guest.mac, mac, sizeof mac);
        zvs_cp_printf(r, "    Adapter Owner: %-8s NIC: %04X.P00  Name: UNASSIGNED  Type: QDIO",
                      n->userid, n->vdev);
        const struct zvs_vlan_port *vp = &n->guest.vlan;
        char vlan[32];
        if (!ds->cfg.vlan_aware)
            snprintf(vlan, sizeof vlan, "ANY");
        else if (vp->porttype == ZVS_VLAN_ACCESS)
            snprintf(vlan, sizeof vlan, "%04u", vp->access_vid);
        else
            snprintf(vlan, sizeof vlan, "%u granted", granted_count(vp));
        zvs_cp_printf(r, "      MAC: %s  VLAN: %s  Porttype: %s  MAC Protection: %s", mac,
                      vlan, vp->porttype == ZVS_VLAN_TRUNK ? "Trunk" : "Access",
                      n->guest.macprotect ? "ON" : "OFF");
        if (counters)
            show_counters(r, "      ", n->port, &n->base);
    }
}

static void show_accesslist(struct zvsd *d, const struct d_switch *ds, const struct viewer *v,
                            struct zvs_cp_response *r)
{
    const struct zvs_cfg *cfg = d->run;
    int k = zvs_cfg_find_vswitch(cfg, ds->cfg.name);
    unsigned shown = 0;
    zvs_cp_printf(r, "  Authorized userids:");
    for (unsigned i = 0; k >= 0 && i < cfg->ngrant; i++) {
        const struct zvs_cfg_grant *g = &cfg->grant[i];
        if (g->vswitch != (unsigned)k || (!v->operator && strcmp(g->userid, v->userid) != 0))
            continue;
        enum zvs_porttype pt = g->porttype != ZVS_PORTTYPE_UNSPEC ? g->porttype : ds->cfg.porttype;
        char set[160] = "";
        if (g->has_vlan)
            zvs_vidset_format(&g->vlan, set, sizeof set);
        else if (ds->cfg.vlan_aware)
            snprintf(set, sizeof set, "%u", ds->cfg.default_vid);
        zvs_cp_printf(r, "    %-8s  Porttype: %-6s VLAN: %s", g->userid, porttype_text(pt),
                      ds->cfg.vlan_aware ? set : "ANY");
        shown++;
    }
    for (unsigned i = 0; k >= 0 && i < cfg->nnic; i++) {
        const struct zvs_cfg_nic *nic = &cfg->nic[i];
        const char *owner = cfg->user[nic->user].userid;
        bool dna = nic->has_vlan || nic->porttype != ZVS_PORTTYPE_UNSPEC;
        if (!dna || strcmp(nic->lan, ds->cfg.name) != 0 ||
            (!v->operator && strcmp(owner, v->userid) != 0))
            continue;
        char set[160] = "";
        if (nic->has_vlan)
            zvs_vidset_format(&nic->vlan, set, sizeof set);
        zvs_cp_printf(r, "    %-8s  Porttype: %-6s VLAN: %s  (directory, NIC %04X)", owner,
                      porttype_text(nic->porttype != ZVS_PORTTYPE_UNSPEC ? nic->porttype :
                                    ds->cfg.porttype),
                      nic->has_vlan ? set : "default", nic->vdev);
        shown++;
    }
    if (!shown)
        zvs_cp_printf(r, "    (none)");
}

static void append_text(struct zvs_cp_response *r, const char *text, size_t len);

/* The port group's report (lag.c): members, LACP machines, counters, moves. */
static void lag_report(struct zvsd *d, const struct d_switch *ds, struct zvs_cp_response *r)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) {
        zvs_cp_error(r, ZVS_CPMSG_COMMAND_FAILED, "QUERY", "out of storage");
        return;
    }
    zvs_lag_report(ds->lag, zvs_evloop_now(d->loop), f);
    fclose(f);
    append_text(r, text, len);
    free(text);
}

/* "Uplink Port:" and "State:" as IBM's example has them; the uplinks themselves only
 * for class B (a class G user sees the switch's state, not its devices). */
static void show_state(const struct d_switch *ds, bool uplinks, struct zvs_cp_response *r)
{
    if (uplinks && !ds->cfg.nouplink)
        zvs_cp_printf(r, " Uplink Port:");           /* one blank, as CP indents it */
    zvs_cp_printf(r, "  State: %s", switch_state(ds));
}

static void show_vswitch(struct zvsd *d, const struct d_switch *ds, enum zvs_cmd_level level,
                         const struct viewer *v, struct zvs_cp_response *r)
{
    show_header(d, ds, v, r);
    switch (level) {
    case ZVS_CMD_LEVEL_BRIEF:
        show_state(ds, v->operator, r);
        if (v->operator) {
            show_uplinks(d, ds, false, r);
            zvsd_vxlan_query(ds, false, r);
            if (ds->cfg.scope == ZVS_VSW_GLOBAL)
                zvsd_ivl_query(d, ds->cfg.group, r);
        }
        break;
    case ZVS_CMD_LEVEL_DETAILS:
        show_state(ds, v->operator, r);
        if (v->operator) {
            show_uplinks(d, ds, true, r);
            zvsd_vxlan_query(ds, true, r);
            if (ds->cfg.scope == ZVS_VSW_GLOBAL)
                zvsd_ivl_query(d, ds->cfg.group, r);
        }
        show_adapters(d, ds, v, true, r);
        break;
    case ZVS_CMD_LEVEL_ACCESSLIST:
        show_state(ds, false, r);
        show_accesslist(d, ds, v, r);
        break;
    case ZVS_CMD_LEVEL_ACTIVE:
        show_state(ds, false, r);
        show_adapters(d, ds, v, false, r);
        break;
    case ZVS_CMD_LEVEL_CONTROLLER:      /* what dbginfo.sh asks; the lines are ours */
        show_state(ds, false, r);
        zvs_cp_printf(r, "  Controller: %s  (no controller virtual machine: vswitchd drives "
                      "the devices)", ds->cfg.controller[0] ? ds->cfg.controller : "*");
        break;
    case ZVS_CMD_LEVEL_PROMISCUOUS:
        show_state(ds, false, r);
        zvs_cp_printf(r, "  Promiscuous: none (zvswitch has no promiscuous mode)");
        break;
    }
}

/* Ours, after IBM's response in the counters report only: the port group's LACP report
 * (QUERY LACP DETAILS) and the MAC table. */
static void show_report_extras(struct zvsd *d, const struct d_switch *ds,
                               struct zvs_cp_response *r)
{
    if (ds->lag)
        lag_report(d, ds, r);
    struct zvs_mac_table_stats ms;
    zvs_mac_table_stats(zvs_switch_mac_table(ds->sw), &ms);
    zvs_cp_printf(r, "  MAC table: %u entries (%u static, %u learned), %llu refused full",
                  ms.entries, ms.static_entries, ms.learned,
                  (unsigned long long)ms.refused_full);
}

static void query_vswitch(struct zvsd *d, const struct zvs_cmd *c, const struct viewer *v,
                          struct zvs_cp_response *r)
{
    unsigned shown = 0;
    if (c->name[0]) {
        const struct d_switch *ds = zvsd_switch_by_name(d, c->name);
        if (!ds || !switch_visible(d, v, c->name)) {
            zvs_cp_error(r, ZVS_CPMSG_VSWITCH_NOT_FOUND, c->name);
            return;
        }
    }
    /* In the order of the running configuration (definition order). */
    for (unsigned i = 0; i < d->run->nvswitch; i++) {
        const char *name = d->run->vswitch[i].name;
        struct d_switch *ds = zvsd_switch_by_name(d, name);
        if (!ds || (c->name[0] && strcmp(c->name, name) != 0) || !switch_visible(d, v, name))
            continue;
        show_vswitch(d, ds, c->level, v, r);
        shown++;
    }
    if (!shown)
        zvs_cp_error(r, ZVS_CPMSG_NOTHING_TO_SHOW, "VSWITCH");
}

void zvsd_report(struct zvsd *d, FILE *out)
{
    struct zvs_cmd c;
    struct zvs_cp_response r;
    struct viewer v = { .userid = "OPERATOR", .operator = true };
    memset(&c, 0, sizeof c);
    c.verb = ZVS_CMD_QUERY_VSWITCH;
    c.level = ZVS_CMD_LEVEL_DETAILS;
    zvs_cp_response_init(&r);
    for (unsigned i = 0; i < d->run->nvswitch; i++) {
        struct d_switch *ds = zvsd_switch_by_name(d, d->run->vswitch[i].name);
        if (!ds)
            continue;
        show_vswitch(d, ds, c.level, &v, &r);
        show_report_extras(d, ds, &r);
    }
    zvsd_names_report(d, &r);
    fputs(r.text, out);
    zvs_cp_response_fini(&r);
}

/* ---- QUERY NIC ----------------------------------------------------------------------- */

/* A line a NIC's kind adds to QUERY NIC DETAILS (ctx: the response). */
static void print_line(void *ctx, const char *line)
{
    zvs_cp_printf(ctx, "%s", line);
}

/* QUERY NIC, and QUERY VIRTUAL NIC (the issuer's own NICs in the same layout, which
 * xCAT's zvmCPUtils.pm getVswitchId reads word 4 of: the switch's name, or "None"); a
 * device the issuer does not have answers CP's HCPNDQ040E there. */
static void query_nic(struct zvsd *d, const struct zvs_cmd *c, const char *issuer,
                      uint32_t privclass, struct zvs_cp_response *r)
{
    const struct zvs_cfg *cfg = d->run;
    const char *owner = c->target[0] ? c->target : issuer;
    int u = zvs_cfg_find_user(cfg, owner);
    if (u < 0) {
        zvs_cp_error(r, ZVS_CPMSG_USER_NOT_FOUND, owner);
        return;
    }
    const struct zvs_cfg_user *usr = &cfg->user[u];
    unsigned shown = 0;
    for (unsigned i = usr->first_nic; i < (unsigned)usr->first_nic + usr->nnic; i++) {
        const struct zvs_cfg_nic *nic = &cfg->nic[i];
        if (c->has_vdev && !(c->vdev >= nic->vdev && c->vdev < nic->vdev + nic->devices))
            continue;
        const struct d_nic *n = zvsd_nic_find(d, owner, nic->vdev);
        char mac[18], where[32];
        zvs_mac_format(nic->mac, mac, sizeof mac);
        if (n && n->ds)
            snprintf(where, sizeof where, "VSWITCH: SYSTEM %s", n->ds->cfg.name);
        else
            snprintf(where, sizeof where, "LAN: * None");
        zvs_cp_printf(r, "Adapter %04X.P00 Type: QDIO      Name: UNASSIGNED  Devices: %u",
                      nic->vdev, nic->devices);
        zvs_cp_printf(r, "  MAC: %s         %s", mac, where);
        shown++;
        if (!c->details)
            continue;
        /* What drives it is its kind's to say (the LCS lines: ours, UNCONFIRMED shape). */
        struct zvs_nic_params p;
        char backend[64];
        zvsd_nic_params(d, nic, &p);
        zvs_nic_describe(&p, n ? n->side : NULL, backend, sizeof backend);
        zvs_cp_printf(r, "  Backend: %s  Assigned by: %s", backend,
                      nic->macid_source == ZVS_MACID_USER ? "USER" : "SYSTEM");
        zvs_nic_details(&p, n ? n->side : NULL, print_line, r);
        if (nic->vswitch >= 0 && !(n && n->ds))
            zvs_cp_printf(r, "  State: not coupled (VSWITCH %s in the configuration; see the log)",
                          nic->lan);
        if (n && n->ds) {
            zvs_cp_printf(r, "  State: coupled%s", zvs_nic_coupled_state(n->side));
            show_counters(r, "  ", n->port, &n->base);
        }
        zvs_cp_printf(r, "  Device: %04X  Unit: 000  Role: CTL-READ", nic->vdev);
        zvs_cp_printf(r, "  Device: %04X  Unit: 001  Role: CTL-WRITE", nic->vdev + 1);
        zvs_cp_printf(r, "  Device: %04X  Unit: 002  Role: DATA", nic->vdev + 2);
    }
    if (shown)
        return;
    if (c->has_vdev) {
        char vdev[8];
        snprintf(vdev, sizeof vdev, "%04X", c->vdev);
        if (c->verb == ZVS_CMD_QUERY_VIRTUAL_NIC)
            zvs_cp_error(r, ZVS_CPMSG_DEVICE_NOT_EXIST, vdev);
        else
            zvs_cp_error(r, ZVS_CPMSG_NIC_NOT_FOUND, vdev, owner);
    } else {
        zvs_cp_error(r, ZVS_CPMSG_NOTHING_TO_SHOW, "NIC");
    }
    (void)privclass;
}

/* ---- QUERY VMLAN --------------------------------------------------------------------- */

/* IBM's blocks and labels where a source names them (cp-commands/README.md "QUERY
 * VMLAN"): the maintenance level, "VMLAN MAC address assignment:" with "MACADDR Prefix:",
 * and "USER Prefix:" on its line (xCAT zxcatIVP.pl's word 6), the accounting defaults, the
 * PERSISTENT and TRANSIENT counts. We have no service level ("Base": nothing applied), no
 * USERPREFIX operand (USER Prefix is MACPREFIX) and no transient LANs (always 0). The last
 * two lines are ours. */
static void query_vmlan(struct zvsd *d, struct zvs_cp_response *r)
{
    const struct zvs_cfg *cfg = d->run;
    const struct zvs_cfg_vmlan *v = &cfg->vmlan;
    unsigned coupled = 0, active = 0, groups_bound = 0;
    for (unsigned i = 0; i < d->nnic; i++)
        coupled += d->nic[i].used && d->nic[i].ds != NULL;
    for (unsigned i = 0; i < d->nsw; i++) {
        active += d->sw[i].sw != NULL;
        groups_bound += d->sw[i].sw && d->sw[i].lag;
    }
    zvs_cp_printf(r, "VMLAN maintenance level:");
    zvs_cp_printf(r, "  Latest Service: Base");
    zvs_cp_printf(r, "VMLAN MAC address assignment:");
    /* USER Prefix: the prefix of MACs a NICDEF MACID names; zvswitch's is MACPREFIX
     * (no USERPREFIX operand). xCAT's zxcatIVP.pl reads it as the line's sixth word. */
    zvs_cp_printf(r, "  MACADDR Prefix: %02X%02X%02X  USER Prefix: %02X%02X%02X",
                  v->macprefix[0], v->macprefix[1], v->macprefix[2], v->macprefix[0],
                  v->macprefix[1], v->macprefix[2]);
    if (v->macidrange_line)
        zvs_cp_printf(r, "  MACIDRANGE SYSTEM: %06X-%06X  USER: %06X-%06X",
                      (unsigned)v->system_lo, (unsigned)v->system_hi, (unsigned)v->user_lo,
                      (unsigned)v->user_hi);
    else
        zvs_cp_printf(r, "  MACIDRANGE SYSTEM: %06X-%06X  USER: any", (unsigned)v->system_lo,
                      (unsigned)v->system_hi);
    zvs_cp_printf(r, "VMLAN default accounting status:");
    zvs_cp_printf(r, "  SYSTEM Accounting: OFF    User Accounting: OFF");
    zvs_cp_printf(r, "VMLAN general activity:");
    zvs_cp_printf(r, "  PERSISTENT Limit: INFINITE  Current: %u", active);
    zvs_cp_printf(r, "  TRANSIENT  Limit: INFINITE  Current: 0");
    zvs_cp_printf(r, "  Port groups: %u defined, %u in use", cfg->ngroup, groups_bound);
    zvs_cp_printf(r, "  NICs: %u defined, %u coupled", cfg->nnic, coupled);
}

/* ---- QUERY PORT GROUP, QUERY LACP ---------------------------------------------------- */

static const struct d_switch *switch_of_group(struct zvsd *d, const char *group)
{
    for (unsigned i = 0; i < d->nsw; i++)
        if (d->sw[i].sw && d->sw[i].lag &&
            strcmp(zvs_lag_params(d->sw[i].lag)->pg.name, group) == 0)
            return &d->sw[i];
    return NULL;
}

struct zvs_lag *zvsd_port_group(struct zvsd *d, const char *group)
{
    const struct d_switch *ds = switch_of_group(d, group);
    return ds ? ds->lag : NULL;
}

/* QUERY PORT GROUP: one block per group, a line per member (our layout; z/VM's text is
 * UNCONFIRMED, see cp-commands/README.md). A group no switch runs shows its definition. */
static void show_port_group(struct zvsd *d, const struct zvs_cfg_group *cg,
                            struct zvs_cp_response *r)
{
    const struct d_switch *ds = switch_of_group(d, cg->name);
    char ivl[12], pol[24];
    if (!ds) {
        char devs[96] = "";
        size_t len = 0;
        for (unsigned k = 0; k < cg->nport && len < sizeof devs; k++) {
            char dev[12];
            zvs_rdev_format(cg->port[k], dev, sizeof dev);
            len += (size_t)snprintf(devs + len, sizeof devs - len, " %s", dev);
        }
        zvs_cp_printf(r, "PORT GROUP %-8s VSWITCH (none)   LACP: %s  Interval: %s  Members: %u",
                      cg->name, cg->lacp ? "ACTIVE" : "INACTIVE",
                      zvs_pg_interval_str(cg->interval_s, ivl, sizeof ivl), cg->nport);
        zvs_cp_printf(r, "  Devices:%s", cg->nport ? devs : " none");
        return;
    }
    struct zvs_pgroup *g = zvs_lag_group(ds->lag);
    const struct zvs_pg_params *pp = zvs_pgroup_params(g);
    zvs_cp_printf(r, "PORT GROUP %-8s VSWITCH %-8s LACP: %s  Interval: %s  Members: %u"
                  "  Distributing: %u", pp->name, ds->cfg.name,
                  zvs_lag_params(ds->lag)->pg.lacp ? "ACTIVE" : "INACTIVE",
                  zvs_pg_interval_str(pp->interval_s, ivl, sizeof ivl),
                  zvs_pgroup_members(g) + ds->nclosed, zvs_pgroup_distributing(g));
    const struct zvs_pg_stats *st = zvs_pgroup_stats(g);
    /* Resteered: frames a member whose link had just gone could not send, sent by a
     * survivor instead (before the failover moved the member's buckets). */
    struct zvs_switch_stats ss;
    zvs_switch_stats(ds->sw, &ss);
    zvs_cp_printf(r, "  Distribution: %s  Policy: %s  Passes: %llu  Moves: %llu"
                  "  Failover moves: %llu  Marker flushes: %llu  Marker timeouts: %llu"
                  "  Resteered: %llu",
                  zvs_pg_hash_name(pp->hash), zvs_pg_policy_str(pp, pol, sizeof pol),
                  (unsigned long long)st->passes, (unsigned long long)st->moves,
                  (unsigned long long)st->failover_moves,
                  (unsigned long long)st->marker_flushes,
                  (unsigned long long)st->marker_timeouts,
                  (unsigned long long)ss.resteered);
    for (unsigned s = 0; s < ZVS_PG_MAX_MEMBERS; s++) {
        const struct zvs_pg_member *m = zvs_pgroup_member(g, s);
        struct zvs_port *p = zvs_lag_member_port(ds->lag, s);
        if (!m || !m->used || !p)
            continue;
        char why[64] = "";
        if (p->carrier && !m->distributing)
            member_reason(ds, s, why, sizeof why);
        zvs_cp_printf(r, "  RDEV %-8s %-6s Collecting: %-3s Distributing: %-3s Buckets: %3u"
                      "  Out: %.1f Mbit/s  In: %.1f Mbit/s%s", m->rdev,
                      p->carrier ? "UP" : "DOWN", m->collecting ? "YES" : "NO",
                      m->distributing ? "YES" : "NO", m->buckets, m->out_bps / 1e6,
                      m->in_bps / 1e6, why);
    }
    for (unsigned k = 0; k < ds->nclosed; k++) {
        char dev[12];
        zvs_rdev_format(ds->closed[k].dev, dev, sizeof dev);
        zvs_cp_printf(r, "  RDEV %-8s NOT READY  %s", dev, ds->closed[k].why);
    }
    zvsd_ivl_query(d, cg->name, r);     /* a SHARED group: the domain's systems (ours) */
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
static void show_lacp(struct zvsd *d, const struct zvs_cfg_group *cg, struct zvs_cp_response *r)
{
    const struct d_switch *ds = switch_of_group(d, cg->name);
    if (!ds) {
        zvs_cp_printf(r, "PORT GROUP %-8s is not in use by a VSWITCH: no LACP", cg->name);
        return;
    }
    lag_report(d, ds, r);
}

static void each_group(struct zvsd *d, const struct zvs_cmd *c, struct zvs_cp_response *r,
                       void (*show)(struct zvsd *, const struct zvs_cfg_group *,
                                    struct zvs_cp_response *))
{
    unsigned shown = 0;
    for (unsigned i = 0; i < d->run->ngroup; i++) {
        const struct zvs_cfg_group *g = &d->run->group[i];
        if (c->name[0] && strcmp(c->name, g->name) != 0)
            continue;
        /* ACTIVE (dbginfo.sh's "q port group all active details"): groups in use. */
        if (c->level == ZVS_CMD_LEVEL_ACTIVE && switch_of_group(d, g->name) == NULL)
            continue;
        show(d, g, r);
        shown++;
    }
    if (shown)
        return;
    if (c->name[0])
        zvs_cp_error(r, ZVS_CPMSG_GROUP_NOT_FOUND, c->name);
    else
        zvs_cp_error(r, ZVS_CPMSG_NO_GROUPS);
}

/* ---- QUERY LAN ---------------------------------------------------------------------- */

/* CP lists VSWITCHes among the LANs: each switch's header and attribute lines as QUERY
 * VSWITCH has them (xCAT reads "VSWITCH SYSTEM name" words 0-2 and decides a network's
 * layer by ETHERNET on the attribute line), then its state. Owner SYSTEM only: zvswitch
 * has no guest LANs. */
static void query_lan(struct zvsd *d, const struct zvs_cmd *c, const struct viewer *v,
                      struct zvs_cp_response *r)
{
    unsigned shown = 0;
    bool system = c->userid[0] == '\0' || strcmp(c->userid, "SYSTEM") == 0;
    for (unsigned i = 0; system && i < d->run->nvswitch; i++) {
        const char *name = d->run->vswitch[i].name;
        struct d_switch *ds = zvsd_switch_by_name(d, name);
        if (!ds || (c->name[0] && strcmp(c->name, name) != 0) || !switch_visible(d, v, name))
            continue;
        if (c->level == ZVS_CMD_LEVEL_BRIEF) {
            show_header(d, ds, v, r);
            show_state(ds, false, r);
        } else {
            show_vswitch(d, ds, c->level, v, r);        /* QUERY VSWITCH's level */
        }
        shown++;
    }
    if (shown)
        return;
    if (c->name[0])
        zvs_cp_error(r, ZVS_CPMSG_VSWITCH_NOT_FOUND, c->name);
    else
        zvs_cp_error(r, ZVS_CPMSG_NOTHING_TO_SHOW, "LAN");
}

void zvsd_query(struct zvsd *d, const struct zvs_cmd *c, const char *userid,
                uint32_t privclass, struct zvs_cp_response *r)
{
    struct viewer v = { .userid = userid,
                        .operator = (privclass & ZVS_PRIVCLASS('B')) != 0 };
    switch (c->verb) {
    case ZVS_CMD_QUERY_VSWITCH:    query_vswitch(d, c, &v, r); break;
    case ZVS_CMD_QUERY_NIC:
    case ZVS_CMD_QUERY_VIRTUAL_NIC: query_nic(d, c, userid, privclass, r); break;
    case ZVS_CMD_QUERY_LAN:        query_lan(d, c, &v, r); break;
    case ZVS_CMD_QUERY_VMLAN:      query_vmlan(d, r); break;
    case ZVS_CMD_QUERY_PORT_GROUP: each_group(d, c, r, show_port_group); break;
    case ZVS_CMD_QUERY_LACP:       each_group(d, c, r, show_lacp); break;
    case ZVS_CMD_QUERY_RESOLVER:   zvsd_names_query(d, r); break;
    default:
        if (!zvsd_system_query(d, c, userid, r))
            zvs_cp_error(r, ZVS_CPMSG_COMMAND_FAILED, "QUERY", "not a query");
        break;
    }
}
