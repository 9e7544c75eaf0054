/* The event loop's contract on the daemon's start and stop paths (daemon/evloop.h: a
 * watched descriptor leaves the loop before it is closed), on the real daemon and virtual
 * time (hermetic.h). zvs_evloop_misuse() counts every breach of any loop in the process: a
 * delete of a descriptor not watched or already closed, and a watch whose descriptor was
 * found closed when its loop was destroyed.
 *
 * - A start refused because a live vswitchd holds the attach socket (what a restart meets
 *   when the old process is still there) tears down through zvsd_destroy after the signalfd
 *   and the netlink socket were watched.
 * - A stop (SIGTERM's path, zvsd_destroy) with everything in use: uplinks in a port group,
 *   an attached external QDIO guest (its session and SIGA descriptors), a console client,
 *   the attach and console sockets.
 * Both closed watched descriptors before removing them (counted at the loop's destroy).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "hermetic.h"
#include "daemon/daemon.h"
#include "daemon/evloop.h"

static const char *const links[] = { "osa28ba", "osa2902", NULL };

static void start_refused_and_stop_close_nothing_still_watched(void **state)
{
    struct herm_opts o = {
        .sysconfig = "configs/lab/SYSTEM-CCB.CONFIG",
        .userdirect = "tests/unit/hermetic/USER-CCB.DIRECT",
        .links = links, .partner_lacp = true, .console = true,
    };
    uint64_t before = zvs_evloop_misuse();
    struct herm *h = herm_start(&o);
    herm_op(h, "SET PORT GROUP CCBGROUP JOIN 28BA 2902");
    herm_op(h, "DEFINE VSWITCH CCBVSW1 ETHERNET GROUP CCBGROUP QUEUESTORAGE 1M");
    herm_op(h, "SET VSWITCH CCBVSW1 GRANT LNXA");
    herm_op(h, "COUPLE USERID LNXA F000 TO SYSTEM CCBVSW1");
    herm_guest_attach(h, "LNXA", 0xF000);
    herm_console_attach(h, "OPERATOR", "ABCDEFG");
    herm_warp(h, 5.0);
    assert_int_equal(zvs_evloop_misuse(), before);

    /* A second daemon on the live one's attach socket: refused, torn down at once. */
    struct zvsd_options second = {
        .qdio_socket = h->qdio_sock, .uplink_kind = "dummy",
        .virtual_start_ns = HERM_T0, .virtual_wall_us = HERM_WALL_US,
    };
    assert_null(zvsd_create(h->cfg, &second));
    assert_int_equal(zvs_evloop_misuse(), before);

    herm_stop(h);
    assert_int_equal(zvs_evloop_misuse(), before);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(start_refused_and_stop_close_nothing_still_watched),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
