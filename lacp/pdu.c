/* Slow Protocols PDU codec: LACPDU and Marker PDU.
 *
 * Owns: the wire layouts (below, byte arrays only, so alignment 1 and no packing pragma),
 * receive validation and the builders. No I/O, no clock, no allocation.
 *
 * Receive rules, in the order they are applied (the first failing one is returned):
 *   1. len < 14                                   -> SHORT
 *   2. 802.1Q/802.1ad tag whose inner type is 0x8809 -> TAGGED (LACPDUs are never tagged)
 *   3. EtherType != 0x8809: slow DA -> ETHERTYPE, else NOT_SLOW
 *   4. DA != 01:80:C2:00:00:02                    -> DA
 *   5. no subtype byte -> SHORT; subtype 0 or > 10 -> SUBTYPE; 3..10 -> ZVS_SLOW_OTHER
 *   6. LACP / Marker: fewer than 110 payload bytes -> SHORT; more are padding or FCS.
 *   7. LACP: version NOT validated (802.1AX 6.4.2.3 / 802.3 43.4.12: a receiver shall not
 *      validate it, so later versions interoperate). Actor TLV type 1 len 20, Partner type 2
 *      len 20, Collector type 3 len 16. Version 1: Terminator (type 0 len 0) at payload 58.
 *      Version >= 2 may carry v2 TLVs (Port Algorithm, Conversation Digest/Masks) between
 *      Collector and Terminator, so from payload 58 the TLVs are walked within the frame:
 *      each needs length >= 2 and must end inside the frame, and the walk must meet a
 *      Terminator; the v2 TLVs themselves are ignored. Reserved bytes are ignored.
 *   8. Marker: version must be 1 (as FreeBSD); TLV type 1 or 2, length 16 (not 0x16: the
 *      Linux header comment is a typo); Terminator at payload 18. Pad/reserved ignored.
 * Hazards: the length of a frame is never trusted beyond `len`; every read of the PDU is
 * behind the length check of rule 6 or, for the v2 walk, a per-TLV bound.
 */
#include "lacp/pdu.h"

#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>

/* ---- wire layouts ---------------------------------------------------------------------- */

struct eth_hdr_wire {
    uint8_t dst[6];                     /* Slow_Protocols_Multicast */
    uint8_t src[6];                     /* the sending port's own MAC */
    uint8_t type[2];                    /* 0x8809 */
};

struct lacp_info_wire {
    uint8_t tlv_type;                   /* 1 actor, 2 partner */
    uint8_t tlv_len;                    /* 20, the whole TLV */
    uint8_t system_priority[2];
    uint8_t system[6];
    uint8_t key[2];
    uint8_t port_priority[2];
    uint8_t port[2];
    uint8_t state;
    uint8_t reserved[3];
};

struct lacp_collector_wire {
    uint8_t tlv_type;                   /* 3 */
    uint8_t tlv_len;                    /* 16 */
    uint8_t max_delay[2];               /* CollectorMaxDelay, tens of microseconds */
    uint8_t reserved[12];
};

struct lacpdu_wire {
    uint8_t subtype;                    /* 1 */
    uint8_t version;
    struct lacp_info_wire actor;        /* payload 2 */
    struct lacp_info_wire partner;      /* payload 22 */
    struct lacp_collector_wire collector; /* payload 42 */
    uint8_t term_type;                  /* payload 58: 0 */
    uint8_t term_len;                   /* 0 */
    uint8_t reserved[50];
};

struct marker_wire {
    uint8_t subtype;                    /* 2 */
    uint8_t version;                    /* 1 */
    uint8_t tlv_type;                   /* 1 Information, 2 Response */
    uint8_t tlv_len;                    /* 16 */
    uint8_t requester_port[2];
    uint8_t requester_system[6];
    uint8_t transaction_id[4];
    uint8_t pad[2];
    uint8_t term_type;                  /* payload 18: 0 */
    uint8_t term_len;                   /* 0 */
    uint8_t reserved[90];
};

_Static_assert(sizeof(struct eth_hdr_wire) == 14, "Ethernet header is 14 bytes");
_Static_assert(sizeof(struct lacp_info_wire) == 20, "Actor/Partner TLV is 20 bytes");
_Static_assert(sizeof(struct lacp_collector_wire) == 16, "Collector TLV is 16 bytes");
_Static_assert(sizeof(struct lacpdu_wire) == ZVS_SLOW_PDU_LEN, "LACPDU is 110 bytes");
_Static_assert(sizeof(struct marker_wire) == ZVS_SLOW_PDU_LEN, "Marker PDU is 110 bytes");
_Static_assert(offsetof(struct lacpdu_wire, term_type) == 58, "LACP Terminator at 58");
_Static_assert(offsetof(struct marker_wire, term_type) == 18, "Marker Terminator at 18");

