/* 802.1Q VLAN rules of a z/VM-style virtual switch.
 *
 * Switch settings follow DEFINE VSWITCH: `VLAN UNAWARE` (tags are data, everything is
 * VID 0) or `VLAN AWARE | defvid`, and `NATIVE natvid | NONE` (the VLAN of untagged
 * frames on trunks and on the uplink, default 1). The VLAN defvid is the default VLAN of
 * grants and is applied by whoever builds a port's grants, not here.
 *
 * A guest port is PORTTYPE ACCESS (the guest sends and receives untagged frames of one
 * VLAN) or TRUNK (tagged frames of its granted VLANs; untagged = the native VLAN, if
 * granted). The uplink is a trunk carrying every VID, tagged, and the native VID untagged.
 *
 * Ingress classifies a frame entering the switch: its VLAN, priority and what tag its
 * bytes carry, or why it is dropped. Egress decides, per frame and port, whether the port
 * may receive the frame and which tag edit (enum zvs_tag_op) zvs_frame_emit applies.
 * Egress runs per frame per port on floods, so it is inline here: a bitmap test and two
 * compares.
 */
#ifndef ZVS_VLAN_H
#define ZVS_VLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "dataplane/frame.h"
#include "dataplane/port.h"

#define ZVS_VID_INVALID     4095        /* reserved VID: frame is dropped as bad VLAN */
#define ZVS_VLAN_NATIVE_DEFAULT 1       /* NATIVE default of DEFINE VSWITCH */

enum zvs_vlan_porttype {
    ZVS_VLAN_ACCESS,                    /* guest sees untagged frames of access_vid */
    ZVS_VLAN_TRUNK,                     /* guest sees tagged frames of granted VIDs */
};

struct zvs_vlan_switch {
    bool     aware;                     /* VLAN AWARE (or defvid) vs VLAN UNAWARE */
    uint16_t native_vid;                /* NATIVE natvid; 0 = NATIVE NONE */
};

struct zvs_vlan_port {
    enum zvs_vlan_porttype porttype;    /* PORTTYPE ACCESS | TRUNK */
    uint16_t access_vid;                /* ACCESS: the port's VLAN; 0 = none (all denied) */
    uint64_t granted[4096 / 64];        /* TRUNK: bit v set = VID v granted (1..4094) */
};

/* Result of ingress classification. */
struct zvs_vlan_class {
    uint16_t vid;                       /* VLAN of the frame in the switch (0 if UNAWARE) */
    uint8_t  pcp;                       /* priority code point of the tag, else 0 */
    bool     tagged;                    /* bytes carry a complete 802.1Q tag at offset 12 */
    uint16_t tag_vid;                   /* VID in that tag (0 = priority tag), else 0 */
};

/* Reset a port to `porttype` with no grants; ACCESS ports get access_vid. */
void zvs_vlan_port_init(struct zvs_vlan_port *p, enum zvs_vlan_porttype porttype,
                        uint16_t access_vid);

/* Grant / revoke the VIDs lo..hi (1 <= lo <= hi <= ZVS_VID_MAX); -EINVAL otherwise. */
int zvs_vlan_grant(struct zvs_vlan_port *p, uint16_t lo, uint16_t hi);
int zvs_vlan_revoke(struct zvs_vlan_port *p, uint16_t lo, uint16_t hi);

/* Grant a z/VM vidset such as "1-10 20 30-40": VIDs and vid1-vid2 ranges separated by
 * blanks, each 1..4094, ranges ascending. All or nothing: on -EINVAL (empty set, bad
 * number, reversed range, stray character) p is unchanged. Adds to existing grants. */
int zvs_vlan_parse_set(const char *text, struct zvs_vlan_port *p);

/* Classify a frame entering the switch through `port` (NULL = the uplink). Returns 0 and
 * fills *out, or -1 with *why = ZVS_DROP_RUNT (< 14 bytes), ZVS_DROP_BAD_VLAN (tag cut
 * short, VID 4095, stacked tags, outer 802.1ad tag) or ZVS_DROP_VLAN_DENIED.
 * On a drop, *out still describes the tag as far as it was read (for tracing).
 * A VLAN UNAWARE switch passes every frame of at least 14 bytes with vid 0; out still
 * describes a complete tag if the bytes carry one. */
int zvs_vlan_ingress(const struct zvs_vlan_switch *sw, const struct zvs_vlan_port *port,
                     const uint8_t *frame, uint32_t len, struct zvs_vlan_class *out,
                     enum zvs_drop *why);

static inline bool zvs_vlan_is_granted(const struct zvs_vlan_port *p, uint16_t vid)
{
    return (p->granted[(vid >> 6) & 63] >> (vid & 63)) & 1;
}

/* Tag edit for a frame of VLAN vid leaving a port untagged (untag) or tagged. */
static inline enum zvs_tag_op zvs_vlan_tag_op(bool untag, uint16_t vid, bool bytes_tagged,
                                              uint16_t bytes_vid)
{
    if (untag)
        return bytes_tagged ? ZVS_TAG_STRIP : ZVS_TAG_KEEP;
    if (!bytes_tagged)
        return ZVS_TAG_PUSH;
    return bytes_vid == vid ? ZVS_TAG_KEEP : ZVS_TAG_REWRITE;
}

/* May a frame of VLAN vid leave through `port` (NULL = uplink)? If so, *op is the tag edit
 * for bytes that carry a tag with bytes_vid (bytes_tagged) or none. PUSH and REWRITE
 * write vid. The uplink and trunks send the native VID untagged, every other VID tagged;
 * access ports send only their VID, untagged. An UNAWARE switch sends everything as is. */
static inline bool zvs_vlan_egress(const struct zvs_vlan_switch *sw,
                                   const struct zvs_vlan_port *port, uint16_t vid,
                                   bool bytes_tagged, uint16_t bytes_vid, enum zvs_tag_op *op)
{
    if (!sw->aware) {
        *op = ZVS_TAG_KEEP;
        return true;
    }
    if (vid == ZVS_VID_NONE || vid > ZVS_VID_MAX)
        return false;
    if (port && port->porttype == ZVS_VLAN_ACCESS) {
        if (vid != port->access_vid)
            return false;
        *op = zvs_vlan_tag_op(true, vid, bytes_tagged, bytes_vid);
        return true;
    }
    if (port && !zvs_vlan_is_granted(port, vid))
        return false;
    *op = zvs_vlan_tag_op(vid == sw->native_vid, vid, bytes_tagged, bytes_vid);
    return true;
}

#endif
