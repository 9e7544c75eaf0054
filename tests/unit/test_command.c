/* Tests of the CP command parser (cp-commands/command.c) and its message catalogue.
 *
 * Every command with every operand, each keyword at its shortest accepted abbreviation
 * and one letter shorter (refused, exact message), privilege refusals, and every refused
 * command of tests/golden/commands/errors.txt with its exact response, compared byte for
 * byte. A failing parse must leave *cmd byte-for-byte as it was; a successful one writes
 * nothing to the response.
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

#include "cp-commands/command.h"

#define GOLDEN_ERRORS "tests/golden/commands/errors.txt"

static uint32_t classes(const char *letters)
{
    uint32_t m = 0;
    for (; *letters != '\0'; letters++)
        m |= ZVS_PRIVCLASS(*letters);
    return m;
}

#define ALL_CLASSES classes("ABCDEFG")

/* Parses a line that must be accepted into *cmd; the response must stay empty. */
static void parse_into(const char *line, uint32_t privclass, struct zvs_cmd *cmd)
{
    struct zvs_cp_response r;

    memset(cmd, 0xA5, sizeof *cmd);
    zvs_cp_response_init(&r);
    int rc = zvs_cmd_parse(line, privclass, cmd, &r);
    if (rc != 0)
        fail_msg("refused: \"%s\": %s", line, r.text);
    assert_int_equal(r.len, 0);
    assert_int_equal(r.rc, 0);
    zvs_cp_response_fini(&r);
}

/* The same, returning the struct (its padding is then undefined: compare members). */
static struct zvs_cmd parse_ok(const char *line, uint32_t privclass)
{
    struct zvs_cmd cmd;
    parse_into(line, privclass, &cmd);
    return cmd;
}

/* Parses a line that must be refused with exactly `expect` (one line, no newline) and
 * rc; *cmd must be untouched. */
static void parse_bad(const char *line, uint32_t privclass, const char *expect, int rc)
{
    struct zvs_cmd cmd, before;
    struct zvs_cp_response r;
    char want[600];

    memset(&cmd, 0x5A, sizeof cmd);
    memcpy(&before, &cmd, sizeof cmd);
    zvs_cp_response_init(&r);
    assert_true(zvs_cmd_parse(line, privclass, &cmd, &r) < 0);
    snprintf(want, sizeof want, "%s\n", expect);
    assert_string_equal(r.text, want);
    assert_int_equal(r.len, strlen(want));
    assert_int_equal(r.rc, rc);
    assert_memory_equal(&cmd, &before, sizeof cmd);
    zvs_cp_response_fini(&r);
}

/* Both lines parse to byte-identical structs (the parser copies out a zeroed struct, so
 * padding compares too). */
static void expect_same(const char *a, const char *b, uint32_t privclass)
{
    struct zvs_cmd ca, cb;
    parse_into(a, privclass, &ca);
    parse_into(b, privclass, &cb);
    assert_memory_equal(&ca, &cb, sizeof ca);
}

static void test_grammar_check(void **state)
{
    assert_int_equal(zvs_cmd_grammar_check(), 0);
}

/* ---- each command, each operand ------------------------------------------------------ */

static void test_set_port_group_join(void **state)
{
    struct zvs_cmd c = parse_ok("SET PORT GROUP CCBGROUP JOIN 28BA 2902", ALL_CLASSES);
    assert_int_equal(c.verb, ZVS_CMD_SET_PORT_GROUP);
    assert_string_equal(c.name, "CCBGROUP");
    assert_int_equal(c.pg_op, ZVS_CMD_PG_JOIN);
    assert_int_equal(c.nrdev, 2);
    assert_int_equal(c.rdev[0].devno, 0x28BA);
    assert_int_equal(c.rdev[0].port, 0);
    assert_int_equal(c.rdev[1].devno, 0x2902);
    assert_false(c.details);
    assert_int_equal(c.interval_s, 0);

    c = parse_ok("SET PORT GROUP G1 JOIN 1 2 3 4 5 6 7 300.P1", ALL_CLASSES);
    assert_int_equal(c.nrdev, 8);
    assert_int_equal(c.rdev[6].devno, 7);
    assert_int_equal(c.rdev[7].devno, 0x300);
    assert_int_equal(c.rdev[7].port, 1);
    /* Same device number on two OSA ports is two devices. */
    c = parse_ok("SET PORT GROUP G1 JOIN 300 300.P1", ALL_CLASSES);
    assert_int_equal(c.nrdev, 2);
}

