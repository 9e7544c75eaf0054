/* cluster: the IVL domain's membership, ordered messages, quorum and configuration, behind
 * an interface of ours over what Corosync offers (CPG for the process group and its
 * agreed-order messages, votequorum for quorum, cmap for the token timeout), with two
 * implementations:
 *
 *   cluster_corosync.c  the Corosync one on the owner's event loop: cpg_fd_get /
 *                  votequorum_fd_get watched by the owner, cpg_dispatch /
 *                  votequorum_dispatch on readiness
 *   cluster_mem.c  an in-memory domain of up to ZVS_CL_MAX_NODES systems on virtual time:
 *                  partitions, a killed system, a rejoin, votequorum's rules with
 *                  auto_tie_breaker, so replication and quorum are tested hermetically
 *
 * What the owner sees is what a CPG and votequorum client sees: a configuration change
 * (the members now in the group, in node-id order, who joined and who left), messages in
 * one agreed order, each delivered to every member of the sender's configuration including
 * the sender itself (CPG_TYPE_AGREED), and quorum notifications (quorate or not, the
 * members counted). A message sent while the system is not in the group is refused.
 *
 * Rules: one thread (the owner's event loop); time comes in as `now` (nanoseconds on the
 * owner's clock). Libc only.
 */
#ifndef ZVS_IVL_CLUSTER_H
#define ZVS_IVL_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ZVS_CL_MAX_NODES  8             /* systems an implementation keeps track of */
#define ZVS_CL_MAX_MSG    1024          /* one state message, at most (CPG takes more) */

/* The owner's side: called from inside zvs_cluster_run (or the implementation's dispatch). */
struct zvs_cluster_cb {
    /* The group's members changed: members[] in node-id order (this system among them). */
    void (*confchg)(void *arg, const uint32_t *members, unsigned n,
                    const uint32_t *joined, unsigned njoined,
                    const uint32_t *left, unsigned nleft);
    /* One message from `from`, in agreed order (also the owner's own). */
    void (*deliver)(void *arg, uint32_t from, const void *msg, size_t len);
    /* votequorum: quorate or not, and the nodes it counted. */
    void (*quorum)(void *arg, bool quorate, const uint32_t *nodes, unsigned n);
    /* The engine went away under a joined system (corosync died or restarted): its view
     * and quorum are gone, nothing more is delivered; join again once it is back. */
    void (*lost)(void *arg);
    void *arg;
};

struct zvs_cluster;

struct zvs_cluster_ops {
    /* Join the process group; the first confchg follows. 0 or -errno (-ENOTCONN: the
     * cluster engine is not running, -ENOENT: not configured). */
    int  (*join)(struct zvs_cluster *c);
    /* Leave it (a clean stop: the others see this system leave at once). */
    void (*leave)(struct zvs_cluster *c);
    /* Send one message to the group, agreed order. 0, -ENOTCONN (not in the group),
     * -EMSGSIZE, -EAGAIN (the engine's flow control: send again later). */
    int  (*send)(struct zvs_cluster *c, const void *msg, size_t len);
    /* This system's node id (0 before join). */
    uint32_t (*node_id)(const struct zvs_cluster *c);
    /* Corosync's totem token timeout in milliseconds (cmap totem.token), 0 if unknown. */
    uint32_t (*token_timeout_ms)(const struct zvs_cluster *c);
    /* Work due by `now` (the in-memory one delivers; Corosync's dispatches). */
    void (*run)(struct zvs_cluster *c, uint64_t now);
    void (*destroy)(struct zvs_cluster *c);
};

struct zvs_cluster {
    const struct zvs_cluster_ops *ops;
    struct zvs_cluster_cb         cb;
};

static inline int zvs_cluster_join(struct zvs_cluster *c) { return c->ops->join(c); }
static inline void zvs_cluster_leave(struct zvs_cluster *c) { c->ops->leave(c); }
static inline int zvs_cluster_send(struct zvs_cluster *c, const void *m, size_t len)
{
    return c->ops->send(c, m, len);
}
static inline uint32_t zvs_cluster_node_id(const struct zvs_cluster *c)
{
    return c->ops->node_id(c);
}
static inline uint32_t zvs_cluster_token_ms(const struct zvs_cluster *c)
{
    return c->ops->token_timeout_ms(c);
}
static inline void zvs_cluster_run(struct zvs_cluster *c, uint64_t now) { c->ops->run(c, now); }
static inline void zvs_cluster_destroy(struct zvs_cluster *c)
{
    if (c)
        c->ops->destroy(c);
}

/* votequorum's decision for one partition, as votequorum(5) gives it with one vote per
 * node: quorate when the partition holds more than half of expected_votes; with
 * auto_tie_breaker, a partition holding exactly half is quorate when it holds the lowest
 * node id of all configured nodes (`lowest_configured`; auto_tie_breaker_node: lowest). */
bool zvs_cluster_quorate(unsigned expected_votes, const uint32_t *nodes, unsigned n,
                         bool auto_tie_breaker, uint32_t lowest_configured);

#endif
