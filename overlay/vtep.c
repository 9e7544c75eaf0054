/* A VXLAN tunnel endpoint: remotes, the VNI map, and the two burst functions; see vtep.h. */
#include "overlay/vtep.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "overlay/vxlan_gso.h"

#define NS_PER_S          UINT64_C(1000000000)
#define DEFAULT_MTU       1500u
#define DEFAULT_INNER_MAX 9216u

struct vni_pair {
    uint32_t vni;
    uint16_t vid;
};

struct zvs_vtep {
    struct zvs_vtep_config  cfg;
    struct zvs_vtep_remote  remote[ZVS_VTEP_MAX_REMOTES];
    struct zvs_vtep_fdb    *fdb;
    struct zvs_uarp         uarp;
    struct vni_pair         vnis[ZVS_VTEP_MAX_VNIS];
    unsigned                nvnis;
    uint32_t                vni_of_vid[ZVS_VID_MAX + 1];
    struct zvs_vtep_stats   st;
    bool                    tunnel_gso; /* the underlay takes UDP tunnel super-frames */
    struct zvs_oversize     oversize;   /* too big for the segment, by ingress port */
};

struct zvs_vtep *zvs_vtep_create(const struct zvs_vtep_config *cfg)
{
    struct zvs_vtep *v;

    if (cfg->local.family != 4 && cfg->local.family != 6) {
        errno = EINVAL;
        return NULL;
    }
    if (cfg->gateway.family && cfg->gateway.family != cfg->local.family) {
        errno = EINVAL;
        return NULL;
    }
    v = calloc(1, sizeof *v);
    if (!v)
        return NULL;
    v->cfg = *cfg;
    if (!v->cfg.udp_port)
        v->cfg.udp_port = ZVS_VXLAN_UDP_PORT;
    if (!v->cfg.underlay_mtu)
        v->cfg.underlay_mtu = DEFAULT_MTU;
    if (!v->cfg.inner_max)
        v->cfg.inner_max = DEFAULT_INNER_MAX;
    if (!v->cfg.fdb_capacity)
        v->cfg.fdb_capacity = ZVS_VTEP_FDB_DEFAULT_CAPACITY;
    if (!v->cfg.fdb_age_ns)
        v->cfg.fdb_age_ns = 300 * NS_PER_S;
    v->fdb = zvs_vtep_fdb_create(v->cfg.fdb_capacity, v->cfg.fdb_age_ns);
    if (!v->fdb) {
        free(v);
        return NULL;
    }
    zvs_uarp_init(&v->uarp, v->cfg.arp_age_ns);
    for (unsigned i = 0; i <= ZVS_VID_MAX; i++)
        v->vni_of_vid[i] = ZVS_VTEP_NO_VNI;
    return v;
}

void zvs_vtep_destroy(struct zvs_vtep *v)
{
    if (v) {
        zvs_vtep_fdb_destroy(v->fdb);
        free(v);
    }
}

const struct zvs_vtep_config *zvs_vtep_config_of(const struct zvs_vtep *v)
{
    return &v->cfg;
}

struct zvs_vtep_fdb *zvs_vtep_fdb(struct zvs_vtep *v)
{
    return v->fdb;
}

struct zvs_uarp *zvs_vtep_uarp(struct zvs_vtep *v)
{
    return &v->uarp;
}

/* ---- configuration ------------------------------------------------------------------ */

void zvs_vtep_set_underlay_mtu(struct zvs_vtep *v, uint32_t mtu)
{
    v->cfg.underlay_mtu = mtu ? mtu : DEFAULT_MTU;
}

uint32_t zvs_vtep_inner_mtu(const struct zvs_vtep *v)
{
    uint32_t overhead = v->cfg.local.family == 6 ? ZVS_VXLAN_OVERHEAD_V6 : ZVS_VXLAN_OVERHEAD_V4;

    return v->cfg.underlay_mtu > overhead ? v->cfg.underlay_mtu - overhead : 0;
}

