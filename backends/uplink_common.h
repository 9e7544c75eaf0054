/* uplink_common: what the uplinks on a Linux interface (uplink_afpacket, uplink_pcap)
 * share, so each file keeps only its own syscalls.
 *
 * Owns: struct zvs_uplink, the head of each kind's private state (port, interface name,
 * the descriptor to poll, the ifindex it is bound to, the MAC, the receive pool), and
 * the parts of open, receive, transmit and carrier-event handling that do not depend on
 * how frames are read and written.
 * Rules: backends/ only (not part of the class interface, backend.h). The ifindex is
 * the handle's: only open and reopen set it, so an event for a newer ifindex is always
 * seen as one. Nothing here allocates per frame.
 */
#ifndef ZVS_UPLINK_COMMON_H
#define ZVS_UPLINK_COMMON_H

#include <stdbool.h>
#include <stdint.h>

#include "backends/ifinfo.h"
#include "dataplane/frame.h"
#include "dataplane/pool.h"
#include "dataplane/port.h"

struct zvs_uplink {
    struct zvs_port  port;              /* first: port.backend points at the kind's state,
                                           which begins with this struct */
    char             ifname[16];        /* IFNAMSIZ */
    int              fd;                /* what to poll; -1 while there is no handle */
    int              txfd;              /* what frames are written to, when not fd (a
                                           socket no event loop watches); -1: fd */
    int              ifindex;           /* the handle's interface, 0 while it is gone */
    uint8_t          mac[ZVS_ETH_ALEN];
    struct zvs_pool *pool;              /* receive buffers; a frame's cookie is its index */
    uint32_t         nbufs;             /* buffers in the pool */
};

/* The shared head of an uplink port (port->backend). */
static inline struct zvs_uplink *zvs_uplink_of(const struct zvs_port *p)
{
    return (struct zvs_uplink *)p->backend;
}

/* Fill the head of a freshly zeroed state `u` (whose address is port.backend) for
 * interface `ifname`: role UPLINK, name ifname, fd and txfd -1, a pool of nbufs buffers of
 * buf_size bytes after headroom. Returns 0, -EINVAL (bad name) or -ENOMEM. */
int  zvs_uplink_init(struct zvs_uplink *u, const struct zvs_port_ops *ops, const char *ifname,
                     uint32_t nbufs, uint32_t buf_size, uint32_t headroom);
/* The pool (the handle is the kind's to close first). */
void zvs_uplink_fini(struct zvs_uplink *u);

/* Take mtu, MAC and carrier from the interface's facts (not the ifindex). */
void zvs_uplink_apply(struct zvs_uplink *u, const struct zvs_ifinfo *fi);

/* Rx: up to min(max, ZVS_BATCH) pool buffers into idx; 0 (counted in *no_buffer when
 * the pool is empty) means nothing to read into. */
uint32_t zvs_uplink_rx_take(struct zvs_uplink *u, int32_t *idx, int max, uint64_t *no_buffer);
/* Give back the buffers idx[from..to) a receive did not fill. */
void zvs_uplink_rx_give_back(struct zvs_uplink *u, const int32_t *idx, uint32_t from,
                             uint32_t to);
/* ops->rx_release of both kinds: the frames' buffers go back to the pool. */
void zvs_uplink_rx_release(struct zvs_port *p, struct zvs_frame *frames, int n);

/* Tx: wait at most 1 ms for room after EAGAIN (the socket written to: txfd, else fd) or
 * ENOBUFS (the device queue, which poll cannot watch). Counts in *waits. */
void zvs_uplink_tx_wait(const struct zvs_uplink *u, int err, uint64_t *waits);
/* ENOBUFS from a bypassed qdisc is also how the kernel refuses a frame for a link whose
 * carrier just went: ask the driver once per burst (*probed) whether the carrier is
 * gone. True: treat the burst as link-down. Counts asks in *probes. */
bool zvs_uplink_tx_link_gone(const struct zvs_uplink *u, bool *probed, uint64_t *probes);

/* ops->fd of both kinds. */
int  zvs_uplink_fd(const struct zvs_port *p);

/* The carrier-event handling both kinds share (netlink_link reports for the name):
 * gone: ifindex 0, carrier off, keep the handle. Exists and the handle is `stale` or on
 * another ifindex: reopen (the kind's) and report 1, or -errno with carrier off; a reopen
 * refused with -ENETDOWN while the event says the carrier is off is no error (the handle
 * comes when the link does). Else the ENETDOWN a past link-down left on the socket is
 * cleared and mtu and MAC are read again. Then carrier as the event says. */
int  zvs_uplink_link_event(struct zvs_port *p, int ifindex, bool carrier, bool exists,
                           bool stale, int (*reopen)(struct zvs_port *p));

#endif
