/* Monitor file: exact control and data block bytes, groups read back exactly, a group over
 * several data blocks with no record spanning a block, damage (a data byte, a control
 * block, truncation, a group cut short, garbage in front) reported with its offset and
 * record while every other group still reads, unknown records skipped, rotation keeping K
 * files, a live subscriber over a pipe (same bytes; dropped on EPIPE and on EAGAIN), and a
 * non-blocking reader resuming after EAGAIN. Record layout versions: the byte-exact
 * damage tests write layout version 1 (their offsets were worked out for it, and they show
 * that a version 1 file still reads); version 2, what vswitchd writes, has its own block
 * bytes, a v1 file appended with v2 groups reads, and a version this reader does not know
 * is refused with what it is.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "monitor/monfile.h"
#include "monitor/monrec.h"
#include "monrec_builders.h"

#define BLK   ZVS_MON_BLOCK
#define TOD0  MONREC_TOD0              /* 2024-01-01 00:00:30 UTC */
#define SEC   (1000000ull << 12)        /* one second of TOD clock */

/* The old record layout: the byte-exact tests below were written for it. */
static const struct zvs_mon_writer_opts v1 = { .format_version = ZVS_MON_FORMAT_V1 };
/* Layout version 2 in our first framing: what vswitchd wrote before version 3 (MONWRITE). */
static const struct zvs_mon_writer_opts v2 = { .format_version = ZVS_MON_FORMAT_V2 };

static char dir[64];
static char path[96];

static int setup(void **state)
{
    strcpy(dir, "/tmp/test_monfile.XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/mon", dir);
    return 0;
}

static int teardown(void **state)
{
    char p[128];

    unlink(path);
    for (int i = 1; i < 6; i++) {
        snprintf(p, sizeof(p), "%s.%d", path, i);
        unlink(p);
    }
    rmdir(dir);
    return 0;
}

static struct zvs_mon_record vsw(uint16_t rdev, uint64_t tod, uint64_t bytes)
{
    struct zvs_mon_record r = monrec_vswitch(rdev, tod);

    r.u.vsw.tx_bytes = bytes;
    r.u.vsw.rx_bytes = bytes * 2;
    r.u.vsw.tx_packets = bytes / 1000;
    r.u.vsw.interval_s = 30;
    r.u.vsw.distributing = 1;
    return r;
}

static struct zvs_mon_record vnic(uint16_t vdev, uint64_t tod, uint64_t bytes)
{
    struct zvs_mon_record r = monrec_vnic(vdev, tod);

    r.u.vnic.tx_bytes = bytes;
    r.u.vnic.rx_packets = bytes / 100;
    return r;
}

static struct zvs_mon_record fail_event(uint64_t tod)
{
    struct zvs_mon_record r = monrec_vswitch_event(ZVS_MON_REC_D6R22, tod);

    r.u.vswev.reason = ZVS_MON_FAIL_CARRIER;
    return r;
}

static struct zvs_mon_record link_down(uint64_t tod)
{
    return monrec_link(ZVS_MON_REC_D8R3, tod);
}

/* The same record: the same bytes on the wire. */
static void assert_same_record(const struct zvs_mon_record *a, const struct zvs_mon_record *b)
{
    uint8_t x[ZVS_MON_RECORD_MAX], y[ZVS_MON_RECORD_MAX];
    int n = zvs_mon_encode(a, x, sizeof(x));

    assert_true(n > 0);
    assert_int_equal(zvs_mon_encode(b, y, sizeof(y)), n);
    assert_memory_equal(x, y, (size_t)n);
}

/* Sample group g (0..2): two uplinks, two NICs. Event group: a failure and a link down. */
static unsigned sample_group(unsigned g, struct zvs_mon_record *r)
{
    uint64_t tod = TOD0 + g * 30 * SEC;

    r[0] = vsw(0x0600, tod, 1000000 * (g + 1));
    r[1] = vsw(0x0603, tod, 2000000 * (g + 1));
    r[2] = vnic(0x0600, tod, 300000 * (g + 1));
    r[3] = vnic(0x0700, tod, 400000 * (g + 1));
    return 4;
}

static unsigned event_group(struct zvs_mon_record *r)
{
    r[0] = fail_event(TOD0 + 95 * SEC);
    r[1] = link_down(TOD0 + 96 * SEC);
    return 2;
}