static void test_set_port_group_leave(void **state)
{
    struct zvs_cmd c = parse_ok("SET PORT GROUP G#$@9 LEAVE 2902.PF", ALL_CLASSES);
    assert_int_equal(c.verb, ZVS_CMD_SET_PORT_GROUP);
    assert_string_equal(c.name, "G#$@9");
    assert_int_equal(c.pg_op, ZVS_CMD_PG_LEAVE);
    assert_int_equal(c.nrdev, 1);
    assert_int_equal(c.rdev[0].devno, 0x2902);
    assert_int_equal(c.rdev[0].port, 0xF);
}

static void test_set_port_group_lacp(void **state)
{
    struct zvs_cmd c = parse_ok("SET PORT GROUP G1 LACP ACTIVE", ALL_CLASSES);
    assert_int_equal(c.pg_op, ZVS_CMD_PG_LACP);
    assert_true(c.lacp_active);
    assert_int_equal(c.nrdev, 0);
    c = parse_ok("SET PORT GROUP G1 LACP INACTIVE", ALL_CLASSES);
    assert_int_equal(c.pg_op, ZVS_CMD_PG_LACP);
    assert_false(c.lacp_active);
}

static void test_set_port_group_interval(void **state)
{
    struct zvs_cmd c = parse_ok("SET PORT GROUP CCBGROUP INTERVAL 30", ALL_CLASSES);
    assert_int_equal(c.pg_op, ZVS_CMD_PG_INTERVAL);
    assert_int_equal(c.interval_s, 30);
    assert_int_equal(parse_ok("SET PORT GROUP G1 INTERVAL 1", ALL_CLASSES).interval_s, 1);
    assert_int_equal(parse_ok("SET PORT GROUP G1 INTERVAL 9990", ALL_CLASSES).interval_s, 9990);
    assert_int_equal(parse_ok("SET PORT GROUP G1 INTERVAL 0300", ALL_CLASSES).interval_s, 300);
    c = parse_ok("SET PORT GROUP G1 INTERVAL OFF", ALL_CLASSES);
    assert_int_equal(c.pg_op, ZVS_CMD_PG_INTERVAL);
    assert_int_equal(c.interval_s, 0);
}

static void test_query_port_group(void **state)
{
    struct zvs_cmd c = parse_ok("QUERY PORT GROUP", ALL_CLASSES);
    assert_int_equal(c.verb, ZVS_CMD_QUERY_PORT_GROUP);
    assert_string_equal(c.name, "");
    c = parse_ok("QUERY PORT GROUP ALL", ALL_CLASSES);
    assert_string_equal(c.name, "");
    c = parse_ok("QUERY PORT GROUP ccbgroup", ALL_CLASSES);
    assert_string_equal(c.name, "CCBGROUP");
    assert_false(c.details);
    /* ALL is three letters; AL is a name. */
    assert_string_equal(parse_ok("Q PORT GROUP AL", ALL_CLASSES).name, "AL");
    /* No DETAILS on QUERY PORT GROUP: DET is a group name there. */
    assert_string_equal(parse_ok("Q PORT GROUP DET", ALL_CLASSES).name, "DET");
}

