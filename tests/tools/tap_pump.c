/* tap_pump: the least a user-space switch on a tap and a packet socket can do, measured
 * beside vswitchd by tests/bench/bench_veth.sh and bench_hercules.sh (issue 23): a floor.
 *
 *   tap_pump TAP IFNAME            the guest's NIC a tap the pump makes (bench_veth.sh)
 *   tap_pump --ring GUESTIF IFNAME the guest's NIC an interface that exists, read through a
 *                                  TPACKET_V2 receive ring (bench_hercules.sh: Hercules'
 *                                  LCS tap, as vswitchd adopts it)
 *
 * Root. TAP is made as backends/guest_tap.c makes a guest's (IFF_TAP | IFF_NO_PI |
 * IFF_VNET_HDR, a 10-byte virtio-net header, offloads CSUM|TSO4|TSO6|TSO_ECN; the caller
 * copies vswitchd's gso_max_size and gso_max_segs onto it with ip link), but in the
 * machine's byte order, which is the packet socket's: the pump hands the header on as
 * read. GUESTIF's two sockets are the LCS driver's own (zvs_lcs_packet_socket: the read
 * one with the same TPACKET_V2 ring, ZVS_LCS_RING_FRAMES slots), IFNAME's two the uplink
 * driver's own (zvs_uplink_afpacket_socket: the read one in the epoll set, the written
 * one in none), so the pump's sockets are vswitchd's, option for option. The read
 * uplink socket's frames come with their address and auxiliary data, as the uplink takes
 * them to restore a VLAN tag. Then it forwards, and does nothing else: no MAC table, no
 * counters per port, no checks of a frame.
 *
 * Not a proof of a bound: one design of the least work, with this design's limits (one
 * thread, a wake-up per arrival, one readv a frame on a tap). A switch that batched
 * better could beat it; its figures say what is left for the switch once the kernel's
 * side of the same interfaces is paid.
 *   guest -> IFNAME  a tap: up to 32 readv([virtio_net_hdr][frame]) until EAGAIN, one
 *                    sendmmsg of them; a ring: up to 32 slots a wake-up, one sendmmsg
 *                    straight from the slots (no copy in user space, which vswitchd makes
 *                    into its QDIO buffers), then the slots back. A send the socket refuses
 *                    (EAGAIN, ENOBUFS) waits for room up to 1 ms, up to 4 times (the
 *                    uplink's ZVS_AFP_TX_RETRIES), then the rest is dropped and counted
 *   IFNAME -> guest  one recvmmsg of up to 32, then a write of each to the tap, or one
 *                    sendmmsg on GUESTIF
 * A super-frame crosses whole either way: the header read is the one the packet socket
 * takes, and the reverse. Everything vswitchd does beyond this is the switch's own cost,
 * and the distance between the pump and the Linux bridge is the cost of forwarding in
 * user space at all.
 *
 * It prints "ready" once both ends are open, then runs until SIGTERM or SIGINT and prints
 * "tap_pump: out F frames B bytes (D dropped), in F frames B bytes (D dropped)" on exit
 * (out: guest -> IFNAME). Exit 0, or 1 with a message when an end cannot be opened.
 * The tap is not persistent: it goes when the pump does.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_packet.h>
#include <linux/if_tun.h>
#include <linux/virtio_net.h>
#include <arpa/inet.h>
#include <net/ethernet.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "backends/ifinfo.h"
#include "backends/lcs.h"
#include "backends/packet_ring.h"
#include "backends/uplink_afpacket.h"


enum { BURST = 32, BUF = 65536 + 256, TX_WAITS = ZVS_AFP_TX_RETRIES };
#define VH_LEN sizeof(struct virtio_net_hdr)

struct dir {
    uint64_t frames, bytes, dropped;
};

static volatile sig_atomic_t stop;
static void on_signal(int sig) { (void)sig; stop = 1; }

static void die(const char *what)
{
    fprintf(stderr, "tap_pump: %s: %s\n", what, strerror(errno));
    exit(1);
}

static int tap_open(const char *name)
{
    int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        die("/dev/net/tun");
    struct ifreq ifr = { .ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR };
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", name);
    int sz = (int)sizeof(struct virtio_net_hdr);
    if (ioctl(fd, TUNSETIFF, &ifr) < 0)
        die("TUNSETIFF");
    if (ioctl(fd, TUNSETVNETHDRSZ, &sz) < 0)
        die("the tap's virtio-net header");
    if (ioctl(fd, TUNSETOFFLOAD, TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN) < 0)
        die("TUNSETOFFLOAD");
    return fd;
}

/* IFNAME's socket as the uplink driver opens it (tx: the written one). */
static int uplink_open(const char *ifname, bool tx)
{
    struct zvs_ifinfo fi;
    int fd = zvs_uplink_afpacket_socket(ifname, &fi, tx);
    if (fd < 0) {
        errno = -fd;
        die(ifname);
    }
    return fd;
}

