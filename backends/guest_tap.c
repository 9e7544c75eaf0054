/* guest_tap: a tap device driven as a guest's QDIO NIC (see guest_tap.h).
 *
 * Design note.
 * - Owns: the tap fd (/dev/net/tun, IFF_TAP | IFF_NO_PI | IFF_VNET_HDR, non-blocking,
 *   persistent until close), an epoll fd that is the driver's interrupt fd, the program side of the
 *   bound NIC's queues (qdio_guest, attached in-process) while bound, one overflow buffer
 *   of max_frame + 1 bytes, and the driver's counters. The NIC port itself belongs to the
 *   switch (or the daemon); unbind or close this driver before the port is destroyed.
 * - Binding: the tap (the guest's interface) lives from open to close; the NIC's queues
 *   are driven only between bind and unbind, as a z/VM guest's NIC device outlives its
 *   COUPLE. The tap's carrier follows the binding (TUNSETCARRIER: on while bound, off
 *   while unbound; a kernel that refuses it is ignored, the tap then keeps the carrier the
 *   kernel gave it). Unbinding first writes what the switch already delivered into the
 *   input queue to the tap, then puts the NIC's queues back to not-initialised
 *   (zvs_qdio_reset), so the NIC can be bound again, by this driver or another. While
 *   unbound, frames the guest sends are read and dropped (tap_rx_unbound); with the
 *   carrier off the guest's kernel drops most of them itself, so those are mainly frames
 *   that waited in the tap's queue when the binding ended.
 * - Interrupt fd: the daemon registers zvs_guest_tap_irq_fd() once. It is an epoll fd
 *   holding the bound NIC's thin-interrupt eventfd (level triggered), so it is readable
 *   exactly when that eventfd is, and it stays the same fd across unbind and bind. An
 *   epoll fd is pollable in another epoll set or with poll(2); pump_in reads the eventfd,
 *   which makes both unreadable again.
 * - Tap set-up: virtio-net header of 10 bytes (struct virtio_net_hdr), not the 12-byte
 *   mrg_rxbuf form: num_buffers only matters to a virtio device with mergeable receive
 *   buffers, and a tap never has them; 10 is also what PACKET_VNET_HDR uses, so the
 *   uplink and this driver speak the same header. The header is set little-endian
 *   (TUNSETVNETLE) and converted with le16toh, so the code is right on s390x too; an
 *   adopted packet socket's header is in the host's order (vnet_le).
 *   Offloads TUN_F_CSUM | TSO4 | TSO6 | TSO_ECN: the namespace's kernel hands us TCP
 *   super-frames with partial checksums, and takes them from us (IFF_VNET_HDR).
 * - A super-frame must fit one NIC output buffer (zvs_qdio_guest_max_frame: 65504 bytes,
 *   16 entries of 4 KB less the 32-byte header, at every QUEUESTORAGE). The tap's
 *   gso_max_size is set to that minus an Ethernet header and a VLAN tag, 65486: the
 *   kernel compares skb->len with gso_max_size before the tap puts a hardware-accelerated
 *   tag back into the bytes, and TCP sizes its super-frames well below the limit anyway
 *   (MAX_TCP_HEADER of headroom). The kernel takes gso_max_size up to the device's
 *   tso_max_size and gso_max_segs up to its tso_max_segs; a tap reports 65536
 *   (TSO_LEGACY_MAX_SIZE) and 65535 (GSO_MAX_SEGS): 65537 is refused ("too big
 *   gso_max_size"), measured on 6.18. gso_max_segs is ZVS_GUEST_TAP_GSO_SEGS, 128: a
 *   65486-byte super-frame at MSS 536 has 123 segments (the former 64 would cut such
 *   frames to 64 x 536 bytes). Both go in a small RTM_NEWLINK request whose ACK is
 *   checked.
 *   If the kernel refuses, TSO is not offered (TUN_F_CSUM only): the namespace then
 *   segments in software and frames stay within the MTU. A frame still larger than a
 *   buffer (someone raised gso_max_size later) is dropped, counted in tap_rx_oversize and
 *   logged once.
 * - Guest -> switch (pump_out): readv straight into the open output buffer, iov =
 *   [virtio_net_hdr][free entries of the buffer, the first after the 32-byte header room]
 *   [overflow]. A frame that fits is committed where it landed (zero copy); the header
 *   and entry flags are written by zvs_qdio_guest_tx_commit. A frame bigger than the
 *   open buffer's rest (only possible after smaller frames were packed into it) lands
 *   partly in the overflow: the buffer is primed as it is and the frame is copied once
 *   into a fresh buffer. To make that rare, the reader expects a run of frames larger
 *   than a page to go on: before each read, an open buffer that holds frames and has
 *   less room than the run's largest frame is primed (zvs_qdio_guest_tx_expect). A TCP
 *   sender's super-frames with single segments between them (1514 bytes, then 65226,
 *   measured) then land whole, and jumbo frames pack as many as fit; two frames of a
 *   page or less in a row end the run, so small frames pack as before.
 *   One tx_flush per burst primes the last buffer.
 * - Switch -> guest (pump_in): zvs_qdio_guest_receive hands each frame as the entries'
 *   iovecs; one writev per frame with a virtio-net header made from the frame header's
 *   metadata. Then the thin interrupt is re-armed; work that slipped in before the arm is
 *   processed at once. A tap that is down or gone (EIO, ENETDOWN, EBADFD, ...) or full
 *   (EAGAIN, ENOBUFS) drops the frame and counts it: never a wait, never a retry; when the
 *   tap is up again the next frame simply goes through.
 * - An adopted packet socket (the LCS kind's) is read through its receive ring
 *   (TPACKET_V2, packet_ring.h) and written in batches. Guest -> switch: the ring's slots
 *   the kernel handed over are taken in order, each frame copied with memcpy from the
 *   slot into the next free page of the open output buffer (its virtio-net header sits
 *   right before the frame in the slot) and the slot handed back; no system call. The
 *   kernel copied the frame into the slot, so a frame is copied twice, where recvmmsg
 *   put it straight into the page once; what that costs against the system call and the
 *   skb it saves is measured in tests/bench/README.md. A frame past a slot comes whole
 *   through the socket (TP_STATUS_COPY, one readv into the scratch buffer once the room
 *   it needs is made); one the kernel could not keep whole is dropped and counted
 *   (tap_rx_truncated). A frame no output buffer takes stays in its slot (or on the
 *   socket) for the next pump: nothing read is lost for want of a buffer. A packet socket
 *   takes a frame's 802.1Q tag out into the slot's header (TP_STATUS_VLAN_VALID); the
 *   driver puts it back, so the switch's VLAN rules see the frame as the guest sent it. Toward the guest, the frames of the input buffers are gathered (iovecs into
 *   the buffers' pages) and sent with one sendmmsg per ZVS_BATCH frames and at the end of
 *   each receive, on a second socket when the adopter gave one: a socket nobody polls,
 *   so the write-space wake-up the kernel makes for every sent frame finds no epoll set
 *   to lock (the LCS kind's; tests/bench/README.md). A tap's fd cannot do either (it is
 *   not a socket): one readv or writev a frame there.
 * - Nothing is allocated per frame; iovecs and virtio-net headers live on the stack, or
 *   for an adopted socket in its batch state, made with the driver.
 * - Restart: the tap is persistent (TUNSETPERSIST) and carries an alias naming the
 *   daemon's namespace (tap_orphans.h), so a crash leaves the guest's interface, its
 *   addresses and TCP connections in place; close drops the persistence first, so a clean
 *   stop or a DETACH deletes it. Adoption re-opens it by name inside the namespace it is in
 *   now (setns for the open only), keeps its MTU and MAC, and sets the offloads again.
 * - Hazards: the tap may be moved into another namespace, go down and up, or be deleted
 *   with its namespace; the fd survives all of that (EBADFD after deletion). Ioctls by
 *   name (the MTU at open) only work while the tap is still in the daemon's namespace;
 *   the MAC goes through the fd. A later MTU change (zvs_guest_tap_fit_mtu: a VXLAN
 *   segment's smaller MTU at COUPLE) asks the fd for the tap's name and namespace now
 *   (TUNGETIFF, TUNGETDEVNETNS) and is made there, only while the MTU is still the one
 *   the driver gave it (made_mtu): a guest's own choice, or an adopted tap's, stays.
 */
