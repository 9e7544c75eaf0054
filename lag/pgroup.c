/* Port group: bucket-to-member binding, failover, JOIN/LEAVE, INTERVAL passes.
 *
 * Owns: the two bucket tables (live and spare), the member slots, the per-bucket byte
 * counters the data path adds to and their decaying averages. Moves that wait for a Marker
 * (the flush), their timeouts and every bucket's hold-down are pgroup_moves.c's (struct
 * zvs_pg_moves, embedded here; its rules in pgroup_moves_impl.h); which buckets a pass
 * moves is pgroup_balance.c's.
 *
 * Rules, in the order of the functions below that carry them out (each states its rule):
 *  1. bound_or_none        every bucket is on a distributing member, or none is anywhere
 *  2. keep_flood_port      broadcast stays on the designated member while it distributes
 *  3. publish              swap, don't patch: one release store per operation at most
 *  4. start_distributing   the first member takes all, an idle group is laid out again
 *                          (relayout_idle), a busy one gives a fair share (take_fair_share)
 *  5. stop_distributing    the member's buckets go to the survivors in the same call
 *                          (fail_over)
 *  6. measure              the buckets' decaying averages (decay_bucket_loads), the
 *                          members' rates (measure_members)
 *  7. rebalance            the pass plans on bucket sums plus measured inbound
 *  8. clock_start          the first `now` starts the pass clock
 * Hazards: a group of one member is never rebalanced; buckets with no traffic are never
 * moved by a pass (nothing to gain).
 */
#include "lag/pgroup.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lag/pgroup_balance.h"
#include "lag/pgroup_moves_impl.h"

#define NS_PER_S         1000000000ull
#define DECAY_OLD        0.5            /* weight of the previous average */

struct zvs_pgroup {
    struct zvs_pg_params  params;
    struct zvs_pg_ops     ops;
    void                 *arg;
    struct zvs_pg_map     table[2];
    struct zvs_pg_dist    dist;                         /* what the data path reads */
    struct zvs_pg_member  member[ZVS_PG_MAX_MEMBERS];
    bool                  baseline[ZVS_PG_MAX_MEMBERS]; /* last_*_bytes hold a sample */
    uint64_t              base_time[ZVS_PG_MAX_MEMBERS];/* when that sample was taken */
    uint8_t               flood_slot;                   /* designated member */
    struct zvs_pg_moves   moves;                        /* pending moves, hold-down, cause */
    double                bucket_load[ZVS_PG_BUCKETS];  /* bytes/s, decaying average */
    bool                  measured;                     /* a pass set bucket_load */
    bool                  clock_started;
    uint64_t              meas_start;                   /* bucket counters zeroed at */
    uint64_t              next_pass;
    struct zvs_pg_stats   stats;
};

/* ---- small helpers ------------------------------------------------------------------- */

static bool distributing(const struct zvs_pgroup *g, unsigned slot)
{
    return zvs_pg_slot_distributing(g->member, slot);
}

/* The distributing slots in slot order; returns how many. */
static unsigned dist_slots(const struct zvs_pgroup *g, uint8_t *out)
{
    unsigned n = 0;
    for (unsigned s = 0; s < ZVS_PG_MAX_MEMBERS; s++)
        if (distributing(g, s))
            out[n++] = (uint8_t)s;
    return n;
}

static const char *const cause_names[] = { "LACP", "carrier", "join", "leave", "balance" };

const char *zvs_pg_cause_name(enum zvs_pg_cause c)
{
    return (unsigned)c < sizeof cause_names / sizeof cause_names[0] ? cause_names[c] : "?";
}

void zvs_pgroup_set_cause(struct zvs_pgroup *g, enum zvs_pg_cause cause)
{
    g->moves.cause = cause;
}

/* Sum of a bucket's bytes not yet folded into its average (relaxed: a statistic). */
static uint64_t unmeasured(const struct zvs_pgroup *g, unsigned b)
{
    return __atomic_load_n(&g->dist.bucket_bytes[b], __ATOMIC_RELAXED);
}

/* ---- the table: rules 1 to 3 --------------------------------------------------------- */

