/* The picture: per-RDEV outbound and inbound bytes/s over the intervals of a monitor
 * file as a hand-written SVG line chart (the figure that shows a rebalancing pass moving
 * outbound traffic from one port to another), and a small HTML report with the screens
 * in <pre> blocks and the chart inline. No libraries: text in, text out.
 *
 * Layout: 800x400 px; plot area inside fixed margins; y from 0 to a 1/2/5 x 10^k ceiling
 * of the largest value with 5 grid lines labelled in one unit for the whole axis (the
 * largest of 1, k, M, G not above the grid step: "0 40M 80M ... 200M", never "120M" above
 * "80000k" as the FCX240 rule per value would give); x from the
 * first to the last interval end, up to 6 labels hh:mm:ss (UTC). One colour per RDEV,
 * outbound solid, inbound dashed; the legend at the right.
 */
#include "monitor/screens.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define W        800
#define H        400
#define LEFT     70
#define RIGHT    150
#define TOP      30
#define BOTTOM   40
#define MAX_RDEV 16                     /* series beyond this are left out of the chart */

static const char *const palette[] = {
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
};

int zvs_chart_collect(const struct zvs_scr_sample *prev, const struct zvs_scr_sample *cur,
                      struct zvs_chart_point *pts, unsigned max, unsigned *n)
{
    struct zvs_scr_row *row;
    double sys[ZVS_SCR_NCOL];
    int nr = zvs_fcx240_rows(prev, cur, &row, sys);
    if (nr < 0)
        return nr;
    int rc = nr;
    if (*n > max || (unsigned)nr > max - *n) {
        rc = -ENOSPC;
        goto out;
    }
    for (int i = 0; i < nr; i++) {
        struct zvs_chart_point *p = &pts[(*n)++];
        p->end_unix_s = (uint64_t)zvs_scr_tod_unix_s(cur->tod);
        p->rdev = row[i].rec->u.vsw.rdev;
        p->out_bps = row[i].rate[ZVS_SCR_T_BYTE];
        p->in_bps = row[i].rate[ZVS_SCR_R_BYTE];
    }
out:
    free(row);
    return rc;
}

/* Smallest 1, 2 or 5 x 10^k not below v (1 for v <= 1). */
static double nice_ceiling(double v)
{
    double m = 1.0;
    while (m < v) {
        if (m * 2 >= v)
            return m * 2;
        if (m * 5 >= v)
            return m * 5;
        m *= 10;
    }
    return m;
}

/* One axis label in `unit` (1, 1e3, 1e6, 1e9): an integer when it is one, else one
 * decimal (only below a step of 1, a chart of almost nothing). */
static void axis_label(double v, double unit, char *out, size_t cap)
{
    static const char *const suffix[] = { "", "k", "M", "G" };
    unsigned k = unit >= 1e9 ? 3 : unit >= 1e6 ? 2 : unit >= 1e3 ? 1 : 0;
    double x = v / unit;
    double r = (double)(long long)(x + 0.5);

    if (v == 0)
        snprintf(out, cap, "0");
    else if (x - r < 1e-9 && r - x < 1e-9)
        snprintf(out, cap, "%lld%s", (long long)r, suffix[k]);
    else
        snprintf(out, cap, "%.1f%s", x, suffix[k]);
}

/* The unit of the y axis: the largest of 1, k, M, G not above the grid step. */
static double axis_unit(double step)
{
    double unit = 1;
    while (unit < 1e9 && unit * 1000 <= step)
        unit *= 1000;
    return unit;
}

/* The distinct RDEVs of the points, ascending; returns how many (at most MAX_RDEV). */
static unsigned rdevs_of(const struct zvs_chart_point *pts, unsigned n, uint16_t *out)
{
    unsigned k = 0;
    for (unsigned i = 0; i < n; i++) {
        unsigned j = 0;
        while (j < k && out[j] < pts[i].rdev)
            j++;
        if (j < k && out[j] == pts[i].rdev)
            continue;
        if (k == MAX_RDEV)
            continue;
        for (unsigned m = k; m > j; m--)
            out[m] = out[m - 1];
        out[j] = pts[i].rdev;
        k++;
    }
    return k;
}

static void hms_label(uint64_t t, char out[16])
{
    time_t tt = (time_t)t;
    struct tm tm;
    if (!gmtime_r(&tt, &tm) || strftime(out, 16, "%H:%M:%S", &tm) == 0)
        snprintf(out, 16, "?");
}

