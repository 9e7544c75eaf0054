/* Tests of the Performance Toolkit screens (FCX240, FCX269, PGROUP), the export, the chart
 * and the report. Monitor data is built by hand as struct zvs_mon_record arrays whose
 * counter deltas over 30 s give exactly the per-second values of the seed report's
 * examples; the rendered screens are compared byte for byte with tests/golden/screens/
 * and, column for column, with the report's own text (which truncates the right side).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "monitor/screens.h"

#ifndef GOLDEN_DIR
#define GOLDEN_DIR "tests/golden/screens"
#endif

static char big[65536];

/* TOD of a UTC date and time. */
static uint64_t tod_of(int y, int mo, int d, int h, int mi, int s)
{
    struct tm tm = { .tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d,
                     .tm_hour = h, .tm_min = mi, .tm_sec = s };
    uint64_t t = (uint64_t)timegm(&tm);
    return ZVS_MON_TOD_UNIX_EPOCH + ((t * 1000000u) << 12);
}

/* Counters of the previous sample: non-zero so deltas, not totals, are shown. */
#define BASE 1000000000ull

static struct zvs_mon_record vsw(uint16_t rdev, const char *name, const char *ctl,
                                 uint64_t tb, uint64_t tp, uint64_t td,
                                 uint64_t rb, uint64_t rp, uint64_t rd)
{
    struct zvs_mon_record r;
    memset(&r, 0, sizeof(r));
    r.domain = ZVS_MON_DOMAIN_IO;
    r.number = ZVS_MON_REC_D6R21;
    r.u.vsw.rdev = rdev;
    r.u.vsw.queuestorage_mb = 1;
    snprintf(r.u.vsw.lan_owner, sizeof(r.u.vsw.lan_owner), "SYSTEM");
    snprintf(r.u.vsw.lan_name, sizeof(r.u.vsw.lan_name), "%s", name);
    snprintf(r.u.vsw.controller, sizeof(r.u.vsw.controller), "%s", ctl);
    snprintf(r.u.vsw.group, sizeof(r.u.vsw.group), "CCBGROUP");
    r.u.vsw.tx_bytes = BASE + tb;
    r.u.vsw.tx_packets = BASE + tp;
    r.u.vsw.tx_discards = BASE + td;
    r.u.vsw.rx_bytes = BASE + rb;
    r.u.vsw.rx_packets = BASE + rp;
    r.u.vsw.rx_discards = BASE + rd;
    r.u.vsw.tx_errors = BASE;
    r.u.vsw.rx_errors = BASE;
    r.u.vsw.interval_s = 30;
    return r;
}

/* The previous sample of a record: every counter at BASE. */
static struct zvs_mon_record vsw_base(struct zvs_mon_record r)
{
    return vsw(r.u.vsw.rdev, r.u.vsw.lan_name, r.u.vsw.controller, 0, 0, 0, 0, 0, 0);
}

static struct zvs_mon_record vnic(uint16_t vdev, const char *lan, const char *owner,
                                  const char *group, uint8_t transport, uint8_t type,
                                  uint64_t tb, uint64_t tp, uint64_t rb, uint64_t rp)
{
    struct zvs_mon_record r;
    memset(&r, 0, sizeof(r));
    r.domain = ZVS_MON_DOMAIN_NET;
    r.number = ZVS_MON_REC_D8R1;
    r.u.vnic.vdev = vdev;
    snprintf(r.u.vnic.owner, sizeof(r.u.vnic.owner), "%s", owner);
    snprintf(r.u.vnic.lan_owner, sizeof(r.u.vnic.lan_owner), "SYSTEM");
    snprintf(r.u.vnic.lan_name, sizeof(r.u.vnic.lan_name), "%s", lan);
    snprintf(r.u.vnic.group, sizeof(r.u.vnic.group), "%s", group);
    r.u.vnic.vswitch = group[0] != '\0';
    r.u.vnic.transport = transport;
    r.u.vnic.nic_type = type;
    r.u.vnic.tx_bytes = BASE + tb;
    r.u.vnic.tx_packets = BASE + tp;
    r.u.vnic.rx_bytes = BASE + rb;
    r.u.vnic.rx_packets = BASE + rp;
    r.u.vnic.tx_discards = r.u.vnic.rx_discards = BASE;
    r.u.vnic.tx_errors = r.u.vnic.rx_errors = BASE;
    return r;
}

static struct zvs_mon_record vnic_base(struct zvs_mon_record r)
{
    struct zvs_mon_record p = r;
    p.u.vnic.tx_bytes = p.u.vnic.tx_packets = p.u.vnic.rx_bytes = p.u.vnic.rx_packets = BASE;
    return p;
}

static char *slurp(const char *name)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", GOLDEN_DIR, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        print_error("cannot open %s\n", path);
        return NULL;
    }
    static char buf[65536];
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

/* Byte-for-byte comparison with the golden file; ZVS_GOLDEN_UPDATE=1 rewrites it. */
static void check_golden(const char *name, const char *got)
{
    if (getenv("ZVS_GOLDEN_UPDATE")) {
        char path[512];
        snprintf(path, sizeof(path), "%s/%s", GOLDEN_DIR, name);
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        fputs(got, f);
        fclose(f);
    }
    const char *want = slurp(name);
    assert_non_null(want);
    assert_string_equal(got, want);
}

/* Every line of the report's text is the start of the same line of the screen: the
 * report cuts the screen's right side, nothing else differs. */
