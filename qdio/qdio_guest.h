/* QDIO program side: what a guest's device driver does with its NIC's queues.
 *
 * A library an external guest program links (with qdio.c and frame.c). It attaches to a
 * NIC region (an in-process pointer, or a memfd it maps itself), initialises the queues,
 * sends frames through the output queue, reaps finished output buffers, receives frames
 * from the input queue and arms or disarms the thin interrupt.
 *
 * Layout policy (the adapter checks the result, not the policy; qdio.h has the rules):
 *  - A buffer holds up to 16 entries of 4 KB: 64 KB (ZVS_QDIO_BUF_MAX), a "page set", as
 *    a real OSA SBAL. 128 such buffers per queue would need 2 x 128 x 64 KB = 16M, more
 *    than QUEUESTORAGE (1M..8M) holds, so the library uses only as many buffers at a time
 *    as it has page sets, as Linux's qeth driver arms only its inbound buffer_count of the
 *    128 buffers:
 *      N = min(128, QUEUESTORAGE / 2 / 64 KB) sets per queue: 8 at 1M, 16 at 2M, 64 at 8M.
 *    Input set s is data bytes [s x 64 KB, (s + 1) x 64 KB), output set s is
 *    [QUEUESTORAGE / 2 + s x 64 KB, ...): together exactly the data area.
 *  - Input: init_queues arms buffers 0..N-1 (0x41), buffer b with set b, all 16 entries
 *    of 4 KB, the last flagged last-entry; the other 128 - N buffers stay 0x80 (not
 *    offered). Once it has processed buffer b (0x82, or 0x8F refused) the library sets b
 *    to 0x80 and arms buffer (b + N) mod 128 with b's set: memory moves forward in the
 *    ring and exactly N buffers are armed at any time (with N dividing 128, as at 1M, 2M,
 *    4M and 8M, buffer b always has set b mod N). The adapter fills only 0x41 buffers, so
 *    the input queue is full when N buffers are primed: up to N x 16 frames wait (128 small
 *    frames at 1M, 1024 at 8M, as many as with 128 smaller buffers before).
 *  - Output: at most N buffers are outstanding (taken and not yet reaped). Buffers are
 *    taken and reaped in ring order and the k-th buffer taken since init_queues uses set
 *    k mod N (buffer b uses set b mod N when N divides 128), so the set a buffer takes was
 *    last used by the buffer taken N before, which has been reaped. With N outstanding,
 *    send and tx_reserve reap first, then fail with -ENOBUFS.
 *  - Every frame has its own entry, or group of entries, and starts with the 32-byte qeth
 *    layer-2 header (qdio.h). zvs_qdio_guest_send packs (as a qeth driver does in its
 *    packing mode): a frame whose header + bytes fit in the rest of the current 4 KB page
 *    is one entry there, at the next 8-byte boundary behind the previous frame; any other
 *    starts at the next page and continues over the following pages, one entry each,
 *    flagged first/middle/last. At most `pack` frames (set_pack, default 16) and 16
 *    entries per buffer: 16 frames of 64 bytes share one page and one buffer hand-over
 *    (take, prime, reap on this side; take, parse, release on the adapter's), which is what
 *    makes small frames cheap; pack 1 gives one frame per buffer, as a qeth driver outside
 *    packing mode.
 *  - The largest frame is 64 KB - 32 = 65504 bytes (ZVS_QDIO_FRAME_MAX) at every
 *    QUEUESTORAGE: a 9000-byte jumbo frame fits at 1M too. Larger frames are refused with
 *    -EMSGSIZE before anything is written.
 *  - Zero-copy send (tx_reserve/tx_commit) always places one frame per fresh page.
 *  - The adapter writes frames into an armed input buffer the same way: each from a
 *    fresh entry (page), up to 16 per buffer.
 */
#ifndef ZVS_QDIO_GUEST_H
#define ZVS_QDIO_GUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "dataplane/frame.h"
#include "qdio/qdio.h"

struct zvs_qdio_guest;

/* A frame to send: contiguous bytes plus offload metadata (virtio-net meaning). */
struct zvs_qdio_pkt {
    const void     *data;
    uint32_t        len;
    struct zvs_vnet vnet;
};

