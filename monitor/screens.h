/* Performance Toolkit style screens over monitor samples: FCX240 (VSWITCH, from D6R21),
 * FCX269 (VNIC, from D8R1), our port-group screen (PGROUP, from D6R21), their CSV/JSON
 * export, an SVG chart and an HTML report. monitor/SCREENS.md says what every column
 * means and how it is computed.
 *
 * Every function here is pure: inputs are two consecutive sample groups (records and
 * their group TODs), output is text written into out (cap bytes, always NUL terminated
 * when cap > 0). Returns the text length, -ENOSPC when cap is too small (call again with
 * a bigger buffer: the return value does not tell the size), -EINVAL when the interval is
 * not positive (cur_tod <= prev_tod), -ENOMEM when a row index could not be allocated.
 *
 * Rates are (counter_now - counter_before) / seconds between the two groups' TODs. A
 * device or NIC absent from the previous group, or whose counter went backwards (reset),
 * is taken to have counted from zero since the previous sample.
 */
#ifndef ZVS_SCREENS_H
#define ZVS_SCREENS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "monitor/monrec.h"

/* One sample group as the screens see it (struct zvs_mon_group minus the reader). */
struct zvs_scr_sample {
    uint64_t tod;                       /* the group's TOD: the interval end */
    const struct zvs_mon_record *rec;
    unsigned nrec;
};

/* ---- screens ------------------------------------------------------------------------ */

/* Columns of a row, in screen order. */
enum zvs_scr_col {
    ZVS_SCR_T_BYTE, ZVS_SCR_T_PACK, ZVS_SCR_T_DISC,
    ZVS_SCR_R_BYTE, ZVS_SCR_R_PACK, ZVS_SCR_R_DISC,
    ZVS_SCR_T_ERR, ZVS_SCR_R_ERR,
    ZVS_SCR_NCOL
};

/* One row of FCX240 (a D6R21) or FCX269 (a D8R1). */
struct zvs_scr_row {
    const struct zvs_mon_record *rec;   /* in cur */
    const struct zvs_mon_record *prev;  /* its previous sample, NULL: counted from zero */
    uint64_t delta[ZVS_SCR_NCOL];       /* counts in the interval */
    double   rate[ZVS_SCR_NCOL];        /* per second, not rounded */
};

/* The rows of a screen in screen order (FCX240: by RDEV; FCX269: by Addr; both stable)
 * and the System row's rates (not rounded; zeros without rows). *rows is malloc'ed (free
 * it, also when 0 rows). Returns the row count, -EINVAL (interval not positive), -ENOMEM. */
int zvs_fcx240_rows(const struct zvs_scr_sample *prev, const struct zvs_scr_sample *cur,
                    struct zvs_scr_row **rows, double system[ZVS_SCR_NCOL]);
int zvs_fcx269_rows(const struct zvs_scr_sample *prev, const struct zvs_scr_sample *cur,
                    struct zvs_scr_row **rows, double system[ZVS_SCR_NCOL]);

/* FCX240's "Time Out Sec" of a row: IODVSW_LANIPTO's 30-second ticks x 30, the default 300
 * for a record that left it 0. */
unsigned zvs_fcx240_timeout_s(const struct zvs_mon_vswitch_activity *v);
/* The System row's QS and Time Out: the rows' means, rounded half up (n > 0). */
void zvs_fcx240_system_qs_timeout(const struct zvs_scr_row *rows, int n, unsigned *qs,
                                  unsigned *timeout_s);

int zvs_fcx240_render(const struct zvs_scr_sample *prev, const struct zvs_scr_sample *cur,
                      char *out, size_t cap);
int zvs_fcx269_render(const struct zvs_scr_sample *prev, const struct zvs_scr_sample *cur,
                      char *out, size_t cap);
int zvs_pgroup_render(const struct zvs_scr_sample *prev, const struct zvs_scr_sample *cur,
                      char *out, size_t cap);

/* ---- events (events.c) ------------------------------------------------------------- */

/* EVENTS (ours): one line per D6R22/D6R23/D8R2/D8R3/D15R2 of ev[0..n) in that order
 * (other records are skipped): date and time (UTC, ms) of the record, record, event,
 * VSWITCH, RDEV or NIC address, controller or NIC owner, port group, failure reason; a
 * D15R2: the host name, old -> new addresses, state, TTL and last error. */
int zvs_events_render(const struct zvs_mon_record *ev, unsigned n, char *out, size_t cap);
/* The D6R22 reason as words ("carrier lost", ...); "" for none or an unknown code. */
const char *zvs_mon_fail_reason_text(uint8_t reason);
/* A D15R2's state ("resolved", ...) and last error ("none", "timeout", ...) as QUERY
 * RESOLVER words them; "?" for a code the record does not define. */
