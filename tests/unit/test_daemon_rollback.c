/* A configuration command whose data plane cannot follow is rolled back (daemon/README.md,
 * "Commands are transactions"): for every command that reconciles, a data-plane step is
 * made to fail through the reconciler's seam (daemon/step_fault.h), and the command must
 * answer its warnings and ZVSCMD1119S, leave the running configuration, every QUERY (VSWITCH
 * DETAILS, PORT GROUP, NIC DETAILS, LACP, ACCESSLIST, VMLAN), the counters report (the
 * ports the data plane holds, with their counters and MAC tables) and the data plane's
 * fingerprint (daemon_fingerprint.c: with the event loop's watches and timers) byte for
 * byte as they were, close nothing while it is watched, and succeed once the fault is
 * lifted.
 * Commands that only let go (DETACH, LEAVE, UNCOUPLE, ...) take no step that can fail:
 * with every kind of step armed to fail they succeed and leave every fault armed.
 * The starting point is the report's system (hermetic.h: CCBGROUP on 28BA and 2902,
 * CCBVSW1, LNXA and LNXB coupled) after LACP converged and some traffic went out.
 * A dummy link opens once (backends/dummy.h): a device a rolled-back command had opened
 * is plugged in again (herm_replug) before the command is repeated, as an interface stays
 * there to be opened again.
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

#include "hermetic.h"
#include "backends/dummy.h"
#include "cp-commands/config.h"
#include "daemon/daemon.h"
#include "daemon/daemon_impl.h"         /* the running configuration, the fingerprint */
#include "daemon/evloop.h"
#include "daemon/step_fault.h"

static const char *const links[] = { "osa28ba", "osa2902", "osa2a00", "osa2b00", "osa2d00",
                                     NULL };
static const uint8_t MAC_A[6] = { 0x02, 0x00, 0x0c, 0x00, 0x01, 0x01 };
static const uint8_t MAC_LAN[6] = { 0x02, 0x00, 0x5e, 0x00, 0x00, 0x42 };

#define FAILED(cmd) "ZVSCMD1119S Command " cmd " failed: THE DATA PLANE COULD NOT FOLLOW (SEE ABOVE)"
#define COUPLE_FAILED "ZVSCMD1119S Command COUPLE failed: THE NIC COULD NOT BE COUPLED (SEE ABOVE)"

/* The report's system, converged, with traffic counted on LNXA's NIC and the members. */
static struct herm *start_with(bool console, uint32_t monitor_s)
{
    struct herm_opts o = {
        .sysconfig = "configs/lab/SYSTEM-CCB.CONFIG",
        .userdirect = "tests/unit/hermetic/USER-CCB.DIRECT",
        .links = links, .partner_lacp = true, .console = console,
        .monitor_interval_s = monitor_s,
    };
    struct herm *h = herm_start(&o);
    struct herm_guest *a = herm_report_sequence(h);
    herm_op(h, "SET VSWITCH CCBVSW1 GRANT LNXB");
    herm_op(h, "COUPLE USERID LNXB F000 TO SYSTEM CCBVSW1");
    herm_warp(h, 5.0);                  /* both members distributing */
    uint8_t f[128];
    for (uint32_t i = 0; i < 8; i++) {
        herm_frame(f, sizeof f, MAC_LAN, MAC_A, i);
        herm_guest_send(h, a, f, sizeof f, 1);
    }
    return h;
}

static struct herm *start(void)
{
    return start_with(false, 0);
}

static void put(char **s, size_t *len, size_t *cap, const char *text)
{
    size_t n = strlen(text);
    if (*len + n + 2 > *cap) {
        *cap = 2 * (*len + n + 2);
        *s = realloc(*s, *cap);
        assert_non_null(*s);
    }
    memcpy(*s + *len, text, n);
    *len += n;
    (*s)[(*len)++] = '\n';
    (*s)[*len] = '\0';
}

static void put_stream(char **s, size_t *len, size_t *cap, void (*fn)(struct herm *, FILE *),
                       struct herm *h)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    assert_non_null(f);
    fn(h, f);
    fclose(f);
    put(s, len, cap, buf);
    free(buf);
}

static void dump_config(struct herm *h, FILE *f)
{
    assert_int_equal(zvs_cfg_dump(h->d->run, f), 0);
}

