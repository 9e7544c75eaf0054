/* uplink_pcap on a veth pair in the test's own network namespace (skipped when the
 * process may not make one): the backend on "va", a raw AF_PACKET socket (the peer) on
 * "vb". Exact bytes both ways, scattered frames, VLAN tags pushed on the wire and kept
 * on receive, the offload marking of TCP/UDP frames that arrive without metadata
 * (wrong or partial checksums, super-frames from a peer with offloads on) checked by
 * completing and segmenting them as the switch would, refused frames that do not stop
 * a burst, pool recycling, link down/up, delete/re-create and opening while down.
 * Everything lives and dies with the namespace of this process. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>

#include "backends/uplink_pcap.h"
#include "dataplane/vnet.h"
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
    return tnet_port_rx(p, zvs_uplink_pcap_fd, fr, max);
}

static int tx1(struct zvs_port *p, const struct zvs_frame *f, enum zvs_tag_op op, uint16_t vid,
               enum zvs_drop *why)
{
    struct zvs_tx tx = { .f = f, .tag_op = (uint8_t)op, .vid = vid };
    return p->ops->tx(p, &tx, 1, why);
}

static struct zvs_pcap_stats stats_of(const struct zvs_port *p)
{
    struct zvs_pcap_stats s;
    zvs_uplink_pcap_stats(p, &s);
    return s;
}

static struct zvs_port *open_va(void)
{
    int err = 0;
    struct zvs_port *p = zvs_uplink_pcap_open("va", &err);
    if (!p)
        fail_msg("open va: %s", strerror(-err));
    return p;
}

/* ---- frames ---------------------------------------------------------------------------- */

static uint32_t make_frame(uint8_t *buf, uint32_t len, uint8_t seed)
{
    return tnet_frame(buf, len, seed, MAC_X, MAC_A);
}

struct l4_spec {
    uint8_t  ipver;                     /* 4 or 6 */
    uint8_t  proto;                     /* 6 TCP, 17 UDP */
    bool     tagged;                    /* 802.1Q VID 7 */
    uint32_t payload;
    uint8_t  tcp_flags;                 /* default PSH ACK */
};

/* The pseudo-header sum (folded, not complemented) of the frame's L4 part. */
static uint16_t pseudo(const uint8_t *buf, uint32_t l3, uint8_t ipver, uint8_t proto, uint32_t l4_len)
{
    uint32_t s = ipver == 4 ? tnet_csum_add(0, buf + l3 + 12, 8)
                            : tnet_csum_add(0, buf + l3 + 8, 32);
    return tnet_csum_fold(s + proto + l4_len);
}

/* An Ethernet [802.1Q] IPv4/IPv6 TCP/UDP frame with a CORRECT checksum. *l4 gets the L4
 * header offset; returns the frame length. */
static uint32_t make_l4(uint8_t *buf, const struct l4_spec *s, uint32_t *l4)
{
    uint32_t o = 12, hl = s->proto == 6 ? 20 : 8;
    memcpy(buf, MAC_X, 6);
    memcpy(buf + 6, MAC_A, 6);
    if (s->tagged) {
        zvs_put_be16(buf + o, 0x8100);
        zvs_put_be16(buf + o + 2, 7);
        o += 4;
    }
    zvs_put_be16(buf + o, s->ipver == 4 ? 0x0800 : 0x86DD);
    o += 2;
    uint32_t l3 = o;
    uint8_t *ip = buf + o;
    if (s->ipver == 4) {
        memset(ip, 0, 20);
        ip[0] = 0x45;
        zvs_put_be16(ip + 2, (uint16_t)(20 + hl + s->payload));
        zvs_put_be16(ip + 4, 0x1234);
        ip[6] = 0x40;                   /* DF */
        ip[8] = 64;
        ip[9] = s->proto;
        memcpy(ip + 12, "\x0a\x00\x00\x01\x0a\x00\x00\x02", 8);
        zvs_put_be16(ip + 10, (uint16_t)~tnet_csum_fold(tnet_csum_add(0, ip, 20)));
        o += 20;
    } else {
        memset(ip, 0, 40);
        ip[0] = 0x60;
        zvs_put_be16(ip + 4, (uint16_t)(hl + s->payload));
        ip[6] = s->proto;
        ip[7] = 64;
        ip[8] = 0xfd;
        ip[23] = 1;
        ip[24] = 0xfd;
        ip[39] = 2;
        o += 40;
    }
    uint8_t *th = buf + o;
    memset(th, 0, hl);
    zvs_put_be16(th, 40000);
    zvs_put_be16(th + 2, 5001);
    if (s->proto == 6) {
        memcpy(th + 4, "\x00\x00\x10\x00\x00\x00\x20\x00", 8);
        th[12] = 5 << 4;
        th[13] = s->tcp_flags ? s->tcp_flags : 0x18;
        zvs_put_be16(th + 14, 512);
    } else {
        zvs_put_be16(th + 4, (uint16_t)(8 + s->payload));
    }
    for (uint32_t i = 0; i < s->payload; i++)
        th[hl + i] = (uint8_t)(i * 13 + 1);
    uint32_t l4_len = hl + s->payload;
    uint16_t ps = pseudo(buf, l3, s->ipver, s->proto, l4_len);
    uint16_t c = (uint16_t)~tnet_csum_fold(tnet_csum_add(ps, th, l4_len));
    zvs_put_be16(th + (s->proto == 6 ? 16 : 6), c ? c : 0xFFFF);
    *l4 = o;
    return o + l4_len;
}

