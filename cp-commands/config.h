/* SYSTEM CONFIG and USER DIRECT: the parsed configuration and the API that fills it.
 *
 * vswitchd starts from two files, as z/VM does:
 *   SYSTEM CONFIG  VMLAN MACPREFIX / MACIDRANGE, DEFINE VSWITCH, MODIFY VSWITCH ... GRANT,
 *                  SET PORT GROUP (link aggregation groups), and our extension RDEVICE
 *                  nnnn INTERFACE ifname [BACKEND AFPACKET | PCAP | TAP] (which Linux
 *                  interface plays the real device, e.g. an OSA port, and how vswitchd
 *                  reaches it).
 *   USER DIRECT    USER / IDENTITY entries with NICDEF, and our extensions NICBIND (which
 *                  backend plays the guest's NIC: a TAP or external QDIO queues) and
 *                  LINUXUSER (which Linux users act as the entry's userid on the
 *                  operator console).
 * The result is plain data (struct zvs_cfg) that the daemon reads directly: fixed arrays
 * with the limits below, counts beside them, names upper-cased and NUL-terminated,
 * cross-references as array indexes. Grammar, defaults, our rules and our extensions are
 * described at the top of sysconfig.c and userdirect.c; the cross-checks in config.c.
 *
 * Parsing never stops at the first error: every statement is checked and every error is
 * kept as a message "file:line: ZVSCFGnnnnE text" in cfg->msgs (numbers from messages.c).
 * A statement with an error changes nothing in the configuration. Call order:
 * parse_sysconfig, parse_userdirect, then validate (the cross-checks, MAC assignment).
 */
#ifndef ZVS_CONFIG_H
#define ZVS_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cp-commands/messages.h"
#include "names/name_syntax.h"
#include "names/resolver.h"

#define ZVS_CFG_MAX_VSWITCHES  64
#define ZVS_CFG_MAX_GRANTS     1024     /* MODIFY VSWITCH ... GRANT statements, all switches */
#define ZVS_CFG_MAX_RDEVICES   256      /* RDEVICE ... INTERFACE mappings */
#define ZVS_CFG_MAX_USERS      1024
#define ZVS_CFG_MAX_NICS       4096     /* NICDEFs (distinct vdevs), all users */
#define ZVS_CFG_MAX_RDEV       3        /* RDEV devices of one DEFINE VSWITCH (z/VM limit) */
#define ZVS_VIDSET_MAX         32       /* VLAN tokens of one vidset (and ranges kept) */
#define ZVS_IFNAME_MAX         15       /* Linux IFNAMSIZ - 1 */
#define ZVS_CFG_PATH_MAX       256      /* file names kept for messages */
#define ZVS_CFG_FILE_MAX       (16u << 20)  /* larger files are refused (-EFBIG) */
#define ZVS_CFG_MAX_GROUPS     64       /* port groups (SET PORT GROUP statements' names) */
#define ZVS_CFG_MAX_GROUP_PORTS 8       /* OSA ports per group (z/VM limit) */
#define ZVS_USERID_MAX         8
#define ZVS_CFG_MAX_LINUXUSERS 8        /* LINUXUSER names of one USER entry */
#define ZVS_LINUXUSER_MAX      32       /* a Linux user name (useradd's limit) or a uid */
#define ZVS_NAME_MAX           8        /* switch and group names (same value in tokens.h) */
#define ZVS_CFG_MAX_WATCH      256      /* RESOLVER WATCH names (zvswitch extension) */
#define ZVS_CFG_MAX_VXLAN      4        /* VXLAN VSWITCH statements (zvswitch extension) */
#define ZVS_CFG_MAX_VXLAN_REMOTES 8     /* remote VTEPs of one VXLAN VSWITCH */
#define ZVS_CFG_VNI_MAX        16777215 /* a VNI's 24 bits (RFC 7348 section 5) */
#define ZVS_CFG_MAX_VXLAN_VLANS 64      /* VXLAN VSWITCH name VLAN v VNI n per switch */
#define ZVS_CFG_MAX_VXLAN_NEIGHBORS 16  /* VXLAN VSWITCH name NEIGHBOR a MAC m per switch:
                                           with 8 remotes and a gateway, 25 of the
                                           underlay's 64-entry neighbour table, a
                                           remote's old address leaving it when the
                                           remote moves (overlay/vtep.c) */