#include "backends/guest_tap.h"

#include <assert.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <linux/if_arp.h>
#include <linux/if_tun.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/virtio_net.h>

#include "dataplane/log.h"
#include "qdio/nic_qdio.h"
#include "qdio/qdio.h"
#include "qdio/qdio_guest.h"
#include "backends/packet_ring.h"
#include "backends/tap_orphans.h"
#include "backends/virtio_hdr.h"

#define VH_LEN ((uint32_t)sizeof(struct virtio_net_hdr))
_Static_assert(sizeof(struct virtio_net_hdr) == 10, "virtio_net_hdr layout");

#ifndef TUNSETCARRIER
#define TUNSETCARRIER _IOW('T', 226, int) /* Linux 4.20; older headers lack it */
#endif

#ifndef TUNGETDEVNETNS
#define TUNGETDEVNETNS _IO('T', 227)   /* Linux 5.2; older headers lack it */
#endif

/* Small frames in a row that end a run of larger ones for tx_expect's guess: more than
 * the one a TCP sender puts between two super-frames. */
#define GUEST_TAP_RUN_END 2

#define TAP_MTU_MAX (ZVS_QDIO_FRAME_MAX - ZVS_ETH_HLEN - ZVS_VLAN_HLEN) /* largest NIC MTU */

_Static_assert((ZVS_QDIO_FRAME_MAX - ZVS_ETH_HLEN - ZVS_VLAN_HLEN + 535) / 536 <=
               ZVS_GUEST_TAP_GSO_SEGS, "a full super-frame at MSS 536 within gso_max_segs");

/* An adopted packet socket is written with sendmmsg: one system call for up to
 * ZVS_BATCH frames toward the guest, where a tap's fd takes one writev a frame. */
#define SOCK_TX_BATCH ZVS_BATCH

struct sock_batch {
    /* Switch -> guest: frames gathered from the input buffers until a sendmmsg. */
    struct mmsghdr        tmsg[SOCK_TX_BATCH];
    struct iovec          tiov[SOCK_TX_BATCH][ZVS_QDIO_NSBALE + 1];
    struct virtio_net_hdr tvh[SOCK_TX_BATCH];
    uint32_t              tlen[SOCK_TX_BATCH];
    unsigned              tn;
};

struct zvs_guest_tap {
    int                        fd;      /* the tap */
    int                        txfd;    /* adopted: the socket written, -1: fd (below) */
    int                        epfd;    /* the interrupt fd: epoll set of the NIC's irq fd */
    int                        ifindex;
    char                       name[IFNAMSIZ];
    struct zvs_port           *nic;     /* bound NIC, NULL: unbound; not ours to destroy */
    struct zvs_qdio           *q;       /* its adapter side (irq fd, AC1), NULL: unbound */
    struct zvs_qdio_guest     *g;       /* the program side we drive, NULL: unbound */
    uint32_t                   max_frame;
    uint8_t                   *ovf;     /* max_frame + 1 bytes: frames past the open buffer */
    bool                       oversize_logged;
    uint32_t                   out_run_max;    /* the largest frame of the current run
                                                  of frames past a page (0: none) */
    uint32_t                   out_run_small;  /* frames of a page or less since */
    bool                       persist; /* TUNSETPERSIST on: dropped at close */
    bool                       adopted; /* fd is a packet socket on someone's device */
    uint32_t                   made_mtu;/* the MTU open gave the tap (0: reopened) */
    struct sock_batch         *sb;      /* adopted: the batched sends' state */
    struct zvs_packet_ring     ring;    /* adopted: fd's receive ring */
    struct zvs_guest_tap_stats st;
};

/* The virtio-net header's byte order on t's descriptor: little endian on a tap (the
 * driver sets TUNSETVNETLE), the host's on an adopted packet socket (the kernel offers no
 * choice there: virtio_hdr.h), which on s390x is big endian. */
static inline bool vnet_le(const struct zvs_guest_tap *t)
{
    return !t->adopted;
}

/* The batch state of an adopted socket, its messages pointing at their own iovecs. */
static struct sock_batch *sock_batch_new(void)
{
    struct sock_batch *s = calloc(1, sizeof *s);

    if (!s)
        return NULL;
    for (unsigned k = 0; k < SOCK_TX_BATCH; k++)
        s->tmsg[k].msg_hdr.msg_iov = s->tiov[k];
    return s;
}

/* ---- Set-up -------------------------------------------------------------------------- */

/* One RTM_NEWLINK setting one attribute of ifindex (len bytes, at most 64); the kernel's
 * ACK decides. */
static int rtnl_set(int ifindex, uint16_t attr, const void *val, size_t len)
{
    struct {
        struct nlmsghdr  nh;
        struct ifinfomsg ifi;
        struct rtattr    rta;
        uint8_t          val[64];
    } req;
    union {
        struct nlmsghdr nh;
        uint8_t         raw[1024];
    } ans;
    struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
    struct timeval tmo = { .tv_sec = 1 };
    int fd, rc;

    if (len > sizeof(req.val))
        return -EINVAL;
    memset(&req, 0, sizeof(req));
    req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg)) + RTA_LENGTH(len);
    req.nh.nlmsg_type = RTM_NEWLINK;
    req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
    req.nh.nlmsg_seq = 1;
    req.ifi.ifi_family = AF_UNSPEC;
    req.ifi.ifi_index = ifindex;
    req.rta.rta_type = attr;
    req.rta.rta_len = RTA_LENGTH(len);
    memcpy(req.val, val, len);

    fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (fd < 0)
        return -errno;
    if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tmo, sizeof(tmo)) < 0 ||
        sendto(fd, &req, req.nh.nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0) {
        rc = -errno;
        goto out;
    }
    for (;;) {
        ssize_t n = recv(fd, &ans, sizeof(ans), 0);
        if (n < 0) {
            rc = errno == EAGAIN ? -ETIMEDOUT : -errno;
            goto out;
        }
        if ((size_t)n < NLMSG_LENGTH(sizeof(struct nlmsgerr)) || ans.nh.nlmsg_len > (size_t)n) {
            rc = -EPROTO;
            goto out;
        }
        if (ans.nh.nlmsg_seq != req.nh.nlmsg_seq || ans.nh.nlmsg_type != NLMSG_ERROR)
            continue;                   /* not our answer */
        const struct nlmsgerr *e = NLMSG_DATA(&ans.nh);
        rc = e->error;                  /* 0: ACK, else -errno */
        goto out;
    }
