/* A port group: up to 8 uplink ports (OSA ports, RDEVs) aggregated as one uplink, as z/VM's
 * SET PORT GROUP builds it. This file owns the outbound distribution: which member port an
 * outbound frame leaves by, how that binding changes when members come and go (failover,
 * JOIN, LEAVE) and every INTERVAL (rebalancing, pgroup_balance.h), and the Marker flush that
 * keeps a conversation in order when its bucket moves.
 *
 * Distribution: a frame's MAC suffix (the last byte of the destination MAC by default, of the
 * source, or both XORed) selects one of 256 buckets; each bucket is bound to one member that
 * is distributing. Broadcast and multicast leave by one designated member. The binding lives
 * in a table (struct zvs_pg_map) that the data path reads; every change is built in the
 * spare table and published with one atomic pointer store, so a reader on another thread
 * sees the old or the new table, never a mix.
 *
 * Pure logic: no I/O, no clock (time comes in), no allocation after create. The switch feeds
 * it member states (from the LACP engine or, with LACP INACTIVE, from carrier) and per-port
 * byte counters; it asks the caller to send Markers through struct zvs_pg_ops.
 */
#ifndef ZVS_PGROUP_H
#define ZVS_PGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dataplane/distribution.h"
#include "dataplane/frame.h"

#define ZVS_PG_INTERVAL_DEFAULT_S  300          /* SET PORT GROUP ... INTERVAL default */
#define ZVS_PG_INTERVAL_MAX_S      9990
#define ZVS_PG_MARKER_TIMEOUT_NS   (50ull * 1000 * 1000)  /* flush wait before moving anyway */
#define ZVS_PG_NEVER               UINT64_MAX


/* How the INTERVAL pass decides to move buckets (pgroup_balance.h). */
enum zvs_pg_policy {
    ZVS_PG_POLICY_LOAD,                 /* even out measured load between members */
    ZVS_PG_POLICY_LBT,                  /* load-based teaming: only off members above
                                           lbt_percent of their capacity */
};

/* What LOAD counts as a member's load (POLICY LOAD TOTAL | OUTBOUND, pgroup_balance.h). */
enum zvs_pg_load {
    ZVS_PG_LOAD_TOTAL,                  /* inbound (the partner's choice) + outbound */
    ZVS_PG_LOAD_OUTBOUND,               /* outbound only */
};


/* Member port as the group sees it. */
struct zvs_pg_member {
    bool     used;                      /* slot holds a member */
    uint16_t port;                      /* switch port index */
    char     rdev[16];                  /* "28BA" or "28BA.P1", for QUERY and logs */
    uint64_t capacity_bps;              /* link speed in bit/s (LBT policy, QUERY) */
    bool     collecting;                /* inbound accepted (LACP Collecting / static up) */
    bool     distributing;              /* outbound allowed (LACP Distributing / static up) */
    uint16_t buckets;                   /* buckets bound to it in the live map */
    /* Interval measurement (set by zvs_pgroup_interval from the samples). */
    uint64_t last_out_bytes;            /* port counter at the previous pass */
    uint64_t last_in_bytes;
    double   out_bps;                   /* mean over the last interval, bit/s */
    double   in_bps;
};

struct zvs_pg_params {
    char     name[9];                   /* group name, upper case, 1-8 chars */
    enum zvs_pg_hash   hash;
    enum zvs_pg_policy policy;
    enum zvs_pg_load   load;            /* LOAD's measure (default TOTAL) */
    uint32_t interval_s;                /* 0: OFF, else 1..9990 */
    bool     lacp;                      /* LACP ACTIVE (true, default) or INACTIVE */
    uint64_t holddown_ns;               /* a moved bucket stays this long (0: 2 intervals) */
    unsigned lbt_percent;               /* LBT threshold, percent of capacity (0: 75) */
    uint64_t marker_timeout_ns;         /* 0: ZVS_PG_MARKER_TIMEOUT_NS */
};

