/* uplink_pcap: uplink backend on a Linux interface through libpcap (see uplink_pcap.h).
 *
 * Design note.
 * - Why it exists: the portable alternative to uplink_afpacket, selectable per RDEVICE
 *   (BACKEND PCAP), so the choice of AF_PACKET + PACKET_VNET_HDR is measured side by
 *   side (tests/integration/lab_pcap.sh against lab_basic.sh), not asserted.
 * - Owns: one pcap_t (pcap_create; snaplen ZVS_PCAP_SNAPLEN, promiscuous, immediate
 *   mode, a ZVS_PCAP_BUFFER ring, non-blocking, direction PCAP_D_IN so our own
 *   transmissions never come back, PACKET_QDISC_BYPASS on its socket), a frame pool of ZVS_PCAP_POOL_BUFS receive buffers
 *   and one tx scratch buffer, all made at open: nothing is allocated per frame.
 *   libpcap 1.10 on Linux builds a TPACKET_V2 ring in immediate mode (V3 would batch
 *   frames behind a timer) whose slots are 64 KiB + 18 when the interface has offloads
 *   on, else MTU + 18.
 * - Rx: one pcap_dispatch of at most as many frames as the pool gave buffers (at most
 *   ZVS_BATCH); each frame is copied out of the ring into a pool buffer (libpcap has
 *   already put an 802.1Q tag taken into packet metadata back into the bytes). Frames
 *   captured shorter than they were (caplen < len) are dropped and counted.
 * - Offloads on ingress, the honest way without metadata: libpcap cannot say that a
 *   frame's checksum is only partial or that it is a GSO super-frame, and a veth peer
 *   with offloads on sends both. So for every IPv4/IPv6 TCP and UDP frame
 *   (zvs_vnet_parse): NEEDS_CSUM with csum_start/csum_offset at the L4 checksum, and the
 *   field rewritten to the pseudo-header sum, since it may hold that sum or a finished
 *   checksum and either way completion must give the right result. A TCP frame whose IP
 *   datagram is longer than the MTU is also a GSO super-frame (TCPV4/TCPV6, ECN when CWR
 *   is set, gso_size = MTU - IP and TCP headers, hdr_len = all headers), so the switch
 *   segments it for an egress that cannot take it whole. Exceptions: IPv4 UDP with
 *   checksum 0 means "no checksum" and stays so; a frame with Ethernet padding after its
 *   IP datagram (only frames under 60 bytes; never a partial-checksum sender's) is
 *   checksummed here, over the datagram only, because completion sums to the frame end.
 *   UDP super-frames (UDP_L4 GSO) cannot be rebuilt: segment sizes are not in the bytes;
 *   they pass unmarked and the switch drops them as oversize.
 * - Cost of that honesty: every byte of every TCP/UDP frame from this port is summed once
 *   more, by the egress fix-up of each port without ZVS_CAP_CSUM (an AF_PACKET or tap
 *   port with CSUM hands the partial checksum on and the summing happens in the next
 *   kernel or NIC instead). And checksums from the LAN stop being end-to-end: a frame
 *   corrupted before it reached us gets a fresh, valid checksum (the Ethernet FCS still
 *   guards the wire itself).
 * - Tx: caps 0, so the switch hands only finished frames no longer than the MTU: one
 *   pcap_inject per frame, straight from the frame's bytes when nothing is to be edited,
 *   else copied to scratch with zvs_frame_emit (tag edit, scattered frames; a partial
 *   checksum some caller left is completed there too). GSO frames are refused (TX_FAIL).
 *   EAGAIN/ENOBUFS: at most ZVS_PCAP_TX_RETRIES waits of 1 ms per burst, then the rest are
 *   NO_BUFFER; ENETDOWN (after one retry: the kernel's note of an old link-down is
 *   reported once by the next send), ENXIO, or an ENOBUFS for which the driver says the
 *   carrier is gone (zvs_ifinfo_link_now, once per burst): carrier down, the rest are
 *   LINK_DOWN; any other error refuses only the frame at fault (TX_FAIL).
 * - Link events: libpcap (1.10) keeps reading after a down/up; a deleted interface makes
 *   every pcap_dispatch fail ("The interface disappeared"), and activating a handle on
 *   an interface that is down fails. So the port may have no handle (opened while down,
 *   or a reopen failed), and link_event rebuilds the handle when the interface exists, is
 *   up and the handle is missing, failed a read, or is bound to an older ifindex.
 * - Hazards: pcap_inject's errno is read at once (libpcap formats its message first but
 *   keeps errno); libpcap also copies every frame we send into our own ring and drops it
 *   there for PCAP_D_IN, a cost AF_PACKET avoids with PACKET_IGNORE_OUTGOING.
 */
