/* guest_tap: a Linux network namespace as a z/VM guest.
 *
 * The driver plays the guest's QDIO device driver (the program side of a NIC's queues,
 * qdio_guest.h) for a tap device: frames the namespace's kernel sends on the tap go into
 * the NIC's output queue, frames the switch delivers into the NIC's input queue go to the
 * tap. Offload metadata crosses both ways (IFF_VNET_HDR on the tap, the vnet fields of
 * the qeth frame header on the queues), so TCP super-frames and partial checksums pass
 * without being segmented or summed.
 *
 * Used by the daemon for `NICBIND vdev TAP ifname`: open the driver (on the NIC port, or
 * unbound), watch zvs_guest_tap_fd() (readable: call pump_out, then zvs_switch_poll on the
 * NIC port) and zvs_guest_tap_irq_fd() (the NIC's thin interrupt: call pump_in; calling it
 * after a switch burst as well is fine). Everything runs in the daemon's data-path thread.
 *
 * The tap outlives the binding, as a z/VM guest's NIC device outlives its coupling: the
 * guest's interface (maybe moved into its namespace) stays while the driver is unbound
 * (UNCOUPLE) and bound again to the same or a new NIC port (COUPLE). Both fds stay the same
 * for the driver's life, so the daemon registers them once. The tap's carrier is on while
 * bound and off while unbound.
 */
#ifndef ZVS_GUEST_TAP_H
#define ZVS_GUEST_TAP_H

#include <stdbool.h>
#include <stdint.h>

#include "dataplane/frame.h"
#include "dataplane/port.h"

#define ZVS_GUEST_TAP_MTU_DEFAULT  1500 /* a tap's MTU when nothing is configured */
#define ZVS_GUEST_TAP_MTU_MIN      68   /* IPv4's minimum (RFC 791): no tap goes below */
#define ZVS_GUEST_TAP_BURST        ZVS_BATCH /* frames read from the tap per pump_out */
#define ZVS_GUEST_TAP_GSO_SEGS     128  /* IFLA_GSO_MAX_SEGS: a super-frame of one NIC
                                           buffer (gso_max_size 65486) at the smallest usual
                                           MSS (536) has 123 segments */

struct zvs_guest_tap;
struct zvs_packet_ring;

struct zvs_guest_tap_stats {
    /* Guest -> switch: frames the namespace sent (read from the tap). */
    uint64_t tap_rx_frames;             /* queued into output buffers */
    uint64_t tap_rx_bytes;              /* their bytes (Ethernet frames, no vnet header) */
    uint64_t tap_rx_copied;             /* did not fit the open buffer's rest: copied once */
    uint64_t tap_rx_oversize;           /* larger than a NIC buffer holds: dropped (error) */
    uint64_t tap_rx_bad_vnet;           /* virtio-net header the adapter would refuse (error) */
    uint64_t tap_rx_errors;             /* read errors other than EAGAIN */
    uint64_t tap_rx_queue_full;         /* pumps stopped for want of an empty output buffer
                                           (frames wait in the tap's queue, not lost here) */
    uint64_t tap_rx_no_buffer;          /* read but no empty output buffer left for it (a
                                           frame copied to a fresh buffer): dropped */
    uint64_t tap_rx_unbound;            /* read while unbound (no NIC): dropped */
    uint64_t tap_rx_truncated;          /* adopted socket: larger than a ring slot and not
                                           kept whole by the kernel (its receive buffer
                                           full), so cut to the slot: dropped */
    /* Switch -> guest: frames the switch delivered (written to the tap). */
    uint64_t tap_tx_frames;             /* written to the tap */
    uint64_t tap_tx_bytes;
    uint64_t tap_tx_dropped_down;       /* tap down or gone (EIO, ENETDOWN, EBADFD, ...) */
    uint64_t tap_tx_dropped_full;       /* EAGAIN / ENOBUFS: the kernel's queue is full */
    uint64_t tap_tx_errors;             /* refused frame (EINVAL...) or metadata without
                                           a virtio-net form */
    uint64_t irqs;                      /* thin interrupts consumed */
    /* Set-up results. */
    uint32_t mtu;                       /* the tap's MTU */
    uint32_t gso_max_size;              /* IFLA_GSO_MAX_SIZE set; 0: kernel refused, TSO not
                                           offered, the namespace segments in software */
    uint32_t max_frame;                 /* largest frame a NIC output buffer holds */
};

