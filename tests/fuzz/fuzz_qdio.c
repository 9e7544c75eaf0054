/* libFuzzer target for the adapter side of the QDIO queues (qdio/qdio.c): everything
 * the switch reads from memory that a guest program writes.
 *
 * Byte 0 selects the mode (value % 3):
 *   0, 1  end to end on a NIC region of QUEUESTORAGE 1M or 8M (buffers of up to 16 entries
 *         of 4 KB, 64 KB, at both; the data area holds 8 or 64 such page sets per queue, but
 *         the fuzzer, as the program, points entries anywhere it likes, overlapping or
 *         not: the adapter must not rely on the guest library's page-set policy): the rest
 *         of the input is a program of guest actions and adapter calls, see the OP_* list
 *         below.
 *   2     the buffer parser and the header codec alone: 5 bytes of geometry (buf_entries,
 *         entry_size, buf_bytes, data_size), 256 bytes of SBAL, then the data area (exactly
 *         sized heap copy, so ASan sees any read past it).
 *
 * The region is created once per QUEUESTORAGE and reset after every input: the program
 * side's part of it is zeroed with a punched hole, the adapter is drained (every frame
 * polled and released, the input buffer it may keep is flushed by one small delivery),
 * and the ring positions where the adapter will look next are carried over, so the
 * program's buffer numbers are relative ("logical buffer 0" is always the next buffer the
 * adapter looks at) and an input replays identically.
 *
 * Invariants checked:
 *  - every frame descriptor returned by poll lies entirely inside the data area (each
 *    fragment too, fragments sum to len, the first holds >= 18 bytes), names a buffer the
 *    program primed, and frames of a buffer come out in order;
 *  - the adapter changes only SLSB bytes of buffers the program gave it, only to the
 *    states it may write (output: 0xA1 after release / 0xAF at take; input: 0x82 / 0x8F),
 *    takes buffers in ring order, never touches the other queue, leaves a well-formed
 *    SBALF in refused buffers, and its counters agree with what it did;
 *  - every frame (header + bytes) and every buffer's entries together stay within 64 KB
 *    (ZVS_QDIO_BUF_MAX), at 1M as at 8M;
 *  - when the program's input entries do not overlap and were not rewritten after being
 *    offered, every input buffer the adapter primed parses, and its frames are exactly
 *    (bytes, length, offload metadata) a subsequence of the frames delivered;
 *  - parser alone: on success the frames tile the consumed entries, every iovec is inside
 *    the data area, fragment lengths sum to pkt_length, the header decodes; on failure
 *    -EPROTO with a valid entry and reason. The header codec round-trips.
 *
 *   clang -std=c11 -D_GNU_SOURCE -g -O1 -I. -fsanitize=fuzzer,address,undefined \
 *         tests/fuzz/fuzz_qdio.c qdio/qdio.c dataplane/frame.c -o build/fuzz/fuzz_qdio
 *   build/fuzz/fuzz_qdio -max_total_time=60 work/ tests/fuzz/corpus/qdio
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qdio/qdio.h"
#include "fuzz_common.h"

/* TRACE (-DFUZZ_TRACE) prints what every adapter call did. */

#define NB          ZVS_QDIO_NBUFS
#define MAX_HELD    (NB * ZVS_QDIO_NSBALE)
#define MAX_TX      8                   /* frames per deliver call */
#define PORT_NO     7                   /* in_port given to poll */

/* Guest actions and adapter calls of the end-to-end mode (op byte % OP__COUNT). Buffer
 * bytes: bit 7 selects the queue (0 output, 1 input), bits 0-6 the logical buffer. */
enum {
    OP_SBALE,       /* buf, entry, eflags(1: top byte), length(2), addr(4) */
    OP_SBALE_RAW,   /* buf, entry, flags(4), length(4), addr(8) */
    OP_SLSB,        /* buf, state */
    OP_HAND_OVER,   /* buf, count: count%16+1 buffers from buf to 0x62 (output) or 0x41 */
    OP_DATA,        /* offset(3), n(1), n bytes */
    OP_FHDR,        /* offset(3), id, pkt_length(2), vnet flags, gso_type, hdr_len(2),
                       gso_size(2), csum_start(2), csum_offset(2) */
    OP_POLL,        /* max(1) */
    OP_RELEASE,     /* start(1), count(1), reverse(1) */
    OP_DELIVER,     /* n(1), n x [len(2), mode(1), vid(2), 18 head bytes, vnet(10) if mode&8] */
    OP_ARM,         /* program arms the thin interrupt; pending interrupts are consumed */
    OP__COUNT
};

struct rd {
    const uint8_t *p;
    size_t         n;
};

static uint8_t get8(struct rd *r)
{
    if (r->n == 0)
        return 0;
    r->n--;
    return *r->p++;
}

