/* vxlan_uso_probe: can a packet socket send a VXLAN super-frame as ONE UDP GSO write
 * (virtio-net GSO_UDP_L4), each segment a whole VXLAN datagram payload built in user
 * space, so that the kernel's cut at gso_size gives every datagram its own VXLAN header;
 * and what does that cost the sender against today's shape (one sendmmsg of the same
 * segments as frames)? The measurement behind overlay/README.md's "Offloads on this
 * kernel" (the packet-socket underlay).
 *
 *   vxlan_uso_probe [PCAP]   (root: unshares a network namespace, gone when it exits)
 *
 * Inside it: veth va0 == vb0, MTU 1500, va0 with tx-udp-segmentation and tx checksum
 * off (the kernel cuts and checksums at transmit, as for a NIC without either). Two
 * PACKET_VNET_HDR senders on va0: one with PACKET_QDISC_BYPASS, as
 * backends/uplink_afpacket.c, one through the qdisc (a GSO frame needs it: see main).
 * The receiver, a packet socket on vb0, checks each outer datagram (IP length, id and
 * header checksum, UDP length and checksum, VXLAN header, inner IP length, TCP sequence,
 * checksum and payload) and writes the first super-frame's datagrams to PCAP if given.
 * Then variants of the header (what the kernel refuses), then interleaved timed rounds
 * of both shapes, all in software and again with va0's checksum offload on. 44 segments
 * of MSS 1398: 45 would make the outer IPv4 length 65728 (the variant shows the kernel
 * does not mind; a product would not send a length it cannot write).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#ifndef VIRTIO_NET_HDR_GSO_UDP_L4
#define VIRTIO_NET_HDR_GSO_UDP_L4 5     /* uapi since Linux 4.18; older headers lack it */
#endif

enum {
    MSS = 1398, OUTER = 14 + 20 + 8, VXH = 8, INNER_HDRS = 14 + 20 + 20,
    SEG_UDP = VXH + INNER_HDRS + MSS,   /* one datagram's UDP payload: gso_size */
    MAXSEGS = 48, VH = (int)sizeof(struct virtio_net_hdr),
    ROUNDS = 5, ITERS = 400,
};

static uint8_t payload[MAXSEGS * MSS];  /* the guest's TCP bytes */

static int sh(const char *cmd)
{
    int rc = system(cmd);
    if (rc != 0)
        fprintf(stderr, "failed (%d): %s\n", rc, cmd);
    return rc;
}

static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static void put32(uint8_t *p, uint32_t v) { put16(p, (uint16_t)(v >> 16)); put16(p + 2, (uint16_t)v); }
static uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }

/* The Internet checksum's running sum, 32 bits at a time (a user-space VTEP would use a
 * word-wide loop, not a byte loop; this is what the one-write shape pays per segment). */
static uint64_t csum_add(uint64_t s, const uint8_t *p, size_t n)
{
    uint32_t w;
    for (; n >= 4; p += 4, n -= 4) {
        memcpy(&w, p, 4);
        s += ntohl(w);
    }
    for (; n >= 2; p += 2, n -= 2)
        s += get16(p);
    if (n)
        s += (uint32_t)p[0] << 8;
    return s;
}

static uint16_t csum_fold(uint64_t s)
{
    while (s >> 16)
        s = (s & 0xffff) + (s >> 16);
    return (uint16_t)s;
}

static void ipv4(uint8_t *p, uint16_t len, uint8_t proto, uint8_t net, uint16_t id)
{
    memset(p, 0, 20);
    p[0] = 0x45;
    put16(p + 2, len);
    put16(p + 4, id);
    p[6] = 0x40;
    p[8] = 64;
    p[9] = proto;
    p[12] = 10; p[13] = net; p[14] = 0; p[15] = 1;
    p[16] = 10; p[17] = net; p[18] = 0; p[19] = 2;
    put16(p + 10, (uint16_t)~csum_fold(csum_add(0, p, 20)));
}

