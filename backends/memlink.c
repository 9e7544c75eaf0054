/* memlink: in-memory uplink backend (see memlink.h).
 *
 * Design note.
 * - Owns: two rings per link ("ab" and "ba"), each of nslots fixed-size slots allocated at
 *   creation. A single port uses ring 0 as its sent ring and ring 1 as its receive ring; a
 *   pair crosses them, so a's sent ring is b's receive ring.
 * - A ring has three free-running cursors: head (next slot to fill), next (next filled slot
 *   to hand out) and tail (oldest slot not yet given back). Slots in [tail, next) are out
 *   with the switch (rx) and come back through rx_release in any order; tail only moves
 *   over slots that are back, so a frame's bytes never move while the switch holds them
 *   (the ring counts the slots out: with none, tail moves to next in one step).
 * - Rules: tx copies each frame once with zvs_frame_emit (tag edit applied, csum_start
 *   and hdr_len shifted), or with one plain copy when there is no tag edit and the frame
 *   is in one piece (the benchmark's hot path: same bytes, metadata unchanged; tx_one
 *   takes every other case out of line); a frame larger than a slot is refused
 *   (TX_FAIL), a full ring refuses (NO_BUFFER) and counts, nothing blocks, nothing is
 *   allocated per frame; the statistics are added once per tx call.
 * - Doorbell (dummy links): an eventfd per receive ring, asked for by
 *   zvs_memlink_doorbell, rung once per tx burst or inject into the ring and read empty
 *   when rx hands out the last frame; a ring without one costs a branch per burst.
 * - Carrier: zvs_memlink_set_carrier changes both ends of a pair at once and leaves a link
 *   event at the other end, handed out once by its link_poll, its doorbell rung so a loop
 *   wakes for it (the end that cut the cable knows; the other end is told). The MTU
 *   (zvs_memlink_set_mtu) likewise, its event marked mtu_only.
 * - Hazards: single-threaded; reading a paired port's sent frames with zvs_memlink_read
 *   takes them away from the peer's rx. An rx that empties the ring quiets the doorbell
 *   even while a link event waits: the owner polls link_poll before rx on every wake.
 */
#include "backends/memlink.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>

struct memlink_slot {
    uint32_t        len;                /* frame bytes in the slot */
    bool            out;                /* handed to the switch, not yet released */
    struct zvs_vnet vnet;               /* offload metadata of the frame */
};

struct memlink_ring {
    uint32_t             nslots;
    uint32_t             slot_size;     /* bytes per slot */
    uint32_t             head;          /* next slot to fill (free running) */
    uint32_t             next;          /* next filled slot to hand out */
    uint32_t             tail;          /* oldest slot not yet given back */
    uint32_t             nout;          /* slots handed out by rx, not yet released */
    uint8_t             *mem;           /* nslots * slot_size bytes */
    struct memlink_slot *slots;
    int                  bell;          /* eventfd readable while frames wait, or -1 */
};

/* What the one or two ports of a link share. */
struct memlink_wire {
    struct memlink_ring ring[2];
    int                 refs;           /* ports still alive on this wire */
};

struct memlink {
    struct zvs_port          port;      /* must stay first: port.backend points here */
    struct memlink_wire     *wire;
    struct memlink_ring     *sent;      /* what this port transmits */
    struct memlink_ring     *recv;      /* what this port's rx returns */
    struct memlink          *peer;      /* the other end of a pair, else NULL */
    uint8_t                  mac[ZVS_ETH_ALEN];
    bool                     link_pending; /* the peer changed the carrier: not yet polled */
    bool                     mtu_pending;  /* the peer changed the MTU: not yet polled */
    struct zvs_memlink_stats stats;
};

static const struct zvs_port_ops memlink_ops;

static struct memlink *ml_of(const struct zvs_port *p)
{
    assert(p && p->ops == &memlink_ops);
    return p->backend;
}

static int ring_init(struct memlink_ring *r, uint32_t nslots, uint32_t slot_size)
{
    r->nslots = nslots;
    r->slot_size = slot_size;
    r->bell = -1;
    r->mem = malloc((size_t)nslots * slot_size);
    r->slots = calloc(nslots, sizeof(*r->slots));
    return r->mem && r->slots ? 0 : -ENOMEM;
}

static void ring_fini(struct memlink_ring *r)
{
    if (r->bell >= 0)
        close(r->bell);
    free(r->mem);
    free(r->slots);
}

static uint32_t ring_used(const struct memlink_ring *r) { return r->head - r->tail; }

/* Doorbell: frames were queued for the ring's reader (once per burst, only when a
 * doorbell was asked for). */
static void ring_bell(struct memlink_ring *r)
{
    uint64_t one = 1;
    if (write(r->bell, &one, sizeof(one)) < 0) {
        /* EAGAIN: the counter is at its limit, so it is readable anyway. */
    }
}

