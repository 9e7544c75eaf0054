/* ivl_port: the IVL port's backend (ivl_port.h has what it does and why). */
#include "backends/ivl_port.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ivl/frame.h"
#include "ivl/state_msg.h"

#define OWNERS     1024                 /* remote guests' MACs remembered (direct-mapped) */
#define MAX_COPIES (ZVS_IVL_MAX_SYSTEMS - 1)            /* one per other system */
#define SLOT_LEN   (ZVS_IVL_OUTER_LEN + ZVS_IVL_INNER_MAX)

struct owner {
    uint8_t mac[6];
    uint8_t index;                      /* 0: empty */
};

struct ivl_port {
    struct zvs_port            port;    /* first: the switch sees this */
    struct zvs_port           *lower;
    uint8_t                    self;
    char                       domain;
    uint8_t                    mac[6];
    uint8_t                    present, distributing;   /* other systems, bit per index */
    struct zvs_ivl_link        tx[ZVS_IVL_MAX_SYSTEMS + 1];  /* per destination */
    struct zvs_ivl_link        rx;
    uint64_t                   no_system, not_ours, no_guest_known;
    struct owner               owner[OWNERS];
    struct zvs_frame           lower_rx[ZVS_BATCH];     /* held until rx_release */
    int                        nlower;
    uint8_t                   *inner;                   /* one inner frame, emitted */
    uint8_t                   *slots;                   /* wrapped frames of one tx call */
    struct zvs_frame           wf[ZVS_BATCH * MAX_COPIES];
    struct zvs_tx              wtx[ZVS_BATCH * MAX_COPIES];
    struct {                            /* each wrapped copy's sequence, to give back */
        uint8_t  dst, kind;
        uint32_t inner_len;
    }                          wseq[ZVS_BATCH * MAX_COPIES];
};

static const struct zvs_port_ops ivl_ops;

static struct ivl_port *ip_of(const struct zvs_port *p)
{
    return (struct ivl_port *)p;
}

void zvs_ivl_port_mac(char domain, uint8_t index, uint8_t mac[6])
{
    const uint8_t m[6] = { 0x02, 'I', 'V', 'L', (uint8_t)domain, index };
    memcpy(mac, m, 6);
}

static unsigned owner_slot(const uint8_t *mac)
{
    uint32_t h = (uint32_t)mac[2] << 24 | (uint32_t)mac[3] << 16 | (uint32_t)mac[4] << 8 |
                 mac[5];
    return (h * 2654435761u) >> 22;     /* 10 bits: OWNERS */
}

static void owner_learn(struct ivl_port *s, const uint8_t *mac, uint8_t index)
{
    struct owner *o = &s->owner[owner_slot(mac)];
    memcpy(o->mac, mac, 6);
    o->index = index;
}

static uint8_t owner_of(const struct ivl_port *s, const uint8_t *mac)
{
    const struct owner *o = &s->owner[owner_slot(mac)];
    return o->index && memcmp(o->mac, mac, 6) == 0 ? o->index : 0;
}

/* The systems a frame of `kind` for `dst` goes to, as a mask of indexes. */
static uint8_t destinations(struct ivl_port *s, uint8_t kind, const uint8_t *dst)
{
    uint8_t others = (uint8_t)(s->present & ~(1u << s->self));
    if (kind == ZVS_FIVL_OUTBOUND) {
        uint8_t d = others & s->distributing;
        return (uint8_t)(d & -d);       /* the lowest index */
    }
    if (kind == ZVS_FIVL_INBOUND) {
        uint8_t k = owner_of(s, dst);
        if (k && (others & (1u << k)))
            return (uint8_t)(1u << k);
        if (others)
            s->no_guest_known++;
        return others;
    }
    return kind == ZVS_FIVL_FLOOD ? others : 0;
}

static uint8_t wire_kind(uint8_t k)
{
    return k == ZVS_FIVL_OUTBOUND ? ZVS_IVL_OUTBOUND
         : k == ZVS_FIVL_INBOUND ? ZVS_IVL_INBOUND : ZVS_IVL_FLOOD;
}

