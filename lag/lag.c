/* Link aggregation glue: member ports <-> LACP/Marker engines <-> port group distribution.
 *
 * Owns: one struct lag_member per group slot (the same slot numbers as pgroup.c's), each
 * with its LACP engine and Marker engine, the group's aggregator, and the struct
 * zvs_pgroup itself.
 * Rules:
 *  - The engines decide, this file only carries their decisions: cb.collecting opens the
 *    switch's inbound gate of the port, cb.distributing puts the port in or out of the
 *    bucket map; both go to zvs_pgroup_set_state, which rebinds buckets in that very call.
 *  - PDUs are written to the member's backend at once (tx + flush), not queued behind a
 *    burst of guest frames: a PDU is late only by the event-loop iteration it is due in.
 *  - Time: every entry point records `now` so callbacks that have no time argument (the
 *    port group's send_marker) start their deadlines from the caller's clock.
 *  - LACP INACTIVE: no LACP engine runs; carrier alone opens both directions. Markers are
 *    still answered and sent (a static partner that does not answer costs one bounded
 *    flush timeout per move).
 * Hazards: engine callbacks run inside engine calls and must not re-enter the same engine
 * (the engines assert this); nothing here calls an engine from its own callback.
 */
#include "lag/lag.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lacp/lacp_show.h"
#include "lacp/pdu.h"
#include "ivl/port_number.h"
#include "dataplane/log.h"

struct lag_member {
    struct zvs_lag          *lag;
    struct zvs_port         *port;          /* NULL: slot free */
    char                     rdev[16];
    uint8_t                  mac[6];
    uint16_t                 number;        /* actor port number */
    uint32_t                 speed_mbps;
    bool                     lacp_running;  /* lacp engine initialised */
    const char              *stopping;      /* while the engine stops: why, for ZVSLAG1172E */
    bool                     collecting;    /* as last told to the switch and group */
    bool                     distributing;
    struct zvs_lacp_port     lacp;
    struct zvs_lacp_marker   marker;
};

struct zvs_lag {
    struct zvs_switch          *sw;
    struct zvs_lag_params       params;
    struct zvs_pgroup          *group;
    struct zvs_lacp_aggregator  agg;
    struct lag_member           m[ZVS_PG_MAX_MEMBERS];
    struct zvs_lag_stats        stats;
    uint64_t                    now;        /* time of the current entry point */
    bool                        held;       /* zvs_lag_set_domain_hold: members kept out */
    struct zvs_ratelimit        rl;         /* malformed-frame log lines */
    struct zvs_ratelimit        move_rl;    /* bucket move log lines */
};

/* The member slot of a port, -1 when it is not a member. */
static int slot_of(const struct zvs_lag *lag, const struct zvs_port *port)
{
    for (unsigned i = 0; port && i < ZVS_PG_MAX_MEMBERS; i++)
        if (lag->m[i].port == port)
            return (int)i;
    return -1;
}

static struct lag_member *member_of(struct zvs_lag *lag, const struct zvs_port *port)
{
    int s = slot_of(lag, port);
    return s < 0 ? NULL : &lag->m[s];
}

/* ---- wire --------------------------------------------------------------------------- */

static void send_frame(struct lag_member *m, const uint8_t *buf, int len)
{
    struct zvs_lag *lag = m->lag;
    struct zvs_port *p = m->port;
    if (len <= 0 || !p)
        return;
    struct zvs_frame f = { .data = buf, .len = (uint32_t)len };
    struct zvs_tx tx = { .f = &f, .tag_op = ZVS_TAG_KEEP };
    enum zvs_drop why = ZVS_DROP_TX_FAIL;
    if (p->carrier && p->ops->tx(p, &tx, 1, &why) == 1) {
        if (p->ops->flush)
            p->ops->flush(p);
        lag->stats.slow_tx++;
        /* The OSA port sent it: its TX counters include LACPDUs and Markers, as its RX
         * counters include the ones it receives (they enter through the switch). */
        zvs_ctr_add(&p->ctr.out_packets, 1);
        zvs_ctr_add(&p->ctr.out_bytes, (uint64_t)len);
    } else {
        lag->stats.slow_tx_fail++;
    }
}