void zvs_vtep_set_tunnel_gso(struct zvs_vtep *v, bool on)
{
    v->tunnel_gso = on;
}

int zvs_vtep_map_vni(struct zvs_vtep *v, uint16_t vid, uint32_t vni)
{
    if (vni > ZVS_VXLAN_VNI_MAX || vid > ZVS_VID_MAX)
        return -EINVAL;
    if (v->vni_of_vid[vid] != ZVS_VTEP_NO_VNI || zvs_vtep_vid_of(v, vni) >= 0)
        return -EEXIST;
    if (v->nvnis == ZVS_VTEP_MAX_VNIS)
        return -ENOSPC;
    v->vnis[v->nvnis++] = (struct vni_pair){ vni, vid };
    v->vni_of_vid[vid] = vni;
    return 0;
}

int zvs_vtep_unmap_vid(struct zvs_vtep *v, uint16_t vid)
{
    for (unsigned i = 0; i < v->nvnis; i++) {
        if (v->vnis[i].vid != vid)
            continue;
        v->vnis[i] = v->vnis[--v->nvnis];
        v->vni_of_vid[vid] = ZVS_VTEP_NO_VNI;
        return 0;
    }
    return -ENOENT;
}

unsigned zvs_vtep_nvnis(const struct zvs_vtep *v)
{
    return v->nvnis;
}

uint32_t zvs_vtep_vni_at(const struct zvs_vtep *v, unsigned i, uint16_t *vid)
{
    *vid = v->vnis[i].vid;
    return v->vnis[i].vni;
}

uint32_t zvs_vtep_vni_of(const struct zvs_vtep *v, uint16_t vid)
{
    return vid <= ZVS_VID_MAX ? v->vni_of_vid[vid] : ZVS_VTEP_NO_VNI;
}

int zvs_vtep_vid_of(const struct zvs_vtep *v, uint32_t vni)
{
    for (unsigned i = 0; i < v->nvnis; i++)
        if (v->vnis[i].vni == vni)
            return v->vnis[i].vid;
    return -1;
}

int zvs_vtep_find_remote(const struct zvs_vtep *v, const char *name)
{
    for (unsigned i = 0; i < ZVS_VTEP_MAX_REMOTES; i++)
        if (v->remote[i].state != ZVS_VTEP_REMOTE_FREE && strcmp(v->remote[i].name, name) == 0)
            return (int)i;
    return -1;
}

static int addr_ok(const struct zvs_vtep *v, const struct zvs_ipaddr *addr)
{
    return !addr || addr->family == v->cfg.local.family;
}

int zvs_vtep_add_remote(struct zvs_vtep *v, const char *name, const struct zvs_ipaddr *addr)
{
    if (strlen(name) >= ZVS_VTEP_NAME_LEN || !*name || !addr_ok(v, addr))
        return -EINVAL;
    if (zvs_vtep_find_remote(v, name) >= 0)
        return -EEXIST;
    for (unsigned i = 0; i < ZVS_VTEP_MAX_REMOTES; i++) {
        struct zvs_vtep_remote *r = &v->remote[i];

        if (r->state != ZVS_VTEP_REMOTE_FREE)
            continue;
        memset(r, 0, sizeof *r);
        strcpy(r->name, name);
        r->state = ZVS_VTEP_REMOTE_RESOLVING;
        zvs_vtep_set_remote_addr(v, i, addr);
        return (int)i;
    }
    return -ENOSPC;
}

/* Remote idx leaves address old: its neighbour entry goes too, unless the entry is
 * static (configured), the gateway's, or another remote's next hop; otherwise every DNS
 * change of a remote's name would leave an entry behind until the table filled. */
