/* The monitor file in z/VM's MONWRITE framing (layout version 3), against an independent
 * writer and reader written from IBM's pages (monwrite_ibm.h), both ways:
 *  - a file framed as z/VM frames it (control record, frames ending in D1R13, D1R11 at a
 *    sample interval's end, records of other domains interleaved, a record set starting
 *    mid-frame, two entries in one control record) with records at IBM's layouts is read by
 *    perfkit's reader into the right records, FCX240 figures and EVENTS lines;
 *  - a file vswitchd's writer wrote is read by the independent reader, every IBM field
 *    compared with what was written, the framing checked as IBM's pages describe it;
 *  - damage in a version 3 group is reported and the next group still reads, and a file of
 *    version 2 groups appended with version 3 groups reads whole;
 *  - z/VM's D8R1 (MRVNDSES at z/VM 5.3's layout) from the independent writer is read into
 *    FCX269's rows, and one shorter than that layout is refused.
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
#include "monitor/screens.h"
#include "monrec_builders.h"
#include "monwrite_ibm.h"

#define TOD0  MONREC_TOD0              /* 2024-01-01 00:00:30 UTC */
#define SEC   (1000000ull << 12)        /* one second of TOD clock */

/* A record of a domain perfkit does not read, `len` bytes of pattern after its header. */
static size_t other(uint8_t *b, uint8_t domain, uint16_t number, uint16_t len, uint64_t tod)
{
    ibm_hdr(b, len, domain, number, tod);
    for (size_t i = 20; i < len; i++)
        b[i] = (uint8_t)(i * 7 + number);
    return len;
}

static const struct ibm_d6r21 dev_a0 = { 0x2902, 8, 1, "DTCVSW1", 3000000, 6000000,
                                         30000, 30, 0, 60000, 0, 3 };
static const struct ibm_d6r21 dev_b0 = { 0x28BA, 4, 0, "", 1000, 2000, 10, 0, 0, 20, 0, 0 };
/* 30 s later: every delta a multiple of 30 */
static const struct ibm_d6r21 dev_a1 = { 0x2902, 8, 1, "DTCVSW1", 3000000 + 900000,
                                         6000000 + 1800000, 30000 + 900, 30 + 60, 0,
                                         60000 + 1800, 0, 3 + 30 };
static const struct ibm_d6r21 dev_b1 = { 0x28BA, 4, 0, "", 1000 + 300, 2000 + 600, 10 + 30,
                                         0, 0, 20 + 60, 0, 0 };

/* Three groups as z/VM writes them: two sample intervals and an event set. */
static uint8_t *ibm_file(size_t *len)
{
    uint8_t r[600], *file = NULL;
    struct ibm_set s1, s2a, s2b, e;
    struct ibm_set *one[1], *two[2];

    *len = 0;
    /* interval 1: one set starting 256 bytes into its frame */
    ibm_set_begin(&s1, IBM_TYPE_SAMPLE, 0x00A00100, 0x5A);
    ibm_set_add(&s1, r, other(r, 0, 1, 100, TOD0), TOD0);
    ibm_set_add(&s1, r, ibm_put_d6r21(r, TOD0, &dev_a0), TOD0);
    ibm_set_add(&s1, r, other(r, 3, 1, 200, TOD0), TOD0);
    ibm_set_add(&s1, r, ibm_put_d6r21(r, TOD0, &dev_b0), TOD0);
    ibm_set_add(&s1, r, other(r, 4, 3, 64, TOD0), TOD0);
    ibm_set_end_interval(&s1, TOD0);
    one[0] = &s1;
    ibm_file_append(&file, len, one, 1);
    /* interval 2: two entries; the first starts near its frame's end (an early D1R13), the
     * second spans frames with records of another domain */
    uint64_t t1 = TOD0 + 30 * SEC;
    ibm_set_begin(&s2a, IBM_TYPE_SAMPLE, 0x00A03F00, 0x5A);
    ibm_set_add(&s2a, r, other(r, 0, 2, 100, t1), t1);
    ibm_set_add(&s2a, r, ibm_put_d6r21(r, t1, &dev_a1), t1);
    ibm_set_begin(&s2b, IBM_TYPE_SAMPLE, 0x00B00000, 0);
    for (int i = 0; i < 12; i++)
        ibm_set_add(&s2b, r, other(r, 2, 4, 400, t1), t1);
    ibm_set_add(&s2b, r, ibm_put_d6r21(r, t1, &dev_b1), t1);
    ibm_set_end_interval(&s2b, t1);
    two[0] = &s2a;
    two[1] = &s2b;
    ibm_file_append(&file, len, two, 2);
    /* events */
    ibm_set_begin(&e, IBM_TYPE_EVENT, 0x00C00800, 0x33);
    struct ibm_d6r2x f = { "SYSTEM", "VSW1", "DTCVSW1", "ETHGRP", 0x2902, 1, 0x80, 0x05 };
    ibm_set_add(&e, r, ibm_put_d6r22(r, TOD0 + 35 * SEC, &f), t1);
    ibm_set_add(&e, r, other(r, 2, 3, 40, TOD0 + 35 * SEC), t1);
    struct ibm_d6r2x v = { "SYSTEM", "VSW1", "", NULL, 0x2902, 1, 2, 0 };
    ibm_set_add(&e, r, ibm_put_d6r23(r, TOD0 + 36 * SEC, &v), t1);
    struct ibm_d8r23 down = { "SYSTEM", "VSW1", "LNXA", 0xF000, 2, 2, 0 };
    ibm_set_add(&e, r, ibm_put_d8r23(r, 3, TOD0 + 37 * SEC, &down), t1);
    struct ibm_d8r23 up = { "SYSTEM", "VSW1", "LNXUP", 0xF100, 2, 2, 0x80 };
    ibm_set_add(&e, r, ibm_put_d8r23(r, 2, TOD0 + 38 * SEC, &up), t1);
    one[0] = &e;
    ibm_file_append(&file, len, one, 1);
    ibm_set_free(&s1);
    ibm_set_free(&s2a);
    ibm_set_free(&s2b);
    ibm_set_free(&e);
    return file;
}