#define ETH_HDR_LEN          14
#define TLV_ACTOR            1
#define TLV_PARTNER          2
#define TLV_COLLECTOR        3
#define TLV_TERMINATOR       0
#define TLV_MARKER_INFO      1
#define TLV_MARKER_RESPONSE  2
#define LEN_INFO_TLV         20
#define LEN_COLLECTOR_TLV    16
#define LEN_MARKER_TLV       16
#define ETHERTYPE_CTAG       0x8100
#define ETHERTYPE_STAG       0x88A8

const uint8_t zvs_slow_protocols_mac[6] = { 0x01, 0x80, 0xC2, 0x00, 0x00, 0x02 };

static uint16_t get16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* ---- receive ---------------------------------------------------------------------------- */

static void info_decode(const struct lacp_info_wire *w, struct zvs_lacp_info *info)
{
    info->system_priority = get16(w->system_priority);
    memcpy(info->system, w->system, sizeof(info->system));
    info->key = get16(w->key);
    info->port_priority = get16(w->port_priority);
    info->port = get16(w->port);
    info->state = w->state;
}

/* Version >= 2: walk the TLVs that start at payload 58 up to a Terminator, within the
 * `avail` bytes of payload the frame holds. */
static bool v2_tlvs_terminated(const uint8_t *pdu, uint32_t avail)
{
    uint32_t off = offsetof(struct lacpdu_wire, term_type);

    while (off + 2 <= avail) {
        uint8_t type = pdu[off];
        uint8_t tlv_len = pdu[off + 1];

        if (type == TLV_TERMINATOR)
            return tlv_len == 0;
        if (tlv_len < 2 || tlv_len > avail - off)
            return false;
        off += tlv_len;
    }
    return false;
}

static int lacpdu_parse(const uint8_t *pdu, uint32_t avail, struct zvs_lacpdu *out)
{
    const struct lacpdu_wire *w = (const struct lacpdu_wire *)pdu;

    if (avail < sizeof(*w))
        return ZVS_LACP_ERR_SHORT;
    if (w->actor.tlv_type != TLV_ACTOR || w->actor.tlv_len != LEN_INFO_TLV)
        return ZVS_LACP_ERR_ACTOR_TLV;
    if (w->partner.tlv_type != TLV_PARTNER || w->partner.tlv_len != LEN_INFO_TLV)
        return ZVS_LACP_ERR_PARTNER_TLV;
    if (w->collector.tlv_type != TLV_COLLECTOR || w->collector.tlv_len != LEN_COLLECTOR_TLV)
        return ZVS_LACP_ERR_COLLECTOR_TLV;
    if (w->version <= 1) {
        if (w->term_type != TLV_TERMINATOR || w->term_len != 0)
            return ZVS_LACP_ERR_TERMINATOR;
    } else if (!v2_tlvs_terminated(pdu, avail)) {
        return ZVS_LACP_ERR_TERMINATOR;
    }
    if (out) {
        out->version = w->version;
        info_decode(&w->actor, &out->actor);
        info_decode(&w->partner, &out->partner);
        out->collector_max_delay = get16(w->collector.max_delay);
    }
    return ZVS_SLOW_LACP;
}

static int marker_parse(const uint8_t *pdu, uint32_t avail, struct zvs_marker *out)
{
    const struct marker_wire *w = (const struct marker_wire *)pdu;

    if (avail < sizeof(*w))
        return ZVS_LACP_ERR_SHORT;
    if (w->version != ZVS_MARKER_VERSION)
        return ZVS_LACP_ERR_MARKER_VERSION;
    if ((w->tlv_type != TLV_MARKER_INFO && w->tlv_type != TLV_MARKER_RESPONSE) ||
        w->tlv_len != LEN_MARKER_TLV)
        return ZVS_LACP_ERR_MARKER_TLV;
    if (w->term_type != TLV_TERMINATOR || w->term_len != 0)
        return ZVS_LACP_ERR_TERMINATOR;
    if (out) {
        out->version = w->version;
        out->response = w->tlv_type == TLV_MARKER_RESPONSE;
        out->requester_port = get16(w->requester_port);
        memcpy(out->requester_system, w->requester_system, sizeof(out->requester_system));
        out->transaction_id = get32(w->transaction_id);
    }
    return ZVS_SLOW_MARKER;
}

