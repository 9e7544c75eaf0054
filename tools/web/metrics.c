/* /metrics: cumulative counters per uplink device and NIC, and the exposition (metrics.h). */
#include "tools/web/metrics.h"
#include "tools/web/series.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LACP_COLLECTING   0x10          /* actor state bit 4 (IEEE 802.1AX 6.4.2.3) */
#define LACP_DISTRIBUTING 0x20          /* bit 5 */

enum { DEV_NCTR = 14, NIC_NCTR = 8, MAX_NCTR = 14 };

/* One device (D6R21) or NIC (D8R1) seen in some sample. */
struct series {
    struct series_key k;                /* first: series_find */
    bool     present;                   /* in the last sample */
    char     group[9];
    uint64_t last[MAX_NCTR];            /* raw values in the last sample */
    uint64_t total[MAX_NCTR];           /* exposed: monotonic */
    uint8_t  lacp_state, distributing;
    uint16_t buckets;
    uint32_t moves_last;                /* the group's bucket moves, raw */
    uint64_t moves_total;
    bool     has_drops;                 /* some sample carried counters by reason */
    uint64_t drops_last[ZVS_MON_DROP_REASONS], drops_total[ZVS_MON_DROP_REASONS];
};

struct metrics {
    struct series *s;
    unsigned n, cap;
    uint64_t samples;                   /* sample groups folded in */
};

struct family {
    const char *name, *help;
    bool nic;
    unsigned idx;                       /* into last[] / total[] */
};

static const struct family counters[] = {
    { "zvswitch_uplink_transmit_bytes_total", "Bytes the uplink device sent to the LAN (D6R21 IODVSW_NICTXBYT).", false, 0 },
    { "zvswitch_uplink_transmit_packets_total", "Frames the uplink device sent (NICTXPKT).", false, 1 },
    { "zvswitch_uplink_transmit_discards_total", "Outbound frames discarded (NICTXDSC).", false, 2 },
    { "zvswitch_uplink_receive_bytes_total", "Bytes the uplink device received (NICRXBYT).", false, 3 },
    { "zvswitch_uplink_receive_packets_total", "Frames the uplink device received (NICRXPKT).", false, 4 },
    { "zvswitch_uplink_receive_discards_total", "Inbound frames discarded (NICRXDSC).", false, 5 },
    { "zvswitch_uplink_transmit_errors_total", "Outbound errors (NICTXERR).", false, 6 },
    { "zvswitch_uplink_receive_errors_total", "Inbound errors (NICRXERR).", false, 7 },
    { "zvswitch_lacp_lacpdus_sent_total", "LACPDUs sent (IODVSW_VQSLCSCT).", false, 8 },
    { "zvswitch_lacp_lacpdus_received_total", "LACPDUs received (VQSLCRCT).", false, 9 },
    { "zvswitch_lacp_markers_sent_total", "Marker PDUs sent (VQSMRKCT).", false, 10 },
    { "zvswitch_lacp_marker_responses_received_total", "Marker Responses received (VQSMRPCT).", false, 11 },
    { "zvswitch_lacp_marker_requests_received_total", "Markers received and answered (VQSMRRCT).", false, 12 },
    { "zvswitch_lacp_marker_timeouts_total", "Markers unanswered in time (VQSMTOCT).", false, 13 },
    { "zvswitch_nic_transmit_bytes_total", "Bytes the guest's NIC sent (D8R1 VNDSES_SESTXBYT).", true, 0 },
    { "zvswitch_nic_transmit_packets_total", "Frames the guest's NIC sent.", true, 1 },
    { "zvswitch_nic_transmit_discards_total", "Frames the guest sent that were discarded.", true, 2 },
    { "zvswitch_nic_receive_bytes_total", "Bytes delivered to the guest's NIC.", true, 3 },
    { "zvswitch_nic_receive_packets_total", "Frames delivered to the guest's NIC.", true, 4 },
    { "zvswitch_nic_receive_discards_total", "Frames for the guest discarded (no empty input buffer).", true, 5 },
    { "zvswitch_nic_transmit_errors_total", "Outbound errors of the NIC.", true, 6 },
    { "zvswitch_nic_receive_errors_total", "Inbound errors of the NIC.", true, 7 },
};

const char *metrics_refusal_name(enum metrics_refusal r)
{
    static const char *const name[REFUSED_NREASONS] = {
        "method", "path", "not_found", "headers", "connections",
    };
    return r < REFUSED_NREASONS ? name[r] : "?";
}

