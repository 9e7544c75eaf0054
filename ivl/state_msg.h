/* state_msg: the messages the systems of an IVL domain replicate over the cluster's
 * agreed-order channel (cluster.h): each system's view of its share of the port group.
 *
 * One kind today, SYSTEM STATE, sent by a system whenever its share changes and again at
 * every configuration change (so a system that joins learns everyone's state at once). It
 * carries what 802.1AX-2020 clause 9 (DRNI) has its portal systems exchange over the
 * intra-portal link, cut to what a shared port group needs: the system's identity and
 * portal index (9.3.4's Portal System Number, 1..3), the aggregator's identity and key
 * (which must agree across the domain, as DRCP's Aggregator ID and Key checks), and the
 * state of each of its ports (9.4.9's Drni_Portal_System_Port_Conversation, here the
 * ports' own Selected/Collecting/Distributing states and their domain-wide numbers).
 *
 * Layout (network byte order), header 54 bytes then 16 per member:
 *   0 'Z' 'I'   2 version (1)   3 type (1: SYSTEM STATE)   4 total length (2)
 *   6 sequence (4, per sender)  10 system name (8, blank padded)   18 system index (1..3)
 *   19 flags (bit 0 aggregating, bit 1 shared; the rest 0)
 *   20 VSWITCH name (8)   28 port group name (8)
 *   36 definition: LACP mode (1), timeout (1), distribution (1), 0 (1), key (2),
 *      system priority (2), system MAC (6), 0 (2)
 *   52 member count (1, 0..8)   53 0 (1)
 *   54 + 16i: RDEV (8, blank padded), port number (2), state (1: bit 0 carrier, 1 selected,
 *      2 collecting, 3 distributing), 0 (1), speed in Mbit/s (4)
 * A decoder refuses anything else (a newer version, a wrong length, reserved bits set, a
 * port number outside the sender's index byte): state from a system we cannot read is
 * never half used.
 */
#ifndef ZVS_IVL_STATE_MSG_H
#define ZVS_IVL_STATE_MSG_H

#include <stddef.h>
#include <stdint.h>

#define ZVS_IVL_MAX_SYSTEMS   3         /* 802.1AX-2020 9.3: a portal has up to three systems */
#define ZVS_IVL_MAX_MEMBERS   8         /* OSA ports one system gives the group */
#define ZVS_IVL_NAME_LEN      8
#define ZVS_IVL_STATE_VERSION 1
#define ZVS_IVL_STATE_HDR     54
#define ZVS_IVL_STATE_MEMBER  16
#define ZVS_IVL_STATE_MAX     (ZVS_IVL_STATE_HDR + ZVS_IVL_MAX_MEMBERS * ZVS_IVL_STATE_MEMBER)

enum zvs_ivl_msg_type { ZVS_IVL_MSG_SYSTEM_STATE = 1 };

#define ZVS_IVL_SF_AGGREGATING 0x01     /* its members are in the LAG (quorate, agreeing) */
#define ZVS_IVL_SF_SHARED      0x02     /* its group is defined SHARED */

#define ZVS_IVL_MS_CARRIER      0x01
#define ZVS_IVL_MS_SELECTED     0x02
#define ZVS_IVL_MS_COLLECTING   0x04
#define ZVS_IVL_MS_DISTRIBUTING 0x08

/* What every system of the domain must define alike for one shared LAG. */
struct zvs_ivl_group_def {
    uint8_t  lacp;                      /* 0 off, 1 active, 2 passive */
    uint8_t  timeout;                   /* 0 long, 1 short */
    uint8_t  distribution;              /* lag's DISTRIBUTION */
    uint16_t key;                       /* actor key */
    uint16_t system_priority;
    uint8_t  system[6];                 /* the actor system id the partner sees */
};

struct zvs_ivl_member {
    char     rdev[ZVS_IVL_NAME_LEN + 1];
    uint16_t port;                      /* 802.1AX port number, domain-wide (port_number.h) */
    uint8_t  state;                     /* ZVS_IVL_MS_* */
    uint32_t speed_mbps;
};

struct zvs_ivl_state {
    uint32_t                 seq;
    char                     system[ZVS_IVL_NAME_LEN + 1];
    uint8_t                  index;     /* 1..ZVS_IVL_MAX_SYSTEMS */
    uint8_t                  flags;     /* ZVS_IVL_SF_* */
    char                     vswitch[ZVS_IVL_NAME_LEN + 1];
    char                     group[ZVS_IVL_NAME_LEN + 1];
    struct zvs_ivl_group_def def;
    uint8_t                  nmembers;
    struct zvs_ivl_member    member[ZVS_IVL_MAX_MEMBERS];
};

/* Why a state message was refused (the domain counts each). */
enum zvs_ivl_state_err {
    ZVS_IVL_SE_SHORT = 1,               /* shorter than the header */
    ZVS_IVL_SE_MAGIC,
    ZVS_IVL_SE_VERSION,                 /* a version we do not speak */
    ZVS_IVL_SE_TYPE,
    ZVS_IVL_SE_LENGTH,                  /* length field, member count and size disagree */
    ZVS_IVL_SE_RESERVED,                /* a reserved bit or byte set */
    ZVS_IVL_SE_NAME,                    /* a name with a byte CP does not allow, or empty */
    ZVS_IVL_SE_INDEX,                   /* system index outside 1..3 */
    ZVS_IVL_SE_PORT,                    /* port number 0, outside the index, or repeated */
    ZVS_IVL_SE_COUNT
};

const char *zvs_ivl_state_err_name(int err);   /* "short", ... for a -ZVS_IVL_SE_* */

/* Encode `s` into out (at least ZVS_IVL_STATE_MAX bytes, or cap): its length, or
 * -EINVAL when s would not decode (the same rules), -ENOSPC when cap is short. */
int zvs_ivl_state_encode(const struct zvs_ivl_state *s, uint8_t *out, size_t cap);
/* Decode: 0, or -ZVS_IVL_SE_* with *s untouched. */
int zvs_ivl_state_decode(const uint8_t *msg, size_t len, struct zvs_ivl_state *s);

/* Two definitions are one LAG's. */
int zvs_ivl_group_def_equal(const struct zvs_ivl_group_def *a,
                            const struct zvs_ivl_group_def *b);

#endif
