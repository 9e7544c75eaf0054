/* In-process workload guests (see workload.h).
 *
 * Design note.
 * - Owns: the program side of one NIC's QDIO queues (a zvs_qdio_guest attached in this
 *   process), ZVS_BATCH staging frames, the RR client's transaction table and idle ring,
 *   the RR server's ring of responses still to send, the STR stream table, the counters.
 * - Rules: all memory is allocated in zvs_workload_create. A frame is built in a staging
 *   buffer whose filler bytes were written once at creation; per frame only the MAC
 *   header and the 32-byte workload header are rewritten, then zvs_qdio_guest_send copies
 *   it into the output buffer (the guest's own copy, as a Linux qeth driver makes).
 *   The workload never waits: when no output buffer is empty it counts tx_blocked and
 *   tries again on the next run.
 * - RR server backpressure: a request is answered from the reply ring; the receive budget
 *   is cut to the ring's free room minus one input buffer's frames, so a request is never
 *   dropped inside the guest. If the output queue stays full the input queue fills and the
 *   switch discards (NO_BUFFER), as with a real overloaded guest.
 * - Sequence checks: STR frames carry a per-stream sequence from 0; a receiver expects
 *   next = last + 1. A jump ahead is one error and (jump) lost frames, a frame from the
 *   past (reordered or repeated) is one error. RR responses must echo the outstanding
 *   sequence of their thread; anything else is an error and completes nothing.
 * - Hazards: the NIC's queue memory belongs to the NIC port, which the switch destroys
 *   with itself: destroy the workload first. Single-threaded.
 */
#include "tests/lib/workload.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "qdio/nic_qdio.h"
#include "qdio/qdio.h"
#include "qdio/qdio_guest.h"

/* Workload header, at frame offset ZVS_ETH_HLEN (big-endian). */
#define WL_OFF_MAGIC    0               /* "ZWL1" */
#define WL_OFF_TYPE     4               /* enum wl_type */
#define WL_OFF_ID       6               /* STR stream id / RR thread id */
#define WL_OFF_SEQ      8               /* 64-bit sequence */
#define WL_OFF_TS       16              /* 64-bit sender's `now` */
#define WL_OFF_WANT     24              /* REQ: response payload bytes wanted */
#define WL_FRAME_HDR    (ZVS_ETH_HLEN + ZVS_WL_HDR_LEN)
#define WL_REPLIES      512u            /* RR server: responses waiting for a buffer */

_Static_assert(WL_OFF_WANT + 4 <= ZVS_WL_HDR_LEN, "workload header fits 32 bytes");
_Static_assert(WL_FRAME_HDR <= ZVS_WL_FRAME_MIN, "a minimum STR frame holds the header");
_Static_assert(WL_FRAME_HDR <= ZVS_ETH_HLEN + ZVS_WL_PAYLOAD_MIN, "RR payload holds it");
_Static_assert(WL_REPLIES > 2 * ZVS_QDIO_NSBALE, "reply ring outlasts a buffer's frames");

static const uint8_t wl_magic[4] = { 'Z', 'W', 'L', '1' };

enum wl_type {
    WL_DATA = 1,                        /* STR data */
    WL_REQ = 2,                         /* RR request */
    WL_RSP = 3,                         /* RR response */
};

struct wl_stream {
    bool     used;
    uint16_t id;                        /* stream id of the frames */
    uint8_t  src[ZVS_ETH_ALEN];         /* their source MAC */
    uint64_t next;                      /* sequence expected next */
};

struct wl_thread {
    bool     busy;                      /* request sent, response not yet seen */
    uint64_t seq;                       /* sequence of the outstanding request */
    uint64_t sent_at;                   /* `now` when it was sent */
};

struct wl_reply {
    uint8_t  dst[ZVS_ETH_ALEN];         /* the requester */
    uint16_t id;                        /* its thread id, echoed */
    uint32_t len;                       /* response frame bytes */
    uint64_t seq;                       /* echoed sequence */
    uint64_t ts;                        /* echoed send time */
};