out:
    close(fd);
    return rc;
}

/* An ioctl on interface `name` through any socket of this namespace. */
static int if_ioctl(unsigned long req, struct ifreq *ifr)
{
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    int rc = 0;

    if (fd < 0)
        return -errno;
    if (ioctl(fd, req, ifr) < 0)
        rc = -errno;
    close(fd);
    return rc;
}

/* Open tap ifname on t->fd. Make it (adopt false): a new tap, never one that exists
 * (IFF_TUN_EXCL: -EEXIST), persistent and tagged as ours, so that a crash leaves it for the
 * next vswitchd. Adopt it (adopt true): the persistent tap of that name in this namespace,
 * which must exist (-ENOENT: none, or one that was not persistent, i.e. not left by us). */
static int tap_create(struct zvs_guest_tap *t, const char *ifname, bool adopt)
{
    struct ifreq ifr;
    int sz = (int)VH_LEN;
    int le = 1;

    if (adopt && if_nametoindex(ifname) == 0)
        return -ENOENT;                 /* TUNSETIFF would make one */
    t->fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (t->fd < 0)
        return -errno;
    memset(&ifr, 0, sizeof(ifr));
    ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR | (adopt ? 0 : IFF_TUN_EXCL);
    snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
    if (ioctl(t->fd, TUNSETIFF, &ifr) < 0)
        return errno == EBUSY && !adopt ? -EEXIST : -errno;
    memcpy(t->name, ifr.ifr_name, sizeof(t->name));
    t->name[sizeof(t->name) - 1] = '\0';
    if (adopt) {
        /* Deleted between the look-up and TUNSETIFF: we just made a fresh one. */
        if (ioctl(t->fd, TUNGETIFF, &ifr) < 0 || !(ifr.ifr_flags & IFF_PERSIST))
            return -ENOENT;
    } else if (ioctl(t->fd, TUNSETPERSIST, 1) < 0) {
        return -errno;
    }
    t->persist = true;
    if (ioctl(t->fd, TUNSETVNETHDRSZ, &sz) < 0 || ioctl(t->fd, TUNSETVNETLE, &le) < 0)
        return -errno;
    memset(&ifr, 0, sizeof(ifr));
    memcpy(ifr.ifr_name, t->name, sizeof(ifr.ifr_name));
    int rc = if_ioctl(SIOCGIFINDEX, &ifr);
    if (rc < 0)
        return rc;
    t->ifindex = ifr.ifr_ifindex;
    if (adopt) {
        rc = if_ioctl(SIOCGIFMTU, &ifr); /* the guest's, kept as it is */
        if (rc < 0)
            return rc;
        t->st.mtu = (uint32_t)ifr.ifr_mtu;
        return 0;
    }
    char tag[ZVS_TAP_TAG_MAX];
    rc = zvs_tap_tag(tag, sizeof tag);
    if (rc == 0)
        rc = rtnl_set(t->ifindex, IFLA_IFALIAS, tag, strlen(tag));
    if (rc < 0)
        zvs_warn("guest_tap %s: not tagged (%s): a vswitchd started after a crash will not "
                 "find it", t->name, strerror(-rc));
    return 0;
}

static int tap_set_mtu(struct zvs_guest_tap *t, uint32_t mtu)
{
    struct ifreq ifr;

    memset(&ifr, 0, sizeof(ifr));
    memcpy(ifr.ifr_name, t->name, sizeof(ifr.ifr_name));
    ifr.ifr_mtu = (int)mtu;
    int rc = if_ioctl(SIOCSIFMTU, &ifr);
    if (rc == 0)
        t->st.mtu = mtu;
    return rc;
}

struct fit_ctx {
    const char *name;                   /* the tap's name now (the guest may rename it) */
    uint32_t    from;                   /* lowered only from this MTU */
    uint32_t    mtu;                    /* to this one */
    uint32_t    now;                    /* out: the tap's MTU after */
    bool        lowered;                /* out: set here */
};

/* Inside the tap's namespace, where its name reaches it. */
static int fit_here(void *arg)
{
    struct fit_ctx *c = arg;
    struct ifreq ifr;

    memset(&ifr, 0, sizeof(ifr));
    snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", c->name);
    int rc = if_ioctl(SIOCGIFMTU, &ifr);
    if (rc < 0)
        return rc;
    c->now = (uint32_t)ifr.ifr_mtu;
    if (c->now != c->from || c->mtu >= c->now)
        return 0;                       /* the guest's, or small enough */
    ifr.ifr_mtu = (int)c->mtu;
    rc = if_ioctl(SIOCSIFMTU, &ifr);
    if (rc == 0) {
        c->now = c->mtu;
        c->lowered = true;
    }
    return rc;
}

static int devnetns_ioctl(int fd)
{
    return ioctl(fd, TUNGETDEVNETNS);
}

int (*zvs_guest_tap_devnetns)(int fd) = devnetns_ioctl;

/* Whether the device called `name` in this namespace is tap t itself: the ifindex it had
 * when it was made here, and the MAC its fd reports. A kernel that cannot say where the
 * tap is (before Linux 5.2) lets a guest move it away and name it like a host's
 * interface; only this proof keeps that interface untouched. */
static bool tap_is_here(const struct zvs_guest_tap *t, const char *name)
{
    struct ifreq by_name, by_fd;

    memset(&by_name, 0, sizeof(by_name));
    snprintf(by_name.ifr_name, sizeof(by_name.ifr_name), "%s", name);
    if (if_ioctl(SIOCGIFINDEX, &by_name) < 0 || by_name.ifr_ifindex != t->ifindex)
        return false;
    memset(&by_fd, 0, sizeof(by_fd));
    if (ioctl(t->fd, SIOCGIFHWADDR, &by_fd) < 0 || if_ioctl(SIOCGIFHWADDR, &by_name) < 0)
        return false;
    return memcmp(by_fd.ifr_hwaddr.sa_data, by_name.ifr_hwaddr.sa_data, ZVS_ETH_ALEN) == 0;
}