static void dump_report(struct herm *h, FILE *f)
{
    zvsd_report(h->d, f);
}

/* Everything the operator and the data plane show, as one text. */
static char *snapshot(struct herm *h)
{
    static const char *const q[] = {
        "QUERY VSWITCH ALL DETAILS", "QUERY VSWITCH ALL ACCESSLIST", "QUERY PORT GROUP",
        "QUERY LACP", "QUERY VMLAN", "QUERY NIC USERID OPERATOR DETAILS",
        "QUERY NIC USERID LNXA DETAILS", "QUERY NIC USERID LNXB DETAILS",
        "QUERY NIC USERID LNXC DETAILS",
    };
    char *s = NULL, fp[32];
    size_t len = 0, cap = 0;
    for (size_t i = 0; i < sizeof q / sizeof q[0]; i++) {
        int rc;
        put(&s, &len, &cap, q[i]);
        put(&s, &len, &cap, herm_cp(h, "OPERATOR", "ABCDEFG", q[i], &rc));
    }
    put_stream(&s, &len, &cap, dump_config, h);
    put_stream(&s, &len, &cap, dump_report, h);
    snprintf(fp, sizeof fp, "%016llx", (unsigned long long)zvsd_fingerprint(h->d));
    put(&s, &len, &cap, fp);
    return s;
}

/* `line` typed by `userid` with `classes`, the nth step of `step` failing (err), answers
 * `want` with rc 1119 and changes nothing anyone can see; the fault fired. */
static void rolled_back_as(struct herm *h, const char *userid, const char *classes,
                           const char *line, enum zvsd_step step, unsigned nth, int err,
                           const char *want)
{
    char *before = snapshot(h);
    uint64_t misuse = zvs_evloop_misuse();
    zvsd_step_fail(h->d, step, nth, err);
    int rc;
    const char *out = herm_cp(h, userid, classes, line, &rc);
    assert_string_equal(out, want);
    assert_int_equal(rc, 1119);
    assert_true(zvsd_step_count(h->d, step) >= nth);     /* the rollback's steps count */
    zvsd_step_fail(h->d, step, 0, 0);
    char *after = snapshot(h);
    assert_string_equal(after, before);
    assert_int_equal(zvs_evloop_misuse(), misuse);  /* nothing closed while watched */
    free(before);
    free(after);
}

static void rolled_back(struct herm *h, const char *line, enum zvsd_step step, unsigned nth,
                        int err, const char *want)
{
    rolled_back_as(h, "OPERATOR", "ABCDEFG", line, step, nth, err, want);
}

static long file_size(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    fclose(f);
    return n;
}

/* ---- DEFINE VSWITCH -------------------------------------------------------------------- */

static void define_vswitch_device_not_opened(void **state)
{
    struct herm *h = start();
    rolled_back(h, "DEFINE VSWITCH RDEVSW RDEV 2A00 2B00", ZVSD_STEP_DEVICE_OPEN, 2, EACCES,
                "Warning: VSWITCH RDEVSW RDEV 2B00 cannot be opened: interface osa2b00: "
                "Permission denied\n" FAILED("DEFINE VSWITCH"));
    herm_replug(h, "osa2a00");          /* opened ahead, closed by the rollback */
    assert_string_equal(herm_op(h, "DEFINE VSWITCH RDEVSW RDEV 2A00 2B00"),
                        "VSWITCH SYSTEM RDEVSW is created");
    herm_stop(h);
}

static void define_vswitch_not_made(void **state)
{
    struct herm *h = start();
    rolled_back(h, "DEFINE VSWITCH RDEVSW RDEV 2A00", ZVSD_STEP_SWITCH, 1, ENOMEM,
                "Warning: VSWITCH RDEVSW: out of memory\n" FAILED("DEFINE VSWITCH"));
    herm_replug(h, "osa2a00");
    assert_string_equal(herm_op(h, "DEFINE VSWITCH RDEVSW RDEV 2A00"),
                        "VSWITCH SYSTEM RDEVSW is created");
    herm_stop(h);
}

/* 2B00 cannot be attached (asked before any RDEV is): 2A00 and 2B00, opened ahead, are
 * closed, and the monitor file has no event of them. */