static void forget_old_hop(struct zvs_vtep *v, unsigned idx, const struct zvs_ipaddr *old)
{
    const struct zvs_uarp_entry *e = zvs_uarp_find(&v->uarp, old);

    if (!e || e->state == ZVS_UARP_STATIC || zvs_ipaddr_equal(old, &v->cfg.gateway))
        return;
    for (unsigned i = 0; i < ZVS_VTEP_MAX_REMOTES; i++)
        if (i != idx && v->remote[i].state == ZVS_VTEP_REMOTE_ACTIVE &&
            zvs_ipaddr_equal(&v->remote[i].addr, old))
            return;
    zvs_uarp_forget(&v->uarp, old);
}

int zvs_vtep_set_remote_addr(struct zvs_vtep *v, unsigned idx, const struct zvs_ipaddr *addr)
{
    struct zvs_vtep_remote *r;

    if (idx >= ZVS_VTEP_MAX_REMOTES || v->remote[idx].state == ZVS_VTEP_REMOTE_FREE ||
        !addr_ok(v, addr))
        return -EINVAL;
    r = &v->remote[idx];
    if (r->addr.family && !(addr && zvs_ipaddr_equal(addr, &r->addr)))
        forget_old_hop(v, idx, &r->addr);
    if (addr) {
        r->addr = *addr;
        r->state = ZVS_VTEP_REMOTE_ACTIVE;
    } else {
        memset(&r->addr, 0, sizeof r->addr);
        r->state = ZVS_VTEP_REMOTE_RESOLVING;
    }
    return 0;
}

int zvs_vtep_del_remote(struct zvs_vtep *v, unsigned idx)
{
    if (idx >= ZVS_VTEP_MAX_REMOTES || v->remote[idx].state == ZVS_VTEP_REMOTE_FREE)
        return -EINVAL;
    zvs_vtep_fdb_forget_remote(v->fdb, (uint16_t)idx);
    if (v->remote[idx].addr.family && !v->cfg.gateway.family)
        zvs_uarp_forget(&v->uarp, &v->remote[idx].addr);
    memset(&v->remote[idx], 0, sizeof v->remote[idx]);
    return 0;
}

const struct zvs_vtep_remote *zvs_vtep_remote(const struct zvs_vtep *v, unsigned idx)
{
    return idx < ZVS_VTEP_MAX_REMOTES ? &v->remote[idx] : NULL;
}

/* The remote whose address is `a`, or -1. */
static int remote_by_addr(const struct zvs_vtep *v, const struct zvs_ipaddr *a)
{
    for (unsigned i = 0; i < ZVS_VTEP_MAX_REMOTES; i++)
        if (v->remote[i].state == ZVS_VTEP_REMOTE_ACTIVE && zvs_ipaddr_equal(&v->remote[i].addr, a))
            return (int)i;
    return -1;
}

/* ---- encapsulation ------------------------------------------------------------------ */

/* What every copy of one inner frame shares. */
struct inner {
    const struct zvs_frame *f;
    uint16_t                index;
    uint32_t                vni;
    uint32_t                len;        /* inner bytes as written (tag removed) */
    uint8_t                 tag_op;
    uint16_t                sport;
    uint32_t                seg_hdr;    /* a super-frame's: header bytes per segment, as
                                           written (0: not a super-frame) */
};

/* The next hop's MAC for remote r; on a miss an ARP request is queued in ctl. */
static bool next_hop(struct zvs_vtep *v, const struct zvs_vtep_remote *r, uint64_t now,
                     uint8_t mac[6], struct zvs_vtep_ctl *ctl)
{
    const struct zvs_ipaddr *hop = v->cfg.gateway.family ? &v->cfg.gateway : &r->addr;
    bool ask, ok = zvs_uarp_resolve(&v->uarp, hop, now, mac, &ask);

    if (ask && ctl && ctl->n < ZVS_VTEP_CTL_MAX) {
        uint8_t *f = ctl->frame[ctl->n];

        ctl->len[ctl->n++] = (uint16_t)(hop->family == 4
            ? zvs_uarp_request(f, v->cfg.local_mac, v->cfg.local.a, hop->a)
            : zvs_und_solicit(f, v->cfg.local_mac, v->cfg.local.a, hop->a));
        zvs_uarp_asked(&v->uarp, hop, now);
        v->st.arp_sent++;
    }
    return ok;
}

