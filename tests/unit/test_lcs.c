/* lcs: the kernel's drops of what a guest sends become the NIC's guest-overrun discards.
 *
 * The LCS socket is opened on one end of a veth pair in the test's own network namespace
 * (skipped when that is not permitted); the peer on the other end plays the guest's tap
 * writing frames. The socket's receive ring is made small (RING slots instead of
 * ZVS_LCS_RING_FRAMES), so a burst of frames nobody reads overflows it: every frame sent
 * is then either read by the driver (unbound, it reads and drops) or a kernel drop, and
 * the drops are what the NIC counts. A second pair carries the batched paths end to end:
 * frames of every size written on one peer cross two LCS drivers and a switch (the ring
 * into the output buffers, the socket for frames past a slot, sendmmsg out of the input
 * buffers) and reach the other peer whole and in order. The ring reader's own cases
 * follow: a frame past a slot the kernel could not keep whole, a burst that meets a full
 * output queue, a link that went down.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "backends/lcs.h"
#include "dataplane/switch.h"
#include "qdio/nic_qdio.h"
#include "qdio/qdio.h"
#include "netns.h"

#define BURST 200                       /* far more than the small ring holds */
#define RING  64                        /* its slots */

static const uint8_t MAC_A[6] = { 0x02, 0x00, 0x5E, 0x77, 0x00, 0x0A };
static const uint8_t MAC_B[6] = { 0x02, 0x00, 0x5E, 0x77, 0x00, 0x0B };
static const uint8_t MAC_C[6] = { 0x02, 0x00, 0x5E, 0x77, 0x00, 0x0C };

static bool netns_ok;

static int setup_netns(void **state)
{
    netns_ok = tnet_enter();
    if (netns_ok) {
        tnet_veth_add("la", "02:00:5e:77:00:0a", "lb", "02:00:5e:77:00:0b");
        tnet_veth_add("lc", "02:00:5e:77:00:0c", "ld", "02:00:5e:77:00:0d");
        tnet_sh("for i in lc ld; do ip link set $i mtu 9000; done");
    }
    return 0;
}

/* Frames waiting in the ring, read by the unbound driver and thrown away (counted).
 * Returns every frame it has thrown away since it opened. */
static uint64_t drain(struct zvs_guest_tap *t)
{
    struct zvs_guest_tap_stats st;
    uint64_t last;
    zvs_guest_tap_stats(t, &st);
    do {
        last = st.tap_rx_unbound;
        assert_int_equal(zvs_guest_tap_pump_out(t), 0);
        zvs_guest_tap_stats(t, &st);
    } while (st.tap_rx_unbound != last);
    return st.tap_rx_unbound;
}

/* The peer sends BURST frames nobody reads; then read and fold until every one is
 * accounted for (the veth delivers in a softirq, bounded wait). Returns the drops. */
static uint64_t burst_and_fold(struct zvs_guest_tap *t, int peer, struct zvs_port *nic,
                               uint64_t *read_out)
{
    uint8_t f[64];
    uint64_t before = drain(t);
    for (int i = 0; i < BURST; i++) {
        tnet_frame(f, sizeof f, (uint8_t)i, MAC_A, MAC_B);
        tnet_peer_send(peer, f, sizeof f, NULL);
    }
    uint64_t got = 0, dropped = 0;
    int64_t deadline = tnet_now_ms() + TNET_RX_WAIT_MS;
    while (got + dropped < BURST && tnet_now_ms() < deadline) {
        dropped += zvs_lcs_fold_kernel_drops(t, nic);
        got = drain(t) - before;
    }
    *read_out = got;
    return dropped;
}

