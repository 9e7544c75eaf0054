/* uplink_afpacket on a veth pair in the test's own network namespace (skipped when the
 * process may not make one): the backend on "va", a raw AF_PACKET socket (the peer) on
 * "vb". Exact bytes both ways, scattered frames, VLAN tags on the wire and restored on
 * receive, partial checksums and TCP super-frames with their virtio-net metadata both
 * ways, refused frames that do not stop a burst, pool recycling, link down/up, the far
 * end going down (link-down at once, from the driver) and delete/re-create. Everything lives and dies with the namespace of this process. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <poll.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>

#include "backends/ifinfo.h"
#include "backends/uplink_afpacket.h"
#include "netns.h"

static const uint8_t MAC_A[6] = { 0x02, 0, 0, 0, 0x0a, 0x01 };
static const uint8_t MAC_X[6] = { 0x02, 0, 0, 0, 0x0c, 0x01 };  /* nobody's: no stack reacts */

static bool netns_ok;

/* ---- namespace and interfaces -------------------------------------------------------- */

static void make_veth(void)
{
    tnet_veth_add("va", "02:00:00:00:0a:01", "vb", "02:00:00:00:0b:01");
}

static int setup_netns(void **state)
{
    netns_ok = tnet_enter();
    if (netns_ok)
        make_veth();
    return 0;
}

/* ---- the backend side ----------------------------------------------------------------- */

static int port_rx(struct zvs_port *p, struct zvs_frame *fr, int max)
{
    return tnet_port_rx(p, zvs_uplink_afpacket_fd, fr, max);
}

static int tx1(struct zvs_port *p, const struct zvs_frame *f, enum zvs_tag_op op, uint16_t vid,
               enum zvs_drop *why)
{
    struct zvs_tx tx = { .f = f, .tag_op = (uint8_t)op, .vid = vid };
    return p->ops->tx(p, &tx, 1, why);
}

static struct zvs_afpacket_stats stats_of(const struct zvs_port *p)
{
    struct zvs_afpacket_stats s;
    zvs_uplink_afpacket_stats(p, &s);
    return s;
}

static struct zvs_port *open_va(void)
{
    int err = 0;
    struct zvs_port *p = zvs_uplink_afpacket_open("va", &err);
    if (!p)
        fail_msg("open va: %s", strerror(-err));
    return p;
}

/* ---- frames ---------------------------------------------------------------------------- */

static uint32_t make_frame(uint8_t *buf, uint32_t len, uint8_t seed)
{
    return tnet_frame(buf, len, seed, MAC_X, MAC_A);
}

/* An IPv4/TCP frame (optionally 802.1Q tagged) whose TCP checksum field holds the
 * pseudo-header sum, as a sender with checksum offload leaves it (CHECKSUM_PARTIAL).
 * *l4 gets the TCP header offset. */
static uint32_t make_tcp(uint8_t *buf, uint32_t payload, bool tagged, uint32_t *l4)
{
    uint32_t o = 0;
    memcpy(buf, MAC_X, 6);
    memcpy(buf + 6, MAC_A, 6);
    o = 12;
    if (tagged) {
        zvs_put_be16(buf + o, 0x8100);
        zvs_put_be16(buf + o + 2, 7);
        o += 4;
    }
    zvs_put_be16(buf + o, 0x0800);
    o += 2;
    uint8_t *ip = buf + o;
    uint32_t tot = 20 + 20 + payload;
    memset(ip, 0, 20);
    ip[0] = 0x45;
    zvs_put_be16(ip + 2, (uint16_t)tot);
    zvs_put_be16(ip + 4, 0x1234);
    ip[6] = 0x40;                       /* DF */
    ip[8] = 64;
    ip[9] = 6;
    memcpy(ip + 12, "\x0a\x00\x00\x01", 4);
    memcpy(ip + 16, "\x0a\x00\x00\x02", 4);
    zvs_put_be16(ip + 10, (uint16_t)~tnet_csum_fold(tnet_csum_add(0, ip, 20)));
    uint8_t *th = ip + 20;
    memset(th, 0, 20);
    zvs_put_be16(th, 40000);
    zvs_put_be16(th + 2, 5001);
    memcpy(th + 4, "\x00\x00\x10\x00", 4);
    memcpy(th + 8, "\x00\x00\x20\x00", 4);
    th[12] = 5 << 4;
    th[13] = 0x18;                      /* PSH ACK */
    zvs_put_be16(th + 14, 512);
    for (uint32_t i = 0; i < payload; i++)
        th[20 + i] = (uint8_t)(i * 13 + 1);
    uint32_t ps = tnet_csum_add(0, ip + 12, 8) + 6 + 20 + payload;
    zvs_put_be16(th + 16, tnet_csum_fold(ps));
    *l4 = (uint32_t)(th - buf);
    return (uint32_t)(th - buf) + 20 + payload;
}

