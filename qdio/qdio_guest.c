/* QDIO program side: the guest's device driver (layout policy in qdio_guest.h).
 *
 * Owns: the program's view of one NIC region: which output buffer it fills next, which
 * it reaps next, which input buffer it processes next, which 64 KB page set each armed
 * input buffer and each outstanding output buffer uses, and the program-written counters
 * in the region header.
 *
 * Rules:
 *  - The program fills only 0xA1 output buffers and processes only 0x82 input buffers.
 *    Both rings are walked in order, so the next buffer's state is known from our own
 *    bookkeeping; a state that disagrees means the adapter broke the protocol and the
 *    call fails with -EIO rather than touching a buffer it does not own.
 *  - Writes to an SBAL and its data come before the release store of the SLSB byte that
 *    hands the buffer over; reads come after the acquire load that took it back.
 *  - What the adapter wrote into input buffers is parsed with the same checks the
 *    adapter applies to output buffers (zvs_qdio_sbal_parse): a buffer that does not
 *    parse is counted and recycled, never read past its entries.
 *  - Page sets (N per queue, layout policy): a set belongs to at most one buffer the
 *    adapter may touch. Input: exactly N buffers are armed, a window in ring order from
 *    in_next; processing buffer b passes its set to b + N, the first buffer past the
 *    window, which is ours (0x80). Output: at most N buffers taken and not reaped, the
 *    sets handed out in rotation (out_set_next), so FIFO reaping frees them in order.
 *  - Send places frames with one rule (out_place): a frame that fits in the rest of the
 *    current 4 KB page takes one entry there, any other starts at the next page; the next
 *    frame may start at the next 8-byte boundary (packing). A frame without offload
 *    metadata gets its header written directly (zvs_qdio_fhdr_put_plain); one with
 *    metadata is built, checked with zvs_qdio_fhdr_check and encoded.
 *
 *  - Zero-copy send keeps one output buffer "open" (taken, still 0xA1, not primed) while
 *    a driver reads frames into its entries. The reaper must stop there: 0xA1 on that
 *    buffer means "not handed over yet", not "the adapter is done with it". It is always
 *    the newest buffer taken, so an unused open buffer is given back by stepping the
 *    ring (and the set rotation) back one.
 *
 * Hazards: the interrupt arm races with the adapter priming a buffer; both sides fence
 * (seq_cst) between their store and their load so one of them always sees the other, and
 * zvs_qdio_guest_arm_irq reports work that slipped in before the arm.
 */
#include "qdio/qdio_guest.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Packing: a frame's successor starts at the next multiple of 8 bytes, so 16 frames of
 * 64 bytes (96 with their headers) take 1.5 KB of one page instead of 16 pages. */
#define PACK_ALIGN  8u
#define SET_SIZE    ZVS_QDIO_BUF_MAX    /* a page set: what one buffer may hold */

_Static_assert(ZVS_QDIO_NBUFS <= 256, "a set number fits a byte");

struct zvs_qdio_guest {
    uint8_t                   *base;        /* region in this process */
    size_t                     size;
    bool                       mapped;      /* we mapped it: unmap on detach */
    int                        siga_fd;
    int                        irq_fd;
    struct zvs_qdio_shm_hdr   *hdr;
    struct zvs_qdio_queue_shm *inq;
    struct zvs_qdio_queue_shm *outq;
    struct zvs_qdio_geom       geo;
    uint32_t                   pack;        /* frames per output buffer at most */
    uint32_t                   nsets;       /* page sets per queue (N): armed input buffers,
                                               outstanding output buffers at most */
    uint64_t                   out_sets_off;    /* data offset of output set 0: QS / 2 */
    uint32_t                   out_next;    /* next output buffer to fill */
    uint32_t                   out_reap;    /* oldest output buffer handed to the adapter */
    uint32_t                   out_busy;    /* output buffers taken, not yet reaped (<= N) */
    uint32_t                   out_set_next;    /* set the next output buffer taken gets */
    uint8_t                    out_set[ZVS_QDIO_NBUFS];    /* set of each taken buffer */
    uint8_t                    in_set[ZVS_QDIO_NBUFS];     /* set of each armed buffer */
    uint16_t                   out_seq;     /* seq_no of the next frame sent */
    uint16_t                   last_sbalf;  /* of the last refused output buffer */
    uint32_t                   last_err_buf;
    uint32_t                   in_next;     /* next input buffer to process */
    int32_t                    tx_cur;      /* open output buffer (zero-copy), -1: none */
    uint32_t                   tx_used;     /* its entries holding frames */
    uint32_t                   tx_frames;   /* its frames */
    uint32_t                   tx_primed;   /* buffers primed since the last tx_flush */
    struct iovec               rx_iov[ZVS_QDIO_NSBALE];
    struct zvs_qdio_parsed     rx_fr[ZVS_QDIO_NSBALE];
};

