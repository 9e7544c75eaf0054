/* Switch model port-channel hash: exact buckets for given MACs and IPs, the bucket to
 * member spread and the IOS Load masks. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "tests/switchmodel/sm_hash.h"

/* An Ethernet frame dst, src, EtherType; IPv4 header with src/dst when ip4 != NULL. */
static uint32_t frame(uint8_t *f, uint8_t dlast, uint8_t slast, const uint8_t *sip,
                      const uint8_t *dip, bool tagged)
{
    static const uint8_t d[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x00 };
    uint32_t o = 12;
    memset(f, 0, 128);
    memcpy(f, d, 6);
    memcpy(f + 6, d, 6);
    f[5] = dlast;
    f[11] = slast;
    if (tagged) {
        f[12] = 0x81, f[13] = 0x00, f[14] = 0x00, f[15] = 0x14;
        o = 16;
    }
    if (!sip) {
        f[o] = 0x88, f[o + 1] = 0xB5;
        return o + 2 + 46;
    }
    f[o] = 0x08, f[o + 1] = 0x00;
    f[o + 2] = 0x45;
    memcpy(f + o + 2 + 12, sip, 4);
    memcpy(f + o + 2 + 16, dip, 4);
    return o + 2 + 20 + 8;
}

static void test_mac_hashes(void **state)
{
    (void)state;
    uint8_t f[128];
    uint32_t len = frame(f, 0x2D, 0x13, NULL, NULL, false);   /* dst ..2D (5), src ..13 (3) */
    assert_int_equal(sm_lb_bucket(SM_LB_DST_MAC, f, len), 5);
    assert_int_equal(sm_lb_bucket(SM_LB_SRC_MAC, f, len), 3);
    assert_int_equal(sm_lb_bucket(SM_LB_SRC_DST_MAC, f, len), 6);    /* 5 ^ 3 */
    /* not IP: src-dst-ip falls back to src-dst-mac */
    assert_int_equal(sm_lb_bucket(SM_LB_SRC_DST_IP, f, len), 6);
    /* only the low 3 bits count */
    len = frame(f, 0xF8, 0x07, NULL, NULL, false);
    assert_int_equal(sm_lb_bucket(SM_LB_DST_MAC, f, len), 0);
    assert_int_equal(sm_lb_bucket(SM_LB_SRC_MAC, f, len), 7);
    assert_int_equal(sm_lb_bucket(SM_LB_SRC_DST_MAC, f, len), 7);
    /* sequential server MACs with dst-mac land in consecutive buckets */
    for (unsigned i = 0; i < 16; i++) {
        len = frame(f, (uint8_t)(0x40 + i), 0x01, NULL, NULL, false);
        assert_int_equal(sm_lb_bucket(SM_LB_DST_MAC, f, len), i % 8);
    }
}

static void test_ip_hash(void **state)
{
    (void)state;
    uint8_t f[128];
    static const uint8_t a[4] = { 10, 78, 0, 1 }, b[4] = { 10, 78, 0, 6 };
    static const uint8_t c[4] = { 192, 168, 1, 0x8B }, d[4] = { 192, 168, 1, 0x0E };
    uint32_t len = frame(f, 0x00, 0x00, a, b, false);
    assert_int_equal(sm_lb_bucket(SM_LB_SRC_DST_IP, f, len), 7);     /* 1 ^ 6 */
    assert_int_equal(sm_lb_bucket(SM_LB_SRC_DST_MAC, f, len), 0);
    len = frame(f, 0x05, 0x01, c, d, true);                           /* behind a tag */
    assert_int_equal(sm_lb_bucket(SM_LB_SRC_DST_IP, f, len), 5);     /* 0x8B ^ 0x0E = 0x85 */
    assert_int_equal(sm_lb_bucket(SM_LB_DST_MAC, f, len), 5);
    /* a truncated IPv4 header is not IP: the MAC fallback (0x05 ^ 0x01) */
    assert_int_equal(sm_lb_bucket(SM_LB_SRC_DST_IP, f, 30), 4);
}

static void test_ipv6_hash(void **state)
{
    (void)state;
    uint8_t f[128];
    memset(f, 0, sizeof(f));
    f[12] = 0x86, f[13] = 0xDD, f[14] = 0x60;
    f[14 + 23] = 0x21;                  /* last byte of the source */
    f[14 + 39] = 0x0B;                  /* last byte of the destination */
    assert_int_equal(sm_lb_bucket(SM_LB_SRC_DST_IP, f, 14 + 40), 2);  /* 0x21 ^ 0x0B = 0x2A */
}

static void test_short_frame(void **state)
{
    (void)state;
    static const uint8_t f[4] = { 1, 2, 3, 4 };
    assert_int_equal(sm_lb_bucket(SM_LB_DST_MAC, f, 4), 0);
    assert_int_equal(sm_lb_bucket(SM_LB_SRC_DST_IP, f, 4), 0);
}

static void test_members_and_masks(void **state)
{
    (void)state;
    assert_int_equal(sm_lb_member(5, 1), 0);
    assert_int_equal(sm_lb_member(5, 2), 1);
    assert_int_equal(sm_lb_member(5, 3), 2);
    assert_int_equal(sm_lb_member(7, 8), 7);
    assert_int_equal(sm_lb_load_mask(0, 1), 0xFF);
    assert_int_equal(sm_lb_load_mask(0, 2), 0x55);
    assert_int_equal(sm_lb_load_mask(1, 2), 0xAA);
    assert_int_equal(sm_lb_load_mask(0, 3), 0x49);
    assert_int_equal(sm_lb_load_mask(1, 3), 0x92);
    assert_int_equal(sm_lb_load_mask(2, 3), 0x24);
    assert_int_equal(sm_lb_load_mask(0, 0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mac_hashes),
        cmocka_unit_test(test_ip_hash),
        cmocka_unit_test(test_ipv6_hash),
        cmocka_unit_test(test_short_frame),
        cmocka_unit_test(test_members_and_masks),
    };
    return cmocka_run_group_tests_name("switchmodel_hash", tests, NULL, NULL);
}