#include "backends/uplink_pcap.h"

#include <assert.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/if.h>
#include <linux/if_packet.h>
#include <pcap/pcap.h>

#include "backends/ifinfo.h"
#include "backends/uplink_common.h"
#include "dataplane/pool.h"
#include "dataplane/vnet.h"

#define PCP_HEADROOM   64               /* unused by this backend; the pool's minimum */
#define PCP_BUF_SIZE   (65536 + 256)    /* a 64 KiB super-frame with its headers */
#define TCP_CSUM_OFF   16               /* checksum field within the TCP header */
#define UDP_CSUM_OFF   6                /* ... within the UDP header */
#define TCP_FLAG_CWR   0x80

struct pcp {
    struct zvs_uplink     up;           /* first: port, pcap_get_selectable_fd (-1 without
                                           handle), ifindex at open/reopen, MAC, pool */
    pcap_t               *pc;           /* NULL while there is no handle */
    bool                  failed;       /* the handle failed a read: rebuild when back */
    uint8_t              *tx_buf;       /* PCP_BUF_SIZE: frames that need an edit */
    struct zvs_pcap_stats stats;
    /* rx state of the pcap_dispatch in progress (the callback's view) */
    struct zvs_frame     *rx_out;
    uint32_t              rx_got;       /* buffers taken for this dispatch */
    uint32_t              rx_used;      /* of them, filled */
    int32_t               rx_idx[ZVS_BATCH];
};

static const struct zvs_port_ops pcp_ops;

static struct pcp *pcp_of(const struct zvs_port *p)
{
    assert(p && p->ops == &pcp_ops);
    return p->backend;
}

static void note_error(struct pcp *a, int err, const char *text)
{
    a->stats.last_errno = err;
    snprintf(a->stats.last_error, sizeof(a->stats.last_error), "%s", text ? text : "");
}

/* ---- interface facts (through a throwaway socket: a port may have no handle) ---------- */

/* Read ifindex, mtu, MAC and carrier of the interface; -ENODEV when it is gone. */
static int pcp_refresh(struct pcp *a)
{
    struct zvs_ifinfo fi;
    int rc = zvs_ifinfo_read(-1, a->up.ifname, &fi);
    if (rc < 0)
        return rc;
    a->up.ifindex = fi.ifindex;
    zvs_uplink_apply(&a->up, &fi);
    return 0;
}

/* ---- the libpcap handle ---------------------------------------------------------------- */

static int activate_errno(int rc)
{
    switch (rc) {
    case PCAP_ERROR_NO_SUCH_DEVICE: return -ENODEV;
    case PCAP_ERROR_PERM_DENIED:    return -EPERM;
    case PCAP_ERROR_IFACE_NOT_UP:   return -ENETDOWN;
    default:                        return -EIO;
    }
}

/* Make an active handle on the interface; *out gets it. Returns 0 or -errno, with
 * libpcap's text in the stats. */
static int pcp_handle(struct pcp *a, pcap_t **out)
{
    char errbuf[PCAP_ERRBUF_SIZE] = "";
    int rc = -EIO;

    pcap_t *pc = pcap_create(a->up.ifname, errbuf);
    if (!pc) {
        note_error(a, EIO, errbuf);
        return -EIO;
    }
    if (pcap_set_snaplen(pc, ZVS_PCAP_SNAPLEN) != 0 || pcap_set_promisc(pc, 1) != 0 ||
        pcap_set_immediate_mode(pc, 1) != 0 || pcap_set_buffer_size(pc, ZVS_PCAP_BUFFER) != 0)
        goto fail;
    int act = pcap_activate(pc);
    if (act < 0) {
        rc = activate_errno(act);
        goto fail;
    }
    /* Warnings (act > 0: promiscuous mode refused, ...) leave a working handle. */
    if (pcap_datalink(pc) != DLT_EN10MB) {
        rc = -EPROTONOSUPPORT;          /* not Ethernet: a tun, a cooked "any" */
        goto fail;
    }
    if (pcap_setnonblock(pc, 1, errbuf) != 0 || pcap_setdirection(pc, PCAP_D_IN) != 0 ||
        pcap_get_selectable_fd(pc) < 0)
        goto fail;
    /* As uplink_afpacket: frames go straight to the driver. Through the qdisc, a link
     * whose carrier linkwatch has just taken gets the noop qdisc, which drops and reports
     * success; bypassed, the driver refuses with ENOBUFS and the switch moves the frames
     * to a survivor. Optional: an old kernel sends through the qdisc. */
    int one = 1;
    (void)setsockopt(pcap_get_selectable_fd(pc), SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one));
    *out = pc;
    return 0;
