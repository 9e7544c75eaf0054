/* What z/VM automation issues, answered by the real daemon (hermetic.h): each value is
 * taken out of the response the way the client takes it (its word index or pattern, cited
 * by client, file and function; the expressions are written here, not copied) and
 * compared with the configuration (tests/unit/hermetic/SYSTEM-AUTO.CONFIG, USER-AUTO.DIRECT).
 * Expected lines are typed from IBM's documented ids and the layouts the clients parse:
 * xCAT (perl-xCAT/xCAT/zvmCPUtils.pm), networking-zvm (neutron/plugins/zvm/common/utils.py
 * and its tests), Feilong (zvmsdk/utils.py). The root lab tests/integration/zvm_clients.sh
 * runs the same use cases through vmcp.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cp-commands/version.h"
#include "hermetic.h"

static const char *const auto_links[] = { "osa28ba", NULL };

static struct herm *auto_start(void)
{
    struct herm_opts o = {
        .sysconfig = "tests/unit/hermetic/SYSTEM-AUTO.CONFIG",
        .userdirect = "tests/unit/hermetic/USER-AUTO.DIRECT",
        .links = auto_links,
    };
    return herm_start(&o);
}

/* Line n (0-based) of text into buf ("" past the end). */
static const char *line_of(const char *text, unsigned n, char *buf, size_t size)
{
    const char *p = text;
    for (unsigned i = 0; i < n && p != NULL; i++)
        if ((p = strchr(p, '\n')) != NULL)
            p++;
    if (p == NULL) {
        snprintf(buf, size, "%s", "");
        return buf;
    }
    size_t len = strcspn(p, "\n");
    snprintf(buf, size, "%.*s", (int)len, p);
    return buf;
}

/* Perl's split(' ', line)[n]: blank-separated words, leading blanks ignored. */
static const char *word_of(const char *line, unsigned n, char *buf, size_t size)
{
    const char *p = line;
    for (unsigned i = 0;; i++) {
        p += strspn(p, " \t");
        size_t len = strcspn(p, " \t");
        if (len == 0) {
            snprintf(buf, size, "%s", "");
            return buf;
        }
        if (i == n) {
            snprintf(buf, size, "%.*s", (int)len, p);
            return buf;
        }
        p += len;
    }
}

/* The lines of text containing `what`, case-insensitively (egrep -i what), one per call:
 * *pos walks the text; NULL when there are no more. */
static const char *next_match(const char *text, const char *what, const char **pos, char *buf,
                              size_t size)
{
    const char *p = *pos != NULL ? *pos : text;
    while (*p != '\0') {
        size_t len = strcspn(p, "\n");
        snprintf(buf, size, "%.*s", (int)len, p);
        p += len + (p[len] == '\n');
        for (const char *q = buf; *q != '\0'; q++)
            if (strncasecmp(q, what, strlen(what)) == 0) {
                *pos = p;
                return buf;
            }
    }
    *pos = p;
    return NULL;
}

/* QUERY USERID: xCAT zvmCPUtils.pm getUserId takes word 0 of `vmcp q userid`, getHost
 * word 2; CP's answer is "userid AT system". The system's name is SYSTEM CONFIG's
 * SYSTEM_IDENTIFIER_DEFAULT (the LPAR entry names another host); root's console userid
 * is SYSTEM_USERIDS OPERATOR's. */
static void userid_and_system_name(void **state)
{
    struct herm *h = auto_start();
    char w[64];
    int rc;
    const char *out = herm_cp(h, "LNXA", "G", "Q USERID", &rc);
    assert_int_equal(rc, 0);
    assert_string_equal(out, "LNXA     AT ZVSLAB1");
    assert_string_equal(word_of(out, 0, w, sizeof w), "LNXA");
    assert_string_equal(word_of(out, 2, w, sizeof w), "ZVSLAB1");
    assert_string_equal(herm_op(h, "QUERY USERID"), "OPERATOR AT ZVSLAB1");
    assert_string_equal(herm_cp(h, "LNXA", "G", "Q USERIDS", &rc),
                        "HCPCQV003E Invalid option - USERIDS");
    assert_int_equal(rc, 3);
    herm_stop(h);
}

/* QUERY VIRTUAL NIC: xCAT zvmCPUtils.pm getVswitchId keeps the lines matching VSWITCH
 * (egrep -i) and takes word 4, the switch; getNetworkNamesArray does so for lines matching
 * VSWITCH or LAN and skips "None". networking-zvm's tests give the answer for a device the
 * guest lacks: "HCPNDQ040E Device 0800 does not exist". */
