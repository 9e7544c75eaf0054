/* Offload fix-up: checksum completion and GSO segmentation checked against real frames.
 *
 * Super-frames are built here byte by byte (IPv4/IPv6, TCP with options, UDP, 802.1Q tag)
 * and every piece is checked field by field; checksums are verified with a simple,
 * independent ones'-complement sum (pseudo-header + segment must fold to 0xFFFF). Inputs
 * are copied into exactly sized heap buffers so an ASan run catches any read past len.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dataplane/vnet.h"

#define MAXP      80
#define SEQ0      0xFFFFF000u            /* wraps during the super-frame */
#define IPID0     0x1234
#define TCP_FIN   0x01
#define TCP_PSH   0x08
#define TCP_ACK   0x10
#define TCP_CWR   0x80

/* ---- independent checksum ------------------------------------------------------------- */

static uint32_t t_sum(const uint8_t *p, uint32_t n, uint32_t acc)
{
    for (uint32_t i = 0; i + 1 < n; i += 2)
        acc += (uint32_t)(p[i] << 8 | p[i + 1]);
    if (n & 1)
        acc += (uint32_t)p[n - 1] << 8;
    return acc;
}

static uint16_t t_fold(uint32_t acc)
{
    while (acc >> 16)
        acc = (acc & 0xFFFF) + (acc >> 16);
    return (uint16_t)acc;
}

static uint32_t t_pseudo(const uint8_t *f, uint32_t l3, int ver, uint8_t proto, uint32_t l4len)
{
    uint32_t acc = ver == 4 ? t_sum(f + l3 + 12, 8, 0) : t_sum(f + l3 + 8, 32, 0);
    return acc + proto + l4len;
}

static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void wr16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static void wr32(uint8_t *p, uint32_t v)
{
    wr16(p, v >> 16);
    wr16(p + 2, v & 0xFFFF);
}

/* ---- frame builder -------------------------------------------------------------------- */

struct spec {
    int      ver;                       /* 4 or 6 */
    bool     vlan;                      /* one 802.1Q tag, VID 100 */
    uint8_t  proto;                     /* 6 or 17 */
    uint32_t ip_opt;                    /* IPv4 option bytes (Router Alert), 0 or 4 */
    uint32_t tcp_opt;                   /* TCP option bytes (NOP NOP timestamp), 0 or 12 */
    uint32_t payload;                   /* L4 payload bytes */
    uint8_t  tcp_flags;
    uint16_t mss;
    uint8_t  gso_type;
};

struct built {
    uint8_t        *f;                  /* heap, exactly len bytes */
    uint32_t        len;
    uint32_t        l3, l4, hl;         /* offsets: IP, TCP/UDP, payload */
    struct zvs_vnet v;
};

static uint8_t pay_byte(uint32_t i) { return (uint8_t)(i * 31u + 7u); }

static void build(const struct spec *s, struct built *b)
{
    uint32_t l3 = s->vlan ? 18 : 14;
    uint32_t iphl = s->ver == 4 ? 20 + s->ip_opt : 40;
    uint32_t l4 = l3 + iphl;
    uint32_t l4hl = s->proto == 6 ? 20 + s->tcp_opt : 8;
    uint32_t hl = l4 + l4hl;
    uint32_t len = hl + s->payload;
    uint8_t *f = calloc(1, len);
    assert_non_null(f);

    static const uint8_t macs[12] = { 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1 };
    memcpy(f, macs, 12);
    if (s->vlan) {
        wr16(f + 12, 0x8100);
        wr16(f + 14, 0x2064);           /* PCP 1, VID 100 */
    }
    wr16(f + l3 - 2, s->ver == 4 ? 0x0800 : 0x86DD);
    uint8_t *ip = f + l3;
    if (s->ver == 4) {
        ip[0] = (uint8_t)(0x40 | iphl / 4);
        wr16(ip + 2, len - l3);
        wr16(ip + 4, IPID0);
        wr16(ip + 6, 0x4000);           /* DF */
        ip[8] = 64;
        ip[9] = s->proto;
        wr32(ip + 12, 0x0A000001);
        wr32(ip + 16, 0x0A000002);
        if (s->ip_opt)
            wr32(ip + 20, 0x94040000);  /* Router Alert */
        wr16(ip + 10, (uint16_t)~t_fold(t_sum(ip, iphl, 0)));
    } else {
        wr32(ip, 0x60000000);
        wr16(ip + 4, len - l4);
        ip[6] = s->proto;
        ip[7] = 64;
        wr32(ip + 8, 0x20010DB8);
        ip[23] = 1;
        wr32(ip + 24, 0x20010DB8);
        ip[39] = 2;
    }
    uint8_t *t = f + l4;
    wr16(t, 40000);
    wr16(t + 2, 5201);
    uint16_t csum_off;
    if (s->proto == 6) {
        wr32(t + 4, SEQ0);
        wr32(t + 8, 0x01020304);
        t[12] = (uint8_t)(l4hl / 4 << 4);
        t[13] = s->tcp_flags;
        wr16(t + 14, 0xFFFF);
        if (s->tcp_opt)
            memcpy(t + 20, (const uint8_t[12]){ 1, 1, 8, 10, 0, 0, 0, 7, 0, 0, 0, 9 }, 12);
        csum_off = 16;
    } else {
        wr16(t + 4, len - l4);
        csum_off = 6;
    }
    for (uint32_t i = 0; i < s->payload; i++)
        f[hl + i] = pay_byte(i);
    /* What a sender's stack leaves for the NIC: the folded pseudo-header sum. */
    wr16(t + csum_off, t_fold(t_pseudo(f, l3, s->ver, s->proto, len - l4)));

    *b = (struct built){ .f = f, .len = len, .l3 = l3, .l4 = l4, .hl = hl };
    b->v = (struct zvs_vnet){ .flags = ZVS_VNET_F_NEEDS_CSUM, .gso_type = s->gso_type,
                              .hdr_len = (uint16_t)hl, .gso_size = s->mss,
                              .csum_start = (uint16_t)l4, .csum_offset = csum_off };
}

