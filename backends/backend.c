/* backend: the registry of backend classes (see backend.h).
 *
 * Owns: the one table of classes, in the order a listing shows them, and the classes
 * registered from above at start-up after them. Adding a kind is one entry here (or one
 * registration) and its own file; the daemon never names a backend's functions.
 * Hazard: zvs_backend_of matches port->ops->kind, so a class's kind must equal the kind
 * string of the port ops its open returns (memlink ports say "memlink": the dummy class
 * matches that too; an IVL port, ivl_port.h, is the class of the device it stands on).
 */
#include "backends/backend.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "backends/dummy.h"
#include "backends/ivl_port.h"
#include "backends/memlink.h"
#include "backends/nic_program.h"
#include "backends/nic_tap.h"
#include "backends/uplink_afpacket.h"
#include "backends/uplink_pcap.h"
#include "backends/uplink_tap.h"

static const struct zvs_backend_class classes[] = {
    { .kind = "afpacket", .side = ZVS_BACKEND_UPLINK, .netlink = true,
      .open = zvs_uplink_afpacket_open, .mac = zvs_uplink_afpacket_mac },
    { .kind = "pcap", .side = ZVS_BACKEND_UPLINK, .netlink = true,
      .open = zvs_uplink_pcap_open, .mac = zvs_uplink_pcap_mac },
    { .kind = "rdevtap", .side = ZVS_BACKEND_UPLINK, .netlink = true,
      .open = zvs_uplink_tap_open, .mac = zvs_uplink_tap_mac },
    { .kind = "dummy", .side = ZVS_BACKEND_UPLINK, .netlink = false,
      .open = zvs_dummy_open, .mac = zvs_memlink_mac },
    /* The guest NIC kinds (NICBIND): opened with their NIC by zvs_nic_open. "lcs" is
     * registered by guests/ (backend.h). */
    { .kind = "tap", .side = ZVS_BACKEND_GUEST, .netlink = false, .nic = &zvs_nic_tap_class },
    { .kind = "qdio", .side = ZVS_BACKEND_GUEST, .netlink = false, .nic = &zvs_nic_qdio_class },
    { .kind = "none", .side = ZVS_BACKEND_GUEST, .netlink = false, .nic = &zvs_nic_none_class },
};

#define NCLASSES (sizeof(classes) / sizeof(classes[0]))

static const struct zvs_backend_class *registered[ZVS_BACKEND_REGISTERED_MAX];
static unsigned nregistered;

int zvs_backend_register(const struct zvs_backend_class *c)
{
    const struct zvs_backend_class *have = zvs_backend_find(c->kind);
    if (have)
        return have == c ? 0 : -EEXIST;
    if (nregistered == ZVS_BACKEND_REGISTERED_MAX)
        return -ENOSPC;
    registered[nregistered++] = c;
    return 0;
}

const struct zvs_backend_class *zvs_backend_find(const char *kind)
{
    for (size_t i = 0; kind && i < NCLASSES; i++)
        if (strcmp(classes[i].kind, kind) == 0)
            return &classes[i];
    for (unsigned i = 0; kind && i < nregistered; i++)
        if (strcmp(registered[i]->kind, kind) == 0)
            return registered[i];
    return NULL;
}

const struct zvs_backend_class *zvs_backend_of(const struct zvs_port *p)
{
    if (!p || !p->ops || !p->ops->kind)
        return NULL;
    if (strcmp(p->ops->kind, "memlink") == 0)
        return zvs_backend_find("dummy");
    if (zvs_ivl_port_is(p))             /* driven as the device it stands on */
        return zvs_backend_of(zvs_ivl_port_lower(p));
    return zvs_backend_find(p->ops->kind);
}

struct zvs_port *zvs_backend_open(const char *kind, const char *ifname, int *err)
{
    const struct zvs_backend_class *c = zvs_backend_find(kind);
    int rc = !c ? -ENOENT : !c->open ? -EOPNOTSUPP : 0;
    if (rc == 0)
        return c->open(ifname, err);
    if (err)
        *err = rc;
    return NULL;
}
