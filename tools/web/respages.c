/* The name resolver in perfkit serve (web.h): the RESOLVER screen as an HTML table and the
 * D15R2 columns of EVENTS. The numbers and words are the terminal's: the same interval
 * arithmetic (zvs_resolver_rows), the same rate rule (zvs_resolver_fmt_rate), the same
 * words for a D15R2's event, state and last error and the same address lists
 * (monitor/screens.h), so every cell is a field perfkit RESOLVER or EVENTS prints. */
#include "tools/web/web.h"

#include <stdio.h>
#include <string.h>

/* RESOLVER's rows as perfkit prints them: a label, then Names and InFlt at the interval's
 * end, or the five counters' counts or rates (the cells a row does not fill are empty). */
int page_resolver(const struct zvs_scr_sample *a, const struct zvs_scr_sample *b,
                  struct wbuf *out)
{
    struct zvs_res_rows rows;
    int rc = zvs_resolver_rows(a, b, &rows);
    if (rc < 0)
        return rc;
    if (rc == 0) {
        wbuf_puts(out, "<p id=\"none\">No resolver record: the system watched no host "
                  "name.</p>\n");
        return 0;
    }
    char s[32];
    wbuf_puts(out, "<table id=\"screen\">\n<tr><th class=\"t\"></th>");
    for (unsigned k = 0; k < ZVS_RES_NCOLS; k++)
        wbuf_printf(out, "<th>%s</th>", zvs_resolver_cols[k]);
    wbuf_puts(out, "</tr>\n<tr id=\"end\">");
    page_cell(out, "t", "At the end");
    wbuf_printf(out, "<td>%u</td><td>%u</td>", rows.end->watched, rows.end->in_flight);
    for (unsigned k = 0; k < ZVS_RES_NCNT; k++)
        page_cell(out, zvs_resolver_cols[2 + k], "");
    wbuf_puts(out, "</tr>\n<tr id=\"interval\">");
    page_cell(out, "t", "In the interval");
    wbuf_puts(out, "<td></td><td></td>");
    for (unsigned k = 0; k < ZVS_RES_NCNT; k++) {
        snprintf(s, sizeof(s), "%llu", (unsigned long long)rows.delta[k]);
        page_cell(out, zvs_resolver_cols[2 + k], s);
    }
    wbuf_puts(out, "</tr>\n<tr id=\"rate\">");
    page_cell(out, "t", "Per second");
    wbuf_puts(out, "<td></td><td></td>");
    for (unsigned k = 0; k < ZVS_RES_NCNT; k++) {
        zvs_resolver_fmt_rate(rows.rate[k], s, sizeof(s));
        page_cell(out, zvs_resolver_cols[2 + k], s + strspn(s, " "));  /* not its padding */
    }
    wbuf_puts(out, "</tr>\n</table>\n");
    return 0;
}

const char *const page_res_event_cols[PAGE_RES_EVENT_COLS] = {
    "Host name", "Old addresses", "New addresses", "State", "TTL", "Last error",
};

void page_res_event_cells(struct wbuf *out, const struct zvs_mon_record *r)
{
    if (r->domain != ZVS_MON_DOMAIN_ZVS || r->number != ZVS_MON_REC_D15R2) {
        for (unsigned k = 0; k < PAGE_RES_EVENT_COLS; k++)
            page_cell(out, "t", "");
        return;
    }
    const struct zvs_mon_resolver_event *e = &r->u.resev;
    char addrs[ZVS_MON_RES_ADDRS_TEXT], ttl[16];
    page_cell(out, "t name", e->name);
    zvs_mon_res_addrs_text(e->old, e->nold, addrs, sizeof(addrs));
    page_cell(out, "t old", addrs);
    zvs_mon_res_addrs_text(e->now, e->nnew, addrs, sizeof(addrs));
    page_cell(out, "t new", addrs);
    page_cell(out, "t", zvs_mon_res_state_text(e->state));
    snprintf(ttl, sizeof(ttl), "%u", e->ttl_s);
    page_cell(out, "ttl", ttl);
    page_cell(out, "t", zvs_mon_res_error_text(e->last_error));
}
