/* libFuzzer target for the LACP port engine and the Marker protocol (lacp/lacp_port.c and
 * the machine files, lacp/marker.c, lacp/lacp_show.c), driven as a script of events.
 *
 * World: three port engines on virtual time. Ports 0 (system A) and 1 (system B) are cabled
 * back to back: what one sends (LACPDUs and Marker PDUs, built to 124-byte frames) is queued
 * on the link and reaches the other side only when the script says so (event DELIVER), so
 * the script controls loss (queue overflow, never delivered), delay and bursts. Port 2 is
 * a second port of system A sharing port 0's aggregator; it has no cable and hears only
 * hostile PDUs. Ports 0 and 1 also run a Marker protocol each.
 *
 * Input: 4 config bytes (one per port: active, fast, half duplex, carrier at init, speed,
 * coupled Mux (bit 0x40; so both Mux controls, and mixed pairs, are fuzzed); the 4th:
 * port 2's key), then records of an op byte and its operands; a short read gives
 * zeros. Ops (op % 8): ADVANCE time (up to ~186 s), HOSTILE LACPDU to a port (fields from
 * the input, built by zvs_lacpdu_build and reparsed by zvs_slow_parse, so only parseable
 * PDUs reach the engine; actor/partner may be copied from real ports to forge plausible
 * ones), CARRIER toggle, FAULTS (drop_rx, drop_tx, delay_tx), DELIVER n queued frames,
 * MARKER send (timeout from input) or hostile MARKER rx, and RUN-only. After every event
 * every engine and marker is run at `now`.
 *
 * Invariants (each checked against lacp_port.c / marker.c, not just the standard):
 *   - no sanitizer report, no engine assert (callback re-entry, fixed-point bound);
 *   - after run(now): next_wakeup() is NEVER or > now (run() left no due work);
 *   - coupled mux: only DETACHED/WAITING/ATTACHED/COLLECTING_DISTRIBUTING; actor
 *     COLLECTING == DISTRIBUTING, both set iff COLLECTING_DISTRIBUTING;
 *   - independent mux: never COLLECTING_DISTRIBUTING; actor COLLECTING iff COLLECTING or
 *     DISTRIBUTING, DISTRIBUTING iff DISTRIBUTING; DISTRIBUTING implies partner COLLECTING;
 *   - actor SYNC iff mux ATTACHED or beyond; every state beyond WAITING implies SELECTED;
 *     COLLECTING/DISTRIBUTING/COLLECTING_DISTRIBUTING imply partner SYNC; UNSELECTED
 *     implies DETACHED (run() reaches a fixed point);
 *   - callbacks are edge-triggered and ordered: attach, collecting, distributing each flip
 *     (never repeat a value); collecting only while attached, distributing only while
 *     collecting; after every call they equal is_collecting / is_distributing / "mux at
 *     ATTACHED or beyond";
 *   - timers_left agrees with next_wakeup (every running timer ends at or after it, none is
 *     due after run()); zvs_lacp_port_format returns the length it wrote, and the same
 *     length into a short buffer, NUL-terminated;
 *   - actor EXPIRED set in Receive EXPIRED, else only in PORT_DISABLED (which keeps it,
 *     as 802.1AX does); DEFAULTED bit set in RX DEFAULTED and
 *     clear in CURRENT; a DEFAULTED port has the null partner and is UNSELECTED (EXPIRED and
 *     DEFAULTED together are legal: INITIALIZE sets DEFAULTED, EXPIRED does not clear it);
 *   - each aggregator's selected_ports equals the number of its SELECTED ports;
 *   - the Transmit machine builds at most 3 LACPDUs per Fast_Periodic_Time: any 4
 *     consecutive builds span >= 1 s (builds = lacpdus_tx + delay queue length + drop_tx
 *     drops + delay overflows, so the knobs cannot hide a build); at most one build per call;
 *   - every sent LACPDU is version 1, carries the port's own actor IDs, and round-trips;
 *   - a port that is disabled (no carrier) or has drop_tx never calls send directly
 *     (delay-queue releases aside) -- checked as: no build while carrier is off;
 *   - markers: done() only for an xid the harness saw sent and still outstanding, TIMED_OUT
 *     only at/after its deadline, ANSWERED only from rx; outstanding() equals the harness
 *     count; every received Marker Information is answered or, past the port's Marker
 *     budget, counted as suppressed (rx == response tx + suppressed).
 *
 *   clang -std=c11 -D_GNU_SOURCE -g -O1 -I. -fsanitize=fuzzer,address,undefined \
 *         tests/fuzz/fuzz_lacp_engine.c <every library source> -lpcap -o build/fuzz/fuzz_lacp_engine
 *   build/fuzz/fuzz_lacp_engine -max_total_time=60 work/ tests/fuzz/corpus/lacp_engine
 * Without libFuzzer: add -DZVS_FUZZ_MAIN and pass files or directories.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lacp/lacp_port.h"
#include "lacp/lacp_show.h"
#include "lacp/marker.h"
#include "lacp/pdu.h"
#include "fuzz_common.h"

#define NPORTS      3
#define NLINKED     2                   /* ports 0 and 1 are cabled to each other */
#define LINK_CAP    16                  /* frames in flight per direction */
#define MAX_EVENTS  1024
#define MS          1000000ull
#define BUILD_RING  4