/* Writes 3 sample groups then 1 event group: 8 blocks. */
/* Three sample groups and an event group, in layout v1 (write_four) or the current one. */
static void write_four_opts(const char *p, const struct zvs_mon_writer_opts *o)
{
    struct zvs_mon_record r[4];
    int err = 0;
    struct zvs_mon_writer *w = zvs_mon_writer_open(p, o, &err);

    assert_non_null(w);
    for (unsigned g = 0; g < 3; g++) {
        unsigned n = sample_group(g, r);
        assert_int_equal(zvs_mon_write_group(w, true, TOD0 + g * 30 * SEC, r, n), 0);
    }
    unsigned n = event_group(r);
    assert_int_equal(zvs_mon_write_group(w, false, TOD0 + 96 * SEC, r, n), 0);
    zvs_mon_writer_close(w);
}

static void write_four(const char *p)
{
    write_four_opts(p, &v1);
}

static uint8_t *slurp(const char *p, size_t *len)
{
    struct stat st;
    int fd = open(p, O_RDONLY);

    assert_true(fd >= 0);
    assert_int_equal(fstat(fd, &st), 0);
    uint8_t *b = malloc((size_t)st.st_size + 1);
    assert_non_null(b);
    assert_int_equal(read(fd, b, (size_t)st.st_size), st.st_size);
    close(fd);
    *len = (size_t)st.st_size;
    return b;
}

static void spit(const char *p, const uint8_t *b, size_t len)
{
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);

    assert_true(fd >= 0);
    assert_int_equal(write(fd, b, len), (ssize_t)len);
    close(fd);
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* After editing a group by hand: recompute data block b's CRC and the control CRC. */
static void reseal(uint8_t *ctl, unsigned b)
{
    put_be32(ctl + 32 + 8 * b + 4, zvs_mon_crc32(0, ctl + (size_t)(b + 1) * BLK, BLK));
    put_be32(ctl + 28, 0);
    put_be32(ctl + 28, zvs_mon_crc32(0, ctl, BLK));
}

static void expect_sample(struct zvs_mon_reader *rd, unsigned g, uint64_t offset)
{
    struct zvs_mon_record want[4];
    struct zvs_mon_group grp;
    struct zvs_mon_read_error e;
    unsigned n = sample_group(g, want);

    assert_int_equal(zvs_mon_reader_next(rd, &grp, &e), 1);
    assert_true(grp.sample);
    assert_true(grp.tod == TOD0 + g * 30 * SEC);
    assert_true(grp.offset == offset);
    assert_int_equal(grp.nrec, n);
    for (unsigned i = 0; i < n; i++)
        assert_same_record(&grp.rec[i], &want[i]);
}

/* The three sample groups write_four writes first: groups 0, 1 and 2 at blocks 0, 2, 4. */
static void expect_first_three(struct zvs_mon_reader *rd)
{
    for (unsigned g = 0; g < 3; g++)
        expect_sample(rd, g, 2ull * g * BLK);
}

static void expect_events(struct zvs_mon_reader *rd, uint64_t offset)
{
    struct zvs_mon_record want[4];
    struct zvs_mon_group grp;
    struct zvs_mon_read_error e;
    unsigned n = event_group(want);

    assert_int_equal(zvs_mon_reader_next(rd, &grp, &e), 1);
    assert_false(grp.sample);
    assert_true(grp.tod == TOD0 + 96 * SEC);
    assert_true(grp.offset == offset);
    assert_int_equal(grp.nrec, n);
    for (unsigned i = 0; i < n; i++)
        assert_same_record(&grp.rec[i], &want[i]);
}

static void expect_end(struct zvs_mon_reader *rd)
{
    struct zvs_mon_group grp;
    struct zvs_mon_read_error e;

    assert_int_equal(zvs_mon_reader_next(rd, &grp, &e), 0);
    assert_int_equal(zvs_mon_reader_next(rd, &grp, &e), 0);
}

static void expect_error(struct zvs_mon_reader *rd, int rc, uint64_t offset, int record,
                         const char *what)
{
    struct zvs_mon_group grp;
    struct zvs_mon_read_error e;

    memset(&e, 0, sizeof(e));
    assert_int_equal(zvs_mon_reader_next(rd, &grp, &e), rc);
    if (e.offset != offset)
        fail_msg("offset %llu, want %llu (%s)", (unsigned long long)e.offset,
                 (unsigned long long)offset, e.what);
    assert_int_equal(e.record, record);
    assert_string_equal(e.what, what);
}