/* A frame from the switch too big for the segment: counted, and recorded by its ingress
 * port for the owner (zvs_vtep_take_oversize). len: its inner bytes in one datagram. */
static void too_big(struct zvs_vtep *v, const struct zvs_frame *f, uint32_t len)
{
    v->st.reason[ZVS_VTEP_MTU_EXCEEDED]++;
    zvs_oversize_note(&v->oversize, f->in_port, len);
}

/* One copy of `in` to remote ri; false when it was dropped (counted). */
static bool encap_one(struct zvs_vtep *v, const struct inner *in, unsigned ri, uint64_t now,
                      struct zvs_vtep_tx *tx, struct zvs_vtep_ctl *ctl)
{
    struct zvs_vtep_remote *r = &v->remote[ri];
    struct zvs_vxlan_outer o = {
        .underlay_vid = v->cfg.underlay_vid, .src = v->cfg.local, .dst = r->addr,
        .dst_port = v->cfg.udp_port,
    };

    if (!next_hop(v, r, now, o.dst_mac, ctl)) {
        v->st.reason[ZVS_VTEP_NO_NEIGHBOUR]++;
        return false;
    }
    memcpy(o.src_mac, v->cfg.local_mac, 6);
    tx->hdr_len = (uint16_t)zvs_vxlan_encap(tx->hdr, &o, in->vni, in->sport, in->len);
    if (tx->hdr_len == 0) {             /* past an IP datagram: a super-frame too long */
        too_big(v, in->f, in->len);
        return false;
    }
    tx->in_index = in->index;
    tx->remote = (uint16_t)ri;
    tx->sport = in->sport;
    tx->tag_op = in->tag_op;
    tx->len = tx->hdr_len + in->len;
    tx->vnet = zvs_vxlan_outer_vnet(&o, tx->hdr_len);
    if (o.dst.family == 4 && (in->f->vnet.flags & ZVS_VNET_F_NEEDS_CSUM)) {
        /* The outer UDP checksum is 0 over IPv4, so the inner partial checksum is the only
         * one: it rides along, moved by the header and the removed tag. */
        struct zvs_vnet iv = zvs_frame_vnet_after_op(in->f, (enum zvs_tag_op)in->tag_op);

        tx->vnet = iv;
        tx->vnet.csum_start = (uint16_t)(iv.csum_start + tx->hdr_len);
        if (in->seg_hdr)                /* one header before the whole super-frame */
            tx->vnet = zvs_vxlan_gso_outer(&iv, tx->hdr_len, in->seg_hdr);
    }
    r->tx_frames++;
    r->tx_bytes += in->len;
    v->st.encapsulated++;
    return true;
}

/* Classify one frame for encapsulation: false when it is dropped (counted). */
static bool inner_of(struct zvs_vtep *v, const struct zvs_frame *f, uint16_t index,
                     struct inner *in)
{
    uint32_t dgram_inner;
    uint8_t head[ZVS_ETH_HLEN + ZVS_VLAN_HLEN + 60];

