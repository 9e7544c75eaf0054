/* Bucket moves and the Marker flush (pgroup_moves_impl.h has the rules).
 *
 * Owns: the pending moves (one slot per bucket: a bucket has at most one), the cause each
 * started with, and every bucket's hold-down. Binds buckets only in the spare table the
 * caller passes; publishing it is the caller's (pgroup.c).
 */
#include "lag/pgroup_moves_impl.h"

#include <assert.h>
#include <errno.h>
#include <string.h>

#define NS_PER_S         1000000000ull

void zvs_pgm_init(struct zvs_pg_moves *mv, const struct zvs_pg_member *member,
                  const struct zvs_pg_params *params, const struct zvs_pg_ops *ops, void *arg,
                  struct zvs_pg_stats *stats)
{
    memset(mv, 0, sizeof(*mv));
    mv->member = member;
    mv->params = params;
    mv->ops = ops;
    mv->arg = arg;
    mv->stats = stats;
    mv->cause = ZVS_PG_CAUSE_LACP;
}

static uint64_t holddown(const struct zvs_pg_moves *mv)
{
    if (mv->params->holddown_ns)
        return mv->params->holddown_ns;
    return 2ull * mv->params->interval_s * NS_PER_S;
}

static uint64_t marker_timeout(const struct zvs_pg_moves *mv)
{
    return mv->params->marker_timeout_ns ? mv->params->marker_timeout_ns
                                         : ZVS_PG_MARKER_TIMEOUT_NS;
}

/* Binds and, if the port changed, reports the move with `cause`. */
static void bind_and_report(const struct zvs_pg_moves *mv, struct zvs_pg_map *m, unsigned b,
                            uint8_t slot, enum zvs_pg_cause cause)
{
    uint16_t from = m->bucket_port[b];

    m->bucket_slot[b] = slot;
    m->bucket_port[b] = slot == ZVS_PG_NO_SLOT ? ZVS_PG_NO_PORT : mv->member[slot].port;
    if (mv->ops && mv->ops->moved && from != m->bucket_port[b])
        mv->ops->moved(mv->arg, b, from, m->bucket_port[b], cause);
}

void zvs_pgm_move(const struct zvs_pg_moves *mv, struct zvs_pg_map *m, unsigned b,
                  uint8_t slot)
{
    bind_and_report(mv, m, b, slot, mv->cause);
}

void zvs_pgm_hold(struct zvs_pg_moves *mv, unsigned b, uint64_t now)
{
    mv->holddown_until[b] = now + holddown(mv);
}

static void count_move(struct zvs_pg_moves *mv, enum zvs_pgm_kind kind)
{
    if (kind == ZVS_PGM_PASS)
        mv->stats->moves++;
    else
        mv->stats->membership_moves++;
}

static void clear_pending(struct zvs_pg_moves *mv, unsigned b)
{
    if (!mv->pending[b].used)
        return;
    memset(&mv->pending[b], 0, sizeof(mv->pending[b]));
    mv->by_pass[b] = false;
    assert(mv->n_pending > 0);
    mv->n_pending--;
}

/* A pending move completes: the bucket is bound to its new member with the cause it
 * started with. */
static void complete(struct zvs_pg_moves *mv, struct zvs_pg_map *spare, unsigned b)
{
    const struct zvs_pg_pending *p = &mv->pending[b];

    assert(p->used && zvs_pg_slot_distributing(mv->member, p->to_slot));
    assert(spare->bucket_slot[b] == p->from_slot);
    bind_and_report(mv, spare, b, p->to_slot, (enum zvs_pg_cause)mv->started_cause[b]);
    count_move(mv, mv->by_pass[b] ? ZVS_PGM_PASS : ZVS_PGM_MEMBERSHIP);
    clear_pending(mv, b);
}

