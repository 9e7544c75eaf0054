/* vswitchd's body: builds the switches of a parsed configuration (SYSTEM CONFIG + USER
 * DIRECT), binds their uplinks and guest NICs to Linux interfaces, and runs the event
 * loop until SIGTERM/SIGINT. main() in vswitchd.c handles the command line, daemonizing
 * and the pidfile; this file is the part tests can drive.
 */
#ifndef ZVS_DAEMON_H
#define ZVS_DAEMON_H

#include <stdint.h>
#include <stdio.h>

struct zvs_cfg;
struct zvs_cluster;
struct zvsd;

struct zvsd_options {
    const char *stats_path;             /* counters report written on SIGUSR1 and at exit */
    const char *qdio_socket;            /* attach socket for NICBIND QDIO guests, or NULL */
    const char *console_path;           /* operator console socket (vmcp), or NULL */
    const char *console_group;          /* console socket's group, mode 0660; NULL: 0600 */
    const char *monitor_path;           /* monitor file (MONWRITE-like), or NULL */
    uint32_t    monitor_interval_s;     /* sample interval, 0: 60 s */
    uint64_t    monitor_max_bytes;      /* rotate the monitor file beyond this (0: never) */
    const char *monitor_live_path;      /* socket serving the live record stream, or NULL */
    const char *uplink_kind;            /* backend kind for every RDEV and group member
                                           (backends/backend.h: "dummy" in hermetic
                                           tests), or NULL: as each RDEVICE says; must
                                           outlive the daemon */
    /* Ours (vswitchd --test-interval): seconds between the balancing passes of every port
     * group whose INTERVAL is not OFF, instead of its INTERVAL (which CP rounds up to 30 s);
     * for labs and the demo. 0: each group's INTERVAL. QUERY shows the value in effect. */
    uint32_t    test_interval_s;
    /* Tests: run on virtual time (zvs_evloop_create_virtual) starting at this instant of
     * the loop's clock in ns, with the wall clock at virtual_wall_us then; time moves only
     * by zvs_evloop_warp on zvsd_loop(). 0: the real clocks. */
    const char *guest_images;           /* IPL name images (default "build/guests") */
    const char *guest_dir;              /* machines' folders (default /run/zvswitch/guests) */
    const char *hercules;               /* the emulator (default "hercules") */
    uint64_t    virtual_start_ns;
    uint64_t    virtual_wall_us;
    /* The IVL domain (daemon_ivl.c). corosync_conf (vswitchd --corosync-conf, ours): the
     * corosync.conf this system's corosync runs with, checked against SYSTEM CONFIG at
     * start (a difference is told, ZVSIVL1267W); NULL: not checked. ivl_cluster (tests):
     * makes the domain's cluster (ivl/cluster.h) for the Global VSWITCH `vswitch` on the
     * system of index `index`, instead of Corosync's; NULL: Corosync on a real loop, none
     * on a virtual one (the system runs alone). */
    const char *corosync_conf;
    struct zvs_cluster *(*ivl_cluster)(void *arg, const char *vswitch, unsigned index);
    void       *ivl_cluster_arg;
};

/* Build every switch, uplink and NIC of cfg. Errors are logged with the statement that
 * caused them; a NIC that cannot be bound is skipped (logged), a switch whose uplink
 * interface is missing starts without carrier and picks it up when the interface comes.
 * Returns NULL only when nothing can run (no memory, no event loop). */
struct zvsd *zvsd_create(const struct zvs_cfg *cfg, const struct zvsd_options *opt);
/* Run until a termination signal. Returns 0 or -errno. */
int zvsd_run(struct zvsd *d);
void zvsd_destroy(struct zvsd *d);
/* The daemon's event loop (tests drive a virtual one with zvs_evloop_warp). */
struct zvs_evloop *zvsd_loop(struct zvsd *d);
/* The console's executor: what a vmcp session's line does, issued by `userid` with
 * `privclass` (ZVS_PRIVCLASS bits); the response goes to r (cp-commands/command.h). */
struct zvs_cp_response;
void zvsd_exec(struct zvsd *d, const char *userid, uint32_t privclass, const char *line,
               struct zvs_cp_response *r);

/* The port group `group` as the VSWITCH that uses it runs it (its LACP engines, bucket
 * map and counters: lag/lag.h), or NULL when no switch uses it. A read-side view for
 * tests that assert what QUERY does not show (which bucket moved where); it changes with
 * every command and every event-loop iteration, and a command may free it. */
struct zvs_lag;
struct zvs_lag *zvsd_port_group(struct zvsd *d, const char *group);

/* The resolver of the watched names (RESOLVER WATCH): on a real loop c-ares, NULL before
 * a name was watched; on a virtual loop the in-memory one (names/resolver_mem.h), there
 * from the start: tests set its records. */
struct zvs_resolver;
struct zvs_resolver *zvsd_resolver(struct zvsd *d);

/* The operator's view of every switch: uplinks and NICs with z/VM-style counters and the
 * discard reasons. */
void zvsd_report(struct zvsd *d, FILE *out);

#endif