/* ---- capture -------------------------------------------------------------------------- */

struct cap {
    int             n;
    int             stop_at;            /* return -42 when piece number stop_at arrives */
    uint8_t        *buf[MAXP];
    uint32_t        len[MAXP];
    struct zvs_vnet v[MAXP];
};

static int cap_emit(void *arg, const uint8_t *frame, uint32_t len, const struct zvs_vnet *v)
{
    struct cap *c = arg;

    assert_true(c->n < MAXP);
    if (c->stop_at && c->n + 1 == c->stop_at)
        return -42;
    c->buf[c->n] = malloc(len);
    assert_non_null(c->buf[c->n]);
    memcpy(c->buf[c->n], frame, len);
    c->len[c->n] = len;
    c->v[c->n] = *v;
    c->n++;
    return 0;
}

static void cap_free(struct cap *c)
{
    for (int i = 0; i < c->n; i++)
        free(c->buf[i]);
    c->n = 0;
}

static int run_seg(const struct built *b, uint32_t max_len, bool out_gso, bool partial,
                   struct cap *c)
{
    uint8_t *scratch = malloc(max_len ? max_len : 1);
    assert_non_null(scratch);
    int rc = zvs_vnet_segment(b->f, b->len, &b->v, max_len, out_gso, partial, scratch,
                              cap_emit, c);
    free(scratch);
    return rc;
}

/* Check plain segments of a super-frame: lengths, IP fields and checksums, TCP seq and
 * flags or UDP length, payload bytes, L4 checksum, metadata. */
static void check_plain(const struct spec *s, const struct built *b, const struct cap *c)
{
    uint32_t nseg = s->payload <= s->mss ? 1 : (s->payload + s->mss - 1) / s->mss;

    assert_int_equal(c->n, nseg);
    for (uint32_t i = 0; i < nseg; i++) {
        const uint8_t *g = c->buf[i];
        uint32_t off = i * s->mss;
        uint32_t pl = i + 1 < nseg ? s->mss : s->payload - off;
        uint32_t len = b->hl + pl;
        uint32_t l4len = len - b->l4;

        assert_int_equal(c->len[i], len);
        assert_memory_equal(g, b->f, b->l3);                    /* MACs, tag, EtherType */
        if (s->ver == 4) {
            assert_int_equal(rd16(g + b->l3 + 2), len - b->l3);
            assert_int_equal(rd16(g + b->l3 + 4), IPID0 + i);
            assert_int_equal(t_fold(t_sum(g + b->l3, b->l4 - b->l3, 0)), 0xFFFF);
            assert_memory_equal(g + b->l3 + 6, b->f + b->l3 + 6, 4);
            assert_memory_equal(g + b->l3 + 12, b->f + b->l3 + 12, b->l4 - b->l3 - 12);
        } else {
            assert_int_equal(rd16(g + b->l3 + 4), l4len);
            assert_memory_equal(g + b->l3 + 6, b->f + b->l3 + 6, 34);
        }
        const uint8_t *t = g + b->l4;
        if (s->proto == 6) {
            uint8_t fl = s->tcp_flags;
            if (i + 1 < nseg)
                fl &= (uint8_t)~(TCP_FIN | TCP_PSH);
            if (i > 0)
                fl &= (uint8_t)~TCP_CWR;
            assert_int_equal(rd32(t + 4), (uint32_t)(SEQ0 + off));
            assert_int_equal(t[13], fl);
            assert_memory_equal(t + 8, b->f + b->l4 + 8, 5);    /* ack, data offset */
            assert_memory_equal(t + 14, b->f + b->l4 + 14, 2);  /* window */
            assert_memory_equal(t + 18, b->f + b->l4 + 18, b->hl - b->l4 - 18);
        } else {
            assert_int_equal(rd16(t + 4), l4len);
        }
        assert_memory_equal(t, b->f + b->l4, 4);                /* ports */
        assert_memory_equal(g + b->hl, b->f + b->hl + off, pl);
        assert_int_equal(t_fold(t_pseudo(g, b->l3, s->ver, s->proto, l4len) +
                                t_sum(t, l4len, 0)), 0xFFFF);
        assert_int_equal(c->v[i].flags, ZVS_VNET_F_DATA_VALID);
        assert_int_equal(c->v[i].gso_type, ZVS_VNET_GSO_NONE);
        assert_int_equal(c->v[i].gso_size, 0);
        assert_int_equal(c->v[i].hdr_len, 0);
        assert_int_equal(c->v[i].csum_start, 0);
        assert_int_equal(c->v[i].csum_offset, 0);
    }
}