static void test_query_lacp(void **state)
{
    struct zvs_cmd c = parse_ok("QUERY LACP", ALL_CLASSES);
    assert_int_equal(c.verb, ZVS_CMD_QUERY_LACP);
    assert_string_equal(c.name, "");
    assert_false(c.details);
    c = parse_ok("QUERY LACP ALL DETAILS", ALL_CLASSES);
    assert_string_equal(c.name, "");
    assert_true(c.details);
    c = parse_ok("QUERY LACP DETAILS", ALL_CLASSES);
    assert_string_equal(c.name, "");
    assert_true(c.details);
    c = parse_ok("QUERY LACP G1", ALL_CLASSES);
    assert_string_equal(c.name, "G1");
    assert_false(c.details);
    c = parse_ok("QUERY LACP G1 DET", ALL_CLASSES);
    assert_string_equal(c.name, "G1");
    assert_true(c.details);
    /* A group called DET: the name comes first when both are given. */
    c = parse_ok("QUERY LACP DET DET", ALL_CLASSES);
    assert_string_equal(c.name, "DET");
    assert_true(c.details);
}

static void test_query_vswitch(void **state)
{
    struct zvs_cmd c = parse_ok("QUERY VSWITCH", ALL_CLASSES);
    assert_int_equal(c.verb, ZVS_CMD_QUERY_VSWITCH);
    assert_string_equal(c.name, "");
    assert_false(c.details);
    c = parse_ok("QUERY VSWITCH CCBVSW1 DETAILS", ALL_CLASSES);
    assert_string_equal(c.name, "CCBVSW1");
    assert_true(c.details);
    c = parse_ok("Q VSWITCH ALL", ALL_CLASSES);
    assert_string_equal(c.name, "");
    assert_false(c.details);
    c = parse_ok("q vSwItCh ccbvsw1 dEtAiLs", ALL_CLASSES);
    assert_string_equal(c.name, "CCBVSW1");
    assert_true(c.details);
}

static void test_set_lacp_fault(void **state)
{
    struct zvs_cmd c = parse_ok("SET LACP 28BA DROPRX ON", classes("A"));
    assert_int_equal(c.verb, ZVS_CMD_SET_LACP_FAULT);
    assert_int_equal(c.fault, ZVS_CMD_FAULT_DROPRX);
    assert_true(c.fault_on);
    assert_int_equal(c.nrdev, 1);
    assert_int_equal(c.rdev[0].devno, 0x28BA);
    c = parse_ok("SET LACP 2902.P1 DROPTX OFF", classes("A"));
    assert_int_equal(c.fault, ZVS_CMD_FAULT_DROPTX);
    assert_false(c.fault_on);
    assert_int_equal(c.rdev[0].port, 1);
    c = parse_ok("SET LACP 28BA DELAYTX 250", classes("A"));
    assert_int_equal(c.fault, ZVS_CMD_FAULT_DELAYTX);
    assert_int_equal(c.delay_ms, 250);
    assert_int_equal(parse_ok("SET LACP 28BA DELAYTX 0", classes("A")).delay_ms, 0);
    assert_int_equal(parse_ok("SET LACP 28BA DELAYTX 10000", classes("A")).delay_ms, 10000);
}

/* The report's own sequence parses, and blanks of any kind and number are tolerated. */
static void test_blanks_and_report_sequence(void **state)
{
    expect_same("  SET   PORT\tGROUP  ccbgroup   JOIN 28ba\t2902  \r",
                "SET PORT GROUP CCBGROUP JOIN 28BA 2902", ALL_CLASSES);
    expect_same("set port group ccbgroup interval 30\n",
                "SET PORT GROUP CCBGROUP INTERVAL 30", ALL_CLASSES);
    expect_same("\tq\tvsw\tccbvsw1\tdet\t", "QUERY VSWITCH CCBVSW1 DETAILS", ALL_CLASSES);
}

/* ---- abbreviations ------------------------------------------------------------------- */

struct abbrev_case {
    const char *full;                   /* full keyword */
    const char *shortest;               /* shortest accepted: same command as full */
    const char *shorter;                /* one letter shorter; NULL: none exists */
    const char *refusal;                /* its exact response */
    int         rc;
};

