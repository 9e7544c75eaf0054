/* QDIO queues: region layout and QUEUESTORAGE bounds, the guest library's 64 KB page sets
 * (N = QUEUESTORAGE / 2 / 64 KB buffers armed and outstanding: 8 at 1M, 24 at 3M, 64 at
 * 8M), every SLSB transition, frames both ways with exact bytes, headers and offload
 * metadata, packing, first/middle/last entries, input-queue-full, forged SBALEs, the
 * thin-interrupt arm, and a guest in a forked process that maps the memfd while the
 * parent runs the adapter side. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "qdio/qdio.h"
#include "qdio/qdio_guest.h"

#define QS_1M  (1u * ZVS_QDIO_MB)
#define QS_3M  (3u * ZVS_QDIO_MB)
#define QS_8M  (8u * ZVS_QDIO_MB)
#define SET    65536u                   /* a page set: what one buffer may hold */

/* Data area offset of output page set k (sets of the output queue start at QS / 2). */
static uint64_t out_set(uint32_t qs, uint32_t k)
{
    return qs / 2 + (uint64_t)k * SET;
}

struct env {
    struct zvs_qdio           *q;
    struct zvs_qdio_guest     *g;
    struct zvs_qdio_shm_hdr   *hdr;
    struct zvs_qdio_queue_shm *inq;
    struct zvs_qdio_queue_shm *outq;
    uint8_t                   *data;
};

static void env_open(struct env *e, uint32_t qs)
{
    memset(e, 0, sizeof(*e));
    assert_int_equal(zvs_qdio_create(qs, &e->q), 0);
    void *r = zvs_qdio_region(e->q);
    e->hdr = r;
    e->inq = zvs_qdio_at(r, ZVS_QDIO_IN_Q_OFF);
    e->outq = zvs_qdio_at(r, ZVS_QDIO_OUT_Q_OFF);
    e->data = zvs_qdio_at(r, ZVS_QDIO_DATA_OFF);
    assert_int_equal(zvs_qdio_guest_attach(r, zvs_qdio_size(e->q), zvs_qdio_siga_fd(e->q),
                                           zvs_qdio_irq_fd(e->q), &e->g), 0);
    assert_int_equal(zvs_qdio_guest_init_queues(e->g), 0);
}

static void env_close(struct env *e)
{
    zvs_qdio_guest_detach(e->g);
    zvs_qdio_destroy(e->q);
}

