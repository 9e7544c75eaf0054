/* VLAN rules: ingress classification and egress decisions, table-driven over frames built
 * byte by byte, then the tag edits applied by zvs_frame_emit compared byte for byte. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "dataplane/vlan.h"

/* ---- frames ------------------------------------------------------------------------ */

#define DST 0x02, 0x00, 0x00, 0x00, 0x00, 0xD1
#define SRC 0x02, 0x00, 0x00, 0x00, 0x00, 0x51
#define PAYLOAD 0x45, 0x00, 0xDE, 0xAD, 0xBE, 0xEF

/* untagged IPv4, 20 bytes */
static const uint8_t f_untagged[] = { DST, SRC, 0x08, 0x00, PAYLOAD };
/* VID 20, PCP 3: TCI 0x6014 */
static const uint8_t f_vid20[] = { DST, SRC, 0x81, 0x00, 0x60, 0x14, 0x08, 0x00, PAYLOAD };
/* VID 10, PCP 0 */
static const uint8_t f_vid10[] = { DST, SRC, 0x81, 0x00, 0x00, 0x0A, 0x08, 0x00, PAYLOAD };
/* VID 30, PCP 0 (last VID of the trunk's 20-30 grant) */
static const uint8_t f_vid30[] = { DST, SRC, 0x81, 0x00, 0x00, 0x1E, 0x08, 0x00, PAYLOAD };
/* VID 31, PCP 0 (just outside the grant) */
static const uint8_t f_vid31[] = { DST, SRC, 0x81, 0x00, 0x00, 0x1F, 0x08, 0x00, PAYLOAD };
/* VID 1 (the native VLAN), PCP 3, DEI set: TCI 0x7001 */
static const uint8_t f_vid1[] = { DST, SRC, 0x81, 0x00, 0x70, 0x01, 0x08, 0x00, PAYLOAD };
/* priority tag: VID 0, PCP 5: TCI 0xA000 */
static const uint8_t f_prio[] = { DST, SRC, 0x81, 0x00, 0xA0, 0x00, 0x08, 0x00, PAYLOAD };
/* reserved VID 4095 */
static const uint8_t f_vid4095[] = { DST, SRC, 0x81, 0x00, 0x0F, 0xFF, 0x08, 0x00, PAYLOAD };
/* two C-tags */
static const uint8_t f_double[] = { DST, SRC, 0x81, 0x00, 0x00, 0x14, 0x81, 0x00, 0x00, 0x0A,
                                    0x08, 0x00, PAYLOAD };
/* C-tag then S-tag TPID */
static const uint8_t f_c_then_s[] = { DST, SRC, 0x81, 0x00, 0x00, 0x14, 0x88, 0xA8, 0x00, 0x0A,
                                      0x08, 0x00, PAYLOAD };
/* outer 802.1ad S-tag */
static const uint8_t f_stag[] = { DST, SRC, 0x88, 0xA8, 0x00, 0x14, 0x81, 0x00, 0x00, 0x0A,
                                  0x08, 0x00, PAYLOAD };
/* announces a tag but ends after 17 bytes */
static const uint8_t f_short_tag[] = { DST, SRC, 0x81, 0x00, 0x00, 0x14, 0x08 };
/* shorter than a MAC header */
static const uint8_t f_runt[] = { DST, SRC, 0x08 };

/* ---- fixtures ---------------------------------------------------------------------- */

static const struct zvs_vlan_switch sw_unaware = { .aware = false, .native_vid = 1 };
static const struct zvs_vlan_switch sw_aware = { .aware = true, .native_vid = 1 };
static const struct zvs_vlan_switch sw_no_native = { .aware = true, .native_vid = 0 };

enum port_id {
    UPLINK,                             /* NULL port */
    ACCESS10,                           /* ACCESS, VLAN 10 */
    ACCESS0,                            /* ACCESS without a VLAN */
    TRUNK,                              /* TRUNK granted "1 20-30" */
    TRUNK_NO1,                          /* TRUNK granted "20-30": native not granted */
    PORT__COUNT
};

static struct zvs_vlan_port ports[PORT__COUNT];

