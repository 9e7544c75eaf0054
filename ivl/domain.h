/* domain: one system's membership of an IVL domain for one Global VSWITCH's SHARED port
 * group: it replicates this system's share (its members and their states) to the other
 * systems through the cluster (cluster.h), keeps theirs, and decides whether this
 * system's members may be in the shared aggregation.
 *
 * The rules (README.md, "The IVL domain", says why):
 *   - quorum decides who keeps the LAG: a system in a partition without quorum (votequorum's
 *     answer, auto_tie_breaker included) is not aggregating; its owner takes its members
 *     out of the aggregation (LACP out of sync) so the partner never keeps a split LAG;
 *   - the definition of the lowest node id in the view that has told its state is the
 *     domain's; a system whose group definition (VSWITCH, group, SHARED, LACP mode, timeout,
 *     distribution, key, actor system) or index disagrees with it refuses to share. Both
 *     sides report the disagreement; only the one that disagrees leaves;
 *   - with no cluster (not configured) or no engine at start, the system runs alone and
 *     keeps its own members aggregating, and says so (status); with no engine, or an
 *     engine that failed the join, it tries the join again once a second, and joins when
 *     corosync starts or takes it (then JOINING, its
 *     members held until the view and quorum answer, as any join); an engine lost after
 *     the join is not "alone": the others may hold the LAG by now, so this system leaves
 *     it and joins again (once a second) until the engine is back;
 *   - HEARTBEAT TIMEOUT (IBM's) is corosync's token timeout: a difference is reported.
 * Free of the daemon: the owner feeds it its members and reads its answers.
 */
#ifndef ZVS_IVL_DOMAIN_H
#define ZVS_IVL_DOMAIN_H

#include <stdbool.h>
#include <stdint.h>

#include "ivl/cluster.h"
#include "ivl/state_msg.h"

enum zvs_ivl_status {
    ZVS_IVL_ALONE_UNCONFIGURED,         /* no cluster configured: runs alone */
    ZVS_IVL_ALONE_NO_ENGINE,            /* corosync not running at start: runs alone */
    ZVS_IVL_ALONE_JOIN_FAILED,          /* corosync answered, the join failed: alone */
    ZVS_IVL_JOINING,                    /* joined, no view or no quorum answer yet */
    ZVS_IVL_ENGINE_LOST,                /* corosync went away after the join: retrying */
    ZVS_IVL_NO_QUORUM,                  /* in a partition without quorum */
    ZVS_IVL_REFUSED,                    /* its definition disagrees with the domain's */
    ZVS_IVL_ACTIVE,                     /* quorate and agreeing: shares the LAG */
};

const char *zvs_ivl_status_name(enum zvs_ivl_status s);   /* QUERY's words */
bool zvs_ivl_status_alone(enum zvs_ivl_status s);         /* one of the ALONE_* */

struct zvs_ivl_domain_cfg {
    char                     system[ZVS_IVL_NAME_LEN + 1];  /* SYSTEM_IDENTIFIER */
    uint8_t                  index;                          /* 1..3 */
    char                     vswitch[ZVS_IVL_NAME_LEN + 1];
    char                     group[ZVS_IVL_NAME_LEN + 1];
    bool                     shared;
    struct zvs_ivl_group_def def;
    uint32_t                 heartbeat_ms;  /* HEARTBEAT TIMEOUT, 0 when not given */
};

/* One system as this one knows it (QUERY VSWITCH / PORT GROUP of a global switch). */
struct zvs_ivl_system_view {
    uint32_t             node_id;
    bool                 self;
    bool                 agrees;        /* its definition is the domain's */
    struct zvs_ivl_state state;
};

struct zvs_ivl_counters {
    uint64_t state_tx, state_rx, confchg;
    uint64_t state_retry;                   /* sends the engine refused, made again */
    uint64_t state_bad[ZVS_IVL_SE_COUNT];   /* refused state messages, by reason */
};

struct zvs_ivl_domain;

/* The domain over `cl` (owned from now on; NULL: not configured, the system runs alone).
 * `changed` is called whenever status, aggregating or another system's state changes.
 * NULL (and `cl` destroyed) for names CP would not take or an index outside 1..3. */
struct zvs_ivl_domain *zvs_ivl_domain_new(const struct zvs_ivl_domain_cfg *cfg,
                                          struct zvs_cluster *cl,
                                          void (*changed)(void *arg), void *arg);
void zvs_ivl_domain_free(struct zvs_ivl_domain *d);   /* leaves the group cleanly */

/* Join the group: 0, or the join's -errno (the status then says the system runs alone). */
int  zvs_ivl_domain_start(struct zvs_ivl_domain *d);
/* This system's members and their states now (replicated when they change). */
void zvs_ivl_domain_set_members(struct zvs_ivl_domain *d, const struct zvs_ivl_member *m,
                                unsigned n);
/* The cluster's work due by `now`, and a join again after the engine was lost. */
void zvs_ivl_domain_run(struct zvs_ivl_domain *d, uint64_t now);

enum zvs_ivl_status zvs_ivl_domain_status(const struct zvs_ivl_domain *d);
/* May this system's members be in the shared aggregation? */
bool zvs_ivl_domain_aggregating(const struct zvs_ivl_domain *d);
/* Systems known, this one included, in node-id order; returns how many (<= max). */
unsigned zvs_ivl_domain_systems(const struct zvs_ivl_domain *d,
                                struct zvs_ivl_system_view *out, unsigned max);
/* Systems in the view whose definition differs from this one's (reported on both sides). */
unsigned zvs_ivl_domain_disagreeing(const struct zvs_ivl_domain *d);
/* The token timeout differs from HEARTBEAT TIMEOUT: true, with corosync's in *token_ms. */
bool zvs_ivl_domain_heartbeat_mismatch(const struct zvs_ivl_domain *d, uint32_t *token_ms);
const struct zvs_ivl_counters *zvs_ivl_domain_counters(const struct zvs_ivl_domain *d);

#endif