static void lacp_send(void *arg, const struct zvs_lacpdu *pdu)
{
    struct lag_member *m = arg;
    uint8_t buf[ZVS_SLOW_FRAME_LEN];
    send_frame(m, buf, zvs_lacpdu_build(pdu, m->mac, buf, sizeof buf));
}

static void marker_send(void *arg, const struct zvs_marker *pdu)
{
    struct lag_member *m = arg;
    uint8_t buf[ZVS_SLOW_FRAME_LEN];
    send_frame(m, buf, zvs_marker_build(pdu, m->mac, buf, sizeof buf));
}

/* ---- decisions -> switch and group ---------------------------------------------------- */

/* A catalogue message to the group's sink (the daemon), or to the log without one. */
static void say(struct zvs_lag *lag, enum zvs_cpmsg_id id, const char *const *args,
                unsigned nargs)
{
    if (lag->params.say) {
        lag->params.say(lag->params.say_arg, id, args, nargs);
        return;
    }
    char text[ZVS_CPMSG_TEXT_MAX];
    zvs_cpmsg_format(text, sizeof text, id, args, nargs);
    zvs_log(zvs_cpmsg_def(id)->severity == 'I' ? ZVS_LOG_INFO : ZVS_LOG_WARN, "%s", text);
}

/* Why a member that was in use is not any more, in the operator's words. */
static const char *not_in_use_reason(const struct lag_member *m)
{
    if (m->stopping)
        return m->stopping;
    if (!m->port->carrier)
        return "carrier down";
    if (!m->lacp_running)
        return "LACP changed";
    return "LACP partner out of sync or expired";
}

/* The member's state as told: every change as ZVSLAG1174I (the log's trace: scripts wait
 * for "2902 is collecting, is distributing"), and a member going into or out of use
 * (distributing) as the operator's news, ZVSLAG1173I or ZVSLAG1172E, after it. */
static void tell_state(struct lag_member *m, bool was_distributing)
{
    const char *args[4] = { m->lag->params.pg.name, m->rdev, m->collecting ? "is" : "not",
                            m->distributing ? "is" : "not" };
    say(m->lag, ZVS_CPMSG_MEMBER_STATE, args, 4);
    if (m->distributing && !was_distributing) {
        say(m->lag, ZVS_CPMSG_MEMBER_IN_USE, args, 2);
    } else if (!m->distributing && was_distributing) {
        args[2] = not_in_use_reason(m);
        say(m->lag, ZVS_CPMSG_MEMBER_NOT_IN_USE, args, 3);
    }
}

static void apply_state(struct lag_member *m, bool collecting, bool distributing)
{
    struct zvs_lag *lag = m->lag;
    if (m->collecting == collecting && m->distributing == distributing)
        return;
    bool was = m->distributing;
    m->collecting = collecting;
    m->distributing = distributing;
    zvs_switch_set_collecting(lag->sw, m->port, collecting);
    zvs_pgroup_set_state(lag->group, m->port->index, collecting, distributing, lag->now);
    tell_state(m, was);
}

static void lacp_collecting(void *arg, bool enable)
{
    struct lag_member *m = arg;
    apply_state(m, enable, m->distributing && enable);
}

static void lacp_distributing(void *arg, bool enable)
{
    struct lag_member *m = arg;
    apply_state(m, m->collecting, enable);
}

static void lacp_transition(void *arg, enum zvs_lacp_machine mach, int from, int to,
                            uint64_t now)
{
    struct lag_member *m = arg;
    /* The periodic machine passes through PERIODIC_TX once a second: not news. */
    if (mach == ZVS_LACP_MACHINE_PTX && (from == ZVS_LACP_PTX_PERIODIC_TX ||
                                         to == ZVS_LACP_PTX_PERIODIC_TX))
        return;
    zvs_log(ZVS_LOG_DEBUG, "port group %s: %s %s %s -> %s", m->lag->params.pg.name, m->rdev,
            zvs_lacp_machine_name(mach), zvs_lacp_state_name(mach, from),
            zvs_lacp_state_name(mach, to));
}

