/* lcs: a Hercules machine's LCS tap as the guest side of a NIC (NICBIND LCS).
 *
 * Hercules (3.13) opens the tap itself, in the machine's own network namespace
 * (guests/runner.c), and reads and writes the guest's Ethernet frames on its fd. The
 * switch reaches the same device from the other side: an AF_PACKET socket bound to it
 * (made inside that namespace with setns, then usable from anywhere), with
 * PACKET_VNET_HDR so the guest_tap driver moves frames between it and the NIC's QDIO
 * queues exactly as for a tap (guest_tap.h, zvs_guest_tap_adopt), and
 * PACKET_IGNORE_OUTGOING so what the switch sends towards the guest is not read back.
 * Frames the guest writes arrive on the socket as received, in its receive ring
 * (TPACKET_V2, packet_ring.h): the driver copies them from there into the NIC's output
 * buffers with no system call. Frames toward the guest are written to a second socket on
 * the device, bound with protocol 0 (it takes nothing in) and polled by nobody, so the
 * kernel's write-space wake-up for each sent frame finds no epoll set to lock; the tap
 * transmits them, i.e. Hercules reads them for the guest.
 *
 * The tap goes DOWN and UP at every STARTLAN, and hercifc resets its IPv4 address
 * asynchronously. The socket stays bound to the same device through that: the ENETDOWN
 * the kernel leaves on it when the link goes down (it would keep the socket polling
 * readable, as an error, for ever) is taken with SO_ERROR when the socket wakes the
 * driver with no frame in its ring, counted in tap_rx_errors, and reading goes on;
 * frames the switch delivers while the tap is down are written, refused with ENETDOWN and
 * counted in tap_tx_dropped_down, never lost uncounted. The NIC stays coupled
 * throughout. The socket ends with the device (the machine logged off).
 */
#ifndef ZVS_LCS_H
#define ZVS_LCS_H

#include "backends/guest_tap.h"
#include "backends/packet_ring.h"

/* The receive ring's slots: the burst the socket's 4 MB receive buffer held before the
 * ring, counted in frames (10,083 64-byte frames written to a tap, 3,641 of 1514 bytes,
 * measured on 6.18), so a 64-byte frame takes a slot as a 1514-byte one does. 2 KB a
 * slot: 20 MB of kernel memory an LCS socket, mapped into vswitchd. */
#define ZVS_LCS_RING_FRAMES 10240u

/* One of the driver's two sockets on device idx, in the calling thread's namespace: the
 * read one with a receive ring of ring_frames slots (ring not NULL), or the written one
 * (ring NULL). The fd, or -errno. Exported for tests/tools/tap_pump, which opens an LCS
 * tap exactly as the driver does. */
int zvs_lcs_packet_socket(unsigned idx, struct zvs_packet_ring *ring, uint32_t ring_frames);

/* Opens the driver on device `ifname` in the network namespace `netns_fd` (-1: this
 * one). Unbound; bind it with zvs_guest_tap_bind. 0 or -errno. Needs CAP_NET_RAW and
 * CAP_SYS_ADMIN (setns). */
int zvs_lcs_open(int netns_fd, const char *ifname, struct zvs_guest_tap **out);
/* The same with a receive ring of at least ring_frames slots (zvs_lcs_open:
 * ZVS_LCS_RING_FRAMES; a test fills a small one). */
int zvs_lcs_open_ring(int netns_fd, const char *ifname, uint32_t ring_frames,
                      struct zvs_guest_tap **out);

/* Frames the kernel dropped on the way from the guest since the last call: the socket's
 * receive ring was full (or, for a frame past a ring slot, its receive buffer).
 * PACKET_STATISTICS counts them and resets on each read, so the caller adds them up. 0
 * when unknown. A frame past a ring slot that the kernel could not keep whole (its
 * receive buffer full) arrives cut to the slot: the driver drops it and counts it in
 * tap_rx_truncated (guest_tap.h), never hands it on. */
uint64_t zvs_lcs_take_kernel_drops(const struct zvs_guest_tap *t);

/* The same, counted where an operator looks: as inbound discards of the NIC port `nic`
 * (NULL: nowhere but the return value), reason ZVS_DROP_GUEST_OVERRUN, so QUERY NIC,
 * QUERY VSWITCH DETAILS and the monitor's D8R1 records show them as the NIC's TX
 * Discarded. Returns the frames counted.
 *
 * How this relates to QUEUESTORAGE: the NIC's output queue (its QUEUESTORAGE) is the
 * bound a z/VM guest meets; a qeth driver stops when every output buffer is primed and
 * the excess never leaves the guest. A Hercules guest cannot be held back that way: its
 * LCS writes go to the tap at once, and the socket's receive ring (ZVS_LCS_RING_FRAMES
 * frames) is the only place they wait for the driver to put them into output buffers.
 * When that ring is full the kernel drops what comes next. It fills when the driver
 * stops reading because no output buffer is empty (QUEUESTORAGE in use: Queue full in QUERY NIC
 * DETAILS) or when vswitchd does not get the CPU to read as fast as the guest writes
 * (the latter, measured on a loaded machine; tests/integration/hercules_vswitch.sh holds
 * vswitchd still for it, as a busy host would). Either way the guest
 * sent more than the switch took, so it is a discard of what the NIC transmitted. */
uint64_t zvs_lcs_fold_kernel_drops(const struct zvs_guest_tap *t, struct zvs_port *nic);

#endif