static void expect_dev(const struct zvs_mon_record *r, const struct ibm_d6r21 *d)
{
    const struct zvs_mon_vswitch_activity *v = &r->u.vsw;

    assert_int_equal(r->domain, 6);
    assert_int_equal(r->number, 21);
    assert_int_equal(v->rdev, d->rdev);
    assert_int_equal(v->queuestorage_mb, d->lanfsv);
    assert_int_equal(v->osa_port, d->osaport);
    assert_string_equal(v->controller, d->vmduser);
    assert_true(v->tx_bytes == d->txbyt && v->rx_bytes == d->rxbyt);
    assert_true(v->tx_packets == d->txpkt && v->tx_discards == d->txdsc &&
                v->tx_errors == d->txerr && v->rx_packets == d->rxpkt &&
                v->rx_discards == d->rxdsc && v->rx_errors == d->rxerr);
    assert_string_equal(v->lan_name, "");       /* IBM has it at an offset not found */
}

/* Copies a group's records: the reader's are valid only until its next call. */
static struct zvs_scr_sample keep(const struct zvs_mon_group *g)
{
    struct zvs_mon_record *c = malloc(sizeof(*c) * (g->nrec ? g->nrec : 1));

    assert_non_null(c);
    memcpy(c, g->rec, sizeof(*c) * g->nrec);
    return (struct zvs_scr_sample){ g->tod, c, g->nrec };
}

static void test_ibm_file_read_by_perfkit(void **state)
{
    size_t len;
    uint8_t *file = ibm_file(&len);
    struct zvs_mon_reader *rd;
    struct zvs_mon_group g;
    struct zvs_mon_read_error e;
    struct zvs_scr_sample s0, s1;
    struct zvs_scr_row *rows;
    double sys[ZVS_SCR_NCOL];
    char out[4096];
    int err = 0;

    /* the independent reader takes its own writer's file: the framing is IBM's */
    size_t off = 0;
    const char *why = "";
    struct ibm_group *ig = malloc(sizeof(*ig));
    for (int i = 0; i < 3; i++)
        assert_int_equal(ibm_read_group(file, len, &off, ig, &why), 1);
    assert_int_equal(ibm_read_group(file, len, &off, ig, &why), 0);
    free(ig);

    rd = zvs_mon_reader_memopen(file, len, &err);
    assert_non_null(rd);
    assert_int_equal(zvs_mon_reader_next(rd, &g, &e), 1);
    assert_true(g.sample);
    assert_true(g.tod == TOD0);                 /* D1R11's TOD */
    assert_int_equal(g.nrec, 2);                /* the other domains' records skipped */
    expect_dev(&g.rec[0], &dev_a0);
    expect_dev(&g.rec[1], &dev_b0);
    s0 = keep(&g);
    assert_int_equal(zvs_mon_reader_next(rd, &g, &e), 1);
    assert_true(g.sample);
    assert_true(g.tod == TOD0 + 30 * SEC);
    assert_int_equal(g.nrec, 2);
    expect_dev(&g.rec[0], &dev_a1);
    expect_dev(&g.rec[1], &dev_b1);
    s1 = keep(&g);

    /* FCX240: rates over the 30 s between the intervals */
    assert_int_equal(zvs_fcx240_rows(&s0, &s1, &rows, sys), 2);
    assert_int_equal(rows[0].rec->u.vsw.rdev, 0x28BA);              /* by RDEV */
    assert_true(rows[0].rate[ZVS_SCR_T_BYTE] == 10.0 && rows[0].rate[ZVS_SCR_T_PACK] == 1.0 &&
                rows[0].rate[ZVS_SCR_R_BYTE] == 20.0 && rows[0].rate[ZVS_SCR_R_PACK] == 2.0);
    assert_true(rows[1].rate[ZVS_SCR_T_BYTE] == 30000.0 &&
                rows[1].rate[ZVS_SCR_T_PACK] == 30.0 && rows[1].rate[ZVS_SCR_T_DISC] == 2.0 &&
                rows[1].rate[ZVS_SCR_R_BYTE] == 60000.0 &&
                rows[1].rate[ZVS_SCR_R_PACK] == 60.0 && rows[1].rate[ZVS_SCR_R_ERR] == 1.0);
    assert_true(sys[ZVS_SCR_T_BYTE] == 15005.0 && sys[ZVS_SCR_R_PACK] == 31.0);  /* mean */
    free(rows);
    assert_true(zvs_fcx240_render(&s0, &s1, out, sizeof(out)) > 0);
    assert_non_null(strstr(out, "28BA"));
    assert_non_null(strstr(out, "2902"));
    free((void *)s0.rec);
    free((void *)s1.rec);

    /* the event set: z/VM's SWITCHOVER flag, LAN types, an UPLINK NIC */
    assert_int_equal(zvs_mon_reader_next(rd, &g, &e), 1);
    assert_false(g.sample);
    assert_int_equal(g.nrec, 4);
    assert_true(g.rec[0].u.vswev.switchover);
    assert_int_equal(g.rec[0].u.vswev.reason, 0);       /* IBM's code is not ours */
    assert_string_equal(g.rec[0].u.vswev.group, "ETHGRP");
    assert_int_equal(g.rec[1].u.vswev.lan_type, 2);
    assert_string_equal(g.rec[1].u.vswev.group, "");
    assert_false(g.rec[2].u.link.uplink);
    assert_true(g.rec[3].u.link.uplink);
    assert_int_equal(g.rec[3].u.link.lan_type, 2);
    assert_true(zvs_events_render(g.rec, g.nrec, out, sizeof(out)) > 0);
    assert_string_equal(out,
        "EVENTS      4 monitor events (zvswitch's list, not a Performance Toolkit screen)\n"
        "Date       Time         Record Event     Vswitch  Addr User     Group    Reason\n"
        "2024/01/01 00:01:05.000 D6R22  failure   VSW1     2902 DTCVSW1  ETHGRP\n"
        "2024/01/01 00:01:06.000 D6R23  recovery  VSW1     2902 *\n"
        "2024/01/01 00:01:07.000 D8R3   link down VSW1     F000 LNXA\n"
        "2024/01/01 00:01:08.000 D8R2   link up   VSW1     F100 LNXUP\n");
    assert_int_equal(zvs_mon_reader_next(rd, &g, &e), 0);
    zvs_mon_reader_close(rd);
    free(file);
}

