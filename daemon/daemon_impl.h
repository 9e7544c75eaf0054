/* vswitchd's private state, shared by the daemon's own files: daemon.c (building and
 * running the switches), daemon_reconcile.c (the data plane following the running
 * configuration), daemon_cmd.c (the CP commands that change it), daemon_query.c (the
 * QUERY responses), daemon_monitor.c (the sampler), daemon_guests.c (Hercules machines)
 * and daemon_msg.c (unsolicited messages). Private to daemon/ (the layering
 * check refuses an *_impl.h included from another folder). */
#ifndef ZVS_DAEMON_IMPL_H
#define ZVS_DAEMON_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "cp-commands/command.h"
#include "cp-commands/config.h"
#include "daemon/daemon.h"
#include "daemon/evloop.h"
#include "daemon/step_fault.h"
#include "backends/nic_class.h"
#include "lag/lag.h"
#include "dataplane/log.h"
#include "backends/netlink_link.h"
#include "dataplane/switch.h"

/* What a pass remembers for the next (hashes of each problem's text and of its object):
 * room for one problem per NIC and per device and a few per switch, so that a step
 * failing for an object that had a problem already is always known as such (only a step
 * failing anew fails a command). */
#define ZVSD_PROBLEMS_KEPT \
    (2 * (ZVS_CFG_MAX_NICS + ZVS_CFG_MAX_RDEVICES + 4 * ZVS_CFG_MAX_VSWITCHES))

struct zvs_console;
struct zvsd_monitor;

struct zvsd;

/* A running VSWITCH. Slots never move (the event loop and uplinks hold pointers to them);
 * a detached switch leaves its slot with sw == NULL for the next DEFINE. */
struct d_switch {
    struct zvs_switch     *sw;          /* NULL: free slot */
    struct zvs_cfg_vswitch cfg;         /* the definition the data plane now matches */
    struct zvs_lag        *lag;         /* its port group (GROUP grp), or NULL */
    struct zvs_timer      *lag_timer;   /* wakes the loop at the group's next deadline */
    /* Group devices the last pass could not open, and why: QUERY shows them with their
     * reason and counts them as members (issue 15: never silently missing). */
    unsigned               nclosed;
    struct {
        struct zvs_rdev dev;
        char            why[96];
    } closed[ZVS_CMD_MAX_RDEVS];
    bool                   ready_told;  /* HCPSWU2830I said, HCPSWU2832E not since */
    /* Its VXLAN uplink when the underlay is its port group (VXLAN ... GROUP): the group's
     * members are read through it (their bytes are encapsulated frames), never alone. */
    struct zvs_port       *overlay;
};

struct d_uplink {
    struct zvsd          *d;
    struct d_switch      *ds;
    struct zvs_port      *port;
    char                  ifname[ZVS_IFNAME_MAX + 1];
    int                   fd;           /* registered with the loop; -1 none */
    bool                  member;       /* port-group member (else an RDEV) */
    bool                  carrier_told; /* the carrier the switch and the group last got */
    struct zvs_device_counters base;    /* COUNTERS CLEAR: subtracted in reports */
};

/* A guest NIC the daemon drives (a NIC of the running configuration that its kind can
 * drive here): the kind-independent half. The slot and its kind's instance (side: a tap, a
 * program's attachment, a machine's LCS tap; backends/nic_class.h) live as long as the
 * NIC is defined; the NIC's queues (port) exist while it is coupled, sized by that
 * switch's QUEUESTORAGE. The MAC (in guest) and the counters are the slot's, never the
 * kind's. */
struct d_nic {
    struct zvsd          *d;
    bool                  used;         /* slot holds a NIC */
    struct d_switch      *ds;           /* coupled to this switch, or NULL */
    struct zvs_port      *port;         /* its queues while coupled (the switch owns it) */
    struct zvs_guest      guest;        /* its registration while coupled */
    struct zvs_nic_side  *side;         /* its kind's instance (never NULL while used) */
    char                  userid[ZVS_USERID_MAX + 1];
    uint16_t              vdev;
    struct zvs_device_counters base;    /* COUNTERS CLEAR: subtracted in reports */
    bool                  mtu_told;     /* ZVSVXL1241W said for it (daemon_vxlan_mtu.c) */
    uint64_t              mtu_told_ns;  /* when, last */
    bool                  mtu_fit_due;  /* coupled by a command still open: fitted once
                                           it stands (zvsd_vxlan_mtu_settled) */
};

