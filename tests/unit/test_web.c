/* perfkit serve without a socket (tools/web/): the pages, the exposition and the request
 * checks over a store filled as the reader thread fills it.
 *  - FCX240 and FCX269 as HTML: every row's cells are the fields perfkit prints for the
 *    same interval (the text screen split into its fields);
 *  - /metrics: counters keep rising across a counter reset (COUNTERS CLEAR, a restart),
 *    labels carry the system's name, gauges follow the last sample, a NIC that is gone
 *    shows coupled 0; discards, errors and uncounted drops by reason, for the records
 *    that carry reasons only;
 *  - RESOLVER's cells and a D15R2's in EVENTS are the fields perfkit prints;
 *  - navigation, unknown screens and intervals; the request checks (method, "..",
 *    control characters, oversized headers) and their HTTP statuses; connections counted
 *    per client address (IPv4 and its IPv6-mapped form alike) and in all.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "monitor/screens.h"
#include "monrec_builders.h"
#include "tools/web/request.h"
#include "tools/web/web.h"

#define SEC (1000000ull << 12)          /* one second of TOD clock */

static struct web_opts opts = { .generator = "perfkit (zvswitch) test" };

/* Sample k (0, 1, ...) at TOD0 + 10 s * k: uplinks 0600 and 0603 of group ETHGRP and NIC
 * 0700, counters growing by scale per sample; nic: whether the NIC is there. */
static void add_sample(struct web *w, unsigned k, uint64_t scale, bool nic)
{
    uint64_t tod = MONREC_TOD0 + 10 * SEC * k;
    struct zvs_mon_record rec[3];
    rec[0] = monrec_vswitch(0x0600, tod);
    rec[1] = monrec_vswitch(0x0603, tod);
    rec[2] = monrec_vnic(0x0700, tod);
    for (unsigned d = 0; d < 2; d++) {
        struct zvs_mon_vswitch_activity *v = &rec[d].u.vsw;
        v->tx_bytes = scale * (d ? 1500000 : 12345);
        v->tx_packets = scale * (d ? 1000 : 77);
        v->rx_bytes = scale * 64000;
        v->rx_packets = scale * 100;
        v->rx_discards = scale * 3;
        v->lacpdus_tx = (uint32_t)scale;
        v->lacp_state = d ? 0x3D : 0x0D;        /* 0603 collecting and distributing */
        v->distributing = d;
        v->buckets = d ? 256 : 0;
        v->group_moves = (uint32_t)scale * 2;
        v->interval_s = 30;
        v->iptimeout_ticks = d ? 20 : 6;        /* IPTIMEOUT 10 and 3: Time Out 600, 180 */
    }
    struct zvs_mon_vnic_activity *n = &rec[2].u.vnic;
    n->tx_bytes = scale * 98000;
    n->tx_packets = scale * 70;
    n->rx_bytes = scale * 4200;
    n->rx_packets = scale * 30;
    n->rx_discards = scale;
    struct zvs_mon_group g = { .sample = true, .tod = tod, .nrec = nic ? 3 : 2, .rec = rec };
    strcpy(g.system, "TESTSYS");
    assert_int_equal(store_add(&w->st, &g), 0);
}

static struct web *web_new(void)
{
    struct web *w = calloc(1, sizeof(*w));
    assert_non_null(w);
    assert_int_equal(store_init(&w->st), 0);
    w->m = metrics_new();
    assert_non_null(w->m);
    w->st.on_sample = metrics_on_sample;
    w->st.on_sample_arg = w->m;
    w->o = &opts;
    return w;
}

static void web_free(struct web *w)
{
    metrics_free(w->m);
    store_destroy(&w->st);
    free(w);
}

static char *text_of(struct wbuf *b)
{
    size_t len;
    char *t = wbuf_take(b, &len);
    assert_non_null(t);
    assert_int_equal(strlen(t), len);
    return t;
}

/* The cells of the row that starts with `start` ("<tr data-rdev=\"0600\">"), tags
 * removed and entities of < > & undone, into cells[]; their count. */