static uint64_t efd_read(int fd)
{
    uint64_t v = 0;
    if (read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
        return 0;
    return v;
}

static struct zvs_qdio_counters ctrs(const struct env *e)
{
    struct zvs_qdio_counters c;
    zvs_qdio_counters(e->q, &c);
    return c;
}

/* A frame with known bytes: unicast dst, src, EtherType 0x88B5 (local experimental), or an
 * 802.1Q tag with `vid` first when vid != 0; payload bytes derived from seed. */
static void make_frame(uint8_t *b, uint32_t len, uint32_t seed, uint16_t vid)
{
    static const uint8_t dst[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
    static const uint8_t src[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 };
    uint32_t off = 12;

    memcpy(b, dst, 6);
    memcpy(b + 6, src, 6);
    if (vid) {
        zvs_put_be16(b + 12, ZVS_ETHERTYPE_VLAN);
        zvs_put_be16(b + 14, vid);
        off = 16;
    }
    zvs_put_be16(b + off, 0x88B5);
    for (uint32_t i = off + 2; i < len; i++)
        b[i] = (uint8_t)(seed * 31u + i * 7u + (i >> 8));
    if (len >= off + 6) {
        b[off + 2] = (uint8_t)(seed >> 24);
        b[off + 3] = (uint8_t)(seed >> 16);
        b[off + 4] = (uint8_t)(seed >> 8);
        b[off + 5] = (uint8_t)seed;
    }
}

static struct zvs_qdio_pkt pkt_of(const uint8_t *b, uint32_t len)
{
    struct zvs_qdio_pkt p;
    memset(&p, 0, sizeof(p));
    p.data = b;
    p.len = len;
    return p;
}

/* Bytes of an adapter frame, contiguous or scattered. */
static uint32_t frame_bytes(const struct zvs_frame *f, uint8_t *out)
{
    return zvs_frame_peek(f, out, f->len);
}

/* Received frames, copied out by the callback. */
/* The header a sender must write for frame b of len bytes with seq_no seq and vnet's
 * offload metadata (NULL: none): the reference, classify and encode. */
static void want_header(uint8_t out[32], const uint8_t *b, uint32_t len, uint16_t seq,
                        const struct zvs_vnet *vnet)
{
    struct zvs_qdio_fhdr h = { .id = 0x02, .hdr_length = 32, .pkt_length = (uint16_t)len,
                               .seq_no = seq };
    if (vnet)
        h.vnet = *vnet;
    zvs_qdio_fhdr_classify(&h, b, len);
    zvs_qdio_fhdr_encode(&h, out);
}

struct rx_log {
    int      n;
    uint32_t len[256];
    uint32_t niov[256];
    uint8_t  slsb[256];
    uint32_t buf[256];
    struct zvs_qdio_fhdr hdr[256];
    uint8_t  bytes[4][65536];           /* the first four frames' bytes */
};

static void rx_cb(void *arg, const struct zvs_qdio_rx *rx)
{
    struct rx_log *log = arg;
    int i = log->n++;

    assert_true(i < 256);
    log->len[i] = rx->len;
    log->niov[i] = rx->niov;
    log->slsb[i] = rx->slsb;
    log->buf[i] = rx->buf;
    log->hdr[i] = rx->hdr;
    if (i < 4)
        assert_int_equal(zvs_qdio_rx_copy(rx, log->bytes[i], sizeof(log->bytes[i])), rx->len);
}

/* ---- Layout and QUEUESTORAGE ------------------------------------------------------- */

static void test_queuestorage_bounds(void **state)
{
    struct zvs_qdio *q = (struct zvs_qdio *)1;
    const uint32_t bad[] = { 0, QS_1M - 4096, QS_1M + 4096, 9u * ZVS_QDIO_MB, 3 * QS_8M };

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(zvs_qdio_create(bad[i], &q), -EINVAL);
        assert_null(q);
        assert_int_equal(zvs_qdio_region_size(bad[i]), 0);
    }
    /* header page + two queues of (SLSB page + 128 x 256-byte SBALs) + QUEUESTORAGE */
    assert_int_equal(ZVS_QDIO_DATA_OFF, 4096 + 2 * (4096 + 128 * 256));
    for (uint32_t mb = 1; mb <= 8; mb++) {
        uint32_t qs = mb * ZVS_QDIO_MB;
        assert_int_equal(zvs_qdio_create(qs, &q), 0);
        const struct zvs_qdio_shm_hdr *h = zvs_qdio_region(q);
        assert_int_equal(zvs_qdio_size(q), 77824 + (size_t)qs);
        assert_int_equal(zvs_qdio_region_size(qs), 77824 + (size_t)qs);
        assert_int_equal(h->magic, ZVS_QDIO_MAGIC);
        assert_int_equal(h->version, 2);
        assert_int_equal(h->queuestorage, qs);
        assert_int_equal(h->region_size, 77824 + (size_t)qs);
        assert_int_equal(h->buf_bytes, 65536);     /* 16 x 4 KB at every QUEUESTORAGE */
        assert_int_equal(h->data_off, 77824);
        assert_int_equal(h->ac1, ZVS_QDIO_AC1_SIGA_OUTPUT);
        const struct zvs_qdio_queue_shm *in = zvs_qdio_at(zvs_qdio_region(q), h->in_q_off);
        const struct zvs_qdio_queue_shm *out = zvs_qdio_at(zvs_qdio_region(q), h->out_q_off);
        for (int b = 0; b < ZVS_QDIO_NBUFS; b++) {
            assert_int_equal(in->slsb[b], 0x80);
            assert_int_equal(out->slsb[b], 0xA0);
        }
        zvs_qdio_destroy(q);
    }
}

static void test_attach_checks_region(void **state)
{
    struct env e;
    struct zvs_qdio_guest *g = NULL;

    env_open(&e, QS_8M);
    void *r = zvs_qdio_region(e.q);
    size_t size = zvs_qdio_size(e.q);
    assert_int_equal(zvs_qdio_guest_attach(r, size - 4096, -1, -1, &g), -EINVAL);
    assert_null(g);
    e.hdr->buf_bytes = 4096;
    assert_int_equal(zvs_qdio_guest_attach(r, size, -1, -1, &g), -EINVAL);
    e.hdr->buf_bytes = QS_8M / 256;     /* a version 1 region's buffers */
    assert_int_equal(zvs_qdio_guest_attach(r, size, -1, -1, &g), -EINVAL);
    e.hdr->buf_bytes = 65536;
    e.hdr->version = 1;
    assert_int_equal(zvs_qdio_guest_attach(r, size, -1, -1, &g), -EINVAL);
    e.hdr->version = 2;
    e.hdr->magic ^= 1;
    assert_int_equal(zvs_qdio_guest_attach(r, size, -1, -1, &g), -EINVAL);
    e.hdr->magic ^= 1;
    assert_int_equal(zvs_qdio_guest_attach(r, size, -1, -1, &g), 0);
    /* the queues are established: the adapter owns every input buffer now */
    assert_int_equal(zvs_qdio_guest_init_queues(g), -EBUSY);
    zvs_qdio_guest_detach(g);
    env_close(&e);
}

static void test_init_states_and_entries(void **state)
{
    struct env e;

    /* 8M: 64 sets per queue; input buffers 0..63 armed with set b (16 pages of 4 KB),
     * 64..127 not offered; every output buffer free */
    env_open(&e, QS_8M);
    assert_int_equal(zvs_qdio_guest_max_frame(e.g), 65504);
    assert_int_equal(zvs_qdio_guest_sets(e.g), 64);
    for (uint32_t b = 0; b < ZVS_QDIO_NBUFS; b++) {
        assert_int_equal(e.inq->slsb[b], b < 64 ? 0x41 : 0x80);
        assert_int_equal(e.outq->slsb[b], 0xA1);
        for (uint32_t k = 0; k < 16; k++) {
            const struct zvs_sbale *s = &e.inq->sbal[b].e[k];
            if (b < 64) {
                assert_int_equal(s->addr, b * 65536u + k * 4096u);
                assert_int_equal(s->length, 4096);
                assert_int_equal(s->flags, k == 15 ? 0x40000000u : 0);
            } else {
                assert_int_equal(s->addr, 0);
                assert_int_equal(s->length, 0);
                assert_int_equal(s->flags, 0);
            }
        }
    }
    env_close(&e);

    /* 1M: 8 sets; a 9000-byte jumbo frame fits as at 8M */
    env_open(&e, QS_1M);
    assert_int_equal(zvs_qdio_guest_max_frame(e.g), 65504);
    assert_int_equal(zvs_qdio_guest_sets(e.g), 8);
    assert_int_equal(e.inq->sbal[5].e[0].addr, 5 * 65536);
    assert_int_equal(e.inq->sbal[5].e[0].flags, 0);
    assert_int_equal(e.inq->sbal[5].e[15].addr, 5 * 65536 + 15 * 4096);
    assert_int_equal(e.inq->sbal[5].e[15].flags, 0x40000000u);
    assert_int_equal(e.inq->slsb[7], 0x41);
    assert_int_equal(e.inq->slsb[8], 0x80);
    assert_int_equal(e.inq->sbal[8].e[0].length, 0);
    env_close(&e);

    /* 3M: 24 sets (3M / 2 / 64 KB); sets 0..23 of each half fill the data area exactly */
    env_open(&e, QS_3M);
    assert_int_equal(zvs_qdio_guest_sets(e.g), 24);
    assert_int_equal(e.inq->slsb[23], 0x41);
    assert_int_equal(e.inq->slsb[24], 0x80);
    assert_int_equal(e.inq->sbal[23].e[15].addr + 4096, QS_3M / 2);
    env_close(&e);
}

/* ---- Output queue: guest -> adapter ---------------------------------------------- */

static void test_output_roundtrip(void **state)
{
    struct env e;
    uint8_t frame[60], got[60];
    struct zvs_frame f[4];

    env_open(&e, QS_8M);
    make_frame(frame, sizeof(frame), 7, 0);
    struct zvs_qdio_pkt p = pkt_of(frame, sizeof(frame));
    p.vnet.flags = ZVS_VNET_F_NEEDS_CSUM;
    p.vnet.csum_start = 34;
    p.vnet.csum_offset = 16;
    assert_int_equal(zvs_qdio_guest_send(e.g, &p, 1), 1);

    /* program side: buffer 0 primed, one entry, header then frame at output set 0 */
    assert_int_equal(e.outq->slsb[0], 0x62);
    assert_int_equal(e.outq->slsb[1], 0xA1);
    const struct zvs_sbale *s = &e.outq->sbal[0].e[0];
    assert_int_equal(s->addr, QS_8M / 2);
    assert_int_equal(s->length, 32 + 60);
    assert_int_equal(s->flags, 0x40000000u);
    const uint8_t want_hdr[32] = {
        0x02, 0, 0, 0x04, 0, 32, 0, 60, 0, 0, 0, 0, 0, 0, 0, 0,
        0x01, 0x00, 0, 0, 0, 0, 0, 34, 0, 16, 0, 0, 0, 0, 0, 0,
    };
    assert_memory_equal(e.data + s->addr, want_hdr, 32);
    assert_memory_equal(e.data + s->addr + 32, frame, 60);
    assert_int_equal(efd_read(zvs_qdio_siga_fd(e.q)), 1);
    struct zvs_qdio_counters c = ctrs(&e);
    assert_int_equal(c.prog.siga_w, 1);
    assert_int_equal(c.prog.out_bufs_primed, 1);
    assert_int_equal(c.prog.out_frames, 1);

    /* adapter side: the descriptor points into the region */
    assert_int_equal(zvs_qdio_poll_output(e.q, f, 4, 9), 1);
    assert_ptr_equal(f[0].data, e.data + QS_8M / 2 + 32);
    assert_int_equal(f[0].len, 60);
    assert_int_equal(f[0].nfrags, 0);
    assert_int_equal(f[0].in_port, 9);
    assert_int_equal(f[0].flags, 0);
    assert_int_equal(f[0].cookie >> 8, 0);
    assert_int_equal(f[0].vnet.flags, ZVS_VNET_F_NEEDS_CSUM);
    assert_int_equal(f[0].vnet.csum_start, 34);
    assert_int_equal(f[0].vnet.csum_offset, 16);
    assert_int_equal(frame_bytes(&f[0], got), 60);
    assert_memory_equal(got, frame, 60);
    assert_int_equal(e.outq->slsb[0], 0x62);   /* held by the switch until released */
    assert_int_equal(zvs_qdio_poll_output(e.q, f, 4, 9), 0);
    assert_int_equal(zvs_qdio_guest_reap(e.g), 0);

    zvs_qdio_release(e.q, f, 1);
    assert_int_equal(e.outq->slsb[0], 0xA1);
    c = ctrs(&e);
    assert_int_equal(c.adapter.out_bufs_processed, 1);
    assert_int_equal(c.adapter.out_frames, 1);
    assert_int_equal(c.adapter.out_bytes, 60);
    assert_int_equal(c.adapter.out_errors, 0);
    /* the guest reads the same adapter counters from the region */
    struct zvs_qdio_counters gc;
    zvs_qdio_guest_counters(e.g, &gc);
    assert_memory_equal(&gc, &c, sizeof(c));
    assert_int_equal(zvs_qdio_guest_reap(e.g), 1);
    assert_int_equal(zvs_qdio_guest_reap(e.g), 0);
    env_close(&e);
}

static void test_output_packing(void **state)
{
    struct env e;
    uint8_t frames[20][64];
    struct zvs_qdio_pkt p[20];
    struct zvs_frame f[20];
    uint8_t got[64];

    env_open(&e, QS_8M);
    for (int i = 0; i < 20; i++) {
        make_frame(frames[i], 64, (uint32_t)i, 0);
        p[i] = pkt_of(frames[i], 64);
    }
    /* 20 small frames, default pack 16: 16 side by side (96 bytes each with the header)
     * in buffer 0's first page, 4 in buffer 1, which has output set 1 */
    assert_int_equal(zvs_qdio_guest_send(e.g, p, 20), 20);
    assert_int_equal(e.outq->slsb[0], 0x62);
    assert_int_equal(e.outq->slsb[1], 0x62);
    assert_int_equal(e.outq->slsb[2], 0xA1);
    for (uint32_t k = 0; k < 16; k++) {
        assert_int_equal(e.outq->sbal[0].e[k].addr, out_set(QS_8M, 0) + k * 96u);
        assert_int_equal(e.outq->sbal[0].e[k].length, 96);
        assert_int_equal(e.outq->sbal[0].e[k].flags, k == 15 ? 0x40000000u : 0);
    }
    assert_int_equal(e.outq->sbal[1].e[0].addr, out_set(QS_8M, 1));
    assert_int_equal(e.outq->sbal[1].e[3].addr, out_set(QS_8M, 1) + 3 * 96u);
    assert_int_equal(e.outq->sbal[1].e[2].flags, 0);
    assert_int_equal(e.outq->sbal[1].e[3].flags, 0x40000000u);
    assert_int_equal(ctrs(&e).prog.siga_w, 1);  /* one SIGA-w per send call */

    /* the switch takes them 3 at a time, then the rest; buffer 0 returns once all 16 are
     * released */
    int n = zvs_qdio_poll_output(e.q, f, 3, 0);
    assert_int_equal(n, 3);
    n += zvs_qdio_poll_output(e.q, f + 3, 3, 0);
    assert_int_equal(n, 6);
    n += zvs_qdio_poll_output(e.q, f + 6, 16, 0);   /* 10 staged of buffer 0, 4 of buffer 1 */
    assert_int_equal(n, 20);
    for (int i = 0; i < 20; i++) {
        assert_int_equal(f[i].cookie, (uint64_t)(i / 16) << 8 | (uint64_t)(i % 16));
        assert_int_equal(frame_bytes(&f[i], got), 64);
        assert_memory_equal(got, frames[i], 64);
    }
    zvs_qdio_release(e.q, f, 15);
    assert_int_equal(e.outq->slsb[0], 0x62);
    zvs_qdio_release(e.q, f + 16, 4);
    assert_int_equal(e.outq->slsb[1], 0xA1);
    assert_int_equal(e.outq->slsb[0], 0x62);
    assert_int_equal(zvs_qdio_guest_reap(e.g), 0); /* in order: buffer 0 first */
    zvs_qdio_release(e.q, f + 15, 1);
    assert_int_equal(e.outq->slsb[0], 0xA1);
    assert_int_equal(zvs_qdio_guest_reap(e.g), 2);
    assert_int_equal(ctrs(&e).adapter.out_bufs_processed, 2);

    /* pack 3: 10 frames -> 4 buffers (3, 3, 3, 1), buffers 2..5 with sets 2..5 */
    assert_int_equal(zvs_qdio_guest_set_pack(e.g, 3), 0);
    assert_int_equal(zvs_qdio_guest_set_pack(e.g, 17), -EINVAL);
    assert_int_equal(zvs_qdio_guest_set_pack(e.g, 0), -EINVAL);
    assert_int_equal(zvs_qdio_guest_send(e.g, p, 10), 10);
    assert_int_equal(e.outq->slsb[2], 0x62);
    assert_int_equal(e.outq->slsb[5], 0x62);
    assert_int_equal(e.outq->slsb[6], 0xA1);
    assert_int_equal(e.outq->sbal[2].e[2].flags, 0x40000000u);
    assert_int_equal(e.outq->sbal[2].e[2].addr, out_set(QS_8M, 2) + 2 * 96u);
    assert_int_equal(e.outq->sbal[5].e[0].flags, 0x40000000u);
    assert_int_equal(e.outq->sbal[5].e[0].addr, out_set(QS_8M, 5));
    env_close(&e);
}

static void test_jumbo_three_entries_8m(void **state)
{
    struct env e;
    static uint8_t frame[9000], got[9000];
    struct zvs_frame f[2];

    env_open(&e, QS_8M);
    make_frame(frame, sizeof(frame), 99, 0);
    struct zvs_qdio_pkt p = pkt_of(frame, sizeof(frame));
    assert_int_equal(zvs_qdio_guest_send(e.g, &p, 1), 1);
    const struct zvs_sbal *s = &e.outq->sbal[0];
    assert_int_equal(s->e[0].flags, 0x04000000u);
    assert_int_equal(s->e[1].flags, 0x08000000u);
    assert_int_equal(s->e[2].flags, 0x0C000000u | 0x40000000u);
    assert_int_equal(s->e[0].length, 4096);
    assert_int_equal(s->e[1].length, 4096);
    assert_int_equal(s->e[2].length, 9032 - 8192);
    assert_int_equal(s->e[2].addr, out_set(QS_8M, 0) + 8192u);

    assert_int_equal(zvs_qdio_poll_output(e.q, f, 2, 0), 1);
    assert_int_equal(f[0].len, 9000);
    assert_int_equal(f[0].nfrags, 3);
    assert_ptr_equal(f[0].frags[0].iov_base, f[0].data);
    assert_int_equal(f[0].frags[0].iov_len, 4064);
    assert_int_equal(f[0].frags[1].iov_len, 4096);
    assert_int_equal(f[0].frags[2].iov_len, 840);
    assert_int_equal(frame_bytes(&f[0], got), 9000);
    assert_memory_equal(got, frame, 9000);

    /* and back into the guest's input queue with a tag pushed: 9004 bytes, three entries */
    struct zvs_tx tx = { .f = &f[0], .tag_op = ZVS_TAG_PUSH, .vid = 300 };
    enum zvs_drop why = ZVS_DROP__COUNT;
    assert_int_equal(zvs_qdio_deliver(e.q, &tx, 1, &why), 1);
    assert_int_equal(why, ZVS_DROP__COUNT);
    zvs_qdio_release(e.q, f, 1);
    const struct zvs_sbal *in = &e.inq->sbal[0];
    assert_int_equal(e.inq->slsb[0], 0x82);
    assert_int_equal(in->e[0].flags, 0x04000000u);
    assert_int_equal(in->e[1].flags, 0x08000000u);
    assert_int_equal(in->e[2].flags, 0x0C000000u | 0x40000000u);
    assert_int_equal(in->e[2].length, 9004 + 32 - 8192);

    struct rx_log *log = calloc(1, sizeof(*log));
    assert_non_null(log);
    assert_int_equal(zvs_qdio_guest_receive(e.g, 64, rx_cb, log), 1);
    assert_int_equal(log->len[0], 9004);
    assert_int_equal(log->niov[0], 3);
    assert_int_equal(log->hdr[0].flags[2], ZVS_QETH_L2_FLAG_UCAST | ZVS_QETH_L2_FLAG_VLAN);
    assert_int_equal(log->hdr[0].vlan_id, 300);
    static uint8_t want[9004];
    make_frame(want, 9004, 99, 300);
    /* the payload seeds differ by the tag shift: compare around the tag */
    assert_memory_equal(log->bytes[0], frame, 12);
    assert_memory_equal(log->bytes[0] + 12, want + 12, 4);
    assert_memory_equal(log->bytes[0] + 16, frame + 12, 9000 - 12);
    free(log);
    env_close(&e);
}

/* Frames without metadata or tag edit in one piece that fit an entry take the plain
 * write (one copy, the header as words): every header the adapter writes, plain or not,
 * is compared byte for byte with classify + encode of the frame as delivered, beside a
 * frame with metadata, one with a tag pushed and a 9000-byte one that spans entries. */
static void test_deliver_plain_header(void **state)
{
    static const struct { uint32_t len; uint8_t dst0; bool bcast; uint16_t vid; uint8_t op;
                          bool csum; } cases[] = {
        { 64, 0x02, false, 0, ZVS_TAG_KEEP, false }, { 64, 0x01, false, 0, ZVS_TAG_KEEP, false },
        { 60, 0xFF, true, 0, ZVS_TAG_KEEP, false }, { 1514, 0x02, false, 100, ZVS_TAG_KEEP, false },
        { 5, 0x02, false, 0, ZVS_TAG_KEEP, false }, { 9000, 0x02, false, 0, ZVS_TAG_KEEP, false },
        { 200, 0x02, false, 0, ZVS_TAG_KEEP, true }, { 200, 0x02, false, 0, ZVS_TAG_PUSH, false },
    };
    enum { N = sizeof(cases) / sizeof(cases[0]) };
    static uint8_t fr[N][9000];
    struct zvs_frame f[N];
    struct zvs_tx tx[N];
    struct env e;

    (void)state;
    env_open(&e, QS_8M);
    for (unsigned i = 0; i < N; i++) {
        make_frame(fr[i], cases[i].len < 18 ? 18 : cases[i].len, 60 + i, cases[i].vid);
        fr[i][0] = cases[i].dst0;
        if (cases[i].bcast)
            memset(fr[i], 0xFF, 6);
        f[i] = (struct zvs_frame){ .data = fr[i], .len = cases[i].len };
        if (cases[i].csum)
            f[i].vnet = (struct zvs_vnet){ .flags = ZVS_VNET_F_NEEDS_CSUM, .csum_start = 34,
                                           .csum_offset = 16 };
        tx[i] = (struct zvs_tx){ .f = &f[i], .tag_op = cases[i].op, .vid = 300 };
    }
    enum zvs_drop why = ZVS_DROP__COUNT;
    assert_int_equal(zvs_qdio_deliver(e.q, tx, N, &why), N);
    assert_int_equal(e.inq->slsb[0], 0x82);
    const struct zvs_sbale *se = e.inq->sbal[0].e;
    uint32_t k = 0;
    for (unsigned i = 0; i < N; i++) {
        uint32_t len = cases[i].len + (cases[i].op == ZVS_TAG_PUSH ? 4 : 0);
        const uint8_t *at = e.data + se[k].addr;
        uint8_t bytes[9004];
        memcpy(bytes, fr[i], cases[i].len);
        if (cases[i].op == ZVS_TAG_PUSH) {              /* the tag after the addresses */
            memmove(bytes + 16, fr[i] + 12, cases[i].len - 12);
            zvs_put_be16(bytes + 12, ZVS_ETHERTYPE_VLAN);
            zvs_put_be16(bytes + 14, 300);
        }
        uint8_t want[32];
        want_header(want, bytes, len, (uint16_t)i, &f[i].vnet);
        assert_memory_equal(at, want, 32);
        uint32_t first = len + 32 <= 4096 ? len : 4064;
        assert_memory_equal(at + 32, bytes, first);
        assert_int_equal(se[k].length & 0xFFFF, 32 + first);
        k += (len + 32 + 4095) / 4096;
    }
    assert_int_equal(k, 10);                            /* the 9000 bytes take three */
    assert_true(se[k - 1].flags & ZVS_SBALE_LAST_ENTRY);
    struct rx_log *log = calloc(1, sizeof(*log));
    assert_non_null(log);
    assert_int_equal(zvs_qdio_guest_receive(e.g, 64, rx_cb, log), N);
    assert_int_equal(log->len[5], 9000);
    assert_int_equal(log->niov[5], 3);
    assert_int_equal(log->hdr[4].pkt_length, 5);
    assert_int_equal(log->hdr[2].flags[2], ZVS_QETH_L2_FLAG_BCAST);
    assert_int_equal(log->hdr[3].flags[2], ZVS_QETH_L2_FLAG_UCAST | ZVS_QETH_L2_FLAG_VLAN);

    /* Not plain though it has neither metadata nor a tag edit: a frame in two pieces (a
     * VXLAN uplink's tag push makes such, 18 bytes then the rest) takes the general
     * write, its pieces joined; and at the one-entry bound, 4064 bytes take one entry and
     * 4065 two. */
    uint8_t p0[18], p1[46], big[4065];
    make_frame(fr[0], 64, 90, 0);
    memcpy(p0, fr[0], 18);
    memcpy(p1, fr[0] + 18, 46);
    make_frame(big, sizeof(big), 91, 0);
    const struct iovec pieces[2] = { { .iov_base = p0, .iov_len = 18 },
                                     { .iov_base = p1, .iov_len = 46 } };
    struct zvs_frame g[3] = {
        { .data = p0, .len = 64, .nfrags = 2, .frags = pieces },
        { .data = big, .len = 4064 }, { .data = big, .len = 4065 },
    };
    struct zvs_tx gt[3] = { { .f = &g[0] }, { .f = &g[1] }, { .f = &g[2] } };
    assert_int_equal(zvs_qdio_deliver(e.q, gt, 3, &why), 3);
    const struct zvs_sbale *s1 = e.inq->sbal[1].e;
    assert_int_equal(e.inq->slsb[1], 0x82);
    assert_memory_equal(e.data + s1[0].addr + 32, fr[0], 64);
    assert_int_equal(s1[0].length, 32 + 64);
    assert_int_equal(s1[1].length, 4096);               /* 4064 bytes: one whole entry */
    assert_int_equal(s1[1].flags, ZVS_SBALE_FRAG_NONE);
    assert_int_equal(s1[2].flags, ZVS_SBALE_FRAG_FIRST);    /* 4065: two */
    assert_int_equal(s1[3].length, 1);
    memset(log, 0, sizeof(*log));
    assert_int_equal(zvs_qdio_guest_receive(e.g, 64, rx_cb, log), 3);
    assert_memory_equal(log->bytes[0], fr[0], 64);
    assert_memory_equal(log->bytes[1], big, 4064);
    assert_memory_equal(log->bytes[2], big, 4065);
    free(log);
    env_close(&e);
}

/* At 1M a buffer holds 64 KB as at 8M: a jumbo frame fits, and so does the largest frame
 * (65504 bytes, all 16 entries); one byte more is refused by the guest, the adapter's
 * parser and the adapter's delivery alike. */
static void test_frame_limits_1m(void **state)
{
    struct env e;
    static uint8_t frame[65535], got[65535];
    struct zvs_frame f[2];

    env_open(&e, QS_1M);
    make_frame(frame, sizeof(frame), 5, 0);
    struct zvs_qdio_pkt p = pkt_of(frame, 9000);
    assert_int_equal(zvs_qdio_guest_send(e.g, &p, 1), 1);
    const struct zvs_sbal *s = &e.outq->sbal[0];
    assert_int_equal(s->e[0].addr, out_set(QS_1M, 0));
    assert_int_equal(s->e[0].flags, 0x04000000u);
    assert_int_equal(s->e[1].flags, 0x08000000u);
    assert_int_equal(s->e[2].flags, 0x0C000000u | 0x40000000u);
    assert_int_equal(s->e[2].length, 9032 - 8192);
    assert_int_equal(zvs_qdio_poll_output(e.q, f, 2, 0), 1);
    assert_int_equal(f[0].len, 9000);
    assert_int_equal(f[0].nfrags, 3);
    assert_int_equal(frame_bytes(&f[0], got), 9000);
    assert_memory_equal(got, frame, 9000);
    zvs_qdio_release(e.q, f, 1);

    p.len = 65505;
    assert_int_equal(zvs_qdio_guest_send(e.g, &p, 1), -EMSGSIZE);
    assert_int_equal(e.outq->slsb[1], 0xA1);
    assert_int_equal(ctrs(&e).prog.out_frames, 1);
    p.len = 65504;                      /* exactly 16 entries of 4 KB with its header */
    assert_int_equal(zvs_qdio_guest_send(e.g, &p, 1), 1);
    s = &e.outq->sbal[1];
    for (uint32_t k = 0; k < 16; k++) {
        assert_int_equal(s->e[k].addr, out_set(QS_1M, 1) + k * 4096u);
        assert_int_equal(s->e[k].length, 4096);
    }
    assert_int_equal(s->e[15].flags, 0x0C000000u | 0x40000000u);
    assert_int_equal(zvs_qdio_poll_output(e.q, f, 2, 0), 1);
    assert_int_equal(f[0].len, 65504);
    assert_int_equal(f[0].nfrags, 16);
    assert_int_equal(frame_bytes(&f[0], got), 65504);
    assert_memory_equal(got, frame, 65504);

    /* ... and back into the guest's input queue: all 16 entries of input buffer 0 */
    struct zvs_tx tx = { .f = &f[0], .tag_op = ZVS_TAG_KEEP };
    enum zvs_drop why = ZVS_DROP__COUNT;
    assert_int_equal(zvs_qdio_deliver(e.q, &tx, 1, &why), 1);
    assert_int_equal(why, ZVS_DROP__COUNT);
    zvs_qdio_release(e.q, f, 1);
    assert_int_equal(zvs_qdio_guest_reap(e.g), 2);
    assert_int_equal(e.inq->slsb[0], 0x82);
    assert_int_equal(e.inq->sbal[0].e[15].flags, 0x0C000000u | 0x40000000u);
    assert_int_equal(e.inq->sbal[0].e[15].length, 4096);
    struct rx_log *log = calloc(1, sizeof(*log));
    assert_non_null(log);
    assert_int_equal(zvs_qdio_guest_receive(e.g, 64, rx_cb, log), 1);
    assert_int_equal(log->len[0], 65504);
    assert_int_equal(log->niov[0], 16);
    assert_memory_equal(log->bytes[0], frame, 65504);
    free(log);

    /* forge a frame of 65505 bytes over 16 full entries of output buffer 2: its header
     * and bytes would need 65537 of the buffer's 65536 */
    uint8_t hdr[32];
    struct zvs_qdio_fhdr h = { .id = 0x02, .hdr_length = 32, .pkt_length = 65505 };
    zvs_qdio_fhdr_encode(&h, hdr);
    uint64_t base = out_set(QS_1M, 2);
    memcpy(e.data + base, hdr, 32);
    struct zvs_sbal *fs = &e.outq->sbal[2];
    for (uint32_t k = 0; k < 16; k++)
        fs->e[k] = (struct zvs_sbale){ k == 0 ? 0x04000000u : k == 15 ? 0x4C000000u : 0x08000000u,
                                       4096, base + k * 4096u };
    zvs_slsb_set(&e.outq->slsb[2], 0x62);
    assert_int_equal(zvs_qdio_poll_output(e.q, f, 2, 0), 0);
    assert_int_equal(e.outq->slsb[2], 0xAF);
    assert_int_equal(e.outq->sbalf[2], ZVS_QDIO_SBALF(0, ZVS_QDIO_ERR_SIZE));
    assert_int_equal(ctrs(&e).adapter.out_errors, 1);
    assert_int_equal(ctrs(&e).adapter.out_frames, 2);

    /* a 65505-byte frame delivered to a guest is discarded and counted */
    struct zvs_frame big = { .data = frame, .len = 65505 };
    tx = (struct zvs_tx){ .f = &big, .tag_op = ZVS_TAG_KEEP };
    why = ZVS_DROP__COUNT;
    assert_int_equal(zvs_qdio_deliver(e.q, &tx, 1, &why), 0);
    assert_int_equal(why, ZVS_DROP_OVERSIZE);
    assert_int_equal(ctrs(&e).adapter.in_oversize, 1);
    /* so is 65501 bytes that a pushed tag makes 65505 */
    big.len = 65501;
    tx = (struct zvs_tx){ .f = &big, .tag_op = ZVS_TAG_PUSH, .vid = 5 };
    assert_int_equal(zvs_qdio_deliver(e.q, &tx, 1, &why), 0);
    assert_int_equal(why, ZVS_DROP_OVERSIZE);
    assert_int_equal(ctrs(&e).adapter.in_oversize, 2);
    assert_int_equal(e.inq->slsb[1], 0x41);
    env_close(&e);
}

/* Forge output buffer b (entries given) and let the adapter judge it. */
static void forge_and_poll(struct env *e, uint32_t b, const struct zvs_sbale *ents, int n,
                           uint16_t want_sbalf, uint64_t want_errors)
{
    struct zvs_frame f[16];

    memset(&e->outq->sbal[b], 0, sizeof(e->outq->sbal[b]));
    for (int i = 0; i < n; i++)
        e->outq->sbal[b].e[i] = ents[i];
    zvs_slsb_set(&e->outq->slsb[b], 0x62);
    assert_int_equal(zvs_qdio_poll_output(e->q, f, 16, 0), 0);
    assert_int_equal(e->outq->slsb[b], 0xAF);
    assert_int_equal(e->outq->sbalf[b], want_sbalf);
    assert_int_equal(ctrs(e).adapter.out_errors, want_errors);
}

static void test_forged_sbales(void **state)
{
    struct env e;
    uint8_t frame[100];
    struct zvs_frame f[16];
    const uint32_t LE = 0x40000000u;

    env_open(&e, QS_8M);
    make_frame(frame, 100, 1, 0);
    /* a valid frame header + 100 bytes at the start of output set 0 */
    uint64_t off = out_set(QS_8M, 0);
    struct zvs_qdio_fhdr h = { .id = 0x02, .hdr_length = 32, .pkt_length = 100 };
    zvs_qdio_fhdr_encode(&h, e.data + off);
    memcpy(e.data + off + 32, frame, 100);

    const struct zvs_sbale outside[] = { { LE, 132, QS_8M } };
    forge_and_poll(&e, 0, outside, 1, ZVS_QDIO_SBALF(0, ZVS_QDIO_ERR_ADDR), 1);
    const struct zvs_sbale far[] = { { LE, 132, UINT64_MAX - 8 } };
    forge_and_poll(&e, 1, far, 1, ZVS_QDIO_SBALF(0, ZVS_QDIO_ERR_ADDR), 2);
    const struct zvs_sbale overflow[] = { { LE, 4096, QS_8M - 100 } };
    forge_and_poll(&e, 2, overflow, 1, ZVS_QDIO_SBALF(0, ZVS_QDIO_ERR_ADDR), 3);
    const struct zvs_sbale huge[] = { { LE, 0xFFFFFFF0u, off } };
    forge_and_poll(&e, 3, huge, 1, ZVS_QDIO_SBALF(0, ZVS_QDIO_ERR_ADDR), 4);
    const struct zvs_sbale big_entry[] = { { LE, 8192, off } };
    forge_and_poll(&e, 4, big_entry, 1, ZVS_QDIO_SBALF(0, ZVS_QDIO_ERR_SIZE), 5);
    const struct zvs_sbale middle_first[] = { { 0x08000000u | LE, 132, off } };
    forge_and_poll(&e, 5, middle_first, 1, ZVS_QDIO_SBALF(0, ZVS_QDIO_ERR_FRAG), 6);
    const struct zvs_sbale second_middle[] = { { 0, 132, off }, { 0x0C000000u | LE, 50, off } };
    forge_and_poll(&e, 6, second_middle, 2, ZVS_QDIO_SBALF(1, ZVS_QDIO_ERR_FRAG), 7);
    const struct zvs_sbale len_mismatch[] = { { LE, 131, off } };
    forge_and_poll(&e, 7, len_mismatch, 1, ZVS_QDIO_SBALF(0, ZVS_QDIO_ERR_LEN), 8);
    const struct zvs_sbale first_short[] = { { 0x04000000u, 40, off },
                                             { 0x0C000000u | LE, 92, off + 40 } };
    forge_and_poll(&e, 8, first_short, 2, ZVS_QDIO_SBALF(0, ZVS_QDIO_ERR_SHORT), 9);
    const struct zvs_sbale open_frame[] = { { 0x04000000u | LE, 100, off } };
    forge_and_poll(&e, 9, open_frame, 1, ZVS_QDIO_SBALF(0, ZVS_QDIO_ERR_FRAG), 10);
    /* a buffer has 16 entries at every QUEUESTORAGE: none of them flagged last */
    struct zvs_sbale no_last[16];
    for (int k = 0; k < 16; k++)
        no_last[k] = (struct zvs_sbale){ 0, 132, off };
    forge_and_poll(&e, 10, no_last, 16, ZVS_QDIO_SBALF(15, ZVS_QDIO_ERR_NO_LAST), 11);
    const struct zvs_sbale empty[] = { { LE, 0, off } };
    forge_and_poll(&e, 11, empty, 1, ZVS_QDIO_SBALF(0, ZVS_QDIO_ERR_LEN), 12);
    e.data[off] = 0x01;                 /* layer-3 header id */
    const struct zvs_sbale good[] = { { LE, 132, off } };
    forge_and_poll(&e, 12, good, 1, ZVS_QDIO_SBALF(0, ZVS_QDIO_ERR_HDR), 13);
    e.data[off] = 0x02;
    e.data[off + 16] = ZVS_VNET_F_NEEDS_CSUM;   /* a partial checksum whose 2-byte field */
    zvs_put_be16(e.data + off + 22, 99);        /* would end past the 100-byte frame */
    forge_and_poll(&e, 13, good, 1, ZVS_QDIO_SBALF(0, ZVS_QDIO_ERR_HDR), 14);
    e.data[off + 16] = 0;
    zvs_put_be16(e.data + off + 22, 0);

    /* the adapter moved on: a good buffer after the bad ones is taken */
    memset(&e.outq->sbal[14], 0, sizeof(e.outq->sbal[14]));
    e.outq->sbal[14].e[0] = good[0];
    zvs_slsb_set(&e.outq->slsb[14], 0x62);
    assert_int_equal(zvs_qdio_poll_output(e.q, f, 16, 0), 1);
    assert_int_equal(f[0].len, 100);
    assert_memory_equal(f[0].data, frame, 100);
    zvs_qdio_release(e.q, f, 1);
    assert_int_equal(e.outq->slsb[14], 0xA1);
    assert_int_equal(ctrs(&e).adapter.out_errors, 14);
    assert_int_equal(ctrs(&e).adapter.out_frames, 1);
    env_close(&e);
}

static void test_guest_reaps_refused_buffer(void **state)
{
    struct env e;
    uint8_t frame[80];
    struct zvs_frame f[4];

    env_open(&e, QS_8M);
    make_frame(frame, 80, 3, 0);
    struct zvs_qdio_pkt p = pkt_of(frame, 80);
    assert_int_equal(zvs_qdio_guest_send(e.g, &p, 1), 1);
    assert_int_equal(zvs_qdio_guest_send(e.g, &p, 1), 1);
    e.outq->sbal[0].e[0].length = 4000;    /* the guest scribbles on its primed buffer */
    assert_int_equal(zvs_qdio_poll_output(e.q, f, 4, 0), 1);
    assert_int_equal(e.outq->slsb[0], 0xAF);
    assert_int_equal(e.outq->slsb[1], 0x62);
    zvs_qdio_release(e.q, f, 1);
    assert_int_equal(zvs_qdio_guest_reap(e.g), 2);
    uint32_t b = 99;
    assert_int_equal(zvs_qdio_guest_last_error(e.g, &b), ZVS_QDIO_SBALF(0, ZVS_QDIO_ERR_LEN));
    assert_int_equal(b, 0);
    assert_int_equal(e.outq->slsb[0], 0xA1);
    struct zvs_qdio_counters c = ctrs(&e);
    assert_int_equal(c.prog.out_errors_seen, 1);
    assert_int_equal(c.adapter.out_errors, 1);
    assert_int_equal(c.adapter.out_bufs_processed, 1);
    env_close(&e);
}

static void test_gso_superframe_crosses(void **state)
{
    struct env e;
    static uint8_t frame[20000];
    struct zvs_frame f[2];

    env_open(&e, QS_8M);
    make_frame(frame, sizeof(frame), 11, 0);
    struct zvs_qdio_pkt p = pkt_of(frame, sizeof(frame));
    p.vnet = (struct zvs_vnet){ .flags = ZVS_VNET_F_NEEDS_CSUM, .gso_type = ZVS_VNET_GSO_TCPV4,
                                .hdr_len = 66, .gso_size = 1448, .csum_start = 34,
                                .csum_offset = 16 };
    assert_int_equal(zvs_qdio_guest_send(e.g, &p, 1), 1);
    const uint8_t *raw = e.data + e.outq->sbal[0].e[0].addr;
    assert_int_equal(raw[0], 0x06);
    assert_int_equal(zvs_be16(raw + 6), 20000);
    assert_int_equal(raw[17], ZVS_VNET_GSO_TCPV4);
    assert_int_equal(zvs_be16(raw + 18), 66);
    assert_int_equal(zvs_be16(raw + 20), 1448);
    assert_int_equal(e.outq->sbal[0].e[4].flags, 0x0C000000u | 0x40000000u);
    assert_int_equal(zvs_qdio_poll_output(e.q, f, 2, 0), 1);
    assert_int_equal(f[0].nfrags, 5);
    assert_memory_equal(&f[0].vnet, &p.vnet, sizeof(p.vnet));

    /* pushed into the input queue: csum_start and hdr_len move with the tag */
    struct zvs_tx tx = { .f = &f[0], .tag_op = ZVS_TAG_PUSH, .vid = 7 };
    enum zvs_drop why = ZVS_DROP__COUNT;
    assert_int_equal(zvs_qdio_deliver(e.q, &tx, 1, &why), 1);
    struct rx_log *log = calloc(1, sizeof(*log));
    assert_non_null(log);
    assert_int_equal(zvs_qdio_guest_receive(e.g, 64, rx_cb, log), 1);
    assert_int_equal(log->hdr[0].id, 0x06);
    assert_int_equal(log->len[0], 20004);
    assert_int_equal(log->niov[0], 5);
    assert_int_equal(log->hdr[0].vnet.csum_start, 38);
    assert_int_equal(log->hdr[0].vnet.hdr_len, 70);
    assert_int_equal(log->hdr[0].vnet.gso_size, 1448);
    assert_int_equal(log->hdr[0].vnet.gso_type, ZVS_VNET_GSO_TCPV4);
    assert_int_equal(log->hdr[0].vnet.flags, ZVS_VNET_F_NEEDS_CSUM);
    free(log);
    zvs_qdio_release(e.q, f, 1);

    /* inconsistent metadata never reaches the queue */
    p.len = 40;
    assert_int_equal(zvs_qdio_guest_send(e.g, &p, 1), -EINVAL);
    p.vnet = (struct zvs_vnet){ .gso_type = 2 };
    assert_int_equal(zvs_qdio_guest_send(e.g, &p, 1), -EINVAL);
    assert_int_equal(e.outq->slsb[1], 0xA1);
    env_close(&e);
}

/* ---- Input queue: adapter -> guest ------------------------------------------------ */

static void test_input_roundtrip_and_states(void **state)
{
    struct env e;
    uint8_t tagged[64], plain[70];
    struct zvs_frame fr[3];

    env_open(&e, QS_8M);
    make_frame(tagged, 64, 1, 100);
    make_frame(plain, 70, 2, 0);
    fr[0] = (struct zvs_frame){ .data = tagged, .len = 64, .flags = ZVS_FF_TAGGED, .vid = 100 };
    fr[1] = (struct zvs_frame){ .data = plain, .len = 70, .pcp = 5,
                                .vnet = { .flags = ZVS_VNET_F_DATA_VALID } };
    fr[2] = fr[0];
    struct zvs_tx tx[3] = {
        { .f = &fr[0], .tag_op = ZVS_TAG_STRIP },
        { .f = &fr[1], .tag_op = ZVS_TAG_PUSH, .vid = 0x123 },
        { .f = &fr[2], .tag_op = ZVS_TAG_REWRITE, .vid = 200 },
    };
    enum zvs_drop why = ZVS_DROP__COUNT;
    assert_int_equal(zvs_qdio_deliver(e.q, tx, 3, &why), 3);
    assert_int_equal(why, ZVS_DROP__COUNT);
    assert_int_equal(e.inq->slsb[0], 0x82);
    assert_int_equal(e.inq->slsb[1], 0x41);
    const struct zvs_sbal *s = &e.inq->sbal[0];
    assert_int_equal(s->e[0].length, 32 + 60);
    assert_int_equal(s->e[1].length, 32 + 74);
    assert_int_equal(s->e[2].length, 32 + 64);
    assert_int_equal(s->e[0].flags, 0);
    assert_int_equal(s->e[2].flags, 0x40000000u);
    assert_int_equal(s->e[1].addr, 4096);
    const uint8_t want_hdr1[16] = { 0x02, 0, 0, 0x14, 0, 32, 0, 74, 0, 1, 0xA1, 0x23, 0, 0, 0, 0 };
    assert_memory_equal(e.data + 4096, want_hdr1, 16);
    assert_int_equal(e.data[4096 + 16], ZVS_VNET_F_DATA_VALID);
    struct zvs_qdio_counters c = ctrs(&e);
    assert_int_equal(c.adapter.in_bufs_primed, 1);
    assert_int_equal(c.adapter.in_frames, 3);
    assert_int_equal(c.adapter.in_bytes, 60 + 74 + 64);
    assert_int_equal(c.adapter.interrupts, 0);  /* not armed */

    struct rx_log *log = calloc(1, sizeof(*log));
    assert_non_null(log);
    assert_true(zvs_qdio_guest_rx_pending(e.g));
    assert_int_equal(zvs_qdio_guest_receive(e.g, 64, rx_cb, log), 3);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(log->slsb[i], 0x81);   /* acknowledged while processed */
        assert_int_equal(log->buf[i], 0);
        assert_int_equal(log->hdr[i].seq_no, i);
    }
    assert_int_equal(log->hdr[0].flags[2], ZVS_QETH_L2_FLAG_UCAST);
    assert_int_equal(log->hdr[1].vlan_id, 0xA123);
    uint8_t want[60];
    memcpy(want, tagged, 12);               /* addresses, then what followed the tag */
    memcpy(want + 12, tagged + 16, 48);
    assert_int_equal(log->len[0], 60);
    assert_memory_equal(log->bytes[0], want, 60);
    assert_memory_equal(log->bytes[1], plain, 12);
    const uint8_t tag1[4] = { 0x81, 0x00, 0xA1, 0x23 };
    assert_memory_equal(log->bytes[1] + 12, tag1, 4);
    assert_memory_equal(log->bytes[1] + 16, plain + 12, 58);
    assert_int_equal(log->hdr[1].vnet.flags, ZVS_VNET_F_DATA_VALID);
    const uint8_t tag2[4] = { 0x81, 0x00, 0x00, 0xC8 };
    assert_memory_equal(log->bytes[2], tagged, 12);
    assert_memory_equal(log->bytes[2] + 12, tag2, 4);
    assert_memory_equal(log->bytes[2] + 16, tagged + 16, 48);
    assert_int_equal(log->hdr[2].vlan_id, 200);
    /* returned: buffer 0 is no longer offered, its set 0 moved to buffer 64 (the first
     * past the 64 armed ones), re-armed whole */
    assert_int_equal(e.inq->slsb[0], 0x80);
    assert_int_equal(e.inq->slsb[1], 0x41);
    assert_int_equal(e.inq->slsb[64], 0x41);
    assert_int_equal(e.inq->slsb[65], 0x80);
    s = &e.inq->sbal[64];
    for (uint32_t k = 0; k < 16; k++) {
        assert_int_equal(s->e[k].addr, k * 4096u);
        assert_int_equal(s->e[k].length, 4096);
        assert_int_equal(s->e[k].flags, k == 15 ? 0x40000000u : 0);
    }
    assert_false(zvs_qdio_guest_rx_pending(e.g));
    c = ctrs(&e);
    assert_int_equal(c.prog.in_bufs_processed, 1);
    assert_int_equal(c.prog.in_frames, 3);
    assert_int_equal(c.prog.siga_r, 0);         /* AC1 does not ask for SIGA-r */
    free(log);
    env_close(&e);
}

