/* Slow Protocols PDU codec: LACPDU and Marker PDU (IEEE 802.1AX, ex-802.3ad clause 43).
 *
 * Pure logic, libc only: parse a received Ethernet frame into host-order structs, build
 * the 124-byte frames we send. The wire layouts live in pdu.c; this header holds only the
 * host-order view. The rules (what is validated, which errors count as illegal_rx and which
 * as unknown_rx) are in lacp/README.md and at the top of pdu.c.
 */
#ifndef ZVS_LACP_PDU_H
#define ZVS_LACP_PDU_H

#include <stdbool.h>
#include <stdint.h>

/* Framing (Slow Protocols: IEEE 802.3 Annex 43B, Annex 57A since 802.3-2008; LACPDU:
 * 802.1AX-2008 5.4.2 / 2014 6.4.2). */
#define ZVS_SLOW_ETHERTYPE          0x8809  /* Slow_Protocols_Type */
#define ZVS_SLOW_SUBTYPE_LACP       1
#define ZVS_SLOW_SUBTYPE_MARKER     2
#define ZVS_SLOW_SUBTYPE_MAX        10      /* 3..10 valid but not ours (OAM, OSSP...) */
#define ZVS_LACP_VERSION            1       /* what we send */
#define ZVS_MARKER_VERSION          1       /* the only Marker version accepted */
#define ZVS_SLOW_PDU_LEN            110     /* LACPDU and Marker PDU payload */
#define ZVS_SLOW_FRAME_LEN          124     /* 14-byte Ethernet header + 110, no FCS */
/* The longest frame a Slow Protocols PDU may come in: an untagged frame of 1518 bytes
 * (802.3 4.4.2 maxUntaggedFrameSize, FCS included; a tagged one is refused anyway).
 * 802.1AX-2014 version 2 LACPDUs carry TLVs after the Collector TLV (6.4.2.3), so a
 * receiver must look at the whole frame, not at the first 124 bytes. */
#define ZVS_SLOW_FRAME_MAX          1518

/* Slow_Protocols_Multicast destination, 01:80:C2:00:00:02. */
extern const uint8_t zvs_slow_protocols_mac[6];

/* Actor/Partner state octet (802.1AX 6.4.2.3). */
#define ZVS_LACP_STATE_ACTIVITY     0x01    /* 1 = Active LACP, 0 = Passive */
#define ZVS_LACP_STATE_TIMEOUT      0x02    /* 1 = Short timeout (1 s PDUs), 0 = Long */
#define ZVS_LACP_STATE_AGGREGATION  0x04    /* 1 = aggregatable, 0 = Individual */
#define ZVS_LACP_STATE_SYNC         0x08    /* attached to the right aggregator */
#define ZVS_LACP_STATE_COLLECTING   0x10    /* receive path enabled */
#define ZVS_LACP_STATE_DISTRIBUTING 0x20    /* transmit path enabled */
#define ZVS_LACP_STATE_DEFAULTED    0x40    /* partner info is administrative default */
#define ZVS_LACP_STATE_EXPIRED      0x80    /* receive machine in EXPIRED */

/* One Actor or Partner Information TLV, host order. */
struct zvs_lacp_info {
    uint16_t system_priority;           /* System ID, first half */
    uint8_t  system[6];                 /* System ID, second half: the system MAC */
    uint16_t key;                       /* operational key */
    uint16_t port_priority;             /* Port ID, first half */
    uint16_t port;                      /* Port ID, second half: port number (non-zero) */
    uint8_t  state;                     /* ZVS_LACP_STATE_* bits */
};

/* An LACPDU, host order. Reserved fields are not kept (ignored on receive, zero on send). */
struct zvs_lacpdu {
    uint8_t  version;                   /* as received; ZVS_LACP_VERSION to send */
    struct zvs_lacp_info actor;         /* the sender */
    struct zvs_lacp_info partner;       /* what the sender believes about us */
    uint16_t collector_max_delay;       /* tens of microseconds; everyone sends 0 */
};

/* A Marker Information or Marker Response PDU, host order. */
struct zvs_marker {
    uint8_t  version;                   /* ZVS_MARKER_VERSION (the only one parsed) */
    bool     response;                  /* TLV type 2 (Response), else 1 (Information) */
    uint16_t requester_port;            /* port number of the requester */
    uint8_t  requester_system[6];       /* system MAC of the requester */
    uint32_t transaction_id;            /* chosen by the requester */
};

/* What a frame is, when zvs_slow_parse accepts it. */
enum zvs_slow_kind {
    ZVS_SLOW_LACP,                      /* *lacp filled */
    ZVS_SLOW_MARKER,                    /* *marker filled */
    ZVS_SLOW_OTHER,                     /* valid slow frame, subtype 3..10 (OAM, OSSP...) */
};

