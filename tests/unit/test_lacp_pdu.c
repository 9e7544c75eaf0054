/* Slow Protocols codec (lacp/pdu.c): the reference example LACPDU byte for byte, Marker and
 * Marker Response bytes, every receive validation rule with a crafted frame (and its MIB
 * counter class), version and trailing-byte tolerance, names, state strings, loopback. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "lacp/pdu.h"

/* ---- fixtures ---------------------------------------------------------------------- */

static const uint8_t port_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x11 };

/* A steady-state LACPDU (IEEE 802.1AX-2008 5.4.2 / 2014 6.4.2): actor 0x8000/02:00:00:00:00:01 key 1 port 0x8000/1 state 0x3D,
 * partner 0x007F/00:11:22:33:44:55 key 0x10 port 0x80/0x105 state 0x3F, SA 02:..:11. */
static const uint8_t ref_frame[ZVS_SLOW_FRAME_LEN] = {
    0x01, 0x80, 0xc2, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x11, 0x88, 0x09, 0x01, 0x01,
    0x01, 0x14, 0x80, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x80, 0x00, 0x00, 0x01,
    0x3d, 0x00, 0x00, 0x00, 0x02, 0x14, 0x00, 0x7f, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x00, 0x10,
    0x00, 0x80, 0x01, 0x05, 0x3f, 0x00, 0x00, 0x00, 0x03, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    /* 0x40 .. 0x7b: zero */
};

static struct zvs_lacpdu ref_pdu(void)
{
    struct zvs_lacpdu p = {
        .version = 1,
        .actor = { .system_priority = 0x8000, .system = { 0x02, 0, 0, 0, 0, 0x01 },
                   .key = 1, .port_priority = 0x8000, .port = 1, .state = 0x3D },
        .partner = { .system_priority = 0x007F,
                     .system = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55 },
                     .key = 0x10, .port_priority = 0x80, .port = 0x105, .state = 0x3F },
        .collector_max_delay = 0,
    };
    return p;
}

/* Marker Information: requester port 0x0102, system 00:aa:bb:cc:dd:ee, transaction
 * 0xDEADBEEF, sent from port_mac. */
static const uint8_t marker_frame[ZVS_SLOW_FRAME_LEN] = {
    0x01, 0x80, 0xc2, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x11, 0x88, 0x09,
    0x02, 0x01, 0x01, 0x10, 0x01, 0x02, 0x00, 0xaa, 0xbb, 0xcc, 0xdd, 0xee,
    0xde, 0xad, 0xbe, 0xef, 0x00, 0x00, 0x00, 0x00,
    /* 34 .. 123: zero */
};

static struct zvs_marker ref_marker(void)
{
    struct zvs_marker m = {
        .version = 1,
        .response = false,
        .requester_port = 0x0102,
        .requester_system = { 0x00, 0xaa, 0xbb, 0xcc, 0xdd, 0xee },
        .transaction_id = 0xDEADBEEF,
    };
    return m;
}

static void assert_info_equal(const struct zvs_lacp_info *a, const struct zvs_lacp_info *b)
{
    assert_int_equal(a->system_priority, b->system_priority);
    assert_memory_equal(a->system, b->system, 6);
    assert_int_equal(a->key, b->key);
    assert_int_equal(a->port_priority, b->port_priority);
    assert_int_equal(a->port, b->port);
    assert_int_equal(a->state, b->state);
}

/* ---- LACPDU build and parse ---------------------------------------------------------- */

static void test_build_reference_example(void **state)
{
    struct zvs_lacpdu p = ref_pdu();
    uint8_t buf[200];

    memset(buf, 0xA5, sizeof(buf));
    assert_int_equal(zvs_lacpdu_build(&p, port_mac, buf, sizeof(buf)), 124);
    assert_memory_equal(buf, ref_frame, 124);
    assert_int_equal(buf[124], 0xA5);           /* nothing written past the frame */
}