/* The outer Ethernet/IPv4/UDP header for a UDP payload of len bytes (0xffff if more). */
static void outer(uint8_t *f, size_t len, uint16_t id)
{
    static const uint8_t mac[12] = { 0x02, 0, 0, 0, 0, 0x99, 0x02, 0, 0, 0, 0, 1 };
    size_t ip = 20 + 8 + len;
    memcpy(f, mac, 12);
    put16(f + 12, 0x0800);
    ipv4(f + 14, (uint16_t)(ip > 0xffff ? 0xffff : ip), 17, 99, id);
    put16(f + 34, 50000);
    put16(f + 36, 4789);
    put16(f + 38, (uint16_t)(8 + len > 0xffff ? 0xffff : 8 + len));
    put16(f + 40, 0);
}

/* Segment i's UDP payload at p: VXLAN, inner Ethernet/IPv4/TCP, the MSS bytes. full: the
 * inner TCP checksum complete (the one-write shape), else partial (today's: the pseudo-
 * header sum, NEEDS_CSUM in the segment's own virtio-net header). Returns its length. */
static size_t segment(uint8_t *p, int i, int segs, int full)
{
    static const uint8_t imac[12] = { 0x02, 0, 0, 0, 1, 2, 0x02, 0, 0, 0, 1, 1 };
    size_t n = i == segs - 1 ? MSS - 100 : MSS; /* the last one shorter */
    uint8_t *in = p + VXH, *th = in + 34;

    memset(p, 0, VXH);
    p[0] = 0x08;                        /* I flag; VNI 5000 */
    p[5] = 0x13; p[6] = 0x88;
    memcpy(in, imac, 12);
    put16(in + 12, 0x0800);
    ipv4(in + 14, (uint16_t)(40 + n), 6, 77, (uint16_t)(1000 + i));
    memset(th, 0, 20);
    put16(th, 40000);
    put16(th + 2, 5201);
    put32(th + 4, 1000000u + (uint32_t)i * MSS);
    th[12] = 5 << 4;
    th[13] = 0x10;
    put16(th + 14, 65535);
    memcpy(th + 20, payload + (size_t)i * MSS, n);
    uint64_t ps = csum_add(0, in + 26, 8) + 6 + 20 + n;
    put16(th + 16, full ? (uint16_t)~csum_fold(csum_add(ps, th, 20 + n)) : csum_fold(ps));
    return VXH + INNER_HDRS + n;
}

/* The one-write shape in buf: virtio-net header, one outer header, segs segments back to
 * back. Returns the bytes to send. */
static size_t build_one(uint8_t *buf, int segs, uint8_t flags, uint16_t cso, uint16_t gso)
{
    struct virtio_net_hdr *h = (struct virtio_net_hdr *)buf;
    uint8_t *f = buf + VH;
    size_t len = 0;
    for (int i = 0; i < segs; i++)
        len += segment(f + OUTER + len, i, segs, 1);
    outer(f, len, 7);
    /* NEEDS_CSUM: the field holds the pseudo-header sum, not complemented, over the
     * super-frame's UDP length; the kernel swaps that length for each datagram's. */
    put16(f + 40, csum_fold(csum_add(0, f + 26, 8) + 17 + get16(f + 38)));
    memset(h, 0, sizeof *h);
    h->flags = flags;
    h->gso_type = VIRTIO_NET_HDR_GSO_UDP_L4;
    h->gso_size = gso;
    h->hdr_len = OUTER;
    h->csum_start = 34;
    h->csum_offset = cso;
    return VH + OUTER + len;
}

/* Today's shape: segs frames, each with its own virtio-net header (NEEDS_CSUM at the
 * inner TCP checksum, no GSO) and outer header, one iovec each. */
