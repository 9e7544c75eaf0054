/* FCX240, the Performance Toolkit VSWITCH screen, from two consecutive D6R21 sample
 * groups; plus the helpers every screen shares (bounded appender, TOD arithmetic,
 * counter deltas, the k/M number rules, the header line).
 *
 * Layout: copied column for column from the screens in the seed report (z/VM 5.3
 * "Virtual Switch Link Aggregation"): header, the "____ ." ruler, three heading lines,
 * the ">>      System       <<" row, one row per uplink device sorted by RDEV. The
 * report truncates the right of the screen; we append T_Err and R_Err (errors/s) there.
 *
 * Rules (monitor/SCREENS.md): rates = delta / seconds between the groups' TODs; the
 * System row is the mean of the rows (sum of deltas / rows / seconds, so 677585 and
 * 677276 give 677430.5 -> 677431), rounded half up once at the end. Time Out Sec is the
 * record's IODVSW_LANIPTO (the switch's IPTIMEOUT in 30-second ticks) times 30; a record
 * that left it 0 (an older zvswitch's) shows z/VM's default, 300; the System row shows
 * the mean of the rows', as for QS. A device
 * without a controller (blank IODVSW_VMDUSER) shows "*" under Controlr: ours, IBM's
 * FCX240 page could not be found.
 *
 * Hazards: an interval of zero or negative length is refused (-EINVAL); rounding happens
 * only when formatting, never on the sums.
 */
#include "monitor/screens.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FCX240_TIMEOUT_S 300u           /* IPTIMEOUT default (DEFINE VSWITCH): 5 minutes */

unsigned zvs_fcx240_timeout_s(const struct zvs_mon_vswitch_activity *v)
{
    return v->iptimeout_ticks ? 30u * v->iptimeout_ticks : FCX240_TIMEOUT_S;
}

void zvs_fcx240_system_qs_timeout(const struct zvs_scr_row *rows, int n, unsigned *qs,
                                  unsigned *timeout_s)
{
    unsigned qsv = 0, tos = 0;
    for (int i = 0; i < n; i++) {
        qsv += rows[i].rec->u.vsw.queuestorage_mb;
        tos += zvs_fcx240_timeout_s(&rows[i].rec->u.vsw);
    }
    *qs = (qsv + (unsigned)n / 2) / (unsigned)n;
    *timeout_s = (tos + (unsigned)n / 2) / (unsigned)n;
}

/* ---- shared helpers ----------------------------------------------------------------- */

void zvs_scr_buf_init(struct zvs_scr_buf *b, char *out, size_t cap)
{
    b->p = out;
    b->cap = cap;
    b->len = 0;
    b->overflow = false;
    if (cap > 0)
        out[0] = '\0';
}

void zvs_scr_printf(struct zvs_scr_buf *b, const char *fmt, ...)
{
    if (b->overflow)
        return;
    size_t room = b->cap > b->len ? b->cap - b->len : 0;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(room ? b->p + b->len : NULL, room, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= room) {
        b->overflow = true;
        if (b->cap > 0)
            b->p[b->len < b->cap ? b->len : b->cap - 1] = '\0';
        return;
    }
    b->len += (size_t)n;
}

int zvs_scr_buf_result(const struct zvs_scr_buf *b)
{
    if (b->overflow || b->len > (size_t)INT32_MAX)
        return -ENOSPC;
    return (int)b->len;
}

double zvs_scr_seconds(uint64_t prev_tod, uint64_t cur_tod)
{
    if (cur_tod <= prev_tod)
        return 0.0;
    /* bit 51 is one microsecond: 4096 units per us */
    return (double)(cur_tod - prev_tod) / 4096.0 / 1e6;
}

int64_t zvs_scr_tod_unix_s(uint64_t tod)
{
    if (tod < ZVS_MON_TOD_UNIX_EPOCH)
        return 0;
    return (int64_t)(((tod - ZVS_MON_TOD_UNIX_EPOCH) >> 12) / 1000000u);
}

uint64_t zvs_scr_delta(uint64_t before, uint64_t now)
{
    return now >= before ? now - before : now;
}

/* floor(v + 0.5) for 0 <= v, saturating; no libm needed. */
static double round_half_up(double v)
{
    if (v >= 9.0e18)
        return v;
    return (double)(uint64_t)(v + 0.5);
}

