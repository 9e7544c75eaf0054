/* The LCS backend (lcs.h): a packet socket on Hercules' tap, made in its namespace. */
#include "backends/lcs.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <sys/socket.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23
#endif

/* A socket on device idx, made and bound where the device is: the one read (`tx`
 * false), or the one the guest's frames are written to, bound with protocol 0 so that it
 * takes nothing in. That one is in no epoll set: the write-space wake-up the kernel makes
 * for every frame sent finds nobody to wake. The read socket ignores what the written one
 * sends through the device (PACKET_IGNORE_OUTGOING). */
static int packet_socket(unsigned idx, bool tx)
{
    int fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC,
                    tx ? 0 : htons(ETH_P_ALL));
    if (fd < 0)
        return -errno;
    int one = 1;
    struct sockaddr_ll sll = { .sll_family = AF_PACKET,
                               .sll_protocol = tx ? 0 : htons(ETH_P_ALL),
                               .sll_ifindex = (int)idx };
    int sz = 4 << 20;
    if (idx == 0 ||
        setsockopt(fd, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof one) < 0 ||
        (!tx && setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof one) < 0) ||
        bind(fd, (struct sockaddr *)&sll, sizeof sll) < 0) {
        int e = idx == 0 ? ENODEV : errno;
        close(fd);
        return -e;
    }
    if (tx)
        return fd;
    /* Room for a burst of the guest's frames while the loop is busy elsewhere (the
     * emulator has a core to itself, the daemon shares the rest). SO_RCVBUF stops at
     * net.core.rmem_max (208 KB by default: a few hundred small frames, each skb's
     * truesize counted); the daemon has CAP_NET_ADMIN, so FORCE goes past it. */
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof sz) < 0)
        (void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof sz);
    return fd;
}

int zvs_lcs_open(int netns_fd, const char *ifname, struct zvs_guest_tap **out)
{
    int home = -1, fd, txfd = -1;

    *out = NULL;
    if (netns_fd >= 0) {
        home = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
        if (home < 0)
            return -errno;
        if (setns(netns_fd, CLONE_NEWNET) < 0) {
            int e = errno;
            close(home);
            return -e;
        }
    }
    unsigned idx = if_nametoindex(ifname);
    fd = packet_socket(idx, false);
    if (fd >= 0) {
        txfd = packet_socket(idx, true);
        if (txfd < 0) {
            close(fd);
            fd = txfd;
        }
    }
    if (home >= 0) {
        /* Back home before anything else: the daemon's every other socket lives there. */
        int back = setns(home, CLONE_NEWNET);
        close(home);
        if (back < 0) {
            if (fd >= 0) {
                close(fd);
                close(txfd);
            }
            return -EIO;
        }
    }
    if (fd < 0)
        return fd;
    int rc = zvs_guest_tap_adopt(fd, txfd, ifname, out);
    if (rc < 0) {
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
