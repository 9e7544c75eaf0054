/* EVENTS, our screen of the monitor's event records: D6R22 (an uplink device failed) and
 * D6R23 (it came up or recovered) with the failure reason, and D8R2/D8R3 (a guest NIC's
 * link went up or down), and our D15R2 (a watched host name's addresses changed, it began
 * failing or it recovered: its own line, name, old and new addresses, state, TTL, last
 * error). The Performance Toolkit has no such list we could find: the
 * layout is ours (monitor/SCREENS.md, "EVENTS").
 *
 * Rules: one line per event record, in the order given (the file's order, which is the
 * order they happened); time from the record's own TOD (MRHDRTOD), UTC, to the
 * millisecond, since a failover and the recovery of its partner are often in the same
 * second. A device without a controller shows "*" under User, as FCX240 does.
 */
#include "monitor/screens.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <sys/socket.h>
#include <time.h>

const char *zvs_mon_fail_reason_text(uint8_t reason)
{
    switch (reason) {
    case ZVS_MON_FAIL_CARRIER:       return "carrier lost";
    case ZVS_MON_FAIL_LACP_EXPIRED:  return "partner's LACPDUs expired";
    case ZVS_MON_FAIL_LACP_DETACHED: return "LACP out of sync or unselected";
    case ZVS_MON_FAIL_LEAVE:         return "SET PORT GROUP LEAVE";
    case ZVS_MON_FAIL_DEVICE_GONE:   return "interface disappeared";
    case ZVS_MON_FAIL_DETACHED:      return "closed by a command";
    default:                         return "";
    }
}

static bool is_event(const struct zvs_mon_record *r)
{
    return (r->domain == ZVS_MON_DOMAIN_ZVS && r->number == ZVS_MON_REC_D15R2) ||
           (r->domain == ZVS_MON_DOMAIN_IO &&
            (r->number == ZVS_MON_REC_D6R22 || r->number == ZVS_MON_REC_D6R23)) ||
           (r->domain == ZVS_MON_DOMAIN_NET &&
            (r->number == ZVS_MON_REC_D8R2 || r->number == ZVS_MON_REC_D8R3));
}

static void when(uint64_t tod, char out[24])
{
    uint64_t us = zvs_mon_tod_to_unix_us(tod);
    time_t t = (time_t)(us / 1000000u);
    struct tm tm;

    if (!gmtime_r(&t, &tm) || strftime(out, 24, "%Y/%m/%d %H:%M:%S", &tm) == 0) {
        snprintf(out, 24, "(time out of range)");
        return;
    }
    snprintf(out + 19, 5, ".%03u", (unsigned)(us / 1000u % 1000u));
}

/* A D15R2's codes as words: QUERY RESOLVER's (names/), which monitor/ may not include. */
const char *zvs_mon_res_event_text(uint8_t ev)
{
    static const char *const text[] = { "changed", "failing", "recovered" };
    return ev < 3 ? text[ev] : "?";
}

const char *zvs_mon_res_state_text(uint8_t state)
{
    static const char *const text[] = { "resolving", "resolved", "retrying", "failed" };
    return state <= ZVS_MON_RES_STATE_MAX ? text[state] : "?";
}

const char *zvs_mon_res_error_text(uint8_t err)
{
    static const char *const text[] = {
        "none", "NXDOMAIN", "no address", "timeout", "SERVFAIL", "no server", "bad answer",
        "oversized answer", "no memory", "cancelled",
    };
    return err <= ZVS_MON_RES_ERROR_MAX ? text[err] : "?";
}