/* Everything queued was handed out: the reader has nothing to wait for. */
static void ring_quiet(struct memlink_ring *r)
{
    uint64_t v;
    if (read(r->bell, &v, sizeof(v)) < 0) {
        /* EAGAIN: it was not rung. */
    }
}

static uint8_t *slot_data(const struct memlink_ring *r, uint32_t pos)
{
    return r->mem + (size_t)(pos % r->nslots) * r->slot_size;
}

/* Move tail over every slot that is back from the switch: with none out, over all of
 * them at once (a ring read only by zvs_memlink_read or _drain never has one out). */
static void ring_reclaim(struct memlink_ring *r)
{
    if (r->nout == 0) {
        r->tail = r->next;
        return;
    }
    while (r->tail != r->next && !r->slots[r->tail % r->nslots].out)
        r->tail++;
}

static void wire_put(struct memlink_wire *w)
{
    if (!w || --w->refs > 0)
        return;
    ring_fini(&w->ring[0]);
    ring_fini(&w->ring[1]);
    free(w);
}

static struct memlink_wire *wire_new(uint32_t nslots, uint32_t slot_size)
{
    if (nslots == 0)
        nslots = ZVS_MEMLINK_SLOTS_DEFAULT;
    if (slot_size == 0)
        slot_size = ZVS_MEMLINK_SLOT_DEFAULT;
    struct memlink_wire *w = calloc(1, sizeof(*w));
    if (!w)
        return NULL;
    w->refs = 1;
    if (ring_init(&w->ring[0], nslots, slot_size) < 0 ||
        ring_init(&w->ring[1], nslots, slot_size) < 0) {
        wire_put(w);
        return NULL;
    }
    return w;
}

static struct memlink *port_new(const char *name, struct memlink_wire *w, int sent_ring)
{
    struct memlink *m = calloc(1, sizeof(*m));
    if (!m)
        return NULL;
    m->wire = w;
    m->sent = &w->ring[sent_ring];
    m->recv = &w->ring[!sent_ring];
    m->port.role = ZVS_PORT_UPLINK;
    snprintf(m->port.name, sizeof(m->port.name), "%s", name ? name : "memlink");
    m->port.ops = &memlink_ops;
    m->port.backend = m;
    m->port.caps = ZVS_CAP_CSUM | ZVS_CAP_GSO;
    m->port.mtu = 1500;
    /* A super-frame must fit a slot: advertise what the ring can hold, so the switch cuts
     * larger ones into pieces that fit instead of failing them at tx. */
    m->port.max_gso = w->ring[0].slot_size < 65535 ? w->ring[0].slot_size : 65535;
    m->port.carrier = true;
    return m;
}

struct zvs_port *zvs_memlink_create(const char *name, uint32_t nslots, uint32_t slot_size)
{
    struct memlink_wire *w = wire_new(nslots, slot_size);
    if (!w)
        return NULL;
    struct memlink *m = port_new(name, w, 0);
    if (!m) {
        wire_put(w);
        return NULL;
    }
    return &m->port;
}

int zvs_memlink_pair(const char *name_a, const char *name_b, uint32_t nslots,
                     uint32_t slot_size, struct zvs_port **a, struct zvs_port **b)
{
    struct memlink *ma = NULL, *mb = NULL;
    struct memlink_wire *w = wire_new(nslots, slot_size);
    int rc = -ENOMEM;

    *a = *b = NULL;
    if (!w)
        goto out;
    ma = port_new(name_a, w, 0);
    mb = port_new(name_b, w, 1);
    if (!ma || !mb)
        goto out;
    w->refs = 2;
    ma->peer = mb;
    mb->peer = ma;
    *a = &ma->port;
    *b = &mb->port;
    return 0;
out:
    free(ma);
    free(mb);
    wire_put(w);
    return rc;
}

/* memcpy for a frame: 32 to 64 bytes (small frames, the core benchmark's) as two
 * overlapping 32-byte moves the compiler writes inline, instead of a call. The call for
 * larger frames is marked unlikely: its cost is small beside its copy, and otherwise the
 * compiler keeps ml_tx's loop values on the stack around it for every frame. */
static inline void copy_bytes(uint8_t *dst, const uint8_t *src, uint32_t len)
{
    if (__builtin_expect(len - 32u <= 32u, 1)) {
        memcpy(dst, src, 32);
        memcpy(dst + len - 32, src + len - 32, 32);
    } else {
        memcpy(dst, src, len);
    }
}

/* Write one frame that is not the plain case (a tag edit, scattered bytes, too large for
 * a slot, or no slot left) into slot s, whose bytes are at dst: its length, or -1 when
 * it is refused (counted, *why set). Out of line: the plain case is the hot path. */