struct zvs_workload {
    struct zvs_workload_params p;
    struct zvs_qdio_guest     *g;
    uint32_t                   frame_max;   /* largest frame the NIC takes (MTU + 14) */
    uint32_t                   stage_len;   /* bytes per staging frame */
    uint32_t                   stage_stride;/* stage_len rounded up to a cache line */
    uint8_t                   *stage;       /* ZVS_BATCH staging frames */
    struct zvs_qdio_pkt        pkts[ZVS_BATCH];
    uint64_t                   next_seq;    /* STR: sequence of the next frame */
    uint64_t                   started;     /* RR client: transactions started */
    struct wl_thread          *threads;     /* RR client: p.threads entries */
    uint16_t                  *idle;        /* RR client: ring of idle thread ids */
    uint32_t                   idle_head;   /* next idle id to use (free running) */
    uint32_t                   idle_tail;   /* where a finished id goes */
    uint16_t                   batch_ids[ZVS_BATCH]; /* thread ids of the batch being sent */
    struct wl_reply           *replies;     /* RR server: WL_REPLIES entries */
    uint32_t                   rep_head;    /* oldest unsent response (free running) */
    uint32_t                   rep_tail;    /* next free slot */
    struct wl_stream           streams[ZVS_WL_MAX_STREAMS];
    bool                       paused;      /* input queue not serviced */
    uint64_t                   now;         /* of the current run, for the rx callback */
    uint64_t                   lat_sum;
    struct zvs_workload_stats  st;
};

/* ---- Wire helpers ------------------------------------------------------------------ */

/* Big-endian stores as one store each: these run per frame. */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define wl_to_be32(v) (v)
#define wl_to_be64(v) (v)
#else
#define wl_to_be32(v) __builtin_bswap32(v)
#define wl_to_be64(v) __builtin_bswap64(v)
#endif

static void put_be32(uint8_t *p, uint32_t v)
{
    v = wl_to_be32(v);
    memcpy(p, &v, sizeof(v));
}

static void put_be64(uint8_t *p, uint64_t v)
{
    v = wl_to_be64(v);
    memcpy(p, &v, sizeof(v));
}

static uint32_t get_be32(const uint8_t *p)
{
    return (uint32_t)zvs_be16(p) << 16 | zvs_be16(p + 2);
}

static uint64_t get_be64(const uint8_t *p)
{
    return (uint64_t)get_be32(p) << 32 | get_be32(p + 4);
}

/* Write the varying part of a frame: workload header fields (MACs are set by callers). */
static void hdr_put(uint8_t *f, enum wl_type type, uint16_t id, uint64_t seq, uint64_t ts,
                    uint32_t want)
{
    uint8_t *h = f + ZVS_ETH_HLEN;

    h[WL_OFF_TYPE] = (uint8_t)type;
    zvs_put_be16(h + WL_OFF_ID, id);
    put_be64(h + WL_OFF_SEQ, seq);
    put_be64(h + WL_OFF_TS, ts);
    put_be32(h + WL_OFF_WANT, want);
}

static uint8_t *stage_at(const struct zvs_workload *w, int i)
{
    return w->stage + (size_t)i * w->stage_stride;
}

/* Filler everywhere, then the constant parts of the headers. */
static void stage_init(struct zvs_workload *w)
{
    for (int i = 0; i < ZVS_BATCH; i++) {
        uint8_t *f = stage_at(w, i);
        for (uint32_t k = 0; k < w->stage_len; k++)
            f[k] = (uint8_t)k;
        memcpy(f, w->p.peer_mac, ZVS_ETH_ALEN);
        memcpy(f + ZVS_ETH_ALEN, w->p.mac, ZVS_ETH_ALEN);
        zvs_put_be16(f + 12, ZVS_WL_ETHERTYPE);
        memcpy(f + ZVS_ETH_HLEN + WL_OFF_MAGIC, wl_magic, sizeof(wl_magic));
        memset(f + ZVS_ETH_HLEN + 4, 0, ZVS_WL_HDR_LEN - 4);
        w->pkts[i].data = f;
        w->pkts[i].len = 0;
        memset(&w->pkts[i].vnet, 0, sizeof(w->pkts[i].vnet));
    }
}

static void latency(struct zvs_workload *w, uint64_t sent_at)
{
    uint64_t d = w->now >= sent_at ? w->now - sent_at : 0;

    if (w->st.lat_samples == 0 || d < w->st.lat_min)
        w->st.lat_min = d;
    if (d > w->st.lat_max)
        w->st.lat_max = d;
    w->st.lat_samples++;
    w->lat_sum += d;
}