/* Finish a partial checksum the way the hardware would. */
static void csum_complete(uint8_t *buf, uint32_t len, uint32_t start, uint32_t off)
{
    uint16_t c = (uint16_t)~tnet_csum_fold(tnet_csum_add(0, buf + start, len - start));
    zvs_put_be16(buf + start + off, c);
}

/* True if the TCP checksum of the frame (IPv4 at l4 - 20) verifies. */
static bool tcp_csum_ok(const uint8_t *buf, uint32_t len, uint32_t l4)
{
    const uint8_t *ip = buf + l4 - 20;
    uint32_t sum = tnet_csum_add(0, ip + 12, 8) + 6 + (len - l4);
    return tnet_csum_fold(tnet_csum_add(sum, buf + l4, len - l4)) == 0xFFFF;
}

/* ---- tests ------------------------------------------------------------------------------ */

static void test_open_reads_interface(void **state)
{
    int err = 0;
    if (!netns_ok)
        skip();
    assert_null(zvs_uplink_afpacket_open("nosuch0", &err));
    assert_int_equal(err, -ENODEV);
    assert_null(zvs_uplink_afpacket_open("", &err));
    assert_int_equal(err, -EINVAL);
    assert_null(zvs_uplink_afpacket_open("a-name-too-long0", &err));
    assert_int_equal(err, -EINVAL);

    struct zvs_port *p = open_va();
    uint8_t mac[6];
    assert_string_equal(p->ops->kind, "afpacket");
    assert_string_equal(p->name, "va");
    assert_int_equal(p->role, ZVS_PORT_UPLINK);
    assert_int_equal(p->caps, ZVS_CAP_CSUM | ZVS_CAP_GSO);
    assert_int_equal(p->max_gso, 65535);
    assert_int_equal(p->mtu, 1500);
    assert_true(p->carrier);
    zvs_uplink_afpacket_mac(p, mac);
    assert_memory_equal(mac, MAC_A, 6);
    assert_int_equal(zvs_uplink_afpacket_ifindex(p), tnet_ifindex("va"));
    assert_true(zvs_uplink_afpacket_fd(p) >= 0);
    int fl = fcntl(zvs_uplink_afpacket_fd(p), F_GETFL);
    assert_true(fl & O_NONBLOCK);
    struct zvs_frame fr[ZVS_BATCH];
    assert_int_equal(p->ops->rx(p, fr, ZVS_BATCH), 0);   /* nothing queued, no wait */
    /* The socket options the design rests on. */
    int fd = zvs_uplink_afpacket_fd(p), v = 0;
    socklen_t sl = sizeof(v);
    assert_int_equal(getsockopt(fd, SOL_PACKET, PACKET_VNET_HDR, &v, &sl), 0);
    assert_int_equal(v, 1);
    assert_int_equal(getsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &v, &sl), 0);
    assert_int_equal(v, 1);
    assert_int_equal(getsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &v, &sl), 0);
    assert_int_equal(v, 1);
    assert_int_equal(getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, &sl), 0);
    assert_true(v >= 8 << 20);          /* forced past rmem_max: we are root here */
    assert_int_equal(getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, &sl), 0);
    assert_true(v >= 4 << 20);
    /* Promiscuous through the socket's membership, gone with the socket. */
    assert_int_equal(system("ip -d link show va | grep -q ' promiscuity 1 '"), 0);
    p->ops->destroy(p);
    assert_int_equal(system("ip -d link show va | grep -q ' promiscuity 0 '"), 0);

    tnet_sh("ip link set va mtu 9000");
    p = open_va();
    assert_int_equal(p->mtu, 9000);
    p->ops->destroy(p);
    tnet_sh("ip link set va mtu 1500");
}