/* ---- vswitchd's file through the independent reader -------------------------------------- */

static char dir[64], path[96];

static int setup(void **state)
{
    strcpy(dir, "/tmp/test_monwrite.XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/mon", dir);
    return 0;
}

static int teardown(void **state)
{
    unlink(path);
    rmdir(dir);
    return 0;
}

static uint8_t *slurp(const char *p, size_t *len)
{
    struct stat st;
    int fd = open(p, O_RDONLY);
    uint8_t *b;

    assert_true(fd >= 0);
    assert_int_equal(fstat(fd, &st), 0);
    b = malloc((size_t)st.st_size + 1);
    assert_non_null(b);
    assert_int_equal(read(fd, b, (size_t)st.st_size), st.st_size);
    close(fd);
    *len = (size_t)st.st_size;
    return b;
}

#define NDEV 12

static void ours(struct zvs_mon_record *smp, struct zvs_mon_record *ev)
{
    for (int i = 0; i < NDEV; i++) {
        smp[i] = monrec_vswitch((uint16_t)(0x2900 + i), TOD0);
        struct zvs_mon_vswitch_activity *v = &smp[i].u.vsw;
        v->osa_port = (uint8_t)(i & 1);
        v->queuestorage_mb = (uint8_t)(1 + i % 8);
        if (i % 3 == 0)
            memset(v->controller, 0, sizeof(v->controller));   /* none: blanks */
        v->tx_bytes = 0x100000000ull * (uint64_t)i + 11u;
        v->rx_bytes = 0x200000000ull + (uint64_t)i;
        v->tx_packets = 0x300000005ull + (uint64_t)i;   /* low word in IBM's field */
        v->tx_discards = (uint64_t)i;
        v->tx_errors = 2;
        v->rx_packets = 0x1234567ull * (uint64_t)i;
        v->rx_discards = 7;
        v->rx_errors = 0xFFFFFFFFull;
    }
    smp[NDEV] = monrec_vnic(0x0600, TOD0);
    smp[NDEV + 1] = monrec_vnic(0x0700, TOD0);
    ev[0] = monrec_vswitch_event(ZVS_MON_REC_D6R22, TOD0 + SEC);
    ev[0].u.vswev.reason = ZVS_MON_FAIL_LACP_DETACHED;
    ev[0].u.vswev.switchover = true;
    ev[1] = monrec_vswitch_event(ZVS_MON_REC_D6R23, TOD0 + 2 * SEC);
    ev[1].u.vswev.lan_type = ZVS_MON_LANTYPE_QDIO;
    ev[2] = monrec_link(ZVS_MON_REC_D8R2, TOD0 + 3 * SEC);
    ev[2].u.link.lan_type = ZVS_MON_LANTYPE_QDIO;
    ev[2].u.link.uplink = true;
    ev[3] = monrec_link(ZVS_MON_REC_D8R3, TOD0 + 4 * SEC);
}

