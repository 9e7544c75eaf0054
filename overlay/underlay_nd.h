/* IPv6 Neighbor Discovery (RFC 4861) on the underlay: the next hop's MAC of a VTEP whose
 * underlay is IPv6, in the same neighbour table as ARP's (underlay_arp.h: entries, aging,
 * static ones, one solicitation a second while unanswered).
 *
 * The VTEP sends a Neighbor Solicitation for a next hop it has no MAC for (to the
 * target's solicited-node multicast address, 33:33:ff:xx:xx:xx on Ethernet, with our
 * source link-layer address), learns the Neighbor Advertisement that answers it (the
 * target link-layer address option, else the frame's source MAC), learns a solicitation's
 * sender as ARP learns a request's, and answers a solicitation for its own address with a
 * solicited, override advertisement. A message is taken only as section 7.1 says: hop
 * limit 255, ICMPv6 code 0, a correct checksum, a target that is not multicast;
 * solicitations from the unspecified address (Duplicate Address Detection) are not
 * answered. No extension headers; untagged frames are written, tagged ones read.
 */
#ifndef ZVS_UNDERLAY_ND_H
#define ZVS_UNDERLAY_ND_H

#include <stdint.h>

#include "overlay/underlay_arp.h"

#define ZVS_UND_FRAME_LEN  86           /* Ethernet + IPv6 + ICMPv6 NS/NA + one option */

/* A Neighbor Solicitation from (src_mac, src_ip) for target; ZVS_UND_FRAME_LEN bytes. */
unsigned zvs_und_solicit(uint8_t *buf, const uint8_t src_mac[6], const uint8_t src_ip[16],
                         const uint8_t target[16]);

/* An IPv6 frame from the underlay. An advertisement (or a solicitation's sender) for an
 * address the table tracks updates that entry; a solicitation for local_ip writes the
 * advertisement into reply (ZVS_UND_FRAME_LEN bytes) and returns its length; otherwise
 * 0. -EINVAL: not a valid NS or NA (counted as ignored in the table). */
int zvs_und_input(struct zvs_uarp *u, const uint8_t *frame, uint32_t len,
                  const uint8_t local_ip[16], const uint8_t local_mac[6], uint64_t now,
                  uint8_t *reply);

#endif
