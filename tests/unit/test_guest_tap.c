/* guest_tap: two taps driven as the guests of two QDIO NICs coupled to one switch.
 *
 * Runs in a network namespace of its own (unshare at the start of main), so every tap,
 * address and child namespace dies with the test process; skipped when that is not
 * permitted. Frames are injected into tap A "from the guest's kernel" and captured on tap
 * B with AF_PACKET sockets (exact bytes, offload metadata with PACKET_VNET_HDR); the
 * end-to-end test moves each tap into the namespace of a forked child and pings across
 * the switch while an event loop pumps. A VXLAN segment's smaller MTU: a tap made at it,
 * or lowered to it at COUPLE in whatever namespace the guest moved it to, a guest's own
 * MTU kept. Every wait is bounded.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>

#include "daemon/evloop.h"
#include "backends/guest_tap.h"
#include "backends/nic_tap.h"
#include "qdio/nic_qdio.h"
#include "qdio/qdio.h"
#include "dataplane/switch.h"
#include "dataplane/vnet.h"

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23
#endif

#define QS_8M      (8u * ZVS_QDIO_MB)
#define QS_1M      (1u * ZVS_QDIO_MB)
#define VH_LEN     ((uint32_t)sizeof(struct virtio_net_hdr))
#define RX_WAIT_MS 1000                 /* a frame that should arrive */
#define NO_RX_MS   100                  /* a frame that should not */

static const uint8_t MAC_A[6] = { 0x02, 0x00, 0x5E, 0x99, 0x00, 0x0A };
static const uint8_t MAC_B[6] = { 0x02, 0x00, 0x5E, 0x99, 0x00, 0x0B };
static const char *const TAP_NAME[2] = { "zt0a", "zt0b" };

static bool netns_ok;

struct lab {
    struct zvs_switch    *sw;
    struct zvs_port      *nic[2];
    struct zvs_guest_tap *tap[2];
    int                   ps[2];        /* AF_PACKET on each tap, -1: none */
};

static struct lab LAB;                  /* the lab of the running test */
static struct child_proc {
    pid_t pid;
    int   to;                           /* parent -> child */
    int   from;                         /* child -> parent */
} KIDS[2];                              /* guest namespaces of the end-to-end test */
static struct {
    struct zvs_port      *nic[3];
    struct zvs_guest_tap *t[2];
} OPEN;                                 /* what test_open_checks made */
static struct {
    struct zvs_port      *nic[2];
    struct zvs_guest_tap *t[2];
    int                   ps;
} BIND = { .ps = -1 };                  /* what test_bind_unbind_rebind made */

/* ---- helpers ------------------------------------------------------------------------- */

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
    char cmd[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(cmd, sizeof(cmd), fmt, ap);
    va_end(ap);
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static void write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    if (write(fd, text, strlen(text)) < 0) {
        /* IPv6 may be absent; nothing to silence then */
    }
    close(fd);
}

/* Keep IPv6 router solicitations and MLD out of the captures and counters. */
static void no_ipv6_here(void)
{
    write_file("/proc/sys/net/ipv6/conf/all/disable_ipv6", "1");
    write_file("/proc/sys/net/ipv6/conf/default/disable_ipv6", "1");
}

static void if_set_up(const char *name, bool up)
{
    struct ifreq ifr;
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

    assert_true(fd >= 0);
    memset(&ifr, 0, sizeof(ifr));
    snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
    assert_int_equal(ioctl(fd, SIOCGIFFLAGS, &ifr), 0);
    if (up)
        ifr.ifr_flags |= IFF_UP;
    else
        ifr.ifr_flags &= ~IFF_UP;
    assert_int_equal(ioctl(fd, SIOCSIFFLAGS, &ifr), 0);
    close(fd);
}

static int psock_open(const char *name, bool vnet)
{
    int fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, htons(ETH_P_ALL));
    int one = 1;

    assert_true(fd >= 0);
    assert_int_equal(setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one)), 0);
    if (vnet)
        assert_int_equal(setsockopt(fd, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof(one)), 0);
    struct sockaddr_ll sll = {
        .sll_family = AF_PACKET,
        .sll_protocol = htons(ETH_P_ALL),
        .sll_ifindex = (int)if_nametoindex(name),
    };
    assert_true(sll.sll_ifindex > 0);
    assert_int_equal(bind(fd, (struct sockaddr *)&sll, sizeof(sll)), 0);
    return fd;
}

/* Receive one frame within ms; -1 on timeout. A socket bound to an interface that went
 * down reports ENETDOWN once: that is not a frame. */
static int recv_frame(int fd, void *buf, size_t cap, int ms)
{
    struct timespec t0, t1;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        ssize_t n = recv(fd, buf, cap, MSG_TRUNC);
        if (n >= 0)
            return (int)n;
        assert_true(errno == EAGAIN || errno == ENETDOWN || errno == EINTR);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        long spent = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
        if (spent >= ms)
            return -1;
        struct pollfd p = { .fd = fd, .events = POLLIN };
        (void)poll(&p, 1, (int)(ms - spent));
    }
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* What the daemon does: tap readable -> pump out + poll the NIC; interrupt -> pump in. */
static void pump(struct lab *l)
{
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 2; i++) {
            (void)zvs_guest_tap_pump_out(l->tap[i]);
            while (zvs_switch_poll(l->sw, l->nic[i], now_ns()) > 0) {
            }
        }
        for (int i = 0; i < 2; i++)
            (void)zvs_guest_tap_pump_in(l->tap[i]);
    }
}

static struct zvs_guest guest_of(const char *owner, const uint8_t *mac)
{
    struct zvs_guest g = { .vdev = 0xF000 };
    snprintf(g.owner, sizeof(g.owner), "%s", owner);
    memcpy(g.mac, mac, 6);
    zvs_vlan_port_init(&g.vlan, ZVS_VLAN_ACCESS, 1);
    return g;
}

/* Switch with two NICs (8M, MTU 1500) coupled as guests, each driven by a tap that has
 * the guest's MAC. up: bring the taps up here and open a packet socket on each. */
static void lab_open(struct lab *l, bool up, bool vnet)
{
    struct zvs_switch_params p = { .name = "CCBVSW1", .vlan = { .aware = false, .native_vid = 1 } };
    const uint8_t *mac[2] = { MAC_A, MAC_B };
    const char *owner[2] = { "LNXA", "LNXB" };

    memset(l, 0, sizeof(*l));
    l->ps[0] = l->ps[1] = -1;
    l->sw = zvs_switch_create(&p);
    assert_non_null(l->sw);
    for (int i = 0; i < 2; i++) {
        int err = 0;
        char name[24];
        snprintf(name, sizeof(name), "%s.F000", owner[i]);
        l->nic[i] = zvs_nic_qdio_create(name, QS_8M, 1500, &err);
        assert_non_null(l->nic[i]);
        struct zvs_guest g = guest_of(owner[i], mac[i]);
        assert_int_equal(zvs_switch_add_guest(l->sw, l->nic[i], &g), 0);
        assert_int_equal(zvs_guest_tap_open(TAP_NAME[i], 0, l->nic[i], &l->tap[i]), 0);
        assert_string_equal(zvs_guest_tap_name(l->tap[i]), TAP_NAME[i]);
        assert_int_equal(zvs_guest_tap_set_mac(l->tap[i], mac[i]), 0);
        if (up) {
            if_set_up(TAP_NAME[i], true);
            l->ps[i] = psock_open(TAP_NAME[i], vnet);
        }
    }
}

static void lab_close(struct lab *l)
{
    for (int i = 0; i < 2; i++) {
        if (l->ps[i] >= 0)
            close(l->ps[i]);
        l->ps[i] = -1;
        /* the driver goes before its NIC port, which the switch destroys */
        zvs_guest_tap_close(l->tap[i]);
        l->tap[i] = NULL;
    }
    zvs_switch_destroy(l->sw);
    l->sw = NULL;
}

