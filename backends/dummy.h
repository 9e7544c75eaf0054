/* dummy: named in-memory links for hermetic tests, like Open vSwitch's dummy netdevs.
 *
 * A test plugs a cable before the switch opens its end: zvs_dummy_create("osa28ba",
 * &far) makes a memlink pair (memlink.h), keeps the near end under the name and gives
 * the test the far end. Opening the name (the "dummy" backend class, or an RDEVICE
 * forced onto the dummy kind) hands out the near end; what the switch transmits there
 * comes out of the far end's rx, and what the test transmits on the far end
 * (far->ops->tx) is what the near end receives. Opening a name no test created fails
 * with -ENODEV, like a missing interface.
 *
 * The near end has a doorbell (zvs_memlink_doorbell): its ops->fd is readable while
 * frames wait for its rx, so an event loop polls it like a socket. Its MAC is
 * 02:00 followed by the FNV-1a 32-bit hash of the name, big-endian; the far end's is the
 * same with 06 first. Cutting (or restoring) the cable is zvs_memlink_set_carrier on the
 * far end: both ends change, and the near end's doorbell rings with a link event that
 * its ops->link_poll hands out, which the daemon feeds to ops->link_event as it does a
 * netlink event for an AF_PACKET uplink (no netlink: no interface stands behind it).
 *
 * Rules: one process-wide table, single-threaded (the data-path thread and the test are
 * one thread). An open takes the near end out of the table: the opener owns it and its
 * ops->destroy frees it, and the name may be created again. The far end is the test's to
 * destroy. A link never opened is destroyed by zvs_dummy_destroy or zvs_dummy_clear.
 */
#ifndef ZVS_DUMMY_H
#define ZVS_DUMMY_H

#include <stdint.h>

#include "dataplane/port.h"

#define ZVS_DUMMY_MAX 32                /* links created and not yet opened */

/* Make the link `name` (an interface name: 1 to 15 bytes, no '/'); *far_end gets the
 * test's end, named name + ".far". Returns 0, -EINVAL (bad name), -EEXIST (created and
 * not yet opened), -ENOSPC (ZVS_DUMMY_MAX waiting) or -ENOMEM. */
int zvs_dummy_create(const char *name, struct zvs_port **far_end);

/* A cable between two named ends, both waiting to be opened by name: two programs in one
 * process, each on its end (the daemon on `a`, the switch model on `b` in the hermetic
 * suite). Each end has a doorbell and the MAC zvs_dummy_mac(its name, 1). Returns 0 or as
 * zvs_dummy_create (-EINVAL also when a and b are the same name). */
int zvs_dummy_create_pair(const char *a, const char *b);

/* Take the near end of `name` out of the table (the dummy class's open). NULL with
 * *err = -ENODEV (no such dummy waiting) or -EINVAL (bad name). */
struct zvs_port *zvs_dummy_open(const char *name, int *err);

/* Destroy the near end of a link never opened (the far end stays the caller's).
 * Returns 0 or -ENODEV. */
int zvs_dummy_destroy(const char *name);

/* Destroy every near end never opened (a test's teardown). */
void zvs_dummy_clear(void);

/* The MAC a dummy link's near end has (far: 0 / near: 1 selects which), from its name. */
void zvs_dummy_mac(const char *name, int near, uint8_t mac[6]);

#endif