static void test_crc32(void **state)
{
    assert_int_equal(zvs_mon_crc32(0, "123456789", 9), 0xCBF43926u);
    assert_int_equal(zvs_mon_crc32(zvs_mon_crc32(0, "1234", 4), "56789", 5), 0xCBF43926u);
    assert_int_equal(zvs_mon_crc32(0, "", 0), 0);
}

static void test_block_bytes(void **state)
{
    size_t len;

    write_four(path);
    uint8_t *b = slurp(path, &len);
    assert_int_equal(len, 8 * BLK);     /* 4 x (control + 1 data block) */
    /* the first control block */
    assert_memory_equal(b, "ZVMW\x01\xE2\x02\x80", 8);           /* magic, v1, 'S', D6+D8 */
    assert_memory_equal(b + 8, "\xDE\x6E\x75\xAA\x78\x38\x00\x00", 8);   /* TOD */
    assert_int_equal(be32(b + 16), 1);  /* data blocks */
    assert_int_equal(be32(b + 20), 4);  /* records */
    assert_int_equal(be32(b + 24), 0);
    assert_memory_equal(b + 32, "\x02\x50\x00\x04", 4);           /* used 2*168+2*128, 4 recs */
    assert_int_equal(be32(b + 36), zvs_mon_crc32(0, b + BLK, BLK));
    uint8_t ctl[BLK];
    memcpy(ctl, b, BLK);
    put_be32(ctl + 28, 0);
    assert_int_equal(be32(b + 28), zvs_mon_crc32(0, ctl, BLK));
    for (size_t i = 40; i < BLK; i++)
        assert_int_equal(b[i], 0);
    /* the data block: D6R21, D6R21, D8R1, D8R1, then zeros */
    assert_memory_equal(b + BLK, "\x00\xA8\x00\x00\x06\x00\x00\x15", 8);
    assert_memory_equal(b + BLK + 168, "\x00\xA8\x00\x00\x06\x00\x00\x15", 8);
    assert_memory_equal(b + BLK + 336, "\x00\x80\x00\x00\x08\x00\x00\x01", 8);
    assert_memory_equal(b + BLK + 464, "\x00\x80\x00\x00\x08\x00\x00\x01", 8);
    for (size_t i = 592; i < BLK; i++)
        assert_int_equal(b[BLK + i], 0);
    /* the event group: 'E', one record of each domain */
    assert_memory_equal(b + 6 * BLK, "ZVMW\x01\xC5\x02\x80", 8);
    assert_memory_equal(b + 6 * BLK + 32, "\x00\x8C\x00\x02", 4);  /* 80 + 60 */
    free(b);
}

/* Layout version 2 (what vswitchd wrote before version 3): version byte 2, D6R21 580
 * bytes, D6R22 88. */
static void test_block_bytes_v2(void **state)
{
    size_t len;
    int err = 0;

    write_four_opts(path, &v2);
    uint8_t *b = slurp(path, &len);
    assert_int_equal(len, 8 * BLK);
    assert_memory_equal(b, "ZVMW\x02\xE2\x02\x80", 8);           /* magic, v2, 'S', D6+D8 */
    assert_memory_equal(b + 32, "\x05\x88\x00\x04", 4);           /* used 2*580+2*128 */
    assert_memory_equal(b + BLK, "\x02\x44\x00\x00\x06\x00\x00\x15", 8);
    assert_memory_equal(b + BLK + 580, "\x02\x44\x00\x00\x06\x00\x00\x15", 8);
    assert_memory_equal(b + BLK + 1160, "\x00\x80\x00\x00\x08\x00\x00\x01", 8);
    assert_memory_equal(b + BLK + 1288, "\x00\x80\x00\x00\x08\x00\x00\x01", 8);
    for (size_t i = 1416; i < BLK; i++)
        assert_int_equal(b[BLK + i], 0);
    assert_memory_equal(b + 6 * BLK, "ZVMW\x02\xC5\x02\x80", 8);
    assert_memory_equal(b + 6 * BLK + 32, "\x00\x94\x00\x02", 4);  /* 88 + 60 */
    assert_memory_equal(b + 7 * BLK, "\x00\x58\x00\x00\x06\x00\x00\x16", 8);
    free(b);
    struct zvs_mon_reader *rd = zvs_mon_reader_open(path, &err);
    assert_non_null(rd);
    expect_first_three(rd);
    expect_events(rd, 6 * BLK);
    expect_end(rd);
    zvs_mon_reader_close(rd);
}

/* A sound control block of a format version we do not know (a newer writer's): refused,
 * said so, and nothing after it is guessed at. Version 0 never existed: refused too. */