struct zvsd {
    struct zvs_evloop       *loop;
    struct zvsd_options      opt;
    struct zvs_cfg          *run;        /* the running configuration (commands change it) */
    struct zvs_cfg          *scratch;    /* a command is applied here first */
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
    struct zvs_nic_env       nics;       /* the NIC kinds' host and per-daemon state */
    bool                     stopping;   /* zvsd_destroy: every watch is gone already */
    unsigned                 nproblems;  /* the last reconciler pass's problems (hashes) */
    uint32_t                *problems;   /* one of problem_buf; a pass fills the other */
    uint32_t                 problem_buf[2][ZVSD_PROBLEMS_KEPT];
    struct zvsd_guests      *guests;     /* Hercules machines (daemon_guests.c) */
    struct {                             /* step_fault.h: the test's armed faults */
        unsigned             nth[ZVSD_STEPS];
        unsigned             count[ZVSD_STEPS];
        int                  err[ZVSD_STEPS];
    } fault;
    struct zvsd_held        *held;       /* unsolicited messages of a command under way */
    unsigned                 nheld, held_cap;
    bool                     holding;    /* zvsd_say_hold: messages wait for the outcome */
    char                     sysname[ZVS_NAME_MAX + 1]; /* the system's name (QUERY USERID) */
    int64_t                  ipl_wall_s;  /* when vswitchd started (QUERY CPLEVEL's IPL) */
    int64_t                  built_wall_s; /* the program file's time ("Generated at"), 0:
                                             unknown */
    struct zvsd_names       *names;      /* watched names (daemon_names.c) */
    struct zvsd_ivl         *ivl;        /* the IVL domain (daemon_ivl.c), or NULL */
    struct zvs_port         *ivl_port;   /* the Global VSWITCH's IVL port, or NULL */
    struct d_switch         *ivl_port_ds;/* its switch */
    char                     ivl_port_why[160]; /* why it is not open (told once) */
    uint64_t                 ivl_port_retry;    /* no open before this (a second apart) */
    char                     ivl_port_on[ZVS_NAME_MAX + 1]; /* the TYPE IVL switch it was */
    struct zvs_rdev          ivl_port_rdev;     /* opened on, and that switch's RDEV */
};

/* daemon_guests.c: Hercules machines (XAUTOLOG, FORCE, SIGNAL, SEND, QUERY NAMES/USERS/
 * CONSLOG); their devices reach the user's NICs through the kinds' machine ops. */
struct zvsd_guests;
int  zvsd_guests_create(struct zvsd *d);
void zvsd_guests_destroy(struct zvsd *d);
/* A parsed command for the machines: true when it was one of theirs (response in r). */
bool zvsd_guests_exec(struct zvsd *d, const char *userid, const struct zvs_cmd *c,
                      struct zvs_cp_response *r);
/* The user's machine while it runs with its device open: true with *m (valid until the
 * machine changes), false otherwise. */
bool zvsd_guests_machine(struct zvsd *d, const char *userid, struct zvs_nic_machine *m);

/* daemon_names.c: the names of RESOLVER WATCH kept resolved (names/), their resolver's
 * sockets and deadline on the loop; QUERY RESOLVER; the counters report's lines. */
struct zvsd_names;
int  zvsd_names_create(struct zvsd *d);
void zvsd_names_destroy(struct zvsd *d);
/* Makes the watched names, servers and order follow d->run (every reconcile pass that
 * stands: a failed one returns before). */
void zvsd_names_reconcile(struct zvsd *d);
/* The table itself, for owners of names other than RESOLVER WATCH (a VXLAN VTEP's remotes:
 * watched with user = the VTEP, told their changes, never unwatched by the reconcile);
 * NULL when there is none. */
struct zvs_names *zvsd_names_table(struct zvsd *d);
void zvsd_names_query(struct zvsd *d, struct zvs_cp_response *r);
/* The counters report's resolver lines (none while no name was ever looked up). */
void zvsd_names_report(struct zvsd *d, struct zvs_cp_response *r);

/* daemon_ivl.c: the IVL domain of a Global VSWITCH's SHARED port group, run on the loop
 * (ivl/domain.h through lag/lag_domain.h). Made and changed by each reconcile pass that
 * stands (zvsd_ivl_reconcile; joining a cluster is nothing a rollback could take back),
 * synced with the group at the end of every iteration (zvsd_ivl_idle), gone at the stop. */
struct zvsd_ivl;
void zvsd_ivl_destroy(struct zvsd *d);
void zvsd_ivl_reconcile(struct zvsd *d);
void zvsd_ivl_idle(struct zvsd *d, uint64_t now);
/* The domain index (1..3) the group `group` runs with: this system's IVL MEMBER INDEX when
 * the group is SHARED and a Global VSWITCH uses it, else 0 (the group is this system's). */