const char *zvs_mon_res_state_text(uint8_t state);
const char *zvs_mon_res_error_text(uint8_t err);
/* A D15R2's event ("changed", "failing", "recovered"; "?" beyond them). */
const char *zvs_mon_res_event_text(uint8_t ev);
/* A D15R2's addresses as EVENTS prints them: blank-separated, "-" for none. */
#define ZVS_MON_RES_ADDRS_TEXT (ZVS_MON_RES_ADDRS * 46)    /* INET6_ADDRSTRLEN + a blank */
void zvs_mon_res_addrs_text(const struct zvs_mon_res_addr *a, unsigned n, char *out,
                            size_t cap);

/* ---- RESOLVER (resscreen.c) ---------------------------------------------------------- */

/* RESOLVER (ours): the D15R1 of the interval's end, names watched and lookups in flight
 * as they were then, and the rates of its counters over the interval (from the D15R1 of
 * its start, or from zero without one); "No resolver record" when the system watched no
 * name. -EINVAL for an empty interval. */
int zvs_resolver_render(const struct zvs_scr_sample *prev, const struct zvs_scr_sample *cur,
                        char *out, size_t cap);

/* RESOLVER's numbers, for a page that shows them otherwise (perfkit serve): the D15R1 at
 * the interval's end (end, NULL without one) and the interval's counts of lookups,
 * failures, bad answers, changes and deferred lookups with their rates. Returns 1, 0 (no
 * D15R1: the system watched no name) or -EINVAL (an empty interval). */
#define ZVS_RES_NCNT  5                 /* counters with a count and a rate */
#define ZVS_RES_NCOLS 7                 /* Names, InFlt, then the five counters */
struct zvs_res_rows {
    const struct zvs_mon_resolver_activity *end;
    uint64_t delta[ZVS_RES_NCNT];
    double   rate[ZVS_RES_NCNT];
};
int zvs_resolver_rows(const struct zvs_scr_sample *prev, const struct zvs_scr_sample *cur,
                      struct zvs_res_rows *out);
/* The screen's column heads ("Names", ... "Deferd"). */
extern const char *const zvs_resolver_cols[ZVS_RES_NCOLS];
/* A rate as the screen prints it: three decimals below 100 ("%6.3f"), else FCX269's rule. */
void zvs_resolver_fmt_rate(double v, char *buf, size_t cap);

/* ---- export (export.c) -------------------------------------------------------------- */

enum zvs_scr_screen {
    ZVS_SCR_FCX240 = 0,
    ZVS_SCR_FCX269 = 1,
    ZVS_SCR_PGROUP = 2,
};

/* CSV: with_header adds the header row; one row per device / NIC / member, rates with
 * three decimals, interval start/end as ISO 8601 UTC in the first two columns. */
int zvs_export_csv(enum zvs_scr_screen s, const struct zvs_scr_sample *prev,
                   const struct zvs_scr_sample *cur, bool with_header, char *out, size_t cap);
/* JSON: one object {"screen","start","end","seconds","system"?,"rows":[...]}\n. */
int zvs_export_json(enum zvs_scr_screen s, const struct zvs_scr_sample *prev,
                    const struct zvs_scr_sample *cur, char *out, size_t cap);

/* ---- chart and report (chart.c) ----------------------------------------------------- */

/* One point of the chart: one uplink device over one interval. */
struct zvs_chart_point {
    uint64_t end_unix_s;                /* interval end, Unix seconds */
    uint16_t rdev;
    double   out_bps;                   /* T_Byte/s */
    double   in_bps;                    /* R_Byte/s */
};

/* Appends the D6R21 rates of the interval prev..cur to pts (at most max points in all;
 * *n is updated). Returns the number appended or -ENOSPC / -EINVAL. */
int zvs_chart_collect(const struct zvs_scr_sample *prev, const struct zvs_scr_sample *cur,
                      struct zvs_chart_point *pts, unsigned max, unsigned *n);
/* SVG line chart: one polyline per RDEV and direction (outbound solid, inbound dashed),
 * axes with time and bytes/s labels, a legend. */
int zvs_chart_svg(const struct zvs_chart_point *pts, unsigned n, char *out, size_t cap);
/* HTML page: title, each screen in a <pre> (HTML escaped), then the SVG inline. generator
 * (the program and its version, "perfkit (zvswitch) 0.3.0+git12.g1a2b3c4"), when not NULL,
 * goes in a <meta name="generator"> and a closing "Written by" line. */
