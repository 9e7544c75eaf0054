/* uplink_common: the shared half of the Linux-interface uplinks (see uplink_common.h).
 *
 * Hazards: zvs_uplink_of trusts port->backend to begin with struct zvs_uplink; each
 * kind's ops functions assert their own ops table before they get here. The ENETDOWN
 * the kernel leaves on a socket when its link goes down is reported by the next recv or
 * send even after the link is back; link_event reads SO_ERROR to clear it.
 */
#include "backends/uplink_common.h"

#include <assert.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/if.h>

#define TX_WAIT_MS 1

_Static_assert(sizeof(((struct zvs_uplink *)0)->ifname) == IFNAMSIZ, "interface name size");

int zvs_uplink_init(struct zvs_uplink *u, const struct zvs_port_ops *ops, const char *ifname,
                    uint32_t nbufs, uint32_t buf_size, uint32_t headroom)
{
    u->fd = -1;
    u->txfd = -1;
    u->port.ops = ops;
    u->port.role = ZVS_PORT_UPLINK;
    if (!zvs_ifname_ok(ifname))
        return -EINVAL;
    snprintf(u->ifname, sizeof(u->ifname), "%s", ifname);
    snprintf(u->port.name, sizeof(u->port.name), "%s", ifname);
    u->nbufs = nbufs;
    u->pool = zvs_pool_create(nbufs, buf_size, headroom);
    return u->pool ? 0 : -ENOMEM;
}

void zvs_uplink_fini(struct zvs_uplink *u)
{
    zvs_pool_destroy(u->pool);
    u->pool = NULL;
}

void zvs_uplink_apply(struct zvs_uplink *u, const struct zvs_ifinfo *fi)
{
    u->port.mtu = fi->mtu;
    memcpy(u->mac, fi->mac, ZVS_ETH_ALEN);
    u->port.carrier = fi->carrier;
}

uint32_t zvs_uplink_rx_take(struct zvs_uplink *u, int32_t *idx, int max, uint64_t *no_buffer)
{
    if (max > ZVS_BATCH)
        max = ZVS_BATCH;
    if (max <= 0)
        return 0;
    uint32_t got = zvs_pool_take_n(u->pool, idx, (uint32_t)max);
    if (got == 0)
        (*no_buffer)++;
    return got;
}

void zvs_uplink_rx_give_back(struct zvs_uplink *u, const int32_t *idx, uint32_t from,
                             uint32_t to)
{
    for (uint32_t i = to; i > from; i--)
        zvs_pool_put(u->pool, idx[i - 1]);
}

void zvs_uplink_rx_release(struct zvs_port *p, struct zvs_frame *frames, int n)
{
    struct zvs_uplink *u = zvs_uplink_of(p);
    for (int i = 0; i < n; i++) {
        assert(frames[i].cookie < u->nbufs);
        zvs_pool_put(u->pool, (int32_t)frames[i].cookie);
    }
}

void zvs_uplink_tx_wait(const struct zvs_uplink *u, int err, uint64_t *waits)
{
    struct pollfd pfd = { .fd = u->txfd >= 0 ? u->txfd : u->fd, .events = POLLOUT };
    (*waits)++;
    if (err == ENOBUFS)
        (void)poll(NULL, 0, TX_WAIT_MS);        /* the device queue, not the socket, is full */
    else
        (void)poll(&pfd, 1, TX_WAIT_MS);
}

/* Waiting for room would only stall the loop while the carrier event is still in
 * linkwatch; a link found gone is link-down at once, so the switch moves the frames to
 * a survivor. */
bool zvs_uplink_tx_link_gone(const struct zvs_uplink *u, bool *probed, uint64_t *probes)
{
    if (*probed)
        return false;
    *probed = true;
    (*probes)++;
    return zvs_ifinfo_link_now(u->fd, u->ifname) == 0;
}

int zvs_uplink_fd(const struct zvs_port *p)
{
    return zvs_uplink_of(p)->fd;
}

int zvs_uplink_link_event(struct zvs_port *p, int ifindex, bool carrier, bool exists,
                          bool stale, int (*reopen)(struct zvs_port *p))
{
    struct zvs_uplink *u = zvs_uplink_of(p);
    int rc = 0;

    if (!exists) {
        /* The handle reads nothing now; keep it until the name comes back. */
        u->ifindex = 0;
        p->carrier = false;
        return 0;
    }
    if (stale || ifindex != u->ifindex) {
        rc = reopen(p);
        if (rc == -ENETDOWN && !carrier) {
            p->carrier = false;         /* exists but down: wait for it to come up */
            return 0;
        }
        if (rc < 0) {
            p->carrier = false;
            return rc;
        }
        rc = 1;
    } else {
        int soerr = 0;
        socklen_t sl = sizeof(soerr);
        struct zvs_ifinfo fi;
        /* Reading SO_ERROR clears the ENETDOWN a past link-down left on the socket. */
        (void)getsockopt(u->fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
        if (zvs_ifinfo_read(u->fd, u->ifname, &fi) == 0)
            zvs_uplink_apply(u, &fi);   /* mtu or MAC may have changed meanwhile */
    }
    p->carrier = carrier;
    return rc;
}