unsigned zvsd_ivl_group_index(const struct zvsd *d, const char *group);
/* A new group of the domain starts held when the domain says this system may not
 * aggregate (its members never send one LACPDU in sync first). */
bool zvsd_ivl_group_held(const struct zvsd *d, const char *group);
/* The domain's lines (ours) in QUERY VSWITCH of the Global VSWITCH and in QUERY PORT GROUP
 * of its group: nothing for another switch or group. */
void zvsd_ivl_query(struct zvsd *d, const char *group, struct zvs_cp_response *r);

/* daemon_ivl_port.c: the Global VSWITCH's IVL port (backends/ivl_port.h) on the IVL
 * switch's RDEV. sync opens it while the domain runs (a device missing: again a second
 * later), close takes it away with the domain, switch_gone before its switch is destroyed;
 * view tells it the systems present and distributing (bit per index); query shows it. */
void zvsd_ivl_port_sync(struct zvsd *d, const char *vswitch, uint8_t index, char domain,
                        uint64_t now);
void zvsd_ivl_port_close(struct zvsd *d, uint64_t now);
/* Whether the open IVL port is still on the TYPE IVL switch's RDEV (true when none is
 * open): a port opened on a switch since detached, or on an RDEV since changed, is not. */
bool zvsd_ivl_port_current(const struct zvsd *d);
void zvsd_ivl_port_switch_gone(struct zvsd *d, struct d_switch *ds, uint64_t now);
void zvsd_ivl_port_view(struct zvsd *d, uint8_t present, uint8_t distributing);
void zvsd_ivl_port_query(struct zvsd *d, struct zvs_cp_response *r);

/* daemon_monitor_names.c: the watched names in the monitor. The resolver's counters into
 * *v, false (no record) while no name is watched; a name's event (enum zvs_name_event) as
 * a D15R2, now. */
struct zvs_mon_resolver_activity;
struct zvs_name;
struct zvs_res_addr;
bool zvsd_monitor_names_sample(struct zvsd *d, struct zvs_mon_resolver_activity *v);
void zvsd_monitor_name_event(struct zvsd *d, const struct zvs_name *n, unsigned ev,
                             const struct zvs_res_addr *old, unsigned nold, uint64_t now);

/* daemon.c: opening a real device's backend (NULL, with the reason in why and -errno in
 * *err, when it cannot be: -ENOENT no RDEVICE statement, -ENODEV no such interface yet)
 * and watching it in the event loop. The open is a step a test can fail (step_fault.h). */
struct zvs_port *zvsd_open_rdev(struct zvsd *d, struct zvs_rdev dev, const char **ifname,
                                uint8_t mac[6], char *why, size_t whylen, int *err);
uint32_t zvsd_if_speed_mbps(const char *ifname, uint32_t dflt);
void zvsd_track_uplink(struct zvsd *d, struct d_switch *ds, struct zvs_port *p,
                       const char *ifname, bool member);
/* Stops watching an uplink (its port is about to be destroyed). */
void zvsd_untrack_uplink(struct zvsd *d, struct zvs_port *p);

/* daemon_vxlan.c: a switch's VXLAN uplink (VXLAN VSWITCH): opened with its switch's
 * uplinks (0, or -1 with why and *err), the VTEP's names forgotten before it goes, and
 * its QUERY VSWITCH lines. */
struct zvs_vtep;
int  zvsd_vxlan_sync(struct zvsd *d, struct d_switch *ds, const struct zvs_cfg_vswitch *vs,
                     char *why, size_t whylen, int *err);
void zvsd_vxlan_forget(struct zvsd *d, struct zvs_vtep *v);
bool zvsd_vxlan_open(const struct d_switch *ds);    /* the switch has its VXLAN uplink */
struct zvs_port *zvsd_vxlan_port(const struct d_switch *ds);   /* that uplink, or NULL */
/* daemon_vxlan_mtu.c: a guest MTU the switch's VXLAN segment cannot carry, reported. The
 * inner IP MTU of the segment of the NIC's switch (0: none open), which a tap vswitchd
 * makes for it is held to; at COUPLE (n->ds set) the kind's device lowered to it while at
 * the kind's own MTU, ZVSVXL1240W when known and still larger; the same for every NIC
 * coupled to ds when its segment opens; after every iteration's events, ZVSVXL1241W for
 * the frames dropped as too big for a segment (by the switch before its VXLAN uplink, or
 * by the VTEP), by NIC (the first, then once a minute). Inside a command (d->holding) the
 * fit waits for its outcome: zvsd_vxlan_mtu_settled then fits the NICs still coupled
 * (after the command's messages; silently when it was rolled back), so a rolled-back
 * COUPLE leaves the tap as it was. */
