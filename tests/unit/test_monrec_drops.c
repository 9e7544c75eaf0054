/* Discard counters by reason in D6R21 and D8R1 (layout version 4, monitor/RECORDS.md):
 *  - a record that carries them is its old bytes, MRHDRLEN aside, followed by 18 big-endian
 *    8-byte counters in code order (D6R21 724 bytes, D8R1 460); one that carries none is
 *    written and read at its old length (580, 316), so files of an earlier vswitchd read
 *    as before;
 *  - versions 1 and 2 and z/VM's own records never carry them (version 3 is written
 *    without them: test_monfile_version4.c); a count other than 0 or 18 is refused, and
 *    so is a length between;
 *  - a monitor file whose first group an earlier vswitchd wrote (no reasons) and whose
 *    next group carries them reads whole;
 *  - the reasons' names and kinds are the data plane's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "monitor/monfile.h"
#include "monitor/monrec.h"
#include "monrec_builders.h"

static void with_drops(uint8_t *ndrops, uint64_t *drops, uint64_t base)
{
    *ndrops = ZVS_MON_DROP_REASONS;
    for (unsigned i = 0; i < ZVS_MON_DROP_REASONS; i++)
        drops[i] = base + 0x0101010101ull * i;
}

static struct zvs_mon_record vsw_with_drops(void)
{
    struct zvs_mon_record r = monrec_vswitch(0x28BA, MONREC_TOD0);
    r.u.vsw.tx_packets = 1000;
    r.u.vsw.rx_discards = 12;
    with_drops(&r.u.vsw.ndrops, r.u.vsw.drops, 7);
    return r;
}

static struct zvs_mon_record vnic_with_drops(void)
{
    struct zvs_mon_record r = monrec_vnic(0xF000, MONREC_TOD0);
    r.u.vnic.rx_packets = 30;
    r.u.vnic.rx_discards = 4;
    with_drops(&r.u.vnic.ndrops, r.u.vnic.drops, 0xFFFFFFFF00ull);
    return r;
}

/* Encoded with and without the reasons: the same bytes but MRHDRLEN, then the counters. */
static void check_appended(struct zvs_mon_record r, int old_len, int new_len)
{
    uint8_t a[ZVS_MON_RECORD_MAX], b[ZVS_MON_RECORD_MAX], c[ZVS_MON_RECORD_MAX];
    struct zvs_mon_record out;
    bool vsw = r.domain == ZVS_MON_DOMAIN_IO;
    uint8_t *ndrops = vsw ? &r.u.vsw.ndrops : &r.u.vnic.ndrops;
    const uint64_t *drops = vsw ? r.u.vsw.drops : r.u.vnic.drops;

    assert_int_equal(zvs_mon_encode(&r, a, sizeof(a)), new_len);
    assert_int_equal(a[0] << 8 | a[1], new_len);
    for (unsigned i = 0; i < ZVS_MON_DROP_REASONS; i++) {
        uint64_t v = 0;
        for (unsigned k = 0; k < 8; k++)
            v = v << 8 | a[old_len + 8 * i + k];
        assert_true(v == drops[i]);
    }
    assert_int_equal(zvs_mon_decode(a, (size_t)new_len, &out), 0);
    assert_memory_equal(&out, &r, sizeof(out));
    assert_int_equal(zvs_mon_encode(&out, c, sizeof(c)), new_len);
    assert_memory_equal(a, c, (size_t)new_len);
    /* the record of an earlier vswitchd: no reasons, its old length, the same bytes */
    *ndrops = 0;
    assert_int_equal(zvs_mon_encode(&r, b, sizeof(b)), old_len);
    assert_memory_equal(a + 2, b + 2, (size_t)old_len - 2);
    assert_int_equal(zvs_mon_decode(b, (size_t)old_len, &out), 0);
    assert_int_equal(vsw ? out.u.vsw.ndrops : out.u.vnic.ndrops, 0);
    /* one byte short of the new length, or a byte past it: refused */
    a[0] = (uint8_t)((new_len - 1) >> 8);
    a[1] = (uint8_t)(new_len - 1);
    assert_int_equal(zvs_mon_decode(a, (size_t)new_len - 1, &out), -EBADMSG);
    a[0] = (uint8_t)((new_len + 8) >> 8);
    a[1] = (uint8_t)(new_len + 8);
    assert_int_equal(zvs_mon_decode(a, (size_t)new_len + 8, &out), -EBADMSG);
}

