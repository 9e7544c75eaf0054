/* One aggregation port's LACP engine (IEEE 802.1AX-2008 5.4 / 802.1AX-2014 6.4, ex-802.3ad
 * clause 43).
 *
 * Pure logic: no I/O, no clock, no allocation. Time is a uint64_t in nanoseconds passed in by
 * the caller; every timer is an absolute deadline. The engine reaches the world only through
 * struct zvs_lacp_port_cb. Machines: Receive, Periodic Transmission, Selection (one
 * aggregator per port group), Mux (independent control by default, coupled control as an
 * option), Transmit (at most 3 LACPDUs per Fast_Periodic_Time), Actor and Partner Churn
 * Detection. One file per machine (lacp/rx.c, periodic.c, selection.c, mux.c, transmit.c,
 * churn.c); the driver and the design note are in lacp_port.c.
 *
 * The struct is visible only so the caller can embed it (no allocation); treat every member
 * as private and use the getters.
 */
#ifndef ZVS_LACP_PORT_H
#define ZVS_LACP_PORT_H

#include <stdbool.h>
#include <stdint.h>

#include "lacp/pdu.h"

/* Timer constants (802.1AX-2008 5.4.4 / 2014 6.4.4), in nanoseconds. */
#define ZVS_LACP_NS_PER_SEC             1000000000ull
#define ZVS_LACP_FAST_PERIODIC_NS       (1ull * ZVS_LACP_NS_PER_SEC)    /* Fast_Periodic_Time */
#define ZVS_LACP_SLOW_PERIODIC_NS       (30ull * ZVS_LACP_NS_PER_SEC)   /* Slow_Periodic_Time */
#define ZVS_LACP_SHORT_TIMEOUT_NS       (3ull * ZVS_LACP_NS_PER_SEC)    /* Short_Timeout_Time */
#define ZVS_LACP_LONG_TIMEOUT_NS        (90ull * ZVS_LACP_NS_PER_SEC)   /* Long_Timeout_Time */
#define ZVS_LACP_CHURN_DETECTION_NS     (60ull * ZVS_LACP_NS_PER_SEC)   /* Churn_Detection_Time */
#define ZVS_LACP_AGGREGATE_WAIT_NS      (2ull * ZVS_LACP_NS_PER_SEC)    /* Aggregate_Wait_Time */
#define ZVS_LACP_TX_PER_FAST_PERIOD     3       /* LACPDUs per Fast_Periodic_Time, at most */
#define ZVS_LACP_NEVER                  UINT64_MAX  /* next_wakeup: no timer running */
#define ZVS_LACP_TX_DELAY_SLOTS         8       /* fault knob: delayed LACPDUs held at most */

/* Which machine a transition belongs to (for the transition callback and logs). */
enum zvs_lacp_machine {
    ZVS_LACP_MACHINE_RX,                /* Receive machine, enum zvs_lacp_rx_state */
    ZVS_LACP_MACHINE_PTX,               /* Periodic Transmission, enum zvs_lacp_ptx_state */
    ZVS_LACP_MACHINE_SELECTION,         /* Selection logic, enum zvs_lacp_selected */
    ZVS_LACP_MACHINE_MUX,               /* Mux machine, enum zvs_lacp_mux_state */
    ZVS_LACP_MACHINE_ACTOR_CHURN,       /* Actor Churn Detection, enum zvs_lacp_churn_state */
    ZVS_LACP_MACHINE_PARTNER_CHURN,     /* Partner Churn Detection, enum zvs_lacp_churn_state */
    ZVS_LACP_MACHINE_COUNT
};

enum zvs_lacp_rx_state {
    ZVS_LACP_RX_INITIALIZE,             /* BEGIN: partner := admin defaults */
    ZVS_LACP_RX_PORT_DISABLED,          /* no carrier */
    ZVS_LACP_RX_LACP_DISABLED,          /* carrier but half duplex: Individual, no LACP */
    ZVS_LACP_RX_EXPIRED,                /* no PDU for current_while; 3 s to DEFAULTED */
    ZVS_LACP_RX_DEFAULTED,              /* partner is the admin default (all zero) */
    ZVS_LACP_RX_CURRENT,                /* partner info from a PDU within current_while */
};

