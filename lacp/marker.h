/* Marker protocol of one aggregation port (IEEE 802.1AX-2008 5.5, 2014 6.5, formerly
 * 802.3ad clause 43.5; the PDUs in 5.5.3 / 6.5.3).
 *
 * Pure logic: no I/O, no clock, no allocation. Time is a uint64_t in nanoseconds passed in by
 * the caller; deadlines are absolute. Two halves:
 *  - Responder: every received Marker Information is answered with a Marker Response (the
 *    same fields, TLV type 2) through cb.send.
 *  - Originator: zvs_lacp_marker_send sends a Marker Information with our port number,
 *    system MAC and a fresh transaction id and remembers it until the matching Marker
 *    Response arrives (done: ANSWERED) or its deadline passes (done: TIMED_OUT). Used by the
 *    port group to flush a conversation off a link before moving it.
 * Design note at the top of marker.c.
 *
 * The struct is visible only so the caller can embed it (no allocation); treat every member
 * as private and use the functions.
 */
#ifndef ZVS_LACP_MARKER_H
#define ZVS_LACP_MARKER_H

#include <stdbool.h>
#include <stdint.h>

#include "lacp/pdu.h"

#define ZVS_LACP_MARKER_MAX_OUTSTANDING 8   /* per port; send refuses the 9th (-EBUSY) */
/* IEEE 802.3 Annex 43B: a port transmits no more than 10 Slow Protocols frames in any
 * one-second period. LACP keeps 3 of them (802.1AX Transmit machine: 3 LACPDUs per
 * Fast_Periodic_Time), the Marker protocol gets the other 7, so a Marker flood can never
 * delay or suppress an LACPDU. */
#define ZVS_SLOW_TX_PER_SEC             10
#define ZVS_LACP_MARKER_TX_PER_SEC      7
#define ZVS_LACP_MARKER_BUDGET_NS       1000000000ull      /* the one-second period */
#define ZVS_LACP_MARKER_NEVER           UINT64_MAX  /* next_wakeup: nothing outstanding */
/* A sensible timeout for callers: FreeBSD's LACP_TRANSIT_DELAY (3 s). Not applied by us. */
#define ZVS_LACP_MARKER_TIMEOUT_NS      3000000000ull

/* How an outstanding marker ended. */
enum zvs_marker_result {
    ZVS_MARKER_ANSWERED,                /* matching Marker Response received */
    ZVS_MARKER_TIMED_OUT,               /* deadline reached without a response */
};

/* The world. send is required, done may be NULL. Both run inside rx/send/run. done may call
 * zvs_lacp_marker_send (the finished marker's slot is already free); nothing else may call
 * back into the same struct from a callback. */
struct zvs_lacp_marker_cb {
    void (*send)(void *arg, const struct zvs_marker *pdu);   /* transmit one Marker PDU */
    void (*done)(void *arg, uint32_t xid, enum zvs_marker_result result);
};

/* Counters. */
struct zvs_lacp_marker_stats {
    uint64_t marker_pdus_tx;            /* Marker Information PDUs we originated */
    uint64_t marker_pdus_rx;            /* Marker Information PDUs received (all answered) */
    uint64_t marker_response_pdus_tx;   /* Marker Responses we sent (answers) */
    uint64_t marker_response_pdus_rx;   /* Marker Responses received, matched or not */
    uint64_t marker_timeouts;           /* outstanding markers that reached their deadline */
    uint64_t marker_response_unmatched; /* responses matching no outstanding marker (ignored) */
    uint64_t marker_response_suppressed; /* Marker Information left unanswered: the port's
                                            Marker budget of the second was spent */
};

/* One marker we sent and still wait for. */
struct zvs_lacp_marker_slot {
    bool     used;                      /* slot holds an outstanding marker */
    uint32_t xid;                       /* its transaction id */
    uint64_t deadline;                  /* absolute: TIMED_OUT when now >= deadline */
    uint64_t seq;                       /* send order, breaks deadline ties in run() */
};

struct zvs_lacp_marker {
    uint16_t port;                      /* our port number (requester port), never 0 */
    uint8_t  system[6];                 /* our system MAC (requester system) */
    struct zvs_lacp_marker_cb cb;       /* callbacks */
    void *arg;                          /* callback argument */
    struct zvs_lacp_marker_slot slots[ZVS_LACP_MARKER_MAX_OUTSTANDING]; /* outstanding */
    unsigned outstanding;               /* used slots */
    uint32_t next_xid;                  /* next transaction id to try */
    uint64_t next_seq;                  /* send order counter */
    struct zvs_lacp_marker_stats stats; /* counters */
    uint64_t tx_times[ZVS_LACP_MARKER_TX_PER_SEC]; /* ring: times of the last Marker PDUs sent */
    unsigned tx_next;                   /* ring index of the oldest (the next to replace) */
    unsigned tx_count;                  /* entries used, up to ZVS_LACP_MARKER_TX_PER_SEC */
};

/* Nothing outstanding, counters zero, first transaction id 1. Returns 0, or -EINVAL for a
 * NULL argument, a NULL send callback or port number 0. */
int zvs_lacp_marker_init(struct zvs_lacp_marker *m, uint16_t port, const uint8_t system[6],
                         const struct zvs_lacp_marker_cb *cb, void *arg);

/* A parsed Marker PDU (zvs_slow_parse kind ZVS_SLOW_MARKER) received at `now`. Information:
 * answered at once with a Marker Response while the port's Marker budget allows (fewer than
 * ZVS_LACP_MARKER_TX_PER_SEC Marker PDUs, answers and our own, sent in the second before
 * `now`), else counted in marker_response_suppressed and left unanswered. Response: completes the outstanding marker whose
 * requester port, system and transaction id it carries (done ANSWERED), else counted as
 * unmatched and ignored. Applied before any deadline at `now` is looked at: a response that
 * arrives before run() expired its marker wins. */
void zvs_lacp_marker_rx(struct zvs_lacp_marker *m, const struct zvs_marker *pdu, uint64_t now);

/* Originates a Marker Information with a new transaction id (previous + 1, skipping ids
 * still outstanding), outstanding until now + timeout_ns (saturating). It always goes (a
 * flood of the partner's Markers must not starve our flush) and takes its place in the
 * budget the responder keeps to. *xid (may be NULL)
 * receives the id. Returns 0, -EBUSY with ZVS_LACP_MARKER_MAX_OUTSTANDING outstanding, or
 * -EINVAL for timeout_ns 0. The marker is recorded before cb.send runs, so a response
 * delivered synchronously from inside send is matched (done then runs before we return). */
int zvs_lacp_marker_send(struct zvs_lacp_marker *m, uint64_t now, uint64_t timeout_ns,
                         uint32_t *xid);

/* Times out every outstanding marker with deadline <= now (done TIMED_OUT), earliest
 * deadline first, ties in send order. */
void zvs_lacp_marker_run(struct zvs_lacp_marker *m, uint64_t now);

/* Earliest outstanding deadline, or ZVS_LACP_MARKER_NEVER. */
uint64_t zvs_lacp_marker_next_wakeup(const struct zvs_lacp_marker *m);

/* Number of outstanding markers (0..ZVS_LACP_MARKER_MAX_OUTSTANDING). */
unsigned zvs_lacp_marker_outstanding(const struct zvs_lacp_marker *m);
const struct zvs_lacp_marker_stats *zvs_lacp_marker_stats(const struct zvs_lacp_marker *m);

#endif
