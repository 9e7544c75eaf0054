/* The VXLAN uplink port: the switch's frames through a VTEP onto an underlay port; see
 * uplink_vxlan.h. */
#include "overlay/uplink_vxlan.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dataplane/wire.h"

#define TX_MAX   (ZVS_BATCH * ZVS_VTEP_MAX_REMOTES)     /* copies of one tx chunk */
#define IOV_MAX_PER_COPY ZVS_FRAME_PIECES_MAX          /* header + the inner's iovecs */

struct vx {
    struct zvs_port      port;
    struct zvs_vtep     *vtep;
    struct zvs_port     *under;
    struct zvs_vtep_tx  *tx;                            /* [TX_MAX] encapsulated copies */
    struct zvs_tx       *utx;                           /* [TX_MAX] their underlay writes */
    struct zvs_frame    *uframe;                        /* [TX_MAX] */
    struct iovec        *iov;                           /* [TX_MAX * IOV_MAX_PER_COPY] */
    uint8_t            (*tag)[4];                       /* [TX_MAX] tag scratch */
    struct zvs_frame     raw[ZVS_BATCH];                /* the underlay burst held by rx */
    int                  nraw;
    /* A decapsulated frame of a VLAN other than the untagged one, as the switch must
     * classify it: its MAC addresses and the tag here, the rest in the underlay's bytes. */
    uint8_t              rxtag[ZVS_BATCH][ZVS_ETH_HLEN + ZVS_VLAN_HLEN];
    struct iovec         rxiov[ZVS_BATCH][2];
    uint64_t             next_tick;                     /* the VTEP's next aging pass */
    uint64_t           (*now)(void *arg);               /* the owner's clock; NULL: ours */
    void                *now_arg;
    uint16_t             untagged_vid;                  /* the VTEP's config's */
};

static const struct zvs_port_ops vx_ops;

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static struct vx *vx_of(const struct zvs_port *p)
{
    return (struct vx *)p->backend;
}

/* Age the VTEP's tables when a second has passed since the last pass. */
static void age_due(struct vx *x, uint64_t now)
{
    if (now >= x->next_tick) {
        zvs_vtep_tick(x->vtep, now);
        x->next_tick = now + 1000000000u;
    }
}

/* The clock (the owner's, or CLOCK_MONOTONIC), read once per call, also ages the VTEP's
 * tables about once a second: the port needs no timer of its owner's. */
static uint64_t vx_now(struct vx *x)
{
    uint64_t now = x->now ? x->now(x->now_arg) : now_ns();

    age_due(x, now);
    return now;
}

/* Write n frames on the underlay, counting them on its port as the switch would. */
static void under_write(struct vx *x, const struct zvs_tx *txs, int n)
{
    struct zvs_port *u = x->under;

    for (int done = 0; done < n;) {
        int c = n - done > ZVS_BATCH ? ZVS_BATCH : n - done;
        enum zvs_drop why = ZVS_DROP_TX_FAIL;
        int sent = u->ops->tx(u, txs + done, c, &why);

        if (sent < 0)
            sent = 0;
        for (int i = 0; i < c; i++) {
            struct zvs_wire w = zvs_wire_of(txs[done + i].f, txs[done + i].f->len);

            if (i < sent) {
                zvs_ctr_add(&u->ctr.out_packets, w.frames);
                zvs_ctr_add(&u->ctr.out_bytes, w.bytes);
            } else {
                zvs_port_count_drop(u, false, why, w.frames);
            }
        }
        done += c;
    }
    if (u->ops->flush)
        u->ops->flush(u);
}

/* The VTEP's own frames (ARP, Neighbor Discovery), contiguous. */
static void send_ctl(struct vx *x, const struct zvs_vtep_ctl *ctl)
{
    struct zvs_frame f[ZVS_VTEP_CTL_MAX];
    struct zvs_tx t[ZVS_VTEP_CTL_MAX];

    for (unsigned i = 0; i < ctl->n; i++) {
        f[i] = (struct zvs_frame){ .data = ctl->frame[i], .len = ctl->len[i],
                                   .flags = ZVS_FF_MCAST };
        t[i] = (struct zvs_tx){ .f = &f[i], .tag_op = ZVS_TAG_KEEP };
    }
    if (ctl->n)
        under_write(x, t, (int)ctl->n);
}