static void test_parse_reference_example(void **state)
{
    struct zvs_lacpdu p;
    struct zvs_marker m;

    memset(&p, 0xEE, sizeof(p));
    memset(&m, 0xEE, sizeof(m));
    assert_int_equal(zvs_slow_parse(ref_frame, sizeof(ref_frame), &p, &m), ZVS_SLOW_LACP);
    assert_int_equal(p.version, 1);
    assert_int_equal(p.actor.system_priority, 0x8000);
    assert_memory_equal(p.actor.system, ((uint8_t[]){ 0x02, 0, 0, 0, 0, 0x01 }), 6);
    assert_int_equal(p.actor.key, 1);
    assert_int_equal(p.actor.port_priority, 0x8000);
    assert_int_equal(p.actor.port, 1);
    assert_int_equal(p.actor.state, 0x3D);
    assert_int_equal(p.partner.system_priority, 0x007F);
    assert_memory_equal(p.partner.system, ((uint8_t[]){ 0x00, 0x11, 0x22, 0x33, 0x44, 0x55 }), 6);
    assert_int_equal(p.partner.key, 0x10);
    assert_int_equal(p.partner.port_priority, 0x80);
    assert_int_equal(p.partner.port, 0x105);
    assert_int_equal(p.partner.state, 0x3F);
    assert_int_equal(p.collector_max_delay, 0);
    assert_int_equal(m.requester_port, 0xEEEE);  /* the other kind's struct is untouched */
}

static void test_lacpdu_round_trip_all_fields(void **state)
{
    struct zvs_lacpdu p = {
        .version = 1,
        .actor = { 0xFFFF, { 1, 2, 3, 4, 5, 6 }, 0xABCD, 0x1234, 0xFFFE, 0xC7 },
        .partner = { 0x0001, { 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54 }, 0x0102, 0x0304, 0x0506,
                     0x81 },
        .collector_max_delay = 0xBEEF,
    };
    struct zvs_lacpdu q;
    uint8_t buf[124];

    assert_int_equal(zvs_lacpdu_build(&p, port_mac, buf, sizeof(buf)), 124);
    assert_int_equal(buf[58], 0xBE);
    assert_int_equal(buf[59], 0xEF);
    assert_int_equal(zvs_slow_parse(buf, sizeof(buf), &q, NULL), ZVS_SLOW_LACP);
    assert_int_equal(q.version, 1);
    assert_info_equal(&q.actor, &p.actor);
    assert_info_equal(&q.partner, &p.partner);
    assert_int_equal(q.collector_max_delay, 0xBEEF);
}

static void test_build_refuses(void **state)
{
    struct zvs_lacpdu p = ref_pdu();
    struct zvs_marker m = ref_marker();
    uint8_t buf[124];

    memset(buf, 0xA5, sizeof(buf));
    assert_int_equal(zvs_lacpdu_build(&p, port_mac, buf, 123), -EINVAL);
    assert_int_equal(zvs_marker_build(&m, port_mac, buf, 123), -EINVAL);
    assert_int_equal(zvs_marker_response_build(&m, port_mac, buf, 123), -EINVAL);
    p.version = 0;                              /* a zero-initialised struct */
    assert_int_equal(zvs_lacpdu_build(&p, port_mac, buf, sizeof(buf)), -EINVAL);
    m.version = 2;
    assert_int_equal(zvs_marker_build(&m, port_mac, buf, sizeof(buf)), -EINVAL);
    m.version = 0;
    assert_int_equal(zvs_marker_response_build(&m, port_mac, buf, sizeof(buf)), -EINVAL);
    for (size_t i = 0; i < sizeof(buf); i++)
        assert_int_equal(buf[i], 0xA5);         /* refused builds write nothing */
}

/* ---- Marker ---------------------------------------------------------------------------- */

static void test_marker_build_exact(void **state)
{
    struct zvs_marker m = ref_marker();
    uint8_t buf[124];

    assert_int_equal(zvs_marker_build(&m, port_mac, buf, sizeof(buf)), 124);
    assert_memory_equal(buf, marker_frame, 124);
}