/* True if the L4 checksum of the frame (headers at l3/l4) verifies. */
static bool l4_csum_ok(const uint8_t *buf, uint32_t len, uint32_t l3, uint32_t l4,
                       uint8_t ipver, uint8_t proto)
{
    uint16_t ps = pseudo(buf, l3, ipver, proto, len - l4);
    return tnet_csum_fold(tnet_csum_add(ps, buf + l4, len - l4)) == 0xFFFF;
}

/* ---- tests ------------------------------------------------------------------------------ */

static void test_open_reads_interface(void **state)
{
    int err = 0;
    if (!netns_ok)
        skip();
    assert_null(zvs_uplink_pcap_open("nosuch0", &err));
    assert_int_equal(err, -ENODEV);
    assert_null(zvs_uplink_pcap_open("", &err));
    assert_int_equal(err, -EINVAL);
    assert_null(zvs_uplink_pcap_open("a-name-too-long0", &err));
    assert_int_equal(err, -EINVAL);

    struct zvs_port *p = open_va();
    uint8_t mac[6];
    assert_string_equal(p->ops->kind, "pcap");
    assert_string_equal(p->name, "va");
    assert_int_equal(p->role, ZVS_PORT_UPLINK);
    assert_int_equal(p->caps, 0);       /* the switch completes and segments for it */
    assert_int_equal(p->max_gso, 0);
    assert_int_equal(p->mtu, 1500);
    assert_true(p->carrier);
    zvs_uplink_pcap_mac(p, mac);
    assert_memory_equal(mac, MAC_A, 6);
    assert_int_equal(zvs_uplink_pcap_ifindex(p), tnet_ifindex("va"));
    int fd = zvs_uplink_pcap_fd(p);
    assert_true(fd >= 0);
    assert_true(fcntl(fd, F_GETFL) & O_NONBLOCK);
    struct zvs_frame fr[ZVS_BATCH];
    assert_int_equal(p->ops->rx(p, fr, ZVS_BATCH), 0);   /* nothing queued, no wait */
    /* libpcap's ring is the socket's: PACKET_RX_RING in TPACKET_V2 (immediate mode). */
    int v = -1;
    socklen_t sl = sizeof(v);
    assert_int_equal(getsockopt(fd, SOL_PACKET, PACKET_VERSION, &v, &sl), 0);
    assert_int_equal(v, TPACKET_V2);
    assert_int_equal(system("ip -d link show va | grep -q ' promiscuity 1 '"), 0);
    p->ops->destroy(p);
    assert_int_equal(system("ip -d link show va | grep -q ' promiscuity 0 '"), 0);

    tnet_sh("ip link set va mtu 9000");
    p = open_va();
    assert_int_equal(p->mtu, 9000);
    p->ops->destroy(p);
    tnet_sh("ip link set va mtu 1500");
}