static void marker_done(void *arg, uint32_t xid, enum zvs_marker_result result)
{
    struct lag_member *m = arg;
    /* A timeout needs nothing: the group keeps its own (shorter) flush deadline. */
    if (result == ZVS_MARKER_ANSWERED)
        zvs_pgroup_marker_answered(m->lag->group, m->port->index, xid, m->lag->now);
}

static const char *rdev_of_port(const struct zvs_lag *lag, uint16_t port)
{
    for (unsigned i = 0; i < ZVS_PG_MAX_MEMBERS; i++)
        if (lag->m[i].port && lag->m[i].port->index == port)
            return lag->m[i].rdev;
    return "-";
}

/* The group made a move: one line per bucket, when it is made, with its cause (the
 * operator's trace of a failover or a rebalancing pass). At most 16 lines a second: a
 * member coming up or going takes up to 256 buckets at once; the next line printed says
 * how many were not shown. */
#define MOVE_LOG_BURST 16
static void group_moved(void *arg, unsigned bucket, uint16_t from, uint16_t to,
                        enum zvs_pg_cause cause)
{
    struct zvs_lag *lag = arg;
    if (!zvs_ratelimit_ok(&lag->move_rl, lag->now, ZVS_LACP_NS_PER_SEC, MOVE_LOG_BURST))
        return;
    char more[48] = "", hex[4], text[ZVS_CPMSG_TEXT_MAX];
    if (lag->move_rl.suppressed)
        snprintf(more, sizeof more, "; %u more move(s) not shown", lag->move_rl.suppressed);
    snprintf(hex, sizeof hex, "%02X", bucket & 0xFFu);
    const char *args[] = { lag->params.pg.name, hex, rdev_of_port(lag, from),
                           rdev_of_port(lag, to), zvs_pg_cause_name(cause), more };
    zvs_cpmsg_format(text, sizeof text, ZVS_CPMSG_BUCKET_MOVED, args, 6);
    zvs_info("%s", text);
    lag->move_rl.suppressed = 0;
}

static int group_send_marker(void *arg, uint16_t port, uint32_t *xid)
{
    struct zvs_lag *lag = arg;
    for (unsigned i = 0; i < ZVS_PG_MAX_MEMBERS; i++) {
        struct lag_member *m = &lag->m[i];
        if (m->port && m->port->index == port) {
            if (!m->port->carrier)
                return -ENETDOWN;
            uint64_t t = lag->params.pg.marker_timeout_ns ? lag->params.pg.marker_timeout_ns
                                                          : ZVS_PG_MARKER_TIMEOUT_NS;
            return zvs_lacp_marker_send(&m->marker, lag->now, t, xid);
        }
    }
    return -ENOENT;
}

/* ---- engines -------------------------------------------------------------------------- */

static int start_lacp(struct zvs_lag *lag, struct lag_member *m)
{
    const struct zvs_lag_params *pp = &lag->params;
    struct zvs_lacp_port_cfg cfg = {
        .active = !pp->lacp_passive,
        .fast = !pp->long_timeout,
        .system_priority = pp->system_priority,
        .key = pp->key,
        .port_priority = 32768,
        .port = m->number,
        .speed_mbps = m->speed_mbps,
        .full_duplex = true,
        .enabled = m->port->carrier,
        .aggregator = &lag->agg,
    };
    memcpy(cfg.system, pp->system, 6);
    struct zvs_lacp_port_cb cb = {
        .send = lacp_send,
        .collecting = lacp_collecting,
        .distributing = lacp_distributing,
        .transition = lacp_transition,
    };
    int rc = zvs_lacp_port_init(&m->lacp, &cfg, &cb, m, lag->now);
    m->lacp_running = rc == 0;
    return rc;
}

/* The member stops running LACP for good (LEAVE, the group's DELETE, LACP INACTIVE): its
 * engine detaches (the callbacks close both directions and move its buckets first) and
 * sends one last LACPDU, out of sync and Individual, while the port is still ours, so the
 * partner stops hashing onto the link now rather than at its timeout (3 s short, 90 s
 * long) with every frame it sends meanwhile dropped here. */