static void test_marker_parse(void **state)
{
    struct zvs_marker m;
    struct zvs_lacpdu p;

    memset(&m, 0xEE, sizeof(m));
    memset(&p, 0xEE, sizeof(p));
    assert_int_equal(zvs_slow_parse(marker_frame, sizeof(marker_frame), &p, &m),
                     ZVS_SLOW_MARKER);
    assert_int_equal(m.version, 1);
    assert_false(m.response);
    assert_int_equal(m.requester_port, 0x0102);
    assert_memory_equal(m.requester_system, ((uint8_t[]){ 0x00, 0xaa, 0xbb, 0xcc, 0xdd, 0xee }), 6);
    assert_int_equal(m.transaction_id, 0xDEADBEEF);
    assert_int_equal(p.actor.key, 0xEEEE);
}

/* A responder with another MAC echoes the requester's fields; only SA and TLV type change. */
static void test_marker_response_exact(void **state)
{
    static const uint8_t responder_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x22 };
    uint8_t expect[124];
    uint8_t buf[124];
    struct zvs_marker info;
    struct zvs_marker resp;

    assert_int_equal(zvs_slow_parse(marker_frame, sizeof(marker_frame), NULL, &info),
                     ZVS_SLOW_MARKER);
    assert_int_equal(zvs_marker_response_build(&info, responder_mac, buf, sizeof(buf)), 124);
    memcpy(expect, marker_frame, sizeof(expect));
    expect[11] = 0x22;                          /* SA */
    expect[16] = 0x02;                          /* TLV type: Marker Response Information */
    assert_memory_equal(buf, expect, 124);

    memset(&resp, 0, sizeof(resp));
    assert_int_equal(zvs_slow_parse(buf, sizeof(buf), NULL, &resp), ZVS_SLOW_MARKER);
    assert_true(resp.response);
    assert_int_equal(resp.version, 1);
    assert_int_equal(resp.requester_port, 0x0102);
    assert_memory_equal(resp.requester_system, info.requester_system, 6);
    assert_int_equal(resp.transaction_id, 0xDEADBEEF);
    assert_false(info.response);                /* the input is not modified */

    /* zvs_marker_build honours .response too: the same bytes (SA aside). */
    assert_int_equal(zvs_marker_build(&resp, responder_mac, buf, sizeof(buf)), 124);
    assert_memory_equal(buf, expect, 124);
}

/* ---- receive validation ------------------------------------------------------------- */

enum counter { NONE, ILLEGAL, UNKNOWN };

struct bad_case {
    const char *what;
    const uint8_t *base;                        /* ref_frame or marker_frame */
    uint32_t len;                               /* bytes handed to the parser */
    int off;                                    /* byte to change, -1 for none */
    uint8_t val;
    int expect;                                 /* parse result */
    enum counter counter;                       /* MIB counter it lands in */
};

