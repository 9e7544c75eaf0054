/* Monitor records, z/VM's shape: the decoded form the daemon fills and perfkit reads, and
 * the byte codec (20-byte MRRECHDR header, big-endian integers, 8-byte blank-padded EBCDIC
 * names, S/390 TOD clock). Layouts: monitor/RECORDS.md (z/VM's field names; offsets where
 * z/VM's are unknown are ours and say so).
 *
 *   D6R21  MRIODVSW  Virtual Switch Activity (sample), one per uplink device (each member
 *                    of a port group): counters both ways, LACPDUs and Markers, INTERVAL
 *   D6R22  MRIODVSF  Virtual Switch Failure (event): an uplink device failed
 *   D6R23  MRIODVSR  Virtual Switch Recovery (event): it came (back) up
 *   D8R1   MRVNDSES  Virtual NIC Session Activity (sample), one per coupled NIC
 *   D8R2   MRVNDLSU  Virtual NIC link up (event)
 *   D8R3   MRVNDLSD  Virtual NIC link down (event)
 *   D15R1  (ours)    Resolver activity (sample): the watched names' cumulative counters
 *   D15R2  (ours)    Resolver name event: a watched name's addresses or state changed
 * Domain 15 is one IBM does not define: a reader of z/VM monitor data skips its records by
 * MRHDRLEN, as it skips every domain it does not know.
 *
 * Pure: no I/O, no clock. Names are kept in ASCII upper case here and converted at the
 * codec boundary.
 */
#ifndef ZVS_MONREC_H
#define ZVS_MONREC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ZVS_MON_HDR_LEN        20
#define ZVS_MON_DOMAIN_IO      6
#define ZVS_MON_DOMAIN_NET     8
#define ZVS_MON_REC_D6R21      21
#define ZVS_MON_REC_D6R22      22
#define ZVS_MON_REC_D6R23      23
#define ZVS_MON_REC_D8R1       1
#define ZVS_MON_REC_D8R2       2
#define ZVS_MON_REC_D8R3       3
#define ZVS_MON_DOMAIN_ZVS     15       /* ours: no IBM domain has this number */
#define ZVS_MON_REC_D15R1      1
#define ZVS_MON_REC_D15R2      2
#define ZVS_MON_NAME_LEN       8        /* CP names: 8 bytes blank padded on the wire */
#define ZVS_MON_RECORD_MAX     768      /* no record of ours is longer (D6R21 v4 with its
                                           discard reasons: 724, D15R2: 576) */

/* Record layout versions; the monitor file says which one its records use.
 *   1: our first layout: D6R21 168 bytes with our fields at 80-167 (where z/VM has fields
 *      of its own), D6R22 with our failure reason in IBM's IODVSF_LANRDD_RSN byte.
 *   2: IBM's record lengths kept whole (D6R21 492 bytes as in z/VM 7.1/7.2, D6R22 80) and
 *      our fields after them; see monitor/RECORDS.md.
 *   3: version 2's records in z/VM's MONWRITE framing (monitor/monfile.h): what vswitchd
 *      writes. Records byte for byte as version 2 but D8R1: MRVNDSES at z/VM 5.3's layout
 *      (316 bytes, zpmd's offsets: IBM's page not found); a 128-byte D8R1 (files written
 *      before it) is read at our first layout. The discard counters by reason are left
 *      out when writing (a version 3 reader refuses the longer records); the 724- and
 *      460-byte records the first vswitchd to carry them wrote in version 3 are read.
 *   4: version 3 with the discard counters by reason: a D6R21 or D8R1 that carries them
 *      has them after its own bytes (724 and 460 bytes); one without keeps its length.
 *      What vswitchd writes; a reader of versions 1-3 refuses it for its version.
 *   IBM: records as z/VM writes them, in a MONWRITE file without our control area; read
 *      only: the fields IBM's pages give (and ours that sit where IBM's names are, marked
 *      in RECORDS.md), our tail fields zero, D8R1 at z/VM 5.3's layout (316 bytes or more).
 * The writer writes ZVS_MON_FORMAT_CURRENT; the reader reads them all. */
#define ZVS_MON_FORMAT_V1      1
#define ZVS_MON_FORMAT_V2      2
#define ZVS_MON_FORMAT_V3      3
#define ZVS_MON_FORMAT_V4      4
#define ZVS_MON_FORMAT_IBM     0x49     /* 'I': never in a file's version byte */
#define ZVS_MON_FORMAT_CURRENT ZVS_MON_FORMAT_V4
#define ZVS_MON_TOD_UNIX_EPOCH 0x7D91048BCA000000ull  /* TOD of 1970-01-01 00:00 UTC */