static void check_report_prefix(const char *screen, const char *const *report, unsigned n)
{
    const char *p = screen;
    for (unsigned i = 0; i < n; i++) {
        const char *eol = strchr(p, '\n');
        assert_non_null(eol);
        size_t len = strlen(report[i]);
        if ((size_t)(eol - p) < len || memcmp(p, report[i], len) != 0) {
            print_error("line %u:\n got  '%.*s'\n want '%s'\n", i, (int)(eol - p), p,
                        report[i]);
            fail();
        }
        p = eol + 1;
    }
    assert_int_equal(*p, '\0');         /* no extra lines */
}

/* ---- number rules ------------------------------------------------------------------- */

static void expect_int6(double v, const char *want)
{
    char s[16];
    zvs_scr_fmt_int6(v, s, sizeof(s));
    assert_string_equal(s, want);
}

static void expect_dec6(double v, const char *want)
{
    char s[16];
    zvs_scr_fmt_dec6(v, s, sizeof(s));
    assert_string_equal(s, want);
}

static void test_fmt_int6(void **state)
{
    expect_int6(0, "0");
    expect_int6(0.49, "0");
    expect_int6(5, "5");
    expect_int6(677430.5, "677431");    /* the report's System T_Byte */
    expect_int6(10262.48, "10262");
    expect_int6(999999.49, "999999");
    expect_int6(999999.5, "1000k");     /* does not fit 6 characters once rounded */
    expect_int6(1397977, "1398k");
    expect_int6(77124000, "77124k");
    expect_int6(99999499, "99999k");
    expect_int6(99999500, "100M");
    expect_int6(100062000, "100M");
    expect_int6(123000000, "123M");
    expect_int6(99999499999.0, "99999M");
    expect_int6(99999500000.0, "100G");
    expect_int6(-1, "0");
}

static void test_fmt_dec6(void **state)
{
    expect_dec6(0, ".0");
    expect_dec6(0.04, ".0");
    expect_dec6(0.05, ".1");
    expect_dec6(0.96, "1.0");
    expect_dec6(12.34, "12.3");
    expect_dec6(999.94, "999.9");
    expect_dec6(999.95, "1000");
    expect_dec6(2566.25, "2566");
    expect_dec6(169398.375, "169398");
    expect_dec6(30745000, "30745k");
    expect_dec6(123000000, "123M");
}

/* ---- FCX240 ------------------------------------------------------------------------- */

/* The seed report, "STR, both OSAs fully loaded" (its one-column indent removed). */
static const char *const fcx240_both_report[] = {
    "FCX240      Data for 2007/04/13  Interval 15:34:10 - 15:34:40    Monitor",
    "____ .         .              .       .      .      .      .      .      .",
    "                         Q Time  <--- Outbound/s ---> <--- Inbound/s ---->",
    "                         S  Out   Bytes <--Packets-->  Bytes <--Packets-->",
    "Addr     Name  Controlr  V  Sec  T_Byte T_Pack T_Disc R_Byte R_Pack R_Disc",
    ">>      System       <<  1  300  677431  10262      0   123M  81588      0",
    "28BA CCBVSW1   TCPCB1    1  300  677585  10265      0   123M  81595      0",
    "2902 CCBVSW1   TCPCB1    1  300  677276  10260      0   123M  81581      0",
};

/* "STR, one OSA loaded the other is not". */
static const char *const fcx240_split_report[] = {
    "FCX240      Data for 2007/04/13  Interval 15:42:22 - 15:42:52    Monitor",
    "____ .         .              .       .      .      .      .      .      .",
    "                         Q Time  <--- Outbound/s ---> <--- Inbound/s ---->",
    "                         S  Out   Bytes <--Packets-->  Bytes <--Packets-->",
    "Addr     Name  Controlr  V  Sec  T_Byte T_Pack T_Disc R_Byte R_Pack R_Disc",
    ">>      System       <<  1  300  698991  10589      0   100M  66628      0",
    "28BA CCBVSW1   TCPCB1    1  300       5      0      0   123M  81951      0",
    "2902 CCBVSW1   TCPCB1    1  300   1398k  21179      0 77124k  51305      0",
};

static void render240(struct zvs_mon_record *cur, unsigned n, uint64_t t0, uint64_t t1)
{
    struct zvs_mon_record prevrec[8];
    assert_true(n <= 8);
    for (unsigned i = 0; i < n; i++)
        prevrec[i] = vsw_base(cur[i]);
    struct zvs_scr_sample prev = { .tod = t0, .rec = prevrec, .nrec = n };
    struct zvs_scr_sample now = { .tod = t1, .rec = cur, .nrec = n };
    int len = zvs_fcx240_render(&prev, &now, big, sizeof(big));
    assert_true(len > 0);
    assert_int_equal((size_t)len, strlen(big));
}

static void test_fcx240_both(void **state)
{
    /* 30 s: every delta is 30 x the report's per-second value; 2902's 307799 packets
     * are 10259.97/s, which the report's System 10262 (not 10263) needs. */
    struct zvs_mon_record cur[2] = {
        vsw(0x2902, "CCBVSW1", "TCPCB1", 20318280, 307799, 0, 3690000000ull, 2447430, 0),
        vsw(0x28BA, "CCBVSW1", "TCPCB1", 20327550, 307950, 0, 3690000000ull, 2447850, 0),
    };
    render240(cur, 2, tod_of(2007, 4, 13, 15, 34, 10), tod_of(2007, 4, 13, 15, 34, 40));
    check_report_prefix(big, fcx240_both_report, 8);
    check_golden("fcx240_both.txt", big);
}

static void test_fcx240_split(void **state)
{
    /* 28BA: 150 bytes in 2 packets (5/s, 0/s); 2902: 635367 packets = 21178.9/s. */
    struct zvs_mon_record cur[2] = {
        vsw(0x28BA, "CCBVSW1", "TCPCB1", 150, 2, 0, 3690000000ull, 2458530, 0),
        vsw(0x2902, "CCBVSW1", "TCPCB1", 41939310, 635367, 0, 2313720000ull, 1539150, 0),
    };
    render240(cur, 2, tod_of(2007, 4, 13, 15, 42, 22), tod_of(2007, 4, 13, 15, 42, 52));
    check_report_prefix(big, fcx240_split_report, 8);
    check_golden("fcx240_split.txt", big);
}

