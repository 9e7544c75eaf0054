/* QDIO queues of a guest's virtual NIC: the shared-memory layout (the ABI between the
 * switch and a guest program) and the adapter side, which the switch uses.
 *
 * One region per NIC, made with memfd_create and mapped MAP_SHARED, holds everything the
 * two sides share:
 *
 *   offset 0                    struct zvs_qdio_shm_hdr (magic, sizes, offsets, AC1 bits,
 *                               interrupt word, counters), ZVS_QDIO_HDR_SIZE bytes
 *   ZVS_QDIO_IN_Q_OFF           input queue  (adapter -> program): SLSB, SBALF, 128 SBALs
 *   ZVS_QDIO_OUT_Q_OFF          output queue (program -> adapter): SLSB, SBALF, 128 SBALs
 *   ZVS_QDIO_DATA_OFF           data area, QUEUESTORAGE bytes
 *
 * so a region is ZVS_QDIO_DATA_OFF + QUEUESTORAGE bytes exactly. Nothing in the region is
 * a pointer: an SBALE address is a byte offset into the data area, so a process that maps
 * the same memfd (inherited over fork, or received with SCM_RIGHTS) reads the same
 * structure. Each SLSB byte is the ownership hand-off of its buffer and is only accessed
 * with atomics: the side that gives a buffer away stores its new state with release
 * semantics after writing the SBAL and data; the side that takes it loads the state with
 * acquire semantics before reading them.
 *
 * "in" and "out" name the queues as QDIO does, from the program's (guest's) view: the
 * output queue carries frames the guest sends into the switch, the input queue frames the
 * switch delivers to the guest.
 *
 * What a filled buffer may hold (checked by zvs_qdio_sbal_parse on both sides):
 *  - up to 16 entries (an SBAL's SBALEs, at every QUEUESTORAGE), the last one flagged
 *    last-entry; each entry 1..4096 bytes inside the data area, and all entries of a buffer
 *    together at most buf_bytes = ZVS_QDIO_BUF_MAX = 64 KB (16 entries of 4 KB: a real OSA
 *    SBAL's size, at every QUEUESTORAGE);
 *  - frames one after the other, each in one entry (fragment "none") or in a first, middle..,
 *    last group of entries; the first entry of a frame starts with its 32-byte header and,
 *    when the frame continues, holds at least 18 frame bytes; pkt_length equals the bytes
 *    of the frame's entries after the header, and header + frame fit in buf_bytes, so the
 *    largest frame is ZVS_QDIO_FRAME_MAX = 65536 - 32 = 65504 bytes.
 * That is all the adapter checks. Where the entries point, and so how 256 buffers of up to
 * 64 KB share QUEUESTORAGE bytes (1M..8M, less than 256 x 64 KB = 16M), is the writer's
 * policy (qdio_guest.h): the guest library cuts each half of the data area into 64 KB
 * "page sets" and keeps only as many input buffers armed, and output buffers outstanding,
 * as it has sets (8 at 1M, 64 at 8M), as Linux's qeth driver arms only its inbound
 * buffer_count. The adapter neither knows nor checks that policy: it takes any 0x41 input
 * or 0x62 output buffer whose entries pass the checks above, and "input queue full" is
 * simply "the next input buffer is not 0x41".
 * Inside a buffer the library packs small frames side by side in a page (send), or puts
 * one frame per fresh page (zero-copy send, and the adapter filling input buffers), each
 * frame in its own entry or entries. One frame per entry keeps the reader simple (an entry
 * is a frame or a piece of one, never several) and is what a qeth driver does in its
 * packing mode, while 16 entries per buffer let 16 small frames share one buffer
 * hand-over.
 */
#ifndef ZVS_QDIO_H
#define ZVS_QDIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "dataplane/frame.h"
#include "dataplane/port.h"

/* ---- Geometry ---------------------------------------------------------------------- */