enum zvs_lacp_ptx_state {
    ZVS_LACP_PTX_NO_PERIODIC,           /* not transmitting periodically (passive-passive...) */
    ZVS_LACP_PTX_FAST_PERIODIC,         /* partner asks for short timeout: every 1 s */
    ZVS_LACP_PTX_SLOW_PERIODIC,         /* partner asks for long timeout: every 30 s */
    ZVS_LACP_PTX_PERIODIC_TX,           /* transient: periodic timer expired, NTT := TRUE */
};

enum zvs_lacp_selected {
    ZVS_LACP_UNSELECTED,
    ZVS_LACP_SELECTED,
    ZVS_LACP_STANDBY,                   /* defined by 802.1AX; this engine never uses it */
};

/* Mux machine states (802.1AX-2008 5.4.15 / 2014 6.4.15). Independent control (the default)
 * uses DETACHED, WAITING, ATTACHED, COLLECTING, DISTRIBUTING. Coupled control (802.3ad,
 * Linux default; cfg.coupled_mux) uses DETACHED, WAITING, ATTACHED, COLLECTING_DISTRIBUTING.
 * The values of the first four are unchanged from earlier versions. */
enum zvs_lacp_mux_state {
    ZVS_LACP_MUX_DETACHED,
    ZVS_LACP_MUX_WAITING,               /* wait_while: Aggregate_Wait_Time (2 s) */
    ZVS_LACP_MUX_ATTACHED,              /* attached, actor SYNC; waiting for partner SYNC */
    ZVS_LACP_MUX_COLLECTING_DISTRIBUTING, /* coupled only: rx and tx enabled together */
    ZVS_LACP_MUX_COLLECTING,            /* independent only: rx enabled; partner not collecting */
    ZVS_LACP_MUX_DISTRIBUTING,          /* independent only: rx and tx enabled */
};

enum zvs_lacp_churn_state {
    ZVS_LACP_NO_CHURN,                  /* SYNC true */
    ZVS_LACP_CHURN_MONITOR,             /* SYNC false, churn timer (60 s) running */
    ZVS_LACP_CHURN,                     /* SYNC stayed false for 60 s */
};

/* The aggregator of one port group: the LAG ID its ports must share. Owned by the caller
 * (one per port group), shared by pointer by every port engine of the group; NULL in the
 * config gives a port its own private aggregator. Members are private to lacp/ (selection.c
 * binds the LAG ID, mux.c keeps ready_at). */
struct zvs_lacp_aggregator {
    uint16_t actor_key;                 /* ports with another key are never selected */
    unsigned selected_ports;            /* ports SELECTED into it; LAG ID bound while > 0 */
    uint16_t partner_system_priority;   /* bound LAG ID: partner System ID ... */
    uint8_t  partner_system[6];         /* ... */
    uint16_t partner_key;               /* ... and partner key */
    uint32_t speed_mbps;                /* speed of the bound ports */
    uint64_t ready_at;                  /* latest wait_while deadline of its WAITING ports */
};

void zvs_lacp_aggregator_init(struct zvs_lacp_aggregator *agg, uint16_t actor_key);

struct zvs_lacp_port_cfg {
    bool     active;                    /* LACP_Activity: true Active, false Passive */
    bool     fast;                      /* LACP_Timeout asked of the partner: true Short */
    uint16_t system_priority;           /* actor System ID, first half */
    uint8_t  system[6];                 /* actor System ID, MAC (the vswitch's) */
    uint16_t key;                       /* actor operational key (one per port group) */
    uint16_t port_priority;             /* actor Port ID, first half */
    uint16_t port;                      /* actor Port ID, number: never 0 (init refuses) */
    uint32_t speed_mbps;                /* for selection: ports of another speed not selected */
    bool     full_duplex;               /* LACP_Enabled; false: LACP_DISABLED (Individual) */
    bool     enabled;                   /* port_enabled: carrier at init */
    bool     coupled_mux;               /* true: coupled Mux; false (default): independent */
    struct zvs_lacp_aggregator *aggregator; /* the port group's aggregator, or NULL */
};

