/* oversize: frames dropped as too big for where they were going, by the port they came in
 * on, kept until their owner takes them, so that the sender can be named to the operator
 * (a guest MTU that a VXLAN segment cannot carry is reported, never only counted).
 *
 * Owns: per ingress port index (all ZVS_OVERSIZE_PORTS of a switch) the last such frame's
 * length and how many there were since the last take, and a bitmap of the ports with
 * records not taken. Every port that sends such frames is recorded, however many do
 * (a fixed table of slots let some NICs be crowded out for good). Nothing is allocated,
 * and only the drop path writes it: an index and a bit per dropped frame.
 * Rules: one writer (the data path); the owner takes the records in the same thread
 * (the daemon's event loop, after each iteration's events), walking the bitmap. Used by
 * the switch (frames dropped at an uplink egress, zvs_switch_take_oversize) and the
 * VTEP (overlay/vtep.h).
 */
#ifndef ZVS_OVERSIZE_H
#define ZVS_OVERSIZE_H

#include <stdint.h>

#define ZVS_OVERSIZE_PORTS 1024         /* port indices: ZVS_MAX_PORTS (switch.h) */

struct zvs_oversize_rec {
    uint16_t in_port;                   /* zvs_frame.in_port */
    uint32_t len;                       /* the last one's bytes as it would have gone out,
                                           less an 802.1Q tag: an Ethernet header and the
                                           IP packet, so the MTU it needs is 14 less */
    uint64_t frames;                    /* dropped since the last take */
};

struct zvs_oversize {
    uint64_t dirty[ZVS_OVERSIZE_PORTS / 64];    /* ports with records not taken */
    unsigned ndirty;                            /* bits set in dirty */
    uint32_t len[ZVS_OVERSIZE_PORTS];           /* by port index, as in the record */
    uint32_t frames[ZVS_OVERSIZE_PORTS];
};

/* A frame of len bytes from in_port dropped as too big (an in_port past the table, which
 * no switch port has, is counted by the drop's own counter only). */
void zvs_oversize_note(struct zvs_oversize *o, uint16_t in_port, uint32_t len);
/* Moves up to `room` records into out, lowest port index first, and clears them; returns
 * their number (fewer than room: none is left). 0 at once when there is none (cheap
 * enough for every loop iteration). */
unsigned zvs_oversize_take(struct zvs_oversize *o, struct zvs_oversize_rec *out,
                           unsigned room);

#endif
