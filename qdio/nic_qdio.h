/* A guest's virtual NIC as a switch port: the adapter side of its QDIO queues.
 *
 * rx takes frames from the guest's primed output buffers, tx copies frames into its empty
 * input buffers (a full input queue discards and counts, never waits), and the thin
 * interrupt tells the guest when input was primed. Whatever drives the program side (a
 * tap pump, an external process on the shared memory, a workload generator) talks to the
 * queues only, never to the switch.
 */
#ifndef ZVS_NIC_QDIO_H
#define ZVS_NIC_QDIO_H

#include <stdint.h>

#include "dataplane/port.h"
#include "qdio/qdio.h"

#define ZVS_NIC_MTU_DEFAULT 9000        /* jumbo frames, as OSA-Express carries them; larger
                                           non-GSO frames from a guest are oversize errors */

/* Make a NIC port named `name` ("LNXREGC.F000") with queue memory `queuestorage` bytes
 * (1M..8M). The MTU is capped by what one QDIO buffer holds (64 KB with the 32-byte
 * frame header: 65504 - 18 = 65486 at every QUEUESTORAGE), mtu 0 gives that cap;
 * max_gso is 65504. NULL on error (*err). */
struct zvs_port *zvs_nic_qdio_create(const char *name, uint32_t queuestorage, uint32_t mtu,
                                     int *err);
struct zvs_qdio *zvs_nic_qdio_queues(const struct zvs_port *p);
/* True when p is a NIC made by zvs_nic_qdio_create. */
int zvs_nic_qdio_is(const struct zvs_port *p);

#endif
