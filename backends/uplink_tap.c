/* uplink_tap: an RDEV on a tap the system made (see uplink_tap.h).
 *
 * - Owns: the tap's descriptor (/dev/net/tun attached by name: IFF_TAP | IFF_NO_PI |
 *   IFF_VNET_HDR, non-blocking, the 24-byte tunnel header, little endian), the receive
 *   pool and the shared uplink head (uplink_common.h). Nothing is allocated per frame.
 * - Rx: up to a burst of reads, one frame each, [header][frame] into a pool buffer, the
 *   burst ended at 1 MiB (UTAP_RX_BURST_BYTES); a header the codec refuses drops its
 *   frame (rx_bad_vnet).
 * - Tx: one writev per frame, [header][the frame's iovecs]: a tap has no sendmmsg, and
 *   each write is the kernel's receive of one frame (no queue to fill, no EAGAIN to wait
 *   out). EIO/ENXIO/EBADFD: the tap is down or gone, LINK_DOWN for the rest of the burst;
 *   anything else refuses the frame at fault (TX_FAIL).
 * - Hazards: ioctls that ask about the interface go through a datagram socket of the
 *   port's own (a tun descriptor answers SIOCGIFINDEX and SIOCGIFFLAGS with EINVAL).
 */
#include "backends/uplink_tap.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <linux/if_tun.h>

#include "backends/ifinfo.h"
#include "backends/uplink_common.h"
#include "backends/virtio_hdr.h"

#ifndef TUN_F_UDP_TUNNEL_GSO
#define TUN_F_UDP_TUNNEL_GSO      0x080 /* Linux 6.16 */
#define TUN_F_UDP_TUNNEL_GSO_CSUM 0x100
#endif

#define UTAP_VH_LEN    ZVS_VIRTIO_HDR_TNL_LEN
#define UTAP_HEADROOM  64               /* the header sits right before the frame */
#define UTAP_BUF_SIZE  (65536 + 256)    /* a 64 KiB super-frame with its headers */
/* A burst ends once it holds this much: 16 whole super-frames. A burst of ZVS_BATCH
 * 64 KiB frames, and the bursts the owner reads while each comes back full, would fill
 * a guest's QDIO input queue (128 buffers, one super-frame each) before the guest's
 * side is run again; a shorter burst ends the owner's reading for this wake-up. */
#define UTAP_RX_BURST_BYTES (1u << 20)
#define UTAP_TX_IOV    (1 + ZVS_FRAME_PIECES_MAX + 2)   /* vnet header, pieces, tag */

_Static_assert(UTAP_VH_LEN <= UTAP_HEADROOM, "the header fits the headroom");

struct utap {
    struct zvs_uplink           up;     /* first: port, tap fd, ifindex, MAC, pool */
    int                         ctl;    /* a datagram socket for interface ioctls */
    struct zvs_uplink_tap_stats stats;
    bool                        tunnel_want;    /* a VXLAN uplink's underlay: on */
    int32_t                     rx_idx[ZVS_BATCH];
    struct iovec                tx_iov[UTAP_TX_IOV];
    uint8_t                     tx_tag[4];
};

static const struct zvs_port_ops utap_ops;

static struct utap *utap_of(const struct zvs_port *p)
{
    assert(p && p->ops == &utap_ops);
    return p->backend;
}

/* The offloads on fd: TSO and checksums, and the UDP tunnel ones when `tunnel`. */
static int utap_offload(int fd, bool tunnel)
{
    static const unsigned base = TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN;
    unsigned long off = base | (tunnel ? TUN_F_UDP_TUNNEL_GSO | TUN_F_UDP_TUNNEL_GSO_CSUM : 0);

    return ioctl(fd, TUNSETOFFLOAD, off) == 0 ? 0 : -errno;
}

/* Attach a descriptor to tap `name`; *tunnel_ok says whether the kernel takes the tunnel
 * offloads, which stay on only when `want_tunnel` (a VXLAN uplink's underlay): on
 * anything else the kernel hands over tunnel traffic segmented, as no switch port but a
 * VXLAN uplink can take a tunnel super-frame (dataplane/frame.h). Returns the fd, or
 * -errno; -ENODEV when no persistent tap of that name exists. */
