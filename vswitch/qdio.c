/* QDIO queues: the shared region of a guest NIC and the adapter (switch) side.
 *
 * Owns: the region (memfd + MAP_SHARED mapping) and its layout, the two eventfds, the
 * frame-header codec, the buffer parser shared with the guest library, and the adapter's
 * private bookkeeping (which output buffers it holds, the input buffer it is filling).
 *
 * Rules:
 *  - The SLSB byte is the only hand-off. The adapter takes output buffers in state 0x62 and
 *    input buffers in 0x41, nothing else; it gives them back with a release store
 *    (0xA1 / 0xAF output, 0x82 / 0x8F input) after its last write to the SBAL or data.
 *  - Nothing the program wrote is trusted. Every SBALE is read once and checked before
 *    a byte behind it is touched; the entries of an input buffer are snapshot into
 *    adapter memory when the buffer is taken, so a program that rewrites them afterwards
 *    cannot steer a copy outside the data area.
 *  - The adapter's counters live in this process and are published to the region after
 *    every call, so the program can read them but not falsify what the switch reports.
 *  - Everything is allocated in zvs_qdio_create; polling, releasing and delivering only
 *    walk fixed arrays ([128][16] frame descriptors and iovecs for the output queue).
 *
 * Hazards: frame descriptors point into memory another process can still write (a
 * hostile guest may change bytes the switch already looked at). Consumers must not rely
 * on bytes staying equal between two reads; lengths are ours and always safe.
 */
#include "qdio.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

_Static_assert(sizeof(struct zvs_sbale) == 16, "SBALE is 16 bytes");
_Static_assert(sizeof(struct zvs_sbal) == 256, "SBAL is 16 SBALEs");
_Static_assert(sizeof(struct zvs_qdio_queue_shm) == 4096 + 128 * 256, "queue layout");
_Static_assert(sizeof(struct zvs_qdio_shm_hdr) <= ZVS_QDIO_HDR_SIZE, "header fits its page");
_Static_assert(ZVS_QDIO_DATA_OFF % 4096 == 0, "data area page aligned");

/* ---- Geometry --------------------------------------------------------------------- */

int zvs_qdio_check_queuestorage(uint32_t queuestorage)
{
    if (queuestorage < ZVS_QDIO_QS_MIN || queuestorage > ZVS_QDIO_QS_MAX ||
        queuestorage % ZVS_QDIO_MB != 0)
        return -EINVAL;
    return 0;
}

size_t zvs_qdio_region_size(uint32_t queuestorage)
{
    if (zvs_qdio_check_queuestorage(queuestorage) < 0)
        return 0;
    return (size_t)ZVS_QDIO_DATA_OFF + queuestorage;
}

/* ---- Frame header ------------------------------------------------------------------ */

void zvs_qdio_fhdr_encode(const struct zvs_qdio_fhdr *h, uint8_t out[ZVS_QDIO_FHDR_LEN])
{
    memset(out, 0, ZVS_QDIO_FHDR_LEN);
    out[0] = h->id;
    out[1] = h->flags[0];
    out[2] = h->flags[1];
    out[3] = h->flags[2];
    out[4] = h->port_no;
    out[5] = h->hdr_length;
    zvs_put_be16(out + 6, h->pkt_length);
    zvs_put_be16(out + 8, h->seq_no);
    zvs_put_be16(out + 10, h->vlan_id);
    /* 12..15 reserved; offload metadata in the 16 reserved bytes that follow */
    out[16] = h->vnet.flags;
    out[17] = h->vnet.gso_type;
    zvs_put_be16(out + 18, h->vnet.hdr_len);
    zvs_put_be16(out + 20, h->vnet.gso_size);
    zvs_put_be16(out + 22, h->vnet.csum_start);
    zvs_put_be16(out + 24, h->vnet.csum_offset);
}

static bool gso_type_known(uint8_t t)
{
    switch (t & (uint8_t)~ZVS_VNET_GSO_ECN) {
    case ZVS_VNET_GSO_NONE:
        return !(t & ZVS_VNET_GSO_ECN);
    case ZVS_VNET_GSO_TCPV4:
    case ZVS_VNET_GSO_UDP:
    case ZVS_VNET_GSO_TCPV6:
    case ZVS_VNET_GSO_UDP_L4:
        return true;
    default:
        return false;
    }
}

/* The checks a decoded header must pass; the sender runs them too, so a frame the
 * adapter would refuse never spoils the other frames of its buffer. */
