/* RESOLVER: our screen of the name resolver (an extension; z/VM's Performance Toolkit has
 * none), from the D15R1 of two consecutive sample groups: the names watched and the
 * lookups in flight at the interval's end, and for lookups, failures, bad answers,
 * address changes and deferred lookups the count in the interval and its rate per second.
 * A system that watches no name has no D15R1: the screen says so and shows no numbers.
 *
 * Rules: as every screen's (monitor/SCREENS.md): counts are differences of cumulative
 * counters, a counter that went backwards (a restarted vswitchd) counts from zero, and
 * without a D15R1 at the interval's start every counter counts from zero. Rates below 100
 * have three decimals: a resolver asks a few times a minute, FCX269's one decimal would
 * show nothing.
 */
#include "monitor/screens.h"

#include <errno.h>
#include <stdio.h>

static const struct zvs_mon_resolver_activity *find_d15r1(const struct zvs_scr_sample *s)
{
    for (unsigned i = 0; s && i < s->nrec; i++)
        if (s->rec[i].domain == ZVS_MON_DOMAIN_ZVS && s->rec[i].number == ZVS_MON_REC_D15R1)
            return &s->rec[i].u.res;
    return NULL;
}

void zvs_resolver_fmt_rate(double v, char *buf, size_t cap)
{
    if (v < 100.0)
        snprintf(buf, cap, "%6.3f", v);
    else
        zvs_scr_fmt_dec6(v, buf, cap);
}

int zvs_resolver_rows(const struct zvs_scr_sample *prev, const struct zvs_scr_sample *cur,
                      struct zvs_res_rows *out)
{
    double secs = zvs_scr_seconds(prev->tod, cur->tod);
    if (secs <= 0.0)
        return -EINVAL;
    out->end = find_d15r1(cur);
    if (!out->end)
        return 0;
    static const struct zvs_mon_resolver_activity zero;
    const struct zvs_mon_resolver_activity *p = find_d15r1(prev), *v = out->end;
    if (!p)
        p = &zero;
    const uint64_t d[ZVS_RES_NCNT] = {
        zvs_scr_delta(p->lookups, v->lookups), zvs_scr_delta(p->failures, v->failures),
        zvs_scr_delta(p->bad_answers, v->bad_answers), zvs_scr_delta(p->changes, v->changes),
        zvs_scr_delta(p->deferred, v->deferred),
    };
    for (unsigned i = 0; i < ZVS_RES_NCNT; i++) {
        out->delta[i] = d[i];
        out->rate[i] = (double)d[i] / secs;
    }
    return 1;
}

const char *const zvs_resolver_cols[ZVS_RES_NCOLS] = {
    "Names", "InFlt", "Lookup", "Failed", "BadAns", "Change", "Deferd",
};

int zvs_resolver_render(const struct zvs_scr_sample *prev, const struct zvs_scr_sample *cur,
                        char *out, size_t cap)
{
    struct zvs_res_rows rows;
    int rc = zvs_resolver_rows(prev, cur, &rows);
    if (rc < 0)
        return rc;
    struct zvs_scr_buf b;
    zvs_scr_buf_init(&b, out, cap);
    zvs_scr_header(&b, "RESOLVER", prev->tod, cur->tod, true);
    if (rc == 0) {
        zvs_scr_printf(&b, "No resolver record: the system watched no host name.\n");
        return zvs_scr_buf_result(&b);
    }
    zvs_scr_printf(&b, "%-16s", "____");
    for (unsigned i = 0; i < ZVS_RES_NCOLS; i++)
        zvs_scr_printf(&b, " %6s", ".");
    zvs_scr_printf(&b, "\n%-16s", "");
    for (unsigned i = 0; i < ZVS_RES_NCOLS; i++)
        zvs_scr_printf(&b, " %6s", zvs_resolver_cols[i]);
    zvs_scr_printf(&b, "\n");
    zvs_scr_printf(&b, "%-16s %6u %6u\n", "At the end", rows.end->watched, rows.end->in_flight);
    zvs_scr_printf(&b, "%-16s %13s", "In the interval", "");
    for (unsigned i = 0; i < ZVS_RES_NCNT; i++)
        zvs_scr_printf(&b, " %6llu", (unsigned long long)rows.delta[i]);
    zvs_scr_printf(&b, "\n%-16s %13s", "Per second", "");
    for (unsigned i = 0; i < ZVS_RES_NCNT; i++) {
        char r[16];
        zvs_resolver_fmt_rate(rows.rate[i], r, sizeof(r));
        zvs_scr_printf(&b, " %s", r);
    }
    zvs_scr_printf(&b, "\n");
    return zvs_scr_buf_result(&b);
}
