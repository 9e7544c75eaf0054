/* Workload guests on real QDIO NICs coupled to a switch with a memlink uplink: STR guest to
 * guest and to the LAN, RR client/server at 1, 10 and 50 threads, input-queue-full
 * discards, foreign and corrupt frames, SIGA-w on request, parameter checks. Every run
 * ends with exact counters on the workloads, the NIC ports, the uplink and the switch. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "backends/memlink.h"
#include "qdio/nic_qdio.h"
#include "qdio/qdio.h"
#include "dataplane/switch.h"
#include "tests/lib/workload.h"

#define QS_1M (1u * ZVS_QDIO_MB)
#define QS_8M (8u * ZVS_QDIO_MB)

static const uint8_t MAC_A[6] = { 0x02, 0x00, 0x0C, 0x00, 0x00, 0x05 };
static const uint8_t MAC_B[6] = { 0x02, 0x00, 0x0C, 0x00, 0x00, 0x0B };
static const uint8_t MAC_LAN[6] = { 0x00, 0x1B, 0x21, 0x00, 0x00, 0x01 };
static const uint8_t MAC_BCAST[6] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF };

struct lab {
    struct zvs_switch   *sw;
    struct zvs_port     *up;            /* memlink uplink "28BA" */
    struct zvs_port     *a, *b;         /* NICs LNXA.F000 and LNXB.F000 */
    struct zvs_workload *wa, *wb;
};

static struct zvs_guest guest(const char *owner, const uint8_t *mac)
{
    struct zvs_guest g = { .vdev = 0xF000, .macprotect = true };
    strcpy(g.owner, owner);
    memcpy(g.mac, mac, 6);
    zvs_vlan_port_init(&g.vlan, ZVS_VLAN_ACCESS, 1);
    return g;
}

static void lab_open(struct lab *l, uint32_t qs_a, uint32_t qs_b, uint32_t mtu)
{
    struct zvs_switch_params p = { .name = "CCBVSW1", .vlan = { .aware = false, .native_vid = 1 } };
    int err = 0;

    memset(l, 0, sizeof(*l));
    l->sw = zvs_switch_create(&p);
    assert_non_null(l->sw);
    l->up = zvs_memlink_create("28BA", 1024, 0);
    assert_non_null(l->up);
    assert_int_equal(zvs_switch_add_uplink(l->sw, l->up), 0);
    l->a = zvs_nic_qdio_create("LNXA.F000", qs_a, mtu, &err);
    l->b = zvs_nic_qdio_create("LNXB.F000", qs_b, mtu, &err);
    assert_non_null(l->a);
    assert_non_null(l->b);
    struct zvs_guest ga = guest("LNXA", MAC_A), gb = guest("LNXB", MAC_B);
    assert_int_equal(zvs_switch_add_guest(l->sw, l->a, &ga), 0);
    assert_int_equal(zvs_switch_add_guest(l->sw, l->b, &gb), 0);
}

static void lab_close(struct lab *l)
{
    zvs_workload_destroy(l->wa);
    zvs_workload_destroy(l->wb);
    zvs_switch_destroy(l->sw);
}

static struct zvs_workload *wl(struct zvs_port *nic, enum zvs_workload_kind kind,
                               const uint8_t *mac, const uint8_t *peer,
                               struct zvs_workload_params *p)
{
    struct zvs_workload *w = NULL;

    p->kind = kind;
    memcpy(p->mac, mac, 6);
    if (peer)
        memcpy(p->peer_mac, peer, 6);
    assert_int_equal(zvs_workload_create(p, nic, &w), 0);
    assert_non_null(w);
    return w;
}

/* Let the switch take everything the guests primed. */
static void pump(struct lab *l, uint64_t now)
{
    while (zvs_switch_poll(l->sw, l->a, now) > 0 || zvs_switch_poll(l->sw, l->b, now) > 0
           || zvs_switch_poll(l->sw, l->up, now) > 0) {
    }
}

