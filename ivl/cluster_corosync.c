/* cluster_corosync: cluster.h over Corosync's client libraries (see the header). */
#include "ivl/cluster_corosync.h"

#include <corosync/cmap.h>
#include <corosync/cpg.h>
#include <corosync/votequorum.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

struct cs_cluster {
    struct zvs_cluster   base;
    struct cpg_name      group;
    cpg_handle_t         cpg;
    votequorum_handle_t  vq;
    bool                 joined;        /* both handles open, the group joined */
    uint32_t             node_id;
    uint32_t             token_ms;
    void               (*closing)(void *arg, const int *fds, unsigned n);
    void                *closing_arg;
};

static struct cs_cluster *cs_of(struct zvs_cluster *c)
{
    return (struct cs_cluster *)c;
}

/* ---- what Corosync delivers ---------------------------------------------------------- */

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The distinct node ids of a CPG address list, sorted; at most ZVS_CL_MAX_NODES. */
static unsigned node_ids(const struct cpg_address *a, size_t n, uint32_t *out)
{
    unsigned k = 0;
    for (size_t i = 0; i < n; i++) {
        bool seen = false;
        for (unsigned j = 0; j < k && !seen; j++)
            seen = out[j] == a[i].nodeid;
        if (!seen && k < ZVS_CL_MAX_NODES)
            out[k++] = a[i].nodeid;
    }
    qsort(out, k, sizeof *out, cmp_u32);
    return k;
}

static bool holds(const uint32_t *ids, unsigned n, uint32_t id)
{
    for (unsigned i = 0; i < n; i++)
        if (ids[i] == id)
            return true;
    return false;
}

static void on_confchg(cpg_handle_t h, const struct cpg_name *group,
                       const struct cpg_address *member, size_t nmember,
                       const struct cpg_address *left, size_t nleft,
                       const struct cpg_address *joined, size_t njoined)
{
    void *ctx = NULL;
    if (cpg_context_get(h, &ctx) != CS_OK || !ctx)
        return;
    struct cs_cluster *cs = ctx;
    uint32_t m[ZVS_CL_MAX_NODES], l[ZVS_CL_MAX_NODES], j[ZVS_CL_MAX_NODES];
    unsigned nm = node_ids(member, nmember, m);
    /* a vswitchd restarted on a node whose old process is still leaving: the system
     * stays, so neither its leaving nor its joining is a change of systems */
    unsigned nl = 0, nj = 0;
    uint32_t tmp[ZVS_CL_MAX_NODES];
    unsigned nt = node_ids(left, nleft, tmp);
    for (unsigned i = 0; i < nt; i++)
        if (!holds(m, nm, tmp[i]))
            l[nl++] = tmp[i];
    nt = node_ids(joined, njoined, tmp);
    for (unsigned i = 0; i < nt; i++)
        j[nj++] = tmp[i];
    if (cs->base.cb.confchg)
        cs->base.cb.confchg(cs->base.cb.arg, m, nm, j, nj, l, nl);
}

static void on_deliver(cpg_handle_t h, const struct cpg_name *group, uint32_t nodeid,
                       uint32_t pid, void *msg, size_t len)
{
    void *ctx = NULL;
    if (cpg_context_get(h, &ctx) != CS_OK || !ctx)
        return;
    struct cs_cluster *cs = ctx;
    if (cs->base.cb.deliver)
        cs->base.cb.deliver(cs->base.cb.arg, nodeid, msg, len);
}

static void on_quorum(votequorum_handle_t h, uint64_t context, uint32_t quorate,
                      uint32_t n, votequorum_node_t node[])
{
    struct cs_cluster *cs = (struct cs_cluster *)(uintptr_t)context;
    uint32_t counted[ZVS_CL_MAX_NODES];
    unsigned k = 0;
    for (uint32_t i = 0; i < n && k < ZVS_CL_MAX_NODES; i++)
        if (node[i].state == VOTEQUORUM_NODESTATE_MEMBER)
            counted[k++] = node[i].nodeid;
    qsort(counted, k, sizeof *counted, cmp_u32);
    if (cs->base.cb.quorum)
        cs->base.cb.quorum(cs->base.cb.arg, quorate != 0, counted, k);
}

/* ---- the interface ------------------------------------------------------------------- */

/* The token timeout totem runs with: runtime.config.totem.token is the effective one
 * (totem.token plus token_coefficient per node beyond two); totem.token what was
 * configured, when the runtime key is absent. 0 when cmap cannot be read. */
static uint32_t read_token_ms(void)
{
    cmap_handle_t cm;
    if (cmap_initialize(&cm) != CS_OK)
        return 0;
    uint32_t v = 0;
    if (cmap_get_uint32(cm, "runtime.config.totem.token", &v) != CS_OK &&
        cmap_get_uint32(cm, "totem.token", &v) != CS_OK)
        v = 0;
    cmap_finalize(cm);
    return v;
}

static void close_handles(struct cs_cluster *cs)
{
    int fds[2];
    unsigned n = zvs_cluster_corosync_fds(&cs->base, fds);
    if (n && cs->closing)               /* the owner's watches go before the descriptors */
        cs->closing(cs->closing_arg, fds, n);
    if (cs->vq) {
        votequorum_trackstop(cs->vq);
        votequorum_finalize(cs->vq);
    }
    if (cs->cpg)
        cpg_finalize(cs->cpg);
    cs->vq = 0;
    cs->cpg = 0;
    cs->joined = false;
}