static void expect_name(const uint8_t *p, const char *want)
{
    char got[9];

    assert_true(ibm_name_get(got, p));
    assert_string_equal(got, want);
}

static void test_ours_read_by_ibm_reader(void **state)
{
    struct zvs_mon_record smp[NDEV + 2], ev[4];
    struct zvs_mon_writer_opts o = { .producer = "zvswitch test" };
    struct ibm_group *g = malloc(sizeof(*g));
    const char *why = "";
    size_t len, off = 0;
    int err = 0;

    ours(smp, ev);
    struct zvs_mon_writer *w = zvs_mon_writer_open(path, &o, &err);
    assert_non_null(w);
    assert_int_equal(zvs_mon_write_group(w, true, TOD0, smp, NDEV + 2), 0);
    assert_int_equal(zvs_mon_write_group(w, false, TOD0 + 5 * SEC, ev, 4), 0);
    zvs_mon_writer_close(w);
    uint8_t *b = slurp(path, &len);

    /* the sample group: one entry, 12 * 580 + 2 * 316 bytes in frames of at most 7
     * D6R21s, D1R13 between them, D1R11 last */
    assert_int_equal(ibm_read_group(b, len, &off, g, &why), 1);
    assert_int_equal(g->type, IBM_TYPE_SAMPLE);
    assert_int_equal(g->nent, 1);
    assert_int_equal(off, 3 * IBM_FRAME);
    assert_int_equal(g->nrec, NDEV + 3);
    for (size_t i = 0; i < 40; i++)             /* IUCV message: only the MCA addresses */
        if (i < 12 || i >= 20)
            assert_int_equal(b[i], 0);
    for (int i = 0; i < NDEV; i++) {
        const struct ibm_rec *r = &g->rec[i];
        const struct zvs_mon_vswitch_activity *v = &smp[i].u.vsw;
        struct ibm_d6r21 d;
        char user[9];

        assert_true(r->domain == 6 && r->number == 21);
        assert_int_equal(r->len, 580);          /* IBM's 492, our fields after */
        ibm_get_d6r21(r->p, &d, user);
        assert_int_equal(d.rdev, v->rdev);
        assert_int_equal(d.lanfsv, v->queuestorage_mb);
        assert_int_equal(d.osaport, v->osa_port);
        assert_string_equal(user, v->controller);
        assert_true(d.txbyt == v->tx_bytes && d.rxbyt == v->rx_bytes);
        assert_true(d.txpkt == (uint32_t)v->tx_packets && d.txdsc == (uint32_t)v->tx_discards &&
                    d.txerr == (uint32_t)v->tx_errors && d.rxpkt == (uint32_t)v->rx_packets &&
                    d.rxdsc == (uint32_t)v->rx_discards && d.rxerr == (uint32_t)v->rx_errors);
        assert_int_equal(r->p[27], 0);          /* IBM's reserved byte */
    }
    assert_true(g->rec[NDEV].domain == 8 && g->rec[NDEV].number == 1);
    assert_true(g->rec[NDEV + 1].domain == 8 && g->rec[NDEV + 1].number == 1);
    for (int i = NDEV; i < NDEV + 2; i++) {     /* MRVNDSES at z/VM 5.3's layout */
        const struct zvs_mon_vnic_activity *v = &smp[i].u.vnic;
        struct ibm_d8r1 d;
        char names[4][9];

        assert_int_equal(g->rec[i].len, 316);
        ibm_get_d8r1(g->rec[i].p, &d, names);
        assert_string_equal(d.owner, v->owner);
        assert_int_equal(d.vdevdev, v->vdev);
        assert_memory_equal(d.nicmac, v->mac, 6);
        assert_int_equal(d.nictranp, v->transport);
        assert_int_equal(d.nictype, v->nic_type);
        assert_string_equal(d.lanowner, v->lan_owner);
        assert_string_equal(d.lanname, v->lan_name);
        assert_int_equal(d.vswitch, v->vswitch);
        assert_true(d.ses[0] == v->tx_bytes && d.ses[1] == v->rx_bytes &&
                    d.ses[2] == v->tx_packets && d.ses[3] == v->tx_discards &&
                    d.ses[4] == v->tx_errors && d.ses[5] == v->rx_packets &&
                    d.ses[6] == v->rx_discards && d.ses[7] == v->rx_errors);
        assert_string_equal(d.swpgroup, v->group);
        assert_memory_equal(g->rec[i].p + 34, g->rec[i].p + 32, 2);     /* NICBASE */
    }
    assert_true(g->rec[NDEV + 2].domain == 1 && g->rec[NDEV + 2].number == 11);
    assert_int_equal(g->rec[NDEV + 2].len, 20);
    assert_memory_equal(g->rec[NDEV + 2].p + 8, "\xDE\x6E\x75\xAA\x78\x38\x00\x00", 8);

    /* the event group: IBM's fields of MRIODVSF, MRIODVSR, MRVNDLSU */
    assert_int_equal(ibm_read_group(b, len, &off, g, &why), 1);
    assert_int_equal(g->type, IBM_TYPE_EVENT);
    assert_int_equal(g->nrec, 4);               /* no D1R11, no D1R13 */
    const uint8_t *f = g->rec[0].p, *r = g->rec[1].p;
    expect_name(f + 20, "SYSTEM");
    expect_name(f + 28, "VSW1");
    expect_name(f + 36, "DTCVSW1");
    assert_true(f[44] == 0x06 && f[45] == 0x03 && f[46] == 0);
    assert_int_equal(f[47], 0x80);              /* IODVSF_SWITCHOVER */
    expect_name(f + 52, "");
    expect_name(f + 68, "ETHGRP");
    assert_int_equal(f[76], 0);                 /* IBM's reason: not our code */
    assert_int_equal(g->rec[0].len, 88);
    expect_name(r + 20, "SYSTEM");
    expect_name(r + 28, "VSW1");
    expect_name(r + 36, "DTCVSW1");
    assert_true(r[44] == 0x06 && r[45] == 0x03);
    assert_int_equal(r[47], 2);                 /* IODVSR_LANTYPE QDIO */
    assert_int_equal(g->rec[1].len, 88);
    for (int i = 2; i < 4; i++) {
        const uint8_t *l = g->rec[i].p;
        assert_int_equal(g->rec[i].len, 60);
        assert_int_equal(g->rec[i].number, i);
        expect_name(l + 20, "SYSTEM");
        expect_name(l + 28, "VSW1");
        expect_name(l + 36, "LINUX02");
        assert_true(l[44] == 0x07 && l[45] == 0x00 && l[46] == 2);
        assert_int_equal(l[47], i == 2 ? 2 : 0);
        assert_int_equal(l[56], i == 2 ? 0x80 : 0);
    }
    assert_int_equal(ibm_read_group(b, len, &off, g, &why), 0);
    free(g);

    /* and perfkit's reader reads every field back, ours included */
    struct zvs_mon_reader *rd = zvs_mon_reader_memopen(b, len, &err);
    struct zvs_mon_group grp;
    struct zvs_mon_read_error e;
    assert_int_equal(zvs_mon_reader_next(rd, &grp, &e), 1);
    assert_int_equal(grp.nrec, NDEV + 2);
    assert_true(grp.tod == TOD0);
    assert_memory_equal(grp.rec, smp, sizeof(smp));
    assert_int_equal(zvs_mon_reader_next(rd, &grp, &e), 1);
    assert_int_equal(grp.nrec, 4);
    assert_true(grp.tod == TOD0 + 5 * SEC);
    assert_memory_equal(grp.rec, ev, sizeof(ev));
    assert_int_equal(zvs_mon_reader_next(rd, &grp, &e), 0);
    zvs_mon_reader_close(rd);
    free(b);
}

