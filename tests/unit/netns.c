/* Network namespace scaffolding for unit tests (see netns.h).
 *
 * Design note.
 * - Owns nothing lasting: interfaces are made with ip(8) inside the namespace the test
 *   entered with tnet_enter, so they vanish with the process; sockets are the caller's.
 * - Interface queries use ioctls on a throwaway socket, not sysfs, which shows the
 *   namespace it was mounted in rather than the one the process is in now.
 * - The peer's view is the wire's: received tags come back from PACKET_AUXDATA into the
 *   bytes, so tests compare exact frames whatever the kernel moved into metadata.
 * - Hazards: linkwatch makes IFF_RUNNING lag the admin state by up to a second, hence
 *   tnet_wait_running after every up; IPv6 would put router solicitations and MLD on a
 *   new link, hence tnet_disable_ipv6 before it goes up.
 */
#include "netns.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/if.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>

#define TNET_RUNNING_WAIT_MS 3000
#define TNET_POLL_STEP_MS    50         /* between rx attempts in tnet_port_rx */

bool tnet_enter(void)
{
    return unshare(CLONE_NEWNET) == 0;
}

void tnet_sh(const char *fmt, ...)
{
    char cmd[448], full[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(cmd, sizeof(cmd), fmt, ap);
    va_end(ap);
    snprintf(full, sizeof(full), "%s >/dev/null 2>&1", cmd);
    int rc = system(full);
    if (rc != 0)
        fail_msg("command failed (%d): %s", rc, cmd);
}

int64_t tnet_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int tnet_open_fds(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    assert_non_null(d);
    while (readdir(d))
        n++;
    closedir(d);
    return n;
}

static int if_ioctl(const char *name, unsigned long req, struct ifreq *ifr)
{
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    memset(ifr, 0, sizeof(*ifr));
    snprintf(ifr->ifr_name, IFNAMSIZ, "%s", name);
    int rc = fd >= 0 ? ioctl(fd, req, ifr) : -1;
    if (fd >= 0)
        close(fd);
    return rc;
}

int tnet_ifindex(const char *name)
{
    struct ifreq ifr;
    return if_ioctl(name, SIOCGIFINDEX, &ifr) == 0 ? ifr.ifr_ifindex : -1;
}

void tnet_disable_ipv6(const char *ifname)
{
    char path[128];
    snprintf(path, sizeof(path), "/proc/sys/net/ipv6/conf/%s/disable_ipv6", ifname);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return;                         /* no IPv6 in this kernel: nothing to silence */
    assert_int_equal(write(fd, "1\n", 2), 2);
    close(fd);
}

void tnet_wait_running(const char *name, bool running)
{
    int64_t deadline = tnet_now_ms() + TNET_RUNNING_WAIT_MS;
    struct ifreq ifr;
    while (tnet_now_ms() < deadline) {
        bool got = if_ioctl(name, SIOCGIFFLAGS, &ifr) == 0;
        if (got && ((ifr.ifr_flags & IFF_RUNNING) != 0) == running)
            return;
        usleep(10000);
    }
    fail_msg("%s did not become %s", name, running ? "running" : "not running");
}

void tnet_veth_add(const char *a, const char *mac_a, const char *b, const char *mac_b)
{
    tnet_sh("ip link add %s address %s type veth peer name %s address %s", a, mac_a, b, mac_b);
    tnet_disable_ipv6(a);
    tnet_disable_ipv6(b);
    tnet_sh("ip link set %s up", a);
    tnet_sh("ip link set %s up", b);
    tnet_wait_running(a, true);
    tnet_wait_running(b, true);
}

void tnet_link_bounce(const char *name)
{
    tnet_sh("ip link set %s down", name);
    tnet_sh("ip link set %s up", name);
    tnet_wait_running(name, true);
}

/* ---- the peer ------------------------------------------------------------------------ */

int tnet_peer_open(const char *ifname, bool vnet)
{
    int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
    int one = 1;
    assert_true(fd >= 0);
    assert_int_equal(setsockopt(fd, SOL_PACKET, PACKET_AUXDATA, &one, sizeof(one)), 0);
    assert_int_equal(setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one)), 0);
    if (vnet)
        assert_int_equal(setsockopt(fd, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof(one)), 0);
    struct sockaddr_ll sll = {
        .sll_family = AF_PACKET,
        .sll_protocol = htons(ETH_P_ALL),
        .sll_ifindex = tnet_ifindex(ifname),
    };
    assert_int_equal(bind(fd, (struct sockaddr *)&sll, sizeof(sll)), 0);
    return fd;
}