/* The frame a STR sender puts on the wire, built independently of workload.c. */
static void expect_str_frame(uint8_t *f, uint32_t len, const uint8_t *dst, const uint8_t *src,
                             uint16_t stream, uint64_t seq, uint64_t ts)
{
    for (uint32_t k = 0; k < len; k++)
        f[k] = (uint8_t)k;
    memcpy(f, dst, 6);
    memcpy(f + 6, src, 6);
    f[12] = 0x88;
    f[13] = 0xB5;
    memcpy(f + 14, "ZWL1", 4);
    memset(f + 18, 0, 28);
    f[18] = 1;                          /* DATA */
    f[20] = (uint8_t)(stream >> 8);
    f[21] = (uint8_t)stream;
    for (int i = 0; i < 8; i++) {
        f[22 + i] = (uint8_t)(seq >> (56 - 8 * i));
        f[30 + i] = (uint8_t)(ts >> (56 - 8 * i));
    }
}

static void str_guest_to_guest(void **state)
{
    struct lab l;
    struct zvs_workload_params pa = { .frame_len = 1514, .count = 1000, .stream = 7 };
    struct zvs_workload_params pb = { .verify = true };
    struct zvs_workload_stats sa, sb;
    struct zvs_switch_stats ss;
    uint64_t now = 0;

    lab_open(&l, QS_8M, QS_8M, 1500);
    l.wa = wl(l.a, ZVS_WL_STR, MAC_A, MAC_B, &pa);
    l.wb = wl(l.b, ZVS_WL_SINK, MAC_B, NULL, &pb);
    do {
        now++;
        zvs_workload_run(l.wa, now, 64);
        pump(&l, now);
        zvs_workload_run(l.wb, now, 64);
        zvs_workload_stats(l.wa, &sa);
        assert_true(now < 1000);
    } while (!sa.done);
    zvs_workload_run(l.wb, now, 64);
    zvs_workload_stats(l.wa, &sa);
    zvs_workload_stats(l.wb, &sb);
    assert_int_equal(sa.tx_frames, 1000);
    assert_int_equal(sa.tx_bytes, 1000 * 1514);
    assert_int_equal(sa.tx_blocked, 0);
    assert_int_equal(sa.rx_frames, 0);
    assert_int_equal(sb.rx_frames, 1000);
    assert_int_equal(sb.rx_bytes, 1000 * 1514);
    assert_int_equal(sb.rx_data, 1000);
    assert_int_equal(sb.seq_errors, 0);
    assert_int_equal(sb.seq_lost, 0);
    assert_int_equal(sb.rx_corrupt, 0);
    assert_int_equal(sb.rx_foreign, 0);
    assert_int_equal(sb.tx_frames, 0);
    /* one-way latency: sent, switched and received in the same round */
    assert_int_equal(sb.lat_samples, 1000);
    assert_int_equal(sb.lat_max, 0);
    /* 64 frames a round: 16 rounds, the last with 40 */
    assert_int_equal(now, 16);

    assert_int_equal(l.a->ctr.in_packets, 1000);
    assert_int_equal(l.a->ctr.in_bytes, 1000 * 1514);
    assert_int_equal(l.a->ctr.out_packets, 0);
    assert_int_equal(l.b->ctr.out_packets, 1000);
    assert_int_equal(l.b->ctr.out_bytes, 1000 * 1514);
    assert_int_equal(l.b->ctr.out_discards, 0);
    assert_int_equal(l.b->ctr.in_packets, 0);
    assert_int_equal(l.up->ctr.out_packets, 0);
    assert_int_equal(zvs_memlink_pending(l.up), 0);
    zvs_switch_stats(l.sw, &ss);
    assert_int_equal(ss.frames, 1000);
    assert_int_equal(ss.bursts, 16 * 2);   /* 64 a round, 32 a burst */
    assert_int_equal(ss.floods, 0);

    struct zvs_qdio_counters qa, qb;
    zvs_qdio_counters(zvs_nic_qdio_queues(l.a), &qa);
    zvs_qdio_counters(zvs_nic_qdio_queues(l.b), &qb);
    assert_int_equal(qa.prog.out_frames, 1000);
    assert_int_equal(qa.adapter.out_frames, 1000);
    assert_int_equal(qa.adapter.out_bytes, 1000 * 1514);
    assert_int_equal(qa.prog.siga_w, 0);   /* polled: SIGA-w not asked for */
    /* pack 16: 16 frames of 1514 per buffer (two per 4 KB page, eight pages); sends go 32
     * at a time, two buffers each: 1000 = 31 x 32 + 8 frames in 31 x 2 + 1 buffers */
    assert_int_equal(qa.prog.out_bufs_primed, 63);
    assert_int_equal(qb.adapter.in_frames, 1000);
    assert_int_equal(qb.adapter.in_bytes, 1000 * 1514);
    assert_int_equal(qb.adapter.iq_full, 0);
    assert_int_equal(qb.prog.in_frames, 1000);
    lab_close(&l);
}

