/* Ports and their backends.
 *
 * A port is what the switch forwards to and from: an uplink (a real device, "RDEV", such
 * as an OSA port) or a guest's virtual NIC. A backend is how frames reach the port's far
 * end: an AF_PACKET socket on a Linux interface, a guest's QDIO queues, an in-memory ring.
 * The switch core knows only struct zvs_port and the ops table below.
 *
 * Counters are kept from the switch's point of view: `in_*` counts frames entering the
 * switch through the port, `out_*` frames leaving it. z/VM reports them from the device's
 * point of view, which differs between uplinks and NICs (an OSA "transmits" what leaves
 * the switch, a NIC "transmits" what enters it); zvs_port_device_counters() does that
 * mapping in one place. Every count is of frames on the wire (wire.h): a GSO super-frame
 * counts as its segments and their bytes. Counters have a single writer (the data-path
 * thread) and are updated with relaxed atomic stores once per burst, so a sampler on
 * another thread reads whole values without a lock.
 */
#ifndef ZVS_PORT_H
#define ZVS_PORT_H

#include <stdbool.h>
#include <stdint.h>

#include "dataplane/frame.h"

enum zvs_port_role {
    ZVS_PORT_UPLINK,                    /* real device towards the physical LAN */
    ZVS_PORT_GUEST,                     /* a guest's virtual NIC */
};

/* Why a frame was discarded or counted as an error; each reason also counts in the
 * direction's discards (or errors) total. */
enum zvs_drop {
    ZVS_DROP_RUNT,                      /* shorter than an Ethernet header (error) */
    ZVS_DROP_OVERSIZE,                  /* longer than the port's MTU allows (error) */
    ZVS_DROP_BAD_VLAN,                  /* malformed tag, VID 4095, stacked tags (error) */
    ZVS_DROP_VLAN_DENIED,               /* VLAN not granted / not native on this port */
    ZVS_DROP_MACPROTECT,                /* guest sent with a MAC it was not assigned */
    ZVS_DROP_NO_BUFFER,                 /* guest had no empty input buffer */
    ZVS_DROP_MAC_FULL,                  /* learning refused: MAC table full (frame forwarded) */
    ZVS_DROP_LINK_DOWN,                 /* egress carrier down / tap down */
    ZVS_DROP_NO_UPLINK,                 /* unknown destination, no uplink to send it to;
                                           on an IVL port, no system to take the frame */
    ZVS_DROP_SLOW_PROTO,                /* Slow Protocols frame from a guest, or on an
                                           uplink with no handler or no room (forward.c) */
    ZVS_DROP_TX_FAIL,                   /* backend refused the frame (error) */
    ZVS_DROP_ISOLATION,                 /* guest-to-guest blocked by ISOLATION ON */
    ZVS_DROP_BAD_SRC,                   /* source MAC is a group address (error) */
    ZVS_DROP_SAME_PORT,                 /* destination is the port the frame came from */
    ZVS_DROP_FILTERED,                  /* uplink frame for no guest of ours: an OSA's
                                           address filter drops it before counting, so it
                                           counts here only, not in discards or packets */
    ZVS_DROP_OFFLOAD,                   /* could not segment/checksum for the egress (error) */
    ZVS_DROP_NOT_COLLECTING,            /* port-group member not Collecting (LACP) */
    ZVS_DROP_GUEST_OVERRUN,             /* guest sent faster than the switch took its frames:
                                           dropped ahead of the NIC's output queue (LCS) */
    ZVS_DROP__COUNT
};

struct zvs_port_counters {
    uint64_t in_bytes;                  /* entering the switch through this port */
    uint64_t in_packets;
    uint64_t in_discards;
    uint64_t in_errors;
    uint64_t out_bytes;                 /* leaving the switch through this port */
    uint64_t out_packets;
    uint64_t out_discards;
    uint64_t out_errors;
    uint64_t drops[ZVS_DROP__COUNT];    /* per reason, both directions */
};

/* The same numbers as z/VM shows them for the device (QUERY VSWITCH, monitor records). */
struct zvs_device_counters {
    uint64_t tx_bytes, tx_packets, tx_discards, tx_errors;
    uint64_t rx_bytes, rx_packets, rx_discards, rx_errors;
};

/* Port capabilities: what the egress can take without the switch fixing the frame up. */
#define ZVS_CAP_CSUM   0x01             /* accepts frames whose checksum is still partial */
#define ZVS_CAP_GSO    0x02             /* accepts TCP/UDP super-frames (up to max_gso) */
#define ZVS_CAP_UDP_TUNNEL_GSO 0x04     /* accepts UDP tunnel super-frames (frame.h's
                                           GSO_UDP_TUNNEL): a VXLAN uplink's underlay */
#define ZVS_CAP_GSO_TCP_ONLY 0x08       /* with ZVS_CAP_GSO: TCP super-frames only; the
                                           switch segments a UDP_L4 one to the MTU (a
                                           VXLAN uplink: the tunnel offload carries TCP) */

/* A frame to write, with the tag edit the egress needs. */
struct zvs_tx {
    const struct zvs_frame *f;
    uint8_t  tag_op;                    /* enum zvs_tag_op */
    uint8_t  ivl;                       /* to an IVL port: ZVS_FIVL_* (frame.h); else 0 */
    uint16_t vid;                       /* VID for PUSH / REWRITE */
};