static void define_vswitch_uplink_not_attached(void **state)
{
    struct herm *h = start_with(false, 60);
    long monitor = file_size(h->mon_path);
    rolled_back(h, "DEFINE VSWITCH RDEVSW RDEV 2A00 2B00", ZVSD_STEP_UPLINK_ADD, 2, ENOSPC,
                "Warning: VSWITCH RDEVSW RDEV 2B00: no room for the uplink\n"
                FAILED("DEFINE VSWITCH"));
    assert_int_equal(file_size(h->mon_path), monitor);
    herm_replug(h, "osa2a00");
    herm_replug(h, "osa2b00");
    assert_string_equal(herm_op(h, "DEFINE VSWITCH RDEVSW RDEV 2A00 2B00"),
                        "VSWITCH SYSTEM RDEVSW is created");
    herm_stop(h);
}

static void define_vswitch_member_cannot_join(void **state)
{
    struct herm *h = start();
    herm_op(h, "SET PORT GROUP G2 JOIN 2A00 2B00");
    rolled_back(h, "DEFINE VSWITCH V2 ETHERNET GROUP G2", ZVSD_STEP_JOIN, 2, EBUSY,
                "Warning: port group G2: cannot JOIN 2B00: Device or resource busy\n"
                FAILED("DEFINE VSWITCH"));
    herm_replug(h, "osa2a00");
    herm_replug(h, "osa2b00");
    assert_string_equal(herm_op(h, "DEFINE VSWITCH V2 ETHERNET GROUP G2"),
                        "VSWITCH SYSTEM V2 is created");
    herm_stop(h);
}

static void define_vswitch_group_not_made(void **state)
{
    struct herm *h = start();
    herm_op(h, "SET PORT GROUP G2 JOIN 2A00 2B00");
    rolled_back(h, "DEFINE VSWITCH V2 ETHERNET GROUP G2", ZVSD_STEP_GROUP, 1, ENOMEM,
                "Warning: VSWITCH V2: cannot create port group G2\n" FAILED("DEFINE VSWITCH"));
    herm_replug(h, "osa2a00");
    herm_replug(h, "osa2b00");
    assert_string_equal(herm_op(h, "DEFINE VSWITCH V2 ETHERNET GROUP G2"),
                        "VSWITCH SYSTEM V2 is created");
    herm_stop(h);
}

/* The members of a static group are in use as they join, and say so; the RDEV beside
 * them cannot be attached: the console hears nothing of the command, then everything of
 * the same command once it succeeds. */
static void define_vswitch_says_nothing_when_rolled_back(void **state)
{
    struct herm *h = start_with(true, 0);
    herm_op(h, "SET PORT GROUP G2 JOIN 2B00 2D00");
    herm_op(h, "SET PORT GROUP G2 LACP INACTIVE");
    int op = herm_console_attach(h, "OPERATOR", "ABCDEFG");
    assert_string_equal(herm_console_read(h, op), "");
    rolled_back(h, "DEFINE VSWITCH V3 ETHERNET GROUP G2 RDEV 2A00", ZVSD_STEP_UPLINK_ADD, 1,
                ENOSPC, "Warning: VSWITCH V3 RDEV 2A00: no room for the uplink\n"
                FAILED("DEFINE VSWITCH"));
    assert_string_equal(herm_console_read(h, op), "");
    herm_replug(h, "osa2a00");
    herm_replug(h, "osa2b00");
    herm_replug(h, "osa2d00");
    assert_string_equal(herm_op(h, "DEFINE VSWITCH V3 ETHERNET GROUP G2 RDEV 2A00"),
                        "VSWITCH SYSTEM V3 is created");
    assert_string_equal(herm_console_read(h, op),
        "5.000s ZVSLAG1173I Port group G2 member 2B00 is in use: collecting and distributing\n"
        "5.000s ZVSLAG1173I Port group G2 member 2D00 is in use: collecting and distributing\n"
        "5.000s HCPSWU2830I VSWITCH SYSTEM V3 status is ready.\n");
    close(op);
    herm_stop(h);
}

/* ---- SET VSWITCH ----------------------------------------------------------------------- */