static void str_to_lan_ends_in_memlink(void **state)
{
    struct lab l;
    struct zvs_workload_params pa = { .frame_len = 64, .count = 100 };
    struct zvs_workload_stats sa;
    uint8_t got[128], want[64];

    lab_open(&l, QS_8M, QS_8M, 1500);
    l.wa = wl(l.a, ZVS_WL_STR, MAC_A, MAC_LAN, &pa);
    assert_int_equal(zvs_workload_run(l.wa, 5, 30), 30);
    assert_int_equal(zvs_workload_run(l.wa, 6, 100), 70);
    assert_int_equal(zvs_workload_run(l.wa, 7, 100), 0);   /* count reached */
    pump(&l, 7);
    zvs_workload_stats(l.wa, &sa);
    assert_true(sa.done);
    assert_int_equal(sa.tx_frames, 100);
    assert_int_equal(sa.tx_bytes, 6400);
    assert_int_equal(zvs_memlink_pending(l.up), 100);
    for (uint64_t i = 0; i < 100; i++) {
        expect_str_frame(want, 64, MAC_LAN, MAC_A, 0, i, i < 30 ? 5 : 6);
        assert_int_equal(zvs_memlink_read(l.up, got, sizeof(got), NULL), 64);
        assert_memory_equal(got, want, 64);
    }
    assert_int_equal(zvs_memlink_read(l.up, got, sizeof(got), NULL), -EAGAIN);
    assert_int_equal(l.a->ctr.in_packets, 100);
    assert_int_equal(l.a->ctr.in_bytes, 6400);
    assert_int_equal(l.up->ctr.out_packets, 100);
    assert_int_equal(l.up->ctr.out_bytes, 6400);
    assert_int_equal(l.b->ctr.out_packets, 0);
    struct zvs_memlink_stats ms;
    zvs_memlink_stats(l.up, &ms);
    assert_int_equal(ms.tx_frames, 100);
    assert_int_equal(ms.tx_bytes, 6400);
    lab_close(&l);
}

/* Packing mode (pack 16) at QUEUESTORAGE 1M: 16 small frames per output buffer, the same
 * frames on the wire, a queue that holds 16 times as many frames before it blocks. */