/* The lower port is the IVL device: its counters are what crossed its wire, the wrapped
 * copies (as an OSA's are; the monitor's D6R21 and QUERY read them, zvsd_wire_port), the
 * switch's on this port the inner frames. */
static void count_wire_tx(struct ivl_port *s, int sent, int nw, enum zvs_drop why)
{
    uint64_t bytes = 0;
    for (int j = 0; j < sent; j++)
        bytes += s->wf[j].len;
    zvs_ctr_add(&s->lower->ctr.out_packets, (uint64_t)sent);
    zvs_ctr_add(&s->lower->ctr.out_bytes, bytes);
    if (sent < nw)
        zvs_port_count_drop(s->lower, false, why, (uint64_t)(nw - sent));
}

/* Each frame is wrapped once per system it goes to; an inner frame counts as written
 * when all of its copies were. The switch counts what we return as sent and the rest as
 * discarded with *why (as qdio's deliver does, a count, not a prefix): a frame no system
 * takes is never sent, only a NO_UPLINK discard; when the lower port refused copies in
 * the same call its reason is the one the switch hears (LINK_DOWN must reach it). */
static int ivl_tx(struct zvs_port *p, const struct zvs_tx *txs, int n, enum zvs_drop *why)
{
    struct ivl_port *s = ip_of(p);
    int last[ZVS_BATCH];                /* each frame's last copy, -1: none */
    int nw = 0, nobody = 0;
    if (n > ZVS_BATCH)
        n = ZVS_BATCH;
    for (int i = 0; i < n; i++) {
        last[i] = -1;
        uint8_t kind = txs[i].ivl & ZVS_FIVL_KIND;
        enum zvs_tag_op op = (enum zvs_tag_op)txs[i].tag_op;
        if (zvs_frame_out_len(txs[i].f, op) > ZVS_IVL_INNER_MAX) {
            s->no_system++;             /* larger than a jumbo frame: no system takes it */
            nobody++;
            continue;
        }
        struct zvs_vnet vnet;
        uint32_t len = zvs_frame_emit(txs[i].f, op, txs[i].vid, s->inner, &vnet);
        uint8_t to = len >= 14 ? destinations(s, kind, s->inner) : 0;
        if (!to) {
            s->no_system++;             /* counted here: the IVL has nobody to take it */
            nobody++;
            continue;
        }
        uint8_t flags = (txs[i].ivl & ZVS_FIVL_GUEST_SRC) ? ZVS_IVL_HF_GUEST_SRC : 0;
        for (uint8_t k = 1; k <= ZVS_IVL_MAX_SYSTEMS; k++) {
            if (!(to & (1u << k)))
                continue;
            uint8_t dst[6];
            zvs_ivl_port_mac(s->domain, k, dst);
            uint8_t *out = s->slots + (size_t)nw * SLOT_LEN;
            int w = zvs_ivl_link_wrap_flags(&s->tx[k], wire_kind(kind), flags, dst, s->inner,
                                            len, out, SLOT_LEN);
            if (w < 0)
                break;
            s->wf[nw] = (struct zvs_frame){ .data = out, .len = (uint32_t)w };
            s->wtx[nw] = (struct zvs_tx){ .f = &s->wf[nw], .tag_op = ZVS_TAG_KEEP };
            s->wseq[nw].dst = k;
            s->wseq[nw].kind = wire_kind(kind);
            s->wseq[nw].inner_len = len;
            last[i] = nw++;
        }
    }
    int sent = nw ? s->lower->ops->tx(s->lower, s->wtx, nw, why) : 0;
    if (sent < 0)
        sent = 0;
    /* The lower port writes a prefix: each copy past it is the latest of its destination's
     * sequence, given back (latest first) so the receiver sees no gap for it. */
    for (int j = nw - 1; j >= sent; j--)
        zvs_ivl_link_unsend(&s->tx[s->wseq[j].dst], s->wseq[j].kind, s->wseq[j].inner_len);
    count_wire_tx(s, sent, nw, *why);
    int done = 0;
    for (int i = 0; i < n; i++)
        done += last[i] >= 0 && last[i] < sent;
    if (nobody && done + nobody == n)
        *why = ZVS_DROP_NO_UPLINK;      /* the only frames not written: nobody took them */
    return done;
}

