/* Guest NIC port: zvs_port ops mapped onto the QDIO adapter side (qdio.c).
 *
 * The port's largest super-frame and MTU follow from the buffer rules (qdio.h): a frame
 * with its 32-byte header must fit one buffer of up to 16 entries of 4 KB, so a NIC
 * carries frames up to ZVS_QDIO_FRAME_MAX = 65536 - 32 = 65504 bytes at every
 * QUEUESTORAGE (1M..8M); QUEUESTORAGE decides how many buffers the guest keeps armed and
 * outstanding (its page sets: 8 at 1M, 64 at 8M, qdio_guest.h), not how large one is.
 * max_gso is 65504: a TCP super-frame from a kernel with gso_max_size 65536 (at most
 * ~65.2 KB: TCP keeps MAX_TCP_HEADER of headroom) crosses whole, and the switch segments
 * anything larger for the NIC (forward.c) instead of losing it. The largest MTU is
 * 65504 - 18 (Ethernet header and one VLAN tag) = 65486.
 */
#include "qdio/nic_qdio.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

struct nic_qdio {
    struct zvs_port  port;              /* first: the switch sees this */
    struct zvs_qdio *q;
};

static int nic_tx(struct zvs_port *p, const struct zvs_tx *txs, int n, enum zvs_drop *why)
{
    return zvs_qdio_deliver(((struct nic_qdio *)p)->q, txs, n, why);
}

static int nic_rx(struct zvs_port *p, struct zvs_frame *out, int max)
{
    return zvs_qdio_poll_output(((struct nic_qdio *)p)->q, out, max, p->index);
}

static void nic_rx_release(struct zvs_port *p, struct zvs_frame *frames, int n)
{
    zvs_qdio_release(((struct nic_qdio *)p)->q, frames, n);
}

/* The queues through `backend`, on the port's first line, which the switch has loaded
 * by now: `q` lies past the port's counters, a line of its own. */
static void nic_prefetch(struct zvs_port *p, unsigned level)
{
    zvs_qdio_prefetch(p->backend, level);
}

static void nic_destroy(struct zvs_port *p)
{
    struct nic_qdio *nic = (struct nic_qdio *)p;
    zvs_qdio_destroy(nic->q);
    free(nic);
}

static const struct zvs_port_ops nic_ops = {
    .kind = "qdio",
    .tx = nic_tx,
    .rx = nic_rx,
    .rx_release = nic_rx_release,
    .flush = NULL,                      /* deliver primes and interrupts per call */
    .destroy = nic_destroy,
    .prefetch = nic_prefetch,
};

struct zvs_port *zvs_nic_qdio_create(const char *name, uint32_t queuestorage, uint32_t mtu,
                                     int *err)
{
    struct nic_qdio *nic = calloc(1, sizeof(*nic));
    int rc = -ENOMEM;
    if (!nic)
        goto fail;
    rc = zvs_qdio_create(queuestorage, &nic->q);
    if (rc < 0)
        goto fail;
    uint32_t max_frame = ZVS_QDIO_FRAME_MAX;    /* one buffer, header included */
    uint32_t max_mtu = max_frame - ZVS_ETH_HLEN - ZVS_VLAN_HLEN;
    snprintf(nic->port.name, sizeof(nic->port.name), "%s", name);
    nic->port.ops = &nic_ops;
    nic->port.backend = nic->q;
    nic->port.role = ZVS_PORT_GUEST;
    nic->port.caps = ZVS_CAP_CSUM | ZVS_CAP_GSO;   /* the qeth header carries the metadata */
    nic->port.mtu = mtu && mtu < max_mtu ? mtu : max_mtu;
    nic->port.max_gso = max_frame;
    nic->port.carrier = true;
    return &nic->port;
fail:
    free(nic);
    if (err)
        *err = rc;
    return NULL;
}

struct zvs_qdio *zvs_nic_qdio_queues(const struct zvs_port *p)
{
    return zvs_nic_qdio_is(p) ? ((const struct nic_qdio *)p)->q : NULL;
}

int zvs_nic_qdio_is(const struct zvs_port *p)
{
    return p->ops == &nic_ops;
}
