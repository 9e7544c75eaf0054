/* domain: one system's share of an IVL domain (domain.h has the rules). */
#include "ivl/domain.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct peer {
    uint32_t             node;
    bool                 have_state;
    struct zvs_ivl_state st;
};

struct zvs_ivl_domain {
    struct zvs_ivl_domain_cfg cfg;
    struct zvs_cluster       *cl;
    void                    (*changed)(void *arg);
    void                     *arg;

    enum zvs_ivl_status       alone;        /* ALONE_* when running alone, else ACTIVE */
    bool                      joined, have_view, have_quorum, quorate;
    bool                      engine_lost;  /* the engine went away after the join */
    uint64_t                  retry_at;     /* next join attempt while engine_lost */
    struct peer               peer[ZVS_CL_MAX_NODES];   /* the others in the view */
    unsigned                  npeers;

    struct zvs_ivl_member     member[ZVS_IVL_MAX_MEMBERS];
    unsigned                  nmembers;
    uint32_t                  seq;
    uint8_t                   sent[ZVS_IVL_STATE_MAX];  /* the last state sent (seq zeroed) */
    int                       sent_len;
    bool                      unsent;       /* a send the engine refused: again at run */

    enum zvs_ivl_status       status;
    struct zvs_ivl_counters   cnt;
};

static const char *const status_names[] = {
    [ZVS_IVL_ALONE_UNCONFIGURED] = "ALONE (NO IVL DOMAIN CONFIGURED)",
    [ZVS_IVL_ALONE_NO_ENGINE] = "ALONE (COROSYNC NOT RUNNING)",
    [ZVS_IVL_ALONE_JOIN_FAILED] = "ALONE (COROSYNC JOIN FAILED)",
    [ZVS_IVL_JOINING] = "JOINING",
    [ZVS_IVL_ENGINE_LOST] = "COROSYNC LOST",
    [ZVS_IVL_NO_QUORUM] = "NO QUORUM",
    [ZVS_IVL_REFUSED] = "REFUSED (GROUP DEFINITION DIFFERS)",
    [ZVS_IVL_ACTIVE] = "ACTIVE",
};

bool zvs_ivl_status_alone(enum zvs_ivl_status s)
{
    return s == ZVS_IVL_ALONE_UNCONFIGURED || s == ZVS_IVL_ALONE_NO_ENGINE ||
           s == ZVS_IVL_ALONE_JOIN_FAILED;
}

const char *zvs_ivl_status_name(enum zvs_ivl_status s)
{
    return (unsigned)s < sizeof status_names / sizeof status_names[0] ? status_names[s]
                                                                      : "?";
}

static uint32_t self_id(const struct zvs_ivl_domain *d)
{
    return d->cl ? zvs_cluster_node_id(d->cl) : 0;
}

static bool is_alone(const struct zvs_ivl_domain *d)
{
    return d->alone != ZVS_IVL_ACTIVE;
}

static void own_state(const struct zvs_ivl_domain *d, bool aggregating, struct zvs_ivl_state *s)
{
    memset(s, 0, sizeof *s);
    snprintf(s->system, sizeof s->system, "%s", d->cfg.system);
    snprintf(s->vswitch, sizeof s->vswitch, "%s", d->cfg.vswitch);
    snprintf(s->group, sizeof s->group, "%s", d->cfg.group);
    s->index = d->cfg.index;
    s->flags = (uint8_t)((aggregating ? ZVS_IVL_SF_AGGREGATING : 0) |
                         (d->cfg.shared ? ZVS_IVL_SF_SHARED : 0));
    s->def = d->cfg.def;
    s->nmembers = (uint8_t)d->nmembers;
    memcpy(s->member, d->member, sizeof s->member);
}

/* One LAG's definition, and distinct indexes (the port numbers must not collide). */
static bool agrees(const struct zvs_ivl_domain *d, const struct zvs_ivl_state *o)
{
    return strcmp(o->vswitch, d->cfg.vswitch) == 0 && strcmp(o->group, d->cfg.group) == 0 &&
           !(o->flags & ZVS_IVL_SF_SHARED) == !d->cfg.shared &&
           zvs_ivl_group_def_equal(&o->def, &d->cfg.def) && o->index != d->cfg.index;
}

/* Refused: this system disagrees with the lowest node id in the view that told its state
 * (the domain's definition), or a lower node id took the same index. */
static bool refused(const struct zvs_ivl_domain *d)
{
    const struct peer *ref = NULL;
    uint32_t me = self_id(d);
    for (unsigned i = 0; i < d->npeers; i++) {
        const struct peer *p = &d->peer[i];
        if (!p->have_state || p->node > me)
            continue;
        if (!ref || p->node < ref->node)
            ref = p;
        if (p->st.index == d->cfg.index)
            return true;
    }
    return ref && !agrees(d, &ref->st);
}

static enum zvs_ivl_status compute_status(const struct zvs_ivl_domain *d)
{
    if (is_alone(d))
        return d->alone;
    if (d->engine_lost)
        return ZVS_IVL_ENGINE_LOST;
    if (!d->joined || !d->have_view || !d->have_quorum)
        return ZVS_IVL_JOINING;
    if (!d->quorate)
        return ZVS_IVL_NO_QUORUM;
    if (refused(d))
        return ZVS_IVL_REFUSED;
    return ZVS_IVL_ACTIVE;
}