fail:
    note_error(a, -rc, errbuf[0] ? errbuf : pcap_geterr(pc));
    pcap_close(pc);
    return rc;
}

static void pcp_install(struct pcp *a, pcap_t *pc)
{
    if (a->pc)
        pcap_close(a->pc);
    a->pc = pc;
    a->up.fd = pc ? pcap_get_selectable_fd(pc) : -1;
    a->failed = false;
}

/* ---- rx ------------------------------------------------------------------------------ */

/* Mark the offload state a TCP/UDP frame may be in (see the design note). d is the
 * frame in our own buffer, writable. */
static void rx_offloads(struct pcp *a, uint8_t *d, uint32_t len, struct zvs_vnet *v)
{
    struct zvs_l4_hdrs h;

    if (zvs_vnet_parse(d, len, &h) < 0)
        return;                         /* not IPv4/IPv6 TCP/UDP: nothing to complete */
    bool tcp = h.l4_proto == ZVS_IPPROTO_TCP;
    uint16_t off = tcp ? TCP_CSUM_OFF : UDP_CSUM_OFF;
    uint8_t *field = d + h.l4_off + off;
    uint32_t l4_len = h.ip_end - h.l4_off;

    if (!tcp && h.ip_ver == 4 && zvs_be16(field) == 0)
        return;                         /* IPv4 UDP without checksum */
    /* Pseudo-header: the IPv4 and IPv6 word sums agree for lengths below 64 KiB. */
    const uint8_t *ip = d + h.l3_off;
    uint8_t tail[4] = { 0, h.l4_proto, (uint8_t)(l4_len >> 8), (uint8_t)l4_len };
    uint16_t seed = h.ip_ver == 4 ? zvs_csum_add(0, ip + 12, 8) : zvs_csum_add(0, ip + 8, 32);
    seed = zvs_csum_add(seed, tail, sizeof(tail));
    zvs_put_be16(field, seed);
    if (h.ip_end < len) {
        /* Padding behind the datagram: completion would sum it too. Finish it here
         * (the field holds the seed now, so the sum over the datagram includes it). */
        uint16_t c = (uint16_t)~zvs_csum_add(0, d + h.l4_off, l4_len);
        zvs_put_be16(field, c ? c : 0xFFFF);
        v->flags = ZVS_VNET_F_DATA_VALID;
        a->stats.rx_csum_done++;
        return;
    }
    v->flags = ZVS_VNET_F_NEEDS_CSUM;
    v->csum_start = h.l4_off;
    v->csum_offset = off;
    a->stats.rx_csum_marked++;
    uint32_t hdrs = (uint32_t)h.hdr_len - h.l3_off;   /* IP + TCP headers */
    if (tcp && h.ip_end - h.l3_off > a->up.port.mtu && a->up.port.mtu > hdrs) {
        uint8_t ecn = (d[h.l4_off + 13] & TCP_FLAG_CWR) ? ZVS_VNET_GSO_ECN : 0;
        v->gso_type = (uint8_t)((h.ip_ver == 4 ? ZVS_VNET_GSO_TCPV4 : ZVS_VNET_GSO_TCPV6) | ecn);
        v->gso_size = (uint16_t)(a->up.port.mtu - hdrs);
        v->hdr_len = h.hdr_len;
        a->stats.rx_gso_marked++;
    }
}

static void rx_cb(u_char *user, const struct pcap_pkthdr *hdr, const u_char *bytes)
{
    struct pcp *a = (struct pcp *)(void *)user;

    if (hdr->caplen < hdr->len || hdr->caplen > zvs_pool_buf_size(a->up.pool)) {
        a->stats.rx_truncated++;
        return;
    }
    /* libpcap calls back at most as often as the count we gave it: there is a buffer. */
    assert(a->rx_used < a->rx_got);
    int32_t idx = a->rx_idx[a->rx_used];
    uint8_t *d = zvs_pool_data(a->up.pool, idx);
    struct zvs_frame *f = &a->rx_out[a->rx_used++];

    memcpy(d, bytes, hdr->caplen);
    memset(f, 0, sizeof(*f));
    f->data = d;
    f->len = hdr->caplen;
    f->in_port = a->up.port.index;
    f->cookie = (uint64_t)idx;
    rx_offloads(a, d, hdr->caplen, &f->vnet);
}