#define ZVS_QDIO_NBUFS          128     /* buffers (SBALs) per queue */
#define ZVS_QDIO_NSBALE         16      /* entries (SBALEs) per SBAL */
#define ZVS_QDIO_ENTRY_SIZE     4096u   /* largest entry: one 4 KB page */
/* Bytes a buffer's entries may hold together: 16 entries of 4 KB (64 KB), at every
 * QUEUESTORAGE; a frame with its 32-byte header fits one buffer, so the largest frame is
 * ZVS_QDIO_FRAME_MAX = 65504 bytes (below the header's 16-bit pkt_length limit). */
#define ZVS_QDIO_BUF_MAX        (ZVS_QDIO_NSBALE * ZVS_QDIO_ENTRY_SIZE)
#define ZVS_QDIO_FRAME_MAX      (ZVS_QDIO_BUF_MAX - ZVS_QDIO_FHDR_LEN)
#define ZVS_QDIO_MB             (1024u * 1024u)
#define ZVS_QDIO_QS_MIN         (1u * ZVS_QDIO_MB)  /* QUEUESTORAGE 1M */
#define ZVS_QDIO_QS_MAX         (8u * ZVS_QDIO_MB)  /* QUEUESTORAGE 8M */
#define ZVS_QDIO_QS_DEFAULT     ZVS_QDIO_QS_MAX
#define ZVS_QDIO_MAGIC          0x5A514430u         /* "ZQD0" */
#define ZVS_QDIO_VERSION        2   /* 2: 64 KB buffers (buf_bytes = ZVS_QDIO_BUF_MAX) */

/* ---- SBALE flags (Linux qdio.h eflags, as the top byte of a 32-bit word) ----------- */

#define ZVS_SBALE_LAST_ENTRY    0x40000000u /* last entry used in this SBAL */
#define ZVS_SBALE_CONTIGUOUS    0x20000000u
#define ZVS_SBALE_FRAG_MASK     0x0C000000u
#define ZVS_SBALE_FRAG_NONE     0x00000000u /* the whole frame is in this entry */
#define ZVS_SBALE_FRAG_FIRST    0x04000000u
#define ZVS_SBALE_FRAG_MIDDLE   0x08000000u
#define ZVS_SBALE_FRAG_LAST     0x0C000000u

/* ---- SLSB states: owner | direction | state ---------------------------------------- */

#define ZVS_SLSB_OWNER_PROG     0x80u
#define ZVS_SLSB_OWNER_CU       0x40u   /* control unit: the adapter */
#define ZVS_SLSB_TYPE_OUTPUT    0x20u
#define ZVS_SLSB_ST_NOT_INIT    0x00u
#define ZVS_SLSB_ST_EMPTY       0x01u
#define ZVS_SLSB_ST_PRIMED      0x02u
#define ZVS_SLSB_ST_PENDING     0x03u
#define ZVS_SLSB_ST_HALTED      0x0Eu
#define ZVS_SLSB_ST_ERROR       0x0Fu

#define ZVS_SLSB_P_INPUT_NOT_INIT   0x80u
#define ZVS_SLSB_CU_INPUT_EMPTY     0x41u   /* adapter may fill it */
#define ZVS_SLSB_P_INPUT_PRIMED     0x82u   /* filled, program must process */
#define ZVS_SLSB_P_INPUT_ACK        0x81u   /* program is processing it */
#define ZVS_SLSB_P_INPUT_HALTED     0x8Eu
#define ZVS_SLSB_P_INPUT_ERROR      0x8Fu   /* adapter refused the program's entries */
#define ZVS_SLSB_P_OUTPUT_NOT_INIT  0xA0u
#define ZVS_SLSB_P_OUTPUT_EMPTY     0xA1u   /* free for the program to fill */
#define ZVS_SLSB_CU_OUTPUT_PRIMED   0x62u   /* filled, adapter must send */
#define ZVS_SLSB_P_OUTPUT_PENDING   0xA3u
#define ZVS_SLSB_P_OUTPUT_HALTED    0xAEu
#define ZVS_SLSB_P_OUTPUT_ERROR     0xAFu   /* adapter refused the buffer; see SBALF */