static void test_unknown_version_refused(void **state)
{
    static const uint8_t versions[] = { 3, 0, 255 };
    size_t len;
    int err = 0;
    char want[160];

    for (size_t i = 0; i < sizeof(versions); i++) {
        write_four_opts(path, &v2);
        uint8_t *b = slurp(path, &len);
        b[2 * BLK + 4] = versions[i];   /* group 1's control block */
        reseal(b + 2 * BLK, 0);
        struct zvs_mon_reader *rd = zvs_mon_reader_memopen(b, len, &err);
        expect_sample(rd, 0, 0);
        snprintf(want, sizeof(want), "monitor file format version %u, this reader knows "
                 "versions 1-2 (read it with the perfkit of the zvswitch that wrote it)",
                 versions[i]);
        expect_error(rd, -EPROTONOSUPPORT, 2 * BLK, -1, want);
        expect_end(rd);
        zvs_mon_reader_close(rd);
        free(b);
    }
    /* the writer writes only what it can read back */
    struct zvs_mon_writer_opts o = { .format_version = 5 };
    assert_null(zvs_mon_writer_open(path, &o, &err));
    assert_int_equal(err, -EINVAL);
}

static void test_write_read_four(void **state)
{
    int err = 0;

    write_four(path);
    struct zvs_mon_reader *rd = zvs_mon_reader_open(path, &err);
    assert_non_null(rd);
    expect_first_three(rd);
    expect_events(rd, 6 * BLK);
    expect_end(rd);
    zvs_mon_reader_close(rd);

    /* appending reopens at the end: a fifth group follows, in the current layout (v2)
     * after v1 groups: each group is read with its own control block's version */
    struct zvs_mon_record r[4];
    struct zvs_mon_writer *w = zvs_mon_writer_open(path, NULL, &err);
    assert_non_null(w);
    assert_int_equal(zvs_mon_write_group(w, true, TOD0, r, sample_group(0, r)), 0);
    assert_int_equal(zvs_mon_write_group(w, true, TOD0, r, 0), 0);     /* an empty interval */
    zvs_mon_writer_close(w);
    rd = zvs_mon_reader_open(path, &err);
    expect_first_three(rd);
    expect_events(rd, 6 * BLK);
    expect_sample(rd, 0, 8 * BLK);
    struct zvs_mon_group grp;
    struct zvs_mon_read_error e;
    assert_int_equal(zvs_mon_reader_next(rd, &grp, &e), 1);
    assert_int_equal(grp.nrec, 0);
    assert_true(grp.offset == 10 * BLK);
    expect_end(rd);
    zvs_mon_reader_close(rd);
}

/* A file as an earlier vswitchd wrote it (tests/golden/monitor/four-groups-v2.mon: the
 * three sample groups and the event group of write_four, in layout v2, written by the code
 * before its CRC-32 came from zlib) is read the same by today's reader: the checksums and
 * the layout a user's existing files carry stay valid. */
static void test_reads_file_written_before(void **state)
{
    int err = 0;
    struct zvs_mon_reader *rd = zvs_mon_reader_open("tests/golden/monitor/four-groups-v2.mon",
                                                    &err);

    assert_non_null(rd);
    expect_first_three(rd);
    expect_events(rd, 6 * BLK);
    expect_end(rd);
    zvs_mon_reader_close(rd);
}