static void set_vswitch_rdev(void **state)
{
    struct herm *h = start();
    herm_op(h, "DEFINE VSWITCH RDEVSW RDEV 2A00");
    rolled_back(h, "SET VSWITCH RDEVSW RDEV 2B00", ZVSD_STEP_DEVICE_OPEN, 1, EACCES,
                "Warning: VSWITCH RDEVSW RDEV 2B00 cannot be opened: interface osa2b00: "
                "Permission denied\n" FAILED("SET VSWITCH"));
    assert_string_equal(herm_op(h, "SET VSWITCH RDEVSW RDEV 2B00"), "Command complete");
    herm_stop(h);
}

static void set_vswitch_connect(void **state)
{
    struct herm *h = start();
    herm_op(h, "DEFINE VSWITCH RDEVSW RDEV 2A00 2B00 DISCONNECT");
    rolled_back(h, "SET VSWITCH RDEVSW CONNECT", ZVSD_STEP_DEVICE_OPEN, 2, EIO,
                "Warning: VSWITCH RDEVSW RDEV 2B00 cannot be opened: interface osa2b00: "
                "Input/output error\n" FAILED("SET VSWITCH"));
    herm_replug(h, "osa2a00");
    rolled_back(h, "SET VSWITCH RDEVSW CONNECT", ZVSD_STEP_UPLINK_ADD, 2, ENOSPC,
                "Warning: VSWITCH RDEVSW RDEV 2B00: no room for the uplink\n"
                FAILED("SET VSWITCH"));
    herm_replug(h, "osa2a00");
    herm_replug(h, "osa2b00");
    assert_string_equal(herm_op(h, "SET VSWITCH RDEVSW CONNECT"), "Command complete");
    herm_stop(h);
}

static void set_vswitch_group(void **state)
{
    struct herm *h = start();
    herm_op(h, "DEFINE VSWITCH RDEVSW RDEV 2A00");
    herm_op(h, "SET PORT GROUP G2 JOIN 2B00 2D00");
    rolled_back(h, "SET VSWITCH RDEVSW GROUP G2", ZVSD_STEP_DEVICE_OPEN, 2, EACCES,
                "Warning: port group G2: device 2D00 cannot be opened: interface osa2d00: "
                "Permission denied\n" FAILED("SET VSWITCH"));
    herm_replug(h, "osa2b00");
    rolled_back(h, "SET VSWITCH RDEVSW GROUP G2", ZVSD_STEP_JOIN, 2, EBUSY,
                "Warning: port group G2: cannot JOIN 2D00: Device or resource busy\n"
                FAILED("SET VSWITCH"));
    herm_replug(h, "osa2b00");
    herm_replug(h, "osa2d00");
    assert_string_equal(herm_op(h, "SET VSWITCH RDEVSW GROUP G2"), "Command complete");
    herm_stop(h);
}

/* CCBGROUP is replaced by G2: the new group and its members are checked before
 * CCBGROUP is released, so a failure leaves CCBGROUP running as it was. */
static void set_vswitch_group_replaced(void **state)
{
    struct herm *h = start();
    herm_op(h, "SET PORT GROUP G2 JOIN 2A00 2B00");
    const char *line = "SET VSWITCH CCBVSW1 GROUP G2";
    rolled_back(h, line, ZVSD_STEP_GROUP, 1, ENOMEM,
                "Warning: VSWITCH CCBVSW1: cannot create port group G2\n" FAILED("SET VSWITCH"));
    herm_replug(h, "osa2a00");
    herm_replug(h, "osa2b00");
    rolled_back(h, line, ZVSD_STEP_JOIN, 2, EBUSY,
                "Warning: port group G2: cannot JOIN 2B00: Device or resource busy\n"
                FAILED("SET VSWITCH"));
    herm_replug(h, "osa2a00");
    herm_replug(h, "osa2b00");
    rolled_back(h, line, ZVSD_STEP_DEVICE_OPEN, 1, EACCES,
                "Warning: port group G2: device 2A00 cannot be opened: interface osa2a00: "
                "Permission denied\n" FAILED("SET VSWITCH"));
    assert_string_equal(herm_op(h, line), "Command complete");
    assert_non_null(strstr(herm_op(h, "QUERY PORT GROUP G2"), "Members: 2"));
    herm_stop(h);
}

/* A new RDEV list closes every RDEV and opens the list in its order: 2B00's attach is
 * asked before 2A00 closes, so its failure finds 2A00 still open, with its counters. */
