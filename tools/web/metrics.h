/* /metrics: the monitor's counters in Prometheus' text exposition format (version 0.0.4).
 *
 * Every counter is cumulative and never goes backwards, COUNTERS CLEAR included, by the
 * monitor's rule (monitor/README.md): the exposed value is the first value read plus the
 * sum of the deltas between consecutive samples, each delta taken as the screens take it
 * (zvs_scr_delta: a counter that went backwards counted from zero). A vswitchd restart,
 * a COUNTERS CLEAR or a 32-bit LACP counter wrapping therefore shows as growth, never as
 * a reset; a series whose device or NIC is gone keeps its last value.
 *
 * Discards, errors and the drops counted by reason only are also exposed by reason
 * (`zvswitch_uplink_discards_total{...,reason="no-input-buffer"}`, the data plane's reason
 * names), for the devices and NICs whose records carry them (monitor/RECORDS.md: a D6R21
 * or D8R1 of a vswitchd before them carries none, and its series has no reason lines);
 * folded the same way, so they never go backwards either.
 *
 * Gauges describe the last sample: each member's LACP collecting and distributing (actor
 * state bits, IEEE 802.1AX 6.4.2.3), its buckets, members distributing per group, and NIC
 * coupled (1 in the last sample, 0 for a NIC seen before but no longer there).
 */
#ifndef ZVS_WEB_METRICS_H
#define ZVS_WEB_METRICS_H

#include <stdint.h>

#include "tools/web/store.h"
#include "tools/web/wbuf.h"

struct metrics;

struct metrics *metrics_new(void);
void metrics_free(struct metrics *m);
/* store's on_sample hook: folds cur (and prev) into the cumulative counters. */
void metrics_on_sample(void *arg, const struct store *st, const struct store_sample *prev,
                       const struct store_sample *cur);

/* The server's own counters, exposed with the rest. */
enum metrics_refusal {
    REFUSED_METHOD,                     /* anything but GET and HEAD: read-only */
    REFUSED_PATH,                       /* "..", or a malformed path */
    REFUSED_NOT_FOUND,                  /* an unknown screen or page */
    REFUSED_HEADERS,                    /* oversized request headers */
    REFUSED_CONNECTIONS,                /* over the connection limits (a flood) */
    REFUSED_NREASONS
};
const char *metrics_refusal_name(enum metrics_refusal r);

/* The exposition of everything, system label from the store. Lock held by the caller. */
void metrics_write(const struct metrics *m, const struct store *st,
                   const uint64_t refused[REFUSED_NREASONS], struct wbuf *out);

#endif