/* Time Out Sec is the record's IODVSW_LANIPTO (30-second ticks) times 30: IPTIMEOUT 10 (20
 * ticks) shows 600, 3 minutes 180; a record that left it 0 (an older zvswitch's) shows the
 * default 300; the System row is the rows' mean (600 + 180 + 300 = 1080 / 3 = 360). */
static void test_fcx240_iptimeout(void **state)
{
    struct zvs_mon_record cur[3] = {
        vsw(0x28BA, "CCBVSW1", "TCPCB1", 0, 0, 0, 0, 0, 0),
        vsw(0x2902, "CCBVSW2", "TCPCB1", 0, 0, 0, 0, 0, 0),
        vsw(0x2A00, "CCBVSW3", "TCPCB1", 0, 0, 0, 0, 0, 0),
    };
    cur[0].u.vsw.iptimeout_ticks = 20;
    cur[1].u.vsw.iptimeout_ticks = 6;
    render240(cur, 3, tod_of(2007, 4, 13, 15, 34, 10), tod_of(2007, 4, 13, 15, 34, 40));
    const char *rows = strstr(big, ">>");
    assert_non_null(rows);
    assert_memory_equal(rows, ">>      System       <<  1  360 ", 32);
    assert_non_null(strstr(rows, "\n28BA CCBVSW1   TCPCB1    1  600 "));
    assert_non_null(strstr(rows, "\n2902 CCBVSW2   TCPCB1    1  180 "));
    assert_non_null(strstr(rows, "\n2A00 CCBVSW3   TCPCB1    1  300 "));
}

static void test_fcx240_reset_new_errors(void **state)
{
    /* 0x0600: no previous sample (counts from zero); 0x0700: its counter went back
     * (reset: counts from zero); 0x0800: errors and discards, queuestorage 8. */
    struct zvs_mon_record prevrec[2], cur[3];
    memset(&cur[0], 0, sizeof(cur[0]));
    cur[0] = vsw(0x0600, "VSW2", "DTCVSW2", 0, 0, 0, 0, 0, 0);
    cur[0].u.vsw.tx_bytes = 300;
    cur[0].u.vsw.tx_packets = cur[0].u.vsw.tx_discards = cur[0].u.vsw.tx_errors = 0;
    cur[0].u.vsw.rx_bytes = cur[0].u.vsw.rx_packets = 0;
    cur[0].u.vsw.rx_discards = cur[0].u.vsw.rx_errors = 0;
    prevrec[0] = vsw(0x0700, "VSW2", "DTCVSW2", 0, 0, 0, 0, 0, 0);
    cur[1] = vsw(0x0700, "VSW2", "DTCVSW2", 0, 0, 0, 0, 0, 0);
    cur[1].u.vsw.tx_bytes = 60;         /* below BASE: reset */
    prevrec[1] = vsw(0x0800, "VSW2", "DTCVSW2", 0, 0, 0, 0, 0, 0);
    cur[2] = vsw(0x0800, "VSW2", "DTCVSW2", 0, 0, 30, 0, 0, 3);
    cur[2].u.vsw.queuestorage_mb = 8;
    cur[2].u.vsw.tx_errors += 60;
    cur[2].u.vsw.rx_errors += 7;        /* 0.23/s: rounds to 0 */
    struct zvs_scr_sample prev = { .tod = tod_of(2026, 1, 2, 23, 59, 50), .rec = prevrec,
                                   .nrec = 2 };
    struct zvs_scr_sample now = { .tod = tod_of(2026, 1, 3, 0, 0, 20), .rec = cur, .nrec = 3 };
    int len = zvs_fcx240_render(&prev, &now, big, sizeof(big));
    assert_true(len > 0);
    const char *want =
        "FCX240      Data for 2026/01/03  Interval 23:59:50 - 00:00:20    Monitor\n"
        "____ .         .              .       .      .      .      .      .      .      .      .\n"
        "                         Q Time  <--- Outbound/s ---> <--- Inbound/s ----> <--Errors/s->\n"
        "                         S  Out   Bytes <--Packets-->  Bytes <--Packets-->\n"
        "Addr     Name  Controlr  V  Sec  T_Byte T_Pack T_Disc R_Byte R_Pack R_Disc  T_Err  R_Err\n"
        ">>      System       <<  3  300       4      0      0      0      0      0      1      0\n"
        "0600 VSW2      DTCVSW2   1  300      10      0      0      0      0      0      0      0\n"
        "0700 VSW2      DTCVSW2   1  300       2      0      0      0      0      0      0      0\n"
        "0800 VSW2      DTCVSW2   8  300       0      0      1      0      0      0      2      0\n";
    assert_string_equal(big, want);
}

