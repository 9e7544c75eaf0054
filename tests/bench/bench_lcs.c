/* bench_lcs: frames through the LCS backend (backends/lcs.c: a packet socket on a Hercules
 * machine's LCS tap, driven by a guest_tap driver) and the switch, for callgrind.
 *
 * Design note.
 * - The frames are a capture's (--pcap FILE, libpcap's offline reader): the frame
 *   program's UDP as it left a Hercules machine's LCS tap (tests/bench/data, recorded by
 *   tests/bench/record_lcs_capture.sh), replayed in order and cycled through for
 *   --frames. The NIC's and the LAN's MACs are the capture's (the first frame's source
 *   and destination; every frame must carry the same two), so the frames go out as
 *   recorded, byte for byte.
 * - The machine's tap is one end of a veth pair in a network namespace of this program's
 *   own (unshare: root); its peer, a raw socket, plays the machine. The LCS socket is the
 *   one vswitchd makes (zvs_lcs_open), its driver bound to a QDIO NIC coupled to a switch
 *   whose uplink is a memlink ring.
 * - --dir out (guest -> switch): the peer sends the frames, a round of ROUND at a time
 *   (not measured); measured: what vswitchd does when the socket is readable,
 *   zvs_guest_tap_pump_out and zvs_switch_poll of the NIC, until the round is on the
 *   uplink (drained, not measured).
 * - --dir in (switch -> guest): the same frames as the LAN would answer them, the MACs,
 *   the IPv4 addresses and the UDP ports swapped (the checksums stay right: a ones'
 *   complement sum does not depend on the order of its words), injected on the uplink
 *   toward the guest's MAC (not measured); measured: zvs_switch_poll of the uplink and
 *   zvs_guest_tap_pump_in (the thin interrupt's work); the peer reads the frames (not
 *   measured) and each must be the one injected.
 * - Callgrind counts the program's instructions between CALLGRIND_START and _STOP (the
 *   kernel's side of each system call is not in them: tests/bench/bench_lcs.sh counts the
 *   calls with strace). Every frame must arrive and be counted, or exit 1.
 * - Prints `BENCH_FRAMES n` and `BENCH_CALLGRIND_MACROS 0|1` as bench_core does.
 */
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <poll.h>
#include <sys/time.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <sys/socket.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <pcap/pcap.h>

#include "backends/guest_tap.h"
#include "backends/lcs.h"
#include "backends/memlink.h"
#include "dataplane/switch.h"
#include "qdio/nic_qdio.h"
#include "qdio/qdio.h"

#include "tests/bench/bench_callgrind.h"

#define ROUND     64u                   /* frames per round: within every socket's buffer */
#define ROUND_TRIES 1000                /* pumps per round before it counts as lost */
#define CAPTURE_MAX 4096u               /* frames a capture may hold */

/* The capture's frames, in order, as they are to be sent (--dir in: swapped). */
struct capture {
    uint32_t  n;
    uint8_t   guest[6], lan[6];         /* the NIC's and the LAN's MACs */
    uint8_t  *frame[CAPTURE_MAX];
    uint32_t  len[CAPTURE_MAX];
};

struct bench {
    struct zvs_switch    *sw;
    struct zvs_port      *up, *nic;
    struct zvs_guest_tap *t;
    int                   peer;
    uint64_t              now;
    uint64_t              next;         /* frames sent: the capture's next is next % n */
};

static struct capture cap;

static void swap_bytes(uint8_t *a, uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint8_t t = a[i];
        a[i] = b[i];
        b[i] = t;
    }
}

/* A frame of the guest's as the LAN would answer it: MACs, IPv4 addresses, UDP ports. */
static void frame_reverse(uint8_t *f, uint32_t len)
{
    swap_bytes(f, f + 6, 6);
    if (len < 34 || f[12] != 0x08 || f[13] != 0x00)
        return;
    swap_bytes(f + 26, f + 30, 4);
    uint32_t l4 = 14u + (f[14] & 0x0Fu) * 4u;
    if (f[23] == 17 && len >= l4 + 4)
        swap_bytes(f + l4, f + l4 + 2, 2);
}

/* Reads FILE's frames into cap: Ethernet, whole (not cut at a snap length), 60..1514
 * bytes, all from one unicast source to one unicast destination. */