static void test_open_while_down(void **state)
{
    if (!netns_ok)
        skip();
    uint8_t buf[70], got[2048];
    enum zvs_drop why = ZVS_DROP__COUNT;
    struct zvs_frame fr[ZVS_BATCH];
    int idx = tnet_ifindex("va");

    /* libpcap cannot activate on a down interface: the port waits without a handle. */
    tnet_sh("ip link set va down");
    struct zvs_port *p = open_va();
    assert_int_equal(zvs_uplink_pcap_fd(p), -1);
    assert_false(p->carrier);
    assert_int_equal(zvs_uplink_pcap_ifindex(p), idx);
    assert_int_equal(p->ops->rx(p, fr, ZVS_BATCH), 0);
    make_frame(buf, 70, 5);
    struct zvs_frame f = { .data = buf, .len = 70 };
    assert_int_equal(tx1(p, &f, ZVS_TAG_KEEP, 0, &why), 0);
    assert_int_equal(why, ZVS_DROP_LINK_DOWN);
    assert_int_equal(stats_of(p).tx_link_down, 1);
    /* Still down: the event changes nothing. */
    assert_int_equal(zvs_uplink_pcap_link_event(p, idx, false, true), 0);
    assert_int_equal(zvs_uplink_pcap_fd(p), -1);

    tnet_sh("ip link set va up");
    tnet_wait_running("va", true);
    assert_int_equal(zvs_uplink_pcap_link_event(p, idx, true, true), 1);
    assert_true(zvs_uplink_pcap_fd(p) >= 0);
    assert_true(p->carrier);
    assert_int_equal(stats_of(p).reopens, 1);
    int peer = tnet_peer_open("vb", false);
    assert_int_equal(tx1(p, &f, ZVS_TAG_KEEP, 0, &why), 1);
    assert_int_equal(tnet_peer_recv(peer, got, sizeof(got), NULL), 70);
    assert_memory_equal(got, buf, 70);
    tnet_peer_send(peer, buf, 70, NULL);
    assert_int_equal(port_rx(p, fr, ZVS_BATCH), 1);
    assert_int_equal(fr[0].len, 70);
    assert_memory_equal(fr[0].data, buf, 70);
    p->ops->rx_release(p, fr, 1);
    close(peer);
    p->ops->destroy(p);
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
    /* Our own transmissions never come back to our rx (PCAP_D_IN). */
    struct zvs_frame fr[ZVS_BATCH];
    assert_int_equal(p->ops->rx(p, fr, ZVS_BATCH), 0);
    struct zvs_pcap_stats s = stats_of(p);
    assert_int_equal(s.tx_frames, 3);
    assert_int_equal(s.tx_copied, 1);   /* only the scattered one needed the scratch */
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
    tnet_rx_rounds(p, zvs_uplink_pcap_fd, peer, ZVS_PCAP_POOL_BUFS, MAC_X, MAC_A);
    struct zvs_pcap_stats s = stats_of(p);
    assert_int_equal(s.rx_frames, 300);
    assert_int_equal(s.rx_no_buffer, 0);
    assert_int_equal(s.rx_csum_marked, 0);

    /* A switch that holds every buffer gets nothing more (counted), and the frames wait
     * in libpcap's ring until buffers come back. */
    static struct zvs_frame held[ZVS_PCAP_POOL_BUFS + 4];
    tnet_rx_hold_all(p, zvs_uplink_pcap_fd, peer, held, ZVS_PCAP_POOL_BUFS, MAC_X, MAC_A);
    assert_int_equal(stats_of(p).rx_no_buffer, 1);
    tnet_rx_give_back(p, zvs_uplink_pcap_fd, held, ZVS_PCAP_POOL_BUFS, MAC_X, MAC_A);
    assert_int_equal(stats_of(p).kernel_drops, 0);
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

    /* A tagged frame from the wire reaches the switch with its tag in the bytes
     * (libpcap puts back what the kernel moved into packet metadata). */
    tnet_peer_send(peer, want, 104, NULL);
    assert_int_equal(port_rx(p, fr, ZVS_BATCH), 1);
    assert_int_equal(fr[0].len, 104);
    assert_memory_equal(fr[0].data, want, 104);
    p->ops->rx_release(p, fr, 1);
    /* 802.1ad S-tag (TPID 0x88A8) keeps its TPID. */
    memcpy(want + 12, "\x88\xA8\x00\x05", 4);
    tnet_peer_send(peer, want, 104, NULL);
    assert_int_equal(port_rx(p, fr, ZVS_BATCH), 1);
    assert_memory_equal(fr[0].data, want, 104);
    p->ops->rx_release(p, fr, 1);

    /* STRIP and REWRITE on the way out. */
    memcpy(want + 12, "\x81\x00\x60\x64", 4);
    struct zvs_frame t = { .data = want, .len = 104, .flags = ZVS_FF_TAGGED, .pcp = 3 };
    assert_int_equal(tx1(p, &t, ZVS_TAG_STRIP, 0, &why), 1);
    assert_int_equal(tnet_peer_recv(peer, got, sizeof(got), NULL), 100);
    assert_memory_equal(got, buf, 100);
    assert_int_equal(tx1(p, &t, ZVS_TAG_REWRITE, 200, &why), 1);
    assert_int_equal(tnet_peer_recv(peer, got, sizeof(got), NULL), 104);
    assert_memory_equal(got, want, 14);
    assert_memory_equal(got + 14, "\x60\xC8", 2);      /* PCP 3, VID 200 */
    assert_memory_equal(got + 16, want + 16, 88);
    assert_int_equal(stats_of(p).tx_copied, 3);
    close(peer);
    p->ops->destroy(p);
}