struct link {
    uint8_t  frames[LINK_CAP][ZVS_SLOW_FRAME_LEN];
    unsigned head;
    unsigned len;
};

struct marker_track {
    bool     used;
    uint32_t xid;
    uint64_t deadline;
};

struct side {
    unsigned idx;
    struct zvs_lacp_port port;
    struct zvs_lacp_marker marker;
    uint8_t  mac[6];                    /* port MAC (frame SA) */
    bool     carrier;
    uint64_t builds;                    /* Transmit builds seen so far */
    uint64_t build_times[BUILD_RING];   /* ring of the last 4 build times */
    unsigned build_n;
    struct marker_track mt[ZVS_LACP_MARKER_MAX_OUTSTANDING];
    unsigned mt_count;
    bool     in_marker_rx;              /* ANSWERED allowed only here */
    bool     coupled;                   /* cfg.coupled_mux */
    bool     attached;                  /* as told by cb.attach */
    bool     collecting;                /* as told by cb.collecting */
    bool     distributing;              /* as told by cb.distributing */
};

static struct world {
    struct side s[NPORTS];
    struct zvs_lacp_aggregator agg_a;   /* ports 0 and 2 */
    struct zvs_lacp_aggregator agg_b;   /* port 1 */
    struct link link[NLINKED];          /* link[i]: frames sent by port i, for port 1-i */
    uint64_t now;
} w;

static const uint8_t sys_a[6] = { 0x02, 0x00, 0x00, 0x00, 0x0a, 0x00 };
static const uint8_t sys_b[6] = { 0x02, 0x00, 0x00, 0x00, 0x0b, 0x00 };

/* ---- input cursor ------------------------------------------------------------------ */

struct cursor {
    const uint8_t *p;
    size_t left;
};

static uint8_t u8(struct cursor *c)
{
    if (c->left == 0)
        return 0;
    c->left--;
    return *c->p++;
}

static uint16_t u16(struct cursor *c)
{
    uint16_t hi = u8(c);

    return (uint16_t)(hi << 8 | u8(c));
}

/* ---- link -------------------------------------------------------------------------- */

static void link_push(unsigned from, const uint8_t *frame)
{
    struct link *l = &w.link[from];

    if (l->len == LINK_CAP)
        return;                         /* wire full: lost */
    memcpy(l->frames[(l->head + l->len) % LINK_CAP], frame, ZVS_SLOW_FRAME_LEN);
    l->len++;
}

/* ---- callbacks --------------------------------------------------------------------- */

static void lacp_send(void *arg, const struct zvs_lacpdu *pdu)
{
    struct side *s = arg;
    const struct zvs_lacp_info *a = zvs_lacp_port_actor(&s->port);
    uint8_t frame[ZVS_SLOW_FRAME_LEN];
    struct zvs_lacpdu q;

    CHECK(pdu->version == ZVS_LACP_VERSION);
    CHECK(pdu->actor.port == a->port && pdu->actor.key == a->key &&
          pdu->actor.system_priority == a->system_priority &&
          memcmp(pdu->actor.system, a->system, 6) == 0);
    if (s->coupled)
        CHECK(!((pdu->actor.state & ZVS_LACP_STATE_COLLECTING) == 0) ==
              !((pdu->actor.state & ZVS_LACP_STATE_DISTRIBUTING) == 0));
    else if (pdu->actor.state & ZVS_LACP_STATE_DISTRIBUTING)
        CHECK(pdu->actor.state & ZVS_LACP_STATE_COLLECTING);
    CHECK(zvs_lacpdu_build(pdu, s->mac, frame, sizeof(frame)) == ZVS_SLOW_FRAME_LEN);
    CHECK(zvs_slow_parse(frame, sizeof(frame), &q, NULL) == ZVS_SLOW_LACP);
    CHECK(q.actor.state == pdu->actor.state && q.actor.port == pdu->actor.port &&
          q.partner.state == pdu->partner.state);
    if (s->idx < NLINKED)
        link_push(s->idx, frame);
}

