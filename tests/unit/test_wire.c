/* Frames on the wire (dataplane/wire.h): what a frame descriptor counts as, by hand for
 * super-frames of known sizes, and checked against what vnet.c's segmenter really cuts
 * (the count of the segments and the sum of their lengths). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "dataplane/vnet.h"
#include "dataplane/wire.h"

static void wr16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

struct spec {
    int      ver;                       /* 4 or 6 */
    bool     vlan;                      /* one 802.1Q tag */
    bool     tcp;                       /* else UDP */
    uint32_t tcp_hlen;                  /* 20 or 32 */
    uint32_t payload;
    uint16_t mss;
    uint8_t  gso_type;
};

static uint8_t frame[70000];

/* A well-formed super-frame (IP lengths right) with the metadata a kernel gives it. */
static struct zvs_frame build(const struct spec *s)
{
    uint32_t l3 = s->vlan ? 18 : 14, l4 = l3 + (s->ver == 4 ? 20 : 40);
    uint32_t hl = l4 + (s->tcp ? s->tcp_hlen : 8), len = hl + s->payload;
    memset(frame, 0, len);
    frame[0] = 0x02, frame[5] = 0x0B, frame[6] = 0x02, frame[11] = 0x0A;
    if (s->vlan) {
        wr16(frame + 12, 0x8100);
        wr16(frame + 14, 100);
    }
    wr16(frame + l3 - 2, s->ver == 4 ? 0x0800 : 0x86DD);
    uint8_t *ip = frame + l3;
    if (s->ver == 4) {
        ip[0] = 0x45;
        wr16(ip + 2, len - l3);
        ip[8] = 64;
        ip[9] = s->tcp ? 6 : 17;
    } else {
        ip[0] = 0x60;
        wr16(ip + 4, len - l4);
        ip[6] = s->tcp ? 6 : 17;
    }
    if (s->tcp)
        frame[l4 + 12] = (uint8_t)(s->tcp_hlen / 4 << 4);
    else
        wr16(frame + l4 + 4, len - l4);
    return (struct zvs_frame){ .data = frame, .len = len,
        .vnet = { .flags = ZVS_VNET_F_NEEDS_CSUM, .gso_type = s->gso_type,
                  .hdr_len = (uint16_t)hl, .gso_size = s->mss, .csum_start = (uint16_t)l4,
                  .csum_offset = s->tcp ? 16 : 6 } };
}

/* What vnet.c makes of it for a plain egress of MTU 1500 (+4 tagged). */
struct seg_count { uint32_t n; uint64_t bytes; };

static int count_emit(void *arg, const uint8_t *f, uint32_t len, const struct zvs_vnet *v)
{
    struct seg_count *c = arg;
    c->n++;
    c->bytes += len;
    return 0;
}

static struct seg_count segmented(const struct zvs_frame *f)
{
    static uint8_t scratch[2048];
    struct seg_count c = { 0, 0 };
    assert_true(zvs_vnet_segment(f->data, f->len, &f->vnet, 1518, false, false, scratch,
                                 count_emit, &c) > 0);
    return c;
}

static void check(const struct spec *s, uint32_t frames, uint64_t bytes)
{
    struct zvs_frame f = build(s);
    struct zvs_wire w = zvs_wire_of(&f, f.len);
    assert_int_equal(w.frames, frames);
    assert_int_equal(w.bytes, bytes);
    struct seg_count c = segmented(&f);
    assert_int_equal(c.n, frames);
    assert_int_equal(c.bytes, bytes);
}

static void plain_frames_count_as_themselves(void **state)
{
    struct zvs_frame f = { .data = frame, .len = 1514 };
    struct zvs_wire w = zvs_wire_of(&f, f.len);
    assert_int_equal(w.frames, 1);
    assert_int_equal(w.bytes, 1514);
    w = zvs_wire_of(&f, 1518);          /* a tag pushed on the way out */
    assert_int_equal(w.frames, 1);
    assert_int_equal(w.bytes, 1518);
    f.vnet.flags = ZVS_VNET_F_NEEDS_CSUM;       /* checksum offload alone: still one */
    f.vnet.csum_start = 34;
    assert_int_equal(zvs_wire_of(&f, f.len).frames, 1);
}

