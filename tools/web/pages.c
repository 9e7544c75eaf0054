/* The menu, the screens and interval navigation as HTML (web.h). Every screen is a table
 * with one cell per field, the columns and numbers perfkit prints for the same interval:
 * the rows come from the same functions (zvs_fcx240_rows, zvs_fcx269_rows) and numbers
 * pass through the same rules (zvs_scr_fmt_int6, zvs_scr_fmt_dec6). Pages are plain HTML:
 * navigation is links and a GET form, refreshing is a meta refresh; no script needed. */
#include "tools/web/web.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


static const char *const screens[][2] = {
    { "FCX240", "VSWITCH: uplink device activity (FCX240)" },
    { "FCX269", "VNIC: virtual NIC activity (FCX269)" },
    { "PGROUP", "Port groups: members, LACP and buckets (ours)" },
    { "RESOLVER", "Resolver: watched host names, lookups and failures (ours)" },
    { "EVENTS", "Events: uplink failures and recoveries, NIC links, host names (ours)" },
};

static const char *const cols[ZVS_SCR_NCOL] = {
    "T_Byte", "T_Pack", "T_Disc", "R_Byte", "R_Pack", "R_Disc", "T_Err", "R_Err",
};

unsigned page_refresh_s(const struct web *w)
{
    double s = store_interval_s(&w->st);
    if (s <= 0.0)
        return 5;
    return s < 1.0 ? 1 : (unsigned)(s + 0.5);
}