/* Rule 1. If any member distributes, every bucket is bound to a distributing member (and
 * its port); if none does, every entry is ZVS_PG_NO_PORT / ZVS_PG_NO_SLOT and so is the
 * flood port. Every operation keeps it; publish asserts it of the table it publishes. */
static bool bound_or_none(const struct zvs_pgroup *g, const struct zvs_pg_map *m)
{
    uint8_t slots[ZVS_PG_MAX_MEMBERS];
    bool any = dist_slots(g, slots) > 0;

    if (any != (m->flood_port != ZVS_PG_NO_PORT))
        return false;
    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++) {
        uint8_t s = m->bucket_slot[b];
        if (any ? !distributing(g, s) || m->bucket_port[b] != g->member[s].port
                : s != ZVS_PG_NO_SLOT || m->bucket_port[b] != ZVS_PG_NO_PORT)
            return false;
    }
    return true;
}

/* Rule 2. Flood port (broadcast, multicast): the designated member keeps the role while it
 * distributes; when it stops, the lowest distributing slot takes over. Returns its port. */
static uint16_t keep_flood_port(struct zvs_pgroup *g)
{
    if (!distributing(g, g->flood_slot)) {
        g->flood_slot = ZVS_PG_NO_SLOT;
        for (unsigned s = 0; s < ZVS_PG_MAX_MEMBERS && g->flood_slot == ZVS_PG_NO_SLOT; s++)
            if (distributing(g, s))
                g->flood_slot = (uint8_t)s;
    }
    return g->flood_slot == ZVS_PG_NO_SLOT ? ZVS_PG_NO_PORT : g->member[g->flood_slot].port;
}

/* Rule 3, its start: every operation copies the live table into the spare and edits the
 * spare. The table that was live stays untouched until the next operation starts editing
 * it: a reader must not hold a map across two control operations (the data path reloads
 * it every burst of 32). */
static struct zvs_pg_map *spare_begin(struct zvs_pgroup *g)
{
    struct zvs_pg_map *spare = g->dist.live == &g->table[0] ? &g->table[1] : &g->table[0];
    memcpy(spare, g->dist.live, sizeof(*spare));
    return spare;
}

static void count_buckets(struct zvs_pgroup *g)
{
    for (unsigned s = 0; s < ZVS_PG_MAX_MEMBERS; s++)
        g->member[s].buckets = 0;
    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++) {
        uint8_t s = g->dist.live->bucket_slot[b];
        if (s < ZVS_PG_MAX_MEMBERS)
            g->member[s].buckets++;
    }
}

/* Rule 3. Swap, don't patch: the edited spare is published with one release store of the
 * `live` pointer, at most once per operation and only when a binding or the flood port
 * changed (generation + 1). The data path acquire-loads the pointer once per burst. */
static bool publish(struct zvs_pgroup *g, struct zvs_pg_map *spare)
{
    spare->flood_port = keep_flood_port(g);
    if (spare->flood_port == g->dist.live->flood_port &&
        memcmp(spare->bucket_port, g->dist.live->bucket_port, sizeof(spare->bucket_port)) == 0 &&
        memcmp(spare->bucket_slot, g->dist.live->bucket_slot, sizeof(spare->bucket_slot)) == 0)
        return false;
    assert(bound_or_none(g, spare));
    spare->generation = g->dist.live->generation + 1;
    __atomic_store_n(&g->dist.live, spare, __ATOMIC_RELEASE);
    g->stats.publishes++;
    count_buckets(g);
    return true;
}

/* ---- membership: rules 4 and 5 ------------------------------------------------------- */

/* Nothing was ever sent through the map (or it decayed away): moving costs nothing. */
static bool idle(const struct zvs_pgroup *g)
{
    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++)
        if (g->bucket_load[b] > 0.0 || unmeasured(g, b))
            return false;
    return true;
}

/* Rule 4, the first member or an idle group (no bucket ever carried a byte, or its average
 * decayed to zero: nothing to reorder): the map is laid out again as bucket b -> (b mod
 * n)-th distributing member in slot order, at once, so sequential MAC suffixes land on
 * different ports. Pending moves are dropped; no hold-down: those buckets carried
 * nothing yet. */
