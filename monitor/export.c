/* Export of one interval's screen data as CSV or JSON: the same rows as the screens
 * (zvs_fcx240_rows / zvs_fcx269_rows), rates unrounded with three decimals so scripts
 * can do their own rounding. CSV: one row per device / NIC / port-group member, the
 * interval's start, end and length first (so the rows of several intervals can be
 * concatenated); JSON: one object per interval with the System row as well.
 * Names are CP names, but they come from a file: JSON strings are escaped anyway.
 */
#include "monitor/screens.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static const char *const col_name[ZVS_SCR_NCOL] = {
    "t_byte", "t_pack", "t_disc", "r_byte", "r_pack", "r_disc", "t_err", "r_err",
};

static const char *const screen_name[] = { "FCX240", "FCX269", "PGROUP" };

static void iso8601(uint64_t tod, char out[24])
{
    time_t t = (time_t)zvs_scr_tod_unix_s(tod);
    struct tm tm;
    if (!gmtime_r(&t, &tm) || strftime(out, 24, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
        snprintf(out, 24, "?");
}

static void json_str(struct zvs_scr_buf *b, const char *s)
{
    zvs_scr_printf(b, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            zvs_scr_printf(b, "\\%c", c);
        else if (c < 0x20 || c >= 0x7F)
            zvs_scr_printf(b, "\\u%04x", c);
        else
            zvs_scr_printf(b, "%c", c);
    }
    zvs_scr_printf(b, "\"");
}

static int rows_of(enum zvs_scr_screen s, const struct zvs_scr_sample *prev,
                   const struct zvs_scr_sample *cur, struct zvs_scr_row **rows,
                   double sys[ZVS_SCR_NCOL])
{
    switch (s) {
    case ZVS_SCR_FCX240:
    case ZVS_SCR_PGROUP:
        return zvs_fcx240_rows(prev, cur, rows, sys);
    case ZVS_SCR_FCX269:
        return zvs_fcx269_rows(prev, cur, rows, sys);
    }
    *rows = NULL;
    return -EINVAL;
}

/* LACPDUs and Markers of a port-group member in the interval. */
static void pdu_deltas(const struct zvs_scr_row *r, uint64_t d[4])
{
    static const struct zvs_mon_vswitch_activity zero;
    const struct zvs_mon_vswitch_activity *p = r->prev ? &r->prev->u.vsw : &zero;
    const struct zvs_mon_vswitch_activity *v = &r->rec->u.vsw;
    d[0] = zvs_scr_delta(p->lacpdus_tx, v->lacpdus_tx);
    d[1] = zvs_scr_delta(p->lacpdus_rx, v->lacpdus_rx);
    d[2] = zvs_scr_delta(p->markers_tx, v->markers_tx);
    d[3] = zvs_scr_delta(p->marker_requests_rx, v->marker_requests_rx);
}

static void csv_header(struct zvs_scr_buf *b, enum zvs_scr_screen s)
{
    zvs_scr_printf(b, "start,end,seconds,");
    if (s == ZVS_SCR_FCX240)
        zvs_scr_printf(b, "addr,name,controller,qsv,timeout_s");
    else if (s == ZVS_SCR_FCX269)
        zvs_scr_printf(b, "addr,lan_owner,lan_name,owner,base,group,vswitch,transport,type");
    else
        zvs_scr_printf(b, "group,vswitch,rdev,distributing,lacp_state,lacp_letters,"
                       "lacpdus_tx,lacpdus_rx,markers_tx,markers_rx,interval_s");
    for (unsigned k = 0; k < ZVS_SCR_NCOL; k++)
        zvs_scr_printf(b, ",%s", col_name[k]);
    zvs_scr_printf(b, "\n");
}

static void csv_row(struct zvs_scr_buf *b, enum zvs_scr_screen s, const struct zvs_scr_row *r)
{
    if (s == ZVS_SCR_FCX240) {
        const struct zvs_mon_vswitch_activity *v = &r->rec->u.vsw;
        zvs_scr_printf(b, "%04X,%s,%s,%u,300", v->rdev, v->lan_name, v->controller,
                       v->queuestorage_mb);
    } else if (s == ZVS_SCR_FCX269) {
        const struct zvs_mon_vnic_activity *v = &r->rec->u.vnic;
        zvs_scr_printf(b, "%04X,%s,%s,%s,%04X,%s,%u,%u,%u", v->vdev, v->lan_owner,
                       v->lan_name, v->owner, v->vdev, v->group, v->vswitch, v->transport,
                       v->nic_type);
    } else {
        const struct zvs_mon_vswitch_activity *v = &r->rec->u.vsw;
        char st[9];
        uint64_t d[4];
        zvs_scr_lacp_letters(v->lacp_state, st);
        pdu_deltas(r, d);
        zvs_scr_printf(b, "%s,%s,%04X,%u,0x%02X,%s,%llu,%llu,%llu,%llu,%u", v->group,
                       v->lan_name, v->rdev, v->distributing, v->lacp_state, st,
                       (unsigned long long)d[0], (unsigned long long)d[1],
                       (unsigned long long)d[2], (unsigned long long)d[3], v->interval_s);
    }
    for (unsigned k = 0; k < ZVS_SCR_NCOL; k++)
        zvs_scr_printf(b, ",%.3f", r->rate[k]);
    zvs_scr_printf(b, "\n");
}

int zvs_export_csv(enum zvs_scr_screen s, const struct zvs_scr_sample *prev,
                   const struct zvs_scr_sample *cur, bool with_header, char *out, size_t cap)
{
    struct zvs_scr_row *row;
    double sys[ZVS_SCR_NCOL];
    int n = rows_of(s, prev, cur, &row, sys);
    if (n < 0)
        return n;
    char a[24], z[24];
    iso8601(prev->tod, a);
    iso8601(cur->tod, z);
    double secs = zvs_scr_seconds(prev->tod, cur->tod);
    struct zvs_scr_buf b;
    zvs_scr_buf_init(&b, out, cap);
    if (with_header)
        csv_header(&b, s);
    for (int i = 0; i < n; i++) {
        zvs_scr_printf(&b, "%s,%s,%.3f,", a, z, secs);
        csv_row(&b, s, &row[i]);
    }
    free(row);
    return zvs_scr_buf_result(&b);
}

static void json_rates(struct zvs_scr_buf *b, const double *rate)
{
    for (unsigned k = 0; k < ZVS_SCR_NCOL; k++)
        zvs_scr_printf(b, "%s\"%s\":%.3f", k ? "," : "", col_name[k], rate[k]);
}

static void json_row(struct zvs_scr_buf *b, enum zvs_scr_screen s, const struct zvs_scr_row *r)
{
    zvs_scr_printf(b, "{");
    if (s == ZVS_SCR_FCX269) {
        const struct zvs_mon_vnic_activity *v = &r->rec->u.vnic;
        zvs_scr_printf(b, "\"addr\":\"%04X\",\"lan_owner\":", v->vdev);
        json_str(b, v->lan_owner);
        zvs_scr_printf(b, ",\"lan_name\":");
        json_str(b, v->lan_name);
        zvs_scr_printf(b, ",\"owner\":");
        json_str(b, v->owner);
        zvs_scr_printf(b, ",\"group\":");
        json_str(b, v->group);
        zvs_scr_printf(b, ",\"vswitch\":%s,\"transport\":%u,\"type\":%u,",
                       v->vswitch ? "true" : "false", v->transport, v->nic_type);
    } else {
        const struct zvs_mon_vswitch_activity *v = &r->rec->u.vsw;
        zvs_scr_printf(b, "\"addr\":\"%04X\",\"name\":", v->rdev);
        json_str(b, v->lan_name);
        zvs_scr_printf(b, ",\"controller\":");
        json_str(b, v->controller);
        zvs_scr_printf(b, ",\"group\":");
        json_str(b, v->group);
        zvs_scr_printf(b, ",\"qsv\":%u,", v->queuestorage_mb);
        if (s == ZVS_SCR_PGROUP) {
            char st[9];
            uint64_t d[4];
            zvs_scr_lacp_letters(v->lacp_state, st);
            pdu_deltas(r, d);
            zvs_scr_printf(b, "\"distributing\":%s,\"lacp_state\":%u,\"lacp_letters\":\"%s\","
                           "\"lacpdus_tx\":%llu,\"lacpdus_rx\":%llu,\"markers_tx\":%llu,"
                           "\"markers_rx\":%llu,\"interval_s\":%u,",
                           v->distributing ? "true" : "false", v->lacp_state, st,
                           (unsigned long long)d[0], (unsigned long long)d[1],
                           (unsigned long long)d[2], (unsigned long long)d[3], v->interval_s);
        }
    }
    json_rates(b, r->rate);
    zvs_scr_printf(b, "}");
}

int zvs_export_json(enum zvs_scr_screen s, const struct zvs_scr_sample *prev,
                    const struct zvs_scr_sample *cur, char *out, size_t cap)
{
    struct zvs_scr_row *row;
    double sys[ZVS_SCR_NCOL];
    int n = rows_of(s, prev, cur, &row, sys);
    if (n < 0)
        return n;
    char a[24], z[24];
    iso8601(prev->tod, a);
    iso8601(cur->tod, z);
    struct zvs_scr_buf b;
    zvs_scr_buf_init(&b, out, cap);
    zvs_scr_printf(&b, "{\"screen\":\"%s\",\"start\":\"%s\",\"end\":\"%s\",\"seconds\":%.3f,",
                   screen_name[s], a, z, zvs_scr_seconds(prev->tod, cur->tod));
    if (s != ZVS_SCR_PGROUP) {
        zvs_scr_printf(&b, "\"system\":{");
        json_rates(&b, sys);
        zvs_scr_printf(&b, "},");
    }
    zvs_scr_printf(&b, "\"rows\":[");
    for (int i = 0; i < n; i++) {
        if (i)
            zvs_scr_printf(&b, ",");
        json_row(&b, s, &row[i]);
    }
    zvs_scr_printf(&b, "]}\n");
    free(row);
    return zvs_scr_buf_result(&b);
}
