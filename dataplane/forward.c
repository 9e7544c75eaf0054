/* The forwarding path.
 *
 * A burst of frames from one port is classified (runt, size, source, Slow Protocols,
 * VLAN, MACPROTECT), looked up, and queued per egress port; at the end of the burst every
 * egress that got frames is written once (one tx call, one backend flush). Frames are
 * never copied here: egress backends copy them once, applying the tag edit.
 *
 * Rules (z/VM VSWITCH, layer 2):
 *  - guest to guest on the same VLAN stays local; a unicast to no local guest goes to the
 *    uplink; broadcast and multicast go to every other guest on the VLAN and the uplink;
 *  - from the uplink, unicast goes to the guest that owns the MAC, broadcast/multicast to
 *    every guest on the VLAN, and a frame for no guest is dropped as an OSA's address
 *    filter would (counted in drops[FILTERED] only); nothing goes uplink to uplink;
 *  - Slow Protocols frames (LACP, Marker) from an uplink go to the LACP handler and never
 *    to guests; from a guest they are discarded;
 *  - a Global VSWITCH's IVL port (the other systems of its IVL domain, ivl/forward_rule.h
 *    is the rule in full) is sent, with each frame's kind, a guest's unicast learned on it
 *    (INBOUND), every broadcast and multicast and, from the uplink, unknown unicast
 *    (FLOOD), and a guest's frame for the LAN while this system has no uplink that
 *    carries (OUTBOUND); from it, OUTBOUND goes to the uplink only, INBOUND and FLOOD to
 *    guests only, nothing back to it (from_ivl), so a frame crosses the IVL once.
 * Slow Protocols frames are queued during the burst and handed to the handler after it,
 * once every egress is written, in the order they came (a burst is one port's, so the
 * order per port is kept). The handler may change ports, tables or the group; called in
 * the middle of a burst it would change them under the frames still to come, so nothing
 * is called out of a burst and nothing the burst decided has to be decided again.
 * Egress fix-up: a super-frame or a partial checksum that the egress cannot take is
 * segmented or checksummed here (vnet.c) into scratch memory; that slow path flushes the
 * egress queue first so frame order on the port is kept.
 *
 * Per-burst memo (struct burst): a burst comes from one port, and nothing the forwarding
 * decision reads changes during it except through learning. So the ingress
 * classification of an untagged frame (the same for every untagged frame on that port)
 * and the last MAC table answer (dst MAC + VID -> port) are kept for the burst; a stream
 * of frames to one destination then costs no VLAN call and no hash lookup. Learning
 * forgets the MAC answer. Only the answers are kept: every frame still passes every check
 * and is counted on its own, so counters are exact.
 *
 * Header memo (struct hdr_memo, memo_run): the whole decision for an untagged unicast
 * frame queued as it is on one egress depends on the frame only through its first 14
 * bytes (destination, source, EtherType), its length and its being in one piece without
 * offload metadata to act on; the rest is the ingress port, the switch and the tables,
 * which do not change in a burst except by learning. So the burst keeps the last such
 * decision with the 14 bytes it was made on (read once: forward_one decides on a copy,
 * so a guest that rewrites its buffer cannot make the memo keep bytes nobody checked),
 * and a frame with the same bytes, in one piece, no offload, no longer than both ports
 * take, gets the same decision: classified, counted and queued as forward_one would.
 * Learning forgets it (and a frame that learns is never remembered: the next one must
 * learn again); the egress's carrier is read for every frame. Anything else, and the
 * first frame of every burst, goes through forward_one.
 *
 * Counters count frames on the wire (wire.h, issue 15): a GSO super-frame counts as its
 * segments and their bytes, in packets, bytes, discards, errors and drop reasons alike.
 * A plain frame costs one branch for it (the GSO test the egress makes anyway); queued
 * super-frames add their extra segments to the egress's pend_extra.
 */
#include "dataplane/switch.h"

#include <errno.h>
#include <string.h>

#include "dataplane/mac_table.h"
#include "dataplane/distribution.h"
#include "dataplane/switch_impl.h"
#include "dataplane/vnet.h"
#include "dataplane/wire.h"

static const uint8_t slow_dst[ZVS_ETH_ALEN] = { 0x01, 0x80, 0xC2, 0x00, 0x00, 0x02 };

static inline bool mac_eq(const uint8_t *a, const uint8_t *b)
{
    uint32_t a4, b4;
    uint16_t a2, b2;
    memcpy(&a4, a, 4);
    memcpy(&b4, b, 4);
    memcpy(&a2, a + 4, 2);
    memcpy(&b2, b + 4, 2);
    return a4 == b4 && a2 == b2;
}

/* Wire frames and bytes of txs[0..n) as written (failure paths only: per frame). */
static struct zvs_wire wire_sum(const struct zvs_tx *txs, int n)
{
    struct zvs_wire sum = { 0, 0 };
    for (int i = 0; i < n; i++) {
        enum zvs_tag_op op = (enum zvs_tag_op)txs[i].tag_op;
        struct zvs_wire w = zvs_wire_of(txs[i].f, zvs_frame_out_len(txs[i].f, op));
        sum.frames += w.frames;
        sum.bytes += w.bytes;
    }
    return sum;
}

/* Count frame f as dropped: a super-frame is all of its segments. */
static void drop_frame(struct zvs_port *p, bool inbound, enum zvs_drop why,
                       const struct zvs_frame *f)
{
    zvs_port_count_drop(p, inbound, why, zvs_wire_of(f, f->len).frames);
}

/* The whole decision for a frame whose first 14 bytes (destination, source, EtherType)
 * equal those of an earlier frame of the burst that was queued as it is on one egress
 * (see "Header memo" at the top). */
