/* Port counters: drop accounting and the device-view mapping used by QUERY and monitor. */
#include "dataplane/port.h"

#include <stddef.h>

/* zvs_port_device_counters reads each direction as four consecutive counters. */
_Static_assert(offsetof(struct zvs_port_counters, in_errors) ==
               offsetof(struct zvs_port_counters, in_bytes) + 3 * sizeof(uint64_t), "in_* order");
_Static_assert(offsetof(struct zvs_port_counters, out_errors) ==
               offsetof(struct zvs_port_counters, out_bytes) + 3 * sizeof(uint64_t), "out_* order");

static const struct {
    const char *name;                   /* operator-facing reason name */
    uint8_t     kind;                   /* DISCARD, ERROR or NOTE (counted per reason only) */
} drop_info[ZVS_DROP__COUNT] = {
#define DISCARD 0
#define ERROR   1
#define NOTE    2
    [ZVS_DROP_RUNT]         = { "runt", ERROR },
    [ZVS_DROP_OVERSIZE]     = { "oversize", ERROR },
    [ZVS_DROP_BAD_VLAN]     = { "bad-vlan-tag", ERROR },
    [ZVS_DROP_VLAN_DENIED]  = { "vlan-not-authorized", DISCARD },
    [ZVS_DROP_MACPROTECT]   = { "macprotect", DISCARD },
    [ZVS_DROP_NO_BUFFER]    = { "no-input-buffer", DISCARD },
    [ZVS_DROP_MAC_FULL]     = { "mac-table-full", NOTE },
    [ZVS_DROP_LINK_DOWN]    = { "link-down", DISCARD },
    [ZVS_DROP_NO_UPLINK]    = { "no-uplink", DISCARD },
    [ZVS_DROP_SLOW_PROTO]   = { "slow-protocol", DISCARD },
    [ZVS_DROP_TX_FAIL]      = { "tx-failed", ERROR },
    [ZVS_DROP_ISOLATION]    = { "isolation", DISCARD },
    [ZVS_DROP_BAD_SRC]      = { "bad-source-mac", ERROR },
    [ZVS_DROP_SAME_PORT]    = { "same-port", DISCARD },
    [ZVS_DROP_FILTERED]     = { "address-filtered", NOTE },
    [ZVS_DROP_OFFLOAD]      = { "offload-fixup-failed", ERROR },
    [ZVS_DROP_NOT_COLLECTING] = { "not-collecting", DISCARD },
    [ZVS_DROP_GUEST_OVERRUN]  = { "guest-overrun", DISCARD },
};

void zvs_port_count_drop(struct zvs_port *p, bool inbound, enum zvs_drop why, uint64_t n)
{
    zvs_ctr_add(&p->ctr.drops[why], n);
    switch (drop_info[why].kind) {
    case DISCARD:
        zvs_ctr_add(inbound ? &p->ctr.in_discards : &p->ctr.out_discards, n);
        break;
    case ERROR:
        zvs_ctr_add(inbound ? &p->ctr.in_errors : &p->ctr.out_errors, n);
        break;
    default:
        break;
    }
}

const char *zvs_drop_name(enum zvs_drop why)
{
    return (unsigned)why < ZVS_DROP__COUNT ? drop_info[why].name : "?";
}

void zvs_port_device_counters(const struct zvs_port *p, struct zvs_device_counters *o)
{
    const struct zvs_port_counters *c = &p->ctr;
    /* An OSA transmits what leaves the switch; a guest NIC transmits what enters it. */
    bool uplink = p->role == ZVS_PORT_UPLINK;
    const uint64_t *tx = uplink ? &c->out_bytes : &c->in_bytes;
    const uint64_t *rx = uplink ? &c->in_bytes : &c->out_bytes;

    o->tx_bytes = zvs_ctr_read(&tx[0]);
    o->tx_packets = zvs_ctr_read(&tx[1]);
    o->tx_discards = zvs_ctr_read(&tx[2]);
    o->tx_errors = zvs_ctr_read(&tx[3]);
    o->rx_bytes = zvs_ctr_read(&rx[0]);
    o->rx_packets = zvs_ctr_read(&rx[1]);
    o->rx_discards = zvs_ctr_read(&rx[2]);
    o->rx_errors = zvs_ctr_read(&rx[3]);
}