static int pcp_rx(struct zvs_port *p, struct zvs_frame *out, int max)
{
    struct pcp *a = pcp_of(p);

    if (!a->pc)
        return 0;
    a->rx_got = zvs_uplink_rx_take(&a->up, a->rx_idx, max, &a->stats.rx_no_buffer);
    if (a->rx_got == 0)
        return 0;
    a->rx_used = 0;
    a->rx_out = out;
    int r = pcap_dispatch(a->pc, (int)a->rx_got, rx_cb, (u_char *)(void *)a);
    if (r < 0) {
        a->stats.rx_errors++;
        a->failed = true;               /* rebuilt by link_event when the interface is back */
        note_error(a, EIO, pcap_geterr(a->pc));
    }
    zvs_uplink_rx_give_back(&a->up, a->rx_idx, a->rx_used, a->rx_got);
    a->rx_out = NULL;
    a->stats.rx_frames += a->rx_used;
    return (int)a->rx_used;
}

/* ---- tx ------------------------------------------------------------------------------ */

/* The bytes to inject for tx (its own when nothing is to be edited, else the scratch
 * copy); *len gets their length. NULL if the frame cannot be written by this port. */
static const uint8_t *tx_bytes(struct pcp *a, const struct zvs_tx *tx, uint32_t *len)
{
    const struct zvs_frame *f = tx->f;
    enum zvs_tag_op op = (enum zvs_tag_op)tx->tag_op;
    struct zvs_vnet v;

    if (f->vnet.gso_type != ZVS_VNET_GSO_NONE)
        return NULL;                    /* caps say no GSO: the switch segments */
    if (op == ZVS_TAG_KEEP && f->nfrags == 0 && !(f->vnet.flags & ZVS_VNET_F_NEEDS_CSUM)) {
        *len = f->len;
        return f->data;
    }
    if (zvs_frame_out_len(f, op) > PCP_BUF_SIZE)
        return NULL;
    *len = zvs_frame_emit(f, op, tx->vid, a->tx_buf, &v);
    if (zvs_vnet_csum_complete(a->tx_buf, *len, &v) < 0)
        return NULL;
    a->stats.tx_copied++;
    return a->tx_buf;
}

/* One pcap_inject with the burst's retry budget; returns 0 or the errno that stopped it.
 * The first ENOBUFS of a burst asks the driver whether the carrier is gone (a veth whose
 * peer went down refuses with ENOBUFS before linkwatch has told anyone): then ENXIO. */
static int tx_inject(struct pcp *a, const uint8_t *bytes, uint32_t len, int *waits, bool *probed)
{
    bool retried_down = false;
    for (;;) {
        int r = pcap_inject(a->pc, bytes, len);
        if (r == (int)len)
            return 0;
        int err = r < 0 ? errno : EIO;  /* before anything else can change it */
        if (err == EINTR)
            continue;
        if (err == ENOBUFS && zvs_uplink_tx_link_gone(&a->up, probed, &a->stats.tx_link_probes))
            return ENXIO;
        if ((err == EAGAIN || err == EWOULDBLOCK || err == ENOBUFS) &&
            (*waits)++ < ZVS_PCAP_TX_RETRIES) {
            zvs_uplink_tx_wait(&a->up, err, &a->stats.tx_waits);
            continue;
        }
        if (err == ENETDOWN && !retried_down) {
            retried_down = true;        /* perhaps only the stale note of an old link-down */
            continue;
        }
        if (r >= 0)
            note_error(a, EIO, "short write");
        else
            note_error(a, err, pcap_geterr(a->pc));
        return err;
    }
}

static int pcp_tx(struct zvs_port *p, const struct zvs_tx *txs, int n, enum zvs_drop *why)
{
    struct pcp *a = pcp_of(p);
    int sent = 0, waits = 0;
    bool probed = false;

    if (!a->pc) {
        a->stats.tx_link_down += (uint64_t)n;
        p->carrier = false;
        *why = ZVS_DROP_LINK_DOWN;
        return 0;
    }
    for (int i = 0; i < n; i++) {
        uint32_t len = 0;
        const uint8_t *bytes = tx_bytes(a, &txs[i], &len);
        if (!bytes) {
            a->stats.tx_fail++;
            *why = ZVS_DROP_TX_FAIL;
            continue;
        }
        int err = tx_inject(a, bytes, len, &waits, &probed);
        if (err == 0) {
            sent++;
            continue;
        }
        if (err == EAGAIN || err == EWOULDBLOCK || err == ENOBUFS) {
            a->stats.tx_no_buffer += (uint64_t)(n - i);
            *why = ZVS_DROP_NO_BUFFER;
            break;
        }
        if (err == ENETDOWN || err == ENXIO) {
            a->stats.tx_link_down += (uint64_t)(n - i);
            p->carrier = false;
            *why = ZVS_DROP_LINK_DOWN;
            break;
        }
        a->stats.tx_fail++;             /* EMSGSIZE, EINVAL, ...: only this frame */
        *why = ZVS_DROP_TX_FAIL;
    }
    a->stats.tx_frames += (uint64_t)sent;
    return sent;
}