int zvs_chart_svg(const struct zvs_chart_point *pts, unsigned n, char *out, size_t cap)
{
    struct zvs_scr_buf b;
    zvs_scr_buf_init(&b, out, cap);
    uint64_t t0 = n ? pts[0].end_unix_s : 0, t1 = t0;
    double ymax = 0;
    for (unsigned i = 0; i < n; i++) {
        if (pts[i].end_unix_s < t0)
            t0 = pts[i].end_unix_s;
        if (pts[i].end_unix_s > t1)
            t1 = pts[i].end_unix_s;
        if (pts[i].out_bps > ymax)
            ymax = pts[i].out_bps;
        if (pts[i].in_bps > ymax)
            ymax = pts[i].in_bps;
    }
    ymax = nice_ceiling(ymax);
    const int pw = W - LEFT - RIGHT, ph = H - TOP - BOTTOM;
    double span = t1 > t0 ? (double)(t1 - t0) : 1.0;

    zvs_scr_printf(&b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                   "viewBox=\"0 0 %d %d\" font-family=\"monospace\" font-size=\"11\">\n",
                   W, H, W, H);
    zvs_scr_printf(&b, "<title>Uplink bytes/s per RDEV</title>\n");
    zvs_scr_printf(&b, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", W, H);
    zvs_scr_printf(&b, "<text x=\"%d\" y=\"18\" font-size=\"13\">Uplink bytes/s per RDEV "
                   "(outbound solid, inbound dashed)</text>\n", LEFT);
    /* y grid and labels, one unit for the axis */
    double unit = axis_unit(ymax / 5);
    for (int i = 0; i <= 5; i++) {
        double v = ymax * i / 5;
        int y = TOP + ph - ph * i / 5;
        char lab[24];
        axis_label(v, unit, lab, sizeof(lab));
        zvs_scr_printf(&b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>\n",
                       LEFT, y, LEFT + pw, y);
        zvs_scr_printf(&b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n",
                       LEFT - 6, y + 4, lab);
    }
    /* x labels */
    unsigned nx = t1 > t0 ? 6 : 1;
    for (unsigned i = 0; i < nx; i++) {
        uint64_t t = t0 + (uint64_t)((double)(t1 - t0) * i / (nx > 1 ? nx - 1 : 1));
        int x = LEFT + (int)(pw * (double)(t - t0) / span);
        char lab[16];
        hms_label(t, lab);
        zvs_scr_printf(&b, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", x,
                       TOP + ph + 16, lab);
    }
    /* axes */
    zvs_scr_printf(&b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n",
                   LEFT, TOP, LEFT, TOP + ph);
    zvs_scr_printf(&b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n",
                   LEFT, TOP + ph, LEFT + pw, TOP + ph);
    zvs_scr_printf(&b, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">time (UTC)</text>\n",
                   LEFT + pw / 2, H - 6);
    zvs_scr_printf(&b, "<text x=\"14\" y=\"%d\" transform=\"rotate(-90 14 %d)\" "
                   "text-anchor=\"middle\">bytes/s</text>\n", TOP + ph / 2, TOP + ph / 2);

    uint16_t rdev[MAX_RDEV];
    unsigned nr = rdevs_of(pts, n, rdev);
    for (unsigned s = 0; s < nr; s++) {
        const char *colour = palette[s % (sizeof(palette) / sizeof(palette[0]))];
        for (int dir = 0; dir < 2; dir++) {
            zvs_scr_printf(&b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s "
                           "points=\"", colour, dir ? " stroke-dasharray=\"6 4\"" : "");
            bool first = true;
            for (unsigned i = 0; i < n; i++) {
                if (pts[i].rdev != rdev[s])
                    continue;
                double v = dir ? pts[i].in_bps : pts[i].out_bps;
                double x = LEFT + pw * (double)(pts[i].end_unix_s - t0) / span;
                double y = TOP + ph - ph * v / ymax;
                zvs_scr_printf(&b, "%s%.1f,%.1f", first ? "" : " ", x, y);
                first = false;
            }
            zvs_scr_printf(&b, "\"/>\n");
            int ly = TOP + 10 + (int)(s * 2 + (unsigned)dir) * 16;
            zvs_scr_printf(&b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" "
                           "stroke-width=\"2\"%s/>\n", LEFT + pw + 12, ly, LEFT + pw + 36,
                           ly, colour, dir ? " stroke-dasharray=\"6 4\"" : "");
            zvs_scr_printf(&b, "<text x=\"%d\" y=\"%d\">%04X %s</text>\n", LEFT + pw + 42,
                           ly + 4, rdev[s], dir ? "inbound" : "outbound");
        }
    }
    zvs_scr_printf(&b, "</svg>\n");
    return zvs_scr_buf_result(&b);
}

static void html_escape(struct zvs_scr_buf *b, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': zvs_scr_printf(b, "&amp;"); break;
        case '<': zvs_scr_printf(b, "&lt;"); break;
        case '>': zvs_scr_printf(b, "&gt;"); break;
        case '"': zvs_scr_printf(b, "&quot;"); break;
        default: zvs_scr_printf(b, "%c", *s); break;
        }
    }
}

int zvs_report_html(const char *title, const char *generator, const char *const *screens,
                    unsigned nscreens, const char *svg, char *out, size_t cap)
{
    struct zvs_scr_buf b;
    zvs_scr_buf_init(&b, out, cap);
    zvs_scr_printf(&b, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">");
    if (generator) {
        zvs_scr_printf(&b, "<meta name=\"generator\" content=\"");
        html_escape(&b, generator);
        zvs_scr_printf(&b, "\">");
    }
    zvs_scr_printf(&b, "<title>");
    html_escape(&b, title);
    zvs_scr_printf(&b, "</title>\n<style>pre{background:#f4f4f4;padding:8px}</style>"
                   "</head>\n<body>\n<h1>");
    html_escape(&b, title);
    zvs_scr_printf(&b, "</h1>\n");
    for (unsigned i = 0; i < nscreens; i++) {
        zvs_scr_printf(&b, "<pre>");
        html_escape(&b, screens[i]);
        zvs_scr_printf(&b, "</pre>\n");
    }
    if (svg) {
        zvs_scr_printf(&b, "<div>\n");
        zvs_scr_printf(&b, "%s", svg);  /* ours: generated by zvs_chart_svg */
        zvs_scr_printf(&b, "</div>\n");
    }
    if (generator) {
        zvs_scr_printf(&b, "<p>Written by ");
        html_escape(&b, generator);
        zvs_scr_printf(&b, "</p>\n");
    }
    zvs_scr_printf(&b, "</body></html>\n");
    return zvs_scr_buf_result(&b);
}