static void test_input_packing_fills_buffers(void **state)
{
    struct env e;
    static uint8_t small[64], mid[5000];
    struct zvs_frame fs = { .data = small, .len = 64 };
    struct zvs_frame fm = { .data = mid, .len = 5000 };
    struct zvs_tx tx[20], tx3[16];

    env_open(&e, QS_8M);
    make_frame(small, 64, 1, 0);
    make_frame(mid, 5000, 2, 0);
    /* 14 small (14 entries), then a 5000-byte frame (2 entries) fills buffer 0's 16
     * entries exactly; 5 more small go to buffer 1. */
    for (int i = 0; i < 20; i++)
        tx[i] = (struct zvs_tx){ .f = i == 14 ? &fm : &fs, .tag_op = ZVS_TAG_KEEP };
    enum zvs_drop why = ZVS_DROP__COUNT;
    assert_int_equal(zvs_qdio_deliver(e.q, tx, 20, &why), 20);
    assert_int_equal(e.inq->slsb[0], 0x82);
    assert_int_equal(e.inq->slsb[1], 0x82);
    assert_int_equal(e.inq->slsb[2], 0x41);
    assert_int_equal(e.inq->sbal[0].e[13].flags, 0);
    assert_int_equal(e.inq->sbal[0].e[14].flags, 0x04000000u);
    assert_int_equal(e.inq->sbal[0].e[15].flags, 0x0C000000u | 0x40000000u);
    assert_int_equal(e.inq->sbal[0].e[15].length, 5032 - 4096);
    assert_int_equal(e.inq->sbal[1].e[4].flags, 0x40000000u);
    assert_int_equal(e.inq->sbal[1].e[0].addr, 65536);
    assert_int_equal(ctrs(&e).adapter.in_bufs_primed, 2);

    /* a frame that does not fit the rest of a buffer starts the next one: 15 small take
     * entries 0..14 of buffer 2, the 5000-byte frame needs two and goes to buffer 3 */
    for (int i = 0; i < 16; i++)
        tx3[i] = (struct zvs_tx){ .f = i == 15 ? &fm : &fs, .tag_op = ZVS_TAG_KEEP };
    assert_int_equal(zvs_qdio_deliver(e.q, tx3, 16, &why), 16);
    assert_int_equal(e.inq->slsb[2], 0x82);
    assert_int_equal(e.inq->slsb[3], 0x82);
    assert_int_equal(e.inq->sbal[2].e[14].flags, 0x40000000u);
    assert_int_equal(e.inq->sbal[3].e[0].flags, 0x04000000u);
    assert_int_equal(e.inq->sbal[3].e[1].flags, 0x0C000000u | 0x40000000u);
    assert_int_equal(e.inq->sbal[3].e[0].addr, 3 * 65536);
    assert_int_equal(ctrs(&e).adapter.in_bufs_primed, 4);

    struct rx_log *log = calloc(1, sizeof(*log));
    assert_non_null(log);
    /* budget counts frames, whole buffers only: 15 < 16, so buffer 1's 5 follow */
    assert_int_equal(zvs_qdio_guest_receive(e.g, 16, rx_cb, log), 20);
    assert_int_equal(log->len[14], 5000);
    assert_int_equal(log->niov[14], 2);
    assert_int_equal(log->buf[14], 0);
    assert_int_equal(log->buf[15], 1);
    assert_int_equal(log->buf[19], 1);
    assert_memory_equal(log->bytes[0], small, 64);
    assert_int_equal(zvs_qdio_guest_receive(e.g, 1, rx_cb, log), 15);
    assert_int_equal(log->buf[34], 2);
    free(log);
    env_close(&e);
}