void page_head(struct wbuf *out, const char *title, unsigned refresh_s)
{
    wbuf_puts(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n");
    if (refresh_s)
        wbuf_printf(out, "<meta http-equiv=\"refresh\" content=\"%u\">\n", refresh_s);
    wbuf_puts(out, "<title>");
    wbuf_html(out, title);
    wbuf_puts(out, "</title>\n<style>\n"
              "body{font-family:monospace;background:#000;color:#6f6;margin:1em}\n"
              "a{color:#8cf}table{border-collapse:collapse}\n"
              "th,td{border:1px solid #264;padding:1px 6px;text-align:right;white-space:pre}\n"
              "th{color:#fff}td.t,th.t{text-align:left}tr.sys td{color:#ff6}\n"
              ".err{color:#f66}nav{margin:.5em 0}\n"
              "</style></head><body>\n");
}

void page_tail(struct web *w, struct wbuf *out)
{
    wbuf_puts(out, "<p><a href=\"/\">Menu</a>");
    if (w->o->generator) {
        wbuf_puts(out, " &middot; ");
        wbuf_html(out, w->o->generator);
    }
    wbuf_puts(out, "</p>\n</body></html>\n");
}

static void system_line(struct web *w, struct wbuf *out)
{
    wbuf_puts(out, "<p>System <b id=\"system\">");
    wbuf_html(out, w->st.system[0] ? w->st.system : "(unnamed)");
    wbuf_printf(out, "</b>, %u sample groups, %u events", w->st.n, w->st.nev);
    if (w->st.nerrors)
        wbuf_printf(out, ", <a class=\"err\" href=\"/errors\">%u damaged groups</a>",
                    w->st.nerrors);
    if (w->st.ended)
        wbuf_puts(out, ", <span class=\"err\">the live stream has ended: connecting again</span>");
    wbuf_puts(out, "</p>\n");
}

int page_menu(struct web *w, struct wbuf *out)
{
    page_head(out, "zvswitch Performance Toolkit", page_refresh_s(w));
    wbuf_puts(out, "<h1>zvswitch Performance Toolkit</h1>\n");
    system_line(w, out);
    wbuf_puts(out, "<table id=\"menu\"><tr><th>Screen</th><th>Report</th></tr>\n");
    for (size_t i = 0; i < sizeof(screens) / sizeof(screens[0]); i++)
        wbuf_printf(out, "<tr><td class=\"t\"><a href=\"/%s\">%s</a></td><td class=\"t\">%s"
                    "</td></tr>\n", screens[i][0], screens[i][0], screens[i][1]);
    wbuf_puts(out, "<tr><td class=\"t\"><a href=\"/charts\">charts</a></td><td class=\"t\">"
              "Per-OSA and per-NIC bytes/s, packets/s, discards/s</td></tr>\n"
              "<tr><td class=\"t\"><a href=\"/metrics\">metrics</a></td><td class=\"t\">"
              "The counters for Prometheus</td></tr>\n</table>\n");
    page_tail(w, out);
    return 200;
}

int page_errors(struct web *w, struct wbuf *out)
{
    page_head(out, "Damaged monitor groups", 0);
    wbuf_printf(out, "<h1>Damaged monitor groups</h1>\n<p>%u reported and skipped; every "
                "other interval is still shown.</p>\n<table id=\"errors\">\n", w->st.nerrors);
    unsigned kept = w->st.nerrors < STORE_MAX_ERRORS ? w->st.nerrors : STORE_MAX_ERRORS;
    for (unsigned k = 0; k < kept; k++) {
        wbuf_puts(out, "<tr><td class=\"t err\">");
        wbuf_html(out, w->st.errors[(w->st.nerrors - kept + k) % STORE_MAX_ERRORS]);
        wbuf_puts(out, "</td></tr>\n");
    }
    wbuf_puts(out, "</table>\n");
    page_tail(w, out);
    return 200;
}

void page_cell(struct wbuf *out, const char *cls, const char *text)
{
    wbuf_printf(out, "<td class=\"%s\">", cls);
    wbuf_html(out, text);
    wbuf_puts(out, "</td>");
}

static void rate_cells(struct wbuf *out, const double *rate, bool dec)
{
    char s[16];
    for (unsigned k = 0; k < ZVS_SCR_NCOL; k++) {
        if (dec)
            zvs_scr_fmt_dec6(rate[k], s, sizeof(s));
        else
            zvs_scr_fmt_int6(rate[k], s, sizeof(s));
        page_cell(out, cols[k], s);
    }
}

static void head_cells(struct wbuf *out, const char *const *names, unsigned n)
{
    wbuf_puts(out, "<tr>");
    for (unsigned k = 0; k < n; k++)
        wbuf_printf(out, "<th class=\"t\">%s</th>", names[k]);
    for (unsigned k = 0; k < ZVS_SCR_NCOL; k++)
        wbuf_printf(out, "<th>%s</th>", cols[k]);
    wbuf_puts(out, "</tr>\n");
}

static int fcx240(const struct zvs_scr_sample *a, const struct zvs_scr_sample *b,
                  struct wbuf *out)
{
    static const char *const names[] = { "Addr", "Name", "Controlr", "QSV", "Time Out Sec" };
    struct zvs_scr_row *row;
    double sys[ZVS_SCR_NCOL];
    int n = zvs_fcx240_rows(a, b, &row, sys);
    if (n < 0)
        return n;
    wbuf_puts(out, "<table id=\"screen\">\n");
    head_cells(out, names, 5);
    if (n > 0) {
        unsigned qs, to;            /* the terminal screen's rules (monitor/fcx240.c) */
        zvs_fcx240_system_qs_timeout(row, n, &qs, &to);
        wbuf_printf(out, "<tr class=\"sys\"><td class=\"t\">&gt;&gt;</td><td class=\"t\">System"
                    "</td><td class=\"t\">&lt;&lt;</td><td>%u</td><td>%u</td>", qs, to);
        rate_cells(out, sys, false);
        wbuf_puts(out, "</tr>\n");
    }
    for (int i = 0; i < n; i++) {
        const struct zvs_mon_vswitch_activity *v = &row[i].rec->u.vsw;
        wbuf_printf(out, "<tr data-rdev=\"%04X\"><td class=\"t\">%04X</td>", v->rdev, v->rdev);
        page_cell(out, "t", v->lan_name);
        page_cell(out, "t", v->controller[0] ? v->controller : "*");
        wbuf_printf(out, "<td>%u</td><td>%u</td>", v->queuestorage_mb, zvs_fcx240_timeout_s(v));
        rate_cells(out, row[i].rate, false);
        wbuf_puts(out, "</tr>\n");
    }
    wbuf_puts(out, "</table>\n");
    free(row);
    return 0;
}

static char nic_type_letter(uint8_t t)
{
    return t == 1 ? 'H' : t == 2 ? 'Q' : '?';
}

static int fcx269(const struct zvs_scr_sample *a, const struct zvs_scr_sample *b,
                  struct wbuf *out)
{
    static const char *const names[] = { "Addr", "LAN Owner", "LAN Name", "Adapter Owner",
                                         "Base Addr", "Vswitch Grpname", "V S", "L", "T" };
    struct zvs_scr_row *row;
    double sys[ZVS_SCR_NCOL];
    int n = zvs_fcx269_rows(a, b, &row, sys);
    if (n < 0)
        return n;
    wbuf_puts(out, "<table id=\"screen\">\n");
    head_cells(out, names, 9);
    if (n > 0) {
        wbuf_puts(out, "<tr class=\"sys\"><td class=\"t\" colspan=\"9\">&lt;&lt; System &gt;&gt;"
                  "</td>");
        rate_cells(out, sys, true);
        wbuf_puts(out, "</tr>\n");
    }
    for (int i = 0; i < n; i++) {
        const struct zvs_mon_vnic_activity *v = &row[i].rec->u.vnic;
        char c[8];
        wbuf_printf(out, "<tr data-vdev=\"%04X\" data-userid=\"", v->vdev);
        wbuf_html(out, v->owner);
        wbuf_printf(out, "\"><td class=\"t\">%04X</td>", v->vdev);
        page_cell(out, "t", v->lan_owner);
        page_cell(out, "t", v->lan_name);
        page_cell(out, "t", v->owner);
        wbuf_printf(out, "<td class=\"t\">%04X</td>", v->vdev);
        page_cell(out, "t", v->group[0] ? v->group : "........");
        page_cell(out, "t", v->vswitch ? "X" : "");
        snprintf(c, sizeof(c), "%c", v->transport <= 9 ? '0' + v->transport : '?');
        page_cell(out, "t", c);
        snprintf(c, sizeof(c), "%c", nic_type_letter(v->nic_type));
        page_cell(out, "t", c);
        rate_cells(out, row[i].rate, true);
        wbuf_puts(out, "</tr>\n");
    }
    wbuf_puts(out, "</table>\n");
    free(row);
    return 0;
}

static const struct zvs_mon_vswitch_activity *
prev_member(const struct zvs_scr_sample *prev, const struct zvs_mon_vswitch_activity *v)
{
    for (unsigned i = 0; i < prev->nrec; i++) {
        const struct zvs_mon_record *r = &prev->rec[i];
        if (r->domain == ZVS_MON_DOMAIN_IO && r->number == ZVS_MON_REC_D6R21 &&
            r->u.vsw.rdev == v->rdev && strcmp(r->u.vsw.lan_name, v->lan_name) == 0)
            return &r->u.vsw;
    }
    return NULL;
}

/* PGROUP's rows in its order: group, VSWITCH, RDEV. */
static int cmp_member(const void *x, const void *y)
{
    const struct zvs_mon_vswitch_activity *a = *(const struct zvs_mon_vswitch_activity *const *)x;
    const struct zvs_mon_vswitch_activity *b = *(const struct zvs_mon_vswitch_activity *const *)y;
    int c = strcmp(a->group, b->group);
    if (c == 0)
        c = strcmp(a->lan_name, b->lan_name);
    if (c != 0)
        return c < 0 ? -1 : 1;
    if (a->rdev != b->rdev)
        return a->rdev < b->rdev ? -1 : 1;
    return a < b ? -1 : (a > b);
}

static void num_cell(struct wbuf *out, unsigned long long v)
{
    wbuf_printf(out, "<td>%llu</td>", v);
}

static int pgroup(const struct zvs_scr_sample *a, const struct zvs_scr_sample *b,
                  struct wbuf *out)
{
    static const char *const names[] = { "Group", "Vswitch", "RDEV", "Dist", "LACP State",
        "T_Byte/s", "R_Byte/s", "LACPDUs Sent", "LACPDUs Rcvd", "Markers Sent",
        "Markers Rcvd", "Intv Sec", "Buckets", "Group Moves" };
    static const struct zvs_mon_vswitch_activity zero;
    double secs = zvs_scr_seconds(a->tod, b->tod);
    if (secs <= 0.0)
        return -EINVAL;
    const struct zvs_mon_vswitch_activity **row = calloc(b->nrec ? b->nrec : 1, sizeof(*row));
    if (!row)
        return -ENOMEM;
    unsigned n = 0;
    for (unsigned i = 0; i < b->nrec; i++)
        if (b->rec[i].domain == ZVS_MON_DOMAIN_IO && b->rec[i].number == ZVS_MON_REC_D6R21)
            row[n++] = &b->rec[i].u.vsw;
    qsort(row, n, sizeof(*row), cmp_member);
    wbuf_puts(out, "<table id=\"screen\">\n<tr>");
    for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
        wbuf_printf(out, "<th>%s</th>", names[k]);
    wbuf_puts(out, "</tr>\n");
    for (unsigned i = 0; i < n; i++) {
        const struct zvs_mon_vswitch_activity *v = row[i], *p = prev_member(a, v);
        char st[9], tb[16], rb[16];
        if (!p)
            p = &zero;
        zvs_scr_lacp_letters(v->lacp_state, st);
        zvs_scr_fmt_int6((double)zvs_scr_delta(p->tx_bytes, v->tx_bytes) / secs, tb, sizeof(tb));
        zvs_scr_fmt_int6((double)zvs_scr_delta(p->rx_bytes, v->rx_bytes) / secs, rb, sizeof(rb));
        wbuf_printf(out, "<tr data-rdev=\"%04X\">", v->rdev);
        page_cell(out, "t", v->group[0] ? v->group : "........");
        page_cell(out, "t", v->lan_name);
        wbuf_printf(out, "<td class=\"t\">%04X</td>", v->rdev);
        page_cell(out, "t", v->distributing ? "yes" : "no");
        page_cell(out, "t", st);
        page_cell(out, "T_Byte", tb);
        page_cell(out, "R_Byte", rb);
        num_cell(out, zvs_scr_delta(p->lacpdus_tx, v->lacpdus_tx));
        num_cell(out, zvs_scr_delta(p->lacpdus_rx, v->lacpdus_rx));
        num_cell(out, zvs_scr_delta(p->markers_tx, v->markers_tx));
        num_cell(out, zvs_scr_delta(p->marker_requests_rx, v->marker_requests_rx));
        if (v->interval_s)
            num_cell(out, v->interval_s);
        else
            page_cell(out, "", "OFF");
        num_cell(out, v->buckets);
        num_cell(out, zvs_scr_delta(p->group_moves, v->group_moves));
        wbuf_puts(out, "</tr>\n");
    }
    wbuf_puts(out, "</table>\n");
    free(row);
    return 0;
}

/* EVENTS' date and time, as perfkit EVENTS prints them: yyyy/mm/dd and hh:mm:ss.mmm UTC. */
static void when(uint64_t tod, char date[16], char tm_s[16])
{
    uint64_t us = zvs_mon_tod_to_unix_us(tod);
    time_t t = (time_t)(us / 1000000u);
    struct tm tm;
    if (!gmtime_r(&t, &tm)) {
        snprintf(date, 16, "(out of range)");
        tm_s[0] = '\0';
        return;
    }
    strftime(date, 16, "%Y/%m/%d", &tm);
    snprintf(tm_s, 16, "%02d:%02d:%02d.%03u", tm.tm_hour, tm.tm_min, tm.tm_sec,
             (unsigned)(us / 1000u % 1000u));
}

/* EVENTS as perfkit EVENTS lists them, in the file's order: a device event fills the
 * device columns, a D15R2 (a watched host name) the name's columns after them. */
static void events(struct web *w, struct wbuf *out)
{
    static const char *const names[] = { "Date", "Time", "Record", "Event", "Vswitch", "Addr",
                                         "User", "Group", "Reason" };
    unsigned shown = 0;
    wbuf_puts(out, "<table id=\"screen\">\n<tr>");
    for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
        wbuf_printf(out, "<th>%s</th>", names[k]);
    for (unsigned k = 0; k < PAGE_RES_EVENT_COLS; k++)
        wbuf_printf(out, "<th>%s</th>", page_res_event_cols[k]);
    wbuf_puts(out, "</tr>\n");
    for (unsigned i = 0; i < w->st.nev; i++) {
        const struct zvs_mon_record *r = &w->st.ev[i];
        bool io = r->domain == ZVS_MON_DOMAIN_IO &&
                  (r->number == ZVS_MON_REC_D6R22 || r->number == ZVS_MON_REC_D6R23);
        bool net = r->domain == ZVS_MON_DOMAIN_NET &&
                   (r->number == ZVS_MON_REC_D8R2 || r->number == ZVS_MON_REC_D8R3);
        bool res = r->domain == ZVS_MON_DOMAIN_ZVS && r->number == ZVS_MON_REC_D15R2;
        char d[16], t[16], addr[8];
        if (!io && !net && !res)
            continue;
        shown++;
        when(r->tod, d, t);
        wbuf_puts(out, res ? "<tr class=\"res\">" : "<tr>");
        page_cell(out, "t", d);
        page_cell(out, "t", t);
        page_cell(out, "t", zvs_mon_record_name(r->domain, r->number));
        if (io) {
            const struct zvs_mon_vswitch_event *e = &r->u.vswev;
            bool fail = r->number == ZVS_MON_REC_D6R22;
            snprintf(addr, sizeof(addr), "%04X", e->rdev);
            page_cell(out, "t", fail ? "failure" : "recovery");
            page_cell(out, "t", e->lan_name);
            page_cell(out, "t", addr);
            page_cell(out, "t", e->controller[0] ? e->controller : "*");
            page_cell(out, "t", e->group);
            page_cell(out, "t", fail ? zvs_mon_fail_reason_text(e->reason) : "");
        } else if (net) {
            const struct zvs_mon_vnic_link *l = &r->u.link;
            snprintf(addr, sizeof(addr), "%04X", l->vdev);
            page_cell(out, "t", r->number == ZVS_MON_REC_D8R2 ? "link up" : "link down");
            page_cell(out, "t", l->lan_name);
            page_cell(out, "t", addr);
            page_cell(out, "t", l->nic_owner);
            page_cell(out, "t", "");
            page_cell(out, "t", "");
        } else {
            page_cell(out, "t", zvs_mon_res_event_text(r->u.resev.event));
            for (unsigned k = 0; k < 5; k++)            /* no switch, device or user */
                page_cell(out, "t", "");
        }
        page_res_event_cells(out, r);
        wbuf_puts(out, "</tr>\n");
    }
    wbuf_puts(out, "</table>\n");
    wbuf_printf(out, "<p id=\"count\">%u monitor event%s</p>\n", shown, shown == 1 ? "" : "s");
}

/* "hh:mm:ss" -> seconds of the day, -1 if malformed. */
static long parse_hms(const char *s)
{
    unsigned h, m, sec;
    char tail;
    if (strlen(s) > 8 || sscanf(s, "%2u:%2u:%2u%c", &h, &m, &sec, &tail) != 3 || h > 23 ||
        m > 59 || sec > 59)
        return -1;
    return (long)(h * 3600 + m * 60 + sec);
}

static void nav(struct wbuf *out, const char *screen, unsigned cur, unsigned last)
{
    wbuf_puts(out, "<nav>");
    if (cur > 1)
        wbuf_printf(out, "<a id=\"prev\" href=\"/%s?i=%u\">&laquo; previous</a> ", screen,
                    cur - 1);
    if (cur < last)
        wbuf_printf(out, "<a id=\"next\" href=\"/%s?i=%u\">next &raquo;</a> ", screen, cur + 1);
    wbuf_printf(out, "<a id=\"latest\" href=\"/%s\">latest</a> "
                "<form method=\"get\" action=\"/%s\" style=\"display:inline\">"
                "<label>go to <input name=\"t\" size=\"8\" placeholder=\"hh:mm:ss\"></label> "
                "<button>go</button></form> <span id=\"where\">Interval %u of %u</span></nav>\n",
                screen, screen, cur, last);
}

static bool known(const char *screen)
{
    for (size_t i = 0; i < sizeof(screens) / sizeof(screens[0]); i++)
        if (strcmp(screen, screens[i][0]) == 0)
            return true;
    return false;
}

/* The page of a problem with the request's interval: 404, said in the page. */
static int no_interval(struct web *w, const char *screen, const char *what, const char *arg,
                       struct wbuf *out)
{
    page_head(out, screen, 0);
    wbuf_puts(out, "<p class=\"err\" id=\"problem\">");
    wbuf_html(out, what);
    if (arg) {
        wbuf_puts(out, " ");
        wbuf_html(out, arg);
    }
    wbuf_printf(out, "</p><p><a href=\"/%s\">latest</a></p>\n", screen);
    page_tail(w, out);
    return 404;
}

int page_screen(struct web *w, const char *screen, const char *query_i, const char *query_t,
                struct wbuf *out)
{
    if (!known(screen))
        return -ENOENT;
    bool live = !query_i && !query_t;
    if (strcmp(screen, "EVENTS") == 0) {
        page_head(out, "EVENTS", page_refresh_s(w));
        wbuf_puts(out, "<h1>EVENTS</h1>\n");
        system_line(w, out);
        events(w, out);
        page_tail(w, out);
        return 200;
    }
    unsigned last = w->st.n ? w->st.n - 1 : 0, cur = last;
    if (last == 0)
        return no_interval(w, screen, "No complete interval yet", NULL, out);
    if (query_i) {
        char *end;
        unsigned long i = strtoul(query_i, &end, 10);
        if (*end || !*query_i || i < 1 || i > last)
            return no_interval(w, screen, "No such interval:", query_i, out);
        cur = (unsigned)i;
    } else if (query_t) {
        long t = parse_hms(query_t);
        cur = t >= 0 ? store_find_time(&w->st, t) : 0;
        if (!cur)
            return no_interval(w, screen, "No interval contains", query_t, out);
    }
    struct zvs_scr_sample a, b;
    store_interval(&w->st, cur, &a, &b);
    char title[128];
    struct zvs_scr_buf hb;
    zvs_scr_buf_init(&hb, title, sizeof(title));
    zvs_scr_header(&hb, screen, a.tod, b.tod, strcmp(screen, "FCX269") != 0);
    title[strcspn(title, "\n")] = '\0';
    page_head(out, title, live ? page_refresh_s(w) : 0);
    wbuf_puts(out, "<h1 id=\"title\">");
    wbuf_html(out, title);
    wbuf_puts(out, "</h1>\n");
    system_line(w, out);
    nav(out, screen, cur, last);
    int rc = strcmp(screen, "FCX240") == 0 ? fcx240(&a, &b, out) :
             strcmp(screen, "FCX269") == 0 ? fcx269(&a, &b, out) :
             strcmp(screen, "RESOLVER") == 0 ? page_resolver(&a, &b, out) : pgroup(&a, &b, out);
    if (rc < 0)
        wbuf_printf(out, "<p class=\"err\">This interval cannot be shown: %s</p>\n",
                    strerror(-rc));
    page_tail(w, out);
    return 200;
}