static const struct spec TCP4 = {
    .ver = 4, .proto = 6, .tcp_opt = 12, .payload = 3 * 1448 + 100,
    .tcp_flags = TCP_ACK | TCP_PSH | TCP_FIN | TCP_CWR, .mss = 1448,
    .gso_type = ZVS_VNET_GSO_TCPV4 | ZVS_VNET_GSO_ECN,
};

/* ---- checksum and parser -------------------------------------------------------------- */

static void test_csum_rfc1071(void **state)
{
    /* RFC 1071 section 3 example; and a real IPv4 header with its checksum b861. */
    static const uint8_t ex[8] = { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7 };
    uint8_t iph[20] = { 0x45, 0, 0, 0x73, 0, 0, 0x40, 0, 0x40, 0x11, 0xb8, 0x61,
                        0xc0, 0xa8, 0, 1, 0xc0, 0xa8, 0, 0xc7 };
    static const uint8_t odd[3] = { 0x12, 0x34, 0x56 };

    assert_int_equal(zvs_csum_add(0, ex, 8), 0xddf2);
    assert_int_equal(zvs_inet_csum(ex, 8), 0x220d);
    assert_int_equal(zvs_csum_add(zvs_csum_add(0, ex, 2), ex + 2, 6), 0xddf2);
    assert_int_equal(zvs_csum_add(0, odd, 3), 0x1234 + 0x5600);
    assert_int_equal(zvs_csum_add(0, ex, 0), 0);
    assert_int_equal(zvs_inet_csum(iph, 20), 0);
    iph[10] = iph[11] = 0;
    assert_int_equal(zvs_inet_csum(iph, 20), 0xb861);

    uint8_t *ff = malloc(65535);
    assert_non_null(ff);
    memset(ff, 0xFF, 65535);
    assert_int_equal(zvs_csum_add(0, ff, 65535), t_fold(t_sum(ff, 65535, 0)));
    free(ff);
}

static void test_parse_offsets(void **state)
{
    struct spec s = TCP4;
    struct built b;
    struct zvs_l4_hdrs h;

    s.vlan = true;
    s.ip_opt = 4;
    build(&s, &b);
    assert_int_equal(zvs_vnet_parse(b.f, b.len, &h), 0);
    assert_int_equal(h.l3_off, 18);
    assert_int_equal(h.l4_off, 18 + 24);
    assert_int_equal(h.hdr_len, 18 + 24 + 32);
    assert_int_equal(h.ip_ver, 4);
    assert_int_equal(h.l4_proto, ZVS_IPPROTO_TCP);
    assert_int_equal(h.ip_end, b.len);
    free(b.f);

    s = (struct spec){ .ver = 6, .proto = 17, .payload = 10 };
    build(&s, &b);
    assert_int_equal(zvs_vnet_parse(b.f, b.len, &h), 0);
    assert_int_equal(h.l3_off, 14);
    assert_int_equal(h.l4_off, 54);
    assert_int_equal(h.hdr_len, 62);
    assert_int_equal(h.ip_ver, 6);
    assert_int_equal(h.l4_proto, ZVS_IPPROTO_UDP);
    assert_int_equal(h.ip_end, 72);
    assert_int_equal(zvs_vnet_parse(b.f, 13, &h), -EINVAL);             /* runt */
    b.f[20] = 0;                                                        /* hop-by-hop */
    assert_int_equal(zvs_vnet_parse(b.f, b.len, &h), -ENOTSUP);
    b.f[20] = 17;
    wr16(b.f + 12, 0x0806);                                             /* ARP */
    assert_int_equal(zvs_vnet_parse(b.f, b.len, &h), -ENOTSUP);
    wr16(b.f + 12, 0x0800);                                             /* v6 bytes as v4 */
    assert_int_equal(zvs_vnet_parse(b.f, b.len, &h), -EINVAL);
    free(b.f);
}

static void test_parse_rejects_stacked_tags_and_fragments(void **state)
{
    struct spec s = TCP4;
    struct built b;
    struct zvs_l4_hdrs h;

    s.vlan = true;
    build(&s, &b);
    wr16(b.f + 16, 0x8100);                                             /* second tag */
    assert_int_equal(zvs_vnet_parse(b.f, b.len, &h), -ENOTSUP);
    wr16(b.f + 12, 0x88A8);                                             /* 802.1ad S-tag */
    assert_int_equal(zvs_vnet_parse(b.f, b.len, &h), -ENOTSUP);
    wr16(b.f + 12, 0x8100);
    wr16(b.f + 16, 0x0800);
    assert_int_equal(zvs_vnet_parse(b.f, b.len, &h), 0);
    wr16(b.f + 18 + 6, 0x2000);                                         /* MF */
    assert_int_equal(zvs_vnet_parse(b.f, b.len, &h), -ENOTSUP);
    wr16(b.f + 18 + 6, 0x0010);                                         /* offset 128 */
    assert_int_equal(zvs_vnet_parse(b.f, b.len, &h), -ENOTSUP);
    assert_int_equal(zvs_vnet_parse(b.f, 17, &h), -EINVAL);             /* cut tag */
    free(b.f);
}

