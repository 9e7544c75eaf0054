/* cluster_mem: the in-memory twin of the Corosync implementation of cluster.h, for hermetic
 * tests on virtual time. One `net` is the IVL domain: the configured node ids (the nodelist
 * of corosync.conf), the token timeout, auto_tie_breaker; each system's vswitchd gets its
 * own zvs_cluster from it, as each runs its own corosync.
 *
 * What it models (corosync 3: totem over knet, CPG, votequorum):
 *   - a system's corosync engine is up or down; CPG membership holds the systems whose
 *     engine is up, that joined the group and that can reach each other (the same `side`
 *     of a cut IVL); votequorum counts the engines that are up on a side;
 *   - a clean leave is seen at once; a system that dies or is cut off is seen after the
 *     token timeout (totem's failure detection), a join at the next run; an engine that
 *     dies under its joined owner is told to that owner (lost) at the next run;
 *   - messages are delivered in one agreed order to every member of the sender's view,
 *     the sender included, at the next run; a message in flight when a member leaves
 *     reaches only those still in the view (virtual synchrony).
 * Everything happens inside run(now) of any system's cluster: the twin drives all of them.
 */
#ifndef ZVS_IVL_CLUSTER_MEM_H
#define ZVS_IVL_CLUSTER_MEM_H

#include <stdbool.h>
#include <stdint.h>

#include "ivl/cluster.h"

struct zvs_cluster_mem_net;

/* The domain: `n` configured node ids (at most ZVS_CL_MAX_NODES, each non-zero), every
 * engine up, all on side 0. NULL on a bad argument or no memory. */
struct zvs_cluster_mem_net *zvs_cluster_mem_net_new(const uint32_t *nodes, unsigned n,
                                                    uint32_t token_ms, bool auto_tie_breaker);
/* Free the domain; every zvs_cluster made from it must be destroyed first. */
void zvs_cluster_mem_net_free(struct zvs_cluster_mem_net *net);

/* The cluster handle of system `node_id`, callbacks in `cb`. NULL when the node is not
 * configured or already has a live handle. `cb` may be NULL (the owner sets base.cb). */
struct zvs_cluster *zvs_cluster_mem_new(struct zvs_cluster_mem_net *net, uint32_t node_id,
                                        const struct zvs_cluster_cb *cb);

/* Put a system on a side of the IVL: systems on different sides cannot reach each other
 * (seen after the token timeout from `now`). Side 0 everywhere is the IVL whole. */
void zvs_cluster_mem_set_side(struct zvs_cluster_mem_net *net, uint32_t node_id,
                              unsigned side, uint64_t now);
/* A system's corosync engine stops (SIGKILL, or never started: join then answers
 * -ENOTCONN) or starts again. Its handle stays valid but hears nothing while down. */
void zvs_cluster_mem_set_engine(struct zvs_cluster_mem_net *net, uint32_t node_id, bool up,
                                uint64_t now);

/* Messages delivered so far (all receivers counted), for tests. */
uint64_t zvs_cluster_mem_delivered(const struct zvs_cluster_mem_net *net);

#endif
