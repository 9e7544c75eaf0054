/* perfkit serve: the Performance Toolkit's screens in a browser and the monitor's counters
 * for Prometheus, from a growing monitor file or vswitchd's live stream. A separate
 * process: it only reads monitor data and never sends vswitchd a command.
 *
 * Files, one job each: server.c (the HTTP server and the routes), request.c (what a
 * request must be to get a page), conns.c (connections per client address), pages.c
 * (menu, screens and navigation as HTML), charts.c (per-OSA and per-NIC charts and their
 * data endpoint), metrics.c (/metrics), store.c (the records read so far and the thread
 * that reads them), wbuf.c (the pages' text buffer).
 */
#ifndef ZVS_WEB_WEB_H
#define ZVS_WEB_WEB_H

#include <stdint.h>

#include "tools/web/conns.h"
#include "tools/web/metrics.h"
#include "tools/web/store.h"
#include "tools/web/wbuf.h"

struct web_opts {
    const char *file;                   /* a monitor file (followed as it grows), or */
    const char *live;                   /* vswitchd's --monitor-live socket */
    const char *listen;                 /* "addr:port" or "[v6]:port"; default 127.0.0.1:8240 */
    const char *generator;              /* "perfkit (zvswitch) VERSION" for the pages */
    unsigned    max_conns;              /* connections at once (0: WEB_MAX_CONNS) */
};

#define WEB_DEFAULT_LISTEN "127.0.0.1:8240"
#define WEB_MAX_CONNS      64u          /* in all */
#define WEB_MAX_CONNS_IP   16u          /* from one address */
#define WEB_MAX_HEADERS    4096u        /* bytes of request line and headers we read */
#define WEB_CONN_TIMEOUT_S 10u          /* a connection that says nothing is closed */
#define WEB_CHART_POINTS   120u         /* intervals a chart shows */
#define WEB_NICE           19           /* perfkit serve's scheduling priority (nice): the
                                           lowest, so that under contention it yields the
                                           cores to vswitchd and the guests */
#define WEB_LISTEN_BACKLOG 64u          /* handshakes the kernel queues for the server: past
                                           it a flood's SYNs are dropped and its clients wait
                                           for their retransmission, at no cost to us */

struct web {
    struct store     st;
    struct metrics  *m;
    struct conns    *conns;             /* connections open, per client address */
    const struct web_opts *o;
    uint64_t refused[REFUSED_NREASONS]; /* under st.lock */
};

/* Runs the server until SIGINT or SIGTERM; 0, or -errno (could not listen or read). */
int web_serve(const struct web_opts *o);

/* A page: the HTTP status, its text in out, its content type in *ctype. The store's lock
 * is held by the caller. query_i / query_t: the ?i= and ?t= arguments or NULL. */
int page_menu(struct web *w, struct wbuf *out);
int page_screen(struct web *w, const char *screen, const char *query_i, const char *query_t,
                struct wbuf *out);
int page_errors(struct web *w, struct wbuf *out);
int page_charts(struct web *w, struct wbuf *out);
int page_charts_part(struct web *w, struct wbuf *out);     /* the charts alone (HTML) */
int data_charts(struct web *w, struct wbuf *out);          /* their data, JSON */
/* The head every page shares, and its end. refresh_s > 0: reload every refresh_s. */
void page_head(struct wbuf *out, const char *title, unsigned refresh_s);
void page_tail(struct web *w, struct wbuf *out);
/* The refresh period of a live page: the monitor interval, at least 1 s (5 s unknown). */
unsigned page_refresh_s(const struct web *w);
/* One table cell of class cls holding text (HTML escaped). */
void page_cell(struct wbuf *out, const char *cls, const char *text);

/* The resolver's screen and events (respages.c). The RESOLVER table of the interval a..b,
 * one cell per field perfkit RESOLVER prints, or the terminal's sentence when the system
 * watched no name: 0, or -EINVAL (an empty interval). */
int page_resolver(const struct zvs_scr_sample *a, const struct zvs_scr_sample *b,
                  struct wbuf *out);
/* EVENTS' columns for a D15R2 (host name, old and new addresses, state, TTL, last error),
 * after the device columns, which a D15R2 leaves empty; for the other events, these
 * columns empty. */
#define PAGE_RES_EVENT_COLS 6
extern const char *const page_res_event_cols[PAGE_RES_EVENT_COLS];
void page_res_event_cells(struct wbuf *out, const struct zvs_mon_record *r);

#endif