/* The input queue is full once the N armed buffers are primed (8 at 1M, 64 at 8M); every
 * later frame is discarded and counted. Delivery resumes in ring order, at buffer N, once
 * the guest has processed buffers and passed their sets on. */
static void input_queue_full(uint32_t qs, uint32_t nsets)
{
    struct env e;
    uint8_t frame[100];
    struct zvs_frame f = { .data = frame, .len = 100 };
    struct zvs_tx tx[2] = { { .f = &f, .tag_op = ZVS_TAG_KEEP },
                            { .f = &f, .tag_op = ZVS_TAG_KEEP } };
    enum zvs_drop why;

    env_open(&e, qs);
    assert_int_equal(zvs_qdio_guest_sets(e.g), nsets);
    make_frame(frame, 100, 77, 0);
    for (uint32_t b = 0; b < nsets; b++) {
        why = ZVS_DROP__COUNT;
        assert_int_equal(zvs_qdio_deliver(e.q, tx, 1, &why), 1);
        assert_int_equal(why, ZVS_DROP__COUNT);
    }
    for (uint32_t b = 0; b < ZVS_QDIO_NBUFS; b++)
        assert_int_equal(e.inq->slsb[b], b < nsets ? 0x82 : 0x80);
    struct zvs_qdio_counters c = ctrs(&e);
    assert_int_equal(c.adapter.in_bufs_primed, nsets);
    assert_int_equal(c.adapter.iq_full, 0);

    /* once no buffer is left the rest of the burst goes too, even a frame that would
     * otherwise be refused for its size */
    struct zvs_frame huge = { .data = frame, .len = 65505 };
    struct zvs_tx burst[3] = { tx[0], { .f = &huge, .tag_op = ZVS_TAG_KEEP }, tx[1] };
    why = ZVS_DROP__COUNT;
    assert_int_equal(zvs_qdio_deliver(e.q, burst, 3, &why), 0);
    assert_int_equal(why, ZVS_DROP_NO_BUFFER);
    c = ctrs(&e);
    assert_int_equal(c.adapter.iq_full, 3);
    assert_int_equal(c.adapter.in_oversize, 0);
    why = ZVS_DROP__COUNT;
    assert_int_equal(zvs_qdio_deliver(e.q, tx, 2, &why), 0);
    assert_int_equal(why, ZVS_DROP_NO_BUFFER);
    c = ctrs(&e);
    assert_int_equal(c.adapter.iq_full, 5);
    assert_int_equal(c.adapter.in_frames, nsets);
    assert_int_equal(c.adapter.in_bufs_primed, nsets);

    /* the guest processes two buffers: their sets go to buffers N and N + 1 */
    struct rx_log *log = calloc(1, sizeof(*log));
    assert_non_null(log);
    assert_int_equal(zvs_qdio_guest_receive(e.g, 2, rx_cb, log), 2);
    assert_int_equal(e.inq->slsb[0], 0x80);
    assert_int_equal(e.inq->slsb[1], 0x80);
    assert_int_equal(e.inq->slsb[2], 0x82);
    assert_int_equal(e.inq->slsb[nsets], 0x41);
    assert_int_equal(e.inq->slsb[nsets + 1], 0x41);
    assert_int_equal(e.inq->slsb[nsets + 2], 0x80);
    assert_int_equal(e.inq->sbal[nsets].e[0].addr, 0);          /* set 0 */
    assert_int_equal(e.inq->sbal[nsets + 1].e[0].addr, 65536);  /* set 1 */
    assert_memory_equal(log->bytes[0], frame, 100);
    assert_memory_equal(log->bytes[1], frame, 100);
    why = ZVS_DROP__COUNT;
    assert_int_equal(zvs_qdio_deliver(e.q, tx, 1, &why), 1);
    assert_int_equal(why, ZVS_DROP__COUNT);
    assert_int_equal(e.inq->slsb[nsets], 0x82);
    assert_int_equal(e.inq->slsb[nsets + 1], 0x41);
    assert_int_equal(e.inq->slsb[0], 0x80);
    c = ctrs(&e);
    assert_int_equal(c.adapter.iq_full, 5);
    assert_int_equal(c.adapter.in_frames, nsets + 1);
    assert_int_equal(c.adapter.in_bufs_primed, nsets + 1);
    assert_int_equal(c.prog.in_bufs_processed, 2);
    /* the frame after the discarded ones is still sequenced right */
    log->n = 0;
    assert_int_equal(zvs_qdio_guest_receive(e.g, 1000, rx_cb, log), (int)nsets - 1);
    assert_int_equal(log->buf[nsets - 2], nsets);
    assert_int_equal(log->hdr[nsets - 2].seq_no, nsets);
    free(log);
    env_close(&e);
}

static void test_input_queue_full(void **state)
{
    input_queue_full(QS_1M, 8);
    input_queue_full(QS_8M, 64);
}

static void test_bad_input_entries_refused(void **state)
{
    struct env e;
    uint8_t frame[100];
    struct zvs_frame f = { .data = frame, .len = 100 };
    struct zvs_tx tx = { .f = &f, .tag_op = ZVS_TAG_KEEP };
    enum zvs_drop why = ZVS_DROP__COUNT;

    env_open(&e, QS_8M);
    make_frame(frame, 100, 8, 0);
    e.inq->sbal[0].e[3].addr = QS_8M - 10;     /* the guest points an entry outside */
    e.inq->sbal[1].e[0].length = 16;           /* and offers a tiny entry */
    assert_int_equal(zvs_qdio_deliver(e.q, &tx, 1, &why), 1);
    assert_int_equal(e.inq->slsb[0], 0x8F);
    assert_int_equal(e.inq->sbalf[0], ZVS_QDIO_SBALF(3, ZVS_QDIO_ERR_ADDR));
    assert_int_equal(e.inq->slsb[1], 0x8F);
    assert_int_equal(e.inq->sbalf[1], ZVS_QDIO_SBALF(0, ZVS_QDIO_ERR_SIZE));
    assert_int_equal(e.inq->slsb[2], 0x82);
    assert_int_equal(ctrs(&e).adapter.in_bad_bufs, 2);
    struct rx_log *log = calloc(1, sizeof(*log));
    assert_non_null(log);
    assert_int_equal(zvs_qdio_guest_receive(e.g, 64, rx_cb, log), 1);
    assert_int_equal(log->buf[0], 2);
    /* the refused buffers pass their sets on like processed ones, with fresh entries */
    for (int b = 0; b < 3; b++) {
        assert_int_equal(e.inq->slsb[b], 0x80);
        assert_int_equal(e.inq->slsb[64 + b], 0x41);
    }
    assert_int_equal(e.inq->slsb[67], 0x80);
    assert_int_equal(e.inq->sbal[64].e[3].addr, 3 * 4096);
    assert_int_equal(e.inq->sbal[65].e[0].addr, 65536);
    assert_int_equal(e.inq->sbal[65].e[0].length, 4096);
    assert_int_equal(e.inq->sbalf[64], 0);
    assert_int_equal(e.inq->sbalf[65], 0);
    assert_int_equal(ctrs(&e).prog.in_bufs_processed, 1);
    free(log);
    env_close(&e);
}

/* Offer input buffer b (0x41) with rooms cap[0..n-1] from offset off on, 4 KB apart, the
 * last one flagged; the entries after it hold garbage the adapter must not read. */
static void arm_input(struct env *e, uint32_t b, uint64_t off, const uint32_t *cap, uint32_t n)
{
    struct zvs_sbal *s = &e->inq->sbal[b];

    for (uint32_t k = 0; k < ZVS_QDIO_NSBALE; k++) {
        s->e[k].addr = k < n ? off + (uint64_t)k * 4096 : UINT64_MAX - k;
        s->e[k].length = k < n ? cap[k] : 0;
        s->e[k].flags = k + 1 == n ? ZVS_SBALE_LAST_ENTRY : 0;
    }
    zvs_slsb_set(&e->inq->slsb[b], ZVS_SLSB_CU_INPUT_EMPTY);
}

/* Deliver one frame of len bytes, buffer b being the adapter's next; returns the SLSB
 * state b is left in and checks the frame landed in its entry 0 when it is primed (when
 * b is refused, the frame goes to buffer b + 1, which the guest library armed). */
static uint8_t take_one(struct env *e, uint32_t b, uint32_t len)
{
    uint8_t frame[1500];
    struct zvs_frame f = { .data = frame, .len = len };
    struct zvs_tx tx = { .f = &f, .tag_op = ZVS_TAG_KEEP };
    enum zvs_drop why = ZVS_DROP__COUNT;

    make_frame(frame, len, b, 0);
    int done = zvs_qdio_deliver(e->q, &tx, 1, &why);
    uint8_t st = e->inq->slsb[b];
    if (st == 0x82) {
        const struct zvs_sbale *se = &e->inq->sbal[b].e[0];
        assert_int_equal(done, 1);
        assert_int_equal(se->length, ZVS_QDIO_FHDR_LEN + len);
        assert_int_equal(se->flags, ZVS_SBALE_LAST_ENTRY);
        assert_memory_equal(e->data + se->addr + ZVS_QDIO_FHDR_LEN, frame, len);
    }
    return st;
}

/* The adapter takes an input buffer in one pass that accepts only entries it can prove
 * good with one OR a field, and reads the buffer anew with the exact checks otherwise:
 * both must accept and refuse the same buffers, with the same snapshot. */
static void test_input_take_exact_at_the_bounds(void **state)
{
    struct env e;
    const uint32_t page[16] = { 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096,
                                4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096 };
    const uint32_t mixed[3] = { 1500, 4096, 200 };      /* good rooms whose OR is not */
    const uint32_t tail[1] = { 2048 };
    const uint32_t min[2] = { 64, 4096 };
    const uint32_t under[1] = { 63 };
    const uint32_t over[1] = { 4097 };
    uint32_t b = 0;

    env_open(&e, QS_8M);
    /* the data area's last page, whole: the largest offset the one pass passes */
    arm_input(&e, b, QS_8M - 4096, page, 1);
    assert_int_equal(take_one(&e, b++, 100), 0x82);
    /* half of it, from its middle: good, past what the one pass proves */
    arm_input(&e, b, QS_8M - 2048, tail, 1);
    assert_int_equal(take_one(&e, b++, 100), 0x82);
    assert_int_equal(e.inq->sbal[b - 1].e[0].addr, QS_8M - 2048);
    /* a byte more than the data area holds */
    arm_input(&e, b, QS_8M - 4095, page, 1);
    assert_int_equal(take_one(&e, b, 100), 0x8F);
    assert_int_equal(e.inq->sbalf[b], ZVS_QDIO_SBALF(0, ZVS_QDIO_ERR_ADDR));
    b += 2;
    /* rooms of mixed sizes, a frame filling the first */
    arm_input(&e, b, 0, mixed, 3);
    assert_int_equal(take_one(&e, b++, 1500 - ZVS_QDIO_FHDR_LEN), 0x82);
    /* the smallest room and one under it, the largest and one over it */
    arm_input(&e, b, 8192, min, 2);
    assert_int_equal(take_one(&e, b++, 32), 0x82);
    arm_input(&e, b, 0, under, 1);
    assert_int_equal(take_one(&e, b, 32), 0x8F);
    assert_int_equal(e.inq->sbalf[b], ZVS_QDIO_SBALF(0, ZVS_QDIO_ERR_SIZE));
    b += 2;
    arm_input(&e, b, 0, over, 1);
    assert_int_equal(take_one(&e, b, 32), 0x8F);
    assert_int_equal(e.inq->sbalf[b], ZVS_QDIO_SBALF(0, ZVS_QDIO_ERR_SIZE));
    b += 2;
    /* a bad entry after good ones names itself; no last entry names the sixteenth */
    arm_input(&e, b, 0, page, 16);
    e.inq->sbal[b].e[9].length = 4097;
    assert_int_equal(take_one(&e, b, 100), 0x8F);
    assert_int_equal(e.inq->sbalf[b], ZVS_QDIO_SBALF(9, ZVS_QDIO_ERR_SIZE));
    b += 2;
    arm_input(&e, b, 0, page, 16);
    e.inq->sbal[b].e[15].flags = 0;
    assert_int_equal(take_one(&e, b, 100), 0x8F);
    assert_int_equal(e.inq->sbalf[b], ZVS_QDIO_SBALF(15, ZVS_QDIO_ERR_NO_LAST));
    assert_int_equal(e.inq->slsb[b + 1], 0x82);
    struct zvs_qdio_counters c = ctrs(&e);
    assert_int_equal(c.adapter.in_bad_bufs, 5);
    assert_int_equal(c.adapter.in_bufs_primed, 9);
    assert_int_equal(c.adapter.in_frames, 9);
    assert_int_equal(e.hdr->adapter.in_bad_bufs, 5);        /* published as they happen */
    assert_int_equal(e.hdr->adapter.in_bufs_primed, 9);
    env_close(&e);
}

/* A guest that rewrites an entry after the adapter took its buffer steers nothing: the
 * adapter writes where the entries pointed when it took the buffer, and writes those
 * entries back. The buffer is taken by the one pass (pages) and by the exact checks
 * (an entry in the data area's last 4 KB); a frame too large for its one room of 64
 * bytes is discarded and leaves it taken, empty, for the next delivery. */
static void test_input_entries_rewritten_after_take(void **state)
{
    const uint64_t where[2] = { 8192, QS_1M - 1024 };

    for (int i = 0; i < 2; i++) {
        struct env e;
        const uint32_t room[1] = { 64 };
        uint8_t big[2000], small[32];
        struct zvs_frame fb = { .data = big, .len = sizeof(big) };
        struct zvs_frame fs = { .data = small, .len = sizeof(small) };
        struct zvs_tx tb = { .f = &fb, .tag_op = ZVS_TAG_KEEP };
        struct zvs_tx ts = { .f = &fs, .tag_op = ZVS_TAG_KEEP };
        enum zvs_drop why = ZVS_DROP__COUNT;

        env_open(&e, QS_1M);
        arm_input(&e, 0, where[i], room, 1);
        make_frame(big, sizeof(big), 1, 0);
        make_frame(small, sizeof(small), 2, 0);
        assert_int_equal(zvs_qdio_deliver(e.q, &tb, 1, &why), 0);
        assert_int_equal(why, ZVS_DROP_OVERSIZE);
        assert_int_equal(ctrs(&e).adapter.in_oversize, 1);
        assert_int_equal(e.hdr->adapter.in_oversize, 1);
        assert_int_equal(e.inq->slsb[0], 0x41);             /* taken, left empty */
        /* the guest points the entry outside the data area and widens it */
        e.inq->sbal[0].e[0].addr = QS_1M;
        e.inq->sbal[0].e[0].length = 4096;
        assert_int_equal(zvs_qdio_deliver(e.q, &ts, 1, &why), 1);
        assert_int_equal(e.inq->slsb[0], 0x82);
        assert_int_equal(e.inq->sbal[0].e[0].addr, where[i]);
        assert_int_equal(e.inq->sbal[0].e[0].length, ZVS_QDIO_FHDR_LEN + sizeof(small));
        struct rx_log *log = calloc(1, sizeof(*log));
        assert_non_null(log);
        assert_int_equal(zvs_qdio_guest_receive(e.g, 64, rx_cb, log), 1);
        assert_int_equal(log->len[0], sizeof(small));
        assert_memory_equal(log->bytes[0], small, sizeof(small));
        assert_int_equal(ctrs(&e).adapter.in_bad_bufs, 0);
        free(log);
        env_close(&e);
    }
}

/* The switch's load-ahead hint (zvs_qdio_prefetch, every level) reads the queue and
 * writes nothing: with the next buffer's entries pointing outside the region (a hostile
 * guest) it neither faults nor changes a byte of the region, and the delivery after it
 * refuses that buffer exactly as it would have. Level 2 loads the entry the next frame
 * would start in, only inside the data area: none for the hostile buffer, the next
 * buffer's first entry, the taken buffer's next entry. */
static void test_prefetch_changes_nothing(void **state)
{
    struct env e;
    const uint32_t room[2] = { 4096, 4096 };
    const uint32_t tiny[1] = { 128 };          /* a 64-byte frame fits, 2,000 bytes do not */
    uint8_t small[64], big[2000];
    struct zvs_frame fs = { .data = small, .len = sizeof(small) };
    struct zvs_frame fb = { .data = big, .len = sizeof(big) };
    struct zvs_tx ts = { .f = &fs, .tag_op = ZVS_TAG_KEEP };
    struct zvs_tx tb = { .f = &fb, .tag_op = ZVS_TAG_KEEP };
    enum zvs_drop why = ZVS_DROP__COUNT;
    (void)state;

    env_open(&e, QS_1M);
    arm_input(&e, 0, UINT64_MAX - 8192, room, 2);          /* far outside the region */
    arm_input(&e, 1, 8192, room, 2);
    make_frame(small, sizeof(small), 3, 0);
    make_frame(big, sizeof(big), 4, 0);
    size_t size = zvs_qdio_size(e.q);
    uint8_t *copy = malloc(size);
    assert_non_null(copy);
    memcpy(copy, zvs_qdio_region(e.q), size);
    assert_null(zvs_qdio_prefetch_entry(e.q));
    for (unsigned level = 0; level < 3; level++)
        zvs_qdio_prefetch(e.q, level);
    assert_memory_equal(copy, zvs_qdio_region(e.q), size);
    assert_int_equal(zvs_qdio_deliver(e.q, &ts, 1, &why), 1);
    assert_int_equal(e.inq->slsb[0], ZVS_SLSB_P_INPUT_ERROR);  /* refused, as before */
    assert_int_equal(e.inq->slsb[1], 0x82);
    assert_int_equal(ctrs(&e).adapter.in_bad_bufs, 1);
    /* the next buffer's first entry, as its SBAL says */
    arm_input(&e, 2, 16384, tiny, 1);
    assert_ptr_equal(zvs_qdio_prefetch_entry(e.q), e.data + 16384);
    e.inq->sbal[2].e[0].addr = QS_1M - 4096 + 1;            /* room would leave the area */
    assert_null(zvs_qdio_prefetch_entry(e.q));
    e.inq->sbal[2].e[0].addr = QS_1M - 4096;                /* the last entry that fits */
    assert_ptr_equal(zvs_qdio_prefetch_entry(e.q), e.data + QS_1M - 4096);
    e.inq->sbal[2].e[0].addr = 16384;
    /* a buffer taken and left empty (the frame did not fit): its snapshot's entry */
    assert_int_equal(zvs_qdio_deliver(e.q, &tb, 1, &why), 0);
    assert_int_equal(why, ZVS_DROP_OVERSIZE);
    assert_int_equal(e.inq->slsb[2], 0x41);
    e.inq->sbal[2].e[0].addr = QS_1M;                        /* the guest's later word */
    assert_ptr_equal(zvs_qdio_prefetch_entry(e.q), e.data + 16384);
    for (unsigned level = 0; level < 3; level++)
        zvs_qdio_prefetch(e.q, level);
    assert_int_equal(zvs_qdio_deliver(e.q, &ts, 1, &why), 1);
    assert_int_equal(e.inq->slsb[2], 0x82);
    assert_int_equal(e.inq->sbal[2].e[0].addr, 16384);
    free(copy);
    env_close(&e);
}