/* ---- damage, and files of both framings ------------------------------------------------ */

static void expect_error(struct zvs_mon_reader *rd, int rc, uint64_t offset, const char *what)
{
    struct zvs_mon_group grp;
    struct zvs_mon_read_error e;

    memset(&e, 0, sizeof(e));
    assert_int_equal(zvs_mon_reader_next(rd, &grp, &e), rc);
    if (e.offset != offset)
        fail_msg("offset %llu, want %llu (%s)", (unsigned long long)e.offset,
                 (unsigned long long)offset, e.what);
    assert_string_equal(e.what, what);
}

static void expect_group(struct zvs_mon_reader *rd, bool sample, unsigned nrec)
{
    struct zvs_mon_group grp;
    struct zvs_mon_read_error e;

    assert_int_equal(zvs_mon_reader_next(rd, &grp, &e), 1);
    assert_int_equal(grp.sample, sample);
    assert_int_equal(grp.nrec, nrec);
}

static void test_damage_and_mixed_framings(void **state)
{
    struct zvs_mon_record smp[NDEV + 2], ev[4];
    const struct zvs_mon_writer_opts v2 = { .format_version = ZVS_MON_FORMAT_V2 };
    struct zvs_mon_reader *rd;
    size_t len;
    int err = 0;

    ours(smp, ev);
    /* version 2 groups, then version 4 groups appended: both read */
    struct zvs_mon_writer *w = zvs_mon_writer_open(path, &v2, &err);
    assert_int_equal(zvs_mon_write_group(w, true, TOD0, smp, NDEV + 2), 0);
    zvs_mon_writer_close(w);
    w = zvs_mon_writer_open(path, NULL, &err);
    assert_int_equal(zvs_mon_write_group(w, true, TOD0, smp, NDEV + 2), 0);
    assert_int_equal(zvs_mon_write_group(w, false, TOD0, ev, 4), 0);
    assert_int_equal(zvs_mon_write_group(w, false, TOD0, ev, 0), 0);   /* nothing */
    zvs_mon_writer_close(w);
    uint8_t *b = slurp(path, &len);
    size_t v3 = 3 * IBM_FRAME;                  /* v2 group: control + 2 data blocks */
    assert_int_equal(len, v3 + 3 * IBM_FRAME + 2 * IBM_FRAME + IBM_FRAME);
    rd = zvs_mon_reader_memopen(b, len, &err);
    expect_group(rd, true, NDEV + 2);
    expect_group(rd, true, NDEV + 2);
    expect_group(rd, false, 4);
    expect_group(rd, false, 0);
    zvs_mon_reader_close(rd);

    /* a data byte: the group is reported, the next one reads */
    b[v3 + IBM_FRAME + 100] ^= 1;
    rd = zvs_mon_reader_memopen(b, len, &err);
    expect_group(rd, true, NDEV + 2);
    expect_error(rd, -EBADMSG, v3 + IBM_FRAME, "data pages checksum mismatch (2 pages)");
    expect_group(rd, false, 4);
    zvs_mon_reader_close(rd);
    b[v3 + IBM_FRAME + 100] ^= 1;

    /* our area (the producer): the control record is refused, reading starts again at the
     * next control record */
    b[v3 + 4016 + 30] ^= 1;
    rd = zvs_mon_reader_memopen(b, len, &err);
    expect_group(rd, true, NDEV + 2);
    expect_error(rd, -EBADMSG, v3, "control record checksum mismatch");
    expect_group(rd, false, 4);
    zvs_mon_reader_close(rd);
    b[v3 + 4016 + 30] ^= 1;

    /* a newer writer's version in our area: said, nothing after it guessed at */
    b[v3 + 4016 + 4] = 5;
    memset(b + v3 + 4016 + 76, 0, 4);
    uint32_t crc = zvs_mon_crc32(0, b + v3, IBM_FRAME);
    b[v3 + 4016 + 76] = (uint8_t)(crc >> 24);
    b[v3 + 4016 + 77] = (uint8_t)(crc >> 16);
    b[v3 + 4016 + 78] = (uint8_t)(crc >> 8);
    b[v3 + 4016 + 79] = (uint8_t)crc;
    rd = zvs_mon_reader_memopen(b, len, &err);
    expect_group(rd, true, NDEV + 2);
    expect_error(rd, -EPROTONOSUPPORT, v3, "monitor file format version 5, this reader knows "
                 "versions 1-4 (read it with the perfkit of the zvswitch that wrote it)");
    struct zvs_mon_group grp;
    assert_int_equal(zvs_mon_reader_next(rd, &grp, NULL), 0);
    zvs_mon_reader_close(rd);
    free(b);
}

