/* A two-engine LACP simulator for unit tests (test_lacp_port.c, test_lacp_mux.c): two
 * LACP port engines wired back to back through their send callbacks on virtual time, or
 * one engine and a partner the test scripts with lacp_sim_partner_pdu()/lacp_sim_deliver().
 * Each end records its sends, the PDUs its engine put in the fault-knob delay queue, its
 * attach/collecting/distributing state and a log of those callbacks. */
#ifndef ZVS_TEST_LACP_SIM_H
#define ZVS_TEST_LACP_SIM_H

#include "lacp/lacp_port.h"

#include <stdbool.h>
#include <stdint.h>

#define LACP_SIM_QLEN  256              /* PDUs in flight towards one end */
#define LACP_SIM_TXLOG 1024             /* sends (and delay-queue entries) logged per end */
#define LACP_SIM_LOGN  64               /* attach/collecting/distributing callbacks per end */

struct lacp_sim;

/* One attach/collecting/distributing callback as the engine made it. */
struct lacp_sim_ev {
    char kind;                          /* 'A' attach, 'C' collecting, 'D' distributing */
    bool on;                            /* enable or disable */
    uint64_t at;                        /* sim time of the call */
    enum zvs_lacp_mux_state mux;        /* Mux state the getter showed during the call */
};

struct lacp_sim_end {
    struct zvs_lacp_port port;          /* the engine */
    struct lacp_sim *sim;               /* back pointer */
    int idx;                            /* 0 or 1 */
    bool live;                          /* engine initialised */
    uint64_t tx_at[LACP_SIM_TXLOG];     /* send times */
    unsigned ntx;                       /* sends */
    struct zvs_lacpdu last_tx;          /* last PDU sent */
    bool attached;                      /* last attach callback */
    bool collecting;                    /* last collecting callback */
    bool distributing;                  /* last distributing callback */
    unsigned rx_transitions;            /* Receive machine transitions seen by the hook */
    uint64_t queued_at[LACP_SIM_TXLOG]; /* times the engine put a PDU in its delay queue */
    unsigned nqueued;                   /* entries in queued_at */
    struct lacp_sim_ev log[LACP_SIM_LOGN]; /* attach/collecting/distributing callbacks */
    unsigned nlog;                      /* entries in log */
};

/* A PDU on the wire towards one end. */
struct lacp_sim_msg {
    uint64_t at;                        /* delivery time */
    struct zvs_lacpdu pdu;              /* the PDU */
};

struct lacp_sim {
    struct lacp_sim_end e[2];           /* the two ends */
    struct lacp_sim_msg q[2][LACP_SIM_QLEN]; /* q[i]: ring of PDUs to e[i] */
    unsigned qh[2];                     /* ring heads (next to deliver) */
    unsigned qt[2];                     /* ring tails (next free) */
    uint64_t now;                       /* virtual time, ns */
    uint64_t delay;                     /* wire delay, ns */
};

/* The callbacks every end is initialised with (send, attach, collecting, distributing,
 * transition); the attach/collecting/distributing ones assert edge triggering and order. */
extern const struct zvs_lacp_port_cb lacp_sim_cbs;

/* A zeroed simulator from test_calloc(); free it with test_free(). */
struct lacp_sim *lacp_sim_new(void);

/* Settings for end idx: system 02:00:00:00:00:1<idx>, key 100 + idx, port 1 + idx, 10G
 * full duplex, enabled, independent Mux. */
struct zvs_lacp_port_cfg lacp_sim_cfg(int idx, bool active, bool fast);

/* Initialise end idx's engine at s->now (asserts success). */
void lacp_sim_init_end(struct lacp_sim *s, int idx, const struct zvs_lacp_port_cfg *c);

/* Log the time of every PDU the engine put in its delay queue since the last call. */
void lacp_sim_note_queued(struct lacp_sim_end *e, uint64_t now);

/* Advance virtual time to t_end, delivering PDUs and running each engine at its own
 * next_wakeup (never more often), so wrong wakeups show up as wrong timings. */
void lacp_sim_run_until(struct lacp_sim *s, uint64_t t_end);

/* A scripted partner's PDU to e[0]: actor = partner system 03:00:00:00:00:<id>, key pkey. */
struct zvs_lacpdu lacp_sim_partner_pdu(uint8_t id, uint16_t pkey, uint8_t state);

/* Hand pdu to end `to` at s->now, bypassing the wire. */
void lacp_sim_deliver(struct lacp_sim *s, int to, const struct zvs_lacpdu *pdu);

#endif