static uint16_t get16(struct rd *r)
{
    uint16_t v = get8(r);
    return (uint16_t)(v << 8 | get8(r));
}

static uint32_t get32(struct rd *r)
{
    uint32_t v = get16(r);
    return v << 16 | get16(r);
}

static uint64_t get64(struct rd *r)
{
    uint64_t v = get32(r);
    return v << 32 | get32(r);
}

/* ---- Header codec and parser alone ------------------------------------------------ */

static void fuzz_fhdr(const uint8_t raw[ZVS_QDIO_FHDR_LEN])
{
    struct zvs_qdio_fhdr h, h2;
    uint8_t enc[ZVS_QDIO_FHDR_LEN];

    if (zvs_qdio_fhdr_decode(raw, &h) < 0)
        return;
    CHECK(h.hdr_length == ZVS_QDIO_FHDR_LEN && h.pkt_length > 0);
    zvs_qdio_fhdr_encode(&h, enc);
    CHECK(memcmp(enc, raw, 12) == 0 && memcmp(enc + 16, raw + 16, 10) == 0);
    for (int i = 12; i < 16; i++)
        CHECK(enc[i] == 0);
    for (int i = 26; i < 32; i++)
        CHECK(enc[i] == 0);
    CHECK(zvs_qdio_fhdr_decode(enc, &h2) == 0);
    CHECK(memcmp(&h, &h2, sizeof(h)) == 0);
}

static bool in_area(const uint8_t *area, uint64_t size, const void *p, size_t len)
{
    const uint8_t *b = p;
    return b >= area && (uint64_t)(b - area) <= size && len <= size - (uint64_t)(b - area);
}

/* Check a successful parse of sbal against geo (a filled buffer may use all 16 entries,
 * their bytes together within buf_bytes); returns the entries consumed. */
static uint32_t check_parsed(const struct zvs_qdio_geom *geo, const struct iovec *iov,
                             const struct zvs_qdio_parsed *fr, int n)
{
    uint64_t total = 0;
    uint32_t e = 0;

    CHECK(n >= 1 && n <= ZVS_QDIO_NSBALE);
    for (int i = 0; i < n; i++) {
        const struct zvs_qdio_parsed *p = &fr[i];
        struct zvs_qdio_fhdr h;
        uint64_t sum = 0;

        CHECK(p->first == e && p->niov >= 1 && p->first + p->niov <= ZVS_QDIO_NSBALE);
        CHECK(ZVS_QDIO_FHDR_LEN + (uint32_t)p->hdr.pkt_length <= geo->buf_bytes);
        const uint8_t *hdr = (const uint8_t *)iov[p->first].iov_base - ZVS_QDIO_FHDR_LEN;
        CHECK(in_area(geo->data, geo->data_size, hdr, ZVS_QDIO_FHDR_LEN));
        CHECK(zvs_qdio_fhdr_decode(hdr, &h) == 0 && memcmp(&h, &p->hdr, sizeof(h)) == 0);
        if (p->niov > 1)
            CHECK(iov[p->first].iov_len >= ZVS_QDIO_MIN_FIRST_FRAG);
        for (uint32_t k = p->first; k < (uint32_t)p->first + p->niov; k++) {
            CHECK(in_area(geo->data, geo->data_size, iov[k].iov_base, iov[k].iov_len));
            CHECK(iov[k].iov_len <= geo->entry_size);
            CHECK(iov[k].iov_len > 0);
            sum += iov[k].iov_len;
        }
        CHECK(sum == p->hdr.pkt_length);
        total += ZVS_QDIO_FHDR_LEN + sum;
        e = (uint32_t)p->first + p->niov;
    }
    CHECK(total <= geo->buf_bytes);
    return e;
}

/* entries: how many the writer may use (16 for a filled buffer, buf_entries for the
 * empty input buffers a program offers). */
static void check_sbalf(uint16_t sbalf, uint32_t entries)
{
    uint8_t reason = ZVS_QDIO_SBALF_REASON(sbalf);
    CHECK(reason >= ZVS_QDIO_ERR_ADDR && reason <= ZVS_QDIO_ERR_SHORT);
    CHECK(ZVS_QDIO_SBALF_ENTRY(sbalf) < entries);
}