static const struct bad_case bad_cases[] = {
    { "one byte short",          ref_frame,    123, -1, 0,    ZVS_LACP_ERR_SHORT, ILLEGAL },
    { "marker one byte short",   marker_frame, 123, -1, 0,    ZVS_LACP_ERR_SHORT, ILLEGAL },
    { "no Ethernet header",      ref_frame,    13,  -1, 0,    ZVS_LACP_ERR_SHORT, ILLEGAL },
    { "no subtype",              ref_frame,    14,  -1, 0,    ZVS_LACP_ERR_SHORT, ILLEGAL },
    { "subtype only",            ref_frame,    15,  -1, 0,    ZVS_LACP_ERR_SHORT, ILLEGAL },
    { "empty",                   ref_frame,    0,   -1, 0,    ZVS_LACP_ERR_SHORT, ILLEGAL },
    { "unicast DA",              ref_frame,    124, 0,  0x02, ZVS_LACP_ERR_DA, ILLEGAL },
    { "DA ...:03",               ref_frame,    124, 5,  0x03, ZVS_LACP_ERR_DA, ILLEGAL },
    { "slow DA, IPv4 type",      ref_frame,    124, 12, 0x08, ZVS_LACP_ERR_ETHERTYPE, UNKNOWN },
    { "slow DA, type 0x8808",    ref_frame,    124, 13, 0x08, ZVS_LACP_ERR_ETHERTYPE, UNKNOWN },
    { "subtype 0",               ref_frame,    124, 14, 0,    ZVS_LACP_ERR_SUBTYPE, ILLEGAL },
    { "subtype 11",              ref_frame,    124, 14, 11,   ZVS_LACP_ERR_SUBTYPE, ILLEGAL },
    { "subtype 255",             ref_frame,    124, 14, 255,  ZVS_LACP_ERR_SUBTYPE, ILLEGAL },
    { "subtype 3 (OAM)",         ref_frame,    124, 14, 3,    ZVS_SLOW_OTHER, UNKNOWN },
    { "subtype 10 (OSSP)",       ref_frame,    124, 14, 10,   ZVS_SLOW_OTHER, UNKNOWN },
    { "OAM, subtype only",       ref_frame,    15,  14, 3,    ZVS_SLOW_OTHER, UNKNOWN },
    { "actor type 2",            ref_frame,    124, 16, 2,    ZVS_LACP_ERR_ACTOR_TLV, ILLEGAL },
    { "actor length 0x13",       ref_frame,    124, 17, 0x13, ZVS_LACP_ERR_ACTOR_TLV, ILLEGAL },
    { "actor length 0x15",       ref_frame,    124, 17, 0x15, ZVS_LACP_ERR_ACTOR_TLV, ILLEGAL },
    { "partner type 3",          ref_frame,    124, 36, 3,    ZVS_LACP_ERR_PARTNER_TLV, ILLEGAL },
    { "partner length 0",        ref_frame,    124, 37, 0,    ZVS_LACP_ERR_PARTNER_TLV, ILLEGAL },
    { "collector type 4",        ref_frame,    124, 56, 4,    ZVS_LACP_ERR_COLLECTOR_TLV, ILLEGAL },
    { "collector length 0x0F",   ref_frame,    124, 57, 0x0F, ZVS_LACP_ERR_COLLECTOR_TLV, ILLEGAL },
    { "terminator type 1",       ref_frame,    124, 72, 1,    ZVS_LACP_ERR_TERMINATOR, ILLEGAL },
    { "terminator length 2",     ref_frame,    124, 73, 2,    ZVS_LACP_ERR_TERMINATOR, ILLEGAL },
    { "marker version 2",        marker_frame, 124, 15, 2,    ZVS_LACP_ERR_MARKER_VERSION, ILLEGAL },
    { "marker version 0",        marker_frame, 124, 15, 0,    ZVS_LACP_ERR_MARKER_VERSION, ILLEGAL },
    { "marker TLV type 0",       marker_frame, 124, 16, 0,    ZVS_LACP_ERR_MARKER_TLV, ILLEGAL },
    { "marker TLV type 3",       marker_frame, 124, 16, 3,    ZVS_LACP_ERR_MARKER_TLV, ILLEGAL },
    { "marker length 0x16",      marker_frame, 124, 17, 0x16, ZVS_LACP_ERR_MARKER_TLV, ILLEGAL },
    { "marker terminator type",  marker_frame, 124, 32, 1,    ZVS_LACP_ERR_TERMINATOR, ILLEGAL },
    { "marker terminator len",   marker_frame, 124, 33, 2,    ZVS_LACP_ERR_TERMINATOR, ILLEGAL },
};

static void test_validation_errors(void **state)
{
    for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
        const struct bad_case *c = &bad_cases[i];
        uint8_t f[124];
        struct zvs_lacpdu p;
        struct zvs_marker m;
        struct zvs_lacpdu p0;
        struct zvs_marker m0;
        int rc;

        memcpy(f, c->base, sizeof(f));
        if (c->off >= 0)
            f[c->off] = c->val;
        memset(&p, 0x5A, sizeof(p));
        memset(&m, 0x5A, sizeof(m));
        p0 = p;
        m0 = m;
        print_message("case: %s\n", c->what);
        rc = zvs_slow_parse(f, c->len, &p, &m);
        assert_int_equal(rc, c->expect);
        assert_int_equal(zvs_slow_rx_is_illegal(rc), c->counter == ILLEGAL);
        assert_int_equal(zvs_slow_rx_is_unknown(rc), c->counter == UNKNOWN);
        assert_memory_equal(&p, &p0, sizeof(p));    /* refused frames write nothing */
        assert_memory_equal(&m, &m0, sizeof(m));
    }
}

