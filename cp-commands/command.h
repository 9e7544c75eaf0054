/* CP commands typed by an operator or a guest: the grammar (a table of commands and
 * operands with CP's minimum abbreviations), privilege classes, and the parsed form the
 * executor acts on.
 *
 * Split of work: zvs_cmd_parse (command.c) turns one command line into a struct zvs_cmd or
 * a z/VM-style error; it knows nothing of the running system beyond the issuer's privilege
 * classes. The executor (daemon/daemon_cmd.c, which owns the running switches, port groups
 * and LACP engines) acts on a struct zvs_cmd and writes the response. Responses and errors
 * are lines of text plus a CP return code, collected in struct zvs_cp_response
 * (cp_response.h).
 *
 * The commands (full grammar with abbreviations in the table of command_grammar.c):
 *   DEFINE VSWITCH name [operands]               B   operands as the SYSTEM CONFIG
 *        statement (one operand table, sysconfig.c): RDEV dev.. | RDEV NONE, ETHERNET,
 *        VLAN UNAWARE|AWARE|vid, NATIVE vid|NONE, PORTTYPE ACCESS|TRUNK, QUEUESTORAGE n,
 *        CONNECT|DISCONNECT, NOUPLINK, CONTROLLER *|userid, GROUP grp|NOGROUP,
 *        MACPROTECT ON|OFF|UNSPECIFIED, ISOLATION ON|OFF; any order, each once
 *   SET VSWITCH name GRANT userid [PORTTYPE ACCESS|TRUNK] [VLAN vidset]      B
 *   SET VSWITCH name REVOKE userid                                           B
 *   SET VSWITCH name [UPLINK] RDEV dev [dev [dev]] | RDEV NONE               B
 *   SET VSWITCH name [UPLINK] GROUP grp | NOGROUP                            B
 *   SET VSWITCH name [UPLINK] CONNECT | DISCONNECT                           B
 *   SET VSWITCH name QUEUESTORAGE n[M]   (1-8)                               B
 *   SET VSWITCH name ISOLATION ON|OFF                                        B
 *   SET VSWITCH name MACPROTECT ON|OFF|UNSPECIFIED                           B
 *   SET VSWITCH name COUNTERS CLEAR [UPLINK|BRIDGEPORT|ALL] [DATA|DISCARDED|ERRORS]  B
 *   SET VSWITCH name [UPLINK] SWITCHOVER [AVAILABLE | RDEV dev]              B
 *   DETACH VSWITCH name                                                      B
 *   SET PORT GROUP grp JOIN rdev [rdev ...]        class B
 *   SET PORT GROUP grp LEAVE rdev [rdev ...]       class B
 *   SET PORT GROUP grp LACP ACTIVE | INACTIVE [EXCLUSIVE | SHARED]   class B
 *   SET PORT GROUP grp INTERVAL n | OFF            class B   (1-9990)
 *   SET PORT GROUP grp DELETE, SET PORT grp DELETE class B
 *   SET PORT GROUP grp POLICY LOAD [TOTAL | OUTBOUND] | LBT [n]   class B (ours, 1-100)
 *   DEFINE NIC [USERID u] vdev [QDIO] [DEVICES n]  class G   (n 3-3072, default 3)
 *   DETACH NIC [USERID u] vdev                     class G
 *   COUPLE [USERID u] vdev [TO] SYSTEM name        class G
 *   UNCOUPLE [USERID u] vdev                       class G
 *   QUERY NIC [USERID u] [vdev | ALL] [DETAILS]    class G
 *   QUERY VMLAN                                    class G
 *   QUERY PORT GROUP [grp | ALL]                   class B
 *   QUERY LACP [grp | ALL] [DETAILS]               class B   (zvswitch extension)
 *   QUERY VSWITCH [name | ALL] [DETAILS | ACCESSLIST | ACTIVE]   class B or G (a class G
 *        issuer sees only the switches it may couple to and its own adapters)
 *   SET LACP rdev DROPRX|DROPTX ON|OFF             class A   (zvswitch extension: fault
 *   SET LACP rdev DELAYTX ms                       class A    knobs for tests and drills)
 *   RESOLVER WATCH | UNWATCH name                  class B   (ours: the name layer; a host
 *                                                  name kept resolved, names/)
 *   QUERY RESOLVER                                 class B   (ours)
 * The machine commands (Hercules machines as z/VM guests; executed by
 * daemon/daemon_guests.c):
 *   XAUTOLOG userid                                class A or B
 *   FORCE userid [IMMEDIATE]                       class A   (IMMEDIATE changes nothing:
 *                                                             a machine stops at once)
 *   SIGNAL SHUTDOWN [USER] userid | ALL [WITHIN s] class A or C   (s 1-32767, default 300)
 *   SEND userid [text]                             class A, B or C   (text as typed)
 *   QUERY NAMES                                    class G
 *   QUERY USERS userid                             class G
 *   QUERY CONSLOG userid [n]                       class A or B   (ours: the last n lines
 *                                                  of the machine's console log, 1-500,
 *                                                  default 20)
 * IBM gives SIGNAL class G a form for the issuer's own machine and XAUTOLOG and SEND
 * class G too; they are not offered. SIGNAL's BY time and XAUTOLOG's options (ASYNCH,
 * PASSWORD, ...) are refused as invalid options.
 * USERID u on the NIC commands is ours (z/VM's SET NIC has the same operand): class G acts
 * on its own NICs; USERID naming another user needs class B (the parser checks the class,
 * the executor checks ownership).
 * UPLINK (SET VSWITCH), QDIO (DEFINE NIC) and TO (COUPLE) are accepted and not recorded.
 * DEFINE VSWITCH and SET VSWITCH GRANT operands are parsed by the SYSTEM CONFIG tables
 * (zvs_cfg_parse_vswitch_def / zvs_cfg_parse_grant, config.h): their errors are that
 * catalogue's HCP10nnE lines (messages.c) with rc = the number; checks against the running
 * system (duplicate switch, a GRANT's VLAN rules against its switch) are the executor's.
 * Abbreviations: the minimum of each keyword is the upper-case part of IBM's syntax
 * diagram where we found the diagram (SET: S, DEFINE: DEF, VSWITCH after DEFINE and SET in
 * full, GRAnt, REVoke, GROup, NOGroup, CONnect, DISCONnect, QUEuestorage, ISOLation,
 * MACProtect, UNSPECified, BRIDGEport, DISCARDed, ERRORs, JOIn, LEAve, INTerval, ACTive,
 * INACTive, EXClusive); elsewhere our own, marked in the grammar table
 * (command_grammar.c), which cites the source of each, as cp-commands/README.md does.
 */