/* Send `frame` from the peer, receive it on the port, and check the marking. */
static void rx_one(struct zvs_port *p, int peer, const uint8_t *frame, uint32_t len,
                   struct zvs_frame *out, uint8_t *copy)
{
    tnet_peer_send(peer, frame, len, NULL);
    assert_int_equal(port_rx(p, out, 1), 1);
    assert_int_equal(out->len, len);
    memcpy(copy, out->data, len);
}

static void test_wrong_checksum_gets_metadata(void **state)
{
    if (!netns_ok)
        skip();
    struct zvs_port *p = open_va();
    int peer = tnet_peer_open("vb", false);
    static uint8_t ref[2048], bad[2048], got[2048];
    struct zvs_frame fr[1];
    uint32_t l4;

    /* IPv4 TCP with garbage in the checksum field. */
    struct l4_spec s = { .ipver = 4, .proto = 6, .payload = 100 };
    uint32_t len = make_l4(ref, &s, &l4);
    assert_int_equal(l4, 34);
    memcpy(bad, ref, len);
    zvs_put_be16(bad + l4 + 16, 0xDEAD);
    rx_one(p, peer, bad, len, fr, got);
    assert_int_equal(fr[0].vnet.flags, ZVS_VNET_F_NEEDS_CSUM);
    assert_int_equal(fr[0].vnet.csum_start, 34);
    assert_int_equal(fr[0].vnet.csum_offset, 16);
    assert_int_equal(fr[0].vnet.gso_type, ZVS_VNET_GSO_NONE);
    /* The field now holds the pseudo-header sum, everything else is as sent... */
    assert_int_equal(zvs_be16(got + 50), pseudo(ref, 14, 4, 6, len - 34));
    assert_memory_equal(got, ref, 50);
    assert_memory_equal(got + 52, ref + 52, len - 52);
    /* ...and completion gives exactly the right frame. */
    struct zvs_vnet v = fr[0].vnet;
    assert_int_equal(zvs_vnet_csum_complete(got, len, &v), 0);
    assert_memory_equal(got, ref, len);
    assert_true(l4_csum_ok(got, len, 14, 34, 4, 6));
    assert_int_equal(v.flags, ZVS_VNET_F_DATA_VALID);
    p->ops->rx_release(p, fr, 1);

    /* A right checksum comes out of completion unchanged. */
    rx_one(p, peer, ref, len, fr, got);
    v = fr[0].vnet;
    assert_int_equal(v.flags, ZVS_VNET_F_NEEDS_CSUM);
    assert_int_equal(zvs_vnet_csum_complete(got, len, &v), 0);
    assert_memory_equal(got, ref, len);
    p->ops->rx_release(p, fr, 1);

    /* Tagged IPv6 TCP: csum_start behind the tag and the 40-byte header. */
    s = (struct l4_spec){ .ipver = 6, .proto = 6, .tagged = true, .payload = 333 };
    len = make_l4(ref, &s, &l4);
    assert_int_equal(l4, 58);
    memcpy(bad, ref, len);
    zvs_put_be16(bad + l4 + 16, 0x0001);
    rx_one(p, peer, bad, len, fr, got);
    assert_int_equal(fr[0].vnet.flags, ZVS_VNET_F_NEEDS_CSUM);
    assert_int_equal(fr[0].vnet.csum_start, 58);
    assert_int_equal(fr[0].vnet.csum_offset, 16);
    v = fr[0].vnet;
    assert_int_equal(zvs_vnet_csum_complete(got, len, &v), 0);
    assert_memory_equal(got, ref, len);
    assert_true(l4_csum_ok(got, len, 18, 58, 6, 6));
    p->ops->rx_release(p, fr, 1);

    /* UDP over IPv4: offset 6. */
    s = (struct l4_spec){ .ipver = 4, .proto = 17, .payload = 200 };
    len = make_l4(ref, &s, &l4);
    memcpy(bad, ref, len);
    zvs_put_be16(bad + l4 + 6, 0x4242);
    rx_one(p, peer, bad, len, fr, got);
    assert_int_equal(fr[0].vnet.flags, ZVS_VNET_F_NEEDS_CSUM);
    assert_int_equal(fr[0].vnet.csum_start, 34);
    assert_int_equal(fr[0].vnet.csum_offset, 6);
    v = fr[0].vnet;
    assert_int_equal(zvs_vnet_csum_complete(got, len, &v), 0);
    assert_memory_equal(got, ref, len);
    p->ops->rx_release(p, fr, 1);

    /* IPv4 UDP with checksum 0 means "none": left as sent, no metadata. */
    zvs_put_be16(bad + l4 + 6, 0);
    rx_one(p, peer, bad, len, fr, got);
    assert_int_equal(fr[0].vnet.flags, 0);
    assert_memory_equal(got, bad, len);
    p->ops->rx_release(p, fr, 1);

    /* A short TCP frame with non-zero Ethernet padding: checksummed here over the
     * datagram only (completion would sum the padding too). */
    s = (struct l4_spec){ .ipver = 4, .proto = 6, .payload = 2 };
    len = make_l4(ref, &s, &l4);
    assert_int_equal(len, 56);
    memcpy(bad, ref, len);
    zvs_put_be16(bad + l4 + 16, 0xBEEF);
    memcpy(bad + 56, "\x55\xAA\x55\xAA", 4);
    memcpy(ref + 56, "\x55\xAA\x55\xAA", 4);
    rx_one(p, peer, bad, 60, fr, got);
    assert_int_equal(fr[0].vnet.flags, ZVS_VNET_F_DATA_VALID);
    assert_memory_equal(got, ref, 60);
    p->ops->rx_release(p, fr, 1);

    struct zvs_pcap_stats st = stats_of(p);
    assert_int_equal(st.rx_csum_marked, 4);
    assert_int_equal(st.rx_csum_done, 1);
    assert_int_equal(st.rx_gso_marked, 0);
    close(peer);
    p->ops->destroy(p);
}