struct hdr_memo {
    uint64_t           w0;              /* header bytes 0..7 of that frame */
    uint64_t           w1;              /* and bytes 6..13 */
    struct zvs_swport *out;             /* its egress; NULL: nothing remembered */
    uint64_t          *bucket;          /* port group load counter it added to, or NULL */
    uint32_t           max_len;         /* longest frame ingress and egress take as it is */
    uint16_t           vid;             /* its classification (untagged: no PCP, no flags) */
    uint8_t            op;              /* its egress's tag edit */
    uint8_t            grow;            /* bytes the edit adds (a pushed tag: 4) */
};

/* What one burst remembers (see the note at the top). Widest fields first: every burst
 * zeroes it, and packed it is a store or two fewer than in meaning order. */
struct burst {
    struct hdr_memo       hdr;          /* the last plain unicast decision */
    uint64_t             *last_bucket;  /* the load counter uplink_for added to, or NULL */
    uint64_t              cur_w0;       /* the frame being forwarded: its header bytes
                                           0..7 and 6..13 as read once, what every decision
                                           on it reads and what the memo keeps */
    uint64_t              cur_w1;
    uint32_t              in_max;       /* and the longest frame the ingress takes as it */
    uint64_t              filtered;     /* wire frames for no guest of ours (uplink) */
    uint64_t              filtered_bytes; /* and their bytes */
    uint64_t              mac_key;      /* dst MAC | vid << 48 of the last lookup */
    const struct zvs_pg_map *map;       /* port group's live map, loaded at first use */
    uint64_t             *bucket_bytes; /* and its per-bucket load counters */
    int                   untagged_rc;  /* zvs_vlan_ingress result for an untagged frame */
    enum zvs_drop         untagged_why;
    int                   mac_out;      /* the last lookup's answer */
    enum zvs_pg_hash      hash;         /* the map's distribution key */
    struct zvs_vlan_class untagged_cls;
    bool                  untagged_known;
    bool                  mac_known;
};

static inline uint64_t mac_vid_key(const uint8_t *mac, uint16_t vid)
{
    uint32_t a4;
    uint16_t a2;
    memcpy(&a4, mac, 4);
    memcpy(&a2, mac + 4, 2);
    return (uint64_t)a4 | (uint64_t)a2 << 32 | (uint64_t)vid << 48;
}

/* MAC table lookup through the burst's one-entry memo. */
static inline int lookup(struct zvs_switch *sw, struct burst *b, const uint8_t *dst, uint16_t vid)
{
    uint64_t key = mac_vid_key(dst, vid);

    if (b->mac_known && b->mac_key == key)
        return b->mac_out;
    b->mac_out = zvs_mac_table_lookup(sw->macs, dst, vid);
    b->mac_key = key;
    b->mac_known = true;
    return b->mac_out;
}

/* Ingress VLAN classification; untagged frames (no 802.1Q or 802.1ad TPID at offset 12)
 * classify alike on one port, so their answer is computed once per burst. */
static inline int vlan_ingress(struct zvs_switch *sw, struct zvs_swport *in, struct burst *b,
                               const struct zvs_frame *f, uint16_t ethertype, uint32_t peek_len,
                               struct zvs_vlan_class *cls, enum zvs_drop *why)
{
    const struct zvs_vlan_port *vp = in->is_guest ? &in->guest.vlan : NULL;

    if (ethertype == ZVS_ETHERTYPE_VLAN || ethertype == ZVS_ETHERTYPE_QINQ)
        return zvs_vlan_ingress(&sw->params.vlan, vp, f->data, peek_len, cls, why);
    if (__builtin_expect(!b->untagged_known, 0)) {
        b->untagged_rc = zvs_vlan_ingress(&sw->params.vlan, vp, f->data, peek_len,
                                          &b->untagged_cls, &b->untagged_why);
        b->untagged_known = true;
    }
    *cls = b->untagged_cls;
    if (b->untagged_rc < 0)
        *why = b->untagged_why;
    return b->untagged_rc;
}

/* A port-group member that can take frames another member could not send: distributing,
 * with carrier, not `avoid`; else the RDEV uplink; -1 if none. Only on failure paths. */
static int group_survivor(struct zvs_switch *sw, uint16_t avoid)
{
    for (unsigned slot = 0; sw->group && slot < ZVS_PG_MAX_MEMBERS; slot++) {
        uint16_t port = sw->group->member_port[slot];
        if (port != ZVS_PG_NO_PORT && port != avoid &&
                sw->sp[port].port && sw->sp[port].port->carrier)
            return port;
    }
    if (sw->active_uplink >= 0 && sw->active_uplink != avoid &&
            sw->sp[sw->active_uplink].port->carrier)
        return sw->active_uplink;
    return -1;
}

static void flush_port(struct zvs_switch *sw, struct zvs_swport *s);

/* Frames a group member could not send because its link went down between the choice and
 * the write go out on a survivor instead of being lost (issue 4: failover loses nothing
 * the switch still holds). Returns how many of txs[0..n) were taken. */
static int resteer(struct zvs_switch *sw, struct zvs_swport *s, const struct zvs_tx *txs, int n)
{
    int to = group_survivor(sw, s->port->index);
    if (to < 0)
        return 0;
    struct zvs_swport *t = &sw->sp[to];
    struct zvs_port *tp = t->port;
    flush_port(sw, t);                  /* keep the survivor's own frames first */
    enum zvs_drop why = ZVS_DROP_TX_FAIL;
    int sent = tp->ops->tx(tp, txs, n, &why);
    if (sent < 0)
        sent = 0;
    struct zvs_wire w = wire_sum(txs, sent);
    zvs_ctr_add(&tp->ctr.out_bytes, w.bytes);
    zvs_ctr_add(&tp->ctr.out_packets, w.frames);
    if (sent < n)
        zvs_port_count_drop(tp, false, why, wire_sum(txs + sent, n - sent).frames);
    if (tp->ops->flush)
        tp->ops->flush(tp);
    sw->stats.resteered += (uint64_t)n;
    return n;
}