/* z/VM's own file, damaged: a record spanning its frame, an entry whose frames are not all
 * in the file. */
/* The system's name rides in our area beside the producer: read back as written, absent
 * ("") from a writer that gave none, a 44-character producer of a file without it is still
 * read whole, and a name no reader would take back is refused when the writer opens. */
static void test_system_name(void **state)
{
    static const char long_producer[] = "zvswitch 0.3.0+git999.g0123456789abcdef01234";
    struct zvs_mon_record smp[NDEV + 2], ev[4];
    struct zvs_mon_writer_opts with = { .producer = long_producer, .system = "LABSYS01" };
    struct zvs_mon_writer_opts without = { .producer = long_producer };
    struct zvs_mon_writer_opts bad = { .system = "TOOLONG12" };
    struct zvs_mon_writer_opts ctl = { .system = "A\tB" };
    struct zvs_mon_group g;
    struct zvs_mon_read_error e;
    int err = 0;

    assert_int_equal(strlen(long_producer), 44);
    ours(smp, ev);
    struct zvs_mon_writer *w = zvs_mon_writer_open(path, &with, &err);
    assert_non_null(w);
    assert_int_equal(zvs_mon_write_group(w, true, TOD0, smp, NDEV + 2), 0);
    zvs_mon_writer_close(w);
    w = zvs_mon_writer_open(path, &without, &err);
    assert_non_null(w);
    assert_int_equal(zvs_mon_write_group(w, false, TOD0 + SEC, ev, 4), 0);
    zvs_mon_writer_close(w);

    struct zvs_mon_reader *rd = zvs_mon_reader_open(path, &err);
    assert_non_null(rd);
    assert_int_equal(zvs_mon_reader_next(rd, &g, &e), 1);
    assert_true(g.sample);
    assert_string_equal(g.system, "LABSYS01");
    assert_int_equal(zvs_mon_reader_next(rd, &g, &e), 1);
    assert_false(g.sample);
    assert_string_equal(g.system, "");
    assert_int_equal(zvs_mon_reader_next(rd, &g, &e), 0);
    zvs_mon_reader_close(rd);

    size_t len;
    uint8_t *b = slurp(path, &len);
    assert_memory_equal(b + 4044, long_producer, 36);      /* cut to make room */
    assert_memory_equal(b + 4080, "LABSYS01", 8);
    size_t second = len - 2 * ZVS_MON_BLOCK;                /* the event group: 1 frame */
    assert_memory_equal(b + second + 4044, long_producer, 44);
    free(b);

    assert_null(zvs_mon_writer_open(path, &bad, &err));
    assert_int_equal(err, -EINVAL);
    assert_null(zvs_mon_writer_open(path, &ctl, &err));
    assert_int_equal(err, -EINVAL);
}

