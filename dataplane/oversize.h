/* oversize: frames dropped as too big for where they were going, by the port they came in
 * on, kept until their owner takes them, so that the sender can be named to the operator
 * (a guest MTU that a VXLAN segment cannot carry is reported, never only counted).
 *
 * Owns: a fixed table of ZVS_OVERSIZE_PORTS ingress ports, each with the last such frame's
 * length and how many there were since the last take. Nothing is allocated, and only the
 * drop path writes it: one search of at most ZVS_OVERSIZE_PORTS entries per dropped
 * frame. A port past the table's room in one interval is counted by the drop's own
 * counter only, and recorded in a later interval if it keeps sending such frames.
 * Rules: one writer (the data path); the owner takes the records in the same thread
 * (the daemon's event loop, after each iteration's events). Used by the switch's egress
 * (zvs_port.oversize_out, forward.c) and the VTEP (overlay/vtep.h).
 */
#ifndef ZVS_OVERSIZE_H
#define ZVS_OVERSIZE_H

#include <stdint.h>

#define ZVS_OVERSIZE_PORTS 8

struct zvs_oversize_rec {
    uint16_t in_port;                   /* zvs_frame.in_port */
    uint32_t len;                       /* the last one's bytes as it would have gone out,
                                           less an 802.1Q tag: an Ethernet header and the
                                           IP packet, so the MTU it needs is 14 less */
    uint64_t frames;                    /* dropped since the last take */
};

struct zvs_oversize {
    struct zvs_oversize_rec rec[ZVS_OVERSIZE_PORTS];
    unsigned                n;          /* records in use, in the order of their first */
};

/* A frame of len bytes from in_port dropped as too big. */
void zvs_oversize_note(struct zvs_oversize *o, uint16_t in_port, uint32_t len);
/* Copies the records into out (room for ZVS_OVERSIZE_PORTS) and clears them; returns
 * their number, 0 at once when there is none (cheap enough for every loop iteration). */
unsigned zvs_oversize_take(struct zvs_oversize *o, struct zvs_oversize_rec *out);

#endif