/* A received frame, valid during the callback only (its bytes are in the input buffer). */
struct zvs_qdio_rx {
    const struct iovec  *iov;           /* frame bytes, one piece per entry */
    uint32_t             niov;
    uint32_t             len;           /* frame bytes (hdr.pkt_length) */
    struct zvs_qdio_fhdr hdr;           /* header fields, vnet metadata included */
    uint32_t             buf;           /* input buffer index */
    uint8_t              slsb;          /* that buffer's state now (0x81: acknowledged) */
};

typedef void (*zvs_qdio_rx_fn)(void *arg, const struct zvs_qdio_rx *rx);

/* Attach to a region already mapped in this process (not unmapped on detach). Checks the
 * header (magic, version, sizes, offsets) against `size`. fds may be -1: no signalling.
 * Returns 0, -EINVAL for a region that is not a valid NIC region, -ENOMEM. */
int  zvs_qdio_guest_attach(void *region, size_t size, int siga_fd, int irq_fd,
                           struct zvs_qdio_guest **out);
/* Map a NIC region from its memfd (MAP_SHARED), then attach; detach unmaps it. The fds
 * stay the caller's. */
int  zvs_qdio_guest_map(int memfd, int siga_fd, int irq_fd, struct zvs_qdio_guest **out);
void zvs_qdio_guest_detach(struct zvs_qdio_guest *g);

/* Establish the queues: input buffers 0..N-1 0x41, each with the 16 entries of its page
 * set, the others 0x80; every output buffer 0xA1. Refused (-EBUSY) while any buffer
 * belongs to the adapter. */
int  zvs_qdio_guest_init_queues(struct zvs_qdio_guest *g);

/* Frames packed into one output buffer at most (1..16, default 16); -EINVAL otherwise.
 * 1: one frame per buffer. Applies to send and to zero-copy send alike. */
int  zvs_qdio_guest_set_pack(struct zvs_qdio_guest *g, uint32_t frames_per_buf);
/* Largest frame a buffer holds under the layout policy: ZVS_QDIO_FRAME_MAX (65504). */
uint32_t zvs_qdio_guest_max_frame(const struct zvs_qdio_guest *g);
/* Page sets per queue (N of the layout policy): input buffers armed at any time, output
 * buffers outstanding at most. 8 at QUEUESTORAGE 1M, 64 at 8M. */
uint32_t zvs_qdio_guest_sets(const struct zvs_qdio_guest *g);

/* Send frames in order: fill empty output buffers (0xA1, reaping finished ones when N are
 * outstanding), prime each (0x62), then one SIGA-w if the adapter wants it. Returns how
 * many frames were queued; when none: -EMSGSIZE (first frame too large or empty),
 * -EINVAL (its offload metadata is inconsistent), -ENOBUFS (N buffers outstanding: no
 * page set free), -EIO (the adapter broke the ownership protocol). */
int  zvs_qdio_guest_send(struct zvs_qdio_guest *g, const struct zvs_qdio_pkt *pkts, int n);

/* Zero-copy send, for a driver that reads frames straight into the output queue (a tap:
 * readv into the entries). One output buffer at a time is "open": taken (0xA1, ours)
 * but not primed, so frames can be packed into it one by one.
 *  - tx_reserve: iov[] gets the data space of the next frame slot: the open buffer's free
 *    entries from the next one on, the first after its 32-byte header room (at most
 *    max_iov pieces; the sum of their lengths is the room). Opens an empty buffer when
 *    none is open. Calling it again without a commit gives the same slot. Returns the
 *    number of iovecs (>= 1), or -EINVAL (max_iov < 1), -ENOBUFS (N buffers outstanding),
 *    -EIO (the adapter broke the ownership protocol).
 *  - tx_commit: the first len bytes of the reserved space are a frame: its header is
 *    written (classified from the bytes, offload metadata from vnet, NULL: none) and its
 *    entries flagged first/middle/last. A buffer that has no free entry left, or holds
 *    `pack` frames, is primed (0x62) at once. Returns 0, or -ENOENT (nothing reserved),
 *    -EMSGSIZE (len 0 or beyond the room: nothing committed), -EINVAL (metadata the
 *    adapter would refuse: nothing committed).
 *  - tx_flush: prime the open buffer if it holds frames (an open buffer without frames is
 *    given back to the ring unused), then one SIGA-w if anything was primed since the
 *    last flush and the adapter wants it. Returns the buffers primed since the last flush.
 * zvs_qdio_guest_send flushes an open buffer first, so the two ways can be mixed; frames
 * keep their order. */