/* A cs_error_t of an initialize, as the interface's -errno: the engine is not there
 * (not running, or its IPC refused us) or something else went wrong. */
static int init_errno(cs_error_t e)
{
    return e == CS_ERR_LIBRARY || e == CS_ERR_TRY_AGAIN || e == CS_ERR_SECURITY ? -ENOTCONN
                                                                                : -EIO;
}

static int cs_join(struct zvs_cluster *c)
{
    struct cs_cluster *cs = cs_of(c);
    if (cs->joined)
        return 0;
    static cpg_callbacks_t cpg_cb = { .cpg_deliver_fn = on_deliver,
                                      .cpg_confchg_fn = on_confchg };
    cs_error_t e = cpg_initialize(&cs->cpg, &cpg_cb);
    if (e != CS_OK) {
        cs->cpg = 0;
        return init_errno(e);
    }
    votequorum_callbacks_t vq_cb = { .votequorum_quorum_notify_fn = on_quorum };
    unsigned int id = 0;
    int rc = 0;
    if ((e = cpg_context_set(cs->cpg, cs)) != CS_OK ||
        (e = cpg_local_get(cs->cpg, &id)) != CS_OK)
        rc = init_errno(e);
    else if ((e = votequorum_initialize(&cs->vq, &vq_cb)) != CS_OK) {
        cs->vq = 0;
        rc = init_errno(e);
    } else if ((e = votequorum_trackstart(cs->vq, (uint64_t)(uintptr_t)cs,
                                          CS_TRACK_CURRENT | CS_TRACK_CHANGES)) != CS_OK ||
               (e = cpg_join(cs->cpg, &cs->group)) != CS_OK)
        rc = init_errno(e);
    if (rc < 0) {
        close_handles(cs);
        return rc;
    }
    cs->node_id = id;
    cs->token_ms = read_token_ms();
    cs->joined = true;
    return 0;
}

static void cs_leave(struct zvs_cluster *c)
{
    struct cs_cluster *cs = cs_of(c);
    if (!cs->joined)
        return;
    cpg_leave(cs->cpg, &cs->group);
    close_handles(cs);
}

static int cs_send(struct zvs_cluster *c, const void *msg, size_t len)
{
    struct cs_cluster *cs = cs_of(c);
    if (!cs->joined)
        return -ENOTCONN;
    if (len > ZVS_CL_MAX_MSG)
        return -EMSGSIZE;
    struct iovec iov = { .iov_base = (void *)msg, .iov_len = len };
    cs_error_t e = cpg_mcast_joined(cs->cpg, CPG_TYPE_AGREED, &iov, 1);
    if (e == CS_OK)
        return 0;
    return e == CS_ERR_TRY_AGAIN ? -EAGAIN : -ENOTCONN;
}

static uint32_t cs_node_id(const struct zvs_cluster *c)
{
    return ((const struct cs_cluster *)c)->node_id;
}

static uint32_t cs_token(const struct zvs_cluster *c)
{
    return ((const struct cs_cluster *)c)->token_ms;
}

static void cs_run(struct zvs_cluster *c, uint64_t now)
{
    struct cs_cluster *cs = cs_of(c);
    if (!cs->joined)
        return;
    /* CS_DISPATCH_ALL: what is pending, without blocking. A failure means the IPC to
     * the engine is gone: corosync died or restarted under us. */
    cs_error_t e = cpg_dispatch(cs->cpg, CS_DISPATCH_ALL);
    if (e == CS_OK || e == CS_ERR_TRY_AGAIN)
        e = votequorum_dispatch(cs->vq, CS_DISPATCH_ALL);
    if (e == CS_OK || e == CS_ERR_TRY_AGAIN)
        return;
    close_handles(cs);
    if (cs->base.cb.lost)
        cs->base.cb.lost(cs->base.cb.arg);
}

static void cs_destroy(struct zvs_cluster *c)
{
    struct cs_cluster *cs = cs_of(c);
    close_handles(cs);
    free(cs);
}

static const struct zvs_cluster_ops cs_ops = {
    .join = cs_join, .leave = cs_leave, .send = cs_send, .node_id = cs_node_id,
    .token_timeout_ms = cs_token, .run = cs_run, .destroy = cs_destroy,
};

struct zvs_cluster *zvs_cluster_corosync_new(const char *group, const struct zvs_cluster_cb *cb)
{
    size_t len = group ? strlen(group) : 0;
    if (len == 0 || len >= CPG_MAX_NAME_LENGTH)
        return NULL;
    struct cs_cluster *cs = calloc(1, sizeof *cs);
    if (!cs)
        return NULL;
    cs->base.ops = &cs_ops;
    if (cb)
        cs->base.cb = *cb;
    memcpy(cs->group.value, group, len);
    cs->group.length = (uint32_t)len;
    return &cs->base;
}

unsigned zvs_cluster_corosync_fds(const struct zvs_cluster *c, int fds[2])
{
    const struct cs_cluster *cs = (const struct cs_cluster *)c;
    if (!cs->joined)
        return 0;
    int f;
    unsigned n = 0;
    if (cpg_fd_get(cs->cpg, &f) == CS_OK)
        fds[n++] = f;
    if (votequorum_fd_get(cs->vq, &f) == CS_OK)
        fds[n++] = f;
    return n;
}

void zvs_cluster_corosync_on_close(struct zvs_cluster *c,
                                   void (*fn)(void *arg, const int *fds, unsigned n),
                                   void *arg)
{
    struct cs_cluster *cs = cs_of(c);
    cs->closing = fn;
    cs->closing_arg = arg;
}
