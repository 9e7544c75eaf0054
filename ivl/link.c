/* link: one system's end of the IVL, counted (link.h). */
#include "ivl/link.h"

#include <string.h>

void zvs_ivl_link_init(struct zvs_ivl_link *l, uint8_t self, uint16_t vswitch,
                       const uint8_t mac[6])
{
    memset(l, 0, sizeof *l);
    l->self = self;
    l->vswitch = vswitch;
    memcpy(l->mac, mac, 6);
}

int zvs_ivl_link_wrap(struct zvs_ivl_link *l, uint8_t kind, const uint8_t dst_mac[6],
                      const uint8_t *inner, size_t inner_len, uint8_t *out, size_t cap)
{
    return zvs_ivl_link_wrap_flags(l, kind, 0, dst_mac, inner, inner_len, out, cap);
}

int zvs_ivl_link_wrap_flags(struct zvs_ivl_link *l, uint8_t kind, uint8_t flags,
                            const uint8_t dst_mac[6], const uint8_t *inner, size_t inner_len,
                            uint8_t *out, size_t cap)
{
    struct zvs_ivl_hdr h = { .kind = kind, .origin = l->self, .flags = flags,
                             .vswitch = l->vswitch, .seq = l->tx_seq };
    int n = zvs_ivl_frame_encap(&h, dst_mac, l->mac, inner, inner_len, out, cap);
    if (n < 0)
        return n;
    l->tx_seq++;
    l->st.tx_frames[kind]++;
    l->st.tx_bytes[kind] += inner_len;
    return n;
}

void zvs_ivl_link_unsend(struct zvs_ivl_link *l, uint8_t kind, size_t inner_len)
{
    l->tx_seq--;
    l->st.tx_frames[kind]--;
    l->st.tx_bytes[kind] -= inner_len;
}

/* The sender's sequence: a gap is lost frames, an older number a reordered one, a number
 * far behind a sequence begun again (link.h). */
static void track(struct zvs_ivl_link *l, uint8_t origin, uint32_t seq)
{
    uint8_t bit = (uint8_t)(1u << origin);
    if (l->rx_seen & bit) {
        int32_t ahead = (int32_t)(seq - l->rx_next[origin]);
        if (ahead < -ZVS_IVL_RESTART_BACK) {
            l->st.rx_restarted++;
            l->rx_next[origin] = seq + 1;
            return;
        }
        if (ahead < 0) {
            l->st.rx_reordered++;
            return;                     /* keep expecting what we expected */
        }
        l->st.rx_lost += (uint32_t)ahead;
    }
    l->rx_seen |= bit;
    l->rx_next[origin] = seq + 1;
}

int zvs_ivl_link_unwrap(struct zvs_ivl_link *l, const uint8_t *frame, size_t len,
                        struct zvs_ivl_hdr *h, const uint8_t **inner, size_t *inner_len)
{
    int rc = zvs_ivl_frame_decap(frame, len, h, inner, inner_len);
    if (rc < 0) {
        l->st.rx_bad[-rc]++;
        return -1;
    }
    if (h->origin == l->self) {
        l->st.rx_own++;
        return -1;
    }
    if (h->vswitch != l->vswitch) {
        l->st.rx_other_vswitch++;
        return -1;
    }
    track(l, h->origin, h->seq);
    l->st.rx_frames[h->kind]++;
    l->st.rx_bytes[h->kind] += *inner_len;
    return 0;
}

void zvs_ivl_link_forget(struct zvs_ivl_link *l, uint8_t index)
{
    if (index >= 1 && index <= ZVS_IVL_MAX_SYSTEMS)
        l->rx_seen &= (uint8_t)~(1u << index);
}