void zvs_scr_fmt_int6(double v, char *buf, size_t cap)
{
    static const char suffix[] = "kMG";
    if (!(v >= 0.0))                    /* also NaN */
        v = 0.0;
    double n = round_half_up(v);
    if (n <= 999999.0) {
        snprintf(buf, cap, "%.0f", n);
        return;
    }
    double scale = 1.0;
    for (unsigned i = 0; i < 3; i++) {
        scale *= 1000.0;
        n = round_half_up(v / scale);
        if (n <= 99999.0 || i == 2) {
            snprintf(buf, cap, "%.0f%c", n, suffix[i]);
            return;
        }
    }
}

void zvs_scr_fmt_dec6(double v, char *buf, size_t cap)
{
    if (!(v >= 0.0))
        v = 0.0;
    double tenths = round_half_up(v * 10.0);
    if (tenths < 10000.0) {
        unsigned t = (unsigned)tenths;
        if (t < 10)
            snprintf(buf, cap, ".%u", t);
        else
            snprintf(buf, cap, "%u.%u", t / 10, t % 10);
        return;
    }
    zvs_scr_fmt_int6(v, buf, cap);
}

static void hms(int64_t s, struct tm *tm)
{
    time_t t = (time_t)s;
    if (!gmtime_r(&t, tm))
        memset(tm, 0, sizeof(*tm));
}

void zvs_scr_header(struct zvs_scr_buf *b, const char *id, uint64_t prev_tod,
                    uint64_t cur_tod, bool monitor_suffix)
{
    struct tm a, z;
    hms(zvs_scr_tod_unix_s(prev_tod), &a);
    hms(zvs_scr_tod_unix_s(cur_tod), &z);
    zvs_scr_printf(b, "%-6s      Data for %04d/%02d/%02d  Interval %02d:%02d:%02d - "
                   "%02d:%02d:%02d%s\n", id, z.tm_year + 1900, z.tm_mon + 1, z.tm_mday,
                   a.tm_hour, a.tm_min, a.tm_sec, z.tm_hour, z.tm_min, z.tm_sec,
                   monitor_suffix ? "    Monitor" : "");
}

/* ---- FCX240 ------------------------------------------------------------------------- */

static bool is_d6r21(const struct zvs_mon_record *r)
{
    return r->domain == ZVS_MON_DOMAIN_IO && r->number == ZVS_MON_REC_D6R21;
}

/* The previous sample of the same uplink device (RDEV on the same VSWITCH), or NULL. */
static const struct zvs_mon_record *prev_vsw(const struct zvs_scr_sample *prev,
                                             const struct zvs_mon_vswitch_activity *v)
{
    for (unsigned i = 0; prev && i < prev->nrec; i++) {
        const struct zvs_mon_record *r = &prev->rec[i];
        if (is_d6r21(r) && r->u.vsw.rdev == v->rdev &&
            strcmp(r->u.vsw.lan_name, v->lan_name) == 0)
            return r;
    }
    return NULL;
}

static int cmp_rdev(const void *a, const void *b)
{
    const struct zvs_scr_row *x = a, *y = b;
    if (x->rec->u.vsw.rdev != y->rec->u.vsw.rdev)
        return x->rec->u.vsw.rdev < y->rec->u.vsw.rdev ? -1 : 1;
    return x->rec < y->rec ? -1 : (x->rec > y->rec);    /* stable: record order */
}

int zvs_scr_collect(const struct zvs_scr_sample *prev, const struct zvs_scr_sample *cur,
                    const struct zvs_scr_kind *kind, struct zvs_scr_row **rows,
                    uint64_t sum[ZVS_SCR_NCOL], double *secs)
{
    *rows = NULL;
    *secs = zvs_scr_seconds(prev->tod, cur->tod);
    if (*secs <= 0.0)
        return -EINVAL;
    unsigned n = 0;
    for (unsigned i = 0; i < cur->nrec; i++)
        n += kind->want(&cur->rec[i]);
    struct zvs_scr_row *row = calloc(n ? n : 1, sizeof(*row));
    if (!row)
        return -ENOMEM;
    memset(sum, 0, ZVS_SCR_NCOL * sizeof(sum[0]));
    n = 0;
    for (unsigned i = 0; i < cur->nrec; i++) {
        if (!kind->want(&cur->rec[i]))
            continue;
        struct zvs_scr_row *r = &row[n++];
        r->rec = &cur->rec[i];
        r->prev = kind->match(prev, cur, i);
        kind->deltas(r->prev, r->rec, r->delta);
        for (unsigned k = 0; k < ZVS_SCR_NCOL; k++) {
            r->rate[k] = (double)r->delta[k] / *secs;
            sum[k] += r->delta[k];
        }
    }
    qsort(row, n, sizeof(*row), kind->cmp);
    *rows = row;
    return (int)n;
}