static int ivl_rx(struct zvs_port *p, struct zvs_frame *out, int max)
{
    struct ivl_port *s = ip_of(p);
    if (max > ZVS_BATCH)
        max = ZVS_BATCH;
    s->nlower = s->lower->ops->rx(s->lower, s->lower_rx, max);
    if (s->nlower <= 0) {
        int rc = s->nlower;
        s->nlower = 0;
        return rc;
    }
    int k = 0;
    for (int i = 0; i < s->nlower; i++) {
        const struct zvs_frame *f = &s->lower_rx[i];
        if (f->nfrags || f->len < 14) {
            s->rx.st.rx_bad[ZVS_IVL_FE_SHORT]++;
            continue;
        }
        if (memcmp(f->data, s->mac, 6) != 0) {
            s->not_ours++;              /* another system's (a bridge that floods) */
            continue;
        }
        /* for our MAC: it crossed the device's wire, refused below or not (as an OSA
         * counts what passed its address filter) */
        zvs_ctr_add(&s->lower->ctr.in_packets, 1);
        zvs_ctr_add(&s->lower->ctr.in_bytes, f->len);
        struct zvs_ivl_hdr h;
        const uint8_t *inner;
        size_t inner_len;
        if (zvs_ivl_link_unwrap(&s->rx, f->data, f->len, &h, &inner, &inner_len) < 0)
            continue;                   /* counted by reason */
        uint8_t ivl = h.kind == ZVS_IVL_OUTBOUND ? ZVS_FIVL_OUTBOUND
                    : h.kind == ZVS_IVL_INBOUND ? ZVS_FIVL_INBOUND : ZVS_FIVL_FLOOD;
        if (h.flags & ZVS_IVL_HF_GUEST_SRC) {
            ivl |= ZVS_FIVL_GUEST_SRC;
            owner_learn(s, inner + 6, h.origin);
        }
        out[k++] = (struct zvs_frame){ .data = inner, .len = (uint32_t)inner_len, .ivl = ivl,
                                       .cookie = f->cookie };
    }
    if (k == 0) {                       /* nothing for the switch: no release will come */
        s->lower->ops->rx_release(s->lower, s->lower_rx, s->nlower);
        s->nlower = 0;
    }
    return k;
}

static void ivl_rx_release(struct zvs_port *p, struct zvs_frame *frames, int n)
{
    struct ivl_port *s = ip_of(p);
    if (s->nlower)
        s->lower->ops->rx_release(s->lower, s->lower_rx, s->nlower);
    s->nlower = 0;
}

static void ivl_flush(struct zvs_port *p)
{
    struct zvs_port *lo = ip_of(p)->lower;
    if (lo->ops->flush)
        lo->ops->flush(lo);
}

static void ivl_destroy(struct zvs_port *p)
{
    struct ivl_port *s = ip_of(p);
    if (s->lower && s->lower->ops->destroy)
        s->lower->ops->destroy(s->lower);
    free(s->inner);
    free(s->slots);
    free(s);
}

static int ivl_fd(const struct zvs_port *p)
{
    const struct zvs_port *lo = ip_of(p)->lower;
    return lo->ops->fd ? lo->ops->fd(lo) : -1;
}

static int ivl_link_event(struct zvs_port *p, int ifindex, bool carrier, bool exists)
{
    struct zvs_port *lo = ip_of(p)->lower;
    int rc = lo->ops->link_event ? lo->ops->link_event(lo, ifindex, carrier, exists) : 0;
    p->carrier = lo->carrier;
    return rc;
}

static int ivl_link_poll(struct zvs_port *p, struct zvs_port_link_event *ev)
{
    struct zvs_port *lo = ip_of(p)->lower;
    return lo->ops->link_poll ? lo->ops->link_poll(lo, ev) : 0;
}