static void test_tx_exact_bytes(void **state)
{
    if (!netns_ok)
        skip();
    struct zvs_port *p = open_va();
    int peer = tnet_peer_open("vb", false);
    uint8_t a[60], b[1514], c[200], got[2048];
    enum zvs_drop why = ZVS_DROP__COUNT;

    make_frame(a, sizeof(a), 1);
    make_frame(b, sizeof(b), 2);
    make_frame(c, sizeof(c), 3);
    struct iovec frags[3] = { { c, 18 }, { c + 18, 100 }, { c + 118, 82 } };
    struct zvs_frame fa = { .data = a, .len = 60 };
    struct zvs_frame fb = { .data = b, .len = 1514 };
    struct zvs_frame fc = { .data = c, .len = 200, .nfrags = 3, .frags = frags };
    struct zvs_tx txs[3] = { { .f = &fa }, { .f = &fb }, { .f = &fc } };
    assert_int_equal(p->ops->tx(p, txs, 3, &why), 3);
    assert_int_equal(why, ZVS_DROP__COUNT);
    assert_int_equal(tnet_peer_recv(peer, got, sizeof(got), NULL), 60);
    assert_memory_equal(got, a, 60);
    assert_int_equal(tnet_peer_recv(peer, got, sizeof(got), NULL), 1514);
    assert_memory_equal(got, b, 1514);
    assert_int_equal(tnet_peer_recv(peer, got, sizeof(got), NULL), 200);
    assert_memory_equal(got, c, 200);
    assert_true(tnet_peer_quiet(peer));
    /* Our own transmissions never come back to our rx. */
    struct zvs_frame fr[ZVS_BATCH];
    assert_int_equal(p->ops->rx(p, fr, ZVS_BATCH), 0);
    struct zvs_afpacket_stats s = stats_of(p);
    assert_int_equal(s.tx_frames, 3);
    assert_int_equal(s.rx_frames, 0);
    close(peer);
    p->ops->destroy(p);
}

static void test_rx_exact_bytes_and_pool_recycling(void **state)
{
    if (!netns_ok)
        skip();
    struct zvs_port *p = open_va();
    int peer = tnet_peer_open("vb", false);

    p->index = 5;
    tnet_rx_rounds(p, zvs_uplink_afpacket_fd, peer, ZVS_AFP_POOL_BUFS, MAC_X, MAC_A);
    struct zvs_afpacket_stats s = stats_of(p);
    assert_int_equal(s.rx_frames, 300);
    assert_int_equal(s.rx_no_buffer, 0);
    assert_int_equal(s.rx_outgoing, 0);

    /* A switch that holds every buffer gets nothing more (counted), and the frames wait
     * in the socket until buffers come back. */
    static struct zvs_frame held[ZVS_AFP_POOL_BUFS + 4];
    tnet_rx_hold_all(p, zvs_uplink_afpacket_fd, peer, held, ZVS_AFP_POOL_BUFS, MAC_X, MAC_A);
    assert_int_equal(stats_of(p).rx_no_buffer, 1);
    tnet_rx_give_back(p, zvs_uplink_afpacket_fd, held, ZVS_AFP_POOL_BUFS, MAC_X, MAC_A);
    close(peer);
    p->ops->destroy(p);
}

