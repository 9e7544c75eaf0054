/* ifinfo: facts about a Linux network interface, read with ioctls: its index, MTU, MAC
 * address and carrier, and whether a string can name an interface at all.
 *
 * Used by the uplink backends at open, reopen and on link events. The facts are a
 * snapshot: netlink_link reports changes; read again after one.
 */
#ifndef ZVS_IFINFO_H
#define ZVS_IFINFO_H

#include <stdbool.h>
#include <stdint.h>

#include "dataplane/frame.h"

struct zvs_ifinfo {
    int      ifindex;                   /* > 0 */
    uint32_t mtu;                       /* 0 when the kernel reports none */
    uint8_t  mac[ZVS_ETH_ALEN];
    bool     carrier;                   /* administratively up and running */
};

/* True if `name` can name an interface: 1 to IFNAMSIZ - 1 bytes, no '/'. NULL: false. */
bool zvs_ifname_ok(const char *name);

/* Read the facts of interface `name` through socket `fd` (any socket will do; -1: a
 * throwaway datagram socket, for a caller that may have none). Returns 0, or -errno with
 * *out unchanged: -EINVAL for a name zvs_ifname_ok refuses, else that of the first ioctl
 * that failed (-ENODEV: no such interface). */
int zvs_ifinfo_read(int fd, const char *name, struct zvs_ifinfo *out);

/* Does interface `name` have carrier now, as its driver sees it (not the operstate that
 * reaches flags and netlink later)? Asked through socket `fd`, which must be open.
 * Returns 1 or 0, or -errno: -EOPNOTSUPP when the driver cannot say, -ENODEV when there
 * is no such interface, -EINVAL for a bad name or fd. */
int zvs_ifinfo_link_now(int fd, const char *name);

#endif
