/* Per-OSA and per-NIC charts: bytes/s, packets/s and discards/s over the last
 * WEB_CHART_POINTS intervals, as SVG drawn here (so the page works without a script) and
 * as JSON (/data/charts.json). The charts page replaces its charts with /charts/part every
 * monitor interval with a few lines of script, without reloading; without a script it
 * reloads itself instead (a meta refresh inside noscript). Rates are the screens' own
 * (zvs_fcx240_rows for OSA ports, zvs_fcx269_rows for NICs). */
#include "tools/web/series.h"
#include "tools/web/web.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { C_OUT_B, C_IN_B, C_OUT_P, C_IN_P, C_DISC, C_NVAL };

struct cseries {
    struct series_key k;                /* first: series_find */
    unsigned n;
    int64_t  t[WEB_CHART_POINTS];
    double   v[C_NVAL][WEB_CHART_POINTS];
};

struct cset {
    struct cseries *s;
    unsigned n, cap;
};

static struct cseries *series_of(struct cset *cs, bool nic, const char *vswitch,
                                 const char *userid, uint16_t addr)
{
    struct series_key k = series_key(nic, vswitch, userid, addr);
    bool fresh;
    void *arr = cs->s;
    struct cseries *s = series_find(&arr, &cs->n, &cs->cap, sizeof(*s), &k, 0, &fresh);
    cs->s = arr;
    return s;
}

static void point(struct cseries *s, int64_t t, const double *rate)
{
    if (!s || s->n == WEB_CHART_POINTS)
        return;
    s->t[s->n] = t;
    s->v[C_OUT_B][s->n] = rate[ZVS_SCR_T_BYTE];
    s->v[C_IN_B][s->n] = rate[ZVS_SCR_R_BYTE];
    s->v[C_OUT_P][s->n] = rate[ZVS_SCR_T_PACK];
    s->v[C_IN_P][s->n] = rate[ZVS_SCR_R_PACK];
    s->v[C_DISC][s->n] = rate[ZVS_SCR_T_DISC] + rate[ZVS_SCR_R_DISC];
    s->n++;
}

/* The series of the last WEB_CHART_POINTS intervals. Lock held. */
static void collect(const struct store *st, struct cset *cs)
{
    unsigned first = st->n > WEB_CHART_POINTS ? st->n - WEB_CHART_POINTS : 1;
    memset(cs, 0, sizeof(*cs));
    for (unsigned i = first; i < st->n; i++) {
        struct zvs_scr_sample a, b;
        struct zvs_scr_row *row;
        double sys[ZVS_SCR_NCOL];
        int64_t t = zvs_scr_tod_unix_s(st->s[i].tod);
        store_interval(st, i, &a, &b);
        int n = zvs_fcx240_rows(&a, &b, &row, sys);
        for (int k = 0; k < n; k++) {
            const struct zvs_mon_vswitch_activity *v = &row[k].rec->u.vsw;
            point(series_of(cs, false, v->lan_name, "", v->rdev), t, row[k].rate);
        }
        if (n >= 0)
            free(row);
        n = zvs_fcx269_rows(&a, &b, &row, sys);
        for (int k = 0; k < n; k++) {
            const struct zvs_mon_vnic_activity *v = &row[k].rec->u.vnic;
            point(series_of(cs, true, v->lan_name, v->owner, v->vdev), t, row[k].rate);
        }
        if (n >= 0)
            free(row);
    }
}

/* A round top for the axis: 1, 2 or 5 times a power of ten, at least v. */
static double nice_top(double v)
{
    double p = 1.0;
    if (v <= 1.0)
        return 1.0;
    while (p * 10.0 < v)
        p *= 10.0;
    return v <= 2 * p ? 2 * p : v <= 5 * p ? 5 * p : 10 * p;
}

static void fmt_si(double v, char *buf, size_t cap)
{
    if (v >= 1e9)
        snprintf(buf, cap, "%gG", v / 1e9);
    else if (v >= 1e6)
        snprintf(buf, cap, "%gM", v / 1e6);
    else if (v >= 1e3)
        snprintf(buf, cap, "%gk", v / 1e3);
    else
        snprintf(buf, cap, "%g", v);
}