static void build_many(uint8_t (*bufs)[VH + OUTER + SEG_UDP], struct mmsghdr *m,
                       struct iovec *iov, int segs)
{
    for (int i = 0; i < segs; i++) {
        struct virtio_net_hdr *h = (struct virtio_net_hdr *)bufs[i];
        size_t len = segment(bufs[i] + VH + OUTER, i, segs, 0);
        outer(bufs[i] + VH, len, (uint16_t)(7 + i));
        memset(h, 0, sizeof *h);
        h->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
        h->csum_start = OUTER + VXH + 34;
        h->csum_offset = 16;
        iov[i] = (struct iovec){ bufs[i], VH + OUTER + len };
        memset(&m[i], 0, sizeof m[i]);
        m[i].msg_hdr.msg_iov = &iov[i];
        m[i].msg_hdr.msg_iovlen = 1;
    }
}

static int pkt_socket(const char *dev, int vnet, int rx, int bypass)
{
    int fd = socket(AF_PACKET, SOCK_RAW, rx ? htons(ETH_P_ALL) : 0), one = 1, big = 1 << 24;
    struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_ifindex = (int)if_nametoindex(dev),
                               .sll_protocol = rx ? htons(ETH_P_ALL) : 0 };
    if (fd < 0 || (vnet && setsockopt(fd, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof one) < 0) ||
        bind(fd, (struct sockaddr *)&sll, sizeof sll) < 0) {
        perror(dev);
        exit(2);
    }
    if (bypass)
        (void)setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof one);
    (void)setsockopt(fd, SOL_SOCKET, rx ? SO_RCVBUFFORCE : SO_SNDBUFFORCE, &big, sizeof big);
    return fd;
}

/* Reads what arrives on rx for 300 ms and checks every UDP 4789 datagram; returns the
 * number that are well formed, *all the number seen. */
static int receive(int rx, int segs, FILE *pcap, int verbose, int *all)
{
    static uint8_t b[70000];
    int good = 0;
    *all = 0;
    for (;;) {
        struct pollfd p = { .fd = rx, .events = POLLIN };
        if (poll(&p, 1, 300) <= 0)
            break;
        ssize_t r = recv(rx, b, sizeof b, 0);
        if (r < OUTER + VXH + INNER_HDRS || get16(b + 12) != 0x0800 || b[23] != 17 ||
            get16(b + 36) != 4789)
            continue;
        if (pcap) {
            uint32_t rec[4] = { 0, 0, (uint32_t)r, (uint32_t)r };
            fwrite(rec, sizeof rec, 1, pcap);
            fwrite(b, 1, (size_t)r, pcap);
        }
        int i = (*all)++;
        uint8_t *in = b + OUTER + VXH, *th = in + 34;
        size_t n = (size_t)r - OUTER - VXH - INNER_HDRS;
        uint16_t uck = get16(b + 40);
        uint64_t ups = csum_add(0, b + 26, 8) + 17 + (size_t)r - 34;
        int ok = get16(b + 16) == r - 14 && csum_fold(csum_add(0, b + 14, 20)) == 0xffff &&
                 get16(b + 38) == r - 34 &&
                 (uck == 0 || csum_fold(csum_add(ups, b + 34, (size_t)r - 34)) == 0xffff) &&
                 b[42] == 0x08 && b[47] == 0x13 && b[48] == 0x88 &&
                 get16(in + 16) == 40 + n &&
                 get16(th + 4) * 65536u + get16(th + 6) == 1000000u + (uint32_t)i * MSS &&
                 csum_fold(csum_add(csum_add(0, in + 26, 8) + 6 + 20 + n, th, 20 + n)) == 0xffff &&
                 memcmp(th + 20, payload + (size_t)i * MSS, n) == 0;
        good += ok;
        if (verbose && (i < 2 || i >= segs - 2 || !ok))
            printf("  datagram %2d: %zd bytes, ip len %u id %u, udp len %u csum 0x%04x, "
                   "inner tcp len %zu: %s\n", i, r, get16(b + 16), get16(b + 18),
                   get16(b + 38), uck, n, ok ? "well formed" : "BAD");
    }
    return good;
}

