/* The IVL domain's codecs: the data frame header (ivl/frame.c) byte for byte, every reason
 * a frame is dropped, Ethernet padding; the SYSTEM STATE message (ivl/state_msg.c) byte
 * for byte, every reason one is refused; the domain-wide 802.1AX port numbers
 * (ivl/port_number.c). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "ivl/frame.h"
#include "ivl/port_number.h"
#include "ivl/state_msg.h"

static const uint8_t peer_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x0B, 0x02 };
static const uint8_t our_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x0B, 0x01 };

/* A guest's 64-byte frame: broadcast from 02:00:00:00:00:05, EtherType 0x0800. */
static void inner_frame(uint8_t *f, size_t len)
{
    memset(f, 0, len);
    memset(f, 0xFF, 6);
    f[6] = 0x02;
    f[11] = 0x05;
    f[12] = 0x08;
    for (size_t i = 14; i < len; i++)
        f[i] = (uint8_t)i;
}

static void frame_bytes(void **state)
{
    uint8_t inner[64], out[128];
    inner_frame(inner, sizeof inner);
    struct zvs_ivl_hdr h = { .kind = ZVS_IVL_INBOUND, .origin = 2, .vswitch = 0x0007,
                             .seq = 0x01020304 };
    int n = zvs_ivl_frame_encap(&h, peer_mac, our_mac, inner, sizeof inner, out, sizeof out);
    assert_int_equal(n, ZVS_IVL_OUTER_LEN + 64);
    static const uint8_t head[ZVS_IVL_OUTER_LEN] = {
        0x02, 0, 0, 0, 0x0B, 0x02, 0x02, 0, 0, 0, 0x0B, 0x01, 0x88, 0xB5,
        0x01, 0x02, 0x02, 0x00, 0x00, 0x40, 0x00, 0x07, 0x01, 0x02, 0x03, 0x04,
    };
    assert_memory_equal(out, head, sizeof head);
    assert_memory_equal(out + ZVS_IVL_OUTER_LEN, inner, sizeof inner);

    struct zvs_ivl_hdr g;
    const uint8_t *in;
    size_t il;
    assert_int_equal(zvs_ivl_frame_decap(out, (size_t)n, &g, &in, &il), 0);
    assert_int_equal(g.kind, ZVS_IVL_INBOUND);
    assert_int_equal(g.origin, 2);
    assert_int_equal(g.vswitch, 7);
    assert_int_equal(g.seq, 0x01020304);
    assert_ptr_equal(in, out + ZVS_IVL_OUTER_LEN);
    assert_int_equal(il, 64);
}

static void frame_padding(void **state)
{
    uint8_t inner[20], out[64];
    inner_frame(inner, sizeof inner);
    struct zvs_ivl_hdr h = { .kind = ZVS_IVL_FLOOD, .origin = 1 }, g;
    int n = zvs_ivl_frame_encap(&h, peer_mac, our_mac, inner, sizeof inner, out, sizeof out);
    assert_int_equal(n, 46);
    memset(out + n, 0, sizeof out - (size_t)n);
    const uint8_t *in;
    size_t il;
    /* a NIC pads to 60 bytes: still the 20-byte inner frame */
    assert_int_equal(zvs_ivl_frame_decap(out, 60, &g, &in, &il), 0);
    assert_int_equal(il, 20);
    /* beyond the minimum frame, trailing bytes are a wrong length */
    assert_int_equal(zvs_ivl_frame_decap(out, 61, &g, &in, &il), -ZVS_IVL_FE_LENGTH);
}

