/* cluster_mem: the in-memory twin of the Corosync cluster (cluster_mem.h says what it models). */
#include "ivl/cluster_mem.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define NS_PER_MS 1000000ull
#define NO_DUE    UINT64_MAX
/* Rounds of settle-and-deliver in one run: owners answer a change with messages, and those
 * may answer again; a domain that talks more than this in one instant is a bug. */
#define MAX_ROUNDS 64

struct mem_msg {
    struct mem_msg *next;
    uint32_t        from;
    size_t          len;
    uint8_t         data[];
};

struct mem_cluster;

/* One system. What the others see of it (`up`, `side`) may lag what it is (`next_*`) by
 * the token timeout until `due`. */
struct mem_node {
    uint32_t            id;
    bool                engine;         /* its corosync runs, as it is now */
    bool                up;             /* ... as the others see it */
    unsigned            side;           /* as the others see it */
    bool                next_up;
    unsigned            next_side;
    uint64_t            due;            /* when next_* become seen, NO_DUE: nothing pending */
    bool                joined;         /* in the CPG group */
    bool                lost;           /* engine died under its joined owner: tell it */
    struct mem_cluster *h;              /* its handle, NULL when none */
    uint32_t            view[ZVS_CL_MAX_NODES];
    unsigned            nview;
    bool                have_view;
    bool                quorate;
    uint32_t            qnodes[ZVS_CL_MAX_NODES];
    unsigned            nq;
    bool                have_quorum;
};

struct zvs_cluster_mem_net {
    struct mem_node  node[ZVS_CL_MAX_NODES];  /* in node-id order */
    unsigned         n;
    uint64_t         token_ns;
    uint32_t         token_ms;
    bool             atb;
    uint64_t         now;
    bool             dirty;                   /* membership to recompute at the next run */
    bool             running;
    struct mem_msg  *head, *tail;
    uint64_t         delivered;
};

struct mem_cluster {
    struct zvs_cluster          base;
    struct zvs_cluster_mem_net *net;
    struct mem_node            *node;
};

bool zvs_cluster_quorate(unsigned expected_votes, const uint32_t *nodes, unsigned n,
                         bool auto_tie_breaker, uint32_t lowest_configured)
{
    if (2 * n > expected_votes)
        return true;
    if (!auto_tie_breaker || 2 * n != expected_votes)
        return false;
    for (unsigned i = 0; i < n; i++)
        if (nodes[i] == lowest_configured)
            return true;
    return false;
}