struct zvs_cfg_nic;
uint32_t zvsd_vxlan_nic_mtu(struct zvsd *d, const struct zvs_cfg_nic *nic);
void zvsd_vxlan_mtu_couple(struct zvsd *d, struct d_nic *n);
void zvsd_vxlan_mtu_opened(struct zvsd *d, struct d_switch *ds);
void zvsd_vxlan_mtu_settled(struct zvsd *d, bool stands);
/* The VXLAN uplink of ds now has another segment MTU (its underlay's MTU changed; `was`
 * the one before): logged, and its coupled NICs fitted again, as when it opened (taps
 * still at vswitchd's MTU lowered, ZVSVXL1240W for a NIC still larger). */
void zvsd_vxlan_mtu_moved(struct zvsd *d, struct d_switch *ds, uint32_t was);
/* Switch ds's VXLAN uplink p: the frames its segment could not carry told by NIC (after
 * every loop iteration's events, from zvsd_vxlan_idle; a load when none was recorded). */
void zvsd_vxlan_mtu_take(struct zvsd *d, const struct d_switch *ds, struct zvs_port *p,
                         uint64_t now);
/* Every iteration: each VXLAN uplink's tables aged once a second has passed on the
 * loop's clock (overlay/uplink_vxlan.h), so an idle segment's learned MACs leave on time. */
void zvsd_vxlan_idle(struct zvsd *d, uint64_t now);
/* Before a NIC's port leaves switch ds: its too-big frames told while the port index is
 * still its own (a NIC coupled next may take the index). */
void zvsd_vxlan_mtu_detaching(struct zvsd *d, const struct d_switch *ds, uint64_t now);
/* daemon_vxlan_follow.c: the VTEP's remotes and VNI map made to follow the statement
 * (steps that can fail first); 0, or -errno with why. */
struct zvs_cfg_vxlan;
int  zvsd_vtep_follow(struct zvsd *d, struct zvs_vtep *v, const struct zvs_cfg_vxlan *vx,
                      const struct zvs_cfg_vswitch *vs, char *why, size_t whylen);
/* The switch's VXLAN uplink is going (its RDEVs close, or its group is released: the
 * uplink must go before the group it borrows): its names forgotten and, over a group,
 * the group handed back to the switch. The caller removes the port. */
void zvsd_vxlan_closing(struct zvsd *d, struct d_switch *ds, struct zvs_port *p);
/* Closes the switch's VXLAN uplink over its group, if it has one (before the group's
 * release). */
void zvsd_vxlan_close_group(struct zvsd *d, struct d_switch *ds);
void zvsd_vxlan_query(const struct d_switch *ds, bool details, struct zvs_cp_response *r);
/* The port whose counters are the device's: a VXLAN uplink's underlay (the OSA port counts
 * the encapsulated frames, as in z/VM's and the monitor's view), an IVL port's device (the
 * wrapped frames that crossed its wire, backends/ivl_port.c), else p itself. */
const struct zvs_port *zvsd_wire_port(const struct zvs_port *p);

/* daemon_monitor.c: monitor records (sampled in zvsd_monitor_run, every iteration). */
int  zvsd_monitor_open(struct zvsd *d, uint64_t now);
void zvsd_monitor_close(struct zvsd *d, uint64_t now);
void zvsd_monitor_run(struct zvsd *d, uint64_t now);
/* One event record of the daemon's other parts, stamped now (nothing without -m). */
struct zvs_mon_record;
void zvsd_monitor_event(struct zvsd *d, struct zvs_mon_record *r, uint64_t now);
/* D6R22 (up false, with a zvs_mon_fail_reason) or D6R23 for an uplink, now. */
void zvsd_monitor_uplink_event(struct zvsd *d, const struct d_uplink *u, bool up,
                               uint8_t reason, uint64_t now);

/* daemon.c: what the daemon does for the NIC kinds' instances (backends/nic_class.h):
 * their watches on the event loop, the switch taking what a guest primed. */
extern const struct zvs_nic_host zvsd_nic_host;
/* Every NIC's kind counts what it saw outside the NIC's port into it: before anything
 * reads the counters (a command, a monitor sample). */
void zvsd_nics_fold(struct zvsd *d);