static void fuzz_parser(struct rd *r)
{
    struct zvs_qdio_geom geo;
    struct zvs_sbal sbal;
    struct iovec iov[ZVS_QDIO_NSBALE];
    struct zvs_qdio_parsed fr[ZVS_QDIO_NSBALE];
    uint16_t sbalf = 0;

    geo.buf_entries = get8(r) % ZVS_QDIO_NSBALE + 1u;
    geo.entry_size = get16(r);
    geo.buf_bytes = get16(r) * 2u;
    uint32_t dsize = get16(r) + 1u;
    for (size_t i = 0; i < sizeof(sbal); i++)
        ((uint8_t *)&sbal)[i] = get8(r);
    uint8_t *area = malloc(dsize);
    CHECK(area != NULL);
    memset(area, 0, dsize);
    memcpy(area, r->p, r->n < dsize ? r->n : dsize);
    geo.data = area;
    geo.data_size = dsize;
    if (dsize >= ZVS_QDIO_FHDR_LEN)
        fuzz_fhdr(area);

    int n = zvs_qdio_sbal_parse(&geo, &sbal, iov, fr, &sbalf);
    TRACE("parse = %d sbalf %04x\n", n, sbalf);
    if (n < 0) {
        CHECK(n == -EPROTO);
        check_sbalf(sbalf, ZVS_QDIO_NSBALE);
    } else {
        check_parsed(&geo, iov, fr, n);
    }
    free(area);
}

/* ---- End to end: one region per QUEUESTORAGE, reset per input ------------------------ */

struct nic {
    struct zvs_qdio           *q;
    uint32_t                   qs;
    struct zvs_qdio_shm_hdr   *hdr;
    struct zvs_qdio_queue_shm *inq;
    struct zvs_qdio_queue_shm *outq;
    uint8_t                   *data;
    struct zvs_qdio_geom       geo;     /* the guest's view, for parsing input buffers */
    uint32_t                   out_base;    /* ring position of logical output buffer 0 */
    uint32_t                   in_base;     /* ... of logical input buffer 0 */
};

/* What the fuzzer, as the program, knows during one input. */
struct run {
    struct nic      *n;
    bool             out_given[NB];     /* program wrote 0x62 since the adapter gave it back */
    bool             in_given[NB];      /* program wrote 0x41 since ... */
    bool             out_taken[NB];     /* adapter took it (a frame was seen) */
    uint8_t          out_next_idx[NB];  /* next frame index expected from a taken buffer */
    uint16_t         out_nheld[NB];     /* frames of the buffer the fuzzer holds */
    uint32_t         out_expect;        /* ring position of the next buffer to be taken */
    uint32_t         in_expect;         /* ring position of the next input buffer taken */
    bool             out_lost;          /* ring tracking ambiguous: skip order checks */
    bool             in_unsafe;         /* program rewrote offered entries: skip contents */
    struct zvs_frame held[MAX_HELD];
    int              nheld;
    struct zvs_qdio_adapter_counters ctr;
};

static struct nic *nic_get(uint32_t qs)
{
    static struct nic nics[2];
    struct nic *n = &nics[qs == ZVS_QDIO_QS_MIN ? 0 : 1];

    if (n->q)
        return n;
    CHECK(zvs_qdio_create(qs, &n->q) == 0);
    n->qs = qs;
    void *r = zvs_qdio_region(n->q);
    n->hdr = r;
    n->inq = zvs_qdio_at(r, ZVS_QDIO_IN_Q_OFF);
    n->outq = zvs_qdio_at(r, ZVS_QDIO_OUT_Q_OFF);
    n->data = zvs_qdio_at(r, ZVS_QDIO_DATA_OFF);
    n->geo.data = n->data;
    n->geo.data_size = qs;
    n->geo.entry_size = ZVS_QDIO_ENTRY_SIZE;
    n->geo.buf_bytes = n->hdr->buf_bytes;
    n->geo.buf_entries = n->geo.buf_bytes / ZVS_QDIO_ENTRY_SIZE;
    if (n->geo.buf_entries > ZVS_QDIO_NSBALE)
        n->geo.buf_entries = ZVS_QDIO_NSBALE;
    /* 64 KB buffers of 16 entries at every QUEUESTORAGE */
    CHECK(n->geo.buf_bytes == ZVS_QDIO_BUF_MAX && n->geo.buf_entries == ZVS_QDIO_NSBALE);
    /* Both queues start with no buffer for the adapter (hole: all SLSB bytes 0). */
    memset(n->inq->slsb, 0, NB);
    memset(n->outq->slsb, 0, NB);
    return n;
}

static uint32_t phys(const struct nic *n, bool in, uint8_t logical)
{
    return ((in ? n->in_base : n->out_base) + (logical & 0x7F)) % NB;
}

static void adapter_ctr(const struct run *r, struct zvs_qdio_adapter_counters *c)
{
    struct zvs_qdio_counters all;

    zvs_qdio_counters(r->n->q, &all);
    *c = all.adapter;
    /* The published copy is the adapter's own (the fuzzer never writes it). */
    CHECK(memcmp(&r->n->hdr->adapter, c, sizeof(*c)) == 0);
}