static void flush_port(struct zvs_switch *sw, struct zvs_swport *s)
{
    struct zvs_port *p = s->port;
    if (s->npend == 0)
        return;
    enum zvs_drop why = ZVS_DROP_TX_FAIL;
    int sent = p->ops->tx(p, s->pend, s->npend, &why);
    if (sent < 0)
        sent = 0;
    if (sent == s->npend) {
        zvs_ctr_add(&p->ctr.out_bytes, s->pend_bytes);
        zvs_ctr_add(&p->ctr.out_packets, (uint64_t)sent + s->pend_extra);
    } else {
        struct zvs_wire w = wire_sum(s->pend, sent);
        zvs_ctr_add(&p->ctr.out_bytes, w.bytes);
        zvs_ctr_add(&p->ctr.out_packets, w.frames);
        uint16_t n = s->npend;
        bool taken = false;
        if (s->in_group && (why == ZVS_DROP_LINK_DOWN || !p->carrier)) {
            s->npend = 0;               /* resteer may flush other ports, never this one */
            taken = resteer(sw, s, &s->pend[sent], n - sent) == n - sent;
        }
        if (!taken)
            zvs_port_count_drop(p, false, why, wire_sum(&s->pend[sent], n - sent).frames);
    }
    s->npend = 0;
    s->pend_bytes = 0;
    s->pend_extra = 0;
}

struct fixup_ctx {
    struct zvs_port   *p;
    uint8_t            ivl;             /* the frame's IVL kind, kept on each segment */
    uint64_t           sent;
    uint64_t           bytes;
    uint64_t           failed;
    enum zvs_drop      why;
};

static int fixup_emit(void *arg, const uint8_t *frame, uint32_t len, const struct zvs_vnet *vnet)
{
    struct fixup_ctx *c = arg;
    struct zvs_frame f = { .data = frame, .len = len, .vnet = *vnet };
    struct zvs_tx tx = { .f = &f, .tag_op = ZVS_TAG_KEEP, .ivl = c->ivl };
    enum zvs_drop why = ZVS_DROP_TX_FAIL;
    struct zvs_wire w = zvs_wire_of(&f, len);  /* a smaller super-frame is its segments */
    if (c->p->ops->tx(c->p, &tx, 1, &why) == 1) {
        c->sent += w.frames;
        c->bytes += w.bytes;
    } else {
        c->failed += w.frames;
        c->why = why;
    }
    return 0;
}

/* Whether egress p takes a super-frame of gso_type whole (up to its max_gso). */
static bool egress_takes_gso(const struct zvs_port *p, uint8_t gso_type)
{
    if (!(p->caps & ZVS_CAP_GSO))
        return false;
    return !(p->caps & ZVS_CAP_GSO_TCP_ONLY) ||
           (gso_type & (uint8_t)~ZVS_VNET_GSO_ECN) != ZVS_VNET_GSO_UDP_L4;
}

/* Frame f dropped at egress p as too big: `need` bytes as it would have gone out (a
 * super-frame: its largest segment), frame_max the egress's limit. Counted; at an uplink
 * (a VXLAN segment's MTU) also recorded by ingress port less the tag the egress adds (0
 * or 4 bytes), so the sender is told the frame it sent. Out of line: the tag is worked
 * out here only. */
static __attribute__((noinline, cold)) void drop_too_big(struct zvs_switch *sw,
                                                         struct zvs_port *p,
                                                         const struct zvs_frame *f,
                                                         uint32_t need, uint32_t frame_max)
{
    drop_frame(p, false, ZVS_DROP_OVERSIZE, f);
    if (p->role == ZVS_PORT_UPLINK) {
        uint32_t tag = frame_max - p->mtu - ZVS_ETH_HLEN;
        zvs_oversize_note(&sw->oversize, f->in_port, need - tag);
    }
}

/* Slow path: write one frame the egress cannot take as it is. */
static void egress_fixup(struct zvs_switch *sw, struct zvs_swport *s, const struct zvs_tx *tx,
                         uint32_t out_len, uint32_t frame_max)
{
    struct zvs_port *p = s->port;
    struct zvs_vnet vnet;
    struct fixup_ctx c = { .p = p, .ivl = tx->ivl, .why = ZVS_DROP_TX_FAIL };
    int rc;

    flush_port(sw, s);
    sw->stats.fixups++;
    if (out_len > ZVS_SCRATCH_LEN) {
        drop_too_big(sw, p, tx->f, out_len, frame_max);
        return;
    }
    uint32_t len = zvs_frame_emit(tx->f, (enum zvs_tag_op)tx->tag_op, tx->vid, sw->scratch, &vnet);
    if (vnet.gso_type != ZVS_VNET_GSO_NONE) {
        /* A GSO-capable egress gets smaller super-frames; others get MTU-sized segments. */
        bool gso = egress_takes_gso(p, vnet.gso_type);
        uint32_t max_len = gso ? p->max_gso : frame_max;
        rc = zvs_vnet_segment(sw->scratch, len, &vnet, max_len, gso,
                              (p->caps & ZVS_CAP_CSUM) != 0, sw->scratch2, fixup_emit, &c);
        if (rc == -EMSGSIZE) {
            /* The sender's MSS is past the egress's MTU (a guest at 1500 doing TSO over
             * a VXLAN segment): too big, as a frame of its segments' length would be. */
            uint32_t need = zvs_vnet_segment_need(sw->scratch, len, &vnet);
            drop_too_big(sw, p, tx->f, need, frame_max);
            return;
        }
    } else if (len > frame_max) {
        drop_too_big(sw, p, tx->f, len, frame_max);
        return;
    } else {
        rc = zvs_vnet_csum_complete(sw->scratch, len, &vnet);
        if (rc == 0)
            rc = fixup_emit(&c, sw->scratch, len, &vnet);
    }
    if (rc < 0) {
        drop_frame(p, false, ZVS_DROP_OFFLOAD, tx->f);
        return;
    }
    zvs_ctr_add(&p->ctr.out_packets, c.sent);
    zvs_ctr_add(&p->ctr.out_bytes, c.bytes);
    if (c.failed)
        zvs_port_count_drop(p, false, c.why, c.failed);
}

