/* uplink_afpacket: uplink backend on a Linux interface (see uplink_afpacket.h).
 *
 * - Why AF_PACKET: only the virtio-net header of PACKET_VNET_HDR says which frames are
 *   TCP super-frames (GSO) or carry a partial checksum, and where; libpcap cannot carry
 *   it (uplink_pcap marks frames by guesswork instead).
 * - Owns: two sockets on the ifindex, both SOCK_RAW, non-blocking, PACKET_VNET_HDR: the
 *   one read (ETH_P_ALL, promiscuous through PACKET_ADD_MEMBERSHIP, PACKET_AUXDATA,
 *   PACKET_IGNORE_OUTGOING when the kernel has it, a large forced receive buffer), which
 *   the event loop watches, and the one written (bound with protocol 0, so it takes
 *   nothing in), which nobody watches; both PACKET_QDISC_BYPASS and a large forced send
 *   buffer;
 *   and preallocated recvmmsg/sendmmsg vectors. The port, pool and link-event handling
 *   are the shared head (uplink_common.h). Nothing is allocated per frame.
 * - Why two sockets: every sent skb the veth or the driver frees calls the socket's
 *   write-space callback, which wakes whatever waits on the socket; an epoll set watching
 *   it for input takes its lock and is skipped, a frame at a time. A socket nobody waits
 *   on costs none of it: 0.12-0.14 us less CPU a frame for 64- and 1514-byte frames on a
 *   veth, about 6 % of a send (tests/bench/README.md).
 * - Rx: one recvmmsg of up to ZVS_BATCH frames into pool buffers, [virtio_net_hdr]
 *   [frame]. PACKET_OUTGOING is skipped should IGNORE_OUTGOING be missing. A tag the
 *   kernel moved into packet metadata is put back in front (headroom), csum_start and
 *   hdr_len moved with it.
 * - Tx: one sendmmsg per burst. EAGAIN/ENOBUFS: at most ZVS_AFP_TX_RETRIES waits of
 *   1 ms, then NO_BUFFER; ENETDOWN (after one retry)/ENXIO, or an ENOBUFS for which the
 *   driver says the carrier is gone: LINK_DOWN; other errors refuse only the frame at
 *   fault (TX_FAIL).
 * - Hazards: the ENETDOWN a link-down leaves on the socket (see uplink_common.c); a
 *   deleted interface leaves the socket bound to nothing until a reopen by name. The
 *   virtio-net header of packet sockets is host order (legacy virtio), as zvs_vnet is.
 */
#include "backends/uplink_afpacket.h"

#include <assert.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <linux/if.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>

#include "backends/ifinfo.h"
#include "backends/uplink_common.h"
#include "backends/virtio_hdr.h"
#include "dataplane/pool.h"

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23       /* Linux 4.20 */
#endif

#define AFP_VH_LEN     ((uint32_t)sizeof(struct virtio_net_hdr))
#define AFP_HEADROOM   64               /* vnet header + room to put a VLAN tag back */
#define AFP_VH_OFF     32               /* vnet header sits this far before the frame */
#define AFP_BUF_SIZE   (65536 + 256)    /* a 64 KiB super-frame with its headers */
#define AFP_RCVBUF     (8 << 20)
#define AFP_SNDBUF     (4 << 20)
#define AFP_TX_IOV     (1 + ZVS_FRAME_PIECES_MAX + 2)   /* vnet header, pieces, tag */

_Static_assert(sizeof(struct virtio_net_hdr) == 10, "virtio_net_hdr layout");
_Static_assert(AFP_VH_OFF >= (int)sizeof(struct virtio_net_hdr) + ZVS_VLAN_HLEN &&
               AFP_VH_OFF <= AFP_HEADROOM, "vnet header must not meet a restored tag");

union afp_cmsg {
    struct cmsghdr align;
    uint8_t        buf[CMSG_SPACE(sizeof(struct tpacket_auxdata))];
};