static void hms(int64_t t, char buf[16])
{
    snprintf(buf, 16, "%02d:%02d:%02d", (int)(t / 3600 % 24), (int)(t / 60 % 60), (int)(t % 60));
}

#define W 380
#define H 150
#define L 56                            /* left margin: the value axis */
#define R 10
#define T 18
#define B 30                            /* bottom: the time axis */

/* One chart of a series: the values a (solid) and b (dashed, or -1: none), in unit. */
static void svg(struct wbuf *out, const struct cseries *s, const char *id, const char *unit,
                int a, int b)
{
    double max = 0.0;
    for (unsigned i = 0; i < s->n; i++) {
        if (s->v[a][i] > max)
            max = s->v[a][i];
        if (b >= 0 && s->v[b][i] > max)
            max = s->v[b][i];
    }
    double top = nice_top(max);
    int64_t t0 = s->n ? s->t[0] : 0, t1 = s->n ? s->t[s->n - 1] : 1;
    double span = t1 > t0 ? (double)(t1 - t0) : 1.0;
    char lo[16], hi[16], v[16];
    hms(t0, lo);
    hms(t1, hi);
    wbuf_printf(out, "<svg id=\"%s\" class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" "
                "width=\"%d\" height=\"%d\" data-points=\"%u\" data-end=\"%lld\">", id, W, H,
                s->n, (long long)t1);
    wbuf_printf(out, "<rect width=\"%d\" height=\"%d\" fill=\"#000\"/>"
                "<text x=\"%d\" y=\"12\" fill=\"#fff\" font-size=\"11\">%s</text>"
                "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>"
                "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>",
                W, H, L, unit, L, T, L, H - B, L, H - B, W - R, H - B);
    for (int k = 0; k <= 2; k++) {      /* value ticks: 0, half, top */
        double y = H - B - (double)(H - B - T) * k / 2.0;
        fmt_si(top * k / 2.0, v, sizeof(v));
        wbuf_printf(out, "<text x=\"%d\" y=\"%.0f\" fill=\"#ccc\" font-size=\"10\" "
                    "text-anchor=\"end\">%s</text>", L - 4, y + 3, v);
    }
    wbuf_printf(out, "<text x=\"%d\" y=\"%d\" fill=\"#ccc\" font-size=\"10\">%s</text>"
                "<text x=\"%d\" y=\"%d\" fill=\"#ccc\" font-size=\"10\" text-anchor=\"end\">%s"
                "</text><text x=\"%d\" y=\"%d\" fill=\"#ccc\" font-size=\"10\" "
                "text-anchor=\"middle\">time (UTC)</text>", L, H - B + 14, lo, W - R,
                H - B + 14, hi, (L + W - R) / 2, H - 4);
    for (int line = 0; line < 2; line++) {
        int which = line ? b : a;
        if (which < 0 || s->n == 0)
            continue;
        wbuf_printf(out, "<polyline fill=\"none\" stroke=\"%s\" %s points=\"",
                    line ? "#8cf" : "#6f6", line ? "stroke-dasharray=\"4 3\"" : "");
        for (unsigned i = 0; i < s->n; i++) {
            double x = L + (double)(W - L - R) * (double)(s->t[i] - t0) / span;
            double y = H - B - (double)(H - B - T) * s->v[which][i] / top;
            wbuf_printf(out, "%.1f,%.1f ", x, y);
        }
        wbuf_puts(out, "\"/>");
    }
    wbuf_puts(out, "</svg>\n");
}

static void name(char *buf, size_t cap, const struct cseries *s)
{
    if (s->k.nic)
        snprintf(buf, cap, "nic-%s-%04X", s->k.userid, s->k.addr);
    else
        snprintf(buf, cap, "osa-%s-%04X", s->k.vswitch, s->k.addr);
}

