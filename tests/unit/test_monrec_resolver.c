/* Monitor record codec, our resolver records: golden bytes of D15R1 (the resolver's
 * counters) and D15R2 (a watched name's event) written from monitor/RECORDS.md field by
 * field, that they exist in layout version 3 only (versions 1, 2 and z/VM's own files
 * know no domain 15: the reader skips them by MRHDRLEN), and every refusal of the decoder
 * and the encoder.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "monitor/monrec.h"
#include "monrec_builders.h"

static const uint8_t golden_d15r1[72] = {
    0x00, 0x48, 0x00, 0x00, 0x0F, 0x00, 0x00, 0x01,  /* 0 MRRECHDR: 72, domain 15, rec 1 */
    0xDE, 0x6E, 0x75, 0xAA, 0x78, 0x38, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x03,  /* 20 names watched 3 */
    0x00, 0x00, 0x00, 0x01,  /* 24 in flight 1 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x2C,  /* 28 lookups 300 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07,  /* 36 failures 7 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,  /* 44 bad answers 2 */
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x05,  /* 52 changes 2^32 + 5 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0B,  /* 60 deferred 11 */
    0x00, 0x00, 0x00, 0x00,  /* 68 reserved */
};

static struct zvs_mon_record d15r1(void)
{
    struct zvs_mon_record r = monrec_new(ZVS_MON_DOMAIN_ZVS, ZVS_MON_REC_D15R1, MONREC_TOD0);

    r.u.res.watched = 3;
    r.u.res.in_flight = 1;
    r.u.res.lookups = 300;
    r.u.res.failures = 7;
    r.u.res.bad_answers = 2;
    r.u.res.changes = 0x100000005ull;
    r.u.res.deferred = 11;
    return r;
}

/* peer1.example.net went from 192.0.2.7 to 192.0.2.8 and 2001:db8::8, resolved, TTL 300. */
static const char NAME[] = "peer1.example.net";

static void golden_d15r2(uint8_t *g)
{
    static const uint8_t head[32] = {
        0x02, 0x40, 0x00, 0x00, 0x0F, 0x00, 0x00, 0x02,  /* 0 MRRECHDR: 576, domain 15, 2 */
        0xDE, 0x6E, 0x75, 0xAA, 0x78, 0x38, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00,
        0x00,  /* 20 event: changed */
        0x01,  /* 21 state: resolved */
        0x00,  /* 22 last error: none */
        0x11,  /* 23 name length 17 */
        0x00, 0x00, 0x01, 0x2C,  /* 24 TTL 300 */
        0x01,  /* 28 old addresses 1 */
        0x02,  /* 29 new addresses 2 */
        0x00, 0x00,  /* 30 reserved */
    };
    static const uint8_t old0[18] = { 4, 0, 192, 0, 2, 7 };             /* 32 */
    static const uint8_t new0[18] = { 4, 0, 192, 0, 2, 8 };             /* 176 */
    static const uint8_t new1[18] = { 6, 0, 0x20, 0x01, 0x0D, 0xB8, 0, 0, 0, 0,
                                      0, 0, 0, 0, 0, 0, 0, 0x08 };      /* 194 */

    memset(g, 0, 576);
    memcpy(g, head, sizeof(head));
    memcpy(g + 32, old0, 18);
    memcpy(g + 176, new0, 18);
    memcpy(g + 194, new1, 18);
    memcpy(g + 320, NAME, strlen(NAME));                                /* 320 name */
}

static struct zvs_mon_record d15r2(void)
{
    struct zvs_mon_record r = monrec_new(ZVS_MON_DOMAIN_ZVS, ZVS_MON_REC_D15R2, MONREC_TOD0);
    struct zvs_mon_resolver_event *e = &r.u.resev;

    strcpy(e->name, NAME);
    e->event = ZVS_MON_RES_EV_CHANGED;
    e->state = 1;
    e->ttl_s = 300;
    e->nold = 1;
    e->old[0] = (struct zvs_mon_res_addr){ 4, { 192, 0, 2, 7 } };
    e->nnew = 2;
    e->now[0] = (struct zvs_mon_res_addr){ 4, { 192, 0, 2, 8 } };
    e->now[1] = (struct zvs_mon_res_addr){ 6, { 0x20, 0x01, 0x0D, 0xB8, [15] = 8 } };
    return r;
}