#ifndef ZVS_COMMAND_H
#define ZVS_COMMAND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cp-commands/config.h"
#include "cp-commands/cp_response.h"             /* zvs_cp_response, zvs_cp_error and its cp_messages.h ids */

#define ZVS_CMD_LINE_MAX   1024         /* longer command lines are refused */
#define ZVS_CMD_MAX_RDEVS  8

enum zvs_cmd_verb {
    ZVS_CMD_SET_PORT_GROUP,
    ZVS_CMD_QUERY_PORT_GROUP,
    ZVS_CMD_QUERY_LACP,
    ZVS_CMD_QUERY_VSWITCH,
    ZVS_CMD_SET_LACP_FAULT,
    ZVS_CMD_DEFINE_VSWITCH,             /* name, vsw */
    ZVS_CMD_SET_VSWITCH,                /* name, vs_op and its operands */
    ZVS_CMD_DETACH_VSWITCH,             /* name */
    ZVS_CMD_DEFINE_NIC,                 /* target, vdev, devices */
    ZVS_CMD_DETACH_NIC,                 /* target, vdev */
    ZVS_CMD_COUPLE,                     /* target, vdev, name (the VSWITCH) */
    ZVS_CMD_UNCOUPLE,                   /* target, vdev */
    ZVS_CMD_QUERY_NIC,                  /* target, has_vdev/vdev, details */
    ZVS_CMD_QUERY_VMLAN,                /* no operands */
    ZVS_CMD_XAUTOLOG,                   /* userid */
    ZVS_CMD_FORCE,                      /* userid */
    ZVS_CMD_SIGNAL_SHUTDOWN,            /* userid ("" = ALL), within_s */
    ZVS_CMD_SEND,                       /* userid, text */
    ZVS_CMD_QUERY_NAMES,                /* no operands */
    ZVS_CMD_QUERY_USERS,                /* userid */
    ZVS_CMD_QUERY_CONSLOG,              /* userid, lines */
    /* What z/VM automation issues (xCAT, s390-tools, networking-zvm, Feilong). */
    ZVS_CMD_QUERY_USERID,               /* no operands */
    ZVS_CMD_QUERY_CPLEVEL,              /* no operands */
    ZVS_CMD_QUERY_VIRTUAL_NIC,          /* has_vdev/vdev, details (the issuer's own NICs) */
    ZVS_CMD_QUERY_LAN,                  /* name ("" = ALL), userid (OWNER; "" = any) */
    /* The name layer (ours). */
    ZVS_CMD_RESOLVER,                   /* res_op, hostname (zvswitch extension) */
    ZVS_CMD_QUERY_RESOLVER,             /* no operands */
};

