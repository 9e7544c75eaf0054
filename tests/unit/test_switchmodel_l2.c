/* Switch model L2 core: learning, aging at exact virtual times, flooding by VLAN except
 * the ingress, known unicast, port-channel as one logical port, tag operations. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "tests/switchmodel/sm_l2.h"
#include "dataplane/frame.h"

#define SEC 1000000000ull

static struct sm_l2 l2;

/* lports: 0 access vlan 1, 1 access vlan 1, 2 access vlan 20, 3 trunk (a port-channel) */
static int setup(void **state)
{
    (void)state;
    memset(&l2, 0, sizeof(l2));
    sm_mac_init(&l2.mac, 300 * SEC);
    l2.n_lports = 4;
    for (unsigned i = 0; i < 4; i++)
        l2.lp[i] = (struct sm_lport){ .up = true, .access_vid = 1 };
    l2.lp[2].access_vid = 20;
    l2.lp[3].trunk = true;
    return 0;
}

static void mkframe(uint8_t *f, uint8_t dst_last, uint8_t src_last)
{
    static const uint8_t base[6] = { 0x02, 0, 0, 0, 0, 0 };
    memset(f, 0, 64);
    memcpy(f, base, 6);
    memcpy(f + 6, base, 6);
    f[5] = dst_last;
    f[11] = src_last;
    f[12] = 0x08;
}

static void test_flood_then_learn(void **state)
{
    (void)state;
    uint8_t f[64];
    uint16_t out[SM_MAX_LPORTS];

    mkframe(f, 0xB0, 0xA0);             /* A on lport 0 -> unknown B */
    assert_int_equal(sm_l2_forward(&l2, 0, 1, f, 1 * SEC, out), 2);
    assert_int_equal(out[0], 1);        /* vlan 1 access ... */
    assert_int_equal(out[1], 3);        /* ... and the trunk; never 0 (ingress) or 2 (vlan 20) */
    assert_int_equal(l2.mac.count, 1);
    assert_int_equal(l2.mac.learned, 1);

    mkframe(f, 0xA0, 0xB0);             /* B answers from the port-channel: known unicast */
    assert_int_equal(sm_l2_forward(&l2, 3, 1, f, 2 * SEC, out), 1);
    assert_int_equal(out[0], 0);
    assert_int_equal(sm_mac_lookup(&l2.mac, 1, f + 6, 2 * SEC), 3);

    mkframe(f, 0xB0, 0xA0);             /* A -> B now known on the trunk */
    assert_int_equal(sm_l2_forward(&l2, 0, 1, f, 3 * SEC, out), 1);
    assert_int_equal(out[0], 3);

    mkframe(f, 0xA0, 0xC0);             /* to a MAC behind the ingress itself: filtered */
    assert_int_equal(sm_l2_forward(&l2, 0, 1, f, 3 * SEC, out), 0);
}

static void test_broadcast_and_group_source(void **state)
{
    (void)state;
    uint8_t f[64];
    uint16_t out[SM_MAX_LPORTS];
    mkframe(f, 0, 0xA0);
    memset(f, 0xff, 6);
    assert_int_equal(sm_l2_forward(&l2, 3, 20, f, SEC, out), 1);     /* vlan 20 from trunk */
    assert_int_equal(out[0], 2);
    f[6] = 0x01;                        /* group source: forwarded, never learned */
    assert_int_equal(sm_l2_forward(&l2, 0, 1, f, SEC, out), 2);
    assert_int_equal(l2.mac.count, 1);
}

static void test_aging_exact(void **state)
{
    (void)state;
    static const uint8_t m[6] = { 2, 0, 0, 0, 0, 0x11 };
    assert_int_equal(sm_mac_learn(&l2.mac, 1, m, 1, 10 * SEC), 0);
    assert_int_equal(sm_mac_learn(&l2.mac, 1, m, 1, 20 * SEC), 1);   /* refreshed */
    assert_int_equal(sm_mac_lookup(&l2.mac, 1, m, 320 * SEC - 1), 1);
    assert_int_equal(sm_mac_lookup(&l2.mac, 1, m, 320 * SEC), -1);   /* 300 s after */
    assert_int_equal(sm_mac_lookup(&l2.mac, 2, m, 21 * SEC), -1);    /* other VLAN */
    assert_int_equal(sm_mac_age(&l2.mac, 320 * SEC - 1), 0);
    assert_int_equal(sm_mac_age(&l2.mac, 320 * SEC), 1);
    assert_int_equal(l2.mac.count, 0);
}