static void pcp_flush(struct zvs_port *p)
{
    (void)p;                            /* every frame went out with its own pcap_inject */
}

static void pcp_destroy(struct zvs_port *p)
{
    if (!p)
        return;
    struct pcp *a = pcp_of(p);
    if (a->pc)
        pcap_close(a->pc);
    zvs_uplink_fini(&a->up);
    free(a->tx_buf);
    free(a);
}

static int pcp_carrier_now(struct zvs_port *p)
{
    struct pcp *a = pcp_of(p);
    return zvs_ifinfo_link_now(a->up.fd, a->up.ifname);
}

static const struct zvs_port_ops pcp_ops = {
    .kind = "pcap",
    .tx = pcp_tx,
    .rx = pcp_rx,
    .rx_release = zvs_uplink_rx_release,
    .flush = pcp_flush,
    .destroy = pcp_destroy,
    .fd = zvs_uplink_fd,
    .link_event = zvs_uplink_pcap_link_event,
    .carrier_now = pcp_carrier_now,
};

/* ---- public API ---------------------------------------------------------------------- */

struct zvs_port *zvs_uplink_pcap_open(const char *ifname, int *err)
{
    pcap_t *pc = NULL;
    int rc = -ENOMEM;
    struct pcp *a = calloc(1, sizeof(*a));
    if (!a)
        goto fail;
    a->up.port.backend = a;
    rc = zvs_uplink_init(&a->up, &pcp_ops, ifname, ZVS_PCAP_POOL_BUFS, PCP_BUF_SIZE,
                         PCP_HEADROOM);
    if (rc < 0)
        goto fail;
    rc = -ENOMEM;
    a->tx_buf = malloc(PCP_BUF_SIZE);
    if (!a->tx_buf)
        goto fail;
    a->up.port.caps = 0;                /* the switch completes and segments for us */
    a->up.port.max_gso = 0;
    rc = pcp_refresh(a);
    if (rc < 0)
        goto fail;
    rc = pcp_handle(a, &pc);
    if (rc == -ENETDOWN) {
        a->up.port.carrier = false;     /* down: link_event makes the handle */
        return &a->up.port;
    }
    if (rc < 0)
        goto fail;
    pcp_install(a, pc);
    return &a->up.port;
fail:
    if (a)
        pcp_destroy(&a->up.port);
    if (err)
        *err = rc;
    return NULL;
}

int zvs_uplink_pcap_fd(const struct zvs_port *p)
{
    return pcp_of(p)->up.fd;
}

int zvs_uplink_pcap_ifindex(const struct zvs_port *p)
{
    return pcp_of(p)->up.ifindex;
}

void zvs_uplink_pcap_mac(const struct zvs_port *p, uint8_t mac[6])
{
    memcpy(mac, pcp_of(p)->up.mac, ZVS_ETH_ALEN);
}

int zvs_uplink_pcap_reopen(struct zvs_port *p)
{
    struct pcp *a = pcp_of(p);
    pcap_t *pc = NULL;
    int rc = pcp_handle(a, &pc);
    if (rc < 0)
        return rc;
    rc = pcp_refresh(a);
    if (rc < 0) {
        pcap_close(pc);
        return rc;
    }
    pcp_install(a, pc);
    a->stats.reopens++;
    return 0;
}

int zvs_uplink_pcap_link_event(struct zvs_port *p, int ifindex, bool carrier, bool exists)
{
    struct pcp *a = pcp_of(p);
    /* Besides a new ifindex, a missing handle (opened while down, or a failed reopen)
     * or one that failed a read (libpcap gives up on a deleted interface) is rebuilt. */
    return zvs_uplink_link_event(p, ifindex, carrier, exists, !a->pc || a->failed,
                                 zvs_uplink_pcap_reopen);
}

void zvs_uplink_pcap_stats(const struct zvs_port *p, struct zvs_pcap_stats *out)
{
    const struct pcp *a = pcp_of(p);
    struct pcap_stat ps;

    *out = a->stats;
    if (a->pc && pcap_stats(a->pc, &ps) == 0)
        out->kernel_drops = ps.ps_drop;
}