/* GUESTIF's socket as the LCS driver opens it: the read one with its ring (ring not
 * NULL), or the written one. */
static int lcs_open(const char *ifname, struct zvs_packet_ring *ring)
{
    struct ifreq ifr = { 0 };
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", ifname);
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (s < 0 || ioctl(s, SIOCGIFINDEX, &ifr) < 0)
        die(ifname);
    close(s);
    unsigned idx = (unsigned)ifr.ifr_ifindex;
    int fd = zvs_lcs_packet_socket(idx, ring, ring ? ZVS_LCS_RING_FRAMES : 0);
    if (fd < 0) {
        errno = -fd;
        die(ifname);
    }
    return fd;
}

/* The buffers and the vectors that point at them, made once: the loop allocates nothing.
 * [0] toward the uplink, [1] from it (with each frame's address and auxiliary data). */
static uint8_t *buf[2][BURST];
static struct iovec iov[2][BURST];
static struct mmsghdr msg[2][BURST];
static struct sockaddr_ll rx_addr[BURST];
static uint8_t rx_cmsg[BURST][CMSG_SPACE(sizeof(struct tpacket_auxdata))];

/* Sends m[0..n); a refused send waits for room (poll for POLLOUT, 1 ms) TX_WAITS
 * times, then the frames left are counted as dropped. */
static void send_burst(int txfd, struct mmsghdr *m, int n, struct dir *d)
{
    int i = 0, waits = 0;
    while (i < n) {
        int r = sendmmsg(txfd, &m[i], (unsigned)(n - i), MSG_DONTWAIT);
        if (r > 0) {
            for (int k = i; k < i + r; k++) {
                d->frames++;
                d->bytes += m[k].msg_hdr.msg_iov[0].iov_len - VH_LEN;
            }
            i += r;
            continue;
        }
        if (r < 0 && (errno == EAGAIN || errno == ENOBUFS) && waits++ < TX_WAITS) {
            struct pollfd p = { .fd = txfd, .events = POLLOUT };
            (void)poll(&p, 1, 1);
            continue;
        }
        if (r < 0 && errno != EAGAIN && errno != ENOBUFS) {
            d->dropped++;                 /* this frame refused for itself: skip it */
            i++;
            continue;
        }
        d->dropped += (uint64_t)(n - i);
        return;
    }
}

/* tap -> IFNAME: readv until EAGAIN or a full burst, then one sendmmsg. */
static void pump_out(int tapfd, int txfd, struct dir *d)
{
    int n = 0;
    while (n < BURST) {
        iov[0][n].iov_len = BUF;
        ssize_t r = readv(tapfd, &iov[0][n], 1);
        if (r <= 0)
            break;
        iov[0][n].iov_len = (size_t)r;
        n++;
    }
    if (n)
        send_burst(txfd, msg[0], n, d);
}

/* GUESTIF -> IFNAME through the ring: up to BURST slots sent straight from the ring,
 * then handed back; one burst a wake-up, as vswitchd's LCS driver reads (the epoll set is
 * level-triggered: what is left wakes it again, after the other direction had its turn).
 * A frame past a slot (TP_STATUS_COPY: it waits on the socket instead) or cut short is
 * dropped and counted: the pump is measured on frames that fit a slot, as an LCS's do. */
