/* vswitchd with a VXLAN VSWITCH whose segment carries less than a guest's usual 1500
 * (daemon/daemon_vxlan_mtu.c), hermetic: the underlay OSA 28BA is a dummy link of MTU
 * 1500, so the segment carries 1450 over IPv4 and 1430 over IPv6.
 *  - The MTU a NIC's kind is given for its switch (a tap vswitchd makes takes it).
 *  - A QDIO program's frame too big for the segment is counted (the uplink port's
 *    oversize discards) and told to the operator and the NIC's owner (ZVSVXL1241W): at the first, then at most
 *    once a minute per NIC, each NIC on its own; the guest's frame length, not the tag
 *    a VLAN AWARE switch adds for the segment.
 *  - Taps (in a network namespace of this test's own, skipped where that is refused): one
 *    made for a NIC coupled at start is made at the segment's MTU; one made before its
 *    NIC couples is lowered at COUPLE; one whose guest raised its MTU keeps it, and its
 *    next COUPLE says so (ZVSVXL1240W).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "backends/dummy.h"
#include "backends/memlink.h"
#include "daemon/daemon_impl.h"
#include "daemon/step_fault.h"
#include "qdio/qdio_guest.h"
#include "tests/unit/herm_vxlan.h"
#include "tests/unit/hermetic.h"

static const char *const links[] = { "osa28ba", NULL };
static const uint8_t MAC_A[6] = { 0x02, 0x00, 0x00, 0x00, 0x01, 0x01 };   /* LNXA F000 */
static const uint8_t MAC_B[6] = { 0x02, 0x00, 0x00, 0x00, 0x01, 0x0a };   /* LNXB F000 */
static const uint8_t MAC_R[6] = { 0x02, 0x00, 0x00, 0x00, 0x0a, 0x0a };   /* behind .2 */

static bool netns_ok;                   /* this test's own network namespace, for taps */

static struct herm *start(const char *sysconfig, const char *userdirect)
{
    struct herm_opts o = { .sysconfig = sysconfig, .userdirect = userdirect,
                           .links = links, .console = true };
    return herm_start(&o);
}

/* The MTU the daemon gives the kind of userid's NIC vdev (zvsd_vxlan_nic_mtu). */
static uint32_t nic_mtu(struct herm *h, const char *userid, uint16_t vdev)
{
    const struct zvs_cfg *cfg = h->d->run;
    int u = zvs_cfg_find_user(cfg, userid);
    assert_true(u >= 0);
    for (unsigned i = cfg->user[u].first_nic; i < cfg->user[u].first_nic + cfg->user[u].nnic;
         i++)
        if (cfg->nic[i].vdev == vdev)
            return zvsd_vxlan_nic_mtu(h->d, &cfg->nic[i]);
    fail_msg("%s has no NIC %04X", userid, vdev);
    return 0;
}

/* The segment's MTU is what a NIC on the switch is held to: 1450 of a 1500-byte IPv4
 * underlay, 1430 of an IPv6 one; nothing for a NIC not coupled to it. */
static void segment_mtu_for_nics(void **state)
{
    struct herm *h = start("tests/unit/hermetic/SYSTEM-VXLAN-MTU.CONFIG",
                           "tests/unit/hermetic/USER-CCB.DIRECT");
    herm_expect(herm_op(h, "QUERY VSWITCH VXSW"), "underlay RDEV: 28BA  MTU: 1450");
    assert_int_equal(nic_mtu(h, "LNXA", 0xF000), 0);            /* not coupled */
    herm_op(h, "COUPLE USERID LNXA F000 TO SYSTEM VXSW");
    assert_int_equal(nic_mtu(h, "LNXA", 0xF000), 1450);
    herm_stop(h);

    h = start("tests/unit/hermetic/SYSTEM-VXLAN6-MTU.CONFIG",
              "tests/unit/hermetic/USER-CCB.DIRECT");
    herm_expect(herm_op(h, "QUERY VSWITCH VXSW"),
                "VXLAN VTEP: 2001:db8::1  UDP port: 4789  underlay RDEV: 28BA  MTU: 1430");
    herm_op(h, "COUPLE USERID LNXB F000 TO SYSTEM VXSW");
    assert_int_equal(nic_mtu(h, "LNXB", 0xF000), 1430);
    herm_stop(h);
}

