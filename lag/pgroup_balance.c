/* Port group rebalancing policies: which buckets an INTERVAL pass moves.
 *
 * Owns: nothing but the decision. pgroup.c measures, calls zvs_pgb_plan once per pass and
 * carries out the moves (through the Marker flush). Everything here is a pure function of
 * its input, so a test can state a load picture and assert the exact moves.
 *
 * LOAD (the default), after OVS bond_rebalance with a z/VM INTERVAL:
 *  - Port load (TOTAL, the default) = out_bps + in_bps, both at full weight. Outbound is
 *    what we move; inbound is what the partner's hash puts on the port and we cannot
 *    move, so the pass balances (fixed inbound + movable outbound) per port: outbound
 *    goes to the port the physical switch uses less for inbound. That is the report's
 *    second FCX240 ("the VSwitch has directed the outbound data to the 2902 device") and
 *    suits an OSA port, whose adapter has one frame ceiling for both directions
 *    (tests/switchmodel: the report's RR figures show it), so a byte in either direction
 *    uses the same port. Full weight, not a fraction: no measurement supports a
 *    fraction, and with one (an earlier version used 0.5) the pass stops while the
 *    inbound port still carries more in total than the other.
 *    OUTBOUND: port load = out_bps, inbound ignored (OVS's bond_rebalance counts only
 *    what it sends); for ports whose directions do not share a limit.
 *  - Start when max/mean > 1.10, then continue down to 1.05 (hysteresis): a picture that
 *    settles anywhere in 1.05..1.10 is left alone, so measurement noise does not move
 *    buckets back and forth every interval.
 *  - Greedy step: from = busiest, to = least busy; move the movable bucket of `from` whose
 *    load is closest to (from - to) / 2 and strictly below (from - to). Every step lowers
 *    the pair's maximum and the sum of squared loads, so with a steady load the process
 *    cannot cycle. If `from` has no such bucket it is set aside (its load is made of what
 *    we cannot move) and the rest is balanced around it, again starting only above 1.10.
 *  - A bucket whose load alone exceeds a port's fair share (total / ports) is reported
 *    (heavy) and never moved: wherever it goes that port is the busiest, moving it would
 *    only shift the problem and reorder its conversation.
 *  - A port's last bucket and a bucket in hold-down never move; at most 32 moves a pass.
 * LBT, after VMware load-based teaming: a port whose mean utilisation out_bps/capacity
 * exceeds lbt_percent sheds buckets to the port of lowest utilisation, only while the
 * bucket fits under that port's own threshold (room). Utilisation, not bit/s, so a 1G and
 * a 10G port are compared fairly: a 10G port at 50 % is not overloaded though it carries
 * five times a 1G port at 100 %. The bucket chosen is the smallest that brings the port
 * back under its threshold, else the largest that fits.
 *
 * Units: bucket loads are bytes/s (what the data path counts), port rates bit/s; a
 * bucket's share of a port is 8 * its load.
 */
#include "lag/pgroup_balance.h"

#include <assert.h>
#include <string.h>

struct plan {
    double   load[ZVS_PG_MAX_MEMBERS];  /* bit/s, updated as moves are planned */
    unsigned count[ZVS_PG_MAX_MEMBERS]; /* buckets bound, updated likewise */
    bool     fixed[ZVS_PG_BUCKETS];     /* not movable in this pass */
};

double zvs_pgb_port_load(const struct zvs_pgb_member *m, enum zvs_pg_load load)
{
    return load == ZVS_PG_LOAD_OUTBOUND ? m->out_bps : m->out_bps + m->in_bps;
}

double zvs_pgb_ratio(const double *load, const bool *eligible, unsigned n)
{
    double sum = 0.0, max = 0.0;
    unsigned k = 0;

    for (unsigned i = 0; i < n; i++) {
        if (!eligible[i])
            continue;
        sum += load[i];
        if (k == 0 || load[i] > max)
            max = load[i];
        k++;
    }
    if (k == 0 || sum <= 0.0)
        return 1.0;
    return max / (sum / k);
}

static unsigned move_cap(const struct zvs_pgb_input *in)
{
    if (in->max_moves == 0 || in->max_moves > ZVS_PGB_MAX_MOVES)
        return ZVS_PGB_MAX_MOVES;
    return in->max_moves;
}

static bool slot_ok(const struct zvs_pgb_input *in, uint8_t slot)
{
    return slot < ZVS_PG_MAX_MEMBERS && in->member[slot].eligible;
}

/* Count buckets per slot and mark what may not move: unbound, bound to a slot that does
 * not distribute, idle, or in hold-down. */
