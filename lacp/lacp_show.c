/* Text renderers for one LACP port (QUERY LACP, the daemon's stats report).
 *
 * Owns: the report's exact text. Reads the engine only through its public getters, so it
 * can never disturb a machine.
 *
 * Rules:
 *  - Layout is fixed (README "Port report"): labels in the same order on every port, so a
 *    golden file or a script can compare or cut columns. Numbers are decimal; MACs are
 *    upper-case hex joined by '-' (z/VM style); durations are seconds with one decimal,
 *    truncated (2.68 s -> "2.6s"), "-" for a timer that is not running.
 *  - Ages ("Last rx 0.4s ago") are now - time; "never" for time 0 (the stats use 0 for
 *    never, so an event at exactly t=0 also reads "never"); a time after `now` reads 0.0s.
 *  - Output goes through one appender with snprintf semantics: it never writes past len,
 *    always NUL-terminates (len > 0), and keeps counting so the return value is the length
 *    of the whole report.
 */
#include "lacp/lacp_show.h"

#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

struct out {
    char  *buf;                         /* destination, may be NULL when len is 0 */
    size_t len;                         /* its size, NUL included */
    size_t pos;                         /* bytes the whole report needs so far */
};

__attribute__((format(printf, 2, 3)))
static void put(struct out *o, const char *fmt, ...)
{
    size_t room = o->pos < o->len ? o->len - o->pos : 0;
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(room ? o->buf + o->pos : NULL, room, fmt, ap);
    va_end(ap);
    if (n > 0)
        o->pos += (size_t)n;
}

const char *zvs_lacp_state_flags(uint8_t state, char buf[ZVS_LACP_STATE_FLAGS_LEN])
{
    static const char names[8][4] = { "ACT", "STO", "AGG", "SYN", "COL", "DIS", "DEF", "EXP" };
    size_t pos = 0;
    unsigned bit;

    if (state == 0) {
        memcpy(buf, "-", 2);
        return buf;
    }
    for (bit = 0; bit < 8; bit++) {
        if (!(state & (1u << bit)))
            continue;
        if (pos > 0)
            buf[pos++] = ' ';
        memcpy(buf + pos, names[bit], 3);
        pos += 3;
    }
    buf[pos] = '\0';
    return buf;
}

/* Seconds with one decimal, truncated, into b (room for any uint64_t); "-" for NEVER. */
static const char *dur(uint64_t ns, char b[32])
{
    if (ns == ZVS_LACP_NEVER) {
        memcpy(b, "-", 2);
        return b;
    }
    snprintf(b, 32, "%" PRIu64 ".%" PRIu64 "s", (uint64_t)(ns / ZVS_LACP_NS_PER_SEC),
             (uint64_t)(ns % ZVS_LACP_NS_PER_SEC / (ZVS_LACP_NS_PER_SEC / 10)));
    return b;
}

/* "0.4s ago" or "never". */
static const char *age(uint64_t at, uint64_t now, char b[32])
{
    char d[32];

    if (at == 0) {
        memcpy(b, "never", 6);
        return b;
    }
    snprintf(b, 32, "%s ago", dur(now > at ? now - at : 0, d));
    return b;
}

static void put_info(struct out *o, const char *label, const struct zvs_lacp_info *i)
{
    char st[ZVS_LACP_STATE_FLAGS_LEN];

    put(o, "%-9sSys %u,%02X-%02X-%02X-%02X-%02X-%02X  Key %u  Port %u,%u  State %s\n", label,
        i->system_priority, i->system[0], i->system[1], i->system[2], i->system[3],
        i->system[4], i->system[5], i->key, i->port_priority, i->port,
        zvs_lacp_state_flags(i->state, st));
}