static void test_ibm_file_damage(void **state)
{
    uint8_t r[100], *f = NULL;
    size_t flen = 0;
    struct ibm_set s;
    struct ibm_set *one[1] = { &s };
    struct zvs_mon_reader *rd;
    int err = 0;

    ibm_set_begin(&s, IBM_TYPE_EVENT, 0x00C00F80, 0);
    ibm_set_add(&s, r, other(r, 2, 3, 40, TOD0), TOD0);     /* 0xF80-0xFA7 */
    ibm_set_add(&s, r, other(r, 2, 3, 100, TOD0), TOD0);    /* D1R13 at 0xFA8, next frame */
    ibm_file_append(&f, &flen, one, 1);
    ibm_set_free(&s);
    assert_int_equal(flen, 3 * IBM_FRAME);
    rd = zvs_mon_reader_memopen(f, flen, &err);
    expect_group(rd, false, 0);                 /* domain 2: nothing perfkit reads */
    zvs_mon_reader_close(rd);

    f[IBM_FRAME + 0xFA8 + 1] = 96;              /* the D1R13 made a 96-byte D2R3 */
    f[IBM_FRAME + 0xFA8 + 4] = 2;
    f[IBM_FRAME + 0xFA8 + 7] = 3;
    rd = zvs_mon_reader_memopen(f, flen, &err);
    expect_error(rd, -EBADMSG, IBM_FRAME + 0xFA8, "record of length 96 spans a frame");
    zvs_mon_reader_close(rd);

    rd = zvs_mon_reader_memopen(f, flen - IBM_FRAME, &err);     /* its second frame gone */
    expect_error(rd, -ENODATA, 2 * IBM_FRAME,
                 "group at offset 0 truncated after 1 of 2 data blocks");
    zvs_mon_reader_close(rd);
    free(f);
}

/* ---- z/VM's D8R1 (MRVNDSES, z/VM 5.3) into FCX269 ------------------------------------ */

static const struct ibm_d8r1 nic_a0 = { "LNXA", "SYSTEM", "VSW1", "ETHGRP", 0xF000,
                                        { 2, 0, 0, 0, 0, 0x0A }, 2, 2, 1,
                                        { 1000, 2000, 10, 0, 0, 20, 0, 0 } };
static const struct ibm_d8r1 nic_b0 = { "LNXB", "SYSTEM", "VSW1", "", 0x0600,
                                        { 2, 0, 0, 0, 0, 0x0B }, 2, 2, 1,
                                        { 0, 0, 0, 0, 0, 0, 0, 0 } };
/* 30 s later: every delta a multiple of 30 */
static const struct ibm_d8r1 nic_a1 = { "LNXA", "SYSTEM", "VSW1", "ETHGRP", 0xF000,
                                        { 2, 0, 0, 0, 0, 0x0A }, 2, 2, 1,
                                        { 1000 + 90000, 2000 + 180000, 10 + 60, 30, 0,
                                          20 + 120, 0, 60 } };
static const struct ibm_d8r1 nic_b1 = { "LNXB", "SYSTEM", "VSW1", "", 0x0600,
                                        { 2, 0, 0, 0, 0, 0x0B }, 2, 2, 1,
                                        { 3000, 0, 30, 0, 0, 0, 0, 0 } };

static void ibm_d8r1_interval(uint8_t **file, size_t *len, uint64_t tod,
                              const struct ibm_d8r1 *a, const struct ibm_d8r1 *b)
{
    uint8_t r[400];
    struct ibm_set s;
    struct ibm_set *one[1] = { &s };

    ibm_set_begin(&s, IBM_TYPE_SAMPLE, 0x00A00200, 0x5A);
    ibm_set_add(&s, r, ibm_put_d8r1(r, tod, a), tod);
    ibm_set_add(&s, r, other(r, 8, 4, 80, tod), tod);          /* a record we do not read */
    ibm_set_add(&s, r, ibm_put_d8r1(r, tod, b), tod);
    ibm_set_end_interval(&s, tod);
    ibm_file_append(file, len, one, 1);
    ibm_set_free(&s);
}

static void expect_nic(const struct zvs_mon_record *r, const struct ibm_d8r1 *d)
{
    const struct zvs_mon_vnic_activity *v = &r->u.vnic;

    assert_true(r->domain == 8 && r->number == 1);
    assert_string_equal(v->owner, d->owner);
    assert_int_equal(v->vdev, d->vdevdev);
    assert_memory_equal(v->mac, d->nicmac, 6);
    assert_string_equal(v->lan_owner, d->lanowner);
    assert_string_equal(v->lan_name, d->lanname);
    assert_string_equal(v->group, d->swpgroup);
    assert_true(v->transport == d->nictranp && v->nic_type == d->nictype && v->vswitch == 1);
    assert_true(v->tx_bytes == d->ses[0] && v->rx_bytes == d->ses[1] &&
                v->tx_packets == d->ses[2] && v->tx_discards == d->ses[3] &&
                v->tx_errors == d->ses[4] && v->rx_packets == d->ses[5] &&
                v->rx_discards == d->ses[6] && v->rx_errors == d->ses[7]);
}