static void test_kernel_drops_are_the_nics_discards(void **state)
{
    if (!netns_ok)
        skip();
    struct zvs_guest_tap *t;
    assert_int_equal(zvs_lcs_open_ring(-1, "la", RING, &t), 0);
    int peer = tnet_peer_open("lb", false);
    struct zvs_port nic;
    memset(&nic, 0, sizeof nic);
    nic.role = ZVS_PORT_GUEST;
    assert_int_equal(zvs_lcs_fold_kernel_drops(t, &nic), 0);      /* nothing yet */

    uint64_t got, dropped = burst_and_fold(t, peer, &nic, &got);
    assert_int_equal(got + dropped, BURST);       /* each frame read or dropped, once */
    assert_true(dropped > 0 && got > 0);
    assert_int_equal(nic.ctr.drops[ZVS_DROP_GUEST_OVERRUN], dropped);
    assert_int_equal(nic.ctr.in_discards, dropped);
    assert_int_equal(nic.ctr.in_packets, 0);      /* never reached the switch */
    assert_int_equal(nic.ctr.in_errors + nic.ctr.out_discards + nic.ctr.out_errors, 0);
    for (int k = 0; k < ZVS_DROP__COUNT; k++)
        if (k != ZVS_DROP_GUEST_OVERRUN)
            assert_int_equal(nic.ctr.drops[k], 0);
    /* z/VM's view: a NIC transmits what enters the switch; these are its TX discards. */
    struct zvs_device_counters dc;
    zvs_port_device_counters(&nic, &dc);
    assert_int_equal(dc.tx_discards, dropped);
    assert_int_equal(dc.rx_discards, 0);
    assert_string_equal(zvs_drop_name(ZVS_DROP_GUEST_OVERRUN), "guest-overrun");
    /* The kernel's count resets at each read: folded once, never twice. */
    assert_int_equal(zvs_lcs_fold_kernel_drops(t, &nic), 0);
    assert_int_equal(nic.ctr.in_discards, dropped);

    /* Uncoupled (no NIC port): counted in the return value only. */
    uint64_t got2, dropped2 = burst_and_fold(t, peer, NULL, &got2);
    assert_int_equal(got2 + dropped2, BURST);
    assert_true(dropped2 > 0);
    assert_int_equal(nic.ctr.in_discards, dropped);

    close(peer);
    zvs_guest_tap_close(t);
    assert_int_equal(zvs_lcs_fold_kernel_drops(NULL, &nic), 0);   /* no driver: none */
}

/* A NIC (8M, MTU 9000) coupled to sw as owner's guest with mac. */
static struct zvs_port *coupled_nic(struct zvs_switch *sw, const char *owner,
                                    const uint8_t *mac)
{
    int err = 0;
    char name[24];
    snprintf(name, sizeof name, "%s.F000", owner);
    struct zvs_port *nic = zvs_nic_qdio_create(name, 8u * ZVS_QDIO_MB, 9000, &err);
    assert_non_null(nic);
    struct zvs_guest g = { .vdev = 0xF000 };
    snprintf(g.owner, sizeof g.owner, "%s", owner);
    memcpy(g.mac, mac, 6);
    zvs_vlan_port_init(&g.vlan, ZVS_VLAN_ACCESS, 1);
    assert_int_equal(zvs_switch_add_guest(sw, nic, &g), 0);
    return nic;
}

#define MIXED 100                       /* frames of each run of the batched test */

/* Sizes that make every case of a burst: runs of small frames (from the ring), frames
 * past a ring slot (whole from the socket, into the pages they land in) and past a page
 * (4065 bytes as the 16th frame of the second buffer, whose one page left is too small:
 * copied into a fresh buffer), and jumbo frames... */
static uint32_t mixed_len(int i)
{
    static const uint32_t len[] = { 64, 64, 1514, 64, 4065, 4064, 64, 9014, 64, 64, 5000,
                                    200, 64, 64, 64, 64, 64, 64, 64, 64, 64, 1000, 64 };
    return len[i % (int)(sizeof len / sizeof len[0])];
}

/* ...and what an LCS at MTU 1500 sends: every frame within a page, none copied. */
static uint32_t lcs_len(int i)
{
    return i % 7 == 3 ? 1514 : 60 + (uint32_t)(i * 37 % 900);
}

struct lcs_pair {
    struct zvs_switch    *sw;
    struct zvs_port      *nc, *na;
    struct zvs_guest_tap *tc, *ta;
    int                   send_peer, recv_peer;
};

/* MIXED frames of len_of(i) bytes from ld's machine to lb's cross tc, the switch and ta
 * whole, in order and all counted. Returns the frames tc copied. */