struct zvs_port;

/* A link event: what a netlink RTM_NEWLINK/DELLINK says about an interface, or what a
 * link with no interface behind it says about itself (link_poll). */
struct zvs_port_link_event {
    int  ifindex;                       /* 0: not a Linux interface */
    bool carrier;
    bool exists;                        /* false: the interface is gone */
    bool mtu_only;                      /* nothing but the MTU changed (the carrier is
                                           as it was): the backend reads it again */
};

struct zvs_port_ops {
    const char *kind;                   /* "afpacket", "qdio", "memlink", ... */
    /* Write n frames; returns how many were written. Frames not written are counted by
     * the switch as out_discards with the reason in *why (NO_BUFFER, LINK_DOWN, TX_FAIL;
     * NO_UPLINK from an IVL port). */
    int  (*tx)(struct zvs_port *p, const struct zvs_tx *txs, int n, enum zvs_drop *why);
    /* Collect up to max received frames; bytes stay valid until rx_release. */
    int  (*rx)(struct zvs_port *p, struct zvs_frame *out, int max);
    /* Give the bytes of frames returned by rx back to the backend. */
    void (*rx_release)(struct zvs_port *p, struct zvs_frame *frames, int n);
    /* End of a burst: push out anything the backend batched (one syscall, one interrupt). */
    void (*flush)(struct zvs_port *p);
    void (*destroy)(struct zvs_port *p);
    /* Backends on a Linux interface (NULL for others): the descriptor to poll now (-1:
     * none, e.g. the interface is gone), and a netlink link event for the interface,
     * which sets carrier and may reopen; returns 1 when the descriptor changed. */
    int  (*fd)(const struct zvs_port *p);
    int  (*link_event)(struct zvs_port *p, int ifindex, bool carrier, bool exists);
    /* Backends whose link announces its own carrier changes, with no Linux interface for
     * netlink to watch (dummy links): the descriptor of fd() also becomes readable when
     * the carrier changed. Returns 1 and the event (to be fed to link_event, as a netlink
     * event would be), or 0 when none waits; an event is handed out once. NULL for the
     * others, whose events come from netlink_link. */
    int  (*link_poll)(struct zvs_port *p, struct zvs_port_link_event *ev);
    /* The driver's carrier as it is now (1 up, 0 down, -errno: cannot tell), for a reader
     * that must not act on `carrier` as it was when the port was opened (the kernel's
     * flags lag the driver by a linkwatch run). NULL: `carrier` is always current. */
    int  (*carrier_now)(struct zvs_port *p);
    /* Ports with ZVS_CAP_UDP_TUNNEL_GSO whose tunnel offload is off until a VXLAN uplink
     * asks (a tap uplink: the kernel then hands it tunnel super-frames whole, which only
     * a VXLAN uplink takes); 0 or -errno. NULL: the capability alone says it is on. */
    int  (*tunnel_gso)(struct zvs_port *p, bool on);
    /* A hint from a switch with many guests (forward.c): tx will soon run on this port,
     * so start loading what it reads. Level 0 loads the port's own state; level 1 what
     * that state points at (read now, loaded by level 0); level 2 the next step of the
     * chain. The switch's pass ahead of a burst calls level 0 for the destinations its
     * frames look up to (a station that moves in the burst: a port that then gets
     * nothing), and, when the burst feeds 8 egresses or more, levels 1 and 2 for every
     * egress in turn before the burst's writes, so the cache misses of many ports overlap
     * instead of being paid one port after another (1,000 guests: tests/bench/README.md).
     * A port whose queue was written during the burst (it filled) gets them after that
     * write. Changes nothing a tx or a reader sees. NULL: nothing to load. */
    void (*prefetch)(struct zvs_port *p, unsigned level);
};

struct zvs_port {
    uint16_t                   index;   /* slot in the switch's port table */
    enum zvs_port_role         role;
    char                       name[24];/* "28BA" for an RDEV, "LNXREGC.F000" for a NIC */
    const struct zvs_port_ops *ops;
    void                      *backend; /* backend's private state */
    uint32_t                   caps;    /* ZVS_CAP_* */
    uint32_t                   mtu;     /* largest L3 payload; frames add 14 (+4 tagged) */
    uint32_t                   max_gso; /* largest super-frame the egress takes */
    bool                       carrier; /* link up; false: egress frames are discarded */
    struct zvs_port_counters   ctr;
};

/* Single-writer counter update: a plain add the sampler can read whole. */
static inline void zvs_ctr_add(uint64_t *c, uint64_t n)
{
    __atomic_store_n(c, *c + n, __ATOMIC_RELAXED);
}

static inline uint64_t zvs_ctr_read(const uint64_t *c)
{
    return __atomic_load_n(c, __ATOMIC_RELAXED);
}

void zvs_port_count_drop(struct zvs_port *p, bool inbound, enum zvs_drop why, uint64_t n);
void zvs_port_device_counters(const struct zvs_port *p, struct zvs_device_counters *out);
const char *zvs_drop_name(enum zvs_drop why);

#endif