struct zvs_pg_stats {
    uint64_t passes;                    /* INTERVAL passes run */
    uint64_t moves;                     /* buckets moved by INTERVAL passes (after flush) */
    uint64_t failover_moves;            /* buckets moved off a member that stopped */
    uint64_t membership_moves;          /* buckets moved because a member joined/returned */
    uint64_t marker_flushes;            /* moves that waited for a Marker Response */
    uint64_t marker_timeouts;           /* moves made when the flush timed out */
    uint64_t marker_unsent;             /* moves made at once: Marker could not be sent */
    uint64_t heavy_buckets;             /* passes that found a bucket above a fair share */
    uint64_t publishes;                 /* map publications */
};

/* Requests to the world. send_marker may be NULL (moves then happen at once). */
/* Why a bucket moved (the moved callback). Membership changes take the cause the caller
 * set last with zvs_pgroup_set_cause (JOIN and LEAVE are set by join/leave themselves); an
 * INTERVAL pass moves for BALANCE; a move that waited for its Marker keeps the cause it was
 * started with. */
enum zvs_pg_cause {
    ZVS_PG_CAUSE_LACP,                  /* LACP started or stopped distributing (default) */
    ZVS_PG_CAUSE_CARRIER,               /* carrier came or went */
    ZVS_PG_CAUSE_JOIN,                  /* JOIN */
    ZVS_PG_CAUSE_LEAVE,                 /* LEAVE */
    ZVS_PG_CAUSE_BALANCE,               /* INTERVAL rebalancing pass */
};
const char *zvs_pg_cause_name(enum zvs_pg_cause c);    /* "LACP", "carrier", ... */

struct zvs_pg_ops {
    /* Send a Marker on member port `port`; on success store its transaction id and
     * return 0. Any other return: the move is made at once (counted marker_unsent). */
    int  (*send_marker)(void *arg, uint16_t port, uint32_t *xid);
    /* May be NULL. A bucket was bound to another member (to_port ZVS_PG_NO_PORT: no
     * member distributes; from_port ZVS_PG_NO_PORT: it had none), in the very call that
     * made the move, before the map is published. Must not call back into the group. */
    void (*moved)(void *arg, unsigned bucket, uint16_t from_port, uint16_t to_port,
                  enum zvs_pg_cause cause);
};

struct zvs_pgroup;

/* The cause the moves of the following set_state calls report (see enum zvs_pg_cause). */
void zvs_pgroup_set_cause(struct zvs_pgroup *g, enum zvs_pg_cause cause);

struct zvs_pgroup *zvs_pgroup_create(const struct zvs_pg_params *params,
                                     const struct zvs_pg_ops *ops, void *arg);
void zvs_pgroup_destroy(struct zvs_pgroup *g);
const struct zvs_pg_params *zvs_pgroup_params(const struct zvs_pgroup *g);

/* JOIN: adds a member (not collecting or distributing yet). -EEXIST if the port is a member,
 * -ENOSPC with 8 members. Returns the member slot (0..7). */
int  zvs_pgroup_join(struct zvs_pgroup *g, uint16_t port, const char *rdev,
                     uint64_t capacity_bps, uint64_t now);
/* LEAVE: the member stops distributing (its buckets move to the others at once, published
 * before this returns) and is removed. -ENOENT if not a member. */
int  zvs_pgroup_leave(struct zvs_pgroup *g, uint16_t port, uint64_t now);
/* Member state from LACP (Collecting/Distributing) or, with LACP INACTIVE, from carrier.
 * A member that stops distributing loses its buckets to the distributing survivors in this
 * call (no Marker: the link is gone); one that starts distributing takes its fair share at
 * once (moved buckets go through the Marker flush). -ENOENT if not a member. */
int  zvs_pgroup_set_state(struct zvs_pgroup *g, uint16_t port, bool collecting,
                          bool distributing, uint64_t now);