static void str_packed_1m(void **state)
{
    struct lab l;
    struct zvs_workload_params pa = { .frame_len = 64, .pack = 16 };
    struct zvs_workload_stats sa;
    uint8_t got[128], want[64];

    lab_open(&l, QS_1M, QS_1M, 1500);
    l.wa = wl(l.a, ZVS_WL_STR, MAC_A, MAC_LAN, &pa);
    /* sends go out 32 at a time: two full buffers each */
    assert_int_equal(zvs_workload_run(l.wa, 1, 100), 100);
    struct zvs_qdio_counters qa;
    zvs_qdio_counters(zvs_nic_qdio_queues(l.a), &qa);
    assert_int_equal(qa.prog.out_bufs_primed, 7);      /* 32, 32, 32 and 4 frames */
    pump(&l, 1);
    assert_int_equal(zvs_memlink_pending(l.up), 100);
    for (uint64_t i = 0; i < 100; i++) {
        expect_str_frame(want, 64, MAC_LAN, MAC_A, 0, i, 1);
        assert_int_equal(zvs_memlink_read(l.up, got, sizeof(got), NULL), 64);
        assert_memory_equal(got, want, 64);
    }
    zvs_qdio_counters(zvs_nic_qdio_queues(l.a), &qa);
    assert_int_equal(qa.adapter.out_bufs_processed, 7);
    assert_int_equal(qa.adapter.out_frames, 100);
    assert_int_equal(qa.adapter.out_bytes, 6400);
    assert_int_equal(l.a->ctr.in_packets, 100);

    /* nobody polls: the 8 buffers 1M has page sets for (the 7 done ones reaped on the
     * way) x 16 frames */
    assert_int_equal(zvs_workload_run(l.wa, 2, 3000), 8 * 16);
    zvs_workload_stats(l.wa, &sa);
    assert_int_equal(sa.tx_frames, 100 + 8 * 16);
    assert_int_equal(sa.tx_blocked, 1);
    uint32_t drained = 0;
    while (zvs_switch_poll(l.sw, l.a, 3) > 0)
        drained += zvs_memlink_drain(l.up);
    assert_int_equal(drained, 8 * 16);
    assert_int_equal(l.up->ctr.out_packets, 100 + 8 * 16);
    assert_int_equal(l.up->ctr.out_discards, 0);
    lab_close(&l);
}

static void rr_run(uint32_t threads, uint64_t k)
{
    struct lab l;
    struct zvs_workload_params pa = { .threads = threads, .count = k, .verify = true };
    struct zvs_workload_params pb = { .verify = true };
    struct zvs_workload_stats sa, sb;
    struct zvs_switch_stats ss;
    uint64_t now = 0;

    lab_open(&l, QS_8M, QS_8M, 1500);
    l.wa = wl(l.a, ZVS_WL_RR_CLIENT, MAC_A, MAC_B, &pa);
    l.wb = wl(l.b, ZVS_WL_RR_SERVER, MAC_B, NULL, &pb);
    do {
        now++;
        zvs_workload_run(l.wa, now, 64);
        pump(&l, now);
        zvs_workload_run(l.wb, now, 64);
        pump(&l, now);
        zvs_workload_stats(l.wa, &sa);
        assert_true(now < 100000);
    } while (!sa.done);
    zvs_workload_stats(l.wb, &sb);

    uint64_t req = 14 + 200, rsp = 14 + 1000;
    assert_int_equal(sa.transactions, k);
    assert_int_equal(sa.in_flight, 0);
    assert_int_equal(sa.tx_frames, k);
    assert_int_equal(sa.tx_bytes, k * req);
    assert_int_equal(sa.rx_frames, k);
    assert_int_equal(sa.rx_responses, k);
    assert_int_equal(sa.rx_bytes, k * rsp);
    assert_int_equal(sa.seq_errors, 0);
    assert_int_equal(sa.rx_corrupt, 0);
    /* a request goes out in round r, its response is read in round r + 1 */
    assert_int_equal(sa.lat_samples, k);
    assert_int_equal(sa.lat_min, 1);
    assert_int_equal(sa.lat_max, 1);
    assert_int_equal(sa.lat_avg, 1);
    assert_int_equal(now, (k + threads - 1) / threads + 1);
    assert_int_equal(sb.transactions, k);
    assert_int_equal(sb.rx_requests, k);
    assert_int_equal(sb.rx_bytes, k * req);
    assert_int_equal(sb.tx_frames, k);
    assert_int_equal(sb.tx_bytes, k * rsp);
    assert_int_equal(sb.in_flight, 0);
    assert_int_equal(sb.rx_corrupt, 0);
    assert_int_equal(sb.rx_foreign, 0);

    assert_int_equal(l.a->ctr.in_packets, k);
    assert_int_equal(l.a->ctr.in_bytes, k * req);
    assert_int_equal(l.a->ctr.out_packets, k);
    assert_int_equal(l.a->ctr.out_bytes, k * rsp);
    assert_int_equal(l.b->ctr.in_packets, k);
    assert_int_equal(l.b->ctr.in_bytes, k * rsp);
    assert_int_equal(l.b->ctr.out_packets, k);
    assert_int_equal(l.b->ctr.out_bytes, k * req);
    assert_int_equal(l.up->ctr.out_packets, 0);
    zvs_switch_stats(l.sw, &ss);
    assert_int_equal(ss.frames, 2 * k);
    lab_close(&l);
}

