/* tun_tunnel_gso_probe: does this kernel carry ONE VXLAN-encapsulated TCP super-frame,
 * written to a tap with the virtio-net UDP tunnel GSO header, whole through a bridge and
 * a veth to a second tap; and what does the second tap hand its reader? The measurement
 * behind overlay/README.md's "Offloads on this kernel" (the tap underlay).
 *
 *   tun_tunnel_gso_probe      (root: makes a network namespace and removes it)
 *
 * Topology, inside a namespace of its own: tap tx0 -> bridge br0 -> veth va0 == vb0 ->
 * bridge br1 -> tap rx0. tx0 negotiates CSUM|TSO4|TSO6|UDP_TUNNEL_GSO and a 24-byte
 * header (struct virtio_net_hdr_v1_hash_tunnel); the probe writes one super-frame
 * (outer Ethernet/IPv4/UDP 4789/VXLAN, inner Ethernet/IPv4/TCP with SEGS segments of MSS
 * bytes), with gso_type UDP_TUNNEL_IPV4|TCPV4, NEEDS_CSUM at the inner TCP checksum,
 * outer_th_offset and inner_nh_offset. Twice: rx0 with the same offloads (expected: one
 * read, the super-frame whole with its tunnel header) and rx0 with CSUM only (expected:
 * SEGS reads, the kernel segmenting for it). One line per read: bytes, gso_type,
 * gso_size, csum_start, the two tunnel offsets.
 *
 * The tunnel header's layout and flag values are the kernel's uapi (linux/virtio_net.h,
 * Linux 6.16+: virtio 1.4's UDP tunnel extension), defined here for older headers.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <endian.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#ifndef TUN_F_UDP_TUNNEL_GSO
#define TUN_F_UDP_TUNNEL_GSO 0x080
#endif
#define GSO_TCPV4 1
#define GSO_UDP_TUNNEL_IPV4 0x20
#define F_NEEDS_CSUM 1

struct tnl_hdr {                        /* struct virtio_net_hdr_v1_hash_tunnel, little endian */
    uint8_t  flags, gso_type;
    uint16_t hdr_len, gso_size, csum_start, csum_offset, num_buffers;
    uint16_t hash_lo, hash_hi, hash_report, padding;
    uint16_t outer_th_offset, inner_nh_offset;
};
_Static_assert(sizeof(struct tnl_hdr) == 24, "the uapi header is 24 bytes");

enum { SEGS = 4, MSS = 1400, OUTER = 14 + 20 + 8 + 8, INNER_HDRS = 14 + 20 + 20 };

static char ns_name[32];

static int sh(const char *cmd)
{
    int rc = system(cmd);
    if (rc != 0)
        fprintf(stderr, "failed (%d): %s\n", rc, cmd);
    return rc;
}

static uint16_t csum_fold32(uint32_t s)
{
    while (s >> 16)
        s = (s & 0xffff) + (s >> 16);
    return (uint16_t)s;
}

static uint32_t csum_add(uint32_t s, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i + 1 < n; i += 2)
        s += (uint32_t)p[i] << 8 | p[i + 1];
    if (n & 1)
        s += (uint32_t)p[n - 1] << 8;
    return s;
}

static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }

/* An IPv4 header at p: total length len, protocol proto, addresses 10.99.0.1 -> .2 (or
 * 10.77 for the inner one), checksum complete. */
static void ipv4(uint8_t *p, uint16_t len, uint8_t proto, uint8_t net)
{
    memset(p, 0, 20);
    p[0] = 0x45;
    put16(p + 2, len);
    p[6] = 0x40;                        /* DF, as a TCP sender sets it */
    p[8] = 64;
    p[9] = proto;
    p[12] = 10; p[13] = net; p[14] = 0; p[15] = 1;
    p[16] = 10; p[17] = net; p[18] = 0; p[19] = 2;
    put16(p + 10, (uint16_t)~csum_fold32(csum_add(0, p, 20)));
}

/* The super-frame: returns its length in buf (after the 24-byte header). */
static size_t build(uint8_t *buf)
{
    struct tnl_hdr *h = (struct tnl_hdr *)buf;
    uint8_t *f = buf + sizeof *h, *in = f + OUTER;
    size_t payload = (size_t)SEGS * MSS, inner_len = INNER_HDRS + payload;
    static const uint8_t omac[12] = { 0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1 };
    static const uint8_t imac[12] = { 0x02, 0, 0, 0, 1, 2, 0x02, 0, 0, 0, 1, 1 };

    memcpy(f, omac, 12);
    put16(f + 12, 0x0800);
    ipv4(f + 14, (uint16_t)(20 + 8 + 8 + inner_len), 17, 99);
    put16(f + 34, 50000);               /* UDP source: a flow hash in a real VTEP */
    put16(f + 36, 4789);
    put16(f + 38, (uint16_t)(8 + 8 + inner_len));
    put16(f + 40, 0);                   /* zero over IPv4 (RFC 7348 section 5) */
    memset(f + 42, 0, 8);
    f[42] = 0x08;                       /* I flag */
    f[46] = 0x00; f[47] = 0x13; f[48] = 0x88; /* VNI 5000 */
    memcpy(in, imac, 12);
    put16(in + 12, 0x0800);
    ipv4(in + 14, (uint16_t)(20 + 20 + payload), 6, 77);
    uint8_t *th = in + 34;
    memset(th, 0, 20);
    put16(th, 40000);
    put16(th + 2, 5201);
    th[12] = 5 << 4;
    th[13] = 0x18;                      /* ACK|PSH */
    put16(th + 14, 65535);
    for (size_t i = 0; i < payload; i++)
        th[20 + i] = (uint8_t)i;
    /* Partial checksum: the pseudo-header sum, not complemented, as a TCP sender leaves it. */
    uint32_t ps = csum_add(0, in + 14 + 12, 8) + 6 + (uint32_t)(20 + payload);
    put16(th + 16, csum_fold32(ps));

    memset(h, 0, sizeof *h);
    h->flags = F_NEEDS_CSUM;
    h->gso_type = GSO_UDP_TUNNEL_IPV4 | GSO_TCPV4;
    h->hdr_len = htole16(OUTER + INNER_HDRS);
    h->gso_size = htole16(MSS);
    h->csum_start = htole16(OUTER + 34);
    h->csum_offset = htole16(16);
    h->outer_th_offset = htole16(34);
    h->inner_nh_offset = htole16(OUTER + 14);
    return OUTER + inner_len;
}

