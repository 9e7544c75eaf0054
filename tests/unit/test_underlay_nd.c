/* IPv6 Neighbor Discovery on the underlay (overlay/underlay_nd.c, RFC 4861): the
 * solicitation's bytes (solicited-node addresses, hop limit 255, checksum, source
 * link-layer option), an advertisement answering it learned, every message section 7.1
 * says to drop dropped, and two IPv6 VTEPs finding each other's MAC through their own
 * bytes before the first frame crosses. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "dataplane/vnet.h"
#include "overlay/underlay_nd.h"
#include "overlay/vtep.h"
#include "tests/unit/vxlan_frames.h"

#define S UINT64_C(1000000000)

static const uint8_t MAC_A[6] = { 0x02, 0xaa, 0, 0, 0, 1 };
static const uint8_t MAC_B[6] = { 0x02, 0xaa, 0, 0, 0, 2 };

static struct zvs_ipaddr ip6(uint8_t last)
{
    struct zvs_ipaddr a = { .family = 6, .a = { 0x20, 0x01, 0x0d, 0xb8, [13] = 0x12,
                                                 [14] = 0x34, [15] = last } };
    return a;
}

/* The ICMPv6 checksum of an untagged ND frame verifies (sums to 0xFFFF). */
static bool csum_ok(const uint8_t *f)
{
    uint32_t plen = zvs_be16(f + 18);
    uint8_t tail[8] = { 0, 0, (uint8_t)(plen >> 8), (uint8_t)plen, 0, 0, 0, 58 };
    uint16_t s = zvs_csum_add(0, f + 22, 32);
    s = zvs_csum_add(s, tail, 8);
    return zvs_csum_add(s, f + 54, plen) == 0xFFFF;
}

/* The checksum of an edited untagged ND frame made right again. */
static void recsum(uint8_t *f)
{
    uint32_t plen = zvs_be16(f + 18);
    uint8_t tail[8] = { 0, 0, (uint8_t)(plen >> 8), (uint8_t)plen, 0, 0, 0, 58 };
    zvs_put_be16(f + 56, 0);
    uint16_t s = zvs_csum_add(0, f + 22, 32);
    s = zvs_csum_add(zvs_csum_add(s, tail, 8), f + 54, plen);
    zvs_put_be16(f + 56, (uint16_t)~s);
    assert_true(csum_ok(f));
}

/* good with byte off set to val (the checksum made right again when fix) is refused. */
static void refused_edit(struct zvs_uarp *u, const uint8_t *good, unsigned off, uint8_t val,
                         bool fix, const uint8_t local[16])
{
    uint8_t f[ZVS_UND_FRAME_LEN];

    memcpy(f, good, sizeof f);
    f[off] = val;
    if (fix)
        recsum(f);
    assert_int_equal(zvs_und_input(u, f, sizeof f, local, MAC_A, 5, NULL), -EINVAL);
}

static void test_solicit_bytes(void **state)
{
    uint8_t f[ZVS_UND_FRAME_LEN];
    struct zvs_ipaddr a = ip6(1), b = ip6(2);
    const uint8_t mc_mac[6] = { 0x33, 0x33, 0xff, 0x12, 0x34, 0x02 };
    const uint8_t mc_ip[16] = { 0xff, 0x02, [11] = 1, [12] = 0xff, [13] = 0x12, [14] = 0x34,
                                [15] = 2 };

    assert_int_equal(zvs_und_solicit(f, MAC_A, a.a, b.a), 86);
    assert_memory_equal(f, mc_mac, 6);
    assert_memory_equal(f + 6, MAC_A, 6);
    assert_int_equal(zvs_be16(f + 12), 0x86DD);
    assert_int_equal(f[14] >> 4, 6);
    assert_int_equal(zvs_be16(f + 18), 32);             /* ICMPv6 24 + one option */
    assert_int_equal(f[20], 58);
    assert_int_equal(f[21], 255);
    assert_memory_equal(f + 22, a.a, 16);
    assert_memory_equal(f + 38, mc_ip, 16);
    assert_int_equal(f[54], 135);
    assert_memory_equal(f + 62, b.a, 16);
    assert_int_equal(f[78], 1);                         /* source link-layer address */
    assert_int_equal(f[79], 1);
    assert_memory_equal(f + 80, MAC_A, 6);
    assert_true(csum_ok(f));
}

