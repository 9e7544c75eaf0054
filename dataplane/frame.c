/* Frame emission: the single copy (or gather list) a frame gets at its egress, with the
 * 802.1Q tag edit applied on the fly so received bytes are never modified. A frame in one
 * piece without a tag edit (most frames) is one memcpy, with no piece list built. */
#include "dataplane/frame.h"

#include <string.h>

/* A source view of the frame as up to ZVS_FRAME_PIECES_MAX pieces into v (that many
 * long); -1 for a descriptor with more, which nothing may build (frame.h). */
static int frame_pieces(const struct zvs_frame *f, struct iovec *v)
{
    if (f->nfrags == 0) {
        v[0].iov_base = (void *)f->data;
        v[0].iov_len = f->len;
        return 1;
    }
    if (__builtin_expect(f->nfrags > ZVS_FRAME_PIECES_MAX, 0))
        return -1;
    memcpy(v, f->frags, sizeof(*v) * f->nfrags);
    return f->nfrags;
}

/* Copy `n` bytes starting at byte `off` of the pieces into dst. */
static void pieces_copy(const struct iovec *v, int nv, uint32_t off, uint32_t n, uint8_t *dst)
{
    for (int i = 0; i < nv && n > 0; i++) {
        uint32_t plen = (uint32_t)v[i].iov_len;
        if (off >= plen) {
            off -= plen;
            continue;
        }
        uint32_t take = plen - off < n ? plen - off : n;
        memcpy(dst, (const uint8_t *)v[i].iov_base + off, take);
        dst += take;
        n -= take;
        off = 0;
    }
}

static void make_tag(const struct zvs_frame *f, uint16_t vid, uint8_t tag[4])
{
    zvs_put_be16(tag, ZVS_ETHERTYPE_VLAN);
    zvs_put_be16(tag + 2, (uint16_t)((f->pcp & 7u) << 13 | (vid & 0x0FFFu)));
}

struct zvs_vnet zvs_frame_vnet_after_op(const struct zvs_frame *f, enum zvs_tag_op op)
{
    struct zvs_vnet v = f->vnet;
    int delta = op == ZVS_TAG_PUSH ? ZVS_VLAN_HLEN : op == ZVS_TAG_STRIP ? -ZVS_VLAN_HLEN : 0;
    if (v.flags & ZVS_VNET_F_NEEDS_CSUM)
        v.csum_start = (uint16_t)(v.csum_start + delta);
    if (v.gso_type != ZVS_VNET_GSO_NONE && v.hdr_len)
        v.hdr_len = (uint16_t)(v.hdr_len + delta);
    if (v.gso_type & ZVS_VNET_GSO_UDP_TUNNEL) {     /* the outer headers move as well */
        v.tnl_outer_th = (uint16_t)(v.tnl_outer_th + delta);
        v.tnl_inner_nh = (uint16_t)(v.tnl_inner_nh + delta);
    }
    return v;
}

uint32_t zvs_frame_emit(const struct zvs_frame *f, enum zvs_tag_op op, uint16_t vid,
                        uint8_t *dst, struct zvs_vnet *vnet_out)
{
    struct iovec v[ZVS_FRAME_PIECES_MAX];
    uint8_t tag[4];

    if (op == ZVS_TAG_KEEP && f->nfrags == 0) {
        if (vnet_out)
            *vnet_out = f->vnet;        /* no tag edit: offsets stay where they are */
        memcpy(dst, f->data, f->len);
        return f->len;
    }
    int nv = frame_pieces(f, v);
    if (nv < 0)
        return 0;                       /* more pieces than any frame has: nothing written */
    if (vnet_out)
        *vnet_out = zvs_frame_vnet_after_op(f, op);
    switch (op) {
    case ZVS_TAG_KEEP:
        pieces_copy(v, nv, 0, f->len, dst);
        return f->len;
    case ZVS_TAG_STRIP:
        pieces_copy(v, nv, 0, 12, dst);
        pieces_copy(v, nv, 16, f->len - 16, dst + 12);
        return f->len - ZVS_VLAN_HLEN;
    case ZVS_TAG_PUSH:
        make_tag(f, vid, tag);
        pieces_copy(v, nv, 0, 12, dst);
        memcpy(dst + 12, tag, 4);
        pieces_copy(v, nv, 12, f->len - 12, dst + 16);
        return f->len + ZVS_VLAN_HLEN;
    case ZVS_TAG_REWRITE:
        make_tag(f, vid, tag);
        pieces_copy(v, nv, 0, 12, dst);
        memcpy(dst + 12, tag, 4);
        pieces_copy(v, nv, 16, f->len - 16, dst + 16);
        return f->len;
    }
    return 0;
}

/* Append the byte range [off, off+n) of the pieces to iov; returns the new count or -1. */
static int iov_range(const struct iovec *v, int nv, uint32_t off, uint32_t n,
                     struct iovec *iov, int cnt, int iov_max)
{
    for (int i = 0; i < nv && n > 0; i++) {
        uint32_t plen = (uint32_t)v[i].iov_len;
        if (off >= plen) {
            off -= plen;
            continue;
        }
        if (cnt >= iov_max)
            return -1;
        uint32_t take = plen - off < n ? plen - off : n;
        iov[cnt].iov_base = (uint8_t *)v[i].iov_base + off;
        iov[cnt].iov_len = take;
        cnt++;
        n -= take;
        off = 0;
    }
    return cnt;
}

int zvs_frame_iov(const struct zvs_frame *f, enum zvs_tag_op op, uint16_t vid,
                  uint8_t tag[4], struct iovec *iov, int iov_max)
{
    struct iovec v[ZVS_FRAME_PIECES_MAX];
    int nv = frame_pieces(f, v);
    int cnt;

    if (nv < 0)
        return -1;
    if (op == ZVS_TAG_KEEP)
        return iov_range(v, nv, 0, f->len, iov, 0, iov_max);
    cnt = iov_range(v, nv, 0, 12, iov, 0, iov_max);
    if (op == ZVS_TAG_PUSH || op == ZVS_TAG_REWRITE) {
        if (cnt < 0 || cnt >= iov_max)
            return -1;
        make_tag(f, vid, tag);
        iov[cnt].iov_base = tag;
        iov[cnt].iov_len = 4;
        cnt++;
    }
    uint32_t rest = op == ZVS_TAG_PUSH ? 12 : 16;
    if (cnt < 0)
        return -1;
    return iov_range(v, nv, rest, f->len - rest, iov, cnt, iov_max);
}

uint32_t zvs_frame_peek(const struct zvs_frame *f, uint8_t *out, uint32_t n)
{
    struct iovec v[ZVS_FRAME_PIECES_MAX];
    int nv = frame_pieces(f, v);

    if (nv < 0)
        return 0;
    if (n > f->len)
        n = f->len;
    pieces_copy(v, nv, 0, n, out);
    return n;
}