/* TOD clock (bit 51 = 1 microsecond) <-> Unix microseconds. */
uint64_t zvs_mon_tod_from_unix_us(uint64_t unix_us);
uint64_t zvs_mon_tod_to_unix_us(uint64_t tod);

/* Why frames were discarded, per reason (ours): the data plane's reasons (dataplane/port.h,
 * which monitor/ may not include: the daemon maps them) under codes of their own, since
 * the codes are a file format. Each is a DISCARD (counted in the direction's discards
 * too), an ERROR (in its errors) or a NOTE (counted per reason only: a frame an OSA's
 * address filter drops, a source MAC the full table did not learn). A D6R21 or D8R1 of
 * layout version 4 carries them all after its own fields (RECORDS.md), counting both
 * directions; records of earlier writers carry none (ndrops 0). */
enum zvs_mon_drop {
    ZVS_MON_DROP_RUNT, ZVS_MON_DROP_OVERSIZE, ZVS_MON_DROP_BAD_VLAN, ZVS_MON_DROP_VLAN_DENIED,
    ZVS_MON_DROP_MACPROTECT, ZVS_MON_DROP_NO_BUFFER, ZVS_MON_DROP_MAC_FULL,
    ZVS_MON_DROP_LINK_DOWN, ZVS_MON_DROP_NO_UPLINK, ZVS_MON_DROP_SLOW_PROTO,
    ZVS_MON_DROP_TX_FAIL, ZVS_MON_DROP_ISOLATION, ZVS_MON_DROP_BAD_SRC,
    ZVS_MON_DROP_SAME_PORT, ZVS_MON_DROP_FILTERED, ZVS_MON_DROP_OFFLOAD,
    ZVS_MON_DROP_NOT_COLLECTING, ZVS_MON_DROP_GUEST_OVERRUN,
    ZVS_MON_DROP_REASONS                /* 18: how many a record carries */
};
enum zvs_mon_drop_kind { ZVS_MON_DROP_KIND_DISCARD, ZVS_MON_DROP_KIND_ERROR,
                         ZVS_MON_DROP_KIND_NOTE };
/* The reason's name as QUERY VSWITCH's "Drops:" line gives it ("no-input-buffer"), and
 * its kind; "?" and NOTE for a code out of range. */
const char *zvs_mon_drop_name(unsigned code);
enum zvs_mon_drop_kind zvs_mon_drop_kind(unsigned code);

/* D6R21: one uplink device of a VSWITCH. Counters are cumulative (rates come from two
 * samples); "tx" is what the OSA sent to the LAN. */
struct zvs_mon_vswitch_activity {
    uint16_t rdev;                      /* IODVSW_RDEVDEV */
    uint8_t  osa_port;                  /* IODVSW_LANRDD_OSAPORTN */
    uint8_t  queuestorage_mb;           /* IODVSW_LANFSV, 1-8 */
    uint16_t iptimeout_ticks;           /* IODVSW_LANIPTO: IPTIMEOUT in 30-second ticks
                                           (minutes x 2); 0 in records of writers before
                                           it was filled: unknown */
    char     controller[9];             /* IODVSW_VMDUSER; "" (blanks): no controller */
    char     lan_owner[9];              /* IODVSW_LANID: "SYSTEM" */
    char     lan_name[9];               /* IODVSW_LANID: the VSWITCH name */
    char     group[9];                  /* port group name, "" when a single OSA */
    uint8_t  osa_mac[6];                /* IODVSW_OSAMAC */
    uint64_t tx_bytes;                  /* IODVSW_NICTXBYT */
    uint64_t rx_bytes;                  /* IODVSW_NICRXBYT */
    uint64_t tx_packets, tx_discards, tx_errors;   /* NICTXPKT / NICTXDSC / NICTXERR */
    uint64_t rx_packets, rx_discards, rx_errors;   /* NICRXPKT / NICRXDSC / NICRXERR */
    uint32_t lacpdus_tx;                /* IODVSW_VQSLCSCT */
    uint32_t lacpdus_rx;                /* IODVSW_VQSLCRCT */
    uint32_t markers_tx;                /* IODVSW_VQSMRKCT: Marker PDUs sent */
    uint32_t marker_responses_rx;       /* IODVSW_VQSMRPCT */
    uint32_t marker_requests_rx;        /* IODVSW_VQSMRRCT: Markers received (answered) */
    uint32_t marker_timeouts;           /* IODVSW_VQSMTOCT */
    uint16_t interval_s;                /* IODVSW_SWPINTSC: the group's INTERVAL, 0 = OFF */
    uint8_t  lacp_state;                /* ours: actor state octet (0: no LACP) */
    uint8_t  distributing;              /* ours: 1 while the device carries outbound */
    uint16_t buckets;                   /* ours: port-group buckets bound to it, 0-256 */
    uint32_t group_moves;               /* ours: buckets the group has moved so far (INTERVAL
                                           passes, failovers, JOIN/LEAVE), cumulative */
    uint8_t  ndrops;                    /* ours: 0 (the record carries no reasons: an earlier
                                           writer's, or layout 1/2) or ZVS_MON_DROP_REASONS */
    uint64_t drops[ZVS_MON_DROP_REASONS];   /* ours: per enum zvs_mon_drop, cumulative */
};