static const struct abbrev_case abbrevs[] = {
    { "SET PORT GROUP G1 LACP ACTIVE", "set port group g1 lacp active",
      "SE PORT GROUP G1 LACP ACTIVE", "HCP001E Unknown CP command: SE", 1 },
    { "QUERY LACP", "Q LACP", NULL, NULL, 0 },
    { "QUERY LACP", "QU LACP", NULL, NULL, 0 },
    { "QUERY LACP", "QUE LACP", NULL, NULL, 0 },
    { "QUERY LACP", "QUER LACP", NULL, NULL, 0 },
    { "QUERY PORT GROUP", "Q PORT GROUP", "Q POR GROUP", "HCP003E Invalid option - POR", 3 },
    { "SET PORT GROUP G1 LEAVE 1", "SET PORT GROUP G1 LEAVE 1",
      "SET POR GROUP G1 LEAVE 1", "HCP003E Invalid option - POR", 3 },
    { "QUERY PORT GROUP", "Q PORT GROUP", "Q PORT GROU", "HCP003E Invalid option - GROU", 3 },
    { "SET PORT GROUP G1 LEAVE 1", "SET PORT GROUP G1 LEAVE 1",
      "SET PORT GROU G1 LEAVE 1", "HCP003E Invalid option - GROU", 3 },
    { "QUERY LACP", "Q LACP", "Q LAC", "HCP003E Invalid option - LAC", 3 },
    { "SET LACP 1 DROPRX ON", "SET LACP 1 DROPRX ON", "SET LAC 1 DROPRX ON",
      "HCP003E Invalid option - LAC", 3 },
    { "QUERY VSWITCH", "Q VSW", "Q VS", "HCP003E Invalid option - VS", 3 },
    { "QUERY VSWITCH", "Q VSWI", NULL, NULL, 0 },
    { "QUERY VSWITCH", "Q VSWITC", NULL, NULL, 0 },
    { "SET PORT GROUP G1 JOIN 1", "SET PORT GROUP G1 JOIN 1", "SET PORT GROUP G1 JOI 1",
      "HCP003E Invalid option - JOI", 3 },
    { "SET PORT GROUP G1 LEAVE 1", "SET PORT GROUP G1 LEAVE 1", "SET PORT GROUP G1 LEAV 1",
      "HCP003E Invalid option - LEAV", 3 },
    { "SET PORT GROUP G1 LACP INACTIVE", "SET PORT GROUP G1 LACP INACTIVE",
      "SET PORT GROUP G1 LAC INACTIVE", "HCP003E Invalid option - LAC", 3 },
    { "SET PORT GROUP G1 INTERVAL 30", "SET PORT GROUP G1 INT 30", "SET PORT GROUP G1 IN 30",
      "HCP003E Invalid option - IN", 3 },
    { "SET PORT GROUP G1 INTERVAL 30", "SET PORT GROUP G1 INTERV 30", NULL, NULL, 0 },
    { "SET PORT GROUP G1 INTERVAL OFF", "SET PORT GROUP G1 INTERVAL OFF",
      "SET PORT GROUP G1 INTERVAL OF",
      "HCP1105E Invalid INTERVAL value - OF; valid: 1-9990, OFF", 1105 },
    { "SET PORT GROUP G1 LACP ACTIVE", "SET PORT GROUP G1 LACP ACT",
      "SET PORT GROUP G1 LACP AC", "HCP003E Invalid option - AC", 3 },
    { "SET PORT GROUP G1 LACP INACTIVE", "SET PORT GROUP G1 LACP INACT",
      "SET PORT GROUP G1 LACP INAC", "HCP003E Invalid option - INAC", 3 },
    { "QUERY LACP G1 DETAILS", "Q LACP G1 DET", "Q LACP G1 DE",
      "HCP003E Invalid option - DE", 3 },
    { "QUERY VSWITCH SW1 DETAILS", "Q VSW SW1 DET", "Q VSW SW1 DE",
      "HCP003E Invalid option - DE", 3 },
    { "QUERY VSWITCH SW1 DETAILS", "Q VSW SW1 DETAIL", NULL, NULL, 0 },
    { "QUERY LACP DETAILS", "Q LACP DET", NULL, NULL, 0 },
    { "QUERY VSWITCH ALL", "Q VSWITCH ALL", NULL, NULL, 0 },
    { "SET LACP 1 DROPRX ON", "SET LACP 1 DROPRX ON", "SET LACP 1 DROPR ON",
      "HCP003E Invalid option - DROPR", 3 },
    { "SET LACP 1 DROPTX ON", "SET LACP 1 DROPTX ON", "SET LACP 1 DROPT ON",
      "HCP003E Invalid option - DROPT", 3 },
    { "SET LACP 1 DELAYTX 5", "SET LACP 1 DELAYTX 5", "SET LACP 1 DELAYT 5",
      "HCP003E Invalid option - DELAYT", 3 },
    { "SET LACP 1 DROPTX ON", "SET LACP 1 DROPTX ON", "SET LACP 1 DROPTX O",
      "HCP003E Invalid option - O", 3 },
    { "SET LACP 1 DROPTX OFF", "SET LACP 1 DROPTX OFF", "SET LACP 1 DROPTX OF",
      "HCP003E Invalid option - OF", 3 },
};