static struct zvs_guest_tap_stats tap_stats(const struct lab *l, int i)
{
    struct zvs_guest_tap_stats st;
    zvs_guest_tap_stats(l->tap[i], &st);
    return st;
}

static struct zvs_qdio_counters nic_qdio(const struct lab *l, int i)
{
    struct zvs_qdio_counters c;
    zvs_qdio_counters(zvs_nic_qdio_queues(l->nic[i]), &c);
    return c;
}

/* State byte of input buffer b of a NIC's queues. */
static uint8_t in_slsb(const struct zvs_port *nic, uint32_t b)
{
    const struct zvs_qdio_queue_shm *iq =
        zvs_qdio_at(zvs_qdio_region(zvs_nic_qdio_queues(nic)), ZVS_QDIO_IN_Q_OFF);
    return zvs_slsb_get(&iq->slsb[b]);
}

/* dst, src, EtherType 0x88B5 (local experimental), payload from seed. */
static void make_frame(uint8_t *b, uint32_t len, const uint8_t *dst, const uint8_t *src,
                       uint32_t seed)
{
    memcpy(b, dst, 6);
    memcpy(b + 6, src, 6);
    zvs_put_be16(b + 12, 0x88B5);
    for (uint32_t i = 14; i < len; i++)
        b[i] = (uint8_t)(seed * 131u + i * 7u + (i >> 8));
}

/* Ethernet / IPv4 10.99.0.1 -> .2 / TCP 40000 -> 5201 with `payload` bytes: a super-frame
 * as a guest's kernel hands it to its NIC (IP header final, TCP checksum field holding
 * the pseudo-header sum, to be completed per segment). */
static uint32_t make_tcp4(uint8_t *b, uint32_t payload, const uint8_t *dst, const uint8_t *src)
{
    const uint32_t ip = 14, tcp = 34, data = 54;
    uint32_t len = data + payload;
    uint16_t ip_len = (uint16_t)(len - ip);

    memset(b, 0, data);
    memcpy(b, dst, 6);
    memcpy(b + 6, src, 6);
    zvs_put_be16(b + 12, 0x0800);
    b[ip] = 0x45;
    zvs_put_be16(b + ip + 2, ip_len);
    zvs_put_be16(b + ip + 4, 0x1234);
    b[ip + 6] = 0x40;                   /* DF */
    b[ip + 8] = 64;
    b[ip + 9] = 6;
    const uint8_t saddr[4] = { 10, 99, 0, 1 }, daddr[4] = { 10, 99, 0, 2 };
    memcpy(b + ip + 12, saddr, 4);
    memcpy(b + ip + 16, daddr, 4);
    zvs_put_be16(b + ip + 10, zvs_inet_csum(b + ip, 20));
    zvs_put_be16(b + tcp, 40000);
    zvs_put_be16(b + tcp + 2, 5201);
    zvs_put_be16(b + tcp + 4, 0x0001);  /* seq 0x00010000 */
    zvs_put_be16(b + tcp + 8, 0x0002);  /* ack 0x00020000 */
    b[tcp + 12] = 0x50;
    b[tcp + 13] = 0x18;                 /* PSH ACK */
    zvs_put_be16(b + tcp + 14, 0xFFFF);
    for (uint32_t i = 0; i < payload; i++)
        b[data + i] = (uint8_t)(i * 13u + 5u);
    /* pseudo-header: addresses, protocol, TCP length; folded, not complemented */
    uint8_t ph[12];
    memcpy(ph, saddr, 4);
    memcpy(ph + 4, daddr, 4);
    ph[8] = 0;
    ph[9] = 6;
    zvs_put_be16(ph + 10, (uint16_t)(len - tcp));
    zvs_put_be16(b + tcp + 16, zvs_csum_add(0, ph, sizeof(ph)));
    return len;
}

static void send_vnet(int fd, const struct virtio_net_hdr *vh, const uint8_t *f, uint32_t len)
{
    struct iovec iov[2] = { { (void *)vh, VH_LEN }, { (void *)f, len } };
    assert_int_equal(writev(fd, iov, 2), (ssize_t)(VH_LEN + len));
}

/* NIC i's tap read `frames`, copied `copied` of them, and its guest primed `bufs`. */
static void expect_reads(struct lab *l, int i, uint64_t frames, uint64_t copied, uint64_t bufs)
{
    struct zvs_guest_tap_stats a = tap_stats(l, i);
    assert_int_equal(a.tap_rx_frames, frames);
    assert_int_equal(a.tap_rx_copied, copied);
    assert_int_equal(nic_qdio(l, i).prog.out_bufs_primed, bufs);
}

/* The next frame on fd is exactly want[0..len), after its virtio-net header. */
static void recv_exact(int fd, const uint8_t *want, uint32_t len)
{
    static uint8_t got[VH_LEN + 65600];
    assert_int_equal(recv_frame(fd, got, sizeof(got), RX_WAIT_MS), (int)(VH_LEN + len));
    assert_memory_equal(got + VH_LEN, want, len);
}

static struct virtio_net_hdr tcp4_vh(uint16_t mss)
{
    struct virtio_net_hdr vh = {
        .flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
        .gso_type = VIRTIO_NET_HDR_GSO_TCPV4,
        .hdr_len = 54,
        .gso_size = mss,
        .csum_start = 34,
        .csum_offset = 16,
    };
    return vh;
}

/* ---- tests ----------------------------------------------------------------------------- */