static void set_vswitch_rdev_uplink_not_attached(void **state)
{
    struct herm *h = start();
    herm_op(h, "DEFINE VSWITCH RDEVSW RDEV 2A00");
    rolled_back(h, "SET VSWITCH RDEVSW RDEV 2B00 2A00", ZVSD_STEP_UPLINK_ADD, 1, ENOSPC,
                "Warning: VSWITCH RDEVSW RDEV 2B00: no room for the uplink\n"
                FAILED("SET VSWITCH"));
    herm_stop(h);
}

/* A device that waited (no interface) and opens during a command's pass joins and stays
 * after the rollback (the previous configuration wants it as well): the data plane is not
 * what it was, and ZVSCMD1150W says so. */
static void device_ready_during_rolled_back_command_is_said(void **state)
{
    struct herm *h = start();
    assert_string_equal(herm_op(h, "SET PORT GROUP CCBGROUP JOIN 2C00"),
                        "Command complete\n"
                        "Warning: port group CCBGROUP: device 2C00 cannot be opened: "
                        "interface osa2c00: No such device");
    struct zvs_port *far = NULL;
    assert_int_equal(zvs_dummy_create("osa2c00", &far), 0);
    zvsd_step_fail(h->d, ZVSD_STEP_SWITCH, 1, ENOMEM);
    int rc;
    assert_string_equal(herm_cp(h, "OPERATOR", "ABCDEFG", "DEFINE VSWITCH RDEVSW RDEV 2A00", &rc),
                        "Warning: VSWITCH RDEVSW: out of memory\n"
                        "ZVSCMD1150W Command DEFINE VSWITCH was rolled back, but the data plane "
                        "is not exactly as it was\n" FAILED("DEFINE VSWITCH"));
    assert_int_equal(rc, 1119);
    assert_non_null(strstr(herm_op(h, "QUERY PORT GROUP CCBGROUP"), "Members: 3"));
    assert_null(strstr(herm_op(h, "QUERY PORT GROUP CCBGROUP"), "NOT READY"));
    herm_stop(h);
    far->ops->destroy(far);
}

/* A step that had a problem for the same object in the pass before is not the doing of
 * the command that retries it: that command stands. 2C00 waits for its interface; the
 * interface comes and cannot be opened (EACCES) when ISOLATION's pass retries it: the
 * warning is new, the command is not rolled back. Then 2C00 is refused again (the pass
 * before was a rollback's, which retried it too) and the next command stands, silent. */
static void failure_known_before_fails_nothing(void **state)
{
    struct herm *h = start();
    herm_op(h, "SET PORT GROUP CCBGROUP JOIN 2C00");            /* waits: no osa2c00 */
    zvsd_step_fail(h->d, ZVSD_STEP_DEVICE_OPEN, 1, EACCES);
    assert_string_equal(herm_op(h, "SET VSWITCH CCBVSW1 ISOLATION ON"),
                        "Command complete\n"
                        "Warning: port group CCBGROUP: device 2C00 cannot be opened: "
                        "interface osa2c00: Permission denied");
    zvsd_step_fail(h->d, ZVSD_STEP_SWITCH, 1, ENOMEM);
    zvsd_step_fail(h->d, ZVSD_STEP_DEVICE_OPEN, 3, EACCES);     /* the rollback's 2C00 */
    int rc;
    herm_cp(h, "OPERATOR", "ABCDEFG", "DEFINE VSWITCH RDEVSW RDEV 2A00", &rc);
    assert_int_equal(rc, 1119);
    assert_int_equal(zvsd_step_count(h->d, ZVSD_STEP_DEVICE_OPEN), 3);
    zvsd_step_fail(h->d, ZVSD_STEP_DEVICE_OPEN, 1, EACCES);
    assert_string_equal(herm_op(h, "SET VSWITCH CCBVSW1 ISOLATION OFF"), "Command complete");
    assert_int_equal(zvsd_step_count(h->d, ZVSD_STEP_DEVICE_OPEN), 1);
    herm_stop(h);
}