int page_charts_part(struct web *w, struct wbuf *out)
{
    struct cset cs;
    collect(&w->st, &cs);
    wbuf_printf(out, "<div id=\"charts-body\" data-samples=\"%u\">\n", w->st.n);
    if (cs.n == 0)
        wbuf_puts(out, "<p>No complete interval yet.</p>\n");
    for (unsigned i = 0; i < cs.n; i++) {
        const struct cseries *s = &cs.s[i];
        char id[48], sub[64];
        name(id, sizeof(id), s);
        wbuf_printf(out, "<h2>%s ", s->k.nic ? "NIC" : "OSA");
        if (s->k.nic) {
            wbuf_html(out, s->k.userid);
            wbuf_printf(out, " %04X on ", s->k.addr);
            wbuf_html(out, s->k.vswitch);
        } else {
            wbuf_printf(out, "%04X of ", s->k.addr);
            wbuf_html(out, s->k.vswitch);
        }
        wbuf_puts(out, " <small>(solid: outbound, dashed: inbound)</small></h2>\n<div>");
        snprintf(sub, sizeof(sub), "%s-bytes", id);
        svg(out, s, sub, "bytes/s", C_OUT_B, C_IN_B);
        snprintf(sub, sizeof(sub), "%s-packets", id);
        svg(out, s, sub, "packets/s", C_OUT_P, C_IN_P);
        snprintf(sub, sizeof(sub), "%s-discards", id);
        svg(out, s, sub, "discards/s", C_DISC, -1);
        wbuf_puts(out, "</div>\n");
    }
    wbuf_puts(out, "</div>\n");
    free(cs.s);
    return 200;
}

int page_charts(struct web *w, struct wbuf *out)
{
    unsigned every = page_refresh_s(w);
    page_head(out, "zvswitch charts", 0);
    wbuf_printf(out, "<noscript><meta http-equiv=\"refresh\" content=\"%u\"></noscript>\n"
                "<h1>Charts</h1>\n<p>Per OSA port and per NIC, the last %u intervals; "
                "updated every %u s.</p>\n<div id=\"charts\">", every, WEB_CHART_POINTS, every);
    page_charts_part(w, out);
    wbuf_printf(out, "</div>\n<script>\n"
                "var updates = 0;\n"
                "setInterval(function () {\n"
                "  fetch('/charts/part').then(function (r) { return r.ok ? r.text() : null; })\n"
                "    .then(function (t) { if (t) { document.getElementById('charts').innerHTML = t;"
                " updates++; document.body.dataset.updates = updates; } })\n"
                "    .catch(function () {});\n"
                "}, %u);\n</script>\n", every * 1000);
    page_tail(w, out);
    return 200;
}

int data_charts(struct web *w, struct wbuf *out)
{
    static const char *const key[C_NVAL] = {
        "out_bytes_s", "in_bytes_s", "out_packets_s", "in_packets_s", "discards_s",
    };
    struct cset cs;
    collect(&w->st, &cs);
    wbuf_puts(out, "{\"system\":\"");
    wbuf_json(out, w->st.system);
    wbuf_printf(out, "\",\"interval_s\":%u,\"series\":[", page_refresh_s(w));
    for (unsigned i = 0; i < cs.n; i++) {
        const struct cseries *s = &cs.s[i];
        char id[48];
        name(id, sizeof(id), s);
        wbuf_printf(out, "%s{\"id\":\"", i ? "," : "");
        wbuf_json(out, id);
        wbuf_printf(out, "\",\"kind\":\"%s\",\"vswitch\":\"", s->k.nic ? "nic" : "osa");
        wbuf_json(out, s->k.vswitch);
        wbuf_printf(out, "\",\"%s\":\"%04X\"", s->k.nic ? "vdev" : "rdev", s->k.addr);
        if (s->k.nic) {
            wbuf_puts(out, ",\"userid\":\"");
            wbuf_json(out, s->k.userid);
            wbuf_puts(out, "\"");
        }
        wbuf_puts(out, ",\"t\":[");
        for (unsigned k = 0; k < s->n; k++)
            wbuf_printf(out, "%s%lld", k ? "," : "", (long long)s->t[k]);
        wbuf_puts(out, "]");
        for (unsigned c = 0; c < C_NVAL; c++) {
            wbuf_printf(out, ",\"%s\":[", key[c]);
            for (unsigned k = 0; k < s->n; k++)
                wbuf_printf(out, "%s%.3f", k ? "," : "", s->v[c][k]);
            wbuf_puts(out, "]");
        }
        wbuf_puts(out, "}");
    }
    wbuf_puts(out, "]}\n");
    free(cs.s);
    return 200;
}
