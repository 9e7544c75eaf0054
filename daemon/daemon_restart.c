/* daemon_restart: a start after a crash takes over the guest taps the dead vswitchd left.
 *
 * Guest taps are persistent (backends/guest_tap.h): SIGKILL leaves each one, with the
 * guest's addresses and TCP connections, in whatever namespace the guest moved it to. A
 * new vswitchd opens a NICBIND TAP NIC's tap by adopting that one when it exists and
 * makes a new one otherwise; after the first reconcile pass the ones no NIC of the
 * configuration took are deleted (a tap nobody drives would be a leak). A clean stop
 * deletes its taps (zvs_guest_tap_close), so this only ever finds a crash's.
 *
 * The search (backends/tap_orphans.h) runs once, at the first tap the daemon opens, so a
 * configuration without taps (the hermetic suite) never scans. What was typed at the
 * console is not restored: the new process starts from SYSTEM CONFIG and USER DIRECT,
 * as z/VM starts from them at IPL.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "backends/tap_orphans.h"
#include "daemon/daemon_impl.h"

static void scan_once(struct zvsd *d)
{
    char tag[ZVS_TAP_TAG_MAX];

    if (d->orphans_scanned)
        return;
    d->orphans_scanned = true;
    if (zvs_tap_tag(tag, sizeof tag) < 0 || zvs_tap_orphans_scan(tag, &d->orphans) < 0)
        return;                         /* nothing adopted: new taps, as on a first start */
    unsigned n = zvs_tap_orphans_count(d->orphans);
    if (n > 0)
        zvs_info("found %u guest tap(s) a previous vswitchd left: adopting them", n);
}

int zvsd_tap_open(struct zvsd *d, const char *ifname, struct zvs_guest_tap **out)
{
    scan_once(d);
    int ns = zvs_tap_orphans_take(d->orphans, ifname);
    if (ns >= 0) {
        int rc = zvs_guest_tap_reopen(ifname, ns, NULL, out);
        close(ns);
        if (rc == 0) {
            zvs_info("tap %s adopted: the guest keeps its interface", ifname);
            return 0;
        }
        zvs_warn("tap %s left by a previous vswitchd cannot be adopted: %s", ifname,
                 strerror(-rc));
        return rc;
    }
    return zvs_guest_tap_open(ifname, ZVS_GUEST_TAP_MTU_DEFAULT, NULL, out);
}

void zvsd_tap_orphans_done(struct zvsd *d)
{
    if (!d->orphans)
        return;
    zvs_tap_orphans_purge(d->orphans);
    zvs_tap_orphans_free(d->orphans);
    d->orphans = NULL;
}