/* Settings that SET PORT GROUP changes on a live group. */
int  zvs_pgroup_set_interval(struct zvs_pgroup *g, uint32_t interval_s, uint64_t now);
void zvs_pgroup_set_hash(struct zvs_pgroup *g, enum zvs_pg_hash hash);
void zvs_pgroup_set_policy(struct zvs_pgroup *g, enum zvs_pg_policy policy);
void zvs_pgroup_set_load(struct zvs_pgroup *g, enum zvs_pg_load load);
void zvs_pgroup_set_lbt_percent(struct zvs_pgroup *g, unsigned percent);    /* 0: 75 */

/* A Marker Response for a flush arrived on member port `port`: the pending move completes
 * now. Unknown xids are ignored (returns -ENOENT). */
int  zvs_pgroup_marker_answered(struct zvs_pgroup *g, uint16_t port, uint32_t xid,
                                uint64_t now);

/* Byte counters of one member port, read by the caller at each INTERVAL pass. */
struct zvs_pg_sample {
    uint16_t port;
    uint64_t out_bytes;                 /* switch -> physical switch */
    uint64_t in_bytes;                  /* physical switch -> switch */
};
/* Housekeeping: completes timed-out flushes; when the INTERVAL is due and `samples` (n of
 * them, one per member) are given, runs a rebalancing pass. Returns 1 if a pass ran. */
int  zvs_pgroup_run(struct zvs_pgroup *g, uint64_t now, const struct zvs_pg_sample *samples,
                    int n);
/* Earliest time run() has work (flush timeout or INTERVAL), ZVS_PG_NEVER if none. */
uint64_t zvs_pgroup_next_wakeup(const struct zvs_pgroup *g);

/* Read side. */
const struct zvs_pg_member *zvs_pgroup_member(const struct zvs_pgroup *g, unsigned slot);
int  zvs_pgroup_slot_of(const struct zvs_pgroup *g, uint16_t port);    /* -ENOENT */
unsigned zvs_pgroup_members(const struct zvs_pgroup *g);                /* used slots */
unsigned zvs_pgroup_distributing(const struct zvs_pgroup *g);           /* members */
const struct zvs_pg_stats *zvs_pgroup_stats(const struct zvs_pgroup *g);
/* Decaying average of outbound bytes per second of a bucket (measured at passes). */
double   zvs_pgroup_bucket_load(const struct zvs_pgroup *g, unsigned bucket);
unsigned zvs_pgroup_pending_moves(const struct zvs_pgroup *g);
const char *zvs_pg_hash_name(enum zvs_pg_hash h);       /* "DST", "SRC", "SRC-DST" */
const char *zvs_pg_policy_name(enum zvs_pg_policy p);   /* "LOAD", "LBT" */
const char *zvs_pg_load_name(enum zvs_pg_load l);       /* "TOTAL", "OUTBOUND" */
/* The policy with its operand as QUERY shows it: "LOAD TOTAL", "LOAD OUTBOUND", "LBT 75".
 * Returns buf. */
const char *zvs_pg_policy_str(const struct zvs_pg_params *p, char *buf, size_t size);
/* INTERVAL as QUERY shows it: "300", or "OFF" for 0. Returns buf. */
const char *zvs_pg_interval_str(uint32_t interval_s, char *buf, size_t size);

/* ---- the data path: a few nanoseconds, no branches beyond the hash choice ---- */

/* The live map (acquire load of the published pointer). */
const struct zvs_pg_map *zvs_pgroup_map(const struct zvs_pgroup *g);
/* Per-bucket outbound byte counters the data path adds to (measured by run()). */
uint64_t *zvs_pgroup_bucket_bytes(struct zvs_pgroup *g);
/* The part of the group the switch's forwarding path reads (zvs_switch_set_group). */
struct zvs_pg_dist *zvs_pgroup_dist(struct zvs_pgroup *g);


#endif