#define ZVS_CFG_ADDR_STR       46       /* an IPv4 or IPv6 address as text, NUL included */
#define ZVS_CFG_MAX_IVL_MEMBERS 3       /* IVL MEMBER: a portal of up to three systems
                                         * (IEEE 802.1AX-2020 clause 9) */
#define ZVS_CFG_HEARTBEAT_MAX  300      /* IVLPORT HEARTBEAT TIMEOUT seconds (our bound) */
#define ZVS_CFG_MAX_DNS        3        /* RESOLVER SERVER addresses (resolv.conf's MAXNS) */

enum zvs_porttype {
    ZVS_PORTTYPE_UNSPEC,                /* not given: the switch's PORTTYPE applies */
    ZVS_PORTTYPE_ACCESS,                /* guest sends and receives untagged */
    ZVS_PORTTYPE_TRUNK,                 /* guest sends and receives tagged */
};

enum zvs_macprotect {
    ZVS_MACPROTECT_UNSPECIFIED,
    ZVS_MACPROTECT_OFF,
    ZVS_MACPROTECT_ON,
};

enum zvs_nic_backend {
    ZVS_NIC_BACKEND_NONE,               /* no NICBIND: the NIC exists, nothing drives it */
    ZVS_NIC_BACKEND_TAP,                /* a tap the daemon creates (namespace as guest) */
    ZVS_NIC_BACKEND_QDIO,               /* an external program on the shared-memory queues */
    ZVS_NIC_BACKEND_LCS,                /* the LCS device of the user's Hercules machine */
};

/* The kind name the backend registry knows a NICBIND by (backends/backend.h): "none",
 * "tap", "qdio", "lcs". */
const char *zvs_nic_backend_kind(enum zvs_nic_backend b);

/* What a USER entry's machine IPLs (the IPL statement; zvswitch: Hercules machines). */
enum zvs_ipl_kind {
    ZVS_IPL_NONE,                       /* no IPL statement: not a Hercules machine */
    ZVS_IPL_NAMED,                      /* IPL name: a guest image the project builds */
    ZVS_IPL_INS,                        /* IPL INS path: the user's own Hercules .ins file */
};

#define ZVS_IPL_NAME_MAX 16             /* IPL name: 1-16 of A-Z 0-9 _ - */
#define ZVS_IPL_PATH_MAX 200            /* IPL INS path: absolute, 1-200 characters */

enum zvs_macid_source {
    ZVS_MACID_NONE,                     /* not yet assigned (before validate, or exhausted) */
    ZVS_MACID_USER,                     /* NICDEF ... MACID */
    ZVS_MACID_SYSTEM,                   /* assigned from VMLAN MACIDRANGE SYSTEM */
};

/* A real device: OSA device number plus port (nnnn.Pn). */
struct zvs_rdev {
    uint16_t devno;                     /* first of the device's subchannel triplet */
    uint8_t  port;                      /* .Pn, 0-15, default 0 */
};

struct zvs_vid_range {
    uint16_t lo;                        /* 1-4094 */
    uint16_t hi;                        /* lo-4094 */
};

/* A set of VLAN ids, kept as sorted, merged, non-adjacent ranges. */
struct zvs_vidset {
    uint16_t             n;             /* ranges used */
    struct zvs_vid_range r[ZVS_VIDSET_MAX];
};

struct zvs_cfg_vmlan {
    uint8_t  macprefix[3];              /* first 3 bytes of every guest MAC */
    uint32_t macprefix_line;            /* 0: default 02-00-00 */
    uint32_t system_lo;                 /* MACIDs CP assigns: system_lo..system_hi */
    uint32_t system_hi;
    uint32_t user_lo;                   /* MACIDs a NICDEF may name (when line != 0) */
    uint32_t user_hi;
    uint32_t macidrange_line;           /* 0: no MACIDRANGE, NICDEF MACIDs unrestricted */
};

/* The system's identity (SYSTEM CONFIG's SYSTEM_IDENTIFIER, SYSTEM_IDENTIFIER_DEFAULT and
 * SYSTEM_USERIDS OPERATOR; rules in sysconfig.c): the name QUERY USERID shows after AT
 * and that later multi-system work uses, and the userid root's console commands act as. */
#define ZVS_CFG_MAX_SYSIDS       16
#define ZVS_CFG_OPERATOR_DEFAULT "OPERATOR"

