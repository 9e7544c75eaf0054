/* frame: the IVL data frame header's codec (frame.h has the layout and the kinds). */
#include "ivl/frame.h"

#include <errno.h>
#include <string.h>

#include "ivl/state_msg.h"

#define ETH_MIN_FRAME 60                /* without FCS: what a sender pads a frame to */

static const char *const err_names[ZVS_IVL_FE_COUNT] = {
    [ZVS_IVL_FE_SHORT] = "short", [ZVS_IVL_FE_ETHERTYPE] = "ethertype",
    [ZVS_IVL_FE_VERSION] = "version", [ZVS_IVL_FE_KIND] = "kind",
    [ZVS_IVL_FE_ORIGIN] = "origin", [ZVS_IVL_FE_FLAGS] = "flags",
    [ZVS_IVL_FE_LENGTH] = "length",
};

const char *zvs_ivl_frame_err_name(int err)
{
    int e = -err;
    return e > 0 && e < ZVS_IVL_FE_COUNT ? err_names[e] : "invalid-code";
}

static int kind_ok(uint8_t k)
{
    return k == ZVS_IVL_OUTBOUND || k == ZVS_IVL_INBOUND || k == ZVS_IVL_FLOOD;
}

static int origin_ok(uint8_t o)
{
    return o >= 1 && o <= ZVS_IVL_MAX_SYSTEMS;
}

int zvs_ivl_frame_encap(const struct zvs_ivl_hdr *h, const uint8_t dst[6],
                        const uint8_t src[6], const uint8_t *inner, size_t inner_len,
                        uint8_t *out, size_t cap)
{
    if (!kind_ok(h->kind) || !origin_ok(h->origin) || (h->flags & ~ZVS_IVL_HF_GUEST_SRC) ||
        inner_len < ZVS_IVL_INNER_MIN || inner_len > ZVS_IVL_INNER_MAX)
        return -EINVAL;
    size_t len = ZVS_IVL_OUTER_LEN + inner_len;
    if (cap < len)
        return -ENOSPC;
    memcpy(out, dst, 6);
    memcpy(out + 6, src, 6);
    out[12] = ZVS_IVL_ETHERTYPE >> 8;
    out[13] = ZVS_IVL_ETHERTYPE & 0xFF;
    uint8_t *p = out + 14;
    p[0] = ZVS_IVL_FRAME_VERSION;
    p[1] = h->kind;
    p[2] = h->origin;
    p[3] = h->flags;
    p[4] = (uint8_t)(inner_len >> 8);
    p[5] = (uint8_t)inner_len;
    p[6] = (uint8_t)(h->vswitch >> 8);
    p[7] = (uint8_t)h->vswitch;
    p[8] = (uint8_t)(h->seq >> 24);
    p[9] = (uint8_t)(h->seq >> 16);
    p[10] = (uint8_t)(h->seq >> 8);
    p[11] = (uint8_t)h->seq;
    memmove(out + ZVS_IVL_OUTER_LEN, inner, inner_len);
    return (int)len;
}

int zvs_ivl_frame_decap(const uint8_t *frame, size_t len, struct zvs_ivl_hdr *h,
                        const uint8_t **inner, size_t *inner_len)
{
    if (len < ZVS_IVL_OUTER_LEN + ZVS_IVL_INNER_MIN)
        return -ZVS_IVL_FE_SHORT;
    if (frame[12] != ZVS_IVL_ETHERTYPE >> 8 || frame[13] != (ZVS_IVL_ETHERTYPE & 0xFF))
        return -ZVS_IVL_FE_ETHERTYPE;
    const uint8_t *p = frame + 14;
    if (p[0] != ZVS_IVL_FRAME_VERSION)
        return -ZVS_IVL_FE_VERSION;
    if (!kind_ok(p[1]))
        return -ZVS_IVL_FE_KIND;
    if (!origin_ok(p[2]))
        return -ZVS_IVL_FE_ORIGIN;
    if (p[3] & ~ZVS_IVL_HF_GUEST_SRC)
        return -ZVS_IVL_FE_FLAGS;
    size_t il = (size_t)p[4] << 8 | p[5];
    size_t want = ZVS_IVL_OUTER_LEN + il;
    /* exact, or padded up to the minimum frame by the sender's NIC */
    if (il < ZVS_IVL_INNER_MIN || il > ZVS_IVL_INNER_MAX || want > len ||
        (len != want && len > ETH_MIN_FRAME))
        return -ZVS_IVL_FE_LENGTH;
    memset(h, 0, sizeof *h);            /* its padding too: one header, one value */
    h->kind = p[1];
    h->origin = p[2];
    h->flags = p[3];
    h->vswitch = (uint16_t)(p[6] << 8 | p[7]);
    h->seq = (uint32_t)p[8] << 24 | (uint32_t)p[9] << 16 | (uint32_t)p[10] << 8 | p[11];
    *inner = frame + ZVS_IVL_OUTER_LEN;
    *inner_len = il;
    return 0;
}