static void rr_one_thread(void **state) { rr_run(1, 200); }
static void rr_ten_threads(void **state) { rr_run(10, 1000); }
static void rr_fifty_threads(void **state) { rr_run(50, 1000); }

static void full_input_queue_discards(void **state)
{
    struct lab l;
    struct zvs_workload_params pa = { .frame_len = 1000 };
    struct zvs_workload_params pb = { .verify = true };
    struct zvs_workload_stats sa, sb;

    /* QUEUESTORAGE 1M: 8 input buffers armed (B's page sets), 16 entries of 4 KB each, a
     * frame per entry. Each round's burst of 20 fills one buffer and puts 4 frames into
     * the next, which the end of the delivery primes: the queue is full after 4 rounds. */
    lab_open(&l, QS_1M, QS_1M, 1500);
    l.wa = wl(l.a, ZVS_WL_STR, MAC_A, MAC_B, &pa);
    l.wb = wl(l.b, ZVS_WL_SINK, MAC_B, NULL, &pb);
    zvs_workload_pause_rx(l.wb, true);
    for (int r = 1; r <= 10; r++) {
        assert_int_equal(zvs_workload_run(l.wa, (uint64_t)r, 20), 20);
        assert_int_equal(zvs_workload_run(l.wb, (uint64_t)r, 20), 0);
        pump(&l, (uint64_t)r);
    }
    assert_int_equal(l.a->ctr.in_packets, 200);
    assert_int_equal(l.b->ctr.out_packets, 80);
    assert_int_equal(l.b->ctr.out_bytes, 80 * 1000);
    assert_int_equal(l.b->ctr.out_discards, 120);
    assert_int_equal(l.b->ctr.drops[ZVS_DROP_NO_BUFFER], 120);
    assert_int_equal(l.b->ctr.out_errors, 0);
    struct zvs_device_counters d;
    zvs_port_device_counters(l.b, &d);
    assert_int_equal(d.rx_packets, 80);
    assert_int_equal(d.rx_discards, 120);
    struct zvs_qdio_counters qb;
    zvs_qdio_counters(zvs_nic_qdio_queues(l.b), &qb);
    assert_int_equal(qb.adapter.iq_full, 120);
    assert_int_equal(qb.adapter.in_bufs_primed, 8);

    /* B takes its 80 frames (seq 0..79), then 10 more arrive: seq 200..209, into buffer
     * 8, which got buffer 0's page set. */
    zvs_workload_pause_rx(l.wb, false);
    assert_int_equal(zvs_workload_run(l.wb, 11, 200), 80);
    assert_int_equal(zvs_workload_run(l.wa, 12, 10), 10);
    pump(&l, 12);
    assert_int_equal(zvs_workload_run(l.wb, 12, 200), 10);
    zvs_workload_stats(l.wa, &sa);
    zvs_workload_stats(l.wb, &sb);
    assert_int_equal(sa.tx_frames, 210);
    assert_int_equal(sb.rx_data, 90);
    assert_int_equal(sb.seq_errors, 1);
    assert_int_equal(sb.seq_lost, 120);
    assert_int_equal(sb.rx_corrupt, 0);
    /* first frame waited 10 rounds; the last ones none */
    assert_int_equal(sb.lat_max, 10);
    assert_int_equal(sb.lat_min, 0);
    assert_int_equal(l.b->ctr.out_packets, 90);
    assert_int_equal(l.b->ctr.out_discards, 120);
    zvs_qdio_counters(zvs_nic_qdio_queues(l.b), &qb);
    assert_int_equal(qb.adapter.in_bufs_primed, 9);
    assert_int_equal(qb.prog.in_bufs_processed, 9);
    lab_close(&l);
}