static void test_vlan_tags_on_the_wire(void **state)
{
    if (!netns_ok)
        skip();
    struct zvs_port *p = open_va();
    int peer = tnet_peer_open("vb", false);
    uint8_t buf[128], want[132], got[2048];
    struct zvs_frame fr[ZVS_BATCH];
    enum zvs_drop why;

    /* PUSH VID 100, PCP 3: TCI 0x6064 between the MAC addresses and the ethertype. */
    make_frame(buf, 100, 9);
    struct zvs_frame f = { .data = buf, .len = 100, .pcp = 3 };
    assert_int_equal(tx1(p, &f, ZVS_TAG_PUSH, 100, &why), 1);
    memcpy(want, buf, 12);
    memcpy(want + 12, "\x81\x00\x60\x64", 4);
    memcpy(want + 16, buf + 12, 88);
    assert_int_equal(tnet_peer_recv(peer, got, sizeof(got), NULL), 104);
    assert_memory_equal(got, want, 104);

    /* A tagged frame from the wire reaches the switch with its tag in the bytes. */
    tnet_peer_send(peer, want, 104, NULL);
    assert_int_equal(port_rx(p, fr, ZVS_BATCH), 1);
    assert_int_equal(fr[0].len, 104);
    assert_memory_equal(fr[0].data, want, 104);
    p->ops->rx_release(p, fr, 1);
    /* 802.1ad S-tag (TPID 0x88A8) keeps its TPID; VID 0 priority tags are kept too. */
    memcpy(want + 12, "\x88\xA8\x00\x05", 4);
    tnet_peer_send(peer, want, 104, NULL);
    assert_int_equal(port_rx(p, fr, ZVS_BATCH), 1);
    assert_memory_equal(fr[0].data, want, 104);
    p->ops->rx_release(p, fr, 1);
    memcpy(want + 12, "\x81\x00\xE0\x00", 4);
    tnet_peer_send(peer, want, 104, NULL);
    assert_int_equal(port_rx(p, fr, ZVS_BATCH), 1);
    assert_memory_equal(fr[0].data, want, 104);
    p->ops->rx_release(p, fr, 1);

    /* STRIP on the way out gives the untagged bytes again. */
    struct zvs_frame t = { .data = want, .len = 104, .flags = ZVS_FF_TAGGED };
    assert_int_equal(tx1(p, &t, ZVS_TAG_STRIP, 0, &why), 1);
    assert_int_equal(tnet_peer_recv(peer, got, sizeof(got), NULL), 100);
    assert_memory_equal(got, buf, 100);
    assert_int_equal(stats_of(p).rx_vlan_restored, 3);
    close(peer);
    p->ops->destroy(p);
}

static void test_partial_csum_tx(void **state)
{
    if (!netns_ok)
        skip();
    struct zvs_port *p = open_va();
    int peer = tnet_peer_open("vb", true);
    uint8_t buf[256], ref[260], got[2048];
    struct virtio_net_hdr vh;
    uint32_t l4;
    enum zvs_drop why;

    uint32_t len = make_tcp(buf, 100, false, &l4);
    assert_int_equal(l4, 34);
    struct zvs_frame f = {
        .data = buf, .len = len,
        .vnet = { .flags = ZVS_VNET_F_NEEDS_CSUM, .csum_start = 34, .csum_offset = 16 },
    };
    assert_int_equal(tx1(p, &f, ZVS_TAG_KEEP, 0, &why), 1);
    assert_int_equal(tnet_peer_recv(peer, got, sizeof(got), &vh), (int)len);
    /* veth hands the partial checksum on with its metadata intact. */
    assert_int_equal(vh.flags, VIRTIO_NET_HDR_F_NEEDS_CSUM);
    assert_int_equal(vh.csum_start, 34);
    assert_int_equal(vh.csum_offset, 16);
    assert_int_equal(vh.gso_type, VIRTIO_NET_HDR_GSO_NONE);
    assert_memory_equal(got, buf, len);
    csum_complete(got, len, vh.csum_start, vh.csum_offset);
    assert_true(tcp_csum_ok(got, len, 34));

    /* With a tag pushed, csum_start must move by 4 or the sum lands in the IP header. */
    assert_int_equal(tx1(p, &f, ZVS_TAG_PUSH, 7, &why), 1);
    uint32_t tl4;
    uint32_t tlen = make_tcp(ref, 100, true, &tl4);
    assert_int_equal(tnet_peer_recv(peer, got, sizeof(got), &vh), (int)tlen);
    assert_memory_equal(got, ref, tlen);
    assert_int_equal(vh.flags, VIRTIO_NET_HDR_F_NEEDS_CSUM);
    assert_int_equal(vh.csum_start, 38);
    assert_int_equal(vh.csum_offset, 16);
    csum_complete(got, tlen, vh.csum_start, vh.csum_offset);
    assert_true(tcp_csum_ok(got, tlen, 38));
    close(peer);
    p->ops->destroy(p);
}