struct afp {
    struct zvs_uplink         up;       /* first: port, socket, bound ifindex, MAC, pool */
    struct zvs_afpacket_stats stats;
    /* rx vectors, rebuilt per call, allocated once */
    struct mmsghdr            rx_msg[ZVS_BATCH];
    struct iovec              rx_iov[ZVS_BATCH][2];
    struct sockaddr_ll        rx_addr[ZVS_BATCH];
    union afp_cmsg            rx_cmsg[ZVS_BATCH];
    int32_t                   rx_idx[ZVS_BATCH];
    /* tx vectors */
    struct mmsghdr            tx_msg[ZVS_BATCH];
    struct iovec              tx_iov[ZVS_BATCH][AFP_TX_IOV];
    struct virtio_net_hdr     tx_vh[ZVS_BATCH];
    uint8_t                   tx_tag[ZVS_BATCH][4];
};

static const struct zvs_port_ops afp_ops;

static struct afp *afp_of(const struct zvs_port *p)
{
    assert(p && p->ops == &afp_ops);
    return p->backend;
}

/* ---- socket setup --------------------------------------------------------------------- */

static int set_int(int fd, int level, int opt, int val)
{
    return setsockopt(fd, level, opt, &val, sizeof(val)) < 0 ? -errno : 0;
}

/* A big buffer absorbs bursts; FORCE passes rmem_max/wmem_max when we are root. */
static void set_buf(int fd, int force_opt, int opt, int bytes)
{
    if (set_int(fd, SOL_SOCKET, force_opt, bytes) < 0)
        (void)set_int(fd, SOL_SOCKET, opt, bytes);
}

/* Make a socket on interface `name`, the one frames are written to (`tx`) or the one
 * they are read from; *fi gets the interface's facts. Returns the fd, or -errno. */
int zvs_uplink_afpacket_socket(const char *name, struct zvs_ifinfo *fi, bool tx)
{
    int rc;
    /* Protocol 0: nothing is queued before bind() names the interface. */
    int fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    if ((rc = zvs_ifinfo_read(fd, name, fi)) < 0)
        goto fail;
    if ((rc = set_int(fd, SOL_PACKET, PACKET_VNET_HDR, 1)) < 0 ||
        (!tx && (rc = set_int(fd, SOL_PACKET, PACKET_AUXDATA, 1)) < 0))
        goto fail;
    /* Optional: older kernels lack them; rx then skips PACKET_OUTGOING itself and tx
     * goes through the qdisc. The read socket keeps the sending options too: it is the
     * one a caller sees (zvs_uplink_afpacket_fd) and may write a frame on. */
    (void)set_int(fd, SOL_PACKET, PACKET_QDISC_BYPASS, 1);
    set_buf(fd, SO_SNDBUFFORCE, SO_SNDBUF, AFP_SNDBUF);
    if (!tx) {
        (void)set_int(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, 1);
        set_buf(fd, SO_RCVBUFFORCE, SO_RCVBUF, AFP_RCVBUF);
    }

    /* The written socket is bound with protocol 0: it names the interface for sending
     * and registers no receive hook, so no frame is ever queued on it. */
    struct sockaddr_ll sll = {
        .sll_family = AF_PACKET,
        .sll_protocol = tx ? 0 : htons(ETH_P_ALL),
        .sll_ifindex = fi->ifindex,
    };
    if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
        rc = -errno;
        goto fail;
    }
    /* Promiscuous for this socket only; the kernel undoes it when the socket closes. */
    struct packet_mreq mr = { .mr_ifindex = fi->ifindex, .mr_type = PACKET_MR_PROMISC };
    if (!tx && setsockopt(fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof(mr)) < 0) {
        rc = -errno;
        goto fail;
    }
    return fd;
fail:
    close(fd);
    return rc;
}

/* Both sockets on interface `name`, on the same ifindex (the name may have moved to a new
 * interface between the two). Returns 0 with *rx and *tx, or -errno (none left open). */
static int afp_sockets(const char *name, struct zvs_ifinfo *fi, int *rx, int *tx)
{
    struct zvs_ifinfo txfi;
    int r = zvs_uplink_afpacket_socket(name, fi, false);
    if (r < 0)
        return r;
    int t = zvs_uplink_afpacket_socket(name, &txfi, true);
    if (t >= 0 && txfi.ifindex != fi->ifindex) {
        close(t);
        t = -EAGAIN;
    }
    if (t < 0) {
        close(r);
        return t;
    }
    *rx = r;
    *tx = t;
    return 0;
}

/* ---- rx ------------------------------------------------------------------------------ */