/* WHY names the cause in the operator's words: the final LACPDU's Mux changes take the
 * member out of use inside this call, and ZVSLAG1172E must not blame the partner for it. */
static void stop_lacp(struct lag_member *m, const char *why)
{
    if (m->lacp_running) {
        m->stopping = why;
        int rc = zvs_lacp_port_leave(&m->lacp, m->lag->now);
        m->stopping = NULL;
        if (rc == -EAGAIN)
            zvs_log(ZVS_LOG_INFO, "port group %s: %s: final LACPDU held back by the rate"
                    " limit (3 a second): the partner keeps the link until its timeout",
                    m->lag->params.pg.name, m->rdev);
        m->lacp_running = false;
    }
}

/* ---- API ------------------------------------------------------------------------------ */

static void slow_handler(void *arg, struct zvs_port *port, const struct zvs_frame *f,
                         uint64_t now)
{
    zvs_lag_slow_input(arg, port, f, now);
}

struct zvs_lag *zvs_lag_create(struct zvs_switch *sw, const struct zvs_lag_params *params,
                               uint64_t now)
{
    if (!sw || !params || params->pg.name[0] == '\0')
        return NULL;
    struct zvs_lag *lag = calloc(1, sizeof(*lag));
    if (!lag)
        return NULL;
    lag->sw = sw;
    lag->params = *params;
    lag->now = now;
    if (lag->params.system_priority == 0)
        lag->params.system_priority = 32768;
    if (lag->params.key == 0)
        lag->params.key = 1;
    zvs_lacp_aggregator_init(&lag->agg, lag->params.key);
    struct zvs_pg_ops ops = { .send_marker = group_send_marker, .moved = group_moved };
    lag->group = zvs_pgroup_create(&lag->params.pg, &ops, lag);
    if (!lag->group) {
        free(lag);
        return NULL;
    }
    zvs_switch_set_group(sw, zvs_pgroup_dist(lag->group));
    zvs_switch_set_slow_handler(sw, slow_handler, lag);
    return lag;
}

void zvs_lag_destroy(struct zvs_lag *lag, uint64_t now)
{
    if (!lag)
        return;
    lag->now = now;
    for (unsigned i = 0; i < ZVS_PG_MAX_MEMBERS; i++) {
        struct lag_member *m = &lag->m[i];
        if (!m->port)
            continue;
        stop_lacp(m, "port group deleted");
        zvs_switch_set_collecting(lag->sw, m->port, false);
    }
    if (zvs_switch_group(lag->sw) == zvs_pgroup_dist(lag->group)) {
        zvs_switch_set_group(lag->sw, NULL);
        zvs_switch_set_slow_handler(lag->sw, NULL, NULL);
    }
    zvs_pgroup_destroy(lag->group);
    free(lag);
}

/* Actor port number: the device number, unique in the group and never 0 (802.1AX); in a
 * SHARED group, the domain's number, unique across its systems. */
static uint16_t port_number(const struct zvs_lag *lag, const char *rdev, unsigned slot)
{
    if (lag->params.domain_index)
        return zvs_ivl_port_number(lag->params.domain_index, slot);
    char *end;
    unsigned long dev = strtoul(rdev, &end, 16);
    unsigned long pn = 0;
    if (end[0] == '.' && (end[1] == 'P' || end[1] == 'p'))
        pn = strtoul(end + 2, NULL, 16);
    uint16_t n = (uint16_t)((dev + (pn << 12)) & 0xFFFF);
    for (unsigned i = 0; i < ZVS_PG_MAX_MEMBERS; i++)
        if (lag->m[i].port && lag->m[i].number == n)
            n = 0;
    return n ? n : (uint16_t)(0xFF00 + slot + 1);
}

static int samples(const struct zvs_lag *lag, struct zvs_pg_sample *out);

