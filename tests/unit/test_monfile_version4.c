/* Layout version 4 (monitor/RECORDS.md, "Layout versions"): the discard counters by reason
 * lengthen D6R21 (724) and D8R1 (460), which a version 3 reader refuses by length, so a
 * group carrying them says version 4 in its control record:
 *  - what vswitchd writes now is version 4: a reader of versions 1-3 refuses it for its
 *    version ("this reader knows versions 1-3"), never as a damaged group;
 *  - a writer asked for version 3 leaves the reasons out (580 and 316 bytes, the totals
 *    kept), so a version 3 reader reads every record;
 *  - this reader reads a file a version 3 writer began and a version 4 one went on with,
 *    and the version 3 records with reasons the first vswitchd to carry them wrote.
 * What a reader does with a group of a version after its own (refused for what it is,
 * nothing after it read) is test_monwrite.c's test_damage_and_mixed_framings.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "monitor/monfile.h"
#include "monitor/monrec.h"
#include "monrec_builders.h"

#define BLOCK           4096
#define AREA_VERSION    4020            /* our area's version byte in the control record */

static void with_drops(uint8_t *ndrops, uint64_t *drops)
{
    *ndrops = ZVS_MON_DROP_REASONS;
    for (unsigned i = 0; i < ZVS_MON_DROP_REASONS; i++)
        drops[i] = 100 + i;
}

/* A D6R21 and a D8R1 as vswitchd samples them now: with their reasons. */
static void records_now(struct zvs_mon_record r[2])
{
    r[0] = monrec_vswitch(0x28BA, MONREC_TOD0);
    r[0].u.vsw.rx_discards = 12;
    with_drops(&r[0].u.vsw.ndrops, r[0].u.vsw.drops);
    r[1] = monrec_vnic(0xF000, MONREC_TOD0);
    r[1].u.vnic.rx_discards = 4;
    with_drops(&r[1].u.vnic.ndrops, r[1].u.vnic.drops);
}

static void temp_path(char *path)
{
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
}

static void write_group(const char *path, unsigned version, uint64_t tod,
                        const struct zvs_mon_record *r, unsigned n)
{
    struct zvs_mon_writer_opts o = { .format_version = version, .producer = "zvswitch test" };
    int err = 0;
    struct zvs_mon_writer *w = zvs_mon_writer_open(path, &o, &err);
    assert_non_null(w);
    assert_int_equal(zvs_mon_write_group(w, true, tod, r, n), 0);
    zvs_mon_writer_close(w);
}

static void read_file(const char *path, uint8_t *buf, size_t cap, size_t want)
{
    int fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    assert_int_equal(read(fd, buf, cap), (ssize_t)want);
    close(fd);
}

/* The writer's default: version 4 in our area, the records at their longer lengths. */
static void test_reasons_written_as_version_4(void **state)
{
    char path[] = "/tmp/zvs-monfile-v4-XXXXXX";
    static uint8_t f[3 * BLOCK];
    struct zvs_mon_record r[2];
    (void)state;
    temp_path(path);
    records_now(r);
    write_group(path, 0, MONREC_TOD0, r, 2);
    read_file(path, f, sizeof(f), 2 * BLOCK);
    assert_int_equal(f[AREA_VERSION], 4);
    assert_int_equal(f[BLOCK] << 8 | f[BLOCK + 1], 724);
    assert_int_equal(f[BLOCK + 724] << 8 | f[BLOCK + 725], 460);
    unlink(path);
}

