/* uplink_tap on a tap made in the test's own network namespace (skipped when the process
 * may not make one): the port attaches to tap "ut0" and never makes one (-ENODEV for a
 * missing name, -EINVAL for an interface that is no tap, the tap still there after the
 * port is gone); its caps, MTU and MAC (the tap's with the last byte complemented); exact
 * bytes both ways against a raw AF_PACKET socket on ut0 (the kernel side); a VXLAN
 * super-frame written with the UDP tunnel GSO header taken whole by the kernel, and one
 * whose offsets the kernel refuses counted as a failed write while the burst goes on; the
 * tunnel offload off at attach and on only on request (ethtool's view of the tap). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>

#include "backends/ifinfo.h"
#include "backends/uplink_tap.h"
#include "netns.h"

static const uint8_t MAC_T[6] = { 0x02, 0, 0, 0, 0x0d, 0x01 };  /* the tap's kernel side */
static const uint8_t MAC_X[6] = { 0x02, 0, 0, 0, 0x0c, 0x01 };  /* nobody's */

static bool netns_ok;

static int setup_netns(void **state)
{
    netns_ok = tnet_enter();
    if (netns_ok) {
        tnet_sh("ip tuntap add ut0 mode tap && ip link set ut0 address 02:00:00:00:0d:01");
        tnet_disable_ipv6("ut0");
        tnet_sh("ip link set ut0 up");
        tnet_veth_add("va", "02:00:00:00:0a:01", "vb", "02:00:00:00:0b:01");
    }
    return 0;
}

static int tap_fd(const struct zvs_port *p)
{
    return p->ops->fd(p);
}

static struct zvs_port *open_ut0(void)
{
    int err = 0;
    struct zvs_port *p = zvs_uplink_tap_open("ut0", &err);

    if (!p)
        fail_msg("open ut0: %s", strerror(-err));
    return p;
}

static struct zvs_uplink_tap_stats stats_of(const struct zvs_port *p)
{
    struct zvs_uplink_tap_stats s;
    zvs_uplink_tap_stats(p, &s);
    return s;
}

/* The tap's tx-udp_tnl-segmentation feature as ethtool shows it: on while the kernel may
 * hand the reader tunnel super-frames whole. */
static bool tunnel_offload_on(const char *dev)
{
    char cmd[96], line[160];
    bool on = false;

    snprintf(cmd, sizeof cmd, "ethtool -k %s 2>/dev/null", dev);
    FILE *f = popen(cmd, "r");
    assert_non_null(f);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "tx-udp_tnl-segmentation: on", 27) == 0)
            on = true;
    pclose(f);
    return on;
}

/* Off at attach, so a tap on a plain VSWITCH gets tunnel traffic segmented (no port
 * but a VXLAN uplink takes a tunnel super-frame); on while a VXLAN uplink asks. */
static void test_tunnel_offload_on_request(void **state)
{
    if (!netns_ok)
        skip();
    struct zvs_port *p = open_ut0();
    assert_false(tunnel_offload_on("ut0"));
    assert_int_equal(p->ops->tunnel_gso(p, true), 0);
    assert_true(tunnel_offload_on("ut0"));
    assert_int_equal(p->ops->tunnel_gso(p, false), 0);
    assert_false(tunnel_offload_on("ut0"));
    p->ops->destroy(p);
}

static void test_attaches_never_creates(void **state)
{
    int err = 0;
    uint8_t mac[6], want[6];

    if (!netns_ok)
        skip();
    assert_null(zvs_uplink_tap_open("nosuch0", &err));
    assert_int_equal(err, -ENODEV);
    assert_int_equal(if_nametoindex("nosuch0"), 0);     /* TUNSETIFF would have made it */
    assert_null(zvs_uplink_tap_open("va", &err));       /* a veth is no tap */
    assert_int_equal(err, -EINVAL);

    struct zvs_port *p = open_ut0();
    assert_string_equal(p->ops->kind, "rdevtap");
    assert_int_equal(p->caps, ZVS_CAP_CSUM | ZVS_CAP_GSO | ZVS_CAP_UDP_TUNNEL_GSO);
    assert_int_equal(p->max_gso, 65535);
    assert_int_equal(p->mtu, 1500);
    zvs_uplink_tap_mac(p, mac);
    memcpy(want, MAC_T, 6);
    want[5] = (uint8_t)~want[5];
    assert_memory_equal(mac, want, 6);
    tnet_wait_running("ut0", true);                     /* attached: the tap has carrier */
    p->ops->destroy(p);
    assert_true(if_nametoindex("ut0") > 0);             /* the system's tap stays */
    tnet_wait_running("ut0", false);
}

static void test_exact_bytes_both_ways(void **state)
{
    uint8_t f[300], got[2048];
    struct zvs_frame fr[ZVS_BATCH];
    enum zvs_drop why = ZVS_DROP_TX_FAIL;

    if (!netns_ok)
        skip();
    struct zvs_port *p = open_ut0();
    int peer = tnet_peer_open("ut0", false);
    tnet_wait_running("ut0", true);

    /* The kernel side sends: the port reads it as it was. */
    tnet_frame(f, sizeof f, 7, MAC_X, MAC_T);
    tnet_peer_send(peer, f, sizeof f, NULL);
    int n = tnet_port_rx(p, tap_fd, fr, ZVS_BATCH);
    assert_int_equal(n, 1);
    assert_int_equal(fr[0].len, sizeof f);
    assert_memory_equal(fr[0].data, f, sizeof f);
    assert_int_equal(fr[0].vnet.gso_type, ZVS_VNET_GSO_NONE);
    p->ops->rx_release(p, fr, n);

    /* The port writes: the kernel side gets the same bytes. */
    tnet_frame(f, sizeof f, 9, MAC_T, MAC_X);
    struct zvs_frame out = { .data = f, .len = sizeof f };
    struct zvs_tx tx = { .f = &out };
    assert_int_equal(p->ops->tx(p, &tx, 1, &why), 1);
    assert_int_equal(tnet_peer_recv(peer, got, sizeof got, NULL), (int)sizeof f);
    assert_memory_equal(got, f, sizeof f);
    assert_int_equal(stats_of(p).tx_frames, 1);
    close(peer);
    p->ops->destroy(p);
}