static void frame_drops(void **state)
{
    uint8_t inner[64], good[128], f[128];
    inner_frame(inner, sizeof inner);
    struct zvs_ivl_hdr h = { .kind = ZVS_IVL_OUTBOUND, .origin = 3 }, g;
    memset(&g, 0xA5, sizeof g);
    struct zvs_ivl_hdr g0 = g;
    int n = zvs_ivl_frame_encap(&h, peer_mac, our_mac, inner, sizeof inner, good, sizeof good);
    const uint8_t *in = NULL;
    size_t il = 0;
    static const struct { unsigned off; uint8_t val; int err; } cases[] = {
        { 12, 0x08, -ZVS_IVL_FE_ETHERTYPE }, { 13, 0xB6, -ZVS_IVL_FE_ETHERTYPE },
        { 14, 2, -ZVS_IVL_FE_VERSION }, { 14, 0, -ZVS_IVL_FE_VERSION },
        { 15, 0, -ZVS_IVL_FE_KIND }, { 15, 4, -ZVS_IVL_FE_KIND },
        { 16, 0, -ZVS_IVL_FE_ORIGIN }, { 16, 4, -ZVS_IVL_FE_ORIGIN },
        { 17, 0x80, -ZVS_IVL_FE_FLAGS }, { 19, 65, -ZVS_IVL_FE_LENGTH },
        { 19, 63, -ZVS_IVL_FE_LENGTH }, { 19, 13, -ZVS_IVL_FE_LENGTH },
    };
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memcpy(f, good, (size_t)n);
        f[cases[i].off] = cases[i].val;
        assert_int_equal(zvs_ivl_frame_decap(f, (size_t)n, &g, &in, &il), cases[i].err);
        assert_memory_equal(&g, &g0, sizeof g);
        assert_string_not_equal(zvs_ivl_frame_err_name(cases[i].err), "invalid-code");
    }
    assert_int_equal(zvs_ivl_frame_decap(good, ZVS_IVL_OUTER_LEN + 13, &g, &in, &il),
                     -ZVS_IVL_FE_SHORT);
    assert_string_equal(zvs_ivl_frame_err_name(0), "invalid-code");
    /* what would not decode is not built */
    h.origin = 0;
    assert_int_equal(zvs_ivl_frame_encap(&h, peer_mac, our_mac, inner, 64, f, sizeof f), -EINVAL);
    h.origin = 1;
    assert_int_equal(zvs_ivl_frame_encap(&h, peer_mac, our_mac, inner, 13, f, sizeof f), -EINVAL);
    assert_int_equal(zvs_ivl_frame_encap(&h, peer_mac, our_mac, inner, 64, f, 89), -ENOSPC);
}

static struct zvs_ivl_state sample_state(void)
{
    struct zvs_ivl_state s = {
        .seq = 0x11223344, .system = "ZVMB", .index = 2,
        .flags = ZVS_IVL_SF_AGGREGATING | ZVS_IVL_SF_SHARED, .vswitch = "GLOBVSW",
        .group = "ETHGRP",
        .def = { .lacp = 1, .timeout = 1, .distribution = 2, .key = 0x0100,
                 .system_priority = 0x8000, .system = { 0x02, 0, 0, 0, 0, 0x10 } },
        .nmembers = 2,
        .member = { { .rdev = "28BA", .port = 0x0201, .state = 0x0F, .speed_mbps = 1000 },
                    { .rdev = "2902", .port = 0x0202, .state = 0x01, .speed_mbps = 10000 } },
    };
    return s;
}

static void state_bytes(void **state)
{
    struct zvs_ivl_state s = sample_state(), t;
    uint8_t out[ZVS_IVL_STATE_MAX];
    int n = zvs_ivl_state_encode(&s, out, sizeof out);
    assert_int_equal(n, 54 + 32);
    static const uint8_t want[86] = {
        'Z', 'I', 1, 1, 0, 86, 0x11, 0x22, 0x33, 0x44,
        'Z', 'V', 'M', 'B', ' ', ' ', ' ', ' ', 2, 3,
        'G', 'L', 'O', 'B', 'V', 'S', 'W', ' ', 'E', 'T', 'H', 'G', 'R', 'P', ' ', ' ',
        1, 1, 2, 0, 0x01, 0x00, 0x80, 0x00, 0x02, 0, 0, 0, 0, 0x10, 0, 0,
        2, 0,
        '2', '8', 'B', 'A', ' ', ' ', ' ', ' ', 0x02, 0x01, 0x0F, 0, 0, 0, 0x03, 0xE8,
        '2', '9', '0', '2', ' ', ' ', ' ', ' ', 0x02, 0x02, 0x01, 0, 0, 0, 0x27, 0x10,
    };
    assert_memory_equal(out, want, sizeof want);
    memset(&t, 0, sizeof t);
    assert_int_equal(zvs_ivl_state_decode(out, (size_t)n, &t), 0);
    assert_memory_equal(&s, &t, sizeof s);
    assert_true(zvs_ivl_group_def_equal(&s.def, &t.def));
    t.def.system[5] = 0x11;
    assert_false(zvs_ivl_group_def_equal(&s.def, &t.def));
    assert_int_equal(zvs_ivl_state_encode(&s, out, 85), -ENOSPC);
}