static const struct tpacket_auxdata *find_aux(struct msghdr *mh)
{
    for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
        if (c->cmsg_level == SOL_PACKET && c->cmsg_type == PACKET_AUXDATA &&
            c->cmsg_len >= CMSG_LEN(sizeof(struct tpacket_auxdata)))
            return (const struct tpacket_auxdata *)(const void *)CMSG_DATA(c);
    }
    return NULL;
}

static void rx_prepare(struct afp *a, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        uint8_t *data = zvs_pool_data(a->up.pool, a->rx_idx[i]);
        struct msghdr *mh = &a->rx_msg[i].msg_hdr;
        a->rx_iov[i][0].iov_base = data - AFP_VH_OFF;
        a->rx_iov[i][0].iov_len = AFP_VH_LEN;
        a->rx_iov[i][1].iov_base = data;
        a->rx_iov[i][1].iov_len = zvs_pool_buf_size(a->up.pool);
        memset(mh, 0, sizeof(*mh));
        mh->msg_name = &a->rx_addr[i];
        mh->msg_namelen = sizeof(a->rx_addr[i]);
        mh->msg_iov = a->rx_iov[i];
        mh->msg_iovlen = 2;
        mh->msg_control = a->rx_cmsg[i].buf;
        mh->msg_controllen = sizeof(a->rx_cmsg[i].buf);
        a->rx_msg[i].msg_len = 0;
    }
}

/* Turn received message i into a frame; false if it is to be dropped. */
static bool rx_one(struct afp *a, uint32_t i, struct zvs_frame *f)
{
    struct msghdr *mh = &a->rx_msg[i].msg_hdr;
    uint8_t *data = zvs_pool_data(a->up.pool, a->rx_idx[i]);
    const struct virtio_net_hdr *vh = (const void *)(data - AFP_VH_OFF);
    struct zvs_vnet v;

    if (a->rx_addr[i].sll_pkttype == PACKET_OUTGOING) {
        a->stats.rx_outgoing++;
        return false;
    }
    if (mh->msg_flags & MSG_TRUNC) {
        a->stats.rx_truncated++;
        return false;
    }
    if (a->rx_msg[i].msg_len < AFP_VH_LEN) {
        a->stats.rx_bad_vnet++;
        return false;
    }
    uint32_t len = a->rx_msg[i].msg_len - AFP_VH_LEN;
    if (!zvs_virtio_hdr_decode(vh, false, len, &v)) {
        a->stats.rx_bad_vnet++;
        return false;
    }
    uint8_t *start = data;
    const struct tpacket_auxdata *aux = find_aux(mh);
    if (aux && (aux->tp_status & TP_STATUS_VLAN_VALID) && len >= 2 * ZVS_ETH_ALEN) {
        uint16_t tpid = (aux->tp_status & TP_STATUS_VLAN_TPID_VALID) ? aux->tp_vlan_tpid
                                                                    : ZVS_ETHERTYPE_VLAN;
        /* Headroom is ours: the tag goes back in front of the frame. */
        start = data - ZVS_VLAN_HLEN;
        len = zvs_packet_tag_restore(start, len, tpid, aux->tp_vlan_tci, &v);
        a->stats.rx_vlan_restored++;
    }
    memset(f, 0, sizeof(*f));
    f->data = start;
    f->len = len;
    f->vnet = v;
    f->in_port = a->up.port.index;
    f->cookie = (uint64_t)a->rx_idx[i];
    return true;
}

static int afp_rx(struct zvs_port *p, struct zvs_frame *out, int max)
{
    struct afp *a = afp_of(p);
    int r = -1, n = 0;
    uint32_t got = zvs_uplink_rx_take(&a->up, a->rx_idx, max, &a->stats.rx_no_buffer);
    if (got == 0)
        return 0;
    rx_prepare(a, got);
    /* ENETDOWN is the kernel's note that the link went down, perhaps long ago; EINVAL
     * means one frame's offload state had no virtio-net form and was dropped. Neither
     * says anything about the frames queued behind them. */
    for (int attempt = 0; attempt < 4 && r < 0; attempt++) {
        r = recvmmsg(a->up.fd, a->rx_msg, got, MSG_DONTWAIT, NULL);
        if (r >= 0 || errno == EAGAIN || errno == EWOULDBLOCK)
            break;
        if (errno == EINVAL)
            a->stats.rx_bad_vnet++;
        else if (errno != ENETDOWN && errno != EINTR)
            break;
        rx_prepare(a, got);
    }
    if (r < 0) {
        if (errno != EAGAIN && errno != EWOULDBLOCK) {
            a->stats.rx_errors++;
            a->stats.last_errno = errno;
        }
        r = 0;
    }
    for (uint32_t i = 0; i < (uint32_t)r; i++) {
        if (rx_one(a, i, &out[n]))
            n++;
        else
            zvs_pool_put(a->up.pool, a->rx_idx[i]);
    }
    zvs_uplink_rx_give_back(&a->up, a->rx_idx, (uint32_t)r, got);
    a->stats.rx_frames += (uint64_t)n;
    return n;
}