static void str_blocks_when_output_queue_full(void **state)
{
    struct lab l;
    struct zvs_workload_params pa = { .frame_len = 1000 };
    struct zvs_workload_stats sa;

    lab_open(&l, QS_1M, QS_1M, 1500);
    l.wa = wl(l.a, ZVS_WL_STR, MAC_A, MAC_LAN, &pa);
    /* 8 output buffers outstanding at 1M (its page sets), 16 frames of 1000 bytes each
     * (four per 4 KB page, 4 pages); nobody polls the NIC */
    assert_int_equal(zvs_workload_run(l.wa, 1, 200), 128);
    assert_int_equal(zvs_workload_run(l.wa, 2, 200), 0);
    zvs_workload_stats(l.wa, &sa);
    assert_int_equal(sa.tx_frames, 128);
    assert_int_equal(sa.tx_blocked, 2);
    pump(&l, 3);
    assert_int_equal(zvs_memlink_pending(l.up), 128);
    assert_int_equal(zvs_workload_run(l.wa, 4, 200), 128);
    pump(&l, 4);
    assert_int_equal(zvs_memlink_pending(l.up), 256);
    assert_int_equal(l.up->ctr.out_packets, 256);
    assert_int_equal(l.up->ctr.out_bytes, 256 * 1000);
    lab_close(&l);
}

/* A frame from the LAN for B: not a workload frame, or one with spoiled filler. */
static void foreign_and_corrupt_frames(void **state)
{
    struct lab l;
    struct zvs_workload_params pb = { .verify = true };
    struct zvs_workload_stats sb;
    uint8_t f[100];

    lab_open(&l, QS_8M, QS_8M, 1500);
    l.wb = wl(l.b, ZVS_WL_SINK, MAC_B, NULL, &pb);
    memset(f, 0, sizeof(f));
    memcpy(f, MAC_B, 6);
    memcpy(f + 6, MAC_LAN, 6);
    f[12] = 0x08;                       /* IPv4: not ours */
    assert_int_equal(zvs_memlink_inject(l.up, f, 100, NULL), 0);
    expect_str_frame(f, 100, MAC_B, MAC_LAN, 3, 0, 0);
    assert_int_equal(zvs_memlink_inject(l.up, f, 100, NULL), 0);   /* good, seq 0 */
    expect_str_frame(f, 100, MAC_BCAST, MAC_LAN, 3, 1, 0);
    f[99] ^= 0xFF;
    assert_int_equal(zvs_memlink_inject(l.up, f, 100, NULL), 0);   /* bad filler, seq 1 */
    expect_str_frame(f, 40, MAC_B, MAC_LAN, 3, 2, 0);
    assert_int_equal(zvs_memlink_inject(l.up, f, 40, NULL), 0);    /* too short for us */
    pump(&l, 1);
    assert_int_equal(zvs_workload_run(l.wb, 1, 32), 4);
    zvs_workload_stats(l.wb, &sb);
    assert_int_equal(sb.rx_frames, 4);
    assert_int_equal(sb.rx_bytes, 340);
    assert_int_equal(sb.rx_foreign, 2);
    assert_int_equal(sb.rx_data, 2);
    assert_int_equal(sb.rx_corrupt, 1);
    assert_int_equal(sb.seq_errors, 0);
    assert_int_equal(l.up->ctr.in_packets, 4);
    assert_int_equal(l.b->ctr.out_packets, 4);
    lab_close(&l);
}

static void siga_w_when_asked(void **state)
{
    struct lab l;
    struct zvs_workload_params pa = { .frame_len = 64, .siga = true };
    struct zvs_qdio_counters qa;

    lab_open(&l, QS_8M, QS_8M, 1500);
    l.wa = wl(l.a, ZVS_WL_STR, MAC_A, MAC_LAN, &pa);
    assert_int_equal(zvs_workload_run(l.wa, 1, 64), 64);   /* two sends of 32 */
    zvs_qdio_counters(zvs_nic_qdio_queues(l.a), &qa);
    assert_int_equal(qa.prog.siga_w, 2);
    assert_int_equal(zvs_qdio_siga_ack(zvs_nic_qdio_queues(l.a)), 2);
    lab_close(&l);
}

