/* Counters count frames on the wire (issue 15), through the real daemon (hermetic.h).
 *
 * GSO super-frames of known sizes cross the report's switch (CCBVSW1 on the port group
 * CCBGROUP, guests LNXA and LNXB on QDIO NICs driven over the attach socket, the group's
 * members on dummy links): a 29 KB TCP/IPv4 super-frame from guest to guest, a TCP/IPv6
 * one (payload an exact multiple of the MSS) to the LAN through the group, a UDP one
 * (USO, GSO_UDP_L4) from the LAN to a guest, and a plain 98-byte frame. QUERY NIC and
 * QUERY VSWITCH DETAILS must show the segments and their Ethernet bytes (headers repeated
 * per segment, no FCS), computed by hand below, while every super-frame crosses whole.
 * The counter lines are found after an anchor ("RDEV: 28BA", "Adapter Owner: LNXA"), so
 * the test does not depend on the rest of the responses' layout.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hermetic.h"
#include "daemon/evloop.h"
#include "dataplane/port.h"
#include "qdio/qdio_guest.h"

static const char *const ccb_links[] = { "osa28ba", "osa2902", "osa2a00", "osa2b00",
                                         "osa2d00", NULL };

static const uint8_t MAC_A[6] = { 0x02, 0x00, 0x0c, 0x00, 0x01, 0x01 };
static const uint8_t MAC_B[6] = { 0x02, 0x00, 0x0c, 0x00, 0x01, 0x0a };
static const uint8_t MAC_LAN[6] = { 0x00, 0x1b, 0x21, 0x00, 0x00, 0x07 };

/* The super-frames: headers per segment, payload, MSS; segments and wire bytes by hand. */
#define TCP4_HDR   (14 + 20 + 32)           /* TCP with the timestamp option: 66 */
#define TCP4_PAY   (20 * 1448 + 500)        /* 29460: 20 full segments and one of 500 */
#define TCP4_SEGS  21
#define TCP4_WIRE  (TCP4_PAY + 21 * TCP4_HDR)        /* 30846 */
/* A dummy link's slots hold 2048 bytes (memlink.h), so what crosses one is a small
 * super-frame: a stack's MSS of 536 (RFC 879's default), or a UDP sender's gso_size 600. */
#define TCP6_HDR   (14 + 40 + 32)           /* 86 */
#define TCP6_MSS   536
#define TCP6_PAY   (3 * TCP6_MSS)           /* exactly 3 segments, the last one full */
#define TCP6_SEGS  3
#define TCP6_WIRE  (3 * (TCP6_HDR + TCP6_MSS))       /* 1866 */
#define UDP_HDR    (14 + 20 + 8)            /* 42 */
#define UDP_MSS    600
#define UDP_PAY    1500                     /* 600 + 600 + 300 */
#define UDP_SEGS   3
#define UDP_WIRE   (UDP_PAY + 3 * UDP_HDR)           /* 1626 */
#define PING_LEN   98

static void wr16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

/* Ethernet / IPv4 or IPv6 / TCP (32-byte header) or UDP, payload bytes, and the virtio
 * metadata a sender's kernel gives it (partial checksum, GSO). Returns the length. */