static bool egress_survivor(struct zvs_switch *sw, const struct zvs_frame *f, uint16_t avoid);

/* Queue frame f, written with tag edit op and counted as wire_len bytes, on egress s. */
static inline __attribute__((always_inline)) void queue_tx(struct zvs_switch *sw,
                                                           struct zvs_swport *s,
                                                           const struct zvs_frame *f,
                                                           enum zvs_tag_op op, uint64_t wire_len,
                                                           uint8_t ivl)
{
    if (!s->active) {
        s->active = true;
        sw->active[sw->nactive++] = s->port->index;
    }
    struct zvs_tx *t = &s->pend[s->npend++];
    t->f = f;
    t->tag_op = (uint8_t)op;
    t->ivl = ivl;
    t->vid = f->vid;
    s->pend_bytes += wire_len;
    if (s->npend == ZVS_BATCH)
        flush_port(sw, s);
}

/* Remember the decision for f, queued as it is on s: a later frame of the burst with the
 * same header and no longer than out_max (what s takes with op applied) and b->in_max
 * (what the ingress takes) gets the same one. */
static inline void memo_fill(struct burst *b, const struct zvs_frame *f, struct zvs_swport *s,
                             enum zvs_tag_op op, uint32_t out_max)
{
    struct hdr_memo *m = &b->hdr;

    m->w0 = b->cur_w0;
    m->w1 = b->cur_w1;
    m->out = s;
    m->bucket = b->last_bucket;
    m->max_len = out_max < b->in_max ? out_max : b->in_max;
    m->vid = f->vid;
    m->op = (uint8_t)op;
    m->grow = (uint8_t)(zvs_frame_out_len(f, op) - f->len);
}

/* Queue frame f (classified on vid) for egress port s, with its IVL kind when s is the
 * IVL port (else 0). Returns false when the port's VLAN rules do not let it receive the
 * frame (not a discard for a flood). Inlined: it is most of the per-frame work of a
 * unicast. */
static inline __attribute__((always_inline)) bool egress(struct zvs_switch *sw,
                                                         struct zvs_swport *s,
                                                         const struct zvs_frame *f,
                                                         struct burst *memo, uint8_t ivl)
{
    struct zvs_port *p = s->port;
    enum zvs_tag_op op = ZVS_TAG_KEEP;  /* VLAN UNAWARE: bytes as they are */

    if (sw->params.vlan.aware) {
        uint16_t bytes_vid = (f->flags & ZVS_FF_TAGGED) ? (zvs_be16(f->data + 14) & 0x0FFF) : 0;
        if (!zvs_vlan_egress(&sw->params.vlan, s->is_guest ? &s->guest.vlan : NULL, f->vid,
                             (f->flags & ZVS_FF_TAGGED) != 0, bytes_vid, &op))
            return false;
    }
    if (!p->carrier) {
        if (s->in_group) {
            if (egress_survivor(sw, f, p->index))
                return true;
        }
        drop_frame(p, false, ZVS_DROP_LINK_DOWN, f);
        return true;
    }
    uint32_t out_len = zvs_frame_out_len(f, op);
    bool out_tagged = op == ZVS_TAG_PUSH || op == ZVS_TAG_REWRITE ||
                      (op == ZVS_TAG_KEEP && (f->flags & ZVS_FF_TAGGED));
    uint32_t frame_max = p->mtu + ZVS_ETH_HLEN + (out_tagged ? ZVS_VLAN_HLEN : 0);
    uint64_t wire_len = out_len;
    if (__builtin_expect(f->vnet.gso_type != ZVS_VNET_GSO_NONE, 0)) {
        if (!egress_takes_gso(p, f->vnet.gso_type) || out_len > p->max_gso)
            goto fixup;
        /* crosses whole: counted as the segments the egress's kernel or NIC will cut */
        struct zvs_wire w = zvs_wire_gso(f, out_len);
        wire_len = w.bytes;
        s->pend_extra += w.frames - 1;
    } else if (out_len > frame_max ||
               ((f->vnet.flags & ZVS_VNET_F_NEEDS_CSUM) && !(p->caps & ZVS_CAP_CSUM))) {
        goto fixup;
    }
    if (memo)
        memo_fill(memo, f, s, op, frame_max - (out_len - f->len));
    queue_tx(sw, s, f, op, wire_len, ivl);
    return true;

fixup:;
    struct zvs_tx tx = { .f = f, .tag_op = (uint8_t)op, .ivl = ivl, .vid = f->vid };
    egress_fixup(sw, s, &tx, out_len, frame_max);
    return true;
}

/* A group member lost its link and the group has not moved its buckets yet (the carrier
 * event is on its way): the frame goes to a survivor. Out of line: a failure path. */
static __attribute__((noinline)) bool egress_survivor(struct zvs_switch *sw,
                                                      const struct zvs_frame *f, uint16_t avoid)
{
    int to = group_survivor(sw, avoid);
    if (to < 0)
        return false;
    sw->stats.resteered++;
    return egress(sw, &sw->sp[to], f, NULL, 0);
}