static void relayout_idle(struct zvs_pgroup *g, struct zvs_pg_map *spare)
{
    uint8_t slots[ZVS_PG_MAX_MEMBERS];
    unsigned n = dist_slots(g, slots);

    zvs_pgm_cancel_all(&g->moves);
    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++) {
        uint8_t old = spare->bucket_slot[b];
        uint8_t slot = n ? slots[b % n] : ZVS_PG_NO_SLOT;
        if (old == slot)
            continue;
        zvs_pgm_move(&g->moves, spare, b, slot);
        if (old != ZVS_PG_NO_SLOT)
            g->stats.membership_moves++;
    }
}

/* Is a bucket's load lower than another's (load, then bytes not yet measured)? */
static bool lighter(const struct zvs_pgroup *g, unsigned a, unsigned b)
{
    if (g->bucket_load[a] != g->bucket_load[b])
        return g->bucket_load[a] < g->bucket_load[b];
    return unmeasured(g, a) < unmeasured(g, b);
}

/* Rule 4, a busy group: the member takes floor(256 / n) buckets, one at a time from the
 * member holding most (counting pending moves where they go), choosing the least loaded
 * bucket (ties: one that b mod n would give it, then the lowest); those moves go through
 * the Marker flush. */
static void take_fair_share(struct zvs_pgroup *g, struct zvs_pg_map *spare, unsigned slot,
                            uint64_t now)
{
    uint8_t slots[ZVS_PG_MAX_MEMBERS];
    unsigned n = dist_slots(g, slots), rank = 0, count[ZVS_PG_MAX_MEMBERS] = { 0 };
    bool chosen[ZVS_PG_BUCKETS] = { false };
    struct zvs_pgb_move mv[ZVS_PG_BUCKETS];
    unsigned n_mv = 0;

    for (unsigned i = 0; i < n; i++)
        if (slots[i] == slot)
            rank = i;
    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++) {
        uint8_t s = zvs_pgm_effective_slot(&g->moves, spare, b);
        assert(s < ZVS_PG_MAX_MEMBERS);     /* others distribute: every bucket is bound */
        if (s < ZVS_PG_MAX_MEMBERS)
            count[s]++;
    }
    for (unsigned share = ZVS_PG_BUCKETS / n; count[slot] < share; ) {
        int donor = -1, best = -1;
        for (unsigned s = 0; s < ZVS_PG_MAX_MEMBERS; s++)
            if (s != slot && distributing(g, s) && (donor < 0 || count[s] > count[donor]))
                donor = (int)s;
        if (donor < 0 || count[donor] <= 1)
            break;
        for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++) {
            if (chosen[b] || zvs_pgm_is_pending(&g->moves, b) || spare->bucket_slot[b] != donor)
                continue;
            if (best < 0 || lighter(g, b, (unsigned)best) ||
                (!lighter(g, (unsigned)best, b) &&
                 b % n == rank && (unsigned)best % n != rank))
                best = (int)b;
        }
        if (best < 0) {                 /* donor's buckets all pending elsewhere */
            count[donor] = 0;
            continue;
        }
        chosen[best] = true;
        count[donor]--;
        count[slot]++;
        mv[n_mv++] = (struct zvs_pgb_move){ (uint8_t)best, (uint8_t)donor, (uint8_t)slot };
    }
    zvs_pgm_start(&g->moves, spare, mv, n_mv, ZVS_PGM_MEMBERSHIP, now);
}

/* Rule 4. Start distributing: the first member takes every bucket at once, an idle group
 * is laid out again, a busy one gives the member its fair share through the flush. */
static void start_distributing(struct zvs_pgroup *g, struct zvs_pg_map *spare, unsigned slot,
                               uint64_t now)
{
    uint8_t slots[ZVS_PG_MAX_MEMBERS];

    g->member[slot].distributing = true;
    g->dist.member_port[slot] = g->member[slot].port;
    if (dist_slots(g, slots) == 1 || idle(g))
        relayout_idle(g, spare);
    else
        take_fair_share(g, spare, slot, now);
}