static void server_answers_requested_length(void **state)
{
    struct lab l;
    struct zvs_workload_params pa = { .threads = 3, .count = 3, .req_len = 46, .rsp_len = 1486 };
    struct zvs_workload_params pb = { 0 };
    struct zvs_workload_stats sa;

    lab_open(&l, QS_8M, QS_8M, 1500);
    l.wa = wl(l.a, ZVS_WL_RR_CLIENT, MAC_A, MAC_B, &pa);
    l.wb = wl(l.b, ZVS_WL_RR_SERVER, MAC_B, NULL, &pb);
    assert_int_equal(zvs_workload_run(l.wa, 10, 8), 3);
    pump(&l, 10);
    assert_int_equal(zvs_workload_run(l.wb, 10, 8), 6);    /* 3 in, 3 out */
    pump(&l, 10);
    assert_int_equal(zvs_workload_run(l.wa, 13, 8), 3);    /* 3 in, none left to start */
    zvs_workload_stats(l.wa, &sa);
    assert_true(sa.done);
    assert_int_equal(sa.transactions, 3);
    assert_int_equal(sa.tx_bytes, 3 * 60);
    assert_int_equal(sa.rx_bytes, 3 * 1500);
    assert_int_equal(sa.lat_min, 3);
    assert_int_equal(sa.lat_max, 3);
    assert_int_equal(l.a->ctr.out_bytes, 3 * 1500);
    lab_close(&l);
}