/* Forward frames[i..n) while the header memo answers them: returns the index of the
 * first frame it does not answer. A frame it answers is in one piece, has no offload
 * metadata to act on, is no longer than the memo's bound and carries the memo's 14 header
 * bytes (the length is tested first, so a runt's bytes are never read): forward_one
 * would decide for it what it decided for the memo's frame, and the frame is classified,
 * counted and queued as forward_one would. The egress's carrier is read for every frame,
 * as egress() does (a backend's failed write may take it down); the egress is on the
 * active list since the memo's frame was queued. The memo's fields and the egress's queue
 * length are held in locals for the run (nothing else changes them in it): the queue's
 * bytes and the group bucket's load are added once per write and once per run, the same
 * sums a frame at a time would make. */
static int memo_run(struct zvs_switch *sw, const struct hdr_memo *m, struct zvs_frame *frames,
                    int i, int n, uint16_t in_port, uint64_t *bytes)
{
    const uint64_t w0 = m->w0, w1 = m->w1;
    struct zvs_swport *s = m->out;
    const struct zvs_port *p = s->port;
    const uint32_t lim = m->max_len - ZVS_ETH_HLEN, grow = m->grow;
    const uint16_t vid = m->vid;
    struct zvs_tx tx = { .f = NULL, .tag_op = m->op, .vid = vid };
    struct zvs_frame *f = frames + i, *const end = frames + n;
    uint64_t sum = 0, written = 0;      /* bytes of the run; of them, in pend_bytes */
    uint16_t npend = s->npend, first = npend;   /* the run's frames: pend[first..npend) */

    for (; f < end; f++) {
        uint64_t h0, h1;

        if (f->nfrags != 0 || f->len - ZVS_ETH_HLEN > lim ||
            (f->vnet.gso_type | (f->vnet.flags & ZVS_VNET_F_NEEDS_CSUM)) != 0 || !p->carrier)
            break;
        memcpy(&h0, f->data, 8);
        memcpy(&h1, f->data + 6, 8);
        if (h0 != w0 || h1 != w1)
            break;
        f->in_port = in_port;
        f->vid = vid;
        f->pcp = 0;
        f->flags = 0;
        tx.f = f;
        s->pend[npend++] = tx;
        sum += f->len;
        if (npend == ZVS_BATCH) {
            s->npend = npend;
            s->pend_bytes += sum - written + (uint64_t)(npend - first) * grow;
            written = sum;
            flush_port(sw, s);
            npend = first = s->npend;
        }
    }
    s->npend = npend;
    s->pend_bytes += sum - written + (uint64_t)(npend - first) * grow;
    if (m->bucket)
        *m->bucket += sum;
    *bytes += sum;
    return (int)(f - frames);
}

/* The uplink for an outbound frame: the port group's choice (bucket of the MAC suffix or
 * the UDP source port, or the designated port for broadcast and multicast) while a
 * member distributes, else the active RDEV; -1 when there is none. The map is read once per
 * burst. A group that is an overlay's underlay is the overlay port's to use, not ours. */
static inline int uplink_for(struct zvs_switch *sw, struct burst *b, const struct zvs_frame *f,
                             const uint8_t *hdr)
{
    if (sw->group && !sw->group_underlay) {
        if (!b->map) {
            b->map = zvs_pg_dist_map(sw->group);
            b->hash = sw->group->hash;
            b->bucket_bytes = sw->group->bucket_bytes;
        }
        const struct zvs_pg_map *m = b->map;
        if (m->flood_port != ZVS_PG_NO_PORT) {
            if (hdr[0] & 1)
                return m->flood_port;
            /* UDPPORT reads the frame past the header the memo compares. */
            unsigned bucket = b->hash == ZVS_PG_HASH_UDP_SPORT
                ? zvs_pg_frame_bucket(b->hash, f->data,
                                      f->nfrags ? (uint32_t)f->frags[0].iov_len : f->len)
                : zvs_pg_bucket(b->hash, hdr, hdr + ZVS_ETH_ALEN);
            uint16_t port = m->bucket_port[bucket];
            if (port != ZVS_PG_NO_PORT) {
                b->bucket_bytes[bucket] += f->len;
                b->last_bucket = &b->bucket_bytes[bucket];
                return port;
            }
        }
    }
    return sw->active_uplink;
}

/* A frame for the other systems of the IVL domain, with its kind (ZVS_FIVL_*). */
static void to_ivl(struct zvs_switch *sw, const struct zvs_frame *f, uint8_t ivl)
{
    egress(sw, &sw->sp[sw->ivl_port], f, NULL, ivl);
}

static void flood(struct zvs_switch *sw, struct burst *b, uint16_t in, const struct zvs_frame *f,
                  const uint8_t *hdr, bool from_guest)
{
    sw->stats.floods++;
    if (!(from_guest && sw->params.isolation)) {
        for (uint16_t i = 0; i < sw->nguests; i++) {
            uint16_t g = sw->guests[i];
            if (g != in)
                egress(sw, &sw->sp[g], f, NULL, 0);
        }
        /* the other systems' guests (from an uplink: the partner floods into the
         * channel once, on one member of one system) */
        if (sw->ivl_port >= 0)
            to_ivl(sw, f, ZVS_FIVL_FLOOD | (from_guest ? ZVS_FIVL_GUEST_SRC : 0));
    }
    if (from_guest) {
        int up = uplink_for(sw, b, f, hdr);
        if (up >= 0)
            egress(sw, &sw->sp[up], f, NULL, 0);
        else if (sw->ivl_port >= 0)     /* out of another system's members */
            to_ivl(sw, f, ZVS_FIVL_OUTBOUND | ZVS_FIVL_GUEST_SRC);
    }
}

/* A frame that crossed the IVL, by its kind: OUTBOUND out of the uplink only (none: no
 * uplink), INBOUND to the guest here only, FLOOD to the guests here only; nothing goes
 * back to the IVL. A source the sender marks as its guest is learned on the IVL port, so
 * the answers cross back as INBOUND. Out of line: the IVL carries only what this
 * system's own members could not. */