static int tap(const char *name, unsigned offloads, int hdr_sz)
{
    struct ifreq ifr;
    int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK), le = 1;

    if (fd < 0)
        return -1;
    memset(&ifr, 0, sizeof ifr);
    ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", name);
    if (ioctl(fd, TUNSETIFF, &ifr) < 0 || ioctl(fd, TUNSETVNETHDRSZ, &hdr_sz) < 0 ||
        ioctl(fd, TUNSETVNETLE, &le) < 0) {
        fprintf(stderr, "%s: %s\n", name, strerror(errno));
        close(fd);
        return -1;
    }
    if (ioctl(fd, TUNSETOFFLOAD, (unsigned long)offloads) < 0) {
        fprintf(stderr, "%s: TUNSETOFFLOAD 0x%x: %s\n", name, offloads, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

/* One write to tx, every read from rx for 300 ms; returns the number of reads. */
static int trial(const char *what, unsigned rx_offloads)
{
    static uint8_t buf[65536 + 64], rbuf[65536 + 64];
    int tx = tap("tx0", TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_UDP_TUNNEL_GSO, 24);
    int rx = tap("rx0", rx_offloads, 24), reads = 0;
    size_t total = 0;

    if (tx < 0 || rx < 0 ||
        sh("ip link set tx0 master br0 up && ip link set rx0 master br1 up"))
        return -1;
    usleep(200000);                     /* the bridges' ports forwarding */
    size_t len = build(buf);
    ssize_t w = write(tx, buf, sizeof(struct tnl_hdr) + len);
    printf("%s: wrote %zu-byte frame (+24-byte header): %s\n", what, len,
           w < 0 ? strerror(errno) : "accepted");
    for (;;) {
        struct pollfd p = { .fd = rx, .events = POLLIN };
        if (poll(&p, 1, 300) <= 0)
            break;
        ssize_t r = read(rx, rbuf, sizeof rbuf);
        if (r < (ssize_t)sizeof(struct tnl_hdr))
            break;
        const struct tnl_hdr *h = (const struct tnl_hdr *)rbuf;
        size_t flen = (size_t)r - sizeof *h;
        /* IPv6 router solicitations and the like are not ours: only UDP 4789. */
        if (flen < OUTER || rbuf[24 + 23] != 17 || (rbuf[24 + 36] << 8 | rbuf[24 + 37]) != 4789)
            continue;
        reads++;
        total += flen;
        printf("  read %zu bytes: flags 0x%x gso_type 0x%02x gso_size %u csum_start %u "
               "outer_th %u inner_nh %u\n", flen, h->flags, h->gso_type,
               le16toh(h->gso_size), le16toh(h->csum_start), le16toh(h->outer_th_offset),
               le16toh(h->inner_nh_offset));
    }
    printf("  %d read(s), %zu bytes\n", reads, total);
    close(tx);
    close(rx);
    return reads;
}

int main(void)
{
    char cmd[160];
    int whole, cut, rc = 1;

    snprintf(ns_name, sizeof ns_name, "zvsgso%d", (int)getpid() % 100000);
    snprintf(cmd, sizeof cmd, "ip netns add %s", ns_name);
    if (sh(cmd))
        return 2;
    snprintf(cmd, sizeof cmd, "/run/netns/%s", ns_name);
    int nsfd = open(cmd, O_RDONLY);
    if (nsfd < 0 || setns(nsfd, CLONE_NEWNET) < 0) {
        perror("setns");
        goto out;
    }
    if (sh("ip link add br0 type bridge stp_state 0 forward_delay 0 && "
           "ip link add br1 type bridge stp_state 0 forward_delay 0 && "
           "ip link add va0 mtu 1500 type veth peer name vb0 mtu 1500 && "
           "ip link set va0 master br0 up && ip link set vb0 master br1 up && "
           "ip link set br0 up && ip link set br1 up && "
           "sysctl -qw net.ipv6.conf.all.disable_ipv6=1"))
        goto out;
    whole = trial("rx0 CSUM|TSO4|TSO6|UDP_TUNNEL_GSO",
                  TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_UDP_TUNNEL_GSO);
    cut = trial("rx0 CSUM only", TUN_F_CSUM);
    printf("super-frame %s through tap, bridge and veth; a tap without the tunnel offload "
           "gets %d segment(s)\n", whole == 1 ? "WHOLE" : "NOT whole", cut);
    rc = whole == 1 ? 0 : 1;
out:
    snprintf(cmd, sizeof cmd, "ip netns del %s", ns_name);
    sh(cmd);
    return rc;
}
