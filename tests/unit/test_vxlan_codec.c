/* The VXLAN codec (overlay/vxlan_codec.c): outer headers as RFC 7348 section 5 lays them
 * out, their checksums checked by an independent sum, the parse of every cut and every
 * malformed field, and the outer source port's spread over flows. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "dataplane/vnet.h"
#include "overlay/vxlan_codec.h"
#include "tests/unit/vxlan_frames.h"

static const uint8_t NH_MAC[6] = { 0x02, 0xaa, 0, 0, 0, 2 };
static const uint8_t MY_MAC[6] = { 0x02, 0xaa, 0, 0, 0, 1 };

static struct zvs_vxlan_outer outer4(void)
{
    struct zvs_vxlan_outer o = { .src = vf_ip4(10, 0, 0, 1), .dst = vf_ip4(10, 0, 0, 2) };

    memcpy(o.dst_mac, NH_MAC, 6);
    memcpy(o.src_mac, MY_MAC, 6);
    return o;
}

/* A broadcast TCP frame of ilen bytes from 02:00:00:00:00:01 into inner. */
static void inner_frame(uint8_t *inner, uint32_t ilen)
{
    uint8_t src[6];

    vf_mac(src, 1);
    vf_tcp(inner, ilen, NULL, src, 1000);
}

/* hdr + inner into one buffer; returns its length. */
static uint32_t whole(uint8_t *buf, const struct zvs_vxlan_outer *o, uint32_t vni,
                      const uint8_t *inner, uint32_t ilen)
{
    unsigned h = zvs_vxlan_encap(buf, o, vni, 50000, ilen);

    assert_int_not_equal(h, 0);
    memcpy(buf + h, inner, ilen);
    return h + ilen;
}

static void test_encap_ipv4_layout(void **state)
{
    struct zvs_vxlan_outer o = outer4();
    uint8_t inner[100], buf[256];
    inner_frame(inner, sizeof inner);

    unsigned h = zvs_vxlan_encap(buf, &o, 0x123456, 51234, sizeof inner);
    assert_int_equal(h, ZVS_VXLAN_OVERHEAD_V4);
    assert_int_equal(h, 50);
    assert_memory_equal(buf, NH_MAC, 6);
    assert_memory_equal(buf + 6, MY_MAC, 6);
    assert_int_equal(zvs_be16(buf + 12), 0x0800);
    assert_int_equal(buf[14], 0x45);
    assert_int_equal(zvs_be16(buf + 16), 20 + 8 + 8 + 100);     /* IP total length */
    assert_int_equal(zvs_be16(buf + 20), 0x4000);               /* DF */
    assert_int_equal(buf[22], 64);
    assert_int_equal(buf[23], 17);
    assert_int_equal(vf_fold(vf_sum16(buf + 14, 20, 0)), 0xFFFF);     /* header checksum */
    assert_int_equal(zvs_be16(buf + 34), 51234);
    assert_int_equal(zvs_be16(buf + 36), 4789);
    assert_int_equal(zvs_be16(buf + 38), 8 + 8 + 100);
    assert_int_equal(zvs_be16(buf + 40), 0);                    /* no UDP checksum */
    const uint8_t vx[8] = { 0x08, 0, 0, 0, 0x12, 0x34, 0x56, 0 };
    assert_memory_equal(buf + 42, vx, 8);
    struct zvs_vnet v = zvs_vxlan_outer_vnet(&o, h);
    assert_int_equal(v.flags, 0);
}

static void test_encap_refuses_bad_vni_and_size(void **state)
{
    struct zvs_vxlan_outer o = outer4();
    uint8_t buf[128];

    assert_int_equal(zvs_vxlan_encap(buf, &o, ZVS_VXLAN_VNI_MAX + 1, 50000, 64), 0);
    assert_int_equal(zvs_vxlan_encap(buf, &o, 1, 50000, 65535 - 36 + 1), 0);
    assert_int_not_equal(zvs_vxlan_encap(buf, &o, 1, 50000, 65535 - 36), 0);
    o.dst = (struct zvs_ipaddr){ .family = 6 };
    assert_int_equal(zvs_vxlan_encap(buf, &o, 1, 50000, 64), 0);  /* families differ */
}

/* Over IPv6 the UDP checksum is partial: completing it (as the kernel or vnet.c would)
 * gives a datagram whose independent pseudo-header sum checks. */