static int fhdr_check(const struct zvs_qdio_fhdr *h)
{
    const struct zvs_vnet *v = &h->vnet;
    bool gso = v->gso_type != ZVS_VNET_GSO_NONE;

    if (h->hdr_length != ZVS_QDIO_FHDR_LEN || h->pkt_length == 0)
        return -EINVAL;
    if (h->id != (gso ? ZVS_QETH_HDR_L2_TSO : ZVS_QETH_HDR_LAYER2))
        return -EINVAL;
    if (v->flags & ~(ZVS_VNET_F_NEEDS_CSUM | ZVS_VNET_F_DATA_VALID))
        return -EINVAL;
    if (!gso_type_known(v->gso_type) || (gso && v->gso_size == 0))
        return -EINVAL;
    if ((v->flags & ZVS_VNET_F_NEEDS_CSUM) &&
        (uint32_t)v->csum_start + v->csum_offset + 2u > h->pkt_length)
        return -EINVAL;
    return 0;
}

int zvs_qdio_fhdr_decode(const uint8_t in[ZVS_QDIO_FHDR_LEN], struct zvs_qdio_fhdr *h)
{
    h->id = in[0];
    h->flags[0] = in[1];
    h->flags[1] = in[2];
    h->flags[2] = in[3];
    h->port_no = in[4];
    h->hdr_length = in[5];
    h->pkt_length = zvs_be16(in + 6);
    h->seq_no = zvs_be16(in + 8);
    h->vlan_id = zvs_be16(in + 10);
    h->vnet.flags = in[16];
    h->vnet.gso_type = in[17];
    h->vnet.hdr_len = zvs_be16(in + 18);
    h->vnet.gso_size = zvs_be16(in + 20);
    h->vnet.csum_start = zvs_be16(in + 22);
    h->vnet.csum_offset = zvs_be16(in + 24);
    return fhdr_check(h);
}

void zvs_qdio_fhdr_classify(struct zvs_qdio_fhdr *h, const uint8_t *eth, uint32_t len)
{
    static const uint8_t bcast[ZVS_ETH_ALEN] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

    h->flags[2] = 0;
    h->vlan_id = 0;
    if (len < ZVS_ETH_ALEN)
        return;
    if (memcmp(eth, bcast, ZVS_ETH_ALEN) == 0)
        h->flags[2] |= ZVS_QETH_L2_FLAG_BCAST;
    else if (eth[0] & 1)
        h->flags[2] |= ZVS_QETH_L2_FLAG_MCAST;
    else
        h->flags[2] |= ZVS_QETH_L2_FLAG_UCAST;
    /* z/VM's VSWITCH wants the VLAN in the header (Linux qeth_l2_fill_header). */
    if (len >= ZVS_ETH_HLEN + ZVS_VLAN_HLEN && zvs_be16(eth + 12) == ZVS_ETHERTYPE_VLAN) {
        h->flags[2] |= ZVS_QETH_L2_FLAG_VLAN;
        h->vlan_id = zvs_be16(eth + 14);
    }
}

/* ---- Buffer parser ----------------------------------------------------------------- */

static int parse_fail(uint16_t *sbalf, uint32_t entry, enum zvs_qdio_err reason)
{
    *sbalf = ZVS_QDIO_SBALF(entry, reason);
    return -EPROTO;
}

int zvs_qdio_sbal_parse(const struct zvs_qdio_geom *geo, const struct zvs_sbal *sbal,
                        struct iovec iov[ZVS_QDIO_NSBALE],
                        struct zvs_qdio_parsed fr[ZVS_QDIO_NSBALE], uint16_t *sbalf)
{
    uint32_t nfr = 0;
    uint32_t remaining = 0;             /* bytes of the open scattered frame still due */
    bool in_frame = false;

