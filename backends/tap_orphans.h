/* tap_orphans: the guest taps a crashed vswitchd left behind, found for the next one.
 *
 * vswitchd makes its guests' taps persistent (TUNSETPERSIST) and tags them with an
 * interface alias naming the network namespace it runs in (zvs_tap_tag). A clean stop
 * deletes them; a crash (SIGKILL, an abort) leaves them, with the guest's addresses, routes
 * and TCP connections, in whatever namespace the guest moved them to. The next vswitchd
 * of the same namespace lists them here (zvs_tap_orphans_scan), re-opens each by name in
 * its namespace when its NIC is made (zvs_guest_tap_reopen with the namespace from
 * zvs_tap_orphans_take), and deletes the ones its configuration no longer has
 * (zvs_tap_orphans_purge): a tap nobody drives would be a leak.
 *
 * Where it looks: its own namespace, the named ones (/run/netns, `ip netns`), and those
 * of every process (/proc/PID/ns/net: containers, unshare), each once. Only namespaces
 * owned by vswitchd's own user namespace count: a tap in a namespace an unprivileged user
 * made could carry our tag, and adopting it would give that user a guest's NIC. Entering
 * a namespace needs CAP_SYS_ADMIN; without it only the own namespace is searched.
 */
#ifndef ZVS_TAP_ORPHANS_H
#define ZVS_TAP_ORPHANS_H

#include <stddef.h>

#define ZVS_TAP_TAG_MAX 48

struct zvs_tap_orphans;

/* The alias vswitchd gives its taps: "zvswitch netns:INODE" for the namespace it runs in.
 * Returns 0 or -errno. */
int  zvs_tap_tag(char *buf, size_t len);
/* Lists the taps tagged `tag` in every namespace it can reach. Returns 0 (*out set, maybe
 * empty) or -ENOMEM. */
int  zvs_tap_orphans_scan(const char *tag, struct zvs_tap_orphans **out);
unsigned zvs_tap_orphans_count(const struct zvs_tap_orphans *o);
/* Takes the tap named ifname off the list: returns an fd of its network namespace (the
 * caller closes it) or -ENOENT. */
int  zvs_tap_orphans_take(struct zvs_tap_orphans *o, const char *ifname);
/* Deletes every tap still on the list (nobody took it); returns how many went. */
unsigned zvs_tap_orphans_purge(struct zvs_tap_orphans *o);
void zvs_tap_orphans_free(struct zvs_tap_orphans *o);

/* Runs fn in the network namespace netns_fd (-1, or the namespace the thread is in:
 * here, without setns), then comes back. Returns fn's
 * result, or -errno when the namespace cannot be entered. One that cannot be left stops
 * vswitchd (logged, abort): every socket and device it opened from then on would be the
 * guest's namespace's, whichever caller it was. */
int  zvs_netns_run(int netns_fd, int (*fn)(void *arg), void *arg);

#endif