struct metrics *metrics_new(void)
{
    return calloc(1, sizeof(struct metrics));
}

void metrics_free(struct metrics *m)
{
    if (m)
        free(m->s);
    free(m);
}

static void dev_values(const struct zvs_mon_vswitch_activity *v, uint64_t *x)
{
    const uint64_t vals[DEV_NCTR] = {
        v->tx_bytes, v->tx_packets, v->tx_discards, v->rx_bytes, v->rx_packets,
        v->rx_discards, v->tx_errors, v->rx_errors, v->lacpdus_tx, v->lacpdus_rx,
        v->markers_tx, v->marker_responses_rx, v->marker_requests_rx, v->marker_timeouts,
    };
    memcpy(x, vals, sizeof(vals));
}

static void nic_values(const struct zvs_mon_vnic_activity *v, uint64_t *x)
{
    const uint64_t vals[NIC_NCTR] = {
        v->tx_bytes, v->tx_packets, v->tx_discards, v->rx_bytes, v->rx_packets,
        v->rx_discards, v->tx_errors, v->rx_errors,
    };
    memcpy(x, vals, sizeof(vals));
}

/* The series of a record, made when first seen; NULL on allocation failure. */
static struct series *find(struct metrics *m, bool nic, const char *vswitch,
                           const char *userid, uint16_t addr, unsigned hint, bool *fresh)
{
    struct series_key k = series_key(nic, vswitch, userid, addr);
    void *arr = m->s;
    struct series *s = series_find(&arr, &m->n, &m->cap, sizeof(*s), &k, hint, fresh);
    m->s = arr;
    return s;
}

static void fold_into(uint64_t *total, uint64_t *last, const uint64_t *now, unsigned n,
                      bool fresh)
{
    for (unsigned k = 0; k < n; k++) {
        total[k] += fresh ? now[k] : zvs_scr_delta(last[k], now[k]);
        last[k] = now[k];
    }
}

static void fold(struct series *s, const uint64_t *now, unsigned n, bool fresh)
{
    fold_into(s->total, s->last, now, n, fresh);
}

/* Counters by reason, from the first record that carries them (a file an earlier vswitchd
 * began has none): folded as the totals are, so they never go backwards either. */
static void fold_drops(struct series *s, uint8_t ndrops, const uint64_t *drops)
{
    if (ndrops != ZVS_MON_DROP_REASONS)
        return;
    fold_into(s->drops_total, s->drops_last, drops, ZVS_MON_DROP_REASONS, !s->has_drops);
    s->has_drops = true;
}

void metrics_on_sample(void *arg, const struct store *st, const struct store_sample *prev,
                       const struct store_sample *cur)
{
    struct metrics *m = arg;
    uint64_t now[MAX_NCTR];
    (void)st;
    (void)prev;
    for (unsigned k = 0; k < m->n; k++)
        m->s[k].present = false;
    for (unsigned i = 0; i < cur->nrec; i++) {
        const struct zvs_mon_record *r = &cur->rec[i];
        bool fresh;
        struct series *s;
        if (r->domain == ZVS_MON_DOMAIN_IO && r->number == ZVS_MON_REC_D6R21) {
            const struct zvs_mon_vswitch_activity *v = &r->u.vsw;
            s = find(m, false, v->lan_name, "", v->rdev, i, &fresh);
            if (!s)
                continue;
            dev_values(v, now);
            fold(s, now, DEV_NCTR, fresh);
            fold_drops(s, v->ndrops, v->drops);
            s->moves_total += fresh ? v->group_moves : zvs_scr_delta(s->moves_last, v->group_moves);
            s->moves_last = v->group_moves;
            snprintf(s->group, sizeof(s->group), "%s", v->group);
            s->lacp_state = v->lacp_state;
            s->distributing = v->distributing;
            s->buckets = v->buckets;
        } else if (r->domain == ZVS_MON_DOMAIN_NET && r->number == ZVS_MON_REC_D8R1) {
            const struct zvs_mon_vnic_activity *v = &r->u.vnic;
            s = find(m, true, v->lan_name, v->owner, v->vdev, i, &fresh);
            if (!s)
                continue;
            nic_values(v, now);
            fold(s, now, NIC_NCTR, fresh);
            fold_drops(s, v->ndrops, v->drops);
            snprintf(s->group, sizeof(s->group), "%s", v->group);
        } else {
            continue;
        }
        s->present = true;
    }
    m->samples++;
}