/* ---- Attach ------------------------------------------------------------------------ */

static int check_region(const struct zvs_qdio_shm_hdr *h, size_t size)
{
    if (size < ZVS_QDIO_DATA_OFF)
        return -EINVAL;
    if (h->magic != ZVS_QDIO_MAGIC || h->version != ZVS_QDIO_VERSION ||
        h->nbufs != ZVS_QDIO_NBUFS || h->hdr_size != ZVS_QDIO_HDR_SIZE ||
        h->nsbale != ZVS_QDIO_NSBALE || h->entry_size != ZVS_QDIO_ENTRY_SIZE)
        return -EINVAL;
    if (h->queuestorage > UINT32_MAX ||
        zvs_qdio_check_queuestorage((uint32_t)h->queuestorage) < 0)
        return -EINVAL;
    if (h->region_size != size || size != zvs_qdio_region_size((uint32_t)h->queuestorage))
        return -EINVAL;
    if (h->in_q_off != ZVS_QDIO_IN_Q_OFF || h->out_q_off != ZVS_QDIO_OUT_Q_OFF ||
        h->data_off != ZVS_QDIO_DATA_OFF || h->buf_bytes != ZVS_QDIO_BUF_MAX)
        return -EINVAL;
    return 0;
}

int zvs_qdio_guest_attach(void *region, size_t size, int siga_fd, int irq_fd,
                          struct zvs_qdio_guest **out)
{
    struct zvs_qdio_shm_hdr *h = region;
    struct zvs_qdio_guest *g;
    int rc;

    *out = NULL;
    if ((uintptr_t)region % 64 != 0)
        return -EINVAL;
    rc = check_region(h, size);
    if (rc < 0)
        return rc;
    g = calloc(1, sizeof(*g));
    if (!g)
        return -ENOMEM;
    g->base = region;
    g->size = size;
    g->siga_fd = siga_fd;
    g->irq_fd = irq_fd;
    g->hdr = h;
    g->inq = zvs_qdio_at(g->base, ZVS_QDIO_IN_Q_OFF);
    g->outq = zvs_qdio_at(g->base, ZVS_QDIO_OUT_Q_OFF);
    g->geo.data = g->base + ZVS_QDIO_DATA_OFF;
    g->geo.data_size = h->queuestorage;
    g->geo.entry_size = ZVS_QDIO_ENTRY_SIZE;
    g->geo.buf_bytes = ZVS_QDIO_BUF_MAX;
    g->geo.buf_entries = ZVS_QDIO_NSBALE;
    g->pack = ZVS_QDIO_NSBALE;
    /* N = min(128, QS / 2 / 64 KB): 8 at 1M .. 64 at 8M; never 0 (QS >= 1M) */
    g->nsets = (uint32_t)(h->queuestorage / 2 / SET_SIZE);
    if (g->nsets > ZVS_QDIO_NBUFS)
        g->nsets = ZVS_QDIO_NBUFS;
    assert(g->nsets >= 1);
    g->out_sets_off = h->queuestorage / 2;
    g->tx_cur = -1;
    *out = g;
    return 0;
}

int zvs_qdio_guest_map(int memfd, int siga_fd, int irq_fd, struct zvs_qdio_guest **out)
{
    struct stat st;
    void *base;
    int rc;

    *out = NULL;
    if (fstat(memfd, &st) < 0)
        return -errno;
    if (st.st_size < (off_t)ZVS_QDIO_DATA_OFF)
        return -EINVAL;
    base = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
    if (base == MAP_FAILED)
        return -errno;
    rc = zvs_qdio_guest_attach(base, (size_t)st.st_size, siga_fd, irq_fd, out);
    if (rc < 0)
        goto fail;
    (*out)->mapped = true;
    return 0;
fail:
    munmap(base, (size_t)st.st_size);
    return rc;
}

void zvs_qdio_guest_detach(struct zvs_qdio_guest *g)
{
    if (!g)
        return;
    if (g->mapped)
        munmap(g->base, g->size);
    free(g);
}

/* ---- Queues ------------------------------------------------------------------------- */