static void state_refusals(void **state)
{
    struct zvs_ivl_state s = sample_state(), t;
    uint8_t good[ZVS_IVL_STATE_MAX], m[ZVS_IVL_STATE_MAX];
    int n = zvs_ivl_state_encode(&s, good, sizeof good);
    static const struct { unsigned off; uint8_t val; int err; } cases[] = {
        { 0, 'X', -ZVS_IVL_SE_MAGIC }, { 2, 2, -ZVS_IVL_SE_VERSION },
        { 3, 2, -ZVS_IVL_SE_TYPE }, { 5, 85, -ZVS_IVL_SE_LENGTH },
        { 52, 3, -ZVS_IVL_SE_LENGTH }, { 52, 9, -ZVS_IVL_SE_LENGTH },
        { 39, 1, -ZVS_IVL_SE_RESERVED }, { 53, 1, -ZVS_IVL_SE_RESERVED },
        { 19, 0x07, -ZVS_IVL_SE_RESERVED }, { 54 + 11, 1, -ZVS_IVL_SE_RESERVED },
        { 54 + 10, 0x1F, -ZVS_IVL_SE_RESERVED },
        { 10, ' ', -ZVS_IVL_SE_NAME }, { 11, 'a', -ZVS_IVL_SE_NAME },
        { 15, 'X', -ZVS_IVL_SE_NAME }, { 28, 0, -ZVS_IVL_SE_NAME },
        { 54, ' ', -ZVS_IVL_SE_NAME },
        { 18, 0, -ZVS_IVL_SE_INDEX }, { 18, 4, -ZVS_IVL_SE_INDEX },
        { 54 + 8, 0x01, -ZVS_IVL_SE_PORT },        /* port 0x0101: system 1's */
        { 54 + 9, 0x00, -ZVS_IVL_SE_PORT },        /* port 0x0200: null member */
        { 70 + 9, 0x01, -ZVS_IVL_SE_PORT },        /* both 0x0201 */
    };
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memcpy(m, good, (size_t)n);
        m[cases[i].off] = cases[i].val;
        memset(&t, 0xA5, sizeof t);
        struct zvs_ivl_state t0 = t;
        int rc = zvs_ivl_state_decode(m, (size_t)n, &t);
        if (rc != cases[i].err)
            fail_msg("case %u (byte %u = 0x%02x): %d (%s), expected %d", i, cases[i].off,
                     cases[i].val, rc, zvs_ivl_state_err_name(rc), cases[i].err);
        assert_memory_equal(&t, &t0, sizeof t);
    }
    assert_int_equal(zvs_ivl_state_decode(good, 53, &t), -ZVS_IVL_SE_SHORT);
    assert_int_equal(zvs_ivl_state_decode(good, (size_t)n - 1, &t), -ZVS_IVL_SE_LENGTH);
    assert_string_equal(zvs_ivl_state_err_name(-ZVS_IVL_SE_PORT), "port");
    /* what would not decode is not built */
    s.member[1].port = 0x0301;
    assert_int_equal(zvs_ivl_state_encode(&s, m, sizeof m), -EINVAL);
    s = sample_state();
    strcpy(s.group, "lower");
    assert_int_equal(zvs_ivl_state_encode(&s, m, sizeof m), -EINVAL);
}

static void port_numbers(void **state)
{
    assert_int_equal(zvs_ivl_port_number(1, 0), 0x0101);
    assert_int_equal(zvs_ivl_port_number(3, 7), 0x0308);
    assert_int_equal(zvs_ivl_port_number(0, 0), 0);
    assert_int_equal(zvs_ivl_port_number(4, 0), 0);
    assert_int_equal(zvs_ivl_port_number(1, 8), 0);
    assert_int_equal(zvs_ivl_port_system(0x0203), 2);
    assert_int_equal(zvs_ivl_port_system(0x0200), 0);
    assert_int_equal(zvs_ivl_port_system(0x0209), 0);
    assert_int_equal(zvs_ivl_port_system(0x28BA), 0);
    /* unique across the domain */
    for (unsigned a = 1; a <= 3; a++)
        for (unsigned s = 0; s < 8; s++)
            for (unsigned b = 1; b <= 3; b++)
                for (unsigned t = 0; t < 8; t++)
                    if (a != b || s != t)
                        assert_int_not_equal(zvs_ivl_port_number(a, s),
                                             zvs_ivl_port_number(b, t));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(frame_bytes),
        cmocka_unit_test(frame_padding),
        cmocka_unit_test(frame_drops),
        cmocka_unit_test(state_bytes),
        cmocka_unit_test(state_refusals),
        cmocka_unit_test(port_numbers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