static int ivl_carrier_now(struct zvs_port *p)
{
    struct zvs_port *lo = ip_of(p)->lower;
    return lo->ops->carrier_now ? lo->ops->carrier_now(lo) : lo->carrier;
}

static const struct zvs_port_ops ivl_ops = {
    .kind = "ivl", .tx = ivl_tx, .rx = ivl_rx, .rx_release = ivl_rx_release,
    .flush = ivl_flush, .destroy = ivl_destroy, .fd = ivl_fd, .link_event = ivl_link_event,
    .link_poll = ivl_link_poll, .carrier_now = ivl_carrier_now,
};

struct zvs_port *zvs_ivl_port_open(struct zvs_port *lower, const struct zvs_ivl_port_params *p,
                                   int *err)
{
    struct ivl_port *s = NULL;
    *err = -EINVAL;
    if (!lower || !p || p->self < 1 || p->self > ZVS_IVL_MAX_SYSTEMS || p->domain < 'A' ||
        p->domain > 'H' || lower->mtu <= ZVS_IVL_OUTER_LEN)
        goto fail;
    *err = -ENOMEM;
    s = calloc(1, sizeof *s);
    if (!s)
        goto fail;
    s->inner = malloc(ZVS_IVL_INNER_MAX);
    s->slots = malloc((size_t)SLOT_LEN * ZVS_BATCH * MAX_COPIES);
    if (!s->inner || !s->slots)
        goto fail;
    s->lower = lower;
    s->self = p->self;
    s->domain = p->domain;
    zvs_ivl_port_mac(p->domain, p->self, s->mac);
    for (unsigned k = 0; k <= ZVS_IVL_MAX_SYSTEMS; k++)
        zvs_ivl_link_init(&s->tx[k], p->self, p->vswitch, s->mac);
    zvs_ivl_link_init(&s->rx, p->self, p->vswitch, s->mac);
    s->port = (struct zvs_port){ .role = ZVS_PORT_UPLINK, .ops = &ivl_ops, .backend = s,
                                 .caps = 0, .mtu = lower->mtu - ZVS_IVL_OUTER_LEN,
                                 .carrier = lower->carrier };
    snprintf(s->port.name, sizeof s->port.name, "%s", lower->name);
    *err = 0;
    return &s->port;
fail:
    if (s) {
        free(s->inner);
        free(s->slots);
        free(s);
    }
    if (lower && lower->ops->destroy)
        lower->ops->destroy(lower);
    return NULL;
}

bool zvs_ivl_port_is(const struct zvs_port *p)
{
    return p && p->ops == &ivl_ops;
}

struct zvs_port *zvs_ivl_port_lower(const struct zvs_port *p)
{
    return zvs_ivl_port_is(p) ? ip_of(p)->lower : NULL;
}

void zvs_ivl_port_set_view(struct zvs_port *p, uint8_t present, uint8_t distributing)
{
    struct ivl_port *s = ip_of(p);
    uint8_t gone = (uint8_t)(s->present & ~present);
    for (uint8_t k = 1; k <= ZVS_IVL_MAX_SYSTEMS; k++)
        if (gone & (1u << k))
            zvs_ivl_link_forget(&s->rx, k);
    s->present = present;
    s->distributing = distributing;
}

void zvs_ivl_port_stats(const struct zvs_port *p, struct zvs_ivl_port_stats *out)
{
    const struct ivl_port *s = ip_of(p);
    *out = (struct zvs_ivl_port_stats){ .link = s->rx.st, .no_system = s->no_system,
                                        .not_ours = s->not_ours,
                                        .no_guest_known = s->no_guest_known };
    for (unsigned k = 0; k <= ZVS_IVL_MAX_SYSTEMS; k++)
        for (unsigned t = 0; t < ZVS_IVL_KINDS; t++) {
            out->link.tx_frames[t] += s->tx[k].st.tx_frames[t];
            out->link.tx_bytes[t] += s->tx[k].st.tx_bytes[t];
        }
}