static uint64_t cross(struct lcs_pair *l, uint32_t (*len_of)(int))
{
    static uint8_t f[9014 + 4], got[9014 + 4];
    struct zvs_guest_tap_stats sc0, sa0, sc, sa;
    uint64_t bytes = 0;

    zvs_guest_tap_stats(l->tc, &sc0);
    zvs_guest_tap_stats(l->ta, &sa0);
    for (int i = 0; i < MIXED; i++) {
        uint32_t len = len_of(i);
        tnet_frame(f, len, (uint8_t)i, MAC_A, MAC_C);
        tnet_peer_send(l->send_peer, f, len, NULL);
        bytes += len;
    }
    /* What the daemon does, until everything has crossed (the veth delivers in a
     * softirq: bounded wait). */
    int64_t deadline = tnet_now_ms() + TNET_RX_WAIT_MS;
    do {
        (void)zvs_guest_tap_pump_out(l->tc);
        while (zvs_switch_poll(l->sw, l->nc, 0) > 0) {
        }
        (void)zvs_guest_tap_pump_in(l->ta);
        zvs_guest_tap_stats(l->ta, &sa);
    } while (sa.tap_tx_frames - sa0.tap_tx_frames < MIXED && tnet_now_ms() < deadline);
    zvs_guest_tap_stats(l->tc, &sc);
    assert_int_equal(sc.tap_rx_frames - sc0.tap_rx_frames, MIXED);
    assert_int_equal(sc.tap_rx_bytes - sc0.tap_rx_bytes, bytes);
    assert_int_equal(sc.tap_rx_errors + sc.tap_rx_oversize + sc.tap_rx_bad_vnet +
                     sc.tap_rx_no_buffer + sc.tap_rx_queue_full, 0);
    assert_int_equal(sa.tap_tx_frames - sa0.tap_tx_frames, MIXED);
    assert_int_equal(sa.tap_tx_bytes - sa0.tap_tx_bytes, bytes);
    assert_int_equal(sa.tap_tx_errors + sa.tap_tx_dropped_full + sa.tap_tx_dropped_down, 0);
    for (int i = 0; i < MIXED; i++) {
        uint32_t len = len_of(i);
        tnet_frame(f, len, (uint8_t)i, MAC_A, MAC_C);
        assert_int_equal(tnet_peer_recv(l->recv_peer, got, sizeof got, NULL), (int)len);
        assert_memory_equal(got, f, len);
    }
    return sc.tap_rx_copied - sc0.tap_rx_copied;
}

/* The pair: lc's peer ld plays guest C's machine, the sender; la's peer lb guest A's,
 * the receiver: each LCS socket is the switch's side of its machine's tap. MTU 9000. */
static void pair_open(struct lcs_pair *l, bool vnet)
{
    struct zvs_switch_params p = { .name = "LCSVSW", .vlan = { .aware = false, .native_vid = 1 } };
    memset(l, 0, sizeof *l);
    l->sw = zvs_switch_create(&p);
    assert_non_null(l->sw);
    l->nc = coupled_nic(l->sw, "LNXC", MAC_C);
    l->na = coupled_nic(l->sw, "LNXA", MAC_A);
    assert_int_equal(zvs_lcs_open(-1, "lc", &l->tc), 0);
    assert_int_equal(zvs_lcs_open(-1, "la", &l->ta), 0);
    assert_int_equal(zvs_guest_tap_bind(l->tc, l->nc), 0);
    assert_int_equal(zvs_guest_tap_bind(l->ta, l->na), 0);
    l->send_peer = tnet_peer_open("ld", vnet);
    l->recv_peer = tnet_peer_open("lb", vnet);
    int big = 4 << 20;                  /* a run of jumbo frames, all held until read */
    assert_int_equal(setsockopt(l->recv_peer, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof big), 0);
    tnet_sh("ip link set la mtu 9000; ip link set lb mtu 9000");
}

static void pair_close(struct lcs_pair *l)
{
    close(l->send_peer);
    close(l->recv_peer);
    zvs_guest_tap_close(l->tc);                    /* the drivers before their NIC ports */
    zvs_guest_tap_close(l->ta);
    zvs_switch_destroy(l->sw);
}

static void test_batched_frames_cross_whole_and_in_order(void **state)
{
    if (!netns_ok)
        skip();
    struct lcs_pair l;
    pair_open(&l, false);

    assert_true(cross(&l, mixed_len) > 0);         /* the frames past a page, and after */
    assert_int_equal(cross(&l, lcs_len), 0);       /* all in place: one copy end to end */

    pair_close(&l);
}