/* sysconfig's daemon on USER-CCB.DIRECT's program guests with the operator's console
 * (*op), LNXA's F000 coupled to VXSW and attached. */
static struct herm *start_lnxa(const char *sysconfig, int *op, struct herm_guest **a)
{
    struct herm *h = start(sysconfig, "tests/unit/hermetic/USER-CCB.DIRECT");
    *op = herm_console_attach(h, "OPERATOR", "ABCDEFG");
    herm_op(h, "COUPLE USERID LNXA F000 TO SYSTEM VXSW");
    herm_expect(herm_console_read(h, *op), "ZVSNIC1176I NIC F000 of user LNXA is connected");
    *a = herm_guest_attach(h, "LNXA", 0xF000);
    return h;
}

/* n frames of len bytes from guest g (MAC src) to a MAC behind the remote VTEP; the
 * console then says exactly `want`. */
static void send_told(struct herm *h, int op, struct herm_guest *g, const uint8_t src[6],
                      uint32_t len, int n, const char *want)
{
    static uint8_t f[1600];
    herm_frame(f, len, MAC_R, src, len);
    herm_guest_send(h, g, f, len, n);
    assert_string_equal(herm_console_read(h, op), want);
}

/* A program's frames: one that fits goes on, one past the segment is counted and told
 * with the NIC, its length and the MTUs, the first at once and then once a minute; another
 * NIC's first is told in the same minute. */
static void program_frames_too_big_told(void **state)
{
    int op;
    struct herm_guest *a;
    struct herm *h = start_lnxa("tests/unit/hermetic/SYSTEM-VXLAN-MTU.CONFIG", &op, &a);
    herm_op(h, "COUPLE USERID LNXB F000 TO SYSTEM VXSW");
    (void)herm_console_read(h, op);                 /* LNXB's ZVSNIC1176I */
    struct herm_guest *b = herm_guest_attach(h, "LNXB", 0xF000);

    send_told(h, op, a, MAC_A, 1450 + 14, 1, "");   /* fits: waits for ARP, not the MTU */
    send_told(h, op, a, MAC_A, 1514, 3,
              "0.000s ZVSVXL1241W VSWITCH VXSW discarded a frame of 1514 bytes from NIC F000 "
              "of user LNXA: it needs MTU 1500, the VXLAN segment carries 1450\n");
    herm_warp(h, 30);
    send_told(h, op, a, MAC_A, 1514, 1, "");        /* within the minute: counted only */
    send_told(h, op, b, MAC_B, 1451 + 14, 1,        /* another NIC: its own first */
              "30.000s ZVSVXL1241W VSWITCH VXSW discarded a frame of 1465 bytes from NIC F000 "
              "of user LNXB: it needs MTU 1451, the VXLAN segment carries 1450\n");
    herm_warp(h, 61);
    send_told(h, op, a, MAC_A, 1500, 1,
              "61.000s ZVSVXL1241W VSWITCH VXSW discarded a frame of 1500 bytes from NIC F000 "
              "of user LNXA: it needs MTU 1486, the VXLAN segment carries 1450\n");
    /* Every one counted: the switch drops a frame longer than the uplink's MTU before the
     * VTEP sees it (the uplink port's oversize discards). */
    herm_expect(herm_op(h, "QUERY VSWITCH VXSW DETAILS"), "    Drops: oversize 6\n");
    herm_stop(h);
}

/* On a VLAN AWARE switch the guest's frame leaves for the segment tagged (VLAN 10's VNI):
 * the length told is the guest's frame, the tag the switch adds not counted. */
