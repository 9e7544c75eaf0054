/* memlink: an in-memory uplink for unit tests and benchmarks.
 *
 * A memlink port is a struct zvs_port whose far end is a pair of rings in memory instead
 * of a wire. What the switch transmits is copied (tag edit applied, vnet metadata kept)
 * into the port's "sent" ring, where a test reads it byte for byte; what a test injects
 * into the port's "receive" ring is what the port's rx hands to the switch. Two memlink
 * ports can also be wired back to back (zvs_memlink_pair): what one transmits the other
 * receives, like a crossover cable between two switches.
 *
 * All slots are allocated at creation; nothing is allocated per frame. Single-threaded.
 */
#ifndef ZVS_MEMLINK_H
#define ZVS_MEMLINK_H

#include <stdbool.h>
#include <stdint.h>

#include "dataplane/frame.h"
#include "dataplane/port.h"

#define ZVS_MEMLINK_SLOT_DEFAULT  2048  /* bytes per slot when 0 is given */
#define ZVS_MEMLINK_SLOTS_DEFAULT 256   /* slots per ring when 0 is given */

struct zvs_memlink_stats {
    uint64_t tx_frames;                 /* frames copied into the sent ring */
    uint64_t tx_bytes;                  /* their bytes as written (after the tag edit) */
    uint64_t tx_ring_full;              /* refused: no free slot (ZVS_DROP_NO_BUFFER) */
    uint64_t tx_oversize;               /* refused: larger than a slot (ZVS_DROP_TX_FAIL) */
    uint64_t tx_link_down;              /* refused: carrier off (ZVS_DROP_LINK_DOWN) */
    uint64_t rx_frames;                 /* frames handed to the switch by rx */
    uint64_t inject_refused;            /* zvs_memlink_inject calls that failed */
};

/* One port with its own sent and receive rings of nslots slots of slot_size bytes each
 * (0 selects the defaults). The port starts with carrier on, caps CSUM|GSO, mtu 1500,
 * max_gso the slot size (at most 65535: a larger super-frame is cut by the switch), role
 * UPLINK; callers may change those public fields. Returns NULL on
 * allocation failure or a zero-size ring after defaults. */
struct zvs_port *zvs_memlink_create(const char *name, uint32_t nslots, uint32_t slot_size);

/* Two ports wired back to back: a's tx is b's rx and b's tx is a's rx. Each port is
 * destroyed by its own ops->destroy; the rings go with the last one. Returns 0 or
 * -ENOMEM (then *a and *b are NULL). */
int zvs_memlink_pair(const char *name_a, const char *name_b, uint32_t nslots,
                     uint32_t slot_size, struct zvs_port **a, struct zvs_port **b);

/* Producer side: queue a frame that the port's rx will return (vnet may be NULL).
 * Returns 0, -EMSGSIZE (larger than a slot), -ENOBUFS (ring full) or -ENETDOWN
 * (carrier off). The bytes are copied. */
int zvs_memlink_inject(struct zvs_port *p, const uint8_t *data, uint32_t len,
                       const struct zvs_vnet *vnet);

/* Consumer side: take the oldest frame the port transmitted. Copies it into buf and its
 * offload metadata into *vnet (may be NULL). Returns the frame length, -EAGAIN when
 * nothing is queued, -EMSGSIZE when cap is too small (the frame stays queued). */
int zvs_memlink_read(struct zvs_port *p, uint8_t *buf, uint32_t cap, struct zvs_vnet *vnet);

/* Frames transmitted and not yet read. */
uint32_t zvs_memlink_pending(const struct zvs_port *p);

/* Discard everything transmitted and not yet read (benchmarks); returns how many. */
uint32_t zvs_memlink_drain(struct zvs_port *p);

/* Cut or restore the wire: with carrier off, tx refuses everything with LINK_DOWN. Both
 * ends of a pair change at once, and the other end gets a link event: ops->link_poll
 * hands it out once, and its doorbell (if it has one) rings so an event loop wakes. */
void zvs_memlink_set_carrier(struct zvs_port *p, bool up);
/* Change the link's MTU (an operator's `ip link set mtu`): both ends at once, and the other
 * end gets a link event that says only the MTU changed (zvs_port_link_event.mtu_only). */
void zvs_memlink_set_mtu(struct zvs_port *p, uint32_t mtu);

/* A doorbell for the port's receive side: an eventfd, readable while frames wait for
 * its rx, which becomes the port's ops->fd (-1 without one) so an event loop polls the
 * port like a socket. Made once, closed with the rings. Costs a write per tx burst into
 * the ring and a read when rx empties it; ports without one pay a branch. Returns the fd
 * or -errno. */
int zvs_memlink_doorbell(struct zvs_port *p);

/* The port's MAC address (all zero unless set): what the far end calls itself. */
void zvs_memlink_mac(const struct zvs_port *p, uint8_t mac[6]);
void zvs_memlink_set_mac(struct zvs_port *p, const uint8_t mac[6]);

void zvs_memlink_stats(const struct zvs_port *p, struct zvs_memlink_stats *out);

#endif
