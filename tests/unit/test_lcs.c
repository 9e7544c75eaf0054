/* lcs: the kernel's drops of what a guest sends become the NIC's guest-overrun discards.
 *
 * The LCS socket is opened on one end of a veth pair in the test's own network namespace
 * (skipped when that is not permitted); the peer on the other end plays the guest's tap
 * writing frames. The socket's receive buffer is shrunk from 4 MB to the kernel's
 * smallest, so a burst of frames nobody reads overflows it: every frame sent is then
 * either read from the socket or a kernel drop, and the drops are what the NIC counts.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "backends/lcs.h"
#include "netns.h"

#define BURST 200                       /* far more than the smallest buffer holds */

static const uint8_t MAC_A[6] = { 0x02, 0x00, 0x5E, 0x77, 0x00, 0x0A };
static const uint8_t MAC_B[6] = { 0x02, 0x00, 0x5E, 0x77, 0x00, 0x0B };

static bool netns_ok;

static int setup_netns(void **state)
{
    netns_ok = tnet_enter();
    if (netns_ok)
        tnet_veth_add("la", "02:00:5e:77:00:0a", "lb", "02:00:5e:77:00:0b");
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kernel_drops_are_the_nics_discards),
    };
    return cmocka_run_group_tests_name("lcs", tests, setup_netns, NULL);
}