/* The survivor for an orphaned bucket: fewest buckets, then least load, then lowest slot. */
static int survivor(const struct zvs_pgroup *g, const unsigned *count, const double *load)
{
    int best = -1;
    for (unsigned s = 0; s < ZVS_PG_MAX_MEMBERS; s++) {
        if (!distributing(g, s))
            continue;
        if (best < 0 || count[s] < count[best] ||
            (count[s] == count[best] && load[s] < load[best]))
            best = (int)s;
    }
    return best;
}

/* Rule 5, the buckets left on the member: each goes to a survivor (fewest buckets first,
 * then lowest measured load, then lowest slot), with no Marker (the link is gone), and is
 * held down; with no survivor it is bound to nothing. */
static void fail_over(struct zvs_pgroup *g, struct zvs_pg_map *spare, unsigned dead,
                      uint64_t now)
{
    unsigned count[ZVS_PG_MAX_MEMBERS] = { 0 };
    double load[ZVS_PG_MAX_MEMBERS] = { 0 };

    for (unsigned s = 0; s < ZVS_PG_MAX_MEMBERS; s++)
        load[s] = g->member[s].out_bps;
    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++)
        if (spare->bucket_slot[b] < ZVS_PG_MAX_MEMBERS)
            count[spare->bucket_slot[b]]++;
    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++) {
        if (spare->bucket_slot[b] != dead)
            continue;
        int s = survivor(g, count, load);
        zvs_pgm_move(&g->moves, spare, b, s < 0 ? ZVS_PG_NO_SLOT : (uint8_t)s);
        if (s < 0)
            continue;
        count[s]++;
        load[s] += 8.0 * g->bucket_load[b];
        g->stats.failover_moves++;
        zvs_pgm_hold(&g->moves, b, now);
    }
}

/* Rule 5. Stop distributing (failure, LEAVE): in the same call every bucket of the member
 * moves to the survivors. Its pending moves first: those off it complete at once, those
 * onto it are cancelled (pgroup_moves_impl.h). */
static void stop_distributing(struct zvs_pgroup *g, struct zvs_pg_map *spare, unsigned dead,
                              uint64_t now)
{
    g->member[dead].distributing = false;
    g->dist.member_port[dead] = ZVS_PG_NO_PORT;
    zvs_pgm_member_stopped(&g->moves, spare, dead, now);
    fail_over(g, spare, dead, now);
}

/* ---- the pass: rules 6 and 7 --------------------------------------------------------- */

/* Rule 6, buckets: a bucket's sample is bytes since the previous pass / elapsed seconds;
 * its average is new = 0.5 * old + 0.5 * sample (the first pass takes the sample as is).
 * Half-life one interval, like OVS halving its counters: a step change is 75 % visible
 * after two passes, and a steady load is exact, so balancing converges in one pass and
 * does not drift afterwards. The counters are read and zeroed with an atomic exchange; the
 * data path may use plain adds (a racing add may be lost: a few bytes of a statistic).
 * Adds each member's buckets' samples, in bit/s, to est[slot]. */
static void decay_bucket_loads(struct zvs_pgroup *g, uint64_t now, double *est)
{
    double secs = (double)(now - g->meas_start) / NS_PER_S;

    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++) {
        uint64_t bytes = __atomic_exchange_n(&g->dist.bucket_bytes[b], 0, __ATOMIC_RELAXED);
        double sample = secs > 0 ? (double)bytes / secs : 0.0;
        g->bucket_load[b] = g->measured ? DECAY_OLD * g->bucket_load[b] +
                                          (1.0 - DECAY_OLD) * sample
                                        : sample;
        uint8_t s = g->dist.live->bucket_slot[b];
        if (s < ZVS_PG_MAX_MEMBERS)
            est[s] += 8.0 * sample;
    }
    g->measured = true;
    g->meas_start = now;
}

/* Rule 6, members: a member's out/in bit/s is its counter difference over the time since
 * its previous sample; a member without a previous sample (just joined) is estimated from
 * its buckets' samples `est` (outbound only). Counters that went backwards restart the
 * baseline. */
