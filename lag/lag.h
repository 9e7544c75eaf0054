/* Link aggregation of one VSWITCH's port group: the glue between the switch's member
 * ports, the LACP and Marker engines of lacp/ (one pair per member) and the port group's
 * distribution (pgroup.h).
 *
 * With LACP ACTIVE each member runs the 802.1AX machines; a member accepts inbound frames
 * only while Collecting and carries outbound frames only while Distributing. With LACP
 * INACTIVE the group is static (the partner's channel is "on"): a member collects and
 * distributes whenever it has carrier. Either way every member answers Markers, and the
 * group sends Markers to flush a conversation before its bucket moves.
 *
 * The switch hands every Slow Protocols frame of a member to zvs_lag_slow_input; the
 * daemon calls zvs_lag_run when zvs_lag_next_wakeup is due (the LACP timers are absolute
 * deadlines, so a late call is caught up exactly) and passes carrier changes in. PDUs go
 * straight to the member's backend, never behind guest traffic in a burst queue.
 */
#ifndef ZVS_LAG_H
#define ZVS_LAG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cp-commands/cp_messages.h"
#include "lacp/lacp_port.h"
#include "lacp/marker.h"
#include "lag/pgroup.h"
#include "dataplane/port.h"
#include "dataplane/switch.h"

struct zvs_lag_params {
    struct zvs_pg_params pg;            /* name, hash, policy, INTERVAL, lacp on/off */
    bool     lacp_passive;              /* LACP_Activity passive (tests; z/VM is active) */
    bool     long_timeout;              /* ask the partner for slow PDUs (90 s expiry) */
    uint16_t system_priority;           /* actor System ID, first half (0: 32768) */
    uint8_t  system[6];                 /* actor System ID, MAC */
    uint16_t key;                       /* actor key of every member (0: 1) */
    /* SHARED in an IVL domain (ivl/): this system's index there, 1..3, and port numbers
     * unique across the domain (ivl/port_number.h); 0: the group is this system's alone
     * and a member's port number is its device number. */
    uint8_t  domain_index;
    /* Where a member's state changes go, as catalogue messages (cp_messages.h: ZVSLAG1172E,
     * ZVSLAG1173I, ZVSLAG1174I with their string arguments): the daemon's console and log.
     * NULL: the log. Called inside the engines' callbacks (it must not call into the
     * group). Bucket moves are the log's only (ZVSLAG1175I, at most 16 lines a second). */
    void   (*say)(void *arg, enum zvs_cpmsg_id id, const char *const *args, unsigned nargs);
    void    *say_arg;
};

/* Counters of the glue itself (the engines count the protocol). */
struct zvs_lag_stats {
    uint64_t slow_rx;                   /* Slow Protocols frames handed in */
    uint64_t slow_tx;                   /* PDUs written to a member's backend */
    uint64_t slow_tx_fail;              /* PDUs the backend refused (link down, full) */
    uint64_t slow_rx_other;             /* valid slow frames of other subtypes (OAM...) */
    uint64_t malformed_rx;              /* frames zvs_slow_parse refused */
    uint64_t lacpdu_static_rx;          /* LACPDUs received with LACP INACTIVE (ignored) */
};

struct zvs_lag;

/* Creates the group on `sw` (zvs_switch_set_group) and takes the switch's Slow Protocols
 * handler (zvs_switch_set_slow_handler). Returns NULL on bad parameters or
 * out of memory. */
struct zvs_lag *zvs_lag_create(struct zvs_switch *sw, const struct zvs_lag_params *params,
                               uint64_t now);
/* Stops every engine and detaches the group from the switch; member ports stay on the
 * switch (the switch destroys them with itself). */
void zvs_lag_destroy(struct zvs_lag *lag, uint64_t now);

/* JOIN: the port (not yet attached to any switch) becomes a member: attached to the
 * switch as a group port, its engines started with its carrier. `mac` is the port's own
 * MAC (source of its PDUs); speed for LACP selection. Returns the member slot or -errno
 * (-ENOSPC: 8 members; -EEXIST). On error the port is not taken (caller destroys it). */