/* Label values are CP names (A-Z, 0-9, @#$ and a few more): escaped all the same. */
static void label(struct wbuf *out, const char *name, const char *value, bool first)
{
    wbuf_printf(out, "%s%s=\"", first ? "" : ",", name);
    for (const char *c = value; *c; c++) {
        if (*c == '\\' || *c == '"')
            wbuf_printf(out, "\\%c", *c);
        else if (*c == '\n')
            wbuf_puts(out, "\\n");
        else
            wbuf_printf(out, "%c", *c);
    }
    wbuf_puts(out, "\"");
}

/* The series' labels, and a reason after them when reason is not NULL. */
static void labels_reason(struct wbuf *out, const char *system, const struct series *s,
                          const char *reason)
{
    char addr[8];
    snprintf(addr, sizeof(addr), "%04X", s->k.addr);
    wbuf_puts(out, "{");
    label(out, "system", system, true);
    label(out, "vswitch", s->k.vswitch, false);
    if (s->k.nic) {
        label(out, "group", s->group, false);
        label(out, "userid", s->k.userid, false);
        label(out, "vdev", addr, false);
    } else {
        label(out, "rdev", addr, false);
        label(out, "group", s->group, false);
    }
    if (reason)
        label(out, "reason", reason, false);
    wbuf_puts(out, "}");
}

static void labels(struct wbuf *out, const char *system, const struct series *s)
{
    labels_reason(out, system, s, NULL);
}