void zvs_pgm_start(struct zvs_pg_moves *mv, struct zvs_pg_map *spare,
                   const struct zvs_pgb_move *list, unsigned n, enum zvs_pgm_kind kind,
                   uint64_t now)
{
    for (unsigned s = 0; s < ZVS_PG_MAX_MEMBERS; s++) {
        bool any = false;
        for (unsigned i = 0; i < n && !any; i++)
            any = list[i].from == s;
        if (!any)
            continue;
        uint32_t xid = 0;
        int rc = mv->ops && mv->ops->send_marker
                     ? mv->ops->send_marker(mv->arg, mv->member[s].port, &xid)
                     : -EOPNOTSUPP;
        for (unsigned i = 0; i < n; i++) {
            unsigned b = list[i].bucket;
            if (list[i].from != s)
                continue;
            assert(!mv->pending[b].used && spare->bucket_slot[b] == s);
            assert(zvs_pg_slot_distributing(mv->member, list[i].to) && list[i].to != s);
            zvs_pgm_hold(mv, b, now);
            if (rc != 0) {
                zvs_pgm_move(mv, spare, b, list[i].to);
                count_move(mv, kind);
                mv->stats->marker_unsent++;
                continue;
            }
            mv->pending[b] = (struct zvs_pg_pending){
                .used = true, .bucket = (uint8_t)b, .from_slot = (uint8_t)s,
                .to_slot = list[i].to, .xid = xid, .deadline = now + marker_timeout(mv),
            };
            mv->by_pass[b] = kind == ZVS_PGM_PASS;
            mv->started_cause[b] = (uint8_t)mv->cause;
            mv->n_pending++;
        }
    }
}

unsigned zvs_pgm_answered(struct zvs_pg_moves *mv, struct zvs_pg_map *spare, unsigned slot,
                          uint32_t xid)
{
    unsigned done = 0;

    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++) {
        const struct zvs_pg_pending *p = &mv->pending[b];
        if (!p->used || p->from_slot != slot || p->xid != xid)
            continue;
        complete(mv, spare, b);
        mv->stats->marker_flushes++;
        done++;
    }
    return done;
}

unsigned zvs_pgm_expire(struct zvs_pg_moves *mv, struct zvs_pg_map *spare, uint64_t now)
{
    unsigned done = 0;

    for (unsigned b = 0; b < ZVS_PG_BUCKETS && mv->n_pending; b++) {
        if (!mv->pending[b].used || now < mv->pending[b].deadline)
            continue;
        complete(mv, spare, b);
        mv->stats->marker_timeouts++;
        done++;
    }
    return done;
}

void zvs_pgm_member_stopped(struct zvs_pg_moves *mv, struct zvs_pg_map *spare, unsigned slot,
                            uint64_t now)
{
    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++) {
        const struct zvs_pg_pending *p = &mv->pending[b];
        if (!p->used)
            continue;
        if (p->from_slot == slot) {     /* the old link is gone: nothing to wait for */
            zvs_pgm_move(mv, spare, b, p->to_slot);
            mv->stats->failover_moves++;
            zvs_pgm_hold(mv, b, now);
            clear_pending(mv, b);
        } else if (p->to_slot == slot) {
            clear_pending(mv, b);
        }
    }
}

void zvs_pgm_cancel_all(struct zvs_pg_moves *mv)
{
    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++)
        clear_pending(mv, b);
}

bool zvs_pgm_is_pending(const struct zvs_pg_moves *mv, unsigned b)
{
    return mv->pending[b].used;
}

unsigned zvs_pgm_pending(const struct zvs_pg_moves *mv)
{
    return mv->n_pending;
}

uint8_t zvs_pgm_effective_slot(const struct zvs_pg_moves *mv, const struct zvs_pg_map *m,
                               unsigned b)
{
    return mv->pending[b].used ? mv->pending[b].to_slot : m->bucket_slot[b];
}

uint64_t zvs_pgm_next_deadline(const struct zvs_pg_moves *mv)
{
    uint64_t t = ZVS_PG_NEVER;

    for (unsigned b = 0; b < ZVS_PG_BUCKETS && mv->n_pending; b++)
        if (mv->pending[b].used && mv->pending[b].deadline < t)
            t = mv->pending[b].deadline;
    return t;
}

void zvs_pgm_holddown(const struct zvs_pg_moves *mv, uint64_t *until)
{
    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++)
        until[b] = mv->pending[b].used ? ZVS_PG_NEVER : mv->holddown_until[b];
}