/* D6R22 failure / D6R23 recovery of an uplink device. */
struct zvs_mon_vswitch_event {
    char     lan_owner[9];              /* IODVSF_LANOWNER */
    char     lan_name[9];               /* IODVSF_LANNAME */
    char     controller[9];             /* IODVSF_LANRDD_LANCONT */
    uint16_t rdev;                      /* IODVSF_LANRDD_RDEV */
    uint8_t  osa_port;                  /* IODVSF_LANRDD_OSAPORT */
    char     group[9];                  /* IODVSF_SWPGROUP */
    uint8_t  reason;                    /* ours (failure only), enum below */
    bool     switchover;                /* IODVSF_SWITCHOVER (failure only): SET VSWITCH
                                           SWITCHOVER took the device down */
    uint8_t  lan_type;                  /* IODVSR_LANTYPE (recovery only): 0 unset (ours),
                                           ZVS_MON_LANTYPE_* */
};

enum zvs_mon_fail_reason {
    ZVS_MON_FAIL_NONE = 0,
    ZVS_MON_FAIL_CARRIER = 1,           /* link (carrier) lost */
    ZVS_MON_FAIL_LACP_EXPIRED = 2,      /* partner's LACPDUs stopped */
    ZVS_MON_FAIL_LACP_DETACHED = 3,     /* partner out of sync / unselected */
    ZVS_MON_FAIL_LEAVE = 4,             /* SET PORT GROUP ... LEAVE */
    ZVS_MON_FAIL_DEVICE_GONE = 5,       /* the interface disappeared */
    ZVS_MON_FAIL_DETACHED = 6,          /* closed by a command: DISCONNECT, RDEV, NOGROUP,
                                           DETACH VSWITCH */
};

/* D8R1: one coupled virtual NIC. "tx" is what the guest sent. */
struct zvs_mon_vnic_activity {
    char     owner[9];                  /* VNDSES_OWNER */
    uint16_t vdev;                      /* VNDSES_VDEVDEV */
    uint8_t  mac[6];                    /* VNDSES_NICMAC */
    uint8_t  nic_type;                  /* VNDSES_NICTYPE: 2 = QDIO */
    uint8_t  vswitch;                   /* VNDSES_VSWITCH: 1 coupled to a VSWITCH */
    uint8_t  transport;                 /* VNDSES_NICTRANP: 2 = Ethernet (layer 2) */
    char     lan_owner[9];              /* VNDSES_LANID */
    char     lan_name[9];
    char     group[9];                  /* VNDSES_SWPGROUP */
    uint64_t tx_bytes, rx_bytes;        /* VNDSES_SESTXBYT / SESRXBYT */
    uint64_t tx_packets, tx_discards, tx_errors;
    uint64_t rx_packets, rx_discards, rx_errors;
    uint8_t  ndrops;                    /* ours, as D6R21's */
    uint64_t drops[ZVS_MON_DROP_REASONS];
};

/* D8R2 link up / D8R3 link down of a guest NIC. */
struct zvs_mon_vnic_link {
    char     lan_owner[9];              /* VNDLSx_LANOWNER */
    char     lan_name[9];               /* VNDLSx_LANNAME */
    char     nic_owner[9];              /* VNDLSx_NICOWNER */
    uint16_t vdev;                      /* VNDLSx_NICBASE */
    uint8_t  nic_type;                  /* VNDLSx_NICTYPE */
    uint8_t  lan_type;                  /* VNDLSx_LANTYPE: 0 unset (ours), ZVS_MON_LANTYPE_* */
    bool     uplink;                    /* VNDLSx_UPLINK: the NIC is a VSWITCH's UPLINK NIC */
};

/* D15R1: the resolver's counters (names/name_watch.h), cumulative over the daemon's life;
 * rates come from two samples as for D6R21. */
struct zvs_mon_resolver_activity {
    uint32_t watched;                   /* names watched now */
    uint32_t in_flight;                 /* lookups running now */
    uint64_t lookups;                   /* queries started */
    uint64_t failures;                  /* lookups that failed */
    uint64_t bad_answers;               /* of the failures: bad, oversized or empty answers */
    uint64_t changes;                   /* address changes told */
    uint64_t deferred;                  /* due lookups held back by the bound on lookups */
};