static void measure_members(struct zvs_pgroup *g, uint64_t now,
                            const struct zvs_pg_sample *samples, int n, const double *est)
{
    for (int i = 0; i < n; i++) {
        int s = zvs_pgroup_slot_of(g, samples[i].port);
        if (s < 0)
            continue;
        struct zvs_pg_member *m = &g->member[s];
        double el = (double)(now - g->base_time[s]) / NS_PER_S;
        if (g->baseline[s] && el > 0 && samples[i].out_bytes >= m->last_out_bytes &&
            samples[i].in_bytes >= m->last_in_bytes) {
            m->out_bps = 8.0 * (double)(samples[i].out_bytes - m->last_out_bytes) / el;
            m->in_bps = 8.0 * (double)(samples[i].in_bytes - m->last_in_bytes) / el;
        } else {
            m->out_bps = est[s];
            m->in_bps = 0.0;
        }
        m->last_out_bytes = samples[i].out_bytes;
        m->last_in_bytes = samples[i].in_bytes;
        g->baseline[s] = true;
        g->base_time[s] = now;
    }
}

/* Rule 6. Each pass folds the counters into the averages and measures the members. */
static void measure(struct zvs_pgroup *g, uint64_t now, const struct zvs_pg_sample *samples,
                    int n)
{
    double est[ZVS_PG_MAX_MEMBERS] = { 0 };

    decay_bucket_loads(g, now, est);
    measure_members(g, now, samples, n, est);
}

/* Between passes: the first sample of a member that has none is its counter baseline, so
 * the first pass after a JOIN already knows its inbound. */
static void take_baselines(struct zvs_pgroup *g, uint64_t now,
                           const struct zvs_pg_sample *samples, int n)
{
    for (int i = 0; i < n; i++) {
        int s = zvs_pgroup_slot_of(g, samples[i].port);
        if (s < 0 || g->baseline[s])
            continue;
        g->member[s].last_out_bytes = samples[i].out_bytes;
        g->member[s].last_in_bytes = samples[i].in_bytes;
        g->baseline[s] = true;
        g->base_time[s] = now;
    }
}

/* Rule 7. The pass's policy decision (pgroup_balance.h), started in `spare` (which holds
 * the timed-out flushes); its moves go through the flush. A bucket held down or pending is
 * not moved (zvs_pgm_holddown). */
static void rebalance(struct zvs_pgroup *g, struct zvs_pg_map *spare, uint64_t now)
{
    struct zvs_pgb_input in = {
        .bucket_load = g->bucket_load, .bucket_slot = spare->bucket_slot, .now = now,
        .lbt_percent = g->params.lbt_percent, .load = g->params.load,
    };
    uint64_t hold[ZVS_PG_BUCKETS];
    struct zvs_pgb_move mv[ZVS_PGB_MAX_MOVES];
    struct zvs_pgb_report rep;

    /* A port's outbound load as the policy sees it is the sum of its buckets' loads, the
     * very numbers a move transfers: measured port rates and decayed bucket averages
     * differ while a load changes, and mixing them makes the plan move too much (both
     * heavy buckets of a skew instead of one). The measured rates stay for QUERY.
     * Inbound (POLICY LOAD TOTAL) is the member's measured rate over the interval: no
     * bucket carries it, the partner chose the port, and no move of ours changes it. */
    double bucket_bits[ZVS_PG_MAX_MEMBERS] = { 0 };
    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++)
        if (spare->bucket_slot[b] < ZVS_PG_MAX_MEMBERS)
            bucket_bits[spare->bucket_slot[b]] += 8.0 * g->bucket_load[b];
    for (unsigned s = 0; s < ZVS_PG_MAX_MEMBERS; s++) {
        const struct zvs_pg_member *m = &g->member[s];
        in.member[s] = (struct zvs_pgb_member){
            .eligible = distributing(g, s), .capacity_bps = m->capacity_bps,
            .out_bps = bucket_bits[s], .in_bps = m->in_bps,
        };
        /* the floor below which an imbalance is not worth a move (pgroup_balance.h) */
        if (in.member[s].eligible && m->capacity_bps) {
            double floor = (double)m->capacity_bps * ZVS_PGB_MIN_UTIL_PERCENT / 100.0;
            if (in.min_bps == 0.0 || floor < in.min_bps)
                in.min_bps = floor;
        }
    }
    if (in.min_bps == 0.0)
        in.min_bps = ZVS_PGB_MIN_BPS;
    zvs_pgm_holddown(&g->moves, hold);
    in.holddown_until = hold;
    unsigned n = zvs_pgb_plan(g->params.policy, &in, mv, &rep);
    if (rep.heavy)
        g->stats.heavy_buckets++;
    zvs_pgm_start(&g->moves, spare, mv, n, ZVS_PGM_PASS, now);
}