static void tcp4_super_frame(void **state)
{
    /* 66 bytes of headers (TCP timestamps), 10 * 1448 + 100: 11 segments, the last short */
    struct spec s = { .ver = 4, .tcp = true, .tcp_hlen = 32, .payload = 10 * 1448 + 100,
                      .mss = 1448, .gso_type = ZVS_VNET_GSO_TCPV4 };
    check(&s, 11, 10 * 1448 + 100 + 11 * 66);
    /* the ECN bit does not change the count */
    s.gso_type = ZVS_VNET_GSO_TCPV4 | ZVS_VNET_GSO_ECN;
    check(&s, 11, 10 * 1448 + 100 + 11 * 66);
    /* near the largest a kernel sends: 65467 payload bytes, 46 segments */
    s.payload = 65535 - 14 - 20 - 32 - 2;
    check(&s, 46, 65535 - 2 + 45 * 66);
}

static void tcp4_exact_multiple_of_mss(void **state)
{
    struct spec s = { .ver = 4, .tcp = true, .tcp_hlen = 20, .payload = 3 * 1460,
                      .mss = 1460, .gso_type = ZVS_VNET_GSO_TCPV4 };
    check(&s, 3, 3 * 1514);             /* three full frames, not four */
    s.payload = 1460;                   /* payload of exactly one MSS: one frame */
    check(&s, 1, 1514);
    s.payload = 100;                    /* less than one MSS: one frame */
    check(&s, 1, 154);
}

static void tcp6_super_frame(void **state)
{
    /* 14 + 40 + 32 = 86 bytes of headers, MSS 1428: 5 segments, 1000 bytes in the last */
    struct spec s = { .ver = 6, .tcp = true, .tcp_hlen = 32, .payload = 4 * 1428 + 1000,
                      .mss = 1428, .gso_type = ZVS_VNET_GSO_TCPV6 };
    check(&s, 5, 4 * 1428 + 1000 + 5 * 86);
}

static void udp_l4_super_frame(void **state)
{
    /* USO: 42 bytes of headers, gso_size 1472: 5000 = 3 * 1472 + 584, 4 datagrams */
    struct spec s = { .ver = 4, .tcp = false, .payload = 5000, .mss = 1472,
                      .gso_type = ZVS_VNET_GSO_UDP_L4 };
    check(&s, 4, 5000 + 4 * 42);
    s.ver = 6;                          /* IPv6: 62 bytes of headers, gso_size 1452 */
    s.mss = 1452;
    s.payload = 2 * 1452;
    check(&s, 2, 2 * (62 + 1452));
}

/* Legacy UFO (GSO_UDP): IP fragments of gso_size (rounded down to 8) bytes of the UDP
 * datagram, each repeating the 34 bytes up to the IP header's end. vnet.c does not cut
 * these (-ENOTSUP), so the numbers are by hand only. */
static void udp_ufo_super_frame(void **state)
{
    struct spec s = { .ver = 4, .tcp = false, .payload = 4000, .mss = 1480,
                      .gso_type = ZVS_VNET_GSO_UDP };
    struct zvs_frame f = build(&s);     /* 14 + 20 + 8 + 4000 = 4042 bytes */
    /* 4008 bytes of datagram: 1480 + 1480 + 1048 */
    struct zvs_wire w = zvs_wire_of(&f, f.len);
    assert_int_equal(w.frames, 3);
    assert_int_equal(w.bytes, 4008 + 3 * 34);
    /* gso_size 1487 is not a multiple of 8: fragments carry 1480, so a 2970-byte datagram
     * is 1480 + 1480 + 10, three fragments where 1487 would have made two */
    s.payload = 2970 - 8;
    s.mss = 1487;
    f = build(&s);
    w = zvs_wire_of(&f, f.len);
    assert_int_equal(w.frames, 3);
    assert_int_equal(w.bytes, 2970 + 3 * 34);
}

static void tagged_super_frames(void **state)
{
    /* behind an 802.1Q tag: 70 bytes of headers per segment */
    struct spec s = { .vlan = true, .ver = 4, .tcp = true, .tcp_hlen = 32,
                      .payload = 2 * 1448 + 10, .mss = 1448, .gso_type = ZVS_VNET_GSO_TCPV4 };
    check(&s, 3, 2 * 1448 + 10 + 3 * 70);
    /* the tag stripped on the way out: every segment loses it */
    struct zvs_frame f = build(&s);
    struct zvs_wire w = zvs_wire_of(&f, f.len - 4);
    assert_int_equal(w.frames, 3);
    assert_int_equal(w.bytes, 2 * 1448 + 10 + 3 * 66);
    /* an untagged one with a tag pushed: every segment gains it */
    s.vlan = false;
    f = build(&s);
    w = zvs_wire_of(&f, f.len + 4);
    assert_int_equal(w.frames, 3);
    assert_int_equal(w.bytes, 2 * 1448 + 10 + 3 * 70);
}