/* ---- segmentation --------------------------------------------------------------------- */

static void test_segment_tcp4(void **state)
{
    struct built b;
    struct cap c = { 0 };

    build(&TCP4, &b);
    assert_int_equal(b.hl, 14 + 20 + 32);
    assert_int_equal(run_seg(&b, 1514, false, false, &c), 4);
    check_plain(&TCP4, &b, &c);
    /* The flags spelled out: CWR first only, PSH|FIN last only. */
    assert_int_equal(c.buf[0][b.l4 + 13], TCP_ACK | TCP_CWR);
    assert_int_equal(c.buf[1][b.l4 + 13], TCP_ACK);
    assert_int_equal(c.buf[2][b.l4 + 13], TCP_ACK);
    assert_int_equal(c.buf[3][b.l4 + 13], TCP_ACK | TCP_PSH | TCP_FIN);
    assert_int_equal(c.len[0], 1514);
    assert_int_equal(c.len[3], 166);
    assert_int_equal(rd32(c.buf[3] + b.l4 + 4), 0x000000F8);           /* seq wrapped */
    cap_free(&c);
    free(b.f);
}

static void test_segment_tcp6(void **state)
{
    struct spec s = TCP4;
    struct built b;
    struct cap c = { 0 };

    s.ver = 6;
    s.mss = 1428;
    s.payload = 3 * 1428 + 100;
    s.gso_type = ZVS_VNET_GSO_TCPV6;
    build(&s, &b);
    assert_int_equal(run_seg(&b, 1514, false, false, &c), 4);
    check_plain(&s, &b, &c);
    assert_int_equal(c.len[0], 1514);
    assert_int_equal(rd16(c.buf[3] + 18), 32 + 100);                   /* payload length */
    cap_free(&c);
    free(b.f);
}

static void test_segment_vlan_ipv4_options(void **state)
{
    struct spec s = TCP4;
    struct built b;
    struct cap c = { 0 };

    s.vlan = true;
    s.ip_opt = 4;
    s.mss = 1444;
    s.payload = 3 * 1444 + 100;
    build(&s, &b);
    assert_int_equal(run_seg(&b, 1518, false, false, &c), 4);
    check_plain(&s, &b, &c);
    for (int i = 0; i < c.n; i++) {
        assert_int_equal(rd16(c.buf[i] + 12), 0x8100);
        assert_int_equal(rd16(c.buf[i] + 14), 0x2064);
        assert_int_equal(rd32(c.buf[i] + 18 + 20), 0x94040000);         /* option kept */
    }
    assert_int_equal(c.len[0], 1518);
    cap_free(&c);
    free(b.f);
}

static void check_gso_piece(const struct built *b, const struct cap *c, int i, uint32_t pl,
                            uint8_t gso_type, uint16_t mss, uint16_t csum_off, int ver,
                            uint8_t proto)
{
    uint32_t l4len = b->hl + pl - b->l4;

    assert_int_equal(c->len[i], b->hl + pl);
    assert_int_equal(c->v[i].flags, ZVS_VNET_F_NEEDS_CSUM);
    assert_int_equal(c->v[i].gso_type, gso_type);
    assert_int_equal(c->v[i].gso_size, mss);
    assert_int_equal(c->v[i].hdr_len, b->hl);
    assert_int_equal(c->v[i].csum_start, b->l4);
    assert_int_equal(c->v[i].csum_offset, csum_off);
    assert_int_equal(rd16(c->buf[i] + b->l4 + csum_off),
                     t_fold(t_pseudo(c->buf[i], b->l3, ver, proto, l4len)));
}

/* Segment each captured piece again (as an egress with TSO would) into `out`. */
static void resegment(const struct cap *pieces, struct cap *out)
{
    uint8_t *scratch = malloc(1514);
    assert_non_null(scratch);
    for (int i = 0; i < pieces->n; i++) {
        uint8_t *f = malloc(pieces->len[i]);
        assert_non_null(f);
        memcpy(f, pieces->buf[i], pieces->len[i]);
        int rc = zvs_vnet_segment(f, pieces->len[i], &pieces->v[i], 1514, false, false,
                                  scratch, cap_emit, out);
        assert_true(rc >= 1);
        free(f);
    }
    free(scratch);
}

static void assert_same_caps(const struct cap *a, const struct cap *b)
{
    assert_int_equal(a->n, b->n);
    for (int i = 0; i < a->n; i++) {
        assert_int_equal(a->len[i], b->len[i]);
        assert_memory_equal(a->buf[i], b->buf[i], a->len[i]);
        assert_memory_equal(&a->v[i], &b->v[i], sizeof(a->v[i]));
    }
}