static void test_big_group_splits(void **state)
{
    enum { N = 50 };                    /* 168-byte D6R21: 24 per block -> 24, 24, 2 */
    struct zvs_mon_record r[N];
    struct zvs_mon_group grp;
    struct zvs_mon_read_error e;
    int err = 0;
    size_t len;

    for (unsigned i = 0; i < N; i++)
        r[i] = vsw((uint16_t)(0x1000 + i), TOD0, i);
    struct zvs_mon_writer *w = zvs_mon_writer_open(path, &v1, &err);
    assert_int_equal(zvs_mon_write_group(w, true, TOD0, r, N), 0);
    zvs_mon_writer_close(w);
    uint8_t *b = slurp(path, &len);
    assert_int_equal(len, 4 * BLK);
    assert_int_equal(be32(b + 16), 3);
    assert_int_equal(be32(b + 20), N);
    assert_memory_equal(b + 32, "\x0F\xC0\x00\x18", 4);   /* 4032 bytes, 24 records */
    assert_memory_equal(b + 40, "\x0F\xC0\x00\x18", 4);
    assert_memory_equal(b + 48, "\x01\x50\x00\x02", 4);   /* 336 bytes, 2 records */
    for (unsigned blk = 1; blk <= 3; blk++) {
        const uint8_t *d = b + blk * BLK;
        unsigned off = 0, n = 0;
        while (off < BLK && (d[off] | d[off + 1]) != 0) {
            unsigned l = (unsigned)(d[off] << 8 | d[off + 1]);
            assert_int_equal(l, 168);
            assert_true(off + l <= BLK);    /* never spans */
            off += l;
            n++;
        }
        assert_int_equal(n, blk < 3 ? 24 : 2);
    }
    free(b);
    struct zvs_mon_reader *rd = zvs_mon_reader_open(path, &err);
    assert_int_equal(zvs_mon_reader_next(rd, &grp, &e), 1);
    assert_int_equal(grp.nrec, N);
    for (unsigned i = 0; i < N; i++)
        assert_same_record(&grp.rec[i], &r[i]);
    expect_end(rd);
    zvs_mon_reader_close(rd);

    /* more than 508 data blocks: refused, nothing written */
    enum { BIG = 509 * 24 + 1 };
    struct zvs_mon_record *many = calloc(BIG, sizeof(*many));
    for (unsigned i = 0; i < BIG; i++)
        many[i] = vsw(0x0600, TOD0, i);
    w = zvs_mon_writer_open(path, &v1, &err);
    assert_int_equal(zvs_mon_write_group(w, true, TOD0, many, BIG), -E2BIG);
    r[0].u.vsw.queuestorage_mb = 0;
    assert_int_equal(zvs_mon_write_group(w, true, TOD0, r, 2), -EINVAL);
    zvs_mon_writer_close(w);
    free(many);
    free(slurp(path, &len));
    assert_int_equal(len, 4 * BLK);
}

static void test_corrupt_data_byte(void **state)
{
    size_t len;
    int err = 0;

    write_four(path);
    uint8_t *b = slurp(path, &len);
    uint8_t *c = malloc(len);

    /* a name byte of the second record of group 2 (offset 3 blocks + 168 + 32) */
    memcpy(c, b, len);
    c[3 * BLK + 168 + 32] = 0x81;
    struct zvs_mon_reader *rd = zvs_mon_reader_memopen(c, len, &err);
    expect_sample(rd, 0, 0);
    expect_error(rd, -EBADMSG, 3 * BLK + 168, 1, "D6R21 record refused (length 168)");
    expect_sample(rd, 2, 4 * BLK);
    expect_events(rd, 6 * BLK);
    expect_end(rd);
    zvs_mon_reader_close(rd);

    /* a counter byte of the third record: only the checksum sees it */
    memcpy(c, b, len);
    c[3 * BLK + 336 + 60] ^= 0x01;
    rd = zvs_mon_reader_memopen(c, len, &err);
    expect_sample(rd, 0, 0);
    expect_error(rd, -EBADMSG, 3 * BLK, 0, "data block checksum mismatch (records 0-3)");
    expect_sample(rd, 2, 4 * BLK);
    expect_events(rd, 6 * BLK);
    expect_end(rd);
    zvs_mon_reader_close(rd);

    /* a byte after the last record */
    memcpy(c, b, len);
    c[3 * BLK + 4000] = 1;
    rd = zvs_mon_reader_memopen(c, len, &err);
    expect_sample(rd, 0, 0);
    expect_error(rd, -EBADMSG, 3 * BLK + 4000, 4, "data after the last record of the block");
    expect_sample(rd, 2, 4 * BLK);
    zvs_mon_reader_close(rd);

    /* a record length that runs past the data, and one that is not D8R1's */
    memcpy(c, b, len);
    c[3 * BLK + 336] = 0x01;            /* D8R1 length 384: 256 bytes are left */
    rd = zvs_mon_reader_memopen(c, len, &err);
    expect_sample(rd, 0, 0);
    expect_error(rd, -EBADMSG, 3 * BLK + 336, 2, "record length 384 out of range");
    expect_sample(rd, 2, 4 * BLK);
    zvs_mon_reader_close(rd);
    memcpy(c, b, len);
    c[3 * BLK + 336 + 1] = 0xF0;        /* D8R1 length 240 */
    rd = zvs_mon_reader_memopen(c, len, &err);
    expect_sample(rd, 0, 0);
    expect_error(rd, -EBADMSG, 3 * BLK + 336, 2, "D8R1 record refused (length 240)");
    expect_sample(rd, 2, 4 * BLK);
    zvs_mon_reader_close(rd);
    free(c);
    free(b);
}