int zvs_guest_tap_fit_mtu(struct zvs_guest_tap *t, uint32_t mtu, bool *lowered)
{
    struct ifreq ifr;

    *lowered = false;
    if (t->adopted)
        return -EOPNOTSUPP;
    if (mtu < ZVS_GUEST_TAP_MTU_MIN)
        return -EINVAL;
    /* The fd knows the device wherever it went: its name now and its namespace (a guest
     * moves its tap into its own before it couples, as the labs do). */
    memset(&ifr, 0, sizeof(ifr));
    if (ioctl(t->fd, TUNGETIFF, &ifr) < 0)
        return -errno;
    ifr.ifr_name[IFNAMSIZ - 1] = '\0';
    int ns = zvs_guest_tap_devnetns(t->fd);
    if (ns < 0) {
        /* Only a kernel without the ioctl (before 5.2) leaves the name to go by, and then
         * only for the tap proven still in this namespace; any other failure, or a device
         * of that name that is not this tap (a host's eth0 where the guest named its tap
         * eth0 in its own namespace), is left alone. */
        int e = errno;
        if ((e != ENOTTY && e != EINVAL) || !tap_is_here(t, ifr.ifr_name))
            return -e;
    }
    struct fit_ctx c = { .name = ifr.ifr_name, .from = t->made_mtu, .mtu = mtu };
    int rc = zvs_netns_run(ns, fit_here, &c);
    if (ns >= 0)
        close(ns);
    if (rc < 0)
        return rc;
    if (c.lowered)
        t->made_mtu = mtu;              /* still ours: a later, smaller segment lowers it */
    *lowered = c.lowered;
    t->st.mtu = c.now;
    return (int)c.now;
}

/* Offer TSO if the tap's super-frames can be held to one NIC buffer, else checksum
 * offload only (the namespace segments in software). */
static int tap_set_offloads(struct zvs_guest_tap *t)
{
    uint32_t gso_max = t->max_frame - ZVS_ETH_HLEN - ZVS_VLAN_HLEN;
    unsigned int off = TUN_F_CSUM;

    int rc = rtnl_set(t->ifindex, IFLA_GSO_MAX_SIZE, &gso_max, sizeof(gso_max));
    if (rc == 0) {
        t->st.gso_max_size = gso_max;
        off |= TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN;
        uint32_t segs = ZVS_GUEST_TAP_GSO_SEGS;
        rc = rtnl_set(t->ifindex, IFLA_GSO_MAX_SEGS, &segs, sizeof(segs));
        if (rc < 0)
            zvs_info("guest_tap %s: gso_max_segs not set (%s)", t->name, strerror(-rc));
    } else {
        zvs_warn("guest_tap %s: kernel refused gso_max_size %u (%s): TSO off, the guest "
                 "segments in software", t->name, gso_max, strerror(-rc));
    }
    if (ioctl(t->fd, TUNSETOFFLOAD, off) < 0)
        return -errno;
    return 0;
}

/* The tap's carrier follows the binding. Best effort: a kernel without TUNSETCARRIER
 * (before 4.20) leaves the carrier as it is, which changes nothing else. */
static void tap_set_carrier(struct zvs_guest_tap *t, bool on)
{
    int v = on;

    if (t->fd >= 0 && !t->adopted)
        (void)ioctl(t->fd, TUNSETCARRIER, &v);
}

/* The driver without its tap: epoll fd, overflow buffer. NULL and *rc on failure. */
static struct zvs_guest_tap *tap_alloc(int *rc)
{
    struct zvs_guest_tap *t = calloc(1, sizeof(*t));

    *rc = -ENOMEM;
    if (!t)
        return NULL;
    t->fd = -1;
    t->txfd = -1;
    t->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (t->epfd < 0) {
        *rc = -errno;
        goto fail;
    }
    /* Every NIC buffer holds the same largest frame, so the tap is set up for it before
     * it knows its NIC; bind checks it. */
    t->max_frame = ZVS_QDIO_FRAME_MAX;
    t->st.max_frame = t->max_frame;
    t->ovf = malloc(t->max_frame + 1u);
    if (!t->ovf)
        goto fail;
    *rc = 0;
    return t;
fail:
    zvs_guest_tap_close(t);
    return NULL;
}

/* What an open and a reopen accept: a tap name that fits IFNAMSIZ, and a QDIO NIC or none. */
static bool tap_open_args_ok(const char *ifname, const struct zvs_port *nic)
{
    return ifname && ifname[0] != '\0' && strlen(ifname) < IFNAMSIZ &&
           (!nic || zvs_nic_qdio_is(nic));
}

/* The last steps of an open and a reopen: carrier off, then the NIC's queues bound when
 * there is a NIC. Binding comes last because establishing the queues is the one step that
 * cannot be undone (the adapter owns the empty input buffers from then on), so a failed
 * open leaves the NIC as it was. */
static int tap_carrier_off_and_bind(struct zvs_guest_tap *t, struct zvs_port *nic)
{
    tap_set_carrier(t, false);
    return nic ? zvs_guest_tap_bind(t, nic) : 0;
}

int zvs_guest_tap_open(const char *ifname, uint32_t mtu, struct zvs_port *nic,
                       struct zvs_guest_tap **out)
{
    struct zvs_guest_tap *t = NULL;
    int rc = -EINVAL;

    *out = NULL;
    if (!tap_open_args_ok(ifname, nic))
        goto fail;
    uint32_t mtu_max = nic ? nic->mtu : TAP_MTU_MAX;
    if (mtu == 0)
        mtu = mtu_max < ZVS_GUEST_TAP_MTU_DEFAULT ? mtu_max : ZVS_GUEST_TAP_MTU_DEFAULT;
    if (mtu < ZVS_GUEST_TAP_MTU_MIN || mtu > mtu_max)
        goto fail;
    t = tap_alloc(&rc);
    if (!t)
        goto fail;
    rc = tap_create(t, ifname, false);
    if (rc < 0)
        goto fail;
    rc = tap_set_mtu(t, mtu);
    if (rc < 0)
        goto fail;
    t->made_mtu = mtu;
    rc = tap_set_offloads(t);
    if (rc < 0)
        goto fail;
    rc = tap_carrier_off_and_bind(t, nic);
    if (rc < 0)
        goto fail;
    *out = t;
    return 0;
fail:
    zvs_guest_tap_close(t);
    return rc;
}

struct adopt_ctx {
    struct zvs_guest_tap *t;
    const char           *ifname;
};

/* Inside the tap's namespace: its name, ioctls by name and netlink reach it only there. */
static int adopt_here(void *arg)
{
    struct adopt_ctx *c = arg;
    int rc = tap_create(c->t, c->ifname, true);
    return rc < 0 ? rc : tap_set_offloads(c->t);
}

int zvs_guest_tap_reopen(const char *ifname, int netns_fd, struct zvs_port *nic,
                         struct zvs_guest_tap **out)
{
    struct zvs_guest_tap *t = NULL;
    int rc = -EINVAL;

    *out = NULL;
    if (!tap_open_args_ok(ifname, nic))
        goto fail;
    t = tap_alloc(&rc);
    if (!t)
        goto fail;
    struct adopt_ctx c = { .t = t, .ifname = ifname };
    rc = zvs_netns_run(netns_fd, adopt_here, &c);
    if (rc < 0)
        goto fail;
    rc = tap_carrier_off_and_bind(t, nic);
    if (rc < 0)
        goto fail;
    *out = t;
    return 0;
fail:
    /* A failed adoption leaves the tap as it was: still persistent, for a later try. */
    if (t)
        t->persist = false;
    zvs_guest_tap_close(t);
    return rc;
}