static void test_abbreviations(void **state)
{
    for (size_t i = 0; i < sizeof abbrevs / sizeof abbrevs[0]; i++) {
        const struct abbrev_case *a = &abbrevs[i];
        expect_same(a->full, a->shortest, ALL_CLASSES);
        if (a->shorter != NULL)
            parse_bad(a->shorter, ALL_CLASSES, a->refusal, a->rc);
    }
}

/* ---- privilege ----------------------------------------------------------------------- */

static void test_privilege(void **state)
{
    /* Class B: everything but the fault knobs. */
    parse_ok("SET PORT GROUP G1 JOIN 28BA", classes("B"));
    parse_ok("Q VSW", classes("B"));
    parse_ok("Q LACP", classes("B"));
    parse_ok("Q PORT GROUP", classes("B"));
    parse_bad("SET LACP 28BA DROPRX ON", classes("B"),
              "HCP1100E Not authorized: SET LACP requires privilege class A", 1100);
    /* Class A alone: the fault knobs only. */
    parse_ok("SET LACP 28BA DROPRX ON", classes("A"));
    parse_bad("Q LACP", classes("A"),
              "HCP1100E Not authorized: QUERY LACP requires privilege class B", 1100);
    /* Class G: none of these (QUERY VSWITCH for a user's own NICs comes later). */
    parse_bad("DEF", classes("G"), "HCP001E Unknown CP command: DEF", 1);
    parse_bad("SET PORT GROUP G1 JOIN 28BA", classes("G"),
              "HCP1100E Not authorized: SET PORT GROUP requires privilege class B", 1100);
    parse_bad("Q VSWITCH CCBVSW1 DETAILS", classes("G"),
              "HCP1100E Not authorized: QUERY VSWITCH requires privilege class B", 1100);
    /* Privilege is checked before the operands. */
    parse_bad("SET PORT GROUP !! JOIN", classes("G"),
              "HCP1100E Not authorized: SET PORT GROUP requires privilege class B", 1100);
    /* Classes outside A-G count too; no class at all refuses everything. */
    parse_ok("Q LACP", classes("B1"));
    parse_bad("Q LACP", classes("CDEFG123456"),
              "HCP1100E Not authorized: QUERY LACP requires privilege class B", 1100);
    parse_bad("Q LACP", 0, "HCP1100E Not authorized: QUERY LACP requires privilege class B",
              1100);
}

/* ---- length limits and sanitising ---------------------------------------------------- */

static void test_line_length(void **state)
{
    char line[ZVS_CMD_LINE_MAX + 2];
    const char *cmd = "Q LACP";

    memset(line, ' ', sizeof line);
    memcpy(line, cmd, strlen(cmd));
    line[ZVS_CMD_LINE_MAX] = '\0';      /* exactly the limit: accepted */
    assert_int_equal(parse_ok(line, ALL_CLASSES).verb, ZVS_CMD_QUERY_LACP);
    line[ZVS_CMD_LINE_MAX] = ' ';
    line[ZVS_CMD_LINE_MAX + 1] = '\0';  /* one more: refused */
    parse_bad(line, ALL_CLASSES, "HCP1102E Command line longer than 1024 characters is ignored",
              1102);
}