static int capture_load(const char *file, bool reverse)
{
    char err[PCAP_ERRBUF_SIZE];
    pcap_t *pc = pcap_open_offline(file, err);
    struct pcap_pkthdr *h;
    const u_char *data;
    int rc;

    if (!pc) {
        fprintf(stderr, "bench_lcs: %s: %s\n", file, err);
        return -1;
    }
    if (pcap_datalink(pc) != DLT_EN10MB) {
        fprintf(stderr, "bench_lcs: %s: not an Ethernet capture\n", file);
        pcap_close(pc);
        return -1;
    }
    while ((rc = pcap_next_ex(pc, &h, &data)) == 1) {
        if (cap.n == CAPTURE_MAX || h->caplen != h->len || h->len < 60 || h->len > 1514 ||
            (cap.n == 0 && ((data[0] | data[6]) & 1)) ||
            (cap.n > 0 && (memcmp(data, cap.lan, 6) || memcmp(data + 6, cap.guest, 6)))) {
            fprintf(stderr, "bench_lcs: %s: frame %u: more than %u frames, cut, not 60..1514 "
                    "bytes, a group address or another pair of MACs\n", file, cap.n + 1,
                    CAPTURE_MAX);
            break;
        }
        if (cap.n == 0) {
            memcpy(cap.lan, data, 6);
            memcpy(cap.guest, data + 6, 6);
        }
        if (!(cap.frame[cap.n] = malloc(h->len)))
            break;
        memcpy(cap.frame[cap.n], data, h->len);
        cap.len[cap.n] = h->len;
        if (reverse)
            frame_reverse(cap.frame[cap.n], h->len);
        cap.n++;
    }
    if (rc == -1)
        fprintf(stderr, "bench_lcs: %s: %s\n", file, pcap_geterr(pc));
    else if (rc == PCAP_ERROR_BREAK && cap.n == 0)
        fprintf(stderr, "bench_lcs: %s: no frames\n", file);
    pcap_close(pc);
    return rc == PCAP_ERROR_BREAK && cap.n > 0 ? 0 : -1;
}

static void capture_free(void)
{
    for (uint32_t i = 0; i < cap.n; i++)
        free(cap.frame[i]);
}

static int peer_open(const char *ifname)
{
    int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
    int big = 4 << 20;
    struct timeval tmo = { .tv_sec = 2 };   /* a frame that does not come is a loss */
    struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL),
                               .sll_ifindex = (int)if_nametoindex(ifname) };
    if (fd < 0 || sll.sll_ifindex == 0 ||
        bind(fd, (struct sockaddr *)&sll, sizeof sll) < 0 ||
        setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof big) < 0 ||
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tmo, sizeof tmo) < 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

static int bench_open(struct bench *b)
{
    struct zvs_switch_params sp = { .name = "LCSVSW", .vlan = { .aware = false, .native_vid = 1 } };
    struct zvs_guest g = { .owner = "FP1", .vdev = 0x0600 };
    int err = 0;

    memset(b, 0, sizeof *b);
    b->peer = -1;
    if (unshare(CLONE_NEWNET) < 0 ||
        /* IPv6 off first: its solicitations would be frames of nobody's round */
        system("sysctl -qw net.ipv6.conf.all.disable_ipv6=1 "
               "net.ipv6.conf.default.disable_ipv6=1 2>/dev/null; "
               "ip link add lcs0 type veth peer name lcs1 && ip link set lcs0 up && "
               "ip link set lcs1 up") != 0)
        return -EPERM;
    b->sw = zvs_switch_create(&sp);
    b->up = zvs_memlink_create("28BA", 1024, 0);
    if (!b->sw || !b->up || zvs_switch_add_uplink(b->sw, b->up) < 0)
        return -ENOMEM;
    b->nic = zvs_nic_qdio_create("FP1.0600", 8u * ZVS_QDIO_MB, 1500, &err);
    if (!b->nic)
        return err ? err : -ENOMEM;
    memcpy(g.mac, cap.guest, 6);
    zvs_vlan_port_init(&g.vlan, ZVS_VLAN_ACCESS, 1);
    if ((err = zvs_switch_add_guest(b->sw, b->nic, &g)) < 0 ||
        (err = zvs_lcs_open(-1, "lcs0", &b->t)) < 0 ||
        (err = zvs_guest_tap_bind(b->t, b->nic)) < 0)
        return err;
    b->peer = peer_open("lcs1");
    return b->peer < 0 ? -errno : 0;
}

static void bench_close(struct bench *b)
{
    zvs_guest_tap_close(b->t);          /* the driver before its NIC port */
    if (b->peer >= 0)
        close(b->peer);
    zvs_switch_destroy(b->sw);
}