/* Frame descriptors from poll: inside the data area, from buffers the program primed. */
static void check_frame(struct run *r, const struct zvs_frame *f)
{
    const struct nic *n = r->n;
    uint64_t b = f->cookie >> 8;
    uint32_t i = (uint32_t)(f->cookie & 0xFF);

    CHECK(b < NB && i < ZVS_QDIO_NSBALE);
    CHECK(f->in_port == PORT_NO && f->len >= 1);
    CHECK(ZVS_QDIO_FHDR_LEN + f->len <= n->geo.buf_bytes && f->len <= ZVS_QDIO_FRAME_MAX);
    if (f->nfrags == 0) {
        CHECK(f->frags == NULL);
        CHECK(in_area(n->data, n->qs, f->data, f->len));
    } else {
        uint64_t sum = 0;
        CHECK(f->nfrags >= 2 && f->nfrags <= ZVS_QDIO_NSBALE && f->frags != NULL);
        CHECK(f->frags[0].iov_base == f->data && f->frags[0].iov_len >= ZVS_QDIO_MIN_FIRST_FRAG);
        for (uint32_t k = 0; k < f->nfrags; k++) {
            CHECK(in_area(n->data, n->qs, f->frags[k].iov_base, f->frags[k].iov_len));
            sum += f->frags[k].iov_len;
        }
        CHECK(sum == f->len);
    }
    if (!r->out_lost) {
        CHECK(r->out_given[b]);
        CHECK(i == (r->out_taken[b] ? r->out_next_idx[b] : 0u));
    }
}

static void snap(const struct nic *n, uint8_t out[NB], uint8_t in[NB])
{
    for (uint32_t b = 0; b < NB; b++) {
        out[b] = zvs_slsb_get(&n->outq->slsb[b]);
        in[b] = zvs_slsb_get(&n->inq->slsb[b]);
    }
}

static int do_poll(struct run *r, int max)
{
    struct nic *n = r->n;
    struct zvs_frame fr[64];
    uint8_t bo[NB], bi[NB], ao[NB], ai[NB];
    struct zvs_qdio_adapter_counters c;
    bool isnew[NB] = { false };
    uint32_t nnew = 0;

    snap(n, bo, bi);
    int got = zvs_qdio_poll_output(n->q, fr, max, PORT_NO);
    snap(n, ao, ai);
    adapter_ctr(r, &c);
    TRACE("poll(%d) = %d, refused %llu\n", max, got,
          (unsigned long long)(c.out_errors - r->ctr.out_errors));
    CHECK(got >= 0 && got <= max);
    CHECK(memcmp(bi, ai, NB) == 0);
    CHECK(c.out_frames - r->ctr.out_frames == (uint64_t)got);
    for (uint32_t b = 0; b < NB; b++) {
        if (ao[b] == bo[b])
            continue;
        /* poll only refuses: 0x62 -> 0xAF, at take time */
        CHECK(ao[b] == ZVS_SLSB_P_OUTPUT_ERROR && bo[b] == ZVS_SLSB_CU_OUTPUT_PRIMED);
        CHECK(r->out_given[b] || r->out_lost);
        check_sbalf(n->outq->sbalf[b], ZVS_QDIO_NSBALE);
        r->out_given[b] = false;
        isnew[b] = true;
        nnew++;
    }
    CHECK(c.out_errors - r->ctr.out_errors == nnew);
    for (int k = 0; k < got; k++) {
        uint32_t b = (uint32_t)(fr[k].cookie >> 8);
        check_frame(r, &fr[k]);
        if (!r->out_taken[b]) {
            r->out_taken[b] = true;
            r->out_next_idx[b] = 0;
            CHECK(!isnew[b]);
            isnew[b] = true;
            nnew++;
        }
        r->out_next_idx[b]++;
        r->out_nheld[b]++;
        CHECK(r->nheld < MAX_HELD);
        r->held[r->nheld++] = fr[k];
    }
    /* Buffers are taken in ring order from where the adapter stopped. */
    if (!r->out_lost) {
        for (uint32_t k = 0; k < nnew; k++)
            CHECK(isnew[(r->out_expect + k) % NB]);
    }
    r->out_expect = (r->out_expect + nnew) % NB;
    r->ctr = c;
    return got;
}