/* A VXLAN frame over IPv4 carrying an inner IPv4/TCP super-frame of SEGS x MSS bytes. */
enum { SEGS = 4, MSS = 1400, OUTER = 50, INNER_HDRS = 54 };

static uint32_t put_ipv4(uint8_t *ip, uint32_t len, uint8_t proto, uint8_t net)
{
    memset(ip, 0, 20);
    ip[0] = 0x45;
    zvs_put_be16(ip + 2, (uint16_t)len);
    ip[8] = 64;
    ip[9] = proto;
    ip[12] = 10; ip[13] = net; ip[15] = 1;
    ip[16] = 10; ip[17] = net; ip[19] = 2;
    zvs_put_be16(ip + 10, (uint16_t)~tnet_csum_fold(tnet_csum_add(0, ip, 20)));
    return 20;
}

static uint32_t vxlan_super_frame(uint8_t *b, struct zvs_vnet *v)
{
    uint32_t inner = INNER_HDRS + SEGS * MSS;

    tnet_frame(b, OUTER + inner, 3, MAC_T, MAC_X);      /* payload bytes, then headers */
    zvs_put_be16(b + 12, 0x0800);
    put_ipv4(b + 14, 20 + 8 + 8 + inner, 17, 99);
    zvs_put_be16(b + 34, 50000);
    zvs_put_be16(b + 36, 4789);
    zvs_put_be16(b + 38, (uint16_t)(8 + 8 + inner));
    zvs_put_be16(b + 40, 0);
    memset(b + 42, 0, 8);
    b[42] = 0x08;
    b[48] = 0x88;                                       /* VNI 0x000088 */
    uint8_t *in = b + OUTER;
    memcpy(in, MAC_X, 6);
    memcpy(in + 6, MAC_T, 6);
    zvs_put_be16(in + 12, 0x0800);
    put_ipv4(in + 14, 20 + 20 + SEGS * MSS, 6, 77);
    memset(in + 34, 0, 20);
    zvs_put_be16(in + 34, 40000);
    zvs_put_be16(in + 36, 5201);
    in[46] = 0x50;
    in[47] = 0x10;                                      /* ACK */
    /* The partial checksum: the pseudo-header's sum, as a TCP sender leaves it. */
    uint32_t ps = tnet_csum_add(0, in + 26, 8) + 6 + 20 + SEGS * MSS;
    zvs_put_be16(in + 34 + 16, tnet_csum_fold(ps));
    *v = (struct zvs_vnet){
        .flags = ZVS_VNET_F_NEEDS_CSUM, .gso_type = ZVS_VNET_GSO_TCPV4 | ZVS_VNET_GSO_UDP_TUNNEL4,
        .hdr_len = OUTER + INNER_HDRS, .gso_size = MSS, .csum_start = OUTER + 34,
        .csum_offset = 16, .tnl_outer_th = 34, .tnl_inner_nh = OUTER + 14,
    };
    return OUTER + inner;
}

static void test_tunnel_super_frame_taken_whole(void **state)
{
    static uint8_t sf[8192], got[8192];
    enum zvs_drop why = ZVS_DROP_NO_BUFFER;

    if (!netns_ok)
        skip();
    struct zvs_port *p = open_ut0();
    int peer = tnet_peer_open("ut0", false);
    tnet_wait_running("ut0", true);

    struct zvs_vnet v, bad;
    uint32_t len = vxlan_super_frame(sf, &v);
    bad = v;
    bad.tnl_inner_nh = 40;              /* inside the outer UDP header: the kernel's EINVAL */
    struct zvs_frame f[2] = { { .data = sf, .len = len, .vnet = bad },
                              { .data = sf, .len = len, .vnet = v } };
    struct zvs_tx tx[2] = { { .f = &f[0] }, { .f = &f[1] } };
    assert_int_equal(p->ops->tx(p, tx, 2, &why), 1);
    assert_int_equal(why, ZVS_DROP_TX_FAIL);
    struct zvs_uplink_tap_stats s = stats_of(p);
    assert_int_equal(s.tx_fail, 1);
    assert_int_equal(s.last_errno, EINVAL);
    assert_int_equal(s.tx_tunnel_gso, 1);
    /* A packet socket on the kernel side sees the super-frame as one skb, unsegmented. */
    assert_int_equal(tnet_peer_recv(peer, got, sizeof got, NULL), (int)len);
    assert_memory_equal(got, sf, OUTER + INNER_HDRS - 4);      /* up to the TCP checksum */
    assert_memory_equal(got + OUTER + INNER_HDRS, sf + OUTER + INNER_HDRS, SEGS * MSS);
    assert_true(tnet_peer_quiet(peer));
    close(peer);
    p->ops->destroy(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_attaches_never_creates),
        cmocka_unit_test(test_exact_bytes_both_ways),
        cmocka_unit_test(test_tunnel_super_frame_taken_whole),
        cmocka_unit_test(test_tunnel_offload_on_request),
    };
    return cmocka_run_group_tests_name("uplink_tap", tests, setup_netns, NULL);
}