/* ---- Receive ----------------------------------------------------------------------- */

/* True when frame bytes from WL_FRAME_HDR on are the filler (their offset mod 256). */
static bool filler_ok(const struct zvs_qdio_rx *rx)
{
    uint32_t off = 0;

    for (uint32_t i = 0; i < rx->niov; i++) {
        const uint8_t *b = rx->iov[i].iov_base;
        uint32_t n = (uint32_t)rx->iov[i].iov_len;
        for (uint32_t k = 0; k < n; k++, off++) {
            if (off >= WL_FRAME_HDR && b[k] != (uint8_t)off)
                return false;
        }
    }
    return off == rx->len;
}

static struct wl_stream *stream_find(struct zvs_workload *w, const uint8_t *src, uint16_t id)
{
    struct wl_stream *free_slot = NULL;

    for (uint32_t i = 0; i < ZVS_WL_MAX_STREAMS; i++) {
        struct wl_stream *s = &w->streams[i];
        if (!s->used) {
            if (!free_slot)
                free_slot = s;
        } else if (s->id == id && memcmp(s->src, src, ZVS_ETH_ALEN) == 0) {
            return s;
        }
    }
    if (free_slot) {
        free_slot->used = true;
        free_slot->id = id;
        memcpy(free_slot->src, src, ZVS_ETH_ALEN);
        free_slot->next = 0;            /* STR streams start at sequence 0 */
    }
    return free_slot;                   /* NULL: table full, frame is not checked */
}

static void on_data(struct zvs_workload *w, const uint8_t *f)
{
    const uint8_t *h = f + ZVS_ETH_HLEN;
    uint64_t seq = get_be64(h + WL_OFF_SEQ);
    struct wl_stream *s = stream_find(w, f + ZVS_ETH_ALEN, zvs_be16(h + WL_OFF_ID));

    w->st.rx_data++;
    latency(w, get_be64(h + WL_OFF_TS));
    if (!s)
        return;
    if (seq == s->next) {
        s->next++;
    } else if (seq > s->next) {
        w->st.seq_errors++;
        w->st.seq_lost += seq - s->next;
        s->next = seq + 1;
    } else {
        w->st.seq_errors++;             /* from the past: reordered or repeated */
    }
}

static void on_request(struct zvs_workload *w, const uint8_t *f)
{
    const uint8_t *h = f + ZVS_ETH_HLEN;
    uint32_t want = get_be32(h + WL_OFF_WANT);
    uint32_t max_payload = w->stage_len - ZVS_ETH_HLEN;

    /* The receive budget keeps room for a whole buffer's frames (run_rx). */
    assert(w->rep_tail - w->rep_head < WL_REPLIES);
    struct wl_reply *r = &w->replies[w->rep_tail % WL_REPLIES];
    memcpy(r->dst, f + ZVS_ETH_ALEN, ZVS_ETH_ALEN);
    r->id = zvs_be16(h + WL_OFF_ID);
    r->seq = get_be64(h + WL_OFF_SEQ);
    r->ts = get_be64(h + WL_OFF_TS);
    if (want < ZVS_WL_PAYLOAD_MIN)
        want = ZVS_WL_PAYLOAD_MIN;
    if (want > max_payload)
        want = max_payload;
    r->len = ZVS_ETH_HLEN + want;
    w->rep_tail++;
    w->st.rx_requests++;
}

static void on_response(struct zvs_workload *w, const uint8_t *f, uint32_t len)
{
    const uint8_t *h = f + ZVS_ETH_HLEN;
    uint16_t id = zvs_be16(h + WL_OFF_ID);
    uint64_t seq = get_be64(h + WL_OFF_SEQ);

    w->st.rx_responses++;
    if (w->p.verify && len != ZVS_ETH_HLEN + w->p.rsp_len)
        w->st.rx_corrupt++;
    if (id >= w->p.threads || !w->threads[id].busy || w->threads[id].seq != seq) {
        w->st.seq_errors++;             /* stale, repeated or never asked for */
        return;
    }
    struct wl_thread *t = &w->threads[id];
    t->busy = false;
    latency(w, t->sent_at);
    w->idle[w->idle_tail++ % w->p.threads] = id;
    w->st.transactions++;
}