/* MACPROTECT re-registers every coupled NIC: LNXB's fails after LNXA's changed. */
static void set_vswitch_macprotect(void **state)
{
    struct herm *h = start();
    rolled_back(h, "SET VSWITCH CCBVSW1 MACPROTECT ON", ZVSD_STEP_NIC_UPDATE, 2, ENOMEM,
                "Warning: LNXB.F000: cannot change its registration: Cannot allocate memory\n"
                FAILED("SET VSWITCH"));
    assert_string_equal(herm_op(h, "SET VSWITCH CCBVSW1 MACPROTECT ON"), "Command complete");
    herm_stop(h);
}

/* A GRANT's new VLAN re-registers the coupled NIC on a VLAN AWARE switch. */
static void set_vswitch_grant(void **state)
{
    struct herm *h = start();
    herm_op(h, "DEFINE VSWITCH VAW RDEV 2A00 VLAN AWARE");
    herm_op(h, "SET VSWITCH VAW GRANT LNXC");
    herm_op(h, "COUPLE USERID LNXC F000 TO SYSTEM VAW");
    rolled_back(h, "SET VSWITCH VAW GRANT LNXC VLAN 20", ZVSD_STEP_NIC_UPDATE, 1, ENOMEM,
                "Warning: LNXC.F000: cannot change its registration: Cannot allocate memory\n"
                FAILED("SET VSWITCH"));
    assert_string_equal(herm_op(h, "SET VSWITCH VAW GRANT LNXC VLAN 20"), "Command complete");
    assert_non_null(strstr(herm_op(h, "QUERY VSWITCH VAW ACCESSLIST"), "LNXC"));
    herm_stop(h);
}

/* ---- SET PORT GROUP -------------------------------------------------------------------- */

static void set_port_group_join(void **state)
{
    struct herm *h = start();
    rolled_back(h, "SET PORT GROUP CCBGROUP JOIN 2A00 2B00", ZVSD_STEP_DEVICE_OPEN, 2, EACCES,
                "Warning: port group CCBGROUP: device 2B00 cannot be opened: interface "
                "osa2b00: Permission denied\n" FAILED("SET PORT GROUP"));
    herm_replug(h, "osa2a00");
    rolled_back(h, "SET PORT GROUP CCBGROUP JOIN 2A00 2B00", ZVSD_STEP_JOIN, 2, EBUSY,
                "Warning: port group CCBGROUP: cannot JOIN 2B00: Device or resource busy\n"
                FAILED("SET PORT GROUP"));
    herm_replug(h, "osa2a00");
    herm_replug(h, "osa2b00");
    assert_string_equal(herm_op(h, "SET PORT GROUP CCBGROUP JOIN 2A00 2B00"),
                        "Command complete");
    herm_stop(h);
}

/* ---- NICs ------------------------------------------------------------------------------ */

static void define_nic(void **state)
{
    struct herm *h = start();
    rolled_back(h, "DEFINE NIC USERID LNXC 0700", ZVSD_STEP_NIC_OPEN, 1, EMFILE,
                "Warning: LNXC.0700: cannot make external QDIO guest: Too many open files\n"
                FAILED("DEFINE NIC"));
    assert_string_equal(herm_op(h, "DEFINE NIC USERID LNXC 0700"),
                        "NIC 0700 is created; devices 0700-0702 defined\n"
                        "MAC 02-00-0C-00-00-01");
    herm_stop(h);
}

static void couple(void **state)
{
    struct herm *h = start();
    herm_op(h, "SET VSWITCH CCBVSW1 GRANT LNXC");
    const char *line = "COUPLE USERID LNXC F000 TO SYSTEM CCBVSW1";
    rolled_back(h, line, ZVSD_STEP_NIC_QUEUES, 1, ENOMEM,
                "Warning: LNXC.F000: cannot make QDIO queues: Cannot allocate memory\n"
                COUPLE_FAILED);
    rolled_back(h, line, ZVSD_STEP_NIC_ATTACH, 1, EADDRINUSE,
                "Warning: LNXC.F000: cannot couple to VSWITCH CCBVSW1 (MAC 02-00-0C-00-01-13): "
                "Address already in use\n" COUPLE_FAILED);
    rolled_back(h, line, ZVSD_STEP_NIC_BIND, 1, EBUSY,
                "Warning: LNXC.F000: cannot bind external QDIO guest: Device or resource busy\n"
                COUPLE_FAILED);
    /* LNXC itself (class G) reads the warnings about its own NIC. */
    rolled_back_as(h, "LNXC", "G", "COUPLE F000 TO SYSTEM CCBVSW1", ZVSD_STEP_NIC_BIND, 1,
                   EBUSY, "Warning: LNXC.F000: cannot bind external QDIO guest: Device or "
                   "resource busy\n" COUPLE_FAILED);
    assert_string_equal(herm_op(h, line), "NIC F000 is connected to VSWITCH SYSTEM CCBVSW1");
    herm_stop(h);
}