struct zvs_cfg_sysid {
    bool     lpar;                      /* SYSTEM_IDENTIFIER LPAR name; false: model cpuid */
    char     match[ZVS_NAME_MAX + 1];   /* the LPAR name (upper case) */
    char     sysname[ZVS_NAME_MAX + 1];
    uint32_t line;
};

struct zvs_cfg_system {
    unsigned             nsysid;
    struct zvs_cfg_sysid sysid[ZVS_CFG_MAX_SYSIDS];
    char                 default_name[ZVS_NAME_MAX + 1];   /* "": no _DEFAULT statement */
    uint32_t             default_line;
    char                 operator_id[ZVS_NAME_MAX + 1];    /* "": OPERATOR */
    uint32_t             operator_line;
};

/* DEFINE VSWITCH ... TYPE (z/VM 7.4 CP Planning and Administration, "DEFINE VSWITCH
 * Statement"): a switch of this system alone, a Global VSWITCH spanning the systems of
 * its IVL domain, or the IVL switch itself (the inter-VSwitch link's network). */
enum zvs_vswitch_scope {
    ZVS_VSW_LOCAL,                      /* TYPE QDIO [LOCAL] (default) */
    ZVS_VSW_GLOBAL,                     /* TYPE QDIO GLOBAL */
    ZVS_VSW_IVL,                        /* TYPE IVL [DOMAIN A-H] */
};

struct zvs_cfg_vswitch {
    char                name[ZVS_NAME_MAX + 1];
    uint32_t            line;           /* DEFINE VSWITCH statement (first line) */
    uint8_t             nrdev;          /* 0: RDEV NONE (or NOUPLINK) */
    struct zvs_rdev     rdev[ZVS_CFG_MAX_RDEV];  /* [0] active, others failover backups */
    bool                nouplink;       /* NOUPLINK: never an uplink */
    bool                connect;        /* CONNECT (default) / DISCONNECT */
    bool                vlan_aware;     /* VLAN AWARE or VLAN defvid */
    uint16_t            default_vid;    /* VLAN defvid (AWARE: 1); 0 when UNAWARE */
    uint16_t            native_vid;     /* NATIVE natvid, 0 = NONE; default 1 */
    enum zvs_porttype   porttype;       /* default for grants: ACCESS (default) / TRUNK */
    uint8_t             queuestorage_mb;/* QUEUESTORAGE 1-8, default 8 */
    char                controller[ZVS_USERID_MAX + 1];  /* "*" (default) or a userid */
    char                group[ZVS_NAME_MAX + 1];         /* port group; "" = NOGROUP */
    enum zvs_macprotect macprotect;     /* default UNSPECIFIED */
    bool                isolation;      /* ISOLATION ON; default OFF */
    uint8_t             iptimeout_min;  /* IPTIMEOUT 1-240 minutes; 0: not given (5) */
    bool                portbased;      /* PORTBASED; default USERBASED (TYPE IVL: always) */
    enum zvs_vswitch_scope scope;       /* TYPE QDIO LOCAL (default) | GLOBAL | TYPE IVL */
    char                ivl_domain;     /* TYPE IVL: DOMAIN 'A'-'H' (default 'A'); else 0 */
};

#define ZVS_CFG_IPTIMEOUT_DEFAULT 5     /* DEFINE VSWITCH IPTIMEOUT (minutes), z/VM's */
#define ZVS_CFG_IPTIMEOUT_MAX     240

/* A switch's IPTIMEOUT in minutes: the given value, else the default. */
static inline unsigned zvs_cfg_iptimeout(const struct zvs_cfg_vswitch *sw)
{
    return sw->iptimeout_min != 0 ? sw->iptimeout_min : ZVS_CFG_IPTIMEOUT_DEFAULT;
}

/* Outbound distribution key of a port group (zvswitch extension DISTRIBUTION). */
enum zvs_cfg_distribution {
    ZVS_CFG_DIST_DESTINATION,           /* destination MAC's last byte (default) */
    ZVS_CFG_DIST_SOURCE,                /* source MAC's last byte */
    ZVS_CFG_DIST_BOTH,                  /* both, XORed */
    ZVS_CFG_DIST_UDPPORT,               /* the outer UDP source port (a VXLAN underlay) */
};

/* INTERVAL rebalancing policy (zvswitch extension POLICY). */
enum zvs_cfg_policy {
    ZVS_CFG_POLICY_LOAD,                /* even out measured load (default) */
    ZVS_CFG_POLICY_LBT,                 /* load-based teaming: move off ports above n% */
};