static void cb_attach(void *arg, bool on)
{
    struct side *s = arg;

    CHECK(s->attached != on);
    CHECK(on || !s->collecting);
    s->attached = on;
}

static void cb_collecting(void *arg, bool on)
{
    struct side *s = arg;

    CHECK(s->collecting != on);
    CHECK(on ? s->attached : !s->distributing);
    CHECK(zvs_lacp_port_is_collecting(&s->port) == on);   /* getters show the new state */
    s->collecting = on;
}

static void cb_distributing(void *arg, bool on)
{
    struct side *s = arg;

    CHECK(s->distributing != on);
    CHECK(s->collecting);
    CHECK(zvs_lacp_port_is_distributing(&s->port) == on);
    s->distributing = on;
}

static void marker_send(void *arg, const struct zvs_marker *m)
{
    struct side *s = arg;
    uint8_t frame[ZVS_SLOW_FRAME_LEN];

    CHECK(zvs_marker_build(m, s->mac, frame, sizeof(frame)) == ZVS_SLOW_FRAME_LEN);
    if (!m->response) {
        CHECK(m->requester_port == zvs_lacp_port_actor(&s->port)->port);
        CHECK(memcmp(m->requester_system, zvs_lacp_port_actor(&s->port)->system, 6) == 0);
    }
    if (s->idx < NLINKED)
        link_push(s->idx, frame);
}

static void marker_done(void *arg, uint32_t xid, enum zvs_marker_result r)
{
    struct side *s = arg;
    unsigned i;

    for (i = 0; i < ZVS_LACP_MARKER_MAX_OUTSTANDING; i++) {
        if (s->mt[i].used && s->mt[i].xid == xid)
            break;
    }
    CHECK(i < ZVS_LACP_MARKER_MAX_OUTSTANDING);     /* done only for an outstanding xid */
    if (r == ZVS_MARKER_TIMED_OUT)
        CHECK(w.now >= s->mt[i].deadline);
    else
        CHECK(r == ZVS_MARKER_ANSWERED && s->in_marker_rx);
    s->mt[i].used = false;
    s->mt_count--;
}

/* ---- invariants -------------------------------------------------------------------- */

static uint64_t builds_of(const struct side *s)
{
    const struct zvs_lacp_port_stats *st = zvs_lacp_port_stats(&s->port);

    return st->lacpdus_tx + zvs_lacp_port_tx_delayed(&s->port) + st->tx_dropped_by_knob +
           st->tx_delay_overflow;
}

/* After every engine call: at most one build, and the 3-per-second rule. */
static void note_builds(struct side *s)
{
    uint64_t b = builds_of(s);

    CHECK(b >= s->builds && b - s->builds <= 1);
    if (b == s->builds)
        return;
    s->builds = b;
    CHECK(s->carrier);                  /* Transmit needs port_enabled */
    s->build_times[s->build_n % BUILD_RING] = w.now;
    s->build_n++;
    if (s->build_n >= BUILD_RING) {
        /* oldest of the last four is at index build_n % 4 */
        uint64_t oldest = s->build_times[s->build_n % BUILD_RING];

        CHECK(w.now - oldest >= ZVS_LACP_FAST_PERIODIC_NS);
    }
}