/* The switch takes what tc queued and ta writes it out: what the daemon does after a
 * pump (the NIC's poll, the thin interrupt). */
static void deliver(struct lcs_pair *l)
{
    while (zvs_switch_poll(l->sw, l->nc, 0) > 0) {
    }
    (void)zvs_guest_tap_pump_in(l->ta);
}

/* The receiving peer gets frame `seed` of len bytes, exact; with vh, its header too. */
static void expect_frame(struct lcs_pair *l, uint8_t seed, uint32_t len,
                         struct virtio_net_hdr *vh)
{
    static uint8_t f[9014 + 4], got[9014 + 4];
    tnet_frame(f, len, seed, MAC_A, MAC_C);
    assert_int_equal(tnet_peer_recv(l->recv_peer, got, sizeof got, vh), (int)len);
    assert_memory_equal(got, f, len);
}

/* tc pumps until it has taken n frames (queued, or cut and dropped), a bounded wait for
 * the veth's softirq. Returns its counters. */
static struct zvs_guest_tap_stats pump_until(struct lcs_pair *l, uint64_t n)
{
    struct zvs_guest_tap_stats sc;
    int64_t deadline = tnet_now_ms() + TNET_RX_WAIT_MS;
    do {
        (void)zvs_guest_tap_pump_out(l->tc);
        zvs_guest_tap_stats(l->tc, &sc);
    } while (sc.tap_rx_frames + sc.tap_rx_truncated < n && tnet_now_ms() < deadline);
    return sc;
}

/* Readable events on fd now (0: none), as the event loop's epoll would see them. */
static short ready(int fd)
{
    struct pollfd p = { .fd = fd, .events = POLLIN };
    return poll(&p, 1, 0) == 1 ? p.revents : 0;
}

/* Frames come out of the ring whole, in order, with the virtio-net header the kernel
 * put before each (a partial checksum here), and no system call reads them. */
static void test_ring_frames_carry_their_vnet_header(void **state)
{
    if (!netns_ok)
        skip();
    struct lcs_pair l;
    pair_open(&l, true);
    static uint8_t f[1514];
    struct virtio_net_hdr vh = { .flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
                                 .csum_start = 20, .csum_offset = 6 }, none = { 0 }, rv;
    for (int i = 0; i < 3; i++) {
        uint32_t len = i == 1 ? 1514 : 200;
        tnet_frame(f, len, (uint8_t)i, MAC_A, MAC_C);
        tnet_peer_send(l.send_peer, f, len, i == 2 ? &none : &vh);
    }
    struct zvs_guest_tap_stats sc = pump_until(&l, 3);
    assert_int_equal(sc.tap_rx_frames, 3);
    assert_int_equal(sc.tap_rx_bytes, 200 + 1514 + 200);
    assert_int_equal(sc.tap_rx_copied + sc.tap_rx_bad_vnet + sc.tap_rx_truncated +
                     sc.tap_rx_errors, 0);
    deliver(&l);
    for (int i = 0; i < 3; i++) {
        expect_frame(&l, (uint8_t)i, i == 1 ? 1514 : 200, &rv);
        if (i == 2) {
            assert_int_equal(rv.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM, 0);
            continue;
        }
        assert_int_equal(rv.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM, VIRTIO_NET_HDR_F_NEEDS_CSUM);
        assert_int_equal(rv.csum_start, 20);
        assert_int_equal(rv.csum_offset, 6);
    }
    pair_close(&l);
}

/* A frame past a ring slot comes whole through the socket while its receive buffer has
 * room; the kernel cuts the others to the slot, and those are counted and dropped, never
 * handed on. The frames around them keep their order. */