static __attribute__((noinline)) int64_t tx_one(struct memlink *m, const struct memlink_ring *r,
                                                struct memlink_slot *s, uint8_t *dst,
                                                uint32_t room, const struct zvs_tx *tx,
                                                enum zvs_drop *why)
{
    const struct zvs_frame *f = tx->f;
    enum zvs_tag_op op = (enum zvs_tag_op)tx->tag_op;

    if (zvs_frame_out_len(f, op) > r->slot_size) {
        m->stats.tx_oversize++;
        *why = ZVS_DROP_TX_FAIL;
        return -1;
    }
    if (room == 0) {
        m->stats.tx_ring_full++;
        *why = ZVS_DROP_NO_BUFFER;
        return -1;
    }
    s->len = zvs_frame_emit(f, op, tx->vid, dst, &s->vnet);
    s->out = false;
    return s->len;
}

static int ml_tx(struct zvs_port *p, const struct zvs_tx *txs, int n, enum zvs_drop *why)
{
    struct memlink *m = ml_of(p);
    struct memlink_ring *r = m->sent;
    const uint32_t slot_size = r->slot_size;
    const uint32_t room = r->nslots - ring_used(r);     /* only this call fills the ring */
    const uint32_t pos = r->head % r->nslots;
    struct memlink_slot *s = &r->slots[pos], *const s_end = r->slots + r->nslots;
    uint8_t *dst = r->mem + (size_t)pos * slot_size;
    uint64_t bytes = 0;
    uint32_t done = 0;

    if (!p->carrier) {
        m->stats.tx_link_down += n > 0 ? (uint64_t)n : 0;
        *why = ZVS_DROP_LINK_DOWN;
        return 0;
    }
    for (int i = 0; i < n; i++) {
        const struct zvs_frame *f = txs[i].f;
        uint32_t len = f->len;

        if (__builtin_expect(txs[i].tag_op == ZVS_TAG_KEEP && f->nfrags == 0 &&
                             len <= slot_size && done < room, 1)) {
            /* The common case, bytes as they are in one piece: one copy. */
            copy_bytes(dst, f->data, len);
            s->len = len;
            s->vnet = f->vnet;          /* s->out is false: tail passed it when it was back */
        } else {
            int64_t rc = tx_one(m, r, s, dst, room - done, &txs[i], why);
            if (rc < 0)
                continue;
            len = (uint32_t)rc;
        }
        bytes += len;
        done++;
        if (++s == s_end) {             /* the next slot, in ring order */
            s = r->slots;
            dst = r->mem;
        } else {
            dst += slot_size;
        }
    }
    r->head += done;
    m->stats.tx_frames += done;                 /* once per call, not per frame */
    m->stats.tx_bytes += bytes;
    if (done && r->bell >= 0)
        ring_bell(r);
    return (int)done;
}

static int ml_rx(struct zvs_port *p, struct zvs_frame *out, int max)
{
    struct memlink *m = ml_of(p);
    struct memlink_ring *r = m->recv;
    int n = 0;

    while (n < max && r->next != r->head) {
        struct memlink_slot *s = &r->slots[r->next % r->nslots];
        memset(&out[n], 0, sizeof(out[n]));
        out[n].data = slot_data(r, r->next);
        out[n].len = s->len;
        out[n].vnet = s->vnet;
        out[n].in_port = p->index;
        out[n].cookie = r->next % r->nslots;
        s->out = true;
        r->next++;
        n++;
    }
    if (r->bell >= 0 && r->next == r->head)
        ring_quiet(r);
    r->nout += (uint32_t)n;
    m->stats.rx_frames += (uint64_t)n;
    return n;
}

static void ml_rx_release(struct zvs_port *p, struct zvs_frame *frames, int n)
{
    struct memlink *m = ml_of(p);
    struct memlink_ring *r = m->recv;

    for (int i = 0; i < n; i++) {
        assert(frames[i].cookie < r->nslots);
        assert(r->slots[frames[i].cookie].out);
        r->nout -= r->slots[frames[i].cookie].out;
        r->slots[frames[i].cookie].out = false;
    }
    ring_reclaim(r);
}

static void ml_flush(struct zvs_port *p)
{
    (void)p;                            /* every tx is complete when it returns */
}

static void ml_destroy(struct zvs_port *p)
{
    if (!p)
        return;
    struct memlink *m = ml_of(p);
    if (m->peer)
        m->peer->peer = NULL;
    wire_put(m->wire);
    free(m);
}

static int ml_fd(const struct zvs_port *p)
{
    return ml_of(p)->recv->bell;
}