static void do_release(struct run *r, uint32_t start, uint32_t count, bool reverse)
{
    struct nic *n = r->n;
    struct zvs_frame rel[MAX_HELD];
    uint8_t bo[NB], bi[NB], ao[NB], ai[NB];
    struct zvs_qdio_adapter_counters c;
    bool zero[NB] = { false };
    uint32_t nzero = 0, nret = 0;

    if (r->nheld == 0)
        return;
    start %= (uint32_t)r->nheld;
    if (count > (uint32_t)r->nheld - start)
        count = (uint32_t)r->nheld - start;
    for (uint32_t k = 0; k < count; k++)
        rel[k] = r->held[start + (reverse ? count - 1 - k : k)];
    memmove(&r->held[start], &r->held[start + count],
            (size_t)((uint32_t)r->nheld - start - count) * sizeof(r->held[0]));
    r->nheld -= (int)count;
    for (uint32_t k = 0; k < count; k++) {
        uint32_t b = (uint32_t)(rel[k].cookie >> 8);
        CHECK(r->out_nheld[b] > 0);
        if (--r->out_nheld[b] == 0) {
            zero[b] = true;
            nzero++;
        }
    }
    snap(n, bo, bi);
    zvs_qdio_release(n->q, rel, (int)count);
    snap(n, ao, ai);
    adapter_ctr(r, &c);
    CHECK(memcmp(bi, ai, NB) == 0);
    for (uint32_t b = 0; b < NB; b++) {
        if (ao[b] == bo[b])
            continue;
        /* release only gives back buffers whose frames are all back: -> 0xA1 */
        CHECK(ao[b] == ZVS_SLSB_P_OUTPUT_EMPTY && zero[b]);
        CHECK(n->outq->sbalf[b] == 0);
        nret++;
    }
    uint64_t back = c.out_bufs_processed - r->ctr.out_bufs_processed;
    TRACE("release(%u) gave back %llu buffers\n", count, (unsigned long long)back);
    CHECK(back >= nret && back <= nzero);
    if (back == nzero) {
        /* every buffer whose frames are all back went back */
        for (uint32_t b = 0; b < NB; b++) {
            if (zero[b]) {
                r->out_taken[b] = false;
                r->out_given[b] = false;
            }
        }
    } else if (back != nret) {
        /* some went back without a visible change (the program had written 0xA1 into
         * them): which ones is unknown, so stop checking the ring order */
        r->out_lost = true;
    } else {
        for (uint32_t b = 0; b < NB; b++) {
            if (zero[b] && ao[b] != bo[b]) {
                r->out_taken[b] = false;
                r->out_given[b] = false;
            }
        }
    }
    r->ctr = c;
}

/* ---- Delivery ---------------------------------------------------------------------- */

struct src {
    struct zvs_frame f;
    struct iovec     frags[3];
    uint8_t         *pieces[3];
    uint8_t         *expect;            /* bytes after the tag edit, when deliverable */
    uint32_t         out_len;
    bool             possible;          /* tag edit has the bytes it needs */
};

static void src_free(struct src *s)
{
    for (int i = 0; i < 3; i++)
        free(s->pieces[i]);
    free(s->expect);
}

/* Frame bytes past the first 18: a fixed pattern, made once (no per-byte work per run). */
static const uint8_t *pattern(void)
{
    static uint8_t pat[65536];
    static bool made;

    if (!made) {
        for (uint32_t i = 0; i < sizeof(pat); i++)
            pat[i] = (uint8_t)(i * 31u + 7u);
        made = true;
    }
    return pat;
}

/* A frame from the input: its first 18 bytes come from the input, the rest is a pattern;
 * mode bit 2 scatters it into up to three exactly sized heap pieces. */
static void src_build(struct src *s, struct zvs_tx *tx, struct rd *r)
{
    uint32_t len = get16(r);
    uint8_t mode = get8(r);
    uint16_t vid = get16(r);
    uint8_t head[18];

    memset(s, 0, sizeof(*s));
    for (int i = 0; i < 18; i++)
        head[i] = get8(r);
    if (mode & 8) {
        s->f.vnet.flags = get8(r);
        s->f.vnet.gso_type = get8(r);
        s->f.vnet.hdr_len = get16(r);
        s->f.vnet.gso_size = get16(r);
        s->f.vnet.csum_start = get16(r);
        s->f.vnet.csum_offset = get16(r);
    }
    s->f.len = len;
    s->f.pcp = (uint8_t)(mode >> 5);
    uint32_t cut[3] = { len, 0, 0 };
    if ((mode & 4) && len > 20) {
        cut[0] = 18 + (len - 18) / 3;
        cut[1] = (len - cut[0]) / 2;
        cut[2] = len - cut[0] - cut[1];
    }
    uint32_t off = 0, np = 0;
    for (int i = 0; i < 3; i++) {
        if (cut[i] == 0 && i > 0)
            continue;
        s->pieces[i] = malloc(cut[i] ? cut[i] : 1);
        CHECK(s->pieces[i] != NULL);
        memcpy(s->pieces[i], pattern() + off, cut[i]);
        if (off < 18)
            memcpy(s->pieces[i], head + off, (cut[i] < 18 - off ? cut[i] : 18 - off));
        s->frags[np].iov_base = s->pieces[i];
        s->frags[np].iov_len = cut[i];
        np++;
        off += cut[i];
    }
    s->f.data = s->pieces[0];
    s->f.nfrags = np > 1 ? (uint16_t)np : 0;
    s->f.frags = np > 1 ? s->frags : NULL;
    tx->f = &s->f;
    tx->tag_op = (uint8_t)(mode & 3);
    tx->vid = vid;
    enum zvs_tag_op op = (enum zvs_tag_op)tx->tag_op;
    s->possible = op == ZVS_TAG_KEEP ? len > 0 : op == ZVS_TAG_PUSH ? len >= 12 : len >= 16;
    if (s->possible) {
        s->out_len = zvs_frame_out_len(&s->f, op);
        s->expect = malloc(s->out_len ? s->out_len : 1);
        CHECK(s->expect != NULL);
        CHECK(zvs_frame_emit(&s->f, op, vid, s->expect, NULL) == s->out_len);
    }
}