static void test_open_checks(void **state)
{
    if (!netns_ok)
        skip();
    int err = 0;
    struct zvs_port *nic = OPEN.nic[0] = zvs_nic_qdio_create("LNXC.F000", QS_8M, 1500, &err);
    struct zvs_port *nic2 = OPEN.nic[1] = zvs_nic_qdio_create("LNXD.F000", QS_8M, 0, &err);
    struct zvs_port *nic3 = OPEN.nic[2] = zvs_nic_qdio_create("LNXE.F000", QS_1M, 1500, &err);
    struct zvs_guest_tap **t = &OPEN.t[0], **t2 = &OPEN.t[1];
    struct zvs_port other;

    assert_non_null(nic);
    assert_non_null(nic2);
    assert_non_null(nic3);
    memset(&other, 0, sizeof(other));
    other.mtu = 1500;
    assert_int_equal(zvs_guest_tap_open("zt0c", 1501, nic, t), -EINVAL);    /* > NIC MTU */
    assert_int_equal(zvs_guest_tap_open("zt0c", 67, nic, t), -EINVAL);
    assert_int_equal(zvs_guest_tap_open("zt0c-much-too-long", 0, nic, t), -EINVAL);
    assert_int_equal(zvs_guest_tap_open("", 0, nic, t), -EINVAL);
    assert_int_equal(zvs_guest_tap_open("zt0c", 0, &other, t), -EINVAL);    /* not a NIC */
    assert_null(*t);
    assert_int_equal(sh("ip link show zt0c >/dev/null 2>&1"), 1);          /* nothing left */

    assert_int_equal(zvs_guest_tap_open("zt0c", 0, nic, t), 0);
    struct zvs_guest_tap_stats st;
    zvs_guest_tap_stats(*t, &st);
    assert_int_equal(st.mtu, 1500);
    assert_int_equal(st.max_frame, 65504);         /* 64 KB buffers less the header */
    assert_int_equal(st.gso_max_size, 65504 - 18);
    /* what the kernel says about the tap */
    assert_int_equal(sh("ip -d link show zt0c | grep -q ' mtu 1500 '"), 0);
    /* persistent (a crash leaves it for the next vswitchd), tagged as ours */
    assert_int_equal(sh("ip -d link show zt0c | grep -q 'vnet_hdr on persist on'"), 0);
    assert_int_equal(sh("ip -d link show zt0c | grep -q 'alias zvswitch netns:'"), 0);
    assert_int_equal(sh("ip -d link show zt0c | grep -q ' gso_max_size 65486 gso_max_segs 128 '"),
                     0);
    assert_int_equal(sh("ethtool -k zt0c | grep -q '^tcp-segmentation-offload: on'"), 0);
    assert_int_equal(sh("ethtool -k zt0c | grep -q 'tx-tcp6-segmentation: on'"), 0);
    assert_int_equal(sh("ethtool -k zt0c | grep -q 'tx-checksum-ip-generic: on'"), 0);
    /* left down: the guest raises it */
    assert_int_equal(sh("ip link show zt0c | grep -q 'state DOWN'"), 0);
    /* the queues are initialised and the NIC needs no SIGA-w */
    const struct zvs_qdio_shm_hdr *h = zvs_qdio_region(zvs_nic_qdio_queues(nic));
    assert_int_equal(h->ac1 & ZVS_QDIO_AC1_SIGA_OUTPUT, 0);
    assert_int_equal(h->irq_armed, 1);
    assert_true(zvs_guest_tap_fd(*t) >= 0);
    /* the interrupt fd is the driver's own (stable across binds), not the NIC's eventfd */
    assert_true(zvs_guest_tap_irq_fd(*t) >= 0);
    assert_int_not_equal(zvs_guest_tap_irq_fd(*t), zvs_qdio_irq_fd(zvs_nic_qdio_queues(nic)));
    assert_ptr_equal(zvs_guest_tap_nic(*t), nic);
    /* a NIC already driven, a tap name already taken */
    assert_int_equal(zvs_guest_tap_open("zt0d", 0, nic, t2), -EBUSY);
    assert_int_equal(zvs_guest_tap_open("zt0c", 0, nic2, t2), -EEXIST);   /* never shared */
    assert_null(*t2);
    assert_int_equal(sh("ip link show zt0d >/dev/null 2>&1"), 1);
    zvs_guest_tap_close(*t);
    *t = NULL;
    assert_int_equal(sh("ip link show zt0c >/dev/null 2>&1"), 1);          /* close deletes it */
    /* close gave the queues back (not initialised): the NIC can be driven again */
    assert_int_equal(h->irq_armed, 0);
    assert_int_equal(in_slsb(nic, 0), ZVS_SLSB_P_INPUT_NOT_INIT);
    assert_int_equal(zvs_guest_tap_open("zt0c", 0, nic, t), 0);
    zvs_guest_tap_close(*t);
    *t = NULL;
    /* MTU: an explicit one within the NIC's; 0 on a jumbo NIC gives the tap default. At
     * QUEUESTORAGE 1M (nic3) the buffers and so the super-frames are as large as at 8M. */
    assert_int_equal(zvs_guest_tap_open("zt0c", 1400, nic3, t), 0);
    assert_int_equal(sh("ip link show zt0c | grep -q ' mtu 1400 '"), 0);
    zvs_guest_tap_stats(*t, &st);
    assert_int_equal(st.max_frame, 65504);
    assert_int_equal(st.gso_max_size, 65486);
    assert_int_equal(sh("ip -d link show zt0c | grep -q ' gso_max_size 65486 gso_max_segs 128 '"),
                     0);
    /* nic2 saw a failed open above (tap name taken): it was left as it was */
    assert_int_equal(zvs_guest_tap_open("zt0d", 0, nic2, t2), 0);
    zvs_guest_tap_stats(*t2, &st);
    assert_int_equal(st.mtu, ZVS_GUEST_TAP_MTU_DEFAULT);
    assert_int_equal(nic2->mtu, 65504 - 18);
}

static void test_frames_cross_exact(void **state)
{
    if (!netns_ok)
        skip();
    struct lab *l = &LAB;
    static uint8_t f[3][1514], got[2048];
    const uint32_t len[3] = { 60, 1514, 114 };
    uint64_t bytes = 0;

    lab_open(l, true, false);
    for (int i = 0; i < 3; i++) {
        make_frame(f[i], len[i], MAC_B, MAC_A, (uint32_t)i + 1);
        assert_int_equal(send(l->ps[0], f[i], len[i], 0), (ssize_t)len[i]);
        bytes += len[i];
    }
    pump(l);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(recv_frame(l->ps[1], got, sizeof(got), RX_WAIT_MS), (int)len[i]);
        assert_memory_equal(got, f[i], len[i]);
    }
    assert_int_equal(recv_frame(l->ps[1], got, sizeof(got), NO_RX_MS), -1);

    /* the switch's view: A's NIC brought them in, B's took them out */
    assert_int_equal(l->nic[0]->ctr.in_packets, 3);
    assert_int_equal(l->nic[0]->ctr.in_bytes, bytes);
    assert_int_equal(l->nic[0]->ctr.in_discards + l->nic[0]->ctr.in_errors, 0);
    assert_int_equal(l->nic[1]->ctr.out_packets, 3);
    assert_int_equal(l->nic[1]->ctr.out_bytes, bytes);
    assert_int_equal(l->nic[1]->ctr.out_discards + l->nic[1]->ctr.out_errors, 0);
    assert_int_equal(l->nic[0]->ctr.out_packets + l->nic[1]->ctr.in_packets, 0);
    /* the drivers' view */
    struct zvs_guest_tap_stats a = tap_stats(l, 0), b = tap_stats(l, 1);
    assert_int_equal(a.tap_rx_frames, 3);
    assert_int_equal(a.tap_rx_bytes, bytes);
    assert_int_equal(a.tap_rx_copied, 0);
    assert_int_equal(b.tap_tx_frames, 3);
    assert_int_equal(b.tap_tx_bytes, bytes);
    assert_int_equal(b.tap_tx_dropped_down + b.tap_tx_dropped_full + b.tap_tx_errors, 0);
    assert_true(b.irqs >= 1);
    /* one burst read, three frames packed into one output buffer, one entry each */
    struct zvs_qdio_counters qa = nic_qdio(l, 0), qb = nic_qdio(l, 1);
    assert_int_equal(qa.prog.out_frames, 3);
    assert_int_equal(qa.prog.out_bufs_primed, 1);
    assert_int_equal(qa.prog.siga_w, 0);
    assert_int_equal(qa.adapter.out_frames, 3);
    assert_int_equal(qa.adapter.out_bytes, bytes);
    assert_int_equal(qb.adapter.in_frames, 3);
    assert_int_equal(qb.adapter.in_bufs_primed, 1);
    assert_int_equal(qb.prog.in_frames, 3);

    /* and back: B to A */
    make_frame(f[0], 200, MAC_A, MAC_B, 9);
    assert_int_equal(send(l->ps[1], f[0], 200, 0), 200);
    pump(l);
    assert_int_equal(recv_frame(l->ps[0], got, sizeof(got), RX_WAIT_MS), 200);
    assert_memory_equal(got, f[0], 200);
    assert_int_equal(l->nic[1]->ctr.in_packets, 1);
    assert_int_equal(l->nic[0]->ctr.out_packets, 1);
    assert_int_equal(tap_stats(l, 0).tap_tx_frames, 1);
    lab_close(l);
}

/* A TCP super-frame with partial checksum crosses as one frame and reaches the other
 * guest's kernel as a super-frame with the same metadata. */