/* ---- QDIOAC1: which SIGAs the adapter needs ----------------------------------------- */

#define ZVS_QDIO_AC1_SIGA_INPUT     0x40u   /* program signals replenished input (SIGA-r) */
#define ZVS_QDIO_AC1_SIGA_OUTPUT    0x20u   /* program signals primed output (SIGA-w) */

/* ---- Error reasons the adapter leaves in SBALF 15 of a 0xAF / 0x8F buffer ----------- */

enum zvs_qdio_err {
    ZVS_QDIO_ERR_NONE = 0,
    ZVS_QDIO_ERR_ADDR,                  /* entry (offset, length) outside the data area */
    ZVS_QDIO_ERR_FRAG,                  /* fragment flags out of order */
    ZVS_QDIO_ERR_HDR,                   /* frame header: id, hdr_length, offload metadata */
    ZVS_QDIO_ERR_LEN,                   /* pkt_length disagrees with the entry lengths */
    ZVS_QDIO_ERR_NO_LAST,               /* no last-entry flag within the buffer's entries */
    ZVS_QDIO_ERR_SIZE,                  /* frame or entry larger than the buffer allows */
    ZVS_QDIO_ERR_SHORT,                 /* scattered frame with < 18 bytes in its 1st entry */
};

/* SBALF 14/15 of a refused buffer: entry index in the high byte, reason in the low. */
#define ZVS_QDIO_SBALF(entry, reason)  ((uint16_t)((unsigned)(entry) << 8 | (unsigned)(reason)))
#define ZVS_QDIO_SBALF_ENTRY(s)        ((uint8_t)((s) >> 8))
#define ZVS_QDIO_SBALF_REASON(s)       ((uint8_t)(s))

/* ---- Shared-memory layout ------------------------------------------------------------ */

struct zvs_sbale {
    uint32_t flags;                     /* ZVS_SBALE_* */
    uint32_t length;                    /* bytes used (filled buffers) or room (empty input) */
    uint64_t addr;                      /* byte offset into the data area, never a pointer */
};

struct zvs_sbal {
    struct zvs_sbale e[ZVS_QDIO_NSBALE];
};

struct zvs_qdio_queue_shm {
    uint8_t          slsb[ZVS_QDIO_NBUFS];  /* buffer states, atomics only */
    uint16_t         sbalf[ZVS_QDIO_NBUFS]; /* error entry/reason of refused buffers */
    uint8_t          pad[4096 - ZVS_QDIO_NBUFS * 3]; /* SBALs start page aligned */
    struct zvs_sbal  sbal[ZVS_QDIO_NBUFS];
};

/* Counters written by the program (guest) side; a single writer each. */
struct zvs_qdio_prog_counters {
    uint64_t siga_w;                    /* SIGA-write issued for primed output */
    uint64_t siga_r;                    /* SIGA-read issued for replenished input */
    uint64_t out_bufs_primed;           /* output buffers 0xA1 -> 0x62 */
    uint64_t out_frames;                /* frames put into output buffers */
    uint64_t out_errors_seen;           /* 0xAF output buffers reaped */
    uint64_t in_bufs_processed;         /* input buffers 0x82 -> 0x81 -> 0x41 */
    uint64_t in_frames;                 /* frames received */
    uint64_t in_bad_bufs;               /* primed input buffers that did not parse */
};