/* RESOLVER <one of these> name. */
enum zvs_cmd_res_op {
    ZVS_CMD_RES_WATCH,                  /* keep the name resolved (QUERY RESOLVER shows it) */
    ZVS_CMD_RES_UNWATCH,
};

#define ZVS_CMD_WITHIN_DEFAULT  300     /* SIGNAL SHUTDOWN without WITHIN (our default) */
#define ZVS_CMD_CONSLOG_DEFAULT 20      /* QUERY CONSLOG without n */
#define ZVS_CMD_CONSLOG_MAX     500

enum zvs_cmd_pg_op {
    ZVS_CMD_PG_JOIN,
    ZVS_CMD_PG_LEAVE,
    ZVS_CMD_PG_LACP,
    ZVS_CMD_PG_INTERVAL,
    ZVS_CMD_PG_DELETE,                  /* no operand */
    ZVS_CMD_PG_POLICY,                  /* policy, load, lbt_percent (zvswitch extension) */
};

enum zvs_cmd_fault {
    ZVS_CMD_FAULT_DROPRX,
    ZVS_CMD_FAULT_DROPTX,
    ZVS_CMD_FAULT_DELAYTX,
};

/* SET VSWITCH name <one of these>. */
enum zvs_cmd_vs_op {
    ZVS_CMD_VS_GRANT,                   /* userid, porttype (UNSPEC: not given), has_vlan, vlan */
    ZVS_CMD_VS_REVOKE,                  /* userid */
    ZVS_CMD_VS_RDEV,                    /* nrdev 1-3 devices, or 0 for RDEV NONE */
    ZVS_CMD_VS_GROUP,                   /* group */
    ZVS_CMD_VS_NOGROUP,
    ZVS_CMD_VS_CONNECT,
    ZVS_CMD_VS_DISCONNECT,
    ZVS_CMD_VS_QUEUESTORAGE,            /* queuestorage_mb 1-8 */
    ZVS_CMD_VS_ISOLATION,               /* onoff */
    ZVS_CMD_VS_MACPROTECT,              /* macprotect */
    ZVS_CMD_VS_COUNTERS_CLEAR,          /* counters */
    ZVS_CMD_VS_SWITCHOVER,              /* nrdev 0 (AVAILABLE: next ready backup) or 1 */
    ZVS_CMD_VS_IVLPORT_HEARTBEAT,       /* heartbeat_s: IVLPORT HEARTBEAT TIMEOUT s */
    ZVS_CMD_VS_VXLAN,                   /* vx_op, hostname | vni, vx_vid | vx_addr, vx_mac (ours) */
};