static void test_superframe_crosses(void **state)
{
    if (!netns_ok)
        skip();
    struct lab *l = &LAB;
    static uint8_t f[9000], got[VH_LEN + 9100];

    lab_open(l, true, true);
    uint32_t len = make_tcp4(f, 8000, MAC_B, MAC_A);
    assert_int_equal(len, 8054);
    struct virtio_net_hdr vh = tcp4_vh(1448);
    send_vnet(l->ps[0], &vh, f, len);
    pump(l);

    struct zvs_guest_tap_stats a = tap_stats(l, 0), b = tap_stats(l, 1);
    assert_int_equal(a.tap_rx_frames, 1);          /* not segmented by A's kernel */
    assert_int_equal(a.tap_rx_bytes, len);
    /* the switch counts it as the wire would carry it (issue 15): 8000 / 1448 is five
     * full segments and one of 760 bytes, each with the 54 bytes of headers */
    assert_int_equal(l->nic[0]->ctr.in_packets, 6);
    assert_int_equal(l->nic[0]->ctr.in_bytes, 8000 + 6 * 54);
    assert_int_equal(l->nic[1]->ctr.out_packets, 6);
    assert_int_equal(l->nic[1]->ctr.out_bytes, 8000 + 6 * 54);
    struct zvs_switch_stats ss;
    zvs_switch_stats(l->sw, &ss);
    assert_int_equal(ss.fixups, 0);                /* the NIC takes super-frames */
    assert_int_equal(b.tap_tx_frames, 1);
    /* the super-frame took two 4 KB entries of one output buffer */
    assert_int_equal(nic_qdio(l, 0).prog.out_bufs_primed, 1);

    int n = recv_frame(l->ps[1], got, sizeof(got), RX_WAIT_MS);
    assert_int_equal(n, (int)(VH_LEN + len));
    struct virtio_net_hdr rv;
    memcpy(&rv, got, VH_LEN);
    assert_int_equal(rv.gso_type, VIRTIO_NET_HDR_GSO_TCPV4);
    assert_int_equal(rv.gso_size, 1448);
    assert_int_equal(rv.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM, VIRTIO_NET_HDR_F_NEEDS_CSUM);
    assert_int_equal(rv.csum_start, 34);
    assert_int_equal(rv.csum_offset, 16);
    assert_memory_equal(got + VH_LEN, f, len);
    assert_int_equal(recv_frame(l->ps[1], got, sizeof(got), NO_RX_MS), -1);
    lab_close(l);
}

/* gso_max_size (65486) keeps a guest's super-frames within one NIC buffer: a larger one
 * is segmented by the guest's own kernel. Raised behind our back, the driver drops the
 * frame it cannot hold (over 65504 bytes), counts it, and goes on. */
static void test_superframe_limit(void **state)
{
    if (!netns_ok)
        skip();
    struct lab *l = &LAB;
    static uint8_t f[65600], got[VH_LEN + 65600];

    lab_open(l, true, true);
    /* 65440 bytes of payload: a 65494-byte frame, 8 past gso_max_size */
    uint32_t len = make_tcp4(f, 65440, MAC_B, MAC_A);
    assert_int_equal(len, 65494);
    struct virtio_net_hdr vh = tcp4_vh(1448);
    send_vnet(l->ps[0], &vh, f, len);
    pump(l);
    struct zvs_guest_tap_stats a = tap_stats(l, 0);
    /* 65440 / 1448: 45 full segments and one of 280 bytes, each a plain frame */
    assert_int_equal(a.tap_rx_frames, 46);
    assert_int_equal(a.tap_rx_bytes, 65440 + 46 * 54);
    assert_int_equal(a.tap_rx_oversize, 0);
    assert_int_equal(l->nic[1]->ctr.out_packets, 46);
    int got_n = 0;
    uint32_t payload = 0;
    int n;
    while ((n = recv_frame(l->ps[1], got, sizeof(got), got_n < 46 ? RX_WAIT_MS : NO_RX_MS)) >= 0) {
        struct virtio_net_hdr rv;
        memcpy(&rv, got, VH_LEN);
        assert_int_equal(rv.gso_type, VIRTIO_NET_HDR_GSO_NONE);
        assert_true(n - (int)VH_LEN <= 1514);
        payload += (uint32_t)(n - (int)VH_LEN) - 54;
        got_n++;
    }
    assert_int_equal(got_n, 46);
    assert_int_equal(payload, 65440);

    /* gso_max_size raised to the tap's limit: a 65514-byte frame reaches the driver,
     * 10 bytes more than a buffer holds */
    assert_int_equal(sh("ip link set zt0a gso_max_size 65536"), 0);
    len = make_tcp4(f, 65460, MAC_B, MAC_A);
    assert_int_equal(len, 65514);
    send_vnet(l->ps[0], &vh, f, len);
    send_vnet(l->ps[0], &vh, f, len);
    pump(l);
    a = tap_stats(l, 0);
    assert_int_equal(a.tap_rx_oversize, 2);        /* dropped, logged once */
    assert_int_equal(a.tap_rx_frames, 46);
    assert_int_equal(l->nic[0]->ctr.in_packets, 46);
    /* the driver goes on: the next frame crosses, and so does the largest one a buffer
     * holds (65504 bytes, all 16 entries) as one super-frame */
    struct virtio_net_hdr none = { 0 };
    make_frame(f, 300, MAC_B, MAC_A, 3);
    send_vnet(l->ps[0], &none, f, 300);
    pump(l);
    assert_int_equal(recv_frame(l->ps[1], got, sizeof(got), RX_WAIT_MS), (int)(VH_LEN + 300));
    assert_memory_equal(got + VH_LEN, f, 300);
    len = make_tcp4(f, 65450, MAC_B, MAC_A);
    assert_int_equal(len, 65504);
    send_vnet(l->ps[0], &vh, f, len);
    pump(l);
    assert_int_equal(recv_frame(l->ps[1], got, sizeof(got), RX_WAIT_MS), (int)(VH_LEN + len));
    assert_memory_equal(got + VH_LEN, f, len);
    struct virtio_net_hdr rv;
    memcpy(&rv, got, VH_LEN);
    assert_int_equal(rv.gso_type, VIRTIO_NET_HDR_GSO_TCPV4);
    a = tap_stats(l, 0);
    assert_int_equal(a.tap_rx_frames, 48);
    assert_int_equal(a.tap_rx_oversize, 2);
    /* the switch counts wire frames: 46 segments, the 300-byte frame, and the 65450-byte
     * super-frame's 46 segments (45 of 1448 bytes, one of 290) */
    assert_int_equal(l->nic[1]->ctr.out_packets, 46 + 1 + 46);
    lab_close(l);
}

/* Small frames first, then one that does not fit the open buffer's rest: it is copied
 * into a fresh buffer, order kept, bytes exact. */
static void test_overflow_copied_in_order(void **state)
{
    if (!netns_ok)
        skip();
    struct lab *l = &LAB;
    static uint8_t small[100], bigbuf[65054];

    lab_open(l, true, true);
    make_frame(small, sizeof(small), MAC_B, MAC_A, 21);
    uint32_t len = make_tcp4(bigbuf, 65000, MAC_B, MAC_A);  /* 65054: all 16 entries */
    assert_int_equal(len, 65054);
    struct virtio_net_hdr none = { 0 }, vh = tcp4_vh(1448);
    send_vnet(l->ps[0], &none, small, sizeof(small));
    send_vnet(l->ps[0], &vh, bigbuf, len);
    send_vnet(l->ps[0], &none, small, sizeof(small));
    pump(l);
    expect_reads(l, 0, 3, 1, 3);
    recv_exact(l->ps[1], small, 100);
    recv_exact(l->ps[1], bigbuf, len);
    recv_exact(l->ps[1], small, 100);
    lab_close(l);
}

/* A TCP sender's pattern: super-frames with single segments between them. A super-frame
 * that would not fit what is left beside the last one and a segment starts a fresh buffer
 * instead of being read past the open one's end and copied (zvs_qdio_guest_tx_expect);
 * two small frames in a row end the run and small frames pack again. Order and bytes
 * exact. */