/* The world. send is required; the rest may be NULL. Callbacks run inside init/rx/run/
 * set_enabled/fini and must not call back into the same engine (asserted); the getters may
 * be used and already show the new state. collecting/distributing fire only on a change
 * (never enable twice), and in this order: attach(true) < collecting(true) <
 * distributing(true); distributing(false) < collecting(false) < attach(false). Independent
 * Mux: collecting(true) on ATTACHED -> COLLECTING, distributing(true) on COLLECTING ->
 * DISTRIBUTING, distributing(false) on DISTRIBUTING -> COLLECTING, collecting(false) on
 * COLLECTING -> ATTACHED. Coupled Mux: both enables on ATTACHED -> COLLECTING_DISTRIBUTING,
 * both disables on the way back. */
struct zvs_lacp_port_cb {
    void (*send)(void *arg, const struct zvs_lacpdu *pdu);     /* transmit one LACPDU */
    void (*attach)(void *arg, bool attached);                  /* Mux attached/detached */
    void (*collecting)(void *arg, bool enable);                /* Enable/Disable_Collecting */
    void (*distributing)(void *arg, bool enable);              /* Enable/Disable_Distributing */
    void (*transition)(void *arg, enum zvs_lacp_machine m, int from, int to, uint64_t now);
};

/* Fault knobs, per port, all off after init: part of the product, reachable from the class
 * A command SET LACP and from tests. They act at the wire edge of the engine: the machines
 * themselves run unchanged.
 *  drop_rx:     zvs_lacp_port_rx drops the PDU before the Receive machine sees it (counted
 *               in rx_dropped_by_knob only, not lacpdus_rx; the machines do not run).
 *  drop_tx:     Transmit builds the PDU and believes it sent it (NTT cleared, the send counts
 *               for the 3-per-second limit) but cb.send is not called; counted in
 *               tx_dropped_by_knob, not lacpdus_tx. Checked before delay_tx.
 *  delay_tx_ns: > 0: a built PDU is queued (FIFO, ZVS_LACP_TX_DELAY_SLOTS at most) and handed
 *               to cb.send at built time + delay_tx_ns by the next rx/run/set_enabled at or
 *               after that time (next_wakeup includes it); counted in lacpdus_tx when sent.
 *               A full queue drops the PDU (tx_delay_overflow). Queued PDUs keep their
 *               deadlines when the knob changes and leave in order; while any is queued, new
 *               PDUs queue behind it even with delay 0 (no reordering). */
struct zvs_lacp_faults {
    bool     drop_rx;                   /* drop every received LACPDU */
    bool     drop_tx;                   /* drop every LACPDU we send */
    uint64_t delay_tx_ns;               /* delay every LACPDU we send by this, 0: none */
};

/* One LACPDU waiting in the delay queue. */
struct zvs_lacp_delayed_pdu {
    uint64_t release_at;                /* absolute: sent when now >= release_at */
    struct zvs_lacpdu pdu;              /* as built by Transmit */
};

/* MIB-style counters (802.1AX 7.3.3 names where there is one). */
struct zvs_lacp_port_stats {
    uint64_t lacpdus_rx;                /* LACPDUs handed to zvs_lacp_port_rx */
    uint64_t lacpdus_tx;                /* LACPDUs sent */
    uint64_t illegal_rx;                /* from zvs_lacp_port_count_parse_error */
    uint64_t unknown_rx;                /* from zvs_lacp_port_count_parse_error */
    uint64_t ignored_rx;                /* LACPDUs dropped: port disabled, LACP disabled */
    uint64_t loopback_rx;               /* LACPDUs with our own actor System ID (ignored) */
    uint64_t tx_rate_limited;           /* times NTT was held back by the 3-per-second rule */
    uint64_t expired;                   /* entries into RX_EXPIRED */
    uint64_t defaulted;                 /* entries into RX_DEFAULTED */
    uint64_t actor_churn_count;         /* entries into actor CHURN */
    uint64_t partner_churn_count;       /* entries into partner CHURN */
    uint64_t transitions;               /* every state change of every machine */
    uint64_t rx_dropped_by_knob;        /* LACPDUs dropped by faults.drop_rx */
    uint64_t tx_dropped_by_knob;        /* LACPDUs dropped by faults.drop_tx */
    uint64_t tx_delayed;                /* LACPDUs put in the delay queue */
    uint64_t tx_delay_overflow;         /* LACPDUs dropped: delay queue full */
    uint64_t last_rx_ns;                /* time of the last LACPDU counted in lacpdus_rx, 0 never */
    uint64_t last_tx_ns;                /* time of the last LACPDU counted in lacpdus_tx, 0 never */
    uint64_t mux_flaps;                 /* times the Mux left DISTRIBUTING or COLL_DIST */
};