/* Why zvs_slow_parse refused a frame. zvs_slow_rx_is_illegal/_unknown map a parse result to
 * the MIB counters; see lacp/README.md for the table. */
enum zvs_lacp_err {
    ZVS_LACP_ERR_SHORT = -1,            /* illegal: shorter than its PDU requires */
    ZVS_LACP_ERR_NOT_SLOW = -2,         /* neither: not slow DA, not slow EtherType */
    ZVS_LACP_ERR_DA = -3,               /* illegal: slow EtherType, DA not 01:80:C2:00:00:02 */
    ZVS_LACP_ERR_ETHERTYPE = -4,        /* unknown: slow DA, EtherType not 0x8809 */
    ZVS_LACP_ERR_TAGGED = -5,           /* illegal: 802.1Q/802.1ad tag before 0x8809 */
    ZVS_LACP_ERR_SUBTYPE = -6,          /* illegal: subtype 0 or 11..255 */
    ZVS_LACP_ERR_ACTOR_TLV = -7,        /* illegal: actor TLV not type 1 length 20 */
    ZVS_LACP_ERR_PARTNER_TLV = -8,      /* illegal: partner TLV not type 2 length 20 */
    ZVS_LACP_ERR_COLLECTOR_TLV = -9,    /* illegal: collector TLV not type 3 length 16 */
    ZVS_LACP_ERR_TERMINATOR = -10,      /* illegal: no terminator TLV (type 0 length 0) */
    ZVS_LACP_ERR_MARKER_VERSION = -11,  /* illegal: Marker version not 1 */
    ZVS_LACP_ERR_MARKER_TLV = -12,      /* illegal: Marker TLV not type 1/2 length 16 */
};
#define ZVS_LACP_ERR_COUNT 12           /* number of ZVS_LACP_ERR_* codes, -1..-12 */

/* Parse a whole received Ethernet frame (DA, SA, EtherType at offset 12, untagged).
 * Returns an enum zvs_slow_kind (>= 0) or a negative ZVS_LACP_ERR_*. Only the struct that
 * matches the kind is written; either pointer may be NULL if the caller does not want that
 * kind (the frame is still validated). Bytes past the PDU (padding, FCS) are ignored.
 * Reads at most `len` bytes of `frame`. */
int zvs_slow_parse(const uint8_t *frame, uint32_t len, struct zvs_lacpdu *lacp,
                   struct zvs_marker *marker);

/* MIB counter of a zvs_slow_parse result: illegal_rx (badly formed slow frame) and
 * unknown_rx (slow frame we do not handle, or slow DA without slow EtherType). At most one
 * is true; both are false for LACP, MARKER and ZVS_LACP_ERR_NOT_SLOW. */
bool zvs_slow_rx_is_illegal(int rc);
bool zvs_slow_rx_is_unknown(int rc);

/* Build a 124-byte frame: DA 01:80:C2:00:00:02, SA src_mac (the port's own MAC), EtherType
 * 0x8809, the PDU, reserved bytes zero. Returns 124, or -EINVAL if cap < 124 or the PDU
 * is one we would refuse to receive: LACP version 0 (a zero-initialised struct), Marker
 * version other than 1. */
int zvs_lacpdu_build(const struct zvs_lacpdu *pdu, const uint8_t src_mac[6], uint8_t *buf,
                     uint32_t cap);
/* TLV type 2 if m->response, else 1 (Marker Information). */
int zvs_marker_build(const struct zvs_marker *m, const uint8_t src_mac[6], uint8_t *buf,
                     uint32_t cap);
/* The Marker Response to a received Marker Information: the same fields, TLV type 2; the
 * requester fields are echoed, not replaced by ours (802.1AX 6.5.4). */
int zvs_marker_response_build(const struct zvs_marker *info, const uint8_t src_mac[6],
                              uint8_t *buf, uint32_t cap);

/* Short name of a ZVS_LACP_ERR_* for counters and logs ("short", "bad-actor-tlv", ...);
 * "ok" for a result >= 0, "invalid-code" for anything else. Never NULL. */
const char *zvs_lacp_err_name(int err);

/* The state octet as set-bit names in bit order, comma separated, no spaces:
 * ACT SHORT AGG SYNC COL DIST DEF EXP (0x3F -> "ACT,SHORT,AGG,SYNC,COL,DIST"); "-" for 0.
 * All eight bits take 35 characters, hence the 40-byte buffer. Returns buf. */
#define ZVS_LACP_STATE_STR_LEN 40
const char *zvs_lacp_state_str(uint8_t state, char buf[ZVS_LACP_STATE_STR_LEN]);

/* A PDU whose actor System ID (priority and MAC) is our own: our PDUs came back (ports
 * cabled to each other, a reflecting peer). The caller ignores such a PDU. */
bool zvs_lacp_is_loopback(const struct zvs_lacpdu *pdu, uint16_t our_sys_prio,
                          const uint8_t our_system[6]);

#endif