int zvs_lag_join(struct zvs_lag *lag, struct zvs_port *port, const char *rdev,
                 const uint8_t mac[6], uint32_t speed_mbps, uint64_t now)
{
    lag->now = now;
    if (zvs_pgroup_members(lag->group) >= ZVS_PG_MAX_MEMBERS)
        return -ENOSPC;
    int rc = zvs_switch_add_group_port(lag->sw, port);
    if (rc < 0)
        return rc;
    /* The carrier first: the engine starts with port_enabled as the driver has it now
     * (802.1AX 6.4.12), not as the kernel's flags showed it when the port was opened; a
     * stale "up" made a member with a dead link send LACPDUs and Expire its partner. */
    if (port->ops->carrier_now) {
        int up = port->ops->carrier_now(port);
        if (up >= 0 && (up > 0) != port->carrier)
            zvs_switch_set_carrier(lag->sw, port, up > 0);
    }
    int slot = zvs_pgroup_join(lag->group, port->index, rdev,
                               (uint64_t)speed_mbps * 1000000ull, now);
    if (slot < 0) {
        /* give the port back untouched: detach it without destroying it */
        const struct zvs_port_ops *ops = port->ops;
        struct zvs_port_ops keep = *ops;
        keep.destroy = NULL;
        port->ops = &keep;
        zvs_switch_remove_port(lag->sw, port);
        port->ops = ops;
        return slot;
    }
    struct lag_member *m = &lag->m[slot];
    *m = (struct lag_member){ .lag = lag, .port = port, .speed_mbps = speed_mbps };
    zvs_pgroup_set_cause(lag->group, ZVS_PG_CAUSE_JOIN);
    snprintf(m->rdev, sizeof m->rdev, "%s", rdev);
    memcpy(m->mac, mac, 6);
    m->number = port_number(lag, rdev, (unsigned)slot);
    struct zvs_lacp_marker_cb mcb = { .send = marker_send, .done = marker_done };
    zvs_lacp_marker_init(&m->marker, m->number, lag->params.system, &mcb, m);
    if (lag->held) {
        /* kept out until the domain lets this system aggregate */
    } else if (lag->params.pg.lacp) {
        rc = start_lacp(lag, m);
        if (rc < 0)
            zvs_log(ZVS_LOG_ERROR, "port group %s: LACP on %s failed to start: %d",
                    lag->params.pg.name, rdev, rc);
    } else if (port->carrier) {
        apply_state(m, true, true);
    }
    /* The new member's counter baseline, now: the group reads the counters only when a
     * pass is due, and a member with no earlier sample has no inbound rate, so the first
     * pass after a JOIN would plan on outbound alone (POLICY LOAD TOTAL needs both). */
    struct zvs_pg_sample smp[ZVS_PG_MAX_MEMBERS];
    zvs_pgroup_run(lag->group, now, smp, samples(lag, smp));
    zvs_pgroup_set_cause(lag->group, ZVS_PG_CAUSE_LACP);
    return slot;
}

int zvs_lag_leave(struct zvs_lag *lag, struct zvs_port *port, uint64_t now)
{
    lag->now = now;
    struct lag_member *m = member_of(lag, port);
    if (!m)
        return -ENOENT;
    zvs_pgroup_set_cause(lag->group, ZVS_PG_CAUSE_LEAVE);   /* the engine's stop included */
    stop_lacp(m, "left the group");
    zvs_switch_set_collecting(lag->sw, port, false);
    zvs_pgroup_leave(lag->group, port->index, now);   /* buckets move before we return */
    if (port->ops->flush)
        port->ops->flush(port);                        /* drain what the backend holds */
    *m = (struct lag_member){ 0 };
    zvs_pgroup_set_cause(lag->group, ZVS_PG_CAUSE_LACP);
    return zvs_switch_remove_port(lag->sw, port);
}

void zvs_lag_carrier(struct zvs_lag *lag, struct zvs_port *port, bool up, uint64_t now)
{
    lag->now = now;
    struct lag_member *m = member_of(lag, port);
    if (!m)
        return;
    zvs_pgroup_set_cause(lag->group, ZVS_PG_CAUSE_CARRIER);
    if (m->lacp_running)
        zvs_lacp_port_set_enabled(&m->lacp, up, now);
    else
        apply_state(m, up && !lag->held, up && !lag->held);
    zvs_pgroup_set_cause(lag->group, ZVS_PG_CAUSE_LACP);
}