static void test_frame_past_a_slot_whole_or_dropped(void **state)
{
    if (!netns_ok)
        skip();
    struct lcs_pair l;
    pair_open(&l, false);
    int small = 1;                      /* the kernel's minimum: room for one copy */
    assert_int_equal(setsockopt(zvs_guest_tap_fd(l.tc), SOL_SOCKET, SO_RCVBUF, &small,
                                sizeof small), 0);
    static const uint32_t len[] = { 64, 3000, 64, 3000, 9014, 64 };
    static uint8_t f[9014];
    for (int i = 0; i < 6; i++) {
        tnet_frame(f, len[i], (uint8_t)i, MAC_A, MAC_C);
        tnet_peer_send(l.send_peer, f, len[i], NULL);
    }
    struct zvs_guest_tap_stats sc = pump_until(&l, 6);
    assert_int_equal(sc.tap_rx_frames, 4);         /* the small ones and the first copy */
    assert_int_equal(sc.tap_rx_truncated, 2);
    assert_int_equal(sc.tap_rx_bytes, 64 * 3 + 3000);
    assert_int_equal(sc.tap_rx_errors + sc.tap_rx_oversize + sc.tap_rx_no_buffer, 0);
    assert_int_equal(zvs_lcs_take_kernel_drops(l.tc), 0);  /* the ring had room */
    deliver(&l);
    expect_frame(&l, 0, 64, NULL);
    expect_frame(&l, 1, 3000, NULL);
    expect_frame(&l, 2, 64, NULL);
    expect_frame(&l, 5, 64, NULL);
    assert_true(tnet_peer_quiet(l.recv_peer));     /* nothing cut went on */
    assert_int_equal(l.nc->ctr.in_packets, 4);
    pair_close(&l);
}

/* A pump takes a burst (ZVS_GUEST_TAP_BURST frames) and leaves the rest in the ring,
 * which still polls readable; a full output queue stops it with nothing lost: the frames
 * wait in the ring and come, in order, once the switch has taken the queue. */
static void test_burst_stops_and_the_rest_waits(void **state)
{
    if (!netns_ok)
        skip();
    struct lcs_pair l;
    pair_open(&l, false);
    enum { N = 2500 };                  /* past the output queue: 128 buffers of 16 */
    static uint8_t f[64];
    for (int i = 0; i < N; i++) {
        tnet_frame(f, 64, (uint8_t)i, MAC_A, MAC_C);
        tnet_peer_send(l.send_peer, f, 64, NULL);
    }
    int fd = zvs_guest_tap_fd(l.tc);
    int64_t deadline = tnet_now_ms() + TNET_RX_WAIT_MS;
    while (!(ready(fd) & POLLIN) && tnet_now_ms() < deadline) {
    }
    assert_int_equal(zvs_guest_tap_pump_out(l.tc), ZVS_GUEST_TAP_BURST);
    assert_true(ready(fd) & POLLIN);               /* the loop comes back for the rest */
    /* No switch between the pumps: the output queue fills and the pumps stop. */
    struct zvs_guest_tap_stats sc;
    int queued, pumps = 1, total = ZVS_GUEST_TAP_BURST;
    while ((queued = zvs_guest_tap_pump_out(l.tc)) > 0) {
        total += queued;
        pumps++;
    }
    zvs_guest_tap_stats(l.tc, &sc);
    assert_true(total < N);
    assert_int_equal(sc.tap_rx_frames, (uint64_t)total);
    assert_true(sc.tap_rx_queue_full > 0);
    assert_int_equal(sc.tap_rx_no_buffer + sc.tap_rx_copied, 0);
    assert_int_equal(zvs_lcs_take_kernel_drops(l.tc), 0);
    assert_true(ready(fd) & POLLIN);
    /* The switch takes the queue; the rest follows. */
    deadline = tnet_now_ms() + TNET_RX_WAIT_MS;
    do {
        deliver(&l);
        (void)zvs_guest_tap_pump_out(l.tc);
        zvs_guest_tap_stats(l.tc, &sc);
    } while (sc.tap_rx_frames < N && tnet_now_ms() < deadline);
    deliver(&l);
    assert_int_equal(sc.tap_rx_frames, N);
    assert_int_equal(sc.tap_rx_no_buffer, 0);
    assert_int_equal(ready(fd), 0);                /* empty: the loop may sleep */
    for (int i = 0; i < N; i++)
        expect_frame(&l, (uint8_t)i, 64, NULL);
    pair_close(&l);
}

/* The tap goes down and up (an LCS STARTLAN): the kernel leaves ENETDOWN on the socket,
 * which polls ready until it is taken; the driver takes and counts it when the ring is
 * empty, so the event loop does not spin on it, and frames flow again. */