static int utap_attach(const char *name, bool want_tunnel, bool *tunnel_ok)
{
    struct ifreq ifr;
    int sz = (int)UTAP_VH_LEN, le = 1, rc;

    if (if_nametoindex(name) == 0)
        return -ENODEV;
    int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    memset(&ifr, 0, sizeof ifr);
    ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", name);
    if (ioctl(fd, TUNSETIFF, &ifr) < 0)
        goto fail;
    /* The tap is the system's: if it went away after the name was looked up, TUNSETIFF
     * made a new one, not persistent and wired to nothing; closing it deletes it, and
     * the RDEV waits for the system's tap as for any missing device. */
    if (ioctl(fd, TUNGETIFF, &ifr) < 0)
        goto fail;
    if (!(ifr.ifr_flags & IFF_PERSIST)) {
        close(fd);
        return -ENODEV;
    }
    if (ioctl(fd, TUNSETVNETHDRSZ, &sz) < 0 || ioctl(fd, TUNSETVNETLE, &le) < 0)
        goto fail;
    *tunnel_ok = utap_offload(fd, true) == 0;
    if ((!want_tunnel || !*tunnel_ok) && (rc = utap_offload(fd, false)) < 0) {
        close(fd);
        return rc;
    }
    return fd;
fail:
    rc = -errno;
    close(fd);
    return rc;
}

/* The tap's facts, its MAC turned into the far end's (uplink_tap.h). */
static int utap_facts(struct utap *t, struct zvs_ifinfo *fi)
{
    int rc = zvs_ifinfo_read(t->ctl, t->up.ifname, fi);

    if (rc == 0)
        fi->mac[5] = (uint8_t)~fi->mac[5];
    return rc;
}

static int utap_reopen(struct zvs_port *p)
{
    struct utap *t = utap_of(p);
    struct zvs_ifinfo fi;
    bool tunnel;
    int fd = utap_attach(t->up.ifname, t->tunnel_want, &tunnel), rc;

    if (fd < 0)
        return fd;
    if ((rc = utap_facts(t, &fi)) < 0) {
        close(fd);
        return rc;
    }
    if (t->up.fd >= 0)
        close(t->up.fd);
    t->up.fd = fd;
    t->up.ifindex = fi.ifindex;
    t->up.port.caps = ZVS_CAP_CSUM | ZVS_CAP_GSO | (tunnel ? ZVS_CAP_UDP_TUNNEL_GSO : 0);
    zvs_uplink_apply(&t->up, &fi);
    return 0;
}

/* ---- rx ------------------------------------------------------------------------------ */

static int utap_rx(struct zvs_port *p, struct zvs_frame *out, int max)
{
    struct utap *t = utap_of(p);
    uint32_t got = zvs_uplink_rx_take(&t->up, t->rx_idx, max, &t->stats.rx_no_buffer), used = 0;
    uint32_t bytes = 0;
    int n = 0;

    /* Refused frames take no buffer, so the reads are bounded too: a stream of them ends
     * the burst like a full one. */
    for (int reads = 0; used < got && bytes < UTAP_RX_BURST_BYTES && reads < 2 * ZVS_BATCH;
         reads++) {
        uint8_t *data = zvs_pool_data(t->up.pool, t->rx_idx[used]);
        struct zvs_virtio_hdr_tnl *vh = (void *)(data - UTAP_VH_LEN);
        struct iovec iov[2] = {
            { .iov_base = vh, .iov_len = UTAP_VH_LEN },
            { .iov_base = data, .iov_len = zvs_pool_buf_size(t->up.pool) },
        };
        ssize_t r = readv(t->up.fd, iov, 2);

        if (r == 0)
            break;
        if (r < 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                t->stats.rx_errors++;
                t->stats.last_errno = errno;
            }
            break;
        }
        struct zvs_frame *f = &out[n];
        uint32_t len = r > (ssize_t)UTAP_VH_LEN ? (uint32_t)r - UTAP_VH_LEN : 0;

        memset(f, 0, sizeof *f);
        if (len < ZVS_ETH_MIN_LEN || !zvs_virtio_hdr_tnl_decode(vh, len, &f->vnet)) {
            t->stats.rx_bad_vnet++;
            continue;                   /* the buffer is read into again */
        }
        f->data = data;
        f->len = len;
        f->in_port = p->index;
        f->cookie = (uint64_t)t->rx_idx[used++];
        bytes += len;
        if (f->vnet.gso_type & ZVS_VNET_GSO_UDP_TUNNEL)
            t->stats.rx_tunnel_gso++;
        n++;
    }
    zvs_uplink_rx_give_back(&t->up, t->rx_idx, used, got);
    t->stats.rx_frames += (uint64_t)n;
    return n;
}

/* ---- tx ------------------------------------------------------------------------------ */