static void test_gso_super_frame_both_ways(void **state)
{
    if (!netns_ok)
        skip();
    struct zvs_port *p = open_va();
    int peer = tnet_peer_open("vb", true);
    static uint8_t buf[4096], got[65536];
    struct virtio_net_hdr vh;
    struct zvs_frame fr[ZVS_BATCH];
    uint32_t l4;
    enum zvs_drop why;

    /* 3000 bytes of payload in 1000-byte segments: one super-frame out... */
    uint32_t len = make_tcp(buf, 3000, false, &l4);
    struct zvs_frame f = {
        .data = buf, .len = len,
        .vnet = { .flags = ZVS_VNET_F_NEEDS_CSUM, .csum_start = 34, .csum_offset = 16,
                  .gso_type = ZVS_VNET_GSO_TCPV4, .gso_size = 1000, .hdr_len = 54 },
    };
    assert_true(len > p->mtu + 14);
    assert_int_equal(tx1(p, &f, ZVS_TAG_KEEP, 0, &why), 1);
    assert_int_equal(tnet_peer_recv(peer, got, sizeof(got), &vh), (int)len);
    assert_memory_equal(got, buf, len);
    assert_int_equal(vh.flags, VIRTIO_NET_HDR_F_NEEDS_CSUM);
    assert_int_equal(vh.gso_type, VIRTIO_NET_HDR_GSO_TCPV4);
    assert_int_equal(vh.gso_size, 1000);
    assert_int_equal(vh.csum_start, 34);
    assert_int_equal(vh.csum_offset, 16);
    assert_true(tnet_peer_quiet(peer));

    /* ...and one in, from the peer, with the metadata translated to struct zvs_vnet. */
    struct virtio_net_hdr pvh = {
        .flags = VIRTIO_NET_HDR_F_NEEDS_CSUM, .gso_type = VIRTIO_NET_HDR_GSO_TCPV4,
        .hdr_len = 54, .gso_size = 1000, .csum_start = 34, .csum_offset = 16,
    };
    tnet_peer_send(peer, buf, len, &pvh);
    assert_int_equal(port_rx(p, fr, ZVS_BATCH), 1);
    assert_int_equal(fr[0].len, len);
    assert_memory_equal(fr[0].data, buf, len);
    assert_int_equal(fr[0].vnet.flags, ZVS_VNET_F_NEEDS_CSUM);
    assert_int_equal(fr[0].vnet.gso_type, ZVS_VNET_GSO_TCPV4);
    assert_int_equal(fr[0].vnet.gso_size, 1000);
    assert_int_equal(fr[0].vnet.csum_start, 34);
    assert_int_equal(fr[0].vnet.csum_offset, 16);
    assert_true(fr[0].vnet.hdr_len >= 54 && fr[0].vnet.hdr_len <= len);
    p->ops->rx_release(p, fr, 1);

    /* A tagged partial-checksum frame in: csum_start counts the restored tag. */
    uint32_t tlen = make_tcp(buf, 100, true, &l4);
    struct virtio_net_hdr tvh = { .flags = VIRTIO_NET_HDR_F_NEEDS_CSUM, .csum_start = 38, .csum_offset = 16 };
    tnet_peer_send(peer, buf, tlen, &tvh);
    assert_int_equal(port_rx(p, fr, ZVS_BATCH), 1);
    assert_int_equal(fr[0].len, tlen);
    assert_memory_equal(fr[0].data, buf, tlen);
    assert_int_equal(fr[0].vnet.flags, ZVS_VNET_F_NEEDS_CSUM);
    assert_int_equal(fr[0].vnet.csum_start, 38);
    assert_int_equal(fr[0].vnet.csum_offset, 16);
    p->ops->rx_release(p, fr, 1);
    close(peer);
    p->ops->destroy(p);
}