static void test_fcx240_refuses(void **state)
{
    struct zvs_mon_record cur[1] = { vsw(0x28BA, "CCBVSW1", "TCPCB1", 1, 1, 0, 1, 1, 0) };
    uint64_t t = tod_of(2007, 4, 13, 15, 34, 10);
    struct zvs_scr_sample a = { .tod = t, .rec = cur, .nrec = 1 };
    struct zvs_scr_sample b = { .tod = t, .rec = cur, .nrec = 1 };
    assert_int_equal(zvs_fcx240_render(&a, &b, big, sizeof(big)), -EINVAL);
    assert_int_equal(zvs_fcx269_render(&a, &b, big, sizeof(big)), -EINVAL);
    assert_int_equal(zvs_pgroup_render(&a, &b, big, sizeof(big)), -EINVAL);
    b.tod = t + (30000000ull << 12);
    char small[100];
    memset(small, 'x', sizeof(small));
    assert_int_equal(zvs_fcx240_render(&a, &b, small, sizeof(small)), -ENOSPC);
    assert_int_equal(strlen(small), 73); /* NUL terminated after the header line */
    int len = zvs_fcx240_render(&a, &b, big, sizeof(big));
    assert_true(len > 0);
    /* exactly the length fits; one byte less does not */
    char *exact = malloc((size_t)len + 1);
    assert_non_null(exact);
    assert_int_equal(zvs_fcx240_render(&a, &b, exact, (size_t)len + 1), len);
    assert_int_equal(zvs_fcx240_render(&a, &b, exact, (size_t)len), -ENOSPC);
    free(exact);
    /* no D6R21 in the sample: headings only, no System row */
    struct zvs_scr_sample e = { .tod = b.tod, .rec = NULL, .nrec = 0 };
    assert_true(zvs_fcx240_render(&a, &e, big, sizeof(big)) > 0);
    assert_null(strstr(big, "System"));
}

/* ---- FCX269 ------------------------------------------------------------------------- */

static const char *const fcx269_report[] = {
    "FCX269      Data for 2007/04/13  Interval 13:20:11 - 13:20:41",
    "____ .                 .        .    .                   .      .      .      .",
    "                                                    <--- Outbound/s ---> <--- Inbound",
    "     <---  LAN ID  --> Adapter  Base Vswitch  V      Bytes <  Packets  >  Bytes <  Pa",
    "Addr Owner    Name     Owner    Addr Grpname  S L T T_Byte T_Pack T_Disc R_Byte R_Pac",
    "<<  -----------------   System   --------------  >> 169398   2566     .0 30745k  2040",
    "0500 SYSTEM   CCBFTP   TCPCB1   0500 ........   3 Q     .0     .0     .0     .0     .",
    "B000 SYSTEM   LNXSRV   TCPIP    B000 ........   3 Q     .0     .0     .0     .0     .",
    "F000 SYSTEM   LCSNET   TCPIP    F000 ........   3 H     .0     .0     .0     .0     .",
    "F000 SYSTEM   CCBVSW1  LNXVSWC  F000 CCBGROUP X 2 Q 677405  10262     .0   123M  8159",
    "F000 SYSTEM   CCBVSW1  LNXREGC  F000 CCBGROUP X 2 Q 677782  10268     .0   123M  8160",
    "F004 SYSTEM   CCBFTP   LNXVSWC  F004 ........   3 Q     .0     .0     .0     .0     .",
    "F004 SYSTEM   CCBFTP   LNXREGC  F004 ........   3 Q     .0     .0     .0     .0     .",
    "F010 SYSTEM   LOCALNET TCPIP    F010 ........   3 H     .0     .0     .0     .0     .",
    "F010 SYSTEM   LOCALNET TCPIP    F010 ........   3 H     .0     .0     .0     .0     .",
};

static void test_fcx269_report(void **state)
{
    /* Record order as the daemon might write it; the screen sorts by Addr (stably).
     * A D6R21 in the same group is ignored by this screen. */
    struct zvs_mon_record cur[10] = {
        vnic(0xF000, "LCSNET", "TCPIP", "", 3, 1, 0, 0, 0, 0),
        vnic(0xF000, "CCBVSW1", "LNXVSWC", "CCBGROUP", 2, 2, 20322150, 307860,
             3689400000ull, 2447850),
        vnic(0xF000, "CCBVSW1", "LNXREGC", "CCBGROUP", 2, 2, 20333460, 308040,
             3689400000ull, 2448150),
        vnic(0xB000, "LNXSRV", "TCPIP", "", 3, 2, 0, 0, 0, 0),
        vnic(0xF004, "CCBFTP", "LNXVSWC", "", 3, 2, 0, 0, 0, 0),
        vsw(0x28BA, "CCBVSW1", "TCPCB1", 1, 1, 1, 1, 1, 1),
        vnic(0xF004, "CCBFTP", "LNXREGC", "", 3, 2, 0, 0, 0, 0),
        vnic(0x0500, "CCBFTP", "TCPCB1", "", 3, 2, 0, 0, 0, 0),
        vnic(0xF010, "LOCALNET", "TCPIP", "", 3, 1, 0, 0, 0, 0),
        vnic(0xF010, "LOCALNET", "TCPIP", "", 3, 1, 0, 0, 0, 0),
    };
    struct zvs_mon_record prevrec[10];
    for (unsigned i = 0; i < 10; i++)
        prevrec[i] = cur[i].domain == ZVS_MON_DOMAIN_NET ? vnic_base(cur[i]) : cur[i];
    struct zvs_scr_sample prev = { .tod = tod_of(2007, 4, 13, 13, 20, 11), .rec = prevrec,
                                   .nrec = 10 };
    struct zvs_scr_sample now = { .tod = tod_of(2007, 4, 13, 13, 20, 41), .rec = cur,
                                  .nrec = 10 };
    int len = zvs_fcx269_render(&prev, &now, big, sizeof(big));
    assert_true(len > 0);
    check_report_prefix(big, fcx269_report, 15);
    check_golden("fcx269.txt", big);
}