static void test_many_tokens(void **state)
{
    char line[ZVS_CMD_LINE_MAX + 1];
    size_t n = 0;

    n += (size_t)snprintf(line, sizeof line, "SET PORT GROUP G1 JOIN");
    while (n + 2 <= ZVS_CMD_LINE_MAX) {
        line[n++] = ' ';
        line[n++] = '1';
    }
    line[n] = '\0';
    parse_bad(line, ALL_CLASSES, "HCP1104E Device 1 is given more than once", 1104);
    /* Nothing but blanks and one-letter tokens: the most tokens a line can hold. */
    for (n = 0; n + 2 <= ZVS_CMD_LINE_MAX; n += 2) {
        line[n] = 'X';
        line[n + 1] = ' ';
    }
    line[n] = '\0';
    parse_bad(line, ALL_CLASSES, "HCP001E Unknown CP command: X", 1);
}

/* ---- golden errors ------------------------------------------------------------------- */

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long size;

    if (f == NULL)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)size + 1)) != NULL) {
        *len = fread(buf, 1, (size_t)size, f);
        buf[*len] = '\0';
    }
    fclose(f);
    return buf;
}

struct text {
    char  *s;
    size_t len;
    size_t cap;
};

static void text_add(struct text *t, const char *s, size_t n)
{
    if (t->len + n + 1 > t->cap) {
        t->cap = (t->len + n + 1) * 2;
        t->s = realloc(t->s, t->cap);
        assert_non_null(t->s);
    }
    memcpy(t->s + t->len, s, n);
    t->len += n;
    t->s[t->len] = '\0';
}

