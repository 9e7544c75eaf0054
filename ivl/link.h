/* link: one system's end of the IVL for one Global VSWITCH: frames wrapped with our header
 * (frame.h) on the way out, unwrapped and checked on the way in, and everything counted
 * so that no frame is lost uncounted.
 *
 *   - every frame sent carries this system's index and the next number of its sequence;
 *     a receiver keeps the next number it expects of each sender, so a gap is counted as
 *     lost (frames the IVL dropped) and an older number as reordered, never silently;
 *     a number more than ZVS_IVL_RESTART_BACK behind the expected one is no late frame
 *     but a sender that started its sequence again (restarted while the view never lost
 *     it): it becomes the new baseline, counted once as restarted, so the frames after it
 *     are neither reordered nor lost;
 *   - a frame that does not decode is dropped and counted by reason (frame.h); one that
 *     claims to come from this very system (a loop in the IVL network) or for another
 *     Global VSWITCH is dropped and counted too;
 *   - bytes and frames in each direction by kind: the share of outbound traffic that
 *     crossed the IVL (ivl_fraction_outbound) and the IVL traffic FCX240 shows come from
 *     here.
 */
#ifndef ZVS_IVL_LINK_H
#define ZVS_IVL_LINK_H

#include <stddef.h>
#include <stdint.h>

#include "ivl/frame.h"
#include "ivl/state_msg.h"

#define ZVS_IVL_KINDS 4                 /* indexed by enum zvs_ivl_kind (0 unused) */
#define ZVS_IVL_RESTART_BACK 1024       /* further back than this: a new sequence */

struct zvs_ivl_link_stats {
    uint64_t tx_frames[ZVS_IVL_KINDS], tx_bytes[ZVS_IVL_KINDS];   /* inner frame bytes */
    uint64_t rx_frames[ZVS_IVL_KINDS], rx_bytes[ZVS_IVL_KINDS];
    uint64_t rx_bad[ZVS_IVL_FE_COUNT];  /* dropped: no valid header, by reason */
    uint64_t rx_own;                    /* dropped: our own index (the IVL loops) */
    uint64_t rx_other_vswitch;          /* dropped: another Global VSWITCH's */
    uint64_t rx_lost;                   /* numbers a sender used that never arrived */
    uint64_t rx_reordered;              /* arrived after a later number */
    uint64_t rx_restarted;              /* a sender's sequence began again (a new baseline) */
};

struct zvs_ivl_link {
    uint8_t                   self;     /* this system's index, 1..3 */
    uint16_t                  vswitch;  /* the Global VSWITCH's id in the domain */
    uint8_t                   mac[6];   /* this system's IVL port MAC */
    uint32_t                  tx_seq;
    uint32_t                  rx_next[ZVS_IVL_MAX_SYSTEMS + 1];
    uint8_t                   rx_seen;  /* bit i: a frame of system i arrived */
    struct zvs_ivl_link_stats st;
};

void zvs_ivl_link_init(struct zvs_ivl_link *l, uint8_t self, uint16_t vswitch,
                       const uint8_t mac[6]);

/* Wrap `inner` for system `dst_mac` with kind `kind`: the frame's length, or the codec's
 * -EINVAL / -ENOSPC (nothing counted then). */
int zvs_ivl_link_wrap(struct zvs_ivl_link *l, uint8_t kind, const uint8_t dst_mac[6],
                      const uint8_t *inner, size_t inner_len, uint8_t *out, size_t cap);
/* The same with the header's flags (frame.h: ZVS_IVL_HF_GUEST_SRC). */
int zvs_ivl_link_wrap_flags(struct zvs_ivl_link *l, uint8_t kind, uint8_t flags,
                            const uint8_t dst_mac[6], const uint8_t *inner, size_t inner_len,
                            uint8_t *out, size_t cap);

/* The last frame wrapped (of `kind`, `inner_len` bytes inside) was never written: its
 * number goes back to the sequence and it is not counted as sent, so a receiver does not
 * count it as lost. Only the latest numbers can be given back, latest first. */
void zvs_ivl_link_unsend(struct zvs_ivl_link *l, uint8_t kind, size_t inner_len);

/* Unwrap a frame received on the IVL port: 0 with the header and the inner frame (inside
 * `frame`), or -1 when it is dropped (counted). */
int zvs_ivl_link_unwrap(struct zvs_ivl_link *l, const uint8_t *frame, size_t len,
                        struct zvs_ivl_hdr *h, const uint8_t **inner, size_t *inner_len);

/* A system left the view (or came back): its sequence starts afresh. */
void zvs_ivl_link_forget(struct zvs_ivl_link *l, uint8_t index);

#endif