static bool status_aggregates(enum zvs_ivl_status s)
{
    return s == ZVS_IVL_ACTIVE || zvs_ivl_status_alone(s);
}

/* Tell the others this system's state: when it changed, or always (`force`: a new view,
 * whose newcomers know nothing yet). */
static void send_state(struct zvs_ivl_domain *d, bool force)
{
    if (!d->joined || !d->have_view)
        return;
    struct zvs_ivl_state s;
    uint8_t buf[ZVS_IVL_STATE_MAX];
    own_state(d, status_aggregates(d->status), &s);
    int len = zvs_ivl_state_encode(&s, buf, sizeof buf);
    if (len < 0)
        return;
    if (!force && len == d->sent_len && memcmp(buf, d->sent, (size_t)len) == 0)
        return;
    memcpy(d->sent, buf, (size_t)len);
    d->sent_len = len;
    s.seq = ++d->seq;
    len = zvs_ivl_state_encode(&s, buf, sizeof buf);
    if (len >= 0 && zvs_cluster_send(d->cl, buf, (size_t)len) == 0) {
        d->cnt.state_tx++;
        d->unsent = false;
        return;
    }
    /* Refused (CPG's flow control answers CS_ERR_TRY_AGAIN while a new view syncs, just
     * when a newcomer needs our state): sent again, whole, at the next run. */
    d->sent_len = 0;
    d->unsent = true;
    d->cnt.state_retry++;
}

/* Status again after any input; the others hear a change of ours, the owner any change. */
static void evaluate(struct zvs_ivl_domain *d, bool peers_changed)
{
    enum zvs_ivl_status s = compute_status(d);
    bool status_changed = s != d->status;
    d->status = s;
    if (status_changed)
        send_state(d, false);
    if ((status_changed || peers_changed) && d->changed)
        d->changed(d->arg);
}

static struct peer *find_peer(struct zvs_ivl_domain *d, uint32_t node)
{
    for (unsigned i = 0; i < d->npeers; i++)
        if (d->peer[i].node == node)
            return &d->peer[i];
    return NULL;
}

static void on_confchg(void *arg, const uint32_t *members, unsigned n, const uint32_t *joined,
                       unsigned njoined, const uint32_t *left, unsigned nleft)
{
    struct zvs_ivl_domain *d = arg;
    struct peer keep[ZVS_CL_MAX_NODES];
    unsigned k = 0;
    uint32_t me = self_id(d);
    for (unsigned i = 0; i < n && k < ZVS_CL_MAX_NODES; i++) {
        if (members[i] == me)
            continue;
        struct peer *old = find_peer(d, members[i]);
        keep[k++] = old ? *old : (struct peer){ .node = members[i] };
    }
    memcpy(d->peer, keep, sizeof keep);
    d->npeers = k;
    d->have_view = true;
    d->cnt.confchg++;
    (void)left;
    (void)nleft;
    evaluate(d, true);
    if (njoined)
        send_state(d, true);
}

static void on_deliver(void *arg, uint32_t from, const void *msg, size_t len)
{
    struct zvs_ivl_domain *d = arg;
    if (from == self_id(d))
        return;                         /* our own, in agreed order: nothing to learn */
    struct zvs_ivl_state s;
    int rc = zvs_ivl_state_decode(msg, len, &s);
    if (rc < 0) {
        d->cnt.state_bad[-rc]++;
        return;
    }
    struct peer *p = find_peer(d, from);
    if (!p)
        return;                         /* not in our view (virtual synchrony: cannot be) */
    d->cnt.state_rx++;
    p->st = s;
    p->have_state = true;
    evaluate(d, true);
}

static void on_quorum(void *arg, bool quorate, const uint32_t *nodes, unsigned n)
{
    struct zvs_ivl_domain *d = arg;
    d->have_quorum = true;
    d->quorate = quorate;
    (void)nodes;
    (void)n;
    evaluate(d, false);
}

#define RETRY_NS 1000000000ull         /* a join again, while the engine is lost or absent */

static void on_lost(void *arg)
{
    struct zvs_ivl_domain *d = arg;
    d->joined = d->have_view = d->have_quorum = d->quorate = false;
    d->npeers = 0;
    d->engine_lost = true;
    d->retry_at = 0;
    d->sent_len = 0;
    d->unsent = false;
    evaluate(d, true);
}