/* ---- commands that only let go --------------------------------------------------------- */

/* Every kind of step armed to fail at its next one: `line` answers `want` (rc 0) and took
 * no step that could fail. */
static void never_fails(struct herm *h, const char *line, const char *want)
{
    for (unsigned k = 0; k < ZVSD_STEPS; k++)
        zvsd_step_fail(h->d, (enum zvsd_step)k, 1, EIO);
    assert_string_equal(herm_op(h, line), want);
    for (unsigned k = 0; k < ZVSD_STEPS; k++) {
        assert_int_equal(zvsd_step_count(h->d, (enum zvsd_step)k), 0);
        zvsd_step_fail(h->d, (enum zvsd_step)k, 0, 0);
    }
}

static void letting_go_never_fails(void **state)
{
    struct herm *h = start();
    herm_op(h, "DEFINE VSWITCH RDEVSW RDEV 2A00 2B00");
    herm_op(h, "DEFINE NIC USERID LNXC 0700");
    never_fails(h, "SET VSWITCH CCBVSW1 ISOLATION ON", "Command complete");
    never_fails(h, "SET VSWITCH CCBVSW1 QUEUESTORAGE 2M", "Command complete");
    never_fails(h, "SET VSWITCH CCBVSW1 GRANT LNXC", "Command complete");
    never_fails(h, "SET PORT GROUP CCBGROUP INTERVAL 60", "Command complete");
    never_fails(h, "SET PORT GROUP CCBGROUP POLICY LOAD OUTBOUND", "Command complete");
    never_fails(h, "SET PORT GROUP CCBGROUP LACP INACTIVE", "Command complete");
    never_fails(h, "SET PORT GROUP CCBGROUP LEAVE 2902", "Command complete");
    never_fails(h, "UNCOUPLE USERID LNXB F000",
                "NIC F000 is disconnected from VSWITCH SYSTEM CCBVSW1");
    never_fails(h, "SET VSWITCH CCBVSW1 REVOKE LNXA",
                "NIC F000 of LNXA is uncoupled\nCommand complete");
    never_fails(h, "DETACH NIC USERID LNXC 0700", "NIC 0700 is destroyed; devices 0700-0702 detached");
    never_fails(h, "SET VSWITCH RDEVSW DISCONNECT", "Command complete");
    never_fails(h, "SET VSWITCH CCBVSW1 NOGROUP", "Command complete");
    never_fails(h, "SET PORT GROUP CCBGROUP DELETE", "Command complete");
    never_fails(h, "DETACH VSWITCH CCBVSW1", "VSWITCH SYSTEM CCBVSW1 is destroyed");
    herm_stop(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(define_vswitch_device_not_opened),
        cmocka_unit_test(define_vswitch_not_made),
        cmocka_unit_test(define_vswitch_uplink_not_attached),
        cmocka_unit_test(define_vswitch_member_cannot_join),
        cmocka_unit_test(define_vswitch_group_not_made),
        cmocka_unit_test(define_vswitch_says_nothing_when_rolled_back),
        cmocka_unit_test(set_vswitch_rdev),
        cmocka_unit_test(set_vswitch_connect),
        cmocka_unit_test(set_vswitch_group),
        cmocka_unit_test(set_vswitch_group_replaced),
        cmocka_unit_test(set_vswitch_macprotect),
        cmocka_unit_test(set_vswitch_grant),
        cmocka_unit_test(set_vswitch_rdev_uplink_not_attached),
        cmocka_unit_test(failure_known_before_fails_nothing),
        cmocka_unit_test(device_ready_during_rolled_back_command_is_said),
        cmocka_unit_test(set_port_group_join),
        cmocka_unit_test(define_nic),
        cmocka_unit_test(couple),
        cmocka_unit_test(letting_go_never_fails),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