/* The header length comes from csum_start and the TCP data offset, not from hdr_len
 * (Linux puts the skb's linear length there); without NEEDS_CSUM, hdr_len is all there is;
 * metadata that says nothing usable counts the frame as one. */
static void header_length_sources(void **state)
{
    struct spec s = { .ver = 4, .tcp = true, .tcp_hlen = 32, .payload = 3 * 1448,
                      .mss = 1448, .gso_type = ZVS_VNET_GSO_TCPV4 };
    struct zvs_frame f = build(&s);
    f.vnet.hdr_len = 200;               /* headers + 134 payload bytes in the linear part */
    assert_int_equal(zvs_wire_of(&f, f.len).bytes, 3 * (66 + 1448));
    f.vnet.flags = 0;                   /* no checksum metadata: hdr_len it is */
    f.vnet.hdr_len = 66;
    assert_int_equal(zvs_wire_of(&f, f.len).frames, 3);
    assert_int_equal(zvs_wire_of(&f, f.len).bytes, 3 * (66 + 1448));
    f.vnet.hdr_len = 0;
    assert_int_equal(zvs_wire_of(&f, f.len).frames, 1);
    assert_int_equal(zvs_wire_of(&f, f.len).bytes, f.len);
    f.vnet.hdr_len = (uint16_t)f.len;   /* no payload left */
    assert_int_equal(zvs_wire_of(&f, f.len).frames, 1);
    f = build(&s);
    f.vnet.gso_size = 0;
    assert_int_equal(zvs_wire_of(&f, f.len).frames, 1);
    f = build(&s);
    f.vnet.gso_type = 0x42;             /* unknown type */
    assert_int_equal(zvs_wire_of(&f, f.len).frames, 1);
    f = build(&s);
    frame[34 + 12] = 0x30;              /* TCP data offset 3: hdr_len instead */
    f.vnet.hdr_len = 66;
    assert_int_equal(zvs_wire_of(&f, f.len).frames, 3);
}

/* A scattered frame (QDIO entries) whose first piece ends before the TCP data offset:
 * the count falls back on hdr_len and reads nothing past the piece. */
static void scattered_first_piece_short(void **state)
{
    struct spec s = { .ver = 4, .tcp = true, .tcp_hlen = 32, .payload = 2 * 1448,
                      .mss = 1448, .gso_type = ZVS_VNET_GSO_TCPV4 };
    struct zvs_frame f = build(&s);
    struct iovec iov[2] = { { frame, 40 }, { frame + 40, f.len - 40 } };
    f.frags = iov;
    f.nfrags = 2;
    f.vnet.hdr_len = 66;
    struct zvs_wire w = zvs_wire_of(&f, f.len);
    assert_int_equal(w.frames, 2);
    assert_int_equal(w.bytes, 2 * (66 + 1448));
    iov[0].iov_len = 100;               /* the TCP header in the first piece: read there */
    iov[1] = (struct iovec){ frame + 100, f.len - 100 };
    f.vnet.hdr_len = 0;
    assert_int_equal(zvs_wire_of(&f, f.len).frames, 2);
}

/* gso_size 1 on a 64 KB frame: 65000 one-byte segments, exact. */
static void tiny_mss_counts_exactly(void **state)
{
    struct spec s = { .ver = 4, .tcp = true, .tcp_hlen = 20, .payload = 65000, .mss = 1,
                      .gso_type = ZVS_VNET_GSO_TCPV4 };
    struct zvs_frame f = build(&s);
    struct zvs_wire w = zvs_wire_of(&f, f.len);
    assert_int_equal(w.frames, 65000);
    assert_int_equal(w.bytes, 65000ull * 55);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(plain_frames_count_as_themselves),
        cmocka_unit_test(tcp4_super_frame),
        cmocka_unit_test(tcp4_exact_multiple_of_mss),
        cmocka_unit_test(tcp6_super_frame),
        cmocka_unit_test(udp_l4_super_frame),
        cmocka_unit_test(udp_ufo_super_frame),
        cmocka_unit_test(tagged_super_frames),
        cmocka_unit_test(header_length_sources),
        cmocka_unit_test(scattered_first_piece_short),
        cmocka_unit_test(tiny_mss_counts_exactly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