/* Rules 1-4: is this an untagged frame to the slow DA with the slow EtherType? */
static int slow_header_check(const uint8_t *frame, uint32_t len)
{
    const struct eth_hdr_wire *eh = (const struct eth_hdr_wire *)frame;
    uint16_t type;
    bool slow_da;

    if (len < sizeof(*eh))
        return ZVS_LACP_ERR_SHORT;
    type = get16(eh->type);
    slow_da = memcmp(eh->dst, zvs_slow_protocols_mac, sizeof(eh->dst)) == 0;
    if ((type == ETHERTYPE_CTAG || type == ETHERTYPE_STAG) && len >= sizeof(*eh) + 4 &&
        get16(frame + sizeof(*eh) + 2) == ZVS_SLOW_ETHERTYPE)
        return ZVS_LACP_ERR_TAGGED;
    if (type != ZVS_SLOW_ETHERTYPE)
        return slow_da ? ZVS_LACP_ERR_ETHERTYPE : ZVS_LACP_ERR_NOT_SLOW;
    if (!slow_da)
        return ZVS_LACP_ERR_DA;
    return 0;
}

int zvs_slow_parse(const uint8_t *frame, uint32_t len, struct zvs_lacpdu *lacp,
                   struct zvs_marker *marker)
{
    const uint8_t *pdu;
    uint32_t avail;
    int rc;

    assert(frame || len == 0);
    rc = slow_header_check(frame, len);
    if (rc < 0)
        return rc;
    pdu = frame + ETH_HDR_LEN;
    avail = len - ETH_HDR_LEN;
    if (avail < 1)
        return ZVS_LACP_ERR_SHORT;
    switch (pdu[0]) {
    case ZVS_SLOW_SUBTYPE_LACP:
        return lacpdu_parse(pdu, avail, lacp);
    case ZVS_SLOW_SUBTYPE_MARKER:
        return marker_parse(pdu, avail, marker);
    default:
        if (pdu[0] == 0 || pdu[0] > ZVS_SLOW_SUBTYPE_MAX)
            return ZVS_LACP_ERR_SUBTYPE;
        return ZVS_SLOW_OTHER;
    }
}

bool zvs_slow_rx_is_unknown(int rc)
{
    return rc == ZVS_SLOW_OTHER || rc == ZVS_LACP_ERR_ETHERTYPE;
}

bool zvs_slow_rx_is_illegal(int rc)
{
    return rc < 0 && rc >= -ZVS_LACP_ERR_COUNT && rc != ZVS_LACP_ERR_NOT_SLOW &&
           rc != ZVS_LACP_ERR_ETHERTYPE;
}

/* ---- send ------------------------------------------------------------------------------- */

/* The 124 bytes zeroed, the Ethernet header written; returns the payload. */
static uint8_t *frame_start(const uint8_t src_mac[6], uint8_t *buf)
{
    struct eth_hdr_wire *eh = (struct eth_hdr_wire *)buf;

    memset(buf, 0, ZVS_SLOW_FRAME_LEN);
    memcpy(eh->dst, zvs_slow_protocols_mac, sizeof(eh->dst));
    memcpy(eh->src, src_mac, sizeof(eh->src));
    put16(eh->type, ZVS_SLOW_ETHERTYPE);
    return buf + ETH_HDR_LEN;
}

static void info_encode(const struct zvs_lacp_info *info, uint8_t tlv_type,
                        struct lacp_info_wire *w)
{
    w->tlv_type = tlv_type;
    w->tlv_len = LEN_INFO_TLV;
    put16(w->system_priority, info->system_priority);
    memcpy(w->system, info->system, sizeof(w->system));
    put16(w->key, info->key);
    put16(w->port_priority, info->port_priority);
    put16(w->port, info->port);
    w->state = info->state;
}

int zvs_lacpdu_build(const struct zvs_lacpdu *pdu, const uint8_t src_mac[6], uint8_t *buf,
                     uint32_t cap)
{
    struct lacpdu_wire *w;

    assert(pdu && src_mac && (buf || cap == 0));
    if (cap < ZVS_SLOW_FRAME_LEN || pdu->version == 0)
        return -EINVAL;
    w = (struct lacpdu_wire *)frame_start(src_mac, buf);
    w->subtype = ZVS_SLOW_SUBTYPE_LACP;
    w->version = pdu->version;
    info_encode(&pdu->actor, TLV_ACTOR, &w->actor);
    info_encode(&pdu->partner, TLV_PARTNER, &w->partner);
    w->collector.tlv_type = TLV_COLLECTOR;
    w->collector.tlv_len = LEN_COLLECTOR_TLV;
    put16(w->collector.max_delay, pdu->collector_max_delay);
    /* Terminator and reserved bytes: zero from frame_start. */
    return ZVS_SLOW_FRAME_LEN;
}