static void plan_init(const struct zvs_pgb_input *in, struct plan *p, bool with_load)
{
    memset(p, 0, sizeof(*p));
    for (unsigned s = 0; s < ZVS_PG_MAX_MEMBERS; s++)
        if (in->member[s].eligible && with_load)
            p->load[s] = zvs_pgb_port_load(&in->member[s], in->load);
    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++) {
        uint8_t s = in->bucket_slot[b];
        if (slot_ok(in, s))
            p->count[s]++;
        p->fixed[b] = !slot_ok(in, s) || !(in->bucket_load[b] > 0.0) ||
                      (in->holddown_until && in->now < in->holddown_until[b]);
    }
}

static void report_init(struct zvs_pgb_report *rep)
{
    memset(rep, 0, sizeof(*rep));
    rep->heavy_bucket = -1;
}

static void plan_move(const struct zvs_pgb_input *in, struct plan *p, unsigned b,
                      unsigned from, unsigned to, struct zvs_pgb_move *mv)
{
    double bits = 8.0 * in->bucket_load[b];

    assert(p->count[from] > 1);
    p->load[from] -= bits;
    p->load[to] += bits;
    p->count[from]--;
    p->count[to]++;
    p->fixed[b] = true;                 /* once per pass */
    mv->bucket = (uint8_t)b;
    mv->from = (uint8_t)from;
    mv->to = (uint8_t)to;
}

/* ---- LOAD ---------------------------------------------------------------------------- */

/* Busiest and least busy among `active`; false when fewer than two. */
static bool extremes(const struct plan *p, const bool *active, unsigned *from, unsigned *to)
{
    int hi = -1, lo = -1;

    for (unsigned s = 0; s < ZVS_PG_MAX_MEMBERS; s++) {
        if (!active[s])
            continue;
        if (hi < 0 || p->load[s] > p->load[hi])
            hi = (int)s;
        if (lo < 0 || p->load[s] < p->load[lo])
            lo = (int)s;
    }
    if (hi < 0 || hi == lo)
        return false;
    *from = (unsigned)hi;
    *to = (unsigned)lo;
    return true;
}

/* The movable bucket of `from` closest to half the difference, below the difference. */
static int pick_half(const struct zvs_pgb_input *in, const struct plan *p, unsigned from,
                     double diff)
{
    int best = -1;
    double best_err = 0.0;

    if (p->count[from] <= 1)
        return -1;
    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++) {
        if (p->fixed[b] || in->bucket_slot[b] != from)
            continue;
        double bits = 8.0 * in->bucket_load[b];
        if (!(bits < diff))
            continue;
        double err = bits > diff / 2 ? bits - diff / 2 : diff / 2 - bits;
        if (best < 0 || err < best_err) {
            best = (int)b;
            best_err = err;
        }
    }
    return best;
}

unsigned zvs_pgb_plan_load(const struct zvs_pgb_input *in, struct zvs_pgb_move *moves,
                           struct zvs_pgb_report *rep)
{
    struct plan p;
    bool active[ZVS_PG_MAX_MEMBERS];
    unsigned n_active = 0, n = 0, cap = move_cap(in);
    double total = 0.0, threshold = ZVS_PGB_START_RATIO;

    report_init(rep);
    plan_init(in, &p, true);
    for (unsigned s = 0; s < ZVS_PG_MAX_MEMBERS; s++) {
        active[s] = in->member[s].eligible;
        n_active += active[s];
        total += active[s] ? p.load[s] : 0.0;
    }
    rep->ratio_before = zvs_pgb_ratio(p.load, active, ZVS_PG_MAX_MEMBERS);
    if (n_active >= 2 && total > 0.0) {
        double fair = total / n_active, heaviest = 0.0;
        for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++) {
            double bits = 8.0 * in->bucket_load[b];
            if (!slot_ok(in, in->bucket_slot[b]) || !(bits > fair))
                continue;
            p.fixed[b] = true;          /* reported, not chased */
            if (!rep->heavy || bits > heaviest) {
                rep->heavy = true;
                rep->heavy_bucket = (int)b;
                heaviest = bits;
            }
        }
    }
    while (n < cap) {
        unsigned from, to;
        if (!extremes(&p, active, &from, &to))
            break;
        if (!(zvs_pgb_ratio(p.load, active, ZVS_PG_MAX_MEMBERS) > threshold))
            break;
        if (n == 0 && p.load[from] < in->min_bps)
            break;                      /* trickles: not worth a move (see the header) */
        threshold = ZVS_PGB_STOP_RATIO;
        int b = pick_half(in, &p, from, p.load[from] - p.load[to]);
        if (b < 0) {
            active[from] = false;       /* balance the rest around it */
            threshold = ZVS_PGB_START_RATIO;
            continue;
        }
        plan_move(in, &p, (unsigned)b, from, to, &moves[n++]);
    }
    for (unsigned s = 0; s < ZVS_PG_MAX_MEMBERS; s++)
        active[s] = in->member[s].eligible;
    rep->ratio_after = zvs_pgb_ratio(p.load, active, ZVS_PG_MAX_MEMBERS);
    rep->n_moves = n;
    return n;
}