static void tagged_frame_told_as_sent(void **state)
{
    int op;
    struct herm_guest *a;
    struct herm *h = start_lnxa("tests/unit/hermetic/SYSTEM-VXLAN-VLAN.CONFIG", &op, &a);

    send_told(h, op, a, MAC_A, 1451 + 14, 1,
              "0.000s ZVSVXL1241W VSWITCH VXSW discarded a frame of 1465 bytes from NIC F000 "
              "of user LNXA: it needs MTU 1451, the VXLAN segment carries 1450\n");
    herm_warp(h, 60);
    send_told(h, op, a, MAC_A, 1514, 1,
              "60.000s ZVSVXL1241W VSWITCH VXSW discarded a frame of 1514 bytes from NIC F000 "
              "of user LNXA: it needs MTU 1500, the VXLAN segment carries 1450\n");
    /* Both dropped by the switch, tagged (1469 and 1518 bytes against 1450 + 18), and
     * counted there. */
    herm_expect(herm_op(h, "QUERY VSWITCH VXSW DETAILS"), "    Drops: oversize 2\n");
    herm_stop(h);
}

/* A guest at MTU 1500 doing TSO: a TCP/IPv4 super-frame of 3 segments, MSS 1448 with a
 * 32-byte TCP header (timestamps), so each segment is a 1514-byte frame. The underlay here
 * takes no super-frames, so the switch cuts them to the segment's MTU and none fits: the
 * frame is oversize (each of its segments counted) and told as a segment's length. */
static void tso_super_frame_told(void **state)
{
    int op;
    struct herm_guest *a;
    struct herm *h = start_lnxa("tests/unit/hermetic/SYSTEM-VXLAN-MTU.CONFIG", &op, &a);
    static uint8_t f[14 + 52 + 3 * 1448];
    uint32_t iplen = 52 + 3 * 1448;
    uint32_t len = 14 + iplen;
    memcpy(f, MAC_R, 6);
    memcpy(f + 6, MAC_A, 6);
    f[12] = 0x08;                                       /* IPv4 */
    uint8_t *ip = f + 14;
    memset(ip, 0, 52);
    ip[0] = 0x45; ip[2] = (uint8_t)(iplen >> 8); ip[3] = (uint8_t)iplen; ip[8] = 64; ip[9] = 6;
    ip[12] = 10; ip[15] = 1; ip[16] = 10; ip[19] = 2;
    ip[20 + 12] = 0x80; ip[20 + 13] = 0x10;             /* 32-byte TCP header, ACK */
    struct zvs_qdio_pkt p = { .data = f, .len = len,
        .vnet = { .flags = ZVS_VNET_F_NEEDS_CSUM, .gso_type = ZVS_VNET_GSO_TCPV4,
                  .hdr_len = 66, .gso_size = 1448, .csum_start = 34, .csum_offset = 16 } };
    assert_int_equal(zvs_qdio_guest_send(a->g, &p, 1), 1);
    assert_true(zvs_evloop_settle(h->loop) >= 0);
    zvs_qdio_guest_reap(a->g);
    assert_string_equal(herm_console_read(h, op),
        "0.000s ZVSVXL1241W VSWITCH VXSW discarded a frame of 1514 bytes from NIC F000 "
        "of user LNXA: it needs MTU 1500, the VXLAN segment carries 1450\n");
    herm_expect(herm_op(h, "QUERY VSWITCH VXSW DETAILS"), "    Drops: oversize 3\n");
    herm_stop(h);
}

/* ---- taps (this test's own network namespace) ---------------------------------------- */

static int if_mtu(const char *name, int set)
{
    struct ifreq ifr;
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    assert_true(fd >= 0);
    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", name);
    ifr.ifr_mtu = set;
    int rc = ioctl(fd, set ? SIOCSIFMTU : SIOCGIFMTU, &ifr);
    close(fd);
    assert_int_equal(rc, 0);
    return ifr.ifr_mtu;
}

/* A tap made for a NIC coupled to the segment at start is made at its MTU (1450; 1430
 * over IPv6); one made before its NIC couples is lowered at COUPLE. */