static void test_link_down_error_is_taken(void **state)
{
    if (!netns_ok)
        skip();
    struct lcs_pair l;
    pair_open(&l, false);
    int fd = zvs_guest_tap_fd(l.tc);
    tnet_link_bounce("lc");
    assert_true(ready(fd) & POLLERR);
    assert_int_equal(zvs_guest_tap_pump_out(l.tc), 0);
    assert_int_equal(ready(fd), 0);
    struct zvs_guest_tap_stats sc;
    zvs_guest_tap_stats(l.tc, &sc);
    assert_int_equal(sc.tap_rx_errors, 1);
    static uint8_t f[64];
    tnet_frame(f, 64, 7, MAC_A, MAC_C);
    tnet_peer_send(l.send_peer, f, 64, NULL);
    assert_int_equal(pump_until(&l, 1).tap_rx_frames, 1);
    deliver(&l);
    expect_frame(&l, 7, 64, NULL);
    pair_close(&l);
}

/* A packet socket hands the driver a tagged frame without its tag (the kernel keeps the
 * tag in the slot's header): the driver puts it back, in a ring slot and in a frame past
 * a slot alike, so the switch sees the frame as the guest sent it. */
static void test_tagged_frames_keep_their_tag(void **state)
{
    if (!netns_ok)
        skip();
    struct lcs_pair l;
    pair_open(&l, false);
    static const uint32_t len[] = { 64, 68, 3004 };     /* untagged, tagged, tagged past */
    static uint8_t f[3][3004], plain[3004];
    for (int i = 0; i < 3; i++) {
        bool tagged = i > 0;
        tnet_frame(plain, tagged ? len[i] - 4 : len[i], (uint8_t)i, MAC_A, MAC_C);
        memcpy(f[i], plain, 12);
        if (tagged) {
            const uint8_t tag[4] = { 0x81, 0x00, 0x00, (uint8_t)(20 + i) };
            memcpy(f[i] + 12, tag, 4);
        }
        memcpy(f[i] + (tagged ? 16 : 12), plain + 12, len[i] - (tagged ? 16 : 12));
        tnet_peer_send(l.send_peer, f[i], len[i], NULL);
    }
    struct zvs_guest_tap_stats sc = pump_until(&l, 3);
    assert_int_equal(sc.tap_rx_frames, 3);
    assert_int_equal(sc.tap_rx_bytes, 64 + 68 + 3004);
    assert_int_equal(sc.tap_rx_errors + sc.tap_rx_oversize + sc.tap_rx_truncated, 0);
    struct zvs_frame fr[8];
    assert_int_equal(l.nc->ops->rx(l.nc, fr, 8), 3);    /* what the switch would read */
    static uint8_t got[3004];
    for (int i = 0; i < 3; i++) {
        assert_int_equal(fr[i].len, len[i]);
        assert_int_equal(zvs_frame_peek(&fr[i], got, len[i]), len[i]);
        assert_memory_equal(got, f[i], len[i]);
    }
    l.nc->ops->rx_release(l.nc, fr, 3);
    pair_close(&l);
}

/* A frame past a slot that meets a full output queue is not read until a buffer can take
 * it: it waits on the socket with its slot, and follows in order once the switch has
 * emptied the queue (before, it was read and then dropped for want of a buffer). */