static __attribute__((noinline)) void from_ivl(struct zvs_switch *sw, struct burst *b,
                                               struct zvs_port *ip, struct zvs_frame *f,
                                               const uint8_t *dst, const uint8_t *src,
                                               uint64_t now)
{
    if (f->ivl & ZVS_FIVL_GUEST_SRC) {
        if (zvs_mac_table_learn(sw->macs, src, f->vid, ip->index, now) == -ENOSPC)
            drop_frame(ip, true, ZVS_DROP_MAC_FULL, f);
        b->mac_known = false;
        b->hdr.out = NULL;
    }
    uint8_t kind = f->ivl & ZVS_FIVL_KIND;
    if (kind == ZVS_FIVL_OUTBOUND) {
        int up = uplink_for(sw, b, f, dst);
        if (up >= 0)
            egress(sw, &sw->sp[up], f, NULL, 0);
        else
            drop_frame(ip, true, ZVS_DROP_NO_UPLINK, f);
        return;
    }
    if (kind == ZVS_FIVL_FLOOD && (dst[0] & 1)) {
        sw->stats.floods++;
        for (uint16_t i = 0; i < sw->nguests; i++)
            egress(sw, &sw->sp[sw->guests[i]], f, NULL, 0);
        return;
    }
    int out = kind ? lookup(sw, b, dst, f->vid) : -1;   /* INBOUND, or FLOOD of a unicast */
    if (out >= 0 && sw->sp[out].is_guest) {
        if (!egress(sw, &sw->sp[out], f, NULL, 0))
            drop_frame(ip, true, ZVS_DROP_VLAN_DENIED, f);
    } else {
        struct zvs_wire w = zvs_wire_of(f, f->len);
        zvs_port_count_drop(ip, true, ZVS_DROP_FILTERED, w.frames);
        b->filtered += w.frames;
        b->filtered_bytes += w.bytes;
    }
}

/* Switches large enough that a burst finds what it touches out of the caches: many
 * stations (the MAC table, zvs_mac_table_is_large) or many guests (each egress's switch
 * state, port and NIC queues: a few KB a guest, 1,000 guests several MB). Below both,
 * everything a burst reads was read by the bursts before it, and loading it ahead is
 * work for nothing (bench_core's three guests). */
#define PREFETCH_MIN_GUESTS 64u

/* Load ahead, in stages, what the burst's frames will read, so that the cache misses of
 * 32 frames overlap instead of stalling one frame after another (1,000 guests, 65,000
 * stations, a frame to each of 32 guests: the MAC table's slots, each egress's switch
 * state and port, then its NIC's queues were two thirds of the scale benchmark's time,
 * tests/bench/README.md). Each stage reads only what the stage before it started to
 * load: 1, the MAC table slots of each frame's destination and of a guest's source other
 * than its own address (learning refreshes it); 2, the destinations' answers, and their
 * switch state (port pointer, queue length, first queue entry); 3, their ports' first
 * line; 4, the port op's level 0 (a NIC's adapter struct), for each frame's destination
 * (once for consecutive frames to one port). Stages 2 to 4 only with ports set (many
 * guests). Only hints: a frame forward_one will refuse or send elsewhere (learning
 * between the two) costs useless loads, never a different decision; the classification
 * is forward_one's own (vlan_ingress; for an untagged frame the burst keeps it, as
 * forward_one would). Out of line: only large switches get here. */
static __attribute__((noinline)) void prefetch_burst(struct zvs_switch *sw,
                                                     struct zvs_swport *in, struct burst *b,
                                                     const struct zvs_frame *frames, int n,
                                                     bool ports)
{
    uint16_t vids[ZVS_BATCH];
    int16_t outs[ZVS_BATCH];
    const uint8_t *keys[2 * ZVS_BATCH];     /* stage 1's addresses, */
    uint16_t key_vids[2 * ZVS_BATCH];       /* their VLANs */
    unsigned nkeys = 0;

    if (n > ZVS_BATCH)
        n = ZVS_BATCH;
    for (int i = 0; i < n; i++) {
        const struct zvs_frame *f = &frames[i];
        uint32_t peek_len = f->nfrags ? (uint32_t)f->frags[0].iov_len : f->len;
        vids[i] = UINT16_MAX;
        if (f->len < ZVS_ETH_MIN_LEN || peek_len < ZVS_ETH_HLEN + ZVS_VLAN_HLEN)
            continue;
        const uint8_t *d = f->data;
        struct zvs_vlan_class cls;
        enum zvs_drop why;
        if (vlan_ingress(sw, in, b, f, zvs_be16(d + 12), peek_len, &cls, &why) < 0)
            continue;
        uint16_t vid = cls.vid;
        if (!(d[0] & 1)) {
            keys[nkeys] = d;
            key_vids[nkeys++] = vid;
            vids[i] = vid;
        }
        if (in->is_guest && !mac_eq(d + ZVS_ETH_ALEN, in->guest.mac)) {
            keys[nkeys] = d + ZVS_ETH_ALEN;
            key_vids[nkeys++] = vid;
        }
    }
    if (nkeys)
        zvs_mac_table_prefetch(sw->macs, keys, key_vids, nkeys);
    if (!ports)
        return;
    for (int i = 0; i < n; i++) {
        outs[i] = -1;
        if (vids[i] == UINT16_MAX)
            continue;
        int out = zvs_mac_table_lookup(sw->macs, frames[i].data, vids[i]);
        if (out < 0 || out == in->port->index)
            continue;
        struct zvs_swport *e = &sw->sp[out];
        __builtin_prefetch(&e->port, 0, 3);
        __builtin_prefetch(&e->npend, 1, 3);
        __builtin_prefetch(&e->pend[0], 1, 3);
        outs[i] = (int16_t)out;
    }
    for (int i = 0; i < n; i++)
        if (outs[i] >= 0 && sw->sp[outs[i]].port)
            __builtin_prefetch(sw->sp[outs[i]].port, 0, 3);
    for (int i = 0; i < n; i++) {
        if (outs[i] < 0 || (i > 0 && outs[i] == outs[i - 1]))
            continue;
        struct zvs_port *p = sw->sp[outs[i]].port;
        if (p && p->ops->prefetch)
            p->ops->prefetch(p, 0);
    }
}