/* Data area offset of the page set of input buffer b / output buffer b. */
static uint64_t in_share(const struct zvs_qdio_guest *g, uint32_t b)
{
    return (uint64_t)g->in_set[b] * SET_SIZE;
}

static uint64_t out_share(const struct zvs_qdio_guest *g, uint32_t b)
{
    return g->out_sets_off + (uint64_t)g->out_set[b] * SET_SIZE;
}

/* Offer page set `set` to the adapter as input buffer b: its 16 pages, the last one
 * flagged last-entry, then 0x41. b must be ours and not armed. */
static void in_arm(struct zvs_qdio_guest *g, uint32_t b, uint8_t set)
{
    struct zvs_sbal *s = &g->inq->sbal[b];

    g->in_set[b] = set;
    uint64_t base = in_share(g, b);
    /* The last-entry flag after the loop: a loop of equal entries is straight stores. */
    for (uint32_t e = 0; e < ZVS_QDIO_NSBALE; e++) {
        s->e[e].addr = base + (uint64_t)e * ZVS_QDIO_ENTRY_SIZE;
        s->e[e].length = ZVS_QDIO_ENTRY_SIZE;
        s->e[e].flags = 0;
    }
    s->e[ZVS_QDIO_NSBALE - 1].flags = ZVS_SBALE_LAST_ENTRY;
    g->inq->sbalf[b] = 0;
    zvs_slsb_set(&g->inq->slsb[b], ZVS_SLSB_CU_INPUT_EMPTY);
}

int zvs_qdio_guest_init_queues(struct zvs_qdio_guest *g)
{
    for (uint32_t b = 0; b < ZVS_QDIO_NBUFS; b++) {
        if (!(zvs_slsb_get(&g->inq->slsb[b]) & ZVS_SLSB_OWNER_PROG) ||
            !(zvs_slsb_get(&g->outq->slsb[b]) & ZVS_SLSB_OWNER_PROG))
            return -EBUSY;
    }
    for (uint32_t b = 0; b < ZVS_QDIO_NBUFS; b++) {
        memset(&g->outq->sbal[b], 0, sizeof(g->outq->sbal[b]));
        g->outq->sbalf[b] = 0;
        zvs_slsb_set(&g->outq->slsb[b], ZVS_SLSB_P_OUTPUT_EMPTY);
        if (b < g->nsets) {
            in_arm(g, b, (uint8_t)b);
        } else {
            /* not offered: no page set for it until the ring reaches it */
            memset(&g->inq->sbal[b], 0, sizeof(g->inq->sbal[b]));
            g->inq->sbalf[b] = 0;
            zvs_slsb_set(&g->inq->slsb[b], ZVS_SLSB_P_INPUT_NOT_INIT);
        }
    }
    g->out_next = g->out_reap = g->out_busy = g->out_set_next = 0;
    g->in_next = 0;
    g->tx_cur = -1;
    g->tx_used = g->tx_frames = g->tx_primed = 0;
    return 0;
}

int zvs_qdio_guest_set_pack(struct zvs_qdio_guest *g, uint32_t frames_per_buf)
{
    if (frames_per_buf < 1 || frames_per_buf > ZVS_QDIO_NSBALE)
        return -EINVAL;
    g->pack = frames_per_buf;
    return 0;
}

uint32_t zvs_qdio_guest_max_frame(const struct zvs_qdio_guest *g)
{
    (void)g;
    return ZVS_QDIO_FRAME_MAX;
}

uint32_t zvs_qdio_guest_sets(const struct zvs_qdio_guest *g)
{
    return g->nsets;
}

/* ---- Output ------------------------------------------------------------------------- */

static void count(uint64_t *c, uint64_t n)
{
    zvs_ctr_add(c, n);
}

int zvs_qdio_guest_reap(struct zvs_qdio_guest *g)
{
    int n = 0;

    while (g->out_busy > 0) {
        uint32_t b = g->out_reap;
        if ((int32_t)b == g->tx_cur)
            break;                      /* open for zero-copy send: ours, not done */
        uint8_t st = zvs_slsb_get(&g->outq->slsb[b]);

        if (st == ZVS_SLSB_P_OUTPUT_ERROR) {
            g->last_sbalf = g->outq->sbalf[b];
            g->last_err_buf = b;
            count(&g->hdr->prog.out_errors_seen, 1);
            zvs_slsb_set(&g->outq->slsb[b], ZVS_SLSB_P_OUTPUT_EMPTY);
        } else if (st != ZVS_SLSB_P_OUTPUT_EMPTY) {
            break;                      /* still the adapter's (0x62) */
        }
        g->out_reap = (b + 1) % ZVS_QDIO_NBUFS;
        g->out_busy--;
        n++;
    }
    return n;
}