/* What POLICY LOAD counts as a port's load (zvswitch extension POLICY LOAD TOTAL|OUTBOUND). */
enum zvs_cfg_load {
    ZVS_CFG_LOAD_TOTAL,                 /* inbound + outbound (default: the report's picture) */
    ZVS_CFG_LOAD_OUTBOUND,              /* outbound only */
};

/* A port group, from every SET PORT GROUP statement naming it (they accumulate, as the
 * commands do on a running system). */
/* INTERVAL as CP keeps it: a value that is not a multiple of 30 seconds is rounded up to
 * the next one (IBM's control block SWPBK, field SWPINTSC: "Number of seconds between load
 * balancing operations (rounded to next higher multiple of 30 seconds)"; SWPINTVL counts
 * the 30-second intervals). 1-30 -> 30, 31 -> 60, 9990 stays. Faster passes for tests are
 * vswitchd's --test-interval (ours). */
static inline uint32_t zvs_cfg_interval_round(uint32_t s)
{
    return (s + 29u) / 30u * 30u;
}

struct zvs_cfg_group {
    char                      name[ZVS_NAME_MAX + 1];
    uint32_t                  line;     /* first SET PORT GROUP naming it */
    uint8_t                   nport;    /* JOINed devices, in order */
    struct zvs_rdev           port[ZVS_CFG_MAX_GROUP_PORTS];
    bool                      lacp;     /* LACP ACTIVE (default) / INACTIVE */
    bool                      lacp_long_timeout; /* TIMEOUT LONG (default SHORT) */
    uint32_t                  interval_s; /* INTERVAL in effect (zvs_cfg_interval_round),
                                             default 300, 0 = OFF */
    enum zvs_cfg_distribution distribution;
    enum zvs_cfg_policy       policy;
    uint8_t                   lbt_percent; /* POLICY LBT n, default 75 */
    enum zvs_cfg_load         load;     /* POLICY LOAD TOTAL (default) | OUTBOUND */
    bool                      shared;   /* SHARED (command or SYSTEM CONFIG): the IVL
                                         * domain's; default EXCLUSIVE */
};

struct zvs_cfg_grant {
    uint16_t          vswitch;          /* index in cfg->vswitch */
    char              userid[ZVS_USERID_MAX + 1];
    enum zvs_porttype porttype;         /* UNSPEC: the switch's PORTTYPE */
    bool              has_vlan;         /* VLAN vidset given */
    struct zvs_vidset vlan;
    uint32_t          line;
};

/* How vswitchd reaches an RDEVICE's interface (RDEVICE ... BACKEND). */
enum zvs_rdev_backend {
    ZVS_RDEV_BACKEND_AFPACKET,          /* AF_PACKET with virtio-net headers (default) */
    ZVS_RDEV_BACKEND_PCAP,              /* libpcap: portable, no offload metadata */
    ZVS_RDEV_BACKEND_TAP,               /* a tap the system made, vswitchd its far end:
                                           the UDP tunnel GSO header (backends/uplink_tap.h) */
};

struct zvs_cfg_rdevice {
    struct zvs_rdev       rdev;
    char                  ifname[ZVS_IFNAME_MAX + 1];  /* case kept, as Linux needs it */
    enum zvs_rdev_backend backend;      /* BACKEND, default AFPACKET */
    uint32_t              line;
};

/* The name layer (zvswitch extension RESOLVER, sysconfig.c): the names vswitchd keeps
 * resolved, where it asks, in which address order. */