static const struct zvs_mon_record *match_vsw(const struct zvs_scr_sample *prev,
                                              const struct zvs_scr_sample *cur, unsigned idx)
{
    return prev_vsw(prev, &cur->rec[idx].u.vsw);
}

static void deltas_vsw(const struct zvs_mon_record *p, const struct zvs_mon_record *c,
                       uint64_t *d)
{
    static const struct zvs_mon_vswitch_activity zero;
    ZVS_SCR_DEVICE_DELTAS(p ? &p->u.vsw : &zero, &c->u.vsw, d);
}

int zvs_fcx240_rows(const struct zvs_scr_sample *prev, const struct zvs_scr_sample *cur,
                    struct zvs_scr_row **rows, double system[ZVS_SCR_NCOL])
{
    static const struct zvs_scr_kind kind = { is_d6r21, match_vsw, deltas_vsw, cmp_rdev };
    uint64_t sum[ZVS_SCR_NCOL];
    double secs;
    int n = zvs_scr_collect(prev, cur, &kind, rows, sum, &secs);
    if (n < 0)
        return n;
    /* the mean of the rows: one division of the summed deltas, rounded only on output */
    for (unsigned k = 0; k < ZVS_SCR_NCOL; k++)
        system[k] = n ? (double)sum[k] / n / secs : 0.0;
    return n;
}

static void rates6(struct zvs_scr_buf *b, const double *rate)
{
    char s[16];
    for (unsigned i = 0; i < ZVS_SCR_NCOL; i++) {
        zvs_scr_fmt_int6(rate[i], s, sizeof(s));
        zvs_scr_printf(b, " %6s", s);
    }
    zvs_scr_printf(b, "\n");
}

int zvs_fcx240_render(const struct zvs_scr_sample *prev, const struct zvs_scr_sample *cur,
                      char *out, size_t cap)
{
    struct zvs_scr_row *row;
    double sys[ZVS_SCR_NCOL];
    int n = zvs_fcx240_rows(prev, cur, &row, sys);
    if (n < 0)
        return n;

    struct zvs_scr_buf b;
    zvs_scr_buf_init(&b, out, cap);
    zvs_scr_header(&b, "FCX240", prev->tod, cur->tod, true);
    zvs_scr_printf(&b, "____ .         .              .       .      .      .      .      "
                   ".      .      .      .\n");
    zvs_scr_printf(&b, "                         Q Time  <--- Outbound/s ---> "
                   "<--- Inbound/s ----> <--Errors/s->\n");
    zvs_scr_printf(&b, "                         S  Out   Bytes <--Packets-->  "
                   "Bytes <--Packets-->\n");
    zvs_scr_printf(&b, "Addr     Name  Controlr  V  Sec  T_Byte T_Pack T_Disc R_Byte "
                   "R_Pack R_Disc  T_Err  R_Err\n");
    if (n > 0) {
        unsigned qs, to;
        zvs_fcx240_system_qs_timeout(row, n, &qs, &to);
        zvs_scr_printf(&b, ">>      System       <<  %1u  %3u ", qs, to);
        rates6(&b, sys);
        for (int i = 0; i < n; i++) {
            const struct zvs_mon_vswitch_activity *v = &row[i].rec->u.vsw;
            /* No controller (blanks in IODVSW_VMDUSER): "*", ours (SCREENS.md). */
            zvs_scr_printf(&b, "%04X %-8.8s  %-8.8s  %1u  %3u ", v->rdev, v->lan_name,
                           v->controller[0] ? v->controller : "*", v->queuestorage_mb,
                           zvs_fcx240_timeout_s(v));
            rates6(&b, row[i].rate);
        }
    }
    free(row);
    return zvs_scr_buf_result(&b);
}