void zvs_lag_set_lacp(struct zvs_lag *lag, bool on, uint64_t now)
{
    lag->now = now;
    if (lag->params.pg.lacp == on)
        return;
    lag->params.pg.lacp = on;
    for (unsigned i = 0; i < ZVS_PG_MAX_MEMBERS; i++) {
        struct lag_member *m = &lag->m[i];
        if (!m->port)
            continue;
        if (on) {
            /* the engine starts DETACHED: close both directions until it says otherwise */
            apply_state(m, false, false);
            if (!lag->held)
                start_lacp(lag, m);
        } else {
            stop_lacp(m, "LACP changed");
            apply_state(m, m->port->carrier && !lag->held, m->port->carrier && !lag->held);
        }
    }
}

void zvs_lag_set_domain_hold(struct zvs_lag *lag, bool hold, uint64_t now)
{
    lag->now = now;
    if (lag->held == hold)
        return;
    lag->held = hold;
    for (unsigned i = 0; i < ZVS_PG_MAX_MEMBERS; i++) {
        struct lag_member *m = &lag->m[i];
        if (!m->port)
            continue;
        if (hold) {
            const char *why = "IVL domain: this system may not aggregate";
            stop_lacp(m, why);
            m->stopping = why;          /* a static member: ZVSLAG1172E names the cause */
            apply_state(m, false, false);
            m->stopping = NULL;
        } else if (lag->params.pg.lacp) {
            if (start_lacp(lag, m) < 0)
                zvs_log(ZVS_LOG_ERROR, "port group %s: LACP on %s failed to start",
                        lag->params.pg.name, m->rdev);
        } else {
            apply_state(m, m->port->carrier, m->port->carrier);
        }
    }
}

void zvs_lag_set_identity(struct zvs_lag *lag, uint8_t domain_index, const uint8_t system[6],
                          uint16_t key, uint64_t now)
{
    lag->now = now;
    struct zvs_lag_params *pp = &lag->params;
    if (pp->domain_index == domain_index && pp->key == key && memcmp(pp->system, system, 6) == 0)
        return;
    for (unsigned i = 0; i < ZVS_PG_MAX_MEMBERS; i++) {
        struct lag_member *m = &lag->m[i];
        if (!m->port)
            continue;
        stop_lacp(m, "IVL domain identity changed");   /* its last PDU under the old one */
        m->number = 0;                  /* not a collision for port_number below */
    }
    pp->domain_index = domain_index;
    pp->key = key;
    memcpy(pp->system, system, 6);
    struct zvs_lacp_marker_cb mcb = { .send = marker_send, .done = marker_done };
    for (unsigned i = 0; i < ZVS_PG_MAX_MEMBERS; i++) {
        struct lag_member *m = &lag->m[i];
        if (!m->port)
            continue;
        m->number = port_number(lag, m->rdev, i);
        zvs_lacp_marker_init(&m->marker, m->number, pp->system, &mcb, m);
        if (lag->held)
            continue;
        if (pp->pg.lacp) {
            apply_state(m, false, false);
            if (start_lacp(lag, m) < 0)
                zvs_log(ZVS_LOG_ERROR, "port group %s: LACP on %s failed to start",
                        pp->pg.name, m->rdev);
        }
    }
}

bool zvs_lag_domain_held(const struct zvs_lag *lag)
{
    return lag->held;
}