/* A VSWITCH's uplink that is a VXLAN segment (zvswitch extension, VXLAN VSWITCH). */
struct zvs_cfg_vxlan {
    uint32_t           line;            /* 0: by command */
    char               vswitch[ZVS_NAME_MAX + 1];
    uint32_t           vni;             /* 0-16777215 */
    char               local[ZVS_CFG_ADDR_STR];     /* our VTEP address (canonical text) */
    struct zvs_rdev    rdev;            /* the underlay uplink (an RDEV), or */
    char               group[ZVS_NAME_MAX + 1];     /* the switch's port group; "": RDEV */
    uint16_t           udp_port;        /* 4789 unless given */
    char               gateway[ZVS_CFG_ADDR_STR];   /* "": remote VTEPs are on-link */
    unsigned           nremote;
    char               remote[ZVS_CFG_MAX_VXLAN_REMOTES][ZVS_HOSTNAME_MAX + 1]; /* canonical */
    /* A VNI per VLAN on a VLAN AWARE switch (VXLAN VSWITCH name VLAN v VNI n statements):
     * VLAN vlan_vid[i] travels as VNI vlan_vni[i]; the switch's native VLAN (its untagged
     * frames) as `vni`. */
    unsigned           nvlan;
    uint16_t           vlan_vid[ZVS_CFG_MAX_VXLAN_VLANS];
    uint32_t           vlan_vni[ZVS_CFG_MAX_VXLAN_VLANS];
    /* Static underlay neighbours (VXLAN VSWITCH name NEIGHBOR addr MAC mac statements):
     * next hop neighbor_addr[i] (canonical text, LOCAL's family) is at neighbor_mac[i],
     * never asked by ARP or Neighbor Discovery. */
    unsigned           nneighbor;
    char               neighbor_addr[ZVS_CFG_MAX_VXLAN_NEIGHBORS][ZVS_CFG_ADDR_STR];
    uint8_t            neighbor_mac[ZVS_CFG_MAX_VXLAN_NEIGHBORS][6];
};

struct zvs_cfg_resolver {
    unsigned           nwatch;
    char               watch[ZVS_CFG_MAX_WATCH][ZVS_HOSTNAME_MAX + 1]; /* canonical */
    uint32_t           watch_line[ZVS_CFG_MAX_WATCH];   /* 0: by command */
    unsigned           nserver;         /* 0: the host's resolver configuration */
    char               server[ZVS_CFG_MAX_DNS][ZVS_RES_SERVER_STR];    /* "ip:port" */
    uint32_t           server_line;
    enum zvs_res_order order;           /* ORDER, default IPV4 IPV6 */
    uint32_t           order_line;
    uint32_t           timeout_ms;      /* TIMEOUT: per try of a server, 0: c-ares' 2000 */
    uint32_t           timeout_line;
    uint32_t           minttl_s;        /* MINTTL: the TTL floor, 0: names/' 5 s */
    uint32_t           minttl_line;
};

/* RESOLVER ORDER's words for an order ("IPV4 IPV6", "IPV6", ...). */
const char *zvs_cfg_order_text(enum zvs_res_order o);

/* The index of a watched name (any case, trailing dot or not), or -1. */
int zvs_cfg_find_watch(const struct zvs_cfg_resolver *r, const char *name);

/* The IVL domain as this system's corosync must know it (zvswitch extensions IVL MEMBER:
 * z/VM finds the members over the IVL itself, Corosync needs its nodelist; and IVL
 * HEARTBEAT TIMEOUT, IBM's IVLPORT HEARTBEAT TIMEOUT: corosync's token timeout). */
struct zvs_cfg_ivl_member {
    char     sysname[ZVS_NAME_MAX + 1]; /* its SYSTEM_IDENTIFIER sysname */
    uint8_t  index;                     /* 1-3: node id and 802.1AX port number high byte */
    char     address[ZVS_HOSTNAME_MAX + 1];  /* on the IVL network: address or host name */
    uint32_t line;
};

struct zvs_cfg_ivl {
    unsigned                  nmember;
    struct zvs_cfg_ivl_member member[ZVS_CFG_MAX_IVL_MEMBERS];
    uint16_t                  heartbeat_s;  /* 0: not given (corosync's default token) */
    uint32_t                  heartbeat_line;   /* 0: not in the file (or by command) */
};

struct zvs_cfg_user {
    char     userid[ZVS_USERID_MAX + 1];
    bool     identity;                  /* IDENTITY entry rather than USER */
    uint64_t storage;                   /* bytes */
    uint64_t maxstorage;                /* bytes, >= storage */
    uint32_t privclass;                 /* ZVS_PRIVCLASS() bits */
    uint32_t line;
    uint16_t first_nic;                 /* its NICs: cfg->nic[first_nic .. +nnic) */
    uint16_t nnic;
    uint8_t  nlinuxuser;                /* LINUXUSER names, in the order given */
    /* Linux user names as written (case kept), uids in canonical decimal. */
    char     linuxuser[ZVS_CFG_MAX_LINUXUSERS][ZVS_LINUXUSER_MAX + 1];
    uint32_t linuxuser_line[ZVS_CFG_MAX_LINUXUSERS];  /* where each was given */
    /* The machine (zvswitch extensions IPL and GUESTIP; storage is its MAINSIZE). */
    enum zvs_ipl_kind ipl;
    char     ipl_name[ZVS_IPL_NAME_MAX + 1];   /* IPL name, upper case */
    char     ipl_path[ZVS_IPL_PATH_MAX + 1];   /* IPL INS path, as written */
    uint32_t ipl_line;                  /* 0: no IPL statement */
    uint32_t guest_ip;                  /* GUESTIP address, host byte order; 0: none */
    uint8_t  guest_prefix;              /* its prefix length, 1-32 */
    uint32_t guest_gw;                  /* GATEWAY, host byte order; 0: none */
    uint32_t guestip_line;              /* 0: no GUESTIP statement */
};