static void head(struct wbuf *out, const char *name, const char *type, const char *help)
{
    wbuf_printf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* Members of port groups only: the gauges that only mean something in a group. */
static bool member(const struct series *s)
{
    return !s->k.nic && s->present && s->group[0];
}

static void groups(const struct metrics *m, const char *system, struct wbuf *out)
{
    head(out, "zvswitch_group_members_distributing", "gauge",
         "Members of the port group carrying outbound traffic in the last sample.");
    for (unsigned i = 0; i < m->n; i++) {
        const struct series *s = &m->s[i];
        bool first = member(s);
        for (unsigned j = 0; first && j < i; j++)       /* once per group */
            if (member(&m->s[j]) && strcmp(m->s[j].group, s->group) == 0 &&
                strcmp(m->s[j].k.vswitch, s->k.vswitch) == 0)
                first = false;
        if (!first)
            continue;
        unsigned dist = 0;
        for (unsigned j = 0; j < m->n; j++)
            dist += member(&m->s[j]) && strcmp(m->s[j].group, s->group) == 0 &&
                    strcmp(m->s[j].k.vswitch, s->k.vswitch) == 0 && m->s[j].distributing;
        wbuf_puts(out, "zvswitch_group_members_distributing{");
        label(out, "system", system, true);
        label(out, "vswitch", s->k.vswitch, false);
        label(out, "group", s->group, false);
        wbuf_printf(out, "} %u\n", dist);
    }
}

/* Counters by reason, one family per kind and side (uplink device, NIC): the data plane's
 * reasons as the monitor records carry them, for the series whose records carry them. */
static void by_reason(const struct metrics *m, const char *system, struct wbuf *out)
{
    static const struct { const char *name, *help; bool nic; enum zvs_mon_drop_kind kind; } fam[] = {
        { "zvswitch_uplink_discards_total", "Frames the uplink device discarded, both directions, by reason.", false, ZVS_MON_DROP_KIND_DISCARD },
        { "zvswitch_uplink_errors_total", "Frames the uplink device counted as errors, both directions, by reason.", false, ZVS_MON_DROP_KIND_ERROR },
        { "zvswitch_uplink_uncounted_drops_total", "Frames counted by reason only, in neither discards nor errors (an OSA's address filter; MAC learning refused, the frame forwarded).", false, ZVS_MON_DROP_KIND_NOTE },
        { "zvswitch_nic_discards_total", "Frames of the guest's NIC discarded, both directions, by reason.", true, ZVS_MON_DROP_KIND_DISCARD },
        { "zvswitch_nic_errors_total", "Frames of the guest's NIC counted as errors, both directions, by reason.", true, ZVS_MON_DROP_KIND_ERROR },
        { "zvswitch_nic_uncounted_drops_total", "Frames of the guest's NIC counted by reason only (MAC learning refused, the frame forwarded).", true, ZVS_MON_DROP_KIND_NOTE },
    };
    for (size_t f = 0; f < sizeof(fam) / sizeof(fam[0]); f++) {
        head(out, fam[f].name, "counter", fam[f].help);
        for (unsigned i = 0; i < m->n; i++) {
            const struct series *s = &m->s[i];
            if (s->k.nic != fam[f].nic || !s->has_drops)
                continue;
            for (unsigned r = 0; r < ZVS_MON_DROP_REASONS; r++) {
                if (zvs_mon_drop_kind(r) != fam[f].kind)
                    continue;
                wbuf_puts(out, fam[f].name);
                labels_reason(out, system, s, zvs_mon_drop_name(r));
                wbuf_printf(out, " %llu\n", (unsigned long long)s->drops_total[r]);
            }
        }
    }
}

void metrics_write(const struct metrics *m, const struct store *st,
                   const uint64_t refused[REFUSED_NREASONS], struct wbuf *out)
{
    const char *system = st->system;
    for (size_t f = 0; f < sizeof(counters) / sizeof(counters[0]); f++) {
        head(out, counters[f].name, "counter", counters[f].help);
        for (unsigned i = 0; i < m->n; i++) {
            const struct series *s = &m->s[i];
            if (s->k.nic != counters[f].nic)
                continue;
            wbuf_puts(out, counters[f].name);
            labels(out, system, s);
            wbuf_printf(out, " %llu\n", (unsigned long long)s->total[counters[f].idx]);
        }
    }
    by_reason(m, system, out);
    head(out, "zvswitch_group_bucket_moves_total", "counter",
         "Buckets the member's port group has moved (INTERVAL passes, failovers, JOIN/LEAVE).");
    for (unsigned i = 0; i < m->n; i++)
        if (!m->s[i].k.nic && m->s[i].group[0]) {
            wbuf_puts(out, "zvswitch_group_bucket_moves_total");
            labels(out, system, &m->s[i]);
            wbuf_printf(out, " %llu\n", (unsigned long long)m->s[i].moves_total);
        }
    static const struct { const char *name, *help; unsigned what; } gauges[] = {
        { "zvswitch_member_lacp_collecting", "1 while the member's actor state says Collecting.", 0 },
        { "zvswitch_member_lacp_distributing", "1 while the member's actor state says Distributing.", 1 },
        { "zvswitch_member_distributing", "1 while the member carries outbound traffic.", 2 },
        { "zvswitch_member_buckets", "Port-group buckets (of 256) bound to the member.", 3 },
    };
    for (size_t g = 0; g < sizeof(gauges) / sizeof(gauges[0]); g++) {
        head(out, gauges[g].name, "gauge", gauges[g].help);
        for (unsigned i = 0; i < m->n; i++) {
            const struct series *s = &m->s[i];
            if (!member(s))
                continue;
            unsigned v = gauges[g].what == 0 ? !!(s->lacp_state & LACP_COLLECTING) :
                         gauges[g].what == 1 ? !!(s->lacp_state & LACP_DISTRIBUTING) :
                         gauges[g].what == 2 ? s->distributing : s->buckets;
            wbuf_puts(out, gauges[g].name);
            labels(out, system, s);
            wbuf_printf(out, " %u\n", v);
        }
    }
    groups(m, system, out);
    head(out, "zvswitch_nic_coupled", "gauge",
         "1 while the NIC is coupled to the VSWITCH (in the last sample), 0 once it is gone.");
    for (unsigned i = 0; i < m->n; i++)
        if (m->s[i].k.nic) {
            wbuf_puts(out, "zvswitch_nic_coupled");
            labels(out, system, &m->s[i]);
            wbuf_printf(out, " %d\n", m->s[i].present ? 1 : 0);
        }
    head(out, "zvswitch_monitor_samples_total", "counter",
         "Monitor sample groups perfkit serve has read.");
    wbuf_puts(out, "zvswitch_monitor_samples_total{");
    label(out, "system", system, true);
    wbuf_printf(out, "} %llu\n", (unsigned long long)m->samples);
    head(out, "zvswitch_monitor_read_errors_total", "counter",
         "Damaged monitor groups reported and skipped.");
    wbuf_puts(out, "zvswitch_monitor_read_errors_total{");
    label(out, "system", system, true);
    wbuf_printf(out, "} %u\n", st->nerrors);
    head(out, "zvswitch_web_requests_refused_total", "counter",
         "HTTP requests perfkit serve refused, by reason.");
    for (unsigned r = 0; r < REFUSED_NREASONS; r++) {
        wbuf_puts(out, "zvswitch_web_requests_refused_total{");
        label(out, "system", system, true);
        label(out, "reason", metrics_refusal_name((enum metrics_refusal)r), false);
        wbuf_printf(out, "} %llu\n", (unsigned long long)refused[r]);
    }
}