/* ---- Signals ---------------------------------------------------------------------- */

static void test_irq_arm_disarm(void **state)
{
    struct env e;
    uint8_t frame[64];
    struct zvs_frame f = { .data = frame, .len = 64 };
    struct zvs_tx tx = { .f = &f, .tag_op = ZVS_TAG_KEEP };
    enum zvs_drop why;
    int irq;

    env_open(&e, QS_8M);
    irq = zvs_qdio_irq_fd(e.q);
    make_frame(frame, 64, 4, 0);
    struct rx_log *log = calloc(1, sizeof(*log));
    assert_non_null(log);

    assert_false(zvs_qdio_guest_arm_irq(e.g));
    assert_int_equal(e.hdr->irq_armed, 1);
    assert_int_equal(zvs_qdio_deliver(e.q, &tx, 1, &why), 1);
    assert_int_equal(e.hdr->irq_armed, 0);          /* signalled once and disarmed */
    assert_int_equal(zvs_qdio_deliver(e.q, &tx, 1, &why), 1);
    assert_int_equal(efd_read(irq), 1);
    assert_int_equal(ctrs(&e).adapter.interrupts, 1);

    /* armed while input waits: the guest is told to poll, and the next prime signals */
    assert_true(zvs_qdio_guest_arm_irq(e.g));
    assert_int_equal(zvs_qdio_deliver(e.q, &tx, 1, &why), 1);
    assert_int_equal(zvs_qdio_guest_irq_ack(e.g), 1);
    assert_int_equal(zvs_qdio_guest_irq_ack(e.g), 0);
    assert_int_equal(ctrs(&e).adapter.interrupts, 2);

    /* disarmed while polling: no interrupts at all */
    zvs_qdio_guest_arm_irq(e.g);
    zvs_qdio_guest_disarm_irq(e.g);
    assert_int_equal(zvs_qdio_deliver(e.q, &tx, 1, &why), 1);
    assert_int_equal(efd_read(irq), 0);
    assert_int_equal(ctrs(&e).adapter.interrupts, 2);
    assert_int_equal(zvs_qdio_guest_receive(e.g, 64, rx_cb, log), 4);

    /* nothing primed (queue empty, no frames): no interrupt even when armed */
    assert_false(zvs_qdio_guest_arm_irq(e.g));
    assert_int_equal(zvs_qdio_deliver(e.q, &tx, 0, &why), 0);
    assert_int_equal(efd_read(irq), 0);
    assert_int_equal(e.hdr->irq_armed, 1);
    free(log);
    env_close(&e);
}

static void test_siga_by_ac1(void **state)
{
    struct env e;
    uint8_t frame[64];
    struct zvs_frame fr[4];
    struct zvs_frame f = { .data = frame, .len = 64 };
    struct zvs_tx tx = { .f = &f, .tag_op = ZVS_TAG_KEEP };
    enum zvs_drop why;
    int siga;

    env_open(&e, QS_8M);
    siga = zvs_qdio_siga_fd(e.q);
    make_frame(frame, 64, 4, 0);
    struct zvs_qdio_pkt p = pkt_of(frame, 64);
    struct rx_log *log = calloc(1, sizeof(*log));
    assert_non_null(log);

    /* the switch polls the output queue itself: no SIGA-w, no system call */
    zvs_qdio_set_ac1(e.q, 0);
    assert_int_equal(zvs_qdio_guest_send(e.g, &p, 1), 1);
    assert_int_equal(efd_read(siga), 0);
    assert_int_equal(ctrs(&e).prog.siga_w, 0);
    assert_int_equal(zvs_qdio_poll_output(e.q, fr, 4, 0), 1);
    zvs_qdio_release(e.q, fr, 1);

    zvs_qdio_set_ac1(e.q, ZVS_QDIO_AC1_SIGA_OUTPUT | ZVS_QDIO_AC1_SIGA_INPUT);
    assert_int_equal(zvs_qdio_guest_send(e.g, &p, 1), 1);
    assert_int_equal(zvs_qdio_guest_send(e.g, &p, 1), 1);
    assert_int_equal(zvs_qdio_siga_ack(e.q), 2);
    assert_int_equal(zvs_qdio_siga_ack(e.q), 0);
    assert_int_equal(ctrs(&e).prog.siga_w, 2);
    assert_int_equal(zvs_qdio_deliver(e.q, &tx, 1, &why), 1);
    assert_int_equal(zvs_qdio_guest_receive(e.g, 64, rx_cb, log), 1);
    assert_int_equal(ctrs(&e).prog.siga_r, 1);
    assert_int_equal(zvs_qdio_guest_receive(e.g, 64, rx_cb, log), 0);
    assert_int_equal(ctrs(&e).prog.siga_r, 1);   /* nothing replenished, no signal */
    assert_int_equal(efd_read(siga), 1);
    free(log);
    env_close(&e);
}

/* At most N output buffers are outstanding (8 at 1M, 64 at 8M): the next send fails with
 * -ENOBUFS until the switch releases and the guest reaps; buffer N then reuses set 0. */
static void output_queue_full(uint32_t qs, uint32_t nsets)
{
    struct env e;
    uint8_t frame[64];
    struct zvs_frame fr[16];

    env_open(&e, qs);
    make_frame(frame, 64, 4, 0);
    struct zvs_qdio_pkt p = pkt_of(frame, 64);
    for (uint32_t b = 0; b < nsets; b++) {
        assert_int_equal(zvs_qdio_guest_send(e.g, &p, 1), 1);
        assert_int_equal(e.outq->sbal[b].e[0].addr, out_set(qs, b));
    }
    assert_int_equal(zvs_qdio_guest_send(e.g, &p, 1), -ENOBUFS);
    assert_int_equal(e.outq->slsb[nsets - 1], 0x62);
    assert_int_equal(e.outq->slsb[nsets], 0xA1);
    assert_int_equal(ctrs(&e).prog.out_bufs_primed, nsets);
    assert_int_equal(zvs_qdio_poll_output(e.q, fr, 2, 0), 2);
    /* the guest still cannot refill until the switch releases */
    assert_int_equal(zvs_qdio_guest_send(e.g, &p, 1), -ENOBUFS);
    zvs_qdio_release(e.q, fr, 2);
    /* reaps buffers 0 and 1, fills buffer N in ring order with the set buffer 0 had */
    assert_int_equal(zvs_qdio_guest_send(e.g, &p, 1), 1);
    assert_int_equal(e.outq->slsb[0], 0xA1);
    assert_int_equal(e.outq->slsb[nsets], 0x62);
    assert_int_equal(e.outq->sbal[nsets].e[0].addr, out_set(qs, 0));
    assert_int_equal(e.outq->slsb[nsets + 1], 0xA1);
    /* N outstanding again: buffer N + 1 (set 1) is free, N + 2 would need set 2, whose
     * buffer 2 is still the adapter's */
    assert_int_equal(zvs_qdio_guest_send(e.g, &p, 1), 1);
    assert_int_equal(e.outq->sbal[nsets + 1].e[0].addr, out_set(qs, 1));
    assert_int_equal(zvs_qdio_guest_send(e.g, &p, 1), -ENOBUFS);
    /* the adapter walks 2..N+1 */
    int total = 0, n;
    while ((n = zvs_qdio_poll_output(e.q, fr, 16, 0)) > 0) {
        total += n;
        zvs_qdio_release(e.q, fr, n);
    }
    assert_int_equal(total, (int)nsets);
    struct zvs_qdio_counters c = ctrs(&e);
    assert_int_equal(c.adapter.out_bufs_processed, nsets + 2);
    assert_int_equal(c.prog.out_bufs_primed, nsets + 2);
    assert_int_equal(zvs_qdio_guest_reap(e.g), (int)nsets);
    env_close(&e);
}

static void test_output_queue_full(void **state)
{
    output_queue_full(QS_1M, 8);
    output_queue_full(QS_8M, 64);
}

/* ---- Two processes ---------------------------------------------------------------- */

#define XP_FRAMES  2000

static uint32_t xp_len(uint32_t i)
{
    return 60 + (i * 389u) % 9000u;
}

static struct zvs_vnet xp_vnet(uint32_t i)
{
    struct zvs_vnet v = { 0 };
    if (i % 5 == 0) {
        v.flags = ZVS_VNET_F_NEEDS_CSUM;
        v.csum_start = 14;
        v.csum_offset = (uint16_t)(i % 40);
    }
    return v;
}

struct xp_child {
    uint32_t received;
    int      bad;
    uint8_t  want[10000];
    uint8_t  got[10000];
};

static void xp_rx(void *arg, const struct zvs_qdio_rx *rx)
{
    struct xp_child *c = arg;
    uint32_t i = c->received++;
    struct zvs_vnet v = xp_vnet(i);

    make_frame(c->want, xp_len(i), i, 0);
    if (rx->len != xp_len(i) || zvs_qdio_rx_copy(rx, c->got, sizeof(c->got)) != rx->len ||
        memcmp(c->got, c->want, rx->len) != 0 || memcmp(&rx->hdr.vnet, &v, sizeof(v)) != 0 ||
        rx->hdr.seq_no != (uint16_t)i || rx->slsb != 0x81)
        c->bad++;
}

/* Queue the next frames (up to 8) with known contents; returns frames taken or < 0. */
static int xp_send(struct zvs_qdio_guest *g, uint32_t sent)
{
    static uint8_t bufs[8][10000];
    struct zvs_qdio_pkt p[8];
    int n = 0;

    while (sent + (uint32_t)n < XP_FRAMES && n < 8) {
        uint32_t i = sent + (uint32_t)n;
        make_frame(bufs[n], xp_len(i), i, 0);
        p[n] = pkt_of(bufs[n], xp_len(i));
        p[n].vnet = xp_vnet(i);
        n++;
    }
    if (n == 0)
        return 0;
    int k = zvs_qdio_guest_send(g, p, n);
    return k == -ENOBUFS ? 0 : k;
}

/* The guest: map the memfd, send XP_FRAMES known frames and receive as many back. It
 * receives nothing until the adapter reports an input-queue-full discard (published in
 * the region), which must come: the input queue holds at most 64 armed buffers of 16
 * frames, 1024 < XP_FRAMES. */
static int xp_child_main(int memfd, int siga_fd, int irq_fd)
{
    struct zvs_qdio_guest *g = NULL;
    struct xp_child *c = calloc(1, sizeof(*c));
    struct zvs_qdio_counters ctr;
    uint32_t sent = 0;
    int rc = 0, k;

    alarm(60);
    if (!c || zvs_qdio_guest_map(memfd, siga_fd, irq_fd, &g) < 0) {
        rc = 10;
        goto out;
    }
    if (zvs_qdio_guest_init_queues(g) < 0) {
        rc = 11;
        goto out;
    }
    zvs_qdio_guest_set_pack(g, 4);
    do {
        k = xp_send(g, sent);
        if (k < 0) {
            rc = 12;
            goto out;
        }
        sent += (uint32_t)k;
        zvs_qdio_guest_reap(g);
        if (k == 0)
            usleep(1000);
        zvs_qdio_guest_counters(g, &ctr);
    } while (ctr.adapter.iq_full == 0);
    while (c->received < XP_FRAMES) {
        k = xp_send(g, sent);
        if (k < 0) {
            rc = 12;
            goto out;
        }
        sent += (uint32_t)k;
        zvs_qdio_guest_reap(g);
        zvs_qdio_guest_disarm_irq(g);
        zvs_qdio_guest_receive(g, 64, xp_rx, c);
        if (c->bad) {
            rc = 13;
            goto out;
        }
        if (!zvs_qdio_guest_arm_irq(g)) {
            struct pollfd pfd = { .fd = irq_fd, .events = POLLIN };
            if (poll(&pfd, 1, 5) > 0)
                zvs_qdio_guest_irq_ack(g);
        }
    }
    while (zvs_qdio_guest_reap(g) > 0) {
    }
    zvs_qdio_guest_counters(g, &ctr);
    if (ctr.prog.out_frames != XP_FRAMES || ctr.prog.in_frames != XP_FRAMES ||
        ctr.prog.out_errors_seen != 0 || ctr.prog.in_bad_bufs != 0 || sent != XP_FRAMES ||
        ctr.prog.in_bufs_processed != ctr.adapter.in_bufs_primed)
        rc = 14;
out:
    zvs_qdio_guest_detach(g);
    free(c);
    return rc;
}

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void test_two_processes(void **state)
{
    struct zvs_qdio *q;
    static struct zvs_frame held[64];
    static uint8_t want[10000], got[10000];
    struct zvs_tx tx[64];
    int nheld = 0, status = -1;
    uint64_t refused = 0;
    uint32_t seen = 0, echoed = 0;
    bool child_done = false;

    assert_int_equal(zvs_qdio_create(QS_8M, &q), 0);
    zvs_qdio_set_ac1(q, ZVS_QDIO_AC1_SIGA_OUTPUT | ZVS_QDIO_AC1_SIGA_INPUT);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(xp_child_main(zvs_qdio_memfd(q), zvs_qdio_siga_fd(q), zvs_qdio_irq_fd(q)));

    uint64_t deadline = now_ms() + 60000;
    while (!child_done && now_ms() < deadline) {
        struct pollfd pfd = { .fd = zvs_qdio_siga_fd(q), .events = POLLIN };
        if (poll(&pfd, 1, 5) > 0)
            zvs_qdio_siga_ack(q);
        int n = zvs_qdio_poll_output(q, held + nheld, 64 - nheld, 1);
        for (int i = nheld; i < nheld + n; i++, seen++) {
            struct zvs_vnet v = xp_vnet(seen);
            make_frame(want, xp_len(seen), seen, 0);
            assert_int_equal(held[i].len, xp_len(seen));
            assert_int_equal(frame_bytes(&held[i], got), xp_len(seen));
            assert_memory_equal(got, want, xp_len(seen));
            assert_memory_equal(&held[i].vnet, &v, sizeof(v));
        }
        nheld += n;
        for (int i = 0; i < nheld; i++)
            tx[i] = (struct zvs_tx){ .f = &held[i], .tag_op = ZVS_TAG_KEEP };
        enum zvs_drop why = ZVS_DROP__COUNT;
        int d = nheld > 0 ? zvs_qdio_deliver(q, tx, nheld, &why) : 0;
        /* frames not delivered (no input buffer) are held and offered again */
        if (d < nheld) {
            assert_int_equal(why, ZVS_DROP_NO_BUFFER);
            refused += (uint64_t)(nheld - d);
        }
        zvs_qdio_release(q, held, d);
        memmove(held, held + d, sizeof(held[0]) * (size_t)(nheld - d));
        nheld -= d;
        echoed += (uint32_t)d;
        if (waitpid(pid, &status, WNOHANG) == pid)
            child_done = true;
    }
    if (!child_done) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        fail_msg("guest process did not finish in time (sent %u, echoed %u)", seen, echoed);
    }
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(seen, XP_FRAMES);
    assert_int_equal(echoed, XP_FRAMES);
    assert_int_equal(nheld, 0);

    struct zvs_qdio_counters c;
    zvs_qdio_counters(q, &c);
    assert_int_equal(c.prog.out_frames, XP_FRAMES);
    assert_int_equal(c.adapter.out_frames, XP_FRAMES);
    assert_int_equal(c.prog.in_frames, XP_FRAMES);
    assert_int_equal(c.adapter.in_frames, XP_FRAMES);
    assert_int_equal(c.prog.out_bufs_primed, c.adapter.out_bufs_processed);
    assert_int_equal(c.adapter.in_bufs_primed, c.prog.in_bufs_processed);
    assert_int_equal(c.adapter.out_errors, 0);
    assert_int_equal(c.adapter.in_bad_bufs, 0);
    assert_true(c.prog.out_bufs_primed >= XP_FRAMES / 4);
    assert_true(c.prog.siga_w >= 1 && c.prog.siga_w <= c.prog.out_bufs_primed);
    assert_true(c.prog.siga_r >= 1);
    /* every frame the guest had no buffer for was counted as an input-queue-full discard */
    assert_int_equal(c.adapter.iq_full, refused);
    assert_true(refused > 0);
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < XP_FRAMES; i++)
        bytes += xp_len(i);
    assert_int_equal(c.adapter.out_bytes, bytes);
    assert_int_equal(c.adapter.in_bytes, bytes);
    zvs_qdio_destroy(q);
}

/* ---- Zero-copy send (tx_reserve / tx_commit / tx_flush) --------------------------------- */

/* Copy len bytes into the reserved pieces, as a readv would. */
static void iov_fill(const struct iovec *iov, int n, const uint8_t *src, uint32_t len)
{
    for (int i = 0; i < n && len > 0; i++) {
        uint32_t take = len < iov[i].iov_len ? len : (uint32_t)iov[i].iov_len;
        memcpy(iov[i].iov_base, src, take);
        src += take;
        len -= take;
    }
    assert_int_equal(len, 0);
}

