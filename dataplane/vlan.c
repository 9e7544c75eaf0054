/* VLAN classification, grants and vidset parsing.
 *
 * Owns: the 802.1Q rules of ingress (which VLAN a frame entering the switch belongs to,
 * or why it is dropped) and the grant bitmap of a port. Egress is inline in vlan.h.
 *
 * Rules (VLAN AWARE switch):
 *  - Tag parsing: TPID 0x8100 at offset 12 announces a tag; the frame must then hold 18
 *    bytes. VID 0 is a priority tag: the frame counts as untagged, its PCP is kept.
 *    VID 4095 is reserved: bad VLAN. A second tag (0x8100 or 0x88A8 behind the first) or
 *    an outer 802.1ad S-tag (0x88A8): bad VLAN — the switch does not do Q-in-Q.
 *  - Uplink: a VID from the tag, untagged -> native; NATIVE NONE refuses untagged frames.
 *  - ACCESS guest: untagged -> access_vid. A real tag is refused (an access guest does not
 *    choose its VLAN) unless it names access_vid itself: a Linux guest with a VLAN
 *    interface on its own VLAN is not choosing anything, and the frame is delivered with
 *    the tag stripped or kept exactly as for an untagged one.
 *  - TRUNK guest: a tagged VID must be granted; untagged -> native only if the switch has
 *    a native VLAN and the port is granted it.
 * A VLAN UNAWARE switch treats tags as data: every frame of at least a MAC header passes
 * with VID 0; the class still reports a complete tag so PCP is available.
 *
 * Hazards: the DEI bit is neither checked nor changed (a REWRITE keeps PCP, writes DEI 0
 * through zvs_frame_emit). Frames under 14 bytes are runts in every mode.
 */
#include "dataplane/vlan.h"

#include <assert.h>
#include <errno.h>
#include <string.h>

void zvs_vlan_port_init(struct zvs_vlan_port *p, enum zvs_vlan_porttype porttype,
                        uint16_t access_vid)
{
    memset(p, 0, sizeof(*p));
    p->porttype = porttype;
    p->access_vid = access_vid;
}

static int set_range(struct zvs_vlan_port *p, uint16_t lo, uint16_t hi, bool on)
{
    if (lo < 1 || lo > hi || hi > ZVS_VID_MAX)
        return -EINVAL;
    for (uint32_t v = lo; v <= hi; v++) {
        uint64_t bit = UINT64_C(1) << (v & 63);
        if (on)
            p->granted[v >> 6] |= bit;
        else
            p->granted[v >> 6] &= ~bit;
    }
    return 0;
}

int zvs_vlan_grant(struct zvs_vlan_port *p, uint16_t lo, uint16_t hi)
{
    return set_range(p, lo, hi, true);
}

int zvs_vlan_revoke(struct zvs_vlan_port *p, uint16_t lo, uint16_t hi)
{
    return set_range(p, lo, hi, false);
}

/* One VID of a vidset: 1 to 4 decimal digits, value 1..4094. Advances *s. */
static int parse_vid(const char **s, uint16_t *vid)
{
    const char *c = *s;
    uint32_t v = 0;
    int digits = 0;

    while (*c >= '0' && *c <= '9') {
        if (++digits > 4)
            return -EINVAL;
        v = v * 10 + (uint32_t)(*c - '0');
        c++;
    }
    if (digits == 0 || v < 1 || v > ZVS_VID_MAX)
        return -EINVAL;
    *vid = (uint16_t)v;
    *s = c;
    return 0;
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

int zvs_vlan_parse_set(const char *text, struct zvs_vlan_port *p)
{
    struct zvs_vlan_port set;
    const char *s = text;
    int n = 0;

    zvs_vlan_port_init(&set, ZVS_VLAN_TRUNK, 0);
    /* Anything after a VID other than '-', a blank or the end fails the next parse_vid. */
    for (;;) {
        uint16_t lo, hi;

        while (is_blank(*s))
            s++;
        if (*s == '\0')
            break;
        if (parse_vid(&s, &lo) < 0)
            return -EINVAL;
        hi = lo;
        if (*s == '-') {
            s++;
            if (parse_vid(&s, &hi) < 0)
                return -EINVAL;
        }
        if (set_range(&set, lo, hi, true) < 0)
            return -EINVAL;
        n++;
    }
    if (n == 0)
        return -EINVAL;
    for (size_t w = 0; w < sizeof(set.granted) / sizeof(set.granted[0]); w++)
        p->granted[w] |= set.granted[w];
    return 0;
}

/* Read the tag the bytes announce into out. Returns 0, or -1 with *why set. */
static int parse_tag(const uint8_t *frame, uint32_t len, bool aware, struct zvs_vlan_class *out,
                     enum zvs_drop *why)
{
    uint16_t tpid = zvs_be16(frame + 12);

    if (tpid == ZVS_ETHERTYPE_QINQ && aware)
        goto bad;
    if (tpid != ZVS_ETHERTYPE_VLAN)
        return 0;
    if (len < ZVS_ETH_HLEN + ZVS_VLAN_HLEN) {
        if (aware)
            goto bad;
        return 0;                       /* UNAWARE: bytes are data; no complete tag */
    }
    uint16_t tci = zvs_be16(frame + 14);
    uint16_t inner = zvs_be16(frame + 16);
    out->tagged = true;
    out->tag_vid = tci & 0x0FFF;
    out->pcp = (uint8_t)(tci >> 13);
    if (!aware)
        return 0;
    if (out->tag_vid == ZVS_VID_INVALID)
        goto bad;
    if (inner == ZVS_ETHERTYPE_VLAN || inner == ZVS_ETHERTYPE_QINQ)
        goto bad;
    return 0;

bad:
    *why = ZVS_DROP_BAD_VLAN;
    return -1;
}

/* VLAN of a frame with tag VID fv (0 = untagged or priority-tagged) entering `port`, or
 * ZVS_VID_NONE when the port may not send it. */
static uint16_t ingress_vid(const struct zvs_vlan_switch *sw, const struct zvs_vlan_port *port,
                            uint16_t fv)
{
    if (!port)
        return fv ? fv : sw->native_vid;
    if (port->porttype == ZVS_VLAN_ACCESS)
        return fv == 0 || fv == port->access_vid ? port->access_vid : ZVS_VID_NONE;
    if (fv == 0)
        fv = sw->native_vid;            /* NATIVE NONE gives 0, which is never granted */
    return zvs_vlan_is_granted(port, fv) ? fv : ZVS_VID_NONE;
}

int zvs_vlan_ingress(const struct zvs_vlan_switch *sw, const struct zvs_vlan_port *port,
                     const uint8_t *frame, uint32_t len, struct zvs_vlan_class *out,
                     enum zvs_drop *why)
{
    memset(out, 0, sizeof(*out));
    if (len < ZVS_ETH_HLEN) {
        *why = ZVS_DROP_RUNT;
        return -1;
    }
    if (parse_tag(frame, len, sw->aware, out, why) < 0)
        return -1;
    if (!sw->aware)
        return 0;
    out->vid = ingress_vid(sw, port, out->tagged ? out->tag_vid : 0);
    if (out->vid == ZVS_VID_NONE) {
        *why = ZVS_DROP_VLAN_DENIED;
        return -1;
    }
    assert(out->vid <= ZVS_VID_MAX);
    return 0;
}