    assert(geo->buf_entries >= 1 && geo->buf_entries <= ZVS_QDIO_NSBALE);
    for (uint32_t e = 0; e < geo->buf_entries; e++) {
        uint32_t flags = __atomic_load_n(&sbal->e[e].flags, __ATOMIC_RELAXED);
        uint32_t len = __atomic_load_n(&sbal->e[e].length, __ATOMIC_RELAXED);
        uint64_t addr = __atomic_load_n(&sbal->e[e].addr, __ATOMIC_RELAXED);
        uint8_t raw[ZVS_QDIO_FHDR_LEN];
        struct zvs_qdio_fhdr h;

        if (addr > geo->data_size || len > geo->data_size - addr)
            return parse_fail(sbalf, e, ZVS_QDIO_ERR_ADDR);
        if (len > geo->entry_size)
            return parse_fail(sbalf, e, ZVS_QDIO_ERR_SIZE);
        if (len == 0)
            return parse_fail(sbalf, e, ZVS_QDIO_ERR_LEN);
        iov[e].iov_base = geo->data + addr;
        iov[e].iov_len = len;

        uint32_t frag = flags & ZVS_SBALE_FRAG_MASK;
        if (frag == ZVS_SBALE_FRAG_NONE || frag == ZVS_SBALE_FRAG_FIRST) {
            if (in_frame)
                return parse_fail(sbalf, e, ZVS_QDIO_ERR_FRAG);
            if (len < ZVS_QDIO_FHDR_LEN ||
                (frag == ZVS_SBALE_FRAG_FIRST && len < ZVS_QDIO_FHDR_LEN + ZVS_QDIO_MIN_FIRST_FRAG))
                return parse_fail(sbalf, e, frag == ZVS_SBALE_FRAG_FIRST ?
                                  ZVS_QDIO_ERR_SHORT : ZVS_QDIO_ERR_LEN);
            memcpy(raw, geo->data + addr, sizeof(raw));
            if (zvs_qdio_fhdr_decode(raw, &h) < 0)
                return parse_fail(sbalf, e, ZVS_QDIO_ERR_HDR);
            if (ZVS_QDIO_FHDR_LEN + (uint32_t)h.pkt_length > geo->buf_bytes)
                return parse_fail(sbalf, e, ZVS_QDIO_ERR_SIZE);
            uint32_t here = len - ZVS_QDIO_FHDR_LEN;
            if (frag == ZVS_SBALE_FRAG_NONE ? here != h.pkt_length : here >= h.pkt_length)
                return parse_fail(sbalf, e, ZVS_QDIO_ERR_LEN);
            iov[e].iov_base = geo->data + addr + ZVS_QDIO_FHDR_LEN;
            iov[e].iov_len = here;
            fr[nfr].hdr = h;
            fr[nfr].first = (uint8_t)e;
            fr[nfr].niov = 1;
            if (frag == ZVS_SBALE_FRAG_NONE) {
                nfr++;
            } else {
                remaining = h.pkt_length - here;
                in_frame = true;
            }
        } else {
            if (!in_frame)
                return parse_fail(sbalf, e, ZVS_QDIO_ERR_FRAG);
            if (frag == ZVS_SBALE_FRAG_MIDDLE ? len >= remaining : len != remaining)
                return parse_fail(sbalf, e, ZVS_QDIO_ERR_LEN);
            remaining -= len;
            fr[nfr].niov++;
            if (frag == ZVS_SBALE_FRAG_LAST) {
                in_frame = false;
                nfr++;
            }
        }
        if (flags & ZVS_SBALE_LAST_ENTRY) {
            if (in_frame)
                return parse_fail(sbalf, e, ZVS_QDIO_ERR_FRAG);
            return (int)nfr;
        }
    }
    return parse_fail(sbalf, geo->buf_entries - 1, ZVS_QDIO_ERR_NO_LAST);
}

void zvs_qdio_shm_counters(const struct zvs_qdio_shm_hdr *h, struct zvs_qdio_counters *out)
{
    const uint64_t *src = (const uint64_t *)&h->prog;
    uint64_t *dst = (uint64_t *)&out->prog;

    for (size_t i = 0; i < sizeof(out->prog) / sizeof(uint64_t); i++)
        dst[i] = zvs_ctr_read(&src[i]);
    src = (const uint64_t *)&h->adapter;
    dst = (uint64_t *)&out->adapter;
    for (size_t i = 0; i < sizeof(out->adapter) / sizeof(uint64_t); i++)
        dst[i] = zvs_ctr_read(&src[i]);
}

/* ---- Adapter side ---------------------------------------------------------------- */

struct zvs_qdio {
    int                        memfd;
    int                        siga_fd;     /* program -> adapter */
    int                        irq_fd;      /* adapter -> program */
    uint8_t                   *base;        /* region mapping */
    size_t                     size;
    struct zvs_qdio_shm_hdr   *hdr;
    struct zvs_qdio_queue_shm *inq;
    struct zvs_qdio_queue_shm *outq;
    struct zvs_qdio_geom       geo;
    struct zvs_qdio_adapter_counters ctr;   /* authoritative; published to hdr->adapter */