static void check_port(const struct side *s)
{
    const struct zvs_lacp_port *p = &s->port;
    uint8_t st = zvs_lacp_port_actor(p)->state;
    const struct zvs_lacp_info *pa = zvs_lacp_port_partner(p);
    enum zvs_lacp_mux_state mux = zvs_lacp_port_mux_state(p);
    enum zvs_lacp_selected sel = zvs_lacp_port_selected(p);
    enum zvs_lacp_rx_state rx = zvs_lacp_port_rx_state(p);
    bool col = st & ZVS_LACP_STATE_COLLECTING, dist = st & ZVS_LACP_STATE_DISTRIBUTING;
    bool sync = st & ZVS_LACP_STATE_SYNC, def = st & ZVS_LACP_STATE_DEFAULTED;
    uint64_t nw = zvs_lacp_port_next_wakeup(p);
    static const uint8_t null_mac[6];

    bool attached = mux != ZVS_LACP_MUX_DETACHED && mux != ZVS_LACP_MUX_WAITING;
    struct zvs_lacp_timers_left tl;
    uint64_t t[5];
    char text[2048], small[64];
    int n;

    CHECK(nw == ZVS_LACP_NEVER || nw > w.now);
    if (s->coupled) {
        CHECK(mux != ZVS_LACP_MUX_COLLECTING && mux != ZVS_LACP_MUX_DISTRIBUTING);
        CHECK(col == dist);
        CHECK(col == (mux == ZVS_LACP_MUX_COLLECTING_DISTRIBUTING));
    } else {
        CHECK(mux != ZVS_LACP_MUX_COLLECTING_DISTRIBUTING);
        CHECK(col == (mux == ZVS_LACP_MUX_COLLECTING || mux == ZVS_LACP_MUX_DISTRIBUTING));
        CHECK(dist == (mux == ZVS_LACP_MUX_DISTRIBUTING));
        if (dist)
            CHECK(pa->state & ZVS_LACP_STATE_COLLECTING);
    }
    CHECK(col == zvs_lacp_port_is_collecting(p) && col == s->collecting);
    CHECK(dist == zvs_lacp_port_is_distributing(p) && dist == s->distributing);
    CHECK(attached == s->attached);
    CHECK(sync == attached);
    if (attached)
        CHECK(sel == ZVS_LACP_SELECTED);
    if (col)
        CHECK(pa->state & ZVS_LACP_STATE_SYNC);
    /* timers_left: each running timer ends at or after next_wakeup, none is due. */
    zvs_lacp_port_timers_left(p, w.now, &tl);
    t[0] = tl.current_while; t[1] = tl.periodic; t[2] = tl.wait_while;
    t[3] = tl.actor_churn; t[4] = tl.partner_churn;
    for (unsigned i = 0; i < 5; i++) {
        if (t[i] == ZVS_LACP_NEVER)
            continue;
        CHECK(t[i] > 0 && w.now + t[i] >= nw);
    }
    /* The report: full length, and the same length into a short buffer. */
    n = zvs_lacp_port_format(p, s->idx < NLINKED ? &s->marker : NULL, w.now, text,
                             sizeof(text));
    CHECK(n > 0 && (size_t)n < sizeof(text) && strlen(text) == (size_t)n);
    CHECK(zvs_lacp_port_format(p, NULL, w.now, small, sizeof(small)) > 0);
    CHECK(strlen(small) == sizeof(small) - 1);
    if (sel == ZVS_LACP_UNSELECTED)
        CHECK(mux == ZVS_LACP_MUX_DETACHED);
    CHECK(sel != ZVS_LACP_STANDBY);
    /* PORT_DISABLED keeps the EXPIRED bit (802.1AX: it only clears partner SYNC). */
    if (rx == ZVS_LACP_RX_EXPIRED)
        CHECK(st & ZVS_LACP_STATE_EXPIRED);
    else if (st & ZVS_LACP_STATE_EXPIRED)
        CHECK(rx == ZVS_LACP_RX_PORT_DISABLED);
    if (rx == ZVS_LACP_RX_DEFAULTED)
        CHECK(def);
    if (rx == ZVS_LACP_RX_CURRENT)
        CHECK(!def);
    if (def) {
        CHECK(memcmp(pa->system, null_mac, 6) == 0 && pa->key == 0 && pa->port == 0);
        CHECK(sel == ZVS_LACP_UNSELECTED);
    }
    if (sel == ZVS_LACP_SELECTED)
        CHECK(s->carrier && memcmp(pa->system, null_mac, 6) != 0);
    if (!s->carrier)
        CHECK(rx == ZVS_LACP_RX_PORT_DISABLED && mux == ZVS_LACP_MUX_DETACHED);
    CHECK(zvs_lacp_port_tx_delayed(p) <= ZVS_LACP_TX_DELAY_SLOTS);
}