static uint32_t super_frame(uint8_t *f, const uint8_t *dst, const uint8_t *src, int ver,
                            bool tcp, uint32_t payload, uint16_t mss, struct zvs_vnet *v)
{
    uint32_t l3 = 14, l4 = l3 + (ver == 4 ? 20 : 40), hl = l4 + (tcp ? 32 : 8);
    uint32_t len = hl + payload;
    memset(f, 0, hl);
    memcpy(f, dst, 6);
    memcpy(f + 6, src, 6);
    wr16(f + 12, ver == 4 ? 0x0800 : 0x86DD);
    uint8_t *ip = f + l3;
    if (ver == 4) {
        ip[0] = 0x45;
        wr16(ip + 2, len - l3);
        ip[8] = 64;
        ip[9] = tcp ? 6 : 17;
        ip[12] = 10, ip[15] = 1, ip[16] = 10, ip[19] = 2;
    } else {
        ip[0] = 0x60;
        wr16(ip + 4, len - l4);
        ip[6] = tcp ? 6 : 17;
        ip[7] = 64;
        ip[8] = 0x20, ip[23] = 1, ip[24] = 0x20, ip[39] = 2;
    }
    uint8_t *t = f + l4;
    wr16(t, 40000);
    wr16(t + 2, 5201);
    if (tcp) {
        t[12] = 8 << 4;                     /* 32 bytes: NOP NOP timestamp */
        t[13] = 0x10;                       /* ACK */
    } else {
        wr16(t + 4, len - l4);
    }
    for (uint32_t i = 0; i < payload; i++)
        f[hl + i] = (uint8_t)(i * 7u);
    *v = (struct zvs_vnet){ .flags = ZVS_VNET_F_NEEDS_CSUM, .hdr_len = (uint16_t)hl,
                            .gso_size = mss, .csum_start = (uint16_t)l4,
                            .csum_offset = tcp ? 16 : 6,
                            .gso_type = tcp ? (ver == 4 ? ZVS_VNET_GSO_TCPV4 : ZVS_VNET_GSO_TCPV6)
                                            : ZVS_VNET_GSO_UDP_L4 };
    return len;
}

static void guest_send_vnet(struct herm *h, struct herm_guest *g, const uint8_t *f,
                            uint32_t len, const struct zvs_vnet *v)
{
    struct zvs_qdio_pkt p = { .data = f, .len = len, .vnet = *v };
    assert_int_equal(zvs_qdio_guest_send(g->g, &p, 1), 1);
    assert_true(zvs_evloop_settle(h->loop) >= 0);
    zvs_qdio_guest_reap(g->g);
}

static void lan_send_vnet(struct herm *h, const char *link, const uint8_t *f, uint32_t len,
                          const struct zvs_vnet *v)
{
    struct herm_link *l = herm_link(h, link);
    struct zvs_frame fr = { .data = f, .len = len, .vnet = *v };
    struct zvs_tx t = { .f = &fr, .tag_op = ZVS_TAG_KEEP };
    enum zvs_drop why;
    assert_int_equal(l->far->ops->tx(l->far, &t, 1, &why), 1);
    assert_true(zvs_evloop_settle(h->loop) >= 0);
}

/* The number after `label` in the first line after `anchor` that has it. */
static unsigned long long counter_after(const char *text, const char *anchor, const char *label)
{
    const char *a = strstr(text, anchor);
    if (!a)
        fail_msg("no \"%s\" in:\n%s", anchor, text);
    const char *p = strstr(a, label);
    if (!p)
        fail_msg("no \"%s\" after \"%s\" in:\n%s", label, anchor, text);
    return strtoull(p + strlen(label), NULL, 10);
}