int zvs_lacp_port_format(const struct zvs_lacp_port *p, const struct zvs_lacp_marker *m,
                         uint64_t now, char *buf, size_t len)
{
    struct out o = { buf, len, 0 };
    const struct zvs_lacp_port_cfg *cfg = zvs_lacp_port_cfg(p);
    const struct zvs_lacp_port_stats *s = zvs_lacp_port_stats(p);
    const struct zvs_lacp_faults *f = zvs_lacp_port_faults(p);
    struct zvs_lacp_timers_left tl;
    char a[32], b[32], c[32], d[32];

    if (len > 0)
        buf[0] = '\0';
    zvs_lacp_port_timers_left(p, now, &tl);
    put(&o, "Port %u: LACP %s  Timeout %s  Mux %s  Carrier %s  Duplex %s  Speed %" PRIu32 "\n",
        zvs_lacp_port_actor(p)->port, cfg->active ? "ACTIVE" : "PASSIVE",
        cfg->fast ? "SHORT" : "LONG", cfg->coupled_mux ? "COUPLED" : "INDEPENDENT",
        zvs_lacp_port_enabled(p) ? "UP" : "DOWN", cfg->full_duplex ? "FULL" : "HALF",
        cfg->speed_mbps);
    put_info(&o, "Actor:", zvs_lacp_port_actor(p));
    put_info(&o, "Partner:", zvs_lacp_port_partner(p));
    put(&o, "Machines: RX %s  PTX %s  SEL %s  MUX %s  CHURN %s/%s\n",
        zvs_lacp_state_name(ZVS_LACP_MACHINE_RX, (int)zvs_lacp_port_rx_state(p)),
        zvs_lacp_state_name(ZVS_LACP_MACHINE_PTX, (int)zvs_lacp_port_ptx_state(p)),
        zvs_lacp_state_name(ZVS_LACP_MACHINE_SELECTION, (int)zvs_lacp_port_selected(p)),
        zvs_lacp_state_name(ZVS_LACP_MACHINE_MUX, (int)zvs_lacp_port_mux_state(p)),
        zvs_lacp_state_name(ZVS_LACP_MACHINE_ACTOR_CHURN, (int)zvs_lacp_port_actor_churn(p)),
        zvs_lacp_state_name(ZVS_LACP_MACHINE_PARTNER_CHURN,
                            (int)zvs_lacp_port_partner_churn(p)));
    put(&o, "LACPDUs: rx %" PRIu64 "  tx %" PRIu64 "  illegal %" PRIu64 "  unknown %" PRIu64
        "  loopback %" PRIu64 "  Last rx %s  Last tx %s\n", s->lacpdus_rx, s->lacpdus_tx,
        s->illegal_rx, s->unknown_rx, s->loopback_rx, age(s->last_rx_ns, now, a),
        age(s->last_tx_ns, now, b));
    if (m) {
        const struct zvs_lacp_marker_stats *ms = zvs_lacp_marker_stats(m);

        put(&o, "Markers: rx %" PRIu64 "  tx %" PRIu64 "  Responses rx %" PRIu64 "  tx %" PRIu64
            "  Timeouts %" PRIu64 "  Unmatched %" PRIu64 "  Outstanding %u  Suppressed %" PRIu64
            "\n", ms->marker_pdus_rx, ms->marker_pdus_tx, ms->marker_response_pdus_rx,
            ms->marker_response_pdus_tx, ms->marker_timeouts, ms->marker_response_unmatched,
            zvs_lacp_marker_outstanding(m), ms->marker_response_suppressed);
    } else {
        put(&o, "Markers: -\n");
    }
    put(&o, "Timers left: current_while %s  periodic %s  wait_while %s  churn %s/",
        dur(tl.current_while, a), dur(tl.periodic, b), dur(tl.wait_while, c),
        dur(tl.actor_churn, d));
    put(&o, "%s\n", dur(tl.partner_churn, a));
    put(&o, "Flaps %" PRIu64 "  Expired %" PRIu64 "  Defaulted %" PRIu64 "  Actor churn %" PRIu64
        "  Partner churn %" PRIu64 "  Ignored %" PRIu64 "  Rate limited %" PRIu64
        "  Transitions %" PRIu64 "\n", s->mux_flaps, s->expired, s->defaulted,
        s->actor_churn_count, s->partner_churn_count, s->ignored_rx, s->tx_rate_limited,
        s->transitions);
    put(&o, "Faults: drop_rx %s  drop_tx %s  delay_tx %s  Dropped rx %" PRIu64 "  tx %" PRIu64
        "  Delayed %" PRIu64 "  Queued %u  Overflow %" PRIu64 "\n", f->drop_rx ? "ON" : "OFF",
        f->drop_tx ? "ON" : "OFF", f->delay_tx_ns ? dur(f->delay_tx_ns, a) : "OFF", s->rx_dropped_by_knob,
        s->tx_dropped_by_knob, s->tx_delayed, zvs_lacp_port_tx_delayed(p),
        s->tx_delay_overflow);
    return o.pos > INT_MAX ? INT_MAX : (int)o.pos;
}
