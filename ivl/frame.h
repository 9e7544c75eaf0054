/* frame: the header of ours that every data frame crossing the IVL carries.
 *
 * A guest's frame crosses the IVL inside an Ethernet frame between the two systems' IVL
 * ports: destination the peer's IVL MAC, source ours, EtherType 0x88B5 (IEEE 802 Local
 * Experimental EtherType 1: never forwarded by a bridge as anything but data), then this
 * header, then the guest's frame as it is (its own MACs and VLAN tag):
 *
 *   0 version (1)   1 kind (1)   2 origin system index (1..3)
 *   3 flags (bit 0 GUEST SOURCE: the inner frame's source is a guest of the origin
 *     system, so the receiver may learn that MAC as living there; the rest 0)
 *   4 inner length (2)   6 VSWITCH id (2: the Global VSWITCH's number in the domain)
 *   8 sequence (4, per sender, for the receiver's loss count)
 *
 * The kind says what the receiver does with it, and so why nothing loops (802.1AX-2020
 * 9.3.4's rule that a frame crosses an intra-portal link at most once):
 *   OUTBOUND  a guest's frame whose own system has no distributing member: the receiver
 *             sends it out of its own members, never to a guest, never back over the IVL;
 *   INBOUND   a frame the partner hashed onto one of the sender's members for a guest
 *             on the receiver: delivered to that guest only;
 *   FLOOD     a broadcast, multicast or unknown unicast that came in from the LAG: the
 *             receiver delivers it to its own guests only (the designated member of the
 *             whole domain took it in once, so every guest gets it once).
 * A frame without a valid header is counted by reason and dropped.
 */
#ifndef ZVS_IVL_FRAME_H
#define ZVS_IVL_FRAME_H

#include <stddef.h>
#include <stdint.h>

#define ZVS_IVL_ETHERTYPE     0x88B5
#define ZVS_IVL_FRAME_VERSION 1
#define ZVS_IVL_HDR_LEN       12
#define ZVS_IVL_OUTER_LEN     (14 + ZVS_IVL_HDR_LEN)  /* outer Ethernet + ours */
#define ZVS_IVL_INNER_MIN     14                      /* an Ethernet header */
#define ZVS_IVL_INNER_MAX     9216                    /* the largest jumbo frame we carry */

enum zvs_ivl_kind {
    ZVS_IVL_OUTBOUND = 1,
    ZVS_IVL_INBOUND  = 2,
    ZVS_IVL_FLOOD    = 3,
};

#define ZVS_IVL_HF_GUEST_SRC 0x01     /* flags: the inner source is the origin's guest */

struct zvs_ivl_hdr {
    uint8_t  kind;                      /* enum zvs_ivl_kind */
    uint8_t  origin;                    /* sender's system index, 1..3 */
    uint8_t  flags;                     /* ZVS_IVL_HF_* */
    uint16_t vswitch;                   /* the Global VSWITCH's id in the domain */
    uint32_t seq;
};

/* Why an IVL frame was dropped (counted per reason). */
enum zvs_ivl_frame_err {
    ZVS_IVL_FE_SHORT = 1,               /* shorter than outer Ethernet + header + 14 */
    ZVS_IVL_FE_ETHERTYPE,               /* not 0x88B5 */
    ZVS_IVL_FE_VERSION,
    ZVS_IVL_FE_KIND,
    ZVS_IVL_FE_ORIGIN,                  /* origin outside 1..3 */
    ZVS_IVL_FE_FLAGS,                   /* a reserved flag set */
    ZVS_IVL_FE_LENGTH,                  /* inner length disagrees with the frame */
    ZVS_IVL_FE_COUNT
};

const char *zvs_ivl_frame_err_name(int err);  /* "short", ... for a -ZVS_IVL_FE_* */

/* Wrap `inner` (inner_len bytes) for the IVL: writes ZVS_IVL_OUTER_LEN + inner_len bytes
 * to out and returns that, or -EINVAL (a header or inner frame that would not decode),
 * -ENOSPC. */
int zvs_ivl_frame_encap(const struct zvs_ivl_hdr *h, const uint8_t dst[6],
                        const uint8_t src[6], const uint8_t *inner, size_t inner_len,
                        uint8_t *out, size_t cap);
/* Unwrap: 0 with *h and the inner frame (a pointer into `frame`), or -ZVS_IVL_FE_* with
 * nothing written. Trailing bytes beyond the inner length (Ethernet padding of a short
 * frame) are allowed only up to the 60-byte minimum frame. */
int zvs_ivl_frame_decap(const uint8_t *frame, size_t len, struct zvs_ivl_hdr *h,
                        const uint8_t **inner, size_t *inner_len);

#endif
