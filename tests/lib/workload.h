/* In-process workload guests: the STR and RR workloads of the z/VM link aggregation
 * measurements (AWM streaming and request/response), played by a guest program on a NIC's
 * QDIO queues, so the data path can be measured and tested without kernel I/O.
 *
 * A workload attaches to the program side of one guest NIC (zvs_nic_qdio_create), in this
 * process, and plays one role:
 *  - STR:       bulk data one way: frames of frame_len bytes from `mac` to `peer_mac`, as
 *               fast as empty output buffers allow, a sequence number in each;
 *  - SINK:      the far end of STR: counts what arrives, checks sequence numbers;
 *  - RR_CLIENT: `threads` concurrent transactions; each sends a request (req_len payload
 *               bytes), waits for its response (rsp_len bytes), then sends the next;
 *  - RR_SERVER: answers every request it receives with a response of the length the
 *               request asks for, to the request's source MAC.
 * Every role also receives: STR data frames are accounted (sequence, latency) by whoever
 * gets them, so two STR guests can stream at each other.
 *
 * Time comes in as `now` (any unit: event-loop nanoseconds, or test rounds); latencies are
 * differences of `now` values. Nothing is allocated per frame.
 *
 * Wire format: Ethernet header (dst, src, EtherType 0x88B5, IEEE 802 Local Experimental
 * EtherType 1), then a 32-byte workload header (big-endian: magic "ZWL1", type, stream or
 * thread id, 64-bit sequence, 64-bit send time, 32-bit response length wanted), then
 * filler bytes whose value is their frame offset modulo 256 (so a receiver can verify).
 */
#ifndef ZVS_WORKLOAD_H
#define ZVS_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "dataplane/frame.h"
#include "dataplane/port.h"

#define ZVS_WL_ETHERTYPE        0x88B5  /* IEEE 802 Local Experimental EtherType 1 */
#define ZVS_WL_HDR_LEN          32u     /* workload header after the MAC header */
#define ZVS_WL_FRAME_MIN        64u     /* STR frame bytes (MAC header included, no FCS) */
#define ZVS_WL_FRAME_MAX        9000u
#define ZVS_WL_PAYLOAD_MIN      46u     /* RR payload: a frame of 60 bytes at least */
#define ZVS_WL_REQ_DEFAULT      200u    /* RR request payload bytes (AWM RR 200/1000) */
#define ZVS_WL_RSP_DEFAULT      1000u   /* RR response payload bytes */
#define ZVS_WL_MAX_THREADS      256u    /* RR client transactions in flight at most */
#define ZVS_WL_MAX_STREAMS      16u     /* STR streams (source MAC, stream id) tracked */

enum zvs_workload_kind {
    ZVS_WL_STR,                         /* streaming sender */
    ZVS_WL_SINK,                        /* streaming receiver */
    ZVS_WL_RR_CLIENT,                   /* request/response client */
    ZVS_WL_RR_SERVER,                   /* request/response server */
};

struct zvs_workload_params {
    enum zvs_workload_kind kind;
    uint8_t  mac[ZVS_ETH_ALEN];         /* the guest's MAC: source of what it sends */
    uint8_t  peer_mac[ZVS_ETH_ALEN];    /* STR and RR client: destination (unicast) */
    uint32_t frame_len;                 /* STR frame bytes, 64..9000 and <= MTU + 14;
                                           0: MTU-sized (MTU + 14, at most 9000) */
    uint32_t req_len;                   /* RR request payload bytes (0: 200) */
    uint32_t rsp_len;                   /* RR response payload bytes (0: 1000) */
    uint32_t threads;                   /* RR client transactions in flight (0: 1) */
    uint64_t count;                     /* STR frames / RR transactions to start (0: no end) */
    uint16_t stream;                    /* STR stream id carried in every frame */
    uint32_t pack;                      /* frames per output buffer (0: as many as fit) */
    bool     siga;                      /* true: issue SIGA-w as the adapter asks (switch
                                           driven by events); false: the switch polls the
                                           output queue, SIGA-w need is cleared (AC1) */
    bool     verify;                    /* check the filler bytes of every frame received */
};

struct zvs_workload_stats {
    uint64_t tx_frames;                 /* frames put into output buffers */
    uint64_t tx_bytes;                  /* their bytes (MAC header included) */
    uint64_t tx_blocked;                /* sends stopped: no empty output buffer */
    uint64_t rx_frames;                 /* frames taken from input buffers, all kinds */
    uint64_t rx_bytes;
    uint64_t rx_data;                   /* STR data frames received */
    uint64_t rx_requests;               /* RR requests received (server) */
    uint64_t rx_responses;              /* RR responses received (client) */
    uint64_t rx_foreign;                /* not a workload frame, or not for this role */
    uint64_t rx_corrupt;                /* verify: filler bytes or length wrong */
    uint64_t transactions;              /* client: responses matched; server: answered */
    uint64_t seq_errors;                /* gaps + frames out of order or repeated */
    uint64_t seq_lost;                  /* frames missing in the gaps */
    uint64_t lat_samples;               /* latencies measured (RR round trip, STR one way) */
    uint64_t lat_min;                   /* in units of `now`; 0 when no sample */
    uint64_t lat_max;
    uint64_t lat_avg;                   /* rounded down */
    uint64_t in_flight;                 /* client: transactions waiting for a response;
                                           server: responses waiting for an output buffer */
    bool     done;                      /* count reached and nothing in flight */
};

struct zvs_workload;

/* Attach a workload to NIC `nic` (a port from zvs_nic_qdio_create) and initialise its
 * queues (the program side must not be in use by anyone else). Returns 0, -EINVAL for bad
 * parameters or a port that is no QDIO NIC, -EBUSY (queues held by the adapter), -ENOMEM.
 * The workload must be destroyed before the NIC is (the NIC owns the queue memory). Once
 * a workload has initialised a NIC's queues, its input buffers belong to the adapter:
 * another workload on the same NIC gets -EBUSY (QDIO has no re-establish without a
 * device reset). */
int  zvs_workload_create(const struct zvs_workload_params *params, struct zvs_port *nic,
                         struct zvs_workload **out);
void zvs_workload_destroy(struct zvs_workload *w);

/* One step of the guest: receive up to `budget` frames (whole input buffers, so up to 15
 * more), answer or account them, then send up to `budget` frames. Returns frames received
 * plus frames sent (0: nothing to do now). */
int  zvs_workload_run(struct zvs_workload *w, uint64_t now, int budget);

/* Fault knob: stop (true) or resume (false) taking frames from the input queue, as a
 * guest that does not replenish its input buffers; the switch then counts discards. */
void zvs_workload_pause_rx(struct zvs_workload *w, bool paused);

void zvs_workload_stats(const struct zvs_workload *w, struct zvs_workload_stats *out);
const char *zvs_workload_kind_name(enum zvs_workload_kind kind);

#endif
