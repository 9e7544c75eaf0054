/* forward_rule: where a frame goes in a system of an IVL domain, as a pure decision, so
 * that "every guest gets a broadcast once, nothing loops, nothing crosses the IVL twice"
 * is a property a test can check over every case (tests/unit/test_ivl_forward.c).
 *
 * The rules (802.1AX-2020 9.3.4's: a frame crosses the intra-portal link at most once):
 *   from a guest    to a guest here: delivered here. Anything else leaves on this system's
 *                   distributing members; with none, it crosses the IVL as OUTBOUND to the
 *                   lowest-index system that has one (none: dropped, no uplink). A
 *                   broadcast, multicast or unknown unicast also goes to this system's
 *                   other guests and, as FLOOD, to every other system (the partner never
 *                   sends a frame back into the channel it came from, so guests on other
 *                   systems hear it only over the IVL). To a guest learned on system k:
 *                   INBOUND to k only.
 *   from the LAG    to a guest here: delivered. To a guest learned on system k: INBOUND
 *                   to k (the switch hashed it onto our member). Broadcast, multicast or
 *                   unknown: this system's guests, and FLOOD to every other system (the
 *                   partner floods into the channel once, on one member of one system).
 *                   To a station learned on the LAG itself: dropped (never back out).
 *   from the IVL    OUTBOUND: out of this system's members only (none distributing:
 *                   dropped and counted). INBOUND: to the guest here only. FLOOD: to this
 *                   system's guests only. Nothing from the IVL goes back onto it.
 */
#ifndef ZVS_IVL_FORWARD_RULE_H
#define ZVS_IVL_FORWARD_RULE_H

#include <stdbool.h>
#include <stdint.h>

#include "ivl/frame.h"

enum zvs_ivl_from { ZVS_IVL_FROM_GUEST, ZVS_IVL_FROM_LAG, ZVS_IVL_FROM_IVL };

/* Where the destination MAC is, as this system's MAC table knows it. */
enum zvs_ivl_dst {
    ZVS_IVL_DST_FLOOD,                  /* broadcast, multicast or unknown unicast */
    ZVS_IVL_DST_LOCAL,                  /* a guest of this system */
    ZVS_IVL_DST_REMOTE,                 /* a guest learned over the IVL from `remote` */
    ZVS_IVL_DST_LAN,                    /* a station learned on the LAG */
};

/* Systems are bits of a mask: bit i for index i (1..3). */
struct zvs_ivl_fwd_in {
    enum zvs_ivl_from from;
    uint8_t           kind;             /* from the IVL: enum zvs_ivl_kind */
    enum zvs_ivl_dst  dst;
    uint8_t           remote;           /* ZVS_IVL_DST_REMOTE: the system's index */
    uint8_t           self;             /* this system's index */
    uint8_t           present;          /* systems in the domain's view, self included */
    uint8_t           distributing;     /* systems with a distributing member, aggregating */
};

enum zvs_ivl_fwd_drop {
    ZVS_IVL_FWD_OK,
    ZVS_IVL_FWD_NO_UPLINK,              /* no system of the view distributes */
    ZVS_IVL_FWD_NO_GUEST,               /* INBOUND for a guest we do not have */
    ZVS_IVL_FWD_REFLECTED,              /* from the LAG back to the LAG */
    ZVS_IVL_FWD_BAD_KIND,
};

struct zvs_ivl_fwd_out {
    bool    to_guests;                  /* deliver here (one guest, or all but the sender) */
    bool    to_members;                 /* out of this system's members */
    uint8_t outbound;                   /* systems to send OUTBOUND to (at most one) */
    uint8_t inbound;                    /* systems to send INBOUND to (at most one) */
    uint8_t flood;                      /* systems to send FLOOD to */
    enum zvs_ivl_fwd_drop drop;         /* why nothing went where it should have */
};

void zvs_ivl_forward_rule(const struct zvs_ivl_fwd_in *in, struct zvs_ivl_fwd_out *out);

#endif