/* Create tap `ifname` (IFNAMSIZ-1 chars at most; never an existing one: -EEXIST) and, with a NIC port `nic` (made by zvs_nic_qdio_create; not the
 * driver's), bind it as by zvs_guest_tap_bind; nic NULL: open unbound (carrier off).
 * mtu: the tap's MTU, 0 for min(ZVS_GUEST_TAP_MTU_DEFAULT, nic->mtu) (unbound: the
 * default); more than nic->mtu (unbound: 65486, the largest NIC MTU) or less than 68 is
 * -EINVAL. The tap is left administratively down: it belongs to the guest, which brings it
 * up (and may move it into its namespace first). A failed open leaves the NIC as it was.
 * The tap is persistent and tagged as this vswitchd's (backends/tap_orphans.h): it goes
 * away with zvs_guest_tap_close, and a crash leaves it, with the guest's addresses and
 * connections, for the next vswitchd to adopt.
 * Returns 0, -EINVAL, -EEXIST (name in use), -EBUSY (queues in use), -ENOMEM, or -errno. */
int  zvs_guest_tap_open(const char *ifname, uint32_t mtu, struct zvs_port *nic,
                        struct zvs_guest_tap **out);
/* Re-open tap `ifname` that a crashed vswitchd left, in network namespace netns_fd (from
 * zvs_tap_orphans_take; -1: this one), and with `nic` bind it. Its MTU, MAC, addresses and
 * state are the guest's and stay as they are; offloads are set as by open. -ENOENT: no
 * persistent tap of that name there; -EBUSY: a live process drives it. A failed adoption
 * leaves the tap as it was. */
int  zvs_guest_tap_reopen(const char *ifname, int netns_fd, struct zvs_port *nic,
                          struct zvs_guest_tap **out);
/* The same driver on a descriptor someone else's device gave: `fd` an AF_PACKET socket
 * with PACKET_VNET_HDR bound to a device (backends/lcs.c), non-blocking, `ring` its
 * receive ring (packet_ring.h) with PACKET_COPY_THRESH on: frames are taken from the
 * ring, each copied into the NIC's output buffer with the virtio-net header in front of
 * it, and a frame past a ring slot read whole from the socket; `txfd`, when not -1, a
 * second such socket on the same device that the frames toward the guest are written to
 * instead of fd (one that nobody polls, so sent frames wake no epoll set), with sendmmsg.
 * Opened unbound; the driver owns fd, txfd and the ring's mapping from then on (closed
 * by zvs_guest_tap_close; *ring is zeroed). No tap ioctls are made (MTU 1500, carrier
 * untouched). 0, or -errno with fd, txfd and the ring still the caller's. */
int  zvs_guest_tap_adopt(int fd, int txfd, struct zvs_packet_ring *ring, const char *name,
                         struct zvs_guest_tap **out);
/* Drive NIC port `nic` (COUPLE): a previous binding is released first (as by unbind);
 * then the driver attaches to the NIC's queues in this process, initialises them, clears
 * the SIGA-w need (the daemon polls the NIC after every pump) and arms the thin interrupt,
 * and the tap's carrier goes on. The NIC's queues must be free: never bound, or released
 * by unbind / zvs_qdio_reset. The fds do not change. Returns 0; -EINVAL (not a QDIO NIC,
 * or the tap's MTU above nic->mtu: nothing changed); -EBUSY (another driver has the
 * queues: the driver is left unbound), or -errno. */
int  zvs_guest_tap_bind(struct zvs_guest_tap *t, struct zvs_port *nic);
/* Release the NIC (UNCOUPLE); nothing when unbound. Frames the switch already delivered
 * into the input queue are written to the tap first; then the NIC's queues are put back
 * to not-initialised (zvs_qdio_reset) and the tap's carrier goes off. From then on the
 * port may be destroyed or bound again. Frames the guest primed into the output queue and
 * the switch has not polled are lost: poll the NIC (zvs_switch_poll until 0) first while
 * it is coupled. While unbound, pump_out reads and drops (tap_rx_unbound) and pump_in
 * does nothing. */