/* An INTERVAL pass: measure, then rebalance with the moves' cause BALANCE. */
static void pass(struct zvs_pgroup *g, struct zvs_pg_map *spare, uint64_t now,
                 const struct zvs_pg_sample *samples, int n)
{
    measure(g, now, samples, n);
    g->next_pass = now + (uint64_t)g->params.interval_s * NS_PER_S;
    g->stats.passes++;
    enum zvs_pg_cause was = g->moves.cause;
    g->moves.cause = ZVS_PG_CAUSE_BALANCE;
    rebalance(g, spare, now);
    g->moves.cause = was;
}

/* ---- rule 8 -------------------------------------------------------------------------- */

/* Rule 8. Clock: the first call that brings a `now` (join, set_state, run, ...) starts the
 * pass clock; set_interval restarts it. */
static void clock_start(struct zvs_pgroup *g, uint64_t now)
{
    if (g->clock_started)
        return;
    g->clock_started = true;
    g->meas_start = now;
    g->next_pass = now + (uint64_t)g->params.interval_s * NS_PER_S;
}

/* ---- public: lifecycle --------------------------------------------------------------- */

static bool params_ok(const struct zvs_pg_params *p)
{
    return (unsigned)p->hash <= ZVS_PG_HASH_UDP_SPORT && (unsigned)p->policy <= ZVS_PG_POLICY_LBT &&
           (unsigned)p->load <= ZVS_PG_LOAD_OUTBOUND && p->interval_s <= ZVS_PG_INTERVAL_MAX_S && p->lbt_percent <= 100;
}

struct zvs_pgroup *zvs_pgroup_create(const struct zvs_pg_params *params,
                                     const struct zvs_pg_ops *ops, void *arg)
{
    struct zvs_pgroup *g = NULL;

    if (!params || !params_ok(params))
        goto out;
    g = aligned_alloc(64, sizeof(*g) + (64 - sizeof(*g) % 64) % 64);
    if (!g)
        goto out;
    memset(g, 0, sizeof(*g));
    g->params = *params;
    g->params.name[sizeof(g->params.name) - 1] = '\0';
    if (g->params.lbt_percent == 0)
        g->params.lbt_percent = ZVS_PGB_LBT_PERCENT;
    if (ops)
        g->ops = *ops;
    g->arg = arg;
    zvs_pgm_init(&g->moves, g->member, &g->params, &g->ops, arg, &g->stats);
    for (unsigned t = 0; t < 2; t++) {
        for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++) {
            g->table[t].bucket_port[b] = ZVS_PG_NO_PORT;
            g->table[t].bucket_slot[b] = ZVS_PG_NO_SLOT;
        }
        g->table[t].flood_port = ZVS_PG_NO_PORT;
    }
    g->dist.live = &g->table[0];
    g->dist.hash = g->params.hash;
    for (unsigned s = 0; s < ZVS_PG_MAX_MEMBERS; s++)
        g->dist.member_port[s] = ZVS_PG_NO_PORT;
    g->flood_slot = ZVS_PG_NO_SLOT;
    g->next_pass = ZVS_PG_NEVER;
out:
    return g;
}

void zvs_pgroup_destroy(struct zvs_pgroup *g)
{
    free(g);
}

const struct zvs_pg_params *zvs_pgroup_params(const struct zvs_pgroup *g)
{
    return &g->params;
}

/* ---- public: membership -------------------------------------------------------------- */

int zvs_pgroup_slot_of(const struct zvs_pgroup *g, uint16_t port)
{
    for (unsigned s = 0; s < ZVS_PG_MAX_MEMBERS; s++)
        if (g->member[s].used && g->member[s].port == port)
            return (int)s;
    return -ENOENT;
}