/* Counters written by the adapter (switch) side; a single writer each. */
struct zvs_qdio_adapter_counters {
    uint64_t interrupts;                /* thin interrupts raised (irq_fd written) */
    uint64_t out_bufs_processed;        /* output buffers 0x62 -> 0xA1 */
    uint64_t out_frames;                /* frames taken from output buffers */
    uint64_t out_bytes;                 /* their bytes (pkt_length) */
    uint64_t out_errors;                /* output buffers refused: 0x62 -> 0xAF */
    uint64_t in_bufs_primed;            /* input buffers 0x41 -> 0x82 */
    uint64_t in_frames;                 /* frames delivered into input buffers */
    uint64_t in_bytes;                  /* their bytes (pkt_length) */
    uint64_t iq_full;                   /* frames discarded: no 0x41 input buffer */
    uint64_t in_oversize;               /* frames discarded: larger than an input buffer */
    uint64_t in_bad_bufs;               /* input buffers refused: 0x41 -> 0x8F */
};

struct zvs_qdio_counters {
    struct zvs_qdio_prog_counters    prog;
    struct zvs_qdio_adapter_counters adapter;
};

#define ZVS_QDIO_HDR_SIZE   4096u

struct zvs_qdio_shm_hdr {
    uint32_t magic;                     /* ZVS_QDIO_MAGIC */
    uint16_t version;                   /* ZVS_QDIO_VERSION */
    uint16_t nbufs;                     /* ZVS_QDIO_NBUFS */
    uint32_t hdr_size;                  /* ZVS_QDIO_HDR_SIZE */
    uint32_t nsbale;                    /* ZVS_QDIO_NSBALE */
    uint32_t entry_size;                /* ZVS_QDIO_ENTRY_SIZE */
    uint32_t buf_bytes;                 /* data bytes a buffer may hold: ZVS_QDIO_BUF_MAX */
    uint64_t queuestorage;              /* data area size */
    uint64_t region_size;               /* whole region */
    uint64_t in_q_off;                  /* struct zvs_qdio_queue_shm of the input queue */
    uint64_t out_q_off;                 /* ... of the output queue */
    uint64_t data_off;                  /* data area */
    uint32_t ac1;                       /* ZVS_QDIO_AC1_*, adapter-written, atomics */
    uint32_t irq_armed;                 /* 1: program wants a thin interrupt; the adapter
                                           clears it when it raises one (atomics) */
    struct zvs_qdio_prog_counters    prog __attribute__((aligned(64)));
    struct zvs_qdio_adapter_counters adapter __attribute__((aligned(64)));
};

#define ZVS_QDIO_IN_Q_OFF    ((uint64_t)ZVS_QDIO_HDR_SIZE)
#define ZVS_QDIO_OUT_Q_OFF   (ZVS_QDIO_IN_Q_OFF + sizeof(struct zvs_qdio_queue_shm))
#define ZVS_QDIO_DATA_OFF    (ZVS_QDIO_OUT_Q_OFF + sizeof(struct zvs_qdio_queue_shm))

/* Bytes of a NIC region for a QUEUESTORAGE: header + queues + data exactly; 0 when the
 * QUEUESTORAGE is not a whole number of MB in 1M..8M. */
size_t zvs_qdio_region_size(uint32_t queuestorage);
/* 0 when queuestorage is a valid QUEUESTORAGE, else -EINVAL. */
int zvs_qdio_check_queuestorage(uint32_t queuestorage);

/* ---- Frame header in a buffer (qeth layer-2 header, 32 bytes, big-endian) ---------- */

#define ZVS_QDIO_FHDR_LEN       32u
#define ZVS_QETH_HDR_LAYER2     0x02    /* header id: layer-2 frame */
#define ZVS_QETH_HDR_L2_TSO     0x06    /* header id: layer-2 super-frame (GSO) */
#define ZVS_QETH_L2_FLAG_MCAST  0x01    /* flags[2] */
#define ZVS_QETH_L2_FLAG_BCAST  0x02
#define ZVS_QETH_L2_FLAG_UCAST  0x04
#define ZVS_QETH_L2_FLAG_VLAN   0x10    /* frame carries a tag, vlan_id holds its TCI */
#define ZVS_QDIO_MIN_FIRST_FRAG 18u     /* bytes of a scattered frame in its first entry */

