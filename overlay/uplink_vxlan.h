/* The VXLAN uplink: a VSWITCH's uplink port whose far end is a VXLAN segment.
 *
 * A struct zvs_port (dataplane/port.h, kind "vxlan") in front of a VTEP (vtep.h) and an
 * underlay port: an RDEV's port (an AF_PACKET uplink on an OSA's interface, a memlink in
 * tests) whose bytes the VTEP writes and reads itself. The switch forwards to it as to
 * any uplink; its tx encapsulates the switch's frames and writes the copies on the
 * underlay in one call, its rx reads the underlay, decapsulates and hands the switch
 * the inner frames. The underlay port's own counters count the encapsulated traffic,
 * as an OSA does, so the monitor and FCX240 see it on the OSA port.
 *
 * The port takes frames whole and checksummed (caps 0, or CSUM over an IPv4 underlay
 * that takes partial checksums: the inner one rides along): the switch segments
 * super-frames and completes checksums before tx (dataplane/vnet.c). Over an IPv4
 * underlay that takes UDP tunnel super-frames (ZVS_CAP_UDP_TUNNEL_GSO: a tap) it takes
 * TCP super-frames too (caps CSUM|GSO, max_gso 65535 less the overhead) and writes each
 * with one outer header (vxlan_gso.h). Its mtu is the
 * underlay's less the overhead (50 bytes over IPv4, 70 over IPv6), so the switch reports
 * a guest frame that cannot fit instead of the VTEP fragmenting it.
 *
 * Frames a VTEP drops are counted in its stats by reason (QUERY VSWITCH shows them);
 * the switch counts the frames it handed to tx as sent. Single-threaded, as every port.
 */
#ifndef ZVS_UPLINK_VXLAN_H
#define ZVS_UPLINK_VXLAN_H

#include "dataplane/port.h"
#include "overlay/vtep.h"

/* A VXLAN uplink named `name` over `underlay`, taking ownership of both the VTEP and the
 * underlay port (the port's destroy destroys them). The VTEP's underlay MTU is the
 * underlay port's mtu. NULL with *err = -ENOMEM or -EINVAL (no VTEP or underlay). */
struct zvs_port *zvs_uplink_vxlan_create(const char *name, struct zvs_vtep *vtep,
                                         struct zvs_port *underlay, int *err);

struct zvs_vtep *zvs_uplink_vxlan_vtep(const struct zvs_port *p);
struct zvs_port *zvs_uplink_vxlan_underlay(const struct zvs_port *p);

/* Is p a VXLAN uplink (its ops are this file's)? */
bool zvs_uplink_is_vxlan(const struct zvs_port *p);

/* The clock the port reads (ns, never going back): once per tx or rx call, for the
 * VTEP's times (a learned MAC's last frame, a neighbour's answer and requests) and its
 * aging about once a second. NULL: CLOCK_MONOTONIC, the default. The owner's clock makes
 * the port age in the owner's time: the daemon gives its event loop's, so a test on a
 * virtual loop sees remote MACs and neighbours age as it moves time. */
void zvs_uplink_vxlan_set_clock(struct zvs_port *p, uint64_t (*now)(void *arg), void *arg);

/* Age the VTEP's tables if a second has passed on the port's clock since the last pass
 * (one clock read and a compare otherwise): for an owner's periodic pass, so a segment
 * that carries nothing still loses its learned MACs on time, not at its next frame. */
void zvs_uplink_vxlan_age(struct zvs_port *p);

#endif