/* Asked for version 3, the writer leaves the reasons out: what a version 3 reader reads. */
static void test_version_3_leaves_reasons_out(void **state)
{
    char path[] = "/tmp/zvs-monfile-v4-XXXXXX";
    static uint8_t f[3 * BLOCK];
    struct zvs_mon_record r[2];
    struct zvs_mon_group g;
    struct zvs_mon_read_error e;
    int err = 0;
    (void)state;
    temp_path(path);
    records_now(r);
    write_group(path, ZVS_MON_FORMAT_V3, MONREC_TOD0, r, 2);
    read_file(path, f, sizeof(f), 2 * BLOCK);
    assert_int_equal(f[AREA_VERSION], 3);
    assert_int_equal(f[BLOCK] << 8 | f[BLOCK + 1], 580);
    assert_int_equal(f[BLOCK + 580] << 8 | f[BLOCK + 581], 316);

    struct zvs_mon_reader *rd = zvs_mon_reader_open(path, &err);
    assert_non_null(rd);
    assert_int_equal(zvs_mon_reader_next(rd, &g, &e), 1);
    assert_int_equal(g.nrec, 2);
    assert_int_equal(g.rec[0].u.vsw.ndrops, 0);
    assert_int_equal(g.rec[0].u.vsw.rx_discards, 12);
    assert_int_equal(g.rec[1].u.vnic.ndrops, 0);
    assert_int_equal(g.rec[1].u.vnic.rx_discards, 4);
    assert_int_equal(zvs_mon_reader_next(rd, &g, &e), 0);
    zvs_mon_reader_close(rd);
    unlink(path);
}

/* A file a version 3 writer began and a version 4 one went on with reads whole; so do the
 * version 3 records with reasons of the first vswitchd that carried them. */
static void test_newer_reader_reads_version_3(void **state)
{
    char path[] = "/tmp/zvs-monfile-v4-XXXXXX";
    struct zvs_mon_record r[2], out;
    struct zvs_mon_group g;
    struct zvs_mon_read_error e;
    uint8_t b[ZVS_MON_RECORD_MAX];
    int err = 0;
    (void)state;
    temp_path(path);
    records_now(r);
    write_group(path, ZVS_MON_FORMAT_V3, MONREC_TOD0, r, 2);
    write_group(path, 0, MONREC_TOD0 + 4096, r, 2);

    struct zvs_mon_reader *rd = zvs_mon_reader_open(path, &err);
    assert_non_null(rd);
    assert_int_equal(zvs_mon_reader_next(rd, &g, &e), 1);
    assert_int_equal(g.rec[0].u.vsw.ndrops, 0);
    assert_int_equal(zvs_mon_reader_next(rd, &g, &e), 1);
    assert_int_equal(g.nrec, 2);
    assert_memory_equal(&g.rec[0], &r[0], sizeof(r[0]));
    assert_memory_equal(&g.rec[1], &r[1], sizeof(r[1]));
    assert_int_equal(zvs_mon_reader_next(rd, &g, &e), 0);
    zvs_mon_reader_close(rd);
    unlink(path);

    assert_int_equal(zvs_mon_encode_version(&r[0], ZVS_MON_FORMAT_V4, b, sizeof(b)), 724);
    assert_int_equal(zvs_mon_decode_version(b, 724, ZVS_MON_FORMAT_V3, &out), 0);
    assert_memory_equal(&out, &r[0], sizeof(out));
    assert_int_equal(zvs_mon_encode_version(&r[1], ZVS_MON_FORMAT_V4, b, sizeof(b)), 460);
    assert_int_equal(zvs_mon_decode_version(b, 460, ZVS_MON_FORMAT_V3, &out), 0);
    assert_memory_equal(&out, &r[1], sizeof(out));
    /* version 4 never had our first 128-byte D8R1 */
    assert_int_equal(zvs_mon_encode_version(&r[1], ZVS_MON_FORMAT_V2, b, sizeof(b)), 128);
    assert_int_equal(zvs_mon_decode_version(b, 128, ZVS_MON_FORMAT_V3, &out), 0);
    assert_int_equal(zvs_mon_decode_version(b, 128, ZVS_MON_FORMAT_V4, &out), -EBADMSG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reasons_written_as_version_4),
        cmocka_unit_test(test_version_3_leaves_reasons_out),
        cmocka_unit_test(test_newer_reader_reads_version_3),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