/* ---- tx ------------------------------------------------------------------------------ */

/* Build the messages for up to ZVS_BATCH frames; returns how many were built. Frames that
 * cannot be described are refused here. */
static int tx_build(struct afp *a, const struct zvs_tx *txs, int cnt, enum zvs_drop *why)
{
    int m = 0;
    for (int i = 0; i < cnt; i++) {
        const struct zvs_frame *f = txs[i].f;
        enum zvs_tag_op op = (enum zvs_tag_op)txs[i].tag_op;
        struct iovec *iov = a->tx_iov[m];
        int k = -1;

        struct zvs_vnet v = zvs_frame_vnet_after_op(f, op);
        if (zvs_virtio_hdr_encode(&v, false, &a->tx_vh[m]))
            k = zvs_frame_iov(f, op, txs[i].vid, a->tx_tag[m], iov + 1, AFP_TX_IOV - 1);
        if (k < 0) {
            a->stats.tx_fail++;
            *why = ZVS_DROP_TX_FAIL;
            continue;
        }
        iov[0].iov_base = &a->tx_vh[m];
        iov[0].iov_len = AFP_VH_LEN;
        memset(&a->tx_msg[m], 0, sizeof(a->tx_msg[m]));
        a->tx_msg[m].msg_hdr.msg_iov = iov;
        a->tx_msg[m].msg_hdr.msg_iovlen = (size_t)k + 1;
        m++;
    }
    return m;
}

/* Send the built messages; returns how many went. Sets *down when the link is down. */
static int tx_send(struct afp *a, int m, enum zvs_drop *why, bool *down)
{
    int i = 0, sent = 0, waits = 0;
    bool retried_down = false, probed = false;

    while (i < m) {
        int r = sendmmsg(a->up.txfd, &a->tx_msg[i], (unsigned)(m - i), MSG_DONTWAIT);
        if (r > 0) {
            i += r;
            sent += r;
            continue;
        }
        int err = r < 0 ? errno : EAGAIN;
        if (err == EINTR)
            continue;
        if (err == ENOBUFS && zvs_uplink_tx_link_gone(&a->up, &probed, &a->stats.tx_link_probes))
            err = ENXIO;
        if (err == EAGAIN || err == EWOULDBLOCK || err == ENOBUFS) {
            if (waits++ < ZVS_AFP_TX_RETRIES) {
                zvs_uplink_tx_wait(&a->up, err, &a->stats.tx_waits);
                continue;
            }
            a->stats.tx_no_buffer += (uint64_t)(m - i);
            *why = ZVS_DROP_NO_BUFFER;
            break;
        }
        if (err == ENETDOWN && !retried_down) {
            retried_down = true;        /* perhaps only the stale note of an old link-down */
            continue;
        }
        if (err == ENETDOWN || err == ENXIO) {
            a->stats.tx_link_down += (uint64_t)(m - i);
            a->up.port.carrier = false;
            *why = ZVS_DROP_LINK_DOWN;
            *down = true;
            break;
        }
        /* EMSGSIZE, EINVAL, ...: the frame at fault is refused, the rest still go. */
        a->stats.tx_fail++;
        a->stats.last_errno = err;
        *why = ZVS_DROP_TX_FAIL;
        i++;
    }
    a->stats.tx_frames += (uint64_t)sent;
    return sent;
}