void tnet_peer_send(int fd, const uint8_t *frame, uint32_t len, const struct virtio_net_hdr *vh)
{
    struct iovec iov[2] = { { (void *)vh, sizeof(*vh) }, { (void *)frame, len } };
    struct msghdr mh = { .msg_iov = vh ? iov : iov + 1, .msg_iovlen = vh ? 2 : 1 };
    assert_int_equal(sendmsg(fd, &mh, 0), (ssize_t)(len + (vh ? sizeof(*vh) : 0)));
}

int tnet_peer_recv(int fd, uint8_t *buf, uint32_t cap, struct virtio_net_hdr *vh)
{
    struct pollfd pfd = { .fd = fd, .events = POLLIN };
    union {
        struct cmsghdr c;
        uint8_t        b[CMSG_SPACE(sizeof(struct tpacket_auxdata))];
    } ctl;
    struct virtio_net_hdr scratch;
    /* Received 4 bytes in: room to put a tag back in front of the ethertype. */
    struct iovec iov[2] = { { vh ? vh : &scratch, sizeof(scratch) }, { buf + 4, cap - 4 } };
    struct msghdr mh = {
        .msg_iov = vh ? iov : iov + 1, .msg_iovlen = vh ? 2 : 1,
        .msg_control = ctl.b, .msg_controllen = sizeof(ctl.b),
    };
    if (poll(&pfd, 1, TNET_RX_WAIT_MS) != 1)
        return -1;
    ssize_t r = recvmsg(fd, &mh, MSG_DONTWAIT);
    assert_true(r >= (ssize_t)(vh ? sizeof(*vh) : 0) + 14);
    assert_false(mh.msg_flags & MSG_TRUNC);
    int len = (int)r - (vh ? (int)sizeof(*vh) : 0);
    const struct tpacket_auxdata *aux = NULL;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
        if (c->cmsg_level == SOL_PACKET && c->cmsg_type == PACKET_AUXDATA)
            aux = (const void *)CMSG_DATA(c);
    if (aux && (aux->tp_status & TP_STATUS_VLAN_VALID)) {
        memmove(buf, buf + 4, 12);
        zvs_put_be16(buf + 12, aux->tp_vlan_tpid);
        zvs_put_be16(buf + 14, aux->tp_vlan_tci);
        if (vh && (vh->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM))
            vh->csum_start = (uint16_t)(vh->csum_start + 4);
        return len + 4;
    }
    memmove(buf, buf + 4, (size_t)len);
    return len;
}

bool tnet_peer_quiet(int fd)
{
    struct pollfd pfd = { .fd = fd, .events = POLLIN };
    return poll(&pfd, 1, TNET_QUIET_MS) == 0;
}

/* ---- frames ---------------------------------------------------------------------------- */

uint32_t tnet_frame(uint8_t *buf, uint32_t len, uint8_t seed, const uint8_t dst[6],
                    const uint8_t src[6])
{
    assert_true(len >= 14);
    memcpy(buf, dst, 6);
    memcpy(buf + 6, src, 6);
    zvs_put_be16(buf + 12, 0x88B5);
    for (uint32_t i = 14; i < len; i++)
        buf[i] = (uint8_t)(seed + i * 7);
    return len;
}

uint32_t tnet_csum_add(uint32_t sum, const uint8_t *p, uint32_t n)
{
    for (uint32_t i = 0; i + 1 < n; i += 2)
        sum += (uint32_t)(p[i] << 8 | p[i + 1]);
    if (n & 1)
        sum += (uint32_t)(p[n - 1] << 8);
    return sum;
}

uint16_t tnet_csum_fold(uint32_t sum)
{
    while (sum >> 16)
        sum = (sum & 0xFFFF) + (sum >> 16);
    return (uint16_t)sum;
}

/* ---- the port under test ---------------------------------------------------------------- */