    in->f = f;
    in->index = index;
    in->vni = zvs_vtep_vni_of(v, f->vid);
    if (in->vni == ZVS_VTEP_NO_VNI) {
        v->st.reason[ZVS_VTEP_UNMAPPED_VLAN]++;
        return false;
    }
    if (__builtin_expect(f->vnet.gso_type == ZVS_VNET_GSO_NONE, 1)) {
        in->seg_hdr = 0;
    } else if (!v->tunnel_gso || v->cfg.local.family != 4 ||
               !zvs_vxlan_gso_inner(f, &in->seg_hdr)) {
        v->st.reason[ZVS_VTEP_NOT_SEGMENTED]++;
        return false;
    }
    if (v->cfg.local.family == 6 && (f->vnet.flags & ZVS_VNET_F_NEEDS_CSUM)) {
        /* One partial checksum per frame: the outer UDP one over IPv6. */
        v->st.reason[ZVS_VTEP_NOT_SEGMENTED]++;
        return false;
    }
    in->tag_op = (f->flags & ZVS_FF_TAGGED) ? ZVS_TAG_STRIP : ZVS_TAG_KEEP;
    in->len = zvs_frame_out_len(f, (enum zvs_tag_op)in->tag_op);
    dgram_inner = in->len;              /* the inner bytes one outer datagram carries */
    if (__builtin_expect(in->seg_hdr != 0, 0)) {
        if (f->flags & ZVS_FF_TAGGED)
            in->seg_hdr -= ZVS_VLAN_HLEN;       /* the tag goes before the header does */
        dgram_inner = in->seg_hdr + f->vnet.gso_size;   /* a super-frame's every segment */
    }
    if (dgram_inner + ZVS_VXLAN_HLEN + ZVS_UDP_HLEN +
        (v->cfg.local.family == 6 ? ZVS_IPV6_HLEN : ZVS_IPV4_HLEN) > v->cfg.underlay_mtu) {
        too_big(v, f, dgram_inner);
        return false;
    }
    if (f->nfrags == 0 && !(f->flags & ZVS_FF_TAGGED)) {
        in->sport = zvs_vxlan_sport(f->data, f->len);
    } else {
        uint32_t n = zvs_frame_peek(f, head, sizeof head);

        if (f->flags & ZVS_FF_TAGGED && n >= 18) {      /* hash the frame as it is sent */
            memmove(head + 12, head + 16, n - 16);
            n -= 4;
        }
        in->sport = zvs_vxlan_sport(head, n);
    }
    return true;
}

int zvs_vtep_encap_burst(struct zvs_vtep *v, const struct zvs_frame *in, int n, uint64_t now,
                         struct zvs_vtep_tx *out, int out_max, struct zvs_vtep_ctl *ctl)
{
    int k = 0;
    /* The last unicast lookup, kept for the burst: a stream costs one table probe. */
    uint8_t memo_mac[6] = { 0 };
    uint32_t memo_vni = ZVS_VTEP_NO_VNI;
    int memo_remote = -1;

    for (int i = 0; i < n; i++) {
        const struct zvs_frame *f = &in[i];
        struct inner fi;
        int ri = -1;

        if (!inner_of(v, f, (uint16_t)i, &fi))
            continue;
        if (!(f->flags & ZVS_FF_MCAST)) {
            if (fi.vni == memo_vni && memcmp(memo_mac, f->data, 6) == 0) {
                ri = memo_remote;
            } else {
                ri = zvs_vtep_fdb_lookup(v->fdb, f->data, fi.vni);
                memcpy(memo_mac, f->data, 6);
                memo_vni = fi.vni;
                memo_remote = ri;
            }
            if (ri >= 0 && v->remote[ri].state != ZVS_VTEP_REMOTE_ACTIVE)
                ri = -1;                /* its name does not resolve now: flood */
        }
        if (ri >= 0) {
            if (k == out_max)
                v->st.reason[ZVS_VTEP_TX_FULL]++;
            else if (encap_one(v, &fi, (unsigned)ri, now, &out[k], ctl))
                k++;
            continue;
        }
        /* Broadcast, multicast, unknown unicast: a copy to every remote (head-end
         * replication). */
        unsigned copies = 0, active = 0;
        for (unsigned r = 0; r < ZVS_VTEP_MAX_REMOTES; r++) {
            if (v->remote[r].state != ZVS_VTEP_REMOTE_ACTIVE)
                continue;
            active++;
            if (k == out_max) {
                v->st.reason[ZVS_VTEP_TX_FULL]++;
                continue;
            }
            if (encap_one(v, &fi, r, now, &out[k], ctl)) {
                k++;
                copies++;
            }
        }
        if (active == 0)
            v->st.reason[ZVS_VTEP_NO_REMOTE]++;
        if (copies > 1)
            v->st.replicated += copies - 1;
    }
    return k;
}