static void test_segment_out_gso_pieces(void **state)
{
    struct built b;
    struct cap direct = { 0 }, pieces = { 0 }, again = { 0 };

    build(&TCP4, &b);
    assert_int_equal(run_seg(&b, 1514, false, false, &direct), 4);
    /* Room for 2 segments but not 3: 2896 + 1548 payload bytes, both GSO frames. */
    assert_int_equal(run_seg(&b, b.hl + 2 * 1448 + 1447, true, false, &pieces), 2);
    check_gso_piece(&b, &pieces, 0, 2896, TCP4.gso_type, 1448, 16, 4, 6);
    check_gso_piece(&b, &pieces, 1, 1548, TCP4.gso_type, 1448, 16, 4, 6);
    assert_int_equal(pieces.buf[0][b.l4 + 13], TCP_ACK | TCP_CWR);
    assert_int_equal(pieces.buf[1][b.l4 + 13], TCP_ACK | TCP_PSH | TCP_FIN);
    assert_int_equal(rd16(pieces.buf[1] + b.l3 + 4), IPID0 + 2);
    assert_int_equal(rd32(pieces.buf[1] + b.l4 + 4), SEQ0 + 2896);
    assert_int_equal(t_fold(t_sum(pieces.buf[1] + b.l3, 20, 0)), 0xFFFF);
    resegment(&pieces, &again);
    assert_same_caps(&direct, &again);
    cap_free(&direct);
    cap_free(&pieces);
    cap_free(&again);
    free(b.f);

    /* 5 segments in pieces of 2: the last piece holds one segment and is a plain frame. */
    struct spec s = TCP4;
    s.payload = 5 * 1448;
    build(&s, &b);
    assert_int_equal(run_seg(&b, 1514, false, false, &direct), 5);
    assert_int_equal(run_seg(&b, b.hl + 2 * 1448, true, false, &pieces), 3);
    check_gso_piece(&b, &pieces, 0, 2896, s.gso_type, 1448, 16, 4, 6);
    check_gso_piece(&b, &pieces, 1, 2896, s.gso_type, 1448, 16, 4, 6);
    assert_int_equal(pieces.len[2], b.hl + 1448);
    assert_int_equal(pieces.v[2].gso_type, ZVS_VNET_GSO_NONE);
    assert_int_equal(pieces.v[2].flags, ZVS_VNET_F_DATA_VALID);
    resegment(&pieces, &again);
    assert_same_caps(&direct, &again);
    cap_free(&direct);
    cap_free(&pieces);
    cap_free(&again);

    /* Room for fewer than 2 segments: out_gso gives plain segments. */
    assert_int_equal(run_seg(&b, b.hl + 2 * 1448 - 1, true, false, &pieces), 5);
    check_plain(&s, &b, &pieces);
    cap_free(&pieces);
    free(b.f);
}

static void test_segment_csum_partial(void **state)
{
    struct spec s = TCP4;
    struct built b;
    struct cap full = { 0 }, part = { 0 };

    s.ver = 6;
    s.mss = 1428;
    s.payload = 2 * 1428 + 1;
    s.gso_type = ZVS_VNET_GSO_TCPV6;
    build(&s, &b);
    assert_int_equal(run_seg(&b, 1514, false, false, &full), 3);
    assert_int_equal(run_seg(&b, 1514, false, true, &part), 3);
    for (int i = 0; i < 3; i++) {
        uint32_t l4len = part.len[i] - b.l4;
        assert_int_equal(part.v[i].flags, ZVS_VNET_F_NEEDS_CSUM);
        assert_int_equal(part.v[i].gso_type, ZVS_VNET_GSO_NONE);
        assert_int_equal(part.v[i].gso_size, 0);
        assert_int_equal(part.v[i].csum_start, b.l4);
        assert_int_equal(part.v[i].csum_offset, 16);
        assert_int_equal(rd16(part.buf[i] + b.l4 + 16),
                         t_fold(t_pseudo(part.buf[i], b.l3, 6, 6, l4len)));
        assert_int_equal(zvs_vnet_csum_complete(part.buf[i], part.len[i], &part.v[i]), 0);
        assert_int_equal(part.len[i], full.len[i]);
        assert_memory_equal(part.buf[i], full.buf[i], full.len[i]);
        assert_memory_equal(&part.v[i], &full.v[i], sizeof(part.v[i]));
    }
    cap_free(&full);
    cap_free(&part);
    free(b.f);
}

static void test_segment_uso(void **state)
{
    struct spec s = { .ver = 4, .proto = 17, .payload = 3 * 1000 + 10, .mss = 1000,
                      .gso_type = ZVS_VNET_GSO_UDP_L4 };
    struct built b;
    struct cap c = { 0 }, pieces = { 0 }, again = { 0 };

    build(&s, &b);
    assert_int_equal(run_seg(&b, 1514, false, false, &c), 4);
    check_plain(&s, &b, &c);
    assert_int_equal(rd16(c.buf[0] + b.l4 + 4), 1008);
    assert_int_equal(rd16(c.buf[3] + b.l4 + 4), 18);
    assert_int_equal(rd16(c.buf[3] + b.l3 + 4), IPID0 + 3);
    /* As GSO pieces of 2 datagrams each, then cut again: the same datagrams. */
    assert_int_equal(run_seg(&b, b.hl + 2000, true, false, &pieces), 2);
    check_gso_piece(&b, &pieces, 0, 2000, ZVS_VNET_GSO_UDP_L4, 1000, 6, 4, 17);
    check_gso_piece(&b, &pieces, 1, 1010, ZVS_VNET_GSO_UDP_L4, 1000, 6, 4, 17);
    assert_int_equal(rd16(pieces.buf[1] + b.l4 + 4), 1018);
    resegment(&pieces, &again);
    assert_same_caps(&c, &again);
    cap_free(&c);
    cap_free(&pieces);
    cap_free(&again);
    free(b.f);

    s.ver = 6;
    build(&s, &b);
    assert_int_equal(run_seg(&b, 1514, false, false, &c), 4);
    check_plain(&s, &b, &c);
    assert_int_equal(rd16(c.buf[2] + b.l3 + 4), 1008);
    cap_free(&c);
    free(b.f);
}