static struct mem_node *find(struct zvs_cluster_mem_net *net, uint32_t id)
{
    for (unsigned i = 0; i < net->n; i++)
        if (net->node[i].id == id)
            return &net->node[i];
    return NULL;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

struct zvs_cluster_mem_net *zvs_cluster_mem_net_new(const uint32_t *nodes, unsigned n,
                                                    uint32_t token_ms, bool auto_tie_breaker)
{
    if (n == 0 || n > ZVS_CL_MAX_NODES)
        return NULL;
    uint32_t ids[ZVS_CL_MAX_NODES];
    memcpy(ids, nodes, n * sizeof ids[0]);
    qsort(ids, n, sizeof ids[0], cmp_u32);
    for (unsigned i = 0; i < n; i++)
        if (ids[i] == 0 || (i && ids[i] == ids[i - 1]))
            return NULL;
    struct zvs_cluster_mem_net *net = calloc(1, sizeof *net);
    if (!net)
        return NULL;
    net->n = n;
    net->token_ms = token_ms;
    net->token_ns = token_ms * NS_PER_MS;
    net->atb = auto_tie_breaker;
    for (unsigned i = 0; i < n; i++)
        net->node[i] = (struct mem_node){ .id = ids[i], .engine = true, .up = true,
                                          .next_up = true, .due = NO_DUE };
    return net;
}

static void drop_queue(struct zvs_cluster_mem_net *net)
{
    while (net->head) {
        struct mem_msg *m = net->head;
        net->head = m->next;
        free(m);
    }
    net->tail = NULL;
}

void zvs_cluster_mem_net_free(struct zvs_cluster_mem_net *net)
{
    if (!net)
        return;
    drop_queue(net);
    free(net);
}

/* A change of what the others see of `nd`, seen at `due`. */
static void schedule(struct zvs_cluster_mem_net *net, struct mem_node *nd, bool up,
                     unsigned side, uint64_t due)
{
    nd->next_up = up;
    nd->next_side = side;
    nd->due = due;
    if (due <= net->now) {
        nd->up = up;
        nd->side = side;
        nd->due = NO_DUE;
        net->dirty = true;
    }
}

void zvs_cluster_mem_set_side(struct zvs_cluster_mem_net *net, uint32_t node_id,
                              unsigned side, uint64_t now)
{
    struct mem_node *nd = find(net, node_id);
    if (nd)
        schedule(net, nd, nd->next_up, side, now + net->token_ns);
}

void zvs_cluster_mem_set_engine(struct zvs_cluster_mem_net *net, uint32_t node_id, bool up,
                                uint64_t now)
{
    struct mem_node *nd = find(net, node_id);
    if (!nd || nd->engine == up)
        return;
    nd->engine = up;
    if (!up) {
        /* its own view dies with the engine; the others keep it in theirs (`joined` stays
         * as they last knew it) until the token timeout */
        nd->lost = nd->h && nd->joined;
        nd->have_view = nd->have_quorum = false;
        nd->nview = nd->nq = 0;
    } else {
        nd->joined = false;             /* a new engine: the owner joins again */
    }
    schedule(net, nd, up, nd->next_side, up ? now : now + net->token_ns);
}

uint64_t zvs_cluster_mem_delivered(const struct zvs_cluster_mem_net *net)
{
    return net->delivered;
}

/* Who `nd` reaches: engines seen up on its side (and, for CPG, joined to the group). */
static unsigned reach(const struct zvs_cluster_mem_net *net, const struct mem_node *nd,
                      bool cpg, uint32_t *out)
{
    unsigned k = 0;
    for (unsigned i = 0; i < net->n; i++) {
        const struct mem_node *o = &net->node[i];
        bool seen = o == nd ? o->engine : o->up && o->side == nd->side;
        if (seen && (!cpg || o->joined))
            out[k++] = o->id;
    }
    return k;
}

static bool contains(const uint32_t *v, unsigned n, uint32_t id)
{
    for (unsigned i = 0; i < n; i++)
        if (v[i] == id)
            return true;
    return false;
}

static void update_views(struct zvs_cluster_mem_net *net)
{
    for (unsigned i = 0; i < net->n; i++) {
        struct mem_node *nd = &net->node[i];
        if (!nd->h || !nd->engine || !nd->joined)
            continue;
        uint32_t v[ZVS_CL_MAX_NODES], jn[ZVS_CL_MAX_NODES], lf[ZVS_CL_MAX_NODES];
        unsigned nv = reach(net, nd, true, v), nj = 0, nl = 0;
        for (unsigned k = 0; k < nv; k++)
            if (!nd->have_view || !contains(nd->view, nd->nview, v[k]))
                jn[nj++] = v[k];
        for (unsigned k = 0; nd->have_view && k < nd->nview; k++)
            if (!contains(v, nv, nd->view[k]))
                lf[nl++] = nd->view[k];
        if (nd->have_view && nj == 0 && nl == 0)
            continue;
        memcpy(nd->view, v, sizeof v);
        nd->nview = nv;
        nd->have_view = true;
        const struct zvs_cluster_cb *cb = &nd->h->base.cb;
        if (cb->confchg)
            cb->confchg(cb->arg, v, nv, jn, nj, lf, nl);
    }
    for (unsigned i = 0; i < net->n; i++) {
        struct mem_node *nd = &net->node[i];
        /* votequorum tells a client that tracks it: Corosync's client starts tracking at
         * the join (CS_TRACK_CURRENT), so a handle not joined hears nothing, and a join
         * hears the current state (mem_join forgets what was told). */
        if (!nd->h || !nd->engine || !nd->joined)
            continue;
        uint32_t q[ZVS_CL_MAX_NODES];
        unsigned nq = reach(net, nd, false, q);
        bool quorate = zvs_cluster_quorate(net->n, q, nq, net->atb, net->node[0].id);
        if (nd->have_quorum && quorate == nd->quorate && nq == nd->nq &&
            memcmp(q, nd->qnodes, nq * sizeof q[0]) == 0)
            continue;
        nd->have_quorum = true;
        nd->quorate = quorate;
        nd->nq = nq;
        memcpy(nd->qnodes, q, sizeof q);
        const struct zvs_cluster_cb *cb = &nd->h->base.cb;
        if (cb->quorum)
            cb->quorum(cb->arg, quorate, q, nq);
    }
}

/* Deliver the queue, in order, to the sender's view as it is now. */
static void deliver_queue(struct zvs_cluster_mem_net *net)
{
    while (net->head) {
        struct mem_msg *m = net->head;
        net->head = m->next;
        if (!net->head)
            net->tail = NULL;
        struct mem_node *from = find(net, m->from);
        for (unsigned i = 0; from && from->have_view && i < from->nview; i++) {
            struct mem_node *to = find(net, from->view[i]);
            if (!to || !to->h || !to->engine || !to->have_view ||
                !contains(to->view, to->nview, m->from))
                continue;
            net->delivered++;
            const struct zvs_cluster_cb *cb = &to->h->base.cb;
            if (cb->deliver)
                cb->deliver(cb->arg, m->from, m->data, m->len);
        }
        free(m);
    }
}

/* Owners whose engine died under them hear it (the Corosync library's dispatch fails). */
static void tell_lost(struct zvs_cluster_mem_net *net)
{
    for (unsigned i = 0; i < net->n; i++) {
        struct mem_node *nd = &net->node[i];
        if (!nd->lost)
            continue;
        nd->lost = false;
        if (nd->h && nd->h->base.cb.lost)
            nd->h->base.cb.lost(nd->h->base.cb.arg);
    }
}

static void net_run(struct zvs_cluster_mem_net *net, uint64_t now)
{
    if (now > net->now)
        net->now = now;
    if (net->running)
        return;
    net->running = true;
    tell_lost(net);
    for (unsigned round = 0; round < MAX_ROUNDS; round++) {
        for (unsigned i = 0; i < net->n; i++) {
            struct mem_node *nd = &net->node[i];
            if (nd->due <= net->now)
                schedule(net, nd, nd->next_up, nd->next_side, nd->due);
        }
        if (!net->dirty && !net->head)
            break;
        if (net->dirty) {
            net->dirty = false;
            update_views(net);
        }
        deliver_queue(net);
    }
    net->running = false;
}

/* ---- one system's handle ------------------------------------------------------------ */

static struct mem_cluster *mc(const struct zvs_cluster *c)
{
    return (struct mem_cluster *)c;
}

static int mem_join(struct zvs_cluster *c)
{
    struct mem_node *nd = mc(c)->node;
    if (!nd->engine)
        return -ENOTCONN;
    if (nd->joined)
        return -EALREADY;
    nd->joined = true;
    nd->lost = false;
    nd->have_view = false;
    nd->have_quorum = false;
    mc(c)->net->dirty = true;
    return 0;
}

static void mem_leave(struct zvs_cluster *c)
{
    struct mem_node *nd = mc(c)->node;
    if (!nd->joined || !nd->engine)
        return;                         /* a dead engine tells nobody */
    nd->joined = false;
    nd->have_view = false;
    nd->nview = 0;
    mc(c)->net->dirty = true;
}

static int mem_send(struct zvs_cluster *c, const void *msg, size_t len)
{
    struct zvs_cluster_mem_net *net = mc(c)->net;
    struct mem_node *nd = mc(c)->node;
    if (!nd->engine || !nd->joined)
        return -ENOTCONN;
    if (len > ZVS_CL_MAX_MSG)
        return -EMSGSIZE;
    struct mem_msg *m = malloc(sizeof *m + len);
    if (!m)
        return -ENOMEM;
    m->next = NULL;
    m->from = nd->id;
    m->len = len;
    memcpy(m->data, msg, len);
    if (net->tail)
        net->tail->next = m;
    else
        net->head = m;
    net->tail = m;
    return 0;
}

static uint32_t mem_node_id(const struct zvs_cluster *c)
{
    return mc(c)->node->id;
}

static uint32_t mem_token(const struct zvs_cluster *c)
{
    return mc(c)->net->token_ms;
}

static void mem_run(struct zvs_cluster *c, uint64_t now)
{
    net_run(mc(c)->net, now);
}

static void mem_destroy(struct zvs_cluster *c)
{
    struct mem_node *nd = mc(c)->node;
    nd->h = NULL;
    nd->lost = false;
    if (nd->engine)
        nd->joined = false;             /* CPG sees its client go at once */
    nd->have_view = nd->have_quorum = false;
    nd->nview = nd->nq = 0;
    mc(c)->net->dirty = true;
    free(c);
}

static const struct zvs_cluster_ops mem_ops = {
    .join = mem_join, .leave = mem_leave, .send = mem_send, .node_id = mem_node_id,
    .token_timeout_ms = mem_token, .run = mem_run, .destroy = mem_destroy,
};

struct zvs_cluster *zvs_cluster_mem_new(struct zvs_cluster_mem_net *net, uint32_t node_id,
                                        const struct zvs_cluster_cb *cb)
{
    struct mem_node *nd = find(net, node_id);
    if (!nd || nd->h)
        return NULL;
    struct mem_cluster *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    h->base.ops = &mem_ops;
    if (cb)
        h->base.cb = *cb;
    h->net = net;
    h->node = nd;
    nd->h = h;
    return &h->base;
}