int  zvs_qdio_guest_tx_reserve(struct zvs_qdio_guest *g, struct iovec *iov, int max_iov);
int  zvs_qdio_guest_tx_commit(struct zvs_qdio_guest *g, uint32_t len,
                              const struct zvs_vnet *vnet);
int  zvs_qdio_guest_tx_flush(struct zvs_qdio_guest *g);
/* tx_reserve, a copy and tx_commit in one, for a driver that already has the frame's bytes
 * (a packet socket's ring) and a frame of 1..4064 bytes: it goes into the open buffer's
 * next free page (a buffer opened first when none is, as tx_reserve opens one; the
 * length is checked before that). Returns 0, or
 * -EMSGSIZE (len 0 or past one page: use tx_reserve and tx_commit), -EINVAL (metadata the
 * adapter would refuse), -ENOBUFS, -EIO; nothing is committed when it fails. */
int  zvs_qdio_guest_tx_put(struct zvs_qdio_guest *g, const uint8_t *frame, uint32_t len,
                           const struct zvs_vnet *vnet);

/* A hint before tx_reserve: the next frame may be len bytes (a reader passes the largest
 * of a run of large frames, 0 for none). If the open buffer already holds frames and has
 * less room than that, it is primed now (signalled at the next tx_flush), so the frame
 * lands whole in a fresh buffer instead of being read past the open one's end and copied
 * into a fresh one. Returns true when it closed the buffer. */
bool zvs_qdio_guest_tx_expect(struct zvs_qdio_guest *g, uint32_t len);

/* Collect output buffers the adapter has finished with, in order: 0xA1 done, 0xAF
 * refused (counted in out_errors_seen, SBALF kept for zvs_qdio_guest_last_error, the
 * buffer returned to 0xA1). Returns the number of buffers collected. */
int  zvs_qdio_guest_reap(struct zvs_qdio_guest *g);
/* SBALF (entry << 8 | reason) of the last refused output buffer, 0 if none; buffer in *buf. */
uint16_t zvs_qdio_guest_last_error(const struct zvs_qdio_guest *g, uint32_t *buf);

/* Process primed input buffers (0x82) in order until `budget` frames are passed: set the
 * buffer 0x81, give every frame to fn, set it 0x80 and arm buffer (b + N) mod 128 with its
 * page set (0x41); a SIGA-r follows if the adapter wants it. Whole buffers only, so up to
 * 15 frames past the budget. Buffers the adapter refused (0x8F) pass their set on too.
 * Returns frames passed. */
int  zvs_qdio_guest_receive(struct zvs_qdio_guest *g, int budget, zvs_qdio_rx_fn fn, void *arg);
/* Copy a received frame out (up to cap bytes); returns bytes copied. */
uint32_t zvs_qdio_rx_copy(const struct zvs_qdio_rx *rx, void *dst, uint32_t cap);
/* True when the next input buffer is primed (or refused) and receive has work. */
bool zvs_qdio_guest_rx_pending(const struct zvs_qdio_guest *g);

/* Arm the thin interrupt; returns true when input is already waiting (poll again rather
 * than sleep: the adapter may have primed it just before the arm). */
bool zvs_qdio_guest_arm_irq(struct zvs_qdio_guest *g);
/* Disarm while polling (NAPI style): the adapter raises no interrupts. */
void zvs_qdio_guest_disarm_irq(struct zvs_qdio_guest *g);
/* Consume pending interrupts (non-blocking read of irq_fd); returns how many. */
uint64_t zvs_qdio_guest_irq_ack(struct zvs_qdio_guest *g);
/* "Input buffers replenished": SIGA-r (signals siga_fd, counted). */
void zvs_qdio_guest_siga_r(struct zvs_qdio_guest *g);

int  zvs_qdio_guest_irq_fd(const struct zvs_qdio_guest *g);
void zvs_qdio_guest_counters(const struct zvs_qdio_guest *g, struct zvs_qdio_counters *out);

#endif