struct seg_check {
    uint8_t  frames[8][1600];
    uint32_t len[8];
    int      n;
};

static int collect(void *arg, const uint8_t *frame, uint32_t len, const struct zvs_vnet *vnet)
{
    struct seg_check *c = arg;
    assert_true(c->n < 8 && len <= 1600);
    assert_int_equal(vnet->gso_type, ZVS_VNET_GSO_NONE);
    memcpy(c->frames[c->n], frame, len);
    c->len[c->n++] = len;
    return 0;
}

static void test_super_frame_from_offloading_peer(void **state)
{
    if (!netns_ok)
        skip();
    struct zvs_port *p = open_va();
    int peer = tnet_peer_open("vb", true);
    static uint8_t buf[4096], got[4096], scratch[2048];
    static struct seg_check segs;
    struct zvs_frame fr[1];
    uint32_t l4;

    /* What a veth peer with TSO on hands over: 3000 bytes of payload in one frame with
     * a partial checksum, its metadata only in the sender's skb. */
    struct l4_spec s = { .ipver = 4, .proto = 6, .payload = 3000, .tcp_flags = 0x19 };
    uint32_t len = make_l4(buf, &s, &l4);
    zvs_put_be16(buf + 34 + 16, pseudo(buf, 14, 4, 6, len - 34));
    struct virtio_net_hdr pvh = {
        .flags = VIRTIO_NET_HDR_F_NEEDS_CSUM, .gso_type = VIRTIO_NET_HDR_GSO_TCPV4,
        .hdr_len = 54, .gso_size = 1000, .csum_start = 34, .csum_offset = 16,
    };
    tnet_peer_send(peer, buf, len, &pvh);
    assert_int_equal(port_rx(p, fr, 1), 1);
    assert_int_equal(fr[0].len, len);
    assert_memory_equal(fr[0].data, buf, len);
    /* We cannot know the sender's MSS: segments fill our MTU. */
    assert_int_equal(fr[0].vnet.flags, ZVS_VNET_F_NEEDS_CSUM);
    assert_int_equal(fr[0].vnet.gso_type, ZVS_VNET_GSO_TCPV4);
    assert_int_equal(fr[0].vnet.gso_size, 1460);
    assert_int_equal(fr[0].vnet.hdr_len, 54);
    assert_int_equal(fr[0].vnet.csum_start, 34);
    assert_int_equal(fr[0].vnet.csum_offset, 16);
    memcpy(got, fr[0].data, len);
    struct zvs_vnet v = fr[0].vnet;
    p->ops->rx_release(p, fr, 1);

    /* The switch's fix-up for a 1500-MTU egress: 1460 + 1460 + 80, each a valid frame. */
    segs.n = 0;
    assert_int_equal(zvs_vnet_segment(got, len, &v, 1514, false, false, scratch, collect, &segs), 3);
    uint32_t want_len[3] = { 1514, 1514, 134 };
    uint32_t seq = 0x1000;
    for (int i = 0; i < 3; i++) {
        const uint8_t *f = segs.frames[i];
        assert_int_equal(segs.len[i], want_len[i]);
        assert_true(l4_csum_ok(f, segs.len[i], 14, 34, 4, 6));
        assert_int_equal(zvs_inet_csum(f + 14, 20), 0);        /* IPv4 header checksum */
        assert_int_equal(zvs_be16(f + 16), segs.len[i] - 14);  /* total length */
        assert_int_equal((uint32_t)zvs_be16(f + 38) << 16 | zvs_be16(f + 40), seq);
        assert_int_equal(f[47], i == 2 ? 0x19 : 0x10);         /* FIN, PSH only at the end */
        assert_memory_equal(f + 54, buf + 54 + 1460 * (uint32_t)i, segs.len[i] - 54);
        seq += segs.len[i] - 54;
    }

    /* IPv6: gso_size = MTU - 40 - 20. */
    s = (struct l4_spec){ .ipver = 6, .proto = 6, .payload = 2000 };
    len = make_l4(buf, &s, &l4);
    zvs_put_be16(buf + 54 + 16, pseudo(buf, 14, 6, 6, len - 54));
    pvh = (struct virtio_net_hdr){
        .flags = VIRTIO_NET_HDR_F_NEEDS_CSUM, .gso_type = VIRTIO_NET_HDR_GSO_TCPV6,
        .hdr_len = 74, .gso_size = 1200, .csum_start = 54, .csum_offset = 16,
    };
    tnet_peer_send(peer, buf, len, &pvh);
    assert_int_equal(port_rx(p, fr, 1), 1);
    assert_int_equal(fr[0].len, len);
    assert_int_equal(fr[0].vnet.gso_type, ZVS_VNET_GSO_TCPV6);
    assert_int_equal(fr[0].vnet.gso_size, 1440);
    assert_int_equal(fr[0].vnet.hdr_len, 74);
    assert_int_equal(fr[0].vnet.csum_start, 54);
    p->ops->rx_release(p, fr, 1);
    struct zvs_pcap_stats st = stats_of(p);
    assert_int_equal(st.rx_gso_marked, 2);
    assert_int_equal(st.rx_csum_marked, 2);
    assert_int_equal(st.rx_truncated, 0);
    close(peer);
    p->ops->destroy(p);
}

