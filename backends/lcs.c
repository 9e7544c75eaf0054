/* The LCS backend (lcs.h): a packet socket on Hercules' tap, made in its namespace. */
#include "backends/lcs.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <sys/socket.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>

#include "backends/packet_ring.h"
#include "backends/tap_orphans.h"

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23
#endif

/* The read socket's receive ring (packet_ring.h). A slot holds the largest frame an LCS
 * sends, 1514 bytes (the Linux lcs driver's MTU is 1500, the frame program's largest
 * frame 1514; an 802.1Q tag the kernel takes out into the slot's header, and the driver
 * puts it back: guest_tap.c), behind the 76 bytes the kernel puts first
 * (tpacket2_hdr and sockaddr_ll aligned, 16 bytes of MAC room, the virtio-net header):
 * 1972 bytes fit. A larger frame (a jumbo frame on a tap some other program writes) comes
 * whole through the socket's receive buffer instead (PACKET_COPY_THRESH), while that has
 * room; lcs.h says what happens when it has none. */
#define LCS_RING_FRAME 2048u

/* A socket on device idx, made and bound where the device is: the one read (`ring`, its
 * receive ring), or the one the guest's frames are written to (`ring` NULL), bound with
 * protocol 0 so that it takes nothing in. That one is in no epoll set: the write-space
 * wake-up the kernel makes for every frame sent finds nobody to wake. The read socket
 * ignores what the written one sends through the device (PACKET_IGNORE_OUTGOING). Both
 * are made with protocol 0, so nothing reaches the read one before its ring exists and
 * it is bound to the device. */
int zvs_lcs_packet_socket(unsigned idx, struct zvs_packet_ring *ring, uint32_t ring_frames)
{
    bool tx = ring == NULL;
    int fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    int one = 1, rc = 0;
    struct sockaddr_ll sll = { .sll_family = AF_PACKET,
                               .sll_protocol = tx ? 0 : htons(ETH_P_ALL),
                               .sll_ifindex = (int)idx };
    int sz = 4 << 20;
    if (idx == 0)
        rc = -ENODEV;
    else if (setsockopt(fd, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof one) < 0)
        rc = -errno;
    if (rc == 0 && !tx) {
        /* Frames past a ring slot come whole through the receive buffer while it has
         * room (4 MB: SO_RCVBUF stops at net.core.rmem_max, 208 KB by default, and the
         * daemon has CAP_NET_ADMIN, so FORCE goes past it). */
        if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof sz) < 0)
            (void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof sz);
        if (setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof one) < 0 ||
            setsockopt(fd, SOL_PACKET, PACKET_COPY_THRESH, &one, sizeof one) < 0)
            rc = -errno;
        else
            rc = zvs_packet_ring_open(ring, fd, LCS_RING_FRAME, ring_frames);
    }
    if (rc == 0 && bind(fd, (struct sockaddr *)&sll, sizeof sll) < 0)
        rc = -errno;
    if (rc < 0) {
        if (ring)
            zvs_packet_ring_close(ring);
        close(fd);
        return rc;
    }
    return fd;
}

int zvs_lcs_open(int netns_fd, const char *ifname, struct zvs_guest_tap **out)
{
    return zvs_lcs_open_ring(netns_fd, ifname, ZVS_LCS_RING_FRAMES, out);
}

/* The driver's two sockets, made in the tap's namespace (zvs_netns_run). */
struct lcs_socks {
    const char            *ifname;
    uint32_t               ring_frames;
    struct zvs_packet_ring ring;
    int                    fd, txfd;
};

static int lcs_sockets_here(void *arg)
{
    struct lcs_socks *k = arg;
    unsigned idx = if_nametoindex(k->ifname);
    k->fd = zvs_lcs_packet_socket(idx, &k->ring, k->ring_frames);
    if (k->fd < 0)
        return k->fd;
    k->txfd = zvs_lcs_packet_socket(idx, NULL, 0);
    if (k->txfd < 0) {
        zvs_packet_ring_close(&k->ring);
        close(k->fd);
        return k->txfd;
    }
    return 0;
}

int zvs_lcs_open_ring(int netns_fd, const char *ifname, uint32_t ring_frames,
                      struct zvs_guest_tap **out)
{
    struct lcs_socks k = { .ifname = ifname, .ring_frames = ring_frames, .fd = -1, .txfd = -1 };

    *out = NULL;
    int rc = zvs_netns_run(netns_fd, lcs_sockets_here, &k);
    if (rc < 0)
        return rc;
    struct zvs_packet_ring ring = k.ring;
    int fd = k.fd, txfd = k.txfd;
    rc = zvs_guest_tap_adopt(fd, txfd, &ring, ifname, out);
    if (rc < 0) {
        zvs_packet_ring_close(&ring);
        close(fd);
        close(txfd);
    }
    return rc;
}

uint64_t zvs_lcs_take_kernel_drops(const struct zvs_guest_tap *t)
{
    struct tpacket_stats st;
    socklen_t len = sizeof st;
    if (!t || getsockopt(zvs_guest_tap_fd(t), SOL_PACKET, PACKET_STATISTICS, &st, &len) < 0)
        return 0;
    return st.tp_drops;
}

uint64_t zvs_lcs_fold_kernel_drops(const struct zvs_guest_tap *t, struct zvs_port *nic)
{
    uint64_t n = zvs_lcs_take_kernel_drops(t);
    if (n && nic)
        zvs_port_count_drop(nic, true, ZVS_DROP_GUEST_OVERRUN, n);
    return n;
}