static void taps_made_at_segment_mtu(void **state)
{
    if (!netns_ok)
        skip();
    struct herm *h = start("tests/unit/hermetic/SYSTEM-VXLAN-MTU.CONFIG",
                           "tests/unit/hermetic/USER-VXLAN-TAP.DIRECT");
    int op = herm_console_attach(h, "OPERATOR", "ABCDEFG");
    assert_int_equal(if_mtu("zvxa-f000", 0), 1450);
    assert_int_equal(if_mtu("zvxb-f000", 0), 1500);             /* no switch yet */
    herm_op(h, "COUPLE USERID LNXB F000 TO SYSTEM VXSW");
    assert_int_equal(if_mtu("zvxb-f000", 0), 1450);
    assert_string_equal(herm_console_read(h, op),
        "0.000s ZVSNIC1176I NIC F000 of user LNXB is connected to VSWITCH SYSTEM VXSW\n");
    herm_stop(h);

    h = start("tests/unit/hermetic/SYSTEM-VXLAN6-MTU.CONFIG",
              "tests/unit/hermetic/USER-VXLAN-TAP.DIRECT");
    assert_int_equal(if_mtu("zvxa-f000", 0), 1430);
    herm_op(h, "COUPLE USERID LNXB F000 TO SYSTEM VXSW");
    assert_int_equal(if_mtu("zvxb-f000", 0), 1430);
    herm_stop(h);
}

/* The guest raised its tap's MTU past the segment's: its MTU is its own, and the next
 * COUPLE says it cannot be carried. */
static void tap_above_segment_told_at_couple(void **state)
{
    if (!netns_ok)
        skip();
    struct herm *h = start("tests/unit/hermetic/SYSTEM-VXLAN-MTU.CONFIG",
                           "tests/unit/hermetic/USER-VXLAN-TAP.DIRECT");
    int op = herm_console_attach(h, "OPERATOR", "ABCDEFG");
    (void)if_mtu("zvxa-f000", 1500);
    herm_op(h, "UNCOUPLE USERID LNXA F000");
    herm_op(h, "COUPLE USERID LNXA F000 TO SYSTEM VXSW");
    assert_int_equal(if_mtu("zvxa-f000", 0), 1500);
    assert_string_equal(herm_console_read(h, op),
        "0.000s ZVSNIC1177I NIC F000 of user LNXA is disconnected from VSWITCH SYSTEM VXSW\n"
        "0.000s ZVSNIC1176I NIC F000 of user LNXA is connected to VSWITCH SYSTEM VXSW\n"
        "0.000s ZVSVXL1240W NIC F000 of user LNXA has MTU 1500, but the VXLAN segment of "
        "VSWITCH VXSW carries 1450: larger frames are discarded\n");
    herm_stop(h);
}

/* The underlay's MTU set to m, as `ip link set osa28ba mtu m` on the host. */
static void underlay_mtu(struct herm *h, uint32_t m)
{
    zvs_memlink_set_mtu(herm_link(h, "osa28ba")->far, m);
    assert_true(zvs_evloop_settle(h->loop) >= 0);
}

/* The underlay's MTU shrinks under running guests: the segment follows (1400 - 50), a
 * tap still at vswitchd's MTU is lowered again, one whose guest set its own is told
 * (ZVSVXL1240W); no carrier message, nothing else changes. Below IPv4's 68 no tap can
 * follow, and every one is told. */
static void underlay_mtu_shrinks(void **state)
{
    if (!netns_ok)
        skip();
    struct herm *h = start("tests/unit/hermetic/SYSTEM-VXLAN-MTU.CONFIG",
                           "tests/unit/hermetic/USER-VXLAN-TAP.DIRECT");
    int op = herm_console_attach(h, "OPERATOR", "ABCDEFG");
    herm_op(h, "COUPLE USERID LNXB F000 TO SYSTEM VXSW");
    (void)if_mtu("zvxb-f000", 1500);                            /* LNXB's own */
    (void)herm_console_read(h, op);                             /* its ZVSNIC1176I */

    underlay_mtu(h, 1400);
    herm_expect(herm_op(h, "QUERY VSWITCH VXSW"), "underlay RDEV: 28BA  MTU: 1350");
    assert_int_equal(if_mtu("zvxa-f000", 0), 1350);
    assert_int_equal(if_mtu("zvxb-f000", 0), 1500);
    assert_string_equal(herm_console_read(h, op),
        "0.000s ZVSVXL1240W NIC F000 of user LNXB has MTU 1500, but the VXLAN segment of "
        "VSWITCH VXSW carries 1350: larger frames are discarded\n");

    underlay_mtu(h, 110);                                       /* a segment of 60 */
    assert_int_equal(if_mtu("zvxa-f000", 0), 1350);
    assert_string_equal(herm_console_read(h, op),
        "0.000s ZVSVXL1240W NIC F000 of user LNXA has MTU 1350, but the VXLAN segment of "
        "VSWITCH VXSW carries 60: larger frames are discarded\n"
        "0.000s ZVSVXL1240W NIC F000 of user LNXB has MTU 1500, but the VXLAN segment of "
        "VSWITCH VXSW carries 60: larger frames are discarded\n");
    herm_stop(h);
}