static void test_refused_frames_do_not_stop_a_burst(void **state)
{
    if (!netns_ok)
        skip();
    struct zvs_port *p = open_va();
    int peer = tnet_peer_open("vb", false);
    static uint8_t a[60], big[1600], c[70], got[2048];
    enum zvs_drop why = ZVS_DROP__COUNT;

    make_frame(a, sizeof(a), 1);
    make_frame(big, sizeof(big), 2);
    make_frame(c, sizeof(c), 3);
    struct zvs_frame fa = { .data = a, .len = 60 };
    struct zvs_frame fbig = { .data = big, .len = 1600 };   /* > MTU, not a super-frame */
    struct zvs_frame fbad = { .data = c, .len = 70, .vnet = { .gso_type = 0x42, .gso_size = 9 } };
    struct zvs_frame fc = { .data = c, .len = 70 };
    struct zvs_tx txs[4] = { { .f = &fa }, { .f = &fbig }, { .f = &fbad }, { .f = &fc } };
    assert_int_equal(p->ops->tx(p, txs, 4, &why), 2);
    assert_int_equal(why, ZVS_DROP_TX_FAIL);
    assert_int_equal(tnet_peer_recv(peer, got, sizeof(got), NULL), 60);
    assert_memory_equal(got, a, 60);
    assert_int_equal(tnet_peer_recv(peer, got, sizeof(got), NULL), 70);
    assert_memory_equal(got, c, 70);
    assert_true(tnet_peer_quiet(peer));
    struct zvs_afpacket_stats s = stats_of(p);
    assert_int_equal(s.tx_frames, 2);
    assert_int_equal(s.tx_fail, 2);
    assert_int_equal(s.last_errno, EMSGSIZE);
    assert_true(p->carrier);
    close(peer);
    p->ops->destroy(p);
}

static void test_link_down_and_up(void **state)
{
    if (!netns_ok)
        skip();
    struct zvs_port *p = open_va();
    int peer = tnet_peer_open("vb", false);
    uint8_t buf[80], got[2048];
    struct zvs_frame fr[ZVS_BATCH];
    enum zvs_drop why = ZVS_DROP__COUNT;
    int idx = tnet_ifindex("va");

    make_frame(buf, 80, 4);
    struct zvs_frame f = { .data = buf, .len = 80 };
    struct zvs_tx txs[40];
    tnet_burst_of(txs, 40, &f);

    /* Down: every frame of the burst (two sendmmsg batches) is LINK_DOWN. */
    tnet_sh("ip link set va down");
    assert_int_equal(p->ops->tx(p, txs, 40, &why), 0);
    assert_int_equal(why, ZVS_DROP_LINK_DOWN);
    assert_false(p->carrier);
    assert_int_equal(stats_of(p).tx_link_down, 40);
    assert_int_equal(p->ops->rx(p, fr, ZVS_BATCH), 0);

    /* Up again, told as netlink_link would: traffic resumes both ways. */
    tnet_sh("ip link set va up");
    tnet_wait_running("va", true);
    assert_int_equal(zvs_uplink_afpacket_link_event(p, idx, true, true), 0);
    assert_true(p->carrier);
    assert_int_equal(tx1(p, &f, ZVS_TAG_KEEP, 0, &why), 1);
    assert_int_equal(tnet_peer_recv(peer, got, sizeof(got), NULL), 80);
    assert_memory_equal(got, buf, 80);
    tnet_peer_send(peer, buf, 80, NULL);
    assert_int_equal(port_rx(p, fr, ZVS_BATCH), 1);
    assert_memory_equal(fr[0].data, buf, 80);
    p->ops->rx_release(p, fr, 1);

    /* Down and up with nobody reading in between: the kernel's stale ENETDOWN note must
     * cost neither a received frame nor a sent one. */
    tnet_link_bounce("va");
    tnet_peer_send(peer, buf, 80, NULL);
    assert_int_equal(port_rx(p, fr, ZVS_BATCH), 1);
    assert_memory_equal(fr[0].data, buf, 80);
    p->ops->rx_release(p, fr, 1);
    tnet_link_bounce("va");
    assert_int_equal(tx1(p, &f, ZVS_TAG_KEEP, 0, &why), 1);
    assert_int_equal(tnet_peer_recv(peer, got, sizeof(got), NULL), 80);
    struct zvs_afpacket_stats s = stats_of(p);
    assert_int_equal(s.tx_link_down, 40);
    assert_int_equal(s.rx_errors, 0);   /* the stale note is not an error */
    assert_int_equal(s.last_errno, 0);
    assert_int_equal(zvs_uplink_afpacket_ifindex(p), idx);
    assert_int_equal(s.reopens, 0);
    close(peer);
    p->ops->destroy(p);
}