static void virtual_nic_discovery(void **state)
{
    struct herm *h = auto_start();
    char line[256], w[64];
    int rc;
    herm_guest_attach(h, "LNXA", 0xF000);
    char *out = strdup(herm_cp(h, "LNXA", "G", "Q V NIC", &rc));   /* h owns the answer */
    assert_int_equal(rc, 0);
    assert_string_equal(word_of(line_of(out, 0, line, sizeof line), 0, w, sizeof w), "Adapter");
    assert_string_equal(word_of(line, 1, w, sizeof w), "F000.P00");
    const char *pos = NULL;
    unsigned n = 0;
    while (next_match(out, "VSWITCH", &pos, line, sizeof line) != NULL) {
        assert_string_equal(word_of(line, 4, w, sizeof w), "AUTOSW1");
        assert_string_equal(word_of(line, 1, w, sizeof w), "02-00-0C-00-01-01");
        n++;
    }
    assert_int_equal(n, 1);
    assert_string_equal(herm_cp(h, "LNXA", "G", "QUERY VIRTUAL NIC F000", &rc), out);
    free(out);
    assert_string_equal(herm_cp(h, "LNXA", "G", "Q V NIC 0800", &rc),
                        "HCPNDQ040E Device 0800 does not exist");
    assert_int_equal(rc, 40);
    /* Another user's NIC is not the issuer's: LNXB has none. */
    assert_string_equal(herm_cp(h, "LNXB", "G", "Q V NIC F000", &rc),
                        "HCPNDQ040E Device F000 does not exist");
    pos = NULL;
    assert_null(next_match(herm_cp(h, "LNXB", "G", "Q V NIC", &rc), "VSWITCH", &pos, line,
                           sizeof line));
    assert_int_equal(rc, 0);
    /* An operand QUERY VIRTUAL NIC does not take: CP's 003E with the command's module. */
    assert_string_equal(herm_cp(h, "LNXA", "G", "Q V NIC F000 FOO", &rc),
                        "HCPNDQ003E Invalid option - FOO");
    herm_stop(h);
}

/* QUERY LAN: xCAT zvmCPUtils.pm getNetworkLayer says layer 2 when any line of `vmcp q lan
 * name` matches ETHERNET (else 3); getNetworkNames keeps lines matching LAN or VSWITCH whose
 * word 0 is VSWITCH and takes words 0-2; getNetworkType calls a network a VSWITCH when its
 * Type line matches VSWITCH. */
static void lan_layer_detection(void **state)
{
    struct herm *h = auto_start();
    char line[256], w[3][64];
    int rc;
    char *out = strdup(herm_cp(h, "LNXA", "G", "Q LAN AUTOSW1", &rc));  /* h owns answers */
    assert_int_equal(rc, 0);
    const char *pos = NULL;
    int layer = 3;
    while (next_match(out, "ETHERNET", &pos, line, sizeof line) != NULL)
        layer = 2;
    assert_int_equal(layer, 2);                 /* DEFINE VSWITCH AUTOSW1 ... ETHERNET */
    pos = NULL;
    unsigned n = 0;
    while (next_match(out, "VSWITCH", &pos, line, sizeof line) != NULL) {
        if (strcmp(word_of(line, 0, w[0], sizeof w[0]), "VSWITCH") != 0)
            continue;
        assert_string_equal(word_of(line, 1, w[1], sizeof w[1]), "SYSTEM");
        assert_string_equal(word_of(line, 2, w[2], sizeof w[2]), "AUTOSW1");
        assert_non_null(strstr(line, "Type: QDIO"));
        n++;
    }
    assert_int_equal(n, 1);
    assert_string_equal(herm_cp(h, "LNXA", "G", "QUERY LAN", &rc), out);
    assert_string_equal(herm_cp(h, "LNXA", "G", "QUERY LAN ALL OWNER SYSTEM", &rc), out);
    assert_string_equal(herm_cp(h, "LNXA", "G", "QUERY LAN AUTOSW1 OWNER SYSTEM", &rc), out);
    free(out);
    herm_cp(h, "LNXA", "G", "QUERY LAN OWNER LNXA", &rc);
    assert_int_equal(rc, 0);                    /* no guest LANs: nothing to show */
    herm_cp(h, "LNXA", "G", "QUERY LAN NOSUCH", &rc);
    assert_int_not_equal(rc, 0);
    /* A guest with no grant and no NIC on the switch sees no LAN, as QUERY VSWITCH. */
    pos = NULL;
    assert_null(next_match(herm_cp(h, "LNXB", "G", "QUERY LAN", &rc), "VSWITCH", &pos, line,
                           sizeof line));
    herm_stop(h);
}

/* DEFINE NIC vdev TYPE QDIO (xCAT's chvm --addnic, networking-zvm): TYPE is optional, as
 * IBM's DEFINE NIC diagram has it; HIPERSOCKETS is refused as an invalid option. */