/* tx_expect: the open buffer is primed before a frame it could not hold whole, never
 * when it is empty or has the room; the SIGA waits for the flush. */
static void test_tx_expect_closes_short_buffer(void **state)
{
    struct env e;
    struct iovec iov[16];
    uint8_t a[100];

    env_open(&e, QS_8M);
    make_frame(a, sizeof(a), 1, 0);
    assert_false(zvs_qdio_guest_tx_expect(e.g, 65504));     /* nothing open */
    assert_int_equal(zvs_qdio_guest_tx_reserve(e.g, iov, 16), 16);
    assert_false(zvs_qdio_guest_tx_expect(e.g, 65504));     /* open but empty: all room */
    iov_fill(iov, 16, a, sizeof(a));
    assert_int_equal(zvs_qdio_guest_tx_commit(e.g, sizeof(a), NULL), 0);
    /* one entry used: 15 left, 15 * 4096 - 32 bytes of room */
    assert_false(zvs_qdio_guest_tx_expect(e.g, 15 * 4096 - 32));
    assert_int_equal(e.outq->slsb[0], 0xA1);
    assert_true(zvs_qdio_guest_tx_expect(e.g, 15 * 4096 - 31));
    assert_int_equal(e.outq->slsb[0], 0x62);                /* primed, not yet signalled */
    assert_int_equal(ctrs(&e).prog.out_bufs_primed, 1);
    assert_int_equal(efd_read(zvs_qdio_siga_fd(e.q)), 0);
    /* the next reserve opens a fresh buffer with all its room */
    assert_int_equal(zvs_qdio_guest_tx_reserve(e.g, iov, 16), 16);
    assert_ptr_equal(iov[0].iov_base, e.data + out_set(QS_8M, 1) + 32);
    assert_int_equal(zvs_qdio_guest_tx_flush(e.g), 1);      /* the first, the empty one back */
    assert_int_equal(efd_read(zvs_qdio_siga_fd(e.q)), 1);
    env_close(&e);
}

static void test_tx_zero_copy_packing(void **state)
{
    struct env e;
    struct iovec iov[16];
    struct zvs_frame f[4];
    uint8_t a[100], b[5000], got[5000];

    env_open(&e, QS_8M);
    make_frame(a, sizeof(a), 1, 0);
    make_frame(b, sizeof(b), 2, 0);
    /* an empty buffer: its 16 pages, the first after the header room */
    assert_int_equal(zvs_qdio_guest_tx_reserve(e.g, iov, 16), 16);
    uint8_t *share = e.data + out_set(QS_8M, 0);
    assert_ptr_equal(iov[0].iov_base, share + 32);
    assert_int_equal(iov[0].iov_len, 4064);
    assert_ptr_equal(iov[15].iov_base, share + 15 * 4096);
    assert_int_equal(iov[15].iov_len, 4096);
    /* asked again without a commit: the same slot; max_iov caps the pieces */
    assert_int_equal(zvs_qdio_guest_tx_reserve(e.g, iov, 2), 2);
    assert_ptr_equal(iov[0].iov_base, share + 32);
    assert_int_equal(zvs_qdio_guest_tx_reserve(e.g, iov, 0), -EINVAL);
    assert_int_equal(zvs_qdio_guest_tx_reserve(e.g, iov, 16), 16);
    iov_fill(iov, 16, a, sizeof(a));
    struct zvs_vnet v = { .flags = ZVS_VNET_F_NEEDS_CSUM, .csum_start = 34, .csum_offset = 16 };
    assert_int_equal(zvs_qdio_guest_tx_commit(e.g, sizeof(a), &v), 0);
    /* the next slot starts at entry 1; the frame spans entries 1 and 2 */
    assert_int_equal(zvs_qdio_guest_tx_reserve(e.g, iov, 16), 15);
    assert_ptr_equal(iov[0].iov_base, share + 4096 + 32);
    iov_fill(iov, 15, b, sizeof(b));
    assert_int_equal(zvs_qdio_guest_tx_commit(e.g, sizeof(b), NULL), 0);

    /* open, not primed: the adapter sees nothing, the reaper leaves it alone */
    assert_int_equal(e.outq->slsb[0], 0xA1);
    assert_int_equal(zvs_qdio_poll_output(e.q, f, 4, 3), 0);
    assert_int_equal(zvs_qdio_guest_reap(e.g), 0);
    assert_int_equal(ctrs(&e).prog.out_frames, 2);
    assert_int_equal(ctrs(&e).prog.out_bufs_primed, 0);

    assert_int_equal(zvs_qdio_guest_tx_flush(e.g), 1);
    assert_int_equal(e.outq->slsb[0], 0x62);
    assert_int_equal(e.outq->slsb[1], 0xA1);
    const struct zvs_sbale *s = e.outq->sbal[0].e;
    assert_int_equal(s[0].flags, ZVS_SBALE_FRAG_NONE);
    assert_int_equal(s[0].length, 32 + 100);
    assert_int_equal(s[0].addr, out_set(QS_8M, 0));
    assert_int_equal(s[1].flags, ZVS_SBALE_FRAG_FIRST);
    assert_int_equal(s[1].length, 4096);
    assert_int_equal(s[1].addr, out_set(QS_8M, 0) + 4096);
    assert_int_equal(s[2].flags, ZVS_SBALE_FRAG_LAST | ZVS_SBALE_LAST_ENTRY);
    assert_int_equal(s[2].length, 5000 - 4064);
    const uint8_t want_hdr[32] = {
        0x02, 0, 0, 0x04, 0, 32, 0, 100, 0, 0, 0, 0, 0, 0, 0, 0,
        0x01, 0x00, 0, 0, 0, 0, 0, 34, 0, 16, 0, 0, 0, 0, 0, 0,
    };
    assert_memory_equal(share, want_hdr, 32);
    assert_int_equal(share[4096 + 9], 1);          /* seq_no of the second frame */
    assert_int_equal(efd_read(zvs_qdio_siga_fd(e.q)), 1);   /* AC1 wants SIGA-w */
    assert_int_equal(ctrs(&e).prog.siga_w, 1);
    assert_int_equal(ctrs(&e).prog.out_bufs_primed, 1);

    assert_int_equal(zvs_qdio_poll_output(e.q, f, 4, 3), 2);
    assert_int_equal(f[0].len, 100);
    assert_int_equal(frame_bytes(&f[0], got), 100);
    assert_memory_equal(got, a, 100);
    assert_int_equal(f[0].vnet.flags, ZVS_VNET_F_NEEDS_CSUM);
    assert_int_equal(f[0].vnet.csum_start, 34);
    assert_int_equal(f[1].len, 5000);
    assert_int_equal(f[1].nfrags, 2);
    assert_int_equal(frame_bytes(&f[1], got), 5000);
    assert_memory_equal(got, b, 5000);
    zvs_qdio_release(e.q, f, 2);
    assert_int_equal(zvs_qdio_guest_reap(e.g), 1);
    /* nothing new: flush primes nothing and signals nothing */
    assert_int_equal(zvs_qdio_guest_tx_flush(e.g), 0);
    assert_int_equal(efd_read(zvs_qdio_siga_fd(e.q)), 0);
    env_close(&e);
}

/* A frame without offload metadata (vnet NULL or all zero: every LCS frame) gets the
 * header a classify and an encode give, written as words (fhdr_put_plain): compared here
 * byte for byte with that reference, for unicast, multicast, broadcast, a VLAN tag, a
 * frame too short to classify and one that spans pages, in two buffers in a row; then the
 * adapter reads each frame back whole with its class. */
static void test_tx_commit_plain_header(void **state)
{
    static const struct { uint32_t len; uint8_t dst0; bool bcast; uint16_t vid; } cases[] = {
        { 64, 0x02, false, 0 }, { 64, 0x01, false, 0 }, { 60, 0xFF, true, 0 },
        { 1514, 0x02, false, 100 }, { 5, 0x02, false, 0 }, { 9000, 0x02, false, 0 },
    };
    struct env e;
    struct iovec iov[16];
    uint8_t fr[9000], got[9000];
    const struct zvs_vnet zero = { 0 };

    (void)state;
    env_open(&e, QS_8M);
    for (unsigned pass = 0; pass < 2; pass++) {
        for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
            uint32_t len = cases[i].len;
            make_frame(fr, len < 18 ? 18 : len, 40 + i, cases[i].vid);
            fr[0] = cases[i].dst0;
            if (cases[i].bcast)
                memset(fr, 0xFF, 6);
            int n = zvs_qdio_guest_tx_reserve(e.g, iov, 16);
            assert_true(n > 0);
            iov_fill(iov, n, fr, len);
            uint8_t *at = (uint8_t *)iov[0].iov_base - 32;
            uint16_t seq = (uint16_t)(pass * 6 + i);
            assert_int_equal(zvs_qdio_guest_tx_commit(e.g, len, pass ? &zero : NULL), 0);
            uint8_t want[32];
            want_header(want, fr, len, seq, NULL);
            assert_memory_equal(at, want, 32);
        }
        assert_int_equal(zvs_qdio_guest_tx_flush(e.g), 1);
        struct zvs_frame f[8];
        assert_int_equal(zvs_qdio_poll_output(e.q, f, 8, 3), 6);
        for (unsigned i = 0; i < 6; i++) {
            assert_int_equal(f[i].len, cases[i].len);
            assert_int_equal(frame_bytes(&f[i], got), cases[i].len);
            assert_int_equal(got[0], cases[i].bcast ? 0xFF : cases[i].dst0);
            assert_int_equal(f[i].vnet.gso_type, ZVS_VNET_GSO_NONE);
            assert_int_equal(f[i].vnet.flags, 0);
        }
        zvs_qdio_release(e.q, f, 6);
        assert_int_equal(zvs_qdio_guest_reap(e.g), 1);
    }
    env_close(&e);
}

/* tx_put: a frame of a page at most copied into the open buffer's next page with its
 * header and entry; refusals commit nothing; the pack limit primes at once; with every
 * page set outstanding it says -ENOBUFS. */
static void test_tx_put(void **state)
{
    struct env e;
    struct zvs_frame f[8];
    uint8_t a[4064], b[64], got[4064];
    struct zvs_vnet bad = { .gso_type = ZVS_VNET_GSO_TCPV4 };     /* gso_size 0 */
    struct zvs_vnet csum = { .flags = ZVS_VNET_F_NEEDS_CSUM, .csum_start = 34,
                             .csum_offset = 16 };

    (void)state;
    env_open(&e, QS_1M);
    make_frame(a, sizeof(a), 7, 0);
    make_frame(b, sizeof(b), 8, 0);
    assert_int_equal(zvs_qdio_guest_tx_put(e.g, a, 0, NULL), -EMSGSIZE);
    assert_int_equal(zvs_qdio_guest_tx_put(e.g, a, 4065, NULL), -EMSGSIZE);
    assert_int_equal(zvs_qdio_guest_tx_flush(e.g), 0);
    assert_int_equal(zvs_qdio_guest_tx_put(e.g, b, 64, &bad), -EINVAL);
    assert_int_equal(ctrs(&e).prog.out_frames, 0);
    assert_int_equal(zvs_qdio_guest_set_pack(e.g, 3), 0);
    assert_int_equal(zvs_qdio_guest_tx_put(e.g, a, 4064, NULL), 0);
    assert_int_equal(zvs_qdio_guest_tx_put(e.g, b, 64, &csum), 0);
    assert_int_equal(e.outq->slsb[0], 0xA1);                /* open: two of three */
    assert_int_equal(zvs_qdio_guest_tx_put(e.g, b, 60, NULL), 0);
    assert_int_equal(e.outq->slsb[0], 0x62);                /* the third primed it */
    const struct zvs_sbale *se = e.outq->sbal[0].e;
    uint64_t set0 = out_set(QS_1M, 0);
    assert_int_equal(se[0].addr, set0);                     /* the refused frame used none */
    assert_int_equal(se[0].length, 4096);
    assert_int_equal(se[0].flags, ZVS_SBALE_FRAG_NONE);
    assert_int_equal(se[1].addr, set0 + 4096);
    assert_int_equal(se[1].length, 32 + 64);
    assert_int_equal(se[2].flags, ZVS_SBALE_FRAG_NONE | ZVS_SBALE_LAST_ENTRY);
    /* the second frame's header carries its metadata, as tx_commit writes it */
    uint8_t want[32];
    want_header(want, b, 64, 1, &csum);
    assert_memory_equal(e.data + set0 + 4096, want, 32);
    assert_int_equal(zvs_qdio_guest_tx_flush(e.g), 1);
    assert_int_equal(zvs_qdio_poll_output(e.q, f, 8, 0), 3);
    assert_int_equal(f[0].len, 4064);
    assert_int_equal(frame_bytes(&f[0], got), 4064);
    assert_memory_equal(got, a, 4064);
    assert_int_equal(f[1].vnet.flags, ZVS_VNET_F_NEEDS_CSUM);
    assert_int_equal(f[1].vnet.csum_start, 34);
    assert_int_equal(frame_bytes(&f[2], got), 60);
    assert_memory_equal(got, b, 60);
    zvs_qdio_release(e.q, f, 3);
    assert_int_equal(zvs_qdio_guest_reap(e.g), 1);
    /* one frame a buffer: the 8 page sets of QUEUESTORAGE 1M go out, the 9th has none */
    assert_int_equal(zvs_qdio_guest_set_pack(e.g, 1), 0);
    for (int i = 0; i < 8; i++)
        assert_int_equal(zvs_qdio_guest_tx_put(e.g, b, 64, NULL), 0);
    assert_int_equal(zvs_qdio_guest_tx_put(e.g, b, 64, NULL), -ENOBUFS);
    /* a length is refused before a buffer is looked for */
    assert_int_equal(zvs_qdio_guest_tx_put(e.g, b, 0, NULL), -EMSGSIZE);
    assert_int_equal(ctrs(&e).prog.out_frames, 3 + 8);
    assert_int_equal(zvs_qdio_guest_tx_flush(e.g), 8);
    env_close(&e);
}

static void test_tx_commit_errors(void **state)
{
    struct env e;
    struct iovec iov[16];
    struct zvs_frame f[4];
    uint8_t a[64];

    env_open(&e, QS_8M);
    make_frame(a, sizeof(a), 3, 0);
    assert_int_equal(zvs_qdio_guest_tx_commit(e.g, 64, NULL), -ENOENT);
    assert_int_equal(zvs_qdio_guest_tx_reserve(e.g, iov, 16), 16);
    iov_fill(iov, 16, a, sizeof(a));
    assert_int_equal(zvs_qdio_guest_tx_commit(e.g, 0, NULL), -EMSGSIZE);
    assert_int_equal(zvs_qdio_guest_tx_commit(e.g, 65505, NULL), -EMSGSIZE);
    struct zvs_vnet bad = { .gso_type = ZVS_VNET_GSO_TCPV4 };     /* gso_size 0 */
    assert_int_equal(zvs_qdio_guest_tx_commit(e.g, 64, &bad), -EINVAL);
    struct zvs_vnet outside = { .flags = ZVS_VNET_F_NEEDS_CSUM, .csum_start = 60,
                                .csum_offset = 4 };
    assert_int_equal(zvs_qdio_guest_tx_commit(e.g, 64, &outside), -EINVAL);
    assert_int_equal(ctrs(&e).prog.out_frames, 0);
    /* an open buffer without frames goes back to the ring unused */
    assert_int_equal(zvs_qdio_guest_tx_flush(e.g), 0);
    assert_int_equal(e.outq->slsb[0], 0xA1);
    assert_int_equal(efd_read(zvs_qdio_siga_fd(e.q)), 0);
    /* a frame as large as a buffer holds takes all 16 entries and primes it at once */
    uint8_t *big = malloc(65504);
    assert_non_null(big);
    make_frame(big, 65504, 4, 0);
    assert_int_equal(zvs_qdio_guest_tx_reserve(e.g, iov, 16), 16);
    iov_fill(iov, 16, big, 65504);
    assert_int_equal(zvs_qdio_guest_tx_commit(e.g, 65504, NULL), 0);
    assert_int_equal(e.outq->slsb[0], 0x62);       /* buffer 0 again: nothing was lost */
    assert_int_equal(e.outq->sbal[0].e[0].addr, out_set(QS_8M, 0));     /* and set 0 */
    assert_int_equal(e.outq->sbal[0].e[15].flags, ZVS_SBALE_FRAG_LAST | ZVS_SBALE_LAST_ENTRY);
    assert_int_equal(e.outq->sbal[0].e[15].length, 4096);
    assert_int_equal(zvs_qdio_guest_tx_commit(e.g, 64, NULL), -ENOENT);
    assert_int_equal(zvs_qdio_poll_output(e.q, f, 4, 0), 1);
    assert_int_equal(f[0].len, 65504);
    assert_int_equal(f[0].nfrags, 16);
    zvs_qdio_release(e.q, f, 1);
    assert_int_equal(zvs_qdio_guest_tx_flush(e.g), 1);  /* primed by the commit */
    assert_int_equal(efd_read(zvs_qdio_siga_fd(e.q)), 1);
    free(big);
    env_close(&e);
}