uint16_t zvs_qdio_guest_last_error(const struct zvs_qdio_guest *g, uint32_t *buf)
{
    if (buf)
        *buf = g->last_err_buf;
    return g->last_sbalf;
}

/* The next empty output buffer with the next free page set, or -ENOBUFS (N outstanding)
 * / -EIO. */
static int out_take(struct zvs_qdio_guest *g)
{
    if (g->out_busy == g->nsets)
        zvs_qdio_guest_reap(g);
    if (g->out_busy == g->nsets)
        return -ENOBUFS;
    uint32_t b = g->out_next;
    /* Reaped (or never used) buffers are ours and stay 0xA1 until we prime them. */
    if (zvs_slsb_get(&g->outq->slsb[b]) != ZVS_SLSB_P_OUTPUT_EMPTY)
        return -EIO;
    g->out_next = (b + 1) % ZVS_QDIO_NBUFS;
    g->out_busy++;
    /* The outstanding buffers hold the busy - 1 sets before this one in rotation. */
    g->out_set[b] = (uint8_t)g->out_set_next;
    g->out_set_next = (g->out_set_next + 1) % g->nsets;
    return (int)b;
}

static void out_prime(struct zvs_qdio_guest *g, uint32_t b, uint32_t used)
{
    assert(used >= 1 && used <= ZVS_QDIO_NSBALE);
    g->outq->sbal[b].e[used - 1].flags |= ZVS_SBALE_LAST_ENTRY;
    zvs_slsb_set(&g->outq->slsb[b], ZVS_SLSB_CU_OUTPUT_PRIMED);
    count(&g->hdr->prog.out_bufs_primed, 1);
}

static uint32_t entries_for(uint32_t len)
{
    return (ZVS_QDIO_FHDR_LEN + len + ZVS_QDIO_ENTRY_SIZE - 1) / ZVS_QDIO_ENTRY_SIZE;
}

/* Fragment flags of entry k of a frame spread over `need` entries. */
static uint32_t frag_flags(uint32_t k, uint32_t need)
{
    return need == 1 ? ZVS_SBALE_FRAG_NONE
           : k == 0 ? ZVS_SBALE_FRAG_FIRST
           : k == need - 1 ? ZVS_SBALE_FRAG_LAST : ZVS_SBALE_FRAG_MIDDLE;
}

/* Header of a frame to send (host order), classified from its bytes; -EMSGSIZE / -EINVAL
 * when the adapter would refuse it. */
static int out_header(struct zvs_qdio_guest *g, const struct zvs_qdio_pkt *p,
                      struct zvs_qdio_fhdr *h)
{
    if (p->len == 0 || p->len > zvs_qdio_guest_max_frame(g))
        return -EMSGSIZE;
    memset(h, 0, sizeof(*h));
    h->vnet = p->vnet;
    h->id = p->vnet.gso_type != ZVS_VNET_GSO_NONE ? ZVS_QETH_HDR_L2_TSO : ZVS_QETH_HDR_LAYER2;
    h->hdr_length = ZVS_QDIO_FHDR_LEN;
    h->pkt_length = (uint16_t)p->len;
    h->seq_no = g->out_seq;
    zvs_qdio_fhdr_classify(h, p->data, p->len);
    return zvs_qdio_fhdr_check(h);
}

/* Where the next frame goes in the open output buffer: its share offset and entries. A
 * frame whose header and bytes fit in the rest of the 4 KB page at `pos` takes one entry
 * there; any other starts at the next page and spans whole pages (first/middle/last). */
struct out_slot {
    uint32_t start;                     /* offset in the buffer's share */
    uint32_t nent;                      /* entries */
};

static struct out_slot out_place(uint32_t pos, uint32_t need)
{
    struct out_slot s = { pos, 1 };

    if (need > ZVS_QDIO_ENTRY_SIZE - pos % ZVS_QDIO_ENTRY_SIZE) {
        s.start = (pos + ZVS_QDIO_ENTRY_SIZE - 1) / ZVS_QDIO_ENTRY_SIZE * ZVS_QDIO_ENTRY_SIZE;
        s.nent = (need + ZVS_QDIO_ENTRY_SIZE - 1) / ZVS_QDIO_ENTRY_SIZE;
    }
    return s;
}