/* One encapsulated copy as a scattered frame: the header, then the inner frame's bytes
 * as they are (the tag removed through zvs_frame_iov, nothing copied). A frame from a
 * QDIO buffer may be ZVS_MAX_FRAGS pieces (any frame, not only a super-frame: a guest
 * may spread 1,400 bytes over 16 entries), so a copy is up to ZVS_FRAME_PIECES_MAX,
 * which every underlay's write and the frame functions take (dataplane/frame.h). */
static bool copy_frame(struct vx *x, int k, const struct zvs_frame *inner)
{
    struct zvs_vtep_tx *t = &x->tx[k];
    struct iovec *iov = &x->iov[(size_t)k * IOV_MAX_PER_COPY];
    int n;

    iov[0] = (struct iovec){ .iov_base = t->hdr, .iov_len = t->hdr_len };
    n = zvs_frame_iov(inner, (enum zvs_tag_op)t->tag_op, 0, x->tag[k], iov + 1,
                      IOV_MAX_PER_COPY - 1);
    if (n < 0)
        return false;
    x->uframe[k] = (struct zvs_frame){ .data = t->hdr, .len = t->len, .nfrags = (uint16_t)(n + 1),
                                       .frags = iov, .vnet = t->vnet };
    x->utx[k] = (struct zvs_tx){ .f = &x->uframe[k], .tag_op = ZVS_TAG_KEEP };
    return true;
}

static int vx_tx(struct zvs_port *p, const struct zvs_tx *txs, int n, enum zvs_drop *why)
{
    struct vx *x = vx_of(p);
    uint64_t now = vx_now(x);

    if (!x->under->carrier) {
        *why = ZVS_DROP_LINK_DOWN;
        return 0;
    }
    for (int done = 0; done < n;) {
        int c = n - done > ZVS_BATCH ? ZVS_BATCH : n - done;
        struct zvs_frame in[ZVS_BATCH];
        struct zvs_vtep_ctl ctl = { .n = 0 };
        int k, m = 0;

        for (int i = 0; i < c; i++)
            in[i] = *txs[done + i].f;       /* vid as classified: the VNI's VLAN */
        k = zvs_vtep_encap_burst(x->vtep, in, c, now, x->tx, TX_MAX, &ctl);
        send_ctl(x, &ctl);
        for (int i = 0; i < k; i++) {
            if (m != i)
                x->tx[m] = x->tx[i];    /* close the gap a refused copy left */
            if (copy_frame(x, m, &in[x->tx[m].in_index]))
                m++;
            else
                zvs_port_count_drop(p, false, ZVS_DROP_TX_FAIL, 1);
        }
        under_write(x, x->utx, m);
        done += c;
    }
    return n;
}

static void release_raw(struct vx *x)
{
    if (x->nraw) {
        x->under->ops->rx_release(x->under, x->raw, x->nraw);
        x->nraw = 0;
    }
}

/* Frame i of the burst becomes tagged with its VLAN (the VNI's): the switch classifies
 * an uplink's frames by their bytes, and untagged ones go to the untagged VLAN. The
 * underlay's bytes are not written: the first 18 bytes are the port's own. */
static void push_tag(struct vx *x, int i, struct zvs_frame *f)
{
    uint8_t *h = x->rxtag[i];

    memcpy(h, f->data, 2 * ZVS_ETH_ALEN);
    zvs_put_be16(h + 12, ZVS_ETHERTYPE_VLAN);
    zvs_put_be16(h + 14, f->vid);
    memcpy(h + 16, f->data + 12, 2);
    x->rxiov[i][0] = (struct iovec){ .iov_base = h, .iov_len = sizeof x->rxtag[i] };
    x->rxiov[i][1] = (struct iovec){ .iov_base = (void *)(uintptr_t)(f->data + ZVS_ETH_HLEN),
                                     .iov_len = f->len - ZVS_ETH_HLEN };
    f->data = h;
    f->len += ZVS_VLAN_HLEN;
    f->nfrags = 2;
    f->frags = x->rxiov[i];
    if (f->vnet.flags & ZVS_VNET_F_NEEDS_CSUM)
        f->vnet.csum_start += ZVS_VLAN_HLEN;
    if (f->vnet.gso_type != ZVS_VNET_GSO_NONE)
        f->vnet.hdr_len += ZVS_VLAN_HLEN;
}