/* daemon_reconcile.c: makes the data plane match d->run (switches, uplinks, port groups,
 * NIC couplings and registrations). Problems the previous pass did not have are logged as
 * warnings and, when r is not NULL, written to it as warning lines (only those about the
 * viewer's own NICs when viewer is not NULL: an issuer without class B); returns how many
 * problems there are. Used at start and after every configuration command.
 * A command's pass (why not NULL) is a transaction's forward half: the backends it opens
 * are opened before anything changes, and the pass stops at the first step that fails
 * and had no problem for the same object in the previous pass (a device with no
 * interface yet, a NIC not authorized are waiting, not failed); it then returns -EIO
 * with that step's text in why, and the caller reconciles back to the previous
 * configuration (daemon_cmd.c). */
int zvsd_reconcile(struct zvsd *d, struct zvs_cp_response *r, const char *viewer,
                   char *why, size_t whylen);
/* step_fault.c: 0, or the armed fault's -errno when this step of `step` is to fail. */
int zvsd_step_fault(struct zvsd *d, enum zvsd_step step);
/* daemon_fingerprint.c: a digest of the data plane as the reconciler built it (switches,
 * their ports in order with counters, groups and members, uplink and NIC slots, NIC
 * registrations): equal before a command and after its rollback when nothing was lost. */
uint64_t zvsd_fingerprint(const struct zvsd *d);
struct d_switch *zvsd_switch_by_name(struct zvsd *d, const char *name);
struct d_nic *zvsd_nic_find(struct zvsd *d, const char *userid, uint16_t vdev);
/* A NIC of the configuration as its kind sees it (machine NULL). */
void zvsd_nic_params(const struct zvsd *d, const struct zvs_cfg_nic *nic,
                     struct zvs_nic_params *p);
/* Whether a NIC of the configuration has something to drive it here (its kind says:
 * NICBIND TAP and LCS always, QDIO and none with the attach socket, -q, open). */
bool zvsd_nic_has_backend(const struct zvsd *d, const struct zvs_cfg_nic *nic);

/* daemon_query.c: QUERY VSWITCH, NIC, VMLAN, PORT GROUP, LACP responses. */
/* daemon_system.c: the system's identity (QUERY USERID, QUERY CPLEVEL); zvsd_system_init
 * names the system from the configuration and the host name, and stamps the start. */
void zvsd_system_init(struct zvsd *d, const struct zvs_cfg *cfg);
bool zvsd_system_query(struct zvsd *d, const struct zvs_cmd *c, const char *userid,
                       struct zvs_cp_response *r);

void zvsd_query(struct zvsd *d, const struct zvs_cmd *c, const char *userid,
                uint32_t privclass, struct zvs_cp_response *r);
/* A port's z/VM-view counters minus its COUNTERS CLEAR base. */
void zvsd_counters(const struct zvs_port *p, const struct zvs_device_counters *base,
                   struct zvs_device_counters *out);

/* A command is taking the uplink (DISCONNECT, RDEV, NOGROUP, DETACH, LEAVE) or the NIC
 * (UNCOUPLE, DETACH NIC, REVOKE) away: the failure event is written now, while the slot
 * still names it, and the slot's monitor state is reset for whatever comes next. */
void zvsd_monitor_uplink_gone(struct zvsd *d, const struct d_uplink *u, uint8_t reason,
                              uint64_t now);
void zvsd_monitor_nic_gone(struct zvsd *d, const struct d_nic *n, uint64_t now);

/* daemon_msg.c: unsolicited messages (catalogue id, then its string arguments, ending
 * with NULL) to the console's subscribers and the log; owner: the CP userid whose NIC
 * the message is about (its class G subscribers get it too), NULL for the system. */
void zvsd_say(struct zvsd *d, enum zvs_cpmsg_id id, const char *owner, ...);
/* A command's unsolicited messages wait for its outcome (hold), then are told in their
 * order (release with tell true) or dropped with it (a rolled-back command said nothing).
 * Not nested. */
void zvsd_say_hold(struct zvsd *d);
void zvsd_say_release(struct zvsd *d, bool tell);
/* The port group's sink (zvs_lag_params.say; arg is the daemon). */
void zvsd_say_lag(void *arg, enum zvs_cpmsg_id id, const char *const *args, unsigned nargs);
/* Every iteration, after the events: a switch that became ready or lost its last
 * uplink says so (HCPSWU2830I, HCPSWU2832E); rate-limit windows that are over report. */
void zvsd_say_switches(struct zvsd *d);

/* daemon_cmd.c: the console's executor. */
void zvsd_execute(void *arg, const char *userid, uint32_t privclass, const char *line,
                  struct zvs_cp_response *r);

#endif