/* Write header and frame at share offset `off` (data area offset) into sl.nent entries
 * from se. hdr: NULL for a plain frame (zvs_qdio_fhdr_put_plain), else the encoded one. */
static inline void out_write(struct zvs_qdio_guest *g, uint64_t off, struct zvs_sbale *se,
                             uint32_t nent, const uint8_t *hdr, const struct zvs_qdio_pkt *p,
                             uint16_t seq)
{
    uint8_t *dst = g->geo.data + off;

    if (hdr)
        memcpy(dst, hdr, ZVS_QDIO_FHDR_LEN);
    else
        zvs_qdio_fhdr_put_plain(dst, p->data, p->len, seq);
    if (__builtin_expect(nent == 1, 1)) {
        memcpy(dst + ZVS_QDIO_FHDR_LEN, p->data, p->len);
        se->addr = off;
        se->length = ZVS_QDIO_FHDR_LEN + p->len;
        se->flags = ZVS_SBALE_FRAG_NONE;
        return;
    }
    const uint8_t *src = p->data;
    uint32_t left = p->len;
    for (uint32_t k = 0; k < nent; k++, se++) {
        uint32_t skip = k == 0 ? ZVS_QDIO_FHDR_LEN : 0;
        uint32_t take = left < ZVS_QDIO_ENTRY_SIZE - skip ? left : ZVS_QDIO_ENTRY_SIZE - skip;

        memcpy(g->geo.data + off + skip, src, take);
        src += take;
        left -= take;
        se->addr = off;
        se->length = skip + take;
        se->flags = frag_flags(k, nent);
        off += ZVS_QDIO_ENTRY_SIZE;
    }
    assert(left == 0);
}

static void siga(struct zvs_qdio_guest *g, uint64_t *counter)
{
    uint64_t one = 1;

    if (g->siga_fd >= 0 && write(g->siga_fd, &one, sizeof(one)) < 0) {
        /* eventfd counter saturated: the adapter has a signal pending anyway */
    }
    count(counter, 1);
}

/* Close the open zero-copy buffer: prime it when it holds frames, else step the ring
 * back over it (it is the newest buffer taken and still 0xA1). True when primed. */
static bool tx_close(struct zvs_qdio_guest *g)
{
    if (g->tx_cur < 0)
        return false;
    uint32_t b = (uint32_t)g->tx_cur;
    bool primed = g->tx_used > 0;

    if (primed) {
        out_prime(g, b, g->tx_used);
        g->tx_primed++;
    } else {
        assert((b + 1) % ZVS_QDIO_NBUFS == g->out_next && g->out_busy > 0);
        g->out_next = b;
        g->out_busy--;
        g->out_set_next = g->out_set[b];
    }
    g->tx_cur = -1;
    g->tx_used = g->tx_frames = 0;
    return primed;
}

int zvs_qdio_guest_send(struct zvs_qdio_guest *g, const struct zvs_qdio_pkt *pkts, int n)
{
    uint8_t raw[ZVS_QDIO_FHDR_LEN];
    const uint32_t max_frame = zvs_qdio_guest_max_frame(g);
    const uint32_t buf_bytes = g->geo.buf_bytes;
    const uint32_t align_mask = PACK_ALIGN - 1;
    /* The open buffer: its share (data area offset), SBALEs, entries and frames used, and
     * where in the share its next frame may start. */
    uint64_t share = 0;
    struct zvs_sbale *sbale = NULL;
    uint32_t used = 0, frames = 0, pos = 0;
    uint16_t seq = g->out_seq;
    int cur = -1, done = 0, err = 0;
    /* Frames of an open zero-copy buffer go first; our SIGA-w covers every buffer primed
     * since the last tx_flush. */
    bool primed = tx_close(g) || g->tx_primed > 0;

    for (int i = 0; i < n; i++) {
        const struct zvs_qdio_pkt *p = &pkts[i];
        const uint8_t *hdr = NULL;

        if (p->len - 1u >= max_frame) {         /* 0 or too large */
            err = -EMSGSIZE;
            break;
        }
        if (__builtin_expect(!zvs_vnet_is_zero(&p->vnet), 0)) {
            struct zvs_qdio_fhdr h;
            err = out_header(g, p, &h);
            if (err < 0)
                break;
            h.seq_no = seq;
            zvs_qdio_fhdr_encode(&h, raw);
            hdr = raw;
        }
        uint32_t need = ZVS_QDIO_FHDR_LEN + p->len;
        struct out_slot sl = out_place(pos, need);
        if (__builtin_expect(cur < 0 || sl.start + need > buf_bytes ||
                             used + sl.nent > ZVS_QDIO_NSBALE || frames == g->pack, 0)) {
            if (cur >= 0) {
                out_prime(g, (uint32_t)cur, used);
                primed = true;
            }
            cur = out_take(g);
            if (cur < 0) {
                err = cur;
                break;
            }
            share = out_share(g, (uint32_t)cur);
            sbale = g->outq->sbal[cur].e;
            used = frames = 0;
            sl = out_place(0, need);
        }
        out_write(g, share + sl.start, sbale + used, sl.nent, hdr, p, seq);
        used += sl.nent;
        frames++;
        done++;
        seq++;
        pos = (sl.start + need + align_mask) & ~align_mask;
    }
    if (cur >= 0) {
        out_prime(g, (uint32_t)cur, used);
        primed = true;
    }
    g->out_seq = seq;
    count(&g->hdr->prog.out_frames, (uint64_t)done);
    g->tx_primed = 0;
    if (primed && (__atomic_load_n(&g->hdr->ac1, __ATOMIC_ACQUIRE) & ZVS_QDIO_AC1_SIGA_OUTPUT))
        siga(g, &g->hdr->prog.siga_w);
    return done > 0 ? done : err;
}