static int vx_rx(struct zvs_port *p, struct zvs_frame *out, int max)
{
    struct vx *x = vx_of(p);
    struct zvs_vtep_ctl ctl = { .n = 0 };
    int n, k;

    release_raw(x);
    if (max > ZVS_BATCH)
        max = ZVS_BATCH;
    n = x->under->ops->rx(x->under, x->raw, max);
    if (n <= 0)
        return n;
    x->nraw = n;
    for (int i = 0; i < n; i++) {
        struct zvs_wire w = zvs_wire_of(&x->raw[i], x->raw[i].len);

        zvs_ctr_add(&x->under->ctr.in_packets, w.frames);
        zvs_ctr_add(&x->under->ctr.in_bytes, w.bytes);
    }
    k = zvs_vtep_decap_burst(x->vtep, x->raw, n, vx_now(x), out, NULL, &ctl);
    send_ctl(x, &ctl);
    for (int i = 0; i < k; i++) {
        out[i].in_port = p->index;
        if (out[i].vid != ZVS_VID_NONE && out[i].vid != x->untagged_vid)
            push_tag(x, i, &out[i]);
    }
    if (k == 0)
        release_raw(x);                 /* the switch releases nothing it was not given */
    return k;
}

static void vx_rx_release(struct zvs_port *p, struct zvs_frame *frames, int n)
{
    release_raw(vx_of(p));
}

static void vx_flush(struct zvs_port *p)
{
    struct vx *x = vx_of(p);

    if (x->under->ops->flush)
        x->under->ops->flush(x->under);
}

/* The port's own memory (x may be half made). */
static void vx_free(struct vx *x)
{
    if (!x)
        return;
    free(x->tx);
    free(x->utx);
    free(x->uframe);
    free(x->iov);
    free(x->tag);
    free(x);
}

static void vx_destroy(struct zvs_port *p)
{
    struct vx *x = vx_of(p);

    release_raw(x);
    x->under->ops->destroy(x->under);
    zvs_vtep_destroy(x->vtep);
    vx_free(x);
}

static int vx_fd(const struct zvs_port *p)
{
    const struct vx *x = vx_of(p);

    return x->under->ops->fd ? x->under->ops->fd(x->under) : -1;
}

/* The underlay's event: its carrier, and its MTU, which the backend reads again on every
 * event (an operator's `ip link set mtu`): the segment and the VTEP follow it. */
static int vx_link_event(struct zvs_port *p, int ifindex, bool carrier, bool exists)
{
    struct vx *x = vx_of(p);
    int rc = x->under->ops->link_event ? x->under->ops->link_event(x->under, ifindex,
                                                                    carrier, exists) : 0;

    p->carrier = x->under->carrier;
    if (x->under->mtu && x->under->mtu != zvs_vtep_config_of(x->vtep)->underlay_mtu) {
        zvs_vtep_set_underlay_mtu(x->vtep, x->under->mtu);
        p->mtu = zvs_vtep_inner_mtu(x->vtep);   /* 0: the underlay is all overhead */
    }
    return rc;
}

static int vx_link_poll(struct zvs_port *p, struct zvs_port_link_event *ev)
{
    struct vx *x = vx_of(p);

    return x->under->ops->link_poll ? x->under->ops->link_poll(x->under, ev) : 0;
}

static const struct zvs_port_ops vx_ops = {
    .kind = "vxlan",
    .tx = vx_tx,
    .rx = vx_rx,
    .rx_release = vx_rx_release,
    .flush = vx_flush,
    .destroy = vx_destroy,
    .fd = vx_fd,
    .link_event = vx_link_event,
    .link_poll = vx_link_poll,
};