/* ---- decapsulation ------------------------------------------------------------------ */

static const enum zvs_vtep_reason reason_of_verdict[] = {
    [ZVS_VXLAN_NOT_VXLAN]      = ZVS_VTEP_NOT_VXLAN,
    [ZVS_VXLAN_TRUNCATED]      = ZVS_VTEP_TRUNCATED,
    [ZVS_VXLAN_BAD_OUTER]      = ZVS_VTEP_BAD_OUTER,
    [ZVS_VXLAN_I_FLAG_CLEAR]   = ZVS_VTEP_I_FLAG_CLEAR,
    [ZVS_VXLAN_INNER_RUNT]     = ZVS_VTEP_INNER_RUNT,
    [ZVS_VXLAN_INNER_OVERSIZE] = ZVS_VTEP_INNER_OVERSIZE,
};

/* An underlay frame that is not VXLAN: ARP (over IPv4) or Neighbor Discovery (over IPv6)
 * goes to the neighbour table (a request or solicitation for our address is answered
 * through ctl), anything else is counted. */
static void not_vxlan(struct zvs_vtep *v, const uint8_t *p, uint32_t len, uint64_t now,
                      struct zvs_vtep_ctl *ctl)
{
    uint8_t reply[ZVS_VTEP_CTL_FRAME_MAX];
    uint32_t off = len >= 16 && zvs_be16(p + 12) == ZVS_ETHERTYPE_VLAN ? 16 : 12;
    uint16_t want = v->cfg.local.family == 4 ? ZVS_ETHERTYPE_ARP : ZVS_ETHERTYPE_IPV6;
    int rc;

    if (len < off + 2 || zvs_be16(p + off) != want) {
        v->st.reason[ZVS_VTEP_NOT_VXLAN]++;
        return;
    }
    rc = v->cfg.local.family == 4
        ? zvs_uarp_input(&v->uarp, p, len, v->cfg.local.a, v->cfg.local_mac, now, reply)
        : zvs_und_input(&v->uarp, p, len, v->cfg.local.a, v->cfg.local_mac, now, reply);
    if (rc < 0) {
        v->st.reason[ZVS_VTEP_NOT_VXLAN]++;
    } else if (rc > 0 && ctl && ctl->n < ZVS_VTEP_CTL_MAX) {
        memcpy(ctl->frame[ctl->n], reply, (size_t)rc);
        ctl->len[ctl->n++] = (uint16_t)rc;
        v->st.arp_sent++;
    }
}

/* Learn the inner source behind remote ri; false when the frame must be dropped. */
static bool learn(struct zvs_vtep *v, const uint8_t *src, uint32_t vni, unsigned ri,
                  uint64_t now)
{
    switch (zvs_vtep_fdb_learn(v->fdb, src, vni, (uint16_t)ri, now)) {
    case -ENOSPC:
        v->st.reason[ZVS_VTEP_MAC_LIMIT]++;
        return false;
    case -EINVAL:
        v->st.reason[ZVS_VTEP_BAD_INNER_SOURCE]++;
        return false;
    case -EPERM:
        v->st.reason[ZVS_VTEP_STATIC_CONFLICT]++;
        return false;
    default:
        return true;
    }
}

int zvs_vtep_decap_burst(struct zvs_vtep *v, const struct zvs_frame *in, int n, uint64_t now,
                         struct zvs_frame *out, uint16_t *out_index, struct zvs_vtep_ctl *ctl)
{
    int k = 0;
    /* Kept for the burst: a burst from one VTEP on one VNI maps once. */
    struct zvs_ipaddr memo_src = { 0 };
    int memo_remote = -1;
    uint32_t memo_vni = ZVS_VTEP_NO_VNI;
    int memo_vid = -1;