static int setup_ports(void **state)
{
    zvs_vlan_port_init(&ports[UPLINK], ZVS_VLAN_TRUNK, 0);
    zvs_vlan_port_init(&ports[ACCESS10], ZVS_VLAN_ACCESS, 10);
    zvs_vlan_port_init(&ports[ACCESS0], ZVS_VLAN_ACCESS, 0);
    zvs_vlan_port_init(&ports[TRUNK], ZVS_VLAN_TRUNK, 0);
    zvs_vlan_port_init(&ports[TRUNK_NO1], ZVS_VLAN_TRUNK, 0);
    assert_int_equal(zvs_vlan_parse_set("1 20-30", &ports[TRUNK]), 0);
    assert_int_equal(zvs_vlan_parse_set("20-30", &ports[TRUNK_NO1]), 0);
    return 0;
}

static const struct zvs_vlan_port *port_of(enum port_id id)
{
    return id == UPLINK ? NULL : &ports[id];
}

/* ---- ingress table ----------------------------------------------------------------- */

#define FRAME(f) f, sizeof(f)

/* Compare and name the table row on failure. */
#define ROW_EQ(row, a, b)                                                               \
    do {                                                                                \
        long a_ = (long)(a), b_ = (long)(b);                                            \
        if (a_ != b_)                                                                   \
            fail_msg("%s: %s is %ld, want %ld", (row), #a, a_, b_);                     \
    } while (0)
#define PASS -2                         /* no drop reason expected */

struct ingress_row {
    const char *name;
    const struct zvs_vlan_switch *sw;
    enum port_id port;
    const uint8_t *frame;
    uint32_t len;
    int why;                            /* PASS or the expected enum zvs_drop */
    uint16_t vid;
    uint8_t pcp;
    bool tagged;
    uint16_t tag_vid;
};

static const struct ingress_row ingress_rows[] = {
    /* VLAN UNAWARE: tags are data, VID 0, everything of 14+ bytes passes */
    { "unaware access tagged",   &sw_unaware, ACCESS10, FRAME(f_vid20), PASS, 0, 3, true, 20 },
    { "unaware uplink untagged", &sw_unaware, UPLINK, FRAME(f_untagged), PASS, 0, 0, false, 0 },
    { "unaware trunk vid 4095",  &sw_unaware, TRUNK, FRAME(f_vid4095), PASS, 0, 0, true, 4095 },
    { "unaware double tag",      &sw_unaware, UPLINK, FRAME(f_double), PASS, 0, 0, true, 20 },
    { "unaware outer s-tag",     &sw_unaware, UPLINK, FRAME(f_stag), PASS, 0, 0, false, 0 },
    { "unaware short tag",       &sw_unaware, ACCESS0, FRAME(f_short_tag), PASS, 0, 0, false, 0 },
    { "unaware runt",            &sw_unaware, UPLINK, FRAME(f_runt), ZVS_DROP_RUNT, 0, 0, false, 0 },
    /* uplink: trunk of every VID, native untagged */
    { "uplink tagged",           &sw_aware, UPLINK, FRAME(f_vid20), PASS, 20, 3, true, 20 },
    { "uplink tagged native",    &sw_aware, UPLINK, FRAME(f_vid1), PASS, 1, 3, true, 1 },
    { "uplink untagged",         &sw_aware, UPLINK, FRAME(f_untagged), PASS, 1, 0, false, 0 },
    { "uplink priority tag",     &sw_aware, UPLINK, FRAME(f_prio), PASS, 1, 5, true, 0 },
    { "uplink native none untagged", &sw_no_native, UPLINK, FRAME(f_untagged),
      ZVS_DROP_VLAN_DENIED, 0, 0, false, 0 },
    { "uplink native none prio", &sw_no_native, UPLINK, FRAME(f_prio),
      ZVS_DROP_VLAN_DENIED, 0, 5, true, 0 },
    { "uplink native none tagged", &sw_no_native, UPLINK, FRAME(f_vid20), PASS, 20, 3, true, 20 },
    /* malformed tags: bad VLAN whatever the port */
    { "vid 4095",                &sw_aware, UPLINK, FRAME(f_vid4095), ZVS_DROP_BAD_VLAN, 0, 0, true, 4095 },
    { "vid 4095 on access",      &sw_aware, ACCESS10, FRAME(f_vid4095), ZVS_DROP_BAD_VLAN, 0, 0, true, 4095 },
    { "double c-tag",            &sw_aware, UPLINK, FRAME(f_double), ZVS_DROP_BAD_VLAN, 0, 0, true, 20 },
    { "c-tag then s-tag",        &sw_aware, TRUNK, FRAME(f_c_then_s), ZVS_DROP_BAD_VLAN, 0, 0, true, 20 },
    { "outer s-tag",             &sw_aware, UPLINK, FRAME(f_stag), ZVS_DROP_BAD_VLAN, 0, 0, false, 0 },
    { "tag cut short",           &sw_aware, TRUNK, FRAME(f_short_tag), ZVS_DROP_BAD_VLAN, 0, 0, false, 0 },
    { "aware runt",              &sw_aware, ACCESS10, FRAME(f_runt), ZVS_DROP_RUNT, 0, 0, false, 0 },
    /* ACCESS guest */
    { "access untagged",         &sw_aware, ACCESS10, FRAME(f_untagged), PASS, 10, 0, false, 0 },
    { "access priority tag",     &sw_aware, ACCESS10, FRAME(f_prio), PASS, 10, 5, true, 0 },
    { "access tagged own vid",   &sw_aware, ACCESS10, FRAME(f_vid10), PASS, 10, 0, true, 10 },
    { "access tagged other vid", &sw_aware, ACCESS10, FRAME(f_vid20), ZVS_DROP_VLAN_DENIED, 0, 3, true, 20 },
    { "access native none untagged", &sw_no_native, ACCESS10, FRAME(f_untagged), PASS, 10, 0, false, 0 },
    { "access without vlan",     &sw_aware, ACCESS0, FRAME(f_untagged), ZVS_DROP_VLAN_DENIED, 0, 0, false, 0 },
    /* TRUNK guest */
    { "trunk granted",           &sw_aware, TRUNK, FRAME(f_vid20), PASS, 20, 3, true, 20 },
    { "trunk granted range end", &sw_aware, TRUNK, FRAME(f_vid30), PASS, 30, 0, true, 30 },
    { "trunk not granted",       &sw_aware, TRUNK, FRAME(f_vid31), ZVS_DROP_VLAN_DENIED, 0, 0, true, 31 },
    { "trunk untagged native",   &sw_aware, TRUNK, FRAME(f_untagged), PASS, 1, 0, false, 0 },
    { "trunk priority native",   &sw_aware, TRUNK, FRAME(f_prio), PASS, 1, 5, true, 0 },
    { "trunk tagged native",     &sw_aware, TRUNK, FRAME(f_vid1), PASS, 1, 3, true, 1 },
    { "trunk native not granted", &sw_aware, TRUNK_NO1, FRAME(f_untagged),
      ZVS_DROP_VLAN_DENIED, 0, 0, false, 0 },
    { "trunk native none",       &sw_no_native, TRUNK, FRAME(f_untagged),
      ZVS_DROP_VLAN_DENIED, 0, 0, false, 0 },
    { "trunk no native, tagged", &sw_aware, TRUNK_NO1, FRAME(f_vid20), PASS, 20, 3, true, 20 },
};

static void test_ingress_table(void **state)
{
    for (size_t i = 0; i < sizeof(ingress_rows) / sizeof(ingress_rows[0]); i++) {
        const struct ingress_row *r = &ingress_rows[i];
        struct zvs_vlan_class c;
        enum zvs_drop why = ZVS_DROP__COUNT;

        int rc = zvs_vlan_ingress(r->sw, port_of(r->port), r->frame, r->len, &c, &why);
        if (r->why == PASS) {
            ROW_EQ(r->name, rc, 0);
            ROW_EQ(r->name, why, ZVS_DROP__COUNT);
            ROW_EQ(r->name, c.vid, r->vid);
        } else {
            ROW_EQ(r->name, rc, -1);
            ROW_EQ(r->name, why, r->why);
        }
        ROW_EQ(r->name, c.pcp, r->pcp);
        ROW_EQ(r->name, c.tagged, r->tagged);
        ROW_EQ(r->name, c.tag_vid, r->tag_vid);
    }
}

/* ---- egress table ------------------------------------------------------------------ */

#define DENY -1

struct egress_row {
    const char *name;
    const struct zvs_vlan_switch *sw;
    enum port_id port;
    uint16_t vid;
    bool bytes_tagged;
    uint16_t bytes_vid;
    int op;                             /* enum zvs_tag_op, or DENY */
};

static const struct egress_row egress_rows[] = {
    { "unaware access tagged",   &sw_unaware, ACCESS10, 0, true, 20, ZVS_TAG_KEEP },
    { "unaware uplink untagged", &sw_unaware, UPLINK, 0, false, 0, ZVS_TAG_KEEP },
    { "unaware access0",         &sw_unaware, ACCESS0, 0, false, 0, ZVS_TAG_KEEP },
    /* ACCESS: own VID only, untagged */
    { "access own untagged",     &sw_aware, ACCESS10, 10, false, 0, ZVS_TAG_KEEP },
    { "access own tagged",       &sw_aware, ACCESS10, 10, true, 10, ZVS_TAG_STRIP },
    { "access own prio-tagged",  &sw_aware, ACCESS10, 10, true, 0, ZVS_TAG_STRIP },
    { "access other vid",        &sw_aware, ACCESS10, 20, false, 0, DENY },
    { "access native vid",       &sw_aware, ACCESS10, 1, false, 0, DENY },
    { "access without vlan",     &sw_aware, ACCESS0, 10, false, 0, DENY },
    /* TRUNK: granted VIDs, native untagged */
    { "trunk push",              &sw_aware, TRUNK, 20, false, 0, ZVS_TAG_PUSH },
    { "trunk keep tagged",       &sw_aware, TRUNK, 20, true, 20, ZVS_TAG_KEEP },
    { "trunk rewrite prio",      &sw_aware, TRUNK, 20, true, 0, ZVS_TAG_REWRITE },
    { "trunk rewrite vid",       &sw_aware, TRUNK, 30, true, 10, ZVS_TAG_REWRITE },
    { "trunk native untagged",   &sw_aware, TRUNK, 1, false, 0, ZVS_TAG_KEEP },
    { "trunk native tagged",     &sw_aware, TRUNK, 1, true, 1, ZVS_TAG_STRIP },
    { "trunk native prio",       &sw_aware, TRUNK, 1, true, 0, ZVS_TAG_STRIP },
    { "trunk not granted",       &sw_aware, TRUNK, 31, false, 0, DENY },
    { "trunk native not granted", &sw_aware, TRUNK_NO1, 1, false, 0, DENY },
    { "trunk native none",       &sw_no_native, TRUNK, 1, false, 0, ZVS_TAG_PUSH },
    /* uplink: every VID, native untagged */
    { "uplink push",             &sw_aware, UPLINK, 10, false, 0, ZVS_TAG_PUSH },
    { "uplink keep tagged",      &sw_aware, UPLINK, 20, true, 20, ZVS_TAG_KEEP },
    { "uplink rewrite prio",     &sw_aware, UPLINK, 10, true, 0, ZVS_TAG_REWRITE },
    { "uplink native untagged",  &sw_aware, UPLINK, 1, false, 0, ZVS_TAG_KEEP },
    { "uplink native tagged",    &sw_aware, UPLINK, 1, true, 1, ZVS_TAG_STRIP },
    { "uplink native none",      &sw_no_native, UPLINK, 1, false, 0, ZVS_TAG_PUSH },
    { "uplink vid 4094",         &sw_aware, UPLINK, 4094, false, 0, ZVS_TAG_PUSH },
    { "uplink vid 0",            &sw_aware, UPLINK, 0, false, 0, DENY },
    { "uplink vid 4095",         &sw_aware, UPLINK, 4095, true, 4095, DENY },
};

static void test_egress_table(void **state)
{
    for (size_t i = 0; i < sizeof(egress_rows) / sizeof(egress_rows[0]); i++) {
        const struct egress_row *r = &egress_rows[i];
        enum zvs_tag_op op = (enum zvs_tag_op)99;

        bool ok = zvs_vlan_egress(r->sw, port_of(r->port), r->vid, r->bytes_tagged,
                                  r->bytes_vid, &op);
        ROW_EQ(r->name, ok, r->op != DENY);
        ROW_EQ(r->name, op, r->op == DENY ? 99 : r->op);
    }
}

/* ---- through the switch: ingress, egress, emit ------------------------------------- */

/* Classify `in` on in_port, decide egress on out_port and write the frame to out.
 * Returns the bytes written, or -1 when either side refuses it. */
static int forward(const struct zvs_vlan_switch *sw, enum port_id in_port, const uint8_t *in,
                   uint32_t len, enum port_id out_port, uint8_t *out, enum zvs_tag_op *op)
{
    struct zvs_vlan_class c;
    enum zvs_drop why;

    if (zvs_vlan_ingress(sw, port_of(in_port), in, len, &c, &why) < 0)
        return -1;
    if (!zvs_vlan_egress(sw, port_of(out_port), c.vid, c.tagged, c.tag_vid, op))
        return -1;
    struct zvs_frame f = {
        .data = in,
        .len = len,
        .vid = c.vid,
        .pcp = c.pcp,
        .flags = c.tagged ? ZVS_FF_TAGGED : 0,
    };
    uint32_t n = zvs_frame_emit(&f, *op, c.vid, out, NULL);
    assert_int_equal(n, zvs_frame_out_len(&f, *op));
    return (int)n;
}

static void test_emit_push(void **state)
{
    /* Untagged from the VLAN 10 access guest to the uplink: tag 10 inserted, PCP 0. */
    const uint8_t want[] = { DST, SRC, 0x81, 0x00, 0x00, 0x0A, 0x08, 0x00, PAYLOAD };
    uint8_t out[64];
    enum zvs_tag_op op;

    assert_int_equal(forward(&sw_aware, ACCESS10, FRAME(f_untagged), UPLINK, out, &op),
                     sizeof(want));
    assert_int_equal(op, ZVS_TAG_PUSH);
    assert_memory_equal(out, want, sizeof(want));
}

static void test_emit_strip(void **state)
{
    /* Native VLAN 1 arrives tagged on the uplink; the trunk guest gets it untagged. */
    uint8_t out[64];
    enum zvs_tag_op op;

    assert_int_equal(forward(&sw_aware, UPLINK, FRAME(f_vid1), TRUNK, out, &op),
                     sizeof(f_untagged));
    assert_int_equal(op, ZVS_TAG_STRIP);
    assert_memory_equal(out, f_untagged, sizeof(f_untagged));
}

static void test_emit_rewrite(void **state)
{
    /* Priority-tagged (PCP 5) from the access guest to the uplink: VID 10 written, PCP kept. */
    const uint8_t want[] = { DST, SRC, 0x81, 0x00, 0xA0, 0x0A, 0x08, 0x00, PAYLOAD };
    uint8_t out[64];
    enum zvs_tag_op op;

    assert_int_equal(forward(&sw_aware, ACCESS10, FRAME(f_prio), UPLINK, out, &op),
                     sizeof(want));
    assert_int_equal(op, ZVS_TAG_REWRITE);
    assert_memory_equal(out, want, sizeof(want));
}

static void test_emit_keep(void **state)
{
    uint8_t out[64];
    enum zvs_tag_op op;

    /* Tagged VLAN 20 from the uplink to a trunk granted 20: bytes as received. */
    assert_int_equal(forward(&sw_aware, UPLINK, FRAME(f_vid20), TRUNK, out, &op),
                     sizeof(f_vid20));
    assert_int_equal(op, ZVS_TAG_KEEP);
    assert_memory_equal(out, f_vid20, sizeof(f_vid20));

    /* Untagged between two guests of the access VLAN. */
    assert_int_equal(forward(&sw_aware, ACCESS10, FRAME(f_untagged), ACCESS10, out, &op),
                     sizeof(f_untagged));
    assert_int_equal(op, ZVS_TAG_KEEP);
    assert_memory_equal(out, f_untagged, sizeof(f_untagged));

    /* VLAN UNAWARE: a double-tagged frame crosses untouched. */
    assert_int_equal(forward(&sw_unaware, UPLINK, FRAME(f_double), ACCESS10, out, &op),
                     sizeof(f_double));
    assert_int_equal(op, ZVS_TAG_KEEP);
    assert_memory_equal(out, f_double, sizeof(f_double));
}

static void test_forward_refused(void **state)
{
    uint8_t out[64];
    enum zvs_tag_op op;

    /* VLAN 20 from the uplink does not reach the VLAN 10 access guest. */
    assert_int_equal(forward(&sw_aware, UPLINK, FRAME(f_vid20), ACCESS10, out, &op), -1);
    /* The access guest's own-VLAN tag goes to a trunk not granted 10: refused at egress. */
    assert_int_equal(forward(&sw_aware, ACCESS10, FRAME(f_vid10), TRUNK, out, &op), -1);
    /* ...and to the uplink it keeps its tag (VID 10 already). */
    assert_int_equal(forward(&sw_aware, ACCESS10, FRAME(f_vid10), UPLINK, out, &op),
                     sizeof(f_vid10));
    assert_int_equal(op, ZVS_TAG_KEEP);
    assert_memory_equal(out, f_vid10, sizeof(f_vid10));
}

/* ---- grants and vidsets ------------------------------------------------------------ */

static void assert_grants_exactly(const struct zvs_vlan_port *p, const char *want)
{
    /* want[v] == '1' for granted VIDs, over 0..4095 */
    for (uint32_t v = 0; v < 4096; v++) {
        if (zvs_vlan_is_granted(p, (uint16_t)v) != (want[v] == '1'))
            fail_msg("vid %u: granted %d", v, zvs_vlan_is_granted(p, (uint16_t)v));
    }
}

static void test_parse_set(void **state)
{
    static char want[4096];
    struct zvs_vlan_port p;

    zvs_vlan_port_init(&p, ZVS_VLAN_TRUNK, 0);
    assert_int_equal(zvs_vlan_parse_set("1-10 20 30-40", &p), 0);
    memset(want, '0', sizeof(want));
    memset(want + 1, '1', 10);
    want[20] = '1';
    memset(want + 30, '1', 11);
    assert_grants_exactly(&p, want);

    /* Grants add up; tabs, repeated blanks, leading zeros and the edges are accepted. */
    assert_int_equal(zvs_vlan_parse_set("\t4094  0100 4090-4093 ", &p), 0);
    want[100] = '1';
    memset(want + 4090, '1', 5);
    assert_grants_exactly(&p, want);

    /* Bad sets change nothing. */
    static const char *const bad[] = {
        "", "   ", "0", "4095", "1-4095", "0-5", "10-5", "1-", "-5", "1,2", "12a", "1 - 5",
        "00001", "1--2", "5-6-7", "20 x", "99999999999999999999",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        ROW_EQ(bad[i], zvs_vlan_parse_set(bad[i], &p), -EINVAL);
    assert_grants_exactly(&p, want);
}

static void test_grant_revoke(void **state)
{
    struct zvs_vlan_port p;

    zvs_vlan_port_init(&p, ZVS_VLAN_TRUNK, 0);
    assert_int_equal(zvs_vlan_grant(&p, 1, 4094), 0);
    assert_false(zvs_vlan_is_granted(&p, 0));
    assert_true(zvs_vlan_is_granted(&p, 1));
    assert_true(zvs_vlan_is_granted(&p, 4094));
    assert_false(zvs_vlan_is_granted(&p, 4095));
    assert_int_equal(zvs_vlan_revoke(&p, 2, 4093), 0);
    for (uint32_t v = 0; v < 4096; v++)
        assert_int_equal(zvs_vlan_is_granted(&p, (uint16_t)v), v == 1 || v == 4094);
    assert_int_equal(zvs_vlan_grant(&p, 0, 5), -EINVAL);
    assert_int_equal(zvs_vlan_grant(&p, 5, 4095), -EINVAL);
    assert_int_equal(zvs_vlan_grant(&p, 6, 5), -EINVAL);
    assert_int_equal(zvs_vlan_revoke(&p, 0, 4094), -EINVAL);
    assert_true(zvs_vlan_is_granted(&p, 1));
    assert_int_equal(zvs_vlan_grant(&p, 64, 64), 0);
    assert_true(zvs_vlan_is_granted(&p, 64));
    assert_false(zvs_vlan_is_granted(&p, 63));
    assert_false(zvs_vlan_is_granted(&p, 65));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ingress_table),
        cmocka_unit_test(test_egress_table),
        cmocka_unit_test(test_emit_push),
        cmocka_unit_test(test_emit_strip),
        cmocka_unit_test(test_emit_rewrite),
        cmocka_unit_test(test_emit_keep),
        cmocka_unit_test(test_forward_refused),
        cmocka_unit_test(test_parse_set),
        cmocka_unit_test(test_grant_revoke),
    };
    return cmocka_run_group_tests_name("vlan", tests, setup_ports, NULL);
}