void zvs_mon_res_addrs_text(const struct zvs_mon_res_addr *a, unsigned n, char *out,
                            size_t cap)
{
    struct zvs_scr_buf b;
    zvs_scr_buf_init(&b, out, cap);
    if (!n)
        zvs_scr_printf(&b, "-");
    for (unsigned i = 0; i < n && i < ZVS_MON_RES_ADDRS; i++) {
        char s[INET6_ADDRSTRLEN];
        if (!inet_ntop(a[i].family == 6 ? AF_INET6 : AF_INET, a[i].addr, s, sizeof(s)))
            snprintf(s, sizeof(s), "?");
        zvs_scr_printf(&b, "%s%s", i ? " " : "", s);
    }
}

/* "name old -> new; state, TTL n, last error e": the name's own line, not the device
 * columns (a DNS name is no CP name and has no switch). */
static void res_event_line(struct zvs_scr_buf *b, const char *t, const struct zvs_mon_record *r)
{
    const struct zvs_mon_resolver_event *e = &r->u.resev;
    char old[ZVS_MON_RES_ADDRS_TEXT], now[ZVS_MON_RES_ADDRS_TEXT];

    zvs_mon_res_addrs_text(e->old, e->nold, old, sizeof(old));
    zvs_mon_res_addrs_text(e->now, e->nnew, now, sizeof(now));
    zvs_scr_printf(b, "%s %-6s %-9s %s %s -> %s; %s, TTL %u, last error %s\n", t,
                   zvs_mon_record_name(r->domain, r->number), zvs_mon_res_event_text(e->event),
                   e->name, old, now, zvs_mon_res_state_text(e->state), e->ttl_s,
                   zvs_mon_res_error_text(e->last_error));
}

int zvs_events_render(const struct zvs_mon_record *ev, unsigned n, char *out, size_t cap)
{
    struct zvs_scr_buf b;
    unsigned shown = 0;

    zvs_scr_buf_init(&b, out, cap);
    for (unsigned i = 0; i < n; i++)
        shown += is_event(&ev[i]);
    zvs_scr_printf(&b, "EVENTS      %u monitor event%s (zvswitch's list, not a Performance "
                   "Toolkit screen)\n", shown, shown == 1 ? "" : "s");
    zvs_scr_printf(&b, "Date       Time         Record Event     Vswitch  Addr User     "
                   "Group    Reason\n");
    for (unsigned i = 0; i < n; i++) {
        const struct zvs_mon_record *r = &ev[i];
        char t[24];

        if (!is_event(r))
            continue;
        when(r->tod, t);
        if (r->domain == ZVS_MON_DOMAIN_ZVS) {
            res_event_line(&b, t, r);
        } else if (r->domain == ZVS_MON_DOMAIN_IO) {
            const struct zvs_mon_vswitch_event *e = &r->u.vswev;
            bool fail = r->number == ZVS_MON_REC_D6R22;
            char line[128];
            int len;

            /* A switch without a port group shows a blank group, not an unset name. */
            len = snprintf(line, sizeof(line), "%s %-6s %-9s %-8.8s %04X %-8.8s %-8.8s %s", t,
                           zvs_mon_record_name(r->domain, r->number),
                           fail ? "failure" : "recovery", e->lan_name, e->rdev,
                           e->controller[0] ? e->controller : "*", e->group,
                           fail ? zvs_mon_fail_reason_text(e->reason) : "");
            if (len < 0)
                len = 0;
            else if ((size_t)len >= sizeof(line))
                len = (int)sizeof(line) - 1;
            while (len > 0 && line[len - 1] == ' ')   /* no trailing blanks */
                len--;
            zvs_scr_printf(&b, "%.*s\n", len, line);
        } else {
            const struct zvs_mon_vnic_link *l = &r->u.link;
            zvs_scr_printf(&b, "%s %-6s %-9s %-8.8s %04X %.8s\n", t,
                           zvs_mon_record_name(r->domain, r->number),
                           r->number == ZVS_MON_REC_D8R2 ? "link up" : "link down",
                           l->lan_name, l->vdev, l->nic_owner);
        }
    }
    if (shown == 0)
        zvs_scr_printf(&b, "No events.\n");
    return zvs_scr_buf_result(&b);
}