static void test_not_slow_counts_nowhere(void **state)
{
    uint8_t f[124];

    memcpy(f, ref_frame, sizeof(f));
    f[0] = 0x02;                                /* unicast DA */
    f[12] = 0x08;                               /* IPv4 */
    f[13] = 0x00;
    assert_int_equal(zvs_slow_parse(f, sizeof(f), NULL, NULL), ZVS_LACP_ERR_NOT_SLOW);
    assert_false(zvs_slow_rx_is_illegal(ZVS_LACP_ERR_NOT_SLOW));
    assert_false(zvs_slow_rx_is_unknown(ZVS_LACP_ERR_NOT_SLOW));
}

/* 802.1Q tag (and 802.1ad) in front of 0x8809: illegal, whatever the payload. */
static void test_tagged_rejected(void **state)
{
    uint8_t f[128];
    struct zvs_lacpdu p;

    memcpy(f, ref_frame, 12);
    f[12] = 0x81;
    f[13] = 0x00;
    f[14] = 0x00;                               /* VID 10 */
    f[15] = 0x0A;
    memcpy(f + 16, ref_frame + 12, 112);
    assert_int_equal(zvs_slow_parse(f, sizeof(f), &p, NULL), ZVS_LACP_ERR_TAGGED);
    assert_true(zvs_slow_rx_is_illegal(ZVS_LACP_ERR_TAGGED));
    f[12] = 0x88;
    f[13] = 0xA8;
    assert_int_equal(zvs_slow_parse(f, sizeof(f), &p, NULL), ZVS_LACP_ERR_TAGGED);
    /* A tag with another inner type to the slow DA: a foreign frame, unknown. */
    f[16] = 0x08;
    f[17] = 0x00;
    assert_int_equal(zvs_slow_parse(f, sizeof(f), &p, NULL), ZVS_LACP_ERR_ETHERTYPE);
    /* Tag cut short: not enough bytes to see an inner type. */
    f[12] = 0x81;
    f[13] = 0x00;
    assert_int_equal(zvs_slow_parse(f, 17, &p, NULL), ZVS_LACP_ERR_ETHERTYPE);
}

/* ---- tolerance ---------------------------------------------------------------------- */

static void test_lacp_version_not_validated(void **state)
{
    static const uint8_t versions[] = { 0, 2, 3, 255 };

    for (size_t i = 0; i < sizeof(versions); i++) {
        uint8_t f[124];
        struct zvs_lacpdu p;

        memcpy(f, ref_frame, sizeof(f));
        f[15] = versions[i];
        assert_int_equal(zvs_slow_parse(f, sizeof(f), &p, NULL), ZVS_SLOW_LACP);
        assert_int_equal(p.version, versions[i]);
        assert_int_equal(p.actor.state, 0x3D);
        assert_int_equal(p.partner.port, 0x105);
    }
}