static void on_rx(void *arg, const struct zvs_qdio_rx *rx)
{
    struct zvs_workload *w = arg;
    uint8_t f[WL_FRAME_HDR];

    w->st.rx_frames++;
    w->st.rx_bytes += rx->len;
    if (rx->len < WL_FRAME_HDR || zvs_qdio_rx_copy(rx, f, sizeof(f)) != sizeof(f) ||
        zvs_be16(f + 12) != ZVS_WL_ETHERTYPE ||
        memcmp(f + ZVS_ETH_HLEN + WL_OFF_MAGIC, wl_magic, sizeof(wl_magic)) != 0) {
        w->st.rx_foreign++;
        return;
    }
    if (w->p.verify && !filler_ok(rx))
        w->st.rx_corrupt++;
    switch (f[ZVS_ETH_HLEN + WL_OFF_TYPE]) {
    case WL_DATA:
        on_data(w, f);
        break;
    case WL_REQ:
        if (w->p.kind == ZVS_WL_RR_SERVER)
            on_request(w, f);
        else
            w->st.rx_foreign++;
        break;
    case WL_RSP:
        if (w->p.kind == ZVS_WL_RR_CLIENT)
            on_response(w, f, rx->len);
        else
            w->st.rx_foreign++;
        break;
    default:
        w->st.rx_foreign++;
        break;
    }
}

static int run_rx(struct zvs_workload *w, int budget)
{
    if (w->paused)
        return 0;
    if (w->p.kind == ZVS_WL_RR_SERVER) {
        /* receive can pass the budget by one buffer's frames: keep room for them */
        int room = (int)(WL_REPLIES - (w->rep_tail - w->rep_head)) - ZVS_QDIO_NSBALE;
        if (room < budget)
            budget = room;
    }
    if (budget <= 0)
        return 0;
    return zvs_qdio_guest_receive(w->g, budget, on_rx, w);
}

/* ---- Send -------------------------------------------------------------------------- */

/* Send the n staged frames; returns how many went out (0 when the queue is full). */
static int send_staged(struct zvs_workload *w, int n)
{
    int rc = zvs_qdio_guest_send(w->g, w->pkts, n);

    if (rc < 0) {
        w->st.tx_blocked++;             /* -ENOBUFS, or -EIO from a broken adapter */
        return 0;
    }
    for (int i = 0; i < rc; i++)
        w->st.tx_bytes += w->pkts[i].len;
    w->st.tx_frames += (uint64_t)rc;
    if (rc < n)
        w->st.tx_blocked++;
    return rc;
}

static int min_int(int a, int b) { return a < b ? a : b; }

static int str_send(struct zvs_workload *w, uint64_t now, int budget)
{
    int sent = 0;

    while (sent < budget) {
        int n = min_int(budget - sent, ZVS_BATCH);
        if (w->p.count) {
            uint64_t left = w->p.count - w->next_seq;
            if (left == 0)
                break;
            if (left < (uint64_t)n)
                n = (int)left;
        }
        /* Read once: hdr_put's stores into the stage may alias w for the compiler, which
         * would load these again for every frame. */
        const uint32_t len = w->p.frame_len;
        const uint16_t stream = w->p.stream;
        const uint64_t seq = w->next_seq;
        for (int i = 0; i < n; i++) {
            hdr_put(stage_at(w, i), WL_DATA, stream, seq + (uint64_t)i, now, 0);
            w->pkts[i].len = len;
        }
        int k = send_staged(w, n);
        w->next_seq += (uint64_t)k;
        sent += k;
        if (k < n)
            break;
    }
    return sent;
}

static int client_send(struct zvs_workload *w, uint64_t now, int budget)
{
    int sent = 0;

    while (sent < budget) {
        int n = 0;
        uint32_t idle = w->idle_tail - w->idle_head;
        int max = min_int(budget - sent, ZVS_BATCH);

        while (n < max && (uint32_t)n < idle &&
               (w->p.count == 0 || w->started + (uint64_t)n < w->p.count)) {
            uint16_t id = w->idle[(w->idle_head + (uint32_t)n) % w->p.threads];
            hdr_put(stage_at(w, n), WL_REQ, id, w->threads[id].seq + 1, now, w->p.rsp_len);
            w->pkts[n].len = ZVS_ETH_HLEN + w->p.req_len;
            w->batch_ids[n] = id;
            n++;
        }
        if (n == 0)
            break;
        int k = send_staged(w, n);
        for (int i = 0; i < k; i++) {
            struct wl_thread *t = &w->threads[w->batch_ids[i]];
            t->busy = true;
            t->seq++;
            t->sent_at = now;
        }
        w->idle_head += (uint32_t)k;
        w->started += (uint64_t)k;
        sent += k;
        if (k < n)
            break;
    }
    return sent;
}