static int afp_tx(struct zvs_port *p, const struct zvs_tx *txs, int n, enum zvs_drop *why)
{
    struct afp *a = afp_of(p);
    int sent = 0;
    bool down = false;

    for (int base = 0; base < n; base += ZVS_BATCH) {
        int cnt = n - base < ZVS_BATCH ? n - base : ZVS_BATCH;
        if (down) {
            a->stats.tx_link_down += (uint64_t)cnt;
            continue;
        }
        int m = tx_build(a, txs + base, cnt, why);
        sent += tx_send(a, m, why, &down);
    }
    return sent;
}

static void afp_flush(struct zvs_port *p)
{
    (void)p;                            /* each tx burst is one sendmmsg already */
}

static void afp_destroy(struct zvs_port *p)
{
    if (!p)
        return;
    struct afp *a = afp_of(p);
    if (a->up.fd >= 0)
        close(a->up.fd);
    if (a->up.txfd >= 0)
        close(a->up.txfd);
    zvs_uplink_fini(&a->up);
    free(a);
}

static int afp_carrier_now(struct zvs_port *p)
{
    struct afp *a = afp_of(p);
    return zvs_ifinfo_link_now(a->up.fd, a->up.ifname);
}

static const struct zvs_port_ops afp_ops = {
    .kind = "afpacket",
    .tx = afp_tx,
    .rx = afp_rx,
    .rx_release = zvs_uplink_rx_release,
    .flush = afp_flush,
    .destroy = afp_destroy,
    .fd = zvs_uplink_fd,
    .link_event = zvs_uplink_afpacket_link_event,
    .carrier_now = afp_carrier_now,
};

/* ---- public API ---------------------------------------------------------------------- */

struct zvs_port *zvs_uplink_afpacket_open(const char *ifname, int *err)
{
    struct zvs_ifinfo fi;
    int rc = -ENOMEM;
    struct afp *a = calloc(1, sizeof(*a));
    if (!a)
        goto fail;
    a->up.port.backend = a;
    rc = zvs_uplink_init(&a->up, &afp_ops, ifname, ZVS_AFP_POOL_BUFS, AFP_BUF_SIZE,
                         AFP_HEADROOM);
    if (rc < 0)
        goto fail;
    a->up.port.caps = ZVS_CAP_CSUM | ZVS_CAP_GSO;
    a->up.port.max_gso = 65535;
    rc = afp_sockets(a->up.ifname, &fi, &a->up.fd, &a->up.txfd);
    if (rc < 0)
        goto fail;
    a->up.ifindex = fi.ifindex;
    zvs_uplink_apply(&a->up, &fi);
    return &a->up.port;
fail:
    if (a)
        afp_destroy(&a->up.port);
    if (err)
        *err = rc;
    return NULL;
}

int zvs_uplink_afpacket_fd(const struct zvs_port *p)
{
    return afp_of(p)->up.fd;
}

int zvs_uplink_afpacket_ifindex(const struct zvs_port *p)
{
    return afp_of(p)->up.ifindex;
}

void zvs_uplink_afpacket_mac(const struct zvs_port *p, uint8_t mac[6])
{
    memcpy(mac, afp_of(p)->up.mac, ZVS_ETH_ALEN);
}

int zvs_uplink_afpacket_reopen(struct zvs_port *p)
{
    struct afp *a = afp_of(p);
    struct zvs_ifinfo fi;
    int rx, tx;
    int rc = afp_sockets(a->up.ifname, &fi, &rx, &tx);
    if (rc < 0)
        return rc;
    if (a->up.fd >= 0)
        close(a->up.fd);
    if (a->up.txfd >= 0)
        close(a->up.txfd);
    a->up.fd = rx;
    a->up.txfd = tx;
    a->up.ifindex = fi.ifindex;
    zvs_uplink_apply(&a->up, &fi);
    a->stats.reopens++;
    return 0;
}

int zvs_uplink_afpacket_link_event(struct zvs_port *p, int ifindex, bool carrier, bool exists)
{
    (void)afp_of(p);
    /* A deleted interface leaves the socket bound to nothing: only a new ifindex, never
     * a failed read, says the socket must be rebuilt. */
    return zvs_uplink_link_event(p, ifindex, carrier, exists, false, zvs_uplink_afpacket_reopen);
}

void zvs_uplink_afpacket_stats(const struct zvs_port *p, struct zvs_afpacket_stats *out)
{
    *out = afp_of(p)->stats;
}