/* Classify and forward one frame; frames for no guest of ours count in b->filtered. */
static void forward_one(struct zvs_switch *sw, struct zvs_swport *in, struct zvs_frame *f,
                        uint64_t now, struct burst *b)
{
    struct zvs_port *ip = in->port;
    uint8_t hdr[16];                    /* the header as read once (see memo_fill) */
    const uint8_t *dst = hdr, *src = hdr + ZVS_ETH_ALEN;
    struct zvs_vlan_class cls;
    enum zvs_drop why;

    /* Headers are parsed from the first piece: it must hold the whole MAC header and tag. */
    bool short_first = f->nfrags && f->frags[0].iov_len < ZVS_ETH_HLEN + ZVS_VLAN_HLEN;
    if (f->len < ZVS_ETH_MIN_LEN || short_first) {
        drop_frame(ip, true, ZVS_DROP_RUNT, f);
        return;
    }
    memcpy(&b->cur_w0, f->data, 8);
    memcpy(&b->cur_w1, f->data + 6, 8);
    memcpy(hdr, &b->cur_w0, 8);
    memcpy(hdr + 6, &b->cur_w1, 8);
    uint16_t ethertype = zvs_be16(hdr + 12);
    bool slow = ethertype == ZVS_ETHERTYPE_SLOW || mac_eq(dst, slow_dst);
    if (__builtin_expect(slow, 0)) {
        if (!in->is_guest && sw->slow_fn && sw->nslow < ZVS_BATCH)
            sw->slowq[sw->nslow++] = f;
        else
            drop_frame(ip, true, ZVS_DROP_SLOW_PROTO, f);
        return;
    }
    if (__builtin_expect(!in->collecting, 0) && !in->is_guest) {
        drop_frame(ip, true, ZVS_DROP_NOT_COLLECTING, f);
        return;
    }
    if (src[0] & 1) {
        drop_frame(ip, true, ZVS_DROP_BAD_SRC, f);
        return;
    }
    uint32_t hdr_room = ethertype == ZVS_ETHERTYPE_VLAN ? ZVS_ETH_HLEN + ZVS_VLAN_HLEN : ZVS_ETH_HLEN;
    if (f->vnet.gso_type == ZVS_VNET_GSO_NONE && f->len > ip->mtu + hdr_room) {
        drop_frame(ip, true, ZVS_DROP_OVERSIZE, f);
        return;
    }
    uint32_t peek_len = f->nfrags ? (uint32_t)f->frags[0].iov_len : f->len;
    if (vlan_ingress(sw, in, b, f, ethertype, peek_len, &cls, &why) < 0) {
        drop_frame(ip, true, why, f);
        return;
    }
    f->vid = cls.vid;
    f->pcp = cls.pcp;
    f->flags = (uint8_t)((cls.tagged ? ZVS_FF_TAGGED : 0) | ((dst[0] & 1) ? ZVS_FF_MCAST : 0));
    /* A decision the header memo may keep: untagged bytes (the header's 14 bytes are all
     * the classification read), in one piece, no offload metadata, no learning. */
    struct burst *memo = !cls.tagged && cls.pcp == 0 && ethertype != ZVS_ETHERTYPE_VLAN &&
                         ethertype != ZVS_ETHERTYPE_QINQ && f->nfrags == 0 &&
                         f->vnet.gso_type == ZVS_VNET_GSO_NONE &&
                         !(f->vnet.flags & ZVS_VNET_F_NEEDS_CSUM) ? b : NULL;
    b->in_max = ip->mtu + hdr_room;
    b->last_bucket = NULL;              /* uplink_for sets it for this frame */
    if (__builtin_expect(in->is_ivl, 0)) {
        from_ivl(sw, b, ip, f, dst, src, now);
        return;
    }

    if (in->is_guest) {
        if (!mac_eq(src, in->guest.mac)) {
            if (in->guest.macprotect) {
                drop_frame(ip, true, ZVS_DROP_MACPROTECT, f);
                return;
            }
            if (zvs_mac_table_learn(sw->macs, src, f->vid, ip->index, now) == -ENOSPC)
                drop_frame(ip, true, ZVS_DROP_MAC_FULL, f);
            b->mac_known = false;       /* the table may have changed */
            b->hdr.out = NULL;
            memo = NULL;                /* and the next frame must learn again */
        }
        if (dst[0] & 1) {
            flood(sw, b, ip->index, f, dst, true);
            return;
        }
        int out = lookup(sw, b, dst, f->vid);
        if (out == ip->index) {
            drop_frame(ip, true, ZVS_DROP_SAME_PORT, f);
        } else if (out >= 0) {
            if (sw->params.isolation)
                drop_frame(ip, true, ZVS_DROP_ISOLATION, f);
            else if (__builtin_expect(out == sw->ivl_port, 0))
                to_ivl(sw, f, ZVS_FIVL_INBOUND | ZVS_FIVL_GUEST_SRC);   /* another system's guest */
            else if (!egress(sw, &sw->sp[out], f, memo, 0))
                drop_frame(ip, true, ZVS_DROP_VLAN_DENIED, f);
        } else {
            int up = uplink_for(sw, b, f, dst);
            if (up >= 0)        /* a bucket by UDP port is no decision for the header */
                egress(sw, &sw->sp[up], f, b->hash == ZVS_PG_HASH_UDP_SPORT ? NULL : memo, 0);
            else if (sw->ivl_port >= 0)   /* no member of ours distributes: another's */
                to_ivl(sw, f, ZVS_FIVL_OUTBOUND | ZVS_FIVL_GUEST_SRC);
            else
                drop_frame(ip, true, ZVS_DROP_NO_UPLINK, f);
        }
        return;
    }
    /* From an uplink. */
    if (dst[0] & 1) {
        flood(sw, b, ip->index, f, dst, false);
        return;
    }
    int out = lookup(sw, b, dst, f->vid);
    if (out >= 0 && sw->sp[out].is_guest) {
        if (!egress(sw, &sw->sp[out], f, memo, 0))
            drop_frame(ip, true, ZVS_DROP_VLAN_DENIED, f);
    } else if (sw->ivl_port >= 0) {
        /* another system's guest (learned), or one we do not know: the system that has it
         * delivers it, the others filter it */
        to_ivl(sw, f, out == sw->ivl_port ? ZVS_FIVL_INBOUND : ZVS_FIVL_FLOOD);
    } else {
        struct zvs_wire w = zvs_wire_of(f, f->len);
        zvs_port_count_drop(ip, true, ZVS_DROP_FILTERED, w.frames);
        b->filtered += w.frames;
        b->filtered_bytes += w.bytes;
    }
}