static void test_tx_pack_limit_and_mixed_send(void **state)
{
    struct env e;
    struct iovec iov[16];
    struct zvs_frame f[8];
    uint8_t a[3][80], got[80];

    env_open(&e, QS_8M);
    zvs_qdio_set_ac1(e.q, 0);                       /* the switch polls: no SIGA-w */
    for (int i = 0; i < 3; i++)
        make_frame(a[i], sizeof(a[i]), 10u + (uint32_t)i, 0);
    assert_int_equal(zvs_qdio_guest_set_pack(e.g, 2), 0);
    for (int i = 0; i < 2; i++) {
        assert_true(zvs_qdio_guest_tx_reserve(e.g, iov, 16) > 0);
        iov_fill(iov, 1, a[i], 80);
        assert_int_equal(zvs_qdio_guest_tx_commit(e.g, 80, NULL), 0);
    }
    assert_int_equal(e.outq->slsb[0], 0x62);       /* two frames: primed by the commit */
    /* an open buffer with one frame, then a plain send: the open buffer goes first */
    assert_true(zvs_qdio_guest_tx_reserve(e.g, iov, 16) > 0);
    iov_fill(iov, 1, a[2], 80);
    assert_int_equal(zvs_qdio_guest_tx_commit(e.g, 80, NULL), 0);
    assert_int_equal(e.outq->slsb[1], 0xA1);
    struct zvs_qdio_pkt p = pkt_of(a[0], 80);
    assert_int_equal(zvs_qdio_guest_send(e.g, &p, 1), 1);
    assert_int_equal(e.outq->slsb[1], 0x62);
    assert_int_equal(e.outq->slsb[2], 0x62);
    assert_int_equal(zvs_qdio_poll_output(e.q, f, 8, 0), 4);
    const uint8_t *order[4] = { a[0], a[1], a[2], a[0] };
    for (int i = 0; i < 4; i++) {
        assert_int_equal(frame_bytes(&f[i], got), 80);
        assert_memory_equal(got, order[i], 80);
    }
    zvs_qdio_release(e.q, f, 4);
    assert_int_equal(zvs_qdio_guest_tx_flush(e.g), 0);   /* send already covered them */
    assert_int_equal(efd_read(zvs_qdio_siga_fd(e.q)), 0);
    assert_int_equal(ctrs(&e).prog.out_frames, 4);
    assert_int_equal(ctrs(&e).prog.out_bufs_primed, 3);
    /* a smaller pack set while a buffer is open: the next reserve primes it first */
    assert_true(zvs_qdio_guest_tx_reserve(e.g, iov, 16) > 0);
    iov_fill(iov, 1, a[1], 80);
    assert_int_equal(zvs_qdio_guest_tx_commit(e.g, 80, NULL), 0);
    assert_int_equal(e.outq->slsb[3], 0xA1);
    assert_int_equal(zvs_qdio_guest_set_pack(e.g, 1), 0);
    assert_int_equal(zvs_qdio_guest_tx_reserve(e.g, iov, 16), 16);
    assert_int_equal(e.outq->slsb[3], 0x62);
    assert_ptr_equal(iov[0].iov_base, e.data + out_set(QS_8M, 4) + 32);
    assert_int_equal(zvs_qdio_guest_tx_flush(e.g), 1);
    assert_int_equal(e.outq->slsb[4], 0xA1);
    env_close(&e);
}

static void test_tx_reserve_queue_full(void **state)
{
    struct env e;
    struct iovec iov[16];
    struct zvs_frame f[16];
    uint8_t a[64];

    env_open(&e, QS_8M);
    make_frame(a, sizeof(a), 5, 0);
    assert_int_equal(zvs_qdio_guest_set_pack(e.g, 1), 0);
    for (int b = 0; b < 64; b++) {
        assert_int_equal(zvs_qdio_guest_tx_reserve(e.g, iov, 16), 16);
        assert_ptr_equal(iov[0].iov_base, e.data + out_set(QS_8M, (uint32_t)b) + 32);
        iov_fill(iov, 1, a, sizeof(a));
        assert_int_equal(zvs_qdio_guest_tx_commit(e.g, 64, NULL), 0);
    }
    /* 64 outstanding at 8M: no page set left */
    assert_int_equal(zvs_qdio_guest_tx_reserve(e.g, iov, 16), -ENOBUFS);
    assert_int_equal(zvs_qdio_guest_tx_flush(e.g), 64);
    assert_int_equal(e.outq->slsb[64], 0xA1);
    assert_int_equal(zvs_qdio_poll_output(e.q, f, 1, 0), 1);
    zvs_qdio_release(e.q, f, 1);
    /* buffer 0 is back: reserve reaps it and opens buffer 64 with its set 0 */
    assert_int_equal(zvs_qdio_guest_tx_reserve(e.g, iov, 16), 16);
    assert_ptr_equal(iov[0].iov_base, e.data + out_set(QS_8M, 0) + 32);
    /* unused: given back, ring and set rotation stepped back */
    assert_int_equal(zvs_qdio_guest_tx_flush(e.g), 0);
    assert_int_equal(e.outq->slsb[64], 0xA1);
    assert_int_equal(zvs_qdio_guest_tx_reserve(e.g, iov, 16), 16);
    assert_ptr_equal(iov[0].iov_base, e.data + out_set(QS_8M, 0) + 32);
    assert_int_equal(zvs_qdio_guest_tx_flush(e.g), 0);
    int total = 0, n;
    while ((n = zvs_qdio_poll_output(e.q, f, 16, 0)) > 0) {
        total += n;
        zvs_qdio_release(e.q, f, n);
    }
    assert_int_equal(total, 63);
    /* the reaper collects all 63, stepping over nothing still open */
    assert_int_equal(zvs_qdio_guest_reap(e.g), 63);
    assert_int_equal(zvs_qdio_guest_reap(e.g), 0);
    env_close(&e);
}

/* ---- Packing mode and the 16-entry buffer rules ------------------------------------ */

static void test_fhdr_check(void **state)
{
    struct zvs_qdio_fhdr h = { .id = 0x02, .hdr_length = 32, .pkt_length = 100 };
    uint8_t raw[32];
    struct zvs_qdio_fhdr d;

    assert_int_equal(zvs_qdio_fhdr_check(&h), 0);
    h.hdr_length = 31;
    assert_int_equal(zvs_qdio_fhdr_check(&h), -EINVAL);
    h.hdr_length = 32;
    h.pkt_length = 0;
    assert_int_equal(zvs_qdio_fhdr_check(&h), -EINVAL);
    h.pkt_length = 100;
    h.id = 0x06;                                /* TSO id without a GSO type */
    assert_int_equal(zvs_qdio_fhdr_check(&h), -EINVAL);
    h.vnet = (struct zvs_vnet){ .gso_type = ZVS_VNET_GSO_TCPV4, .gso_size = 1448 };
    assert_int_equal(zvs_qdio_fhdr_check(&h), 0);
    h.vnet.gso_size = 0;
    assert_int_equal(zvs_qdio_fhdr_check(&h), -EINVAL);
    h = (struct zvs_qdio_fhdr){ .id = 0x02, .hdr_length = 32, .pkt_length = 100 };
    h.vnet.flags = 0x04;                        /* unknown offload flag */
    assert_int_equal(zvs_qdio_fhdr_check(&h), -EINVAL);
    h.vnet = (struct zvs_vnet){ .flags = ZVS_VNET_F_NEEDS_CSUM, .csum_start = 90,
                                .csum_offset = 8 };
    assert_int_equal(zvs_qdio_fhdr_check(&h), 0);   /* field at 98..99: inside */
    h.vnet.csum_offset = 9;
    assert_int_equal(zvs_qdio_fhdr_check(&h), -EINVAL);
    /* decode runs the same checks */
    zvs_qdio_fhdr_encode(&h, raw);
    assert_int_equal(zvs_qdio_fhdr_decode(raw, &d), -EINVAL);
    h.vnet.csum_offset = 8;
    zvs_qdio_fhdr_encode(&h, raw);
    assert_int_equal(zvs_qdio_fhdr_decode(raw, &d), 0);
    assert_memory_equal(&d.vnet, &h.vnet, sizeof(h.vnet));
}

static void test_packing_mode_1m(void **state)
{
    struct env e;
    static uint8_t frames[20][64];
    struct zvs_qdio_pkt p[20];
    struct zvs_frame f[32];
    uint8_t hdr[32], got[64];
    const uint8_t bcast[6] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF };
    const uint8_t mcast[6] = { 0x01, 0x00, 0x5E, 0x00, 0x00, 0x01 };
    const uint8_t almost[6] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE };

    env_open(&e, QS_1M);
    assert_int_equal(zvs_qdio_guest_set_pack(e.g, 16), 0);
    for (int i = 0; i < 20; i++) {
        make_frame(frames[i], 64, (uint32_t)i, i % 5 == 4 ? 100 : 0);
        p[i] = pkt_of(frames[i], 64);
    }
    memcpy(frames[1], bcast, 6);
    memcpy(frames[2], mcast, 6);
    memcpy(frames[3], almost, 6);               /* group bit set, not broadcast */
    /* 20 frames of 64 bytes: 16 side by side in buffer 0's one page, 4 in buffer 1 */
    assert_int_equal(zvs_qdio_guest_send(e.g, p, 20), 20);
    assert_int_equal(e.outq->slsb[0], 0x62);
    assert_int_equal(e.outq->slsb[1], 0x62);
    assert_int_equal(e.outq->slsb[2], 0xA1);
    for (uint32_t k = 0; k < 20; k++) {
        uint32_t b = k / 16, i = k % 16;
        const struct zvs_sbale *se = &e.outq->sbal[b].e[i];
        uint64_t share = out_set(QS_1M, b);
        assert_int_equal(se->addr, share + i * 96u);
        assert_int_equal(se->length, 96);
        assert_int_equal(se->flags, (b == 0 ? i == 15 : i == 3) ? 0x40000000u : 0);
        want_header(hdr, frames[k], 64, (uint16_t)k, NULL);
        assert_memory_equal(e.data + se->addr, hdr, 32);
        assert_memory_equal(e.data + se->addr + 32, frames[k], 64);
    }
    assert_int_equal(e.data[out_set(QS_1M, 0) + 96 + 3], ZVS_QETH_L2_FLAG_BCAST);
    assert_int_equal(e.data[out_set(QS_1M, 0) + 2 * 96 + 3], ZVS_QETH_L2_FLAG_MCAST);
    assert_int_equal(e.data[out_set(QS_1M, 0) + 3 * 96 + 3], ZVS_QETH_L2_FLAG_MCAST);
    assert_int_equal(e.data[out_set(QS_1M, 0) + 4 * 96 + 3],
                     ZVS_QETH_L2_FLAG_UCAST | ZVS_QETH_L2_FLAG_VLAN);
    assert_int_equal(zvs_be16(e.data + out_set(QS_1M, 0) + 4 * 96 + 10), 100);
    assert_int_equal(ctrs(&e).prog.out_bufs_primed, 2);
    assert_int_equal(ctrs(&e).prog.out_frames, 20);

    /* the adapter hands all 20 out in one call, descriptors straight into f[] */
    assert_int_equal(zvs_qdio_poll_output(e.q, f, 32, 4), 20);
    for (int k = 0; k < 20; k++) {
        assert_int_equal(f[k].len, 64);
        assert_int_equal(f[k].nfrags, 0);
        assert_null(f[k].frags);
        assert_int_equal(f[k].in_port, 4);
        assert_int_equal(f[k].flags, 0);
        assert_int_equal(f[k].vid, 0);
        assert_int_equal(f[k].cookie, (uint64_t)(k / 16) << 8 | (uint64_t)(k % 16));
        assert_int_equal(frame_bytes(&f[k], got), 64);
        assert_memory_equal(got, frames[k], 64);
    }
    struct zvs_qdio_counters c = ctrs(&e);
    assert_int_equal(c.adapter.out_frames, 20);
    assert_int_equal(c.adapter.out_bytes, 20 * 64);
    zvs_qdio_release(e.q, f, 16);
    assert_int_equal(e.outq->slsb[0], 0xA1);
    assert_int_equal(e.outq->slsb[1], 0x62);
    zvs_qdio_release(e.q, f + 16, 4);
    assert_int_equal(e.outq->slsb[1], 0xA1);
    assert_int_equal(ctrs(&e).adapter.out_bufs_processed, 2);
    assert_int_equal(zvs_qdio_guest_reap(e.g), 2);

    /* 1000-byte frames: three fit in the first 4 KB page (1032 bytes apart), the fourth
     * starts the next page of the same buffer; a frame of a whole page follows */
    static uint8_t big[5][4064];
    for (int i = 0; i < 5; i++) {
        uint32_t len = i < 4 ? 1000 : 4064;
        make_frame(big[i], len, 50u + (uint32_t)i, 0);
        p[i] = pkt_of(big[i], len);
    }
    assert_int_equal(zvs_qdio_guest_send(e.g, p, 5), 5);
    const struct zvs_sbal *s2 = &e.outq->sbal[2];
    assert_int_equal(s2->e[0].addr, out_set(QS_1M, 2));
    assert_int_equal(s2->e[1].addr, out_set(QS_1M, 2) + 1032);
    assert_int_equal(s2->e[2].addr, out_set(QS_1M, 2) + 2064);
    assert_int_equal(s2->e[3].addr, out_set(QS_1M, 2) + 4096);
    assert_int_equal(s2->e[3].flags, 0);
    assert_int_equal(s2->e[4].addr, out_set(QS_1M, 2) + 8192);
    assert_int_equal(s2->e[4].length, 4096);
    assert_int_equal(s2->e[4].flags, 0x40000000u);
    assert_int_equal(e.outq->slsb[3], 0xA1);
    /* the same five once more, 3 at most per buffer: buffers 3 (3 frames) and 4 */
    assert_int_equal(zvs_qdio_guest_set_pack(e.g, 3), 0);
    assert_int_equal(zvs_qdio_guest_send(e.g, p, 5), 5);
    assert_int_equal(e.outq->sbal[3].e[2].flags, 0x40000000u);
    assert_int_equal(e.outq->sbal[4].e[0].addr, out_set(QS_1M, 4));
    assert_int_equal(e.outq->sbal[4].e[1].addr, out_set(QS_1M, 4) + 4096);
    assert_int_equal(e.outq->sbal[4].e[1].flags, 0x40000000u);
    assert_int_equal(zvs_qdio_poll_output(e.q, f, 32, 4), 10);
    for (int k = 0; k < 10; k++)
        assert_int_equal(f[k].cookie >> 8, k < 5 ? 2 : k < 8 ? 3 : 4);
    assert_int_equal(f[4].len, 4064);
    assert_memory_equal(f[4].data, big[4], 4064);
    assert_int_equal(f[3].len, 1000);
    assert_memory_equal(f[3].data, big[3], 1000);
    assert_int_equal(f[9].len, 4064);
    zvs_qdio_release(e.q, f, 10);
    assert_int_equal(ctrs(&e).adapter.out_errors, 0);
    env_close(&e);
}

/* The guest writes plain headers directly; they must be the bytes classify + encode give,
 * for frames too short to classify, too short for their tag, and just long enough. */
static void test_plain_header_short_frames(void **state)
{
    struct env e;
    static const uint32_t lens[] = { 1, 5, 6, 13, 14, 17, 18, 19 };
    enum { N = sizeof(lens) / sizeof(lens[0]) };
    uint8_t frames[N][32], hdr[32];
    struct zvs_qdio_pkt p[N];

    env_open(&e, QS_1M);
    assert_int_equal(zvs_qdio_guest_set_pack(e.g, 16), 0);
    for (uint32_t i = 0; i < N; i++) {
        memset(frames[i], 0xFF, sizeof(frames[i]));   /* broadcast, and 0xFFFF at 12 */
        if (i % 2) {
            frames[i][12] = 0x81;                       /* 802.1Q TPID, VID 0x123 */
            frames[i][13] = 0x00;
            frames[i][14] = 0x21;
            frames[i][15] = 0x23;
        }
        p[i] = pkt_of(frames[i], lens[i]);
    }
    frames[2][5] = 0xFE;                                /* group address, not broadcast */
    frames[6][0] = 0x02;                                /* unicast, tagged, 18 bytes */
    frames[6][12] = 0x81;
    frames[6][13] = 0x00;
    assert_int_equal(zvs_qdio_guest_send(e.g, p, N), N);
    for (uint32_t i = 0; i < N; i++) {
        const struct zvs_sbale *se = &e.outq->sbal[0].e[i];
        assert_int_equal(se->length, 32 + lens[i]);
        want_header(hdr, frames[i], lens[i], (uint16_t)i, NULL);
        assert_memory_equal(e.data + se->addr, hdr, 32);
        assert_int_equal(se->addr % 8, 0);
    }
    /* spot checks of what classify decided */
    assert_int_equal(e.data[e.outq->sbal[0].e[0].addr + 3], 0);            /* 1 byte */
    assert_int_equal(e.data[e.outq->sbal[0].e[2].addr + 3], ZVS_QETH_L2_FLAG_MCAST);
    assert_int_equal(e.data[e.outq->sbal[0].e[5].addr + 3], ZVS_QETH_L2_FLAG_BCAST);
    assert_int_equal(e.data[e.outq->sbal[0].e[6].addr + 3],
                     ZVS_QETH_L2_FLAG_UCAST | ZVS_QETH_L2_FLAG_VLAN);
    assert_int_equal(zvs_be16(e.data + e.outq->sbal[0].e[6].addr + 10), 0xFFFF);
    assert_int_equal(e.data[e.outq->sbal[0].e[7].addr + 3],
                     ZVS_QETH_L2_FLAG_BCAST | ZVS_QETH_L2_FLAG_VLAN);
    assert_int_equal(zvs_be16(e.data + e.outq->sbal[0].e[7].addr + 10), 0x2123);
    env_close(&e);
}

/* send packs at every pack value (it only limits the frames per buffer): small frames
 * behind each other, 8-byte aligned; a frame larger than the rest of its page starts at
 * the next page and spans pages first/middle/last. */