static void test_answer_and_learn(void **state)
{
    struct zvs_uarp ua, ub;
    struct zvs_ipaddr a = ip6(1), b = ip6(2), c = ip6(3);
    uint8_t ns[ZVS_UND_FRAME_LEN], na[ZVS_UND_FRAME_LEN], mac[6];
    bool ask;

    zvs_uarp_init(&ua, 0);
    zvs_uarp_init(&ub, 0);
    assert_false(zvs_uarp_resolve(&ua, &b, 1, mac, &ask));
    assert_true(ask);
    zvs_und_solicit(ns, MAC_A, a.a, b.a);
    zvs_uarp_asked(&ua, &b, 1);

    /* B answers its own address, solicited and override, to A's MAC. */
    assert_int_equal(zvs_und_input(&ub, ns, sizeof ns, b.a, MAC_B, 2, na), 86);
    assert_memory_equal(na, MAC_A, 6);
    assert_memory_equal(na + 38, a.a, 16);
    assert_int_equal(na[54], 136);
    assert_int_equal(na[58], 0x60);
    assert_memory_equal(na + 62, b.a, 16);
    assert_int_equal(na[78], 2);                        /* target link-layer address */
    assert_memory_equal(na + 80, MAC_B, 6);
    assert_true(csum_ok(na));
    /* A solicitation for another address is not answered. */
    assert_int_equal(zvs_und_input(&ub, ns, sizeof ns, c.a, MAC_B, 2, na + 0), 0);

    /* A learns B's MAC from the advertisement. */
    uint8_t adv[ZVS_UND_FRAME_LEN];
    zvs_und_input(&ub, ns, sizeof ns, b.a, MAC_B, 2, adv);
    assert_int_equal(zvs_und_input(&ua, adv, sizeof adv, a.a, MAC_A, 3, NULL), 0);
    assert_true(zvs_uarp_resolve(&ua, &b, 4, mac, &ask));
    assert_memory_equal(mac, MAC_B, 6);
    assert_false(ask);

    /* Section 7.1: hop limit, code, checksum, a multicast target, a zero-length option,
     * a cut frame. */
    uint8_t bad[ZVS_UND_FRAME_LEN];
    uint64_t ignored = ua.ignored;
    refused_edit(&ua, adv, 21, 254, true, a.a);         /* hop limit */
    refused_edit(&ua, adv, 55, 1, true, a.a);           /* code */
    refused_edit(&ua, adv, 70, adv[70] ^ 1, false, a.a); /* checksum */
    refused_edit(&ua, adv, 62, 0xff, true, a.a);        /* multicast target */
    refused_edit(&ua, adv, 79, 0, true, a.a);           /* zero-length option */
    assert_int_equal(zvs_und_input(&ua, adv, 60, a.a, MAC_A, 5, NULL), -EINVAL);
    assert_int_equal(ua.ignored, ignored + 6);

    /* Duplicate Address Detection (source ::) is not answered. */
    memcpy(bad, ns, sizeof bad);
    memset(bad + 22, 0, 16);
    recsum(bad);
    assert_int_equal(zvs_und_input(&ub, bad, sizeof bad, b.a, MAC_B, 6, na), 0);
}

/* An IPv6 neighbour ages as an IPv4 one (one table): STALE at exactly the age, still
 * used while solicited again, REACHABLE from the advertisement that answers. */