static void test_frame_past_a_slot_waits_for_a_buffer(void **state)
{
    if (!netns_ok)
        skip();
    struct lcs_pair l;
    pair_open(&l, false);
    static uint8_t f[9014];
    /* The queue's capacity in 64-byte frames, measured: fill it with no switch. */
    enum { FILL = 3000 };
    for (int i = 0; i < FILL; i++) {
        tnet_frame(f, 64, (uint8_t)i, MAC_A, MAC_C);
        tnet_peer_send(l.send_peer, f, 64, NULL);
    }
    (void)pump_until(&l, 1);
    while (zvs_guest_tap_pump_out(l.tc) > 0) {
    }
    struct zvs_guest_tap_stats sc;
    zvs_guest_tap_stats(l.tc, &sc);
    uint64_t cap = sc.tap_rx_frames;
    assert_true(cap > 16 && cap < FILL);
    int64_t deadline = tnet_now_ms() + TNET_RX_WAIT_MS;
    do {                                /* empty everything: the queue and the ring */
        deliver(&l);
        (void)zvs_guest_tap_pump_out(l.tc);
        zvs_guest_tap_stats(l.tc, &sc);
    } while (sc.tap_rx_frames < FILL && tnet_now_ms() < deadline);
    deliver(&l);
    assert_int_equal(sc.tap_rx_frames, FILL);
    for (int i = 0; i < FILL; i++)
        expect_frame(&l, (uint8_t)i, 64, NULL);
    /* Now all but one page of the queue, then a jumbo frame and a small one. */
    uint64_t base = sc.tap_rx_frames;
    for (uint64_t i = 0; i + 1 < cap; i++) {
        tnet_frame(f, 64, (uint8_t)i, MAC_A, MAC_C);
        tnet_peer_send(l.send_peer, f, 64, NULL);
    }
    tnet_frame(f, 9014, 0xA0, MAC_A, MAC_C);
    tnet_peer_send(l.send_peer, f, 9014, NULL);
    tnet_frame(f, 64, 0xA1, MAC_A, MAC_C);
    tnet_peer_send(l.send_peer, f, 64, NULL);
    sc = pump_until(&l, base + cap - 1);
    while (zvs_guest_tap_pump_out(l.tc) > 0) {
    }
    zvs_guest_tap_stats(l.tc, &sc);
    assert_int_equal(sc.tap_rx_frames - base, cap - 1);     /* the jumbo waits */
    assert_int_equal(sc.tap_rx_no_buffer + sc.tap_rx_truncated + sc.tap_rx_errors, 0);
    deadline = tnet_now_ms() + TNET_RX_WAIT_MS;
    do {
        deliver(&l);
        (void)zvs_guest_tap_pump_out(l.tc);
        zvs_guest_tap_stats(l.tc, &sc);
    } while (sc.tap_rx_frames - base < cap + 1 && tnet_now_ms() < deadline);
    deliver(&l);
    assert_int_equal(sc.tap_rx_frames - base, cap + 1);
    assert_int_equal(sc.tap_rx_no_buffer, 0);
    for (uint64_t i = 0; i + 1 < cap; i++)
        expect_frame(&l, (uint8_t)i, 64, NULL);
    expect_frame(&l, 0xA0, 9014, NULL);
    expect_frame(&l, 0xA1, 64, NULL);
    pair_close(&l);
}

/* This process's mapped memory (VmSize), in kB. */
static long vm_size_kb(void)
{
    char line[128];
    long kb = -1;
    FILE *f = fopen("/proc/self/status", "r");
    assert_non_null(f);
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmSize: %ld kB", &kb) == 1)
            break;
    fclose(f);
    assert_true(kb > 0);
    return kb;
}

/* The driver reads one socket and writes another that takes nothing in (so the polled one
 * is never woken for a frame sent): what crossed above; here that both are the driver's
 * and go with it, beside its interrupt fd, and the read one's ring mapping with them. */
static void test_two_sockets_go_with_the_driver(void **state)
{
    if (!netns_ok)
        skip();
    struct zvs_guest_tap *t = NULL;
    int before = tnet_open_fds();
    long vm = vm_size_kb();
    assert_int_equal(zvs_lcs_open(-1, "la", &t), 0);
    assert_int_equal(tnet_open_fds(), before + 3);      /* read, written, interrupt epoll */
    assert_true(vm_size_kb() - vm >= 20480);            /* the ring, mapped */
    zvs_guest_tap_close(t);
    assert_int_equal(tnet_open_fds(), before);
    assert_true(vm_size_kb() - vm < 1024);              /* and unmapped with it */
    assert_int_equal(zvs_lcs_open(-1, "nosuch0", &t), -ENODEV);
    assert_null(t);
    assert_int_equal(tnet_open_fds(), before);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kernel_drops_are_the_nics_discards),
        cmocka_unit_test(test_batched_frames_cross_whole_and_in_order),
        cmocka_unit_test(test_ring_frames_carry_their_vnet_header),
        cmocka_unit_test(test_frame_past_a_slot_whole_or_dropped),
        cmocka_unit_test(test_burst_stops_and_the_rest_waits),
        cmocka_unit_test(test_link_down_error_is_taken),
        cmocka_unit_test(test_two_sockets_go_with_the_driver),
        cmocka_unit_test(test_tagged_frames_keep_their_tag),
        cmocka_unit_test(test_frame_past_a_slot_waits_for_a_buffer),
    };
    return cmocka_run_group_tests_name("lcs", tests, setup_netns, NULL);
}