static void test_partial_csum_tx_completed(void **state)
{
    if (!netns_ok)
        skip();
    struct zvs_port *p = open_va();
    int peer = tnet_peer_open("vb", false);
    uint8_t buf[256], ref[260], got[2048];
    uint32_t l4;
    enum zvs_drop why;

    /* A caller that ignores caps 0 still gets a right frame on the wire, tag pushed. */
    struct l4_spec s = { .ipver = 4, .proto = 6, .payload = 100 };
    uint32_t len = make_l4(buf, &s, &l4);
    zvs_put_be16(buf + 50, pseudo(buf, 14, 4, 6, len - 34));
    struct zvs_frame f = {
        .data = buf, .len = len,
        .vnet = { .flags = ZVS_VNET_F_NEEDS_CSUM, .csum_start = 34, .csum_offset = 16 },
    };
    assert_int_equal(tx1(p, &f, ZVS_TAG_PUSH, 7, &why), 1);
    s.tagged = true;
    uint32_t tlen = make_l4(ref, &s, &l4);
    assert_int_equal(tnet_peer_recv(peer, got, sizeof(got), NULL), (int)tlen);
    assert_memory_equal(got, ref, tlen);
    assert_true(l4_csum_ok(got, tlen, 18, 38, 4, 6));
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
    struct zvs_frame fgso = { .data = c, .len = 70,
                              .vnet = { .gso_type = ZVS_VNET_GSO_TCPV4, .gso_size = 9 } };
    struct zvs_frame fc = { .data = c, .len = 70 };
    struct zvs_tx txs[4] = { { .f = &fa }, { .f = &fbig }, { .f = &fgso }, { .f = &fc } };
    assert_int_equal(p->ops->tx(p, txs, 4, &why), 2);
    assert_int_equal(why, ZVS_DROP_TX_FAIL);
    assert_int_equal(tnet_peer_recv(peer, got, sizeof(got), NULL), 60);
    assert_memory_equal(got, a, 60);
    assert_int_equal(tnet_peer_recv(peer, got, sizeof(got), NULL), 70);
    assert_memory_equal(got, c, 70);
    assert_true(tnet_peer_quiet(peer));
    struct zvs_pcap_stats s = stats_of(p);
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
    int fd = zvs_uplink_pcap_fd(p);

    make_frame(buf, 80, 4);
    struct zvs_frame f = { .data = buf, .len = 80 };
    struct zvs_tx txs[40];
    tnet_burst_of(txs, 40, &f);

    /* Down: every frame of the burst is LINK_DOWN. */
    tnet_sh("ip link set va down");
    assert_int_equal(p->ops->tx(p, txs, 40, &why), 0);
    assert_int_equal(why, ZVS_DROP_LINK_DOWN);
    assert_false(p->carrier);
    assert_int_equal(stats_of(p).tx_link_down, 40);
    assert_int_equal(stats_of(p).last_errno, ENETDOWN);
    assert_int_equal(p->ops->rx(p, fr, ZVS_BATCH), 0);
    assert_int_equal(zvs_uplink_pcap_link_event(p, idx, false, true), 0);
    assert_false(p->carrier);

    /* Up again, told as netlink_link would: the same handle carries traffic both ways. */
    tnet_sh("ip link set va up");
    tnet_wait_running("va", true);
    assert_int_equal(zvs_uplink_pcap_link_event(p, idx, true, true), 0);
    assert_true(p->carrier);
    assert_int_equal(zvs_uplink_pcap_fd(p), fd);
    assert_int_equal(tx1(p, &f, ZVS_TAG_KEEP, 0, &why), 1);
    assert_int_equal(tnet_peer_recv(peer, got, sizeof(got), NULL), 80);
    assert_memory_equal(got, buf, 80);
    tnet_peer_send(peer, buf, 80, NULL);
    assert_int_equal(port_rx(p, fr, ZVS_BATCH), 1);
    assert_memory_equal(fr[0].data, buf, 80);
    p->ops->rx_release(p, fr, 1);

    /* Down and up with nobody reading or told in between: the kernel's stale ENETDOWN
     * note must cost neither a received frame nor a sent one. */
    tnet_link_bounce("va");
    tnet_peer_send(peer, buf, 80, NULL);
    assert_int_equal(port_rx(p, fr, ZVS_BATCH), 1);
    assert_memory_equal(fr[0].data, buf, 80);
    p->ops->rx_release(p, fr, 1);
    tnet_link_bounce("va");
    assert_int_equal(tx1(p, &f, ZVS_TAG_KEEP, 0, &why), 1);
    assert_int_equal(tnet_peer_recv(peer, got, sizeof(got), NULL), 80);
    struct zvs_pcap_stats s = stats_of(p);
    assert_int_equal(s.tx_link_down, 40);
    assert_int_equal(s.tx_frames, 2);
    assert_int_equal(s.rx_errors, 0);
    assert_int_equal(s.reopens, 0);
    close(peer);
    p->ops->destroy(p);
}