static void test_stale_solicited_again(void **state)
{
    const uint64_t age = 60 * S;
    struct zvs_uarp ua, ub;
    struct zvs_ipaddr a = ip6(1), b = ip6(2);
    uint8_t ns[ZVS_UND_FRAME_LEN], na[ZVS_UND_FRAME_LEN], mac[6];
    bool ask;

    zvs_uarp_init(&ua, age);
    zvs_uarp_init(&ub, 0);
    assert_false(zvs_uarp_resolve(&ua, &b, S, mac, &ask));
    assert_true(ask);
    zvs_uarp_asked(&ua, &b, S);
    zvs_und_solicit(ns, MAC_A, a.a, b.a);
    assert_int_equal(zvs_und_input(&ub, ns, sizeof ns, b.a, MAC_B, S, na), 86);
    assert_int_equal(zvs_und_input(&ua, na, sizeof na, a.a, MAC_A, 2 * S, NULL), 0);
    assert_true(zvs_uarp_resolve(&ua, &b, 2 * S + age - 1, mac, &ask));
    assert_false(ask);
    assert_int_equal(ua.e[0].state, ZVS_UARP_REACHABLE);
    assert_true(zvs_uarp_resolve(&ua, &b, 2 * S + age, mac, &ask));
    assert_true(ask);
    assert_memory_equal(mac, MAC_B, 6);
    assert_int_equal(ua.e[0].state, ZVS_UARP_STALE);
    zvs_uarp_asked(&ua, &b, 2 * S + age);
    assert_true(zvs_uarp_resolve(&ua, &b, 2 * S + age + S / 2, mac, &ask));
    assert_false(ask);
    assert_int_equal(zvs_und_input(&ua, na, sizeof na, a.a, MAC_A, 3 * S + age, NULL), 0);
    assert_int_equal(ua.e[0].state, ZVS_UARP_REACHABLE);
    assert_int_equal(ua.replies, 2);
    assert_true(zvs_uarp_resolve(&ua, &b, 4 * S + age, mac, &ask));
    assert_false(ask);
}

/* Two IPv6 VTEPs: A's first frame to B asks (Neighbor Solicitation), B answers through
 * its decapsulation path, A learns and the next frame crosses. */
static void test_vteps_over_ipv6(void **state)
{
    struct zvs_vtep_config ca = { .local = ip6(1) }, cb = { .local = ip6(2) };
    memcpy(ca.local_mac, MAC_A, 6);
    memcpy(cb.local_mac, MAC_B, 6);
    struct zvs_vtep *a = zvs_vtep_create(&ca), *b = zvs_vtep_create(&cb);
    struct zvs_ipaddr ia = ip6(1), ib = ip6(2);
    assert_int_equal(zvs_vtep_map_vni(a, 0, 7), 0);
    assert_int_equal(zvs_vtep_map_vni(b, 0, 7), 0);
    assert_true(zvs_vtep_add_remote(a, "2001:db8::1234:2", &ib) >= 0);
    assert_true(zvs_vtep_add_remote(b, "2001:db8::1234:1", &ia) >= 0);

    uint8_t g[6], f[80];
    static struct zvs_vtep_tx tx[8];
    vf_mac(g, 1);
    vf_tcp(f, sizeof f, NULL, g, 1000);
    struct zvs_frame in = vf_frame(f, sizeof f, 0), out[1];
    struct zvs_vtep_ctl ctl = { .n = 0 }, back = { .n = 0 };

    assert_int_equal(zvs_vtep_encap_burst(a, &in, 1, 1, tx, 8, &ctl), 0);
    assert_int_equal(ctl.n, 1);
    assert_int_equal(ctl.len[0], 86);
    assert_int_equal(ctl.frame[0][54], 135);
    struct zvs_frame nsf = vf_frame(ctl.frame[0], ctl.len[0], 0);
    assert_int_equal(zvs_vtep_decap_burst(b, &nsf, 1, 2, out, NULL, &back), 0);
    assert_int_equal(back.n, 1);                        /* B's advertisement */
    assert_int_equal(back.frame[0][54], 136);
    struct zvs_frame naf = vf_frame(back.frame[0], back.len[0], 0);
    ctl.n = 0;
    assert_int_equal(zvs_vtep_decap_burst(a, &naf, 1, 3, out, NULL, &ctl), 0);
    assert_int_equal(ctl.n, 0);
    assert_int_equal(zvs_vtep_encap_burst(a, &in, 1, 4, tx, 8, &ctl), 1);
    assert_memory_equal(tx[0].hdr, MAC_B, 6);
    zvs_vtep_destroy(a);
    zvs_vtep_destroy(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_solicit_bytes),
        cmocka_unit_test(test_answer_and_learn),
        cmocka_unit_test(test_stale_solicited_again),
        cmocka_unit_test(test_vteps_over_ipv6),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