static void test_segment_single_piece(void **state)
{
    struct spec s = TCP4;
    struct built b;
    struct cap c = { 0 };

    s.payload = 1448;                   /* not bigger than gso_size: one piece */
    build(&s, &b);
    assert_int_equal(run_seg(&b, 1514, false, false, &c), 1);
    check_plain(&s, &b, &c);
    assert_int_equal(c.buf[0][b.l4 + 13], s.tcp_flags);                 /* all flags kept */
    assert_memory_equal(c.buf[0], b.f, b.l4 + 16);
    assert_memory_equal(c.buf[0] + b.l4 + 18, b.f + b.l4 + 18, b.len - b.l4 - 18);
    cap_free(&c);
    /* Same with out_gso: still one plain frame. */
    assert_int_equal(run_seg(&b, 65535, true, false, &c), 1);
    check_plain(&s, &b, &c);
    cap_free(&c);
    free(b.f);

    /* A short frame with Ethernet padding: the piece ends at the IP length. */
    s.payload = 2;
    build(&s, &b);
    uint8_t *padded = calloc(1, 80);
    assert_non_null(padded);
    memcpy(padded, b.f, b.len);
    uint8_t scratch[80];
    assert_int_equal(zvs_vnet_segment(padded, 80, &b.v, 80, false, false, scratch,
                                      cap_emit, &c), 1);
    check_plain(&s, &b, &c);
    assert_int_equal(c.len[0], b.len);
    cap_free(&c);
    free(padded);
    free(b.f);
}

static void test_segment_wrong_hdr_len_ignored(void **state)
{
    struct built b;
    struct cap c = { 0 };
    const uint16_t wrong[] = { 0, 20, 54, 200 };

    build(&TCP4, &b);
    for (size_t k = 0; k < sizeof(wrong) / sizeof(wrong[0]); k++) {
        b.v.hdr_len = wrong[k];
        assert_int_equal(run_seg(&b, 1514, false, false, &c), 4);
        check_plain(&TCP4, &b, &c);
        cap_free(&c);
    }
    /* GSO without NEEDS_CSUM (Linux accepts it): checksums computed from scratch. */
    b.v.flags = 0;
    b.v.csum_start = b.v.csum_offset = 0;
    assert_int_equal(run_seg(&b, 1514, false, false, &c), 4);
    check_plain(&TCP4, &b, &c);
    cap_free(&c);
    free(b.f);
}

static void test_segment_gso_none(void **state)
{
    struct spec s = { .ver = 4, .proto = 17, .payload = 33 };
    struct built b;
    struct cap c = { 0 };

    build(&s, &b);
    assert_int_equal(run_seg(&b, b.len, false, true, &c), 1);          /* left partial */
    struct zvs_vnet want = b.v;
    want.hdr_len = 0;                                                   /* not GSO */
    assert_memory_equal(c.buf[0], b.f, b.len);
    assert_memory_equal(&c.v[0], &want, sizeof(want));
    cap_free(&c);
    assert_int_equal(run_seg(&b, b.len, true, false, &c), 1);          /* completed */
    check_plain(&(struct spec){ .ver = 4, .proto = 17, .payload = 33, .mss = 33 }, &b, &c);
    cap_free(&c);
    assert_int_equal(run_seg(&b, b.len - 1, false, false, &c), -EMSGSIZE);
    assert_int_equal(c.n, 0);
    free(b.f);
}

static void test_segment_emit_stops(void **state)
{
    struct built b;
    struct cap c = { .stop_at = 3 };

    build(&TCP4, &b);
    assert_int_equal(run_seg(&b, 1514, false, false, &c), -42);
    assert_int_equal(c.n, 2);
    cap_free(&c);
    free(b.f);
}

/* ---- checksum completion -------------------------------------------------------------- */

static void test_csum_complete_tcp(void **state)
{
    struct spec s = { .ver = 4, .proto = 6, .tcp_opt = 12, .payload = 501,
                      .tcp_flags = TCP_ACK | TCP_PSH };
    struct built b;

    build(&s, &b);
    /* The expected value, computed independently with the field zeroed. */
    uint8_t *z = malloc(b.len);
    assert_non_null(z);
    memcpy(z, b.f, b.len);
    wr16(z + b.l4 + 16, 0);
    uint16_t want = (uint16_t)~t_fold(t_pseudo(z, b.l3, 4, 6, b.len - b.l4) +
                                       t_sum(z + b.l4, b.len - b.l4, 0));
    assert_int_equal(zvs_vnet_csum_complete(b.f, b.len, &b.v), 0);
    assert_int_equal(rd16(b.f + b.l4 + 16), want ? want : 0xFFFF);
    assert_memory_equal(b.f, z, b.l4 + 16);
    assert_memory_equal(b.f + b.l4 + 18, z + b.l4 + 18, b.len - b.l4 - 18);
    assert_int_equal(b.v.flags, ZVS_VNET_F_DATA_VALID);
    /* Already complete: nothing to do, nothing changes. */
    memcpy(z, b.f, b.len);
    assert_int_equal(zvs_vnet_csum_complete(b.f, b.len, &b.v), 0);
    assert_memory_equal(b.f, z, b.len);
    assert_int_equal(b.v.flags, ZVS_VNET_F_DATA_VALID);
    free(z);
    free(b.f);
}