/* The carrier or MTU change the peer made (zvs_memlink_set_carrier, _set_mtu), once. */
static int ml_link_poll(struct zvs_port *p, struct zvs_port_link_event *ev)
{
    struct memlink *m = ml_of(p);
    if (!m->link_pending && !m->mtu_pending)
        return 0;
    *ev = (struct zvs_port_link_event){ .ifindex = 0, .carrier = p->carrier, .exists = true,
                                        .mtu_only = !m->link_pending };
    m->link_pending = false;
    m->mtu_pending = false;
    return 1;
}

/* The event as the owner applies it: the carrier is already what the event says (the
 * wire changed both ends at once); a link that is gone has none. Never reopens. */
static int ml_link_event(struct zvs_port *p, int ifindex, bool carrier, bool exists)
{
    (void)ifindex;
    p->carrier = carrier && exists;
    return 0;
}

static const struct zvs_port_ops memlink_ops = {
    .kind = "memlink",
    .tx = ml_tx,
    .rx = ml_rx,
    .rx_release = ml_rx_release,
    .flush = ml_flush,
    .destroy = ml_destroy,
    .fd = ml_fd,                        /* -1 unless a doorbell was asked for */
    .link_event = ml_link_event,
    .link_poll = ml_link_poll,
};

int zvs_memlink_inject(struct zvs_port *p, const uint8_t *data, uint32_t len,
                       const struct zvs_vnet *vnet)
{
    struct memlink *m = ml_of(p);
    struct memlink_ring *r = m->recv;
    int rc = 0;

    if (!p->carrier)
        rc = -ENETDOWN;
    else if (len > r->slot_size)
        rc = -EMSGSIZE;
    else if (ring_used(r) >= r->nslots)
        rc = -ENOBUFS;
    if (rc < 0) {
        m->stats.inject_refused++;
        return rc;
    }
    struct memlink_slot *s = &r->slots[r->head % r->nslots];
    memcpy(slot_data(r, r->head), data, len);
    s->len = len;
    s->out = false;
    if (vnet)
        s->vnet = *vnet;
    else
        memset(&s->vnet, 0, sizeof(s->vnet));
    r->head++;
    if (r->bell >= 0)
        ring_bell(r);
    return 0;
}

int zvs_memlink_read(struct zvs_port *p, uint8_t *buf, uint32_t cap, struct zvs_vnet *vnet)
{
    struct memlink *m = ml_of(p);
    struct memlink_ring *r = m->sent;

    if (r->next == r->head)
        return -EAGAIN;
    struct memlink_slot *s = &r->slots[r->next % r->nslots];
    if (s->len > cap)
        return -EMSGSIZE;
    memcpy(buf, slot_data(r, r->next), s->len);
    if (vnet)
        *vnet = s->vnet;
    r->next++;
    ring_reclaim(r);
    return (int)s->len;
}

uint32_t zvs_memlink_pending(const struct zvs_port *p)
{
    const struct memlink_ring *r = ml_of(p)->sent;
    return r->head - r->next;
}

uint32_t zvs_memlink_drain(struct zvs_port *p)
{
    struct memlink_ring *r = ml_of(p)->sent;
    uint32_t n = r->head - r->next;
    r->next = r->head;
    ring_reclaim(r);
    return n;
}

/* The other end hears of a change to the cable: its doorbell rings with an event for
 * link_poll, as a PHY's interrupt reaches a driver. */
static void peer_event(struct memlink *o, bool *pending)
{
    *pending = true;
    if (o->recv->bell >= 0)
        ring_bell(o->recv);
}

void zvs_memlink_set_carrier(struct zvs_port *p, bool up)
{
    struct memlink *o = ml_of(p)->peer;
    p->carrier = up;
    if (o) {                            /* a cut cable is down at both ends */
        o->port.carrier = up;
        peer_event(o, &o->link_pending);
    }
}

void zvs_memlink_set_mtu(struct zvs_port *p, uint32_t mtu)
{
    struct memlink *o = ml_of(p)->peer;
    p->mtu = mtu;
    if (o) {
        o->port.mtu = mtu;
        peer_event(o, &o->mtu_pending);
    }
}

void zvs_memlink_stats(const struct zvs_port *p, struct zvs_memlink_stats *out)
{
    *out = ml_of(p)->stats;
}

int zvs_memlink_doorbell(struct zvs_port *p)
{
    struct memlink_ring *r = ml_of(p)->recv;
    if (r->bell >= 0)
        return r->bell;
    r->bell = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (r->bell < 0)
        return -errno;
    if (r->next != r->head)
        ring_bell(r);                   /* frames were queued before it existed */
    return r->bell;
}

void zvs_memlink_mac(const struct zvs_port *p, uint8_t mac[6])
{
    memcpy(mac, ml_of(p)->mac, ZVS_ETH_ALEN);
}

void zvs_memlink_set_mac(struct zvs_port *p, const uint8_t mac[6])
{
    memcpy(ml_of(p)->mac, mac, ZVS_ETH_ALEN);
}