int zvs_pgroup_join(struct zvs_pgroup *g, uint16_t port, const char *rdev,
                    uint64_t capacity_bps, uint64_t now)
{
    if (port == ZVS_PG_NO_PORT)
        return -EINVAL;
    if (zvs_pgroup_slot_of(g, port) >= 0)
        return -EEXIST;
    for (unsigned s = 0; s < ZVS_PG_MAX_MEMBERS; s++) {
        struct zvs_pg_member *m = &g->member[s];
        if (m->used)
            continue;
        clock_start(g, now);
        memset(m, 0, sizeof(*m));
        m->used = true;
        m->port = port;
        snprintf(m->rdev, sizeof(m->rdev), "%s", rdev ? rdev : "");
        m->capacity_bps = capacity_bps;
        g->baseline[s] = false;
        return (int)s;
    }
    return -ENOSPC;
}

int zvs_pgroup_leave(struct zvs_pgroup *g, uint16_t port, uint64_t now)
{
    int slot = zvs_pgroup_slot_of(g, port);

    if (slot < 0)
        return slot;
    clock_start(g, now);
    if (g->member[slot].distributing) {
        struct zvs_pg_map *spare = spare_begin(g);
        enum zvs_pg_cause was = g->moves.cause;
        g->moves.cause = ZVS_PG_CAUSE_LEAVE;
        stop_distributing(g, spare, (unsigned)slot, now);
        g->moves.cause = was;
        publish(g, spare);
    }
    memset(&g->member[slot], 0, sizeof(g->member[slot]));
    g->baseline[slot] = false;
    return 0;
}

int zvs_pgroup_set_state(struct zvs_pgroup *g, uint16_t port, bool collecting,
                         bool distributing_now, uint64_t now)
{
    int slot = zvs_pgroup_slot_of(g, port);

    if (slot < 0)
        return slot;
    clock_start(g, now);
    g->member[slot].collecting = collecting;
    if (g->member[slot].distributing == distributing_now)
        return 0;
    struct zvs_pg_map *spare = spare_begin(g);
    if (distributing_now)
        start_distributing(g, spare, (unsigned)slot, now);
    else
        stop_distributing(g, spare, (unsigned)slot, now);
    publish(g, spare);
    return 0;
}

/* ---- public: settings ---------------------------------------------------------------- */

int zvs_pgroup_set_interval(struct zvs_pgroup *g, uint32_t interval_s, uint64_t now)
{
    if (interval_s > ZVS_PG_INTERVAL_MAX_S)
        return -EINVAL;
    clock_start(g, now);
    g->params.interval_s = interval_s;
    g->next_pass = now + (uint64_t)interval_s * NS_PER_S;
    return 0;
}

void zvs_pgroup_set_hash(struct zvs_pgroup *g, enum zvs_pg_hash hash)
{
    if ((unsigned)hash <= ZVS_PG_HASH_UDP_SPORT)
        g->params.hash = g->dist.hash = hash;
}

void zvs_pgroup_set_policy(struct zvs_pgroup *g, enum zvs_pg_policy policy)
{
    if ((unsigned)policy <= ZVS_PG_POLICY_LBT)
        g->params.policy = policy;
}

void zvs_pgroup_set_load(struct zvs_pgroup *g, enum zvs_pg_load load)
{
    if ((unsigned)load <= ZVS_PG_LOAD_OUTBOUND)
        g->params.load = load;
}

void zvs_pgroup_set_lbt_percent(struct zvs_pgroup *g, unsigned percent)
{
    if (percent <= 100)
        g->params.lbt_percent = percent ? percent : ZVS_PGB_LBT_PERCENT;
}

/* ---- public: Marker flush and housekeeping ------------------------------------------- */

int zvs_pgroup_marker_answered(struct zvs_pgroup *g, uint16_t port, uint32_t xid,
                               uint64_t now)
{
    int slot = zvs_pgroup_slot_of(g, port);
    struct zvs_pg_map *spare;

    if (slot < 0 || zvs_pgm_pending(&g->moves) == 0)
        return -ENOENT;
    spare = spare_begin(g);
    if (zvs_pgm_answered(&g->moves, spare, (unsigned)slot, xid) == 0)
        return -ENOENT;
    publish(g, spare);
    return 0;
}

