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
 *  - Nothing the program wrote is trusted. Every SBALE is read once by a walk and checked
 *    before a byte behind it is touched (a fast pass that gives up discards what it read:
 *    the full walk reads anew and alone decides); the entries of an input buffer are
 *    snapshot into adapter memory when the buffer is taken, so a program that rewrites
 *    them afterwards cannot steer a copy outside the data area.
 *  - The checks are the buffer rules of qdio.h only (entries inside the data area, 16 at
 *    most, 64 KB at most together, fragments, headers), never the guest library's layout
 *    policy (which 64 KB page set a buffer uses, how many buffers it arms): a program may
 *    lay out its QUEUESTORAGE as it likes, and only its own frames suffer if its buffers
 *    overlap. An input queue is full when the next buffer in ring order is not 0x41,
 *    however many buffers the program chose to arm.
 *  - The adapter's counters live in this process and are published to the region by
 *    every call that changes them, so the program can read them but not falsify what the
 *    switch reports.
 *  - Everything is allocated in zvs_qdio_create; polling, releasing and delivering only
 *    walk fixed arrays ([128][16] iovecs for the output queue; descriptors are built once,
 *    straight into the caller's array).
 *  - Output fast path (the core benchmark's): a buffer holds up to 16 frames (packing
 *    mode, qdio_guest.h), so the SLSB hand-over is paid once per 16 small frames; a plain
 *    layer-2 header without offload metadata is checked with two word compares
 *    (fhdr_read), and the frame flags are left to the switch, which classifies anyway.
 *    A buffer of such whole frames takes one pass of fewer compares (out_walk_plain) that
 *    accepts exactly what the full walk accepts, and hands anything else to that walk.
 *    Release updates a buffer's count once for its frames in a row, not once a frame,
 *    and releasing exactly what the last poll handed out (zvs_switch_poll's burst) takes
 *    the buffers from that poll's record without reading the frames.
 *  - Input take (the scale benchmark's: at 1,000 guests every frame takes a buffer of its
 *    own): in_snapshot_plain reads the 16 entries into the snapshot with one OR a field
 *    and no test but the last-entry flag, and accepts exactly buffers in_snapshot
 *    accepts; anything else is read anew by in_snapshot, which alone decides and names
 *    the bad entry.
 *
 * Hazards: frame descriptors point into memory another process can still write (a
 * hostile guest may change bytes the switch already looked at). Consumers must not rely
 * on bytes staying equal between two reads; lengths are ours and always safe.
 */
#include "qdio/qdio.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

_Static_assert(sizeof(struct zvs_sbale) == 16, "SBALE is 16 bytes");
_Static_assert(sizeof(struct zvs_sbal) == 256, "SBAL is 16 SBALEs");
_Static_assert(sizeof(struct zvs_qdio_queue_shm) == 4096 + ZVS_QDIO_NBUFS * sizeof(struct zvs_sbal),
               "queue layout: SLSB page, then the SBALs");
_Static_assert(ZVS_QDIO_BUF_MAX == 65536, "a buffer holds 16 entries of 4 KB");
_Static_assert(ZVS_QDIO_FRAME_MAX <= UINT16_MAX, "pkt_length holds the largest frame");
_Static_assert(sizeof(struct zvs_qdio_shm_hdr) <= ZVS_QDIO_HDR_SIZE, "header fits its page");
_Static_assert(ZVS_QDIO_DATA_OFF % 4096 == 0, "data area page aligned");
_Static_assert(ZVS_QDIO_QS_MAX <= UINT32_MAX && ZVS_QDIO_ENTRY_SIZE <= UINT16_MAX,
               "an input entry's offset and room fit the snapshot's 32 and 16 bits");

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
int zvs_qdio_fhdr_check(const struct zvs_qdio_fhdr *h)
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
    h->vnet.tnl_outer_th = 0;           /* no UDP tunnel frames on a QDIO queue */
    h->vnet.tnl_inner_nh = 0;
    return zvs_qdio_fhdr_check(h);
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

/* Header bytes 0..7 loaded as one little-endian word: the bytes a reader checks besides
 * pkt_length (0: id, 5: hdr_length) and their values in a plain layer-2 header. */
#define FHDR_W0_CHECKED   0x0000FF00000000FFull
#define FHDR_W0_PLAIN     (0x0000200000000000ull | ZVS_QETH_HDR_LAYER2)

/* Check the header at `raw` and read what a reader needs: *pkt_len, *vnet and, when h is
 * not NULL, every field into h. The common case, a plain layer-2 frame without offload
 * metadata, is one load and compare of the checked bytes plus one of the metadata words:
 * such a header cannot fail any other check (no GSO, no partial checksum). Each byte is
 * read once, before it is checked. 0 or -EINVAL. */
static inline int fhdr_read(const uint8_t *raw, uint16_t *pkt_len, struct zvs_vnet *vnet,
                            struct zvs_qdio_fhdr *h)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t w0, w2;
    uint16_t w3;

    memcpy(&w0, raw, 8);
    memcpy(&w2, raw + 16, 8);           /* vnet flags, gso_type, hdr_len, gso_size, csum_start */
    memcpy(&w3, raw + 24, 2);           /* csum_offset */
    if (__builtin_expect((w0 & FHDR_W0_CHECKED) == FHDR_W0_PLAIN && (w2 | w3) == 0, 1)) {
        *pkt_len = __builtin_bswap16((uint16_t)(w0 >> 48));        /* bytes 6..7 */
        memset(vnet, 0, sizeof(*vnet));
        if (h) {
            h->id = ZVS_QETH_HDR_LAYER2;
            h->flags[0] = (uint8_t)(w0 >> 8);
            h->flags[1] = (uint8_t)(w0 >> 16);
            h->flags[2] = (uint8_t)(w0 >> 24);
            h->port_no = (uint8_t)(w0 >> 32);
            h->hdr_length = ZVS_QDIO_FHDR_LEN;
            h->pkt_length = *pkt_len;
            h->seq_no = zvs_be16(raw + 8);
            h->vlan_id = zvs_be16(raw + 10);
            h->vnet = *vnet;
        }
        return *pkt_len != 0 ? 0 : -EINVAL;
    }
#endif
    struct zvs_qdio_fhdr tmp;
    struct zvs_qdio_fhdr *d = h ? h : &tmp;
    int rc = zvs_qdio_fhdr_decode(raw, d);
    *pkt_len = d->pkt_length;
    *vnet = d->vnet;
    return rc;
}

/* Where sbal_walk puts the frames it finds: zvs_qdio_parsed records (parsed != NULL), or
 * switch frame descriptors (frames != NULL), built in place: the adapter's output path
 * writes each descriptor once, nothing is decoded twice or copied afterwards. */
struct walk_sink {
    struct zvs_qdio_parsed *parsed;
    struct zvs_frame       *frames;
    uint64_t                cookie;     /* frames: buffer << 8; frame i gets cookie | i */
    uint16_t                in_port;    /* frames: their ingress port */
};

/* What the walk knows between entries. */
struct walk {
    uint32_t nfr;                       /* frames complete so far */
    uint32_t remaining;                 /* bytes of the open scattered frame still due */
    uint32_t first;                     /* entry of the open frame's header */
    uint64_t total;                     /* bytes of all entries so far: within buf_bytes */
    bool     in_frame;                  /* a first fragment seen, its last one not yet */
};

/* The buffer rules of qdio.h, one predicate each, true when an entry breaks the rule.
 * An entry is checked against them in the order below; the first it breaks names the
 * entry and the reason in SBALF. */

/* Every entry: inside the data area (addr first, so data_size - addr cannot wrap). */
static inline bool entry_outside_data_area(const struct zvs_qdio_geom *geo, uint64_t addr,
                                           uint32_t len)
{
    return addr > geo->data_size || len > geo->data_size - addr;
}

/* Every entry: 1 to entry_size bytes. len - 1 wraps to UINT32_MAX for 0, so one compare
 * covers both ends; entry_empty tells which end (ZVS_QDIO_ERR_LEN or _SIZE). Two compares
 * here cost the core benchmark 3 instructions a frame. */
static inline bool entry_length_out_of_range(const struct zvs_qdio_geom *geo, uint32_t len)
{
    return len - 1u >= geo->entry_size;
}

static inline bool entry_empty(uint32_t len)
{
    return len == 0;
}

/* The entries so far together within the buffer's bytes. */
static inline bool entries_over_buffer(const struct zvs_qdio_geom *geo, uint64_t total)
{
    return total > geo->buf_bytes;
}

/* A frame's first entry: fragment "none" (the whole frame) or "first". */
static inline bool starts_frame(uint32_t frag)
{
    return frag == ZVS_SBALE_FRAG_NONE || frag == ZVS_SBALE_FRAG_FIRST;
}

/* Fragment order: a frame starts only after the previous one ended; a middle or last
 * fragment only continues an open one. */
static inline bool fragment_out_of_order(const struct walk *w, uint32_t frag)
{
    return starts_frame(frag) ? w->in_frame : !w->in_frame;
}

/* A frame's first entry holds its header; a first fragment also holds
 * ZVS_QDIO_MIN_FIRST_FRAG frame bytes, so the switch parses a scattered frame's headers
 * from its first piece (ZVS_QDIO_ERR_SHORT; a whole frame's entry: ZVS_QDIO_ERR_LEN). */
static inline bool header_entry_short(uint32_t frag, uint32_t len)
{
    return len < ZVS_QDIO_FHDR_LEN ||
           (frag == ZVS_SBALE_FRAG_FIRST && len < ZVS_QDIO_FHDR_LEN + ZVS_QDIO_MIN_FIRST_FRAG);
}

/* Header and frame together fit one buffer. */
static inline bool frame_over_buffer(const struct zvs_qdio_geom *geo, uint16_t pkt_len)
{
    return ZVS_QDIO_FHDR_LEN + (uint32_t)pkt_len > geo->buf_bytes;
}

/* A whole frame's entry holds exactly pkt_length bytes after the header. */
static inline bool whole_frame_length_wrong(uint32_t here, uint16_t pkt_len)
{
    return here != pkt_len;
}

/* A first fragment holds part of the frame, not all of it. */
static inline bool first_fragment_holds_frame(uint32_t here, uint16_t pkt_len)
{
    return here >= pkt_len;
}

/* A middle fragment leaves bytes for the last one. */
static inline bool middle_fragment_ends_frame(uint32_t len, uint32_t remaining)
{
    return len >= remaining;
}

/* A last fragment brings exactly the bytes still due. */
static inline bool last_fragment_length_wrong(uint32_t len, uint32_t remaining)
{
    return len != remaining;
}

/* The buffer's last entry does not leave a frame open. */
static inline bool buffer_ends_inside_frame(const struct walk *w)
{
    return w->in_frame;
}

/* The entry that starts frame w->nfr: its header (into the parsed record, when that is
 * the sink) and its bytes in iov[e]. 0 or -EPROTO. */
static inline __attribute__((always_inline))
int frame_start(const struct zvs_qdio_geom *geo, uint32_t e, uint32_t frag, uint32_t len,
                uint64_t addr, struct walk *w, struct iovec iov[ZVS_QDIO_NSBALE],
                const struct walk_sink *out, uint16_t *sbalf)
{
    uint16_t pkt_len;
    struct zvs_vnet vnet;

    if (header_entry_short(frag, len))
        return parse_fail(sbalf, e, frag == ZVS_SBALE_FRAG_FIRST ? ZVS_QDIO_ERR_SHORT
                                                                : ZVS_QDIO_ERR_LEN);
    if (fhdr_read(geo->data + addr, &pkt_len, &vnet,
                  out->parsed ? &out->parsed[w->nfr].hdr : NULL) < 0)
        return parse_fail(sbalf, e, ZVS_QDIO_ERR_HDR);
    if (frame_over_buffer(geo, pkt_len))
        return parse_fail(sbalf, e, ZVS_QDIO_ERR_SIZE);
    uint32_t here = len - ZVS_QDIO_FHDR_LEN;
    if (frag == ZVS_SBALE_FRAG_NONE ? whole_frame_length_wrong(here, pkt_len)
                                    : first_fragment_holds_frame(here, pkt_len))
        return parse_fail(sbalf, e, ZVS_QDIO_ERR_LEN);

    iov[e].iov_base = geo->data + addr + ZVS_QDIO_FHDR_LEN;
    iov[e].iov_len = here;
    w->first = e;
    if (out->parsed) {
        out->parsed[w->nfr].first = (uint8_t)e;
        out->parsed[w->nfr].niov = 1;
    } else {
        struct zvs_frame *f = &out->frames[w->nfr];
        f->data = iov[e].iov_base;
        f->len = pkt_len;
        f->vid = ZVS_VID_NONE;
        f->pcp = 0;
        f->flags = 0;
        f->in_port = out->in_port;
        f->nfrags = 0;
        f->vnet = vnet;
        f->frags = NULL;
        f->cookie = out->cookie | w->nfr;
    }
    if (frag == ZVS_SBALE_FRAG_NONE) {
        w->nfr++;
    } else {
        w->remaining = pkt_len - here;
        w->in_frame = true;
    }
    return 0;
}

/* A middle or last fragment of the open frame: its bytes in iov[e]. 0 or -EPROTO. */
static inline __attribute__((always_inline))
int frame_continue(const struct zvs_qdio_geom *geo, uint32_t e, uint32_t frag, uint32_t len,
                   uint64_t addr, struct walk *w, struct iovec iov[ZVS_QDIO_NSBALE],
                   const struct walk_sink *out, uint16_t *sbalf)
{
    if (frag == ZVS_SBALE_FRAG_MIDDLE ? middle_fragment_ends_frame(len, w->remaining)
                                      : last_fragment_length_wrong(len, w->remaining))
        return parse_fail(sbalf, e, ZVS_QDIO_ERR_LEN);

    iov[e].iov_base = geo->data + addr;
    iov[e].iov_len = len;
    w->remaining -= len;
    if (out->parsed) {
        out->parsed[w->nfr].niov++;
    } else {
        out->frames[w->nfr].nfrags = (uint16_t)(e - w->first + 1);
        out->frames[w->nfr].frags = &iov[w->first];
    }
    if (frag == ZVS_SBALE_FRAG_LAST) {
        w->in_frame = false;
        w->nfr++;
    }
    return 0;
}

/* Check entry e of a filled buffer, read once, and take it into the walk: 1 when it is
 * the buffer's last entry, 0 when more follow, or -EPROTO. */
static inline __attribute__((always_inline))
int sbale_check(const struct zvs_qdio_geom *geo, const struct zvs_sbale *sbale, uint32_t e,
                struct walk *w, struct iovec iov[ZVS_QDIO_NSBALE], const struct walk_sink *out,
                uint16_t *sbalf)
{
    uint32_t flags = __atomic_load_n(&sbale->flags, __ATOMIC_RELAXED);
    uint32_t len = __atomic_load_n(&sbale->length, __ATOMIC_RELAXED);
    uint64_t addr = __atomic_load_n(&sbale->addr, __ATOMIC_RELAXED);
    uint32_t frag = flags & ZVS_SBALE_FRAG_MASK;
    int rc;

    if (__builtin_expect(entry_outside_data_area(geo, addr, len), 0))
        return parse_fail(sbalf, e, ZVS_QDIO_ERR_ADDR);
    if (__builtin_expect(entry_length_out_of_range(geo, len), 0))
        return parse_fail(sbalf, e, entry_empty(len) ? ZVS_QDIO_ERR_LEN : ZVS_QDIO_ERR_SIZE);
    w->total += len;
    if (__builtin_expect(entries_over_buffer(geo, w->total), 0))
        return parse_fail(sbalf, e, ZVS_QDIO_ERR_SIZE);
    if (fragment_out_of_order(w, frag))
        return parse_fail(sbalf, e, ZVS_QDIO_ERR_FRAG);
    if (__builtin_expect(starts_frame(frag), 1))
        rc = frame_start(geo, e, frag, len, addr, w, iov, out, sbalf);
    else
        rc = frame_continue(geo, e, frag, len, addr, w, iov, out, sbalf);
    if (rc < 0)
        return rc;
    if (!(flags & ZVS_SBALE_LAST_ENTRY))
        return 0;
    if (buffer_ends_inside_frame(w))
        return parse_fail(sbalf, e, ZVS_QDIO_ERR_FRAG);
    return 1;
}

/* The walk behind zvs_qdio_sbal_parse and the adapter's output poll, entry by entry up to
 * the one flagged last (inlined into both, so each gets only its own sink's code). Returns
 * the frames found, *entry_bytes the bytes of all entries (headers included); or -EPROTO. */
static inline __attribute__((always_inline))
int sbal_walk(const struct zvs_qdio_geom *geo, const struct zvs_sbal *sbal,
              struct iovec iov[ZVS_QDIO_NSBALE], const struct walk_sink *out, uint16_t *sbalf,
              uint64_t *entry_bytes)
{
    struct walk w = { .nfr = 0 };

    for (uint32_t e = 0; e < ZVS_QDIO_NSBALE; e++) {
        int rc = sbale_check(geo, &sbal->e[e], e, &w, iov, out, sbalf);
        if (__builtin_expect(rc < 0, 0))
            return rc;
        if (rc > 0) {
            *entry_bytes = w.total;
            return (int)w.nfr;
        }
    }
    return parse_fail(sbalf, ZVS_QDIO_NSBALE - 1, ZVS_QDIO_ERR_NO_LAST);
}

int zvs_qdio_sbal_parse(const struct zvs_qdio_geom *geo, const struct zvs_sbal *sbal,
                        struct iovec iov[ZVS_QDIO_NSBALE],
                        struct zvs_qdio_parsed fr[ZVS_QDIO_NSBALE], uint16_t *sbalf)
{
    const struct walk_sink sink = { .parsed = fr };
    uint64_t bytes;

    return sbal_walk(geo, sbal, iov, &sink, sbalf, &bytes);
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

/* What out_walk_plain's one compare of an entry's length and one of its address test
 * against (plain_bounds_of). */
struct plain_bounds {
    uint32_t room;                      /* entry_size - header: 33..room + 32 bytes pass;
                                           0: no fast pass */
    uint64_t addr_max;                  /* data_size - entry_size: an entry starting here
                                           or before lies inside the data area */
};

#define OUT_REC_BUFS  4u    /* buffers a poll's record holds: 32 frames packed 16 a buffer
                               (a third for a staged buffer's rest); more: no record */

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
    struct plain_bounds        plain;       /* out_walk_plain's bounds */
    struct zvs_qdio_adapter_counters ctr;   /* authoritative; published to hdr->adapter */

    /* Input queue (frames to the guest): what a delivery reads and writes, in the lines
     * after the counters (at 1,000 guests a delivery finds its NIC's lines cold, so a
     * line fewer is a cache miss fewer a frame). The snapshot is narrow: an entry it is
     * used for lies inside the data area (under 4 GB) and offers at most entry_size
     * bytes (under 64 KB). */
    uint32_t         in_off[ZVS_QDIO_NSBALE];   /* snapshot of its entries: offset */
    uint16_t         in_cap[ZVS_QDIO_NSBALE];   /* ... and room */
    uint64_t         in_addr_max;           /* data_size - entry_size: an entry offset
                                               in_snapshot_plain passes without a test */
    uint32_t         in_next;               /* next buffer to take */
    int32_t          in_cur;                /* buffer being filled, -1: none */
    uint32_t         in_entries;            /* entries the program gave it */
    uint32_t         in_used;               /* entries written */
    uint16_t         in_seq;                /* seq_no of the next delivered frame */

    /* Output queue (frames from the guest). */
    uint32_t         out_next;              /* next buffer to look at */
    int32_t          out_cur;               /* buffer whose frames wait in out_stage, -1: none */
    uint8_t          out_cur_next;          /* next frame of out_cur to hand out */
    uint8_t          out_nframes;           /* frames parsed from out_cur */
    uint8_t          out_held[ZVS_QDIO_NBUFS];      /* frames of a taken buffer not released */
    struct iovec     out_iov[ZVS_QDIO_NBUFS][ZVS_QDIO_NSBALE];
    struct zvs_frame out_stage[ZVS_QDIO_NSBALE];    /* descriptors of a buffer taken when
                                                       the caller had room for fewer */
    /* What the last poll handed out, buffer by buffer, so that releasing exactly those
     * frames (zvs_switch_poll does, every burst) is one update per buffer. */
    const struct zvs_frame *rec_frames;     /* the array it filled; NULL: no record */
    int              rec_n;                 /* frames it handed out */
    uint8_t          rec_nbufs;
    uint8_t          rec_buf[OUT_REC_BUFS]; /* their buffers in order, */
    uint8_t          rec_cnt[OUT_REC_BUFS]; /* and each one's frames */
};

#define IN_MIN_ENTRY  64u   /* room an input entry must offer: header + 18 frame bytes */

/* One adapter counter to the region, where the program reads it: the calls on the frame
 * path publish only the counters they changed. */
#define PUBLISH_COUNTER(q, name) \
    __atomic_store_n(&(q)->hdr->adapter.name, (q)->ctr.name, __ATOMIC_RELAXED)

/* Every adapter counter to the region (reset: the program attaching next reads them). */
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
    h->buf_bytes = ZVS_QDIO_BUF_MAX;
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

/* out_walk_plain's bounds for the NIC's geometry, or room 0 (no fast pass) where its
 * shortcuts would not hold: an entry not larger than a header, larger than the data
 * area, holding more frame bytes than a 16-bit pkt_length counts, or 16 entries that
 * could together exceed a buffer's bytes. */
static struct plain_bounds plain_bounds_of(const struct zvs_qdio_geom *geo)
{
    struct plain_bounds pb = { .room = 0, .addr_max = 0 };

    if (geo->entry_size <= ZVS_QDIO_FHDR_LEN || geo->entry_size > geo->data_size ||
        geo->entry_size - ZVS_QDIO_FHDR_LEN > UINT16_MAX ||
        (uint64_t)geo->entry_size * ZVS_QDIO_NSBALE > geo->buf_bytes)
        return pb;
    pb.room = geo->entry_size - ZVS_QDIO_FHDR_LEN;
    pb.addr_max = geo->data_size - geo->entry_size;
    return pb;
}

int zvs_qdio_create(uint32_t queuestorage, struct zvs_qdio **out)
{
    struct zvs_qdio *q = NULL;
    int rc;

    *out = NULL;
    if (zvs_qdio_check_queuestorage(queuestorage) < 0)
        return -EINVAL;
    /* On a cache line: the fields a delivery touches are laid out to span five lines
     * (the struct's layout comment), which calloc's 16-byte alignment held for only a
     * quarter of the NICs (six lines for the rest). */
    size_t qsz = (sizeof(*q) + 63u) & ~(size_t)63u;
    q = aligned_alloc(64, qsz);
    if (!q)
        return -ENOMEM;
    memset(q, 0, qsz);
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
    q->geo.buf_bytes = ZVS_QDIO_BUF_MAX;
    q->geo.buf_entries = ZVS_QDIO_NSBALE;
    q->plain = plain_bounds_of(&q->geo);
    q->in_addr_max = q->geo.data_size - q->geo.entry_size;
    q->out_cur = -1;
    q->in_cur = -1;
    init_header(q, queuestorage);
    *out = q;
    return 0;
fail:
    zvs_qdio_destroy(q);
    return rc;
}

int zvs_qdio_reset(struct zvs_qdio *q)
{
    uint64_t drain;

    if (q->out_cur >= 0)
        return -EBUSY;
    for (uint32_t b = 0; b < ZVS_QDIO_NBUFS; b++)
        if (q->out_held[b])
            return -EBUSY;
    /* Every buffer back to "not initialised": a program attaching next establishes the
     * queues afresh, exactly as after the NIC was defined. A half-filled input buffer is
     * simply forgotten: the guest that would have read it is gone. */
    init_header(q, q->geo.data_size);
    q->out_next = 0;
    q->in_next = 0;
    q->in_cur = -1;
    q->in_entries = q->in_used = 0;
    q->in_seq = 0;
    while (read(q->siga_fd, &drain, sizeof(drain)) == (ssize_t)sizeof(drain))
        ;
    while (read(q->irq_fd, &drain, sizeof(drain)) == (ssize_t)sizeof(drain))
        ;
    publish_counters(q);
    return 0;
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

static void out_refuse(struct zvs_qdio *q, uint32_t b, uint16_t sbalf)
{
    q->outq->sbalf[b] = sbalf;
    q->ctr.out_errors++;
    zvs_slsb_set(&q->outq->slsb[b], ZVS_SLSB_P_OUTPUT_ERROR);
}

/* ---- Output fast path: a buffer of whole plain frames ------------------------------ */

/* The core benchmark's buffers: small frames packed up to 16 to a buffer, each a whole
 * frame in one entry behind a plain layer-2 header. out_walk_plain takes such a buffer
 * in one pass with fewer compares than sbal_walk, or gives up on the first entry that is
 * anything else; the caller then walks the buffer with sbal_walk from its first entry,
 * reading every SBALE again, and that walk alone decides (what the fast pass wrote is
 * overwritten or unused). The fast pass accepts exactly buffers sbal_walk accepts, with
 * the same descriptors and bytes; it decides nothing on its own. */

/* Every entry of the buffer, up to the one flagged last, is a whole frame (fragment
 * "none": no frame is ever open, so fragment order holds) that passes every rule of
 * sbale_check: 33..entry_size bytes (one compare: not empty, within the entry size, room
 * for the header and a frame byte), inside the data area (it starts at addr_max or before
 * and holds at most entry_size bytes; one that starts later gives up, the full walk
 * decides), within the buffer's bytes with the entries before it (16 entries of at most
 * entry_size cannot exceed them, plain_bounds_of), and a header that passes fhdr_read's
 * test of a plain frame (id layer 2, hdr_length 32, no offload metadata), whose
 * pkt_length is the entry's bytes after the header (so it is not 0, and header and frame
 * fit the buffer as the entry does). Returns the frames, *entry_bytes their entries'
 * bytes; -1: give up. Out of line: a loop of its own keeps its values in registers. */
static __attribute__((noinline))
int out_walk_plain(const uint8_t *data, struct plain_bounds pb, const struct zvs_sbal *sbal,
                   struct zvs_frame *dst, uint64_t cookie, uint16_t in_port,
                   uint64_t *entry_bytes)
{
    const struct zvs_sbale *sbale = sbal->e, *const end = sbal->e + ZVS_QDIO_NSBALE;
    uint64_t total = 0, ck = cookie;    /* ck: the cookie of entry sbale's frame */

    for (; sbale < end; sbale++, dst++, ck++) {
        uint32_t flags = __atomic_load_n(&sbale->flags, __ATOMIC_RELAXED);
        uint32_t len = __atomic_load_n(&sbale->length, __ATOMIC_RELAXED);
        uint64_t addr = __atomic_load_n(&sbale->addr, __ATOMIC_RELAXED);
        uint32_t pkt_len = len - ZVS_QDIO_FHDR_LEN;

        if ((flags & ZVS_SBALE_FRAG_MASK) != ZVS_SBALE_FRAG_NONE ||
            pkt_len - 1u >= pb.room || addr > pb.addr_max)
            return -1;
        const uint8_t *raw = data + addr;
        uint64_t w2;
        uint16_t w3;
        memcpy(&w2, raw + 16, 8);       /* vnet flags, gso_type, hdr_len, gso_size, csum_start */
        memcpy(&w3, raw + 24, 2);       /* csum_offset */
        /* pkt_len <= room <= UINT16_MAX here: its compare with pkt_length is on 16 bits */
        if (raw[0] != ZVS_QETH_HDR_LAYER2 || raw[5] != ZVS_QDIO_FHDR_LEN ||
            zvs_be16(raw + 6) != (uint16_t)pkt_len || (w2 | w3) != 0)
            return -1;
        total += len;
        *dst = (struct zvs_frame){ .data = raw + ZVS_QDIO_FHDR_LEN, .len = pkt_len,
                                   .in_port = in_port, .cookie = ck };
        if (flags & ZVS_SBALE_LAST_ENTRY) {
            *entry_bytes = total;
            return (int)(ck - cookie) + 1;
        }
    }
    return -1;
}

/* Take the next primed output buffer that parses, its descriptors built into dst (room
 * for ZVS_QDIO_NSBALE); refused ones go back as 0xAF. Returns its frames (>= 1; a buffer
 * that parses holds one at least), 0 when no buffer is primed; *bytes gets their bytes. */
static int out_take(struct zvs_qdio *q, struct zvs_frame *dst, uint16_t in_port,
                    uint64_t *bytes)
{
    for (;;) {
        uint32_t b = q->out_next;
        uint16_t sbalf = 0;
        uint64_t entry_bytes = 0;

        /* Wrapped around to a buffer the switch still holds frames of: it is 0x62
         * because it is ours, not because the program primed it again. */
        if (q->out_held[b] > 0)
            return 0;
        if (zvs_slsb_get(&q->outq->slsb[b]) != ZVS_SLSB_CU_OUTPUT_PRIMED)
            return 0;
        q->out_next = (b + 1) % ZVS_QDIO_NBUFS;
        const struct walk_sink sink = { .frames = dst, .cookie = (uint64_t)b << 8,
                                        .in_port = in_port };
        int nfr = out_walk_plain(q->geo.data, q->plain, &q->outq->sbal[b], dst, sink.cookie,
                                 in_port, &entry_bytes);
        if (__builtin_expect(nfr < 0, 0))
            nfr = sbal_walk(&q->geo, &q->outq->sbal[b], q->out_iov[b], &sink, &sbalf,
                            &entry_bytes);
        if (__builtin_expect(nfr < 0, 0)) {
            out_refuse(q, b, sbalf);
            continue;
        }
        q->out_held[b] = (uint8_t)nfr;
        *bytes = entry_bytes - (uint64_t)nfr * ZVS_QDIO_FHDR_LEN;
        return nfr;
    }
}

/* Note in the poll's record that `count` frames of buffer b were handed out; *nrec
 * becomes OUT_REC_BUFS + 1 (no record) when they do not fit. */
static inline void rec_add(struct zvs_qdio *q, uint32_t *nrec, uint32_t b, uint32_t count)
{
    if (*nrec < OUT_REC_BUFS) {
        q->rec_buf[*nrec] = (uint8_t)b;
        q->rec_cnt[*nrec] = (uint8_t)count;
        ++*nrec;
    } else {
        *nrec = OUT_REC_BUFS + 1;
    }
}

int zvs_qdio_poll_output(struct zvs_qdio *q, struct zvs_frame *out, int max, uint16_t in_port)
{
    uint64_t errors = q->ctr.out_errors;
    uint64_t bytes = 0;
    uint32_t nrec = 0;
    int n = 0;

    while (n < max) {
        if (q->out_cur >= 0) {
            /* Frames left over from a buffer taken when out[] had less room. */
            int from = n;
            while (n < max && q->out_cur_next < q->out_nframes) {
                const struct zvs_frame *f = &q->out_stage[q->out_cur_next++];
                bytes += f->len;
                out[n++] = *f;
            }
            rec_add(q, &nrec, (uint32_t)q->out_cur, (uint32_t)(n - from));
            if (q->out_cur_next == q->out_nframes)
                q->out_cur = -1;
            continue;
        }
        /* Room for a whole buffer: its descriptors are built where the caller wants them. */
        bool direct = max - n >= ZVS_QDIO_NSBALE;
        uint64_t buf_bytes = 0;
        int nfr = out_take(q, direct ? out + n : q->out_stage, in_port, &buf_bytes);
        if (nfr == 0)
            break;
        if (direct) {
            rec_add(q, &nrec, (uint32_t)(out[n].cookie >> 8), (uint32_t)nfr);
            n += nfr;
            bytes += buf_bytes;
        } else {
            q->out_cur = (int32_t)(q->out_stage[0].cookie >> 8);
            q->out_cur_next = 0;
            q->out_nframes = (uint8_t)nfr;
        }
    }
    q->rec_frames = n > 0 && nrec <= OUT_REC_BUFS ? out : NULL;
    q->rec_n = n;
    q->rec_nbufs = (uint8_t)nrec;
    /* Publish only what this call changed (the program reads these from the region). */
    if (n > 0) {
        q->ctr.out_frames += (uint64_t)n;
        q->ctr.out_bytes += bytes;
        PUBLISH_COUNTER(q, out_frames);
        PUBLISH_COUNTER(q, out_bytes);
    }
    if (q->ctr.out_errors != errors)
        PUBLISH_COUNTER(q, out_errors);
    return n;
}

/* run frames of buffer b are back: its count goes down by as many (by what it holds at
 * most: the rest are not ours), and the buffer returns to the program at 0. */
static inline void give_back(struct zvs_qdio *q, uint64_t b, uint32_t run)
{
    assert(b < ZVS_QDIO_NBUFS && q->out_held[b] >= run);
    if (b >= ZVS_QDIO_NBUFS || q->out_held[b] == 0)
        return;                         /* not ours: never hand a buffer back twice */
    if (run >= q->out_held[b]) {
        q->out_held[b] = 0;
        q->outq->sbalf[b] = 0;
        zvs_slsb_set(&q->outq->slsb[b], ZVS_SLSB_P_OUTPUT_EMPTY);
        q->ctr.out_bufs_processed++;
    } else {
        q->out_held[b] = (uint8_t)(q->out_held[b] - run);
    }
}

void zvs_qdio_release(struct zvs_qdio *q, const struct zvs_frame *frames, int n)
{
    uint64_t processed = q->ctr.out_bufs_processed;

    if (n > 0 && frames == q->rec_frames && n == q->rec_n &&
        frames[0].cookie >> 8 == q->rec_buf[0] &&
        frames[n - 1].cookie >> 8 == q->rec_buf[q->rec_nbufs - 1]) {
        /* Exactly what the last poll handed out: its record says which buffers. */
        for (uint32_t k = 0; k < q->rec_nbufs; k++)
            give_back(q, q->rec_buf[k], q->rec_cnt[k]);
    } else {
        /* A buffer's frames come in a row (as poll_output handed them out): one run of
         * frames of one buffer is one update of its count, as many decrements would be. */
        for (int i = 0; i < n;) {
            uint64_t b = frames[i].cookie >> 8;
            int j = i + 1;

            while (j < n && frames[j].cookie >> 8 == b)
                j++;
            give_back(q, b, (uint32_t)(j - i));
            i = j;
        }
    }
    q->rec_frames = NULL;               /* a record serves one release */
    if (q->ctr.out_bufs_processed != processed)
        PUBLISH_COUNTER(q, out_bufs_processed);
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

/* The exact check of an empty input buffer's entries, each read once into the snapshot
 * (in_off, in_cap), up to the one flagged last: inside the data area (ZVS_QDIO_ERR_ADDR,
 * reported before a size), IN_MIN_ENTRY..entry_size bytes of room (ZVS_QDIO_ERR_SIZE), a
 * last entry within buf_entries (ZVS_QDIO_ERR_NO_LAST). Returns the entries, or 0 with the
 * first bad entry and its reason in *sbalf. */
static uint32_t in_snapshot(struct zvs_qdio *q, const struct zvs_sbal *s, uint16_t *sbalf)
{
    uint32_t n = 0;
    bool last = false;

    while (n < q->geo.buf_entries && !last && *sbalf == 0) {
        uint32_t flags = __atomic_load_n(&s->e[n].flags, __ATOMIC_RELAXED);
        uint32_t cap = __atomic_load_n(&s->e[n].length, __ATOMIC_RELAXED);
        uint64_t addr = __atomic_load_n(&s->e[n].addr, __ATOMIC_RELAXED);

        if (addr > q->geo.data_size || cap > q->geo.data_size - addr)
            *sbalf = ZVS_QDIO_SBALF(n, ZVS_QDIO_ERR_ADDR);
        else if (cap < IN_MIN_ENTRY || cap > q->geo.entry_size)
            *sbalf = ZVS_QDIO_SBALF(n, ZVS_QDIO_ERR_SIZE);
        q->in_off[n] = (uint32_t)addr;      /* used only when the buffer is accepted */
        q->in_cap[n] = (uint16_t)cap;
        last = flags & ZVS_SBALE_LAST_ENTRY;
        n++;
    }
    if (*sbalf == 0 && !last)
        *sbalf = ZVS_QDIO_SBALF(n - 1, ZVS_QDIO_ERR_NO_LAST);
    return *sbalf == 0 ? n : 0;
}

/* The take of every buffer, so of every frame when each guest gets one frame a burst (1,000
 * guests: the scale benchmark). One pass reads each entry once into the snapshot and
 * ORs the offsets together and the rooms less IN_MIN_ENTRY together, with no test an
 * entry but the last-entry flag: an OR is at least the largest of its values, so when
 * the offsets' OR lies at in_addr_max (data_size - entry_size) or before and the rooms'
 * OR at entry_size - IN_MIN_ENTRY or below (a room under IN_MIN_ENTRY wraps to a huge
 * value), every entry lies inside the data area and offers IN_MIN_ENTRY..entry_size
 * bytes: in_snapshot would accept the buffer with this same snapshot. The guest library's
 * entries (4 KB pages of a 64 KB page set) always pass. Anything else returns 0 (a bad
 * entry, no last entry, or good entries whose OR crosses a bound: one in the data area's
 * last 4 KB, rooms of mixed sizes), and in_snapshot then reads every entry anew and
 * alone decides. Its 16 entries are buf_entries: zvs_qdio_create makes every region's
 * buffers ZVS_QDIO_NSBALE entries long. */
static inline uint32_t in_snapshot_plain(struct zvs_qdio *q, const struct zvs_sbal *s)
{
    const uint32_t room_max = q->geo.entry_size - IN_MIN_ENTRY;
    uint64_t addrs = 0;
    uint32_t rooms = 0;

#pragma GCC unroll 16
    for (uint32_t n = 0; n < ZVS_QDIO_NSBALE; n++) {
        uint32_t flags = __atomic_load_n(&s->e[n].flags, __ATOMIC_RELAXED);
        uint32_t cap = __atomic_load_n(&s->e[n].length, __ATOMIC_RELAXED);
        uint64_t addr = __atomic_load_n(&s->e[n].addr, __ATOMIC_RELAXED);

        q->in_off[n] = (uint32_t)addr;      /* used only when the buffer is accepted */
        q->in_cap[n] = (uint16_t)cap;
        addrs |= addr;
        rooms |= cap - IN_MIN_ENTRY;
        if (flags & ZVS_SBALE_LAST_ENTRY)
            return addrs <= q->in_addr_max && rooms <= room_max ? n + 1 : 0;
    }
    return 0;
}

/* Take the next empty input buffer, snapshotting the entries the program prepared. A
 * buffer whose entries leave the data area or are too small is refused (0x8F). */
static bool in_take(struct zvs_qdio *q)
{
    for (;;) {
        uint32_t b = q->in_next;
        const struct zvs_sbal *s = &q->inq->sbal[b];
        uint16_t sbalf = 0;

        if (zvs_slsb_get(&q->inq->slsb[b]) != ZVS_SLSB_CU_INPUT_EMPTY)
            return false;
        q->in_next = (b + 1) % ZVS_QDIO_NBUFS;
        uint32_t n = in_snapshot_plain(q, s);
        if (__builtin_expect(n == 0, 0))
            n = in_snapshot(q, s, &sbalf);
        if (sbalf != 0) {
            q->inq->sbalf[b] = sbalf;
            q->ctr.in_bad_bufs++;
            PUBLISH_COUNTER(q, in_bad_bufs);
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

/* The bytes zvs_qdio_fhdr_classify reads: MAC addresses, EtherType, a tag's TCI. */
#define CLASSIFY_BYTES (ZVS_ETH_HLEN + ZVS_VLAN_HLEN)

/* The first n bytes described by src into out (the list holds at least n). */
static void gather(const struct iovec *src, int ns, uint8_t *out, uint32_t n)
{
    for (int i = 0; i < ns && n > 0; i++) {
        uint32_t take = src[i].iov_len < n ? (uint32_t)src[i].iov_len : n;
        memcpy(out, src[i].iov_base, take);
        out += take;
        n -= take;
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
    /* flags[2] and vlan_id from the bytes as written, not read back from the entry: it
     * is written just now, and a read of it waits for that line to arrive (at 1,000
     * guests a cache miss; the read-back was 12 % of the scale benchmark's time). The
     * first bytes are read once from the source into `head`, classified, and written
     * over the entry's after the copy, so that a sender that rewrites its buffer during
     * the copy cannot make the header disagree with the frame. The first entry holds at
     * least IN_MIN_ENTRY - 32 = 32 bytes, all of `head`. */
    uint8_t head[CLASSIFY_BYTES];
    bool whole = h->pkt_length >= CLASSIFY_BYTES && src[0].iov_len >= CLASSIFY_BYTES;
    uint32_t want = h->pkt_length < CLASSIFY_BYTES ? h->pkt_length : CLASSIFY_BYTES;
    if (__builtin_expect(whole, 1))
        memcpy(head, src[0].iov_base, CLASSIFY_BYTES);      /* fixed size: a few moves */
    else
        gather(src, ns, head, want);
    zvs_qdio_fhdr_classify(h, head, h->pkt_length);
    scatter_copy(src, ns, dst, (int)need);
    if (__builtin_expect(whole, 1))
        memcpy(dst[0].iov_base, head, CLASSIFY_BYTES);
    else
        memcpy(dst[0].iov_base, head, want);
    zvs_qdio_fhdr_encode(h, q->geo.data + q->in_off[e0]);
    q->in_used += need;
}

/* in_write for the common frame: its bytes in one piece (nfrags 0), no tag edit, no
 * offload metadata, into the next entry alone: one copy and the header as four words
 * (zvs_qdio_fhdr_put_plain), without the piece lists, the scatter loop and the header's
 * round trip through the host-order struct (with the check the delivery skips for such a
 * frame, bench_scale's switch side at 3 guests: 288 instructions a frame fewer). As
 * in_write, the first bytes are read once from the source, classified and written over
 * the copy's, so a sender that rewrites its buffer during the copy cannot make the
 * header disagree with the frame. */
static void in_write_plain(struct zvs_qdio *q, const uint8_t *src, uint32_t len, uint16_t seq)
{
    uint32_t e = q->in_used;
    uint32_t off = q->in_off[e];
    uint8_t *dst = q->geo.data + off;
    struct zvs_sbale *se = &q->inq->sbal[q->in_cur].e[e];
    uint8_t head[CLASSIFY_BYTES];

    if (__builtin_expect(len >= CLASSIFY_BYTES, 1)) {
        memcpy(head, src, CLASSIFY_BYTES);                  /* fixed size: a few moves */
        memcpy(dst + ZVS_QDIO_FHDR_LEN, src, len);
        memcpy(dst + ZVS_QDIO_FHDR_LEN, head, CLASSIFY_BYTES);
    } else {
        memcpy(head, src, len);
        memcpy(dst + ZVS_QDIO_FHDR_LEN, head, len);
    }
    zvs_qdio_fhdr_put_plain(dst, head, len, seq);
    se->addr = off;
    se->length = ZVS_QDIO_FHDR_LEN + len;
    se->flags = ZVS_SBALE_FRAG_NONE;
    q->in_used++;
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

/* Start loading what the next zvs_qdio_deliver reads and writes, one level of the chain
 * per call (the port op's hint, dataplane/port.h): 0, this struct's lines up to the input
 * queue's fields; 1, from those, the input buffer a delivery fills next (its state byte,
 * SBAL and SBALF) and the region's adapter counters and interrupt word; 2, from the SBAL,
 * the first two lines of the entry the frame goes to (zvs_qdio_prefetch_entry). Only
 * loads: nothing is checked or written; an entry's offset is used only inside the data
 * area (a buffer the guest still owns, or one the take will refuse, costs a useless
 * prefetch, never a fault or a read outside the region). */
void zvs_qdio_prefetch(struct zvs_qdio *q, unsigned level)
{
    if (level == 0) {
        const char *p = (const char *)q;
        for (size_t off = 0; off < offsetof(struct zvs_qdio, out_next); off += 64)
            __builtin_prefetch(p + off, 1, 3);
        return;
    }
    if (level == 1) {
        uint32_t b = q->in_cur >= 0 ? (uint32_t)q->in_cur : q->in_next;
        const struct zvs_sbal *s = &q->inq->sbal[b];
        __builtin_prefetch(&q->inq->slsb[b], 1, 3);
        __builtin_prefetch(&q->inq->sbalf[b], 1, 3);
        for (size_t off = 0; off < sizeof(*s); off += 64)
            __builtin_prefetch((const char *)s + off, 1, 3);
        __builtin_prefetch(&q->hdr->irq_armed, 0, 3);
        __builtin_prefetch(&q->hdr->adapter, 1, 3);
        __builtin_prefetch((const char *)&q->hdr->adapter + 64, 1, 3);
        return;
    }
    const uint8_t *at = zvs_qdio_prefetch_entry(q);
    if (at) {
        __builtin_prefetch(at, 1, 3);
        __builtin_prefetch(at + 64, 1, 3);
    }
}

const uint8_t *zvs_qdio_prefetch_entry(const struct zvs_qdio *q)
{
    uint64_t off;

    if (q->in_cur >= 0) {
        off = q->in_used < q->in_entries ? q->in_off[q->in_used] : UINT64_MAX;
    } else {
        const struct zvs_sbal *s = &q->inq->sbal[q->in_next];
        off = __atomic_load_n(&s->e[0].addr, __ATOMIC_RELAXED);
    }
    return off <= q->in_addr_max ? q->geo.data + off : NULL;
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
        /* Without metadata and tag edit the header is the plain one, which cannot fail
         * the check (zvs_qdio_fhdr_put_plain): its only failure, a length of 0, is refused
         * above (tag_op_possible: KEEP needs a byte). */
        bool plain = op == ZVS_TAG_KEEP && zvs_vnet_is_zero(&t->f->vnet);
        memset(&h, 0, sizeof(h));
        if (!plain)
            h.vnet = zvs_frame_vnet_after_op(t->f, op);
        h.id = h.vnet.gso_type != ZVS_VNET_GSO_NONE ? ZVS_QETH_HDR_L2_TSO : ZVS_QETH_HDR_LAYER2;
        h.hdr_length = ZVS_QDIO_FHDR_LEN;
        h.pkt_length = (uint16_t)len;
        if (!plain && zvs_qdio_fhdr_check(&h) < 0) {
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
            q->ctr.in_oversize++;       /* the program offered less than 64 KB of room */
            note_drop(&w, ZVS_DROP_OVERSIZE);
            continue;
        }
        h.seq_no = q->in_seq++;
        if (plain && need == 1 && t->f->nfrags == 0)
            in_write_plain(q, t->f->data, len, h.seq_no);
        else
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
    /* Publish only what this call changed, as the output side does (in_bad_bufs: in_take,
     * where it changes): a frame delivered, a buffer primed and its interrupt, a frame
     * discarded for want of a buffer or room. Publishing all eleven counters every call
     * cost the scale benchmark 55 instructions a frame at one frame a buffer. */
    if (done > 0) {
        PUBLISH_COUNTER(q, in_frames);
        PUBLISH_COUNTER(q, in_bytes);
    }
    if (primed) {
        PUBLISH_COUNTER(q, in_bufs_primed);
        PUBLISH_COUNTER(q, interrupts);
    }
    if (done < n) {
        PUBLISH_COUNTER(q, iq_full);
        PUBLISH_COUNTER(q, in_oversize);
        *why = w;
    }
    return done;
}
