/* Marker protocol of one aggregation port (IEEE 802.1AX-2008 5.5, 2014 6.5; the PDUs in
 * 5.5.3 / 6.5.3).
 *
 * Owns: the port's outstanding markers (a fixed array of 8 slots), the transaction id
 * counter and the Marker counters. No I/O, no clock, no allocation: PDUs come in parsed
 * (struct zvs_marker) and go out through cb.send; the caller builds the frame with
 * zvs_marker_build, whose TLV type follows pdu->response.
 *
 * Rules:
 *  - Responder (Linux ad_marker_info_received, FreeBSD lacp_marker_input): a Marker
 *    Information is answered, unchanged except TLV type 1 -> 2; the requester fields are
 *    echoed, never replaced by ours. Its only state is the port's Marker budget (802.3
 *    Annex 43B, 7 of the 10 Slow Protocols frames a second; marker.h): past it the answer
 *    is suppressed and counted.
 *  - Originator: transaction ids count up from 1 (FreeBSD increments per marker); an id
 *    still outstanding is skipped, so after a 2^32 wrap no two outstanding markers share
 *    one. A response matches only if requester port, system and id are ours: a response
 *    to another system's marker on a shared segment is not a flush of ours.
 *  - Timers are absolute deadlines; a marker has timed out when now >= deadline. rx is
 *    applied before run() looks at deadlines, so a response that was delivered in time
 *    but processed late still completes its marker (as lacp_port.c does for LACPDUs).
 *    Once timed out the slot is gone: a late response is unmatched.
 *  - timeout_ns 0 is refused: such a marker could never be answered, and refusing it
 *    keeps run() finite when done() sends a new marker.
 * Hazards: a slot is freed BEFORE done() runs, so done() may send the next marker (and
 * gets the freed slot). run() rescans after each callback instead of holding an index.
 */
#include "lacp/marker.h"

#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>

int zvs_lacp_marker_init(struct zvs_lacp_marker *m, uint16_t port, const uint8_t system[6],
                         const struct zvs_lacp_marker_cb *cb, void *arg)
{
    if (m == NULL || system == NULL || cb == NULL || cb->send == NULL || port == 0)
        return -EINVAL;
    memset(m, 0, sizeof(*m));
    m->port = port;
    memcpy(m->system, system, sizeof(m->system));
    m->cb = *cb;
    m->arg = arg;
    m->next_xid = 1;
    return 0;
}

static struct zvs_lacp_marker_slot *find_xid(struct zvs_lacp_marker *m, uint32_t xid)
{
    for (unsigned i = 0; i < ZVS_LACP_MARKER_MAX_OUTSTANDING; i++) {
        if (m->slots[i].used && m->slots[i].xid == xid)
            return &m->slots[i];
    }
    return NULL;
}

static struct zvs_lacp_marker_slot *free_slot(struct zvs_lacp_marker *m)
{
    for (unsigned i = 0; i < ZVS_LACP_MARKER_MAX_OUTSTANDING; i++) {
        if (!m->slots[i].used)
            return &m->slots[i];
    }
    return NULL;
}

/* Frees the slot, then reports: done() may reuse it. */
static void finish(struct zvs_lacp_marker *m, struct zvs_lacp_marker_slot *s,
                   enum zvs_marker_result result)
{
    uint32_t xid = s->xid;

    assert(s->used && m->outstanding > 0);
    s->used = false;
    m->outstanding--;
    if (m->cb.done != NULL)
        m->cb.done(m->arg, xid, result);
}

/* The Marker budget (IEEE 802.3 Annex 43B: at most 10 Slow Protocols frames per port in
 * any one-second period; LACP keeps 3, see marker.h). The ring holds the send times of the
 * last ZVS_LACP_MARKER_TX_PER_SEC Marker PDUs; another may go when the ring is not full or
 * its oldest entry is a full second old (at oldest + 1 s exactly, as LACP's own limit). */
static bool budget_left(const struct zvs_lacp_marker *m, uint64_t now)
{
    uint64_t oldest;

    if (m->tx_count < ZVS_LACP_MARKER_TX_PER_SEC)
        return true;
    oldest = m->tx_times[m->tx_next];
    return now >= oldest && now - oldest >= ZVS_LACP_MARKER_BUDGET_NS;
}

static void budget_take(struct zvs_lacp_marker *m, uint64_t now)
{
    m->tx_times[m->tx_next] = now;
    m->tx_next = (m->tx_next + 1) % ZVS_LACP_MARKER_TX_PER_SEC;
    if (m->tx_count < ZVS_LACP_MARKER_TX_PER_SEC)
        m->tx_count++;
}

/* The responder: a partner that floods Marker Information would otherwise make the port
 * a reflector; past the budget the answer is dropped and counted (such a partner's marker
 * then times out on its side, as for a response lost on the wire). */
