/* ifinfo: facts about a Linux network interface (see ifinfo.h).
 *
 * Design note.
 * - Owns nothing: each read is four ioctls (SIOCGIFINDEX, SIOCGIFMTU, SIOCGIFHWADDR,
 *   SIOCGIFFLAGS) on a socket the caller names, or on a socket of its own closed before
 *   returning (a pcap port may have no socket of its own while its interface is down).
 * - The ioctls answer for the network namespace of the socket, not of sysfs.
 * - All or nothing: the facts go to the caller only when every ioctl succeeded, so a
 *   port never holds the MTU of one interface and the MAC of the next (an interface
 *   deleted and re-created between two reads).
 * - Carrier here is IFF_UP and IFF_RUNNING; netlink_link's finer notion (operstate) is
 *   the one events carry. Both lag the driver: linkwatch updates them from a work item,
 *   on a busy machine many milliseconds after the carrier changed. zvs_ifinfo_link_now
 *   asks the driver itself (ETHTOOL_GLINK, netif_carrier_ok), for a transmit that failed
 *   and wants to know at once whether the link is gone. SIOCGIFFLAGS cannot say: its
 *   flags are a short, and IFF_LOWER_UP is bit 16.
 */
#include "backends/ifinfo.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/ethtool.h>
#include <linux/if.h>
#include <linux/sockios.h>

bool zvs_ifname_ok(const char *name)
{
    size_t len = name ? strlen(name) : 0;
    return len > 0 && len < IFNAMSIZ && !strchr(name, '/');
}

static int if_ioctl(int fd, const char *name, unsigned long req, struct ifreq *ifr)
{
    memset(ifr, 0, sizeof(*ifr));
    memcpy(ifr->ifr_name, name, strlen(name) + 1);
    return ioctl(fd, req, ifr) < 0 ? -errno : 0;
}

int zvs_ifinfo_read(int fd, const char *name, struct zvs_ifinfo *out)
{
    struct zvs_ifinfo fi;
    struct ifreq ifr;
    int own = -1, rc;

    if (!zvs_ifname_ok(name))
        return -EINVAL;
    if (fd < 0) {
        own = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (own < 0)
            return -errno;
        fd = own;
    }
    if ((rc = if_ioctl(fd, name, SIOCGIFINDEX, &ifr)) < 0)
        goto out;
    fi.ifindex = ifr.ifr_ifindex;
    if ((rc = if_ioctl(fd, name, SIOCGIFMTU, &ifr)) < 0)
        goto out;
    fi.mtu = ifr.ifr_mtu > 0 ? (uint32_t)ifr.ifr_mtu : 0;
    if ((rc = if_ioctl(fd, name, SIOCGIFHWADDR, &ifr)) < 0)
        goto out;
    memcpy(fi.mac, ifr.ifr_hwaddr.sa_data, ZVS_ETH_ALEN);
    if ((rc = if_ioctl(fd, name, SIOCGIFFLAGS, &ifr)) < 0)
        goto out;
    fi.carrier = (ifr.ifr_flags & IFF_UP) && (ifr.ifr_flags & IFF_RUNNING);
    *out = fi;
out:
    if (own >= 0)
        close(own);
    return rc;
}

int zvs_ifinfo_link_now(int fd, const char *name)
{
    struct ethtool_value ev = { .cmd = ETHTOOL_GLINK };
    struct ifreq ifr;

    if (!zvs_ifname_ok(name) || fd < 0)
        return -EINVAL;
    memset(&ifr, 0, sizeof(ifr));
    memcpy(ifr.ifr_name, name, strlen(name) + 1);
    ifr.ifr_data = (char *)&ev;
    if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
        return -errno;
    return ev.data ? 1 : 0;
}