void zvs_lag_slow_input(struct zvs_lag *lag, struct zvs_port *port, const struct zvs_frame *f,
                        uint64_t now)
{
    lag->now = now;
    lag->stats.slow_rx++;
    struct lag_member *m = member_of(lag, port);
    if (!m)
        return;
    /* The codec sees the frame up to ZVS_SLOW_FRAME_MAX bytes: a version 2 LACPDU's TLVs
     * and its Terminator lie past the 124 bytes of version 1 (802.1AX-2014 6.4.2.3). A
     * contiguous frame is parsed in place; a scattered one is gathered first. */
    uint8_t buf[ZVS_SLOW_FRAME_MAX];
    const uint8_t *bytes = f->data;
    uint32_t len = f->len < ZVS_SLOW_FRAME_MAX ? f->len : ZVS_SLOW_FRAME_MAX;
    if (f->nfrags) {
        len = zvs_frame_peek(f, buf, len);
        bytes = buf;
    }
    struct zvs_lacpdu pdu;
    struct zvs_marker mk;
    int rc = zvs_slow_parse(bytes, len, &pdu, &mk);
    switch (rc) {
    case ZVS_SLOW_LACP:
        if (m->lacp_running)
            zvs_lacp_port_rx(&m->lacp, &pdu, now);
        else
            lag->stats.lacpdu_static_rx++;
        break;
    case ZVS_SLOW_MARKER:
        zvs_lacp_marker_rx(&m->marker, &mk, now);
        break;
    case ZVS_SLOW_OTHER:
        /* OAM, OSSP...: valid, not ours; the LACP MIB counts them as unknown_rx */
        lag->stats.slow_rx_other++;
        if (m->lacp_running)
            zvs_lacp_port_count_parse_error(&m->lacp, rc);
        break;
    default:
        lag->stats.malformed_rx++;
        if (m->lacp_running)
            zvs_lacp_port_count_parse_error(&m->lacp, rc);
        if (zvs_ratelimit_ok(&lag->rl, now, ZVS_LACP_NS_PER_SEC, 5)) {
            zvs_warn("port group %s: %s: malformed Slow Protocols frame (%s) dropped;"
                     " %u more not shown", lag->params.pg.name, m->rdev,
                     zvs_lacp_err_name(rc), lag->rl.suppressed);
            lag->rl.suppressed = 0;
        }
        break;
    }
}

static int samples(const struct zvs_lag *lag, struct zvs_pg_sample *out)
{
    int n = 0;
    for (unsigned i = 0; i < ZVS_PG_MAX_MEMBERS; i++) {
        const struct zvs_port *p = lag->m[i].port;
        if (!p)
            continue;
        out[n].port = p->index;
        out[n].out_bytes = zvs_ctr_read(&p->ctr.out_bytes);
        out[n].in_bytes = zvs_ctr_read(&p->ctr.in_bytes);
        n++;
    }
    return n;
}

void zvs_lag_run(struct zvs_lag *lag, uint64_t now)
{
    lag->now = now;
    for (unsigned i = 0; i < ZVS_PG_MAX_MEMBERS; i++) {
        struct lag_member *m = &lag->m[i];
        if (!m->port)
            continue;
        if (m->lacp_running && zvs_lacp_port_next_wakeup(&m->lacp) <= now)
            zvs_lacp_port_run(&m->lacp, now);
        if (zvs_lacp_marker_next_wakeup(&m->marker) <= now)
            zvs_lacp_marker_run(&m->marker, now);
    }
    if (zvs_pgroup_next_wakeup(lag->group) <= now) {
        struct zvs_pg_sample s[ZVS_PG_MAX_MEMBERS];
        int n = samples(lag, s);
        zvs_pgroup_run(lag->group, now, s, n);
    }
}

uint64_t zvs_lag_next_wakeup(const struct zvs_lag *lag)
{
    uint64_t t = zvs_pgroup_next_wakeup(lag->group);
    for (unsigned i = 0; i < ZVS_PG_MAX_MEMBERS; i++) {
        const struct lag_member *m = &lag->m[i];
        if (!m->port)
            continue;
        if (m->lacp_running) {
            uint64_t w = zvs_lacp_port_next_wakeup(&m->lacp);
            if (w < t)
                t = w;
        }
        uint64_t w = zvs_lacp_marker_next_wakeup(&m->marker);
        if (w < t)
            t = w;
    }
    return t;
}

struct zvs_pgroup *zvs_lag_group(const struct zvs_lag *lag)
{
    return lag->group;
}

const struct zvs_lag_params *zvs_lag_params(const struct zvs_lag *lag)
{
    return &lag->params;
}

const struct zvs_lag_stats *zvs_lag_stats(const struct zvs_lag *lag)
{
    return &lag->stats;
}

int zvs_lag_member_slot(const struct zvs_lag *lag, const struct zvs_port *port)
{
    return slot_of(lag, port);
}

bool zvs_lag_is_member(const struct zvs_lag *lag, const struct zvs_port *port)
{
    return slot_of(lag, port) >= 0;
}