static void test_super_frames_not_copied(void **state)
{
    if (!netns_ok)
        skip();
    struct lab *l = &LAB;
    static uint8_t small[12][100], bigbuf[2][30054];

    lab_open(l, true, true);
    struct virtio_net_hdr none = { 0 }, vh = tcp4_vh(1448);
    for (int i = 0; i < 12; i++)
        make_frame(small[i], sizeof(small[i]), MAC_B, MAC_A, (uint8_t)(40 + i));
    for (int i = 0; i < 2; i++) {
        assert_int_equal(make_tcp4(bigbuf[i], 30000, MAC_B, MAC_A), 30054); /* 8 entries */
        bigbuf[i][60] = (uint8_t)i;     /* the two differ in their payload */
    }
    /* big, small, big (past the 7 entries left beside big and small), then ten small */
    send_vnet(l->ps[0], &vh, bigbuf[0], 30054);
    send_vnet(l->ps[0], &none, small[0], 100);
    send_vnet(l->ps[0], &vh, bigbuf[1], 30054);
    for (int i = 1; i <= 10; i++)
        send_vnet(l->ps[0], &none, small[i], 100);
    pump(l);
    /* nothing copied; [big, small 0] [big, small 1] (primed before small 2: the run had
     * not ended) [small 2-10] */
    expect_reads(l, 0, 13, 0, 3);
    recv_exact(l->ps[1], bigbuf[0], 30054);
    recv_exact(l->ps[1], small[0], 100);
    recv_exact(l->ps[1], bigbuf[1], 30054);
    for (int i = 1; i <= 10; i++)
        recv_exact(l->ps[1], small[i], 100);
    lab_close(l);
}

/* Frames of 9014 bytes (3 entries each) pack five to a buffer; the sixth, which would
 * not fit the one entry left, starts the next buffer instead of being copied there. */
static void test_jumbo_frames_pack_uncopied(void **state)
{
    if (!netns_ok)
        skip();
    struct lab *l = &LAB;
    static uint8_t f[10][9014];

    lab_open(l, true, true);
    struct virtio_net_hdr vh = tcp4_vh(1448);
    for (int i = 0; i < 10; i++) {
        assert_int_equal(make_tcp4(f[i], 8960, MAC_B, MAC_A), 9014);
        f[i][60] = (uint8_t)i;
        send_vnet(l->ps[0], &vh, f[i], 9014);
    }
    pump(l);
    expect_reads(l, 0, 10, 0, 2);
    for (int i = 0; i < 10; i++)
        recv_exact(l->ps[1], f[i], 9014);
    lab_close(l);
}

/* Tap B down: frames for it are dropped and counted, nothing waits; up again: they flow. */
static void test_tap_down_and_up(void **state)
{
    if (!netns_ok)
        skip();
    struct lab *l = &LAB;
    static uint8_t f[5][600], got[2048];

    lab_open(l, true, false);
    if_set_up("zt0b", false);
    for (int i = 0; i < 5; i++) {
        make_frame(f[i], 600, MAC_B, MAC_A, 40u + (uint32_t)i);
        assert_int_equal(send(l->ps[0], f[i], 600, 0), 600);
    }
    uint64_t t0 = now_ns();
    pump(l);
    assert_true(now_ns() - t0 < 500000000ull);     /* no waiting on a down tap */
    struct zvs_guest_tap_stats b = tap_stats(l, 1);
    assert_int_equal(b.tap_tx_dropped_down, 5);
    assert_int_equal(b.tap_tx_frames, 0);
    assert_int_equal(l->nic[1]->ctr.out_packets, 5);  /* the NIC took them; the tap did not */
    assert_int_equal(nic_qdio(l, 1).prog.in_frames, 5);
    assert_int_equal(recv_frame(l->ps[1], got, sizeof(got), NO_RX_MS), -1);

    if_set_up("zt0b", true);
    for (int i = 0; i < 5; i++)
        assert_int_equal(send(l->ps[0], f[i], 600, 0), 600);
    pump(l);
    for (int i = 0; i < 5; i++) {
        assert_int_equal(recv_frame(l->ps[1], got, sizeof(got), RX_WAIT_MS), 600);
        assert_memory_equal(got, f[i], 600);
    }
    b = tap_stats(l, 1);
    assert_int_equal(b.tap_tx_dropped_down, 5);
    assert_int_equal(b.tap_tx_frames, 5);
    assert_int_equal(l->nic[0]->ctr.in_packets, 10);
    assert_int_equal(l->nic[1]->ctr.out_packets, 10);

    /* tap A (the sender) down and up: it simply sends nothing meanwhile */
    if_set_up("zt0a", false);
    assert_int_equal(zvs_guest_tap_pump_out(l->tap[0]), 0);
    if_set_up("zt0a", true);
    close(l->ps[0]);
    l->ps[0] = psock_open("zt0a", false);
    assert_int_equal(send(l->ps[0], f[0], 600, 0), 600);
    pump(l);
    assert_int_equal(recv_frame(l->ps[1], got, sizeof(got), RX_WAIT_MS), 600);
    assert_memory_equal(got, f[0], 600);
    lab_close(l);
}

/* ---- end to end: two namespaces ping each other across the switch ------------------------ */


static int wait_byte(int fd, char want, int ms)
{
    struct pollfd p = { .fd = fd, .events = POLLIN };
    char c = 0;

    if (poll(&p, 1, ms) != 1 || read(fd, &c, 1) != 1)
        return -1;
    return c == want ? 0 : -1;
}

/* A guest: a child in a network namespace of its own that takes tap `ifname`, gives it
 * `cidr`, then pings `target` (exit status: ping's) or, without a target, waits to be
 * killed (at most 30 s). */
static struct child_proc child_start(const char *ifname, const char *cidr, const char *target)
{
    int to[2], from[2];
    struct child_proc c = { .pid = -1, .to = -1, .from = -1 };

    assert_int_equal(pipe2(to, O_CLOEXEC), 0);
    assert_int_equal(pipe2(from, O_CLOEXEC), 0);
    c.pid = fork();
    assert_true(c.pid >= 0);
    if (c.pid == 0) {
        char ok = 0;
        alarm(30);
        if (unshare(CLONE_NEWNET) < 0)
            _exit(90);
        no_ipv6_here();
        if (write(from[1], "r", 1) != 1 || wait_byte(to[0], 'g', 5000) < 0)
            _exit(91);
        if (sh("ip link set lo up && ip addr add %s dev %s && ip link set %s up",
               cidr, ifname, ifname) != 0)
            _exit(92);
        ok = 'c';
        if (write(from[1], &ok, 1) != 1)
            _exit(93);
        if (!target) {
            for (;;)
                pause();
        }
        _exit(sh("ping -c 3 -W 1 -i 0.2 -q %s >/dev/null 2>&1", target));
    }
    close(to[0]);
    close(from[1]);
    c.to = to[1];
    c.from = from[0];
    return c;
}

static void child_stop(struct child_proc *c)
{
    if (c->pid > 0) {
        kill(c->pid, SIGKILL);
        (void)waitpid(c->pid, NULL, 0);
        c->pid = -1;
    }
    if (c->to >= 0)
        close(c->to);
    if (c->from >= 0)
        close(c->from);
    c->to = c->from = -1;
}

struct e2e {
    struct lab *l;
    int         events;
};

static int tap_index(struct e2e *e, int fd, bool irq)
{
    for (int i = 0; i < 2; i++) {
        if (fd == (irq ? zvs_guest_tap_irq_fd(e->l->tap[i]) : zvs_guest_tap_fd(e->l->tap[i])))
            return i;
    }
    fail();
    return -1;
}

static void on_tap(void *arg, int fd, uint32_t events, uint64_t now)
{
    struct e2e *e = arg;
    int i = tap_index(e, fd, false);

    e->events++;
    (void)zvs_guest_tap_pump_out(e->l->tap[i]);
    while (zvs_switch_poll(e->l->sw, e->l->nic[i], now) > 0) {
    }
}

static void on_irq(void *arg, int fd, uint32_t events, uint64_t now)
{
    struct e2e *e = arg;

    e->events++;
    (void)zvs_guest_tap_pump_in(e->l->tap[tap_index(e, fd, true)]);
}