static void test_d6r21_reasons_appended(void **state)
{
    (void)state;
    check_appended(vsw_with_drops(), 580, 724);
}

static void test_d8r1_reasons_appended(void **state)
{
    (void)state;
    check_appended(vnic_with_drops(), 316, 460);
}

/* Versions 1 and 2 have no place for them: written without (the counters' totals stay);
 * a version 2 reader refuses the longer record, z/VM's layout reads it without them. */
static void test_other_versions(void **state)
{
    struct zvs_mon_record r = vsw_with_drops(), n = vnic_with_drops(), out;
    uint8_t b[ZVS_MON_RECORD_MAX];
    (void)state;
    assert_int_equal(zvs_mon_encode_version(&r, ZVS_MON_FORMAT_V1, b, sizeof(b)), 168);
    assert_int_equal(zvs_mon_encode_version(&r, ZVS_MON_FORMAT_V2, b, sizeof(b)), 580);
    assert_int_equal(zvs_mon_decode_version(b, 580, ZVS_MON_FORMAT_V2, &out), 0);
    assert_int_equal(out.u.vsw.ndrops, 0);
    assert_int_equal(out.u.vsw.rx_discards, 12);
    assert_int_equal(zvs_mon_encode_version(&n, ZVS_MON_FORMAT_V2, b, sizeof(b)), 128);
    assert_int_equal(zvs_mon_encode(&r, b, sizeof(b)), 724);
    assert_int_equal(zvs_mon_decode_version(b, 724, ZVS_MON_FORMAT_V2, &out), -EBADMSG);
    assert_int_equal(zvs_mon_decode_version(b, 724, ZVS_MON_FORMAT_IBM, &out), 0);
    assert_int_equal(out.u.vsw.ndrops, 0);
    assert_int_equal(zvs_mon_encode(&n, b, sizeof(b)), 460);
    assert_int_equal(zvs_mon_decode_version(b, 460, ZVS_MON_FORMAT_IBM, &out), 0);
    assert_int_equal(out.u.vnic.ndrops, 0);
    assert_int_equal(out.u.vnic.rx_discards, 4);
    /* a count that is neither none nor all: refused, nothing written */
    r.u.vsw.ndrops = 5;
    memset(b, 0xAA, sizeof(b));
    assert_int_equal(zvs_mon_encode(&r, b, sizeof(b)), -EINVAL);
    assert_int_equal(b[0], 0xAA);
    n.u.vnic.ndrops = ZVS_MON_DROP_REASONS + 1;
    assert_int_equal(zvs_mon_encode(&n, b, sizeof(b)), -EINVAL);
    /* too small a buffer for the longer record */
    r.u.vsw.ndrops = ZVS_MON_DROP_REASONS;
    assert_int_equal(zvs_mon_encode(&r, b, 723), -EINVAL);
}

static void test_names_and_kinds(void **state)
{
    (void)state;
    assert_string_equal(zvs_mon_drop_name(ZVS_MON_DROP_NO_BUFFER), "no-input-buffer");
    assert_int_equal(zvs_mon_drop_kind(ZVS_MON_DROP_NO_BUFFER), ZVS_MON_DROP_KIND_DISCARD);
    assert_string_equal(zvs_mon_drop_name(ZVS_MON_DROP_RUNT), "runt");
    assert_int_equal(zvs_mon_drop_kind(ZVS_MON_DROP_RUNT), ZVS_MON_DROP_KIND_ERROR);
    assert_string_equal(zvs_mon_drop_name(ZVS_MON_DROP_FILTERED), "address-filtered");
    assert_int_equal(zvs_mon_drop_kind(ZVS_MON_DROP_FILTERED), ZVS_MON_DROP_KIND_NOTE);
    assert_string_equal(zvs_mon_drop_name(ZVS_MON_DROP_GUEST_OVERRUN), "guest-overrun");
    assert_string_equal(zvs_mon_drop_name(ZVS_MON_DROP_REASONS), "?");
    for (unsigned i = 0; i < ZVS_MON_DROP_REASONS; i++)
        for (unsigned j = 0; j < i; j++)
            assert_true(strcmp(zvs_mon_drop_name(i), zvs_mon_drop_name(j)) != 0);
}