struct zvs_ivl_domain *zvs_ivl_domain_new(const struct zvs_ivl_domain_cfg *cfg,
                                          struct zvs_cluster *cl,
                                          void (*changed)(void *arg), void *arg)
{
    struct zvs_ivl_domain *d = calloc(1, sizeof *d);
    if (!d) {
        zvs_cluster_destroy(cl);
        return NULL;
    }
    d->cfg = *cfg;
    /* what this system would tell the others must be a state the others can read */
    struct zvs_ivl_state s;
    uint8_t buf[ZVS_IVL_STATE_MAX];
    own_state(d, false, &s);
    if (zvs_ivl_state_encode(&s, buf, sizeof buf) < 0) {
        zvs_cluster_destroy(cl);
        free(d);
        return NULL;
    }
    d->cl = cl;
    d->changed = changed;
    d->arg = arg;
    d->alone = cl ? ZVS_IVL_ACTIVE : ZVS_IVL_ALONE_UNCONFIGURED;
    d->status = compute_status(d);
    if (cl)
        cl->cb = (struct zvs_cluster_cb){ .confchg = on_confchg, .deliver = on_deliver,
                                          .quorum = on_quorum, .lost = on_lost,
                                          .arg = d };
    return d;
}

void zvs_ivl_domain_free(struct zvs_ivl_domain *d)
{
    if (!d)
        return;
    if (d->cl && d->joined)
        zvs_cluster_leave(d->cl);
    zvs_cluster_destroy(d->cl);
    free(d);
}

int zvs_ivl_domain_start(struct zvs_ivl_domain *d)
{
    if (!d->cl)
        return -ENOENT;
    int rc = zvs_cluster_join(d->cl);
    if (rc == -ENOTCONN)
        d->alone = ZVS_IVL_ALONE_NO_ENGINE;
    else if (rc == -ENOENT)
        d->alone = ZVS_IVL_ALONE_UNCONFIGURED;
    else if (rc < 0)                    /* the engine answered and the join failed */
        d->alone = ZVS_IVL_ALONE_JOIN_FAILED;
    else
        d->joined = true;
    evaluate(d, false);
    return rc;
}

void zvs_ivl_domain_set_members(struct zvs_ivl_domain *d, const struct zvs_ivl_member *m,
                                unsigned n)
{
    if (n > ZVS_IVL_MAX_MEMBERS)
        n = ZVS_IVL_MAX_MEMBERS;
    memset(d->member, 0, sizeof d->member);
    memcpy(d->member, m, n * sizeof *m);
    d->nmembers = n;
    send_state(d, false);
}

void zvs_ivl_domain_run(struct zvs_ivl_domain *d, uint64_t now)
{
    /* The engine lost after the join, or not running (or failing the join) when the
     * system started: a join again once a second, so a corosync started after vswitchd
     * brings the system into its domain (ALONE, then JOINING until the view and quorum,
     * then ACTIVE) without a restart. */
    bool waiting = d->engine_lost || d->alone == ZVS_IVL_ALONE_NO_ENGINE ||
                   d->alone == ZVS_IVL_ALONE_JOIN_FAILED;
    if (d->cl && waiting && now >= d->retry_at) {
        if (zvs_cluster_join(d->cl) == 0) {
            d->joined = true;
            d->engine_lost = false;
            d->alone = ZVS_IVL_ACTIVE;
            evaluate(d, false);
        } else {
            d->retry_at = now + RETRY_NS;
        }
    }
    if (d->cl && d->joined)
        zvs_cluster_run(d->cl, now);
    if (d->unsent)
        send_state(d, true);
}

enum zvs_ivl_status zvs_ivl_domain_status(const struct zvs_ivl_domain *d)
{
    return d->status;
}

bool zvs_ivl_domain_aggregating(const struct zvs_ivl_domain *d)
{
    return status_aggregates(d->status);
}

unsigned zvs_ivl_domain_systems(const struct zvs_ivl_domain *d,
                                struct zvs_ivl_system_view *out, unsigned max)
{
    unsigned k = 0;
    uint32_t me = self_id(d);
    bool self_done = false;
    for (unsigned i = 0; i <= d->npeers && k < max; i++) {
        const struct peer *p = i < d->npeers ? &d->peer[i] : NULL;
        if (!self_done && (!p || me < p->node)) {
            out[k] = (struct zvs_ivl_system_view){ .node_id = me, .self = true,
                                                   .agrees = d->status != ZVS_IVL_REFUSED };
            own_state(d, status_aggregates(d->status), &out[k].state);
            k++;
            self_done = true;
        }
        if (!p || !p->have_state || k >= max)
            continue;
        out[k] = (struct zvs_ivl_system_view){ .node_id = p->node, .agrees = agrees(d, &p->st),
                                               .state = p->st };
        k++;
    }
    return k;
}

unsigned zvs_ivl_domain_disagreeing(const struct zvs_ivl_domain *d)
{
    unsigned n = 0;
    for (unsigned i = 0; i < d->npeers; i++)
        if (d->peer[i].have_state && !agrees(d, &d->peer[i].st))
            n++;
    return n;
}

bool zvs_ivl_domain_heartbeat_mismatch(const struct zvs_ivl_domain *d, uint32_t *token_ms)
{
    uint32_t t = d->cl ? zvs_cluster_token_ms(d->cl) : 0;
    if (token_ms)
        *token_ms = t;
    return d->cfg.heartbeat_ms && t && t != d->cfg.heartbeat_ms;
}

const struct zvs_ivl_counters *zvs_ivl_domain_counters(const struct zvs_ivl_domain *d)
{
    return &d->cnt;
}