/* Entries of the input buffers the program offered: do any two overlap? */
#define MAX_OFFERED 256                 /* 16 buffers of 16 entries; more: not compared */

static bool in_entries_overlap(const struct run *r)
{
    const struct nic *n = r->n;
    uint64_t lo[MAX_OFFERED], hi[MAX_OFFERED];
    uint32_t cnt = 0;

    for (uint32_t b = 0; b < NB; b++) {
        if (!r->in_given[b])
            continue;
        for (uint32_t e = 0; e < n->geo.buf_entries; e++) {
            const struct zvs_sbale *s = &n->inq->sbal[b].e[e];
            if (cnt == MAX_OFFERED)
                return true;            /* too many to bother: treat as unsafe */
            lo[cnt] = s->addr;
            hi[cnt] = s->addr + s->length;
            if (hi[cnt] < lo[cnt])
                hi[cnt] = UINT64_MAX;
            cnt++;
            if (s->flags & ZVS_SBALE_LAST_ENTRY)
                break;
        }
    }
    for (uint32_t i = 0; i < cnt; i++)
        for (uint32_t j = i + 1; j < cnt; j++)
            if (lo[i] < hi[j] && lo[j] < hi[i])
                return true;
    return false;
}

/* The frames of the primed input buffer b are a subsequence of what was delivered. */
static void check_primed(struct run *r, uint32_t b, struct src *s, const struct zvs_tx *tx,
                         int ntx, int *next_src, int *matched)
{
    struct nic *n = r->n;
    struct iovec iov[ZVS_QDIO_NSBALE];
    struct zvs_qdio_parsed fr[ZVS_QDIO_NSBALE];
    uint16_t sbalf = 0;
    static uint8_t got[65536 + 64];

    int nf = zvs_qdio_sbal_parse(&n->geo, &n->inq->sbal[b], iov, fr, &sbalf);
    CHECK(nf >= 1);
    check_parsed(&n->geo, iov, fr, nf);
    for (int i = 0; i < nf; i++) {
        uint32_t len = 0;
        for (uint32_t k = fr[i].first; k < (uint32_t)fr[i].first + fr[i].niov; k++) {
            memcpy(got + len, iov[k].iov_base, iov[k].iov_len);
            len += (uint32_t)iov[k].iov_len;
        }
        CHECK(fr[i].hdr.port_no == 0);
        bool found = false;
        while (*next_src < ntx && !found) {
            const struct src *c = &s[(*next_src)++];
            struct zvs_vnet v = zvs_frame_vnet_after_op(&c->f, (enum zvs_tag_op)tx[c - s].tag_op);
            found = c->possible && c->out_len == len && memcmp(c->expect, got, len) == 0 &&
                    memcmp(&v, &fr[i].hdr.vnet, sizeof(v)) == 0;
        }
        CHECK(found);
        (*matched)++;
    }
}