/* One send of the one-write shape with a variant header; prints what the kernel said. */
static void variant(int tx, int rx, const char *what, int segs, uint8_t flags, uint16_t cso,
                    uint16_t gso, FILE *pcap, int verbose)
{
    static uint8_t buf[VH + OUTER + MAXSEGS * SEG_UDP];
    int all;
    size_t len = build_one(buf, segs, flags, cso, gso);
    ssize_t w = send(tx, buf, len, 0);
    int e = errno;
    int good = receive(rx, segs, pcap, verbose, &all);
    printf("%-44s %zu bytes: %s; %d datagram(s), %d well formed\n", what, len - VH,
           w < 0 ? strerror(e) : "accepted", all, good);
}

static double cpu_ns(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static double tv_ns(struct timeval t) { return t.tv_sec * 1e9 + t.tv_usec * 1e3; }

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* ITERS super-frames of one shape; adds ns per KiB of TCP payload to the four figures:
 * building (thread CPU around it), sending (thread CPU around the call), utime, stime. */
static void timed(int tx, int one, int segs, double *out)
{
    static uint8_t buf[VH + OUTER + MAXSEGS * SEG_UDP], bufs[MAXSEGS][VH + OUTER + SEG_UDP];
    static struct mmsghdr m[MAXSEGS];
    static struct iovec iov[MAXSEGS];
    double build = 0, send_ns = 0, kib = (segs * (double)MSS - 100) * ITERS / 1024;
    struct rusage r0, r1;
    getrusage(RUSAGE_THREAD, &r0);
    for (int k = 0; k < ITERS; k++) {
        double t0 = cpu_ns(CLOCK_THREAD_CPUTIME_ID), t1;
        size_t len = 0;
        if (one)
            len = build_one(buf, segs, VIRTIO_NET_HDR_F_NEEDS_CSUM, 6, SEG_UDP);
        else
            build_many(bufs, m, iov, segs);
        t1 = cpu_ns(CLOCK_THREAD_CPUTIME_ID);
        int sent = one ? (send(tx, buf, len, 0) == (ssize_t)len) * segs
                       : sendmmsg(tx, m, (unsigned)segs, 0);
        if (sent != segs && k == 0)
            fprintf(stderr, "short send %d: %s\n", sent, strerror(errno));
        build += t1 - t0;
        send_ns += cpu_ns(CLOCK_THREAD_CPUTIME_ID) - t1;
    }
    getrusage(RUSAGE_THREAD, &r1);
    out[0] = build / kib;
    out[1] = send_ns / kib;
    out[2] = (tv_ns(r1.ru_utime) - tv_ns(r0.ru_utime)) / kib;
    out[3] = (tv_ns(r1.ru_stime) - tv_ns(r0.ru_stime)) / kib;
}

/* Today's shape on txb (QDISC_BYPASS, as the uplink) and on txq (the qdisc: what the
 * shape costs apart from the path), the one write on txq (it must: see main). The order
 * of the three rotates each round. */
static void bench(int txb, int txq, int segs, const char *underlay)
{
    static const char *shape[3] = { "today: sendmmsg, bypass", "today: sendmmsg, qdisc",
                                    "one write GSO_UDP_L4, qdisc" };
    static const char *fig[4] = { "build", "send", "utime", "stime" };
    double f[3][4][ROUNDS];
    for (int r = 0; r < ROUNDS; r++)
        for (int k = 0; k < 3; k++) {
            int s = (r + k) % 3;
            double o[4];
            timed(s ? txq : txb, s == 2, segs, o);
            for (int j = 0; j < 4; j++)
                f[s][j][r] = o[j];
        }
    printf("%s; %d rounds of %d super-frames each shape, ns of sender CPU per KiB of TCP "
           "payload, median [min-max]:\n", underlay, ROUNDS, ITERS);
    for (int s = 0; s < 3; s++) {
        printf("  %-28s", shape[s]);
        for (int j = 0; j < 4; j++) {
            qsort(f[s][j], ROUNDS, sizeof(double), cmp);
            printf(" %s %.0f [%.0f-%.0f]", fig[j], f[s][j][ROUNDS / 2], f[s][j][0],
                   f[s][j][ROUNDS - 1]);
        }
        printf("\n");
    }
}

int main(int argc, char **argv)
{
    FILE *pcap = NULL;
    int segs = 44;                      /* the most whose outer IPv4 length fits 16 bits */

    if (unshare(CLONE_NEWNET) < 0) {
        perror("unshare");
        return 2;
    }
    if (sh("ip link add va0 mtu 1500 type veth peer name vb0 mtu 1500 && "
           "ip link set va0 up && ip link set vb0 up && "
           "ethtool -K va0 tx-udp-segmentation off tx off >/dev/null"))
        return 2;
    for (size_t i = 0; i < sizeof payload; i++)
        payload[i] = (uint8_t)(i * 7 + (i >> 8));
    /* txb as backends/uplink_afpacket.c (PACKET_QDISC_BYPASS), txq through the qdisc:
     * the bypass (__dev_direct_xmit) drops any skb that validate_xmit_skb had to
     * segment, so a GSO write to a device without USO is ENOBUFS there. */
    int txb = pkt_socket("va0", 1, 0, 1), txq = pkt_socket("va0", 1, 0, 0);
    int rx = pkt_socket("vb0", 0, 1, 0), all;
    usleep(100000);
    receive(rx, 0, NULL, 0, &all);      /* whatever the links said coming up */
    if (argc > 1 && (pcap = fopen(argv[1], "wb")) != NULL) {
        uint32_t gh[6] = { 0xa1b2c3d4, 0x00040002, 0, 0, 65535, 1 };
        fwrite(gh, sizeof gh, 1, pcap);
    }
    printf("va0: tx-udp-segmentation off, tx-checksumming off (all in software)\n");
    variant(txb, rx, "QDISC_BYPASS: GSO_UDP_L4, NEEDS_CSUM:", segs,
            VIRTIO_NET_HDR_F_NEEDS_CSUM, 6, SEG_UDP, NULL, 0);
    variant(txq, rx, "qdisc: GSO_UDP_L4, NEEDS_CSUM at outer UDP:", segs,
            VIRTIO_NET_HDR_F_NEEDS_CSUM, 6, SEG_UDP, pcap, 1);
    if (pcap)
        fclose(pcap);
    variant(txq, rx, "45 segments (outer lengths 0xffff):", 45,
            VIRTIO_NET_HDR_F_NEEDS_CSUM, 6, SEG_UDP, NULL, 0);
    variant(txq, rx, "GSO_UDP_L4 without NEEDS_CSUM:", segs, 0, 6, SEG_UDP, NULL, 0);
    variant(txq, rx, "NEEDS_CSUM, csum_offset 16 (not UDP's):", segs,
            VIRTIO_NET_HDR_F_NEEDS_CSUM, 16, SEG_UDP, NULL, 0);
    variant(txq, rx, "gso_size 512 (over 64 segments):", segs,
            VIRTIO_NET_HDR_F_NEEDS_CSUM, 6, 512, NULL, 0);
    variant(txq, rx, "gso_size 1600 (over the MTU):", segs,
            VIRTIO_NET_HDR_F_NEEDS_CSUM, 6, 1600, NULL, 0);
    if (sh("ethtool -K va0 tx on tx-udp-segmentation on >/dev/null"))
        return 2;
    variant(txb, rx, "QDISC_BYPASS, va0 with USO (not cut here):", segs,
            VIRTIO_NET_HDR_F_NEEDS_CSUM, 6, SEG_UDP, NULL, 0);
    close(rx);                          /* nobody reads while timing: vb0 drops them */
    if (sh("ethtool -K va0 tx off tx-udp-segmentation off >/dev/null"))
        return 2;
    bench(txb, txq, segs, "va0 all in software");
    if (sh("ethtool -K va0 tx on >/dev/null"))
        return 2;
    bench(txb, txq, segs, "va0 checksum offload on, USO off");
    return 0;
}