static void test_ibm_d8r1_fcx269(void **state)
{
    uint8_t *file = NULL;
    size_t len = 0;
    struct zvs_mon_reader *rd;
    struct zvs_mon_group g;
    struct zvs_mon_read_error e;
    struct zvs_scr_sample s0, s1;
    struct zvs_scr_row *rows;
    double sys[ZVS_SCR_NCOL];
    char out[4096];
    int err = 0;

    ibm_d8r1_interval(&file, &len, TOD0, &nic_a0, &nic_b0);
    ibm_d8r1_interval(&file, &len, TOD0 + 30 * SEC, &nic_a1, &nic_b1);
    rd = zvs_mon_reader_memopen(file, len, &err);
    assert_non_null(rd);
    assert_int_equal(zvs_mon_reader_next(rd, &g, &e), 1);
    assert_int_equal(g.nrec, 2);
    expect_nic(&g.rec[0], &nic_a0);
    expect_nic(&g.rec[1], &nic_b0);
    s0 = keep(&g);
    assert_int_equal(zvs_mon_reader_next(rd, &g, &e), 1);
    assert_int_equal(g.nrec, 2);
    expect_nic(&g.rec[0], &nic_a1);
    expect_nic(&g.rec[1], &nic_b1);
    s1 = keep(&g);
    assert_int_equal(zvs_mon_reader_next(rd, &g, &e), 0);
    zvs_mon_reader_close(rd);

    /* FCX269: by Addr, rates over the 30 s */
    assert_int_equal(zvs_fcx269_rows(&s0, &s1, &rows, sys), 2);
    assert_int_equal(rows[0].rec->u.vnic.vdev, 0x0600);
    assert_true(rows[0].rate[ZVS_SCR_T_BYTE] == 100.0 && rows[0].rate[ZVS_SCR_T_PACK] == 1.0 &&
                rows[0].rate[ZVS_SCR_R_BYTE] == 0.0);
    assert_int_equal(rows[1].rec->u.vnic.vdev, 0xF000);
    assert_true(rows[1].rate[ZVS_SCR_T_BYTE] == 3000.0 && rows[1].rate[ZVS_SCR_T_PACK] == 2.0 &&
                rows[1].rate[ZVS_SCR_T_DISC] == 1.0 && rows[1].rate[ZVS_SCR_R_BYTE] == 6000.0 &&
                rows[1].rate[ZVS_SCR_R_PACK] == 4.0 && rows[1].rate[ZVS_SCR_R_ERR] == 2.0);
    free(rows);
    assert_true(zvs_fcx269_render(&s0, &s1, out, sizeof(out)) > 0);
    assert_non_null(strstr(out, "0600 SYSTEM   VSW1     LNXB     0600 ........ X 2 Q"));
    assert_non_null(strstr(out, "F000 SYSTEM   VSW1     LNXA     F000 ETHGRP   X 2 Q"));
    free((void *)s0.rec);
    free((void *)s1.rec);
    free(file);
}

/* A z/VM D8R1 shorter than MRVNDSES's 316 bytes is refused, never read past its end. */
static void test_ibm_d8r1_short(void **state)
{
    uint8_t r[400], *file = NULL;
    size_t len = 0;
    struct ibm_set s;
    struct ibm_set *one[1] = { &s };
    struct zvs_mon_reader *rd;
    struct zvs_mon_group g;
    struct zvs_mon_read_error e;
    int err = 0;

    ibm_set_begin(&s, IBM_TYPE_SAMPLE, 0x00A00000, 0);
    ibm_put_d8r1(r, TOD0, &nic_a0);
    r[0] = 0;
    r[1] = 128;                         /* our first layout's length, in a z/VM file */
    ibm_set_add(&s, r, 128, TOD0);
    ibm_set_end_interval(&s, TOD0);
    ibm_file_append(&file, &len, one, 1);
    ibm_set_free(&s);
    ibm_d8r1_interval(&file, &len, TOD0 + 30 * SEC, &nic_a1, &nic_b1);
    rd = zvs_mon_reader_memopen(file, len, &err);
    memset(&e, 0, sizeof(e));
    assert_int_equal(zvs_mon_reader_next(rd, &g, &e), -EBADMSG);
    assert_true(e.offset == IBM_FRAME);         /* the record, first in the first frame */
    assert_int_equal(zvs_mon_reader_next(rd, &g, &e), 1);      /* the next group reads */
    assert_int_equal(g.nrec, 2);
    zvs_mon_reader_close(rd);
    free(file);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ibm_file_read_by_perfkit),
        cmocka_unit_test_setup_teardown(test_ours_read_by_ibm_reader, setup, teardown),
        cmocka_unit_test_setup_teardown(test_damage_and_mixed_framings, setup, teardown),
        cmocka_unit_test(test_ibm_file_damage),
        cmocka_unit_test(test_ibm_d8r1_fcx269),
        cmocka_unit_test(test_ibm_d8r1_short),
        cmocka_unit_test_setup_teardown(test_system_name, setup, teardown),
    };
    return cmocka_run_group_tests_name("monwrite", tests, NULL, NULL);
}