/* Time left on each timer at `now`, in ns; ZVS_LACP_NEVER when the timer is not running,
 * 0 when it is due (run() not yet called). */
struct zvs_lacp_timers_left {
    uint64_t current_while;             /* Receive: CURRENT or EXPIRED */
    uint64_t periodic;                  /* Periodic: FAST_PERIODIC or SLOW_PERIODIC */
    uint64_t wait_while;                /* Mux WAITING: until it may attach (with READY) */
    uint64_t actor_churn;               /* actor CHURN_MONITOR with carrier */
    uint64_t partner_churn;             /* partner CHURN_MONITOR with carrier */
};

struct zvs_lacp_port {
    struct zvs_lacp_port_cfg cfg;       /* settings, as given to init */
    struct zvs_lacp_port_cb cb;         /* callbacks */
    void *arg;                          /* callback argument */
    struct zvs_lacp_aggregator *agg;    /* cfg.aggregator or &own_agg */
    struct zvs_lacp_aggregator own_agg; /* used when cfg.aggregator is NULL */
    struct zvs_lacp_info actor;         /* actor oper info, state octet included */
    struct zvs_lacp_info partner;       /* partner oper info */
    bool     port_enabled;              /* carrier */
    bool     ntt;                       /* Need To Transmit */
    bool     in_call;                   /* re-entrancy guard */
    enum zvs_lacp_rx_state rx;          /* Receive machine state */
    enum zvs_lacp_ptx_state ptx;        /* Periodic Transmission state */
    enum zvs_lacp_selected selected;    /* Selected variable */
    enum zvs_lacp_mux_state mux;        /* Mux machine state */
    enum zvs_lacp_churn_state actor_churn;   /* Actor Churn Detection state */
    enum zvs_lacp_churn_state partner_churn; /* Partner Churn Detection state */
    uint64_t current_while;             /* deadline, RX_CURRENT / RX_EXPIRED */
    uint64_t periodic;                  /* deadline, PTX_FAST/SLOW_PERIODIC */
    uint64_t wait_while;                /* deadline, MUX_WAITING */
    uint64_t actor_churn_timer;         /* deadline, actor CHURN_MONITOR */
    uint64_t partner_churn_timer;       /* deadline, partner CHURN_MONITOR */
    uint64_t tx_times[ZVS_LACP_TX_PER_FAST_PERIOD]; /* ring: times of the last 3 sends */
    unsigned tx_next;                   /* ring index of the oldest send */
    unsigned tx_count;                  /* sends in the ring (saturates at 3) */
    struct zvs_lacp_port_stats stats;   /* counters */
    struct zvs_lacp_faults faults;      /* fault knobs */
    struct zvs_lacp_delayed_pdu delayq[ZVS_LACP_TX_DELAY_SLOTS]; /* ring: delayed LACPDUs */
    unsigned delay_head;                /* ring index of the oldest delayed LACPDU */
    unsigned delay_len;                 /* delayed LACPDUs queued */
};

/* Starts the machines (BEGIN) at `now` and runs them once. Returns 0, or -EINVAL for a
 * NULL argument, a NULL send callback, or port number 0. */
int zvs_lacp_port_init(struct zvs_lacp_port *p, const struct zvs_lacp_port_cfg *cfg,
                       const struct zvs_lacp_port_cb *cb, void *arg, uint64_t now);
/* Leaves the aggregator (detach callbacks as needed), silently: nothing is transmitted.
 * The struct may then be reused. */
void zvs_lacp_port_fini(struct zvs_lacp_port *p, uint64_t now);
/* The port leaves its port group for good (LEAVE, group DELETE, LACP INACTIVE): the Mux
 * goes to DETACHED as for fini (distributing(false), collecting(false), attach(false)),
 * then one final LACPDU tells the partner, whose actor state has Synchronization,
 * Collecting, Distributing and Aggregation clear (802.1AX-2014 6.4.2.3: an Individual
 * link out of sync), so the partner takes the link out of its aggregate at once (its
 * Receive machine un-selects a partner whose Aggregation bit changed, 6.4.12) instead of
 * after its own current_while (3 s or 90 s). Then the port is disabled as by fini.
 * The PDU goes through the Transmit machine's rules (6.4.16) and the fault knobs, and is
 * counted in lacpdus_tx. Returns 0 when it was built (sent, or given to the knobs: with
 * delay_tx it is queued and dies with the port), -EAGAIN when the 3-per-Fast_Periodic_Time
 * limit held it back (counted in tx_rate_limited; not sent: the partner falls back on its
 * timeout, see transmit.c), -ENETDOWN when the port does not transmit at all (no carrier,
 * LACP_Enabled false, or both ends passive). The struct may then be reused. */