static void test_fcx269_decimals_sessions(void **state)
{
    /* Small rates show one decimal; the second session of one NIC is matched with the
     * second session in the previous sample and counts once in the System divisor. */
    struct zvs_mon_record prevrec[2] = {
        vnic(0x0600, "VSW2", "LINUX1", "G1", 2, 2, 0, 0, 0, 0),
        vnic(0x0600, "VSW2", "LINUX1", "G1", 2, 2, 100, 0, 0, 0),
    };
    struct zvs_mon_record cur[2] = {
        vnic(0x0600, "VSW2", "LINUX1", "G1", 2, 2, 15, 3, 0, 0),
        vnic(0x0600, "VSW2", "LINUX1", "G1", 2, 2, 100 + 29997, 0, 0, 0),
    };
    struct zvs_scr_sample prev = { .tod = tod_of(2026, 5, 1, 10, 0, 0), .rec = prevrec,
                                   .nrec = 2 };
    struct zvs_scr_sample now = { .tod = tod_of(2026, 5, 1, 10, 0, 30), .rec = cur, .nrec = 2 };
    assert_true(zvs_fcx269_render(&prev, &now, big, sizeof(big)) > 0);
    const char *rows = strstr(big, "<<  ");
    assert_non_null(rows);
    assert_string_equal(rows,
        "<<  -----------------   System   --------------  >>   1000     .1     .0     .0     .0     .0     .0     .0\n"
        "0600 SYSTEM   VSW2     LINUX1   0600 G1       X 2 Q     .5     .1     .0     .0     .0     .0     .0     .0\n"
        "0600 SYSTEM   VSW2     LINUX1   0600 G1       X 2 Q  999.9     .0     .0     .0     .0     .0     .0     .0\n");
}

/* ---- PGROUP ------------------------------------------------------------------------- */

static void test_pgroup(void **state)
{
    struct zvs_mon_record cur[3] = {
        vsw(0x2902, "CCBVSW1", "TCPCB1", 41939310, 635367, 0, 2313720000ull, 1539150, 0),
        vsw(0x28BA, "CCBVSW1", "TCPCB1", 150, 2, 0, 3690000000ull, 2458530, 0),
        vsw(0x0600, "VSW2", "DTCVSW2", 300, 3, 0, 600, 6, 0),
    };
    cur[2].u.vsw.group[0] = '\0';
    cur[2].u.vsw.interval_s = 0;
    struct zvs_mon_record prevrec[3];
    for (unsigned i = 0; i < 3; i++)
        prevrec[i] = vsw_base(cur[i]);
    prevrec[2].u.vsw.group[0] = '\0';
    cur[0].u.vsw.lacp_state = 0x3D;     /* A G S C D */
    cur[0].u.vsw.distributing = 1;
    cur[1].u.vsw.lacp_state = 0x1F;     /* A T G S C: collecting, not distributing */
    cur[0].u.vsw.lacpdus_tx = 31;
    prevrec[0].u.vsw.lacpdus_tx = 30;
    cur[0].u.vsw.lacpdus_rx = 1;
    cur[1].u.vsw.lacpdus_tx = 30;
    cur[1].u.vsw.lacpdus_rx = 30;
    cur[1].u.vsw.markers_tx = 2;
    cur[1].u.vsw.marker_requests_rx = 1;
    cur[2].u.vsw.lacp_state = 0xC0;     /* defaulted, expired */
    cur[0].u.vsw.buckets = 129;         /* the pass moved one bucket to 2902 ... */
    cur[1].u.vsw.buckets = 127;
    prevrec[0].u.vsw.group_moves = prevrec[1].u.vsw.group_moves = 128;
    cur[0].u.vsw.group_moves = cur[1].u.vsw.group_moves = 129;  /* ... one move this interval */
    struct zvs_scr_sample prev = { .tod = tod_of(2007, 4, 13, 15, 42, 22), .rec = prevrec,
                                   .nrec = 3 };
    struct zvs_scr_sample now = { .tod = tod_of(2007, 4, 13, 15, 42, 52), .rec = cur,
                                  .nrec = 3 };
    assert_true(zvs_pgroup_render(&prev, &now, big, sizeof(big)) > 0);
    check_golden("pgroup.txt", big);
    assert_non_null(strstr(big, "CCBGROUP CCBVSW1  28BA   no ATGSC---      5   123M    "
                                "30    30     2     1   30  127     1\n"));
    assert_non_null(strstr(big, "CCBGROUP CCBVSW1  2902  yes A-GSCD--  1398k 77124k     "
                                "1     1     0     0   30  129     1\n"));
    assert_non_null(strstr(big, "........ VSW2     0600   no ------FE     10     20     "
                                "0     0     0     0  OFF    0     0\n"));
}

/* ---- export ------------------------------------------------------------------------- */

/* The "both OSAs" interval as prev/cur samples (storage static: the rows point into it). */
static struct zvs_mon_record both_prev[2], both_cur[2];

static void both_samples(struct zvs_scr_sample *prev, struct zvs_scr_sample *cur)
{
    both_cur[0] = vsw(0x28BA, "CCBVSW1", "TCPCB1", 20327550, 307950, 0, 3690000000ull,
                      2447850, 0);
    both_cur[1] = vsw(0x2902, "CCBVSW1", "TCPCB1", 20318280, 307799, 0, 3690000000ull,
                      2447430, 0);
    for (unsigned i = 0; i < 2; i++)
        both_prev[i] = vsw_base(both_cur[i]);
    *prev = (struct zvs_scr_sample){ .tod = tod_of(2007, 4, 13, 15, 34, 10),
                                     .rec = both_prev, .nrec = 2 };
    *cur = (struct zvs_scr_sample){ .tod = tod_of(2007, 4, 13, 15, 34, 40),
                                    .rec = both_cur, .nrec = 2 };
}

