/* A VXLAN underlay over a port group's members; see underlay_group.h. */
#include "overlay/underlay_group.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "dataplane/distribution.h"
#include "dataplane/wire.h"
#include "lag/pgroup.h"

struct ugroup {
    struct zvs_port     port;
    struct zvs_lag     *lag;
    zvs_ugroup_slow_fn  slow;
    void               *slow_arg;
    struct zvs_frame    held[ZVS_BATCH];        /* the member burst rx handed on */
    int                 nheld;
    struct zvs_port    *held_from;              /* its member */
    unsigned            next;                   /* the slot rx reads first */
};

static const struct zvs_port_ops ug_ops;

static struct ugroup *ug_of(const struct zvs_port *p)
{
    return (struct ugroup *)p->backend;
}

/* The member in `slot` while it distributes, else NULL. */
static struct zvs_port *distributing(struct ugroup *u, unsigned slot)
{
    const struct zvs_pg_member *m = slot < ZVS_PG_MAX_MEMBERS
        ? zvs_pgroup_member(zvs_lag_group(u->lag), slot) : NULL;

    return m && m->used && m->distributing ? zvs_lag_member_port(u->lag, slot) : NULL;
}

/* The slot a frame leaves by: the designated member for a group address, else its
 * bucket's (the outer UDP source port's); ZVS_PG_NO_SLOT when none distributes. */
static unsigned frame_slot(struct ugroup *u, const struct zvs_pg_map *m,
                           const struct zvs_frame *f, unsigned *bucket)
{
    struct zvs_pgroup *g = zvs_lag_group(u->lag);
    uint32_t avail = f->nfrags ? (uint32_t)f->frags[0].iov_len : f->len;
    int slot;

    *bucket = ZVS_PG_BUCKETS;
    if (f->data[0] & 1) {
        slot = m->flood_port == ZVS_PG_NO_PORT ? -1 : zvs_pgroup_slot_of(g, m->flood_port);
        return slot < 0 ? ZVS_PG_NO_SLOT : (unsigned)slot;
    }
    *bucket = zvs_pg_frame_bucket(ZVS_PG_HASH_UDP_SPORT, f->data, avail);
    return m->bucket_slot[*bucket];
}

/* Another distributing member than `avoid` with carrier, or NULL. */
static struct zvs_port *survivor(struct ugroup *u, const struct zvs_port *avoid)
{
    for (unsigned s = 0; s < ZVS_PG_MAX_MEMBERS; s++) {
        struct zvs_port *p = distributing(u, s);

        if (p && p != avoid && p->carrier)
            return p;
    }
    return NULL;
}

/* n frames on member p, counted there; those it refused because its link is down go to a
 * survivor (once: `resteered` says this is that once). */
static void member_write(struct ugroup *u, struct zvs_port *p, const struct zvs_tx *txs, int n,
                         bool resteered)
{
    enum zvs_drop why = ZVS_DROP_TX_FAIL;
    int sent = p->carrier ? p->ops->tx(p, txs, n, &why) : 0;

    if (!p->carrier)
        why = ZVS_DROP_LINK_DOWN;
    if (sent < 0)
        sent = 0;
    for (int i = 0; i < sent; i++) {
        struct zvs_wire w = zvs_wire_of(txs[i].f, txs[i].f->len);

        zvs_ctr_add(&p->ctr.out_packets, w.frames);
        zvs_ctr_add(&p->ctr.out_bytes, w.bytes);
    }
    if (p->ops->flush)
        p->ops->flush(p);
    if (sent == n)
        return;
    struct zvs_port *to = why == ZVS_DROP_LINK_DOWN && !resteered ? survivor(u, p) : NULL;

    if (to) {
        member_write(u, to, txs + sent, n - sent, true);
        return;
    }
    for (int i = sent; i < n; i++)
        zvs_port_count_drop(p, false, why, zvs_wire_of(txs[i].f, txs[i].f->len).frames);
}

static int ug_tx(struct zvs_port *p, const struct zvs_tx *txs, int n, enum zvs_drop *why)
{
    struct ugroup *u = ug_of(p);
    struct zvs_pgroup *g = zvs_lag_group(u->lag);
    const struct zvs_pg_map *m = zvs_pgroup_map(g);
    uint64_t *bucket_bytes = zvs_pgroup_bucket_bytes(g);
    struct zvs_tx by[ZVS_PG_MAX_MEMBERS][ZVS_BATCH];
    int nby[ZVS_PG_MAX_MEMBERS] = { 0 };
    int taken = 0;

    if (n > ZVS_BATCH)
        n = ZVS_BATCH;                  /* the caller writes the rest in its next call */
    for (int i = 0; i < n; i++) {
        unsigned bucket, slot = frame_slot(u, m, txs[i].f, &bucket);

        if (slot >= ZVS_PG_MAX_MEMBERS || !zvs_lag_member_port(u->lag, slot))
            break;                      /* nobody distributes: the caller counts the rest */
        if (bucket < ZVS_PG_BUCKETS)
            bucket_bytes[bucket] += txs[i].f->len;
        by[slot][nby[slot]++] = txs[i];
        taken++;
    }
    for (unsigned s = 0; s < ZVS_PG_MAX_MEMBERS; s++)
        if (nby[s])
            member_write(u, zvs_lag_member_port(u->lag, s), by[s], nby[s], false);
    if (taken < n)
        *why = ZVS_DROP_LINK_DOWN;
    return taken;
}