static void test_golden_errors(void **state)
{
    size_t len = 0;
    char *golden = read_file(GOLDEN_ERRORS, &len);
    struct text out = { 0 };
    unsigned ncmd = 0;

    assert_non_null(golden);
    for (char *p = golden; p < golden + len; ) {
        char *nl = memchr(p, '\n', (size_t)(golden + len - p));
        size_t n = nl != NULL ? (size_t)(nl - p) : (size_t)(golden + len - p);
        char line[2 * ZVS_CMD_LINE_MAX];

        assert_true(n < sizeof line);
        memcpy(line, p, n);
        line[n] = '\0';
        p += n + (nl != NULL);
        if (line[0] == '#') {
            text_add(&out, line, n);
            text_add(&out, "\n", 1);
            continue;
        }
        if (line[0] != '>')
            continue;                   /* an expected response line: rebuilt below */
        char *sp = strchr(line, ' ');
        assert_non_null(sp);
        char cls[32] = "";
        assert_true((size_t)(sp - line - 1) < sizeof cls);
        memcpy(cls, line + 1, (size_t)(sp - line - 1));
        cls[sp - line - 1] = '\0';
        uint32_t privclass = cls[0] == '\0' ? ALL_CLASSES :
                             strcmp(cls, "-") == 0 ? 0 : classes(cls);

        struct zvs_cmd cmd, before;
        struct zvs_cp_response r;
        char rcline[32];
        memset(&cmd, 0xC3, sizeof cmd);
        memcpy(&before, &cmd, sizeof cmd);
        zvs_cp_response_init(&r);
        int rc = zvs_cmd_parse(sp + 1, privclass, &cmd, &r);
        if (rc >= 0)
            fail_msg("golden command accepted: \"%s\"", sp + 1);
        assert_memory_equal(&cmd, &before, sizeof cmd);
        assert_true(r.rc > 0);
        text_add(&out, line, n);
        text_add(&out, "\n", 1);
        text_add(&out, r.text, r.len);
        snprintf(rcline, sizeof rcline, "rc=%d\n", r.rc);
        text_add(&out, rcline, strlen(rcline));
        zvs_cp_response_fini(&r);
        ncmd++;
    }
    assert_true(ncmd >= 80);
    if (getenv("ZVS_GOLDEN_UPDATE") != NULL) {
        FILE *f = fopen(GOLDEN_ERRORS, "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(out.s, 1, out.len, f), out.len);
        fclose(f);
    }
    if (out.len != len || memcmp(out.s, golden, len) != 0) {
        fprintf(stderr, "%s differs; rebuilt:\n%s", GOLDEN_ERRORS, out.s);
        fail();
    }
    free(out.s);
    free(golden);
}

/* ---- canonical text ------------------------------------------------------------------ */

static void test_format_round_trip(void **state)
{
    static const struct { const char *in; const char *canon; } cases[] = {
        { "set port group ccbgroup join 28ba 2902 300.p1",
          "SET PORT GROUP CCBGROUP JOIN 28BA 2902 0300.P1" },
        { "SET PORT GROUP G1 LEAVE 28ba", "SET PORT GROUP G1 LEAVE 28BA" },
        { "SET PORT GROUP G1 LACP INACT", "SET PORT GROUP G1 LACP INACTIVE" },
        { "SET PORT GROUP G1 LACP ACT", "SET PORT GROUP G1 LACP ACTIVE" },
        { "SET PORT GROUP G1 INT 30", "SET PORT GROUP G1 INTERVAL 30" },
        { "SET PORT GROUP G1 INT OFF", "SET PORT GROUP G1 INTERVAL OFF" },
        { "Q PORT GROUP", "QUERY PORT GROUP ALL" },
        { "Q PORT GROUP G1", "QUERY PORT GROUP G1" },
        { "Q LACP DET", "QUERY LACP ALL DETAILS" },
        { "Q LACP G1", "QUERY LACP G1" },
        { "Q VSW CCBVSW1 DET", "QUERY VSWITCH CCBVSW1 DETAILS" },
        { "SET LACP 28BA.P2 DROPRX ON", "SET LACP 28BA.P2 DROPRX ON" },
        { "SET LACP 28BA DROPTX OFF", "SET LACP 28BA DROPTX OFF" },
        { "SET LACP 28BA DELAYTX 007", "SET LACP 28BA DELAYTX 7" },
    };
    char buf[256];

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct zvs_cmd c = parse_ok(cases[i].in, ALL_CLASSES);
        size_t n = zvs_cmd_format(&c, buf, sizeof buf);
        assert_string_equal(buf, cases[i].canon);
        assert_int_equal(n, strlen(cases[i].canon));
        expect_same(cases[i].in, buf, ALL_CLASSES);
    }
    /* A short buffer: cut, NUL-terminated, full length returned. */
    struct zvs_cmd c = parse_ok("Q VSW CCBVSW1 DET", ALL_CLASSES);
    assert_int_equal(zvs_cmd_format(&c, buf, 8), strlen("QUERY VSWITCH CCBVSW1 DETAILS"));
    assert_string_equal(buf, "QUERY V");
}

/* ---- responses ----------------------------------------------------------------------- */