static int server_send(struct zvs_workload *w, uint64_t now, int budget)
{
    int sent = 0;

    while (sent < budget && w->rep_head != w->rep_tail) {
        int n = min_int(budget - sent, ZVS_BATCH);
        uint32_t waiting = w->rep_tail - w->rep_head;
        if ((uint32_t)n > waiting)
            n = (int)waiting;
        for (int i = 0; i < n; i++) {
            const struct wl_reply *r = &w->replies[(w->rep_head + (uint32_t)i) % WL_REPLIES];
            uint8_t *f = stage_at(w, i);
            memcpy(f, r->dst, ZVS_ETH_ALEN);
            hdr_put(f, WL_RSP, r->id, r->seq, r->ts, 0);
            w->pkts[i].len = r->len;
        }
        int k = send_staged(w, n);
        w->rep_head += (uint32_t)k;
        w->st.transactions += (uint64_t)k;
        sent += k;
        if (k < n)
            break;
    }
    (void)now;                          /* a response carries the request's time */
    return sent;
}

int zvs_workload_run(struct zvs_workload *w, uint64_t now, int budget)
{
    int rx, tx = 0;

    if (budget <= 0)
        return 0;
    w->now = now;
    rx = run_rx(w, budget);
    switch (w->p.kind) {
    case ZVS_WL_STR:
        tx = str_send(w, now, budget);
        break;
    case ZVS_WL_RR_CLIENT:
        tx = client_send(w, now, budget);
        break;
    case ZVS_WL_RR_SERVER:
        tx = server_send(w, now, budget);
        break;
    case ZVS_WL_SINK:
        break;
    }
    return rx + tx;
}

/* ---- Setup ------------------------------------------------------------------------- */

/* Check the parameters against the NIC and fill in defaults; -EINVAL when they do not fit. */
static int params_resolve(struct zvs_workload *w, uint32_t guest_max)
{
    struct zvs_workload_params *p = &w->p;
    uint32_t max_payload = w->frame_max - ZVS_ETH_HLEN;

    if (p->mac[0] & 1)
        return -EINVAL;                 /* a group address as source: the switch drops it */
    switch (p->kind) {
    case ZVS_WL_STR:
        if (p->frame_len == 0)
            p->frame_len = w->frame_max < ZVS_WL_FRAME_MAX ? w->frame_max : ZVS_WL_FRAME_MAX;
        if (p->frame_len < ZVS_WL_FRAME_MIN || p->frame_len > ZVS_WL_FRAME_MAX ||
            p->frame_len > w->frame_max)
            return -EINVAL;
        w->stage_len = p->frame_len;
        break;
    case ZVS_WL_RR_CLIENT:
        if (p->req_len == 0)
            p->req_len = ZVS_WL_REQ_DEFAULT;
        if (p->rsp_len == 0)
            p->rsp_len = ZVS_WL_RSP_DEFAULT;
        if (p->threads == 0)
            p->threads = 1;
        if (p->req_len < ZVS_WL_PAYLOAD_MIN || p->req_len > max_payload ||
            p->rsp_len < ZVS_WL_PAYLOAD_MIN || p->rsp_len > max_payload ||
            p->threads > ZVS_WL_MAX_THREADS)
            return -EINVAL;
        w->stage_len = ZVS_ETH_HLEN + p->req_len;
        break;
    case ZVS_WL_RR_SERVER:
        w->stage_len = w->frame_max;    /* a response is as long as its request asks */
        break;
    case ZVS_WL_SINK:
        w->stage_len = WL_FRAME_HDR;
        break;
    default:
        return -EINVAL;
    }
    if (p->pack && zvs_qdio_guest_set_pack(w->g, p->pack) < 0)
        return -EINVAL;
    assert(w->stage_len <= guest_max);
    return 0;
}