static void create_checks_parameters(void **state)
{
    struct lab l;
    struct zvs_workload *w = (struct zvs_workload *)&w;
    struct zvs_workload_stats s;

    lab_open(&l, QS_8M, QS_1M, 1500);
    struct zvs_workload_params p = { .kind = ZVS_WL_STR };
    memcpy(p.mac, MAC_A, 6);
    memcpy(p.peer_mac, MAC_LAN, 6);
    p.frame_len = 63;
    assert_int_equal(zvs_workload_create(&p, l.a, &w), -EINVAL);
    assert_null(w);
    p.frame_len = 1515;                 /* MTU 1500 + 14 is the largest */
    assert_int_equal(zvs_workload_create(&p, l.a, &w), -EINVAL);
    p.frame_len = 64;
    p.mac[0] |= 1;                      /* group address as source */
    assert_int_equal(zvs_workload_create(&p, l.a, &w), -EINVAL);
    p.mac[0] &= (uint8_t)~1;
    p.pack = 17;
    assert_int_equal(zvs_workload_create(&p, l.a, &w), -EINVAL);
    p.pack = 0;
    assert_int_equal(zvs_workload_create(&p, l.up, &w), -EINVAL);  /* not a QDIO NIC */
    p.kind = ZVS_WL_RR_CLIENT;
    p.threads = ZVS_WL_MAX_THREADS + 1;
    assert_int_equal(zvs_workload_create(&p, l.a, &w), -EINVAL);
    p.threads = 0;
    p.req_len = 45;
    assert_int_equal(zvs_workload_create(&p, l.a, &w), -EINVAL);
    p.req_len = 0;
    p.rsp_len = 1501;                   /* payload at most the MTU */
    assert_int_equal(zvs_workload_create(&p, l.a, &w), -EINVAL);
    p.rsp_len = 1500;
    assert_int_equal(zvs_workload_create(&p, l.b, &w), 0);
    zvs_workload_destroy(w);
    /* B's input buffers now belong to the adapter: its queues cannot be set up again */
    assert_int_equal(zvs_workload_create(&p, l.b, &w), -EBUSY);
    p.rsp_len = 0;
    p.kind = (enum zvs_workload_kind)9;
    assert_int_equal(zvs_workload_create(&p, l.a, &w), -EINVAL);

    /* Default STR frame: MTU-sized. */
    p = (struct zvs_workload_params){ .kind = ZVS_WL_STR, .count = 1 };
    memcpy(p.mac, MAC_A, 6);
    memcpy(p.peer_mac, MAC_LAN, 6);
    assert_int_equal(zvs_workload_create(&p, l.a, &w), 0);
    assert_int_equal(zvs_workload_run(w, 1, 8), 1);
    zvs_workload_stats(w, &s);
    assert_int_equal(s.tx_bytes, 1514);
    zvs_workload_destroy(w);
    lab_close(&l);

    /* Jumbo NIC (MTU 9000 at 8M): the default stops at the workload's 9000-byte limit. */
    lab_open(&l, QS_8M, QS_1M, ZVS_NIC_MTU_DEFAULT);
    assert_int_equal(zvs_workload_create(&p, l.a, &w), 0);
    assert_int_equal(zvs_workload_run(w, 1, 8), 1);
    zvs_workload_stats(w, &s);
    assert_int_equal(s.tx_bytes, 9000);
    zvs_workload_destroy(w);
    /* At 1M a buffer holds 65504 bytes of frame as at 8M: B keeps MTU 9000 and sends the
     * workload's largest frame, 9000 bytes, as A does (4060 was its limit with 4 KB
     * buffers); 9001 is past the workload's limit. */
    assert_int_equal(l.b->mtu, ZVS_NIC_MTU_DEFAULT);
    assert_int_equal(l.b->max_gso, 65504);
    p.frame_len = 9001;
    assert_int_equal(zvs_workload_create(&p, l.b, &w), -EINVAL);
    p.frame_len = 0;
    assert_int_equal(zvs_workload_create(&p, l.b, &w), 0);
    assert_int_equal(zvs_workload_run(w, 1, 8), 1);
    zvs_workload_stats(w, &s);
    assert_int_equal(s.tx_bytes, 9000);
    zvs_workload_destroy(w);
    lab_close(&l);

    /* The NIC's own caps at every QUEUESTORAGE: max_gso 65504 (64 KB less the frame
     * header), MTU at most 65486 (room for the Ethernet header and a tag). */
    int err = 0;
    for (uint32_t mb = 1; mb <= 8; mb += 7) {
        struct zvs_port *nic = zvs_nic_qdio_create("LNXC.F000", mb * ZVS_QDIO_MB, 0, &err);
        assert_non_null(nic);
        assert_int_equal(nic->max_gso, 65504);
        assert_int_equal(nic->mtu, 65486);
        nic->ops->destroy(nic);
        nic = zvs_nic_qdio_create("LNXC.F000", mb * ZVS_QDIO_MB, 70000, &err);
        assert_non_null(nic);
        assert_int_equal(nic->mtu, 65486);
        nic->ops->destroy(nic);
        nic = zvs_nic_qdio_create("LNXC.F000", mb * ZVS_QDIO_MB, 1500, &err);
        assert_non_null(nic);
        assert_int_equal(nic->mtu, 1500);
        assert_int_equal(nic->max_gso, 65504);
        nic->ops->destroy(nic);
    }
    assert_null(zvs_nic_qdio_create("LNXC.F000", 9 * ZVS_QDIO_MB, 0, &err));
    assert_int_equal(err, -EINVAL);
    assert_string_equal(zvs_workload_kind_name(ZVS_WL_RR_SERVER), "RR-SERVER");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(str_guest_to_guest),
        cmocka_unit_test(str_to_lan_ends_in_memlink),
        cmocka_unit_test(rr_one_thread),
        cmocka_unit_test(rr_ten_threads),
        cmocka_unit_test(rr_fifty_threads),
        cmocka_unit_test(full_input_queue_discards),
        cmocka_unit_test(str_blocks_when_output_queue_full),
        cmocka_unit_test(foreign_and_corrupt_frames),
        cmocka_unit_test(siga_w_when_asked),
        cmocka_unit_test(server_answers_requested_length),
        cmocka_unit_test(create_checks_parameters),
        cmocka_unit_test(str_packed_1m),
    };
    return cmocka_run_group_tests_name("workload", tests, NULL, NULL);
}