static void test_ping_between_namespaces(void **state)
{
    if (!netns_ok)
        skip();
    struct lab *l = &LAB;
    struct child_proc *a = &KIDS[0], *b = &KIDS[1];
    char cmd[128];

    lab_open(l, false, false);
    *a = child_start("zt0a", "10.99.0.1/24", NULL);
    *b = child_start("zt0b", "10.99.0.2/24", "10.99.0.1");
    assert_int_equal(wait_byte(a->from, 'r', 5000), 0);
    assert_int_equal(wait_byte(b->from, 'r', 5000), 0);
    snprintf(cmd, sizeof(cmd), "ip link set zt0a netns %d", (int)a->pid);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof(cmd), "ip link set zt0b netns %d", (int)b->pid);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(write(a->to, "g", 1), 1);
    assert_int_equal(wait_byte(a->from, 'c', 5000), 0);
    assert_int_equal(write(b->to, "g", 1), 1);
    assert_int_equal(wait_byte(b->from, 'c', 5000), 0);

    /* the daemon's loop: pump while ping runs, for at most 8 s */
    struct zvs_evloop *loop = zvs_evloop_create();
    struct e2e e = { .l = l };
    assert_non_null(loop);
    for (int i = 0; i < 2; i++) {
        int tfd = zvs_guest_tap_fd(l->tap[i]), ifd = zvs_guest_tap_irq_fd(l->tap[i]);
        assert_int_equal(zvs_evloop_add_fd(loop, tfd, EPOLLIN, on_tap, &e), 0);
        assert_int_equal(zvs_evloop_add_fd(loop, ifd, EPOLLIN, on_irq, &e), 0);
    }
    int status = -1;
    uint64_t deadline = now_ns() + 8000000000ull;
    while (now_ns() < deadline) {
        assert_true(zvs_evloop_run_once(loop, 10) >= 0);
        if (waitpid(b->pid, &status, WNOHANG) == b->pid) {
            b->pid = -1;
            break;
        }
    }
    zvs_evloop_destroy(loop);
    child_stop(b);
    child_stop(a);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    /* ARP both ways, then 3 echo requests and 3 replies at least */
    struct zvs_guest_tap_stats sa = tap_stats(l, 0), sb = tap_stats(l, 1);
    assert_true(sb.tap_rx_frames >= 4);
    assert_true(sa.tap_tx_frames >= 4);
    assert_true(sa.tap_rx_frames >= 4);
    assert_true(sb.tap_tx_frames >= 4);
    assert_int_equal(sa.tap_rx_oversize + sb.tap_rx_oversize + sa.tap_rx_bad_vnet +
                     sb.tap_rx_bad_vnet, 0);
    assert_true(e.events > 0);

    /* the namespaces are gone, and the taps with them (the kernel cleans a namespace up
     * asynchronously: wait up to 3 s); the drivers neither block nor crash */
    int rc = 0;
    for (int i = 0; i < 300 && rc == 0; i++) {
        rc = zvs_guest_tap_pump_out(l->tap[0]);
        if (rc == 0)
            usleep(10000);
    }
    assert_int_equal(rc, -EBADFD);
    uint8_t fr[64];
    make_frame(fr, sizeof(fr), MAC_A, MAC_B, 77);
    struct zvs_frame f = { .data = fr, .len = sizeof(fr) };
    uint64_t down = tap_stats(l, 0).tap_tx_dropped_down;
    zvs_switch_input(l->sw, l->nic[1], &f, 1, now_ns());
    assert_int_equal(zvs_guest_tap_pump_in(l->tap[0]), 1);
    assert_int_equal(tap_stats(l, 0).tap_tx_dropped_down, down + 1);
    lab_close(l);
}


/* ---- binding: the tap outlives the coupling ------------------------------------------------ */

/* The link flags the kernel reports (netlink, so all 32 bits: IFF_LOWER_UP is the
 * carrier of an interface that is up). */
static bool link_flag(const char *ifname, const char *flag)
{
    return sh("ip -o link show %s | grep -q '[<,]%s[,>]'", ifname, flag) == 0;
}

static bool irq_readable(int fd, int ms)
{
    struct pollfd p = { .fd = fd, .events = POLLIN };
    int n = poll(&p, 1, ms);
    assert_true(n >= 0);
    return n == 1 && (p.revents & POLLIN);
}

/* The switch's side of a NIC: write one frame into its input queue. Returns delivered. */
static int nic_deliver(struct zvs_port *nic, const uint8_t *b, uint32_t len, enum zvs_drop *why)
{
    struct zvs_frame f = { .data = b, .len = len };
    struct zvs_tx tx = { .f = &f, .tag_op = ZVS_TAG_KEEP };
    *why = ZVS_DROP__COUNT;
    return nic->ops->tx(nic, &tx, 1, why);
}

/* The switch's side of a NIC: take exactly one frame from its output queue and compare. */
static void nic_take_one(struct zvs_port *nic, const uint8_t *want, uint32_t len)
{
    struct zvs_frame fr[4];
    int n = nic->ops->rx(nic, fr, 4);
    assert_int_equal(n, 1);
    assert_int_equal(fr[0].len, len);
    assert_int_equal(fr[0].nfrags, 0);
    assert_memory_equal(fr[0].data, want, len);
    nic->ops->rx_release(nic, fr, n);
    assert_int_equal(nic->ops->rx(nic, fr, 4), 0);
}

/* Take the tap down and up: with the carrier on, the device's queueing is active at once
 * (after a carrier change the kernel activates it asynchronously, via linkwatch). */
static int bounce(const char *ifname, int ps)
{
    if (ps >= 0)
        close(ps);
    if_set_up(ifname, false);
    if_set_up(ifname, true);
    return psock_open(ifname, false);
}

/* Open unbound (carrier off), bind (carrier on, frames both ways), unbind (carrier off,
 * a frame the guest sent is dropped and counted, delivered ones still reach the guest,
 * the NIC's queues are free and the port may go), rebind to a new port; one interrupt fd
 * throughout. */