/* The adapter asks for SIGA-w by default; a polled switch does not need it. */
static void ac1_setup(struct zvs_qdio *q, bool siga)
{
    const struct zvs_qdio_shm_hdr *h = zvs_qdio_region(q);
    uint32_t ac1 = __atomic_load_n(&h->ac1, __ATOMIC_ACQUIRE);

    if (!siga)
        zvs_qdio_set_ac1(q, ac1 & ~ZVS_QDIO_AC1_SIGA_OUTPUT);
}

static int alloc_state(struct zvs_workload *w)
{
    w->stage_stride = (w->stage_len + 63) / 64 * 64;
    w->stage = aligned_alloc(64, (size_t)ZVS_BATCH * w->stage_stride);
    if (!w->stage)
        return -ENOMEM;
    if (w->p.kind == ZVS_WL_RR_CLIENT) {
        w->threads = calloc(w->p.threads, sizeof(*w->threads));
        w->idle = calloc(w->p.threads, sizeof(*w->idle));
        if (!w->threads || !w->idle)
            return -ENOMEM;
        for (uint32_t i = 0; i < w->p.threads; i++)
            w->idle[i] = (uint16_t)i;
        w->idle_tail = w->p.threads;
    }
    if (w->p.kind == ZVS_WL_RR_SERVER) {
        w->replies = calloc(WL_REPLIES, sizeof(*w->replies));
        if (!w->replies)
            return -ENOMEM;
    }
    return 0;
}

int zvs_workload_create(const struct zvs_workload_params *params, struct zvs_port *nic,
                        struct zvs_workload **out)
{
    struct zvs_workload *w = NULL;
    struct zvs_qdio *q;
    int rc = -EINVAL;

    *out = NULL;
    if (!params || !nic || !zvs_nic_qdio_is(nic))
        goto fail;
    q = zvs_nic_qdio_queues(nic);
    rc = -ENOMEM;
    w = calloc(1, sizeof(*w));
    if (!w)
        goto fail;
    w->p = *params;
    rc = zvs_qdio_guest_attach(zvs_qdio_region(q), zvs_qdio_size(q), zvs_qdio_siga_fd(q),
                               zvs_qdio_irq_fd(q), &w->g);
    if (rc < 0)
        goto fail;
    uint32_t guest_max = zvs_qdio_guest_max_frame(w->g);
    w->frame_max = nic->mtu + ZVS_ETH_HLEN;
    if (w->frame_max > guest_max)
        w->frame_max = guest_max;
    rc = params_resolve(w, guest_max);
    if (rc < 0)
        goto fail;
    rc = alloc_state(w);
    if (rc < 0)
        goto fail;
    rc = zvs_qdio_guest_init_queues(w->g);
    if (rc < 0)
        goto fail;
    ac1_setup(q, w->p.siga);
    stage_init(w);
    *out = w;
    return 0;
fail:
    zvs_workload_destroy(w);
    return rc;
}

void zvs_workload_destroy(struct zvs_workload *w)
{
    if (!w)
        return;
    zvs_qdio_guest_detach(w->g);
    free(w->stage);
    free(w->threads);
    free(w->idle);
    free(w->replies);
    free(w);
}

void zvs_workload_pause_rx(struct zvs_workload *w, bool paused)
{
    w->paused = paused;
}

void zvs_workload_stats(const struct zvs_workload *w, struct zvs_workload_stats *out)
{
    *out = w->st;
    out->lat_avg = w->st.lat_samples ? w->lat_sum / w->st.lat_samples : 0;
    switch (w->p.kind) {
    case ZVS_WL_STR:
        out->done = w->p.count && w->next_seq == w->p.count;
        break;
    case ZVS_WL_RR_CLIENT:
        out->in_flight = w->started - w->st.transactions;
        out->done = w->p.count && w->started == w->p.count && out->in_flight == 0;
        break;
    case ZVS_WL_RR_SERVER:
        out->in_flight = w->rep_tail - w->rep_head;
        break;
    case ZVS_WL_SINK:
        break;
    }
}

const char *zvs_workload_kind_name(enum zvs_workload_kind kind)
{
    switch (kind) {
    case ZVS_WL_STR:
        return "STR";
    case ZVS_WL_SINK:
        return "SINK";
    case ZVS_WL_RR_CLIENT:
        return "RR-CLIENT";
    case ZVS_WL_RR_SERVER:
        return "RR-SERVER";
    }
    return "?";
}
