/* cluster_corosync: the Corosync implementation of cluster.h, for vswitchd on a real
 * system (corosync 3: libcpg, libvotequorum, libcmap, found with pkg-config).
 *
 *   join     cpg_initialize + cpg_join of the group (the Global VSWITCH's name),
 *            cpg_local_get for the node id, votequorum_initialize + trackstart
 *            (CS_TRACK_CURRENT | CS_TRACK_CHANGES), the token timeout read once via cmap
 *   send     cpg_mcast_joined with CPG_TYPE_AGREED
 *   run      cpg_dispatch / votequorum_dispatch with CS_DISPATCH_ALL (never blocks); the
 *            owner calls it when fds() are readable
 *   lost     a dispatch that fails (corosync died or restarted) closes every handle and
 *            tells the owner; it joins again later
 *
 * CPG speaks of processes (node id, pid); the interface speaks of systems (one vswitchd
 * per system): members are reduced to their node ids, and a node counts as left only
 * when none of its processes is still in the group.
 */
#ifndef ZVS_IVL_CLUSTER_COROSYNC_H
#define ZVS_IVL_CLUSTER_COROSYNC_H

#include "ivl/cluster.h"

/* A handle for the CPG group `group` (at most 127 characters; the Global VSWITCH's name),
 * not joined yet. NULL on a bad name or no memory. `cb` may be NULL (the owner sets
 * base.cb before join). */
struct zvs_cluster *zvs_cluster_corosync_new(const char *group, const struct zvs_cluster_cb *cb);

/* The descriptors the owner watches for reading while joined (CPG's and votequorum's):
 * how many were written to fds[] (0 when not joined). */
unsigned zvs_cluster_corosync_fds(const struct zvs_cluster *c, int fds[2]);

/* `fn` is told the descriptors of fds() just before they close (a leave, a destroy, or a
 * dispatch that found the engine gone, before `lost`): an owner that watches them in an
 * event loop removes the watches while the descriptors are still open. */
void zvs_cluster_corosync_on_close(struct zvs_cluster *c,
                                   void (*fn)(void *arg, const int *fds, unsigned n),
                                   void *arg);

#endif