static void test_csum_complete_udp_zero(void **state)
{
    struct spec s = { .ver = 6, .proto = 17, .payload = 20 };
    struct built b;

    build(&s, &b);
    /* Choose the last payload word so the data sums to 0xFFFF: the checksum computes as 0. */
    wr16(b.f + b.len - 2, 0);
    uint16_t rest = t_fold(t_pseudo(b.f, b.l3, 6, 17, b.len - b.l4) +
                           t_sum(b.f + b.l4, b.len - b.l4, 0) - rd16(b.f + b.l4 + 6));
    wr16(b.f + b.len - 2, (uint16_t)~rest);
    assert_int_equal(zvs_vnet_csum_complete(b.f, b.len, &b.v), 0);
    assert_int_equal(rd16(b.f + b.l4 + 6), 0xFFFF);
    assert_int_equal(t_fold(t_pseudo(b.f, b.l3, 6, 17, b.len - b.l4) +
                            t_sum(b.f + b.l4, b.len - b.l4, 0)), 0xFFFF);
    assert_int_equal(b.v.flags, ZVS_VNET_F_DATA_VALID);
    free(b.f);
}

static void test_csum_complete_bounds(void **state)
{
    uint8_t *f = calloc(1, 40);
    assert_non_null(f);
    struct zvs_vnet v = { .flags = ZVS_VNET_F_NEEDS_CSUM, .csum_start = 30, .csum_offset = 8 };

    f[20] = 0x12;
    assert_int_equal(zvs_vnet_csum_complete(f, 40, &v), 0);              /* field at 38..39 */
    assert_int_equal(rd16(f + 38), 0xFFFF);                              /* all-zero data */
    v = (struct zvs_vnet){ .flags = ZVS_VNET_F_NEEDS_CSUM, .csum_start = 30, .csum_offset = 9 };
    assert_int_equal(zvs_vnet_csum_complete(f, 40, &v), -EINVAL);
    assert_int_equal(v.flags, ZVS_VNET_F_NEEDS_CSUM);
    v.csum_start = 41;
    v.csum_offset = 0;
    assert_int_equal(zvs_vnet_csum_complete(f, 40, &v), -EINVAL);
    v.csum_start = 0xFFFF;
    v.csum_offset = 0xFFFF;
    assert_int_equal(zvs_vnet_csum_complete(f, 40, &v), -EINVAL);
    v.flags = 0;                                                         /* not partial */
    assert_int_equal(zvs_vnet_csum_complete(f, 40, &v), 0);
    free(f);
}

/* ---- malformed input ------------------------------------------------------------------ */

/* Segment b with its bytes cut to len (an exactly sized copy): expect rc and no piece. */
static void expect_seg(const struct built *b, uint32_t len, const struct zvs_vnet *v, int rc)
{
    struct cap c = { 0 };
    uint8_t *f = malloc(len ? len : 1);
    uint8_t *scratch = malloc(1514);
    assert_non_null(f);
    assert_non_null(scratch);
    memcpy(f, b->f, len);
    assert_int_equal(zvs_vnet_segment(f, len, v, 1514, false, false, scratch, cap_emit, &c), rc);
    assert_int_equal(c.n, 0);
    free(scratch);
    free(f);
}

static void test_malformed_metadata(void **state)
{
    struct built b;
    struct zvs_vnet v;

    build(&TCP4, &b);
    v = b.v;
    v.csum_start = (uint16_t)(b.len + 1);
    expect_seg(&b, b.len, &v, -EINVAL);                                 /* csum_start > len */
    v = b.v;
    v.csum_offset = (uint16_t)(b.len - b.l4 - 1);
    expect_seg(&b, b.len, &v, -EINVAL);                                 /* field past end */
    v = b.v;
    v.csum_start = (uint16_t)b.l3;
    expect_seg(&b, b.len, &v, -EINVAL);                                 /* not at TCP */
    v = b.v;
    v.csum_offset = 6;
    expect_seg(&b, b.len, &v, -EINVAL);                                 /* not the TCP field */
    v = b.v;
    v.gso_size = 0;
    expect_seg(&b, b.len, &v, -EINVAL);
    v = b.v;
    v.hdr_len = (uint16_t)(b.len + 1);
    expect_seg(&b, b.len, &v, -EINVAL);
    v = b.v;
    v.gso_type = ZVS_VNET_GSO_TCPV6;
    expect_seg(&b, b.len, &v, -EINVAL);                                 /* type vs headers */
    v.gso_type = ZVS_VNET_GSO_UDP_L4;
    expect_seg(&b, b.len, &v, -EINVAL);
    v.gso_type = ZVS_VNET_GSO_UDP;
    expect_seg(&b, b.len, &v, -ENOTSUP);                                /* legacy UFO */
    v.gso_type = 2;
    expect_seg(&b, b.len, &v, -ENOTSUP);
    struct cap c = { 0 };
    assert_int_equal(run_seg(&b, 1514, false, false, &c), 4);          /* unharmed */
    cap_free(&c);

    /* Truncated headers: the frame ends inside them (metadata not pointing past the end). */
    v = b.v;
    v.flags = 0;
    v.hdr_len = 0;
    expect_seg(&b, 13, &v, -EINVAL);                                    /* Ethernet */
    expect_seg(&b, b.l3 + 19, &v, -EINVAL);                             /* IPv4 */
    expect_seg(&b, b.l4 + 19, &v, -EINVAL);                             /* in TCP */
    expect_seg(&b, b.hl - 1, &v, -EINVAL);                              /* TCP options */
    free(b.f);
}