static void do_deliver(struct run *r, struct rd *in)
{
    struct nic *n = r->n;
    struct src s[MAX_TX];
    struct zvs_tx tx[MAX_TX];
    uint8_t bo[NB], bi[NB], ao[NB], ai[NB];
    struct zvs_qdio_adapter_counters c;
    enum zvs_drop why = ZVS_DROP__COUNT;
    int ntx = get8(in) % MAX_TX + 1;

    for (int i = 0; i < ntx; i++)
        src_build(&s[i], &tx[i], in);
    bool check_contents = !r->in_unsafe && !in_entries_overlap(r);
    snap(n, bo, bi);
    int done = zvs_qdio_deliver(n->q, tx, ntx, &why);
    snap(n, ao, ai);
    adapter_ctr(r, &c);
    TRACE("deliver(%d) = %d why %d, primed %llu bad %llu, contents %s\n", ntx, done, (int)why,
          (unsigned long long)(c.in_bufs_primed - r->ctr.in_bufs_primed),
          (unsigned long long)(c.in_bad_bufs - r->ctr.in_bad_bufs), check_contents ? "checked" : "not checked");
    CHECK(memcmp(bo, ao, NB) == 0);
    CHECK(done >= 0 && done <= ntx);
    if (done < ntx)
        CHECK(why == ZVS_DROP_NO_BUFFER || why == ZVS_DROP_OVERSIZE || why == ZVS_DROP_TX_FAIL);
    CHECK(c.in_frames - r->ctr.in_frames == (uint64_t)done);
    for (uint32_t b = 0; b < NB; b++) {
        if (ai[b] == bi[b])
            continue;
        CHECK(ai[b] == ZVS_SLSB_P_INPUT_PRIMED || ai[b] == ZVS_SLSB_P_INPUT_ERROR);
        CHECK(r->in_given[b]);
    }
    /* The buffers handed back in this call are the next ones in ring order. */
    uint64_t primed = c.in_bufs_primed - r->ctr.in_bufs_primed;
    uint64_t bad = c.in_bad_bufs - r->ctr.in_bad_bufs;
    uint64_t np = 0, nb = 0;
    int next_src = 0, matched = 0;
    CHECK(primed + bad <= NB);
    for (uint64_t k = 0; k < primed + bad; k++) {
        uint32_t b = (uint32_t)((r->in_expect + k) % NB);
        CHECK(r->in_given[b]);
        r->in_given[b] = false;
        if (ai[b] == ZVS_SLSB_P_INPUT_ERROR) {
            check_sbalf(n->inq->sbalf[b], n->geo.buf_entries);
            nb++;
            continue;
        }
        CHECK(ai[b] == ZVS_SLSB_P_INPUT_PRIMED);
        CHECK(n->inq->sbalf[b] == 0);
        np++;
        if (check_contents)
            check_primed(r, b, s, tx, ntx, &next_src, &matched);
    }
    CHECK(np == primed && nb == bad);
    if (check_contents)
        CHECK(matched == done);
    r->in_expect = (uint32_t)((r->in_expect + primed + bad) % NB);
    r->ctr = c;
    for (int i = 0; i < ntx; i++)
        src_free(&s[i]);
}

/* ---- Guest actions ----------------------------------------------------------------- */

static void set_slsb(struct run *r, uint32_t b, bool in, uint8_t state)
{
    struct nic *n = r->n;

    if (in) {
        zvs_slsb_set(&n->inq->slsb[b], state);
        if (state == ZVS_SLSB_CU_INPUT_EMPTY)
            r->in_given[b] = true;
    } else {
        zvs_slsb_set(&n->outq->slsb[b], state);
        if (state == ZVS_SLSB_CU_OUTPUT_PRIMED)
            r->out_given[b] = true;
    }
}

static void set_sbale(struct run *r, uint8_t bsel, uint8_t entry, uint32_t flags,
                      uint32_t len, uint64_t addr)
{
    bool in = bsel & 0x80;
    uint32_t b = phys(r->n, in, bsel);
    struct zvs_sbal *s = in ? &r->n->inq->sbal[b] : &r->n->outq->sbal[b];
    struct zvs_sbale *e = &s->e[entry % ZVS_QDIO_NSBALE];

    /* Rewriting entries the adapter may have snapshotted already: the frames it then
     * writes follow the old entries, so stop comparing contents. */
    if (in && r->in_given[b])
        r->in_unsafe = true;
    __atomic_store_n(&e->flags, flags, __ATOMIC_RELAXED);
    __atomic_store_n(&e->length, len, __ATOMIC_RELAXED);
    __atomic_store_n(&e->addr, addr, __ATOMIC_RELAXED);
}

static void write_data(struct nic *n, uint32_t off, const uint8_t *p, uint32_t len)
{
    off %= n->qs;
    if (len > n->qs - off)
        len = n->qs - off;
    memcpy(n->data + off, p, len);
}

static void op_fhdr(struct run *r, struct rd *in)
{
    struct zvs_qdio_fhdr h;
    uint8_t raw[ZVS_QDIO_FHDR_LEN];
    uint32_t off = get8(in) << 16;

    off |= get16(in);
    memset(&h, 0, sizeof(h));
    h.id = get8(in);
    h.hdr_length = ZVS_QDIO_FHDR_LEN;
    h.pkt_length = get16(in);
    h.vnet.flags = get8(in);
    h.vnet.gso_type = get8(in);
    h.vnet.hdr_len = get16(in);
    h.vnet.gso_size = get16(in);
    h.vnet.csum_start = get16(in);
    h.vnet.csum_offset = get16(in);
    zvs_qdio_fhdr_encode(&h, raw);
    fuzz_fhdr(raw);
    write_data(r->n, off, raw, sizeof(raw));
}

static void drain_irq(struct nic *n)
{
    uint64_t v;

    if (read(zvs_qdio_irq_fd(n->q), &v, sizeof(v)) < 0) {
        /* EAGAIN: none pending */
    }
}

/* Give every frame back, let the adapter drop any buffer it keeps, zero the program's
 * side of the region and carry the ring positions over to the next input. */