int zvs_lacp_port_leave(struct zvs_lacp_port *p, uint64_t now);

/* A parsed LACPDU received at `now`. It is applied BEFORE any timer due at `now` is looked
 * at, then the machines run (so a PDU delivered late but before run() processed the expiry
 * wins: no false EXPIRED). */
void zvs_lacp_port_rx(struct zvs_lacp_port *p, const struct zvs_lacpdu *pdu, uint64_t now);
/* Counts a zvs_slow_parse failure on this port as illegal_rx or unknown_rx (or neither). */
void zvs_lacp_port_count_parse_error(struct zvs_lacp_port *p, int rc);
/* Carrier change; runs the machines. */
void zvs_lacp_port_set_enabled(struct zvs_lacp_port *p, bool enabled, uint64_t now);
/* Processes every timer due at or before `now` and runs the machines to a stable state. */
void zvs_lacp_port_run(struct zvs_lacp_port *p, uint64_t now);
/* Earliest deadline at which run() has work, or ZVS_LACP_NEVER. */
uint64_t zvs_lacp_port_next_wakeup(const struct zvs_lacp_port *p);

/* Sets the fault knobs (NULL: all off). Queued delayed PDUs that are due at `now` are sent;
 * with delay_tx_ns 0 every queued PDU is sent now, in order. Not from a callback. */
void zvs_lacp_port_set_faults(struct zvs_lacp_port *p, const struct zvs_lacp_faults *f,
                              uint64_t now);
const struct zvs_lacp_faults *zvs_lacp_port_faults(const struct zvs_lacp_port *p);
/* Delayed LACPDUs queued (0..ZVS_LACP_TX_DELAY_SLOTS). */
unsigned zvs_lacp_port_tx_delayed(const struct zvs_lacp_port *p);

/* Getters. */
const struct zvs_lacp_info *zvs_lacp_port_actor(const struct zvs_lacp_port *p);
const struct zvs_lacp_info *zvs_lacp_port_partner(const struct zvs_lacp_port *p);
enum zvs_lacp_rx_state zvs_lacp_port_rx_state(const struct zvs_lacp_port *p);
enum zvs_lacp_ptx_state zvs_lacp_port_ptx_state(const struct zvs_lacp_port *p);
enum zvs_lacp_selected zvs_lacp_port_selected(const struct zvs_lacp_port *p);
enum zvs_lacp_mux_state zvs_lacp_port_mux_state(const struct zvs_lacp_port *p);
enum zvs_lacp_churn_state zvs_lacp_port_actor_churn(const struct zvs_lacp_port *p);
enum zvs_lacp_churn_state zvs_lacp_port_partner_churn(const struct zvs_lacp_port *p);
const struct zvs_lacp_port_stats *zvs_lacp_port_stats(const struct zvs_lacp_port *p);
const struct zvs_lacp_port_cfg *zvs_lacp_port_cfg(const struct zvs_lacp_port *p);
bool zvs_lacp_port_enabled(const struct zvs_lacp_port *p);      /* port_enabled (carrier) */
/* Collecting / distributing enabled by the Mux (either control), i.e. between the
 * collecting(true)/(false) and distributing(true)/(false) callbacks. */
bool zvs_lacp_port_is_collecting(const struct zvs_lacp_port *p);
bool zvs_lacp_port_is_distributing(const struct zvs_lacp_port *p);
/* Fills *out with the time left on each timer at `now` (see struct zvs_lacp_timers_left). */
void zvs_lacp_port_timers_left(const struct zvs_lacp_port *p, uint64_t now,
                               struct zvs_lacp_timers_left *out);

/* 802.1AX state names ("CURRENT", "COLLECTING_DISTRIBUTING", ...); "?" if out of range. */
const char *zvs_lacp_machine_name(enum zvs_lacp_machine m);
const char *zvs_lacp_state_name(enum zvs_lacp_machine m, int state);

#endif