static void test_response_lines(void **state)
{
    struct zvs_cp_response r;

    zvs_cp_response_init(&r);
    assert_non_null(r.text);
    assert_string_equal(r.text, "");
    zvs_cp_printf(&r, "VSWITCH SYSTEM %s Type: QDIO Connected: %d", "CCBVSW1", 2);
    zvs_cp_printf(&r, "a\x1e" "b");
    assert_string_equal(r.text, "VSWITCH SYSTEM CCBVSW1 Type: QDIO Connected: 2\na?b\n");
    assert_int_equal(r.len, strlen(r.text));
    assert_int_equal(r.rc, 0);
    zvs_cp_error(&r, ZVS_CPMSG_GROUP_NOT_FOUND, "nogrp");
    assert_string_equal(r.text + r.len - strlen("HCP1110E Port group NOGRP does not exist\n"),
                        "HCP1110E Port group NOGRP does not exist\n");
    assert_int_equal(r.rc, 1110);
    /* A line longer than printf's stack buffer. */
    char big[1000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    size_t before = r.len;
    zvs_cp_printf(&r, "%s", big);
    assert_int_equal(r.len, before + sizeof big);
    assert_int_equal(r.text[r.len - 1], '\n');
    zvs_cp_response_fini(&r);
    assert_int_equal(r.len, 0);
    assert_string_equal(r.text, "");
    zvs_cp_response_fini(&r);           /* twice is harmless */
}

static void test_response_truncated(void **state)
{
    struct zvs_cp_response r;
    char line[1024];
    unsigned lines = 0;

    memset(line, 'y', sizeof line - 1);
    line[sizeof line - 1] = '\0';
    zvs_cp_response_init(&r);
    for (unsigned i = 0; i < 2000; i++) {
        size_t before = r.len;
        zvs_cp_printf(&r, "%s", line);
        if (r.len == before + sizeof line)
            lines++;
    }
    const char *tail = "HCP1109W Response truncated\n";
    assert_true(r.len <= (1u << 20) + 64);
    assert_true(r.cap <= (1u << 20) + 65);
    assert_true(lines > 1000 && lines < 2000);
    assert_string_equal(r.text + r.len - strlen(tail), tail);
    assert_int_equal(r.len, (size_t)lines * sizeof line + strlen(tail));
    size_t len = r.len;
    zvs_cp_printf(&r, "more");
    zvs_cp_error(&r, ZVS_CPMSG_INVALID_OPTION, "X");
    assert_int_equal(r.len, len);       /* nothing after the truncation line */
    assert_int_equal(r.rc, 3);          /* but the rc still counts */
    zvs_cp_response_fini(&r);
}

/* ---- catalogue ----------------------------------------------------------------------- */

static void test_catalogue(void **state)
{
    char buf[ZVS_CPMSG_TEXT_MAX];
    const char *args[] = { "a\x1e\tb", "c" };

    for (int i = 0; i < ZVS_CPMSG_COUNT; i++) {
        const struct zvs_cpmsg_def *d = zvs_cpmsg_def((enum zvs_cpmsg_id)i);
        assert_non_null(d->text);
        assert_true(zvs_cpmsg_nargs((enum zvs_cpmsg_id)i) <= ZVS_CPMSG_ARGS_MAX);
        assert_true(d->severity == 'I' || d->severity == 'W' || d->severity == 'E' ||
                    d->severity == 'S');
        /* Errors end a command with their number as rc; notices with 0. */
        assert_int_equal(d->rc, d->severity == 'E' || d->severity == 'S' ? d->number : 0);
        for (int j = 0; j < i; j++)
            assert_int_not_equal(zvs_cpmsg_def((enum zvs_cpmsg_id)j)->number, d->number);
    }
    zvs_cpmsg_format(buf, sizeof buf, ZVS_CPMSG_UNKNOWN_COMMAND, args, 1);
    assert_string_equal(buf, "HCP001E Unknown CP command: A??B");
    zvs_cpmsg_format(buf, sizeof buf, ZVS_CPMSG_DEVICE_IN_GROUP, args, 1);
    assert_string_equal(buf, "HCP1112E Device A??B is already in port group ?");
    /* Cut to the buffer, full length returned. */
    assert_int_equal(zvs_cpmsg_format(buf, 10, ZVS_CPMSG_OPERAND_MISSING, NULL, 0),
                     strlen("HCP026E Operand missing or invalid"));
    assert_string_equal(buf, "HCP026E O");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grammar_check),
        cmocka_unit_test(test_set_port_group_join),
        cmocka_unit_test(test_set_port_group_leave),
        cmocka_unit_test(test_set_port_group_lacp),
        cmocka_unit_test(test_set_port_group_interval),
        cmocka_unit_test(test_query_port_group),
        cmocka_unit_test(test_query_lacp),
        cmocka_unit_test(test_query_vswitch),
        cmocka_unit_test(test_set_lacp_fault),
        cmocka_unit_test(test_blanks_and_report_sequence),
        cmocka_unit_test(test_abbreviations),
        cmocka_unit_test(test_privilege),
        cmocka_unit_test(test_line_length),
        cmocka_unit_test(test_many_tokens),
        cmocka_unit_test(test_golden_errors),
        cmocka_unit_test(test_format_round_trip),
        cmocka_unit_test(test_response_lines),
        cmocka_unit_test(test_response_truncated),
        cmocka_unit_test(test_catalogue),
    };
    return cmocka_run_group_tests_name("command", tests, NULL, NULL);
}