#define ZVS_MON_RES_ADDRS      8        /* addresses a D15R2 carries, each way */
#define ZVS_MON_RES_NAME_MAX   253      /* a host name as text (RFC 1035) */
#define ZVS_MON_RES_EV_CHANGED   0      /* its addresses changed (first answer included) */
#define ZVS_MON_RES_EV_FAILING   1      /* the first failure after an answer or a watch */
#define ZVS_MON_RES_EV_RECOVERED 2      /* an answer after failures, addresses unchanged */
#define ZVS_MON_RES_STATE_MAX    3      /* resolving, resolved, retrying, failed */
#define ZVS_MON_RES_ERROR_MAX    9      /* names/resolver.h's statuses, 0 = none */

struct zvs_mon_res_addr {
    uint8_t  family;                    /* 4 IPv4, 6 IPv6 */
    uint8_t  addr[16];                  /* IPv4 in the first 4 bytes, the rest zero */
};

/* D15R2: one event of a watched name. The codes are names/'s (the daemon maps them):
 * monitor/ may not include names/. */
struct zvs_mon_resolver_event {
    char     name[ZVS_MON_RES_NAME_MAX + 1];   /* lower case, as watched */
    uint8_t  event;                     /* ZVS_MON_RES_EV_* */
    uint8_t  state;                     /* enum zvs_name_state, 0-3 */
    uint8_t  last_error;                /* enum zvs_res_status, 0 (none) - 9 */
    uint32_t ttl_s;                     /* as the last good answer gave it */
    uint8_t  nold, nnew;                /* 0-ZVS_MON_RES_ADDRS */
    struct zvs_mon_res_addr old[ZVS_MON_RES_ADDRS], now[ZVS_MON_RES_ADDRS];
};

/* LAN types IBM defines (MRVNDLSU's VNDLSU_LANTYPE, z/VM 6.1; MRIODVSR's IODVSR_LANTYPE,
 * z/VM 7.4). A decoder accepts these and 0 (our records before IBM's field was known). */
#define ZVS_MON_LANTYPE_HIPERSOCKETS 1  /* MRVNDLSU only */
#define ZVS_MON_LANTYPE_QDIO         2
#define ZVS_MON_LANTYPE_INMN         4  /* MRIODVSR: "IBM reserved" */
#define ZVS_MON_LANTYPE_IEDN         5  /* MRIODVSR: "IBM reserved" */
#define ZVS_MON_LANTYPE_IVL          6  /* MRIODVSR only */

struct zvs_mon_record {
    uint8_t  domain;                    /* ZVS_MON_DOMAIN_* */
    uint16_t number;                    /* ZVS_MON_REC_* */
    uint64_t tod;                       /* MRHDRTOD */
    union {
        struct zvs_mon_vswitch_activity vsw;    /* D6R21 */
        struct zvs_mon_vswitch_event    vswev;  /* D6R22, D6R23 */
        struct zvs_mon_vnic_activity    vnic;   /* D8R1 */
        struct zvs_mon_vnic_link        link;   /* D8R2, D8R3 */
        struct zvs_mon_resolver_activity res;   /* D15R1 */
        struct zvs_mon_resolver_event   resev;  /* D15R2 */
    } u;
};

/* Encodes into buf (cap bytes) in the current layout: returns the record length or
 * -EINVAL (unknown record, cap too small). */
int zvs_mon_encode(const struct zvs_mon_record *r, uint8_t *buf, size_t cap);
/* Decodes one record of exactly `len` bytes (its MRHDRLEN) in the current layout. Returns
 * 0, -EBADMSG (length field, reserved bytes or a field out of range), or -ENOTSUP (a
 * domain/record we do not know: the caller skips it by its length). */
int zvs_mon_decode(const uint8_t *buf, size_t len, struct zvs_mon_record *out);
/* The same in layout `version` (ZVS_MON_FORMAT_*); -EINVAL for another version (and for
 * encoding in ZVS_MON_FORMAT_IBM, which is read only). In ZVS_MON_FORMAT_IBM a record may be
 * longer than the bytes read (a later z/VM level's), never shorter. */
int zvs_mon_encode_version(const struct zvs_mon_record *r, unsigned version, uint8_t *buf,
                           size_t cap);
int zvs_mon_decode_version(const uint8_t *buf, size_t len, unsigned version,
                           struct zvs_mon_record *out);
/* "D6R21" etc. */
const char *zvs_mon_record_name(uint8_t domain, uint16_t number);
bool zvs_mon_is_sample(uint8_t domain, uint16_t number);

#endif