int zvs_marker_build(const struct zvs_marker *m, const uint8_t src_mac[6], uint8_t *buf,
                     uint32_t cap)
{
    struct marker_wire *w;

    assert(m && src_mac && (buf || cap == 0));
    if (cap < ZVS_SLOW_FRAME_LEN || m->version != ZVS_MARKER_VERSION)
        return -EINVAL;
    w = (struct marker_wire *)frame_start(src_mac, buf);
    w->subtype = ZVS_SLOW_SUBTYPE_MARKER;
    w->version = m->version;
    w->tlv_type = m->response ? TLV_MARKER_RESPONSE : TLV_MARKER_INFO;
    w->tlv_len = LEN_MARKER_TLV;
    put16(w->requester_port, m->requester_port);
    memcpy(w->requester_system, m->requester_system, sizeof(w->requester_system));
    put32(w->transaction_id, m->transaction_id);
    return ZVS_SLOW_FRAME_LEN;
}

int zvs_marker_response_build(const struct zvs_marker *info, const uint8_t src_mac[6],
                              uint8_t *buf, uint32_t cap)
{
    struct zvs_marker resp;

    assert(info);
    resp = *info;
    resp.response = true;
    return zvs_marker_build(&resp, src_mac, buf, cap);
}

/* ---- names ------------------------------------------------------------------------------ */

static const char *const err_names[ZVS_LACP_ERR_COUNT] = {
    [-1 - ZVS_LACP_ERR_SHORT] = "short",
    [-1 - ZVS_LACP_ERR_NOT_SLOW] = "not-slow",
    [-1 - ZVS_LACP_ERR_DA] = "bad-da",
    [-1 - ZVS_LACP_ERR_ETHERTYPE] = "bad-ethertype",
    [-1 - ZVS_LACP_ERR_TAGGED] = "tagged",
    [-1 - ZVS_LACP_ERR_SUBTYPE] = "bad-subtype",
    [-1 - ZVS_LACP_ERR_ACTOR_TLV] = "bad-actor-tlv",
    [-1 - ZVS_LACP_ERR_PARTNER_TLV] = "bad-partner-tlv",
    [-1 - ZVS_LACP_ERR_COLLECTOR_TLV] = "bad-collector-tlv",
    [-1 - ZVS_LACP_ERR_TERMINATOR] = "bad-terminator",
    [-1 - ZVS_LACP_ERR_MARKER_VERSION] = "bad-marker-version",
    [-1 - ZVS_LACP_ERR_MARKER_TLV] = "bad-marker-tlv",
};

const char *zvs_lacp_err_name(int err)
{
    if (err >= 0)
        return "ok";
    if (err < -ZVS_LACP_ERR_COUNT)
        return "invalid-code";
    assert(err_names[-1 - err]);
    return err_names[-1 - err];
}

const char *zvs_lacp_state_str(uint8_t state, char buf[ZVS_LACP_STATE_STR_LEN])
{
    static const char *const bit_names[8] = {
        "ACT", "SHORT", "AGG", "SYNC", "COL", "DIST", "DEF", "EXP",
    };
    size_t n = 0;

    buf[0] = '\0';
    for (unsigned bit = 0; bit < 8; bit++) {
        size_t name_len;

        if (!(state & (1u << bit)))
            continue;
        if (n)
            buf[n++] = ',';
        name_len = strlen(bit_names[bit]);
        memcpy(buf + n, bit_names[bit], name_len + 1);
        n += name_len;
    }
    assert(n < ZVS_LACP_STATE_STR_LEN);
    if (n == 0)
        memcpy(buf, "-", 2);
    return buf;
}

bool zvs_lacp_is_loopback(const struct zvs_lacpdu *pdu, uint16_t our_sys_prio,
                          const uint8_t our_system[6])
{
    assert(pdu && our_system);
    return pdu->actor.system_priority == our_sys_prio &&
           memcmp(pdu->actor.system, our_system, sizeof(pdu->actor.system)) == 0;
}