/* Host-order view of the header. Wire layout: id(1) flags(3) port_no(1) hdr_length(1)
 * pkt_length(2) seq_no(2) vlan_id(2) reserved(4) then, in the 16 reserved bytes, the
 * offload metadata: vnet flags(1) gso_type(1) hdr_len(2) gso_size(2) csum_start(2)
 * csum_offset(2) reserved(6). */
struct zvs_qdio_fhdr {
    uint8_t         id;                 /* ZVS_QETH_HDR_LAYER2 or _L2_TSO */
    uint8_t         flags[3];           /* flags[2]: ZVS_QETH_L2_FLAG_* */
    uint8_t         port_no;
    uint8_t         hdr_length;         /* ZVS_QDIO_FHDR_LEN */
    uint16_t        pkt_length;         /* frame bytes after the header */
    uint16_t        seq_no;             /* sender's running frame number */
    uint16_t        vlan_id;            /* TCI of the frame's tag when FLAG_VLAN */
    struct zvs_vnet vnet;               /* offload metadata (frame.h) */
};

void zvs_qdio_fhdr_encode(const struct zvs_qdio_fhdr *h, uint8_t out[ZVS_QDIO_FHDR_LEN]);
/* The checks of zvs_qdio_fhdr_decode on a header in host order (what a sender runs before
 * writing it, so a frame the reader would refuse never spoils its buffer): 0 or -EINVAL. */
int zvs_qdio_fhdr_check(const struct zvs_qdio_fhdr *h);
/* Decode and check a header: id matches the GSO type, hdr_length 32, pkt_length >= 1,
 * known offload flags and types, a partial checksum inside the frame. 0 or -EINVAL. */
int zvs_qdio_fhdr_decode(const uint8_t in[ZVS_QDIO_FHDR_LEN], struct zvs_qdio_fhdr *h);
/* Cast-type and VLAN bits of flags[2] and vlan_id for a frame whose first bytes are
 * `eth` (at least min(len, 18) of them). */
void zvs_qdio_fhdr_classify(struct zvs_qdio_fhdr *h, const uint8_t *eth, uint32_t len);

/* The header of a frame of len (1..65535) bytes without offload metadata (zvs_vnet all 0)
 * whose first bytes are `eth` (at least min(len, 18) of them), written to dst: the bytes
 * zvs_qdio_fhdr_classify and zvs_qdio_fhdr_encode give for it, as four word stores
 * instead of a round trip through the host-order struct and its check, which such a
 * header cannot fail. Both sides write most frames' headers with it. */
static inline void zvs_qdio_fhdr_put_plain(uint8_t *dst, const uint8_t *eth, uint32_t len,
                                           uint16_t seq)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t cast = 0, vlan = 0, w0, w1, zero = 0;

    if (len >= ZVS_ETH_ALEN) {
        uint32_t a;
        uint16_t b;
        __builtin_memcpy(&a, eth, 4);
        __builtin_memcpy(&b, eth + 4, 2);
        cast = a == 0xFFFFFFFFu && b == 0xFFFF ? ZVS_QETH_L2_FLAG_BCAST
               : (eth[0] & 1) ? ZVS_QETH_L2_FLAG_MCAST : ZVS_QETH_L2_FLAG_UCAST;
        if (len >= ZVS_ETH_HLEN + ZVS_VLAN_HLEN && zvs_be16(eth + 12) == ZVS_ETHERTYPE_VLAN) {
            cast |= ZVS_QETH_L2_FLAG_VLAN;
            vlan = zvs_be16(eth + 14);
        }
    }
    /* bytes: id, flags[0..2], port_no, hdr_length, pkt_length, seq_no, vlan_id, 0... */
    w0 = ZVS_QETH_HDR_LAYER2 | cast << 24 | (uint64_t)ZVS_QDIO_FHDR_LEN << 40 |
         (uint64_t)__builtin_bswap16((uint16_t)len) << 48;
    w1 = (uint64_t)__builtin_bswap16(seq) | (uint64_t)__builtin_bswap16((uint16_t)vlan) << 16;
    __builtin_memcpy(dst, &w0, 8);
    __builtin_memcpy(dst + 8, &w1, 8);
    __builtin_memcpy(dst + 16, &zero, 8);
    __builtin_memcpy(dst + 24, &zero, 8);