/* One round guest -> switch; returns 0 when all n frames reached the uplink. */
static int round_out(struct bench *b, uint32_t n)
{
    uint64_t before = b->up->ctr.out_packets;

    for (uint32_t i = 0; i < n; i++, b->next++) {
        uint32_t k = (uint32_t)(b->next % cap.n);
        if (send(b->peer, cap.frame[k], cap.len[k], 0) != (ssize_t)cap.len[k])
            return -1;
    }
    /* The veth hands frames over in a softirq: wait for the first, outside the count. */
    struct pollfd p = { .fd = zvs_guest_tap_fd(b->t), .events = POLLIN };
    if (poll(&p, 1, 2000) != 1)
        return -1;
    for (int k = 0; k < ROUND_TRIES && b->up->ctr.out_packets - before < n; k++) {
        b->now++;
        CALLGRIND_START_INSTRUMENTATION;
        (void)zvs_guest_tap_pump_out(b->t);
        while (zvs_switch_poll(b->sw, b->nic, b->now) > 0) {
        }
        CALLGRIND_STOP_INSTRUMENTATION;
        zvs_memlink_drain(b->up);
    }
    return b->up->ctr.out_packets - before == n ? 0 : -1;
}

/* One round switch -> guest; returns 0 when the peer got all n frames, each the one
 * injected, in order. */
static int round_in(struct bench *b, uint32_t n)
{
    static uint8_t f[ZVS_QDIO_FRAME_MAX];
    uint64_t first = b->next;
    uint32_t got = 0;

    for (uint32_t i = 0; i < n; i++, b->next++) {
        uint32_t k = (uint32_t)(b->next % cap.n);
        if (zvs_memlink_inject(b->up, cap.frame[k], cap.len[k], NULL) < 0)
            return -1;
    }
    b->now++;
    CALLGRIND_START_INSTRUMENTATION;
    while (zvs_switch_poll(b->sw, b->up, b->now) > 0) {
    }
    (void)zvs_guest_tap_pump_in(b->t);
    CALLGRIND_STOP_INSTRUMENTATION;
    for (; got < n; got++) {
        uint32_t k = (uint32_t)((first + got) % cap.n);
        if (recv(b->peer, f, sizeof f, 0) != (ssize_t)cap.len[k] ||
            memcmp(f, cap.frame[k], cap.len[k]) != 0)
            break;
    }
    return got == n ? 0 : -1;
}

int main(int argc, char **argv)
{
    bool out = true;
    const char *pcap = NULL;
    uint64_t frames = 20000;

    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--dir") == 0 && (!strcmp(argv[i + 1], "in") ||
                                              !strcmp(argv[i + 1], "out")))
            out = strcmp(argv[i + 1], "out") == 0;
        else if (strcmp(argv[i], "--pcap") == 0)
            pcap = argv[i + 1];
        else if (strcmp(argv[i], "--frames") == 0 && atoll(argv[i + 1]) >= 0)
            frames = (uint64_t)atoll(argv[i + 1]);
        else {
            fprintf(stderr, "usage: bench_lcs --pcap FILE [--dir out|in] [--frames N]"
                    "   (root; under valgrind --tool=callgrind --instr-atstart=no)\n");
            return 2;
        }
    }
    if ((argc - 1) % 2 || !pcap) {
        fprintf(stderr, "bench_lcs: %s\n", pcap ? "an option without its value" : "no --pcap");
        return 2;
    }
    if (capture_load(pcap, !out) < 0) {
        capture_free();
        return 2;
    }
    struct bench b;
    int rc = bench_open(&b);
    if (rc < 0) {
        fprintf(stderr, "bench_lcs: setup failed (%s)\n", strerror(-rc));
        bench_close(&b);
        return 1;
    }
    for (uint64_t done = 0; done < frames && rc == 0; done += ROUND) {
        uint32_t n = frames - done < ROUND ? (uint32_t)(frames - done) : ROUND;
        rc = out ? round_out(&b, n) : round_in(&b, n);
    }
    struct zvs_guest_tap_stats st;
    zvs_guest_tap_stats(b.t, &st);
    if (rc == 0 && (out ? st.tap_rx_frames : st.tap_tx_frames) != frames)
        rc = -1;
    if (rc < 0)
        fprintf(stderr, "bench_lcs: frames lost: %llu sent, driver read %llu wrote %llu "
                "(full %llu, down %llu, errors %llu)\n",
                (unsigned long long)frames, (unsigned long long)st.tap_rx_frames,
                (unsigned long long)st.tap_tx_frames,
                (unsigned long long)st.tap_tx_dropped_full,
                (unsigned long long)st.tap_tx_dropped_down, (unsigned long long)st.tap_tx_errors);
    bench_close(&b);
    capture_free();
    printf("BENCH_FRAMES %llu\n", (unsigned long long)frames);
    printf("BENCH_CALLGRIND_MACROS %d\n", HAVE_CALLGRIND_H);
    return rc < 0 ? 1 : 0;
}