static void test_bind_unbind_rebind(void **state)
{
    if (!netns_ok)
        skip();
    static uint8_t f[6][256], got[2048];
    struct zvs_guest_tap **t = &BIND.t[0];
    struct zvs_guest_tap_stats st;
    struct zvs_qdio_counters qc;
    enum zvs_drop why;
    int err = 0;

    for (int i = 0; i < 6; i++)
        make_frame(f[i], 60u + 20u * (uint32_t)i, i % 2 ? MAC_A : MAC_B,
                   i % 2 ? MAC_B : MAC_A, 60u + (uint32_t)i);
    BIND.nic[0] = zvs_nic_qdio_create("LNXF.F000", QS_1M, 1500, &err);
    BIND.nic[1] = zvs_nic_qdio_create("LNXG.F000", QS_1M, 1500, &err);
    struct zvs_port *nic1 = BIND.nic[0], *nic2 = BIND.nic[1];
    assert_non_null(nic1);
    assert_non_null(nic2);

    /* unbound: a tap without a NIC, its carrier off */
    assert_int_equal(zvs_guest_tap_open("zt0e", 0, NULL, t), 0);
    assert_null(zvs_guest_tap_nic(*t));
    zvs_guest_tap_stats(*t, &st);
    assert_int_equal(st.mtu, ZVS_GUEST_TAP_MTU_DEFAULT);
    assert_int_equal(st.max_frame, 65504);
    assert_int_equal(st.gso_max_size, 65486);
    const int irq = zvs_guest_tap_irq_fd(*t);
    assert_true(irq >= 0);
    assert_int_equal(zvs_guest_tap_pump_out(*t), 0);
    assert_int_equal(zvs_guest_tap_pump_in(*t), 0);
    if_set_up("zt0e", true);
    assert_true(link_flag("zt0e", "NO-CARRIER"));
    assert_false(link_flag("zt0e", "LOWER_UP"));
    assert_false(irq_readable(irq, 0));

    /* bind: carrier on, the NIC's queues established */
    struct zvs_port other;
    memset(&other, 0, sizeof(other));
    other.mtu = 1500;
    assert_int_equal(zvs_guest_tap_bind(*t, &other), -EINVAL);    /* not a QDIO NIC */
    assert_null(zvs_guest_tap_nic(*t));
    assert_int_equal(zvs_guest_tap_bind(*t, nic1), 0);
    assert_ptr_equal(zvs_guest_tap_nic(*t), nic1);
    assert_int_equal(zvs_guest_tap_irq_fd(*t), irq);
    assert_true(link_flag("zt0e", "LOWER_UP"));
    assert_false(link_flag("zt0e", "NO-CARRIER"));
    const struct zvs_qdio_shm_hdr *h1 = zvs_qdio_region(zvs_nic_qdio_queues(nic1));
    assert_int_equal(h1->irq_armed, 1);
    assert_int_equal(h1->ac1 & ZVS_QDIO_AC1_SIGA_OUTPUT, 0);
    assert_int_equal(in_slsb(nic1, 0), ZVS_SLSB_CU_INPUT_EMPTY);
    BIND.ps = bounce("zt0e", BIND.ps);

    /* guest -> NIC: the frame lands in the output queue, exact */
    assert_int_equal(send(BIND.ps, f[0], 60, 0), 60);
    assert_int_equal(zvs_guest_tap_pump_out(*t), 1);
    nic_take_one(nic1, f[0], 60);
    /* NIC -> guest: the thin interrupt shows on the driver's fd */
    assert_false(irq_readable(irq, 0));
    assert_int_equal(nic_deliver(nic1, f[1], 80, &why), 1);
    assert_true(irq_readable(irq, RX_WAIT_MS));
    assert_int_equal(zvs_guest_tap_pump_in(*t), 1);
    assert_false(irq_readable(irq, 0));
    assert_int_equal(recv_frame(BIND.ps, got, sizeof(got), RX_WAIT_MS), 80);
    assert_memory_equal(got, f[1], 80);

    /* unbind with one frame waiting each way: the delivered one still reaches the guest,
     * the one the guest sent is read and dropped */
    assert_int_equal(send(BIND.ps, f[2], 100, 0), 100);
    assert_int_equal(nic_deliver(nic1, f[3], 120, &why), 1);
    zvs_guest_tap_unbind(*t);
    assert_null(zvs_guest_tap_nic(*t));
    assert_int_equal(zvs_guest_tap_irq_fd(*t), irq);
    assert_true(link_flag("zt0e", "NO-CARRIER"));
    assert_false(link_flag("zt0e", "LOWER_UP"));
    assert_int_equal(recv_frame(BIND.ps, got, sizeof(got), RX_WAIT_MS), 120);
    assert_memory_equal(got, f[3], 120);
    assert_int_equal(zvs_guest_tap_pump_out(*t), 0);
    zvs_guest_tap_stats(*t, &st);
    assert_int_equal(st.tap_rx_unbound, 1);
    assert_int_equal(st.tap_rx_frames, 1);
    assert_int_equal(st.tap_tx_frames, 2);
    assert_int_equal(st.tap_rx_errors + st.tap_tx_errors + st.tap_tx_dropped_down, 0);
    zvs_qdio_counters(zvs_nic_qdio_queues(nic1), &qc);
    assert_int_equal(qc.prog.out_frames, 1);       /* the dropped frame never entered */
    assert_int_equal(qc.adapter.out_frames, 1);
    assert_int_equal(qc.adapter.in_frames, 2);
    /* the NIC's queues are back to not initialised: the switch's frames are discarded
     * (no input buffer) and raise nothing on the driver's fd */
    assert_int_equal(h1->irq_armed, 0);
    assert_int_equal(in_slsb(nic1, 0), ZVS_SLSB_P_INPUT_NOT_INIT);
    assert_int_equal(nic_deliver(nic1, f[3], 120, &why), 0);
    assert_int_equal(why, ZVS_DROP_NO_BUFFER);
    assert_false(irq_readable(irq, 0));
    assert_int_equal(zvs_guest_tap_pump_in(*t), 0);
    zvs_guest_tap_unbind(*t);                      /* twice: nothing */
    /* the port may go now */
    nic1->ops->destroy(nic1);
    BIND.nic[0] = nic1 = NULL;

    /* rebind to a new port: same fds, carrier on, frames both ways */
    assert_int_equal(zvs_guest_tap_bind(*t, nic2), 0);
    assert_ptr_equal(zvs_guest_tap_nic(*t), nic2);
    assert_int_equal(zvs_guest_tap_irq_fd(*t), irq);
    assert_true(link_flag("zt0e", "LOWER_UP"));
    BIND.ps = bounce("zt0e", BIND.ps);
    assert_int_equal(send(BIND.ps, f[4], 140, 0), 140);
    assert_int_equal(zvs_guest_tap_pump_out(*t), 1);
    nic_take_one(nic2, f[4], 140);
    assert_int_equal(nic_deliver(nic2, f[5], 160, &why), 1);
    assert_true(irq_readable(irq, RX_WAIT_MS));
    assert_int_equal(zvs_guest_tap_pump_in(*t), 1);
    assert_int_equal(recv_frame(BIND.ps, got, sizeof(got), RX_WAIT_MS), 160);
    assert_memory_equal(got, f[5], 160);
    zvs_guest_tap_stats(*t, &st);
    assert_int_equal(st.tap_rx_frames, 2);
    assert_int_equal(st.tap_rx_unbound, 1);
    assert_int_equal(st.tap_tx_frames, 3);
    assert_int_equal(recv_frame(BIND.ps, got, sizeof(got), NO_RX_MS), -1);

    /* binding to the NIC it has: released and established afresh */
    assert_int_equal(zvs_guest_tap_bind(*t, nic2), 0);
    assert_int_equal(in_slsb(nic2, 0), ZVS_SLSB_CU_INPUT_EMPTY);
    /* no second driver on a bound NIC; a tap MTU above the NIC's is refused */
    assert_int_equal(zvs_guest_tap_open("zt0f", 0, nic2, &BIND.t[1]), -EBUSY);
    assert_null(BIND.t[1]);
    assert_int_equal(zvs_guest_tap_open("zt0f", 9000, NULL, &BIND.t[1]), 0);
    assert_int_equal(zvs_guest_tap_bind(BIND.t[1], nic2), -EINVAL);
    assert_ptr_equal(zvs_guest_tap_nic(*t), nic2);  /* the refused bind changed nothing */
    zvs_guest_tap_close(BIND.t[1]);
    BIND.t[1] = NULL;
    assert_int_equal(zvs_guest_tap_open("zt0f", 70000, NULL, &BIND.t[1]), -EINVAL);
}

/* Tap `ifname` moved into a guest's namespace (KIDS[0]) and named `name` there, as a
 * guest does before its NIC couples. */
static struct child_proc *moved_to_guest(const char *ifname, const char *name)
{
    struct child_proc *c = &KIDS[0];
    *c = child_start(ifname, "10.99.1.1/24", NULL);
    assert_int_equal(wait_byte(c->from, 'r', 5000), 0);
    assert_int_equal(sh("ip link set %s netns %d", ifname, (int)c->pid), 0);
    assert_int_equal(write(c->to, "g", 1), 1);
    assert_int_equal(wait_byte(c->from, 'c', 5000), 0);
    assert_int_equal(sh("nsenter -t %d -n ip link set %s down name %s", (int)c->pid, ifname,
                        name), 0);
    return c;
}

/* A VXLAN segment's MTU: a tap made for a switch whose segment carries 1450 (1430 over
 * IPv6) gets it instead of the 1500 default (zvs_nic_tap_mtu, the kind's choice); one
 * made at the default is lowered at COUPLE while it is still at the MTU the driver gave
 * it, in the daemon's namespace and in the guest's it was moved to, never raised; an MTU
 * the guest set is kept. */