int zvs_guest_tap_adopt(int fd, int txfd, struct zvs_packet_ring *ring, const char *name,
                        struct zvs_guest_tap **out)
{
    *out = NULL;
    if (!ring || !ring->base)
        return -EINVAL;                 /* the receive path is the ring's */
    struct zvs_guest_tap *t = calloc(1, sizeof(*t));
    if (!t)
        return -ENOMEM;
    t->fd = fd;
    t->txfd = txfd;
    t->adopted = true;
    t->epfd = epoll_create1(EPOLL_CLOEXEC);
    t->max_frame = ZVS_QDIO_FRAME_MAX;
    t->st.max_frame = t->max_frame;
    t->st.mtu = ZVS_GUEST_TAP_MTU_DEFAULT;
    t->ovf = malloc(t->max_frame + 1u);
    t->sb = sock_batch_new();
    snprintf(t->name, sizeof t->name, "%s", name);
    if (t->epfd < 0 || !t->ovf || !t->sb) {
        int rc = t->epfd < 0 ? -errno : -ENOMEM;
        t->fd = t->txfd = -1;           /* the caller keeps its fds on failure */
        zvs_guest_tap_close(t);
        return rc;
    }
    t->ring = *ring;                    /* ours now */
    memset(ring, 0, sizeof *ring);
    *out = t;
    return 0;
}

int zvs_guest_tap_bind(struct zvs_guest_tap *t, struct zvs_port *nic)
{
    struct zvs_qdio_guest *g = NULL;
    int rc;

    if (!nic || !zvs_nic_qdio_is(nic) || t->st.mtu > nic->mtu)
        return -EINVAL;
    zvs_guest_tap_unbind(t);
    struct zvs_qdio *q = zvs_nic_qdio_queues(nic);
    int irq_fd = zvs_qdio_irq_fd(q);
    rc = zvs_qdio_guest_attach(zvs_qdio_region(q), zvs_qdio_size(q), zvs_qdio_siga_fd(q),
                               irq_fd, &g);
    if (rc < 0)
        return rc;
    assert(zvs_qdio_guest_max_frame(g) == t->max_frame);
    struct epoll_event ev = { .events = EPOLLIN, .data.fd = irq_fd };
    if (epoll_ctl(t->epfd, EPOLL_CTL_ADD, irq_fd, &ev) < 0) {
        rc = -errno;
        goto fail;
    }
    /* Last: the one step that cannot be undone (see open). -EBUSY: another driver. */
    rc = zvs_qdio_guest_init_queues(g);
    if (rc < 0) {
        (void)epoll_ctl(t->epfd, EPOLL_CTL_DEL, irq_fd, NULL);
        goto fail;
    }
    /* The daemon polls the NIC right after every pump: no SIGA-w system call needed. */
    const struct zvs_qdio_shm_hdr *h = zvs_qdio_region(q);
    uint32_t ac1 = __atomic_load_n(&h->ac1, __ATOMIC_ACQUIRE);
    zvs_qdio_set_ac1(q, ac1 & ~ZVS_QDIO_AC1_SIGA_OUTPUT);
    (void)zvs_qdio_guest_arm_irq(g);    /* nothing can be waiting: the queues are new */
    t->nic = nic;
    t->q = q;
    t->g = g;
    tap_set_carrier(t, true);
    return 0;
fail:
    zvs_qdio_guest_detach(g);
    return rc;
}

void zvs_guest_tap_unbind(struct zvs_guest_tap *t)
{
    if (!t || !t->g)
        return;
    /* What the switch already delivered reaches the guest; then the queues go. */
    (void)zvs_guest_tap_pump_in(t);
    zvs_qdio_guest_disarm_irq(t->g);
    (void)epoll_ctl(t->epfd, EPOLL_CTL_DEL, zvs_qdio_irq_fd(t->q), NULL);
    zvs_qdio_guest_detach(t->g);
    int rc = zvs_qdio_reset(t->q);
    if (rc < 0)
        zvs_warn("guest_tap %s: queues of %s not reset (%s): the switch holds frames of "
                 "them; poll the NIC before unbinding", t->name, t->nic->name, strerror(-rc));
    t->g = NULL;
    t->q = NULL;
    t->nic = NULL;
    tap_set_carrier(t, false);
}

struct zvs_port *zvs_guest_tap_nic(const struct zvs_guest_tap *t)
{
    return t->nic;
}

void zvs_guest_tap_close(struct zvs_guest_tap *t)
{
    if (!t)
        return;
    zvs_guest_tap_unbind(t);
    /* Not persistent any more: the interface goes with the fd, wherever the guest moved
     * it. Only a crash leaves a tap behind, for the next vswitchd to adopt. */
    if (t->fd >= 0 && t->persist && ioctl(t->fd, TUNSETPERSIST, 0) < 0 && errno != EBADFD)
        zvs_warn("guest_tap %s: not deleted (%s)", t->name, strerror(errno));
    zvs_packet_ring_close(&t->ring);    /* the mapping holds the socket open */
    if (t->fd >= 0)
        close(t->fd);
    if (t->txfd >= 0)
        close(t->txfd);
    if (t->epfd >= 0)
        close(t->epfd);
    free(t->ovf);
    free(t->sb);
    free(t);
}

int zvs_guest_tap_set_mac(struct zvs_guest_tap *t, const uint8_t mac[ZVS_ETH_ALEN])
{
    struct ifreq ifr;

    /* Through the tap's fd, which reaches it in whatever namespace it is now; a MAC that
     * is already right is left alone (an adopted tap keeps its neighbours' caches). */
    memset(&ifr, 0, sizeof(ifr));
    if (ioctl(t->fd, SIOCGIFHWADDR, &ifr) == 0 &&
        memcmp(ifr.ifr_hwaddr.sa_data, mac, ZVS_ETH_ALEN) == 0)
        return 0;
    memset(&ifr, 0, sizeof(ifr));
    ifr.ifr_hwaddr.sa_family = ARPHRD_ETHER;
    memcpy(ifr.ifr_hwaddr.sa_data, mac, ZVS_ETH_ALEN);
    return ioctl(t->fd, SIOCSIFHWADDR, &ifr) < 0 ? -errno : 0;
}

int zvs_guest_tap_fd(const struct zvs_guest_tap *t)
{
    return t->fd;
}

int zvs_guest_tap_irq_fd(const struct zvs_guest_tap *t)
{
    return t->epfd;
}

const char *zvs_guest_tap_name(const struct zvs_guest_tap *t)
{
    return t->name;
}

void zvs_guest_tap_stats(const struct zvs_guest_tap *t, struct zvs_guest_tap_stats *out)
{
    *out = t->st;
}

/* ---- Guest -> switch ------------------------------------------------------------------- */

static void iov_gather(const struct iovec *iov, int n, uint8_t *dst, size_t len)
{
    for (int i = 0; i < n && len > 0; i++) {
        size_t take = len < iov[i].iov_len ? len : iov[i].iov_len;
        memcpy(dst, iov[i].iov_base, take);
        dst += take;
        len -= take;
    }
}