/* A command whose pass coupled a tap and then failed is rolled back whole: the tap keeps
 * the MTU it had (the fit waits for the command to stand), and nothing is said. The
 * underlay comes after the start, so the tap is made at 1500; a command opens the segment
 * (LNXC not yet granted: nothing coupled to fit), then GRANT couples LNXC's tap and its
 * second NIC cannot get queues. */
static void rolled_back_couple_leaves_tap(void **state)
{
    if (!netns_ok)
        skip();
    static const char *const none[] = { NULL };
    struct herm_opts o = { .sysconfig = "tests/unit/hermetic/SYSTEM-VXLAN-MTU.CONFIG",
                           .userdirect = "tests/unit/hermetic/USER-VXLAN-ROLLBACK.DIRECT",
                           .links = none, .console = true };
    struct herm *h = herm_start(&o);
    int op = herm_console_attach(h, "OPERATOR", "ABCDEFG");
    assert_int_equal(if_mtu("zvxc-f000", 0), 1500);             /* no segment yet */
    struct zvs_port *far;
    assert_int_equal(zvs_dummy_create("osa28ba", &far), 0);
    herm_op(h, "SET VSWITCH VXSW GRANT LNXB");
    herm_expect(herm_op(h, "QUERY VSWITCH VXSW"), "MTU: 1450");  /* the segment opened */
    assert_int_equal(if_mtu("zvxc-f000", 0), 1500);
    (void)herm_console_read(h, op);                             /* HCPSWU2830I: ready */
    zvsd_step_fail(h->d, ZVSD_STEP_NIC_QUEUES, 2, ENOMEM);
    int rc;
    const char *r = herm_cp(h, "OPERATOR", "ABCDEFG", "SET VSWITCH VXSW GRANT LNXC", &rc);
    assert_int_equal(rc, 1119);
    assert_null(strstr(r, "ZVSCMD1150W"));                      /* rolled back exactly */
    assert_int_equal(if_mtu("zvxc-f000", 0), 1500);
    assert_string_equal(herm_console_read(h, op), "");

    /* The same command standing: the tap is lowered, after its NIC's ZVSNIC1176I. */
    herm_op(h, "SET VSWITCH VXSW GRANT LNXC");
    assert_int_equal(if_mtu("zvxc-f000", 0), 1450);
    herm_stop(h);
    far->ops->destroy(far);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(segment_mtu_for_nics),
        cmocka_unit_test(program_frames_too_big_told),
        cmocka_unit_test(tagged_frame_told_as_sent),
        cmocka_unit_test(tso_super_frame_told),
        cmocka_unit_test(taps_made_at_segment_mtu),
        cmocka_unit_test(tap_above_segment_told_at_couple),
        cmocka_unit_test(rolled_back_couple_leaves_tap),
        cmocka_unit_test(underlay_mtu_shrinks),
    };
    /* The taps (and nothing else: the daemon's uplinks are dummy links) in a namespace
     * that dies with this process. */
    netns_ok = unshare(CLONE_NEWNET) == 0 && access("/dev/net/tun", R_OK | W_OK) == 0;
    return cmocka_run_group_tests(tests, NULL, NULL);
}