/* Timed-out flushes and the pass share one spare: at most one publish per call. */
int zvs_pgroup_run(struct zvs_pgroup *g, uint64_t now, const struct zvs_pg_sample *samples,
                   int n)
{
    struct zvs_pg_map *spare = spare_begin(g);
    int ran = 0;

    clock_start(g, now);
    zvs_pgm_expire(&g->moves, spare, now);
    if (!samples || n < 0)
        n = 0;
    if (g->params.interval_s && now >= g->next_pass && samples) {
        pass(g, spare, now, samples, n);
        ran = 1;
    } else {
        take_baselines(g, now, samples, n);
    }
    publish(g, spare);
    return ran;
}

uint64_t zvs_pgroup_next_wakeup(const struct zvs_pgroup *g)
{
    uint64_t t = ZVS_PG_NEVER, flush = zvs_pgm_next_deadline(&g->moves);

    if (g->params.interval_s && g->clock_started)
        t = g->next_pass;
    return flush < t ? flush : t;
}

/* ---- public: read side --------------------------------------------------------------- */

const struct zvs_pg_member *zvs_pgroup_member(const struct zvs_pgroup *g, unsigned slot)
{
    if (slot >= ZVS_PG_MAX_MEMBERS || !g->member[slot].used)
        return NULL;
    return &g->member[slot];
}

unsigned zvs_pgroup_members(const struct zvs_pgroup *g)
{
    unsigned n = 0;
    for (unsigned s = 0; s < ZVS_PG_MAX_MEMBERS; s++)
        n += g->member[s].used;
    return n;
}

unsigned zvs_pgroup_distributing(const struct zvs_pgroup *g)
{
    unsigned n = 0;
    for (unsigned s = 0; s < ZVS_PG_MAX_MEMBERS; s++)
        n += distributing(g, s);
    return n;
}

const struct zvs_pg_stats *zvs_pgroup_stats(const struct zvs_pgroup *g)
{
    return &g->stats;
}

double zvs_pgroup_bucket_load(const struct zvs_pgroup *g, unsigned bucket)
{
    return bucket < ZVS_PG_BUCKETS ? g->bucket_load[bucket] : 0.0;
}

unsigned zvs_pgroup_pending_moves(const struct zvs_pgroup *g)
{
    return zvs_pgm_pending(&g->moves);
}

const char *zvs_pg_hash_name(enum zvs_pg_hash h)
{
    switch (h) {
    case ZVS_PG_HASH_SRC:     return "SRC";
    case ZVS_PG_HASH_SRC_DST: return "SRC-DST";
    case ZVS_PG_HASH_UDP_SPORT: return "UDP-SPORT";
    default:                  return "DST";
    }
}

const char *zvs_pg_policy_name(enum zvs_pg_policy p)
{
    return p == ZVS_PG_POLICY_LBT ? "LBT" : "LOAD";
}

const char *zvs_pg_load_name(enum zvs_pg_load l)
{
    return l == ZVS_PG_LOAD_OUTBOUND ? "OUTBOUND" : "TOTAL";
}

const char *zvs_pg_policy_str(const struct zvs_pg_params *p, char *buf, size_t size)
{
    if (p->policy == ZVS_PG_POLICY_LBT)
        snprintf(buf, size, "LBT %u", p->lbt_percent ? p->lbt_percent : ZVS_PGB_LBT_PERCENT);
    else
        snprintf(buf, size, "LOAD %s", zvs_pg_load_name(p->load));
    return buf;
}

const struct zvs_pg_map *zvs_pgroup_map(const struct zvs_pgroup *g)
{
    return __atomic_load_n(&g->dist.live, __ATOMIC_ACQUIRE);
}

uint64_t *zvs_pgroup_bucket_bytes(struct zvs_pgroup *g)
{
    return g->dist.bucket_bytes;
}

struct zvs_pg_dist *zvs_pgroup_dist(struct zvs_pgroup *g)
{
    return &g->dist;
}

const char *zvs_pg_interval_str(uint32_t interval_s, char *buf, size_t size)
{
    if (interval_s)
        snprintf(buf, size, "%u", interval_s);
    else
        snprintf(buf, size, "OFF");
    return buf;
}