static unsigned row_cells(const char *html, const char *start, char cells[][32], unsigned max)
{
    const char *p = strstr(html, start), *end;
    unsigned n = 0;
    assert_non_null(p);
    end = strstr(p, "</tr>");
    while (n < max && (p = strstr(p, "<td")) && p < end) {
        p = strchr(p, '>') + 1;
        const char *q = strstr(p, "</td>");
        unsigned k = 0;
        while (p < q && k < 31) {
            if (strncmp(p, "&lt;", 4) == 0) { cells[n][k++] = '<'; p += 4; }
            else if (strncmp(p, "&gt;", 4) == 0) { cells[n][k++] = '>'; p += 4; }
            else if (strncmp(p, "&amp;", 5) == 0) { cells[n][k++] = '&'; p += 5; }
            else cells[n][k++] = *p++;
        }
        cells[n++][k] = '\0';
        p = q;
    }
    return n;
}

/* The whitespace-separated fields of the text screen's line that starts with `start`. */
static unsigned text_fields(const char *text, const char *start, char fields[][32], unsigned max)
{
    const char *p = text;
    while (p && strncmp(p, start, strlen(start)) != 0) {
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    assert_non_null(p);
    unsigned n = 0;
    while (*p && *p != '\n' && n < max) {
        while (*p == ' ')
            p++;
        if (!*p || *p == '\n')
            break;
        unsigned k = 0;
        while (*p && *p != ' ' && *p != '\n' && k < 31)
            fields[n][k++] = *p++;
        fields[n++][k] = '\0';
    }
    return n;
}

static char *screen_text(struct web *w, int (*fn)(const struct zvs_scr_sample *,
                                                  const struct zvs_scr_sample *, char *, size_t))
{
    struct zvs_scr_sample a, b;
    char *text = malloc(65536);
    assert_non_null(text);
    store_interval(&w->st, w->st.n - 1, &a, &b);
    assert_true(fn(&a, &b, text, 65536) > 0);
    return text;
}

static void test_fcx240_cells_are_the_screens_fields(void **state)
{
    struct web *w = web_new();
    struct wbuf out;
    char cells[24][32], fields[24][32];
    (void)state;
    add_sample(w, 0, 1, true);
    add_sample(w, 1, 7, true);
    wbuf_init(&out);
    assert_int_equal(page_screen(w, "FCX240", NULL, NULL, &out), 200);
    char *html = text_of(&out), *text = screen_text(w, zvs_fcx240_render);
    static const char *const rows[][2] = {
        { "<tr data-rdev=\"0600\">", "0600 " }, { "<tr data-rdev=\"0603\">", "0603 " },
        { "<tr class=\"sys\">", ">>" },
    };
    for (unsigned r = 0; r < 3; r++) {
        unsigned nc = row_cells(html, rows[r][0], cells, 24);
        unsigned nf = text_fields(text, rows[r][1], fields, 24);
        assert_int_equal(nc, 13);       /* Addr Name Controlr QSV Time + 8 rates */
        assert_int_equal(nf, 13);
        for (unsigned k = 0; k < nc; k++)
            assert_string_equal(cells[k], fields[k]);
    }
    assert_non_null(strstr(html, "<h1 id=\"title\">FCX240      Data for 2024/01/01"));
    assert_non_null(strstr(html, "http-equiv=\"refresh\" content=\"10\""));
    assert_non_null(strstr(html, "<b id=\"system\">TESTSYS</b>"));
    free(html);
    free(text);
    web_free(w);
}

static void test_fcx269_cells_are_the_screens_fields(void **state)
{
    struct web *w = web_new();
    struct wbuf out;
    char cells[24][32], fields[24][32];
    (void)state;
    add_sample(w, 0, 1, true);
    add_sample(w, 1, 3, true);
    wbuf_init(&out);
    assert_int_equal(page_screen(w, "FCX269", "1", NULL, &out), 200);
    char *html = text_of(&out), *text = screen_text(w, zvs_fcx269_render);
    unsigned nc = row_cells(html, "<tr data-vdev=\"0700\"", cells, 24);
    unsigned nf = text_fields(text, "0700 ", fields, 24);
    assert_int_equal(nc, 17);           /* 9 fields + 8 rates */
    assert_int_equal(nf, 17);
    for (unsigned k = 0; k < nc; k++)
        assert_string_equal(cells[k], fields[k]);
    assert_null(strstr(html, "http-equiv=\"refresh\""));    /* a chosen interval stays */
    free(html);
    free(text);
    web_free(w);
}

static unsigned long long metric(const char *text, const char *series)
{
    const char *p = strstr(text, series);
    assert_non_null(p);
    unsigned long long v = 0;
    assert_int_equal(sscanf(p + strlen(series), " %llu", &v), 1);
    return v;
}

static char *exposition(struct web *w)
{
    uint64_t refused[REFUSED_NREASONS] = { 0 };
    struct wbuf out;
    refused[REFUSED_PATH] = 2;
    wbuf_init(&out);
    metrics_write(w->m, &w->st, refused, &out);
    return text_of(&out);
}

#define DEV_LABELS(rdev) "{system=\"TESTSYS\",vswitch=\"VSW1\",rdev=\"" rdev "\",group=\"ETHGRP\"}"
#define NIC_LABELS "{system=\"TESTSYS\",vswitch=\"VSW1\",group=\"ETHGRP\",userid=\"LINUX01\",vdev=\"0700\"}"

static void test_metrics_never_go_backwards(void **state)
{
    struct web *w = web_new();
    (void)state;
    add_sample(w, 0, 1, true);
    add_sample(w, 1, 5, true);
    char *a = exposition(w);
    assert_int_equal(metric(a, "zvswitch_uplink_transmit_bytes_total" DEV_LABELS("0603")),
                     5 * 1500000ull);
    assert_int_equal(metric(a, "zvswitch_nic_transmit_packets_total" NIC_LABELS), 5 * 70);
    /* COUNTERS CLEAR (or a restart): the raw counters fall to scale 2, then rise to 4 */
    add_sample(w, 2, 2, true);
    char *b = exposition(w);
    add_sample(w, 3, 4, false);         /* the NIC uncoupled */
    char *c = exposition(w);
    assert_int_equal(metric(b, "zvswitch_uplink_transmit_bytes_total" DEV_LABELS("0603")),
                     (5 + 2) * 1500000ull);
    assert_int_equal(metric(c, "zvswitch_uplink_transmit_bytes_total" DEV_LABELS("0603")),
                     (5 + 2 + 2) * 1500000ull);
    assert_int_equal(metric(c, "zvswitch_lacp_lacpdus_sent_total" DEV_LABELS("0600")), 5 + 2 + 2);
    assert_int_equal(metric(c, "zvswitch_group_bucket_moves_total" DEV_LABELS("0600")),
                     (5 + 2 + 2) * 2);
    assert_int_equal(metric(c, "zvswitch_nic_transmit_packets_total" NIC_LABELS), (5 + 2) * 70);
    assert_int_equal(metric(c, "zvswitch_nic_coupled" NIC_LABELS), 0);
    assert_int_equal(metric(b, "zvswitch_nic_coupled" NIC_LABELS), 1);
    assert_int_equal(metric(c, "zvswitch_member_lacp_collecting" DEV_LABELS("0603")), 1);
    assert_int_equal(metric(c, "zvswitch_member_lacp_distributing" DEV_LABELS("0600")), 0);
    assert_int_equal(metric(c, "zvswitch_member_buckets" DEV_LABELS("0603")), 256);
    assert_int_equal(metric(c, "zvswitch_group_members_distributing{system=\"TESTSYS\","
                               "vswitch=\"VSW1\",group=\"ETHGRP\"}"), 1);
    assert_int_equal(metric(c, "zvswitch_web_requests_refused_total{system=\"TESTSYS\","
                               "reason=\"path\"}"), 2);
    assert_int_equal(metric(c, "zvswitch_monitor_samples_total{system=\"TESTSYS\"}"), 4);
    assert_non_null(strstr(c, "# TYPE zvswitch_uplink_receive_discards_total counter\n"));
    assert_non_null(strstr(c, "# TYPE zvswitch_nic_coupled gauge\n"));
    free(a);
    free(b);
    free(c);
    web_free(w);
}

/* Sample k of uplink 0600 (its reasons scaled by scale) and NIC 0700 (no reasons: an
 * earlier vswitchd's record). */
static void add_drops_sample(struct web *w, unsigned k, uint64_t scale)
{
    uint64_t tod = MONREC_TOD0 + 10 * SEC * k;
    struct zvs_mon_record rec[2] = { monrec_vswitch(0x0600, tod), monrec_vnic(0x0700, tod) };
    struct zvs_mon_vswitch_activity *v = &rec[0].u.vsw;
    v->ndrops = ZVS_MON_DROP_REASONS;
    v->drops[ZVS_MON_DROP_NOT_COLLECTING] = scale * 40;
    v->drops[ZVS_MON_DROP_RUNT] = scale;
    v->drops[ZVS_MON_DROP_FILTERED] = scale * 3;
    v->rx_discards = scale * 40;
    v->rx_errors = scale;
    struct zvs_mon_group g = { .sample = true, .tod = tod, .nrec = 2, .rec = rec };
    strcpy(g.system, "TESTSYS");
    assert_int_equal(store_add(&w->st, &g), 0);
}

#define REASON(rdev, why) "{system=\"TESTSYS\",vswitch=\"VSW1\",rdev=\"" rdev "\",group=\"ETHGRP\",reason=\"" why "\"}"

/* Discards by reason: one series per reason of the kind, never backwards across a counter
 * reset, none for a NIC whose records carry no reasons. */
static void test_metrics_discards_by_reason(void **state)
{
    struct web *w = web_new();
    (void)state;
    add_drops_sample(w, 0, 1);
    add_drops_sample(w, 1, 5);
    add_drops_sample(w, 2, 2);          /* COUNTERS CLEAR: 5 -> 2 counts as 2 more */
    char *t = exposition(w);
    assert_int_equal(metric(t, "zvswitch_uplink_discards_total" REASON("0600", "not-collecting")),
                     (5 + 2) * 40);
    assert_int_equal(metric(t, "zvswitch_uplink_discards_total" REASON("0600", "no-input-buffer")), 0);
    assert_int_equal(metric(t, "zvswitch_uplink_errors_total" REASON("0600", "runt")), 5 + 2);
    assert_int_equal(metric(t, "zvswitch_uplink_uncounted_drops_total" REASON("0600", "address-filtered")),
                     (5 + 2) * 3);
    /* each reason in the family of its kind only */
    assert_null(strstr(t, "zvswitch_uplink_discards_total" REASON("0600", "runt")));
    assert_null(strstr(t, "zvswitch_uplink_errors_total" REASON("0600", "not-collecting")));
    assert_non_null(strstr(t, "# TYPE zvswitch_nic_discards_total counter\n"));
    assert_null(strstr(t, "zvswitch_nic_discards_total{"));
    /* the totals without a reason are as they were */
    assert_int_equal(metric(t, "zvswitch_uplink_receive_discards_total" DEV_LABELS("0600")),
                     (5 + 2) * 40);
    free(t);
    web_free(w);
}

/* A row's cells as the terminal's words: each cell split at blanks, empty cells gone. */
static unsigned cell_words(char cells[][32], unsigned nc, char words[][32], unsigned max)
{
    unsigned n = 0;
    for (unsigned c = 0; c < nc; c++)
        for (char *p = strtok(cells[c], " "); p && n < max; p = strtok(NULL, " "))
            snprintf(words[n++], 32, "%s", p);
    return n;
}

/* Samples with a D15R1 (lookups 4 a step, failures 1 a step; sample k holds k steps of
 * each) and, after the first, a D15R2 event. */
static void add_resolver_sample(struct web *w, unsigned k)
{
    uint64_t tod = MONREC_TOD0 + 10 * SEC * k;
    struct zvs_mon_record rec[2] = { monrec_vswitch(0x0600, tod),
                                     monrec_new(ZVS_MON_DOMAIN_ZVS, ZVS_MON_REC_D15R1, tod) };
    rec[1].u.res.watched = 3;
    rec[1].u.res.in_flight = 1;
    rec[1].u.res.lookups = 4 * k;
    rec[1].u.res.failures = k;
    rec[1].u.res.deferred = 2000 * k;
    struct zvs_mon_group g = { .sample = true, .tod = tod, .nrec = 2, .rec = rec };
    strcpy(g.system, "TESTSYS");
    assert_int_equal(store_add(&w->st, &g), 0);
    if (k != 0)
        return;
    struct zvs_mon_record ev = monrec_new(ZVS_MON_DOMAIN_ZVS, ZVS_MON_REC_D15R2, tod + SEC);
    struct zvs_mon_resolver_event *e = &ev.u.resev;
    strcpy(e->name, "db.example.net");
    e->event = ZVS_MON_RES_EV_FAILING;
    e->state = 2;                       /* retrying */
    e->last_error = 3;                  /* timeout */
    e->ttl_s = 60;
    e->nold = 2;
    e->old[0].family = e->old[1].family = 4;
    memcpy(e->old[0].addr, "\xc0\x00\x02\x0a", 4);
    memcpy(e->old[1].addr, "\xc0\x00\x02\x0b", 4);
    e->nnew = 0;
    struct zvs_mon_group eg = { .sample = false, .tod = tod + SEC, .nrec = 1, .rec = &ev };
    strcpy(eg.system, "TESTSYS");
    assert_int_equal(store_add(&w->st, &eg), 0);
}

/* RESOLVER: each row's cells are the fields perfkit RESOLVER prints for the interval. */
static void test_resolver_cells_are_the_screens_fields(void **state)
{
    struct web *w = web_new();
    struct wbuf out;
    char cells[24][32], words[24][32], fields[24][32];
    (void)state;
    add_resolver_sample(w, 0);
    add_resolver_sample(w, 1);
    add_resolver_sample(w, 3);
    wbuf_init(&out);
    assert_int_equal(page_screen(w, "RESOLVER", NULL, NULL, &out), 200);
    char *html = text_of(&out), *text = screen_text(w, zvs_resolver_render);
    static const char *const rows[][2] = {
        { "<tr id=\"end\">", "At the end" }, { "<tr id=\"interval\">", "In the interval" },
        { "<tr id=\"rate\">", "Per second" },
    };
    static const unsigned nwords[] = { 5, 8, 7 };
    for (unsigned r = 0; r < 3; r++) {
        unsigned nc = row_cells(html, rows[r][0], cells, 24);
        assert_int_equal(nc, 8);        /* the label, Names, InFlt, the five counters */
        unsigned nw = cell_words(cells, nc, words, 24);
        unsigned nf = text_fields(text, rows[r][1], fields, 24);
        assert_int_equal(nw, nwords[r]);
        assert_int_equal(nf, nw);
        for (unsigned k = 0; k < nw; k++)
            assert_string_equal(words[k], fields[k]);
    }
    /* 2 steps in 20 s: 0.400 lookups a second; 4000 deferred: 200 a second (FCX269's rule) */
    assert_non_null(strstr(html, "<td class=\"Lookup\">0.400</td>"));
    assert_non_null(strstr(html, "<td class=\"Deferd\">200.0</td>"));
    assert_non_null(strstr(html, "<h1 id=\"title\">RESOLVER"));
    free(html);
    free(text);
    /* a system that watches no name: the terminal's sentence, no table */
    web_free(w);
    w = web_new();
    add_sample(w, 0, 1, true);
    add_sample(w, 1, 2, true);
    wbuf_init(&out);
    assert_int_equal(page_screen(w, "RESOLVER", NULL, NULL, &out), 200);
    html = text_of(&out);
    assert_non_null(strstr(html, "No resolver record: the system watched no host name."));
    assert_null(strstr(html, "<table id=\"screen\">"));
    free(html);
    wbuf_init(&out);
    assert_int_equal(page_menu(w, &out), 200);
    html = text_of(&out);
    assert_non_null(strstr(html, "<a href=\"/RESOLVER\">RESOLVER</a>"));
    free(html);
    web_free(w);
}

/* EVENTS: a D15R2's cells are the fields of its line in perfkit EVENTS, the words and
 * marks between them ("->", ";", "TTL", "last error") left out. */
static void test_events_d15r2_cells_are_the_lines_fields(void **state)
{
    struct web *w = web_new();
    struct wbuf out;
    char cells[24][32], words[24][32], fields[24][32];
    (void)state;
    add_resolver_sample(w, 0);
    wbuf_init(&out);
    assert_int_equal(page_screen(w, "EVENTS", NULL, NULL, &out), 200);
    char *html = text_of(&out), text[4096];
    assert_true(zvs_events_render(w->st.ev, w->st.nev, text, sizeof(text)) > 0);
    unsigned nc = row_cells(html, "<tr class=\"res\">", cells, 24);
    assert_int_equal(nc, 15);           /* 9 device columns, 6 of the name */
    for (unsigned k = 4; k < 9; k++)
        assert_string_equal(cells[k], "");
    assert_string_equal(cells[9], "db.example.net");
    assert_string_equal(cells[10], "192.0.2.10 192.0.2.11");
    assert_string_equal(cells[11], "-");
    unsigned nw = cell_words(cells, nc, words, 24);
    unsigned nf = text_fields(text, "2024/01/01 00:00:31.000 D15R2", fields, 24), m = 0;
    for (unsigned k = 0; k < nf; k++) {
        size_t len = strlen(fields[k]);
        if (strcmp(fields[k], "->") == 0 || strcmp(fields[k], "TTL") == 0 ||
            (strcmp(fields[k], "last") == 0 && k + 1 < nf && strcmp(fields[k + 1], "error") == 0)) {
            k += fields[k][0] == 'l';   /* "last error": both words */
            continue;
        }
        if (len && (fields[k][len - 1] == ';' || fields[k][len - 1] == ','))
            fields[k][len - 1] = '\0';
        memmove(fields[m++], fields[k], sizeof(fields[k]));
    }
    assert_int_equal(nw, m);
    for (unsigned k = 0; k < nw; k++)
        assert_string_equal(words[k], fields[k]);
    assert_non_null(strstr(html, "<p id=\"count\">1 monitor event</p>"));
    free(html);
    web_free(w);
}

static void test_navigation_and_unknowns(void **state)
{
    struct web *w = web_new();
    struct wbuf out;
    (void)state;
    for (unsigned k = 0; k < 4; k++)
        add_sample(w, k, k + 1, true);
    wbuf_init(&out);
    assert_int_equal(page_screen(w, "PGROUP", "2", NULL, &out), 200);
    char *html = text_of(&out);
    assert_non_null(strstr(html, "href=\"/PGROUP?i=1\""));
    assert_non_null(strstr(html, "href=\"/PGROUP?i=3\""));
    assert_non_null(strstr(html, "Interval 2 of 3"));
    free(html);
    /* 00:00:30 + 25 s falls in interval 3 (00:00:50 - 00:01:00]... of samples 10 s apart */
    wbuf_init(&out);
    assert_int_equal(page_screen(w, "FCX240", NULL, "00:00:55", &out), 200);
    html = text_of(&out);
    assert_non_null(strstr(html, "Interval 3 of 3"));
    free(html);
    static const char *const bad_i[] = { "0", "4", "x", "", "-1" };
    for (unsigned k = 0; k < 5; k++) {
        wbuf_init(&out);
        assert_int_equal(page_screen(w, "FCX240", bad_i[k], NULL, &out), 404);
        wbuf_free(&out);
    }
    wbuf_init(&out);
    assert_int_equal(page_screen(w, "FCX240", NULL, "25:00:00", &out), 404);
    wbuf_free(&out);
    wbuf_init(&out);
    assert_int_equal(page_screen(w, "FCX999", NULL, NULL, &out), -ENOENT);
    wbuf_free(&out);
    wbuf_init(&out);
    assert_int_equal(page_screen(w, "metrics/../FCX240", NULL, NULL, &out), -ENOENT);
    wbuf_free(&out);
    wbuf_init(&out);
    assert_int_equal(data_charts(w, &out), 200);
    html = text_of(&out);
    assert_non_null(strstr(html, "\"id\":\"osa-VSW1-0603\""));
    assert_non_null(strstr(html, "\"id\":\"nic-LINUX01-0700\""));
    free(html);
    web_free(w);
}

static void test_request_checks(void **state)
{
    (void)state;
    assert_int_equal(request_check("GET", "/FCX240", 300), REFUSED_NREASONS);
    assert_int_equal(request_check("HEAD", "/", 300), REFUSED_NREASONS);
    assert_int_equal(request_check("POST", "/", 300), REFUSED_METHOD);
    assert_int_equal(request_check("PUT", "/FCX240", 300), REFUSED_METHOD);
    assert_int_equal(request_check("GET", "/../etc/passwd", 300), REFUSED_PATH);
    assert_int_equal(request_check("GET", "/FCX240/..", 300), REFUSED_PATH);
    assert_int_equal(request_check("GET", "/a\\b", 300), REFUSED_PATH);
    assert_int_equal(request_check("GET", "/a\x01", 300), REFUSED_PATH);
    assert_int_equal(request_check("GET", "FCX240", 300), REFUSED_PATH);
    assert_int_equal(request_check("GET", "/", WEB_MAX_HEADERS + 1), REFUSED_HEADERS);
    assert_int_equal(request_status(REFUSED_METHOD), 405);
    assert_int_equal(request_status(REFUSED_PATH), 400);
    assert_int_equal(request_status(REFUSED_HEADERS), 431);
    assert_int_equal(request_status(REFUSED_NOT_FOUND), 404);
}

static struct sockaddr_in v4(const char *a)
{
    struct sockaddr_in sa = { .sin_family = AF_INET };
    assert_int_equal(inet_pton(AF_INET, a, &sa.sin_addr), 1);
    return sa;
}

/* One address may hold at most its share; the others still get in up to the total. */
static void test_connections_per_address(void **state)
{
    struct conns *c = conns_new(5, 2);
    struct sockaddr_in a = v4("127.0.0.1"), b = v4("127.0.0.2"), d = v4("192.0.2.7");
    struct sockaddr_in6 a6 = { .sin6_family = AF_INET6 };
    (void)state;
    assert_non_null(c);
    a6.sin6_addr.s6_addr[10] = a6.sin6_addr.s6_addr[11] = 0xFF;   /* ::ffff:127.0.0.1 */
    a6.sin6_addr.s6_addr[12] = 127;
    a6.sin6_addr.s6_addr[15] = 1;
    assert_true(conns_may_open(c, (struct sockaddr *)&a));
    conns_open(c, (struct sockaddr *)&a);
    conns_open(c, (struct sockaddr *)&a6);              /* the same client */
    assert_false(conns_may_open(c, (struct sockaddr *)&a));
    assert_false(conns_may_open(c, (struct sockaddr *)&a6));
    assert_true(conns_may_open(c, (struct sockaddr *)&b));
    conns_open(c, (struct sockaddr *)&b);
    conns_open(c, (struct sockaddr *)&b);
    conns_open(c, (struct sockaddr *)&d);
    assert_int_equal(conns_total(c), 5);
    assert_false(conns_may_open(c, (struct sockaddr *)&d));  /* the total is reached */
    conns_close(c, (struct sockaddr *)&a);
    assert_true(conns_may_open(c, (struct sockaddr *)&a));
    assert_true(conns_may_open(c, (struct sockaddr *)&d));
    conns_close(c, (struct sockaddr *)&a6);
    conns_close(c, (struct sockaddr *)&b);
    conns_close(c, (struct sockaddr *)&b);
    conns_close(c, (struct sockaddr *)&d);
    assert_int_equal(conns_total(c), 0);
    conns_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fcx240_cells_are_the_screens_fields),
        cmocka_unit_test(test_fcx269_cells_are_the_screens_fields),
        cmocka_unit_test(test_metrics_never_go_backwards),
        cmocka_unit_test(test_metrics_discards_by_reason),
        cmocka_unit_test(test_resolver_cells_are_the_screens_fields),
        cmocka_unit_test(test_events_d15r2_cells_are_the_lines_fields),
        cmocka_unit_test(test_navigation_and_unknowns),
        cmocka_unit_test(test_request_checks),
        cmocka_unit_test(test_connections_per_address),
    };
    return cmocka_run_group_tests_name("web", tests, NULL, NULL);
}