static void test_encap_ipv6_checksum_completes(void **state)
{
    struct zvs_vxlan_outer o = outer4();
    uint8_t inner[91], buf[256];
    inner_frame(inner, sizeof inner);
    zvs_ipaddr_parse("2001:db8::1", &o.src);
    zvs_ipaddr_parse("2001:db8::2", &o.dst);
    o.underlay_vid = 7;

    uint32_t len = whole(buf, &o, 42, inner, sizeof inner);
    unsigned h = len - sizeof inner;
    assert_int_equal(h, ZVS_VXLAN_OVERHEAD_V6 + 4);
    assert_int_equal(zvs_be16(buf + 12), 0x8100);
    assert_int_equal(zvs_be16(buf + 14), 7);
    assert_int_equal(zvs_be16(buf + 16), 0x86DD);
    struct zvs_vnet v = zvs_vxlan_outer_vnet(&o, h);
    assert_int_equal(v.flags, ZVS_VNET_F_NEEDS_CSUM);
    assert_int_equal(v.csum_start, 18 + 40);
    assert_int_equal(zvs_vnet_csum_complete(buf, len, &v), 0);

    const uint8_t *ip = buf + 18, *udp = ip + 40;
    uint32_t ulen = zvs_be16(udp + 4);
    assert_int_equal(ulen, 8 + 8 + sizeof inner);
    uint32_t acc = vf_sum16(ip + 8, 32, 0) + ulen + 17;
    assert_int_equal(vf_fold(vf_sum16(udp, ulen, acc)), 0xFFFF);
    assert_int_not_equal(zvs_be16(udp + 6), 0);

    struct zvs_vxlan_decoded d;
    assert_int_equal(zvs_vxlan_decode(buf, len, 4789, 9216, &d), ZVS_VXLAN_OK);
    assert_int_equal(d.vni, 42);
    assert_int_equal(d.inner_off, h);
    assert_int_equal(d.inner_len, sizeof inner);
    assert_true(zvs_ipaddr_equal(&d.src, &o.src));
}

static void test_decode_roundtrip_and_padding(void **state)
{
    struct zvs_vxlan_outer o = outer4();
    uint8_t inner[60], buf[256];
    inner_frame(inner, sizeof inner);
    uint32_t len = whole(buf, &o, 5000, inner, sizeof inner);
    struct zvs_vxlan_decoded d;

    memset(buf + len, 0xEE, 20);                /* trailing bytes past the datagram */
    assert_int_equal(zvs_vxlan_decode(buf, len + 20, 4789, 9216, &d), ZVS_VXLAN_OK);
    assert_int_equal(d.vni, 5000);
    assert_false(d.reserved_set);
    assert_int_equal(d.sport, 50000);
    assert_int_equal(d.inner_off, 50);
    assert_int_equal(d.inner_len, sizeof inner);
    assert_memory_equal(buf + d.inner_off, inner, sizeof inner);
    assert_true(zvs_ipaddr_equal(&d.dst, &o.dst));
}

/* Every prefix of a good frame is truncated: nothing cut is ever taken for a frame. */
static void test_decode_every_cut_is_truncated(void **state)
{
    struct zvs_vxlan_outer o = outer4();
    uint8_t inner[64], buf[256];
    inner_frame(inner, sizeof inner);
    uint32_t len = whole(buf, &o, 5000, inner, sizeof inner);
    struct zvs_vxlan_decoded d;

    for (uint32_t cut = 0; cut < len; cut++)
        assert_int_equal(zvs_vxlan_decode(buf, cut, 4789, 9216, &d), ZVS_VXLAN_TRUNCATED);
}