static void test_export_csv(void **state)
{
    struct zvs_scr_sample prev, cur;
    both_samples(&prev, &cur);
    int len = zvs_export_csv(ZVS_SCR_FCX240, &prev, &cur, true, big, sizeof(big));
    assert_int_equal(len, (int)strlen(big));
    assert_string_equal(big,
        "start,end,seconds,addr,name,controller,qsv,timeout_s,t_byte,t_pack,t_disc,r_byte,"
        "r_pack,r_disc,t_err,r_err\n"
        "2007-04-13T15:34:10Z,2007-04-13T15:34:40Z,30.000,28BA,CCBVSW1,TCPCB1,1,300,"
        "677585.000,10265.000,0.000,123000000.000,81595.000,0.000,0.000,0.000\n"
        "2007-04-13T15:34:10Z,2007-04-13T15:34:40Z,30.000,2902,CCBVSW1,TCPCB1,1,300,"
        "677276.000,10259.967,0.000,123000000.000,81581.000,0.000,0.000,0.000\n");
    /* without the header: only the rows, for appending further intervals */
    assert_true(zvs_export_csv(ZVS_SCR_FCX240, &prev, &cur, false, big, sizeof(big)) > 0);
    assert_memory_equal(big, "2007-04-13T15:34:10Z,", 21);
    /* the port-group view of the same samples */
    both_cur[0].u.vsw.lacp_state = 0x3D;
    both_cur[0].u.vsw.distributing = 1;
    both_cur[0].u.vsw.lacpdus_tx = 2;
    assert_true(zvs_export_csv(ZVS_SCR_PGROUP, &prev, &cur, true, big, sizeof(big)) > 0);
    const char *l2 = strchr(big, '\n') + 1;
    assert_memory_equal(l2, "2007-04-13T15:34:10Z,2007-04-13T15:34:40Z,30.000,CCBGROUP,"
                        "CCBVSW1,28BA,1,0x3D,A-GSCD--,2,0,0,0,30,677585.000,", 109);
    assert_int_equal(zvs_export_csv(ZVS_SCR_FCX240, &prev, &cur, true, big, 50), -ENOSPC);
}

static void test_export_json(void **state)
{
    struct zvs_scr_sample prev, cur;
    both_samples(&prev, &cur);
    snprintf(both_cur[1].u.vsw.controller, 9, "A\"B\\C");   /* escaped, never trusted */
    int len = zvs_export_json(ZVS_SCR_FCX240, &prev, &cur, big, sizeof(big));
    assert_int_equal(len, (int)strlen(big));
    assert_string_equal(big,
        "{\"screen\":\"FCX240\",\"start\":\"2007-04-13T15:34:10Z\",\"end\":"
        "\"2007-04-13T15:34:40Z\",\"seconds\":30.000,\"system\":{\"t_byte\":677430.500,"
        "\"t_pack\":10262.483,\"t_disc\":0.000,\"r_byte\":123000000.000,\"r_pack\":81588.000,"
        "\"r_disc\":0.000,\"t_err\":0.000,\"r_err\":0.000},\"rows\":["
        "{\"addr\":\"28BA\",\"name\":\"CCBVSW1\",\"controller\":\"TCPCB1\",\"group\":"
        "\"CCBGROUP\",\"qsv\":1,\"t_byte\":677585.000,\"t_pack\":10265.000,\"t_disc\":0.000,"
        "\"r_byte\":123000000.000,\"r_pack\":81595.000,\"r_disc\":0.000,\"t_err\":0.000,"
        "\"r_err\":0.000},"
        "{\"addr\":\"2902\",\"name\":\"CCBVSW1\",\"controller\":\"A\\\"B\\\\C\",\"group\":"
        "\"CCBGROUP\",\"qsv\":1,\"t_byte\":677276.000,\"t_pack\":10259.967,\"t_disc\":0.000,"
        "\"r_byte\":123000000.000,\"r_pack\":81581.000,\"r_disc\":0.000,\"t_err\":0.000,"
        "\"r_err\":0.000}]}\n");
}

static void test_export_fcx269(void **state)
{
    struct zvs_mon_record cur[1] = {
        vnic(0xF000, "CCBVSW1", "LNXVSWC", "CCBGROUP", 2, 2, 300, 3, 60, 1),
    };
    struct zvs_mon_record prevrec[1] = { vnic_base(cur[0]) };
    struct zvs_scr_sample prev = { .tod = tod_of(2007, 4, 13, 13, 20, 11), .rec = prevrec,
                                   .nrec = 1 };
    struct zvs_scr_sample now = { .tod = tod_of(2007, 4, 13, 13, 20, 41), .rec = cur, .nrec = 1 };
    assert_true(zvs_export_csv(ZVS_SCR_FCX269, &prev, &now, true, big, sizeof(big)) > 0);
    assert_string_equal(big,
        "start,end,seconds,addr,lan_owner,lan_name,owner,base,group,vswitch,transport,type,"
        "t_byte,t_pack,t_disc,r_byte,r_pack,r_disc,t_err,r_err\n"
        "2007-04-13T13:20:11Z,2007-04-13T13:20:41Z,30.000,F000,SYSTEM,CCBVSW1,LNXVSWC,F000,"
        "CCBGROUP,1,2,2,10.000,0.100,0.000,2.000,0.033,0.000,0.000,0.000\n");
    assert_true(zvs_export_json(ZVS_SCR_FCX269, &prev, &now, big, sizeof(big)) > 0);
    assert_non_null(strstr(big, "\"rows\":[{\"addr\":\"F000\",\"lan_owner\":\"SYSTEM\","
                                "\"lan_name\":\"CCBVSW1\",\"owner\":\"LNXVSWC\",\"group\":"
                                "\"CCBGROUP\",\"vswitch\":true,\"transport\":2,\"type\":2,"
                                "\"t_byte\":10.000,"));
    assert_int_equal(zvs_export_json((enum zvs_scr_screen)7, &prev, &now, big, sizeof(big)),
                     -EINVAL);
}

