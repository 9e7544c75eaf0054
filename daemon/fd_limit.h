/* The daemon's open-file limit, raised at start so every guest NIC can couple.
 *
 * A coupled QDIO NIC holds three descriptors (its memfd and two eventfds, qdio/qdio.h), a
 * tap NIC one more, an uplink a socket or two: 1,000 guests need over 3,000. The soft
 * limit many systems start a program with is 1,024 (systemd's default for services and
 * most login shells), with a far higher hard limit (524,288 under systemd): at 1,024 the
 * 338th guest's queues fail with EMFILE. The soft limit may be raised to the hard one
 * without privilege, so vswitchd does that once at start: after it has read the
 * configuration, opened its log and detached (the few descriptors those keep count for
 * nothing, and a refusal goes to the log), before the daemon opens any socket, uplink or
 * NIC (daemon/vswitchd.c).
 */
#ifndef ZVS_FD_LIMIT_H
#define ZVS_FD_LIMIT_H

#include <stdint.h>

/* Raise RLIMIT_NOFILE's soft limit to its hard limit (an unlimited hard limit: to
 * fs.nr_open, what the kernel allows at most). *before and *after (may be NULL) get the
 * soft limit before and after. Returns 0, or -errno when setrlimit refused (the limit is
 * then unchanged). */
int zvsd_raise_fd_limit(uint64_t *before, uint64_t *after);

#endif