static void define_nic_type(void **state)
{
    struct herm *h = auto_start();
    char line[256];
    int rc;
    const char *out = herm_cp(h, "LNXB", "G", "DEFINE NIC 0700 TYPE QDIO", &rc);
    assert_int_equal(rc, 0);
    assert_string_equal(line_of(out, 0, line, sizeof line),
                        "NIC 0700 is created; devices 0700-0702 defined");
    assert_string_equal(herm_cp(h, "LNXB", "G", "DEF NIC 0800 TYPE HIPERSOCKETS", &rc),
                        "HCPNIC003E Invalid option - HIPERSOCKETS");
    assert_int_equal(rc, 3);
    assert_string_equal(herm_cp(h, "LNXB", "G", "DEF NIC 0800 TYPE", &rc),
                        "HCPCFC026E Operand missing or invalid");
    out = herm_cp(h, "LNXB", "G", "Q V NIC 0700", &rc);
    assert_int_equal(rc, 0);
    assert_string_equal(line_of(out, 0, line, sizeof line),
                        "Adapter 0700.P00 Type: QDIO      Name: UNASSIGNED  Devices: 3");
    herm_stop(h);
}

/* QUERY CPLEVEL: CP's three lines (level, generated, IPL: xCAT zvmCPUtils.pm getIplTime
 * takes line 2), then zvswitch's version (ours). */
static void cplevel(void **state)
{
    struct herm *h = auto_start();
    char line[256], want[128];
    char *out = strdup(herm_op(h, "QUERY CPLEVEL"));                 /* h owns answers */
    assert_string_equal(line_of(out, 0, line, sizeof line),
                        "z/VM Version 7 Release 4.0, service level 0000 (64-bit)");
    assert_int_equal(strncmp(line_of(out, 1, line, sizeof line), "Generated at ", 13), 0);
    assert_int_equal(strncmp(line_of(out, 2, line, sizeof line), "IPL at ", 7), 0);
    snprintf(want, sizeof want, "zvswitch %s", zvs_version());
    assert_string_equal(line_of(out, 3, line, sizeof line), want);
    assert_string_equal(herm_op(h, "Q CPLEV"), out);
    free(out);
    herm_stop(h);
}

/* What s390-tools' scripts/dbginfo.sh collects from CP (its VM_CMDS list) as a class B
 * user: every command answers (rc 0), none takes an operand for a switch, LAN or group
 * name ("... does not exist" would), and zdev's nic.c and znetconf read the layer from
 * QUERY VSWITCH name: word 11 of the whole answer / word 3 of line 2 is ETHERNET. */
static void dbginfo_commands(void **state)
{
    static const char *const cmds[] = {
        "q userid", "q cplevel", "q v nic", "q vmlan", "q vswitch", "q vswitch details",
        "q vswitch access", "q vswitch active", "q vswitch accesslist",
        "q vswitch promiscuous", "q vswitch controller", "q port group all active details",
        "q lan", "q lan all details", "q lan all access", "q nic",
    };
    struct herm *h = auto_start();
    char line[256], w[64];
    int rc;
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        const char *out = herm_cp(h, "OPERATOR", "ABCDEFG", cmds[i], &rc);
        if (rc != 0 || strstr(out, "does not exist") != NULL)
            fail_msg("%s: rc %d: %s", cmds[i], rc, out);
    }
    const char *out = herm_op(h, "query vswitch AUTOSW1");
    const char *p = out;
    for (unsigned k = 0; k < 11; k++)            /* zdev nic.c: argv[11] of the answer */
        p += strspn(p, " \n"), p += strcspn(p, " \n");
    p += strspn(p, " \n");
    assert_int_equal(strncmp(p, "ETHERNET", 8), 0);
    assert_string_equal(word_of(line_of(out, 1, line, sizeof line), 2, w, sizeof w),
                        "ETHERNET");               /* znetconf: line 2, FIELD3 */
    assert_string_equal(word_of(line_of(herm_op(h, "q lan AUTOSW1 owner SYSTEM"), 1, line,
                                        sizeof line), 2, w, sizeof w), "ETHERNET");
    /* SYSTEM CONFIG's IPTIMEOUT 30 (written as real files write DEFINE VSWITCH: TYPE QDIO
     * UPLINK RDEV ...) is what QUERY VSWITCH shows. */
    out = herm_op(h, "query vswitch AUTOSW1");
    assert_non_null(strstr(out, "\n  IPTimeout: 30 "));
    herm_stop(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(userid_and_system_name),
        cmocka_unit_test(virtual_nic_discovery),
        cmocka_unit_test(lan_layer_detection),
        cmocka_unit_test(define_nic_type),
        cmocka_unit_test(cplevel),
        cmocka_unit_test(dbginfo_commands),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