static void test_mtu_fits_segment(void **state)
{
    assert_int_equal(zvs_nic_tap_mtu(0), 1500);         /* no segment: the default */
    assert_int_equal(zvs_nic_tap_mtu(1450), 1450);      /* IPv4 underlay of 1500 */
    assert_int_equal(zvs_nic_tap_mtu(1430), 1430);      /* IPv6 underlay of 1500 */
    assert_int_equal(zvs_nic_tap_mtu(8950), 1500);      /* jumbo underlay: the smaller */
    assert_int_equal(zvs_nic_tap_mtu(60), 1500);        /* no tap that small */
    if (!netns_ok)
        skip();
    struct zvs_guest_tap **t = &OPEN.t[0], **t2 = &OPEN.t[1];
    struct zvs_guest_tap_stats st;
    bool lowered;

    assert_int_equal(zvs_guest_tap_open("zt0m", zvs_nic_tap_mtu(1450), NULL, t), 0);
    assert_int_equal(sh("ip link show zt0m | grep -q ' mtu 1450 '"), 0);
    assert_int_equal(zvs_guest_tap_open("zt0n", zvs_nic_tap_mtu(1430), NULL, t2), 0);
    assert_int_equal(sh("ip link show zt0n | grep -q ' mtu 1430 '"), 0);
    zvs_guest_tap_close(*t2);
    *t2 = NULL;

    /* Made at the default before its segment was known: lowered at COUPLE, and again for
     * a smaller segment; a larger one never raises it. */
    zvs_guest_tap_close(*t);
    assert_int_equal(zvs_guest_tap_open("zt0m", 0, NULL, t), 0);
    assert_int_equal(zvs_guest_tap_fit_mtu(*t, 1450, &lowered), 1450);
    assert_true(lowered);
    assert_int_equal(sh("ip link show zt0m | grep -q ' mtu 1450 '"), 0);
    zvs_guest_tap_stats(*t, &st);
    assert_int_equal(st.mtu, 1450);
    assert_int_equal(zvs_guest_tap_fit_mtu(*t, 1430, &lowered), 1430);
    assert_true(lowered);
    assert_int_equal(zvs_guest_tap_fit_mtu(*t, 1500, &lowered), 1430);
    assert_false(lowered);
    assert_int_equal(zvs_guest_tap_fit_mtu(*t, 67, &lowered), -EINVAL);
    /* The guest's own MTU is the guest's. */
    assert_int_equal(sh("ip link set zt0m mtu 1480"), 0);
    assert_int_equal(zvs_guest_tap_fit_mtu(*t, 1400, &lowered), 1480);
    assert_false(lowered);
    assert_int_equal(sh("ip link show zt0m | grep -q ' mtu 1480 '"), 0);

    /* Moved into the guest's namespace (and renamed there) before it couples: reached
     * there through the tap's fd. */
    assert_int_equal(zvs_guest_tap_open("zt0n", 0, NULL, t2), 0);
    struct child_proc *c = moved_to_guest("zt0n", "eth0");
    assert_int_equal(zvs_guest_tap_fit_mtu(*t2, 1430, &lowered), 1430);
    assert_true(lowered);
    assert_int_equal(sh("nsenter -t %d -n ip link show eth0 | grep -q ' mtu 1430 '",
                        (int)c->pid), 0);
    assert_int_equal(sh("ip link show zt0n >/dev/null 2>&1"), 1);  /* not ours any more */
}

static int (*real_devnetns)(int fd);

/* A kernel before Linux 5.2: TUNGETDEVNETNS is not an ioctl the tap knows. */
static int old_kernel_devnetns(int fd)
{
    errno = ENOTTY;
    return -1;
}

static int eperm_devnetns(int fd)
{
    errno = EPERM;
    return -1;
}

/* Without TUNGETDEVNETNS only a tap proven to be still here is fitted by its name: one a
 * guest moved into its own namespace and named like a device of ours leaves ours alone
 * (the ioctl's error), and so does any other failure of the ioctl. */
static void test_mtu_fit_without_devnetns(void **state)
{
    if (!netns_ok)
        skip();
    struct zvs_guest_tap **t = &OPEN.t[0], **t2 = &OPEN.t[1];
    bool lowered;

    zvs_guest_tap_devnetns = old_kernel_devnetns;
    assert_int_equal(zvs_guest_tap_open("zt0o", 0, NULL, t), 0);
    assert_int_equal(zvs_guest_tap_fit_mtu(*t, 1450, &lowered), 1450);   /* still here */
    assert_true(lowered);
    assert_int_equal(sh("ip link show zt0o | grep -q ' mtu 1450 '"), 0);
    zvs_guest_tap_devnetns = eperm_devnetns;
    assert_int_equal(zvs_guest_tap_fit_mtu(*t, 1430, &lowered), -EPERM);
    assert_false(lowered);
    assert_int_equal(sh("ip link show zt0o | grep -q ' mtu 1450 '"), 0);

    /* Moved away and renamed zt0h there, where this namespace has a zt0h of its own (a
     * veth: not a tap). */
    zvs_guest_tap_devnetns = old_kernel_devnetns;
    assert_int_equal(zvs_guest_tap_open("zt0p", 0, NULL, t2), 0);
    struct child_proc *c = moved_to_guest("zt0p", "zt0h");
    assert_int_equal(sh("ip link add zt0h mtu 1500 type veth peer name zt0i"), 0);
    assert_int_equal(zvs_guest_tap_fit_mtu(*t2, 1430, &lowered), -ENOTTY);
    assert_false(lowered);
    assert_int_equal(sh("ip link show zt0h | grep -q ' mtu 1500 '"), 0);       /* ours */
    assert_int_equal(sh("nsenter -t %d -n ip link show zt0h | grep -q ' mtu 1500 '",
                        (int)c->pid), 0);
    assert_int_equal(sh("ip link del zt0h"), 0);
    zvs_guest_tap_devnetns = real_devnetns;
}

static int teardown(void **state)
{
    zvs_guest_tap_devnetns = real_devnetns;
    for (int i = 0; i < 2; i++)
        child_stop(&KIDS[i]);
    lab_close(&LAB);
    for (int i = 0; i < 2; i++) {
        zvs_guest_tap_close(OPEN.t[i]);
        OPEN.t[i] = NULL;
    }
    for (int i = 0; i < 3; i++) {
        if (OPEN.nic[i])
            OPEN.nic[i]->ops->destroy(OPEN.nic[i]);
        OPEN.nic[i] = NULL;
    }
    if (BIND.ps >= 0)
        close(BIND.ps);
    BIND.ps = -1;
    for (int i = 0; i < 2; i++) {
        zvs_guest_tap_close(BIND.t[i]);     /* before the NICs: it unbinds */
        BIND.t[i] = NULL;
    }
    for (int i = 0; i < 2; i++) {
        if (BIND.nic[i])
            BIND.nic[i]->ops->destroy(BIND.nic[i]);
        BIND.nic[i] = NULL;
    }
    return 0;
}

static void setup_netns(void)
{
    netns_ok = unshare(CLONE_NEWNET) == 0 && access("/dev/net/tun", R_OK | W_OK) == 0;
    if (netns_ok) {
        no_ipv6_here();
        netns_ok = sh("ip link set lo up") == 0;
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_open_checks, teardown),
        cmocka_unit_test_teardown(test_frames_cross_exact, teardown),
        cmocka_unit_test_teardown(test_superframe_crosses, teardown),
        cmocka_unit_test_teardown(test_superframe_limit, teardown),
        cmocka_unit_test_teardown(test_overflow_copied_in_order, teardown),
        cmocka_unit_test_teardown(test_super_frames_not_copied, teardown),
        cmocka_unit_test_teardown(test_jumbo_frames_pack_uncopied, teardown),
        cmocka_unit_test_teardown(test_tap_down_and_up, teardown),
        cmocka_unit_test_teardown(test_ping_between_namespaces, teardown),
        cmocka_unit_test_teardown(test_bind_unbind_rebind, teardown),
        cmocka_unit_test_teardown(test_mtu_fits_segment, teardown),
        cmocka_unit_test_teardown(test_mtu_fit_without_devnetns, teardown),
    };
    real_devnetns = zvs_guest_tap_devnetns;
    LAB.ps[0] = LAB.ps[1] = -1;
    for (int i = 0; i < 2; i++)
        KIDS[i] = (struct child_proc){ .pid = -1, .to = -1, .from = -1 };
    setup_netns();
    return cmocka_run_group_tests_name("guest_tap", tests, NULL, NULL);
}