static void answer(struct zvs_lacp_marker *m, const struct zvs_marker *info, uint64_t now)
{
    struct zvs_marker resp = *info;

    m->stats.marker_pdus_rx++;
    if (!budget_left(m, now)) {
        m->stats.marker_response_suppressed++;
        return;
    }
    budget_take(m, now);
    resp.response = true;
    m->stats.marker_response_pdus_tx++;
    m->cb.send(m->arg, &resp);
}

static void match_response(struct zvs_lacp_marker *m, const struct zvs_marker *resp)
{
    struct zvs_lacp_marker_slot *s = NULL;

    m->stats.marker_response_pdus_rx++;
    if (resp->requester_port == m->port &&
        memcmp(resp->requester_system, m->system, sizeof(m->system)) == 0)
        s = find_xid(m, resp->transaction_id);
    if (s == NULL) {
        m->stats.marker_response_unmatched++;
        return;
    }
    finish(m, s, ZVS_MARKER_ANSWERED);
}

void zvs_lacp_marker_rx(struct zvs_lacp_marker *m, const struct zvs_marker *pdu, uint64_t now)
{
    /* rx is applied before deadlines at `now`; `now` only meters the responder's budget */
    assert(m != NULL && pdu != NULL);
    if (pdu->response)
        match_response(m, pdu);
    else
        answer(m, pdu, now);
}

/* Next id not outstanding. At most 8 are outstanding, so at most 9 candidates are tried. */
static uint32_t take_xid(struct zvs_lacp_marker *m)
{
    uint32_t xid = m->next_xid;

    while (find_xid(m, xid) != NULL)
        xid++;
    m->next_xid = xid + 1;
    return xid;
}

int zvs_lacp_marker_send(struct zvs_lacp_marker *m, uint64_t now, uint64_t timeout_ns,
                         uint32_t *xid)
{
    struct zvs_lacp_marker_slot *s;
    struct zvs_marker pdu;

    assert(m != NULL);
    if (timeout_ns == 0)
        return -EINVAL;
    s = free_slot(m);
    if (s == NULL)
        return -EBUSY;
    s->xid = take_xid(m);           /* before used = true: the slot's stale xid is no id */
    s->used = true;
    s->deadline = now > UINT64_MAX - timeout_ns ? UINT64_MAX : now + timeout_ns;
    s->seq = m->next_seq++;
    m->outstanding++;
    if (xid != NULL)
        *xid = s->xid;

    memset(&pdu, 0, sizeof(pdu));
    pdu.version = ZVS_MARKER_VERSION;
    pdu.response = false;
    pdu.requester_port = m->port;
    memcpy(pdu.requester_system, m->system, sizeof(pdu.requester_system));
    pdu.transaction_id = s->xid;
    m->stats.marker_pdus_tx++;
    budget_take(m, now);            /* never refused: see marker.h; it counts all the same */
    /* Recorded first: a synchronous answer from inside send must find the slot. */
    m->cb.send(m->arg, &pdu);
    return 0;
}

/* The expired marker with the earliest deadline (ties: sent first), or NULL. */
static struct zvs_lacp_marker_slot *first_expired(struct zvs_lacp_marker *m, uint64_t now)
{
    struct zvs_lacp_marker_slot *best = NULL;

    for (unsigned i = 0; i < ZVS_LACP_MARKER_MAX_OUTSTANDING; i++) {
        struct zvs_lacp_marker_slot *s = &m->slots[i];

        if (!s->used || now < s->deadline)
            continue;
        if (best == NULL || s->deadline < best->deadline ||
            (s->deadline == best->deadline && s->seq < best->seq))
            best = s;
    }
    return best;
}

void zvs_lacp_marker_run(struct zvs_lacp_marker *m, uint64_t now)
{
    struct zvs_lacp_marker_slot *s;

    assert(m != NULL);
    /* Finite: a marker sent from done() has deadline > now (timeout_ns > 0), except at
     * the saturated deadline UINT64_MAX, which only now == UINT64_MAX reaches. */
    while ((s = first_expired(m, now)) != NULL) {
        m->stats.marker_timeouts++;
        finish(m, s, ZVS_MARKER_TIMED_OUT);
    }
}

uint64_t zvs_lacp_marker_next_wakeup(const struct zvs_lacp_marker *m)
{
    uint64_t next = ZVS_LACP_MARKER_NEVER;

    for (unsigned i = 0; i < ZVS_LACP_MARKER_MAX_OUTSTANDING; i++) {
        if (m->slots[i].used && m->slots[i].deadline < next)
            next = m->slots[i].deadline;
    }
    return next;
}

unsigned zvs_lacp_marker_outstanding(const struct zvs_lacp_marker *m)
{
    return m->outstanding;
}

const struct zvs_lacp_marker_stats *zvs_lacp_marker_stats(const struct zvs_lacp_marker *m)
{
    return &m->stats;
}