int zvs_report_html(const char *title, const char *generator, const char *const *screens,
                    unsigned nscreens, const char *svg, char *out, size_t cap);

/* ---- shared helpers (fcx240.c) ------------------------------------------------------ */

/* Bounded text appender: on overflow it keeps the NUL and remembers -ENOSPC. */
struct zvs_scr_buf {
    char  *p;
    size_t cap;
    size_t len;
    bool   overflow;
};

void zvs_scr_buf_init(struct zvs_scr_buf *b, char *out, size_t cap);
void zvs_scr_printf(struct zvs_scr_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Length written, or -ENOSPC. */
int zvs_scr_buf_result(const struct zvs_scr_buf *b);

/* Seconds between two TODs (bit 51 = 1 us); <= 0 when cur is not after prev. */
double zvs_scr_seconds(uint64_t prev_tod, uint64_t cur_tod);
/* Unix seconds of a TOD (the same arithmetic as zvs_mon_tod_to_unix_us). */
int64_t zvs_scr_tod_unix_s(uint64_t tod);
/* Counter delta: now - before, or now when the counter went backwards (reset). */
uint64_t zvs_scr_delta(uint64_t before, uint64_t now);

/* FCX240 number rule, 6 columns: the value rounded half up; if it does not fit in 6
 * characters it is shown in thousands with 'k', then millions with 'M', then 'G'
 * (each rounded half up). buf: at least 8 bytes. */
void zvs_scr_fmt_int6(double v, char *buf, size_t cap);
/* FCX269 number rule, 6 columns: 0 (after rounding to 0.1) is ".0"; below 1000 one
 * decimal without a leading zero (".4", "12.5"); otherwise the FCX240 rule. */
void zvs_scr_fmt_dec6(double v, char *buf, size_t cap);

/* The LACP actor state octet as letters, bit 0 first: A T G S C D F E, '-' when clear. */
void zvs_scr_lacp_letters(uint8_t state, char out[9]);

/* "FCXnnn      Data for yyyy/mm/dd  Interval hh:mm:ss - hh:mm:ss" (date of the end). */
void zvs_scr_header(struct zvs_scr_buf *b, const char *id, uint64_t prev_tod,
                    uint64_t cur_tod, bool monitor_suffix);

/* What one screen takes from a sample: which records are rows, how a row finds its
 * previous sample, its deltas, and the screen order. */
struct zvs_scr_kind {
    bool (*want)(const struct zvs_mon_record *r);
    const struct zvs_mon_record *(*match)(const struct zvs_scr_sample *prev,
                                          const struct zvs_scr_sample *cur, unsigned idx);
    void (*deltas)(const struct zvs_mon_record *prev, const struct zvs_mon_record *cur,
                   uint64_t *delta);
    int  (*cmp)(const void *a, const void *b);
};
/* The rows of `cur` that `kind` wants, with deltas and rates over the interval, sorted;
 * sum[] gets the summed deltas and *secs the interval. Returns the row count (*rows is
 * malloc'ed) or -EINVAL (an empty interval) / -ENOMEM. */
int zvs_scr_collect(const struct zvs_scr_sample *prev, const struct zvs_scr_sample *cur,
                    const struct zvs_scr_kind *kind, struct zvs_scr_row **rows,
                    uint64_t sum[ZVS_SCR_NCOL], double *secs);

/* The eight device counters of a D6R21 or D8R1 (the same member names in both records) as
 * deltas between two samples, into d[ZVS_SCR_*]. */
#define ZVS_SCR_DEVICE_DELTAS(p, c, d) do {                                          \
        (d)[ZVS_SCR_T_BYTE] = zvs_scr_delta((p)->tx_bytes, (c)->tx_bytes);          \
        (d)[ZVS_SCR_T_PACK] = zvs_scr_delta((p)->tx_packets, (c)->tx_packets);      \
        (d)[ZVS_SCR_T_DISC] = zvs_scr_delta((p)->tx_discards, (c)->tx_discards);    \
        (d)[ZVS_SCR_R_BYTE] = zvs_scr_delta((p)->rx_bytes, (c)->rx_bytes);          \
        (d)[ZVS_SCR_R_PACK] = zvs_scr_delta((p)->rx_packets, (c)->rx_packets);      \
        (d)[ZVS_SCR_R_DISC] = zvs_scr_delta((p)->rx_discards, (c)->rx_discards);    \
        (d)[ZVS_SCR_T_ERR] = zvs_scr_delta((p)->tx_errors, (c)->tx_errors);         \
        (d)[ZVS_SCR_R_ERR] = zvs_scr_delta((p)->rx_errors, (c)->rx_errors);         \
    } while (0)

#endif