    /* Output queue (frames from the guest). */
    uint32_t         out_next;              /* next buffer to look at */
    int32_t          out_cur;               /* buffer whose frames are being handed out */
    uint8_t          out_cur_next;          /* next frame of out_cur to hand out */
    uint8_t          out_nframes[ZVS_QDIO_NBUFS];   /* frames parsed from a taken buffer */
    uint8_t          out_held[ZVS_QDIO_NBUFS];      /* its frames not released yet */
    struct zvs_frame out_fr[ZVS_QDIO_NBUFS][ZVS_QDIO_NSBALE];
    struct iovec     out_iov[ZVS_QDIO_NBUFS][ZVS_QDIO_NSBALE];
    struct zvs_qdio_parsed parsed[ZVS_QDIO_NSBALE]; /* scratch of one parse */

    /* Input queue (frames to the guest). */
    uint32_t         in_next;               /* next buffer to take */
    int32_t          in_cur;                /* buffer being filled, -1: none */
    uint32_t         in_entries;            /* entries the program gave it */
    uint32_t         in_used;               /* entries written */
    uint64_t         in_off[ZVS_QDIO_NSBALE];   /* snapshot of its entries: offset */
    uint32_t         in_cap[ZVS_QDIO_NSBALE];   /* ... and room */
    uint16_t         in_seq;                /* seq_no of the next delivered frame */
};

#define IN_MIN_ENTRY  64u   /* room an input entry must offer: header + 18 frame bytes */

static void publish_counters(struct zvs_qdio *q)
{
    const uint64_t *src = (const uint64_t *)&q->ctr;
    uint64_t *dst = (uint64_t *)&q->hdr->adapter;

    for (size_t i = 0; i < sizeof(q->ctr) / sizeof(uint64_t); i++)
        __atomic_store_n(&dst[i], src[i], __ATOMIC_RELAXED);
}

static void init_header(struct zvs_qdio *q, uint32_t queuestorage)
{
    struct zvs_qdio_shm_hdr *h = q->hdr;

    h->magic = ZVS_QDIO_MAGIC;
    h->version = ZVS_QDIO_VERSION;
    h->nbufs = ZVS_QDIO_NBUFS;
    h->hdr_size = ZVS_QDIO_HDR_SIZE;
    h->nsbale = ZVS_QDIO_NSBALE;
    h->entry_size = ZVS_QDIO_ENTRY_SIZE;
    h->buf_bytes = queuestorage / (2 * ZVS_QDIO_NBUFS);
    h->queuestorage = queuestorage;
    h->region_size = q->size;
    h->in_q_off = ZVS_QDIO_IN_Q_OFF;
    h->out_q_off = ZVS_QDIO_OUT_Q_OFF;
    h->data_off = ZVS_QDIO_DATA_OFF;
    __atomic_store_n(&h->ac1, ZVS_QDIO_AC1_SIGA_OUTPUT, __ATOMIC_RELEASE);
    __atomic_store_n(&h->irq_armed, 0, __ATOMIC_RELEASE);
    for (uint32_t b = 0; b < ZVS_QDIO_NBUFS; b++) {
        zvs_slsb_set(&q->inq->slsb[b], ZVS_SLSB_P_INPUT_NOT_INIT);
        zvs_slsb_set(&q->outq->slsb[b], ZVS_SLSB_P_OUTPUT_NOT_INIT);
    }
}

int zvs_qdio_create(uint32_t queuestorage, struct zvs_qdio **out)
{
    struct zvs_qdio *q = NULL;
    int rc;

    *out = NULL;
    if (zvs_qdio_check_queuestorage(queuestorage) < 0)
        return -EINVAL;
    q = calloc(1, sizeof(*q));
    if (!q)
        return -ENOMEM;
    q->memfd = q->siga_fd = q->irq_fd = -1;
    q->base = MAP_FAILED;
    q->size = zvs_qdio_region_size(queuestorage);
    q->memfd = memfd_create("zvs-qdio", MFD_CLOEXEC);
    q->siga_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    q->irq_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (q->memfd < 0 || q->siga_fd < 0 || q->irq_fd < 0 ||
        ftruncate(q->memfd, (off_t)q->size) < 0) {
        rc = -errno;
        goto fail;
    }
    q->base = mmap(NULL, q->size, PROT_READ | PROT_WRITE, MAP_SHARED, q->memfd, 0);
    if (q->base == MAP_FAILED) {
        rc = -errno;
        goto fail;
    }
    q->hdr = zvs_qdio_at(q->base, 0);
    q->inq = zvs_qdio_at(q->base, ZVS_QDIO_IN_Q_OFF);
    q->outq = zvs_qdio_at(q->base, ZVS_QDIO_OUT_Q_OFF);
    q->geo.data = q->base + ZVS_QDIO_DATA_OFF;
    q->geo.data_size = queuestorage;
    q->geo.entry_size = ZVS_QDIO_ENTRY_SIZE;
    q->geo.buf_bytes = queuestorage / (2 * ZVS_QDIO_NBUFS);
    q->geo.buf_entries = q->geo.buf_bytes / ZVS_QDIO_ENTRY_SIZE;
    if (q->geo.buf_entries > ZVS_QDIO_NSBALE)
        q->geo.buf_entries = ZVS_QDIO_NSBALE;
    q->out_cur = -1;
    q->in_cur = -1;
    init_header(q, queuestorage);
    *out = q;
    return 0;
fail:
    zvs_qdio_destroy(q);
    return rc;
}