static void super_frames_count_as_their_segments(void **state)
{
    struct herm_opts o = {
        .sysconfig = "configs/lab/SYSTEM-CCB.CONFIG",
        .userdirect = "tests/unit/hermetic/USER-CCB.DIRECT",
        .links = ccb_links, .partner_lacp = true,
    };
    struct herm *h = herm_start(&o);
    herm_op(h, "SET PORT GROUP CCBGROUP JOIN 28BA 2902");
    herm_op(h, "DEFINE VSWITCH CCBVSW1 ETHERNET GROUP CCBGROUP");
    herm_op(h, "SET VSWITCH CCBVSW1 GRANT LNXA");
    herm_op(h, "SET VSWITCH CCBVSW1 GRANT LNXB");
    herm_op(h, "COUPLE USERID LNXA F000 TO SYSTEM CCBVSW1");
    herm_op(h, "COUPLE USERID LNXB F000 TO SYSTEM CCBVSW1");
    herm_warp(h, 10.0);                     /* both members distributing */
    struct herm_guest *a = herm_guest_attach(h, "LNXA", 0xF000);
    struct herm_guest *b = herm_guest_attach(h, "LNXB", 0xF000);
    herm_op(h, "SET VSWITCH CCBVSW1 COUNTERS CLEAR");

    static uint8_t f[65536];
    struct zvs_vnet v;
    /* LNXA -> LNXB: TCP/IPv4, crosses whole (the NIC takes super-frames) */
    uint32_t len = super_frame(f, MAC_B, MAC_A, 4, true, TCP4_PAY, 1448, &v);
    assert_int_equal(len, TCP4_HDR + TCP4_PAY);
    guest_send_vnet(h, a, f, len, &v);
    assert_int_equal(herm_guest_receive(h, b), 1);
    assert_int_equal(b->rx_bytes, len);
    /* LNXA -> the LAN through the group: TCP/IPv6, 3 full segments */
    uint64_t lan_rx = herm_link(h, "osa28ba")->data_rx + herm_link(h, "osa2902")->data_rx;
    len = super_frame(f, MAC_LAN, MAC_A, 6, true, TCP6_PAY, TCP6_MSS, &v);
    guest_send_vnet(h, a, f, len, &v);
    assert_int_equal(herm_link(h, "osa28ba")->data_rx + herm_link(h, "osa2902")->data_rx,
                     lan_rx + 1);           /* one super-frame on the dummy link */
    /* the LAN -> LNXB on member 28BA: UDP segmentation offload */
    len = super_frame(f, MAC_B, MAC_LAN, 4, false, UDP_PAY, UDP_MSS, &v);
    lan_send_vnet(h, "osa28ba", f, len, &v);
    assert_int_equal(herm_guest_receive(h, b), 1);
    /* a plain frame counts as itself */
    herm_frame(f, PING_LEN, MAC_B, MAC_A, 1);
    herm_guest_send(h, a, f, PING_LEN, 1);
    assert_int_equal(herm_guest_receive(h, b), 1);

    const char *out = herm_op(h, "QUERY NIC USERID LNXA F000 DETAILS");
    assert_int_equal(counter_after(out, "Adapter F000", "TX Packets:"), TCP4_SEGS + TCP6_SEGS + 1);
    assert_int_equal(counter_after(out, "Adapter F000", "TX Bytes:"),
                     TCP4_WIRE + TCP6_WIRE + PING_LEN);
    assert_int_equal(counter_after(out, "Adapter F000", "RX Packets:"), 0);
    out = herm_op(h, "QUERY NIC USERID LNXB F000 DETAILS");
    assert_int_equal(counter_after(out, "Adapter F000", "RX Packets:"), TCP4_SEGS + UDP_SEGS + 1);
    assert_int_equal(counter_after(out, "Adapter F000", "RX Bytes:"),
                     TCP4_WIRE + UDP_WIRE + PING_LEN);
    assert_int_equal(counter_after(out, "Adapter F000", "TX Packets:"), 0);

    out = herm_op(h, "QUERY VSWITCH CCBVSW1 DETAILS");
    assert_int_equal(counter_after(out, "Adapter Owner: LNXA", "TX Packets:"),
                     TCP4_SEGS + TCP6_SEGS + 1);
    assert_int_equal(counter_after(out, "Adapter Owner: LNXB", "RX Packets:"),
                     TCP4_SEGS + UDP_SEGS + 1);
    assert_int_equal(counter_after(out, "Adapter Owner: LNXB", "RX Bytes:"),
                     TCP4_WIRE + UDP_WIRE + PING_LEN);
    /* the OSA ports: what the group transmitted to the LAN, what 28BA received */
    assert_int_equal(counter_after(out, "RDEV: 28BA", "TX Packets:") +
                     counter_after(out, "RDEV: 2902", "TX Packets:"), TCP6_SEGS);
    assert_int_equal(counter_after(out, "RDEV: 28BA", "TX Bytes:") +
                     counter_after(out, "RDEV: 2902", "TX Bytes:"), TCP6_WIRE);
    assert_int_equal(counter_after(out, "RDEV: 28BA", "RX Packets:"), UDP_SEGS);
    assert_int_equal(counter_after(out, "RDEV: 28BA", "RX Bytes:"), UDP_WIRE);
    assert_int_equal(counter_after(out, "RDEV: 2902", "RX Packets:"), 0);
    herm_stop(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(super_frames_count_as_their_segments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