static void pump_ring_out(struct zvs_packet_ring *ring, int rxfd, int txfd, struct dir *d)
{
    struct tpacket2_hdr *h;
    int n = 0;
    uint32_t head0 = ring->head;
    while (n < BURST && (h = zvs_packet_ring_peek(ring)) != NULL) {
        if ((h->tp_status & TP_STATUS_COPY) || h->tp_snaplen < h->tp_len ||
            h->tp_mac < TPACKET2_HDRLEN + VH_LEN) {
            if (h->tp_status & TP_STATUS_COPY)
                (void)recv(rxfd, buf[0][0], BUF, MSG_DONTWAIT);  /* its copy goes too */
            d->dropped++;
        } else {
            iov[0][n] = (struct iovec){ .iov_base = (uint8_t *)h + h->tp_mac - VH_LEN,
                                        .iov_len = VH_LEN + h->tp_snaplen };
            n++;
        }
        /* step on without handing the slot back: it is read by sendmmsg below */
        ring->head = ring->head + 1 == ring->frames ? 0 : ring->head + 1;
    }
    if (ring->head == head0)
        return;
    if (n)
        send_burst(txfd, msg[0], n, d);
    /* the slots stepped over, back to the kernel in order */
    for (uint32_t i = head0; i != ring->head; i = i + 1 == ring->frames ? 0 : i + 1) {
        h = (struct tpacket2_hdr *)(void *)(ring->base + (size_t)i * ring->frame_size);
        __atomic_store_n(&h->tp_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
    }
}

/* IFNAME -> guest: one recvmmsg, then a write of each frame to the tap (tapfd >= 0) or
 * one sendmmsg on GUESTIF's written socket. */
static void pump_in(int rxfd, int tapfd, int guest_txfd, struct dir *d)
{
    for (int i = 0; i < BURST; i++)
        iov[1][i].iov_len = BUF;
    for (int i = 0; i < BURST; i++) {
        msg[1][i].msg_hdr.msg_name = &rx_addr[i];
        msg[1][i].msg_hdr.msg_namelen = sizeof rx_addr[i];
        msg[1][i].msg_hdr.msg_control = rx_cmsg[i];
        msg[1][i].msg_hdr.msg_controllen = sizeof rx_cmsg[i];
    }
    int n = recvmmsg(rxfd, msg[1], BURST, MSG_DONTWAIT, NULL);
    if (n > 0 && tapfd < 0) {
        for (int i = 0; i < n; i++) {
            iov[1][i].iov_len = msg[1][i].msg_len;
            /* sent on GUESTIF's bound socket: not to the address it was read from */
            msg[1][i].msg_hdr.msg_name = NULL;
            msg[1][i].msg_hdr.msg_namelen = 0;
            msg[1][i].msg_hdr.msg_control = NULL;
            msg[1][i].msg_hdr.msg_controllen = 0;
        }
        send_burst(guest_txfd, msg[1], n, d);
        return;
    }
    for (int i = 0; i < n; i++) {
        ssize_t r = write(tapfd, buf[1][i], msg[1][i].msg_len);
        if (r < 0) {
            d->dropped++;
            continue;
        }
        d->frames++;
        d->bytes += msg[1][i].msg_len - VH_LEN;
    }
}

int main(int argc, char **argv)
{
    bool ringed = argc == 4 && strcmp(argv[1], "--ring") == 0;
    if (argc != 3 && !ringed) {
        fprintf(stderr, "usage: tap_pump TAP IFNAME | tap_pump --ring GUESTIF IFNAME\n");
        return 2;
    }
    static struct zvs_packet_ring ring;
    int tapfd = -1, guest_rx = -1, guest_tx = -1;
    if (ringed) {
        guest_rx = lcs_open(argv[2], &ring);
        guest_tx = lcs_open(argv[2], NULL);
    } else {
        tapfd = tap_open(argv[1]);
    }
    const char *up = argv[argc - 1];
    int rxfd = uplink_open(up, false);
    int txfd = uplink_open(up, true);
    int guest_fd = ringed ? guest_rx : tapfd;

    for (int d = 0; d < 2; d++)
        for (int i = 0; i < BURST; i++) {
            if (!(buf[d][i] = malloc(BUF)))
                die("malloc");
            iov[d][i] = (struct iovec){ .iov_base = buf[d][i], .iov_len = BUF };
            msg[d][i] = (struct mmsghdr){ .msg_hdr = { .msg_iov = &iov[d][i], .msg_iovlen = 1 } };
        }

    int ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev = { .events = EPOLLIN, .data.fd = guest_fd };
    if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, guest_fd, &ev) < 0)
        die("epoll");
    ev.data.fd = rxfd;
    if (epoll_ctl(ep, EPOLL_CTL_ADD, rxfd, &ev) < 0)
        die("epoll");

    struct sigaction sa = { .sa_handler = on_signal };
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    printf("ready\n");
    fflush(stdout);

    struct dir out = { 0 }, in = { 0 };
    while (!stop) {
        struct epoll_event evs[2];
        int n = epoll_wait(ep, evs, 2, -1);
        for (int i = 0; i < n; i++) {
            if (evs[i].events & EPOLLERR) {
                /* an error the kernel left on a socket (ENETDOWN at a link-down) keeps
                 * it ready until taken, as lcs.c's driver takes it */
                int err = 0;
                socklen_t len = sizeof err;
                (void)getsockopt(evs[i].data.fd, SOL_SOCKET, SO_ERROR, &err, &len);
            }
            if (evs[i].data.fd == rxfd)
                pump_in(rxfd, tapfd, guest_tx, &in);
            else if (ringed)
                pump_ring_out(&ring, guest_rx, txfd, &out);
            else
                pump_out(tapfd, txfd, &out);
        }
    }
    printf("tap_pump: out %llu frames %llu bytes (%llu dropped), in %llu frames %llu bytes "
           "(%llu dropped)\n",
           (unsigned long long)out.frames, (unsigned long long)out.bytes,
           (unsigned long long)out.dropped, (unsigned long long)in.frames,
           (unsigned long long)in.bytes, (unsigned long long)in.dropped);
    for (int d = 0; d < 2; d++)
        for (int i = 0; i < BURST; i++)
            free(buf[d][i]);
    zvs_packet_ring_close(&ring);
    close(ep);
    close(txfd);
    close(rxfd);
    if (tapfd >= 0)
        close(tapfd);
    if (guest_rx >= 0)
        close(guest_rx);
    if (guest_tx >= 0)
        close(guest_tx);
    return 0;
}