/* ---- Zero-copy output ------------------------------------------------------------------ */

static uint8_t *out_entry(struct zvs_qdio_guest *g, uint32_t b, uint32_t e)
{
    return g->geo.data + out_share(g, b) + (uint64_t)e * ZVS_QDIO_ENTRY_SIZE;
}

/* An open buffer with a free entry: the one open, else a fresh one taken. 0 or out_take's
 * -ENOBUFS / -EIO. */
static inline int tx_open(struct zvs_qdio_guest *g)
{
    /* commit primes a full buffer at once; only a smaller pack set since can leave one */
    if (g->tx_cur >= 0 && g->tx_frames >= g->pack)
        tx_close(g);
    if (g->tx_cur < 0) {
        int b = out_take(g);
        if (b < 0)
            return b;
        g->tx_cur = b;
        g->tx_used = g->tx_frames = 0;
    }
    assert(g->tx_used < g->geo.buf_entries && g->tx_frames < g->pack);
    return 0;
}

int zvs_qdio_guest_tx_reserve(struct zvs_qdio_guest *g, struct iovec *iov, int max_iov)
{
    if (max_iov < 1)
        return -EINVAL;
    int rc = tx_open(g);
    if (rc < 0)
        return rc;
    uint32_t b = (uint32_t)g->tx_cur;
    uint32_t n = g->geo.buf_entries - g->tx_used;
    if (n > (uint32_t)max_iov)
        n = (uint32_t)max_iov;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t skip = k == 0 ? ZVS_QDIO_FHDR_LEN : 0;
        iov[k].iov_base = out_entry(g, b, g->tx_used + k) + skip;
        iov[k].iov_len = ZVS_QDIO_ENTRY_SIZE - skip;
    }
    return (int)n;
}

bool zvs_qdio_guest_tx_expect(struct zvs_qdio_guest *g, uint32_t len)
{
    if (g->tx_cur < 0 || g->tx_used == 0)
        return false;
    uint32_t room = (g->geo.buf_entries - g->tx_used) * ZVS_QDIO_ENTRY_SIZE - ZVS_QDIO_FHDR_LEN;
    if (len <= room)
        return false;
    return tx_close(g);
}

/* The header of a frame of len bytes at dst + ZVS_QDIO_FHDR_LEN, with vnet's metadata
 * (NULL: none). 0 or -EINVAL (metadata the adapter would refuse: nothing written). */
static inline int tx_header(struct zvs_qdio_guest *g, uint8_t *dst, uint32_t len,
                            const struct zvs_vnet *vnet)
{
    if (!vnet || zvs_vnet_is_zero(vnet)) {
        /* No offload metadata (every LCS frame, most from a tap): the header as four
         * word stores, as zvs_qdio_guest_send writes a plain frame's, instead of a
         * classify, a check and an encode that cannot fail it. */
        zvs_qdio_fhdr_put_plain(dst, dst + ZVS_QDIO_FHDR_LEN, len, g->out_seq);
        return 0;
    }
    struct zvs_qdio_pkt p = { .data = dst + ZVS_QDIO_FHDR_LEN, .len = len, .vnet = *vnet };
    struct zvs_qdio_fhdr h;
    int rc = out_header(g, &p, &h);     /* p.data holds min(len, 4064) bytes: enough */
    if (rc == 0)
        zvs_qdio_fhdr_encode(&h, dst);
    return rc;
}