static void test_corrupt_control_block(void **state)
{
    size_t len;
    int err = 0;

    write_four(path);
    uint8_t *b = slurp(path, &len);
    b[2 * BLK + 20] ^= 0x01;            /* group 2's record count */
    struct zvs_mon_reader *rd = zvs_mon_reader_memopen(b, len, &err);
    expect_sample(rd, 0, 0);
    expect_error(rd, -EBADMSG, 2 * BLK, -1, "control block checksum mismatch");
    expect_sample(rd, 2, 4 * BLK);      /* its data block skipped silently */
    expect_events(rd, 6 * BLK);
    expect_end(rd);
    zvs_mon_reader_close(rd);

    /* garbage in front, and a sealed control block that lies about its records */
    write_four(path);
    free(b);
    b = slurp(path, &len);
    uint8_t *c = calloc(1, len + 2 * BLK);
    memset(c, 0x5A, 2 * BLK);
    memcpy(c + 2 * BLK, b, len);
    c[2 * BLK + 2 * BLK + 35] = 3;      /* group 2: entry says 3 records, header 4 */
    reseal(c + 4 * BLK, 0);
    rd = zvs_mon_reader_memopen(c, len + 2 * BLK, &err);
    expect_error(rd, -EBADMSG, 0, -1, "not a control block (magic)");
    expect_sample(rd, 0, 2 * BLK);
    expect_error(rd, -EBADMSG, 4 * BLK, -1, "control block record count does not add up");
    expect_sample(rd, 2, 6 * BLK);
    zvs_mon_reader_close(rd);
    free(c);
    free(b);
}

static void test_truncated(void **state)
{
    size_t len;
    int err = 0;

    write_four(path);
    uint8_t *b = slurp(path, &len);

    /* in the middle of the last data block */
    struct zvs_mon_reader *rd = zvs_mon_reader_memopen(b, 7 * BLK + 100, &err);
    expect_first_three(rd);
    expect_error(rd, -ENODATA, 7 * BLK, -1,
                 "group at offset 24576 truncated after 0 of 1 data blocks");
    expect_end(rd);
    zvs_mon_reader_close(rd);

    /* right after the last control block, through a real file */
    spit(path, b, 7 * BLK);
    rd = zvs_mon_reader_open(path, &err);
    expect_first_three(rd);
    expect_error(rd, -ENODATA, 7 * BLK, -1,
                 "group at offset 24576 truncated after 0 of 1 data blocks");
    expect_end(rd);
    zvs_mon_reader_close(rd);

    /* inside a control block */
    rd = zvs_mon_reader_memopen(b, 6 * BLK + 10, &err);
    expect_first_three(rd);
    expect_error(rd, -ENODATA, 6 * BLK, -1, "truncated: 10 bytes of a block at the end");
    expect_end(rd);
    zvs_mon_reader_close(rd);

    /* a group cut short: group 2 lost its data block, group 3 follows at once */
    uint8_t *c = malloc(len);
    memcpy(c, b, 3 * BLK);
    memcpy(c + 3 * BLK, b + 4 * BLK, 4 * BLK);
    rd = zvs_mon_reader_memopen(c, 7 * BLK, &err);
    expect_sample(rd, 0, 0);
    expect_error(rd, -EBADMSG, 3 * BLK, -1,
                 "group at offset 8192 cut short: control block after 0 of 1 data blocks");
    expect_sample(rd, 2, 3 * BLK);
    expect_events(rd, 5 * BLK);
    expect_end(rd);
    zvs_mon_reader_close(rd);
    free(c);

    /* empty input; a file that cannot be opened */
    rd = zvs_mon_reader_memopen(b, 0, &err);
    expect_end(rd);
    zvs_mon_reader_close(rd);
    assert_null(zvs_mon_reader_open("/nonexistent/mon", &err));
    assert_int_equal(err, -ENOENT);
    free(b);
}