static void check_golden(const struct zvs_mon_record *r, const uint8_t *golden, size_t len)
{
    uint8_t buf[ZVS_MON_RECORD_MAX + 1];
    uint8_t again[ZVS_MON_RECORD_MAX];
    struct zvs_mon_record out;

    memset(buf, 0xAA, sizeof(buf));
    assert_int_equal(zvs_mon_encode(r, buf, sizeof(buf)), (int)len);
    assert_memory_equal(buf, golden, len);
    assert_int_equal(buf[len], 0xAA);
    assert_int_equal(zvs_mon_decode(golden, len, &out), 0);
    assert_int_equal(out.domain, r->domain);
    assert_int_equal(out.number, r->number);
    assert_true(out.tod == r->tod);
    assert_int_equal(zvs_mon_encode(&out, again, sizeof(again)), (int)len);
    assert_memory_equal(again, golden, len);
}

static void test_d15r1_golden(void **state)
{
    struct zvs_mon_record r = d15r1(), out;

    (void)state;
    check_golden(&r, golden_d15r1, sizeof(golden_d15r1));
    assert_int_equal(zvs_mon_decode(golden_d15r1, sizeof(golden_d15r1), &out), 0);
    assert_int_equal(out.u.res.watched, 3);
    assert_int_equal(out.u.res.in_flight, 1);
    assert_true(out.u.res.lookups == 300 && out.u.res.failures == 7);
    assert_true(out.u.res.bad_answers == 2 && out.u.res.changes == 0x100000005ull);
    assert_true(out.u.res.deferred == 11);
    assert_true(zvs_mon_is_sample(ZVS_MON_DOMAIN_ZVS, ZVS_MON_REC_D15R1));
    assert_string_equal(zvs_mon_record_name(ZVS_MON_DOMAIN_ZVS, ZVS_MON_REC_D15R1), "D15R1");
}

static void test_d15r2_golden(void **state)
{
    uint8_t g[576];
    struct zvs_mon_record r = d15r2(), out;

    (void)state;
    golden_d15r2(g);
    check_golden(&r, g, sizeof(g));
    assert_int_equal(zvs_mon_decode(g, sizeof(g), &out), 0);
    assert_string_equal(out.u.resev.name, NAME);
    assert_int_equal(out.u.resev.nold, 1);
    assert_int_equal(out.u.resev.nnew, 2);
    assert_memory_equal(&out.u.resev.now[1], &r.u.resev.now[1], sizeof(r.u.resev.now[1]));
    assert_int_equal(out.u.resev.ttl_s, 300);
    assert_false(zvs_mon_is_sample(ZVS_MON_DOMAIN_ZVS, ZVS_MON_REC_D15R2));
    assert_string_equal(zvs_mon_record_name(ZVS_MON_DOMAIN_ZVS, ZVS_MON_REC_D15R2), "D15R2");
}

/* Domain 15 is ours and new in version 3: the older layouts and z/VM's files do not have
 * it, so the decoder says "not ours to read" and the reader skips the record. */
static void test_version_3_only(void **state)
{
    struct zvs_mon_record r = d15r1(), out;
    uint8_t buf[ZVS_MON_RECORD_MAX];

    (void)state;
    assert_int_equal(zvs_mon_encode_version(&r, ZVS_MON_FORMAT_V2, buf, sizeof(buf)), -EINVAL);
    assert_int_equal(zvs_mon_encode_version(&r, ZVS_MON_FORMAT_V1, buf, sizeof(buf)), -EINVAL);
    assert_int_equal(zvs_mon_decode_version(golden_d15r1, sizeof(golden_d15r1),
                                            ZVS_MON_FORMAT_V2, &out), -ENOTSUP);
    assert_int_equal(zvs_mon_decode_version(golden_d15r1, sizeof(golden_d15r1),
                                            ZVS_MON_FORMAT_IBM, &out), -ENOTSUP);
    memcpy(buf, golden_d15r1, sizeof(golden_d15r1));
    buf[7] = 3;                                         /* D15R3: not defined */
    assert_int_equal(zvs_mon_decode(buf, sizeof(golden_d15r1), &out), -ENOTSUP);
}

static void refuse(const uint8_t *golden, size_t len, size_t off, uint8_t val)
{
    uint8_t b[ZVS_MON_RECORD_MAX];
    struct zvs_mon_record out;

    memcpy(b, golden, len);
    b[off] = val;
    assert_int_equal(zvs_mon_decode(b, len, &out), -EBADMSG);
}