void zvs_guest_tap_unbind(struct zvs_guest_tap *t);
/* The bound NIC port, NULL when unbound. */
struct zvs_port *zvs_guest_tap_nic(const struct zvs_guest_tap *t);
/* Unbind, then close the tap (the interface disappears, in whatever namespace it is).
 * NULL: nothing. */
void zvs_guest_tap_close(struct zvs_guest_tap *t);

/* A VXLAN segment (or any switch) that carries at most `mtu` bytes of IP: the tap is
 * lowered to it when its MTU is still the one this driver gave it at open (a tap the
 * guest changed since, or one adopted after a crash, is the guest's and is left alone),
 * in whatever network namespace the tap is now. Returns the tap's MTU after, as the
 * kernel reports it (never raised), *lowered saying whether this call set it; or -errno
 * (-EINVAL: mtu below 68; -EOPNOTSUPP: an adopted packet socket, whose device is someone
 * else's). The tap's namespace is asked of its fd (TUNGETDEVNETNS); a kernel without
 * that ioctl (before Linux 5.2: -ENOTTY or -EINVAL) gets a fit only while the device of
 * the tap's name in this namespace is proven to be the tap (the ifindex it was made with
 * and its MAC), and the ioctl's error otherwise: a guest may have moved its tap away and
 * named it as one of the host's interfaces, which must never be lowered. */
int  zvs_guest_tap_fit_mtu(struct zvs_guest_tap *t, uint32_t mtu, bool *lowered);
/* Seam for tests: how fit_mtu asks a tap fd for its namespace (ioctl TUNGETDEVNETNS:
 * a new fd, or -1 with errno). A test plays a kernel before 5.2 with one that fails
 * with ENOTTY. */
extern int (*zvs_guest_tap_devnetns)(int fd);

/* Give the tap the guest's MAC (as a qeth layer-2 driver takes the MAC z/VM assigned),
 * through the tap's fd, in any namespace; a tap that has it already is not touched.
 * 0 or -errno. */
int  zvs_guest_tap_set_mac(struct zvs_guest_tap *t, const uint8_t mac[ZVS_ETH_ALEN]);

int  zvs_guest_tap_fd(const struct zvs_guest_tap *t);      /* tap: readable = guest sent */
/* The bound NIC's thin interrupt, as an epoll fd holding the NIC's irq eventfd: readable
 * when that is, never while unbound; the same fd from open to close. */
int  zvs_guest_tap_irq_fd(const struct zvs_guest_tap *t);
const char *zvs_guest_tap_name(const struct zvs_guest_tap *t);

/* Guest -> switch: read up to ZVS_GUEST_TAP_BURST frames (or until EAGAIN) into the NIC's
 * output buffers and prime them (unbound: read and drop them). Returns frames queued
 * (>= 0), or -errno when the tap is unusable (EBADFD: deleted) and nothing was queued.
 * Then zvs_switch_poll the NIC. An adopted packet socket's ring is walked until a slot
 * the kernel has not handed over (no system call but a readv for a frame past a slot and
 * a getsockopt of SO_ERROR when the socket woke the driver with an empty ring); a frame
 * no output buffer can take stays in the ring (or on the socket) for the next call. */
int  zvs_guest_tap_pump_out(struct zvs_guest_tap *t);
/* Switch -> guest: write every frame of the primed input buffers to the tap, then re-arm
 * the thin interrupt. Never blocks: frames the tap cannot take are dropped and counted.
 * Returns frames taken from the queue (written or dropped); 0 while unbound. An adopted
 * packet socket is written with sendmmsg, ZVS_BATCH frames a call at most. */
int  zvs_guest_tap_pump_in(struct zvs_guest_tap *t);

void zvs_guest_tap_stats(const struct zvs_guest_tap *t, struct zvs_guest_tap_stats *out);

#endif