static void iov_scatter(const struct iovec *iov, int n, const uint8_t *src, size_t len)
{
    for (int i = 0; i < n && len > 0; i++) {
        size_t take = len < iov[i].iov_len ? len : iov[i].iov_len;
        memcpy(iov[i].iov_base, src, take);
        src += take;
        len -= take;
    }
    assert(len == 0);
}

/* The frame did not fit the open buffer's rest: its head is in the reserved entries
 * iov[0..n-1] (room bytes), its tail in ovf[room..len). Prime the open buffer as it is
 * (it holds frames: an empty one has room for any frame) and copy the frame into a
 * fresh one. Returns tx_reserve's or tx_commit's error, or 0. */
static int out_copy_fresh(struct zvs_guest_tap *t, const struct iovec *iov, int n,
                          size_t room, uint32_t len, const struct zvs_vnet *v)
{
    struct iovec fresh[ZVS_QDIO_NSBALE];

    iov_gather(iov, n, t->ovf, room);
    int primed = zvs_qdio_guest_tx_flush(t->g);
    assert(primed >= 1);
    (void)primed;
    int k = zvs_qdio_guest_tx_reserve(t->g, fresh, ZVS_QDIO_NSBALE);
    if (k < 0)
        return k;
    iov_scatter(fresh, k, t->ovf, len);
    t->st.tap_rx_copied++;
    return zvs_qdio_guest_tx_commit(t->g, len, v);
}

/* A frame read as r bytes (virtio-net header included): its length in *len and its
 * metadata in *v, or false when it is dropped (counted). */
static bool out_check(struct zvs_guest_tap *t, size_t r, const struct virtio_net_hdr *vh,
                      struct zvs_vnet *v, uint32_t *len)
{
    if (r <= VH_LEN) {
        t->st.tap_rx_errors++;          /* a tap never gives an empty frame */
        return false;
    }
    if (r - VH_LEN > t->max_frame) {
        t->st.tap_rx_oversize++;
        if (!t->oversize_logged) {
            t->oversize_logged = true;
            zvs_warn("guest_tap %s: frame larger than a NIC buffer holds (%u bytes) "
                     "dropped; was gso_max_size raised on the tap?", t->name, t->max_frame);
        }
        return false;
    }
    *len = (uint32_t)(r - VH_LEN);
    if (!zvs_virtio_hdr_decode(vh, vnet_le(t), *len, v)) {
        t->st.tap_rx_bad_vnet++;
        return false;
    }
    return true;
}

/* Count a read frame by its commit's result rc. Returns 1 (queued), 0 (dropped: metadata
 * the adapter would refuse), or rc when no output buffer took it (-ENOBUFS, -EIO). */
static int out_counted(struct zvs_guest_tap *t, int rc, uint32_t len)
{
    if (rc == -ENOBUFS || rc == -EIO) {
        t->st.tap_rx_no_buffer++;       /* read, but nowhere to put it */
        return rc;
    }
    if (rc < 0) {
        t->st.tap_rx_bad_vnet++;        /* metadata the adapter would refuse */
        return 0;
    }
    t->st.tap_rx_frames++;
    t->st.tap_rx_bytes += len;
    return 1;
}

/* Read one frame into the open output buffer. Returns 1 when a frame was queued, 0 when
 * one was read and dropped, -EAGAIN when the tap is empty, -ENOBUFS when the output
 * queue is full, or another -errno. */
static int out_one(struct zvs_guest_tap *t)
{
    struct iovec iov[ZVS_QDIO_NSBALE + 2];
    struct virtio_net_hdr vh;
    struct zvs_vnet v;
    size_t room = 0;

    /* While frames past a page come in a run, the next may be as large as the largest
     * of them: a buffer that could not hold that is primed before the read, so such a
     * frame is not read past its end and copied. The price, a buffer: the single segment
     * after a super-frame goes alone, and so does a 9014-byte segment in a run that also
     * has super-frames (the run's largest only grows until two small frames end it).
     * Buffers are the cheaper side: a copy of a super-frame costs what reading it does. */
    if (t->out_run_max)
        (void)zvs_qdio_guest_tx_expect(t->g, t->out_run_max);
    int n = zvs_qdio_guest_tx_reserve(t->g, iov + 1, ZVS_QDIO_NSBALE);
    if (n < 0)
        return n;
    for (int i = 1; i <= n; i++)
        room += iov[i].iov_len;
    assert(room <= t->max_frame);
    iov[0].iov_base = &vh;
    iov[0].iov_len = VH_LEN;
    /* One byte beyond max_frame tells an oversize frame: the kernel truncates to the
     * space given and reports only what it copied (measured on 6.18). */
    iov[n + 1].iov_base = t->ovf + room;
    iov[n + 1].iov_len = t->max_frame + 1u - room;
    ssize_t r = readv(t->fd, iov, n + 2);
    if (r < 0)
        return -errno;
    uint32_t len;
    if (!out_check(t, (size_t)r, &vh, &v, &len))
        return 0;
    if (len > ZVS_QDIO_ENTRY_SIZE - ZVS_QDIO_FHDR_LEN) {   /* past the first page */
        t->out_run_max = len > t->out_run_max ? len : t->out_run_max;
        t->out_run_small = 0;
    } else if (t->out_run_max && ++t->out_run_small >= GUEST_TAP_RUN_END) {
        t->out_run_max = 0;
    }
    int rc = len <= room ? zvs_qdio_guest_tx_commit(t->g, len, &v)
                         : out_copy_fresh(t, iov + 1, n, room, len, &v);
    return out_counted(t, rc, len);
}

/* Unbound: read what the guest sent and drop it (counted), a burst at most: from a tap,
 * or from an adopted socket's ring (a frame past a slot from the socket). Returns 0, or
 * -errno when the tap is unusable. */
static int out_drop_unbound(struct zvs_guest_tap *t)
{
    struct virtio_net_hdr vh;

    for (int i = 0; i < ZVS_GUEST_TAP_BURST; i++) {
        struct tpacket2_hdr *h = NULL;
        if (t->ring.base) {
            h = zvs_packet_ring_peek(&t->ring);
            if (!h)
                break;
            if (!(h->tp_status & TP_STATUS_COPY)) {
                t->st.tap_rx_unbound++;
                zvs_packet_ring_release(&t->ring, h);
                continue;
            }
        }
        struct iovec iov[2] = { { &vh, VH_LEN }, { t->ovf, t->max_frame + 1u } };
        ssize_t r = readv(t->fd, iov, 2);
        if (r >= 0 || (h && errno == EAGAIN)) {
            if (r >= 0)
                t->st.tap_rx_unbound++;
            else
                t->st.tap_rx_errors++;      /* the slot's copy missing: as out_slot_copied */
            if (h)
                zvs_packet_ring_release(&t->ring, h);
            continue;
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN)
            break;
        t->st.tap_rx_errors++;
        return -errno;
    }
    return 0;
}

/* ---- Guest -> switch on an adopted packet socket: its receive ring ------------------- */