static void test_decode_malformed(void **state)
{
    struct zvs_vxlan_outer o = outer4();
    uint8_t inner[64], good[256], buf[256];
    inner_frame(inner, sizeof inner);
    uint32_t len = whole(good, &o, 5000, inner, sizeof inner);
    struct zvs_vxlan_decoded d;

#define FRESH() memcpy(buf, good, len)
    FRESH(); buf[42] = 0;                                       /* I flag clear */
    assert_int_equal(zvs_vxlan_decode(buf, len, 4789, 9216, &d), ZVS_VXLAN_I_FLAG_CLEAR);
    FRESH(); buf[42] = 0x88; buf[49] = 1;                       /* reserved bits: ignored */
    assert_int_equal(zvs_vxlan_decode(buf, len, 4789, 9216, &d), ZVS_VXLAN_OK);
    assert_true(d.reserved_set);
    assert_int_equal(d.vni, 5000);
    FRESH();
    assert_int_equal(zvs_vxlan_decode(buf, len, 8472, 9216, &d), ZVS_VXLAN_NOT_VXLAN);
    FRESH(); buf[23] = 6;                                       /* TCP, not UDP */
    assert_int_equal(zvs_vxlan_decode(buf, len, 4789, 9216, &d), ZVS_VXLAN_NOT_VXLAN);
    FRESH(); zvs_put_be16(buf + 12, 0x0806);
    assert_int_equal(zvs_vxlan_decode(buf, len, 4789, 9216, &d), ZVS_VXLAN_NOT_VXLAN);
    FRESH(); zvs_put_be16(buf + 20, 0x2000); vf_ip_csum(buf + 14);  /* more fragments */
    assert_int_equal(zvs_vxlan_decode(buf, len, 4789, 9216, &d), ZVS_VXLAN_BAD_OUTER);
    FRESH(); buf[22] = 63;                                      /* TTL: sum now wrong */
    assert_int_equal(zvs_vxlan_decode(buf, len, 4789, 9216, &d), ZVS_VXLAN_BAD_OUTER);
    FRESH(); buf[14] = 0x44;                                    /* IHL 4 */
    assert_int_equal(zvs_vxlan_decode(buf, len, 4789, 9216, &d), ZVS_VXLAN_BAD_OUTER);
    FRESH(); zvs_put_be16(buf + 38, 4);                         /* UDP length < 8 */
    assert_int_equal(zvs_vxlan_decode(buf, len, 4789, 9216, &d), ZVS_VXLAN_BAD_OUTER);
    FRESH(); zvs_put_be16(buf + 38, 200);                       /* past the IP datagram */
    assert_int_equal(zvs_vxlan_decode(buf, len, 4789, 9216, &d), ZVS_VXLAN_BAD_OUTER);
    FRESH(); zvs_put_be16(buf + 38, 8 + 8 + 13);                /* inner 13 bytes */
    assert_int_equal(zvs_vxlan_decode(buf, len, 4789, 9216, &d), ZVS_VXLAN_INNER_RUNT);
    FRESH();
    assert_int_equal(zvs_vxlan_decode(buf, len, 4789, 63, &d), ZVS_VXLAN_INNER_OVERSIZE);
    assert_int_equal(zvs_vxlan_decode(buf, len, 4789, 64, &d), ZVS_VXLAN_OK);
#undef FRESH
    assert_string_equal(zvs_vxlan_verdict_name(ZVS_VXLAN_I_FLAG_CLEAR), "vxlan-i-flag-clear");
}

/* One flow, one port, in RFC 7348's range; 256 flows spread over many ports. */
static void test_sport_hash(void **state)
{
    uint8_t f[80], src[6], dst[6];
    uint8_t seen[256] = { 0 };
    unsigned distinct = 0;
    vf_mac(src, 1);
    vf_mac(dst, 2);

    vf_tcp(f, sizeof f, dst, src, 1000);
    uint16_t p1 = zvs_vxlan_sport(f, sizeof f);
    f[60] = 0x55;                                       /* payload changes: same flow */
    assert_int_equal(zvs_vxlan_sport(f, sizeof f), p1);
    for (unsigned i = 0; i < 256; i++) {
        vf_tcp(f, sizeof f, dst, src, (uint16_t)(1000 + i));
        uint16_t p = zvs_vxlan_sport(f, sizeof f);
        assert_true(p >= ZVS_VXLAN_SPORT_MIN);
        if (!seen[p & 0xFF]++)
            distinct++;
    }
    assert_true(distinct > 128);                        /* low bytes: a group's buckets */
    assert_int_equal(zvs_vxlan_sport(f, 10), ZVS_VXLAN_SPORT_MIN);
}

static void test_ipaddr_text(void **state)
{
    struct zvs_ipaddr a;
    char buf[64];

    assert_int_equal(zvs_ipaddr_parse("192.0.2.7", &a), 0);
    assert_int_equal(a.family, 4);
    assert_string_equal(zvs_ipaddr_str(&a, buf, sizeof buf), "192.0.2.7");
    assert_int_equal(zvs_ipaddr_parse("2001:db8::7", &a), 0);
    assert_int_equal(a.family, 6);
    assert_string_equal(zvs_ipaddr_str(&a, buf, sizeof buf), "2001:db8::7");
    assert_int_equal(zvs_ipaddr_parse("vtep2.example", &a), -22);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_encap_ipv4_layout),
        cmocka_unit_test(test_encap_refuses_bad_vni_and_size),
        cmocka_unit_test(test_encap_ipv6_checksum_completes),
        cmocka_unit_test(test_decode_roundtrip_and_padding),
        cmocka_unit_test(test_decode_every_cut_is_truncated),
        cmocka_unit_test(test_decode_malformed),
        cmocka_unit_test(test_sport_hash),
        cmocka_unit_test(test_ipaddr_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