/* Privilege class bits: A-Z are bits 0-25, 1-6 bits 26-31. */
#define ZVS_PRIVCLASS(c) ((c) >= 'A' && (c) <= 'Z' ? (uint32_t)1 << ((c) - 'A') : \
                          (c) >= '1' && (c) <= '6' ? (uint32_t)1 << (26 + (c) - '1') : 0u)

struct zvs_cfg_nic {
    uint16_t              user;         /* index in cfg->user */
    uint16_t              vdev;         /* base virtual device number */
    uint16_t              devices;      /* DEVICES, default 3 (read, write, data) */
    char                  lan[ZVS_NAME_MAX + 1];  /* LAN SYSTEM name; "" = not coupled */
    int16_t               vswitch;      /* cfg->vswitch index after validate, else -1 */
    enum zvs_porttype     porttype;     /* UNSPEC: the switch's PORTTYPE */
    bool                  has_vlan;     /* VLAN vidset given (directory authorization) */
    struct zvs_vidset     vlan;
    enum zvs_macid_source macid_source;
    uint32_t              macid;        /* 24 bits */
    uint8_t               mac[6];       /* MACPREFIX ++ MACID, set by validate */
    enum zvs_nic_backend  backend;      /* NICBIND */
    char                  ifname[ZVS_IFNAME_MAX + 1];  /* TAP name */
    uint16_t              lcs_devno;    /* NICBIND LCS: the LCS read device (even) */
    uint32_t              line;         /* first NICDEF for this vdev */
    uint32_t              type_line;    /* NICDEF that gave TYPE; 0: none */
    uint32_t              bind_line;    /* NICBIND; 0: none */
};

struct zvs_cfg {
    char                   sysconfig_file[ZVS_CFG_PATH_MAX];   /* as named to the parser */
    char                   userdirect_file[ZVS_CFG_PATH_MAX];
    struct zvs_cfg_vmlan   vmlan;
    struct zvs_cfg_system  system;
    unsigned               nvswitch;
    struct zvs_cfg_vswitch vswitch[ZVS_CFG_MAX_VSWITCHES];
    unsigned               ngrant;
    struct zvs_cfg_grant   grant[ZVS_CFG_MAX_GRANTS];
    unsigned               nrdevice;
    struct zvs_cfg_rdevice rdevice[ZVS_CFG_MAX_RDEVICES];
    unsigned               ngroup;
    struct zvs_cfg_group   group[ZVS_CFG_MAX_GROUPS];
    /* First line of the SET PORT GROUP statement whose JOIN added group[g].port[p] (for
     * the messages of validate). */
    uint32_t               group_join_line[ZVS_CFG_MAX_GROUPS][ZVS_CFG_MAX_GROUP_PORTS];
    struct zvs_cfg_resolver resolver;
    unsigned               nvxlan;
    struct zvs_cfg_vxlan   vxlan[ZVS_CFG_MAX_VXLAN];
    struct zvs_cfg_ivl     ivl;
    unsigned               nuser;
    struct zvs_cfg_user    user[ZVS_CFG_MAX_USERS];
    unsigned               nnic;
    struct zvs_cfg_nic     nic[ZVS_CFG_MAX_NICS];
    struct zvs_msg_list    msgs;        /* every message of every pass, in order */
    /* Groups whose SET PORT GROUP statement was refused while no statement had defined
     * them: validate does not also call a DEFINE VSWITCH ... GROUP naming one "not
     * defined", since the refusal already said what is wrong. Goes with the messages:
     * zvs_cfg_copy leaves it alone. Past ZVS_CFG_MAX_GROUPS names the note is not kept. */
    unsigned               nrefused_group;
    char                   refused_group[ZVS_CFG_MAX_GROUPS][ZVS_NAME_MAX + 1];
};