static int utap_tx(struct zvs_port *p, const struct zvs_tx *txs, int n, enum zvs_drop *why)
{
    struct utap *t = utap_of(p);
    struct zvs_virtio_hdr_tnl vh;
    int sent = 0;

    for (int i = 0; i < n; i++) {
        const struct zvs_frame *f = txs[i].f;
        enum zvs_tag_op op = (enum zvs_tag_op)txs[i].tag_op;
        struct zvs_vnet v = zvs_frame_vnet_after_op(f, op);
        int k = -1;

        if (zvs_virtio_hdr_tnl_encode(&v, &vh))
            k = zvs_frame_iov(f, op, txs[i].vid, t->tx_tag, t->tx_iov + 1, UTAP_TX_IOV - 1);
        if (k < 0) {
            t->stats.tx_fail++;
            *why = ZVS_DROP_TX_FAIL;
            continue;
        }
        t->tx_iov[0] = (struct iovec){ .iov_base = &vh, .iov_len = UTAP_VH_LEN };
        ssize_t w;
        do
            w = writev(t->up.fd, t->tx_iov, k + 1);
        while (w < 0 && errno == EINTR);
        if (w >= 0) {
            sent++;
            if (v.gso_type & ZVS_VNET_GSO_UDP_TUNNEL)
                t->stats.tx_tunnel_gso++;
            continue;
        }
        t->stats.last_errno = errno;
        if (errno == EIO || errno == ENXIO || errno == EBADFD) {
            t->stats.tx_link_down += (uint64_t)(n - i);
            t->up.port.carrier = false;
            *why = ZVS_DROP_LINK_DOWN;
            break;
        }
        t->stats.tx_fail++;
        *why = ZVS_DROP_TX_FAIL;
    }
    t->stats.tx_frames += (uint64_t)sent;
    return sent;
}

static void utap_destroy(struct zvs_port *p)
{
    if (!p)
        return;
    struct utap *t = utap_of(p);
    if (t->up.fd >= 0)
        close(t->up.fd);
    if (t->ctl >= 0)
        close(t->ctl);
    zvs_uplink_fini(&t->up);
    free(t);
}

static int utap_carrier_now(struct zvs_port *p)
{
    struct utap *t = utap_of(p);
    return zvs_ifinfo_link_now(t->ctl, t->up.ifname);
}

/* The port op: kept across a reopen (utap_attach asks for it again). */
static int utap_tunnel_gso(struct zvs_port *p, bool on)
{
    struct utap *t = utap_of(p);

    if (on && !(p->caps & ZVS_CAP_UDP_TUNNEL_GSO))
        return -EOPNOTSUPP;             /* the kernel does not take the offload */
    t->tunnel_want = on;
    return t->up.fd < 0 || !(p->caps & ZVS_CAP_UDP_TUNNEL_GSO) ? 0 : utap_offload(t->up.fd, on);
}

static int utap_link_event(struct zvs_port *p, int ifindex, bool carrier, bool exists)
{
    struct utap *t = utap_of(p);
    struct zvs_ifinfo fi;
    int rc = zvs_uplink_link_event(p, ifindex, carrier, exists, false, utap_reopen);

    /* The shared handling asks the polled descriptor for the facts, which a tun
     * descriptor does not answer: mtu and MAC are read again here. */
    if (rc == 0 && exists && utap_facts(t, &fi) == 0) {
        t->up.port.mtu = fi.mtu;
        memcpy(t->up.mac, fi.mac, ZVS_ETH_ALEN);
    }
    if (rc == 1)
        t->stats.reopens++;
    return rc;
}

static const struct zvs_port_ops utap_ops = {
    .kind = "rdevtap",
    .tx = utap_tx,
    .rx = utap_rx,
    .rx_release = zvs_uplink_rx_release,
    /* no flush: every write is the kernel's receive already */
    .destroy = utap_destroy,
    .fd = zvs_uplink_fd,
    .link_event = utap_link_event,
    .carrier_now = utap_carrier_now,
    .tunnel_gso = utap_tunnel_gso,
};

/* ---- public API ---------------------------------------------------------------------- */

struct zvs_port *zvs_uplink_tap_open(const char *ifname, int *err)
{
    int rc = -ENOMEM;
    struct utap *t = calloc(1, sizeof *t);

    if (!t)
        goto fail;
    t->ctl = -1;
    t->up.port.backend = t;
    rc = zvs_uplink_init(&t->up, &utap_ops, ifname, ZVS_UTAP_POOL_BUFS, UTAP_BUF_SIZE,
                         UTAP_HEADROOM);
    if (rc < 0)
        goto fail;
    t->ctl = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (t->ctl < 0) {
        rc = -errno;
        goto fail;
    }
    t->up.port.max_gso = 65535;
    if ((rc = utap_reopen(&t->up.port)) < 0)
        goto fail;
    return &t->up.port;
fail:
    if (t)
        utap_destroy(&t->up.port);
    if (err)
        *err = rc;
    return NULL;
}

void zvs_uplink_tap_mac(const struct zvs_port *p, uint8_t mac[6])
{
    memcpy(mac, utap_of(p)->up.mac, ZVS_ETH_ALEN);
}

void zvs_uplink_tap_stats(const struct zvs_port *p, struct zvs_uplink_tap_stats *out)
{
    *out = utap_of(p)->stats;
}