static void test_packing_around_pages_8m(void **state)
{
    struct env e;
    static uint8_t a[64], b[5000], c[64], got[5000];
    struct zvs_qdio_pkt p[3];
    struct zvs_frame f[4];

    env_open(&e, QS_8M);
    assert_int_equal(zvs_qdio_guest_set_pack(e.g, 8), 0);
    make_frame(a, 64, 1, 0);
    make_frame(b, 5000, 2, 0);
    make_frame(c, 64, 3, 0);
    p[0] = pkt_of(a, 64);
    p[1] = pkt_of(b, 5000);
    p[2] = pkt_of(c, 64);
    assert_int_equal(zvs_qdio_guest_send(e.g, p, 3), 3);
    const struct zvs_sbale *s = e.outq->sbal[0].e;
    uint64_t share = out_set(QS_8M, 0);
    assert_int_equal(s[0].addr, share);
    assert_int_equal(s[1].addr, share + 4096);
    assert_int_equal(s[2].addr, share + 8192);
    assert_int_equal(s[3].addr, share + 4096 + 5032);
    assert_int_equal(s[3].flags, 0x40000000u);

    /* the default pack (16): the same layout, in buffer 1 with set 1 */
    assert_int_equal(zvs_qdio_guest_set_pack(e.g, 16), 0);
    assert_int_equal(zvs_qdio_guest_send(e.g, p, 3), 3);
    s = e.outq->sbal[1].e;
    share = out_set(QS_8M, 1);
    assert_int_equal(s[0].addr, share);
    assert_int_equal(s[0].length, 96);
    assert_int_equal(s[0].flags, ZVS_SBALE_FRAG_NONE);
    assert_int_equal(s[1].addr, share + 4096);
    assert_int_equal(s[1].length, 4096);
    assert_int_equal(s[1].flags, ZVS_SBALE_FRAG_FIRST);
    assert_int_equal(s[2].addr, share + 8192);
    assert_int_equal(s[2].length, 5032 - 4096);
    assert_int_equal(s[2].flags, ZVS_SBALE_FRAG_LAST);
    assert_int_equal(s[3].addr, share + 4096 + 5032);     /* 9128: 8-byte aligned */
    assert_int_equal(s[3].length, 96);
    assert_int_equal(s[3].flags, ZVS_SBALE_FRAG_NONE | ZVS_SBALE_LAST_ENTRY);
    assert_int_equal(zvs_qdio_poll_output(e.q, f, 3, 0), 3);    /* buffer 0 */
    zvs_qdio_release(e.q, f, 3);
    assert_int_equal(zvs_qdio_poll_output(e.q, f, 4, 0), 3);    /* buffer 1: staged */
    assert_int_equal(f[1].nfrags, 2);
    assert_int_equal(frame_bytes(&f[1], got), 5000);
    assert_memory_equal(got, b, 5000);
    assert_int_equal(frame_bytes(&f[2], got), 64);
    assert_memory_equal(got, c, 64);
    zvs_qdio_release(e.q, f, 3);
    assert_int_equal(ctrs(&e).adapter.out_bufs_processed, 2);
    assert_int_equal(ctrs(&e).adapter.out_bytes, 2 * (64 + 5000 + 64));
    env_close(&e);
}

/* The adapter checks the buffer rules, not the library's page sets: the entries of a
 * buffer may hold 64 KB together (16 entries of 4 KB, here all on one page), may point
 * anywhere in the data area (into the input half too), and up to 16 are read at 1M as at
 * 8M. The 64 KB budget itself is the parser's (ERR_SIZE at the entry that passes it): with
 * a smaller budget three entries of 2 KB pass 4 KB. */
static void test_buffer_byte_budget_1m(void **state)
{
    struct env e;
    struct zvs_frame f[16];
    static uint8_t frame[4064];
    const uint32_t LE = 0x40000000u;

    env_open(&e, QS_1M);
    make_frame(frame, sizeof(frame), 8, 0);
    uint64_t off = out_set(QS_1M, 0);
    struct zvs_qdio_fhdr h = { .id = 0x02, .hdr_length = 32, .pkt_length = 2016 };
    zvs_qdio_fhdr_encode(&h, e.data + off);
    memcpy(e.data + off + 32, frame, 2016);
    /* two entries of 2048: both frames on the same bytes */
    const struct zvs_sbale two[] = { { 0, 2048, off }, { LE, 2048, off } };
    memset(&e.outq->sbal[0], 0, sizeof(e.outq->sbal[0]));
    e.outq->sbal[0].e[0] = two[0];
    e.outq->sbal[0].e[1] = two[1];
    zvs_slsb_set(&e.outq->slsb[0], 0x62);
    assert_int_equal(zvs_qdio_poll_output(e.q, f, 16, 0), 2);
    assert_int_equal(f[1].len, 2016);
    assert_memory_equal(f[1].data, frame, 2016);
    zvs_qdio_release(e.q, f, 2);
    assert_int_equal(e.outq->slsb[0], 0xA1);

    /* 16 entries of 4096: exactly 64 KB, 16 frames of 4064 bytes */
    h.pkt_length = 4064;
    zvs_qdio_fhdr_encode(&h, e.data + off);
    memcpy(e.data + off + 32, frame, 4064);
    memset(&e.outq->sbal[1], 0, sizeof(e.outq->sbal[1]));
    for (int k = 0; k < 16; k++)
        e.outq->sbal[1].e[k] = (struct zvs_sbale){ k == 15 ? LE : 0, 4096, off };
    zvs_slsb_set(&e.outq->slsb[1], 0x62);
    assert_int_equal(zvs_qdio_poll_output(e.q, f, 16, 0), 16);
    assert_int_equal(f[15].cookie, 1u << 8 | 15u);
    assert_int_equal(f[15].len, 4064);
    assert_memory_equal(f[15].data, frame, 4064);
    zvs_qdio_release(e.q, f, 16);
    assert_int_equal(e.outq->slsb[1], 0xA1);

    /* the parser's budget: three entries of 2048 against 4 KB */
    struct zvs_qdio_geom geo = { .data = e.data, .data_size = QS_1M, .entry_size = 4096,
                                 .buf_entries = 1, .buf_bytes = 4096 };
    struct zvs_sbal three = { .e = { { 0, 2048, off }, { 0, 2048, off }, { LE, 2048, off } } };
    struct iovec iov[16];
    struct zvs_qdio_parsed fr[16];
    uint16_t sbalf = 0;
    h.pkt_length = 2016;
    zvs_qdio_fhdr_encode(&h, e.data + off);
    assert_int_equal(zvs_qdio_sbal_parse(&geo, &three, iov, fr, &sbalf), -EPROTO);
    assert_int_equal(sbalf, ZVS_QDIO_SBALF(2, ZVS_QDIO_ERR_SIZE));
    geo.buf_bytes = 6144;
    assert_int_equal(zvs_qdio_sbal_parse(&geo, &three, iov, fr, &sbalf), 3);

    /* a frame in the input half of the data area (input set 7): taken all the same */
    uint64_t in_off = 7u * 65536u;
    h.pkt_length = 100;
    zvs_qdio_fhdr_encode(&h, e.data + in_off);
    memcpy(e.data + in_off + 32, frame, 100);
    /* 16 small frames in one buffer at 1M */
    memset(&e.outq->sbal[2], 0, sizeof(e.outq->sbal[2]));
    for (int k = 0; k < 16; k++)
        e.outq->sbal[2].e[k] = (struct zvs_sbale){ k == 15 ? LE : 0, 132, in_off };
    zvs_slsb_set(&e.outq->slsb[2], 0x62);
    assert_int_equal(zvs_qdio_poll_output(e.q, f, 16, 0), 16);
    assert_int_equal(f[15].cookie, 2u << 8 | 15u);
    assert_ptr_equal(f[15].data, e.data + in_off + 32);
    zvs_qdio_release(e.q, f, 16);
    assert_int_equal(e.outq->slsb[2], 0xA1);
    struct zvs_qdio_counters c = ctrs(&e);
    assert_int_equal(c.adapter.out_frames, 34);
    assert_int_equal(c.adapter.out_bytes, 2 * 2016 + 16 * 4064 + 16 * 100);
    assert_int_equal(c.adapter.out_errors, 0);
    env_close(&e);
}

/* A caller with room for fewer frames than a buffer holds gets them over several polls,
 * in order, with exact counters; a buffer's frames then go straight into a roomy array. */
static void test_poll_staged_then_direct(void **state)
{
    struct env e;
    static uint8_t frames[32][64];
    struct zvs_qdio_pkt p[32];
    struct zvs_frame f[40];
    uint8_t got[64];

    env_open(&e, QS_1M);
    assert_int_equal(zvs_qdio_guest_set_pack(e.g, 16), 0);
    for (int i = 0; i < 32; i++) {
        make_frame(frames[i], 64, 100u + (uint32_t)i, 0);
        p[i] = pkt_of(frames[i], 64);
    }
    assert_int_equal(zvs_qdio_guest_send(e.g, p, 32), 32);
    int n = 0;
    n += zvs_qdio_poll_output(e.q, f + n, 5, 0);
    assert_int_equal(n, 5);
    assert_int_equal(ctrs(&e).adapter.out_frames, 5);
    assert_int_equal(ctrs(&e).adapter.out_bytes, 5 * 64);
    n += zvs_qdio_poll_output(e.q, f + n, 5, 0);
    n += zvs_qdio_poll_output(e.q, f + n, 7, 0);    /* 6 left of buffer 0, then 1 staged */
    assert_int_equal(n, 17);
    n += zvs_qdio_poll_output(e.q, f + n, 23, 0);   /* the other 15 */
    assert_int_equal(n, 32);
    assert_int_equal(zvs_qdio_poll_output(e.q, f + n, 8, 0), 0);
    for (int k = 0; k < 32; k++) {
        assert_int_equal(f[k].cookie, (uint64_t)(k / 16) << 8 | (uint64_t)(k % 16));
        assert_int_equal(frame_bytes(&f[k], got), 64);
        assert_memory_equal(got, frames[k], 64);
    }
    assert_int_equal(ctrs(&e).adapter.out_bytes, 32 * 64);
    zvs_qdio_release(e.q, f, 32);
    assert_int_equal(zvs_qdio_guest_reap(e.g), 2);
    assert_int_equal(zvs_qdio_guest_send(e.g, p, 32), 32);
    assert_int_equal(zvs_qdio_poll_output(e.q, f, 40, 0), 32);
    assert_int_equal(f[31].cookie, 3u << 8 | 15u);
    zvs_qdio_release(e.q, f, 32);
    assert_int_equal(ctrs(&e).adapter.out_bufs_processed, 4);
    env_close(&e);
}

/* QUEUESTORAGE 3M: 24 page sets per queue, which does not divide the 128 buffers. Over
 * ten rounds (240 buffers: the rings wrap) the sets rotate k mod 24 with the k-th buffer
 * of each queue, never two of the buffers the adapter may touch share one, and exactly 24
 * input buffers stay armed. */
static void test_page_sets_wrap_3m(void **state)
{
    struct env e;
    uint8_t frame[100];
    struct zvs_frame fr[16];
    struct zvs_frame in = { .data = frame, .len = 100 };
    struct zvs_tx tx = { .f = &in, .tag_op = ZVS_TAG_KEEP };
    enum zvs_drop why;
    uint32_t k_out = 0, k_in = 0;

    env_open(&e, QS_3M);
    assert_int_equal(zvs_qdio_guest_sets(e.g), 24);
    make_frame(frame, 100, 6, 0);
    struct zvs_qdio_pkt p = pkt_of(frame, 100);
    struct rx_log *log = calloc(1, sizeof(*log));
    assert_non_null(log);
    for (int round = 0; round < 10; round++) {
        bool used[24] = { false };
        for (uint32_t i = 0; i < 24; i++, k_out++) {
            uint32_t b = k_out % ZVS_QDIO_NBUFS;
            assert_int_equal(zvs_qdio_guest_send(e.g, &p, 1), 1);
            uint64_t addr = e.outq->sbal[b].e[0].addr;
            assert_int_equal(addr, out_set(QS_3M, k_out % 24));
            assert_false(used[k_out % 24]);
            used[k_out % 24] = true;
        }
        assert_int_equal(zvs_qdio_guest_send(e.g, &p, 1), -ENOBUFS);
        int n, total = 0;
        while ((n = zvs_qdio_poll_output(e.q, fr, 16, 0)) > 0) {
            for (int i = 0; i < n; i++)
                assert_memory_equal(fr[i].data, frame, 100);
            total += n;
            zvs_qdio_release(e.q, fr, n);
        }
        assert_int_equal(total, 24);

        bool in_used[24] = { false };
        for (uint32_t i = 0; i < 24; i++, k_in++) {
            uint32_t b = k_in % ZVS_QDIO_NBUFS;
            why = ZVS_DROP__COUNT;
            assert_int_equal(zvs_qdio_deliver(e.q, &tx, 1, &why), 1);
            assert_int_equal(e.inq->slsb[b], 0x82);
            uint64_t addr = e.inq->sbal[b].e[0].addr;
            assert_int_equal(addr, (uint64_t)(k_in % 24) * 65536u);
            assert_false(in_used[k_in % 24]);
            in_used[k_in % 24] = true;
        }
        why = ZVS_DROP__COUNT;
        assert_int_equal(zvs_qdio_deliver(e.q, &tx, 1, &why), 0);
        assert_int_equal(why, ZVS_DROP_NO_BUFFER);
        log->n = 0;
        assert_int_equal(zvs_qdio_guest_receive(e.g, 1000, rx_cb, log), 24);
        assert_memory_equal(log->bytes[3], frame, 100);
        uint32_t armed = 0;
        for (uint32_t b = 0; b < ZVS_QDIO_NBUFS; b++) {
            uint8_t st = e.inq->slsb[b];
            assert_true(st == 0x41 || st == 0x80);
            if (st == 0x41) {
                /* the window in ring order from the next buffer the guest processes */
                assert_true((b + ZVS_QDIO_NBUFS - k_in % ZVS_QDIO_NBUFS) % ZVS_QDIO_NBUFS < 24);
                assert_true(e.inq->sbal[b].e[15].addr + 4096 <= QS_3M / 2);
                armed++;
            }
        }
        assert_int_equal(armed, 24);
    }
    struct zvs_qdio_counters c = ctrs(&e);
    assert_int_equal(c.adapter.out_bufs_processed, 240);
    assert_int_equal(c.adapter.in_bufs_primed, 240);
    assert_int_equal(c.adapter.iq_full, 10);
    assert_int_equal(c.adapter.out_errors, 0);
    assert_int_equal(c.adapter.in_bad_bufs, 0);
    assert_int_equal(zvs_qdio_guest_reap(e.g), 24);
    free(log);
    env_close(&e);
}

/* A guest detaches and another attaches: without a reset the new program cannot
 * establish the queues (the adapter still owns the empty input buffers); after
 * zvs_qdio_reset it can, and frames flow again. Counters survive: they are the NIC's. */
static void test_reset_lets_a_new_program_attach(void **state)
{
    struct env e;
    uint8_t b[128], out[128];
    struct zvs_frame f[4];

    env_open(&e, QS_1M);
    make_frame(b, 100, 1, 0);
    struct zvs_qdio_pkt p = pkt_of(b, 100);
    assert_int_equal(zvs_qdio_guest_send(e.g, &p, 1), 1);
    assert_int_equal(zvs_qdio_poll_output(e.q, f, 4, 0), 1);
    /* While the switch holds a frame the queues cannot be reset. */
    assert_int_equal(zvs_qdio_reset(e.q), -EBUSY);
    zvs_qdio_release(e.q, f, 1);
    zvs_qdio_guest_detach(e.g);

    void *r = zvs_qdio_region(e.q);
    struct zvs_qdio_guest *g2;
    assert_int_equal(zvs_qdio_guest_attach(r, zvs_qdio_size(e.q), zvs_qdio_siga_fd(e.q),
                                           zvs_qdio_irq_fd(e.q), &g2), 0);
    assert_int_equal(zvs_qdio_guest_init_queues(g2), -EBUSY);
    assert_int_equal(zvs_qdio_reset(e.q), 0);
    for (uint32_t i = 0; i < ZVS_QDIO_NBUFS; i++) {
        assert_int_equal(zvs_slsb_get(&e.inq->slsb[i]), ZVS_SLSB_P_INPUT_NOT_INIT);
        assert_int_equal(zvs_slsb_get(&e.outq->slsb[i]), ZVS_SLSB_P_OUTPUT_NOT_INIT);
    }
    assert_int_equal(efd_read(zvs_qdio_siga_fd(e.q)), 0);   /* stale signals drained */
    assert_int_equal(zvs_qdio_guest_init_queues(g2), 0);
    make_frame(b, 80, 2, 0);
    p = pkt_of(b, 80);
    assert_int_equal(zvs_qdio_guest_send(g2, &p, 1), 1);
    assert_int_equal(zvs_qdio_poll_output(e.q, f, 4, 0), 1);
    assert_int_equal(frame_bytes(&f[0], out), 80);
    assert_memory_equal(out, b, 80);
    zvs_qdio_release(e.q, f, 1);
    struct zvs_qdio_counters c = ctrs(&e);
    assert_int_equal(c.adapter.out_frames, 2);              /* both programs' frames */
    zvs_qdio_guest_detach(g2);
    zvs_qdio_destroy(e.q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_queuestorage_bounds),
        cmocka_unit_test(test_attach_checks_region),
        cmocka_unit_test(test_init_states_and_entries),
        cmocka_unit_test(test_output_roundtrip),
        cmocka_unit_test(test_output_packing),
        cmocka_unit_test(test_jumbo_three_entries_8m),
        cmocka_unit_test(test_deliver_plain_header),
        cmocka_unit_test(test_frame_limits_1m),
        cmocka_unit_test(test_forged_sbales),
        cmocka_unit_test(test_guest_reaps_refused_buffer),
        cmocka_unit_test(test_gso_superframe_crosses),
        cmocka_unit_test(test_input_roundtrip_and_states),
        cmocka_unit_test(test_input_packing_fills_buffers),
        cmocka_unit_test(test_input_queue_full),
        cmocka_unit_test(test_bad_input_entries_refused),
        cmocka_unit_test(test_input_take_exact_at_the_bounds),
        cmocka_unit_test(test_input_entries_rewritten_after_take),
        cmocka_unit_test(test_prefetch_changes_nothing),
        cmocka_unit_test(test_irq_arm_disarm),
        cmocka_unit_test(test_siga_by_ac1),
        cmocka_unit_test(test_output_queue_full),
        cmocka_unit_test(test_two_processes),
        cmocka_unit_test(test_tx_zero_copy_packing),
        cmocka_unit_test(test_tx_expect_closes_short_buffer),
        cmocka_unit_test(test_tx_commit_plain_header),
        cmocka_unit_test(test_tx_put),
        cmocka_unit_test(test_tx_commit_errors),
        cmocka_unit_test(test_tx_pack_limit_and_mixed_send),
        cmocka_unit_test(test_tx_reserve_queue_full),
        cmocka_unit_test(test_fhdr_check),
        cmocka_unit_test(test_packing_mode_1m),
        cmocka_unit_test(test_plain_header_short_frames),
        cmocka_unit_test(test_packing_around_pages_8m),
        cmocka_unit_test(test_buffer_byte_budget_1m),
        cmocka_unit_test(test_poll_staged_then_direct),
        cmocka_unit_test(test_page_sets_wrap_3m),
        cmocka_unit_test(test_reset_lets_a_new_program_attach),
    };
    return cmocka_run_group_tests_name("qdio", tests, NULL, NULL);
}