/* SET VSWITCH name VXLAN <one of these> (ours: IBM's SET VSWITCH has no VXLAN). */
enum zvs_cmd_vx_op {
    ZVS_CMD_VX_REMOTE_ADD,              /* REMOTE ADD hostname (a name or an address) */
    ZVS_CMD_VX_REMOTE_DELETE,           /* REMOTE DELETE hostname */
    ZVS_CMD_VX_VNI,                     /* VNI vni: the switch's VNI (its untagged VLAN's) */
    ZVS_CMD_VX_VLAN_VNI,                /* VLAN vx_vid VNI vni: that VLAN's VNI */
    ZVS_CMD_VX_VLAN_DELETE,             /* VLAN vx_vid DELETE: that VLAN's VNI taken away */
    ZVS_CMD_VX_NEIGHBOR_SET,            /* NEIGHBOR vx_addr MAC vx_mac: a static neighbour */
    ZVS_CMD_VX_NEIGHBOR_DELETE,         /* NEIGHBOR vx_addr DELETE: taken away */
};

/* What SET VSWITCH ... COUNTERS CLEAR clears. */
enum zvs_cmd_counters {
    ZVS_CMD_COUNTERS_ALL,               /* uplinks and adapters (default) */
    ZVS_CMD_COUNTERS_UPLINK,            /* the uplink ports only */
    ZVS_CMD_COUNTERS_BRIDGEPORT,        /* the bridge port: we have none, nothing is cleared */
};

/* Which counters COUNTERS CLEAR resets (bits); 0 = all of them (none named). */
#define ZVS_CMD_CTR_DATA       0x01     /* bytes and packets */
#define ZVS_CMD_CTR_DISCARDED  0x02
#define ZVS_CMD_CTR_ERRORS     0x04

/* QUERY VSWITCH levels. */
enum zvs_cmd_level {
    ZVS_CMD_LEVEL_BRIEF,                /* the switch lines and uplink devices */
    ZVS_CMD_LEVEL_DETAILS,              /* everything, with counters */
    ZVS_CMD_LEVEL_ACCESSLIST,           /* the authorizations (GRANTs, directory) */
    ZVS_CMD_LEVEL_ACTIVE,               /* the switch lines and the coupled adapters */
    ZVS_CMD_LEVEL_CONTROLLER,           /* the switch lines and its controller (none) */
    ZVS_CMD_LEVEL_PROMISCUOUS,          /* the switch lines and promiscuous NICs (none) */
};