static void release_held(struct ugroup *u)
{
    if (u->nheld) {
        u->held_from->ops->rx_release(u->held_from, u->held, u->nheld);
        u->nheld = 0;
    }
}

static bool member_collecting(struct ugroup *u, const struct zvs_port *p)
{
    struct zvs_pgroup *g = zvs_lag_group(u->lag);
    int slot = zvs_pgroup_slot_of(g, p->index);
    const struct zvs_pg_member *m = slot >= 0 ? zvs_pgroup_member(g, (unsigned)slot) : NULL;

    return m && m->collecting;
}

/* One member's burst: Slow Protocols frames to the group after it, the others out unless
 * the member is not collecting. */
static int member_read(struct ugroup *u, struct zvs_port *p, struct zvs_frame *out, int max)
{
    int n = p->ops->rx(p, u->held, max), k = 0;
    const struct zvs_frame *slow[ZVS_BATCH];
    int nslow = 0;
    bool collecting;

    if (n <= 0)
        return 0;
    u->nheld = n;
    u->held_from = p;
    collecting = member_collecting(u, p);
    for (int i = 0; i < n; i++) {
        const struct zvs_frame *f = &u->held[i];
        struct zvs_wire w = zvs_wire_of(f, f->len);

        zvs_ctr_add(&p->ctr.in_packets, w.frames);
        zvs_ctr_add(&p->ctr.in_bytes, w.bytes);
        if (f->len >= ZVS_ETH_HLEN && zvs_be16(f->data + 12) == ZVS_ETHERTYPE_SLOW)
            slow[nslow++] = f;
        else if (!collecting)
            zvs_port_count_drop(p, true, ZVS_DROP_NOT_COLLECTING, w.frames);
        else
            out[k++] = *f;
    }
    for (int i = 0; i < nslow; i++)
        if (u->slow)
            u->slow(u->slow_arg, p, slow[i]);
    if (k == 0)
        release_held(u);
    return k;
}

static int ug_rx(struct zvs_port *p, struct zvs_frame *out, int max)
{
    struct ugroup *u = ug_of(p);

    release_held(u);
    if (max > ZVS_BATCH)
        max = ZVS_BATCH;
    for (unsigned t = 0; t < ZVS_PG_MAX_MEMBERS; t++) {
        unsigned slot = (u->next + t) % ZVS_PG_MAX_MEMBERS;
        struct zvs_port *m = zvs_lag_member_port(u->lag, slot);
        int k;

        if (!m)
            continue;
        k = member_read(u, m, out, max);
        if (k > 0) {
            u->next = (slot + 1) % ZVS_PG_MAX_MEMBERS;  /* the others first next time */
            return k;
        }
    }
    return 0;
}

static void ug_rx_release(struct zvs_port *p, struct zvs_frame *frames, int n)
{
    release_held(ug_of(p));
}

static void ug_destroy(struct zvs_port *p)
{
    struct ugroup *u = ug_of(p);

    release_held(u);
    free(u);
}

static const struct zvs_port_ops ug_ops = {
    .kind = "vxlan-group",
    .tx = ug_tx,
    .rx = ug_rx,
    .rx_release = ug_rx_release,
    .destroy = ug_destroy,
};

struct zvs_port *zvs_underlay_group_create(const char *name, struct zvs_lag *lag,
                                           zvs_ugroup_slow_fn slow, void *slow_arg,
                                           int *err)
{
    struct ugroup *u;
    uint32_t mtu = 0, caps = ZVS_CAP_CSUM;

    if (!lag) {
        *err = -EINVAL;
        return NULL;
    }
    u = calloc(1, sizeof *u);
    if (!u) {
        *err = -ENOMEM;
        return NULL;
    }
    for (unsigned s = 0; s < ZVS_PG_MAX_MEMBERS; s++) {
        const struct zvs_port *m = zvs_lag_member_port(lag, s);

        if (m) {
            mtu = mtu && mtu < m->mtu ? mtu : m->mtu;
            caps &= m->caps;
        }
    }
    u->lag = lag;
    u->slow = slow;
    u->slow_arg = slow_arg;
    snprintf(u->port.name, sizeof u->port.name, "%s", name);
    u->port.role = ZVS_PORT_UPLINK;
    u->port.ops = &ug_ops;
    u->port.backend = u;
    u->port.caps = mtu ? caps : 0;
    u->port.mtu = mtu ? mtu : 1500;
    u->port.carrier = true;
    return &u->port;
}

bool zvs_underlay_is_group(const struct zvs_port *p)
{
    return p && p->ops == &ug_ops;
}

struct zvs_lag *zvs_underlay_group_lag(const struct zvs_port *p)
{
    return zvs_underlay_is_group(p) ? ug_of(p)->lag : NULL;
}
