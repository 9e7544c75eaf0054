/* Bucket moves of a port group and the Marker flush that keeps them in order. Private to
 * lag/: pgroup.c embeds struct zvs_pg_moves in its group; tests drive it directly.
 *
 * A bucket bound to a member that keeps carrying must not overtake the frames of its
 * conversation still on the way over the old link. So a move between two distributing
 * members is a flush (IEEE 802.1AX-2014 6.5, the Marker protocol): the group sends a Marker
 * on the old member and the bucket stays bound there until the partner's Marker Response
 * says it has received everything sent before, or until the flush times out
 * (params.marker_timeout_ns, 0: ZVS_PG_MARKER_TIMEOUT_NS). Then the bucket is bound to its
 * new member in the spare table the caller publishes.
 *
 * Rules:
 *  - One Marker per old member per zvs_pgm_start, its transaction id shared by every move
 *    off that member; Markers go out in slot order, the moves of one Marker in list order.
 *  - A Response completes exactly the pending moves off the member it arrived on that carry
 *    its transaction id, in bucket order; the same id on another member completes nothing.
 *  - No send_marker, or it fails: the move is made at once, counted marker_unsent.
 *  - A move that completes keeps the cause it was started with (ops.moved); it counts as
 *    `moves` when a pass started it, `membership_moves` otherwise.
 *  - The old member stops distributing: its pending moves complete at once (the link is
 *    gone, nothing to wait for), counted failover_moves, with the cause being made now.
 *    The new member stops: the move is cancelled and the bucket stays where it is.
 *  - Hold-down: every bucket a move starts with, and every failover, is not moved by a pass
 *    before now + holddown (params.holddown_ns, 0: two intervals); a pending bucket never.
 *
 * Pure logic, like pgroup.c: time comes in, no I/O beyond ops, no allocation.
 */
#ifndef ZVS_PGROUP_MOVES_IMPL_H
#define ZVS_PGROUP_MOVES_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "lag/pgroup.h"
#include "lag/pgroup_balance.h"

/* Does slot hold a member that distributes? (`member`: ZVS_PG_MAX_MEMBERS slots) */
static inline bool zvs_pg_slot_distributing(const struct zvs_pg_member *member, unsigned slot)
{
    return slot < ZVS_PG_MAX_MEMBERS && member[slot].used && member[slot].distributing;
}

/* How a completed move is counted. */
enum zvs_pgm_kind {
    ZVS_PGM_PASS,                       /* started by an INTERVAL pass: stats.moves */
    ZVS_PGM_MEMBERSHIP,                 /* a member came: stats.membership_moves */
};

/* A bucket move waiting for its Marker Response (or the timeout). */
struct zvs_pg_pending {
    bool     used;
    uint8_t  bucket;
    uint8_t  from_slot;
    uint8_t  to_slot;
    uint32_t xid;                       /* Marker transaction id on the old port */
    uint64_t deadline;                  /* move anyway at this time */
};

struct zvs_pg_moves {
    /* The group's, read only here (zvs_pgm_init): member ports and states, timeouts, the
     * callbacks, and the counters the moves add to. */
    const struct zvs_pg_member *member;         /* [ZVS_PG_MAX_MEMBERS] */
    const struct zvs_pg_params *params;
    const struct zvs_pg_ops    *ops;
    void                       *arg;
    struct zvs_pg_stats        *stats;
    enum zvs_pg_cause           cause;          /* of the moves being made (set by the group) */
    /* Owned. */
    struct zvs_pg_pending pending[ZVS_PG_BUCKETS];      /* indexed by bucket */
    bool                  by_pass[ZVS_PG_BUCKETS];      /* started by a pass: counts moves */
    uint8_t               started_cause[ZVS_PG_BUCKETS];/* cause a pending move started with */
    unsigned              n_pending;
    uint64_t              holddown_until[ZVS_PG_BUCKETS];
};

/* No pending move, no hold-down, cause LACP. */
void zvs_pgm_init(struct zvs_pg_moves *mv, const struct zvs_pg_member *member,
                  const struct zvs_pg_params *params, const struct zvs_pg_ops *ops, void *arg,
                  struct zvs_pg_stats *stats);

/* A move at once: binds bucket b of `m` to `slot` (ZVS_PG_NO_SLOT: none) and reports it
 * through ops.moved with mv->cause if its port changed. Counts nothing. */
void zvs_pgm_move(const struct zvs_pg_moves *mv, struct zvs_pg_map *m, unsigned b,
                  uint8_t slot);
/* Bucket b is not moved by a pass before now + hold-down. */
void zvs_pgm_hold(struct zvs_pg_moves *mv, unsigned b, uint64_t now);

/* Starts n moves (each into a distributing member, none of the buckets pending, each bound
 * in `spare` to its `from`): one Marker per old member; moves whose Marker cannot be sent
 * are made in `spare` at once. */
void zvs_pgm_start(struct zvs_pg_moves *mv, struct zvs_pg_map *spare,
                   const struct zvs_pgb_move *list, unsigned n, enum zvs_pgm_kind kind,
                   uint64_t now);
/* A Marker Response with `xid` arrived on member `slot`: completes its moves in `spare`
 * (counted marker_flushes). Returns how many. */
unsigned zvs_pgm_answered(struct zvs_pg_moves *mv, struct zvs_pg_map *spare, unsigned slot,
                          uint32_t xid);
/* Completes in `spare` the moves whose deadline is at or before now (counted
 * marker_timeouts). Returns how many. */
unsigned zvs_pgm_expire(struct zvs_pg_moves *mv, struct zvs_pg_map *spare, uint64_t now);
/* Member `slot` stopped distributing: the moves off it complete in `spare` at once, those
 * onto it are cancelled. */
void zvs_pgm_member_stopped(struct zvs_pg_moves *mv, struct zvs_pg_map *spare, unsigned slot,
                            uint64_t now);
/* Every pending move is dropped; its bucket stays where it is (the idle re-layout). */
void zvs_pgm_cancel_all(struct zvs_pg_moves *mv);

/* Read side. */
bool     zvs_pgm_is_pending(const struct zvs_pg_moves *mv, unsigned b);
unsigned zvs_pgm_pending(const struct zvs_pg_moves *mv);
/* The slot bucket b will be on once its pending move, if any, completes. */
uint8_t  zvs_pgm_effective_slot(const struct zvs_pg_moves *mv, const struct zvs_pg_map *m,
                                unsigned b);
/* The earliest deadline of a pending move, ZVS_PG_NEVER if none. */
uint64_t zvs_pgm_next_deadline(const struct zvs_pg_moves *mv);
/* The pass's hold-down per bucket (pgroup_balance.h's holddown_until): ZVS_PG_NEVER while
 * pending, else the hold-down the last move set. */
void     zvs_pgm_holddown(const struct zvs_pg_moves *mv, uint64_t *until);

#endif
