/* Frames on the wire: what one frame descriptor stands for on an Ethernet link.
 *
 * z/VM counts what an OSA sends and receives: Ethernet frames of at most MTU + 14 (+4
 * tagged) bytes, without the FCS. A frame descriptor may instead hold a GSO super-frame
 * of up to 64 KB (a TCP/UDP stream from a tap, a veth or a QDIO guest with offloads),
 * which the kernel, the egress or the next NIC cuts into gso_size segments. Every packet
 * and byte counter of a port (and so QUERY VSWITCH / NIC, the monitor records and the
 * screens) counts the segments, so the numbers match a real OSA carrying the same stream
 * (issue 15): segments = ceil(payload / gso_size), bytes = len + (segments - 1) * headers,
 * because every segment repeats the headers and only the last one may be short.
 *
 * Cost: a plain frame is one branch (zvs_wire_of inlines to "1 frame, len bytes"); a
 * super-frame is a header-length lookup and one division, never a parse of the payload.
 *
 * Header length: the L4 header offset is csum_start (a GSO frame has NEEDS_CSUM, and
 * vnet.c refuses to segment one whose csum_start is not the L4 header), plus the TCP data
 * offset read from the frame, or plus 8 for UDP; legacy UFO repeats only the headers up to
 * the IP header's end (csum_start), its fragments carrying multiples of 8 bytes. A UDP
 * tunnel super-frame (GSO_UDP_TUNNEL, a VXLAN uplink's to its underlay) counts as its
 * inner type: csum_start is the inner L4 header's offset in the whole frame, so every
 * segment repeats the outer headers too. The virtio header's hdr_len is used when
 * there is no NEEDS_CSUM (Linux fills it with the skb's linear length, which is not
 * always the header length), and when the frame's first piece ends before the L4 header
 * (a VXLAN uplink's scattered copy, its first piece the outer header alone: its hdr_len
 * is the one the encapsulation computed). Metadata that gives no usable
 * header length (hdr_len 0 or past the frame, gso_size 0) counts the frame as one.
 * Counting never reads past the frame's first piece and never fails; whether the
 * super-frame is well formed is vnet.c's business when it has to be segmented.
 */
#ifndef ZVS_WIRE_H
#define ZVS_WIRE_H

#include <stdint.h>

#include "dataplane/frame.h"

struct zvs_wire {
    uint32_t frames;                    /* Ethernet frames on the wire (>= 1) */
    uint64_t bytes;                     /* their bytes, headers repeated, no FCS (a 64 KB
                                           frame with gso_size 1 passes 2^32) */
};

/* A super-frame's segments and bytes; out_len is the frame's length as written (len, or
 * len -/+ 4 after a tag edit: the headers of every segment change by the same 4 bytes). */
struct zvs_wire zvs_wire_gso(const struct zvs_frame *f, uint32_t out_len);

/* What f is on the wire when written with out_len bytes (zvs_frame_out_len; f->len for
 * what it was on the wire it came from). */
static inline struct zvs_wire zvs_wire_of(const struct zvs_frame *f, uint32_t out_len)
{
    if (__builtin_expect(f->vnet.gso_type == ZVS_VNET_GSO_NONE, 1))
        return (struct zvs_wire){ 1, out_len };
    return zvs_wire_gso(f, out_len);
}

#endif