/* A frame of `need` entries written into the open buffer: counted, and the buffer primed
 * when it has no free entry left or holds `pack` frames. */
static inline void tx_done(struct zvs_qdio_guest *g, uint32_t need)
{
    g->tx_used += need;
    g->tx_frames++;
    g->out_seq++;
    count(&g->hdr->prog.out_frames, 1);
    if (g->tx_used == g->geo.buf_entries || g->tx_frames == g->pack)
        tx_close(g);
}

int zvs_qdio_guest_tx_commit(struct zvs_qdio_guest *g, uint32_t len, const struct zvs_vnet *vnet)
{
    if (g->tx_cur < 0)
        return -ENOENT;
    uint32_t b = (uint32_t)g->tx_cur;
    uint32_t e0 = g->tx_used;
    uint32_t room = (g->geo.buf_entries - e0) * ZVS_QDIO_ENTRY_SIZE - ZVS_QDIO_FHDR_LEN;
    if (len == 0 || len > room)         /* room is at most a buffer's: ZVS_QDIO_FRAME_MAX */
        return -EMSGSIZE;
    uint64_t off = out_share(g, b) + (uint64_t)e0 * ZVS_QDIO_ENTRY_SIZE;
    int rc = tx_header(g, g->geo.data + off, len, vnet);
    if (rc < 0)
        return rc;
    uint32_t need = entries_for(len);
    uint32_t left = len;
    struct zvs_sbale *se = &g->outq->sbal[b].e[e0];
    for (uint32_t k = 0; k < need; k++, se++) {
        uint32_t skip = k == 0 ? ZVS_QDIO_FHDR_LEN : 0;
        uint32_t take = left < ZVS_QDIO_ENTRY_SIZE - skip ? left : ZVS_QDIO_ENTRY_SIZE - skip;

        se->addr = off + (uint64_t)k * ZVS_QDIO_ENTRY_SIZE;
        se->length = skip + take;
        se->flags = frag_flags(k, need);
        left -= take;
    }
    assert(left == 0);
    tx_done(g, need);
    return 0;
}

int zvs_qdio_guest_tx_put(struct zvs_qdio_guest *g, const uint8_t *frame, uint32_t len,
                          const struct zvs_vnet *vnet)
{
    if (len == 0 || len > ZVS_QDIO_ENTRY_SIZE - ZVS_QDIO_FHDR_LEN)
        return -EMSGSIZE;
    int rc = tx_open(g);
    if (rc < 0)
        return rc;
    uint32_t b = (uint32_t)g->tx_cur;
    uint32_t e0 = g->tx_used;
    uint64_t off = out_share(g, b) + (uint64_t)e0 * ZVS_QDIO_ENTRY_SIZE;
    uint8_t *dst = g->geo.data + off;
    memcpy(dst + ZVS_QDIO_FHDR_LEN, frame, len);
    rc = tx_header(g, dst, len, vnet);
    if (rc < 0)
        return rc;                      /* the copy lies in a free entry: nothing used */
    struct zvs_sbale *se = &g->outq->sbal[b].e[e0];
    se->addr = off;
    se->length = ZVS_QDIO_FHDR_LEN + len;
    se->flags = ZVS_SBALE_FRAG_NONE;
    tx_done(g, 1);
    return 0;
}

int zvs_qdio_guest_tx_flush(struct zvs_qdio_guest *g)
{
    tx_close(g);
    uint32_t primed = g->tx_primed;
    g->tx_primed = 0;
    if (primed > 0 && (__atomic_load_n(&g->hdr->ac1, __ATOMIC_ACQUIRE) & ZVS_QDIO_AC1_SIGA_OUTPUT))
        siga(g, &g->hdr->prog.siga_w);
    return (int)primed;
}

/* ---- Input -------------------------------------------------------------------------- */

void zvs_qdio_guest_siga_r(struct zvs_qdio_guest *g)
{
    siga(g, &g->hdr->prog.siga_r);
}