/* Room in the output queue for a frame of len bytes, before it is read: the open
 * buffer's rest, or a fresh buffer (the open one primed first). 0, or -ENOBUFS / -EIO
 * when no buffer can take it now (the frame stays where it waits). */
static int out_room(struct zvs_guest_tap *t, uint32_t len)
{
    struct iovec iov[ZVS_QDIO_NSBALE];
    size_t room = 0;

    int k = zvs_qdio_guest_tx_reserve(t->g, iov, ZVS_QDIO_NSBALE);
    for (int i = 0; i < k; i++)
        room += iov[i].iov_len;
    if (k > 0 && room < len) {
        (void)zvs_qdio_guest_tx_flush(t->g);
        k = zvs_qdio_guest_tx_reserve(t->g, iov, ZVS_QDIO_NSBALE);
        t->st.tap_rx_copied += k > 0;   /* into a fresh buffer, as out_copy counts it */
    }
    return k < 0 ? k : 0;               /* a fresh buffer holds any frame up to max_frame */
}

/* A whole frame f of len bytes copied into the open buffer's next free page (and the
 * pages after it), or into a fresh buffer when the open buffer's rest is too small
 * (counted in tap_rx_copied, as for a tap). Returns tx_reserve's result (-ENOBUFS, -EIO:
 * nothing written) or tx_commit's. */
static __attribute__((noinline)) int out_copy_pages(struct zvs_guest_tap *t, const uint8_t *f,
                                                   uint32_t len, const struct zvs_vnet *v)
{
    struct iovec iov[ZVS_QDIO_NSBALE];

    int k = out_room(t, len);
    if (k == 0)
        k = zvs_qdio_guest_tx_reserve(t->g, iov, ZVS_QDIO_NSBALE);
    if (k < 0)
        return k;
    iov_scatter(iov, k, f, len);
    return zvs_qdio_guest_tx_commit(t->g, len, v);
}

/* An LCS frame fits a page: one call copies it into the open buffer's next free page
 * and writes its header and entry (tx_put; bench_lcs: a reserve, a memcpy and a commit
 * cost 74 instructions a 64-byte frame more). A frame past a page takes out_copy_pages. */
static inline int out_copy(struct zvs_guest_tap *t, const uint8_t *f, uint32_t len,
                           const struct zvs_vnet *v)
{
    int rc = zvs_qdio_guest_tx_put(t->g, f, len, v);
    return rc == -EMSGSIZE ? out_copy_pages(t, f, len, v) : rc;
}

/* A frame of r bytes (virtio-net header, then the frame at buf + 4) as slot h describes
 * it, into the open output buffer: checked, its tag put back, copied, counted. The room
 * was made before it was read, so no buffer is missing. Returns as out_slot. */
static int out_slot_frame(struct zvs_guest_tap *t, const struct tpacket2_hdr *h,
                          const struct virtio_net_hdr *vh, uint8_t *buf, size_t r)
{
    bool tagged = h->tp_status & TP_STATUS_VLAN_VALID;
    struct zvs_vnet v;
    uint32_t len;

    if (tagged && r > VH_LEN && r - VH_LEN + ZVS_VLAN_HLEN > t->max_frame) {
        t->st.tap_rx_oversize++;        /* fits no NIC buffer once its tag is back */
        return 0;
    }
    if (!out_check(t, r, vh, &v, &len))
        return 0;
    if (tagged && len >= 2 * ZVS_ETH_ALEN) {
        /* The guest sent the tag; the switch's VLAN rules judge it. */
        uint16_t tpid = (h->tp_status & TP_STATUS_VLAN_TPID_VALID) ? h->tp_vlan_tpid
                                                                   : ZVS_ETHERTYPE_VLAN;
        len = zvs_packet_tag_restore(buf, len, tpid, h->tp_vlan_tci, &v);
    } else {
        buf += ZVS_VLAN_HLEN;
    }
    return out_counted(t, out_copy(t, buf, len, &v), len);
}

/* Slot h's frame past a slot, waiting whole on the socket (TP_STATUS_COPY): the next frame
 * there, in ring order (the kernel queues the copy before it hands the slot over). The
 * room it needs is made before it is read, so it is never read and then lost for want of
 * a buffer: without room the slot and the frame wait. Read into the scratch buffer 4
 * bytes in (room for its tag), then as a ring frame. Returns as out_slot. */
static int out_slot_copied(struct zvs_guest_tap *t, struct tpacket2_hdr *h)
{
    uint32_t want = h->tp_len + ((h->tp_status & TP_STATUS_VLAN_VALID) ? ZVS_VLAN_HLEN : 0);
    int rc = want <= t->max_frame ? out_room(t, want) : 0;   /* else read and counted */
    if (rc < 0)
        return rc;
    struct virtio_net_hdr vh;
    struct iovec iov[2] = { { &vh, VH_LEN },
                            { t->ovf + ZVS_VLAN_HLEN, t->max_frame + 1u - ZVS_VLAN_HLEN } };
    ssize_t r = -1;
    for (int tries = 0; tries < 3; tries++) {
        r = readv(t->fd, iov, 2);
        if (r >= 0 || errno == EAGAIN)
            break;
        if (errno != EINTR)
            t->st.tap_rx_errors++;      /* the link's ENETDOWN, reported once */
    }
    if (r < 0 && errno != EAGAIN)
        return 0;                       /* the socket failed: slot and frame wait for the
                                           next pump (the ring keeps it polling ready) */
    if (r < 0) {
        /* The copy the slot stands for is not on the socket, though the kernel queues it
         * before it hands the slot over: never seen. Counted; the slot goes back, and
         * nothing of it is left on the socket to pair with a later slot. */
        t->st.tap_rx_errors++;
        rc = 0;
    } else {
        rc = out_slot_frame(t, h, &vh, t->ovf, (size_t)r);
    }
    zvs_packet_ring_release(&t->ring, h);
    return rc;
}

/* Slot h's frame into the open output buffer, the slot handed back. Returns 1 (queued),
 * 0 (dropped and counted), or -ENOBUFS / -EIO with the frame still in its slot (no output
 * buffer) or on the socket, or another -errno. */
