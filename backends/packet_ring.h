/* packet_ring: a packet socket's receive ring (PACKET_RX_RING, TPACKET_V2), mapped into
 * the process, for readers that take frames without a system call.
 *
 * The kernel copies each frame it gives the socket into the next ring frame (a slot of
 * frame_size bytes: struct tpacket2_hdr, struct sockaddr_ll, the virtio-net header when
 * the socket has PACKET_VNET_HDR, right before the MAC header at tp_mac - 10, then the
 * frame) and hands the slot over by setting TP_STATUS_USER; the reader walks the slots in
 * ring order and hands each back (TP_STATUS_KERNEL). A full ring (the next slot still the
 * reader's) is a drop the kernel counts in PACKET_STATISTICS' tp_drops, as for a full
 * receive buffer. The socket polls readable while the slot the kernel filled last is the
 * reader's, so a reader that walks in order until a slot is not handed over never sleeps
 * on a frame waiting (the kernel wakes it after every slot it hands over).
 *
 * Why TPACKET_V2 and not V3: V3 hands a block of frames over only when it is full or its
 * retire timer (1 ms at the least) fires, which adds up to that much latency to a guest
 * that sends little and runs a kernel timer per socket; V2 hands every frame over at once
 * (tests/bench/README.md, "What the rings would change, measured").
 *
 * A frame larger than a slot: the kernel writes what fits (tp_snaplen < tp_len); with
 * PACKET_COPY_THRESH on and room in the socket's receive buffer it also queues the whole
 * frame on the socket (TP_STATUS_COPY), to be read with recvmsg in ring order. Which of
 * the two a reader does is its own: this file only maps and walks.
 *
 * Memory order: the kernel writes the slot, then its status (smp_wmb before it); the
 * reader loads the status with acquire before reading the slot and stores
 * TP_STATUS_KERNEL with release after its last read of it.
 */
#ifndef ZVS_PACKET_RING_H
#define ZVS_PACKET_RING_H

#include <stddef.h>
#include <stdint.h>
#include <linux/if_packet.h>

#define ZVS_PACKET_RING_BLOCK (64u << 10) /* the kernel's unit of ring memory */

struct zvs_packet_ring {
    uint8_t  *base;                     /* the mapping; NULL: no ring */
    size_t    len;                      /* its bytes */
    uint32_t  frame_size;               /* bytes a slot, a power of two */
    uint32_t  frames;                   /* slots */
    uint32_t  head;                     /* the next slot to take */
};

/* Gives packet socket fd a receive ring of at least `frames` slots of frame_size bytes
 * (a power of two from 64 to ZVS_PACKET_RING_BLOCK; frames are rounded up to whole
 * blocks) and maps it into *r. Set PACKET_VNET_HDR before (the kernel refuses it once a
 * ring exists) and bind after, so that no frame was queued the old way. 0, or -errno with
 * *r zeroed and fd without a ring. */
int  zvs_packet_ring_open(struct zvs_packet_ring *r, int fd, uint32_t frame_size,
                          uint32_t frames);
/* Unmaps; the socket keeps its ring until it is closed. r zeroed; NULL or unmapped: nothing. */
void zvs_packet_ring_close(struct zvs_packet_ring *r);

/* The slot at head when the kernel has handed it over, NULL when it has not. */
static inline struct tpacket2_hdr *zvs_packet_ring_peek(const struct zvs_packet_ring *r)
{
    struct tpacket2_hdr *h =
        (struct tpacket2_hdr *)(void *)(r->base + (size_t)r->head * r->frame_size);
    return __atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE) & TP_STATUS_USER ? h : NULL;
}

/* The slot at head back to the kernel, after the last read of it; head steps on. */
static inline void zvs_packet_ring_release(struct zvs_packet_ring *r,
                                           struct tpacket2_hdr *h)
{
    __atomic_store_n(&h->tp_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
    r->head = r->head + 1 == r->frames ? 0 : r->head + 1;
}

/* The frame's first byte (its MAC header) in slot h. */
static inline const uint8_t *zvs_packet_ring_mac(const struct tpacket2_hdr *h)
{
    return (const uint8_t *)h + h->tp_mac;
}

#endif