bool zvs_qdio_guest_rx_pending(const struct zvs_qdio_guest *g)
{
    uint8_t st = zvs_slsb_get(&g->inq->slsb[g->in_next]);
    return st == ZVS_SLSB_P_INPUT_PRIMED || st == ZVS_SLSB_P_INPUT_ERROR;
}

/* Hand each frame of acknowledged input buffer b to fn; returns frames passed. */
static int in_process(struct zvs_qdio_guest *g, uint32_t b, zvs_qdio_rx_fn fn, void *arg)
{
    uint16_t sbalf = 0;
    int nfr = zvs_qdio_sbal_parse(&g->geo, &g->inq->sbal[b], g->rx_iov, g->rx_fr, &sbalf);

    if (nfr < 0) {
        count(&g->hdr->prog.in_bad_bufs, 1);
        return 0;
    }
    for (int i = 0; i < nfr; i++) {
        const struct zvs_qdio_parsed *p = &g->rx_fr[i];
        struct zvs_qdio_rx rx = {
            .iov = &g->rx_iov[p->first],
            .niov = p->niov,
            .len = p->hdr.pkt_length,
            .hdr = p->hdr,
            .buf = b,
            .slsb = zvs_slsb_get(&g->inq->slsb[b]),
        };
        fn(arg, &rx);
    }
    return nfr;
}

int zvs_qdio_guest_receive(struct zvs_qdio_guest *g, int budget, zvs_qdio_rx_fn fn, void *arg)
{
    int frames = 0;
    uint32_t bufs = 0;

    while (frames < budget) {
        uint32_t b = g->in_next;
        uint8_t st = zvs_slsb_get(&g->inq->slsb[b]);

        if (st == ZVS_SLSB_P_INPUT_PRIMED) {
            zvs_slsb_set(&g->inq->slsb[b], ZVS_SLSB_P_INPUT_ACK);
            int k = in_process(g, b, fn, arg);
            frames += k;
            count(&g->hdr->prog.in_frames, (uint64_t)k);
            count(&g->hdr->prog.in_bufs_processed, 1);
        } else if (st != ZVS_SLSB_P_INPUT_ERROR) {
            break;                      /* 0x41: still the adapter's */
        }
        /* Done with b: its set moves to the first buffer past the armed window (ours:
         * processed before, or never armed), so exactly N stay armed. */
        uint32_t next = (b + g->nsets) % ZVS_QDIO_NBUFS;
        if (next != b)
            zvs_slsb_set(&g->inq->slsb[b], ZVS_SLSB_P_INPUT_NOT_INIT);
        in_arm(g, next, g->in_set[b]);
        g->in_next = (b + 1) % ZVS_QDIO_NBUFS;
        bufs++;
    }
    if (bufs > 0 && (__atomic_load_n(&g->hdr->ac1, __ATOMIC_ACQUIRE) & ZVS_QDIO_AC1_SIGA_INPUT))
        zvs_qdio_guest_siga_r(g);
    return frames;
}

uint32_t zvs_qdio_rx_copy(const struct zvs_qdio_rx *rx, void *dst, uint32_t cap)
{
    uint8_t *d = dst;
    uint32_t done = 0;

    for (uint32_t i = 0; i < rx->niov && done < cap; i++) {
        uint32_t take = (uint32_t)rx->iov[i].iov_len;
        if (take > cap - done)
            take = cap - done;
        memcpy(d + done, rx->iov[i].iov_base, take);
        done += take;
    }
    return done;
}

/* ---- Interrupts ----------------------------------------------------------------------- */

bool zvs_qdio_guest_arm_irq(struct zvs_qdio_guest *g)
{
    __atomic_store_n(&g->hdr->irq_armed, 1, __ATOMIC_SEQ_CST);
    /* Pairs with the adapter's fence between priming and testing the arm word. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return zvs_qdio_guest_rx_pending(g);
}

void zvs_qdio_guest_disarm_irq(struct zvs_qdio_guest *g)
{
    __atomic_store_n(&g->hdr->irq_armed, 0, __ATOMIC_SEQ_CST);
}

uint64_t zvs_qdio_guest_irq_ack(struct zvs_qdio_guest *g)
{
    uint64_t v = 0;

    if (g->irq_fd < 0 || read(g->irq_fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
        return 0;
    return v;
}

int zvs_qdio_guest_irq_fd(const struct zvs_qdio_guest *g)
{
    return g->irq_fd;
}

void zvs_qdio_guest_counters(const struct zvs_qdio_guest *g, struct zvs_qdio_counters *out)
{
    zvs_qdio_shm_counters(g->hdr, out);
}