struct zvs_cmd {
    enum zvs_cmd_verb   verb;
    char                name[ZVS_NAME_MAX + 1]; /* group or switch; "" = all / not given */
    bool                details;                /* DETAILS (QUERY LACP, QUERY NIC) */
    enum zvs_cmd_level  level;                  /* QUERY VSWITCH */
    enum zvs_cmd_pg_op  pg_op;                  /* SET PORT GROUP */
    unsigned            nrdev;                  /* JOIN / LEAVE / RDEV devices, SET LACP: 1 */
    struct zvs_rdev     rdev[ZVS_CMD_MAX_RDEVS];
    bool                lacp_active;            /* LACP ACTIVE (true) / INACTIVE */
    bool                lacp_shared;            /* ... SHARED (else EXCLUSIVE, the default) */
    uint32_t            interval_s;             /* INTERVAL n, 0 = OFF */
    enum zvs_cfg_policy policy;                 /* POLICY LOAD | LBT */
    enum zvs_cfg_load   load;                   /* POLICY LOAD [TOTAL | OUTBOUND] */
    uint8_t             lbt_percent;            /* POLICY LBT [n], 1-100, default 75 */
    enum zvs_cmd_fault  fault;                  /* SET LACP */
    bool                fault_on;               /* DROPRX / DROPTX ON */
    uint32_t            delay_ms;               /* DELAYTX ms (0: off), 0-10000 */
    /* DEFINE VSWITCH: the definition, defaults filled in as for SYSTEM CONFIG; its name
     * equals cmd.name and its line is 0. */
    struct zvs_cfg_vswitch vsw;
    /* SET VSWITCH */
    enum zvs_cmd_vs_op  vs_op;
    char                userid[ZVS_USERID_MAX + 1]; /* GRANT / REVOKE; the machine */
    enum zvs_porttype   porttype;               /* GRANT PORTTYPE; UNSPEC when not given */
    bool                has_vlan;               /* GRANT VLAN vidset given */
    struct zvs_vidset   vlan;
    char                group[ZVS_NAME_MAX + 1];/* SET VSWITCH GROUP */
    uint8_t             queuestorage_mb;        /* QUEUESTORAGE 1-8 */
    uint32_t            heartbeat_s;            /* IVLPORT HEARTBEAT TIMEOUT, 1-300 */
    bool                onoff;                  /* ISOLATION ON (true) / OFF */
    enum zvs_macprotect macprotect;             /* MACPROTECT ON | OFF | UNSPECIFIED */
    enum zvs_cmd_counters counters;             /* COUNTERS CLEAR [UPLINK|BRIDGEPORT|ALL] */
    uint8_t             counters_kind;          /* [DATA|DISCARDED|ERRORS]: ZVS_CMD_CTR_* */
    enum zvs_cmd_vx_op  vx_op;                  /* VXLAN REMOTE | VNI | VLAN | NEIGHBOR */
    uint32_t            vni;                    /* VXLAN [VLAN v] VNI, 0-16777215 */
    uint16_t            vx_vid;                 /* VXLAN VLAN v, 1-4094 */
    char                vx_addr[ZVS_CFG_ADDR_STR]; /* VXLAN NEIGHBOR: canonical text */
    uint8_t             vx_mac[6];              /* VXLAN NEIGHBOR ... MAC */
    /* NIC commands. `target` is the owner of the NIC: "" = the issuer; USERID u (class B
     * only) names another user. */
    char                target[ZVS_USERID_MAX + 1];
    bool                has_vdev;               /* QUERY NIC: a vdev was given (else ALL) */
    uint16_t            vdev;                   /* base virtual device number */
    uint16_t            devices;                /* DEFINE NIC DEVICES, 3-3072, default 3 */
    /* Machine commands: `userid` names the machine. */
    uint32_t            within_s;               /* SIGNAL SHUTDOWN WITHIN s */
    uint32_t            lines;                  /* QUERY CONSLOG n */
    char                text[ZVS_CMD_LINE_MAX + 1]; /* SEND: the rest of the line as typed,
                                                   trailing blanks cut */
    enum zvs_cmd_res_op res_op;                 /* RESOLVER WATCH | UNWATCH */
    char                hostname[ZVS_HOSTNAME_MAX + 1]; /* RESOLVER, VXLAN REMOTE: canonical (lower case,
                                                   no trailing dot; names/name_syntax.h) */
};

/* Parses one command line issued by a user with privilege classes `privclass`
 * (ZVS_PRIVCLASS bits). Returns 0 and fills every byte of *cmd (members not used by the
 * verb are 0, padding too, so parsed commands compare with memcmp), or a negative value
 * after writing the error (unknown command, bad operand, missing operand, not authorized)
 * to *r, *cmd untouched. */
int zvs_cmd_parse(const char *line, uint32_t privclass, struct zvs_cmd *cmd,
                  struct zvs_cp_response *r);

/* ---- canonical text (command_format.c) and grammar self-check (command_grammar.c) ---- */

/* The canonical text of a parsed command, full keywords, e.g. "SET PORT GROUP CCBGROUP
 * JOIN 28BA 2902" or "QUERY LACP ALL DETAILS"; parsing it gives the same struct. Returns
 * the length it needed (like snprintf); buf gets "" for an unknown verb. */
size_t zvs_cmd_format(const struct zvs_cmd *cmd, char *buf, size_t size);

/* Checks the grammar table: sane keywords and abbreviations, no command path a prefix of
 * another, no token accepted by two alternatives at one position. 0 or -EINVAL. */
int zvs_cmd_grammar_check(void);

#endif