/* Egresses a burst of a switch with many guests must feed before their state is loaded
 * ahead, level by level (prefetch_egresses). A burst that feeds a few ports finds their
 * state in the cache the next time too; one that feeds many (each frame of it to another
 * of 1,000 guests) finds it cold, and paid port by port each miss of a chain (the NIC's
 * adapter struct, then the buffer list it points at, then the buffer) stalls the whole
 * path. */
#define PREFETCH_MIN_EGRESS 8u

/* Levels 1 and 2 of the port op's hint for every egress of the burst, one level for all
 * of them before the next (level 0 ran in prefetch_burst for the destinations it found),
 * so each level's misses overlap across the ports. Out of line: only wide bursts of
 * switches with many guests get here. */
static __attribute__((noinline)) void prefetch_egresses(struct zvs_switch *sw)
{
    for (unsigned level = 1; level <= 2; level++)
        for (uint16_t i = 0; i < sw->nactive; i++) {
            struct zvs_port *p = sw->sp[sw->active[i]].port;
            if (p->ops->prefetch)
                p->ops->prefetch(p, level);
        }
}

/* After the burst: its Slow Protocols frames to the handler, in the order they came. The
 * queue is emptied first, so a handler that fed frames to the switch would start a queue
 * of its own. A handler may take itself away (the group's release): the frames left are
 * then counted as discarded, as they would have been had they come after it. Out of
 * line: LACPDUs and Markers are a few a second. */
static __attribute__((noinline)) void deliver_slow(struct zvs_switch *sw, struct zvs_port *in,
                                                   uint64_t now)
{
    const struct zvs_frame *q[ZVS_BATCH];
    unsigned n = sw->nslow;

    memcpy(q, sw->slowq, n * sizeof(q[0]));
    sw->nslow = 0;
    for (unsigned i = 0; i < n; i++) {
        if (sw->slow_fn)
            sw->slow_fn(sw->slow_arg, in, q[i], now);
        else
            drop_frame(in, true, ZVS_DROP_SLOW_PROTO, q[i]);
    }
}

void zvs_switch_input(struct zvs_switch *sw, struct zvs_port *in, struct zvs_frame *frames,
                      int n, uint64_t now)
{
    struct zvs_swport *s = &sw->sp[in->index];
    struct burst b = { .filtered = 0 };
    uint64_t bytes = 0, extra = 0;

    bool ports = false;                 /* the pass ahead loaded the egresses' state */
    if (n > 1) {
        ports = sw->nguests >= PREFETCH_MIN_GUESTS;
        if (ports || zvs_mac_table_is_large(sw->macs))
            prefetch_burst(sw, s, &b, frames, n, ports);
    }
    for (int i = 0; i < n; i++) {
        if (b.hdr.out) {
            i = memo_run(sw, &b.hdr, frames, i, n, in->index, &bytes);
            if (i == n)
                break;
        }
        struct zvs_frame *f = &frames[i];
        f->in_port = in->index;
        forward_one(sw, s, f, now, &b);
        uint64_t len = f->len;
        if (__builtin_expect(f->vnet.gso_type != ZVS_VNET_GSO_NONE, 0)) {
            struct zvs_wire w = zvs_wire_gso(f, f->len);
            len = w.bytes;
            extra += w.frames - 1;
        }
        bytes += len;
    }
    zvs_ctr_add(&in->ctr.in_packets, (uint64_t)n + extra - b.filtered);
    zvs_ctr_add(&in->ctr.in_bytes, bytes - b.filtered_bytes);

    if (ports && sw->nactive >= PREFETCH_MIN_EGRESS)
        prefetch_egresses(sw);
    for (uint16_t i = 0; i < sw->nactive; i++) {
        struct zvs_swport *e = &sw->sp[sw->active[i]];
        if (e->npend)                   /* 0: written when its queue filled (ZVS_BATCH) */
            flush_port(sw, e);
        if (e->port->ops->flush)
            e->port->ops->flush(e->port);
        e->active = false;
    }
    sw->nactive = 0;
    sw->stats.bursts++;
    sw->stats.frames += (uint64_t)n;
    if (__builtin_expect(sw->nslow != 0, 0))
        deliver_slow(sw, in, now);
}

int zvs_switch_poll(struct zvs_switch *sw, struct zvs_port *port, uint64_t now)
{
    struct zvs_frame frames[ZVS_BATCH];
    int n = port->ops->rx(port, frames, ZVS_BATCH);
    if (n <= 0)
        return n;
    zvs_switch_input(sw, port, frames, n, now);
    port->ops->rx_release(port, frames, n);
    return n;
}
