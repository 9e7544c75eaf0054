/* lcs: the kernel's drops of what a guest sends become the NIC's guest-overrun discards.
 *
 * The LCS socket is opened on one end of a veth pair in the test's own network namespace
 * (skipped when that is not permitted); the peer on the other end plays the guest's tap
 * writing frames. The socket's receive buffer is shrunk from 4 MB to the kernel's
 * smallest, so a burst of frames nobody reads overflows it: every frame sent is then
 * either read from the socket or a kernel drop, and the drops are what the NIC counts.
 * A second pair carries the batched paths end to end: frames of every size written on
 * one peer cross two LCS drivers and a switch (recvmmsg into the output buffers, sendmmsg
 * out of the input buffers) and reach the other peer whole and in order.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "backends/lcs.h"
#include "dataplane/switch.h"
#include "qdio/nic_qdio.h"
#include "qdio/qdio.h"
#include "netns.h"

#define BURST 200                       /* far more than the smallest buffer holds */

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

/* Frames waiting on the socket, read and thrown away. */
static uint64_t drain(int fd)
{
    uint8_t buf[2048];
    uint64_t n = 0;
    while (recv(fd, buf, sizeof buf, MSG_DONTWAIT) > 0)
        n++;
    return n;
}

/* The peer sends BURST frames nobody reads; then read and fold until every one is
 * accounted for (the veth delivers in a softirq, bounded wait). Returns the drops. */
static uint64_t burst_and_fold(struct zvs_guest_tap *t, int peer, struct zvs_port *nic,
                               uint64_t *read_out)
{
    uint8_t f[64];
    for (int i = 0; i < BURST; i++) {
        tnet_frame(f, sizeof f, (uint8_t)i, MAC_A, MAC_B);
        tnet_peer_send(peer, f, sizeof f, NULL);
    }
    uint64_t got = 0, dropped = 0;
    int64_t deadline = tnet_now_ms() + TNET_RX_WAIT_MS;
    while (got + dropped < BURST && tnet_now_ms() < deadline) {
        dropped += zvs_lcs_fold_kernel_drops(t, nic);
        got += drain(zvs_guest_tap_fd(t));
    }
    *read_out = got;
    return dropped;
}

static void test_kernel_drops_are_the_nics_discards(void **state)
{
    if (!netns_ok)
        skip();
    struct zvs_guest_tap *t;
    assert_int_equal(zvs_lcs_open(-1, "la", &t), 0);
    int fd = zvs_guest_tap_fd(t), small = 1;      /* the kernel's minimum, ~2.3 KB */
    assert_int_equal(setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small), 0);
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

/* Sizes that make every case of a batch: runs of small frames (committed where they
 * landed), frames past a page (moved and copied, with every frame after them in their
 * batch), and jumbo frames... */
static uint32_t mixed_len(int i)
{
    static const uint32_t len[] = { 64, 64, 1514, 64, 4064, 4065, 64, 9014, 64, 64, 5000,
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

static void test_batched_frames_cross_whole_and_in_order(void **state)
{
    if (!netns_ok)
        skip();
    struct zvs_switch_params p = { .name = "LCSVSW", .vlan = { .aware = false, .native_vid = 1 } };
    struct lcs_pair l = { .sw = zvs_switch_create(&p) };
    assert_non_null(l.sw);
    /* lc's peer ld plays guest C's machine, the sender; la's peer lb guest A's, the
     * receiver: each LCS socket is the switch's side of its machine's tap. */
    l.nc = coupled_nic(l.sw, "LNXC", MAC_C);
    l.na = coupled_nic(l.sw, "LNXA", MAC_A);
    assert_int_equal(zvs_lcs_open(-1, "lc", &l.tc), 0);
    assert_int_equal(zvs_lcs_open(-1, "la", &l.ta), 0);
    assert_int_equal(zvs_guest_tap_bind(l.tc, l.nc), 0);
    assert_int_equal(zvs_guest_tap_bind(l.ta, l.na), 0);
    l.send_peer = tnet_peer_open("ld", false);
    l.recv_peer = tnet_peer_open("lb", false);
    int big = 4 << 20;                  /* a run of jumbo frames, all held until read */
    assert_int_equal(setsockopt(l.recv_peer, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof big), 0);
    tnet_sh("ip link set la mtu 9000; ip link set lb mtu 9000");

    assert_true(cross(&l, mixed_len) > 0);         /* the frames past a page, and after */
    assert_int_equal(cross(&l, lcs_len), 0);       /* all in place: one copy end to end */

    close(l.send_peer);
    close(l.recv_peer);
    zvs_guest_tap_close(l.tc);                     /* the drivers before their NIC ports */
    zvs_guest_tap_close(l.ta);
    zvs_switch_destroy(l.sw);
}

/* The driver reads one socket and writes another that takes nothing in (so the polled one
 * is never woken for a frame sent): what crossed above; here that both are the driver's
 * and go with it, beside its interrupt fd. */
static void test_two_sockets_go_with_the_driver(void **state)
{
    if (!netns_ok)
        skip();
    struct zvs_guest_tap *t = NULL;
    int before = tnet_open_fds();
    assert_int_equal(zvs_lcs_open(-1, "la", &t), 0);
    assert_int_equal(tnet_open_fds(), before + 3);      /* read, written, interrupt epoll */
    zvs_guest_tap_close(t);
    assert_int_equal(tnet_open_fds(), before);
    assert_int_equal(zvs_lcs_open(-1, "nosuch0", &t), -ENODEV);
    assert_null(t);
    assert_int_equal(tnet_open_fds(), before);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kernel_drops_are_the_nics_discards),
        cmocka_unit_test(test_batched_frames_cross_whole_and_in_order),
        cmocka_unit_test(test_two_sockets_go_with_the_driver),
    };
    return cmocka_run_group_tests_name("lcs", tests, setup_netns, NULL);
}