void zvs_qdio_destroy(struct zvs_qdio *q)
{
    if (!q)
        return;
    if (q->base != MAP_FAILED)
        munmap(q->base, q->size);
    if (q->memfd >= 0)
        close(q->memfd);
    if (q->siga_fd >= 0)
        close(q->siga_fd);
    if (q->irq_fd >= 0)
        close(q->irq_fd);
    free(q);
}

int zvs_qdio_memfd(const struct zvs_qdio *q) { return q->memfd; }
int zvs_qdio_siga_fd(const struct zvs_qdio *q) { return q->siga_fd; }
int zvs_qdio_irq_fd(const struct zvs_qdio *q) { return q->irq_fd; }
void *zvs_qdio_region(const struct zvs_qdio *q) { return q->base; }
size_t zvs_qdio_size(const struct zvs_qdio *q) { return q->size; }

void zvs_qdio_set_ac1(struct zvs_qdio *q, uint32_t ac1)
{
    __atomic_store_n(&q->hdr->ac1, ac1 & (ZVS_QDIO_AC1_SIGA_INPUT | ZVS_QDIO_AC1_SIGA_OUTPUT),
                     __ATOMIC_RELEASE);
}

uint64_t zvs_qdio_siga_ack(struct zvs_qdio *q)
{
    uint64_t v = 0;

    if (read(q->siga_fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
        return 0;                       /* EAGAIN: nothing signalled */
    return v;
}

void zvs_qdio_counters(const struct zvs_qdio *q, struct zvs_qdio_counters *out)
{
    zvs_qdio_shm_counters(q->hdr, out);
    out->adapter = q->ctr;
}

/* ---- Output queue: guest -> switch ---------------------------------------------------- */

/* Frame flags the switch can use without reading the bytes again. */
static uint8_t classify_frame(const struct zvs_frame *f, uint8_t *pcp)
{
    const uint8_t *d = f->data;         /* holds min(len, 18) bytes at least */
    uint8_t fl = 0;

    *pcp = 0;
    if (f->len < ZVS_ETH_MIN_LEN)
        return 0;                       /* runt: the switch counts it */
    if (d[0] & 1) {
        fl |= ZVS_FF_MCAST;
        if ((d[0] & d[1] & d[2] & d[3] & d[4] & d[5]) == 0xff)
            fl |= ZVS_FF_BCAST;
    }
    uint16_t type = zvs_be16(d + 12);
    if (type == ZVS_ETHERTYPE_VLAN && f->len >= ZVS_ETH_HLEN + ZVS_VLAN_HLEN) {
        fl |= ZVS_FF_TAGGED;
        *pcp = (uint8_t)(d[14] >> 5);
    } else if (type == ZVS_ETHERTYPE_SLOW) {
        fl |= ZVS_FF_SLOW;
    }
    return fl;
}

static void out_refuse(struct zvs_qdio *q, uint32_t b, uint16_t sbalf)
{
    q->outq->sbalf[b] = sbalf;
    q->ctr.out_errors++;
    zvs_slsb_set(&q->outq->slsb[b], ZVS_SLSB_P_OUTPUT_ERROR);
}

/* Turn the parsed frames of buffer b into descriptors in adapter memory. */
static void out_build(struct zvs_qdio *q, uint32_t b, int nfr, uint16_t in_port)
{
    for (int i = 0; i < nfr; i++) {
        const struct zvs_qdio_parsed *p = &q->parsed[i];
        struct zvs_frame *f = &q->out_fr[b][i];

        memset(f, 0, sizeof(*f));
        f->data = q->out_iov[b][p->first].iov_base;
        f->len = p->hdr.pkt_length;
        f->nfrags = p->niov > 1 ? p->niov : 0;
        f->frags = p->niov > 1 ? &q->out_iov[b][p->first] : NULL;
        f->vnet = p->hdr.vnet;
        f->in_port = in_port;
        f->vid = ZVS_VID_NONE;
        f->flags = classify_frame(f, &f->pcp);
        f->cookie = (uint64_t)b << 8 | (uint64_t)i;
    }
    q->out_nframes[b] = (uint8_t)nfr;
    q->out_held[b] = (uint8_t)nfr;
    q->out_cur = (int32_t)b;
    q->out_cur_next = 0;
}

/* Take the next primed output buffer that parses; refused ones go back as 0xAF. */
static bool out_take(struct zvs_qdio *q, uint16_t in_port)
{
    for (;;) {
        uint32_t b = q->out_next;
        uint16_t sbalf = 0;

        /* Wrapped around to a buffer the switch still holds frames of: it is 0x62
         * because it is ours, not because the program primed it again. */
        if (q->out_held[b] > 0)
            return false;
        if (zvs_slsb_get(&q->outq->slsb[b]) != ZVS_SLSB_CU_OUTPUT_PRIMED)
            return false;
        q->out_next = (b + 1) % ZVS_QDIO_NBUFS;
        int nfr = zvs_qdio_sbal_parse(&q->geo, &q->outq->sbal[b], q->out_iov[b],
                                      q->parsed, &sbalf);
        if (nfr < 0) {
            out_refuse(q, b, sbalf);
            continue;
        }
        out_build(q, b, nfr, in_port);
        return true;
    }
}

int zvs_qdio_poll_output(struct zvs_qdio *q, struct zvs_frame *out, int max, uint16_t in_port)
{
    int n = 0;

    while (n < max) {
        if (q->out_cur < 0 && !out_take(q, in_port))
            break;
        uint32_t b = (uint32_t)q->out_cur;
        while (n < max && q->out_cur_next < q->out_nframes[b]) {
            const struct zvs_frame *f = &q->out_fr[b][q->out_cur_next++];
            out[n++] = *f;
            q->ctr.out_frames++;
            q->ctr.out_bytes += f->len;
        }
        if (q->out_cur_next == q->out_nframes[b])
            q->out_cur = -1;
    }
    publish_counters(q);
    return n;
}

void zvs_qdio_release(struct zvs_qdio *q, const struct zvs_frame *frames, int n)
{
    for (int i = 0; i < n; i++) {
        uint64_t b = frames[i].cookie >> 8;

        assert(b < ZVS_QDIO_NBUFS && q->out_held[b] > 0);
        if (b >= ZVS_QDIO_NBUFS || q->out_held[b] == 0)
            continue;                   /* not ours: never hand a buffer back twice */
        if (--q->out_held[b] == 0) {
            q->outq->sbalf[b] = 0;
            zvs_slsb_set(&q->outq->slsb[b], ZVS_SLSB_P_OUTPUT_EMPTY);
            q->ctr.out_bufs_processed++;
        }
    }
    publish_counters(q);
}

/* ---- Input queue: switch -> guest --------------------------------------------------- */

/* A tag edit needs the bytes it edits. */
static bool tag_op_possible(const struct zvs_frame *f, enum zvs_tag_op op)
{
    switch (op) {
    case ZVS_TAG_KEEP:
        return f->len > 0;
    case ZVS_TAG_PUSH:
        return f->len >= 12;
    case ZVS_TAG_STRIP:
    case ZVS_TAG_REWRITE:
        return f->len >= 16;            /* MAC addresses + the tag they edit */
    }
    return false;
}

/* Take the next empty input buffer, snapshotting the entries the program prepared. A
 * buffer whose entries leave the data area or are too small is refused (0x8F). */
static bool in_take(struct zvs_qdio *q)
{
    for (;;) {
        uint32_t b = q->in_next;
        const struct zvs_sbal *s = &q->inq->sbal[b];
        uint32_t n = 0;
        uint16_t sbalf = 0;
        bool last = false;

        if (zvs_slsb_get(&q->inq->slsb[b]) != ZVS_SLSB_CU_INPUT_EMPTY)
            return false;
        q->in_next = (b + 1) % ZVS_QDIO_NBUFS;
        while (n < q->geo.buf_entries && !last && sbalf == 0) {
            uint32_t flags = __atomic_load_n(&s->e[n].flags, __ATOMIC_RELAXED);
            uint32_t cap = __atomic_load_n(&s->e[n].length, __ATOMIC_RELAXED);
            uint64_t addr = __atomic_load_n(&s->e[n].addr, __ATOMIC_RELAXED);

            if (addr > q->geo.data_size || cap > q->geo.data_size - addr)
                sbalf = ZVS_QDIO_SBALF(n, ZVS_QDIO_ERR_ADDR);
            else if (cap < IN_MIN_ENTRY || cap > q->geo.entry_size)
                sbalf = ZVS_QDIO_SBALF(n, ZVS_QDIO_ERR_SIZE);
            q->in_off[n] = addr;
            q->in_cap[n] = cap;
            last = flags & ZVS_SBALE_LAST_ENTRY;
            n++;
        }
        if (sbalf == 0 && !last)
            sbalf = ZVS_QDIO_SBALF(n - 1, ZVS_QDIO_ERR_NO_LAST);
        if (sbalf != 0) {
            q->inq->sbalf[b] = sbalf;
            q->ctr.in_bad_bufs++;
            zvs_slsb_set(&q->inq->slsb[b], ZVS_SLSB_P_INPUT_ERROR);
            continue;
        }
        q->in_cur = (int32_t)b;
        q->in_entries = n;
        q->in_used = 0;
        return true;
    }
}

/* Entries a frame of len bytes needs from the current buffer's next free entry, or 0 when
 * the rest of the buffer cannot hold it. */
static uint32_t in_entries_needed(const struct zvs_qdio *q, uint32_t len)
{
    uint32_t need = ZVS_QDIO_FHDR_LEN + len;
    uint32_t have = 0;

    for (uint32_t e = q->in_used; e < q->in_entries; e++) {
        have += q->in_cap[e];
        if (have >= need)
            return e - q->in_used + 1;
    }
    return 0;
}

static void in_prime(struct zvs_qdio *q)
{
    uint32_t b = (uint32_t)q->in_cur;

    assert(q->in_cur >= 0 && q->in_used > 0);
    q->inq->sbal[b].e[q->in_used - 1].flags |= ZVS_SBALE_LAST_ENTRY;
    q->inq->sbalf[b] = 0;
    zvs_slsb_set(&q->inq->slsb[b], ZVS_SLSB_P_INPUT_PRIMED);
    q->ctr.in_bufs_primed++;
    q->in_cur = -1;
}

/* Copy the bytes described by src into dst pieces; both lists hold exactly `len` bytes. */
static void scatter_copy(const struct iovec *src, int ns, const struct iovec *dst, int nd)
{
    int si = 0, di = 0;
    size_t soff = 0, doff = 0;

    while (si < ns && di < nd) {
        size_t s_left = src[si].iov_len - soff;
        size_t d_left = dst[di].iov_len - doff;
        size_t take = s_left < d_left ? s_left : d_left;

        memcpy((uint8_t *)dst[di].iov_base + doff, (const uint8_t *)src[si].iov_base + soff,
               take);
        soff += take;
        doff += take;
        if (soff == src[si].iov_len) {
            si++;
            soff = 0;
        }
        if (doff == dst[di].iov_len) {
            di++;
            doff = 0;
        }
    }
}

/* Write one frame (header + bytes after the tag edit) into `need` entries of the current
 * input buffer, from its next free entry. */
static void in_write(struct zvs_qdio *q, const struct zvs_tx *t, struct zvs_qdio_fhdr *h,
                     uint32_t need)
{
    struct iovec src[ZVS_MAX_FRAGS + 2];
    struct iovec dst[ZVS_QDIO_NSBALE];
    struct zvs_sbal *s = &q->inq->sbal[q->in_cur];
    uint8_t tag[4];
    uint32_t left = h->pkt_length;
    uint32_t e0 = q->in_used;

    int ns = zvs_frame_iov(t->f, (enum zvs_tag_op)t->tag_op, t->vid, tag, src,
                           ZVS_MAX_FRAGS + 2);
    assert(ns > 0);
    for (uint32_t k = 0; k < need; k++) {
        uint32_t e = e0 + k;
        uint32_t skip = k == 0 ? ZVS_QDIO_FHDR_LEN : 0;
        uint32_t room = q->in_cap[e] - skip;
        uint32_t take = left < room ? left : room;
        uint32_t frag = need == 1 ? ZVS_SBALE_FRAG_NONE
                        : k == 0 ? ZVS_SBALE_FRAG_FIRST
                        : k == need - 1 ? ZVS_SBALE_FRAG_LAST : ZVS_SBALE_FRAG_MIDDLE;

        dst[k].iov_base = q->geo.data + q->in_off[e] + skip;
        dst[k].iov_len = take;
        left -= take;
        s->e[e].addr = q->in_off[e];
        s->e[e].length = take + skip;
        s->e[e].flags = frag;
    }
    assert(left == 0);
    scatter_copy(src, ns, dst, (int)need);
    /* flags[2] and vlan_id from the bytes as written: the first entry holds >= 18 */
    zvs_qdio_fhdr_classify(h, dst[0].iov_base, h->pkt_length);
    zvs_qdio_fhdr_encode(h, q->geo.data + q->in_off[e0]);
    q->in_used += need;
}

static void raise_irq(struct zvs_qdio *q)
{
    uint64_t one = 1;

    /* Pairs with the fence in the program's arm: either it sees our primed buffer or we
     * see its armed word. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (__atomic_load_n(&q->hdr->irq_armed, __ATOMIC_RELAXED) == 0)
        return;
    if (__atomic_exchange_n(&q->hdr->irq_armed, 0, __ATOMIC_SEQ_CST) == 0)
        return;
    if (write(q->irq_fd, &one, sizeof(one)) < 0) {
        /* counter saturated: the program has an interrupt pending anyway */
    }
    q->ctr.interrupts++;
}

/* Record a discard reason; running out of buffers is what the switch must hear about. */
static void note_drop(enum zvs_drop *w, enum zvs_drop why)
{
    if (*w == ZVS_DROP__COUNT || why == ZVS_DROP_NO_BUFFER)
        *w = why;
}

int zvs_qdio_deliver(struct zvs_qdio *q, const struct zvs_tx *txs, int n, enum zvs_drop *why)
{
    enum zvs_drop w = ZVS_DROP__COUNT;
    bool primed = false;
    bool full = false;                  /* no empty input buffer: the rest is discarded */
    int done = 0;

    for (int i = 0; i < n; i++) {
        const struct zvs_tx *t = &txs[i];
        enum zvs_tag_op op = (enum zvs_tag_op)t->tag_op;
        struct zvs_qdio_fhdr h;

        if (full) {
            q->ctr.iq_full++;
            continue;
        }
        if (!tag_op_possible(t->f, op)) {
            note_drop(&w, ZVS_DROP_TX_FAIL);
            continue;
        }
        uint32_t len = zvs_frame_out_len(t->f, op);
        if (ZVS_QDIO_FHDR_LEN + len > q->geo.buf_bytes || len > UINT16_MAX) {
            q->ctr.in_oversize++;
            note_drop(&w, ZVS_DROP_OVERSIZE);
            continue;
        }
        memset(&h, 0, sizeof(h));
        h.vnet = zvs_frame_vnet_after_op(t->f, op);
        h.id = h.vnet.gso_type != ZVS_VNET_GSO_NONE ? ZVS_QETH_HDR_L2_TSO : ZVS_QETH_HDR_LAYER2;
        h.hdr_length = ZVS_QDIO_FHDR_LEN;
        h.pkt_length = (uint16_t)len;
        if (fhdr_check(&h) < 0) {
            note_drop(&w, ZVS_DROP_TX_FAIL);    /* metadata the guest would refuse */
            continue;
        }
        if (q->in_cur < 0 && !in_take(q)) {
            q->ctr.iq_full++;
            note_drop(&w, ZVS_DROP_NO_BUFFER);
            full = true;
            continue;
        }
        uint32_t need = in_entries_needed(q, len);
        if (need == 0 && q->in_used > 0) {
            in_prime(q);                /* full for this frame: hand it over, take the next */
            primed = true;
            if (!in_take(q)) {
                q->ctr.iq_full++;
                note_drop(&w, ZVS_DROP_NO_BUFFER);
                full = true;
                continue;
            }
            need = in_entries_needed(q, len);
        }
        if (need == 0) {
            q->ctr.in_oversize++;       /* the program offered less room than its share */
            note_drop(&w, ZVS_DROP_OVERSIZE);
            continue;
        }
        h.seq_no = q->in_seq++;
        in_write(q, t, &h, need);
        q->ctr.in_frames++;
        q->ctr.in_bytes += len;
        done++;
        if (q->in_used == q->in_entries) {
            in_prime(q);
            primed = true;
        }
    }
    if (q->in_cur >= 0 && q->in_used > 0) {
        in_prime(q);
        primed = true;
    }
    /* A buffer taken but left empty (nothing fit) stays ours for the next burst. */
    if (primed)
        raise_irq(q);
    publish_counters(q);
    if (done < n)
        *why = w;
    return done;
}