/* Version 2: v2 TLVs between Collector and Terminator are walked and ignored. */
static void test_lacp_v2_tlvs(void **state)
{
    uint8_t f[124];
    struct zvs_lacpdu p;

    memcpy(f, ref_frame, sizeof(f));
    f[15] = 2;
    /* Port Algorithm TLV (type 4, length 6, algorithm 1 = C-VID) at payload 58. */
    f[72] = 0x04; f[73] = 0x06; f[77] = 0x01;
    /* Port Conversation ID Digest (type 5, length 20) at payload 64, Terminator at 84. */
    f[78] = 0x05; f[79] = 0x14; f[80] = 0x00; f[81] = 0x01; f[82] = 0x5A;
    assert_int_equal(zvs_slow_parse(f, sizeof(f), &p, NULL), ZVS_SLOW_LACP);
    assert_int_equal(p.version, 2);
    assert_int_equal(p.actor.key, 1);

    /* The same TLVs in a version 1 PDU: the Terminator must be at payload 58. */
    f[15] = 1;
    assert_int_equal(zvs_slow_parse(f, sizeof(f), &p, NULL), ZVS_LACP_ERR_TERMINATOR);
    f[15] = 2;

    /* Terminator with a length. */
    f[98] = 0x00; f[99] = 0x01;
    assert_int_equal(zvs_slow_parse(f, sizeof(f), &p, NULL), ZVS_LACP_ERR_TERMINATOR);
    f[99] = 0x00;

    /* A v2 TLV shorter than its own header. */
    f[79] = 0x01;
    assert_int_equal(zvs_slow_parse(f, sizeof(f), &p, NULL), ZVS_LACP_ERR_TERMINATOR);

    /* A v2 TLV running past the end of the frame: 78 + 0x2F = 125 > 124. */
    f[79] = 0x2F;
    assert_int_equal(zvs_slow_parse(f, sizeof(f), &p, NULL), ZVS_LACP_ERR_TERMINATOR);

    /* TLVs exactly filling the frame with no Terminator: 78 + 0x2E = 124. */
    f[79] = 0x2E;
    assert_int_equal(zvs_slow_parse(f, sizeof(f), &p, NULL), ZVS_LACP_ERR_TERMINATOR);

    /* ... but with four more bytes (a long LACPDU) a Terminator there is found. */
    uint8_t g[128];
    memcpy(g, f, sizeof(f));
    g[124] = 0; g[125] = 0; g[126] = 0xFF; g[127] = 0xFF;
    assert_int_equal(zvs_slow_parse(g, sizeof(g), &p, NULL), ZVS_SLOW_LACP);
}

static void test_trailing_and_reserved_ignored(void **state)
{
    uint8_t f[1518];
    struct zvs_lacpdu p;
    struct zvs_marker m;

    memset(f, 0xFF, sizeof(f));
    memcpy(f, ref_frame, 124);
    assert_int_equal(zvs_slow_parse(f, 128, &p, NULL), ZVS_SLOW_LACP);   /* + FCS */
    assert_int_equal(zvs_slow_parse(f, sizeof(f), &p, NULL), ZVS_SLOW_LACP);
    /* Reserved bytes: actor 33-35, partner 53-55, collector 60-71, after Terminator 74-123. */
    memset(f + 33, 0xFF, 3);
    memset(f + 53, 0xFF, 3);
    memset(f + 60, 0xFF, 12);
    memset(f + 74, 0xFF, 50);
    assert_int_equal(zvs_slow_parse(f, 124, &p, NULL), ZVS_SLOW_LACP);
    assert_int_equal(p.actor.state, 0x3D);
    assert_int_equal(p.partner.state, 0x3F);
    assert_int_equal(p.collector_max_delay, 0);

    memset(f, 0xFF, sizeof(f));
    memcpy(f, marker_frame, 124);
    f[30] = 0x12;                               /* pad */
    f[31] = 0x34;
    memset(f + 34, 0xFF, 90);
    assert_int_equal(zvs_slow_parse(f, sizeof(f), NULL, &m), ZVS_SLOW_MARKER);
    assert_int_equal(m.transaction_id, 0xDEADBEEF);
}

static void test_null_outputs_still_validate(void **state)
{
    uint8_t f[124];

    assert_int_equal(zvs_slow_parse(ref_frame, 124, NULL, NULL), ZVS_SLOW_LACP);
    assert_int_equal(zvs_slow_parse(marker_frame, 124, NULL, NULL), ZVS_SLOW_MARKER);
    memcpy(f, ref_frame, sizeof(f));
    f[17] = 0x13;
    assert_int_equal(zvs_slow_parse(f, sizeof(f), NULL, NULL), ZVS_LACP_ERR_ACTOR_TLV);
    assert_int_equal(zvs_slow_parse(NULL, 0, NULL, NULL), ZVS_LACP_ERR_SHORT);
}

/* ---- names, states, loopback --------------------------------------------------------- */