static void test_writer_pads_torn_file(void **state)
{
    size_t len;
    int err = 0;
    struct zvs_mon_record r[4];

    write_four(path);
    uint8_t *b = slurp(path, &len);
    spit(path, b, 2 * BLK + 1000);      /* a crash in group 2's control block, after its
                                         * last non-zero byte: padding makes it whole */
    struct zvs_mon_writer *w = zvs_mon_writer_open(path, &v1, &err);
    assert_non_null(w);
    assert_int_equal(zvs_mon_write_group(w, true, TOD0 + 60 * SEC, r, sample_group(2, r)), 0);
    zvs_mon_writer_close(w);
    free(b);
    b = slurp(path, &len);
    assert_int_equal(len, 5 * BLK);
    struct zvs_mon_reader *rd = zvs_mon_reader_memopen(b, len, &err);
    expect_sample(rd, 0, 0);
    expect_error(rd, -EBADMSG, 3 * BLK, -1,
                 "group at offset 8192 cut short: control block after 0 of 1 data blocks");
    expect_sample(rd, 2, 3 * BLK);
    expect_end(rd);
    zvs_mon_reader_close(rd);
    free(b);

    /* torn inside the control block's used bytes: its checksum fails */
    write_four(path);
    b = slurp(path, &len);
    spit(path, b, 2 * BLK + 30);
    w = zvs_mon_writer_open(path, &v1, &err);
    assert_int_equal(zvs_mon_write_group(w, true, TOD0 + 60 * SEC, r, sample_group(2, r)), 0);
    zvs_mon_writer_close(w);
    free(b);
    b = slurp(path, &len);
    assert_int_equal(len, 5 * BLK);
    rd = zvs_mon_reader_memopen(b, len, &err);
    expect_sample(rd, 0, 0);
    expect_error(rd, -EBADMSG, 2 * BLK, -1, "control block checksum mismatch");
    expect_sample(rd, 2, 3 * BLK);
    expect_end(rd);
    zvs_mon_reader_close(rd);
    free(b);
}

static void test_unknown_record_skipped(void **state)
{
    size_t len;
    int err = 0;
    struct zvs_mon_group grp;
    struct zvs_mon_read_error e;

    write_four(path);
    uint8_t *b = slurp(path, &len);
    b[BLK + 336 + 7] = 4;               /* the first D8R1 of group 0 becomes a D8R4 */
    reseal(b, 0);
    struct zvs_mon_reader *rd = zvs_mon_reader_memopen(b, len, &err);
    struct zvs_mon_record want[4];
    sample_group(0, want);
    assert_int_equal(zvs_mon_reader_next(rd, &grp, &e), 1);
    assert_int_equal(grp.nrec, 3);
    assert_same_record(&grp.rec[0], &want[0]);
    assert_same_record(&grp.rec[1], &want[1]);
    assert_same_record(&grp.rec[2], &want[3]);
    expect_sample(rd, 1, 2 * BLK);
    zvs_mon_reader_close(rd);
    free(b);
}

static void test_rotation(void **state)
{
    struct zvs_mon_writer_opts o = { .max_bytes = 5 * BLK, .keep = 2 };
    struct zvs_mon_record r[4];
    int err = 0;
    char p[128];
    struct stat st;

    struct zvs_mon_writer *w = zvs_mon_writer_open(path, &o, &err);
    assert_non_null(w);
    for (unsigned g = 0; g < 7; g++) {  /* 2 blocks each: two groups per file */
        r[0] = vsw(0x0600, TOD0 + g * SEC, g);
        assert_int_equal(zvs_mon_write_group(w, true, TOD0 + g * SEC, r, 1), 0);
    }
    zvs_mon_writer_close(w);
    /* name: g6; name.1: g4 g5; name.2: g2 g3; g0 g1 rotated away; no name.3 */
    static const unsigned first[3] = { 6, 4, 2 };
    static const unsigned count[3] = { 1, 2, 2 };
    for (int f = 0; f < 3; f++) {
        if (f == 0)
            snprintf(p, sizeof(p), "%s", path);
        else
            snprintf(p, sizeof(p), "%s.%d", path, f);
        assert_int_equal(stat(p, &st), 0);
        assert_int_equal(st.st_size, (off_t)count[f] * 2 * BLK);
        struct zvs_mon_reader *rd = zvs_mon_reader_open(p, &err);
        for (unsigned i = 0; i < count[f]; i++) {
            struct zvs_mon_group grp;
            struct zvs_mon_read_error e;
            assert_int_equal(zvs_mon_reader_next(rd, &grp, &e), 1);
            assert_true(grp.tod == TOD0 + (first[f] + i) * SEC);
            assert_int_equal(grp.nrec, 1);
            assert_true(grp.rec[0].u.vsw.tx_bytes == first[f] + i);
        }
        expect_end(rd);
        zvs_mon_reader_close(rd);
    }
    snprintf(p, sizeof(p), "%s.3", path);
    assert_int_equal(stat(p, &st), -1);
}

