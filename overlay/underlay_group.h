/* A VXLAN uplink's underlay that is a port group: one struct zvs_port (kind
 * "vxlan-group") in front of the members of a lag/ group, for uplink_vxlan.h to write its
 * encapsulated frames on and read the underlay from.
 *
 * Outbound, each frame's member is the group's: the bucket of the outer UDP source port
 * (zvs_pg_frame_bucket with ZVS_PG_HASH_UDP_SPORT, whatever the group's DISTRIBUTION
 * says: every frame to one remote VTEP carries the same outer MACs, so a MAC suffix
 * would put them all on one member, while the source port is a hash of the inner flow,
 * RFC 7348 section 5), looked up in the group's live map; broadcast and multicast (ARP
 * requests) on its designated member. The map is the one lag/ publishes, so a member
 * that stops distributing has its buckets, and so its flows, moved to the others by the
 * group in the same event (failover), and the others' flows stay where they were. A
 * frame whose member's link has just died goes to another distributing member. Each
 * frame's bytes count on its bucket (the group's INTERVAL rebalancing) and on the member
 * port, as an OSA's counters would.
 *
 * Inbound, the members are read in turn, one member's burst per call; Slow Protocols
 * frames go to the `slow` callback (the group's LACP and Marker engines) after the burst
 * is read, and a member that is not Collecting has its other frames discarded
 * (ZVS_DROP_NOT_COLLECTING), as the switch does for a member it reads itself.
 *
 * The members stay the switch's ports (the group joins them there, the daemon watches
 * them and tells the group their carrier); this port only borrows them, and the switch
 * must not write on them itself (zvs_switch_set_group_underlay). Its carrier is always
 * up: with no member distributing, tx refuses with ZVS_DROP_LINK_DOWN.
 */
#ifndef ZVS_UNDERLAY_GROUP_H
#define ZVS_UNDERLAY_GROUP_H

#include "dataplane/port.h"
#include "lag/lag.h"

/* A Slow Protocols frame a member received (it must not detach any port). */
typedef void (*zvs_ugroup_slow_fn)(void *arg, struct zvs_port *member,
                                   const struct zvs_frame *f);

/* The underlay port over `lag`'s members (not owned; the port must go before the group
 * does). Its mtu is the members' smallest (1500 without members), its caps what every
 * member takes. NULL with *err = -ENOMEM or -EINVAL. */
struct zvs_port *zvs_underlay_group_create(const char *name, struct zvs_lag *lag,
                                           zvs_ugroup_slow_fn slow, void *slow_arg,
                                           int *err);

/* Is p such a port, and its group (NULL when it is not one). */
bool zvs_underlay_is_group(const struct zvs_port *p);
struct zvs_lag *zvs_underlay_group_lag(const struct zvs_port *p);

#endif