static int out_slot(struct zvs_guest_tap *t, struct tpacket2_hdr *h)
{
    if (h->tp_status & TP_STATUS_COPY)
        return out_slot_copied(t, h);
    if (h->tp_snaplen < h->tp_len) {
        /* Past a slot, and the socket's buffer had no room for the whole frame. */
        t->st.tap_rx_truncated++;
        zvs_packet_ring_release(&t->ring, h);
        return 0;
    }
    if (h->tp_mac < TPACKET2_HDRLEN + VH_LEN || h->tp_mac + h->tp_snaplen > t->ring.frame_size) {
        t->st.tap_rx_errors++;          /* outside the slot: the kernel never does this */
        zvs_packet_ring_release(&t->ring, h);
        return 0;
    }
    const uint8_t *f = zvs_packet_ring_mac(h);
    struct virtio_net_hdr vh;
    struct zvs_vnet v;
    uint32_t len;
    memcpy(&vh, f - VH_LEN, VH_LEN);    /* the kernel writes it right before the frame */
    if (h->tp_status & TP_STATUS_VLAN_VALID) {
        /* Tagged: rebuilt in the scratch buffer with its tag (rare: an LCS carries none). */
        int rc = 0;
        if (h->tp_snaplen + ZVS_VLAN_HLEN <= t->max_frame) {
            rc = out_room(t, h->tp_snaplen + ZVS_VLAN_HLEN);
            if (rc < 0)
                return rc;              /* nothing written: the frame waits in its slot */
            memcpy(t->ovf + ZVS_VLAN_HLEN, f, h->tp_snaplen);
        }                               /* else out_slot_frame counts it oversize */
        rc = out_slot_frame(t, h, &vh, t->ovf, VH_LEN + h->tp_snaplen);
        zvs_packet_ring_release(&t->ring, h);
        return rc;
    }
    int rc = 0;
    if (out_check(t, VH_LEN + h->tp_snaplen, &vh, &v, &len)) {
        rc = out_copy(t, f, len, &v);
        if (rc == -ENOBUFS || rc == -EIO)
            return rc;                  /* nothing written: the frame waits in its slot */
        rc = out_counted(t, rc, len);
    }
    zvs_packet_ring_release(&t->ring, h);
    return rc;
}

/* The socket woke the driver with nothing in its ring: an error the kernel left on it
 * (ENETDOWN when the link went down) keeps it polling ready until it is taken, and only a
 * read or SO_ERROR takes it. Counted as a read error, as a tap's read would be. */
static void out_ring_idle(struct zvs_guest_tap *t)
{
    int err = 0;
    socklen_t len = sizeof err;

    if (getsockopt(t->fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && err != 0)
        t->st.tap_rx_errors++;
}

int zvs_guest_tap_pump_out(struct zvs_guest_tap *t)
{
    int queued = 0, err = 0, read = 0;

    if (!t->g) {
        if (t->ring.base && !zvs_packet_ring_peek(&t->ring))
            out_ring_idle(t);
        return out_drop_unbound(t);
    }
    /* A frame a step, from a tap's fd or an adopted socket's ring, until it is empty. */
    while (read < ZVS_GUEST_TAP_BURST) {
        int rc;
        if (t->ring.base) {
            struct tpacket2_hdr *h = zvs_packet_ring_peek(&t->ring);
            if (!h) {
                if (read == 0)
                    out_ring_idle(t);
                break;                  /* the kernel wakes the loop at its next frame */
            }
            rc = out_slot(t, h);
        } else {
            rc = out_one(t);
        }
        read++;
        if (rc >= 0) {
            queued += rc;
            continue;
        }
        if (rc == -EINTR)
            continue;
        if (rc == -ENOBUFS)
            t->st.tap_rx_queue_full++;
        else if (rc == -EIO)
            err = rc;                   /* the adapter broke the queue protocol */
        else if (rc != -EAGAIN) {
            t->st.tap_rx_errors++;
            err = rc;
        }
        break;
    }
    (void)zvs_qdio_guest_tx_flush(t->g);
    return queued > 0 || err == 0 ? queued : err;
}

/* ---- Switch -> guest -------------------------------------------------------------------- */

static bool errno_is_down(int e)
{
    return e == EIO || e == ENETDOWN || e == EBADFD || e == ENXIO || e == ENODEV ||
           e == EPIPE;
}

/* Count one frame of len bytes written as r bytes (virtio-net header included), or its
 * errno e when r < 0. */
static void in_counted(struct zvs_guest_tap *t, ssize_t r, uint32_t len, int e)
{
    if (r == (ssize_t)(VH_LEN + len)) {
        t->st.tap_tx_frames++;
        t->st.tap_tx_bytes += len;
    } else if (r >= 0) {
        t->st.tap_tx_errors++;          /* a tap takes a frame whole or not at all */
    } else if (e == EAGAIN || e == ENOBUFS) {
        t->st.tap_tx_dropped_full++;
    } else if (errno_is_down(e)) {
        t->st.tap_tx_dropped_down++;
    } else {
        t->st.tap_tx_errors++;          /* EINVAL: the kernel refused the metadata */
    }
}

/* The frames gathered for an adopted packet socket, sent with sendmmsg. A frame the
 * kernel refuses is counted and dropped, and the rest still go: each frame meets what it
 * met with one writev. The input buffers they point into are not re-used before this:
 * only the switch fills them, when the daemon delivers, after pump_in. */
static void in_flush(struct zvs_guest_tap *t)
{
    struct sock_batch *s = t->sb;
    unsigned i = 0;

    while (i < s->tn) {
        int r = sendmmsg(t->txfd >= 0 ? t->txfd : t->fd, s->tmsg + i, s->tn - i,
                         MSG_DONTWAIT);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            in_counted(t, -1, s->tlen[i], errno);
            i++;
            continue;
        }
        for (int k = 0; k < r; k++, i++)
            in_counted(t, (ssize_t)s->tmsg[i].msg_len, s->tlen[i], 0);
    }
    s->tn = 0;
}

static void in_write(void *arg, const struct zvs_qdio_rx *rx)
{
    struct zvs_guest_tap *t = arg;
    struct iovec one[ZVS_QDIO_NSBALE + 1], *iov = one;
    struct virtio_net_hdr vh1, *vh = &vh1;
    struct sock_batch *s = t->sb;

    if (s) {                            /* gathered for in_flush */
        iov = s->tiov[s->tn];
        vh = &s->tvh[s->tn];
    }
    if (rx->niov > ZVS_QDIO_NSBALE || !zvs_virtio_hdr_encode(&rx->hdr.vnet, vnet_le(t), vh)) {
        t->st.tap_tx_errors++;
        return;
    }
    iov[0].iov_base = vh;
    iov[0].iov_len = VH_LEN;
    for (uint32_t i = 0; i < rx->niov; i++)
        iov[i + 1] = rx->iov[i];
    if (s) {
        /* the rest of the message is as sock_batch_init left it: no name, no control */
        s->tmsg[s->tn].msg_hdr.msg_iovlen = rx->niov + 1;
        s->tlen[s->tn++] = rx->len;
        if (s->tn == SOCK_TX_BATCH)
            in_flush(t);
        return;
    }
    ssize_t r = writev(t->fd, iov, (int)rx->niov + 1);
    in_counted(t, r, rx->len, errno);
}

int zvs_guest_tap_pump_in(struct zvs_guest_tap *t)
{
    int total = 0;

    if (!t->g)
        return 0;                       /* unbound: no queue, and the epoll set is empty */
    t->st.irqs += zvs_qdio_guest_irq_ack(t->g);
    for (;;) {
        int n;
        /* The input queue holds at most N armed buffers (64 at 8M) of 16 frames, and only
         * the switch fills it, so this ends. */
        while ((n = zvs_qdio_guest_receive(t->g, ZVS_QDIO_NBUFS, in_write, t)) > 0) {
            total += n;
            if (t->sb)
                in_flush(t);
        }
        if (!zvs_qdio_guest_arm_irq(t->g))
            break;
    }
    return total;
}