static void test_subscriber_pipe(void **state)
{
    int pfd[2];
    int err = 0;
    size_t len;
    struct zvs_mon_record r[4];

    assert_int_equal(pipe(pfd), 0);
    struct zvs_mon_writer *w = zvs_mon_writer_open(path, NULL, &err);
    zvs_mon_writer_subscribe(w, pfd[1]);
    assert_true(zvs_mon_writer_subscribed(w));
    for (unsigned g = 0; g < 3; g++)
        assert_int_equal(zvs_mon_write_group(w, true, TOD0 + g * 30 * SEC, r, sample_group(g, r)), 0);
    assert_true(zvs_mon_writer_subscribed(w));
    uint8_t *file = slurp(path, &len);
    assert_int_equal(len, 6 * BLK);
    uint8_t *got = malloc(len);
    assert_int_equal(read(pfd[0], got, len), (ssize_t)len);
    assert_memory_equal(got, file, len);
    /* the live stream reads with the same reader */
    assert_int_equal(zvs_mon_write_group(w, false, TOD0 + 96 * SEC, r, event_group(r)), 0);
    struct zvs_mon_reader *rd = zvs_mon_reader_fdopen(pfd[0], &err);
    expect_events(rd, 0);
    zvs_mon_reader_close(rd);
    /* the reader goes away: EPIPE, dropped (and closed) */
    close(pfd[0]);
    assert_int_equal(zvs_mon_write_group(w, true, TOD0, r, sample_group(0, r)), 0);
    assert_false(zvs_mon_writer_subscribed(w));
    assert_int_equal(fcntl(pfd[1], F_GETFD), -1);

    /* a reader that does not keep up: EAGAIN, dropped, the file still written */
    assert_int_equal(pipe(pfd), 0);
    assert_true(fcntl(pfd[1], F_SETPIPE_SZ, BLK) >= 0);
    zvs_mon_writer_subscribe(w, pfd[1]);
    assert_int_equal(zvs_mon_write_group(w, true, TOD0, r, sample_group(0, r)), 0);
    assert_false(zvs_mon_writer_subscribed(w));
    rd = zvs_mon_reader_fdopen(pfd[0], &err);
    expect_error(rd, -ENODATA, BLK, -1, "group at offset 0 truncated after 0 of 1 data blocks");
    zvs_mon_reader_close(rd);
    close(pfd[0]);
    zvs_mon_writer_close(w);
    free(file);
    free(got);
    free(slurp(path, &len));
    assert_int_equal(len, 12 * BLK);
}

static void test_nonblocking_reader(void **state)
{
    int pfd[2];
    int err = 0;
    size_t len;

    write_four(path);
    uint8_t *b = slurp(path, &len);
    assert_int_equal(pipe(pfd), 0);
    assert_int_equal(fcntl(pfd[0], F_SETFL, O_NONBLOCK), 0);
    struct zvs_mon_reader *rd = zvs_mon_reader_fdopen(pfd[0], &err);
    assert_int_equal(write(pfd[1], b, BLK + 100), BLK + 100);
    expect_error(rd, -EAGAIN, BLK + 100, -1, "no more data yet");
    assert_int_equal(write(pfd[1], b + BLK + 100, 3 * BLK - 100), 3 * BLK - 100);
    expect_sample(rd, 0, 0);
    expect_sample(rd, 1, 2 * BLK);
    expect_error(rd, -EAGAIN, 4 * BLK, -1, "no more data yet");
    close(pfd[1]);
    expect_end(rd);
    zvs_mon_reader_close(rd);
    close(pfd[0]);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crc32),
        cmocka_unit_test_setup_teardown(test_block_bytes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_write_read_four, setup, teardown),
        cmocka_unit_test(test_reads_file_written_before),
        cmocka_unit_test_setup_teardown(test_big_group_splits, setup, teardown),
        cmocka_unit_test_setup_teardown(test_block_bytes_v2, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown_version_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_corrupt_data_byte, setup, teardown),
        cmocka_unit_test_setup_teardown(test_corrupt_control_block, setup, teardown),
        cmocka_unit_test_setup_teardown(test_truncated, setup, teardown),
        cmocka_unit_test_setup_teardown(test_writer_pads_torn_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown_record_skipped, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rotation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_subscriber_pipe, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nonblocking_reader, setup, teardown),
    };
    return cmocka_run_group_tests_name("monfile", tests, NULL, NULL);
}
