/* Port group rebalancing policies (SET PORT GROUP ... INTERVAL): pure functions on arrays.
 *
 * Input: per member slot whether it distributes, its capacity and its measured outbound and
 * inbound rate (bit/s, mean over the last interval); per bucket its decaying average load
 * (bytes/s), the member slot it is bound to and its hold-down expiry; the current time.
 * Output: a bounded list of bucket moves and a report. No state, no clock, no allocation:
 * pgroup.c calls these once per INTERVAL pass, tests and the benchmark call them directly.
 *
 * ZVS_PG_POLICY_LOAD (zvs_pgb_plan_load): a port's load is out_bps + in_bps with
 * ZVS_PG_LOAD_TOTAL (the default), out_bps alone with ZVS_PG_LOAD_OUTBOUND. While max/mean
 * of the loads of the distributing ports exceeds ZVS_PGB_START_RATIO (then down to
 * ZVS_PGB_STOP_RATIO: hysteresis), move from the busiest to the least busy port the
 * movable bucket whose load is closest to half their difference (and smaller than the
 * difference, so every move lowers the pair's maximum). Only outbound moves: inbound is
 * fixed by the partner, so TOTAL balances fixed inbound + movable outbound per port.
 * ZVS_PG_POLICY_LBT (zvs_pgb_plan_lbt): only a port whose utilisation out_bps/capacity_bps
 * exceeds lbt_percent sheds buckets, to the port of lowest utilisation that has room below
 * the same threshold.
 * LOAD acts only when the busiest port's load is at least min_bps: an imbalance of trickles
 * is not worth a move (each costs a Marker flush and churns the map). pgroup.c sets it to
 * ZVS_PGB_MIN_UTIL_PERCENT of the slowest member's speed (ZVS_PGB_MIN_BPS if unknown).
 * Both: a bucket in hold-down (now < holddown_until) and a port's last bucket never move.
 */
#ifndef ZVS_PGROUP_BALANCE_H
#define ZVS_PGROUP_BALANCE_H

#include <stdbool.h>
#include <stdint.h>

#include "lag/pgroup.h"

#define ZVS_PGB_START_RATIO   1.10      /* LOAD: start moving above this max/mean */
#define ZVS_PGB_STOP_RATIO    1.05      /* LOAD: once started, stop at or below this */
#define ZVS_PGB_MAX_MOVES     32        /* moves per pass, both policies */
#define ZVS_PGB_MIN_UTIL_PERCENT 1      /* pgroup.c's min_bps: % of the slowest member's speed */
#define ZVS_PGB_MIN_BPS       10e6      /* pgroup.c's min_bps when no speed is known */
#define ZVS_PGB_LBT_PERCENT   75        /* LBT default threshold (VMware's default) */

/* One member slot as the policy sees it. */
struct zvs_pgb_member {
    bool     eligible;                  /* distributing: may hold and receive buckets */
    uint64_t capacity_bps;              /* link speed, bit/s (LBT; 0: unknown, skipped) */
    double   out_bps;                   /* measured outbound, bit/s */
    double   in_bps;                    /* measured inbound, bit/s */
};

struct zvs_pgb_input {
    struct zvs_pgb_member member[ZVS_PG_MAX_MEMBERS];
    const double   *bucket_load;        /* [ZVS_PG_BUCKETS] decaying average, bytes/s */
    const uint8_t  *bucket_slot;        /* [ZVS_PG_BUCKETS] member slot, ZVS_PG_NO_SLOT */
    const uint64_t *holddown_until;     /* [ZVS_PG_BUCKETS] movable when now >= it; NULL: none */
    uint64_t now;
    double   min_bps;                   /* LOAD: busiest port below this: no move (0: none) */
    unsigned lbt_percent;               /* LBT threshold; 0: ZVS_PGB_LBT_PERCENT */
    unsigned max_moves;                 /* 0 or above ZVS_PGB_MAX_MOVES: ZVS_PGB_MAX_MOVES */
    enum zvs_pg_load load;              /* LOAD: TOTAL (out + in, default) or OUTBOUND */
};

struct zvs_pgb_move {
    uint8_t bucket;
    uint8_t from;                       /* member slot */
    uint8_t to;                         /* member slot */
};

struct zvs_pgb_report {
    unsigned n_moves;                   /* entries written to the move list */
    bool     heavy;                     /* a bucket too heavy to balance around was found */
    int      heavy_bucket;              /* the heaviest such bucket, -1 if none */
    double   ratio_before;              /* LOAD: max/mean of port loads before; LBT: max util */
    double   ratio_after;               /* the same, projected after the moves */
};

/* A port's load as LOAD sees it: out_bps + in_bps (TOTAL) or out_bps (OUTBOUND). */
double zvs_pgb_port_load(const struct zvs_pgb_member *m, enum zvs_pg_load load);
/* max/mean of load[i] over the i < n with eligible[i]; 1.0 when the mean is 0 or n < 1. */
double zvs_pgb_ratio(const double *load, const bool *eligible, unsigned n);

/* Each writes at most ZVS_PGB_MAX_MOVES moves to `moves` (room for that many required),
 * fills `rep` and returns the number of moves. Moves are to be applied in order; a bucket
 * appears at most once. */
unsigned zvs_pgb_plan_load(const struct zvs_pgb_input *in, struct zvs_pgb_move *moves,
                           struct zvs_pgb_report *rep);
unsigned zvs_pgb_plan_lbt(const struct zvs_pgb_input *in, struct zvs_pgb_move *moves,
                          struct zvs_pgb_report *rep);
unsigned zvs_pgb_plan(enum zvs_pg_policy policy, const struct zvs_pgb_input *in,
                      struct zvs_pgb_move *moves, struct zvs_pgb_report *rep);

#endif