/* The far end goes down: the kernel refuses with ENOBUFS (the bypassed qdisc drops for a
 * carrier that is off) long before linkwatch tells netlink. The backend asks the driver
 * once and reports LINK_DOWN at once, without sleeping on a device queue that will never
 * drain; the switch can then move the frames to a survivor. */
static void test_peer_down_is_link_down_at_once(void **state)
{
    if (!netns_ok)
        skip();
    struct zvs_port *p = open_va();
    uint8_t buf[80];
    enum zvs_drop why = ZVS_DROP__COUNT;
    int idx = tnet_ifindex("va");
    int fd = zvs_uplink_afpacket_fd(p);

    assert_int_equal(zvs_ifinfo_link_now(fd, "va"), 1);
    assert_int_equal(zvs_ifinfo_link_now(fd, "ghost0"), -ENODEV);
    assert_int_equal(zvs_ifinfo_link_now(fd, "a/b"), -EINVAL);
    assert_int_equal(zvs_ifinfo_link_now(-1, "va"), -EINVAL);

    make_frame(buf, 80, 5);
    struct zvs_frame f = { .data = buf, .len = 80 };
    struct zvs_tx txs[40];
    tnet_burst_of(txs, 40, &f);

    tnet_sh("ip link set vb down");
    assert_int_equal(zvs_ifinfo_link_now(fd, "va"), 0);    /* no waiting for linkwatch */
    assert_int_equal(p->ops->tx(p, txs, 40, &why), 0);
    assert_int_equal(why, ZVS_DROP_LINK_DOWN);
    assert_false(p->carrier);
    struct zvs_afpacket_stats s = stats_of(p);
    assert_int_equal(s.tx_link_down, 40);
    assert_int_equal(s.tx_link_probes, 1);  /* once for the burst, not per frame */
    assert_int_equal(s.tx_waits, 0);
    assert_int_equal(s.tx_no_buffer, 0);
    assert_int_equal(s.tx_frames, 0);

    /* Back up, told as netlink_link would: the frames go again. */
    tnet_sh("ip link set vb up");
    tnet_wait_running("va", true);
    assert_int_equal(zvs_ifinfo_link_now(fd, "va"), 1);
    assert_int_equal(zvs_uplink_afpacket_link_event(p, idx, true, true), 0);
    assert_true(p->carrier);
    int peer = tnet_peer_open("vb", false);
    uint8_t got[2048];
    assert_int_equal(tx1(p, &f, ZVS_TAG_KEEP, 0, &why), 1);
    assert_int_equal(tnet_peer_recv(peer, got, sizeof(got), NULL), 80);
    assert_memory_equal(got, buf, 80);
    assert_int_equal(stats_of(p).tx_link_probes, 1);
    close(peer);
    p->ops->destroy(p);
}

