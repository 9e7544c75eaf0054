/* Private layout of struct zvs_switch, shared by switch.c (management) and forward.c (the
 * data path). Nothing outside those two files includes this. */
#ifndef ZVS_SWITCH_IMPL_H
#define ZVS_SWITCH_IMPL_H

#include "dataplane/switch.h"

/* Per-port state of the switch: the guest registration and the egress burst queue. */
struct zvs_swport {
    struct zvs_port *port;              /* NULL: slot free */
    bool             is_guest;
    bool             in_group;          /* uplink that is a port-group member */
    bool             collecting;        /* uplink: inbound accepted (group: LACP Collecting) */
    bool             is_ivl;            /* the IVL port: the other systems of the domain */
    struct zvs_guest guest;             /* valid when is_guest */
    uint16_t         npend;             /* frames queued for this egress in this burst */
    bool             active;            /* on the switch's active-egress list */
    uint64_t         pend_bytes;        /* wire bytes of the queued frames (out_bytes) */
    uint32_t         pend_extra;        /* wire frames beyond one per queued frame: the
                                           segments of queued super-frames (out_packets) */
    struct zvs_tx    pend[ZVS_BATCH];   /* the queued frames */
};

struct zvs_switch {
    struct zvs_switch_params params;
    struct zvs_mac_table    *macs;
    struct zvs_swport        sp[ZVS_MAX_PORTS];
    uint16_t                 guests[ZVS_MAX_PORTS]; /* indices of guest ports, dense */
    uint16_t                 nguests;
    uint16_t                 uplinks[ZVS_MAX_UPLINKS]; /* in attach order */
    uint16_t                 nuplinks;
    int                      active_uplink;          /* port index, -1: none */
    struct zvs_pg_dist       *group;                  /* port group uplink (not owned) */
    bool                     group_underlay;         /* its members carry an overlay's
                                                        frames, not the switch's */
    int                      ivl_port;               /* port index, -1: none */
    uint16_t                 active[ZVS_MAX_PORTS];  /* egress ports with queued frames */
    uint16_t                 nactive;
    zvs_slow_fn              slow_fn;
    void                    *slow_arg;
    /* The running burst's Slow Protocols frames for slow_fn, handed on after it, in the
     * order they came (forward.c). It cannot overflow for a burst read by
     * zvs_switch_poll: that is at most ZVS_BATCH frames, so at most ZVS_BATCH of them are
     * Slow Protocols frames. A caller of zvs_switch_input with a longer burst could bring
     * more: those are discarded and counted as every Slow Protocols frame the switch does
     * not hand on (drops[ZVS_DROP_SLOW_PROTO], in_discards). */
    const struct zvs_frame  *slowq[ZVS_BATCH];
    unsigned                 nslow;
    struct zvs_switch_stats  stats;
    uint8_t                 *scratch;   /* offload fix-up: the emitted frame */
    uint8_t                 *scratch2;  /* offload fix-up: one segment */
    /* Frames an uplink egress dropped as too big (ZVS_DROP_OVERSIZE), by the port they
     * came in on, until the owner takes them (zvs_switch_take_oversize): last, as the
     * drop path alone writes it and nothing on the path per frame reads it. */
    struct zvs_oversize      oversize;
};

#define ZVS_SCRATCH_LEN (65536 + 256)

#endif