static void check_marker(const struct side *s)
{
    const struct zvs_lacp_marker_stats *ms = zvs_lacp_marker_stats(&s->marker);
    uint64_t nw = zvs_lacp_marker_next_wakeup(&s->marker);

    CHECK(nw == ZVS_LACP_MARKER_NEVER || nw > w.now);
    CHECK(zvs_lacp_marker_outstanding(&s->marker) == s->mt_count);
    CHECK(ms->marker_pdus_rx == ms->marker_response_pdus_tx + ms->marker_response_suppressed);
}

static void check_all(void)
{
    unsigned in_a = 0, in_b = 0;

    for (unsigned i = 0; i < NPORTS; i++) {
        check_port(&w.s[i]);
        if (zvs_lacp_port_selected(&w.s[i].port) == ZVS_LACP_SELECTED)
            *(i == 1 ? &in_b : &in_a) += 1;
    }
    CHECK(w.agg_a.selected_ports == in_a);
    CHECK(w.agg_b.selected_ports == in_b);
    for (unsigned i = 0; i < NLINKED; i++)
        check_marker(&w.s[i]);
}

/* ---- events ------------------------------------------------------------------------ */

static void run_all(void)
{
    for (unsigned i = 0; i < NPORTS; i++) {
        zvs_lacp_port_run(&w.s[i].port, w.now);
        note_builds(&w.s[i]);
    }
    for (unsigned i = 0; i < NLINKED; i++)
        zvs_lacp_marker_run(&w.s[i].marker, w.now);
    check_all();
}

static void ev_advance(struct cursor *c)
{
    uint8_t b = u8(c);
    uint64_t d;

    if (b < 128)
        d = (uint64_t)b * 10 * MS;                      /* up to 1.27 s */
    else if (b < 224)
        d = (uint64_t)(b - 128) * 500 * MS;             /* up to 47.5 s */
    else
        d = (uint64_t)(b - 224) * 6000 * MS;            /* up to 186 s */
    w.now += d;
}

/* Receives one frame on port `to`, as the data path would hand it over. */
static void frame_rx(unsigned to, const uint8_t *frame, uint32_t len)
{
    struct side *s = &w.s[to];
    struct zvs_lacpdu pdu;
    struct zvs_marker m;
    int rc = zvs_slow_parse(frame, len, &pdu, &m);

    if (rc == ZVS_SLOW_LACP) {
        zvs_lacp_port_rx(&s->port, &pdu, w.now);
        note_builds(s);
    } else if (rc == ZVS_SLOW_MARKER) {
        if (to < NLINKED) {
            s->in_marker_rx = true;
            zvs_lacp_marker_rx(&s->marker, &m, w.now);
            s->in_marker_rx = false;
        }
    } else {
        zvs_lacp_port_count_parse_error(&s->port, rc);
    }
}

static void info_from(struct cursor *c, struct zvs_lacp_info *i)
{
    i->system_priority = u16(c);
    for (unsigned k = 0; k < 6; k++)
        i->system[k] = u8(c);
    i->key = u16(c);
    i->port_priority = u16(c);
    i->port = u16(c);
    i->state = u8(c);
}

static void ev_hostile_lacp(struct cursor *c)
{
    unsigned to = u8(c) % NPORTS;
    uint8_t mode = u8(c);
    struct zvs_lacpdu pdu;
    uint8_t frame[ZVS_SLOW_FRAME_LEN];
    static const uint8_t src[6] = { 0x02, 0xee, 0xee, 0xee, 0xee, 0x01 };
    int n;

    memset(&pdu, 0, sizeof(pdu));
    pdu.version = u8(c);
    /* Forged actor: a real port's info (the peer, ourselves = loopback) with a state
     * byte from the input, or all fields from the input. */
    switch (mode & 3) {
    case 0:
        info_from(c, &pdu.actor);
        break;
    case 1:
        pdu.actor = *zvs_lacp_port_actor(&w.s[to == 1 ? 0 : 1].port);
        pdu.actor.state = u8(c);
        break;
    case 2:
        pdu.actor = *zvs_lacp_port_actor(&w.s[to].port);
        pdu.actor.state = u8(c);
        break;
    default:
        pdu.actor = *zvs_lacp_port_partner(&w.s[to].port);
        pdu.actor.state ^= u8(c);
        break;
    }
    /* Partner: what it believes about the target (matched or not). */
    if (mode & 4) {
        pdu.partner = *zvs_lacp_port_actor(&w.s[to].port);
        pdu.partner.state ^= u8(c);
    } else {
        info_from(c, &pdu.partner);
    }
    pdu.collector_max_delay = u16(c);
    n = zvs_lacpdu_build(&pdu, src, frame, sizeof(frame));
    if (pdu.version == 0) {
        CHECK(n == -EINVAL);
        return;
    }
    CHECK(n == ZVS_SLOW_FRAME_LEN);
    frame_rx(to, frame, (uint32_t)n);
}

