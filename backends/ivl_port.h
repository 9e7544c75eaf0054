/* ivl_port: the IVL port's backend, a Global VSWITCH's way to the other systems of its IVL
 * domain (z/VM Connectivity, "Multi-VSwitch Link Aggregation": the inter-VSwitch link).
 *
 * It stands on a lower port, the IVL switch's RDEV (an AF_PACKET socket on the IVL
 * network, or a dummy link in tests), which it owns. What the switch writes to it comes
 * with its kind (zvs_tx.ivl, dataplane/forward.c's choice) and leaves wrapped in our
 * header (ivl/frame.h, ivl/link.h) for the systems it is meant for:
 *   OUTBOUND  the lowest-index other system with a distributing member (the view);
 *   INBOUND   the system whose guest the destination is (learned from GUEST SOURCE
 *             frames; not known: every other system, and those without it filter it);
 *   FLOOD     every other system in the view.
 * Each copy is a unicast to the system's IVL MAC (02-49-56-4C-<DOMAIN letter>-<index>),
 * numbered in a sequence of its own per destination, so a receiver's gap count is frames
 * the IVL lost. What arrives is unwrapped and checked (link.c counts every refusal by
 * reason); frames for another system's MAC (a bridge flooding) are skipped and counted;
 * the inner frame goes to the switch with its kind (zvs_frame.ivl). A frame with no system
 * to go to (none in the view, none distributing) is counted, never queued, and the switch
 * counts it as a discard (NO_UPLINK: nobody beyond this port to take it), never as sent.
 *
 * Capabilities none: the switch completes checksums and cuts super-frames before they
 * are wrapped; the port's MTU is the lower's less our 26 bytes of outer header, so the IVL
 * network needs an MTU 26 bytes above the guests'. Carrier, descriptor and link events
 * are the lower's. Single-threaded (the data path's).
 */
#ifndef ZVS_BACKENDS_IVL_PORT_H
#define ZVS_BACKENDS_IVL_PORT_H

#include <stdbool.h>
#include <stdint.h>

#include "dataplane/port.h"
#include "ivl/link.h"

struct zvs_ivl_port_params {
    uint8_t  self;                      /* this system's index, 1..3 */
    char     domain;                    /* TYPE IVL DOMAIN letter, 'A'-'H' */
    uint16_t vswitch;                   /* the Global VSWITCH's id in the domain */
};

/* What the port counted (the link's counters summed over its destinations). */
struct zvs_ivl_port_stats {
    struct zvs_ivl_link_stats link;
    uint64_t no_system;                 /* frames with no system to go to */
    uint64_t not_ours;                  /* IVL frames for another system's MAC, skipped */
    uint64_t no_guest_known;            /* INBOUND sent to every system: owner not known */
};

/* The IVL port over `lower` (owned from now on, destroyed with the port, also when the
 * open fails). NULL with *err: -EINVAL (index, domain), -ENOMEM. */
struct zvs_port *zvs_ivl_port_open(struct zvs_port *lower, const struct zvs_ivl_port_params *p,
                                   int *err);
bool zvs_ivl_port_is(const struct zvs_port *p);
/* The lower port (its backend class drives the IVL port's carrier events). */
struct zvs_port *zvs_ivl_port_lower(const struct zvs_port *p);
/* The domain's view: systems present (bit i for index i) and those with a distributing
 * member in the aggregation. A system that left starts a new sequence. */
void zvs_ivl_port_set_view(struct zvs_port *p, uint8_t present, uint8_t distributing);
void zvs_ivl_port_stats(const struct zvs_port *p, struct zvs_ivl_port_stats *out);
/* System `index`'s IVL MAC in domain `domain`. */
void zvs_ivl_port_mac(char domain, uint8_t index, uint8_t mac[6]);

#endif
