/* The operator console hears what happens, on the real daemon and virtual time
 * (hermetic.h): three subscribers (vmcp --console) attached before the report's sequence
 * is typed, a member's cable cut and restored, then both cables cut and restored, then the
 * guest uncoupled. The operator (class A-G) gets every message, in order, stamped with the
 * exact virtual instant of its cause (tests/golden/hermetic/console_carrier.txt); LNXA
 * (class G) only those about its own NIC; LNXB (class G) nothing.
 *
 * Expected, by 802.1AX and the daemon's rules: the group distributes 2 s after start
 * (Aggregate_Wait_Time) and the switch is ready then; a cut is heard in its instant
 * (device not ready, member not in use); a restored member is back in use 2 s after the
 * restore; with both members down the switch's connection is not active, and it is ready
 * again when a member distributes: 28BA restored at 40 s and 2902 at 41 s go into use
 * together at 43 s, the aggregator waiting for every port selected to it (802.1AX Ready:
 * 2902's wait_while, started at 41 s, ends at 43 s).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hermetic.h"

static const char *const links[] = { "osa28ba", "osa2902", NULL };

/* Appends what fd was sent since the last read to the transcript. */
static void take(struct herm *h, int fd, char *t, size_t size)
{
    size_t len = strlen(t);
    snprintf(t + len, size - len, "%s", herm_console_read(h, fd));
}

static void console_hears_member_and_switch_events_in_order(void **state)
{
    struct herm_opts o = {
        .sysconfig = "configs/lab/SYSTEM-CCB.CONFIG",
        .userdirect = "tests/unit/hermetic/USER-CCB.DIRECT",
        .links = links, .partner_lacp = true, .console = true,
    };
    struct herm *h = herm_start(&o);
    int op = herm_console_attach(h, "OPERATOR", "ABCDEFG");
    int lnxa = herm_console_attach(h, "LNXA", "G");
    int lnxb = herm_console_attach(h, "LNXB", "G");
    static char t[16384], ta[4096], tb[4096];

    herm_report_sequence(h);
    herm_warp(h, 5.0);
    take(h, op, t, sizeof t);

    herm_warp(h, 10.0);
    herm_cut(h, "osa2902", false);
    herm_warp(h, 20.0);
    herm_cut(h, "osa2902", true);
    herm_warp(h, 25.0);
    take(h, op, t, sizeof t);

    herm_warp(h, 30.0);
    herm_cut(h, "osa28ba", false);
    herm_cut(h, "osa2902", false);
    herm_warp(h, 40.0);
    herm_cut(h, "osa28ba", true);
    herm_warp(h, 41.0);
    herm_cut(h, "osa2902", true);
    herm_warp(h, 45.0);
    herm_op(h, "UNCOUPLE USERID LNXA F000");
    take(h, op, t, sizeof t);
    herm_golden("console_carrier.txt", t);

    take(h, lnxa, ta, sizeof ta);
    assert_string_equal(ta,
        "0.000s ZVSNIC1176I NIC F000 of user LNXA is connected to VSWITCH SYSTEM CCBVSW1\n"
        "45.000s ZVSNIC1177I NIC F000 of user LNXA is disconnected from VSWITCH SYSTEM CCBVSW1\n");
    take(h, lnxb, tb, sizeof tb);
    assert_string_equal(tb, "");
    close(op);
    close(lnxa);
    close(lnxb);
    herm_stop(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(console_hears_member_and_switch_events_in_order),
    };
    return cmocka_run_group_tests_name("daemon_console", tests, NULL, NULL);
}
