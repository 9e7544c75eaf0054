/* Control commands of the switch model (see README.md for the list).
 *
 * Design note: IOS-like. Keywords match by prefix (at least two letters, "sh ether sum"),
 * interface names take IOS abbreviations (Gi1/1). Output imitates IOS layouts closely
 * enough that an operator recognises them and a test can parse them with awk; refusals
 * start with "% " as IOS does. Nothing here changes the data path except through the
 * sm_port_* functions.
 */
#include "tests/switchmodel/sm_switch_impl.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lacp/pdu.h"
#include "tests/switchmodel/sm_hash.h"

#define MAX_WORDS 8

/* tok abbreviates word: a prefix of at least 2 characters (or the whole word). */
static bool kw(const char *tok, const char *word)
{
    size_t n = tok ? strlen(tok) : 0;
    if (n == 0 || n > strlen(word))
        return false;
    if (n < 2 && n != strlen(word))
        return false;
    return strncasecmp(tok, word, n) == 0;
}

static void print_mac_dotted(FILE *out, const uint8_t m[6])
{
    fprintf(out, "%02x%02x.%02x%02x.%02x%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
}

static const char *po_flags(const struct sm_switch *sw, const struct sm_group *g)
{
    return sw->l2.lp[g->lport].up ? "SU" : "SD";
}

static void show_etherchannel_summary(struct sm_switch *sw, FILE *out)
{
    unsigned groups = 0;
    for (unsigned g = 1; g <= SM_MAX_GROUPS; g++)
        groups += sw->groups[g].id != 0;
    fprintf(out,
            "Flags:  D - down        P - bundled in port-channel\n"
            "        I - stand-alone s - suspended\n"
            "        H - Hot-standby (LACP only)\n"
            "        R - Layer3      S - Layer2\n"
            "        U - in use      f - failed to allocate aggregator\n"
            "\n"
            "        M - not in use, minimum links not met\n"
            "        u - unsuitable for bundling\n"
            "        w - waiting to be aggregated\n"
            "        d - default port\n"
            "\n"
            "\n"
            "Number of channel-groups in use: %u\n"
            "Number of aggregators:           %u\n"
            "\n"
            "Group  Port-channel  Protocol    Ports\n"
            "------+-------------+-----------+-----------------------------------------------\n",
            groups, groups);
    for (unsigned g = 1; g <= SM_MAX_GROUPS; g++) {
        const struct sm_group *grp = &sw->groups[g];
        if (!grp->id)
            continue;
        char po[16];
        snprintf(po, sizeof(po), "Po%u(%s)", g, po_flags(sw, grp));
        fprintf(out, "%-7u%-14s%-12s", g, po, grp->lacp ? "LACP" : "-");
        for (unsigned i = 0; i < grp->n_members; i++) {
            const struct sm_port *p = grp->members[i];
            char m[24];
            snprintf(m, sizeof(m), "%s(%c)", p->cfg->short_name, sm_port_flag(p));
            fprintf(out, "%s%-12s", i ? " " : "", m);
        }
        fprintf(out, "\n");
    }
}

static void show_etherchannel_load_balance(struct sm_switch *sw, FILE *out)
{
    fprintf(out, "EtherChannel Load-Balancing Configuration:\n        %s\n\n",
            sm_lb_name(sw->cfg.lb));
    fprintf(out, "EtherChannel Load-Balancing Addresses Used Per-Protocol:\n");
    switch (sw->cfg.lb) {
    case SM_LB_DST_MAC: fprintf(out, "Non-IP: Destination MAC address\n   IPv4: Destination MAC address\n"); break;
    case SM_LB_SRC_MAC: fprintf(out, "Non-IP: Source MAC address\n   IPv4: Source MAC address\n"); break;
    case SM_LB_SRC_DST_MAC: fprintf(out, "Non-IP: Source XOR Destination MAC address\n   IPv4: Source XOR Destination MAC address\n"); break;
    case SM_LB_SRC_DST_IP: fprintf(out, "Non-IP: Source XOR Destination MAC address\n   IPv4: Source XOR Destination IP address\n"); break;
    }
    fprintf(out, "\nHash: XOR of the low 3 bits of the last byte of each address: 8 buckets,\n"
                 "bucket b on bundled member b mod n (port order).\n");
    for (unsigned g = 1; g <= SM_MAX_GROUPS; g++) {
        const struct sm_group *grp = &sw->groups[g];
        if (!grp->id)
            continue;
        fprintf(out, "\nPo%u:", g);
        if (grp->n_active == 0)
            fprintf(out, " no member bundled");
        for (unsigned i = 0; i < grp->n_active; i++)
            fprintf(out, " %s Load 0x%02X", grp->active[i]->cfg->short_name,
                    sm_lb_load_mask(i, grp->n_active));
        fprintf(out, "\n");
    }
}

static void show_lacp_neighbor(struct sm_switch *sw, FILE *out, uint64_t now)
{
    fprintf(out, "Flags:  S - Device is requesting Slow LACPDUs\n"
                 "        F - Device is requesting Fast LACPDUs\n"
                 "        A - Device is in Active mode       P - Device is in Passive mode\n");
    for (unsigned g = 1; g <= SM_MAX_GROUPS; g++) {
        const struct sm_group *grp = &sw->groups[g];
        if (!grp->id || !grp->lacp)
            continue;
        fprintf(out, "\nChannel group %u neighbors\n\nPartner's information:\n\n", g);
        fprintf(out, "                  LACP port                         Admin  Oper    Port    Port\n");
        fprintf(out, "Port      Flags   Priority  Dev ID          Age     key    Key     Number  State\n");
        for (unsigned i = 0; i < grp->n_members; i++) {
            const struct sm_port *p = grp->members[i];
            const struct zvs_lacp_info *pi = zvs_lacp_port_partner(&p->lp);
            char flags[3] = {
                (pi->state & ZVS_LACP_STATE_TIMEOUT) ? 'F' : 'S',
                (pi->state & ZVS_LACP_STATE_ACTIVITY) ? 'A' : 'P', 0 };
            char age[16];
            if (p->last_pdu_rx)
                snprintf(age, sizeof(age), "%llus",
                         (unsigned long long)((now - p->last_pdu_rx) / 1000000000ull));
            else
                snprintf(age, sizeof(age), "-");
            fprintf(out, "%-10s%-8s%-10u", p->cfg->short_name, flags, pi->port_priority);
            print_mac_dotted(out, pi->system);
            fprintf(out, "  %-8s0x0    0x%-5X 0x%-6X0x%02X\n", age, pi->key, pi->port, pi->state);
        }
    }
}

static void show_lacp_internal(struct sm_switch *sw, FILE *out)
{
    fprintf(out, "Actor system: priority %u, ", sw->cfg.system_priority);
    print_mac_dotted(out, sw->sysmac);
    fprintf(out, "\n");
    for (unsigned g = 1; g <= SM_MAX_GROUPS; g++) {
        const struct sm_group *grp = &sw->groups[g];
        if (!grp->id || !grp->lacp)
            continue;
        fprintf(out, "\nChannel group %u\n", g);
        fprintf(out, "Port      Flag  Priority  Key     Number  State  Rx          Mux\n");
        for (unsigned i = 0; i < grp->n_members; i++) {
            const struct sm_port *p = grp->members[i];
            const struct zvs_lacp_info *a = zvs_lacp_port_actor(&p->lp);
            char st[ZVS_LACP_STATE_STR_LEN];
            fprintf(out, "%-10s%-6c%-10u0x%-6X0x%-6X0x%02X   %-12s%s  %s\n", p->cfg->short_name,
                    sm_port_flag(p), a->port_priority, a->key, a->port, a->state,
                    zvs_lacp_state_name(ZVS_LACP_MACHINE_RX, (int)zvs_lacp_port_rx_state(&p->lp)),
                    zvs_lacp_state_name(ZVS_LACP_MACHINE_MUX, (int)zvs_lacp_port_mux_state(&p->lp)),
                    zvs_lacp_state_str(a->state, st));
        }
    }
}

static void show_lacp_counters(struct sm_switch *sw, FILE *out)
{
    fprintf(out, "             LACPDUs         Marker      Marker Response    LACPDUs\n"
                 "Port       Sent   Recv     Sent   Recv     Sent   Recv      Pkts Err\n"
                 "---------------------------------------------------------------------\n");
    for (unsigned g = 1; g <= SM_MAX_GROUPS; g++) {
        const struct sm_group *grp = &sw->groups[g];
        if (!grp->id)
            continue;
        fprintf(out, "Channel group: %u\n", g);
        for (unsigned i = 0; i < grp->n_members; i++) {
            const struct sm_port *p = grp->members[i];
            uint64_t ltx = 0, lrx = 0, mtx = 0, mrx = 0, rtx = 0, rrx = 0;
            if (p->lacp) {
                const struct zvs_lacp_port_stats *s = zvs_lacp_port_stats(&p->lp);
                const struct zvs_lacp_marker_stats *m = zvs_lacp_marker_stats(&p->mk);
                ltx = s->lacpdus_tx;
                lrx = s->lacpdus_rx;
                mtx = m->marker_pdus_tx;
                mrx = m->marker_pdus_rx;
                rtx = m->marker_response_pdus_tx;
                rrx = m->marker_response_pdus_rx;
            }
            fprintf(out, "%-10s%5llu  %5llu    %5llu  %5llu    %5llu  %5llu     %5llu\n",
                    p->cfg->short_name, (unsigned long long)ltx, (unsigned long long)lrx,
                    (unsigned long long)mtx, (unsigned long long)mrx, (unsigned long long)rtx,
                    (unsigned long long)rrx, (unsigned long long)p->ctr.lacp_bad);
        }
    }
    fprintf(out, "\nPort      Ignored  Rejected  DropRx  DropTx  Delayed\n");
    for (unsigned i = 0; i < sw->n_ports; i++) {
        const struct sm_port *p = &sw->ports[i];
        if (!p->grp)
            continue;
        uint64_t drx = 0, dtx = 0, dly = 0;
        if (p->lacp) {
            const struct zvs_lacp_port_stats *s = zvs_lacp_port_stats(&p->lp);
            drx = s->rx_dropped_by_knob;
            dtx = s->tx_dropped_by_knob;
            dly = s->tx_delayed;
        }
        fprintf(out, "%-10s%7llu  %8llu  %6llu  %6llu  %7llu\n", p->cfg->short_name,
                (unsigned long long)(p->ctr.lacp_ignored + p->ctr.marker_ignored),
                (unsigned long long)p->ctr.lacp_rejected, (unsigned long long)drx,
                (unsigned long long)dtx, (unsigned long long)dly);
    }
}

static void show_interfaces_counters(struct sm_switch *sw, FILE *out)
{
    fprintf(out, "\nPort            InOctets   InUcastPkts   InMcastPkts   InBcastPkts\n");
    for (unsigned i = 0; i < sw->n_ports; i++) {
        const struct sm_port_ctr *c = &sw->ports[i].ctr;
        fprintf(out, "%-10s%14llu%14llu%14llu%14llu\n", sw->ports[i].cfg->short_name,
                (unsigned long long)c->in_octets, (unsigned long long)c->in_ucast,
                (unsigned long long)c->in_mcast, (unsigned long long)c->in_bcast);
    }
    fprintf(out, "\nPort           OutOctets  OutUcastPkts  OutMcastPkts  OutBcastPkts\n");
    for (unsigned i = 0; i < sw->n_ports; i++) {
        const struct sm_port_ctr *c = &sw->ports[i].ctr;
        fprintf(out, "%-10s%14llu%14llu%14llu%14llu\n", sw->ports[i].cfg->short_name,
                (unsigned long long)c->out_octets, (unsigned long long)c->out_ucast,
                (unsigned long long)c->out_mcast, (unsigned long long)c->out_bcast);
    }
    fprintf(out, "\nPort         NotBundled  VlanDenied  InQueueDrop OutQueueDrop    OutErrors\n");
    for (unsigned i = 0; i < sw->n_ports; i++) {
        const struct sm_port_ctr *c = &sw->ports[i].ctr;
        fprintf(out, "%-10s%13llu%12llu%13llu%13llu%13llu\n", sw->ports[i].cfg->short_name,
                (unsigned long long)c->in_not_bundled, (unsigned long long)c->in_vlan_denied,
                (unsigned long long)c->in_queue_drops, (unsigned long long)c->out_queue_drops,
                (unsigned long long)c->out_errors);
    }
    /* The OSA port model: what each shaped port carried against its limits. */
    bool any = false;
    for (unsigned i = 0; i < sw->n_ports; i++) {
        const struct sm_port *p = &sw->ports[i];
        if (!p->shaped)
            continue;
        if (!any)
            fprintf(out, "\nPort       LimitBps   LimitPps Queue    InFrames   OutFrames"
                         "     InBytes    OutBytes  InDrops OutDrops\n");
        any = true;
        fprintf(out, "%-10s%9llu%11llu%6u%12llu%12llu%12llu%12llu%9llu%9llu\n",
                p->cfg->short_name, (unsigned long long)p->cfg->rate_bps,
                (unsigned long long)p->cfg->rate_fps, p->cfg->queue_frames,
                (unsigned long long)p->sh_in.stats.sent_frames,
                (unsigned long long)p->sh_out.stats.sent_frames,
                (unsigned long long)p->sh_in.stats.sent_bytes,
                (unsigned long long)p->sh_out.stats.sent_bytes,
                (unsigned long long)p->sh_in.stats.dropped,
                (unsigned long long)p->sh_out.stats.dropped);
    }
}

static const char *lport_name(struct sm_switch *sw, uint16_t lp, char *buf, size_t len)
{
    for (unsigned g = 1; g <= SM_MAX_GROUPS; g++)
        if (sw->groups[g].id && sw->groups[g].lport == lp) {
            snprintf(buf, len, "Po%u", g);
            return buf;
        }
    for (unsigned i = 0; i < sw->n_ports; i++)
        if (!sw->ports[i].grp && sw->ports[i].lport == lp)
            return sw->ports[i].cfg->short_name;
    return "?";
}

static void show_mac_table(struct sm_switch *sw, FILE *out, uint64_t now)
{
    static struct sm_mac_entry e[SM_MAC_MAX];
    unsigned n = sm_mac_dump(&sw->l2.mac, now, e, SM_MAC_MAX);
    fprintf(out, "          Mac Address Table\n-------------------------------------------\n\n"
                 "Vlan    Mac Address       Type        Ports\n"
                 "----    -----------       --------    -----\n");
    for (unsigned i = 0; i < n; i++) {
        char b[16];
        fprintf(out, "%4u    ", e[i].vid);
        print_mac_dotted(out, e[i].mac);
        fprintf(out, "    DYNAMIC     %s\n", lport_name(sw, e[i].lport, b, sizeof(b)));
    }
    fprintf(out, "Total Mac Addresses for this criterion: %u\n", n);
}

static void clear_counters(struct sm_switch *sw)
{
    for (unsigned i = 0; i < sw->n_ports; i++) {
        struct sm_port *p = &sw->ports[i];
        memset(&p->ctr, 0, sizeof(p->ctr));
        /* The engines' MIB counters are theirs; "clear counters" resets ours only, so
         * LACP counters are shown relative to a baseline would need engine support. */
        if (p->shaped) {
            memset(&p->sh_in.stats, 0, sizeof(p->sh_in.stats));
            memset(&p->sh_out.stats, 0, sizeof(p->sh_out.stats));
        }
    }
}

static int bad(FILE *out, const char *what, const char *tok)
{
    fprintf(out, "%% %s%s%s%s\n", what, tok ? " '" : "", tok ? tok : "", tok ? "'" : "");
    return -EINVAL;
}

static struct sm_port *port_arg(struct sm_switch *sw, const char *tok, FILE *out)
{
    struct sm_port *p = tok ? sm_port_find(sw, tok) : NULL;
    if (!p)
        (void)bad(out, "Invalid interface", tok);
    return p;
}

static int cmd_lacp_knob(struct sm_switch *sw, char **w, int n, FILE *out, uint64_t now)
{
    if (n != 4)
        return bad(out, "Usage: lacp drop-rx|drop-tx IF on|off, lacp delay-tx IF MS", NULL);
    struct sm_port *p = port_arg(sw, w[2], out);
    if (!p)
        return -EINVAL;
    if (!p->lacp)
        return bad(out, "Interface does not run LACP", w[2]);
    struct zvs_lacp_faults f = *zvs_lacp_port_faults(&p->lp);
    if (strcasecmp(w[1], "drop-rx") == 0 || strcasecmp(w[1], "drop-tx") == 0) {
        bool on;
        if (strcasecmp(w[3], "on") == 0)
            on = true;
        else if (strcasecmp(w[3], "off") == 0)
            on = false;
        else
            return bad(out, "Invalid input", w[3]);
        if (strcasecmp(w[1], "drop-rx") == 0)
            f.drop_rx = on;
        else
            f.drop_tx = on;
    } else if (strcasecmp(w[1], "delay-tx") == 0) {
        char *end;
        errno = 0;
        unsigned long ms = strtoul(w[3], &end, 10);
        if (errno || *end || !isdigit((unsigned char)w[3][0]) || ms > 600000)
            return bad(out, "Invalid input", w[3]);
        f.delay_tx_ns = (uint64_t)ms * 1000000ull;
    } else {
        return bad(out, "Invalid input", w[1]);
    }
    sm_port_set_faults(p, &f, now);
    return 0;
}

static int cmd_show(struct sm_switch *sw, char **w, int n, FILE *out, uint64_t now)
{
    if (n == 3 && kw(w[1], "etherchannel") && kw(w[2], "summary"))
        show_etherchannel_summary(sw, out);
    else if (n == 3 && kw(w[1], "etherchannel") && kw(w[2], "load-balance"))
        show_etherchannel_load_balance(sw, out);
    else if (n == 3 && kw(w[1], "lacp") && kw(w[2], "neighbor"))
        show_lacp_neighbor(sw, out, now);
    else if (n == 3 && kw(w[1], "lacp") && kw(w[2], "counters"))
        show_lacp_counters(sw, out);
    else if (n == 3 && kw(w[1], "lacp") && kw(w[2], "internal"))
        show_lacp_internal(sw, out);
    else if (n == 3 && kw(w[1], "interfaces") && kw(w[2], "counters"))
        show_interfaces_counters(sw, out);
    else if (n == 3 && kw(w[1], "mac") && kw(w[2], "address-table"))
        show_mac_table(sw, out, now);
    else
        return bad(out, "Invalid input detected at", n > 1 ? w[n - 1] : w[0]);
    return 0;
}

static void help(FILE *out)
{
    fprintf(out, "show etherchannel summary | show etherchannel load-balance\n"
                 "show lacp neighbor | show lacp counters | show lacp internal\n"
                 "show interfaces counters | show mac address-table\n"
                 "clear counters | clear mac address-table\n"
                 "shutdown IF | no shutdown IF\n"
                 "lacp drop-rx IF on|off | lacp drop-tx IF on|off | lacp delay-tx IF MS\n");
}

int sm_cmd_exec(struct sm_switch *sw, const char *line, FILE *out)
{
    char buf[256];
    char *w[MAX_WORDS];
    int n = 0;
    uint64_t now = zvs_evloop_now(sw->loop);

    if (strlen(line) >= sizeof(buf))
        return bad(out, "Command too long", NULL);
    snprintf(buf, sizeof(buf), "%s", line);
    for (char *s = strtok(buf, " \t\r\n"); s && n < MAX_WORDS; s = strtok(NULL, " \t\r\n"))
        w[n++] = s;
    if (n == 0)
        return 0;
    if (kw(w[0], "show"))
        return cmd_show(sw, w, n, out, now);
    if (kw(w[0], "help") || strcmp(w[0], "?") == 0) {
        help(out);
        return 0;
    }
    if (kw(w[0], "clear") && n == 2 && kw(w[1], "counters")) {
        clear_counters(sw);
        return 0;
    }
    if (kw(w[0], "clear") && n == 3 && kw(w[1], "mac") && kw(w[2], "address-table")) {
        sm_mac_flush(&sw->l2.mac);
        return 0;
    }
    if (kw(w[0], "shutdown") && n == 2) {
        struct sm_port *p = port_arg(sw, w[1], out);
        if (!p)
            return -EINVAL;
        sm_port_admin(p, true, now);
        return 0;
    }
    if (strcasecmp(w[0], "no") == 0 && n == 3 && kw(w[1], "shutdown")) {
        struct sm_port *p = port_arg(sw, w[2], out);
        if (!p)
            return -EINVAL;
        sm_port_admin(p, false, now);
        return 0;
    }
    if (kw(w[0], "lacp") && n >= 2)
        return cmd_lacp_knob(sw, w, n, out, now);
    return bad(out, "Invalid input detected at", w[0]);
}