int tnet_port_rx(struct zvs_port *p, int (*fd_of)(const struct zvs_port *p),
                 struct zvs_frame *out, int max)
{
    int64_t deadline = tnet_now_ms() + TNET_RX_WAIT_MS;
    int n = 0;
    while (n == 0 && tnet_now_ms() < deadline) {
        struct pollfd pfd = { .fd = fd_of(p), .events = POLLIN };
        (void)poll(&pfd, 1, TNET_POLL_STEP_MS);
        n = p->ops->rx(p, out, max);
    }
    return n;
}

void tnet_burst_of(struct zvs_tx *txs, int n, const struct zvs_frame *f)
{
    for (int i = 0; i < n; i++)
        txs[i] = (struct zvs_tx){ .f = f };
}

void tnet_rx_rounds(struct zvs_port *p, int (*fd_of)(const struct zvs_port *p), int peer,
                    uint32_t pool_bufs, const uint8_t dst[6], const uint8_t src[6])
{
    uint8_t buf[1514];
    struct zvs_frame fr[ZVS_BATCH];
    uint32_t total = 0;

    for (int round = 0; round < 30; round++) {
        for (int k = 0; k < 10; k++) {
            uint32_t len = 60 + (uint32_t)((round * 10 + k) * 4);
            tnet_frame(buf, len, (uint8_t)(round * 10 + k), dst, src);
            tnet_peer_send(peer, buf, len, NULL);
        }
        int got = 0;
        while (got < 10) {
            int n = tnet_port_rx(p, fd_of, fr, ZVS_BATCH);
            assert_true(n > 0);
            for (int i = 0; i < n; i++) {
                int seq = round * 10 + got + i;
                uint32_t len = 60 + (uint32_t)(seq * 4);
                tnet_frame(buf, len, (uint8_t)seq, dst, src);
                assert_int_equal(fr[i].len, len);
                assert_memory_equal(fr[i].data, buf, len);
                assert_int_equal(fr[i].in_port, p->index);
                assert_int_equal(fr[i].nfrags, 0);
                assert_int_equal(fr[i].vnet.flags, 0);
                assert_int_equal(fr[i].vnet.gso_type, ZVS_VNET_GSO_NONE);
                assert_true(fr[i].cookie < pool_bufs);
                total++;
            }
            got += n;
            p->ops->rx_release(p, fr, n);
        }
        assert_int_equal(got, 10);
    }
    assert_int_equal(total, 300);
}

void tnet_rx_hold_all(struct zvs_port *p, int (*fd_of)(const struct zvs_port *p), int peer,
                      struct zvs_frame *held, uint32_t pool_bufs, const uint8_t dst[6],
                      const uint8_t src[6])
{
    uint8_t buf[64];
    struct zvs_frame fr[ZVS_BATCH];
    uint32_t nheld = 0;

    for (uint32_t i = 0; i < pool_bufs + 4; i++) {
        tnet_frame(buf, 64, (uint8_t)i, dst, src);
        tnet_peer_send(peer, buf, 64, NULL);
    }
    while (nheld < pool_bufs) {
        int n = tnet_port_rx(p, fd_of, held + nheld, ZVS_BATCH);
        assert_true(n > 0);
        nheld += (uint32_t)n;
    }
    assert_int_equal(nheld, pool_bufs);
    assert_int_equal(p->ops->rx(p, fr, ZVS_BATCH), 0);
}

void tnet_rx_give_back(struct zvs_port *p, int (*fd_of)(const struct zvs_port *p),
                       struct zvs_frame *held, uint32_t pool_bufs, const uint8_t dst[6],
                       const uint8_t src[6])
{
    uint8_t buf[64];
    struct zvs_frame fr[ZVS_BATCH];

    for (uint32_t i = 0; i < pool_bufs; i++) {
        tnet_frame(buf, 64, (uint8_t)i, dst, src);
        assert_memory_equal(held[i].data, buf, 64);
    }
    p->ops->rx_release(p, held, (int)pool_bufs);
    assert_int_equal(tnet_port_rx(p, fd_of, fr, ZVS_BATCH), 4);
    for (int i = 0; i < 4; i++) {
        tnet_frame(buf, 64, (uint8_t)(pool_bufs + (uint32_t)i), dst, src);
        assert_memory_equal(fr[i].data, buf, 64);
    }
    p->ops->rx_release(p, fr, 4);
}