struct zvs_port *zvs_lag_member_port(const struct zvs_lag *lag, unsigned slot)
{
    return slot < ZVS_PG_MAX_MEMBERS ? lag->m[slot].port : NULL;
}

const struct zvs_lacp_port *zvs_lag_member_lacp(const struct zvs_lag *lag, unsigned slot)
{
    if (slot >= ZVS_PG_MAX_MEMBERS || !lag->m[slot].port || !lag->m[slot].lacp_running)
        return NULL;
    return &lag->m[slot].lacp;
}

const struct zvs_lacp_marker *zvs_lag_member_marker(const struct zvs_lag *lag, unsigned slot)
{
    if (slot >= ZVS_PG_MAX_MEMBERS || !lag->m[slot].port)
        return NULL;
    return &lag->m[slot].marker;
}

int zvs_lag_set_faults(struct zvs_lag *lag, struct zvs_port *port,
                       const struct zvs_lacp_faults *f, uint64_t now)
{
    lag->now = now;
    struct lag_member *m = member_of(lag, port);
    if (!m)
        return -ENOENT;
    if (!m->lacp_running)
        return -ENOTCONN;
    zvs_lacp_port_set_faults(&m->lacp, f, now);
    return 0;
}

void zvs_lag_report(const struct zvs_lag *lag, uint64_t now, FILE *out)
{
    const struct zvs_pg_params *pg = zvs_pgroup_params(lag->group);
    const struct zvs_pg_stats *st = zvs_pgroup_stats(lag->group);
    char interval[12], policy[24];
    zvs_pg_interval_str(pg->interval_s, interval, sizeof interval);
    fprintf(out, "PORT GROUP %-8s LACP: %s  Timeout: %s  Interval: %s  Distribution: %s"
            "  Policy: %s  Key: %u\n", pg->name, lag->params.pg.lacp ? "ACTIVE" : "INACTIVE",
            lag->params.long_timeout ? "LONG" : "SHORT", interval,
            zvs_pg_hash_name(pg->hash), zvs_pg_policy_str(pg, policy, sizeof policy),
            (unsigned)lag->params.key);
    fprintf(out, "  Members: %u  Distributing: %u  Passes: %llu  Moves: %llu"
            "  Failover moves: %llu  Join moves: %llu  Marker flushes: %llu"
            "  Marker timeouts: %llu\n",
            zvs_pgroup_members(lag->group), zvs_pgroup_distributing(lag->group),
            (unsigned long long)st->passes, (unsigned long long)st->moves,
            (unsigned long long)st->failover_moves, (unsigned long long)st->membership_moves,
            (unsigned long long)st->marker_flushes, (unsigned long long)st->marker_timeouts);
    fprintf(out, "  Slow frames rx: %llu  tx: %llu  tx failed: %llu  malformed: %llu\n",
            (unsigned long long)lag->stats.slow_rx, (unsigned long long)lag->stats.slow_tx,
            (unsigned long long)lag->stats.slow_tx_fail,
            (unsigned long long)lag->stats.malformed_rx);
    for (unsigned i = 0; i < ZVS_PG_MAX_MEMBERS; i++) {
        const struct lag_member *m = &lag->m[i];
        if (!m->port)
            continue;
        const struct zvs_pg_member *pm = zvs_pgroup_member(lag->group, i);
        fprintf(out, "  RDEV %-8s Port %u  Carrier: %s  Collecting: %s  Distributing: %s"
                "  Buckets: %u\n", m->rdev, m->number, m->port->carrier ? "UP" : "DOWN",
                m->collecting ? "YES" : "NO", m->distributing ? "YES" : "NO",
                pm ? pm->buckets : 0);
        char buf[2048];
        if (m->lacp_running) {
            zvs_lacp_port_format(&m->lacp, &m->marker, now, buf, sizeof buf);
            /* indent the engine's lines under the member */
            for (char *line = buf, *nl; *line; line = nl) {
                nl = strchr(line, '\n');
                int len = nl ? (int)(nl - line) : (int)strlen(line);
                fprintf(out, "    %.*s\n", len, line);
                nl = nl ? nl + 1 : line + len;
            }
        }
    }
}