static void reset(struct run *r)
{
    struct nic *n = r->n;
    uint8_t tiny[14] = { 0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2, 0x88, 0xB5 };
    struct zvs_frame tf = { .data = tiny, .len = sizeof(tiny) };
    struct zvs_tx ttx = { .f = &tf, .tag_op = ZVS_TAG_KEEP };
    enum zvs_drop why;

    /* No buffer is the adapter's to take any more; what it holds comes back. */
    memset(n->outq->slsb, 0, NB);
    memset(n->inq->slsb, 0, NB);
    do_release(r, 0, MAX_HELD, false);
    while (do_poll(r, 64) > 0)
        do_release(r, 0, MAX_HELD, false);
    /* An input buffer taken but left empty stays the adapter's: a frame that fits any
     * entry (>= 64 bytes) makes it prime it; with no buffer kept this is a NO_BUFFER. */
    (void)zvs_qdio_deliver(n->q, &ttx, 1, &why);
    __atomic_store_n(&n->hdr->irq_armed, 0, __ATOMIC_RELEASE);
    drain_irq(n);
    CHECK(fallocate(zvs_qdio_memfd(n->q), FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                    (off_t)ZVS_QDIO_IN_Q_OFF,
                    (off_t)(zvs_qdio_size(n->q) - ZVS_QDIO_IN_Q_OFF)) == 0);
}

static void fuzz_e2e(uint32_t qs, struct rd *in)
{
    static struct run r;
    struct zvs_qdio_adapter_counters start;

    memset(&r, 0, sizeof(r));
    r.n = nic_get(qs);
    adapter_ctr(&r, &start);
    r.ctr = start;
    r.out_expect = r.n->out_base;
    r.in_expect = r.n->in_base;
    while (in->n > 0) {
        uint8_t op = get8(in) % OP__COUNT;
        switch (op) {
        case OP_SBALE: {
            uint8_t b = get8(in), e = get8(in);
            uint32_t fl = (uint32_t)get8(in) << 24;
            uint32_t len = get16(in);
            set_sbale(&r, b, e, fl, len, get32(in));
            break;
        }
        case OP_SBALE_RAW: {
            uint8_t b = get8(in), e = get8(in);
            uint32_t fl = get32(in), len = get32(in);
            set_sbale(&r, b, e, fl, len, get64(in));
            break;
        }
        case OP_SLSB: {
            uint8_t b = get8(in);
            set_slsb(&r, phys(r.n, b & 0x80, b), b & 0x80, get8(in));
            break;
        }
        case OP_HAND_OVER: {
            uint8_t b = get8(in);
            uint32_t cnt = get8(in) % 16u + 1u;
            bool q_in = b & 0x80;
            for (uint32_t k = 0; k < cnt; k++)
                set_slsb(&r, phys(r.n, q_in, (uint8_t)(b + k)), q_in,
                         q_in ? ZVS_SLSB_CU_INPUT_EMPTY : ZVS_SLSB_CU_OUTPUT_PRIMED);
            break;
        }
        case OP_DATA: {
            uint32_t off = (uint32_t)get8(in) << 16;
            off |= get16(in);
            uint32_t len = get8(in);
            if (len > in->n)
                len = (uint32_t)in->n;
            write_data(r.n, off, in->p, len);
            in->p += len;
            in->n -= len;
            break;
        }
        case OP_FHDR:
            op_fhdr(&r, in);
            break;
        case OP_POLL:
            do_poll(&r, get8(in) % 64 + 1);
            break;
        case OP_RELEASE: {
            uint32_t st = get8(in), cnt = get8(in) % 32u + 1u;
            do_release(&r, st, cnt, get8(in) & 1);
            break;
        }
        case OP_DELIVER:
            do_deliver(&r, in);
            break;
        case OP_ARM:
            drain_irq(r.n);
            __atomic_store_n(&r.n->hdr->irq_armed, 1, __ATOMIC_RELEASE);
            break;
        }
    }
    reset(&r);
    /* Every buffer the adapter took in this input went back: the next input's logical
     * buffer 0 is where the adapter looks next. */
    struct zvs_qdio_adapter_counters end;
    adapter_ctr(&r, &end);
    r.n->out_base = (uint32_t)((r.n->out_base + (end.out_bufs_processed - start.out_bufs_processed) +
                                (end.out_errors - start.out_errors)) % NB);
    r.n->in_base = (uint32_t)((r.n->in_base + (end.in_bufs_primed - start.in_bufs_primed) +
                               (end.in_bad_bufs - start.in_bad_bufs)) % NB);
    if (!r.out_lost)
        CHECK(r.n->out_base == r.out_expect);
    for (uint32_t b = 0; b < NB; b++)
        CHECK(r.out_nheld[b] == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct rd in = { data, size };

    if (size < 1 || size > 16384)
        return 0;
    switch (get8(&in) % 3) {
    case 0:
        fuzz_e2e(ZVS_QDIO_QS_MIN, &in);
        break;
    case 1:
        fuzz_e2e(ZVS_QDIO_QS_MAX, &in);
        break;
    default:
        fuzz_parser(&in);
        break;
    }
    return 0;
}