static void ev_carrier(struct cursor *c)
{
    struct side *s = &w.s[u8(c) % NPORTS];

    s->carrier = !s->carrier;
    zvs_lacp_port_set_enabled(&s->port, s->carrier, w.now);
    note_builds(s);
}

static void ev_faults(struct cursor *c)
{
    struct side *s = &w.s[u8(c) % NPORTS];
    uint8_t b = u8(c);
    struct zvs_lacp_faults f = {
        .drop_rx = b & 1,
        .drop_tx = b & 2,
        .delay_tx_ns = (uint64_t)(b >> 2) * 100 * MS,  /* 0 .. 6.3 s */
    };

    zvs_lacp_port_set_faults(&s->port, (b == 0xff) ? NULL : &f, w.now);
    note_builds(s);
    CHECK(zvs_lacp_port_faults(&s->port)->drop_rx == (b != 0xff && f.drop_rx));
}

static void ev_deliver(struct cursor *c)
{
    uint8_t b = u8(c);
    unsigned from = b & 1, n = (b >> 1) & 15;
    struct link *l = &w.link[from];
    uint8_t frame[ZVS_SLOW_FRAME_LEN];

    if (n == 0)
        n = LINK_CAP;
    while (n-- > 0 && l->len > 0) {
        memcpy(frame, l->frames[l->head], sizeof(frame));
        l->head = (l->head + 1) % LINK_CAP;
        l->len--;
        frame_rx(1 - from, frame, sizeof(frame));
    }
}

static void ev_marker(struct cursor *c)
{
    uint8_t b = u8(c);
    struct side *s = &w.s[b & 1];

    if (b & 2) {
        /* Originate: timeout 0 .. ~6.5 s. */
        uint64_t timeout = (uint64_t)u16(c) * 100000ull;
        unsigned before = zvs_lacp_marker_outstanding(&s->marker);
        uint32_t xid = 0;
        int rc = zvs_lacp_marker_send(&s->marker, w.now, timeout, &xid);

        if (timeout == 0) {
            CHECK(rc == -EINVAL);
        } else if (before == ZVS_LACP_MARKER_MAX_OUTSTANDING) {
            CHECK(rc == -EBUSY);
        } else {
            unsigned i;

            CHECK(rc == 0);
            for (i = 0; i < ZVS_LACP_MARKER_MAX_OUTSTANDING; i++)
                CHECK(!s->mt[i].used || s->mt[i].xid != xid);
            for (i = 0; s->mt[i].used; i++)
                ;
            s->mt[i] = (struct marker_track){ true, xid, w.now + timeout };
            s->mt_count++;
        }
    } else {
        /* Hostile Marker: a response echoing our requester fields (xid from the input,
         * may match) or anything else. */
        struct zvs_marker m = { .version = ZVS_MARKER_VERSION };
        uint8_t frame[ZVS_SLOW_FRAME_LEN];
        static const uint8_t src[6] = { 0x02, 0xee, 0xee, 0xee, 0xee, 0x02 };

        m.response = b & 4;
        if (b & 8) {
            m.requester_port = zvs_lacp_port_actor(&s->port)->port;
            memcpy(m.requester_system, zvs_lacp_port_actor(&s->port)->system, 6);
            m.transaction_id = u8(c);
        } else {
            m.requester_port = u16(c);
            for (unsigned k = 0; k < 6; k++)
                m.requester_system[k] = u8(c);
            m.transaction_id = (uint32_t)u16(c) << 16 | u16(c);
        }
        CHECK(zvs_marker_build(&m, src, frame, sizeof(frame)) == ZVS_SLOW_FRAME_LEN);
        frame_rx(b & 1, frame, sizeof(frame));
    }
}