struct zvs_port *zvs_uplink_vxlan_create(const char *name, struct zvs_vtep *vtep,
                                         struct zvs_port *underlay, int *err)
{
    struct vx *x;
    const struct zvs_vtep_config *c;
    unsigned overhead;

    if (!vtep || !underlay) {
        *err = -EINVAL;
        return NULL;
    }
    c = zvs_vtep_config_of(vtep);
    overhead = c->local.family == 6 ? ZVS_VXLAN_OVERHEAD_V6 : ZVS_VXLAN_OVERHEAD_V4;
    if (underlay->mtu <= overhead) {
        *err = -EINVAL;
        return NULL;
    }
    x = calloc(1, sizeof *x);
    if (x) {
        x->tx = calloc(TX_MAX, sizeof *x->tx);
        x->utx = calloc(TX_MAX, sizeof *x->utx);
        x->uframe = calloc(TX_MAX, sizeof *x->uframe);
        x->iov = calloc((size_t)TX_MAX * IOV_MAX_PER_COPY, sizeof *x->iov);
        x->tag = calloc(TX_MAX, sizeof *x->tag);
    }
    if (!x || !x->tx || !x->utx || !x->uframe || !x->iov || !x->tag) {
        vx_free(x);
        *err = -ENOMEM;
        return NULL;
    }
    zvs_vtep_set_underlay_mtu(vtep, underlay->mtu);
    /* An underlay that takes UDP tunnel super-frames over IPv4 (a tap, vxlan_gso.h):
     * the guests' TCP super-frames cross whole, one header each. */
    bool tunnel = c->local.family == 4 && (underlay->caps & ZVS_CAP_UDP_TUNNEL_GSO);
    if (tunnel && underlay->ops->tunnel_gso)    /* off until asked (a tap uplink) */
        tunnel = underlay->ops->tunnel_gso(underlay, true) == 0;
    zvs_vtep_set_tunnel_gso(vtep, tunnel);
    x->vtep = vtep;
    x->under = underlay;
    x->untagged_vid = c->untagged_vid;
    x->port.role = ZVS_PORT_UPLINK;
    snprintf(x->port.name, sizeof x->port.name, "%s", name);
    x->port.ops = &vx_ops;
    x->port.backend = x;
    /* Over IPv4 the inner partial checksum is the frame's only one (vtep.c). */
    x->port.caps = c->local.family == 4 && (underlay->caps & ZVS_CAP_CSUM) ? ZVS_CAP_CSUM : 0;
    x->port.mtu = zvs_vtep_inner_mtu(vtep);
    x->port.max_gso = 0;
    if (tunnel) {
        /* The tunnel offload segments an inner TCP stream only (virtio-net's UDP tunnel
         * GSO): the switch segments a guest's UDP_L4 super-frame first. */
        x->port.caps |= ZVS_CAP_GSO | ZVS_CAP_GSO_TCP_ONLY;
        x->port.max_gso = 65535 - overhead;     /* the encapsulated frame within 64 KiB */
    }
    x->port.carrier = underlay->carrier;
    return &x->port;
}

struct zvs_vtep *zvs_uplink_vxlan_vtep(const struct zvs_port *p)
{
    return zvs_uplink_is_vxlan(p) ? vx_of(p)->vtep : NULL;
}

struct zvs_port *zvs_uplink_vxlan_underlay(const struct zvs_port *p)
{
    return zvs_uplink_is_vxlan(p) ? vx_of(p)->under : NULL;
}

bool zvs_uplink_is_vxlan(const struct zvs_port *p)
{
    return p && p->ops == &vx_ops;
}

void zvs_uplink_vxlan_set_clock(struct zvs_port *p, uint64_t (*now)(void *arg), void *arg)
{
    struct vx *x;

    if (!zvs_uplink_is_vxlan(p))
        return;
    x = vx_of(p);
    x->now = now;
    x->now_arg = arg;
    x->next_tick = 0;                   /* the next call ages on the new clock */
}

void zvs_uplink_vxlan_age(struct zvs_port *p)
{
    if (zvs_uplink_is_vxlan(p))
        vx_now(vx_of(p));
}