/* ---- chart and report --------------------------------------------------------------- */

static void test_chart(void **state)
{
    /* three intervals of 30 s: a rebalancing pass moves 2902's outbound to 28BA */
    struct zvs_mon_record s0[2], s1[2], s2[2], s3[2];
    s0[0] = vsw(0x28BA, "CCBVSW1", "TCPCB1", 0, 0, 0, 0, 0, 0);
    s0[1] = vsw(0x2902, "CCBVSW1", "TCPCB1", 0, 0, 0, 0, 0, 0);
    s1[0] = vsw(0x28BA, "CCBVSW1", "TCPCB1", 30000000, 0, 0, 15000000, 0, 0);
    s1[1] = vsw(0x2902, "CCBVSW1", "TCPCB1", 90000000, 0, 0, 15000000, 0, 0);
    s2[0] = vsw(0x28BA, "CCBVSW1", "TCPCB1", 90000000, 0, 0, 30000000, 0, 0);
    s2[1] = vsw(0x2902, "CCBVSW1", "TCPCB1", 150000000, 0, 0, 30000000, 0, 0);
    s3[0] = vsw(0x28BA, "CCBVSW1", "TCPCB1", 150000000, 0, 0, 45000000, 0, 0);
    s3[1] = vsw(0x2902, "CCBVSW1", "TCPCB1", 210000000, 0, 0, 45000000, 0, 0);
    uint64_t t = tod_of(2026, 3, 1, 12, 0, 0), step = 30000000ull << 12;
    struct zvs_scr_sample g[4] = {
        { .tod = t, .rec = s0, .nrec = 2 }, { .tod = t + step, .rec = s1, .nrec = 2 },
        { .tod = t + 2 * step, .rec = s2, .nrec = 2 }, { .tod = t + 3 * step, .rec = s3, .nrec = 2 },
    };
    struct zvs_chart_point pts[6];
    unsigned n = 0;
    for (unsigned i = 1; i < 4; i++)
        assert_int_equal(zvs_chart_collect(&g[i - 1], &g[i], pts, 6, &n), 2);
    assert_int_equal(n, 6);
    assert_int_equal(zvs_chart_collect(&g[2], &g[3], pts, 6, &n), -ENOSPC);
    assert_int_equal(pts[0].rdev, 0x28BA);
    assert_true(pts[0].out_bps == 1000000.0);
    assert_true(pts[3].in_bps == 500000.0);
    assert_int_equal(pts[5].end_unix_s, (uint64_t)zvs_scr_tod_unix_s(t + 3 * step));
    int len = zvs_chart_svg(pts, n, big, sizeof(big));
    assert_true(len > 0);
    check_golden("chart.svg", big);
    unsigned polylines = 0;
    for (const char *p = big; (p = strstr(p, "<polyline")) != NULL; p++)
        polylines++;
    assert_int_equal(polylines, 4);
    /* 28BA outbound: 1M, 2M, 2M on a 0..5M axis (2902 peaks at 3M); 12:00:30-12:01:30 */
    assert_non_null(strstr(big, "points=\"70.0,294.0 360.0,228.0 650.0,228.0\""));
    /* one unit for the axis: 0 1M 2M 3M 4M 5M (the FCX240 rule per value gave 4000k under 5M) */
    static const char *const ylabels[] = { ">0</text>", ">1M</text>", ">2M</text>",
                                           ">3M</text>", ">4M</text>", ">5M</text>" };
    for (size_t i = 0; i < 6; i++)
        assert_non_null(strstr(big, ylabels[i]));
    assert_null(strstr(big, "k</text>"));
    assert_non_null(strstr(big, ">12:01:30</text>"));
    /* the case: 120 MB/s peaks. Axis 0..200M in 40M steps, never "80000k" */
    pts[1].out_bps = 120e6;
    assert_true(zvs_chart_svg(pts, n, big, sizeof(big)) > 0);
    static const char *const mlabels[] = { ">40M</text>", ">80M</text>", ">120M</text>",
                                           ">160M</text>", ">200M</text>" };
    for (size_t i = 0; i < 5; i++)
        assert_non_null(strstr(big, mlabels[i]));
    assert_null(strstr(big, "k</text>"));
    /* a small chart: 0..1 in 0.2 steps, one decimal */
    for (unsigned i = 0; i < n; i++)
        pts[i].out_bps = pts[i].in_bps = 0.5;
    assert_true(zvs_chart_svg(pts, n, big, sizeof(big)) > 0);
    assert_non_null(strstr(big, ">0.2</text>"));
    assert_non_null(strstr(big, ">1</text>"));
    /* an empty chart is still a valid document */
    assert_true(zvs_chart_svg(pts, 0, big, sizeof(big)) > 0);
    assert_null(strstr(big, "<polyline"));
}

/* FCX240 with a device that has no controller (blank IODVSW_VMDUSER): "*" (ours). */
static void test_fcx240_no_controller(void **state)
{
    struct zvs_mon_record prevrec[1], cur[1];
    prevrec[0] = vsw(0x0600, "VSW2", "", 0, 0, 0, 0, 0, 0);
    cur[0] = vsw(0x0600, "VSW2", "", 300, 3, 0, 600, 6, 0);
    struct zvs_scr_sample prev = { .tod = tod_of(2026, 1, 3, 0, 0, 0), .rec = prevrec,
                                   .nrec = 1 };
    struct zvs_scr_sample now = { .tod = tod_of(2026, 1, 3, 0, 0, 30), .rec = cur, .nrec = 1 };
    assert_true(zvs_fcx240_render(&prev, &now, big, sizeof(big)) > 0);
    assert_non_null(strstr(big,
        "\n0600 VSW2      *         1  300      10      0      0     20      0      0      0      0\n"));
}