/* A file an earlier vswitchd began (records without reasons, as it wrote them) and this
 * one went on with: both groups read, the first without reasons, the second with them. */
static void test_file_of_an_earlier_vswitchd(void **state)
{
    char path[] = "/tmp/zvs-monrec-drops-XXXXXX";
    int fd = mkstemp(path), err = 0;
    (void)state;
    assert_true(fd >= 0);
    close(fd);
    struct zvs_mon_writer_opts o = { .producer = "zvswitch test", .system = "TESTSYS" };
    struct zvs_mon_writer *w = zvs_mon_writer_open(path, &o, &err);
    assert_non_null(w);
    struct zvs_mon_record old[2] = { vsw_with_drops(), vnic_with_drops() };
    old[0].u.vsw.ndrops = old[1].u.vnic.ndrops = 0;
    memset(old[0].u.vsw.drops, 0, sizeof(old[0].u.vsw.drops));
    memset(old[1].u.vnic.drops, 0, sizeof(old[1].u.vnic.drops));
    struct zvs_mon_record now[2] = { vsw_with_drops(), vnic_with_drops() };
    assert_int_equal(zvs_mon_write_group(w, true, MONREC_TOD0, old, 2), 0);
    assert_int_equal(zvs_mon_write_group(w, true, MONREC_TOD0 + 4096, now, 2), 0);
    zvs_mon_writer_close(w);

    struct zvs_mon_reader *rd = zvs_mon_reader_open(path, &err);
    assert_non_null(rd);
    struct zvs_mon_group g;
    struct zvs_mon_read_error e;
    assert_int_equal(zvs_mon_reader_next(rd, &g, &e), 1);
    assert_int_equal(g.nrec, 2);
    assert_memory_equal(&g.rec[0], &old[0], sizeof(old[0]));
    assert_memory_equal(&g.rec[1], &old[1], sizeof(old[1]));
    assert_int_equal(zvs_mon_reader_next(rd, &g, &e), 1);
    assert_int_equal(g.nrec, 2);
    assert_memory_equal(&g.rec[0], &now[0], sizeof(now[0]));
    assert_memory_equal(&g.rec[1], &now[1], sizeof(now[1]));
    assert_int_equal(g.rec[1].u.vnic.drops[ZVS_MON_DROP_GUEST_OVERRUN],
                     0xFFFFFFFF00ull + 0x0101010101ull * ZVS_MON_DROP_GUEST_OVERRUN);
    assert_int_equal(zvs_mon_reader_next(rd, &g, &e), 0);
    zvs_mon_reader_close(rd);
    unlink(path);
}

/* The union keeps its size: the reasons fit beside D15R2's decoded form, the biggest. */
static void test_record_size(void **state)
{
    (void)state;
    assert_true(sizeof(struct zvs_mon_record) <= 560 + 16);
    assert_true(sizeof(struct zvs_mon_vswitch_activity) < sizeof(struct zvs_mon_resolver_event));
    assert_true(sizeof(struct zvs_mon_vnic_activity) < sizeof(struct zvs_mon_resolver_event));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_d6r21_reasons_appended),
        cmocka_unit_test(test_d8r1_reasons_appended),
        cmocka_unit_test(test_other_versions),
        cmocka_unit_test(test_names_and_kinds),
        cmocka_unit_test(test_file_of_an_earlier_vswitchd),
        cmocka_unit_test(test_record_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