int  zvs_lag_join(struct zvs_lag *lag, struct zvs_port *port, const char *rdev,
                  const uint8_t mac[6], uint32_t speed_mbps, uint64_t now);
/* LEAVE: the member stops distributing (buckets move at once), its engines stop, and the
 * port is removed from the switch and destroyed. -ENOENT if not a member. */
int  zvs_lag_leave(struct zvs_lag *lag, struct zvs_port *port, uint64_t now);
/* Carrier of a member changed (the switch already knows: zvs_switch_set_carrier). */
void zvs_lag_carrier(struct zvs_lag *lag, struct zvs_port *port, bool up, uint64_t now);
/* SET PORT GROUP ... LACP ACTIVE | INACTIVE on the running group. */
void zvs_lag_set_lacp(struct zvs_lag *lag, bool on, uint64_t now);
/* A SHARED group's domain (ivl/domain.h) says this system may not be in the aggregation
 * (no quorum, or its definition disagrees): `hold` takes every member out (its engine
 * stops with a final LACPDU out of sync, so the partner drops the links at once rather
 * than keep a split aggregation; a static member stops collecting and distributing) and
 * keeps new members and carrier changes out; releasing it starts them again as a JOIN
 * would. */
void zvs_lag_set_domain_hold(struct zvs_lag *lag, bool hold, uint64_t now);
bool zvs_lag_domain_held(const struct zvs_lag *lag);
/* SET PORT GROUP ... SHARED (or EXCLUSIVE again) on the running group: its port numbers
 * (domain_index, lag params), System ID and key change. Each member's engine stops with its
 * final LACPDU under the old identity and starts again under the new one (a static member
 * keeps its state; only its Marker port changes), so the partner renegotiates the links
 * rather than see ports change their names under it. */
void zvs_lag_set_identity(struct zvs_lag *lag, uint8_t domain_index, const uint8_t system[6],
                          uint16_t key, uint64_t now);

/* A Slow Protocols frame received on a member (the switch's slow handler). */
void zvs_lag_slow_input(struct zvs_lag *lag, struct zvs_port *port, const struct zvs_frame *f,
                        uint64_t now);
/* Timers: LACP machines, Markers, the port group's flushes and INTERVAL pass. */
void zvs_lag_run(struct zvs_lag *lag, uint64_t now);
uint64_t zvs_lag_next_wakeup(const struct zvs_lag *lag);

/* Read side, for QUERY, the stats report, monitor records and tests. */
struct zvs_pgroup *zvs_lag_group(const struct zvs_lag *lag);
const struct zvs_lag_params *zvs_lag_params(const struct zvs_lag *lag);
const struct zvs_lag_stats *zvs_lag_stats(const struct zvs_lag *lag);
bool zvs_lag_is_member(const struct zvs_lag *lag, const struct zvs_port *port);
/* The member's group slot (the slot of zvs_pgroup_member and the getters below), or -1. */
int  zvs_lag_member_slot(const struct zvs_lag *lag, const struct zvs_port *port);
/* Member by group slot (NULL when the slot is free); engines are NULL-safe getters. */
struct zvs_port *zvs_lag_member_port(const struct zvs_lag *lag, unsigned slot);
const struct zvs_lacp_port *zvs_lag_member_lacp(const struct zvs_lag *lag, unsigned slot);
const struct zvs_lacp_marker *zvs_lag_member_marker(const struct zvs_lag *lag, unsigned slot);
/* Fault knobs of a member's LACP engine (the operator's privileged knob; tests). */
int  zvs_lag_set_faults(struct zvs_lag *lag, struct zvs_port *port,
                        const struct zvs_lacp_faults *f, uint64_t now);

/* The group as text: one block with the group's settings and counters, then per member
 * its state and the LACP engine's report (lacp_show.h). */
void zvs_lag_report(const struct zvs_lag *lag, uint64_t now, FILE *out);

#endif