    for (int i = 0; i < n; i++) {
        const struct zvs_frame *f = &in[i];
        const uint8_t *p = f->data;
        uint32_t len = f->len;
        struct zvs_vxlan_decoded d;
        enum zvs_vxlan_verdict vd;
        int ri, vid;

        if (f->nfrags && f->frags[0].iov_len < len) {
            v->st.reason[ZVS_VTEP_TRUNCATED]++;
            continue;
        }
        /* A super-frame the underlay's kernel left whole (GSO through a veth, GRO) holds
         * an inner super-frame: its length is bounded by IP's, not by the VTEP's limit. */
        bool gso = f->vnet.gso_type != ZVS_VNET_GSO_NONE;
        vd = zvs_vxlan_decode(p, len, v->cfg.udp_port, gso ? 65535 : v->cfg.inner_max, &d);
        if (vd == ZVS_VXLAN_NOT_VXLAN) {
            not_vxlan(v, p, len, now, ctl);
            continue;
        }
        if (vd != ZVS_VXLAN_OK) {
            v->st.reason[reason_of_verdict[vd]]++;
            continue;
        }
        if (!zvs_ipaddr_equal(&d.dst, &v->cfg.local)) {
            v->st.reason[ZVS_VTEP_NOT_LOCAL]++;
            continue;
        }
        if (memo_remote >= 0 && zvs_ipaddr_equal(&d.src, &memo_src)) {
            ri = memo_remote;
        } else {
            ri = remote_by_addr(v, &d.src);
            memo_src = d.src;
            memo_remote = ri;
        }
        if (ri < 0) {
            v->st.reason[ZVS_VTEP_UNKNOWN_VTEP]++;
            continue;
        }
        if (d.vni == memo_vni) {
            vid = memo_vid;
        } else {
            vid = zvs_vtep_vid_of(v, d.vni);
            memo_vni = d.vni;
            memo_vid = vid;
        }
        if (vid < 0) {
            v->st.reason[ZVS_VTEP_UNKNOWN_VNI]++;
            continue;
        }
        if (d.reserved_set)
            v->st.reason[ZVS_VTEP_RESERVED_BITS]++;     /* RFC 7348: ignored */
        const uint8_t *inner = p + d.inner_off;
        uint16_t itype = zvs_be16(inner + 12);
        if (itype == ZVS_ETHERTYPE_VLAN || itype == ZVS_ETHERTYPE_QINQ) {
            v->st.reason[ZVS_VTEP_INNER_TAGGED]++;
            continue;
        }
        uint16_t inner_hdr_len = 0;
        int gc = zvs_vxlan_gso_check(&f->vnet, &d, p, v->cfg.underlay_mtu, &inner_hdr_len);
        if (gc < 0) {
            v->st.reason[gc == -EMSGSIZE ? ZVS_VTEP_MTU_EXCEEDED : ZVS_VTEP_BAD_TUNNEL_GSO]++;
            continue;
        }
        if (!learn(v, inner + ZVS_ETH_ALEN, d.vni, (unsigned)ri, now))
            continue;
        struct zvs_frame *o = &out[k];
        memset(o, 0, sizeof *o);
        o->data = inner;
        o->len = d.inner_len;
        o->vid = (uint16_t)vid;
        o->flags = (uint8_t)(inner[0] & 1 ? ZVS_FF_MCAST : 0);
        if (inner[0] & 1 && memcmp(inner, "\xff\xff\xff\xff\xff\xff", 6) == 0)
            o->flags |= ZVS_FF_BCAST;
        o->in_port = f->in_port;
        o->cookie = f->cookie;
        /* A local sender's inner checksum may still be partial (the kernel's vxlan keeps
         * CHECKSUM_PARTIAL through a veth): it stays so, relative to the inner frame. A
         * partial outer UDP checksum ends with the outer headers. */
        if ((f->vnet.flags & ZVS_VNET_F_NEEDS_CSUM) && f->vnet.csum_start >= d.inner_off) {
            o->vnet.flags = ZVS_VNET_F_NEEDS_CSUM;
            o->vnet.csum_start = (uint16_t)(f->vnet.csum_start - d.inner_off);
            o->vnet.csum_offset = f->vnet.csum_offset;
            if (gso) {                  /* the inner super-frame's segmentation */
                o->vnet.gso_type = f->vnet.gso_type & (uint8_t)~ZVS_VNET_GSO_UDP_TUNNEL;
                o->vnet.gso_size = f->vnet.gso_size;
                o->vnet.hdr_len = inner_hdr_len;        /* counted, not the sender's */
            }
        } else if (gso) {               /* no inner checksum to anchor it: not ours */
            v->st.reason[ZVS_VTEP_INNER_OVERSIZE]++;
            continue;
        } else if (f->vnet.flags & ZVS_VNET_F_DATA_VALID) {
            o->vnet.flags = ZVS_VNET_F_DATA_VALID;
        }
        if (out_index)
            out_index[k] = (uint16_t)i;
        v->remote[ri].rx_frames++;
        v->remote[ri].rx_bytes += d.inner_len;
        v->st.decapsulated++;
        k++;
    }
    return k;
}