/* The far end goes down: the driver refuses (ENOBUFS, qdisc bypassed) before linkwatch
 * has said anything; the backend asks the driver once and the burst is LINK_DOWN at once,
 * without the 1 ms waits for room that will never come. */
static void test_peer_down_is_link_down_at_once(void **state)
{
    if (!netns_ok)
        skip();
    struct zvs_port *p = open_va();
    uint8_t buf[80], got[2048];
    enum zvs_drop why = ZVS_DROP__COUNT;
    int idx = tnet_ifindex("va");

    make_frame(buf, 80, 5);
    struct zvs_frame f = { .data = buf, .len = 80 };
    struct zvs_tx txs[40];
    tnet_burst_of(txs, 40, &f);

    tnet_sh("ip link set vb down");
    assert_int_equal(p->ops->tx(p, txs, 40, &why), 0);
    assert_int_equal(why, ZVS_DROP_LINK_DOWN);
    assert_false(p->carrier);
    struct zvs_pcap_stats s = stats_of(p);
    assert_int_equal(s.tx_link_down, 40);
    assert_int_equal(s.tx_link_probes, 1);
    assert_int_equal(s.tx_waits, 0);
    assert_int_equal(s.tx_no_buffer, 0);
    assert_int_equal(s.tx_frames, 0);

    tnet_sh("ip link set vb up");
    tnet_wait_running("va", true);
    assert_int_equal(zvs_uplink_pcap_link_event(p, idx, true, true), 0);
    assert_true(p->carrier);
    int peer = tnet_peer_open("vb", false);
    assert_int_equal(tx1(p, &f, ZVS_TAG_KEEP, 0, &why), 1);
    assert_int_equal(tnet_peer_recv(peer, got, sizeof(got), NULL), 80);
    assert_memory_equal(got, buf, 80);
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
    int old_fd = zvs_uplink_pcap_fd(p);

    make_frame(buf, 90, 6);
    struct zvs_frame f = { .data = buf, .len = 90 };
    tnet_sh("ip link del va");
    /* libpcap reports the loss as a read error; the send fails with ENXIO. */
    assert_int_equal(p->ops->rx(p, fr, ZVS_BATCH), 0);
    assert_int_equal(stats_of(p).rx_errors, 1);
    assert_string_equal(stats_of(p).last_error, "The interface disappeared");
    assert_int_equal(tx1(p, &f, ZVS_TAG_KEEP, 0, &why), 0);
    assert_int_equal(why, ZVS_DROP_LINK_DOWN);
    assert_int_equal(stats_of(p).last_errno, ENXIO);
    assert_false(p->carrier);
    assert_int_equal(zvs_uplink_pcap_link_event(p, 0, false, false), 0);
    assert_int_equal(zvs_uplink_pcap_ifindex(p), 0);
    assert_int_equal(zvs_uplink_pcap_reopen(p), -ENODEV);   /* not back yet */
    assert_int_equal(zvs_uplink_pcap_fd(p), old_fd);

    make_veth();
    int idx = tnet_ifindex("va");
    assert_true(idx > 0 && idx != old_idx);
    assert_int_equal(zvs_uplink_pcap_link_event(p, idx, true, true), 1);
    assert_true(p->carrier);
    assert_int_equal(zvs_uplink_pcap_ifindex(p), idx);
    assert_true(zvs_uplink_pcap_fd(p) >= 0);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_open_reads_interface),
        cmocka_unit_test(test_open_while_down),
        cmocka_unit_test(test_tx_exact_bytes),
        cmocka_unit_test(test_rx_exact_bytes_and_pool_recycling),
        cmocka_unit_test(test_vlan_tags_on_the_wire),
        cmocka_unit_test(test_wrong_checksum_gets_metadata),
        cmocka_unit_test(test_super_frame_from_offloading_peer),
        cmocka_unit_test(test_partial_csum_tx_completed),
        cmocka_unit_test(test_refused_frames_do_not_stop_a_burst),
        cmocka_unit_test(test_link_down_and_up),
        cmocka_unit_test(test_peer_down_is_link_down_at_once),
        cmocka_unit_test(test_delete_and_recreate),
    };
    return cmocka_run_group_tests_name("uplink_pcap", tests, setup_netns, NULL);
}