#else
    struct zvs_qdio_fhdr h = { .id = ZVS_QETH_HDR_LAYER2, .hdr_length = ZVS_QDIO_FHDR_LEN,
                               .pkt_length = (uint16_t)len, .seq_no = seq };
    zvs_qdio_fhdr_classify(&h, eth, len);
    zvs_qdio_fhdr_encode(&h, dst);
#endif
}

/* ---- Reading a filled buffer (shared by both sides) --------------------------------- */

/* Where a region's data area is and how a buffer may use it. */
struct zvs_qdio_geom {
    uint8_t  *data;                     /* data area in this process's mapping */
    uint64_t  data_size;                /* QUEUESTORAGE */
    uint32_t  entry_size;               /* largest entry: ZVS_QDIO_ENTRY_SIZE */
    uint32_t  buf_entries;              /* entries an empty input buffer may offer (and the
                                           4 KB pages of a buffer): min(16, buf_bytes/4K),
                                           16 in a NIC region; a filled buffer may use up
                                           to ZVS_QDIO_NSBALE entries */
    uint32_t  buf_bytes;                /* bytes a buffer's entries together stay within:
                                           ZVS_QDIO_BUF_MAX in a NIC region */
};

/* One frame found in a buffer: header plus its bytes in iov[first .. first+niov-1]. */
struct zvs_qdio_parsed {
    struct zvs_qdio_fhdr hdr;
    uint8_t              first;         /* first iovec of the frame (bytes after header) */
    uint8_t              niov;          /* 1: contiguous; more: first/middle/last entries */
};

/* Walk the entries of a filled buffer (up to ZVS_QDIO_NSBALE, the rules at the top of this
 * file). Every SBALE is read once (a concurrent writer in another process cannot make a
 * checked value change afterwards) and checked: in the data area, entry sizes, the sum of
 * the entry lengths within buf_bytes (ZVS_QDIO_ERR_SIZE), fragment order, header, frame
 * size and pkt_length against the entry lengths. iov[] (the caller's memory) receives the
 * frame bytes of each entry. Returns the number of frames (>= 1), or -EPROTO with the bad
 * entry and a ZVS_QDIO_ERR_* reason in *sbalf. */
int zvs_qdio_sbal_parse(const struct zvs_qdio_geom *geo, const struct zvs_sbal *sbal,
                        struct iovec iov[ZVS_QDIO_NSBALE],
                        struct zvs_qdio_parsed fr[ZVS_QDIO_NSBALE], uint16_t *sbalf);

/* Parts of a (page-aligned) region mapping. */
static inline void *zvs_qdio_at(void *region, uint64_t off)
{
    return (uint8_t *)region + off;
}

/* Atomic access to an SLSB byte: the ownership hand-off. */
static inline uint8_t zvs_slsb_get(const uint8_t *slsb)
{
    return __atomic_load_n(slsb, __ATOMIC_ACQUIRE);
}

static inline void zvs_slsb_set(uint8_t *slsb, uint8_t state)
{
    __atomic_store_n(slsb, state, __ATOMIC_RELEASE);
}

/* Read all counters of a region (relaxed loads; each counter has one writer). */
void zvs_qdio_shm_counters(const struct zvs_qdio_shm_hdr *h, struct zvs_qdio_counters *out);

/* ---- Adapter side --------------------------------------------------------------------- */

struct zvs_qdio;