static void test_move_and_flush(void **state)
{
    (void)state;
    static const uint8_t m[6] = { 2, 0, 0, 0, 0, 0x22 }, n[6] = { 2, 0, 0, 0, 0, 0x33 };
    assert_int_equal(sm_mac_learn(&l2.mac, 1, m, 0, SEC), 0);
    assert_int_equal(sm_mac_learn(&l2.mac, 1, m, 3, SEC), 2);        /* moved */
    assert_int_equal(l2.mac.moves, 1);
    assert_int_equal(sm_mac_learn(&l2.mac, 1, n, 3, SEC), 0);
    assert_int_equal(sm_mac_flush_lport(&l2.mac, 3), 2);
    assert_int_equal(l2.mac.count, 0);
}

static void test_table_full(void **state)
{
    (void)state;
    uint8_t m[6] = { 2, 0, 0, 0, 0, 0 };
    for (unsigned i = 0; i < SM_MAC_MAX; i++) {
        m[4] = (uint8_t)(i >> 8);
        m[5] = (uint8_t)i;
        assert_int_equal(sm_mac_learn(&l2.mac, 1, m, 0, SEC), 0);
    }
    m[3] = 1;
    assert_int_equal(sm_mac_learn(&l2.mac, 1, m, 0, SEC), -ENOSPC);
    assert_int_equal(l2.mac.full, 1);
    static struct sm_mac_entry e[SM_MAC_MAX];
    assert_int_equal(sm_mac_dump(&l2.mac, SEC, e, SM_MAC_MAX), SM_MAC_MAX);
    assert_int_equal(e[0].mac[5], 0);   /* sorted */
    assert_int_equal(e[SM_MAC_MAX - 1].mac[4], (SM_MAC_MAX - 1) >> 8);
    sm_mac_flush(&l2.mac);
    assert_int_equal(l2.mac.count, 0);
    assert_int_equal(sm_mac_learn(&l2.mac, 1, m, 0, SEC), 0);
}

static void test_down_port_not_flooded(void **state)
{
    (void)state;
    uint8_t f[64];
    uint16_t out[SM_MAX_LPORTS];
    l2.lp[3].up = false;
    mkframe(f, 0xB0, 0xA0);
    assert_int_equal(sm_l2_forward(&l2, 0, 1, f, SEC, out), 1);
    assert_int_equal(out[0], 1);
}

static void test_classify_and_tags(void **state)
{
    (void)state;
    uint8_t f[64];
    uint16_t vid = 0;
    mkframe(f, 1, 2);
    assert_int_equal(sm_l2_classify(&l2.lp[2], f, 64, &vid), 0);
    assert_int_equal(vid, 20);
    assert_int_equal(sm_l2_classify(&l2.lp[3], f, 64, &vid), 0);
    assert_int_equal(vid, 1);
    f[12] = 0x81, f[13] = 0x00, f[14] = 0x00, f[15] = 0x14;         /* tag VID 20 */
    assert_int_equal(sm_l2_classify(&l2.lp[3], f, 64, &vid), 0);
    assert_int_equal(vid, 20);
    assert_int_equal(sm_l2_classify(&l2.lp[2], f, 64, &vid), -1);   /* tagged on access */
    f[14] = 0x0f, f[15] = 0xff;
    assert_int_equal(sm_l2_classify(&l2.lp[3], f, 64, &vid), -1);   /* VID 4095 */
    f[14] = 0xe0, f[15] = 0x00;                                       /* priority tag */
    assert_int_equal(sm_l2_classify(&l2.lp[3], f, 64, &vid), 0);
    assert_int_equal(vid, 1);

    assert_int_equal(sm_l2_egress_op(&l2.lp[3], 20, false), ZVS_TAG_PUSH);
    assert_int_equal(sm_l2_egress_op(&l2.lp[3], 20, true), ZVS_TAG_REWRITE);
    assert_int_equal(sm_l2_egress_op(&l2.lp[3], 1, false), ZVS_TAG_KEEP);
    assert_int_equal(sm_l2_egress_op(&l2.lp[3], 1, true), ZVS_TAG_STRIP);
    assert_int_equal(sm_l2_egress_op(&l2.lp[2], 20, true), ZVS_TAG_STRIP);
    assert_int_equal(sm_l2_egress_op(&l2.lp[2], 20, false), ZVS_TAG_KEEP);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_flood_then_learn, setup),
        cmocka_unit_test_setup(test_broadcast_and_group_source, setup),
        cmocka_unit_test_setup(test_aging_exact, setup),
        cmocka_unit_test_setup(test_move_and_flush, setup),
        cmocka_unit_test_setup(test_table_full, setup),
        cmocka_unit_test_setup(test_down_port_not_flooded, setup),
        cmocka_unit_test_setup(test_classify_and_tags, setup),
    };
    return cmocka_run_group_tests_name("switchmodel_l2", tests, NULL, NULL);
}