static void test_delete_and_recreate(void **state)
{
    if (!netns_ok)
        skip();
    struct zvs_port *p = open_va();
    uint8_t buf[90], got[2048];
    struct zvs_frame fr[ZVS_BATCH];
    enum zvs_drop why = ZVS_DROP__COUNT;
    int old_idx = tnet_ifindex("va");
    int old_fd = zvs_uplink_afpacket_fd(p);

    make_frame(buf, 90, 6);
    struct zvs_frame f = { .data = buf, .len = 90 };
    tnet_sh("ip link del va");
    assert_int_equal(tx1(p, &f, ZVS_TAG_KEEP, 0, &why), 0);
    assert_int_equal(why, ZVS_DROP_LINK_DOWN);
    assert_false(p->carrier);
    assert_int_equal(zvs_uplink_afpacket_link_event(p, 0, false, false), 0);
    assert_int_equal(zvs_uplink_afpacket_ifindex(p), 0);
    assert_int_equal(zvs_uplink_afpacket_reopen(p), -ENODEV);   /* not back yet */
    assert_int_equal(zvs_uplink_afpacket_fd(p), old_fd);

    make_veth();
    int idx = tnet_ifindex("va");
    assert_true(idx > 0 && idx != old_idx);
    assert_int_equal(zvs_uplink_afpacket_link_event(p, idx, true, true), 1);
    assert_true(p->carrier);
    assert_int_equal(zvs_uplink_afpacket_ifindex(p), idx);
    assert_int_equal(stats_of(p).reopens, 1);

    int peer = tnet_peer_open("vb", false);
    assert_int_equal(tx1(p, &f, ZVS_TAG_KEEP, 0, &why), 1);
    assert_int_equal(tnet_peer_recv(peer, got, sizeof(got), NULL), 90);
    assert_memory_equal(got, buf, 90);
    tnet_peer_send(peer, buf, 90, NULL);
    assert_int_equal(port_rx(p, fr, ZVS_BATCH), 1);
    assert_int_equal(fr[0].len, 90);
    assert_memory_equal(fr[0].data, buf, 90);
    p->ops->rx_release(p, fr, 1);
    close(peer);
    p->ops->destroy(p);
}

/* Frames are written on a socket of their own, which takes nothing in and which nobody
 * polls (so the kernel's write-space wake-ups for every sent frame find no waiter): two
 * sockets a port, both rebuilt by a reopen, both closed by destroy. */
static void test_writes_on_a_socket_nobody_polls(void **state)
{
    if (!netns_ok)
        skip();
    int before = tnet_open_fds();
    struct zvs_port *p = open_va();
    assert_int_equal(tnet_open_fds(), before + 2);
    int peer = tnet_peer_open("vb", false);
    uint8_t buf[80], got[2048];
    enum zvs_drop why = ZVS_DROP__COUNT;
    make_frame(buf, 80, 7);
    struct zvs_frame f = { .data = buf, .len = 80 };
    struct zvs_tx txs[40];
    tnet_burst_of(txs, 40, &f);
    assert_int_equal(p->ops->tx(p, txs, 40, &why), 40);
    for (int i = 0; i < 40; i++)
        assert_int_equal(tnet_peer_recv(peer, got, sizeof(got), NULL), 80);
    /* Our own frames never make the polled socket readable. */
    struct pollfd pfd = { .fd = zvs_uplink_afpacket_fd(p), .events = POLLIN };
    assert_int_equal(poll(&pfd, 1, 50), 0);
    assert_int_equal(zvs_uplink_afpacket_reopen(p), 0);
    assert_int_equal(tnet_open_fds(), before + 3);      /* the two and the peer's */
    assert_int_equal(tx1(p, &f, ZVS_TAG_KEEP, 0, &why), 1);
    assert_int_equal(tnet_peer_recv(peer, got, sizeof(got), NULL), 80);
    assert_memory_equal(got, buf, 80);
    close(peer);
    p->ops->destroy(p);
    assert_int_equal(tnet_open_fds(), before);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_open_reads_interface),
        cmocka_unit_test(test_tx_exact_bytes),
        cmocka_unit_test(test_rx_exact_bytes_and_pool_recycling),
        cmocka_unit_test(test_vlan_tags_on_the_wire),
        cmocka_unit_test(test_partial_csum_tx),
        cmocka_unit_test(test_gso_super_frame_both_ways),
        cmocka_unit_test(test_refused_frames_do_not_stop_a_burst),
        cmocka_unit_test(test_link_down_and_up),
        cmocka_unit_test(test_peer_down_is_link_down_at_once),
        cmocka_unit_test(test_delete_and_recreate),
        cmocka_unit_test(test_writes_on_a_socket_nobody_polls),
    };
    return cmocka_run_group_tests_name("uplink_afpacket", tests, setup_netns, NULL);
}
