/* The reconciler's failure-injection seam: a test makes the Nth data-plane step of one
 * kind fail with an error of its choosing, so every rollback path can be driven without
 * a broken host (the hermetic suite, tests/unit/test_daemon_rollback.c).
 *
 * Each kind is a step of daemon_reconcile.c that can fail on its own: the reconciler asks
 * zvsd_step_fault before taking it and, when told to fail, handles the error exactly as
 * the real step's failure (the real step is not taken). Only configuration passes ask;
 * nothing on the frame path does, and with nothing armed a step costs one branch.
 * Rules: one armed fault per kind, one-shot (it disarms when it fires); counting starts
 * when it is armed. Not for production use: vswitchd never arms one.
 */
#ifndef ZVS_STEP_FAULT_H
#define ZVS_STEP_FAULT_H

struct zvsd;

enum zvsd_step {
    ZVSD_STEP_SWITCH,          /* a VSWITCH is created */
    ZVSD_STEP_DEVICE_OPEN,     /* a real device's backend is opened (RDEV or group member) */
    ZVSD_STEP_UPLINK_ADD,      /* an opened RDEV is attached to its switch */
    ZVSD_STEP_GROUP,           /* a port group is created on its switch */
    ZVSD_STEP_JOIN,            /* an opened device joins its port group */
    ZVSD_STEP_NIC_OPEN,        /* a NIC's kind opens its half (DEFINE NIC, start) */
    ZVSD_STEP_NIC_QUEUES,      /* a NIC's QDIO queues are allocated (COUPLE) */
    ZVSD_STEP_NIC_ATTACH,      /* the NIC's port is registered on the switch (its MAC) */
    ZVSD_STEP_NIC_BIND,        /* the NIC's kind binds the port */
    ZVSD_STEP_NIC_UPDATE,      /* a coupled NIC's registration changes (GRANT, MACPROTECT) */
    ZVSD_STEP_VXLAN,           /* a remote VTEP is added to a VXLAN uplink's VTEP, or a
                                  static neighbour set in its neighbour table */
    ZVSD_STEPS
};

/* Arms a fault: the nth step of `step` from now (1: the next) fails with -err (err > 0).
 * nth 0 lifts the fault of that kind. */
void zvsd_step_fail(struct zvsd *d, enum zvsd_step step, unsigned nth, int err);

/* Steps of `step` taken since the fault of that kind was armed (or since start). */
unsigned zvsd_step_count(const struct zvsd *d, enum zvsd_step step);

#endif