/* ---- LBT ----------------------------------------------------------------------------- */

static double util(const struct plan *p, const struct zvs_pgb_input *in, unsigned s)
{
    return p->load[s] / (double)in->member[s].capacity_bps;
}

static bool lbt_member(const struct zvs_pgb_input *in, unsigned s)
{
    return in->member[s].eligible && in->member[s].capacity_bps > 0;
}

/* The smallest movable bucket of `from` that ends the overload and fits in `room`, else the
 * largest that fits. */
static int pick_lbt(const struct zvs_pgb_input *in, const struct plan *p, unsigned from,
                    double excess, double room)
{
    int cover = -1, largest = -1;

    if (p->count[from] <= 1)
        return -1;
    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++) {
        if (p->fixed[b] || in->bucket_slot[b] != from)
            continue;
        double bits = 8.0 * in->bucket_load[b];
        if (bits > room)
            continue;
        if (bits >= excess && (cover < 0 || bits < 8.0 * in->bucket_load[cover]))
            cover = (int)b;
        if (largest < 0 || bits > 8.0 * in->bucket_load[largest])
            largest = (int)b;
    }
    return cover >= 0 ? cover : largest;
}

static double max_util(const struct plan *p, const struct zvs_pgb_input *in)
{
    double max = 0.0;
    for (unsigned s = 0; s < ZVS_PG_MAX_MEMBERS; s++)
        if (lbt_member(in, s) && util(p, in, s) > max)
            max = util(p, in, s);
    return max;
}

unsigned zvs_pgb_plan_lbt(const struct zvs_pgb_input *in, struct zvs_pgb_move *moves,
                          struct zvs_pgb_report *rep)
{
    struct plan p;
    bool stuck[ZVS_PG_MAX_MEMBERS] = { false };
    unsigned n = 0, cap = move_cap(in);
    double thr = (in->lbt_percent ? in->lbt_percent : ZVS_PGB_LBT_PERCENT) / 100.0;

    report_init(rep);
    plan_init(in, &p, false);
    for (unsigned s = 0; s < ZVS_PG_MAX_MEMBERS; s++)
        if (in->member[s].eligible)
            p.load[s] = in->member[s].out_bps;  /* LBT: outbound utilisation */
    rep->ratio_before = max_util(&p, in);
    while (n < cap) {
        int from = -1, to = -1;
        for (unsigned s = 0; s < ZVS_PG_MAX_MEMBERS; s++)
            if (lbt_member(in, s) && !stuck[s] && util(&p, in, s) > thr &&
                (from < 0 || util(&p, in, s) > util(&p, in, (unsigned)from)))
                from = (int)s;
        if (from < 0)
            break;
        for (unsigned s = 0; s < ZVS_PG_MAX_MEMBERS; s++)
            if (lbt_member(in, s) && (int)s != from &&
                (to < 0 || util(&p, in, s) < util(&p, in, (unsigned)to)))
                to = (int)s;
        if (to < 0)
            break;
        double room = thr * (double)in->member[to].capacity_bps - p.load[to];
        double excess = p.load[from] - thr * (double)in->member[from].capacity_bps;
        int b = room > 0.0 ? pick_lbt(in, &p, (unsigned)from, excess, room) : -1;
        if (b < 0) {
            stuck[from] = true;
            continue;
        }
        plan_move(in, &p, (unsigned)b, (unsigned)from, (unsigned)to, &moves[n++]);
    }
    /* Report a bucket that alone keeps a stuck port above its threshold. */
    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++) {
        uint8_t s = in->bucket_slot[b];
        if (!slot_ok(in, s) || !stuck[s] || !lbt_member(in, s))
            continue;
        double bits = 8.0 * in->bucket_load[b];
        if (bits > thr * (double)in->member[s].capacity_bps &&
            (!rep->heavy || bits > 8.0 * in->bucket_load[rep->heavy_bucket])) {
            rep->heavy = true;
            rep->heavy_bucket = (int)b;
        }
    }
    rep->ratio_after = max_util(&p, in);
    rep->n_moves = n;
    return n;
}

unsigned zvs_pgb_plan(enum zvs_pg_policy policy, const struct zvs_pgb_input *in,
                      struct zvs_pgb_move *moves, struct zvs_pgb_report *rep)
{
    if (policy == ZVS_PG_POLICY_LBT)
        return zvs_pgb_plan_lbt(in, moves, rep);
    return zvs_pgb_plan_load(in, moves, rep);
}