/* Make the region of one NIC (memfd + MAP_SHARED mapping, header filled, queues
 * not initialised: input 0x80, output 0xA0) and its two eventfds. AC1 starts with
 * SIGA-w needed. Returns 0, -EINVAL for a bad QUEUESTORAGE, or -errno. */
int  zvs_qdio_create(uint32_t queuestorage, struct zvs_qdio **out);
void zvs_qdio_destroy(struct zvs_qdio *q);
/* The program detached (its process ended, its driver closed): put every buffer back to
 * not-initialised so the next program can establish the queues. Counters are kept: they
 * belong to the NIC. -EBUSY while the switch still holds frames of an output buffer. */
int  zvs_qdio_reset(struct zvs_qdio *q);

int    zvs_qdio_memfd(const struct zvs_qdio *q);   /* region, to map or send to a guest */
int    zvs_qdio_siga_fd(const struct zvs_qdio *q); /* program -> adapter (SIGA-w/-r) */
int    zvs_qdio_irq_fd(const struct zvs_qdio *q);  /* adapter -> program (thin interrupt) */
void  *zvs_qdio_region(const struct zvs_qdio *q);
size_t zvs_qdio_size(const struct zvs_qdio *q);

/* Which SIGAs the program must issue (ZVS_QDIO_AC1_*). Clear SIGA_OUTPUT when the switch
 * polls the output queue every loop (in-process fast path: no system call per send). */
void zvs_qdio_set_ac1(struct zvs_qdio *q, uint32_t ac1);
/* Consume pending SIGA signals (non-blocking read of siga_fd); returns how many. */
uint64_t zvs_qdio_siga_ack(struct zvs_qdio *q);

/* Take frames from primed (0x62) output buffers, in buffer order from where the last call
 * stopped, up to max. Descriptors are built straight into out[] and point into the region
 * (no copy); scattered frames use iovec lists owned by the adapter. cookie names the
 * buffer. vid, pcp and flags are left 0: the switch classifies every frame itself
 * (forward.c), so it is done in one place. A buffer that does not parse is set to 0xAF
 * with SBALF and counted in out_errors. Frames stay valid until released. */
int  zvs_qdio_poll_output(struct zvs_qdio *q, struct zvs_frame *out, int max, uint16_t in_port);
/* Give frames back; a buffer returns to the program (0xA1) once all its frames are back. */
void zvs_qdio_release(struct zvs_qdio *q, const struct zvs_frame *frames, int n);

/* Copy frames (with their tag edit) into adapter-owned empty input buffers (0x41), several
 * per buffer; each buffer filled, and the last one at the end of the call, becomes 0x82,
 * then one thin interrupt if the program armed it. Never waits: returns the number
 * delivered; the rest are discarded and *why says why (ZVS_DROP_NO_BUFFER: no 0x41 buffer,
 * counted in iq_full; ZVS_DROP_OVERSIZE: larger than a buffer, counted in in_oversize;
 * ZVS_DROP_TX_FAIL: a tag edit without the bytes it needs, or offload metadata the guest
 * would refuse). Once no buffer is left, every later frame of the burst is discarded too,
 * so when only NO_BUFFER happened the frames delivered are exactly txs[0 .. ret-1]. */
int  zvs_qdio_deliver(struct zvs_qdio *q, const struct zvs_tx *txs, int n, enum zvs_drop *why);
/* Start loading what the next zvs_qdio_deliver touches, level 0, 1 or 2 of the chain
 * (the port op `prefetch`, dataplane/port.h); a hint that changes nothing. */
void zvs_qdio_prefetch(struct zvs_qdio *q, unsigned level);
/* Where level 2 loads: the entry the next delivered frame would start in (the buffer
 * being filled's next entry, or the next buffer's first as its SBAL says now), or NULL
 * when that offset would not leave an entry's room inside the data area. */
const uint8_t *zvs_qdio_prefetch_entry(const struct zvs_qdio *q);

void zvs_qdio_counters(const struct zvs_qdio *q, struct zvs_qdio_counters *out);

#endif