/* ---- the system's identity ------------------------------------------------------------ */

/* The system's name: the sysname of the first SYSTEM_IDENTIFIER LPAR entry whose LPAR name
 * is `hostname` (upper-cased, cut to 8: the LPAR zvswitch runs in is its host), else
 * SYSTEM_IDENTIFIER_DEFAULT's, else `hostname` itself upper-cased and cut to 8 ("ZVSWITCH"
 * when it is empty). */
void zvs_cfg_system_name(const struct zvs_cfg *cfg, const char *hostname,
                         char out[ZVS_NAME_MAX + 1]);

/* The userid root acts as on the console: SYSTEM_USERIDS OPERATOR's, else OPERATOR. */
const char *zvs_cfg_operator(const struct zvs_cfg *cfg);

/* ---- lifecycle and parsing ----------------------------------------------------------- */

struct zvs_cfg *zvs_cfg_new(void);      /* defaults set; NULL when out of memory */
void zvs_cfg_free(struct zvs_cfg *cfg);
/* Copies the configuration (not its messages: dst keeps its own list) as far as it is
 * used: the arrays up to their counts, so a copy of a system with a few hundred guests
 * moves kilobytes, not the megabyte of the whole struct. Slots beyond the counts in dst
 * keep whatever they held; nothing reads them. */
void zvs_cfg_copy(struct zvs_cfg *dst, const struct zvs_cfg *src);

/* Each returns the number of errors this call added, or -errno when the file cannot be
 * read (-EFBIG beyond ZVS_CFG_FILE_MAX; also reported as ZVSCFG1000E) or memory runs out.
 * `name` is the file name used in messages. _buf takes len bytes (NULs are errors). */
int zvs_cfg_parse_sysconfig(struct zvs_cfg *cfg, const char *path);
int zvs_cfg_parse_sysconfig_text(struct zvs_cfg *cfg, const char *name, const char *text);
int zvs_cfg_parse_sysconfig_buf(struct zvs_cfg *cfg, const char *name, const char *buf,
                                size_t len);
int zvs_cfg_parse_userdirect(struct zvs_cfg *cfg, const char *path);
int zvs_cfg_parse_userdirect_text(struct zvs_cfg *cfg, const char *name, const char *text);
int zvs_cfg_parse_userdirect_buf(struct zvs_cfg *cfg, const char *name, const char *buf,
                                 size_t len);

/* Cross-checks SYSTEM CONFIG against USER DIRECT, resolves nic->vswitch and assigns MACs.
 * Returns the number of errors it added. May be called again after more parsing. */
int zvs_cfg_validate(struct zvs_cfg *cfg);

/* Parses both files (either may be NULL) and validates: total errors, or -ENOMEM. */
int zvs_cfg_load(struct zvs_cfg *cfg, const char *sysconfig_path,
                 const char *userdirect_path);

/* CPSYNTAX-like check for `vswitchd --check`: loads both files, writes every message and
 * a closing ZVSCFG1099I line to `out`. Returns the error count (0: clean) or -ENOMEM. */
int zvs_config_syntax_check(const char *sysconfig_path, const char *userdirect_path,
                            FILE *out);

/* Total errors recorded in cfg->msgs. */
unsigned zvs_cfg_errors(const struct zvs_cfg *cfg);

/* The parsed configuration as statement-like text, one object per line, in a fixed order
 * (golden files compare it byte for byte). Returns 0 or -EIO. */
int zvs_cfg_dump(const struct zvs_cfg *cfg, FILE *out);

/* ---- lookups ------------------------------------------------------------------------- */

int zvs_cfg_find_vswitch(const struct zvs_cfg *cfg, const char *name);  /* index or -1 */
int zvs_cfg_find_user(const struct zvs_cfg *cfg, const char *userid);   /* index or -1 */
/* The NIC user `user`'s Hercules machine has as its LCS device (NICBIND LCS; at most one,
 * zvs_cfg_check_machines), or NULL. */
const struct zvs_cfg_nic *zvs_cfg_machine_nic(const struct zvs_cfg *cfg, unsigned user);
int zvs_cfg_find_rdevice(const struct zvs_cfg *cfg, struct zvs_rdev rdev); /* index or -1 */
int zvs_cfg_find_group(const struct zvs_cfg *cfg, const char *name);    /* index or -1 */