static void test_decode_refusals(void **state)
{
    uint8_t g[576], b[576];
    struct zvs_mon_record out;

    (void)state;
    refuse(golden_d15r1, 72, 68, 1);                   /* reserved */
    refuse(golden_d15r1, 72, 71, 1);
    refuse(golden_d15r1, 72, 43, 1);                   /* failures 1 < bad answers 2 */
    refuse(golden_d15r1, 72, 51, 8);                   /* bad answers 8 > failures 7 */
    assert_int_equal(zvs_mon_decode(golden_d15r1, 71, &out), -EBADMSG);

    golden_d15r2(g);
    refuse(g, 576, 20, 3);                              /* event 3 undefined */
    refuse(g, 576, 21, 4);                              /* state 4 undefined */
    refuse(g, 576, 22, 10);                             /* last error 10 undefined */
    refuse(g, 576, 23, 16);                             /* name length: a byte left after */
    refuse(g, 576, 23, 18);                             /* name length: a NUL inside */
    refuse(g, 576, 23, 0);                              /* empty name */
    refuse(g, 576, 23, 254);                            /* over 253 */
    refuse(g, 576, 28, 9);                              /* 9 old addresses */
    refuse(g, 576, 29, 9);
    refuse(g, 576, 28, 0);                              /* old slot 0 used but not counted */
    refuse(g, 576, 29, 3);                              /* new slot 2 counted, family 0 */
    refuse(g, 576, 30, 1);                              /* reserved */
    refuse(g, 576, 33, 1);                              /* a slot's reserved byte */
    refuse(g, 576, 32, 5);                              /* family 5 */
    refuse(g, 576, 38, 1);                              /* IPv4 with bytes after its 4 */
    refuse(g, 576, 320, 'A');                           /* upper case */
    refuse(g, 576, 321, ' ');
    refuse(g, 576, 575, 'x');                           /* after the name */
    memcpy(b, g, 576);
    b[1] = 0x3F;                                        /* MRHDRLEN 575 */
    assert_int_equal(zvs_mon_decode(b, 575, &out), -EBADMSG);
    assert_int_equal(zvs_mon_decode(g, 576, &out), 0);  /* the original decodes */
}

static void test_encode_refusals(void **state)
{
    struct zvs_mon_record r;
    uint8_t buf[ZVS_MON_RECORD_MAX];

    (void)state;
    r = d15r1();
    r.u.res.bad_answers = 8;
    assert_int_equal(zvs_mon_encode(&r, buf, sizeof(buf)), -EINVAL);
    r = d15r1();
    assert_int_equal(zvs_mon_encode(&r, buf, 71), -EINVAL);
    r = d15r2();
    r.u.resev.name[0] = '\0';
    assert_int_equal(zvs_mon_encode(&r, buf, sizeof(buf)), -EINVAL);
    r = d15r2();
    r.u.resev.name[2] = 'E';
    assert_int_equal(zvs_mon_encode(&r, buf, sizeof(buf)), -EINVAL);
    r = d15r2();
    r.u.resev.event = 3;
    assert_int_equal(zvs_mon_encode(&r, buf, sizeof(buf)), -EINVAL);
    r = d15r2();
    r.u.resev.state = 4;
    assert_int_equal(zvs_mon_encode(&r, buf, sizeof(buf)), -EINVAL);
    r = d15r2();
    r.u.resev.last_error = 10;
    assert_int_equal(zvs_mon_encode(&r, buf, sizeof(buf)), -EINVAL);
    r = d15r2();
    r.u.resev.nnew = 9;
    assert_int_equal(zvs_mon_encode(&r, buf, sizeof(buf)), -EINVAL);
    r = d15r2();
    r.u.resev.old[0].family = 5;
    assert_int_equal(zvs_mon_encode(&r, buf, sizeof(buf)), -EINVAL);
    r = d15r2();
    r.u.resev.old[0].addr[4] = 1;                       /* IPv4 with 12 more bytes */
    assert_int_equal(zvs_mon_encode(&r, buf, sizeof(buf)), -EINVAL);
    r = d15r2();
    memset(r.u.resev.name, 'a', ZVS_MON_RES_NAME_MAX);  /* 253: the longest */
    r.u.resev.name[ZVS_MON_RES_NAME_MAX] = '\0';
    assert_int_equal(zvs_mon_encode(&r, buf, sizeof(buf)), 576);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_d15r1_golden),
        cmocka_unit_test(test_d15r2_golden),
        cmocka_unit_test(test_version_3_only),
        cmocka_unit_test(test_decode_refusals),
        cmocka_unit_test(test_encode_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
