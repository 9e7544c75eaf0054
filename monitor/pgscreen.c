/* PGROUP: our per-port-group screen (an extension; z/VM's Performance Toolkit has none).
 * One block per port group, one row per member uplink device from D6R21: RDEV, whether it
 * carries outbound (distributing), the LACP actor state octet as letters, outbound and
 * inbound bytes/s, LACPDUs and Markers sent/received in the interval (counts, not
 * rates: a healthy group exchanges a handful), and the group's load-balancing INTERVAL.
 * Devices without a port group are listed under "........".
 *
 * Actor state letters, bit 0 first (802.1AX Actor_State): A LACP_Activity, T
 * LACP_Timeout (short), G Aggregation, S Synchronization, C Collecting, D Distributing,
 * F Defaulted, E Expired; '-' where the bit is clear.
 */
#include "monitor/screens.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is_d6r21(const struct zvs_mon_record *r)
{
    return r->domain == ZVS_MON_DOMAIN_IO && r->number == ZVS_MON_REC_D6R21;
}

static const struct zvs_mon_vswitch_activity *
prev_member(const struct zvs_scr_sample *prev, const struct zvs_mon_vswitch_activity *v)
{
    for (unsigned i = 0; prev && i < prev->nrec; i++) {
        const struct zvs_mon_record *r = &prev->rec[i];
        if (is_d6r21(r) && r->u.vsw.rdev == v->rdev &&
            strcmp(r->u.vsw.lan_name, v->lan_name) == 0)
            return &r->u.vsw;
    }
    return NULL;
}

static int cmp_member(const void *a, const void *b)
{
    const struct zvs_mon_record *x = *(const struct zvs_mon_record *const *)a;
    const struct zvs_mon_record *y = *(const struct zvs_mon_record *const *)b;
    int c = strcmp(x->u.vsw.group, y->u.vsw.group);
    if (c == 0)
        c = strcmp(x->u.vsw.lan_name, y->u.vsw.lan_name);
    if (c != 0)
        return c < 0 ? -1 : 1;
    if (x->u.vsw.rdev != y->u.vsw.rdev)
        return x->u.vsw.rdev < y->u.vsw.rdev ? -1 : 1;
    return x < y ? -1 : (x > y);
}

void zvs_scr_lacp_letters(uint8_t s, char out[9])
{
    static const char letter[] = "ATGSCDFE";
    for (unsigned i = 0; i < 8; i++)
        out[i] = (s & (1u << i)) ? letter[i] : '-';
    out[8] = '\0';
}

int zvs_pgroup_render(const struct zvs_scr_sample *prev, const struct zvs_scr_sample *cur,
                      char *out, size_t cap)
{
    double secs = zvs_scr_seconds(prev->tod, cur->tod);
    if (secs <= 0.0)
        return -EINVAL;
    unsigned n = 0;
    for (unsigned i = 0; i < cur->nrec; i++)
        n += is_d6r21(&cur->rec[i]);
    const struct zvs_mon_record **row = calloc(n ? n : 1, sizeof(*row));
    if (!row)
        return -ENOMEM;
    n = 0;
    for (unsigned i = 0; i < cur->nrec; i++)
        if (is_d6r21(&cur->rec[i]))
            row[n++] = &cur->rec[i];
    qsort(row, n, sizeof(*row), cmp_member);

    struct zvs_scr_buf b;
    zvs_scr_buf_init(&b, out, cap);
    zvs_scr_header(&b, "PGROUP", prev->tod, cur->tod, true);
    zvs_scr_printf(&b, "____     .        .       . .             .      .     .     "
                   ".     .     .    .    .     .\n");
    zvs_scr_printf(&b, "                            LACP     <--Bytes/s--> "
                   "<-LACPDUs-> <-Markers-> Intv Buck- Group\n");
    zvs_scr_printf(&b, "Group    Vswitch  RDEV Dist State    T_Byte R_Byte  "
                   "Sent  Rcvd  Sent  Rcvd  Sec  ets Moves\n");
    static const struct zvs_mon_vswitch_activity zero;
    for (unsigned i = 0; i < n; i++) {
        const struct zvs_mon_vswitch_activity *v = &row[i]->u.vsw;
        const struct zvs_mon_vswitch_activity *p = prev_member(prev, v);
        if (!p)
            p = &zero;
        char st[9], tb[16], rb[16], iv[8];
        zvs_scr_lacp_letters(v->lacp_state, st);
        zvs_scr_fmt_int6((double)zvs_scr_delta(p->tx_bytes, v->tx_bytes) / secs, tb, sizeof(tb));
        zvs_scr_fmt_int6((double)zvs_scr_delta(p->rx_bytes, v->rx_bytes) / secs, rb, sizeof(rb));
        if (v->interval_s)
            snprintf(iv, sizeof(iv), "%u", v->interval_s);
        else
            snprintf(iv, sizeof(iv), "OFF");
        zvs_scr_printf(&b, "%-8.8s %-8.8s %04X %4s %-8s %6s %6s %5llu %5llu %5llu %5llu %4s"
                       " %4u %5llu\n",
                       v->group[0] ? v->group : "........", v->lan_name, v->rdev,
                       v->distributing ? "yes" : "no", st, tb, rb,
                       (unsigned long long)zvs_scr_delta(p->lacpdus_tx, v->lacpdus_tx),
                       (unsigned long long)zvs_scr_delta(p->lacpdus_rx, v->lacpdus_rx),
                       (unsigned long long)zvs_scr_delta(p->markers_tx, v->markers_tx),
                       (unsigned long long)zvs_scr_delta(p->marker_requests_rx,
                                                         v->marker_requests_rx),
                       iv, v->buckets,
                       (unsigned long long)zvs_scr_delta(p->group_moves, v->group_moves));
    }
    free(row);
    return zvs_scr_buf_result(&b);
}