/* Whether port group `group` may be SHARED (z/VM Connectivity, "Multi-VSwitch Link
 * Aggregation"): the group is the IVL domain's, so this system needs its TYPE IVL switch,
 * and every switch the group serves must be GLOBAL. The one rule of the command
 * (cfg_apply_group.c) and of SYSTEM CONFIG (zvs_cfg_validate); on ZVS_SHARE_NOT_GLOBAL
 * *sw is the first such switch that is not. */
enum zvs_cfg_share { ZVS_SHARE_OK, ZVS_SHARE_NO_IVL, ZVS_SHARE_NOT_GLOBAL };
enum zvs_cfg_share zvs_cfg_group_can_share(const struct zvs_cfg *cfg, const char *group,
                                           int *sw);

/* ---- statement operands shared with the CP commands (sysconfig.c) -------------------- */

/* z/VM's DEFINE VSWITCH command and SYSTEM CONFIG statement share one syntax, so the
 * command runs the statement's operand table. tok: the operands after the name. Same
 * defaults and end-of-statement checks as the statement, but no configuration is looked
 * at (a duplicate name is the caller's to refuse). Messages ("ZVSCFGnnnnE text", no
 * "file:line:" part) are added to msgs. Returns 0 with *out filled (line 0, padding
 * zero), or -EINVAL with *out untouched. */
int zvs_cfg_parse_vswitch_def(const char *name, const char *const *tok, unsigned ntok,
                              struct zvs_cfg_vswitch *out, struct zvs_msg_list *msgs);
/* GRANT userid [PORTTYPE ACCESS | TRUNK] [VLAN vidset] (tok[0] is GRANT) through MODIFY
 * VSWITCH's operand table; `stmt` names the command in messages. The checks against the
 * switch (VLAN AWARE, one VLAN on ACCESS, one GRANT per user) are the caller's. 0 with
 * *out filled (vswitch and line 0, padding zero), or -EINVAL with *out untouched. */
int zvs_cfg_parse_grant(const char *stmt, const char *const *tok, unsigned ntok,
                        struct zvs_cfg_grant *out, struct zvs_msg_list *msgs);
/* QUEUESTORAGE value: "n" or "nM", n 1-8 (megabytes). 0, or -EINVAL with *mb untouched. */
int zvs_cfg_parse_queuestorage(const char *s, uint8_t *mb);

/* ---- value syntax shared with the CP command grammar --------------------------------- */

/* "nnnn" or "nnnn.Pn": 1-4 hex digits, port 1-2 hex digits 0-F. 0 or -EINVAL. */
int zvs_rdev_parse(const char *s, struct zvs_rdev *out);
/* "28BA", or "28BA.P1" when the port is not 0. buf needs 10 bytes. */
void zvs_rdev_format(struct zvs_rdev rdev, char *buf, size_t size);
bool zvs_rdev_equal(struct zvs_rdev a, struct zvs_rdev b);

/* Adds "vid" or "lo-hi" (decimal, 1-4094) to set. 0, -EINVAL, or -ENOSPC. */
int zvs_vidset_add(struct zvs_vidset *set, const char *s);
unsigned zvs_vidset_count(const struct zvs_vidset *set);
bool zvs_vidset_contains(const struct zvs_vidset *set, uint16_t vid);
/* "10 20-30" (empty set: ""). */
void zvs_vidset_format(const struct zvs_vidset *set, char *buf, size_t size);

/* Linux interface name rules (dev_valid_name): 1-15 chars, not "." or "..", no '/', ':'
 * or white space. */
bool zvs_ifname_valid(const char *s);

/* The MAC of the host tap behind an LCS NIC (NICBIND LCS). Hercules' LCS gives the guest
 * the tap's MAC plus one in the last byte (mod 256, no carry), so the tap gets the NIC's
 * MAC minus one there and the guest's MAC is the NIC's. Validate keeps every other NIC
 * off that MAC (see config.c, assign_macids). */
void zvs_lcs_tap_mac(const uint8_t nic_mac[6], uint8_t tap_mac[6]);
/* "a.b.c.d" (buf needs 16 bytes), from host byte order. */
void zvs_ipv4_format(uint32_t ip, char *buf, size_t size);

/* "02-00-0C-00-01-01" (buf needs 18 bytes). */
void zvs_mac_format(const uint8_t mac[6], char *buf, size_t size);

#endif
