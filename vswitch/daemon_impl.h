/* vswitchd's private state, shared by daemon.c (building and running the switches) and
 * daemon_cmd.c (the CP commands that change them while they run). Nothing else includes
 * this. */
#ifndef ZVS_DAEMON_IMPL_H
#define ZVS_DAEMON_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "cp-commands/command.h"
#include "cp-commands/config.h"
#include "daemon.h"
#include "evloop.h"
#include "guest_tap.h"
#include "lag.h"
#include "log.h"
#include "netlink_link.h"
#include "switch.h"

struct zvs_console;
struct zvsd_monitor;

struct zvsd;

struct d_switch {
    struct zvs_switch     *sw;
    struct zvs_cfg_vswitch cfg;         /* the DEFINE VSWITCH it came from */
    struct zvs_lag        *lag;         /* its port group (GROUP grp), or NULL */
    struct zvs_timer      *lag_timer;   /* wakes the loop at the group's next deadline */
};

struct d_uplink {
    struct zvsd          *d;
    struct d_switch      *ds;
    struct zvs_port      *port;
    char                  ifname[ZVS_IFNAME_MAX + 1];
    int                   fd;           /* registered with the loop; -1 none */
    bool                  member;       /* port-group member (else an RDEV) */
};

struct d_nic {
    struct zvsd          *d;
    struct d_switch      *ds;
    struct zvs_port      *port;
    struct zvs_guest_tap *tap;          /* NICBIND TAP: the driver; NULL for QDIO */
    char                  ifname[ZVS_IFNAME_MAX + 1];
    char                  userid[ZVS_USERID_MAX + 1];
    uint16_t              vdev;
    bool                  external;     /* NICBIND QDIO: a program attaches over the socket */
    int                   session;      /* its attach connection while attached, else -1 */
};

struct zvsd {
    struct zvs_evloop       *loop;
    struct zvsd_options      opt;
    unsigned                 nsw;
    struct d_switch          sw[ZVS_CFG_MAX_VSWITCHES];
    unsigned                 nup;
    struct d_uplink          up[ZVS_CFG_MAX_VSWITCHES * (ZVS_CFG_MAX_RDEV + ZVS_CFG_MAX_GROUP_PORTS)];
    unsigned                 nnic;
    struct d_nic            *nic;       /* ZVS_CFG_MAX_NICS slots */
    struct zvs_netlink_link *nl;
    int                      sigfd;
    int                      attach_fd;  /* listening socket for external QDIO guests */
    struct zvs_ratelimit     attach_rl;  /* refused attach requests: log a few a minute */
    struct zvs_console      *console;    /* the operator console (vmcp), or NULL */
    unsigned                 nrdevice;   /* RDEVICE ... INTERFACE mappings, kept for JOIN */
    struct zvs_cfg_rdevice   rdevice[ZVS_CFG_MAX_RDEVICES];
    uint8_t                  macprefix[3];
    struct zvsd_monitor     *mon;        /* monitor records (-m), or NULL */
};

/* daemon.c: opening a real device's backend and watching it in the event loop. */
struct zvs_port *zvsd_open_rdev(struct zvsd *d, const struct d_switch *ds, struct zvs_rdev dev,
                                const char **ifname, uint8_t mac[6]);
uint32_t zvsd_if_speed_mbps(const char *ifname, uint32_t dflt);
void zvsd_track_uplink(struct zvsd *d, struct d_switch *ds, struct zvs_port *p,
                       const char *ifname, bool member);
/* Stops watching an uplink (its port is about to be destroyed). */
void zvsd_untrack_uplink(struct zvsd *d, struct zvs_port *p);
/* The operator's report for one switch (NULL: all), as zvsd_report. */
void zvsd_report_switch(const struct zvsd *d, const struct d_switch *only, FILE *out);

/* daemon_monitor.c: monitor records (sampled in zvsd_monitor_run, every iteration). */
int  zvsd_monitor_open(struct zvsd *d, uint64_t now);
void zvsd_monitor_close(struct zvsd *d, uint64_t now);
void zvsd_monitor_run(struct zvsd *d, uint64_t now);
/* D6R22 (up false, with a zvs_mon_fail_reason) or D6R23 for an uplink, now. */
void zvsd_monitor_uplink_event(struct zvsd *d, const struct d_uplink *u, bool up,
                               uint8_t reason, uint64_t now);

/* daemon_cmd.c: the console's executor. */
void zvsd_execute(void *arg, const char *userid, uint32_t privclass, const char *line,
                  struct zvs_cp_response *r);

#endif
