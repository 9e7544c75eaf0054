/* Internals of the switch model shared by sm_switch.c (data path, LACP glue) and
 * sm_cmd.c (control commands). Not for other users. */
#ifndef SM_SWITCH_IMPL_H
#define SM_SWITCH_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "lacp/lacp_port.h"
#include "lacp/marker.h"
#include "tests/switchmodel/sm_config.h"
#include "tests/switchmodel/sm_l2.h"
#include "tests/switchmodel/sm_switch.h"
#include "tests/switchmodel/sm_tbf.h"
#include "daemon/evloop.h"
#include "backends/netlink_link.h"
#include "dataplane/port.h"

/* Per physical port counters, Cisco's names ("show interfaces counters"). */
struct sm_port_ctr {
    uint64_t in_octets, in_ucast, in_mcast, in_bcast;
    uint64_t out_octets, out_ucast, out_mcast, out_bcast;
    uint64_t in_not_bundled;            /* data frames on a member not collecting: dropped */
    uint64_t in_vlan_denied;            /* not in the port's VLANs */
    uint64_t in_runts;                  /* shorter than 14 bytes */
    uint64_t in_reserved;               /* 01:80:C2:00:00:0x other than LACP: dropped */
    uint64_t in_queue_drops;            /* ingress shaper full */
    uint64_t out_queue_drops;           /* egress shaper full */
    uint64_t out_errors;                /* the interface refused the frame */
    uint64_t lacp_ignored;              /* LACPDUs on a port not running LACP */
    uint64_t lacp_rejected;             /* LACPDUs refused by a quirk */
    uint64_t lacp_bad;                  /* slow frames that did not parse */
    uint64_t marker_ignored;            /* Markers on a port not running LACP */
};

struct sm_group;
struct sm_switch;

struct sm_port {
    struct sm_switch *sw;
    const struct sm_if_cfg *cfg;
    unsigned idx;                       /* in sw->ports */
    uint16_t lport;                     /* own logical port (unused while in a group) */
    struct zvs_port *zp;                /* its backend port (AF_PACKET, or a dummy link) */
    int fd;                             /* registered with the loop, -1: none */
    uint8_t mac[6];                     /* the interface's MAC: LACPDU source */
    bool admin_down;                    /* "shutdown" */
    bool carrier;                       /* link up as the last link event said */
    struct sm_group *grp;               /* channel group, or NULL */
    bool lacp;                          /* runs LACP (mode active or passive) */
    struct zvs_lacp_port lp;            /* LACP engine (when lacp) */
    struct zvs_lacp_marker mk;          /* Marker responder (when lacp) */
    bool collecting;                    /* engine: Enable_Collecting */
    bool distributing;                  /* engine: Enable_Distributing */
    bool rejected;                      /* last LACPDU refused by a quirk */
    uint64_t last_pdu_rx;               /* time of the last LACPDU accepted, 0: none */
    struct sm_port_ctr ctr;
    bool shaped;                        /* rate-limit configured */
    struct sm_shaper sh_in;             /* frames entering the switch */
    struct sm_shaper sh_out;            /* frames leaving through this port */
    struct sm_tb fb;                    /* OSA port model: frames/s shared by sh_in, sh_out */
    struct zvs_timer *sh_timer;
    bool sh_kicked;                     /* egress frame queued since its last service */
    uint64_t sh_tick;                   /* shortest time between two shaper wakeups, ns */
    struct zvs_tx pend[ZVS_BATCH];      /* frames to write at the end of the burst */
    int npend;
};

struct sm_group {
    unsigned id;                        /* channel-group number, 0: slot unused */
    uint16_t lport;
    bool lacp;                          /* LACP (active/passive) or static (on) */
    struct zvs_lacp_aggregator agg;
    unsigned n_members;
    struct sm_port *members[SM_MAX_IFS];    /* config order */
    unsigned n_active;
    struct sm_port *active[SM_MAX_IFS];     /* bundled for transmit, port order */
};

struct zvs_backend_class;

struct sm_switch {
    struct sm_config cfg;
    struct zvs_evloop *loop;
    const struct zvs_backend_class *io;    /* how ports are opened (sm_switch_io) */
    struct zvs_netlink_link *nl;        /* carrier of Linux interfaces; NULL for dummy */
    uint8_t sysmac[6];                  /* LACP system MAC (from the hostname) */
    unsigned n_ports;
    struct sm_port ports[SM_MAX_IFS];
    struct sm_group groups[SM_MAX_GROUPS + 1];
    struct sm_l2 l2;
    struct zvs_timer *lacp_timer;
    struct zvs_timer *age_timer;
    uint64_t lacp_armed;                /* deadline lacp_timer is armed for */
};

/* sm_switch.c, for sm_cmd.c */
struct sm_port *sm_port_find(struct sm_switch *sw, const char *name);
bool sm_port_up(const struct sm_port *p);
char sm_port_flag(const struct sm_port *p);
void sm_port_admin(struct sm_port *p, bool down, uint64_t now);
void sm_port_set_faults(struct sm_port *p, const struct zvs_lacp_faults *f, uint64_t now);
void sm_lacp_rearm(struct sm_switch *sw);

/* sm_cmd.c */
int sm_cmd_exec(struct sm_switch *sw, const char *line, FILE *out);

#endif