static void test_malformed_headers(void **state)
{
    struct built b;

    build(&TCP4, &b);
    struct zvs_vnet plain = b.v;                                        /* no csum check */
    plain.flags = 0;
    plain.hdr_len = 0;
    for (uint8_t ihl = 0; ihl < 5; ihl++) {                             /* IHL < 5 */
        struct zvs_l4_hdrs h;
        b.f[b.l3] = (uint8_t)(0x40 | ihl);
        assert_int_equal(zvs_vnet_parse(b.f, b.len, &h), -EINVAL);
        expect_seg(&b, b.len, &b.v, -EINVAL);
        expect_seg(&b, b.len, &plain, -EINVAL);
    }
    b.f[b.l3] = 0x4F;                                                   /* IHL 15 > tot */
    wr16(b.f + b.l3 + 2, 40);
    expect_seg(&b, b.len, &b.v, -EINVAL);
    b.f[b.l3] = 0x45;
    wr16(b.f + b.l3 + 2, b.len - b.l3 + 1);                             /* tot_len > frame */
    expect_seg(&b, b.len, &b.v, -EINVAL);
    wr16(b.f + b.l3 + 2, 20 + 19);                                      /* tot_len < TCP */
    expect_seg(&b, b.len, &b.v, -EINVAL);
    wr16(b.f + b.l3 + 2, b.len - b.l3);
    b.f[b.l3] = 0x65;                                                   /* version 6 */
    expect_seg(&b, b.len, &b.v, -EINVAL);
    b.f[b.l3] = 0x45;
    b.f[b.l4 + 12] = 0x40;                                              /* doff 4 */
    expect_seg(&b, b.len, &b.v, -EINVAL);
    b.f[b.l4 + 12] = 0xF0;                                              /* doff 15 > tot */
    wr16(b.f + b.l3 + 2, 20 + 40);
    expect_seg(&b, b.len, &b.v, -EINVAL);
    free(b.f);

    struct spec s = TCP4;
    s.ver = 6;
    s.gso_type = ZVS_VNET_GSO_TCPV6;
    build(&s, &b);
    wr16(b.f + b.l3 + 4, b.len - b.l4 + 1);                             /* plen > frame */
    expect_seg(&b, b.len, &b.v, -EINVAL);
    wr16(b.f + b.l3 + 4, b.len - b.l4);
    b.f[b.l3 + 6] = 0;                                                  /* hop-by-hop */
    expect_seg(&b, b.len, &b.v, -ENOTSUP);
    b.f[b.l3 + 6] = 6;
    struct zvs_vnet v = b.v;
    v.flags = 0;
    v.hdr_len = 0;
    expect_seg(&b, b.l3 + 39, &v, -EINVAL);                             /* cut IPv6 */
    free(b.f);
}

static void test_segment_mtu_below_mss(void **state)
{
    struct built b;
    struct cap c = { 0 };

    build(&TCP4, &b);
    assert_int_equal(run_seg(&b, b.hl + 1447, false, false, &c), -EMSGSIZE);
    assert_int_equal(run_seg(&b, b.hl + 1447, true, false, &c), -EMSGSIZE);
    assert_int_equal(c.n, 0);
    free(b.f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_csum_rfc1071),
        cmocka_unit_test(test_parse_offsets),
        cmocka_unit_test(test_parse_rejects_stacked_tags_and_fragments),
        cmocka_unit_test(test_segment_tcp4),
        cmocka_unit_test(test_segment_tcp6),
        cmocka_unit_test(test_segment_vlan_ipv4_options),
        cmocka_unit_test(test_segment_out_gso_pieces),
        cmocka_unit_test(test_segment_csum_partial),
        cmocka_unit_test(test_segment_uso),
        cmocka_unit_test(test_segment_single_piece),
        cmocka_unit_test(test_segment_wrong_hdr_len_ignored),
        cmocka_unit_test(test_segment_gso_none),
        cmocka_unit_test(test_segment_emit_stops),
        cmocka_unit_test(test_csum_complete_tcp),
        cmocka_unit_test(test_csum_complete_udp_zero),
        cmocka_unit_test(test_csum_complete_bounds),
        cmocka_unit_test(test_malformed_metadata),
        cmocka_unit_test(test_malformed_headers),
        cmocka_unit_test(test_segment_mtu_below_mss),
    };
    return cmocka_run_group_tests_name("vnet", tests, NULL, NULL);
}
