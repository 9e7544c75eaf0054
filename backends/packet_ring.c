/* packet_ring: a packet socket's TPACKET_V2 receive ring (see packet_ring.h). */
#include "backends/packet_ring.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>

int zvs_packet_ring_open(struct zvs_packet_ring *r, int fd, uint32_t frame_size,
                         uint32_t frames)
{
    memset(r, 0, sizeof *r);
    /* Slots whole in each block, so that slot i is at i * frame_size in the mapping (the
     * kernel maps the blocks one after the other). */
    if (frame_size < 64 || frame_size > ZVS_PACKET_RING_BLOCK ||
        (frame_size & (frame_size - 1)) != 0 || frames == 0)
        return -EINVAL;
    uint32_t per_block = ZVS_PACKET_RING_BLOCK / frame_size;
    uint32_t blocks = (frames + per_block - 1) / per_block;
    struct tpacket_req req = { .tp_block_size = ZVS_PACKET_RING_BLOCK,
                               .tp_block_nr = blocks,
                               .tp_frame_size = frame_size,
                               .tp_frame_nr = blocks * per_block };
    int v2 = TPACKET_V2;
    if (setsockopt(fd, SOL_PACKET, PACKET_VERSION, &v2, sizeof v2) < 0 ||
        setsockopt(fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof req) < 0)
        return -errno;
    size_t len = (size_t)blocks * ZVS_PACKET_RING_BLOCK;
    void *base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED) {
        int e = errno;
        struct tpacket_req none = { 0 };    /* the ring goes: nobody could read it */
        (void)setsockopt(fd, SOL_PACKET, PACKET_RX_RING, &none, sizeof none);
        return -e;
    }
    r->base = base;
    r->len = len;
    r->frame_size = frame_size;
    r->frames = req.tp_frame_nr;
    return 0;
}

void zvs_packet_ring_close(struct zvs_packet_ring *r)
{
    if (!r || !r->base)
        return;
    (void)munmap(r->base, r->len);
    memset(r, 0, sizeof *r);
}