/* ---- setup ------------------------------------------------------------------------- */

static void setup(struct cursor *c)
{
    static const struct zvs_lacp_port_cb cb = {
        .send = lacp_send, .attach = cb_attach, .collecting = cb_collecting,
        .distributing = cb_distributing,
    };
    static const struct zvs_lacp_marker_cb mcb = { .send = marker_send, .done = marker_done };
    uint8_t cfgb[NPORTS];
    uint8_t extra;

    for (unsigned i = 0; i < NPORTS; i++)
        cfgb[i] = u8(c);
    extra = u8(c);
    memset(&w, 0, sizeof(w));
    w.now = 1000 * MS;
    zvs_lacp_aggregator_init(&w.agg_a, 10);
    zvs_lacp_aggregator_init(&w.agg_b, 20);
    for (unsigned i = 0; i < NPORTS; i++) {
        struct side *s = &w.s[i];
        uint8_t b = cfgb[i];
        struct zvs_lacp_port_cfg cfg = {
            /* Active and carrier by default (byte 0): the interesting case. */
            .active = !(b & 1),
            .fast = b & 2,
            .system_priority = i == 1 ? 0x8000 : 0x1000,
            .key = i == 1 ? 20 : 10,
            .port_priority = 0x80,
            .port = (uint16_t)(i + 1),
            .speed_mbps = (b & 4) ? 1000 : 10000,
            .full_duplex = (b & 0x18) != 0x18,          /* half duplex: rare */
            .enabled = !(b & 0x20),
            .coupled_mux = b & 0x40,
            .aggregator = i == 1 ? &w.agg_b : &w.agg_a,
        };

        if (i == 2 && (extra & 1))
            cfg.key = 11;                               /* never selected into agg_a */
        memcpy(cfg.system, i == 1 ? sys_b : sys_a, 6);
        s->idx = i;
        s->coupled = cfg.coupled_mux;
        memcpy(s->mac, cfg.system, 6);
        s->mac[5] = (uint8_t)(i + 1);
        s->carrier = cfg.enabled;
        CHECK(zvs_lacp_port_init(&s->port, &cfg, &cb, s, w.now) == 0);
        note_builds(s);
        if (i < NLINKED)
            CHECK(zvs_lacp_marker_init(&s->marker, cfg.port, cfg.system, &mcb, s) == 0);
    }
    check_all();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cursor c = { data, size };
    unsigned events = 0;

    setup(&c);
    while (c.left > 0 && events++ < MAX_EVENTS) {
        uint8_t op = u8(&c);

        switch (op % 8) {
        case 0: ev_advance(&c); break;
        case 1: ev_hostile_lacp(&c); break;
        case 2: ev_carrier(&c); break;
        case 3: ev_faults(&c); break;
        case 4: ev_deliver(&c); break;
        case 5: ev_marker(&c); break;
        case 6: ev_deliver(&c); ev_advance(&c); break;  /* the common pair, one op */
        default: break;                                 /* run only */
        }
        TRACE("t=%llu op %u: mux %d/%d/%d rx %d/%d/%d st %02x/%02x/%02x\n",
              (unsigned long long)w.now, op % 8, zvs_lacp_port_mux_state(&w.s[0].port),
              zvs_lacp_port_mux_state(&w.s[1].port), zvs_lacp_port_mux_state(&w.s[2].port),
              zvs_lacp_port_rx_state(&w.s[0].port), zvs_lacp_port_rx_state(&w.s[1].port),
              zvs_lacp_port_rx_state(&w.s[2].port), zvs_lacp_port_actor(&w.s[0].port)->state,
              zvs_lacp_port_actor(&w.s[1].port)->state,
              zvs_lacp_port_actor(&w.s[2].port)->state);
        run_all();
    }
    for (unsigned i = 0; i < NPORTS; i++) {
        zvs_lacp_port_fini(&w.s[i].port, w.now);
        note_builds(&w.s[i]);
    }
    CHECK(w.agg_a.selected_ports == 0 && w.agg_b.selected_ports == 0);
    return 0;
}

#include "fuzz_replay.h"