/* EVENTS (ours): D6R22/23 and D8R2/3 in file order, samples skipped. */
static void test_events(void **state)
{
    uint64_t t = tod_of(2026, 3, 1, 12, 0, 5);
    struct zvs_mon_record ev[6];
    memset(ev, 0, sizeof(ev));
    ev[0].domain = ZVS_MON_DOMAIN_IO;
    ev[0].number = ZVS_MON_REC_D6R22;
    ev[0].tod = t + (250000ull << 12);                  /* 12:00:05.250 */
    snprintf(ev[0].u.vswev.lan_owner, 9, "SYSTEM");
    snprintf(ev[0].u.vswev.lan_name, 9, "CCBVSW1");
    snprintf(ev[0].u.vswev.group, 9, "CCBGROUP");
    ev[0].u.vswev.rdev = 0x2902;
    ev[0].u.vswev.reason = ZVS_MON_FAIL_LACP_EXPIRED;
    ev[1] = vsw(0x28BA, "CCBVSW1", "TCPCB1", 0, 0, 0, 0, 0, 0);   /* a sample: skipped */
    ev[2] = ev[0];
    ev[2].number = ZVS_MON_REC_D6R23;
    ev[2].tod = t + (3000000ull << 12);                 /* 12:00:08.000 */
    ev[2].u.vswev.reason = 0;
    snprintf(ev[2].u.vswev.controller, 9, "TCPCB1");
    ev[3].domain = ZVS_MON_DOMAIN_NET;
    ev[3].number = ZVS_MON_REC_D8R3;
    ev[3].tod = t + (4000001ull << 12);                 /* 12:00:09.000 (and 1 us) */
    snprintf(ev[3].u.link.lan_owner, 9, "SYSTEM");
    snprintf(ev[3].u.link.lan_name, 9, "CCBVSW1");
    snprintf(ev[3].u.link.nic_owner, 9, "LNXVSWC");
    ev[3].u.link.vdev = 0xF000;
    ev[3].u.link.nic_type = 2;
    ev[4] = ev[3];
    ev[4].number = ZVS_MON_REC_D8R2;
    ev[4].tod = t + (5999999ull << 12);                 /* 12:00:10.999 */
    ev[5] = ev[0];
    ev[5].u.vswev.group[0] = '\0';
    ev[5].u.vswev.rdev = 0x0600;
    ev[5].u.vswev.reason = ZVS_MON_FAIL_DETACHED;
    assert_true(zvs_events_render(ev, 6, big, sizeof(big)) > 0);
    check_golden("events.txt", big);
    assert_true(zvs_events_render(ev, 0, big, sizeof(big)) > 0);
    assert_string_equal(big,
        "EVENTS      0 monitor events (zvswitch's list, not a Performance Toolkit screen)\n"
        "Date       Time         Record Event     Vswitch  Addr User     Group    Reason\n"
        "No events.\n");
    assert_int_equal(zvs_events_render(ev, 6, big, 40), -ENOSPC);
    assert_string_equal(zvs_mon_fail_reason_text(ZVS_MON_FAIL_CARRIER), "carrier lost");
    assert_string_equal(zvs_mon_fail_reason_text(99), "");
}

static void test_report_html(void **state)
{
    const char *screens[2] = { "A <b> & \"c\"\n", "second" };
    int len = zvs_report_html("Run <1>", NULL, screens, 2, "<svg/>\n", big, sizeof(big));
    assert_int_equal(len, (int)strlen(big));
    assert_string_equal(big,
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Run &lt;1&gt;</title>\n"
        "<style>pre{background:#f4f4f4;padding:8px}</style></head>\n<body>\n"
        "<h1>Run &lt;1&gt;</h1>\n"
        "<pre>A &lt;b&gt; &amp; &quot;c&quot;\n</pre>\n<pre>second</pre>\n"
        "<div>\n<svg/>\n</div>\n</body></html>\n");

    /* the generator (perfkit and its version) in a meta element and a closing line */
    len = zvs_report_html("Run", "perfkit (zvswitch) 0.3.0+git1.g<a>", screens, 1, NULL, big,
                          sizeof(big));
    assert_int_equal(len, (int)strlen(big));
    assert_string_equal(big,
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
        "<meta name=\"generator\" content=\"perfkit (zvswitch) 0.3.0+git1.g&lt;a&gt;\">"
        "<title>Run</title>\n"
        "<style>pre{background:#f4f4f4;padding:8px}</style></head>\n<body>\n"
        "<h1>Run</h1>\n"
        "<pre>A &lt;b&gt; &amp; &quot;c&quot;\n</pre>\n"
        "<p>Written by perfkit (zvswitch) 0.3.0+git1.g&lt;a&gt;</p>\n</body></html>\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fmt_int6),
        cmocka_unit_test(test_fmt_dec6),
        cmocka_unit_test(test_fcx240_both),
        cmocka_unit_test(test_fcx240_split),
        cmocka_unit_test(test_fcx240_iptimeout),
        cmocka_unit_test(test_fcx240_reset_new_errors),
        cmocka_unit_test(test_fcx240_refuses),
        cmocka_unit_test(test_fcx269_report),
        cmocka_unit_test(test_fcx269_decimals_sessions),
        cmocka_unit_test(test_pgroup),
        cmocka_unit_test(test_export_csv),
        cmocka_unit_test(test_export_json),
        cmocka_unit_test(test_export_fcx269),
        cmocka_unit_test(test_chart),
        cmocka_unit_test(test_fcx240_no_controller),
        cmocka_unit_test(test_events),
        cmocka_unit_test(test_report_html),
    };
    return cmocka_run_group_tests_name("screens", tests, NULL, NULL);
}