static void test_err_names(void **state)
{
    static const struct { int err; const char *name; } names[] = {
        { ZVS_LACP_ERR_SHORT, "short" },
        { ZVS_LACP_ERR_NOT_SLOW, "not-slow" },
        { ZVS_LACP_ERR_DA, "bad-da" },
        { ZVS_LACP_ERR_ETHERTYPE, "bad-ethertype" },
        { ZVS_LACP_ERR_TAGGED, "tagged" },
        { ZVS_LACP_ERR_SUBTYPE, "bad-subtype" },
        { ZVS_LACP_ERR_ACTOR_TLV, "bad-actor-tlv" },
        { ZVS_LACP_ERR_PARTNER_TLV, "bad-partner-tlv" },
        { ZVS_LACP_ERR_COLLECTOR_TLV, "bad-collector-tlv" },
        { ZVS_LACP_ERR_TERMINATOR, "bad-terminator" },
        { ZVS_LACP_ERR_MARKER_VERSION, "bad-marker-version" },
        { ZVS_LACP_ERR_MARKER_TLV, "bad-marker-tlv" },
        { ZVS_SLOW_LACP, "ok" },
        { ZVS_SLOW_OTHER, "ok" },
        { -ZVS_LACP_ERR_COUNT - 1, "invalid-code" },
        { -EINVAL, "invalid-code" },
    };

    assert_int_equal(ZVS_LACP_ERR_COUNT, 12);
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        assert_string_equal(zvs_lacp_err_name(names[i].err), names[i].name);
    assert_false(zvs_slow_rx_is_illegal(-EINVAL));
    assert_false(zvs_slow_rx_is_unknown(-EINVAL));
    assert_false(zvs_slow_rx_is_illegal(ZVS_SLOW_LACP));
    assert_false(zvs_slow_rx_is_unknown(ZVS_SLOW_MARKER));
}

static void test_state_str(void **state)
{
    static const struct { uint8_t st; const char *s; } cases[] = {
        { 0x3D, "ACT,AGG,SYNC,COL,DIST" },
        { 0x3F, "ACT,SHORT,AGG,SYNC,COL,DIST" },
        { 0x45, "ACT,AGG,DEF" },
        { 0x07, "ACT,SHORT,AGG" },
        { 0x00, "-" },
        { 0x80, "EXP" },
        { 0xFF, "ACT,SHORT,AGG,SYNC,COL,DIST,DEF,EXP" },
    };
    char buf[ZVS_LACP_STATE_STR_LEN];

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        memset(buf, 'x', sizeof(buf));
        assert_ptr_equal(zvs_lacp_state_str(cases[i].st, buf), buf);
        assert_string_equal(buf, cases[i].s);
    }
    assert_int_equal(strlen(buf), 35);
}

static void test_loopback(void **state)
{
    static const uint8_t ours[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
    static const uint8_t other[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 };
    struct zvs_lacpdu p = ref_pdu();            /* actor 0x8000 / 02:00:00:00:00:01 */

    assert_true(zvs_lacp_is_loopback(&p, 0x8000, ours));
    assert_false(zvs_lacp_is_loopback(&p, 0x7FFF, ours));   /* same MAC, other priority */
    assert_false(zvs_lacp_is_loopback(&p, 0x8000, other));
    /* Our system as the PDU's partner is the normal case, not a loopback. */
    assert_false(zvs_lacp_is_loopback(&p, 0x007F,
                                      (const uint8_t[]){ 0x00, 0x11, 0x22, 0x33, 0x44, 0x55 }));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_build_reference_example),
        cmocka_unit_test(test_parse_reference_example),
        cmocka_unit_test(test_lacpdu_round_trip_all_fields),
        cmocka_unit_test(test_build_refuses),
        cmocka_unit_test(test_marker_build_exact),
        cmocka_unit_test(test_marker_parse),
        cmocka_unit_test(test_marker_response_exact),
        cmocka_unit_test(test_validation_errors),
        cmocka_unit_test(test_not_slow_counts_nowhere),
        cmocka_unit_test(test_tagged_rejected),
        cmocka_unit_test(test_lacp_version_not_validated),
        cmocka_unit_test(test_lacp_v2_tlvs),
        cmocka_unit_test(test_trailing_and_reserved_ignored),
        cmocka_unit_test(test_null_outputs_still_validate),
        cmocka_unit_test(test_err_names),
        cmocka_unit_test(test_state_str),
        cmocka_unit_test(test_loopback),
    };
    return cmocka_run_group_tests_name("lacp_pdu", tests, NULL, NULL);
}