void zvs_vtep_tick(struct zvs_vtep *v, uint64_t now)
{
    zvs_vtep_fdb_age(v->fdb, now);
}

void zvs_vtep_stats(const struct zvs_vtep *v, struct zvs_vtep_stats *out)
{
    *out = v->st;
}

unsigned zvs_vtep_take_oversize(struct zvs_vtep *v, struct zvs_oversize_rec *out,
                                unsigned room)
{
    return zvs_oversize_take(&v->oversize, out, room);
}

const char *zvs_vtep_reason_name(enum zvs_vtep_reason r)
{
    static const char *const names[ZVS_VTEP_REASONS] = {
        [ZVS_VTEP_TRUNCATED]         = "vxlan-truncated",
        [ZVS_VTEP_BAD_OUTER]         = "vxlan-bad-outer",
        [ZVS_VTEP_I_FLAG_CLEAR]      = "vxlan-i-flag-clear",
        [ZVS_VTEP_RESERVED_BITS]     = "vxlan-reserved-bits",
        [ZVS_VTEP_INNER_RUNT]        = "vxlan-inner-runt",
        [ZVS_VTEP_INNER_OVERSIZE]    = "vxlan-inner-oversize",
        [ZVS_VTEP_INNER_TAGGED]      = "vxlan-inner-tagged",
        [ZVS_VTEP_UNKNOWN_VNI]       = "vxlan-unknown-vni",
        [ZVS_VTEP_UNKNOWN_VTEP]      = "vxlan-unknown-vtep",
        [ZVS_VTEP_NOT_LOCAL]         = "vxlan-not-local",
        [ZVS_VTEP_NOT_VXLAN]         = "vxlan-not-vxlan",
        [ZVS_VTEP_BAD_INNER_SOURCE]  = "vxlan-bad-inner-source",
        [ZVS_VTEP_MAC_LIMIT]         = "vxlan-mac-limit",
        [ZVS_VTEP_STATIC_CONFLICT]   = "vxlan-static-conflict",
        [ZVS_VTEP_UNMAPPED_VLAN]     = "vxlan-unmapped-vlan",
        [ZVS_VTEP_MTU_EXCEEDED]      = "vxlan-mtu-exceeded",
        [ZVS_VTEP_NO_NEIGHBOUR]      = "vxlan-no-neighbour",
        [ZVS_VTEP_NO_REMOTE]         = "vxlan-no-remote",
        [ZVS_VTEP_NOT_SEGMENTED]     = "vxlan-not-segmented",
        [ZVS_VTEP_TX_FULL]           = "vxlan-tx-full",
        [ZVS_VTEP_BAD_TUNNEL_GSO]    = "vxlan-bad-tunnel-gso",
    };

    return (unsigned)r < ZVS_VTEP_REASONS ? names[r] : "?";
}
